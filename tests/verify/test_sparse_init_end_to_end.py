"""The Thm 6.4 / C.11 end-to-end claim (verify/claims/sparse_init_end_to_end.py) and its numerics: the exact solve of
the convex phase against cvxpy, the first step against Lemma C.3, and that the judge can pass and fail. The verdict
itself is run by tests/verify/test_claims.py (slow: 46 seeds)."""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest

from numerics import sparse_init as nsi
from numerics.certificates import CertificateError
from theory import sparse_init as tsi
from verify.claims import Observation, registry

CLAIM = "edelman-ch6-thm6.4-end-to-end"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hinge_ridge_minimiser_matches_cvxpy(seed):
    rng = np.random.default_rng(seed)
    N, d, lam = 300, 12, [1e-1, 1e-3, 1e-5][seed]
    Phi = np.column_stack([np.ones(N), rng.normal(size=(N, d - 1))])
    y = np.sign(Phi[:, 1] * Phi[:, 2] + 0.3 * rng.normal(size=N))
    p = rng.multinomial(10**6, np.full(N, 1 / N)) / 10**6
    out = nsi.hinge_ridge_minimiser(Phi, y, p, lam)
    w = cp.Variable(d)
    prob = cp.Problem(cp.Minimize(p @ cp.pos(1 - cp.multiply(y, Phi @ w)) + lam / 2 * cp.sum_squares(w)))
    prob.solve(solver="CLARABEL")
    assert out["dual"] <= prob.value + 1e-7 and out["primal"] >= prob.value - 1e-7  # weak duality around the optimum
    assert out["primal"] - out["dual"] <= 1e-9 * max(1.0, out["primal"])
    assert out["primal"] == pytest.approx(prob.value, rel=1e-6)


def test_hinge_ridge_minimiser_refuses_an_unreachable_gap():
    Phi, y, p = np.array([[1.0], [-1.0]]), np.array([1.0, 1.0]), np.array([0.5, 0.5])
    with pytest.raises(CertificateError, match="duality gap"):
        nsi.hinge_ridge_minimiser(Phi, y, p, 0.5, tol=1e-30, max_iter=3)


def test_first_step_is_lemma_c3_and_bad_neurons_stay_off():
    """With the proof's (population-size) m the good neurons' post-step weights are eta C = 1/(2k) on S, eta |c| on
    supp w \\ S and 0 elsewhere (Lemma C.3), and no bad neuron is active anywhere (proof of Lemma C.6)."""
    n, k, s = 10, 2, 9
    st = tsi.thm_c11_setting(n, k, s, "1/4", "1/10")
    biases = [float(b) for b in st["biases"]]
    out = nsi.thm_c11_end_to_end(n, k, s, biases, float(st["eta"]), float(st["lam"]), st["width"], st["m"], 3)
    assert out["w_S"] == pytest.approx(float(st["eta"] * abs(st["C"])), rel=1e-6)
    assert out["w_rest"] == pytest.approx(float(st["eta"] * abs(st["c"])), rel=1e-6)
    assert out["w_off"] < 1e-6 and out["bad_active"] == 0
    assert out["features"] <= 2 * math.comb(n - k, s - k) + 1  # one feature per good support and sign, and the 1
    assert out["duality_gap"] <= 1e-9 and abs(out["risk_S"] - out["risk_D"]) < 1e-6
    small = nsi.thm_c11_end_to_end(n, k, s, biases, float(st["eta"]), float(st["lam"]), st["width"], 50, 3)
    assert small["bad_active"] > 0  # a sample of 50 leaves bad neurons on: the proof's m matters


def _obs(values: list[float]) -> Observation:
    return Observation(values, details={"per_seed": [{"risk_D": v, "seed": i} for i, v in enumerate(values)]})


def test_judge_passes_below_eps_and_fails_above():
    claim = registry()[CLAIM]
    cfg = claim.configs["quick"]
    predicted = claim.predict(cfg)
    assert predicted["bound"] == tsi.thm_c11_setting(cfg.n, cfg.k, cfg.s, cfg.eps, cfg.delta)["bound"]
    n = len(cfg.seeds)
    assert claim.judge(predicted, _obs([0.2] * n), cfg)[0] == "pass"
    assert claim.judge(predicted, _obs([0.2] * (n - 1) + [0.3]), cfg)[0] == "pass"  # one failure allowed at 46
    assert claim.judge(predicted, _obs([0.26] * n), cfg)[0] == "fail"
    assert claim.judge({**predicted, "bound": 0.1}, _obs([0.2] * n), cfg)[0] == "fail"


def test_claim_is_exploratory_with_declared_power():
    claim = registry()[CLAIM]
    assert claim.expected_verdict("quick") is None and claim.expected_verdict("full") is None
    for scale, cfg in claim.configs.items():
        assert claim.judge.rule.power(len(cfg.seeds)) >= 0.8, scale
        assert len(claim.deviations[scale]) == 3


def test_spd_inverse_falls_back_to_the_clipped_eigendecomposition():
    """A matrix I + PSD whose computed form lost definiteness is inverted with its eigenvalues raised to 1."""
    from numerics.sparse_init import _spd_inverse

    M = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues -1 and 3: Cholesky fails
    x = np.array([1.0, 0.0])
    vals, vecs = np.linalg.eigh(M)
    expected = vecs @ ((vecs.T @ x) / np.maximum(vals, 1.0))
    assert np.allclose(_spd_inverse(M)(x), expected)
    good = np.array([[2.0, 0.5], [0.5, 1.5]])
    assert np.allclose(_spd_inverse(good)(x), np.linalg.solve(good, x))
