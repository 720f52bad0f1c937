"""The report's data files (issue 31, item 6): every comparable record's error numeric, 0 for an exact equality;
each results.jsonl line valid against the published schema and equal to its results.json claim; results.csv with
full-precision numeric predicted / observed / error columns, the reason and the expected verdict."""

from __future__ import annotations

import csv
import io
import json

import pytest

from verify.report import render
from verify.report import run as report
from verify.report.directory import Journal
from verify.runtime.options import RunOptions

#: Fast real claims: two exact passes whose predicted and observed forms differ (2/(4p-4) against 1/(2p-2)),
#: two errata, a float claim.
DATA = (
    "shi-thm4.9-margin,edelman-thm7.9-not-Zp,edelman-ch6-lemC.12-half-as-printed,"
    "edelman-ch5-lemB.1-level-weight-exponent-as-printed,shi-lemC.18-output-as-printed"
)


def test_an_exact_equality_has_the_error_zero():
    p, o = (
        [{"exact": "2/(4*p - 4)"}, {"exact": "sqrt(2)/18", "float": 0.0786}],
        [
            {"exact": "1/(2*p - 2)"},
            {"exact": "sqrt(2)/18", "float": 0.0786},
        ],
    )
    assert render._error(p, o) == {"abs": 0.0, "rel": 0.0, "n": 2}
    assert render._error({"exact": "x/2"}, {"exact": "x/3"}) is None  # symbolic and different: no number
    assert render._error({"exact": "x/2"}, 0.5) is None
    assert render.exact_equal("sqrt(6)/(18*sqrt(p)*(p - 1))", "sqrt(6)/(36*sqrt(p)*(p/2 - 1/2))")
    assert not render.exact_equal("1/(2*p)", "__import__('os')")  # never parsed


def test_errors_of_estimates_by_name_and_of_equal_shapes():
    gamma = {"exact": "1/4", "float": 0.25}
    assert render._error(gamma, {"LP primal": 0.25, "LP dual": 0.5}) == {"abs": 0.25, "rel": 1.0, "n": 2}
    pred = [gamma, {"exact": "1/2", "float": 0.5}]
    assert render._error(pred, {"primal": [0.25, 0.5], "dual": [0.25, 0.75]}) == {"abs": 0.25, "rel": 0.5, "n": 4}
    assert render._error({"a": 1, "b": [2, 3]}, {"a": 1.5, "b": [2, 3]}) == {"abs": 0.5, "rel": 0.5 / 3, "n": 3}
    assert render._error({"a": 1}, {"b": 1}) is None  # different keys: not comparable
    assert render._error([2.0], [1.0, 3.0]) == {"abs": 1.0, "rel": 0.5, "n": 2}  # one prediction against all


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("data") / "rep"
    records, _ = report.run_report(out, only=DATA, options=RunOptions(progress=False), log=lambda s: None)
    return out, records


def test_results_jsonl_is_results_json_line_by_line_and_schema_valid(run_dir):
    out, _ = run_dir
    claims = json.loads((out / "results.json").read_text())["claims"]
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {c["id"]: c for c in claims} == {c["id"]: c for c in lines}
    schema = json.loads(render.SCHEMA_PATH.read_text())
    jsonschema = pytest.importorskip("jsonschema")
    line_schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/claim"}
    validator = jsonschema.Draft202012Validator(line_schema)  # a line: the schema's claim, #/$defs/claim
    for line in lines:
        assert not list(validator.iter_errors(line)), line["id"]
    by_id = {c["id"]: c for c in claims}
    assert by_id["shi-thm4.9-margin"]["verdict"] == "pass"
    assert by_id["shi-thm4.9-margin"]["error"] == {"abs": 0.0, "rel": 0.0, "n": 11}  # 2/(4p-4) against 1/(2p-2)
    assert by_id["edelman-thm7.9-not-Zp"]["error"]["abs"] < 1e-14
    assert all(c["error"] is not None for c in claims)


def test_the_journal_writes_nonfinite_values_as_null(tmp_path):
    with Journal(tmp_path / "results.jsonl", form=render.result_record) as journal:
        journal.append({"id": "x", "predicted": 1.0, "observed": float("nan"), "details": {"y": float("inf")}})
    line = json.loads((tmp_path / "results.jsonl").read_text())  # strict JSON: no NaN literal
    assert line["observed"] is None and line["error"] is None and line["judge"] is None
    assert line["nonfinite"] == [{"path": "/observed", "value": "nan"}, {"path": "/details/y", "value": "inf"}]


