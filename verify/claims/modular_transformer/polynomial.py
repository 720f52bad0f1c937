"""Shi thesis Figs. 4.1 and 4.2 (App. C.10.2: Figs. C.1-C.4): the polynomial network of Eq. 4.2 at width
2^{2k-2}(p-1), trained the thesis's way (AdamW with App. C.10.1's settings on an even train/test split), has
single-frequency neurons (Lemma 4.10) and uses every frequency (Lemma 4.11); compared with the toolkit's
full-dataset training (docs/modular_transformer.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import sympy

from numerics.margins import HomogeneousNetwork
from numerics.modular_transformer import embedding_purity
from numerics.spectra import frequency_coverage, neuron_diagnostics, one_sided_power
from theory import modular as tm
from theory import modular_transformer as tmt
from verify.train.polynomial import TrainConfig

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register
from ..judges import Check, as_float, flatten
from .common import FULL_SEEDS, RULE, SHI, PerSeedDerived, full_data_run, poly_split_run


@dataclass(frozen=True)
class PolySplitConfig:
    """The network of Eq. 4.2 with ``width`` neurons on k-sum mod p, trained on the even split ``split_seed`` with
    ``train``; ``compare`` is the toolkit's full-dataset training of the same width (None: not run).

    Thresholds (none is given by the thesis; all three are ours, and all three were set after seeing prototype
    results; docs/modular_transformer.md, "Quick settings"): every seed must reach ``min_test_accuracy`` on the test
    half; the median purity of its significant neurons' input blocks must reach ``min_purity`` and exceed the median
    at initialisation by ``min_purity_gain``.

    * ``min_test_accuracy = 0.99``: "the network has learned the task" (at most 1 % of the test half wrong: 2 of
      the 265 test points at p = 23). Set when the claim was written, after the prototype run (k = 2, p = 23,
      weight decay 1.0) had reached test accuracy 1.0 on both seeds.
    * ``min_purity = 0.85`` (0.9 at full scale): set after the prototype runs had shown median purity 0.90-0.91.
    * ``min_purity_gain = 0.5``: training must move the median neuron more than half of the way from a random block
      (median purity about 0.2 at p = 23) to a pure cosine (1). Set when the claim was written, after the
      prototype's trained purities were known; the notes of that session do not say whether the purity at
      initialisation had been seen, so it counts as chosen after the results. The quick gains are 0.69 and 0.70.
    """

    p: int
    k: int
    width: int
    train: TrainConfig
    compare: TrainConfig | None = None
    split_seed: int = 0
    min_test_accuracy: float = 0.99
    min_purity: float = 0.85
    min_purity_gain: float = 0.5


def _thesis_adamw(**changes: Any) -> TrainConfig:
    """App. C.10.1's two-layer-network settings: AdamW lr 5e-3, betas (0.9, 0.98), 10 warm-up steps, batch 1024
    drawn from the training half, regularization strength 0.005 read as AdamW's weight decay; 8 seeds
    (:data:`.common.FULL_SEEDS`)."""
    base = TrainConfig(
        steps=50_000,
        lr=5e-3,
        optimizer="adamw",
        betas=(0.9, 0.98),
        weight_decay=5e-3,
        warmup_steps=10,
        batch_size=1024,
        seeds=FULL_SEEDS,
        eval_every=2500,
        nan_check_every=50,
    )
    return base.replace(**changes)


def _toolkit_full_data(p: int, **changes: Any) -> TrainConfig:
    """The toolkit's full-dataset protocol (docs/modular.md): Adam lr 5e-3 on CE + 1e-3 ||theta||_{2,k+1}^{k+1},
    full batch over all p^k points, init N(0, 1/(4p))."""
    base = TrainConfig(
        steps=2000, lr=5e-3, lam=1e-3, init_std=0.5 / math.sqrt(p), seeds=(0, 1), eval_every=500, num_threads=1
    )
    return base.replace(**changes)


def _neuron_rows(nets: list[HomogeneousNetwork], init: list[HomogeneousNetwork], p: int) -> list[dict[str, Any]]:
    rows = []
    for net, net0 in zip(nets, init):
        diag = neuron_diagnostics(net)
        sig = diag.significant()
        pur, pur0 = embedding_purity(net), embedding_purity(net0)
        cov = frequency_coverage(diag, p)[1:]
        rows.append(
            {
                "median_purity": float(np.nanmedian(pur[sig])) if sig.any() else float("nan"),
                "init_median_purity": float(np.nanmedian(pur0)),
                "purity_gain": float(np.nanmedian(pur[sig]) - np.nanmedian(pur0)) if sig.any() else float("nan"),
                "share_purity_0.9": float(diag.mass[np.nan_to_num(pur) >= 0.9].sum()),
                "n_significant": int(sig.sum()),
                "coverage": cov.tolist(),
                "all_frequencies_used": bool((cov > 0).all()),
            }
        )
    return rows


def _spectra_artifact(net: HomogeneousNetwork, n_neurons: int = 6) -> dict[str, Any]:
    """The first input block of the heaviest neurons and its one-sided power (rendered as Fig. 4.1; the other seeds'
    under ``by_seed``, drawn when one of them fails)."""
    diag = neuron_diagnostics(net)
    top = np.argsort(-diag.mass)[:n_neurons]
    return {
        "neurons": top.tolist(),
        "u1_values": net.U[top, 0, :].tolist(),
        "u1_power": one_sided_power(net.U[top, 0, :]).tolist(),
        "mass": diag.mass[top].tolist(),
    }


def _comparison(cfg: PolySplitConfig, ctx: RunContext) -> dict[str, Any] | None:
    if cfg.compare is None:
        return None
    res = full_data_run(cfg.p, cfg.k, cfg.width, cfg.compare, ctx)
    rows = _neuron_rows(res.networks, res.networks, cfg.p)
    return {
        "protocol": "Adam + lambda ||theta||_{2,k+1}^{k+1}, full batch, all p^k points",
        "margin_ratio": [float(r) for r in res.final["ratio"]],
        "median_purity": [r["median_purity"] for r in rows],
        "coverage": [r["coverage"] for r in rows],
        "accuracy": res.final["accuracy"],
    }


def observe_split(cfg: PolySplitConfig, ctx: RunContext) -> Observation:
    """Train on the training half, then measure every seed on the test half, on all points and neuron by neuron."""
    run = poly_split_run(cfg.p, cfg.k, cfg.width, cfg.train, cfg.split_seed, ctx)
    gamma = float(tm.max_margin(cfg.p, cfg.k))
    rows = _neuron_rows(run.result.networks, run.initial, cfg.p)
    seeds = tuple(run.result.config.seeds)  # the seeds that ran (shifted by RunOptions.seed_offset)
    for s, row in enumerate(rows):
        row.update(
            seed=int(seeds[s]),
            train_accuracy=float(run.result.final["accuracy"][s]),
            test_accuracy=float(run.test_accuracy[s]),
            margin_ratio=float(run.all_normalized_margin[s] / gamma),
        )
    steps = run.test_history["step"]
    curves = [
        {"label": f"seed {s} train", "x": steps, "y": [h["accuracy"][i] for h in run.result.history]}
        for i, s in enumerate(seeds)
    ] + [
        {"label": f"seed {s} test", "x": steps, "y": [a[i] for a in run.test_history["test_acc"]], "ls": "--"}
        for i, s in enumerate(seeds)
    ]
    pur_trained = np.concatenate([embedding_purity(n) for n in run.result.networks])
    pur_init = np.concatenate([embedding_purity(n) for n in run.initial])
    plots = [
        {
            "name": "accuracy",
            "kind": "lines",
            "series": curves,
            "xlabel": "step",
            "ylabel": "accuracy",
            "title": f"polynomial network, k={cfg.k}, p={cfg.p}, m={cfg.width}: even split",
        },
        {
            "name": "purity",
            "kind": "hist",
            "series": [
                {"label": "initialisation", "values": pur_init.tolist()},
                {"label": "trained", "values": pur_trained.tolist()},
            ],
            "bins": 20,
            "xlabel": "maximum normalized power of a neuron's input blocks (min over blocks)",
            "ylabel": "neurons",
            "title": "Fig. 4.2(b, c): purity at initialisation and after training",
        },
    ]
    artifacts = {
        "plots": plots,
        "spectra": _spectra_artifact(run.result.networks[0])
        | {"by_seed": [{}] + [_spectra_artifact(net) for net in run.result.networks[1:]]},
        "coverage": [r["coverage"] for r in rows],
        "p": cfg.p,
        "k": cfg.k,
    }
    details = {
        "per_seed": rows,
        "gamma_star": gamma,
        "n_train": int(run.train_indices.size),
        "n_test": int(run.test_indices.size),
        "full_data_comparison": _comparison(cfg, ctx),
        "coverage_per_seed": [r["coverage"] for r in rows],
        "train_wall_s": run.result.wall_time,
    }
    return Observation(value=[r["median_purity"] for r in rows], details=details, artifacts=artifacts, seeds=seeds)


def _keep(obs: Observation, keys: tuple[str, ...], plots: tuple[str, ...]) -> Observation:
    """The shared observation with only the figures one claim shows (the run is shared, the figures are not)."""
    art = {k: v for k, v in obs.artifacts.items() if k in keys}
    art["plots"] = [p for p in obs.artifacts["plots"] if p["name"] in plots]
    return Observation(obs.value, obs.details, obs.counterexample, art, obs.seeds)


def observe_fig41(cfg: PolySplitConfig, ctx: RunContext) -> Observation:
    """:func:`observe_split` with Fig. 4.1's figures: neuron values and spectra, train/test accuracy."""
    return _keep(observe_split(cfg, ctx), ("spectra", "p", "k"), ("accuracy",))


