"""Figures rendered from claim records only (the ``artifacts`` field), never from live objects.

For a training claim on modular addition:

* ``<id>-margin.png``: normalized margin / gamma* over training, one line per seed, against the
  predicted line at 1 (Edelman Fig 7.1c);
* ``<id>-spectra.png``: the first input block of the heaviest neurons with its trigonometric
  interpolation, and its one-sided power spectrum (Shi Fig 4.1);
* ``<id>-frequencies.png``: how many significant neurons each frequency dominates, per seed (Shi Fig 4.2a); its
  legend sits right of the axes, where it hides no bar.

Any claim can also ask for generic plots through ``artifacts["plots"]``, a list of plain-data specs
rendered by :func:`render_plot_spec` to ``<id>-<name>.png`` (``name``: 1 to :data:`NAME_MAX` letters, digits, '.',
'_', '-'; :func:`check_file_part`):

* ``{"name", "kind": "lines", "series": [{"label", "x", "y", "lo"?, "hi"?, "marker"?, "ls"?, "color"?, "alpha"?}], "hlines"?: [{"y", "label"}],
  "xlabel", "ylabel", "xscale"?, "yscale"?, "title"?}`` - curves, optional shaded band [lo, hi];
* ``{"name", "kind": "heatmap", "x", "y", "panels": [{"title", "z"}], "xlabel", "ylabel", "zlabel"?, "vmin"?, "vmax"?}``
  - one or more panels of a matrix z[row = y][col = x], annotated cell by cell;
* ``{"name", "kind": "hist", "series": [{"label", "values"}], "bins"?, "xlabel", "ylabel"? (default "count"),
  "vlines"?: [{"x", "label"}]}``.

Every axis is labelled, every panel of a heat map included (a histogram's y axis defaults to "count", a heat map's
colour bar to "value"; an axis the spec leaves without a label, or with a blank one, is labelled
:data:`MISSING_LABEL`, "x (no label in the plot spec)"), and a plot with more than one series has a legend
(unlabelled series are numbered). With ``formats=("png", "pdf", "svg")`` each figure is also written as PDF and
SVG next to its PNG (same stem); the returned names are always the PNGs.

The shared rules of every figure (issue 31):

* PNGs are written at :data:`DPI` (220, twice the former 110), the page shows them at half their pixel size;
* a heat map writes a cell's value into it only when the text fits inside the cell (at 7 pt, else 6 pt, else the
  panel is left to its colour bar); the boxes of the written values are recorded in the PNG's ``tvk:layout`` text
  chunk (:func:`figure_layout`, :func:`read_layout`) so a test can check that no two overlap;
* a legend shows at most :data:`LEGEND_MAX` entries, the reference lines first: the first ones, then one "+ N more"
  entry (the data of every series stays in ``results.json``); more than :data:`LEGEND_MAX` unlabelled series share
  one entry;
* reference lines (``hlines``, ``vlines``) take distinct colours and dash patterns (:data:`REFERENCE_STYLES`)
  unless the spec sets them;
* when a seed fails (:func:`failing_seeds`: the record's ``details["failed_seeds"]``, else the ``seed N:`` problems
  of a per-seed judge's reason), a figure drawn for one seed shows the first failing seed: a plot spec or a
  ``spectra`` / ``parity_neurons`` artifact may carry ``by_seed``, a list (one entry per seed, in the order of
  ``metadata.seeds``) of the fields that differ for that seed; the margin curves and frequency bars, which show
  every seed, mark the failing one;
* a "lines" plot of more than :data:`LEGEND_MAX` seed curves (every label ``seed N``) is drawn as a crowd in one colour
  under one legend entry, with the seeds the reason names with a problem (:func:`named_seeds`, whatever the verdict)
  drawn last in colours of their own, so that the legend keeps the reference lines (:func:`_seed_crowd`).
:func:`remove_stale_figures` deletes the figures of an earlier run that the current one did not write.

Each name :func:`render_figures` returns is a :class:`FigureFile` whose ``caption`` (:func:`figure_caption`: the
figure's title, else the claim id and the axes, plus what a record-specific figure draws) is the report's caption
and alt text of the figure.

Within a report (:class:`FigureLedger`) no two figures share a file: a figure asking for a file name that an earlier
figure has (``qa-a`` + ``b-c`` and ``qa-a-b`` + ``c``; compared without case) is written as ``<id>-<name>-2.png``
(``-3``, ...). A figure that cannot be drawn or saved (bad mathtext in a label, a name that is not a safe file-name
part, a malformed artifact) is skipped with a log line naming the claim, the figure and why, and kept in
:attr:`FigureLedger.skipped` for the claim's section of the report (:func:`render_figures`).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from verify.runtime.files import atomic_path

__all__ = [
    "DPI",
    "FIGURE_FORMATS",
    "LEGEND_MAX",
    "MISSING_LABEL",
    "PLOT_KINDS",
    "RECORD_FIGURES",
    "REFERENCE_STYLES",
    "BackgroundFigures",
    "FigureFile",
    "FigureLedger",
    "SkippedFigure",
    "check_file_part",
    "failing_seeds",
    "figure_caption",
    "figure_layout",
    "named_seeds",
    "plot_spec_figure",
    "read_layout",
    "remove_stale_figures",
    "render_figures",
    "render_plot_spec",
    "seed_figures",
]

#: The file formats a figure can be written in; PNG is always written (the report shows it).
FIGURE_FORMATS = ("png", "pdf", "svg")
#: Resolution of the PNGs (the page shows them at half their pixel size, sharp on high-density screens).
DPI = 220
#: The most entries a legend shows; the rest are counted in one "+ N more" entry.
LEGEND_MAX = 8
#: The prefix of a reference line's artist id (``gid``; a prediction drawn across the plot): first in its legend.
REFERENCE_GID = "tvk-reference"
#: (colour, dash pattern) of the reference lines of a plot, in order, where the spec sets none.
REFERENCE_STYLES = (
    ("black", "--"),
    ("#d62728", ":"),
    ("#2ca02c", "-."),
    ("#9467bd", (0, (6, 2, 1, 2, 1, 2))),
    ("#8c564b", (0, (1, 1))),
    ("#e377c2", (0, (8, 3))),
)
#: Font sizes (points) tried for heat-map cell values, largest first.
ANNOTATION_SIZES = (7.0, 6.0)
#: The PNG text chunk holding :func:`figure_layout`.
LAYOUT_KEY = "tvk:layout"

#: A figure's name (after the claim id) and a claim's id, as parts of a file name: these characters only (no path
#: separator, no space), at most NAME_MAX of them.
SAFE_NAME = re.compile(r"[A-Za-z0-9._-]+")
NAME_MAX = 100
#: The most characters of a skipped figure's reason kept in the log and the report.
REASON_MAX = 300

Formats = tuple[str, ...]
Log = Callable[[str], None]


def check_file_part(text: Any, what: str) -> None:
    """ValueError unless ``text`` can be part of a figure's file name: a string of 1 to :data:`NAME_MAX` letters,
    digits, '.', '_' and '-' (:data:`SAFE_NAME`); ``what`` names it in the message ("its name")."""
    if not (isinstance(text, str) and len(text) <= NAME_MAX and SAFE_NAME.fullmatch(text)):
        shown = "missing" if text is None else _clip(repr(text), 60)
        raise ValueError(
            f"{what} ({shown}) is not a safe file-name part: 1 to {NAME_MAX} letters, digits, '.', '_' or '-'"
        )


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


class FigureFile(str):
    """The PNG file name of one figure, as :func:`render_figures` returns it (a ``str``), with what the report shows
    with it: ``caption``, what the figure shows (:func:`figure_caption`: the report's caption and alt text), and
    ``asked``, the file name it asked for (``<claim id>-<name>.png``), which it has unless another figure of the
    report had it first."""

    caption: str
    asked: str

    def __new__(cls, name: str, caption: str = "", asked: str = "") -> FigureFile:
        self = super().__new__(cls, name)
        self.caption, self.asked = caption, asked or name
        return self


@dataclass(frozen=True)
class SkippedFigure:
    """A figure of a claim that the report goes without: its name (the plot spec's ``name``, ``plots[i]`` for a spec
    without one, or a record-specific figure's: ``margin``, ``spectra``, ...) and why it was not drawn or saved."""

    name: str
    reason: str


@dataclass
class FigureLedger:
    """The figures of one report so far (:func:`render_figures` adds to it): the file stems written, in lower case
    (no two figures of a report share a file, on a case-insensitive disk either), and, by claim id, the figures
    skipped."""

    stems: set[str] = field(default_factory=set)
    skipped: dict[str, list[SkippedFigure]] = field(default_factory=dict)

    def free_stem(self, stem: str) -> str:
        """``stem`` when no figure of the report has it yet, else the first free of ``stem-2``, ``stem-3``, ..."""
        found, k = stem, 1
        while found.lower() in self.stems:
            k += 1
            found = f"{stem}-{k}"
        return found


def check_formats(formats: Formats) -> Formats:
    """The formats to write, PNG first and always included; ValueError for a format not in FIGURE_FORMATS."""
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if bad:
        raise ValueError(
            f"--figure-formats must be comma-separated formats among {', '.join(FIGURE_FORMATS)}, got {bad}"
        )
    return ("png", *[f for f in FIGURE_FORMATS[1:] if f in formats])


def _save(fig: Any, target: Path, formats: Formats = ("png",)) -> str:
    """Write ``fig`` to ``target`` (a ``.png`` path, at :data:`DPI`, with :func:`figure_layout` in its
    ``tvk:layout`` text chunk) and, for each other format in ``formats``, next to it with the same stem; returns
    the PNG's file name. When one format fails, none is left written."""
    written: list[Path] = []
    try:
        layout = figure_layout(fig)
        for fmt in check_formats(formats):
            meta = {LAYOUT_KEY: json.dumps(layout, separators=(",", ":"))} if fmt == "png" else None
            with atomic_path(target.with_suffix(f".{fmt}")) as tmp:
                fig.savefig(tmp, format=fmt, dpi=DPI, bbox_inches="tight", metadata=meta)
            written.append(target.with_suffix(f".{fmt}"))
    except BaseException:
        for path in written:  # every format or none
            path.unlink(missing_ok=True)
        raise
    finally:
        plt.close(fig)
    return target.name


def figure_caption(fig: Any, rec_id: str) -> str:
    """What ``fig`` shows, for the report's caption and alt text: its title (the figure's, else its first panel's);
    when that is only the claim id (a plot spec without ``title``), the claim id and the first panel's axes
    ("<claim id>: <y label> against <x label>"); followed by what a record-specific figure shows, in parentheses
    (its ``_tvk_about``: "margin: p=7 (normalised margin over the predicted gamma* during training, ...)")."""
    suptitle = getattr(fig, "_suptitle", None)
    panels = [ax for ax in fig.axes if not hasattr(ax, "_colorbar")]
    titles = [suptitle.get_text() if suptitle is not None else "", *(ax.get_title() for ax in panels)]
    title = next((" ".join(t.split()) for t in titles if t.strip()), "")
    if title in ("", rec_id) and panels:
        title = f"{rec_id}: {panels[0].get_ylabel()} against {panels[0].get_xlabel()}"
    about = getattr(fig, "_tvk_about", "")
    return f"{title or rec_id} ({about})" if about else title or rec_id


def _about(fig: Any, text: str) -> Any:
    """``fig``, marked as showing ``text`` (what a record-specific figure draws, for :func:`figure_caption`)."""
    fig._tvk_about = text
    return fig


def figure_layout(fig: Any) -> dict[str, Any]:
    """What the renderer wrote into the cells of ``fig``'s heat maps, in pixels at :data:`DPI` (y up, origin at
    the figure's lower left corner, before ``bbox_inches="tight"`` crops the margins):
    ``{"dpi", "panels": [{"rows", "cols", "cell": [w, h], "fontsize", "annotated"}], "boxes": [[x0, y0, x1, y1,
    panel], ...], "seed"}`` with one box per value written (its text's extent); ``seed`` is the position of the
    failing seed a one-seed figure was drawn for (None otherwise). Empty lists for a figure without a heat map."""
    layout = getattr(fig, "_tvk_layout", None) or {"dpi": DPI, "panels": [], "boxes": []}
    return {**layout, "seed": getattr(fig, "_tvk_seed", None)}


def read_layout(png: str | os.PathLike) -> dict[str, Any]:
    """:func:`figure_layout` of a PNG written by this module (from its ``tvk:layout`` text chunk)."""
    from PIL import Image

    with Image.open(png) as im:
        text = im.text.get(LAYOUT_KEY)  # type: ignore[attr-defined]
    return json.loads(text) if text else {"dpi": None, "panels": [], "boxes": [], "seed": None}


def failing_seeds(rec: dict) -> list[int]:
    """Positions (in ``metadata.seeds``) of the seeds a failed or inconclusive record names as failing:
    ``details["failed_seeds"]`` when the claim sets it, else every ``seed N:`` of the reason (:func:`named_seeds`: the
    problems a per-seed judge lists, :class:`verify.claims.judges.PerSeed`); empty for a pass or when no seed is
    named."""
    if rec.get("verdict") not in ("fail", "inconclusive"):
        return []
    seeds = list((rec.get("metadata") or {}).get("seeds") or [])
    named = (rec.get("details") or {}).get("failed_seeds") if isinstance(rec.get("details"), dict) else None
    if not isinstance(named, list):
        return named_seeds(rec)
    return _positions([int(s) for s in named if isinstance(s, int) and not isinstance(s, bool)], seeds)


def named_seeds(rec: dict) -> list[int]:
    """Positions (in ``metadata.seeds``) of the seeds the record's reason names with a problem (``seed N:``, the
    problems a per-seed judge lists), whatever the verdict: a passing population may have failing seeds too. ``N`` is
    read as a seed of ``metadata.seeds`` when it is one (``--seed-offset`` runs), else as a position."""
    seeds = list((rec.get("metadata") or {}).get("seeds") or [])
    values = [int(m) for m in re.findall(r"\bseed (\d+):", str(rec.get("reason", "")))]
    return _positions([seeds.index(v) if v in seeds else v for v in values], seeds)


def _positions(found: list[int], seeds: list) -> list[int]:
    """``found`` in order without repeats, less those beyond ``seeds`` (kept all when the record lists no seeds)."""
    out: list[int] = []
    for pos in found:
        if pos not in out and (not seeds or pos < len(seeds)):
            out.append(pos)
    return out


#: Colours of the seeds a crowded per-seed plot singles out (:func:`_seed_crowd`), each its own up to
#: ``SINGLED_OUT_MAX`` of them, else all in the first under one legend entry; the crowd's colour is ``CROWD_COLOR``.
SINGLED_OUT = ("#c44e52", "#dd8452", "#8c564b")
SINGLED_OUT_MAX = len(SINGLED_OUT)
CROWD_COLOR = "#4c72b0"


def _seed_crowd(spec: dict, rec: dict) -> dict:
    """A "lines" spec with one series per seed (every label ``seed N``) and more series than :data:`LEGEND_MAX`, drawn
    as a crowd: the seeds the reason names with a problem (:func:`named_seeds`) drawn last, in colours of their own
    ("seed N (fails a check)"; more than :data:`SINGLED_OUT_MAX` share one colour and one entry); the others in one
    colour, without markers, under one legend entry ("K other seeds", or "K seeds" when none is named). Any other spec
    is returned as it is."""
    series = spec.get("series") or []
    matches = [re.fullmatch(r"seed (\d+)", str(s.get("label") or "")) for s in series]
    if spec.get("kind") != "lines" or len(series) <= LEGEND_MAX or not all(matches):
        return spec
    seeds = list((rec.get("metadata") or {}).get("seeds") or [])
    named = {seeds[p] if p < len(seeds) else p for p in named_seeds(rec)}
    values = [int(m.group(1)) for m in matches if m]
    crowd = [s for s, v in zip(series, values) if v not in named]
    singled = [(s, v) for s, v in zip(series, values) if v in named]
    name = f"{len(crowd)} other seeds" if singled else f"{len(crowd)} seeds"
    out = [
        {**s, "color": CROWD_COLOR, "alpha": 0.45, "marker": "", "label": name if i == 0 else "_"}
        for i, s in enumerate(crowd)
    ]
    few = len(singled) <= SINGLED_OUT_MAX  # else one colour and one entry: the legend keeps the reference lines
    together = "seeds " + ", ".join(str(v) for _, v in singled) + " (fail a check)"
    out += [
        {
            **s,
            "color": SINGLED_OUT[i if few else 0],
            "marker": "",
            "label": f"seed {v} (fails a check)" if few else (together if i == 0 else "_"),
        }
        for i, (s, v) in enumerate(singled)
    ]
    return {**spec, "series": out}


def _seed_label(rec: dict, pos: int) -> str:
    """``seed S`` of seed position ``pos`` (with the position when the seed differs from it)."""
    seeds = list((rec.get("metadata") or {}).get("seeds") or [])
    value = seeds[pos] if pos < len(seeds) else pos
    return f"seed {value}" + (f" (#{pos})" if value != pos else "")


def _for_seed(rec: dict, item: dict) -> tuple[dict, int | None]:
    """``item`` (a plot spec or an artifact) as drawn for the first failing seed that its ``by_seed`` covers:
    the item with that seed's fields, and the seed position; ``(item, None)`` when no seed failed or the item has
    no ``by_seed`` entry for it."""
    by_seed = item.get("by_seed")
    if not isinstance(by_seed, list):
        return item, None
    for pos in failing_seeds(rec):
        if pos < len(by_seed) and isinstance(by_seed[pos], dict):
            return {**{k: v for k, v in item.items() if k != "by_seed"}, **by_seed[pos]}, pos
    return item, None


def seed_figures(rec: dict) -> list[str]:
    """The figure names of ``rec`` drawn for (or marking) its failing seed, best first, as asked for
    (``<id>-<name>.png``: :attr:`FigureFile.asked`); empty when no seed of the record failed."""
    if not failing_seeds(rec):
        return []
    a = rec.get("artifacts") or {}
    plots = [p for p in a.get("plots") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
    out = [f"{rec['id']}-{p['name']}.png" for p in plots if _for_seed(rec, p)[1] is not None]
    for key, suffix in (("spectra", "spectra"), ("parity_neurons", "neurons")):
        if isinstance(a.get(key), dict) and _for_seed(rec, a[key])[1] is not None:
            out.append(f"{rec['id']}-{suffix}.png")
    if a.get("history"):
        out.append(f"{rec['id']}-margin.png")
    if a.get("coverage"):
        out.append(f"{rec['id']}-frequencies.png")
    return out


def _legend(ax: Any, **kwargs: Any) -> None:
    """A legend of at most :data:`LEGEND_MAX` entries: the reference lines first (a prediction such as gamma* is
    never one of the entries cut), then the series; past the limit the first ``LEGEND_MAX - 1`` and one "+ N more"
    entry."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    order = sorted(
        range(len(handles)), key=lambda i: not str(getattr(handles[i], "get_gid", str)()).startswith(REFERENCE_GID)
    )
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    if len(handles) > LEGEND_MAX:
        rest = len(handles) - (LEGEND_MAX - 1)
        handles = [*handles[: LEGEND_MAX - 1], Line2D([], [], ls="none")]
        labels = [*labels[: LEGEND_MAX - 1], f"+ {rest} more (data in results.json)"]
    ax.legend(handles, labels, **kwargs)


def _reference_style(i: int, line: dict) -> dict[str, Any]:
    """Colour and dash pattern of the ``i``-th reference line of a plot (the spec's own when it sets them), marked
    as a reference for :func:`_legend`."""
    color, ls = REFERENCE_STYLES[i % len(REFERENCE_STYLES)]
    return {"color": line.get("color", color), "ls": line.get("ls", ls), "lw": 1.2, "gid": f"{REFERENCE_GID}-{i}"}


def remove_stale_figures(figdir: str | os.PathLike, keep: dict[str, list[str]] | list[str] | set[str]) -> list[str]:
    """Delete the figure files (PNG, PDF, SVG) in ``figdir`` that the current run did not write.

    Parameters
    ----------
    figdir : path
        The report's figure directory (missing is fine: nothing to remove).
    keep : {claim id: [png names]} as returned by :func:`render_figures`, or a collection of file names
        Every figure whose stem is the stem of a kept name survives, in every format.

    Returns
    -------
    list of str
        The removed file names, sorted.
    """
    names = [n for ns in keep.values() for n in ns] if isinstance(keep, dict) else list(keep)
    stems = {Path(n).stem for n in names}
    out = Path(figdir)
    if not out.is_dir():
        return []
    removed = []
    for f in sorted(out.iterdir()):
        if f.is_file() and f.suffix.lstrip(".") in FIGURE_FORMATS and f.stem not in stems:
            f.unlink()
            removed.append(f.name)
    return removed


def _margin_curve(rec: dict) -> Any:
    hist = rec["artifacts"].get("history")
    if not hist:
        return None
    steps = np.array([h["step"] for h in hist])
    ratios = np.array([h["ratio"] for h in hist], dtype=float)  # (T, S)
    failed = set(failing_seeds(rec))
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for s in range(ratios.shape[1]):
        bad = s in failed
        label = f"seed {rec['metadata']['seeds'][s] if rec['metadata']['seeds'] else s}"
        ax.plot(
            steps,
            ratios[:, s],
            lw=2.4 if bad else 1.4,
            alpha=1.0 if bad or not failed else 0.55,
            zorder=3 if bad else 2,
            label=f"{_seed_label(rec, s)}, failed" if bad else label,
        )
    ax.axhline(1.0, color="k", ls="--", lw=1, label=r"predicted $\gamma^*$", gid=f"{REFERENCE_GID}-gamma")
    ax.set_ylim(max(-0.25, min(-0.05, float(np.nanmin(ratios)) - 0.05)), 1.08)  # early negative margins clipped
    ax.set_xlabel("step")
    ax.set_ylabel(r"$h(\theta)/\|\theta\|^{k+1}_{2,k+1}\,/\,\gamma^*$")
    a = rec["artifacts"]
    setting = ", ".join(f"{key}={a[key]}" for key in ("p", "n", "k", "group") if key in a)
    ax.set_title(f"{rec['id']}: {setting}" if setting else rec["id"])
    _legend(ax, fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    return _about(fig, "normalised margin over the predicted gamma* during training, one line per seed")


def _spectra(rec: dict) -> Any:
    sp = rec["artifacts"].get("spectra")
    if not sp:
        return None
    sp, pos = _for_seed(rec, sp)
    values, power = np.array(sp["u1_values"]), np.array(sp["u1_power"])
    n, p = values.shape
    fig, axes = plt.subplots(n, 2, figsize=(7, 1.5 * n + 0.6), squeeze=False)
    fine = np.linspace(0, p - 1, 400)
    for r in range(n):
        coef = np.fft.fft(values[r])
        freqs = np.fft.fftfreq(p, d=1.0 / p)
        interp = (coef[None, :] * np.exp(2j * np.pi * np.outer(fine, freqs) / p)).sum(1).real / p
        axes[r, 0].plot(fine, interp, color="#9ecae1", lw=1.2)
        axes[r, 0].plot(np.arange(p), values[r], "o", color="#d62728", ms=3)
        axes[r, 0].set_ylabel(f"neuron {sp['neurons'][r]}", fontsize=8)
        axes[r, 1].bar(np.arange(power.shape[1]), power[r] / power[r].sum(), color="#3182bd")
        axes[r, 1].set_ylim(0, 1.05)
        axes[r, 1].set_ylabel("power share", fontsize=8)
        axes[r, 0].set_xlabel("a", fontsize=8)
        axes[r, 1].set_xlabel(r"frequency $\zeta$", fontsize=8)
    axes[0, 0].set_title(r"$u_{i,1}(a)$ and trigonometric interpolation", fontsize=9)
    axes[0, 1].set_title("one-sided normalized power by frequency", fontsize=9)
    fig.subplots_adjust(wspace=0.35, hspace=0.6)
    fig.suptitle(f"{rec['id']}: heaviest neurons of {_shown_seed(rec, pos)}", fontsize=10)
    fig._tvk_seed = pos
    return _about(fig, "first input block of the heaviest neurons with its interpolation, and its power by frequency")


def _shown_seed(rec: dict, pos: int | None) -> str:
    """Which seed a one-seed figure shows: the failing one it was drawn for, else the first (and, when another
    seed failed but the record holds only the first seed's data, that it is not the failing one)."""
    if pos is not None:
        return f"{_seed_label(rec, pos)}, which failed"
    failed = [p for p in failing_seeds(rec) if p != 0]
    note = f" ({_seed_label(rec, failed[0])} failed; the record holds this seed's data only)" if failed else ""
    return (_seed_label(rec, 0) if (rec.get("metadata") or {}).get("seeds") else "seed 0") + note


def _frequency_histogram(rec: dict) -> Any:
    cov = rec["artifacts"].get("coverage")
    if not cov:
        return None
    cov = np.array(cov)
    S, F = cov.shape
    seeds = rec["metadata"]["seeds"] or list(range(S))
    irreps = rec["artifacts"].get("irrep_names")  # a group: one bar per non-trivial irrep, not per frequency
    failed = set(failing_seeds(rec))
    fig, ax = plt.subplots(figsize=(6, 3.2))
    width = 0.8 / S
    for s in range(S):
        bad = s in failed
        ax.bar(
            np.arange(1, F + 1) + (s - (S - 1) / 2) * width,
            cov[s],
            width=width,
            label=f"seed {seeds[s]}" + (", failed" if bad else ""),
            hatch="///" if bad else None,
            edgecolor="black" if bad else None,
            alpha=1.0 if bad or not failed else 0.6,
        )
    ax.set_ylabel("significant neurons")
    if irreps and len(irreps) == F:
        ax.set_xlabel("dominant non-trivial irreducible representation")
        ax.set_xticks(np.arange(1, F + 1), [str(n) for n in irreps])
        what = f" of {rec['artifacts']['group']}" if "group" in rec["artifacts"] else ""
        ax.set_title(f"{rec['id']}: neurons per irrep{what}", fontsize=10)
    else:
        ax.set_xlabel(r"dominant frequency $\zeta$")
        ax.set_xticks(np.arange(1, F + 1))
        ax.set_title(f"{rec['id']}: every frequency must be used (Shi Lemma C.20)", fontsize=10)
    if S > 1:  # outside the axes, right of them: inside, it covered the last seeds' bars at the highest frequencies
        _legend(ax, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return _about(fig, "significant neurons per dominant frequency (or irrep), one bar per seed")


def _parity_neurons(rec: dict) -> Any:
    """Edelman Fig 7.5a: normalized u of the heaviest neurons (support S predicted, |u_j| = 1/sqrt(k+1)) and
    w[0] - w[1] against the predicted +-2 w_entry."""
    a = rec["artifacts"].get("parity_neurons")
    if not a:
        return None
    a, pos = _for_seed(rec, a)
    u, w = np.array(a["u"]), np.array(a["w"])
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 0.35 * len(u) + 1.8), gridspec_kw={"width_ratios": [3, 1]})
    lim = 1.2 * a["abs_u_predicted"]
    im = ax0.imshow(u, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    ax0.set_xticks(range(u.shape[1]))
    ax0.set_xticklabels([f"{j}{'*' if j in a['support'] else ''}" for j in range(u.shape[1])], fontsize=8)
    ax0.set_xlabel("input bit j (* = in S)")
    ax0.set_ylabel("neuron (heaviest first)")
    ax0.set_yticks(range(len(u)))
    ax0.set_yticklabels(a["neurons"], fontsize=7)
    fig.colorbar(im, ax=ax0, label=r"$u_{ij}/\|\theta_i\|$" + f"  (predicted ±{a['abs_u_predicted']:.4f} on S)")
    diff = w[:, 0] - w[:, 1]
    ax1.barh(range(len(u)), diff, color=["#d62728" if d > 0 else "#1f77b4" for d in diff])
    for s in (1, -1):
        ax1.axvline(
            2 * s * a["w_entry_predicted"],
            color="k",
            ls="--",
            lw=1,
            label=r"predicted $\pm 2 w$",
            gid=f"{REFERENCE_GID}-w",
        )
    ax1.invert_yaxis()
    ax1.set_yticks([])
    ax1.set_ylabel("neuron (same rows)")
    ax1.set_xlabel(r"$(w_0 - w_1)/\|\theta_i\|$")
    fig.suptitle(f"{rec['id']}: heaviest neurons of {_shown_seed(rec, pos)} (Edelman Fig 7.5a)", fontsize=10)
    fig._tvk_seed = pos
    return _about(fig, "normalised input weights of the heaviest neurons, and w0 - w1 against the predicted +-2 w")


def _lsa_spectrum(rec: dict) -> Any:
    """Shi Thm 5.4.1: eigenvalues of the learned M_eff against the optimal rank-r spectrum, one panel per rank."""
    a = rec["artifacts"].get("lsa_spectrum")
    if not a:
        return None
    ranks = a["rank"]
    fig, axes = plt.subplots(1, len(ranks), figsize=(2.6 * len(ranks) + 0.5, 2.8), squeeze=False, sharey=True)
    for ax, r, learned, optimal in zip(axes[0], ranks, a["learned"], a["optimal"]):
        idx = np.arange(1, len(optimal) + 1)
        ax.bar(idx - 0.2, optimal, width=0.4, color="#bbbbbb", label="optimal (theory)")
        ax.bar(idx + 0.2, learned, width=0.4, color="#3182bd", label="learned")
        ax.set_title(f"rank {r}", fontsize=9)
        ax.set_xlabel("eigen-direction")
        ax.set_ylabel(r"eigenvalue of $M_{\rm eff}$")
    _legend(axes[0, 0], fontsize=7)
    fig.suptitle(f"{rec['id']}: learned vs optimal spectrum", fontsize=10, y=1.04)
    return _about(fig, "eigenvalues of the learned M_eff against the optimal rank-r spectrum")


def _lsa_noise_curve(rec: dict) -> Any:
    """Shi Thm 5.4.2: evaluation loss under a noisy prompt against the noise level, one line per rank."""
    a = rec["artifacts"].get("lsa_noise_curve")
    if not a:
        return None
    series = [
        {"label": f"rank {r}", "x": a["sigma"], "y": losses}
        for r, losses in sorted(a["loss_by_rank"].items(), key=lambda kv: int(kv[0]))
    ]
    return plot_spec_figure(
        rec["id"],
        {
            "name": "noise",
            "kind": "lines",
            "series": series,
            "xlabel": r"prompt noise $\sigma$",
            "ylabel": "evaluation loss",
            "title": f"{rec['id']}: which rank is most robust",
        },
    )


def _looped_error(rec: dict) -> Any:
    """Shi Fig 8.1: error of the looped transformer against the number of loops T, with the bound."""
    a = rec["artifacts"].get("looped_error")
    if not a:
        return None
    by_n = rec["artifacts"].get("looped_error_by_n") or {}
    if len(by_n) > 1:  # the claim is about the n-dependence: one observed line and one bound per n
        series = []
        for i, (n, s) in enumerate(sorted(by_n.items(), key=lambda kv: int(kv[0]))):
            color = f"C{i}"
            series += [
                {"label": f"n = {n}, observed (mean)", "x": s["T"], "y": s["error"], "color": color},
                {
                    "label": f"n = {n}, bound (theory)",
                    "x": s["T"],
                    "y": s["bound"],
                    "ls": "--",
                    "marker": "",
                    "color": color,
                },
            ]
    else:
        series = [
            {"label": "observed (mean)", "x": a["T"], "y": a["error"]},
            {"label": "bound (theory)", "x": a["T"], "y": a["bound"], "ls": "--", "marker": "", "color": "k"},
        ]
    return plot_spec_figure(
        rec["id"],
        {
            "name": "error",
            "kind": "lines",
            "series": series,
            "xlabel": "loops T",
            "ylabel": "normalised squared error" if by_n else "error",
            "yscale": "log",
            "title": f"{rec['id']}: error against loops, one colour per n" if len(by_n) > 1 else rec["id"],
        },
    )


PLOT_KINDS = ("lines", "heatmap", "hist")


def _series_labels(series: list[dict]) -> list[str | None]:
    """The legend label of each series: its own; an unlabelled one numbered when there are several, unless more
    than :data:`LEGEND_MAX` are unlabelled: they then share one entry ("48 unlabelled series", on the first)."""
    unlabelled = [i for i, s in enumerate(series) if not s.get("label")]
    labels: list[str | None] = [s.get("label") or None for s in series]
    if len(series) > 1 and len(unlabelled) > LEGEND_MAX:
        labels[unlabelled[0]] = f"{len(unlabelled)} unlabelled series"
    elif len(series) > 1:
        for i in unlabelled:
            labels[i] = f"series {i + 1}"
    return labels


def _plot_lines(ax: Any, spec: dict) -> None:
    labels = _series_labels(spec["series"])
    grouped = sum(not s.get("label") for s in spec["series"]) > LEGEND_MAX  # one colour for the unlabelled crowd
    for ser, label in zip(spec["series"], labels):
        x, y = np.asarray(ser["x"], dtype=float), np.asarray(ser["y"], dtype=float)
        crowd = grouped and not ser.get("label")
        (line,) = ax.plot(
            x,
            y,
            marker=ser.get("marker", "o"),
            ms=3,
            ls=ser.get("ls", "-"),
            lw=1.3,
            label=label,
            color=ser.get("color", "#4c72b0" if crowd else None),
            alpha=ser.get("alpha", 0.6 if crowd else 1.0),
        )
        if ser.get("lo") is not None and ser.get("hi") is not None:
            ax.fill_between(
                x,
                np.asarray(ser["lo"], dtype=float),
                np.asarray(ser["hi"], dtype=float),
                color=line.get_color(),
                alpha=0.2,
                lw=0,
            )
    for i, h in enumerate(spec.get("hlines", [])):
        ax.axhline(float(h["y"]), label=h.get("label"), **_reference_style(i, h))
    ax.set_xscale(spec.get("xscale", "linear"))
    ax.set_yscale(spec.get("yscale", "linear"))
    ax.grid(alpha=0.3, which="both")


def _plot_hist(ax: Any, spec: dict) -> None:
    for ser, label in zip(spec["series"], _series_labels(spec["series"])):
        values = np.asarray(ser["values"], dtype=float)
        ax.hist(values[np.isfinite(values)], bins=spec.get("bins", 20), alpha=0.55, label=label)
    for i, v in enumerate(spec.get("vlines", [])):
        ax.axvline(float(v["x"]), label=v.get("label"), **_reference_style(i, v))
    ax.grid(alpha=0.3)


def _annotate_heatmap(fig: Any, axes: list, zs: list[np.ndarray]) -> None:
    """Write each cell's value into the heat-map panels ``axes`` (matrices ``zs``) where it fits: per panel, the
    largest of :data:`ANNOTATION_SIZES` at which the widest value fits inside a cell with a margin, none when
    none does. Records the panels and the written boxes as :func:`figure_layout`."""
    fig.set_dpi(DPI)
    renderer = fig.canvas.get_renderer()
    layout: dict[str, Any] = {"dpi": DPI, "panels": [], "boxes": []}
    for k, (ax, z) in enumerate(zip(axes, zs)):
        rows, cols = z.shape
        box = ax.get_window_extent(renderer)
        cw, ch = box.width / max(cols, 1), box.height / max(rows, 1)
        finite = z[np.isfinite(z)]
        texts = {idx: f"{v:.2g}" for idx, v in np.ndenumerate(z) if np.isfinite(v)}
        widest = max(texts.values(), key=len, default="")
        size = None
        for fs in ANNOTATION_SIZES:
            probe = ax.text(0, 0, widest or "0", fontsize=fs)
            ext = probe.get_window_extent(renderer)
            probe.remove()
            if ext.width + 0.2 * cw <= cw and ext.height * 1.15 <= ch:
                size = fs
                break
        layout["panels"].append(
            {"rows": rows, "cols": cols, "cell": [round(cw, 1), round(ch, 1)], "fontsize": size, "annotated": 0}
        )
        if size is None or not texts:
            continue
        mid = 0.5 * (float(finite.max()) + float(finite.min()))
        for (row, col), text in texts.items():
            t = ax.text(
                col,
                row,
                text,
                ha="center",
                va="center",
                fontsize=size,
                color="w" if z[row, col] < mid else "k",
            )
            e = t.get_window_extent(renderer)
            layout["boxes"].append([round(e.x0, 1), round(e.y0, 1), round(e.x1, 1), round(e.y1, 1), k])
        layout["panels"][-1]["annotated"] = len(texts)
    fig._tvk_layout = layout


def render_plot_spec(rec_id: str, spec: dict, out: Path, formats: Formats = ("png",), rec: dict | None = None) -> str:
    """Render one ``artifacts["plots"]`` entry (see the module docstring) to ``<rec_id>-<name>.png`` (and the other
    ``formats`` next to it); ``rec`` as for :func:`plot_spec_figure`. ValueError when ``name`` or ``rec_id`` is not
    a safe file-name part (:func:`check_file_part`)."""
    check_file_part(spec.get("name"), f"{rec_id}: the plot name")
    check_file_part(rec_id, "the claim id")
    return _save(plot_spec_figure(rec_id, spec, rec), Path(out) / f"{rec_id}-{spec['name']}.png", formats)


def _heatmap_ticks(ax: Any, x: list, y: list, most: int = 16) -> None:
    """Tick labels of a heat map's columns and rows, at most ``most`` per axis (evenly thinned beyond that)."""
    for values, set_ticks in ((x, ax.set_xticks), (y, ax.set_yticks)):
        step = max(1, -(-len(values) // most))
        idx = list(range(0, len(values), step))
        set_ticks(idx, [str(values[i]) for i in idx], fontsize=8)


#: The label of an axis that a plot spec leaves without one (no ``xlabel`` / ``ylabel``, or a blank one): visible,
#: and saying that the spec gave none.
MISSING_LABEL = "{axis} (no label in the plot spec)"


def _axis_label(spec: dict, key: str, default: str | None = None) -> str:
    """The spec's ``xlabel`` / ``ylabel`` (``key``); without one (or a blank one) ``default``, else
    :data:`MISSING_LABEL`: every axis of a figure is labelled, whatever the spec."""
    text = str(spec.get(key) or "").strip()
    return text or default or MISSING_LABEL.format(axis=key[0])


def plot_spec_figure(rec_id: str, spec: dict, rec: dict | None = None) -> Any:
    """The matplotlib figure of one ``artifacts["plots"]`` entry (unsaved); with the record ``rec``, a spec with
    ``by_seed`` is drawn for the record's first failing seed (:func:`failing_seeds`), its title saying so."""
    pos = None
    if rec is not None:
        spec, pos = _for_seed(rec, spec)
        spec = _seed_crowd(spec, rec)
        if pos is not None:
            spec = {**spec, "title": f"{spec.get('title', rec_id)} [{_seed_label(rec, pos)}, which failed]"}
    kind = spec.get("kind")
    if kind not in PLOT_KINDS:
        raise ValueError(f"{rec_id}: plot kind must be one of {PLOT_KINDS}, got {kind!r}")
    if kind == "heatmap":
        panels = spec["panels"]
        fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 0.8, 3.6), squeeze=False)
        zs = []
        for ax, panel in zip(axes[0], panels):
            z = np.asarray(panel["z"], dtype=float)
            zs.append(z)
            im = ax.imshow(
                z,
                origin="lower",
                aspect="auto",
                cmap=spec.get("cmap", "viridis"),
                vmin=spec.get("vmin"),
                vmax=spec.get("vmax"),
            )
            _heatmap_ticks(ax, spec["x"], spec["y"])
            ax.set_xlabel(_axis_label(spec, "xlabel"))
            ax.set_ylabel(_axis_label(spec, "ylabel"))  # every panel: a reader of one panel alone still sees the axis
            ax.set_title(panel.get("title", ""), fontsize=9)
        fig.colorbar(im, ax=list(axes[0]), label=spec.get("zlabel") or "value")
        _annotate_heatmap(fig, list(axes[0]), zs)
    else:
        fig, ax = plt.subplots(figsize=(5.8, 3.6))
        (_plot_lines if kind == "lines" else _plot_hist)(ax, spec)
        ax.set_xlabel(_axis_label(spec, "xlabel"))
        ax.set_ylabel(_axis_label(spec, "ylabel", "count" if kind == "hist" else None))
        _legend(ax, fontsize=8)
    fig.suptitle(spec.get("title", rec_id), fontsize=10)
    fig._tvk_seed = pos
    return fig


#: The record-specific figures, in drawing order: the name after the claim id in the file name, and the function
#: drawing the figure from a record (None when the record lacks its artifact).
RECORD_FIGURES: tuple[tuple[str, Callable[[dict], Any]], ...] = (
    ("margin", _margin_curve),
    ("spectra", _spectra),
    ("frequencies", _frequency_histogram),
    ("neurons", _parity_neurons),
    ("spectrum", _lsa_spectrum),
    ("noise", _lsa_noise_curve),
    ("error", _looped_error),
)


def _drawings(rec: dict) -> list[tuple[str, Callable[[], Any]]]:
    """Every figure ``rec``'s artifacts may ask for, in drawing order (the record-specific ones, then ``plots``): its
    name (``plots[i]`` for a spec without one) and a function drawing it, which returns None when the record lacks
    the artifact and raises ValueError for a plot spec that is not one (:func:`_spec_figure`)."""
    out: list[tuple[str, Callable[[], Any]]] = [(name, partial(draw, rec)) for name, draw in RECORD_FIGURES]
    plots = rec["artifacts"].get("plots") or []
    for i, spec in enumerate(plots if isinstance(plots, list) else [plots]):
        name = spec.get("name") if isinstance(spec, dict) else None
        out.append((name if isinstance(name, str) else f"plots[{i}]", partial(_spec_figure, rec, spec)))
    return out


def _spec_figure(rec: dict, spec: Any) -> Any:
    """:func:`plot_spec_figure` of one ``plots`` entry of ``rec``; ValueError for an entry that is not a dict or
    whose ``name`` is not a safe file-name part (:func:`check_file_part`)."""
    if not isinstance(spec, dict):
        raise ValueError(f"a plot spec must be a dict, got {type(spec).__name__}")
    check_file_part(spec.get("name"), "its name")
    return plot_spec_figure(rec["id"], spec, rec)


@contextlib.contextmanager
def _closing_new_figures() -> Iterator[None]:
    """Close the figures opened inside the block when it raises: a figure that could not be drawn is not left
    open."""
    before = set(plt.get_fignums())
    try:
        yield
    except BaseException:
        for num in set(plt.get_fignums()) - before:
            plt.close(num)
        raise


def _write_figure(
    rec_id: str, name: str, draw: Callable[[], Any], out: Path, formats: Formats, ledger: FigureLedger, log: Log
) -> FigureFile | None:
    """Draw one figure of claim ``rec_id`` and write it under a file name no figure of ``ledger`` has; None when
    there is nothing to draw, or when it cannot be drawn or saved: then it is added to ``ledger.skipped`` and
    ``log`` gets one line naming the claim, the figure and why. An OSError (disk full, permissions) is raised."""
    try:
        with _closing_new_figures():
            fig = draw()
            if fig is None:
                return None
            check_file_part(rec_id, "the claim id")
            caption = figure_caption(fig, rec_id)
            stem = ledger.free_stem(f"{rec_id}-{name}")
            file = _save(fig, out / f"{stem}.png", formats)
    except OSError:
        raise
    except Exception as exc:
        reason = _clip(" ".join(f"{type(exc).__name__}: {exc}".split()), REASON_MAX)
        ledger.skipped.setdefault(rec_id, []).append(SkippedFigure(name, reason))
        log(f"figures: claim {rec_id}: figure {name!r} skipped (the report is written without it): {reason}")
        return None
    ledger.stems.add(stem.lower())
    return FigureFile(file, caption, f"{rec_id}-{name}.png")


def render_figures(
    records: list[dict],
    figures_dir: str | os.PathLike,
    *,
    formats: Formats = ("png",),
    log: Log | None = None,
    ledger: FigureLedger | None = None,
) -> dict[str, list[str]]:
    """Render every figure the records' artifacts support; returns {claim id: [PNG file names]}, each name a
    :class:`FigureFile` (a ``str`` carrying its caption and the name it asked for).

    A figure is written as ``<claim id>-<name>.png``, unless a figure of the report (``ledger``: by default the
    figures of this call) already has that file name, compared without case: then as ``<claim id>-<name>-2.png``
    (``-3``, ...). The first figure written keeps the name, so file names never collide and are today's wherever
    two figures do not ask for the same one.

    A figure that cannot be drawn or saved (matplotlib cannot draw a label's mathtext, a plot spec's name is not a
    safe file-name part (:func:`check_file_part`), an artifact is malformed) is skipped: ``log`` (default: stderr)
    gets one line naming the claim, the figure and why, and ``ledger.skipped`` keeps it for the report; the other
    figures are drawn.

    ``formats`` (a subset of :data:`FIGURE_FORMATS`) also writes each figure as PDF and/or SVG next to its PNG.

    Raises
    ------
    OSError
        A figure cannot be written (disk full, permissions): nothing to do with the figure, the report stops.
    """
    formats = check_formats(formats)
    matplotlib.use("Agg")
    out = Path(figures_dir)
    out.mkdir(parents=True, exist_ok=True)
    ledger = ledger if ledger is not None else FigureLedger()
    say = log if log is not None else _to_stderr
    made: dict[str, list[str]] = {}
    for rec in records:
        if not rec.get("artifacts"):
            continue
        drawn = [_write_figure(rec["id"], name, draw, out, formats, ledger, say) for name, draw in _drawings(rec)]
        found: list[str] = [f for f in drawn if f is not None]
        if found:
            made[rec["id"]] = found
    return made


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class BackgroundFigures:
    """Render each finished record's figures on one background thread while the report's other claims still run
    (``tvk report -j N``: the report's own process only waits for its workers meanwhile), into the directory that
    :func:`render_figures` would write at the end; :meth:`collect` waits for them.

    The figures are those :func:`render_figures` makes of the same records, file for file: each record is rendered
    by :func:`render_figures` itself, one record at a time, all into one :attr:`ledger` (the figures written and
    skipped; render the report's other records into it too). Where two figures ask for the same file name, the one
    rendered first keeps it: here the figure of the claim that finished first. A record must not change once
    submitted.

    Parameters
    ----------
    figures_dir : path
        Where the figures go (created when the first one is written).
    formats : tuple of str
        As for :func:`render_figures`.
    log : callable, optional
        Gets a line for each figure skipped (as for :func:`render_figures`), from the background thread.
    """

    def __init__(self, figures_dir: str | os.PathLike, formats: Formats = ("png",), log: Log | None = None) -> None:
        self.dir, self.formats, self.log = Path(figures_dir), check_formats(formats), log
        self.ledger = FigureLedger()
        self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tvk-figures")
        self._futures: dict[str, cf.Future[dict[str, list[str]]]] = {}

    def submit(self, rec: dict) -> None:
        """Queue ``rec``'s figures (a record without artifacts has none)."""
        if rec.get("artifacts") and rec["id"] not in self._futures:
            self._futures[rec["id"]] = self._pool.submit(
                render_figures, [rec], self.dir, formats=self.formats, log=self.log, ledger=self.ledger
            )

    def collect(self) -> dict[str, list[str]]:
        """Wait for every queued record; {claim id: [PNG names]} of those rendered (records without figures left out).

        Raises
        ------
        OSError
            The first error writing a figure (as :func:`render_figures` raises it).
        """
        self._pool.shutdown(wait=True)
        made: dict[str, list[str]] = {}
        for fut in self._futures.values():
            made.update(fut.result())
        return made

    def cancel(self) -> None:
        """Drop what has not started and wait for the figure being drawn (after an interrupt or an error)."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    @property
    def submitted(self) -> set[str]:
        """The ids of the records queued so far."""
        return set(self._futures)
