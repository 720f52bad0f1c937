"""The report renderers (verify/report/render.py): GFM tables with equal cell counts, the errata section, escaping per
format, the self-contained page, results.json against its published schema, the CSV, and the figure helpers."""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from verify.claims import RunContext, registry, run_claim
from verify.claims.judges import Population
from verify.report import render
from verify.report.figures import plot_spec_figure, remove_stale_figures, render_figures
from verify.runtime.options import RunOptions

#: Fast real claims (well under a second each at quick scale): three errata with their corrected claims, two
#: errata whose corrected claims are left out of the run, and claims with nested and list values.
REAL = (
    "shi-lem4.10-single-neuron",
    "edelman-ch6-thmC.16-ratio-as-printed",
    "edelman-D.6.2-output-as-printed",
    "edelman-thm7.7-margin",
    "edelman-ch6-lemC.12-half-as-printed",
    "edelman-ch6-lemC.12-half-closed-form",
    "shi-thm5.5.1-optimality",
    "shi-thm5.5.1-construction",
    "shi-lemC.18-output-as-printed",
    "shi-thm5.4.1-caseB",
    "shi-lemC.14-fourier-identity",
)
META = {
    "scale": "quick",
    "device": "cpu",
    "generated": "2026-01-01 00:00:00 UTC",
    "git_revision": "abc",
    "runtime_s": 1.5,
}
NASTY = "a | b with *emphasis* and _under_ `tick` <script>alert(1)</script> [x](y) \\| 2*x**2"


@pytest.fixture(scope="module")
def real_records() -> list[dict]:
    ctx = RunContext(scale="quick", options=RunOptions(progress=False))
    return [run_claim(registry()[cid], ctx).to_json() for cid in REAL]


def _crafted(base: dict) -> list[dict]:
    """Records in the exact to_json layout with every awkward value: pipes, sympy stars, markup, NaN (as float
    and as to_jsonable's string), long nested lists, a failing and an inconclusive claim, a figure and a sweep."""
    a = copy.deepcopy(base)
    a.update(
        id="karp-ch3-crafted-nasty",
        source="Karp thesis (2024), Ch. 3, " + NASTY,
        statement=NASTY,
        kind="training",
        predicted={"exact": "2*x**2 + 3*sqrt(2)", "float": 7.24},
        observed=[[0.1 * i, float("nan")] for i in range(61)],
        tolerance="|observed - predicted| <= 1e-9 * |predicted|",
        verdict="fail",
        reason="max |o - p| = 3 | 4",
        details={"x": "nan", "y": float("inf")},
        counterexample=None,
        refutes=None,
        corrected_by=None,
    )
    a["population"] = Population(p0=0.5, p_alt=0.9).record(3, 8)
    a["deviations"] = [{"parameter": "learning rate", "source": "1e-3 (Sec. 4.2)", "value": "0.1", "why": NASTY}]
    a["resolution"] = {"rel": 0.3, "why": "4 standard errors of a Monte Carlo estimate", "undetected": ""}
    a["post_hoc"] = [
        {"parameter": "min_ratio", "value": "0.9", "when": "after the first quick run", "why": "ratios | near 0.95"}
    ]
    a["metadata"] = {
        **base["metadata"],
        "seeds": [0, 1],
        "sweep": {"cells": 4, "seeds": 8, "executed": 4, "executor": "local", "stored_before": 0},
    }
    b = copy.deepcopy(base)
    b.update(
        id="edelman-crafted-inconclusive",
        verdict="inconclusive",
        predicted=None,
        observed=None,
        reason="RuntimeError: solver exploded",
        counterexample=None,
        refutes=None,
        corrected_by=None,
    )
    return [a, b]


@pytest.fixture(scope="module")
def records(real_records) -> list[dict]:
    return real_records + _crafted(real_records[-1])


