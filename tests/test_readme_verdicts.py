"""docs/build_readme_verdicts.py counts verdicts by source from a report, the archive and the plan (issue 29): a
synthetic report with known verdicts gives the known counts, archived claims are not counted as not yet run, and
unknown plan estimates are counted as unknown, never summed."""

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
    text = _script().table(report, tmp_path / "results", plan)
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
    text = script.table(None, tmp_path / "results", None, kept)
    karp = next(line for line in text.splitlines() if line.startswith("| Karp"))
    assert karp == f"| Karp thesis (2024) | {kept['Karp thesis (2024)']} | 1 refuted | see --plan |"
    with pytest.raises(SystemExit, match="pass REPORT_DIR"):
        script.table(None, tmp_path / "results", None, script.previous_quick("# a README without the table"))
