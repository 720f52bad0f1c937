"""Audit of the Thm 5.8 claim's verdict logic (verify/claims/sparse_parity/thm5_8.py): the per-unit checks at their
boundaries (err <= eps, |w_ij| <= 3/2, relevant weight >= Claim B.12's bound, the stated step count, every interval
present), what run_case measures (checked against numerics.polynet's own run), and the schedule the observation
runs (theory.polynet's T and rate)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from numerics import polynet as npn
from theory import polynet as tp
from verify.claims import Observation, RunContext, registry
from verify.claims.sparse_parity import thm5_8
from verify.claims.sparse_parity.thm5_8 import DELTA, Thm58Config, Thm58Runs, run_case
from verify.runtime.options import RunOptions

CLAIM = "edelman-ch5-thm5.8-sgd-polynet"
CFG = Thm58Config(cases=((2, 2),), seeds=(0,), intervals=4)


def _row(case: dict, **changes) -> dict:
    """A unit that meets every check with no slack: error exactly eps, the irrelevant weight exactly 3/2 and the
    relevant one exactly on Claim B.12's bound in every interval."""
    row = {
        "seed": 0,
        "k": case["k"],
        "n_prime": case["n_prime"],
        "steps": case["steps"],
        "final_error": case["eps"],
        "irrelevant_max": case["irrelevant_bound"],
        "relevant_min_by_interval": list(case["relevant_bound"]),
        "fraction_of_T": None,
    }
    return {**row, **changes}


def _problems(row: dict) -> list[str]:
    pred = registry()[CLAIM].predict(CFG)
    return Thm58Runs().units(pred, Observation([row["final_error"]], details={"per_run": [row]}), CFG)[0]["problems"]


def test_every_check_holds_with_equality_at_its_bound() -> None:
    """err(w^(T+1)) <= eps, |w_ij| <= 3/2 (Claim B.11) and sign-corrected w_i1 >= the induction's bound (Claim B.12)
    are all non-strict: a unit exactly at every bound succeeds."""
    case = registry()[CLAIM].predict(CFG)["cases"][0]
    assert case["irrelevant_bound"] == 1.5 and case["eps"] == 0.25
    assert _problems(_row(case)) == []


def test_each_check_fails_just_past_its_bound() -> None:
    """Each per-unit condition alone fails the unit just past its bound."""
    case = registry()[CLAIM].predict(CFG)["cases"][0]
    low = list(case["relevant_bound"])
    low[1] = np.nextafter(low[1], -np.inf)
    for changes, word in (
        ({"final_error": np.nextafter(case["eps"], 1.0)}, "err(w^(T+1))"),
        ({"irrelevant_max": np.nextafter(1.5, 2.0)}, "max |w_ij|"),
        ({"relevant_min_by_interval": low}, "Claim B.12"),
        ({"steps": case["steps"] - 1}, "steps"),
    ):
        problems = _problems(_row(case, **changes))
        assert len(problems) == 1 and word in problems[0], (changes, problems)


def test_a_run_with_fewer_intervals_than_predicted_fails() -> None:
    """A run read at fewer interval ends than the prediction's cannot show the bound held in every interval."""
    case = registry()[CLAIM].predict(CFG)["cases"][0]
    row = _row(case, relevant_min_by_interval=list(case["relevant_bound"])[:-1])
    assert _problems(row)


def test_the_predicted_bound_is_claim_b12_at_every_interval_end() -> None:
    """The prediction holds Claim B.12's induction bound at each of numerics' interval ends, one per interval."""
    case = registry()[CLAIM].predict(CFG)["cases"][0]
    T = tp.thm58_steps(2, 2, CFG.eps, DELTA)
    ends = npn.polynet_sgd_interval_ends(T, CFG.intervals).tolist()
    assert case["steps"] == T and len(ends) == CFG.intervals
    assert case["relevant_bound"] == [tp.thm58_relevant_lower_bound(2, 2, T, DELTA, t) for t in ends]


