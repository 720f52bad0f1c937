"""Exact checks of theory/looped.py (Shi Ch. 8): Lemma 8.13, Thm 8.14 in rationals, spectrum, bounds, validation."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import looped as tl


def _rand_prompt(seed: int, n: int, d: int):
    rnd = random.Random(seed)
    X = [[F(rnd.randint(-6, 6), rnd.randint(1, 4)) for _ in range(d)] for _ in range(n)]
    y = [F(rnd.randint(-6, 6), rnd.randint(1, 3)) for _ in range(n)]
    q0 = [F(rnd.randint(-5, 5), rnd.randint(1, 5)) for _ in range(d)]
    return X, y, q0


def _sympy_attention(Z):
    """Independent oracle: Def. 8.6 with sympy matrices and an elementwise-masked product."""
    Zs = sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in r] for r in Z])
    n = Zs.rows - 1
    Q, P = tl.construction(Zs.cols - 1)
    S = (Zs * Q * Zs.T).multiply_elementwise(tl.mask(n))
    return S * Zs * P


def test_construction_shapes_and_mask():
    Q, P = tl.construction(3)
    assert sympy.eye(4) == Q and sympy.diag(1, 1, 1, 0) == P
    M = tl.mask(3)
    assert M.shape == (4, 4) and list(M.row(3)) == [1, 1, 1, 0] and sum(M) == 3


@pytest.mark.parametrize("seed,n,d", [(0, 4, 2), (1, 6, 3), (2, 3, 3)])
def test_lemma_8_13_exact_against_sympy_oracle(seed, n, d):
    X, y, q0 = _rand_prompt(seed, n, d)
    for alpha in (F(-17, 10), F(3, 10), F(5)):
        closed = tl.lemma_8_13_attention(X, y, alpha, q0)
        assert tl.attention(tl.embed(X, y, alpha, q0)) == closed
        oracle = _sympy_attention(tl.embed(X, y, alpha, q0))
        assert [[sympy.Rational(v.numerator, v.denominator) for v in r] for r in closed] == oracle.tolist()


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    d=st.integers(1, 3),
    extra=st.integers(1, 6),
    T=st.integers(1, 6),
    alpha=st.sampled_from([F(-17, 10), F(3, 10), F(5)]),
)
def test_thm_8_14_exact_every_layer(seed, d, extra, T, alpha):
    n = d + extra
    X, y, q0 = _rand_prompt(seed, n, d)
    rnd = random.Random(seed + 1)
    etas = [F(rnd.randint(1, 9), 100 * rnd.randint(1, 5)) for _ in range(T)]  # any positive steps
    layers = tl.looped_forward(X, y, alpha, etas, q0)
    thetas = tl.gd_iterates(X, y, etas, [-v / alpha for v in q0])
    for Z, th in zip(layers, thetas):  # q^(t) = -alpha theta^(t) for t = 0..T (Thm 8.14 states 2..T; t = 1 holds too)
        assert Z[-1][:-1] == [-alpha * v for v in th]
        assert Z[:-1] == layers[0][:-1] and Z[-1][-1] == alpha
    assert tl.tf_readout(layers[-1]) == tl.tf_output_predicted(X, y, alpha, etas, q0)


def test_gd_float_fallback_matches_exact():
    X, y, _q0 = _rand_prompt(3, 7, 3)
    etas = [F(1, 40)] * 10
    ex = tl.gd_iterates(X, y, etas)[-1]
    fl = tl.gd_iterates(
        [[float(v) for v in r] for r in X], [float(v) for v in y], [float(e) for e in etas], exact=False
    )[-1]
    assert all(isinstance(v, float) for v in fl)
    assert max(abs(float(a) - b) for a, b in zip(ex, fl)) <= 1e-12 * max(1.0, max(abs(float(a)) for a in ex))


def test_gram_spectrum_exact_diagonal():
    X = [[2, 0], [0, 1], [0, 0]]
    L, mu = tl.gram_spectrum(X)
    assert L == 4 and mu == 1 and tl.condition_number(X) == 4


def test_gram_spectrum_brackets_rayleigh_quotients():
    X, _, _ = _rand_prompt(5, 6, 3)
    L, mu = tl.gram_spectrum(X)
    G = sympy.Matrix(tl.gram(X))
    rnd = random.Random(0)
    for _ in range(20):
        v = sympy.Matrix([rnd.randint(-5, 5) for _ in range(3)])
        if v.norm() == 0:
            continue
        r = (v.T * G * v)[0] / (v.T * v)[0]
        assert float(mu) - 1e-12 <= float(r) <= float(L) + 1e-12
    ev = np.linalg.eigvalsh(np.array([[float(v) for v in r] for r in tl.gram(X)]))  # independent float oracle
    assert abs(float(L) - ev[-1]) <= 1e-12 * ev[-1] and abs(float(mu) - ev[0]) <= 1e-10 * ev[-1]


def test_bounds_values_and_ordering():
    k = F(9, 4)
    assert tl.thm_8_25_bound(3, k) == sympy.Rational(5, 9) ** 3
    assert tl.thm_8_25_bound(3, k, R=2) == 4 * sympy.Rational(5, 9) ** 3
    assert tl.thm_8_16_bound(4, k, -3) == 3 * sympy.exp(-sympy.Rational(8, 9))
    for T in range(0, 30, 3):
        sharp, stated, expb = (
            tl.thm_8_16_sharp_bound(T, k, 2),
            tl.thm_8_16_bound(T, k, 2),
            2 * tl.thm_8_25_exp_bound(T, k),
        )
        assert float(sharp) <= float(expb) + 1e-15 and float(expb) <= float(stated) + 1e-15
    assert tl.prompt_step_size(F(8)) == sympy.Rational(1, 8)
    assert tl.lemma_8_23_bound(2, F(1, 8), 8, 2) == sympy.Rational(3, 4) ** 2
    assert tl.lemma_8_23_bound(5, F(1, 8), 8, 2) == tl.thm_8_25_bound(5, 4)  # eta = 1/L gives Thm 8.25
    assert tl.gd_contraction_factor(F(1, 8), 8, 2) == sympy.Rational(3, 4)
    assert tl.gd_contraction_factor(F(3, 16), 8, 2) == sympy.Rational(5, 8)  # max(|1 - 3/8|, |1 - 3/2|)


def test_float_inputs_give_float_bounds():
    assert math.isclose(float(tl.thm_8_16_bound(10, 2.5, 1.0)), math.exp(-2.0), rel_tol=1e-14)


@pytest.mark.parametrize("eta", [0, -0.1, F(1, 4), F(1, 3)])
def test_step_size_outside_interval_raises(eta):
    with pytest.raises(ValueError, match=r"\(0, 2/L\)"):
        tl.gd_contraction_factor(eta, 8, 2)


def test_lemma_8_23_requires_eta_at_most_one_over_L():
    with pytest.raises(ValueError, match=r"\(0, 1/L\]"):
        tl.lemma_8_23_bound(3, F(1, 6), 8, 2)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: tl.embed([[1, 2], [3, 4]], [1, 2, 3], 1), "y must have length 2"),
        (lambda: tl.embed([[1, 2], [3, 4]], [1, 2], 1, q0=[1, 2, 3]), "q0 must have length 2"),
        (lambda: tl.embed([[1, 2], [3]], [1, 2], 1), "ragged"),
        (lambda: tl.embed([[1, 2], [3, 4]], [1, 2], 0), "alpha must be non-zero"),
        (lambda: tl.gd_iterates([[1, 0], [0, 1], [1, 1]], [1, 2, 3], [F(1, 10), 0]), r"must be > 0"),
        (lambda: tl.gram_spectrum([[1, 2], [3, 4]]), "n > d"),
        (lambda: tl.gram_spectrum([[1, 2], [2, 4], [3, 6]]), "singular"),
        (lambda: tl.thm_8_25_bound(3, F(1, 2)), "kappa"),
        (lambda: tl.thm_8_25_bound(-1, 2), "T"),
        (lambda: tl.attention([[1, 2, 3], [4, 5, 6]], Q=[[1, 0], [0, 1]]), r"Q must be \(3, 3\)"),
        (lambda: tl.construction(0), "d must be"),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()
