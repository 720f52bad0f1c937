"""Audit of the Fig. 5.2 centre claim's verdict logic (verify/claims/sparse_parity/init_noise.py): the aggregate
pairs each unit's three runs by role (base, data change, init change) and measures |log t_c| shifts from the base
run, a unit with any unconverged run fails, the record's population and the verdict read p0 from the prediction,
and a divergence is inconclusive. Oracles: hand-built cell results with known t_c, theory.scaling's null rate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from theory.scaling import init_dominance_rate
from verify.claims.sparse_parity.init_noise import InitNoiseConfig, InitOverNoise, _aggregate, _cells
from verify.sweep import CellResult

CFG = InitNoiseConfig(n=10, k=2, units=3)


def _results(tc: dict[str, list[float]], diverged: float = np.inf) -> list[CellResult]:
    out = []
    for cell in _cells(CFG):
        role = cell.label.split(" units")[0]
        value = {
            "seeds": list(cell.seeds),
            "t_c": np.array(tc[role], dtype=float),
            "diverged_at": np.full(len(cell.seeds), diverged),
        }
        out.append(CellResult(cell, value, 1.0))
    return out


TC = {"base": [400.0, 400.0, 400.0], "data change": [200.0, 500.0, 400.0], "init change": [800.0, 300.0, np.inf]}


def test_the_shifts_are_abs_log_ratios_to_the_base_run_by_role() -> None:
    """Unit 0: data change halves t_c (shift ln 2), init change doubles it (ln 2); unit 1: ln 1.25 and ln 4/3; unit
    2: the init change did not converge, so the unit has no shifts and names the unconverged role."""
    rows = _aggregate(CFG, _results(TC)).details["units"]
    assert rows[0]["data_shift"] == pytest.approx(math.log(2)) and rows[0]["init_shift"] == pytest.approx(math.log(2))
    assert rows[1]["data_shift"] == pytest.approx(math.log(1.25))
    assert rows[1]["init_shift"] == pytest.approx(math.log(4 / 3))
    assert rows[0]["t_c"] == {"base": 400.0, "data_change": 200.0, "init_change": 800.0}
    assert rows[2]["t_c"] is None and rows[2]["unconverged"] == ["init change"]
    assert [r["base_seed"] for r in rows] == [0, 2, 4]


def test_units_from_the_aggregate() -> None:
    """Unit 0 ties (ln 2 vs ln 2: not strictly further), unit 1 succeeds (ln 4/3 > ln 1.25), unit 2 is unconverged."""
    obs = _aggregate(CFG, _results(TC))
    units = InitOverNoise().units({}, obs, CFG)
    assert [bool(u["problems"]) for u in units] == [True, False, True]
    assert "unconverged" in units[2]["problems"][0]


def test_the_population_and_the_verdict_use_the_predicted_null_rate() -> None:
    """p0 of the record's population is the predicted null rate (here theory's rate at theta = 10), not the rule's
    default."""
    obs = _aggregate(CFG, _results(TC))
    alt = float(init_dominance_rate(10))
    pop = InitOverNoise().population({"null_rate": alt}, obs, CFG)
    assert pop["p0"] == pytest.approx(alt) and pop["n"] == 3 and pop["successes"] == 1


def test_a_divergence_is_inconclusive() -> None:
    """Every seed diverged: inconclusive with the divergence as reason, not a tally of unconverged units."""
    obs = _aggregate(CFG, _results({role: [np.inf] * 3 for role in TC}, diverged=30.0))
    verdict, reason = InitOverNoise()({"null_rate": 0.6}, obs, CFG)
    assert verdict == "inconclusive" and "diverged" in reason
