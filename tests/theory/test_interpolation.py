"""Exact checks of theory/interpolation.py (Lemma B.4 / Claim 5, Lemma C.6; errata in docs/boolean.md)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import interpolation as I


def cube_values(k: int, biases, weights, extra: int = 1, sign_pairs: bool = False) -> list:
    """Evaluate sum_i u_i ReLU(sum_{j<k} x_j/(2k) + b_i) on every x in {±1}^(k+extra) (exact)."""
    out = []
    for x in itertools.product((1, -1), repeat=k + extra):
        s = sum(x[:k])
        out.append((sum(u * max(Fraction(s, 2 * k) + b, 0) for u, b in zip(weights, biases)), sympy.prod(x[:k])))
    return out


@pytest.mark.parametrize("k", range(1, 11))
def test_claim5_corrected_interpolates(k):
    c = I.claim5_corrected(k)
    assert [int(v) for v in c["values"]] == c["target"] == I.parity_on_lattice(k)
    assert c["lsq"].exact and c["lsq"].residual_sq == 0
    biases = [Fraction(str(b)) for b in I.claim5_corrected_biases(k)]
    for f, chi in cube_values(k, biases, I.claim5_corrected_weights(k)):
        assert f == chi


def test_claim5_corrected_weights_spec_and_norm():
    assert I.claim5_corrected_weights(4) == [8, -32, 64, -96, 128]  # Claim 5 corrected, k = 4
    for k in range(1, 9):
        assert max(abs(u) for u in I.claim5_corrected_weights(k)) == 8 * k * k  # > 8k of Lemma B.4 for k > 1


@pytest.mark.parametrize("k", [2, 4, 6, 8])
@pytest.mark.parametrize("schedule", ["i+1", "i"])
def test_claim5_as_printed_fails(k, schedule):
    p = I.claim5_as_printed(k, schedule)
    assert [int(v) for v in p["values"]] != p["target"]
    assert p["lsq"].residual_sq > 0  # no output weights make the k printed neurons give 2 chi


def test_claim5_printed_schedule_values():
    """Knots on the lattice (b_i = -1/2 + i/k): all neurons vanish at s = -k, so f*(-k) = 0 != 2 chi(-k)."""
    p = I.claim5_as_printed(4, "i")
    assert p["values"][0] == 0 and p["values"][1:] == p["target"][1:]
    with pytest.raises(ValueError, match="schedule"):
        I.claim5_printed_biases(4, "i-1")


@pytest.mark.parametrize("k", [2, 4, 6, 8, 10, 12])
def test_c6_corrected_interpolates_exactly(k):
    c = I.c6_features(k)
    assert c["index_set"] == list(range(k // 2)) and c["Phi"].shape == (k + 1, k + 1)
    assert c["lsq"].residual_sq == 0 and c["lsq"].rank == k + 1


@pytest.mark.parametrize("k", [2, 4, 6, 8])
def test_c6_printed_index_set_fails(k):
    c = I.c6_features(k, printed=True)
    assert c["Phi"].shape == (k + 1, k - 1)
    assert c["lsq"].residual_sq > 0
    if k == 2:  # empty bias set: only the constant; residual^2 = sum (chi - mean chi)^2
        y = I.parity_on_lattice(2)
        mean = Fraction(sum(y), len(y))
        assert c["lsq"].residual_sq == sum((v - mean) ** 2 for v in y)


def test_c6_bias_values_and_validation():
    assert I.c6_bias(4, 0) == sympy.Rational(-4 * 16 + 1, 16 * 8)
    with pytest.raises(ValueError, match="k even"):
        I.c6_features(3)


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(2, 6), data=st.data())
def test_least_squares_residual_orthogonal(rows, data):
    cols = data.draw(st.integers(0, rows))
    Phi = sympy.Matrix(rows, cols, [data.draw(st.integers(-3, 3)) for _ in range(rows * cols)])
    y = [data.draw(st.integers(-3, 3)) for _ in range(rows)]
    ls = I.least_squares(Phi, y)
    r = sympy.Matrix(ls.residual)
    if cols:
        assert Phi.T * r == sympy.zeros(cols, 1)  # normal equations
        assert sympy.Matrix(y) - Phi * sympy.Matrix(ls.weights) == r
    assert ls.residual_sq == sum(v**2 for v in r)


# ------------------------------------------------------------------ issue 32: hostile input (regressions)
def test_sizes_and_types_are_refused_naming_the_parameter():
    from theory._checks import InputError, LimitError

    for call, param in [
        (lambda: I.lattice(10**9), "k"),  # used to build a list of 10^9 points
        (lambda: I.claim5_corrected(58), "k"),  # exact least squares: (k+1)^3 <= 200000, k <= 57
        (lambda: I.c6_features(58), "k"),
        (lambda: I.feature_matrix(10**9, []), "k"),
        (lambda: I.least_squares(sympy.zeros(59, 59), [0] * 59), "Phi"),
    ]:
        with pytest.raises(LimitError) as info:
            call()
        assert info.value.param == param
    with pytest.raises(InputError) as info:
        I.least_squares(-1, [1])  # used to raise AttributeError
    assert info.value.param == "Phi"
    with pytest.raises(InputError) as info:
        I.least_squares(sympy.Matrix([[sympy.nan]]), [1])
    assert info.value.param == "Phi"
    with pytest.raises(InputError):
        I.LeastSquares((sympy.Integer(0),), (sympy.Integer(0),), sympy.nan, 1)
    assert I.claim5_corrected(57)["lsq"].exact
