"""Karp Ch. 3 Fig. 3.3 and App. B.3: the one-filter CNN trained by SGD (Alg. 3.1) on fresh signal-in-noise batches,
against the predicted optimum (the direction w_* and the threshold tau*); the reduced simulator against the direct
one; and the figure's printed sigma = 1 (docs/local_signal.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import stats

from numerics import local_signal as nl
from theory import local_signal as tl
from verify.train.local_signal import SignalRun, SignalTrainConfig, train_signal

from ..base import Claim, Deviation, Erratum, Observation, PostHoc, RunContext, register
from ..judges import (
    PERTURB_REL,
    PERTURB_TOLS,
    AtMost,
    Check,
    PerSeed,
    Population,
    RefutedIfViolated,
    Replicated,
    as_float,
    as_floats,
    perturb_value,
)
from ..training import run_checkpointed
from .common import DOC, MC_Z

SRC_FIG = "Karp thesis (2024), Sec. 3.4, Fig. 3.3 and App. B.3"


@dataclass(frozen=True)
class FigureConfig:
    """A Fig. 3.3 run (``train``: k = 1000, d = 10, sigma = log k/sqrt k, eta_w = 0.1, eta_b = eta_w/k, fresh batches)
    and the per-seed bounds its judge reads: final cos(w, w_*) >= ``min_cos``, v/c <= ``max_v_over_c``, b < 0,
    |b|/c at the end above its value at a quarter of the run and in [``min_tau_frac`` tau*, tau*], final test
    accuracy >= ``min_acc`` and at least ``min_acc_gain`` above the initial one. ``kernel`` sets the small CNTK run
    drawn as a reference line (None: none; the kernel claim checks the CNTK itself).

    Where the bounds come from (docs/local_signal.md, "Thresholds"): the full-scale bounds (cos >= 0.99,
    v/c <= 0.15, accuracy >= 0.7, gain >= 0.15) were fixed from an independent reproduction of the figure's setting
    made before these claims. The quick bounds (1000 steps, batch 250: cos >= 0.95, v/c <= 0.35, accuracy >= 0.6,
    gain >= 0.05) were set after seeing quick runs (accuracy 0.67-0.68, cos about 0.99), i.e. post hoc; so were the
    lower ends of the tau* window (``min_tau_frac``: 0.15 quick, 0.3 full, against 0.27-0.34 and 0.46 observed), see
    the claim's ``post_hoc``."""

    train: SignalTrainConfig
    min_cos: float
    max_v_over_c: float
    min_acc: float
    min_acc_gain: float
    min_tau_frac: float
    kernel: tuple[int, int, int] | None = (2, 600, 1000)  # inits, n_train, n_test; None: no CNTK reference line
    kernel_biases: tuple[float, ...] = (0.0, -0.1, -0.2)


_QUICK_TRAIN = SignalTrainConfig(
    k=1000, d=10, batch=250, steps=1000, seeds=(0, 1), eval_every=100, n_test=1000, dtype="float32", num_threads=1
)
_FULL_TRAIN = SignalTrainConfig(
    k=1000,
    d=10,
    batch=500,
    steps=10_000,
    seeds=tuple(range(8)),
    eval_every=100,
    n_test=5000,
    dtype="float64",
    num_threads=1,
)


def _predict_figure(cfg: FigureConfig) -> dict:
    """tau* and err(tau*) of the aligned optimum (theory), the linear classifier's error and Thm 3.2's kernel bound."""
    opt = tl.optimal_threshold(cfg.train.k, cfg.train.sigma)
    return {
        "tau_star": opt.tau,
        "err_tau_star": opt.error,
        "direction": "w = c w_* (v = 0)",
        "linear_classifier_error": tl.linear_classifier_error(cfg.train.k),
        "kernel_error_bound": tl.kernel_error_bound(),
    }


def _series(run: SignalRun, values: np.ndarray, label: str, **style) -> list[dict]:
    steps = run.steps.tolist()
    return [
        {"label": f"{label} (seed {s})", "x": steps, "y": values[:, j].tolist(), "marker": "", **style}
        for j, s in enumerate(run.config.seeds)
    ]


