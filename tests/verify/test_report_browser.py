"""The HTML report in a real browser (issues 12 and 31): headless Chromium through playwright opens ``report.html``
of a quick report built from real claim records and one planted failing claim, linked and self-contained, and
checks what a reader sees: the "needs attention" block lists every claim to act on (the planted failure with its
reason, next step, failing seed's figure and rerun command) and the summary badges lead to it; the errata section
lists every refuted claim with a working link to its corrected claim; the verdict / kind / source filters, the text
search and the column sorting work and are kept in the page's address (a reload or a shared link restores them);
the Contents counts follow the filters and no empty heading is left; every ``#claim`` link lands on its claim
(within 40 px of where it should, with lazy images); the page makes no request outside the report, every figure
loads, nothing scrolls sideways at 800 px or, as cards, at 390 px, and no number is broken across lines; exact
values are drawn as mathematics; and no two values written into a heat map's cells overlap (from the layout each
PNG records, :func:`verify.report.figures.read_layout`).

The browser is the first of: ``$TVK_CHROMIUM``, playwright's own Chromium (``playwright install chromium``), a
``chromium`` / ``chromium-browser`` / ``google-chrome`` on PATH. Without playwright or a browser the tests skip and
say which is missing.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from verify.claims import base
from verify.claims.base import Claim, Observation, register
from verify.claims.judges import Judge
from verify.report import render
from verify.report.figures import read_layout
from verify.report.run import run_report
from verify.runtime.options import RunOptions

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:  # the test extra installs it
    sync_playwright = None  # type: ignore[assignment]
    PlaywrightError = Exception  # type: ignore[assignment,misc]

#: Fast real claims (about 4 s for all at quick scale): five errata, each with its corrected claim in the run, from
#: the three theses; symbolic, numeric and training kinds; figures of every generic plot kind (lines, hist, heatmap);
#: exact symbolic values (fractions, square roots, logarithms) for the mathematics.
CLAIMS = (
    "shi-thm4.9-margin",
    "shi-thm5.5.1-g1",
    "shi-thm5.5.1-g1-optimality",
    "edelman-ch5-lemB.1-level-weight-exponent",
    "edelman-ch5-lemB.1-level-weight-exponent-as-printed",
    "edelman-ch6-thmC.16-ratio",
    "edelman-ch6-thmC.16-ratio-as-printed",
    "edelman-ch5-figB.8-sinusoid-gaps",
    "edelman-ch5-thm5.7-plateau",
    "karp-ch4-thm4.4-algebra",
    "karp-ch4-thm4.4-horizon-printed",
    "karp-ch4-fig4.1-v-step-exact",
    "karp-ch4-fig4.1-vocabulary-printed",
    "karp-ch4-fig4.1-v-step-model",
    "karp-ch4-thm4.3-gd-ordering",
)
WIDTH = 800
PHONE = 390
#: A claim made up for the test (registered while the report runs): three seeds, the third below the threshold,
#: so its verdict is fail where pass is expected; a reason holding "8.3e-17"; a dense heat map (23 x 23 cells,
#: too small for their values) and a coarse one (values written in), each with the other seeds' panels under
#: ``by_seed``; a line plot with 30 unlabelled series and two reference lines.
PLANTED = "karp-ch4-planted-failing-seed"
PLANTED_SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class _EverySeedAbove(Judge):
    def __call__(self, predicted, obs, config=None):  # type: ignore[no-untyped-def]
        rows = obs.details["per_seed"]
        bad = [
            f"seed {s}: concentration {r['top']:.4g} < {predicted}" for s, r in enumerate(rows) if r["top"] < predicted
        ]
        summary = "tops " + ", ".join(f"{r['top']:.2f}" for r in rows) + "; residual 8.3e-17"
        return ("fail", summary + "; " + "; ".join(bad)) if bad else ("pass", summary)

    def describe(self) -> str:
        return "every seed's concentration >= the predicted threshold"


def _planted_observe(config, ctx):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    tops = [0.61, 0.59, 0.3137]  # four digits, so that the search below matches no real claim by chance

    def dense(seed: int) -> list[dict]:
        return [{"title": f"head {h}, seed {seed}", "z": rng.normal(size=(23, 23)).round(3).tolist()} for h in (0, 1)]

    def coarse(seed: int) -> list[dict]:
        return [{"title": f"seed {seed}", "z": (rng.random((4, 5)) * 10.0 ** rng.integers(-3, 4)).tolist()}]

    heat = {"kind": "heatmap", "xlabel": "b", "ylabel": "a"}
    plots = [
        heat
        | {"name": "dense", "x": list(range(23)), "y": list(range(23)), "panels": dense(0), "title": "dense"}
        | {"by_seed": [{}, {"panels": dense(1)}, {"panels": dense(2)}]},
        heat
        | {"name": "coarse", "x": [10, 30, 100, 300, 1000], "y": [1, 2, 3, 4], "panels": coarse(0), "title": "coarse"}
        | {"by_seed": [{}, {"panels": coarse(1)}, {"panels": coarse(2)}]},
        {
            "name": "many",
            "kind": "lines",
            "xlabel": "step",
            "ylabel": "loss",
            "series": [{"x": [0, 1, 2], "y": rng.random(3).tolist()} for _ in range(30)],
            "hlines": [{"y": 0.5, "label": "threshold"}, {"y": 0.2, "label": "chance"}],
        },
    ]
    rows = [{"top": t} for t in tops]
    return Observation(value=tops, details={"per_seed": rows}, artifacts={"plots": plots}, seeds=PLANTED_SEEDS)


def _planted_claim() -> Claim:
    return Claim(
        id=PLANTED,
        source="Karp thesis (2024), Ch. 4, Sec. 4.9 (a claim planted by tests/verify/test_report_browser.py)",
        statement="Every seed's concentration reaches the threshold.",
        kind="numeric",
        configs={"quick": None},
        predict=lambda config: 0.5,
        observe=_planted_observe,
        judge=_EverySeedAbove(),
    )


def chromium_path() -> tuple[str | None, str]:
    """The browser to launch and, when there is none, why: ``$TVK_CHROMIUM``, playwright's own Chromium, or one
    on PATH."""
    if sync_playwright is None:
        return None, "playwright is not installed (it is in the test extra: pip install -e '.[test]')"
    env = os.environ.get("TVK_CHROMIUM")
    if env:
        return (env, "") if Path(env).is_file() else (None, f"TVK_CHROMIUM={env!r} is not a file")
    try:
        with sync_playwright() as p:
            own = p.chromium.executable_path
    except PlaywrightError:
        own = ""
    if own and Path(own).is_file():
        return own, ""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found, ""
    return None, "no Chromium: set TVK_CHROMIUM, run `playwright install chromium` or install chromium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path, why = chromium_path()
    if path is None:
        pytest.skip(why)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory, browser) -> tuple[Path, list[dict], dict]:
    """A quick report of :data:`CLAIMS`, its figures linked from ``figures/``."""
    out = tmp_path_factory.mktemp("linked")
    register(_planted_claim())
    try:
        records, meta = run_report(
            out,
            only=",".join((*CLAIMS, PLANTED)),
            options=RunOptions(device="cpu", progress=False),
            log=lambda s: None,
        )
    finally:
        base._REGISTRY.pop(PLANTED, None)
    assert sorted(r["id"] for r in records) == sorted((*CLAIMS, PLANTED))
    return out, records, meta


@pytest.fixture(scope="module", params=["linked", "self-contained"])
def report(request, tmp_path_factory, quick_report) -> dict[str, Any]:
    """The quick report's page as written (figures linked), or rendered with ``self_contained=True`` into a
    directory of its own that holds no figure files (so only an embedded figure can load)."""
    out, records, meta = quick_report
    if request.param == "self-contained":
        figures = {}
        for name in sorted(p.name for p in (out / "figures").glob("*.png")):
            cid = max((r["id"] for r in records if name.startswith(r["id"] + "-")), key=len)
            figures.setdefault(cid, []).append(name)
        register(_planted_claim())  # registered again, so that its code is found as when the report was written
        try:
            page = render.render_html(records, meta, figures, self_contained=True, figures_dir=out / "figures")
        finally:
            base._REGISTRY.pop(PLANTED, None)
        out = tmp_path_factory.mktemp("self-contained")
        (out / "report.html").write_text(page, encoding="utf-8")
    return {"out": out, "records": records, "kind": request.param, "figures": quick_report[0] / "figures"}


def _open(browser: Any, report: dict, width: int = WIDTH, query: str = "") -> Any:
    """``report.html`` (with ``query``) opened from disk in a ``width`` px window; every request that is not a local
    file is recorded and refused, every script error recorded."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    pg.outside, pg.errors = [], []

    def route(r: Any) -> None:
        if r.request.url.startswith(("file:", "data:")):
            r.continue_()
        else:
            pg.outside.append(r.request.url)
            r.abort()

    pg.route("**/*", route)
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.goto((report["out"] / "report.html").as_uri() + query)
    pg.wait_for_load_state("load")
    return pg


