"""Exact checks of theory/polynet.py (Sec. 5.4.2, App. B.2.3; Lemma B.8/B.9, Thm 5.7).

Oracle: a pure-Python brute force over {±1}^(k n') in exact Fractions (small k, n'); symbolic identities with sympy.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import polynet as P

F = Fraction


def brute_error(v, u) -> Fraction:
    """P[sign(prod_i (v_i z_i + u_i . z_i^-)) != prod_i z_i] over all inputs, sign(0) = 0 (exact)."""
    k = len(v)
    m = len(u[0]) + 1
    bad = 0
    for x in itertools.product((1, -1), repeat=k * m):
        f, y = Fraction(1), 1
        for i in range(k):
            blk = x[i * m : (i + 1) * m]
            f *= v[i] * blk[0] + sum(Fraction(a) * b for a, b in zip(u[i], blk[1:]))
            y *= blk[0]
        sgn = (f > 0) - (f < 0)
        bad += sgn != y
    return Fraction(bad, 2 ** (k * m))


# ------------------------------------------------------------------ Sec. 5.4.2: population gradient
@pytest.mark.parametrize("k,m", [(1, 3), (2, 3), (3, 4), (4, 2)])
def test_symbolic_gradient_equals_formula(k, m):
    sym = P.population_gradient_symbolic(k, m)
    formula = P.population_gradient_formula(k, m)
    for ra, rb in zip(sym, formula):
        for a, b in zip(ra, rb):
            assert sympy.expand(a - b) == 0


def test_symbolic_gradient_refuses_large_expansion():
    with pytest.raises(ValueError, match="monomials"):
        P.population_gradient_symbolic(6, 10)


# ------------------------------------------------------------------ Lemma B.9: exact error
REFERENCE_ERR = {"0.5": 0.5, "1": 0.851562, "2": 0.289062, "2.5": 0.289062, "3": 0.330078, "3.5": 0.0}


@pytest.mark.parametrize("v,expected", sorted(REFERENCE_ERR.items()))
def test_error_spec_values(v, expected):
    e = P.error([F(v)] * 3, n_prime=4)
    assert abs(float(e) - expected) <= 1e-6  # reference values with 6 decimals (truncated)
    assert e == P.equal_init_error(F(v), 3, 4)


def test_error_not_monotone():
    # err(2) < err(3) although 3 > 2 (an atom of U at v = 3 gives zero outputs)
    assert P.error([2] * 3, n_prime=4) < P.error([3] * 3, n_prime=4)


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 3), m=st.integers(1, 3), data=st.data())
def test_error_matches_bruteforce(k, m, data):
    if k * m > 9:
        m = 9 // k
    v = [F(data.draw(st.integers(-8, 8)), 2) for _ in range(k)]
    u = [[data.draw(st.integers(-2, 2)) for _ in range(m - 1)] for _ in range(k)]
    assert P.error(v, u) == brute_error(v, u)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=0, max_size=7))
def test_sum_distribution_is_exact(u):
    dist = P.sum_distribution(u)
    assert sum(dist.values()) == 1
    direct: dict[Fraction, Fraction] = {}
    for z in itertools.product((1, -1), repeat=len(u)):
        key = Fraction(sum(a * b for a, b in zip(u, z)))
        direct[key] = direct.get(key, Fraction(0)) + Fraction(1, 2 ** len(u))
    assert {k: p for k, p in dist.items() if p} == direct


def test_error_input_validation():
    with pytest.raises(ValueError, match="irrelevant"):
        P.error([1, 1])
    with pytest.raises(ValueError, match="one irrelevant-weight vector per block"):
        P.error([1, 1], [[1, 1]])
    with pytest.raises(ValueError, match="rational"):
        P.error([sympy.sqrt(2)], n_prime=3)


# ------------------------------------------------------------------ eq. B.7: gradient flow
@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
def test_flow_solves_ode_and_inverse(k):
    t = sympy.Symbol("t", positive=True)
    v0 = sympy.Rational(3, 2)
    v = P.flow_solution(t, k, v0)
    assert sympy.simplify(sympy.diff(v, t) - v ** (k - 1)) == 0  # dv/dt = prod_{j != i} v_j = v^(k-1)
    assert sympy.simplify(v.subs(t, 0) - v0) == 0
    if k >= 3:
        assert sympy.simplify(P.flow_time(v, k, v0) - t) == 0
        assert P.blowup_time(k, 1) == sympy.Rational(1, k - 2)
        assert sympy.limit(1 / v, t, P.blowup_time(k, v0), "-") == 0
    else:
        assert P.blowup_time(2) == sympy.oo


def test_flow_time_exact_fraction():
    assert P.flow_time(F(4), 3) == F(3, 4)
    assert P.flow_time(2, 4) == F(3, 8)
    with pytest.raises(ValueError, match="v >= v0"):
        P.flow_time(F(1, 2), 3)
    with pytest.raises(ValueError, match="outside"):
        P.flow_solution(1, 3)


def test_flow_rhs():
    assert P.flow_rhs([2, 3, 5]) == [15, 10, 6]


# ------------------------------------------------------------------ Thm 5.7: plateau
@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 5), m=st.integers(2, 14), eps=st.fractions(0, F(99, 100)))
def test_first_time_matches_pieces(k, m, eps):
    """T(eps) from the integer scan equals the infimum read off the explicit step function err(v)."""
    v_star, _ = P.first_time_error_at_most(eps, k, m)
    pieces = P.error_pieces(k, m)
    first = next(p for p in pieces if p.err <= eps)
    assert v_star == first.lo
    # and each piece's error is the exact error at a point of it
    for p in pieces:
        v = p.lo if p.point else (p.lo + (p.hi if p.hi is not None else p.lo + 2)) / 2
        assert p.err == P.equal_init_error(v, k, m)


@pytest.mark.parametrize("k,m", [(2, 3), (3, 4), (3, 5), (4, 6), (5, 7)])
def test_first_time_at_an_attained_error_level_includes_equality(k, m):
    """T(eps) = inf{t: err(t) <= eps} with eps equal to an error value the flow attains: the infimum is the first
    piece whose error, evaluated by equal_init_error at a point of it, is <= eps, equality included (a random
    rational eps never lands on one of these finitely many values)."""
    pieces = P.error_pieces(k, m)
    points = [p.lo if p.point else (p.lo + (p.hi if p.hi is not None else p.lo + 2)) / 2 for p in pieces]
    errors = [P.equal_init_error(v, k, m) for v in points]
    for eps in sorted(set(e for e in errors if e < 1)):
        first = next(i for i, e in enumerate(errors) if e <= eps)
        assert P.first_time_error_at_most(eps, k, m)[0] == pieces[first].lo, (eps, pieces[first])


# reference values of 1 - T(0.49)/T(0) (rounded as printed; docs/boolean.md)
PLATEAU_REFERENCE = [
    (3, 101, "0.2424"),
    (3, 501, "0.1233"),
    (3, 1001, "0.0991"),
    (3, 5001, "0.0415"),
    (4, 101, "0.0624"),
    (4, 1001, "0.00391"),
    (4, 5001, "0.00087"),
    (5, 101, "0.00463"),
    (5, 1001, "1.2e-4"),
]


@pytest.mark.parametrize("k,m,value", PLATEAU_REFERENCE)
def test_plateau_ratio_matches_reference(k, m, value):
    """Agreement to one unit in the last printed digit (0.1233 is printed for the exact 123/998 = 0.123246)."""
    r = P.plateau_ratio(k, m)
    mant = value.split("e")[0]
    ulp = 10.0 ** (-len(mant.split(".")[1])) * (10.0 ** int(value.split("e")[1]) if "e" in value else 1.0)
    assert abs(float(r) - float(value)) <= ulp


def test_plateau_scaled_ratio_bounded():
    for k in (3, 4, 5):
        for m in (11, 21, 51, 101, 201):
            assert 0 < P.plateau_ratio_scaled(k, m) <= 15


def test_plateau_t0_is_time_to_reach_n_prime_minus_one():
    v, t = P.first_time_error_at_most(0, 3, 11)
    assert v == 10 and t == P.flow_time(10, 3)


def test_plateau_requires_odd_n_prime_and_k3():
    with pytest.raises(ValueError, match="odd n'"):
        P.plateau_ratio(3, 100)
    with pytest.raises(ValueError, match="k >= 3"):
        P.plateau_ratio(2, 101)
    # the degeneracy: with even n', v = 1 is an atom of U; for small even n' the error is < 0.49 just after t = 0
    v, t = P.first_time_error_at_most(F(49, 100), 3, 4)
    assert v == 1 and t == 0 and P.equal_init_error(1, 3, 4) > F(49, 100)
    # ... but not for every even n' (docs/boolean.md): at n' = 100 the first time is at v = 3
    assert P.first_time_error_at_most(F(49, 100), 3, 100)[0] == 3


def test_last_time_exceeds_first_time_nonmonotone():
    """Cor. B.10's T(alpha) = sup{t: err >= alpha} differs from the main text's first time (err not monotone)."""
    v_first, _ = P.first_time_error_at_most(F(49, 100), 3, 101)
    v_last, _ = P.last_time_error_at_least(F(49, 100), 3, 101)
    assert v_last > v_first
    with pytest.raises(ValueError, match="infinite"):
        P.last_time_error_at_least(0, 3, 101)


def test_velocity_approximation_close():
    for k, m in [(3, 1001), (3, 5001), (4, 1001)]:
        v, _ = P.first_time_error_at_most(F(49, 100), k, m)
        approx = P.velocity_at_plateau_end_approx(k, m)
        assert abs(float(v) - approx) <= 2 + 0.1 * approx


# ------------------------------------------------------------------ Lemma B.8 / B.9 bounds
def test_lemma_b8_tight_for_equal_init():
    lower, upper = P.lemma_b8_bounds([1, 1, 1, 1], 5, 0)
    assert math.isclose(lower, float(P.flow_time(5, 4)), rel_tol=1e-14)
    assert math.isclose(upper, float(P.blowup_time(4) - P.flow_time(5, 4)), rel_tol=1e-14)
    with pytest.raises(ValueError, match="prod"):
        P.lemma_b8_bounds([1, -1, 1], 2, 0)


@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 3), m=st.integers(3, 9), v2=st.integers(0, 24))
def test_lemma_b9_bounds_hold(k, m, v2):
    v = [F(v2, 2) + F(1, 100)] * k
    u = [[1] * (m - 1)] * k
    err = P.error(v, u)
    assert P.lemma_b9_lower_bound_exact(v, u) <= err
    assert P.lemma_b9_lower_bound([float(x) for x in v], u) <= float(err) + 1e-15
    assert float(err) <= P.lemma_b9_upper_bound([float(x) for x in v], u) + 1e-15


def test_lemma_b9_upper_bound_as_printed_fails():
    """Hoeffding's exponent is -t^2/(2||u||^2); the printed -v^2/||u||^2 bound fails (k = 3, n' = 8, v = 6.51)."""
    v, u = [F(651, 100)] * 3, [[1] * 7] * 3
    err = P.error(v, u)
    assert err == 1 - (1 + F(63, 64) ** 3) / 2
    assert float(err) > P.lemma_b9_upper_bound([6.51] * 3, u, as_printed=True)
    assert float(err) <= P.lemma_b9_upper_bound([6.51] * 3, u)


def test_lemma_b9_lower_bound_as_printed_fails():
    """Berry-Esseen term c||u||_inf/||u||_2^3 is too small (should be ~||u||_inf/||u||_2): counterexample."""
    v, u = [F(201, 100)] * 3, [[1] * 100] * 3
    err = float(P.error(v, u))
    assert P.lemma_b9_lower_bound([2.01] * 3, u, as_printed=True) > err
    assert P.lemma_b9_lower_bound([2.01] * 3, u) <= err


def test_lemma_b9_bounds_need_a_positive_product_of_v():
    """Lemma B.9 assumes prod_i v_i > 0: both bounds refuse a zero or negative product."""
    u = [[1, 1, 1]] * 2
    for bound in (P.lemma_b9_lower_bound, P.lemma_b9_upper_bound):
        for v in ([0.0, 1.0], [-1.0, 2.0]):
            with pytest.raises(ValueError, match="prod_i v_i > 0"):
                bound(v, u)
        assert bound([-1.0, -2.0], u) == bound([1.0, 2.0], u)  # a positive product of negative v_i is allowed


# ------------------------------------------------------------------ issue 32: hostile input (regressions)
@pytest.mark.parametrize("v0", [0, -1, sympy.Integer(0), 0.0, F(-1, 2)])
def test_blowup_needs_a_positive_start(v0):
    """blowup_time(3, v0=0) used to answer sympy's zoo and v0 = -1 the negative time -1: the equal-init flow from
    v0 <= 0 never blows up (v0 = 0 stays at 0), so v0 is refused like flow_solution refuses it."""
    from theory._checks import InputError

    for call in (
        lambda: P.blowup_time(3, v0),
        lambda: P.flow_solution(sympy.Symbol("t"), 3, v0),
        lambda: P.flow_time(sympy.Integer(2), 3, v0),
    ):
        with pytest.raises(InputError) as info:
            call()
        assert info.value.param == "v0"
    assert P.blowup_time(2) == sympy.oo  # k = 2: exponential growth, no finite blow-up (documented, not an error)


def test_flow_time_refuses_v_below_v0_on_the_sympy_path():
    """flow_time(0.5, 3) used to answer the negative time -1.0 (the Fraction path refused it already)."""
    with pytest.raises(ValueError, match="v >= v0"):
        P.flow_time(0.5, 3, 1)


def test_non_finite_floats_never_reach_a_bound():
    """NaN and infinities used to give nan, 0.0 or 6.0 silently, or a complex number (negative gamma)."""
    from theory._checks import InputError

    u = [[1] * 10] * 3
    for call, param in [
        (lambda: P.flow_rhs([float("nan"), 1, 2]), "v"),
        (lambda: P.velocity_at_plateau_end_approx(3, 101, float("nan")), "gamma"),
        (lambda: P.velocity_at_plateau_end_approx(3, 101, -0.01), "gamma"),
        (lambda: P.lemma_b8_bounds([1, 1, 1], float("nan"), 0), "b"),
        (lambda: P.lemma_b9_lower_bound([2.0] * 3, u, c=float("nan")), "c"),
        (lambda: P.lemma_b9_upper_bound([2.0] * 3, [[float("inf")]] * 3), "u"),
        (lambda: P.lemma_b9_lower_bound([2.0] * 3, [[1e150]] * 3), "u"),
        (lambda: P.block_probabilities(2, -1), "dist"),
        (lambda: P.lemma_b9_lower_bound_exact([2, 2], [[1, 1]]), "u"),
    ]:
        with pytest.raises(InputError) as info:
            call()
        assert info.value.param == param


def test_sizes_are_refused_before_the_work():
    """These used to hang (or run out of memory) before any check."""
    from theory._checks import LimitError

    for call, param in [
        (lambda: P.error([2], n_prime=10**7), "n_prime"),
        (lambda: P.population_gradient_symbolic(10**9, 2), "k"),
        (lambda: P.population_gradient_symbolic(1, 10**9), "n_prime"),
        (lambda: P.sum_distribution([2**j for j in range(40)]), "u"),
        (lambda: P.first_time_error_at_most("1e999999999", 3, 5), "eps"),
        (lambda: P.velocity_at_plateau_end_approx(3, 10**400), "n_prime"),
    ]:
        with pytest.raises(LimitError) as info:
            call()
        assert info.value.param == param


def test_plateau_ratio_scaled_for_large_k_is_finite():
    """n'^(1-k/2) used to underflow to 0.0 (ZeroDivisionError)."""
    assert P.plateau_ratio_scaled(2001, 3) == 0.0
    assert math.isfinite(P.plateau_ratio_scaled(601, 5))


