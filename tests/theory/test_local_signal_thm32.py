"""Theorem 3.2 with the infimum over w (Karp thesis Sec. 3.5, App. B.2; docs/local_signal.md, "Theorem 3.2: the
infimum over w"): the closed forms of theory.local_signal against brute force, and the plane quadrature of
numerics.local_signal against the Mehler series and Monte Carlo."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from numerics import local_signal as nl
from theory import local_signal as tl


@settings(max_examples=25, deadline=None)
@given(st.floats(0.0, 6.0))
def test_gated_noise_moments_against_quadrature(tau):
    p, q = tl.gated_noise_moments(tau)
    p_quad = 2 * integrate.quad(stats.norm.pdf, tau, np.inf, epsabs=0, epsrel=1e-12)[0]
    q_quad = 2 * integrate.quad(lambda x: x * x * stats.norm.pdf(x), tau, np.inf, epsabs=0, epsrel=1e-12)[0]
    assert p == pytest.approx(p_quad, rel=1e-9, abs=1e-15)
    assert q == pytest.approx(q_quad, rel=1e-9, abs=1e-15)
    assert p <= q + 1e-15


def test_gated_noise_moments_shut_and_bad_input():
    assert tl.gated_noise_moments(math.inf) == (0.0, 0.0)
    for bad in (-0.1, float("nan"), "1"):
        with pytest.raises(ValueError, match="tau"):
            tl.gated_noise_moments(bad)


@pytest.mark.parametrize("k", [10, 100, 1000, 10**6])
def test_single_filter_infimum_without_alignment_is_the_linear_classifier(k):
    assert tl.cntk_single_filter_infimum(0.0, k) == pytest.approx(tl.linear_classifier_error(k), rel=1e-14)


def _brute_force_infimum(D: float, tau: float, k: int, d: int = 21) -> float:
    """Phi^c(sqrt(w_*^T M^-1 w_* / (k sigma^2))) with M = p (I - u u^T) + q u u^T built in R^d and solved."""
    sigma = tl.noise_sigma(k)
    w_star = np.zeros(d)
    w_star[0] = 1.0
    c = D * sigma
    u = np.zeros(d)
    u[0], u[1] = c, math.sqrt(1 - c * c)
    p, q = tl.gated_noise_moments(tau)
    M = p * (np.eye(d) - np.outer(u, u)) + q * np.outer(u, u)
    return float(stats.norm.sf(math.sqrt(w_star @ np.linalg.solve(M, w_star) / (k * sigma * sigma))))


@settings(max_examples=25, deadline=None)
@given(st.floats(0.0, 3.5), st.floats(0.0, 1.0))
def test_single_filter_infimum_is_the_rayleigh_quotient_at_the_tightest_gate(D, frac):
    k = 1000
    at_d = tl.cntk_single_filter_infimum(D, k)
    assert at_d == pytest.approx(_brute_force_infimum(D, D, k), rel=1e-9, abs=1e-15)
    # any looser gate the signal still passes (tau <= D) errs at least as much
    assert _brute_force_infimum(D, frac * D, k) >= at_d - 1e-12


def test_single_filter_infimum_decreases_in_the_alignment_and_bad_input():
    k = 1000
    # decreasing wherever c^2 = D^2 sigma^2 <= 1/3 (docs/local_signal.md); beyond, near c = 1, the values are
    # below 1e-40 and no longer monotone
    values = [tl.cntk_single_filter_infimum(D, k) for D in np.linspace(0, 1 / (math.sqrt(3) * tl.noise_sigma(k)), 200)]
    assert all(b < a for a, b in itertools.pairwise(values))
    assert tl.cntk_single_filter_infimum(100.0, 10**300) == 0.0
    with pytest.raises(ValueError, match="D"):
        tl.cntk_single_filter_infimum(5.0, 1000)  # above 1/sigma = 4.58
    with pytest.raises(ValueError, match="k"):
        tl.cntk_single_filter_infimum(1.0, 1)


@pytest.mark.parametrize("k", [1000, 10**5, 10**12])
def test_critical_alignment_solves_the_level(k):
    D = tl.cntk_critical_alignment(k)
    assert tl.cntk_single_filter_infimum(D, k) == pytest.approx(0.1, abs=1e-12)
    assert tl.cntk_critical_alignment(k, 0.49) == 0.0 or tl.cntk_single_filter_infimum(0.0, k) > 0.49
    with pytest.raises(ValueError, match="level"):
        tl.cntk_critical_alignment(k, 0.5)


@settings(max_examples=20, deadline=None)
@given(st.floats(0.0, 4.5), st.sampled_from([(1000, 21), (1000, 5), (10**4, 118), (10**6, 5239)]))
def test_init_alignment_tail_is_the_beta_law(x, kd):
    k, d = kd
    sigma = tl.noise_sigma(k)
    expected = stats.beta.sf((x * sigma) ** 2, 0.5, (d - 1) / 2) if x * sigma < 1 else 0.0
    assert tl.init_alignment_tail(x, k, d) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_init_alignment_tail_against_sampled_directions():
    k, d, x = 1000, 21, 1.5
    sigma = tl.noise_sigma(k)
    w0 = np.random.default_rng(0).standard_normal((200_000, d))
    freq = np.mean(np.abs(w0[:, 0]) / np.linalg.norm(w0, axis=1) / sigma >= x)
    p = tl.init_alignment_tail(x, k, d)
    assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / 200_000)


def test_aligned_filter_probability_and_the_needed_k():
    tail = tl.init_alignment_tail(tl.cntk_critical_alignment(1000), 1000, 21)
    assert tl.thm32_aligned_filter_probability(1000, 1) == pytest.approx(tail, rel=1e-12)
    assert tl.thm32_aligned_filter_probability(1000, 3) == pytest.approx(1 - (1 - tail) ** 3, rel=1e-12)
    log10_k = tl.thm32_needed_log10_k(2)
    assert tl.thm32_aligned_filter_probability(round(10**log10_k) + 10**6, 2) <= 1e-3
    assert tl.thm32_aligned_filter_probability(round(10 ** (log10_k - 0.01)), 2) > 1e-3
    # the probability decays like m / (z^2 log^2 k), z = Phi^-1(0.9)
    k = 10**30
    z = stats.norm.isf(0.1)
    ratio = tl.thm32_aligned_filter_probability(k, 1) * z * z * math.log(k) ** 2
    assert 0.8 < ratio < 1.2
    with pytest.raises(ValueError, match="m"):
        tl.thm32_needed_log10_k(7)
    with pytest.raises(ValueError, match="m"):
        tl.thm32_aligned_filter_probability(1000, 0)


# --- numerics: the plane quadrature and the Rayleigh quotient


@settings(max_examples=40, deadline=None)
@given(st.floats(-0.95, 0.95), st.floats(-7.0, 0.7), st.floats(-7.0, 0.7), st.booleans())
def test_plane_probability_is_the_mehler_series(rho, log_ti, log_tj, open_gate):
    """Thresholds from 1e-7 to 5 (tiny ones turn the integrand over a width of about tau: the graded cuts)."""
    ti, tj = 10.0**log_ti, (0.0 if open_gate else 10.0**log_tj)
    p, _ = nl._plane_moments(rho, ti, tj, 32)
    assert p == pytest.approx(tl.bivariate_abs_tail(ti, tj, rho), abs=1e-12)


def test_gated_second_moment_blocks_against_monte_carlo():
    rng = np.random.default_rng(1)
    u0 = rng.standard_normal((3, 4))
    u0 /= np.linalg.norm(u0, axis=1, keepdims=True)
    taus = np.array([0.5, 1.0, 0.0])
    M = nl._gated_blocks(u0, taus, 64)
    z = rng.standard_normal((400_000, 4))
    gates = (np.abs(z @ u0.T) >= taus).astype(float)  # (n, 3)
    phi = (gates[:, :, None] * z[:, None, :]).reshape(len(z), -1)
    mc = phi.T @ phi / len(z)
    assert np.max(np.abs(M - mc)) < 0.01  # 4 SE of an entry of size <= 3 at 400,000 samples is about 0.01


def test_gaussian_infimum_without_gates_is_the_linear_classifier_for_any_m():
    d, k = 21, 1000
    w_star = np.full(d, 1 / np.sqrt(d))
    w0 = np.random.default_rng(2).standard_normal((3, d))
    res = nl.cntk_gaussian_infimum(w0, w_star, [0.0, 0.0, 0.0], k)  # all open: every feature is sum_i X_i
    assert res.error == pytest.approx(tl.linear_classifier_error(k), rel=1e-9)
    shut = nl.cntk_gaussian_infimum(w0, w_star, [math.inf] * 3, k)
    assert shut.error == 0.5 and not shut.signal_passes.any()


def test_gaussian_infimum_weights_attain_the_snr():
    """The returned w gives signal 1 and noise variance 1/snr^2 (k sigma^2 w^T M w), by Monte Carlo of g(eps)."""
    d, k = 21, 1000
    sigma = tl.noise_sigma(k)
    w_star = np.full(d, 1 / np.sqrt(d))
    w0 = np.random.default_rng(3).standard_normal((2, d))
    w0 /= np.linalg.norm(w0, axis=1, keepdims=True)
    D = np.abs(w0 @ w_star) / sigma
    res = nl.cntk_gaussian_infimum(w0, w_star, [D[0] * (1 - 1e-9), 0.7], k)
    signal = sum(res.weights[j] @ w_star for j in range(2) if res.signal_passes[j])
    assert signal == pytest.approx(1.0, rel=1e-9)
    eps = sigma * np.random.default_rng(4).standard_normal((400_000, d))
    gates = np.abs(eps @ w0.T) >= res.taus * sigma
    g = np.sum(gates * (eps @ res.weights.T), axis=1)
    var = k * np.mean(g * g)
    assert var == pytest.approx(1 / res.snr**2, rel=0.02)


def test_search_is_no_worse_than_its_starts_and_exhaustive_is_no_worse_than_descent():
    d, k = 21, 1000
    w_star = np.full(d, 1 / np.sqrt(d))
    w0 = np.random.default_rng(5).standard_normal((2, d))
    grid = (0.5, 1.5)
    descent = nl.cntk_infimum_search(w0, w_star, k, grid, n_theta=32)
    full = nl.cntk_infimum_search(w0, w_star, k, grid, n_theta=32, exhaustive=True)
    start = nl.cntk_gaussian_infimum(w0, w_star, descent.best.alignment * (1 - 1e-9), k, n_theta=32)
    assert descent.best.error <= start.error + 1e-12
    assert full.best.error <= descent.best.error + 1e-12
    assert full.evaluations == len(full.candidates[0]) * len(full.candidates[1])


def test_gaussian_infimum_of_a_gate_no_noise_row_passes_is_0():
    w_star = np.array([1.0, 0.0, 0.0])
    res = nl.cntk_gaussian_infimum(w_star[None], w_star, [99.0], 1000, sigma=0.01)  # D = 100: Phi^c(99) underflows
    assert res.error == 0.0 and math.isinf(res.snr) and res.weights[0] @ w_star == pytest.approx(1.0)
