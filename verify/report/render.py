"""The report files rendered from claim records: ``report.md``, ``report.html`` (jinja2 templates in
``verify/report/templates``), ``results.json`` (:func:`results_document`, validated by ``verify/report/schema/results.schema.json``)
and ``results.csv`` (:func:`results_csv`).

The records are the plain JSON dictionaries of :meth:`verify.claims.base.ClaimRecord.to_json`; nothing here runs a
claim. Both reports open with the summary counts, a **Needs attention** block (every fail and inconclusive verdict
and every verdict other than the claim's ``metadata.expected_verdict``, with its reason, the next step, the failing
seeds and the command that reruns it; the HTML adds the failing seed's figure and links to the claim's code and
docs, :mod:`verify.report.links`), with ``tvk report --compare PREV`` a **Changes since PREV** section
(:func:`changes_view` of ``meta["compare"]``, :mod:`verify.report.diff`), and an **Errata found** section (each refuted claim: the statement as printed,
its counterexample as a small table of exact values, the corrected statement and a link to the claim that holds
it), then list the claims grouped by source document and chapter, one row per claim with predicted, observed,
error and verdict (the HTML adds source, tolerance and reason; ``report.md`` leaves them to each claim's section), a
one-line headline per value and, in the HTML, the full data collapsed below (``report.md`` leaves it to ``results.json`` and the HTML, so that it stays
small enough for Markdown viewers: under 500 KB for the default report, docs/benchmarks.md).

Escaping is per format: in Markdown every value sits in a code span (so sympy's ``*`` is never emphasis) with
``|`` escaped (so every table row has the same number of cells), and prose is backslash-escaped; in HTML jinja2's
autoescaping applies. Mathematics is written in its ASCII form in the Markdown (and in ``results.json`` / CSV); in
the HTML page every exact symbolic value (a ``{"exact": ...}`` that is not a plain integer or decimal) is drawn as
mathematics by :func:`math_svg`: the ASCII form is parsed by sympy, written as LaTeX by ``sympy.latex`` and laid
out by matplotlib's mathtext into an inline SVG path (no font, script or network needed, so the page stays offline
and the self-contained file stays one file), with the ASCII form as its tooltip and accessible name. A value that
sympy or mathtext cannot parse is shown as escaped ASCII text, as before.
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import io
import json
import math
import os
import re
import shlex
import sys
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import jinja2
import sympy
from markupsafe import Markup, escape
from matplotlib.path import Path as MplPath
from matplotlib.textpath import TextPath
from sympy.parsing.sympy_parser import auto_number, auto_symbol, parse_expr

from verify.claims.base import registry
from verify.claims.external import claim_module, claims_argument
from verify.report import archive, links
from verify.report.figures import SkippedFigure, failing_seeds, seed_figures
from verify.runtime.claim_run import resumed_text
from verify.runtime.provenance import git_state, hardware, library_versions

__all__ = [
    "SCHEMA_PATH",
    "SCHEMA_VERSION",
    "VERDICTS",
    "changes_view",
    "deviation_texts",
    "erratum_text",
    "exact_equal",
    "fill_tolerance",
    "gfm_slug",
    "group_of",
    "headline",
    "latex_svg",
    "math_html",
    "math_svg",
    "md_code",
    "md_escape",
    "nobreak_numbers",
    "population_text",
    "post_hoc_texts",
    "render_html",
    "render_markdown",
    "resolution_text",
    "result_record",
    "results_csv",
    "results_document",
    "results_json",
    "same_forms",
    "seed_ranges",
    "verdict_tags",
]

#: Version of the ``results.json`` layout (``verify/report/schema/results.schema.json``).
SCHEMA_VERSION = "2.0"
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "results.schema.json"
VERDICTS = ("pass", "fail", "refuted", "inconclusive")
VERDICT_LABEL = {"pass": "PASS", "fail": "FAIL", "refuted": "REFUTED", "inconclusive": "INCONCLUSIVE"}
#: Source documents by claim-id prefix.
DOCUMENTS = {"shi": "Shi thesis (2024)", "edelman": "Edelman thesis (2024)", "karp": "Karp thesis (2024)"}
#: The columns of ``results.csv``: ``predicted``, ``observed``, ``error_abs`` and ``error_rel`` are numbers written in
#: full precision (``repr`` of the float64; empty when the value is not one number), ``*_text`` the headlines.
CSV_FIELDS = (
    "id", "source", "kind", "verdict", "expected_verdict", "predicted", "observed", "error_abs", "error_rel",
    "predicted_text", "observed_text", "tolerance", "reason", "runtime_s",
)  # fmt: skip
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "+inf": math.inf}
HEADLINE_LIMIT = 90
#: The longest reason or tolerance a row of the HTML claims table shows (the claim's section has the whole text).
ROW_TEXT_LIMIT = 110
#: Sort order of the verdicts in the HTML table (most in need of attention first).
VERDICT_RANK = {"fail": 0, "inconclusive": 1, "refuted": 2, "pass": 3}
#: A clause of a record's text that states a remedy the claim computed ("17 seeds per cell would reach it").
_REMEDY = re.compile(r"[^;()]*\b(?:would (?:reach|be needed|decide|need|suffice)|needs? at least)\b[^;()]*")
_EXCEPTION = re.compile(r"^[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b")
_SKIP = object()  # "no such value" (None is a value)
#: The characters of a claim's full data (JSON) shown collapsed under it, by format; report.md shows none (the data
#: is in results.json and report.html), so that it stays small enough for Markdown viewers (docs/benchmarks.md).
FULL_DATA_LIMIT = {"html": 8_000}


# ---------------------------------------------------------------------------------------------- value rendering


def _number(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.6g}"


def _is_exact(v: Any) -> bool:
    return isinstance(v, dict) and "exact" in v and set(v) <= {"exact", "float"}


def _scalar(v: Any) -> float | None:
    """The float of a scalar record value (number, ``{"exact", "float"}``, "nan"/"inf"), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if _is_exact(v) and isinstance(v.get("float"), (int, float)):
        return float(v["float"])
    if isinstance(v, str) and v.lower() in _NONFINITE:
        return _NONFINITE[v.lower()]
    return None


def _exact_text(v: dict) -> str:
    exact = str(v["exact"])
    fl = v.get("float")
    if re.fullmatch(r"-?\d+", exact) or not isinstance(fl, (int, float)):
        return exact
    if len(exact) > 40 or re.fullmatch(r"-?\d+\.\d*(e[-+]?\d+)?", exact):  # long, or a decimal: its float says it
        return f"≈ {_number(float(fl))}"
    return f"{exact} ≈ {_number(float(fl))}"


