"""Mutation audit of the finite-group judges (``verify/claims/groups/characters.py``: ConditionValues, TauWeights;
``margin.py``: SingleNeuronOptimum), on hand-built observations whose verdict follows from the judges' docstrings
and from Theorem 7.9's hypothesis (a strict inequality). Boundary values are dyadic rationals, so no last-bit
rounding decides a verdict. Each test kills a one-line mutant that the other tests let through."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.claims.base import Observation
from verify.claims.groups.characters import ConditionValues, TauWeights
from verify.claims.groups.common import GroupsConfig
from verify.claims.groups.margin import SingleNeuronOptimum


def _condition_obs(values: list[list[float]], failing: dict) -> Observation:
    return Observation(values, details={"failing_class_values": failing})


def test_condition_value_exactly_zero_is_a_failure_of_the_strict_condition():
    """Theorem 7.9 needs sum_R d_R^1.5 chi_R(C) < 0 (strict) at every nontrivial class: a class value of exactly 0
    violates it, so a group expected to fail passes the judge and one expected to hold does not. A judge reading
    "<= 0" would accept a zero as the condition holding."""
    judge = ConditionValues()
    obs = _condition_obs([[-1.0, 0.0]], {"X": {"c": 0.0}})
    assert judge([[-1, 0]], obs, GroupsConfig(("X",), fails=("X",)))[0] == "pass"
    assert judge([[-1, 0]], obs, GroupsConfig(("X",)))[0] == "fail"


def test_a_group_left_unmeasured_makes_the_condition_inconclusive():
    """Two configured groups, one observed: the group that was not measured decides nothing, so the judge may not
    pass on the other alone (pairing the lists by position would have judged only the first group)."""
    judge = ConditionValues()
    obs = _condition_obs([[-1.0, -2.0]], {})
    verdict, reason = judge([[-1, -2], [-1, -2]], obs, GroupsConfig(("X", "Y")))
    assert verdict == "inconclusive" and "2, 2 and 1" in reason
    assert judge([[-1, -2]], obs, GroupsConfig(("X",)))[0] == "pass"


def test_a_group_reference_is_the_largest_failing_value():
    """A reference labelled by the group alone ("G") is the largest failing class value of G (docstring): with
    failing values 1 and 5, the reference 5 is met and the reference 1 is not."""
    judge = ConditionValues()
    obs = _condition_obs([[-2.0, 1.0, 5.0]], {"X": {"a": 1.0, "b": 5.0}})
    assert judge([[-2, 1, 5]], obs, GroupsConfig(("X",), fails=("X",), reference=(("X", 5.0),)))[0] == "pass"
    assert judge([[-2, 1, 5]], obs, GroupsConfig(("X",), fails=("X",), reference=(("X", 1.0),)))[0] == "fail"


def test_condition_reference_tolerance_is_relative_to_the_reference():
    """A failing class value is checked against its reference within ref_rtol x |reference| (relative): at the
    reference 16 a miss of 2^-17 (below 1e-6 x 16 = 1.6e-5, above 1e-6 absolute) passes, a miss of 2^-15 fails."""
    judge = ConditionValues()
    cfg = GroupsConfig(("X",), fails=("X",), reference=(("X:c", 16.0),))
    for miss, verdict in ((2.0**-17, "pass"), (2.0**-15, "fail")):
        obs = _condition_obs([[16.0 + miss]], {"X": {"c": 16.0 + miss}})
        assert judge([[16.0 + miss]], obs, cfg)[0] == verdict


def test_condition_values_near_zero_are_compared_absolutely():
    """Exact vs float values agree within rtol x max(1, |predicted|): a predicted value of 2^-40 observed 2^-31
    away (about 4.7e-10 < 1e-9) passes; read relative to |predicted| alone it would be 512 x off."""
    judge = ConditionValues()
    p = 2.0**-40
    assert judge([[-1, -p]], _condition_obs([[-1.0, -p - 2.0**-31]], {}), GroupsConfig(("X",)))[0] == "pass"
    assert judge([[-1, -p]], _condition_obs([[-1.0, -p - 2.0**-28]], {}), GroupsConfig(("X",)))[0] == "fail"


def _tau_obs(tau: float, positive: bool = True) -> Observation:
    return Observation([1.0], details={"all_positive": {"X": positive}, "tau": {"X": {"c": tau}}})


def test_tau_fails_when_the_exact_values_differ_even_if_tau_is_fine():
    """TauWeights is ExactOrFloat *and* the tau checks: an observed normalization 1 + 2^-10 (predicted 1) fails
    although every tau is positive and no reference is quoted."""
    judge = TauWeights(float_tol=1e-15)
    assert judge([1], _tau_obs(0.5), GroupsConfig(("X",)))[0] == "pass"
    bad = Observation([1.0 + 2.0**-10], details=_tau_obs(0.5).details)
    assert judge([1], bad, GroupsConfig(("X",)))[0] == "fail"


def test_tau_must_be_positive():
    """Lemma D.14's weights are probabilities of classes: a group with a tau_C that is not positive fails."""
    judge = TauWeights(float_tol=1e-15)
    assert judge([1], _tau_obs(0.5, positive=False), GroupsConfig(("X",)))[0] == "fail"


