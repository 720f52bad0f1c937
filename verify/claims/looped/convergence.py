"""Theorems 8.16 and 8.25, Lemmas 8.20-8.23 (Shi thesis Ch. 8): smoothness, strong convexity and the convergence
rate of GD, hence the looped transformer's error bound (docs/looped.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics import looped as nl
from theory import looped as tl
from verify.train import looped as vl

from ..base import Claim, Observation, Resolution, RunContext, register
from ..judges import PERTURB_REL, Judge, RelativeStepJudge, Verdict, as_float, perturb_value
from .common import (
    ALPHAS,
    EPS,
    FLOOR_ULPS,
    SRC,
    LoopCfg,
    sample_prompts,
)


@dataclass(frozen=True)
class ErrorBelowBounds(Judge):
    """Theorem 8.16 (and the sharper bound): for every prompt i and T >= 1, the observed error
    |<TF, theta*> - alpha_i| is at most |alpha_i| f_i^T plus the float64 floor |alpha_i| 64 kappa_i eps, for both
    predicted per-loop factors f (``stated_factor`` = exp(-1/(2 kappa)), ``sharp_factor`` = 1 - 1/kappa).

    Observation: ``value`` (prompts, T+1) errors, ``details["kappa"]`` and ``details["alpha"]`` per prompt. A bound
    lowered by 1 % (the float64 slack is below 1e-12 of it) falls below the errors of the prompts whose theta* lies
    near the slowest eigenvector, where the sharp bound is nearly attained."""

    floor_ulps: float = FLOOR_ULPS

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        err = np.array(obs.value, dtype=np.float64)[:, 1:]  # T = 1..T
        t = np.arange(1, err.shape[1] + 1)
        kappa, alpha = np.array(obs.details["kappa"]), np.abs(np.array(obs.details["alpha"]))
        tol = (alpha * self.floor_ulps * kappa * EPS)[:, None]
        out, ok = [], True
        for key in ("stated_factor", "sharp_factor"):
            factor = np.array([as_float(v) for v in predicted[key]])
            if factor.shape != alpha.shape:
                return "fail", f"{key}: {factor.size} predicted factors for {alpha.size} prompts"
            bound = alpha[:, None] * factor[:, None] ** t
            excess = float(np.max((err - bound - tol) / alpha[:, None]))
            ok &= excess <= 0
            out.append(f"{key.split('_')[0]}: max (error - bound - floor)/|alpha| = {excess:.2e}")
        sharp = np.array([as_float(v) for v in predicted["sharp_factor"]])
        tight = float(np.max(err[:, 0] / (alpha * sharp)))
        return ("pass" if ok else "fail"), "; ".join(
            out
        ) + f"; max error/sharp bound at T = 1: {tight:.3f}; {err.size} (prompt, T) pairs"

    def describe(self) -> str:
        return f"error <= bound + |alpha| {self.floor_ulps:g} kappa eps (the float64 floor of a converged iterate)"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, PERTURB_REL, sign=-1)  # a tighter bound: the factors lowered by 1 %


@dataclass(frozen=True)
class RateBelowBounds(Judge):
    """Theorem 8.25 and Lemma 8.23: for every prompt and T, the observed ||theta^(T) - theta*||^2 / R^2 is at most
    f^T + (64 kappa eps)^2 for the predicted per-step factor f of each (``thm8.25_factor`` = 1 - 1/kappa,
    ``lem8.23_factor`` = 1 - eta mu); and (Fact 8.24) every predicted 1 - 1/kappa is at most exp(-1/kappa) of the
    observed prompt's kappa (relative slack ``fact_rtol``). A factor raised by 1 % (the default perturbation) violates
    Fact 8.24 for every prompt with kappa above about 7, where 1 - 1/kappa is within 1 % of exp(-1/kappa); a factor
    lowered by 1 % still holds, since GD on a quadratic contracts the squared error like (1 - 1/kappa)^(2T)."""

    floor_ulps: float = FLOOR_ULPS
    fact_rtol: float = 1e-15

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        kappa = np.array(obs.details["kappa"])
        floor_sq = (self.floor_ulps * kappa * EPS) ** 2
        msgs, ok = [], True
        for key in ("thm8.25", "lem8.23"):
            ratio = np.array(obs.value[key], dtype=np.float64)
            t = np.arange(ratio.shape[1])
            bound = np.array([as_float(v) for v in predicted[f"{key}_factor"]])[:, None] ** t
            excess = float(np.max(ratio - bound - floor_sq[:, None]))
            ok &= excess <= 0
            msgs.append(f"{key}: max(||theta^(T)-theta*||^2/R^2 - bound - floor^2) = {excess:.2e}")
        f825 = np.array([as_float(v) for v in predicted["thm8.25_factor"]])
        exp_ok = bool(np.all(f825 <= np.exp(-1 / kappa) * (1 + self.fact_rtol)))
        ok &= exp_ok
        return ("pass" if ok else "fail"), "; ".join(msgs) + f"; (1-1/kappa) <= exp(-1/kappa): {exp_ok}"

    def describe(self) -> str:
        return f"ratio <= bound + ({self.floor_ulps:g} kappa eps)^2 (float64 floor)"


@dataclass(frozen=True)
class SpectrumAndInequalities(RelativeStepJudge):
    """Lemmas 8.20 and 8.22: the observed float64 (L, mu) of every prompt equal the exact predicted roots within
    ``rtol`` (relative), and the largest relative violations of the smoothness and strong-convexity inequalities at
    random points (``details``) are at most ``violation_tol``."""

    rtol: float = 1e-10
    violation_tol: float = 1e-12

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        rel = 0.0
        for k in ("L", "mu"):
            p = np.array([as_float(v) for v in predicted[k]])
            o = np.array(obs.value[k], dtype=np.float64)
            if p.shape != o.shape:
                return "fail", f"{k}: {p.size} predicted vs {o.size} observed values"
            rel = max(rel, float(np.max(np.abs(o - p) / p)))
        sm, sc = obs.details["smoothness_max_violation"], obs.details["strong_convexity_max_violation"]
        ok = rel <= self.rtol and sm <= self.violation_tol and sc <= self.violation_tol
        return ("pass" if ok else "fail"), (
            f"eigvalsh vs exact (L, mu): max rel. error {rel:.1e}; relative violations: smoothness {sm:.2e}, "
            f"strong convexity {sc:.2e} (<= {self.violation_tol:g} means the inequalities hold)"
        )

    def describe(self) -> str:
        return f"L, mu relative {self.rtol:g} vs exact roots; inequalities hold up to {self.violation_tol:g} relative"


# --- Theorem 8.16 (Theorem 8.1 informally) with Lemma 8.15: the transformer's prediction error


def _error_setup(cfg: LoopCfg, n: int):
    pr = sample_prompts(cfg, n, 16)
    L, _mu, kappa = nl.gram_extremes(pr.X)
    alpha = np.array([ALPHAS[k % len(ALPHAS)] for k in range(cfg.prompts)])
    return pr, L, kappa, alpha


def _predict_error(cfg: LoopCfg) -> dict[str, list[float]]:
    """Per prompt, the per-loop factor of each bound (bound(T) = |alpha| factor^T), from kappa of the prompt."""
    stated, sharp = [], []
    for n in cfg.ns:
        _, _, kappa, _ = _error_setup(cfg, n)
        for k in kappa:
            stated.append(float(tl.thm_8_16_bound(1, float(k), 1)))
            sharp.append(float(tl.thm_8_16_sharp_bound(1, float(k), 1)))
    return {"stated_factor": stated, "sharp_factor": sharp}


def _observe_error(cfg: LoopCfg, ctx: RunContext) -> Observation:
    errs, kap, alp = [], [], []
    for n in cfg.ns:
        pr, L, kappa, alpha = _error_setup(cfg, n)
        etas = np.repeat((1 / L)[:, None], cfg.T, axis=1)
        out = vl.tf_outputs(pr.X, pr.y, alpha, etas, device=ctx.resolved_device(), keep=True)
        errs.append(np.abs(np.einsum("btd,bd->bt", out["tf"], pr.theta_star) - alpha[:, None]))
        kap.append(kappa)
        alp.append(alpha)
    return Observation(
        np.concatenate(errs).tolist(),
        details={"kappa": np.concatenate(kap).tolist(), "alpha": np.concatenate(alp).tolist()},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-thm8.16-error-bound",
        resolution=Resolution(
            rel=0.46,
            why="an upper bound on the error checked at every iteration: it is nearly tight only at some iterations, with up to 40 % slack elsewhere (a looser bound is still a true bound)",
        ),
        source=f"{SRC}, Theorem 8.16 / 8.1 and Lemma 8.15 (loose exponent, see docs/looped.md, errata)",
        statement="With q^(0) = 0 and the prompt-dependent step eta = 1/||X^T X||, the looped transformer's error "
        "satisfies |<TF(Z^(0)), theta*> - alpha| <= |alpha| exp(-T/(2 kappa)) for every T; also the sharper "
        "|alpha| (1 - 1/kappa)^T (Lemma 8.15 with Theorem 8.25's contraction; docs/looped.md).",
        kind="numeric",
        configs={
            "quick": LoopCfg(d=3, ns=(5, 8, 16), T=40, prompts=30),
            "full": LoopCfg(d=4, ns=(5, 16, 32, 64, 128), T=200, prompts=300),
        },
        predict=_predict_error,
        observe=_observe_error,
        judge=ErrorBelowBounds(),
        on_device=True,
    )
)


# --- Theorem 8.25, Lemma 8.23 and Fact 8.24: the convergence rate of gradient descent


def _rate_setup(cfg: LoopCfg, n: int):
    pr = sample_prompts(cfg, n, 25)
    rng = np.random.default_rng([cfg.seed, n, 250])
    theta0 = 2.0 * rng.standard_normal((cfg.prompts, cfg.d))
    L, mu, kappa = nl.gram_extremes(pr.X)
    c = rng.uniform(0.2, 1.0, cfg.prompts)  # eta = c / L in (0, 1/L] for Lemma 8.23
    return pr, theta0, L, mu, kappa, c


def _predict_rate(cfg: LoopCfg) -> dict[str, list[float]]:
    f825, f823 = [], []
    for n in cfg.ns:
        _, _, L, mu, kappa, c = _rate_setup(cfg, n)
        for Li, mi, ki, ci in zip(L, mu, kappa, c):
            f825.append(float(tl.thm_8_25_bound(1, float(ki))))
            f823.append(float(tl.lemma_8_23_bound(1, float(ci / Li), float(Li), float(mi))))
    return {"thm8.25_factor": f825, "lem8.23_factor": f823}


def _observe_rate(cfg: LoopCfg, ctx: RunContext) -> Observation:
    r825, r823, kap = [], [], []
    for n in cfg.ns:
        pr, theta0, L, _mu, kappa, c = _rate_setup(cfg, n)
        for out, traj in (
            (r825, nl.gd_constant_step(pr.X, pr.y, cfg.T, theta0)),
            (r823, nl.gd_trajectory(pr.X, pr.y, np.repeat((c / L)[:, None], cfg.T, axis=1), theta0)),
        ):
            sq = np.sum((traj - pr.theta_star[:, None]) ** 2, axis=-1)
            out.append(sq / sq[:, :1])
        kap.append(kappa)
    return Observation(
        {"thm8.25": np.concatenate(r825).tolist(), "lem8.23": np.concatenate(r823).tolist()},
        details={"kappa": np.concatenate(kap).tolist(), "theta0": "2 N(0, I)"},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-thm8.25-rate",
        resolution=Resolution(
            rel=0.54,
            why="an upper bound on the rate checked at every iteration: it is nearly tight only at some iterations, with up to 47 % slack elsewhere (a looser bound is still a true bound)",
        ),
        source=f"{SRC}, Theorem 8.25, Lemma 8.23 and Fact 8.24",
        statement="GD with eta = 1/L from any theta^(0) with ||theta^(0) - theta*|| <= R: ||theta^(T) - theta*||^2 <= "
        "(1 - 1/kappa)^T R^2 <= exp(-T/kappa) R^2; for eta in (0, 1/L] (Lemma 8.23): <= (1 - eta mu)^T R^2.",
        kind="numeric",
        configs={
            "quick": LoopCfg(d=3, ns=(5, 8, 16), T=60, prompts=40),
            "full": LoopCfg(d=4, ns=(5, 16, 32, 64, 128), T=200, prompts=500),
        },
        predict=_predict_rate,
        observe=_observe_rate,
        judge=RateBelowBounds(),
    )
)


# --- Lemmas 8.20 and 8.22: the loss is L-smooth and mu-strongly convex


def _convexity_data(cfg: LoopCfg, n: int):
    rng = np.random.default_rng([cfg.seed, n, 20])
    X = rng.integers(-4, 5, (cfg.prompts, n, cfg.d)).astype(float) / 2  # small rationals: exact spectrum is cheap
    return X, rng.integers(-4, 5, (cfg.prompts, n)).astype(float) / 2


def _predict_spectrum(cfg: LoopCfg) -> dict[str, list[float]]:
    L, mu = [], []
    for n in cfg.ns:
        X, _ = _convexity_data(cfg, n)
        for Xi in X:
            a, b = tl.gram_spectrum(Xi)
            L.append(float(a))
            mu.append(float(b))
    return {"L": L, "mu": mu}


def _observe_spectrum(cfg: LoopCfg, ctx: RunContext) -> Observation:
    L, mu, sm, sc = [], [], [], []
    for n in cfg.ns:
        X, y = _convexity_data(cfg, n)
        a, b, _ = nl.gram_extremes(X)
        L += a.tolist()
        mu += b.tolist()
        v = nl.smoothness_violations(X, y, np.random.default_rng([cfg.seed, n, 21]), pairs=128)
        sm.append(v["smoothness"])
        sc.append(v["strong_convexity"])
    return Observation(
        {"L": L, "mu": mu},
        details={"smoothness_max_violation": max(sm), "strong_convexity_max_violation": max(sc)},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-lem8.20-smooth-strongly-convex",
        source=f"{SRC}, Lemmas 8.20 and 8.22 (Def. 8.18 with t in (0, 1), see docs/looped.md, errata)",
        statement="l(theta) = 1/2||y - X theta||^2 is L-smooth with L = lambda_max(X^T X) and mu-strongly convex with "
        "mu = lambda_min(X^T X) (checked at random points a, b and t in (0, 1)).",
        kind="numeric",
        configs={
            "quick": LoopCfg(d=3, ns=(4, 6), T=0, prompts=4),
            "full": LoopCfg(d=4, ns=(5, 8, 16), T=0, prompts=10),
        },
        predict=_predict_spectrum,
        observe=_observe_spectrum,
        judge=SpectrumAndInequalities(),
    )
)