def test_lemma_b8_product_sign_does_not_underflow():
    """prod v_i(0) > 0 is read from the signs: 0.1^1000 underflows to 0.0 but is positive."""
    with pytest.raises(ValueError, match="float range"):
        P.lemma_b8_bounds([0.1] * 1000, 1, 0)  # the bound itself overflows: refused, not 'needs prod > 0'
    assert P.lemma_b9_lower_bound([1e-5] * 400, [[1] * 3] * 400) == 0.5


# ---------------------------------------------------------------------------------------------- Theorem 5.8 (SGD)


@pytest.mark.parametrize("k,m,eps,delta", [(2, 2, "0.1", "0.2"), (2, 5, "0.25", "0.01"), (3, 2, "0.45", "0.5")])
def test_thm58_steps_is_the_smallest_integer_meeting_the_condition(k, m, eps, delta):
    T = P.thm58_steps(k, m, eps, delta)
    c = 6 * math.log(2 * k / float(Fraction(eps))) * (3 * m - 2) ** (2 * k - 1)

    def slack(t: int) -> float:
        return t - c * math.log(2 * k * m * t / float(Fraction(delta)))

    assert slack(T) >= 0 > slack(T - 1)


@given(k=st.integers(2, 3), m=st.integers(2, 6), e=st.sampled_from(["0.05", "0.1", "0.3"]))
@settings(max_examples=20, deadline=None)
def test_thm58_steps_grow_with_block_size_and_shrink_with_eps(k, m, e):
    T = P.thm58_steps(k, m, e, "0.1")
    assert P.thm58_steps(k, m + 1, e, "0.1") > T
    assert P.thm58_steps(k, m, "0.45", "0.1") <= T
    assert P.thm58_steps(k + 1, m, e, "0.1") > T


