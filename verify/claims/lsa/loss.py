"""Eq. 5.1-5.2, Lemma 5.1, Lemma D.1 and Eq. (D.4) (Shi thesis Sec. 5.3-5.4, App. D.1): the prediction of one-layer
LSA, its population loss and the full-rank optimum (docs/lsa.md)."""

from __future__ import annotations

import functools

import numpy as np
import sympy
import torch

from numerics import lsa as nl
from theory import lsa as tl
from verify.train import lsa as vl

from ..base import Claim, Observation, Resolution, RunContext, register
from ..judges import ExactlyEqual, MaxAbs, Requiring, ZScore
from .common import (
    CASE_B,
    CASE_B_N,
    IDENTITY_RTOL,
    MC_Z,
    SRC,
    LSAConfig,
    SymbolicConfig,
    largest_residual,
    rotated,
    seeded_prompts,
)

# --- Eq. 5.1-5.2 (Shi thesis Sec. 5.3): the prediction of one-layer LSA


def _predict_eq52(cfg: LSAConfig) -> sympy.Expr:
    """Eq. 5.1 literally minus the corrected Eq. 5.2 and minus its expansion, symbolically: 0."""
    return largest_residual(tl.eq52_residuals())


def _observe_prediction(cfg: LSAConfig, ctx: RunContext) -> Observation:
    rng, L, E, _ = seeded_prompts(cfg, 64)
    d = L.shape[0]
    errs = []
    for _ in range(5):
        WPV, WKQ = rng.standard_normal((d + 1, d + 1)), rng.standard_normal((d + 1, d + 1))
        full = (E + WPV @ E @ (E.transpose(0, 2, 1) @ WKQ @ E) / cfg.N)[:, -1, -1]
        for other in (nl.lsa_forward(E, WPV, WKQ, cfg.N), nl.expanded_prediction(E, WPV, WKQ, cfg.N)):
            errs.append(float(np.max(np.abs(full - other)) / np.max(np.abs(full))))
    return Observation(errs, details={"n_prompts": 64, "n_weight_draws": 5}, seeds=(cfg.seed,))


register(
    Claim(
        id="shi-eq5.2-prediction",
        source=f"{SRC}, Eq. 5.1-5.2 (Eq. 5.2 as corrected in docs/lsa.md)",
        statement="out[-1,-1] of Eq. 5.1 equals the corrected Eq. 5.2 / the expanded formula (1/rho)[p^T S U x_q + "
        "(p^T s_xy)(q^T x_q) + u s_xy^T U x_q + u s_yy q^T x_q]: symbolically (predicted residual 0), and in float64 "
        "for random prompts and weights (observed: max deviation relative to the largest |output|).",
        kind="numeric",
        configs={"quick": LSAConfig(), "full": LSAConfig(N=50)},
        predict=_predict_eq52,
        observe=_observe_prediction,
        judge=MaxAbs(IDENTITY_RTOL),
    )
)


def _predict_dead_blocks(cfg: LSAConfig) -> sympy.Expr:
    """The largest derivative of the Eq. 5.1 output with respect to a dead-block entry, symbolically: 0."""
    return largest_residual(tl.dead_block_derivatives())


def _observe_dead_blocks(cfg: LSAConfig, ctx: RunContext) -> Observation:
    rng, L, E, yq = seeded_prompts(cfg, 64)
    d = L.shape[0]
    WPV, WKQ = rng.standard_normal((d + 1, d + 1)), rng.standard_normal((d + 1, d + 1))
    base = nl.lsa_forward(E, WPV, WKQ, cfg.N)
    P2, K2 = WPV.copy(), WKQ.copy()
    P2[:d, :] = rng.standard_normal((d, d + 1))  # W11^PV, w12^PV
    K2[:, d] = rng.standard_normal(d + 1)  # w12^KQ, w22^KQ
    change = float(np.max(np.abs(nl.lsa_forward(E, P2, K2, cfg.N) - base)))
    # autograd on the CPU (float64): the claim is about exact zeros, not about a device
    Et = torch.as_tensor(E)[None]
    Pt = torch.as_tensor(WPV)[None].requires_grad_()
    Kt = torch.as_tensor(WKQ)[None].requires_grad_()
    loss = 0.5 * ((vl.lsa_predict(Et, Pt, Kt, cfg.N) - torch.as_tensor(yq)[None]) ** 2).mean()
    loss.backward()
    g_dead = max(float(Pt.grad[0, :d, :].abs().max()), float(Kt.grad[0, :, d].abs().max()))
    g_live = float(Kt.grad[0, :d, :d].abs().max())
    # positive control: the same perturbation and gradient do see a live block (w22^PV), so a zero above is real
    P3 = WPV.copy()
    P3[d, d] += 1.0
    live_change = float(np.max(np.abs(nl.lsa_forward(E, P3, WKQ, cfg.N) - base)))
    return Observation(
        [change, g_dead],
        details={
            "prediction_change": change,
            "dead_block_grad": g_dead,
            "live_block_grad": g_live,
            "live_block_change": live_change,
            "live_blocks_respond": bool(g_live > 0 and live_change > 0),
        },
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-eq5.1-dead-blocks",
        source=f"{SRC}, Eq. 5.1-5.2 (docs/lsa.md)",
        statement="W11^PV, w12^PV, w12^KQ and w22^KQ do not affect the prediction (the query label slot is 0): the "
        "symbolic derivatives vanish, perturbing them changes nothing and their autograd gradient is exactly 0 "
        "(positive control: perturbing w22^PV changes the prediction and W11^KQ has a non-zero gradient).",
        kind="numeric",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_dead_blocks,
        observe=_observe_dead_blocks,
        judge=Requiring(MaxAbs(1e-14), ("live_blocks_respond",)),
    )
)


