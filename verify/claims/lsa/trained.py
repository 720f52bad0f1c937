"""Theorem 5.4.1 by training (torch): the learned M_eff of linear self-attention reaches the closed-form optimum
(docs/lsa.md)."""

from __future__ import annotations

import dataclasses

import numpy as np
import sympy

from theory import lsa as tl
from verify.train import lsa as vl

from ..base import Claim, Observation, RunContext, register
from ..judges import Check, PerSeed
from ..training import run_checkpointed
from .common import (
    SRC,
    LSATrainingConfig,
    rotated,
)

# --- Theorem 5.4.1 by training (torch): the learned M_eff reaches the closed form


def _predict_training(cfg: LSATrainingConfig) -> dict:
    """v* and L_r of Thm 5.4.1 for every trained rank (functions of Lambda's eigenvalues: a rotation of Lambda
    rotates U* = Q diag(v*) Q^T but leaves v* and L_r unchanged)."""
    L = sympy.Matrix(cfg.Lam)
    losses = tl.optimal_losses(L, cfg.N)
    return {f"r={r}": {"v_star": tl.optimal_rank_r(L, cfg.N, r).v, "L_r": losses[r]} for r in cfg.ranks}


def _train(cfg: LSATrainingConfig, r: int, ctx: RunContext) -> vl.LSAResult:
    """One rank: the population model on the CPU (a few d x d products: the CPU is fastest), SGD on ``ctx.device``
    with prompts drawn from (rotated) Lambda, or from ``train_Lam`` as given for the negative control."""
    train_cov = rotated(cfg)[0] if cfg.train_Lam is None else np.array(cfg.train_Lam, dtype=np.float64)
    tag = f"lsa_{cfg.model}_r{r}"
    config = {"claim_config": dataclasses.asdict(cfg), "r": r}
    if cfg.model == "population":
        pop = vl.PopulationConfig(train_cov, cfg.N, r, cfg.seeds, steps=cfg.steps, polish_steps=cfg.polish_steps)
        return run_checkpointed(
            ctx, tag, config, lambda options: vl.train_population(pop, options.replace(device="cpu"))
        )
    sgd = vl.SGDConfig(train_cov, cfg.N, r, cfg.seeds, model=cfg.model, steps=cfg.steps, batch=cfg.batch, dtype=None)
    return run_checkpointed(ctx, tag, config, lambda options: vl.train_sgd(sgd, options))


def _observe_training(cfg: LSATrainingConfig, ctx: RunContext) -> Observation:
    L = rotated(cfg)[0]
    per_rank, per_seed, learned, optimal = {}, [], [], []
    for r in cfg.ranks:
        res = _train(cfg, r, ctx)
        cmp = vl.compare_to_optimum(res.M_eff, L, cfg.N, r)
        per_rank[r] = {
            "rel_err": cmp.rel_err.tolist(),
            "loss": cmp.loss.tolist(),
            "loss_gap": cmp.loss_gap.tolist(),
            "L_r": cmp.optimal_loss,
            "unique": cmp.unique,
            **res.details,
        }
        per_seed += [
            {"rank": r, "seed": s, "rel_err": float(e), "abs_loss_gap": float(abs(g))}
            for s, e, g in zip(cfg.seeds, cmp.rel_err, cmp.loss_gap)
        ]
        learned.append(np.median(cmp.spectrum, axis=0).tolist())
        optimal.append(cmp.optimal_spectrum.tolist())
    art = {"lsa_spectrum": {"rank": list(cfg.ranks), "learned": learned, "optimal": optimal}}
    worst = [max(row["rel_err"] for row in per_seed if row["rank"] == r) for r in cfg.ranks]
    return Observation(
        worst, details={"per_seed": per_seed, "per_rank": per_rank}, artifacts=art, seeds=tuple(cfg.seeds)
    )


def _training_judge(rel_tol: float, gap_tol: float) -> PerSeed:
    """Every (rank, seed): relative Frobenius error of M_eff vs U* <= ``rel_tol`` and |loss - L_r| <= ``gap_tol``."""
    return PerSeed(
        checks=(
            Check("rel_err", "relative error of M_eff", hi=rel_tol),
            Check("abs_loss_gap", "|loss - L_r|", hi=gap_tol),
        ),
        headline="rel_err",
    )


