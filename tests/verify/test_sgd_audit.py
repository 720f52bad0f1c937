"""Audit of the Fig. 5.1 / 5.2 / 5.3 judges and aggregates (verify/claims/sparse_parity/sgd.py): the growth window
(1, hi] at its ends, the n grid read in order and at both ends, unit counts, the no-early-convergence boundaries
(t_c = 0.3 x median, exactly half converged, a random-search rate equal to p0), the hidden-progress boundaries and
missing seeds, and what the aggregates measure. Oracles: the docstrings' inequalities, hand-built observations and
cell results whose outcomes are known by construction, numpy medians."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.sparse_parity import sgd
from verify.sweep import CellResult

GROWTH, EARLY, HIDDEN = (
    "edelman-ch5-fig5.1-tc-grows-with-n",
    "edelman-ch5-fig5.2-no-early-convergence",
    "edelman-ch5-fig5.3-hidden-progress",
)
#: Three sizes per degree, so that the growth factor must be read between the smallest and the largest n.
GROWTH_CFG = sgd.TcGrowthConfig(
    cases=((10, 2, 5), (20, 2, 5), (40, 2, 5), (10, 3, 10), (20, 3, 10), (40, 3, 10)), seeds=(0, 1)
)


def _growth_obs(tc: dict[tuple[int, int], list[float | None]], order=None) -> Observation:
    keys = list(tc) if order is None else order
    rows = [{"n": n, "k": k, "t_c": tc[(n, k)], "divergence": None} for n, k in keys]
    return Observation({}, details={"cases": rows, "seeds": [0, 1]})


def _window(k: int) -> tuple[float, float]:
    g = registry()[GROWTH].predict(GROWTH_CFG)["growth"][str(k)]
    return float(g["min_factor"]), float(g["max_factor"])


def _units(tc, order=None):
    pred = registry()[GROWTH].predict(GROWTH_CFG)
    return sgd.TcGrowth().units(pred, _growth_obs(tc, order), GROWTH_CFG)


def test_growth_window_is_open_at_one_and_closed_at_its_top() -> None:
    """The window is (1, hi]: a factor exactly 1 (no growth) fails, a factor exactly hi succeeds."""
    lo, hi2 = _window(2)
    _, hi3 = _window(3)
    assert lo == 1.0
    tc = {
        (10, 2): [100.0, 100.0],
        (20, 2): [150.0, 150.0],
        (40, 2): [100.0, 100.0 * hi2],
        (10, 3): [100.0, 100.0],
        (20, 3): [150.0, 150.0],
        (40, 3): [100.0 * hi3, 100.0 * hi3],
    }
    units = {(u["seed"], u["k"]): bool(u["problems"]) for u in _units(tc)}
    assert units == {(0, 2): True, (1, 2): False, (0, 3): False, (1, 3): False}


def test_growth_factor_is_n_max_over_n_min_whatever_the_row_order() -> None:
    """t_c(n_max) / t_c(n_min) over the k grid sorted by n: rows listed in any order give the same units; the middle
    n does not enter the factor (here it is 100 x t_c(n_min), outside the window, while the end points are inside)."""
    tc = {(n, k): [100.0 * (2.0 if n == 40 else 100.0 if n == 20 else 1.0)] * 2 for n in (10, 20, 40) for k in (2, 3)}
    shuffled = [(40, 2), (10, 2), (20, 2), (20, 3), (40, 3), (10, 3)]
    for order in (None, shuffled):
        units = _units(tc, order)
        assert all(u["problems"] == [] and u["factor"] == 2.0 for u in units), units


def test_a_seed_unconverged_at_any_n_fails_its_unit() -> None:
    """'converges at every n of the grid': unconverged at the smallest n (or the middle one) fails the unit."""
    tc = {(n, k): [100.0 * (2.0 if n == 40 else 1.0)] * 2 for n in (10, 20, 40) for k in (2, 3)}
    tc[(10, 2)] = [None, 100.0]
    tc[(20, 3)] = [100.0, None]
    units = {(u["seed"], u["k"]): u["problems"] for u in _units(tc)}
    assert "unconverged" in units[(0, 2)][0] and "unconverged" in units[(1, 3)][0]
    assert units[(1, 2)] == [] and units[(0, 3)] == []


def test_growth_units_are_seed_by_degree() -> None:
    """One unit per seed and parity degree (not per case): 2 seeds x 2 degrees on a 6-case grid."""
    assert sgd.TcGrowth().planned_runs(GROWTH_CFG) == 4
    tc = {(n, k): [100.0, 200.0] for n in (10, 20, 40) for k in (2, 3)}
    assert len(_units(tc)) == 4


def test_a_diverged_growth_case_is_inconclusive() -> None:
    """Every seed of a case diverged: inconclusive, with the divergence as the reason."""
    tc = {(n, k): [100.0, 200.0] for n in (10, 20, 40) for k in (2, 3)}
    obs = _growth_obs(tc)
    row = next(r for r in obs.details["cases"] if (r["n"], r["k"]) == (40, 2))
    row["divergence"] = "training diverged at step 40"
    verdict, reason = sgd.TcGrowth()(registry()[GROWTH].predict(GROWTH_CFG), obs, GROWTH_CFG)
    assert verdict == "inconclusive" and "(n,k)=(40,2): training diverged at step 40" in reason


def _early_obs(tc: list[float | None], converged: int | None = None, divergence=None) -> Observation:
    finite = np.array([np.inf if t is None else t for t in tc])
    med = float(np.median(finite))
    details = {"t_c": tc, "median": med, "min": float(finite.min()), "fraction_early": 0.0, "divergence": divergence}
    details |= {"converged": int(np.isfinite(finite).sum()) if converged is None else converged}
    return Observation(float(finite.min() / med), details=details)


def test_no_early_convergence_at_exactly_the_ratio_is_a_success() -> None:
    """'t_c at least min_ratio times the median': t_c = 0.3 x median succeeds, just below fails, None fails."""
    claim = registry()[EARLY]
    cfg = dataclasses.replace(claim.configs["quick"], seeds=(0, 1, 2, 3, 4))
    obs = _early_obs([30.0, np.nextafter(30.0, 0.0), 100.0, 100.0, 200.0])
    assert obs.details["median"] == 100.0
    units = claim.judge.units(claim.predict(cfg), obs, cfg)
    assert [bool(u["problems"]) for u in units] == [False, True, False, False, False]
    units = claim.judge.units(claim.predict(cfg), _early_obs([None, 100.0, 100.0, 100.0, 100.0]), cfg)
    assert "unconverged" in units[0]["problems"][0]


def test_exactly_half_converged_is_inconclusive() -> None:
    """'at most half of the seeds converge': half of them is inconclusive; one more is judged."""
    claim = registry()[EARLY]
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    E = len(cfg.seeds)
    spread = [1000.0 + 10 * i for i in range(E)]
    half = [t if i < E // 2 else None for i, t in enumerate(spread)]
    verdict, reason = claim.judge(pred, _early_obs(half), cfg)
    assert verdict == "inconclusive" and f"only {E // 2}/{E}" in reason
    more = [t if i <= E // 2 else None for i, t in enumerate(spread)]
    assert "only" not in claim.judge(pred, _early_obs(more), cfg)[1]


def test_a_random_search_rate_equal_to_the_target_is_inconclusive() -> None:
    """'a target rate at or below [random search's rate] could not tell SGD from random search'."""
    claim = registry()[EARLY]
    cfg = claim.configs["quick"]
    obs = _early_obs([1000.0 + 10 * i for i in range(len(cfg.seeds))])
    pred = {**claim.predict(cfg), "random_search_rate_not_early": claim.judge.rule.p0}
    verdict, reason = claim.judge(pred, obs, cfg)
    assert verdict == "inconclusive" and "cannot tell SGD from random search" in reason


