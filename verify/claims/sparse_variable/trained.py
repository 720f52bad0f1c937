r"""Edelman thesis Sec. 4.6 / App. A.3: one-layer transformers trained on sparse Boolean functions (training claims).

* Fig. 4.3 (right): a single head trained on a 3-sparse AND puts (almost) no attention on the irrelevant bits;
* Fig. 4.4: on a 3-sparse parity the loss sits at chance (log 2) and then drops to 100 % accuracy;
* Fig. 4.2: the sample threshold m(T) of the 3-sparse AND grows like log T.

Models and data: :mod:`verify.train.sparse_variable` (on :class:`verify.train.attention.AttentionEnsemble`), trained on
``ctx.device``. The quick settings are smaller than the thesis's and were chosen for a 2-core CPU;
``docs/sparse_variable.md`` says which, why, and what was tried. Predictions from :mod:`theory.sparse_variable`:
the chance-level cross-entropy log 2 and the information bound log2 C(T, 3).

Each verdict is a seed population (docs/verdicts.md): per seed (Fig. 4.3), per (T, seed) run (Fig. 4.4) or per
replicate of the sweep (Fig. 4.2), with p0 = 1/2; the quick scales are declared underpowered (docs/sparse_variable.md,
"The verdicts").
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

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register
from ..judges import Check, PerSeed, Population, Replicated
from ..training import run_checkpointed
from .common import SRC, SRC_A3

# --------------------------------------------------------------------------------------------- Fig. 4.3 (right)

#: Every configuration of the three training claims (docs/sparse_variable.md, "What verify/train/attention.py would
#: need"): the block is minGPT's except for the LayerNorm and the attention biases.
LAYER_NORM = Deviation(
    "LayerNorm and attention biases",
    "minGPT's block (App. A.3.1: 'All hyperparameter settings left undiscussed are taken from the default settings "
    "in this codebase'): LayerNorm with a learned gain and bias; q, k, v and output projections with biases",
    "parameter-free LayerNorm; q, k, v and output projections without biases (the MLP and the readout have biases)",
    "verify.train.attention.AttentionEnsemble, the toolkit's shared batched-ensemble block, has no learned "
    "LayerNorm parameters or attention biases; both are affine maps the following weights can absorb at init",
)

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
    trials=tuple(range(12)),
    support=(5, 20, 30),
    model=vs.ModelConfig(d=64, heads=1),
    steps=500,
    n_val=10_000,
    eval_every=10,
    attention_probe=200,
)


@dataclass(frozen=True)
class Fig43Config:
    """The run, and the per-seed checks: a seed succeeds when it reaches ``min_val_acc`` and its [CLS] attention mass
    on the T - 3 irrelevant bits is within ``max_irrelevant_mass`` of the predicted mass on every probe example.

    The thesis shows one trained model; our seeds split into two kinds (docs/sparse_variable.md): "sparse" seeds
    (irrelevant mass <= 0.05 on every example) and "sink" seeds (<= 0.02 on label-0 examples but 0.3-0.8 on label-1
    examples, parked on irrelevant 1-bits). ``max_irrelevant_mass = 0.1`` was set after the first quick run had
    shown 0.040 for the sparse seed and >= 0.60 for the others (a :class:`PostHoc` of the claim): any value in
    [0.05, 0.5] gives the same successes."""

    run: vs.AndRunConfig = FIG43_QUICK
    min_val_acc: float = 0.99
    max_irrelevant_mass: float = 0.1


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
                "irrelevant_min": float(irr.min()),
                "irrelevant_mean_label0": float(irr[~y].mean()) if (~y).any() else 0.0,
                "irrelevant_mean_label1": float(irr[y].mean()) if y.any() else 0.0,
                "relevant_mean": float(A[k][:, I].sum(axis=1).mean()),
                "cls_mean": float(A[k, :, -1].mean()),
            }
        )
    return rows


#: Fig. 4.3's rule. The statement is universal ("the attention weights vanish on the T - s irrelevant bits" of a
#: trained model): read as "a trained seed typically does", p0 = 1/2; the thesis shows it for its (one) model, so
#: the rate it implies is near 1: p_alt = 0.9.
FIG43_RULE = Population(p0=0.5, p_alt=0.9)


def fig43_runs(config: Fig43Config) -> int:
    """The seeds (trials x restarts) a Fig. 4.3 configuration trains."""
    return len(config.run.seeds)


def _irrelevant_problem(predicted: Any, row: dict[str, Any], config: Fig43Config) -> str | None:
    """The per-seed check that reads the prediction: the irrelevant mass the construction predicts is
    (T - s) x irrelevant_weight (0); every probe example's mass must be within config.max_irrelevant_mass of it."""
    target = (config.run.T - config.run.s) * float(predicted["irrelevant_weight"])
    lo = row.get("irrelevant_min", 0.0)
    off = max(abs(row["irrelevant_max"] - target), abs(lo - target))
    if not off <= config.max_irrelevant_mass:
        return f"irrelevant attention mass in [{lo:.3f}, {row['irrelevant_max']:.3f}], predicted {target:.3g}"
    return None


