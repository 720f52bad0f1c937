"""Every axis of every figure the report draws is labelled (issue 12): the generic plot kinds of the quick records
of a few real claims (lines, hist, heatmap), a two-panel heat map shaped like the Pareto grid's (Edelman Fig. 6.1),
and every record-specific figure of :mod:`verify.report.figures` drawn from synthetic artifacts."""

from __future__ import annotations

from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

import verify.report.figures as vf
from verify.claims import RunContext, registry, run_claim
from verify.runtime.options import RunOptions

matplotlib.use("Agg")

#: Quick real claims (about 2 s together) whose records carry plot specs of the three generic kinds.
PLOTTING = (
    "edelman-ch5-figB.8-sinusoid-gaps",
    "edelman-ch5-thm5.7-plateau",
    "karp-ch4-fig4.1-v-step-model",
    "karp-ch4-thm4.3-gd-ordering",
)

#: The Pareto grid's heat map (verify/claims/sparse_parity/pareto.py) with the quick grid's shape: one panel per
#: initialisation, rows = samples m (the last "inf": online), columns = widths r.
PARETO_LIKE = {
    "name": "heatmap",
    "kind": "heatmap",
    "x": [10, 100, 1000],
    "y": ["200", "1000", "inf"],
    "panels": [
        {"title": "sparse init", "z": [[0.0, 0.5, 1.0], [0.5, 1.0, 1.0], [1.0, 1.0, 1.0]]},
        {"title": "dense init", "z": [[0.0, 0.0, 0.5], [0.0, 0.5, 1.0], [0.5, 1.0, 1.0]]},
    ],
    "xlabel": "width r",
    "ylabel": "samples m",
    "zlabel": "success rate",
    "vmin": 0.0,
    "vmax": 1.0,
    "title": "offline (30,3)-parity",
}


def unlabelled_axes(fig: Any) -> list[str]:
    """The axes of ``fig`` missing an x or y label (a colour bar needs its one label along the bar)."""
    missing = []
    for i, ax in enumerate(fig.axes):
        if hasattr(ax, "_colorbar"):
            if not (ax.get_ylabel().strip() or ax.get_xlabel().strip()):
                missing.append(f"colour bar {i}")
            continue
        for axis, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())):
            if not label.strip():
                missing.append(f"axes {i} ({ax.get_title() or 'untitled'}): no {axis} label")
    return missing


@pytest.fixture
def captured(monkeypatch) -> list[Any]:
    """The figures :func:`verify.report.figures.render_figures` draws, kept open instead of saved."""
    seen: list[Any] = []
    monkeypatch.setattr(vf, "_save", lambda fig, target, formats=("png",): (seen.append(fig), target.name)[1])
    yield seen
    for fig in seen:
        plt.close(fig)


def test_the_unlabelled_axes_check_can_fail():
    fig, (a, b) = plt.subplots(1, 2)
    try:
        a.set_xlabel("x")
        a.set_ylabel("y")
        b.set_xlabel("x")
        assert unlabelled_axes(fig) == ["axes 1 (untitled): no y label"]
    finally:
        plt.close(fig)


def test_two_panel_heatmap_labels_every_panel_and_its_colour_bar():
    fig = vf.plot_spec_figure("edelman-ch6-fig6.1-pareto-grid", PARETO_LIKE)
    try:
        panels = [ax for ax in fig.axes if not hasattr(ax, "_colorbar")]
        assert len(panels) == 2 and [ax.get_title() for ax in panels] == ["sparse init", "dense init"]
        assert [ax.get_ylabel() for ax in panels] == ["samples m", "samples m"]
        assert [ax.get_xlabel() for ax in panels] == ["width r", "width r"]
        assert unlabelled_axes(fig) == []
    finally:
        plt.close(fig)


