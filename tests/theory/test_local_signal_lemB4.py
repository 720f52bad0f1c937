"""Lemma B.4 (Karp thesis, App. B.1.3) made explicit: ``theory.local_signal.lemma_b4_batch_size`` is the smallest
batch at which each Hoeffding term of the proof is at most ``e^{-k}/2`` (brute force against the exact bound), the
tolerance and failure probability, and the proof's truncation probability against scipy (docs/local_signal.md)."""

from __future__ import annotations

import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from theory import local_signal as tl
from theory._checks import InputError, LimitError


def _terms(k: int, d: int, n: int) -> tuple[sympy.Expr, sympy.Expr]:
    """The two Hoeffding terms of the proof, written out again: bias range 2(k+1), weight range 4(k+1) per coordinate
    at t/sqrt(d), a union over d coordinates; t = 1/k."""
    t = sympy.Rational(1, k)
    bias = 2 * sympy.exp(-2 * n * t**2 / (2 * (k + 1)) ** 2)
    weight = 2 * d * sympy.exp(-2 * n * (t / sympy.sqrt(d)) ** 2 / (4 * (k + 1)) ** 2)
    return bias, weight


@settings(max_examples=12, deadline=None)
@given(k=st.integers(2, 40), d=st.integers(1, 12))
def test_batch_size_is_the_smallest_meeting_both_terms(k: int, d: int) -> None:
    n = tl.lemma_b4_batch_size(k, d)
    half = sympy.exp(-k) / 2
    assert all(bool(term <= half) for term in _terms(k, d, n))
    assert not all(bool(term <= half) for term in _terms(k, d, n - 1))
    assert sympy.simplify(tl.lemma_b4_hoeffding_bound(k, d, n) - sum(_terms(k, d, n))) == 0
    assert bool(tl.lemma_b4_hoeffding_bound(k, d, n) <= tl.lemma_b4_failure_probability(k))


def test_the_weight_term_needs_the_larger_batch() -> None:
    for k in (2, 4, 100):
        bias_only = math.ceil(2 * k**2 * (k + 1) ** 2 * (k + math.log(4)))
        assert tl.lemma_b4_batch_size(k, 1) > bias_only


def test_tolerance_and_failure() -> None:
    assert tl.lemma_b4_tolerance(7) == sympy.Rational(1, 7)
    assert tl.lemma_b4_failure_probability(7) == sympy.exp(-7)


@pytest.mark.parametrize("k", [2, 4, 30, 1000, 10**6])
def test_truncation_probability_against_scipy(k: int) -> None:
    p = 2 * stats.norm.sf(1 / tl.noise_sigma(k))
    assert tl.lemma_b4_truncation_probability(k) == pytest.approx(-math.expm1(k * math.log1p(-p)), rel=1e-9)


def test_input_checks() -> None:
    with pytest.raises(InputError):
        tl.lemma_b4_batch_size(1, 2)
    with pytest.raises(InputError):
        tl.lemma_b4_batch_size(4, 0)
    with pytest.raises(InputError):
        tl.lemma_b4_hoeffding_bound(4, 2, 0)
    with pytest.raises(LimitError):
        tl.lemma_b4_batch_size(tl.MAX_B4_K + 1, 2)
    with pytest.raises(InputError):
        tl.lemma_b4_tolerance(2.0)  # type: ignore[arg-type]


def test_size_limits_name_the_first_parameter_above_its_limit() -> None:
    """The shared size check of the Lemma B.4 functions and of init_failure_probability: silent at the limits, and
    above one a LimitError naming the first parameter over it, in the words written out here."""
    tl._check_limits((("k", 10, 10), ("d", 11, 11)), "the work")
    for limits, name, value, limit, text in (
        ((("k", 5, 10), ("d", 12, 11)), "d", 12, 11, "d = 12 is above the limit d <= 11 of the work"),
        ((("k", 11, 10), ("d", 12, 11)), "k", 11, 10, "k = 11 is above the limit k <= 10 of the work"),
    ):
        with pytest.raises(LimitError) as info:
            tl._check_limits(limits, "the work")
        assert (str(info.value), info.value.param, info.value.value, info.value.limit) == (text, name, value, limit)
    for call, text in (
        (
            lambda: tl.lemma_b4_batch_size(10**6 + 1, 2),
            "k = 1,000,001 is above the limit k <= 1,000,000 of the Lemma B.4 batch size",
        ),
        (
            lambda: tl.lemma_b4_hoeffding_bound(4, 10**9 + 1, 10),
            "d = 1,000,000,001 is above the limit d <= 1,000,000,000 of the Lemma B.4 batch size",
        ),
        (
            lambda: tl.init_failure_probability(3, 10**6 + 1),
            "d = 1,000,001 is above the limit d <= 1,000,000 of init_failure_probability (the chi-square tail is "
            "evaluated at k d)",
        ),
    ):
        with pytest.raises(LimitError) as info:
            call()
        assert str(info.value) == text
