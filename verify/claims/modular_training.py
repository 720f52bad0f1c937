"""Training claims for modular addition, shared by Shi Ch. 4 (general k) and Edelman Ch. 7 (k = 2).

A run trains an ensemble of seeds of the k-input polynomial network on all p^k points with
CE + lambda ||theta||_{2,k+1}^{k+1} (Shi Def 4.1 with r = nu; Edelman Thm 7.1 / App. D.2) and compares
every seed's final weights with Shi Thm 4.9 through :func:`verify.compare.compare_modular`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from theory import modular as tm

from .base import Observation, RunContext, Verdict
from .training import ratio_problem, train_for_claim, training_verdict

__all__ = ["ModularTrainingConfig", "predict_modular_training", "observe_modular_training", "judge_modular_training"]


@dataclass(frozen=True)
class ModularTrainingConfig:
    """One training claim's setting and acceptance thresholds.

    ``train`` is a :class:`verify.train.TrainConfig`. Thresholds: every seed must reach
    ``min_ratio <= h/||theta||^{k+1}/gamma* <= 1 + 1e-9``, carry at least ``min_single_share`` of its
    norm in neurons whose blocks all have purity >= ``purity``, use every frequency, and have phase
    residuals below ``max_phase`` rad on its significant single-frequency neurons.
    """

    p: int
    k: int
    width: int
    train: object
    min_ratio: float = 0.95
    min_single_share: float = 0.95
    purity: float = 0.99
    max_phase: float = 0.1
    lp_reweighting: bool = True


def predict_modular_training(cfg: ModularTrainingConfig) -> object:
    """The predicted normalized margin gamma*(p, k) (Shi Thm 4.9)."""
    return tm.max_margin(cfg.p, cfg.k)


def _spectra_artifact(net, n_neurons: int = 6) -> dict:
    from numerics.spectra import neuron_diagnostics, one_sided_power

    diag = neuron_diagnostics(net)
    top = np.argsort(-diag.mass)[:n_neurons]
    return {
        "neurons": top.tolist(),
        "u1_power": one_sided_power(net.U[top, 0, :]).tolist(),
        "u1_values": net.U[top, 0, :].tolist(),
        "mass": diag.mass[top].tolist(),
        "purity_all": diag.min_purity.tolist(),
    }


def observe_modular_training(cfg: ModularTrainingConfig, ctx: RunContext) -> Observation:
    """Train the ensemble and measure every seed against the prediction."""
    from numerics.modular import ModularTask
    from verify.compare import compare_modular

    gamma = float(tm.max_margin(cfg.p, cfg.k))
    task = ModularTask(cfg.p, cfg.k)
    result = train_for_claim(task, cfg.k, cfg.width, cfg.train, ctx, f"modular_p{cfg.p}_k{cfg.k}", gamma)
    comps = [
        compare_modular(net, cfg.p, cfg.k, purity_threshold=cfg.purity, lp=cfg.lp_reweighting)
        for net in result.networks
    ]
    ratios = [c.margin_ratio for c in comps]
    details = {
        "device": str(result.device),
        "gamma_star": gamma,
        "per_seed": [dataclasses.asdict(c) | {"all_frequencies_used": c.all_frequencies_used} for c in comps],
        "train_wall_s": result.wall_time,
    }
    artifacts = {
        "history": result.history,
        "gamma_star": gamma,
        "p": cfg.p,
        "k": cfg.k,
        "spectra": _spectra_artifact(result.networks[0]),
        "coverage": [list(c.coverage) for c in comps],
    }
    return Observation(
        value=min(ratios) * gamma, details=details, artifacts=artifacts, seeds=tuple(result.config.seeds)
    )


def judge_modular_training(predicted: object, obs: Observation, cfg: ModularTrainingConfig) -> tuple[Verdict, str]:
    """Judge every seed on margin ratio, single-frequency share, coverage and phases."""
    problems = []
    for s, c in enumerate(obs.details["per_seed"]):
        if msg := ratio_problem(s, c["margin_ratio"], cfg.min_ratio):
            problems.append(msg)
        if c["single_frequency_share"] < cfg.min_single_share:
            problems.append(f"seed {s}: single-frequency share {c['single_frequency_share']:.3f}")
        if not c["all_frequencies_used"]:
            problems.append(f"seed {s}: frequency coverage {c['coverage']}")
        if not (c["max_phase_residual"] < cfg.max_phase):
            problems.append(f"seed {s}: phase residual {c['max_phase_residual']:.3g} rad")
    ratios = [c["margin_ratio"] for c in obs.details["per_seed"]]
    summary = f"margin ratios {', '.join(f'{r:.4f}' for r in ratios)}"
    return training_verdict(summary, problems, "structure as predicted")
