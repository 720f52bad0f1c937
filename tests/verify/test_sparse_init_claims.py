"""Details and counterexamples of the perturbed sparse-neuron claims (verify/claims/sparse_init.py) at quick scale;
the verdicts themselves are checked for every claim by tests/verify/test_claims.py."""

from __future__ import annotations

from fractions import Fraction

import pytest

from theory import sparse_init as tsi
from verify.claims import registry

from .claim_checks import record


def test_exact_transform_equals_lemma_c15_in_every_case():
    details = record("edelman-ch6-lemC.13-perturbed-neuron-gradient").details
    assert details["exact_transform_equals_lemma"] is True
    for case in details["per_case"]:
        n, k, s = case["n"], case["k"], case["s"]
        assert case["i_in_S-S'"] == pytest.approx(float(tsi.good_neuron_correlation(n, k, s, "S-S'")), abs=1e-9)


def test_printed_ratio_counterexample_carries_the_numbers():
    for case in record("edelman-ch6-thmC.16-ratio-as-printed").counterexample["cases"]:
        n, k, s = case["n"], case["k"], case["s"]
        assert case["bruteforce_ratio"] == pytest.approx(float(tsi.thm_c16_ratio(n, k, s)), rel=1e-9)
        assert Fraction(case["printed (n-s)/(k-s-1)"]) == tsi.thm_c16_ratio_as_printed(n, k, s)
        assert Fraction(case["corrected (n-k)/(k-s-1)"]) == tsi.thm_c16_ratio(n, k, s)


def test_printed_ratio_erratum_is_substantive_and_quoted():
    erratum = registry()["edelman-ch6-thmC.16-ratio-as-printed"].erratum
    assert erratum is not None and erratum.kind == "substantive"
    assert "(n-s)/(k-s-1) > 1" in erratum.quote and "Theorem C.16" in erratum.where
