"""Negative controls of the modular-addition claims (docs/modular.md): cases where the theory predicts a deviation,
so a metric that always said "as predicted" would be caught.

Edelman thesis Fig. 7.1a / 7.4b: a one-hidden-layer ReLU network with L2 regularisation, trained on mod-p
addition, is *not* single-frequency (the theory of Thm 7.7 covers only the quadratic network, whose max-margin
neurons are single-frequency); the thesis's figure shows a largest Fourier power share of about 0.9. The purity
metric that certifies the quadratic networks (:func:`numerics.spectra.purity`, single-frequency at >= 0.99) must
report the ReLU network below that threshold.

Edelman thesis App. D.4: the "memorising" construction (two one-hot neurons per input pair) classifies every pair
correctly but its normalized margin is exactly below gamma*; the margin-ratio check that judges the trained networks
(:func:`verify.claims.training.margin_ratio_check` on :func:`verify.compare.compare_modular`) must report it below
gamma*, with the exact value of :func:`theory.modular.memorising_margin`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from numerics.modular import construction_network, memorising_network
from theory import modular as tm
from verify.checkpoint import plain
from verify.compare import compare_modular
from verify.modular_relu import ReluModularConfig, train_relu_modular

from ..base import Claim, Observation, RunContext, register
from ..judges import Check, Judge, MaxRel, PerSeed, Verdict
from ..training import margin_ratio_check, run_checkpointed
from .common import EDELMAN

#: The purity at which the quadratic-network claims call a neuron single-frequency (numerics.spectra).
SINGLE_FREQUENCY = 0.99


@dataclass(frozen=True)
class ReluControlConfig:
    """The ReLU run (:class:`verify.modular_relu.ReluModularConfig`) and the relative mass above which a neuron
    counts as significant."""

    relu: ReluModularConfig
    rel_mass: float = 1e-3


def _predict(cfg: ReluControlConfig) -> dict:
    """What theory says for the network it covers: the quadratic network's max-margin neurons are single-frequency
    (purity 1, Thm 7.7) at margin gamma*(p, 2); nothing is predicted for ReLU beyond the thesis's figure."""
    return {"quadratic_max_margin_neuron_purity": 1, "gamma_star_quadratic": tm.max_margin(cfg.relu.p, 2)}


def _observe(cfg: ReluControlConfig, ctx: RunContext) -> Observation:
    res = run_checkpointed(
        ctx,
        "relu_modular",
        plain(cfg.relu),
        lambda path: train_relu_modular(cfg.relu, device=ctx.device, progress=ctx.progress, checkpoint_path=path),
    )
    sig = res.significant(cfg.rel_mass)
    rows = []
    for s, seed in enumerate(res.seeds):
        pur = res.purity[s][sig[s]]
        rows.append(
            {
                "seed": seed,
                "train_accuracy": float(res.accuracy[s]),
                "fits": bool(res.accuracy[s] == 1.0),
                "max_purity": float(pur.max()),
                "median_purity": float(np.median(pur)),
                "single_frequency_fraction": float(np.mean(pur >= SINGLE_FREQUENCY)),
                "significant_neurons": int(sig[s].sum()),
            }
        )
    plot = {
        "name": "relu-purity",
        "kind": "hist",
        "bins": np.linspace(0.0, 1.0, 41).tolist(),
        "xlabel": "neuron purity (largest Fourier power share)",
        "ylabel": "significant neurons",
        "title": f"ReLU network, mod-{cfg.relu.p} addition, width {cfg.relu.width}, {len(res.seeds)} seeds",
        "series": [
            {"label": f"seed {seed}", "values": res.purity[s][sig[s]].tolist()} for s, seed in enumerate(res.seeds)
        ],
        "vlines": [{"x": SINGLE_FREQUENCY, "label": "single-frequency threshold"}],
    }
    return Observation(
        [r["max_purity"] for r in rows],
        details={"per_seed": rows, "history": res.history},
        artifacts={"plots": [plot]},
        seeds=res.seeds,
    )


