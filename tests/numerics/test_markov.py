"""numerics/markov.py: priors, stationary laws, sampling, strategies against brute force, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import markov as nm


def _brute_force(seq: np.ndarray, k: int, strategy: str) -> np.ndarray:
    t = len(seq)
    out = np.empty((t, k))
    for p in range(t):
        if strategy == "uniform":
            out[p] = 1.0 / k
        elif strategy == "unigram":
            out[p] = [(np.sum(seq[: p + 1] == j) + 1) / (p + 1 + k) for j in range(k)]
        elif strategy == "trigram":  # counts of (x_{p-1}, x_p, j) among the triples seen so far; none at p = 0
            c = [
                sum(1 for s in range(p - 1) if (seq[s], seq[s + 1], seq[s + 2]) == (seq[p - 1], seq[p], j))
                for j in range(k)
            ]
            out[p] = [(cj + 1) / (sum(c) + k) for cj in c]
        else:
            c = [sum(1 for s in range(p) if seq[s] == seq[p] and seq[s + 1] == j) for j in range(k)]
            out[p] = [(cj + 1) / (sum(c) + k) for cj in c]
    return out


@pytest.mark.parametrize("prior", nm.PRIORS)
@pytest.mark.parametrize("k", [2, 3, 4])
def test_priors_are_stochastic(prior: str, k: int) -> None:
    if prior == "symmetric" and k != 2:
        pytest.skip("k = 2 only")
    P = nm.sample_transition_matrices(k, 200, prior, np.random.default_rng(0))
    assert P.shape == (200, k, k) and P.min() >= 0
    np.testing.assert_allclose(P.sum(-1), 1.0, atol=1e-12)
    if prior in ("doubly_stochastic", "symmetric"):
        np.testing.assert_allclose(P.sum(1), 1.0, atol=1e-12)
        np.testing.assert_allclose(nm.stationary(P), 1.0 / k, atol=1e-9)
    if prior == "unigrams":
        np.testing.assert_allclose(P, np.repeat(P[:, :1], k, axis=1))


def _same_state(a: object, b: object) -> bool:
    """Equal bit-generator states (dicts of ints, strings and arrays)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_state(a[key], b[key]) for key in a)
    return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.Philox, np.random.MT19937])
@pytest.mark.parametrize(("k", "n", "block"), [(2, 5, 1 << 14), (3, 100, 7), (4, 64, 1 << 14), (4, 30, 1000)])
def test_birkhoff_rejection_replays_the_rounds_bit_for_bit(bit_generator, k: int, n: int, block: int) -> None:
    """Same matrices and same generator state after the call as drawing round by round, for a generator with
    ``advance`` (PCG64, Philox: a buffered 32-bit half kept) and one without (MT19937), at any block size."""
    fast, slow = (np.random.Generator(bit_generator(11)) for _ in range(2))
    for rng in (fast, slow):
        rng.integers(0, 10, dtype=np.uint32)  # leaves half a 64-bit output buffered where the generator does that
    np.testing.assert_array_equal(nm._birkhoff_rejection(k, n, fast, block), nm._birkhoff_rounds(k, n, slow))
    assert _same_state(fast.bit_generator.state, slow.bit_generator.state)
    np.testing.assert_array_equal(fast.random(5), slow.random(5))


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_completes_is_the_non_negative_completion(k: int) -> None:
    """``_completes`` (entries tested one at a time on the survivors) keeps exactly the blocks whose completed
    matrix is non-negative, at scales where few, some and most blocks complete, on eighths (rows, columns and
    corners summing to exactly 1: an entry exactly 0 is kept) and on no blocks at all."""
    rng = np.random.default_rng(k)
    eighths = rng.integers(0, 5, (4000, k - 1, k - 1)) / 8
    for B in [rng.random((4000, k - 1, k - 1)) * scale for scale in (1.0, 2.0 / k, 1.0 / k, 0.5 / k)] + [eighths]:
        want = nm._completed(B).min(axis=(1, 2)) >= 0
        got = nm._completes(B)
        np.testing.assert_array_equal(got, want)
    assert (nm._completed(eighths).min(axis=(1, 2)) == 0).any()
    assert nm._completes(np.empty((0, k - 1, k - 1))).shape == (0,)


