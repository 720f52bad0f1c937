"""Theorem 5.5 end to end (Edelman thesis Sec. 5.4.1, formal statement of Informal Thm 5.2; full statement in App.
B.2.1): the theorem's own algorithm for the (n, k)-sparse parity, even k: a width-r ReLU MLP with the "unbiased"
sign-vector initialisation (w_i ~ U{±1}^n, u_i ~ U{±1}, b_i on the grid {-1+1/k, ..., 1-1/k}, mirrored pairs), the
hinge loss, one step eta_0 = 1/(k |xi_{k-1}|) with lambda_0 = 1 on a batch of B, then T - 1 SGD steps on the second
layer alone with eta = 4 k^1.5 / (n sqrt(r (T-1))); the theorem concludes E[min_{t in [T]} L(theta_t)] <= eps.

Judged as a seed population through an exact randomisation: a unit (seed, case) draws U ~ Unif(0, 1) from its seed
and succeeds when U > X, X = min_t L(theta_t) in [0, 1]; then P(success) = 1 - E[X], and the theorem's conclusion
reads "rate >= 1 - eps" (p0 = 1 - eps). The schedule comes from :mod:`theory.parity` (``thm55_*``), the run from
:func:`numerics.parity_sgd.thm55_run` (exact population loss over {±1}^n; batches drawn as multinomial counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from numerics import parity_sgd as nps
from theory import parity as tpar

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register
from ..judges import Population, Verdict
from .common import SRC_CH5, SeedPopulation

__all__ = ["EPS", "THM55_RULE", "Thm55Config", "Thm55Runs"]

#: The target eps of every run (both scales): the theorem's E[min_t L] <= eps is the success rate 1 - eps of the
#: randomised units (module docstring).
EPS = Fraction(45, 100)
#: p0 = 1 - eps; power against 0.9 (a pilot at (5,2), T = 3000, gave a mean min-loss of 0.09: rate about 0.91).
THM55_RULE = Population(p0=float(1 - EPS), p_alt=0.9)


@dataclass(frozen=True)
class Thm55Config:
    """Cases (n, k) (n odd, k even), the seeds run at each, and the iterations T: ``None`` runs the theorem's own
    T >= 2^9 k^3 r n^2 / eps^2 (:func:`theory.parity.thm55_steps`)."""

    cases: tuple[tuple[int, int], ...]
    seeds: tuple[int, ...]
    steps: int | None = None


def _schedule(n: int, k: int, steps: int | None) -> dict[str, Any]:
    r = tpar.thm55_width(k, EPS)
    stated = tpar.thm55_steps(n, k, r, EPS)
    T = stated if steps is None else steps
    return {
        "n": n,
        "k": k,
        "eps": float(EPS),
        "width": r,
        "stated_steps": stated,
        "steps": T,
        "batch": tpar.thm55_batch(n, k, r, EPS),
        "first_rate": float(tpar.thm55_first_step_rate(n, k)),
        "rate": tpar.thm55_second_layer_rate(n, k, r, T),
        "bias_grid": [float(b) for b in tpar.thm55_bias_grid(k)],
    }


def _predict(cfg: Thm55Config) -> dict[str, Any]:
    """Per case the theorem's schedule and its conclusion E[min_t L(theta_t)] <= eps."""
    return {"cases": [_schedule(n, k, cfg.steps) for n, k in cfg.cases]}


def unit_uniform(seed: int, n: int, k: int) -> float:
    """The unit's U ~ Unif(0, 1), from its seed and case only."""
    return float(np.random.default_rng([seed, 2, n, k]).uniform())