def _atom(v: Any) -> str:
    """A scalar (or exact number) as short text; None for anything composite."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _number(v)
    if _is_exact(v):
        return _exact_text(v)
    if isinstance(v, str):
        return v
    raise TypeError


def _flat_numbers(v: Any) -> list[float] | None:
    """All scalars of a (nested) list of numbers, or None when it holds anything else."""
    out: list[float] = []
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            stack.extend(x)
            continue
        f = _scalar(x)
        if f is None:
            return None
        out.append(f)
    return out


def _shape(v: Any) -> str:
    dims = []
    while isinstance(v, list):
        dims.append(len(v))
        v = v[0] if v else None
    return "×".join(map(str, dims))


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def headline(value: Any, limit: int = HEADLINE_LIMIT) -> str:
    """A one-line summary of a record value: scalars as numbers (exact form with its float), short lists inline,
    long or nested lists as their size and range, dictionaries as their first entries and a count; never longer
    than ``limit`` characters. The full value is in ``results.json`` and the collapsed full data."""
    try:
        return _clip(_atom(value), limit)
    except TypeError:
        pass
    if isinstance(value, list):
        if not value:
            return "[] (empty)"
        if len(value) <= 4 and all(not isinstance(v, (list, dict)) or _is_exact(v) for v in value):
            return _clip("[" + ", ".join(_atom(v) for v in value) + "]", limit)
        nums = _flat_numbers(value)
        if nums is not None:
            finite = [x for x in nums if math.isfinite(x)]
            rng = f" in [{_number(min(finite))}, {_number(max(finite))}]" if finite else ""
            bad = len(nums) - len(finite)
            shape = f" ({_shape(value)})" if isinstance(value[0], list) else ""
            return _clip(f"{len(nums)} values{shape}{rng}" + (f", {bad} not finite" if bad else ""), limit)
        more = f" ({len(value)} items)"
        return _clip("[" + ", ".join(headline(v, 40) for v in value[:2]) + ", …]", limit - len(more)) + more
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            try:
                items.append(f"{k}: {_atom(v)}")
            except TypeError:
                items.append(f"{k}: {headline(v, 40)}")
        shown = "; ".join(items[:2])
        more = f" (+{len(items) - 2} more)" if len(items) > 2 else ""
        return _clip(shown, limit - len(more)) + more
    return _clip(str(value), limit)


def _error(predicted: Any, observed: Any) -> dict[str, Any] | None:
    """The largest absolute difference between predicted and observed values and its ratio to the largest numeric
    ``|predicted|`` (``rel``; 0 when the difference is 0, None when that scale is 0), over ``n`` compared values:
    two scalars, two numeric arrays of the same size, a scalar prediction against an array or the values of a
    dictionary, lists and dictionaries of the same shape (same length, same keys) compared entry by entry, or a
    list prediction against each value of a dictionary of estimates (``{"LP primal": [...], "LP dual": [...]}``). An
    exact symbolic value (``{"exact": "1/(2*p - 2)"}``, no float) counts as 0 against an exact value equal to it
    (``2/(4*p - 4)``: :func:`exact_equal`), so an exact pass has the error 0. None when the values cannot be
    paired, are not finite, or a symbolic pair differs."""
    pairs = _pairs(predicted, observed)
    if not pairs:
        return None
    diff, scale = 0.0, 0.0
    for a, b in pairs:
        x, y = _scalar(a), _scalar(b)
        if x is not None and y is not None:
            if not (math.isfinite(x) and math.isfinite(y)):
                return None
            diff, scale = max(diff, abs(y - x)), max(scale, abs(x))
        elif not (_is_exact(a) and _is_exact(b) and exact_equal(str(a["exact"]), str(b["exact"]))):
            return None
        elif x is not None:
            scale = max(scale, abs(x))
    rel = 0.0 if diff == 0 else (diff / scale if scale else None)
    return {"abs": diff, "rel": rel, "n": len(pairs)}


def _is_leaf(v: Any) -> bool:
    """A scalar record value: a number, an exact value, or a "nan"/"inf" string."""
    return _is_exact(v) or _scalar(v) is not None


def _leaves_of(v: Any) -> list[Any] | None:
    """The scalar leaves of a (nested) list or dictionary in order, None when it holds anything else."""
    if _is_leaf(v):
        return [v]
    items = v if isinstance(v, list) else list(v.values()) if isinstance(v, dict) else None
    if not items:
        return None
    out: list[Any] = []
    for x in items:
        sub = _leaves_of(x)
        if sub is None:
            return None
        out += sub
    return out


def _pairs(p: Any, o: Any) -> list[tuple[Any, Any]] | None:
    """(predicted, observed) scalar pairs of :func:`_error`, None when the values cannot be paired."""
    if _is_leaf(p):
        leaves = _leaves_of(o)
        return None if leaves is None else [(p, x) for x in leaves]
    if isinstance(p, list) and isinstance(o, list):
        if len(p) == len(o) and p:
            out = []
            for a, b in zip(p, o):
                sub = _pairs(a, b)
                if sub is None:
                    break
                out += sub
            else:
                return out
        fp, fo = _leaves_of(p), _leaves_of(o)  # nested lists of the same size, flattened (one prediction: against all)
        if not fp or not fo or len(fp) not in (1, len(fo)):
            return None
        return list(zip(fp * len(fo) if len(fp) == 1 else fp, fo))
    if isinstance(p, dict) and isinstance(o, dict) and p and p.keys() == o.keys():
        keyed = [(p[k], o[k]) for k in p]
    elif isinstance(p, list) and isinstance(o, dict) and o:  # one prediction, several estimates of it by name
        keyed = [(p, v) for v in o.values()]
    else:
        return None
    out = []
    for a, b in keyed:
        sub = _pairs(a, b)
        if sub is None:
            return None
        out += sub
    return out


#: The longest exact form :func:`exact_equal` parses (longer ones are compared as text only).
EXACT_COMPARE_CHARS = 400


@lru_cache(maxsize=4096)
def exact_equal(a: str, b: str) -> bool:
    """Whether two exact ASCII sympy forms are the same value (``2/(4*p - 4)`` and ``1/(2*p - 2)``): equal texts, or
    both parse (the restricted parser of :func:`math_svg`) and their difference cancels (``sympy.cancel``, else
    ``sympy.simplify``) to 0. False
    when either does not parse or is longer than :data:`EXACT_COMPARE_CHARS`."""
    if a == b:
        return True
    if max(len(a), len(b)) > EXACT_COMPARE_CHARS:
        return False
    ea, eb = _parse_exact(a), _parse_exact(b)
    if ea is None or eb is None:
        return False
    try:
        diff = ea - eb
        return bool(diff == 0 or sympy.cancel(diff) == 0 or sympy.simplify(diff) == 0)  # cancel: rational, fast
    except Exception:  # a printing or simplification failure: not shown equal
        return False


def _parse_exact(expr: str) -> Any:
    """The sympy expression of an exact ASCII form (restricted parser, :func:`_math_latex`), or None."""
    if not _MATH_TEXT.fullmatch(expr) or _MATH_ATTRIBUTE.search(expr):
        return None
    try:
        return parse_expr(expr, global_dict=dict(_MATH_NAMESPACE), transformations=(auto_symbol, auto_number))
    except Exception:  # any parse failure (SyntaxError, TokenError, TypeError, ...) means "not comparable"
        return None


def record_error(r: dict) -> dict[str, Any] | None:
    """The error of record ``r`` as every output shows it (results.json, results.csv, report.md, report.html):
    :func:`_error` of its predicted and observed values, else, for a record rendered from the archive whose values
    were left out, the error archived with the full values (``metadata.archive.error``)."""
    err = _error(r.get("predicted"), r.get("observed"))
    return err if err is not None else ((r.get("metadata") or {}).get("archive") or {}).get("error")


def _error_text(err: dict | None) -> str:
    if err is None:
        return "—"
    text = f"{'max ' if err['n'] > 1 else ''}abs {err['abs']:.2g}"
    return text + (f", rel {err['rel']:.2g}" if err["rel"] is not None else "")


def _inline(v: Any) -> str:
    """A (nested) list written out with exact values (an exact number by its exact form alone)."""
    if isinstance(v, list):
        return "[" + ", ".join(_inline(x) for x in v) + "]"
    if _is_exact(v):
        return str(v["exact"])
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_inline(x)}" for k, x in v.items())
    try:
        return _atom(v)
    except TypeError:
        return headline(v, 60)


def _counterexample_rows(ce: Any, limit: int = 14) -> list[tuple[str, str]]:
    """A counterexample as (quantity, value) rows with exact values: nested dicts flattened to dotted keys (two
    levels), lists of records one row each, long lists summarised."""
    return [(key, text) for key, text, _ in _counterexample_cells(ce, limit)]


def _counterexample_cells(ce: Any, limit: int = 14) -> list[tuple[str, str, Any]]:
    """:func:`_counterexample_rows` with each row's value as recorded (``_SKIP`` for a summary row), from which the
    HTML page draws exact values as mathematics."""
    rows: list[tuple[str, str, Any]] = []

    def add(key: str, v: Any, depth: int) -> None:
        if isinstance(v, dict) and not _is_exact(v) and depth < 2:
            for k, x in v.items():
                add(f"{key}.{k}" if key else str(k), x, depth + 1)
        elif isinstance(v, list) and v and all(isinstance(x, dict) and not _is_exact(x) for x in v) and depth < 2:
            for i, x in enumerate(v[:3]):
                rows.append((f"{key}[{i}]", _clip(_inline(x), 200), x))
            if len(v) > 3:
                rows.append((f"{key}[3:]", f"{len(v) - 3} more", _SKIP))
        elif isinstance(v, list) and v:
            text = _inline(v)
            if len(text) > 160:
                text = text[:150].rsplit(",", 1)[0] + ", …]" + f" ({_shape(v)})"
            rows.append((key or "value", text, v))
        else:
            rows.append((key or "value", headline(v, 160), v))

    add("", ce, 0)
    if len(rows) > limit:
        rows = [*rows[:limit], ("…", f"{len(rows) - limit} more fields in the full data", _SKIP)]
    return rows


def _config_value(config: Any, name: str) -> Any:
    """Field ``name`` of a record's config (top level first, then one level down); ``_SKIP`` when absent."""
    if not isinstance(config, dict):
        return _SKIP
    if name in config:
        return config[name]
    for v in config.values():
        if isinstance(v, dict) and name in v:
            return v[name]
    return _SKIP


def seed_ranges(seeds: Any) -> str:
    """The seeds a record ran, with every run of consecutive integers written as ``first-last`` (``0-63`` for 64
    seeds; the record's ``metadata["seeds"]`` keeps the full list), in the order they ran; ``—`` when none.

    >>> seed_ranges([0, 1, 2, 3, 7, 9, 10])
    '0-3, 7, 9-10'
    """
    seeds = list(seeds)
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        return ", ".join(map(str, seeds)) or "—"
    runs: list[list[int]] = []
    for s in seeds:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs) or "—"


