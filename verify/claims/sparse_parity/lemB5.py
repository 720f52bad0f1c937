"""Lemma B.5 (Edelman thesis, App. B.2.1): the first step of Thm 5.5's algorithm at the "unbiased" initialisation
(w_i ~ U{±1}^n, u_i ~ U{±1}, b_i on the grid {-1+1/k, ..., 1-1/k}, mirrored pairs; hinge loss).

Five claims:

* ``edelman-ch5-lemB.5-first-step-mean``: the proof's first step, E[grad l(f(x; theta_0), y)] = (g_i, gamma_i) of
  Lemma B.3 (f = 0 at initialisation, l'(0, y) = -y): the exact mean of the per-point hinge gradients of the network
  over {±1}^n (:func:`numerics.parity_sgd.lemB5_gradient_deviations`) against the Fourier form
  (:func:`theory.parity.lemB5_first_step_gradient`).
* ``edelman-ch5-lemB.5-gradient-concentration``: Eq. (B.6), with the lemma's tau and B every coordinate of the batch
  gradient is within tau of its mean with probability >= 1 - delta; judged on fresh (initialisation, batch) draws by
  the exact Clopper-Pearson rule (p0 = 1 - delta).
* ``edelman-ch5-lemB.5-hoeffding-step``: the proof's Hoeffding step for one coordinate, the exact trinomial tail
  (:func:`theory.parity.lemB5_coordinate_tail`) against the Monte Carlo frequency, and below 2 exp(-B tau^2/2).
* ``edelman-ch5-lemB.5-width-as-printed`` (refuted) and ``edelman-ch5-lemB.5-width`` (corrected): the proof's
  width step. A pair serves a bias slot -1/2 + i'/k with probability 2^(-k+1)/(2k-1) (printed: 1/(k 2^(k-1)), twice
  its own factors 2^(-k+1) and 1/(2k)); at the printed r >= k 2^k log(k/delta) some slot is left unserved with
  probability above delta; r >= k 2^(k+1) log(k/delta) suffices. The exact probability by inclusion-exclusion
  (theory) against a dynamic programme over the served slots and a Monte Carlo of :func:`numerics.parity_sgd.
  thm55_init` (numerics). Explained in docs/sparse_parity.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from numerics import parity_sgd as nps
from numerics.stats import clopper_pearson
from theory import parity as tpar

from ..base import Claim, Deviation, Erratum, Observation, Resolution, RunContext, register
from ..judges import AtMost, Check, ExactlyEqual, PerSeed, Population, RefutedIfViolated, Requiring, ZScore
from .common import SRC_CH5

__all__ = [
    "CONCENTRATION_RULE",
    "DELTA",
    "EPS",
    "RESOLUTION_REL",
    "ConcentrationConfig",
    "MeanConfig",
    "TailConfig",
    "WidthConfig",
]

#: The lemma's epsilon and delta (both in (0, 1/2)) of the concentration claim; tau and B follow from them.
EPS = Fraction(1, 4)
DELTA = Fraction(1, 4)
#: Eq. (B.6) holds with probability >= 1 - delta: p0 = 1 - delta; power against 0.95 (Hoeffding with a union bound
#: leaves the true failure rate far below delta, so any rate the lemma allows is at least 1 - delta).
CONCENTRATION_RULE = Population(p0=float(1 - DELTA), p_alt=0.95)

SRC = f"{SRC_CH5}, Lemma B.5"
#: The relative error of a tail that the Monte Carlo of the Hoeffding-step claim detects (measured, rounded up).
RESOLUTION_REL = 0.3
_WHERE = "Edelman thesis (2024), App. B.2.1, proof of Lemma B.5 (App. B.2, pp. 196-223 in the table of contents)"


def _grid(k: int) -> list[float]:
    return [float(b) for b in tpar.thm55_bias_grid(k)]


# --- the proof's first step: the mean gradient at initialisation is Lemma B.3's


@dataclass(frozen=True)
class MeanConfig:
    """Cases (n, k) (n odd, k even), ``inits`` initialisations of width ``width`` per case."""

    cases: tuple[tuple[int, int], ...]
    width: int = 6
    inits: int = 2
    seed: int = 50


def _mean_inits(cfg: MeanConfig):
    for n, k in cfg.cases:
        for e in range(cfg.inits):
            yield n, k, nps.thm55_init(n, cfg.width, _grid(k), cfg.seed + 1000 * n + e)


def _predict_mean(cfg: MeanConfig) -> list[Fraction]:
    out: list[Fraction] = []
    for n, k, (W, _, u) in _mean_inits(cfg):
        for i in range(W.shape[0]):
            g, gamma = tpar.lemB5_first_step_gradient(n, k, [int(v) for v in W[i]], int(u[i]))
            out += [*g, gamma]
    return out


def _exact_mean(values: np.ndarray, n: int) -> list[Fraction]:
    """float64 means of integers over 2^n points as exact rationals (sums of +-1 and 0: exact in float64)."""
    return [Fraction(round(float(v) * 2**n), 2**n) for v in values]


def _observe_mean(cfg: MeanConfig, ctx: RunContext) -> Observation:
    out: list[Fraction] = []
    max_f = 0.0
    for n, k, init in _mean_inits(cfg):
        res = nps.lemB5_gradient_deviations(n, k, init, 1, 1, 0)
        for i in range(init[0].shape[0]):
            out += _exact_mean(res["population_w"][i], n) + _exact_mean(res["population_b"][i : i + 1], n)
        max_f = max(max_f, res["max_abs_f"])
    return Observation(
        out,
        details={"max_abs_f_at_init": max_f, "order": "per case, init and neuron: g_i (n entries), then gamma_i"},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="edelman-ch5-lemB.5-first-step-mean",
        source=f"{SRC} (proof, first step) with Lemma B.3 (App. B.2.1)",
        statement="At the unbiased initialisation (mirrored pairs: f(x; theta_0) = 0) the mean over x in {±1}^n of the "
        "hinge-loss gradient is Lemma B.3's: g_ij = -1/2 u_i xi_{k-1} chi_{[k]\\{j}}(w_i) for j in [k], -1/2 u_i "
        "xi_{k+1} chi_{[k]+{j}}(w_i) otherwise, gamma_i = 0 (n odd, k even); checked exactly on every neuron.",
        kind="symbolic",
        configs={
            "quick": MeanConfig(((5, 2), (7, 2), (9, 4))),
            "full": MeanConfig(((5, 2), (7, 2), (9, 2), (9, 4), (11, 4), (11, 6)), width=12, inits=4),
        },
        predict=_predict_mean,
        observe=_observe_mean,
        judge=Requiring(ExactlyEqual(), at_most=(("max_abs_f_at_init", 1e-9),)),
    )
)


# --- Eq. (B.6): the batch gradient is within tau of its mean with probability >= 1 - delta


@dataclass(frozen=True)
class ConcentrationConfig:
    """Cases (n, k); per case ``draws`` fresh (initialisation, batch) pairs at the lemma's width, tau and B."""

    cases: tuple[tuple[int, int], ...]
    draws: int = 48
    seed: int = 60


