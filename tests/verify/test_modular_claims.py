"""What the modular-addition claims record beyond their verdicts (``verify/claims/modular``): counterexamples of
the errata, details of the numeric claims, and the per-seed rows and artifacts of the training claims.

Verdicts are checked for every claim by ``test_claims.py``; the records here come from the same cached quick run.
Thresholds are read from the claims' configurations and judges, expected values from ``theory.modular``.
"""

from __future__ import annotations

import pytest

from theory import modular as tm
from verify.claims import registry

from .claim_checks import evaluation, record

TRAINING_CLAIMS = ["shi-thm4.9-training-k2", "shi-thm4.9-training-k3", "edelman-thm7.7-training"]


def _config(cid: str):
    return registry()[cid].configs["quick"]


@pytest.mark.parametrize("cid", ["shi-lemC.18-output-as-printed", "edelman-D.6.2-output-as-printed"])
def test_printed_output_counterexample_is_minus_one_half(cid: str) -> None:
    ce = record(cid).counterexample
    p, a, c = ce["p"], ce["a"], ce["c"]
    assert ce["printed"]["exact"] == str(tm.construction_logit_as_printed(p, a, c))
    assert ce["corrected"]["exact"] == str(tm.construction(p, len(a)).logit(a, c))
    assert ce["observed"] == pytest.approx(ce["corrected"]["float"], abs=1e-12)
    assert (sum(a) - c) % p != 0  # a wrong label, where the printed value and the network disagree


def test_beta_sign_counterexample_flips_psi_for_even_k() -> None:
    ce = record("shi-thm4.9-beta-sign").counterexample
    p, k = ce["p"], ce["k"]
    assert k % 2 == 0 and ce["beta"] == pytest.approx(-float(tm.optimal_amplitude(p, k)), rel=1e-15)
    assert ce["gamma_star"] == float(tm.max_margin(p, k))
    assert ce["psi"] == pytest.approx(-ce["gamma_star"], rel=1e-12)


def test_construction_details_name_the_theorem_width() -> None:
    cfg = _config("shi-lem4.11-construction")
    details = record("shi-lem4.11-construction").details
    assert details["cases"] == [list(c) for c in cfg.cases]
    assert details["width"] == [tm.min_width(p, k) for p, k in cfg.cases]
    assert len(details["wrong_logit_spread_rel"]) == len(details["margin_span_rel"]) == len(cfg.cases)


def test_upper_bound_tries_every_kind_of_network() -> None:
    """Random networks stay far below gamma*; perturbed and deformed constructions come close; none exceeds it."""
    cfg = _config("shi-thm4.9-upper-bound")
    per_case = record("shi-thm4.9-upper-bound").details["per_case"]
    assert [(c["p"], c["k"]) for c in per_case] == list(cfg.cases)
    for case in per_case:
        kinds = case["best_ratio_by_kind"]
        assert {"gaussian", "perturbed construction", "deformed construction"} <= set(kinds)
        assert max(kinds.values()) == case["best_ratio"] <= 1
        assert kinds["gaussian"] < kinds["perturbed construction"]


def test_certificate_records_solver_and_gap() -> None:
    """Every case records its bracket, the SOS solver's status and gaps, and the LP's duality gap."""
    cfg = _config("shi-thm4.9-certificate")
    per_case = record("shi-thm4.9-certificate").details["per_case"]
    assert [(c["p"], c["k"]) for c in per_case] == list(cfg.cases)
    for case in per_case:
        gamma = float(tm.max_margin(case["p"], case["k"]))
        assert case["rigorous"] and case["lower"] <= gamma * (1 + 1e-9) <= case["upper_rigorous"] * (1 + 1e-9)
        sos = case["sdp"]["sos"]
        assert sos["status"] == "optimal" and sos["solver"] in {"CLARABEL", "SCS"}
        assert abs(case["lp"]["gap"]) <= 1e-6 * gamma


@pytest.mark.parametrize("cid", TRAINING_CLAIMS)
def test_training_rows_for_every_seed(cid: str) -> None:
    cfg = _config(cid)
    rec = record(cid)
    assert cfg.width >= tm.min_width(cfg.p, cfg.k)
    assert tuple(evaluation(cid).obs.seeds) == cfg.train.seeds and len(cfg.train.seeds) >= 2
    assert "device" not in rec.details  # the runner records the device in the metadata
    assert rec.details["gamma_star"] == float(tm.max_margin(cfg.p, cfg.k))
    per_seed = rec.details["per_seed"]
    assert len(per_seed) == len(cfg.train.seeds)
    for row in per_seed:
        assert row["accuracy"] == 1.0
        assert len(row["coverage"]) == len(tm.frequencies(cfg.p))
        assert row["lp_ratio"] is None or row["lp_ratio"] <= 1 + 1e-6  # no re-weighting beats gamma*
    assert rec.observed == pytest.approx(min(r["margin_ratio"] for r in per_seed) * rec.details["gamma_star"])


@pytest.mark.parametrize("cid", TRAINING_CLAIMS)
def test_training_artifacts(cid: str) -> None:
    cfg = _config(cid)
    rec = record(cid)
    hist = rec.artifacts["history"]
    assert hist[0]["step"] == 0 and hist[-1]["step"] == cfg.train.steps
    assert hist[-1]["ratio"] == pytest.approx([r["margin_ratio"] for r in rec.details["per_seed"]], rel=1e-9)
    assert rec.artifacts["coverage"] == [r["coverage"] for r in rec.details["per_seed"]]
    spectra = rec.artifacts["spectra"]
    assert len(spectra["u1_values"]) == len(spectra["neurons"]) and len(spectra["u1_values"][0]) == cfg.p
    assert len(spectra["purity_all"]) == cfg.width


def test_memorising_control_records_every_network_below_gamma_star() -> None:
    cid = "edelman-appD4-memorising-margin"
    cfg = _config(cid)
    rec = record(cid)
    rows = rec.details["per_network"]
    assert [(r["p"], r["scaling"]) for r in rows] == [(p, s) for p in cfg.ps for s in cfg.scalings]
    for r in rows:
        assert r["margin_ratio"] == pytest.approx(float(tm.memorising_margin_ratio(r["p"], r["scaling"])), rel=1e-12)
        assert r["margin_ratio"] < cfg.min_ratio and r["check"].startswith("margin ratio")
        assert r["fourier_construction_check"] == "at gamma*" and r["accuracy"] == 1.0


def test_memorising_judge_fails_when_the_check_does_not_say_below() -> None:
    """The judge must fail if the margin-ratio check called a memorising network 'at gamma*' (or the Fourier
    construction 'below'), and for a prediction moved by 1 %."""
    claim = registry()["edelman-appD4-memorising-margin"]
    ev = evaluation("edelman-appD4-memorising-margin")
    assert claim.judge(ev.predicted, ev.obs, ev.config)[0] == "pass"
    for key in ("memorising_all_below", "fourier_construction_at_gamma"):
        obs = type(ev.obs)(ev.obs.value, details={**ev.obs.details, key: False})
        assert claim.judge(ev.predicted, obs, ev.config)[0] == "fail", key
    assert claim.judge(claim.judge.perturb(ev.predicted, ev.obs), ev.obs, ev.config)[0] == "fail"