def fill_tolerance(text: str, config: Any) -> str:
    """The tolerance prose with every ``config.<field>`` a judge names replaced by the field's value in the
    record's config (a placeholder whose field is missing is left as it is)."""

    def value(m: re.Match) -> str:
        v = _config_value(config, m.group(1))
        return m.group(0) if v is _SKIP else headline(v, 40)

    return re.sub(r"\bconfig\.([A-Za-z_]\w*)", value, str(text))


# ---------------------------------------------------------------------------------------------- mathematics

#: Path units per em of the mathematics SVG (the glyph outlines are laid out at this size, then scaled by CSS).
MATH_UNITS_PER_EM = 16.0
#: The longest exact form drawn as mathematics (longer ones are shown by their float, see :func:`headline`).
MATH_MAX_CHARS = 40
#: Characters an exact form may contain to be parsed (sympy's ``str`` of a number or expression); anything else
#: (quotes, brackets, ``__``, attribute access) is shown as text and never reaches the parser.
_MATH_TEXT = re.compile(r"[A-Za-z0-9_ .+\-*/(),]+")
_MATH_ATTRIBUTE = re.compile(r"[A-Za-z_)]\s*\.|__")
#: The only names the parser resolves to sympy objects; every other name becomes a symbol (so a record's ``N``,
#: ``beta`` or ``gamma`` is a symbol, not sympy's function), and no Python builtin is reachable.
_MATH_NAMES = (
    "sqrt", "log", "exp", "factorial", "binomial", "erf", "erfc", "sin", "cos", "tan", "atan", "Abs", "sign",
    "floor", "ceiling", "Max", "Min", "pi", "E", "I", "oo", "zoo", "nan",
    "Integer", "Float", "Rational", "Symbol", "Function",
)  # fmt: skip
_MATH_NAMESPACE: dict[str, Any] = {name: getattr(sympy, name) for name in _MATH_NAMES} | {"__builtins__": {}}
_SVG_COMMAND = {MplPath.MOVETO: "M", MplPath.LINETO: "L", MplPath.CURVE3: "Q", MplPath.CURVE4: "C"}


def _math_latex(expr: str) -> str | None:
    """The LaTeX of the ASCII sympy form ``expr`` (``sympy.latex`` of the parsed expression, fractional powers
    folded, display fractions), or None when it holds characters outside sympy's printed forms or does not parse."""
    value = _parse_exact(expr)
    if value is None:
        return None
    try:
        return _display_fractions(sympy.latex(value, fold_frac_powers=True))
    except Exception:  # any parse or printing failure (SyntaxError, TokenError, TypeError, ...) means "show text"
        return None


def _display_fractions(latex: str) -> str:
    r"""``latex`` with every ``\frac`` outside a superscript or subscript written ``\dfrac`` (mathtext sets an
    inline ``\frac`` at script size, too small to read in a table row; exponents keep the small form)."""
    out, stack, i = [], [], 0  # stack: one flag per open brace, True inside a super- or subscript
    while i < len(latex):
        ch = latex[i]
        if latex.startswith("\\frac", i) and not any(stack):
            out.append("\\dfrac")
            i += 5
            continue
        if ch == "{":
            stack.append((i > 0 and latex[i - 1] in "^_") or bool(stack and stack[-1]))
        elif ch == "}" and stack:
            stack.pop()
        out.append(ch)
        i += 1
    return "".join(out)


def _path_data(path: MplPath, top: float) -> str:
    """SVG path data of a matplotlib path, its y axis flipped about ``top`` (SVG's y grows downwards)."""
    parts = []
    for vertices, code in path.iter_segments(simplify=False, curves=True):
        if code == MplPath.CLOSEPOLY:
            parts.append("Z")
            continue
        pts = vertices.reshape(-1, 2)
        parts.append(_SVG_COMMAND[code] + " ".join(f"{x:.1f} {top - y:.1f}" for x, y in pts))
    return "".join(parts)


@lru_cache(maxsize=4096)
def latex_svg(latex: str, label: str = "") -> str | None:
    """``latex`` laid out by matplotlib's mathtext as one inline ``<svg>`` (glyph outlines as a single ``<path>``,
    filled with the text colour, sized in ``em`` and lowered by its depth so it sits on the text's baseline), with
    ``label`` as its ``<title>`` and ``aria-label``; None when mathtext cannot parse ``latex``. Cached per string.
    """
    try:
        path = TextPath((0, 0), f"${latex}$", size=MATH_UNITS_PER_EM)
        box = path.get_extents()
    except (ValueError, RuntimeError, KeyError):  # mathtext's parse errors are ValueErrors
        return None
    if not len(path.vertices):
        return None
    em = MATH_UNITS_PER_EM
    x0, x1 = box.x0 - 0.05 * em, box.x1 + 0.05 * em
    y0, y1 = min(box.y0, -0.25 * em), max(box.y1, 0.8 * em)  # at least a text line's depth and height
    w, h = x1 - x0, y1 - y0
    text = escape(label)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="math" viewBox="{x0:.2f} 0 {w:.2f} {h:.2f}" '
        f'width="{w / em:.3f}em" height="{h / em:.3f}em" style="vertical-align:{y0 / em:.3f}em" role="img" '
        f'aria-label="{text}"><title>{text}</title><path fill="currentColor" d="{_path_data(path, y1)}"/></svg>'
    )


def math_svg(expr: str) -> str | None:
    """An exact ASCII sympy form (``"sqrt(6)/(9*sqrt(p)*(p - 1))"``) drawn as mathematics: an inline SVG
    (:func:`latex_svg` of ``sympy.latex``) titled with ``expr``; None when sympy or mathtext cannot parse it (the
    caller then shows ``expr`` as escaped text)."""
    latex = _math_latex(expr)
    return None if latex is None else latex_svg(latex, expr)


def _is_symbolic(v: Any) -> bool:
    """An exact value whose exact form is worth drawing: not an integer or decimal, and short enough for a row."""
    if not _is_exact(v):
        return False
    exact = str(v["exact"])
    return len(exact) <= MATH_MAX_CHARS and not re.fullmatch(r"-?\d+(\.\d*)?(e[-+]?\d+)?", exact)


def _math_atom(v: Any) -> Markup | None:
    """A scalar drawn as mathematics (with `` ≈ float`` after an exact form), None when it cannot be drawn."""
    if not _is_symbolic(v):
        return None
    svg = math_svg(str(v["exact"]))
    if svg is None:
        return None
    fl = v.get("float")
    approx = f" ≈ {_number(float(fl))}" if isinstance(fl, (int, float)) and not isinstance(fl, bool) else ""
    return Markup(f'<span class="math">{svg}</span>') + approx


def math_html(value: Any, limit: int = HEADLINE_LIMIT) -> Markup | None:
    """The HTML of a record value's :func:`headline` with its exact symbolic parts drawn as mathematics: a symbolic
    scalar; a short list (at most four scalars), or the first two items of a longer list or of a short list too
    long for one line; the first two entries of a dictionary (``key: value``, as the headline shows them); None
    when the headline holds nothing to draw (the page then shows the headline as text, as ``report.md`` does)."""
    if _is_symbolic(value):
        return _math_atom(value)
    if isinstance(value, dict) and value:
        items = list(value.items())
        more = f" (+{len(items) - 2} more)" if len(items) > 2 else ""
        parts, drawn = [], False
        for k, v in items[:2]:
            m = _math_atom(v) if _is_symbolic(v) else math_html(v, 40) if isinstance(v, (list, dict)) else None
            drawn = drawn or m is not None
            if m is None:
                try:
                    m = escape(f"{k}: {_atom(v)}")
                except TypeError:
                    m = escape(f"{k}: {headline(v, 40)}")
            else:
                m = escape(f"{k}: ") + m
            parts.append(m)
        return Markup("; ").join(parts) + more if drawn else None
    if not isinstance(value, list) or not value:
        return None
    short = len(value) <= 4 and all(not isinstance(v, (list, dict)) or _is_exact(v) for v in value)
    if short and len("[" + ", ".join(_atom(v) for v in value) + "]") <= limit:
        shown, texts, more = value, [_atom(v) for v in value], ""
    elif short or _flat_numbers(value) is None:
        shown, texts, more = value[:2], [headline(v, 40) for v in value[:2]], f" ({len(value)} items)"
    else:
        return None
    tail = ", …]" if more else "]"
    # drawn fractions are narrower than their text: a headline up to twice the text limit still fits its cell
    if not any(_is_symbolic(v) for v in shown) or len("[" + ", ".join(texts) + tail) > 2 * limit - len(more):
        return None
    parts = [_math_atom(v) or escape(t) for v, t in zip(shown, texts)]
    return Markup("[") + Markup(", ").join(parts) + tail + more


