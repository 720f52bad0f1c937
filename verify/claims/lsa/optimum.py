"""Theorem 5.4.1 (Shi thesis Sec. 5.4.1, App. D.2.1): the optimal rank-r solution, checked in closed form, by
optimisation and by Monte Carlo (docs/lsa.md)."""

from __future__ import annotations

import numpy as np
import sympy

from numerics import lsa as nl
from theory import lsa as tl

from ..base import Claim, Observation, Resolution, RunContext, register
from ..judges import ExactlyEqual, MaxAbs, Requiring, ZScore
from .common import (
    CASE_B,
    CASE_B_N,
    IDENTITY_RTOL,
    MC_Z,
    SRC,
    LbfgsOptimum,
    LSAConfig,
    MonotoneOptimum,
    largest_residual,
    rotated,
    seeded_prompts,
)

# --- Theorem 5.4.1 (Shi thesis Sec. 5.4.1, App. D.2.1): the optimal rank-r solution


def _predict_closed_form(cfg: LSAConfig) -> list[sympy.Expr]:
    """L_r of Thm 5.4.1 for each rank, then ``v_i* = N/((N+1) lambda_i + tr D)`` on the top r directions (0 beyond),
    then zeros: U* is stationary within its own rank-r eigenspace."""
    L = sympy.Matrix(cfg.Lam)
    losses = tl.optimal_losses(L, cfg.N)
    lam, _ = tl.eigen_descending(L)
    N = sympy.Integer(cfg.N)
    out: list[sympy.Expr] = [losses[r] for r in cfg.ranks]
    for r in cfg.ranks:
        out += [N / ((N + 1) * lam[i] + L.trace()) if i < r else sympy.Integer(0) for i in range(L.rows)]
    out += [sympy.Integer(0)] * (len(cfg.ranks) * L.rows * L.cols)
    return out


def _observe_closed_form(cfg: LSAConfig, ctx: RunContext) -> Observation:
    L = sympy.Matrix(cfg.Lam)
    opts = [tl.optimal_rank_r(L, cfg.N, r) for r in cfg.ranks]
    # the loss at U* by the trace formula of Lemma 5.1
    res: list[sympy.Expr] = [tl.population_loss(opt.U, 1, L, cfg.N) for opt in opts]
    for opt in opts:
        res += list(opt.v)
    G = tl.gamma_matrix(L, cfg.N)
    for r, opt in zip(cfg.ranks, opts):
        grad = G * L * opt.U * L - L * L
        P = opt.Q[:, :r] * opt.Q[:, :r].T if r else sympy.zeros(L.rows)
        res += list((P * grad * P).applyfunc(sympy.simplify))
    return Observation(res, details={"L_r": tl.optimal_losses(L, cfg.N), "v_star": opts[-1].v})


register(
    Claim(
        id="shi-thm5.4.1-closed-form",
        source=f"{SRC}, Theorem 5.4.1 (Eq. 5.3; loss formula derived in docs/lsa.md)",
        statement="U* = Q diag(v*) Q^T with v_i* = N/((N+1) lambda_i + tr D) = 1/T_i for the top-r eigenvalues (descending), "
        "and L_r = 1/2 tr Lambda - 1/2 sum_{i<=r} lambda_i^2/T_i (Case A: 5, 155/47, 7085/3431, 57795/44603, "
        "1345615/1382693); the trace formula of l~ at U* agrees exactly and U* is stationary on its support.",
        kind="symbolic",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_closed_form,
        observe=_observe_closed_form,
        judge=ExactlyEqual(),
    )
)


def _predict_optimality(cfg: LSAConfig) -> list[list]:
    """``[L_r for r >= 1, U* for r >= 1]``: L_r and ``U* = Q diag(v*) Q^T`` of Thm 5.4.1 (exact, :mod:`theory.lsa`)
    for the config's Lambda, U* then rotated with Lambda (``R U* R^T``, float64 entries)."""
    L = sympy.Matrix(cfg.Lam)
    losses = tl.optimal_losses(L, cfg.N)
    _, R = rotated(cfg)
    ranks = [r for r in cfg.ranks if r > 0]
    mats = [(R @ np.array(tl.optimal_rank_r(L, cfg.N, r).U, dtype=np.float64) @ R.T).tolist() for r in ranks]
    return [[losses[r] for r in ranks], mats]


