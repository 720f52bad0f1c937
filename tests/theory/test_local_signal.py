"""theory/local_signal.py (Karp Ch. 3 + App. B): the soft threshold, the Gaussian facts against scipy, the error curve
against an independent scipy Fourier inversion and against brute force, Lemma B.5, the crossovers, the proof's T_2
and the validation of every input."""

from __future__ import annotations

import math
import re
import time

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from numerics import local_signal as nl
from theory import local_signal as tl
from theory._checks import InputError, LimitError

finite = st.floats(min_value=-5, max_value=5, allow_nan=False)


# --- validation


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: tl.noise_sigma(1), "k"),
        (lambda: tl.noise_sigma(0), "k"),
        (lambda: tl.noise_sigma(2.0), "k"),
        (lambda: tl.check_d(0), "d"),
        (lambda: tl.soft_threshold_moments(0.1, 0.0), "sigma"),
        (lambda: tl.soft_threshold_moments(0.1, -1.0), "sigma"),
        (lambda: tl.error_curve(100, 1.0), "tau"),
        (lambda: tl.error_curve(100, -0.1), "tau"),
        (lambda: tl.error_curve(100, float("nan")), "tau"),
        (lambda: tl.error_curve(100, 0.5, sigma=0.0), "sigma"),
        (lambda: tl.clt_error(1, 0.5), "k"),
        (lambda: tl.check_batch(0), "batch"),
        (lambda: tl.derive_signal(1), "k"),
        (lambda: tl.mills_bounds(-1), "x >= 0"),
        (lambda: tl.regression_coefficients(0, 0), "(c, v)"),
        (lambda: tl.t2_corrected(0, 1.0, 2.0, 1e-4, 1000), "C (a constant"),
        (lambda: tl.t2_corrected(0.5, 1.0, 2.0, 0, 1000), "eta_b"),
        (lambda: tl.t2_as_printed(0.5, 1.0, 2.0, 0, 1000), "eta_b"),
        (lambda: tl.t2_as_printed(-0.5, 1.0, 2.0, 1e-4, 1000), "C (a constant"),
        (lambda: tl.t2_corrected(0.5, 1.0, float("nan"), 1e-4, 1000), "C3"),
        (lambda: tl.cnn_gradient(((1.0, 2.0, 3.0), (1.0, 2.0)), (1.0, 0.0, 0.0), 0.1), "row 1 of X"),
        (lambda: tl.cnn_gradient(((1.0, 2.0),), (1.0, 0.0, 0.0), 0.1), "d = 3"),
        (lambda: tl.cnn_gradient(((1.0,),), (), 0.1), "w (the filter)"),
        (lambda: tl.cntk_feature_as_printed(((1.0, 2.0, 3.0, 4.0),), (1.0, 0.0, 0.0), 0.1), "row 0 of X"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, name):
    with pytest.raises(ValueError, match=re.escape(name)):
        call()


# --- the activation


@given(finite, finite)
def test_soft_threshold_is_odd_and_matches_its_regimes(x, b):
    assert tl.soft_threshold(-x, b) == pytest.approx(-tl.soft_threshold(x, b), abs=1e-12)
    if b < 0:
        assert tl.soft_threshold(x, b) == pytest.approx(tl.shrink(x, -b), abs=1e-12)
    elif abs(x) <= b:
        assert tl.soft_threshold(x, b) == pytest.approx(2 * x, abs=1e-12)
    else:
        assert tl.soft_threshold(x, b) == pytest.approx(x + b * math.copysign(1, x), abs=1e-12)


@given(finite, finite)
def test_soft_threshold_derivatives_match_finite_differences(x, b):
    h = 1e-7
    if min(abs(x + b), abs(-x + b)) < 1e-5:  # a kink
        return
    dx = (tl.soft_threshold(x + h, b) - tl.soft_threshold(x - h, b)) / (2 * h)
    db = (tl.soft_threshold(x, b + h) - tl.soft_threshold(x, b - h)) / (2 * h)
    assert dx == pytest.approx(tl.soft_threshold_dx(x, b), abs=1e-6)
    assert db == pytest.approx(tl.soft_threshold_db(x, b), abs=1e-6)


