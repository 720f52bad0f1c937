"""Artifacts, details and counterexamples of the disjoint-PolyNet claims (verify/claims/polynet.py) at quick scale;
the verdicts themselves are checked for every claim by tests/verify/test_claims.py."""

from __future__ import annotations

from theory import polynet as tp
from verify.claims import registry
from verify.claims.polynet import PLATEAU_SCALED_BOUND
from verify.report.figures import render_figures

from .claim_checks import record

PLATEAU = "edelman-ch5-thm5.7-plateau"


def test_plateau_figures_render(tmp_path):
    made = render_figures([record(PLATEAU).to_json()], tmp_path)
    names = made[PLATEAU]
    assert sorted(names) == [f"{PLATEAU}-error-vs-time.png", f"{PLATEAU}-plateau.png"]
    assert all((tmp_path / n).stat().st_size > 0 for n in names)


def test_plateau_record_says_the_constant_is_fitted():
    rec = record(PLATEAU)
    assert "fitted" in rec.details["scaled_bound_is_fitted"] and "fitted" in rec.statement
    assert rec.details["scaled_bound"] == PLATEAU_SCALED_BOUND
    assert rec.details["max_scaled_ratio"] <= PLATEAU_SCALED_BOUND


def test_gradient_claim_checked_the_symbolic_derivation():
    assert record("edelman-ch5-lemB.9-polynet-gradient").details["symbolic_derivation_equals_formula"] is True


def test_flow_records_the_b7_spreads():
    details = record("edelman-ch5-thm5.7-gradient-flow").details
    assert details["b7_max_relative_spread"] == max(details["b7_spreads"])


def test_printed_error_bounds_counterexamples_violate_them():
    ce = record("edelman-ch5-lemB.9-error-bounds-as-printed").counterexample
    assert ce["lower_bound_violations"] > 0 and ce["upper_bound_violations"] > 0
    for row in ce["upper_examples"]:
        k, m, v = row["k"], row["n_prime"], row["v"]
        u = [[1] * (m - 1)] * k
        assert row["upper_bound"] == tp.lemma_b9_upper_bound([v] * k, u, as_printed=True) < row["err"]
        assert row["err"] <= tp.lemma_b9_upper_bound([v] * k, u)
    for row in ce["lower_examples"]:
        assert row["lower_bound"] > row["err"]


def test_printed_error_bounds_erratum_is_substantive_and_quoted():
    """Both printed bounds fail and the proof repeats them (the upper one has no free constant): substantive."""
    erratum = registry()["edelman-ch5-lemB.9-error-bounds-as-printed"].erratum
    assert erratum is not None and erratum.kind == "substantive"
    assert "2 sum_{i=1}^k exp(-|v_i|^2/||u_i||_2^2)" in erratum.quote and ".56" in erratum.quote
    assert "Lemma B.9" in erratum.where and "App. B.2.3" in erratum.where