def observe_fig42(cfg: PolySplitConfig, ctx: RunContext) -> Observation:
    """:func:`observe_split` with Fig. 4.2's figures: dominant frequencies, purity at init and after training."""
    obs = _keep(observe_split(cfg, ctx), ("coverage", "p", "k"), ("purity",))
    return Observation(obs.details["coverage_per_seed"], obs.details, obs.counterexample, obs.artifacts, obs.seeds)


def predict_purity(cfg: PolySplitConfig) -> sympy.Expr:
    """The purity of a Lemma 4.10 block (a single-frequency cosine): 1, from its exact DFT."""
    return tmt.single_frequency_purity(cfg.p, 1)


def predict_coverage(cfg: PolySplitConfig) -> list[int]:
    """The frequencies 1..(p-1)/2, each used by some neuron (Lemma 4.11 / C.20)."""
    return tmt.covered_frequencies(cfg.p)


def _purity_vs_prediction(predicted: Any, row: dict[str, Any], config: Any) -> dict[str, Any]:
    """A seed's median purity over the predicted purity of a Lemma 4.10 block (1)."""
    return {"purity_over_predicted": float(row["median_purity"]) / as_float(predicted)}


def _frequencies_vs_prediction(predicted: Any, row: dict[str, Any], config: Any) -> dict[str, Any]:
    """Whether the frequencies that dominate a significant neuron of this seed are exactly the predicted ones
    (Lemma 4.11: every frequency 1..(p-1)/2); a predicted entry that is not a frequency of Z_p is never used."""
    used = {f for f, c in enumerate(row["coverage"], start=1) if c > 0}
    named = [as_float(f) for f in flatten(predicted)]
    named_set = {int(f) for f in named if float(f).is_integer()}
    return {"frequencies_as_predicted": len(named_set) == len(named) and named_set == used}