@pytest.mark.parametrize("k,m,eps", [(2, 2, "0.1"), (2, 4, "0.25"), (3, 3, "0.01")])
def test_thm58_stated_count_meets_the_proofs_requirement(k, m, eps):
    """The statement's T gives the proof's final relevant weight (alpha + 1)/2, alpha = 3 sqrt((n'-1) log(2k/eps)) - 1
    (the proof's T >= 2 log(2nT/delta) alpha^2 (3n'-2)^(2k-2))."""
    T = P.thm58_steps(k, m, eps, "0.2")
    alpha = 3 * math.sqrt((m - 1) * math.log(2 * k / float(Fraction(eps)))) - 1
    assert P.thm58_relevant_lower_bound(k, m, T, "0.2", T) >= (alpha + 1) / 2
    assert P.thm58_relevant_lower_bound(k, m, T, "0.2", 0) == 0.5


def test_thm58_rate_scale_bounds_each_step():
    T, n, d = 1000, 6, 0.2
    assert P.thm58_rate_scale(2, 3, T, "0.2") == pytest.approx(1 / (2 * math.sqrt(2 * T * math.log(2 * n * T / d))))


@pytest.mark.parametrize(
    "args,match",
    [
        ((1, 3, "0.1", "0.2"), "k >= 2"),
        ((2, 1, "0.1", "0.2"), "n' >= 2"),
        ((2, 3, "0.5", "0.2"), "eps in"),
        ((2, 3, "0.1", "1"), "delta"),
    ],
)
def test_thm58_steps_refuses_inputs_outside_the_theorem(args, match):
    with pytest.raises(ValueError, match=match):
        P.thm58_steps(*args)


