"""What the Ch. 5 and Ch. 6 sparse-parity claims share: training a configuration on the report's device,
turning convergence times into plain data (``None`` for a seed that did not converge), and the pieces of their
sweep grids (:mod:`verify.sweep`): a cell per trainer configuration (its seeds batched in one ensemble), the
run functions whose results the store keeps, and the cost of a cell for the ``--scale full`` estimate."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics.stats import rate_power
from verify.sweep import Cell, CellCost, CellResult, Grid
from verify.train.sparse_parity import SparseParityConfig, SparseParityResult, divergence_reason, train_parity

from ..base import Observation, RunContext
from ..judges import DEFAULT_POPULATION, Judge, Population, Verdict
from ..training import run_checkpointed

__all__ = [
    "RS_CONTROL_BLOCKS",
    "SEEDS_PER_CELL",
    "SRC_CH5",
    "SRC_CH6",
    "BlockPopulation",
    "Fig51Model",
    "SeedPopulation",
    "chunked_cells",
    "history_result",
    "parity_cell",
    "parity_cost",
    "ran_seeds",
    "relu_mlp",
    "run_history",
    "run_parity",
    "run_summary",
    "seed_chunks",
    "summary_grid",
    "summary_row",
    "tc_list",
    "xavier_relu_mlp",
]

SRC_CH5 = "Edelman thesis (2024) Ch. 5 / App. B (Barak et al. 2022)"
SRC_CH6 = "Edelman thesis (2024) Ch. 6 / App. C.3 (Edelman et al. 2023, Pareto frontiers)"

#: Seeds of one cell where a claim splits many seeds of one setting into several cells (Fig. 5.1, 5.2 at full
#: scale); every quick setting has fewer, so its seeds stay one ensemble, as before the sweep.
SEEDS_PER_CELL = 100

#: Random-search blocks drawn (seeded Monte Carlo) for the control rate of the per-block criteria (Fig. 5.1's local
#: slopes, Fig. 5.4's width plateau).
RS_CONTROL_BLOCKS = 5_000

#: The arrays of a :class:`SparseParityResult` that :func:`run_history` stores.
HISTORY_FIELDS = ("steps", "accuracy", "loss", "rho", "delta_in", "delta_out", "fourier_gap", "t_c", "diverged")


def relu_mlp(
    n: int, k: int, width: int, seeds: tuple[int, ...], steps: int, eval_every: int, **options: Any
) -> SparseParityConfig:
    """The model of both chapters' experiments: a width-r ReLU MLP u^T ReLU(Wx + b) trained with the hinge loss by
    SGD (Sec. 5.3.1 setting (ii), App. C.3.1); ``options`` are further :class:`SparseParityConfig` fields (init,
    learning rate, batch size, offline sample, weight decay, ...)."""
    return SparseParityConfig(
        n=n,
        k=k,
        width=width,
        activation="relu",
        loss="hinge",
        seeds=seeds,
        steps=steps,
        eval_every=eval_every,
        **options,
    )


@dataclass(frozen=True, kw_only=True)
class Fig51Model:
    """The hyper-parameters of the Fig. 5.1 model (Sec. 5.3.1 setting (ii) for r = 100: a width-r ReLU MLP, Xavier
    init, online SGD on the hinge loss at batch size B = 32, steps as a budget), shared by the configurations of the
    claims that train it (Fig. 5.1, Fig. 5.2 and the local-slope law); keyword-only, so they follow each
    configuration's own arguments in its constructor."""

    width: int = 100
    lr: float = 0.1
    batch_size: int = 32
    steps: int = 20_000
    n_val: int = 1024
    num_threads: int | None = None