def figure_plots(run: SignalRun, tau_star: float, err_star: float, kernel_error: float | None) -> list[dict]:
    """Fig. 3.3's three panels: b and w.w_*, |b|/(w.w_*) with tau*, test accuracy with 1 - err(tau*), the linear
    classifier and the CNTK as reference lines."""
    k = run.config.k
    acc_lines = [
        {"y": 1 - err_star, "label": f"optimum 1 - err(tau*) = {1 - err_star:.4f}"},
        {"y": 1 - tl.linear_classifier_error(k), "label": "linear classifier 1 - Phi(-1/log k)", "color": "gray"},
    ]
    if kernel_error is not None:
        acc_lines.append(
            {"y": 1 - kernel_error, "label": f"CNTK best (d = 1/sigma^2): {1 - kernel_error:.3f}", "color": "red"}
        )
    return [
        {
            "name": "fig3.3-b-and-c",
            "kind": "lines",
            "series": _series(run, run.c, "w . w_*") + _series(run, run.b, "b", ls="--"),
            "hlines": [{"y": 0.0, "label": "0", "color": "gray"}],
            "xlabel": "SGD step",
            "ylabel": "value",
            "title": f"Fig. 3.3 (left): b and w . w_*, k = {k}, d = {run.config.d}",
        },
        {
            "name": "fig3.3-ratio",
            "kind": "lines",
            "series": _series(run, np.nan_to_num(run.tau, nan=0.0), "|b| / (w . w_*)"),
            "hlines": [{"y": tau_star, "label": f"tau* = {tau_star:.3f} (0-1 optimum)"}],
            "xlabel": "SGD step",
            "ylabel": "|b| / (w . w_*)",
            "title": "Fig. 3.3 (center): the threshold ratio rises toward tau*",
        },
        {
            "name": "fig3.3-accuracy",
            "kind": "lines",
            "series": _series(run, run.accuracy, "test accuracy"),
            "hlines": acc_lines,
            "xlabel": "SGD step",
            "ylabel": "test accuracy",
            "title": "Fig. 3.3 (right): test accuracy",
        },
    ]


def _train(train: SignalTrainConfig, ctx: RunContext) -> SignalRun:
    """Train ``train`` on ``ctx.device``, checkpointed under the report's scratch directory (a rerun resumes)."""
    return run_checkpointed(
        ctx,
        f"local_signal_{train.simulator}",
        train.to_dict(),
        lambda options: train_signal(train, options),
    )


