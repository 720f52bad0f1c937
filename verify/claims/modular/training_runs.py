"""Shi thesis Theorem 4.9 with Lemma 4.7 (Wei et al. 2019), App. C.10: weakly regularized training reaches the
max-margin Fourier circuit. The observation and judge are shared with Edelman's k = 2 training claim."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import sympy

from numerics.margins import HomogeneousNetwork
from numerics.modular import ModularTask
from numerics.spectra import neuron_diagnostics, one_sided_power
from theory import modular as tm
from verify.compare import compare_modular
from verify.train.polynomial import TrainConfig

from ..base import Claim, Observation, RunContext, register
from ..judges import Check, PerSeed
from ..training import margin_ratio_check, train_for_claim
from .common import SHI, ModularTrainingConfig

# --- Theorem 4.9 (Shi thesis) with Lemma 4.7 (Wei et al. 2019): training approaches the max-margin circuit


def predict_training(cfg: ModularTrainingConfig) -> sympy.Expr:
    """gamma*(p, k), the normalized margin training approaches (Theorem 4.9)."""
    return tm.max_margin(cfg.p, cfg.k)


def _spectra_artifact(net: HomogeneousNetwork, n_neurons: int = 6, purity: bool = True) -> dict[str, Any]:
    """Power spectra and values of the first input block of the ``n_neurons`` heaviest neurons (and, with
    ``purity``, every neuron's purity); the report draws them as Fig. 4.1 (another seed's under ``by_seed``, drawn
    when that seed fails)."""
    diag = neuron_diagnostics(net)
    top = np.argsort(-diag.mass)[:n_neurons]
    out = {
        "neurons": top.tolist(),
        "u1_power": one_sided_power(net.U[top, 0, :]).tolist(),
        "u1_values": net.U[top, 0, :].tolist(),
        "mass": diag.mass[top].tolist(),
    }
    return out | {"purity_all": diag.min_purity.tolist()} if purity else out


def observe_training(cfg: ModularTrainingConfig, ctx: RunContext) -> Observation:
    """Train the seed ensemble on ``ctx.device`` and compare every seed's weights with Theorem 4.9."""
    gamma = float(tm.max_margin(cfg.p, cfg.k))
    task = ModularTask(cfg.p, cfg.k)
    result = train_for_claim(task, cfg.k, cfg.width, cfg.train, ctx, f"modular_p{cfg.p}_k{cfg.k}", gamma)
    comps = [
        compare_modular(net, cfg.p, cfg.k, purity_threshold=cfg.purity, lp=cfg.lp_reweighting)
        for net in result.networks
    ]
    per_seed = [dataclasses.asdict(c) | {"all_frequencies_used": c.all_frequencies_used} for c in comps]
    artifacts = {
        "history": result.history,
        "gamma_star": gamma,
        "p": cfg.p,
        "k": cfg.k,
        "spectra": _spectra_artifact(result.networks[0])
        | {"by_seed": [{}] + [_spectra_artifact(net, purity=False) for net in result.networks[1:]]},
        "coverage": [list(c.coverage) for c in comps],
    }
    return Observation(
        value=min(c.margin_ratio for c in comps) * gamma,
        details={"gamma_star": gamma, "per_seed": per_seed, "train_wall_s": result.wall_time},
        artifacts=artifacts,
        seeds=tuple(result.config.seeds),
    )


#: Theorem 4.9 after training, every seed: margin ratio in [config.min_ratio, 1 + 1e-9], at least 95 % of the norm
#: in single-frequency neurons, every frequency used, and phase residual <= 0.1 rad on the significant
#: single-frequency neurons.
TRAINING_JUDGE = PerSeed(
    (
        margin_ratio_check(),
        Check("single_frequency_share", "single-frequency share", lo=0.95),
        Check("all_frequencies_used", "all frequencies used", truthy=True),
        Check("max_phase_residual", "phase residual (rad)", hi=0.1),
    )
)


def training_tolerance(configs: dict[str, ModularTrainingConfig]) -> str:
    """The judge's text with each scale's ``min_ratio`` and purity threshold (both set by the run's config)."""
    ratios = ", ".join(f"{s} {c.min_ratio:g}" for s, c in configs.items())
    purities = " or ".join(f"{x:g}" for x in sorted({c.purity for c in configs.values()}))
    return f"{TRAINING_JUDGE.describe()}; min_ratio: {ratios}; single-frequency = every block of purity >= {purities}"