# --- Lemma 5.1 (Shi thesis Sec. 5.4; Zhang, Frei & Bartlett 2023, Lemma A.1): the population loss


def _random_U(cfg: LSAConfig) -> tuple[np.ndarray, float]:
    rng = np.random.default_rng(cfg.seed + 1)
    d = len(cfg.Lam)
    return 0.2 * rng.standard_normal((d, d)), 0.7


def _predict_lemma51_mc(cfg: LSAConfig) -> sympy.Expr:
    """``l~(U, u) + 1/2 tr Lambda`` (Lemma 5.1 with its constant) at the random U, u = 0.7 and rotated Lambda."""
    L, _ = rotated(cfg)
    U, u = _random_U(cfg)
    return tl.population_loss(sympy.Matrix(U), u, sympy.Matrix(L), cfg.N)


def _observe_lemma51_mc(cfg: LSAConfig, ctx: RunContext) -> Observation:
    L, _ = rotated(cfg)
    d = L.shape[0]
    U, u = _random_U(cfg)
    WPV, WKQ = nl.lsa_weights(U, u)
    rng = np.random.default_rng(cfg.seed + 2)
    WPV[:d, :] = rng.standard_normal((d, d + 1))  # junk in the dead blocks
    WKQ[:, d] = rng.standard_normal(d + 1)
    mean, se = nl.mc_pretrain_loss(WPV, WKQ, L, cfg.N, cfg.n_prompts, seed=cfg.seed + 3)
    return Observation(mean, details={"stderr": se, "n_prompts": cfg.n_prompts}, seeds=(cfg.seed,))


register(
    Claim(
        id="shi-lem5.1-mc",
        resolution=Resolution(
            rel=0.04, why="Monte Carlo loss over 100,000 prompts: 4 standard errors are 3 % of the prediction"
        ),
        source=f"{SRC}, Lemma 5.1 (Zhang, Frei & Bartlett 2023, Lemma A.1)",
        statement="With w21^PV = w21^KQ = 0 (implicit assumption), the population loss 1/2 E(y_hat - <w, x_q>)^2 of the "
        "full Eq. 5.1 model equals l~(U, u) + C with C = 1/2 tr Lambda (random U, u = 0.7, rotated Lambda, "
        "junk in the dead blocks).",
        kind="numeric",
        configs={"quick": LSAConfig(n_prompts=100_000), "full": LSAConfig(n_prompts=2_000_000)},
        predict=_predict_lemma51_mc,
        observe=_observe_lemma51_mc,
        judge=ZScore(MC_Z),
    )
)


@functools.cache
def _lemma51(d: int) -> tuple[list[sympy.Expr], list[sympy.Expr]]:
    return tl.lemma51_moments(d)


def _predict_lemma51_symbolic(cfg: SymbolicConfig) -> list[sympy.Expr]:
    """The moment formulas and the loss as Lemma 5.1 states them."""
    return _lemma51(cfg.d)[1]


def _observe_lemma51_symbolic(cfg: SymbolicConfig, ctx: RunContext) -> Observation:
    return Observation(_lemma51(cfg.d)[0], details={"d": cfg.d})