def _observe(cfg: Thm55Config, ctx: RunContext) -> Observation:
    seeds = ctx.options.seeds(cfg.seeds)
    rows, plots = [], []
    for n, k in cfg.cases:
        s = _schedule(n, k, cfg.steps)
        inits = [nps.thm55_init(n, s["width"], s["bias_grid"], seed) for seed in seeds]
        run = nps.thm55_run(
            n,
            k,
            inits,
            seeds,
            first_rate=s["first_rate"],
            rate=s["rate"],
            batch_size=s["batch"],
            steps=s["steps"],
        )
        for e, seed in enumerate(seeds):
            rows.append(
                {
                    "seed": seed,
                    "n": n,
                    "k": k,
                    "steps": s["steps"],
                    "width": s["width"],
                    "batch": s["batch"],
                    "min_loss": float(run["min_loss"][e]),
                    "argmin": int(run["argmin"][e]),
                    "final_loss": float(run["final_loss"][e]),
                    "final_error": float(run["final_error"][e]),
                    "uniform": unit_uniform(seed, n, k),
                }
            )
        med = np.median(run["loss_curve"], axis=0)
        plots.append({"label": f"median L(theta_t), (n,k)=({n},{k})", "x": run["curve_steps"], "y": med.tolist()})
    xs = np.array([r["min_loss"] for r in rows])
    hoeffding = float(xs.mean() + np.sqrt(np.log(20) / (2 * len(xs))))
    return Observation(
        xs.tolist(),
        details={
            "per_run": rows,
            "mean_min_loss": float(xs.mean()),
            "mean_min_loss_upper_95": hoeffding,
            "batch_law": "multinomial counts of B uniform draws over the 2^n points (the law of B i.i.d. samples)",
            "loss": "exact population hinge loss, mean over the 2^n points, at every t = 1..T",
        },
        artifacts={
            "plots": [
                {
                    "name": "loss",
                    "kind": "lines",
                    "series": [{**p, "marker": ""} for p in plots],
                    "xlabel": "iteration t",
                    "ylabel": "population hinge loss",
                    "title": "Thm 5.5's algorithm: step 0 on the first layer, then SGD on the second",
                }
            ]
        },
        seeds=seeds,
    )


@dataclass(frozen=True)
class Thm55Runs(SeedPopulation):
    """A unit is one seed at one case (n, k), run with the predicted schedule; it succeeds when its uniform U exceeds
    X = min_{t <= T} L(theta_t) (so P(success) = 1 - E[X]). The verdict is :attr:`rule`, p0 = 1 - eps."""

    rule: Population = THM55_RULE

    def planned_runs(self, config: Any) -> int:
        return len(config.cases) * len(config.seeds)

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        by_case = {(c["n"], c["k"]): c for c in predicted["cases"]}
        out = []
        for r in obs.details["per_run"]:
            c = by_case[(r["n"], r["k"])]
            problems = [
                f"ran {key} {r[key]}, the schedule's is {c[key]}"
                for key in ("steps", "width", "batch")
                if r[key] != c[key]
            ]
            if not r["uniform"] > r["min_loss"]:
                problems.append(f"U = {r['uniform']:.3f} <= min_t L = {r['min_loss']:.3f}")
            out.append({"label": f"seed {r['seed']} (n={r['n']}, k={r['k']})", "problems": problems})
        return out

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        d = obs.details
        head = (
            f"mean over units of min_t L = {d['mean_min_loss']:.4f} (Hoeffding 95 % upper bound "
            f"{d['mean_min_loss_upper_95']:.4f}, reported), eps = {float(EPS):g}"
        )
        verdict, tally = self.tally(self.units(predicted, obs, config), "seed x case runs (U > min_t L)")
        return verdict, f"{head}; {tally}"

    def describe(self) -> str:
        return (
            "per (seed, case) run with the theorem's schedule: U > min_{t <= T} L(theta_t) with U ~ Unif(0,1) drawn "
            f"from the seed (success probability 1 - E[min_t L]); {self.rule.describe()} (p0 = 1 - eps)"
        )


