"""numerics/local_signal_dynamics.py against closed forms: at ``b = 0, v = 0`` the activation ``phi_0`` is the
identity, so ``S = c sum_i A_i`` is ``N(0, k c^2 sigma^2)`` and every population term is a one-dimensional Gaussian
integral (scipy); Lemma B.3's failure event has an exact chi-square / normal probability; and a state with
``f = 0`` almost surely pins the ties of ``P[Y f <= 0]``."""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special, stats

from numerics import local_signal_dynamics as nd


def test_population_terms_match_gaussian_integrals_when_phi_is_the_identity():
    k, sigma, c, n = 2, 1.0, 5.0, 20_000
    t = nd.population_terms_mc(k, sigma, c, 0.0, 0.0, n, seed=0)
    s = math.sqrt(k) * c * sigma  # S ~ N(0, s^2), f = S + Y c, and Y S has the law of S
    small = special.erf((c + 10) / (s * math.sqrt(2)))  # P[|S| < phi_0(c) + 10]
    tail = stats.norm.sf(c / s)  # P[S >= c] = P[Y f <= 0]
    signal = -integrate.quad(lambda w: special.expit(-(c + w)) * stats.norm.pdf(w, scale=s), -np.inf, np.inf)[0]
    loss = integrate.quad(lambda w: np.logaddexp(0.0, -(c + w)) * stats.norm.pdf(w, scale=s), -np.inf, np.inf)[0]
    for est, se, exact in (
        (t.small_sum, t.se_small_sum, small),
        (t.upper_tail, t.se_upper_tail, tail),
        (t.error, t.se_error, tail),
        (t.signal, t.se_signal, signal),
        (t.loss, t.se_loss, loss),
    ):
        assert abs(est - exact) < 5 * se + 1e-12, (est, se, exact)


def test_error_counts_the_tie_y_f_equal_zero():
    # b = -1, |c| < 1: phi_b(c) = 0, and phi_b(Z_i) = 0 unless |Z_i| > 1, i.e. a 20-sigma normal: f = 0 and
    # P[Y f <= 0] = 1, the loss is log 2, and phi_b'(c Y) = 0 makes the signal term vanish
    t = nd.population_terms_mc(3, 0.1, 0.5, 0.0, -1.0, 200, seed=1)
    assert t.error == 1.0 and t.small_sum == 1.0 and t.upper_tail == 1.0
    assert abs(t.loss - math.log(2)) < 1e-12 and t.signal == 0.0


def test_init_failure_matches_the_exact_probability():
    # c ~ N(0, 1/(k d)), v^2 (k d) ~ chi^2_{d-1}, independent: P[max(|c|, v) > 1] = 1 - P[|c| <= 1] P[v <= 1]
    for k, d in ((1, 2), (2, 3), (1, 5)):
        n = 40_000
        p, _ = nd.init_failure_mc(k, d, n, seed=2)
        exact = 1 - special.erf(math.sqrt(k * d / 2)) * stats.chi2.cdf(k * d, d - 1)
        assert abs(p - exact) < 5 * math.sqrt(exact * (1 - exact) / n), (k, d, p, exact)
