"""Sparse parity, maximum margin (Edelman thesis Ch. 7, Theorem 7.8, App. D.7): the degree-k network on
(n, k)-sparse parity has maximum normalized L_{2,k+1} margin gamma*(k) = sqrt(2) k! (k+1)^(-(k+1)/2), attained by
2^(k-1) neurons supported on S; trained networks approach it (Theorem 7.1).

Every predicted value comes from :mod:`theory.parity`; observations from exact expansions, float64 forward
passes over all 2^n inputs, the dictionary LP, a sum-of-squares relaxation (``docs/certificates.md``), multi-start
optimisation and training. The
thesis's parity typos (a garbled product index, the "epsilon_1 = 1" pair-flip argument, "quadratic" for the
quartic network) change no number, so no claim refutes them (``docs/parity.md``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from numerics.certificates import certify_parity, solve_dictionary_lp
from numerics.margins import HomogeneousNetwork, evaluate
from numerics.parity import SparseParityTask, construction_network, random_network
from numerics.single_neuron import maximize_single_neuron
from theory import parity as tp
from verify.compare.parity import compare_parity
from verify.train.polynomial import TrainConfig

from .base import Claim, Observation, PostHoc, Resolution, RunContext, register
from .judges import (
    AtMost,
    CertifiedBracket,
    Check,
    ExactlyEqual,
    MaxRel,
    Population,
    RejectsWrongGamma,
    RelativeStepJudge,
    Verdict,
    as_floats,
    certificate_case,
    interval_observation,
)
from .training import MarginPerSeed, margin_ratio_check, train_for_claim

SRC = "Edelman thesis (2024)"
K = sympy.Symbol("k", positive=True, integer=True)
THM = f"{SRC}, Theorem 7.8 (App. D.7)"


@dataclass(frozen=True)
class CasesConfig:
    """(n, k) settings at which a statement is checked; S = the first k bits (WLOG by symmetry)."""

    nk: tuple[tuple[int, int], ...]
    extra_random: int = 0

    def supports(self) -> list[tuple[int, tuple[int, ...]]]:
        return [(n, tuple(range(k))) for n, k in self.nk]


def _gammas(nk: tuple[tuple[int, int], ...], repeat: int = 1) -> list[sympy.Expr]:
    """gamma*(k) for every (n, k), each repeated ``repeat`` times."""
    return [tp.max_margin(k) for _, k in nk for _ in range(repeat)]


# --- Theorem 7.8: the closed form, the expectation identity, the optimal neuron


def _identity_symbols(n: int) -> tuple[sympy.Symbol, ...]:
    return sympy.symbols(f"u0:{n}", real=True)


def _predict_margin(cfg: CasesConfig) -> list[sympy.Expr]:
    """gamma*(k) for symbolic k; k! prod_S u_j for each identity case; gamma*(k) for each optimal neuron."""
    values: list[sympy.Expr] = [tp.max_margin(K)]
    for n, k in cfg.nk:
        u = _identity_symbols(n)
        values.append(sympy.factorial(k) * sympy.Mul(*u[:k]))
    return values + [tp.max_margin(k) for _, k in cfg.nk]


def _observe_margin(cfg: CasesConfig, ctx: RunContext) -> Observation:
    """The formula as printed in Thm 7.8; E_x[(u^T x)^k chi_S(x)] by expansion with x_j^2 = 1 for symbolic u;
    the optimal neuron's expected margin by the same expansion, normalized by ||theta||^(k+1)."""
    values: list[sympy.Expr] = [tp.max_margin_spec_form(K)]
    for n, k in cfg.nk:
        values.append(tp.parity_expectation(_identity_symbols(n), tuple(range(k))))
    for n, S in cfg.supports():
        nr = tp.optimal_neuron(n, S)
        margin = tp.parity_expectation(nr.u, S) * (nr.w[0] - nr.w[1])
        values.append(margin / nr.norm_squared() ** sympy.Rational(len(S) + 1, 2))
    return Observation(
        values,
        details={"gamma_star": {f"k={k}": tp.max_margin(k) for k in range(1, 9)}, "cases": [list(c) for c in cfg.nk]},
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
            "quick": CasesConfig(((3, 1), (3, 2), (4, 3), (4, 4))),
            "full": CasesConfig(((3, 1), (4, 2), (5, 3), (5, 4), (6, 5))),
        },
        predict=_predict_margin,
        observe=_observe_margin,
        judge=ExactlyEqual(),
    )
)