def test_every_plot_spec_of_real_quick_records_has_labelled_axes(captured, tmp_path):
    ctx = RunContext(scale="quick", options=RunOptions(progress=False))
    records = [run_claim(registry()[cid], ctx).to_json() for cid in PLOTTING]
    specs = [(r["id"], spec) for r in records for spec in r["artifacts"].get("plots", [])]
    assert {spec["kind"] for _, spec in specs} == set(vf.PLOT_KINDS)
    made = vf.render_figures(records, tmp_path)
    assert sum(map(len, made.values())) == len(captured) == len(specs)
    for (cid, spec), fig in zip(specs, captured):
        assert unlabelled_axes(fig) == [], (cid, spec["name"])


def _synthetic_records() -> list[dict]:
    """One record per record-specific figure of :mod:`verify.report.figures`, with small artifacts of the right shape."""
    rng = np.random.default_rng(0)
    curve = {"T": [1, 2, 4], "error": [1.0, 0.5, 0.25], "bound": [1.0, 0.7, 0.5]}
    return [
        {
            "id": "margin",
            "metadata": {"seeds": [0, 1]},
            "artifacts": {"history": [{"step": s, "ratio": [s / 10, s / 12]} for s in range(5)], "p": 7},
        },
        {
            "id": "spectra",
            "metadata": {"seeds": [0]},
            "artifacts": {
                "spectra": {"u1_values": rng.normal(size=(3, 7)).tolist(), "u1_power": rng.random((3, 4)).tolist()}
                | {"neurons": [4, 1, 2]}
            },
        },
        {"id": "coverage", "metadata": {"seeds": [0, 1]}, "artifacts": {"coverage": [[2, 3, 1], [1, 4, 2]]}},
        {
            "id": "parity",
            "metadata": {"seeds": [0]},
            "artifacts": {
                "parity_neurons": {
                    "u": rng.normal(size=(4, 6)).tolist(),
                    "w": rng.normal(size=(4, 2)).tolist(),
                    "abs_u_predicted": 0.5,
                    "w_entry_predicted": 0.25,
                    "support": [0, 2],
                    "neurons": [3, 0, 1, 2],
                }
            },
        },
        {
            "id": "lsa",
            "metadata": {"seeds": [0]},
            "artifacts": {
                "lsa_spectrum": {
                    "rank": [1, 2],
                    "learned": [[1, 0, 0], [1, 0.5, 0]],
                    "optimal": [[1, 0, 0], [1, 0.5, 0]],
                },
                "lsa_noise_curve": {"sigma": [0, 0.5, 1], "loss_by_rank": {"1": [1, 2, 3], "2": [0.5, 2, 4]}},
            },
        },
        {"id": "looped", "metadata": {"seeds": [0]}, "artifacts": {"looped_error": curve}},
        {
            "id": "looped-n",
            "metadata": {"seeds": [0]},
            "artifacts": {"looped_error": curve, "looped_error_by_n": {"16": curve, "32": curve}},
        },
    ]


def test_every_record_specific_figure_has_labelled_axes(captured, tmp_path):
    records = _synthetic_records()
    made = vf.render_figures(records, tmp_path)
    assert sorted(made) == sorted(r["id"] for r in records)
    names = [n for r in records for n in made[r["id"]]]
    assert len(names) == len(captured) == 8  # lsa draws a spectrum and a noise curve
    for name, fig in zip(names, captured):
        assert unlabelled_axes(fig) == [], name


# --- the shared rules of issue 31: values in cells only where they fit, capped legends, distinct reference lines,
# twice the resolution, the failing seed's figure