@pytest.fixture
def page(browser, report) -> Iterator[Any]:
    """``report.html`` in an 800 px window (see :func:`_open`)."""
    pg = _open(browser, report)
    try:
        yield pg
    finally:
        pg.context.close()


@pytest.fixture
def phone(browser, report) -> Iterator[Any]:
    """``report.html`` in a 390 px window, a phone's width (see :func:`_open`)."""
    pg = _open(browser, report, PHONE)
    try:
        yield pg
    finally:
        pg.context.close()


def _visible_rows(pg: Any) -> list[str]:
    return pg.evaluate(
        "Array.from(document.querySelectorAll('tr.claim-row')).filter(r => r.checkVisibility())"
        ".map(r => r.querySelector('code').textContent)"
    )


def test_no_request_leaves_the_report_and_every_figure_loads(page, report):
    page.evaluate("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; })")  # lazy ones too
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=20_000)
    images = page.evaluate(
        "Array.from(document.querySelectorAll('section.claim img')).map(i => [i.getAttribute('src'), i.naturalWidth])"
    )
    pngs = sorted(p.name for p in report["figures"].glob("*.png"))
    assert len(images) == len(pngs) >= 6  # every figure of the run is on the page, with its claim
    every = page.evaluate("Array.from(document.images).map(i => [i.getAttribute('src'), i.naturalWidth])")
    assert {src for src, _ in every} == {src for src, _ in images}  # the needs-attention block repeats some
    assert [src for src, width in every if width == 0] == []  # no broken image
    if report["kind"] == "self-contained":
        assert all(src.startswith("data:image/png;base64,") for src, _ in images)
    else:
        assert sorted(src for src, _ in images) == [f"figures/{n}" for n in pngs]
    page.wait_for_load_state("networkidle")
    assert page.outside == [] and page.errors == []