def test_a_diverged_early_run_is_inconclusive() -> None:
    """Every seed diverged: inconclusive with the divergence as the reason, before any tally."""
    claim = registry()[EARLY]
    cfg = claim.configs["quick"]
    obs = _early_obs([1000.0 + 10 * i for i in range(len(cfg.seeds))], divergence="training diverged at step 20")
    assert claim.judge(claim.predict(cfg), obs, cfg) == ("inconclusive", "training diverged at step 20")


def _early_results(cfg, tc: np.ndarray) -> list[CellResult]:
    cells = sgd._early_cells(cfg)
    out, start = [], 0
    for cell in cells:
        n = len(cell.seeds)
        value = {"seeds": list(cell.seeds), "t_c": tc[start : start + n], "steps_run": 500}
        out.append(CellResult(cell, value, 1.0))
        start += n
    return out


def test_the_early_aggregate_counts_converged_seeds_and_takes_the_ensembles_median() -> None:
    """Of 10 seeds 4 converge: converged = 4 (so the judge is inconclusive), and the median is the ensemble's,
    unconverged seeds counted as inf (numpy's median of the t_c with inf), not the converged seeds' median."""
    cfg = sgd.EarlyConfig(n=10, k=2, seeds=tuple(range(10)))
    tc = np.array([100.0, 200.0, 300.0, 400.0] + [np.inf] * 6)
    obs = sgd._aggregate_early(cfg, _early_results(cfg, tc))
    assert obs.details["converged"] == 4 and obs.details["median"] == float(np.median(tc)) == np.inf
    assert registry()[EARLY].judge(registry()[EARLY].predict(cfg), obs, cfg)[0] == "inconclusive"
    tc = np.array([100.0, 200.0, 300.0, 400.0, 500.0, 600.0] + [np.inf] * 4)
    obs = sgd._aggregate_early(cfg, _early_results(cfg, tc))
    assert obs.details["median"] == float(np.median(tc)) == 550.0