register(
    Claim(
        id="shi-thm5.4.1-training-population",
        source=f"{SRC}, Theorem 5.4.1 (training recipe (a) of docs/lsa.md)",
        statement="Gradient training (Adam, then L-BFGS polish) of u A B^T on the exact population loss l~ reaches the "
        "closed form: relative Frobenius error of M_eff = u A B^T vs U* <= 1% for every rank r = 1..4, and the "
        "loss equals L_r.",
        kind="training",
        configs={
            "quick": LSATrainingConfig(seeds=(0, 1), steps=1000, polish_steps=200, model="population"),
            "full": LSATrainingConfig(seeds=(0, 1, 2, 3, 4, 5, 6, 7), steps=20_000, polish_steps=0, model="population"),
        },
        predict=_predict_training,
        observe=_observe_training,
        judge=_training_judge(1e-2, 1e-3),
        on_device=False,  # the population model always trains on the CPU (see _train)
    )
)

register(
    Claim(
        id="shi-thm5.4.1-training-sgd",
        source=f"{SRC}, Theorem 5.4.1 (training recipe (b) of docs/lsa.md: reduced LSA u (y^T X) A B^T x_q / N)",
        statement="Adam on fresh prompts (batch 1024, cosine decay to 0, 3000 steps, half squared error) of the rank-r "
        "reduced LSA learns M_eff = u A B^T within 5% of U* for r = 1..4, with analytic loss "
        "l~(M_eff, 1) + 1/2 tr Lambda within 0.03 of L_r. (The full Eq. 5.1 model with label-row blocks "
        "initialised to 0, recipe (c), can get trapped with w21^PV != 0: observed at r = 4, seed 0.)",
        kind="training",
        configs={"full": LSATrainingConfig(seeds=(0, 1), steps=3000, batch=1024, model="reduced")},
        predict=_predict_training,
        observe=_observe_training,
        judge=_training_judge(5e-2, 3e-2),
    )
)


#: Relative Frobenius error of M_eff against U* accepted for SGD on sampled prompts (the tolerance of the reduced
#: model's claim above, set before the attention model of Eq. 5.1 was trained this way).
SGD_REL_TOL = 5e-2
#: |loss - L_r| accepted for SGD on sampled prompts (same origin).
SGD_GAP_TOL = 3e-2
#: Rotated 3 x 3 Lambda of the quick attention-model claims: non-diagonal, distinct eigenvalues (a unique optimum).
CASE_C = ((3, 0, 0), (0, 2, 0), (0, 0, 1))

register(
    Claim(
        id="shi-thm5.4.1-training-attention",
        source=f"{SRC}, Theorem 5.4.1 with the model of Eq. 5.1 (training recipe (c) of docs/lsa.md)",
        statement="The linear self-attention network of Eq. 5.1 itself (full W^PV and W^KQ = K^T Q of rank r), trained "
        "by Adam on fresh prompts drawn with a non-diagonal, randomly rotated Lambda, learns M_eff within 5% of the "
        "closed-form U* of Theorem 5.4.1 for every rank, with analytic loss within 0.03 of L_r: unlike training on "
        "the analytic population loss, this does not minimise the objective the closed form minimises.",
        kind="training",
        configs={
            "quick": LSATrainingConfig(
                Lam=CASE_C, N=10, ranks=(1, 2), seeds=(0, 1), model="full", steps=1500, batch=512, rotate=True
            ),
            "full": LSATrainingConfig(
                ranks=(1, 2, 3, 4), seeds=tuple(range(8)), model="full", steps=3000, batch=1024, rotate=True
            ),
        },
        predict=_predict_training,
        observe=_observe_training,
        judge=_training_judge(SGD_REL_TOL, SGD_GAP_TOL),
    )
)

register(
    Claim(
        id="shi-thm5.4.1-training-attention-wrong-lambda",
        source=f"{SRC}, Theorem 5.4.1 (negative control of shi-thm5.4.1-training-attention; docs/lsa.md)",
        statement="Negative control: the same network trained on prompts whose covariance is the un-rotated Lambda "
        "(a wrong Lambda with the same eigenvalues) is judged different from the closed form for the rotated "
        "Lambda: every seed's relative error of M_eff against U* exceeds the 5% that the positive claim accepts.",
        kind="training",
        configs={
            "quick": LSATrainingConfig(
                Lam=CASE_C,
                N=10,
                ranks=(1,),
                seeds=(0, 1),
                model="full",
                steps=1500,
                batch=512,
                rotate=True,
                train_Lam=CASE_C,
            ),
            "full": LSATrainingConfig(
                ranks=(1, 2),
                seeds=tuple(range(4)),
                model="full",
                steps=3000,
                batch=1024,
                rotate=True,
                train_Lam=((4, 0, 0, 0), (0, 3, 0, 0), (0, 0, 2, 0), (0, 0, 0, 1)),
            ),
        },
        predict=_predict_training,
        observe=_observe_training,
        judge=PerSeed(
            checks=(
                Check(
                    "rel_err", "relative error of M_eff (must exceed the positive claim's tolerance)", lo=SGD_REL_TOL
                ),
            ),
            headline="rel_err",
        ),
    )
)
