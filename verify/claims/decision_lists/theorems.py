"""Theorems 4.3 and 4.4 of Karp thesis Ch. 4: the loss at initialisation, the proof algebra, the per-sequence
bounds on the directional derivative (with the statement errata as refuted claims), the scale of the constants,
and the delta of Assumptions 4.2-4.4 (docs/decision_lists.md).

Predictions come from :mod:`theory.decision_lists` (sympy, Fractions, 40-digit arithmetic); observations from the
torch model (:mod:`verify.decision_lists`), float64 numerics and Monte Carlo (:mod:`numerics.decision_lists`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy
import torch

from numerics import decision_lists as nd
from theory import decision_lists as td
from verify import decision_lists as vd

from ..base import Claim, Observation, RunContext, register
from ..judges import (
    AtLeast,
    AtMost,
    ExactlyEqual,
    ExactOrFloat,
    MaxAbs,
    MaxRel,
    RefutedIfDiffers,
    RefutedIfViolated,
    ZScore,
)
from .common import DOC, SRC, dyadic_matrix, to_float, uniform_law

# --- the loss at initialisation (proof of Theorem 4.3)


@dataclass(frozen=True)
class InitialLossConfig:
    """``(L, n, c)`` cases (the Fig. 4.1 task on ``Z_L`` when ``L > 60``, else a random task), ``sequences`` sampled
    per case for the model's loss, and the seed."""

    cases: tuple[tuple[int, int, int], ...] = ((200, 25, 0), (200, 25, 10), (200, 25, 1000), (8, 3, 20))
    sequences: int = 64
    seed: int = 0


def _loss_task(L: int, seed: int) -> td.DecisionListTask:
    return td.cyclic_task(L) if L > 2 * max(td.FIG41_SHIFTS) else td.random_task(L, 3, seed, min_length=1)


def _observe_initial_loss(cfg: InitialLossConfig, ctx: RunContext) -> Observation:
    rng = np.random.default_rng(cfg.seed)
    values, spread, below = [], 0.0, True
    for L, n, c in cfg.cases:
        task = _loss_task(L, cfg.seed)
        S = nd.sample_sequences(L, n, cfg.sequences, rng)
        with torch.no_grad():
            losses = vd.per_sequence_loss(
                torch.zeros((L, L), dtype=torch.float64),
                torch.tensor(c * nd.permutation_matrix(task)),
                torch.tensor(S),
                torch.tensor(nd.labels_array(task, S)),
            ).numpy()
        values.append(float(losses.mean()))
        spread = max(spread, float(losses.max() - losses.min()))
        below &= bool(losses.max() <= np.log(L) + 1e-12)
    return Observation(
        values, details={"max_spread_over_sequences": spread, "at_most_log_L": below, "cases": list(cfg.cases)}
    )


register(
    Claim(
        id="karp-ch4-initial-loss",
        source=f"{SRC}, proof of Theorem 4.3 (L_0 <= log L; exact value in {DOC})",
        statement="At W = 0, V = cP every sequence has loss L_0 = log(n + (L - n) e^{-c/n}) <= log L (equality at c = 0; "
        "-> log n as c grows): 4.95798 at (L, n, c) = (200, 25, 10), 3.21888 = log 25 at c = 1000.",
        kind="symbolic",
        configs={"quick": InitialLossConfig(), "full": InitialLossConfig(sequences=4096)},
        predict=lambda cfg: [td.initial_loss(L, n, c) for L, n, c in cfg.cases],
        observe=_observe_initial_loss,
        judge=ExactOrFloat(1e-12, relative=True, require="at_most_log_L"),
    )
)


# --- the algebra of Theorems 4.3 and 4.4


@dataclass(frozen=True)
class AlgebraConfig:
    """Which proof (``"4.3"`` or ``"4.4"``) and, for 4.4, which bound for ``s not in S`` enters the last step."""

    theorem: str = "4.3"
    s_notin_S_bound: str = "corrected"


def _algebra(cfg: AlgebraConfig) -> dict[str, tuple[sympy.Expr, sympy.Expr]]:
    return td.thm43_algebra() if cfg.theorem == "4.3" else td.thm44_algebra(cfg.s_notin_S_bound)


