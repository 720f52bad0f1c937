"""numerics/polynet.py: brute force over {±1}^n and ODE integration vs the exact theory (App. B.2.3, C.2.4).

Tolerances: 1e-12 for brute-force float64 sums of exactly representable numbers; relative 1e-6 for solve_ivp at
rtol 1e-10 (the flow); 1e-9 for the perturbed-neuron transform.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import polynet as NP
from theory import polynet as TP
from theory import sparse_init as SI
from theory._checks import InputError


# ------------------------------------------------------------------ population gradient
@settings(max_examples=15, deadline=None)
@given(k=st.integers(1, 3), m=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_population_gradient_matches_formula(k, m, seed):
    W = np.random.default_rng(seed).normal(size=(k, m))
    G = NP.population_gradient_bruteforce(W)
    expected = np.zeros((k, m))
    for i in range(k):
        expected[i, 0] = -np.prod(np.delete(W[:, 0], i))
    assert np.max(np.abs(G - expected)) <= 1e-12


def test_polynet_output_and_mask():
    W = np.ones((2, 2))
    f = NP.polynet_output(W)
    assert f.shape == (16,) and set(np.unique(f).tolist()) == {-4.0, 0.0, 4.0}
    assert NP.relevant_mask(3, 4) == 0b000100010001
    with pytest.raises(ValueError, match="too large"):
        NP.error_bruteforce(np.ones((3, 7)))


# ------------------------------------------------------------------ exact error
@pytest.mark.parametrize("v", ["0.5", "1", "2", "2.5", "3", "3.5"])
def test_error_spec_points(v):
    W = np.ones((3, 4))
    W[:, 0] = float(v)
    assert NP.error_bruteforce(W) == float(TP.error([Fraction(v)] * 3, n_prime=4))


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 3), m=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_error_matches_exact_formula(k, m, seed):
    rng = np.random.default_rng(seed)
    v = rng.integers(-8, 9, k) / 2
    u = rng.integers(-2, 3, (k, m - 1))
    W = np.column_stack([v, u]).astype(np.float64)
    exact = TP.error([Fraction(x) for x in v.tolist()], u.tolist())
    assert abs(NP.error_bruteforce(W) - float(exact)) <= 1e-12


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 5), m=st.integers(2, 60), v=st.fractions(Fraction(1, 10), 70))
def test_equal_init_error_float_matches_exact(k, m, v):
    got = float(NP.equal_init_error_float(np.array([float(v)]), k, m)[0])
    assert abs(got - float(TP.equal_init_error(Fraction(float(v)), k, m))) <= 1e-13


# ------------------------------------------------------------------ gradient flow
@settings(max_examples=12, deadline=None)
@given(k=st.integers(2, 6), frac=st.floats(0.0, 0.9), v0=st.floats(0.5, 2.0))
def test_flow_integration_matches_closed_form(k, frac, v0):
    t_end = 2.0 * frac if k == 2 else frac * v0 ** (2 - k) / (k - 2)
    t = np.linspace(0, t_end, 5)
    V = NP.integrate_flow(np.full(k, v0), t)
    exact = np.array([float(TP.flow_solution(sympy.Float(x, 30), k, sympy.Float(v0, 30))) for x in t])
    assert np.max(np.abs(V - exact[:, None]) / exact[:, None]) <= 1e-6


def test_flow_accepts_repeated_times():
    """Non-decreasing times, as documented, may repeat (np.linspace to a subnormal end gives [0, 0, 5e-324, ...]:
    found by hypothesis; scipy's solve_ivp wants them strictly increasing): a repeated time repeats its row."""
    V = NP.integrate_flow([1.0, 1.0, 1.0], [0.0, 0.1, 0.1, 0.2])
    np.testing.assert_array_equal(V[1], V[2])
    np.testing.assert_allclose(V[3], NP.integrate_flow([1.0, 1.0, 1.0], [0.2])[0], rtol=1e-9)
    tiny = np.linspace(0.0, 5e-324, 5)
    assert np.all(np.diff(tiny) >= 0) and np.any(np.diff(tiny) == 0)
    np.testing.assert_allclose(NP.integrate_flow([1.0, 2.0], tiny), np.tile([1.0, 2.0], (5, 1)), rtol=1e-12)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(3, 5))