def test_the_growth_aggregate_keeps_each_case_apart() -> None:
    """Cases (n, k) sharing n but not k are separate rows, each with its own cells' t_c."""
    cfg = sgd.TcGrowthConfig(cases=((10, 2, 5), (20, 2, 5), (10, 3, 5), (20, 3, 5)), seeds=(0, 1))
    results = []
    for cell in sgd._growth_cells(cfg):
        c = cell.config
        tc = np.array([float(c.n * c.k), float(c.n * c.k + 1)])
        value = {"seeds": list(cell.seeds), "t_c": tc, "steps_run": 100}
        results.append(CellResult(cell, value, 1.0))
    obs = sgd._aggregate_growth(cfg, results)
    got = {(r["n"], r["k"]): r["t_c"] for r in obs.details["cases"]}
    assert got == {(n, k): [float(n * k), float(n * k + 1)] for n in (10, 20) for k in (2, 3)}


HCFG = sgd.HiddenConfig(n=10, k=3, seeds=tuple(range(8)), judged=4, gap_n=None)


def _hidden_obs(rows: list[tuple[float, float, float]]) -> Observation:
    per_seed = [
        {"seed": i, "accuracy_at_half_tc": a, "ratio_true_at_half_tc": t, "ratio_random_at_half_tc": r}
        for i, (a, t, r) in enumerate(rows)
    ]
    details = {
        "per_seed": per_seed,
        "converged": len(rows),
        "median_ratio_true_at_half_tc": 1.0,
        "median_ratio_random_at_half_tc": 1.0,
        "median_accuracy_at_half_tc": 0.5,
        "max_accuracy_at_half_tc": 0.5,
        "half_tc_test": {"U": 0.0, "p_value": 1.0},
    }
    return Observation(0, details=details)


def test_hidden_progress_boundaries() -> None:
    """Accuracy at t_c/2 'at most chance + slack' (0.6 succeeds); the ratio must exceed 1 and the random-label ratio
    (equal values fail)."""
    pred = registry()[HIDDEN].predict(HCFG)
    chance_plus = 0.5 + sgd.HALF_ACCURACY_SLACK
    rows = [(chance_plus, 2.0, 1.0), (0.5, 1.0, 0.5), (0.5, 2.0, 2.0), (np.nextafter(chance_plus, 1.0), 2.0, 1.0)]
    units = sgd.HiddenProgress().units(pred, _hidden_obs(rows), HCFG)
    assert [len(u["problems"]) for u in units] == [0, 1, 1, 1]


def test_missing_judged_seeds_count_as_failures_and_make_the_verdict_inconclusive() -> None:
    """Fewer converged than judged: every missing seed is a failed unit (the population counts `judged` units) and
    the verdict is inconclusive; one missing seed is enough."""
    pred = registry()[HIDDEN].predict(HCFG)
    good = [(0.5, 2.0, 1.0)] * 3
    units = sgd.HiddenProgress().units(pred, _hidden_obs(good), HCFG)
    assert len(units) == 4 == sgd.HiddenProgress().planned_runs(HCFG) and sum(not u["problems"] for u in units) == 3
    big = dataclasses.replace(HCFG, seeds=tuple(range(40)), judged=20)
    verdict, reason = sgd.HiddenProgress()(pred, _hidden_obs([(0.5, 2.0, 1.0)] * 19), big)
    assert verdict == "inconclusive" and "only 19 of the 20" in reason


