"""Theorems 4.3 and 4.4 of Karp thesis Ch. 4: the loss at initialisation, the proof algebra, the per-sequence
bounds on the directional derivative (with the statement errata as refuted claims), the scale of the constants,
and the delta of Assumptions 4.2-4.4 (docs/decision_lists.md).

Predictions come from :mod:`theory.decision_lists` (sympy, Fractions, 40-digit arithmetic); observations from the
torch model (:mod:`verify.train.decision_lists`), float64 numerics and Monte Carlo (:mod:`numerics.decision_lists`).
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
from verify.train import decision_lists as vd

from ..base import Claim, Erratum, Observation, Resolution, RunContext, register
from ..judges import (
    AtLeast,
    AtMost,
    ExactlyEqual,
    ExactOrFloat,
    MaxAbs,
    MaxRel,
    RefutedIfViolated,
    Requiring,
    Verdict,
    ZScore,
)
from .common import DOC, SRC, dyadic_matrix, to_float, uniform_law

# --- the loss at initialisation (proof of Theorem 4.3)


@dataclass(frozen=True)
class InitialLossConfig:
    """``(L, n, c)`` cases (the Fig. 4.1 task on ``Z_L`` when ``L > 60``, else a random task), ``sequences`` sampled
    per case for the model's loss, and the seed. The smallest and the largest loss per case must each be within 1e-12
    relative of ``L_0`` (float64 log-softmax over at most 200 logits rounds at ~1e-15; set before any run)."""

    cases: tuple[tuple[int, int, int], ...] = ((200, 25, 0), (200, 25, 10), (200, 25, 1000), (8, 3, 20))
    sequences: int = 64
    seed: int = 0


def _loss_task(L: int, seed: int) -> td.DecisionListTask:
    return td.cyclic_task(L) if 2 * max(td.FIG41_SHIFTS) < L else td.random_task(L, 3, seed, min_length=1)


def _observe_initial_loss(cfg: InitialLossConfig, ctx: RunContext) -> Observation:
    """Per case: the smallest and the largest torch loss over the sampled sequences (each must equal L_0)."""
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
        values += [float(losses.min()), float(losses.max())]
        spread = max(spread, float(losses.max() - losses.min()))
        below &= bool(losses.max() <= np.log(L) + 1e-12)
    return Observation(
        values,
        details={
            "max_spread_over_sequences": spread,
            "at_most_log_L": below,
            "cases": list(cfg.cases),
            "sequences_per_case": cfg.sequences,
        },
    )


register(
    Claim(
        id="karp-ch4-initial-loss",
        source=f"{SRC}, proof of Theorem 4.3 (L_0 <= log L; exact value in {DOC})",
        statement="At W = 0, V = cP every sequence has loss L_0 = log(n + (L - n) e^{-c/n}) <= log L (equality at c = 0; "
        "-> log n as c grows): 4.95798 at (L, n, c) = (200, 25, 10), 3.21888 = log 25 at c = 1000 (judged per case: the "
        "smallest and the largest loss over the sampled sequences, each within 1e-12 relative of L_0).",
        kind="symbolic",
        configs={"quick": InitialLossConfig(), "full": InitialLossConfig(sequences=4096)},
        predict=lambda cfg: [td.initial_loss(L, n, c) for L, n, c in cfg.cases for _ in ("min", "max")],
        observe=_observe_initial_loss,
        judge=Requiring(ExactOrFloat(1e-12, relative=True), ("at_most_log_L",)),
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
class HorizonConfig:
    """The instance ``(L, n, c)`` at which the loss is below 1 from the start (``n = 2``: ``L_0 -> log 2`` as ``c``
    grows), so that ``T`` written with the loss instead of ``Lbar = max{1, L_0}`` lets ``V`` drift beyond ``eps/2``."""

    L: int = 8
    n: int = 2
    c: int = 20


def _observe_horizon(cfg: HorizonConfig, ctx: RunContext) -> Observation:
    L0 = td.initial_loss(cfg.L, cfg.n, cfg.c)
    t_eta = 1 / (2 * L0)  # T eta / eps with T = lambda eps / (2 L_0), eta = 1/lambda
    return Observation(
        [t_eta],  # exact: 1/(2 L_0), L_0 = log(...) (a 30-digit decimal was stored as its "exact" value)
        counterexample={
            "L": cfg.L,
            "n": cfg.n,
            "c": cfg.c,
            "L_0": L0,
            "T_eta_over_eps": t_eta,
            "with_Lbar": "Lbar = max{1, L_0} = 1: T eta / eps = 1/2 exactly (karp-ch4-thm4.4-algebra, step lemma41)",
        },
    )


register(
    Claim(
        id="karp-ch4-thm4.4-horizon-printed",
        source=f"{SRC}, end of the proof of Theorem 4.4 and proof of Lemma 4.1 (T written with the loss, not Lbar; {DOC})",
        statement="As printed (proof of Theorem 4.4, twice, and proof of Lemma 4.1): T = lambda_max eps/(2 L) with the "
        "script L without a bar, which the chapter's notation (Sec. 4.3: 'we will sometimes drop the parameters in "
        "L(W, V) and just write L') makes the population loss, whose value at the start is L_0; then Lemma 4.1's "
        "T eta = eps/(2 L) <= eps/2 needs L >= 1 and fails when the loss is below 1 (n = 2: L_0 -> log 2). The theorem "
        "statement's Lbar = max{1, L_0}, which the proof's next line (2 lambda L_0/T = 4 L_0 Lbar/eps) needs, makes it "
        "exact: a notation erratum, Lemma 4.1 holds with Lbar.",
        kind="symbolic",
        configs={"quick": HorizonConfig(), "full": HorizonConfig()},
        predict=lambda cfg: [td.lemma41_drift_bound_printed()],
        observe=_observe_horizon,
        judge=RefutedIfViolated(AtMost()),
        refutes="Lemma 4.1: T eta = (lambda_max eps/(2 L)) (1/lambda_max) = eps/(2 L) <= eps/2, with T = lambda_max "
        "eps/(2 L) (script L, no bar) in the proof of Theorem 4.4",
        corrected_by="karp-ch4-thm4.4-algebra",
        erratum=Erratum(
            "notation",
            "[Theorem 4.4:] ... there exists a t <= lambda_max eps/(2 Lbar) such that W_t, V_t achieve perfect "
            "classification [...] [proof:] This means that, if we run for T = lambda_max eps/(2 L) iterations, we have "
            "||grad L(W, V)||^2 <= 4 L_0 Lbar/eps. [...] Therefore, after T = lambda_max eps/(2 L) iterations, we must "
            "have perfect classification. [Lemma 4.1, proof:] T eta = (lambda_max eps/(2 L)) (1/lambda_max) = eps/(2 L) "
            "<= eps/2. [L: script L without a bar, in all three places; Lbar := max{1, L_0}]",
            "Karp thesis (2024), Ch. 4, Sec. 4.3.3: end of the proof of Theorem 4.4 and proof of Lemma 4.1 "
            "(Sec. 4.3.3 is pp. 36-45 by the table of contents)",
        ),
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
            rows = S[(a == S).any(axis=1)]
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
    bound_ok = all(d <= float(td.thm43_in_S_bound(cfg.n, cfg.c, r["p"])) for d, r in zip(m["values"], exact))
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
        judge=Requiring(MaxAbs(1e-12), ("proof_inequalities_hold",)),
    )
)


def _observe_in_S_printed(cfg: DirectionalConfig, ctx: RunContext) -> Observation:
    m = _directional_measured(cfg)
    exact = [r for rows in _directional_exact(cfg) for r in rows]
    printed = [float(td.thm43_in_S_bound_printed(cfg.c, r["p"])) for r in exact]
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
            "corrected_bound_c_over_2n": float(td.thm43_in_S_bound(cfg.n, cfg.c, r["p"])),
        },
    )


register(
    Claim(
        id="karp-ch4-thm4.3-in-S-printed",
        source=f"{SRC}, proof of Theorem 4.3 (statement of the s in S bound; erratum in {DOC})",
        statement="As printed: for any s in S, <grad_w L(W;s), v> <= -(eps/2) p_k*(1 - p_k*); eps does not occur in "
        "Theorem 4.3, read as the value scale c (the derivation itself ends in -(c/2n) p_k*(1 - p_k*)). Any reading "
        "eps <= c/n makes the printed bound hold, so the counterexample shows only that eps = c is not meant: a typo "
        "that the derivation below it corrects.",
        kind="numeric",
        configs={"quick": DirectionalConfig(), "full": DirectionalConfig()},
        predict=lambda cfg: [
            float(td.thm43_in_S_bound_printed(cfg.c, r["p"])) for rows in _directional_exact(cfg) for r in rows
        ],
        observe=_observe_in_S_printed,
        judge=RefutedIfViolated(AtMost()),
        refutes="Thm 4.3 proof: 'For any s in S, we have <grad_w L(W;s), v> <= -(eps/2) p_k*(1 - p_k*)'",
        corrected_by="karp-ch4-thm4.3-directional",
        erratum=Erratum(
            "typo",
            "For any s in S, we have: <grad_w L(W; s), v> <= -(eps/2) p_{k*}(1 - p_{k*}). This comes from sigma_y <= 1/2 "
            "and the following calculation: [...] <= -(c/n) p_{k*}(1 - sigma_y)(1 - p_{k*}) <= -(c/2n) p_{k*}(1 - p_{k*}).",
            "Karp thesis (2024), Ch. 4, Sec. 4.3.3, proof of Theorem 4.3, the bound for s in S (Sec. 4.3.3 is pp. 36-45 "
            "by the table of contents)",
        ),
    )
)


# --- Theorem 4.4: the per-sequence bounds with V near cP


@dataclass(frozen=True)
class NearCPConfig:
    """``draws`` instances on ``L`` tokens, sequences of ``n``, lists of length 3..``m``; per draw ``eps`` from ``epss``
    and ``c = r eps`` with ``r`` from ``c_over_eps`` (all > 4: the s in S bound needs ``c >= 4 eps``, and Theorem 4.4's
    ``c`` exceeds ``4 eps``). ``W`` is Gaussian of std ``w_std`` except column ``a`` (= draw mod ``L``), built so that
    ``k*`` can be ``a_2`` (``W[a_1, a] = log(1 + k eps/c)``, ``W[a_2, a] = W[t_0, a] = 0`` with ``t_0`` outside ``L_a``,
    ``W[a, a] = -Delta``, the rest ``-4``; ``k`` in ``ks``, ``Delta`` in ``Deltas``): only there can a sequence
    ``s not in S`` have a positive derivative (with ``k* = a_1`` and ``c > 4 eps`` it is negative). ``E = V - cP``
    is then chosen adversarially in ``[-eps, eps]`` (:func:`numerics.decision_lists.adversarial_e`, ``iters`` steps)
    and the start with the largest ``s not in S`` derivative is kept. These settings were chosen in a short
    exploration (recorded in docs/decision_lists.md) to make positive ``s not in S`` derivatives appear; they change
    which instances are tested, not the bounds they are judged against."""

    L: int = 8
    n: int = 3
    m: int = 4
    draws: int = 12
    w_std: float = 1.0
    c_over_eps: tuple[float, ...] = (4.5, 6.0, 10.0, 30.0)
    epss: tuple[float, ...] = (0.1, 0.5, 1.0)
    ks: tuple[float, ...] = (1.0, 2.0, 4.0)
    Deltas: tuple[float, ...] = (0.0, 1.0)
    iters: int = 8
    seed: int = 0


@dataclass(frozen=True)
class NearCPDraw:
    """One instance: the task, ``W``, ``V = cP + E``, ``c``, ``eps`` and the judged sequences as ``(a, row, in_S,
    k*, v)`` (every ``s`` containing a misclassified token ``a`` whose ``s'`` is nonempty), plus how many sequences
    had ``s'`` empty (derivative exactly 0, not judged)."""

    task: td.DecisionListTask
    W: np.ndarray
    V: np.ndarray
    c: float
    eps: float
    entries: tuple[tuple[int, tuple[int, ...], bool, int, tuple[float, ...]], ...]
    structural_zeros: int


def _near_cp_column(
    task: td.DecisionListTask, W: np.ndarray, a: int, c: float, eps: float, k: float, Delta: float
) -> np.ndarray:
    """``W`` with column ``a`` replaced by the construction of :class:`NearCPConfig`."""
    lst = task.lists[a]
    t0 = next(t for t in range(task.L) if t not in lst)
    Wc = W.copy()
    Wc[:, a] = -4.0
    Wc[lst[0], a] = np.log1p(k * eps / c)
    Wc[lst[1], a] = 0.0
    Wc[t0, a] = 0.0
    Wc[a, a] = -Delta
    return Wc


@lru_cache(maxsize=4)
def _near_cp_draws(cfg: NearCPConfig) -> tuple[NearCPDraw, ...]:
    rng = np.random.default_rng(cfg.seed)
    S = nd.subsets_array(cfg.L, cfg.n)
    out = []
    for i in range(cfg.draws):
        task = td.random_task(cfg.L, cfg.m, cfg.seed * 1000 + i, min_length=3)
        eps = float(rng.choice(cfg.epss))
        c = float(rng.choice(cfg.c_over_eps)) * eps
        W0 = rng.normal(size=(cfg.L, cfg.L)) * cfg.w_std
        E0 = rng.uniform(-eps, eps, size=(cfg.L, cfg.L))
        best = None
        for k in cfg.ks:
            for Delta in cfg.Deltas:
                W = _near_cp_column(task, W0, i % cfg.L, c, eps, k, Delta)
                E, top = nd.adversarial_e(task, W, c, eps, S, cfg.iters, E0)
                if best is None or top > best[0]:
                    best = (top, W, E)
        _, W, E = best
        V = c * nd.permutation_matrix(task) + E
        entries, zeros = [], 0
        for a in range(cfg.L):
            info = nd.token_directional(task, W, V, S, a)
            if info is None:
                continue
            zeros += int((~info["nonzero"]).sum())
            for row, ins, nz in zip(info["rows"], info["in_S"], info["nonzero"]):
                if nz:
                    entries.append((a, tuple(int(t) for t in row), bool(ins), info["k_star"], tuple(info["v"])))
        out.append(NearCPDraw(task, W, V, c, eps, tuple(entries), zeros))
    return tuple(out)


def _predict_near_cp(cfg: NearCPConfig) -> list[Any]:
    """Per judged sequence, the bound of the proof of Theorem 4.4: ``6 eps/n`` for ``s not in S``, ``-(1/2n) p_k*(1 -
    p_k*)(c - 4 eps)`` for ``s in S`` (``p_k*`` from the 40-digit attention of :mod:`theory.decision_lists`)."""
    out = []
    for dr in _near_cp_draws(cfg):
        for a, row, ins, k_star, _ in dr.entries:
            if ins:
                p = td.attention_column(dr.W.tolist(), row, a)[k_star]
                out.append(td.thm44_in_S_bound(cfg.n, dr.c, dr.eps, p))
            else:
                out.append(td.thm44_notin_S_bound(cfg.n, dr.eps))
    return out


#: A fraction of 6 eps/n counted as positive: far above float64 rounding of the derivative (~1e-16).
POSITIVE = 1e-9


@lru_cache(maxsize=4)
def _near_cp_derivatives(cfg: NearCPConfig) -> tuple[tuple[float, ...], ...]:
    """Per draw, the directional derivative of every judged sequence (in the order of ``entries``), by torch
    autograd of each sequence's loss (4.2); shared by the claims of the 6 eps/n and the printed 6 eps bounds."""
    return tuple(
        tuple(
            float(vd.directional_derivatives(dr.task, dr.W, dr.V, np.array([row]), a, np.array(v))[0])
            for a, row, _, _, v in dr.entries
        )
        for dr in _near_cp_draws(cfg)
    )


def _observe_near_cp(cfg: NearCPConfig, ctx: RunContext) -> Observation:
    """The derivatives of the judged sequences by torch autograd of each sequence's loss (4.2)."""
    values, per_draw = [], []
    for dr, derivatives in zip(_near_cp_draws(cfg), _near_cp_derivatives(cfg)):
        d_in, d_out = [], []
        for (_, _, ins, _, _), d in zip(dr.entries, derivatives):
            values.append(d)
            (d_in if ins else d_out).append(d)
        per_draw.append(
            {
                "c": dr.c,
                "eps": dr.eps,
                "in_S": len(d_in),
                "notin_S_judged": len(d_out),
                "notin_S_structural_zeros": dr.structural_zeros,
                "largest_notin_S_over_6eps_over_n": max(d_out) * cfg.n / (6 * dr.eps) if d_out else None,
            }
        )
    fractions = [r["largest_notin_S_over_6eps_over_n"] for r in per_draw if r["largest_notin_S_over_6eps_over_n"]]
    return Observation(
        values,
        details={
            "per_draw": per_draw,
            "largest_fraction_of_6eps_over_n_used": max(fractions) if fractions else None,
            "draws_with_a_positive_notin_S_derivative": sum(f > POSITIVE for f in fractions),
            "every_draw_has_both_classes": all(r["in_S"] and r["notin_S_judged"] for r in per_draw),
            "some_notin_S_derivative_positive": any(f > POSITIVE for f in fractions),
        },
    )


@dataclass(frozen=True)
class AtMostWithPower(AtMost):
    """:class:`AtMost`, but ``inconclusive`` (not ``pass``) unless every detail named in ``power`` is true: conditions
    under which the check could have seen a violation (here: both classes of sequences present, and an ``s not in S``
    derivative above 0, i.e. in the range where the ``eps`` terms of the bound matter)."""

    power: tuple[str, ...] = ()

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = super().__call__(predicted, obs, config)
        missing = [key for key in self.power if not obs.details.get(key, False)]
        if verdict == "pass" and missing:
            return "inconclusive", f"{reason}; but {', '.join(k.replace('_', ' ') for k in missing)} is false"
        return verdict, reason

    def describe(self) -> str:
        extra = "".join(f"; inconclusive unless {key.replace('_', ' ')}" for key in self.power)
        return super().describe() + extra


register(
    Claim(
        id="karp-ch4-thm4.4-bounds",
        source=f"{SRC}, proof of Theorem 4.4 (the bounds for s in S and s not in S; {DOC})",
        statement="With ||V - cP||_inf <= eps and c > 4 eps: for s not in S, <grad_w L(W,V;s), v> <= 6 eps/n (the bound "
        "the proof derives and uses), and for s in S, <grad_w L(W,V;s), v> <= -(1/2n) p_k*(1 - p_k*)(c - 4 eps); every "
        "sequence containing a misclassified token a is judged against its bound (those with no token of v, whose "
        "derivative is 0 by structure, are counted, not judged), at W built so that k* need not be a's first list "
        "token and E chosen adversarially to make the s not in S derivatives large.",
        kind="numeric",
        configs={"quick": NearCPConfig(), "full": NearCPConfig(draws=200)},
        predict=_predict_near_cp,
        observe=_observe_near_cp,
        judge=AtMostWithPower(1e-12, power=("every_draw_has_both_classes", "some_notin_S_derivative_positive")),
        insensitive="6 eps/n and -(1/2n)p(1-p)(c-4eps) are worst-case bounds that even the adversarial instances stay "
        "well inside (largest s not in S derivative: a few % of 6 eps/n, see details), so a bound tightened by 1 % "
        "still holds; the check does reject the eps-free bound 0 of Theorem 4.3 for s not in S (tested)",
    )
)


# --- the printed "<= 6 eps" for s not in S: true, weaker than the proof's 6 eps/n


def _predict_notin_printed(cfg: NearCPConfig) -> list[Any]:
    """Per ``s not in S`` sequence of the Theorem 4.4 instances, the printed bound ``6 eps``: ``n`` times the
    ``6 eps/n`` that the proof derives (:func:`theory.decision_lists.thm44_notin_S_bound`)."""
    return [
        cfg.n * td.thm44_notin_S_bound(cfg.n, dr.eps)
        for dr in _near_cp_draws(cfg)
        for (_, _, ins, _, _) in dr.entries
        if not ins
    ]


def _observe_notin_printed(cfg: NearCPConfig, ctx: RunContext) -> Observation:
    """The ``s not in S`` derivatives of the instances of ``karp-ch4-thm4.4-bounds`` (same draws, same autograd)."""
    values, fractions = [], []
    for dr, derivatives in zip(_near_cp_draws(cfg), _near_cp_derivatives(cfg)):
        d_out = [d for (_, _, ins, _, _), d in zip(dr.entries, derivatives) if not ins]
        values += d_out
        if d_out:
            fractions.append(max(d_out) / (6 * dr.eps))
    return Observation(
        values,
        details={
            "notin_S_sequences_judged": len(values),
            "largest_fraction_of_6eps_used": max(fractions) if fractions else None,
            "largest_fraction_of_6eps_over_n_used": max(fractions) * cfg.n if fractions else None,
            "some_notin_S_derivative_positive": any(f * cfg.n > POSITIVE for f in fractions),
        },
    )


register(
    Claim(
        id="karp-ch4-thm4.4-notin-S-printed",
        source=f"{SRC}, proof of Theorem 4.4 (the bound for s not in S as announced; {DOC})",
        statement="As printed: with ||V - cP||_inf <= eps and c > 4 eps, for any s not in S, <grad_w L(W,V;s), v> <= "
        "6 eps; judged on every s not in S sequence of the adversarial instances of karp-ch4-thm4.4-bounds (same draws), "
        "inconclusive unless some of their derivatives is positive.",
        kind="numeric",
        configs={"quick": NearCPConfig(), "full": NearCPConfig(draws=200)},
        predict=_predict_notin_printed,
        observe=_observe_notin_printed,
        judge=AtMostWithPower(1e-12, power=("some_notin_S_derivative_positive",)),
        insensitive="the printed 6 eps is n times the 6 eps/n the proof derives, and the adversarial instances use at "
        "most a few % of 6 eps/n (well under 1 % of 6 eps; see details), so a bound tightened by 1 % still holds; the "
        "6 eps/n bound itself is judged by karp-ch4-thm4.4-bounds",
        note="True but weaker than what the proof derives: the display that follows the announced '<= 6 eps' ends in "
        "'<= 6 eps/n', and the last step of the proof uses 6 eps/n ('(3) is <= 6 eps/n'), with which the algebra closes "
        "exactly (karp-ch4-thm4.4-algebra; 6 eps/n is checked on the same instances by karp-ch4-thm4.4-bounds). Not an "
        "erratum: an earlier version refuted this claim by putting the announced 6 eps into the last step, which the "
        "proof does not do. The id keeps 'printed' (ids are stable): it names the printed bound, which passes.",
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
        r1 = (
            vd.hessian_lambda_max(
                task, n, cfg.c, device=ctx.device, ignore_memory_check=ctx.options.ignore_memory_check
            )
            / cfg.c**2
        )
        r2 = (
            vd.hessian_lambda_max(
                task, n, 2 * cfg.c, device=ctx.device, ignore_memory_check=ctx.options.ignore_memory_check
            )
            / (2 * cfg.c) ** 2
        )
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
    """The Fig. 4.1 distribution (uniform ``n``-subsets of ``Z_L``) and the Monte Carlo size and seed; ``min_rtol``:
    the relative agreement required between the exact minimum over the Assumption 4.3 triples and an independent
    float64 enumeration of every triple (log-gamma binomials of C(200, 25) ~ 1e31 carry ~1e-13 relative error; 1e-9
    was set before any run and is far below the factor >= 1.1 between distinct event probabilities here)."""

    L: int = 200
    n: int = 25
    samples: int = 20_000
    seed: int = 0
    min_rtol: float = 1e-9


def _predict_scale(cfg: ScaleConfig) -> list[Any]:
    """delta of Assumption 4.3 (the exact minimum over every triple)."""
    return [td.delta_a43(td.cyclic_task(cfg.L), cfg.n)[0]]


def _observe_scale(cfg: ScaleConfig, ctx: RunContext) -> Observation:
    """Monte Carlo of the event of the triple theory names as the minimiser; an independent float enumeration of every
    triple checks that it is the minimum; c and the step budget are reported as values derived from delta."""
    task = td.cyclic_task(cfg.L)
    delta, (a, b, c) = td.delta_a43(task, cfg.n)
    A, B = td.ldt_event(task, a, b)
    est, se = nd.event_probability_mc(cfg.L, cfg.n, sorted(A | {c}), sorted(B), cfg.samples, cfg.seed)
    fmin, ftriple = nd.a43_min_event_float(task, cfg.n)
    agrees = abs(fmin - float(delta)) <= cfg.min_rtol * float(delta)
    return Observation(
        [est],
        details={
            "stderr": [se],
            "argmin_triple": [a, b, c],
            "float_enumeration_min": fmin,
            "float_enumeration_argmin": list(ftriple),
            "float_enumeration_minimum_agrees": bool(agrees),
            "derived_not_judged": {
                "c_exact": td.thm43_c(cfg.n, cfg.L, delta),
                "step_budget_lower_exact": td.thm43_step_budget(cfg.L, cfg.n, task.M, delta),
                "c_from_mc_estimate": 4 * cfg.n**2 * np.log(cfg.L) / est,
            },
            "delta_a44": td.delta_a44(cfg.L, cfg.n),
        },
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="karp-ch4-thm4.3-constants-scale",
        resolution=Resolution(
            rel=0.062, why="Monte Carlo over 20,000 samples: 4 standard errors are 5.3 % of the prediction"
        ),
        source=f"{SRC}, Theorem 4.3 at the Fig. 4.1 distribution ({DOC})",
        statement="For uniform 25-subsets of Z_200 with the Fig. 4.1 lists, Assumption 4.3 holds with delta = C(195, 22)/"
        "C(200, 25) = 1.381e-3, attained by b = a_3 with a third token outside L_a (judged: a Monte Carlo estimate of "
        "that event's probability within 4 standard errors, and an independent float enumeration of every triple "
        "finding the same minimum). Derived from delta, reported and not judged: Theorem 4.3's c = 4n^2 log L/delta = "
        "9.59e6 and the step-budget lower bound 512 M (n-1) log L/(delta^2 (L-1)) = 6.9e8 (kappa of the "
        "lambda-max claim); Assumption 4.4's delta is 1/C(200, 25) = 2.2e-31.",
        kind="numeric",
        configs={"quick": ScaleConfig(), "full": ScaleConfig(samples=400_000)},
        predict=_predict_scale,
        observe=_observe_scale,
        judge=Requiring(ZScore(4), ("float_enumeration_minimum_agrees",)),
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


def _attaining_w(task: td.DecisionListTask, n: int) -> np.ndarray:
    """A ``W`` at which the set ``S`` of Assumption 4.2 for one token is exactly the least likely triple event
    ``{a, b, c in s, b is a's LDT}`` of Assumption 4.3 (``(a, b, c)`` from :func:`theory.decision_lists.delta_a43`):
    in column ``a`` the tokens before ``b`` in ``L_a`` get the distinct top weights (first largest, so ``a`` is right
    whenever one is present), ``c`` gets 2, ``b`` gets 1, everything else 0. With ``V = cP``, ``a`` is then
    misclassified with LDT ``b`` exactly when ``c`` is present, and ``b`` is the earliest such LDT."""
    _, (a, b, c) = td.delta_a43(task, n=n)
    W = np.zeros((task.L, task.L))
    before = task.lists[a][: task.lists[a].index(b)]
    for j, t in enumerate(before):
        W[t, a] = 3.0 + len(before) - j
    W[c, a], W[b, a] = 2.0, 1.0
    return W


def _smallest_p_S(task: td.DecisionListTask, cfg: ImpliesConfig, W: np.ndarray, law: dict) -> Fraction | None:
    S = nd.subsets_array(cfg.L, cfg.n)
    ok = nd.correct_mask(W, cfg.c * nd.permutation_matrix(task), S, nd.labels_array(task, S))
    wrong = {(int(S[b, j]), frozenset(S[b].tolist())) for b, j in zip(*np.nonzero(~ok))}
    return td.delta_a42(task, law, lambda a, s, wrong=wrong: (a, s) in wrong)[0]


def _observe_implies(cfg: ImpliesConfig, ctx: RunContext) -> Observation:
    """Per task: the smallest P[S] of Assumption 4.2 over the GD iterates that misclassify some token and over the
    constructed :func:`_attaining_w` (where the bound is attained)."""
    law = uniform_law(cfg.L, cfg.n)
    values, iterates, gd_min, attained = [], [], [], []
    for task in _implies_tasks(cfg):
        hist = nd.population_gd_w(task, cfg.n, cfg.c, cfg.eta, cfg.steps, keep_iterates=True)
        deltas = [d for W in hist.iterates if (d := _smallest_p_S(task, cfg, W, law)) is not None]
        at = _smallest_p_S(task, cfg, _attaining_w(task, cfg.n), law)
        values.append(min([*deltas, at]))
        iterates.append(len(deltas))
        gd_min.append(min(deltas) if deltas else None)
        attained.append(at)
    return Observation(
        values,
        details={
            "iterates_with_errors": iterates,
            "smallest_P_S_over_gd_iterates": gd_min,
            "P_S_at_attaining_W": attained,
        },
    )


register(
    Claim(
        id="karp-ch4-a43-implies-a42",
        source=f"{SRC}, Assumptions 4.2 and 4.3 (Sec. 4.2.3: 4.3 suffices for 4.2 when V = cP)",
        statement="With V = cP, at every W that misclassifies some token, P[S] of Assumption 4.2 (every misclassified "
        "token, its earliest misclassified LDT) is at least Assumption 4.3's delta, and the bound is attained: checked "
        "at every GD iterate W_t and at a constructed W whose S is exactly the least likely triple event (judged per "
        "task: the smallest P[S] over these is >= delta; at the constructed W it equals delta).",
        kind="numeric",
        configs={"quick": ImpliesConfig(), "full": ImpliesConfig(L=9, n=4, m=4, draws=6, steps=80)},
        predict=lambda cfg: [td.delta_a43(task, n=cfg.n)[0] for task in _implies_tasks(cfg)],
        observe=_observe_implies,
        judge=AtLeast(),
    )
)
