"""Details and counterexamples of the Edelman Ch. 4 claims (docs/sparse_variable.md); the verdicts of every quick
claim are checked by ``test_claims.py``. Only the fast (non-training) claims are run here."""

from __future__ import annotations

import math
from fractions import Fraction

import verify.claims  # noqa: F401  (registers every task's claims, Ch. 4 among them)
from theory import sparse_variable as ts
from verify.claims.base import registry

from .claim_checks import record


def test_ids_and_corrections():
    ours = {cid: c for cid, c in registry().items() if cid.startswith("edelman-ch4-")}
    assert len(ours) == 16
    for c in ours.values():
        if c.refutes:
            assert c.corrected_by in ours and not registry()[c.corrected_by].refutes


def test_multihead_counterexample_outputs_zero():
    rec = record("edelman-ch4-lemA19-multihead-printed")
    assert rec.verdict == "refuted"
    assert rec.counterexample["head_outputs"] == [0.0, 0.0, 0.0]
    assert rec.details["max_abs_output_over_all_inputs"] == 0.0


def test_bump_and_delta_counterexamples():
    bump = record("edelman-ch4-lemA25-bump-printed").counterexample
    assert bump["printed_psi_at_x_minus_x0"]["0"] == "0"  # the bump is 0 at its centre
    assert bump["printed_network"] != float(Fraction(bump["f"]))
    delta = record("edelman-ch4-lemA23-delta-printed").counterexample
    assert delta["head_error"] > float(Fraction(delta["delta"]))
    assert Fraction(delta["exact_network"]) != Fraction(delta["f"])


def test_w1_counterexample_is_the_bias_entry():
    cex = record("edelman-ch4-lemA25-w1-bound-printed").counterexample
    assert abs(cex["value"]) == 1 / float(Fraction(cex["delta"])) + 2 > cex["printed_bound"]


def test_coherent_counterexample_has_unequal_relevant_attention():
    cex = record("edelman-ch4-lemA19-coherent-printed").counterexample
    assert float(Fraction(cex["coherence"])) < 1 / 3 and cex["error"] > 1 / 6
    att = cex["attention_on_relevant"]
    assert max(att) - min(att) > 0.1
    fixed = record("edelman-ch4-lemA19-coherent-corrected")
    assert fixed.verdict == "pass" and fixed.observed[0] < 1e-9


def test_wq_norm_grows_like_log_T():
    rows = record("edelman-ch4-prop4.12-norms").details["heads"]
    wq = {r["T"]: r["W_Q"] for r in rows if r["lemma"] == "A.19" and r["output"] == "scalar" and r["s"] == 2}
    assert wq[10_000] - wq[10] == math.log(1000) or abs(wq[10_000] - wq[10] - math.log(1000)) < 1e-12
    assert all(r["W_K"] == math.sqrt(r["s"]) for r in rows if r["lemma"] == "A.19" and r["output"] == "scalar")
    names = [p["name"] for p in record("edelman-ch4-prop4.12-norms").artifacts["plots"]]
    assert names == ["wq-vs-T", "mlp-vs-s"]


def test_shattering_record():
    rec = record("edelman-ch4-prop4.8-shattering")
    assert rec.observed == [2 ** ts.shattering_size(T) for T in rec.details["Ts"]]
    assert min(rec.details["min_weight_on_target"]) >= rec.details["proof_lower_bound"]
