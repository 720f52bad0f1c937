"""A toy grid claim for the sweep tests (tests/verify/test_sweep*.py): cheap deterministic cells whose every
execution is logged to a file, so a test can count executions across processes, Ray workers and killed runs.

Not registered: the tests build the claim with :func:`toy_claim` and run it inside their own sweep sessions.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from verify.claims.base import Claim, Observation, RunContext
from verify.claims.judges import AtLeast
from verify.sweep import Cell, CellCost, CellResult, Grid

TOY_ID = "test-sweep-toy"


@dataclass(frozen=True)
class ToyConfig:
    """Cells: one per value; each draws ``len(seeds)`` normals per seed from that seed's generator and scales them by
    the value. ``log``: file that gets one line per execution; ``sleep``: seconds per cell; ``followup``: add a
    second stage whose cell depends on the first stage's results; ``steps``: the cost estimate's updates per cell;
    ``fail``: values whose cell raises (after logging its execution, before sleeping)."""

    values: tuple[int, ...]
    seeds: tuple[int, ...] = (0, 1, 2)
    log: str = ""
    sleep: float = 0.0
    followup: bool = False
    steps: int = 10
    fail: tuple[int, ...] = ()


@dataclass(frozen=True)
class ToyCell:
    value: int
    seeds: tuple[int, ...]
    log: str
    sleep: float
    steps: int = 10
    fail: bool = False


def toy_cells(cfg: ToyConfig) -> list[Cell]:
    return [
        Cell(f"value {v}", ToyCell(v, cfg.seeds, cfg.log, cfg.sleep, cfg.steps, v in cfg.fail), cfg.seeds)
        for v in cfg.values
    ]


def toy_followup(cfg: ToyConfig, results: list[CellResult] | None) -> list[Cell]:
    if not cfg.followup:
        return []
    top = max(cfg.values) if results is None else int(max(r.value["draws"].max() for r in results) * 10)
    return [Cell("followup", ToyCell(top, cfg.seeds, cfg.log, cfg.sleep, cfg.steps), cfg.seeds)]


def toy_run(cell: Cell, ctx: RunContext) -> dict[str, Any]:
    """One cell: log the execution (pid, label), sleep, return float32 draws and an int."""
    c: ToyCell = cell.config
    if c.log:
        with open(c.log, "a") as fh:
            fh.write(f"{os.getpid()} {cell.label}\n")
    if c.fail:
        raise ValueError(f"{cell.label} fails on purpose")
    time.sleep(c.sleep)
    draws = np.stack([np.random.default_rng(s).normal(size=4).astype(np.float32) * c.value for s in c.seeds])
    return {"draws": draws, "count": len(c.seeds), "value": c.value}


def toy_aggregate(cfg: ToyConfig, results: list[CellResult]) -> Observation:
    total = float(sum(float(r.value["draws"].astype(np.float64).sum()) for r in results))
    return Observation(
        total,
        details={"cells": [{"label": r.cell.label, "sum": float(r.value["draws"].sum())} for r in results]},
        seeds=cfg.seeds,
    )


def toy_cost(cell: Cell) -> CellCost:
    return CellCost(steps=cell.config.steps, step_flops=1e3)


TOY_GRID = Grid(
    claim_id=TOY_ID,
    cells=toy_cells,
    run=toy_run,
    aggregate=toy_aggregate,
    followups=(toy_followup,),
    cost=toy_cost,
)


def toy_claim(quick: ToyConfig, full: ToyConfig | None = None) -> Claim:
    """The toy grid as a claim (observed sum >= -1e9: always passes unless the run breaks)."""
    configs = {"quick": quick} if full is None else {"quick": quick, "full": full}
    return Claim(
        id=TOY_ID,
        source="test",
        statement="toy grid",
        kind="numeric",
        configs=configs,
        predict=lambda cfg: -1e9,
        observe=TOY_GRID.observe,
        judge=AtLeast(),
    )


def executions(log: str | Path) -> list[str]:
    """Labels of the logged executions, in order."""
    p = Path(log)
    return [line.split(" ", 1)[1] for line in p.read_text().splitlines()] if p.exists() else []