@dataclass(frozen=True)
class SparseAttention(PerSeed):
    """Fig. 4.3 right, per seed: best validation accuracy >= config.min_val_acc and, on every probe example, the
    [CLS] attention mass on the irrelevant bits within config.max_irrelevant_mass of the predicted mass
    (T - s) x irrelevant_weight; the verdict is :data:`FIG43_RULE` on the seeds that succeed."""

    checks: tuple[Check, ...] = (Check("val_acc", "best validation accuracy", lo="min_val_acc"),)
    headline: str = "irrelevant_max"
    rule: Population = FIG43_RULE
    runs: Any = fig43_runs

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        for row, mine in zip(per_seed, problems):
            if msg := _irrelevant_problem(predicted, row, config):
                mine.append(msg)
        return problems

    def describe(self) -> str:
        return (
            "per seed: best validation accuracy >= config.min_val_acc, and on every probe example the [CLS] attention "
            "mass on the T - 3 irrelevant bits within config.max_irrelevant_mass of the predicted (T - 3) x "
            f"irrelevant_weight; {self.rule.describe()}"
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
        "the T - 3 irrelevant bits on every example; read per seed, as what a trained seed typically does (p0 = 1/2).",
        kind="training",
        configs={"quick": Fig43Config(), "full": Fig43Config(run=FIG43_FULL)},
        predict=_predict_fig43,
        observe=_observe_fig43,
        judge=SparseAttention(),
        deviations={"quick": (LAYER_NORM,), "full": (LAYER_NORM,)},
        post_hoc=(
            PostHoc(
                "max_irrelevant_mass",
                "0.1",
                "after the first quick run (4 seeds, 100 steps): sparse seed 0.040, the others >= 0.60",
                "between the two kinds of seeds; any value in [0.05, 0.5] gives the same successes",
            ),
        ),
        underpowered={
            "quick": "4 seeds can never pass the rule (p0 = 0.5: 4 of 4 gives a lower bound 0.47; power 0 against "
            "p_alt = 0.9) nor fail it (0 of 4: upper bound 0.53); a stable decision at the observed rate of sparse "
            "seeds (about 1 in 4) needs some 30 seeds, 8 times this claim's share of the quick budget. The full "
            "scale (12 seeds, power 0.89) decides",
        },
        insensitive="at quick scale the verdict is inconclusive whatever the prediction (declared underpowered); the "
        "judge reads the prediction per seed (irrelevant mass against (T - 3) x irrelevant_weight), and "
        "tests/verify/test_sparse_variable_claims.py checks that a moved prediction fails every seed",
    )
)


# --------------------------------------------------------------------------------------------- Fig. 4.4

