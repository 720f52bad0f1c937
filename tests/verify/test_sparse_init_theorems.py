"""The Ch. 6 / App. C.2 theorem claims (verify/claims/sparse_init_theorems.py) at quick scale: that their checks can
fail (the claims whose prediction a 1 % error cannot move say so in ``insensitive``), and that the records carry the
numbers the docs quote. The verdicts themselves are checked for every claim by tests/verify/test_claims.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from numerics import sparse_init as nsi
from theory import sparse_init as tsi
from verify.claims import Observation, registry

from .claim_checks import evaluation, record


def test_c5_fails_with_a_much_smaller_sample():
    """A 25x smaller sample than Lemma C.5's m puts the deviation above tau on most draws: the check can fail."""
    claim = registry()["edelman-ch6-lemC.5-gradient-concentration"]
    cfg = claim.configs["quick"]
    m = tsi.lemma_c5_sample_size(cfg.n, cfg.width, str(cfg.tau), str(cfg.delta)) // 25
    dev = nsi.lemma_c5_deviations(cfg.n, cfg.k, cfg.width, m, len(cfg.seeds), cfg.net_seed)
    obs = Observation(
        [float(d) for d in dev["deviation"]], details={"per_seed": [{"deviation": float(d)} for d in dev["deviation"]]}
    )
    verdict, _ = claim.judge(claim.predict(cfg), obs, cfg)
    assert verdict == "fail"


def test_c16_threshold_of_one_fails_every_seed():
    claim = registry()["edelman-ch6-thm6.5-one-step-subnetwork"]
    ev = evaluation(claim.id)
    wrong = {case: {**v, "threshold": 1} for case, v in ev.predicted.items()}
    verdict, reason = claim.judge(wrong, ev.obs, ev.config)
    assert verdict == "fail", reason


def test_c16_record_reports_init_and_printed_gamma_controls():
    details = record("edelman-ch6-thm6.5-one-step-subnetwork").details
    rows = details["per_seed"]
    assert max(r["corr_init"] for r in rows) < 0.2 < 0.5 < min(r["corr_after"] for r in rows)
    assert all(r["support_exact"] == 1.0 for r in rows)  # every estimate within tau: truncation keeps exactly S \ S'
    assert len(details["printed_gamma_control"]) == 20
    for case, st in details["settings"].items():
        assert int(st["m"]) >= 1 and int(st["width"]) % 2 == 0, case


def test_c16_post_step_weights_match_the_schedule_on_s_prime_and_outside_s():
    """On S' and outside S the truncated step leaves (1 - lambda) w_0 exactly (theory's w_S', w_out)."""
    n, k, s = 9, 4, 2
    sch = tsi.thm_c16_schedule(n, k, s)
    f = {key: float(v) for key, v in sch.items()}
    biases = [float(b) for b in tsi.bias_grid(k, sch["eps"])]
    out = nsi.thm_c16_one_step(n, k, s, f["eps"], biases, f["eta"], f["lam"], f["gamma"], 316, 27139, 5)
    assert out["w_S'"] == pytest.approx(f["w_S'"], rel=1e-12)
    assert out["w_out"] == pytest.approx(f["w_out"], rel=1e-12)
    assert out["w_S-S'"] == pytest.approx(f["w_S-S'"], rel=0.5)  # the estimate of xi_in is within tau of it


def test_c10_printed_counterexample_exceeds_the_bound_and_corrected_tails_do_not():
    printed = record("edelman-ch6-lemC.10-chernoff-as-printed")
    for case in printed.counterexample["cases"]:
        assert case["P(X > mu/2)"] > 0.99 > case["bound exp(-mu/10)"]
        assert case["P(X < mu/2)"] < case["bound exp(-mu/10)"] and case["P(X > 3mu/2)"] < case["bound exp(-mu/10)"]
        assert case["mu"] == pytest.approx(float(tsi.lemma_c10_mean(case["width"], case["n"], case["k"], case["s"])))


