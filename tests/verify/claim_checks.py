"""Shared assertions for the claim-verdict tests of every chapter."""

from __future__ import annotations

from verify.claims import RunContext, registry, run_claim
from verify.claims.base import ClaimRecord


def assert_verdict(cid: str, expected: dict[str, str], scale: str = "quick") -> ClaimRecord:
    """Run claim ``cid`` at ``scale`` and check its verdict is ``expected[cid]``; a refuted claim must carry the
    printed statement, a counterexample and a ``corrected_by`` claim that exists (and passes, if listed)."""
    claim = registry()[cid]
    rec = run_claim(claim, RunContext(scale=scale, progress=False))
    assert rec.verdict == expected[cid], rec.reason
    if rec.verdict == "refuted":
        assert claim.refutes and claim.corrected_by in registry() and rec.counterexample
        assert expected.get(claim.corrected_by, "pass") == "pass"
    rec.to_json()
    return rec
