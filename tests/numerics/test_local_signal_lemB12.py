"""Lemma B.12 (Karp thesis, App. B.2.2) for m frozen filters: ``numerics.local_signal.lemma_b12_event_probability``
(Gaussian box probabilities) against Lemma B.11's exact series at m = 1, a closed form without gates, scipy's
multivariate normal CDF, its own invariances, and the Monte Carlo of the event (docs/local_signal.md)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from numerics import local_signal as nl
from theory import local_signal as tl
from theory._checks import InputError, LimitError

D = 7
SIGMA = 0.4
W_STAR = np.full(D, 1 / np.sqrt(D))


def _instance(seed: int, m: int, weights: str = "random", bias: str = "half") -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal((m, D))
    a = np.abs(w0 @ W_STAR)
    v = w0 / np.linalg.norm(w0, axis=1)[:, None]
    w = {"random": rng.standard_normal((m, D)), "w0_dir": v, "w_star": np.tile(W_STAR, (m, 1))}[weights]
    b = {"none": np.zeros(m), "half": -a / 2, "edge": -(1 - 1e-9) * a, "deep": -1.5 * a * rng.random(m)}[bias]
    return w0, w, b


def _tol(*results: nl.LemmaB12Probabilities) -> float:
    return 1e-10 + sum(4 * r.error for r in results)


@pytest.mark.parametrize("weights", ["random", "w0_dir", "w_star"])
@pytest.mark.parametrize("bias", ["none", "half", "edge", "deep"])
def test_one_filter_is_lemma_b11s_exact_series(weights: str, bias: str) -> None:
    for seed in range(3):
        w0, w, b = _instance(seed, 1, weights, bias)
        res = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, b, 0.9, SIGMA))
        exact = tl.lemma_b11_event_probability(tuple(w0[0]), tuple(w[0]), tuple(W_STAR), float(b[0]), 0.9, SIGMA)
        assert abs(res.event - exact) <= 1e-12 and res.error <= 1e-10


def test_without_gates_the_event_is_one_gaussian_tail() -> None:
    # b >= 0 opens every gate: g(eps) = <sum_j w_j, eps>, P[A] = 2 Phi^c(C |<v, w_*>|/|v|), v = sum_j w_j
    for m in (2, 3, 4):
        w0, w, _ = _instance(m, m)
        res = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, np.full(m, 0.3), 1.2, SIGMA), nodes=8)
        v = w.sum(axis=0)
        assert abs(res.event - 2 * stats.norm.sf(1.2 * abs(v @ W_STAR) / np.linalg.norm(v))) <= _tol(res)
        assert res.gates_match == pytest.approx(1.0, abs=1e-12) and res.open_on_signal == tuple(range(m))


def test_shut_signal_gates_give_probability_one() -> None:
    w0, w, _ = _instance(4, 3)
    b = -2 * np.abs(w0 @ W_STAR)  # every gate shut on the signal row: g(w_*) = 0
    res = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, b, 1.0, SIGMA), nodes=8)
    assert res.event == 1.0 and res.g_star == 0 and res.open_on_signal == () and res.proof_lower_bound == 1.0


def _scipy_event(w0: np.ndarray, w: np.ndarray, b: np.ndarray, C: float) -> float:
    """P[A] summed over gate patterns and the sign boxes of each, by scipy's multivariate normal CDF (Genz's
    randomised lattice rule, abseps 1e-7): an independent route for regular covariances."""
    m = w0.shape[0]
    v = w0 / np.linalg.norm(w0, axis=1)[:, None]
    beta = np.maximum(0.0, -b) / (SIGMA * np.linalg.norm(w0, axis=1))
    open_star = [j for j in range(m) if abs(w0[j] @ W_STAR) + b[j] >= 0]
    t = C * abs(w[open_star].sum(axis=0) @ W_STAR)
    total = 0.0
    for P in itertools.product([False, True], repeat=m):
        if not any(P):  # g = 0 on a row that opens no gate: not in A (t > 0)
            continue
        vP = w[list(P)].sum(axis=0)
        cov = np.block([[v @ v.T, (v @ vP)[:, None]], [(v @ vP)[None, :], np.array([[vP @ vP]])]])
        # gate j open: G_j <= -beta_j or G_j >= beta_j; shut: |G_j| < beta_j; event: |L| >= t
        choices = [[(-np.inf, -bj), (bj, np.inf)] if Pj else [(-bj, bj)] for Pj, bj in zip(P, beta)]
        for box in itertools.product(*choices, [(-np.inf, -t), (t, np.inf)]):
            lo, hi = np.array([x[0] for x in box]), np.array([x[1] for x in box])
            total += stats.multivariate_normal.cdf(
                hi, np.zeros(m + 1), cov, lower_limit=lo, abseps=1e-7, releps=0, maxpts=1_000_000, rng=0
            )
    return total


@pytest.mark.parametrize("m", [2, pytest.param(3, marks=pytest.mark.slow(reason="25 s of scipy's lattice rule"))])
def test_agrees_with_scipys_multivariate_normal_cdf(m: int) -> None:
    w0, w, b = _instance(10 + m, m, "random", "half")
    res = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, b, 1.0, SIGMA), nodes=10)
    assert abs(res.event - _scipy_event(w0, w, b, 1.0)) <= 1e-5


def test_a_finer_rule_agrees_within_the_error_estimate() -> None:
    for weights, bias in (("w0_dir", "edge"), ("w_star", "edge"), ("random", "deep")):
        w0, w, b = _instance(20, 3, weights, bias)
        coarse = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, b, 1.0, SIGMA), nodes=8)
        fine = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, b, 1.0, SIGMA), nodes=16)
        assert abs(coarse.event - fine.event) <= _tol(coarse, fine)
        assert abs(coarse.gates_match - fine.gates_match) <= 1e-10 + 4 * (coarse.proof_error + fine.proof_error)


@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    m=st.integers(2, 3),
    weights=st.sampled_from(["random", "w0_dir", "w_star"]),
    bias=st.sampled_from(["none", "half", "edge", "deep"]),
    perm_seed=st.integers(0, 100),
)
def test_invariant_under_sign_flips_and_permutations_of_the_filters(
    seed: int, m: int, weights: str, bias: str, perm_seed: int
) -> None:
    w0, w, b = _instance(seed, m, weights, bias)
    base = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, b, 1.0, SIGMA), nodes=6)
    perm = np.random.default_rng(perm_seed).permutation(m)
    signs = np.where(np.random.default_rng(perm_seed + 1).random(m) < 0.5, -1.0, 1.0)[:, None]
    variants = (
        nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, -w, W_STAR, b, 1.0, SIGMA), nodes=8),  # g -> -g
        nl.lemma_b12_event_probability(
            nl.LemmaB12Event(signs * w0, w, W_STAR, b, 1.0, SIGMA), nodes=6
        ),  # the gates use |<w0_j, x>|
        nl.lemma_b12_event_probability(nl.LemmaB12Event(w0[perm], w[perm], W_STAR, b[perm], 1.0, SIGMA), nodes=6),
    )
    for other in variants:
        assert abs(other.event - base.event) <= _tol(base, other)
        assert abs(other.gates_match - base.gates_match) <= 1e-10 + 4 * (base.proof_error + other.proof_error)
        assert abs(other.e1_e2 - base.e1_e2) <= 1e-10 + 4 * (base.proof_error + other.proof_error)
    # the proof's containment E_1 and E_2 => M(eps) = M(w_*)
    assert base.e1_e2 <= base.gates_match + 1e-10 + 4 * base.proof_error


def test_monte_carlo_is_the_direct_frequency_and_agrees() -> None:
    w0, w, b = _instance(30, 3, "random", "half")
    C, n = 0.8, 40_000
    p, se = nl.lemma_b12_event_mc(nl.LemmaB12Event(w0, w, W_STAR, b, C, SIGMA), n, seed=5, chunk=15_000)
    eps = SIGMA * np.random.default_rng(5).standard_normal((n, D))  # the same draws, the event written out
    gates = np.abs(eps @ w0.T) + b >= 0  # (n, m)
    g = np.sum((eps @ w.T) * gates, axis=1)
    g_star = sum(w[j] @ W_STAR for j in range(3) if abs(w0[j] @ W_STAR) + b[j] >= 0)
    assert p == np.mean(np.abs(g) >= C * SIGMA * abs(g_star)) and se > 0
    res = nl.lemma_b12_event_probability(nl.LemmaB12Event(w0, w, W_STAR, b, C, SIGMA), nodes=10)
    assert abs(p - res.event) <= 4 * se
    assert res.proof_lower_bound <= p + 4 * se


def test_lemma_b11_mc_is_the_one_filter_case() -> None:
    """Lemma B.11's one filter given as vectors and a scalar bias is the m = 1 event (the same draws)."""
    w0, w, b = _instance(31, 1)
    one = nl.LemmaB12Event(w0[0], w[0], W_STAR, float(b[0]), 1.0, SIGMA)
    assert one.w0.shape == (1, D) and one.b.shape == (1,)
    as_rows = nl.LemmaB12Event(w0, w, W_STAR, b, 1.0, SIGMA)
    assert nl.lemma_b12_event_mc(one, 3000, seed=4, chunk=1000) == nl.lemma_b12_event_mc(
        as_rows, 3000, seed=4, chunk=1000
    )


