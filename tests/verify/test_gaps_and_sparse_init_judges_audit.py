"""Mutation audit of the custom judges of ``verify/claims/boolean/gaps.py`` (PerCase, LtfGaps, SinusoidGaps),
``verify/claims/attention_parity.py`` (RefutedIfSmaller) and the sparse-initialisation claims
(``sparse_init_convex_phase.py``: StepCountJudge; ``sparse_init_theorems.py``: OneStepJudge, ConvexPhaseJudge,
GeneralisationJudge; ``sparse_init_end_to_end.py``: EndToEndJudge), on hand-built observations whose verdict follows
from the judges' docstrings and the lemmas' inequalities (``<=`` bounds include their boundary; a lemma whose
hypotheses are missed says nothing). The per-seed judges run here under a small population rule (p0 = 0.5), whose
pass needs five of five seeds; the rule itself is tested in ``test_judges*.py``. Each test kills a one-line mutant
that the other tests let through."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from numerics import sparse_init as nsi
from verify.claims import sparse_init_convex_phase as cp
from verify.claims.attention_parity import RefutedIfSmaller
from verify.claims.base import Observation, registry
from verify.claims.boolean.gaps import LtfGaps, SinusoidGaps
from verify.claims.judges import Population
from verify.claims.sparse_init_convex_phase import StepCountJudge
from verify.claims.sparse_init_end_to_end import EndToEndJudge
from verify.claims.sparse_init_theorems import ConvexPhaseJudge, GeneralisationJudge, OneStepJudge

RULE = Population(p0=0.5, p_alt=0.95)


def test_per_case_judge_reads_every_case():
    """Prop. B.7's judge: every case satisfies every check; a second case with one unrecovered trial fails the
    claim although the first case is fine."""
    judge = registry()["edelman-ch5-propB.7-one-step-recovery"].judge
    ok = {"case": "a", "rate_lo": 0.1, "rate_hi": 1.0, "violations": 0}
    assert judge(None, Observation({}, details={"per_case": [ok, {**ok, "case": "b"}]}))[0] == "pass"
    assert judge(None, Observation({}, details={"per_case": [ok, {**ok, "case": "b", "violations": 1}]}))[0] == "fail"


def _ltf(ref_even: float = 0.5, ref_hard: float = 0.25):
    judge = LtfGaps(median_band=(0.5, 2.0), min_positive_hard=0.6, atol=1e-12)
    pred = {"majority_reference_k2": ref_even, "majority_reference_k4": ref_hard, "zero_k3": 0}
    sign = {
        "median_gap_k_even": ref_even,
        "max_abs_gap_k_odd": 0.0,
        "P_positive_k_hard": 1.0,
        "gap_range_k_even": [ref_even, ref_even],
        "gap_range_k_hard": [ref_hard, ref_hard],
    }
    return judge, pred, sign


def test_ltf_sign_weights_must_give_the_majority_gaps_at_both_ends_of_the_range():
    """For sign w every gap equals the Majority reference within atol (the LTF is Majority up to signs): a gap range
    at k_hard whose upper end is off by 2^-20 fails, as does one at k_even."""
    judge, pred, sign = _ltf()
    assert judge(pred, Observation({"sign": sign}))[0] == "pass"
    assert judge(pred, Observation({"sign": {**sign, "gap_range_k_hard": [0.25, 0.25 + 2.0**-20]}}))[0] == "fail"
    assert judge(pred, Observation({"sign": {**sign, "gap_range_k_even": [0.5, 0.5 - 2.0**-20]}}))[0] == "fail"


def test_ltf_odd_gap_is_zero_within_atol():
    """Without a bias, an LTF has no odd-degree gap: the gap at k_odd is 0 within atol = 1e-12; 1e-11 fails."""
    judge, pred, sign = _ltf()
    assert judge(pred, Observation({"sign": {**sign, "max_abs_gap_k_odd": 1e-13}}))[0] == "pass"
    assert judge(pred, Observation({"sign": {**sign, "max_abs_gap_k_odd": 1e-11}}))[0] == "fail"


def test_ltf_median_below_the_band_fails():
    """The median gap at k_even is within [0.5, 2] x the reference, from below as from above."""
    judge, pred, _ = _ltf()
    u = {"median_gap_k_even": 0.2, "max_abs_gap_k_odd": 0.0, "P_positive_k_hard": 1.0}
    assert judge(pred, Observation({"uniform": u}))[0] == "fail"
    assert judge(pred, Observation({"uniform": {**u, "median_gap_k_even": 1.1}}))[0] == "fail"
    assert judge(pred, Observation({"uniform": {**u, "median_gap_k_even": 0.3}}))[0] == "pass"


def test_sinusoid_closed_form_must_match_brute_force():
    """Fig. B.8: the closed form of the gradient agrees with the brute-force transform within atol; a closed form
    off by 1e-6 fails although the gaps are as predicted."""
    judge = SinusoidGaps(min_positive=0.95, atol=1e-12)
    v = {"P_positive_k_odd": 1.0, "median_gap_k_odd": 0.03, "max_abs_gap_k_even": 0.0, "max_closed_form_error": 0.0}
    assert judge({"zero_k2": 0}, Observation(v))[0] == "pass"
    assert judge({"zero_k2": 0}, Observation({**v, "max_closed_form_error": 1e-6}))[0] == "fail"


def test_refuted_if_smaller_needs_a_strictly_smaller_valid_value():
    """A minimality statement is refuted by a valid candidate strictly below the printed minimum: a candidate equal
    to it refutes nothing, one below it refutes on its own, an invalid candidate (None) is ignored."""
    judge = RefutedIfSmaller(what=("a", "b"))
    assert judge([8, 10], Observation([8, 10]))[0] == "pass"
    assert judge([8, 10], Observation([7, 10]))[0] == "refuted"
    assert judge([8, 10], Observation([None, 9]))[0] == "refuted"
    assert judge([8, 10], Observation([None, None]))[0] == "pass"


def _step_obs(rows: list[dict], met: bool = True) -> Observation:
    return Observation(
        [r["risk_D"] for r in rows],
        details={"per_seed": rows, "hypotheses": {"checks": {"h": met}}, "hypotheses_met": met},
    )


_STEP_PRED = {"risk_bound": 0.5, "norm_bound": 4.0, "objective_bound": 1.0}


def _step_row(seed: int, **changes: float) -> dict:
    return {"seed": seed, "risk_D": 0.25, "norm": 2.0, "objective": 0.5} | changes


def test_step_count_judge_says_nothing_without_the_hypotheses():
    """Lemma C.9 says nothing about an instance that misses its hypotheses: inconclusive, even when every seed
    breaks the bounds."""
    judge = StepCountJudge(checks=(), headline="risk_D", rule=RULE, refute=True)
    rows = [_step_row(s, risk_D=1.0) for s in range(5)]
    assert judge(_STEP_PRED, _step_obs(rows, met=False))[0] == "inconclusive"
    assert judge(_STEP_PRED, _step_obs(rows))[0] == "refuted"


def test_step_count_judge_fails_rather_than_refutes_without_refute():
    """Only a claim about the statement as printed (``refute``) reads a fail as refuted; the corrected claim fails."""
    judge = StepCountJudge(checks=(), headline="risk_D", rule=RULE)
    assert judge(_STEP_PRED, _step_obs([_step_row(s, risk_D=1.0) for s in range(5)]))[0] == "fail"
    assert judge(_STEP_PRED, _step_obs([_step_row(s) for s in range(5)]))[0] == "pass"


def test_convex_phase_judge_checks_the_norm_bound_inclusively():
    """Lemma C.9: ||w_T|| <= sqrt(8) B, boundary included; a norm above the bound fails every seed."""
    judge = ConvexPhaseJudge(checks=(), headline="risk_D", rule=RULE)
    pred = {"risk_bound": 0.5, "norm_bound": 4.0}
    rows = [{"seed": s, "risk_D": 0.5, "norm": 4.0} for s in range(5)]
    assert judge(pred, Observation(None, details={"per_seed": rows}))[0] == "pass"
    rows = [{"seed": s, "risk_D": 0.25, "norm": 4.5} for s in range(5)]
    assert judge(pred, Observation(None, details={"per_seed": rows}))[0] == "fail"


def _c8_row(seed: int, norm: float, excess: float) -> dict:
    return {"seed": seed, "norm": norm, "excess": excess}


def test_generalisation_class_boundary_is_inside_and_outside_seeds_are_left_out():
    """Lemma C.8 is about h in H_{psi', B'} with ||w|| <= B' (boundary included): a seed at the class norm is
    judged, a seed outside it is left out even when its excess breaks the bound."""
    judge = GeneralisationJudge(checks=(), headline="excess", rule=RULE)
    pred = {"class_norm": 4.0, "gap": 0.5}
    at_boundary = [_c8_row(s, 4.0, 0.25) for s in range(5)]
    verdict, reason = judge(pred, Observation(None, details={"per_seed": at_boundary}))
    assert verdict == "pass" and "outside the class" not in reason
    outside_bad = [*at_boundary, _c8_row(5, 8.0, 1.0)]
    assert judge(pred, Observation(None, details={"per_seed": outside_bad}))[0] == "pass"
    inside_bad = [_c8_row(s, 2.0, 1.0) for s in range(5)]
    assert judge(pred, Observation(None, details={"per_seed": inside_bad}))[0] == "fail"


def test_one_step_judge_uses_each_cases_own_threshold_inclusively():
    """Thm C.16 per (case, seed): correlation >= 1/2 - eps of *its* case, boundary included. Case b's seeds at
    0.375 pass against b's 0.375 and fail against a's 0.4375 (a judge reading another case's threshold fails
    them)."""
    judge = OneStepJudge(checks=(), headline="corr_after", rule=RULE)
    pred = {"a": {"threshold": 0.4375}, "b": {"threshold": 0.375}}
    rows = [{"case": "b", "seed": s, "corr_after": 0.375} for s in range(5)]
    assert judge(pred, Observation(None, details={"per_seed": rows}))[0] == "pass"
    rows_a = [{**r, "case": "a"} for r in rows]
    assert judge(pred, Observation(None, details={"per_seed": rows_a}))[0] == "fail"


@pytest.mark.parametrize(("risk", "verdict"), [(0.25, "pass"), (0.375, "fail")])
def test_end_to_end_risk_bound(risk, verdict):
    """Thm C.11: L_D(h) <= eps (the predicted bound 1/4): a risk of 3/8 fails every seed."""
    judge = EndToEndJudge(checks=(), headline="risk_D", rule=RULE)
    rows = [{"seed": s, "risk_D": risk} for s in range(5)]
    assert judge({"bound": 0.25}, Observation(None, details={"per_seed": rows}))[0] == verdict


def test_a_perturbation_beyond_eps_over_b_misses_the_hypothesis(monkeypatch):
    """Lemma C.9 assumes ||phi^(1) - psi||_{inf,2} <= eps/B: a run whose features moved twice that far (here one
    seed of a stand-in for the GD run) misses a hypothesis, so the observation says so and the claim is
    inconclusive, not judged on the bounds."""
    claim = registry()["edelman-ch6-lemC.9-proof-bound"]
    cfg = claim.configs["quick"]

    def fake_run(psi, y, radius, lam, steps, m, seeds):
        n = len(seeds)
        dist = np.zeros(n)
        dist[0] = 2 * radius
        zeros = np.zeros(n)
        return {"risk_S": zeros, "risk_D": zeros, "norm": zeros, "distance": dist, "error_D": zeros}

    monkeypatch.setattr(nsi, "lemma_c9_convex_phase", fake_run)
    monkeypatch.setattr(cp, "_CACHE", {})
    obs = cp._observe(cfg, SimpleNamespace(options=SimpleNamespace(seed_offset=0)))
    assert obs.details["hypotheses"]["checks"]["perturbation_within_eps_over_B"] is False
    assert claim.judge(claim.predict(cfg), obs, cfg)[0] == "inconclusive"