def _observe_algebra(cfg: AlgebraConfig, ctx: RunContext) -> Observation:
    steps = _algebra(cfg)
    return Observation([d for _, d in steps.values()], details={"steps": list(steps)})


register(
    Claim(
        id="karp-ch4-thm4.3-algebra",
        source=f"{SRC}, Theorem 4.3 and its proof",
        statement="With c = 4n^2 log L/delta and L_0 <= log L: delta' = P[s in S, p_k* <= 1/2n] <= 2n^2 log L/c = "
        "delta/2; (delta/2)(c/2n)(1/2n)(1 - 1/2n) = (2n-1) log L/(4n) >= log L/4 (excess (n-1) log L/(4n)); hence "
        "||grad L||^2 > log^2 L/(16M), while GD with eta = 1/lambda_max has min_t ||grad L_t||^2 <= 2 lambda L_0/T = "
        "log^2 L/(16M) at T = 32 M lambda_max/log L (sympy, every step).",
        kind="symbolic",
        configs={"quick": AlgebraConfig("4.3"), "full": AlgebraConfig("4.3")},
        predict=lambda cfg: [p for p, _ in _algebra(cfg).values()],
        observe=_observe_algebra,
        judge=ExactlyEqual(),
    )
)

register(
    Claim(
        id="karp-ch4-thm4.4-algebra",
        source=f"{SRC}, Theorem 4.4, its proof and Lemma 4.1 (with the proof's 6 eps/n for s not in S; {DOC})",
        statement="With c at (4 Lbar sqrt(M/eps) + 6eps/n)(10n^2/delta) + 4eps: c/2n - 2eps = (20 Lbar n/delta) sqrt(M/eps) "
        "+ 30eps/delta + 2eps/n - 2eps; P[s in S, p_k* <= 1/2n] <= (delta/20)(L_0/Lbar) sqrt(eps/M) <= delta/5 at "
        "eps <= 16M; -(1/2n)(1/4n)(c - 4eps)(4delta/5) + 6eps/n = -4 Lbar sqrt(M/eps) exactly; ||grad||^2 > 16 Lbar^2/eps; "
        "2 lambda L_0/T = 4 L_0 Lbar/eps at T = lambda eps/(2 Lbar); T eta = eps/(2 Lbar) (Lemma 4.1).",
        kind="symbolic",
        configs={"quick": AlgebraConfig("4.4"), "full": AlgebraConfig("4.4")},
        predict=lambda cfg: [p for p, _ in _algebra(cfg).values()],
        observe=_observe_algebra,
        judge=ExactlyEqual(),
    )
)


@dataclass(frozen=True)
class InstanceConfig:
    """A numeric instance of the proof's symbols (n, M, eps, Lbar, delta)."""

    n: int = 25
    M: int = 4
    eps: int = 1
    Lbar: int = 1
    delta: str = "1/1000"


def _subs(cfg: InstanceConfig) -> dict[sympy.Symbol, Any]:
    S = td.ALGEBRA_SYMBOLS
    return {
        S["n"]: cfg.n,
        S["M"]: cfg.M,
        S["eps"]: cfg.eps,
        S["Lbar"]: cfg.Lbar,
        S["L0"]: cfg.Lbar,
        S["delta"]: sympy.Rational(cfg.delta),
    }


def _observe_notin_printed(cfg: InstanceConfig, ctx: RunContext) -> Observation:
    printed_conclusion, chain = td.thm44_algebra("printed")["directional"]
    value = chain.subs(_subs(cfg))
    excess = sympy.simplify(chain - printed_conclusion)
    return Observation(
        [value],
        counterexample={
            "instance": {"n": cfg.n, "M": cfg.M, "eps": cfg.eps, "Lbar": cfg.Lbar, "delta": cfg.delta},
            "printed_conclusion": printed_conclusion.subs(_subs(cfg)),
            "chain_with_printed_6eps": value,
            "excess_over_conclusion": excess,
            "excess_value": excess.subs(_subs(cfg)),
        },
    )


