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

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register
from ..judges import Check, Population
from ..training import MarginPerSeed, margin_ratio_check, train_for_claim
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
    seeds = tuple(result.config.seeds)  # the seeds that ran (RunOptions.seed_offset applied)
    per_seed = [
        {"seed": s} | dataclasses.asdict(c) | {"all_frequencies_used": c.all_frequencies_used}
        for s, c in zip(seeds, comps)
    ]
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
        seeds=seeds,
    )


#: The population rule of the modular training claims (docs/modular.md, "Verdict rule of the training claims"):
#: the statement is about what weakly regularized training does to a network from a random start, which the theses
#: show on a few seeds and do not quantify (Shi App. C.10 runs 3 seeds; Edelman Fig. 7.1 one): read as "typically",
#: p0 = 0.5; the alternative the power is computed against, p_alt = 0.95, is the rate of the first validation (8 of
#: 8 seeds at >= 0.99 gamma*, docs/modular.md). With 8 seeds the power is 0.943.
TRAINING_RULE = Population(p0=0.5, p_alt=0.95)

#: Theorem 4.9 after training, per seed: margin ratio (normalized margin / predicted gamma*, computed by the judge)
#: in [config.min_ratio, 1 + 1e-9], at least 95 % of the norm in single-frequency neurons, every frequency used, and
#: phase residual <= 0.1 rad on the significant single-frequency neurons; the verdict is TRAINING_RULE on the seeds
#: that meet every check.
TRAINING_JUDGE = MarginPerSeed(
    (
        margin_ratio_check(),
        Check("single_frequency_share", "single-frequency share", lo=0.95),
        Check("all_frequencies_used", "all frequencies used", truthy=True),
        Check("max_phase_residual", "phase residual (rad)", hi=0.1),
    ),
    rule=TRAINING_RULE,
)


def training_tolerance(configs: dict[str, ModularTrainingConfig]) -> str:
    """The judge's text with each scale's ``min_ratio`` and purity threshold (both set by the run's config)."""
    ratios = ", ".join(f"{s} {c.min_ratio:g}" for s, c in configs.items())
    purities = " or ".join(f"{x:g}" for x in sorted({c.purity for c in configs.values()}))
    return f"{TRAINING_JUDGE.describe()}; min_ratio: {ratios}; single-frequency = every block of purity >= {purities}"


def _adam(p: int, **changes: object) -> TrainConfig:
    """Adam (lr 5e-3) on CE + 1e-3 ||theta||_{2,k+1}^{k+1}, full batch, init N(0, 1/(4p)), float64 on CPU, the 8
    seeds of :data:`QUICK_SEEDS` as one batched ensemble (NaN check every 50 steps: it does not change the run).

    Validated on CPU for (p, k, m) = (7, 2, 32) and (5, 3, 64) when first committed (2026-11-21): every one of
    seeds 0-7 reached >= 0.99 gamma* in 2000 steps. At the minimum width 4(p-1) = 24 for p = 7, one seed in 8
    stalls at 0.74 gamma* in a one-frequency local optimum, hence m = 32 there. With the current trainer
    (2026-11-28) seeds 0-7 reach 0.9966-1.0000 (k = 2, one seed sits at 0.82 until step 1200) and 0.9883-0.9945
    (k = 3; 0.975-0.987 at step 1000; 2000 steps are kept so that most seeds end above 0.99 gamma*, where a gamma*
    understated by 1 % shows): the ">= 0.99" above no longer holds for every seed
    at k = 3, and the threshold those runs are judged at is 0.95
    (:class:`~verify.claims.modular.common.ModularTrainingConfig`).
    """
    base = TrainConfig(
        steps=2000,
        lr=5e-3,
        lam=1e-3,
        init_std=0.5 / math.sqrt(p),
        seeds=QUICK_SEEDS,
        eval_every=100,
        num_threads=1,
        nan_check_every=50,
    )
    return base.replace(**changes)


#: Seeds of the quick training runs: 8, the fewest at which the population rule has power >= 0.8 against
#: p_alt = 0.95 (0.943; 5-7 seeds give 0.70-0.77, docs/verdicts.md).
QUICK_SEEDS = tuple(range(8))
#: Seeds of the paper-scale runs where 8 are affordable on a GPU (k = 2: about 40 s for 3 seeds on an H200).
FULL_SEEDS = tuple(range(8))


def _gpu_adam(p: int, steps: int, seeds: tuple[int, ...] = FULL_SEEDS) -> TrainConfig:
    """The paper-scale runs (Shi App. C.10): Adam lr 5e-3 on the L_(2,k+1) penalty of Def 4.1 (no weight decay:
    docs/modular.md), full batch accumulated over chunks of points sized by the trainer's memory plan to
    the device's free memory (verify.train.polynomial_step; docs/benchmarks.md gives the plans on an 80 GB GPU). Meant for a
    GPU."""
    return _adam(
        p,
        steps=steps,
        seeds=seeds,
        eval_every=500,
        chunk_size=None,
        num_threads=None,
        checkpoint_every=1000,
    )


