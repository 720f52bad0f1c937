"""The judges at their boundaries (verify/claims/judges.py), from each judge's documented rule: a value exactly at
the tolerance is inside it where the rule says "<=", the side a one-sided slack widens, which verdicts a combinator
keeps, and the size of the rejected prediction. Every boundary value below is a dyadic rational, so the comparison
at the boundary is exact on every machine (no last-bit round-off decides a verdict).

Written for the mutation audit of the verdict machinery: each test kills a one-line mutant that the other tests of
the judges let through."""

from __future__ import annotations

import pytest

from verify.claims.base import Observation
from verify.claims.judges import (
    AtLeast,
    AtMost,
    CertifiedBracket,
    Check,
    ExactOrFloat,
    MaxAbs,
    MaxRel,
    MaxRelEach,
    MaxRelToLargest,
    Population,
    PredictedBoundsPerSeed,
    RefutedIfDiffers,
    RefutedIfViolated,
    RejectsWrongGamma,
    Requiring,
    WithinBounds,
    ZScore,
    perturb_value,
    relative_step,
)


def test_an_error_equal_to_the_tolerance_passes():
    """MaxAbs, MaxRel, ZScore and ExactOrFloat all read "error <= tolerance": the boundary itself is inside."""
    assert MaxAbs(0.25)(1.0, Observation(1.25))[0] == "pass"
    assert MaxAbs(0.25)(1.0, Observation(1.375))[0] == "fail"
    assert MaxRel(0.25)(4.0, Observation(5.0))[0] == "pass"  # |5 - 4| / 4 = 0.25
    assert MaxRel(0.25)(4.0, Observation(5.5))[0] == "fail"
    assert ZScore(2.0)(1.0, Observation(1.5, details={"stderr": 0.25}))[0] == "pass"  # z = 2 exactly
    assert ZScore(2.0)(1.0, Observation(1.625, details={"stderr": 0.25}))[0] == "fail"
    assert ExactOrFloat(0.25)([1], Observation([1.25]))[0] == "pass"
    assert ExactOrFloat(0.25)([1], Observation([1.375]))[0] == "fail"


def test_max_rel_to_largest_divides_by_the_largest_prediction():
    """max |observed - predicted| <= rtol x max |predicted|: with predictions 4 and 0 the scale is 4, not their
    mean 2."""
    j = MaxRelToLargest(0.01)
    assert j([4.0, 0.0], Observation([4.0, 0.03]))[0] == "pass"  # 0.03 <= 0.04
    assert j([4.0, 0.0], Observation([4.0, 0.05]))[0] == "fail"


def test_a_relative_slack_widens_a_bound_outward_also_for_a_negative_bound():
    """AtLeast: observed >= predicted - slack x |predicted|; AtMost: observed <= predicted + slack x |predicted|.
    For the bound -1 with slack 1 %: the lower limit is -1.01 and the upper one -0.99."""
    low, high = AtLeast(0.01, relative=True), AtMost(0.01, relative=True)
    assert low(-1.0, Observation(-1.005))[0] == "pass"
    assert low(-1.0, Observation(-1.02))[0] == "fail"
    assert high(-1.0, Observation(-0.995))[0] == "pass"
    assert high(-1.0, Observation(-0.98))[0] == "fail"


def test_refuted_if_differs_only_beyond_tol_times_max_one_printed():
    """``refuted`` when |observed - printed| > tol x max(1, |printed|): equal to it is agreement, and the scale of a
    printed 100 is 100, not 1."""
    j = RefutedIfDiffers(0.25)
    assert j(1.0, Observation(1.25))[0] == "pass"
    assert j(1.0, Observation(1.375))[0] == "refuted"
    assert RefutedIfDiffers(0.01)(100.0, Observation(100.5))[0] == "pass"  # 0.5 <= 0.01 x 100
    assert RefutedIfDiffers(0.01)(100.0, Observation(102.0))[0] == "refuted"


def test_refuted_if_violated_reads_only_fail_as_refuted():
    """A bound judge's ``fail`` becomes ``refuted``; an ``inconclusive`` (no standard errors) stays inconclusive: it
    is no counterexample."""
    j = RefutedIfViolated(ZScore(4.0))
    assert j(1.0, Observation(1.0, details={"stderr": 0.0}))[0] == "inconclusive"
    assert j(1.0, Observation(2.0, details={"stderr": 0.125}))[0] == "refuted"


def test_an_unmet_requirement_fails_an_inconclusive_inner_verdict_too():
    """Requiring: an unmet requirement makes the verdict ``fail`` whatever ``inner`` says, except a refutation."""
    j = Requiring(ZScore(4.0), ("ordered",))
    no_se = {"stderr": 0.0}
    assert j(1.0, Observation(1.0, details={**no_se, "ordered": True}))[0] == "inconclusive"
    verdict, reason = j(1.0, Observation(1.0, details={**no_se, "ordered": False}))
    assert verdict == "fail" and "false: ordered" in reason


def test_within_bounds_slack_widens_both_sides():
    """lo - slack <= observed <= hi + slack."""
    j = WithinBounds(0.5)
    assert j([(1.0, 2.0)], Observation([0.75]))[0] == "pass"
    assert j([(1.0, 2.0)], Observation([2.25]))[0] == "pass"
    assert j([(1.0, 2.0)], Observation([0.25]))[0] == "fail"
    assert j([(1.0, 2.0)], Observation([2.75]))[0] == "fail"