register(
    Claim(
        id="karp-ch4-thm4.4-notin-S-printed",
        source=f"{SRC}, proof of Theorem 4.4 (bound for s not in S; erratum in {DOC})",
        statement="As printed: for s not in S, <grad_w L(W,V;s), v> <= 6 eps, and with it the proof's last step gives "
        "<grad_w L(W,V), v> < -4 Lbar sqrt(M/eps).",
        kind="symbolic",
        configs={"quick": InstanceConfig(), "full": InstanceConfig()},
        predict=lambda cfg: [td.thm44_algebra("printed")["directional"][0].subs(_subs(cfg))],
        observe=_observe_notin_printed,
        judge=RefutedIfDiffers(1e-12),
        refutes="Thm 4.4 proof: 'For any s not in S, <grad_w L(W,V;s), v> <= 6 eps', then (1)+(2)+(3) < -4 Lbar sqrt(M/eps)",
        corrected_by="karp-ch4-thm4.4-algebra",
    )
)


@dataclass(frozen=True)
class HorizonConfig:
    """The instance ``(L, n, c)`` at which ``L_0 < 1`` (``n = 2``: ``L_0 -> log 2`` as ``c`` grows)."""

    L: int = 8
    n: int = 2
    c: int = 20


def _observe_horizon(cfg: HorizonConfig, ctx: RunContext) -> Observation:
    L0 = td.initial_loss(cfg.L, cfg.n, cfg.c)
    t_eta = 1 / (2 * L0)  # T eta / eps with T = lambda eps / (2 L_0), eta = 1/lambda
    return Observation(
        [sympy.N(t_eta, 30)],
        counterexample={"L": cfg.L, "n": cfg.n, "c": cfg.c, "L_0": L0, "T_eta_over_eps": t_eta},
    )


register(
    Claim(
        id="karp-ch4-thm4.4-horizon-printed",
        source=f"{SRC}, Lemma 4.1 and the end of the proof of Theorem 4.4 (T written with the loss, not Lbar; {DOC})",
        statement="As printed in the proof: T = lambda_max eps/(2 L) with L the loss at initialisation gives T eta = "
        "eps/(2 L_0) <= eps/2 (Lemma 4.1).",
        kind="symbolic",
        configs={"quick": HorizonConfig(), "full": HorizonConfig()},
        predict=lambda cfg: [sympy.Rational(1, 2)],
        observe=_observe_horizon,
        judge=RefutedIfViolated(AtMost()),
        refutes="Lemma 4.1: T eta = (lambda_max eps/(2 L)) (1/lambda_max) = eps/(2 L) <= eps/2",
        corrected_by="karp-ch4-thm4.4-algebra",
    )
)


# --- Theorem 4.3: the directional derivative for s in S (exact) and s not in S (<= 0)


@dataclass(frozen=True)
class DirectionalConfig:
    """``draws`` random tasks (lists of length 1..``m``) on ``L`` tokens with dyadic ``W`` in ``[-scale, scale]``, the
    exact population of ``n``-subsets, ``V = cP``."""

    L: int = 8
    n: int = 3
    m: int = 3
    draws: int = 2
    scale: int = 1
    c: int = 3
    seed: int = 0


@lru_cache(maxsize=4)
def _directional_instances(cfg: DirectionalConfig) -> tuple[tuple[td.DecisionListTask, tuple], ...]:
    rng = random.Random(cfg.seed)
    out = []
    for i in range(cfg.draws):
        task = td.random_task(cfg.L, cfg.m, cfg.seed * 1000 + i, min_length=1)
        out.append((task, tuple(map(tuple, dyadic_matrix(cfg.L, cfg.scale, rng)))))
    return tuple(out)