# --- Gaussian facts against scipy


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 8), st.floats(0.05, 10))
def test_soft_threshold_moments_against_quadrature(a, sigma):
    got = tl.soft_threshold_moments(a * sigma, sigma)
    want = nl.soft_threshold_moments_quad(a * sigma, sigma)
    np.testing.assert_allclose(got, want, rtol=1e-8)


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 5), st.floats(0.1, 5))
def test_truncated_moments_against_scipy_truncnorm(alpha, s):
    np.testing.assert_allclose(tl.truncated_moments(alpha, s), nl.truncated_moments_scipy(alpha, s), rtol=1e-9)


@given(st.fractions(-10, 10), st.fractions(-10, 10))
def test_regression_coefficients_are_exact_and_sum_to_one(c, v):
    if c == 0 and v == 0:
        return
    a, b = tl.regression_coefficients(str(c), str(v))
    assert sympy.simplify(a + b - 1) == 0
    assert a == sympy.Rational(c.numerator, c.denominator) ** 2 / (
        sympy.Rational(c.numerator, c.denominator) ** 2 + sympy.Rational(v.numerator, v.denominator) ** 2
    )


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 40))
def test_mills_bounds_hold_on_the_whole_stated_domain(x):
    lo, hi = (float(v) for v in tl.mills_bounds(repr(x)))
    ratio = float(np.sqrt(np.pi / 2) * special.erfcx(x / np.sqrt(2)))
    assert lo <= ratio * (1 + 1e-14) and ratio <= hi * (1 + 1e-14)
    assert tl.mills_ratio(x) == pytest.approx(ratio, rel=1e-12)


def test_mills_bounds_printed_examples():
    # x = 0: 1 <= sqrt(pi/2) <= sqrt(2) exactly
    lo, hi = tl.mills_bounds(0)
    assert lo == 1 and hi == sympy.sqrt(2)
    # x = 1e-300 taken exactly: sympy's sqrt of 4 + 10^-600 raised ValueError; such x is evaluated to 60 digits
    lo, hi = tl.mills_bounds(repr(1e-300))
    assert float(lo) == 1.0 and float(hi) == pytest.approx(np.sqrt(2), rel=1e-15) and bool(lo < hi)
    assert abs(lo - (1 - sympy.Rational(1, 2 * 10**300))) < sympy.Rational(1, 10**55)


@given(st.integers(2, 10**6), st.booleans())
def test_max_exceedance_is_exact_and_below_the_union_bound(n, absolute):
    with mpmath.workdps(40):
        q = (2 if absolute else 1) * mpmath.erfc(2 * mpmath.sqrt(mpmath.log(n)) / mpmath.sqrt(2)) / 2
        exact = float(1 - (1 - q) ** n)
    assert tl.max_exceedance(n, absolute) == pytest.approx(exact, rel=1e-12)
    assert tl.max_exceedance(n, absolute) <= float(tl.union_bound(n, absolute))


@given(st.integers(2, 10**12))
def test_linear_classifier_error(k):
    want = stats.norm.cdf(-1 / np.log(k))
    assert tl.linear_classifier_error(k) == pytest.approx(want, rel=1e-12)
    if k < 10**4:
        assert float(tl.linear_classifier_error_exact(k)) == pytest.approx(want, rel=1e-12)


def test_linear_classifier_printed_bound_fails_below_the_crossover():
    k_cross = 10 ** tl.crossovers()["linear_error_049"]
    assert tl.linear_classifier_error(int(k_cross * 0.99)) < 0.49 < tl.linear_classifier_error(int(k_cross * 1.01))


# --- the error curve


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 500), st.floats(0, 6))
def test_faddeeva_against_scipy_wofz(x, y):
    z = complex(x, y)
    assert abs(tl.faddeeva(z) - special.wofz(z)) <= 1e-13 * abs(special.wofz(z))


def test_faddeeva_rejects_the_lower_half_plane():
    with pytest.raises(ValueError, match="Im z"):
        tl.faddeeva(1 - 1j)