def _history(cfg, steps: np.ndarray, t_c: list[float], acc: np.ndarray, ratio: np.ndarray) -> dict:
    """A stored history whose S/non-S ratio is ``ratio`` (delta_out = 1)."""
    E = len(t_c)
    return {
        "steps": steps,
        "accuracy": acc,
        "loss": np.zeros_like(acc),
        "rho": np.zeros_like(acc),
        "delta_in": ratio,
        "delta_out": np.ones_like(ratio),
        "fourier_gap": None,
        "t_c": np.array(t_c, dtype=float),
        "diverged": np.zeros(E, bool),
        "steps_run": int(steps[-1]),
        "seeds": list(cfg.seeds),
    }


def test_hidden_aggregate_reads_converged_seeds_at_half_their_own_t_c() -> None:
    """The judged seeds are the first `judged` that converged (seed 0 did not); each is read at t_c / 2 (seed 1 at
    step 40, seed 2 at 30), the true-label accuracy and ratio from the true run, the random-label ratio from the
    random run at the same step. The histories encode the step and the seed in the values, so each read is known."""
    cfg = sgd.HiddenConfig(n=10, k=3, seeds=(0, 1, 2), judged=2, gap_n=None, eval_every=10, steps=100)
    steps = np.arange(0, 110, 10)
    E = 3
    acc = 0.5 + 0.001 * steps[:, None] + 0.0001 * np.arange(E)[None, :]
    ratio = 1.0 + 0.01 * steps[:, None] + np.arange(E)[None, :]
    (true_cell,) = sgd._hidden_cells(cfg)
    true = CellResult(true_cell, _history(cfg, steps, [np.inf, 80.0, 60.0], acc, ratio), 1.0)
    (rand_cell,) = sgd._hidden_random_cells(cfg, [true])
    assert rand_cell.seeds == (1, 2) and rand_cell.config.steps == 40
    rsteps = np.arange(0, 50, 10)
    rratio = 2.0 + 0.1 * rsteps[:, None] + np.arange(2)[None, :]
    rand = CellResult(rand_cell, _history(rand_cell.config, rsteps, [np.inf, np.inf], np.zeros((5, 2)), rratio), 1.0)
    obs = sgd._aggregate_hidden(cfg, [true, rand])
    assert obs.details["judged_seeds"] == [1, 2]
    got = [
        (r["seed"], r["accuracy_at_half_tc"], r["ratio_true_at_half_tc"], r["ratio_random_at_half_tc"])
        for r in obs.details["per_seed"]
    ]
    expected = [
        (1, 0.5 + 0.001 * 40 + 0.0001, 1.0 + 0.01 * 40 + 1, 2.0 + 0.1 * 40 + 0),
        (2, 0.5 + 0.001 * 30 + 0.0002, 1.0 + 0.01 * 30 + 2, 2.0 + 0.1 * 30 + 1),
    ]
    assert np.allclose([g[1:] for g in got], [e[1:] for e in expected]) and [g[0] for g in got] == [1, 2]


def test_random_search_window_rate_against_a_direct_double_sum() -> None:
    """P(lo < T_hi / T_lo <= hi) for independent T ~ Geom(1/C(n,k)) on {1, 2, ...}: a direct sum over (T_lo, T_hi)
    of the product of the two laws (both truncated far in their tails), at a window whose top hi t is rarely an
    integer (so the floor of P(T_hi > x) = (1 - p)^floor(x) matters)."""
    p_lo, p_hi = 1 / 6, 1 / 15  # C(4, 2), C(6, 2)
    t = np.arange(1, 400)
    u = np.arange(1, 1600)
    pmf_lo = p_lo * (1 - p_lo) ** (t - 1)
    pmf_hi = p_hi * (1 - p_hi) ** (u - 1)
    ratio = u[None, :] / t[:, None]
    inside = (ratio > 1.0) & (ratio <= 3.7)
    direct = float(pmf_lo @ (inside * pmf_hi[None, :]).sum(axis=1))
    assert sgd.random_search_window_rate(4, 6, 2, 1.0, 3.7) == pytest.approx(direct, rel=1e-9)
