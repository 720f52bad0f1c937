"""Training approaches the max-margin group network (Edelman thesis, Theorem 7.9 with Theorem 7.1; Fig. 7.6, D.2,
D.3; settings of App. D.2.3).

gamma* is predicted by :mod:`theory.groups` (the closed form, or the exact character-game value where the
condition fails); every seed of the trained ensemble is compared with it by :mod:`verify.compare.groups`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import sympy

from numerics.groups import GroupTask, character_lp
from theory import finite_groups as fg
from theory import groups as tg
from verify.compare.groups import compare_groups, gamma_star
from verify.train.polynomial import TrainConfig

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register, registry
from ..judges import Check, Population
from ..training import MarginPerSeed, margin_ratio_check, train_for_claim
from .common import SRC


@dataclass(frozen=True)
class GroupTrainingConfig:
    """One group training claim: width ``width`` of the quadratic network on ``group``, trained with ``train``.

    Every seed must reach ``min_ratio <= h/||theta||_{2,3}^3/gamma* <= 1 + 1e-9``, carry at least
    ``min_single_share`` of its norm mass in neurons whose u, v, w all have irrep purity >= ``purity`` (one common
    irrep), use every irrep a max-margin network uses (all nontrivial ones under Thm 7.9's condition, the LP
    support otherwise) and no significant neuron may be dominated by the trivial irrep.
    """

    group: str
    width: int
    train: TrainConfig
    min_ratio: float = 0.95
    min_single_share: float = 0.95
    purity: float = 0.98


#: Per seed: margin ratio (normalized margin / predicted gamma*, computed by the judge) in [config.min_ratio,
#: 1 + 1e-9], single-irrep norm share >= config.min_single_share, and coverage of the needed irreps with no trivial
#: neuron. Neurons per irrep against d_R are reported, not judged. Population rule (docs/groups.md, "Verdict rule of
#: the training claims"): p0 = 0.5, since the thesis shows one run per group (Fig. 7.6, D.2, D.3) and states no
#: rate ("typically"); p_alt = 0.95; 8 seeds give power 0.943.
TRAINING_JUDGE = MarginPerSeed(
    (
        margin_ratio_check(),
        Check("single_irrep_share", "single-irrep norm share (block purity >= config.purity)", lo="min_single_share"),
        Check("coverage_ok", "every needed irrep used, no trivial neuron", truthy=True),
    ),
    note="neurons per irrep vs d_R reported",
    rule=Population(p0=0.5, p_alt=0.95),
)

#: Seeds of every group training run (8: power 0.943 against p_alt = 0.95; docs/verdicts.md).
SEEDS = tuple(range(8))


def predict_group_training(cfg: GroupTrainingConfig) -> sympy.Expr:
    """gamma*(G): Thm 7.9's closed form where the condition holds, else the exact character game value (theory)."""
    G = fg.group(cfg.group)
    if tg.condition_holds(G):
        return tg.max_margin(G)
    lp = character_lp(G)  # only for the support; the value is theory's exact one
    return tg.game_value_on_support(G, lp.used_irreps, lp.margin_classes)[0]


def observe_group_training(cfg: GroupTrainingConfig, ctx: RunContext) -> Observation:
    """Train the seed ensemble and compare every seed with Thm 7.9 (verify.compare.groups)."""
    G = fg.group(cfg.group)
    gs = gamma_star(G)
    result = train_for_claim(GroupTask(G), 2, cfg.width, cfg.train, ctx, f"group_{G.name.replace('^', '')}", gs[0])
    comps = [compare_groups(net, G, purity_threshold=cfg.purity, gamma=gs) for net in result.networks]
    seeds = tuple(result.config.seeds)  # the seeds that ran (RunOptions.seed_offset applied)
    details = {
        "gamma_star": gs[0],
        "gamma_source": gs[1],
        "irrep_names": list(comps[0].irrep_names),
        "dims": list(comps[0].dims),
        "per_seed": [
            {"seed": s}
            | dataclasses.asdict(c)
            | {
                "coverage_ok": c.coverage_ok,
                "mean_count_by_dim": c.mean_count_by_dim,
                "counts_increase_with_dim": c.counts_increase_with_dim,
            }
            for s, c in zip(seeds, comps)
        ],
        "train_wall_s": result.wall_time,
    }
    artifacts = {
        "history": result.history,
        "gamma_star": gs[0],
        "coverage": [list(c.nontrivial_counts) for c in comps],
        "irrep_names": list(comps[0].irrep_names[1:]),
        "dims": list(comps[0].dims[1:]),
    }
    return Observation(
        value=min(c.margin_ratio for c in comps) * gs[0],
        details=details,
        artifacts=artifacts,
        seeds=seeds,
    )