def same_forms(predicted: Any, observed: Any) -> tuple[Any, Any]:
    """``predicted`` and ``observed`` as the report shows them: each pair of exact values (paired as :func:`_error`
    pairs them) that are equal in different forms (``2/(4*p - 4)`` and ``1/(2*p - 2)``, :func:`exact_equal`) is
    written in the same form, the shorter of the two, on both sides; everything else as recorded. The records
    themselves (``results.json``) keep the forms each side computed."""
    forms: dict[int, str] = {}
    for a, b in _pairs(predicted, observed) or []:
        if _is_exact(a) and _is_exact(b):
            ta, tb = str(a["exact"]), str(b["exact"])
            if ta != tb and exact_equal(ta, tb):
                forms[id(a)] = forms[id(b)] = min(ta, tb, key=lambda t: (len(t), t))
    if not forms:
        return predicted, observed

    def rewrite(v: Any) -> Any:
        if isinstance(v, dict) and id(v) in forms:
            return {**v, "exact": forms[id(v)]}
        if isinstance(v, dict):
            return {k: rewrite(x) for k, x in v.items()}
        if isinstance(v, list):
            return [rewrite(x) for x in v]
        return v

    return rewrite(predicted), rewrite(observed)


# ---------------------------------------------------------------------------------------------- escaping


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#$])")


