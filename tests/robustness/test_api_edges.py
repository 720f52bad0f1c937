"""Edge values of the public API found by a QA pass (2026-11-30): each gave a wrong number, a NaN, a hang or an
error from deep inside numpy/mpmath where the docstring promises a value or an InputError naming the parameter."""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest

from numerics import limits, markov, polynet, sparse_init, walsh
from theory import local_signal as tls
from theory import polynet as tpn
from theory._checks import InputError

from .api_table.numerics_sparse_init import BASELINE as SPARSE_INIT


@pytest.mark.parametrize("v", [10**6, 10**30, 10**300])
def test_equal_init_error_float_far_in_the_tail_equals_the_exact_value(v):
    """An int64 overflow in the block probabilities gave 0.5 at v = 1e30 where the exact error is 0."""
    assert polynet.equal_init_error_float(np.array([float(v)]), 3, 5)[0] == float(tpn.equal_init_error(v, 3, 5))


@pytest.mark.parametrize("v", [0.0, -1.0])
def test_equal_init_error_float_refuses_v_that_the_exact_twin_refuses(v):
    with pytest.raises(InputError) as exact:
        tpn.equal_init_error(Fraction(v), 3, 5)
    with pytest.raises(InputError) as floating:
        polynet.equal_init_error_float(np.array([1.0, v]), 3, 5)
    assert exact.value.param == floating.value.param == "v"


@pytest.mark.parametrize("tol", [0.0, -1.0, float("-inf"), float("nan"), 1e-20, 1.0])
def test_flow_error_crossings_refuses_a_tolerance_its_bisection_cannot_reach(tol):
    """tol <= 0 (or below float64's precision) made the bisection loop for ever; NaN skipped it silently."""
    with pytest.raises(InputError) as err:
        polynet.flow_error_crossings(np.ones((3, 5)), [0.49, 0.0], tol=tol)
    assert err.value.param == "tol"


def test_numpy_integers_are_numbers_like_ints():
    """numpy.int64 reached Fraction and mpmath unconverted (AttributeError: bit_length; cannot create mpf)."""
    assert limits.check_rational(np.int64(3), "b") == Fraction(3) and limits.check_rational(np.float32(0.5), "b")
    assert walsh.population_gradient_exact([1, 1, 1, 1, 1], np.int64(3), [0, 1]) == walsh.population_gradient_exact(
        [1, 1, 1, 1, 1], 3, [0, 1]
    )
    assert tls.mills_ratio(np.int64(3)) == tls.mills_ratio(3)
    assert tls.soft_threshold_moments(np.int64(3), 1.0) == tls.soft_threshold_moments(3, 1.0)
    assert tls.truncated_moments(np.int64(3), 1.0) == tls.truncated_moments(3, 1.0)


def test_mc_strategy_kl_needs_two_chains_for_its_standard_error():
    """n = 1 returned a NaN standard error."""
    with pytest.raises(InputError) as err:
        markov.mc_strategy_kl(2, 8, "bigram", 1, np.random.default_rng(0))
    assert err.value.param == "n"
    mean, se = markov.mc_strategy_kl(2, 8, "bigram", 2, np.random.default_rng(0))
    assert np.isfinite(mean) and np.isfinite(se)


def test_thm_c11_at_s_equal_k_has_no_weights_off_s_and_says_none():
    """s = k is allowed (k <= s < n): supp w \\ S is empty, and its mean weight was a NaN."""
    kw = {**SPARSE_INIT["thm_c11_end_to_end"]}
    kw["s"] = kw["k"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = sparse_init.thm_c11_end_to_end(**kw)
    assert out["w_rest"] is None and all(not (isinstance(x, float) and np.isnan(x)) for x in out.values())


def test_walsh_coefficients_exact_refuses_floats():
    """A float gave AttributeError: 'Float' object has no attribute 'p'."""
    with pytest.raises(InputError) as err:
        walsh.walsh_coefficients_exact([0.5, 1, 1, 1])
    assert err.value.param == "values"
    assert walsh.walsh_coefficients_exact([1, 1, 1, -1]) == [Fraction(1, 2)] * 3 + [Fraction(-1, 2)]


def test_error_floor_tends_to_one_half_as_the_noise_grows():
    """For sigma above about 1e16, Phi(-1/sigma) rounds to 1/2 and log1p(-q) raised a math domain error; the floor
    is non-decreasing in sigma and reaches 1/2 (every patch's sign is a coin flip)."""
    sigmas = [10.0**e for e in range(0, 31)] + [10**30]
    floors = [tls.error_floor(1000, sigma=s) for s in sigmas]
    assert all(a <= b for a, b in itertools.pairwise(floors)) and floors[-1] == 0.5