def test_within_bounds_perturbation_tightens_the_interval():
    """The rejected prediction moves each lower bound up and each upper bound down, so an observation at either
    end of the interval is rejected by it."""
    j = WithinBounds(0.0)
    for at in (1.0, 2.0):
        obs = Observation([at])
        assert j([(1.0, 2.0)], obs)[0] == "pass"
        ((lo, hi),) = j.perturb([(1.0, 2.0)], obs)
        assert lo > 1.0 and hi < 2.0
        assert j([(lo, hi)], obs)[0] == "fail"


def test_a_nan_measurement_fails_max_rel_each():
    """Every measurement must be within its tolerance; a NaN is within none."""
    j = MaxRelEach((("lp", 1e-3),))
    assert j([2.0], Observation({"lp": [2.0]}))[0] == "pass"
    assert j([2.0], Observation({"lp": [float("nan")]}))[0] == "fail"


def test_exact_or_float_relative_tolerance_scales_with_abs_prediction():
    """A float observation within float_tol x |predicted|: a negative prediction has a positive scale."""
    rel = ExactOrFloat(1e-6, relative=True)
    assert rel([-1000], Observation([-1000.0005]))[0] == "pass"
    assert rel([-1000], Observation([-1000.002]))[0] == "fail"


def test_certified_bracket_a_fail_outweighs_an_inconclusive():
    """One case whose bracket excludes gamma fails the claim, even when another case has no rigorous bound."""
    loose = {"case": "a", "lower": 0.25, "upper_rigorous": None, "upper_heuristic": 0.25}
    excluded = {"case": "b", "lower": 0.25, "upper_rigorous": 0.125, "upper_heuristic": 0.25}
    j = CertifiedBracket(1e-6)
    assert j([0.25], Observation(None, details={"per_case": [loose]}))[0] == "inconclusive"
    assert j([0.25, 0.25], Observation(None, details={"per_case": [loose, excluded]}))[0] == "fail"
    assert j([0.25, 0.25], Observation(None, details={"per_case": [excluded, loose]}))[0] == "fail"


def test_rejects_wrong_gamma_counts_only_fail_as_rejection():
    """Every wrong value must get ``fail`` from the certificate; an ``inconclusive`` (no rigorous upper bound) is
    not a rejection."""
    j = RejectsWrongGamma(1e-6)
    assert j([0.5], Observation(None, details={"intervals": [[0.25, 0.25, 0.25]]}))[0] == "pass"
    verdict, reason = j([0.25], Observation(None, details={"intervals": [[0.25, None, 0.25]]}))
    assert verdict == "fail" and "inconclusive" in reason


def test_zscore_perturbation_is_ten_tolerances_of_z_standard_errors():
    """The rejected prediction moves by max(1 % of it, 10 x the tolerance), the tolerance being z standard errors."""
    obs = Observation(1.0, details={"stderr": 0.01})
    assert ZScore(4.0).perturb(1.0, obs) == pytest.approx(1.0 + 10 * 4.0 * 0.01)


def test_relative_step_is_the_larger_of_one_percent_and_ten_tolerances():
    assert relative_step(1e-4) == pytest.approx(0.01)
    assert relative_step(0.01) == pytest.approx(0.1)
    assert MaxRel(1e-4).perturb(2.0, Observation(2.0)) == pytest.approx(2.02)


def test_a_float_zero_prediction_moves_too():
    """A zero prediction with no absolute step moves by ``rel`` itself (a zero prediction must not be immune)."""
    assert perturb_value(0.0, 0.01) == pytest.approx(0.01)
    assert MaxAbs(0.0)(perturb_value(0.0, 0.01), Observation(0.0))[0] == "fail"


def test_check_bounds_are_inclusive_and_nan_fails():
    """``lo <= details[field] <= hi``: a value at a bound meets it; NaN meets no bound."""
    c = Check("r", "ratio", lo=0.5, hi=1.0)
    assert c.problem({"r": 0.5}) is None and c.problem({"r": 1.0}) is None
    assert c.problem({"r": 0.375}) and c.problem({"r": 1.125})
    assert Check("r", "ratio", lo=0.5).problem({"r": float("nan")})
    assert Check("r", "ratio", hi=0.5).problem({"r": float("nan")})


def test_predicted_bounds_per_seed_inclusive():
    """``row[field] <= predicted[key]``: a seed at the predicted bound meets it."""
    j = PredictedBoundsPerSeed((), bounds=(("risk", "bound", "risk {:.4g} above the bound"),))
    at = Observation(None, details={"per_seed": [{"risk": 0.5, "margin_ratio": 1.0}] * 5})
    above = Observation(None, details={"per_seed": [{"risk": 0.625, "margin_ratio": 1.0}] * 5})
    assert j({"bound": 0.5}, at)[0] == "pass"
    assert j({"bound": 0.5}, above)[0] == "fail"


def test_population_rule_validation_bounds():
    """The power is against a higher rate: p_alt must exceed p0 (equal is refused); the confidence may be 0.5
    (numerics.stats.clopper_pearson's range is [0.5, 1))."""
    with pytest.raises(ValueError, match="must exceed"):
        Population(p0=0.5, p_alt=0.5)
    assert Population(p0=0.5, p_alt=0.5, deterministic=True).verdict(2, 2) == "pass"
    assert Population(confidence=0.5).confidence == 0.5
    with pytest.raises(ValueError):
        Population(confidence=1.0)
