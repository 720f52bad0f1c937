"""The exact k = 2 strategy KLs at the last token (theory/markov.py, App. E.2; docs/markov.md): the transition-count
classes against brute-force enumeration, the integrals ``E[monomial/(2 - a - b)] = r + s ln 2`` against mpmath
quadrature, the total probability, the KLs against a direct per-sequence quadrature and against Monte Carlo
(hypothesis, within 4 standard errors), and bad input."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import markov as nm
from theory import markov as tm
from theory._checks import LimitError


def _class_of(seq: tuple[int, ...]) -> tuple[int, ...]:
    c = [0, 0, 0, 0]
    for x, y in itertools.pairwise(seq):
        c[2 * x + y] += 1
    return (seq[0], seq[-1], *c)


@pytest.mark.parametrize("t", range(2, 11))
def test_transition_count_classes_enumerate_every_sequence(t: int) -> None:
    """The dynamic programme's class sizes equal a count over all 2^t sequences."""
    brute: dict[tuple[int, ...], int] = {}
    for seq in itertools.product((0, 1), repeat=t):
        key = _class_of(seq)
        brute[key] = brute.get(key, 0) + 1
    assert tm.transition_count_classes(t) == brute


@settings(max_examples=12, deadline=None, derandomize=True)
@given(e=st.tuples(*[st.integers(0, 4)] * 4))
def test_stationary_monomial_integral_against_mpmath(e: tuple[int, int, int, int]) -> None:
    """``E[a^al (1-a)^be (1-b)^ga b^de / (2 - a - b)] = r + s ln 2`` against 2-D mpmath quadrature."""
    al, be, ga, de = e
    r, s = tm.stationary_monomial_integral(al, be, ga, de)
    with mpmath.workdps(30):
        ref = mpmath.quad(lambda a, b: a**al * (1 - a) ** be * (1 - b) ** ga * b**de / (2 - a - b), [0, 1], [0, 1])
        got = mpmath.mpf(r.numerator) / r.denominator + mpmath.mpf(s.numerator) / s.denominator * mpmath.log(2)
        assert abs(got - ref) < mpmath.mpf(10) ** -15


@pytest.mark.parametrize("p,q", [(0, 0), (1, 0), (3, 2), (5, 1), (4, 4)])
def test_stationary_integral_symmetric(p: int, q: int) -> None:
    """``int int u^p w^q/(u+w)`` is symmetric in (p, q) exactly (the recursion only runs in one direction)."""
    assert tm.stationary_monomial_integral(0, p, q, 0) == tm.stationary_monomial_integral(0, q, p, 0)


@pytest.mark.parametrize("t", [2, 3, 8, 15])
def test_class_probabilities_sum_to_one(t: int) -> None:
    probs = tm.next_token_class_probabilities(t).values()
    assert sum(r for r, _ in probs) == 1 and sum(s for _, s in probs) == 0


def _direct_kl(t: int, strategy: str) -> float:
    """Sum over all 2^t sequences of the integral over (a, b) of P(seq) KL(P_{x_t,:} || q(seq)) (mpmath)."""
    seqs = list(itertools.product((0, 1), repeat=t))
    qs = [[float(v) for v in tm.strategy_probs(s, 2, strategy)] for s in seqs]

    def f(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
        P = [[a, 1 - a], [1 - b, b]]
        pi = [(1 - b) / (2 - a - b), (1 - a) / (2 - a - b)]
        total = mpmath.mpf(0)
        for s, q in zip(seqs, qs):
            prob = pi[s[0]] * mpmath.fprod(P[x][y] for x, y in itertools.pairwise(s))
            row = P[s[-1]]
            total += prob * sum(row[j] * mpmath.log(row[j] / q[j]) for j in (0, 1) if row[j] > 0)
        return total

    with mpmath.workdps(20):
        return float(mpmath.quad(f, [0, 1], [0, 1]))


@pytest.mark.parametrize("strategy", ["unigram", "bigram"])
def test_strategy_kl_against_direct_quadrature(strategy: str) -> None:
    """t = 3: the exact finite sum against the KL integrated sequence by sequence (no classes, no r + s ln 2)."""
    assert float(tm.two_state_strategy_kl(3, strategy)) == pytest.approx(_direct_kl(3, strategy), abs=1e-10)


@pytest.mark.parametrize("t", [2, 7, 50])
def test_uniform_is_the_closed_form_at_every_t(t: int) -> None:
    assert tm.two_state_strategy_kl(t, "uniform") == tm.uniform_kl_two_state()


def test_strategy_kls_decrease_with_t_and_bigram_approaches_asymptotic() -> None:
    """More context helps both strategies; the bigram KL approaches k(k-1)/(2t) = 1/t from below at t = 40."""
    uni = [float(tm.two_state_strategy_kl(t, "unigram")) for t in (5, 10, 20)]
    bi = [float(tm.two_state_strategy_kl(t, "bigram")) for t in (5, 10, 20, 40)]
    assert uni == sorted(uni, reverse=True) and bi == sorted(bi, reverse=True)
    assert 0.8 < bi[-1] * 40 < 1.0


@settings(max_examples=6, deadline=None, derandomize=True)
@given(t=st.integers(2, 12), strategy=st.sampled_from(["unigram", "bigram"]), seed=st.integers(0, 2**16))
def test_strategy_kl_within_4_standard_errors_of_monte_carlo(t: int, strategy: str, seed: int) -> None:
    """Sampled chains (numerics.markov) estimate the exact value within 4 standard errors (derandomized examples)."""
    mean, se = nm.mc_strategy_kl(2, t, strategy, 20_000, np.random.default_rng(seed))
    assert abs(mean - float(tm.two_state_strategy_kl(t, strategy))) <= 4 * se


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="t"):
        tm.two_state_strategy_kl(1, "bigram")
    with pytest.raises(LimitError, match="t <= 100"):
        tm.two_state_strategy_kl(tm.MAX_EXACT_T + 1, "bigram")
    with pytest.raises(ValueError, match="unknown strategy"):
        tm.two_state_strategy_kl(5, "trigram")
    with pytest.raises(ValueError, match="alpha"):
        tm.stationary_monomial_integral(-1, 0, 0, 0)
    assert math.isfinite(float(tm.two_state_strategy_kl(2, "bigram")))
