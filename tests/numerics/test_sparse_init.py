"""numerics/sparse_init.py helpers against their definitions (Edelman App. C.2): the best readout correlation on the
cube, the law of the random init, and the weight-decayed hinge minimiser against its closed form in one dimension."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import sparse_init as nsi
from numerics.walsh import characters, cube


def test_best_correlation_projects_on_the_span_with_the_constant():
    """The cosine between chi and its projection on span{1, features}: with the single feature 1 + chi the span holds
    chi itself (cosine 1, every sign right), while span{1 + chi} alone would give only 1/sqrt(2); a feature orthogonal
    to chi and to 1 gives 0."""
    chi = characters(3, [0, 1, 2]).astype(np.float64)
    corr, acc = nsi._best_correlation((1 + chi)[:, None], chi)
    assert abs(corr - 1) <= 1e-12 and acc == 1.0
    corr, _ = nsi._best_correlation(cube(3)[:, :1].astype(np.float64), chi)
    assert corr == 0.0


def test_draw_init_is_uniform_over_biases_supports_and_signs():
    """_draw_init's law (its docstring; App. C.2): bias indices uniform on range(n_biases), supports uniform s-subsets
    of range(n), output weights uniform on {-1, +1}. With 6000 neurons every frequency lies within 6 standard
    deviations of its mean (a seed fails with probability below 1e-7)."""
    n, s, half, n_biases = 5, 2, 6000, 3
    supports, bias_index, u, counts = nsi._draw_init(np.random.default_rng(3), n, s, half, n_biases, 64)
    assert supports.shape == (half, s) and np.all(np.sort(supports, 1)[:, 1:] != np.sort(supports, 1)[:, :-1])
    assert counts.shape == (2**n,) and counts.sum() == 64
    for values, p in [(bias_index, 1 / n_biases), (supports.ravel(), 1 / n)]:
        freq = np.bincount(values, minlength=round(1 / p)) / len(values)
        assert len(freq) == round(1 / p) and np.all(np.abs(freq - p) <= 6 * np.sqrt(p * (1 - p) / half)), freq
    assert abs(np.mean(u == 1.0) - 0.5) <= 6 * np.sqrt(0.25 / half) and set(np.unique(u)) == {-1.0, 1.0}


@pytest.mark.parametrize("c,lam", [(1.0, 8.0), (2.0, 8.0), (2.0, 1.0), (0.25, 0.5)])
def test_hinge_ridge_minimiser_one_dimensional_closed_form(c, lam):
    """features (c, -c), labels (1, -1), weights 1/2: P(w) = max(0, 1 - c w) + lam w^2 / 2, minimised at
    w = min(c / lam, 1 / c) (the stationary point c = lam w, or the kink c w = 1), for features of any scale c."""
    out = nsi.hinge_ridge_minimiser(np.array([[c], [-c]]), np.array([1.0, -1.0]), np.array([0.5, 0.5]), lam)
    w = min(c / lam, 1 / c)
    assert abs(out["w"][0] - w) <= 1e-6 * w
    assert abs(out["primal"] - (max(0.0, 1 - c * w) + lam * w * w / 2)) <= 1e-8