def test_inputs_are_checked() -> None:
    """The event's inputs are checked when it is made, the methods' own arguments by each; each refusal names the
    argument."""
    w0, w, b = _instance(32, 2)
    args = {"w0": w0, "w": w, "w_star": W_STAR, "b": b, "C": 1.0, "sigma": SIGMA}
    for bad, name in (
        ({"w": w[:1]}, "w"),
        ({"w0": w0[:, :3]}, "w0"),
        ({"b": [0.0, 0.0, 0.0]}, "b"),
        ({"C": 0.0}, "C"),
        ({"sigma": -1.0}, "sigma"),
    ):
        with pytest.raises(ValueError, match=name):
            nl.LemmaB12Event(**(args | bad))
    event = nl.LemmaB12Event(**args)
    for bad, name in (({"w0": np.zeros((2, D))}, "w0"), ({"w_star": 2 * W_STAR}, "w_star")):  # the quadrature's
        with pytest.raises(ValueError, match=name):
            nl.lemma_b12_event_probability(nl.LemmaB12Event(**(args | bad)))
    with pytest.raises(ValueError, match="nodes"):
        nl.lemma_b12_event_probability(event, nodes=2)
    with pytest.raises(LimitError) as info:
        nl.lemma_b12_event_probability(event, nodes=10**6)
    assert info.value.param == "nodes"
    with pytest.raises(LimitError) as info:
        nl.lemma_b12_event_probability(nl.LemmaB12Event(np.ones((20, D)), np.ones((20, D)), W_STAR, 0.0, 1.0, SIGMA))
    assert info.value.param == "w0"
    with pytest.raises(ValueError, match="n"):
        nl.lemma_b12_event_mc(event, 1, seed=0)
    for call in (lambda: nl.lemma_b12_event_mc(args, 100, seed=0), lambda: nl.lemma_b12_event_probability(args)):
        with pytest.raises(ValueError, match="event"):
            call()


def test_probabilities_refuse_anything_but_a_reduction():
    with pytest.raises(InputError) as err:
        nl.lemma_b12_probabilities({"patterns": ()})  # type: ignore[arg-type]
    assert err.value.param == "reduction"