# --- Theorem 7.8, App. D.7: the 2^(k-1)-neuron construction


def _observe_construction(cfg: CasesConfig, ctx: RunContext) -> Observation:
    """Per case, by a float64 forward pass over all 2^n inputs: min and max normalized margin, the norm power
    ||theta||^(k+1) divided by gamma* (1 predicted, so it is judged on the same scale), and the output
    coefficient c = f(x)/(chi_S(x) [1,-1]) at the point farthest from c*, divided by c*/gamma*."""
    values, per_case = [], []
    for n, S in cfg.supports():
        k = len(S)
        task = SparseParityTask(n, S)
        net = construction_network(n, S)
        rep = evaluate(net, task)
        x, _ = task.batch(0, task.n_points)
        c_star = float(tp.output_coefficient(k))
        g = float(tp.max_margin(k))
        sign = task.chi(x[:, 0, :])[:, None] * np.array([1.0, -1.0])
        coeff = net.logits(x) / sign
        worst = coeff.flat[int(np.argmax(np.abs(coeff - c_star)))]
        row = [rep.min_margin / rep.norm_power, rep.max_margin / rep.norm_power, rep.norm_power * g, worst * g / c_star]
        values += row
        per_case.append(
            {
                "n": n,
                "k": k,
                "width": net.width,
                "norm_power": rep.norm_power,
                "accuracy": rep.accuracy,
                "min_normalized": row[0],
                "max_normalized": row[1],
                "output_coefficient": float(worst),
            }
        )
    return Observation(
        values, details={"per_case": per_case, "order": "min, max, norm power x gamma*, output x gamma*/c*"}
    )


register(
    Claim(
        id="edelman-thm7.8-construction",
        source=f"{SRC}, App. D.7 (construction; docs/parity.md)",
        statement="The 2^(k-1) neurons lambda * (sigma/sqrt(k+1) on S, prod(sigma)/sqrt(k+1) [1,-1]/sqrt 2), sigma_1 = +1, "
        "lambda = 2^(-(k-1)/(k+1)), have ||theta||_{2,k+1}^{k+1} = 1, output (k!/sqrt 2)(k+1)^(-(k+1)/2) chi_S(x) [1,-1], "
        "and margin gamma*(k) at every x (min = max margin).",
        kind="numeric",
        configs={
            "quick": CasesConfig(((5, 2), (6, 3), (10, 4), (8, 5))),
            "full": CasesConfig(((5, 2), (6, 3), (10, 4), (8, 5), (12, 6))),
        },
        predict=lambda cfg: _gammas(cfg.nk, repeat=4),
        observe=_observe_construction,
        judge=MaxRel(1e-10),
    )
)


# --- Theorem 7.8 with Lemmas 7.2-7.4: the single-neuron maximum and its maximizers


@dataclass(frozen=True)
class SingleNeuronConfig:
    """Multi-start L-BFGS settings of the single-neuron claim."""

    nk: tuple[tuple[int, int], ...]
    n_starts: int = 20


@dataclass(frozen=True)
class SingleNeuronOptimum(RelativeStepJudge):
    """The numerical maximum over unit neurons equals the prediction to relative ``rtol`` (and never exceeds
    it); every maximizer has the predicted structure within ``structure_atol`` and obeys the sign rule
    (prod_S u_j)(w0 - w1) > 0. An optimizer that did not converge makes a shortfall ``inconclusive``, unless another
    case fails definitely (a value above the prediction, or a converged shortfall or structure error): ``fail``."""

    rtol: float
    structure_atol: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pred, got = as_floats(predicted), as_floats(obs.value)
        bad, notes, unconverged = [], [], False
        for g, v, c in zip(pred, got, obs.details["per_case"]):
            err = abs(v - g) / abs(g)
            d = c["deviations"]
            struct = max(d["abs_u"], d["off_support"], d["w"])
            case = f"(n,k)=({c['n']},{c['k']})"
            notes.append(
                f"{case}: rel err {err:.1e}, structure dev {struct:.1e}, {c['n_at_best']}/{c['n_starts']} starts at best"
            )
            if v > g * (1 + self.rtol):
                bad.append(f"{case}: single neuron beats the prediction ({v} > {g})")
            elif err > self.rtol or struct > self.structure_atol or d["sign_product"] <= 0:
                if not c["success"]:
                    unconverged = True
                    continue
                bad.append(
                    f"{case}: rel err {err:.2e}, structure deviation {struct:.2e}, sign product {d['sign_product']:.3g}"
                )
        if bad:  # a definite failure of one case is not undone by another case's unconverged optimizer
            return "fail", "; ".join(bad)
        if unconverged:
            return "inconclusive", "the optimizer did not converge: " + "; ".join(notes)
        return "pass", "; ".join(notes)

    def describe(self) -> str:
        return (
            f"value relative {self.rtol:g} (never above gamma*); maximizer structure absolute "
            f"{self.structure_atol:g} after normalization; sign rule"
        )


