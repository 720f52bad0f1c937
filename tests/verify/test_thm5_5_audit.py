"""Audit of the Thm 5.5 claim's verdict logic (verify/claims/sparse_parity/thm5_5.py): the per-unit schedule check,
the strict U > min_t L criterion, the unit count, and what the observation measures (min over t of the exact loss of
a run with the predicted schedule). Oracles: theory.parity's formulas, numerics.parity_sgd's own run, hand-built
rows."""

from __future__ import annotations

import math

import numpy as np

from numerics import parity_sgd as nps
from theory import parity as tpar
from verify.claims import Observation, RunContext, registry
from verify.claims.sparse_parity.thm5_5 import EPS, Thm55Config, Thm55Runs, unit_uniform
from verify.runtime.options import RunOptions

CLAIM = "edelman-ch5-thm5.5-mlp-algorithm"
CFG = Thm55Config(cases=((5, 2), (7, 2)), seeds=(0, 1, 2), steps=40)


def _row(case: dict, seed: int, min_loss: float, uniform: float, **changes) -> dict:
    row = {
        "seed": seed,
        "n": case["n"],
        "k": case["k"],
        "steps": case["steps"],
        "width": case["width"],
        "batch": case["batch"],
        "min_loss": min_loss,
        "uniform": uniform,
    }
    return {**row, **changes}


def _obs(rows: list[dict]) -> Observation:
    xs = [r["min_loss"] for r in rows]
    details = {"per_run": rows, "mean_min_loss": float(np.mean(xs)), "mean_min_loss_upper_95": 1.0}
    return Observation(xs, details=details)


def test_a_run_with_the_predicted_schedule_and_u_above_the_loss_succeeds() -> None:
    """A unit that ran the schedule exactly and drew U > min_t L has no problem (a schedule check that flags equal
    values would fail every honest run)."""
    pred = registry()[CLAIM].predict(CFG)
    units = Thm55Runs().units(pred, _obs([_row(pred["cases"][0], 0, 0.1, 0.5)]), CFG)
    assert units[0]["problems"] == []


def test_each_schedule_entry_is_checked() -> None:
    """A run whose steps, width or batch differ from the predicted schedule is not a run of the theorem's algorithm:
    each mismatch alone fails the unit, even with U far above the loss."""
    pred = registry()[CLAIM].predict(CFG)
    case = pred["cases"][0]
    for key in ("steps", "width", "batch"):
        row = _row(case, 0, 0.0, 0.99, **{key: case[key] + 2})
        problems = Thm55Runs().units(pred, _obs([row]), CFG)[0]["problems"]
        assert len(problems) == 1 and key in problems[0], (key, problems)


def test_u_equal_to_the_min_loss_is_a_failure() -> None:
    """The unit succeeds when U exceeds X = min_t L (module docstring: P(success) = P(U > X) = 1 - E[X]); U = X is
    not a success."""
    pred = registry()[CLAIM].predict(CFG)
    row = _row(pred["cases"][0], 0, 0.375, 0.375)
    assert Thm55Runs().units(pred, _obs([row]), CFG)[0]["problems"]


def test_the_planned_runs_are_one_per_seed_and_case() -> None:
    """A unit is one seed at one case: 2 cases x 3 seeds plan 6 units, as many as a full observation lists."""
    pred = registry()[CLAIM].predict(CFG)
    rows = [_row(c, s, 0.1, 0.9) for c in pred["cases"] for s in CFG.seeds]
    assert Thm55Runs().planned_runs(CFG) == len(Thm55Runs().units(pred, _obs(rows), CFG)) == 6


def test_the_schedule_is_the_theorems_at_the_run_length() -> None:
    """The second-layer rate is 4 k^1.5 / (n sqrt(r (T - 1))) at the T actually run (the config's steps), not at the
    stated T; the width and batch are theory.parity's."""
    pred = registry()[CLAIM].predict(CFG)
    for c in pred["cases"]:
        n, k, r = c["n"], c["k"], c["width"]
        assert c["steps"] == CFG.steps and r == tpar.thm55_width(k, EPS)
        assert math.isclose(c["rate"], 4 * k**1.5 / (n * math.sqrt(r * (CFG.steps - 1))), rel_tol=1e-12)
        assert c["batch"] == tpar.thm55_batch(n, k, r, EPS)


def test_the_observation_is_the_min_over_t_of_the_predicted_schedules_run() -> None:
    """The observed min_loss per unit is the minimum over t = 1..T of the exact loss of numerics' own run at the
    predicted schedule (all t on the loss curve at T <= 257), its steps the schedule's, its U the unit's draw."""
    cfg = Thm55Config(cases=((5, 2),), seeds=(0, 1), steps=30)
    claim = registry()[CLAIM]
    obs = claim.observe(cfg, RunContext(options=RunOptions(progress=False)))
    c = claim.predict(cfg)["cases"][0]
    inits = [nps.thm55_init(5, c["width"], c["bias_grid"], s) for s in cfg.seeds]
    run = nps.thm55_run(
        5,
        2,
        inits,
        cfg.seeds,
        first_rate=c["first_rate"],
        rate=c["rate"],
        batch_size=c["batch"],
        steps=30,
    )
    curve = np.asarray(run["loss_curve"])
    assert len(run["curve_steps"]) == 30
    for e, row in enumerate(obs.details["per_run"]):
        assert row["min_loss"] == float(curve[e].min()) <= row["final_loss"]
        assert row["steps"] == 30 and row["uniform"] == unit_uniform(row["seed"], 5, 2)
    verdict_units = claim.judge.units(claim.predict(cfg), obs, cfg)
    assert all(not any("ran " in p for p in u["problems"]) for u in verdict_units)


def test_the_observation_reads_the_minimum_not_the_final_loss(monkeypatch) -> None:
    """The unit's X is min_t L(theta_t): a run whose loss went down to 0.1 and ended at 0.6 is observed at 0.1 (its
    final loss is reported apart), so with U = unit_uniform between them the unit succeeds."""
    from verify.claims.sparse_parity import thm5_5

    def fake(n, k, inits, seeds, **kw):
        E = len(seeds)
        return {
            "min_loss": np.full(E, 0.1),
            "argmin": np.full(E, 3),
            "final_loss": np.full(E, 0.6),
            "final_error": np.full(E, 0.5),
            "loss_curve": np.tile([0.9, 0.1, 0.6], (E, 1)),
            "curve_steps": [1, 3, 5],
        }

    monkeypatch.setattr(thm5_5.nps, "thm55_run", fake)
    cfg = Thm55Config(cases=((5, 2),), seeds=tuple(range(8)), steps=5)
    obs = registry()[CLAIM].observe(cfg, RunContext(options=RunOptions(progress=False)))
    rows = obs.details["per_run"]
    assert [r["min_loss"] for r in rows] == [0.1] * 8 and [r["final_loss"] for r in rows] == [0.6] * 8
    units = Thm55Runs().units(registry()[CLAIM].predict(cfg), obs, cfg)
    for r, u in zip(rows, units):
        assert (u["problems"] == []) == (r["uniform"] > 0.1)