def xavier_relu_mlp(
    cfg: Any, n: int, k: int, width: int, seeds: tuple[int, ...], eval_every: int, **options: Any
) -> SparseParityConfig:
    """:func:`relu_mlp` with Xavier init trained by online SGD at the hyper-parameters of ``cfg`` (its ``steps``,
    ``lr``, ``batch_size``, ``n_val`` and ``num_threads``): the model of the Ch. 5 Figs. 5.1, 5.2, 5.4 and B.12
    (Sec. 5.3.1 setting (ii), App. B.3); ``options`` are further :class:`SparseParityConfig` fields."""
    return relu_mlp(
        n,
        k,
        width,
        seeds,
        cfg.steps,
        eval_every,
        init="xavier",
        lr=cfg.lr,
        batch_size=cfg.batch_size,
        n_val=cfg.n_val,
        num_threads=cfg.num_threads,
        **options,
    )


def run_parity(cfg: SparseParityConfig, ctx: RunContext) -> SparseParityResult:
    """Train the seed ensemble ``cfg`` on ``ctx.device`` with the report's progress setting, checkpointed under the
    report's scratch directory (an interrupted report resumes the cell)."""
    return run_checkpointed(
        ctx,
        "sparse_parity",
        cfg.to_dict(),
        lambda options: train_parity(cfg, options),
    )


def diverged_at(results: list[Any]) -> np.ndarray:
    """Per seed of the cells' :func:`run_summary` values, the step its parameters were first seen non-finite (inf:
    never; a cell stored before the field existed counts as never)."""
    parts = [np.asarray(r.value.get("diverged_at", np.full(len(r.value["t_c"]), np.inf)), float) for r in results]
    return np.concatenate(parts) if parts else np.zeros(0)


def tc_list(t_c: np.ndarray) -> list[float | None]:
    """Convergence times as JSON-ready floats, ``None`` for a seed that did not converge (t_c = inf)."""
    return [float(t) if math.isfinite(t) else None for t in t_c]


def parity_cell(label: str, cfg: SparseParityConfig) -> Cell:
    """A grid cell training the seed ensemble ``cfg`` (its seeds are the cell's seeds)."""
    return Cell(label, cfg, cfg.seeds)


def chunked_cells(settings: Iterable[tuple[str, SparseParityConfig]]) -> list[Cell]:
    """A cell per setting and chunk of its seeds (:func:`seed_chunks`), in order, labelled ``"<label> seeds
    <first>-<last>"``; each setting is a label and the configuration of all its seeds."""
    return [
        parity_cell(f"{label} seeds {chunk[0]}-{chunk[-1]}", cfg.replace(seeds=chunk))
        for label, cfg in settings
        for chunk in seed_chunks(cfg.seeds)
    ]


def seed_chunks(seeds: tuple[int, ...], size: int = SEEDS_PER_CELL) -> list[tuple[int, ...]]:
    """``seeds`` in consecutive chunks of at most ``size`` (one chunk when there are at most ``size``)."""
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    return [seeds[i : i + size] for i in range(0, len(seeds), size)]


def parity_cost(cell: Cell) -> CellCost:
    """Multiply-adds of a sparse-parity cell: per update 3 B r n per seed (forward and backward of the first
    layer, which dominates; r = k factors for the PolyNet), per evaluation n_eval r n per seed (plus the 2^n n
    Walsh transform of the Fourier gap); ``steps`` updates (a budget: runs stop when every seed converged) and
    one evaluation every ``eval_every`` steps."""
    cfg: SparseParityConfig = cell.config
    rows = cfg.k if cfg.arch == "polynet" else cfg.width
    seeds = len(cfg.seeds)
    eval_flops = seeds * cfg.n_eval * rows * cfg.n + (seeds * 2**cfg.n * cfg.n if cfg.fourier_gap else 0)
    return CellCost(
        steps=cfg.steps,
        step_flops=3.0 * seeds * cfg.batch_size * rows * cfg.n,
        evals=cfg.steps // cfg.eval_every + 2,
        eval_flops=float(eval_flops),
    )


