"""Theorem 3.1's budget and the bounds of Karp App. B.1.3 (Lemmas 3.1, 3.2, B.3, B.6-B.8) in theory.local_signal:
exact against brute force (scipy quadrature and distributions), invariants by hypothesis, input checks."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from theory import local_signal as tl


@given(st.integers(min_value=2, max_value=10**6))
def test_step_budget_is_the_ceiling_of_k_to_three_halves(k: int) -> None:
    t = tl.theorem31_step_budget(k)
    assert t * t >= k**3 > (t - 1) ** 2


def test_step_budget_input_checks() -> None:
    with pytest.raises(ValueError, match="k"):
        tl.theorem31_step_budget(1)
    with pytest.raises(ValueError):
        tl.theorem31_step_budget(2.5)  # type: ignore[arg-type]


def _noise_bound_scipy(k: int, sigma: float, c: float, v: float, b: float) -> float:
    s = sigma * math.hypot(c, v)
    alpha = abs(b) / s
    ratio = stats.norm.pdf(alpha) / stats.norm.sf(alpha)
    return k * (sigma**2 + 1.5 * sigma**2 * alpha * ratio) * stats.norm.sf(-b / s)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=2, max_value=5000),
    st.floats(min_value=0.05, max_value=2.0),
    st.floats(min_value=-2.0, max_value=2.0),
    st.floats(min_value=0.0, max_value=2.0),
    st.floats(min_value=-1.0, max_value=1.0),
)
def test_noise_bound_matches_scipy(k: int, sigma: float, c: float, v: float, b: float) -> None:
    if math.hypot(c, v) < 1e-3 or abs(b) / (sigma * math.hypot(c, v)) > 30:
        return
    assert tl.noise_term_bound(k, sigma, c, v, b) == pytest.approx(_noise_bound_scipy(k, sigma, c, v, b), rel=1e-9)


def test_noise_bound_bounds_the_exact_gamma_of_one_row() -> None:
    """k = 1 row and no other rows: gamma = E[(s(a_2) - s(a_1)) Z 1{Z >= -b}]/(c^2+v^2) with S_{-i} = 0, by
    quadrature, is below the bound (the proof's chain on one row)."""
    sigma, c, v, b = 0.5, 0.8, 0.3, -0.2
    r2 = c * c + v * v
    s = sigma * math.sqrt(r2)
    g1 = max(c + b, 0) - max(-c + b, 0)

    def integrand(z: float) -> float:
        si = max(z + b, 0) - max(-z + b, 0)
        return (special.expit(-g1 + si) - special.expit(-g1 - si)) * z * stats.norm.pdf(z, 0, s)

    gamma = integrate.quad(integrand, -b, 40 * s)[0] / r2
    bound = tl.noise_term_bound(2, sigma, c, v, b) / 2  # the bound is linear in k
    assert 0 <= gamma <= bound


def test_noise_bound_at_b_zero_and_input_checks() -> None:
    assert tl.noise_term_bound(10, 0.3, 0.5, 0.5, 0.0) == pytest.approx(10 * 0.09 / 2, rel=1e-12)
    with pytest.raises(ValueError, match="both be 0"):
        tl.noise_term_bound(10, 0.3, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="v"):
        tl.noise_term_bound(10, 0.3, 0.5, -0.1, 0.0)
    with pytest.raises(ValueError):
        tl.noise_term_bound(10, -0.3, 0.5, 0.1, 0.0)


@pytest.mark.parametrize("k,d", [(1, 2), (2, 3), (3, 3), (4, 10), (20, 5)])
def test_init_failure_probability_matches_scipy(k: int, d: int) -> None:
    x = k * d
    p_c = 2 * stats.norm.sf(math.sqrt(x))
    exact = p_c + (1 - p_c) * stats.chi2.sf(x, d - 1)  # 1 - (1 - p_c) P[chi^2 <= x] without the cancellation
    assert tl.init_failure_probability(k, d) == pytest.approx(exact, rel=1e-9)


@given(st.integers(min_value=2, max_value=400), st.integers(min_value=2, max_value=50))
def test_init_failure_probability_is_below_the_proofs_bound(k: int, d: int) -> None:
    assert tl.init_failure_probability(k, d) <= float(tl.init_failure_bound(k, d))


def test_init_failure_input_checks() -> None:
    with pytest.raises(ValueError, match="d"):
        tl.init_failure_probability(3, 1)
    with pytest.raises(ValueError):
        tl.init_failure_bound(0, 3)


def _u2_scipy(b: float, s: float, M: float) -> float:
    def phi(z: float) -> float:
        return max(z + b, 0) - max(-z + b, 0)

    hi = 50 * s + abs(b) + M
    pts = sorted({abs(b), max(M - b, 0), M / 2})
    num = (
        2
        * integrate.quad(
            lambda z: phi(z) ** 2 * (abs(phi(z)) <= M) * stats.norm.pdf(z, 0, s), 0, hi, points=pts, limit=200
        )[0]
    )
    den = 2 * integrate.quad(lambda z: (abs(phi(z)) <= M) * stats.norm.pdf(z, 0, s), 0, hi, points=pts, limit=200)[0]
    return num / den


@pytest.mark.parametrize("c,v,b", [(1.0, 0.0, -0.5), (0.6, 0.2, -0.1), (1.2, 0.3, 0.05), (0.3, 0.1, 0.4)])
def test_bernstein_bound_matches_scipy(c: float, v: float, b: float) -> None:
    k, sigma = 50, 0.4
    s = sigma * math.hypot(c, v)
    M = s * math.log(k) ** 2
    u2 = _u2_scipy(b, s, M)
    t = c + b
    expected = math.exp(-(t**2) / (2 * k * u2 + 2 * M * t / 3)) + 2 * k * math.exp(-((M - b) ** 2) / (2 * s**2))
    assert tl.bernstein_tail_bound(k, sigma, c, v, b) == pytest.approx(expected, rel=1e-6)


def test_bernstein_bound_input_checks() -> None:
    with pytest.raises(ValueError, match="c \\+ b"):
        tl.bernstein_tail_bound(100, 0.3, 0.2, 0.0, -0.5)
    with pytest.raises(ValueError, match="k"):
        tl.bernstein_tail_bound(2, 0.3, 1.0, 0.0, -0.5)


def test_lemma_levels_and_small_c() -> None:
    assert tl.lemma_b7_loss_level() == 1 and tl.lemma_b8_probability() == Fraction(4, 5)
    assert tl.lemma31_small_c(1000) == pytest.approx(1 / math.log(1000) ** 3)
    with pytest.raises(ValueError):
        tl.lemma31_small_c(2)