def test_b7_squares_move_together(seed, k):
    rng = np.random.default_rng(seed)
    v0 = rng.uniform(0.3, 1.5, k) * rng.choice([-1, 1], k)
    if np.prod(v0) < 0:
        v0[0] = -v0[0]
    t_inf = np.prod(v0**2) ** (1 / k - 0.5) / (k - 2)
    V = NP.integrate_flow(v0, np.linspace(0, 0.5 * t_inf, 10))
    spread, q = NP.squared_growth_spread(V, v0)
    assert spread <= 1e-7 and np.all(np.diff(q) > 0)
    # Lemma B.8: the common q(t) lies between the v_g- and v_a-based solutions of (B.8)
    t = np.linspace(0, 0.5 * t_inf, 10)
    va, vg = np.mean(v0**2), np.prod(v0**2) ** (1 / k)
    lo = (vg ** (1 - k / 2) - (k - 2) * t) ** (-1 / (k / 2 - 1)) - vg
    base = va ** (1 - k / 2) - (k - 2) * t  # the v_a-based bound blows up first (v_a >= v_g): +inf after that
    hi = np.where(base > 0, np.abs(base) ** (-1 / (k / 2 - 1)) - va, np.inf)
    assert np.all(lo <= q + 1e-9) and np.all(q <= hi + 1e-9)


def test_hitting_time_and_quadrature_match_exact_time():
    for k, v in [(3, 4.0), (4, 10.0), (5, 6.0)]:
        exact = float(TP.flow_time(Fraction(v), k))
        assert abs(NP.hitting_time(k, v) - exact) <= 1e-9 * exact
        assert abs(NP.flow_time_quad(k, 1.0, v) - exact) <= 1e-12 * exact
    assert NP.hitting_time(3, 1.0) == 0.0


@pytest.mark.parametrize(
    "k, v_from, v_to", [(5, 1.0, 1e300), (3, 1e-300, 1.0), (3, 1e-10, 1e10), (4, 1e-100, 1e100), (3, 2.0, 2.0)]
)
def test_flow_time_quadrature_over_levels_of_any_range(k: int, v_from: float, v_to: float) -> None:
    """Over v itself quad returned 0.0 for k = 5 from 1 to 1e300 (exactly 1/3), with no warning: its nodes missed the
    mass near v = 1; in u = ln v it agrees with the exact time (theory.polynet.flow_time) at 1e-12 over 600 decades."""
    exact = float(TP.flow_time(Fraction(v_to), k, Fraction(v_from)))
    assert abs(NP.flow_time_quad(k, v_from, v_to) - exact) <= 1e-12 * exact


def test_flow_time_quadrature_beyond_the_float_range_is_refused() -> None:
    with pytest.raises(InputError, match="overflows float64"):
        NP.flow_time_quad(10, 1e-300, 1.0)  # 1e2400 / 8


# ------------------------------------------------------------------ plateau
@pytest.mark.parametrize("k,m", [(3, 11), (3, 101), (4, 201), (5, 1001)])
def test_plateau_numeric_matches_exact(k, m):
    d = NP.plateau_numeric(k, m)
    exact_v, _ = TP.first_time_error_at_most(Fraction(49, 100), k, m)
    assert d["v_star"] == float(exact_v) and d["v_zero"] == m - 1
    assert abs(d["ratio"] - float(TP.plateau_ratio(k, m))) <= 1e-9 * float(TP.plateau_ratio(k, m))
    with pytest.raises(ValueError, match="odd"):
        NP.plateau_numeric(k, m + 1)


# ------------------------------------------------------------------ perturbed sparse neuron
@pytest.mark.parametrize("n,k,s", [(13, 4, 2), (15, 4, 2), (15, 6, 2), (15, 6, 4)])
def test_perturbed_neuron_matches_lemma_c15(n, k, s):
    eps = SI.perturbation_epsilon(n, k, s)
    pred = np.array([float(x) for x in SI.good_neuron_correlations(n, k, s)])
    got = NP.perturbed_neuron_correlation(n, k, s, float(eps))
    assert np.max(np.abs(got - pred)) <= 1e-9
    assert NP.perturbed_neuron_correlation_exact(n, k, s, eps) == SI.good_neuron_correlations(n, k, s)
    for b in SI.bias_grid(k, eps):
        assert np.max(np.abs(NP.perturbed_neuron_correlation(n, k, s, float(eps), float(b)) - got)) <= 1e-12