FIG41_JUDGE = PerSeedDerived(
    (
        Check("test_accuracy", "test-half accuracy", lo="min_test_accuracy"),
        Check("purity_over_predicted", "median purity of significant neurons / predicted purity", lo="min_purity"),
    ),
    headline="median_purity",
    rule=RULE,
    derive=_purity_vs_prediction,
)

FIG42_JUDGE = PerSeedDerived(
    (
        Check(
            "frequencies_as_predicted",
            "the frequencies that dominate a significant neuron are the predicted 1..(p-1)/2",
            truthy=True,
        ),
        Check("purity_gain", "median purity gain over initialisation", lo="min_purity_gain"),
        Check("margin_ratio", "normalized margin on all p^k points / gamma* (Thm 4.9 upper bound)", hi=1 + 1e-9),
    ),
    headline="purity_gain",
    rule=RULE,
    derive=_frequencies_vs_prediction,
)

#: (k, p) of the thesis's runs with the figures they make: Figs. 4.1/4.2 and C.1-C.4.
THESIS_RUNS = {4: (47, "Figs. 4.1, 4.2"), 3: (97, "Figs. C.1, C.2"), 5: (23, "Figs. C.3, C.4")}


def _full(k: int) -> PolySplitConfig:
    p = THESIS_RUNS[k][0]
    return PolySplitConfig(p, k, tmt.required_width(p, k), _thesis_adamw(), min_purity=0.9)