def _quick_adam(steps: int, seeds: tuple[int, ...] = SEEDS) -> TrainConfig:
    """CPU quick setting (not the thesis's): full-batch Adam lr 0.01 doubled at 1500 and 3000, lambda = 3e-5 on
    ||theta||_{2,3}^3, init N(0, 1/|G|), float64, one thread (NaN check every 50 steps: it does not change the run).
    Seeds 0-7 reach 0.964-0.966 gamma* at 6000 steps (2026-11-28; >= 0.95 from step 4000)."""
    return TrainConfig(
        steps=steps,
        lr=0.01,
        optimizer="adam",
        lam=3e-5,
        lr_doublings=(1500, 3000),
        seeds=seeds,
        eval_every=250,
        num_threads=1,
        nan_check_every=50,
    )


def _thesis_gd(steps: int, seeds: tuple[int, ...] = SEEDS) -> TrainConfig:
    """Edelman App. D.2.3 for S_3/S_4: full-batch GD lr 0.05 doubled at 200, 400, ..., 2600, 5000, 10000 (to
    1638.4), lambda = 1e-7 on ||theta||_{2,3}^3."""
    return TrainConfig(
        steps=steps,
        lr=0.05,
        optimizer="sgd",
        lr_doublings=(*tuple(range(200, 2601, 200)), 5000, 10000),
        lam=1e-7,
        seeds=seeds,
        eval_every=1000,
        num_threads=1,
        checkpoint_every=5000,
    )


def _thesis_s5(seeds: tuple[int, ...] = SEEDS) -> TrainConfig:
    """Edelman App. D.2.3 for S_5: SGD batch 1000, lr 0.05 doubled at 3000, 6000, ..., 24000 (to 12.8), lambda =
    1e-5, 75k steps (meant for a GPU)."""
    return TrainConfig(
        steps=75_000,
        lr=0.05,
        optimizer="sgd",
        batch_size=1000,
        lr_doublings=tuple(range(3000, 24001, 3000)),
        lam=1e-5,
        seeds=seeds,
        eval_every=2500,
        checkpoint_every=5000,
        nan_check_every=50,
    )


#: How the quick S3 setting differs from App. D.2.3's (besides m and steps): chosen for a CPU budget.
_QUICK_S3_DEVIATIONS = (
    Deviation(
        "optimizer",
        "gradient descent (App. D.2.3, S3)",
        "Adam",
        "the thesis schedule needs 50 000 steps; Adam reaches 0.95 gamma* in a few thousand on a CPU",
    ),
    Deviation(
        "learning rate and schedule",
        "0.05 doubled at 200, 400, ..., 2600, 5000, 10000 (App. D.2.3, S3)",
        "0.01 doubled at 1500 and 3000",
        "an Adam step size; the thesis's doublings to 1638.4 are for gradient descent",
    ),
    Deviation(
        "regularisation lambda",
        "1e-7 on ||theta||_(2,3)^3 (App. D.2.3, S3)",
        "3e-5",
        "a stronger lambda converges within the short quick budget, at a margin further from the lambda -> 0 limit",
    ),
)
#: D5 and A5 have no setting in the thesis (App. D.2.3 gives S3, S4 and S5 only).
_NO_SOURCE_SETTING = (
    Deviation(
        "training setting",
        "none: App. D.2.3 trains S3, S4 and S5 only",
        "the S3/S4 schedule (GD, lr 0.05 doubled to 1638.4, lambda 1e-7, 50 000 steps)",
        "the thesis's setting for groups of similar order",
    ),
)
#: Thresholds and settings chosen with knowledge of results (docs/groups.md, "Verdict rule of the training claims").
_POST_HOC = {
    "S3": (
        PostHoc(
            "quick setting (Adam lr 0.01, doublings 1500/3000, lambda 3e-5, m = 30, 6000 steps)",
            "as configured",
            "2026-11-21, tuned on the CPU before the claim was committed",
            "the thesis setting does not reach the threshold in a quick budget",
        ),
        PostHoc(
            "min_ratio (quick and full)",
            "0.95",
            "2026-11-21, with the quick runs at about 0.965 and the full run at 0.976-0.978",
            "the record cannot show that it preceded those runs",
        ),
    ),
    "S4": (
        PostHoc(
            "min_ratio (full)",
            "0.90",
            "2026-11-21, beside the measured 0.932-0.934 of the 3-seed CPU run (docs/groups.md)",
            "the record cannot show that it preceded that run",
        ),
    ),
}


