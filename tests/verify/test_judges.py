"""The shared judges (verify/claims/judges.py): verdicts on both sides of each tolerance, the tolerance text,
and the perturbation every claim's verdict must react to."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from verify.claims.base import Observation
from verify.claims.judges import (
    AtLeast,
    AtMost,
    Check,
    ExactlyEqual,
    MaxAbs,
    MaxRel,
    PerSeed,
    RefutedIfDiffers,
    ZScore,
    perturb_value,
)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda x: abs(x) > 1e-6)


def test_max_abs_both_sides_and_require():
    j = MaxAbs(1e-3)
    assert j(1.0, Observation(1.0009))[0] == "pass"
    assert j(1.0, Observation(1.0011))[0] == "fail"
    assert j([1.0, 2.0], Observation([1.0, 2.1]))[0] == "fail"
    assert j([1.0, 2.0], Observation([1.0]))[0] == "fail"  # length mismatch
    assert j(0.0, Observation(float("nan")))[0] == "fail"
    needs = MaxAbs(1e-3, require="cross_check")
    assert needs(1.0, Observation(1.0, details={"cross_check": False}))[0] == "fail"
    assert needs(1.0, Observation(1.0, details={"cross_check": True}))[0] == "pass"
    assert j.describe() == "absolute 0.001" and "cross check" in needs.describe()


def test_max_rel_both_sides_and_zero_prediction():
    j = MaxRel(1e-2)
    assert j(100.0, Observation(100.9))[0] == "pass"
    assert j(100.0, Observation(101.1))[0] == "fail"
    assert j(0.0, Observation(0.0))[0] == "fail"  # a relative tolerance of 0 is undefined
    assert j.describe() == "relative 0.01"


def test_exactly_equal_symbolic_and_rational():
    p = sympy.Symbol("p", positive=True)
    j = ExactlyEqual()
    assert j(sympy.sqrt(2) / p, Observation(sympy.sqrt(8) / (2 * p)))[0] == "pass"
    assert j(Fraction(1, 3), Observation(sympy.Rational(1, 3)))[0] == "pass"
    assert j([1, 2], Observation([1, 3]))[0] == "fail"
    assert j({"exact": "1/3", "float": 1 / 3}, Observation(sympy.Rational(1, 3)))[0] == "pass"


def test_zscore_uses_the_stated_standard_errors():
    j = ZScore(4.0)
    assert j([1.0, 2.0], Observation([1.3, 2.0], details={"stderr": [0.1, 0.1]}))[0] == "pass"
    assert j([1.0, 2.0], Observation([1.5, 2.0], details={"stderr": [0.1, 0.1]}))[0] == "fail"
    assert j(1.0, Observation(1.0, details={"stderr": 0.0}))[0] == "inconclusive"


def test_bounds_and_refuted():
    assert AtMost()(1.0, Observation([0.5, 1.0]))[0] == "pass"
    assert AtMost()(1.0, Observation([0.5, 1.01]))[0] == "fail"
    assert AtMost(0.1)(1.0, Observation(1.05))[0] == "pass"
    assert AtLeast()(1.0, Observation([1.0, 3.0]))[0] == "pass"
    assert AtLeast(0.01, relative=True)(1.0, Observation(0.98))[0] == "fail"
    assert RefutedIfDiffers(1e-9)(0.5, Observation(0.0))[0] == "refuted"
    assert RefutedIfDiffers(1e-9)(0.5, Observation(0.5))[0] == "pass"


def test_per_seed_lists_every_problem():
    j = PerSeed(
        (Check("margin_ratio", "margin ratio", lo=0.99, hi=1 + 1e-9), Check("covered", "coverage", truthy=True))
    )
    good = {"margin_ratio": 0.995, "covered": True}
    assert j(None, Observation(None, details={"per_seed": [good, good]}))[0] == "pass"
    verdict, reason = j(None, Observation(None, details={"per_seed": [good, {"margin_ratio": 1.2, "covered": False}]}))
    assert verdict == "fail" and "seed 1: margin ratio 1.2" in reason and "seed 1: coverage" in reason
    assert j(None, Observation(None, details={"per_seed": []}))[0] == "inconclusive"
    assert j.describe() == "per seed: margin ratio in [0.99, 1], coverage"


@given(x=finite, tol=st.floats(min_value=0, max_value=1e-2))
def test_perturbation_moves_by_one_percent_or_ten_tolerances(x, tol):
    moved = perturb_value(x, 0.01, 10 * tol)
    assert abs(moved - x) == pytest.approx(max(0.01 * abs(x), 10 * tol))


@given(x=finite, atol=st.floats(min_value=1e-12, max_value=1e-3), rtol=st.floats(min_value=1e-12, max_value=1e-3))
def test_a_perturbed_prediction_is_rejected_by_every_judge(x, atol, rtol):
    exact = Observation(x)
    for judge in (MaxAbs(atol), MaxRel(rtol), AtMost(atol), AtLeast(atol)):
        assert judge(x, exact)[0] == "pass"
        assert judge(judge.perturb(x, exact), exact)[0] == "fail", judge
    z = Observation(x, details={"stderr": abs(x) * 1e-4})
    assert ZScore(4.0)(ZScore(4.0).perturb(x, z), z)[0] == "fail"


def test_exact_perturbation_stays_exact_and_zero_moves():
    assert perturb_value(Fraction(1, 3), 0.01) == Fraction(1, 3) * Fraction(101, 100)
    assert perturb_value(sympy.Integer(0), 0.01) != 0
    assert ExactlyEqual()(ExactlyEqual().perturb(sympy.sqrt(2), None), Observation(sympy.sqrt(2)))[0] == "fail"
    arr = perturb_value(np.array([1.0, -2.0]), 0.01)
    np.testing.assert_allclose(arr, [1.01, -1.98])