def test_no_horizontal_scrollbar_at_800_px(page):
    def overflowing() -> dict[str, Any]:
        return page.evaluate(
            """() => ({
              page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
              boxes: Array.from(document.querySelectorAll('.scroll, pre, td.v, #filters'))
                .filter(e => e.checkVisibility() && e.scrollWidth > e.clientWidth + 1)
                .map(e => e.tagName + '.' + e.className + ': ' + e.textContent.slice(0, 40)),
              math: Array.from(document.querySelectorAll('svg.math'))
                .filter(s => s.getBoundingClientRect().right > document.documentElement.clientWidth).length,
            })"""
        )

    state = overflowing()
    assert state["page"][0] <= state["page"][1] == WIDTH and state["boxes"] == [] and state["math"] == 0, state
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")  # the full data too
    state = overflowing()
    assert state["page"][0] <= state["page"][1] and state["boxes"] == [] and state["math"] == 0, state


def test_errata_list_every_refuted_claim_with_a_working_link_to_its_correction(page, report):
    refuted = {r["id"]: r["corrected_by"] for r in report["records"] if r["verdict"] == "refuted"}
    assert len(refuted) == 5 and all(refuted.values())
    errata = page.evaluate(
        """Array.from(document.querySelectorAll('#errata-found article.erratum')).map(a => {
             const link = a.querySelector('a.corrected');
             const target = link && document.getElementById(link.getAttribute('href').slice(1));
             return {id: a.querySelector('h3').textContent.trim(), corrected: link && link.textContent.trim(),
                     target: target && target.tagName + '#' + target.id,
                     heading: target && target.querySelector('h4 code').textContent,
                     printed: a.querySelector('blockquote.printed').textContent.trim(),
                     counterexample: a.querySelectorAll('table.ce tr').length - 1};
           })"""
    )
    assert sorted(e["id"] for e in errata) == sorted(refuted)
    for e in errata:
        assert e["corrected"] == refuted[e["id"]], e
        assert e["target"] == f"SECTION#{render._html_id(refuted[e['id']])}" and e["heading"] == e["corrected"], e
        assert e["printed"] and e["counterexample"] >= 1, e
    first = sorted(refuted)[0]
    page.click(f"#errata-found article.erratum:has(h3 a[href='#{render._html_id(first)}']) a.corrected")
    target = render._html_id(refuted[first])
    assert page.evaluate("location.hash") == f"#{target}"
    top, bar = page.evaluate(
        f"[document.getElementById('{target}').getBoundingClientRect().top,"
        " document.getElementById('filters').getBoundingClientRect().bottom]"
    )
    assert bar - 1 <= top < 900  # scrolled to the corrected claim, its heading not under the sticky filter bar