def _boxes_overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_heatmap_values_are_written_only_where_they_fit(tmp_path):
    rng = np.random.default_rng(1)
    dense = {
        "name": "dense",
        "kind": "heatmap",
        "x": list(range(31)),
        "y": list(range(31)),
        "panels": [{"title": f"head {h}", "z": rng.normal(size=(31, 31)).tolist()} for h in range(4)],
        "xlabel": "b",
        "ylabel": "a",
    }
    name = vf.render_plot_spec("d", dense, tmp_path)
    layout = vf.read_layout(tmp_path / name)
    assert layout["dpi"] == vf.DPI == 220 and len(layout["panels"]) == 4
    assert all(p["annotated"] == 0 and p["fontsize"] is None for p in layout["panels"]) and layout["boxes"] == []
    name = vf.render_plot_spec("p", PARETO_LIKE, tmp_path)
    layout = vf.read_layout(tmp_path / name)
    assert [p["annotated"] for p in layout["panels"]] == [9, 9] and len(layout["boxes"]) == 18
    for x0, y0, x1, y1, k in layout["boxes"]:
        w, h = layout["panels"][k]["cell"]
        assert 0 < x1 - x0 < w and 0 < y1 - y0 < h
    boxes = layout["boxes"]
    assert not any(_boxes_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    fig = vf.plot_spec_figure("d", dense)
    try:
        assert all(len(ax.get_xticks()) <= 16 for ax in fig.axes[:4])  # 31 tick labels thinned to at most 16
    finally:
        plt.close(fig)


def test_legends_are_capped_and_reference_lines_differ():
    many = {
        "name": "m",
        "kind": "lines",
        "xlabel": "x",
        "ylabel": "y",
        "series": [{"label": f"run {i}", "x": [0, 1], "y": [i, i + 1]} for i in range(30)],
        "hlines": [{"y": 1, "label": "a"}, {"y": 2, "label": "b"}, {"y": 3, "label": "c"}],
    }
    crowd = {"name": "c", "kind": "lines", "xlabel": "x", "ylabel": "y", "series": many["series"]}
    crowd = crowd | {"series": [{"x": s["x"], "y": s["y"]} for s in many["series"]]}
    fig = vf.plot_spec_figure("demo", many)
    try:
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert len(texts) == vf.LEGEND_MAX and texts[-1].startswith("+ 26 more")  # 30 runs + 3 lines - 7 shown
        assert texts[:3] == ["a", "b", "c"]  # the reference lines (predictions) are never the entries cut
        refs = [(line.get_color(), str(line.get_linestyle())) for line in fig.axes[0].get_lines()[-3:]]
        assert len(set(refs)) == 3  # three reference lines, three styles
    finally:
        plt.close(fig)
    fig = vf.plot_spec_figure("demo", crowd)
    try:
        assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["30 unlabelled series"]
        assert len(fig.axes[0].get_lines()) == 30  # every series is still drawn
    finally:
        plt.close(fig)


def _seed_record(verdict: str = "fail", reason: str = "tops 0.9, 0.8, 0.1; seed 2: top 0.1") -> dict:
    panel = lambda v: [{"title": "p", "z": [[v, v], [v, v]]}]  # noqa: E731
    spec = {"name": "w", "kind": "heatmap", "x": [0, 1], "y": [0, 1], "panels": panel(0.0), "title": "W"}
    spec["by_seed"] = [{}, {"panels": panel(1.0)}, {"panels": panel(2.0)}]
    return {
        "id": "r",
        "verdict": verdict,
        "reason": reason,
        "details": {},
        "metadata": {"seeds": [5, 6, 7]},
        "artifacts": {
            "plots": [spec],
            "history": [{"step": s, "ratio": [0.5, 0.6, 0.1]} for s in range(3)],
            "spectra": {"u1_values": [[0.0] * 5], "u1_power": [[1.0, 0.0, 0.0]], "neurons": [0]}
            | {"by_seed": [{}, {}, {"u1_values": [[1.0] * 5], "neurons": [3]}]},
        },
    }


def test_a_failing_seed_is_the_seed_drawn(captured, tmp_path):
    rec = _seed_record()
    assert vf.failing_seeds(rec) == [2]
    assert vf.failing_seeds(_seed_record("pass")) == [] and vf.failing_seeds(
        rec | {"details": {"failed_seeds": [1]}}
    ) == [1]
    assert vf.seed_figures(rec) == ["r-w.png", "r-spectra.png", "r-margin.png"]
    vf.render_figures([rec], tmp_path)
    margin, spectra, heat = captured  # drawn in this order: record-specific figures, then the plot specs
    assert heat.axes[0].get_images()[0].get_array().max() == 2.0  # seed 2's panel, not seed 0's
    assert "seed 7 (#2), which failed" in heat._suptitle.get_text() and vf.figure_layout(heat)["seed"] == 2
    assert "seed 7 (#2), which failed" in spectra._suptitle.get_text()
    assert "neuron 3" in spectra.axes[0].get_ylabel()
    labels = [t.get_text() for t in margin.axes[0].get_legend().get_texts()]
    assert "seed 7 (#2), failed" in labels
    widths = {line.get_label(): line.get_linewidth() for line in margin.axes[0].get_lines()}
    assert widths["seed 7 (#2), failed"] > widths["seed 5"]


def test_a_one_seed_figure_says_when_the_failing_seed_is_not_in_the_record(captured, tmp_path):
    rec = _seed_record()
    del rec["artifacts"]["spectra"]["by_seed"]
    vf.render_figures([rec], tmp_path)
    assert "seed 7 (#2) failed; the record holds this seed's data only" in captured[1]._suptitle.get_text()


@pytest.fixture(scope="module")
def plotting_records() -> list[dict]:
    ctx = RunContext(scale="quick", options=RunOptions(progress=False))
    return [run_claim(registry()[cid], ctx).to_json() for cid in PLOTTING]


def test_background_figures_are_the_files_render_figures_writes(plotting_records, tmp_path):
    """Drawn on the background thread while claims run (`tvk report -j N`): the same files, byte for byte, and the
    same names per claim, as render_figures of the same records at the end; a record without artifacts has none."""
    vf.render_figures(plotting_records, tmp_path / "end")
    background = vf.BackgroundFigures(tmp_path / "bg")
    for rec in [*plotting_records, {"id": "no-figures", "artifacts": {}}]:
        background.submit(rec)
    made = background.collect()
    assert made == vf.render_figures(plotting_records, tmp_path / "again") and len(made) == len(PLOTTING)
    assert background.submitted == set(PLOTTING)
    names = sorted(p.name for p in (tmp_path / "end").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "bg").iterdir()) and names
    for name in names:
        assert (tmp_path / "end" / name).read_bytes() == (tmp_path / "bg" / name).read_bytes(), name