@pytest.mark.parametrize("t, tau, sigma", [(0.0, 0.3, 0.2), (2.0, 0.3, 0.2), (7.5, 0.9, 0.22), (1.0, 0.0, 1.0)])
def test_soft_threshold_cf_against_quadrature(t, tau, sigma):
    pdf = stats.norm(scale=sigma).pdf
    cont, _ = integrate.quad(lambda a: np.cos(t * (a - tau)) * pdf(a), tau, np.inf, epsabs=1e-13, limit=400)
    want = (1 - 2 * stats.norm.sf(tau / sigma)) + 2 * cont
    assert tl.soft_threshold_cf(t, tau, sigma) == pytest.approx(want, abs=1e-10)


@pytest.mark.parametrize("k", [50, 1000])
@pytest.mark.parametrize("tau", [0.0, 0.2, 0.5, 0.75, 0.9, 0.99])
def test_error_curve_against_the_scipy_inversion(k, tau):
    sigma = tl.noise_sigma(k)
    assert tl.error_curve(k, tau) == pytest.approx(nl.error_curve_fourier(k, tau, sigma), abs=1e-9)


@given(st.integers(2, 10**5))
@settings(max_examples=15, deadline=None)
def test_error_curve_at_tau_0_is_the_linear_classifier(k):
    assert tl.error_curve(k, 0.0) == pytest.approx(tl.linear_classifier_error(k), abs=1e-9)
    assert tl.clt_error(k, 0.0) == pytest.approx(tl.linear_classifier_error(k), rel=1e-12)


def test_error_curve_brute_force_small_k():
    """k = 2 by two-dimensional quadrature of the defining probability."""
    k, tau, sigma = 2, 0.4, 0.6
    pdf = stats.norm(scale=sigma).pdf

    def inner(a1):
        s1 = np.sign(a1) * max(abs(a1) - tau, 0)
        need = -(1 - tau) - s1  # S(a2) <= need
        if need >= 0:
            return 1 - stats.norm.sf((need + tau) / sigma)
        return stats.norm.cdf((need - tau) / sigma)

    want, _ = integrate.quad(
        lambda a: inner(a) * pdf(a), -12 * sigma, 12 * sigma, points=[-1.0, -tau, tau], limit=400, epsabs=1e-13
    )
    assert tl.error_curve(k, tau, sigma) == pytest.approx(want, abs=1e-9)


def test_floor_is_the_limit_tau_to_1_and_below_its_first_order_form():
    k = 1000
    floor = tl.error_floor(k)
    assert tl.error_curve(k, 0.99999) == pytest.approx(floor, abs=1e-9)
    assert floor < tl.floor_approximation(k) < floor * 1.01


def test_optimal_threshold_beats_a_grid():
    k = 1000
    opt = tl.optimal_threshold(k)
    grid = [tl.error_curve(k, t) for t in np.linspace(0.8, 0.999, 12)]
    assert opt.error <= min(grid) + 1e-10
    assert 0.9 < opt.tau < 0.99 and opt.error < opt.floor


def test_clt_misses_the_tail():
    assert tl.clt_error(1000, 0.8) < 1e-6 < tl.error_curve(1000, 0.8)


# --- Lemma B.5, crossovers, proofs


@given(st.integers(2, 10**9))
def test_lemma_b5_numbers(k):
    b5 = tl.lemma_b5(k)
    assert b5.union_bound == pytest.approx(2 / k, rel=1e-10)
    assert b5.exact_union_bound <= b5.union_bound
    assert b5.tau_sufficient == pytest.approx(2 * np.log(k) ** 1.5 / np.sqrt(k), rel=1e-12)


def test_crossovers_solve_their_equations():
    x = tl.crossovers()
    L = lambda u: u * math.log(10)  # noqa: E731
    assert 2 * L(x["tau_suff_below_1"]) ** 1.5 / math.sqrt(10 ** x["tau_suff_below_1"]) == pytest.approx(1, rel=1e-9)
    assert 1610 < 10 ** x["tau_suff_below_1"] < 1611  # so k = 1611 is the first integer
    assert 4 * math.log(L(x["lemma33_sketch"])) == pytest.approx(L(x["lemma33_sketch"]) / 8, rel=1e-9)
    assert L(x["lemmaB9"]) / 4 == pytest.approx(math.log(4) + 1.5 * math.log(L(x["lemmaB9"])), rel=1e-9)
    assert stats.norm.cdf(-1 / L(x["linear_error_049"])) == pytest.approx(0.49, rel=1e-9)


