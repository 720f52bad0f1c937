"""Mutation audit of the observations of :mod:`verify.claims.markov.curriculum`,
:mod:`verify.claims.decision_lists.gradients` and :mod:`verify.claims.sparse_init_convex_phase`: what each measures
and which derived flags decide the verdict, on hand-built measurements (the numerical work is replaced by
stand-ins whose correct verdict follows from the statement)."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from numerics.walsh import characters
from verify.claims import registry
from verify.claims import sparse_init_convex_phase as cp
from verify.claims.base import RunContext
from verify.claims.decision_lists import gradients as gr
from verify.claims.markov import curriculum as cu

# --- Prop. E.3: the two-step curriculum, with the Richardson limit replaced by a hand-set one


def _curriculum_verdict(monkeypatch: pytest.MonkeyPatch, limit: list[float]) -> tuple[str, dict]:
    """The claim's verdict when every eps has the extrapolated limit ``limit`` = (W11, W12, W21, W22, v1..v4), judged
    against its own headline values (so only the vanishing and equal-diagonal conditions can fail)."""
    claim = registry()["edelman-ch8-prop8.5-curriculum-bigram"]
    cfg = cu.CurriculumConfig((4, 8, 16), (Fraction(1, 4), Fraction(2, 5)))
    run = SimpleNamespace(W2=np.zeros((2, 2)), v2=np.zeros(6), margin=0.0)
    monkeypatch.setattr(cu.mg, "bilinear_gradient_tensor", lambda t: None)
    monkeypatch.setattr(cu.mg, "curriculum_two_steps", lambda *a, **k: run)
    monkeypatch.setattr(cu.mg, "richardson_limit", lambda rows, ts: np.array(limit, dtype=float))
    obs = cu._observe_curriculum(cfg, RunContext())
    return claim.judge(obs.value, obs, cfg)[0], obs.details


def test_curriculum_headline_values_are_w11_v2_v4_and_the_bigram_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """Per eps the observation is (W11, v2, v4, W11 v2, v4/v2) of the limit (Prop. E.3's bigram coefficient is
    W_11 v_2); the recorded hinge margin is the largest over the runs at t, 2t, 4t."""
    monkeypatch.setattr(cu.mg, "bilinear_gradient_tensor", lambda t: None)

    def two_steps(t, *a, **k):
        return SimpleNamespace(W2=np.zeros((2, 2)), v2=np.zeros(6), margin={4: 0.1, 8: 0.3, 16: 0.2}[t])

    monkeypatch.setattr(cu.mg, "curriculum_two_steps", two_steps)
    monkeypatch.setattr(cu.mg, "richardson_limit", lambda rows, ts: np.array([2.0, 0, 0, 2.0, 0, 3.0, 0, 0.5]))
    cfg = cu.CurriculumConfig((4, 8, 16), (Fraction(1, 4),))
    obs = cu._observe_curriculum(cfg, RunContext())
    assert obs.value == [2.0, 3.0, 0.5, 6.0, 0.5 / 3.0]
    assert obs.details["hinge_margin_used"] == 0.3


def test_curriculum_passes_the_bigram_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bigram solution (W_2 a multiple of I, v concentrated on lags 2 and 4) passes."""
    assert _curriculum_verdict(monkeypatch, [2.0, 0, 0, 2.0, 0, 3.0, 0, 0.5])[0] == "pass"


@pytest.mark.parametrize(
    ("limit", "why"),
    [
        ([2.0, 0, 0, 2.0, 0, 3.0, 1.5, 0.5], "v_3 does not vanish"),
        ([2.0, 0, 0, 2.0, 1.5, 3.0, 0, 0.5], "v_1 does not vanish"),
        ([2.0, 0, 1.0, 2.0, 0, 3.0, 0, 0.5], "W_21 does not vanish"),
        ([2.0, 1.0, 0, 2.0, 0, 3.0, 0, 0.5], "W_12 does not vanish"),
        ([2.0, 0, 0, 1.0, 0, 3.0, 0, 0.5], "W_22 = W_11 / 2"),
        ([2.0, 0, 0, 3.0, 0, 3.0, 0, 0.5], "W_22 = 1.5 W_11"),
    ],
)
def test_curriculum_fails_a_limit_that_is_not_the_bigram_solution(
    monkeypatch: pytest.MonkeyPatch, limit: list[float], why: str
) -> None:
    """Prop. E.3: after the two steps W_2 -> c I (equal diagonal, zero off-diagonal) and v_1, v_3 -> 0 relative to
    v_2. A limit breaking any one of these must fail even when the headline values agree."""
    verdict, details = _curriculum_verdict(monkeypatch, limit)
    assert verdict == "fail", (why, details["vanishing_ratios"], details["equal_diagonal"])


