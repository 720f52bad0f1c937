"""numerics/looped.py: the float64 GD reference against the exact theory, sampler, kappa MC, smoothness."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import looped as nl
from theory import looped as tl


def test_sampler_unit_theta_and_realisable_labels():
    pr = nl.sample_prompts(np.random.default_rng(0), 7, 9, 4)
    assert pr.X.shape == (7, 9, 4) and pr.y.shape == (7, 9)
    np.testing.assert_allclose(np.linalg.norm(pr.theta_star, axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(pr.y, np.einsum("bnd,bd->bn", pr.X, pr.theta_star), rtol=1e-14)


def test_gd_matches_exact_theory_any_steps():
    rng = np.random.default_rng(1)
    pr = nl.sample_prompts(rng, 3, 6, 3)
    L = nl.gram_extremes(pr.X)[0]
    etas = rng.uniform(0.1, 1.9, (3, 8)) / L[:, None]
    theta0 = rng.standard_normal((3, 3))
    traj = nl.gd_trajectory(pr.X, pr.y, etas, theta0)
    for b in range(3):
        exact = tl.gd_iterates(pr.X[b], pr.y[b], etas[b].tolist(), theta0[b])
        np.testing.assert_allclose(traj[b], np.array([[float(v) for v in th] for th in exact]), rtol=1e-11, atol=1e-13)


def test_gd_converges_to_least_squares_solution():
    pr = nl.sample_prompts(np.random.default_rng(2), 4, 32, 4)
    traj = nl.gd_constant_step(pr.X, pr.y, 400)
    np.testing.assert_allclose(traj[:, -1], pr.theta_star, atol=1e-10)


def test_gram_extremes_against_exact_spectrum():
    X = np.random.default_rng(3).integers(-3, 4, (5, 3)).astype(float)
    L, mu, k = nl.gram_extremes(X)
    Le, me = tl.gram_spectrum(X)
    assert abs(L - float(Le)) <= 1e-12 * float(Le) and abs(mu - float(me)) <= 1e-10 * float(Le)
    assert abs(k - float(Le / me)) <= 1e-9 * float(Le / me)


def test_smoothness_and_strong_convexity_hold():
    pr = nl.sample_prompts(np.random.default_rng(4), 5, 10, 3)
    v = nl.smoothness_violations(pr.X, pr.y, np.random.default_rng(5))
    assert v["smoothness"] <= 1e-12 and v["strong_convexity"] <= 1e-12


def test_kappa_moments_se_and_monotone_in_n():
    m16 = nl.kappa_moments(np.random.default_rng(6), 16, 4, 3000)
    m64 = nl.kappa_moments(np.random.default_rng(7), 64, 4, 3000)
    assert m16.mean > m64.mean > 1
    assert np.isclose(m16.se, m16.sd / np.sqrt(3000)) and np.isclose(m16.sd_trial_mean, m16.sd / np.sqrt(10))


def test_fig_8_1_errors_below_theory_line():
    e = nl.fig_8_1_errors(np.random.default_rng(8), 16, 4, 50, 10)
    t = np.arange(51)
    assert np.all(np.log(e.ratio) <= -t[None] / e.kappa[:, None] + 1e-12)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: nl.sample_prompts(np.random.default_rng(0), 2, 3, 3), "n > d"),
        (lambda: nl.gd_trajectory(np.ones((2, 4, 2)), np.ones((2, 3)), np.ones(3)), r"X must be \(B, n, d\)"),
        (lambda: nl.gd_trajectory(np.ones((2, 4, 2)), np.ones((2, 4)), np.ones((3, 5))), "etas must be"),
        (lambda: nl.gd_trajectory(np.ones((1, 4, 2)), np.ones((1, 4)), np.array([0.1, -0.1])), "> 0"),
        (lambda: nl.gram_extremes(np.ones((4, 2))), "singular"),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- hostile input (issue 32): sizes refused before any work, no NaN answers


def test_monte_carlo_draws_are_capped_by_their_cost():
    # Before the fix, draws = 10**12 ran forever (or died in a MemoryError).
    from theory._checks import LimitError

    for draws in (10**12, 10**8 + 1):
        with pytest.raises(LimitError, match="draws = ") as info:
            nl.kappa_moments(np.random.default_rng(0), 16, 4, draws)
        assert info.value.param == "draws"
    with pytest.raises(LimitError, match="Monte-Carlo work") as info:  # 40000 draws of 100 x 50 eigenproblems
        nl.kappa_moments(np.random.default_rng(0), 100, 50, 40_000)
    assert info.value.param == "draws"


@pytest.mark.parametrize("kwargs,param", [({"chunk": 0}, "chunk"), ({"trials": 0}, "trials")])
def test_kappa_moments_refuses_a_zero_chunk_or_trial_count(kwargs, param):
    # chunk = 0 looped forever; trials = 0 returned sd_trial_mean = inf
    from theory._checks import InputError

    with pytest.raises(InputError) as info:
        nl.kappa_moments(np.random.default_rng(0), 16, 4, 20, **kwargs)
    assert info.value.param == param


@pytest.mark.parametrize("etas", [[float("nan")], [float("inf")], [1e308, 1e308]])
def test_gd_refuses_non_finite_steps_and_divergence(etas):
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match=r"finite|overflow"):
        nl.gd_trajectory(X, X @ np.array([1.0, -1.0]), etas)


def test_gd_steps_and_prompt_sizes_are_checked_against_memory():
    from theory._checks import LimitError

    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    with pytest.raises(LimitError) as info:
        nl.gd_constant_step(X, X @ np.array([1.0, -1.0]), 10**12)
    assert info.value.param == "T"
    with pytest.raises(LimitError) as info:
        nl.sample_prompts(np.random.default_rng(0), 10**12, 5, 2)
    assert info.value.param == "batch"