def test_filters_hide_and_show_rows(page, report):
    records = report["records"]
    doc = {r["id"]: render.group_of(r)[0] for r in records}
    order = _visible_rows(page)
    assert sorted(order) == sorted(doc) and page.text_content("#shown") == str(len(records))

    def expect(keep) -> None:
        assert _visible_rows(page) == [i for i in order if keep(next(r for r in records if r["id"] == i))]
        assert page.text_content("#shown") == str(len(_visible_rows(page)))

    page.uncheck("input[name=verdict][value=pass]")
    expect(lambda r: r["verdict"] != "pass")
    shown_errata = page.evaluate(
        "Array.from(document.querySelectorAll('article.erratum')).filter(a => a.checkVisibility()).length"
    )
    assert shown_errata == sum(r["verdict"] == "refuted" for r in records)  # errata are refuted claims: still shown
    page.uncheck("input[name=verdict][value=refuted]")
    expect(lambda r: r["verdict"] not in ("pass", "refuted"))  # the planted failure
    page.uncheck("input[name=verdict][value=fail]")
    page.uncheck("input[name=verdict][value=inconclusive]")
    expect(lambda r: False)
    assert page.evaluate("Array.from(document.querySelectorAll('section.doc')).every(s => !s.checkVisibility())")
    for verdict in render.VERDICTS:
        page.check(f"input[name=verdict][value={verdict}]")
    expect(lambda r: True)
    page.select_option("select[name=kind]", "training")
    expect(lambda r: r["kind"] == "training")
    page.select_option("select[name=kind]", "symbolic")
    expect(lambda r: r["kind"] == "symbolic")
    page.select_option("select[name=doc]", "Karp thesis (2024)")
    expect(lambda r: r["kind"] == "symbolic" and doc[r["id"]] == "Karp thesis (2024)")
    hidden_docs = page.evaluate(
        "Array.from(document.querySelectorAll('section.doc')).filter(s => !s.checkVisibility()).map(s => s.id)"
    )
    assert len(hidden_docs) == 2  # the Shi and Edelman sections go with all their rows
    page.select_option("select[name=kind]", "")
    page.select_option("select[name=doc]", "")
    expect(lambda r: True)
    assert page.errors == []


def test_exact_values_are_drawn_as_mathematics(page):
    maths = page.evaluate(
        """Array.from(document.querySelectorAll('svg.math')).map(s => ({
             title: s.querySelector('title').textContent, paths: s.querySelectorAll('path').length,
             d: s.querySelector('path').getAttribute('d').length,
             width: s.getBoundingClientRect().width, height: s.getBoundingClientRect().height}))"""
    )
    assert len(maths) >= 10
    assert all(m["paths"] == 1 and m["d"] > 20 and m["width"] > 4 and m["height"] > 8 for m in maths), maths
    titles = {m["title"] for m in maths}
    assert "-3/2" in titles and "sqrt(6)/(9*sqrt(p)*(p - 1))" in titles  # the ASCII form is the tooltip


def _attention_expected(records: list[dict]) -> set[str]:
    return {
        r["id"]
        for r in records
        if r["verdict"] in ("fail", "inconclusive") or r["verdict"] != r["metadata"].get("expected_verdict")
    }


