"""Judges: frozen, callable objects that turn (predicted, observation) into a verdict.

Every claim names one judge. A judge does three things, each written once here:

* ``judge(predicted, obs, config) -> (verdict, reason)``: the check itself;
* ``judge.describe() -> str``: the tolerance in words (a claim's ``tolerance`` defaults to it, so a number
  is written once);
* ``judge.perturb(predicted, obs) -> predicted'``: a prediction that this judge must reject for the same
  observation: the predicted value moved by 1 % of its size or by 10 times the tolerance, whichever is larger.
  The test suite re-judges every quick claim with it, so a verdict that cannot fail is caught
  (``tests/verify/test_claims.py``). A claim whose verdict legitimately does not depend on the predicted
  value says why in ``Claim.insensitive``.

Values may be Python/numpy numbers, sympy numbers, ``{"exact", "float"}`` dicts (records read back from
JSON), or lists of those; list-valued predictions are judged element by element.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar, Literal

import numpy as np
import sympy

from numerics.certificates import Certificate, LPResult, bracket_verdict
from numerics.margins import Task, evaluate
from numerics.stats import clopper_pearson, flip_probability, rate_power, rate_verdict
from verify.runtime.protocol import Observation

__all__ = [
    "DEFAULT_POPULATION",
    "AtLeast",
    "AtMost",
    "CertifiedBracket",
    "Check",
    "ExactOrFloat",
    "ExactlyEqual",
    "Judge",
    "MaxAbs",
    "MaxRel",
    "MaxRelEach",
    "MaxRelToLargest",
    "PerSeed",
    "Population",
    "Predicate",
    "PredictedBoundsPerSeed",
    "RefutedIfDiffers",
    "RefutedIfViolated",
    "RejectsWrongGamma",
    "Requiring",
    "Verdict",
    "WithinBounds",
    "ZScore",
    "as_float",
    "as_floats",
    "find_seeds",
    "flatten",
    "perturb_value",
    "relative_step",
    "verdict_from_problems",
]

Verdict = Literal["pass", "fail", "refuted", "inconclusive"]

#: Relative size of the perturbation applied by :meth:`Judge.perturb` (the issue's "1 %").
PERTURB_REL = 0.01
#: The perturbation is at least this many tolerances.
PERTURB_TOLS = 10.0
#: The project's standard Monte Carlo tolerance for :class:`ZScore`: |estimate - prediction| <= 4 standard errors
#: (a two-sided false-fail rate of 6e-5 per estimate under normality).
MC_Z = 4.0


def as_float(x: Any) -> float:
    """A predicted or observed value as a float (JSON records carry sympy numbers as {"exact", "float"})."""
    return float(x["float"]) if isinstance(x, dict) else float(x)


def as_floats(values: Any) -> np.ndarray:
    """A (possibly nested) list of predicted or observed values as a flat float64 array."""
    return np.array([as_float(v) for v in flatten(values)], dtype=np.float64)


def flatten(values: Any) -> list[Any]:
    """Nested lists/tuples/arrays of values as one flat list (a scalar becomes a one-element list)."""
    if isinstance(values, np.ndarray):
        return list(values.ravel())
    if isinstance(values, (list, tuple)):
        return [v for item in values for v in flatten(item)]
    return [values]


def _map(values: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(values, np.ndarray):
        return np.vectorize(fn, otypes=[object])(values).astype(values.dtype) if values.size else values
    if isinstance(values, (list, tuple)):
        return type(values)(_map(v, fn) for v in values)
    if isinstance(values, dict) and not ("float" in values and "exact" in values):
        return {k: _map(v, fn) for k, v in values.items()}
    return fn(values)


def relative_step(rtol: float) -> float:
    """The relative step by which a judge with relative tolerance ``rtol`` perturbs a prediction.

    The step is ``max(PERTURB_REL, PERTURB_TOLS * rtol)``: the issue's 1 %, or ten tolerances where that is larger,
    so that the perturbed prediction lies well outside what the judge accepts (the sensitivity check of
    docs/verdicts.md: a prediction moved by 1 % or 10 tolerances must change the verdict); passed to
    :func:`perturb_value` as its ``rel``.

    Parameters
    ----------
    rtol : float
        The judge's relative tolerance.

    Returns
    -------
    float
        The relative step.
    """
    return max(PERTURB_REL, PERTURB_TOLS * rtol)


def perturb_value(x: Any, rel: float, abs_: float = 0.0, sign: int = 1) -> Any:
    """``x`` moved by ``sign * max(rel |x|, abs_)``, keeping its kind (exact stays exact).

    Used by every judge's :meth:`Judge.perturb`: with ``rel = 1 %`` and ``abs_ = 10 x tolerance``. A zero ``x``
    with ``abs_ = 0`` moves by ``rel`` itself (a zero prediction must not be immune).
    """

    # the exact step as a rational of the float's shortest decimal (computed once: sympy.nsimplify per value was
    # slow on long predictions and could turn a step such as 3.16e-7 into an irrational sqrt(10)/10^7)
    rel_q, abs_q = sympy.Rational(repr(float(rel))), sympy.Rational(repr(float(abs_)))

    def one(v: Any) -> Any:
        if isinstance(v, dict) and "float" in v:
            return one(float(v["float"]))
        if isinstance(v, str):
            return v  # labels travel with predictions unchanged
        if isinstance(v, bool):
            return not v
        if isinstance(v, sympy.Basic):
            size = abs(v)
            delta = sympy.Max(rel_q * size, abs_q) if abs_q else rel_q * size
            if delta == 0:
                delta = rel_q
            return v + sign * delta
        if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
            exact = Fraction(v)
            delta = max(Fraction(str(rel)) * abs(exact), Fraction(str(abs_)))
            return exact + sign * (delta if delta else Fraction(str(rel)))
        f = float(v)
        delta = max(rel * abs(f), abs_)
        return f + sign * (delta if delta else rel)

    return _map(x, one)


class Judge(ABC):
    """Base class of the judges (see the module docstring)."""

    @abstractmethod
    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        """The verdict and its reason."""

    @abstractmethod
    def describe(self) -> str:
        """The tolerance in words, as the report shows it."""

    def perturb(self, predicted: Any, obs: Any) -> Any:
        """A prediction this judge must reject for the same observation (1 % or 10 x the tolerance)."""
        return perturb_value(predicted, PERTURB_REL)

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        """The seed-population statistics of the verdict (:class:`Population`), for the record; None for a judge
        that does not judge a population of seeds."""
        return None

    @property
    def population_rule(self) -> Population | None:
        """The :class:`Population` rule of a judge of seed populations (its ``rule``), else None."""
        rule = getattr(self, "rule", None)
        return rule if isinstance(rule, Population) else None

    def planned_runs(self, config: Any) -> int | None:
        """The number of runs a population judge will count for ``config``, known before the run; None for others."""
        return None


class RelativeStepJudge(Judge):
    """A judge with a relative tolerance ``rtol`` (a dataclass field of the subclass) whose rejected prediction
    (:meth:`perturb`) moves every predicted value by :func:`relative_step` of it: 1 % or 10 x ``rtol``, whichever is
    larger."""

    rtol: float

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, relative_step(self.rtol))


def _pairs(predicted: Any, observed: Any) -> tuple[np.ndarray, np.ndarray] | str:
    pred, got = as_floats(predicted), as_floats(observed)
    if pred.size == 1 and got.size > 1:
        pred = np.full(got.shape, pred[0])
    if pred.shape != got.shape:
        return f"length mismatch: {pred.size} predicted vs {got.size} observed value(s)"
    return pred, got


def _within_tolerance(err: float, tol: float) -> Verdict:
    """``pass`` iff the largest error ``err`` is finite and at most ``tol`` (NaN or inf fail), else ``fail``."""
    return "pass" if np.isfinite(err) and err <= tol else "fail"


class Elementwise(Judge):
    """A judge that compares the observed values with the predicted ones element by element: a scalar prediction is
    compared with every observed value, a length mismatch fails, and :meth:`compare` judges the aligned arrays."""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pairs = _pairs(predicted, obs.value)
        if isinstance(pairs, str):
            return "fail", pairs
        return self.compare(*pairs, obs)

    @abstractmethod
    def compare(self, pred: np.ndarray, got: np.ndarray, obs: Any) -> tuple[Verdict, str]:
        """The verdict and its reason for the predicted and observed values ``pred`` and ``got`` (same shape)."""


@dataclass(frozen=True)
class MaxAbs(Elementwise):
    """``pass`` iff max |observed - predicted| <= ``atol`` over every value (a scalar prediction is compared
    with every observed value)."""

    atol: float

    def compare(self, pred: np.ndarray, got: np.ndarray, obs: Any) -> tuple[Verdict, str]:
        err = float(np.max(np.abs(got - pred))) if pred.size else 0.0
        return _within_tolerance(err, self.atol), (
            f"max |observed - predicted| = {err:.3e} over {pred.size} value(s) (tolerance {self.atol:g})"
        )

    def describe(self) -> str:
        return f"absolute {self.atol:g}"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * self.atol)


@dataclass(frozen=True)
class MaxRel(RelativeStepJudge, Elementwise):
    """``pass`` iff max |observed - predicted| / |predicted| <= ``rtol`` (element-wise for lists; a scalar
    prediction is compared with every observed value)."""

    rtol: float

    def compare(self, pred: np.ndarray, got: np.ndarray, obs: Any) -> tuple[Verdict, str]:
        if np.any(pred == 0):
            return "fail", "a predicted value is 0: a relative tolerance is undefined (use MaxAbs)"
        err = float(np.max(np.abs(got - pred) / np.abs(pred))) if pred.size else 0.0
        return (
            _within_tolerance(err, self.rtol),
            f"max relative error {err:.3e} over {pred.size} value(s) (tolerance {self.rtol:g})",
        )

    def describe(self) -> str:
        return f"relative {self.rtol:g}"


def _exact(v: Any) -> sympy.Expr:
    if isinstance(v, dict) and "exact" in v:
        return sympy.sympify(v["exact"])
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    return sympy.sympify(v)


@dataclass(frozen=True)
class ExactlyEqual(Judge):
    """``pass`` iff every observed value equals its prediction exactly: ``sympy.simplify(observed -
    predicted) == 0`` (symbolic expressions, rationals, integers; a scalar prediction is compared with every
    observed value)."""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pred, got = flatten(predicted), flatten(obs.value)
        if len(pred) == 1 and len(got) > 1:
            pred = pred * len(got)
        if len(pred) != len(got):
            return "fail", f"length mismatch: {len(pred)} predicted vs {len(got)} observed value(s)"
        bad = []
        for i, (p, g) in enumerate(zip(pred, got)):
            if sympy.simplify(_exact(g) - _exact(p)) != 0:
                bad.append((i, str(p), str(g)))
        if bad:
            return (
                "fail",
                f"{len(bad)} of {len(pred)} value(s) differ, e.g. index {bad[0][0]}: predicted {bad[0][1]}, observed {bad[0][2]}",
            )
        return "pass", f"all {len(pred)} value(s) equal exactly"

    def describe(self) -> str:
        return "exact (sympy simplify of observed - predicted == 0)"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, PERTURB_REL)


@dataclass(frozen=True)
class ZScore(Elementwise):
    """``pass`` iff |estimate - predicted| <= ``z`` standard errors for every estimate. The observation's
    value holds the estimates; ``obs.details[stderr_key]`` holds their standard errors (same shape)."""

    z: float
    stderr_key: str = "stderr"

    def _se(self, obs: Any) -> np.ndarray:
        return as_floats(obs.details[self.stderr_key])

    def compare(self, pred: np.ndarray, got: np.ndarray, obs: Any) -> tuple[Verdict, str]:
        se = self._se(obs)
        if se.shape != got.shape or np.any(~np.isfinite(se)) or np.any(se <= 0):
            return (
                "inconclusive",
                f"standard errors missing, non-positive or of the wrong shape ({se.shape} vs {got.shape})",
            )
        zs = np.abs(got - pred) / se
        worst = float(np.max(zs)) if zs.size else 0.0
        return (
            "pass" if worst <= self.z else "fail"
        ), f"max |z| = {worst:.2f} over {zs.size} estimate(s) (tolerance {self.z:g} standard errors)"

    def describe(self) -> str:
        return f"|estimate - predicted| <= {self.z:g} standard errors"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        se = float(np.max(self._se(obs)))
        return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * self.z * se)


def _perturb_bound(predicted: Any, slack: float, relative: bool, sign: int) -> Any:
    """Move a bound towards the observations (down for an upper bound, up for a lower one)."""
    if relative:
        return perturb_value(predicted, relative_step(slack), sign=sign)
    return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * slack, sign=sign)


@dataclass(frozen=True)
class _OneSidedBound(Elementwise):
    """A one-sided bound the source states: every observed value on the bound's side of predicted (moved outward
    by ``slack``, relative to |predicted| when ``relative``). :class:`AtMost` (``_side = 1``: an upper bound) and
    :class:`AtLeast` (``_side = -1``: a lower bound) set the side and its words."""

    slack: float = 0.0
    relative: bool = False

    #: 1: observed <= bound; -1: observed >= bound.
    _side: ClassVar[int]
    #: The reason's words for the side: the extreme ratio reported, and the failing word.
    _extreme: ClassVar[str]
    _beyond: ClassVar[str]

    def _limit(self, pred: np.ndarray) -> np.ndarray:
        return pred + self._side * (self.slack * np.abs(pred) if self.relative else self.slack)

    def compare(self, pred: np.ndarray, got: np.ndarray, obs: Any) -> tuple[Verdict, str]:
        beyond = self._side * (got - self._limit(pred))
        worst = int(np.argmax(beyond)) if beyond.size else 0
        ok = bool(beyond.size == 0 or np.all(beyond <= 0))
        ratio = got[worst] / pred[worst] if beyond.size and pred[worst] else float("nan")
        return ("pass" if ok else "fail"), (
            f"{self._extreme} observed/bound = {ratio:.6g} over {got.size} value(s) "
            f"({'within' if ok else self._beyond} the bound)"
        )

    def describe(self) -> str:
        relation = "<=" if self._side > 0 else ">="
        if not self.slack:
            return f"observed {relation} predicted bound"
        sign = "+" if self._side > 0 else "-"
        return f"observed {relation} predicted bound {sign} {self.slack:g}{' x |bound|' if self.relative else ''}"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return _perturb_bound(predicted, self.slack, self.relative, sign=-self._side)


@dataclass(frozen=True)
class AtMost(_OneSidedBound):
    """``pass`` iff every observed value <= predicted + ``slack`` (a bound the source states: no observed
    value may exceed it). ``relative=True`` makes the slack relative to |predicted|."""

    _side = 1
    _extreme = "largest"
    _beyond = "exceeds"


@dataclass(frozen=True)
class AtLeast(_OneSidedBound):
    """``pass`` iff every observed value >= predicted - ``slack`` (a lower bound the source states)."""

    _side = -1
    _extreme = "smallest"
    _beyond = "below"


@dataclass(frozen=True)
class RefutedIfDiffers(Elementwise):
    """For a statement as printed in a source: ``refuted`` when the observation differs from the printed
    value by more than ``tol`` x max(1, |printed|) (the observation carries the counterexample), ``pass``
    when it agrees. Element-wise for lists: one disagreement refutes."""

    tol: float

    def compare(self, pred: np.ndarray, got: np.ndarray, obs: Any) -> tuple[Verdict, str]:
        diff = np.abs(got - pred) > self.tol * np.maximum(1.0, np.abs(pred))
        if not np.any(diff):
            return "pass", "the statement as printed holds"
        i = int(np.argmax(diff))
        return "refuted", f"printed value {pred[i]:.6g}, observed {got[i]:.6g} (see counterexample)"

    def describe(self) -> str:
        return f"refuted when |observed - printed| > {self.tol:g} x max(1, |printed|)"


@dataclass(frozen=True)
class MaxRelToLargest(RelativeStepJudge):
    """``pass`` iff max |observed - predicted| <= ``rtol`` x max |predicted| (errors relative to the largest
    predicted value, for lists whose entries may be close to 0)."""

    rtol: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pred, got = as_floats(predicted), as_floats(obs.value)
        if pred.shape != got.shape:
            return "fail", f"length mismatch: {pred.size} predicted vs {got.size} observed value(s)"
        err = float(np.max(np.abs(got - pred)) / np.max(np.abs(pred)))
        return (
            _within_tolerance(err, self.rtol),
            f"max error {err:.2e} relative to the largest value (tolerance {self.rtol:g})",
        )

    def describe(self) -> str:
        return f"{self.rtol:g} relative to the largest |predicted|"


@dataclass(frozen=True)
class MaxRelEach(Judge):
    """Independent measurements of the same predicted values: ``obs.value`` maps each measurement's name to one
    value per prediction; ``pass`` iff every measurement named in ``rtols`` is within its own relative tolerance
    of the prediction."""

    rtols: tuple[tuple[str, float], ...]

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pred = as_floats(predicted)
        errors, problems = {}, []
        for name, rtol in self.rtols:
            if name not in obs.value:
                problems.append(f"{name}: not measured")
                continue
            got = as_floats(obs.value[name])
            if got.shape != pred.shape:
                problems.append(f"{name}: {got.size} value(s) for {pred.size} prediction(s)")
                continue
            errors[name] = float(np.max(np.abs(got - pred) / np.abs(pred)))
            if not errors[name] <= rtol:
                problems.append(f"{name} off by {errors[name]:.1e} (tolerance {rtol:g})")
        text = "relative errors: " + "; ".join(f"{k} {v:.1e}" for k, v in errors.items())
        return ("fail", text + "; " + "; ".join(problems)) if problems else ("pass", text)

    def describe(self) -> str:
        return "relative: " + ", ".join(f"{name} {rtol:g}" for name, rtol in self.rtols)

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, relative_step(max(r for _, r in self.rtols)))


#: Digits to which an exact residual sympy cannot simplify (cos(pi/7), ...) is evaluated by :class:`ExactOrFloat`.
DIGITS = 60


@dataclass(frozen=True)
class ExactOrFloat(Judge):
    """Element-wise, by the kind of the observed value: an exact observation (integer, Fraction, sympy number)
    must equal its prediction, i.e. observed - predicted simplifies to 0 or, for an algebraic number sympy does
    not simplify (such as cos(pi/7)), is below ``digits_atol`` at :data:`DIGITS` digits; a float observation (a
    float64 computation) must lie within ``float_tol`` of the prediction, absolute or, with ``relative``, times
    |predicted| (times 1 when the prediction is 0)."""

    float_tol: float = 0.0
    relative: bool = False
    digits_atol: float = 1e-45

    def _agrees(self, p: Any, g: Any) -> tuple[bool, bool]:
        """(agrees, needed the digit evaluation) for one prediction ``p`` and observation ``g``."""
        if isinstance(g, (float, np.floating)):
            ref = float(sympy.N(_exact(p), 30))
            scale = (abs(ref) or 1.0) if self.relative else 1.0
            return bool(abs(float(g) - ref) <= self.float_tol * scale), False
        r = _exact(g) - _exact(p)
        if r == 0 or sympy.simplify(r) == 0:
            return True, False
        if r.is_number and abs(complex(sympy.N(r, DIGITS))) < self.digits_atol:
            return True, True
        return False, False

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pred, got = flatten(predicted), flatten(obs.value)
        if len(pred) != len(got):
            return "fail", f"length mismatch: {len(pred)} predicted vs {len(got)} observed value(s)"
        bad, numeric = [], 0
        for i, (p, g) in enumerate(zip(pred, got)):
            ok, by_digits = self._agrees(p, g)
            numeric += by_digits
            if not ok:
                shown = f"{float(g):.6g}" if isinstance(g, (float, np.floating)) else str(g)
                bad.append(f"index {i}: predicted {p}, observed {shown}")
        if bad:
            return "fail", f"{len(bad)} of {len(pred)} value(s) differ, e.g. {bad[0]}"
        extra = f" ({numeric} checked to {DIGITS} digits)" if numeric else ""
        return "pass", f"all {len(pred)} value(s) agree{extra}"

    def describe(self) -> str:
        text = f"exact (observed - predicted simplifies to 0, or is below {self.digits_atol:g} at {DIGITS} digits)"
        if self.float_tol:
            text += f"; float64 values within {self.float_tol:g}{' relative' if self.relative else ''}"
        return text

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * self.float_tol)


def _words(key: str) -> str:
    return key.replace("_", " ")


@dataclass(frozen=True)
class Requiring(Judge):
    """``inner``'s verdict on the numbers, and the structural part of the statement checked alongside them (a
    symmetry, an ordering, an exact cross-check, a spread): every detail named in ``require`` must be true and every
    ``(detail, tol)`` of ``at_most`` (a number or a list of numbers) at most ``tol``. An unmet requirement makes
    the verdict ``fail`` whatever ``inner`` says (the statement has failed), naming it; a refutation by ``inner`` is
    kept. The perturbation moves the numbers as ``inner`` does.

    >>> from verify.runtime.protocol import Observation
    >>> judge = Requiring(MaxAbs(0.1), require=("ordered",), at_most=(("spread", 1e-3),))
    >>> judge(1.0, Observation(1.05, {"ordered": True, "spread": [1e-4, 2e-4]}))[0]
    'pass'
    >>> judge(1.0, Observation(1.05, {"ordered": False, "spread": 1e-4}))
    ('fail', 'max |observed - predicted| = 5.000e-02 over 1 value(s) (tolerance 0.1); but false: ordered')
    """

    inner: Judge
    require: tuple[str, ...] = ()
    at_most: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.require, str):
            object.__setattr__(self, "require", (self.require,))

    def _unmet(self, obs: Any) -> list[str]:
        unmet = [f"false: {_words(key)}" for key in self.require if not obs.details.get(key, False)]
        for key, tol in self.at_most:
            values = as_floats(obs.details[key])
            worst = float(np.max(values)) if values.size else 0.0
            if not worst <= tol:  # a NaN never meets it
                unmet.append(f"{_words(key)} = {worst:.2e} > {tol:g}")
        return unmet

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = self.inner(predicted, obs, config)
        unmet = self._unmet(obs)
        if unmet and verdict != "refuted":
            return "fail", f"{reason}; but {', '.join(unmet)}"
        return verdict, reason

    def describe(self) -> str:
        parts = [self.inner.describe()]
        parts += [f"and {_words(key)}" for key in self.require]
        parts += [f"{_words(key)} <= {tol:g}" for key, tol in self.at_most]
        return "; ".join(parts)

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return self.inner.perturb(predicted, obs)

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        return self.inner.population(predicted, obs, config)

    @property
    def population_rule(self) -> Population | None:
        return self.inner.population_rule

    def planned_runs(self, config: Any) -> int | None:
        return self.inner.planned_runs(config)


@dataclass(frozen=True)
class WithinBounds(Judge):
    """``pass`` iff lo - ``slack`` <= observed <= hi + ``slack`` for every observed value and its predicted
    (lo, hi) pair (a two-sided bound the source states)."""

    slack: float = 0.0

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        bounds, got = as_floats(predicted).reshape(-1, 2), as_floats(obs.value)
        if len(bounds) != len(got):
            return "fail", f"length mismatch: {len(bounds)} predicted bound pairs vs {len(got)} observed values"
        below = int(np.sum(got < bounds[:, 0] - self.slack))
        above = int(np.sum(got > bounds[:, 1] + self.slack))
        ok = below == 0 and above == 0
        return ("pass" if ok else "fail"), (
            f"{below} value(s) below the lower bound, {above} above the upper bound, of {got.size}"
        )

    def describe(self) -> str:
        return f"lower bound - {self.slack:g} <= observed <= upper bound + {self.slack:g} at every point"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        step = PERTURB_TOLS * self.slack
        return [
            (perturb_value(lo, PERTURB_REL, step, sign=1), perturb_value(hi, PERTURB_REL, step, sign=-1))
            for lo, hi in predicted
        ]


@dataclass(frozen=True)
class RefutedIfViolated(Judge):
    """For a bound as printed in a source: the verdict of ``bound`` (an :class:`AtLeast`, :class:`AtMost`,
    :class:`WithinBounds` or another bound judge) with ``fail`` read as ``refuted`` (the observation carries the
    counterexample)."""

    bound: Judge

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = self.bound(predicted, obs, config)
        return ("refuted" if verdict == "fail" else verdict), reason

    def describe(self) -> str:
        return f"refuted unless {self.bound.describe()}"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return self.bound.perturb(predicted, obs)


@dataclass(frozen=True)
class CertifiedBracket(RelativeStepJudge):
    """A maximum margin by a certificate that uses no closed form (docs/certificates.md): per case, the construction's (and, where recorded,
    the LP network's) forward-pass margins (lower) and the sum-of-squares relaxation's rigorous bound on the
    single-neuron maximum (upper) must equal the prediction to relative ``rtol``
    (:func:`numerics.certificates.bracket_verdict`: ``fail`` when the bracket excludes it, ``inconclusive`` when
    there is no rigorous bound or it is loose)."""

    rtol: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdicts, notes = [], []
        for g, c in zip(as_floats(predicted), obs.details["per_case"]):
            lowers = [(c["lower"], "construction")]
            if "lp_network_margin" in c:
                lowers.append((c["lp_network_margin"], "LP network"))
            for lower, label in lowers:
                v, why = bracket_verdict(lower, c["upper_rigorous"], g, self.rtol, True, c["upper_heuristic"])
                verdicts.append(v)
                if v != "pass" or label == "construction":
                    notes.append(f"{c['case']} {label}: {why}")
        verdict = "fail" if "fail" in verdicts else "inconclusive" if "inconclusive" in verdicts else "pass"
        return verdict, "; ".join(notes)

    def describe(self) -> str:
        return (
            f"construction (and LP-network) margins by forward pass and the rigorous SOS upper bound all within relative "
            f"{self.rtol:g} of gamma*"
        )


@dataclass(frozen=True)
class RejectsWrongGamma(Judge):
    """Negative control: every predicted (deliberately wrong) value must get ``fail`` from
    :func:`numerics.certificates.bracket_verdict` against its case's certified interval, at relative ``rtol``.
    Its perturbation moves each wrong value to the middle of that interval, which a working certificate accepts."""

    rtol: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        intervals = obs.details["intervals"]
        pred = as_floats(predicted).reshape(len(intervals), -1)
        accepted, notes = [], []
        for values, (lo, up, heur) in zip(pred, intervals):
            for v in values:
                verdict, why = bracket_verdict(lo, up, float(v), self.rtol, True, heur)
                notes.append(f"{v:.12g}: {verdict} ({why.split(': ', 1)[-1]})")
                if verdict != "fail":
                    accepted.append(f"{v:.12g} got {verdict}")
        if accepted:
            return "fail", "the certificate did not reject: " + "; ".join(accepted)
        return "pass", f"every wrong value rejected: {'; '.join(notes)}"

    def describe(self) -> str:
        return f"each wrong gamma rejected (certificate verdict fail at relative {self.rtol:g})"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        mids = [(lo + up) / 2 for lo, up, _ in obs.details["intervals"]]
        per = len(as_floats(predicted)) // len(mids)
        return [m for m in mids for _ in range(per)]


def certificate_case(params: dict[str, int], cert: Certificate, lp: LPResult, task: Task) -> dict[str, Any]:
    """One case's row of ``per_case`` as :class:`CertifiedBracket` reads it (docs/certificates.md).

    Parameters
    ----------
    params : dict of str to int
        The case's parameters in order, e.g. ``{"p": 5, "k": 2}``; they label the row ``"(p,k)=(5,2)"`` and are
        stored beside it.
    cert : numerics.certificates.Certificate
        The case's certificate; its :meth:`~numerics.certificates.Certificate.summary` gives the lower bound and
        the rigorous and heuristic upper values.
    lp : numerics.certificates.LPResult
        The dictionary LP over the construction's neurons plus random ones.
    task : numerics.margins.Task
        The task on which the LP's recovered network is evaluated by the float64 forward pass.

    Returns
    -------
    dict
        ``case``, the parameters, the certificate summary, ``lp_network_margin`` (the normalized margin of the LP's
        network: a second lower bound on gamma*) and ``lp`` (the LP's value, dual value, gap and solver).
    """
    label = f"({','.join(params)})=({','.join(str(v) for v in params.values())})"
    return {
        "case": label,
        **params,
        **cert.summary(),
        "lp_network_margin": evaluate(lp.network, task).normalized_margin,
    } | {"lp": {"value": lp.value, "dual_value": lp.dual_value, "gap": lp.gap, "solver": lp.solver}}


def interval_observation(
    certs: list[Certificate], cases: list[list[int]], deltas: tuple[float, ...], seeds: tuple[int, ...] = ()
) -> Observation:
    """What :class:`RejectsWrongGamma` judges: every case's certified interval.

    Parameters
    ----------
    certs : list of numerics.certificates.Certificate
        One certificate per case.
    cases : list of list of int
        The cases' parameters (for the record).
    deltas : tuple of float
        The relative errors of the wrong gammas of each case (for the record).
    seeds : tuple of int
        The seeds the certificates used, if any.

    Returns
    -------
    Observation
        Value ``[lower, rigorous upper]`` per case; details ``cases``, ``intervals`` (``[lower, rigorous upper,
        heuristic upper]`` per case) and ``deltas``.
    """
    return Observation(
        [[c.lower, c.upper_rigorous] for c in certs],
        details={
            "cases": cases,
            "intervals": [[c.lower, c.upper_rigorous, c.upper_heuristic] for c in certs],
            "deltas": list(deltas),
        },
        seeds=seeds,
    )


def find_seeds(config: Any) -> tuple[int, ...]:
    """The ``seeds`` of a configuration: its own field, else the first nested configuration's (breadth first);
    () when there are none."""
    queue = [config]
    while queue:
        cfg = queue.pop(0)
        if not dataclasses.is_dataclass(cfg):
            continue
        names = [f.name for f in dataclasses.fields(cfg)]
        if "seeds" in names:
            return tuple(cfg.seeds)
        queue += [getattr(cfg, n) for n in names]
    return ()


def verdict_from_problems(summary: str, problems: list[str], ok_note: str) -> tuple[Verdict, str]:
    """``fail`` with every problem listed after ``summary`` when there are any, else ``pass`` with ``ok_note``
    (the verdict of a judge that checks several conditions and reports all that fail)."""
    if problems:
        return "fail", summary + "; " + "; ".join(problems)
    return "pass", summary + "; " + ok_note


@dataclass(frozen=True)
class Check:
    """One per-seed condition of a training claim: ``lo <= details[field] <= hi`` (either bound optional),
    or ``details[field]`` truthy when ``truthy`` is set. ``label`` names it in words.

    A bound given as a string names a field of the claim's config (e.g. ``lo="min_ratio"``), so one judge serves
    every scale while each number is written once, in the config; :meth:`resolve` reads it.
    """

    field: str
    label: str
    lo: float | str | None = None
    hi: float | str | None = None
    truthy: bool = False

    def resolve(self, config: Any) -> Check:
        """This check with every bound that names a config field replaced by that field's value."""

        def value(bound: float | str | None) -> float | None:
            if not isinstance(bound, str):
                return bound
            if config is None or not hasattr(config, bound):
                raise ValueError(f"check {self.label!r}: the config has no field {bound!r} for its bound")
            return float(getattr(config, bound))

        return replace(self, lo=value(self.lo), hi=value(self.hi))

    def problem(self, row: dict[str, Any]) -> str | None:
        """What is wrong with this seed's ``row``, or None (bounds must be resolved)."""
        v = row.get(self.field)
        if self.truthy:
            return None if v else f"{self.label}: {v}"
        if v is None:
            return f"{self.label}: missing"
        x = float(v)
        if not np.isfinite(x) or (self.lo is not None and x < self.lo) or (self.hi is not None and x > self.hi):
            return f"{self.label} {x:.4g}"
        return None

    def describe(self) -> str:
        def fmt(b: float | str) -> str:
            return f"config.{b}" if isinstance(b, str) else f"{b:.10g}"

        if self.truthy:
            return self.label
        if self.lo is not None and self.hi is not None:
            return f"{self.label} in [{fmt(self.lo)}, {fmt(self.hi)}]"
        if self.lo is not None:
            return f"{self.label} >= {fmt(self.lo)}"
        return f"{self.label} <= {fmt(self.hi)}"


@dataclass(frozen=True)
class Population:
    """The seed-population rule of a training verdict (docs/verdicts.md), declared with the claim, before any run.

    Each seed meets the claim's per-seed criterion or not; with k of n seeds meeting it, the verdict is ``pass``
    iff the exact one-sided Clopper-Pearson lower bound of the success rate (level ``confidence``) is at least the
    target rate ``p0``, ``fail`` iff the upper bound is below ``p0``, else ``inconclusive``
    (:func:`numerics.stats.rate_verdict`). Before the run, :meth:`power` is the probability of a pass with n seeds
    when the true rate is ``p_alt`` (the rate the statement implies); a scale whose power is below ``min_power`` is
    declared underpowered. After the run, the record carries the probability that a fresh set of n seeds would give
    another verdict (:func:`numerics.stats.flip_probability`, predictive and plug-in).

    ``deterministic`` marks a run with no randomness (population gradient descent from a fixed start): n counts its
    configurations, each judged once, the rate is exact, and the verdict is the same on every seed set (the dtype is
    the only thing that can change it, checked by the dtype-stability test).
    """

    p0: float = 0.5
    p_alt: float = 0.95
    confidence: float = 0.95
    min_power: float = 0.8
    deterministic: bool = False

    def __post_init__(self) -> None:
        if not (0 < self.p0 <= 1 and 0 < self.p_alt <= 1 and 0.5 <= self.confidence < 1 and 0 <= self.min_power <= 1):
            raise ValueError(f"invalid population rule {self}")
        if not self.deterministic and self.p_alt <= self.p0:
            raise ValueError(f"p_alt = {self.p_alt} must exceed p0 = {self.p0}: the power is against a higher rate")

    def power(self, n: int) -> float:
        """The probability of a pass with ``n`` seeds when the true rate is ``p_alt`` (1 for a deterministic run)."""
        return 1.0 if self.deterministic else rate_power(n, self.p0, self.p_alt, self.confidence)

    def verdict(self, successes: int, n: int) -> Verdict:
        """The verdict on ``successes`` of ``n`` (class docstring)."""
        if self.deterministic:
            return "pass" if successes == n else "fail"
        return rate_verdict(successes, n, self.p0, self.confidence)  # type: ignore[return-value]

    def record(self, successes: int, n: int) -> dict[str, Any]:
        """The record's ``population`` field: the counts, the bounds, the rule, the power and the flip probability."""
        if self.deterministic:
            lo = hi = successes / n
            flips = {"flip_probability": 0.0, "flip_probability_plugin": 0.0}
        else:
            lo, hi = clopper_pearson(successes, n, self.confidence)
            flips = {
                "flip_probability": flip_probability(successes, n, self.p0, self.confidence),
                "flip_probability_plugin": flip_probability(successes, n, self.p0, self.confidence, method="plugin"),
            }
        return {
            "n": n,
            "successes": successes,
            "rate": successes / n,
            "p0": self.p0,
            "confidence": self.confidence,
            "lower": lo,
            "upper": hi,
            "p_alt": self.p_alt,
            "power": self.power(n),
            "min_power": self.min_power,
            "deterministic": self.deterministic,
            "verdict": self.verdict(successes, n),
            **flips,
        }

    def describe(self) -> str:
        if self.deterministic:
            return "every configuration (a run without randomness, judged once)"
        return (
            f"success rate >= {self.p0:g} at {self.confidence:.0%} (exact Clopper-Pearson lower bound; fail when the "
            f"upper bound is below it)"
        )


DEFAULT_POPULATION = Population()


def _headline_text(value: Any) -> str:
    """A seed's headline value in a verdict's words: a number to four decimals, anything else (None for a step that
    never came, a flag) as it is; never an error, so a seed whose value is missing is judged by its checks."""
    try:
        return f"{float(value):.4f}"
    except (TypeError, ValueError):
        return str(value)


@dataclass(frozen=True)
class PerSeed(Judge):
    """Training claims: each seed of the ensemble succeeds when it satisfies every :class:`Check` on its row of
    ``obs.details[rows]`` (bounds read from the claim's config where they name a config field); the verdict is the
    :class:`Population` rule on the number of successful seeds. The summary leads with ``headline`` (a field shown
    for every seed). ``note`` adds what is reported but not judged."""

    checks: tuple[Check, ...]
    headline: str = "margin_ratio"
    rows: str = "per_seed"
    note: str = ""
    rule: Population = DEFAULT_POPULATION
    runs: Callable[[Any], int] | None = None

    def planned_runs(self, config: Any) -> int:
        """How many rows (seeds, or seed x setting) a run of ``config`` judges, known before the run: ``runs(config)``
        when given, else the number of seeds found in the configuration (its ``seeds`` field, or that of a nested
        configuration)."""
        if self.runs is not None:
            return int(self.runs(config))
        return len(find_seeds(config))

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        """Per seed, every failed check (a subclass adds its own checks here)."""
        checks = [c.resolve(config) for c in self.checks]
        return [[msg for c in checks if (msg := c.problem(row))] for row in per_seed]

    def _counts(self, predicted: Any, obs: Any, config: Any) -> tuple[list[list[str]], list[dict[str, Any]]]:
        per_seed = obs.details[self.rows]
        return self.seed_problems(predicted, per_seed, config), per_seed

    def _tally(
        self, predicted: Any, obs: Any, config: Any
    ) -> tuple[list[list[str]], list[dict[str, Any]], int, dict[str, Any]] | None:
        """The judged rows with their problems, the number k of rows without a problem (successes) and
        :attr:`rule`'s record of k successes in as many trials as rows; None when no row was recorded."""
        problems, per_seed = self._counts(predicted, obs, config)
        if not per_seed:
            return None
        k = sum(not p for p in problems)
        return problems, per_seed, k, self.rule.record(k, len(per_seed))

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        tally = self._tally(predicted, obs, config)
        if tally is None:
            return "inconclusive", "no seed finished"
        problems, per_seed, k, stats = tally
        return stats["verdict"], self._reason(problems, per_seed, k, stats)

    def _reason(self, problems: list[list[str]], per_seed: list[dict[str, Any]], k: int, stats: dict[str, Any]) -> str:
        """The verdict's words, from :meth:`_tally`'s rows, problems, successes and record: the headline per seed,
        the count (with the rule's bounds and target) and the first failing seeds."""
        n = len(per_seed)
        summary = (
            f"{self.headline.replace('_', ' ')} per seed: "
            + ", ".join(_headline_text(r.get(self.headline)) for r in per_seed[:8])
            + (f", ... ({n} seeds)" if n > 8 else "")
        )
        rate = (
            f"{k} of {n} seeds meet every check"
            if self.rule.deterministic
            else f"{k} of {n} seeds meet every check: rate in [{stats['lower']:.3f}, {stats['upper']:.3f}] at "
            f"{self.rule.confidence:.0%}, target {self.rule.p0:g}"
        )
        # labelled by the seed that ran (a row's "seed", which carries RunOptions.seed_offset), else by its index
        failing = [f"seed {per_seed[i].get('seed', i)}: {'; '.join(p)}" for i, p in enumerate(problems) if p][:6]
        return f"{summary}; {rate}" + (f"; failing: {'; '.join(failing)}" if failing else "")

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        tally = self._tally(predicted, obs, config)
        return None if tally is None else tally[3]

    def describe(self) -> str:
        text = "per seed: " + ", ".join(c.describe() for c in self.checks) + f"; {self.rule.describe()}"
        return f"{text}; {self.note}" if self.note else text

    def describe_adding(self, unit: str, extra: str) -> str:
        """:class:`PerSeed`'s description for a subclass that judges more than the checks: its leading ``"per seed: "``
        becomes ``f"{unit}: {extra}, "`` (the unit judged, e.g. ``"per seed and k"``, and the subclass's own checks,
        e.g. ``"L_D(h) <= 7 eps (predicted)"``), before the checks."""
        return PerSeed.describe(self).replace("per seed: ", f"{unit}: {extra}, ", 1)


@dataclass(frozen=True)
class PredictedBoundsPerSeed(PerSeed):
    """:class:`PerSeed` whose seeds must also keep each ``(field, key, message)`` of ``bounds`` within the
    prediction, ``row[field] <= predicted[key]``; a seed that does not is told ``message`` formatted with its value
    (e.g. ``("risk_D", "risk_bound", "L_D(h) = {:.4g} > 7 eps")``)."""

    bounds: tuple[tuple[str, str, str], ...] = ()

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        for row, found in zip(per_seed, problems):
            found += [msg.format(row[f]) for f, key, msg in self.bounds if not row[f] <= as_float(predicted[key])]
        return problems


@dataclass(frozen=True)
class Replicated(Judge):
    """Base of the judges of a population of independent replicates (docs/verdicts.md): a subclass lists, per
    replicate of ``obs``, a summary and the problems that keep it from succeeding (none: a success), and words the
    reason; the verdict is :attr:`rule` on the number of successes (``inconclusive`` when no replicate finished), and
    ``config.replicates`` is the planned number of replicates."""

    rule: Population

    def planned_runs(self, config: Any) -> int:
        return int(config.replicates)

    @abstractmethod
    def _replicates(self, predicted: Any, obs: Any, config: Any) -> list[tuple[Any, list[str]]]:
        """Every replicate as ``(summary, problems)``."""

    def _tally(
        self, predicted: Any, obs: Any, config: Any
    ) -> tuple[list[tuple[Any, list[str]]], int, dict[str, Any]] | None:
        """The replicates, the number k of them without a problem (successes) and :attr:`rule`'s record of k
        successes in as many trials as replicates; None when no replicate finished."""
        reps = self._replicates(predicted, obs, config)
        if not reps:
            return None
        k = sum(not bad for _, bad in reps)
        return reps, k, self.rule.record(k, len(reps))

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        tally = self._tally(predicted, obs, config)
        if tally is None:
            return "inconclusive", "no replicate finished"
        reps, k, stats = tally
        return stats["verdict"], self._reason(reps, k, stats)

    @abstractmethod
    def _reason(self, reps: list[tuple[Any, list[str]]], k: int, stats: dict[str, Any]) -> str:
        """The verdict's words, from :meth:`_tally`'s replicates, successes and record."""

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        tally = self._tally(predicted, obs, config)
        return None if tally is None else tally[2]


@dataclass(frozen=True)
class Predicate(Judge):
    """A judge for a structural statement that has no numeric prediction to perturb (claims using it must
    set ``Claim.insensitive``): ``pass`` iff ``test(predicted, obs)`` is true. ``text`` describes the test;
    ``why`` (a function of the observation) words the reason."""

    test: Callable[[Any, Any], bool]
    text: str
    why: Callable[[Any], str] = lambda obs: ""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        ok = bool(self.test(predicted, obs))
        why = self.why(obs)
        return ("pass" if ok else "fail"), (why or (f"{self.text}: {'holds' if ok else 'does not hold'}"))

    def describe(self) -> str:
        return self.text
