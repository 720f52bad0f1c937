"""verify/lsa.py (torch LSA, training, comparison) and the Shi Ch. 5 claims at quick scale."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import verify.claims.shi_ch5 as ch5  # noqa: F401  (registers the claims)
from numerics import lsa as nl
from verify import lsa as vl
from verify.claims.base import RunContext, registry, run_claim

QUICK = RunContext(scale="quick", progress=False, device="cpu")
LAM = np.diag([4.0, 3.0, 2.0, 1.0])
REFUTED = {"shi-thm5.5.1-optimality", "shi-thm5.5.1-g1-optimality"}


def _claims() -> dict:
    return {
        cid: c
        for cid, c in registry().items()
        if c.observe.__module__ == ch5.__name__ or getattr(c.observe, "__module__", "") == ch5.__name__
    }


def test_ids_and_refutations():
    ids = set(_claims())
    assert {
        "shi-thm5.4.1-closed-form",
        "shi-lem5.1-mc",
        "shi-thm5.4.2-mc",
        "shi-thm5.5.1-optimality",
        "shi-thm5.4.1-training-population",
        "shi-thm5.5.2-projection-ratio",
    } <= ids
    for cid in REFUTED:
        c = registry()[cid]
        assert c.refutes and c.corrected_by in registry()


@pytest.fixture(scope="module")
def quick_records():
    return {cid: run_claim(c, QUICK) for cid, c in _claims().items() if "quick" in c.configs}


def test_quick_verdicts(quick_records):
    for cid, rec in quick_records.items():
        expected = "refuted" if cid in REFUTED else "pass"
        assert rec.verdict == expected, (cid, rec.verdict, rec.reason)
        json.dumps(rec.to_json())


def test_refuted_records_carry_counterexamples(quick_records):
    for cid in REFUTED:
        assert quick_records[cid].counterexample


def test_figure_artifacts(quick_records):
    spec = quick_records["shi-thm5.4.1-training-population"].artifacts["lsa_spectrum"]
    assert spec["rank"] == [1, 2, 3, 4] and len(spec["learned"]) == 4 and len(spec["optimal"][0]) == 4
    curve = quick_records["shi-thm5.4.2-mc"].artifacts["lsa_noise_curve"]
    assert len(curve["loss_by_rank"]["4"]) == len(curve["sigma"])


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
    res = vl.train_population(LAM, 20, 2, seeds=(3,), steps=300, polish_steps=100)
    cmp = vl.compare_to_optimum(res.M_eff, LAM, 20, 2)
    assert cmp.rel_err.max() < 1e-2 and abs(cmp.loss_gap).max() < 1e-6


def test_sgd_runs_and_reports():
    res = vl.train_sgd(LAM, 10, 1, seeds=(0, 1), model="full", steps=5, batch=16)
    assert res.M_eff.shape == (2, 4, 4) and len(res.details["w21_PV_norm"]) == 2
    res = vl.train_sgd(LAM, 10, 1, seeds=(0,), model="reduced", steps=5, batch=16)
    assert np.isfinite(res.M_eff).all()


def test_divergence_is_reported():
    with pytest.raises(vl.LSATrainingDiverged):
        vl.train_sgd(LAM * 1e150, 10, 1, seeds=(0,), model="reduced", steps=3, batch=8, lr=1e10)


def test_bad_input():
    with pytest.raises(ValueError, match="rank"):
        vl.train_population(LAM, 20, 5)
    with pytest.raises(ValueError, match="N"):
        vl.train_population(LAM, 0, 1)
    with pytest.raises(ValueError, match="symmetric"):
        vl.train_population(np.array([[1.0, 2.0], [0.0, 1.0]]), 5, 1)
    with pytest.raises(ValueError, match="shape"):
        vl.compare_to_optimum(np.zeros((1, 3, 3)), LAM, 20, 1)
    with pytest.raises(ValueError, match="seeds"):
        vl.train_population(LAM, 20, 1, seeds=(0, 0))
    with pytest.raises(ValueError, match="shape mismatch"):
        vl.lsa_predict(torch.zeros(1, 2, 5, 6), torch.zeros(1, 4, 4), torch.zeros(1, 4, 4), 5)


@pytest.mark.slow
def test_sgd_training_claim_full():
    """Recipe (b) at full scale (4 ranks x 3000 Adam steps x 2 seeds x batch 1024: a few minutes of CPU)."""
    rec = run_claim(registry()["shi-thm5.4.1-training-sgd"], RunContext(scale="full", progress=False, device="cpu"))
    assert rec.verdict == "pass", rec.reason
    json.dumps(rec.to_json())
