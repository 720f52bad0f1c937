"""Mutation audit of ``verify/claims/sensitivity.py``: the entry walk, one-entry perturbations, the measured
resolution and the check of a declared resolution, against the module's docstrings. The oracle is the module's own
contract between its parts (a resolution measured by :func:`measure_resolution` is one that
:func:`check_resolution` accepts when declared) and small judges whose exact detection thresholds are computed by
hand. Each test kills a one-line mutant that ``test_sensitivity.py`` lets through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from verify.claims.base import Observation, Resolution
from verify.claims.judges import ExactOrFloat, Judge, MaxRel, Verdict, as_floats
from verify.claims.sensitivity import (
    R_MIN,
    Measured,
    check_resolution,
    detects,
    entry_paths,
    exact_by_construction,
    measure_resolution,
    single_entry_perturbations,
)

WHY = "a window of unequal sides around the observation"


@dataclass(frozen=True)
class Window(Judge):
    """pass iff lo <= observed / predicted <= hi (first entry). With the prediction moved up by r the ratio is
    1/(1+r), down by r it is 1/(1-r)."""

    lo: float = 0.6
    hi: float = 1.001

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        p = as_floats(predicted)[0]
        ratio = as_floats(obs.value)[0] / p if p else float("inf")
        return ("pass" if self.lo <= ratio <= self.hi else "fail"), f"ratio {ratio}"

    def describe(self) -> str:
        return f"ratio in [{self.lo}, {self.hi}]"


@dataclass(frozen=True)
class Raises(Judge):
    """A judge that crashes on every prediction but the recorded one."""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        if predicted != obs.value:
            raise ValueError("cannot judge this prediction")
        return "pass", "same"

    def describe(self) -> str:
        return "crashes"


@dataclass(frozen=True)
class IgnoresFlag(Judge):
    """Compares the number entry exactly and never reads the yes/no entry."""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        return ("pass" if predicted["x"] == obs.value["x"] else "fail"), "x only"

    def describe(self) -> str:
        return "x only"


def test_only_entries_that_are_numbers_or_exact_records():
    """None and strings travel with a prediction but are not entries; only a dict with both "exact" and "float"
    is one entry, a dict with one of them is walked into."""
    assert entry_paths([1.0, None, "label", 2.0]) == [(0,), (3,)]
    assert entry_paths({"float": 1.0, "n": 2}) == [("float",), ("n",)]
    assert entry_paths({"exact": "1/2", "float": 0.5}) == [()]


def test_one_moved_entry_is_the_whole_perturbation():
    """When the perturbation changes one entry only, moving it alone is the whole perturbation: no single-entry
    moves, and n = 1."""
    moves, n = single_entry_perturbations([1.0, 2.0], [1.01, 2.0])
    assert moves == [] and n == 1


def test_a_judge_that_crashes_has_detected_the_change():
    """A crash on a wrong prediction counts as a change: the wrong prediction was not accepted."""
    assert detects(Raises(), [2.0], Observation([1.0]), None)
    assert not detects(Raises(), [1.0], Observation([1.0]), None)


def test_a_change_at_the_smallest_error_gives_r_min():
    """A judge that detects any change has the resolution R_MIN (the smallest error tried), not a bisection
    value near it."""
    m = measure_resolution(MaxRel(0.0), [1.0], Observation([1.0]))
    assert m.whole == R_MIN


def test_measured_resolution_is_the_larger_direction_and_check_accepts_it():
    """Window(0.6, 1.001): moving the prediction down is detected from about 0.1 % on, moving it up only from
    1/0.6 - 1 = 2/3 on. The resolution is the error from which *both* directions are detected (about 2/3); declared,
    check_resolution accepts it, and it reports an error of 1 % as missed in the up direction."""
    judge, pred, obs = Window(), [1.0], Observation([1.0])
    m = measure_resolution(judge, pred, obs)
    assert 2 / 3 <= m.whole <= 2 / 3 * 1.1
    assert check_resolution(judge, pred, obs, declared=Resolution(m.whole, WHY)) == []
    problems = check_resolution(judge, pred, obs)
    assert problems and "does not change the verdict" in problems[0]


def test_resolution_is_the_largest_part():
    """The claim's resolution is the largest of the whole's and the entries' (every part detected from it on)."""
    assert Measured(whole=0.02, entries={(0,): 0.1, (1,): 0.05}).resolution == 0.1
    assert Measured(whole=0.02, entries={(0,): None}).resolution is None


def test_a_yes_no_entry_the_judge_never_reads_is_undetected():
    """A bool entry is flipped, whatever r: if the flip does not change the verdict the entry is undetected."""
    m = measure_resolution(IgnoresFlag(), {"x": 1.0, "flag": True}, Observation({"x": 1.0, "flag": True}))
    assert m.entries[("flag",)] is None and ("flag",) in m.undetected
    assert m.entries[("x",)] == R_MIN


def test_a_relative_tolerance_of_exactly_one_percent_is_not_exact_by_construction():
    """Exact by construction needs a relative float_tol *below* 1 %: at 1 % a 1 % error may sit on the tolerance
    and pass."""
    assert not exact_by_construction(ExactOrFloat(float_tol=0.01, relative=True))
    assert exact_by_construction(ExactOrFloat(float_tol=0.0099, relative=True))


@pytest.mark.parametrize("tol", [0.001, 0.005])
def test_a_declared_one_percent_is_never_loose(tol):
    """Declaring the default 1 % is never "loose": only a declaration coarser than 1 % must not be detected at
    half its size (a judge of 0.1 % or 0.5 % detects 0.5 %, yet 1 % is the default resolution)."""
    judge, pred, obs = MaxRel(tol), [1.0, 2.0], Observation([1.0, 2.0])
    assert check_resolution(judge, pred, obs, declared=Resolution(0.01, WHY)) == []