def _observe_single_neuron(cfg: SingleNeuronConfig, ctx: RunContext) -> Observation:
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


register(
    Claim(
        id="edelman-thm7.8-single-neuron",
        source=f"{THM}; Lemmas 7.2-7.4",
        statement="The maximum over unit neurons of E_x[psi] (uniform q, binary so tau is trivial) equals gamma*(k); every "
        "maximizer has |u_j| = 1/sqrt(k+1) on S, u = 0 off S, w = +-[1,-1]/sqrt(2(k+1)) and (prod_S u_j)(w0 - w1) > 0.",
        kind="numeric",
        configs={
            "quick": SingleNeuronConfig(((5, 2), (6, 3), (6, 4)), n_starts=12),
            "full": SingleNeuronConfig(((5, 2), (6, 3), (10, 4), (8, 5)), n_starts=30),
        },
        predict=lambda cfg: _gammas(cfg.nk),
        observe=_observe_single_neuron,
        judge=SingleNeuronOptimum(rtol=1e-8, structure_atol=1e-5),
    )
)


# --- Theorem 7.8 by a certificate that uses no closed form (Lemmas 7.2-7.4; docs/certificates.md)


@dataclass(frozen=True)
class CertificateConfig:
    """(n, k) cases of the certificate (S = the first k bits): multi-start count of the heuristic upper value,
    random neurons added to the LP dictionary (whose network is a second lower bound); ``deltas`` are the relative
    errors of the wrong gammas fed to the negative control."""

    nk: tuple[tuple[int, int], ...]
    n_starts: int = 8
    extra_random: int = 10
    deltas: tuple[float, ...] = (-1e-4, 1e-4)


def _observe_certificate(cfg: CertificateConfig, ctx: RunContext) -> Observation:
    """Per case: :func:`numerics.certificates.certify_parity` (construction forward pass; multi-start and SOS
    bounds on the single-neuron maximum under uniform q) and the LP over the construction's neurons plus random
    ones, whose recovered network is evaluated by the forward pass too."""
    per_case, uppers = [], []
    for i, (n, k) in enumerate(cfg.nk):
        S = tuple(range(k))
        task = SparseParityTask(n, S)
        net = construction_network(n, S)
        cert = certify_parity(n, k, n_starts=cfg.n_starts)
        extra = HomogeneousNetwork.concatenate([net, random_network(n, k, cfg.extra_random, seed=100 + i)])
        lp = solve_dictionary_lp(extra, task)
        uppers.append(cert.upper_rigorous)
        per_case.append(certificate_case({"n": n, "k": k}, cert, lp, task))
    return Observation(uppers, details={"per_case": per_case}, seeds=(0,))


register(
    Claim(
        id="edelman-thm7.8-certificate",
        source=f"{THM}; Lemmas 7.2-7.4 (max-min duality; docs/certificates.md)",
        statement="gamma*(k) is bracketed without its closed form: the construction's and the LP network's normalized "
        "margins (float64 forward pass over all 2^n inputs) from below, and from above the maximum over all unit neurons "
        "of the uniformly weighted single-neuron margin (binary, so tau is trivial), bounded rigorously by a "
        "sum-of-squares relaxation (sign-flip blocks); both ends equal gamma*(k).",
        kind="convex",
        configs={
            "quick": CertificateConfig(((5, 2), (6, 3), (7, 4))),
            "full": CertificateConfig(
                ((5, 2), (10, 2), (10, 3), (10, 4), (8, 5), (14, 3)), n_starts=20, extra_random=40
            ),
        },
        predict=lambda cfg: _gammas(cfg.nk),
        observe=_observe_certificate,
        judge=CertifiedBracket(1e-6),
    )
)


