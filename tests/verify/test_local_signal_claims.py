"""The local-signal claims' details, counterexamples and plot specs (Karp Ch. 3); the verdicts themselves are
checked for every claim by ``test_claims.py``. Only the cheap claims are run here; the Fig. 3.3 plots are checked on
a short training run."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from theory import local_signal as tl
from verify import local_signal as vs
from verify.claims import registry
from verify.figures import plot_spec_figure

from .claim_checks import evaluation

importlib.import_module("verify.claims.local_signal")

from verify.claims.local_signal.trained import figure_plots  # noqa: E402

IDS = [cid for cid in registry() if cid.startswith("karp-ch3-")]


def _run(cid: str):
    """The claim's quick evaluation, cached for the session (shared with test_claims.py)."""
    return evaluation(cid)


def test_every_claim_has_quick_and_an_id_naming_the_source():
    assert len(IDS) >= 24
    for cid in IDS:
        claim = registry()[cid]
        assert "quick" in claim.configs and "Karp thesis" in claim.source
        if claim.refuting:
            assert claim.corrected_by in registry() and claim.corrected_by.startswith("karp-ch3-")


@pytest.mark.parametrize(
    "cid",
    [
        "karp-ch3-linear-classifier-049-printed",
        "karp-ch3-cntk-indicator-printed",
        "karp-ch3-thm3.1-t2-printed",
        "karp-ch3-lemB9-error-event-printed",
    ],
)
def test_refuted_claims_carry_counterexamples(cid):
    ev = _run(cid)
    assert ev.verdict == "refuted" and ev.obs.counterexample


def test_printed_049_counterexample_names_the_crossover():
    ev = _run("karp-ch3-linear-classifier-049-printed")
    assert ev.obs.counterexample["holds_from_k"] == pytest.approx(10 ** tl.crossovers()["linear_error_049"], rel=1e-8)


def test_clt_claim_records_where_it_holds():
    ev = _run("karp-ch3-err-clt")
    assert 0.6 <= ev.obs.details["clt_within_0.005_up_to_tau"] < 0.7
    tail = ev.obs.details["tail"]
    assert all(row["clt"] < row["exact"] / 5 for row in tail.values())


def test_plot_specs_render():
    for spec in (
        _run("karp-ch3-err-curve").obs.artifacts["plots"][0],
        _run("karp-ch3-thm3.2-kernel-lower-bound").obs.artifacts["plots"][0],
    ):
        plot_spec_figure("test", spec)
        assert spec["kind"] == "lines" and spec["hlines"]


def test_figure_plots_have_the_three_panels_and_reference_lines():
    run = vs.train_signal(vs.SignalTrainConfig(k=100, d=4, batch=50, steps=20, eval_every=10, n_test=200, seeds=(0, 1)))
    plots = figure_plots(run, 0.65, 0.37, 0.4)
    assert [p["name"] for p in plots] == ["fig3.3-b-and-c", "fig3.3-ratio", "fig3.3-accuracy"]
    assert plots[1]["hlines"][0]["y"] == 0.65
    assert {h["y"] for h in plots[2]["hlines"]} >= {1 - 0.37, 1 - 0.4}
    for spec in plots:
        plot_spec_figure("test", spec)
        assert len(spec["series"]) >= 2 and len(spec["series"][0]["x"]) == 3
    assert np.isfinite(plots[1]["series"][0]["y"]).all()