_N_HYPOTHESIS = Deviation(
    "n",
    "odd n >= 2^11 k^4 c2^2 log(128 k^3 n/eps)/c1^2 (Thm 5.5 full statement, App. B.2.1)",
    "n = 5, 7 (quick), 5 (full)",
    "the issue asks for the algorithm at small n; the hypothesis needs n in the hundreds of thousands at k = 2, "
    "where the 2^n-point population loss and the stated T are out of reach",
)
_BATCH = Deviation(
    "B",
    "B >= c1^-1 2^8 k^(7/6) n C(n,k-1) log(128k^3n/eps) log(32nr/eps) (statement; c1 unstated)",
    "ceil((2/tau^2) log(4nr/delta')), tau and delta' as the proof sets them (theory.parity.thm55_batch)",
    "the statement's constant c1 of Lemma B.1 is never given; the proof's own condition on B is explicit",
)

register(
    Claim(
        id="edelman-ch5-thm5.5-mlp-algorithm",
        source=f"{SRC_CH5}, Thm 5.5 (Sec. 5.4.1; full statement, Lemmas B.3-B.5, Thm B.6, App. B.2.1)",
        statement="Thm 5.5's algorithm (k even, n odd; width r = the smallest even r >= k 2^k log(8k/eps); unbiased "
        "sign-vector init with mirrored pairs; hinge loss; step 0 with eta_0 = 1/(k|xi_{k-1}|), lambda_0 = 1 on a "
        "batch of B; then T - 1 SGD steps on the second layer alone, eta = 4 k^1.5/(n sqrt(r(T-1))), batch B) gives "
        "E[min_{t in [T]} L(theta_t)] <= eps for T >= 2^9 k^3 r n^2/eps^2; here eps = 0.45, at small n (k = 2).",
        kind="training",
        configs={
            "quick": Thm55Config(cases=((5, 2), (7, 2)), seeds=tuple(range(24)), steps=2000),
            "full": Thm55Config(cases=((5, 2),), seeds=tuple(range(24))),
        },
        predict=_predict,
        observe=_observe,
        judge=Thm55Runs(),
        on_device=False,
        deviations={
            "quick": (
                _N_HYPOTHESIS,
                _BATCH,
                Deviation(
                    "T",
                    "T >= 2^9 k^3 r n^2/eps^2 = 15,170,371 at (5,2), 29,733,926 at (7,2)",
                    "T = 2000 (the second-layer rate 4k^1.5/(n sqrt(r(T-1))) taken at this T)",
                    "the stated T is about 10^7 sequential steps; the quick run asks the stated conclusion of a much "
                    "shorter run, a stronger statement than the theorem's",
                ),
            ),
            "full": (_N_HYPOTHESIS, _BATCH),
        },
        post_hoc=(
            PostHoc(
                parameter="p_alt",
                value="0.9",
                when="after a pilot run at (5,2), T = 3000, 16 seeds (mean min_t L = 0.09)",
                why="the power is declared against the rate the pilot showed; p0 = 1 - eps and the verdict rule are "
                "not affected",
            ),
        ),
        note=(
            "Readings: the bias grid {-1+1/k, ..., 1-1/k} is taken with step 1/k (2k - 1 values; Lemma B.5's "
            "probability 1/(2k) of a given bias does not match it); 'lambda_0 = 1 for all weights' leaves u^(1) = 0, "
            "as the proof uses (Thm B.6 starts from u = 0), i.e. the second layer takes no gradient at step 0; the "
            "proof sets rho = 2 sqrt(rn) where its own bound is sqrt(r)(n+1). The batch of B ~ 10^7 points is drawn "
            "exactly as multinomial counts over the 2^n points. The width r >= k 2^k log(8k/eps) inherits Lemma "
            "B.5's printed width, whose per-pair probability is about twice the exact one "
            "(edelman-ch5-lemB.5-width-as-printed, refuted; corrected r >= k 2^(k+1) log(k/delta) in "
            "edelman-ch5-lemB.5-width): this claim runs at the printed width, so a pass here is despite that step."
        ),
        insensitive=(
            "the theorem's number is the bound eps on E[min_t L], which enters the rule as p0 = 1 - eps (fixed "
            "before the run); the other predicted entries are the schedule the run is given (checked equal, not "
            "compared with a tolerance), so a 1 % change of them cannot move a unit (tests/verify/test_thm55_claim.py "
            "shows a run without step 0's feature learning failing)"
        ),
    )
)
