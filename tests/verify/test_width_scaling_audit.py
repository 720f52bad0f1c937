"""Audit of the seed-block judges of Fig. 5.1 right (verify/claims/sparse_parity/scaling.py, LocalSlopeLaw) and
Fig. 5.4 left (verify/claims/sparse_parity/width.py, WidthPlateau): strict 'below the boundary' and 'grows with k',
every interval, degree pair and width pair checked, a non-finite median failing its block, the boundary (not another
law) read from the prediction, and the width aggregate's blocks in seed order. Oracles: hand-built block slopes and
medians against hand-set boundaries, numpy medians of consecutive seeds."""

from __future__ import annotations

import numpy as np
import pytest

from verify.claims.base import Observation
from verify.claims.sparse_parity.scaling import LocalSlopeConfig, LocalSlopeLaw
from verify.claims.sparse_parity.width import WidthConfig, WidthPlateau, _aggregate, _cells
from verify.sweep import CellResult

SCFG = LocalSlopeConfig(
    ns=(10, 20, 40), ks=(2, 3, 4), seeds=tuple(range(4)), block=2, eval_every=((2, 5), (3, 5), (4, 5))
)


def _laws(boundary: float = 3.0, random_search: float = 9.0) -> dict:
    law = {"fourier_gap_law": 1.0, "random_search_law": random_search, "boundary": boundary}
    return {
        "laws": {iv: {str(k): dict(law) for k in SCFG.ks} for iv in ("10-20", "20-40")},
        "random_search_block_rate": 0.0,
    }


def _slope_problems(slopes: dict[int, list[float]], predicted: dict | None = None) -> list[str]:
    obs = Observation(None, details={"blocks": [{"label": "b", "slopes": {str(k): v for k, v in slopes.items()}}]})
    return LocalSlopeLaw().units(predicted or _laws(), obs, SCFG)[0]["problems"]


GOOD = {2: [1.0, 1.1], 3: [2.0, 2.1], 4: [2.9, 2.95]}


def test_slopes_below_the_boundary_growing_with_k_succeed() -> None:
    """Every slope below its boundary and growing with k on both intervals: no problem."""
    assert _slope_problems(GOOD) == []


def test_a_slope_at_the_boundary_fails() -> None:
    """'below the boundary': a slope equal to it is not below."""
    problems = _slope_problems({**GOOD, 4: [2.9, 3.0]})
    assert len(problems) == 1 and "n 20->40, k=4" in problems[0]


def test_slopes_must_grow_strictly_with_k_on_every_interval_and_degree_pair() -> None:
    """Equal slopes at k = 3 and 4 on the second interval fail (only there: the other pairs grow)."""
    problems = _slope_problems({**GOOD, 4: [2.9, 2.1]})
    assert len(problems) == 1 and "slope k=4" in problems[0] and "20->40" in problems[0]


def test_a_non_finite_slope_fails_its_block() -> None:
    """A slope that is not finite (over half a block unconverged) fails the block."""
    problems = _slope_problems({**GOOD, 2: [1.0, float("nan")]})
    assert any("not finite" in p for p in problems)


def test_the_judge_reads_the_boundary_not_the_random_search_law() -> None:
    """A slope between the boundary (3) and random search's law (9) is nearer C(n,k): it fails."""
    problems = _slope_problems({**GOOD, 4: [2.9, 5.0]}, _laws(boundary=3.0, random_search=9.0))
    assert len(problems) == 1 and "boundary 3" in problems[0]


WCFG = WidthConfig(n=20, k=3, widths=(10, 100, 1000), seeds=tuple(range(4)), block=2)
WPRED = {"pairs": {"10-100": {"boundary": 3.0}, "100-1000": {"boundary": 3.0}}, "random_search_block_rate": 0.0}


def _width_problems(medians: dict[int, float]) -> list[str]:
    obs = Observation(None, details={"blocks": [{"label": "b", "medians": {str(r): m for r, m in medians.items()}}]})
    return WidthPlateau().units(WPRED, obs, WCFG)[0]["problems"]


def test_width_speedup_is_narrow_over_wide_and_strictly_below_the_boundary() -> None:
    """speedup t_c(r_lo)/t_c(r_hi): 2 passes; 4 fails (not its inverse 1/4); exactly the boundary 3 fails; every
    consecutive pair is checked (a failure in the second pair alone fails the block)."""
    assert _width_problems({10: 400.0, 100: 200.0, 1000: 100.0}) == []
    assert "speedup 4" in _width_problems({10: 400.0, 100: 100.0, 1000: 80.0})[0]
    assert _width_problems({10: 300.0, 100: 100.0, 1000: 80.0})
    problems = _width_problems({10: 200.0, 100: 150.0, 1000: 30.0})
    assert len(problems) == 1 and "r 100->1000" in problems[0]


def test_a_width_median_not_finite_fails_the_block() -> None:
    """Over half of a block unconverged at either width: its median is inf, no speedup can be read."""
    assert "not finite" in _width_problems({10: 400.0, 100: np.inf, 1000: 100.0})[0]
    assert "not finite" in _width_problems({10: np.inf, 100: 300.0, 1000: 200.0})[0]


def _width_results(tc: dict[int, list[float]], diverged: float = np.inf) -> list[CellResult]:
    out = []
    for cell in _cells(WCFG):
        t = np.array(tc[cell.config.width], dtype=float)
        value = {"seeds": list(cell.seeds), "t_c": t, "diverged_at": np.full(len(t), diverged)}
        out.append(CellResult(cell, value, 1.0))
    return out


def test_width_blocks_are_consecutive_seeds_in_seed_order() -> None:
    """Blocks of 2 consecutive seeds: at r = 10 t_c (100, 300 | 200, 400) gives block medians 200 and 300 (not the
    medians of the sorted times)."""
    tc = {10: [100.0, 300.0, 200.0, 400.0], 100: [50.0, 150.0, 100.0, 200.0], 1000: [40.0, 120.0, 80.0, 160.0]}
    obs = _aggregate(WCFG, _width_results(tc))
    got = [b["medians"]["10"] for b in obs.details["blocks"]]
    assert got == [float(np.median([100.0, 300.0])), float(np.median([200.0, 400.0]))] == [200.0, 300.0]
    assert [b["label"] for b in obs.details["blocks"]] == ["seeds 0-1", "seeds 2-3"]


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf / inf speedups
def test_a_width_whose_seeds_all_diverged_is_inconclusive() -> None:
    """Every seed at one width diverged: inconclusive with the divergence as the reason."""
    tc = {r: [np.inf] * 4 for r in WCFG.widths}
    obs = _aggregate(WCFG, _width_results(tc, diverged=20.0))
    verdict, reason = WidthPlateau()(WPRED, obs, WCFG)
    assert verdict == "inconclusive" and "r=10: training diverged" in reason
