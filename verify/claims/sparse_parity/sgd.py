"""Online SGD on (n,k)-sparse parities, Edelman thesis Ch. 5 / App. B.3 (Barak et al. 2022, "hidden
progress"), trained as seed ensembles by :mod:`verify.train.sparse_parity`.

The thesis states no numeric convergence time t_c (its values are only in figures), so these claims are
qualitative: t_c grows with n (Fig. 5.1), there is no early convergence (Fig. 5.2), and progress is hidden in
the weights while the accuracy stays at chance (Fig. 5.3). Each is judged as a seed population (issue 28,
docs/verdicts.md): a per-unit criterion a seed's runs can meet, a declared target rate p0 and the exact
Clopper-Pearson rule. What comes from theory: the O~(n^(k-1)) order of the Fourier-gap analysis (Sec. 5.4.1,
Prop. B.7: Fig. 5.1's growth window), C(n,k) and the random-search law Geom(1/C(n,k))
(:func:`theory.boolean.random_search_tc_probability`: the control every criterion must exclude); the remaining
thresholds are reproduction tolerances, declared as post-hoc choices and explained in docs/sparse_parity.md.

Quick scale: 2-core CPU, each claim about a minute or less. Full scale: thesis sizes (hundreds of seeds, 2^13
validation points, 10^5-step budget) for a GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics.stats import mann_whitney_greater, rate_power
from theory.boolean import random_search_tc_probability, tc_growth_window
from verify.sweep import Cell, CellResult, Grid
from verify.train.sparse_parity import SparseParityConfig, SparseParityResult, divergence_reason

from ..base import Claim, Deviation, Observation, PostHoc, register
from ..judges import Population, Verdict
from .common import (
    SRC_CH5,
    Fig51Model,
    SeedPopulation,
    chunked_cells,
    diverged_at,
    history_result,
    parity_cell,
    parity_cost,
    ran_seeds,
    run_history,
    summary_grid,
    tc_list,
    xavier_relu_mlp,
)

__all__ = [
    "EARLY_FRACTION",
    "HIDDEN_ALPHA",
    "MIN_OVER_MEDIAN",
    "EarlyConfig",
    "HiddenConfig",
    "HiddenProgress",
    "NoEarlyConvergence",
    "TcGrowth",
    "TcGrowthConfig",
    "half_tc_test",
]

#: Fig. 5.2: the smallest t_c of an ensemble must be at least this fraction of its median (docs/sparse_parity.md).
MIN_OVER_MEDIAN = 0.3
#: Fig. 5.2: "early" means t_c <= this fraction of the median (the random-search comparison).
EARLY_FRACTION = 0.1


# ------------------------------------------------------------------ Sec. 5.3.1, Fig. 5.1: t_c grows with n


@dataclass(frozen=True)
class TcGrowthConfig(Fig51Model):
    """Cases (n, k, eval_every) of a width-r ReLU MLP (setting (ii) for r = 100), online, hinge, SGD."""

    cases: tuple[tuple[int, int, int], ...]
    seeds: tuple[int, ...]

    def parity(self, n: int, k: int, eval_every: int) -> SparseParityConfig:
        return xavier_relu_mlp(self, n, k, self.width, self.seeds, eval_every)


#: Fig. 5.1: the rule on the (seed, k) units. "t_c grows with n" is a statement about typical runs (p0 = 1/2); the
#: power is taken against the 95 % of units the statement implies (docs/sparse_parity.md).
GROWTH_RULE = Population(p0=0.5, p_alt=0.95)


growth_window = tc_growth_window  # the window of theory/ (Fig. 5.1), under the name the claim uses


def random_search_window_rate(n_lo: int, n_hi: int, k: int, lo: float, hi: float) -> float:
    """P(lo < T_hi / T_lo <= hi) for independent random-search success times T ~ Geom(1/C(n,k))
    (:func:`theory.boolean.random_search_tc_probability`, support 1, 2, ...) at n_lo and n_hi: the rate at which a
    random-search unit would meet the Fig. 5.1 criterion. Exact sum over T_lo = t (truncated where its survival is
    below 1e-16) of P(T_lo = t) (P(T_hi > lo t) - P(T_hi > hi t)), P(T_hi > x) = (1 - p_hi)^floor(x)."""
    p_lo = random_search_tc_probability(n_lo, k, 0.5)["p"]
    p_hi = random_search_tc_probability(n_hi, k, 0.5)["p"]
    t = np.arange(1, math.ceil(math.log(1e-16) / math.log1p(-p_lo)) + 1, dtype=np.float64)
    weight = p_lo * np.exp((t - 1) * math.log1p(-p_lo))
    log_q = math.log1p(-p_hi)
    inside = np.exp(np.floor(lo * t) * log_q) - np.exp(np.floor(hi * t) * log_q)
    return float(np.sum(weight * inside))


def _degrees(cases: tuple[tuple[int, int, int], ...]) -> list[int]:
    return sorted({k for _, k, _ in cases})


@dataclass(frozen=True)
class TcGrowth(SeedPopulation):
    """Fig. 5.1 as a seed population. A unit is one seed at one parity degree k (its runs over the n grid of that k);
    it succeeds when the seed converges at every n of the grid and its growth factor t_c(n_max) / t_c(n_min) lies in
    the predicted window (``predicted["growth"][k]``, :func:`growth_window`). The verdict is
    :attr:`rule` on the successful units; ``inconclusive`` when every seed of a case diverged. The prediction also
    carries the rate at which random search would meet the same window (:func:`random_search_window_rate`), the
    control the criterion must exclude: the reason says with what probability random search would pass the rule."""

    rule: Population = GROWTH_RULE

    def planned_runs(self, config: Any) -> int:
        return len(config.seeds) * len(_degrees(config.cases))

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        rows = obs.details["cases"]
        seeds = obs.details.get("seeds") or list(config.seeds)
        out = []
        for k in _degrees(config.cases):
            rk = sorted((r for r in rows if r["k"] == k), key=lambda r: r["n"])
            pred = predicted["growth"][str(k)]
            lo, hi = float(pred["min_factor"]), float(pred["max_factor"])
            for e, seed in enumerate(seeds):
                tcs = [r["t_c"][e] for r in rk]
                unconverged = [r["n"] for r, t in zip(rk, tcs) if t is None]
                factor = None if unconverged else tcs[-1] / tcs[0]
                problems = [f"unconverged at n = {unconverged} within {config.steps} steps"] if unconverged else []
                if factor is not None and not lo < factor <= hi:
                    problems.append(f"growth factor {factor:.3g} outside ({lo:g}, {hi:.4g}]")
                out.append(
                    {"label": f"seed {seed}, k={k}", "seed": seed, "k": k, "factor": factor, "problems": problems}
                )
        return out

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        rows = obs.details["cases"]
        blown = [f"(n,k)=({r['n']},{r['k']}): {r['divergence']}" for r in rows if r.get("divergence")]
        if blown:
            return "inconclusive", "; ".join(blown)
        units = self.units(predicted, obs, config)
        verdict, tally = self.tally(units, "(seed, k) units")
        parts = []
        for k in _degrees(config.cases):
            pred = predicted["growth"][str(k)]
            got = [u["factor"] for u in units if u["k"] == k and u["factor"] is not None]
            span = f"{min(got):.3g}-{max(got):.3g}" if got else "none converged"
            parts.append(
                f"k={k}, n {pred['n'][0]}->{pred['n'][1]}: growth factors {span}, predicted window "
                f"({float(pred['min_factor']):g}, {float(pred['max_factor']):.4g}] (random search: median factor "
                f"{float(pred['random_search_factor']):.3g}, inside the window at rate "
                f"{float(pred['random_search_unit_rate']):.3f})"
            )
        worst = max(float(predicted["growth"][str(k)]["random_search_unit_rate"]) for k in _degrees(config.cases))
        control = (
            f"random search (units inside at rate <= {worst:.3f}) would pass this rule with probability "
            f"{rate_power(len(units), self.rule.p0, worst, self.rule.confidence):.2g}"
        )
        return verdict, f"{'; '.join(parts)}; {tally}; {control}"

    def describe(self) -> str:
        return (
            "per (seed, k) unit: converged at every n of the k grid and t_c(n_max)/t_c(n_min) in the predicted window "
            "(1, (n_max/n_min)^(k-1) ln(n_max)/ln(n_min)] (the O(log(n)/gamma^2) order of Prop. B.7; random search's "
            "C(n,k) growth mostly falls outside); "
            f"{self.rule.describe()}"
        )


def _predict_growth(cfg: TcGrowthConfig) -> dict[str, Any]:
    """Per parity degree k of the grid, the window of the growth factor t_c(n_max)/t_c(n_min) (:func:`growth_window`)
    and what random search would do there (theory.boolean's Geom(1/C(n,k)) law: its median factor and the rate at
    which its units fall inside the window)."""
    growth = {}
    for k in _degrees(cfg.cases):
        ns = sorted(n for n, kk, _ in cfg.cases if kk == k)
        lo, hi = growth_window(ns[0], ns[-1], k)
        medians = [random_search_tc_probability(n, k, 0.5)["median"] for n in (ns[0], ns[-1])]
        growth[str(k)] = {
            "n": [ns[0], ns[-1]],
            "gap_exponent": k - 1,
            "min_factor": lo,
            "max_factor": hi,
            "random_search_factor": medians[1] / medians[0],
            "random_search_unit_rate": random_search_window_rate(ns[0], ns[-1], k, lo, hi),
        }
    return {
        "growth": growth,
        "all_converge_within": cfg.steps,
        "C(n,k)": {f"({n},{k})": math.comb(n, k) for n, k, _ in cfg.cases},
    }


def _growth_cells(cfg: TcGrowthConfig) -> list[Cell]:
    """A cell per case (n, k) and chunk of at most :data:`SEEDS_PER_CELL` seeds."""
    return chunked_cells((f"({n},{k})", cfg.parity(n, k, ev)) for n, k, ev in cfg.cases)


def _aggregate_growth(cfg: TcGrowthConfig, results: list[CellResult]) -> Observation:
    rows = []
    for n, k, ev in cfg.cases:
        mine = [r for r in results if (r.cell.config.n, r.cell.config.k) == (n, k)]
        tc = np.concatenate([r.value["t_c"] for r in mine])
        rows.append(
            {
                "n": n,
                "k": k,
                "eval_every": ev,
                "t_c": tc_list(tc),
                "median": float(np.median(tc)),
                "min": float(tc.min()),
                "max": float(tc.max()),
                "converged": int(np.isfinite(tc).sum()),
                "divergence": divergence_reason(diverged_at(mine), ev),
                "steps_run": max(r.value["steps_run"] for r in mine),
                "wall_s": round(sum(r.runtime_s for r in mine), 2),
            }
        )
    series, slopes = [], {}
    for k in sorted({r["k"] for r in rows}):
        rk = sorted((r for r in rows if r["k"] == k), key=lambda r: r["n"])
        series.append(
            {
                "label": f"k={k} (median, [min,max])",
                "x": [r["n"] for r in rk],
                "y": [r["median"] for r in rk],
                "lo": [r["min"] for r in rk],
                "hi": [r["max"] for r in rk],
            }
        )
        ns, meds = np.array([r["n"] for r in rk], float), np.array([r["median"] for r in rk], float)
        if len(rk) >= 2 and np.all(np.isfinite(meds)):
            slopes[str(k)] = np.diff(np.log(meds)) / np.diff(np.log(ns))
    plot = {
        "name": "tc-vs-n",
        "kind": "lines",
        "series": series,
        "xlabel": "n",
        "ylabel": "t_c (steps)",
        "yscale": "log",
        "title": f"online SGD, width-{cfg.width} ReLU MLP, B={cfg.batch_size}, eta={cfg.lr}, {len(cfg.seeds)} seeds",
    }
    medians = {f"({r['n']},{r['k']})": r["median"] for r in rows}
    first = [r for r in results if (r.cell.config.n, r.cell.config.k) == cfg.cases[0][:2]]
    seeds = [s for r in first for s in ran_seeds(r)]
    return Observation(
        medians,
        details={"cases": rows, "seeds": seeds, "local_slopes_log_tc_vs_log_n": slopes},
        artifacts={"plots": [plot]},
        seeds=cfg.seeds,
    )


#: Fig. 5.1 as a sweep: a cell per (n, k) case (seeds in chunks of :data:`SEEDS_PER_CELL`).
GROWTH_GRID = summary_grid("edelman-ch5-fig5.1-tc-grows-with-n", _growth_cells, _aggregate_growth)

#: The learning rate of the Fig. 5.1 / 5.2 model differs from the source's (both scales).
FIG51_LR = Deviation(
    parameter="learning rate eta",
    source="1 for setting (ii), the width-100 ReLU MLP with B = 32 and the hinge loss (App. B.4.1, Details for "
    "Figure B.6)",
    value="0.1",
    why="the toolkit's reproduction of the setting, from which these claims were built, runs eta = 0.1 (the rate of "
    "the width-100 MLP curves of Fig. B.2 row 1, there at width 10); at eta = 1 t_c(10,2) is 7-12 steps, too few "
    "to resolve a seed's growth factor at the evaluation interval. A check at eta = 1 (seeds 0-8 and 1000-1008) "
    "gave growth factors 3.3-5.7 (k = 2) and 5.2-9.4 (k = 3), inside the same windows (docs/sparse_parity.md)",
)

#: Fig. 5.1's choices made after seeing results.
GROWTH_POST_HOC = (
    PostHoc(
        parameter="growth window",
        value="(1, (n_max/n_min)^(k-1) ln(n_max)/ln(n_min)]",
        when="after the seed-population migration's baseline run (seeds 0-8: factors 2.3-2.9 for k = 2, 6.9-12.9 "
        "for k = 3) and an eta = 1 check (k = 2 factors up to 5.7)",
        why="the Fourier-gap order (n_max/n_min)^(k-1) alone, tried first, was exceeded by k = 2 seeds at eta = 1; "
        "the log factor is Prop. B.7's O(log(n)/gamma^2), written into the window before the quick verdict was run",
    ),
)

register(
    Claim(
        id=GROWTH_GRID.claim_id,
        source=f"{SRC_CH5}, Sec. 5.3.1, Sec. 5.4.1, Prop. B.7, Fig. 5.1 right, Fig. B.6, Empirical Finding 5.1; "
        "docs/sparse_parity.md",
        statement="Online SGD (B=32, hinge) on a width-100 ReLU MLP solves the (n,k)-sparse parity (100% validation "
        "accuracy) and its convergence time t_c grows with n for fixed k, polynomially with an exponent set by k "
        "(t_c <= c n^(alpha k), Empirical Finding 5.1): per seed and k, t_c(n_max)/t_c(n_min) lies in (1, "
        "(n_max/n_min)^(k-1) ln(n_max)/ln(n_min)], the ratio of the O(log(n)/gamma^2) = O~(n^(k-1)) sample "
        "complexities of the Fourier-gap analysis (Sec. 5.4.1, Prop. B.7), which random search over the k-sets "
        "(median growth C(n_max,k)/C(n_min,k)) mostly exceeds. Target rate of the (seed, k) units 1/2 ('typically').",
        kind="training",
        configs={
            "quick": TcGrowthConfig(
                cases=((10, 2, 5), (20, 2, 5), (40, 2, 5), (10, 3, 10), (20, 3, 10), (30, 3, 10), (40, 3, 10)),
                seeds=tuple(range(9)),
                num_threads=1,
            ),
            "full": TcGrowthConfig(
                cases=tuple((n, 2, 5) for n in (10, 20, 30, 40, 50, 60))
                + tuple((n, 3, 10) for n in (10, 20, 30, 40, 50, 60, 70))
                + tuple((n, 4, 10) for n in (10, 15, 20, 25, 30)),
                seeds=tuple(range(100)),
                steps=100_000,
                n_val=8192,
            ),
        },
        predict=_predict_growth,
        observe=GROWTH_GRID.observe,
        judge=TcGrowth(),
        deviations={"quick": (FIG51_LR,), "full": (FIG51_LR,)},
        post_hoc=GROWTH_POST_HOC,
        insensitive=(
            "the window's ends are the qualitative statement (t_c grows: factor > 1) and an order of growth "
            "(n^(k-1) log n); the seeds' factors (seeds 0-8 and 1000-1008: 2.0-3.0 in (1, 6.4] for k = 2, 6.9-16.9 "
            "in (1, 25.6] for k = 3) are at least twice the lower end and at most 2/3 of the upper end, so a 1 % "
            "error in the predicted order moves no unit across "
            "(a narrower order, random search's C(n,k) growth or no growth fails: "
            "tests/verify/test_sparse_parity_claims.py)"
        ),
    )
)


# ------------------------------------------------------------------ Sec. 5.3.2, Fig. 5.2 left: no early convergence


@dataclass(frozen=True)
class EarlyConfig(Fig51Model):
    """Many seeds of the Fig. 5.1 model at one (n, k); min/median t_c against random search."""

    n: int
    k: int
    seeds: tuple[int, ...]
    eval_every: int = 10

    def parity(self) -> SparseParityConfig:
        return xavier_relu_mlp(self, self.n, self.k, self.width, self.seeds, self.eval_every)


#: Fig. 5.2: "no mass near t = 0" over 10^6 trials reads "almost always" (p0 = 0.9, power against 0.99); random
#: search meets the same per-seed criterion at rate 2^(-0.3) ~ 0.81 < p0 (docs/sparse_parity.md).
EARLY_RULE = Population(p0=0.9, p_alt=0.99)


@dataclass(frozen=True)
class NoEarlyConvergence(SeedPopulation):
    """Fig. 5.2 left as a seed population: a seed succeeds when it converges within the budget and its t_c is at
    least ``min_ratio`` times the ensemble's median t_c (no early convergence); the verdict is :attr:`rule` on the
    seeds. It reads the predicted random-search rate of the same criterion (P(T >= min_ratio x median) for
    T ~ Geom(1/C(n,k))): a target rate at or below it could not tell SGD from random search, so the verdict is then
    ``inconclusive``; otherwise the reason says with what probability random search would pass the rule.
    ``inconclusive`` also when at most half of the seeds converge (the median is then no convergence time) or every
    seed diverged."""

    min_ratio: float = MIN_OVER_MEDIAN
    rule: Population = EARLY_RULE

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        d = obs.details
        med = float(d["median"])
        seeds = d.get("seeds") or list(config.seeds)
        out = []
        for seed, t in zip(seeds, d["t_c"]):
            if t is None:
                problems = [f"unconverged within {config.steps} steps"]
            else:
                problems = [] if t >= self.min_ratio * med else [f"t_c {t:g} < {self.min_ratio:g} x median {med:g}"]
            out.append({"label": f"seed {seed}", "seed": seed, "t_c": t, "problems": problems})
        return out

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        d, seeds = obs.details, len(config.seeds)
        if d.get("divergence"):
            return "inconclusive", d["divergence"]
        if d["converged"] * 2 <= seeds:
            return "inconclusive", f"only {d['converged']}/{seeds} seeds converged within {config.steps} steps"
        rs = float(predicted["random_search_rate_not_early"])
        verdict, tally = self.tally(self.units(predicted, obs, config), "seeds")
        summary = (
            f"min/median t_c = {obs.value:.3f} (min {d['min']:g}, median {d['median']:g}); fraction with t_c <= "
            f"{EARLY_FRACTION} x median = {d['fraction_early']:.3f} vs random search {predicted['random_search_p_early']:.3f}"
        )
        if rs >= self.rule.p0:
            return "inconclusive", (
                f"{summary}; random search meets t_c >= {self.min_ratio:g} x median at rate {rs:.3f} >= the target "
                f"{self.rule.p0:g}: the rule cannot tell SGD from random search"
            )
        control = (
            f"random search meets t_c >= {self.min_ratio:g} x median at rate {rs:.3f} and would pass this rule with "
            f"probability {rate_power(len(d['t_c']), self.rule.p0, rs, self.rule.confidence):.2g}"
        )
        return verdict, f"{summary}; {tally}; {control}"

    def describe(self) -> str:
        return (
            f"per seed: converged and t_c >= {self.min_ratio:g} x the ensemble's median t_c; {self.rule.describe()}; "
            "the target rate must exceed random search's rate of the same criterion (Geom(1/C(n,k)): 2^(-0.3) ~ 0.81)"
        )


def _predict_early(cfg: EarlyConfig) -> dict[str, float]:
    """The random-search reference (theory.boolean's Geom(1/C(n,k)) law): its early mass, the probability that all
    seeds have min/median >= the threshold, and its per-seed rate of the judged criterion, P(T > threshold x median)."""
    rs = random_search_tc_probability(cfg.n, cfg.k, EARLY_FRACTION, seeds=len(cfg.seeds), min_fraction=MIN_OVER_MEDIAN)
    at_min = random_search_tc_probability(cfg.n, cfg.k, MIN_OVER_MEDIAN)
    return {
        "min_over_median_at_least": MIN_OVER_MEDIAN,
        "random_search_p_early": rs["p_early"],
        "random_search_p_all_above_min_ratio": rs["p_all_above_min"],
        "random_search_rate_not_early": 1.0 - at_min["p_early"],
        "C(n,k)": rs["C"],
    }


def _early_cells(cfg: EarlyConfig) -> list[Cell]:
    """The seeds in chunks of at most :data:`SEEDS_PER_CELL` (one cell at quick scale)."""
    return chunked_cells([(f"({cfg.n},{cfg.k})", cfg.parity())])


def _aggregate_early(cfg: EarlyConfig, results: list[CellResult]) -> Observation:
    tc = np.concatenate([r.value["t_c"] for r in results])
    steps_run = max(r.value["steps_run"] for r in results)
    med = float(np.median(tc))
    ratio = float(tc.min() / med) if math.isfinite(med) and med > 0 else float("nan")
    early = float(np.mean(tc <= EARLY_FRACTION * med)) if math.isfinite(med) else float("nan")
    # random search reference: deterministic quantiles of Geom(1/C) normalised by its median
    rs = random_search_tc_probability(cfg.n, cfg.k, EARLY_FRACTION)
    finite = tc[np.isfinite(tc)]
    q = (np.arange(max(len(finite), 1)) + 0.5) / max(len(finite), 1)  # as many quantiles as SGD values
    geo = np.ceil(np.log1p(-q) / math.log1p(-rs["p"])) / rs["median"]
    edges = np.linspace(0.0, 4.0, 41).tolist()  # shared bins; values beyond 4 x median are left out
    plot = {
        "name": "tc-hist",
        "kind": "hist",
        "bins": edges,
        "xlabel": "t_c / median t_c",
        "ylabel": "seeds / quantiles",
        "title": f"({cfg.n},{cfg.k}) parity, width-{cfg.width} ReLU MLP, {len(cfg.seeds)} seeds vs random search",
        "series": [
            {"label": f"SGD ({len(finite)} converged seeds)", "values": (finite / med).tolist()},
            {"label": f"random search Geom(1/C(n,k)), {len(geo)} quantiles", "values": geo.tolist()},
        ],
        "vlines": [
            {"x": EARLY_FRACTION, "label": f"{EARLY_FRACTION} x median"},
            {"x": MIN_OVER_MEDIAN, "label": f"{MIN_OVER_MEDIAN} x median"},
        ],
    }
    return Observation(
        ratio,
        details={
            "t_c": tc_list(tc),
            "median": med,
            "min": float(tc.min()),
            "max": float(tc.max()),
            "fraction_early": early,
            "converged": int(np.isfinite(tc).sum()),
            "divergence": divergence_reason(diverged_at(results), cfg.eval_every),
            "steps_run": steps_run,
            "seeds": [s for r in results for s in ran_seeds(r)],
        },
        artifacts={"plots": [plot]},
        seeds=cfg.seeds,
    )


#: Fig. 5.2 as a sweep: the seeds in chunks of :data:`SEEDS_PER_CELL` (10 cells at full scale).
EARLY_GRID = summary_grid("edelman-ch5-fig5.2-no-early-convergence", _early_cells, _aggregate_early)

#: Fig. 5.2 trains the Fig. 5.1 model, at the same rate.
EARLY_LR = Deviation(
    parameter="learning rate eta",
    source="not stated for Fig. 5.2 left; 1 for its model, setting (ii) with B = 32 (App. B.4.1, Details for "
    "Figure B.6)",
    value="0.1",
    why="the model and rate of the Fig. 5.1 claim (see its deviation); a check at eta = 1 on 64 seeds at (30,3) gave "
    "t_c 176-310 steps, min/median 0.86, which meets the same criterion (docs/sparse_parity.md)",
)

#: Fig. 5.2's threshold was set from a reproduction run.
EARLY_POST_HOC = (
    PostHoc(
        parameter="min_ratio (t_c >= min_ratio x median)",
        value=f"{MIN_OVER_MEDIAN}",
        when="the toolkit's independent numpy reproduction of the setting, before the claim was written (min/median "
        "about 0.75 over 20 seeds)",
        why="a reproduction tolerance well below the reproduced value and below random search's median-relative "
        "quantiles (its rate of the criterion is 2^(-0.3) ~ 0.81 < p0)",
    ),
)

register(
    Claim(
        id=EARLY_GRID.claim_id,
        source=f"{SRC_CH5}, Sec. 5.3.2, Fig. 5.2 left; docs/sparse_parity.md",
        statement="SGD convergence times on sparse parity have no mass near t = 0 (unlike random search, whose "
        "success time Geom(1/C(n,k)) has its mode at 0): almost every seed (target rate 0.9, above random search's "
        "0.81) converges with t_c >= 0.3 x the ensemble's median t_c.",
        kind="training",
        configs={
            "quick": EarlyConfig(n=30, k=3, seeds=tuple(range(64)), eval_every=20, num_threads=1),
            "full": EarlyConfig(n=30, k=3, seeds=tuple(range(1000)), steps=100_000, n_val=8192),
        },
        predict=_predict_early,
        observe=EARLY_GRID.observe,
        judge=NoEarlyConvergence(),
        deviations={"quick": (EARLY_LR,), "full": (EARLY_LR,)},
        post_hoc=EARLY_POST_HOC,
        insensitive=(
            "the prediction is random search's rate of the per-seed criterion (0.81), the control the target rate "
            "0.9 must exceed; a 1 % error in it leaves it below the target, so the verdict, the rule on the seeds, "
            "cannot change"
        ),
    )
)


# ------------------------------------------------------------------ Sec. 5.5, Fig. 5.3: hidden progress


@dataclass(frozen=True)
class HiddenConfig:
    """Single sinusoid neuron cos(pi(w.x + b - k)/2), trainable w, b, no second layer (setting (xiv), App. B.4.1);
    true vs random labels.

    The population (judge :class:`HiddenProgress`): the first ``judged`` seeds, in seed order, that converge within
    the budget (the statement is about progress half way to convergence, so it is conditional on converging; about
    one seed in five never converges, even in 3·10^4 steps, docs/sparse_parity.md). ``seeds`` must hold enough seeds
    for ``judged`` of them to converge; fewer makes the verdict ``inconclusive``. The random-label control trains the
    judged seeds only, from the same initialisations, up to the latest t_c/2 among them (all the judge reads).

    ``gap_n``: a second, true-label run at this n on the first ``gap_seeds`` seeds, at most ``gap_steps`` steps, records
    the Fourier gap along the path (Fig. B.8 right, 10 trials; recorded, not judged).
    """

    n: int
    k: int
    seeds: tuple[int, ...]
    judged: int
    lr: float = 0.01
    batch_size: int = 32
    steps: int = 8000
    eval_every: int = 25
    n_val: int = 1024
    num_threads: int | None = None
    gap_n: int | None = 15
    gap_seeds: int = 10
    gap_steps: int = 4000

    def __post_init__(self) -> None:
        if not 1 <= self.judged <= len(self.seeds):
            raise ValueError(f"judged must lie in [1, {len(self.seeds)}] (the seeds), got {self.judged}")

    def parity(self, **changes: Any) -> SparseParityConfig:
        base = SparseParityConfig(
            n=self.n,
            k=self.k,
            arch="mlp",
            activation="sinusoid",
            width=1,
            second_layer=False,
            init="xavier",
            loss="hinge",
            lr=self.lr,
            batch_size=self.batch_size,
            steps=self.steps,
            eval_every=self.eval_every,
            n_val=self.n_val,
            seeds=self.seeds,
            num_threads=self.num_threads,
        )
        return base.replace(**changes)


#: Hidden progress: level of the one-sided exact Mann-Whitney U test of "true-label S/non-S ratio at t_c/2 exceeds
#: the random-label ratio at the same step" over the judged seeds (recorded next to the verdict, not judged).
HIDDEN_ALPHA = 0.05

#: Fig. 5.3: "the neuron makes hidden progress" reads "typically" (p0 = 1/2), with power against 0.9 (the pilot's
#: converged seeds met the criterion at 16 of 17; docs/sparse_parity.md).
HIDDEN_RULE = Population(p0=0.5, p_alt=0.9)

#: Fig. 5.3: the accuracy at t_c/2 may exceed chance (the predicted 1/2) by at most this much (a reproduction
#: tolerance: the spec's runs gave 0.48-0.51, docs/sparse_parity.md).
HALF_ACCURACY_SLACK = 0.1


def half_tc_test(ratio_true: list[float], ratio_random: list[float], alpha: float = HIDDEN_ALPHA) -> dict[str, Any]:
    """The one-sided exact Mann-Whitney U test (:func:`numerics.stats.mann_whitney_greater`) of H0 "the true-label
    S/non-S weight-movement ratio at t_c/2 is not stochastically larger than the random-label ratio at the same
    step" against "larger", at level ``alpha``, over the judged seeds (one value per seed and labelling); recorded
    next to the per-seed verdict. ``min_p`` is the smallest p-value the sample sizes allow, 1/C(n1+n2, n1)."""
    res = mann_whitney_greater(ratio_true, ratio_random)
    return {
        "test": "one-sided exact Mann-Whitney U (true > random), judged seeds",
        "alpha": alpha,
        "n_true": len(ratio_true),
        "n_random": len(ratio_random),
        "min_p": res.min_p,
        "U": res.U,
        "p_value": res.p_value,
        "effect_P(true>random)": res.effect,
    }


@dataclass(frozen=True)
class HiddenProgress(SeedPopulation):
    """Fig. 5.3 as a seed population over the judged seeds (the first ``judged`` converged ones, in seed order): a
    seed succeeds when, at t_c/2, (1) its accuracy is at most the predicted chance level plus ``slack`` (the progress
    is hidden), (2) its S/non-S weight-movement ratio mean_S|dw| / mean_notS|dw| exceeds the predicted random-label
    value 1 (the support has moved more than the rest) and (3) exceeds the ratio of the same seed and initialisation
    trained on random labels to the same step. The verdict is :attr:`rule` on the judged seeds; ``inconclusive`` when
    fewer than ``judged`` seeds converged (the missing ones count as failures in the record)."""

    slack: float = HALF_ACCURACY_SLACK
    rule: Population = HIDDEN_RULE

    def planned_runs(self, config: Any) -> int:
        return int(config.judged)

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        chance, null_ratio = float(predicted["chance"]), float(predicted["random_label_ratio"])
        out = []
        for row in obs.details["per_seed"]:
            acc, r_true, r_rand = (
                row["accuracy_at_half_tc"],
                row["ratio_true_at_half_tc"],
                row["ratio_random_at_half_tc"],
            )
            problems = []
            if not acc <= chance + self.slack:
                problems.append(f"accuracy at t_c/2 {acc:.3f} > {chance:g} + {self.slack:g}")
            if not r_true > null_ratio:
                problems.append(f"S/non-S ratio at t_c/2 {r_true:.3g} <= {null_ratio:g}")
            if not r_true > r_rand:
                problems.append(f"S/non-S ratio at t_c/2 {r_true:.3g} <= random labels {r_rand:.3g}")
            out.append({"label": f"seed {row['seed']}", "problems": problems})
        missing = int(config.judged) - len(out)
        out += [{"label": "missing seed", "problems": ["did not converge (too few converged seeds)"]}] * missing
        return out

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        d = obs.details
        units = self.units(predicted, obs, config)
        verdict, tally = self.tally(units, "judged seeds")
        summary = (
            f"{d['converged']}/{len(config.seeds)} seeds converged within {config.steps} steps, the first "
            f"{len(d['per_seed'])} judged; at t_c/2: S/non-S ratio median true {d['median_ratio_true_at_half_tc']:.2f} "
            f"vs random labels {d['median_ratio_random_at_half_tc']:.2f}, accuracy median "
            f"{d['median_accuracy_at_half_tc']:.3f} (max {d['max_accuracy_at_half_tc']:.3f})"
        )
        if len(d["per_seed"]) < config.judged:
            return "inconclusive", f"{summary}; only {len(d['per_seed'])} of the {config.judged} judged seeds converged"
        t = d["half_tc_test"]
        recorded = f"one-sided exact Mann-Whitney U = {t['U']:g}, p = {t['p_value']:.3g} (recorded, not judged)"
        return verdict, f"{summary}; {tally}; {recorded}"

    def describe(self) -> str:
        return (
            f"per judged seed (the first config.judged converged), at t_c/2: accuracy <= chance + {self.slack:g}, "
            "S/non-S weight-movement ratio > 1 (its random-label value) and > the ratio of the same seed trained on "
            f"random labels to the same step; {self.rule.describe()}"
        )


def _predict_hidden(cfg: HiddenConfig) -> dict[str, Any]:
    """What the statement predicts at t_c/2: the accuracy is still at chance (1/2: the parity is balanced and
    uncorrelated with every function of fewer than k coordinates, Eq. B.1), and under random labels the S and non-S
    coordinates are exchangeable, so their weight-movement ratio is 1 in expectation; true labels move S more."""
    return {"chance": 0.5, "random_label_ratio": 1.0, "true_ratio_above_random": True}


def _curve(res: SparseParityResult, arr: np.ndarray, e: int, until: float) -> tuple[list[int], list[float]]:
    keep = res.steps <= until
    return res.steps[keep].tolist(), arr[keep, e].tolist()


TRUE_LABELS, RANDOM_LABELS = "true labels", "random labels"


def _gap_label(cfg: HiddenConfig) -> str:
    return f"Fourier gap at n={cfg.gap_n}"


def _t_end(res: SparseParityResult) -> np.ndarray:
    """Per seed: t_c, or the end of the run for a seed that did not converge."""
    return np.where(np.isfinite(res.t_c), res.t_c, float(res.steps_run))


def _stored(results: list[CellResult], label: str) -> SparseParityResult:
    hit = next(r for r in results if r.cell.label == label)
    return history_result(hit.cell.config, hit.value, hit.runtime_s)


#: Fig. 5.3's plots show the first this many judged seeds (the record holds every judged seed's numbers).
PLOTTED_SEEDS = 16


def _judged(cfg: HiddenConfig, true: SparseParityResult) -> np.ndarray:
    """Indices (into ``cfg.seeds``) of the judged seeds: the first ``cfg.judged`` that converged, in seed order."""
    return np.flatnonzero(np.isfinite(true.t_c))[: cfg.judged]


def _hidden_cells(cfg: HiddenConfig) -> list[Cell]:
    """First stage: the true-label run and, with ``gap_n``, the Fourier-gap run (Fig. B.8 right)."""
    cells = [parity_cell(TRUE_LABELS, cfg.parity())]
    if cfg.gap_n is not None:
        gap = cfg.parity(n=cfg.gap_n, fourier_gap=True, seeds=cfg.seeds[: cfg.gap_seeds], steps=cfg.gap_steps)
        cells.append(parity_cell(_gap_label(cfg), gap))
    return cells


def _hidden_random_cells(cfg: HiddenConfig, results: list[CellResult] | None) -> list[Cell]:
    """Second stage: random labels on the judged seeds, up to the latest t_c/2 among them (the judge reads the
    random-label run at each seed's t_c/2 only), rounded up to an evaluation; worst case, before the run: the first
    ``judged`` seeds for half the budget."""
    if results is None:
        seeds, half = cfg.seeds[: cfg.judged], cfg.steps / 2
    else:
        true = _stored(results, TRUE_LABELS)
        idx = _judged(cfg, true)
        if not len(idx):  # nothing converged: train the first seed briefly so the stage exists
            idx = np.arange(1)
        seeds, half = tuple(cfg.seeds[i] for i in idx), float(_t_end(true)[idx].max()) / 2
    steps = max(cfg.eval_every, math.ceil(half / cfg.eval_every) * cfg.eval_every)
    return [
        parity_cell(RANDOM_LABELS, cfg.parity(random_labels=True, stop_when_converged=False, steps=steps, seeds=seeds))
    ]


def _aggregate_hidden(cfg: HiddenConfig, results: list[CellResult]) -> Observation:
    true, rand = _stored(results, TRUE_LABELS), _stored(results, RANDOM_LABELS)
    ran = ran_seeds(next(r for r in results if r.cell.label == TRUE_LABELS))
    idx = _judged(cfg, true)
    t_end = _t_end(true)
    t_half = t_end[idx] / 2
    sub = np.arange(len(idx))  # the random-label run holds the judged seeds, in the same order
    acc_half = true.at_step("accuracy", t_end / 2)[idx]
    ratio_true = true.at_step("ratio", t_end / 2)[idx]
    ratio_rand = rand.at_step("ratio", t_half)[sub] if len(idx) else np.zeros(0)
    per_seed = [
        {
            "seed": ran[i],
            "t_c": float(true.t_c[i]),
            "accuracy_at_half_tc": float(acc_half[j]),
            "ratio_true_at_half_tc": float(ratio_true[j]),
            "ratio_random_at_half_tc": float(ratio_rand[j]),
        }
        for j, i in enumerate(idx)
    ]
    plots = []
    for name, label, key in (
        ("hidden-progress", "rho = ||w_t - w_0||_inf", "rho"),
        ("hidden-progress-accuracy", "validation accuracy", "accuracy"),
        ("hidden-progress-ratio", "mean_S |dw| / mean_notS |dw|", "ratio"),
    ):
        series = []
        for j, i in enumerate(idx[:PLOTTED_SEEDS]):
            for res, e, ls, lab, color in (
                (true, i, "-", "true labels", "C0"),
                (rand, j, "--", "random labels", "C3"),
            ):
                arr = res.ratio if key == "ratio" else getattr(res, key)
                x, y = _curve(res, arr, e, t_end[i])
                series.append(
                    {
                        "label": lab if j == 0 else None,
                        "x": x,
                        "y": y,
                        "ls": ls,
                        "marker": "",
                        "color": color,
                        "alpha": 0.7,
                    }
                )
        plots.append(
            {
                "name": name,
                "kind": "lines",
                "series": series,
                "xlabel": "step",
                "ylabel": label,
                "hlines": [{"y": 0.5, "label": "chance"}] if key == "accuracy" else [],
                "title": f"sinusoid neuron, ({cfg.n},{cfg.k}) parity, B={cfg.batch_size}, eta={cfg.lr} "
                f"(first {PLOTTED_SEEDS} judged seeds; true labels to t_c, random labels to t_c/2)",
            }
        )

    def median(a: np.ndarray) -> float:
        return float(np.median(a)) if len(a) else float("nan")

    details = {
        "seeds": ran,
        "t_c": tc_list(true.t_c),
        "converged": int(np.isfinite(true.t_c).sum()),
        "judged_seeds": [ran[i] for i in idx],
        "per_seed": per_seed,
        "accuracy_at_half_tc": acc_half.tolist(),
        "median_accuracy_at_half_tc": median(acc_half),
        "max_accuracy_at_half_tc": float(np.max(acc_half)) if len(idx) else float("nan"),
        "ratio_true_at_half_tc": ratio_true.tolist(),
        "ratio_random_at_half_tc": ratio_rand.tolist(),
        "median_ratio_true_at_half_tc": median(ratio_true),
        "median_ratio_random_at_half_tc": median(ratio_rand),
        "ratio_true_at_tc": true.at_step("ratio", t_end)[idx].tolist(),
        "rho_true_at_tc": true.at_step("rho", t_end)[idx].tolist(),
        "half_tc_test": half_tc_test(ratio_true.tolist(), ratio_rand.tolist()) if len(idx) >= 2 else None,
    }
    if cfg.gap_n is not None:
        details["gap_along_path"], gap_plot = _gap_along_path(cfg, _stored(results, _gap_label(cfg)))
        plots.append(gap_plot)
    return Observation(
        details["median_ratio_true_at_half_tc"], details=details, artifacts={"plots": plots}, seeds=cfg.seeds
    )


def _gap_along_path(cfg: HiddenConfig, res: SparseParityResult) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fig. B.8 right (recorded, not judged): the relaxed Fourier gap of the neuron's exact population gradient
    along its SGD path at n = ``gap_n`` (exact transform over the cube, so n <= 20), on the first ``gap_seeds`` seeds
    (the thesis shows 10 trials). The thesis reports it positive at init and growing during training, which the
    theory does not explain; our runs show it noisy (see the record)."""
    t_end = _t_end(res)
    at = {
        name: res.at_step("fourier_gap", t)
        for name, t in (("init", np.zeros_like(t_end)), ("half_tc", t_end / 2), ("tc", t_end))
    }
    summary = {
        "n": cfg.gap_n,
        "seeds": list(res.config.seeds),
        "t_c": tc_list(res.t_c),
        **{f"gap_at_{name}": v.tolist() for name, v in at.items()},
        **{f"median_gap_at_{name}": float(np.median(v)) for name, v in at.items()},
        "fraction_positive_at_init": float(np.mean(at["init"] > 0)),
        "fraction_growing_to_half_tc": float(np.mean(at["half_tc"] > at["init"])),
    }
    series = []
    for e, seed in enumerate(res.config.seeds):
        x, y = _curve(res, res.fourier_gap, e, t_end[e])
        series.append({"label": f"seed {seed}", "x": x, "y": y, "marker": "", "alpha": 0.8})
    plot = {
        "name": "gap-along-path",
        "kind": "lines",
        "series": series,
        "xlabel": "step",
        "ylabel": "relaxed Fourier gap of the population gradient",
        "hlines": [{"y": 0.0, "label": "0"}],
        "title": f"Fig. B.8 right: sinusoid neuron on ({cfg.gap_n},{cfg.k}), gap along the SGD path (up to t_c)",
    }
    return summary, plot


#: Fig. 5.3 as a sweep: the true-label and Fourier-gap runs, then the random-label control on the judged seeds,
#: whose step count is the true-label run's (a follow-up stage).
HIDDEN_GRID = Grid(
    claim_id="edelman-ch5-fig5.3-hidden-progress",
    cells=_hidden_cells,
    run=run_history,
    aggregate=_aggregate_hidden,
    followups=(_hidden_random_cells,),
    cost=parity_cost,
)

#: Fig. 5.3's choices made after seeing results.
HIDDEN_POST_HOC = (
    PostHoc(
        parameter="accuracy ceiling at t_c/2",
        value=f"chance + {HALF_ACCURACY_SLACK}",
        when="the toolkit's independent numpy reproduction (accuracy 0.48-0.51 at t_c/2), before the claim was written",
        why="a reproduction tolerance for 'the accuracy is still at chance'",
    ),
    PostHoc(
        parameter="judged seeds",
        value="the first 40 converged of seeds 0-95 within 5000 steps (full: 64 of 100 within 10^5)",
        when="after a 24-seed run (17 converged within 8000 steps; the judged seeds then met the criterion at 16 of "
        "17), a 48-seed run of 3·10^4 steps (39 converged) and a 48-seed run of 8000 steps (35 converged, 20 of "
        "the first 24 met the criterion: plug-in flip probability 0.035, so 40 judged seeds; the budget was cut to "
        "5000 steps, where 32 of those 48 had converged, to pay for them)",
        why="about one seed in five never converges, so counting unconverged seeds as failures would judge the "
        "budget, not the statement; the earlier Mann-Whitney design had already moved the quick seeds once, from a "
        "pilot on seeds 0-7 (p = 0.104) to seeds 8-31",
    ),
)


register(
    Claim(
        id=HIDDEN_GRID.claim_id,
        source=f"{SRC_CH5}, Sec. 5.5, Fig. 5.3, App. B.3.3, App. B.4.1 setting (xiv); docs/sparse_parity.md",
        statement="A single sinusoidal neuron cos(pi(w.x+b-k)/2) trained by online SGD (hinge, B=32, eta=0.01) on "
        "the (n,k)-parity makes hidden progress: half way to convergence (t_c/2), with the accuracy still at chance, "
        "the weights on the support S have already moved more than the others, more than under random labels at "
        "the same step. Judged per seed on the first converged seeds (the statement is about runs that converge); "
        "target rate 1/2 ('typically').",
        kind="training",
        configs={
            "quick": HiddenConfig(
                n=50, k=3, seeds=tuple(range(96)), judged=40, steps=5000, gap_steps=3000, num_threads=1
            ),
            "full": HiddenConfig(n=50, k=3, seeds=tuple(range(100)), judged=64, steps=100_000, n_val=8192),
        },
        predict=_predict_hidden,
        observe=HIDDEN_GRID.observe,
        judge=HiddenProgress(),
        deviations={"quick": (), "full": ()},
        post_hoc=HIDDEN_POST_HOC,
        insensitive=(
            "the predictions are the chance accuracy 1/2 and the random-label ratio 1; a 1 % error moves only a seed "
            "within 1 % of a check (accuracy at t_c/2 at most 0.55 under a ceiling of 0.6; true-label ratios mostly "
            "far from 1), and the verdict has a wide margin (35 and 37 of 40 judged seeds on seeds 0-95 and "
            "1000-1095, a pass needs 26), so it cannot change; a wrong prediction of the right kind fails "
            "(tests/verify/test_sparse_parity_claims.py)"
        ),
    )
)