#: Quick scale: k = 2, p = 23, width 88, 8 seeds (one batched ensemble; the population's power is 0.943). AdamW with
#: App. C.10.1's lr, betas and warm-up, but weight decay 1.0 instead of 0.005, the whole training half (264 points)
#: every step instead of batches of 1024, and 3000 steps: at 0.005 the network memorised the training half without
#: generalizing (test accuracy 0.0-0.2 at p = 11 and 23 after 3000 steps); docs/modular_transformer.md records the
#: search.
QUICK = PolySplitConfig(
    23,
    2,
    tmt.required_width(23, 2),
    _thesis_adamw(
        steps=3000,
        weight_decay=1.0,
        batch_size=None,
        seeds=tuple(range(8)),
        eval_every=250,
        num_threads=1,
        nan_check_every=1,
    ),
    compare=_toolkit_full_data(23),
)


#: The quick setting's deviations from App. C.10.1 (the full setting has none besides sizes).
QUICK_DEVIATIONS = (
    Deviation(
        "weight decay",
        "0.005 (App. C.10.1, 'regularization strength')",
        "1.0",
        "at 0.005 the quick network memorised the training half without generalizing (test accuracy 0.00-0.03 at "
        "p = 11, 0.01-0.02 at p = 23 after 3000 steps)",
    ),
    Deviation(
        "batch",
        "1024 points drawn from the training half (App. C.10.1)",
        "the whole training half (264 points) each step",
        "the training half at p = 23 is smaller than one batch of 1024",
    ),
    Deviation(
        "(k, p)",
        "(4, 47) (Figs. 4.1, 4.2; Figs. C.1-C.4: (3, 97) and (5, 23))",
        "(2, 23)",
        "the task's degree and modulus set the activation z^k and the width 2^(2k-2)(p-1): at (4, 47), 2944 neurons "
        "over half of 47^4 points take about 8 h of CPU by the plan (the full scale); (2, 23) trains 8 seeds in minutes",
    ),
)

#: Thresholds and settings of the polynomial claims chosen after seeing results (PolySplitConfig).
POST_HOC = (
    PostHoc(
        "min_test_accuracy",
        "0.99",
        "when the claim was written, after the prototype (k = 2, p = 23, weight decay 1.0) reached 1.0 on both seeds",
        "the network has learned the task: at most 2 of 265 test points wrong",
    ),
    PostHoc(
        "min_purity",
        "0.85 (0.9 at full scale)",
        "after the prototype runs had shown median purity 0.90-0.91",
        "close to the single-frequency purity 1 with room for the squared-L2 decay's impurity",
    ),
    PostHoc(
        "min_purity_gain",
        "0.5",
        "when the claim was written, after the trained purities were known",
        "training moves the median neuron more than half way from a random block to a cosine",
    ),
    PostHoc(
        "weight decay (quick)",
        "1.0",
        "after 0.005 had not generalized at p = 11 and 23",
        "the smallest tried value at which the quick network generalized",
    ),
)


#: The variant at the source's hyper-parameters (issue 29, item 5; docs/modular_transformer.md, "At the source's
#: weight decay"): the quick sizes, steps and seeds with App. C.10.1's weight decay 0.005 restored; only the batch
#: still differs (the training half is smaller than one batch). No full-data comparison run (the original has it).
SOURCE_HPARAMS_QUICK = replace(QUICK, train=QUICK.train.replace(weight_decay=5e-3), compare=None)