def _wrong_gammas(cfg: CertificateConfig) -> list[sympy.Expr]:
    """gamma*(k) (1 + delta) for every case and every delta: deliberately wrong predictions."""
    return [tp.max_margin(k) * (1 + sympy.nsimplify(d)) for _, k in cfg.nk for d in cfg.deltas]


def _observe_intervals(cfg: CertificateConfig, ctx: RunContext) -> Observation:
    """The certified interval [lower, rigorous upper] (and the heuristic value) of every case."""
    certs = [certify_parity(n, k, n_starts=cfg.n_starts) for n, k in cfg.nk]
    return interval_observation(certs, [list(c) for c in cfg.nk], cfg.deltas)


register(
    Claim(
        id="edelman-thm7.8-certificate-wrong-gamma",
        resolution=Resolution(
            rel=1.0,
            why="a negative control: the prediction is the list of deliberately wrong gammas, off gamma* by 1e-4 relative, that the certificate must reject; the certificate rejects them as well when they are moved, and only an error of 100 % changes the verdict (measured)",
        ),
        source=f"{THM} (negative control of edelman-thm7.8-certificate; docs/certificates.md)",
        statement="Negative control: the certificate rejects gamma*(k)(1 - 1e-4) (the construction's forward-pass margin is "
        "above it) and gamma*(k)(1 + 1e-4) (the rigorous SOS bound is below it).",
        kind="convex",
        configs={
            "quick": CertificateConfig(((5, 2), (6, 3))),
            "full": CertificateConfig(((10, 2), (10, 3), (10, 4), (8, 5)), n_starts=20),
        },
        predict=_wrong_gammas,
        observe=_observe_intervals,
        judge=RejectsWrongGamma(1e-6),
    )
)


# --- Theorem 7.8: no network beats gamma*


@dataclass(frozen=True)
class UpperBoundConfig:
    """Random networks per (n, k): Gaussian of widths 1..max_width, and perturbed constructions."""

    nk: tuple[tuple[int, int], ...]
    n_random: int = 30
    max_width: int = 50
    n_perturbed: int = 10


def _observe_upper_bound(cfg: UpperBoundConfig, ctx: RunContext) -> Observation:
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
        for _ in range(cfg.n_perturbed):  # near-optimal, the hardest case for the bound
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
    values = [c["max_ratio"] * float(tp.max_margin(c["k"])) for c in per_case]
    return Observation(values, details={"per_case": per_case, "worst": worst}, seeds=(0,))


register(
    Claim(
        id="edelman-thm7.8-upper-bound",
        source=THM,
        statement="No parity network of any width has normalized L_{2,k+1} margin above gamma*(k): Gaussian networks of widths "
        "1..50 and perturbations of the construction all stay at or below it.",
        kind="numeric",
        configs={
            "quick": UpperBoundConfig(((5, 2), (6, 3), (6, 4)), n_random=20, n_perturbed=10),
            "full": UpperBoundConfig(((5, 2), (6, 3), (10, 4), (8, 5)), n_random=100, n_perturbed=50),
        },
        predict=lambda cfg: _gammas(cfg.nk),
        observe=_observe_upper_bound,
        judge=AtMost(1e-9, relative=True),
    )
)


# --- Theorem 7.8 with Theorem 7.1: training approaches the max-margin parity network (Fig. 7.5)