def _schedule(n: int, k: int) -> dict[str, Any]:
    r = tpar.lemB5_width(k, DELTA)
    return {
        "n": n,
        "k": k,
        "width": r,
        "tau": tpar.lemB5_tau(n, k, EPS),
        "batch": tpar.lemB5_batch(n, k, r, EPS, DELTA),
        "delta": float(DELTA),
        "eps": float(EPS),
    }


def _predict_concentration(cfg: ConcentrationConfig) -> dict[str, Any]:
    return {"cases": [_schedule(n, k) for n, k in cfg.cases]}


def _observe_concentration(cfg: ConcentrationConfig, ctx: RunContext) -> Observation:
    rows = []
    for n, k in cfg.cases:
        s = _schedule(n, k)
        for d in range(cfg.draws):
            seed = cfg.seed + 10_000 * n + 100_000 * k + d
            init = nps.thm55_init(n, s["width"], _grid(k), seed)
            res = nps.lemB5_gradient_deviations(n, k, init, s["batch"], 1, seed)
            dev = float(res["max_deviation"][0])
            rows.append({"seed": seed, "n": n, "k": k, "max_deviation": dev, "max_dev_over_tau": dev / s["tau"]})
    ratios = [r["max_dev_over_tau"] for r in rows]
    return Observation(
        ratios,
        details={
            "per_draw": rows,
            "largest_ratio": max(ratios),
            "median_ratio": float(np.median(ratios)),
            "batch_law": "multinomial counts of B uniform draws over the 2^n points (the law of B i.i.d. samples)",
        },
        seeds=tuple(r["seed"] for r in rows),
    )


