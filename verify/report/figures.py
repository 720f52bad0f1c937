"""Figures rendered from claim records only (the ``artifacts`` field), never from live objects.

For a training claim on modular addition:

* ``<id>-margin.png``: normalized margin / gamma* over training, one line per seed, against the
  predicted line at 1 (Edelman Fig 7.1c);
* ``<id>-spectra.png``: the first input block of the heaviest neurons with its trigonometric
  interpolation, and its one-sided power spectrum (Shi Fig 4.1);
* ``<id>-frequencies.png``: how many significant neurons each frequency dominates, per seed (Shi Fig 4.2a).

Any claim can also ask for generic plots through ``artifacts["plots"]``, a list of plain-data specs
rendered by :func:`render_plot_spec` to ``<id>-<name>.png``:

* ``{"name", "kind": "lines", "series": [{"label", "x", "y", "lo"?, "hi"?, "marker"?, "ls"?, "color"?, "alpha"?}], "hlines"?: [{"y", "label"}],
  "xlabel", "ylabel", "xscale"?, "yscale"?, "title"?}`` - curves, optional shaded band [lo, hi];
* ``{"name", "kind": "heatmap", "x", "y", "panels": [{"title", "z"}], "xlabel", "ylabel", "zlabel"?, "vmin"?, "vmax"?}``
  - one or more panels of a matrix z[row = y][col = x], annotated cell by cell;
* ``{"name", "kind": "hist", "series": [{"label", "values"}], "bins"?, "xlabel", "ylabel"? (default "count"),
  "vlines"?: [{"x", "label"}]}``.

Every axis is labelled, every panel of a heat map included (a histogram's y axis defaults to "count", a heat map's
colour bar to "value"), and a plot with more than one series has a legend (unlabelled series are numbered). With
``formats=("png", "pdf", "svg")`` each figure is also written as PDF and SVG next to its PNG (same stem); the
returned names are always the PNGs.
:func:`remove_stale_figures` deletes the figures of an earlier run that the current one did not write.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from verify.runtime.files import atomic_path

__all__ = [
    "FIGURE_FORMATS",
    "PLOT_KINDS",
    "plot_spec_figure",
    "remove_stale_figures",
    "render_figures",
    "render_plot_spec",
]

#: The file formats a figure can be written in; PNG is always written (the report shows it).
FIGURE_FORMATS = ("png", "pdf", "svg")

Formats = tuple[str, ...]


def check_formats(formats: Formats) -> Formats:
    """The formats to write, PNG first and always included; ValueError for a format not in FIGURE_FORMATS."""
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if bad:
        raise ValueError(f"figure formats must be among {FIGURE_FORMATS}, got {bad}")
    return ("png", *[f for f in FIGURE_FORMATS[1:] if f in formats])


def _save(fig: Any, target: Path, formats: Formats = ("png",)) -> str:
    """Write ``fig`` to ``target`` (a ``.png`` path) and, for each other format in ``formats``, next to it with
    the same stem; returns the PNG's file name."""
    try:
        for fmt in check_formats(formats):
            with atomic_path(target.with_suffix(f".{fmt}")) as tmp:
                fig.savefig(tmp, format=fmt, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)
    return target.name


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


def _margin_curve(rec: dict, out: Path, formats: Formats = ("png",)) -> str | None:
    hist = rec["artifacts"].get("history")
    if not hist:
        return None
    steps = np.array([h["step"] for h in hist])
    ratios = np.array([h["ratio"] for h in hist], dtype=float)  # (T, S)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for s in range(ratios.shape[1]):
        ax.plot(
            steps, ratios[:, s], lw=1.4, label=f"seed {rec['metadata']['seeds'][s] if rec['metadata']['seeds'] else s}"
        )
    ax.axhline(1.0, color="k", ls="--", lw=1, label=r"predicted $\gamma^*$")
    ax.set_ylim(max(-0.25, min(-0.05, float(np.nanmin(ratios)) - 0.05)), 1.08)  # early negative margins clipped
    ax.set_xlabel("step")
    ax.set_ylabel(r"$h(\theta)/\|\theta\|^{k+1}_{2,k+1}\,/\,\gamma^*$")
    a = rec["artifacts"]
    setting = ", ".join(f"{key}={a[key]}" for key in ("p", "n", "k", "group") if key in a)
    ax.set_title(f"{rec['id']}: {setting}" if setting else rec["id"])
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    return _save(fig, out / f"{rec['id']}-margin.png", formats)


