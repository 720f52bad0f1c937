"""Lemma 8.13 and Theorem 8.14 (Shi thesis Ch. 8): the hand-made linear attention layer is one GD step, so T
loops are T GD steps (docs/looped.md)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import torch

from numerics import looped as nl
from theory import looped as tl
from verify.train import looped as vl

from ..base import Claim, Observation, RunContext, register
from ..judges import RelativeStepJudge, Verdict
from .common import (
    ALPHAS,
    EXACT_N_MAX,
    SRC,
    LoopCfg,
)


@dataclass(frozen=True)
class AttentionMatches(RelativeStepJudge):
    """Lemma 8.13: per prompt, the observed attention's last row equals the closed form within ``rtol`` relative to
    max(1, max |closed form|); every other entry (the first n rows and the last-column entry removed by P) is exactly
    0; and the exact attention of Def. 8.6 equals the closed form in rationals (``details["exact_residual_max"]``)."""

    rtol: float = 1e-12

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        if not len(predicted) or len(predicted) != len(obs.value):
            return "fail", f"{len(predicted)} predicted vs {len(obs.value)} observed attention matrices (need >= 1)"
        worst, rest = 0.0, 0.0
        for p_row, o_row in zip(predicted, obs.value):
            p, o = np.array(p_row, dtype=np.float64), np.array(o_row, dtype=np.float64)
            worst = max(worst, float(np.max(np.abs(p - o)) / max(1.0, np.max(np.abs(p)))))
            rest = max(rest, float(np.max(np.abs(o[:-1]))), float(abs(o[-1, -1])))
        exact = obs.details["exact_residual_max"]
        ok = worst <= self.rtol and rest == 0.0 and exact == 0
        return ("pass" if ok else "fail"), (
            f"last row: max relative error {worst:.2e} (tol {self.rtol:g}); other entries max |.| = {rest:g} "
            f"(must be 0); exact residual {exact:g} on {obs.details['exact_cases']} rational cases"
        )

    def describe(self) -> str:
        return (
            f"relative {self.rtol:g} (torch float64 vs the exact closed form); zero rows exactly 0; "
            f"exact rational identity for n <= {EXACT_N_MAX}"
        )


@dataclass(frozen=True)
class LoopsEqualGD(RelativeStepJudge):
    """Theorem 8.14: per prompt and loop count t = 1..T, ||TF_t - alpha theta^(t)|| / ||alpha theta^(t)|| <= ``rtol``
    (observed transformer output after t loops against the predicted t-th GD iterate; ``value`` and the prediction
    are (prompts, T, d)), and the X, y rows and alpha of Z^(T) equal those of Z^(0) exactly
    (``details["untouched_max_change"]`` is 0)."""

    rtol: float = 1e-10

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        p, o = np.array(predicted, dtype=np.float64), np.array(obs.value, dtype=np.float64)
        if p.shape != o.shape:
            return "fail", f"shape mismatch: predicted {p.shape}, observed {o.shape}"
        if p.ndim < 2 or p.size == 0:
            return "fail", f"nothing to compare: predicted shape {p.shape} (need prompts x [loops x] d, non-empty)"
        rel = float(np.max(np.linalg.norm(p - o, axis=-1) / np.maximum(np.linalg.norm(p, axis=-1), 1e-300)))
        ch = obs.details["untouched_max_change"]
        ok = rel <= self.rtol and ch == 0.0
        loops = f" x {p.shape[1]} loop counts" if p.ndim == 3 else ""
        return ("pass" if ok else "fail"), (
            f"max ||TF_t - alpha theta^(t)|| / ||alpha theta^(t)|| = {rel:.2e} (tol {self.rtol:g}) over {len(p)} "
            f"prompts{loops}; X, y rows and alpha changed by {ch:g} (must be 0)"
        )

    def describe(self) -> str:
        return (
            f"relative {self.rtol:g} at every loop count t = 1..T (float64 transformer vs exact GD; full scale: "
            "float64 GD); X, y, alpha entries exactly unchanged"
        )


# --- Lemma 8.13: the attention of the construction


def _attention_data(cfg: LoopCfg, n: int, k: int):
    rng = np.random.default_rng([cfg.seed, n, 13, k])
    X, y, q0 = rng.standard_normal((n, cfg.d)), rng.standard_normal(n), rng.standard_normal(cfg.d)
    return X, y, ALPHAS[k % len(ALPHAS)], q0


def _predict_attention(cfg: LoopCfg) -> list[list[list[float]]]:
    out = []
    for n in cfg.ns:
        for k in range(cfg.prompts):
            X, y, a, q0 = _attention_data(cfg, n, k)
            out.append([[float(v) for v in row] for row in tl.lemma_8_13_attention(X, y, a, q0, exact=cfg.exact)])
    return out


def _observe_attention(cfg: LoopCfg, ctx: RunContext) -> Observation:
    dev = ctx.resolved_device()
    Q, P = vl.construction_weights(cfg.d, device=dev)

    def t(v):
        return torch.as_tensor(np.asarray(v)[None], dtype=torch.float64, device=dev)

    got, exact_res = [], []
    for n in cfg.ns:
        for k in range(cfg.prompts):
            X, y, a, q0 = _attention_data(cfg, n, k)
            got.append(vl.attention(vl.embed(t(X), t(y), a, t(q0)), Q, P)[0].cpu().numpy().tolist())
            if n <= EXACT_N_MAX:  # the exact attention of Def. 8.6 against the closed form, in rationals
                A = tl.attention(tl.embed(X, y, a, q0))
                B = tl.lemma_8_13_attention(X, y, a, q0)
                exact_res.append(max(abs(u - v) for ra, rb in zip(A, B) for u, v in zip(ra, rb)))
    return Observation(
        got,
        details={"exact_residual_max": float(max(exact_res, default=0)), "exact_cases": len(exact_res)},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-lem8.13-attention",
        source=f"{SRC}, Lemma 8.13",
        statement="With Q = I, P = diag(I_d, 0): Attn(Z^(0); Q, P) = [[0, 0], [q0^T X^T X + alpha y^T X, 0]]; the "
        "last-column entry q0^T X^T y + alpha y^T y is removed by P.",
        kind="numeric",
        configs={
            "quick": LoopCfg(d=3, ns=(4, 6, 8), T=0, prompts=3),
            "full": LoopCfg(d=4, ns=(5, 8, 16, 128), T=0, prompts=10),
        },
        predict=_predict_attention,
        observe=_observe_attention,
        judge=AttentionMatches(),
        on_device=True,
    )
)


# --- Theorem 8.14: T loops of the transformer are T steps of gradient descent


def _gd_data(cfg: LoopCfg, n: int, k: int):
    rng = np.random.default_rng([cfg.seed, n, 14, k])
    X, y = rng.standard_normal((n, cfg.d)), rng.standard_normal(n)  # any y: the identity needs no realisability
    L = float(nl.gram_extremes(X)[0])
    etas = rng.uniform(0.05, 1.95, cfg.T) / L  # non-constant, in (0, 2/L)
    return X, y, ALPHAS[k % len(ALPHAS)], rng.standard_normal(cfg.d), etas


def _require_loops(cfg: LoopCfg) -> None:
    if cfg.T < 1:
        raise ValueError(f"T must be >= 1 for Theorem 8.14 (a check of zero loops compares nothing), got {cfg.T}")


def _predict_loops(cfg: LoopCfg) -> list[list[list[float]]]:
    """Per prompt, alpha theta^(t) for t = 1..T: the GD iterates from theta^(0) = -q0/alpha with the prompt's step
    sizes (Thm 8.14 at every loop count; :func:`theory.looped.gd_iterates`)."""
    _require_loops(cfg)
    out = []
    for n in cfg.ns:
        for k in range(cfg.prompts):
            X, y, a, q0, etas = _gd_data(cfg, n, k)
            conv = Fraction if cfg.exact else float  # a float converts to Fraction exactly
            a_x = conv(a)
            theta0 = [-conv(v) / a_x for v in q0]
            its = tl.gd_iterates(X, y, etas, theta0, exact=cfg.exact)[1:]
            out.append([[float(a_x * v) for v in th] for th in its])
    return out


def _observe_loops(cfg: LoopCfg, ctx: RunContext) -> Observation:
    _require_loops(cfg)
    tfs, untouched = [], 0.0
    for n in cfg.ns:
        X, y, a, q0, et = (np.stack(v) for v in zip(*(_gd_data(cfg, n, k) for k in range(cfg.prompts))))
        out = vl.tf_outputs(X, y, a, et, q0, device=ctx.resolved_device(), keep=True)
        tfs += out["tf"][:, 1:].tolist()  # TF after t = 1..T loops (the negated query row of Z^(t))
        Z0, ZT = out["Z0"], out["ZT"]
        untouched = max(
            untouched,
            float(np.max(np.abs(ZT[:, :-1] - Z0[:, :-1]))),
            float(np.max(np.abs(ZT[:, -1, -1] - Z0[:, -1, -1]))),
        )
    return Observation(
        tfs,
        details={
            "untouched_max_change": untouched,
            "alphas": list(ALPHAS),
            "step_sizes": "uniform(0.05, 1.95)/L per step, per prompt",
        },
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-thm8.14-loops-equal-gd",
        source=f"{SRC}, Theorem 8.14 (index set t = 1..T, see docs/looped.md, errata)",
        statement="For any step sizes eta^(t), alpha != 0 and q^(0), t loops of the linear looped transformer with "
        "Q = I, P = diag(I_d, 0) output TF = alpha theta^(t), theta^(t) the t-th GD iterate from "
        "theta^(0) = -q^(0)/alpha with the same step sizes, at every t = 1..T; the X, y rows and alpha are never "
        "modified (checked for random non-constant step sizes in (0.05/L, 1.95/L) and alpha in "
        f"{{{', '.join(f'{a:g}' for a in ALPHAS)}}}).",
        kind="numeric",
        configs={
            "quick": LoopCfg(d=3, ns=(4, 7, 12), T=12, prompts=6),
            "full": LoopCfg(d=4, ns=(5, 16, 32, 64, 128), T=200, prompts=30, exact=False),
        },
        predict=_predict_loops,
        observe=_observe_loops,
        judge=LoopsEqualGD(),
        on_device=True,
    )
)
