"""Exact checks of theory/sparse_init.py (Lemmas C.13-C.15, Thm C.16; erratum in docs/boolean.md).

Oracle: pure-Python brute force over {±1}^n in exact Fractions of E[1{w.x > 0} x_i chi_S(x)] for small n.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import boolean as B
from theory import sparse_init as SI


def brute(n: int, k: int, S_prime, eps: Fraction, S=None, b: Fraction = Fraction(0)) -> list[Fraction]:
    S = set(range(k)) if S is None else set(S)
    Sp = set(S_prime)
    w = [Fraction(1) if j in Sp else eps for j in range(n)]
    out = [Fraction(0)] * n
    for x in itertools.product((1, -1), repeat=n):
        if sum(wi * xi for wi, xi in zip(w, x)) + b > 0:
            chi = 1
            for j in S:
                chi *= x[j]
            for i in range(n):
                out[i] += x[i] * chi
    return [v / 2**n for v in out]


@pytest.mark.parametrize("n,k,s", [(7, 4, 2), (9, 4, 0), (9, 6, 4), (11, 4, 2), (11, 6, 2)])
def test_good_neuron_matches_bruteforce(n, k, s):
    eps = SI.perturbation_epsilon(n, k, s)
    assert brute(n, k, range(s), eps) == SI.good_neuron_correlations(n, k, s)


@pytest.mark.parametrize("n,k,s", [(5, 4, 2), (7, 6, 2), (7, 4, 2), (9, 4, 0)])
def test_perturbation_epsilon_below_both_bounds_also_where_c_is_zero(n, k, s):
    """eps < 1/C(n-s, k) where that is finite and (n-s) eps < 1 (the proof of Lemma C.13); n - s < k (C = 0) is
    admitted by the under-sparse regime and answered, not refused (a size check once refused it)."""
    eps = SI.perturbation_epsilon(n, k, s)
    c = math.comb(n - s, k)
    assert (n - s) * eps < 1 and (c == 0 or c * eps < 1)


def test_bias_grid_does_not_change_gradient():
    n, k, s = 9, 4, 2
    eps = SI.perturbation_epsilon(n, k, s)
    grid = SI.bias_grid(k, eps)
    assert len(grid) == k and max(abs(b) for b in grid) < eps / 2
    base = brute(n, k, range(s), eps)
    for b in grid:
        assert brute(n, k, range(s), eps, b=b) == base


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_lemmas_c13_c14_any_support(data):
    """General S' (not necessarily inside S): Lemma C.13 (i in S) and C.14 (i not in S)."""
    n, k, s = data.draw(st.sampled_from([(7, 4, 2), (9, 4, 2), (9, 6, 4), (9, 4, 0)]))
    Sp = data.draw(st.lists(st.integers(0, n - 1), min_size=s, max_size=s, unique=True))
    S = data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True))
    eps = SI.perturbation_epsilon(n, k, s)
    got = brute(n, k, Sp, eps, S=S)
    assert got == [SI.neuron_correlation(n, k, s, S, Sp, i) for i in range(n)]


def test_reference_values():
    # (13,4,2): -0.0615234 (i in S\S'), +0.00683594 (i not in S), 0 (i in S')
    assert abs(float(SI.good_neuron_correlation(13, 4, 2, "S-S'")) + 0.0615234) < 5e-8
    assert abs(float(SI.good_neuron_correlation(13, 4, 2, "out")) - 0.00683594) < 5e-9
    assert SI.good_neuron_correlation(13, 4, 2, "S'") == 0
    # (51,4,2) and (51,6,4)
    assert abs(float(SI.good_neuron_correlation(51, 4, 2, "S-S'")) + 0.0286416) < 5e-8
    assert abs(float(SI.good_neuron_correlation(51, 6, 4, "out")) + 4.87517e-4) < 5e-10


@settings(max_examples=40, deadline=None)
@given(k2=st.integers(1, 6), s2=st.integers(0, 5), extra=st.integers(0, 40))
def test_ratio_corrected_vs_printed(k2, s2, extra):
    k, s = 2 * k2, 2 * s2
    if s >= k:
        return
    n = k + 1 + extra
    if (n - s) % 2 == 0:
        n += 1
    a = SI.good_neuron_correlation(n, k, s, "S-S'")
    b = SI.good_neuron_correlation(n, k, s, "out")
    assert abs(a / b) == SI.thm_c16_ratio(n, k, s) == Fraction(n - k, k - s - 1)
    assert abs(a / b) == abs(1 / B.majority_ratio(n - s, k - s - 1))
    assert SI.thm_c16_ratio_as_printed(n, k, s) - SI.thm_c16_ratio(n, k, s) == Fraction(k - s, k - s - 1)  # never equal


def test_validation():
    with pytest.raises(ValueError, match="n - s odd"):
        SI.check_under_sparse(14, 6, 2)
    with pytest.raises(ValueError, match="s < k"):
        SI.check_under_sparse(13, 4, 4)
    with pytest.raises(ValueError, match="k even"):
        SI.check_under_sparse(13, 3, 2)
    with pytest.raises(ValueError, match="s even"):
        SI.check_under_sparse(12, 4, 1)
    with pytest.raises(ValueError, match="case"):
        SI.good_neuron_correlation(13, 4, 2, "in")


# ------------------------------------------------------------------ issue 32: hostile input (regressions)
def test_sizes_and_numbers_are_refused_naming_the_parameter():
    from theory._checks import InputError, LimitError

    with pytest.raises(InputError) as info:
        SI.bias_grid(4, float("nan"))  # NaN used to reach Fraction (bare ValueError)
    assert info.value.param == "eps"
    with pytest.raises(LimitError) as info:
        SI.bias_grid(4, "1e999999999")  # used to hang
    assert info.value.param == "eps"
    with pytest.raises(LimitError) as info:
        SI.bias_grid(10**9, 1)  # used to build 10^9 Fractions
    assert info.value.param == "k"
    with pytest.raises(LimitError) as info:
        SI.perturbation_epsilon(10**6 + 1, 10**5, 0)  # used to return a value Python cannot print
    assert info.value.param == "n"
    with pytest.raises(LimitError) as info:
        SI.good_neuron_correlations(SI.MAX_CORRELATION_N + 1, 4, 0)
    assert info.value.param == "n"


def test_good_neuron_correlations_at_the_limit_are_fast():
    """The three values are computed once (they used to be recomputed for each of the n coordinates)."""
    xi = SI.good_neuron_correlations(SI.MAX_CORRELATION_N - 1, 4, 0)
    assert xi[0] == SI.good_neuron_correlation(SI.MAX_CORRELATION_N - 1, 4, 0, "S-S'")
    assert len(str(xi[-1].denominator)) <= 4000