def test_stationary_and_k2_closed_form() -> None:
    P = nm.sample_transition_matrices(3, 100, "dirichlet", np.random.default_rng(1))
    pi = nm.stationary(P)
    np.testing.assert_allclose(np.einsum("ni,nij->nj", pi, P), pi, atol=1e-12)
    np.testing.assert_allclose(pi.sum(-1), 1.0, atol=1e-12)
    a, b = 0.3, 0.8  # App. E.1: pi = (1 - b, 1 - a)/(2 - a - b)
    np.testing.assert_allclose(nm.stationary(np.array([[a, 1 - a], [1 - b, b]])), [[0.2 / 0.9, 0.7 / 0.9]])


def test_sequences_follow_the_chain() -> None:
    P = np.array([[[0.9, 0.1], [0.3, 0.7]]])
    x = nm.sample_sequences(np.repeat(P, 4000, axis=0), 30, np.random.default_rng(2))
    assert x.shape == (4000, 30) and x.dtype == np.int64
    pi = nm.stationary(P)[0]
    assert abs(np.mean(x[:, 0] == 1) - pi[1]) < 4 * np.sqrt(pi[1] * pi[0] / 4000)
    frac = np.mean(x[:, 1:][x[:, :-1] == 0] == 1)
    assert abs(frac - 0.1) < 0.01


@pytest.mark.parametrize("strategy", ["uniform", "unigram", "bigram", "trigram"])
def test_strategies_against_brute_force(strategy: str) -> None:
    x = nm.sample_sequences(
        nm.sample_transition_matrices(3, 5, rng=np.random.default_rng(3)), 25, np.random.default_rng(4)
    )
    got = nm.strategy_probs(x, 3, strategy)
    for n in range(5):
        np.testing.assert_allclose(got[n], _brute_force(x[n], 3, strategy), atol=1e-15)
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-12)


def test_transition_counts_match_bigram() -> None:
    x = nm.sample_sequences(
        nm.sample_transition_matrices(2, 6, rng=np.random.default_rng(5)), 20, np.random.default_rng(6)
    )
    C = nm.transition_counts(x, 2)
    c = C[np.arange(6)[:, None], np.arange(20)[None, :], x]  # row of the current token
    np.testing.assert_allclose(nm.strategy_probs(x, 2, "bigram"), (c + 1) / (c.sum(-1, keepdims=True) + 2))
    assert C[:, -1].sum(axis=(1, 2)).tolist() == [19] * 6


def test_kl_and_true_next() -> None:
    p = np.array([[0.5, 0.5, 0.0]])
    np.testing.assert_allclose(nm.kl(p, np.array([[0.25, 0.25, 0.5]])), [np.log(2)])
    assert nm.kl(p, p)[0] == 0.0
    P = nm.sample_transition_matrices(2, 3, rng=np.random.default_rng(7))
    x = nm.sample_sequences(P, 5, np.random.default_rng(8))
    np.testing.assert_allclose(nm.true_next(P, x)[1, 2], P[1, x[1, 2]])


def test_uniform_strategy_kl_matches_exact_value() -> None:
    """k = 2: the uniform strategy's KL at the last token is ln 2 - E_pi[H(row)]; compared with 2-D quadrature."""
    from scipy.integrate import dblquad

    def integrand(a: float, b: float) -> float:
        pi0, pi1 = (1 - b) / (2 - a - b), (1 - a) / (2 - a - b)
        h = lambda q: -(q * np.log(q) + (1 - q) * np.log(1 - q))  # noqa: E731
        return np.log(2) - pi0 * h(a) - pi1 * h(b)

    exact = dblquad(integrand, 0, 1, 0, 1, epsabs=1e-10)[0]
    mean, se = nm.mc_strategy_kl(2, 100, "uniform", 40_000, np.random.default_rng(9))
    assert abs(mean - exact) < 4 * se


