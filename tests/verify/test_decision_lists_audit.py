"""Mutation audit of the Karp Ch. 4 judges and observations (verify/claims/decision_lists): conditions of the
docstrings that the claim tests leave open, on hand-built observations and per-seed rows whose verdict follows
from the docstrings."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.decision_lists import one_step, theorems, thm44_gd, training


def test_z_score_allowance_adds_to_the_standard_error_band() -> None:
    """Within z standard errors *plus* the allowance: z = 4, SE 0.01, allowance 0.05 admit an error of 0.08
    (<= 0.09), not 0.1."""
    judge = one_step.ZScoreOrExact(4.0, allowance_key="bias")

    def obs(got: float) -> Observation:
        return Observation([got], details={"stderr": [0.01], "bias": 0.05})

    assert judge([1.0], obs(1.08))[0] == "pass"
    assert judge([1.0], obs(1.1))[0] == "fail"


def test_zero_standard_error_estimates_match_to_exact_tol() -> None:
    """An estimate with SE 0 must match to ``exact_tol`` relative: 7 (1 + 1e-14) matches 7 at 1e-12, 7 (1 + 1e-10)
    does not, and an exact 0 matches a predicted 0 (|0 - 0| <= 0)."""
    judge = one_step.ZScoreOrExact(4.0, exact_tol=1e-12)

    def obs(got: float) -> Observation:
        return Observation([got], details={"stderr": [0.0]})

    assert judge([7.0], obs(7.0 * (1 + 1e-14)))[0] == "pass"
    assert judge([7.0], obs(7.0 * (1 + 1e-10)))[0] == "fail"
    assert judge([0.0], obs(0.0))[0] == "pass"


def test_at_most_with_power_needs_the_power_details_true_and_keeps_a_fail() -> None:
    """Inconclusive, not pass, unless every power detail is *true* (an absent detail is not true); a bound that
    fails stays ``fail`` whatever the power details."""
    judge = theorems.AtMostWithPower(1e-12, power=("both_classes",))
    assert judge([1.0], Observation([0.5], details={"both_classes": True}))[0] == "pass"
    assert judge([1.0], Observation([0.5], details={}))[0] == "inconclusive"
    assert judge([1.0], Observation([0.5], details={"both_classes": False}))[0] == "inconclusive"
    assert judge([1.0], Observation([2.0], details={}))[0] == "fail"


def test_thm44_v_part_reads_the_largest_deviation_and_the_largest_step() -> None:
    """Lemma 4.1 per task: max_{t <= T} ||V_t - cP||_inf within the *predicted* bound (not only at the start) and
    every step of V <= the predicted multiple of eta. Against a bound of 0.6 eps, a row that starts at eps/2 and
    reaches 0.8 eps fails (it still stays within eps); one whose largest step is 2 eta fails."""
    judge = registry()["karp-ch4-thm4.4-gd-v-stays-close"].judge
    assert isinstance(judge, thm44_gd.Thm44Judge) and judge.part == "v"
    eps = 0.1
    pred = {"seed=0": {"v_stays_close": True, "v_deviation": 0.6 * eps, "per_step_over_eta": 1.0}}
    good = {
        "seed": 0,
        "c_above_threshold": True,
        "loss_increase_over_allowance": 0.0,
        "gap_over_allowance": 0.0,
        "v_stays_close": True,
        "v_dev_start": eps / 2,
        "v_dev_max": 0.55 * eps,
        "max_step_over_eta": 0.5,
    }
    far = {**good, "v_dev_max": 0.8 * eps}
    jumpy = {**good, "max_step_over_eta": 2.0}
    problems = judge.seed_problems(pred, [good, far, jumpy])
    assert [bool(p) for p in problems] == [False, True, True]


def _ordering_row(orders: list[list]) -> dict:
    return {
        "seed": 0,
        "column_orders": orders,
        "ordered_fraction": 1.0,
        "accuracy": 1.0,
        "loss_increase_over_allowance": 0.0,
        "gap_over_allowance": 0.0,
    }


def test_ordering_judge_fails_a_row_with_a_column_missing() -> None:
    """Every column must be in the predicted order: a row that reports only the first of two predicted columns
    (the second one unchecked) is not a success."""
    judge = training._judge(budget=False)
    pred = {"seed=0": {"column_orders": [[0, "others"], [2, 1, "others"]]}}
    assert judge.seed_problems(pred, [_ordering_row([[0, "others"], [2, 1, "others"]])]) == [[]]
    assert judge.seed_problems(pred, [_ordering_row([[0, "others"]])])[0]


def test_column_orders_call_a_tie_with_the_rest_a_tie() -> None:
    """The observed order ends with "others" only when the last listed token is *strictly* above every other one:
    column (3, 2, 2, 0) with a list of length 2 ties token 1 with token 2; (3, 2, 1, 0) is ordered."""
    task = SimpleNamespace(lists=[[0, 1]])
    assert training._column_orders(np.array([[3.0], [2.0], [2.0], [0.0]]), task) == [[0, 1, "tie"]]
    assert training._column_orders(np.array([[3.0], [2.0], [1.0], [0.0]]), task) == [[0, 1, "others"]]
    assert training._column_orders(np.array([[0.0], [2.0], [1.0], [3.0]]), task) == [[3, 1, "others"]]


def _fake_thm44_run(cfg: thm44_gd.Thm44GDConfig, horizon: float) -> dict:
    """A recorded GD run of one task, 3 steps: perfect only at step 3, ||V_t - cP|| above eps only at step 3."""
    tasks = thm44_gd._tasks(cfg)
    L = cfg.L
    zeros = np.zeros((1, L, L))
    run = SimpleNamespace(
        perfect=np.array([[False], [False], [False], [True]]),
        loss=np.array([[1.0], [0.9], [0.8], [0.7]]),
        v_dev=np.array([[0.5], [0.5], [0.5], [2.0]]) * cfg.eps,
        v_step=np.zeros((4, 1)),
        W=zeros,
        V=zeros,
    )
    return {
        "tasks": tasks,
        "cs": [10.0],
        "lams": [1.0],
        "lams_end": [1.0],
        "L0s": [0.5],
        "horizons": [horizon],
        "etas": [1.0],
        "run": run,
        "early": SimpleNamespace(W=zeros, V=zeros),
        "refs": [(zeros[0], zeros[0], None)],
        "reference_steps": 3,
    }


def test_thm44_observation_judges_the_steps_up_to_the_horizon_only(monkeypatch) -> None:
    """Each seed is judged over the steps t <= T: with T = 2.5 the run is not perfect at t = 0, 1, 2 (so not within
    the horizon) and V stays within eps there (the excursion at t = 3 is past T); with T = 3 step 3 counts."""
    cfg = thm44_gd.Thm44GDConfig(seeds=(0,))
    monkeypatch.setattr(thm44_gd, "_training_eps", lambda ctx: float(np.finfo(np.float64).eps))
    monkeypatch.setattr(thm44_gd, "_run", lambda cfg, ctx: _fake_thm44_run(cfg, 2.5))
    row = thm44_gd._observe(cfg, None).details["per_seed"][0]
    assert row["first_perfect_step"] is None and not row["classified_within_horizon"]
    assert row["v_stays_close"] and row["v_dev_max"] == 0.5 * cfg.eps
    monkeypatch.setattr(thm44_gd, "_run", lambda cfg, ctx: _fake_thm44_run(cfg, 3.0))
    row = thm44_gd._observe(cfg, None).details["per_seed"][0]
    assert row["first_perfect_step"] == 3 and not row["v_stays_close"]