@lru_cache(maxsize=4)
def _directional_exact(cfg: DirectionalConfig) -> tuple[list[dict[str, Any]], ...]:
    """Per instance, per sequence of S (every misclassified token): the exact derivative, p_k* and sigma_y."""
    out = []
    for task, W in _directional_instances(cfg):
        V = [[Fraction(cfg.c) if task.perm[k] == r else 0 for k in range(cfg.L)] for r in range(cfg.L)]
        rows = []
        for a, (k_star, seqs) in sorted(td.thm43_sets(task, W, cfg.n).items()):
            for s in seqs:
                p = td.attention_column(W, s, a)
                sigma = td.output_probs(V, p)
                d = td.directional_derivative_cp(cfg.c, cfg.n, task.perm, p, sigma, k_star, s)
                rows.append(
                    {"a": a, "s": s, "k_star": k_star, "d": d, "p": p[k_star], "sigma_y": sigma[task.perm[k_star]]}
                )
        out.append(rows)
    return tuple(out)


@lru_cache(maxsize=4)
def _directional_measured(cfg: DirectionalConfig) -> dict[str, Any]:
    """Autograd derivatives for the sequences of S (set by float classification), and the largest derivative
    over the other sequences containing a misclassified token."""
    values, in_rows, notin_max = [], [], -np.inf
    S = nd.subsets_array(cfg.L, cfg.n)
    for task, W in _directional_instances(cfg):
        Wf = to_float(W)
        V = cfg.c * nd.permutation_matrix(task)
        for a in range(cfg.L):
            info = nd.notin_S_directional(task, Wf, V, S, a)
            if info["k_star"] is None:
                continue
            lst = task.lists[a]
            v = np.zeros(cfg.L)
            v[list(lst[: lst.index(info["k_star"]) + 1])] = 1.0
            rows = S[(S == a).any(axis=1)]
            d = vd.directional_derivatives(task, Wf, V, rows, a, v)
            values += d[info["in_S"]].tolist()
            in_rows += [(a, tuple(r)) for r in rows[info["in_S"]].tolist()]
            if (~info["in_S"]).any():
                notin_max = max(notin_max, float(d[~info["in_S"]].max()))
    return {"values": values, "rows": in_rows, "notin_max": notin_max}


def _observe_directional(cfg: DirectionalConfig, ctx: RunContext) -> Observation:
    m = _directional_measured(cfg)
    exact = [r for rows in _directional_exact(cfg) for r in rows]
    same_sets = [(r["a"], tuple(r["s"])) for r in exact] == m["rows"]
    bound_ok = all(d <= -cfg.c / (2 * cfg.n) * float(r["p"]) * (1 - float(r["p"])) for d, r in zip(m["values"], exact))
    notin_ok = m["notin_max"] <= 1e-15
    return Observation(
        m["values"],
        details={
            "sequences_in_S": len(m["values"]),
            "same_sets_S_as_exact": same_sets,
            "in_S_bound_holds": bound_ok,
            "max_derivative_s_notin_S": m["notin_max"],
            "proof_inequalities_hold": same_sets and bound_ok and notin_ok,
        },
    )


register(
    Claim(
        id="karp-ch4-thm4.3-directional",
        source=f"{SRC}, proof of Theorem 4.3 (the bounds for s in S and s not in S; {DOC})",
        statement="With V = cP, for every misclassified token a (k* its earliest misclassified LDT, v the indicator of "
        "L_a up to k*): for s in S, <grad_w L(W;s), v> = -(c/n) p_k*[(1 - p_k*)(1 - sigma_y) + sum_{i in s, i != k*} "
        "sigma_pi(i) p_i] <= -(c/2n) p_k*(1 - p_k*) (exact value vs autograd at random W); for s not in S it is <= 0.",
        kind="numeric",
        configs={"quick": DirectionalConfig(), "full": DirectionalConfig(L=10, n=4, draws=6)},
        predict=lambda cfg: [float(r["d"]) for rows in _directional_exact(cfg) for r in rows],
        observe=_observe_directional,
        judge=MaxAbs(1e-12, require="proof_inequalities_hold"),
    )
)


