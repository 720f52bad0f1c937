"""Claims of Edelman thesis Ch. 7 + App. D.7 for (n, k)-sparse parity (Theorem 7.8).

Spec: ``shared/spec/feature_emergence.md`` §1, §2, §4, §6 and §7 items 11-15. Every predicted value comes
from :mod:`theory.parity`. The spec's parity errata (§9 items 11-13) are typographic (a garbled product
index, a garbled "epsilon_1 = 1" and pair-flip argument, "quadratic" for the quartic network): none changes
a number, so no ``refuted`` claim is registered for them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import sympy

from theory import parity as tp
from verify.train import TrainConfig

from .base import Claim, Observation, RunContext, Verdict, judge_symbolic_zero, register
from .training import ratio_problem, train_for_claim, training_verdict

__all__ = [
    "Cases",
    "SingleNeuronConfig",
    "UpperBoundConfig",
    "ParityTrainingConfig",
    "observe_parity_training",
    "judge_parity_training",
]

SRC = "Edelman thesis (2024)"
K = sympy.Symbol("k", positive=True, integer=True)
THM = f"{SRC}, Theorem 7.8 (App. D.7)"


@dataclass(frozen=True)
class Cases:
    """(n, k) settings at which a statement is checked; S = the first k bits (spec §10 item 4)."""

    nk: tuple[tuple[int, int], ...]
    extra_random: int = 0

    def supports(self) -> list[tuple[int, tuple[int, ...]]]:
        return [(n, tuple(range(k))) for n, k in self.nk]


def _rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


# ----------------------------------------------------------------------------------------------------- margin


def _observe_margin(cfg: Cases, ctx: RunContext) -> Observation:
    residuals = [tp.max_margin(K) - tp.max_margin_spec_form(K)]
    residuals += [tp.expectation_identity_residual(n, k) for n, k in cfg.nk]
    for n, S in cfg.supports():
        k = len(S)
        nr = tp.optimal_neuron(n, S)
        residuals.append(
            tp.neuron_margin(nr.u, nr.w, S) / nr.norm_squared() ** sympy.Rational(k + 1, 2) - tp.max_margin(k)
        )
    return Observation(
        [sympy.simplify(r) for r in residuals],
        details={
            "gamma_star": {f"k={k}": tp.max_margin(k) for k in range(1, 9)},
            "identity_cases": [list(c) for c in cfg.nk],
        },
    )


register(
    Claim(
        id="edelman-thm7.8-margin",
        source=THM,
        statement="For the degree-k network on (n,k)-sparse parity with width >= 2^(k-1): gamma* = sqrt(2) k! (k+1)^(-(k+1)/2) "
        "= k! sqrt(2 (k+1)^(-(k+1))), independent of n; it rests on E_x[(u^T x)^k chi_S(x)] = k! prod_S u_j, and "
        "the optimal unit neuron (u = sigma/sqrt(k+1) on S, w = prod(sigma)/sqrt(k+1) [1,-1]/sqrt 2) attains it.",
        kind="symbolic",
        configs={
            "quick": Cases(((3, 1), (3, 2), (4, 3), (4, 4))),
            "full": Cases(((3, 1), (4, 2), (5, 3), (5, 4), (6, 5))),
        },
        predict=lambda cfg: tp.max_margin(K),
        observe=_observe_margin,
        judge=judge_symbolic_zero,
        tolerance="exact (sympy simplify of every residual == 0; the identity expanded with x_j^2 = 1 for symbolic u)",
    )
)


# ----------------------------------------------------------------------------------------------- construction


def _observe_construction(cfg: Cases, ctx: RunContext) -> Observation:
    from numerics.margins import evaluate
    from numerics.parity import SparseParityTask, construction_network

    per_case, values = [], []
    for n, S in cfg.supports():
        k = len(S)
        task = SparseParityTask(n, S)
        net = construction_network(n, S)
        rep = evaluate(net, task)
        x, _ = task.batch(0, task.n_points)
        F = net.logits(x)
        c = float(tp.output_coefficient(k))
        target = c * task.chi(x[:, 0, :])[:, None] * np.array([1.0, -1.0])
        out_err = float(np.abs(F - target).max()) / c
        values += [rep.min_margin / rep.norm_power, rep.max_margin / rep.norm_power]
        per_case.append(
            {
                "n": n,
                "k": k,
                "width": net.width,
                "norm_power": rep.norm_power,
                "min_normalized": rep.min_margin / rep.norm_power,
                "max_normalized": rep.max_margin / rep.norm_power,
                "gamma_star": float(tp.max_margin(k)),
                "output_rel_error": out_err,
                "accuracy": rep.accuracy,
            }
        )
    return Observation(values, details={"per_case": per_case})


def _judge_construction(predicted: object, obs: Observation, cfg: Cases) -> tuple[Verdict, str]:
    bad, worst = [], 0.0
    for c in obs.details["per_case"]:
        errs = [
            _rel(c["min_normalized"], c["gamma_star"]),
            _rel(c["max_normalized"], c["gamma_star"]),
            abs(c["norm_power"] - 1.0),
            c["output_rel_error"],
        ]
        worst = max(worst, *errs)
        if max(errs) > 1e-10:
            bad.append(f"(n,k)=({c['n']},{c['k']}): errors {errs}")
    reason = f"worst relative error {worst:.2e} over norm power, min and max margin, output (tolerance 1e-10)"
    return ("fail", reason + "; " + "; ".join(bad)) if bad else ("pass", reason)


register(
    Claim(
        id="edelman-thm7.8-construction",
        source=f"{SRC}, App. D.7 (construction; cleaned in spec §4.3)",
        statement="The 2^(k-1) neurons lambda * (sigma/sqrt(k+1) on S, prod(sigma)/sqrt(k+1) [1,-1]/sqrt 2), sigma_1 = +1, "
        "lambda = 2^(-(k-1)/(k+1)), have ||theta||_{2,k+1}^{k+1} = 1, output (k!/sqrt 2)(k+1)^(-(k+1)/2) chi_S(x) [1,-1], "
        "and margin gamma*(k) at every x (min = max margin).",
        kind="numeric",
        configs={
            "quick": Cases(((5, 2), (6, 3), (10, 4), (8, 5))),
            "full": Cases(((5, 2), (6, 3), (10, 4), (8, 5), (12, 6))),
        },
        predict=lambda cfg: [tp.max_margin(k) for _, k in cfg.nk],
        observe=_observe_construction,
        judge=_judge_construction,
        tolerance="relative 1e-10 (float64, no optimizer) for norm power, min and max normalized margin, and output",
    )
)


# ---------------------------------------------------------------------------------------------- single neuron


@dataclass(frozen=True)
class SingleNeuronConfig:
    """Multi-start L-BFGS settings of the single-neuron claim."""

    nk: tuple[tuple[int, int], ...]
    n_starts: int = 20
    rtol: float = 1e-8
    structure_atol: float = 1e-5


def _observe_single_neuron(cfg: SingleNeuronConfig, ctx: RunContext) -> Observation:
    from numerics.parity import SparseParityTask
    from numerics.single_neuron import maximize_single_neuron

    per_case, values = [], []
    for n, k in cfg.nk:
        S = tuple(range(k))
        task = SparseParityTask(n, S)
        res = maximize_single_neuron(task, k, n_starts=cfg.n_starts, seed=0)
        dev = tp.structural_prediction(n, S).deviations(res.network.U[0, 0], res.network.W[0])
        values.append(res.value)
        per_case.append(
            {
                "n": n,
                "k": k,
                "value": res.value,
                "gamma_star": float(tp.max_margin(k)),
                "n_at_best": res.n_at_best,
                "n_starts": res.n_starts,
                "success": res.success,
                "grad_norm": res.grad_norm,
                "deviations": dev,
                "u": res.network.U[0, 0].tolist(),
                "w": res.network.W[0].tolist(),
            }
        )
    return Observation(values, details={"per_case": per_case}, seeds=(0,))


def _judge_single_neuron(predicted: object, obs: Observation, cfg: SingleNeuronConfig) -> tuple[Verdict, str]:
    bad, notes = [], []
    for c in obs.details["per_case"]:
        err = _rel(c["value"], c["gamma_star"])
        d = c["deviations"]
        struct = max(d["abs_u"], d["off_support"], d["w"])
        notes.append(
            f"(n,k)=({c['n']},{c['k']}): rel err {err:.1e}, structure dev {struct:.1e}, {c['n_at_best']}/{c['n_starts']} starts at best"
        )
        if c["value"] > c["gamma_star"] * (1 + cfg.rtol):
            bad.append(f"(n,k)=({c['n']},{c['k']}): single neuron beats gamma* ({c['value']} > {c['gamma_star']})")
        elif err > cfg.rtol or struct > cfg.structure_atol or d["sign_product"] <= 0:
            if not c["success"]:
                return "inconclusive", "the optimizer did not converge: " + "; ".join(notes)
            bad.append(
                f"(n,k)=({c['n']},{c['k']}): rel err {err:.2e}, structure deviation {struct:.2e}, sign product {d['sign_product']:.3g}"
            )
    return ("fail", "; ".join(bad)) if bad else ("pass", "; ".join(notes))


register(
    Claim(
        id="edelman-thm7.8-single-neuron",
        source=f"{THM}; spec §2.5(A), §4.2",
        statement="The maximum over unit neurons of E_x[psi] (uniform q, binary so tau is trivial) equals gamma*(k); every "
        "maximizer has |u_j| = 1/sqrt(k+1) on S, u = 0 off S, w = +-[1,-1]/sqrt(2(k+1)) and (prod_S u_j)(w0 - w1) > 0.",
        kind="numeric",
        configs={
            "quick": SingleNeuronConfig(((5, 2), (6, 3), (6, 4)), n_starts=12),
            "full": SingleNeuronConfig(((5, 2), (6, 3), (10, 4), (8, 5)), n_starts=30),
        },
        predict=lambda cfg: [tp.max_margin(k) for _, k in cfg.nk],
        observe=_observe_single_neuron,
        judge=_judge_single_neuron,
        tolerance="value: relative 1e-8 (never above gamma*); maximizer structure: absolute 1e-5 after normalization; sign rule",
    )
)


# ----------------------------------------------------------------------------------------------- certificate


def _observe_certificate(cfg: Cases, ctx: RunContext) -> Observation:
    from numerics.certificates import certify, solve_dictionary_lp
    from numerics.margins import HomogeneousNetwork
    from numerics.parity import SparseParityTask, construction_network, random_network

    per_case, values = [], []
    for i, (n, S) in enumerate(cfg.supports()):
        k = len(S)
        task = SparseParityTask(n, S)
        net = construction_network(n, S)
        lp = solve_dictionary_lp(net, task)
        cert = certify(task, k, net, upper_closed_form=tp.max_margin(k))
        row = {
            "n": n,
            "k": k,
            "gamma_star": float(tp.max_margin(k)),
            "lp_value": lp.value,
            "dual_value": lp.dual_value,
            "achieved_margin": lp.achieved_margin,
            "lp_certified": lp.is_certified(rtol=1e-8),
            "solver": lp.solver,
            "mu": lp.mu.tolist(),
            "bracket": [cert.lower, cert.upper],
            "bracket_certified": cert.certified,
        }
        if cfg.extra_random:
            extra = HomogeneousNetwork.concatenate([net, random_network(n, k, cfg.extra_random, seed=100 + i)])
            row["lp_value_with_random"] = solve_dictionary_lp(extra, task).value
        values.append(lp.value)
        per_case.append(row)
    return Observation(values, details={"per_case": per_case})


def _judge_certificate(predicted: object, obs: Observation, cfg: Cases) -> tuple[Verdict, str]:
    bad, worst = [], 0.0
    for c in obs.details["per_case"]:
        g = c["gamma_star"]
        errs = [_rel(c["lp_value"], g), _rel(c["dual_value"], g), _rel(c["achieved_margin"], g)]
        worst = max(worst, *errs)
        if max(errs) > 1e-8 or not c["lp_certified"] or not c["bracket_certified"]:
            bad.append(f"(n,k)=({c['n']},{c['k']}): LP {c['lp_value']}, dual {c['dual_value']}, gamma* {g}")
        if "lp_value_with_random" in c and c["lp_value_with_random"] > g * (1 + 1e-8):
            bad.append(
                f"(n,k)=({c['n']},{c['k']}): random extra neurons raise the LP to {c['lp_value_with_random']} > gamma*"
            )
    reason = f"worst relative error of LP value, dual bound and recovered margin {worst:.1e} (tolerance 1e-8)"
    return ("fail", reason + "; " + "; ".join(bad)) if bad else ("pass", reason)


register(
    Claim(
        id="edelman-thm7.8-certificate",
        source=f"{THM}; Lemmas 7.2-7.4, spec §2.5(B)",
        statement="With q* uniform (binary case, trivial tau), the LP over the 2^(k-1) construction neurons has value gamma*(k) "
        "and its dual certifies it (duality gap ~ 0); adding random neurons to the dictionary does not raise the value.",
        kind="convex",
        configs={
            "quick": Cases(((5, 2), (6, 3), (7, 4)), extra_random=10),
            "full": Cases(((5, 2), (6, 3), (10, 4), (8, 5)), extra_random=40),
        },
        predict=lambda cfg: [tp.max_margin(k) for _, k in cfg.nk],
        observe=_observe_certificate,
        judge=_judge_certificate,
        tolerance="relative 1e-8 for the LP value, its dual bound and the recovered network's margin; certified gap",
    )
)


# ----------------------------------------------------------------------------------------------- upper bound


@dataclass(frozen=True)
class UpperBoundConfig:
    """Random networks per (n, k): Gaussian of widths 1..max_width, and perturbed constructions."""

    nk: tuple[tuple[int, int], ...]
    n_random: int = 30
    max_width: int = 50
    n_perturbed: int = 10


def _observe_upper_bound(cfg: UpperBoundConfig, ctx: RunContext) -> Observation:
    from numerics.margins import HomogeneousNetwork, evaluate
    from numerics.parity import SparseParityTask, construction_network, random_network

    rng = np.random.default_rng(0)
    worst: dict = {"ratio": -np.inf}
    per_case = []
    for n, k in cfg.nk:
        S = tuple(range(k))
        task = SparseParityTask(n, S)
        g = float(tp.max_margin(k))
        best = -np.inf
        base = construction_network(n, S)
        nets = [
            ("gaussian", random_network(n, k, int(rng.integers(1, cfg.max_width + 1)), seed=int(rng.integers(2**31))))
            for _ in range(cfg.n_random)
        ]
        for j in range(cfg.n_perturbed):  # near-optimal, the hardest case for the bound
            eps = 10.0 ** -rng.uniform(1, 6)
            nets.append(
                (
                    "perturbed",
                    HomogeneousNetwork(
                        base.U + eps * rng.standard_normal(base.U.shape),
                        base.W + eps * rng.standard_normal(base.W.shape),
                        k,
                    ),
                )
            )
        for kind, net in nets:
            r = evaluate(net, task).normalized_margin / g
            best = max(best, r)
            if r > worst["ratio"]:
                worst = {"ratio": r, "n": n, "k": k, "kind": kind, "width": net.width}
        per_case.append({"n": n, "k": k, "max_ratio": best, "n_networks": len(nets)})
    return Observation(worst["ratio"], details={"per_case": per_case, "worst": worst}, seeds=(0,))


def _judge_upper_bound(predicted: object, obs: Observation, cfg: UpperBoundConfig) -> tuple[Verdict, str]:
    r = float(obs.value)
    w = obs.details["worst"]
    msg = f"largest normalized margin / gamma* = {r:.10f} ({w['kind']}, (n,k)=({w['n']},{w['k']}), width {w['width']})"
    return ("pass", msg) if r <= 1 + 1e-9 else ("fail", msg + " exceeds 1 + 1e-9")


register(
    Claim(
        id="edelman-thm7.8-upper-bound",
        source=f"{THM}; spec §7 item 14",
        statement="No parity network of any width has normalized L_{2,k+1} margin above gamma*(k): Gaussian networks of widths "
        "1..50 and perturbations of the construction all stay at or below it.",
        kind="numeric",
        configs={
            "quick": UpperBoundConfig(((5, 2), (6, 3), (6, 4)), n_random=20, n_perturbed=10),
            "full": UpperBoundConfig(((5, 2), (6, 3), (10, 4), (8, 5)), n_random=100, n_perturbed=50),
        },
        predict=lambda cfg: 1,
        observe=_observe_upper_bound,
        judge=_judge_upper_bound,
        tolerance="ratio <= 1 + 1e-9",
    )
)


# ----------------------------------------------------------------------------------------------- training


@dataclass(frozen=True)
class ParityTrainingConfig:
    """Setting and thresholds of the parity training claim (spec §6.1, §7 item 15).

    Every seed must reach ``min_ratio <= ratio <= 1 + 1e-9``; its top ``2^{k-1}`` neurons, normalized, must match
    Thm 7.8 within ``structure_tol`` (|u_j| on S, off-support entries, w) and obey the sign rule.
    """

    n: int
    k: int
    width: int
    train: TrainConfig
    min_ratio: float = 0.95
    structure_tol: float = 0.01
    lp_reweighting: bool = True


def _neuron_artifact(net, top: tuple[int, ...]) -> dict:  # type: ignore[no-untyped-def]
    norms = net.neuron_norms()
    return {
        "neurons": list(top),
        "u": (net.U[list(top), 0, :] / norms[list(top), None]).tolist(),
        "w": (net.W[list(top)] / norms[list(top), None]).tolist(),
        "norms": norms.tolist(),
    }


def observe_parity_training(cfg: ParityTrainingConfig, ctx: RunContext) -> Observation:
    """Train the seed ensemble on the (n, k) parity and compare every seed with Thm 7.8."""
    from numerics.parity import SparseParityTask
    from verify.compare.parity import compare_parity

    S = tuple(range(cfg.k))
    gamma = float(tp.max_margin(cfg.k))
    task = SparseParityTask(cfg.n, S)
    result = train_for_claim(task, cfg.k, cfg.width, cfg.train, ctx, f"parity_n{cfg.n}_k{cfg.k}", gamma)
    comps = [
        compare_parity(net, cfg.n, S, structure_tol=cfg.structure_tol, lp=cfg.lp_reweighting) for net in result.networks
    ]
    ratios = [c.margin_ratio for c in comps]
    details = {
        "device": str(result.device),
        "gamma_star": gamma,
        "per_seed": [
            dataclasses.asdict(c)
            | {"max_structure_deviation": c.max_structure_deviation, "sign_rule_holds": c.sign_rule_holds}
            for c in comps
        ],
        "train_wall_s": result.wall_time,
    }
    pred = tp.structural_prediction(cfg.n, S)
    artifacts = {
        "history": result.history,
        "gamma_star": gamma,
        "n": cfg.n,
        "k": cfg.k,
        "parity_neurons": _neuron_artifact(result.networks[0], comps[0].top_neurons)
        | {"support": list(S), "abs_u_predicted": float(pred.abs_u), "w_entry_predicted": float(pred.w_entry)},
    }
    return Observation(
        value=min(ratios) * gamma, details=details, artifacts=artifacts, seeds=tuple(result.config.seeds)
    )


def judge_parity_training(predicted: object, obs: Observation, cfg: ParityTrainingConfig) -> tuple[Verdict, str]:
    """Judge every seed on margin ratio, structure of the top neurons and the sign rule."""
    problems = []
    for s, c in enumerate(obs.details["per_seed"]):
        if msg := ratio_problem(s, c["margin_ratio"], cfg.min_ratio):
            problems.append(msg)
        if not c["max_structure_deviation"] <= cfg.structure_tol:
            problems.append(
                f"seed {s}: top-neuron structure deviation {c['max_structure_deviation']:.3g} > {cfg.structure_tol}"
            )
        if not c["sign_rule_holds"]:
            problems.append(f"seed {s}: sign rule violated (min sign product {c['min_sign_product']:.3g})")
    ratios = ", ".join(f"{c['margin_ratio']:.4f}" for c in obs.details["per_seed"])
    devs = ", ".join(f"{c['max_structure_deviation']:.1e}" for c in obs.details["per_seed"])
    summary = f"margin ratios {ratios}; top-neuron structure deviations {devs}"
    return training_verdict(summary, problems, "sign rule holds")


def _edelman_parity_gd(steps: int, seeds: tuple[int, ...], eval_every: int) -> TrainConfig:
    """Edelman App. D.2 / Fig 7.5: full-batch GD, lr 0.1 constant, lambda = 1e-3 on ||theta||_{2,k+1}^{k+1}
    (r = nu, spec §10 item 1); init N(0, 1/n) for every weight (spec §10 item 2)."""
    return TrainConfig(
        steps=steps, lr=0.1, optimizer="sgd", lam=1e-3, seeds=seeds, eval_every=eval_every, num_threads=1
    )


register(
    Claim(
        id="edelman-thm7.8-training",
        source=f"{THM} with Theorem 7.1; Fig 7.5 (App. D.2 setting)",
        statement="Full-batch GD on CE + 1e-3 ||theta||_{2,k+1}^{k+1} drives the degree-k parity network's normalized margin to "
        "gamma*(k) = sqrt(2) k! (k+1)^(-(k+1)/2); its largest neurons have support S, |u_j| = ||w|| = 1/sqrt(k+1) after "
        "normalization, w in span [1,-1], and (prod_S u_j)(w0 - w1) > 0.",
        kind="training",
        configs={
            "quick": ParityTrainingConfig(6, 3, 16, _edelman_parity_gd(10_000, (0, 1), 500), min_ratio=0.95),
            "full": ParityTrainingConfig(
                10, 4, 40, _edelman_parity_gd(30_000, (0, 1, 2), 1000).replace(checkpoint_every=5000), min_ratio=0.98
            ),
        },
        predict=lambda cfg: tp.max_margin(cfg.k),
        observe=observe_parity_training,
        judge=judge_parity_training,
        tolerance="per seed: ratio in [min_ratio, 1+1e-9] (quick 0.95, full 0.98); top 2^(k-1) neurons within 0.01 of the "
        "predicted normalized neuron; sign rule",
    )
)