def test_thm58_relevant_lower_bound_refuses_t_beyond_the_horizon():
    with pytest.raises(ValueError, match=r"t \(updates done\)"):
        P.thm58_relevant_lower_bound(2, 3, 100, "0.2", 101)


# ------------------------------------------------------------------ Thm 5.7 (full statement): any initialisation
def _flow_weights(v0, q):
    """v_i at the common shift q (v_i^2 = v_i(0)^2 + q, signs kept), as exact Fractions of the floats."""
    return [Fraction(math.copysign(math.sqrt(float(x) ** 2 + q), float(x))) for x in v0]


def _thresholds(v0, u):
    """All shifts q > 0 at which some block's |v_i| meets a sum |s| of its irrelevant weights."""
    out = set()
    for vi, ui in zip(v0, u):
        for signs in itertools.product((1, -1), repeat=len(ui)):
            s = sum(Fraction(a) * b for a, b in zip(ui, signs))
            q = s * s - Fraction(vi) ** 2
            if q > 0:
                out.add(q)
    return sorted(out)


@pytest.mark.parametrize("eps", [F(0), F(1, 4), F(49, 100)])
@pytest.mark.parametrize("seed", range(4))
def test_general_crossing_is_the_first_shift_with_error_at_most_eps(seed, eps):
    """q* of first_time_error_at_most_general against the exact brute-force error along v_i^2 = v_i(0)^2 + q: at
    or below eps just after q*, above eps in every interval between the thresholds before it."""
    rng = __import__("random").Random(seed)
    k, m = 3, 2
    v0 = [F(rng.randint(-12, 12) or 1, 8) for _ in range(k)]
    if math.prod(v0) < 0:
        v0[0] = -v0[0]
    u = [[F(rng.randint(-16, 16) or 3, 8) for _ in range(m)] for _ in range(k)]
    q, t = P.first_time_error_at_most_general(eps, v0, u)
    assert brute_error(_flow_weights(v0, float(q) + 1e-9 * (1 + float(q))), u) <= eps
    cuts = [F(0)] + [x for x in _thresholds(v0, u) if x < q] + [q]
    for a, b in itertools.pairwise(cuts):
        if b > a:
            assert brute_error(_flow_weights(v0, float((a + b) / 2)), u) > eps
    assert t == P.flow_time_general(q, v0)


