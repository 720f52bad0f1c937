"""Shi thesis Fig. 4.4: transformers trained on half of the k-sum mod p data grok, and the grokking weakens as k
grows. The delay metric and its thresholds are defined in docs/modular_transformer.md."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics.modular_transformer import first_reach
from theory import modular_transformer as tmt
from verify.train.modular_transformer import SumTransformerConfig

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register
from ..judges import Judge, Population, Verdict
from .common import FULL_SEEDS, QUICK_DEVIATIONS, RULE, SHI, thesis_transformer, transformer_run
from .heads import QUICK_HEADS


@dataclass(frozen=True)
class GrokkingConfig:
    """One seed ensemble per k (``runs``, each trained as configured: a run may stop once every seed has grokked, or
    run its whole budget so that another claim can share it). Every run has the same seeds; seed i of every run is
    one unit of the population (docs/modular_transformer.md, "Grokking against k").

    **Grokking of one seed.** t_train is the first evaluated step with training-half accuracy >= ``train_threshold``;
    t_val the first evaluated step from which validation accuracy stays >= ``val_threshold`` for ``hold``
    consecutive evaluations (one evaluation above the threshold is not generalization: AdamW at this lr oscillates);
    the delay is t_val - t_train. A seed **groks** when both exist and the delay is at least ``min_delay`` steps;
    a seed that never holds the validation threshold within the budget has no delay and does not grok.

    **Per-seed criterion.** Seed i succeeds when it groks in each of the first ``grok_runs`` runs in the predicted
    order (None: every run) and, over those runs, its delay falls by at least ``min_drop`` steps from each run to
    the next. A run after the first ``grok_runs`` is reported, not judged: a run that does not grok is no evidence
    of "weaker" grokking, so it can support nothing (issue 28).

    ``min_delay`` = 100 steps is one evaluation interval (``eval_every`` = 100), the metric's resolution; ``hold`` =
    3 evaluations; ``min_drop`` = 100 steps (chosen; the records of these choices are the claim's ``post_hoc``)."""

    runs: tuple[SumTransformerConfig, ...]
    train_threshold: float = 0.99
    val_threshold: float = 0.9
    hold: int = 3
    min_drop: int = 100
    min_delay: int = 100
    grok_runs: int | None = None

    def __post_init__(self) -> None:
        if self.grok_runs is not None and not 1 <= self.grok_runs <= len(self.runs):
            raise ValueError(f"grok_runs must be None or in 1..{len(self.runs)} (the runs), got {self.grok_runs}")
        if self.hold < 1:
            raise ValueError(f"hold must be at least 1 evaluation, got {self.hold}")
        if len({len(r.seeds) for r in self.runs}) != 1:
            raise ValueError("every run needs the same number of seeds (seed i of each run is one unit)")

    def cases(self) -> list[tuple[int, int]]:
        return [(r.p, r.k) for r in self.runs]


def predict_order(cfg: GrokkingConfig) -> dict[str, Any]:
    """The order in which the delay is predicted to decrease (increasing width 2^{2k-2}(p-1) of Theorem 4.9)."""
    return {
        "order": tmt.predicted_delay_order(cfg.cases()),
        "required_width": [tmt.required_width(p, k) for p, k in cfg.cases()],
        "k": [k for _, k in cfg.cases()],
    }


def held_step(steps: np.ndarray, values: np.ndarray, threshold: float, hold: int) -> int | None:
    """The first evaluated step from which ``values`` stays >= ``threshold`` for ``hold`` consecutive evaluations
    (that one included), or None.

    >>> held_step([0, 100, 200, 300, 400], [0.95, 0.5, 0.92, 0.93, 0.91], 0.9, 3)
    200
    >>> held_step([0, 100, 200], [0.95, 0.5, 0.92], 0.9, 2) is None
    True
    """
    above = np.asarray(values, dtype=np.float64) >= threshold
    for i in range(len(above) - hold + 1):
        if above[i : i + hold].all():
            return int(np.asarray(steps)[i])
    return None


def seed_delay(steps: np.ndarray, train: np.ndarray, val: np.ndarray, cfg: GrokkingConfig) -> dict[str, Any]:
    """One seed's t_train, held t_val and delay (None where a threshold is not reached or not held)."""
    t_train = first_reach(steps, train, cfg.train_threshold)
    t_val = held_step(steps, val, cfg.val_threshold, cfg.hold)
    return {
        "train_step": t_train,
        "val_step": t_val,
        "delay": None if t_train is None or t_val is None else t_val - t_train,
    }


@dataclass(frozen=True)
class GrokkingPerSeed(Judge):
    """The population rule (:class:`verify.claims.judges.Population`) on seeds: seed i succeeds when it groks
    (delay >= ``config.min_delay``, validation held) in each of the first ``config.grok_runs`` runs of the predicted
    order ``predicted["order"]`` (every run when None) and its delay falls by >= ``config.min_drop`` from each of
    those runs to the next (:class:`GrokkingConfig`)."""

    rule: Population = RULE

    def planned_runs(self, config: Any) -> int:
        return len(config.runs[0].seeds)

    def seed_problems(self, predicted: Any, obs: Any, config: Any) -> list[list[str]]:
        runs = obs.details["runs"]
        order = [int(i) for i in predicted["order"]]
        n_grok = len(order) if config.grok_runs is None else int(config.grok_runs)
        judged = order[:n_grok]
        problems = []
        for i in range(len(runs[0]["delay"])):
            mine = []
            for j in judged:
                d = runs[j]["delay"][i]
                if d is None:
                    mine.append(f"k={runs[j]['k']} does not hold {config.val_threshold:g} validation accuracy")
                elif d < config.min_delay:
                    mine.append(f"k={runs[j]['k']} does not grok (delay {d:g} < {config.min_delay:g})")
            for a, b in itertools.pairwise(judged):
                da, db = runs[a]["delay"][i], runs[b]["delay"][i]
                if da is not None and db is not None and not da - db >= config.min_drop:
                    mine.append(f"k={runs[a]['k']} -> k={runs[b]['k']} falls by {da - db:g} < {config.min_drop:g}")
            problems.append(mine)
        return problems

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        runs = obs.details["runs"]
        problems = self.seed_problems(predicted, obs, config)
        n, k = len(problems), sum(not p for p in problems)
        stats = self.rule.record(k, n)
        order = [int(i) for i in predicted["order"]]
        n_grok = len(order) if config.grok_runs is None else int(config.grok_runs)

        def delays(j: int) -> str:
            return ", ".join("-" if d is None else f"{d:g}" for d in runs[j]["delay"])

        text = "delays " + "; ".join(
            f"k={runs[j]['k']}: {delays(j)}" + ("" if pos < n_grok else " (reported, not judged at this scale)")
            for pos, j in enumerate(order)
        )
        text += (
            f"; {k} of {n} seeds grok as predicted: rate in [{stats['lower']:.3f}, {stats['upper']:.3f}] at "
            f"{self.rule.confidence:.0%}, target {self.rule.p0:g}"
        )
        seeds = obs.details.get("seeds") or list(range(n))
        failing = [f"seed {s}: {'; '.join(p)}" for s, p in zip(seeds, problems) if p]
        if failing:
            text += (
                "; failing: " + "; ".join(failing[:6]) + (f" (+{len(failing) - 6} more)" if len(failing) > 6 else "")
            )
        return stats["verdict"], text

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        problems = self.seed_problems(predicted, obs, config)
        return self.rule.record(sum(not p for p in problems), len(problems)) if problems else None

    def describe(self) -> str:
        return (
            "per seed: t_train = first evaluation with train accuracy >= config.train_threshold, t_val = first "
            "evaluation from which validation accuracy stays >= config.val_threshold for config.hold evaluations; "
            "the seed groks when t_val - t_train >= config.min_delay in each of the first config.grok_runs runs of "
            "the predicted order (every run when unset) and the delay falls by >= config.min_drop from each of those "
            f"runs to the next; {self.rule.describe()}"
        )

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return {**predicted, "order": list(reversed(predicted["order"]))}


def observe_grokking(cfg: GrokkingConfig, ctx: RunContext) -> Observation:
    """Train every run; per seed, the step at which train accuracy first reaches its threshold and the step from
    which validation accuracy holds its threshold for ``cfg.hold`` evaluations."""
    runs, series = [], []
    seeds: tuple[int, ...] = ()
    for rc in cfg.runs:
        run = transformer_run(rc, ctx)
        seeds = tuple(run.config.seeds)  # the seeds that ran (shifted by RunOptions.seed_offset)
        steps = np.asarray(run.history["step"])
        tr, va = run.curve("train_acc"), run.curve("val_acc")
        delays = [seed_delay(steps, tr[:, s], va[:, s], cfg) for s in range(tr.shape[1])]
        runs.append(
            {
                "k": rc.k,
                "p": rc.p,
                "seeds": list(seeds),
                "train_step": [d["train_step"] for d in delays],
                "val_step": [d["val_step"] for d in delays],
                "delay": [d["delay"] for d in delays],
                "final_val_accuracy": [float(v) for v in va[-1]],
                "steps_done": run.steps_done,
                "train_wall_s": run.wall_time,
            }
        )
        for name, curve, ls in (("train", tr, "-"), ("validation", va, "--")):
            series.append(
                {
                    "label": f"k={rc.k}, p={rc.p} {name}",
                    "x": steps.tolist(),
                    "y": curve.mean(axis=1).tolist(),
                    "lo": curve.min(axis=1).tolist(),
                    "hi": curve.max(axis=1).tolist(),
                    "ls": ls,
                    "marker": "",
                }
            )
    means = [float(np.mean(r["delay"])) if all(d is not None for d in r["delay"]) else None for r in runs]
    plots = [
        {
            "name": "accuracy",
            "kind": "lines",
            "series": series,
            "xlabel": "step",
            "ylabel": "accuracy (mean, band = min..max over seeds)",
            "title": "Fig. 4.4: train (solid) and validation (dashed) accuracy per k",
        }
    ]
    return Observation(
        value=means,
        details={
            "runs": runs,
            "seeds": list(seeds),
            "train_threshold": cfg.train_threshold,
            "val_threshold": cfg.val_threshold,
            "hold": cfg.hold,
        },
        artifacts={"plots": plots},
        seeds=seeds,
    )


#: Fig. 4.4 quick: one layer (the two-layer model did not generalize reliably within a CPU budget; see
#: docs/modular_transformer.md), k = 2 at p = 23 (529 points; the very run of shi-fig4.3-wkq-fourier, shared) and
#: k = 3 at p = 7 (343 points, stopped once every seed holds both thresholds; reported, not judged: it does not grok).
QUICK = GrokkingConfig(
    (QUICK_HEADS.model, QUICK_HEADS.model.replace(p=7, k=3, stop_train_acc=0.99, stop_val_acc=0.9, stop_hold=3)),
    grok_runs=1,  # k = 2 only: the quick k = 3 run does not grok (GrokkingConfig, docs)
)
#: Fig. 4.4 full: the thesis's four runs, two layers, 160 heads, hidden 128, AdamW lr 1e-3 and weight decay 1e-3,
#: 8 seeds (the population's power, below), each stopped once every seed holds both thresholds.
FULL = GrokkingConfig(
    tuple(
        thesis_transformer(
            p, k, layers=2, eval_every=100, stop_train_acc=0.99, stop_val_acc=0.9, stop_hold=3, seeds=FULL_SEEDS
        )
        for k, p in ((2, 97), (3, 31), (4, 11), (5, 5))
    ),
)

_QUICK_RUN = (
    "at quick scale (3 seeds) the rule can neither pass nor fail: 3 of 3 gives the lower bound "
    "0.05^(1/3) = 0.368 < 0.5 and 0 of 3 the upper bound 0.632 >= 0.5 (power 0 against p_alt = 0.95); 8 seeds "
    "(power 0.943) of the p = 23 transformer take about 2.1 times the 3-seed run (194 against 93 ms per step, "
    "measured together), over this task's CPU budget; judged with 8 seeds at full scale"
)

register(
    Claim(
        id="shi-fig4.4-grokking-delay",
        source=f"{SHI}, Sec. 4.5, Fig. 4.4; App. C.10.1",
        statement="Transformers (two-layer in the thesis) trained on half of the k-sum mod p data grok at every k of "
        "the thesis's runs, and the grokking weakens as k grows. Per seed: t_train = first evaluation with 0.99 "
        "training-half accuracy, t_val = first evaluation from which validation accuracy stays >= 0.9 for "
        "config.hold evaluations; the seed groks when t_val - t_train >= min_delay (one evaluation interval) at "
        "every k, and its delay falls by >= min_drop from each k to the next in the predicted order (the width "
        "2^{2k-2}(p-1) that Theorem 4.9 needs grows with k at the thesis's (k, p) pairs). A seed that never holds "
        "the validation threshold, or generalizes as soon as it fits, does not grok and supports nothing. The "
        "quick one-layer setting judges grokking at its smallest k only (its k = 3 run does not grok; its delays "
        "are reported). Population rule: p0 = 1/2 (the figure shows what a trained network typically does), "
        "power against p_alt = 0.95.",
        kind="training",
        configs={"quick": QUICK, "full": FULL},
        predict=predict_order,
        observe=observe_grokking,
        judge=GrokkingPerSeed(),
        underpowered={"quick": _QUICK_RUN},
        insensitive="at quick scale the verdict is inconclusive whatever the prediction (3 seeds, declared "
        "underpowered); the judge reads the predicted order (the run that must grok first, the direction of the "
        "drop): a reversed order fails seeds whose delays fall (tests/verify/test_modular_transformer_claims.py)",
        deviations={
            "quick": (
                *QUICK_DEVIATIONS,
                Deviation(
                    "layers",
                    "2 (Sec. 4.5, Fig. 4.4 caption: two-layer transformers)",
                    "1",
                    "the two-layer quick model did not generalize reliably within 2000-3000 CPU steps "
                    "(docs/modular_transformer.md, 'Quick settings')",
                ),
                Deviation(
                    "(k, p) of the runs",
                    "(2, 97), (3, 31), (4, 11), (5, 5) (Fig. 4.4)",
                    "(2, 23), (3, 7)",
                    "the thesis's sizes do not fit a CPU budget; two k only",
                ),
            ),
        },
        post_hoc=(
            PostHoc(
                "min_delay",
                "100 steps (one evaluation interval)",
                "added in the audit of this claim, when the quick k = 3 delays (-500, 0, 0) were known",
                "the metric's resolution; any positive value gives the same verdict on those delays",
            ),
            PostHoc(
                "grok_runs (quick)",
                "1: grokking judged at k = 2 only",
                "after the quick k = 3 run (p = 7) was seen to generalize as soon as it fits",
                "that setting cannot show grokking at k = 3; no other quick k = 3 setting fits the budget",
            ),
            PostHoc(
                "hold",
                "3 evaluations",
                "issue 28, after seeds were seen to cross 0.9 validation accuracy once and fall back",
                "one evaluation above the threshold is an oscillation of AdamW at lr 3e-3, not generalization",
            ),
            PostHoc(
                "min_drop",
                "100 steps",
                "when the claim was written, after the quick delays (k = 2: 1200-1600) were known",
                "one evaluation interval, the smallest decrease the metric resolves",
            ),
            PostHoc(
                "quick setting (lr 3e-3, weight decay 1.0, p = 23)",
                "as configured",
                "a search over lr, weight decay and p at quick scale (docs/modular_transformer.md)",
                "the thesis's settings did not grok within a CPU budget",
            ),
        ),
    )
)