# --- Sec. 4.3.3 gradient identities: the finite-difference and outside-the-sequence checks


def _grad_details(monkeypatch: pytest.MonkeyPatch, which: int, shift: float, outside_fd: float = 0.0) -> dict:
    """Details of ``_observe_grad`` when finite differences differ from autograd by ``shift`` everywhere inside the
    sequence and by ``outside_fd`` at the entries of tokens outside it (autograd exactly 0 there)."""
    cfg = gr.GradientConfig(draws=2)
    measured = []
    for inst in gr._instances(cfg):
        out = gr._outside(cfg.L, inst.seq)
        auto = np.where(out, 0.0, 0.5)
        fd = np.where(out, outside_fd, 0.5 + shift)
        measured.append((auto, auto, fd, fd))
    monkeypatch.setattr(gr, "_measured", lambda c, cp=False: tuple(measured))
    return gr._observe_grad(cfg, which).details


def test_finite_differences_agree_within_fd_tol_inclusive(monkeypatch: pytest.MonkeyPatch) -> None:
    """The docstring: finite differences must agree within ``fd_tol`` (= 1e-7): 0.5 fd_tol agrees, 2 fd_tol and
    100 fd_tol do not, for grad_W and grad_V alike."""
    tol = gr.GradientConfig().fd_tol
    for which in (0, 1):
        assert _grad_details(monkeypatch, which, 0.5 * tol)["finite_differences_agree"] is True
        assert _grad_details(monkeypatch, which, 2 * tol)["finite_differences_agree"] is False
        assert _grad_details(monkeypatch, which, 100 * tol)["finite_differences_agree"] is False


def test_nonzero_finite_difference_outside_the_sequence_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """grad_W entries of tokens outside the sequence must be exactly 0 in autograd *and* in finite differences: a
    finite difference of 1e-9 there (within fd_tol of autograd's 0) must still break the check the verdict reads."""
    d = _grad_details(monkeypatch, 0, 0.0, outside_fd=1e-9)
    assert d["outside_exactly_zero"] is False
    assert d["finite_differences_agree"] is False


def test_attention_jacobian_outside_the_sequence_must_be_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """dp_i/dw_k is 0 when i or k is a token outside the sequence: a Jacobian with any nonzero entry there must fail
    the claim (``outside_exactly_zero`` is required), even when every query but the last is right."""
    cfg = gr.GradientConfig(draws=1)
    calls = []

    def jac(W, seq, a):
        calls.append(a)
        out = gr._outside(cfg.L, seq)
        return np.where(out, 1.0 if len(calls) == cfg.n else 0.0, 0.25)

    monkeypatch.setattr(gr.vd, "attention_jacobian_autograd", jac)
    obs = gr._observe_jacobian(cfg, RunContext())
    assert calls == list(gr._instances(cfg)[0].seq)  # every query of the sequence is measured
    assert obs.details["outside_exactly_zero"] is False
    claim = registry()["karp-ch4-grad-attention-jacobian"]
    assert claim.judge(obs.value, obs, cfg)[0] != "pass"


# --- Lemma C.9's convex phase: the regularised objective and the seeds


def _fake_convex_phase(psi, y, radius, lam, steps, m, seeds):
    n = len(seeds)
    return {
        "risk_S": np.full(n, 0.25),
        "risk_D": np.full(n, 0.5),
        "norm": np.arange(1, n + 1, dtype=float),
        "distance": np.zeros(n),
        "error_D": np.zeros(n),
    }