def test_induction_targets_and_constructions() -> None:
    x = np.array([[0, 1, 0, 0, 1]])
    tg = nm.induction_targets(x)[0]
    assert np.flatnonzero(tg[4]).tolist() == [2]  # x_4 = 1 follows nothing but x_2 = 1 (1-based: j = 3)
    assert np.flatnonzero(tg[3]).tolist() == [1, 3]
    W, v = nm.bigram_construction(3, 10)
    assert (np.eye(3) == W).all() and np.argmax(v) == 1


def test_trigram_chains() -> None:
    T = nm.sample_ngram_tables(2, 3, 3000, np.random.default_rng(10))
    x = nm.sample_ngram_sequences(T, 12, np.random.default_rng(11))
    truth = nm.true_next_ngram(T, x)
    assert truth.shape == (3000, 11, 2)
    ctx = x[:, 0] * 2 + x[:, 1]
    np.testing.assert_allclose(truth[:, 0], T[np.arange(3000), ctx])


def test_bad_input() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="k must be"):
        nm.sample_transition_matrices(1, 3, rng=rng)
    with pytest.raises(ValueError, match="unknown prior"):
        nm.sample_transition_matrices(2, 3, "beta", rng)
    with pytest.raises(ValueError, match="k = 2 only"):
        nm.sample_transition_matrices(3, 3, "symmetric", rng)
    with pytest.raises(ValueError, match="row-stochastic"):
        nm.stationary(np.array([[0.5, 0.6], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="t must be"):
        nm.sample_sequences(np.eye(2)[None] * 0.5 + 0.25, 1, rng)
    with pytest.raises(ValueError, match="unique stationary"):
        nm.stationary(np.eye(2))
    with pytest.raises(ValueError, match="unknown strategy"):
        nm.strategy_probs(np.zeros((1, 3), dtype=np.int64), 2, "fourgram")
    with pytest.raises(ValueError, match="range"):
        nm.strategy_probs(np.full((1, 3), 5), 2, "bigram")
    with pytest.raises(TypeError, match="Generator"):
        nm.sample_transition_matrices(2, 3)


# ------------------------------------------------------------------ sizes checked from their cost (issue 32)


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: nm.mc_strategy_kl(2, 8, "bigram", 10**12, np.random.default_rng(0)), "n"),
        (lambda: nm.mc_strategy_kl(2, 10**9, "bigram", 10, np.random.default_rng(0)), "t"),
        (lambda: nm.mc_counts_bayes_kl(2, 8, 10**12, np.random.default_rng(0)), "n"),
        (lambda: nm.mc_counts_bayes_kl(10, 10**6, 10, np.random.default_rng(0)), "k"),
        (lambda: nm.sample_transition_matrices(3, 10**12, rng=np.random.default_rng(0)), "n"),
        (lambda: nm.sample_transition_matrices(5, 1000, "doubly_stochastic", np.random.default_rng(0)), "n"),
        (lambda: nm.sample_sequences(np.full((1, 2, 2), 0.5), 10**9, np.random.default_rng(0)), "t"),
        (lambda: nm.transition_counts(np.zeros((1, 4), dtype=np.int64), 10**6), "k"),
        (lambda: nm.sample_ngram_tables(2, 100, 1, np.random.default_rng(0)), "order"),
    ],
)
def test_monte_carlo_counts_are_capped_from_their_cost(call, param):
    """n = 10**12 chains ran forever or died in a MemoryError: refused at once, naming the parameter."""
    import time

    from theory._checks import LimitError

    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 2.0 and info.value.param == param
