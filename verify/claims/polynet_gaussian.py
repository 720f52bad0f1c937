"""Theorem 5.7 with N(0, 1) initialisation (Edelman thesis, Ch. 5 Thm 5.7 = informal Thm 5.3; full statement in
App. B.2.3; Fig. B.1 left): gradient flow on the disjoint-PolyNet f(x) = prod_i <w_i, x_{P_i}> from i.i.d. N(0, 1)
weights, conditioned on prod_i v_i(0) > 0, spends all but a 1 - o(1) share of its time before zero error at error
>= 49 %: T(1/2 - gamma)/T(0) = 1 - O~(n'^(1-k/2) gamma^(2/k-1)) with probability 1 - 1/poly(n').

Two claims. ``edelman-ch5-thm5.7-gaussian-init-crossing-times``: the exact first times T(0.49) and T(0) from
:mod:`theory.polynet` (the common shift q = v_i^2 - v_i(0)^2 of Lemma B.8's proof, the exact crossing shift from the
2^(n'-1) sums of each block's irrelevant weights, and the time t(q) by quadrature of the inverse-function formula)
against the flow integrated by ``solve_ivp`` with the exact 0-1 error read over all 2^(k n') inputs, block by block
(:mod:`numerics.polynet`). ``edelman-ch5-thm5.7-plateau-gaussian-init``: the theorem's statement over a population of
seeds, as the trend in n' (paired seeds: the same relevant weights and nested irrelevant ones at every n'): the share
1 - T(0.49)/T(0) of the time spent below 49 % error shrinks as n' grows. docs/boolean.md explains the reading (the
O~ hides the constant, so no fixed-n' threshold is judged).

Kept apart from :mod:`verify.claims.polynet` so that no archived record of that module goes stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from numerics import polynet as npn
from theory import polynet as tp
from theory._checks import InputError

from .base import Claim, Observation, PostHoc, RunContext, register
from .judges import Check, MaxAbs, PerSeed, Population

SRC = "Edelman thesis (2024)"
SOURCE = f"{SRC}, Thm 5.7 (Sec. 5.4.2 informal Thm 5.3; full statement, N(0, 1) init, App. B.2.3), Lemma B.8, Fig. B.1"


# --- the exact crossing times from N(0, 1) draws (theory vs the integrated flow)


@dataclass(frozen=True)
class CrossingConfig:
    """Cases (k, n'); ``draws`` N(0, 1) initialisations per case (conditioned on prod_i v_i(0) > 0), drawn from
    ``draw_seed + j`` (fixed draws, not a seed population); the error levels."""

    cases: tuple[tuple[int, int], ...]
    draws: int = 4
    draw_seed: int = 0
    levels: tuple[str, ...] = ("0.49", "0")


def _draws(cfg: CrossingConfig) -> list[tuple[int, int, int, np.ndarray]]:
    return [
        (k, m, cfg.draw_seed + j, npn.gaussian_init(k, m, cfg.draw_seed + j))
        for k, m in cfg.cases
        for j in range(cfg.draws)
    ]


def _predict_crossings(cfg: CrossingConfig) -> list[float]:
    """T(eps) for every draw and level: theory's exact crossing shift q*, then t(q*) by quadrature."""
    out = []
    for _, _, _, W in _draws(cfg):
        v0, u = W[:, 0].tolist(), W[:, 1:].tolist()
        out += [tp.first_time_error_at_most_general(level, v0, u)[1] for level in cfg.levels]
    return out


def _observe_crossings(cfg: CrossingConfig, ctx: RunContext) -> Observation:
    """The flow by ``solve_ivp`` (rtol 1e-12) and the first time the block-by-block brute-force error is <= each
    level (bisected to 1e-13 relative)."""
    out, rows = [], []
    for k, m, seed, W in _draws(cfg):
        r = npn.flow_error_crossings(W, [float(Fraction(level)) for level in cfg.levels])
        out += r["times"]
        rows.append(
            {
                "k": k,
                "n_prime": m,
                "draw_seed": seed,
                "times": r["times"],
                "error_non_increasing_on_grid": r["monotone"],
                "irrelevant_moved": r["irrelevant_moved"],
            }
        )
    return Observation(
        out,
        details={
            "per_draw": rows,
            "levels": list(cfg.levels),
            "all_monotone": all(r["error_non_increasing_on_grid"] for r in rows),
            "max_irrelevant_moved": max(r["irrelevant_moved"] for r in rows),
            "init": "i.i.d. N(0, 1) weights (k, n'), w_11 negated when prod_i w_i1 < 0 (the exact conditional law)",
            "flow": "solve_ivp DOP853 (rtol 1e-12, atol 1e-14) of all k n' weights under the population gradient",
            "error": "exact 0-1 error over all 2^(k n') inputs, block by block (independent blocks)",
        },
    )


register(
    Claim(
        id="edelman-ch5-thm5.7-gaussian-init-crossing-times",
        source=f"{SOURCE}; Lemma B.9's error (eq. B.12, corrected)",
        statement="From i.i.d. N(0, 1) weights with prod_i v_i(0) > 0, gradient flow on the disjoint-PolyNet keeps the "
        "irrelevant weights fixed and moves v_i^2 = v_i(0)^2 + q(t) with t(q) = int_0^q 1/2 prod_i (g + v_i(0)^2)^(-1/2) "
        "dg (Lemma B.8's proof); the error is 1/2 - 1/2 prod_i P(|U_i| < |v_i|) off the atoms of U_i = u_i . z, so the "
        "first times T(0.49) and T(0) at which it is <= 0.49 and 0 are t(q*) at the exact crossing shifts q* "
        "(theory) - equal to the first times read off the integrated flow with the error counted over all 2^(k n') "
        "inputs (absolute 1e-9).",
        kind="numeric",
        configs={
            "quick": CrossingConfig(cases=((3, 9), (4, 7)), draws=3),
            "full": CrossingConfig(cases=((3, 5), (3, 9), (3, 13), (4, 5), (4, 9), (4, 13), (5, 9)), draws=8),
        },
        predict=_predict_crossings,
        observe=_observe_crossings,
        judge=MaxAbs(1e-9),
    )
)


# --- the theorem's statement over a seed population: the post-plateau share shrinks as n' grows

#: The rule on (seed, k) units: the theorem holds with probability 1 - 1/poly(n') at each n' (no constant), read as
#: "almost always" at the sizes run: p0 = 3/4 (post hoc, see POST_HOC), power against 0.95.
PLATEAU_RULE = Population(p0=0.75, p_alt=0.95)

POST_HOC = (
    PostHoc(
        "p0, n' grid, k",
        "p0 = 0.75; full k = 3, 4, 5, n' = 5 -> 9 -> 17",
        "2026-11-29, a pilot before the claim was written (16 seeds at k = 4, n' = 5, 9, 17 and 8 seeds at k = 3, "
        "n' = 6, 11, 21, exact error and quadrature, another draw layout than the claim's)",
        "the pilot showed the share 1 - T(0.49)/T(0) shrinking from the smallest to the largest n' for all 16 k = 4 "
        "seeds and 7 of 8 k = 3 seeds (the other starts below 49 % error at every size: |v_i(0)| large against "
        "sqrt(n')); the target rate and the sizes were set with that knowledge",
    ),
    PostHoc(
        "quick n' grid",
        "n' = 5 -> 17 (k = 4, 24 seeds)",
        "2026-11-29 13:45 UTC, the claim's first quick run, at n' = 5 -> 11: 20 of 24 seeds shrank, rate in "
        "[0.658, 0.941], inconclusive",
        "the theorem's order n'^(1-k/2) = 1/n' predicts a shrink by 5/11 = 0.45 only, within the seed-to-seed spread of "
        "the share at these sizes; 5 -> 17 (5/17 = 0.29) is the pilot's span. The 24 seeds' shares at n' = 5, 11 and 17 "
        "were looked at before the change (all 24 shrink from 5 to 17): the quick pass is post hoc, the full scale's "
        "48 seeds at k = 3, 4, 5 are not",
    ),
)


@dataclass(frozen=True)
class GaussianPlateauConfig:
    """Blocks ``ks``; paired block sizes ``n_primes`` (increasing: the same relevant weights and the first n' - 1
    irrelevant ones of one N(0, 1) draw per seed); the error level eps = 1/2 - gamma."""

    ks: tuple[int, ...]
    n_primes: tuple[int, ...]
    seeds: tuple[int, ...]
    eps: str = "0.49"


def _predict_plateau(cfg: GaussianPlateauConfig) -> dict[str, Any]:
    """The theorem's order n'^(1-k/2) gamma^(2/k-1) at every (k, n') (no constant: reported beside the observed
    shares) and the shrink factor it implies from the smallest to the largest n'."""
    gamma = Fraction(1, 2) - Fraction(cfg.eps)
    rates = {str(k): [tp.thm57_rate(k, m, gamma) for m in cfg.n_primes] for k in cfg.ks}
    return {
        "rate": rates,
        "shrink_factor": {k: r[-1] / r[0] for k, r in rates.items()},
        "eps": float(Fraction(cfg.eps)),
    }


def _plateau_row(k: int, seed: int, n_primes: tuple[int, ...], eps: float) -> dict[str, Any]:
    """One (seed, k) unit: the flow at every n' of the paired grid (nested draws) and its shares."""
    W_all = npn.gaussian_init(k, max(n_primes), seed)
    fractions: list[float | None] = []
    monotone, moved, skipped = True, 0.0, []
    for m in n_primes:
        try:
            r = npn.flow_error_crossings(W_all[:, :m], [eps, 0.0], grid=32, tol=1e-12)
        except InputError:  # every |v_i(0)| > ||u_i||_1: the error is 0 at t = 0, no plateau to measure
            fractions.append(None)
            skipped.append(m)
            continue
        t_eps, t_zero = r["times"]
        fractions.append(t_eps / t_zero)
        monotone = monotone and r["monotone"]
        moved = max(moved, r["irrelevant_moved"])
    shares = [None if f is None else 1.0 - f for f in fractions]
    shrinks = shares[0] is not None and shares[-1] is not None and shares[-1] < shares[0]
    return {
        "seed": seed,
        "k": k,
        "n_primes": list(n_primes),
        "v0": W_all[:, 0].tolist(),
        "plateau_fraction": fractions,
        "post_plateau_share": shares,
        "post_plateau_last": shares[-1] if shares[-1] is not None else float("nan"),
        "shrinks": shrinks,
        "error_non_increasing_on_grid": monotone,
        "irrelevant_moved": moved,
        "zero_error_at_start": skipped,
    }


def _observe_plateau(cfg: GaussianPlateauConfig, ctx: RunContext) -> Observation:
    """Every (seed, k): gradient flow from the seed's N(0, 1) draw at each n' (:func:`numerics.polynet.
    flow_error_crossings`: solve_ivp, the error over all inputs block by block), T(0.49)/T(0) and its complement."""
    seeds = ctx.options.seeds(cfg.seeds)
    eps = float(Fraction(cfg.eps))
    rows = [_plateau_row(k, s, cfg.n_primes, eps) for k in cfg.ks for s in seeds]
    summary, series = [], []
    for k in cfg.ks:
        mine = [r for r in rows if r["k"] == k]
        med = [
            float(np.median([r["post_plateau_share"][j] for r in mine if r["post_plateau_share"][j] is not None]))
            for j in range(len(cfg.n_primes))
        ]
        summary.append({"k": k, "n_primes": list(cfg.n_primes), "median_post_plateau_share": med})
        series.append({"label": f"median 1 - T({cfg.eps})/T(0), k={k}", "x": list(cfg.n_primes), "y": med})
        rate = [tp.thm57_rate(k, m, 0.5 - eps) for m in cfg.n_primes]
        series.append(
            {
                "label": f"n'^(1-k/2) through the first median (k={k})",
                "x": list(cfg.n_primes),
                "y": [med[0] * x / rate[0] for x in rate],
                "ls": "--",
                "marker": "",
            }
        )
    plots = [
        {
            "name": "post-plateau-share",
            "kind": "lines",
            "series": series,
            "xscale": "log",
            "yscale": "log",
            "xlabel": "block size n'",
            "ylabel": f"1 - T({cfg.eps})/T(0)",
            "title": "Thm 5.7, N(0,1) init: share of the flow after the error first drops to 0.49 (median over seeds)",
        }
    ]
    return Observation(
        [r["post_plateau_last"] for r in rows],
        details={
            "per_seed": rows,
            "median_by_k": summary,
            "init": "i.i.d. N(0, 1) weights, w_11 negated when prod_i w_i1 < 0 (the exact conditional law); nested in "
            "n' (the (k, n') weights are the first n' columns of the seed's (k, max n') draw)",
            "flow": "solve_ivp DOP853 (rtol 1e-12) of all k n' weights under the population gradient, up to zero error",
            "error": "exact 0-1 error over all 2^(k n') inputs, block by block; first crossings bisected to 1e-12",
        },
        artifacts={"plots": plots},
        seeds=seeds,
    )


_STATEMENT = (
    "Thm 5.7 (full statement): with all weights of a disjoint-PolyNet i.i.d. N(0, 1) and k >= 3, conditioned on "
    "prod_i v_i(0) > 0, with probability 1 - 1/poly(n'), T(1/2 - gamma)/T(0) = 1 - O~(n'^(1-k/2) gamma^(2/k-1)) "
    "under gradient flow (T(eps) the first time the 0-1 error is <= eps): the share of the time before zero error "
    "spent below 49 % error is o(1) in n'. The O~ hides its constant and log factors, so a fixed-n' threshold would "
    "be a fitted constant; judged as the trend on paired seeds (the same v(0), nested irrelevant weights): per "
    "(seed, k), 1 - T(0.49)/T(0) is smaller at the largest n' than at the smallest."
)

register(
    Claim(
        id="edelman-ch5-thm5.7-plateau-gaussian-init",
        source=SOURCE,
        statement=_STATEMENT,
        kind="training",
        configs={
            "quick": GaussianPlateauConfig(ks=(4,), n_primes=(5, 17), seeds=tuple(range(24))),
            "full": GaussianPlateauConfig(ks=(3, 4, 5), n_primes=(5, 9, 17), seeds=tuple(range(48))),
        },
        predict=_predict_plateau,
        observe=_observe_plateau,
        judge=PerSeed(
            checks=(
                Check("shrinks", "1 - T(0.49)/T(0) smaller at the largest n' than at the smallest", truthy=True),
                Check("error_non_increasing_on_grid", "error non-increasing along the flow (grid read)", truthy=True),
                Check("irrelevant_moved", "max change of an irrelevant weight", hi=0.0),
            ),
            headline="post_plateau_last",
            rule=PLATEAU_RULE,
            runs=lambda cfg: len(cfg.ks) * len(cfg.seeds),
            note="reported, not judged: the median share per n' beside the theorem's order n'^(1-k/2)",
        ),
        on_device=False,
        post_hoc=POST_HOC,
        deviations={"quick": (), "full": ()},
        note=(
            "Gradient flow is integrated by an adaptive solver (the theorem's setting); Fig. B.1 (left) shows "
            "population gradient descent with a small, unprinted step, and its n, k and step count did not survive "
            "in the text, so the full scale runs k = 3, 4, 5 at n' up to 17 (the exact error enumerates 2^n' inputs "
            "per block). The exact crossing times are checked against theory in "
            "edelman-ch5-thm5.7-gaussian-init-crossing-times. Seeds whose error is already below 49 % at t = 0 at "
            "every n' (large |v_i(0)| against sqrt(n'), the theorem's 1/poly(n') event) fail the criterion."
        ),
        insensitive=(
            "the theorem's order n'^(1-k/2) comes with no constant (O~), so the per-seed criterion is the direction "
            "only (the post-plateau share shrinks as n' grows, the o(1)); the rate is reported beside the observed "
            "medians, not judged; the exact times are judged against theory in "
            "edelman-ch5-thm5.7-gaussian-init-crossing-times"
        ),
    )
)
