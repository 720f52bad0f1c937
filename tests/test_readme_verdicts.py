"""docs/build_readme_verdicts.py counts verdicts by source from a report, the archive and the plan (issue 29): a
synthetic report with known verdicts gives the known counts, archived claims are not counted as not yet run, stale
ones are counted apart and as still to run, and unknown plan estimates are counted as unknown, never summed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("build_readme_verdicts", ROOT / "docs" / "build_readme_verdicts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counts_by_source(tmp_path):
    report = tmp_path / "rep"
    report.mkdir()
    claims = [
        {"id": "shi-a", "verdict": "pass"},
        {"id": "shi-b", "verdict": "refuted"},
        {"id": "karp-c", "verdict": "inconclusive"},
        {"id": "karp-d", "verdict": "fail", "metadata": {"exploratory": "a variant at the source's learning rate"}},
    ]
    (report / "results.json").write_text(json.dumps({"claims": claims}))
    (tmp_path / "results" / "full").mkdir(parents=True)
    (tmp_path / "results" / "full" / "shi-a.json").write_text(json.dumps({"id": "shi-a", "verdict": "pass"}))
    plan = tmp_path / "plan.json"
    rows = [{"id": "shi-a", "seconds": 5.0}, {"id": "shi-b", "seconds": 7200.0}, {"id": "karp-c", "seconds": None}]
    plan.write_text(json.dumps({"claims": rows}))
    text = _script().table(report, tmp_path / "results", plan, stale=lambda record: None)
    shi = next(line for line in text.splitlines() if line.startswith("| Shi"))
    karp = next(line for line in text.splitlines() if line.startswith("| Karp"))
    assert "| 1 pass, 1 refuted | 1 pass | 1 claims; 1 estimated, 2.0 h together |" in shi
    assert "| 1 inconclusive, 1 fail (exploratory) | none yet | 1 claims; 1 unknown |" in karp


def test_without_a_report_the_quick_column_is_kept_and_the_full_columns_are_new(tmp_path):
    """An update after a campaign run: the README's quick cells survive, the archive's counts are today's."""
    script = _script()
    (tmp_path / "results" / "full").mkdir(parents=True)
    (tmp_path / "results" / "full" / "karp-c.json").write_text(json.dumps({"id": "karp-c", "verdict": "refuted"}))
    old = "\n".join(
        ["# README", script.BEGIN, "", "| source | quick | full | todo |", "| --- | --- | --- | --- |"]
        + [f"| {name} | {i} pass | none yet | see --plan |" for i, name in enumerate(script.SOURCES.values(), 7)]
        + ["", script.END, "rest"]
    )
    kept = script.previous_quick(old)
    assert kept == {name: f"{i} pass" for i, name in enumerate(script.SOURCES.values(), 7)}
    text = script.table(None, tmp_path / "results", None, kept, stale=lambda record: None)
    karp = next(line for line in text.splitlines() if line.startswith("| Karp"))
    assert karp == f"| Karp thesis (2024) | {kept['Karp thesis (2024)']} | 1 refuted | see --plan |"
    with pytest.raises(SystemExit, match="pass REPORT_DIR"):
        script.table(
            None, tmp_path / "results", None, script.previous_quick("# a README without the table"), lambda r: None
        )


def test_stale_records_are_counted_apart_and_still_to_run(tmp_path):
    """A record whose claim changed since (here: marked stale by the given check) is not a current full-scale verdict:
    the archive cell names it apart and the plan's estimate counts it as still to run."""
    full = tmp_path / "results" / "full"
    full.mkdir(parents=True)
    for cid, verdict in (("shi-a", "pass"), ("shi-b", "fail"), ("shi-c", "inconclusive")):
        (full / f"{cid}.json").write_text(json.dumps({"id": cid, "verdict": verdict}))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"claims": [{"id": "shi-b", "seconds": 3600.0}, {"id": "shi-c", "seconds": 1800.0}]}))
    kept = {name: "1 pass" for name in _script().SOURCES.values()}
    text = _script().table(
        None, tmp_path / "results", plan, kept, stale=lambda r: "changed" if r["id"] != "shi-a" else None
    )
    shi = next(line for line in text.splitlines() if line.startswith("| Shi"))
    assert (
        shi
        == "| Shi thesis (2024) | 1 pass | 1 pass; stale: 1 inconclusive, 1 fail | 2 claims; 2 estimated, 1.5 h together |"
    )


def test_the_default_staleness_reads_the_registry():
    """The default check: an unknown claim id is stale, and an archived record of this repository is stale once its
    configuration hash differs from the registered claim's."""
    script = _script()
    assert script.staleness({"id": "no-such-claim", "verdict": "pass"}) == "the claim no longer exists"
    record = json.loads((ROOT / "results" / "full" / "shi-thm4.9-margin.json").read_text())
    assert script.staleness({**record, "config_hash": "0" * 16}) == "its configuration changed since"


def test_a_run_claims_of_one_source_share_is_counted_once(tmp_path):
    """The planned time of a source counts a training run that two of its claims share once, as the plan's
    ``seconds_once_total`` does; a part shared with a claim already archived (not to run) is paid by the claim."""
    (tmp_path / "results" / "full").mkdir(parents=True)
    (tmp_path / "results" / "full" / "karp-z.json").write_text(json.dumps({"id": "karp-z", "verdict": "pass"}))
    plan = tmp_path / "plan.json"
    rows = [
        {"id": "edelman-a", "seconds": 7200.0, "shared": []},
        {"id": "edelman-b", "seconds": 7200.0, "shared": [["edelman-a", 7200.0]]},
        {"id": "karp-z", "seconds": 3600.0},
        {"id": "karp-y", "seconds": 3600.0, "shared": [["karp-z", 1800.0]]},
    ]
    plan.write_text(json.dumps({"claims": rows}))
    report = tmp_path / "rep"
    report.mkdir()
    (report / "results.json").write_text(json.dumps({"claims": []}))
    text = _script().table(report, tmp_path / "results", plan, stale=lambda record: None)
    edelman = next(line for line in text.splitlines() if line.startswith("| Edelman"))
    karp = next(line for line in text.splitlines() if line.startswith("| Karp"))
    assert edelman.endswith("| 2 claims; 2 estimated, 2.0 h together |")
    assert karp.endswith("| 1 claims; 1 estimated, 1.0 h together |")
