"""Claims of Shi thesis Ch. 5, Sec. 5.5 and App. D.3: sparse parity learned in context by a two-layer multi-head
attention model (Theorems 5.5.1 and 5.5.2).

The population model, the constructions g_1* and g_2*, and the errata of Theorem 5.5.1 (its optimality and
minimal-head-count statements are false; exact counterexamples) are explained in ``docs/attention_parity.md``.
Predictions come from :mod:`theory.attention_parity` (exact Fractions, closed forms); observations from the
brute-force margins of :mod:`theory.attention_parity` and the float64 / Monte Carlo code of
:mod:`numerics.attention_parity`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from numerics import attention_parity as nap
from theory import attention_parity as tap

from .base import Claim, Erratum, Observation, Resolution, RunContext, register
from .judges import (
    MC_Z,
    ExactlyEqual,
    ExactOrFloat,
    Judge,
    Predicate,
    Verdict,
    ZScore,
    as_float,
)

SRC = "Shi thesis (2024), Ch. 5"
#: The gamma at which norms and the p_T bound are stated (Thm 5.5.1, d = 8).
GAMMA = "0.1"


@dataclass(frozen=True)
class AttentionParityConfig:
    """d = 2^nu2 features, k = 2^nu1 important ones; the gammas checked; prompt lengths M and the Monte Carlo size
    and seed of Theorem 5.5.2."""

    nu1: int = 1
    nu2: int = 3
    gammas: tuple[str, ...] = ("0.05", "0.1", "0.2")
    M: tuple[int, ...] = (16, 64)
    n_draws: int = 100_000
    seed: int = 0


@dataclass(frozen=True)
class BehaviourConfig:
    """The (gamma, M) cells of the finite-M simulation and the number of prompts per cell."""

    cells: tuple[tuple[float, int], ...] = ((0.1, 16), (0.1, 64), (0.2, 16), (0.2, 64))
    n_prompts: int = 10_000
    seed: int = 0


def _task_sets(cfg: AttentionParityConfig) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    return tap.parity_task_sets(2**cfg.nu2, 2**cfg.nu1)


# --- Judges specific to this task


@dataclass(frozen=True)
class RefutedIfSmaller(Judge):
    """For a minimality statement as printed: ``refuted`` when an observed value (a quantity a valid
    counterexample attains; None when the candidate is not valid) is strictly smaller than the printed minimum,
    ``pass`` otherwise. Exact comparison, element by element."""

    what: tuple[str, ...]

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        smaller = [
            f"{name}: {float(g):.6g} < {float(p):.6g}"
            for name, p, g in zip(self.what, predicted, obs.value)
            if g is not None and g < p
        ]
        if smaller:
            return "refuted", "; ".join(smaller) + " (exact rational margins, see counterexample)"
        return "pass", "no counterexample: the printed minimum holds on these candidates"

    def describe(self) -> str:
        return "exact: any valid candidate below the printed " + " or ".join(self.what) + " refutes"


# --- Theorem 5.5.1 (Shi thesis Sec. 5.5, App. D.3): the constructions g_2* and g_1*


def _predict_construction(cfg: AttentionParityConfig) -> list:
    """From the closed form ``y g = Hamming(i - 1, j - 1)`` of g_2*: the minimum margin, the number of (task, pattern)
    cases attaining it, the same minimum for the float model at every gamma, and the S_2 hinge loss at every gamma."""
    d = 2**cfg.nu2
    pairs = [(i, j) for i in range(d) for j in range(d) if i != j]
    h = tap.hamming_margins(cfg.nu2, pairs)
    low = min(h)
    s2_loss = tap.hamming_hinge_loss(cfg.nu2, _task_sets(cfg)[1])
    return [low, sum(m == low for m in h), *[low] * len(cfg.gammas), *[s2_loss] * len(cfg.gammas)]


def _observe_construction(cfg: AttentionParityConfig, ctx: RunContext) -> Observation:
    g2 = tap.parity_construction(cfg.nu2)
    exact = [m for *_, m in tap.parity_margins(g2)]
    low = min(exact)
    floats = [float(nap.float_margins(g2, float(g)).min()) for g in cfg.gammas]
    losses = [tap.parity_hinge_loss(g2, _task_sets(cfg)[1], g) for g in cfg.gammas]
    return Observation(
        [low, sum(m == low for m in exact), *floats, *losses],
        details={
            "cases": len(exact),
            "gammas": list(cfg.gammas),
            "a": list(g2.a),
            "codes_4gammaV": [list(r) for r in g2.codes],
        },
    )


register(
    Claim(
        id="shi-thm5.5.1-construction",
        source=f"{SRC}, Theorem 5.5.1 (construction g_2*, docs/attention_parity.md)",
        statement="g_2* (d = 8, 2(nu2+1) = 8 heads, codes +-1 / -+3) has y g >= 1 on all 56 ordered pairs x 4 patterns "
        "(min margin exactly 1, 96 of 224 tight), independent of gamma: a zero-loss solution for every p_T.",
        kind="symbolic",
        configs={"quick": AttentionParityConfig(), "full": AttentionParityConfig()},
        predict=_predict_construction,
        observe=_observe_construction,
        judge=ExactOrFloat(1e-12, relative=True),
    )
)


def _predict_g1(cfg: AttentionParityConfig) -> list[Fraction]:
    """From the closed form ``y g = Hamming`` on the nu1 low bits: the minimum margin on S_1, then the S_2 hinge loss
    (the fraction of S_2 tasks whose indices agree on those bits) at every gamma."""
    s1, s2 = _task_sets(cfg)
    return [min(tap.hamming_margins(cfg.nu1, s1)), *[tap.hamming_hinge_loss(cfg.nu1, s2)] * len(cfg.gammas)]


def _observe_g1(cfg: AttentionParityConfig, ctx: RunContext) -> Observation:
    g1 = tap.parity_g1(cfg.nu1, cfg.nu2)
    s1, s2 = _task_sets(cfg)
    m1 = min(m for *_, m in tap.parity_margins(g1, s1))
    return Observation([m1, *[tap.parity_hinge_loss(g1, s2, g) for g in cfg.gammas]], details={"gammas": cfg.gammas})


register(
    Claim(
        id="shi-thm5.5.1-g1",
        source=f"{SRC}, Theorem 5.5.1 (g_1*, nu1 = 1)",
        statement="g_1* (heads {1, 4, 5, 8} of g_2* with positive code -nu1) has margin >= 1 on S_1 and S_2 hinge loss "
        "exactly 4/9 for every gamma.",
        kind="symbolic",
        configs={"quick": AttentionParityConfig(), "full": AttentionParityConfig()},
        predict=_predict_g1,
        observe=_observe_g1,
        judge=ExactlyEqual(),
    )
)


def _predict_pt_norm(cfg: AttentionParityConfig) -> list[Fraction]:
    """The p_T bound of Thm 5.5.1 (exact); ``(1 - p_T)(1/4 - gamma)`` at that bound (the right side of the equivalent
    form); the norm ``2 d nu2 (1 + nu2)/(16 gamma^2)`` of g_2*; all at gamma = 0.1."""
    pt = tap.parity_pt_bound(2**cfg.nu2, GAMMA)
    g = Fraction(GAMMA)
    return [pt, (1 - pt) * (Fraction(1, 4) - g), tap.parity_norm_formula(cfg.nu2, GAMMA)]


def _observe_pt_norm(cfg: AttentionParityConfig, ctx: RunContext) -> Observation:
    g = float(GAMMA)
    d = 2**cfg.nu2
    bound_float = (0.25 - g) / (d * (d - 1) / 2 * (0.25 + g) + 0.25 - g)
    # the bound is equivalent to (d(d-1)/2) p_T (1/4 + gamma) < (1 - p_T)(1/4 - gamma): the left side at the boundary
    pt = tap.parity_pt_bound(d, GAMMA)
    lhs = Fraction(d * (d - 1), 2) * pt * (Fraction(1, 4) + Fraction(GAMMA))
    norm = tap.parity_construction(cfg.nu2).frobenius_norm_sq(GAMMA)
    return Observation([bound_float, lhs, norm], details={"gamma": GAMMA})


register(
    Claim(
        id="shi-thm5.5.1-pT-and-norm",
        source=f"{SRC}, Theorem 5.5.1 (condition on p_T; norm of g_2*)",
        statement="p_T bound (1/4 - gamma)/((d(d-1)/2)(1/4 + gamma) + 1/4 - gamma) = 0.0150753768... at d = 8, gamma = 0.1, "
        "equivalent to (d(d-1)/2) p_T (1/4+gamma) < (1-p_T)(1/4-gamma); sum ||V||_F^2 of g_2* = "
        "2 d nu2 (1+nu2)/(16 gamma^2) = 1200.",
        kind="symbolic",
        configs={"quick": AttentionParityConfig(), "full": AttentionParityConfig()},
        predict=_predict_pt_norm,
        observe=_observe_pt_norm,
        judge=ExactOrFloat(1e-12, relative=True),
    )
)


def _heads_record(h: tap.ParityHeads) -> dict[str, Any]:
    return {"a": list(h.a), "codes_4gammaV": [list(r) for r in h.codes]}


def _predict_optimality(cfg: AttentionParityConfig) -> list:
    """As printed, both about g_2*: its head count 2(nu2 + 1) is the fewest that reach zero loss (proof, App. D.3.1),
    and its sum ||V||_F^2 at gamma = 0.1 is the least among zero-loss models with that head count (it is "the
    optimal solution for m = 2(nu2 + 1)")."""
    return [tap.parity_construction(cfg.nu2).m, tap.parity_norm_formula(cfg.nu2, GAMMA)]


def _observe_optimality_refuted(cfg: AttentionParityConfig, ctx: RunContext) -> Observation:
    """Each printed number against the same quantity of a zero-loss model of the kind the statement covers: the head
    count of the five-head model (``COUNTEREXAMPLE_M5``), and the norm of the eight-head model
    (``COUNTEREXAMPLE_M8``), which has g_2*'s head count. A value is None unless its model has zero loss (and, for
    the norm, exactly g_2*'s head count)."""
    h5 = tap.parity_heads(**tap.COUNTEREXAMPLE_M5)
    h8 = tap.parity_heads(**tap.COUNTEREXAMPLE_M8)
    g2 = tap.parity_construction(cfg.nu2)
    m5, m8, mg = (min(m for *_, m in tap.parity_margins(h)) for h in (h5, h8, g2))
    n5, n8, ng = (h.frobenius_norm_sq(GAMMA) for h in (h5, h8, g2))
    value = [h5.m if m5 >= 1 else None, n8 if m8 >= 1 and h8.m == g2.m else None]
    cex = {
        "compared": f"heads: five_head_model (zero loss) has {h5.m} < {g2.m} = 2(nu2+1), g2_star's, the printed minimum "
        f"(its own norm, {float(n5):.6g}, is above g2_star's and is not compared); norm at {g2.m} heads: "
        f"eight_head_model (zero loss, {h8.m} heads like g2_star) has sum ||V||_F^2 {float(n8):.6g} < {float(ng):.6g}",
        "five_head_model": {
            "heads": h5.m,
            "min_margin": m5,
            "sum_V_F2_gamma_0.1": n5,
            **_heads_record(h5),
            "float_min_margin_gamma_0.1": float(nap.float_margins(h5, float(GAMMA)).min()),
        },
        "g2_star": {"heads": g2.m, "sum_V_F2_gamma_0.1": ng, "sum_C2": g2.code_norm(), "min_margin": mg},
        "eight_head_model": {
            "heads": h8.m,
            "sum_V_F2_gamma_0.1": n8,
            "min_margin": m8,
            "sum_C2": h8.code_norm(),
            **_heads_record(h8),
        },
    }
    return Observation(value, counterexample=cex)


register(
    Claim(
        id="shi-thm5.5.1-optimality",
        source=f"{SRC}, Theorem 5.5.1 (optimality) and its proof in App. D.3.1 (minimal head count); errata (b), (c) in "
        "docs/attention_parity.md",
        statement="As printed: (i) zero loss needs at least 2(nu2+1) heads, the head count of g_2* (proof: 'the minimum "
        "number of neurons to cover all patterns in (I) and (II) is 2(nu2+1)', with 'to have zero loss, we need all "
        "patterns to be covered'); (ii) g_2* is the optimal (minimum-norm zero-loss, lambda -> 0+) solution for "
        "m = 2(nu2+1) heads (d = 8: 8 heads, sum ||V||_F^2 = 1200 at gamma = 0.1). Observed, each against g_2*'s "
        "own value: (i) the head count of a zero-loss five-head model; (ii) sum ||V||_F^2 of a zero-loss model with "
        "8 heads, g_2*'s head count.",
        kind="symbolic",
        configs={"quick": AttentionParityConfig(), "full": AttentionParityConfig()},
        predict=_predict_optimality,
        observe=_observe_optimality_refuted,
        judge=RefutedIfSmaller(
            what=(
                "head count of a zero-loss model (five_head_model) against g_2*'s 2(nu2+1)",
                "sum ||V||_F^2 of a zero-loss model with g_2*'s 8 heads (eight_head_model) against g_2*'s",
            )
        ),
        refutes="Thm 5.5.1: g_2* (m = 2(nu2+1)) is the optimal solution / lim_{lambda->0+} minimiser, and fewer heads cannot "
        "reach zero loss",
        corrected_by="shi-thm5.5.1-construction",
        erratum=Erratum(
            "substantive",
            "Theorem 5.5.1 (Optimal solution for parity). Consider k = 2^{nu_1}, d = 2^{nu_2}, and let g_1^* and "
            "g_2^* denote the optimal solutions for m = 2(nu_1 + 1) and m = 2(nu_2 + 1), respectively. ... Up to "
            "permutations, g_2^* has neurons (a^*, W^{*,(1)}, ..., W^{*,(m)}) ... [Proof:] To have zero loss, we "
            "need all patterns to be covered by m neurons ... Second, we prove that we need at least 2(nu_2 + 1) "
            "neurons to cover all patterns in (I) and (II). ... Therefore, the minimum number of neurons to "
            "cover all patterns in (I) and (II) is 2(nu_2 + 1).",
            "Shi thesis (2024), Ch. 5, Sec. 5.5.1 (p. 83 in the table of contents), Theorem 5.5.1; its proof in "
            "App. D.3.1 (pp. 428-432 in the table of contents)",
        ),
    )
)


def _predict_g1_optimality(cfg: AttentionParityConfig) -> list[Fraction]:
    """As printed: g_1*'s S_2 hinge loss (at gamma = 0.1) is the lowest among 2(nu1+1)-head models."""
    return [tap.parity_hinge_loss(tap.parity_g1(cfg.nu1, cfg.nu2), _task_sets(cfg)[1], GAMMA)]


def _observe_g1_refuted(cfg: AttentionParityConfig, ctx: RunContext) -> Observation:
    s1, s2 = _task_sets(cfg)
    better = tap.parity_g1(cfg.nu1, cfg.nu2, pos_scale=2)
    m1 = min(m for *_, m in tap.parity_margins(better, s1))
    l2 = tap.parity_hinge_loss(better, s2, GAMMA)
    return Observation(
        [l2 if m1 >= 1 else None],
        counterexample={"positive_code": 2, "S1_min_margin": m1, "S2_loss": l2, **_heads_record(better)},
    )


register(
    Claim(
        id="shi-thm5.5.1-g1-optimality",
        source=f"{SRC}, Theorem 5.5.1 (g_1* optimal for m = 2(nu1+1); erratum (a) in docs/attention_parity.md)",
        statement="As printed: g_1* is the optimum among 2(nu1+1)-head models for p_T > 0 (S_2 loss 4/9 at nu1 = 1, nu2 = 3).",
        kind="symbolic",
        configs={"quick": AttentionParityConfig(), "full": AttentionParityConfig()},
        predict=_predict_g1_optimality,
        observe=_observe_g1_refuted,
        judge=RefutedIfSmaller(
            what=("S_2 loss of a model with g_1*'s 2(nu1+1) heads and zero S_1 loss (positive code 2) against g_1*'s",)
        ),
        refutes="Thm 5.5.1: g_1* (positive-neuron scale nu1/(4 gamma)) is optimal for m = 2(nu1+1) heads",
        corrected_by="shi-thm5.5.1-g1",
        erratum=Erratum(
            "substantive",
            "let g_1^* and g_2^* denote the optimal solutions for m = 2(nu_1 + 1) and m = 2(nu_2 + 1), "
            "respectively. ... For i = nu_2 + 1 and any i_tau in [d], let a_i^* = +1 and V^{*,(i)}_{i_tau, "
            "i_tau} = -nu_j/(4 gamma) for g_j^*. ... g_1^* has the {1, ..., nu_1, nu_2 + 1, nu_2 + 2, ..., nu_2 "
            "+ nu_1 + 1, 2 nu_2 + 2}-th neurons of g_2^*. [Proof:] Thus, when m = 2(nu_1 + 1), the optimal "
            "solution will cover all patterns in (I) but not all in (II).",
            "Shi thesis (2024), Ch. 5, Sec. 5.5.1 (p. 83 in the table of contents), Theorem 5.5.1 (g_1^*); its "
            "proof in App. D.3.1 (pp. 428-432 in the table of contents)",
        ),
    )
)


# --- Theorem 5.5.2 (Shi thesis Sec. 5.5, App. D.3): the behaviour difference


def _predict_projection(cfg: AttentionParityConfig) -> list[sympy.Expr]:
    """The noise ratio (nu1+1)/(nu2+1) for every M, then E||P_{D_1} Xi||^2 and E||P_{D_2} Xi||^2 for every M."""
    ratio = tap.projection_ratio(cfg.nu1, cfg.nu2)[2]
    parts = [tap.projection_ratio(cfg.nu1, cfg.nu2, M)[:2] for M in cfg.M]
    return [ratio] * len(cfg.M) + [e for pair in parts for e in pair]


def _observe_projection(cfg: AttentionParityConfig, ctx: RunContext) -> Observation:
    by_M = {M: nap.projection_mc(cfg.nu1, cfg.nu2, M, cfg.n_draws, seed=cfg.seed + M) for M in cfg.M}
    value = [mc["ratio"] for mc in by_M.values()] + [mc[k] for mc in by_M.values() for k in ("D1", "D2")]
    stderr = [mc["ratio_se"] for mc in by_M.values()] + [mc[k + "_se"] for mc in by_M.values() for k in ("D1", "D2")]
    return Observation(
        value, details={"stderr": stderr, "by_M": {f"M={M}": mc for M, mc in by_M.items()}}, seeds=(cfg.seed,)
    )


register(
    Claim(
        id="shi-thm5.5.2-projection-ratio",
        resolution=Resolution(
            rel=0.018, why="Monte Carlo over 100,000 draws: 4 standard errors are 0.9-1.3 % of the prediction"
        ),
        source=f"{SRC}, Theorem 5.5.2 (P_Z with the pseudo-inverse, docs/attention_parity.md)",
        statement="E||P_{D_1} Xi||^2 / E||P_{D_2} Xi||^2 = (nu1+1)/(nu2+1) = 1/2 (E||P_{D_j} Xi||^2 = rank(D_j)/M = 2/M, 4/M), "
        "checked exactly and by Monte Carlo (each estimate within MC_Z = 4 standard errors; the ratio's by the delta "
        "method).",
        kind="numeric",
        configs={
            "quick": AttentionParityConfig(n_draws=100_000),
            "full": AttentionParityConfig(n_draws=1_000_000, M=(16, 64, 256)),
        },
        predict=_predict_projection,
        observe=_observe_projection,
        judge=ZScore(MC_Z),
    )
)


def _observe_behaviour(cfg: BehaviourConfig, ctx: RunContext) -> Observation:
    g1, g2 = tap.parity_g1(1, 3), tap.parity_construction(3)
    cells = {}
    for gamma, M in cfg.cells:
        a = nap.parity_behaviour_sim(g1, gamma, M, cfg.n_prompts, seed=cfg.seed + M)
        b = nap.parity_behaviour_sim(g2, gamma, M, cfg.n_prompts, seed=cfg.seed + M + 1)
        cells[f"gamma={gamma},M={M}"] = {"g1": a, "g2": b, "gamma": gamma, "M": M}
    hinge_ok = all(
        c["g2"]["hinge"] - c["g1"]["hinge"] > 4 * np.hypot(c["g1"]["hinge_se"], c["g2"]["hinge_se"])
        for c in cells.values()
    )
    # 0-1 error only where both models are away from chance (not gamma = 0.1, M = 16: docs/attention_parity.md)
    err_ok = all(
        c["g1"]["err01"] < c["g2"]["err01"] for c in cells.values() if not (c["gamma"] == 0.1 and c["M"] <= 16)
    )
    return Observation(
        {"hinge_g1_below_g2": hinge_ok, "err01_g1_below_g2": err_ok}, details={"cells": cells}, seeds=(cfg.seed,)
    )


def _predict_behaviour(cfg: BehaviourConfig) -> sympy.Expr:
    """Thm 5.5.2's noise ratio E||P_{D_1} Xi||^2 / E||P_{D_2} Xi||^2 of g_1* vs g_2* (nu1 = 1, nu2 = 3): below 1,
    so the smaller model sees less in-context noise."""
    return tap.projection_ratio(1, 3)[2]


def _smaller_model_wins(predicted: Any, obs: Any) -> bool:
    return bool(as_float(predicted) < 1 and obs.value["hinge_g1_below_g2"] and obs.value["err01_g1_below_g2"])


def _behaviour_reason(obs: Any) -> str:
    return (
        f"hinge(g1) < hinge(g2) by > 4 SE in every cell: {obs.value['hinge_g1_below_g2']}; "
        f"0-1 error(g1) < error(g2) away from chance: {obs.value['err01_g1_below_g2']}"
    )


register(
    Claim(
        id="shi-thm5.5.2-behaviour",
        source=f"{SRC}, Theorem 5.5.2 / Sec. 5.5 (finite-M behaviour difference, docs/attention_parity.md)",
        statement="On S_1 tasks with M in-context examples (G = I, d = 8, k = 2) the smaller model g_1* has a lower hinge loss "
        "than g_2* in every (gamma, M) cell (by more than 4 SE), and a lower 0-1 error wherever both are away from "
        "chance.",
        kind="numeric",
        configs={
            "quick": BehaviourConfig(),
            "full": BehaviourConfig(
                cells=tuple((g, M) for g in (0.1, 0.2) for M in (16, 64, 256, 1024)), n_prompts=40_000
            ),
        },
        predict=_predict_behaviour,
        observe=_observe_behaviour,
        judge=Predicate(
            test=_smaller_model_wins,
            text="noise ratio < 1 and, in every cell, hinge(g1) < hinge(g2) by > 4 SE; 0-1 error(g1) < error(g2) "
            "away from chance",
            why=_behaviour_reason,
        ),
        insensitive="Theorem 5.5.2 predicts only the direction of the finite-M gap (a noise ratio below 1), not its "
        "size, so moving the ratio by 1 % cannot change the ordering that is checked.",
    )
)
