"""The rules of `tvk diff` that a refactoring check relies on (verify/report/diff.py): what counts as a result
change (a removed claim, values at other positions, a boolean that flipped), the drift and runtime thresholds at their
boundaries, the symmetry of the comparison, and the NaN/infinity bookkeeping of ``nonfinite`` read back as written."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from verify import cli
from verify.report import render
from verify.report.diff import RunDiff, diff_runs


def _record(cid: str = "a", observed: Any = 0.25, runtime: float | None = None, error: Any = None) -> dict[str, Any]:
    """A minimal claim record: exact prediction 1/4, the given observed value, runtime and error."""
    return {
        "id": cid,
        "verdict": "pass",
        "predicted": {"exact": "1/4", "float": 0.25},
        "observed": observed,
        "error": error,
        "metadata": {} if runtime is None else {"runtime_s": runtime},
    }


def _run(path: Path, *records: dict[str, Any]) -> Path:
    """A report directory holding ``records`` as its results.json."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps({"header": {}, "claims": list(records)}))
    return path


def _diff(tmp_path: Path, old: list[dict[str, Any]], new: list[dict[str, Any]], **kw: Any) -> RunDiff:
    return diff_runs(_run(tmp_path / "old", *old), _run(tmp_path / "new", *new), **kw)


def test_a_removed_claim_alone_makes_the_results_differ(tmp_path: Path) -> None:
    """A refactoring that loses a claim must fail the check (exit 1), even when nothing else changed."""
    d = _diff(tmp_path, [_record("a"), _record("b")], [_record("a")])
    assert d.removed == ["b"] and not d.changes
    assert not d.same_results() and d.to_json()["same_results"] is False
    assert cli.main(["diff", str(tmp_path / "old"), str(tmp_path / "new")]) == 1


def test_values_at_other_positions_are_a_shape_change_and_a_result_change(tmp_path: Path) -> None:
    """Observed values under other keys (same count) are not the same results: a shape finding, exit 1."""
    d = _diff(tmp_path, [_record(observed={"x": 1.0, "y": 2.0})], [_record(observed={"x": 1.0, "z": 2.0})])
    (change,) = d.changes
    assert change.shape and not change.exact and not change.drift
    assert not d.same_results()


def test_a_boolean_that_flips_is_a_result_change_not_drift(tmp_path: Path) -> None:
    """An observed ``true`` that became ``false`` (a structural check) changes the results; it is no float drift."""
    d = _diff(tmp_path, [_record(observed={"holds": True})], [_record(observed={"holds": False})])
    (change,) = d.changes
    assert change.exact == [{"where": " observed/holds", "old": True, "new": False}] and not change.drift
    assert not d.same_results()


def test_rtol_zero_is_accepted_reports_any_change_and_no_identical_value(tmp_path: Path, capsys) -> None:
    """``--rtol 0`` (documented: a finite number >= 0) asks for bit-identical floats: an identical run is no
    difference, and the smallest change is drift."""
    same = _diff(tmp_path, [_record()], [_record()], rtol=0.0)
    assert same.changes == [] and same.same_results()
    assert cli.main(["diff", str(tmp_path / "old"), str(tmp_path / "new"), "--rtol", "0"]) == 0
    assert "no differences" in capsys.readouterr().out
    moved = _diff(tmp_path, [_record()], [_record(observed=math.nextafter(0.25, 1.0))], rtol=0.0)
    (change,) = moved.changes
    assert len(change.drift) == 1 and moved.same_results()  # drift is not a result change


def _findings(d: RunDiff) -> dict[str, list[Any]]:
    """Every finding of ``d`` with old and new sorted, so that the findings of a diff and of its swap compare."""
    out: dict[str, list[Any]] = {"drift": [], "error": [], "runtime": [], "exact": []}
    for c in d.changes:
        out["drift"] += [(c.id, x["where"], sorted((x["old"], x["new"])), x["rel"]) for x in c.drift]
        out["exact"] += [(c.id, x["where"], sorted(map(str, (x["old"], x["new"])))) for x in c.exact]
        out["error"] += [(c.id, sorted(map(json.dumps, c.error)))] if c.error else []
        out["runtime"] += [(c.id, sorted(c.runtime))] if c.runtime else []
    return out