def _observe_figure(cfg: FigureConfig, ctx: RunContext) -> Observation:
    run = _train(cfg.train, ctx)
    pred = _predict_figure(cfg)
    quarter = int(np.searchsorted(run.steps, cfg.train.steps // 4))
    rows = []
    for j, seed in enumerate(run.config.seeds):  # the seeds that ran (shifted by RunOptions.seed_offset)
        c, v, b, tau = run.c[-1, j], run.v[-1, j], run.b[-1, j], run.tau[-1, j]
        rows.append(
            {
                "seed": seed,
                "c": float(c),
                "v": float(v),
                "b": float(b),
                "cos_final": float(run.cosine[-1, j]),
                "v_over_c": float(v / c) if c > 0 else float("inf"),
                "tau_final": float(tau),
                "tau_quarter": float(run.tau[quarter, j]),
                "tau_rise": float(tau - run.tau[quarter, j]),
                "acc_initial": float(run.accuracy[0, j]),
                "acc_final": float(run.accuracy[-1, j]),
                "acc_gain": float(run.accuracy[-1, j] - run.accuracy[0, j]),
                "err_at_learned_tau_aligned": tl.error_curve(cfg.train.k, float(tau)) if 0 <= tau < 1 else None,
                "gap_to_optimum_accuracy": float(1 - pred["err_tau_star"] - run.accuracy[-1, j]),
            }
        )
    kernel_error, kernel_gap = None, None
    if cfg.kernel is not None:
        inits, n_train, n_test = cfg.kernel
        kernel = nl.kernel_best_error(
            cfg.train.k, round(1 / tl.noise_sigma(cfg.train.k) ** 2), cfg.kernel_biases, inits, n_train, n_test, seed=7
        )
        kernel_error, kernel_gap = float(kernel.best_error.min()), kernel.max_gap
    history = {
        "steps": run.steps.tolist(),
        "c": run.c.tolist(),
        "v": run.v.tolist(),
        "b": run.b.tolist(),
        "accuracy": run.accuracy.tolist(),
    }
    return Observation(
        [row["acc_final"] for row in rows],
        details={
            "per_seed": rows,
            "train_seconds": run.seconds,
            "simulator": cfg.train.simulator,
            "cntk_best_error_reference": kernel_error,
            "cntk_max_duality_gap": kernel_gap,
        },
        artifacts={
            "training": history,
            "plots": figure_plots(run, pred["tau_star"], pred["err_tau_star"], kernel_error),
        },
        seeds=tuple(run.config.seeds),
    )


@dataclass(frozen=True)
class FigureJudge(PerSeed):
    """Fig. 3.3 per seed: the run's checks (:class:`Check`) and the learned threshold against the predicted tau*,
    two-sided: ``config.min_tau_frac`` tau* <= |b|/c <= tau* at the end (with b < 0 and |b|/c rising from a quarter
    of the run). The upper end says the threshold does not overshoot the 0-1 optimum; the lower end that it covered a
    stated part of the way from 0 to tau*, so a run that barely moves fails (docs/local_signal.md)."""

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        tau_star = as_float(predicted["tau_star"])
        lo = float(config.min_tau_frac) if config is not None else 0.0
        for row, found in zip(per_seed, problems):
            ratio = float(row["tau_final"]) / tau_star
            if not lo <= ratio <= 1.0 or not ratio > 0:
                found.append(f"final |b|/c over the predicted tau* {ratio:.4g} (window [{lo:g}, 1])")
        return problems

    def describe(self) -> str:
        return self.describe_adding("per seed", "final |b|/c / tau* (predicted) in [config.min_tau_frac, 1]")


#: "SGD moves toward the predicted optimum" reads "typically" (p0 = 0.5); the power is computed against 0.95: most
#: runs show the mechanism (alignment, b < 0, a rising threshold), but a quick run can die (seed 1000 under
#: --seed-offset 1000: c < 0 and every unit below threshold, accuracy 0), so "every run" (0.99) would overstate it.
FIGURE_RULE = Population(p0=0.5, p_alt=0.95)

FIGURE_JUDGE = FigureJudge(
    checks=(
        Check("cos_final", "final cos(w, w_*)", lo="min_cos"),
        Check("v_over_c", "final v/c", hi="max_v_over_c"),
        Check("b", "final b", hi=-1e-12),
        Check("tau_rise", "|b|/c at the end minus at a quarter of the run", lo=1e-12),
        Check("acc_final", "final test accuracy", lo="min_acc"),
        Check("acc_gain", "test accuracy gain", lo="min_acc_gain"),
    ),
    headline="acc_final",
    note="the gap to 1 - err(tau*) is reported per seed, not judged",
    rule=FIGURE_RULE,
)

register(
    Claim(
        id="karp-ch3-fig3.3-training",
        source=f"{SRC_FIG} (sigma = log k/sqrt k, the code's noise scalar 1; {DOC})",
        statement="SGD on the one-filter CNN (k = 1000, d = 10, sigma = log k/sqrt k = 0.218, eta_w = 0.1, "
        "eta_b = 0.1/1000, fresh batches of 500, |w^(0)| = 1e-6, b^(0) = 0) moves toward the predicted optimum: "
        "w aligns with w_* (cos -> 1, v/c small), b < 0 and |b|/(w.w_*) rises toward tau* = 0.953 (from below, "
        "ending in [min_tau_frac tau*, tau*]: 0.15 quick, 0.3 full), and the test accuracy rises (to about 0.78 after 10,000 steps, far from the optimum 0.9977: the gap is "
        "reported). Per seed, every check; seed-population rule with target rate 0.5 (the mechanism is what "
        "most runs show: power against 0.95). Quick: 1000 steps, batch 250, float32, 2 seeds (underpowered); full: "
        "the thesis's 10,000 steps by the exact reduced simulator, 8 seeds.",
        kind="training",
        configs={
            "quick": FigureConfig(
                _QUICK_TRAIN,
                min_cos=0.95,
                max_v_over_c=0.35,
                min_acc=0.6,
                min_acc_gain=0.05,
                min_tau_frac=0.15,
                kernel=None,
            ),
            "full": FigureConfig(
                _FULL_TRAIN,
                min_cos=0.99,
                max_v_over_c=0.15,
                min_acc=0.7,
                min_acc_gain=0.15,
                min_tau_frac=0.3,
                kernel=(4, 2000, 4000),
            ),
        },
        predict=_predict_figure,
        observe=_observe_figure,
        judge=FIGURE_JUDGE,
        underpowered={
            "quick": "two seeds (a seed of k = 1000 costs about 10-20 s of one core, five would exceed the area's "
            "quick budget): the largest lower bound, 2 of 2, is 0.224 < p0 = 0.5, power 0 against 0.95; the full "
            "scale runs eight seeds (power 0.943)",
        },
        insensitive="tau* enters as the window [min_tau_frac tau*, tau*] of the final |b|/c, which ends far inside "
        "it (0.27-0.34 tau* quick, 0.46 full): a tau* moved by 1% or 10 tolerances leaves every seed in the window; "
        "the window's ends, not tau*'s digits, are what the run can test (err(tau*) is reported, not judged)",
        deviations={
            "quick": (
                Deviation(
                    "minibatch size",
                    "500 fresh i.i.d. samples per step (Fig. 3.3 caption)",
                    "250",
                    "half a step's cost, so that two seeds fit the area's quick budget on one core; the full scale "
                    "uses 500",
                ),
            ),
            "full": (),
        },
        post_hoc=(
            PostHoc(
                "quick per-seed bounds (cos >= 0.95, v/c <= 0.35, accuracy >= 0.6, gain >= 0.05)",
                "0.95, 0.35, 0.6, 0.05",
                "after quick runs (accuracy 0.67-0.68, cos about 0.99)",
                "the quick run is a tenth of the figure's steps at half its batch; the full-scale bounds were fixed "
                "from an independent reproduction before these claims",
            ),
            PostHoc(
                "lower end of the tau* window (min_tau_frac)",
                "0.15 quick, 0.3 full",
                "after the quick runs (final |b|/c = 0.27-0.34 tau* over 7 seeds) and the full-scale run of "
                "2026-11-25 (0.46 tau*, 2 seeds)",
                "about half the observed fraction: a run that barely moves toward tau* fails, round-off and seed "
                "spread do not",
            ),
        ),
    )
)


# --- the reduced simulator against the direct one


@dataclass(frozen=True)
class ReductionConfig:
    """The same SGD run by both simulators in ``replicates`` independent comparisons: replicate j trains
    ``per_replicate`` seeds of each simulator (reduced seeds j per_replicate + i, direct seeds ``direct_base`` + the
    same), and compares the means of c, v, b and the test accuracy over its seeds at ``checkpoints`` by Welch's t
    test, each at level ``alpha`` / (number of comparisons) (Bonferroni): a replicate fails with probability at most
    ``alpha`` when the simulators agree in distribution."""

    train: SignalTrainConfig = field(
        default_factory=lambda: SignalTrainConfig(
            k=50, d=10, batch=50, steps=300, eval_every=100, n_test=1000, num_threads=1
        )
    )
    replicates: int = 10
    per_replicate: int = 4
    direct_base: int = 100
    checkpoints: tuple[int, ...] = (100, 200, 300)
    quantities: tuple[str, ...] = ("c", "v", "b", "accuracy")
    alpha: float = 0.01

    def runs(self) -> list[SignalTrainConfig]:
        """The two SGD runs: ``train`` by the reduced simulator on :attr:`reduced_seeds`, by the direct one on
        :attr:`direct_seeds`."""
        return [
            replace(self.train, simulator=sim, seeds=seeds)
            for sim, seeds in (("reduced", self.reduced_seeds), ("direct", self.direct_seeds))
        ]

    @property
    def reduced_seeds(self) -> tuple[int, ...]:
        return tuple(range(self.replicates * self.per_replicate))

    @property
    def direct_seeds(self) -> tuple[int, ...]:
        return tuple(self.direct_base + s for s in self.reduced_seeds)


def _predict_reduction(cfg: ReductionConfig) -> list[int]:
    return [tl.reduction_difference()] * (len(cfg.checkpoints) * len(cfg.quantities))


def _observe_reduction(cfg: ReductionConfig, ctx: RunContext) -> Observation:
    runs = {train.simulator: _train(train, ctx) for train in cfg.runs()}
    m = cfg.per_replicate
    replicates = []
    for j in range(cfg.replicates):
        rows = []
        for t in cfg.checkpoints:
            for q in cfg.quantities:
                vals = {
                    sim: getattr(run, q)[int(np.searchsorted(run.steps, t))][j * m : (j + 1) * m].astype(np.float64)
                    for sim, run in runs.items()
                }
                var = {sim: float(v.var(ddof=1) / v.size) for sim, v in vals.items()}
                se = float(np.sqrt(sum(var.values())))
                # Welch-Satterthwaite degrees of freedom of the difference of the two means
                dof = se**4 / sum(x**2 / (m - 1) for x in var.values()) if se > 0 else float("inf")
                rows.append(
                    {
                        "step": t,
                        "quantity": q,
                        "reduced": float(vals["reduced"].mean()),
                        "direct": float(vals["direct"].mean()),
                        "difference": float(vals["reduced"].mean() - vals["direct"].mean()),
                        "se": max(se, 1e-300),
                        "dof": float(dof),
                    }
                )
        replicates.append(
            {
                "replicate": j,
                "reduced_seeds": [int(s) for s in runs["reduced"].config.seeds[j * m : (j + 1) * m]],
                "direct_seeds": [int(s) for s in runs["direct"].config.seeds[j * m : (j + 1) * m]],
                "comparisons": rows,
            }
        )
    seconds = {sim: run.seconds for sim, run in runs.items()}
    return Observation(
        [[row["difference"] for row in rep["comparisons"]] for rep in replicates],
        details={
            "replicates": replicates,
            "train_seconds": seconds,
            "steps_per_second_ratio": seconds["direct"] / seconds["reduced"],
        },
        seeds=tuple(runs["reduced"].config.seeds) + tuple(runs["direct"].config.seeds),
    )


@dataclass(frozen=True)
class ReplicatedWelch(Replicated):
    """Equality in distribution of two simulators, judged on a population of independent replicate comparisons
    (docs/local_signal.md, docs/verdicts.md): in each replicate every predicted difference of means (0: the reduction
    is exact) is compared with the observed one by Welch's t test, t = (observed - predicted) / se with the
    Welch-Satterthwaite degrees of freedom, at two-sided level ``config.alpha`` / (comparisons per replicate); a
    replicate succeeds when no comparison rejects. ``rule`` is the seed-population rule on the replicates. The
    perturbation moves each prediction by 10 x 4 of its largest standard error (as :class:`ZScore`)."""

    def _replicates(self, predicted: Any, obs: Any, config: Any) -> list[tuple[Any, list[str]]]:
        pred = as_floats(predicted)
        out = []
        for rep in obs.details["replicates"]:
            rows = rep["comparisons"]
            level = float(config.alpha) / len(rows)
            worst, bad = 0.0, []
            for p, row in zip(pred, rows):
                t = abs(float(row["difference"]) - p) / float(row["se"])
                pval = 2 * float(stats.t.sf(t, row["dof"])) if np.isfinite(t) else 0.0
                worst = max(worst, t) if np.isfinite(t) else float("inf")
                if not pval >= level:
                    bad.append(f"{row['quantity']} at step {row['step']}: |t| = {t:.2f} (p = {pval:.1e})")
            if len(pred) != len(rows):
                bad.append(f"{len(pred)} predictions for {len(rows)} comparisons")
            out.append((worst, bad))
        return out

    def _reason(self, reps: list[tuple[Any, list[str]]], k: int, st: dict[str, Any]) -> str:
        n = len(reps)
        text = (
            "largest |t| per replicate "
            + ", ".join(f"{w:.2f}" for w, _ in reps)
            + f"; {k} of {n} replicates reject nothing: rate in [{st['lower']:.3f}, {st['upper']:.3f}] at "
            f"{self.rule.confidence:.0%}, target {self.rule.p0:g}"
        )
        failing = [f"replicate {j}: {'; '.join(bad[:3])}" for j, (_, bad) in enumerate(reps) if bad][:4]
        return text + (f"; failing: {'; '.join(failing)}" if failing else "")

    def describe(self) -> str:
        return (
            "per replicate: no difference of means rejected by Welch's t test at level config.alpha / comparisons "
            f"(Bonferroni); {self.rule.describe()}"
        )

    def perturb(self, predicted: Any, obs: Any) -> Any:
        se = max(float(row["se"]) for rep in obs.details["replicates"] for row in rep["comparisons"])
        return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * MC_Z * se)


register(
    Claim(
        id="karp-ch3-reduced-simulator",
        source=f"Karp thesis (2024), App. B.1.1 (the (c, v, b) reduction; the simulator is derived in {DOC})",
        statement="The reduced simulator (only the projections z = <w, eps> ~ N(0, sigma^2 |w|^2) are sampled; the "
        "orthogonal part of sum dz eps is one Gaussian sigma sqrt(sum dz^2) P_perp xi) is exact in distribution: "
        "in each of 10 independent replicates (8 full), 4 seeds (16 full) of it and as many seeds of the direct d-dimensional simulation with "
        "autograd (k = 50, d = 10, batch 50, 300 steps) give means of w.w_*, |w_perp|, b and test accuracy at steps "
        "100, 200, 300 whose differences Welch's t test does not reject (level 0.01 per replicate, Bonferroni over "
        "the 12 comparisons). A replicate of agreeing simulators fails with probability at most 0.01, so the "
        "seed-population rule has target rate 0.5 and its power is computed against 0.99.",
        kind="training",
        configs={"quick": ReductionConfig(), "full": ReductionConfig(replicates=8, per_replicate=16)},
        post_hoc=(
            PostHoc(
                "replicates (quick)",
                "10, was 5",
                "2026-12-01, after a QA run of 21 fresh 5-replicate sets: all passed (115 of 115 replicates), but the "
                "replicates' Bonferroni-adjusted p-values put a replicate's failure rate near 0.005",
                "5 replicates pass only at 5 of 5, so agreeing simulators miss 'pass' with probability up to "
                "1 - 0.99^5 = 0.049 by design (about 0.025 at the measured rate); 10 pass from 9 of 10, which a "
                "failure rate of 0.01 misses with probability 0.004",
            ),
        ),
        predict=_predict_reduction,
        observe=_observe_reduction,
        judge=ReplicatedWelch(Population(p0=0.5, p_alt=0.99)),
    )
)


# --- the printed sigma = 1 of Fig. 3.3 (erratum K2)


@dataclass(frozen=True)
class SigmaOneConfig:
    """The aligned filter's error at the printed sigma = 1 (k = 1000) on a tau grid, by plain Monte Carlo."""

    k: int = 1000
    sigma: float = 1.0
    taus: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
    n: int = 10_000
    seed: int = 30


def _observe_sigma_one(cfg: SigmaOneConfig, ctx: RunContext) -> Observation:
    sample = nl.tail_sample(cfg.k, cfg.sigma, min(cfg.taus), cfg.n, cfg.seed, importance=False)
    err, se = nl.error_curve_mc(sample, cfg.taus)
    i = int(np.argmin(err))
    return Observation(
        float(err[i]),
        details={"taus": list(cfg.taus), "err": err.tolist(), "stderr": se.tolist()},
        counterexample={
            "sigma": cfg.sigma,
            "k": cfg.k,
            "smallest_error_over_tau": float(err[i]),
            "at_tau": cfg.taus[i],
            "best_accuracy": float(1 - err[i]),
            "linear_classifier_error_Phi(-1/(sigma sqrt k))": float(stats.norm.cdf(-1 / (cfg.sigma * np.sqrt(cfg.k)))),
        },
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="karp-ch3-fig3.3-sigma-printed",
        source=f"{SRC_FIG} as printed (erratum in {DOC})",
        statement="As printed: Fig. 3.3 trains at sigma = 1 (k = 1000, d = 10) and its test accuracy rises 'tightly "
        "aligning with the theory' (Thm 3.1: error <= 0.01). Observed: at sigma = 1 every aligned filter errs with "
        "probability about 0.49 (best accuracy about 51 %), so no training run could approach the theory. The sigma "
        "meant is the chapter's log k/sqrt k = 0.2184 (Sec. 3.3); the printed 1 is the authors' code's multiplier of "
        "it (noise_scalar).",
        kind="numeric",
        configs={"quick": SigmaOneConfig(), "full": SigmaOneConfig()},
        predict=lambda cfg: tl.theorem31_error_level(),
        observe=_observe_sigma_one,
        judge=RefutedIfViolated(AtMost()),
        refutes="Figure 3.3 / App. B.3: 'k = 1000, d = 10, and sigma = 1'",
        corrected_by="karp-ch3-fig3.3-training",
        erratum=Erratum(
            "notation",
            "[Fig. 3.3:] Training our model on synthetic data, using k = 1000, d = 10, sigma = 1, eta_w = 0.1, eta_b = "
            "0.1/1000, and minibatch size 500 [...] the test accuracy increases correspondingly, tightly aligning with "
            "the theory. [App. B.3:] The experiments with our model on synthetic data (Figure 3.3) were run on data "
            "with the following parameters: k = 1000, d = 10, and sigma = 1. [Sec. 3.3, the problem's definition:] We "
            "also set sigma = log k/sqrt k",
            "Karp thesis (2024), Ch. 3: caption of Fig. 3.3 (p. 26 by the list of figures), Sec. 3.4 ('Illustration "
            "of training dynamics with synthetic data') and App. B.3 (p. 111 by the table of contents)",
        ),
    )
)
