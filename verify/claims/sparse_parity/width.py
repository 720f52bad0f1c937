"""Edelman thesis (2024) Ch. 5, Sec. 5.5 ("Roles of overparameterization"), Fig. 5.4 left and App. B.3.4, Fig. B.10:
convergence times of online SGD on sparse parities plateau in the width r; width is no r-fold parallel speedup,
unlike the expected success time of r copies of random search (docs/sparse_parity.md).

``edelman-ch5-fig5.4-width-plateau``: per block of seeds (median t_c per width), the speedup t_c(r_lo)/t_c(r_hi) of
each consecutive pair of widths lies nearer no speedup than random search's (below their geometric midpoint,
:func:`theory.scaling.width_plateau_boundary`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics.scaling import block_count, block_medians, random_search_block_medians
from theory.scaling import random_search_width_speedup, width_plateau_boundary
from verify.sweep import Cell, CellResult
from verify.train.sparse_parity import SparseParityConfig

from ..base import Claim, Deviation, Observation, PostHoc, register
from ..judges import Population
from .common import (
    RS_CONTROL_BLOCKS,
    SRC_CH5,
    BlockPopulation,
    chunked_cells,
    ran_seeds,
    summary_grid,
    summary_row,
    xavier_relu_mlp,
)

__all__ = ["WIDTH_RULE", "WidthConfig", "WidthPlateau"]


@dataclass(frozen=True)
class WidthConfig:
    """A width-r ReLU MLP (Xavier init, online SGD, hinge) on the (n, k)-parity at each width of ``widths``; the seeds
    in consecutive blocks of ``block`` (the units: one median t_c per block and width). B = 128 and eta = 0.1 as
    App. B.3.4."""

    n: int
    k: int
    widths: tuple[int, ...]
    seeds: tuple[int, ...]
    block: int
    lr: float = 0.1
    batch_size: int = 128
    steps: int = 20_000
    eval_every: int = 10
    n_val: int = 1024
    num_threads: int | None = None

    def __post_init__(self) -> None:
        block_count(len(self.seeds), self.block, "seeds")
        if len(self.widths) < 2 or list(self.widths) != sorted(set(self.widths)):
            raise ValueError("need >= 2 increasing widths")

    @property
    def blocks(self) -> int:
        return block_count(len(self.seeds), self.block, "seeds")

    def pairs(self) -> list[tuple[int, int]]:
        return list(zip(self.widths[:-1], self.widths[1:]))

    def parity(self, width: int, seeds: tuple[int, ...]) -> SparseParityConfig:
        return xavier_relu_mlp(self, self.n, self.k, width, seeds, self.eval_every)


#: "Convergence times plateau at large widths" describes the typical run (p0 = 1/2); power against 0.95.
WIDTH_RULE = Population(p0=0.5, p_alt=0.95)


def _problems(medians: dict[int, float], predicted: dict[str, Any], cfg: WidthConfig) -> list[str]:
    problems = []
    for lo, hi in cfg.pairs():
        a, b = medians[lo], medians[hi]
        bound = float(predicted["pairs"][f"{lo}-{hi}"]["boundary"])
        if not (np.isfinite(a) and np.isfinite(b)):
            problems.append(f"r {lo}->{hi}: median t_c not finite (over half the block unconverged)")
        elif not a / b < bound:
            problems.append(f"r {lo}->{hi}: speedup {a / b:.3g} >= boundary {bound:.3g} (nearer random search)")
    return problems


@dataclass(frozen=True)
class WidthPlateau(BlockPopulation):
    """Fig. 5.4 left / B.10 as a population of seed blocks: a block succeeds when, for each consecutive pair of
    widths, its median-t_c speedup is below :func:`theory.scaling.width_plateau_boundary`. The reason carries the
    rate at which blocks of r-copy random search meet the same criterion (the control)."""

    rule: Population = WIDTH_RULE

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        return [
            {
                "label": row["label"],
                "problems": _problems({int(r): m for r, m in row["medians"].items()}, predicted, config),
            }
            for row in obs.details["blocks"]
        ]

    def ranges(self, predicted: Any, details: dict[str, Any]) -> str:
        return "; ".join(
            f"r {key}: speedups {v} (boundary {float(predicted['pairs'][key]['boundary']):.3g}, random search "
            f"{float(predicted['pairs'][key]['random_search_speedup']):.3g})"
            for key, v in details["speedup_ranges"].items()
        )

    def describe(self) -> str:
        return (
            "per block of seeds (median t_c per width): for each consecutive pair of widths, the speedup "
            "t_c(r_lo)/t_c(r_hi) is below sqrt(random search's r-copy speedup) (nearer a plateau than a parallel "
            f"speedup); {self.rule.describe()}"
        )


def _predict(cfg: WidthConfig) -> dict[str, Any]:
    pairs = {
        f"{lo}-{hi}": {
            "random_search_speedup": random_search_width_speedup(cfg.n, cfg.k, lo, hi),
            "boundary": width_plateau_boundary(cfg.n, cfg.k, lo, hi),
        }
        for lo, hi in cfg.pairs()
    }
    predicted: dict[str, Any] = {"pairs": pairs}
    rs = {
        r: random_search_block_medians([(cfg.n, cfg.k)], RS_CONTROL_BLOCKS, cfg.block, seed=r, copies=r)[(cfg.n, cfg.k)]
        for r in cfg.widths
    }
    met = sum(not _problems({r: float(rs[r][j]) for r in cfg.widths}, predicted, cfg) for j in range(RS_CONTROL_BLOCKS))
    predicted["random_search_block_rate"] = met / RS_CONTROL_BLOCKS
    return predicted


def _cells(cfg: WidthConfig) -> list[Cell]:
    return chunked_cells((f"r={r}", cfg.parity(r, cfg.seeds)) for r in cfg.widths)


def _aggregate(cfg: WidthConfig, results: list[CellResult]) -> Observation:
    tcs, rows = {}, []
    for r in cfg.widths:
        mine = [x for x in results if x.cell.config.width == r]
        tc = np.concatenate([x.value["t_c"] for x in mine])
        tcs[r] = tc
        rows.append({"width": r, **summary_row(tc, mine, cfg.eval_every)})
    medians = {r: block_medians(tc, cfg.block) for r, tc in tcs.items()}
    seeds = [s for x in results if x.cell.config.width == cfg.widths[0] for s in ran_seeds(x)]
    blocks = [
        {
            "label": f"seeds {seeds[j * cfg.block]}-{seeds[(j + 1) * cfg.block - 1]}",
            "medians": {str(r): float(medians[r][j]) for r in cfg.widths},
        }
        for j in range(cfg.blocks)
    ]
    speedups = {f"{lo}-{hi}": medians[lo] / medians[hi] for lo, hi in cfg.pairs()}
    plot = {
        "name": "tc-vs-width",
        "kind": "lines",
        "series": [{"label": "median t_c (all seeds)", "x": list(cfg.widths), "y": [r["median"] for r in rows]}],
        "xlabel": "width r",
        "ylabel": "median t_c (steps)",
        "xscale": "log",
        "yscale": "log",
        "title": f"({cfg.n},{cfg.k}) parity, ReLU MLP, B={cfg.batch_size}, eta={cfg.lr}, {len(cfg.seeds)} seeds",
    }
    blown = [f"r={r['width']}: {r['divergence']}" for r in rows if r["divergence"]]
    return Observation(
        {key: float(np.median(v)) for key, v in speedups.items()},
        details={
            "widths": rows,
            "blocks": blocks,
            "speedup_ranges": {key: f"{np.min(v):.3g}-{np.max(v):.3g}" for key, v in speedups.items()},
            "divergence": "; ".join(blown) or None,
            "seeds": seeds,
        },
        artifacts={"plots": [plot]},
        seeds=cfg.seeds,
    )


GRID = summary_grid("edelman-ch5-fig5.4-width-plateau", _cells, _aggregate)

QUICK_SIZE = Deviation(
    parameter="instance (n, k) and widths",
    source="(30, 3), (40, 3), (50, 3) with r from 1 to 3e6, 1000 runs each (App. B.3.4, Fig. B.10)",
    value="(20, 3), r = 30 and 300, 64 seeds in 16 blocks of 4",
    why="CPU budget: a width-1000 ensemble at B = 128 costs about 40 s for 16 seeds on this machine (r = 30 and 300: 17.5 s for 16 seeds)",
)

POST_HOC = (
    PostHoc(
        parameter="boundary, widths and block size",
        value="sqrt(random search's r-copy speedup of expected times); r = 30, 300 at (20, 3); blocks of 4 seeds",
        when="after 16-seed pilots at (16, 3), B = 128: median t_c 925, 350, 245 at r = 10, 100, 1000 and 550, 250 "
        "at r = 30, 300 (block-of-2 speedups 1.65-2.51); random search's median-based speedup (6.5 at (16, 3)) was "
        "replaced by the expected-time speedup the figure plots (8.9 at (20, 3)) and n raised to 20 so that random "
        "search's speedup is near r_hi / r_lo",
        why="the geometric midpoint classifies a speedup by the nearer law (plateau: 1; random search: about "
        "r_hi / r_lo); the pilot's speedups at small widths (2.6 from r = 10 to 100) are close to it, so the claim "
        "tests widths of 30 and more",
    ),
    PostHoc(
        parameter="seeds per block",
        value="4 (32 seeds), was 2 (16 seeds)",
        when="after the claim's first quick run (blocks of 2: 7 of 8 blocks met the criterion, speedups 1.61-3.3, "
        "median t_c 780 and 360; pass, but a fresh seed set flips it with probability 0.45)",
        why="a median of two t_c at r = 30 (t_c 620-1440) is too noisy for a stable verdict; medians of 4 follow the "
        "figure, which plots medians over 1000 runs",
    ),
    PostHoc(
        parameter="blocks (quick)",
        value="16 (64 seeds), was 8 (32 seeds)",
        when="2026-12-01, after a QA run of 22 fresh 8-block sets: 188 of 192 blocks met the criterion and 3 sets "
        "gave 7 of 8, one block short of inconclusive (speedups up to 3.33 against the boundary 2.98)",
        why="8 blocks pass only at 7 or 8 of 8: at a block failure rate of 0.02-0.05 a fresh set misses 'pass' with "
        "probability 0.01-0.04; 16 blocks pass from 12 of 16, which such a rate misses with probability below 0.01",
    ),
)

register(
    Claim(
        id=GRID.claim_id,
        source=f"{SRC_CH5}, Sec. 5.5, Fig. 5.4 left, App. B.3.4, Fig. B.10; docs/sparse_parity.md",
        statement="Convergence times of online SGD (width-r ReLU MLP, hinge, B = 128, eta = 0.1) on a sparse parity "
        "plateau in the width: per block of seeds, the speedup of the median t_c from each width to the next is "
        "nearer no speedup than the r_hi/r_lo-fold speedup of the expected success time of r copies of random search "
        "(below the geometric midpoint sqrt(random-search speedup)). Target rate of the blocks 1/2 ('typically').",
        kind="training",
        configs={
            "quick": WidthConfig(n=20, k=3, widths=(30, 300), seeds=tuple(range(64)), block=4, num_threads=1),
            "full": WidthConfig(
                n=40,
                k=3,
                widths=(10, 100, 1000, 10_000),
                seeds=tuple(range(256)),
                block=8,
                steps=100_000,
                n_val=8192,
            ),
        },
        predict=_predict,
        observe=GRID.observe,
        judge=WidthPlateau(),
        deviations={"quick": (QUICK_SIZE,), "full": ()},
        post_hoc=POST_HOC,
        insensitive=(
            "the predictions are random search's speedup and the boundary sqrt of it; a 1 % error moves a block across "
            "only if its speedup is within 1 % of the boundary (see the record's speedup_ranges), and random-search "
            "blocks or a boundary of 1 (a speedup of any size fails) do not pass (tests/verify/test_sparse_parity_scaling.py)"
        ),
    )
)
