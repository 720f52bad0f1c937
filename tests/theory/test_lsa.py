"""Exact checks of theory/lsa.py (Shi Ch. 5: Lemma 5.1, Lemma D.1, (D.4), Theorems 5.4.1-5.4.3; hypothesis
properties of Thm 5.4.1, (D.4) and Thm 5.4.3). Expected values come from independent brute force in Fractions."""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as F

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import lsa as tl
from theory._checks import InputError, LimitError

CASE_A = sympy.diag(4, 3, 2, 1)
N_A = 20


def _brute_L(lam: list[F], N: int, r: int) -> F:
    """1/2 tr - 1/2 sum_{i<=r} lambda_i^2 / T_i with T_i = (1 + 1/N) lambda_i + tr/N, all in Fractions."""
    tr = sum(lam, F(0))
    T = [(1 + F(1, N)) * v + tr / N for v in lam]
    return tr / 2 - sum((lam[i] ** 2 / T[i] for i in range(r)), F(0)) / 2


def _q(x) -> F:
    x = sympy.Rational(x)
    return F(int(x.p), int(x.q))


# ------------------------------------------------------------------------------------------ Lemma D.1, (D.4), Thm 5.4.1, Lemma 5.1


def test_gamma_case_a():
    G = tl.gamma_matrix(CASE_A, N_A)
    assert sympy.diag(*[(1 + sympy.Rational(1, N_A)) * v + sympy.Rational(10, N_A) for v in (4, 3, 2, 1)]) == G


def test_full_rank_optimum_is_stationary_and_value():
    Ginv, lmin = tl.full_rank_optimum(CASE_A, N_A)
    G = tl.gamma_matrix(CASE_A, N_A)
    assert G * CASE_A * Ginv * CASE_A - CASE_A**2 == sympy.zeros(4)
    assert _q(lmin) == _brute_L([F(4), F(3), F(2), F(1)], N_A, 4) - 5
    assert tl.reduced_loss(Ginv, 1, CASE_A, N_A) == lmin


@pytest.mark.parametrize("r", range(5))
def test_closed_form_case_a(r):
    opt = tl.optimal_rank_r(CASE_A, N_A, r)
    lam = [F(4), F(3), F(2), F(1)]
    assert _q(opt.loss) == _brute_L(lam, N_A, r)
    assert [_q(v) for v in opt.v] == [F(N_A) / ((N_A + 1) * lam[i] + 10) if i < r else 0 for i in range(4)]
    assert tl.population_loss(opt.U, 1, CASE_A, N_A) == opt.loss
    assert opt.unique
    # any (c U*, 1/c) is optimal too
    assert tl.reduced_loss(opt.U * sympy.Rational(-5, 2), sympy.Rational(-2, 5), CASE_A, N_A) == opt.reduced_loss


def test_case_b_non_diagonal():
    L = sympy.Matrix([[2, 1], [1, 2]])
    o1 = tl.optimal_rank_r(L, 10, 1)
    assert o1.lam == [3, 1]
    T1 = (1 + sympy.Rational(1, 10)) * 3 + sympy.Rational(4, 10)
    assert sympy.simplify(o1.U - sympy.Matrix([[1, 1], [1, 1]]) / (2 * T1)) == sympy.zeros(2)
    o2 = tl.optimal_rank_r(L, 10, 2)
    assert sympy.simplify(o2.U - tl.gamma_matrix(L, 10).inv()) == sympy.zeros(2)
    assert [_q(x) for x in tl.optimal_losses(L, 10)] == [_brute_L([F(3), F(1)], 10, r) for r in range(3)]


def test_ties_are_flagged():
    opt = tl.optimal_rank_r(sympy.eye(4), 20, 2)
    assert not opt.unique
    assert tl.optimal_rank_r(sympy.eye(4), 20, 4).unique
    assert [_q(x) for x in tl.optimal_losses(sympy.eye(4), 20)] == [_brute_L([F(1)] * 4, 20, r) for r in range(5)]