register(
    Claim(
        id="shi-lem5.1-symbolic",
        source=f"{SRC}, Lemma 5.1 (derivation by Isserlis' theorem, docs/lsa.md)",
        statement="Isserlis: E[x x^T A x x^T] = 2 L A L + tr(A L) L; E[H A H] = (1 + 1/N) L A L + tr(A L) L / N; hence "
        "1/2 E(y_hat - y_q)^2 = l~(U, u) + 1/2 tr L for symbolic symmetric L, general U, u, N.",
        kind="symbolic",
        configs={"quick": SymbolicConfig(d=2), "full": SymbolicConfig(d=3)},
        predict=_predict_lemma51_symbolic,
        observe=_observe_lemma51_symbolic,
        judge=ExactlyEqual(),
    )
)


# --- Lemma D.1 and Eq. (D.4) (Shi thesis App. D.1): the full-rank optimum


def _cases(cfg: LSAConfig) -> tuple[tuple[tuple, int], ...]:
    return ((cfg.Lam, cfg.N), (CASE_B, CASE_B_N))


def _predict_lemD1(cfg: LSAConfig) -> list[sympy.Expr]:
    """For Case A and Case B: the gradient of l~ vanishes at (Gamma^-1, 1) (d^2 zeros), and twice the minimum
    ``-1/2 tr(Lambda^2 Gamma^-1)`` (attained by l~(Gamma^-1, 1) and by the rank-d closed form)."""
    out: list[sympy.Expr] = []
    for Lam, N in _cases(cfg):
        L = sympy.Matrix(Lam)
        _, lmin = tl.full_rank_optimum(L, N)
        out += [sympy.Integer(0)] * (L.rows * L.cols) + [lmin, lmin]
    return out


def _observe_lemD1(cfg: LSAConfig, ctx: RunContext) -> Observation:
    res: list[sympy.Expr] = []
    for Lam, N in _cases(cfg):
        L = sympy.Matrix(Lam)
        G = tl.gamma_matrix(L, N)
        Ginv = G.inv()
        res += list((G * L * Ginv * L - L * L).applyfunc(sympy.simplify))  # d l~/dU at (Gamma^-1, 1)
        res.append(tl.reduced_loss(Ginv, 1, L, N))
        res.append(tl.optimal_rank_r(L, N, L.rows).reduced_loss)
    return Observation(res)


register(
    Claim(
        id="shi-lemD.1-optimum",
        source=f"{SRC}, Lemma D.1 (Zhang et al. Cor. A.2)",
        statement="grad l~ = u^2 Gamma Lambda U Lambda - u Lambda^2 vanishes at (Gamma^-1, 1); l~(Gamma^-1, 1) = "
        "-1/2 tr(Lambda^2 Gamma^-1) (Case A: -5567850/1382693) = the rank-d closed form (Case A and Case B).",
        kind="symbolic",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_lemD1,
        observe=_observe_lemD1,
        judge=ExactlyEqual(),
    )
)


def _eqD4_cases(cfg: LSAConfig) -> list[tuple[tuple, int, sympy.Matrix, sympy.Expr]]:
    """Random rational (U, u) (seeded), two per case: (Lambda, N, U, u)."""
    rng = np.random.default_rng(cfg.seed)
    out = []
    for Lam, N in _cases(cfg):
        d = len(Lam)
        for _ in range(2):
            U = sympy.Matrix(d, d, lambda i, j: sympy.Rational(int(rng.integers(-9, 10)), int(rng.integers(1, 8))))
            u = sympy.Rational(int(rng.integers(1, 9)), int(rng.integers(1, 5)))
            out.append((Lam, N, U, u))
    return out


def _predict_eqD4(cfg: LSAConfig) -> list[sympy.Expr]:
    """``l~(U, u) - min l~`` for each case."""
    return [tl.excess_loss(U, u, sympy.Matrix(Lam), N) for Lam, N, U, u in _eqD4_cases(cfg)]


def _observe_eqD4(cfg: LSAConfig, ctx: RunContext) -> Observation:
    return Observation(
        [tl.excess_loss_frobenius(U, u, sympy.Matrix(Lam), N) for Lam, N, U, u in _eqD4_cases(cfg)],
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-eqD.4-excess-loss",
        source=f"{SRC}, App. D.1, Eq. (D.4)",
        statement="l~(U, u) - min l~ = 1/2 ||Gamma^{1/2}(u Lambda^{1/2} U Lambda^{1/2} - Lambda Gamma^{-1})||_F^2 for random "
        "rational U, u (Case A and Case B, exact with matrix square roots).",
        kind="symbolic",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_eqD4,
        observe=_observe_eqD4,
        judge=ExactlyEqual(),
    )
)