def test_c7_tight_instances_attain_the_bound():
    ev = evaluation("edelman-ch6-lemC.7-feature-lipschitz")
    kinds = [row["kind"] for row in ev.obs.details["per_instance"] for _ in range(2)]
    ratio = np.asarray(ev.obs.value) / np.asarray(ev.predicted)
    assert np.allclose(ratio[np.array(kinds) == "tight"], 1.0, rtol=1e-9)
    assert np.all(ratio <= 1 + 1e-9)


def test_quick_configs_are_frozen():
    for cid in ("edelman-ch6-thm6.5-one-step-subnetwork", "edelman-ch6-lemC.5-gradient-concentration"):
        cfg = registry()[cid].configs["quick"]
        with pytest.raises(dataclasses.FrozenInstanceError):
            cfg.seeds = ()  # type: ignore[misc]


@pytest.mark.slow
def test_c9_and_c8_checks_can_fail():
    """Lemma C.9's 7 eps replaced by 0 fails the seeds with a positive risk; Lemma C.8's excess replaced by a negative
    one fails every seed whose excess is not negative."""
    ev9 = evaluation("edelman-ch6-lemC.9-convex-phase")
    claim9 = registry()["edelman-ch6-lemC.9-convex-phase"]
    verdict, _ = claim9.judge({**ev9.predicted, "risk_bound": 0.0}, ev9.obs, ev9.config)
    assert verdict == "fail"
    assert ev9.obs.details["ideal_readout_error"] < 1e-9  # psi* with w* computes chi_S: L_D(h_{psi,w*}) = 0 <= eps
    claim8 = registry()["edelman-ch6-lemC.8-generalisation"]
    verdict, _ = claim8.judge({**claim8.predict(ev9.config), "gap": -1.0}, ev9.obs, ev9.config)
    assert verdict == "fail"


def test_c10_r_good_counterexample_the_true_mean_is_several_times_r_prime():
    rec = record("edelman-ch6-lemC.10-r-good-as-printed")
    for case in rec.counterexample["cases"]:
        n, k, s, r = case["n"], case["k"], case["s"], case["width"]
        assert case["mean count per bias"] == pytest.approx(float(tsi.lemma_c10_true_mean(r, n, k, s)), rel=1e-9)
        assert case["mean count per bias"] > 2 * case["r'"]  # the count concentrates above the upper side 2r'
        assert case["r'"] == pytest.approx(float(tsi.lemma_c10_mean(r, n, k, s)), rel=1e-9)
        assert case["P(r'-good)"] < 1e-6


def test_c8_judges_only_the_seeds_whose_h_is_in_the_class():
    """Lemma C.8 is about the class H_{psi', sqrt(8) B}: a seed whose w_T lies outside it is left out (the full-scale
    run at the printed step count, where every w_T does: inconclusive, not a failure of the lemma), and a seed inside
    it is still judged on the excess."""
    ev9 = evaluation("edelman-ch6-lemC.9-convex-phase")
    claim8 = registry()["edelman-ch6-lemC.8-generalisation"]
    predicted = claim8.predict(ev9.config)
    rows = ev9.obs.details["per_seed"]
    outside = [{**r, "norm": 2 * predicted["class_norm"]} for r in rows]
    verdict, reason = claim8.judge(predicted, Observation(None, details={"per_seed": outside}), ev9.config)
    assert verdict == "inconclusive" and "no seed's h is in the class" in reason
    mixed = outside[:1] + rows[1:]  # 59 of 59 inside: lower bound 0.05^(1/59) = 0.9505 >= p0 = 0.95
    verdict, reason = claim8.judge(predicted, Observation(None, details={"per_seed": mixed}), ev9.config)
    assert verdict == "pass" and "1 seed(s) outside the class left out" in reason
    verdict, _ = claim8.judge({**predicted, "gap": -1.0}, Observation(None, details={"per_seed": mixed}), ev9.config)
    assert verdict == "fail"