def test_t2_printed_and_corrected():
    args = (0.5, 1.0, 2.0, 1e-4, 1000)
    printed, corrected = (float(f(*args)) for f in (tl.t2_as_printed, tl.t2_corrected))
    L = math.log(1000)
    distance = 4 * 2 * L**1.5 / math.sqrt(1000) + (1 - 1e-4) / L**4
    assert corrected == pytest.approx(distance / (1e-4 * 0.5), rel=1e-12)
    assert printed < corrected / 1000


def test_cnn_gradient_and_the_printed_cntk_feature():
    rng = np.random.default_rng(0)
    X = tuple(tuple(r) for r in rng.standard_normal((7, 3)).round(3))
    w = (0.7, -0.2, 0.4)
    for b in (-0.3, 0.35):
        fd = nl.cnn_gradient_fd(np.array(X), np.array(w), b)
        np.testing.assert_allclose(tl.cnn_gradient(X, w, b), fd, atol=1e-6)
    np.testing.assert_allclose(tl.cntk_feature_as_printed(X, w, -0.3), tl.cnn_gradient(X, w, -0.3), atol=1e-12)
    assert not np.allclose(tl.cntk_feature_as_printed(X, w, 0.35), tl.cnn_gradient(X, w, 0.35))


def test_derive_signal():
    out = tl.derive_signal(1000)
    assert out["sigma"] == pytest.approx(math.log(1000) / math.sqrt(1000))
    assert out["linear_classifier_error"] == pytest.approx(0.44244827669, abs=1e-10)
    assert out["err_tau_star"] <= tl.error_curve(1000, 0.9) and out["err_tau_star"] < out["floor"]
    assert out["floor"] <= out["floor_first_order"]
    assert set(out) >= {"sigma", "linear_classifier_error", "tau_star", "err_tau_star", "floor"}


def test_derive_signal_text_and_the_unresolved_regime():
    text = tl.format_signal(tl.derive_signal(1000))
    assert "tau* (0-1 optimal)     = 0.95" in text and "unusable at this k" in text
    big = tl.derive_signal(10_000)  # err(tau*) ~ 1e-23: below what the inversion resolves
    assert big["tau_star"] is None and big["err_tau_star"] is None and big["floor"] < 1e-20
    assert "not resolved" in tl.format_signal(big)


@pytest.mark.parametrize("p", [1e-25, 1e-30, 1e-100, 1e-300, 5e-324, 0.3, 1 - 1e-12])
def test_normal_quantile_in_the_far_tails_against_scipy(p):
    """1 - 2p cancelled at 30 digits: 1e-30 came out 1e-4 off and 1e-100 as -inf; scipy's ndtri is the oracle."""
    from scipy.special import ndtri

    assert tl.normal_quantile(p) == pytest.approx(float(ndtri(p)), rel=1e-13)


def test_normal_quantile_takes_numpy_scalars_and_fractions():
    """np.float32 and Fraction reached mpmath unconverted (a bare TypeError with no parameter named)."""
    from fractions import Fraction

    assert tl.normal_quantile(np.float32(0.975)) == tl.normal_quantile(float(np.float32(0.975)))
    assert tl.normal_quantile(Fraction(1, 4)) == tl.normal_quantile(0.25)


def test_normal_quantile_against_mpmath():
    for p in (1e-10, 0.3, 0.51):
        assert tl.normal_quantile(p) == pytest.approx(float(-mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(p))))
        assert tl.normal_cdf(tl.normal_quantile(p)) == pytest.approx(p, rel=1e-12)


# --- sizes checked before any work, bad values refused naming the parameter (issue 32)


def _refused(call, param):
    start = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert info.value.param == param and str(info.value).startswith(f"{param} = ")
    assert time.perf_counter() - start < 1.0, "the refusal must come before the work"
    return info.value


