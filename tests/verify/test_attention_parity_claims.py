"""Details and counterexamples of the attention-parity claims (Shi Ch. 5, Sec. 5.5); the verdicts themselves are
checked for every claim by ``test_claims.py``."""

from __future__ import annotations

from fractions import Fraction

from theory import attention_parity as tap
from verify.claims.base import registry

from .claim_checks import record


def _frac(x) -> Fraction:
    return Fraction(x["exact"]) if isinstance(x, dict) else Fraction(x)


def test_optimality_counterexamples_are_exact_zero_loss_models():
    cex = record("shi-thm5.5.1-optimality").counterexample
    five, eight, g2 = cex["five_head_model"], cex["eight_head_model"], cex["g2_star"]
    assert five["heads"] == len(five["a"]) < g2["heads"] == tap.parity_construction(3).m
    assert _frac(five["min_margin"]) >= 1 and five["float_min_margin_gamma_0.1"] >= 1 - 1e-12
    assert _frac(eight["min_margin"]) >= 1 and _frac(g2["min_margin"]) >= 1
    assert _frac(eight["sum_V_F2_gamma_0.1"]) < _frac(g2["sum_V_F2_gamma_0.1"])
    h8 = tap.parity_heads(**tap.COUNTEREXAMPLE_M8)
    assert _frac(eight["sum_C2"]) == h8.code_norm()


def test_optimality_compares_each_number_with_the_same_quantity_of_g2():
    """Like with like: the observed head count is the five-head model's and is compared with g_2*'s head count; the
    observed norm is the eight-head model's, which has g_2*'s head count, and is compared with g_2*'s norm. The
    five-head model's own norm is larger than g_2*'s, so it refutes the head count only, and the record says so."""
    rec = record("shi-thm5.5.1-optimality")
    cex = rec.counterexample
    five, eight, g2 = cex["five_head_model"], cex["eight_head_model"], cex["g2_star"]
    assert rec.predicted[0] == g2["heads"] and _frac(rec.predicted[1]) == _frac(g2["sum_V_F2_gamma_0.1"])
    assert rec.observed[0] == five["heads"] and _frac(rec.observed[1]) == _frac(eight["sum_V_F2_gamma_0.1"])
    assert eight["heads"] == g2["heads"]
    assert _frac(five["sum_V_F2_gamma_0.1"]) > _frac(g2["sum_V_F2_gamma_0.1"])
    assert "five_head_model" in rec.reason and "eight_head_model" in rec.reason
    assert "not compared" in cex["compared"]


def test_optimality_norm_needs_g2s_head_count(monkeypatch):
    """A low-norm zero-loss model with another head count is no counterexample to the norm statement (which is about
    m = 2(nu2+1)): the observation drops the norm unless the model has g_2*'s head count. Here the eight-head model
    gets a ninth head with zero codes (same margins, same norm, 9 heads)."""
    claim = registry()["shi-thm5.5.1-optimality"]
    m8 = tap.COUNTEREXAMPLE_M8
    monkeypatch.setattr(tap, "COUNTEREXAMPLE_M8", {"a": (*m8["a"], 1), "codes": (*m8["codes"], ("0",) * 8)})
    obs = claim.observe(claim.configs["quick"], None)
    assert obs.value[0] == 5 and obs.value[1] is None
    assert obs.counterexample["eight_head_model"]["heads"] == 9


def test_errata_record_kind_quote_and_where():
    for cid, quote in (
        ("shi-thm5.5.1-optimality", "the minimum number of neurons to cover all patterns in (I) and (II) is"),
        ("shi-thm5.5.1-g1-optimality", "-nu_j/(4 gamma) for g_j^*"),
    ):
        erratum = registry()[cid].erratum
        assert erratum is not None and erratum.kind == "substantive"
        assert "denote the optimal solutions" in erratum.quote and quote in erratum.quote
        assert "Theorem 5.5.1" in erratum.where and "App. D.3.1" in erratum.where


def test_g1_counterexample_halves_the_s2_loss():
    cex = record("shi-thm5.5.1-g1-optimality").counterexample
    cfg = registry()["shi-thm5.5.1-g1-optimality"].configs["quick"]
    _s1, s2 = tap.parity_task_sets(2**cfg.nu2, 2**cfg.nu1)
    g1_loss = tap.parity_hinge_loss(tap.parity_g1(cfg.nu1, cfg.nu2), s2, "0.1")
    assert _frac(cex["S1_min_margin"]) >= 1 and _frac(cex["S2_loss"]) == g1_loss / 2
    assert cex["positive_code"] == 2 and len(cex["a"]) == 2 * (cfg.nu1 + 1)


def test_construction_details_describe_g2():
    d = record("shi-thm5.5.1-construction").details
    g2 = tap.parity_construction(3)
    assert d["cases"] == 4 * g2.d * (g2.d - 1)
    assert [[_frac(c) for c in row] for row in d["codes_4gammaV"]] == [list(r) for r in g2.codes]


def test_projection_details_by_M():
    rec = record("shi-thm5.5.2-projection-ratio")
    cfg = registry()["shi-thm5.5.2-projection-ratio"].configs["quick"]
    assert set(rec.details["by_M"]) == {f"M={M}" for M in cfg.M}
    for M in cfg.M:
        mc = rec.details["by_M"][f"M={M}"]
        assert mc["D1_se"] > 0 and mc["D2_se"] > 0


def test_behaviour_cells():
    rec = record("shi-thm5.5.2-behaviour")
    cfg = registry()["shi-thm5.5.2-behaviour"].configs["quick"]
    assert set(rec.details["cells"]) == {f"gamma={g},M={M}" for g, M in cfg.cells}
    for cell in rec.details["cells"].values():
        assert cell["g1"]["hinge"] < cell["g2"]["hinge"]
