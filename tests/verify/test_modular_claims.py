"""What the modular-addition claims record beyond their verdicts (``verify/claims/modular``): counterexamples of
the errata, details of the numeric claims, and the per-seed rows and artifacts of the training claims.

Verdicts are checked for every claim by ``test_claims.py``; the records here come from the same cached quick run.
Thresholds are read from the claims' configurations and judges, expected values from ``theory.modular``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics.modular import deformed_neuron
from numerics.spectra import neuron_diagnostics
from theory import modular as tm
from verify.claims import Observation, registry

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


@pytest.mark.parametrize(
    ("cid", "quote", "where"),
    [
        ("shi-lemC.18-output-as-printed", "0 otherwise", "proof of Lemma C.18"),
        ("edelman-D.6.2-output-as-printed", "0 otherwise", "App. D.6.2"),
    ],
)
def test_printed_output_erratum_is_substantive_and_quoted(cid: str, quote: str, where: str) -> None:
    """The printed case value is wrong and nothing nearby corrects it: kind substantive, with the display quoted."""
    erratum = registry()[cid].erratum
    assert erratum is not None and erratum.kind == "substantive"
    assert quote in erratum.quote and "(p-1)/2" in erratum.quote and where in erratum.where


def test_beta_sign_rejudged_the_printed_form_passes() -> None:
    """Re-judged (docs/modular.md): Thm 4.9's "a constant scalar beta in R" describes the neurons of a max-margin
    network and holds there; it is weaker than the proof's beta > 0, so the claim passes and says so in its note."""
    claim, rec = registry()["shi-thm4.9-beta-sign"], record("shi-thm4.9-beta-sign")
    assert not claim.refuting and claim.erratum is None and claim.corrected_by is None
    assert rec.verdict == "pass" and "weaker" in claim.note and "Lemma C.15" in claim.note
    d, cfg = rec.details, _config("shi-thm4.9-beta-sign")
    assert d["cases"] == [list(c) for c in cfg.cases] and {k % 2 for _, k in cfg.cases} == {0, 1}
    assert max(d["printed_form_residual"]) <= 1e-9 and max(d["beta_positive_phase_residual"]) <= 1e-9


def test_beta_sign_the_case_that_looked_wrong_is_the_converse() -> None:
    """What made "beta in R" look wrong: beta -> -beta gives Psi = (-1)^(k+1) gamma*, -gamma* for even k. That is the
    converse (every such neuron optimal), which the theorem does not state; the record keeps the numbers."""
    d, cfg = record("shi-thm4.9-beta-sign").details, _config("shi-thm4.9-beta-sign")
    for (p, k), psi, gamma in zip(cfg.cases, d["psi_with_beta_negated"], d["gamma_star"]):
        assert gamma == float(tm.max_margin(p, k))
        assert psi == pytest.approx((-1) ** (k + 1) * gamma, rel=1e-12)


def test_beta_sign_judge_fails_a_neuron_outside_the_printed_form() -> None:
    """The judge fails the printed statement when a neuron's phase residual is neither 0 nor (k-1) pi (pi/2 here),
    whatever the margin."""
    claim = registry()["shi-thm4.9-beta-sign"]
    ev = evaluation("shi-thm4.9-beta-sign")
    bad = Observation(ev.obs.value, details={**ev.obs.details, "printed_form_residual": [float(np.pi / 2)] * 2})
    assert claim.judge(ev.predicted, ev.obs, ev.config)[0] == "pass"
    assert claim.judge(ev.predicted, bad, ev.config)[0] == "fail"


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
        assert r["margin_ratio"] < cfg.training_min_ratio < cfg.min_ratio and r["check"].startswith("margin ratio")
        assert r["training_check"].startswith("margin ratio") and r["accuracy"] == 1.0
        assert r["fourier_construction_check"] == "at gamma*"
        assert r["fourier_construction_training_check"] == "passes"


