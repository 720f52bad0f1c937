"""numerics/lsa.py: the Eq. 5.1 forward, float closed forms against theory/, Monte Carlo with stated SEs
(Shi Ch. 5: Eq. 5.1-5.2, Lemma 5.1, Theorems 5.4.1-5.4.2)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics import lsa as nl
from theory import lsa as tl

LAM = np.diag([4.0, 3.0, 2.0, 1.0])


def _rotated(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    R = nl.random_orthogonal(4, np.random.default_rng(seed))
    return R @ LAM @ R.T, R


def test_random_orthogonal_has_the_haar_moments():
    """Haar measure on O(3) is invariant under Q -> -Q and under sign flips of columns, so E[Q_ij] = 0, and its
    columns are uniform on the sphere, so E[Q_ij^2] = 1/3 (Q_ij^2 ~ Beta(1/2, 1)). Over 4000 draws the sample means
    lie within 0.06 and 0.03 of these (more than 6 standard errors: 0.0091 and 0.0047)."""
    rng = np.random.default_rng(11)
    Q = np.array([nl.random_orthogonal(3, rng) for _ in range(4000)])
    np.testing.assert_allclose(np.einsum("nij,nkj->nik", Q, Q), np.broadcast_to(np.eye(3), Q.shape), atol=1e-12)
    assert np.abs(Q.mean(0)).max() <= 0.06
    assert np.abs((Q**2).mean(0) - 1 / 3).max() <= 0.03


def test_forward_matches_full_product_and_expansion():
    rng = np.random.default_rng(1)
    L, _ = _rotated()
    E, _ = nl.sample_prompts(rng, 16, L, 12)
    WPV, WKQ = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
    full = (E + WPV @ E @ (E.transpose(0, 2, 1) @ WKQ @ E) / 12)[:, -1, -1]
    np.testing.assert_allclose(nl.lsa_forward(E, WPV, WKQ, 12), full, rtol=1e-12, atol=1e-12 * np.abs(full).max())
    np.testing.assert_allclose(
        nl.expanded_prediction(E, WPV, WKQ, 12), full, rtol=1e-12, atol=1e-12 * np.abs(full).max()
    )


@pytest.mark.parametrize("r", range(5))
def test_closed_form_matches_theory_rotated(r):
    L, R = _rotated(2)
    U, v, Lr, _ev, _Q = nl.closed_form(L, 20, r)
    opt = tl.optimal_rank_r(sympy.diag(4, 3, 2, 1), 20, r)
    np.testing.assert_allclose(v, [float(x) for x in opt.v], rtol=1e-12)
    np.testing.assert_allclose(U, R @ np.array(opt.U.tolist(), dtype=float) @ R.T, atol=1e-12)
    assert abs(Lr - float(opt.loss)) < 1e-12
    assert abs(nl.ell_tilde(U, 1.0, L, 20) + np.trace(L) / 2 - Lr) < 1e-12


def test_thm542_float_matches_exact():
    _U, _v, _, ev, _Q = nl.closed_form(LAM, 20, 2)
    for sigma in (0, 1):
        exact = tl.noisy_eval_loss(sympy.diag(4, 3, 2, 1), 20, 2, 16, sigma, [1, 1, 1, 1])
        assert abs(nl.thm542(ev, 20, 2, 16, sigma, np.ones(4)) - float(exact)) < 1e-12


def test_lemma51_monte_carlo():
    L, _ = _rotated(3)
    rng = np.random.default_rng(4)
    U = 0.2 * rng.standard_normal((4, 4))
    WPV, WKQ = nl.lsa_weights(U, 0.7)
    WPV[:4, :] = rng.standard_normal((4, 5))  # dead blocks
    mean, se = nl.mc_pretrain_loss(WPV, WKQ, L, 20, 40_000, seed=5)
    exact = nl.ell_tilde(U, 0.7, L, 20) + np.trace(L) / 2
    assert abs(mean - exact) <= 4 * se, (mean, se, exact)


def test_thm542_monte_carlo():
    U, _, _, _ev, _ = nl.closed_form(LAM, 20, 1)
    WPV, WKQ = nl.lsa_weights(U, 1.0)
    mean, se = nl.mc_eval_loss(WPV, WKQ, LAM, 16, np.ones(4), 1.0, 40_000, seed=6)
    exact = float(tl.noisy_eval_loss(sympy.diag(4, 3, 2, 1), 20, 1, 16, 1, [1, 1, 1, 1]))
    assert abs(mean - exact) <= 4 * se, (mean, se, exact)


def test_lbfgs_finds_closed_form():
    L, _ = _rotated(7)
    res = nl.lbfgs_rank_r(L, 20, 2, n_starts=3, seed=0)
    U, _, Lr, _, _ = nl.closed_form(L, 20, 2)
    assert abs(res.loss + np.trace(L) / 2 - Lr) < 1e-9
    assert np.linalg.norm(res.U - U) / np.linalg.norm(U) < 1e-4


def test_sampler_shapes_and_noise():
    rng = np.random.default_rng(0)
    E, yq = nl.sample_prompts(rng, 3, LAM, 5, w=np.ones(4), sigma=0.0)
    assert E.shape == (3, 5, 6) and yq.shape == (3,)
    assert np.all(E[:, 4, -1] == 0)
    np.testing.assert_allclose(E[:, 4, :5], np.einsum("bdn,d->bn", E[:, :4, :5], np.ones(4)))


def test_bad_input():
    with pytest.raises(ValueError, match="symmetric"):
        nl.closed_form(np.array([[1.0, 2.0], [0.0, 1.0]]), 5, 1)
    with pytest.raises(ValueError, match="semi-definite"):
        nl.closed_form(np.diag([1.0, -1.0]), 5, 1)
    with pytest.raises(ValueError, match="rank"):
        nl.closed_form(LAM, 5, 5)
    with pytest.raises(ValueError, match="N"):
        nl.closed_form(LAM, 0, 1)
    with pytest.raises(ValueError, match="shape"):
        nl.ell_tilde(np.eye(3), 1.0, LAM, 5)
    with pytest.raises(ValueError, match="shapes"):
        nl.lsa_forward(np.zeros((2, 5, 6)), np.zeros((4, 4)), np.zeros((4, 4)), 5)


def test_theory_numeric_fallback_large_d():
    rng = np.random.default_rng(11)
    d = 7
    R = nl.random_orthogonal(d, rng)
    L = R @ np.diag(np.linspace(5.0, 0.5, d)) @ R.T
    L = (L + L.T) / 2
    for r in (0, 3, 7):
        U, _v, Lr, _, _ = nl.closed_form(L, 30, r)
        opt = tl.optimal_rank_r(L, 30, r)  # mpmath path (float entries, d > 4)
        assert abs(float(opt.loss) - Lr) < 1e-10
        np.testing.assert_allclose(np.array(opt.U.tolist(), dtype=float), U, atol=1e-10)