def _observe_optimality(cfg: LSAConfig, ctx: RunContext) -> Observation:
    L, _ = rotated(cfg)
    losses, mins, converged = [], [], []
    for r in cfg.ranks:
        if r == 0:
            continue
        res = nl.lbfgs_rank_r(L, cfg.N, r, n_starts=cfg.n_starts, seed=cfg.seed + r)
        losses.append(res.loss + np.trace(L) / 2)
        mins.append(res.U.tolist())
        converged.append(res.converged)
    return Observation(
        losses,
        details={"minimiser": mins, "starts_converged": converged, "n_starts": cfg.n_starts},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-thm5.4.1-optimality",
        resolution=Resolution(
            rel=0.056,
            why="the minimiser is judged by its relative Frobenius distance (1e-4): one small entry alone moves that distance by 1e-4 only at a 4.9 % error",
        ),
        source=f"{SRC}, Theorem 5.4.1 (proof via Eckart-Young, docs/lsa.md)",
        statement="Multi-start L-BFGS on l~(A B^T, 1), A, B in R^{d x r}, rotated Case A: the minimum equals L_r - 1/2 tr Lambda "
        "and A B^T equals U* (distinct eigenvalues).",
        kind="numeric",
        configs={
            "quick": LSAConfig(ranks=(1, 2, 3, 4), n_starts=5),
            "full": LSAConfig(ranks=(1, 2, 3, 4), n_starts=20),
        },
        predict=_predict_optimality,
        observe=_observe_optimality,
        judge=LbfgsOptimum(loss_atol=1e-7, matrix_rtol=1e-4),
    )
)


def _predict_ranks(cfg: LSAConfig) -> list[sympy.Expr]:
    """L_r (Thm 5.4.1) for every rank of the config."""
    losses = tl.optimal_losses(sympy.Matrix(cfg.Lam), cfg.N)
    return [losses[r] for r in cfg.ranks]


def _observe_optimal_mc(cfg: LSAConfig, ctx: RunContext) -> Observation:
    L, _ = rotated(cfg)
    c = 2.5
    means, ses = [], []
    for r in cfg.ranks:
        U, *_ = nl.closed_form(L, cfg.N, r)
        WPV, WKQ = nl.lsa_weights(c * U, 1 / c)
        m, se = nl.mc_pretrain_loss(WPV, WKQ, L, cfg.N, cfg.n_prompts, seed=cfg.seed + 100 + r)
        means.append(m)
        ses.append(se)
    return Observation(means, details={"stderr": ses, "c": c, "n_prompts": cfg.n_prompts}, seeds=(cfg.seed,))


register(
    Claim(
        id="shi-thm5.4.1-mc-loss",
        resolution=Resolution(
            rel=0.05, why="Monte Carlo loss over 50,000 prompts: 4 standard errors are 3.5-4.2 % of the prediction"
        ),
        source=f"{SRC}, Theorem 5.4.1 + Lemma 5.1",
        statement="The full Eq. 5.1 model with weights (5.3) (c = 2.5, rotated Lambda) has MC pretraining loss L_r for r = 0..4.",
        kind="numeric",
        configs={"quick": LSAConfig(n_prompts=50_000), "full": LSAConfig(n_prompts=1_000_000)},
        predict=_predict_ranks,
        observe=_observe_optimal_mc,
        judge=ZScore(MC_Z),
    )
)


def _predict_scale(cfg: LSAConfig) -> sympy.Expr:
    """The change of the Eq. 5.1 output and of l~ under (u, U) -> (u/c, cU), symbolically: 0."""
    return largest_residual(tl.scale_symmetry_residuals())