def md_escape(text: Any) -> str:
    """Markdown prose: backslash-escape the characters GFM would read as markup (``* _ [ ] < > | ~ # $ ` \\``);
    line breaks become spaces."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def md_code(text: Any, table: bool = False) -> str:
    """A Markdown code span: line breaks as spaces, fenced with more backticks than the text contains. In a GFM
    table cell (``table``) ``|`` is escaped (GFM removes that backslash inside table cells, code spans included);
    elsewhere it is left alone (a code span keeps a backslash: ``\\|`` would show)."""
    body = " ".join(str(text).split())
    if table:
        body = re.sub(r"\\+(?=\|)", lambda m: m.group(0) * 2, body).replace("|", "\\|")
    if not body:
        return ""
    run = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * (run + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or run else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def gfm_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation other than ``-`` and ``_`` removed, spaces as
    ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _html_id(text: str) -> str:
    return "c-" + re.sub(r"[^A-Za-z0-9_-]", "_", text)


# ---------------------------------------------------------------------------------------------- grouping


_LABEL_PREFIX = r"(?:thm|lem|fig|eq|sec|prop|cor|tab|def|fact|app)?"
_SOURCE_REF = re.compile(
    r"\b(?:Theorem|Thm\.?|Lemma|Lem\.?|Proposition|Prop\.?|Corollary|Cor\.?|Figure|Figs?\.|Section|Sec\.|Eqs?\.|"
    r"Definition|Def\.?|Fact|Table|App\.|Appendix)\s*\(?([0-9]+|[A-Z])\."
)


def _chapter(ref: str) -> tuple[str, tuple]:
    return (f"Chapter {int(ref)}", (0, int(ref), "")) if ref.isdigit() else (f"Appendix {ref}", (1, 0, ref))


def group_of(record: dict) -> tuple[str, str, tuple]:
    """(source document, chapter label, chapter sort key) of a record, from its id prefix (``shi-``, ``edelman-``,
    ``karp-``) and the chapter or result number in the id (``ch5``, ``thm4.9``, ``lemC.18``, ``appD4``), else in its
    source line ("Ch. 5", then the first "Theorem 7.7" / "App. D.4"); an appendix letter gives "Appendix C",
    nothing found gives "Other"."""
    cid, source = record["id"], str(record.get("source", ""))
    prefix, _, rest = cid.partition("-")
    doc = DOCUMENTS.get(prefix) or (source.split(",")[0].strip() or prefix)
    m = re.match(r"ch(\d+)(?:-|$)", rest) or re.search(r"\bCh\. ?(\d+)", source)
    if m:
        return doc, *_chapter(m.group(1))
    # a number is a chapter only as the head of a dotted label (thm4.9, lem4.7): `lem1` of a paper is lemma 1
    m = re.match(_LABEL_PREFIX + r"(\d+)\.", rest) or re.match(_LABEL_PREFIX + r"([A-Z])(?:\.|\d|-|$)", rest)
    m = m or _SOURCE_REF.search(source)
    if m:
        return doc, *_chapter(m.group(1))
    return doc, "Other", (2, 0, "")


def _appendix_chapters(records: list[dict]) -> dict[tuple[str, str], int]:
    """{(document, appendix letter): chapter} learned from the source lines of every registered claim and of the
    records (claims loaded from elsewhere): a claim grouped under a chapter whose source cites an appendix result
    (e.g. "Theorem 7.7 (App. D.6)") votes for that pairing. Voting over the registry, not this run's selection
    alone, keeps a claim in the same chapter (and its anchor the same) in every report."""
    registered = [{"id": c.id, "source": c.source} for c in registry().values()]
    known = {r["id"] for r in registered}
    votes: dict[tuple[str, str], Counter] = {}
    for r in registered + [r for r in records if r["id"] not in known]:
        doc, _, key = group_of(r)
        if key[0] != 0:
            continue
        for letter in set(re.findall(r"\b([A-E])\.\d", str(r.get("source", "")))):
            votes.setdefault((doc, letter), Counter())[key[1]] += 1
    return {k: c.most_common(1)[0][0] for k, c in votes.items()}


# ---------------------------------------------------------------------------------------------- view model


def _json_text(obj: Any, limit: int) -> tuple[str, bool]:
    """``obj`` as indented JSON (unicode as itself: a statement's symbols stay readable), cut at ``limit``
    characters; and whether it was cut."""
    text = json.dumps(obj, indent=1, default=str, allow_nan=True, ensure_ascii=False)
    if len(text) <= limit:
        return text, False
    return text[:limit] + "\n…", True


def _runtime_text(meta: Mapping[str, Any]) -> str:
    """A record's wall time as the report shows it, and for a run resumed from a checkpoint the step it resumed at
    (:func:`verify.runtime.claim_run.resumed_text`): the time is then the run's last part only.

    Examples
    --------
    >>> _runtime_text({"runtime_s": 3610.3, "resumed_from": [{"file": "run.ckpt", "step": 30753}]})
    "3610.3 s (resumed from a checkpoint at step 30,753: the run's last part only)"
    >>> _runtime_text({})
    '—'
    """
    if meta.get("runtime_s") is None:
        return "—"
    resumed = resumed_text(meta)
    return f"{meta['runtime_s']} s" + (f" ({resumed}: the run's last part only)" if resumed else "")


def _record_view(r: dict, fmt: str, meta_links: dict[str, Any], appendix: dict) -> dict[str, Any]:
    """One record's row for the templates (its group, texts, values and links); ``appendix`` maps an appendix to the
    chapter it belongs to (:func:`_appendix_chapters`)."""
    doc, chapter, key = group_of(r)
    if key[0] == 1 and (doc, key[2]) in appendix:  # an appendix claim joins the chapter the appendix belongs to
        n = appendix[(doc, key[2])]
        chapter, key = f"Chapter {n}", (0, n, "")
    meta = r.get("metadata") or {}
    shown = same_forms(r.get("predicted"), r.get("observed"))  # equal exact values in one form on both sides
    err = record_error(r)
    full, truncated = (
        _json_text(
            {k: r.get(k) for k in ("predicted", "observed", "details", "counterexample", "config")},
            FULL_DATA_LIMIT[fmt],
        )
        if fmt in FULL_DATA_LIMIT
        else ("", False)
    )
    return {
        **_attention_fields(r, fmt, meta_links),
        "id": r["id"],
        "slug": gfm_slug(r["id"]),
        "html_id": _html_id(r["id"]),
        "doc": doc,
        "chapter": chapter,
        "key": key,
        "source": r.get("source", ""),
        "statement": r.get("statement", ""),
        "kind": r.get("kind", ""),
        "verdict": r["verdict"],
        "label": VERDICT_LABEL.get(r["verdict"], str(r["verdict"]).upper()),
        "reason": r.get("reason", ""),
        "tolerance": fill_tolerance(r.get("tolerance", ""), r.get("config")),
        "predicted": headline(shown[0]),
        "observed": headline(shown[1]),
        "predicted_math": math_html(shown[0]) if fmt == "html" else None,
        "observed_math": math_html(shown[1]) if fmt == "html" else None,
        "error": _error_text(err),
        "error_abs": _sort_number((err or {}).get("abs")),
        "rank": VERDICT_RANK.get(r["verdict"], 9),
        "reason_row": _clip(str(r.get("reason", "")), ROW_TEXT_LIMIT),
        "tolerance_row": _clip(fill_tolerance(r.get("tolerance", ""), r.get("config")), ROW_TEXT_LIMIT),
        "runtime": _runtime_text(meta),
        "seeds": seed_ranges(meta.get("seeds") or []),
        "device": meta.get("device", "—"),
        "sweep": _sweep_text(meta["sweep"]) if meta.get("sweep") else "",
        "refutes": r.get("refutes"),
        "corrected_by": r.get("corrected_by"),
        "population": population_text(r.get("population")),
        "tags": verdict_tags(r),
        "deviations": deviation_texts(r),
        "post_hoc": post_hoc_texts(r),
        "erratum": erratum_text(r),
        "note": str(r.get("note") or ""),
        "variant_of": str(meta.get("variant_of") or ""),
        "resolution": resolution_text(r),
        "full": full,
        "full_truncated": truncated,
        "traceback": str((r.get("details") or {}).get("traceback") or "") if isinstance(r.get("details"), dict) else "",
        "fence": "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", full)), default=0)),
    }


def _errata_views(views: list[dict[str, Any]], by_id: dict[str, dict], fmt: str) -> list[dict[str, Any]]:
    """The refuted claims' errata rows: the printed statement, the counterexample's cells, the correcting claim."""
    view_by_id = {v["id"]: v for v in views}
    errata = []
    for v in views:
        if v["verdict"] != "refuted":
            continue
        cid = v["corrected_by"]
        cells = _counterexample_cells(by_id[v["id"]].get("counterexample") or {})
        errata.append(
            {
                "claim": v,
                "printed": v["refutes"] or v["statement"],
                "rows": [(key, text) for key, text, _ in cells],
                "math": [math_html(raw, 160) if fmt == "html" and raw is not _SKIP else None for _, _, raw in cells],
                "corrected_id": cid,
                "corrected": view_by_id.get(cid) if cid else None,
            }
        )
    return errata


def _group_views(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The views by document and chapter, chapters in their sources' order, with verdict counts per chapter."""
    docs: dict[str, dict[str, list]] = {}
    keys: dict[tuple[str, str], tuple] = {}
    for v in views:
        docs.setdefault(v["doc"], {}).setdefault(v["chapter"], []).append(v)
        keys[(v["doc"], v["chapter"])] = v["key"]
    return [
        {
            "doc": doc,
            "slug": gfm_slug(doc),
            "html_id": _html_id("doc-" + doc),
            "chapters": [
                {
                    "title": ch,
                    "heading": f"{doc.split(' (')[0]}, {ch}",
                    "slug": gfm_slug(f"{doc.split(' (')[0]}, {ch}"),
                    "html_id": _html_id(f"{doc}-{ch}"),
                    "claims": rows,
                    "counts": Counter(x["verdict"] for x in rows),
                }
                for ch, rows in sorted(chapters.items(), key=lambda kv: keys[(doc, kv[0])])
            ],
        }
        for doc, chapters in docs.items()
    ]


def _views(
    records: list[dict],
    fmt: str,
    report_dir: str | os.PathLike | None = None,
    local_links: bool = True,
    meta: dict | None = None,
) -> dict[str, Any]:
    """Everything the templates show, computed once: per-record rows, errata, the claims that need attention,
    groups and the table of contents. ``local_links``: links to code and docs may point at local files (not in a
    self-contained page, which is meant to travel). ``meta``: the report's metadata, whose run options the rerun
    commands repeat (:func:`rerun_options`)."""
    appendix = _appendix_chapters(records)
    meta_links = {"report_dir": report_dir, "local": local_links, "run": meta or {}}
    views = [_record_view(r, fmt, meta_links, appendix) for r in records]
    view_by_id = {v["id"]: v for v in views}
    for v in views:
        v["source_parts"] = links.source_parts(v["source"], v["doc"], v["chapter"])
        v["corrected_in_run"] = v["corrected_by"] in view_by_id
        v["corrected_html_id"] = _html_id(v["corrected_by"]) if v["corrected_by"] else ""
    _link_variants(views, view_by_id)
    attention = [v for v in views if v["attention"]]
    attention.sort(key=lambda v: (not v["unexpected"], v["rank"]))  # unexpected verdicts first, fails before the rest
    errata = _errata_views(views, {r["id"]: r for r in records}, fmt)
    return {"claims": views, "errata": errata, "groups": _group_views(views), "attention": attention}


def _sort_number(x: Any) -> str:
    return repr(float(x)) if isinstance(x, (int, float)) and math.isfinite(x) else ""


def _link_variants(views: list[dict[str, Any]], view_by_id: dict[str, dict[str, Any]]) -> None:
    """Link each variant at the source's hyper-parameters (``metadata.variant_of``) and its original both ways, with
    the other's verdict: ``v["variant_link"]`` (the original, on the variant) and ``v["variant_links"]`` (the
    variants, on the original); each link is ``{"id", "label", "verdict", "html_id", "slug", "in_run"}``."""

    def link(cid: str) -> dict[str, Any]:
        other = view_by_id.get(cid)
        return {
            "id": cid,
            "label": other["label"] if other else "not in this run",
            "verdict": other["verdict"] if other else "",
            "html_id": _html_id(cid),
            "slug": gfm_slug(cid),
            "in_run": other is not None,
        }

    for v in views:
        v["variant_link"] = link(v["variant_of"]) if v["variant_of"] else None
        v["variant_links"] = [link(w["id"]) for w in views if w["variant_of"] == v["id"]]


def rerun_options(run: dict, r: dict) -> str:
    """The options of the run of record ``r`` that its rerun command must repeat to reproduce it: ``--device cuda``
    when it ran on a GPU, and the report's ``--seed-offset``, ``--dtype`` and ``--ignore-memory-check`` (``run``:
    the report's metadata; a report rendered from the archive has none of them and adds nothing)."""
    parts = []
    if str((r.get("metadata") or {}).get("device") or "").startswith("cuda"):
        parts.append("--device cuda")
    if run.get("seed_offset"):
        parts.append(f"--seed-offset {int(run['seed_offset'])}")
    if run.get("dtype"):
        parts.append(f"--dtype {run['dtype']}")
    if run.get("ignore_memory_check"):
        parts.append("--ignore-memory-check")
    return "".join(f" {p}" for p in parts)


def _attention_fields(r: dict, fmt: str, ctx: dict[str, Any]) -> dict[str, Any]:
    """What the "needs attention" block and the claim's links show of record ``r``: the expected verdict, whether
    the claim needs attention (a fail, an inconclusive, or a verdict other than the expected one), the next step,
    the failing seeds, the command that reruns the claim, and where its code and docs are."""
    meta = r.get("metadata") or {}
    verdict, expected = r["verdict"], meta.get("expected_verdict")
    unexpected = expected is not None and verdict != expected
    claim = registry().get(r["id"])
    location = links.claim_location(r["id"], claim) if claim is not None else None
    docs = links.docs_page(location, str(r.get("source", "")), r["id"])
    seeds = list(meta.get("seeds") or [])
    failed = [seeds[i] if i < len(seeds) else i for i in failing_seeds(r)]
    scale = r.get("scale") or "quick"
    command = f"tvk report --only '{r['id']}' --scale {scale} --out tvk-rerun{rerun_options(ctx.get('run') or {}, r)}"
    loaded_from = claims_argument(r["id"])  # the file or module --claims loaded it from (None: a built-in claim)
    module = claim_module(claim) if claim is not None else None
    if loaded_from is not None:
        command += f" --claims {shlex.quote(loaded_from)}"
    elif module and not module.startswith("verify.") and module != "__main__":  # defined outside verify/
        command += f" --claims {module}"
    revision = meta.get("git_revision")
    return {
        "expected": expected,
        "expected_label": VERDICT_LABEL.get(expected, str(expected).upper()) if expected else "",
        "unexpected": unexpected,
        "underpowered": str(meta.get("underpowered") or ""),
        "exploratory": str(meta.get("exploratory") or ""),
        "attention": (verdict in ("fail", "inconclusive") or unexpected) and not meta.get("exploratory"),
        "failed_seeds": ", ".join(map(str, failed)),
        "stale": archived_staleness(r) or "",
        "gave": "the archived record gave" if meta.get("archive") else "this run gave",
        "next_step": _next_step(r, claim, failed, unexpected),
        "command": command,
        "code": location.text if location else "",
        "code_href": _href(location.path, location.line, revision, ctx, fmt) if location else None,
        "docs": docs or "",
        "docs_href": _href(docs, None, revision, ctx, fmt) if docs else None,
    }


def _href(path: str, line: int | None, revision: str | None, ctx: dict[str, Any], fmt: str) -> str | None:
    """The link of a code or docs path in the HTML page (:func:`verify.report.links.file_href`); only a web link
    when local files are not wanted; None in Markdown."""
    if fmt != "html":
        return None
    href = links.file_href(path, line, revision, ctx["report_dir"])
    return href if href and (ctx["local"] or href.startswith("https://")) else None


def _remedy(r: dict) -> str:
    """The remedy a claim computed and wrote into its record (``details["remedy"]``, else a clause of
    ``metadata.underpowered`` or of the reason that says what would decide it), or ""."""
    details = r.get("details") if isinstance(r.get("details"), dict) else {}
    if isinstance(details.get("remedy"), str) and details["remedy"].strip():
        return details["remedy"].strip()
    for text in ((r.get("metadata") or {}).get("underpowered"), r.get("reason")):
        m = _REMEDY.search(str(text or ""))
        if m:
            return m.group(0).strip()
    return ""


def _next_step(r: dict, claim: Any, failed: list, unexpected: bool) -> str:
    """What would decide or fix a claim that needs attention: the remedy the claim computed, else what to rerun
    (the thesis's scale, other seeds) or what to check; "" for a claim that needs none."""
    verdict = r["verdict"]
    if verdict not in ("fail", "inconclusive") and not unexpected:
        return ""
    remedy = _remedy(r)
    scale = r.get("scale") or "quick"
    full = claim is not None and "full" in claim.configs and scale != "full"
    if remedy:
        return remedy + ("; or decide it at the thesis's setting with --scale full (meant for a GPU)" if full else "")
    if _EXCEPTION.match(str(r.get("reason", ""))):
        return "the claim crashed: fix the error (its traceback is with the claim, and in results.json), then rerun it"
    steps = []
    if failed:
        steps.append(
            f"seed {failed[0]} failed: rerun with --seed-offset N (other seeds) to tell a bad seed from a wrong claim"
        )
    if full:
        steps.append("decide it at the thesis's setting with --scale full (meant for a GPU)")
    if not steps and verdict == "inconclusive":
        steps.append("the check could not decide: read the reason, then rerun it with more budget or seeds")
    if unexpected and verdict in ("pass", "refuted"):
        steps.append(
            f"the verdict differs from the expected {r['metadata'].get('expected_verdict')}: check the claim's "
            "declaration (refutes / underpowered) against this result"
        )
    if not steps:
        steps.append("compare the prediction with the source and the claim's code: the statement or its derivation")
    return "; ".join(steps)


def _pct(x: Any) -> str:
    """A probability as a short percentage ("0.3 %", "< 0.01 %", "100 %")."""
    if not isinstance(x, (int, float)) or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0 %"
    if x < 1e-4:
        return "< 0.01 %"
    return f"{100 * x:.3g} %"


def population_text(pop: dict | None) -> str:
    """A training claim's seed-population verdict in one line (docs/verdicts.md): the rule, the seeds that
    succeeded, the exact bounds, the power before the run and the probability that fresh seeds flip the verdict;
    "" when the record has none."""
    if not isinstance(pop, dict) or "n" not in pop:
        return ""
    n, k = pop.get("n"), pop.get("successes")
    if pop.get("deterministic"):
        return f"{k} of {n} runs succeed (runs without randomness, judged once each: pass iff every run succeeds)"
    conf = pop.get("confidence")
    level = f"{100 * conf:.3g} %" if isinstance(conf, (int, float)) else "?"
    lo, hi = pop.get("lower"), pop.get("upper")
    bounds = f"[{lo:.3f}, {hi:.3f}]" if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) else "—"
    return (
        f"{k} of {n} seeds succeed; rule: rate >= p0 = {pop.get('p0')}, pass iff the exact {level} lower bound is "
        f"at least p0, fail iff the upper bound is below it; bounds {bounds}; power {_pct(pop.get('power'))} "
        f"against p_alt = {pop.get('p_alt')} (at least {_pct(pop.get('min_power'))} required); fresh seeds flip the "
        f"verdict with probability {_pct(pop.get('flip_probability'))} (plug-in {_pct(pop.get('flip_probability_plugin'))})"
    )


