"""`tvk diff OLD NEW` (issue 31, item 4; verify/report/diff.py): two runs compared claim by claim. The runs here are
small results files written by the test, with planted changes: a verdict flip, a drifted float, a changed exact
value, an added and a removed claim, a runtime change; each must be found, and nothing else."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from verify import cli
from verify.report.diff import DRIFT_RTOL, diff_runs, load_records


def _record(cid: str, verdict: str = "pass", observed: float = 0.25, exact: str = "1/4", runtime: float = 2.0):
    return {
        "id": cid,
        "verdict": verdict,
        "predicted": {"gamma": {"exact": exact, "float": 0.25}, "list": [1.0, 2.0]},
        "observed": {"gamma": observed, "list": [1.0, 2.0]},
        "error": {"abs": abs(observed - 0.25)},
        "metadata": {"runtime_s": runtime},
    }


def _write(path: Path, records: list[dict]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps({"claims": records}))
    return path


@pytest.fixture
def runs(tmp_path):
    old = [_record("a"), _record("b"), _record("c"), _record("gone")]
    new = [*copy.deepcopy(old[:3]), _record("added")]
    new[0]["verdict"] = "fail"  # planted verdict flip
    new[1]["observed"]["gamma"] = 0.25 * (1 + 1e-6)  # planted drift, far above DRIFT_RTOL
    new[1]["error"] = {"abs": 0.25e-6}
    new[2]["metadata"]["runtime_s"] = 9.0  # runtime x4.5
    return _write(tmp_path / "old", old), _write(tmp_path / "new", new)


def test_planted_changes_are_found_and_nothing_else(runs):
    old, new = runs
    d = diff_runs(old, new)
    assert d.added == ["added"] and d.removed == ["gone"]
    by_id = {c.id: c for c in d.changes}
    assert set(by_id) == {"a", "b", "c"}
    assert by_id["a"].verdict == ("pass", "fail") and not by_id["a"].drift
    (drift,) = by_id["b"].drift
    assert drift["where"] == " observed/gamma" and drift["rel"] == pytest.approx(1e-6, rel=1e-3)
    assert by_id["b"].verdict is None and by_id["b"].error is not None
    assert by_id["c"].runtime == (2.0, 9.0) and not by_id["c"].verdict
    assert not d.same_results()


def test_identical_runs_are_the_same_and_round_off_is_not_drift(runs, tmp_path):
    old, _ = runs
    records = list(load_records(old).values())
    jitter = copy.deepcopy(records)
    jitter[0]["observed"]["gamma"] *= 1 + DRIFT_RTOL / 10
    d = diff_runs(old, _write(tmp_path / "same", jitter))
    assert d.same_results() and d.changes == [] and "no differences" in d.text()


def test_a_changed_exact_value_is_a_result_change(runs, tmp_path):
    old, _ = runs
    records = list(load_records(old).values())
    records[0]["predicted"]["gamma"]["exact"] = "1/3"
    d = diff_runs(old, _write(tmp_path / "exact", records))
    assert d.changes[0].exact == [{"where": " predicted/gamma", "old": "1/4", "new": "1/3"}]
    assert not d.same_results()


def test_cli_diff_text_json_and_exit_codes(runs, capsys, tmp_path):
    old, new = runs
    assert cli.main(["diff", str(old), str(new)]) == 1  # results differ
    text = capsys.readouterr().out
    assert "verdict: a: pass -> fail" in text and "drift:   b observed/gamma" in text
    assert cli.main(["diff", str(old), str(new), "--json"]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert obj["added"] == ["added"] and obj["same_results"] is False
    assert cli.main(["diff", str(old), str(old)]) == 0
    capsys.readouterr()
    assert cli.main(["diff", str(old), str(tmp_path / "missing")]) == 2
    assert "tvk: error:" in capsys.readouterr().err  # a missing path: one error line, exit 2


def test_results_jsonl_journal_is_read_like_results_json(runs, tmp_path):
    old, _ = runs
    journal = tmp_path / "j" / "results.jsonl"
    journal.parent.mkdir()
    journal.write_text("\n".join(json.dumps(r) for r in load_records(old).values()))
    assert diff_runs(old, journal.parent).same_results()
