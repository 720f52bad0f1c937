"""Bad-input tests of ``numerics.lsa`` (Shi Ch. 5): a ValueError naming the parameter and its range, never a
TypeError/AttributeError/ZeroDivisionError from inside, a hang, or NaN/inf."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics import lsa as nl
from theory import lsa as tl

LAM = np.diag([4.0, 3.0, 2.0, 1.0])
EV = np.array([4.0, 3.0, 2.0, 1.0])


def _weights() -> tuple[np.ndarray, np.ndarray]:
    return nl.lsa_weights(nl.closed_form(LAM, 20, 1)[0], 1.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"r": 1.5}, r"r \(rank of A B\^T\) must be an integer in \[1, 4\]"),
        ({"r": 0}, r"r \(rank of A B\^T\) must be an integer in \[1, 4\]"),
        ({"r": 5}, r"r \(rank of A B\^T\) must be an integer in \[1, 4\]"),
        ({"r": 1, "n_starts": 0}, r"n_starts .* must be an integer >= 1"),
        ({"r": 1, "n_starts": 2.5}, r"n_starts .* must be an integer >= 1"),
    ],
)
def test_lbfgs_rank_r_refuses_bad_rank_and_starts(kwargs, match):
    with pytest.raises(ValueError, match=match):
        nl.lbfgs_rank_r(LAM, 20, **kwargs)


@pytest.mark.parametrize(("n_prompts", "chunk"), [(0, 10), (-3, 10), (2.5, 10), (10, 0)])
def test_monte_carlo_refuses_empty_samples_and_chunks(n_prompts, chunk):
    name = "n_prompts" if chunk else "chunk"
    WPV, WKQ = _weights()
    with pytest.raises(ValueError, match=rf"{name} .* must be an integer >= 1"):
        nl.mc_pretrain_loss(WPV, WKQ, LAM, 20, n_prompts, seed=0, chunk=chunk)
    with pytest.raises(ValueError, match=rf"{name} .* must be an integer >= 1"):
        nl.mc_eval_loss(WPV, WKQ, LAM, 16, np.ones(4), 1.0, n_prompts, seed=0, chunk=chunk)


@pytest.mark.parametrize("sigma", [-1.0, float("nan"), float("inf"), "x"])
def test_noise_std_must_be_finite_and_nonnegative(sigma):
    WPV, WKQ = _weights()
    with pytest.raises(ValueError, match=r"sigma must be a finite real number >= 0"):
        nl.mc_eval_loss(WPV, WKQ, LAM, 16, np.ones(4), sigma, 100, seed=0)
    with pytest.raises(ValueError, match=r"sigma must be a finite real number >= 0"):
        nl.thm542(EV, 20, 2, 16, sigma, np.ones(4))
    with pytest.raises(ValueError, match=r"sigma must be a finite real number >= 0"):
        nl.sample_prompts(np.random.default_rng(0), 2, LAM, 3, sigma=sigma)


def test_mc_eval_loss_refuses_wrong_task_shape():
    WPV, WKQ = _weights()
    with pytest.raises(ValueError, match=r"w must be a real vector of length 4, got shape \(3,\)"):
        nl.mc_eval_loss(WPV, WKQ, LAM, 16, np.ones(3), 1.0, 100, seed=0)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((EV, 20, 5, 16), r"r \(rank\) must be an integer in \[0, 4\]"),
        ((EV, 20, -1, 16), r"r \(rank\) must be an integer in \[0, 4\]"),
        ((EV, 20, 1.5, 16), r"r \(rank\) must be an integer in \[0, 4\]"),
        ((EV, 20, 2, 0), r"M must be an integer >= 1"),
        ((EV, 0, 2, 16), r"N must be an integer >= 1"),
        ((EV[::-1], 20, 2, 16), r"lam must be the eigenvalues of Lambda in descending order"),
        ((-EV[::-1], 20, 2, 16), r"lam must be the eigenvalues of Lambda in descending order"),
        ((EV[:3], 20, 2, 16), r"lam and c must be vectors of the same length"),
    ],
)
def test_thm542_refuses_out_of_range(args, match):
    with pytest.raises(ValueError, match=match):
        nl.thm542(*args, 0.0, np.ones(4))


def test_thm542_zero_covariance_is_finite_and_matches_theory():
    # Lambda = 0: T_i = 0, so v_i* = 0 (theory.lsa.noisy_eval_loss) and the loss is 0, not NaN
    exact = tl.noisy_eval_loss(sympy.zeros(3, 3), 20, 2, 3, 1, [1, 1, 1])
    assert exact == 0
    assert nl.thm542(np.zeros(3), 20, 2, 3, 1.0, np.ones(3)) == 0.0


@pytest.mark.parametrize("r", range(5))
def test_thm542_valid_ranks_still_match_theory(r):
    exact = tl.noisy_eval_loss(sympy.diag(4, 3, 2, 1), 20, r, 16, sympy.Rational(1, 2), [1, 2, 0, -1])
    got = nl.thm542(EV, 20, r, 16, 0.5, np.array([1.0, 2.0, 0.0, -1.0]))
    assert abs(got - float(exact)) <= 1e-12 * max(1.0, abs(float(exact)))


@pytest.mark.parametrize("bad", ["abc", None, 2.5, 0, True, float("nan")])
def test_check_count_names_the_parameter(bad):
    with pytest.raises(ValueError, match=r"M must be an integer >= 1"):
        nl.check_count(bad, "M")


# --- issue 32: sizes refused from their cost before any work; no NaN/inf from bad input


def test_monte_carlo_prompt_counts_are_capped_by_their_cost():
    # Before the fix, n_prompts = 10**12 ran forever, and N = 10**9 died in numpy's MemoryError.
    from theory._checks import LimitError

    WPV, WKQ = _weights()
    for n_prompts in (10**12, nl.MAX_MC_SAMPLES + 1):
        with pytest.raises(LimitError, match="n_prompts = ") as info:
            nl.mc_pretrain_loss(WPV, WKQ, LAM, 20, n_prompts, seed=0)
        assert info.value.param == "n_prompts"
        with pytest.raises(LimitError, match="n_prompts = ") as info:
            nl.mc_eval_loss(WPV, WKQ, LAM, 16, np.ones(4), 1.0, n_prompts, seed=0)
        assert info.value.param == "n_prompts"
    with pytest.raises(LimitError, match="N = ") as info:
        nl.mc_pretrain_loss(WPV, WKQ, LAM, 10**9, 200, seed=0)
    assert info.value.param == "N"
    with pytest.raises(LimitError, match="M = ") as info:
        nl.mc_eval_loss(WPV, WKQ, LAM, 10**9, np.ones(4), 1.0, 200, seed=0)
    assert info.value.param == "M"


def test_search_and_matrix_sizes_are_capped():
    from theory._checks import LimitError

    with pytest.raises(LimitError) as info:
        nl.lbfgs_rank_r(LAM, 20, 1, n_starts=10**9)
    assert info.value.param == "n_starts"
    with pytest.raises(LimitError) as info:
        nl.random_orthogonal(10**9, np.random.default_rng(0))
    assert info.value.param == "d"
    with pytest.raises(LimitError) as info:
        nl.gamma(LAM, 10**400)
    assert info.value.param == "N"


@pytest.mark.parametrize("rho", [0, -1.0, float("nan"), float("inf"), 10**400])
def test_normalisation_must_be_positive_and_finite(rho):
    # rho = 0 divided by zero (inf predictions); nan returned NaN
    WPV, WKQ = _weights()
    E, _ = nl.sample_prompts(np.random.default_rng(0), 2, LAM, 3)
    for f in (nl.lsa_forward, nl.expanded_prediction):
        with pytest.raises(ValueError, match="rho") as info:
            f(E, WPV, WKQ, rho)
        assert info.value.param == "rho"


@pytest.mark.parametrize("u", [float("nan"), float("inf"), 1e308, 10**400])
def test_ell_tilde_refuses_non_finite_scales(u):
    with pytest.raises(ValueError, match=r"\bu\b|overflow"):
        nl.ell_tilde(np.eye(4), u, LAM, 20)