register(
    Claim(
        id="edelman-ch5-lemB.5-gradient-concentration",
        source=f"{SRC}, Eq. (B.6) (App. B.2.1)",
        statement="With tau = |xi_{k-1}|/(16k sqrt(2n log(2k/eps))), B >= (2/tau^2) log(4nr/delta) and r the lemma's "
        "width, every coordinate of the step-0 batch gradient (g_hat_i, gamma_hat_i) is within tau of its mean with "
        "probability >= 1 - delta over the sample (here over the initialisation and the sample; eps = delta = 1/4).",
        kind="numeric",
        configs={
            "quick": ConcentrationConfig(((5, 2), (7, 2))),
            "full": ConcentrationConfig(((5, 2), (7, 2), (9, 2), (9, 4), (11, 4)), draws=200),
        },
        predict=_predict_concentration,
        observe=_observe_concentration,
        judge=PerSeed(
            checks=(Check("max_dev_over_tau", "max_ij |g_hat - g| / tau (and the biases')", hi=1.0),),
            headline="max_dev_over_tau",
            rows="per_draw",
            rule=CONCENTRATION_RULE,
            runs=lambda cfg: len(cfg.cases) * cfg.draws,
            note="a draw is a fresh initialisation and batch; the largest and median ratios are reported",
        ),
        deviations={
            scale: (
                Deviation(
                    "n",
                    "n >= 2^11 k^4 c2^2 log(2k/eps)/c1^2 (Lemma B.5)",
                    "n = 5, 7" if scale == "quick" else "n = 5 .. 11",
                    "the concentration step (B.6) does not use the condition on n (only Lemma B.4 does); the 2^n "
                    "per-point gradients are exact at small n",
                ),
            )
            for scale in ("quick", "full")
        },
        insensitive="the lemma's numbers tau, B and the width are the setting each draw is run at (tau enters as the "
        "ratio's denominator), and delta enters the rule as p0 = 1 - delta, fixed before the run; the ratios are about "
        "0.3-0.7 (Hoeffding with a union bound is loose), so a 1 % change of tau moves no draw across 1",
    )
)


# --- the proof's Hoeffding step, one coordinate at a time: the exact tail and the bound 2 exp(-B tau^2/2)


@dataclass(frozen=True)
class TailConfig:
    """Cases (n, k, B, tau); per case one initialisation (width 6) and ``draws`` batches; the tail is read at
    neuron 0's coordinates j = 0 (in [k]), j = k (outside) and its bias."""

    cases: tuple[tuple[int, int, int, Fraction], ...]
    draws: int = 10_000
    seed: int = 80


def _tail_cases(cfg: TailConfig):
    for n, k, B, tau in cfg.cases:
        init = nps.thm55_init(n, 6, _grid(k), cfg.seed + 1000 * n + k)
        yield n, k, B, tau, init


def _predict_tails(cfg: TailConfig) -> list[float]:
    """The exact tails as floats (a Monte Carlo judges them; exact rationals of B-th powers would fill the record)."""
    out = []
    for n, k, B, tau, (W, _, u) in _tail_cases(cfg):
        g, gamma = tpar.lemB5_first_step_gradient(n, k, [int(v) for v in W[0]], int(u[0]))
        out += [float(tpar.lemB5_coordinate_tail(m, B, tau)) for m in (g[0], g[k], gamma)]
    return out