@pytest.mark.parametrize("tau", [0.0, 0.9])
def test_clt_error_with_an_underflowing_second_moment_is_zero_not_a_zero_division(tau):
    """clt_error(2, 0.0, 1e-200) raised ZeroDivisionError: E S^2 = sigma^2 underflows to 0.0."""
    assert tl.clt_error(2, tau, 1e-200) == 0.0
    assert tl.clt_error(2, 0.9, 1e-3) == 0.0
    assert tl.clt_error(2, 0.0, 0.05) == tl.normal_cdf(-1 / math.sqrt(2 * 0.05**2))  # E S^2 > 0: the float formula


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: tl.shrink(1.0, -0.5), "tau"),
        (lambda: tl.soft_threshold_cf(1.0, -0.5, 1.0), "tau"),
        (lambda: tl.soft_threshold_cf(1.0, 0.5, 0.0), "sigma"),
        (lambda: tl.soft_threshold_moments(float("nan"), 1.0), "tau"),
        (lambda: tl.error_curve(100, 1.0), "tau"),
        (lambda: tl.clt_error(100, -0.1), "tau"),
        (lambda: tl.error_curve(100, 0.5, tol=0.0), "tol"),
        (lambda: tl.optimal_threshold(2, grid=1), "grid"),
        (lambda: tl.optimal_threshold(2, grid=3, xtol=0.0), "xtol"),
        (lambda: tl.normal_cdf(float("nan")), "x"),
        (lambda: tl.normal_pdf(10**400), "x"),
        (lambda: tl.mills_ratio(-40.0), "x"),
        (lambda: tl.soft_threshold(float("inf"), 0.5), "x"),
        (lambda: tl.faddeeva(1e200j), "z"),
        (lambda: tl.faddeeva("abc"), "z"),
        (lambda: tl.exact_number("1e999999999"), "x"),
        (lambda: tl.mills_bounds(float("nan")), "x"),
        (lambda: tl.t2_corrected(1, "1e999999999", 1, 1, 100), "C2"),
        (lambda: tl.truncated_moments(1e200, 1e200), "alpha"),
        (lambda: tl.soft_threshold_moments(0.5, 1e200), "sigma"),
        (lambda: tl.max_exceedance(100, absolute="yes"), "absolute"),
        (lambda: tl.format_signal({"k": 3}), "summary"),
        (lambda: tl.cnn_gradient(((1.0, float("nan")),), (1.0, 0.0), 0.1), "X"),
    ],
)
def test_values_outside_the_domain_are_refused_naming_the_parameter(call, param):
    """The tau = 0 ZeroDivisionError of the audit (soft_threshold_cf at sigma = 0, optimal_threshold with grid = 1) and
    the other bare exceptions, NaN answers and hangs: each an InputError naming the parameter."""
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param


def test_optimal_threshold_refuses_a_zero_division_grid_and_a_hanging_xtol():
    """grid = 1 divided by zero, xtol = 0 never stopped."""
    with pytest.raises(InputError):
        tl.optimal_threshold(2, grid=1)
    _refused(lambda: tl.optimal_threshold(2, grid=10**9), "grid")
    start = time.perf_counter()
    with pytest.raises(LimitError) as info:
        tl.optimal_threshold(2, grid=3, xtol=1e-300)  # refused once the grid has located the bracket
    assert info.value.param == "xtol" and time.perf_counter() - start < 5


def test_error_curve_is_sized_before_the_integral():
    """error_curve(10**9, 0) and error_curve(2, 0, sigma = 1e-5) ran for minutes, tol = 0 forever."""
    _refused(lambda: tl.error_curve(10**9, 0.0), "k")
    _refused(lambda: tl.error_curve(1_562_188, 0.0), "k")
    _refused(lambda: tl.error_curve(2, 0.0, 1e-5), "sigma")
    _refused(lambda: tl.error_curve(2, 1 - 1e-12, 1.0), "tau")
    _refused(lambda: tl.error_curve(2, 0.5, 1.0, tol=1e-30), "tol")
    _refused(lambda: tl.error_curve(2, 0.0, 1e-200), "sigma")
    _refused(lambda: tl.noise_sigma(10**400), "k")


