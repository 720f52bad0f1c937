"""Claims of Edelman thesis Ch. 7 + App. D for modular addition (k = 2, Theorem 7.7; Morwani et al. 2024).

Spec: ``shared/spec/feature_emergence.md`` sections 1-3 and 7 items 1-9; errata in section 9.
The general-k checks live in :mod:`verify.claims.shi_ch4`; here are the statements as Edelman makes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from theory import modular as tm
from verify.train import TrainConfig, doubling_steps

from .base import Claim, Observation, RunContext, judge_refuted_if_differs, judge_symbolic_zero, register
from .modular_training import (
    ModularTrainingConfig,
    judge_modular_training,
    observe_modular_training,
    predict_modular_training,
)

SRC = "Edelman thesis (2024)"
P = sympy.Symbol("p", positive=True, integer=True)


@dataclass(frozen=True)
class Primes:
    """Moduli at which a k = 2 statement is checked."""

    ps: tuple[int, ...]


def _observe_k2_formula(cfg: Primes, ctx: RunContext) -> Observation:
    residuals = [tm.max_margin(P, 2) - tm.max_margin_k2_morwani(P)]
    residuals += [tm.max_margin_k2_morwani(p) - tm.construction(p, 2).normalized_margin for p in cfg.ps]
    return Observation(
        [sympy.simplify(r) for r in residuals],
        details={"values": {f"p={p}": tm.max_margin_k2_morwani(p) for p in cfg.ps}},
    )


register(
    Claim(
        id="edelman-thm7.7-margin",
        source=f"{SRC}, Theorem 7.7 (App. D.6)",
        statement="For the quadratic network on Z_p with width >= 4(p-1): gamma* = sqrt(2/27) / ((p-1) sqrt p); this equals "
        "Shi's general-k formula at k = 2 and the normalized margin of the 4(p-1)-neuron construction.",
        kind="symbolic",
        configs={"quick": Primes((3, 5, 7, 71)), "full": Primes((3, 5, 7, 11, 13, 23, 71, 97))},
        predict=lambda cfg: tm.max_margin_k2_morwani(P),
        observe=_observe_k2_formula,
        judge=judge_symbolic_zero,
        tolerance="exact (sympy simplify of the difference == 0)",
    )
)


def _observe_d62(cfg: Primes, ctx: RunContext) -> Observation:
    from numerics.modular import construction_network

    p = cfg.ps[0]
    a, c = [0, 0], 1
    value = float(construction_network(p, 2).logits(__import__("numpy").array([a]))[0, c])
    return Observation(
        value,
        counterexample={
            "p": p,
            "a": a,
            "b_plus_a": 0,
            "c": c,
            "printed": tm.construction_logit_as_printed(p, a, c),
            "observed": value,
            "corrected": tm.construction(p, 2).logit(a, c),
            "why": "sum_{zeta=1}^{(p-1)/2} cos(2 pi zeta d / p) = -1/2 for d != 0",
        },
    )


register(
    Claim(
        id="edelman-D.6.2-output-as-printed",
        source=f"{SRC}, App. D.6.2",
        statement="As printed: the construction's sum over frequencies of cos_zeta(a+b-c) equals (p-1)/2 if a+b = c and 0 otherwise.",
        kind="numeric",
        configs={"quick": Primes((7,)), "full": Primes((71,))},
        predict=lambda cfg: tm.construction_logit_as_printed(cfg.ps[0], [0, 0], 1),
        observe=_observe_d62,
        judge=judge_refuted_if_differs(1e-9),
        tolerance="absolute 1e-9",
        refutes="(p-1)/2 if a+b = c, 0 otherwise",
        corrected_by="edelman-thm7.7-margin",
    )
)


def _edelman_gd(steps: int, seeds: tuple[int, ...], eval_every: int) -> TrainConfig:
    """Edelman App. D.2: full-batch GD, lr 0.05 doubled at steps 1k, 2k, ..., 10k (to 51.2), lambda = 1e-4 on
    ||theta||_{2,3}^3 (r = nu, spec section 10)."""
    return TrainConfig(
        steps=steps,
        lr=0.05,
        optimizer="sgd",
        lr_doublings=doubling_steps(),
        lam=1e-4,
        seeds=seeds,
        eval_every=eval_every,
        num_threads=1,
    )


register(
    Claim(
        id="edelman-thm7.7-training",
        source=f"{SRC}, Theorem 7.7 with Theorem 7.1; Fig 7.1b-c, 7.4c, D.1b (App. D.2 schedule)",
        statement="Gradient descent on CE + 1e-4 ||theta||_{2,3}^3 with the lr-doubling schedule drives the quadratic network's "
        "normalized margin to gamma*(p) = sqrt(2/27)/((p-1) sqrt p), with single-frequency neurons, theta_u + theta_v "
        "= theta_w, and every frequency used.",
        kind="training",
        configs={
            "quick": ModularTrainingConfig(7, 2, 40, _edelman_gd(10_000, (0, 1), 500), min_ratio=0.99),
            "full": ModularTrainingConfig(
                71, 2, 500, _edelman_gd(40_000, (0, 1, 2), 1000).replace(checkpoint_every=2000), min_ratio=0.99
            ),
        },
        predict=predict_modular_training,
        observe=observe_modular_training,
        judge=judge_modular_training,
        tolerance="per seed: ratio in [0.99, 1+1e-9], single-frequency share >= 0.95 (purity >= 0.99), all frequencies "
        "used, phase residual < 0.1 rad",
    )
)
