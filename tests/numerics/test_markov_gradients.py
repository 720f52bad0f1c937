"""numerics/markov_gradients.py (Edelman thesis Ch. 8, App. E; docs/markov.md): the minimal model's forward pass and
Fact 8.3 on random sequences, the Prop. 8.2 construction, the exact finite-t population gradients against exhaustive
enumeration of all chains, the quadrature rules, Monte Carlo estimates within 4 standard errors of exact values, and
bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import markov as nm
from numerics import markov_gradients as mg
from theory import markov as tm
from theory._checks import InputError

Z = 4.0  # Monte Carlo estimates must lie within this many standard errors of the exact value

SEQS = st.integers(2, 4).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(0, k - 1), min_size=2, max_size=30))
)


# --- Eq. (8.8) and Fact 8.3


@settings(max_examples=60, deadline=None)
@given(SEQS)
def test_fact83_on_random_sequences(case: tuple[int, list[int]]) -> None:
    """v = e_2, W_k = I give the raw bigram counts; v = e_1, W_k = 11^T the unigram counts (exactly)."""
    k, seq = case
    t = len(seq)
    x = np.array([seq])
    v1, v2 = np.eye(t)[0], np.eye(t)[1]
    assert mg.minimal_model_logits(x, np.eye(k), v2)[0].tolist() == tm.bigram_logits(seq, k)
    assert mg.minimal_model_logits(x, np.ones((k, k)), v1)[0].tolist() == tm.unigram_logits(seq, k)
    W, v = nm.bigram_construction(k, t)
    assert mg.minimal_model_logits(x, W, v)[0].tolist() == tm.bigram_logits(seq, k)


def test_minimal_model_against_its_definition() -> None:
    """f_{p,i} = sum_{t' <= p} 1{x_t' = i} sum_{s <= t'} v_{t'-s+1} W_k[x_p, x_s], by loops."""
    rng = np.random.default_rng(0)
    k, t = 3, 9
    x = rng.integers(0, k, size=(4, t))
    W, v = rng.normal(size=(k, k)), rng.normal(size=t)
    f = mg.minimal_model_logits(x, W, v)
    for n in range(4):
        for p in range(t):
            for i in range(k):
                ref = sum(
                    v[tp - s] * W[x[n, p], x[n, s]] for tp in range(p + 1) if x[n, tp] == i for s in range(tp + 1)
                )
                assert f[n, p, i] == pytest.approx(ref, abs=1e-12)


def test_construction_outputs_normalised_frequencies() -> None:
    """Prop. 8.2 (corrected): the softmax construction with c = 40 outputs c_{x_i, j}/N_{x_i} (x_0 := x_1)."""
    x = np.random.default_rng(1).integers(0, 3, size=(3, 30))
    out = mg.construction_outputs(x, 3, 40.0)
    for n in range(3):
        for i, freq in enumerate(tm.normalised_bigram_frequencies(x[n].tolist(), 3)):
            if freq is not None:
                np.testing.assert_allclose(out[n, i], [float(f) for f in freq], atol=1e-2)


# --- Eqs. (E.13), (E.26)-(E.38): exact finite-t gradients against enumeration of every chain


def _score(seqs: np.ndarray, W: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Per sequence of t + 1 tokens, (1/t) sum_p [f_{p, x_{p+1}} - (1/k) sum_i f_{p,i}]: minus the margin loss (8.7)
    with every hinge active, up to a constant. It is linear in W_k for fixed v and in v for fixed W_k, so a difference
    of unit steps is its exact gradient."""
    t = seqs.shape[1] - 1
    f = mg.minimal_model_logits(seqs[:, :t], W, v)
    fy = np.take_along_axis(f, seqs[:, 1:, None], axis=-1)[..., 0]
    return (fy - f.mean(axis=-1)).mean(axis=-1)