def test_excess_loss_identity_exact():
    U = sympy.Matrix([[1, 2, 0, -1], [0, 1, 3, 0], [1, 0, 0, 1], [0, -2, 2, 1]]) / 7
    lhs, rhs = tl.excess_loss_identity(U, sympy.Rational(3, 2), CASE_A, N_A)
    assert sympy.simplify(lhs - rhs) == 0
    lhs, rhs = tl.excess_loss_identity(sympy.Matrix([[1, 2], [0, 1]]), 2, sympy.Matrix([[2, 1], [1, 2]]), 10)
    assert sympy.simplify(lhs - rhs) == 0
    U, L = sympy.Matrix([[1, 2], [0, 1]]), sympy.Matrix([[2, 1], [1, 2]])
    assert lhs == tl.excess_loss(U, 2, L, 10) and rhs == tl.excess_loss_frobenius(U, 2, L, 10)


def test_lemma51_symbolic():
    assert all(sympy.simplify(r) == 0 for r in tl.lemma51_residuals(2))
    derived, stated = tl.lemma51_moments(1)
    assert len(derived) == len(stated) == 3
    with pytest.raises(ValueError, match="d must be"):
        tl.lemma51_moments(4)


def test_eq52_identities_are_exact():
    """Eq. 5.1 = corrected Eq. 5.2 = its expansion; dead blocks and the (u, U) scale drop out (symbolically)."""
    for d, n in ((1, 1), (2, 2)):
        assert tl.eq52_residuals(d, n) == [0, 0]
        assert set(tl.dead_block_derivatives(d, n)) == {0}
        assert tl.scale_symmetry_residuals(d, n) == [0, 0]
    assert len(tl.dead_block_derivatives(2, 2)) == 2 * 3 + 3
    with pytest.raises(ValueError, match="d and n"):
        tl.eq52_residuals(4, 2)


def test_eq52_numeric_prompt():
    """On a concrete rational prompt the literal Eq. 5.1 output equals the corrected Eq. 5.2 (brute force)."""
    E = sympy.Matrix([[1, 2, F(1, 3)], [-1, 0, 2], [3, F(1, 2), 0]])
    WPV = sympy.Matrix(3, 3, lambda a, b: a - 2 * b + 1)
    WKQ = sympy.Matrix(3, 3, lambda a, b: F(a + b, 3))
    out = (E + WPV * E * (E.T * WKQ * E) / 5)[2, 2]
    assert tl.lsa_output(E, WPV, WKQ, 5) == out
    assert sympy.simplify(tl.corrected_prediction(E, WPV, WKQ, 5) - out) == 0
    assert sympy.simplify(tl.expanded_prediction(E, WPV, WKQ, 5) - out) == 0


# ------------------------------------------------------------------------------------------ Thm 5.4.1: monotonicity


def test_monotonicity():
    Ls = tl.optimal_losses(CASE_A, N_A)
    assert all(a > b for a, b in itertools.pairwise(Ls))
    vs = [tl.optimal_rank_r(CASE_A, n, 4).v for n in (1, 2, 10, 100)]
    assert all(vs[k][i] < vs[k + 1][i] for k in range(3) for i in range(4))
    big = tl.optimal_rank_r(CASE_A, 10**8, 4)
    assert all(abs(float(big.v[i] * big.lam[i]) - 1) < 2e-7 for i in range(4))


def _stationary_v(lam: list[int], N: int) -> list[sympy.Expr]:
    """Oracle: the full-rank optimum on a diagonal Lambda found by solving grad = 0 of Lemma 5.1's reduced loss,
    written out here from Gamma = (1 + 1/N) Lambda + tr(Lambda)/N I (no closed form for v* or T_i used)."""
    d = len(lam)
    v = sympy.symbols(f"v0:{d}")
    L = sympy.diag(*lam)
    G = (1 + sympy.Rational(1, N)) * L + sympy.Rational(sum(lam), N) * sympy.eye(d)
    U = sympy.diag(*v)
    loss = (G * L * U * L * U.T).trace() / 2 - (L * L * U.T).trace()
    sol = sympy.solve([sympy.diff(loss, x) for x in v], v, dict=True)
    assert len(sol) == 1
    return [sol[0][x] for x in v]