def run_summary(cell: Cell, ctx: RunContext) -> dict[str, Any]:
    """Train a cell; keep the seeds that ran (the cell's seeds shifted by the run's seed offset), per seed t_c (inf:
    not converged), divergence (and its step, inf: never), final and best validation accuracy, and the updates run
    (what the Fig. 5.1, 5.2, 6.1 and 6.2 claims aggregate; arrays keep their dtype)."""
    res = run_parity(cell.config, ctx)
    return {
        "seeds": list(res.config.seeds),
        "t_c": res.t_c,
        "diverged": res.diverged,
        "diverged_at": res.diverged_at,
        "final_accuracy": res.accuracy[-1],
        "best_accuracy": res.accuracy.max(axis=0),
        "steps_run": int(res.steps_run),
    }


def summary_row(tc: np.ndarray, results: list[CellResult], eval_every: int) -> dict[str, Any]:
    """What a grid claim records of one setting: its seeds' convergence times ``tc`` as JSON (:func:`tc_list`), their
    median, how many converged, and the divergence of the setting's cells ``results`` (None: none diverged;
    :func:`verify.train.sparse_parity.divergence_reason` with the evaluation interval ``eval_every``)."""
    return {
        "t_c": tc_list(tc),
        "median": float(np.median(tc)),
        "converged": int(np.isfinite(tc).sum()),
        "divergence": divergence_reason(diverged_at(results), eval_every),
    }


def summary_grid(
    claim_id: str, cells: Callable[[Any], list[Cell]], aggregate: Callable[[Any, list[CellResult]], Observation]
) -> Grid:
    """The sweep of a claim whose cells train sparse-parity seed ensembles and keep their :func:`run_summary`,
    costed by :func:`parity_cost`."""
    return Grid(claim_id=claim_id, cells=cells, run=run_summary, aggregate=aggregate, cost=parity_cost)


def run_history(cell: Cell, ctx: RunContext) -> dict[str, Any]:
    """Train a cell; keep the whole evaluation history (:data:`HISTORY_FIELDS`) for curves read at any step, and the
    seeds that ran."""
    res = run_parity(cell.config, ctx)
    return {
        **{name: getattr(res, name) for name in HISTORY_FIELDS},
        "steps_run": int(res.steps_run),
        "seeds": list(res.config.seeds),
    }


def ran_seeds(result: Any) -> list[int]:
    """The seeds a stored cell result ran (its ``seeds``; a result stored before the field existed ran the cell's
    own seeds)."""
    return [int(s) for s in result.value.get("seeds", result.cell.config.seeds)]


def history_result(cfg: SparseParityConfig, stored: dict[str, Any], runtime_s: float) -> SparseParityResult:
    """The :class:`SparseParityResult` of a stored :func:`run_history` cell (device unrecorded: the store keys
    results by configuration, not by where they ran)."""
    return SparseParityResult(
        config=cfg,
        **{name: stored[name] for name in HISTORY_FIELDS},
        steps_run=stored["steps_run"],
        wall_time=runtime_s,
        device="",
        dtype=cfg.dtype,
    )


def flip_probabilities(
    counts: np.ndarray,
    runs: int,
    draws: int,
    rng: np.random.Generator,
    verdicts: Callable[[np.ndarray], np.ndarray],
    verdict: str,
) -> dict[str, float]:
    """How often a fresh grid of success counts would get another verdict than ``verdict`` (docs/verdicts.md).

    Each of ``draws`` fresh grids draws every cell's count from Bin(runs, p): ``plugin`` with p the observed rate
    ``counts / runs``, ``predictive`` with p ~ Beta(s + 1, runs - s + 1) (s the observed count; uniform prior), the
    plug-in draws first, from one generator.

    Parameters
    ----------
    counts : numpy.ndarray
        The observed success counts, one per cell, of any shape S.
    runs : int
        Seeds per cell.
    draws : int
        Fresh grids per method.
    rng : numpy.random.Generator
        The generator of the draws.
    verdicts : callable
        The judge's verdict vectorised over draws: counts of shape (draws, *S) to verdicts of shape (draws,).
    verdict : str
        The observed grid's verdict.

    Returns
    -------
    dict of str to float
        ``{"plugin": share, "predictive": share}``: the share of fresh grids whose verdict differs.
    """
    flips = {}
    for method in ("plugin", "predictive"):
        rates = np.broadcast_to(counts / runs, (draws, *counts.shape))
        if method == "predictive":
            rates = rng.beta(counts + 1, runs - counts + 1, size=(draws, *counts.shape))
        drawn = rng.binomial(runs, rates)
        flips[method] = float(np.mean(verdicts(drawn) != verdict))
    return flips


