"""Theorem 5.8 end to end (Edelman thesis Sec. 5.4.2, full statement and Claims B.11-B.12 in App. B.2.4): online SGD
on the disjoint-PolyNet f(x) = prod_i <w_i, x_{P_i}> (k blocks of n' coordinates, correlation loss) with the
theorem's adaptive rate eta_i = 1/(2 sqrt(2T log(2nT/delta)) prod_{l != i} ||w_l||_1), uniform ±1 initialisation
and batch size B = 1 reaches error <= eps after the stated T >= 6 log(2nT/delta) log(2k/eps) (3n'-2)^(2k-1) steps,
with probability 1/2 over the initialisation (prod_i sign w_{i,1} > 0) and 1 - delta over the sampling; along the
run the irrelevant weights stay within 3/2 (Claim B.11) and the relevant ones keep their sign and grow at least as
fast as the proof's induction derives (Claim B.12, with |w_{i,1}| >= 1/2 at t = 0).

The step count, the rate and the bounds come from :mod:`theory.polynet` (``thm58_*``); the run is
:func:`numerics.polynet.polynet_sgd` (numpy, seeds batched, each with its own sample stream) and the error the exact
0-1 error by brute force over {±1}^n (:func:`numerics.polynet.error_bruteforce`). docs/sparse_parity.md explains the
reading (the theorem's probability-1/2 event is sampled exactly; the printed Claim B.12 and the proof's last steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from numerics import polynet as npn
from theory import polynet as tp

from ..base import Claim, Observation, RunContext, register
from ..judges import Population, Verdict
from .common import SRC_CH5, SeedPopulation

__all__ = ["DELTA", "THM58_RULE", "Thm58Config", "Thm58Runs", "run_case"]

#: The sampling failure probability delta of every run (both scales): the theorem's rate 1 - delta is the target p0.
DELTA = Fraction(1, 5)
#: The rule on (seed, case) runs: p0 = 1 - delta, the rate Thm 5.8 guarantees on its initialisation event; power is
#: taken against 0.98 (the proof's bounds have slack: Azuma's bound on the sampling martingale is far from tight).
THM58_RULE = Population(p0=float(1 - DELTA), p_alt=0.98)


@dataclass(frozen=True)
class Thm58Config:
    """Cases (k, n') of the disjoint-PolyNet, the seeds run at each, the target error eps, the batch size and the
    number of intervals the invariants are kept over (the weights are read at each interval's end)."""

    cases: tuple[tuple[int, int], ...]
    seeds: tuple[int, ...]
    eps: str = "0.25"
    batch_size: int = 1
    intervals: int = 64


def _ends(steps: int, intervals: int) -> list[int]:
    """The update counts at which :func:`numerics.polynet.polynet_sgd` closes its intervals."""
    return npn.polynet_sgd_interval_ends(steps, intervals).tolist()


def _predict(cfg: Thm58Config) -> dict[str, Any]:
    """Per case: the stated step count T, eps, Claim B.11's bound and the induction's lower bound of Claim B.12 at
    every interval end (the interval's smallest relevant weight is held to the bound at its end: conservative)."""
    out = []
    for k, m in cfg.cases:
        T = tp.thm58_steps(k, m, cfg.eps, DELTA)
        out.append(
            {
                "k": k,
                "n_prime": m,
                "steps": T,
                "eps": float(Fraction(cfg.eps)),
                "irrelevant_bound": float(tp.THM58_IRRELEVANT_BOUND),
                "relevant_bound": [
                    tp.thm58_relevant_lower_bound(k, m, T, DELTA, t) for t in _ends(T, min(cfg.intervals, T))
                ],
            }
        )
    return {"cases": out}


def run_case(
    k: int, m: int, seeds: tuple[int, ...], eps: float, steps: int, rate: float, batch_size: int, intervals: int
) -> tuple[list[dict[str, Any]], list[int], np.ndarray]:
    """One case (k, n') run for ``steps`` updates with rate constant ``rate``: per seed its row (the exact error at
    every interval end, the last being err(w^(T+1)); the first interval end with error <= eps; the invariants'
    extremes), the interval ends and the median over seeds of min_i |w_i1| at each end."""
    W0 = np.stack([npn.polynet_sgd_init(k, m, s) for s in seeds])
    run = npn.polynet_sgd(W0, steps, rate, seeds, batch_size=batch_size, intervals=intervals)
    ends = run["ends"].tolist()
    rows = []
    for e, seed in enumerate(seeds):
        errs = [npn.error_bruteforce(run["weights"][j, e]) for j in range(len(ends))]
        hit = next((t for t, err in zip(ends, errs) if err <= eps), None)
        rows.append(
            {
                "seed": seed,
                "k": k,
                "n_prime": m,
                "steps": steps,
                "final_error": errs[-1],
                "first_step_error_at_most_eps": hit,
                "fraction_of_T": None if hit is None else hit / steps,
                "irrelevant_max": float(run["irrelevant_max"][:, e].max()),
                "relevant_min_by_interval": run["relevant_min"][:, e].tolist(),
                "final_relevant": run["weights"][-1, e, :, 0].tolist(),
            }
        )
    median = np.median(np.abs(run["weights"][:, :, :, 0]).min(axis=2), axis=1)
    return rows, ends, median


def _observe(cfg: Thm58Config, ctx: RunContext) -> Observation:
    """Run every case for its stated T steps with the theorem's rate (:func:`run_case`)."""
    seeds = ctx.options.seeds(cfg.seeds)
    eps = float(Fraction(cfg.eps))
    rows, series = [], []
    for k, m in cfg.cases:
        T = tp.thm58_steps(k, m, cfg.eps, DELTA)
        rate = tp.thm58_rate_scale(k, m, T, DELTA)
        case_rows, ends, median = run_case(k, m, seeds, eps, T, rate, cfg.batch_size, cfg.intervals)
        rows += case_rows
        series.append({"label": f"min_i |w_i1|, k={k}, n'={m} (median over seeds)", "x": ends, "y": median})
    growth = []
    for k in sorted({k for k, _ in cfg.cases}):
        ms = [m for kk, m in cfg.cases if kk == k]
        stated = [tp.thm58_steps(k, m, cfg.eps, DELTA) for m in ms]
        hits = [
            [r["first_step_error_at_most_eps"] or r["steps"] for r in rows if (r["k"], r["n_prime"]) == (k, m)]
            for m in ms
        ]
        growth.append({"label": f"stated T, k={k}", "x": ms, "y": stated, "ls": "--"})
        growth.append(
            {
                "label": f"median first interval end with error <= eps, k={k}",
                "x": ms,
                "y": [float(np.median(h)) for h in hits],
            }
        )
    plots = [
        {
            "name": "steps-vs-block-size",
            "kind": "lines",
            "series": growth,
            "xscale": "log",
            "yscale": "log",
            "xlabel": "block size n'",
            "ylabel": "SGD steps",
            "title": "Thm 5.8: the stated count (3n'-2)^(2k-1) against the steps the runs need",
        },
        {
            "name": "relevant-weights",
            "kind": "lines",
            "series": [{**s, "y": s["y"].tolist(), "marker": ""} for s in series],
            "xlabel": "SGD step t",
            "ylabel": "min_i |w_{i,1}|",
            "title": "Thm 5.8: the relevant weights grow (median over seeds)",
        },
    ]
    return Observation(
        [r["final_error"] for r in rows],
        details={
            "per_run": rows,
            "delta": str(DELTA),
            "batch_size": cfg.batch_size,
            "init": "uniform ±1, conditioned on prod_i w_i1 > 0 by negating w_11 when it is < 0 (exact conditional law)",
            "error": "exact 0-1 error by brute force over {±1}^(k n'), an output 0 counts as an error",
        },
        artifacts={"plots": plots},
        seeds=seeds,
    )


@dataclass(frozen=True)
class Thm58Runs(SeedPopulation):
    """A unit is one seed at one case (k, n'); it succeeds when err(w^(T+1)) <= eps after the stated T steps, every
    irrelevant weight stayed within Claim B.11's bound at every step, and in every interval the smallest
    sign-corrected relevant weight sign(w_i1^(1)) w_i1 stayed at or above Claim B.12's (induction) bound at the
    interval's end. The verdict is :attr:`rule` (p0 = 1 - delta) on the units."""

    rule: Population = THM58_RULE

    def planned_runs(self, config: Any) -> int:
        return len(config.cases) * len(config.seeds)

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        by_case = {(c["k"], c["n_prime"]): c for c in predicted["cases"]}
        out = []
        for r in obs.details["per_run"]:
            c = by_case[(r["k"], r["n_prime"])]
            problems = []
            if r["steps"] != c["steps"]:
                problems.append(f"ran {r['steps']} steps, the theorem's count is {c['steps']}")
            if not r["final_error"] <= c["eps"]:
                problems.append(f"err(w^(T+1)) = {r['final_error']:.4g} > eps = {c['eps']:g}")
            if not r["irrelevant_max"] <= c["irrelevant_bound"]:
                problems.append(f"max |w_ij| (j > 1) = {r['irrelevant_max']:.4g} > {c['irrelevant_bound']:g}")
            low = [j for j, (v, b) in enumerate(zip(r["relevant_min_by_interval"], c["relevant_bound"])) if not v >= b]
            if low or len(r["relevant_min_by_interval"]) != len(c["relevant_bound"]):
                problems.append(f"relevant weight below Claim B.12's bound in {len(low)} intervals")
            out.append({"label": f"seed {r['seed']} (k={r['k']}, n'={r['n_prime']})", "problems": problems})
        return out

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        parts = []
        for c in predicted["cases"]:
            rows = [r for r in obs.details["per_run"] if (r["k"], r["n_prime"]) == (c["k"], c["n_prime"])]
            fr = [r["fraction_of_T"] for r in rows if r["fraction_of_T"] is not None]
            parts.append(
                f"k={c['k']}, n'={c['n_prime']}: T = {c['steps']}, error <= eps first seen at a median "
                f"{np.median(fr) if fr else float('nan'):.3f} T ({len(fr)}/{len(rows)} runs), max |w_ij| (j>1) "
                f"{max(r['irrelevant_max'] for r in rows):.3f}"
            )
        verdict, tally = self.tally(self.units(predicted, obs, config), "seed x case runs")
        return verdict, "; ".join(parts) + "; " + tally

    def describe(self) -> str:
        return (
            "per (seed, case) run: err(w^(T+1)) <= eps after the theorem's T steps, max_t |w_ij| <= 3/2 for j > 1 "
            "(Claim B.11), sign(w_i1^(1)) w_i1^(t) >= the induction's bound 1/2 (1 + (3n'-2)^-(k-1) t / "
            f"sqrt(2T log(2nT/delta))) at every step (Claim B.12; read per interval, held to the bound at the "
            f"interval's end); {self.rule.describe()}"
        )


_STATEMENT = (
    "Thm 5.8 (full statement): a disjoint-PolyNet with uniform ±1 weights, trained by online SGD (B = 1) on the "
    "correlation loss with the rate eta_i^(t) = 1/(2 sqrt(2T log(2nT/delta)) prod_{l != i} ||w_l^(t)||_1), has "
    "err(w^(T+1)) <= eps for T >= 6 log(2nT/delta) log(2k/eps) (3n'-2)^(2k-1), with probability 1/2 over the "
    "initialisation (prod_i w_i1 > 0) and 1 - delta over the sampling; along the run |w_ij| <= 3/2 for j > 1 "
    "(Claim B.11) and |w_i1^(t+1)| >= 1/2 (1 + (3n'-2)^-(k-1) t / sqrt(2T log(2nT/delta))) >= 1/2 with the sign of "
    "w_i1^(1) (Claim B.12's induction). Run at the smallest such T for every (k, n') of the grid (the stated count "
    "grows as (3n'-2)^(2k-1)); delta = 1/5, target rate 1 - delta on the theorem's event."
)

register(
    Claim(
        id="edelman-ch5-thm5.8-sgd-polynet",
        source=f"{SRC_CH5}, Thm 5.8 (Sec. 5.4.2; full statement, Claims B.11-B.12, App. B.2.4)",
        statement=_STATEMENT,
        kind="training",
        configs={
            "quick": Thm58Config(cases=((2, 2), (2, 3)), seeds=tuple(range(12))),
            "full": Thm58Config(
                cases=((2, 2), (2, 3), (2, 4), (2, 5), (3, 2)), seeds=tuple(range(24)), eps="0.1", intervals=128
            ),
        },
        predict=_predict,
        observe=_observe,
        judge=Thm58Runs(),
        on_device=False,
        deviations={"quick": (), "full": ()},
        note=(
            "Read with the proof: (1) the main text's 'probability 0.99' is the full statement's 1/2 over the "
            "initialisation times 1 - delta; the 1/2 event is sampled exactly (w_11 negated when prod_i w_i1 < 0, a "
            "bijection onto the event). (2) Claim B.12 as printed, 1/2 + (3n'-2)^-(k-1) sqrt((t-1)/log(nT/delta)) / "
            "(4 sqrt 2), is not what its induction derives (the induction's last line, judged here, is linear in t; "
            "the printed form matches a rate decaying as 1/sqrt(tau), as (B.17) prints it). (3) The proof's Azuma step "
            "gives P(|s_t| > 1/2) <= 2 (delta/(2nT))^(1/4), not delta/(nT), for steps bounded by "
            "1/sqrt(2T log(2nT/delta)); and its last step uses Lemma B.9's upper bound as printed (exponent "
            "v^2/||u||^2, refuted: edelman-ch5-lemB.9-error-bounds-as-printed); with the corrected exponent "
            "v^2/(2||u||^2) the proof's final weights only give err <= sqrt(2k eps). The verdict tests the statement: "
            "the runs reach error 0 well before T, so the statement holds at these sizes despite the proof's slips."
        ),
        insensitive=(
            "every prediction is a bound the runs clear with wide slack (the error reaches 0 long before the stated T, "
            "the irrelevant weights stay near 1.2 against 3/2, the relevant ones grow far above the induction's "
            "line), so a 1 % error in T, eps or a bound cannot change a unit; a wrong rate or an under-stated T does "
            "(tests/verify/test_thm58_claim.py)"
        ),
    )
)
