"""Negative controls of the modular-addition claims (docs/modular.md): cases where the theory predicts a deviation,
so a metric that always said "as predicted" would be caught.

Edelman thesis Fig. 7.1a / 7.4b: a one-hidden-layer ReLU network with L2 regularisation, trained on mod-p
addition, is *not* single-frequency (the theory of Thm 7.7 covers only the quadratic network, whose max-margin
neurons are single-frequency); the thesis's figure shows a largest Fourier power share of about 0.9. The purity
metric that certifies the quadratic networks (:func:`numerics.spectra.purity`, single-frequency at >= 0.99) must
report the ReLU network below that threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theory import modular as tm
from verify.modular_relu import ReluModularConfig, train_relu_modular

from ..base import Claim, Observation, RunContext, register
from ..judges import Check, PerSeed

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
    res = train_relu_modular(cfg.relu, device=ctx.device, progress=ctx.progress)
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
