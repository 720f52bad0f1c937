"""The shared judges (verify/claims/judges.py): verdicts on both sides of each tolerance, the tolerance text,
and the perturbation every claim's verdict must react to."""

from __future__ import annotations

import math
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
    ExactOrFloat,
    MaxAbs,
    MaxRel,
    MaxRelEach,
    MaxRelToLargest,
    PerSeed,
    Population,
    RefutedIfDiffers,
    RefutedIfViolated,
    Requiring,
    WithinBounds,
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
    needs = Requiring(MaxAbs(1e-3), ("cross_check",))
    assert needs(1.0, Observation(1.0, details={"cross_check": False}))[0] == "fail"
    assert needs(1.0, Observation(1.0, details={"cross_check": True}))[0] == "pass"
    assert j.describe() == "absolute 0.001" and "cross check" in needs.describe()


def test_at_least_require():
    """A lower bound judged on floats can also require the same comparison made exactly (a detail flag)."""
    needs = Requiring(AtLeast(), ("bound_holds_exactly",))
    assert needs(1.0, Observation(2.0, details={"bound_holds_exactly": True}))[0] == "pass"
    assert needs(1.0, Observation(2.0, details={"bound_holds_exactly": False}))[0] == "fail"
    assert needs(1.0, Observation(2.0))[0] == "fail"  # a missing flag is not a pass
    assert needs(1.0, Observation(0.5, details={"bound_holds_exactly": True}))[0] == "fail"
    assert "bound holds exactly" in needs.describe() and AtLeast().describe() == "observed >= predicted bound"


def test_requiring_combines_flags_and_tolerances_and_keeps_refutations():
    """One combinator for every "inner judge and a structural detail": flags that must be true, details that must
    stay below a tolerance (a number or a list; NaN never meets it), the inner perturbation, and a refutation kept."""
    judge = Requiring(MaxRel(1e-6), require=("ordered",), at_most=(("spread", 1e-7),))
    ok = Observation([2.0], details={"ordered": True, "spread": [1e-8, 5e-8]})
    assert judge([2.0], ok)[0] == "pass"
    assert judge([2.0], Observation([2.0], details={"ordered": True, "spread": [1e-8, 2e-7]}))[0] == "fail"
    assert judge([2.0], Observation([2.0], details={"ordered": True, "spread": float("nan")}))[0] == "fail"
    verdict, reason = judge([2.0], Observation([2.0], details={"ordered": False, "spread": 0.0}))
    assert verdict == "fail" and "false: ordered" in reason
    assert judge([2.1], ok)[0] == "fail"  # the numbers still decide first
    assert judge.perturb([2.0], ok) == MaxRel(1e-6).perturb([2.0], ok)
    assert judge.describe() == "relative 1e-06; and ordered; spread <= 1e-07"
    refuting = Requiring(RefutedIfDiffers(1e-9), ("ordered",))
    assert refuting(1.0, Observation(2.0, details={"ordered": False}))[0] == "refuted"
    assert Requiring(MaxAbs(1.0), "single").require == ("single",)


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
    good, bad = {"margin_ratio": 0.995, "covered": True}, {"margin_ratio": 1.2, "covered": False}
    # the population rule (p0 = 0.5, 95 %): 5 of 5 passes, 0 of 5 fails, 4 of 5 cannot tell
    assert j(None, Observation(None, details={"per_seed": [good] * 5}))[0] == "pass"
    verdict, reason = j(None, Observation(None, details={"per_seed": [bad] * 5}))
    assert verdict == "fail" and "seed 1: margin ratio 1.2" in reason and "coverage: False" in reason
    verdict, reason = j(None, Observation(None, details={"per_seed": [good] * 4 + [bad]}))
    assert verdict == "inconclusive" and "failing: seed 4: margin ratio 1.2" in reason
    assert j(None, Observation(None, details={"per_seed": []}))[0] == "inconclusive"
    assert j.describe().startswith("per seed: margin ratio in [0.99, 1.000000001], coverage; success rate >= 0.5")