def _observe_tails(cfg: TailConfig, ctx: RunContext) -> Observation:
    freqs, ses, lower_ratio, rows = [], [], [], []
    for n, k, B, tau, init in _tail_cases(cfg):
        res = nps.lemB5_gradient_deviations(n, k, init, B, cfg.draws, cfg.seed + n, tau=float(tau))
        bound = tpar.lemB5_hoeffding_bound(B, tau)
        for label, j in (("w_0,0 (in [k])", 0), (f"w_0,{k} (outside [k])", k), ("b_0", n)):
            hits = int(res["tail_count"][0, j])
            f = hits / cfg.draws
            lo, hi = clopper_pearson(hits, cfg.draws)
            freqs.append(f)
            ses.append(math.sqrt(max(f * (1 - f), 1.0 / cfg.draws) / cfg.draws))
            lower_ratio.append(lo / bound)
            rows.append(
                {
                    "n": n,
                    "k": k,
                    "batch": B,
                    "tau": str(tau),
                    "coordinate": label,
                    "frequency": f,
                    "clopper_pearson_95": [lo, hi],
                    "hoeffding_bound": bound,
                }
            )
    return Observation(
        freqs,
        details={"stderr": ses, "mc_lower_over_hoeffding": lower_ratio, "per_coordinate": rows, "draws": cfg.draws},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="edelman-ch5-lemB.5-hoeffding-step",
        source=f"{SRC}, proof of Eq. (B.6) (App. B.2.1)",
        statement="One coordinate of the step-0 batch gradient, the mean of B per-point values -y u_i 1[w_i.x + b_i > 0] "
        "x_j in {-1, 0, 1} (non-zero on half the cube), has the exact tail P(|g_hat - g| >= tau) = sum over the "
        "counts (a, c) of +1 and -1 with |a - c - Bg| >= B tau of the trinomial law (p_+- = (1/2 +- g)/2, p_0 = 1/2), "
        "and it is at most the proof's Hoeffding bound 2 exp(-B tau^2/2): Monte Carlo within 4 SE of the exact tail "
        "for a coordinate in [k], one outside and the bias, and its Clopper-Pearson lower bound below Hoeffding's.",
        kind="numeric",
        configs={
            "quick": TailConfig(((7, 2, 128, Fraction(1, 8)), (9, 4, 128, Fraction(1, 8)))),
            "full": TailConfig(
                (
                    (7, 2, 128, Fraction(1, 8)),
                    (7, 2, 256, Fraction(1, 8)),
                    (9, 4, 128, Fraction(1, 8)),
                    (9, 4, 256, Fraction(1, 8)),
                    (7, 2, 512, Fraction(1, 16)),
                ),
                draws=200_000,
            ),
        },
        predict=_predict_tails,
        observe=_observe_tails,
        judge=Requiring(ZScore(4.0), at_most=(("mc_lower_over_hoeffding", 1.0),)),
        resolution=Resolution(
            rel=RESOLUTION_REL,
            why="Monte Carlo over 10,000 batches: 4 standard errors are about 18 % of tails near 0.05, and the draw's own "
            "offset (about 1 SE) adds to it",
        ),
        deviations={
            scale: (
                Deviation(
                    "B, tau",
                    "B >= (2/tau^2) log(4nr/delta), tau = |xi_{k-1}|/(16k sqrt(2n log(2k/eps))) (Lemma B.5)",
                    "B tau^2 = 2 and 4 (B = 128-512, tau = 1/8, 1/16)",
                    "at the lemma's own B the tail is far below 1e-6, out of reach of a Monte Carlo; the Hoeffding step "
                    "holds for every B and tau, and here the bound is not vacuous (0.74 and 0.27)",
                ),
            )
            for scale in ("quick", "full")
        },
    )
)


# --- the width step of the proof: every bias slot gets a serving pair


@dataclass(frozen=True)
class WidthConfig:
    """Cases (k, delta); ``draws`` Monte Carlo initialisations per case."""

    cases: tuple[tuple[int, Fraction], ...]
    draws: int = 1000
    seed: int = 70


def _width_cases(cfg: WidthConfig, corrected: bool):
    for k, delta in cfg.cases:
        yield k, delta, tpar.lemB5_width(k, delta, corrected=corrected)


