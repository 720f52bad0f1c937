"""The constants of Theorem 4.4 and Lemma 4.1 run end to end (Karp thesis Ch. 4): the bound on L_0 over the box
||V_0 - cP||_inf <= eps/2 against a direct enumeration of every n-subset, the sufficient threshold, the step count and
Lemma 4.1's per-step bound against the exact gradients."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import decision_lists as td


def _loss_at_w0(task: td.DecisionListTask, n: int, V: list[list[float]]) -> float:
    """The population loss at W = 0 by direct enumeration (uniform attention over each n-subset)."""
    total, count = 0.0, 0
    for s in itertools.combinations(range(task.L), n):
        z = [sum(V[l][i] for i in s) / n for l in range(task.L)]
        zmax = max(z)
        lse = zmax + math.log(sum(math.exp(x - zmax) for x in z))
        for a in s:
            y = task.perm[next(t for t in task.lists[a] if t in s)]
            total += (lse - z[y]) / n
        count += 1
    return total / count


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), L=st.integers(2, 6), data=st.data())
def test_initial_loss_bound_holds_on_the_box(seed, L, data):
    n = data.draw(st.integers(1, L))
    c = data.draw(st.integers(0, 40))
    eps = Fraction(data.draw(st.integers(1, 40)), 8)
    task = td.random_task(L, L, seed)
    rng = random.Random(seed)
    V = [[c * (task.perm[i] == l) + float(eps) / 2 * rng.choice((-1, 1)) for i in range(L)] for l in range(L)]
    bound = float(td.thm44_initial_loss_bound(L, n, c, eps))
    assert _loss_at_w0(task, n, V) <= bound + 1e-12
    assert bound <= float(eps) + math.log(L) + 1e-12  # hence Lbar <= max{1, eps + log L}


def test_initial_loss_bound_is_attained_at_eps_to_zero():
    task = td.random_task(5, 3, seed=1)
    V = [[7.0 * (task.perm[i] == l) for i in range(5)] for l in range(5)]
    assert _loss_at_w0(task, 3, V) == pytest.approx(float(td.initial_loss(5, 3, 7)), rel=1e-12)
    assert float(td.thm44_initial_loss_bound(5, 3, 7, Fraction(1, 10**9))) == pytest.approx(
        float(td.initial_loss(5, 3, 7)), rel=1e-8
    )


@given(L=st.integers(2, 30), data=st.data())
def test_sufficient_c_dominates_the_threshold_at_every_admissible_lbar(L, data):
    n = data.draw(st.integers(1, L))
    M = data.draw(st.integers(1, L))
    eps = Fraction(data.draw(st.integers(1, 16 * 8 * M)), 8)
    delta = Fraction(1, math.comb(L, n))
    c = td.thm44_sufficient_c(L, n, delta, eps, M)
    for L0 in (0, sympy.log(n), td.initial_loss(L, n, 1) + eps, sympy.log(L) + eps):
        lbar = sympy.Max(1, L0)
        assert bool(c >= td.thm44_c(n, delta, eps, M, lbar))


def test_horizon_and_leading_term():
    kappa = td.lambda_max_leading(6, 3)
    assert td.thm44_horizon_leading(6, 3, 100, 2, 3) == td.thm44_horizon(
        sympy.Rational(kappa.numerator, kappa.denominator) * 100**2, 2, 3
    )
    lam, eps, lbar = sympy.symbols("lam eps Lbar", positive=True)
    T = td.thm44_horizon(lam, eps, lbar)
    assert sympy.simplify(T / lam - td.lemma41_bounds(eps, lbar)["drift"]) == 0  # Lemma 4.1: T eta


def test_lemma41_per_step_bound_against_exact_gradients():
    """|grad_V L| <= 1 entrywise (the proof of Lemma 4.1), on extreme parameters: the bound is approached when one
    token takes all the attention and a wrong label all the probability."""
    rng = random.Random(0)
    task = td.random_task(5, 3, seed=2)
    worst = 0.0
    for _ in range(6):
        W = [[Fraction(rng.randint(-64, 64), 4) for _ in range(5)] for _ in range(5)]
        V = [[Fraction(rng.randint(-64, 64), 4) for _ in range(5)] for _ in range(5)]
        s = rng.sample(range(5), 3)
        _, gV = td.sequence_gradients(task, W, V, s)
        worst = max(worst, max(abs(float(x)) for row in gV for x in row))
    assert worst <= float(td.lemma41_bounds(1, 1)["per_step_over_eta"])
    assert worst > 0.5  # the bound is not vacuous on these instances


def test_lemma41_bounds_values_and_order():
    b = td.lemma41_bounds(Fraction(1, 2), 3)
    assert b["drift"] == Fraction(1, 12) and b["v_deviation_proof"] == Fraction(1, 3)
    assert b["v_deviation_proof"] <= b["v_deviation"]


@pytest.mark.parametrize(
    ("fn", "args", "param"),
    [
        (td.thm44_initial_loss_bound, (3, 4, 1, 1), "n"),
        (td.thm44_initial_loss_bound, (3, 2, 1, 0), "eps"),
        (td.thm44_sufficient_c, (3, 2, 0, 1, 1), "delta"),
        (td.thm44_sufficient_c, (3, 2, Fraction(1, 3), 17, 1), "eps"),
        (td.thm44_sufficient_c, (1, 1, 1, 1, 1), "L"),
        (td.thm44_horizon, (0, 1, 1), "lam"),
        (td.thm44_horizon, (1, 1, Fraction(1, 2)), "Lbar"),
        (td.thm44_horizon_leading, (3, 2, 0, 1, 1), "c"),
        (td.lemma41_bounds, (-1, 1), "eps"),
    ],
)
def test_bad_input_names_the_parameter(fn, args, param):
    with pytest.raises(ValueError, match=param):
        fn(*args)