@pytest.mark.parametrize("N", [1, 20, 10**8])
def test_limit_relative_error_against_stationarity(N):
    lam = [4, 3, 2, 1]
    v = _stationary_v(lam, N)
    assert tl.limit_relative_error(CASE_A, N) == [abs(x * vi - 1) for x, vi in zip(lam, v)]
    assert all(isinstance(e, sympy.Rational) for e in tl.limit_relative_error(CASE_A, N))


def test_limit_relative_error_values_and_edges():
    # the number docs/lsa.md quotes: lambda = 1 in Case A at N = 1e8 is just above 1e-7
    assert tl.limit_relative_error(CASE_A, 10**8)[-1] == sympy.Rational(11, 100000011)
    assert tl.limit_relative_error(CASE_A, 10**8)[-1] > sympy.Rational(1, 10**7)
    # lambda_i = 0: v_i* = N / tr D, so |0 * v_i* - 1| = 1; Lambda = 0: v* = 0, again 1
    assert tl.limit_relative_error(sympy.diag(3, 0), 7) == [sympy.Rational(3 + 3, 8 * 3 + 3), 1]
    assert tl.limit_relative_error(sympy.zeros(2), 7) == [1, 1]
    # O(1/N): N * rate -> (lambda_i + tr D) / lambda_i
    n = sympy.Symbol("n", positive=True, integer=True)
    rates = tl.limit_relative_error(CASE_A, n)
    assert [sympy.limit(n * e, n, sympy.oo) for e in rates] == [sympy.Rational(x + 10, x) for x in (4, 3, 2, 1)]
    with pytest.raises(ValueError, match="N"):
        tl.limit_relative_error(CASE_A, 0)


# ------------------------------------------------------------------------------------------ Thm 5.4.2, Thm 5.4.3, Sec. 5.4.2
# ------------------------------------------------------------------------------------------ Thm 5.4.2, Thm 5.4.3, Sec. 5.4.2


@pytest.mark.parametrize("r", range(5))
def test_consistency_with_pretraining(r):
    assert tl.expected_noisy_eval_loss(CASE_A, N_A, r, N_A, 0) == 2 * tl.optimal_losses(CASE_A, N_A)[r]


def test_thm542_brute_force_expectation_for_fixed_w():
    # independent expansion (App. D.2.2 proof structure: (III) + (II) + (IV)) in Fractions, general r
    lam = [F(4), F(3), F(2), F(1)]
    w = [F(1), F(-2), F(1, 2), F(3)]
    M, sigma2 = 16, F(1)
    for r in range(5):
        T = [(1 + F(1, N_A)) * v + F(10, N_A) for v in lam]
        u = [1 / T[i] if i < r else F(0) for i in range(4)]  # U* diagonal
        normL = sum(w[i] ** 2 * lam[i] for i in range(4))
        III = (
            sum(w[i] ** 2 * u[i] ** 2 * lam[i] ** 3 for i in range(4)) / M
            + normL * sum((u[i] * lam[i]) ** 2 for i in range(4)) / M
        )
        II = sigma2 * sum((u[i] * lam[i]) ** 2 for i in range(4)) / M
        IV = sum(w[i] ** 2 * lam[i] * (lam[i] * u[i] - 1) ** 2 for i in range(4))
        assert _q(tl.noisy_eval_loss(CASE_A, N_A, r, M, 1, w)) == III + II + IV


@pytest.mark.parametrize("sigma", [0, sympy.Rational(1, 2), 3])
def test_thm542_approximation_is_the_large_n_limit(sigma):
    """Oracle: the exact N -> oo limit of noisy_eval_loss (itself checked against the brute-force expectation above)
    equals noisy_eval_loss_approx for every rank and noise level (the approximation is exact in the limit)."""
    N = sympy.Symbol("N", positive=True)
    for r in range(4):
        for w in ([1, 2, -1], [0, 1, 3]):
            exact = tl.noisy_eval_loss(sympy.diag(3, 2, 1), N, r, 4, sigma, w)
            assert tl.noisy_eval_loss_approx(sympy.diag(3, 2, 1), r, 4, sigma, w) == sympy.limit(exact, N, sympy.oo)


