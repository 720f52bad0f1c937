r"""Lemma 4.7 (the Lipschitz bound of an attention head in its parameters), Cor. A.7 (softmax's Jacobian) and
Prop. 4.8 (unbounded heads shatter floor(log2 T) inputs) of the Edelman thesis.

The covering-number statements built on them (Thm 4.6, Cor. 4.9, Lemma 4.10, Thm 4.11) are not checked
numerically: computing an l_inf covering number of a function class is itself a hard optimisation, and the bounds
are stated only up to unspecified constants and logarithmic factors (docs/sparse_variable.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from numerics import sparse_variable as ns
from theory import sparse_variable as ts

from ..base import Claim, Observation, RunContext, register
from ..judges import ExactOrFloat, MaxAbs, Requiring
from .common import SRC, SRC_A1


@dataclass(frozen=True)
class Lemma47Config:
    """``n_random`` random heads per kind of perturbation (T tokens of width d, head width k, random parameter
    scales and perturbation sizes, identity and tanh outputs), plus the adversarial cases of
    :func:`numerics.sparse_variable.lemma47_ratios` (score perturbation ``eps``)."""

    n_random: int = 400
    T: int = 16
    d: int = 6
    k: int = 4
    eps: float = 1e-4
    seed: int = 0


def _predict_l47(cfg: Lemma47Config) -> list[Fraction]:
    """The sharp suprema of lhs/rhs: 1/2 for score perturbations (the softmax constant is 1, C_Norm = 2 is used),
    1 for value perturbations (:func:`theory.sparse_variable.lemma47_sharp_ratios`)."""
    return list(ts.lemma47_sharp_ratios())


def _observe_l47(cfg: Lemma47Config, ctx: RunContext) -> Observation:
    best = ns.lemma47_ratios(cfg.n_random, np.random.default_rng(cfg.seed), cfg.T, cfg.d, cfg.k, cfg.eps)
    random_only = ns.lemma47_ratios(cfg.n_random, np.random.default_rng(cfg.seed + 1), cfg.T, cfg.d, cfg.k, eps=1.0)
    return Observation(
        [best["score"], best["in"]],
        details={
            "largest_ratio": best,
            "never_exceeds_bound": bool(max(best.values()) <= 1 + 1e-9),
            "tightness_with_eps_1": random_only,
            "draws": 3 * cfg.n_random,
        },
    )


register(
    Claim(
        id="edelman-ch4-lem4.7-lipschitz",
        source=f"{SRC}, Lemma 4.7 (proof in App. A.1.4)",
        statement="For a Transformer head f = sigma(W_V^T X^T softmax(X W_QK^T z)) with ||x_t|| <= B_X: ||f(theta) - "
        "f(theta_hat)|| <= C_Norm L_out B_in B_X ||Score - Score_hat||_inf + L_out ||phi_in - phi_in_hat||_{2,inf} "
        "(C_Norm = 2) for every parameter perturbation; the largest ratio of the two sides is 1/2 when only the scores "
        "move (the softmax's l_inf -> l_1 constant is 1, half of C_Norm) and 1 when only the values move.",
        kind="numeric",
        configs={"quick": Lemma47Config(), "full": Lemma47Config(n_random=20_000)},
        predict=_predict_l47,
        observe=_observe_l47,
        judge=Requiring(MaxAbs(1e-3), ("never_exceeds_bound",)),
    )
)


@dataclass(frozen=True)
class SoftmaxConfig:
    """Context lengths; ``n_random`` random score vectors (and pairs) per T."""

    Ts: tuple[int, ...] = (2, 3, 8, 64)
    n_random: int = 2000
    seed: int = 0


def _predict_softmax(cfg: SoftmaxConfig) -> list[Fraction]:
    """``sup ||J||_{1,1} = 2(1 - 1/T)`` (<= C_softmax = 2) for each T, then the sharp l_inf -> l_1 constant 1."""
    return [ts.softmax_l11_sup(T) for T in cfg.Ts] + [ts.softmax_linf_to_l1_constant()] * len(cfg.Ts)


def _observe_softmax(cfg: SoftmaxConfig, ctx: RunContext) -> Observation:
    rng = np.random.default_rng(cfg.seed)
    l11, lip = [], []
    for T in cfg.Ts:
        theta = rng.normal(size=(cfg.n_random, T)) * rng.uniform(0, 3, size=(cfg.n_random, 1))
        l11.append(float(max(ns.softmax_l11(theta).max(), ns.softmax_l11(np.zeros(T))[0])))
        # random pairs, and a small sign perturbation at scores that split the mass in half
        t2 = theta + rng.normal(size=theta.shape) * 10 ** rng.uniform(-4, 0, size=(cfg.n_random, 1))
        half = np.where(np.arange(T) < T - T % 2, 0.0, -40.0)  # an even number of equal scores (odd T: one muted)
        sign = np.where(np.arange(T) < (T - T % 2) // 2, 1.0, -1.0)
        lip.append(
            float(
                max(
                    ns.softmax_linf_to_l1_ratio(theta, t2).max(),
                    ns.softmax_linf_to_l1_ratio(half[None], (half + 1e-6 * sign)[None])[0],
                )
            )
        )
    return Observation(
        l11 + lip,
        details={
            "Ts": list(cfg.Ts),
            "C_softmax": float(ts.C_SOFTMAX),
            "within_C_softmax": bool(max(l11) <= float(ts.C_SOFTMAX)),
        },
    )


register(
    Claim(
        id="edelman-ch4-corA7-softmax",
        source=f"{SRC_A1}, Cor. A.7 and Lemma A.6",
        statement="||J softmax(theta)||_{1,1} = 2 sum_i p_i (1 - p_i) <= 2 = C_softmax; its supremum over R^T is "
        "2(1 - 1/T) (uniform p), and the sharp constant in ||softmax(a) - softmax(b)||_1 <= L ||a - b||_inf is L = 1 "
        "(attained in the limit at scores that split the mass in half), half of C_softmax.",
        kind="numeric",
        configs={"quick": SoftmaxConfig(), "full": SoftmaxConfig(Ts=(2, 3, 8, 64, 1024), n_random=20_000)},
        predict=_predict_softmax,
        observe=_observe_softmax,
        judge=Requiring(ExactOrFloat(1e-5, relative=True), ("within_C_softmax",)),
    )
)


@dataclass(frozen=True)
class ShatterConfig:
    """Context lengths for the construction of the proof of Prop. 4.8 (powers of 2 and others)."""

    Ts: tuple[int, ...] = (2, 3, 8, 50, 64, 1000, 1024)


def _predict_shatter(cfg: ShatterConfig) -> list[int]:
    """``2^floor(log2 T)``: every sign pattern on the floor(log2 T) inputs (a shattering)."""
    return [2 ** ts.shattering_size(T) for T in cfg.Ts]


def _observe_shatter(cfg: ShatterConfig, ctx: RunContext) -> Observation:
    counts, weights = [], []
    for T in cfg.Ts:
        patterns, w = ns.shattering_patterns(T)
        counts.append(len({tuple(r) for r in patterns.astype(int)}))
        weights.append(float(w.min()))
    bound = float(ts.prop48_target_weight_bound())
    return Observation(
        counts,
        details={
            "Ts": list(cfg.Ts),
            "min_weight_on_target": weights,
            "proof_lower_bound": bound,
            "target_weight_above_bound": bool(min(weights) >= bound),
            "w_QK_norm": [float(T) ** 2 for T in cfg.Ts],
        },
    )


register(
    Claim(
        id="edelman-ch4-prop4.8-shattering",
        source=f"{SRC}, Prop. 4.8 (proof in App. A.1.3)",
        statement="With d = 3 and unbounded weights (||w_QK|| = T^2), the heads w_QK^(s) = T^2 (cos 2 pi s/T, "
        "sin 2 pi s/T, 0), w_V = e_3 realise all 2^floor(log2 T) sign patterns of f - 1/2 on the inputs "
        "x_t^(i) = (cos 2 pi t/T, sin 2 pi t/T, bit_i(t)), i < floor(log2 T): pseudo-dimension >= floor(log2 T); each "
        "head puts weight >= 1/(1 + sqrt(pi/8)) > 1/2 on position s.",
        kind="numeric",
        configs={"quick": ShatterConfig(), "full": ShatterConfig(Ts=(2, 3, 8, 50, 64, 1000, 1024, 4096, 10_000))},
        predict=_predict_shatter,
        observe=_observe_shatter,
        judge=Requiring(ExactOrFloat(0.0), ("target_weight_above_bound",)),
    )
)
