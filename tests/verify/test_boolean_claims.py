"""Artifacts, details and counterexamples of the Boolean-Fourier claims (verify/claims/boolean/) at quick scale;
the verdicts themselves are checked for every claim by tests/verify/test_claims.py."""

from __future__ import annotations

from fractions import Fraction

import pytest

from theory import boolean as tb
from verify.claims import Observation, registry
from verify.report.figures import render_figures

from .claim_checks import record

GAPS = (
    "edelman-ch5-propB.7-one-step-recovery",
    "edelman-ch5-figB.7-random-ltf-gaps",
    "edelman-ch5-figB.8-sinusoid-gaps",
)


def test_figures_render(tmp_path):
    made = render_figures([record(cid).to_json() for cid in GAPS], tmp_path)
    assert made["edelman-ch5-propB.7-one-step-recovery"] == [
        "edelman-ch5-propB.7-one-step-recovery-success-vs-batch.png"
    ]
    assert "edelman-ch5-figB.7-random-ltf-gaps-gaps.png" in made["edelman-ch5-figB.7-random-ltf-gaps"]
    assert (tmp_path / "edelman-ch5-figB.8-sinusoid-gaps-gaps.png").stat().st_size > 0


def test_recovery_predictions_come_from_theory():
    rec = record("edelman-ch5-propB.7-one-step-recovery")
    assert rec.predicted["n=21,k=2"]["gamma_grad"]["exact"] == str(tb.gradient_gap(21, 2))
    rows = {r["case"]: r for r in rec.details["per_case"]}
    assert rows["n=21,k=2"]["gamma_grad"] == pytest.approx(float(tb.gradient_gap(21, 2)), rel=1e-15)


def test_statistical_judges_fail_out_of_tolerance():
    c = registry()["edelman-ch5-propB.7-one-step-recovery"]
    ok = {"case": "a", "rate_lo": 0.1, "rate_hi": 1.0, "violations": 0}
    assert c.judge(None, Observation({}, details={"per_case": [ok]}))[0] == "pass"
    for bad in ({**ok, "rate_hi": 0.9}, {**ok, "rate_lo": 0.6}, {**ok, "violations": 1}):
        assert c.judge(None, Observation({}, details={"per_case": [bad]}))[0] == "fail"
    c = registry()["edelman-ch5-figB.8-sinusoid-gaps"]
    pred = c.predict(c.configs["quick"])
    v = {"P_positive_k_odd": 1.0, "median_gap_k_odd": 0.03, "max_abs_gap_k_even": 0.0, "max_closed_form_error": 0.0}
    assert c.judge(pred, Observation(v))[0] == "pass"
    assert c.judge(pred, Observation({**v, "max_abs_gap_k_even": 1e-6}))[0] == "fail"
    assert c.judge(pred, Observation({**v, "P_positive_k_odd": 0.9}))[0] == "fail"
    c = registry()["edelman-ch5-figB.7-random-ltf-gaps"]
    pred = c.predict(c.configs["quick"])
    ref = float(next(iter(pred.values())))
    u = {"median_gap_k_even": 1.1 * ref, "max_abs_gap_k_odd": 0.0, "P_positive_k_hard": 0.85}
    assert c.judge(pred, Observation({"uniform": u}))[0] == "pass"
    assert c.judge(pred, Observation({"uniform": {**u, "median_gap_k_even": 2.5 * ref}}))[0] == "fail"
    assert c.judge(pred, Observation({"uniform": {**u, "P_positive_k_hard": 0.5}}))[0] == "fail"


def test_sign_weights_give_the_majority_gap_exactly():
    rec = record("edelman-ch5-figB.7-random-ltf-gaps")
    ref = float(tb.gradient_gap(15, 2))
    assert rec.observed["sign"]["gap_range_k_even"] == pytest.approx([ref, ref], abs=1e-12)


def test_counterexamples_carry_the_numbers():
    ce = record("edelman-ch5-lemB.1-level-weight-exponent-as-printed").counterexample
    assert ce["printed_exponent"] == float(tb.level_weight_exponent_as_printed())
    assert ce["fitted_exponent"] == pytest.approx(float(tb.level_weight_exponent()), abs=1e-2)
    ce = record("edelman-ch6-lemC.12-half-as-printed").counterexample
    m, k = ce["m"], ce["|T|"]
    assert Fraction(ce["brute_force"]) == tb.half_coefficient(m, k) == Fraction(ce["corrected"])
    assert Fraction(ce["printed"]) == tb.half_coefficient_as_printed(m, k) != Fraction(ce["brute_force"])
    ce = record("edelman-ch5-lemB.2-gap-bound-as-printed").counterexample
    assert ce["gap_bruteforce"] == "0" and ce["bound_as_printed"] == float(
        tb.lemma_b2_bound_as_printed(ce["n"], ce["k"])
    )


@pytest.mark.parametrize(
    ("cid", "kind", "quote"),
    [
        ("edelman-ch5-lemB.1-level-weight-exponent-as-printed", "substantive", "c_1^2 k^{-2/3}"),
        ("edelman-ch6-lemC.12-half-as-printed", "substantive", "binom(2m, m) / binom(2m, 2j)"),
        ("edelman-ch5-lemB.2-gap-bound-as-printed", "typo", "Fix some k and assume that n >= 4k"),
    ],
)
def test_errata_record_kind_quote_and_where(cid, kind, quote):
    erratum = registry()[cid].erratum
    assert erratum is not None and erratum.kind == kind
    assert quote in erratum.quote and "Edelman thesis" in erratum.where and "App. " in erratum.where


def test_gap_bound_missing_hypotheses_are_quoted_and_the_corrected_claim_states_them():
    """Lemma B.2 omits k even and n odd, which the text around it states ('for every even k', Theorem 5.5's odd n):
    kind notation; the printed 'fix some k' covers odd k, where the gap is 0, so it stays refuted; the corrected
    claim states both hypotheses and checks only such (n, k)."""
    printed, corrected = (
        registry()["edelman-ch5-lemB.2-gap-bound-as-printed"],
        registry()["edelman-ch5-lemB.2-gap-bound"],
    )
    assert "for every even k" in printed.erratum.quote and "odd integer" in printed.erratum.quote
    assert "k even and n odd" in printed.statement
    ce = record("edelman-ch5-lemB.2-gap-bound-as-printed").counterexample
    assert ce["k"] % 2 == 1 and ce["n"] % 2 == 1 and ce["n"] >= 4 * ce["k"]
    assert "even k, odd n" in corrected.statement and "k even, n odd" in corrected.source
    for scale in ("quick", "full"):
        assert all(k % 2 == 0 and n % 2 == 1 and n >= 4 * k for n, k in corrected.configs[scale].cases)


def test_gap_bound_is_checked_exactly_too():
    details = record("edelman-ch5-lemB.2-gap-bound").details
    assert details["bound_holds_exactly"] is True and details["min_gap_over_bound"] >= 1


def test_lemma_c2_records_the_failures_outside_its_hypothesis():
    details = record("edelman-ch6-lemC.2-support-bound").details
    for n, k, s in details["examples_outside_hypothesis"]:
        assert 4 * k >= s and not tb.lemma_c2_holds(n, k, s)
    assert not tb.lemma_c2_holds(48, 11, 11)  # the smallest example, beyond the quick grid
