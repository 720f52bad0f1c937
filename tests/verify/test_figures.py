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