register(
    Claim(
        id="edelman-fig7.1a-relu-not-single-frequency",
        source="Edelman thesis (2024), Fig. 7.1a and Fig. 7.4b (negative control of Thm 7.7; docs/modular.md)",
        statement="A one-hidden-layer ReLU network with L2 regularisation (AdamW weight decay) fits mod-p addition "
        "but its neurons are not single-frequency: in every seed no significant neuron reaches the purity 0.99 "
        "at which the quadratic-network claims call a neuron single-frequency (the thesis's figure shows a "
        "largest power share of about 0.9). The purity metric therefore can report a deviation.",
        kind="training",
        configs={
            "quick": ReluControlConfig(ReluModularConfig(p=23, width=64, seeds=(0, 1, 2), steps=3000)),
            "full": ReluControlConfig(ReluModularConfig(p=71, width=500, seeds=tuple(range(5)), steps=20_000)),
        },
        predict=_predict,
        observe=_observe,
        judge=PerSeed(
            (
                Check("fits", "fits every pair (train accuracy 1)", truthy=True),
                Check("max_purity", "largest neuron purity", hi=SINGLE_FREQUENCY),
            ),
            headline="max_purity",
            note="median purity and the single-frequency fraction reported",
        ),
    )
)


# --- Edelman thesis App. D.4: the memorising construction is below gamma*

#: Relative tolerance of the float64 margins against the exact values (sums of 2p^2 neuron norms; measured
#: errors about 2e-16, fixed before the run).
MEMORISING_RTOL = 1e-12


@dataclass(frozen=True)
class MemorisingConfig:
    """Moduli p (k = 2) at which the App. D.4 construction is built, with both scalings of
    :func:`theory.modular.memorising_scales`.

    ``min_ratio`` is the lower end of the margin-ratio check of the training claims
    (:func:`verify.claims.training.margin_ratio_check`, upper end 1 + 1e-9); here 1 - 1e-9, symmetric to the upper
    end, so the check says "at gamma*" only within float error and "below gamma*" otherwise (chosen before the run;
    the training claims' own thresholds, 0.95-0.99, are also reported). The 4(p-1)-neuron Fourier construction
    must pass the same check (so the check is not one that always says "below").
    """

    ps: tuple[int, ...]
    scalings: tuple[str, ...] = tm.MEMORISING_SCALINGS
    min_ratio: float = 1 - 1e-9
    training_min_ratio: float = 0.99


def _memorising_predict(cfg: MemorisingConfig) -> list[sympy.Expr]:
    """Per p and scaling: the exact normalized margin (Edelman App. D.4; theory.modular.memorising_margin), then
    its ratio to gamma*(p, 2)."""
    out = []
    for p in cfg.ps:
        for s in cfg.scalings:
            out += [tm.memorising_margin(p, s), tm.memorising_margin_ratio(p, s)]
    return out


