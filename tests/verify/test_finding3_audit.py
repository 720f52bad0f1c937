"""Audit of Finding (3)'s judge (verify/claims/sparse_parity/finding3.py, SparseGain): per cell pair one-sided Fisher
tests of a gain and of a drop at level alpha / (2C) (Bonferroni over both tests of every pair), a drop fails, a gain
passes only when powered at that level, the vectorised verdicts agree with the judge. Oracles: scipy's Fisher exact
test and hand-built grids whose p-values straddle the levels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import fisher_exact

from verify.claims.base import Observation
from verify.claims.sparse_parity.finding3 import SparseGain, sparse_gain_verdicts
from verify.claims.sparse_parity.pareto import ParetoGridConfig

#: Two cell pairs (widths 10 and 100 at one m), 10 seeds: 2C = 4 tests, level 0.05 / 4 = 0.0125.
CFG = ParetoGridConfig(
    problems=((20, 3),), widths=(10, 100), samples=(100,), seeds=tuple(range(10)), steps=10, eval_every=5
)
#: Powered at 10 seeds: the judged gain 0% -> 100% is detected at any level these tests use.
POWERED = SparseGain(gain=(0.0, 1.0))


def _p(a: int, b: int, runs: int = 10) -> float:
    """scipy's one-sided Fisher p-value of "b/runs is larger than a/runs"."""
    return fisher_exact([[b, runs - b], [a, runs - a]], alternative="greater")[1]


def _obs(dense: list[int], sparse: list[int]) -> Observation:
    cells = [
        {"n": 20, "k": 3, "init": init, "m": 100, "width": r, "successes": counts[j], "t_c": []}
        for init, counts in (("default", dense), ("sparse", sparse))
        for j, r in enumerate(CFG.widths)
    ]
    return Observation({}, details={"cells": cells})


def test_the_levels_used_below_straddle_alpha_over_2c() -> None:
    """The p-values of the hand-built pairs: 0 -> 5 of 10 lies in (alpha/2C, alpha/C), 1 -> 7 in (alpha/4C,
    alpha/2C), 0 -> 10 far below."""
    assert 0.0125 < _p(0, 5) < 0.025 and 0.00625 < _p(1, 7) < 0.0125 and _p(0, 10) < 1e-4


def test_a_significant_gain_in_one_pair_passes_when_powered() -> None:
    """Sparse 10/10 against dense 0/10 in the wide pair (the narrow pair equal): pass; read per pair, so a gain at
    the second width is found."""
    assert POWERED({}, _obs([3, 0], [3, 10]), CFG)[0] == "pass"


def test_a_gain_significant_only_at_alpha_over_c_is_not_enough() -> None:
    """Bonferroni over 2C tests: p = 0.016 > 0.05 / 4 is no significant gain (inconclusive, not pass)."""
    verdict, reason = POWERED({}, _obs([0, 5], [5, 5]), CFG)
    assert verdict == "inconclusive" and "no significant gain" in reason


def test_a_drop_at_the_level_fails_whatever_the_gains() -> None:
    """A drop 7 -> 1 of 10 (p = 0.0099 < 0.0125) fails, even next to a significant gain in the other pair."""
    verdict, reason = POWERED({}, _obs([0, 7], [10, 1]), CFG)
    assert verdict == "fail" and "significantly worse" in reason and "r=100" in reason


def test_a_drop_above_the_level_does_not_fail() -> None:
    """A drop 5 -> 0 of 10 (p = 0.016 > 0.0125) is not significant: with a gain elsewhere the verdict is pass."""
    assert POWERED({}, _obs([0, 5], [10, 0]), CFG)[0] == "pass"


def test_an_underpowered_judge_is_inconclusive_even_with_a_significant_gain() -> None:
    """The claim's judge (gain 50% -> 100%) has power 0.38 at 10 seeds and level 0.05/4 (0.83 only at level 0.05):
    a significant gain does not pass an underpowered test."""
    judge = SparseGain()
    assert judge._power(10, 4) < judge.min_power <= judge._power(10, 1)
    verdict, reason = judge({}, _obs([0, 3], [10, 3]), CFG)
    assert verdict == "inconclusive" and "underpowered" in reason


@pytest.mark.parametrize("seed", range(6))
def test_vectorised_verdicts_agree_with_the_judge(seed: int) -> None:
    """sparse_gain_verdicts (the flip-probability simulation) gives the judge's verdict on random grids, powered or
    not."""
    rng = np.random.default_rng(seed)
    for _ in range(20):
        dense, sparse = rng.integers(0, 11, size=2), rng.integers(0, 11, size=2)
        for judge in (POWERED, SparseGain()):
            verdict, _ = judge({}, _obs(dense.tolist(), sparse.tolist()), CFG)
            powered = judge._power(10, 4) >= judge.min_power
            got = sparse_gain_verdicts(dense[None], sparse[None], 10, judge.alpha, powered)
            assert got[0] == verdict, (dense, sparse, verdict, got)


def test_vectorised_verdicts_on_hand_built_grids() -> None:
    """A drop fails, a gain passes only when powered, nothing significant is inconclusive."""
    dense, sparse = np.array([[0, 7], [0, 3], [4, 4]]), np.array([[10, 1], [10, 3], [4, 4]])
    assert sparse_gain_verdicts(dense, sparse, 10, 0.05, True).tolist() == ["fail", "pass", "inconclusive"]
    assert sparse_gain_verdicts(dense, sparse, 10, 0.05, False).tolist() == ["fail", "inconclusive", "inconclusive"]
