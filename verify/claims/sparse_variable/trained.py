r"""Edelman thesis Sec. 4.6 / App. A.3: one-layer transformers trained on sparse Boolean functions (training claims).

* Fig. 4.3 (right): a single head trained on a 3-sparse AND puts (almost) no attention on the irrelevant bits;
* Fig. 4.4: on a 3-sparse parity the loss sits at chance (log 2) and then drops to 100 % accuracy;
* Fig. 4.2: the sample threshold m(T) of the 3-sparse AND grows like log T.

Models and data: :mod:`verify.train.sparse_variable` (on :class:`verify.train.attention.AttentionEnsemble`), trained on
``ctx.device``. The quick settings are smaller than the thesis's and were chosen for a 2-core CPU;
``docs/sparse_variable.md`` says which, why, and what was tried. Predictions from :mod:`theory.sparse_variable`:
the chance-level cross-entropy log 2 and the information bound log2 C(T, 3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import sympy

from numerics import sparse_variable as ns
from theory import sparse_variable as ts
from verify.sweep import Cell, CellCost, CellResult, Grid
from verify.train import sparse_variable as vs

from ..base import Claim, Observation, RunContext, register
from ..judges import Judge, Verdict, verdict_from_problems
from ..training import run_checkpointed
from .common import SRC, SRC_A3

# --------------------------------------------------------------------------------------------- Fig. 4.3 (right)

#: Fig. 4.3 right (App. A.3.2): T = 50, m = 300, I = {5, 20, 30}, one head; quick: d = 32 (thesis 64), 100 steps
#: (thesis 500; the attention pattern is set by then, docs/sparse_variable.md).
FIG43_QUICK = vs.AndRunConfig(
    T=50,
    m=300,
    trials=(0, 1, 2, 3),
    support=(5, 20, 30),
    model=vs.ModelConfig(d=32, heads=1),
    steps=100,
    n_val=500,
    eval_every=50,
    attention_probe=200,
    num_threads=1,
)
FIG43_FULL = vs.AndRunConfig(
    T=50,
    m=300,
    trials=tuple(range(10)),
    support=(5, 20, 30),
    model=vs.ModelConfig(d=64, heads=1),
    steps=500,
    n_val=10_000,
    eval_every=10,
    attention_probe=200,
)


@dataclass(frozen=True)
class Fig43Config:
    """The run, and the checks: every seed reaches ``min_val_acc``; at least ``min_sparse_seeds`` seeds put at most
    ``max_irrelevant_mass`` of the [CLS] attention on the T - 3 irrelevant bits, on every probe example.

    The thesis shows one trained model; our seeds split into two kinds (docs/sparse_variable.md): "sparse" seeds
    (irrelevant mass <= 0.04 on every example) and "sink" seeds (<= 0.02 on label-0 examples but 0.3-0.8 on label-1
    examples, parked on irrelevant 1-bits). ``max_irrelevant_mass = 0.1`` was set after the first quick run had
    shown 0.040 for the sparse seed and >= 0.60 for the others: any value in [0.05, 0.5] gives the same verdict."""

    run: vs.AndRunConfig = FIG43_QUICK
    min_val_acc: float = 0.99
    max_irrelevant_mass: float = 0.1
    min_sparse_seeds: int = 1


def _attention_rows(run: vs.AndRun) -> list[dict[str, Any]]:
    A = run.attention.mean(axis=2)  # (S, probe, T + 1), averaged over heads
    rows = []
    for k in range(A.shape[0]):
        trial = k // run.config.restarts
        I = list(run.supports[trial])
        bits = run.probe_bits[trial]
        y = bits[:, I].all(axis=1)
        irr = np.delete(A[k, :, :-1], I, axis=1).sum(axis=1)
        rows.append(
            {
                "seed": run.config.seeds[k],
                "val_acc": float(run.best_val[k]),
                "final_val_acc": float(run.history[-1]["val_acc"][k]),
                "irrelevant_max": float(irr.max()),
                "irrelevant_mean_label0": float(irr[~y].mean()) if (~y).any() else 0.0,
                "irrelevant_mean_label1": float(irr[y].mean()) if y.any() else 0.0,
                "relevant_mean": float(A[k][:, I].sum(axis=1).mean()),
                "cls_mean": float(A[k, :, -1].mean()),
            }
        )
    return rows


@dataclass(frozen=True)
class SparseAttention(Judge):
    """Fig. 4.3 right: every seed trains to ``min_val_acc`` and at least ``min_sparse_seeds`` seeds keep the
    irrelevant-bit attention at most ``max_irrelevant_mass`` on every probe example (bounds from the config)."""

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        rows = obs.details["per_seed"]
        if not rows:
            return "inconclusive", "no seed finished"
        problems = [
            f"seed {r['seed']}: validation accuracy {r['val_acc']:.4f}"
            for r in rows
            if r["val_acc"] < config.min_val_acc
        ]
        sparse = [r["seed"] for r in rows if r["irrelevant_max"] <= config.max_irrelevant_mass]
        if len(sparse) < config.min_sparse_seeds:
            problems.append(f"only {len(sparse)} seed(s) with irrelevant mass <= {config.max_irrelevant_mass}")
        summary = "irrelevant mass (max over examples) " + ", ".join(f"{r['irrelevant_max']:.3f}" for r in rows)
        return verdict_from_problems(summary, problems, f"sparse seeds {sparse}")

    def describe(self) -> str:
        return (
            "every seed: best validation accuracy >= config.min_val_acc; at least config.min_sparse_seeds seeds: "
            "[CLS] attention on irrelevant bits <= config.max_irrelevant_mass on every probe example"
        )


def _fig43_plots(run: vs.AndRun, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    A = run.attention.mean(axis=2)
    order = np.argsort([r["irrelevant_max"] for r in rows])
    panels = []
    for k in (int(order[0]), int(order[-1])):
        shown = A[k, :40, :-1]
        panels.append(
            {
                "title": f"seed {rows[k]['seed']} (irrelevant max {rows[k]['irrelevant_max']:.2f})",
                "z": np.round(shown, 3).tolist(),
            }
        )
    T = run.config.T
    series = [
        {"label": f"seed {r['seed']}", "x": list(range(T)), "y": A[k, :, :-1].max(axis=0).tolist(), "marker": "."}
        for k, r in enumerate(rows)
    ]
    return [
        {
            "name": "attention-max",
            "kind": "lines",
            "series": series,
            "xlabel": "position t",
            "ylabel": "largest [CLS] attention weight over probe examples",
            "title": f"Fig. 4.3 right: I = {list(run.supports[0])}",
        },
        {
            "name": "attention-examples",
            "kind": "heatmap",
            "x": list(range(T)),
            "y": list(range(40)),
            "panels": panels,
            "xlabel": "position t",
            "ylabel": "probe example",
            "zlabel": "attention weight",
            "vmin": 0.0,
            "vmax": 1.0,
        },
    ]


def _predict_fig43(cfg: Fig43Config) -> dict[str, Any]:
    """The selection the construction of Lemma A.19 makes: weight 1/s on each relevant bit, 0 elsewhere."""
    return {"relevant_weight": sympy.Rational(1, cfg.run.s), "irrelevant_weight": sympy.Integer(0)}


#: Carried in every Fig. 4.3 record: how the threshold was chosen (Fig43Config's docstring).
FIG43_THRESHOLD_NOTE = (
    "max_irrelevant_mass = 0.1 was set after the first quick run had shown 0.040 for the sparse seed and >= 0.60 for "
    "the others; any value in [0.05, 0.5] gives the same verdict (docs/sparse_variable.md)"
)


def _observe_fig43(cfg: Fig43Config, ctx: RunContext) -> Observation:
    run = run_checkpointed(
        ctx,
        "sparse_variable_and",
        cfg.run,
        lambda options: vs.train_and(cfg.run, options),
    )
    rows = _attention_rows(run)
    return Observation(
        {"irrelevant_max": [r["irrelevant_max"] for r in rows]},
        details={
            "per_seed": rows,
            "support": list(run.supports[0]),
            "steps": run.history[-1]["step"],
            "threshold_note": FIG43_THRESHOLD_NOTE,
        },
        artifacts={"plots": _fig43_plots(run, rows)},
        seeds=run.config.seeds,
    )


register(
    Claim(
        id="edelman-ch4-fig4.3-sparse-attention",
        source=f"{SRC}, Fig. 4.3 (right); {SRC_A3}.2",
        statement="A one-layer transformer with a single head trained on a 3-sparse AND (T = 50, m = 300, "
        "I = {5, 20, 30}) reaches 100 % validation accuracy, and its [CLS] attention weights approximately zero out "
        "the T - 3 irrelevant bits on every example.",
        kind="training",
        configs={"quick": Fig43Config(), "full": Fig43Config(run=FIG43_FULL)},
        predict=_predict_fig43,
        observe=_observe_fig43,
        judge=SparseAttention(),
    )
)


# --------------------------------------------------------------------------------------------- Fig. 4.4

#: Quick parity runs (docs/sparse_variable.md): T in {8, 10}, d = 16, 4 heads of width 4, batch 256, weights
#: initialised with std 0.2 (thesis: T in {10, 15}, d = 64, 16 heads, batch 2048, std 0.02, 10 seeds): at the
#: thesis's std the chance plateau outlasts a CPU budget (no transition in 800 steps for 8 seeds at T = 10).
PARITY_QUICK = vs.ParityRunConfig(
    T=10,
    seeds=(0, 1, 2, 3),
    model=vs.ModelConfig(d=16, heads=4, init_std=0.2),
    batch=256,
    steps=900,
    n_test=1024,
    eval_every=50,
    num_threads=1,
)
PARITY_FULL = vs.ParityRunConfig(
    T=10, seeds=tuple(range(10)), model=vs.ModelConfig(), batch=2048, steps=20_000, n_test=8192, eval_every=50
)


@dataclass(frozen=True)
class Fig44Config:
    """Parity runs for each T. A seed shows the phase transition when its test accuracy stays at most ``chance_acc``
    for its first ``min_plateau`` evaluations with the loss there within ``loss_tol`` of log 2, then reaches
    ``final_acc``, climbing from its last chance-level evaluation to ``final_acc`` in at most ``max_rise_share`` of
    the steps it took to get there. Per T at least ``min_seeds`` seeds must show it within the budget."""

    Ts: tuple[int, ...] = (8, 10)
    run: vs.ParityRunConfig = PARITY_QUICK
    chance_acc: float = 0.6
    final_acc: float = 0.99
    min_plateau: int = 3
    loss_tol: float = 0.02
    max_rise_share: float = 0.6
    min_seeds: int = 1

    def runs(self) -> list[vs.ParityRunConfig]:
        return [replace(self.run, T=T) for T in self.Ts]


def _transition(history: list[dict[str, Any]], k: int, cfg: Fig44Config) -> dict[str, Any]:
    steps = [h["step"] for h in history]
    acc = [h["test_acc"][k] for h in history]
    leave = next((i for i, a in enumerate(acc) if a > cfg.chance_acc), None)
    reach = next((i for i, a in enumerate(acc) if a >= cfg.final_acc), None)
    plateau = leave if leave is not None else len(acc)
    plateau_loss = [history[i]["test_loss"][k] for i in range(1, plateau)]
    rise = steps[reach] - steps[leave - 1] if (reach is not None and leave) else None
    return {
        "initial_loss": history[0]["test_loss"][k],
        "plateau_evals": plateau,
        "plateau_loss": float(np.median(plateau_loss)) if plateau_loss else None,
        "left_chance_at": steps[leave] if leave is not None else None,
        "reached_final_at": steps[reach] if reach is not None else None,
        "rise_steps": rise,
        "rise_share": rise / steps[reach] if rise is not None else None,
        "final_acc": acc[-1],
        "best_acc": max(acc),
    }


def _shows_transition(r: dict[str, Any], chance: float, cfg: Fig44Config) -> bool:
    return (
        r["plateau_evals"] >= cfg.min_plateau
        and r["plateau_loss"] is not None
        and abs(r["plateau_loss"] - chance) <= cfg.loss_tol
        and r["reached_final_at"] is not None
        and r["rise_share"] <= cfg.max_rise_share
    )


@dataclass(frozen=True)
class PhaseTransition(Judge):
    """Fig. 4.4: per T, at least config.min_seeds seeds show a chance plateau (accuracy <= config.chance_acc for
    config.min_plateau evaluations, loss within config.loss_tol of the predicted log 2) followed by a rise to
    config.final_acc within config.max_rise_share of the time."""

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        rows = obs.details["per_run"]
        if not rows:
            return "inconclusive", "no run finished"
        chance = float(predicted["chance_loss"])
        problems = []
        for T in sorted({r["T"] for r in rows}):
            mine = [r for r in rows if r["T"] == T]
            shown = [r["seed"] for r in mine if _shows_transition(r, chance, config)]
            if len(shown) < config.min_seeds:
                problems.append(f"T={T}: {len(shown)} seed(s) show the transition, need {config.min_seeds}")
        summary = "reached 99 % at " + ", ".join(f"T={r['T']}/seed {r['seed']}: {r['reached_final_at']}" for r in rows)
        return verdict_from_problems(summary, problems, "chance plateaus, then sharp rises to 100 %")

    def describe(self) -> str:
        return (
            "per T: >= config.min_seeds seeds with accuracy <= config.chance_acc for >= config.min_plateau "
            "evaluations at loss within config.loss_tol of log 2, then >= config.final_acc, the rise taking <= "
            "config.max_rise_share of the time"
        )


def _predict_fig44(cfg: Fig44Config) -> dict[str, Any]:
    """Chance level: the cross-entropy of a constant 1/2 prediction on balanced labels, log 2."""
    return {"chance_loss": ts.chance_cross_entropy(), "chance_acc": sympy.Rational(1, 2)}


def _observe_fig44(cfg: Fig44Config, ctx: RunContext) -> Observation:
    rows, series = [], []
    for run_cfg in cfg.runs():
        run = run_checkpointed(
            ctx,
            "sparse_variable_parity",
            run_cfg,
            lambda options, rc=run_cfg: vs.train_parity(rc, options),
        )
        steps = [h["step"] for h in run.history]
        for k, seed in enumerate(run_cfg.seeds):
            rows.append({"T": run_cfg.T, "seed": seed, **_transition(run.history, k, cfg)})
            series.append(
                {
                    "label": f"T={run_cfg.T}, seed {seed}",
                    "x": steps,
                    "y": [h["test_loss"][k] for h in run.history],
                    "ls": "-" if cfg.Ts[0] == run_cfg.T else "--",
                }
            )
    plots = [
        {
            "name": "loss",
            "kind": "lines",
            "series": series,
            "xlabel": "step",
            "ylabel": "test cross-entropy",
            "hlines": [{"y": math.log(2), "label": "chance (log 2)"}],
            "title": "Fig. 4.4: 3-sparse parity",
        }
    ]
    return Observation(
        {"reached_final_at": [r["reached_final_at"] for r in rows]},
        details={"per_run": rows},
        artifacts={"plots": plots},
    )


register(
    Claim(
        id="edelman-ch4-fig4.4-parity-transition",
        source=f"{SRC}, Fig. 4.4; {SRC_A3}.2",
        statement="Trained on fresh samples of a 3-sparse parity of T uniform bits (thesis: T in {10, 15}), the "
        "one-layer transformer of the AND experiments stays at chance (loss log 2) and then goes through a phase "
        "transition to 100 % accuracy.",
        kind="training",
        configs={
            "quick": Fig44Config(),
            "full": Fig44Config(Ts=(10, 15), run=PARITY_FULL, min_plateau=2, min_seeds=10),
        },
        predict=_predict_fig44,
        observe=_observe_fig44,
        judge=PhaseTransition(),
    )
)


# --------------------------------------------------------------------------------------------- Fig. 4.2

#: Quick sweep (docs/sparse_variable.md): T in {8, 16, 32}, a small model (d = 16, 4 heads of width 4), 6 trials x 2
#: restarts, 200 steps.
SWEEP_QUICK = vs.SweepConfig(
    Ts=(8, 16, 32),
    ms=(15, 20, 30, 40, 50, 60),
    trials=6,
    restarts=2,
    run=vs.AndRunConfig(
        T=8, m=10, model=vs.ModelConfig(d=16, heads=4), steps=200, n_val=300, eval_every=25, num_threads=1
    ),
)
#: The thesis grid (App. A.3.1): 40 trials, 5 restarts, 1000 iterations, validation on 10^4 every 10 iterations.
SWEEP_FULL = vs.SweepConfig(
    Ts=(*tuple(range(100, 801, 50)), 900, 1000, 1100),
    ms=tuple(range(50, 201, 10)),
    trials=40,
    restarts=5,
    run=vs.AndRunConfig(T=100, m=50, model=vs.ModelConfig(), steps=1000, n_val=10_000, eval_every=10),
)


@dataclass(frozen=True)
class Fig42Config:
    """The sweep, and the trend test. Every threshold is on the grid and above its smallest m (a threshold at the
    smallest m is only an upper bound: censored, and the verdict is then at best ``inconclusive``); m(T) never falls
    by more than ``max_drop`` grid steps as T grows and rises from the smallest to the largest T; m(T) / log2 C(T, 3)
    varies by at most the factor ``max_ratio_spread`` (a log T law keeps it constant); and the log law fits better
    than the linear law: the least-squares exponent theta of ``m ∝ L^(1 - theta) T^theta`` (``L = log2 C(T, 3)``;
    theta = 0 the log law, 1 the linear law; :func:`numerics.sparse_variable.log_trend`) is at most
    ``max_exponent``.

    ``max_exponent = 1/2`` is where the two laws' least-squares fits in ln m have equal residuals, so the verdict asks
    that the thresholds lie nearer the log law. It was chosen from the two laws and the grids, not from a run: a log
    law rounded up to the quick grid gives theta in [-0.35, 0.29] (thesis grid: [-0.04, 0.02]), and no linear law
    m = bT gives thresholds that are all on the quick grid and above its smallest m, so the quick grid cannot record
    one without failing; the ratio spread alone could not reject one (m = 15, 30, 60 spreads by 1.89 < 2). The
    previous quick result (m = 20, 30, 40, theta = -0.08) was known when the rule was added (docs/sparse_variable.md).
    """

    sweep: vs.SweepConfig = SWEEP_QUICK
    max_ratio_spread: float = 2.0
    max_drop: int = 1
    max_exponent: float = 0.5


@dataclass(frozen=True)
class LogTrend(Judge):
    """Fig. 4.2's trend: thresholds found, nondecreasing within config.max_drop grid steps, m(T_max) > m(T_min),
    max/min of m(T) / log2 C(T, 3) <= config.max_ratio_spread (the prediction supplies log2 C(T, 3)), and the fitted
    exponent theta of m ∝ L^(1 - theta) T^theta at most config.max_exponent (the log law fits better than the linear
    one). A threshold at the grid's smallest m is censored: with no other problem the verdict is inconclusive."""

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        Ts, ms = obs.details["Ts"], obs.value["thresholds"]
        grid = list(config.sweep.ms)
        problems = [
            f"T={T}: no m on the grid reached the success level" for T, m in zip(Ts, ms) if not math.isfinite(m)
        ]
        if problems:
            return "fail", "; ".join(problems)
        idx = [grid.index(int(m)) for m in ms]
        problems += [
            f"m({Ts[i + 1]}) = {ms[i + 1]} < m({Ts[i]}) = {ms[i]}"
            for i in range(len(ms) - 1)
            if idx[i + 1] < idx[i] - config.max_drop
        ]
        if not ms[-1] > ms[0]:
            problems.append(f"m(T) does not grow: m({Ts[0]}) = {ms[0]}, m({Ts[-1]}) = {ms[-1]}")
        info = [float(v) for v in predicted["info_bits"]]
        trend = ns.log_trend(Ts, ms, info)
        spread, theta = trend["ratio_spread"], trend["exponent"]
        if spread > config.max_ratio_spread:
            problems.append(f"m/log2 C(T,3) spreads by {spread:.2f}")
        if theta > config.max_exponent:
            problems.append(
                f"fitted exponent theta = {theta:.2f} > {config.max_exponent} (residuals in ln m: log law "
                f"{trend['rss_log']:.3g}, linear law {trend['rss_linear']:.3g})"
            )
        summary = (
            "m(T) = "
            + ", ".join(f"{T}: {int(m)}" for T, m in zip(Ts, ms))
            + f"; ratio spread {spread:.2f}; exponent theta {theta:.2f}"
        )
        censored = [T for T, i in zip(Ts, idx) if i == 0]
        if not problems and censored:
            return "inconclusive", (
                f"{summary}; m(T) at the smallest grid value {grid[0]} for T = {censored}: censored (only an upper "
                "bound), the grid must start lower"
            )
        return verdict_from_problems(summary, problems, "m(T) grows like log2 C(T, 3), nearer it than m ∝ T")

    def describe(self) -> str:
        return (
            "thresholds on the grid, above its smallest m (else inconclusive); m(T) nondecreasing within "
            "config.max_drop grid steps and growing; max/min of m(T)/log2 C(T,3) <= config.max_ratio_spread; "
            "fitted exponent theta of m ∝ L^(1-theta) T^theta <= config.max_exponent (log law fits better than linear)"
        )