def _observe_scale(cfg: LSAConfig, ctx: RunContext) -> Observation:
    rng, L, E, _ = seeded_prompts(cfg, 256)
    U = 0.3 * rng.standard_normal((L.shape[0],) * 2)
    u = 0.8
    base = nl.lsa_forward(E, *nl.lsa_weights(U, u), cfg.N)
    devs = []
    for c in (-3.0, 0.1, 7.0):
        devs.append(
            float(np.max(np.abs(nl.lsa_forward(E, *nl.lsa_weights(c * U, u / c), cfg.N) - base)) / np.max(np.abs(base)))
        )
    l0 = nl.ell_tilde(U, u, L, cfg.N)
    devs += [abs(nl.ell_tilde(c * U, u / c, L, cfg.N) - l0) / abs(l0) for c in (-3.0, 0.1, 7.0)]
    return Observation(devs, seeds=(cfg.seed,))


register(
    Claim(
        id="shi-thm5.4.1-scale-symmetry",
        source=f"{SRC}, Theorem 5.4.1 (u* = 1/c)",
        statement="(u, U) -> (u/c, cU) leaves the prediction and l~ unchanged: symbolically, and in float64 for "
        "c in {-3, 0.1, 7} (observed: max deviation relative to the largest |output| / |l~|).",
        kind="numeric",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_scale,
        observe=_observe_scale,
        judge=MaxAbs(IDENTITY_RTOL),
    )
)


#: The positive control of the projection invariance: moving x_q along the top-r eigenvectors must change the
#: prediction by more than this (relative; a million times the identity tolerance, far above round-off).
CONTROL_MIN = 1e-6


def _predict_projection_invariance(cfg: LSAConfig) -> sympy.Expr:
    """``max |U* q_i|`` over the eigenvectors q_i beyond the top r (exact, Case A, r = 1..d-1): 0, so the prediction
    ``s_xy^T U* x_q`` ignores the part of x_q orthogonal to the top-r eigenvectors."""
    L = sympy.Matrix(cfg.Lam)
    res: list[sympy.Expr] = []
    for r in range(1, L.rows):
        opt = tl.optimal_rank_r(L, cfg.N, r)
        res += list(opt.U * opt.Q[:, r:])
    return largest_residual(res)


def _observe_projection_invariance(cfg: LSAConfig, ctx: RunContext) -> Observation:
    rng, L, E, _ = seeded_prompts(cfg, 128)
    d = L.shape[0]
    rng_control = np.random.default_rng(cfg.seed + 7)
    devs, controls = [], []
    for r in range(1, d):
        U, _, _, _, Q = nl.closed_form(L, cfg.N, r)
        WPV, WKQ = nl.lsa_weights(U, 1.0)
        base = nl.lsa_forward(E, WPV, WKQ, cfg.N)
        E2 = E.copy()
        E2[:, :d, -1] += rng.standard_normal((128, d - r)) @ Q[:, r:].T * 3.0
        devs.append(float(np.max(np.abs(nl.lsa_forward(E2, WPV, WKQ, cfg.N) - base)) / np.max(np.abs(base))))
        # positive control: moving x_q along the top-r eigenvectors does change the prediction
        E3 = E.copy()
        E3[:, :d, -1] += rng_control.standard_normal((128, r)) @ Q[:, :r].T * 3.0
        controls.append(float(np.max(np.abs(nl.lsa_forward(E3, WPV, WKQ, cfg.N) - base)) / np.max(np.abs(base))))
    return Observation(
        devs,
        details={
            "ranks": list(range(1, d)),
            "top_r_change": controls,
            "top_r_moves_respond": bool(min(controls) > CONTROL_MIN),
        },
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="shi-sec5.4-projection-invariance",
        source=f"{SRC}, Sec. 5.4 ('the small model keeps only the first r eigenvectors')",
        statement="At the rank-r optimum the prediction is unchanged when x_q moves orthogonally to the top-r eigenvectors "
        "(exactly: U* q_i = 0 beyond the top r; float64: max change relative to the largest |output|; positive "
        "control: moving x_q along the top-r eigenvectors does change it).",
        kind="numeric",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_projection_invariance,
        observe=_observe_projection_invariance,
        judge=Requiring(MaxAbs(IDENTITY_RTOL), ("top_r_moves_respond",)),
    )
)