def verdict_tags(r: dict) -> str:
    """What the claims table shows next to a verdict: "stale" for an archived record whose claim changed since
    (``metadata.archive.stale``), the seeds that succeeded (a training claim's population), and how many deviations
    and post-hoc choices the verdict rests on ("" when none)."""
    tags = ["stale"] if archived_staleness(r) else []
    pop = r.get("population")
    if isinstance(pop, dict) and "n" in pop:
        tags.append(f"{pop.get('successes')}/{pop.get('n')} {'runs' if pop.get('deterministic') else 'seeds'}")
    for key, one, many in (("deviations", "deviation", "deviations"), ("post_hoc", "post hoc", "post hoc")):
        k = len(r.get(key) or [])
        if k:
            tags.append(f"{k} {one if k == 1 else many}")
    return "; ".join(tags)


def archived_staleness(r: dict) -> str | None:
    """Why the archived record ``r`` (rendered from the archive) no longer describes its claim
    (``metadata.archive.stale``: :func:`verify.report.archive.staleness`); None for a current or a live record."""
    stale = ((r.get("metadata") or {}).get("archive") or {}).get("stale")
    return str(stale) if stale else None


def _dicts(items: Any, keys: tuple[str, ...]) -> list[dict[str, str]]:
    """The entries of a record's list field that are dicts, with ``keys`` as strings ("" where missing)."""
    if not isinstance(items, list):
        return []
    return [{k: str(it.get(k, "") or "") for k in keys} for it in items if isinstance(it, dict)]


def deviation_texts(r: dict) -> list[str]:
    """Each deviation of the record from its source, in one line: parameter, the source's value, this value, why."""
    return [
        f"{d['parameter']}: {d['value']} (source: {d['source']}); {d['why']}"
        for d in _dicts(r.get("deviations"), ("parameter", "source", "value", "why"))
    ]


def post_hoc_texts(r: dict) -> list[str]:
    """Each post-hoc choice of the record in one line: parameter = value, when it was chosen, why."""
    return [
        f"{p['parameter']} = {p['value']}, chosen {p['when']}; {p['why']}"
        for p in _dicts(r.get("post_hoc"), ("parameter", "value", "when", "why"))
    ]


def erratum_text(r: dict) -> str:
    """A refuted record's erratum in one line: its kind, the quoted source text and where it stands; "" if none."""
    e = r.get("erratum")
    if not isinstance(e, dict) or not e.get("kind"):
        return ""
    return f"{e['kind']}: “{e.get('quote', '')}” ({e.get('where', '')})"


def resolution_text(r: dict) -> str:
    """A claim's declared resolution (the smallest relative error of its prediction its verdict detects), or ""."""
    res = r.get("resolution")
    if not isinstance(res, dict) or not isinstance(res.get("rel"), (int, float)):
        return ""
    text = f"detects an error of the prediction from {_pct(res['rel'])} on; {res.get('why', '')}".rstrip("; ")
    return text + (f"; not detected: {res['undetected']}" if res.get("undetected") else "")


def _sweep_text(sweep: dict) -> str:
    """How many cells a grid claim's verdict rests on, and where they came from."""
    text = (
        f"verdict rests on {sweep.get('cells')} cells ({sweep.get('seeds')} seed runs); {sweep.get('executed')} run "
        f"now on {sweep.get('executor')}, {sweep.get('stored_before')} from the results store"
    )
    if sweep.get("shard"):
        text += f"; shard {sweep['shard']}"
    return text + ("" if sweep.get("complete", True) else "; incomplete")


def _meta_view(records: list[dict], meta: dict) -> dict[str, Any]:
    counts = Counter(r["verdict"] for r in records)
    runtime = meta.get("runtime_s")
    return {
        "scale": f"{meta['scale']} ({meta['scale_note']})" if meta.get("scale_note") else meta.get("scale", "—"),
        "device": meta.get("device", "—"),
        "generated": meta.get("generated", "—"),
        "git_revision": meta.get("git_revision") or "unknown",
        "runtime": f"{runtime:.1f} s" if isinstance(runtime, (int, float)) else "—",
        "train_dtype": meta.get("train_dtype", "default"),
        "ignore_memory_check": bool(meta.get("ignore_memory_check")),
        "selection": meta.get("only") or "all claims",
        "n": len(records),
        "counts": [(VERDICT_LABEL[k], k, counts.get(k, 0)) for k in VERDICTS],
        "kinds": sorted({r.get("kind", "") for r in records}),
        "figure_formats": [f for f in meta.get("figure_formats", ()) if f != "png"],
    }


#: The most findings the "Changes since" section lists (the rest: ``tvk diff PREV OUT``).
CHANGES_LIMIT = 60
_CHANGE_ORDER = ("scale", "verdict", "exact", "shape", "drift", "error", "runtime", "added", "removed")


