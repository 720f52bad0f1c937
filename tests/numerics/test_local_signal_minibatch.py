"""Lemma B.4's two sides (numerics/local_signal_minibatch.py; docs/local_signal.md): the population gradient by
lattice convolution and quadrature against direct Monte Carlo on full d-dimensional samples, its lattice step, its
exact cases, and the per-sample gradients against the App. B.2 formula and finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from numerics import local_signal as nl
from numerics import local_signal_minibatch as nmb
from theory import local_signal as tl
from theory._checks import InputError

STATES = [(4, 0.5, 0.2, 0.05), (4, 1.5, 0.3, -0.4), (6, 0.3, 0.6, -0.1), (3, -0.4, 0.5, 0.3)]


@pytest.mark.parametrize(("k", "c", "v", "b"), STATES)
def test_population_gradient_matches_monte_carlo(k: int, c: float, v: float, b: float) -> None:
    sigma = tl.noise_sigma(k)
    pg = nmb.population_gradient(k, sigma, c, v, b)
    d = 3
    X, y = nl.sample_inputs(np.random.default_rng(k + 17), 200_000, k, d, sigma, np.eye(d)[0])
    gw, gb = nmb.sample_gradients(X, y, np.array([c, v, 0.0]), b)
    mean = np.r_[gw.mean(0), gb.mean()]
    se = np.r_[gw.std(0), gb.std()] / math.sqrt(y.size)
    assert np.all(np.abs(mean - [pg.star, pg.perp, 0.0, pg.bias]) < 4.5 * se)


@pytest.mark.parametrize(("k", "c", "v", "b"), STATES[:2])
def test_halving_the_lattice_step_changes_little(k: int, c: float, v: float, b: float) -> None:
    sigma = tl.noise_sigma(k)
    h = min(1.0, sigma * math.hypot(c, v) + abs(b)) / 400
    fine = nmb.population_gradient(k, sigma, c, v, b, h=h / 2)
    coarse = nmb.population_gradient(k, sigma, c, v, b, h=h)
    for field in ("star", "perp", "bias", "loss_weight"):
        assert getattr(fine, field) == pytest.approx(getattr(coarse, field), abs=1e-6)


def test_linear_regime_and_symmetry() -> None:
    """b > 0 with tiny w: every row is linear (phi_b(z) = 2z), sigma(-y f) -> 1/2 and grad_w . w_* -> -1; at c = 0
    the output is symmetric, so E sigma(-y f) = 1/2."""
    g = nmb.population_gradient(3, 0.5, 1e-5, 1e-5, 1.0)
    assert g.star == pytest.approx(-1.0, abs=1e-4)
    assert g.loss_weight == pytest.approx(0.5, abs=1e-4)
    assert g.bias == 0.0
    assert nmb.population_gradient(4, 0.7, 0.0, 1.0, 0.2).loss_weight == pytest.approx(0.5, abs=1e-12)


def test_sample_gradients_match_the_formula_and_finite_differences() -> None:
    rng = np.random.default_rng(5)
    X, y = nl.sample_inputs(rng, 6, 4, 3, 0.7)
    w, b = np.array([0.8, -0.3, 0.5]), -0.2
    gw, gb = nmb.sample_gradients(X, y, w, b)
    for i in range(6):
        f = float(nl.cnn_output(X[i : i + 1], w, b)[0])
        dl = -y[i] * special.expit(-y[i] * f)
        rows = tuple(tuple(float(x) for x in r) for r in X[i])
        assert np.allclose(gw[i], dl * np.array(tl.cnn_gradient(rows, tuple(w), b)))
        eps = 1e-6
        fb = (nl.cnn_output(X[i : i + 1], w, b + eps)[0] - nl.cnn_output(X[i : i + 1], w, b - eps)[0]) / (2 * eps)
        assert gb[i] == pytest.approx(dl * fb, abs=1e-6)


def test_deviations_shrink_as_one_over_root_n() -> None:
    k, sigma, c, v, b = 4, tl.noise_sigma(4), 1.5, 0.3, -0.4
    pg = nmb.population_gradient(k, sigma, c, v, b)
    small = nmb.minibatch_deviations(k, 2, sigma, c, v, b, 400, 60, 1, pg)
    large = nmb.minibatch_deviations(k, 2, sigma, c, v, b, 6400, 60, 2, pg)
    ratio = math.sqrt(np.mean(small["dev_b"] ** 2) / np.mean(large["dev_b"] ** 2))
    assert 2.5 < ratio < 6.4  # sqrt(16) = 4


def test_input_checks() -> None:
    with pytest.raises(InputError):
        nmb.population_gradient(4, 0.7, 0.0, 0.0, 0.1)
    with pytest.raises(InputError):
        nmb.population_gradient(4, 0.7, 0.5, -0.1, 0.1)
    with pytest.raises(InputError):
        nmb.population_gradient(4, 0.7, 0.5, 0.1, 0.1, h=0.0)
    with pytest.raises(InputError):
        nmb.sample_gradients(np.zeros((2, 3, 2)), np.ones(3), np.zeros(2), 0.0)
    pg = nmb.population_gradient(4, 0.7, 0.5, 0.1, 0.1)
    with pytest.raises(InputError):
        nmb.minibatch_deviations(4, 1, 0.7, 0.5, 0.1, 0.1, 10, 1, 0, pg)
