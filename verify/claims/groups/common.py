"""What the finite-group claims share: the source, the configurations and two judges.

Edelman thesis (2024), Ch. 7, Sec. 7.6 (Theorem 7.9) and App. D.8-D.9; derivations, corrected constants and
the reference values quoted by the claims are in ``docs/groups.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from ..judges import PERTURB_REL, PERTURB_TOLS, Judge, Verdict, as_float, as_floats, flatten, perturb_value

SRC = "Edelman thesis (2024)"
#: Digits to which an exact residual sympy cannot simplify (cos(pi/7), ...) is evaluated.
DIGITS = 60


@dataclass(frozen=True)
class GroupsConfig:
    """Groups (by name, see ``theory.finite_groups.group``) at which a statement is checked, plus the knobs some
    claims use: the groups where a condition is expected to fail, the multi-start count and seed of the
    single-neuron optimizer, and reference values quoted in the statement (label -> value, ``docs/groups.md``)."""

    groups: tuple[str, ...]
    fails: tuple[str, ...] = ()
    n_starts: int = 8
    seed: int = 0
    reference: tuple[tuple[str, float], ...] = ()


def to_float(x: Any) -> float:
    """An exact (sympy) value as a float, evaluated to 30 digits first."""
    return float(sympy.N(x, 30))


def _is_float(x: Any) -> bool:
    return isinstance(x, (float, np.floating))


@dataclass(frozen=True)
class ExactResiduals(Judge):
    """``pass`` iff every observed value equals its prediction: an exact observation when observed - predicted
    simplifies to 0 or, for an algebraic number sympy does not simplify (such as cos(pi/7)), evaluates below
    ``digits_atol`` to 60 digits; a float observation (a float64 computation) when it is within ``float_atol``.
    With ``require``, ``obs.details[require]`` must also be true. Lists are compared element by element."""

    float_atol: float = 0.0
    digits_atol: float = 1e-45
    require: str | None = None

    def _mismatches(self, predicted: Any, observed: Any) -> tuple[list[str], int, int] | str:
        pred, got = flatten(predicted), flatten(observed)
        if len(pred) != len(got):
            return f"length mismatch: {len(pred)} predicted vs {len(got)} observed value(s)"
        bad, numeric = [], 0
        for i, (p, g) in enumerate(zip(pred, got)):
            if _is_float(g):
                if not abs(as_float(g) - to_float(p)) <= self.float_atol:
                    bad.append(f"index {i}: predicted {p}, observed {as_float(g):.6g}")
                continue
            r = sympy.sympify(g) - sympy.sympify(p)
            if r == 0 or sympy.simplify(r) == 0:
                continue
            if r.is_number and abs(complex(sympy.N(r, DIGITS))) < self.digits_atol:
                numeric += 1
                continue
            bad.append(f"index {i}: predicted {p}, observed {g}")
        return bad, numeric, len(pred)

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        found = self._mismatches(predicted, obs.value)
        if isinstance(found, str):
            return "fail", found
        bad, numeric, n = found
        if self.require and not obs.details.get(self.require, False):
            return "fail", f"{self.require.replace('_', ' ')} is false"
        if bad:
            return "fail", f"{len(bad)} of {n} value(s) differ, e.g. {bad[0]}"
        extra = f" ({numeric} checked to {DIGITS} digits)" if numeric else ""
        return "pass", f"all {n} value(s) agree{extra}"

    def describe(self) -> str:
        text = f"exact (observed - predicted simplifies to 0, or is below {self.digits_atol:g} at {DIGITS} digits)"
        if self.float_atol:
            text += f"; float64 values within {self.float_atol:g}"
        if self.require:
            text += f"; and {self.require.replace('_', ' ')}"
        return text

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * self.float_atol)


@dataclass(frozen=True)
class MaxRelEach(Judge):
    """Independent measurements of the same predicted values: ``obs.value`` maps each measurement's name to one
    value per prediction; ``pass`` iff every measurement named in ``rtols`` is within its own relative tolerance
    of the prediction, and every detail named in ``require`` is true."""

    rtols: tuple[tuple[str, float], ...]
    require: tuple[str, ...] = ()

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
        problems += [f"{key.replace('_', ' ')} is false" for key in self.require if not obs.details.get(key, False)]
        text = "relative errors: " + "; ".join(f"{k} {v:.1e}" for k, v in errors.items())
        return ("fail", text + "; " + "; ".join(problems)) if problems else ("pass", text)

    def describe(self) -> str:
        text = "relative: " + ", ".join(f"{name} {rtol:g}" for name, rtol in self.rtols)
        return text + "".join(f"; and {key.replace('_', ' ')}" for key in self.require)

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, max(PERTURB_REL, PERTURB_TOLS * max(r for _, r in self.rtols)))