def _per_sequence_gradients(seqs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = seqs.shape[1] - 1
    ones, eye, v1 = np.ones((k, k)), np.eye(k), np.ones(t)
    base_w = _score(seqs, ones, v1)
    GW = np.zeros((len(seqs), k, k))
    for m in range(k):
        for l in range(k):
            step = np.zeros((k, k))
            step[m, l] = 1.0
            GW[:, m, l] = _score(seqs, ones + step, v1) - base_w
    GV = np.stack([_score(seqs, ones, v1 + np.eye(t)[j]) - base_w for j in range(t)], axis=1)
    base_i = _score(seqs, eye, v1)
    GI = np.stack([_score(seqs, eye, v1 + np.eye(t)[j]) - base_i for j in range(t)], axis=1)
    return GW, GV, GI


@pytest.mark.parametrize("t", [2, 3, 5])
def test_population_gradients_equal_enumeration_of_all_chains(t: int) -> None:
    """For fixed P, the matrix-power formulas of the step-1 and step-2 gradients equal the probability-weighted sum of
    the per-sequence gradients of the model itself over all 2^(t+1) stationary chains."""
    seqs = np.array(list(itertools.product((0, 1), repeat=t + 1)))
    GW_seq, GV_seq, GI_seq = _per_sequence_gradients(seqs, 2)
    np.testing.assert_allclose(mg.sample_v_gradients(seqs, 2), GV_seq, atol=1e-12)
    for a, b in ((0.3, 0.8), (0.9, 0.15), (0.5, 0.5)):
        P = np.array([[a, 1 - a], [1 - b, b]])
        pi = nm.stationary(P)[0]
        prob = pi[seqs[:, 0]] * np.prod(P[seqs[:, :-1], seqs[:, 1:]], axis=1)
        GW, GV, GI = mg._gradients_at(P[None], t)
        np.testing.assert_allclose(GW[0], np.einsum("n,nml->ml", prob, GW_seq), atol=1e-12)
        np.testing.assert_allclose(GV[0], prob @ GV_seq, atol=1e-12)
        np.testing.assert_allclose(GI[0], prob @ GI_seq, atol=1e-12)


def test_quadrature_rules() -> None:
    """The Duffy rule integrates pi's rational functions over [0, 1]^2: E[pi_1] = 1/2, E[pi_1^2 + pi_2^2] = 2 - ln 4."""
    a, b, w = mg.duffy_nodes(20)
    pi1 = (1 - b) / (2 - a - b)
    assert w.sum() == pytest.approx(1.0, abs=1e-13)
    assert w @ pi1 == pytest.approx(0.5, abs=1e-13)
    assert w @ (pi1**2 + (1 - pi1) ** 2) == pytest.approx(2 - np.log(4), abs=1e-12)
    a, _, w = mg.symmetric_nodes(10)
    assert w @ (2 * a - 1) ** 10 == pytest.approx(1 / 11, abs=1e-14)


@pytest.mark.parametrize("t", [5, 20])
def test_symmetric_prior_gradient_equals_cor_e2(t: int) -> None:
    """a = b: the quadrature of the matrix-power gradient equals the exact rational v update of Cor. E.2."""
    GV = mg.finite_t_gradients(t, prior="symmetric").GV
    np.testing.assert_allclose(GV, [float(tm.cor_e2_v_update(t, j)) for j in range(1, t + 1)], atol=1e-12)


def test_finite_t_gradients_t20() -> None:
    """Reference values at t = 20 (units c eta): W^(1) - c 11^T = [[4.083, 0.630], [0.630, 4.083]], v_1 = 1.270;
    the matrix is symmetric with equal diagonal (App. E.1)."""
    g = mg.finite_t_gradients(20)
    np.testing.assert_allclose(g.GW, [[4.083, 0.630], [0.630, 4.083]], rtol=1e-3)
    assert g.GV[0] == pytest.approx(1.270, rel=1e-3)
    assert g.GW[0, 1] == pytest.approx(g.GW[1, 0], rel=1e-12) and g.GW[0, 0] == pytest.approx(g.GW[1, 1], rel=1e-12)


def test_lemma84_and_K_quadrature_match_theory() -> None:
    assert mg.lemma84_quadrature("D") == pytest.approx(float(tm.lemma84_closed_form("D")), abs=1e-9)
    assert mg.lemma84_quadrature("E.25") == pytest.approx(float(tm.lemma84_closed_form("E.25")), abs=1e-9)
    assert mg.K_quadrature(2) == pytest.approx(float(tm.e43_corrected()), abs=1e-9)


# --- Monte Carlo estimates within 4 standard errors of exact values


def _within(mean: np.ndarray, se: np.ndarray, exact: np.ndarray) -> None:
    z = np.abs(np.asarray(mean) - np.asarray(exact)) / np.asarray(se)
    assert np.all(z <= Z), z


def test_mc_v_gradient_matches_exact_finite_t_gradient() -> None:
    rng = np.random.default_rng(3)
    P = nm.sample_transition_matrices(2, 20_000, "dirichlet", rng)
    g = mg.sample_v_gradients(nm.sample_sequences(P, 21, rng), 2)
    exact = mg.finite_t_gradients(20).GV
    js = [0, 1, 4, 19]
    _within(g[:, js].mean(0), g[:, js].std(0, ddof=1) / np.sqrt(len(g)), exact[js])


def test_mc_cor_e2_v_gradient() -> None:
    rng = np.random.default_rng(4)
    P = nm.sample_transition_matrices(2, 20_000, "symmetric", rng)
    g = mg.sample_v_gradients(nm.sample_sequences(P, 31, rng), 2)[:, :3]
    _within(g.mean(0), g.std(0, ddof=1) / np.sqrt(len(g)), [float(tm.cor_e2_v_update(30, j)) for j in (1, 2, 3)])


def test_mc_uniform_strategy_kl() -> None:
    rng = np.random.default_rng(5)
    P = nm.sample_transition_matrices(2, 40_000, "dirichlet", rng)
    v = mg.last_token_kl(P, nm.sample_sequences(P, 30, rng), "uniform")
    _within(v.mean(), v.std(ddof=1) / np.sqrt(v.size), float(tm.uniform_kl_two_state()))


@pytest.mark.parametrize("row", [(0, 0), (3, 1), (10, 2, 5), (0, 7, 1)])
def test_mc_expected_kl_given_counts(row: tuple[int, ...]) -> None:
    """Draws of P_{i,:} from the posterior Dir(1 + c): the bigram strategy's KL averages to the digamma formula."""
    c = np.array(row, dtype=float)
    draws = np.random.default_rng(6).dirichlet(c + 1, size=100_000)
    q = (c + 1) / (c.sum() + c.size)
    v = nm.kl(draws, np.broadcast_to(q, draws.shape))
    _within(v.mean(), v.std(ddof=1) / np.sqrt(v.size), float(tm.expected_kl_given_counts(row)))


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=2, max_size=2), st.lists(st.integers(1, 3), min_size=2, max_size=2))
def test_posterior_mean_by_quadrature(row: list[int], alpha: list[int]) -> None:
    """Prior times likelihood integrated over the simplex equals the conjugate posterior mean (8.3) corrected."""
    counts = [row, [0, 0]]
    exact = [float(m) for m in tm.posterior_mean(counts, alpha)[0]]
    np.testing.assert_allclose(mg.posterior_mean_quadrature(row, alpha), exact, atol=1e-10)


