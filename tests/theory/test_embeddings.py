"""Exact checks of theory/embeddings.py (Edelman thesis (2024) Thm 5.6): the bounds against brute force over the
cube for the Walsh embedding (exact sympy), their ordering, and the input checks."""

from __future__ import annotations

import itertools
import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.embeddings import (
    thm56_bound_as_printed,
    thm56_correlation_bound,
    thm56_hinge_bound,
    thm56_walsh_dimension,
)


def _chi(x: tuple[int, ...], S: tuple[int, ...]) -> int:
    return math.prod(x[i] for i in S)


def _walsh_correlation_bound_bruteforce(R: sympy.Expr, n: int, k: int) -> sympy.Expr:
    """max_S (1 - R ||E[chi_S Psi]||) for the degree-k Walsh embedding, exactly: hinge = 1 - y Psi^T w there (R <=
    sqrt(C)), minimised over the ball at w = R E[y Psi] / ||E[y Psi]||."""
    sets = list(itertools.combinations(range(n), k))
    cube = list(itertools.product((1, -1), repeat=n))
    scale = sympy.sqrt(len(sets))
    best = None
    for S in sets:
        corr = [sympy.Rational(sum(_chi(x, S) * _chi(x, T) for x in cube), len(cube)) / scale for T in sets]
        value = 1 - R * sympy.sqrt(sum(c**2 for c in corr))
        best = value if best is None else sympy.Max(best, value)
    return best


@pytest.mark.parametrize(
    ("n", "k", "R"), [(3, 1, sympy.Rational(1, 2)), (4, 2, 1), (5, 2, sympy.Rational(3, 2)), (3, 3, 1)]
)
def test_walsh_attains_the_correlation_bound(n: int, k: int, R: sympy.Expr) -> None:
    assert sympy.simplify(_walsh_correlation_bound_bruteforce(R, n, k) - thm56_correlation_bound(R, n, k)) == 0


def test_walsh_dimension_is_the_number_of_k_sets() -> None:
    assert [thm56_walsh_dimension(6, k) for k in range(1, 7)] == [math.comb(6, k) for k in range(1, 7)]


@settings(max_examples=30, deadline=None)
@given(
    D=st.integers(1, 500),
    R=st.fractions(min_value=0, max_value=5, max_denominator=50),
    n=st.integers(1, 12),
    data=st.data(),
)
def test_printed_bound_is_weaker_by_sqrt_d(D: int, R, n: int, data) -> None:
    k = data.draw(st.integers(1, n))
    printed, proof = thm56_hinge_bound(D, R, n, k), thm56_correlation_bound(R, n, k)
    assert sympy.simplify((1 - printed) - sympy.sqrt(D) * (1 - proof)) == 0
    assert float(printed) <= float(proof) + 1e-12


def test_bound_as_printed_needs_the_hypothesis() -> None:
    assert thm56_bound_as_printed(20, "0.25", "0.5", 6, 3) == sympy.Rational(1, 2)
    with pytest.raises(ValueError, match="D R\\^2 < eps\\^2"):
        thm56_bound_as_printed(20, "0.5", "0.5", 6, 3)  # D R^2 = 5 = eps^2 C: not strictly less


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: thm56_hinge_bound(0, 1, 5, 2), "D must be an integer >= 1"),
        (lambda: thm56_hinge_bound("1.5", 1, 5, 2), "D must be an integer >= 1"),
        (lambda: thm56_hinge_bound(3, -1, 5, 2), "R must be a real number >= 0"),
        (lambda: thm56_correlation_bound(1, 3, 4), "k = 4 > n = 3"),
        (lambda: thm56_correlation_bound(1, 0, 0), "n"),
    ],
)
def test_inputs_are_checked(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
