"""Mathematics in the HTML report (issue 12): exact symbolic values drawn offline as inline SVG by matplotlib's
mathtext (verify.report.render.math_svg / math_html), the ASCII form kept as the tooltip, escaped ASCII text whenever sympy
or mathtext cannot parse a value, and report.md unchanged (ASCII in code spans)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from verify.report import render

SVG = "{http://www.w3.org/2000/svg}"
META = {"scale": "quick", "device": "cpu", "generated": "2026-01-01 00:00:00 UTC", "git_revision": "abc"}


def _record(cid: str, predicted, observed, verdict: str = "pass") -> dict:
    return {
        "id": cid,
        "source": "Edelman thesis (2024), Lemma B.1",
        "statement": "a statement",
        "kind": "symbolic",
        "verdict": verdict,
        "reason": "agree",
        "tolerance": "exact",
        "predicted": predicted,
        "observed": observed,
        "details": {},
        "counterexample": None,
        "config": {},
        "artifacts": {},
        "metadata": {"runtime_s": 0.01, "seeds": [], "device": "cpu"},
        "refutes": None,
        "corrected_by": None,
    }


def _svg(text: str) -> ET.Element:
    return ET.fromstring(text)


def test_a_fraction_is_an_svg_of_glyph_paths_inside_its_view_box():
    text = render.math_svg("-3/2")
    assert text is not None
    svg = _svg(text)
    assert svg.tag == f"{SVG}svg" and svg.get("class") == "math" and svg.get("role") == "img"
    assert svg.findtext(f"{SVG}title") == "-3/2" == svg.get("aria-label")  # the ASCII form is its name
    (path,) = svg.findall(f"{SVG}path")
    d = path.get("d")
    assert d.startswith("M") and d.count("Z") >= 4  # the glyphs 3 and 2, the minus and the fraction bar
    x0, y0, w, h = map(float, svg.get("viewBox").split())
    coords = [float(v) for v in re.findall(r"-?\d+\.\d", d)]
    xs, ys = coords[0::2], coords[1::2]
    assert y0 == 0 and all(x0 - 0.1 <= x <= x0 + w + 0.1 for x in xs) and all(-0.1 <= y <= h + 0.1 for y in ys)
    assert max(ys) - min(ys) > 0.8 * float(svg.get("height").removesuffix("em")) * render.MATH_UNITS_PER_EM
    # a stacked fraction is taller than a line of text: 3 over 2, not 3/2 on one line
    assert float(svg.get("height").removesuffix("em")) > 1.5
    assert float(svg.get("style").split(":")[1].removesuffix("em")) < 0  # lowered below the baseline


def test_the_svg_is_cached_per_string():
    render.latex_svg.cache_clear()
    first = render.math_svg("sqrt(6)/(9*sqrt(p)*(p - 1))")
    assert render.math_svg("sqrt(6)/(9*sqrt(p)*(p - 1))") is first
    assert render.latex_svg.cache_info().hits == 1


def test_latex_from_sympy_keeps_record_names_as_symbols_and_small_fractions_in_exponents():
    assert render._math_latex("2/(4*p - 4)") == r"\dfrac{2}{4 p - 4}"
    assert render._math_latex("exp(-1/(2*n))") == r"e^{- \frac{1}{2 n}}"  # exponent fraction stays small
    assert render._math_latex("N*beta + gamma") == r"N \beta + \gamma"  # symbols, not sympy's N() or gamma()
    assert render._math_latex("x**(3/2)") == "x^{3/2}"


@pytest.mark.parametrize(
    "expr",
    [
        "lambda + 1",  # a Python keyword (sympy's lambda notation would draw it as Lambda(1)): text
        "1 +",  # incomplete
        "a < b & <script>",  # characters no sympy form has: never parsed
        "__import__(os)",  # never reaches the parser
        "x.real",  # attribute access: never reaches the parser
    ],
)
def test_what_sympy_cannot_parse_is_not_drawn(expr):
    assert render.math_svg(expr) is None
    assert render.math_html({"exact": expr}) is None


def test_what_mathtext_cannot_parse_is_not_drawn():
    assert render.latex_svg(r"\frac{1") is None
    assert render.latex_svg(r"\notacommand{x}") is None
    assert render.latex_svg(r"\dfrac{1}{2}") is not None


def test_math_html_draws_symbolic_values_and_leaves_the_rest_to_the_headline():
    half = {"exact": "1/2", "float": 0.5}
    html = str(render.math_html(half))
    assert html.count("<svg") == 1 and html.endswith(" ≈ 0.5")
    short = str(render.math_html([half, 3, {"exact": "sqrt(2)"}]))
    assert short.startswith("[<span") and short.count("<svg") == 2 and ", 3, " in short and short.endswith("]")
    long = str(render.math_html([{"exact": f"1/p{i}"} for i in range(6)]))
    assert long.count("<svg") == 2 and long.endswith(", …] (6 items)")
    for plain in (3, 0.25, {"exact": "7", "float": 7.0}, [1, 2], [half] * 6, "text", None, {"a": 0.5}):
        assert render.math_html(plain) is None, plain  # integers, numbers, numeric arrays: the headline says it
    assert str(render.math_html({"a": half})).startswith('a: <span class="math">')  # a dictionary's entries too
    assert render.math_html({"exact": "1/(" + "x + " * 12 + "1)"}) is None  # longer than a row: its float


def test_html_draws_maths_falls_back_to_escaped_text_and_markdown_is_unchanged():
    sym = {"exact": "sqrt(6)/(9*sqrt(p)*(p - 1))"}
    bad = {"exact": "a < b & c"}
    records = [
        _record("edelman-ch5-lemB.1-math", {"exact": "-3/2", "float": -1.5}, [sym, {"exact": "1/3", "float": 1 / 3}]),
        _record("edelman-ch5-lemB.1-text", bad, {"exact": "lambda + 1"}),
    ]
    page = render.render_html(records, META, {})
    row = re.search(r'<tr class="claim-row"[^>]*>.*?</tr>', page, re.S).group(0)
    cells = re.findall(r"<td>(.*?)</td>", row, re.S)
    assert cells[2].startswith('<span class="val" title="-3/2 ≈ -1.5">') and cells[2].count("<svg") == 1
    assert cells[3].count("<svg") == 2 and "<title>sqrt(6)/(9*sqrt(p)*(p - 1))</title>" in cells[3]
    text_row = re.findall(r'<tr class="claim-row"[^>]*>.*?</tr>', page, re.S)[1]
    assert "<svg" not in text_row
    assert "<code>a &lt; b &amp; c</code>" in text_row and "<code>lambda + 1</code>" in text_row
    md = render.render_markdown(records, META, {})
    assert "<svg" not in md and "svg" not in md
    for r in records:  # every Markdown row shows the ASCII headline in a code span, as before
        cells = [f"[{render.md_escape(r['id'])}](#{render.gfm_slug(r['id'])})"]
        cells += [render.md_code(render.headline(r[k]), table=True) for k in ("predicted", "observed")]
        assert "| " + " | ".join(cells) + " | " in md