def _adam(p: int, **changes: object) -> TrainConfig:
    """Adam (lr 5e-3) on CE + 1e-3 ||theta||_{2,k+1}^{k+1}, full batch, init N(0, 1/(4p)), float64 on CPU.

    Validated on CPU for (p, k, m) = (7, 2, 32) and (5, 3, 64) when first committed (2026-11-21): every one of
    seeds 0-7 reached >= 0.99 gamma* in 2000 steps. At the minimum width 4(p-1) = 24 for p = 7, one seed in 8
    stalls at 0.74 gamma* in a one-frequency local optimum, hence m = 32 there. With the current trainer
    (2026-11-26) the quick seeds 0, 1 reach 1.0000, 0.9966 (k = 2) and 0.9902, 0.9883 (k = 3): the ">= 0.99"
    above no longer holds for every seed at k = 3, and the threshold those runs are judged at is 0.95
    (:class:`~verify.claims.modular.common.ModularTrainingConfig`).
    """
    base = TrainConfig(
        steps=2000, lr=5e-3, lam=1e-3, init_std=0.5 / math.sqrt(p), seeds=(0, 1), eval_every=100, num_threads=1
    )
    return base.replace(**changes)


def _gpu_adam(p: int, steps: int) -> TrainConfig:
    """The paper-scale runs (Shi App. C.10): Adam lr 5e-3 on the L_(2,k+1) penalty of Def 4.1 (no weight decay:
    docs/modular.md), 3 seeds, full batch accumulated over chunks of points sized by the trainer's memory plan to
    the device's free memory (verify.train.polynomial_step; docs/benchmarks.md gives the plans on an 80 GB GPU). Meant for a
    GPU."""
    return _adam(
        p,
        steps=steps,
        seeds=(0, 1, 2),
        eval_every=500,
        chunk_size=None,
        num_threads=None,
        nan_check_every=50,
        checkpoint_every=1000,
    )


def _register_training(k: int, configs: dict[str, ModularTrainingConfig]) -> None:
    register(
        Claim(
            id=f"shi-thm4.9-training-k{k}",
            source=f"{SHI}, Theorem 4.9 with Lemma 4.7 (Wei et al. 2019); experiments App. C.10",
            statement=f"Weakly L_(2,{k + 1})-regularized training of the {k}-input network approaches gamma*: every seed "
            "reaches the margin ratio threshold, its norm sits in single-frequency neurons with sum of input phases = "
            "output phase, and every frequency 1..(p-1)/2 is used.",
            kind="training",
            configs=configs,
            predict=predict_training,
            observe=observe_training,
            judge=TRAINING_JUDGE,
            tolerance=training_tolerance(configs),
        )
    )


#: The Shi training runs, by k and scale. Quick (k = 2, 3) keeps the default ``min_ratio`` 0.95 of
#: :class:`~verify.claims.modular.common.ModularTrainingConfig`; the paper-scale runs use 0.9. Where both numbers
#: come from, and when they were set, is written in that class's docstring and in docs/modular.md.
SHI_TRAINING: dict[int, dict[str, ModularTrainingConfig]] = {
    2: {
        "quick": ModularTrainingConfig(7, 2, 32, _adam(7)),
        "full": ModularTrainingConfig(97, 2, 768, _gpu_adam(97, 20_000), min_ratio=0.9),
    },
    3: {
        "quick": ModularTrainingConfig(5, 3, 64, _adam(5)),
        "full": ModularTrainingConfig(97, 3, 1536, _gpu_adam(97, 20_000), min_ratio=0.9, lp_reweighting=False),
    },
    4: {"full": ModularTrainingConfig(47, 4, 2944, _gpu_adam(47, 20_000), min_ratio=0.9, lp_reweighting=False)},
    5: {"full": ModularTrainingConfig(23, 5, 5632, _gpu_adam(23, 20_000), min_ratio=0.9, lp_reweighting=False)},
}

for _k, _configs in SHI_TRAINING.items():
    _register_training(_k, _configs)
