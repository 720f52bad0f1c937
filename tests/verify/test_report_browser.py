"""The HTML report in a real browser (issue 12): headless Chromium through playwright opens ``report.html`` of a
quick report built from real claim records, linked and self-contained, and checks what a reader sees: the errata
section lists every refuted claim with a working link to its corrected claim, the verdict / kind / source filters
hide and show rows, the page makes no request outside the report, every figure loads, nothing scrolls sideways in
an 800 px window, and exact values are drawn as mathematics.

The browser is the first of: ``$TVK_CHROMIUM``, playwright's own Chromium (``playwright install chromium``), a
``chromium`` / ``chromium-browser`` / ``google-chrome`` on PATH. Without playwright or a browser the tests skip and
say which is missing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify.report import render
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
    records, meta = run_report(
        out, only=",".join(CLAIMS), options=RunOptions(device="cpu", progress=False), log=lambda s: None
    )
    assert sorted(r["id"] for r in records) == sorted(CLAIMS)
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
        page = render.render_html(records, meta, figures, self_contained=True, figures_dir=out / "figures")
        out = tmp_path_factory.mktemp("self-contained")
        (out / "report.html").write_text(page, encoding="utf-8")
    return {"out": out, "records": records, "kind": request.param, "figures": quick_report[0] / "figures"}


@pytest.fixture
def page(browser, report) -> Iterator[Any]:
    """``report.html`` opened from disk in an 800 px window; every request that is not a local file is recorded
    and refused, every script error recorded."""
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
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
    pg.goto((report["out"] / "report.html").as_uri())
    pg.wait_for_load_state("load")
    try:
        yield pg
    finally:
        context.close()


def _visible_rows(pg: Any) -> list[str]:
    return pg.evaluate(
        "Array.from(document.querySelectorAll('tr.claim-row')).filter(r => r.checkVisibility())"
        ".map(r => r.querySelector('code').textContent)"
    )


def test_no_request_leaves_the_report_and_every_figure_loads(page, report):
    page.evaluate("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; })")  # lazy ones too
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=20_000)
    images = page.evaluate("Array.from(document.images).map(i => [i.getAttribute('src'), i.naturalWidth])")
    pngs = sorted(p.name for p in report["figures"].glob("*.png"))
    assert len(images) == len(pngs) >= 6  # every figure of the run is on the page
    assert [src for src, width in images if width == 0] == []  # no broken image
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
    expect(lambda r: False)
    assert page.evaluate("Array.from(document.querySelectorAll('section.doc')).every(s => !s.checkVisibility())")
    page.check("input[name=verdict][value=pass]")
    page.check("input[name=verdict][value=refuted]")
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
