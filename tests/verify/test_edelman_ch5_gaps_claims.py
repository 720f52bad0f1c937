"""The Fourier-gap claims (verify/claims/edelman_ch5_gaps.py, spec B1-B3) at quick scale: expected verdicts,
figures from the records, and judges that do fail on out-of-tolerance observations."""

from __future__ import annotations

import json

import pytest

import verify.claims.edelman_ch5_gaps  # noqa: F401  (registers the claims)
from verify.claims import Observation, RunContext, registry, run_claim
from verify.figures import render_figures

EXPECTED = {
    "edelman-ch5-propB.7-one-step-recovery": "pass",
    "edelman-ch5-figB.7-random-ltf-gaps": "pass",
    "edelman-ch5-figB.8-sinusoid-gaps": "pass",
}


@pytest.fixture(scope="module")
def records():
    return {
        cid: run_claim(registry()[cid], RunContext(scale="quick", progress=False, device="cpu")) for cid in EXPECTED
    }


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_claim_verdict(records, cid):
    rec = records[cid]
    assert rec.verdict == EXPECTED[cid], rec.reason
    json.dumps(rec.to_json())


def test_figures_render(records, tmp_path):
    made = render_figures([r.to_json() for r in records.values()], tmp_path)
    assert made["edelman-ch5-propB.7-one-step-recovery"] == [
        "edelman-ch5-propB.7-one-step-recovery-success-vs-batch.png"
    ]
    assert "edelman-ch5-figB.7-random-ltf-gaps-gaps.png" in made["edelman-ch5-figB.7-random-ltf-gaps"]
    assert (tmp_path / "edelman-ch5-figB.8-sinusoid-gaps-gaps.png").stat().st_size > 0


def test_predicted_values_come_from_theory(records):
    from theory import boolean as tb

    pred = records["edelman-ch5-propB.7-one-step-recovery"].predicted["n=21,k=2"]["gamma_grad"]
    assert pred["exact"] == str(tb.majority_gap(21, 2) / 2)


def test_judges_fail_out_of_tolerance():
    c = registry()["edelman-ch5-propB.7-one-step-recovery"]
    cfg = c.configs["quick"]
    ok = {"rate_lo": 0.1, "rate_hi": 1.0, "violations": 0}
    assert c.judge(None, Observation({"a": ok}), cfg)[0] == "pass"
    for bad in ({**ok, "rate_hi": 0.9}, {**ok, "rate_lo": 0.6}, {**ok, "violations": 1}):
        assert c.judge(None, Observation({"a": bad}), cfg)[0] == "fail"
    c = registry()["edelman-ch5-figB.8-sinusoid-gaps"]
    v = {"P_positive_k_odd": 1.0, "median_gap_k_odd": 0.03, "max_abs_gap_k_even": 0.0, "max_closed_form_error": 0.0}
    assert c.judge(None, Observation(v), c.configs["quick"])[0] == "pass"
    assert c.judge(None, Observation({**v, "max_abs_gap_k_even": 1e-6}), c.configs["quick"])[0] == "fail"
    c = registry()["edelman-ch5-figB.7-random-ltf-gaps"]
    u = {"median_ratio_k_even": 1.1, "max_abs_gap_k_odd": 0.0, "P_positive_k_hard": 0.85}
    assert c.judge(None, Observation({"uniform": u}), c.configs["quick"])[0] == "pass"
    assert c.judge(None, Observation({"uniform": {**u, "median_ratio_k_even": 2.5}}), c.configs["quick"])[0] == "fail"
    assert c.judge(None, Observation({"uniform": {**u, "P_positive_k_hard": 0.5}}), c.configs["quick"])[0] == "fail"
