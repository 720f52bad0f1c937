"""Float64 checks of numerics/sparse_variable.py against the exact theory and against brute force: the materialised
heads and networks on every context, norms, embeddings, Lemma 4.7 and Cor. A.7 quantities, the Prop. 4.8
shattering, and the Sec. 4.6 data (consistent supports, identifiable samples, the threshold rule)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import sparse_variable as ns
from theory import sparse_variable as ts
from theory._checks import InputError


def _build(lemma: str, T: int, I: tuple[int, ...], output: str) -> ts.Construction:
    if lemma == "A.21":
        return ts.lemma_a21(T, I, None, output)
    gamma = min(F(1), F(2, len(I))) if output == "scalar" else F(1)
    return (ts.lemma_a19 if lemma == "A.19" else ts.lemma_a20)(T, I, gamma, output)


@pytest.mark.parametrize("lemma", ["A.19", "A.20", "A.21"])
@pytest.mark.parametrize("output", ["scalar", "vector"])
def test_float_heads_match_the_exact_heads(lemma, output):
    c = _build(lemma, 7, (0, 3, 5), output)
    nc = ns.NumericConstruction.build(c)
    b = ns.all_inputs(7)
    exact = np.array([[float(x) for x in c.head_output(tuple(row))] for row in b])
    np.testing.assert_allclose(nc.forward(b), exact, rtol=0, atol=1e-13)
    np.testing.assert_allclose(ns.target_values(c, b), [[float(x) for x in c.target(tuple(r))] for r in b], atol=0)
    p = nc.attention(b)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-14)
    norms = nc.norms()
    for k, v in ts.exact_head_norms(c).items():
        assert norms[k] == pytest.approx(float(v), rel=1e-14)


@settings(max_examples=15, deadline=None)
@given(T=st.integers(2, 9), seed=st.integers(0, 10**6), mapping=st.sampled_from(ts.MAPPINGS), symmetric=st.booleans())
def test_float_networks_equal_random_sparse_functions_on_every_context(T, seed, mapping, symmetric):
    rng = random.Random(seed)
    s = rng.randint(1, min(T, 3))
    I = ts.random_support(T, s, rng)
    vals = [F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(s + 1 if symmetric else 2**s)]
    rep = (ts.symmetric_representation if symmetric else ts.general_representation)(T, I, vals, mapping)
    nr = ns.NumericRepresentation.build(rep)
    b = ns.all_inputs(T)
    brute = [
        float(vals[sum(r[i] for i in I)] if symmetric else vals[sum(r[i] << j for j, i in enumerate(I))]) for r in b
    ]
    np.testing.assert_allclose(nr(b), brute, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(nr.truth(b), brute)


def test_long_context_matches_the_closed_form():
    c = ts.lemma_a19(5000, (7, 2500, 4999), F(2, 3), "scalar")
    nc = ns.NumericConstruction.build(c)
    b = np.vstack([ns.random_inputs(5000, 64, np.random.default_rng(0)), [ts.worst_case_input(c)]])
    err = np.abs(nc.forward(b) - ns.target_values(c, b)).max()
    assert err == pytest.approx(float(ts.worst_case_error(c)), rel=1e-10)


def test_coherent_embedding_and_exact_gram():
    emb = ns.coherent_embedding(40, 16, np.random.default_rng(1))
    V = emb.pos
    np.testing.assert_allclose(np.linalg.norm(V, axis=1), 1.0, atol=1e-15)
    G = V @ V.T
    np.fill_diagonal(G, 0)
    assert float(emb.coherence) == pytest.approx(np.abs(G).max(), abs=1e-14)
    np.testing.assert_allclose(
        np.array(ns.gram_of(emb, [3, 9, 20]), dtype=float), (V @ V.T)[np.ix_([3, 9, 20], [3, 9, 20])], atol=1e-14
    )
    assert not (V @ emb.tok.T).any() and not (V @ emb.cls).any() and not (emb.tok @ emb.cls).any()
    c = ts.lemma_a19(40, (1, 2), F(1), "scalar")  # built for Delta = 0
    with pytest.raises(ValueError, match="coherence"):
        ns.NumericConstruction.build(c, emb)


def test_printed_coherent_head_fails_where_the_corrected_one_holds():
    emb = ns.coherent_embedding(1000, 800, np.random.default_rng([0, 11]))
    I = (10, 400, 901)
    gamma = F(2, 3)
    b = np.array([[1 if t in I[:2] else 0 for t in range(1000)], [1 if t == I[2] else 0 for t in range(1000)]])
    printed = ns.NumericConstruction.build(ts.lemma_a19(1000, I, gamma, "scalar", coherence=emb.coherence), emb)
    fixed = ns.NumericConstruction.build(ts.lemma_a19_coherent(1000, I, gamma, ns.gram_of(emb, I), emb.coherence), emb)
    target = ns.target_values(printed.construction, b)
    assert np.abs(fixed.forward(b) - target).max() <= float(gamma / 4)
    p = fixed.attention(b)[:, list(I)]
    np.testing.assert_allclose(p, 1 / 3, atol=1e-9)  # every relevant score is exactly R
    assert np.ptp(printed.attention(b)[:, list(I)], axis=1).max() > 0.05  # the printed scores are not equal


def test_lemma47_bound_holds_and_the_adversarial_cases_are_tight():
    best = ns.lemma47_ratios(60, np.random.default_rng(3))
    assert best["score"] <= 0.5 + 1e-9 and best["in"] <= 1 + 1e-9 and best["both"] <= 1 + 1e-9
    assert best["score"] > 0.4999 and best["in"] > 1 - 1e-9
    X, z, p, ph = ns._adversarial_score(1e-3)
    lhs, a, b = ns.lemma47_sides(X, z, p, ph)
    assert lhs / (a + b) == pytest.approx(np.tanh(1e-3) / 2e-3, rel=1e-9)


def test_softmax_jacobian_quantities():
    theta = np.random.default_rng(0).normal(size=(50, 6))
    p = ns.softmax(theta)
    np.testing.assert_allclose(ns.softmax_l11(theta), 2 * (p * (1 - p)).sum(axis=1), rtol=1e-13)
    assert ns.softmax_l11(np.zeros(6))[0] == pytest.approx(2 * (1 - 1 / 6))
    t2 = theta + 1e-3 * np.random.default_rng(1).normal(size=theta.shape)
    assert (ns.softmax_linf_to_l1_ratio(theta, t2) <= 1 + 1e-9).all()


@pytest.mark.parametrize("T", [2, 5, 16, 100])
def test_shattering_realises_every_pattern(T):
    patterns, w = ns.shattering_patterns(T)
    k = ts.shattering_size(T)
    assert {tuple(r) for r in patterns.astype(int)} == set(itertools.product((0, 1), repeat=k))
    assert w.min() >= float(ts.prop48_target_weight_bound())


def _brute_consistent(x: np.ndarray, y: np.ndarray, s: int) -> list[tuple[int, ...]]:
    return [J for J in itertools.combinations(range(x.shape[1]), s) if np.array_equal(x[:, J].all(axis=1), y == 1)]


@settings(max_examples=30, deadline=None)
@given(T=st.integers(3, 9), m=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_consistent_supports_match_brute_force(T, m, seed):
    rng = np.random.default_rng(seed)
    x = ns.random_inputs(T, m, rng, 0.8)
    I = ts.random_support(T, 3, random.Random(seed))
    y = ns.and_labels(x, I)
    assert ns.consistent_supports(x, y, 3) == _brute_consistent(x, y, 3)


def test_identifiable_samples_and_bad_input():
    x, y, _ = ns.sample_identifiable_and(20, 40, (2, 7, 11), 0.5 ** (1 / 3), np.random.default_rng(0))
    assert ns.consistent_supports(x, y, 3) == [(2, 7, 11)] and x.shape == (40, 20)
    with pytest.raises(ValueError, match="s <= T"):
        ns.sample_identifiable_and(2, 40, (0, 1, 2), 0.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no identifiable sample"):
        ns.sample_identifiable_and(30, 2, (0, 1, 2), 0.5, np.random.default_rng(0), max_tries=20)
    with pytest.raises(ValueError):
        ns.all_inputs(21)
    with pytest.raises(ValueError, match="shape"):
        ns.NumericConstruction.build(ts.lemma_a19(4, (1,))).forward(np.zeros((2, 5), dtype=int))


def test_threshold_rule_and_trend_statistics():
    assert ns.sample_threshold([10, 20, 30], [0.5, 0.8, 1.0]) == 20
    assert ns.sample_threshold([10, 20], [0.1, 0.2]) == float("inf")
    Ts = [16, 64, 256]
    info = [float(ts.and_information_bound(T)) for T in Ts]
    log_like = ns.log_trend(Ts, [2 * v for v in info], info)
    assert log_like["ratio_spread"] == pytest.approx(1.0) and log_like["slope_per_lnT"] > 0
    linear = ns.log_trend(Ts, [T / 2 for T in Ts], info)
    assert linear["ratio_spread"] > 5


def test_trend_exponent_separates_the_log_and_linear_laws():
    Ts = [8, 16, 32]
    info = [float(ts.and_information_bound(T)) for T in Ts]
    log_law = ns.log_trend(Ts, [3.3 * v for v in info], info)
    linear = ns.log_trend(Ts, [2.0 * T for T in Ts], info)
    assert log_law["exponent"] == pytest.approx(0.0, abs=1e-12) and log_law["rss_log"] == pytest.approx(0, abs=1e-24)
    assert linear["exponent"] == pytest.approx(1.0, abs=1e-12) and linear["rss_linear"] == pytest.approx(0, abs=1e-24)
    halfway = ns.log_trend(Ts, [v**0.5 * T**0.5 for v, T in zip(info, Ts)], info)
    assert halfway["exponent"] == pytest.approx(0.5, abs=1e-12)
    with pytest.raises(ValueError, match="length"):
        ns.log_trend(Ts, [1.0, 2.0], info)
    with pytest.raises(ValueError, match="positive"):
        ns.log_trend(Ts, [1.0, 0.0, 2.0], info)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1.0, 500.0), min_size=3, max_size=3))
def test_exponent_below_one_half_iff_the_log_law_fits_better(ms):
    Ts = [8, 16, 32]
    info = [float(ts.and_information_bound(T)) for T in Ts]
    tr = ns.log_trend(Ts, ms, info)
    # rss(theta_0) = rss_min + S_xx (theta - theta_0)^2: the two fits differ by S_xx (1 - 2 theta)
    x = np.log(np.array(Ts) / np.array(info))
    sxx = float(((x - x.mean()) ** 2).sum())
    assert tr["rss_linear"] - tr["rss_log"] == pytest.approx(sxx * (1 - 2 * tr["exponent"]), abs=1e-9)


def test_exact_head_errors_equal_the_exact_rational_heads():
    """At Delta = 0 the 50-digit forward pass against the exact rational head output on every context."""
    for output in ("scalar", "vector"):
        for lemma in ("A.19", "A.20"):
            T, I = 7, (1, 3, 6)
            c = _build(lemma, T, I, output)
            b = ns.all_inputs(T)
            got = ns.exact_head_errors(c, ns.orthonormal_embedding(max(T, len(I))), b)
            exact = [float(max(abs(x - y) for x, y in zip(c.head_output(r), c.target(r)))) for r in b.tolist()]
            assert np.abs(got - np.array(exact)).max() <= 1e-15 * max(exact)


def test_exact_head_errors_at_the_maximiser_equal_the_fixed_score_formula():
    T, d_pos, I = 200, 1200, (10, 150, 190)
    emb = ns.coherent_embedding(T, d_pos, np.random.default_rng(5))
    c = ts.lemma_a19_coherent(T, I, F(2, 3), ns.gram_of(emb, I), emb.coherence)
    b = np.zeros((1, T), dtype=np.int64)
    b[0, list(I)] = 1  # the maximiser: relevant bits 1, others 0
    got = ns.exact_head_errors(c, emb, b)[0]
    predicted = ts.fixed_score_worst_case_error(ts.score_coefficients(c, ns.cross_gram(emb, I)), I, c.R)
    assert got == pytest.approx(float(predicted), rel=1e-12)
    # float64 agrees only to its rounding (about R eps / error = 2e-9 relative here)
    float64 = abs(ns.NumericConstruction.build(c, emb).forward(b) - ns.target_values(c, b))[0, 0]
    assert float64 == pytest.approx(got, rel=1e-7)
    assert ns.cross_gram(emb, I, I) == ns.gram_of(emb, I)
    with pytest.raises(ValueError, match="deterministic or trainable"):
        ns.exact_head_errors(ts.lemma_a21(T, I), emb, b)
    with pytest.raises(ValueError, match="bits"):
        ns.exact_head_errors(c, emb, 2 * b)
    with pytest.raises(ValueError, match="positions"):
        ns.cross_gram(emb, [T])


# ------------------------------------------------------------------ bad input and sizes (issue 32)


def test_sample_threshold_refuses_lists_of_different_lengths():
    """zip() silently dropped the extra sizes or rates: unequal lengths are refused."""
    from theory._checks import InputError

    with pytest.raises(InputError) as info:
        ns.sample_threshold([10, 20, 40], [0.1, 0.9])
    assert info.value.param == "success_rates"
    with pytest.raises(InputError):
        ns.sample_threshold([], [])
    with pytest.raises(InputError):
        ns.sample_threshold([10, 20], [0.1, 0.9], level=float("nan"))
    assert ns.sample_threshold([10, 20], [0.1, 0.9]) == 20.0


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: ns.random_inputs(5, 10**13, np.random.default_rng(0)), "n"),
        (lambda: ns.lemma47_ratios(10**12, np.random.default_rng(0)), "n_random"),
        (
            lambda: ns.sample_identifiable_and(6, 12, (0, 1, 2), 0.7, np.random.default_rng(0), max_tries=10**12),
            "max_tries",
        ),
        (lambda: ns.coherent_embedding(10**7, 16, np.random.default_rng(0)), "n_pos"),
        (lambda: ns.all_inputs(21), "T"),
        (lambda: ns.consistent_supports(np.ones((1, 200), dtype=int), np.ones(1, dtype=int), 10), "s"),
        (lambda: ns.worst_errors_by_level(np.zeros(2), np.zeros(2), np.zeros(2, int), 10**9), "n_keys"),
    ],
)
def test_sparse_variable_sizes_are_refused_at_once(call, param):
    import time

    from theory._checks import LimitError

    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 2.0 and info.value.param == param


@pytest.mark.parametrize("ms", [[0, 10], [-5, 10], [10, 0.0]])
def test_sample_threshold_refuses_non_positive_sample_sizes(ms):
    """ms are sample sizes, > 0: a size 0 would be returned as the threshold."""
    with pytest.raises(InputError) as info:
        ns.sample_threshold(ms, [0.9, 0.9])
    assert info.value.param == "ms"


def test_consistent_supports_is_the_brute_force_list_and_limit_truncates_it():
    """Every s-subset S of positions whose AND reproduces y, by brute force over all subsets (lexicographic order);
    ``limit`` returns the first ``limit`` of them."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        T, s = 6, 2
        x = (rng.random((4, T)) < 0.7).astype(np.int64)
        y = ns.and_labels(x, [1, 3])
        brute = [S for S in itertools.combinations(range(T), s) if np.array_equal(ns.and_labels(x, list(S)), y)]
        assert ns.consistent_supports(x, y, s) == brute
        for limit in (1, 2, 3):
            assert ns.consistent_supports(x, y, s, limit=limit) == brute[:limit]