def _predict_fig42(cfg: Fig42Config) -> dict[str, Any]:
    """The information bound log2 C(T, 3) per T (Sec. 4.6): the log T scale m(T) should follow."""
    return {"info_bits": [ts.and_information_bound(T) for T in cfg.sweep.Ts]}


def _cells_at(cfg: Fig42Config, j: int, Ts: list[int]) -> list[Cell]:
    sweep = cfg.sweep
    if j >= len(sweep.ms):
        return []
    return [
        Cell(
            f"T={T} m={sweep.ms[j]}",
            vs.cell_config(sweep, T, sweep.ms[j]),
            vs.cell_config(sweep, T, sweep.ms[j]).trials,
        )
        for T in Ts
    ]


def _first_cells(cfg: Fig42Config) -> list[Cell]:
    """Stage 0: the smallest m for every T."""
    return _cells_at(cfg, 0, list(cfg.sweep.Ts))


def _next_stage(j: int) -> Any:
    """Stage j: ``ms[j]`` for every T whose threshold is not yet found (all T when planning: the worst case)."""

    def stage(cfg: Fig42Config, results: list[CellResult] | None) -> list[Cell]:
        if results is None:
            return _cells_at(cfg, j, list(cfg.sweep.Ts))
        found = vs.thresholds_of(cfg.sweep, [r.value for r in results])
        return _cells_at(cfg, j, [T for T in cfg.sweep.Ts if not math.isfinite(found[T])])

    stage.__qualname__ = f"fig42_stage_{j}"
    return stage


