"""Exact checks of theory.parity (Edelman Thm 7.8, App. D.7).

Oracle: brute-force enumeration of {+-1}^n with exact rationals / sympy; expected values only from
theory.parity or brute force.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from fractions import Fraction

import pytest
import sympy

from theory import boolean as tb
from theory import parity as tp
from theory._checks import InputError, LimitError


def _brute_expectation(u, S, k):
    """E_x[(u.x)^k chi_S(x)] by summing over the whole cube (exact)."""
    n = len(u)
    total = sympy.Integer(0)
    for x in itertools.product([1, -1], repeat=n):
        total += sympy.Add(*[ui * xi for ui, xi in zip(u, x)]) ** k * math.prod(x[j] for j in S)
    return sympy.expand(total / 2**n)


def _brute_neuron_margin(u, w, S):
    """Uniform-q expected margin E_x[phi[y] - phi[-y]] by enumeration (label 0 <-> chi_S = +1)."""
    k, n = len(S), len(u)
    total = sympy.Integer(0)
    for x in itertools.product([1, -1], repeat=n):
        a = sympy.Add(*[ui * xi for ui, xi in zip(u, x)]) ** k
        y = 0 if math.prod(x[j] for j in S) == 1 else 1
        total += a * (w[y] - w[1 - y])
    return sympy.simplify(total / 2**n)


@pytest.mark.parametrize("n,S", [(3, (0,)), (3, (0, 2)), (4, (1, 2, 3)), (4, (0, 1, 2, 3)), (5, (0, 3))])
def test_expectation_identity_symbolic_vs_brute_force(n, S):
    u = sympy.symbols(f"u0:{n}", real=True)
    k = len(S)
    by_expansion = tp.parity_expectation(u, S)
    assert sympy.expand(by_expansion - _brute_expectation(u, S, k)) == 0
    assert sympy.expand(by_expansion - sympy.factorial(k) * sympy.Mul(*[u[j] for j in S])) == 0


@pytest.mark.parametrize("n,k", [(3, 1), (4, 2), (4, 3), (5, 4)])
def test_expectation_identity_residual_is_zero(n, k):
    assert tp.expectation_identity_residual(n, k) == 0


def test_expectation_with_random_rationals_matches_brute_force():
    rnd = random.Random(0)
    for n, S in [(4, (0, 2)), (5, (1, 2, 4))]:
        u = [sympy.Rational(rnd.randint(-9, 9), rnd.randint(1, 5)) for _ in range(n)]
        assert tp.parity_expectation(u, S) == _brute_expectation(u, S, len(S))


def test_max_margin_forms_agree_symbolically_and_numerically():
    K = sympy.Symbol("k", positive=True, integer=True)
    assert sympy.simplify(tp.max_margin(K) - tp.max_margin_spec_form(K)) == 0
    for k in range(1, 9):
        assert sympy.simplify(tp.max_margin(k) - tp.max_margin_spec_form(k)) == 0
        assert tp.min_width(k) == 2 ** (k - 1)
        assert sympy.simplify(2 * tp.output_coefficient(k) - tp.max_margin(k)) == 0


@pytest.mark.parametrize("n,S", [(2, (0,)), (3, (0, 2)), (4, (0, 1, 3)), (4, (0, 1, 2, 3))])
def test_optimal_neuron_attains_gamma_star_by_brute_force(n, S):
    k = len(S)
    for sigma in itertools.product([1, -1], repeat=k):
        nr = tp.optimal_neuron(n, S, sigma)
        assert sympy.simplify(nr.norm_squared() - 1) == 0
        assert sympy.simplify(_brute_neuron_margin(nr.u, nr.w, S) - tp.max_margin(k)) == 0
        assert sympy.simplify(tp.neuron_margin(nr.u, nr.w, S) - tp.max_margin(k)) == 0
        # the structural description accepts every optimal neuron
        assert tp.structural_prediction(n, S).matches([float(v) for v in nr.u], [float(v) for v in nr.w], 1e-12)


def test_random_rational_neurons_never_beat_gamma_star():
    """Normalized single-neuron margin <= gamma*(k) (Lemma 7.3 + AM-GM), oracle: exact enumeration."""
    rnd = random.Random(1)
    for n, S in [(3, (0, 1)), (4, (0, 2, 3))]:
        k = len(S)
        g = tp.max_margin(k)
        for _ in range(10):
            u = [sympy.Rational(rnd.randint(-6, 6), rnd.randint(1, 4)) for _ in range(n)]
            w = [sympy.Rational(rnd.randint(-6, 6), rnd.randint(1, 4)) for _ in range(2)]
            norm2 = sum(v**2 for v in u + w)
            if norm2 == 0:
                continue
            val = _brute_neuron_margin(u, w, S) / norm2 ** sympy.Rational(k + 1, 2)
            assert float(val) <= float(g) * (1 + 1e-12)
            assert sympy.simplify(_brute_neuron_margin(u, w, S) - tp.neuron_margin(u, w, S)) == 0


@pytest.mark.parametrize("n,S", [(2, (0, 1)), (4, (1, 3)), (4, (0, 1, 2)), (5, (0, 2, 3, 4))])
def test_construction_exact_at_every_point(n, S):
    c = tp.construction(n, S)
    k = len(S)
    assert c.n_active == tp.min_width(k)
    assert c.norm_power == 1
    assert sympy.simplify(c.normalized_margin - tp.max_margin(k)) == 0
    for x in tp.cube(n):
        f = c.logits(x)
        pred = c.predicted_logits(x)
        assert sympy.simplify(f[0] - pred[0]) == 0 and sympy.simplify(f[1] - pred[1]) == 0
        assert sympy.simplify(c.point_margin(x) - tp.max_margin(k)) == 0


def test_construction_width_padding_and_scale():
    c = tp.construction(6, (0, 1, 2), width=10)
    assert c.width == 10 and c.n_active == 4
    assert sympy.simplify(c.scale**4 - sympy.Rational(1, 4)) == 0


def test_structural_prediction_values_and_deviations():
    p = tp.structural_prediction(10, (0, 1, 2, 3))
    assert sympy.simplify(p.abs_u - p.w_norm) == 0
    assert sympy.simplify(2 * p.w_entry**2 - p.w_norm**2) == 0
    nr = tp.optimal_neuron(10, (0, 1, 2, 3), (1, -1, 1, 1))
    u, w = [float(v) for v in nr.u], [float(v) for v in nr.w]
    d = p.deviations([3 * v for v in u], [3 * v for v in w])  # scale-free
    assert d["abs_u"] < 1e-12 and d["off_support"] == 0 and d["w"] < 1e-12 and d["sign_product"] > 0
    assert abs(d["support_share"] - 1) < 1e-12
    flipped = p.deviations(u, [-v for v in w])  # w of the wrong sign: structure ok, sign rule broken
    assert flipped["sign_product"] < 0 and not p.matches(u, [-v for v in w], 1e-6)
    leaky = list(u)
    leaky[7] = 0.1
    assert not p.matches(leaky, w, 1e-3)


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: tp.max_margin(0), "k >= 1"),
        (lambda: tp.max_margin(2.0), "integer"),
        (lambda: tp.min_width(-1), "k >= 1"),
        (lambda: tp.check_nk(0, 1), "n >= 1"),
        (lambda: tp.check_nk(3, 4), "k = 4 > n = 3"),
        (lambda: tp.construction(4, (0, 0)), "repeated"),
        (lambda: tp.construction(4, (0, 4)), "out of range"),
        (lambda: tp.construction(4, ()), "non-empty"),
        (lambda: tp.construction(6, (0, 1, 2), width=3), "2^(k-1) = 4"),
        (lambda: tp.parity_expectation([1, 2, 3], (0, 1), k=3), "not k = 3"),
        (lambda: tp.optimal_neuron(4, (0, 1), (1, 2)), "sigma"),
        (lambda: tp.neuron_margin([1, 2], [1, 2, 3], (0,)), "2 entries"),
        (lambda: tp.structural_prediction(4, (0, 1)).deviations([0, 0, 0, 0], [0, 0]), "zero neuron"),
    ],
)
def test_bad_inputs_name_the_hypothesis(call, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)").replace("^", r"\^")):
        call()


# ------------------------------------------------------------------------------------------ issue 32: hostile input

K30_PATHS = [
    lambda: tp.construction(30, range(30)),
    lambda: tp.construction(30, list(range(30)), width=2**29),
    lambda: tp.construction(30, tuple(range(30)), width=1),  # the size is checked before the width
    lambda: tp.construction(10**6, range(30)),
    lambda: tp.construction(10**9, iter(range(30))),
]


@pytest.mark.parametrize("call", K30_PATHS, ids=range(len(K30_PATHS)))
def test_the_k30_construction_is_refused_at_once_on_every_path(call):
    """k = 30 (2^29 neurons) is refused before anything is built, whatever the width, n or kind of sequence."""
    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 0.5 and info.value.param == "k"
    assert str(info.value).startswith("k = 30 is too large: the exact construction")
    # the limit named exactly: the message said "above the limit 10^5" of a limit of 200,000
    assert "above the limit 200,000" in str(info.value) and info.value.limit == 200_000


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: tp.check_support(10**9, range(10**9)), "support"),  # was listed in full (memory) before any check
        (lambda: tp.construction(10**9, range(10**9)), "support"),
        (lambda: tp.structural_prediction(10**9, range(10**9)), "support"),
        (lambda: tp.optimal_neuron(10**9, [0]), "n"),
        (lambda: tp.parity_expectation(iter(range(10**9)), [0]), "u"),
        (lambda: tp.max_margin(1464), "k"),
    ],
)
def test_huge_supports_and_vectors_are_refused_before_they_are_listed(call, param):
    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 0.5 and info.value.param == param


@pytest.mark.parametrize("value", [float("nan"), float("inf"), sympy.nan, sympy.zoo, "nan", "1e999999999"])
@pytest.mark.parametrize(
    "call,param",
    [
        (lambda v: tp.parity_expectation([v, 1], [0]), "u"),
        (lambda v: tp.neuron_margin([1, 2], [v, -1], [0]), "w"),
        (lambda v: tp.structural_prediction(3, [0, 2]).deviations([v, 0, 1], [1, -1]), "u"),
        (lambda v: tp.structural_prediction(3, [0, 2]).deviations([1, 0, 1], [1, v]), "w"),
        (lambda v: tp.check_support(3, [0, v]), "support"),
    ],
)
def test_nan_and_inf_are_refused_naming_the_parameter(call, param, value):
    """deviations() returned NaN for a NaN weight; '1e999999999' built a billion-digit integer (Fraction) for
    minutes; now each is an InputError naming the parameter."""
    t0 = time.perf_counter()
    with pytest.raises(InputError) as info:
        call(value)
    assert time.perf_counter() - t0 < 0.5 and info.value.param == param


def test_the_monomial_limit_reads_as_a_sentence():
    with pytest.raises(LimitError) as info:
        tp.expectation_identity_residual(60, 8)
    assert str(info.value).startswith("n = 60 is too large: the number of monomials C(n+k-1, k) of the expansion")
    assert " has " not in str(info.value).split(";")[0]


@pytest.mark.parametrize("n,k", [(199, 2), (200, 2), (48, 3), (49, 3), (5, 1), (3, 7)])
def test_the_expansion_limit_counts_the_monomials_of_both_expansions(n, k):
    """Both expansions of (u.x)^k are refused exactly when the monomials of degree k in n variables, listed one by
    one, are more than MAX_EXPANSION_TERMS; the message names k and each function's own hint."""
    monomials = sum(1 for _ in itertools.combinations_with_replacement(range(n), k))
    too_many = monomials > tp.MAX_EXPANSION_TERMS
    u, support = [1] * n, list(range(min(k, n)))
    for call, hint in (
        (lambda: tp._check_expansion_terms(n, k, "a hint"), "a hint"),
        (lambda: tp.parity_expectation(u, support, k) if too_many else None, "closed form k! prod_S u_j"),
        (lambda: tp.expectation_identity_residual(n, k) if too_many else None, "checked symbolically"),
    ):
        if too_many:
            with pytest.raises(LimitError) as info:
                call()
            assert info.value.param == "n" and f"at k = {k}" in str(info.value) and hint in str(info.value)
        else:
            call()