def _observe_in_S_printed(cfg: DirectionalConfig, ctx: RunContext) -> Observation:
    m = _directional_measured(cfg)
    exact = [r for rows in _directional_exact(cfg) for r in rows]
    printed = [-cfg.c / 2 * float(r["p"]) * (1 - float(r["p"])) for r in exact]
    worst = int(np.argmax(np.array(m["values"]) - np.array(printed)))
    r = exact[worst]
    return Observation(
        m["values"],
        counterexample={
            "a": r["a"],
            "sequence": list(r["s"]),
            "k_star": r["k_star"],
            "c": cfg.c,
            "n": cfg.n,
            "p_k_star": float(r["p"]),
            "sigma_y": float(r["sigma_y"]),
            "directional_derivative": m["values"][worst],
            "printed_bound_eps_read_as_c": printed[worst],
            "corrected_bound_c_over_2n": -cfg.c / (2 * cfg.n) * float(r["p"]) * (1 - float(r["p"])),
        },
    )


register(
    Claim(
        id="karp-ch4-thm4.3-in-S-printed",
        source=f"{SRC}, proof of Theorem 4.3 (statement of the s in S bound; erratum in {DOC})",
        statement="As printed: for any s in S, <grad_w L(W;s), v> <= -(eps/2) p_k*(1 - p_k*); eps does not occur in "
        "Theorem 4.3, read as the value scale c (the derivation itself ends in -(c/2n) p_k*(1 - p_k*)).",
        kind="numeric",
        configs={"quick": DirectionalConfig(), "full": DirectionalConfig()},
        predict=lambda cfg: [
            -cfg.c / 2 * float(r["p"]) * (1 - float(r["p"])) for rows in _directional_exact(cfg) for r in rows
        ],
        observe=_observe_in_S_printed,
        judge=RefutedIfViolated(AtMost()),
        refutes="Thm 4.3 proof: 'For any s in S, we have <grad_w L(W;s), v> <= -(eps/2) p_k*(1 - p_k*)'",
        corrected_by="karp-ch4-thm4.3-directional",
    )
)


# --- Theorem 4.4: the per-sequence bounds with V near cP


@dataclass(frozen=True)
class NearCPConfig:
    """``draws`` random instances: task (lists 1..``m``), ``W`` Gaussian of std ``w_std``, ``V = cP + E`` with
    ``|E| <= eps`` entry-wise (Lemma 4.1's invariant), ``c`` and ``eps`` drawn from the given grids."""

    L: int = 8
    n: int = 3
    m: int = 4
    draws: int = 12
    w_std: float = 1.0
    cs: tuple[float, ...] = (1.0, 3.0, 10.0, 30.0)
    epss: tuple[float, ...] = (0.1, 0.5, 1.0)
    seed: int = 0


def _near_cp_params(cfg: NearCPConfig) -> list[tuple[int, float, float]]:
    """(task seed, c, eps) of every draw."""
    rng = random.Random(cfg.seed)
    return [(cfg.seed * 1000 + i, rng.choice(cfg.cs), rng.choice(cfg.epss)) for i in range(cfg.draws)]


def _predict_near_cp(cfg: NearCPConfig) -> list[float]:
    """Per draw: the bound 6 eps/n for s not in S, then the slack 0 of the bound for s in S (checked per sequence)."""
    return [float(td.thm44_notin_S_bound(cfg.n, eps)) for _, _, eps in _near_cp_params(cfg)] + [0.0] * cfg.draws


def _observe_near_cp(cfg: NearCPConfig, ctx: RunContext) -> Observation:
    rng = np.random.default_rng(cfg.seed)
    S = nd.subsets_array(cfg.L, cfg.n)
    notin, in_gap, rows, ratio = [], [], 0, 0.0
    for task_seed, c, eps in _near_cp_params(cfg):
        task = td.random_task(cfg.L, cfg.m, task_seed, min_length=1)
        W = rng.normal(size=(cfg.L, cfg.L)) * cfg.w_std
        V = c * nd.permutation_matrix(task) + rng.uniform(-eps, eps, size=(cfg.L, cfg.L))
        worst_notin, worst_in = -np.inf, -np.inf
        for a in range(cfg.L):
            info = nd.notin_S_directional(task, W, V, S, a)
            if info["k_star"] is None:
                continue
            rows += len(info["values"])
            d, ins = info["values"], info["in_S"]
            if (~ins).any():
                worst_notin = max(worst_notin, float(d[~ins].max()))
            if ins.any():
                seqs = S[(S == a).any(axis=1)][ins]
                p, _, _ = nd.forward(W, V, seqs)
                pk = p[np.arange(len(seqs)), np.argmax(seqs == a, axis=1), info["k_star"]]
                bound = np.array([float(td.thm44_in_S_bound(cfg.n, c, eps, float(x))) for x in pk])
                worst_in = max(worst_in, float((d[ins] - bound).max()))
        notin.append(worst_notin if np.isfinite(worst_notin) else 0.0)
        in_gap.append(worst_in if np.isfinite(worst_in) else -1.0)
        ratio = max(ratio, notin[-1] * cfg.n / (6 * eps))
    return Observation(
        notin + in_gap,
        details={"largest_fraction_of_6eps_over_n_used": ratio, "sequences": rows},
    )