def test_a_seed_without_a_headline_value_is_judged_by_its_checks():
    """A step that never came (None: the task was never classified) is a failing seed, not a crash that would turn
    the verdict into 'inconclusive' (karp-ch4-thm4.4-gd-classifies reads ``first_perfect_step``)."""
    j = PerSeed(
        (Check("classified", "classified within the horizon", truthy=True),),
        headline="first_step",
        rule=Population(deterministic=True),
    )
    never = {"first_step": None, "classified": False}
    verdict, reason = j(None, Observation(None, details={"per_seed": [{"first_step": 3, "classified": True}, never]}))
    assert verdict == "fail", reason
    assert reason.startswith("first step per seed: 3.0000, None") and "seed 1: classified within the horizon" in reason


def test_per_seed_reads_bounds_named_by_the_config():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Cfg:
        min_ratio: float

    j = PerSeed((Check("margin_ratio", "margin ratio", lo="min_ratio", hi=1.0),))
    obs = Observation(None, details={"per_seed": [{"margin_ratio": 0.96}] * 5})
    assert j(None, obs, Cfg(0.95))[0] == "pass"
    assert j(None, obs, Cfg(0.98))[0] == "fail"
    assert j.describe().startswith("per seed: margin ratio in [config.min_ratio, 1]; success rate")
    with pytest.raises(ValueError, match="no field 'min_ratio'"):
        j(None, obs, None)


def test_max_rel_to_largest_and_each():
    j = MaxRelToLargest(1e-3)
    assert j([1.0, 1e-9], Observation([1.0, 5e-4]))[0] == "pass"  # an error relative to the largest value
    assert j([1.0, 1e-9], Observation([1.0, 2e-3]))[0] == "fail"
    each = Requiring(MaxRelEach((("lp", 1e-6), ("table", 1e-3))), ("converged",))
    obs = Observation({"lp": [2.0], "table": [2.001]}, details={"converged": True})
    assert each([2.0], obs)[0] == "pass"
    assert each([2.0], Observation({"lp": [2.0]}, details={"converged": True}))[0] == "fail"  # not measured
    assert each([2.0], Observation(obs.value, details={"converged": False}))[0] == "fail"
    assert each([2.01], obs)[0] == "fail"


def test_exact_or_float_by_the_kind_of_the_observation():
    j = ExactOrFloat(1e-9)
    pred = [sympy.Rational(1, 3), sympy.cos(sympy.pi / 7)]
    assert j(pred, Observation([Fraction(1, 3), math.cos(math.pi / 7)]))[0] == "pass"
    assert j(pred, Observation([Fraction(1, 3), 0.90096]))[0] == "fail"  # off by 9e-6 > 1e-9
    assert j(pred, Observation([Fraction(1, 3), sympy.cos(sympy.pi / 7) + sympy.Rational(1, 10**40)]))[0] == "fail"
    assert j([sympy.Rational(1, 3)], Observation([1 / 3]))[0] == "pass"
    assert j([sympy.Rational(1, 3)], Observation([Fraction(1, 3)]))[0] == "pass"
    assert j([sympy.Rational(1, 3)], Observation([Fraction(1, 4)]))[0] == "fail"
    rel = ExactOrFloat(1e-6, relative=True)
    assert rel([1000], Observation([1000.0005]))[0] == "pass"
    assert ExactOrFloat(1e-6)([1000], Observation([1000.0005]))[0] == "fail"
    assert "relative" in rel.describe() and "60 digits" in rel.describe()


def test_within_bounds_and_refuted_if_violated():
    j = WithinBounds(0.0)
    assert j([(0.0, 1.0), (1.0, 2.0)], Observation([0.5, 2.0]))[0] == "pass"
    assert j([(0.0, 1.0), (1.0, 2.0)], Observation([0.5, 2.1]))[0] == "fail"
    printed = RefutedIfViolated(j)
    assert printed([(0.0, 1.0)], Observation([1.5]))[0] == "refuted"
    assert printed([(0.0, 1.0)], Observation([0.5]))[0] == "pass"
    assert printed.describe().startswith("refuted unless lower bound")


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