@dataclass(frozen=True)
class SeedPopulation(Judge, ABC):
    """Base of this task's population judges (docs/verdicts.md): a subclass lists its units (a seed, or a seed at one
    setting), each with the problems that keep it from meeting the claim's per-unit criterion (none: a success), and
    the verdict is :attr:`rule` (a :class:`~verify.claims.judges.Population`) on the number of successes;
    :meth:`planned_runs` says how many units a configuration gives, before the run."""

    rule: Population = DEFAULT_POPULATION

    @abstractmethod
    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        """Every unit as ``{"label": str, "problems": [str, ...], ...}`` (no problems: a success)."""

    def planned_runs(self, config: Any) -> int:
        """One unit per seed of ``config``; a judge whose units are blocks, pairs or seed x setting says otherwise."""
        return len(config.seeds)

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        units = self.units(predicted, obs, config)
        return self.rule.record(sum(not u["problems"] for u in units), len(units)) if units else None

    def tally(self, units: list[dict[str, Any]], noun: str) -> tuple[Verdict, str]:
        """The rule's verdict on ``units`` and its words: the count, the bounds, the target, the first failures."""
        n, k = len(units), sum(not u["problems"] for u in units)
        stats = self.rule.record(k, n)
        text = (
            f"{k} of {n} {noun} meet the criterion: rate in [{stats['lower']:.3f}, {stats['upper']:.3f}] at "
            f"{self.rule.confidence:.0%}, target {self.rule.p0:g} (power {stats['power']:.3f} against "
            f"{self.rule.p_alt:g}; a fresh set of as many flips the verdict with probability "
            f"{stats['flip_probability_plugin']:.2g} at the observed rate, {stats['flip_probability']:.2g} predictive)"
        )
        failing = [f"{u['label']}: {'; '.join(u['problems'])}" for u in units if u["problems"]][:6]
        return stats["verdict"], text + (f"; failing: {'; '.join(failing)}" if failing else "")


@dataclass(frozen=True)
class BlockPopulation(SeedPopulation, ABC):
    """A population of seed blocks (one median t_c per block and setting) judged against random search (Fig. 5.1's
    local slopes, Fig. 5.4's width plateau): a configuration gives ``config.blocks`` units, a run whose parameters
    diverged is inconclusive, and the reason ends with the control, the rate ``predicted["random_search_block_rate"]``
    at which blocks of random search meet the same criterion and the probability that such blocks would pass the rule
    (:func:`numerics.stats.rate_power`)."""

    @abstractmethod
    def ranges(self, predicted: Any, details: dict[str, Any]) -> str:
        """The blocks' measurements against the prediction: the first words of the reason."""

    def planned_runs(self, config: Any) -> int:
        return int(config.blocks)

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        d = obs.details
        if d.get("divergence"):
            return "inconclusive", d["divergence"]
        verdict, tally = self.tally(self.units(predicted, obs, config), "seed blocks")
        rs = float(predicted["random_search_block_rate"])
        control = (
            f"random-search blocks meet the criterion at rate {rs:.3f} and would pass this rule with probability "
            f"{rate_power(config.blocks, self.rule.p0, rs, self.rule.confidence):.2g}"
        )
        return verdict, f"{self.ranges(predicted, d)}; {tally}; {control}"