@dataclass(frozen=True)
class ParityTrainingConfig:
    """Setting and thresholds of the parity training claim: every seed must reach ``min_ratio <= ratio <= 1 +
    1e-9``; its top ``2^{k-1}`` neurons, normalized, must match Thm 7.8 within ``structure_tol`` (|u_j| on S,
    off-support entries, w) and obey the sign rule.

    Where the thresholds come from (docs/parity.md, "Thresholds"). The thesis gives no number to compare with: Thm
    7.1 is a limit statement (lambda -> 0, t -> infinity) and Fig. 7.5b only shows the ratio approaching 1, so any
    finite-run lower bound is a judgment. All three were chosen with knowledge of results, not before a first run:

    * ``min_ratio = 0.98`` (full, the thesis's (10, 4), m = 40, 30 000 steps) was proposed in the notes of an
      independent reproduction of the same setting, beside that run's observed 0.9935 at 30 000 steps (0.981 at
      15 000, still rising), and adopted in the commit that added this claim; 0.98 leaves about 0.013 below that
      run. The repository's own full runs, first written down ten minutes after that commit, gave 0.9923-0.9932
      (whether they ran before the threshold was typed the record cannot tell).
    * ``min_ratio = 0.95`` (quick, (6, 3), m = 16; 10 000 steps until 2026-12-01, now 30 000) is the default carried
      over unchanged from the
      modular-addition training claim written earlier; no quick parity run is recorded before it was set, and the
      quick ratios (first written down with the full ones) were about 0.988 at 10 000 steps (0.9888 and 0.9881 on
      2026-11-26) and are 0.998-0.999 at 30 000. It guards "the margin approaches gamma*" only loosely.
    * ``structure_tol = 0.01`` (absolute, per normalized entry; the predicted entries are 1/sqrt(k+1), i.e. 0.5 at
      k = 3 and 0.447 at k = 4, and 0 off S) was proposed and adopted the same way, after that reproduction showed the
      top 2^(k-1) neurons at the predicted values to the three printed decimals. Quick runs gave 0.004-0.015 at
      10 000 steps (the tolerance decided about 15 % of seeds) and 0.0002-0.0009 at 30 000.

    The upper end 1 + 1e-9 is not a chosen threshold: Thm 7.8 makes gamma* an upper bound for every network, so
    only float rounding may exceed it."""

    n: int
    k: int
    width: int
    train: TrainConfig
    min_ratio: float = 0.95
    structure_tol: float = 0.01
    lp_reweighting: bool = True