def test_needs_attention_leads_with_the_planted_failure_and_its_command(page, report):
    blocks = page.evaluate(
        """Array.from(document.querySelectorAll('#needs-attention article.attn')).map(a => ({
             id: a.querySelector('h3 code').textContent, verdict: a.querySelector('h3 .v').textContent,
             link: a.querySelector('h3 a').getAttribute('href'), text: a.textContent,
             command: a.querySelector('code.command').textContent,
             img: a.querySelector('img') && a.querySelector('figure figcaption code').textContent}))"""
    )
    assert {b["id"] for b in blocks} == _attention_expected(report["records"]) and PLANTED in {b["id"] for b in blocks}
    planted = next(b for b in blocks if b["id"] == PLANTED)
    assert planted["verdict"] == "FAIL" and planted["link"] == f"#{render._html_id(PLANTED)}"
    assert planted["command"].startswith(f"tvk report --only '{PLANTED}' --scale quick")
    text = " ".join(planted["text"].split())
    assert "seed 2: concentration 0.3137 < 0.5" in text  # the reason
    assert "expected verdict: PASS" in text and "next step: seed 2 failed" in text and "failing seed: 2" in text
    assert "code tests/verify/test_report_browser.py:" in text  # where the claim is registered
    assert planted["img"] in (f"{PLANTED}-dense.png", f"{PLANTED}-coarse.png")  # a figure drawn for seed 2
    assert read_layout(report["figures"] / planted["img"])["seed"] == 2
    # the section sits above the filters, and the FAIL badge and the "need attention" badge lead to it
    order = page.evaluate(
        "[document.getElementById('needs-attention').getBoundingClientRect().top,"
        " document.getElementById('filters').getBoundingClientRect().top]"
    )
    assert order[0] < order[1]
    page.click(".badges a.v-fail >> nth=0")
    assert page.evaluate("location.hash") == "#needs-attention"
    links = page.evaluate("Array.from(document.querySelectorAll('.badges a')).map(a => a.getAttribute('href'))")
    assert links.count("#needs-attention") >= 3 and "#errata-found" in links
    assert page.errors == []


def _rows_by_table(pg: Any) -> list[list[str]]:
    return pg.evaluate(
        "Array.from(document.querySelectorAll('table.claims')).map(t => Array.from(t.tBodies[0].rows)"
        ".filter(r => r.checkVisibility()).map(r => r.querySelector('code').textContent))"
    )


def _state(pg: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(pg.url).query)


def test_search_sort_and_filters_are_kept_in_the_address(browser, page, report):
    records = {r["id"]: r for r in report["records"]}
    everything = _rows_by_table(page)
    page.fill("input[name=q]", "planted")
    assert [t for t in _rows_by_table(page) if t] == [[PLANTED]]
    assert page.text_content("#shown") == "1" and _state(page)["q"] == ["planted"]
    assert not page.is_visible("#errata-found")  # no erratum matches: no empty heading
    page.fill("input[name=q]", "seed 2 0.3137")  # every word must match, anywhere in the claim
    assert [t for t in _rows_by_table(page) if t] == [[PLANTED]]
    page.fill("input[name=q]", "")
    assert _rows_by_table(page) == everything and "q" not in _state(page)

    # sorting: by error, ascending then descending, within each chapter's table; claims without an error last
    page.click("table.claims th[data-key=error] button >> nth=0")
    assert _state(page)["sort"] == ["error"] and _state(page)["dir"] == ["asc"]

    def errors(pg: Any) -> list[list[float | None]]:
        return pg.evaluate(
            "Array.from(document.querySelectorAll('table.claims')).map(t => Array.from(t.tBodies[0].rows)"
            ".map(r => r.dataset.err === '' ? null : parseFloat(r.dataset.err)))"
        )

    for table in errors(page):
        known = [e for e in table if e is not None]
        assert known == sorted(known) and table[: len(known)] == known
    page.click("table.claims th[data-key=error] button >> nth=0")
    assert _state(page)["dir"] == ["desc"]
    for table in errors(page):
        known = [e for e in table if e is not None]
        assert known == sorted(known, reverse=True)
    page.select_option("select[name=sort]", "verdict:asc")  # the same choice where the header row is hidden
    rank = {"fail": 0, "inconclusive": 1, "refuted": 2, "pass": 3}
    for table in _rows_by_table(page):
        assert [rank[records[i]["verdict"]] for i in table] == sorted(rank[records[i]["verdict"]] for i in table)

    # filters and live Contents counts; the address is restored by a reload and by a shared link
    page.uncheck("input[name=verdict][value=pass]")
    page.select_option("select[name=doc]", "Karp thesis (2024)")
    state = _state(page)
    assert state["hide"] == ["pass"] and state["doc"] == ["Karp thesis (2024)"] and state["sort"] == ["verdict"]
    counts = page.evaluate(
        "Array.from(document.querySelectorAll('li.toc-chapter')).filter(l => l.checkVisibility())"
        ".map(l => l.querySelector('.count').textContent)"
    )
    karp = [r for r in records.values() if r["id"].startswith("karp-") and r["verdict"] != "pass"]
    assert counts and sum(int(c.split(" of ")[0]) for c in counts) == len(karp) == int(page.text_content("#shown"))
    assert any(" of " in c for c in counts) or all(r["verdict"] != "pass" for r in records.values())
    hidden_toc = page.evaluate(
        "Array.from(document.querySelectorAll('li.toc-doc')).filter(l => !l.checkVisibility()).length"
    )
    assert hidden_toc == 2  # the Shi and Edelman entries go with their sections
    shown = _rows_by_table(page)
    page.reload()
    page.wait_for_load_state("load")
    assert _rows_by_table(page) == shown and page.input_value("select[name=doc]") == "Karp thesis (2024)"
    assert not page.is_checked("input[name=verdict][value=pass]") and page.input_value("select[name=sort]") == (
        "verdict:asc"
    )
    shared = _open(browser, report, query="?" + urlsplit(page.url).query)
    try:
        assert _rows_by_table(shared) == shown and shared.errors == []
    finally:
        shared.context.close()
    assert page.errors == []


