"""numerics/local_signal.py: the data sampler and the CNN, the sparse (importance) sampler of err(tau) against dense
sampling and against theory, the scipy Fourier inversion, the gradient-structure Monte Carlo, the CNTK features and
the hinge SVM's duality gap, and the validation of inputs."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from numerics import local_signal as nl
from theory import local_signal as tl


def test_sample_inputs_has_one_signal_row_and_gaussian_noise():
    rng = np.random.default_rng(0)
    k, d, sigma = 30, 4, 0.5
    X, y = nl.sample_inputs(rng, 2000, k, d, sigma)
    w_star = np.full(d, 0.5)
    signal = np.all(np.isclose(X, y[:, None, None] * w_star), axis=2)
    assert X.shape == (2000, k + 1, d) and np.all(signal.sum(1) == 1)
    noise = X[~signal]
    assert abs(noise.std() - sigma) < 0.01 and abs(noise.mean()) < 0.01
    assert set(np.unique(y)) == {-1.0, 1.0}


def test_sample_inputs_signal_position_and_label_are_uniform():
    """The signal row sits at a uniform position among the k + 1 rows, independent of the uniform label: with
    n = 8000 draws and k + 1 = 4 positions each (position, label) cell holds 1000 +- 175 draws (6 standard deviations
    of a Binomial(8000, 1/8), so a seed fails with probability below 1e-7)."""
    k, d, n = 3, 2, 8000
    X, y = nl.sample_inputs(np.random.default_rng(5), n, k, d, 0.5)
    row = y[:, None, None] * np.full(d, 1 / np.sqrt(d))
    signal = np.all(row == X, axis=2)  # exact: the signal row is assigned, noise rows never equal it
    assert np.all(signal.sum(1) == 1)
    pos = signal.argmax(1)
    counts = np.array([[np.sum((pos == i) & (y == s)) for s in (-1.0, 1.0)] for i in range(k + 1)])
    assert np.all(np.abs(counts - n / 8) <= 175), counts


def test_cnn_output_matches_the_definition():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((3, 5, 2))
    w, b = np.array([0.3, -1.2]), -0.4
    want = [sum(tl.soft_threshold(float(X[n, i] @ w), b) for i in range(5)) for n in range(3)]
    np.testing.assert_allclose(nl.cnn_output(X, w, b), want, atol=1e-12)


def _dense_sample(k, sigma, tau_min, n, seed):
    """The same estimator from dense draws (every row sampled), as a TailSample."""
    A = sigma * np.random.default_rng(seed).standard_normal((n, k))
    keep = np.abs(A) > tau_min
    owner = np.nonzero(keep)[0]
    return nl.TailSample(k, sigma, tau_min, n, A[keep], owner, np.ones(n), False), A


def test_margins_agree_with_dense_soft_thresholding():
    sample, A = _dense_sample(40, 0.3, 0.2, 500, 0)
    for tau in (0.2, 0.5, 0.9):
        S = np.sign(A) * np.maximum(np.abs(A) - tau, 0)
        np.testing.assert_allclose(nl.margins(sample, tau), (1 - tau) + S.sum(1), atol=1e-12)


@pytest.mark.parametrize("importance", [False, True])
def test_sparse_sampler_estimates_err_within_its_standard_error(importance):
    k = 1000
    sigma = tl.noise_sigma(k)
    taus = (0.5, 0.8, 0.95)
    sample = nl.tail_sample(k, sigma, 0.5, 60_000, 3, importance=importance)
    est, se = nl.error_curve_mc(sample, taus)
    exact = [tl.error_curve(k, t) for t in taus]
    assert np.all(np.abs(est - exact) <= 4 * se)
    if importance:
        assert abs(sample.weights.mean() - 1) < 4 * sample.weights.std() / np.sqrt(sample.n)  # E_q[p/q] = 1
        assert sample.weights.max() <= 1 / sample.params["defensive"] + 1e-12


def test_importance_sampling_reduces_the_tail_variance():
    k = 1000
    sigma = tl.noise_sigma(k)
    plain = nl.tail_sample(k, sigma, 0.7, 50_000, 5, importance=False)
    tilted = nl.tail_sample(k, sigma, 0.7, 50_000, 6, importance=True)
    _, se_plain = nl.error_curve_mc(plain, [0.9])
    _, se_is = nl.error_curve_mc(tilted, [0.9])
    assert (se_plain[0] / se_is[0]) ** 2 > 10


@pytest.mark.parametrize("k, tau", [(20, 0.3), (300, 0.7), (1000, 0.9)])
def test_fourier_inversion_against_dense_monte_carlo(k, tau):
    sigma = tl.noise_sigma(k)
    sample, _ = _dense_sample(k, sigma, tau * 0.999, 40_000, 7)
    est, se = nl.error_curve_mc(sample, [tau])
    assert abs(est[0] - nl.error_curve_fourier(k, tau, sigma)) <= 4 * max(se[0], 1e-4)


def test_regression_and_maxima_and_linear_classifier_monte_carlo():
    slopes, se = nl.regression_mc(0.4, 0.15, 0.3, 100_000, 0)
    np.testing.assert_array_less(np.abs(slopes - [0.16 / 0.1825, 0.0225 / 0.1825]), 4 * se)
    p, se = nl.max_exceedance_mc(10, 50_000, 1)
    assert abs(p[0] - tl.max_exceedance(10)) <= 4 * se[0] and abs(p[1] - tl.max_exceedance(10, True)) <= 4 * se[1]
    err, se = nl.linear_classifier_mc(50, 2, 20_000, 2)
    assert abs(err - tl.linear_classifier_error(50)) <= 4 * se


@settings(max_examples=30, deadline=None)
@given(st.floats(0, 40))
def test_mills_ratio_matches_theory(x):
    assert float(nl.mills_ratio(x)) == pytest.approx(tl.mills_ratio(x), rel=1e-12)


def test_gradient_structure_small():
    g = nl.gradient_structure_mc(20, np.array([0.5, 0.2, -0.1, 0.0]), -0.1, tl.noise_sigma(20), 20_000, 0)
    assert np.all(np.abs(g.residual) <= 4 * g.se_residual)
    assert abs(g.gamma_direct - g.gamma_sym) <= 4 * np.hypot(g.se_gamma_direct, g.se_gamma_sym)
    assert abs(g.kappa_direct - g.kappa_sym) <= 4 * np.hypot(g.se_kappa_direct, g.se_kappa_sym)
    assert g.gamma_sym > 0 and -2 <= g.kappa_sym <= 0 and g.min_sym_term >= 0


def test_cntk_features_against_a_loop_and_the_gradient():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4, 6, 3))
    w0 = rng.standard_normal((2, 3))
    feats = nl.cntk_features(X, w0, [-0.5, 0.1])
    for i, b in enumerate([-0.5, 0.1]):
        for n in range(4):
            want = np.concatenate([sum(X[n, r] for r in range(6) if abs(X[n, r] @ w0[j]) + b >= 0) for j in range(2)])
            np.testing.assert_allclose(feats[i, n], want, atol=1e-12)
    # for b < 0 the printed feature is the gradient of f at w0 (one filter)
    np.testing.assert_allclose(
        nl.cntk_features(X[:1], w0[:1], [-0.5])[0, 0], nl.cnn_gradient_fd(X[0], w0[0], -0.5), atol=1e-6
    )


def test_hinge_svm_duality_gap_and_separable_data():
    rng = np.random.default_rng(4)
    F = rng.standard_normal((300, 5))
    y = np.sign(F @ np.array([1.0, -2.0, 0.5, 0.0, 0.0]))
    res = nl.hinge_svm(F, y, 1e-3)
    assert res.status == "optimal/optimal"
    assert abs(res.gap) <= 1e-6 * max(1.0, abs(res.primal))
    assert np.mean(y * (F @ res.w) > 0) > 0.97
    with pytest.raises(ValueError, match="lam"):
        nl.hinge_svm(F, y, 0.0)


def test_kernel_with_the_filter_at_w_star_finds_the_signal():
    """Given filters replace the random inits: at w_* with b = -0.95 the kernel feature is y w_* unless a noise row
    passes the gate (probability 1 - (1 - 2 Phi^c(0.95/sigma))^k, computed here with scipy), so the error is at
    most about that."""
    k, d = 1000, 21
    w0 = np.full((1, 1, d), 1 / np.sqrt(d))
    res = nl.kernel_best_error(k, d, (-0.95,), 1, 300, 1000, seed=3, w0=w0)
    gate = 1 - (1 - 2 * stats.norm.sf(0.95 / tl.noise_sigma(k))) ** k
    assert res.best_error[0] <= gate + 4 * np.sqrt(gate / 1000)
    np.testing.assert_allclose(res.alignment, [np.sqrt(d)])  # sqrt(d) |<w0_hat, w_*>|


def test_kernel_best_error_is_far_from_the_cnn():
    res = nl.kernel_best_error(1000, 21, (0.0, -0.2), 1, 300, 500, seed=0)
    assert res.errors.shape == (1, 2) and np.all(res.best_error > 0.1)
    assert res.max_gap < 1e-5


def test_logistic_optimum_is_finite_and_near_the_01_optimum():
    k = 1000
    opt = nl.logistic_optimum(k, tl.noise_sigma(k), np.arange(0.7, 0.99, 0.04), 20_000, 2, 0)
    assert 10 < opt.c < 200 and 0.7 < opt.tau < 0.95
    assert opt.error >= tl.optimal_threshold(k).error * 0.95


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: nl.tail_sample(100, 0.2, 0.0, 10, 0), "tau_min"),
        (lambda: nl.tail_sample(100, 0.2, 0.5, 0, 0), "n"),
        (lambda: nl.tail_sample(1, 0.2, 0.5, 10, 0), "k"),
        (lambda: nl.tail_sample(100, -0.2, 0.5, 10, 0), "sigma"),
        (lambda: nl.tail_sample(100, 0.2, 0.5, 10, 0, defensive=0.0), "defensive"),
        (lambda: nl.error_curve_fourier(100, 1.0, 0.2), "tau"),
        (lambda: nl.sample_inputs(np.random.default_rng(0), 5, 10, 0, 0.2), "d"),
        (lambda: nl.linear_classifier_mc(10, 2, 0, 0), "n"),
        (lambda: nl.margins(nl.tail_sample(100, 0.2, 0.5, 10, 0), 0.3), "tau_min"),
        (lambda: nl.gradient_structure_mc(10, np.array([1.0, 0.0, 0.0]), -0.1, 0.3, 10, 0), "v > 0"),
        (lambda: nl.regression_mc(0, 0, 0.3, 100, 0), "(c, v)"),
        (lambda: nl.regression_mc(0.4, 0.1, 0.3, 1, 0), "n (the number of samples)"),
        (lambda: nl.regression_mc(0.4, 0.1, 0.0, 100, 0), "sigma"),
        (lambda: nl.kernel_best_error(100, 4, (), 1, 10, 10, 0), "biases"),
        (lambda: nl.kernel_best_error(100, 4, (0.0,), 0, 10, 10, 0), "inits"),
        (lambda: nl.kernel_best_error(100, 4, (0.0,), 1, 10, 10, 0, m=0), "m (the number of filters)"),
        (lambda: nl.kernel_best_error(100, 4, (0.0,), 1, 10, 10, 0, lam=0.0), "lam"),
        (lambda: nl.kernel_best_error(100, 4, (0.0,), 1, 10, 10, 0, w0=np.zeros((1, 1, 4))), "w0"),
        (lambda: nl.kernel_best_error(100, 4, (0.0,), 1, 10, 10, 0, w0=np.ones((1, 4))), "w0"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, name):
    with pytest.raises(ValueError, match=re.escape(name)):
        call()


# --- issue 32: Monte Carlo sizes from their cost, no hang, no NaN


@pytest.mark.parametrize(
    "call, param",
    [
        (lambda N: nl.regression_mc(1.0, 2.0, 1.0, N, 0), "n"),
        (lambda N: nl.max_exceedance_mc(10, N, 0), "n_samples"),
        (lambda N: nl.linear_classifier_mc(16, 3, N, 0), "n"),
        (lambda N: nl.tail_sample(16, 0.5, 0.3, N, 0), "n"),
        (lambda N: nl.logistic_optimum(16, 0.5, [0.3, 0.5, 0.7], N, 2, 0), "n"),
        (lambda N: nl.gradient_structure_mc(4, np.array([1.0, 0.5, 0.0]), -0.3, 0.5, N, 0), "n"),
        (lambda N: nl.kernel_best_error(4, 2, [0.0], 1, N, 20, 0), "n_train"),
        (lambda N: nl.sample_inputs(np.random.default_rng(0), N, 3, 2, 0.5), "n"),
    ],
)
def test_monte_carlo_sample_counts_are_capped_before_any_draw(call, param):
    # Before the fix, n = 10**12 ran forever or died in a MemoryError.
    from theory._checks import LimitError

    with pytest.raises(LimitError) as info:
        call(10**12)
    assert info.value.param == param and str(info.value).startswith(f"{param} = ")


def test_monte_carlo_work_names_the_size_that_makes_one_sample_expensive():
    from theory._checks import LimitError

    with pytest.raises(LimitError) as info:  # 10^6 samples of 10^4 x 10 floats each
        nl.linear_classifier_mc(10**4, 10, 10**6, 0)
    assert info.value.param == "n"
    with pytest.raises(LimitError) as info:  # one sample alone has 10^9 x 20 entries
        nl.linear_classifier_mc(10**9, 10, 100, 0)
    assert info.value.param == "k"


@pytest.mark.parametrize(
    "call, param",
    [
        (lambda: nl.max_exceedance_mc(10, 100, 0, chunk=0), "chunk"),  # looped forever
        (lambda: nl.linear_classifier_mc(10, 2, 100, 0, chunk=0), "chunk"),  # looped forever
        (lambda: nl.max_exceedance_mc(10, 100, 0, sigma=float("nan")), "sigma"),
        (lambda: nl.logistic_optimum(16, 0.5, [0.3, 0.5, 0.7], 100, 1, 0), "batches"),  # NaN standard errors
        (lambda: nl.soft_threshold_moments_quad(0.5, 1e9), "sigma"),  # QUADPACK gave P[S != 0] = -8e-10
        (lambda: nl.mills_ratio(-1e308), "x"),  # inf
        (lambda: nl.cnn_output(np.ones((1, 2, 2)), np.ones(2), float("nan")), "b"),
        (lambda: nl.margins(None, 0.5), "sample"),
        (lambda: nl.hinge_svm(np.ones((2, 2)), np.array([1.0, -1.0]), float("nan")), "lam"),
    ],
)
def test_bad_values_are_refused_naming_the_parameter(call, param):
    from theory._checks import InputError

    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param


def test_kernel_refusals_name_the_parameter_that_makes_the_work():
    from theory._checks import LimitError

    with pytest.raises(LimitError, match=r"^inits = ") as info:
        nl.kernel_best_error(4, 2, [0.0], 10**12, 20, 20, 0)
    assert info.value.param == "inits"
    with pytest.raises(LimitError, match=r"^n_train = 1,000,000,000,000 ") as info:
        nl.kernel_best_error(4, 2, [0.0], 1, 10**12, 20, 0)
    assert info.value.param == "n_train"


def test_lemma_b11_event_mc_is_the_direct_frequency_and_checks_inputs():
    """Lemma B.11's event (one filter, as vectors) by Monte Carlo is the frequency of the event written out."""
    rng = np.random.default_rng(8)
    d, sigma, C = 4, 0.3, 0.8
    w_star = np.full(d, 0.5)
    w0, w = rng.standard_normal(d), rng.standard_normal(d) + w_star
    b = -0.5 * abs(w0 @ w_star)
    p, se = nl.lemma_b12_event_mc(nl.LemmaB12Event(w0, w, w_star, b, C, sigma), 5000, seed=2, chunk=5000)
    # the same draws, the event written out: |<w, eps>| 1{|<w0, eps>| + b >= 0} >= C sigma |<w, w_*>|
    eps = sigma * np.random.default_rng(2).standard_normal((5000, 1, d))[:, 0]
    g = (eps @ w) * (np.abs(eps @ w0) + b >= 0)
    assert p == np.mean(np.abs(g) >= C * sigma * abs(w @ w_star)) and se > 0
    exact = tl.lemma_b11_event_probability(tuple(w0), tuple(w), tuple(w_star), b, C, sigma)
    assert abs(p - exact) <= 4 * se
    for kwargs, name in (({"w0": w0[:3]}, "w0"), ({"C": 0.0}, "C")):
        args = {"w0": w0, "w": w, "w_star": w_star, "b": b, "C": C, "sigma": sigma} | kwargs
        with pytest.raises(ValueError, match=name):
            nl.LemmaB12Event(**args)
    with pytest.raises(ValueError, match="n"):
        nl.lemma_b12_event_mc(nl.LemmaB12Event(w0, w, w_star, b, C, sigma), 1, seed=0)
