"""The Karp Ch. 4 decision-list claims (docs/decision_lists.md): every quick claim gets its expected verdict, a
non-refuted exact or numeric claim rejects a perturbed prediction, and the counterexamples, details and figures
say what the docs say."""

from __future__ import annotations

import pytest

import verify.claims.decision_lists  # noqa: F401  (registers the claims)
from theory import decision_lists as td
from verify.claims import registry

from .claim_checks import assert_verdict, evaluation, record

IDS = sorted(cid for cid in registry() if cid.startswith("karp-ch4-"))


def test_every_issue_item_has_claims():
    assert len(IDS) == 22
    for prefix in ("grad-", "initial-loss", "thm4.3-algebra", "thm4.4-algebra", "fig4.1-", "thm4.3-gd-ordering"):
        assert any(cid.startswith(f"karp-ch4-{prefix}") for cid in IDS), prefix


@pytest.mark.parametrize("cid", IDS)
def test_quick_verdict_and_perturbation(cid):
    assert_verdict(cid)
    claim = registry()[cid]
    if claim.refuting or claim.kind == "training" or claim.insensitive:
        return
    ev = evaluation(cid)
    wrong = claim.judge.perturb(ev.predicted, ev.obs)
    assert claim.judge(wrong, ev.obs, ev.config)[0] != "pass"


def test_printed_thm43_bound_counterexample_obeys_the_corrected_bound():
    cex = record("karp-ch4-thm4.3-in-S-printed").counterexample
    assert cex["directional_derivative"] > cex["printed_bound_eps_read_as_c"]
    assert cex["directional_derivative"] <= cex["corrected_bound_c_over_2n"]


def test_printed_six_eps_counterexample_gap():
    cex = record("karp-ch4-thm4.4-notin-S-printed").counterexample
    n, eps = cex["instance"]["n"], cex["instance"]["eps"]
    assert cex["excess_value"]["float"] == pytest.approx(6 * eps * (n - 1) / n)


def test_vocabulary_counterexample_names_the_out_of_range_tokens():
    cex = record("karp-ch4-fig4.1-vocabulary-printed").counterexample
    assert cex["vocabulary_1_to_L"]["pi_outside"] == [[181, 0]]
    assert cex["vocabulary_0_to_L-1"]["pi_outside"] == [[180, 200]]


def test_fig41_figure_and_argmax():
    rec = record("karp-ch4-fig4.1-v-step-model")
    assert rec.details["fraction_of_columns_with_argmax_at_pi"] == 1.0
    kinds = {p["name"]: p["kind"] for p in rec.artifacts["plots"]}
    assert kinds == {"fig4.1-window": "heatmap", "fig4.1-column": "lines"}
    exact = record("karp-ch4-fig4.1-v-step-exact").details
    assert exact["entries_per_class"] == {"P": 200, "shift": 600, "antishift": 600, "generic": 38600}


def test_training_reaches_perfect_classification_within_the_budget():
    rows = record("karp-ch4-thm4.3-gd-ordering").details["per_seed"]
    delta, _ = td.delta_a43(td.random_task(8, 4, 0, min_length=1), 3)
    assert rows[0]["c"] == pytest.approx(float(td.thm43_c(3, 8, delta)))
    assert all(r["first_perfect_step"] is not None and r["first_perfect_over_budget"] < 1e-3 for r in rows)