def _land(pg: Any, index: int) -> dict[str, Any]:
    """Click the ``index``-th in-page claim link from the top of the page and, once the lazy images it brought into
    view have loaded, where its target is against where it should land (below the sticky filter bar)."""
    pg.evaluate("window.scrollTo(0, 0)")
    href = pg.evaluate(
        f"(() => {{ const a = document.querySelectorAll('a[href^=\"#c-\"]')[{index}]; a.click();"
        " return a.getAttribute('href'); })()"
    )
    pg.wait_for_function(
        "Array.from(document.images).filter(i => { const r = i.getBoundingClientRect();"
        " return r.bottom > 0 && r.top < innerHeight; }).every(i => i.complete)",
        timeout=10_000,
    )
    pg.wait_for_timeout(50)
    return pg.evaluate(
        """href => {
             const t = document.getElementById(href.slice(1)), bar = document.getElementById('filters');
             const sticky = getComputedStyle(bar).position === 'sticky';
             return {href: href, top: t.getBoundingClientRect().top, want: sticky ? bar.getBoundingClientRect().bottom : 0,
                     bottom: Math.ceil(scrollY + innerHeight) >= document.documentElement.scrollHeight - 1,
                     height: innerHeight};
           }""",
        href,
    )


@pytest.mark.parametrize("width", [WIDTH, PHONE])
def test_every_claim_link_lands_on_its_claim(browser, report, width):
    pg = _open(browser, report, width)
    try:
        sizes = pg.evaluate(
            "Array.from(document.images).filter(i => !i.getAttribute('width') || !i.getAttribute('height')).length"
        )
        assert sizes == 0  # every image has its box before it loads
        n = pg.evaluate("document.querySelectorAll('a[href^=\"#c-\"]').length")
        assert n >= 2 * len(report["records"])  # a row's link and the attention / errata links
        off = []
        for i in range(n):
            got = _land(pg, i)
            if got["bottom"]:  # the page cannot scroll further: the target is on the screen
                ok = got["want"] - 1 <= got["top"] < got["height"]
            else:
                ok = -1 <= got["top"] - got["want"] <= 40
            if not ok:
                off.append(got)
        assert off == [] and pg.errors == []
    finally:
        pg.context.close()