def _training_min_ratios() -> list[float]:
    """Every min_ratio of every modular training claim judged by the margin-ratio check, from the registry."""
    claims = [
        c for c in registry().values() if c.kind == "training" and c.id.startswith(("shi-thm4.9", "edelman-thm7.7"))
    ]
    assert {c.id for c in claims} >= {f"shi-thm4.9-training-k{k}" for k in (2, 3, 4, 5)} | {"edelman-thm7.7-training"}
    return [cfg.min_ratio for c in claims for cfg in c.configs.values()]


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_memorising_control_is_judged_at_the_smallest_training_threshold(scale: str) -> None:
    """The statement says the training claims' check rejects the memorising network: it must be run at the lowest
    threshold any of them uses (so it fails all of them), not at a stricter one."""
    cfg = registry()["edelman-appD4-memorising-margin"].configs[scale]
    assert cfg.training_min_ratio == min(_training_min_ratios())
    assert f"{cfg.training_min_ratio:g}" in registry()["edelman-appD4-memorising-margin"].statement


def test_memorising_judge_fails_when_a_check_does_not_say_below() -> None:
    """The judge must fail if a memorising network passed the training claims' check at their smallest threshold
    (though below gamma*), if one were at gamma*, if the Fourier construction were not at gamma*, and for a
    prediction moved by 1 %."""
    cid = "edelman-appD4-memorising-margin"
    claim = registry()[cid]
    ev = evaluation(cid)
    cfg = ev.config
    assert claim.judge(ev.predicted, ev.obs, cfg)[0] == "pass"
    between = (cfg.training_min_ratio + cfg.min_ratio) / 2  # passes the training threshold, still below gamma*
    for field, value in (("margin_ratio", between), ("margin_ratio", 1.0), ("fourier_construction_ratio", 0.999)):
        rows = [dict(r) for r in ev.obs.details["per_network"]]
        rows[-1][field] = value
        obs = type(ev.obs)(ev.obs.value, details={**ev.obs.details, "per_network": rows})
        verdict, reason = claim.judge(ev.predicted, obs, cfg)
        assert verdict == "fail", (field, value, reason)
    assert claim.judge(claim.judge.perturb(ev.predicted, ev.obs), ev.obs, cfg)[0] == "fail"


def test_single_neuron_judge_requires_equal_block_norms() -> None:
    """Lemma 4.10's optimum has equal block amplitudes: the judge must reject a maximizer whose block norms differ
    by more than its bound, here one built with squared block norms (1 + d, 1 - d, 1)/3 and measured by
    numerics.spectra; the bound is what a value within ``below`` of gamma* allows (Psi/gamma* = sqrt(1 - d^2))."""
    cid = "shi-lem4.10-single-neuron"
    claim, ev = registry()[cid], evaluation(cid)
    judge = claim.judge
    assert judge(ev.predicted, ev.obs, ev.config)[0] == "pass"
    assert max(ev.obs.details["maximizer_balance"]) <= judge.max_balance
    p, k, d = 5, 2, 2 * judge.max_balance
    net = deformed_neuron(p, k, 1, np.zeros(k), block_fractions=np.array([1 + d, 1 - d, 1]) / 3)
    balance = float(neuron_diagnostics(net).balance[0])
    assert balance == pytest.approx(d, rel=1e-9)
    # The bound's derivation, checked with the exact formula: the imbalance pattern that costs least for a given
    # largest |d_i| = D, (D, -D/2, -D/2), already falls short of gamma* by at least ``below`` at D = max_balance.
    big = sympy.nsimplify(judge.max_balance)
    r = [(1 + big) / 3, (1 - big / 2) / 3, (1 - big / 2) / 3]
    shortfall = 1 - tm.psi_unbalanced(p, k, r) / tm.max_margin(p, k)
    assert float(shortfall) >= judge.below
    n = len(ev.obs.details["maximizer_balance"])
    obs = type(ev.obs)(ev.obs.value, details={**ev.obs.details, "maximizer_balance": [balance] * n})
    assert judge(ev.predicted, obs, ev.config)[0] == "fail"
