"""verify/claims/sensitivity.py: predictions moved one entry at a time (lists, dicts, arrays), the measured
resolution, and the check of a claim's declared :class:`~verify.claims.base.Resolution` (issue 28, items 5, 8)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import sympy

from verify.claims.base import Observation, Resolution
from verify.claims.judges import (
    AtLeast,
    ExactlyEqual,
    ExactOrFloat,
    Judge,
    MaxRel,
    Requiring,
    Verdict,
    as_floats,
    perturb_value,
)
from verify.claims.sensitivity import (
    check_resolution,
    detects,
    entry_paths,
    exact_by_construction,
    measure_resolution,
    replace_entry,
    sample_paths,
    single_entry_perturbations,
)


@dataclass(frozen=True)
class FirstOnly(Judge):
    """A careless judge: compares only the first entry (relative 1e-9)."""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        p, o = as_floats(predicted)[0], as_floats(obs.value)[0]
        return ("pass", "ok") if abs(p - o) <= 1e-9 * abs(p) else ("fail", "first entry differs")

    def describe(self) -> str:
        return "first entry only"


def test_entry_paths_and_replace_cover_lists_dicts_arrays_and_exact_records():
    pred = {"a": [1.0, 2.0], "b": np.array([[3.0, 4.0]]), "c": {"exact": "1/3", "float": 0.333}, "label": "x"}
    paths = entry_paths(pred)
    assert paths == [("a", 0), ("a", 1), ("b", (0, 0)), ("b", (0, 1)), ("c",)]  # a label is not an entry
    moved = replace_entry(pred, ("b", (0, 1)), 5.0)
    assert moved["b"][0, 1] == 5.0 and pred["b"][0, 1] == 4.0 and moved["a"] is pred["a"]
    assert replace_entry((1, 2, 3), (1,), 7) == (1, 7, 3)
    assert sample_paths([(i,) for i in range(100)], 5) == [(0,), (25,), (50,), (74,), (99,)]


def test_one_entry_at_a_time_sees_an_entry_the_judge_never_reads():
    obs = Observation([1.0, 2.0, 3.0])
    pred = [1.0, 2.0, 3.0]
    judge = FirstOnly()
    wrong = perturb_value(pred, 0.01)
    assert detects(judge, wrong, obs, None)  # all in one direction: the first entry gives it away
    moves, n = single_entry_perturbations(pred, wrong)
    assert n == 3 and [p for p, _ in moves] == [(0,), (1,), (2,)]
    unseen = [p for p, w in moves if not detects(judge, w, obs, None)]
    assert unseen == [(1,), (2,)]
    problems = check_resolution(judge, pred, obs)
    assert len(problems) == 1 and "no error up to 100 %" in problems[0] and "entry [1]" in problems[0]
    assert check_resolution(MaxRel(1e-9), pred, obs) == []


def test_declared_resolution_is_checked_against_the_judge():
    obs = Observation([1.0, 2.0])
    pred = [1.0, 2.0]
    judge = MaxRel(0.05)  # detects from about 5 % on
    m = measure_resolution(judge, pred, obs)
    assert 0.045 < m.resolution < 0.06 and m.undetected == []
    missing = check_resolution(judge, pred, obs)
    assert missing and "does not change the verdict" in missing[0] and "declare" in missing[0]
    assert check_resolution(judge, pred, obs, declared=Resolution(0.06, "a relative window of 5 %")) == []
    loose = check_resolution(judge, pred, obs, declared=Resolution(0.2, "a relative window of 5 %"))
    assert loose and "loose" in loose[0]
    short = check_resolution(judge, pred, obs, declared=Resolution(0.03, "a relative window of 5 %"))
    assert short and "does not change the verdict" in short[0]


def test_a_bound_with_slack_declares_its_undetected_entries():
    obs = Observation([1.0, 10.0])
    pred = [1.0, 2.0]  # observed >= predicted: tight at the first point, 5x slack at the second
    judge = AtLeast()
    m = measure_resolution(judge, pred, obs)
    assert m.undetected == [(1,)] and m.resolution is None
    assert "Resolution(undetected" in check_resolution(judge, pred, obs)[0]
    why, where = "a lower bound checked at two points", "the second point, where the bound has 5x slack"
    assert check_resolution(judge, pred, obs, declared=Resolution(0.01, why, undetected=where)) == []
    tight = Observation([1.0, 2.0])
    assert (
        "drop Resolution.undetected"
        in check_resolution(judge, pred, tight, declared=Resolution(0.01, why, undetected=where))[0]
    )


def test_exact_judges_are_exact_by_construction():
    assert exact_by_construction(ExactlyEqual()) and exact_by_construction(Requiring(ExactlyEqual(), ("x",)))
    assert not exact_by_construction(MaxRel(1e-9))
    assert exact_by_construction(ExactOrFloat(float_tol=1e-9, relative=True))
    assert exact_by_construction(ExactOrFloat(float_tol=1e-9), [1.0, 0.0, 2.0])  # absolute: finer than 1 % of 1
    assert not exact_by_construction(ExactOrFloat(float_tol=1e-9), [1e-8, 1.0])
    assert not exact_by_construction(ExactOrFloat(float_tol=0.1, relative=True))
    assert check_resolution(ExactlyEqual(), [sympy.Integer(1)], Observation([sympy.Integer(1)])) == []


def test_resolution_declaration_is_validated():
    with pytest.raises(ValueError):
        Resolution(0.0, "a relative window of 5 %")
    with pytest.raises(ValueError):
        Resolution(0.1, "why")
    with pytest.raises(ValueError):
        Resolution(0.1, "a relative window of 5 %", undetected="some")
