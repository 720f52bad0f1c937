"""The exact Ch. 5/6 claims (verify/claims/edelman_ch5_6.py) run at quick scale with the expected verdicts."""

import json

import pytest

import verify.claims.edelman_ch5_6  # noqa: F401  (registers the claims)
from tests.verify.claim_checks import assert_verdict

EXPECTED = {
    "edelman-ch5-lemB.1-majority-closed-form": "pass",
    "edelman-ch5-lemB.1-level-weight-exponent-as-printed": "refuted",
    "edelman-ch5-lemB.1-level-weight-exponent": "pass",
    "edelman-ch6-lemC.12-half-closed-form": "pass",
    "edelman-ch6-lemC.12-half-as-printed": "refuted",
    "edelman-ch5-lemB.2-exact-gap": "pass",
    "edelman-ch5-lemB.2-gap-bound": "pass",
    "edelman-ch5-lemB.2-gap-bound-as-printed": "refuted",
    "edelman-ch5-lemB.3-first-step-gradient": "pass",
    "edelman-ch6-lemC.2-support-bound": "pass",
}


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_claim_verdict(cid):
    rec = assert_verdict(cid, EXPECTED)
    json.dumps(rec.to_json())
