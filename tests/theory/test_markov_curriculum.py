"""Prop. 8.5 / E.3 (Edelman thesis, App. E.1): the curriculum step's bilinear loss and the two-step limit."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import markov as tm
from theory._checks import InputError, LimitError

EPS = st.fractions(min_value=F(1, 100), max_value=F(49, 100))


def _brute_tensor(t: int, eps: F) -> list[list[list[sympy.Expr]]]:
    """Enumerate every sequence x_1..x_{t+1} of the chain P = [[a, 1-a], [1-a, a]] from pi = (1/2, 1/2), form
    T[j][m][l] = (1/t) sum_{p=j}^{t} sum_{t'=j}^{p} E[1{x_p = m} 1{x_{t'-j+1} = l} (1{x_t' = x_{p+1}} - 1/2)]
    (Eqs. (E.2), (E.8)) as a polynomial in a, and average it over a ~ U[1/2 - eps, 1/2 + eps]."""
    a = sympy.Symbol("a")
    P = [[a, 1 - a], [1 - a, a]]
    T = [[[sympy.Integer(0)] * 2 for _ in range(2)] for _ in range(t)]
    for x in itertools.product((0, 1), repeat=t + 1):
        prob = sympy.Rational(1, 2)
        for s in range(t):
            prob *= P[x[s]][x[s + 1]]
        for j in range(1, t + 1):
            for p in range(j, t + 1):
                for tp in range(j, p + 1):
                    m, l = x[p - 1], x[tp - j]
                    T[j - 1][m][l] += prob * ((1 if x[tp - 1] == x[p] else 0) - sympy.Rational(1, 2))
    lo, hi = sympy.Rational(1, 2) - sympy.Rational(eps), sympy.Rational(1, 2) + sympy.Rational(eps)
    return [
        [[sympy.integrate(sympy.expand(T[j][m][l]), (a, lo, hi)) / (hi - lo) / t for l in range(2)] for m in range(2)]
        for j in range(t)
    ]


@pytest.mark.parametrize(("t", "eps"), [(2, F(1, 4)), (3, F(1, 10)), (4, F(2, 5))])
def test_curriculum_tensor_by_enumerating_sequences(t: int, eps: F) -> None:
    assert tm.curriculum_tensor(t, eps) == _brute_tensor(t, eps)


@settings(max_examples=30, deadline=None)
@given(eps=EPS, n=st.integers(min_value=0, max_value=12))
def test_lambda_moment_is_the_uniform_moment(eps: F, n: int) -> None:
    lam = sympy.Symbol("lam")
    e = sympy.Rational(eps)
    assert tm.curriculum_lambda_moment(eps, n) == sympy.integrate(lam**n, (lam, -2 * e, 2 * e)) / (4 * e)


@settings(max_examples=20, deadline=None)
@given(eps=EPS, t=st.integers(min_value=2, max_value=30))
def test_curriculum_tensor_invariants(eps: F, t: int) -> None:
    """Symmetric with equal diagonal; a constant v moves no off-diagonal weight (sum_j (S_j - E[lambda^j] N_j) = 0);
    odd lags carry no diagonal bias (T_j11 = T_j12 for odd j)."""
    T = tm.curriculum_tensor(t, eps)
    assert all(b[0][0] == b[1][1] and b[0][1] == b[1][0] for b in T)
    assert sum(b[0][1] for b in T) == 0
    assert all(T[j - 1][0][0] == T[j - 1][0][1] for j in range(1, t + 1, 2))


def test_curriculum_limit_orders_in_eps() -> None:
    """beta = Theta(eps^4), the lag-4 coefficient Theta(eps^6) (Eq. (E.60)); Lambda = E[(a - 1/2)/(1 - a)]."""
    e = sympy.Symbol("e", positive=True)
    lim = tm.curriculum_limit(F(1, 4), 1, 1, 6, 8, js=(2, 4))
    lam = sympy.atanh(2 * e) / (2 * e) - 1
    assert sympy.series(lam, e, 0, 5).removeO() == sympy.Rational(4, 3) * e**2 + sympy.Rational(16, 5) * e**4
    a = sympy.Symbol("a")
    q = sympy.Rational(1, 4)
    direct = sympy.integrate(
        (a - sympy.Rational(1, 2)) / (1 - a), (a, sympy.Rational(1, 2) - q, sympy.Rational(1, 2) + q)
    )
    assert sympy.simplify((direct / (2 * q) - lam.subs(e, q)).rewrite(sympy.log)) == 0
    g = 1 * 6 * (tm.lemma84_closed_form("E.24") - tm.lemma84_closed_form("E.25")) / 6  # v_init c1 (B - A)/6
    assert sympy.simplify((lim["bigram"] - g * 64 * lam.subs(e, q) * q**2 / 48).rewrite(sympy.log)) == 0
    assert lim["lag4_over_bigram"] == sympy.Rational(12, 5) * q**2
    assert lim["W12"] == 0 and sympy.simplify(lim["v"][1] / lim["v"][0] - sympy.Rational(12, 5) * q**2) == 0


def test_curriculum_bad_input() -> None:
    with pytest.raises(InputError, match="eps must be a rational number in"):
        tm.curriculum_tensor(4, 0.25)
    with pytest.raises(InputError, match="eps must be a rational number in"):
        tm.curriculum_lambda_moment(F(1, 2), 2)
    with pytest.raises(LimitError):
        tm.curriculum_tensor(tm.MAX_CURRICULUM_T + 1, F(1, 4))
    with pytest.raises(InputError, match="v_init must be a nonzero"):
        tm.curriculum_limit(F(1, 4), 1, 0, 1, 1)
    with pytest.raises(InputError, match="c2 must be > 0"):
        tm.curriculum_limit(F(1, 4), 1, 1, 1, 0)