def test_objective_is_the_regularised_empirical_risk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proof bounds L(w_T) = L_S(w_T) + (lambda/2) ||w_T||^2 with lambda = eps/B^2: the observed objective must
    be exactly that for every seed."""
    monkeypatch.setattr(cp.nsi, "lemma_c9_convex_phase", _fake_convex_phase)
    monkeypatch.setattr(cp, "_CACHE", {})
    cfg = cp.StepCountConfig(n=4, k=2, eps=0.14, features="bias-parity", steps="corrected", seeds=(0, 1, 2))
    lam = 0.14 / 1.0**2  # B = 1 for psi = (1, chi_S)
    rows = cp._observe(cfg, RunContext()).details["per_seed"]
    assert [r["objective"] for r in rows] == pytest.approx([0.25 + lam / 2 * k**2 for k in (1, 2, 3)], rel=1e-15)


def test_seed_offset_shifts_the_seeds_and_is_not_served_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run with ``seed_offset`` draws fresh seeds (the offset added to each) and must not reuse the unshifted
    run's cached observation."""
    seen = []

    def fake(psi, y, radius, lam, steps, m, seeds):
        seen.append(tuple(seeds))
        return _fake_convex_phase(psi, y, radius, lam, steps, m, seeds)

    monkeypatch.setattr(cp.nsi, "lemma_c9_convex_phase", fake)
    monkeypatch.setattr(cp, "_CACHE", {})
    cfg = cp.StepCountConfig(n=4, k=2, eps=0.14, features="bias-parity", steps="corrected", seeds=(0, 1))
    plain = cp._observe(cfg, SimpleNamespace(options=SimpleNamespace(seed_offset=0)))
    shifted = cp._observe(cfg, SimpleNamespace(options=SimpleNamespace(seed_offset=10)))
    assert plain.seeds == (0, 1) and shifted.seeds == (10, 11)
    assert seen == [(0, 1), (10, 11)]


def test_curriculum_with_distinct_initial_w_and_v_matches_the_limit() -> None:
    """The procedure starts from W_k = w_init 11^T and v = v_init 1; with w_init != v_init the exact population
    steps must still reach :func:`theory.markov.curriculum_limit` at those constants (the two constants must not be
    swapped or confused)."""
    claim = registry()["edelman-ch8-prop8.5-curriculum-bigram"]
    cfg = cu.CurriculumConfig((25, 50, 100), (Fraction(1, 4),), w_init=Fraction(1, 50), v_init=Fraction(1, 200))
    obs = cu._observe_curriculum(cfg, RunContext())
    assert claim.judge(cu._predict_curriculum(cfg), obs, cfg)[0] == "pass"


def test_outside_mask_marks_every_entry_with_a_token_outside_the_sequence() -> None:
    """Entry (i, k) of grad_W concerns tokens i and k; it is outside when either token is not in the sequence
    (brute force over the 5 x 5 entries)."""
    seq = (1, 3)
    expected = np.array([[i not in seq or k not in seq for k in range(5)] for i in range(5)])
    assert np.array_equal(gr._outside(5, seq), expected)


def _hypothesis_checks(monkeypatch: pytest.MonkeyPatch, columns) -> dict:
    """Lemma C.9's hypothesis checks for the bias-parity configuration (B = 1, ||psi|| = sqrt 2 assumed) when the
    features are replaced by ``columns(chi)`` (the GD run replaced by a stand-in)."""
    cfg = cp.StepCountConfig(n=4, k=2, eps=0.14, features="bias-parity", steps="corrected", seeds=(0, 1))
    original = cp._features

    def features(c):
        _, chi = original(c)
        return np.column_stack(columns(chi)), chi

    monkeypatch.setattr(cp, "_features", features)
    monkeypatch.setattr(cp.nsi, "lemma_c9_convex_phase", _fake_convex_phase)
    monkeypatch.setattr(cp, "_CACHE", {})
    obs = cp._observe(cfg, RunContext())
    return obs.details["hypotheses"]["checks"] | {"met": obs.details["hypotheses_met"]}


def test_convex_phase_hypotheses_hold_on_the_stated_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    """psi = (1, chi_S) with w* = (0, 1): every hypothesis of Lemma C.9 holds (B = 1, ||psi|| = sqrt 2, hinge risk 0)."""
    checks = _hypothesis_checks(monkeypatch, lambda chi: [np.ones(len(chi)), chi])
    assert all(checks.values()), checks


