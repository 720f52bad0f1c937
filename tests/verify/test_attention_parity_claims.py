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
    five, eight = cex["five_heads"], cex["eight_heads_low_norm"]
    assert len(five["a"]) < tap.parity_construction(3).m and _frac(five["min_margin"]) >= 1
    assert five["float_min_margin_gamma_0.1"] >= 1 - 1e-12
    assert _frac(eight["min_margin"]) >= 1
    assert _frac(eight["sum_V_F2_gamma_0.1"]) < _frac(eight["g2_sum_V_F2_gamma_0.1"])
    h8 = tap.parity_heads(**tap.COUNTEREXAMPLE_M8)
    assert _frac(eight["sum_C2"]) == h8.code_norm()


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