@pytest.mark.parametrize("sigma", [0, 1, 2])
def test_thm543_difference(sigma):
    for r in range(5):
        w = [1 if i < r else 0 for i in range(4)]
        for r2 in range(r, 5):
            diff = tl.rank_difference(CASE_A, N_A, r, r2, 16, sigma, w)
            assert diff >= 0
            assert diff == tl.noisy_eval_loss(CASE_A, N_A, r2, 16, sigma, w) - tl.noisy_eval_loss(
                CASE_A, N_A, r, 16, sigma, w
            )
    # large-N approximation of the difference
    d = tl.rank_difference(CASE_A, 10**6, 1, 3, 16, 1, [1, 0, 0, 0])
    a = tl.rank_difference_approx(CASE_A, 1, 3, 16, 1, [1, 0, 0, 0])
    assert abs(float(d / a) - 1) < 1e-4


def test_noise_tradeoff():
    h = sympy.Rational(1, 2)
    best = [tl.best_rank(CASE_A, N_A, 16, s, [1, h, h, h])[0] for s in (0, 2, 4)]
    assert best == sorted(best, reverse=True) and best[0] == 4 and best[-1] < best[0]
    # brute force: argmin over the explicit list
    losses = tl.best_rank(CASE_A, N_A, 16, 4, [1, h, h, h])[1]
    assert best[-1] == min(range(5), key=lambda r: losses[r])


def test_noisy_loss_rotation_invariant():
    L = sympy.Matrix([[2, 1], [1, 2]])
    _lam, Q = tl.eigen_descending(L)
    w = Q * sympy.Matrix([1, 2])
    a = tl.noisy_eval_loss(L, 10, 1, 8, 1, list(w))
    b = tl.noisy_eval_loss(L, 10, 1, 8, 1, [1, 2], w_in_eigenbasis=True)
    assert sympy.simplify(a - b) == 0


# ------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize("bad", [[[1, 2], [0, 1]], [[1, 0], [0, -1]], [[1, 2, 3]], [], [[1, 0], [0, 1.0 + 1e-3j]]])
def test_bad_lambda(bad):
    with pytest.raises(ValueError):
        tl.optimal_rank_r(bad, 5, 1)


def test_bad_parameters():
    with pytest.raises(ValueError, match="0 <= r <= d"):
        tl.optimal_rank_r(CASE_A, 5, 5)
    with pytest.raises(ValueError, match="N"):
        tl.optimal_rank_r(CASE_A, 0, 1)
    with pytest.raises(ValueError, match="N"):
        tl.gamma_matrix(CASE_A, 2.5)
    with pytest.raises(ValueError, match="shape"):
        tl.reduced_loss(sympy.eye(3), 1, CASE_A, 5)
    with pytest.raises(ValueError, match="length"):
        tl.noisy_eval_loss(CASE_A, 5, 1, 4, 0, [1, 2])
    with pytest.raises(ValueError, match="first r"):
        tl.rank_difference(CASE_A, 5, 1, 2, 4, 0, [1, 1, 0, 0])
    with pytest.raises(ValueError, match="r <= r'"):
        tl.rank_difference(CASE_A, 5, 2, 1, 4, 0, [1, 1, 0, 0])
    with pytest.raises(ValueError, match="sigma"):
        tl.noisy_eval_loss(CASE_A, 5, 1, 4, -1, [1, 1, 0, 0])


# ------------------------------------------------------------------------------------------ hypothesis


def _cayley(skew: list[int], d: int) -> sympy.Matrix:
    """Exact rational orthogonal matrix (I - S)(I + S)^{-1} from a skew-symmetric integer S."""
    S = sympy.zeros(d)
    k = 0
    for i in range(d):
        for j in range(i + 1, d):
            S[i, j] = sympy.Rational(skew[k], 3)
            S[j, i] = -S[i, j]
            k += 1
    return (sympy.eye(d) - S) * (sympy.eye(d) + S).inv()