def test_run_case_reports_numerics_run(monkeypatch) -> None:
    """run_case's row is numerics' run read faithfully: the irrelevant maximum over every interval (not the last),
    the seed's own relevant minima, and the exact error of the final weights by brute force."""
    seen = {}
    real = npn.polynet_sgd

    def spy(*args, **kwargs):
        seen["run"] = real(*args, **kwargs)
        return seen["run"]

    monkeypatch.setattr(npn, "polynet_sgd", spy)
    seeds = (0, 1, 2)
    rows, ends, _ = run_case(2, 3, seeds, 0.25, 600, 100 * tp.thm58_rate_scale(2, 3, 600, DELTA), 1, 6)
    run = seen["run"]
    assert ends == run["ends"].tolist()
    irr = np.asarray(run["irrelevant_max"])
    assert irr.shape[0] == 6 and (irr.max(axis=0) > irr[-1]).any()  # the maximum is not always at the end
    for e, row in enumerate(rows):
        assert row["irrelevant_max"] == pytest.approx(float(irr[:, e].max()))
        assert row["relevant_min_by_interval"] == np.asarray(run["relevant_min"])[:, e].tolist()
        assert row["final_error"] == npn.error_bruteforce(run["weights"][-1, e])


def test_the_observation_runs_the_stated_T_at_the_theorems_rate(monkeypatch) -> None:
    """Every case runs for theory's T steps with theory's rate constant (the theorem's schedule, not another)."""
    calls = []

    def fake(k, m, seeds, eps, steps, rate, batch_size, intervals):
        calls.append((k, m, steps, rate, batch_size))
        rows = [
            {
                "seed": s,
                "k": k,
                "n_prime": m,
                "steps": steps,
                "final_error": 0.0,
                "first_step_error_at_most_eps": steps,
                "fraction_of_T": 1.0,
                "irrelevant_max": 1.0,
                "relevant_min_by_interval": [1.0],
            }
            for s in seeds
        ]
        return rows, [steps], np.ones(1)

    monkeypatch.setattr(thm5_8, "run_case", fake)
    cfg = Thm58Config(cases=((2, 2), (2, 3)), seeds=(0, 1))
    registry()[CLAIM].observe(cfg, RunContext(options=RunOptions(progress=False)))
    for k, m, steps, rate, batch in calls:
        T = tp.thm58_steps(k, m, cfg.eps, DELTA)
        assert (steps, batch) == (T, 1)
        assert rate == pytest.approx(tp.thm58_rate_scale(k, m, T, DELTA), rel=1e-12)
    assert float(Fraction(cfg.eps)) == 0.25 and len(calls) == 2


def test_the_final_error_is_the_last_weights_not_the_best(monkeypatch) -> None:
    """err(w^(T+1)) is the error of the final weights: a run whose weights were perfect at the first interval end
    (w_i = e_1 per block: f = chi_S, error 0) and end on the irrelevant coordinates (f = x_12 x_22, error 1/2) has
    final error 1/2, its first interval end with error <= eps the first one, and its irrelevant maximum the largest
    over the intervals."""
    good, bad = np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [0.0, 1.0]])
    assert npn.error_bruteforce(good) == 0.0 and npn.error_bruteforce(bad) == 0.5
    fake = {
        "ends": np.array([5, 10]),
        "weights": np.stack([good[None], bad[None]]),  # (intervals, seeds, k, n')
        "irrelevant_max": np.array([[1.4], [1.2]]),
        "relevant_min": np.array([[1.0], [0.0]]),
    }
    monkeypatch.setattr(npn, "polynet_sgd", lambda *a, **kw: fake)
    rows, ends, _ = run_case(2, 2, (7,), 0.25, 10, 1.0, 1, 2)
    row = rows[0]
    assert ends == [5, 10] and row["seed"] == 7
    assert row["final_error"] == 0.5 and row["first_step_error_at_most_eps"] == 5
    assert row["irrelevant_max"] == 1.4 and row["relevant_min_by_interval"] == [1.0, 0.0]