def _change_error_text(err: Any) -> str:
    """An ``error`` field of either run in short words (a previous run's may have any form)."""
    if isinstance(err, dict) and isinstance(err.get("abs"), (int, float)):
        return _error_text({"abs": err["abs"], "rel": err.get("rel"), "n": err.get("n") or 1})
    return "—" if err is None else _clip(str(err), 60)


def _change_value(v: Any) -> str:
    return headline(v, 60) if not isinstance(v, str) else _clip(v, 60)


def changes_view(meta: dict) -> dict[str, Any] | None:
    """What the "Changes since PREV" section shows (``tvk report --compare PREV``): the findings of
    :func:`verify.report.diff.diff_records` stored in ``meta["compare"]``, one line each, verdict changes first, at
    most :data:`CHANGES_LIMIT` (the rest counted); None without a comparison."""
    data = meta.get("compare")
    if not isinstance(data, dict):
        return None
    items: list[dict[str, str]] = []

    def add(kind: str, cid: str, text: str) -> None:
        items.append({"kind": kind, "id": cid, "slug": gfm_slug(cid), "html_id": _html_id(cid), "text": text})

    for c in data.get("changes", []):
        cid = c["id"]
        if c.get("scale"):
            add("scale", cid, f"{c['scale'][0]} → {c['scale'][1]} (run at another scale: its values differ)")
        if c.get("verdict"):
            old, new = c["verdict"]
            add(
                "verdict",
                cid,
                f"{VERDICT_LABEL.get(old, str(old).upper())} → {VERDICT_LABEL.get(new, str(new).upper())}",
            )
        for e in c.get("exact", []):
            add(
                "exact", cid, f"{e['where'].strip().rstrip('/')}: {_change_value(e['old'])} → {_change_value(e['new'])}"
            )
        for text in c.get("shape", []):
            add("shape", cid, text)
        for d in c.get("drift", []):
            add(
                "drift",
                cid,
                f"{d['where'].strip().rstrip('/')}: {d['old']:.10g} → {d['new']:.10g} (relative {d['rel']:.2e})",
            )
        if c.get("error"):
            add("error", cid, f"{_change_error_text(c['error'][0])} → {_change_error_text(c['error'][1])}")
        if c.get("runtime"):
            add("runtime", cid, f"{c['runtime'][0]:.3g} s → {c['runtime'][1]:.3g} s")
    for cid in data.get("added", []):
        add("added", cid, "new in this run")
    old, new = str(data.get("old", "")), str(data.get("new", ""))
    replaced = _same_report(old, new)  # --compare OUT: the previous run was this directory's, now replaced
    for cid in data.get("removed", []):
        add("removed", cid, "in the previous run only" if replaced else f"in {old} only")
    items.sort(key=lambda it: _CHANGE_ORDER.index(it["kind"]))
    counts = Counter(it["kind"] for it in items)
    return {
        "old": old,
        "new": str(data.get("new", "")),
        "heading": f"Changes since {old}",
        "slug": gfm_slug(f"Changes since {old}"),
        "rtol": data.get("rtol"),
        "same_results": bool(data.get("same_results")),
        "counts": ", ".join(f"{counts[k]} {k}" for k in _CHANGE_ORDER if counts[k]),
        "findings": items[:CHANGES_LIMIT],
        "more": max(0, len(items) - CHANGES_LIMIT),
        "command": None if replaced else f"tvk diff {old} {new}",
    }


