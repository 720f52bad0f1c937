"""Mutation audit of the Shi Ch. 5 judges (verify/claims/lsa/common.py): conditions of the docstrings that the claim
tests leave open, on hand-built observations whose verdict follows from the docstring."""

from __future__ import annotations

import numpy as np

from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.judges import Population
from verify.claims.lsa.common import DecreasingArgmin, ReachesOptimum


def test_decreasing_argmin_admits_equal_neighbouring_ranks() -> None:
    """ "Non-increasing in the noise with a strict drop from the first to the last level": a plateau (4, 2, 2, 1) is
    non-increasing and drops overall, so it passes; a strictly-decreasing requirement would reject it."""
    assert DecreasingArgmin()([4, 2, 2, 1], Observation([4, 2, 2, 1]))[0] == "pass"


def _control_case(learned_rel: float) -> tuple[dict, Observation]:
    """One seed at rank 1, d = 2: the trained-on optimum v* = (2, 1), L_r = 0.5, and the learned M_eff off it by
    ``learned_rel`` (relative Frobenius, along the first entry), with the target optimum v* = (1, 3) far away."""
    v_trained, v_target = np.array([2.0, 1.0]), np.array([1.0, 3.0])
    M = np.diag(v_trained) + np.diag([learned_rel * np.linalg.norm(v_trained), 0.0])
    pred = {
        "trained_on": {"r=1": {"v_star": v_trained.tolist(), "L_r": 0.5}},
        "target": {"r=1": {"v_star": v_target.tolist(), "L_r": 0.25}},
    }
    row = {
        "seed": 0,
        "rank": 1,
        "M_eigen_trained_on": M.tolist(),
        "loss_trained_on": 0.5,
        "M_eigen": M.tolist(),
        "loss": 0.9,
    }
    return pred, Observation([0.5], details={"per_run": [row]})


def test_control_learned_bound_is_learned_tol_not_rel_tol() -> None:
    """The negative control's "learned" condition uses ``learned_tol`` (rel_tol only by default): an error of 3 %
    vs the trained-on optimum, above rel_tol 1 % and below learned_tol 5 %, has learned; 6 % has not."""
    judge = ReachesOptimum(0.01, 1e-3, Population(p0=0.5), control=True, learned_tol=0.05)
    pred, obs = _control_case(0.03)
    assert judge.population(pred, obs)["successes"] == 1
    pred, obs = _control_case(0.06)
    assert judge.population(pred, obs)["successes"] == 0


def test_registered_control_uses_its_declared_learned_bound() -> None:
    """The registered wrong-Lambda control declares a learned bound looser than its rel_tol; a seed between the two
    has learned (it is judged by the declared bound, not the positive claim's)."""
    judge = registry()["shi-thm5.4.1-training-attention-wrong-lambda"].judge
    assert judge.control and judge.learned_tol is not None and judge.learned_tol > judge.rel_tol
    pred, obs = _control_case((judge.rel_tol + judge.learned_tol) / 2)
    assert judge.population(pred, obs)["successes"] == 1


def test_reaches_optimum_judges_the_loss_gap_as_well_as_the_matrix() -> None:
    """A seed succeeds only when |loss - L_r| <= gap_tol as well: at the exact optimum matrix, a loss 2 gap_tol
    above L_r fails, half a gap_tol above succeeds."""
    judge = ReachesOptimum(0.01, 1e-3, Population(p0=0.5))
    pred = {"r=1": {"v_star": [2.0, 1.0], "L_r": 0.5}}

    def obs(loss: float) -> Observation:
        row = {"seed": 0, "rank": 1, "M_eigen": [[2.0, 0.0], [0.0, 1.0]], "loss": loss}
        return Observation([loss], details={"per_run": [row]})

    assert judge.population(pred, obs(0.5005))["successes"] == 1
    assert judge.population(pred, obs(0.502))["successes"] == 0


def test_control_difference_from_the_target_is_judged_against_rel_tol() -> None:
    """ "Different" means relative error vs the target's U* above ``rel_tol`` (not ``learned_tol``): a seed exactly at
    its trained-on optimum and 3 % from the target's (between rel_tol 1 % and learned_tol 5 %) is different."""
    judge = ReachesOptimum(0.01, 1e-3, Population(p0=0.5), control=True, learned_tol=0.05)
    v_target = [2.07, 1.0]  # ||diag(2, 1) - diag(2.07, 1)|| / ||(2.07, 1)|| = 0.07 / 2.299 = 0.0304
    pred = {
        "trained_on": {"r=1": {"v_star": [2.0, 1.0], "L_r": 0.5}},
        "target": {"r=1": {"v_star": v_target, "L_r": 0.25}},
    }
    M = [[2.0, 0.0], [0.0, 1.0]]
    row = {"seed": 0, "rank": 1, "M_eigen_trained_on": M, "loss_trained_on": 0.5, "M_eigen": M, "loss": 0.5}
    assert judge.population(pred, Observation([0.5], details={"per_run": [row]}))["successes"] == 1