def _spectra(rec: dict, out: Path, formats: Formats = ("png",)) -> str | None:
    sp = rec["artifacts"].get("spectra")
    if not sp:
        return None
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
    fig.suptitle(f"{rec['id']}: heaviest neurons of seed 0", fontsize=10)
    return _save(fig, out / f"{rec['id']}-spectra.png", formats)


def _frequency_histogram(rec: dict, out: Path, formats: Formats = ("png",)) -> str | None:
    cov = rec["artifacts"].get("coverage")
    if not cov:
        return None
    cov = np.array(cov)
    S, F = cov.shape
    seeds = rec["metadata"]["seeds"] or list(range(S))
    irreps = rec["artifacts"].get("irrep_names")  # a group: one bar per non-trivial irrep, not per frequency
    fig, ax = plt.subplots(figsize=(6, 3.2))
    width = 0.8 / S
    for s in range(S):
        ax.bar(np.arange(1, F + 1) + (s - (S - 1) / 2) * width, cov[s], width=width, label=f"seed {seeds[s]}")
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
    if S > 1:
        ax.legend(fontsize=8)
    return _save(fig, out / f"{rec['id']}-frequencies.png", formats)


def _parity_neurons(rec: dict, out: Path, formats: Formats = ("png",)) -> str | None:
    """Edelman Fig 7.5a: normalized u of the heaviest neurons (support S predicted, |u_j| = 1/sqrt(k+1)) and
    w[0] - w[1] against the predicted +-2 w_entry."""
    a = rec["artifacts"].get("parity_neurons")
    if not a:
        return None
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
        ax1.axvline(2 * s * a["w_entry_predicted"], color="k", ls="--", lw=1)
    ax1.invert_yaxis()
    ax1.set_yticks([])
    ax1.set_ylabel("neuron (same rows)")
    ax1.set_xlabel(r"$(w_0 - w_1)/\|\theta_i\|$")
    fig.suptitle(f"{rec['id']}: heaviest neurons of seed 0 (Edelman Fig 7.5a)", fontsize=10)
    return _save(fig, out / f"{rec['id']}-neurons.png", formats)


def _lsa_spectrum(rec: dict, out: Path, formats: Formats = ("png",)) -> str | None:
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
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"{rec['id']}: learned vs optimal spectrum", fontsize=10, y=1.04)
    return _save(fig, out / f"{rec['id']}-spectrum.png", formats)


def _lsa_noise_curve(rec: dict, out: Path, formats: Formats = ("png",)) -> str | None:
    """Shi Thm 5.4.2: evaluation loss under a noisy prompt against the noise level, one line per rank."""
    a = rec["artifacts"].get("lsa_noise_curve")
    if not a:
        return None
    series = [
        {"label": f"rank {r}", "x": a["sigma"], "y": losses}
        for r, losses in sorted(a["loss_by_rank"].items(), key=lambda kv: int(kv[0]))
    ]
    return render_plot_spec(
        rec["id"],
        {
            "name": "noise",
            "kind": "lines",
            "series": series,
            "xlabel": r"prompt noise $\sigma$",
            "ylabel": "evaluation loss",
            "title": f"{rec['id']}: which rank is most robust",
        },
        out,
        formats,
    )


def _looped_error(rec: dict, out: Path, formats: Formats = ("png",)) -> str | None:
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
    return render_plot_spec(
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
        out,
        formats,
    )


PLOT_KINDS = ("lines", "heatmap", "hist")


def _series_label(ser: dict, i: int, n: int) -> str | None:
    """A series' legend label; unlabelled series are numbered when there are several."""
    return ser.get("label") or (f"series {i + 1}" if n > 1 else None)