def _same_report(old: str, new: str) -> bool:
    """Whether the compared run ``old`` is the report directory ``new`` itself or a file in it (``--compare OUT``):
    its files are replaced by this run's, so ``tvk diff OLD NEW`` would compare this run with itself."""
    if not old or not new:
        return False
    o, n = Path(old).resolve(), Path(new).resolve()
    return o == n or o.parent == n


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("verify.report", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",), default_for_string=False),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_escape
    env.filters["code"] = md_code
    env.filters["cell_code"] = partial(md_code, table=True)
    env.filters["figure_alt"] = figure_alt
    env.filters["nb"] = nobreak_numbers
    env.filters["path"] = break_after_slashes
    return env


#: A number as the report writes it (``8.3e-17``, ``-0.25``, ``1,000``): kept on one line in the HTML page.
_NUMBER = re.compile(r"(?<![\w.#&])[-+]?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?%?(?![\w])")
_APPROX = re.compile(r"≈ ([-+]?\d[\w.+-]*)")


def nobreak_numbers(value: Any) -> Markup:
    """``value`` as HTML (escaped unless it is already markup) with every number that a line could otherwise
    break inside (one with a sign, a decimal point or an exponent) wrapped in ``<span class="nb">`` (``white-space:
    nowrap``), so "8.3e-17" never wraps as "8.3e-" / "17". In markup (drawn mathematics) only the ``≈ float`` after
    an exact form is wrapped."""
    if isinstance(value, Markup):
        return Markup(_APPROX.sub(lambda m: f'≈ <span class="nb">{m.group(1)}</span>', str(value)))
    text = str(escape("" if value is None else value))

    def wrap(m: re.Match) -> str:
        num = m.group(0)
        return f'<span class="nb">{num}</span>' if re.search(r"[-+.,e%]", num[1:]) or num[0] in "-+" else num

    return Markup(_OPTION.sub(r'<span class="nb">\g<0></span>', _NUMBER.sub(wrap, text)))


_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def break_after_slashes(path: Any) -> Markup:
    """A file path as HTML that a line may break only after its slashes (``<wbr>``, copied as nothing)."""
    return Markup("/<wbr>").join(escape(part) for part in str(path).split("/"))


# ---------------------------------------------------------------------------------------------- renderers


def render_markdown(
    records: list[dict],
    meta: dict,
    figures: dict[str, list[str]],
    *,
    skipped_figures: dict[str, list[SkippedFigure]] | None = None,
) -> str:
    """The Markdown report (GitHub-flavoured): summary, contents, errata found, then the claims by source document
    and chapter, each chapter a table (claim, predicted, observed, error, verdict) followed by one section per claim
    with its source, statement, reason, tolerance and figures (the full data is in ``results.json`` and
    ``report.html``, not here: the file stays small enough for Markdown viewers, about 400 KB for 244 claims).

    Parameters
    ----------
    records : list of dict
        Claim records as written by :meth:`verify.claims.base.ClaimRecord.to_json`.
    meta : dict
        Report metadata (``scale``, ``device``, ``generated``, ``git_revision``, ``runtime_s``, optional ``only``,
        ``train_dtype``, ``ignore_memory_check``, ``figure_formats``).
    figures : dict
        {claim id: [PNG names under ``figures/``]} as returned by :func:`verify.report.figures.render_figures`.
    skipped_figures : dict, optional
        {claim id: [figures not drawn]} (:attr:`verify.report.figures.FigureLedger.skipped`): each claim's section
        names them and says why.
    """
    ctx = _views(records, "md", meta=meta)
    scales = archive.archive_view(records, meta)  # quick and full-scale verdicts from the results archive
    archive.annotate(ctx["claims"], scales)
    text = (
        _environment()
        .get_template("report.md.j2")
        .render(
            meta=_meta_view(records, meta),
            figures=figures,
            skipped=skipped_figures or {},
            gfm_slug=gfm_slug,
            changes=changes_view(meta),
            **ctx,
        )
    )
    return re.sub(r"\n{3,}", "\n\n", text + "\n" + archive.render_markdown_table(scales)).rstrip("\n") + "\n"


def _data_uri(path: Path) -> str:
    mime = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}[path.suffix.lstrip(".").lower()]
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _png_size(path: Path) -> tuple[int, int] | None:
    """(width, height) in pixels of a PNG file, from its header; None when it is not a readable PNG."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def figure_alt(name: str) -> str:
    """The alt text of a figure: its caption (:attr:`verify.report.figures.FigureFile.caption`, what it shows), else
    its file name."""
    return getattr(name, "caption", "") or str(name)


def render_html(
    records: list[dict],
    meta: dict,
    figures: dict[str, list[str]],
    *,
    self_contained: bool = False,
    figures_dir: str | os.PathLike | None = None,
    report_dir: str | os.PathLike | None = None,
    skipped_figures: dict[str, list[SkippedFigure]] | None = None,
) -> str:
    """The HTML report: the same content as :func:`render_markdown`, led by a "needs attention" block (every
    fail, inconclusive and unexpected verdict with its reason, expected verdict, next step, failing seed's figure
    and the command that reruns it), with verdict / kind / source filters, text search and sortable columns kept
    in the page's address, and a live table of contents (inline JavaScript, no network), readable in an 800 px
    window and, as cards, at 390 px.

    Each figure of a claim's section has its caption (:attr:`verify.report.figures.FigureFile.caption`) as its
    ``<figcaption>`` and alt text (:func:`figure_alt`). With ``self_contained`` every figure is embedded as a ``data:`` URI read from ``figures_dir`` (default:
    ``meta["figures_dir"]``), so the single file can be mailed; otherwise images link to ``figures/<name>``. Every
    image read from ``figures_dir`` gets its ``width`` and ``height`` (half its pixels: the figures are drawn at
    twice the screen resolution), so lazy images never move a claim the page has scrolled to. ``report_dir`` (the
    folder the page is written to) makes the links to each claim's code and docs relative to it (absolute
    ``file:`` links without it; the repository's web pages when ``CITATION.cff`` names it). ``skipped_figures``
    as for :func:`render_markdown`.

    Raises
    ------
    ValueError
        If ``self_contained`` is set and no figure directory is known, or a listed figure is missing there.
    """
    images: dict[str, list[dict[str, Any]]] = {}
    folder = figures_dir if figures_dir is not None else meta.get("figures_dir")
    if self_contained and figures and any(figures.values()) and folder is None:
        raise ValueError("self_contained=True needs figures_dir (the folder holding the figure files)")
    mv = _meta_view(records, meta)
    for cid, names in figures.items():
        for name in names:
            size = _png_size(Path(folder) / name) if folder is not None else None
            if self_contained:
                path = Path(folder) / name  # type: ignore[arg-type]
                if not path.is_file():
                    raise ValueError(f"figures_dir: figure {name!r} of claim {cid} is missing from {folder}")
                src, extra = _data_uri(path), []
            else:
                src = f"figures/{name}"
                extra = [(fmt.upper(), f"figures/{Path(name).stem}.{fmt}") for fmt in mv["figure_formats"]]
            width, height = ((size[0] + 1) // 2, (size[1] + 1) // 2) if size else (None, None)
            images.setdefault(cid, []).append(
                {
                    "name": name,
                    "asked": getattr(name, "asked", name),  # the name seed_figures gives it
                    "caption": getattr(name, "caption", ""),
                    "alt": figure_alt(name),
                    "src": src,
                    "extra": extra,
                    "width": width,
                    "height": height,
                }
            )
    ctx = _views(records, "html", report_dir, local_links=not self_contained, meta=meta)
    scales = archive.archive_view(records, meta)  # quick and full-scale verdicts from the results archive
    archive.annotate(ctx["claims"], scales)
    ctx["scales_html"] = Markup(archive.render_html_table(scales))
    by_id = {r["id"]: r for r in records}
    for v in ctx["attention"]:
        shown = images.get(v["id"], [])
        preferred = [n for n in seed_figures(by_id[v["id"]]) if any(i["asked"] == n for i in shown)]
        pick = next((i for i in shown if preferred and i["asked"] == preferred[0]), shown[0] if shown else None)
        v["figure"] = pick
        v["figure_is_seed"] = bool(preferred)
    docs = [g["doc"] for g in ctx["groups"]]
    return (
        _environment()
        .get_template("report.html.j2")
        .render(meta=mv, images=images, skipped=skipped_figures or {}, docs=docs, changes=changes_view(meta), **ctx)
    )


# ---------------------------------------------------------------------------------------------- results.json


def _finite(value: Any, path: str, flags: list[dict[str, str]]) -> Any:
    """``value`` with every NaN or infinity (a float, or the "nan"/"inf" strings of ``to_jsonable``) replaced by
    None; each replacement is recorded in ``flags`` as ``{"path": JSON pointer, "value": "nan"|"inf"|"-inf"}``."""
    if isinstance(value, float) and not math.isfinite(value):
        flags.append({"path": path or "/", "value": str(value)})
        return None
    if isinstance(value, str) and value.lower() in _NONFINITE:
        flags.append({"path": path or "/", "value": str(_NONFINITE[value.lower()])})
        return None
    if isinstance(value, dict):
        return {k: _finite(v, f"{path}/{_pointer(k)}", flags) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v, f"{path}/{i}", flags) for i, v in enumerate(value)]
    return value


def _pointer(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _judge_params(claim_id: str) -> dict[str, Any] | None:
    """The judge of a registered claim as ``{"type", "params"}`` (its numeric and text fields), so a script can
    re-judge the record; None when the claim is not registered in this process."""
    claim = registry().get(claim_id)
    if claim is None or not dataclasses.is_dataclass(claim.judge):
        return None

    def plain(v: Any) -> Any:
        if isinstance(v, (bool, int, str)) or v is None:
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else str(v)
        if isinstance(v, (list, tuple)):
            items = [plain(x) for x in v]
            return items if all(x is not _SKIP for x in items) else _SKIP
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {"type": type(v).__name__, **{f.name: plain(getattr(v, f.name)) for f in dataclasses.fields(v)}}
        return _SKIP

    params = {f.name: plain(getattr(claim.judge, f.name)) for f in dataclasses.fields(claim.judge)}
    return {"type": type(claim.judge).__name__, "params": {k: v for k, v in params.items() if v is not _SKIP}}


def results_document(records: list[dict], meta: dict) -> dict[str, Any]:
    """The ``results.json`` document: ``{"header": {...}, "claims": [...]}`` (schema
    ``verify/report/schema/results.schema.json``, version :data:`SCHEMA_VERSION`).

    The header holds the schema version, command line, selection, scale, device, total runtime, hardware (CPU model,
    threads, GPU and CUDA when present), library versions, git revision and dirty flag, and the verdict counts.
    Each claim is its record, unchanged except that every NaN or infinity is written as null, plus ``error``
    (``{"abs", "rel", "n"}``: the largest difference between numeric predicted and observed values, see
    :func:`_error`; else null), ``judge`` (type and parameters of a registered claim's judge, else null) and
    ``nonfinite`` (the JSON pointers of the values written as null).
    """
    git = git_state()
    header = {
        "schema_version": SCHEMA_VERSION,
        "generated": meta.get("generated"),
        "command_line": list(meta.get("command_line") or sys.argv),
        "selection": meta.get("only"),
        "scale": meta.get("scale"),
        "device": meta.get("device"),
        "runtime_s": meta.get("runtime_s"),
        "executor": meta.get("executor"),
        "shard": meta.get("shard"),
        "train_dtype": meta.get("train_dtype"),
        "ignore_memory_check": bool(meta.get("ignore_memory_check")),
        "jobs": meta.get("jobs"),
        "hardware": hardware(),
        "versions": library_versions(),
        "git": {"revision": meta.get("git_revision") or git["revision"], "dirty": git["dirty"]},
        "counts": {k: sum(r["verdict"] == k for r in records) for k in VERDICTS},
    }
    header = _finite(header, "", [])
    return {"header": header, "claims": [result_record(r) for r in records]}


def result_record(r: dict) -> dict[str, Any]:
    """A claim record in the form of ``results.json``'s claims (and of each ``results.jsonl`` line): the record with
    every NaN or infinity written as null, plus ``error``, ``judge`` and ``nonfinite`` (:func:`results_document`)."""
    flags: list[dict[str, str]] = []
    rec = _finite(r, "", flags)
    rec["error"] = record_error(r)
    rec["judge"] = _judge_params(r["id"])
    rec["nonfinite"] = flags
    return rec


def results_json(records: list[dict], meta: dict) -> str:
    """:func:`results_document` as the text of ``results.json`` (strict JSON: no NaN or Infinity literal)."""
    return json.dumps(results_document(records, meta), indent=1, default=str, allow_nan=False) + "\n"


def _csv_number(x: Any) -> str:
    """A number in full precision for the CSV (``repr`` of the float; "nan", "inf", "-inf" as Python reads them),
    "" for anything that is not a number."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return ""
    return repr(x) if isinstance(x, int) else repr(float(x))


def results_csv(records: list[dict]) -> str:
    """A flat CSV, one row per claim (:data:`CSV_FIELDS`): id, source, kind, verdict, the expected verdict, the
    predicted and observed values and the error (``{"abs", "rel"}`` of :func:`_error`) as full-precision numbers
    (empty when the value is not one number: a list, a symbolic exact value), the predicted and observed values as
    :func:`headline` shows them, the tolerance, the verdict's reason and the runtime in seconds."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for r in records:
        err = record_error(r) or {}
        meta = r.get("metadata") or {}
        writer.writerow(
            [
                r["id"],
                r.get("source", ""),
                r.get("kind", ""),
                r["verdict"],
                meta.get("expected_verdict") or "",
                _csv_number(_scalar(r.get("predicted"))),
                _csv_number(_scalar(r.get("observed"))),
                _csv_number(err.get("abs")),
                _csv_number(err.get("rel")),
                *map(headline, same_forms(r.get("predicted"), r.get("observed"))),
                fill_tolerance(r.get("tolerance", ""), r.get("config")),
                " ".join(str(r.get("reason", "")).split()),
                meta.get("runtime_s", ""),
            ]
        )
    return buf.getvalue()