def _cells(row: str) -> list[str]:
    """Split a GFM table row on unescaped pipes (a backslash escapes the next character, as in cmark-gfm's cell
    scanner, code spans included); the leading and trailing pipe are dropped."""
    cells, cur, i = [], "", 0
    row = row.strip()
    while i < len(row):
        ch = row[i]
        if ch == "\\" and i + 1 < len(row):
            cur += row[i : i + 2]
            i += 2
            continue
        if ch == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    cells.append(cur)
    if row.startswith("|"):
        cells = cells[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        cells = cells[:-1]
    return cells


def gfm_tables(markdown: str) -> list[list[list[str]]]:
    """Every GFM table of ``markdown`` (header, delimiter and body rows, each split into cells); fenced code is
    skipped."""
    tables, lines, fence = [], markdown.splitlines(), None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(`{3,})", line)
        if m and fence is None:
            fence = m.group(1)
        elif fence is not None and line.startswith(fence):
            fence = None
        elif (
            fence is None
            and line.startswith("|")
            and i + 1 < len(lines)
            and re.fullmatch(r"\|( *:?-+:? *\|)+", lines[i + 1])
        ):
            rows = [_cells(line), _cells(lines[i + 1])]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            tables.append(rows)
            continue
        i += 1
    return tables


def test_gfm_parser_detects_a_broken_row():
    broken = "| a | b |\n|---|---|\n| x | y |\n| `p|q` | z |\n"
    rows = gfm_tables(broken)[0]
    assert [len(r) for r in rows] == [2, 2, 2, 3]
    escaped = "| a | b |\n|---|---|\n| `p\\|q` | z \\| w |\n"
    assert [len(r) for r in gfm_tables(escaped)[0]] == [2, 2, 2]


def test_markdown_tables_have_equal_cell_counts(records):
    md = render.render_markdown(records, META, {})
    tables = gfm_tables(md)
    n_claim_tables = sum(1 for t in tables if len(t[0]) == 5)
    assert n_claim_tables >= 3  # one per source document and chapter
    assert sum(1 for t in tables if len(t[0]) == 2) == sum(r["verdict"] == "refuted" for r in records)
    for table in tables:
        widths = {len(row) for row in table}
        assert widths == {len(table[0])}, table
    claim_rows = [row for t in tables if len(t[0]) == 5 for row in t[2:]]
    assert len(claim_rows) == len(records)


def test_markdown_links_point_at_headings_and_rows_show_one_headline(records):
    md = render.render_markdown(records, META, {})
    headings = {
        render.gfm_slug(re.sub(r"\\(.)", r"\1", line.lstrip("#"))) for line in md.splitlines() if line.startswith("#")
    }
    targets = set(re.findall(r"\]\(#([^)]+)\)", md))
    assert targets and targets <= headings, targets - headings
    for table in gfm_tables(md):
        if len(table[0]) == 5:
            for row in table[2:]:
                assert not row[1].strip().startswith("`[[") and not row[2].strip().startswith("`[["), row
                assert len(row[2]) <= render.HEADLINE_LIMIT + 10


def test_seed_lists_are_written_as_ranges_and_keep_every_seed() -> None:
    """A record's seeds in the report: consecutive runs as ``first-last``, in the order they ran, none lost."""
    assert render.seed_ranges(list(range(64))) == "0-63"
    assert render.seed_ranges([5, 0, 1, 2, 9]) == "5, 0-2, 9"
    assert render.seed_ranges([]) == "—"
    assert render.seed_ranges(["a", 1]) == "a, 1"
    for seeds in ([3], [1, 3, 5], [*range(10, 20), 40, 41]):
        back = []
        for part in render.seed_ranges(seeds).split(", "):
            lo, _, hi = part.partition("-")
            back += list(range(int(lo), int(hi or lo) + 1))
        assert back == seeds


def test_markdown_escaping(records):
    md = render.render_markdown(records, META, {})
    assert "<script>" not in md and "\\<script\\>" in md
    assert "\\*emphasis\\*" in md and "\\_under\\_" in md
    assert "`2*x**2 + 3*sqrt(2) ≈ 7.24`" in md  # sympy's stars sit in a code span, never emphasis
    for line in md.splitlines():
        if line.startswith("|"):
            assert not re.search(
                r"(?<!\\)\*\*[^*|]+\*\*(?!\*)",
                line.replace("**PASS**", "")
                .replace("**FAIL**", "")
                .replace("**REFUTED**", "")
                .replace("**INCONCLUSIVE**", ""),
            ), line


def test_headlines_summarise_lists_and_never_leave_placeholders(records):
    nasty = next(r for r in records if r["id"] == "karp-ch3-crafted-nasty")
    text = render.headline(nasty["observed"])
    assert text.startswith("122 values (61×2) in [0, 6]") and "61 not finite" in text
    assert render.headline({"exact": "-33/10", "float": -3.3}) == "-33/10 ≈ -3.3"
    assert render.headline({"exact": "5", "float": 5.0}) == "5"
    assert render.headline(list(range(100))) == "100 values in [0, 99]"
    assert len(render.headline({"a": list(range(10**4)), "b": "x" * 10**4})) <= render.HEADLINE_LIMIT
    md = render.render_markdown(records, META, {})
    assert "[min_ratio" not in md and "{{" not in md and "}}" not in md


def test_tolerance_placeholders_are_filled_from_the_config(records):
    text = "per seed: margin ratio in [config.min_ratio, 1.000000001], purity >= config.purity, config.missing"
    cfg = {"min_ratio": 0.95, "train": {"purity": {"exact": "99/100", "float": 0.99}}}
    assert render.fill_tolerance(text, cfg) == (
        "per seed: margin ratio in [0.95, 1.000000001], purity >= 99/100 ≈ 0.99, config.missing"
    )
    rec = copy.deepcopy(records[0]) | {"tolerance": "ratio in [config.min_ratio, 1]", "config": {"min_ratio": 0.9}}
    assert render.md_escape("ratio in [0.9, 1]") in render.render_markdown([rec], META, {})
    assert "config.min_ratio" not in render.render_html([rec], META, {})
    assert render.results_document([rec], META)["claims"][0]["tolerance"] == rec["tolerance"]  # the record as run
    assert "ratio in [0.9, 1]" in render.results_csv([rec])


def test_errata_section_lists_every_refuted_claim_with_its_corrected_claim(records):
    md = render.render_markdown(records, META, {})
    errata = md.split("## Errata found", 1)[1].split("\n## ", 1)[0]
    refuted = [r for r in records if r["verdict"] == "refuted"]
    present = {r["id"] for r in records}
    assert len(refuted) == 5
    slugs = {render.gfm_slug(r["id"]) for r in records}
    for r in refuted:
        block = errata.split(f"### Erratum: {render.md_escape(r['id'])}\n", 1)[1].split("### Erratum:", 1)[0]
        assert render.md_escape(r["refutes"]) in block
        assert "| quantity | value |" in block and '{"exact"' not in block  # a table of values, not raw JSON
        if r["corrected_by"] in present:
            link = f"](#{render.gfm_slug(r['corrected_by'])})"
            assert link in block and render.gfm_slug(r["corrected_by"]) in slugs
        else:
            assert "not in this run" in block
    ce = errata.split("### Erratum: shi-thm5.5.1-optimality", 1)[1].split("### Erratum", 1)[0]
    assert "`[1, -1, -1, 1, -1]`" in ce and "-33/10, -33/10" in ce and '"float"' not in ce


def test_population_deviations_post_hoc_and_erratum_stand_next_to_the_verdict(records):
    """Issue 28, items 1 and 7: a training claim's seed population (rule, p0, n, successes, bounds, power, flip
    probabilities), every deviation and post-hoc choice, and a refuted claim's erratum (kind, quote, where) are shown
    with the verdict, in report.md and report.html; a claim without them gets no extra line (report.md stays
    compact)."""
    nasty = next(r for r in records if r["id"] == "karp-ch3-crafted-nasty")
    pop = nasty["population"]
    md = render.render_markdown(records, META, {})
    block = md.split("#### karp-ch3-crafted-nasty\n", 1)[1].split("\n#### ", 1)[0]
    line = next(x for x in block.splitlines() if x.startswith("- population: "))
    for text in ("3 of 8 seeds succeed", "p0 = 0.5", "95 % lower bound", f"[{pop['lower']:.3f}, {pop['upper']:.3f}]"):
        assert render.md_escape(text) in line, (text, line)
    assert "power" in line and "p\\_alt = 0.9" in line and "flip" in line and "plug-in" in line
    assert "- deviation: learning rate: 0.1 (source: 1e-3 (Sec. 4.2)); a \\| b" in block  # escaped like all prose
    assert "- post hoc: min\\_ratio = 0.9, chosen after the first quick run; ratios \\| near 0.95" in block
    assert "- resolution: detects an error of the prediction from 30 % on; 4 standard errors of a Monte" in block
    row = next(x for x in md.splitlines() if x.startswith("| [karp-ch3-crafted-nasty]"))
    assert row.endswith("**FAIL** (3/8 seeds; 1 deviation; 1 post hoc) |")
    plain = next(r for r in records if r["id"] == "edelman-thm7.7-margin")
    assert not plain["population"] and not plain["deviations"] and not plain["post_hoc"]
    other = md.split("#### edelman-thm7.7-margin\n", 1)[1].split("\n#### ", 1)[0]
    assert not re.search(r"^- (population|deviation|post hoc|erratum|resolution):", other, flags=re.MULTILINE)
    refuted = [r for r in records if r["verdict"] == "refuted"]
    assert refuted and all(r["erratum"] for r in refuted)
    for r in refuted:
        e = r["erratum"]
        claim_block = md.split(f"#### {render.md_escape(r['id'])}\n", 1)[1].split("\n#### ", 1)[0]
        assert f"- erratum: {render.md_escape(e['kind'])}: " in claim_block
        assert render.md_escape(e["quote"]) in claim_block and render.md_escape(e["where"]) in claim_block
        erratum = md.split(f"### Erratum: {render.md_escape(r['id'])}\n", 1)[1].split("### ", 1)[0]
        assert f"**Kind:** {render.md_escape(e['kind'])}: " in erratum
    page = render.render_html(records, META, {})
    section = page.split(f'<section class="claim" id="{render._html_id(nasty["id"])}"', 1)[1].split("</section>", 1)[0]
    assert '<li class="population">population: 3 of 8 seeds succeed' in section
    assert '<li class="deviation">deviation: learning rate' in section and "&lt;script&gt;" in section
    assert '<li class="resolution">resolution: detects an error of the prediction from' in section
    assert '<li class="post-hoc">post hoc: min_ratio = <span class="nb">0.9</span>, chosen' in section
    assert '<span class="tags muted">3/8 seeds; 1 deviation; 1 post hoc</span>' in page
    for r in refuted:
        section = page.split(f'<section class="claim" id="{render._html_id(r["id"])}"', 1)[1].split("</section>", 1)[0]
        assert f'<li class="erratum-kind">erratum: {r["erratum"]["kind"]}: ' in section
    deterministic = render.population_text(Population(deterministic=True).record(4, 4))
    assert deterministic.startswith("4 of 4 runs succeed (runs without randomness")
    assert render.resolution_text(
        {"resolution": {"rel": 1.0, "why": "a bound", "undetected": "points with slack"}}
    ) == ("detects an error of the prediction from 100 % on; a bound; not detected: points with slack")
    assert render.population_text(None) == "" and render.verdict_tags({"deviations": [], "post_hoc": []}) == ""


def test_every_markdown_heading_follows_a_blank_line(records):
    """A refuted claim's last line ('corrected statement: ...') and 'No claim of this run refutes ...' ran into the
    next heading (Jinja's trim_blocks ate the newline after an inline endif): CommonMark copes, other viewers not."""
    for recs in (records, [r for r in records if r["verdict"] != "refuted"]):
        lines = render.render_markdown(recs, META, {}).split("\n")
        glued = [(lines[i - 1], line) for i, line in enumerate(lines) if line.startswith("#") and i and lines[i - 1]]
        assert not glued, glued[:3]


def test_errata_come_first_and_claims_are_grouped_by_document_and_chapter(records):
    md = render.render_markdown(records, META, {})
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[:3] == ["## Contents", "## Needs attention", "## Errata found"]
    assert heads[3:] == ["## Shi thesis (2024)", "## Edelman thesis (2024)", "## Karp thesis (2024)"]
    assert render.group_of({"id": "shi-thm5.4.1-caseB", "source": ""})[1] == "Chapter 5"
    assert render.group_of({"id": "edelman-ch8-E.43-K2", "source": ""})[1] == "Chapter 8"
    assert render.group_of({"id": "shi-lemC.14-fourier-identity", "source": "Lemma C.14"})[1] == "Appendix C"
    assert render.group_of({"id": "karp-x", "source": "Karp thesis (2024), Ch. 3, Sec. 3.3"})[1] == "Chapter 3"
    # a paper without chapters (docs/adding-a-claim.md's example): lemma 1 is no "Chapter 1"
    assert render.group_of({"id": "mypaper-lem1-x", "source": "My paper (2025), Lemma 1"})[1] == "Other"
    # an appendix joins the chapter its claims' sources pair it with (Theorem 7.7 (App. D.6) -> Chapter 7)
    assert "#### edelman-D.6.2-output-as-printed" in md.split("### Edelman thesis, Chapter 7", 1)[1]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _page(text: str) -> _Page:
    p = _Page()
    p.feed(text)
    return p


def _figures(tmp_path: Path, records: list[dict]) -> dict[str, list[str]]:
    spec = {
        "name": "demo",
        "kind": "lines",
        "xlabel": "x",
        "ylabel": "y",
        "series": [{"label": "a", "x": [0, 1], "y": [1, 2]}],
    }
    rec = {"id": records[0]["id"], "artifacts": {"plots": [spec]}}
    return render_figures([rec], tmp_path / "figures")


def test_html_self_contained_has_no_external_resource(records, tmp_path):
    figures = _figures(tmp_path, records)
    page = render.render_html(records, META, figures, self_contained=True, figures_dir=tmp_path / "figures")
    tags = _page(page).tags
    imgs = [a["src"] for t, a in tags if t == "img"]
    assert imgs and all(src.startswith("data:image/png;base64,") for src in imgs)
    for tag, attrs in tags:
        web_link = tag == "a" and "ext" in (attrs.get("class") or "").split()  # code / docs on the repository's site
        for key in ("src", "href"):
            value = attrs.get(key) or ""
            if web_link and key == "href":
                assert value.startswith("https://"), value  # never a local file: the page is meant to travel
                continue
            assert not re.match(r"^(https?:)?//", value), (tag, value)
            if tag in ("a",) and key == "href":
                assert value.startswith("#"), value  # only in-page links
        assert not (tag == "script" and "src" in attrs)
        assert not (tag == "link" and attrs.get("rel") == "stylesheet")
    linked = render.render_html(records, META, figures)
    assert [a["src"] for t, a in _page(linked).tags if t == "img"] == [
        f"figures/{n}" for n in figures[records[0]["id"]]
    ]
    with pytest.raises(ValueError, match="figures_dir"):
        render.render_html(records, META, figures, self_contained=True)


def test_html_escaping_errata_links_filters_and_narrow_layout(records):
    page = render.render_html(records, META, {})
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    tags = _page(page).tags
    ids = {a["id"] for _, a in tags if "id" in a}
    for _, a in tags:
        if a.get("href", "").startswith("#"):
            assert a["href"][1:] in ids, a["href"]  # no dangling in-page link
    errata = page.split('id="errata-found"', 1)[1].split("</section>", 1)[0]
    for r in records:
        if r["verdict"] == "refuted":
            assert f'href="#{render._html_id(r["id"])}"' in errata
            if r["corrected_by"] in {x["id"] for x in records}:
                assert f'class="corrected" href="#{render._html_id(r["corrected_by"])}"' in errata
    rows = [a for t, a in tags if t == "tr" and a.get("class") == "claim-row"]
    assert len(rows) == len(records) and all({"data-verdict", "data-kind", "data-doc"} <= set(a) for a in rows)
    assert {t for t, a in tags if a.get("name") in ("verdict", "kind", "doc")} == {"input", "select"}
    assert "overflow-x:auto" in page and "max-width:100%" in page and 'name="viewport"' in page
    assert "<details>" in page and page.count('class="claim"') == len(records)


def test_results_document_validates_against_the_schema(records):
    schema = json.loads(render.SCHEMA_PATH.read_text())
    text = render.results_json(records, {**META, "only": "shi-*", "command_line": ["tvk", "report"]})
    assert "NaN" not in text and "Infinity" not in text
    doc = json.loads(text)
    _validate(schema, doc)
    header = doc["header"]
    assert header["schema_version"] == render.SCHEMA_VERSION and header["command_line"] == ["tvk", "report"]
    assert header["selection"] == "shi-*" and header["hardware"]["threads"] >= 1
    assert {"python", "numpy", "scipy", "sympy", "jinja2"} <= set(header["versions"])
    assert set(header["git"]) == {"revision", "dirty"}
    assert header["counts"]["refuted"] == 5 and header["counts"]["fail"] == 1
    nasty = next(c for c in doc["claims"] if c["id"] == "karp-ch3-crafted-nasty")
    assert nasty["observed"][0] == [0.0, None] and {"path": "/observed/0/1", "value": "nan"} in nasty["nonfinite"]
    assert {"path": "/details/x", "value": "nan"} in nasty["nonfinite"]
    assert {"path": "/details/y", "value": "inf"} in nasty["nonfinite"]
    caseb = next(c for c in doc["claims"] if c["id"] == "shi-thm5.4.1-caseB")
    assert caseb["judge"]["type"] == type(registry()["shi-thm5.4.1-caseB"].judge).__name__
    beta = next(c for c in doc["claims"] if c["id"] == "shi-lemC.14-fourier-identity")
    assert beta["error"] is None or beta["error"]["abs"] >= 0
    bad = copy.deepcopy(doc)
    del bad["header"]["git"]
    with pytest.raises(AssertionError, match="git"):
        _validate(schema, bad)
    bad = copy.deepcopy(doc)
    bad["claims"][0]["verdict"] = "maybe"
    with pytest.raises(AssertionError):
        _validate(schema, bad)


def test_error_field_is_the_largest_difference():
    assert render._error({"exact": "1/2", "float": 0.5}, 0.75) == {"abs": 0.25, "rel": 0.5, "n": 1}
    assert render._error(0, [1e-16, -3e-16]) == {"abs": 3e-16, "rel": None, "n": 2}
    assert render._error([1, 2], [1, 2.5]) == {"abs": 0.5, "rel": 0.25, "n": 2}
    assert render._error([1, 2], [1, 2, 3]) is None and render._error("x", 1) is None
    assert render._error(1.0, float("nan")) is None


def _validate(schema: dict, doc: dict) -> None:
    """jsonschema when installed; in any case a small structural check (required keys, types, enums, consts)."""
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
        assert not errors, "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    _mini(schema, schema, doc, "")


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _mini(root: dict, node, value, path: str) -> None:
    if node is True:
        return
    if "$ref" in node:
        target = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        _mini(root, target, value, path)
    if "type" in node:
        kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
        ok = any(
            (k == "integer" and isinstance(value, int) and not isinstance(value, bool))
            or (
                k == "number"
                and isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            )
            or (k in _TYPES and isinstance(value, _TYPES[k]))
            for k in kinds
        )
        assert ok, f"{path}: {value!r} is not {kinds}"
    if "enum" in node:
        assert value in node["enum"], f"{path}: {value!r} not in {node['enum']}"
    if "const" in node:
        assert value == node["const"], f"{path}: {value!r} != {node['const']!r}"
    if isinstance(value, dict):
        for key in node.get("required", []):
            assert key in value, f"{path}: missing {key}"
        for key, sub in node.get("properties", {}).items():
            if key in value:
                _mini(root, sub, value[key], f"{path}/{key}")
    if isinstance(value, list) and "items" in node:
        for i, item in enumerate(value):
            _mini(root, node["items"], item, f"{path}/{i}")


def test_csv_round_trip(records):
    text = render.results_csv(records)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(render.CSV_FIELDS)
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    for row, rec in zip(rows, records):
        assert row["source"] == rec["source"] and row["verdict"] == rec["verdict"] and row["kind"] == rec["kind"]
        assert row["tolerance"] == render.fill_tolerance(rec["tolerance"], rec["config"])
        assert row["predicted_text"] == render.headline(rec["predicted"])
        assert row["observed_text"] == render.headline(rec["observed"])
        assert row["reason"] == " ".join(str(rec["reason"]).split())
        assert float(row["runtime_s"]) == pytest.approx(rec["metadata"]["runtime_s"])


# ---------------------------------------------------------------------------------------------- figures


def test_figures_in_pdf_and_svg_and_stale_ones_removed(tmp_path):
    spec = {"name": "c", "kind": "hist", "xlabel": "v", "series": [{"label": "a", "values": [1, 2, 2]}]}
    made = render_figures([{"id": "x", "artifacts": {"plots": [spec]}}], tmp_path, formats=("png", "pdf", "svg"))
    assert made == {"x": ["x-c.png"]}
    assert (tmp_path / "x-c.pdf").read_bytes()[:5] == b"%PDF-"
    assert b"<svg" in (tmp_path / "x-c.svg").read_bytes()[:2000]
    for name in ("old-a.png", "old-a.pdf", "old-a.svg", "notes.txt"):
        (tmp_path / name).write_text("stale")
    assert remove_stale_figures(tmp_path, made) == ["old-a.pdf", "old-a.png", "old-a.svg"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "x-c.pdf", "x-c.png", "x-c.svg"]
    assert remove_stale_figures(tmp_path / "missing", []) == []
    with pytest.raises(ValueError, match="formats"):
        render_figures([{"id": "x", "artifacts": {"plots": [spec]}}], tmp_path, formats=("jpg",))


def test_every_axis_labelled_and_legends_for_several_series():
    hist = {"name": "h", "kind": "hist", "xlabel": "v", "series": [{"values": [1, 2]}, {"values": [2, 3]}]}
    heat = {
        "name": "m",
        "kind": "heatmap",
        "x": [1, 2],
        "y": [1],
        "xlabel": "a",
        "ylabel": "b",
        "panels": [{"z": [[0, 1]]}],
    }
    fig = plot_spec_figure("demo", hist)
    try:
        ax = fig.axes[0]
        assert ax.get_ylabel() == "count" and ax.get_legend() is not None
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["series 1", "series 2"]
    finally:
        plt.close(fig)
    fig = plot_spec_figure("demo", heat)
    try:
        assert fig.axes[-1].get_ylabel() == "value"  # the colour bar
    finally:
        plt.close(fig)


def test_fig8_1_shows_every_n_and_group_coverage_names_irreps(tmp_path, monkeypatch):
    import verify.report.figures as vf

    seen = []
    monkeypatch.setattr(vf, "_save", lambda fig, target, formats=("png",): (seen.append(fig), target.name)[1])
    curve = {"T": [0, 1, 2], "error": [1, 0.5, 0.25], "bound": [1, 0.7, 0.5]}
    rec = {"id": "f", "artifacts": {"looped_error": curve | {"n": 16}, "looped_error_by_n": {"16": curve, "32": curve}}}
    render_figures([rec], tmp_path)
    labels = [line.get_label() for line in seen[0].axes[0].get_lines()]
    assert {"n = 16, observed (mean)", "n = 32, observed (mean)", "n = 32, bound (theory)"} <= set(labels)
    group = {
        "id": "g",
        "metadata": {"seeds": [0, 1]},
        "artifacts": {"coverage": [[2, 3], [1, 4]], "irrep_names": ["sign", "standard"]},
    }
    seen.clear()
    render_figures([group], tmp_path)
    ax = seen[0].axes[0]
    assert "irreducible representation" in ax.get_xlabel() and "zeta" not in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["sign", "standard"]
    for fig in seen:
        plt.close(fig)


_DOM_STUB = """
// A minimal stand-in for the DOM calls of the page's script, built from the page's structure (DATA).
const el = (props) => Object.assign({hidden: false, dataset: {}, style: {setProperty() {}}, textContent: "",
  querySelectorAll: () => [], querySelector: () => null, addEventListener() {}}, props);
const rows = DATA.rows.map(r => el({dataset: Object.assign({}, r), tag: "tr",
  cells: [r.id, r.source, "", "", "", "", "", r.verdict].map(t => ({textContent: t})), textContent: r.id}));
const others = DATA.others.map(r => el({dataset: Object.assign({}, r)}));
const sections = others.filter(o => o.dataset.section);
const chapters = DATA.chapters.map((ids, i) => el({id: "ch" + i, rows: ids.map(j => rows[j]),
  querySelectorAll: function (sel) { if (sel === "tr.claim-row:not([hidden])") return this.rows.filter(r => !r.hidden);
    throw new Error("unexpected chapter selector " + sel); }}));
const docs = DATA.docs.map((chs, i) => el({id: "doc" + i, chapters: chs.map(j => chapters[j]),
  querySelector: function (sel) { if (sel === "section.chapter:not([hidden])") return this.chapters.find(c => !c.hidden) || null;
    throw new Error("unexpected doc selector " + sel); }}));
const tables = chapters.map(c => ({tBodies: [{rows: c.rows, appendChild() {}}], querySelectorAll: () => []}));
const articles = others.filter(o => o.dataset.erratum);
const errata = el({querySelectorAll: sel => {
  if (sel === "article.erratum") return articles;
  if (sel === "article.erratum:not([hidden])") return articles.filter(a => !a.hidden);
  throw new Error("unexpected errata selector " + sel); }});
const counts = {};
const li = (key) => counts[key] || (counts[key] = el({count: {dataset: {total: "0"}, textContent: ""},
  querySelector: function () { return this.count; }}));
const inputs = DATA.verdicts.map(v => ({value: v, checked: true}));
const form = el({elements: {kind: {value: ""}, doc: {value: ""}, q: {value: "", addEventListener() {}}, sort: {value: ""}},
  handlers: [], offsetHeight: 40, querySelectorAll: () => inputs,
  addEventListener: function (e, f) { this.handlers.push(f); }});
const shown = {textContent: ""};
const document = {
  documentElement: el({}),
  getElementById: id => ({filters: form, shown: shown, "errata-found": errata, "toc-errata": li("errata")}[id] ||
    sections.find(s => s.dataset.claim === id) || null),
  querySelector: sel => li(sel),
  querySelectorAll: sel => {
    if (sel === "[data-verdict]") return rows.concat(others);
    if (sel === "tr.claim-row") return rows;
    if (sel === "section.chapter") return chapters;
    if (sel === "section.doc") return docs;
    if (sel === "table.claims") return tables;
    if (sel === "table.claims th[data-key] button" || sel === "button.copy") return [];
    throw new Error("unexpected selector " + sel);
  },
};
const location = {search: "", hash: "", pathname: "/report.html"};
const history = {replaceState(a, b, url) { location.search = url.startsWith("?") ? url.split("#")[0] : ""; }};
const window = {addEventListener() {}};
const getComputedStyle = () => ({position: "sticky"});
"""


class _Structure(HTMLParser):
    """Claim rows (with their chapter and document), the other filtered elements of the report page (errata and
    claim sections), and its script."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self.others: list[dict] = []
        self.chapters: list[list[int]] = []
        self.docs: list[list[int]] = []
        self.script, self._in_script = "", False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("class") == "doc":
            self.docs.append([])
        if tag == "section" and a.get("class") == "chapter":
            self.docs[-1].append(len(self.chapters))
            self.chapters.append([])
        if "data-verdict" in a:
            data = {k[5:]: v for k, v in a.items() if k.startswith("data-")}
            if a.get("class") == "claim-row":
                self.chapters[-1].append(len(self.rows))
                self.rows.append(data)
            else:
                data["section"] = "1" if tag == "section" else ""
                data["erratum"] = "1" if tag == "article" else ""
                self.others.append(data)
        self._in_script = tag == "script"

    def handle_data(self, data):
        if self._in_script:
            self.script += data


def test_html_filters_hide_and_show_rows(records, tmp_path):
    """Runs the page's inline script under node against a minimal DOM stand-in built from the page (skipped
    without node): unticking a verdict or choosing a kind or source hides exactly the other rows."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the browser test covers the filters)")
    page = _Structure()
    page.feed(render.render_html(records, META, {}))
    data = {
        "rows": page.rows,
        "others": page.others,
        "chapters": page.chapters,
        "docs": page.docs,
        "verdicts": list(render.VERDICTS),
    }
    steps = """
    const visible = () => rows.filter(r => !r.hidden).map(r => [r.dataset.verdict, r.dataset.kind, r.dataset.doc].join("/"));
    const change = (name) => form.handlers[0]({target: {name: name}});
    const out = {all: visible()};
    inputs.find(i => i.value === "pass").checked = false; change("verdict");
    out.no_pass = visible(); out.shown = shown.textContent; out.url = location.search;
    inputs.forEach(i => (i.checked = true)); form.elements.kind.value = "symbolic"; change("kind");
    out.symbolic = visible();
    form.elements.kind.value = ""; form.elements.doc.value = "Karp thesis (2024)"; change("doc");
    out.karp = visible(); out.others_hidden = others.filter(o => o.hidden).length;
    out.chapters_hidden = chapters.filter(c => c.hidden).length;
    console.log(JSON.stringify(out));
    """
    script = tmp_path / "filters.js"
    script.write_text(f"const DATA = {json.dumps(data)};\n{_DOM_STUB}\n{page.script}\n{steps}")
    out = json.loads(subprocess.run([node, str(script)], capture_output=True, text=True, check=True, timeout=60).stdout)
    every = [f"{r['verdict']}/{r['kind']}/{r['doc']}" for r in page.rows]
    assert out["all"] == every and len(every) == len(records)
    assert out["no_pass"] == [v for v in every if not v.startswith("pass/")]
    assert out["shown"] == len(out["no_pass"])  # the "N shown" counter
    assert out["url"] == "?hide=pass"  # the filters are kept in the address
    assert out["symbolic"] == [v for v in every if v.split("/")[1] == "symbolic"] and out["symbolic"]
    assert out["karp"] == [v for v in every if v.endswith("/Karp thesis (2024)")] and out["karp"]
    karp_chapters = sum(any(page.rows[i]["doc"].startswith("Karp") for i in ids) for ids in page.chapters)
    assert out["chapters_hidden"] == len(page.chapters) - karp_chapters >= 1  # chapters without a shown row go
    karp_others = sum(o["doc"].startswith("Karp") for o in page.others)  # the Karp claim's own section
    assert karp_others == 1 and out["others_hidden"] == len(page.others) - karp_others


def test_needs_attention_lists_fails_inconclusives_and_unexpected_verdicts(records):
    recs = copy.deepcopy(records)
    grid = copy.deepcopy(recs[0])
    grid.update(
        id="edelman-ch6-crafted-underpowered", verdict="inconclusive", reason="frontier no larger; underpowered"
    )
    grid["metadata"] = {
        **grid["metadata"],
        "expected_verdict": "inconclusive",
        "underpowered": "6 seeds per cell and 18 width pairs give power 0.29 (< 0.8); 17 seeds per cell would reach it",
    }
    flipped = copy.deepcopy(next(r for r in recs if r["verdict"] == "refuted"))
    flipped.update(id="edelman-ch6-crafted-flip", verdict="pass", reason="printed value holds here")
    recs += [grid, flipped]
    html = render.render_html(recs, META, {})
    block = html.split('id="needs-attention"', 1)[1].split("</section>", 1)[0]
    listed = re.findall(r'<article class="attn[^"]*" id="attention-([^"]+)"', block)
    want = [
        r["id"]
        for r in recs
        if r["verdict"] in ("fail", "inconclusive")
        or r["verdict"] != r["metadata"].get("expected_verdict", r["verdict"])
    ]
    assert sorted(listed) == sorted(render._html_id(i) for i in want) and len(listed) == 4
    # an unexpected verdict (the flip from refuted to pass) comes before an expected inconclusive
    assert listed.index(render._html_id("edelman-ch6-crafted-flip")) < listed.index(
        render._html_id("edelman-ch6-crafted-underpowered")
    )
    assert "next step:</strong> 17 seeds per cell would reach it" in block  # the remedy the claim computed
    assert "declared underpowered before the run" in block
    assert "the claim crashed: fix the error" in block  # the inconclusive record's RuntimeError
    assert "tvk report --only &#39;karp-ch3-crafted-nasty&#39; --scale quick --out tvk-rerun" in block
    assert html.index('id="needs-attention"') < html.index('id="filters"') < html.index('id="errata-found"')
    assert 'href="#needs-attention"' in html.split("</p>", 1)[0]  # the badges lead to it
    md = render.render_markdown(recs, META, {})
    section = md.split("## Needs attention", 1)[1].split("\n## ", 1)[0]
    assert section.count("\n- **") == 4 and "`tvk report --only 'edelman-ch6-crafted-flip' --scale quick" in section
    assert "17 seeds per cell would reach it" in section
    assert len(section) < 4000  # short: the details are in the HTML and results.json


def test_a_variant_and_its_original_link_each_other_and_an_exploratory_fail_needs_no_attention(records):
    """docs/verdicts.md, "Variants at the source's hyper-parameters": each section names the other claim with its
    verdict; the variant's fail, declared exploratory, is not listed under "Needs attention"."""
    original = copy.deepcopy(records[0])
    original.update(id="shi-crafted-original", verdict="pass")
    variant = copy.deepcopy(records[0])
    variant.update(id="shi-crafted-original-source-hparams", verdict="fail", reason="0 of 8 seeds")
    variant["metadata"] = {
        **variant["metadata"],
        "expected_verdict": None,
        "exploratory": "reported, not presumed: the quick budget may not reach it",
        "variant_of": "shi-crafted-original",
    }
    html = render.render_html([original, variant], META, {})
    block = html.split('id="needs-attention"', 1)[1].split("</section>", 1)[0]
    assert "attention-" not in block
    assert (
        f'href="#{render._html_id("shi-crafted-original-source-hparams")}">shi-crafted-original-source-hparams</a>'
        in html
    )
    assert f'href="#{render._html_id("shi-crafted-original")}">shi-crafted-original</a> <span class="v v-pass">' in html
    assert "exploratory (reported, not presumed): reported, not presumed" in html
    md = render.render_markdown([original, variant], META, {})
    assert "- variant at the source's hyper-parameters of [shi-crafted-original](#shi-crafted-original): **PASS**" in md
    assert "- at the source's hyper-parameters: [shi-crafted-original-source-hparams]" in md


def test_numbers_and_options_never_break_and_claims_link_to_code_docs_and_source(records):
    text = str(render.nobreak_numbers("abs 8.3e-17, rel 2e-16; seed 2: 0.31 < 0.5; p = 23; use --seed-offset N"))
    assert '<span class="nb">8.3e-17</span>' in text and '<span class="nb">0.31</span>' in text
    assert "p = 23" in text and '<span class="nb">--seed-offset</span>' in text and "&lt;" in text
    assert str(render.nobreak_numbers(render.Markup("<b>x</b> ≈ 0.25"))) == '<b>x</b> ≈ <span class="nb">0.25</span>'
    loc = render.links.claim_location("shi-thm4.9-beta-sign")
    assert loc is not None and loc.path.startswith("verify/claims/") and loc.line
    lines = (render.links.REPO_ROOT / loc.path).read_text().splitlines()
    assert "register" in lines[loc.line - 1] or "shi-thm4.9-beta-sign" in lines[loc.line - 1]
    assert render.links.docs_page(loc) == "docs/modular.md"
    beta = run_claim(registry()["shi-thm4.9-beta-sign"], RunContext(options=RunOptions(progress=False))).to_json()
    html = render.render_html([*records, beta], META, {}, report_dir=render.links.REPO_ROOT / "tvk-report")
    section = html.split(f'id="{render._html_id("shi-thm4.9-beta-sign")}"', 1)[1].split("</section>", 1)[0]
    assert f'href="../{loc.path}"' in section and "docs/<wbr>modular.md" in section
    assert "source: Shi thesis (2024), Chapter 4: Theorem 4.9" in section
    assert render.links.source_parts(
        "Karp thesis (2024), Ch. 3, Lemma 3.3, p. 41", "Karp thesis (2024)", "Chapter 3"
    ) == {
        "document": "Karp thesis (2024)",
        "chapter": "Chapter 3",
        "where": "Lemma 3.3, p. 41",
        "pages": "p. 41",
    }
    # a comma inside the document's parentheses is not the end of the document (15 Ch. 6 claims read "Chapter 6:
    # Pareto frontiers), Lemma C.5 (App. C.2.2)")
    assert (
        render.links.source_parts(
            "Edelman thesis (2024) Ch. 6 / App. C.2 (Edelman et al. 2023, Pareto frontiers), Lemma C.5 (App. C.2.2)",
            "Edelman thesis (2024)",
            "Chapter 6: Pareto frontiers",
        )["where"]
        == "Lemma C.5 (App. C.2.2)"
    )
    # a source that is not a thesis loses its document's name too ("QA paper (2025): QA paper (2025), Theorem 2")
    assert render.links.source_parts("QA paper (2025), Theorem 2", "QA paper (2025)", "Other")["where"] == "Theorem 2"


def test_full_data_keeps_unicode_and_a_crash_shows_its_traceback_as_lines(real_records):
    """The full data block escaped every non-ASCII character (a statement's "∑ γ_i ≤ β²" read "\\u2211 \\u03b3_i
    ..."), and a crashed claim's traceback, which "Needs attention" points to, was one JSON string of "\\n"."""
    rec = copy.deepcopy(real_records[0])
    rec["statement"] = "∑ γ_i ≤ β²"
    rec["verdict"], rec["reason"] = "inconclusive", "ZeroDivisionError: boom"
    rec["details"] = {"traceback": 'Traceback (most recent call last):\n  File "x.py", line 1\nZeroDivisionError: boom'}
    html = render.render_html([rec], META, {})
    assert "∑ γ_i ≤ β²" in html and "\\u2211" not in html
    block = html.split("<summary>traceback (the claim crashed)</summary>", 1)[1].split("</details>", 1)[0]
    assert "\n  File &#34;x.py&#34;, line 1\nZeroDivisionError: boom</pre>" in block


def test_a_pipe_is_escaped_in_table_cells_only(real_records):
    """md_code escaped "|" everywhere; outside a GFM table a code span keeps the backslash, so the claim's section
    read "predicted: `\\|T\\| = 1: 1`"."""
    rec = copy.deepcopy(real_records[0])
    rec["predicted"] = rec["observed"] = "|T| = 1: 1"
    md = render.render_markdown([rec], META, {})
    row = next(line for line in md.splitlines() if line.startswith(f"| [{render.md_escape(rec['id'])}]"))
    assert "`\\|T\\| = 1: 1`" in row
    assert "- predicted: `|T| = 1: 1`; observed: `|T| = 1: 1`" in md


def test_a_claim_stays_in_its_chapter_whatever_the_selection():
    """An appendix claim joins the chapter its appendix belongs to by a vote; the vote was over the run's own records,
    so shi-lemC.18-output-as-printed was under "Chapter 4" in one report and "Appendix C" in another (its Contents
    entry and Markdown anchor moving with it). The vote is over every registered claim now."""
    claim = registry()["shi-lemC.18-output-as-printed"]
    rec = run_claim(claim, RunContext(scale="quick", options=RunOptions(progress=False))).to_json()
    alone = render._views([rec], "md")["claims"][0]["chapter"]
    # records whose sources would have voted Appendix C into another chapter
    decoys = [
        {**copy.deepcopy(rec), "id": f"shi-thm{k}.1-decoy", "source": "Shi thesis (2024), Theorem 9.1 (App. C.3)"}
        for k in (9, 9, 9)
    ]
    assert render._views([rec, *decoys], "md")["claims"][0]["chapter"] == alone == "Chapter 4"


def test_the_failing_seed_figure_is_found_under_a_numbered_name(records, tmp_path):
    """When a failing seed's figure gets a numbered file name (another claim's figure asked for its name first), the
    needs-attention block still shows it, not the claim's first figure."""
    lines = {"kind": "lines", "xlabel": "x", "ylabel": "y", "series": [{"x": [0, 1], "y": [0, 1]}]}
    other = copy.deepcopy(records[0]) | {"id": "qa-a", "artifacts": {"plots": [lines | {"name": "b-c"}]}}
    failing = copy.deepcopy(records[-2]) | {"id": "qa-a-b", "details": {"failed_seeds": [1]}}
    seeded = lines | {"name": "c", "by_seed": [{}, {"title": "seed 1's"}]}
    failing["artifacts"] = {"plots": [lines | {"name": "z"}, seeded]}
    figures = render_figures([other, failing], tmp_path / "figures")
    assert figures["qa-a-b"] == ["qa-a-b-z.png", "qa-a-b-c-2.png"]
    page = render.render_html([other, failing], META, figures, figures_dir=tmp_path / "figures")
    thumbs = [a["src"] for t, a in _page(page).tags if t == "img" and a.get("class") == "thumb"]
    assert thumbs == ["figures/qa-a-b-c-2.png"] and "the failing seed&#39;s figure" in page


def test_every_figure_of_a_claim_has_a_caption_and_alt_text(records, tmp_path):
    """Each claim section's figure had no <figcaption> and its file name as alt text; both now say what it shows."""
    spec = {"name": "kl", "kind": "lines", "xlabel": "step", "ylabel": "KL", "series": [{"x": [0, 1], "y": [0, 1]}]}
    rec = copy.deepcopy(records[0]) | {"artifacts": {"plots": [spec | {"title": "KL to each strategy"}]}}
    figures = render_figures([rec], tmp_path / "figures")
    page = render.render_html([rec], META, figures, figures_dir=tmp_path / "figures")
    imgs = [a for t, a in _page(page).tags if t == "img"]
    assert [a["alt"] for a in imgs] == ["KL to each strategy"]
    shown = re.findall(r"<figure>.*?</figure>", page, re.S)
    assert len(shown) == 1 and re.search(
        r"<figcaption[^>]*>KL to each strategy \(<code>[^<]+-kl\.png</code>\)", shown[0]
    )
    assert "![KL to each strategy](figures/" in render.render_markdown([rec], META, figures)


def test_a_resumed_run_says_its_runtime_is_the_last_part_only(records):
    """A run resumed from a checkpoint (metadata.resumed_from, written by verify.runtime.claim_run.note_resumed)
    timed only its last part: both formats say so next to the runtime; a run from step 0 shows the time alone."""
    rec = copy.deepcopy(records[0])
    rec["metadata"] = rec["metadata"] | {"runtime_s": 3610.3}
    assert "- runtime: 3610.3 s; seeds" in render.render_markdown([rec], META, {})
    rec["metadata"]["resumed_from"] = [{"file": "markov_transformer_0123.ckpt", "step": 30753}]
    said = "3610.3 s (resumed from a checkpoint at step 30,753: the run's last part only)"
    assert f"- runtime: {render.md_escape(said)}; seeds" in render.render_markdown([rec], META, {})
    html = render.render_html([rec], META, {})  # numbers there are kept from breaking inside a span
    assert "resumed from a checkpoint at step" in html and "the run&#39;s last part only" in html