register(
    Claim(
        id="karp-ch4-thm4.4-bounds",
        source=f"{SRC}, proof of Theorem 4.4 (the bounds for s in S and s not in S; {DOC})",
        statement="With ||V - cP||_inf <= eps: for s not in S, <grad_w L(W,V;s), v> <= 6 eps/n (the bound the proof "
        "derives and uses), and for s in S, <grad_w L(W,V;s), v> <= -(1/2n) p_k*(1 - p_k*)(c - 4 eps); checked on every "
        "n-subset at random W, V (per draw: the largest derivative over s not in S, then the largest excess over the "
        "s in S bound).",
        kind="numeric",
        configs={"quick": NearCPConfig(), "full": NearCPConfig(draws=200)},
        predict=_predict_near_cp,
        observe=_observe_near_cp,
        judge=AtMost(1e-12),
        insensitive="both are worst-case bounds that random instances stay far inside (the s not in S derivative uses "
        "under 2 % of 6 eps/n; see details), so a bound tightened by 1 % still holds",
    )
)


# --- the scale of the constants (Theorem 4.3)


@dataclass(frozen=True)
class LambdaConfig:
    """Random tasks ``(L, n, m)`` and the two values ``c``, ``2c`` of the Richardson extrapolation."""

    cases: tuple[tuple[int, int, int], ...] = ((8, 3, 3), (10, 4, 3))
    c: float = 800.0
    seed: int = 0


def _observe_lambda(cfg: LambdaConfig, ctx: RunContext) -> Observation:
    values, raw = [], {}
    for L, n, m in cfg.cases:
        task = td.random_task(L, m, cfg.seed, min_length=1)
        r1 = vd.hessian_lambda_max(task, n, cfg.c, device=ctx.device) / cfg.c**2
        r2 = vd.hessian_lambda_max(task, n, 2 * cfg.c, device=ctx.device) / (2 * cfg.c) ** 2
        values.append(2 * r2 - r1)  # cancels the O(1/c) term of lambda / c^2
        raw[f"L={L},n={n}"] = {"lambda_over_c2_at_c": r1, "lambda_over_c2_at_2c": r2}
    return Observation(values, details={"ratios": raw, "c": cfg.c})


register(
    Claim(
        id="karp-ch4-thm4.3-lambda-max",
        source=f"{SRC}, Theorem 4.3 (lambda_max in eta and T; {DOC})",
        statement="At W = 0, V = cP (uniform n-subsets) the largest Hessian eigenvalue of L(W) is kappa c^2 + O(c) with "
        "kappa = (n - 1)/(n^4 (L - 1)): lambda_max grows like c^2, so T = 32 M lambda_max/log L grows like c^2 = "
        "16 n^4 log^2 L/delta^2 (Richardson limit of lambda/c^2 from c and 2c vs kappa).",
        kind="numeric",
        configs={"quick": LambdaConfig(), "full": LambdaConfig(cases=((8, 3, 3), (10, 4, 3), (12, 4, 4), (12, 5, 4)))},
        predict=lambda cfg: [td.lambda_max_leading(L, n) for L, n, _ in cfg.cases],
        observe=_observe_lambda,
        judge=MaxRel(1e-5),
        on_device=True,
    )
)


