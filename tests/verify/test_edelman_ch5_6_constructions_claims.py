"""The Ch. 5/6 construction claims (verify/claims/edelman_ch5_6_constructions.py) at quick scale: expected verdicts,
counterexamples for the refuted ones, JSON-able records and the plateau figures."""

import json

import pytest

import verify.claims.edelman_ch5_6_constructions  # noqa: F401  (registers the claims)
from tests.verify.claim_checks import assert_verdict
from verify.claims import RunContext, registry, run_claim

EXPECTED = {
    "edelman-ch5-lemB.9-polynet-gradient": "pass",
    "edelman-ch5-lemB.9-exact-error": "pass",
    "edelman-ch5-thm5.7-gradient-flow": "pass",
    "edelman-ch5-lemB.9-error-bounds": "pass",
    "edelman-ch5-lemB.9-error-bounds-as-printed": "refuted",
    "edelman-ch5-thm5.7-plateau": "pass",
    "edelman-ch5-lemB.4-construction": "pass",
    "edelman-ch5-lemB.4-construction-as-printed": "refuted",
    "edelman-ch6-lemC.6-bias-grid": "pass",
    "edelman-ch6-thmC.11-bias-grid-as-printed": "refuted",
    "edelman-ch6-lemC.13-perturbed-neuron-gradient": "pass",
    "edelman-ch6-thmC.16-ratio": "pass",
    "edelman-ch6-thmC.16-ratio-as-printed": "refuted",
}


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_claim_verdict(cid):
    rec = assert_verdict(cid, EXPECTED)
    json.dumps(rec.to_json())


def test_refuted_counterexamples_carry_the_numbers():
    rec = run_claim(registry()["edelman-ch5-lemB.4-construction-as-printed"], RunContext(scale="quick", progress=False))
    case = rec.counterexample["k=4, b_i = -1/2 + (i)/k"]
    assert case["f*(s) printed weights"] == ["0", "-2", "2", "-2", "2"] and case["claimed 2 chi(s)"] == [
        2,
        -2,
        2,
        -2,
        2,
    ]
    rec = run_claim(registry()["edelman-ch6-thmC.16-ratio-as-printed"], RunContext(scale="quick", progress=False))
    first = rec.counterexample["cases"][0]
    assert first["bruteforce_ratio"] == pytest.approx(9.0) and first["printed (n-s)/(k-s-1)"] == "11"


def test_plateau_figures_render(tmp_path):
    from verify.figures import render_figures

    rec = run_claim(registry()["edelman-ch5-thm5.7-plateau"], RunContext(scale="quick", progress=False))
    made = render_figures([rec.to_json()], tmp_path)
    names = made["edelman-ch5-thm5.7-plateau"]
    assert sorted(names) == ["edelman-ch5-thm5.7-plateau-error-vs-time.png", "edelman-ch5-thm5.7-plateau-plateau.png"]
    assert all((tmp_path / n).stat().st_size > 0 for n in names)