#: Quick parity runs (docs/sparse_variable.md): T in {8, 10}, 2 seeds each, d = 16, 4 heads of width 4, batch 256,
#: weights initialised with std 0.2 (thesis: T in {10, 15}, d = 64, 16 heads, batch 2048, std 0.02, 10 seeds): at
#: the thesis's std the chance plateau outlasts a CPU budget (no transition in 800 steps for 8 seeds at T = 10).
#: The quick scale is declared underpowered (the claim's ``underpowered``): 4 runs show the phenomenon in the record.
PARITY_QUICK = vs.ParityRunConfig(
    T=10,
    seeds=(0, 1),
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
    """Parity runs for each T. A (T, seed) run shows the phase transition when its test accuracy stays at most
    ``chance_acc`` for its first ``min_plateau`` evaluations with the median loss there within ``loss_tol`` of the
    predicted chance loss log 2, then reaches ``final_acc`` within the budget, climbing from its last chance-level
    evaluation to ``final_acc`` in at most ``max_rise_share`` of the steps it took to get there."""

    Ts: tuple[int, ...] = (8, 10)
    run: vs.ParityRunConfig = PARITY_QUICK
    chance_acc: float = 0.6
    final_acc: float = 0.99
    min_plateau: int = 3
    loss_tol: float = 0.02
    max_rise_share: float = 0.6

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


def transition_problems(r: dict[str, Any], chance: float, cfg: Fig44Config) -> list[str]:
    """What keeps run ``r`` from showing the phase transition (empty when it shows it), against the predicted
    chance-level loss ``chance`` (the judge passes the prediction)."""
    out = []
    if r["plateau_evals"] < cfg.min_plateau:
        out.append(f"left chance after {r['plateau_evals']} evaluation(s) < {cfg.min_plateau}")
    if r["plateau_loss"] is None or not abs(r["plateau_loss"] - chance) <= cfg.loss_tol:
        out.append(f"plateau loss {r['plateau_loss']} not within {cfg.loss_tol} of {chance:.5f}")
    if r["reached_final_at"] is None:
        out.append(f"never reached accuracy {cfg.final_acc}")
    elif r["rise_share"] is None or r["rise_share"] > cfg.max_rise_share:
        out.append(f"rise share {r['rise_share']} > {cfg.max_rise_share}")
    return out


def _shows_transition(r: dict[str, Any], chance: float, cfg: Fig44Config) -> bool:
    return not transition_problems(r, chance, cfg)


#: Fig. 4.4's rule. The caption shows all 10 seeds go from chance to 100 %: read as "a run typically does", p0 =
#: 1/2, with the rate the figure implies, p_alt = 0.9. The unit is one (T, seed) run.
FIG44_RULE = Population(p0=0.5, p_alt=0.9)


def fig44_runs(config: Fig44Config) -> int:
    """The (T, seed) runs a Fig. 4.4 configuration judges."""
    return len(config.Ts) * len(config.run.seeds)


@dataclass(frozen=True)
class PhaseTransition(PerSeed):
    """Fig. 4.4, per (T, seed) run: accuracy <= config.chance_acc for its first config.min_plateau evaluations at a
    median loss within config.loss_tol of the predicted chance loss, then >= config.final_acc within the budget, the
    climb from the last chance-level evaluation taking <= config.max_rise_share of the steps; the verdict is
    :data:`FIG44_RULE` on the runs that show it."""

    checks: tuple[Check, ...] = ()
    headline: str = "best_acc"
    rows: str = "per_run"
    rule: Population = FIG44_RULE
    runs: Any = fig44_runs

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        chance = float(predicted["chance_loss"])
        # the run's own label (T and the seed that ran): PerSeed's summary numbers the rows from 0
        return [
            [f"T={r['T']}, seed {r['seed']}: {p}" for p in transition_problems(r, chance, config)] for r in per_seed
        ]

    def describe(self) -> str:
        return (
            "per (T, seed) run: accuracy <= config.chance_acc for >= config.min_plateau evaluations at a median loss "
            "within config.loss_tol of the predicted log 2, then >= config.final_acc, the rise taking <= "
            f"config.max_rise_share of the time; {self.rule.describe()}"
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
        for k, seed in enumerate(run.config.seeds):  # the seeds that ran (shifted by --seed-offset)
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


FIG44_CLAIM = register(
    Claim(
        id="edelman-ch4-fig4.4-parity-transition",
        source=f"{SRC}, Fig. 4.4; {SRC_A3}.2",
        statement="Trained on fresh samples of a 3-sparse parity of T uniform bits (thesis: T in {10, 15}), the "
        "one-layer transformer of the AND experiments stays at chance (loss log 2) and then goes through a phase "
        "transition to 100 % accuracy; read per (T, seed) run, as what a run typically does (p0 = 1/2).",
        kind="training",
        configs={
            "quick": Fig44Config(),
            "full": Fig44Config(Ts=(10, 15), run=PARITY_FULL, min_plateau=2),
        },
        predict=_predict_fig44,
        observe=_observe_fig44,
        judge=PhaseTransition(),
        deviations={
            "quick": (
                Deviation(
                    "weight initialisation std",
                    "0.02 (App. A.3.1: positions N(0, 0.02^2); minGPT's default for every weight, which App. A.3.1 "
                    "adopts for the settings it leaves undiscussed)",
                    "0.2",
                    "at 0.02 the chance plateau outlasts the CPU budget: 0 of 8 seeds left chance in 800 steps at "
                    "T = 10 (docs/sparse_variable.md, exploratory runs); at 0.2, 2 of 4 did in 700",
                ),
                Deviation(
                    "batch size",
                    "2048 fresh samples per step (App. A.3.2, PARITY)",
                    "256",
                    "8 times cheaper per step; the batch sets the gradient noise, so transition times differ",
                ),
                Deviation(
                    "context lengths T",
                    "T in {10, 15} (Fig. 4.4 caption)",
                    "T in {8, 10}",
                    "T = 15 did not leave chance within the CPU budget (0 of 4 in 600 steps)",
                ),
                LAYER_NORM,
            ),
            "full": (LAYER_NORM,),
        },
        post_hoc=(
            PostHoc(
                "max_rise_share",
                "0.6",
                "after the exploratory runs of docs/sparse_variable.md",
                "the observed climbs took 13-18 % (T = 8) and up to 50 % (T = 10) of the steps",
            ),
            PostHoc(
                "quick steps",
                "900",
                "after a 700-step quick run in which one T = 8 seed was half-way up at the end",
                "to let the seeds that leave chance late finish their climb",
            ),
        ),
        underpowered={
            "quick": "4 runs (T in {8, 10} x 2 seeds) can neither pass the rule (4 of 4: lower bound 0.47 < p0 = 0.5) "
            "nor fail it (0 of 4: upper bound 0.53), power 0 against p_alt = 0.9. Within the quick budget only about "
            "two runs in three leave chance (T = 8, 8 seeds: 5 by step 900, 6 by step 1500), so a stable pass at "
            "p0 = 1/2 needs 12 or more runs of 1500+ steps, 4-8 times this claim's share of the quick budget; the full "
            "scale (20 runs, power 0.99) decides",
        },
        insensitive="at quick scale the verdict is inconclusive whatever the prediction (declared underpowered); the "
        "judge reads the predicted chance loss per run (median plateau loss within loss_tol = 0.02 of it, 2.9 % of "
        "log 2, so a 1 % error would pass a run: the plateaus drift, one run at 0.680 on seed offset 1000), and "
        "tests/verify/test_sparse_variable_claims.py checks that a chance level off by 0.03 fails every run",
    )
)


#: The variant at the source's initialisation (issue 29, item 5; docs/sparse_variable.md, "At the source's
#: initialisation"): the quick runs (T in {8, 10}, 2 seeds, d = 16, batch 256, 900 steps) with App. A.3.1's weight
#: std 0.02 instead of 0.2. Like the original it has 4 runs and power 0, so its verdict is inconclusive by
#: construction; what it reports is how many of its runs show the transition, beside the original's.
register(
    replace(
        FIG44_CLAIM,
        id="edelman-ch4-fig4.4-parity-transition-source-hparams",
        configs={
            "quick": Fig44Config(run=replace(PARITY_QUICK, model=replace(PARITY_QUICK.model, init_std=0.02))),
            "full": FIG44_CLAIM.configs["full"],
        },
        deviations={
            "quick": tuple(d for d in FIG44_CLAIM.deviations["quick"] if d.parameter != "weight initialisation std"),
            "full": FIG44_CLAIM.deviations["full"],
        },
        variant_of=FIG44_CLAIM.id,
        underpowered={
            "quick": "4 runs (T in {8, 10} x 2 seeds) can neither pass the rule (4 of 4: lower bound 0.47 < p0 = 0.5) "
            "nor fail it (0 of 4: upper bound 0.53), power 0 against p_alt = 0.9, as for the original; the full scale "
            "(20 runs, power 0.99, the same configuration as the original's) decides"
        },
        note="Variant of edelman-ch4-fig4.4-parity-transition at App. A.3.1's weight initialisation std 0.02 (the "
        "original's quick setting uses 0.2; its other quick settings are kept). The full configuration is the "
        "original's, already at the source's std. The per-run rows (details.per_run) say how many runs leave chance "
        "and reach 100 %, to set beside the original's.",
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
#: The thesis grid (App. A.3.1): 40 trials, 5 restarts, 1000 iterations, validation on 10^4 every 10 iterations; 8
#: replicates of the 40 trials (the population rule's units: power 0.81 against p_alt = 0.9).
SWEEP_FULL = vs.SweepConfig(
    Ts=(*tuple(range(100, 801, 50)), 900, 1000, 1100),
    ms=tuple(range(50, 201, 10)),
    trials=8 * 40,
    restarts=5,
    run=vs.AndRunConfig(T=100, m=50, model=vs.ModelConfig(), steps=1000, n_val=10_000, eval_every=10),
)


@dataclass(frozen=True)
class Fig42Config:
    """The sweep, its replicates, and the trend test of one replicate.

    ``replicates``: the sweep's ``trials`` split into that many disjoint sets of trials (replicate r has trials
    r t .. (r + 1) t - 1 of every cell, t = trials / replicates); each replicate has its own thresholds m(T) and is
    one unit of the population rule (:data:`FIG42_RULE`). A replicate succeeds when:

    * every threshold is on the grid and above its smallest m (a threshold at the smallest m is only an upper bound:
      censored, no evidence either way);
    * m(T) never falls by more than ``max_drop`` grid steps as T grows and rises from the smallest to the largest T;
    * m(T) / log2 C(T, 3) varies by at most the factor ``max_ratio_spread`` (a log T law keeps it constant);
    * the log law fits better than the linear law: the least-squares exponent theta of ``m ∝ L^(1 - theta) T^theta``
      (``L = log2 C(T, 3)``, :func:`numerics.sparse_variable.log_trend`) is at most ``max_exponent``;
    * the log law fits better than the sqrt(T) law, the nearest power law: the exponent theta_sqrt of
      ``m ∝ L^(1 - theta_sqrt) (sqrt T)^theta_sqrt`` is at most ``max_exponent``; and the T of the sweep separate the
      two laws: sqrt(T) / L changes by at least the factor ``min_sqrt_separation`` between the smallest and the
      largest T (on T in {8, 16, 32} it changes by 0.95: the two laws predict the same thresholds there).

    ``max_exponent = 1/2`` is where the two laws' least-squares fits in ln m have equal residuals, so the verdict asks
    that the thresholds lie nearer the log law. It was chosen from the laws and the grids, not from a run: a log law
    rounded up to the quick grid gives theta in [-0.35, 0.29] (thesis grid: [-0.04, 0.02]), and no linear law
    m = bT gives thresholds that are all on the quick grid and above its smallest m. ``min_sqrt_separation = 2``:
    the thesis grid (T from 100 to 1100) separates the laws by 2.08, five grid steps at its threshold m ~ 70.
    """

    sweep: vs.SweepConfig = SWEEP_QUICK
    replicates: int = 1
    max_ratio_spread: float = 2.0
    max_drop: int = 1
    max_exponent: float = 0.5
    min_sqrt_separation: float = 2.0

    def __post_init__(self) -> None:
        if self.replicates < 1 or self.sweep.trials % self.replicates:
            raise ValueError(f"the sweep's {self.sweep.trials} trials must split into {self.replicates} replicates")


#: Fig. 4.2's rule, over replicates of the sweep. "m(T) grows like log T" is a statement about the sweep's outcome:
#: read as "a replicate typically shows it", p0 = 1/2; the thesis reports it as its main finding, p_alt = 0.9.
FIG42_RULE = Population(p0=0.5, p_alt=0.9)


def replicate_trend(Ts: list[int], ms: list[float], info: list[float], config: Fig42Config) -> tuple[str, list[str]]:
    """One replicate's summary and what keeps it from showing the log T trend (empty when it shows it); ``info`` is
    the prediction log2 C(T, 3)."""
    grid = list(config.sweep.ms)
    missing = [f"T={T}: no m on the grid reached the success level" for T, m in zip(Ts, ms) if not math.isfinite(m)]
    if missing:
        return "m(T) = " + ", ".join(f"{T}: {m}" for T, m in zip(Ts, ms)), missing
    idx = [grid.index(int(m)) for m in ms]
    problems = [
        f"m({Ts[i + 1]}) = {ms[i + 1]:g} < m({Ts[i]}) = {ms[i]:g}"
        for i in range(len(ms) - 1)
        if idx[i + 1] < idx[i] - config.max_drop
    ]
    censored = [T for T, i in zip(Ts, idx) if i == 0]
    if censored:
        problems.append(f"censored: m(T) at the smallest grid value {grid[0]} for T = {censored}")
    if not ms[-1] > ms[0]:
        problems.append(f"m(T) does not grow: m({Ts[0]}) = {ms[0]:g}, m({Ts[-1]}) = {ms[-1]:g}")
    try:
        trend = ns.log_trend(Ts, ms, info)
    except ValueError as exc:  # a prediction proportional to T leaves no exponent to fit
        return "m(T) = " + ", ".join(f"{T}: {int(m)}" for T, m in zip(Ts, ms)), [*problems, f"no trend fit: {exc}"]
    spread, theta = trend["ratio_spread"], trend["exponent"]
    if spread > config.max_ratio_spread:
        problems.append(f"m/log2 C(T,3) spreads by {spread:.2f}")
    if theta > config.max_exponent:
        problems.append(f"linear-law exponent theta = {theta:.2f} > {config.max_exponent}")
    roots = [math.sqrt(T) for T in Ts]
    sep = (roots[-1] / info[-1]) / (roots[0] / info[0])
    if sep < config.min_sqrt_separation:
        theta_sqrt = math.nan
        problems.append(
            f"the T cannot tell log T from sqrt(T): sqrt(T)/log2 C(T,3) changes by {sep:.2f} < "
            f"{config.min_sqrt_separation}"
        )
    else:
        theta_sqrt = ns.log_trend(roots, ms, info)["exponent"]
        if not theta_sqrt <= config.max_exponent:
            problems.append(f"sqrt-law exponent theta_sqrt = {theta_sqrt:.2f} > {config.max_exponent}")
    summary = (
        "m(T) = "
        + ", ".join(f"{T}: {int(m)}" for T, m in zip(Ts, ms))
        + f"; ratio spread {spread:.2f}; theta {theta:.2f}; theta_sqrt {theta_sqrt:.2f}"
    )
    return summary, problems


@dataclass(frozen=True)
class LogTrend(Replicated):
    """Fig. 4.2's trend, per replicate of the sweep (:func:`replicate_trend`, bounds from the config, the prediction
    log2 C(T, 3) read for the ratio and both exponents); the verdict is :data:`FIG42_RULE` on the replicates that
    show it."""

    rule: Population = FIG42_RULE

    def _replicates(self, predicted: Any, obs: Observation, config: Any) -> list[tuple[Any, list[str]]]:
        Ts = list(obs.details["Ts"])
        info = [float(v) for v in predicted["info_bits"]]
        reps = obs.details.get("replicate_thresholds") or [obs.value["thresholds"]]
        return [replicate_trend(Ts, [float(m) for m in ms], info, config) for ms in reps]

    def _reason(self, reps: list[tuple[Any, list[str]]], k: int, stats: dict[str, Any]) -> str:
        n = len(reps)
        shown = "; ".join(
            f"replicate {i}: {summary}" + (f" ({'; '.join(p)})" if p else " (shows the log T trend)")
            for i, (summary, p) in enumerate(reps[:4])
        )
        return (
            f"{shown}; {k} of {n} replicates show the trend: rate in [{stats['lower']:.3f}, {stats['upper']:.3f}] at "
            f"{self.rule.confidence:.0%}, target {self.rule.p0:g}"
        )

    def describe(self) -> str:
        return (
            "per replicate of the sweep: thresholds on the grid, above its smallest m; m(T) nondecreasing within "
            "config.max_drop grid steps and growing; max/min of m(T)/log2 C(T,3) <= config.max_ratio_spread; fitted "
            "exponents of m ∝ L^(1-theta) T^theta and m ∝ L^(1-theta) sqrt(T)^theta <= config.max_exponent, on T "
            f"that separate log T from sqrt(T) by config.min_sqrt_separation; {self.rule.describe()}"
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
    """Stage j: ``ms[j]`` for every T whose threshold is not yet found in some replicate (all T when planning: the
    worst case)."""

    def stage(cfg: Fig42Config, results: list[CellResult] | None) -> list[Cell]:
        if results is None:
            return _cells_at(cfg, j, list(cfg.sweep.Ts))
        reps = replicate_thresholds(cfg, [r.value for r in results])
        return _cells_at(cfg, j, [T for i, T in enumerate(cfg.sweep.Ts) if any(not math.isfinite(m[i]) for m in reps)])

    stage.__qualname__ = f"fig42_stage_{j}"
    return stage


def replicate_thresholds(cfg: Fig42Config, cells: list[dict[str, Any]]) -> list[list[float]]:
    """Per replicate, m(T) for every T of the sweep (inf where no m run so far reached the level): a replicate's
    success rate in a cell is over its own trials (a trial succeeds when any of its restarts exceeds the run's
    ``success_acc``); a cell with no identifiable training set counts every trial as failed."""
    sweep, R = cfg.sweep, cfg.sweep.restarts
    t = sweep.trials // cfg.replicates
    acc = sweep.run.success_acc
    out = []
    for r in range(cfg.replicates):
        ms = []
        for T in sweep.Ts:
            done = []
            for c in sorted((c for c in cells if c["T"] == T), key=lambda c: c["m"]):
                best = np.asarray(c["best_val"], dtype=float).reshape(-1, R) if c["best_val"] else None
                ok = (best[r * t : (r + 1) * t] > acc).any(axis=1) if best is not None else np.zeros(t, bool)
                done.append((c["m"], float(ok.mean())))
            ms.append(ns.sample_threshold([m for m, _ in done], [q for _, q in done], sweep.level))
        out.append(ms)
    return out


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
    return Observation(
        {"thresholds": thresholds},
        details={"Ts": Ts, "cells": cells, "replicate_thresholds": replicate_thresholds(cfg, cells)},
        artifacts={"plots": plots},
    )


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
        "bits (validation accuracy > 0.99 on >= 80 % of trials, best of the restarts) grows like log T: nearer "
        "log2 C(T, 3) than T or sqrt(T), in a typical replicate of the sweep (p0 = 1/2).",
        kind="training",
        configs={"quick": Fig42Config(), "full": Fig42Config(sweep=SWEEP_FULL, replicates=8)},
        predict=_predict_fig42,
        observe=FIG42_GRID.observe,
        judge=LogTrend(),
        deviations={
            "quick": (
                Deviation(
                    "context lengths T",
                    "T in {100, 150, ..., 800, 900, 1000, 1100} (App. A.3.1, GRID)",
                    "T in {8, 16, 32}",
                    "a cell at T = 100 with 40 trials x 5 restarts x 1000 steps is minutes of CPU; the whole quick "
                    "report has 10 minutes on 2 cores",
                ),
                Deviation(
                    "restarts per trial",
                    "5: a trial fails only when 5 fresh initialisations all fail (App. A.3.1, TRAINING)",
                    "2",
                    "cost; a trial's success is 'any restart succeeds', so fewer restarts raise the thresholds "
                    "alike at every T",
                ),
                LAYER_NORM,
            ),
            "full": (LAYER_NORM,),
        },
        post_hoc=(
            PostHoc(
                "max_exponent",
                "0.5",
                "added after the audit, when the quick thresholds m = 20, 30, 40 (theta = -0.08) were known",
                "the midpoint of the two laws' fits, chosen from the grids (docs/sparse_variable.md)",
            ),
            PostHoc(
                "quick m grid",
                "starts at 15 (was 10, 15, 20, 25, 30, ...)",
                "after the first quick run (thresholds 20, 30, 40)",
                "to skip the cells below every threshold; the thresholds did not change",
            ),
        ),
        underpowered={
            "quick": "one replicate of the sweep can neither pass the rule (1 of 1: lower bound 0.05 < p0 = 0.5) nor "
            "fail it (0 of 1: upper bound 0.95), power 0 against p_alt = 0.9; and T in {8, 16, 32} cannot tell log T "
            "from sqrt(T) (sqrt(T)/log2 C(T,3) changes by 0.95 < 2), so no quick replicate can show the trend. A "
            "replicate costs the whole quick sweep (about 90 s under load); 8 replicates and T up to ~10^3 are the "
            "full scale (power 0.81)",
        },
        insensitive="m(T) is predicted proportional to log2 C(T, 3) up to an unknown constant, so a prediction "
        "scaled by 1 % gives the same ratio spread and exponents; at quick scale the verdict is inconclusive by "
        "design (underpowered). tests/verify/test_sparse_variable_claims.py checks that the per-replicate test "
        "reads the prediction (a linear or sqrt(T) prediction fails it)",
    )
)