def run_fig42_cell(cell: Cell, ctx: RunContext) -> dict[str, Any]:
    """One (T, m) cell of the Fig. 4.2 sweep on ``ctx.device``."""
    return vs.and_cell(cell.config, ctx.run_options())


def fig42_cost(cell: Cell) -> CellCost:
    """Multiply-adds of a cell: per update 3 S m (T + 1) (12 d^2 + 2 (T + 1) d) (projections, MLP 4d, scores and
    mixing; S = trials x restarts), per evaluation S n_val (T + 1) (12 d^2 + 2 (T + 1) d); ``steps`` is a budget."""
    c: vs.AndRunConfig = cell.config
    S, L, d = len(c.seeds), c.T + 1, c.model.d
    per_token = 12 * d * d + 2 * L * d
    return CellCost(
        steps=c.steps,
        step_flops=3.0 * S * c.m * L * per_token,
        evals=c.steps // c.eval_every + 1,
        eval_flops=float(S * c.n_val * L * per_token),
    )


def _aggregate_fig42(cfg: Fig42Config, results: list[CellResult]) -> Observation:
    cells = [{**r.value, "wall_s": round(r.runtime_s, 2)} for r in results]
    found = vs.thresholds_of(cfg.sweep, cells)
    Ts = list(cfg.sweep.Ts)
    thresholds = [found[T] for T in Ts]
    info = [float(ts.and_information_bound(T)) for T in Ts]
    finite = [m if math.isfinite(m) else None for m in thresholds]
    grid = [
        [next((c["success_rate"] for c in cells if c["T"] == T and c["m"] == m), None) for m in cfg.sweep.ms]
        for T in Ts
    ]
    plots = [
        {
            "name": "threshold",
            "kind": "lines",
            "xlabel": "context length T",
            "xscale": "log",
            "ylabel": "sample threshold m(T)",
            "title": "Fig. 4.2: 3-sparse AND",
            "series": [
                {"label": "m(T) (80 % of trials succeed)", "x": Ts, "y": finite, "marker": "o"},
                {"label": "log2 C(T, 3)", "x": Ts, "y": info, "ls": "--"},
            ],
        },
        {
            "name": "success",
            "kind": "heatmap",
            "x": list(cfg.sweep.ms),
            "y": Ts,
            "panels": [{"title": "trial success rate (blank: not run)", "z": grid}],
            "xlabel": "m",
            "ylabel": "T",
            "zlabel": "trial success rate",
            "vmin": 0.0,
            "vmax": 1.0,
        },
    ]
    return Observation({"thresholds": thresholds}, details={"Ts": Ts, "cells": cells}, artifacts={"plots": plots})


#: The longest m grid a Fig. 4.2 config may have (one follow-up stage per further m).
MAX_GRID_M = 24

#: Fig. 4.2 as a sweep: stage j runs m = ms[j] for every T whose threshold is not found yet.
FIG42_GRID = Grid(
    claim_id="edelman-ch4-fig4.2-threshold-trend",
    cells=_first_cells,
    run=run_fig42_cell,
    aggregate=_aggregate_fig42,
    followups=tuple(_next_stage(j) for j in range(1, MAX_GRID_M)),
    cost=fig42_cost,
)


register(
    Claim(
        id="edelman-ch4-fig4.2-threshold-trend",
        source=f"{SRC}, Fig. 4.2; {SRC_A3}.1",
        statement="The smallest sample size m(T) at which a one-layer transformer learns a random 3-sparse AND of T "
        "bits (validation accuracy > 0.99 on >= 80 % of trials, best of the restarts) grows like log T.",
        kind="training",
        configs={"quick": Fig42Config(), "full": Fig42Config(sweep=SWEEP_FULL)},
        predict=_predict_fig42,
        observe=FIG42_GRID.observe,
        judge=LogTrend(),
    )
)