@pytest.mark.parametrize("k,n_prime", [(3, 5), (3, 11), (4, 7), (5, 9)])
def test_general_crossings_equal_the_all_ones_scan(k, n_prime):
    """All-ones init (odd n'): the general crossing shift is v*^2 - 1 of the exact scan, the times agree, and the
    plateau fraction is 1 - plateau_ratio."""
    u = [[1] * (n_prime - 1)] * k
    for eps in (F(0), F(49, 100), F(1, 5)):
        q, t = P.first_time_error_at_most_general(eps, [1] * k, u)
        v, t_exact = P.first_time_error_at_most(eps, k, n_prime)
        assert q == v * v - 1
        assert t == pytest.approx(float(t_exact), rel=1e-14, abs=1e-15)
    ratio = P.plateau_fraction_general([1] * k, u)
    assert ratio == pytest.approx(1 - float(P.plateau_ratio(k, n_prime)), rel=1e-13)


@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.floats(0.05, 3.0), min_size=3, max_size=5),
    # 0, or at least 1e-12: near the smallest normal float (2.2e-308) the oracle's own quadrature nodes are
    # subnormal, and scipy's quad warns of bad integrand behaviour (reproduced at q = 2.2250738585072014e-308)
    st.one_of(st.just(0.0), st.floats(1e-12, 50.0)),
    st.lists(st.booleans(), min_size=5, max_size=5),
)
def test_flow_time_general_is_the_inverse_of_the_shift(mags, q, flips):
    """t(q) against scipy's quadrature of the same integral, and t(oo) - t(q) = int_q^oo; equal init gives the closed
    form flow_time; the signs of v(0) (an even number of negatives) do not matter."""
    from scipy.integrate import quad

    v0 = [x if f else -x for x, f in zip(mags, flips)]
    if math.prod(v0) < 0:
        v0[0] = -v0[0]
    c = [x * x for x in mags]
    ref = quad(lambda g: 0.5 * math.prod((g + ci) ** -0.5 for ci in c), 0, q, limit=200, epsabs=1e-14, epsrel=1e-12)[0]
    assert P.flow_time_general(q, v0) == pytest.approx(ref, rel=1e-8, abs=1e-12)
    tail = quad(
        lambda g: 0.5 * math.prod((g + ci) ** -0.5 for ci in c), q, math.inf, limit=200, epsabs=1e-14, epsrel=1e-12
    )[0]
    assert P.flow_time_general("oo", v0) - P.flow_time_general(q, v0) == pytest.approx(tail, rel=1e-7, abs=1e-10)