@dataclass(frozen=True)
class ScaleConfig:
    """The Fig. 4.1 distribution (uniform ``n``-subsets of ``Z_L``) and the Monte Carlo size and seed."""

    L: int = 200
    n: int = 25
    samples: int = 20_000
    seed: int = 0


def _predict_scale(cfg: ScaleConfig) -> list[Any]:
    """delta of Assumption 4.3, c = 4 n^2 log L/delta and the step-budget lower bound 32 M kappa c^2/log L."""
    task = td.cyclic_task(cfg.L)
    delta, _ = td.delta_a43(task, cfg.n)
    return [delta, td.thm43_c(cfg.n, cfg.L, delta), td.thm43_step_budget(cfg.L, cfg.n, task.M, delta)]


def _observe_scale(cfg: ScaleConfig, ctx: RunContext) -> Observation:
    task = td.cyclic_task(cfg.L)
    _, (a, b, c) = td.delta_a43(task, cfg.n)
    A, B = td.ldt_event(task, a, b)
    est, se = nd.event_probability_mc(cfg.L, cfg.n, sorted(A | {c}), sorted(B), cfg.samples, cfg.seed)
    M = task.M
    c_hat = 4 * cfg.n**2 * np.log(cfg.L) / est
    kappa = float(td.lambda_max_leading(cfg.L, cfg.n))
    T_hat = 32 * M * kappa * c_hat**2 / np.log(cfg.L)
    return Observation(
        [est, c_hat, T_hat],
        details={
            "stderr": [se, c_hat * se / est, 2 * T_hat * se / est],
            "argmin_triple": [a, b, c],
            "delta_a44": td.delta_a44(cfg.L, cfg.n),
        },
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="karp-ch4-thm4.3-constants-scale",
        source=f"{SRC}, Theorem 4.3 at the Fig. 4.1 distribution ({DOC})",
        statement="For uniform 25-subsets of Z_200 with the Fig. 4.1 lists, Assumption 4.3 holds with delta = C(195, 22)/"
        "C(200, 25) = 1.381e-3 (attained by b = a_3 with a third token outside L_a), so Theorem 4.3 needs c = 4n^2 log L/"
        "delta = 9.59e6 and its step budget T = 32 M lambda_max/log L is at least 512 M (n-1) log L/(delta^2 (L-1)) = "
        "6.9e8 steps (Monte Carlo of the attaining event); Assumption 4.4's delta is 1/C(200, 25) = 2.2e-31.",
        kind="numeric",
        configs={"quick": ScaleConfig(), "full": ScaleConfig(samples=400_000)},
        predict=_predict_scale,
        observe=_observe_scale,
        judge=ZScore(4),
    )
)


# --- delta of Assumptions 4.3 and 4.4 exactly; Assumption 4.3 implies 4.2


@dataclass(frozen=True)
class DeltaConfig:
    """Random tasks on ``L`` tokens (lists of length 1..``m``), ``n``-subsets under the uniform law and under a random
    law with integer weights in ``1..weight``."""

    L: int = 7
    n: int = 3
    m: int = 3
    draws: int = 3
    weight: int = 5
    seed: int = 0


def _delta_laws(cfg: DeltaConfig) -> list[tuple[td.DecisionListTask, dict[frozenset[int], Fraction] | None]]:
    rng = random.Random(cfg.seed)
    out = []
    for i in range(cfg.draws):
        task = td.random_task(cfg.L, cfg.m, cfg.seed * 1000 + i, min_length=1)
        weights = {frozenset(s): rng.randint(1, cfg.weight) for s in td.uniform_subsets(cfg.L, cfg.n)}
        total = sum(weights.values())
        out += [(task, None), (task, {s: Fraction(w, total) for s, w in weights.items()})]
    return out


def _predict_delta(cfg: DeltaConfig) -> list[Fraction]:
    out = []
    for task, law in _delta_laws(cfg):
        if law is None:
            out += [td.delta_a43(task, n=cfg.n)[0], td.delta_a44(cfg.L, n=cfg.n)]
        else:
            out += [td.delta_a43(task, law=law)[0], td.delta_a44(cfg.L, law=law)]
    return out