def test_background_figures_raise_the_write_error_when_collected(plotting_records, tmp_path):
    (tmp_path / "file").write_text("not a directory")
    background = vf.BackgroundFigures(tmp_path / "file" / "figures")
    background.submit(plotting_records[0])
    with pytest.raises(OSError):
        background.collect()


def _crowded_record(seeds: list[int], reason: str, verdict: str = "pass") -> tuple[dict, dict]:
    series = [{"label": f"seed {s}", "x": [0, 1], "y": [1.0, float(i)]} for i, s in enumerate(seeds)]
    spec = {"name": "kl", "kind": "lines", "xlabel": "step", "ylabel": "KL", "series": series}
    spec["hlines"] = [{"y": 0.5, "label": "bigram strategy"}]
    rec = {"id": "r", "verdict": verdict, "reason": reason, "details": {}, "metadata": {"seeds": seeds}}
    return rec, spec


def test_named_seeds_reads_seed_values_whatever_the_verdict():
    """A passing population names its failing seeds too; with --seed-offset the reason names seed values, which are
    mapped to their positions; a number that is no seed is read as a position, as failing_seeds does."""
    rec, _ = _crowded_record(
        list(range(1000, 1040)), "34 of 40 pass; failing: seed 1007: ends nearest unigram; seed 1034: x"
    )
    assert vf.named_seeds(rec) == [7, 34] and vf.failing_seeds(rec) == []
    assert vf.failing_seeds(rec | {"verdict": "fail"}) == [7, 34]  # the figures of a failed offset run find them
    assert vf.named_seeds({"reason": "seed 2: top 0.1", "metadata": {"seeds": [5, 6, 7]}}) == [2]