#: Theorem 7.8 after training, per seed: margin ratio (normalized margin / predicted gamma*, computed by the judge) in
#: [config.min_ratio, 1 + 1e-9], the top 2^(k-1) neurons within config.structure_tol of the predicted normalized
#: neuron, and the sign rule. Population rule (docs/parity.md, "Verdict rule"): p0 = 0.5 (the thesis shows one run,
#: Fig. 7.5, and states no rate: "typically"), p_alt = 0.95; both scales run 24 seeds for 30 000 steps (the source's
#: steps): at 10 000 quick steps the structure tolerance failed 15 % of seeds and a fresh 16-seed set was inconclusive
#: with probability 0.08 (docs/parity.md, "Stability").
TRAINING_JUDGE = MarginPerSeed(
    (
        margin_ratio_check(),
        Check("max_structure_deviation", "top-neuron structure deviation", hi="structure_tol"),
        Check("sign_rule_holds", "sign rule", truthy=True),
    ),
    rule=Population(p0=0.5, p_alt=0.95),
)


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
    S = tuple(range(cfg.k))
    gamma = float(tp.max_margin(cfg.k))
    task = SparseParityTask(cfg.n, S)
    result = train_for_claim(task, cfg.k, cfg.width, cfg.train, ctx, f"parity_n{cfg.n}_k{cfg.k}", gamma)
    comps = [
        compare_parity(net, cfg.n, S, structure_tol=cfg.structure_tol, lp=cfg.lp_reweighting) for net in result.networks
    ]
    ratios = [c.margin_ratio for c in comps]
    seeds = tuple(result.config.seeds)  # the seeds that ran (RunOptions.seed_offset applied)
    details = {
        "gamma_star": gamma,
        "per_seed": [
            {"seed": s}
            | dataclasses.asdict(c)
            | {"max_structure_deviation": c.max_structure_deviation, "sign_rule_holds": c.sign_rule_holds}
            for s, c in zip(seeds, comps)
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
        | {"support": list(S), "abs_u_predicted": float(pred.abs_u), "w_entry_predicted": float(pred.w_entry)}
        | {"by_seed": [{}] + [_neuron_artifact(net, c.top_neurons) for net, c in zip(result.networks[1:], comps[1:])]},
    }
    return Observation(value=min(ratios) * gamma, details=details, artifacts=artifacts, seeds=seeds)


def _edelman_parity_gd(steps: int, seeds: tuple[int, ...], eval_every: int) -> TrainConfig:
    """Edelman App. D.2 / Fig. 7.5: full-batch GD, lr 0.1 constant, lambda = 1e-3 on ||theta||_{2,k+1}^{k+1}
    (regulariser exponent r = nu, docs/parity.md); init N(0, 1/n) for every weight."""
    return TrainConfig(
        steps=steps,
        lr=0.1,
        optimizer="sgd",
        lam=1e-3,
        seeds=seeds,
        eval_every=eval_every,
        num_threads=1,
        nan_check_every=50,
    )


register(
    Claim(
        id="edelman-thm7.8-training",
        source=f"{THM} with Theorem 7.1; Fig 7.5 (App. D.2 setting)",
        statement="Full-batch GD on CE + 1e-3 ||theta||_{2,k+1}^{k+1} typically drives the degree-k parity network's "
        "normalized margin to gamma*(k) = sqrt(2) k! (k+1)^(-(k+1)/2); its largest neurons have support S, |u_j| = "
        "||w|| = 1/sqrt(k+1) after normalization, w in span [1,-1], and (prod_S u_j)(w0 - w1) > 0. A seed succeeds "
        "when its normalized margin over the predicted gamma* is in [min_ratio, 1 + 1e-9] and its top neurons meet "
        "the structure; pass iff the success rate is at least 1/2 at 95 % confidence (p0 = 0.5: Fig. 7.5 shows one "
        "run).",
        kind="training",
        configs={
            "quick": ParityTrainingConfig(6, 3, 16, _edelman_parity_gd(30_000, tuple(range(24)), 1000), min_ratio=0.95),
            "full": ParityTrainingConfig(
                10,
                4,
                40,
                _edelman_parity_gd(30_000, tuple(range(24)), 1000).replace(checkpoint_every=5000),
                min_ratio=0.98,
            ),
        },
        predict=lambda cfg: tp.max_margin(cfg.k),
        observe=observe_parity_training,
        judge=TRAINING_JUDGE,
        # App. D.2.2: m = 40 on (10, 4)-parity, GD lr 0.1, 30 000 steps, L_(2,5) 1e-3; quick changes sizes only
        # (n, k, m), and the initialisation is not stated in the thesis
        deviations={"quick": (), "full": ()},
        resolution=Resolution(
            rel=0.06,
            why="the margin-ratio window [0.95, 1 + 1e-9] around quick seeds at 0.998-0.999 of gamma*: a gamma* 0.2 % "
            "low fails every seed, but one up to 5 % high leaves every ratio inside the window (docs/parity.md)",
        ),
        post_hoc=(
            PostHoc(
                "min_ratio (full)",
                "0.98",
                "2026-11-21, beside an independent reproduction's 0.9935 at 30 000 steps (0.981 at 15 000)",
                "about 0.013 below that run (ParityTrainingConfig, docs/parity.md)",
            ),
            PostHoc(
                "min_ratio (quick)",
                "0.95",
                "carried over from the modular claims; no quick parity run recorded before it",
                "guards 'approaches gamma*' loosely; quick seeds end at about 0.985-0.990",
            ),
            PostHoc(
                "structure_tol",
                "0.01 (absolute, per normalized entry)",
                "2026-11-21, after the reproduction showed the top neurons at the predicted values to 3 decimals",
                "at 10 000 quick steps seeds measured 0.004-0.015 and the tolerance decided some; at 30 000 they "
                "measure 0.0002-0.0009",
            ),
            PostHoc(
                "quick steps and seeds; full seeds",
                "quick 30 000 steps (the source's, App. D.2.2) and 24 seeds, was 10 000 and 16; full 24 seeds, was 8",
                "2026-12-01: 19 fresh sets of 16 quick seeds at 10 000 steps passed 258 of 304 seeds (0.85), and 1 set "
                "in 13 came out inconclusive; at 30 000 steps 40 of 40 seeds passed on each of 3 seed sets",
                "a fresh seed set must give the same verdict: at a rate of 0.85, 16 seeds miss 'pass' with "
                "probability 0.08; 24 seeds that all pass leave a predictive flip probability of 0.002 (0.21 for 8)",
            ),
        ),
    )
)
