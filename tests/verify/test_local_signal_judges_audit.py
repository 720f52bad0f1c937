"""Mutation audit of the per-seed and per-replicate judges of the local-signal claims
(``verify/claims/local_signal/algorithm.py``: Thm31Judge and the first step at the error level;
``trained.py``: FigureJudge, ReplicatedWelch), on hand-built runs whose verdict follows from Theorem 3.1 ("test
error at most 0.01 within ceil(k^{3/2}) steps"), from the judges' docstrings and, for Welch's test, from scipy's t
distribution. The judges run under a small population rule (p0 = 0.5: five of five units pass, none of five fail);
the rule itself is tested in ``test_judges*.py``. Each test kills a one-line mutant that the other tests let
through."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from verify.claims.base import Observation
from verify.claims.judges import Population
from verify.claims.local_signal import algorithm
from verify.claims.local_signal.trained import FIGURE_JUDGE, ReplicatedWelch

RULE = Population(p0=0.5, p_alt=0.95)
PRED = {"error_level": 0.01, "budget": {"4": 8}, "err_tau_star": {"4": 0.2}}


def _thm31(rows: list[dict]) -> str:
    judge = replace(algorithm._judge("audit"), rule=RULE)
    return judge(PRED, Observation(None, details={"per_seed": rows}))[0]


def _thm31_row(seed: int, **changes) -> dict:
    return {"seed": seed, "k": 4, "final_error": 0.005, "first_step_at_level": 6, "steps_run": 8} | changes


def test_thm31_error_exactly_at_the_level_and_step_exactly_at_the_budget_pass():
    """Theorem 3.1: test error *at most* 0.01 within the budget ceil(k^{3/2}) (here 8 steps): both boundaries are
    inside."""
    assert _thm31([_thm31_row(s, final_error=0.01, first_step_at_level=8) for s in range(5)]) == "pass"
    assert _thm31([_thm31_row(s, first_step_at_level=9) for s in range(5)]) == "fail"


def test_thm31_a_run_that_never_reaches_the_level_fails():
    """A run whose error never reaches the level (no first step) fails, whatever its final error says."""
    assert _thm31([_thm31_row(s, first_step_at_level=None) for s in range(5)]) == "fail"


def test_first_step_is_the_first_evaluation_at_or_below_the_level():
    """The first evaluated step whose test error is <= level: an error exactly at the level counts, and a later,
    lower error does not move the first step."""
    run = SimpleNamespace(steps=np.array([0, 2, 4, 6]), accuracy=np.array([[0.5], [0.96875], [0.984375], [1.0]]))
    assert algorithm._first_step(run, 1 - 0.96875) == 2
    assert algorithm._first_step(run, 0.0) == 6
    assert algorithm._first_step(run, 0.01) == 6
    assert algorithm._first_step(run, 2.0**-6) == 4


def _figure_row(seed: int, tau_final: float) -> dict:
    return {
        "seed": seed,
        "cos_final": 1.0,
        "v_over_c": 0.0,
        "b": -1.0,
        "tau_rise": 1.0,
        "acc_final": 1.0,
        "acc_gain": 1.0,
        "tau_final": tau_final,
    }


_FIG_CFG = SimpleNamespace(min_cos=0.9, max_v_over_c=0.5, min_acc=0.6, min_acc_gain=0.05, min_tau_frac=0.25)


def _figure(tau_final: float, cfg=_FIG_CFG) -> str:
    judge = replace(FIGURE_JUDGE, rule=RULE)
    rows = [_figure_row(s, tau_final) for s in range(5)]
    return judge({"tau_star": 2.0}, Observation(None, details={"per_seed": rows}), cfg)[0]


def test_figure_threshold_window_is_two_sided_and_read_from_the_config():
    """The learned |b|/c lies in [config.min_tau_frac, 1] x tau*: overshooting tau* fails, and so does a
    threshold below min_tau_frac of the way (a run that barely moves)."""
    assert _figure(2.0) == "pass"
    assert _figure(0.5) == "pass"  # exactly min_tau_frac x tau*
    assert _figure(2.5) == "fail"
    assert _figure(0.25) == "fail"


def _welch(rows_per_rep: list[list[dict]], n_pred: int | None = None, alpha: float = 0.05) -> str:
    judge = ReplicatedWelch(rule=RULE)
    pred = [0.0] * (n_pred if n_pred is not None else len(rows_per_rep[0]))
    obs = Observation(None, details={"replicates": [{"comparisons": r} for r in rows_per_rep]})
    return judge(pred, obs, SimpleNamespace(alpha=alpha, replicates=len(rows_per_rep)))[0]


def _cmp(t: float, se: float = 1.0) -> dict:
    return {"difference": t * se, "se": se, "dof": 1e6, "quantity": "q", "step": 0}


def test_welch_uses_the_bonferroni_level_per_comparison():
    """Each comparison is tested at alpha / (comparisons per replicate): with two comparisons and alpha = 0.05, a
    two-sided p-value of 0.04 (t from scipy's t distribution) is not a rejection (0.04 >= 0.025), one of 0.01 is."""
    t04 = float(stats.t.isf(0.02, 1e6))
    t01 = float(stats.t.isf(0.005, 1e6))
    assert _welch([[_cmp(t04), _cmp(0.0)] for _ in range(5)]) == "pass"
    assert _welch([[_cmp(t01), _cmp(0.0)] for _ in range(5)]) == "fail"


def test_welch_fails_on_a_prediction_count_mismatch():
    """A replicate with more predictions than comparisons has a problem (not every prediction was compared)."""
    assert _welch([[_cmp(0.0), _cmp(0.0)] for _ in range(5)], n_pred=3) == "fail"


@pytest.mark.filterwarnings("ignore:divide by zero")
def test_welch_a_nonzero_difference_with_zero_standard_error_is_rejected():
    """se = 0 and a difference of 1: t is infinite, the p-value 0, a rejection in every replicate."""
    assert _welch([[_cmp(0.0) | {"difference": 1.0, "se": 0.0}] for _ in range(5)]) == "fail"
