r"""Offline SGD on (n,k)-sparse parities, Edelman thesis Ch. 6 / App. C.3 ("Pareto frontiers", Edelman et al.
2023): 2-layer ReLU MLPs learn from m samples, trained as seed ensembles by :mod:`verify.train.sparse_parity`
(``mode="offline"``).

Common setting (App. C.3.1): hinge loss, SGD with B = 32, :math:`\eta = 0.1`, weight decay
:math:`\lambda = 0.01` PyTorch-style (:math:`\theta\leftarrow\theta-\eta(\nabla+\lambda\theta)`; the thesis does
not say which convention its experiments use, docs/sparse_parity.md), success = test error <= 10% on 10^4
held-out points within T steps; first layer PyTorch-default (``init="default"``, :math:`U[\pm1/\sqrt n]`) or
random 2-sparse rows (``init="sparse"``, non-zeros :math:`U[-1,1]`, our assumption: App. C.3 does not give the
values); second layer and biases PyTorch default.

The thesis gives its grid only as figures, so the checks are qualitative (Finding 2 "width is monotonically
beneficial"; "width buys data" judged per seed, paired, as a seed population). The numbers that
come from theory are C(n,k) and the Prop. 6.3 bookkeeping (:func:`theory.boolean.sq_lower_bound_applies`), where
r counts the *parameters*, not the width as everywhere else in the chapter (docs/sparse_parity.md, errata).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from numerics.stats import clopper_pearson, fisher_drop_power, fisher_greater, holm_rejections
from theory.boolean import sq_lower_bound_applies
from verify.sweep import Cell, CellResult, Grid
from verify.train.sparse_parity import SparseParityConfig

from ..base import Claim, Observation, PostHoc, register
from ..judges import Judge, Population, Verdict, verdict_from_problems
from .common import (
    SRC_CH6,
    SeedPopulation,
    flip_probabilities,
    parity_cell,
    parity_cost,
    ran_seeds,
    relu_mlp,
    run_summary,
    tc_list,
)

INIT_LABEL = {"default": "dense (PyTorch default)", "sparse": "2-sparse"}

__all__ = [
    "THESIS_DROP",
    "ParetoGridConfig",
    "WidthBuysData",
    "WidthBuysDataConfig",
    "WidthMonotone",
    "cell_config",
    "drop_pvalues",
    "mlp_parameter_count",
    "sq_max_blind_steps",
    "success_frontier",
]


def mlp_parameter_count(n: int, width: int) -> int:
    r"""Trainable parameters of the 2-layer MLP :math:`u^\top\sigma(Wx+b)`: :math:`rn + r + r = r(n+2)`
    (the r of Prop. 6.3 is this count, not the width; docs/sparse_parity.md, errata)."""
    if n < 1 or width < 1:
        raise ValueError(f"need n >= 1 and width >= 1, got n = {n}, width = {width}")
    return width * (n + 2)


def sq_max_blind_steps(params: int, m: int, delta: Fraction, n: int, k: int) -> int:
    r"""Largest T for which Prop. 6.3 applies with :math:`\tau = 1/\sqrt m` (gradient precision of m samples):
    :math:`T_{\max}=\lfloor \tau^2\delta\binom nk/(2r)\rfloor`, r = ``params``; for T <= T_max some (n,k)-parity
    leaves the first T iterates independent of the target w.p. >= 1 - δ (Prop. 6.3). Cross-checked
    against :func:`theory.boolean.sq_lower_bound_applies` at T_max and T_max + 1."""
    if m < 1 or params < 1:
        raise ValueError(f"need m >= 1 and params >= 1, got m = {m}, params = {params}")
    # tau = 1/sqrt(m) is irrational, tau^2 is not: r T / (tau^2 delta) = r (T m) / (1^2 delta), so the theory
    # function sees the same ratio with tau = 1 and T' = T m.
    t_max = math.floor(Fraction(math.comb(n, k)) * delta / (2 * params * m))
    for T, expect in ((t_max, True), (t_max + 1, False)):
        if T >= 1 and sq_lower_bound_applies(params, T * m, 1, delta, n, k) is not expect:
            raise AssertionError(f"Prop. 6.3 bookkeeping disagrees with theory.boolean at T = {T}")
    return t_max


#: The Ch. 6 grid's settings (App. C.3.1) that a cell takes unless its claim sets them.
CELL_DEFAULTS: dict[str, Any] = {
    "n_val": 10_000,
    "decay": "pytorch",
    "weight_decay": 0.01,
    "lr": 0.1,
    "batch_size": 32,
    "sparsity": 2,
}


def cell_config(
    n: int,
    k: int,
    width: int,
    m: int | None,
    init: str,
    seeds: tuple[int, ...],
    steps: int,
    eval_every: int,
    **fields: Any,
) -> SparseParityConfig:
    """The trainer config of one (n, k, r, m, init) cell of the Ch. 6 grid (``m = None``: online regime):
    ReLU MLP, hinge, SGD, success = test error <= 10% (App. C.3.1). ``fields`` are further
    :class:`SparseParityConfig` fields (``n_val``, ``decay``, ``weight_decay``, ``lr``, ``batch_size``,
    ``sparsity``, ``num_threads``), :data:`CELL_DEFAULTS` otherwise."""
    return relu_mlp(
        n,
        k,
        width,
        seeds,
        steps,
        eval_every,
        **{**CELL_DEFAULTS, **fields},
        init=init,
        mode="online" if m is None else "offline",
        n_train=m,
        target_error=0.1,
    )


#: The only drop along a width slice that the thesis reports (App. C.3.1, footnote to Finding 2): success 98% -> 96%
#: (n = 100, k = 4, m = 2000), called "within the standard error margins of Bernoulli confidence intervals".
THESIS_DROP = (0.98, 0.96)


def drop_pvalues(counts: list[int], runs: int) -> list[tuple[int, int, float]]:
    """Every pair (i, j), i < j of width indices (narrower, wider) with the one-sided Fisher exact p-value of
    H0 "success(r_j) >= success(r_i)" against "success drops from r_i to r_j" (both counts out of ``runs``)."""
    if runs < 1:
        raise ValueError(f"need runs >= 1, got {runs}")
    if any(not 0 <= c <= runs for c in counts):
        raise ValueError(f"success counts must lie in [0, {runs}], got {counts}")
    pairs = [(i, j) for j in range(len(counts)) for i in range(j)]
    if not pairs:
        return []
    x = np.array([counts[i] for i, _ in pairs])
    y = np.array([counts[j] for _, j in pairs])
    return [(i, j, float(p)) for (i, j), p in zip(pairs, fisher_greater(x, y, runs))]


def success_frontier(ms: list[float], rates: list[float], level: float = 0.5) -> float:
    """Smallest m (in the grid's order, online = inf) with success rate >= ``level``; inf if none."""
    hits = [m for m, s in zip(ms, rates) if s >= level]
    return min(hits) if hits else math.inf


# ------------------------------------------------------------------------------ Fig. 6.1 / C.1: the Pareto grid


@dataclass(frozen=True)
class ParetoGridConfig:
    """The success grid over width r (columns) and sample size m (rows) for each (n, k) and init.

    ``samples`` entries may be ``None`` (the online regime, the rightmost column of Fig. C.1); it counts as
    m = inf for the frontier.

    Statistical test (judge :class:`WidthMonotone`, fixed before the run): for every (n, k), init, m-row and pair of
    widths r_i < r_j, a one-sided Fisher exact test of H0 "success(r_j) >= success(r_i)" against "success drops";
    Holm's procedure over all K pairs of the grid at family-wise alpha = 0.05; a rejection fails the claim. Power:
    the exact probability (scipy binomial sums) that the test detects, at this seed count and level alpha / K (a lower
    bound for Holm), a drop of the size the thesis reports (98% -> 96%, :data:`THESIS_DROP`); below 0.8 the verdict
    is ``inconclusive`` (the record gives the power, and the power against a drop 100% -> 50%).

    Quick scale: (30,3), r ∈ {10, 100, 300}, m ∈ {400, 1000}, 6 seeds, T = 1.2·10^4, evaluation every 300
    steps on 10^4 test points (about 75 s on 2 CPU cores; the failing cells at m = 400 dominate). Measured
    success rates at m = 400, r = 10/100/300: dense 0/0.5/0.83, 2-sparse 0/0.5/1; at m = 1000 all 1 except
    2-sparse r = 10 (0.83). (At m = 300 every width up to 100 failed within 10^4 steps; see the B8 search.)
    Full scale: the thesis grid of App. C.3.1 (about 2·10^5 runs; 600 GPU-hours in the thesis).
    """

    problems: tuple[tuple[int, int], ...]
    widths: tuple[int, ...]
    samples: tuple[int | None, ...]
    seeds: tuple[int, ...]
    steps: int
    eval_every: int
    inits: tuple[str, ...] = ("default", "sparse")
    n_val: int = 10_000
    lr: float = 0.1
    batch_size: int = 32
    weight_decay: float = 0.01
    decay: str = "pytorch"
    num_threads: int | None = None

    def __post_init__(self) -> None:
        if list(self.widths) != sorted(set(self.widths)) or len(self.widths) < 2:
            raise ValueError(f"widths must be >= 2 strictly increasing values, got {self.widths}")
        finite = [m for m in self.samples if m is not None]
        if finite != sorted(set(finite)) or self.samples.count(None) > 1 or not finite:
            raise ValueError(
                f"samples must be increasing sample sizes (optionally one None = online), got {self.samples}"
            )


def _m_label(m: int | None) -> str:
    return "online" if m is None else str(m)


def _predict_grid(cfg: ParetoGridConfig) -> dict[str, Any]:
    return {
        "success_nondecreasing_in_width": True,
        "frontier_m_widest_le_narrowest": True,
        "C(n,k)": {f"({n},{k})": math.comb(n, k) for n, k in cfg.problems},
    }


def _grid_cells(cfg: ParetoGridConfig) -> list[Cell]:
    """One cell per (n, k), init, m and r (in that nesting order), all seeds in one ensemble."""
    return [
        parity_cell(
            f"({n},{k}) {init} m={_m_label(m)} r={r}",
            cell_config(
                n,
                k,
                r,
                m,
                init,
                cfg.seeds,
                cfg.steps,
                cfg.eval_every,
                n_val=cfg.n_val,
                decay=cfg.decay,
                weight_decay=cfg.weight_decay,
                lr=cfg.lr,
                batch_size=cfg.batch_size,
                num_threads=cfg.num_threads,
            ),
        )
        for n, k in cfg.problems
        for init in cfg.inits
        for m in cfg.samples
        for r in cfg.widths
    ]


def _aggregate_grid(cfg: ParetoGridConfig, results: list[CellResult]) -> Observation:
    runs = len(cfg.seeds)
    cells = []
    for res in results:
        c, v = res.cell.config, res.value
        cells.append(
            {
                "n": c.n,
                "k": c.k,
                "init": c.init,
                "m": c.n_train,
                "width": c.width,
                "successes": int(np.isfinite(v["t_c"]).sum()),
                "runs": runs,
                "t_c": tc_list(v["t_c"]),
                "diverged": int(v["diverged"].sum()),
                "steps_run": v["steps_run"],
                "wall_s": round(res.runtime_s, 2),
            }
        )
    plots = []
    for n, k in cfg.problems:
        suffix = "" if len(cfg.problems) == 1 else f"-n{n}-k{k}"
        grid = {
            init: [[_cell(cells, n, k, init, m, r)["successes"] / runs for r in cfg.widths] for m in cfg.samples]
            for init in cfg.inits
        }
        plots.append(
            {
                "name": "heatmap" + suffix,
                "kind": "heatmap",
                "x": list(cfg.widths),
                "y": [_m_label(m) for m in cfg.samples],
                "panels": [{"title": f"{INIT_LABEL.get(i, i)} init", "z": grid[i]} for i in cfg.inits],
                "xlabel": "width r",
                "ylabel": "samples m",
                "zlabel": "success rate",
                "vmin": 0.0,
                "vmax": 1.0,
                "title": f"offline ({n},{k})-parity, {runs} seeds/cell, T={cfg.steps}",
            }
        )
        finite = [i for i, m in enumerate(cfg.samples) if m is not None]
        series = [
            {
                "label": f"{'sparse' if init == 'sparse' else 'dense'} r={r}",
                "x": [cfg.samples[i] for i in finite],
                "y": [grid[init][i][j] for i in finite],
                "ls": "--" if init == "sparse" else "-",
            }
            for init in cfg.inits
            for j, r in enumerate(cfg.widths)
        ]
        plots.append(
            {
                "name": "success-vs-m" + suffix,
                "kind": "lines",
                "series": series,
                "xlabel": "samples m",
                "ylabel": "success rate",
                "xscale": "log",
                "hlines": [{"y": 0.5, "label": "frontier level 1/2"}],
                "title": f"({n},{k}): success vs m per width (Fig. 6.2 center)",
            }
        )
    value = {
        f"({c['n']},{c['k']}) {c['init']} m={_m_label(c['m'])} r={c['width']}": c["successes"] / runs for c in cells
    }
    judge = WidthMonotone()
    n_tests = len(cfg.problems) * len(cfg.inits) * len(cfg.samples) * math.comb(len(cfg.widths), 2)
    power = {
        "test": "one-sided Fisher exact test per width pair r_i < r_j in each m-row, Holm over all pairs",
        "alpha_familywise": judge.alpha,
        "pairs": n_tests,
        "seeds_per_cell": runs,
        "drop": list(judge.drop),
        "drop_source": "the thesis's only reported drop, 98% -> 96% (App. C.3.1, footnote to Finding 2)",
        "context_drop": list(judge.context_drop),
        **judge.power(runs, n_tests),
        "min_power": judge.min_power,
    }
    return Observation(value, details={"cells": cells, "power": power}, artifacts={"plots": plots}, seeds=cfg.seeds)


#: The Pareto grid as a sweep: a cell per (n, k, init, m, r) with its seeds batched (docs/running_at_scale.md).
PARETO_GRID = Grid(
    claim_id="edelman-ch6-fig6.1-pareto-grid",
    cells=_grid_cells,
    run=run_summary,
    aggregate=_aggregate_grid,
    cost=parity_cost,
)


def _cell(cells: list[dict[str, Any]], n: int, k: int, init: str, m: int | None, r: int) -> dict[str, Any]:
    for c in cells:
        if (c["n"], c["k"], c["init"], c["m"], c["width"]) == (n, k, init, m, r):
            return c
    raise KeyError(f"no cell (n={n}, k={k}, init={init}, m={m}, r={r}) in the observation")


@dataclass(frozen=True)
class FisherDropRule(Population):
    """The :class:`~verify.claims.judges.Population` rule of the Fisher-test grid (:class:`WidthMonotone`), so that its
    record has the fields of every training record (docs/sparse_parity.md, "How the Fisher test fills the population
    record"): ``p_alt`` -> ``p0`` is the judged drop (100 % -> 50 %), and :meth:`power` is the exact power of the
    one-sided Fisher test at level ``alpha`` / K to detect that drop between two cells of n runs, K the grid's width
    pairs. ``pairs`` holds (seeds per cell, K) for each configuration the rule is declared for, so that the power of a
    configuration is known from its seed count before the run (:meth:`power_at` takes K directly)."""

    alpha: float = 0.05
    pairs: tuple[tuple[int, int], ...] = ()

    def power_at(self, runs: int, pairs: int) -> float:
        """The power with ``runs`` seeds per cell and ``pairs`` width pairs (level alpha / pairs, Bonferroni: a lower
        bound for Holm's procedure)."""
        return fisher_drop_power(self.p_alt, self.p0, runs, self.alpha / max(pairs, 1))

    def power(self, n: int) -> float:
        known = dict(self.pairs)
        if n not in known:
            raise ValueError(f"no grid with {n} seeds per cell is declared for this rule (declared: {sorted(known)})")
        return self.power_at(n, known[n])

    def describe(self) -> str:
        return (
            f"no width pair's one-sided Fisher test rejects at family-wise {self.alpha:g} (Holm), with power >= "
            f"{self.min_power:g} against a drop {self.p_alt:.0%} -> {self.p0:.0%}"
        )


def grid_verdicts(
    counts: np.ndarray, runs: int, samples: tuple[int | None, ...], alpha: float, level: float, powered: bool
) -> np.ndarray:
    """:class:`WidthMonotone`'s verdict, vectorised over draws of a whole grid: ``counts`` has shape (D, P, I, M, R)
    (draws, (n,k) problems, inits, sample sizes in the grid's order, widths in increasing order), each a success count
    out of ``runs``. Per draw: ``fail`` when Holm rejects a width pair (its first step: the smallest one-sided Fisher
    p-value below alpha / K) or the success frontier (smallest m with success >= ``level``) is larger at the widest
    width than at the narrowest; else ``inconclusive`` when every cell of every (problem, init) block has the same
    count or the test is not ``powered``; else ``pass``. Returns the verdicts as strings, shape (D,)."""
    order = np.argsort([math.inf if m is None else m for m in samples], kind="stable")
    counts = np.asarray(counts)[:, :, :, order, :]
    D, P, I, M, R = counts.shape
    pairs = [(i, j) for j in range(R) for i in range(j)]
    x = np.stack([counts[..., i] for i, _ in pairs], axis=-1)
    y = np.stack([counts[..., j] for _, j in pairs], axis=-1)
    p = fisher_greater(x.astype(np.int64), y.astype(np.int64), runs).reshape(D, -1)
    rejected = p.min(axis=1) < alpha / p.shape[1]
    ok = counts / runs >= level  # (D, P, I, M, R)
    first = np.where(ok.any(axis=3), ok.argmax(axis=3), M)  # (D, P, I, R): index of the frontier m (M: none)
    wrong = (first[..., -1] > first[..., 0]).any(axis=(1, 2))
    flat = counts.reshape(D, P, I, M * R)
    informative = (flat != flat[..., :1]).any(axis=(1, 2, 3))
    out = np.full(D, "pass" if powered else "inconclusive", dtype=object)
    out[~informative] = "inconclusive"
    out[rejected | wrong] = "fail"
    return out


@dataclass(frozen=True)
class WidthMonotone(Judge):
    """Finding 2 of App. C.3.1, "width is monotonically beneficial", as a stated test. Per (n, k), init and m-row,
    every pair of widths r_i < r_j gets a one-sided Fisher exact test of "success drops from r_i to r_j"
    (:func:`drop_pvalues`); Holm's procedure over all pairs of the grid at family-wise level ``alpha``
    (:func:`numerics.stats.holm_rejections`); any rejection, or a success frontier (smallest m with success >= ``level``) larger at
    the widest width than at the narrowest, is ``fail``. Otherwise the verdict depends on the power
    (:func:`numerics.stats.fisher_drop_power`, exact) to detect a drop ``drop`` at the grid's seed count and level alpha / K
    (Bonferroni, a lower bound for Holm): ``pass`` when it is at least ``min_power``, ``inconclusive``
    (underpowered) when below. ``inconclusive`` also when, within each (problem, init) block, every cell has the same
    success rate (blocks may differ from each other: no width or sample count moved any cell).

    The judged effect size, a drop from 100 % to 50 % success, is the smallest drop that can move a cell across the
    frontier's level 1/2; it was set before any run. The thesis's own 98% -> 96% (``context_drop``) is reported:
    detecting it would take about 1000 seeds per cell."""

    alpha: float = 0.05
    level: float = 0.5
    drop: tuple[float, float] = (1.0, 0.5)
    min_power: float = 0.8
    context_drop: tuple[float, float] = THESIS_DROP
    grids: tuple[tuple[int, int], ...] = ()
    flip_draws: int = 4000

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        cfg = config
        cells, runs = obs.details["cells"], len(cfg.seeds)
        problems, frontiers, informative, tests = [], [], False, []
        for n, k in cfg.problems:
            for init in cfg.inits:
                rates_all = []
                for m in cfg.samples:
                    counts = [_cell(cells, n, k, init, m, r)["successes"] for r in cfg.widths]
                    rates_all.extend(counts)
                    tests += [((n, k), init, m, counts, i, j, p) for i, j, p in drop_pvalues(counts, runs)]
                informative |= len(set(rates_all)) > 1
                ms = [math.inf if m is None else float(m) for m in cfg.samples]
                front = [
                    success_frontier(
                        ms, [_cell(cells, n, k, init, m, r)["successes"] / runs for m in cfg.samples], self.level
                    )
                    for r in (cfg.widths[0], cfg.widths[-1])
                ]
                frontiers.append(
                    f"({n},{k}) {init}: m*(r={cfg.widths[0]})={front[0]:g}, m*(r={cfg.widths[-1]})={front[1]:g}"
                )
                if front[1] > front[0]:
                    problems.append(
                        f"({n},{k}) {init}: frontier moves the wrong way, smallest m with success >= {self.level:g} "
                        f"is {front[1]:g} at r={cfg.widths[-1]} > {front[0]:g} at r={cfg.widths[0]}"
                    )
        rejected = holm_rejections([t[-1] for t in tests], self.alpha) if tests else []
        for ((n, k), init, m, counts, i, j, p), rej in zip(tests, rejected):
            if rej:
                problems.insert(
                    0,
                    f"({n},{k}) {init} m={_m_label(m)}: success drops from {counts[i]}/{runs} at r={cfg.widths[i]} to "
                    f"{counts[j]}/{runs} at r={cfg.widths[j]} (Fisher p={p:.3g}, rejected by Holm at {self.alpha:g})",
                )
        pw = self.power(runs, len(tests))
        smallest = min((t[-1] for t in tests), default=1.0)
        summary = "; ".join(frontiers) + (
            f"; {len(tests)} width pairs tested (one-sided Fisher, Holm at family-wise {self.alpha:g}), smallest "
            f"p = {smallest:.3g}, none rejected"
            if not any(rejected)
            else ""
        )
        if problems:
            return verdict_from_problems(summary, problems, "")
        if not informative:
            return (
                "inconclusive",
                summary
                + "; within each (problem, init) block every cell has the same success rate, the grid cannot show a "
                "width effect",
            )
        power_text = (
            f"power to detect a drop {self.drop[0]:.0%} -> {self.drop[1]:.0%} with {runs} seeds per cell "
            f"at level {self.alpha:g}/{len(tests)}: {pw['power']:.3g} (against {self.context_drop[0]:.0%} -> "
            f"{self.context_drop[1]:.0%}, the thesis's: {pw['context_power']:.3g})"
        )
        if pw["power"] < self.min_power:
            return "inconclusive", (
                f"{summary}; frontier no larger at the widest width; but the test is underpowered: {power_text} "
                f"< {self.min_power:g}, so the absence of a significant drop does not show monotonicity"
            )
        return "pass", f"{summary}; frontier no larger at the widest width; {power_text} >= {self.min_power:g}"

    @property
    def rule(self) -> FisherDropRule:
        """The population rule of the record: the judged drop, the level and the declared grids (``grids``: (seeds
        per cell, width pairs) of each configuration)."""
        return FisherDropRule(
            p0=self.drop[1], p_alt=self.drop[0], min_power=self.min_power, alpha=self.alpha, pairs=self.grids
        )

    def planned_runs(self, config: Any) -> int:
        """Seeds per cell: the runs each Fisher test compares per setting."""
        return len(config.seeds)

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        """The record's population fields for the Fisher test (docs/sparse_parity.md): ``n`` seeds per cell;
        ``successes``, ``rate``, ``lower``, ``upper``: the wider cell of the width pair closest to a significant drop
        (smallest one-sided Fisher p-value), with its Clopper-Pearson bounds; ``p_alt`` -> ``p0``: the judged drop;
        ``power``: the Fisher test's at level alpha / K; ``verdict``: the judge's; the flip probabilities: the share
        of :attr:`flip_draws` fresh grids (fixed generator) whose verdict differs, each cell's count drawn from
        Bin(n, observed rate) (plug-in) or from Bin(n, p), p ~ Beta(s + 1, n - s + 1) (predictive)."""
        cfg, runs = config, len(config.seeds)
        cells = obs.details["cells"]
        counts = np.array(
            [
                [
                    [[_cell(cells, n, k, init, m, r)["successes"] for r in cfg.widths] for m in cfg.samples]
                    for init in cfg.inits
                ]
                for n, k in cfg.problems
            ]
        )
        tests = []
        for pi, (n, k) in enumerate(cfg.problems):
            for ii, init in enumerate(cfg.inits):
                for mi, m in enumerate(cfg.samples):
                    row = [int(c) for c in counts[pi, ii, mi]]
                    tests += [
                        (p, row[j], (n, k), init, m, cfg.widths[i], cfg.widths[j], row[i])
                        for i, j, p in drop_pvalues(row, runs)
                    ]
        p_min, wide, (n, k), init, m, r_i, r_j, narrow = min(tests, key=lambda t: t[0])
        K = len(tests)
        verdict, _ = self(predicted, obs, config)
        powered = self.rule.power_at(runs, K) >= self.min_power
        draws = max(100, min(self.flip_draws, 2_000_000 // max(K, 1)))
        rng = np.random.default_rng(20_240_601)
        flips = flip_probabilities(
            counts,
            runs,
            draws,
            rng,
            lambda drawn: grid_verdicts(drawn, runs, cfg.samples, self.alpha, self.level, powered),
            verdict,
        )
        lo, hi = clopper_pearson(wide, runs, self.rule.confidence)
        return {
            "n": runs,
            "successes": wide,
            "rate": wide / runs,
            "p0": self.rule.p0,
            "confidence": self.rule.confidence,
            "lower": lo,
            "upper": hi,
            "p_alt": self.rule.p_alt,
            "power": self.rule.power_at(runs, K),
            "min_power": self.min_power,
            "deterministic": False,
            "verdict": verdict,
            "flip_probability": max(flips["predictive"], flips["plugin"]),
            "flip_probability_plugin": flips["plugin"],
            "test": "one-sided Fisher exact test per width pair, Holm over the grid (docs/sparse_parity.md)",
            "pairs": K,
            "level": self.alpha / K,
            "closest_pair": {
                "problem": f"({n},{k})",
                "init": init,
                "m": _m_label(m),
                "narrow": {"width": r_i, "successes": narrow},
                "wide": {"width": r_j, "successes": wide},
                "p_value": p_min,
            },
            "flip_draws": draws,
        }

    def power(self, runs: int, n_tests: int) -> dict[str, float]:
        """Exact power (:func:`numerics.stats.fisher_drop_power`) at ``runs`` seeds and level alpha / n_tests against ``drop`` and
        ``context_drop``."""
        level = self.alpha / max(n_tests, 1)
        return {
            "level": level,
            "power": fisher_drop_power(*self.drop, runs, level),
            "context_power": fisher_drop_power(*self.context_drop, runs, level),
        }

    def describe(self) -> str:
        return (
            f"per (n,k), init and m-row, every width pair r_i < r_j: one-sided Fisher exact test of a success drop, Holm "
            f"over all pairs at family-wise alpha = {self.alpha:g}: no rejection; smallest m with success >= "
            f"{self.level:g} at the widest width <= that at the narrowest; power to detect a drop "
            f"{self.drop[0]:.0%} -> {self.drop[1]:.0%} (exact, level alpha/K) >= {self.min_power:g}, else inconclusive "
            "(underpowered); inconclusive if, within each (problem, init) block, every cell has the same success rate"
        )


#: The Pareto grid's configurations (quick: a CPU-sized slice; full: the thesis grid, App. C.3.1).
PARETO_CONFIGS = {
    "quick": ParetoGridConfig(
        problems=((30, 3),),
        widths=(10, 100, 300),
        samples=(400, 1000),
        seeds=tuple(range(6)),
        steps=12_000,
        eval_every=300,
        num_threads=1,
    ),
    "full": ParetoGridConfig(
        problems=tuple((n, k) for k in (3, 4) for n in (50, 100, 150, 200, 250, 300)),
        widths=(10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000),
        samples=(*tuple(c * 10**e for e in range(2, 6) for c in (1, 2, 3, 6)), 1000000, None),
        seeds=tuple(range(50)),
        steps=100_000,
        eval_every=500,
    ),
}


def _width_pairs(cfg: ParetoGridConfig) -> int:
    """Number of width-pair tests of the grid (per (n, k), init and m-row, every pair r_i < r_j)."""
    r = len(cfg.widths)
    return len(cfg.problems) * len(cfg.inits) * len(cfg.samples) * r * (r - 1) // 2


def _underpowered_scales(judge: WidthMonotone) -> dict[str, str]:
    """The scales whose seed count gives :class:`WidthMonotone` less than ``min_power`` against its effect size,
    computed from the configs alone (before any run), with the power in the reason."""
    out = {}
    for scale, cfg in PARETO_CONFIGS.items():
        pairs = _width_pairs(cfg)
        pw = judge.power(len(cfg.seeds), pairs)
        if pw["power"] < judge.min_power:
            enough = next(
                (r for r in range(len(cfg.seeds), 1001) if judge.power(r, pairs)["power"] >= judge.min_power), None
            )
            out[scale] = (
                f"{len(cfg.seeds)} seeds per cell and {pairs} width pairs give power {pw['power']:.3g} "
                f"(< {judge.min_power:g}) to detect a drop {judge.drop[0]:.0%} -> {judge.drop[1]:.0%}; "
                + (f"{enough} seeds per cell would reach it" if enough else "over 1000 seeds per cell would be needed")
            )
    return out


#: The Pareto grid's judge, with the grids its population rule is declared for.
PARETO_JUDGE = WidthMonotone(grids=tuple((len(c.seeds), _width_pairs(c)) for c in PARETO_CONFIGS.values()))

#: The quick grid's rows, chosen after a search (declared by every claim judged on the grid's runs).
QUICK_ROWS = PostHoc(
    parameter="quick m-rows",
    value="m in {400, 1000} at (30,3), T = 1.2e4",
    when="after the width-buys-data search (SETTING_NOTE), which found m = 400 to separate r = 10 from r = 300",
    why="a quick grid small enough for 2 CPU cores whose rows straddle the frontier; the judged test and its effect "
    "size were fixed before any run",
)


register(
    Claim(
        id=PARETO_GRID.claim_id,
        source=f"{SRC_CH6}, Sec. 6.4, Fig. 6.1 / 6.2 / C.1, App. C.3.1 Findings (1)-(2); docs/sparse_parity.md",
        statement="Offline (n,k)-sparse parity, 2-layer ReLU MLP, hinge, SGD B=32, eta=0.1, weight decay 0.01 "
        "(PyTorch style), dense (PyTorch default) or 2-sparse first-layer init: 'width is monotonically "
        "beneficial' - in every vertical slice (fixed m) the success probability (test error <= 10% on 10^4 "
        "held-out points within T steps) is non-decreasing in the width r, exceptions within Bernoulli "
        "confidence intervals; hence the success frontier (smallest m with success >= 1/2) moves to smaller "
        "m (or stays) as r grows ('width buys data').",
        kind="training",
        configs=PARETO_CONFIGS,
        predict=_predict_grid,
        observe=PARETO_GRID.observe,
        judge=PARETO_JUDGE,
        underpowered=_underpowered_scales(PARETO_JUDGE),
        deviations={"quick": (), "full": ()},
        post_hoc=(QUICK_ROWS,),
        insensitive=(
            "the prediction is qualitative (success non-decreasing in width, frontier no larger at the widest "
            "width), with no theory number the judge could read; the test is the Fisher/Holm rule on the observed "
            "cells, and at quick scale it is declared underpowered (inconclusive by design)"
        ),
    )
)


# ------------------------------------------------------------------------------ Fig. 6.2 center: width buys data

#: The quick setting was found by a search, which the record says (every record carries this note).
SETTING_NOTE = (
    "Setting chosen by a search on 2 CPU cores with this trainer (dense init, hinge, B = 32, eta = 0.1, PyTorch-style "
    "lambda = 0.01), not taken from the thesis, whose grid is only in figures. The first candidate, (30,3) at m = 600 "
    "and T = 2e4, did not separate the widths (width 10 already succeeded in 3 of 4 runs). Searched, 6 seeds each "
    "(successes/6): T = 1e4: m = 200 and 300 all 0/6 for r = 10, 30, 100; m = 400 r = 100: 3/6 at the budget. "
    "T = 2e4: m = 500 dense r = 10/100/300: 2/5/6; m = 400 dense 0/4/5, sparse 0/4/6. T = 2e4, m = 400, 8 seeds: "
    "r = 10: 0/8, r = 300: 7/8 on seeds 0-7 but 5/8 on seeds 8-15 (T too tight: some t_c reach 2.55e4). "
    "T = 4e4, 16 seeds: r = 10: 0/16, r = 300: 15/16 (t_c 6500-25500). Chosen: (30,3), m = 400, dense, r = 10 vs "
    "300, T = 3e4, seeds 0-7, 1e4 test points; by the t_c above the held-out seeds 8-15 give 0/8 vs 7/8, so the "
    "verdict does not hinge on the seed choice. The width effect is the claim; the exact m where it shows is not. "
    "Since the seed-population verdict (issue 28) the judged seeds are 0-15 (the search's seeds) and the test set "
    "has 2000 points at quick scale."
)


#: Which setting of the record is the source's and which was chosen (every record carries it).
SOURCE_NOTE = (
    "Two settings are run on the same widths (the source setting on the first source_seeds seeds). 'source': "
    "m = 600, one of the sample sizes of the thesis's grid (App. C.3.1: m in {100, 200, 300, 600, 1000, ...}, "
    "T = 1e5 iterations, n in {50, ..., 300}), at the toolkit's (30,3); at quick scale with T = 2e4 (the first candidate of the search; the thesis's T = 1e5 costs "
    "about 5x more for the failing narrow runs), at full scale with the thesis's T = 1e5. It is reported, not judged. "
    "'chosen': m = 400, T = 3e4 at quick scale, found by the search recorded in 'setting' because at m = 600 the narrow "
    "net already succeeds in about half of the runs, so the wide net succeeds where the narrow one fails on only "
    "about half of the seeds there; the verdict is the chosen setting's. The source setting runs on the first "
    "source_seeds seeds. The thesis has no (30,3) grid and states no success rates in numbers."
)


@dataclass(frozen=True)
class WidthBuysDataConfig:
    """Narrow vs wide MLP at one offline (n, k, m) (Fig. 6.2 center, Finding 2; docs/sparse_parity.md).

    ``control_seeds``: also train the wide net with multiplicative decay (1-λ)θ (the Ch. 5 convention) on that
    many of the seeds (0 = no control). ``delta``: the failure probability δ of the Prop. 6.3 bookkeeping.
    How the quick setting was chosen, and that it was searched for, is recorded in :data:`SETTING_NOTE`.

    ``source_m``, ``source_steps``: the source-side setting, run on the first ``source_seeds`` seeds (None: all) and
    the same widths next to the chosen one and reported (not judged) in every record, labelled as such
    (:data:`SOURCE_NOTE`): m = 600, a sample size of the thesis's grid (App. C.3.1), with T = 2·10^4 at quick scale
    (the first candidate setting, which showed no gap) and with the thesis's own budget T = 10^5 at full scale.
    """

    n: int
    k: int
    m: int
    narrow: int
    wide: int
    seeds: tuple[int, ...]
    steps: int
    eval_every: int
    init: str = "default"
    n_val: int = 10_000
    lr: float = 0.1
    weight_decay: float = 0.01
    control_seeds: int = 4
    delta: Fraction = Fraction(1, 2)
    num_threads: int | None = None
    source_m: int | None = None
    source_steps: int | None = None
    source_seeds: int | None = None

    def __post_init__(self) -> None:
        if self.source_seeds is not None and not 1 <= self.source_seeds <= len(self.seeds):
            raise ValueError(f"source_seeds must be None or in [1, {len(self.seeds)}], got {self.source_seeds}")
        if not self.narrow < self.wide:
            raise ValueError(f"need narrow < wide, got {self.narrow}, {self.wide}")
        if (self.source_m is None) != (self.source_steps is None):
            raise ValueError("source_m and source_steps go together (both None: the source setting is not run)")


def _predict_b8(cfg: WidthBuysDataConfig) -> dict[str, Any]:
    out: dict[str, Any] = {
        "C(n,k)": math.comb(cfg.n, cfg.k),
        "tau": f"1/sqrt({cfg.m})",
        "delta": cfg.delta,
    }
    for name, r in (("narrow", cfg.narrow), ("wide", cfg.wide)):
        p = mlp_parameter_count(cfg.n, r)
        out[f"params_{name}"] = p
        out[f"sq_max_blind_steps_{name}"] = sq_max_blind_steps(p, cfg.m, cfg.delta, cfg.n, cfg.k)
        out[f"sq_bound_applies_at_T_{name}"] = sq_lower_bound_applies(p, cfg.steps * cfg.m, 1, cfg.delta, cfg.n, cfg.k)
    blind = [out["sq_max_blind_steps_narrow"], out["sq_max_blind_steps_wide"]]
    out["note"] = (
        f"Prop. 6.3 with tau^2 = 1/m, delta = {cfg.delta}: the SQ bound forbids learning for T <= "
        f"{blind[0]} (narrow) / {blind[1]} (wide) steps; the serial-time floor scales as C(n,k)/(params m), "
        "so more parameters lower it (the resource trade-off). The width effect itself is the qualitative "
        "Finding 2, judged per seed (docs/sparse_parity.md)."
    )
    return out


def _b8_cells(cfg: WidthBuysDataConfig) -> list[Cell]:
    """The narrow and the wide net on every seed, the wide net with multiplicative decay on the control seeds, and
    with ``source_m`` the narrow and the wide net at the source setting (``narrow_source``, ``wide_source``)."""
    plan = [
        ("narrow", cfg.narrow, "pytorch", cfg.seeds, cfg.m, cfg.steps),
        ("wide", cfg.wide, "pytorch", cfg.seeds, cfg.m, cfg.steps),
    ]
    if cfg.control_seeds:
        plan.append(
            ("wide_multiplicative_decay", cfg.wide, "multiplicative", cfg.seeds[: cfg.control_seeds], cfg.m, cfg.steps)
        )
    if cfg.source_m is not None:
        plan += [
            (f"{name}_source", r, "pytorch", cfg.seeds[: cfg.source_seeds], cfg.source_m, cfg.source_steps)
            for name, r in (("narrow", cfg.narrow), ("wide", cfg.wide))
        ]
    return [
        parity_cell(
            name,
            cell_config(
                cfg.n,
                cfg.k,
                r,
                m,
                cfg.init,
                seeds,
                steps,
                cfg.eval_every,
                n_val=cfg.n_val,
                decay=decay,
                weight_decay=cfg.weight_decay,
                lr=cfg.lr,
                num_threads=cfg.num_threads,
            ),
        )
        for name, r, decay, seeds, m, steps in plan
    ]


def _aggregate_b8(cfg: WidthBuysDataConfig, results: list[CellResult]) -> Observation:
    rows: dict[str, dict[str, Any]] = {}
    ctrl_seeds = cfg.seeds[: cfg.control_seeds]
    for res in results:
        c, v = res.cell.config, res.value
        success = np.isfinite(v["t_c"])
        rows[res.cell.label] = {
            "width": c.width,
            "m": c.n_train,
            "steps": c.steps,
            "decay": c.decay,
            "seeds": ran_seeds(res),
            "successes": int(success.sum()),
            "runs": len(c.seeds),
            "rate": float(success.mean()),
            "t_c": tc_list(v["t_c"]),
            "final_accuracy": [float(a) for a in v["final_accuracy"]],
            "best_accuracy": [float(a) for a in v["best_accuracy"]],
            "wall_s": round(res.runtime_s, 2),
        }
    gap = rows["wide"]["rate"] - rows["narrow"]["rate"]
    details: dict[str, Any] = {"runs": rows, "gap": gap, "setting": SETTING_NOTE, "settings_note": SOURCE_NOTE}
    chosen = {"m": cfg.m, "steps": cfg.steps, "role": "chosen (judged)", "gap": gap}
    for name in ("narrow", "wide"):
        chosen[f"{name}_successes"] = f"{rows[name]['successes']}/{rows[name]['runs']}"
    details["settings"] = {"chosen": chosen}
    if cfg.source_m is not None:
        src = {"m": cfg.source_m, "steps": cfg.source_steps, "role": "source (reported, not judged)"}
        src["gap"] = rows["wide_source"]["rate"] - rows["narrow_source"]["rate"]
        for name in ("narrow", "wide"):
            src[f"{name}_successes"] = f"{rows[name + '_source']['successes']}/{rows[name + '_source']['runs']}"
        details["settings"]["source"] = src
    else:
        details["settings"]["source"] = {
            "m": 600,
            "role": "source: NOT RUN at this scale (source_m is None in this config)",
        }
    if cfg.control_seeds:
        c = len(ctrl_seeds)
        mult = rows["wide_multiplicative_decay"]["successes"]
        pt = int(sum(t is not None for t in rows["wide"]["t_c"][:c]))
        strong = abs(pt - mult) >= c / 2
        details["weight_decay_convention"] = (
            f"r={cfg.wide}, seeds {list(ctrl_seeds)}: multiplicative decay (1-λ)θ - η∇ with "
            f"λ={cfg.weight_decay}: "
            f"{mult}/{c} successes vs PyTorch-style θ - η(∇+λθ): {pt}/{c}; per-step shrink factor "
            f"{1 - cfg.weight_decay:g} vs {1 - cfg.lr * cfg.weight_decay:g}; best test accuracy under multiplicative "
            f"decay {[round(a, 3) for a in rows['wide_multiplicative_decay']['best_accuracy']]}. The result "
            + ("depends strongly on the convention." if strong else "is not very sensitive to the convention.")
        )
    series = [
        {
            "label": f"{name} (r={row['width']}, m={row['m']}, T={row['steps']}, {row['decay']})",
            "x": list(range(row["runs"])),
            "y": row["final_accuracy"],
            "ls": "",
            "marker": "o",
        }
        for name, row in rows.items()
    ]
    plot = {
        "name": "final-accuracy",
        "kind": "lines",
        "series": series,
        "xlabel": "seed index",
        "ylabel": "test accuracy at the end",
        "hlines": [{"y": 0.9, "label": "success (error <= 10%)"}],
        "title": f"offline ({cfg.n},{cfg.k}), chosen m={cfg.m}, T={cfg.steps}"
        + (f"; source m={cfg.source_m}, T={cfg.source_steps}" if cfg.source_m is not None else ""),
    }
    return Observation(
        {"success_narrow": rows["narrow"]["rate"], "success_wide": rows["wide"]["rate"], "gap": gap},
        details=details,
        artifacts={"plots": [plot]},
        seeds=cfg.seeds,
    )


#: Width buys data as a sweep: three cells (narrow, wide, wide with multiplicative decay).
B8_GRID = Grid(
    claim_id="edelman-ch6-width-buys-data",
    cells=_b8_cells,
    run=run_summary,
    aggregate=_aggregate_b8,
    cost=parity_cost,
)


#: Width buys data: "a narrow net mostly fails where a wide one mostly succeeds" reads "typically" (p0 = 1/2). The
#: alternative was 0.9 (the search's held-out seeds met it at 7 of 8); a fresh seed set (1000-1015) then gave 9 of
#: 16, so the pooled paired rate of the 32 seeds run, 24/32 = 0.75, is the alternative now (issue 28, item 4;
#: declared post hoc, B8_REDESIGN), and 64 seeds give power 0.991 against it and a plug-in flip probability of
#: 0.009 at 0.75 (docs/sparse_parity.md).
B8_RULE = Population(p0=0.5, p_alt=0.75)

#: The redesign after the fresh-seed run (issue 28, item 4), fixed before any run of it.
B8_REDESIGN = PostHoc(
    parameter="seeds and p_alt",
    value="seeds 0-63 (quick and full), p_alt = 0.75",
    when="2026-11-29, after --seed-offset 1000 gave 9/16 paired successes (seeds 0-15: 15/16), before any run at 64 "
    "seeds",
    why="the pooled paired rate of the 32 seeds run is 0.75; at 0.75, 16 seeds pass with probability 0.63 and 64 with "
    "0.991 (plug-in flip probability 0.009 < 0.01, issue 28's rule); the setting itself (m, T, widths) is unchanged",
)


@dataclass(frozen=True)
class WidthBuysData(SeedPopulation):
    """Fig. 6.2 center / Finding 2 at one offline (n, k, m) as a seed population, paired: a seed's narrow and wide
    nets train on the same m samples in the same order (the data stream depends on the seed only), and the seed
    succeeds when the wide net reaches test error <= 10% within T steps, after the predicted SQ floor of Prop. 6.3
    (``predicted["sq_max_blind_steps_wide"]``: no learning before it), while the narrow one does not. The verdict
    is :attr:`rule` on the seeds; the source-side setting (m = 600) is reported, not judged."""

    rule: Population = B8_RULE

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        narrow, wide = obs.details["runs"]["narrow"], obs.details["runs"]["wide"]
        floor = float(predicted["sq_max_blind_steps_wide"])
        out = []
        for seed, t_n, t_w in zip(wide["seeds"], narrow["t_c"], wide["t_c"]):
            problems = []
            if t_w is None:
                problems.append(f"wide (r={config.wide}) did not succeed within {config.steps} steps")
            elif not t_w > floor:
                problems.append(f"wide succeeded at step {t_w:g}, not after the SQ floor {floor:g}")
            if t_n is not None:
                problems.append(f"narrow (r={config.narrow}) succeeded at step {t_n:g}")
            out.append({"label": f"seed {seed}", "seed": seed, "problems": problems})
        return out

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        rows = obs.details["runs"]
        summary = (
            f"chosen setting m={config.m}, T={config.steps:g}: success r={config.narrow}: "
            f"{rows['narrow']['successes']}/{rows['narrow']['runs']}, r={config.wide}: "
            f"{rows['wide']['successes']}/{rows['wide']['runs']} (SQ floor of Prop. 6.3: "
            f"{float(predicted['sq_max_blind_steps_wide']):g} steps for the wide net)"
        )
        verdict, tally = self.tally(
            self.units(predicted, obs, config), "seeds (wide succeeds, narrow fails, same sample)"
        )
        src = obs.details.get("settings", {}).get("source")
        if src and "gap" in src:
            tally += (
                f"; source setting m={src['m']}, T={src['steps']:g} (reported, not judged): r={config.narrow} "
                f"{src['narrow_successes']}, r={config.wide} {src['wide_successes']}"
            )
        elif src:
            tally += f"; source setting m={src['m']} not run at this scale"
        return verdict, f"{summary}; {tally}"

    def describe(self) -> str:
        return (
            "per seed, on the same m samples: the wide net reaches test error <= 10% within T steps (after the SQ floor "
            f"of Prop. 6.3) and the narrow net does not; {self.rule.describe()}; the source setting's success counts "
            "are reported, not judged"
        )


#: Width buys data at full scale: the chosen setting (m = 400, widths 10 and 300) on 64 seeds with the thesis's budget
#: T = 10^5 (App. C.3.1), the source setting m = 600 on every seed.
B8_FULL = WidthBuysDataConfig(
    n=30,
    k=3,
    m=400,
    narrow=10,
    wide=300,
    seeds=tuple(range(64)),
    steps=100_000,
    eval_every=500,
    source_m=600,
    source_steps=100_000,
)

#: At quick scale: the same setting with T = 3e4, 2000 test points, no weight-decay control, and the source setting on
#: the first 8 seeds with T = 2e4 (SOURCE_NOTE).
B8_QUICK = replace(
    B8_FULL, steps=30_000, n_val=2000, control_seeds=0, num_threads=1, source_steps=20_000, source_seeds=8
)


register(
    Claim(
        id=B8_GRID.claim_id,
        source=f"{SRC_CH6}, Sec. 6.4, Fig. 6.2 center, App. C.3.1 Finding (2); Prop. 6.3 (resource trade-off); docs/sparse_parity.md",
        statement="At a fixed offline sample size m where a narrow 2-layer ReLU MLP (PyTorch-default init, hinge, SGD "
        "B=32, eta=0.1, PyTorch-style weight decay 0.01) mostly fails on the (n,k)-sparse parity, a wide one "
        "mostly succeeds (test error <= 10%): width buys data. Qualitative prediction from the resource "
        "trade-off of Prop. 6.3 (parameters x steps vs tau^2 C(n,k), r = parameter count, not width): more "
        "parallel queries (parameters) substitute for serial time and samples. Judged per seed, paired (the narrow "
        "and the wide net of a seed see the same samples): the wide net succeeds and the narrow one does not; target "
        "rate 1/2 ('mostly'), power against 0.75 (64 seeds). Judged at the chosen setting (m = 400, found by a recorded search); "
        "the source-side setting m = 600 (a sample size of the thesis's grid) is run on the first 8 seeds and reported "
        "next to it, not judged.",
        kind="training",
        configs={"quick": B8_QUICK, "full": B8_FULL},
        predict=_predict_b8,
        observe=B8_GRID.observe,
        judge=WidthBuysData(),
        deviations={"quick": (), "full": ()},
        post_hoc=(
            PostHoc(
                parameter="chosen setting",
                value="(30,3), m = 400, r = 10 vs 300; T = 3e4 at quick scale, the source's 1e5 at full",
                when="after a search over m, T and widths on seeds 0-15 (SETTING_NOTE, in every record)",
                why="the first candidate m = 600 did not separate the widths; the claim establishes a width effect at "
                "some m where the narrow net fails, not where the frontier lies",
            ),
            B8_REDESIGN,
        ),
        note=(
            "Redesigned for stability under fresh seeds (issue 28, item 4): with 16 seeds, --seed-offset 1000 "
            "(seeds 1000-1015) gave narrow 4/16, wide 12/16 and 9 of 16 paired successes (inconclusive) where seeds "
            "0-15 gave 15/16 (pass); pooled, 24/32 = 0.75. The claim now runs 64 seeds against the alternative 0.75 "
            "(B8_REDESIGN, post hoc); m, T and the widths are unchanged. docs/sparse_parity.md."
        ),
        insensitive=(
            "the prediction read per seed is Prop. 6.3's SQ floor, which is 0 steps at m = 400 (the bound is vacuous "
            "at this size), so a 1 % error cannot move a success across it; the width effect itself is qualitative "
            "(a larger floor does fail the seeds: tests/verify/test_sparse_parity_claims.py)"
        ),
    )
)