def _plot_lines(ax: Any, spec: dict) -> None:
    n = len(spec["series"])
    for i, ser in enumerate(spec["series"]):
        x, y = np.asarray(ser["x"], dtype=float), np.asarray(ser["y"], dtype=float)
        (line,) = ax.plot(
            x,
            y,
            marker=ser.get("marker", "o"),
            ms=3,
            ls=ser.get("ls", "-"),
            lw=1.3,
            label=_series_label(ser, i, n),
            color=ser.get("color"),
            alpha=ser.get("alpha", 1.0),
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
    for h in spec.get("hlines", []):
        ax.axhline(float(h["y"]), color=h.get("color", "k"), ls="--", lw=1, label=h.get("label"))
    ax.set_xscale(spec.get("xscale", "linear"))
    ax.set_yscale(spec.get("yscale", "linear"))
    ax.grid(alpha=0.3, which="both")


def _plot_hist(ax: Any, spec: dict) -> None:
    n = len(spec["series"])
    for i, ser in enumerate(spec["series"]):
        values = np.asarray(ser["values"], dtype=float)
        ax.hist(values[np.isfinite(values)], bins=spec.get("bins", 20), alpha=0.55, label=_series_label(ser, i, n))
    for v in spec.get("vlines", []):
        ax.axvline(float(v["x"]), color=v.get("color", "k"), ls="--", lw=1, label=v.get("label"))
    ax.grid(alpha=0.3)


def render_plot_spec(rec_id: str, spec: dict, out: Path, formats: Formats = ("png",)) -> str:
    """Render one ``artifacts["plots"]`` entry (see the module docstring) to ``<rec_id>-<name>.png`` (and the other
    ``formats`` next to it)."""
    return _save(plot_spec_figure(rec_id, spec), Path(out) / f"{rec_id}-{spec['name']}.png", formats)


def plot_spec_figure(rec_id: str, spec: dict) -> Any:
    """The matplotlib figure of one ``artifacts["plots"]`` entry (unsaved)."""
    kind = spec.get("kind")
    if kind not in PLOT_KINDS:
        raise ValueError(f"{rec_id}: plot kind must be one of {PLOT_KINDS}, got {kind!r}")
    if kind == "heatmap":
        panels = spec["panels"]
        fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 0.8, 3.6), squeeze=False)
        for ax, panel in zip(axes[0], panels):
            z = np.asarray(panel["z"], dtype=float)
            im = ax.imshow(
                z,
                origin="lower",
                aspect="auto",
                cmap=spec.get("cmap", "viridis"),
                vmin=spec.get("vmin"),
                vmax=spec.get("vmax"),
            )
            ax.set_xticks(range(len(spec["x"])), [str(v) for v in spec["x"]], fontsize=8)
            ax.set_yticks(range(len(spec["y"])), [str(v) for v in spec["y"]], fontsize=8)
            for (row, col), v in np.ndenumerate(z):
                if np.isfinite(v):
                    ax.text(
                        col,
                        row,
                        f"{v:.2g}",
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="w" if v < 0.5 * (np.nanmax(z) + np.nanmin(z)) else "k",
                    )
            ax.set_xlabel(spec.get("xlabel", ""))
            ax.set_ylabel(spec.get("ylabel", ""))  # every panel: a reader of one panel alone still sees the axis
            ax.set_title(panel.get("title", ""), fontsize=9)
        fig.colorbar(im, ax=list(axes[0]), label=spec.get("zlabel") or "value")
    else:
        fig, ax = plt.subplots(figsize=(5.8, 3.6))
        (_plot_lines if kind == "lines" else _plot_hist)(ax, spec)
        ax.set_xlabel(spec.get("xlabel", ""))
        ax.set_ylabel(spec.get("ylabel") or ("count" if kind == "hist" else ""))
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(spec.get("title", rec_id), fontsize=10)
    return fig


def _generic_plots(rec: dict, out: Path, formats: Formats = ("png",)) -> list[str]:
    return [render_plot_spec(rec["id"], spec, out, formats) for spec in rec["artifacts"].get("plots", [])]


def render_figures(
    records: list[dict], figures_dir: str | os.PathLike, *, formats: Formats = ("png",)
) -> dict[str, list[str]]:
    """Render every figure the records' artifacts support; returns {claim id: [PNG file names]}.

    ``formats`` (a subset of :data:`FIGURE_FORMATS`) also writes each figure as PDF and/or SVG next to its PNG.
    """
    formats = check_formats(formats)
    matplotlib.use("Agg")
    out = Path(figures_dir)
    out.mkdir(parents=True, exist_ok=True)
    made: dict[str, list[str]] = {}
    for rec in records:
        if not rec.get("artifacts"):
            continue
        names = [
            f(rec, out, formats)
            for f in (
                _margin_curve,
                _spectra,
                _frequency_histogram,
                _parity_neurons,
                _lsa_spectrum,
                _lsa_noise_curve,
                _looped_error,
            )
        ]
        names = [n for n in names if n] + _generic_plots(rec, out, formats)
        if names:
            made[rec["id"]] = names
    return made