def _training_claim(
    group: str,
    quick: GroupTrainingConfig | None,
    full: GroupTrainingConfig,
    note: str,
    deviations: dict[str, tuple[Deviation, ...]] | None = None,
    insensitive: str | None = None,
) -> None:
    configs = {"full": full} if quick is None else {"quick": quick, "full": full}
    deviations = deviations or {scale: () for scale in configs}
    register(
        Claim(
            id=f"edelman-thm7.9-training-{group.replace('^', '')}",
            source=f"{SRC}, Theorem 7.9 with Theorem 7.1; Fig 7.6, D.2, D.3 (App. D.2)",
            statement=f"Weakly L_(2,3)-regularized training of the quadratic network on {group} typically approaches "
            f"gamma*({group}); each neuron's u, v, w lie in a single irrep, every irrep a max-margin network needs is "
            "used and none is trivial. A seed succeeds when its normalized margin over the predicted gamma* is in "
            "[min_ratio, 1 + 1e-9] with that structure; pass iff the success rate is at least 1/2 at 95 % confidence "
            f"(p0 = 0.5: the thesis shows one run per group). {note}",
            kind="training",
            configs=configs,
            predict=predict_group_training,
            observe=observe_group_training,
            judge=TRAINING_JUDGE,
            deviations=deviations,
            post_hoc=_POST_HOC.get(group, ()),
            insensitive=insensitive,
        )
    )


_training_claim(
    "S3",
    GroupTrainingConfig("S3", 30, _quick_adam(6000)),
    GroupTrainingConfig("S3", 30, _thesis_gd(50_000)),
    "Quick: Adam (lr 0.01, x2 at 1500/3000, lambda 3e-5), m = 30, 6000 steps, ratio >= 0.95; full: the thesis "
    "setting (GD, lambda 1e-7, 50k steps; measured 0.978, docs/groups.md), ratio >= 0.95.",
    deviations={"quick": _QUICK_S3_DEVIATIONS, "full": ()},
    insensitive="the margin-ratio window [0.95, 1 + 1e-9] with quick seeds at 0.964-0.966 gamma* lets a gamma* 1 % "
    "high or low pass (a gamma* 2 % high puts them below 0.95 and fails); the judge reads the prediction",
)
_training_claim(
    "S4",
    None,
    GroupTrainingConfig("S4", 200, _thesis_gd(50_000), min_ratio=0.90),
    "Full only (no CPU setting reached 0.90 within 90 s): the thesis setting, m = 200, 50k steps, ratio >= 0.90 "
    "(measured 0.932, docs/groups.md).",
)
_training_claim(
    "S5",
    None,
    GroupTrainingConfig("S5", 2000, _thesis_s5(), min_ratio=0.90),
    "Full only: the thesis setting (m = 2000, SGD batch 1000, 75k steps, lambda 1e-5), ratio >= 0.90.",
)
_training_claim(
    "D5",
    None,
    GroupTrainingConfig("D5", 68, _thesis_gd(50_000), min_ratio=0.95),
    "Full only: D_5 (|G| = 10, construction width 34), m = 68, the S_3 thesis schedule.",
    deviations={"full": _NO_SOURCE_SETTING},
)
_training_claim(
    "A5",
    None,
    GroupTrainingConfig("A5", 472, _thesis_gd(50_000), min_ratio=0.90),
    "Full only: A_5 violates the condition; gamma* is the exact character game value (the 5-dim irrep is "
    "unused at the optimum, so coverage asks only for the LP's irreps 3, 3', 4), m = 472.",
    deviations={"full": _NO_SOURCE_SETTING},
)

#: The variant at the source's optimizer (issue 29, item 5; docs/groups.md, "At the source's optimizer"): the quick
#: S3 sizes (m = 30, 6000 steps, 8 seeds) with App. D.2.3's gradient descent, lr 0.05 doubled at 200, ..., 2600 and
#: 5000, and lambda 1e-7, instead of the quick Adam setting; the full configuration is the original's (the thesis's).
_S3 = registry()["edelman-thm7.9-training-S3"]
register(
    dataclasses.replace(
        _S3,
        id="edelman-thm7.9-training-S3-source-hparams",
        configs={
            "quick": GroupTrainingConfig("S3", 30, _thesis_gd(6000).replace(eval_every=250)),
            "full": _S3.configs["full"],
        },
        deviations=None,
        post_hoc=_POST_HOC["S3"][1:],
        variant_of=_S3.id,
        exploratory={
            "quick": "the original's quick setting replaces App. D.2.3's gradient descent (lr 0.05 doubled to 1638.4, "
            "lambda 1e-7) by Adam with lambda 3e-5; this variant reports whether the quick verdict depends on that change"
        },
        note="Variant of edelman-thm7.9-training-S3 at App. D.2.3's optimizer, schedule and lambda (its quick sizes, "
        "m = 30, 6000 steps and 8 seeds, kept; the schedule's doubling at step 10000 lies beyond them). The full "
        "configuration is the original's, already the thesis's.",
    )
)