def _shi_deviations(k: int) -> tuple[Deviation, ...]:
    """How every Shi run (quick and paper scale) differs from App. C.10.1's two-layer setting, besides sizes."""
    return (
        Deviation(
            "regulariser",
            "'regularization strength lambda: 0.005' with AdamW (App. C.10.1)",
            f"lambda = 1e-3 on ||theta||_(2,{k + 1})^{k + 1} (Def 4.1 with exponent r = k + 1), Adam, no weight decay",
            "Theorem 4.9 is about the L_(2,k+1) margin; squared-L2 weight decay has a smaller maximum margin, so the "
            "ratio to gamma* would not approach 1 (docs/modular.md, Training choices)",
        ),
        Deviation(
            "Adam betas",
            "(0.9, 0.98) (App. C.10.1)",
            "(0.9, 0.999) (torch's default)",
            "not changed when the setting was written; the runs reach gamma* with it",
        ),
        Deviation(
            "batch and warm-up",
            "batch size 1024, 10 warm-up steps (App. C.10.1)",
            "full batch (every point, every step), no warm-up",
            "the margin is a statement about the whole data set; full batch makes each seed's run deterministic",
        ),
        Deviation(
            "training data",
            "half of the p^k points, the other half held out (Fig. 4.1 caption)",
            "all p^k points",
            "the maximum margin is defined over every input; no test accuracy is judged here",
        ),
    )


#: Chosen after seeing results (docs/modular.md, "Margin thresholds of the training claims").
SHI_POST_HOC = (
    PostHoc(
        "min_ratio (quick)",
        "0.95",
        "2026-11-21, with the first training claims, after the CPU validation runs (seeds 0-7 at >= 0.99)",
        "room below the validated 0.99 that still rejects a one-frequency stall at 0.74 gamma*",
    ),
    PostHoc(
        "min_ratio (full)",
        "0.9",
        "2026-11-21, before any paper-scale run but knowing the quick results",
        "looser than quick because no fixed 20 000-step budget at these sizes had been measured",
    ),
    PostHoc(
        "width (quick, k = 2)",
        "32 instead of the minimum 4(p-1) = 24",
        "2026-11-21, after one seed in 8 stalled at 0.74 gamma* at width 24",
        "a wider network avoids the one-frequency local optimum",
    ),
)


def _register_training(k: int, configs: dict[str, ModularTrainingConfig]) -> None:
    register(
        Claim(
            id=f"shi-thm4.9-training-k{k}",
            source=f"{SHI}, Theorem 4.9 with Lemma 4.7 (Wei et al. 2019); experiments App. C.10",
            statement=f"Weakly L_(2,{k + 1})-regularized training of the {k}-input network typically approaches gamma*: "
            "a seed succeeds when its normalized margin over the predicted gamma* reaches the margin-ratio threshold "
            "(and does not exceed 1), its norm sits in single-frequency neurons with sum of input phases = output "
            "phase, and every frequency 1..(p-1)/2 is used; pass iff the seeds' success rate is at least 1/2 at 95 % "
            "confidence (p0 = 0.5: the theses show a few runs and quantify no rate).",
            kind="training",
            configs=configs,
            predict=predict_training,
            observe=observe_training,
            judge=TRAINING_JUDGE,
            tolerance=training_tolerance(configs),
            deviations={scale: _shi_deviations(k) for scale in configs},
            post_hoc=SHI_POST_HOC,
            underpowered={
                scale: f"{len(c.train.seeds)} seeds (a paper-scale run of 3 seeds takes 47 min to 23 h on an H200, "
                f"docs/modular.md): power {TRAINING_RULE.power(len(c.train.seeds)):.2f} < {TRAINING_RULE.min_power} "
                "against p_alt = 0.95; 8 seeds would be needed"
                for scale, c in configs.items()
                if TRAINING_RULE.power(len(c.train.seeds)) < TRAINING_RULE.min_power
            }
            or None,
        )
    )


#: The Shi training runs, by k and scale. Quick (k = 2, 3) keeps the default ``min_ratio`` 0.95 of
#: :class:`~verify.claims.modular.common.ModularTrainingConfig`; the paper-scale runs use 0.9. Where both numbers
#: come from, and when they were set, is written in that class's docstring and in docs/modular.md. The paper-scale
#: k = 3, 4, 5 runs keep 3 seeds (App. C.10.1: "All results we ran 3 times"): their cost (47 min, 6 h, 23 h) rules
#: out 8, and they are declared underpowered.
SHI_TRAINING: dict[int, dict[str, ModularTrainingConfig]] = {
    2: {
        "quick": ModularTrainingConfig(7, 2, 32, _adam(7)),
        "full": ModularTrainingConfig(97, 2, 768, _gpu_adam(97, 20_000), min_ratio=0.9),
    },
    3: {
        "quick": ModularTrainingConfig(5, 3, 64, _adam(5)),
        "full": ModularTrainingConfig(
            97, 3, 1536, _gpu_adam(97, 20_000, (0, 1, 2)), min_ratio=0.9, lp_reweighting=False
        ),
    },
    4: {
        "full": ModularTrainingConfig(
            47, 4, 2944, _gpu_adam(47, 20_000, (0, 1, 2)), min_ratio=0.9, lp_reweighting=False
        )
    },
    5: {
        "full": ModularTrainingConfig(
            23, 5, 5632, _gpu_adam(23, 20_000, (0, 1, 2)), min_ratio=0.9, lp_reweighting=False
        )
    },
}

for _k, _configs in SHI_TRAINING.items():
    _register_training(_k, _configs)