#: Why the variant's quick verdict is reported, not presumed.
SOURCE_HPARAMS_WHY = (
    "the original's quick setting raises the weight decay from App. C.10.1's 0.005 to 1.0 because at 0.005 the quick "
    "network had memorised the training half without generalizing; this variant reports, before any claim about it, "
    "whether the phenomenon at the quick sizes depends on that change"
)


def _register(
    suffix: str,
    configs: dict[str, PolySplitConfig],
    deviations: dict[str, tuple[Deviation, ...]] | None = None,
    post_hoc: tuple[PostHoc, ...] = POST_HOC,
    **variant: Any,
) -> None:
    figs = ", ".join(dict.fromkeys(THESIS_RUNS[c.k][1] for c in configs.values() if c.k in THESIS_RUNS))
    if deviations is None:
        deviations = {"quick": QUICK_DEVIATIONS} if "quick" in configs else {}
    original = suffix.removesuffix("-source-hparams")
    register(
        Claim(
            id=f"shi-fig4.1-split-single-frequency{suffix}",
            source=f"{SHI}, Sec. 4.5, {figs or 'Fig. 4.1'} (Lemma 4.10); App. C.10.1-C.10.2",
            statement="Trained on half of the k-sum mod p data (AdamW, App. C.10.1) at width 2^{2k-2}(p-1), the "
            "network generalizes to the other half and its neurons are single-frequency cosines: per seed, test-half "
            "accuracy >= min_test_accuracy and the median purity (maximum normalized power) of the significant "
            "neurons' input blocks is at least min_purity times the predicted purity of a cosine block (1). "
            "Population rule: p0 = 1/2 (the figures show what a trained network typically does), power against "
            "p_alt = 0.95.",
            kind="training",
            configs=configs,
            predict=predict_purity,
            observe=observe_fig41,
            judge=FIG41_JUDGE,
            deviations=deviations or None,
            post_hoc=post_hoc,
            insensitive="the purity window [min_purity, 1] of the predicted purity 1 (0.85 at quick scale) lets a "
            "prediction 1 % off pass (the seeds' purities are 0.90-0.91); a prediction 10 % high fails",
            **({"variant_of": f"shi-fig4.1-split-single-frequency{original}"} if variant else {}),
            **variant,
        )
    )
    register(
        Claim(
            id=f"shi-fig4.2-split-coverage{suffix}",
            source=f"{SHI}, Sec. 4.5, {figs or 'Fig. 4.2'} (Lemma 4.11, Lemma C.20); App. C.10.1-C.10.2",
            statement="The same networks use exactly the predicted frequencies 1..(p-1)/2 (each dominates some "
            "significant neuron of the seed, and no other does), their purity rises far above its value at "
            "initialisation, and their normalized margin on all p^k points stays below gamma* (Theorem 4.9); "
            "compared with the toolkit's full-dataset training in details. Population rule: p0 = 1/2, power against "
            "p_alt = 0.95.",
            kind="training",
            configs=configs,
            predict=predict_coverage,
            observe=observe_fig42,
            judge=FIG42_JUDGE,
            deviations=deviations or None,
            post_hoc=post_hoc,
            **({"variant_of": f"shi-fig4.2-split-coverage{original}"} if variant else {}),
            **variant,
        )
    )


_register("", {"quick": QUICK, "full": _full(4)})
_register("-k3", {"full": _full(3)})
_register("-k5", {"full": _full(5)})
_register(
    "-source-hparams",
    {"quick": SOURCE_HPARAMS_QUICK, "full": _full(4)},
    deviations={"quick": QUICK_DEVIATIONS[1:]},
    post_hoc=POST_HOC[:3],
    exploratory={"quick": SOURCE_HPARAMS_WHY},
    note="Variant of the claim without the suffix at App. C.10.1's weight decay 0.005 (the original's quick setting "
    "uses 1.0; its other quick settings, 8 seeds, 3000 steps, k = 2, p = 23, width 88, are kept). The full "
    "configuration is the original's, already at the source's hyper-parameters.",
)