def test_convex_phase_hypotheses_catch_each_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each hypothesis is measured on the features: a readout that cannot fit the labels (features (1, chi_S +
    chi_{3}): w* = (0, 1/2), h = 0 on half the cube, hinge risk 1/2 > eps), a readout norm 2 > B = 1 (features
    chi/2), and features whose norm is not the one T and m were computed with (an extra constant 10: ||psi|| =
    sqrt 102, so T and m fall short) must each be reported, and the instance then misses the hypotheses."""
    other = characters(4, [2]).astype(np.float64)  # a character orthogonal to chi_S
    blurred = _hypothesis_checks(monkeypatch, lambda chi: [np.ones(len(chi)), chi + other])
    assert blurred["readout_norm_at_most_B"]  # w* = (0, 1/2)
    assert blurred["readout_risk_at_most_eps"] is False and not blurred["met"]  # h = 0 on half the cube
    half = _hypothesis_checks(monkeypatch, lambda chi: [np.ones(len(chi)), chi / 2])
    assert half["readout_norm_at_most_B"] is False and not half["met"]
    wide = _hypothesis_checks(monkeypatch, lambda chi: [np.ones(len(chi)), chi, np.full(len(chi), 10.0)])
    assert wide["readout_risk_at_most_eps"] and wide["readout_norm_at_most_B"]
    assert wide["psi_norm_as_used"] is False
    assert wide["T_meets_condition"] is False and wide["m_meets_condition"] is False and not wide["met"]


def test_convex_phase_runs_the_predicted_schedule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run must use the schedule the prediction assumes: T from the corrected condition T/(1 + log T) >=
    100(B||psi|| + eps)^2/eps^2 (:func:`theory.sparse_init.lemma_c9_steps_corrected`), weight decay eps/B^2, the
    perturbation radius eps/B and the lemma's m; for the printed configuration, T from the printed condition."""
    import math

    from theory import sparse_init as tsi

    calls = []

    def fake(psi, y, radius, lam, steps, m, seeds):
        calls.append((radius, lam, steps, m))
        return _fake_convex_phase(psi, y, radius, lam, steps, m, seeds)

    monkeypatch.setattr(cp.nsi, "lemma_c9_convex_phase", fake)
    monkeypatch.setattr(cp, "_CACHE", {})
    eps = 0.14
    cfg = cp.StepCountConfig(n=4, k=2, eps=eps, features="bias-parity", steps="corrected", seeds=(0,))
    cp._observe(cfg, RunContext())
    printed = cp.StepCountConfig(n=4, k=2, eps=eps, features="bias-parity", steps="printed", seeds=(0,))
    cp._observe(printed, RunContext())
    m = tsi.lemma_c9_sample_size(math.sqrt(2), 1.0, eps, "0.05")
    assert calls[0] == (eps, eps, tsi.lemma_c9_steps_corrected(math.sqrt(2), 1.0, eps), m)
    assert calls[1] == (eps, eps, tsi.lemma_c9_steps(math.sqrt(2), 1.0, eps), m)


def test_step_count_judge_refutes_only_a_failing_statement() -> None:
    """With ``refute`` (the statement as printed), a fail reads refuted, but seeds that meet every bound still pass:
    a claim is refuted only by a counterexample."""
    from verify.claims.base import Observation

    judge = cp.StepCountJudge(checks=(), headline="risk_D", rule=cp.RULE, refute=True)
    pred = {"risk_bound": 0.5, "norm_bound": 4.0, "objective_bound": 1.0}
    good = [{"seed": s, "risk_D": 0.25, "norm": 2.0, "objective": 0.5} for s in range(60)]
    obs = Observation(None, details={"per_seed": good, "hypotheses_met": True, "hypotheses": {"checks": {}}})
    assert judge(pred, obs)[0] == "pass"
    bad = [{**r, "risk_D": 1.0} for r in good]
    obs = Observation(None, details={"per_seed": bad, "hypotheses_met": True, "hypotheses": {"checks": {}}})
    assert judge(pred, obs)[0] == "refuted"
