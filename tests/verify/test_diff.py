"""`tvk diff OLD NEW` (issue 31, item 4; verify/report/diff.py): two runs compared claim by claim. The runs here are
small results files written by the test, with planted changes: a verdict flip, a drifted float, a changed exact
value, an added and a removed claim, a runtime change; each must be found, and nothing else."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from verify import cli
from verify.report import diff
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
    (path / "results.json").write_text(json.dumps({"header": {"schema_version": "2.0"}, "claims": records}))
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


GOOD = {"header": {}, "claims": [_record("a")]}
# Files that are not results files of tvk (issue: the QA pass of `tvk diff`): each is one error line naming the file,
# exit 2 (before: exit 3 with a traceback's last line, or a diff of junk with exit 0 or 1).
BAD_RUNS = {
    "metadata-int.json": json.dumps({"header": {}, "claims": [{**_record("a"), "metadata": 5}]}),
    "error-list.json": json.dumps({"header": {}, "claims": [{**_record("a"), "error": [1]}]}),
    "id-int.json": json.dumps([{"id": 5}]),
    "id-int-in-doc.json": json.dumps({"header": {}, "claims": [{**_record("a"), "id": 5}]}),
    "no-verdict.json": json.dumps({"header": {}, "claims": [{"id": "a"}]}),
    "empty-list.json": "[]",
    "no-claims.json": json.dumps({"header": {}, "claims": []}),
    "claims-dict.json": json.dumps({"header": {}, "claims": {"a": _record("a")}}),
    "no-header.json": json.dumps({"claims": [_record("a")]}),
    "header-int.json": json.dumps({"header": 5, "claims": [_record("a")]}),
    "blank.jsonl": "\n\n   \n",
    "id-int.jsonl": json.dumps({"id": 5}) + "\n",
    "duplicate.json": json.dumps({"header": {}, "claims": [_record("a"), _record("a")]}),
    "duplicate.jsonl": json.dumps(_record("a")) + "\n" + json.dumps(_record("a")) + "\n",
    "deep.json": "[" * 100_000,
}


@pytest.mark.parametrize("name", sorted(BAD_RUNS))
@pytest.mark.parametrize("side", ["old", "new"])
def test_a_file_that_is_not_a_results_file_is_exit_2_naming_it(tmp_path, capsys, name, side):
    good, bad = tmp_path / "good.json", tmp_path / name
    good.write_text(json.dumps(GOOD))
    bad.write_text(BAD_RUNS[name])
    pair = [str(good), str(bad)] if side == "new" else [str(bad), str(good)]
    assert cli.main(["diff", *pair, "--json"]) == 2
    out, err = capsys.readouterr()
    assert str(bad) in json.loads(out)["error"] and err.count("\n") == 1 and err.startswith("tvk: error: ")
    with pytest.raises(ValueError, match="not a results file of tvk"):
        load_records(bad)


def test_a_binary_file_a_device_and_an_oversized_file_are_refused_by_name(tmp_path, capsys, monkeypatch):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    binary = tmp_path / "bin.json"
    binary.write_bytes(b'{"header": \xff}')
    assert cli.main(["diff", str(good), str(binary), "--json"]) == 2
    assert str(binary) in json.loads(capsys.readouterr().out)["error"]
    assert cli.main(["diff", "/dev/zero", str(good), "--json"]) == 2  # never read: not a regular file
    assert "'/dev/zero' is not a regular file" in json.loads(capsys.readouterr().out)["error"]
    monkeypatch.setattr(diff, "MAX_RESULTS_BYTES", 1000)
    assert cli.main(["diff", str(good), str(good), "--json"]) == 0  # below the limit
    capsys.readouterr()
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"header": {"pad": "x" * 2000}, "claims": [_record("a")]}))
    assert cli.main(["diff", str(good), str(big), "--json"]) == 2
    assert "above the limit" in json.loads(capsys.readouterr().out)["error"]


@pytest.mark.parametrize("rtol", ["-1", "nan", "inf"])
def test_a_bad_rtol_names_the_option(runs, capsys, rtol):
    old, new = runs
    assert cli.main(["diff", str(old), str(new), f"--rtol={rtol}", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"].startswith("--rtol must be a finite number >= 0")


def _nonfinite_run(path: Path, value: str | None) -> Path:
    """A run whose observed gamma is ``value`` ("nan", "inf", "-inf") written as results.json writes it (null, named
    in the record's ``nonfinite``), or the finite 0.25 (None)."""
    rec = _record("a")
    rec["nonfinite"] = []
    if value is not None:
        rec["observed"]["gamma"] = None
        rec["nonfinite"] = [{"path": "/observed/gamma", "value": value}]
    return _write(path, [rec])


@pytest.mark.parametrize(("old", "new"), [("nan", "inf"), ("inf", "-inf"), (None, "nan"), ("inf", None)])
def test_a_nan_or_infinity_that_changes_is_a_result_change(tmp_path, old, new):
    """results.json writes a NaN or an infinity as null and names it in `nonfinite`; the diff compared the nulls,
    so NaN -> inf was "no differences" with exit 0 (and finite -> NaN was drift of relative nan)."""
    d = diff_runs(_nonfinite_run(tmp_path / "old", old), _nonfinite_run(tmp_path / "new", new))
    (change,) = d.changes
    (exact,) = change.exact
    assert exact["where"] == " observed/gamma" and not change.drift and not d.same_results()
    assert cli.main(["diff", str(tmp_path / "old"), str(tmp_path / "new")]) == 1


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_the_same_nan_or_infinity_is_no_change(tmp_path, value):
    assert not diff_runs(_nonfinite_run(tmp_path / "old", value), _nonfinite_run(tmp_path / "new", value)).changes


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("name", ["results.json", "results.jsonl"])
def test_python_nan_tokens_are_not_json_and_are_refused(tmp_path, token, name):
    """tvk never writes NaN or Infinity tokens (strict JSON); a file with one was read, and its NaN then compared as
    drift with itself ("nan -> nan") or as close to any error."""
    rec = json.dumps(_record("a")).replace('"gamma": 0.25', f'"gamma": {token}')
    path = tmp_path / name
    path.write_text(rec + "\n" if name.endswith("l") else json.dumps({"header": {}, "claims": []})[:-2] + rec + "]}")
    with pytest.raises(ValueError, match=f"{token} is not JSON"):
        load_records(path)


def test_a_journal_error_names_its_line(tmp_path):
    """Each line of a results.jsonl is parsed alone: the decoder's "line 1" was every line's."""
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(_record(c)) for c in "abc") + '\n{"id":\n')
    with pytest.raises(ValueError, match=r"line 4: Expecting value \(column 7\)"):
        load_records(path)


def test_text_output_shows_values_as_json(tmp_path):
    old, new = _record("a"), _record("a")
    new["error"] = None
    d = diff_runs(_write(tmp_path / "old", [old]), _write(tmp_path / "new", [new]))
    assert '  error:   a: {"abs": 0.0} -> null' in d.text()


def test_a_claim_run_at_another_scale_is_said_first(tmp_path):
    """A quick run against a full one listed a pile of value changes with no word that the scales differ."""
    old, new = _record("a"), _record("a", observed=0.3)
    old["scale"], new["scale"] = "quick", "full"
    d = diff_runs(_write(tmp_path / "old", [old]), _write(tmp_path / "new", [new]))
    (change,) = d.changes
    assert change.scale == ("quick", "full") and not d.same_results()
    assert "  scale:   a: quick -> full (runs at two scales: the values differ)" in d.text()
    from verify.report import render

    view = render.changes_view({"compare": d.to_json()})
    assert view is not None and view["findings"][0]["kind"] == "scale"
