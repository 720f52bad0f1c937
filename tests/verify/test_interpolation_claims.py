"""Details and counterexamples of the ReLU-interpolation claims (verify/claims/interpolation.py) at quick scale;
the verdicts themselves are checked for every claim by tests/verify/test_claims.py."""

from __future__ import annotations

import sympy

from theory import interpolation as ti
from verify.claims import registry

from .claim_checks import record


def test_printed_claim5_counterexample_carries_the_numbers():
    ce = record("edelman-ch5-lemB.4-construction-as-printed").counterexample
    for k in (2, 4):
        for sched in ("i+1", "i"):
            case = ce[f"k={k}, b_i = -1/2 + ({sched})/k"]
            th = ti.claim5_as_printed(k, sched)
            assert case["f*(s) printed weights"] == [str(v) for v in th["values"]]
            assert case["claimed 2 chi(s)"] == [2 * c for c in ti.parity_on_lattice(k)]
            assert sympy.Rational(case["least-squares residual squared (exact)"]) > 0
    # the "i" schedule reproduces 2 chi except at s = -k
    case = ce["k=4, b_i = -1/2 + (i)/k"]
    assert case["f*(s) printed weights"][1:] == [str(c) for c in case["claimed 2 chi(s)"][1:]]
    assert case["f*(s) printed weights"][0] != str(case["claimed 2 chi(s)"][0])


def test_corrected_claim5_weights_exceed_8k():
    for row in record("edelman-ch5-lemB.4-construction").details["per_k"]:
        assert row["max_abs_weight"] == 8 * row["k"] ** 2


def test_bias_grid_is_exact_and_the_printed_one_is_not():
    for row in record("edelman-ch6-lemC.6-bias-grid").details["per_k"]:
        assert row["exact_residual_sq"] == "0" and row["n_features"] == row["n_points"]
    ce = record("edelman-ch6-thmC.11-bias-grid-as-printed").counterexample
    for key, case in ce.items():
        k = int(key.split("=")[1])
        assert case["n_features"] == k - 1 and case["n_points"] == k + 1
        assert sympy.Rational(case["exact_residual_sq"]) == ti.c6_features(k, printed=True)["lsq"].residual_sq > 0
        assert abs(case["lstsq_residual_float64"] - case["residual"]) <= 1e-9


def test_errata_record_kind_quote_and_where():
    """Claim 5 fails for every output weight over the printed k features (substantive); the bias grid of Thm C.11 is
    one index short of a square invertible system that the proof describes (notation)."""
    claim5 = registry()["edelman-ch5-lemB.4-construction-as-printed"].erratum
    assert claim5 is not None and claim5.kind == "substantive"
    assert "u_{k-1}^* = 6k, u_k^* = -2k" in claim5.quote and "Claim 5" in claim5.where
    grid = registry()["edelman-ch6-thmC.11-bias-grid-as-printed"].erratum
    assert grid is not None and grid.kind == "notation"
    assert "{beta_1, ..., beta_{k/2-1}}" in grid.quote and "R^{k x k}" in grid.quote and "Lemma C.6" in grid.where