# ------------------------------------------------------------------------------- Theorem 5.5's schedule (App. B.2.1)


@pytest.mark.parametrize("n,k", [(5, 2), (7, 2), (9, 4), (11, 4)])
def test_thm55_first_step_rate_uses_the_bruteforce_majority_coefficient(n, k):
    xi = tb.majority_coefficient_bruteforce(n, k - 1)
    assert tp.thm55_first_step_rate(n, k) == 1 / (k * abs(Fraction(xi)))


@pytest.mark.parametrize("k,eps", [(2, "0.45"), (2, "0.1"), (4, "0.25")])
def test_thm55_width_is_the_smallest_even_width_meeting_the_condition(k, eps):
    r = tp.thm55_width(k, eps)
    bound = k * 2**k * math.log(8 * k / float(Fraction(eps)))
    assert r % 2 == 0 and r >= bound and r - 2 < bound


@pytest.mark.parametrize("n,k,r,eps", [(5, 2, 30, "0.45"), (9, 4, 274, "0.25")])
def test_thm55_steps_is_the_ceiling_of_the_stated_count(n, k, r, eps):
    T = tp.thm55_steps(n, k, r, eps)
    exact = Fraction(2**9 * k**3 * r * n**2) / Fraction(eps) ** 2
    assert T >= exact > T - 1


