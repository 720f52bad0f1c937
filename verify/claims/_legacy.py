"""TEMPORARY (removed when every claim module is converted to verify.claims.judges): the old judge helpers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import sympy

from .judges import Judge, as_float, as_floats


@dataclass(frozen=True)
class LegacyJudge(Judge):
    fn: Callable[..., Any]
    text: str = "legacy"

    def __call__(self, predicted: Any, obs: Any, config: Any = None):
        return self.fn(predicted, obs, config)

    def describe(self) -> str:
        return self.text


def judge_relative(rtol):
    def judge(predicted, obs, config=None):
        values = obs.value if isinstance(obs.value, (list, tuple)) else [obs.value]
        pred = as_float(predicted)
        err = max(abs(as_float(v) - pred) for v in values) / abs(pred)
        return ("pass" if err <= rtol else "fail"), f"max relative error {err:.3e} (tolerance {rtol:g})"

    return judge


def judge_absolute(atol, require=None):
    def judge(predicted, obs, config=None):
        many = isinstance(predicted, (list, tuple))
        pred = as_floats(predicted) if many else np.array([as_float(predicted)])
        got = as_floats(obs.value) if many else np.array([as_float(obs.value)])
        if pred.shape != got.shape:
            return "fail", f"length mismatch {pred.size} vs {got.size}"
        if require and not obs.details.get(require, False):
            return "fail", f"{require} is False"
        err = float(np.max(np.abs(got - pred))) if pred.size else 0.0
        return ("pass" if err <= atol else "fail"), (
            f"max |observed - predicted| = {err:.3e} over {pred.size} value(s) (tolerance {atol:g})"
        )

    return judge


def judge_symbolic_zero(predicted, obs, config=None):
    residuals = obs.value if isinstance(obs.value, (list, tuple)) else [obs.value]
    bad = [r for r in residuals if sympy.simplify(sympy.sympify(r)) != 0]
    return ("pass", "all residuals simplify to 0") if not bad else ("fail", f"non-zero residuals: {bad[:3]}")


def judge_refuted_if_differs(rtol):
    def judge(predicted, obs, config=None):
        pred, got = as_float(predicted), as_float(obs.value)
        if abs(got - pred) <= rtol * max(1.0, abs(pred)):
            return "pass", "the statement as printed holds"
        return "refuted", f"printed value {pred:.6g}, observed {got:.6g} (see counterexample)"

    return judge