def test_counts_bayes_floor_is_below_the_unigram_strategy() -> None:
    """The Bayes predictor given (x_t, counts) beats the unigram strategy, which is a function of the counts."""
    floor, se = nm.mc_counts_bayes_kl(2, 20, 40_000, np.random.default_rng(8))
    uni, se_uni = nm.mc_strategy_kl(2, 20, "unigram", 40_000, np.random.default_rng(9))
    bigram, _ = nm.mc_strategy_kl(2, 20, "bigram", 40_000, np.random.default_rng(10))
    assert bigram < floor < uni + Z * np.hypot(se, se_uni)


# --- bad input


def test_bad_input() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="t must be >= 2"):
        mg.finite_t_gradients(1)
    with pytest.raises(ValueError, match="prior must be"):
        mg.finite_t_gradients(10, prior="beta")
    with pytest.raises(ValueError, match="need W"):
        mg.minimal_model_logits(np.zeros((1, 4), dtype=int), np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="range"):
        mg.minimal_model_logits(np.full((1, 4), 2), np.eye(2), np.ones(4))
    with pytest.raises(ValueError, match="j must be"):
        mg.K_quadrature(0)
    with pytest.raises(ValueError, match=r"unknown Lemma 8\.4 integral"):
        mg.lemma84_quadrature("E.99")
    with pytest.raises(ValueError, match="k = 2 or 3"):
        mg.posterior_mean_quadrature([1, 2, 3, 4], [1, 1, 1, 1])
    # negative or fractional counts: a ValueError naming counts_row, not NaN with a warning
    for bad in ((1, -2), (1.5, 2), (True, 1), (-1, 0, 2)):
        with pytest.raises(ValueError, match="counts_row must hold non-negative integer"):
            mg.posterior_mean_quadrature(bad, (1,) * len(bad))
        with pytest.raises(ValueError, match="counts_row must hold non-negative integer"):
            mg.expected_kl_quadrature(bad)
    for alpha in ((1, 0), (1, -1), (1, float("nan")), (1, 1, 1)):
        with pytest.raises(ValueError, match="alpha must hold 2 finite positive"):
            mg.posterior_mean_quadrature((1, 2), alpha)
    with pytest.raises(ValueError, match="k must be an integer >= 2"):
        nm.mc_counts_bayes_kl(1, 10, 100, rng)
    with pytest.raises(ValueError, match="t must be an integer >= 2"):
        nm.mc_counts_bayes_kl(2, 1, 100, rng)
    with pytest.raises(ValueError, match="unknown prior"):
        nm.mc_counts_bayes_kl(2, 10, 100, rng, prior="beta")
    with pytest.raises(ValueError, match="row-stochastic"):
        mg.last_token_kl(np.array([[[0.5, 0.6], [0.5, 0.5]]]), np.zeros((1, 3), dtype=np.int64), "uniform")
    with pytest.raises(ValueError, match="unknown strategy"):
        mg.last_token_kl(np.full((1, 2, 2), 0.5), np.zeros((1, 3), dtype=np.int64), "fourgram")


