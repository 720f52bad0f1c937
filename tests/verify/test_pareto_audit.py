"""Audit of the Ch. 6 grid and width-buys-data judges (verify/claims/sparse_parity/pareto.py): WidthMonotone's
"every cell the same" test and its power boundary, WidthBuysData's strict "after the SQ floor". Oracles: hand-built
grids and per-seed t_c, numerics.stats' exact Fisher power, the docstrings' boundaries."""

from __future__ import annotations

import math

import numpy as np

from numerics.stats import fisher_drop_power
from tests.verify.test_sparse_parity_claims import _b8_obs  # one builder of width-buys-data observations
from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.sparse_parity import pareto

SYN = pareto.ParetoGridConfig(
    problems=((20, 3),),
    widths=(10, 100, 1000),
    samples=(100, 300, None),
    seeds=tuple(range(10)),
    steps=10,
    eval_every=5,
)
#: Detects a collapse 100% -> 0% at 10 seeds per cell.
POWERED = pareto.WidthMonotone(drop=(1.0, 0.0))


def _obs(counts: dict[str, list[list[int]]]) -> Observation:
    cells = [
        {"n": n, "k": k, "init": init, "m": m, "width": r, "successes": counts[init][i][j], "runs": len(SYN.seeds)}
        for n, k in SYN.problems
        for init in SYN.inits
        for i, m in enumerate(SYN.samples)
        for j, r in enumerate(SYN.widths)
    ]
    return Observation({}, details={"cells": cells})


def test_a_grid_with_two_success_counts_is_informative() -> None:
    """Only 'every cell has the same success rate' is uninformative: a monotone grid of 0/10 and 10/10 cells, with
    the frontier moving down with width, passes a powered judge (and its vectorised form agrees)."""
    grid = [[0, 0, 10], [0, 10, 10], [10, 10, 10]]
    verdict, reason = POWERED({}, _obs({"default": grid, "sparse": grid}), SYN)
    assert verdict == "pass", reason
    counts = np.array([[[grid, grid]]])  # (draws, problems, inits, m, r)
    got = pareto.grid_verdicts(counts, 10, SYN.samples, POWERED.alpha, POWERED.level, powered=True)
    assert got.tolist() == ["pass"]


def test_power_equal_to_the_minimum_is_enough() -> None:
    """'pass when [the power] is at least min_power': a judge whose min_power is exactly the grid's power passes
    the monotone grid; one a hair above it is underpowered."""
    grid = [[0, 3, 9], [2, 10, 9], [10, 10, 10]]
    pairs = len(SYN.inits) * len(SYN.samples) * math.comb(len(SYN.widths), 2)
    power = fisher_drop_power(1.0, 0.5, 10, 0.05 / pairs)
    at = pareto.WidthMonotone(min_power=power)
    assert at.power(10, pairs)["power"] == power
    assert at({}, _obs({"default": grid, "sparse": grid}), SYN)[0] == "pass"
    above = pareto.WidthMonotone(min_power=power + 1e-9)
    assert above({}, _obs({"default": grid, "sparse": grid}), SYN)[0] == "inconclusive"


def test_a_wide_success_at_the_sq_floor_is_not_after_it() -> None:
    """Prop. 6.3: for T <= T_max the iterates are independent of the target, so a success at step T_max itself is
    not 'after the SQ floor'; one step later is."""
    claim = registry()["edelman-ch6-width-buys-data"]
    cfg = claim.configs["quick"]
    pred = {**claim.predict(cfg), "sq_max_blind_steps_wide": 500}
    units = claim.judge.units(pred, _b8_obs([None, None], [500.0, 501.0]), cfg)
    assert ["SQ floor" in " ".join(u["problems"]) for u in units] == [True, False]
    assert units[1]["problems"] == []


def test_vectorised_verdicts_fail_a_wrong_way_frontier_and_keep_a_constant_grid_inconclusive() -> None:
    """grid_verdicts, the judge's verdict per drawn grid: a frontier that moves up with width fails without any
    significant pairwise drop; a grid whose cells all have the same count is inconclusive even when powered. The
    judge itself says the same on both grids."""
    wrong = [[5, 4, 4], [5, 5, 5], [10, 10, 10]]
    flat = [[7] * 3 for _ in range(3)]
    counts = np.array([[[wrong, wrong]], [[flat, flat]]])
    got = pareto.grid_verdicts(counts, 10, SYN.samples, POWERED.alpha, POWERED.level, powered=True)
    assert got.tolist() == ["fail", "inconclusive"]
    assert POWERED({}, _obs({"default": wrong, "sparse": wrong}), SYN)[0] == "fail"
    assert POWERED({}, _obs({"default": flat, "sparse": flat}), SYN)[0] == "inconclusive"


def test_vectorised_verdicts_read_the_online_row_as_m_infinity_wherever_it_is_listed() -> None:
    """samples may list the online regime (None = m infinite) first; the frontier (smallest m with success >= 1/2)
    is over m in increasing order, so here it is m = 300 at the widest width and infinite at the narrowest: no
    wrong-way move, and the judge and its vectorised form both pass."""
    cfg = pareto.ParetoGridConfig(
        problems=((20, 3),),
        widths=(10, 100, 1000),
        samples=(None, 100, 300),
        seeds=tuple(range(10)),
        steps=10,
        eval_every=5,
    )
    narrow_wide = [[6, 4, 4], [0, 0, 0], [0, 10, 10]]  # rows: online, m = 100, m = 300
    cells = [
        {"n": 20, "k": 3, "init": init, "m": m, "width": r, "successes": narrow_wide[i][j], "runs": 10}
        for init in cfg.inits
        for i, m in enumerate(cfg.samples)
        for j, r in enumerate(cfg.widths)
    ]
    verdict, reason = POWERED({}, Observation({}, details={"cells": cells}), cfg)
    assert verdict == "pass", reason
    counts = np.array([[[narrow_wide, narrow_wide]]])
    got = pareto.grid_verdicts(counts, 10, cfg.samples, POWERED.alpha, POWERED.level, powered=True)
    assert got.tolist() == ["pass"]


def test_blocks_that_are_each_constant_but_differ_are_inconclusive_and_the_reason_says_so() -> None:
    """A grid where one init succeeds in every cell and the other in none shows no effect of width or of the sample
    count within any (problem, init) block: inconclusive, by the judge and by its vectorised form alike, and the
    reason says the cells agree within each block (not that every cell of the grid has the same rate, which is
    false here)."""
    everywhere, nowhere = [[10] * 3 for _ in range(3)], [[0] * 3 for _ in range(3)]
    verdict, reason = POWERED({}, _obs({"default": everywhere, "sparse": nowhere}), SYN)
    assert verdict == "inconclusive"
    assert "within each (problem, init) block every cell has the same success rate" in reason
    counts = np.array([[[everywhere, nowhere]]])
    got = pareto.grid_verdicts(counts, 10, SYN.samples, POWERED.alpha, POWERED.level, powered=True)
    assert got.tolist() == ["inconclusive"]