def test_results_csv_has_numeric_columns_reason_and_expected_verdict(run_dir):
    out, records = run_dir
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO((out / "results.csv").read_text()))}
    assert list(next(iter(rows.values()))) == list(render.CSV_FIELDS)
    for rec in records:
        row = rows[rec["id"]]
        assert row["reason"] == " ".join(rec["reason"].split())
        assert row["expected_verdict"] == rec["metadata"]["expected_verdict"]
        assert row["predicted_text"] == render.headline(render.same_forms(rec["predicted"], rec["observed"])[0])
        err = render._error(rec["predicted"], rec["observed"])
        assert float(row["error_abs"]) == err["abs"]  # full precision: the float64 itself
    half = rows["edelman-ch6-lemC.12-half-as-printed"]
    assert (float(half["predicted"]), float(half["observed"])) == (6.0, 0.375)
    assert half["expected_verdict"] == "refuted" and float(half["error_rel"]) == 0.9375
    level = next(r for r in records if r["id"].startswith("edelman-ch5-lemB.1"))
    assert float(rows[level["id"]]["observed"]) == level["observed"]  # every digit of the float64
    assert rows["shi-thm4.9-margin"]["predicted"] == "" and rows["shi-thm4.9-margin"]["error_abs"] == "0.0"


def test_report_md_leaves_the_full_data_to_results_json_and_the_html(run_dir):
    out, records = run_dir
    md, html = (out / "report.md").read_text(), (out / "report.html").read_text()
    assert "<details>" not in md and '"counterexample"' not in md and "<details>" in html
    meta = {"scale": "quick", "device": "cpu", "generated": "now", "git_revision": "abc", "runtime_s": 1.0}
    bulky = [{**r, "details": {"trace": list(range(20_000))}, "config": {"grid": ["x" * 50] * 500}} for r in records]
    grown = len(render.render_markdown(bulky, meta, {})) - len(render.render_markdown(records, meta, {}))
    assert grown < 1_000  # the size of report.md does not follow the size of the data (the default report: < 500 KB)


def test_equal_exact_values_are_shown_in_one_form_on_both_sides(run_dir):
    _, records = run_dir
    margin = next(r for r in records if r["id"] == "shi-thm4.9-margin")
    assert margin["predicted"][0]["exact"] == "2/(4*p - 4)" and margin["observed"][0]["exact"] == "1/(2*p - 2)"
    shown_p, shown_o = render.same_forms(margin["predicted"], margin["observed"])
    assert shown_p[0]["exact"] == shown_o[0]["exact"] == "1/(2*p - 2)"  # the shorter of two equal forms
    meta = {"scale": "quick", "device": "cpu", "generated": "now", "git_revision": "abc", "runtime_s": 1.0}
    md = render.render_markdown([margin], meta, {})
    row = next(line for line in md.splitlines() if line.startswith("| [shi-thm4.9-margin]"))
    assert row.count("1/(2*p - 2)") == 2 and "4*p - 4" not in row
    html = render.render_html([margin], meta, {})
    assert html.count('aria-label="1/(2*p - 2)"') >= 2 and 'aria-label="2/(4*p - 4)"' not in html
    assert render.results_document([margin], meta)["claims"][0]["predicted"][0]["exact"] == "2/(4*p - 4)"  # data kept
    csv_row = next(csv.DictReader(io.StringIO(render.results_csv([margin]))))
    assert csv_row["predicted_text"].startswith("[1/(2*p - 2)") and csv_row["observed_text"].startswith("[1/(2*p - 2)")
    unequal = render.same_forms([{"exact": "x/2"}], [{"exact": "x/3"}])
    assert unequal == ([{"exact": "x/2"}], [{"exact": "x/3"}])


def test_exact_values_in_dictionaries_and_errata_are_drawn(run_dir):
    _, records = run_dir
    drawn = render.math_html({"isotropic_share": {"exact": "9/121", "float": 9 / 121}, "ideal": 1, "x": 2})
    assert drawn is not None and 'aria-label="9/121"' in drawn and drawn.endswith("(+1 more)")
    assert render.math_html({"a": 1, "b": 2.5}) is None  # nothing exact: the headline as text
    erratum = next(r for r in records if r["id"] == "edelman-ch6-lemC.12-half-as-printed")
    erratum = {**erratum, "counterexample": {"T": {"exact": "1/(2*log(6*exp(-10) + 2))", "float": 0.7212}, "n": 3}}
    meta = {"scale": "quick", "device": "cpu", "generated": "now", "git_revision": "abc", "runtime_s": 1.0}
    html = render.render_html([erratum], meta, {})
    start = html.index('<section id="errata-found">')
    errata = html[start : html.index("</section>", start)]
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="math"' in errata
    assert 'aria-label="1/(2*log(6*exp(-10) + 2))"' in errata
    md = render.render_markdown([erratum], meta, {})
    assert "| `T` | `1/(2*log(6*exp(-10) + 2)) ≈ 0.7212` |" in md  # ASCII in the Markdown