def test_a_crowded_per_seed_plot_singles_out_the_failing_seeds():
    """Forty seed curves: the named ones drawn last in their own colour under one entry when there are more than
    SINGLED_OUT_MAX, the rest as one crowd; the reference line keeps its legend entry; without a named seed, one
    entry for all; a plot of eight seeds or fewer, or of other series, is drawn as its spec says."""
    seeds = list(range(40))
    rec, spec = _crowded_record(seeds, "failing: seed 10: a; seed 11: b; seed 14: c; seed 16: d")
    fig = vf.plot_spec_figure("r", spec, rec)
    try:
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_legend().get_texts()] == [
            "bigram strategy",  # the reference line first
            "36 other seeds",
            "seeds 10, 11, 14, 16 (fail a check)",
        ]
        lines = ax.get_lines()
        assert len(lines) == 41  # every seed is still drawn, then the reference line
        assert {line.get_color() for line in lines[:36]} == {vf.CROWD_COLOR}
        assert {line.get_color() for line in lines[36:40]} == {vf.SINGLED_OUT[0]}
        assert [line.get_ydata()[1] for line in lines[36:40]] == [10.0, 11.0, 14.0, 16.0]
    finally:
        plt.close(fig)
    rec2, _ = _crowded_record(seeds, "failing: seed 3: a; seed 5: b")
    fig = vf.plot_spec_figure("r", spec, rec2)
    try:
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert texts == ["bigram strategy", "38 other seeds", "seed 3 (fails a check)", "seed 5 (fails a check)"]
    finally:
        plt.close(fig)
    fig = vf.plot_spec_figure("r", spec, rec | {"reason": "40 of 40 pass"})
    try:
        assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["bigram strategy", "40 seeds"]
    finally:
        plt.close(fig)
    few = spec | {"series": spec["series"][:8]}
    assert vf._seed_crowd(few, rec) == few
    other = spec | {"series": [s | {"label": f"run {i}"} for i, s in enumerate(spec["series"])]}
    assert vf._seed_crowd(other, rec) == other


def test_the_frequency_legend_hides_no_bar(captured, tmp_path):
    """Eight seeds' bars fill the axes up to the highest frequency (Shi Fig 4.2a): the legend sits outside the axes,
    so it covers none of them (inside, it hid seeds 4-7's bars at the highest frequencies)."""
    coverage = [[3, 4, 5, 6, 7, 8] for _ in range(8)]
    vf.render_figures(
        [{"id": "k2", "metadata": {"seeds": list(range(8))}, "artifacts": {"coverage": coverage}}], tmp_path
    )
    (fig,) = captured
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    bars = [p.get_window_extent(renderer) for p in ax.patches]
    assert len(bars) == 48 and not any(legend.overlaps(b) for b in bars)
    assert legend.x0 >= ax.get_window_extent(renderer).x1


def test_a_plot_spec_without_axis_labels_gets_visible_ones():
    """A claim's plot spec may leave out ``xlabel`` / ``ylabel`` (or leave them blank): its axes are labelled all the
    same, with a label saying that the spec gave none (they were left blank before)."""
    bare = [
        {"name": "l", "kind": "lines", "series": [{"x": [0, 1], "y": [0, 1]}]},
        {"name": "h", "kind": "hist", "series": [{"values": [1, 2, 2]}], "xlabel": "  "},
        {
            "name": "m",
            "kind": "heatmap",
            "x": [0, 1],
            "y": [0],
            "panels": [{"title": "a", "z": [[0, 1]]}, {"z": [[1, 0]]}],
        },
    ]
    for spec in bare:
        fig = vf.plot_spec_figure("qa", spec)
        try:
            assert unlabelled_axes(fig) == [], spec["name"]
            assert fig.axes[0].get_xlabel() == "x (no label in the plot spec)"
            expected = "count" if spec["kind"] == "hist" else "y (no label in the plot spec)"
            assert fig.axes[0].get_ylabel() == expected
        finally:
            plt.close(fig)


def _lines(name: Any, **kw: Any) -> dict:
    """A small "lines" plot spec named ``name``."""
    return {"name": name, "kind": "lines", "xlabel": "x", "ylabel": "y", "series": [{"x": [0, 1], "y": [0, 1]}]} | kw