def test_tau_reference_tolerance_has_a_floor_for_small_references():
    """A reference tau is met within ref_rtol x max(|ref|, ref_floor) + ref_atol: for a tiny reference 2^-20 the
    floor 1e-3 gives 1e-8 + 5e-7 = 5.1e-7; a miss of 5.05e-7 is inside it (it would be outside without the floor:
    1e-5 x 2^-20 + 5e-7 is about 5.0000001e-7)."""
    judge = TauWeights(float_tol=1e-15)
    ref = 2.0**-20
    cfg = GroupsConfig(("X",), reference=(("X:c", ref),))
    assert judge([1], _tau_obs(ref + 5.05e-7), cfg)[0] == "pass"
    assert judge([1], _tau_obs(ref + 5.2e-7), cfg)[0] == "fail"


def _neuron_row(purity: list[float], sv: list[list[float]], t: float = 0.5, cos: float = 1.0, name: str = "X") -> dict:
    return {
        "group": name,
        "irrep": "R",
        "purity": purity,
        "singular_values": sv,
        "expected_singular_value": t,
        "cos_alphabeta_gamma": cos,
    }


def _neuron_obs(value: float, row: dict) -> Observation:
    return Observation([value], details={"per_group": [row]})


def test_single_neuron_value_below_the_prediction_fails():
    """The numerical maximum equals the prediction within rtol relative, in both directions: a maximum 1 % short
    of it fails (an optimizer shortfall is not agreement)."""
    judge = SingleNeuronOptimum()
    row = _neuron_row([1.0, 1.0], [[0.5, 0.0]])
    assert judge([1.0], _neuron_obs(1.0, row))[0] == "pass"
    assert judge([1.0], _neuron_obs(0.99, row))[0] == "fail"
    assert judge([1.0], _neuron_obs(1.01, row))[0] == "fail"


def test_single_neuron_every_maximizer_must_be_pure():
    """Every maximizer lies in one irrep: one impure maximizer among pure ones fails."""
    judge = SingleNeuronOptimum()
    row = _neuron_row([1.0, 0.5], [[0.5, 0.0], [0.5, 0.0]])
    assert judge([1.0], _neuron_obs(1.0, row))[0] == "fail"


@pytest.mark.parametrize("dim", [2, 3])
def test_single_neuron_coefficients_must_be_rank_one(dim):
    """Rank-1 coefficient matrices: every singular value but the first is below sv_rtol x t; a second singular
    value t/2 fails, for 2 x 2 and 3 x 3 blocks alike."""
    judge = SingleNeuronOptimum()
    sv = [[0.5, 0.25] + [0.0] * (dim - 2)]
    assert judge([1.0], _neuron_obs(1.0, _neuron_row([1.0], sv)))[0] == "fail"
    sv_ok = [[0.5] + [0.0] * (dim - 1)]
    assert judge([1.0], _neuron_obs(1.0, _neuron_row([1.0], sv_ok)))[0] == "pass"


def test_single_neuron_top_singular_value_must_equal_t_on_both_sides():
    """The first singular value is t = sqrt(d_R/(3|G|)) within sv_rtol x t: one below t by 1 % fails as one above
    does."""
    judge = SingleNeuronOptimum()
    t = math.sqrt(2 / 18)
    for s in (0.99 * t, 1.01 * t):
        assert judge([1.0], _neuron_obs(1.0, _neuron_row([1.0], [[s, 0.0]], t=t)))[0] == "fail"
    assert judge([1.0], _neuron_obs(1.0, _neuron_row([1.0], [[t, 0.0]], t=t)))[0] == "pass"
    assert np.isclose(t**2 * 3 * 6, 2)  # d_R = 2 in a group of order 6 (S_3's standard irrep)