def test_thm55_bias_grid_has_step_one_over_k():
    assert tp.thm55_bias_grid(4) == [Fraction(j, 4) for j in range(-3, 4)]


@pytest.mark.parametrize(
    "args,match", [((5, 3, 30, "0.2"), "even k"), ((6, 2, 30, "0.2"), "odd n"), ((5, 2, 30, "0.5"), "eps in")]
)
def test_thm55_steps_refuses_inputs_outside_the_theorem(args, match):
    with pytest.raises(ValueError, match=match):
        tp.thm55_steps(*args)


@pytest.mark.parametrize("eps", ["-1/4", 0, "1e-300", "1/4", "0.45", "0.4999", "1/2", "3/4", 1])
def test_thm55_functions_take_eps_in_the_open_interval_to_one_half(eps):
    """Thm 5.5 fixes eps in (0, 1/2): the width, the step count, the batch and the shared check accept exactly those
    eps (the check returns it as an exact Fraction) and refuse the others with the theorem's message."""
    inside = 0 < Fraction(eps) < Fraction(1, 2)
    for call in (
        lambda: tp._check_thm55_eps(eps),
        lambda: tp.thm55_width(2, eps),
        lambda: tp.thm55_steps(5, 2, 30, eps),
        lambda: tp.thm55_batch(5, 2, 30, eps),
    ):
        if inside:
            call()
        else:
            with pytest.raises(InputError, match=r"Thm 5\.5 .* fixes eps in \(0, 1/2\)") as info:
                call()
            assert info.value.param == "eps"
    if inside:
        assert tp._check_thm55_eps(eps) == Fraction(eps)
