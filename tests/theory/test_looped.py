"""Exact checks of theory/looped.py (Shi Ch. 8): Lemma 8.13, Thm 8.14 in rationals, spectrum, bounds, validation."""

from __future__ import annotations

import math
import random
import time
from fractions import Fraction as F

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import looped as tl
from theory._checks import InputError, LimitError


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


# --- sizes checked before any work, bad values refused naming the parameter (issue 32)


def _refused(call, param):
    start = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert info.value.param == param and str(info.value).startswith(f"{param} = ")
    assert time.perf_counter() - start < 1.0, "the refusal must come before the work"
    return info.value


def test_mask_is_refused_from_its_size_before_building_it():
    """mask(10**5) built a 10^10-entry sympy matrix for minutes."""
    err = _refused(lambda: tl.mask(10**5), "n")
    assert "attention() applies it" in err.hint
    _refused(lambda: tl.mask(447), "n")
    assert tl.mask(3).shape == (4, 4)
    _refused(lambda: tl.construction(316), "d")


def test_attention_and_the_loop_do_not_build_the_sympy_construction():
    """attention() uses Q = I and P = diag(I, 0) as lists: a prompt of d = 400 columns is not refused."""
    Z = [[1] * 401, [0] * 400 + [1]]
    assert tl.attention(Z, exact=False)[-1] == [1.0] * 400 + [0.0]  # the score of the one row is 1


@pytest.mark.parametrize("n", [10**9, 10**400])
def test_exact_powers_of_the_bounds_are_sized_before_the_work(n):
    """lemma_8_23_bound at T = 10**9 computed (2/3)^T exactly for more than 20 s."""
    _refused(lambda: tl.lemma_8_23_bound(n, F(1, 3), 3, 1), "T")
    _refused(lambda: tl.thm_8_25_bound(n, 3), "T")
    _refused(lambda: tl.thm_8_16_sharp_bound(n, 3, 2), "T")
    assert tl.thm_8_25_exp_bound(n, 3) == sympy.exp(-sympy.Integer(n) / 3)
    assert float(tl.thm_8_25_bound(n, 3.0)) == 0.0  # a float kappa gives a float power at once


def test_the_largest_exact_power_is_accepted():
    bound = tl.thm_8_25_bound(8383, 3)  # (2/3)^8383: 4000 digits, the limit
    assert bound == sympy.Rational(2, 3) ** 8383
    _refused(lambda: tl.thm_8_25_bound(8384, 3), "T")
    _refused(lambda: tl.lemma_8_23_bound(8384, F(1, 3), 3, 1), "T")


def test_long_exact_runs_are_refused_before_they_start():
    X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]
    _refused(lambda: tl.gd_iterates(X, y, [F(1, 10**50)] * 1000), "etas")
    _refused(lambda: tl.looped_forward(X, y, 1, [F(1, 10**50)] * 1000), "etas")
    _refused(lambda: tl.tf_output_predicted(X, y, 1, [F(1, 10**50)] * 1000), "etas")
    assert len(tl.gd_iterates(X, y, [F(1, 3)] * 200)) == 201  # small denominators: long exact runs stay allowed
    _refused(lambda: tl.gd_iterates(X, y, [0.1] * 400_000, exact=False), "etas")


def test_a_diverging_float_run_is_refused_not_answered_with_inf():
    with pytest.raises(InputError, match="diverges") as info:
        tl.gd_iterates([[1, 0], [0, 1], [1, 1]], [1, 2, 3], [10.0] * 400, exact=False)
    assert info.value.param == "etas"
    with pytest.raises(InputError, match="diverges"):
        tl.looped_forward([[1, 0], [0, 1], [1, 1]], [1, 2, 3], 1, [10.0] * 400, exact=False)