@pytest.mark.parametrize("rtol", [1e-9, 0.5])
def test_the_comparison_is_symmetric(tmp_path: Path, rtol: float) -> None:
    """``tvk diff A B`` and ``tvk diff B A`` report the same findings with old and new swapped (the same relative
    drift, the same error and runtime changes): a relative change is not measured against one side only."""
    a = [
        _record("small-to-large", observed=1.0, error={"abs": 1.0}),
        _record("tiny", observed=0.25, error={"abs": 1.0}),
        _record("slow", runtime=3.0),
    ]
    b = [
        _record("small-to-large", observed=4.0, error={"abs": 2.0}),
        _record("tiny", observed=0.25 * (1 + 3 * rtol), error={"abs": 1.0 + 1.5 * rtol}),
        _record("slow", runtime=7.0),
    ]
    forward = diff_runs(_run(tmp_path / "a", *a), _run(tmp_path / "b", *b), rtol=rtol)
    backward = diff_runs(tmp_path / "b", tmp_path / "a", rtol=rtol)
    assert _findings(forward) == _findings(backward)
    assert _findings(forward)["drift"]  # the planted change is found at all


@pytest.mark.parametrize(
    ("old", "new", "reported"),
    [
        (0.5, 5.0, True),  # one above the 1 s floor, x10: reported
        (5.0, 0.5, True),
        (0.1, 0.9, False),  # both below the floor: never reported
        (2.0, 4.0, False),  # exactly the factor 2: inside [old / 2, old * 2]
        (4.0, 2.0, False),
        (2.0, 4.01, True),
        (2.0, 0.99, True),
    ],
)
def test_runtime_changes_beyond_the_factor_around_the_floor(tmp_path: Path, old: float, new: float, reported: bool):
    """A runtime change is reported outside [old / 2, old * 2] when one of the two runtimes is above 1 s."""
    d = _diff(tmp_path, [_record(runtime=old)], [_record(runtime=new)])
    assert (d.changes[0].runtime if d.changes else None) == ((old, new) if reported else None)
    assert d.same_results()  # a runtime is never a result


def test_error_objects_with_other_fields_are_an_error_change(tmp_path: Path) -> None:
    """An error that gained a field (``rel``) is reported, even when the fields both have agree."""
    d = _diff(tmp_path, [_record(error={"abs": 0.1})], [_record(error={"abs": 0.1, "rel": 0.4})])
    (change,) = d.changes
    assert change.error == ({"abs": 0.1}, {"abs": 0.1, "rel": 0.4})


def _written(rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` as results.json writes it (NaN and infinities as null, listed in ``nonfinite``)."""
    out = render.result_record(rec)
    return {k: out[k] for k in ("id", "verdict", "predicted", "observed", "error", "metadata", "nonfinite")}


@pytest.mark.parametrize("key", ["plain", "a/b", "x~1y", "t~0"])
def test_a_nan_that_became_an_infinity_under_any_key_is_found(tmp_path: Path, key: str) -> None:
    """The JSON pointers results.json writes for a key with ``/`` or ``~`` (RFC 6901: ``~1``, ``~0``) are read back
    to the same key: a NaN there that became an infinity is a result change, the same NaN is none."""
    old = _written(_record(observed={key: math.nan, "other": 1.0}))
    new = _written(_record(observed={key: math.inf, "other": 1.0}))
    assert old["observed"][key] is None and new["observed"][key] is None  # written as null
    d = _diff(tmp_path, [old], [new])
    (change,) = d.changes
    assert [e["where"] for e in change.exact] == [f" observed/{key}"] and not d.same_results()
    assert _diff(tmp_path, [old], [old]).changes == []


def test_a_nonfinite_entry_that_names_a_value_is_passed_over(tmp_path: Path) -> None:
    """A ``nonfinite`` entry for a value that is not null (a hand-edited or stale list) does not replace the value:
    the same observed 0.25 on both sides is no change."""
    flagged = {**_record(), "nonfinite": [{"path": "/observed", "value": "nan"}]}
    assert _diff(tmp_path, [flagged], [_record()]).changes == []


def test_pointers_written_for_nonfinite_values_resolve_to_them() -> None:
    """Every ``nonfinite`` pointer of a written record, resolved by RFC 6901 in the record before writing, names a
    NaN or an infinity of the value the entry says (so a reader can put each one back)."""
    rec = _record(observed={"a/b": [1.0, math.nan], "t~": {"x": -math.inf}, "n": [[2.0, math.inf]]})

    def resolve(doc: Any, pointer: str) -> Any:
        for raw in pointer.split("/")[1:]:
            token = raw.replace("~1", "/").replace("~0", "~")
            doc = doc[int(token)] if isinstance(doc, list) else doc[token]
        return doc

    flags = render.result_record(rec)["nonfinite"]
    assert len(flags) == 3
    for flag in flags:
        value = resolve(rec, flag["path"])
        assert isinstance(value, float) and not math.isfinite(value) and str(value) == flag["value"]