def _observe_width(cfg: WidthConfig, corrected: bool) -> Observation:
    """The exact miss probability by the dynamic programme, and a Monte Carlo of the initialisation."""
    exact, rows = [], []
    for k, delta, r in _width_cases(cfg, corrected):
        grid = tpar.thm55_bias_grid(k)
        slots = [Fraction(-1, 2) + Fraction(i, k) for i in range(1, k + 1)]  # the proof's -1/2 + i'/k, i' in [k]
        p = nps.lemB5_miss_exact(k, r // 2, grid, slots)
        mc = nps.lemB5_slot_cover(k, r, [float(b) for b in grid], [float(s) for s in slots], cfg.draws, cfg.seed)
        missed = int(mc["missed"].sum())
        lo, hi = clopper_pearson(missed, cfg.draws)
        freq = missed / cfg.draws
        se = math.sqrt(max(float(p) * (1 - float(p)), 1e-12) / cfg.draws)
        exact.append(p)
        rows.append(
            {
                "k": k,
                "delta": str(delta),
                "width": r,
                "miss_exact_float": float(p),
                "miss_over_delta": float(p / delta),
                "mc_frequency": freq,
                "mc_clopper_pearson_95": [lo, hi],
                "mc_upper_over_delta": hi / float(delta),
                "mc_lower_over_delta": lo / float(delta),
                "mc_z": abs(freq - float(p)) / se,
                "sign_free": bool((mc["missed"] == mc["missed_minus"]).all()),
            }
        )
    return Observation(
        exact,
        details={
            "per_case": rows,
            "miss_over_delta": [r["miss_over_delta"] for r in rows],
            "mc_upper_over_delta": [r["mc_upper_over_delta"] for r in rows],
            "mc_z": [r["mc_z"] for r in rows],
            "sign_free": all(r["sign_free"] for r in rows),
            "draws": cfg.draws,
        },
        counterexample=None
        if corrected
        else {"per_case": rows, "delta_is_exceeded": [r["miss_over_delta"] > 1 for r in rows]},
        seeds=(cfg.seed,),
    )


_WIDTH_CONFIGS = {
    "quick": WidthConfig(((2, Fraction(1, 10)), (4, Fraction(1, 10)))),
    "full": WidthConfig(
        (
            (2, Fraction(1, 10)),
            (2, Fraction(1, 4)),
            (2, Fraction(2, 5)),
            (4, Fraction(1, 10)),
            (4, Fraction(1, 4)),
        ),
        draws=20_000,
    ),
}

register(
    Claim(
        id="edelman-ch5-lemB.5-width-as-printed",
        source=f"{SRC}, proof (the width step) as printed",
        statement="As printed: a mirrored pair serves a given bias slot -1/2 + i'/k (w_i constant on [k], b_i on the "
        "slot) with probability 1/(k 2^(k-1)), so with r >= k 2^k log(k/delta) every slot i' in [k] has a serving pair "
        "except with probability at most k (1 - 1/(k 2^(k-1)))^(r/2) <= delta. The exact probability is above both "
        "(k = 2, delta = 1/10, r = 24: 0.217 > 0.1; k = 4, r = 238: 0.395).",
        kind="symbolic",
        configs=_WIDTH_CONFIGS,
        predict=lambda cfg: [tpar.lemB5_miss_bound_as_printed(k, r) for k, _, r in _width_cases(cfg, False)],
        observe=lambda cfg, ctx: _observe_width(cfg, corrected=False),
        judge=RefutedIfViolated(AtMost()),
        refutes="for some fixed i in [r/2] and i' in [k], with probability 1/(k 2^(k-1)), b_i = b_(i+r/2) = -1/2 + "
        "i'/k and either w_ij = u_i sign xi_(k-1) or w_(i+r/2),j = u_(i+r/2) sign xi_(k-1); taking r >= k 2^k "
        "log(k/delta), no i in [r/2] satisfies it (fixed i') with probability <= delta/k",
        corrected_by="edelman-ch5-lemB.5-width",
        erratum=Erratum(
            "substantive",
            "For some random w_i ~ {+-1}^n, the probability that w_{i,j} = w_{i,j'} for all j, j' in [k] is "
            "2^{-k+1}. Additionally, for some fixed i' in [k], the probability that b_i = -1/2 + i'/k is 1/(2k). "
            "Therefore, for some fixed i in [r/2] and i' in [k], with probability 1/(k 2^{k-1}), b_i = b_{i+r/2} = "
            "-1/2 + i'/k and either w_{i,j} = u_i sign xi_{k-1} or w_{i+r/2,j} = u_{i+r/2,j} sign xi_{k-1}. Taking "
            "r >= k 2^k log(k/delta), we get that the probability that there is no i in [r/2] that satisfies the above "
            "condition (for fixed i') is: (1 - 1/(k 2^{k-1}))^{r/2} <= exp(-r/(2k 2^{k-1})) <= delta/k",
            f"{_WHERE}; the hypothesis r >= k 2^k log(k/delta) of Lemma B.5, inherited by Thm 5.5's "
            "r >= k 2^k log(8k/eps)",
        ),
    )
)

register(
    Claim(
        id="edelman-ch5-lemB.5-width",
        source=f"{SRC}, proof (the width step) corrected (docs/sparse_parity.md, errata)",
        statement="A mirrored pair of the unbiased initialisation serves a given bias slot -1/2 + i'/k with probability "
        "q = 2^(-k+1)/(2k-1) (bias grid of step 1/k), so some slot of [k] is unserved with probability exactly "
        "sum_{j=1}^k (-1)^(j+1) C(k,j) (1 - jq)^(r/2), which is at most delta for r >= k 2^(k+1) log(k/delta) (the "
        "proof's argument with its per-pair probability multiplied out, 1/(k 2^k) <= q). Exact (inclusion-exclusion "
        "against a dynamic programme) and a Monte Carlo of the initialisation (within 4 SE, its Clopper-Pearson upper "
        "bound <= delta).",
        kind="symbolic",
        configs=_WIDTH_CONFIGS,
        predict=lambda cfg: [tpar.lemB5_miss_probability(k, r) for k, _, r in _width_cases(cfg, True)],
        observe=lambda cfg, ctx: _observe_width(cfg, corrected=True),
        judge=Requiring(
            ExactlyEqual(),
            require=("sign_free",),
            at_most=(("miss_over_delta", 1.0), ("mc_upper_over_delta", 1.0), ("mc_z", 4.0)),
        ),
    )
)
