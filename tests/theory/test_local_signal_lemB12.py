"""Lemma B.12 (Karp thesis, App. B.2.2): ``theory.local_signal.lemma_b12_reduction``, the event reduced to Gaussian
box probabilities, against the definitions it replaces: the covariances against the Gram matrix of the vectors
(numpy), the gates, g and Event A against the lemma's own formulas on sampled noise rows, and m = 1 against Lemma
B.11's exact series (an identity of two theory/ functions that compute differently)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import local_signal as tl
from theory._checks import InputError, LimitError

D = 5
W_STAR = tuple(np.full(D, 1 / math.sqrt(D)))


def _instance(seed: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal((m, D))
    w = rng.standard_normal((m, D)) * 10.0 ** rng.integers(-3, 4)
    b = -np.abs(w0 @ np.array(W_STAR)) * rng.uniform(0, 2, m)  # gates open or shut on the signal row
    return w0, w, b


def _reduce(w0: np.ndarray, w: np.ndarray, b: np.ndarray, C: float, sigma: float) -> tl.LemmaB12Reduction:
    return tl.lemma_b12_reduction(w0.tolist(), w.tolist(), W_STAR, b.tolist(), C, sigma)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(1, 4))
def test_covariances_are_the_gram_matrix_of_the_directions(seed, m):
    w0, w, b = _instance(seed, m)
    red = _reduce(w0, w, b, 1.0, 0.3)
    v = w0 / np.linalg.norm(w0, axis=1)[:, None]
    s = np.max(np.abs(w))
    assert len(red.patterns) == 2**m and len(set(red.patterns)) == 2**m
    for P, cov in zip(red.patterns, red.pattern_covariances):
        A = np.vstack([v, w[list(P)].sum(axis=0)[None, :] / s])  # G_j = <v_j, eps>/sigma, L_P = <v_P, eps>/(sigma s)
        np.testing.assert_allclose(np.array(cov), A @ A.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.array(red.gate_correlation), v @ v.T, rtol=1e-12, atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(1, 4), C=st.floats(0.1, 3.0), sigma=st.floats(0.05, 2.0))
def test_gates_g_and_the_event_match_the_lemma_on_noise_rows(seed, m, C, sigma):
    """On sampled eps: gate j open (|<w_j^(0), eps>| + b_j >= 0) iff |G_j| >= beta_j; g(eps) = sigma s L_P for the
    open set P; Event A (|g(eps)| >= C sigma |g(w_*)|) iff not |L_P| < level; and g(w_*), M(w_*) by definition."""
    w0, w, b = _instance(seed, m)
    red = _reduce(w0, w, b, C, sigma)
    ws = np.array(W_STAR)
    open_star = np.abs(w0 @ ws) + b >= 0
    assert red.open_on_signal == tuple(np.nonzero(open_star)[0])
    assert red.g_star == pytest.approx(float(w[open_star].sum(axis=0) @ ws), rel=1e-12, abs=1e-300)
    eps = sigma * np.random.default_rng(seed + 1).standard_normal((400, D))
    gate = np.abs(eps @ w0.T) + b >= 0
    G = eps @ (w0 / np.linalg.norm(w0, axis=1)[:, None]).T / sigma
    clear = np.abs(np.abs(G) - np.array(red.gate_thresholds)) > 1e-9  # away from the boundary, where round-off decides
    assert np.array_equal((np.abs(G) >= np.array(red.gate_thresholds))[clear], gate[clear])
    s = np.max(np.abs(w))
    g = np.einsum("nj,nj->n", eps @ w.T, gate)  # g(eps) = sum_j <w_j, eps> 1{gate j open}
    index = {P: i for i, P in enumerate(red.patterns)}
    for row in range(len(eps)):
        P = tuple(np.nonzero(gate[row])[0])
        L = float(w[list(P)].sum(axis=0) @ eps[row]) / (sigma * s) if P else 0.0
        assert g[row] == pytest.approx(sigma * s * L, rel=1e-9, abs=1e-12)
        variance = red.pattern_covariances[index[P]][m][m]
        assert variance == pytest.approx(float(np.sum(w[list(P)].sum(axis=0) ** 2)) / s**2 if P else 0.0, rel=1e-12)
        event = abs(g[row]) >= C * sigma * abs(red.g_star)
        if abs(abs(L) - red.level) > 1e-9 * max(1.0, red.level):
            assert event == (not abs(L) < red.level)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), C=st.floats(0.1, 3.0), sigma=st.floats(0.05, 2.0))
def test_one_filter_is_lemma_b11(seed, C, sigma):
    """At m = 1, P[A] = P[|L_{(0)}| >= level, |G| >= beta] (the shut pattern has L = 0 < level): the bivariate tail of
    the reduction's numbers equals Lemma B.11's series computed from the vectors."""
    w0, w, b = _instance(seed, 1)
    red = _reduce(w0, w, b, C, sigma)
    exact = tl.lemma_b11_event_probability(tuple(w0[0]), tuple(w[0]), W_STAR, float(b[0]), C, sigma)
    if red.g_star == 0 or not red.open_on_signal:
        assert exact == 1.0
        return
    cov = red.pattern_covariances[1]
    sd = math.sqrt(cov[1][1])
    rho = max(-1.0, min(1.0, cov[0][1] / sd))
    assert tl.bivariate_abs_tail(red.level / sd, red.gate_thresholds[0], rho) == pytest.approx(exact, abs=1e-12)


def test_small_ball_is_the_normal_probability_of_the_aligned_interval():
    w0, w, b = _instance(3, 3)
    b = np.full(3, 0.0)  # every gate open on the signal row
    red = _reduce(w0, w, b, 1.3, 0.2)
    v_hat = w.sum(axis=0) / np.linalg.norm(w.sum(axis=0))
    x = 1.3 * abs(float(v_hat @ np.array(W_STAR)))
    assert red.small_ball == pytest.approx(1 - 2 * tl.normal_sf(x), rel=1e-12)
    assert red.signal_thresholds == pytest.approx(
        tuple(np.abs(w0 @ np.array(W_STAR)) / np.linalg.norm(w0, axis=1) / 0.2)
    )


def test_scale_invariance_and_a_vector_as_one_filter():
    w0, w, b = _instance(5, 2)
    base = _reduce(w0, w, b, 1.0, 0.4)
    scaled = _reduce(w0, 1e-200 * w, b, 1.0, 0.4)  # the event is invariant under w -> c w
    np.testing.assert_allclose(np.array(scaled.pattern_covariances), np.array(base.pattern_covariances), rtol=1e-12)
    assert scaled.level == pytest.approx(base.level, rel=1e-12)
    one = tl.lemma_b12_reduction(w0[0].tolist(), w[0].tolist(), W_STAR, float(b[0]), 1.0, 0.4)
    assert one == tl.lemma_b12_reduction([w0[0].tolist()], [w[0].tolist()], W_STAR, [float(b[0])], 1.0, 0.4)


def test_a_gate_beyond_the_float_range_never_opens():
    red = tl.lemma_b12_reduction([(1e-300, 0.0)], [(1.0, 0.0)], (1.0, 0.0), -1e300, 1.0, 0.5)
    assert red.gate_thresholds == (math.inf,) and red.open_on_signal == ()


@pytest.mark.parametrize(
    "kwargs,param",
    [
        ({"w0": [(0.0, 0.0)]}, "w0"),
        ({"w0": [(1.0, 0.0, 0.0)]}, "w0"),
        ({"w": [(1.0, 0.0), (1.0, 0.0)]}, "w"),
        ({"w_star": (1.0, 1.0)}, "w_star"),
        ({"b": (0.0, 0.0)}, "b"),
        ({"C": 0.0}, "C"),
        ({"sigma": -1.0}, "sigma"),
        ({"w0": [(1.0, float("nan"))]}, "w0"),
    ],
)
def test_bad_input_is_refused_with_the_parameter_named(kwargs, param):
    args = {"w0": [(0.6, 0.8)], "w": [(1.0, 0.0)], "w_star": (1.0, 0.0), "b": -0.3, "C": 1.0, "sigma": 0.5} | kwargs
    with pytest.raises(InputError) as err:
        tl.lemma_b12_reduction(**args)
    assert err.value.param == param


def test_too_many_filters_are_refused_before_the_work():
    rows = [(1.0, 0.0)] * 10  # 2^10 11^2 covariance entries
    with pytest.raises(LimitError) as err:
        tl.lemma_b12_reduction(rows, rows, (1.0, 0.0), 0.0, 1.0, 0.5)
    assert err.value.param == "w0" and tl.MAX_B12_ENTRIES >= 2**9 * 10**2