def test_a_figure_that_cannot_be_drawn_is_skipped_by_name(tmp_path):
    """A label matplotlib cannot draw (bad mathtext), a name that is not a safe file-name part, a spec without a name
    and an entry that is not a spec once stopped the whole report (the mathtext error, or a missing directory, without
    the claim's name); each is now skipped with one log line naming the claim, the figure and why, and kept in the
    ledger for the report, while the claim's other figures are drawn and no figure is left open."""
    records = [
        {"id": "qa-math", "artifacts": {"plots": [_lines("m", xlabel=r"cost $\frac{a}$ x"), _lines("ok")]}},
        {"id": "qa-slash", "artifacts": {"plots": [_lines("a/b"), _lines("a b"), _lines(None), "not a spec"]}},
        {"id": "qa-art", "metadata": {"seeds": [0]}, "artifacts": {"coverage": [[1, "x", None]]}},
    ]
    lines: list[str] = []
    ledger = vf.FigureLedger()
    open_before = plt.get_fignums()
    made = vf.render_figures(records, tmp_path, log=lines.append, ledger=ledger)
    assert made == {"qa-math": ["qa-math-ok.png"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qa-math-ok.png"] and plt.get_fignums() == open_before
    skipped = {cid: [s.name for s in found] for cid, found in ledger.skipped.items()}
    assert skipped == {"qa-math": ["m"], "qa-slash": ["a/b", "a b", "plots[2]", "plots[3]"], "qa-art": ["frequencies"]}
    assert "ParseSyntaxException" in ledger.skipped["qa-math"][0].reason
    assert "not a safe file-name part" in ledger.skipped["qa-slash"][0].reason
    assert "missing" in ledger.skipped["qa-slash"][2].reason and "dict" in ledger.skipped["qa-slash"][3].reason
    assert len(lines) == 6 and lines[0].startswith("figures: claim qa-math: figure 'm' skipped")
    assert "claim qa-slash: figure 'a/b' skipped" in lines[1] and "not a safe file-name part" in lines[1]
    with pytest.raises(ValueError, match="not a safe file-name part"):
        vf.render_plot_spec("qa", _lines("../up"), tmp_path)


def test_figures_that_ask_for_one_file_name_get_distinct_ones(tmp_path):
    """Claim qa-a's plot b-c and claim qa-a-b's plot c both asked for qa-a-b-c.png, and the second overwrote the
    first. The first figure written keeps the name, a later one gets -2 (-3, ...), compared without case (one file
    on a case-insensitive disk); names nothing else asks for are today's, and each remembers the name it asked for."""
    records = [
        {"id": "qa-a", "artifacts": {"plots": [_lines("b-c", title="first")]}},
        {
            "id": "qa-a-b",
            "artifacts": {"plots": [_lines("c", title="2"), _lines("C", title="3"), _lines("d", title="4")]},
        },
    ]
    made = vf.render_figures(records, tmp_path)
    assert made == {"qa-a": ["qa-a-b-c.png"], "qa-a-b": ["qa-a-b-c-2.png", "qa-a-b-C-3.png", "qa-a-b-d.png"]}
    assert [n.asked for n in made["qa-a-b"]] == ["qa-a-b-c.png", "qa-a-b-C.png", "qa-a-b-d.png"]  # type: ignore[attr-defined]
    assert len({(tmp_path / n).read_bytes() for ns in made.values() for n in ns}) == 4  # four figures, four files


def test_background_figures_and_the_rest_share_one_ledger(tmp_path):
    """With -j N the records drawn on the background thread and those drawn at the end get distinct names too."""
    background = vf.BackgroundFigures(tmp_path)
    background.submit({"id": "qa-a", "artifacts": {"plots": [_lines("b-c")]}})
    assert background.collect() == {"qa-a": ["qa-a-b-c.png"]}
    rest = vf.render_figures(
        [{"id": "qa-a-b", "artifacts": {"plots": [_lines("c")]}}], tmp_path, ledger=background.ledger
    )
    assert rest == {"qa-a-b": ["qa-a-b-c-2.png"]}


def test_each_figure_carries_a_caption_saying_what_it_shows(tmp_path):
    """The report's alt text and caption of a figure (they were its file name): the spec's title, else the claim id
    with the axes; a record-specific figure adds what it shows."""
    records = [
        {"id": "qa", "artifacts": {"plots": [_lines("t", title="KL to each strategy"), _lines("u")]}},
        _synthetic_records()[0],  # the margin curves
    ]
    made = vf.render_figures(records, tmp_path)
    captions = [n.caption for ns in made.values() for n in ns]  # type: ignore[attr-defined]
    assert captions[:2] == ["KL to each strategy", "qa: y against x"]
    assert captions[2] == "margin: p=7 (normalised margin over the predicted gamma* during training, one line per seed)"


def test_failing_seeds_read_inconclusive_records_and_keep_known_positions_once():
    """failing_seeds: fail or inconclusive; failed_seeds ints only (no bools), in order, without repeats, within the seeds."""
    rec = {"id": "r", "verdict": "inconclusive", "reason": "seed 1: a; seed 1: b", "metadata": {"seeds": [5, 6, 7]}}
    assert vf.failing_seeds(rec) == [1]  # named twice, kept once
    assert vf.failing_seeds(rec | {"details": {"failed_seeds": [True, 2, 3, 2, 0]}}) == [2, 0]  # 3 is no position
    assert vf.failing_seeds({"verdict": "fail", "reason": "seed 4: x", "metadata": {}}) == [4]  # no seeds: all kept
    assert vf.named_seeds({"reason": "seed 0 and seed 1 pass; seed 2: top 0.1", "metadata": {}}) == [
        2
    ]  # "seed N:" only


def test_a_crowd_singles_out_up_to_singled_out_max_seeds_each_in_its_own_colour():
    """With exactly SINGLED_OUT_MAX named seeds each gets its own colour and legend entry."""
    named = list(range(vf.SINGLED_OUT_MAX))
    rec, spec = _crowded_record(list(range(20)), "; ".join(f"seed {s}: bad" for s in named))
    out = vf._seed_crowd(spec, rec)["series"][-len(named) :]
    assert [s["label"] for s in out] == [f"seed {s} (fails a check)" for s in named]
    assert [s["color"] for s in out] == list(vf.SINGLED_OUT)
    rec, spec = _crowded_record(list(range(1000, 1020)), "seed 1003: bad")  # --seed-offset: the reason names values
    assert vf._seed_crowd(spec, rec)["series"][-1]["label"] == "seed 1003 (fails a check)"


def test_seed_figures_and_for_seed_only_for_a_failed_seed_they_cover():
    """Seed figures: none for a pass, only plots whose by_seed covers the failing seed; a too-short by_seed is unused."""
    assert vf.seed_figures(_seed_record("pass")) == []
    rec = _seed_record()  # seed position 2 failed
    rec["artifacts"]["plots"].append({"name": "same", "kind": "heatmap", "x": [0], "y": [0], "panels": []})
    assert "r-same.png" not in vf.seed_figures(rec) and "r-w.png" in vf.seed_figures(rec)  # no by_seed: not the seed's
    item = {"name": "w", "z": 0, "by_seed": [{"z": 1}]}
    assert vf._for_seed(rec, item) == (item, None)


def test_unlabelled_series_are_numbered_from_one_unless_alone_or_more_than_legend_max():
    """Series labels: a lone unlabelled series has none; up to LEGEND_MAX are 'series i' (1-based); more share one entry."""
    assert vf._series_labels([{}]) == [None]
    n = vf.LEGEND_MAX
    assert vf._series_labels([{"label": "a"}] + [{}] * n) == ["a"] + [f"series {i + 2}" for i in range(n)]
    many = vf._series_labels([{}] * (n + 1))
    assert many == [f"{n + 1} unlabelled series"] + [None] * n