@pytest.mark.parametrize("k,v0,v", [(3, F(1), F(2)), (4, F(1, 2), F(3)), (5, F(2), F(5, 2))])
def test_flow_time_general_equal_init_closed_form(k, v0, v):
    assert P.flow_time_general(v * v - v0 * v0, [v0] * k) == pytest.approx(float(P.flow_time(v, k, v0)), rel=1e-14)
    assert P.flow_time_general("oo", [v0] * k) == pytest.approx(float(P.blowup_time(k, v0)), rel=1e-14)


def test_thm57_rate():
    assert P.thm57_rate(4, 17) == pytest.approx(1 / 17 / 0.1)
    assert P.thm57_rate(3, 100, "0.25") == pytest.approx(100**-0.5 * 0.25 ** (2 / 3 - 1))
    assert P.thm57_rate(6, 10) / P.thm57_rate(6, 20) == pytest.approx(4.0)


@pytest.mark.parametrize(
    "call,fragment",
    [
        (lambda: P.flow_time_general(1, [1, -1, 1]), "prod_i v_i(0) > 0"),
        (lambda: P.flow_time_general(-1, [1, 1, 1]), "q must be >= 0"),
        (lambda: P.flow_time_general("oo", [1, 1]), "k >= 3"),
        (lambda: P.first_time_error_at_most_general("0.5", [1, 1, 1], [[1]] * 3), "eps must be in [0, 1/2)"),
        (lambda: P.first_time_error_at_most_general(0, [1, 1, 1], [[1]] * 2), "one irrelevant-weight vector"),
        (lambda: P.plateau_fraction_general([5, 5, 5], [[1, 1]] * 3), "T(0) = 0"),
        (lambda: P.plateau_fraction_general([1, 1, 1], [[1, 1]] * 3, eps=0), "eps must be in (0, 1/2)"),
        (lambda: P.thm57_rate(2, 5), "k >= 3"),
        (lambda: P.thm57_rate(3, 5, "0.5"), "gamma must be in (0, 1/2)"),
    ],
)
def test_general_init_input_checks(call, fragment):
    with pytest.raises(ValueError, match=__import__("re").escape(fragment)):
        call()