def test_perturbed_neuron_spec_values():
    g = NP.perturbed_neuron_correlation(13, 4, 2, float(SI.perturbation_epsilon(13, 4, 2)))
    assert abs(g[0]) <= 1e-12 and abs(g[2] + 0.0615234) < 5e-8 and abs(g[5] - 0.00683594) < 5e-9


@pytest.mark.parametrize("n,k,s", [(14, 6, 2), (16, 6, 4), (12, 4, 0)])
def test_even_n_minus_s_exact_values(n, k, s):
    """Even n - s (a float brute force seems to deviate there): exactly, for b = 0 (tie -> ReLU'(0) = 0) and for the Thm C.16
    biases, the values are 1/2 Half_s([s]) Maj_{n-s+1}(k-s-+1), so the ratio is (n-k+1)/(k-s-1) instead of
    (n-k)/(k-s-1). The theory module refuses even n - s (docs/boolean.md)."""
    from math import comb

    from theory import boolean as B

    eps = Fraction(1, 2 * comb(n - s, k))
    h = B.half_full_set_coefficient(s)
    for b in [Fraction(0), *SI.bias_grid(k, eps)]:
        g = NP.perturbed_neuron_correlation_exact(n, k, s, eps, b)
        assert g[s] == h * B.majority_coefficient(n - s + 1, k - s - 1) / 2
        assert g[k] == h * B.majority_coefficient(n - s + 1, k - s + 1) / 2
        assert abs(g[s] / g[k]) == Fraction(n - k + 1, k - s - 1)
    with pytest.raises(ValueError, match="n - s odd"):
        SI.good_neuron_correlations(n, k, s)


def test_bad_inputs_are_refused_with_the_parameter_named():
    """Inputs outside the lemmas' settings raise, instead of returning numbers the claims could judge."""
    with pytest.raises(ValueError, match="k >= 3"):
        NP.plateau_numeric(2, 15)
    with pytest.raises(ValueError, match="eps must lie"):
        NP.plateau_numeric(3, 15, eps=0.6)
    with pytest.raises(ValueError, match="k \\(relevant blocks\\)"):
        NP.equal_init_error_float(np.array([1.0]), 0, 5)
    with pytest.raises(ValueError, match="n' \\(block width\\)"):
        NP.equal_init_error_float(np.array([1.0]), 3, 0)
    with pytest.raises(ValueError, match="0 <= s <= k <= n"):
        NP.perturbed_neuron_correlation(13, 4, 6, 0.1)
    with pytest.raises(ValueError, match="eps"):
        NP.perturbed_neuron_correlation(13, 4, 2, -1.0)


def test_plateau_numeric_returns_plain_floats():
    """v_star was sometimes a Python float and sometimes np.float64 (issue 32): every value is a plain float."""
    for k, m, eps in [(3, 11, 0.49), (3, 11, 0.3), (4, 201, 0.49), (5, 1001, 0.1), (3, 3, 0.49)]:
        out = NP.plateau_numeric(k, m, eps)
        assert all(type(v) is float for v in out.values()), {key: type(v) for key, v in out.items()}


def test_polynet_sizes_are_refused_before_the_work():
    from theory._checks import LimitError

    for call, param in [
        (lambda: NP.relevant_mask(10**6, 2), "k"),
        (lambda: NP.plateau_numeric(3, 10**8 + 1), "n_prime"),
        (lambda: NP.equal_init_error_float(np.ones(3), 3, 10**8 + 1), "n_prime"),
        (lambda: NP.perturbed_neuron_weights(10**12, 2, 0.1), "n"),
        (lambda: NP.integrate_flow(np.ones(10**5), [0.0, 0.1]), "v0"),
        (lambda: NP.hitting_time(10**5, 2.0), "k"),
        (lambda: NP.error_bruteforce(np.ones((3, 7))), "W"),
    ]:
        with pytest.raises(LimitError) as info:
            call()
        assert info.value.param == param
    with pytest.raises(ValueError, match="rtol"):
        NP.integrate_flow([1.0, 1.0, 1.0], [0.0, 0.1], rtol=float("nan"))  # used to hang in solve_ivp
    with pytest.raises(ValueError, match="4000 digits"):
        NP.perturbed_neuron_correlation_exact(7, 4, 2, "1e999999999")  # used to hang building 10^999999999