@pytest.mark.parametrize(
    "k,tau,sigma,tol",
    [(2, 0.999999, 1.0, 1e-10), (3, 0.9, 0.3, 1e-13), (100, 0.0, None, 1e-10), (10**4, 0.3, 1.0, 1e-10)],
)
def test_the_panel_estimate_is_the_number_of_panels_the_integral_takes(k, tau, sigma, tol, monkeypatch):
    """The cost formula of error_curve (tail regime, tiny tol, k-driven and sigma-driven regimes) against the count."""
    calls = []
    original = tl._cf
    monkeypatch.setattr(tl, "_cf", lambda *args: calls.append(1) or original(*args))
    s = tl.noise_sigma(k) if sigma is None else sigma
    tl.error_curve(k, tau, s, tol=tol)
    estimate, _ = tl._inversion_panels(k, tau, s, tol)
    assert abs(len(calls) / len(tl._GL_X) - estimate) <= 0.02 * estimate + 3


def test_k_at_the_limit_of_the_integral_is_accepted():
    estimate, param = tl._inversion_panels(1_562_187, 0.0, tl.noise_sigma(1_562_187), 1e-10)
    assert estimate <= tl.MAX_INVERSION_PANELS and param == "k"


def test_truncated_moments_keep_their_digits_for_a_large_alpha():
    """1 + alpha r - r^2 cancels 4 log10(alpha) digits: at alpha = 1e10 the variance was negative."""
    mean, var, second = tl.truncated_moments(1e10, 1.0)
    assert mean == pytest.approx(1e10) and var == pytest.approx(1e-20, rel=1e-9) and second == pytest.approx(1e20)
    assert tl.truncated_moments(1e150, 1e-100)[1] == 0.0  # s^2/alpha^2 = 1e-500 underflows
    assert tl.mills_ratio(1e300) == pytest.approx(1e-300) and tl.mills_ratio(1e20) == pytest.approx(1e-20)


# --- Lemma B.11: the event probability of one filter (the Mehler series)


def _abs_tail_quad(a: float, b: float, r: float) -> float:
    """P[|Z_1| >= a, |Z_2| >= b] by 1-D quadrature over Z_2 (Z_1 | Z_2 = z ~ N(r z, 1 - r^2)), 30 digits."""
    with mpmath.workdps(30):
        s = mpmath.sqrt(1 - mpmath.mpf(r) ** 2)

        def f(z):
            return mpmath.npdf(z) * (mpmath.ncdf((-a - r * z) / s) + 1 - mpmath.ncdf((a - r * z) / s))

        return float(2 * mpmath.quad(f, [b, b + 2, b + 6, mpmath.inf]))


@pytest.mark.parametrize(
    "a, b, r", [(1.0, 1.0, 0.6), (0.3, 2.5, -0.9), (0.0, 0.5, 0.7), (2.0, 0.1, 0.99), (3.3, 3.3, 0.5), (0.5, 0.0, 0.3)]
)
def test_bivariate_abs_tail_against_quadrature(a, b, r):
    assert tl.bivariate_abs_tail(a, b, r) == pytest.approx(_abs_tail_quad(a, b, r), rel=1e-13, abs=1e-16)


@settings(max_examples=40, deadline=None)
@given(
    st.floats(min_value=0, max_value=4),
    st.floats(min_value=0, max_value=4),
    st.floats(min_value=-0.95, max_value=0.95),
)
def test_bivariate_abs_tail_invariants(a, b, r):
    p = tl.bivariate_abs_tail(a, b, r)
    product = 4 * tl.normal_sf(a) * tl.normal_sf(b)
    assert p == pytest.approx(tl.bivariate_abs_tail(b, a, r), abs=1e-15)  # the pair is exchangeable
    assert p == pytest.approx(tl.bivariate_abs_tail(a, b, -r), abs=1e-15)  # |Z_2| does not see its sign
    assert p >= product - 1e-15  # Sidak's inequality: the proof's step P[A | E] >= P[A']
    assert p <= min(2 * tl.normal_sf(a), 2 * tl.normal_sf(b)) + 1e-15
    assert tl.bivariate_abs_tail(a, b, 0.0) == pytest.approx(product, abs=1e-15)