def test_phone_width_shows_cards_without_sideways_scrolling(phone):
    state = phone.evaluate(
        """() => ({
             page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
             rows: Array.from(document.querySelectorAll('tr.claim-row')).map(r => getComputedStyle(r).display),
             head: Array.from(document.querySelectorAll('table.claims tr.head')).every(r => !r.checkVisibility()),
             wide: Array.from(document.querySelectorAll('section.claim, article, tr.claim-row, figure, .cmd'))
               .filter(e => e.checkVisibility() && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
               .map(e => e.tagName + '.' + e.className),
             label: getComputedStyle(document.querySelector('tr.claim-row td:nth-child(3)'), '::before').content,
           })"""
    )
    assert state["page"][0] <= state["page"][1] == PHONE, state
    assert set(state["rows"]) == {"block"} and state["head"] and state["wide"] == [], state
    assert state["label"] == '"predicted: "'
    # the letters of an id break only where the card is narrower than the id, never one per line
    lines = phone.evaluate(
        "Array.from(document.querySelectorAll('tr.claim-row td:first-child code'))"
        ".map(c => Math.round(c.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight || 16)))"
    )
    assert max(lines) <= 3, lines
    assert phone.errors == []


@pytest.mark.parametrize("width", [WIDTH, PHONE])
def test_numbers_are_never_broken(browser, report, width):
    pg = _open(browser, report, width)
    try:
        pg.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        broken = pg.evaluate(
            "Array.from(document.querySelectorAll('.nb')).filter(e => e.checkVisibility()"
            " && e.getClientRects().length > 1).map(e => e.textContent)"
        )
        assert broken == []
        planted = pg.evaluate(
            "Array.from(document.querySelectorAll('.nb')).filter(e => e.textContent === '8.3e-17')"
            ".map(e => e.getClientRects().length)"
        )
        assert planted and set(planted) <= {1}  # in the table row, the attention block and the claim
    finally:
        pg.context.close()


def _overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) + 0.5 and min(a[3], b[3]) > max(a[1], b[1]) + 0.5


def test_no_heat_map_value_overlaps_another(report):
    """From the layout each PNG of the report records: every value written into a heat map's cell is smaller than
    the cell, no two of them overlap, and a map whose cells are too small gets none."""
    layouts = {p.name: read_layout(p) for p in sorted(report["figures"].glob("*.png"))}
    panels = [(name, panel) for name, lay in layouts.items() for panel in lay["panels"]]
    assert panels, "the report has heat maps"
    assert any(p["annotated"] for _, p in panels) and any(not p["annotated"] for _, p in panels)
    dense = layouts[f"{PLANTED}-dense.png"]
    assert dense["panels"] and all(p["annotated"] == 0 for p in dense["panels"])  # 23 x 23 cells: too small
    coarse = layouts[f"{PLANTED}-coarse.png"]
    assert coarse["panels"][0]["annotated"] == 20 and len(coarse["boxes"]) == 20
    for name, lay in layouts.items():
        boxes = lay["boxes"]
        for x0, y0, x1, y1, k in boxes:
            w, h = lay["panels"][int(k)]["cell"]
            assert x1 - x0 < w and y1 - y0 < h, name
        clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if _overlap(a, b)]
        assert clashes == [], name
    assert {lay["dpi"] for lay in layouts.values()} == {220}  # twice the former 110 dpi


def test_code_docs_and_source_links(page, report):
    rows = page.evaluate(
        """Array.from(document.querySelectorAll('section.claim')).map(s => ({
             id: s.querySelector('h4 code').textContent,
             links: s.querySelector('li.links').textContent.replace(/\\s+/g, ' '),
             hrefs: Array.from(s.querySelectorAll('li.links a')).map(a => a.getAttribute('href'))}))"""
    )
    assert len(rows) == len(report["records"])
    for r in rows:
        m = re.search(r"code (\S+?\.py):(\d+)", r["links"])
        assert m, r
        path, line = m.group(1), int(m.group(2))
        source = (Path(render.__file__).parents[2] / path).read_text().splitlines()
        assert r["id"] in "\n".join(source[line - 1 : line + 12]) or "register" in source[line - 1], r
        assert "source: " in r["links"] and ("thesis" in r["links"]), r
        if r["id"] != PLANTED:
            assert "docs docs/" in r["links"], r
        if report["kind"] == "self-contained":  # a page meant to travel links to no local file
            assert all(h.startswith("https://") for h in r["hrefs"]), r
        else:
            assert r["hrefs"] and all(not h.startswith(("http:", "//")) for h in r["hrefs"]), r