# ------------------------------------------------------------------ Thm 5.7 with N(0, 1) init: the flow's crossings
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 10**6), st.booleans())
def test_block_error_is_the_brute_force_error(k, m, seed, lattice):
    """block by block (independent blocks) = over all 2^(k n') inputs; the sorted-sums count of the flow = both
    (ties and zero outputs included: half-integer weights)."""
    W = np.random.default_rng(seed).normal(size=(k, m))
    if lattice:
        W = np.round(2 * W) / 2
    err = NP.error_bruteforce(W)
    assert NP.block_error(W) == pytest.approx(err, abs=1e-12)
    assert NP._error_from_sums(W[:, 0], NP._sorted_block_sums(W)) == pytest.approx(err, abs=1e-12)


@pytest.mark.parametrize("k,m,seed", [(3, 6, 0), (3, 9, 1), (4, 5, 2), (4, 8, 3), (5, 4, 4)])
def test_flow_crossings_match_the_exact_times(k, m, seed):
    """The integrated flow's first crossings = theory's exact crossing shifts through t(q) (Lemma B.8's proof)."""
    W = NP.gaussian_init(k, m, seed)
    out = NP.flow_error_crossings(W, [0.49, 0.25, 0.0])
    v0, u = W[:, 0].tolist(), W[:, 1:].tolist()
    for level, t in zip(("0.49", "0.25", "0"), out["times"]):
        assert t == pytest.approx(TP.first_time_error_at_most_general(level, v0, u)[1], rel=1e-9, abs=1e-11)
    assert out["monotone"] and out["irrelevant_moved"] == 0.0
    assert out["times"][0] <= out["times"][1] <= out["times"][2] <= out["t_zero_event"]


def test_gaussian_init_is_conditioned_and_nested():
    for seed in range(20):
        W = NP.gaussian_init(4, 9, seed)
        assert np.prod(W[:, 0]) > 0
        assert np.array_equal(NP.gaussian_init(4, 5, seed), W[:, :5])
        raw = np.random.default_rng(seed).normal(size=4)
        assert np.array_equal(np.abs(W[:, 0]), np.abs(raw)) and np.array_equal(W[1:, 0], raw[1:])


def test_flow_crossings_refuse_bad_inits():
    with pytest.raises(ValueError, match="prod_i v_i"):
        NP.flow_error_crossings(np.array([[1.0, 0.5], [-1.0, 0.5], [1.0, 0.5]]), [0.49])
    with pytest.raises(ValueError, match="error is 0 at t = 0"):
        NP.flow_error_crossings(np.array([[2.0, 0.5], [2.0, 0.5], [2.0, 0.5]]), [0.49])
    with pytest.raises(ValueError, match="k >= 3"):
        NP.flow_error_crossings(np.ones((2, 3)), [0.49])
    with pytest.raises(ValueError, match="levels"):
        NP.flow_error_crossings(np.ones((3, 3)), [0.5])


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3, 0.49, 0.4999])
@pytest.mark.parametrize(("k", "n_prime"), [(3, 5), (4, 7), (3, 9)])
def test_plateau_numeric_ratio_matches_the_exact_one_over_eps(k, n_prime, eps):
    exact = TP.plateau_ratio(k, n_prime, Fraction(eps))
    assert abs(NP.plateau_numeric(k, n_prime, eps)["ratio"] - float(exact)) < 1e-9


@pytest.mark.parametrize("eps", [0.5, -0.01])
def test_plateau_numeric_refuses_eps_outside_zero_to_one_half(eps):
    """eps in [0, 1/2): an error level below chance (1/2 itself is refused)."""
    with pytest.raises(InputError) as info:
        NP.plateau_numeric(3, 11, eps)
    assert info.value.param == "eps"
