"""Karp Theorem 3.1 end to end: Alg. 3.1 (SGD on the one-filter CNN, fresh batches, by the exact reduced simulator;
the quick scale at eta_b = 0.075 eta_w instead of the thesis's eta_w/k, declared) reaches test error <= 0.01 within a stated poly(k) step budget at a k where the architecture's
optimum err(tau*) is far below 0.01; and the step at which it first does, against k (docs/local_signal.md,
"Theorem 3.1 end to end and the lemmas along trajectories")."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from theory import local_signal as tl
from verify.train.local_signal import SignalRun, SignalTrainConfig

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register
from ..judges import Check, PerSeed, Population
from .common import DOC
from .trained import _train

SRC_THM = "Karp thesis (2024), Sec. 3.4, Theorem 3.1 and Alg. 3.1 (proof in App. B.1.3)"

#: "w.h.p." reads "almost always", but the toolkit's training rule asks for a rate of at least 1/2 at 95 % and
#: computes the power against 0.95 (a run can die early: c < 0 with every row below threshold, seen in quick runs of
#: Fig. 3.3), as karp-ch3-fig3.3-training does.
THM31_RULE = Population(p0=0.5, p_alt=0.95)


@dataclass(frozen=True)
class Thm31Config:
    """Alg. 3.1 at every k of ``ks`` for every seed of ``train.seeds`` (one run per seed and k, so that runs are
    shared between the claims), each ``train.steps`` long (at most the budget, checked): the error level and the
    budget come from :mod:`theory.local_signal`. ``train.k`` is replaced by each k."""

    train: SignalTrainConfig
    ks: tuple[int, ...]

    def __post_init__(self) -> None:
        for k in self.ks:
            if self.train.steps > tl.theorem31_step_budget(k):
                raise ValueError(f"{self.train.steps} steps exceed the budget {tl.theorem31_step_budget(k)} at k = {k}")

    def runs(self) -> list[SignalTrainConfig]:
        """The SGD runs in the order they run: ``train`` at each k of ``ks`` and each of its seeds alone."""
        return [replace(self.train, k=k, seeds=(seed,)) for k in self.ks for seed in self.train.seeds]


def _runs_of(cfg: Thm31Config) -> int:
    return len(cfg.runs())


def _predict(cfg: Thm31Config) -> dict[str, Any]:
    """Theorem 3.1's level 0.01, the step budget ceil(k^{3/2}) and err(tau*) (the architecture's optimum) per k."""
    return {
        "error_level": tl.theorem31_error_level(),
        "budget": {str(k): tl.theorem31_step_budget(k) for k in cfg.ks},
        "err_tau_star": {str(k): tl.optimal_threshold(k).error for k in cfg.ks},
    }


#: Runs of this process, by (config, seed offset): the two claims share the run of a seed at a k.
_CACHE: dict[tuple[str, int], SignalRun] = {}


def _run(train: SignalTrainConfig, ctx: RunContext) -> SignalRun:
    key = (repr(train), int(ctx.options.seed_offset))
    if key not in _CACHE:
        _CACHE[key] = _train(train, ctx)
    return _CACHE[key]


def _first_step(run: SignalRun, level: float) -> int | None:
    """The first evaluated step whose test error is <= level (None if none)."""
    hit = np.flatnonzero(1 - run.accuracy[:, 0] <= level)
    return int(run.steps[hit[0]]) if hit.size else None


def _observe(cfg: Thm31Config, ctx: RunContext) -> Observation:
    level = float(tl.theorem31_error_level())
    rows, history = [], {}
    seconds = 0.0
    for train in cfg.runs():
        run, k = _run(train, ctx), train.k
        seconds += run.seconds
        first = _first_step(run, level)
        c, v, b = float(run.c[-1, 0]), float(run.v[-1, 0]), float(run.b[-1, 0])
        rows.append(
            {
                "seed": int(run.config.seeds[0]),
                "k": k,
                "final_error": float(1 - run.accuracy[-1, 0]),
                "first_step_at_level": first,
                "steps_run": int(run.steps[-1]),
                "budget": tl.theorem31_step_budget(k),
                "c": c,
                "v": v,
                "b": b,
                "tau_final": abs(b) / c if c > 0 else None,
            }
        )
        history[f"k={k} seed={run.config.seeds[0]}"] = {
            "steps": run.steps.tolist(),
            "error": (1 - run.accuracy[:, 0]).tolist(),
            "c": run.c[:, 0].tolist(),
            "b": run.b[:, 0].tolist(),
        }
    # steps against k: the median first step per k and the log-log slope between the smallest and largest k
    per_k = {}
    for k in cfg.ks:
        hits = [r["first_step_at_level"] for r in rows if r["k"] == k and r["first_step_at_level"] is not None]
        per_k[str(k)] = float(np.median(hits)) if hits else None
    ends = [per_k[str(k)] for k in (min(cfg.ks), max(cfg.ks))]
    slope = (
        math.log(ends[1] / ends[0]) / math.log(max(cfg.ks) / min(cfg.ks))
        if len(cfg.ks) > 1 and all(e for e in ends)
        else None
    )
    plots = [
        {
            "name": "thm3.1-error",
            "kind": "lines",
            "series": [{"label": key, "x": h["steps"], "y": h["error"], "marker": ""} for key, h in history.items()],
            "hlines": [{"y": level, "label": "Theorem 3.1: 0.01"}],
            "xlabel": "SGD step",
            "ylabel": "test error",
            "title": "Alg. 3.1: test error against steps",
        }
    ]
    return Observation(
        [r["final_error"] for r in rows],
        details={
            "per_seed": rows,
            "median_first_step_per_k": per_k,
            "loglog_slope_steps_vs_k": slope,
            "train_seconds": seconds,
        },
        artifacts={"training": history, "plots": plots},
        seeds=tuple(sorted({r["seed"] for r in rows})),
    )


@dataclass(frozen=True)
class Thm31Judge(PerSeed):
    """Per run (seed x k): the run's checks, and against the prediction: the final test error at most Theorem 3.1's
    level, and the first evaluated step with error at most the level within the budget ceil(k^{3/2}); then the
    population rule."""

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        level = float(predicted["error_level"])
        for row, found in zip(per_seed, problems):
            if not float(row["final_error"]) <= level:
                found.append(f"final test error {float(row['final_error']):.4g} > {level:g}")
            first, budget = row["first_step_at_level"], int(predicted["budget"][str(row["k"])])
            if first is None or not int(first) <= budget:
                found.append(f"error <= {level:g} first at step {first} (budget {budget})")
        return problems

    def describe(self) -> str:
        return self.describe_adding(
            "per seed and k",
            "final test error <= Theorem 3.1's 0.01 (predicted), reached within the budget ceil(k^{3/2}) steps "
            "(predicted)",
        )


def _judge(note: str) -> Thm31Judge:
    return Thm31Judge(
        checks=(Check("steps_run", "steps run", lo=1),),
        headline="final_error",
        note=note,
        rule=THM31_RULE,
        runs=_runs_of,
    )


#: The quick scale's b rate: eta_b = 0.075 eta_w (the thesis: eta_b = eta_w/k, "with a bit more technical care, our
#: proofs can be extended to cover the setting where eta_b = eta_w"); at eta_w/k the run needs tens of thousands of
#: steps (Fig. 3.3 reaches |b|/c = 0.44 after 10,000 steps at k = 1000).
_QUICK_B_FACTOR = 0.075
_QUICK_DEVIATION = (
    Deviation(
        "eta_b / eta_w",
        "1/k (Sec. 3.3 and Alg. 3.1: eta_b <- eta/k)",
        f"{_QUICK_B_FACTOR} (150/k at k = 2000)",
        "at 1/k the threshold |b|/c rises to the level-0.01 value only after tens of thousands of steps, beyond "
        "the quick budget; the thesis says its proofs extend to eta_b = eta_w, and ratios between stay below it. "
        "It costs survival: at batch 500 and 6000 steps, 5 of 8 seeds died (c stuck, every row below threshold, "
        "error about 1) and the 3 others reached 0.0019-0.0028 (docs/local_signal.md)",
    ),
    Deviation(
        "batch",
        "poly(k) (Alg. 3.1)",
        "200",
        "a fixed small batch keeps a quick step cheap",
    ),
)
_QUICK_TRAIN = SignalTrainConfig(
    k=2000,
    d=10,
    batch=200,
    steps=3000,
    lr_w=0.1,
    lr_b_factor=_QUICK_B_FACTOR,
    seeds=(0,),
    eval_every=100,
    n_test=4000,
    dtype="float32",
    num_threads=1,
)
_FULL_TRAIN = SignalTrainConfig(
    k=2000,
    d=10,
    batch=500,
    steps=89_443,  # theory.local_signal.theorem31_step_budget(2000), checked by Thm31Config
    lr_w=0.1,
    seeds=tuple(range(8)),
    eval_every=1000,
    n_test=20_000,
    dtype="float64",
    num_threads=1,
)
_POST_HOC = (
    PostHoc(
        "the step budget's degree (T = ceil(k^{3/2}))",
        "3/2",
        "after exploratory runs of the reduced simulator (k = 2000, eta_b = 0.075 eta_w: error 0.009 at step 1800)",
        "Theorem 3.1 only says poly(k); the proof's corrected phase lengths are O(sqrt(k) log^{3/2} k / eta), so a "
        "degree-3/2 budget is that order with room for the unknown constants",
    ),
    PostHoc(
        "the quick b rate (eta_b = 0.075 eta_w), the quick length (3000 steps) and the full list of k "
        "(2000, 3000, 4000)",
        "0.075; 3000; 2000, 3000, 4000",
        "after exploratory runs: at 0.075 one seed each reached 0.01 at step 1900 (k = 2000), 800 (k = 3000), 400 "
        "(k = 4000) and erred still 0.012 at step 3700 (k = 1500); at 150/k one run of k = 4000 died; at the "
        "thesis's 1/k a run of k = 2000 erred 0.074 after 40,000 steps",
        "runs that the exploration suggests reach the level within their length; the full scale runs the thesis's "
        "rates for the whole budget and was not run here",
    ),
)

register(
    Claim(
        id="karp-ch3-thm3.1-alg-reaches-error",
        source=f"{SRC_THM} ({DOC})",
        statement="Alg. 3.1 (b^(0) = 0, |w^(0)| = 1e-6, eta_w = 0.1, eta_b = eta_w/k, fresh batches, the exact "
        "reduced simulator) at k = 2000 (sigma = log k/sqrt k = 0.170), where the architecture's optimum errs "
        "err(tau*) = 4.0e-6, far below 0.01: the final test error is <= 0.01 (Theorem 3.1), first reached within "
        "the stated budget T(k) = ceil(k^{3/2}) = 89,443 steps. Per run; seed-population rule p0 = 0.5, power against "
        "0.95. Quick: one seed, eta_b = 0.075 eta_w, batch 200, 3000 steps (underpowered); full: 8 seeds at the "
        "thesis's eta_b = eta_w/k, batch 500, for the whole budget (an exploratory run there still erred 0.074 "
        "after 40,000 steps: the full verdict may fail this degree-3/2 budget, which Theorem 3.1's poly(k) does not "
        "fix).",
        kind="training",
        configs={
            "quick": Thm31Config(_QUICK_TRAIN, ks=(2000,)),
            "full": Thm31Config(_FULL_TRAIN, ks=(2000,)),
        },
        predict=_predict,
        observe=_observe,
        judge=_judge("err(tau*) and the step of first reaching 0.01 are reported per run"),
        underpowered={
            "quick": "one seed (a run of k = 2000 for 3000 steps costs about 20-40 s of one core): 1 of 1 gives a "
            "lower bound 0.05 < p0 = 0.5; the full scale runs 8 seeds (power 0.943 against 0.95)",
        },
        deviations={"quick": _QUICK_DEVIATION},
        post_hoc=_POST_HOC,
        insensitive="the error level and the budget enter as per-run thresholds the runs clear by a margin (final "
        "errors well below 0.01 when the run has converged, first steps far below the budget): a 1 % move of either "
        "changes no run's outcome",
    )
)

register(
    Claim(
        id="karp-ch3-thm3.1-steps-vs-k",
        source=f"{SRC_THM} ({DOC})",
        statement="Alg. 3.1's number of steps to test error <= 0.01 against k: at every k of the list (err(tau*) "
        "<= 1e-4 at each) every run reaches 0.01 within the budget ceil(k^{3/2}) and ends there; the median first "
        "step per k and the log-log slope of steps against k are recorded (reported, not judged: Theorem 3.1 states "
        "only poly(k)). Per run (seed x k); seed-population rule p0 = 0.5, power against 0.95. Quick: k = 2000, "
        "3000, one seed each, eta_b = 0.075 eta_w (underpowered); full: k = 2000, 3000, 4000, 4 seeds each at the "
        "thesis's rates, batch 500, 89,443 steps (the budget at k = 2000).",
        kind="training",
        configs={
            "quick": Thm31Config(_QUICK_TRAIN, ks=(2000, 3000)),
            "full": Thm31Config(replace(_FULL_TRAIN, seeds=tuple(range(4))), ks=(2000, 3000, 4000)),
        },
        predict=_predict,
        observe=_observe,
        judge=_judge("the median first step per k and the log-log slope are reported"),
        underpowered={
            "quick": "two runs (one seed at each of two k): 2 of 2 gives a lower bound 0.224 < p0 = 0.5; the full "
            "scale runs 12 (power 0.98 against 0.95)",
        },
        deviations={"quick": _QUICK_DEVIATION},
        post_hoc=_POST_HOC,
        insensitive="the error level and the budgets enter as per-run thresholds (see "
        "karp-ch3-thm3.1-alg-reaches-error); the steps against k are recorded, not judged",
    )
)
