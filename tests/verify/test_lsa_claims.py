"""verify/train/lsa.py (torch LSA, training, comparison) and the details and artifacts of the LSA claims (Shi Ch. 5,
Sec. 5.3-5.4); the verdicts themselves are checked for every claim by ``test_claims.py``."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy
import torch

from numerics import lsa as nl
from theory import lsa as tl
from verify.claims.base import RunContext, registry, run_claim
from verify.runtime.divergence import TrainingDiverged
from verify.runtime.options import RunOptions
from verify.train import lsa as vl

from .claim_checks import evaluation, record

LAM = np.diag([4.0, 3.0, 2.0, 1.0])
CPU = RunOptions(device="cpu")  # the LSA trainers' old default device (RunOptions defaults to "auto")


def test_training_population_rows_and_spectrum_artifact():
    rec = record("shi-thm5.4.1-training-population")
    claim = registry()["shi-thm5.4.1-training-population"]
    cfg = claim.configs["quick"]
    assert not claim.on_device
    assert "device" not in rec.details
    rows = rec.details["per_run"]
    assert [(row["rank"], row["seed"]) for row in rows] == [(r, s) for r in cfg.ranks for s in cfg.seeds]
    pop = evaluation("shi-thm5.4.1-training-population").population
    assert pop["n"] == len(cfg.seeds) and pop["p0"] == 0.8
    spectrum = rec.artifacts["lsa_spectrum"]
    assert spectrum["rank"] == list(cfg.ranks) and len(spectrum["learned"]) == len(cfg.ranks)
    opt = [[float(v) for v in tl.optimal_rank_r(sympy.Matrix(cfg.Lam), cfg.N, r).v] for r in cfg.ranks]
    for got, want in zip(spectrum["optimal"], opt):
        np.testing.assert_allclose(sorted(got, reverse=True), sorted(want, reverse=True), atol=1e-12)


def test_noise_curve_artifact_matches_theory():
    rec = record("shi-thm5.4.2-mc")
    curve = rec.artifacts["lsa_noise_curve"]
    cfg = registry()["shi-thm5.4.2-mc"].configs["quick"]
    assert set(curve["loss_by_rank"]) == {str(r) for r in cfg.ranks}
    L = sympy.Matrix(cfg.Lam)
    for r, losses in curve["loss_by_rank"].items():
        assert len(losses) == len(curve["sigma"])
        want = [
            float(tl.noisy_eval_loss(L, cfg.N, int(r), cfg.M, sympy.Rational(str(s)), list(cfg.w)))
            for s in curve["sigma"]
        ]
        np.testing.assert_allclose(losses, want, rtol=1e-12)
    se = np.array(rec.details["stderr"][: len(cfg.sigmas)], dtype=float)
    assert se.shape == (len(cfg.sigmas), len(cfg.ranks)) and np.all(se > 0)


def test_monte_carlo_claims_record_standard_errors():
    for cid in ("shi-lem5.1-mc", "shi-thm5.4.1-mc-loss"):
        se = np.atleast_1d(np.array(record(cid).details["stderr"], dtype=float))
        assert np.all(se > 0) and np.all(np.isfinite(se)), cid


def test_monotonicity_details():
    rec = record("shi-thm5.4.1-monotonicity")
    assert all(rec.details["L_r_strictly_decreasing"]) and rec.details["v_increasing_in_N"]
    cfg = registry()["shi-thm5.4.1-monotonicity"].configs["quick"]
    assert len(rec.details["L_r"]) == len(cfg.Lam) + 1


def test_dead_block_details():
    d = record("shi-eq5.1-dead-blocks").details
    assert d["prediction_change"] == 0 and d["dead_block_grad"] == 0 and d["live_block_grad"] > 0


def test_torch_forward_matches_numpy():
    rng = np.random.default_rng(0)
    E, _ = nl.sample_prompts(rng, 8, LAM, 10)
    WPV, WKQ = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
    got = vl.lsa_predict(torch.as_tensor(E)[None], torch.as_tensor(WPV)[None], torch.as_tensor(WKQ)[None], 10)
    np.testing.assert_allclose(got[0].numpy(), nl.lsa_forward(E, WPV, WKQ, 10), rtol=1e-12, atol=1e-12)


def test_m_eff_gauge_invariance():
    rng = np.random.default_rng(1)
    WPV, WKQ = torch.as_tensor(rng.standard_normal((1, 5, 5))), torch.as_tensor(rng.standard_normal((1, 5, 5)))
    P2, K2 = WPV.clone(), WKQ.clone()
    P2[:, 4, 4] *= -3.0  # (u, U) -> (c u, U / c)
    K2[:, :4, :4] /= -3.0
    P2[:, 4, :4] *= 0.25  # (p, q) -> (c' p, q / c')
    K2[:, 4, :4] /= 0.25
    P2[:, :4, :] = 7.0  # dead blocks
    K2[:, :, 4] = -2.0
    assert torch.allclose(vl.m_eff(WPV, WKQ), vl.m_eff(P2, K2), rtol=1e-13, atol=1e-13)


def test_population_training_reaches_closed_form():
    res = vl.train_population(vl.PopulationConfig(LAM, 20, 2, seeds=(3,), steps=300, polish_steps=100), CPU)
    cmp = vl.compare_to_optimum(res.M_eff, LAM, 20, 2)
    assert cmp.rel_err.max() < 1e-2 and abs(cmp.loss_gap).max() < 1e-6


def test_sgd_runs_and_reports():
    res = vl.train_sgd(vl.SGDConfig(LAM, 10, 1, seeds=(0, 1), model="full", steps=5, batch=16), CPU)
    assert res.M_eff.shape == (2, 4, 4) and len(res.details["w21_PV_norm"]) == 2
    res = vl.train_sgd(vl.SGDConfig(LAM, 10, 1, seeds=(0,), model="reduced", steps=5, batch=16), CPU)
    assert np.isfinite(res.M_eff).all()


def test_divergence_is_reported():
    with pytest.raises(TrainingDiverged, match=r"lsa-sgd-reduced training diverged at step \d+ for seed\(s\) \[0\]"):
        vl.train_sgd(vl.SGDConfig(LAM * 1e100, 10, 1, seeds=(0,), model="reduced", steps=3, batch=8, lr=1e30), CPU)


def test_bad_input():
    with pytest.raises(ValueError, match="rank"):
        vl.train_population(vl.PopulationConfig(LAM, 20, 5), CPU)
    with pytest.raises(ValueError, match="N"):
        vl.train_population(vl.PopulationConfig(LAM, 0, 1), CPU)
    with pytest.raises(ValueError, match="symmetric"):
        vl.train_population(vl.PopulationConfig(np.array([[1.0, 2.0], [0.0, 1.0]]), 5, 1), CPU)
    with pytest.raises(ValueError, match="shape"):
        vl.compare_to_optimum(np.zeros((1, 3, 3)), LAM, 20, 1)
    with pytest.raises(ValueError, match="seeds"):
        vl.train_population(vl.PopulationConfig(LAM, 20, 1, seeds=(0, 0)), CPU)
    with pytest.raises(ValueError, match="shape mismatch"):
        vl.lsa_predict(torch.zeros(1, 2, 5, 6), torch.zeros(1, 4, 4), torch.zeros(1, 4, 4), 5)


@pytest.mark.slow
def test_sgd_training_claim_full():
    """Recipe (b) at full scale (4 ranks x 3000 Adam steps x 8 seeds x batch 1024: a few minutes of CPU); a full-only
    claim, so ``test_claims.py`` does not run it."""
    rec = run_claim(
        registry()["shi-thm5.4.1-training-sgd"],
        RunContext(scale="full", options=RunOptions(progress=False, device="cpu")),
    )
    assert rec.verdict == "pass", rec.reason
    assert len(rec.details["per_run"]) == 32 and rec.population["n"] == 8 and "device" not in rec.details
    json.dumps(rec.to_json())


def test_compare_to_optimum_is_not_unique_for_a_singular_lambda() -> None:
    """A null direction of Lambda leaves U free there: only the loss is meaningful (Thm 5.4.1 assumes Lambda > 0)."""
    import numpy as np

    from verify.train import lsa as vl

    M = np.zeros((1, 2, 2))
    assert vl.compare_to_optimum(M, np.diag([1.0, 0.0]), 10, 1).unique is False
    assert vl.compare_to_optimum(M, np.diag([2.0, 1.0]), 10, 1).unique is True
    assert vl.compare_to_optimum(M, np.diag([1.0, 1.0]), 10, 1).unique is False  # tied eigenvalues


def _lsa_obs(claim_id: str, at: str, seeds: int) -> tuple:
    """A synthetic observation of a trained LSA claim's quick configuration: every (rank, seed) row's M_eff is the
    zero matrix (``at="zero"``) or exactly the predicted optimum diag(v*) in every basis (``at="optimum"``)."""
    from verify.claims.base import Observation

    claim = registry()[claim_id]
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    rows = []
    for r in cfg.ranks:
        own = pred.get("trained_on", pred)
        v = [float(x) for x in own[f"r={r}"]["v_star"]]
        M = np.diag(v) if at == "optimum" else np.zeros((len(v), len(v)))
        loss = float(own[f"r={r}"]["L_r"]) if at == "optimum" else 10.0
        for s in range(seeds):
            row = {"rank": r, "seed": s, "M_eigen": M.tolist(), "loss": loss}
            if "trained_on" in pred:
                row.update(M_eigen_trained_on=M.tolist(), loss_trained_on=loss)
            rows.append(row)
    return claim, pred, Observation([row["loss"] for row in rows], details={"per_run": rows}), cfg


def test_wrong_lambda_control_fails_an_untrained_network():
    """Issue 28: the control must also show that the run learned (the optimum of the Lambda it was trained on); an
    all-zero network (relative error 1) fails it, and so does a network at the target's optimum (not different)."""
    claim, pred, obs, cfg = _lsa_obs(
        "shi-thm5.4.1-training-attention-wrong-lambda",
        "zero",
        len(registry()["shi-thm5.4.1-training-attention-wrong-lambda"].configs["quick"].seeds),
    )
    verdict, reason = claim.judge(pred, obs, cfg)
    assert verdict == "fail" and "trained-on" in reason, reason
    claim, pred, obs, cfg = _lsa_obs("shi-thm5.4.1-training-attention-wrong-lambda", "optimum", 5)
    verdict, reason = claim.judge(pred, obs, cfg)
    assert verdict == "fail" and "target's U*" in reason, reason


def test_reaches_optimum_judge_population_and_prediction():
    """At the optimum every seed succeeds (5 seeds pass, 2 cannot decide at p0 = 0.5); a zero network fails; the
    prediction moved by the judge's perturbation is rejected on the same observation."""
    cid = "shi-thm5.4.1-training-attention"
    claim, pred, obs, cfg = _lsa_obs(cid, "optimum", 5)
    assert claim.judge(pred, obs, cfg)[0] == "pass"
    assert claim.judge.population(pred, obs, cfg)["successes"] == 5
    assert claim.judge(claim.judge.perturb(pred, obs), obs, cfg)[0] == "fail"
    assert claim.judge(pred, _lsa_obs(cid, "optimum", 2)[2], cfg)[0] == "inconclusive"
    assert claim.judge(pred, _lsa_obs(cid, "zero", 5)[2], cfg)[0] == "fail"
