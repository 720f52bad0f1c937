"""Karp Ch. 3 Fig. 3.3 and App. B.3: the one-filter CNN trained by SGD (Alg. 3.1) on fresh signal-in-noise batches,
against the predicted optimum (the direction w_* and the threshold tau*); the reduced simulator against the direct
one; and the figure's printed sigma = 1 (docs/local_signal.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats

from numerics import local_signal as nl
from theory import local_signal as tl
from verify.train.local_signal import SignalRun, SignalTrainConfig, train_signal

from ..base import Claim, Erratum, Observation, RunContext, register
from ..judges import AtMost, Check, PerSeed, RefutedIfViolated, ZScore
from ..training import run_checkpointed
from .common import DOC, MC_Z, se_list

SRC_FIG = "Karp thesis (2024), Sec. 3.4, Fig. 3.3 and App. B.3"


@dataclass(frozen=True)
class FigureConfig:
    """A Fig. 3.3 run (``train``: k = 1000, d = 10, sigma = log k/sqrt k, eta_w = 0.1, eta_b = eta_w/k, fresh batches)
    and the per-seed bounds its judge reads: final cos(w, w_*) >= ``min_cos``, v/c <= ``max_v_over_c``, b < 0,
    |b|/c at the end above its value at a quarter of the run and below tau*, final test accuracy >= ``min_acc``
    and at least ``min_acc_gain`` above the initial one. ``kernel`` sets the small CNTK run drawn as a reference.

    Where the bounds come from (docs/local_signal.md, "Thresholds"): the full-scale bounds (cos >= 0.99,
    v/c <= 0.15, accuracy >= 0.7, gain >= 0.15) were fixed from an independent reproduction of the figure's setting
    made before these claims. The quick bounds (1000 steps, batch 250: cos >= 0.95, v/c <= 0.35, accuracy >= 0.6,
    gain >= 0.05) were set after seeing quick runs (accuracy 0.67-0.68, cos about 0.99), i.e. post hoc."""

    train: SignalTrainConfig
    min_cos: float
    max_v_over_c: float
    min_acc: float
    min_acc_gain: float
    kernel: tuple[int, int, int] = (2, 600, 1000)  # inits, n_train, n_test
    kernel_biases: tuple[float, ...] = (0.0, -0.1, -0.2)


_QUICK_TRAIN = SignalTrainConfig(
    k=1000, d=10, batch=250, steps=1000, seeds=(0, 1), eval_every=50, n_test=2000, dtype="float32", num_threads=1
)
_FULL_TRAIN = SignalTrainConfig(
    k=1000, d=10, batch=500, steps=10_000, seeds=(0, 1), eval_every=100, n_test=5000, dtype="float64", num_threads=1
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
    for j, seed in enumerate(cfg.train.seeds):
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
                "tau_final_over_tau_star": float(tau / pred["tau_star"]),
                "acc_initial": float(run.accuracy[0, j]),
                "acc_final": float(run.accuracy[-1, j]),
                "acc_gain": float(run.accuracy[-1, j] - run.accuracy[0, j]),
                "err_at_learned_tau_aligned": tl.error_curve(cfg.train.k, float(tau)) if 0 <= tau < 1 else None,
                "gap_to_optimum_accuracy": float(1 - pred["err_tau_star"] - run.accuracy[-1, j]),
            }
        )
    inits, n_train, n_test = cfg.kernel
    kernel = nl.kernel_best_error(
        cfg.train.k, round(1 / tl.noise_sigma(cfg.train.k) ** 2), cfg.kernel_biases, inits, n_train, n_test, seed=7
    )
    kernel_error = float(kernel.best_error.min())
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
            "cntk_max_duality_gap": kernel.max_gap,
        },
        artifacts={
            "training": history,
            "plots": figure_plots(run, pred["tau_star"], pred["err_tau_star"], kernel_error),
        },
        seeds=tuple(cfg.train.seeds),
    )


FIGURE_JUDGE = PerSeed(
    checks=(
        Check("cos_final", "final cos(w, w_*)", lo="min_cos"),
        Check("v_over_c", "final v/c", hi="max_v_over_c"),
        Check("b", "final b", hi=-1e-12),
        Check("tau_rise", "|b|/c at the end minus at a quarter of the run", lo=1e-12),
        Check("tau_final_over_tau_star", "final |b|/c over tau*", hi=1.0),
        Check("acc_final", "final test accuracy", lo="min_acc"),
        Check("acc_gain", "test accuracy gain", lo="min_acc_gain"),
    ),
    headline="acc_final",
    note="the gap to 1 - err(tau*) is reported per seed, not judged",
)

register(
    Claim(
        id="karp-ch3-fig3.3-training",
        source=f"{SRC_FIG} (sigma = log k/sqrt k, the code's noise scalar 1; {DOC})",
        statement="SGD on the one-filter CNN (k = 1000, d = 10, sigma = log k/sqrt k = 0.218, eta_w = 0.1, "
        "eta_b = 0.1/1000, fresh batches of 500, |w^(0)| = 1e-6, b^(0) = 0) moves toward the predicted optimum: "
        "w aligns with w_* (cos -> 1, v/c small), b < 0 and |b|/(w.w_*) rises toward tau* = 0.953 (from below), "
        "and the test accuracy rises (to about 0.78 after 10,000 steps, far from the optimum 0.9977: the gap is "
        "reported). Quick: 1000 steps, batch 250, float32; full: the thesis's 10,000 steps by the exact reduced "
        "simulator.",
        kind="training",
        configs={
            "quick": FigureConfig(_QUICK_TRAIN, min_cos=0.95, max_v_over_c=0.35, min_acc=0.6, min_acc_gain=0.05),
            "full": FigureConfig(
                _FULL_TRAIN, min_cos=0.99, max_v_over_c=0.15, min_acc=0.7, min_acc_gain=0.15, kernel=(4, 2000, 4000)
            ),
        },
        predict=_predict_figure,
        observe=_observe_figure,
        judge=FIGURE_JUDGE,
    )
)


# --- the reduced simulator against the direct one


@dataclass(frozen=True)
class ReductionConfig:
    """The same SGD run by both simulators with independent seed ensembles (``reduced`` and ``direct`` seeds); the
    means of c, v, b and the test accuracy over seeds are compared at ``checkpoints``."""

    train: SignalTrainConfig = field(
        default_factory=lambda: SignalTrainConfig(
            k=50, d=10, batch=50, steps=300, eval_every=100, n_test=1000, num_threads=1
        )
    )
    reduced_seeds: tuple[int, ...] = tuple(range(16))
    direct_seeds: tuple[int, ...] = tuple(range(100, 116))
    checkpoints: tuple[int, ...] = (100, 200, 300)
    quantities: tuple[str, ...] = ("c", "v", "b", "accuracy")


def _predict_reduction(cfg: ReductionConfig) -> list[int]:
    return [tl.reduction_difference()] * (len(cfg.checkpoints) * len(cfg.quantities))


def _observe_reduction(cfg: ReductionConfig, ctx: RunContext) -> Observation:
    runs = {
        sim: _train(replace(cfg.train, simulator=sim, seeds=seeds), ctx)
        for sim, seeds in (("reduced", cfg.reduced_seeds), ("direct", cfg.direct_seeds))
    }
    diff, se, table = [], [], []
    for t in cfg.checkpoints:
        for q in cfg.quantities:
            vals = {sim: getattr(run, q)[int(np.searchsorted(run.steps, t))] for sim, run in runs.items()}
            d = float(vals["reduced"].mean() - vals["direct"].mean())
            s = float(np.sqrt(sum(v.var(ddof=1) / v.size for v in vals.values())))
            diff.append(d)
            se.append(s)
            table.append(
                {
                    "step": t,
                    "quantity": q,
                    "reduced": float(vals["reduced"].mean()),
                    "direct": float(vals["direct"].mean()),
                    "se": s,
                }
            )
    seconds = {sim: run.seconds for sim, run in runs.items()}
    return Observation(
        diff,
        details={
            "stderr": se_list(se),
            "table": table,
            "train_seconds": seconds,
            "steps_per_second_ratio": seconds["direct"] / seconds["reduced"],
        },
        seeds=tuple(cfg.reduced_seeds) + tuple(cfg.direct_seeds),
    )


register(
    Claim(
        id="karp-ch3-reduced-simulator",
        source=f"Karp thesis (2024), App. B.1.1 (the (c, v, b) reduction; the simulator is derived in {DOC})",
        statement="The reduced simulator (only the projections z = <w, eps> ~ N(0, sigma^2 |w|^2) are sampled; the "
        "orthogonal part of sum dz eps is one Gaussian sigma sqrt(sum dz^2) P_perp xi) is exact in distribution: "
        "16 seeds of it and 16 seeds of the direct d-dimensional simulation with autograd (k = 50, d = 10, "
        "batch 50, 300 steps) give the same means of w.w_*, |w_perp|, b and test accuracy at steps 100, 200, 300 "
        "within 4 standard errors.",
        kind="training",
        configs={"quick": ReductionConfig(), "full": ReductionConfig()},
        predict=_predict_reduction,
        observe=_observe_reduction,
        judge=ZScore(MC_Z),
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