def _memorising_observe(cfg: MemorisingConfig, ctx: RunContext) -> Observation:
    """Build each network from its definition (numerics.modular.memorising_network), evaluate its normalized
    margin over all p^2 inputs in float64 and run the trained networks' margin-ratio check on it."""
    check = margin_ratio_check("min_ratio").resolve(cfg)
    training_check = margin_ratio_check("training_min_ratio").resolve(cfg)
    values: list[float] = []
    rows: list[dict[str, Any]] = []
    for p in cfg.ps:
        fourier = compare_modular(construction_network(p, 2), p, 2)
        for s in cfg.scalings:
            alpha, beta = (float(x) for x in tm.memorising_scales(s))
            comp = compare_modular(memorising_network(p, alpha, beta), p, 2)
            values += [comp.normalized_margin, comp.margin_ratio]
            row = {"margin_ratio": comp.margin_ratio}
            rows.append(
                {
                    "p": p,
                    "scaling": s,
                    "alpha": alpha,
                    "beta": beta,
                    "neurons": 2 * p * p,
                    "normalized_margin": comp.normalized_margin,
                    "gamma_star": comp.gamma_star,
                    "margin_ratio": comp.margin_ratio,
                    "accuracy": comp.accuracy,
                    "single_frequency_share": comp.single_frequency_share,
                    "check": check.problem(row) or "at gamma*",
                    "training_check": training_check.problem(row) or "passes",
                    "fourier_construction_ratio": fourier.margin_ratio,
                    "fourier_construction_check": check.problem({"margin_ratio": fourier.margin_ratio}) or "at gamma*",
                }
            )
    below = all(r["check"] != "at gamma*" and r["margin_ratio"] < 1 and r["accuracy"] == 1.0 for r in rows)
    control = all(r["fourier_construction_check"] == "at gamma*" for r in rows)
    plot = {
        "name": "memorising-margin-ratio",
        "kind": "lines",
        "xlabel": "p",
        "ylabel": "normalized margin / gamma*",
        "title": "Edelman App. D.4 memorising construction vs the Fourier construction (k = 2)",
        "series": [
            {
                "label": f"memorising, {s}",
                "x": list(cfg.ps),
                "y": [r["margin_ratio"] for r in rows if r["scaling"] == s],
            }
            for s in cfg.scalings
        ]
        + [
            {
                "label": "Fourier construction",
                "x": list(cfg.ps),
                "y": [r["fourier_construction_ratio"] for r in rows[:: len(cfg.scalings)]],
            }
        ],
        "hlines": [{"y": 1.0, "label": "gamma*"}],
    }
    return Observation(
        values,
        details={
            "per_network": rows,
            "check": check.describe(),
            "memorising_all_below": below,
            "fourier_construction_at_gamma": control,
        },
        artifacts={"plots": [plot]},
    )


@dataclass(frozen=True)
class BelowGammaStar(Judge):
    """Negative control of the margin-ratio check: ``pass`` iff the float64 margins and ratios agree with the exact
    values under ``values`` (a :class:`MaxRel`), every memorising network fits every pair and is reported below
    gamma* by the training claims' margin-ratio check, and the Fourier construction is reported at gamma* by the
    same check. Its perturbation is that of ``values`` (the exact values moved by 1 %)."""

    values: MaxRel

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = self.values(predicted, obs, config)
        rows, d = obs.details["per_network"], obs.details
        ratios = [r["margin_ratio"] for r in rows]
        reason += (
            f"; margin-ratio check ({d['check']}): memorising networks "
            f"{'all below gamma*' if d['memorising_all_below'] else 'NOT all below gamma*'} (ratios "
            f"{min(ratios):.4g}-{max(ratios):.4g}), Fourier construction "
            f"{'at gamma*' if d['fourier_construction_at_gamma'] else 'NOT at gamma*'}"
        )
        ok = d["memorising_all_below"] and d["fourier_construction_at_gamma"]
        return ("pass" if verdict == "pass" and ok else "fail"), reason

    def describe(self) -> str:
        return (
            f"margins and ratios: {self.values.describe()} of the exact values; the training claims' margin-ratio check "
            "reports every memorising network below gamma* and the Fourier construction at gamma*"
        )

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return self.values.perturb(predicted, obs)


register(
    Claim(
        id="edelman-appD4-memorising-margin",
        source=f"{EDELMAN}, App. D.4 (alternative construction), against Theorem 7.7; docs/modular.md",
        statement="The memorising network of App. D.4 (two one-hot neurons per input pair, 2p^2 neurons) classifies "
        "every pair of mod-p addition correctly, but its normalized L_(2,3) margin is exactly below gamma*(p): "
        "1/(2p^2 (33/16)^(3/2)) with the printed scales and 2/(3 sqrt(3) p^2) with the best rescaling, i.e. "
        "sqrt(2)(p-1)/p^(3/2) < 1 of gamma*; the margin-ratio check of the training claims reports it below gamma* "
        "(negative control) and the Fourier construction at gamma*.",
        kind="numeric",
        configs={
            "quick": MemorisingConfig(ps=(3, 5, 7, 11, 23)),
            "full": MemorisingConfig(ps=(3, 5, 7, 11, 13, 23, 71, 97)),
        },
        predict=_memorising_predict,
        observe=_memorising_observe,
        judge=BelowGammaStar(MaxRel(MEMORISING_RTOL)),
    )
)