def _observe_delta(cfg: DeltaConfig, ctx: RunContext) -> Observation:
    out = []
    for task, law in _delta_laws(cfg):
        explicit = law if law is not None else uniform_law(cfg.L, cfg.n)
        out += [nd.brute_force_delta_a43(task, explicit), nd.brute_force_delta_a44(explicit)]
    return Observation(out, details={"laws": ["uniform", "random weights"] * cfg.draws})


register(
    Claim(
        id="karp-ch4-delta-exact",
        source=f"{SRC}, Assumptions 4.3 and 4.4 ({DOC})",
        statement="The delta of Assumption 4.3 (smallest positive P[a, b, c in s, b is a's LDT] over the triples with "
        "b in L_a and c after b or outside L_a) and of Assumption 4.4 (smallest positive token-set probability), "
        "computed exactly from the hypergeometric closed form (uniform n-subsets) or the law, equal brute-force "
        "enumeration of every token set.",
        kind="symbolic",
        configs={"quick": DeltaConfig(), "full": DeltaConfig(L=9, n=4, m=4, draws=6)},
        predict=_predict_delta,
        observe=_observe_delta,
        judge=ExactlyEqual(),
    )
)


@dataclass(frozen=True)
class ImpliesConfig:
    """GD on ``W`` (``V = cP``, step ``eta``) for ``steps`` steps on random tasks (lists 1..``m``), ``draws`` of them."""

    L: int = 8
    n: int = 3
    m: int = 3
    c: float = 5.0
    eta: float = 0.4
    steps: int = 40
    draws: int = 2
    seed: int = 0


def _implies_tasks(cfg: ImpliesConfig) -> list[td.DecisionListTask]:
    return [td.random_task(cfg.L, cfg.m, cfg.seed * 1000 + i, min_length=1) for i in range(cfg.draws)]


def _observe_implies(cfg: ImpliesConfig, ctx: RunContext) -> Observation:
    """Per task: the smallest P[S] of Assumption 4.2 over the GD iterates that misclassify some token."""
    law = uniform_law(cfg.L, cfg.n)
    S = nd.subsets_array(cfg.L, cfg.n)
    values, iterates = [], []
    for task in _implies_tasks(cfg):
        hist = nd.population_gd_w(task, cfg.n, cfg.c, cfg.eta, cfg.steps, keep_iterates=True)
        Y = nd.labels_array(task, S)
        V = cfg.c * nd.permutation_matrix(task)
        deltas = []
        for W in hist.iterates:
            ok = nd.correct_mask(W, V, S, Y)
            wrong = {(int(S[b, j]), frozenset(S[b].tolist())) for b, j in zip(*np.nonzero(~ok))}
            delta, _ = td.delta_a42(task, law, lambda a, s, wrong=wrong: (a, s) in wrong)
            if delta is not None:
                deltas.append(delta)
        values.append(min(deltas) if deltas else Fraction(1))
        iterates.append(len(deltas))
    return Observation(values, details={"iterates_with_errors": iterates})


register(
    Claim(
        id="karp-ch4-a43-implies-a42",
        source=f"{SRC}, Assumptions 4.2 and 4.3 (Sec. 4.2.3: 4.3 suffices for 4.2 when V = cP)",
        statement="With V = cP, at every GD iterate W_t that misclassifies some token, P[S] of Assumption 4.2 (every "
        "misclassified token, its earliest misclassified LDT) is at least Assumption 4.3's delta (per task: the "
        "smallest P[S] over the iterates).",
        kind="numeric",
        configs={"quick": ImpliesConfig(), "full": ImpliesConfig(L=9, n=4, m=4, draws=6, steps=80)},
        predict=lambda cfg: [td.delta_a43(task, n=cfg.n)[0] for task in _implies_tasks(cfg)],
        observe=_observe_implies,
        judge=AtLeast(),
        insensitive="S is a union of misclassification events, each containing a whole triple event of Assumption 4.3, "
        "and on these iterates it holds several of them (P[S] >= 5 delta here), so a bound raised by 1 % still holds",
    )
)