def test_bivariate_abs_tail_edges_and_limits():
    assert tl.bivariate_abs_tail(1.0, 2.0, 1.0) == pytest.approx(2 * tl.normal_sf(2.0), rel=1e-14)
    assert tl.bivariate_abs_tail(1.0, 2.0, -1.0) == tl.bivariate_abs_tail(1.0, 2.0, 1.0)
    assert tl.bivariate_abs_tail(float("inf"), 0.0, 0.5) == 0.0
    # near |rho| = 1 the series converges slowly: refused above MAX_MEHLER_TERMS, naming rho
    with pytest.raises(LimitError) as err:
        tl.bivariate_abs_tail(1.0, 1.0, 1 - 1e-7, tol=1e-30)
    assert err.value.param == "rho"
    for kwargs, name in (
        ({"alpha": -0.1, "beta": 0.0, "rho": 0.0}, "alpha"),
        ({"alpha": 0.0, "beta": 0.0, "rho": 1.5}, "rho"),
        ({"alpha": 0.0, "beta": 0.0, "rho": 0.5, "tol": 0.0}, "tol"),
    ):
        with pytest.raises(InputError) as err:
            tl.bivariate_abs_tail(**kwargs)
        assert err.value.param == name


def _event_mc_direct(w0, w, w_star, b, C, sigma, n=400_000, seed=5):
    """Event A by direct sampling, without the CNTK features (a second independent check)."""
    rng = np.random.default_rng(seed)
    eps = sigma * rng.standard_normal((n, len(w0)))
    g = (eps @ w) * (np.abs(eps @ w0) + b >= 0)
    g_star = float(w @ w_star) * (abs(float(w0 @ w_star)) + b >= 0)
    p = float(np.mean(np.abs(g) >= C * sigma * abs(g_star)))
    return p, math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("b", [0.0, -0.2, -0.5])
def test_lemma_b11_event_probability_against_sampling(b):
    rng = np.random.default_rng(3)
    d = 5
    w_star = np.zeros(d)
    w_star[0] = 1.0
    w0 = rng.standard_normal(d)
    w = rng.standard_normal(d) + w_star
    p_mc, se = _event_mc_direct(w0, w, w_star, b, 0.7, 0.4)
    exact = tl.lemma_b11_event_probability(tuple(w0), tuple(w), tuple(w_star), b, 0.7, 0.4)
    assert abs(p_mc - exact) <= 4 * se


def test_lemma_b11_event_probability_cases_and_scale():
    w0, w, ws = (0.3, 0.9, -0.2), (1.0, -0.5, 0.25), (1.0, 0.0, 0.0)
    p = tl.lemma_b11_event_probability(w0, w, ws, -0.2, 1.5, 0.3)
    # the event is invariant under scaling w, and under scaling w^(0) and b together
    assert tl.lemma_b11_event_probability(w0, tuple(3 * x for x in w), ws, -0.2, 1.5, 0.3) == pytest.approx(p)
    assert tl.lemma_b11_event_probability(tuple(2 * x for x in w0), w, ws, -0.4, 1.5, 0.3) == pytest.approx(p)
    assert tl.lemma_b11_event_probability(w0, w, ws, -0.31, 1.5, 0.3) == 1.0  # Case 1: |<w0, w_*>| + b < 0
    assert tl.lemma_b11_event_probability(w0, (0.0, 1.0, 0.0), ws, -0.2, 1.5, 0.3) == 1.0  # g(w_*) = 0
    # the proof's lower bound (with beta raised to |<w0_hat, w_*>|/sigma and the pair made independent)
    n0 = math.sqrt(sum(x * x for x in w0))
    nw = math.sqrt(sum(x * x for x in w))
    bound = 4 * tl.normal_sf(1.5 * 1.0 / nw) * tl.normal_sf(0.3 / n0 / 0.3)
    assert p >= bound
    for args, name in (
        ((w0, w, (1.0, 0.0)), "w0"),
        ((w0, w, (2.0, 0.0, 0.0)), "w_star"),
        (((0.0, 0.0, 0.0), w, ws), "w0"),
    ):
        with pytest.raises(InputError) as err:
            tl.lemma_b11_event_probability(*args, 0.0, 1.0, 0.3)
        assert err.value.param == name