def test_the_exact_spectrum_is_refused_above_max_spectrum_d():
    d = tl.MAX_SPECTRUM_D + 1
    X = [[int(i == j) for j in range(d)] for i in range(d + 1)]
    _refused(lambda: tl.gram_spectrum(X), "X")
    _refused(lambda: tl.condition_number(X), "X")


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: tl.thm_8_16_bound(3, 3, float("nan")), "alpha"),
        (lambda: tl.thm_8_16_sharp_bound(3, 3, float("inf")), "alpha"),
        (lambda: tl.prompt_step_size(float("nan")), "L"),
        (lambda: tl.gd_contraction_factor(F(1, 3), 3, float("inf")), "mu"),
        (lambda: tl.thm_8_25_bound(3, "1e999999999"), "kappa"),
        (lambda: tl.embed([[1, 0], [0, 1]], [1, 2], 10**400, exact=False), "alpha"),
        (lambda: tl.gd_iterates([[1, 0], [0, 1]], [1, 2], [float("nan")]), "etas"),
        (lambda: tl.tf_readout([]), "Z"),
        (lambda: tl.tf_readout([[1, 2], [float("nan"), 1]]), "Z"),
        (lambda: tl.check_step_size(F(1, 3), 3, upper=None), "upper"),
        (lambda: tl.gram([[1, 0]], exact="no"), "exact"),
    ],
)
def test_bad_values_are_refused_naming_the_parameter(call, param):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param


# --- Theorem 8.17 (Gatmiry et al. 2024, Thm 4.1, as restated): condition, bound and growth


@settings(max_examples=40, deadline=None)
@given(T=st.integers(min_value=1, max_value=12), d=st.integers(min_value=1, max_value=9))
def test_thm_8_17_min_examples_is_the_threshold_of_the_printed_condition(T: int, d: int) -> None:
    """n_min satisfies 8 T d^2/sqrt(n) <= 2^{-2T} (compared exactly by sympy) and n_min - 1 does not; the bound is
    1 there and sqrt(n_min/n) <= 1 above."""
    n_min = tl.thm_8_17_min_examples(T, d)

    def holds(n: int) -> bool:
        return bool(8 * T * d**2 / sympy.sqrt(n) <= sympy.Rational(1, 2 ** (2 * T)))

    assert holds(n_min) and not holds(n_min - 1)
    assert tl.thm_8_17_bound(T, d, n_min) == 1
    printed = 8 * T * d**2 * 2 ** (2 * T) / sympy.sqrt(4 * n_min + 7)
    assert sympy.simplify(tl.thm_8_17_bound(T, d, 4 * n_min + 7) - printed) == 0
    assert tl.thm_8_17_bound(T, d, 4 * n_min + 7) < 1
    assert tl.thm_8_17_bound(T + 1, d, n_min) / tl.thm_8_17_bound(T, d, n_min) == tl.thm_8_17_growth_factor(T)
    assert tl.thm_8_17_growth_factor(T) > 4


def test_thm_8_17_bad_input() -> None:
    with pytest.raises(InputError, match="T must be an integer >= 1"):
        tl.thm_8_17_min_examples(0, 4)
    with pytest.raises(InputError, match="n must be an integer >= 1"):
        tl.thm_8_17_bound(1, 4, 0)
    with pytest.raises(LimitError):
        tl.thm_8_17_min_examples(tl.MAX_THM_8_17_T + 1, 4)


@pytest.mark.parametrize("eta", [F(1, 4), F(1, 2), F(3, 4)])
def test_contraction_factor_at_mu_equal_L_is_the_observed_contraction(eta):
    """mu = L (X^T X = 2 I, so L = mu = 2) lies inside the stated range 0 < mu <= L: the factor is accepted and equals
    the exact ratio ||theta^(1) - theta*|| / ||theta^(0) - theta*|| of one GD step (here |1 - 2 eta| in every
    direction), and Lemma 8.23's bound at eta <= 1/L is (1 - eta mu)^T R^2 with the observed error below it."""
    X, theta_star = [[1, 1], [1, -1]], [F(3), F(-1)]  # X^T X = 2 I
    y = [sum(x * t for x, t in zip(row, theta_star)) for row in X]
    th0, th1 = tl.gd_iterates(X, y, [eta])
    err0 = sum((a - b) ** 2 for a, b in zip(th0, theta_star))
    err1 = sum((a - b) ** 2 for a, b in zip(th1, theta_star))
    rho = tl.gd_contraction_factor(eta, 2, 2)
    assert rho == abs(1 - 2 * eta) and rho**2 * err0 == err1
    if 2 * eta <= 1:
        assert tl.lemma_8_23_bound(1, eta, 2, 2, R=sympy.sqrt(err0)) == (1 - 2 * eta) * err0 >= err1