@st.composite
def lsa_problems(draw):
    d = draw(st.integers(1, 3))
    eig = draw(st.lists(st.integers(1, 60), min_size=d, max_size=d, unique=True))
    eig = sorted((sympy.Rational(e, 6) for e in eig), reverse=True)
    skew = draw(st.lists(st.integers(-4, 4), min_size=d * (d - 1) // 2, max_size=d * (d - 1) // 2))
    Q = _cayley(skew, d)
    N = draw(st.integers(1, 500))
    r = draw(st.integers(0, d))
    return Q * sympy.diag(*eig) * Q.T, eig, Q, N, r, d


@settings(max_examples=15, deadline=None)
@given(lsa_problems(), st.lists(st.integers(-5, 5), min_size=9, max_size=9))
def test_closed_form_beats_random_rank_r(problem, entries):
    Lam, eig, _Q, N, r, d = problem
    opt = tl.optimal_rank_r(Lam, N, r)
    assert opt.reduced_loss == -sum((eig[i] ** 2 / opt.T[i] for i in range(r)), sympy.Integer(0)) / 2
    assert sympy.simplify(tl.reduced_loss(opt.U, 1, Lam, N) - opt.reduced_loss) == 0
    # random rank-<=r competitor U = a b^T summed r times, with its optimal u
    if r == 0:
        return
    a = sympy.Matrix(d, 1, entries[:d])
    b = sympy.Matrix(d, 1, entries[3 : 3 + d])
    U = a * b.T
    if r > 1:
        U = U + sympy.Matrix(d, 1, entries[6 : 6 + d]) * a.T
    G = tl.gamma_matrix(Lam, N)
    den = (G * Lam * U * Lam * U.T).trace()
    if den == 0:
        return
    u = (Lam * Lam * U.T).trace() / den
    assert tl.reduced_loss(U, u, Lam, N) >= opt.reduced_loss


@settings(max_examples=10, deadline=None)
@given(lsa_problems(), st.lists(st.integers(-5, 5), min_size=9, max_size=9), st.integers(1, 5))
def test_excess_identity_hypothesis(problem, entries, u):
    Lam, eig, Q, N, _r, d = problem
    U = sympy.Matrix(d, d, entries[: d * d]) / 3
    # on the eigenbasis the identity reads (D.3): 1/2 sum_ij T_i lambda_i lambda_j (V_ij - delta_ij/T_i)^2
    V = u * Q.T * U * Q
    T = tl.t_values(eig, N)
    rhs = (
        sum(
            (T[i] * eig[i] * eig[j] * (V[i, j] - (1 / T[i] if i == j else 0)) ** 2 for i in range(d) for j in range(d)),
            sympy.Integer(0),
        )
        / 2
    )
    _, lmin = tl.full_rank_optimum(Lam, N)
    assert sympy.simplify(tl.reduced_loss(U, u, Lam, N) - lmin - rhs) == 0


@settings(max_examples=15, deadline=None)
@given(lsa_problems(), st.integers(1, 64), st.integers(0, 3), st.lists(st.integers(-3, 3), min_size=3, max_size=3))
def test_thm543_nonnegative(problem, M, sigma, s):
    Lam, _eig, _Q, N, r, d = problem
    c = [s[i] if i < r else 0 for i in range(d)]
    for r2 in range(r, d + 1):
        diff = tl.rank_difference(Lam, N, r, r2, M, sigma, c, w_in_eigenbasis=True)
        assert diff >= 0
        assert (
            sympy.simplify(
                diff
                - (
                    tl.noisy_eval_loss(Lam, N, r2, M, sigma, c, w_in_eigenbasis=True)
                    - tl.noisy_eval_loss(Lam, N, r, M, sigma, c, w_in_eigenbasis=True)
                )
            )
            == 0
        )


@settings(max_examples=15, deadline=None)
@given(lsa_problems())
def test_limit_relative_error_rotated(problem):
    """Oracle: v_i* = q_i^T Gamma^{-1} q_i, with Gamma of Lemma 5.1 built and inverted here in exact rationals and
    q_i the (rational, Cayley) eigenvectors; Lambda is rotated, so the eigen-decomposition is exercised too."""
    Lam, eig, Q, N, _r, d = problem
    G = (1 + sympy.Rational(1, N)) * Lam + Lam.trace() / N * sympy.eye(d)
    Ginv = G.inv()
    expected = [abs(eig[i] * (Q[:, i].T * Ginv * Q[:, i])[0, 0] - 1) for i in range(d)]
    assert tl.limit_relative_error(Lam, N) == expected


# ------------------------------------------------------------------------------------------ issue 32: hostile input

_E = sympy.Matrix([[1, 2, 3], [1, 2, 0]])
_WPV, _WKQ = sympy.Matrix([[5, 7], [2, 3]]), sympy.Matrix([[1, 4], [2, 6]])
_PROMPT_FUNCTIONS = [tl.lsa_output, tl.corrected_prediction, tl.expanded_prediction]


@pytest.mark.parametrize("f", _PROMPT_FUNCTIONS)
@pytest.mark.parametrize("rho", [0, float("nan"), float("inf"), sympy.zoo, "2"])
def test_the_prompt_functions_refuse_a_bad_rho(f, rho):
    """rho = 0 returned zoo, rho = nan returned nan, rho = inf returned 0."""
    with pytest.raises(ValueError) as info:
        f(_E, _WPV, _WKQ, rho)
    assert info.value.param == "rho"


@pytest.mark.parametrize("f", _PROMPT_FUNCTIONS)
@pytest.mark.parametrize(
    "kwargs,param",
    [
        ({"E": -1}, "E"),  # AttributeError: 'int' object has no attribute 'rows'
        ({"E": "abc"}, "E"),
        ({"E": []}, "E"),
        ({"WPV": float("nan")}, "WPV"),  # a NaN prediction
        ({"WKQ": sympy.Matrix([[1, float("inf")], [2, 6]])}, "WKQ"),
        ({"WKQ": sympy.eye(3)}, "WKQ"),
        ({"E": sympy.zeros(100, 30), "WPV": sympy.zeros(100, 100), "WKQ": sympy.zeros(100, 100)}, "E"),
    ],
)
def test_the_prompt_functions_refuse_bad_matrices(f, kwargs, param):
    args = {"E": _E, "WPV": _WPV, "WKQ": _WKQ, "rho": 2} | kwargs
    with pytest.raises(ValueError) as info:
        f(**args)
    assert info.value.param == param


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: tl.reduced_loss([[1, 0], [0, 1]], float("nan"), CASE_A[:2, :2], 2), "u"),
        (lambda: tl.noisy_eval_loss(CASE_A, 5, 1, 4, float("nan"), [1, 1, 0, 0]), "sigma"),
        (lambda: tl.noisy_eval_loss(CASE_A, 5, 1, 4, sympy.I, [1, 1, 0, 0]), "sigma"),
        (lambda: tl.noisy_eval_loss(CASE_A, 5, 1, 4, 0, [1, 1, 0, float("inf")]), "w"),
        (lambda: tl.noisy_eval_loss(CASE_A, 5, 1, 4, 0, [1, 1, 0, 0], w_in_eigenbasis="yes"), "w_in_eigenbasis"),
        (lambda: tl.optimal_rank_r([[float("nan"), 0], [0, 1]], 2, 1), "Lambda"),
        (lambda: tl.t_values([sympy.nan, 1], 2), "lam"),
        (lambda: tl.is_exact("abc"), "m"),  # AttributeError: 'str' object has no attribute 'has'
        (lambda: tl.reduced_loss([[1] * 10**6] * 2, 1, [[2, 0], [0, 1]], 2), "U"),  # shape checked first
    ],
)
def test_bad_values_are_refused_naming_the_parameter(call, param):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: tl.lemma51_moments(4), "d"),
        (lambda: tl.eq52_residuals(1, 10**9), "n"),
        (lambda: tl.t_values([1] * 65, 2), "lam"),
        (lambda: tl.as_covariance([[0] * 10**6] * 10**6), "Lambda"),  # 10^12 entries: sized before being read
        (lambda: tl.excess_loss_frobenius([[1, 0], [0, 1]], 1, [[2, 0], [0, 1]], 10**1001), "N"),
    ],
)
def test_sizes_are_refused_before_the_work(call, param):
    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 1.0 and info.value.param == param
    assert str(info.value).startswith(f"{param} = ")


def test_a_sign_sympy_cannot_decide_is_evaluated_with_enough_digits():
    """A 150-digit entry made optimal_rank_r raise "cannot determine truth value of Relational" (the gap between two
    radicals cancels to ~1e-150 at sympy's default precision)."""
    opt = tl.optimal_rank_r([[10**150 + 7, 1], [1, 2]], 3, 1)
    assert opt.unique and opt.r == 1 and sympy.N(opt.loss, 20) > 0