# ------------------------------------------------------------------ sizes checked from their cost (issue 32)


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: mg.K_quadrature(10**9), "j"),  # a matrix power at every node: ran for minutes
        (lambda: mg.finite_t_gradients(10**9), "t"),
        (lambda: mg.duffy_nodes(10**9), "t"),
        (lambda: mg.two_state_classes_by_runs(10**9), "t"),
        (lambda: mg.two_state_strategy_kl_quadrature(151), "t"),
        (lambda: mg.construction_outputs(np.zeros((1, 3), dtype=np.int64), 10**6), "k"),
        (lambda: mg.posterior_mean_quadrature([10**9, 1], [1, 1]), "counts_row"),
    ],
)
def test_quadrature_and_gradient_sizes_are_refused_at_once(call, param):
    import time

    from theory._checks import LimitError

    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 2.0 and info.value.param == param


@pytest.mark.parametrize(("values", "ts"), [([1.0, 2.0, 3.0], [10, 20]), ([1.0, 2.0], [10, 20, 40])])
def test_richardson_limit_needs_one_value_per_context_length(values, ts):
    """Three values with two lengths are refused, not extrapolated from the first two."""
    with pytest.raises(InputError) as info:
        mg.richardson_limit(values, ts)
    assert info.value.param == "ts"


@pytest.mark.parametrize(
    ("call", "nbytes", "shown", "held"),
    [
        # symmetric prior, t = 8: t // 2 + 16 = 20 nodes, one batch of 20; 12 arrays x 20 x 9 x 2 x 2 x 8 B = 67.5 KiB
        (lambda: mg.finite_t_gradients(8, "symmetric"), 12 * 20 * 9 * 4 * 8, "67.5 KiB", " and their sums"),
        # curriculum prior, t = 6: 3 + 16 = 19 nodes in batches of 7; 16 arrays x 7 x 7 x 2 x 2 x 8 B = 24.5 KiB
        (
            lambda: mg.bilinear_gradient_tensor(6, "curriculum", 0.25, chunk=7),
            16 * 7 * 7 * 4 * 8,
            "24.5 KiB",
            ", their ramp sums and the tensor",
        ),
    ],
)
def test_node_batches_are_checked_against_memory(call, nbytes, shown, held):
    """The memory of one batch of matrix powers is refused one byte above half the memory, naming ``chunk``."""
    from unittest import mock

    from theory._checks import LimitError

    with mock.patch("numerics.limits.available_memory", return_value=2 * nbytes):
        call()  # the batch fits exactly in half the memory
    with mock.patch("numerics.limits.available_memory", return_value=2 * nbytes - 2), pytest.raises(LimitError) as info:
        call()
    assert info.value.param == "chunk" and info.value.limit == nbytes - 1
    assert f"the matrix powers of a batch of nodes (chunk, t + 1, 2, 2){held} needs about {shown}, " in str(info.value)
    assert str(info.value).endswith("; use a smaller chunk")
