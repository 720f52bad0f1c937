"""`tvk report --compare PREV` (issue 31, item 4): a "Changes since PREV" section in report.md and report.html,
after the needs-attention block, from the diff code of `tvk diff` (verify/report/diff.py). The planted runs of
tests/verify/test_diff.py (a verdict flip, a drift, a runtime change, an added and a removed claim) are rendered;
a real report is compared with a copy of itself carrying a planted flip and drift; a bad PREV is refused (exit 2)
before any claim runs."""

from __future__ import annotations

import json

import pytest

from tests.verify.test_diff import runs  # noqa: F401  (the planted runs, a pytest fixture)
from verify import cli
from verify.report import render
from verify.report import run as report
from verify.report.diff import _leaves, diff_runs
from verify.runtime.options import RunOptions

FAST = "shi-lemC.18-output-as-printed,edelman-thm7.7-margin"
META = {"scale": "quick", "device": "cpu", "generated": "now", "git_revision": "abc", "runtime_s": 1.0}


def _records(path):
    return json.loads((path / "results.json").read_text())["claims"]


def test_changes_section_lists_the_planted_changes_in_both_reports(runs):  # noqa: F811
    old, new = runs
    meta = {**META, "compare": diff_runs(old, new).to_json()}
    records = [{**r, "metadata": {**r["metadata"], "seeds": []}} for r in _records(new)]
    md = render.render_markdown(records, meta, {})
    head = md.index(f"## {render.md_escape(f'Changes since {old}')}")
    assert md.index("## Needs attention") < head < md.index("## Errata found")
    section = md[head : md.index("## Errata found")]
    assert "- verdict: [a](#a): PASS → FAIL" in section
    assert "- drift: [b](#b): observed/gamma: 0.25 → 0.25000025 (relative 1.00e-06)" in section
    assert "- runtime: [c](#c): 2 s → 9 s" in section
    assert "- added: [added](#added)" in section and "- removed: `gone`" in section
    assert section.index("verdict:") < section.index("drift:") < section.index("added:")  # verdict changes first
    assert "the results differ" in section
    assert f"(#{render.gfm_slug(f'Changes since {old}')})" in md[: md.index("## Needs attention")]  # in Contents
    html = render.render_html(records, meta, {})
    start = html.index('<section id="changes-since">')
    assert html.index('<section id="needs-attention">') < start < html.index('<form id="filters"')
    body = html[start : html.index("</section>", start)]
    assert '<li data-change="verdict"><strong>verdict</strong>: <a href="#c-a"><code>a</code></a>: PASS → FAIL' in body
    assert 'data-change="drift"' in body and 'data-change="removed"' in body
    assert 'href="#changes-since"' in html  # in Contents


def test_no_comparison_no_section_and_long_lists_are_capped(runs, monkeypatch):  # noqa: F811
    old, new = runs
    records = [{**r, "metadata": {**r["metadata"], "seeds": []}} for r in _records(new)]
    assert "Changes since" not in render.render_markdown(records, META, {})
    assert "changes-since" not in render.render_html(records, META, {})
    monkeypatch.setattr(render, "CHANGES_LIMIT", 2)
    view = render.changes_view({"compare": diff_runs(old, new).to_json()})
    assert [f["kind"] for f in view["findings"]] == ["verdict", "drift"] and view["more"] == 4


def test_report_compare_with_a_planted_flip_and_drift(tmp_path):
    out = tmp_path / "rep"
    records, _ = report.run_report(out, only=FAST, options=RunOptions(progress=False), log=lambda s: None)
    assert {r["verdict"] for r in records} == {"pass", "refuted"}
    doc = json.loads((out / "results.json").read_text())
    drifted, where, x = next(
        (c, w, v) for c in doc["claims"] for w, v in _leaves(c["observed"]) if type(v) is float and v
    )
    flipped = next(c for c in doc["claims"] if c is not drifted)
    flipped["verdict"] = "fail"  # planted: the previous run had another verdict
    parent, key = drifted, "observed"
    for k in [k for k in where.split("/") if k]:
        parent, key = parent[key], int(k) if isinstance(parent[key], list) else k
    parent[key] = x * (1 + 1e-6)  # planted drift
    (out / "results.json").write_text(json.dumps(doc))  # PREV is the report directory the new run replaces
    report.run_report(out, only=FAST, options=RunOptions(progress=False), log=lambda s: None, compare=out)
    md = (out / "report.md").read_text()
    section = md[md.index(f"## {render.md_escape(f'Changes since {out}')}") : md.index("## Errata found")]
    assert f"verdict: [{render.md_escape(flipped['id'])}]" in section
    assert f"FAIL → {next(r for r in records if r['id'] == flipped['id'])['verdict'].upper()}" in section
    assert (
        f"drift: [{render.md_escape(drifted['id'])}]" in section
        and f"observed{render.md_escape(where.rstrip('/'))}:" in section
    )
    assert "relative 1.00e-06" in section
    # PREV was this directory: `tvk diff PREV OUT` would now compare the new run with itself (it was suggested)
    assert "tvk diff" not in section.replace("to keep it for `tvk diff`", "") and "now replaced by this one" in section
    assert '<section id="changes-since">' in (out / "report.html").read_text()
    assert [r["verdict"] for r in _records(out)] == [r["verdict"] for r in records]  # the new run's results


@pytest.mark.parametrize("bad", ["missing", "garbage.json", "empty-dir", "metadata-int.json", "junk.json"])
def test_bad_compare_is_exit_2_before_any_claim_runs(tmp_path, capsys, monkeypatch, bad):
    (tmp_path / "garbage.json").write_text("{not json")
    (tmp_path / "empty-dir").mkdir()
    record = {"id": "a", "verdict": "pass", "metadata": 5}  # a record the diff could not read (was exit 3, late)
    (tmp_path / "metadata-int.json").write_text(json.dumps({"header": {}, "claims": [record]}))
    (tmp_path / "junk.json").write_text(json.dumps([{"id": 5}]))

    def no_claim(*a, **k):
        raise AssertionError("a claim ran")

    monkeypatch.setattr(report, "run_claim", no_claim)
    out = tmp_path / "out"
    argv = ["report", "--only", FAST, "--out", str(out), "--no-progress", "--compare", str(tmp_path / bad)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tvk: error: --compare: ") and str(tmp_path / bad) in err and err.count("\n") == 1
    assert not out.exists()  # refused before the report directory was made
    assert cli.main([*argv, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"].startswith("--compare: ")


def test_cli_report_compare_json_summary(tmp_path, capsys):
    out = tmp_path / "rep"
    assert cli.main(["report", "--only", FAST, "--out", str(out), "--no-progress", "--json"]) == 0
    capsys.readouterr()
    doc = json.loads((out / "results.json").read_text())
    doc["claims"][0]["verdict"] = "fail"  # planted flip
    (tmp_path / "prev.json").write_text(json.dumps(doc))
    argv = [
        "report",
        "--only",
        FAST,
        "--out",
        str(out),
        "--no-progress",
        "--json",
        "--compare",
        str(tmp_path / "prev.json"),
    ]
    assert cli.main(argv) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["compare"]["verdict_changes"] == [doc["claims"][0]["id"]] and obj["compare"]["same_results"] is False


def test_compare_needs_a_run(tmp_path, capsys):
    assert cli.main(["report", "--plan", "--only", FAST, "--compare", str(tmp_path)]) == 2
    assert "--compare needs a run" in capsys.readouterr().err
