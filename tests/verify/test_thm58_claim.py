"""The Thm 5.8 claim (edelman-ch5-thm5.8-sgd-polynet) can fail: a rate 100 times the theorem's breaks Claim B.11,
and a run far shorter than the stated count leaves the error above eps (docs/sparse_parity.md)."""

from __future__ import annotations

from fractions import Fraction

from theory import polynet as tp
from verify.claims import Observation, registry
from verify.claims.sparse_parity.thm5_8 import DELTA, Thm58Config, run_case

CLAIM = "edelman-ch5-thm5.8-sgd-polynet"
CFG = Thm58Config(cases=((2, 3),), seeds=tuple(range(6)), intervals=8)


def _judge(rows: list[dict]) -> tuple[str, list[dict]]:
    claim = registry()[CLAIM]
    predicted = claim.predict(CFG)
    obs = Observation([r["final_error"] for r in rows], details={"per_run": rows})
    verdict, _ = claim.judge(predicted, obs, CFG)
    return verdict, claim.judge.units(predicted, obs, CFG)


def test_a_rate_100_times_the_theorems_breaks_claim_b11():
    T = tp.thm58_steps(2, 3, CFG.eps, DELTA)
    rate = 100 * tp.thm58_rate_scale(2, 3, T, DELTA)
    rows, _, _ = run_case(2, 3, CFG.seeds, float(Fraction(CFG.eps)), 2000, rate, 1, CFG.intervals)
    for r in rows:  # judged as if the theorem's T had been run: only the invariants are at stake
        r["steps"] = T
    verdict, units = _judge(rows)
    assert verdict == "fail"
    assert all(any("max |w_ij|" in p for p in u["problems"]) for u in units)


def test_far_fewer_steps_than_stated_leave_the_error_above_eps():
    rows, _, _ = run_case(2, 3, CFG.seeds, float(Fraction(CFG.eps)), 30, tp.thm58_rate_scale(2, 3, 30, DELTA), 1, 8)
    verdict, units = _judge(rows)
    assert verdict == "fail"
    assert all(any("err(w^(T+1))" in p for p in u["problems"]) for u in units)


def test_the_planned_runs_are_seeds_times_cases():
    claim = registry()[CLAIM]
    cfg = claim.configs["quick"]
    assert claim.judge.planned_runs(cfg) == len(cfg.cases) * len(cfg.seeds)
    assert claim.judge.rule.p0 == float(1 - DELTA)