#: The prompt lengths over which v* must increase, and the large N at which v* ~ 1/lambda is checked.
N_SWEEP = (1, 5, 20, 100, 1000)
LARGE_N = 10**8
#: The "< 2e-7" bound on |v_i* lambda_i - 1| at N = 1e8 was chosen after seeing the exact rate 1.1e-7 (docs/lsa.md);
#: the verdict rests on the exact-rate comparison (relative 1e-9), which the bound cannot loosen.
RATE_BOUND = 2e-7


def _predict_monotone(cfg: LSAConfig) -> list[float]:
    """``|v_i* lambda_i - 1| = (lambda_i + tr D)/((N+1) lambda_i + tr D)`` at N = 1e8 (``theory.lsa``, exact, as
    floats)."""
    return [float(x) for x in tl.limit_relative_error(sympy.Matrix(cfg.Lam), LARGE_N)]


def _observe_monotone(cfg: LSAConfig, ctx: RunContext) -> Observation:
    L = sympy.Matrix(cfg.Lam)
    Ls = tl.optimal_losses(L, cfg.N)
    dec = [bool(Ls[r] > Ls[r + 1]) for r in range(L.rows)]
    vN = [tl.optimal_rank_r(L, n, L.rows).v for n in N_SWEEP]
    inc = [bool(vN[k][i] < vN[k + 1][i]) for k in range(len(vN) - 1) for i in range(L.rows)]
    big = tl.optimal_rank_r(L, LARGE_N, L.rows)
    rel = [float(abs(big.v[i] * big.lam[i] - 1)) for i in range(L.rows)]
    return Observation(
        rel,
        details={
            "L_r": Ls,
            "L_r_strictly_decreasing": dec,
            "v_increasing_in_N": all(inc),
            "note": "the exact rate (lambda + tr D)/((N+1) lambda + tr D) is 1.1e-7 for lambda = 1 at N = 1e8, above "
            "1e-7 (docs/lsa.md)",
        },
    )


register(
    Claim(
        id="shi-thm5.4.1-monotonicity",
        source=f"{SRC}, Theorem 5.4.1",
        statement="L_r is strictly decreasing in r; v_i* increases with N; v_i* -> 1/lambda_i with relative error exactly "
        "(lambda_i + tr D)/((N+1) lambda_i + tr D) (< 2e-7 at N = 1e8 for Case A).",
        kind="symbolic",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_monotone,
        observe=_observe_monotone,
        judge=MonotoneOptimum(rtol=1e-9, bound=RATE_BOUND),
    )
)


def _predict_caseB(cfg: LSAConfig) -> list:
    """U* for r = 0, 1, 2 (exact, sympy eigenvectors in descending order), then L_0, L_1, L_2 (Case B)."""
    L = sympy.Matrix(CASE_B)
    return [tl.optimal_rank_r(L, CASE_B_N, r).U.tolist() for r in range(3)] + [tl.optimal_losses(L, CASE_B_N)]


def _observe_caseB(cfg: LSAConfig, ctx: RunContext) -> Observation:
    Us, Ls = [], []
    for r in range(3):
        U, _, Lr, _, _ = nl.closed_form(np.array(CASE_B, dtype=float), CASE_B_N, r)
        Us.append(U.tolist())
        Ls.append(Lr)
    return Observation([*Us, Ls])


register(
    Claim(
        id="shi-thm5.4.1-caseB",
        source=f"{SRC}, Theorem 5.4.1 (non-diagonal Lambda, Case B of docs/lsa.md)",
        statement="Lambda = [[2,1],[1,2]], N = 10: exact closed form (sympy eigenvectors, descending order) equals numpy eigh "
        "reversed; U*_1 = (5/37)[[1,1],[1,1]], U*_2 = Gamma^-1, L = 2, 29/37, 50/111.",
        kind="numeric",
        configs={"quick": LSAConfig(), "full": LSAConfig()},
        predict=_predict_caseB,
        observe=_observe_caseB,
        judge=MaxAbs(IDENTITY_RTOL),
    )
)
