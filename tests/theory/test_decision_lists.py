"""Exact decision-list theory (Karp thesis Ch. 4): the task, the assumptions' delta, L_0, the proof algebra, the
gradient identities and the first step of V, against brute force over every n-subset (independent oracles)."""

from __future__ import annotations

import itertools
import math
import random
import time
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import decision_lists as td
from theory._checks import InputError, LimitError


def _subsets(L: int, n: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations(range(L), n))


def _ldt_brute(task: td.DecisionListTask, s, a: int) -> int:
    for t in task.lists[a]:
        if t in s:
            return t
    raise AssertionError("a is always in its own list")


# --- the task and bad input


def test_cyclic_task_is_fig41_on_ZL():
    task = td.cyclic_task(200)
    assert task.perm[0] == 20 and task.perm[190] == 10
    assert task.lists[195] == (5, 15, 25, 195)
    assert task.M == 4 and task.inverse[task.perm[7]] == 7


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: td.DecisionListTask((0, 1, 2), ((0,), (2,), (2,))), "must end in its own token 1"),
        (lambda: td.DecisionListTask((0, 1, 2), ((1, 1, 0), (1,), (2,))), "repeats a token"),
        (lambda: td.DecisionListTask((0, 0, 2), ((0,), (1,), (2,))), "permutation"),
        (lambda: td.DecisionListTask((0, 1, 2), ((5, 0), (1,), (2,))), "outside the vocabulary"),
        (lambda: td.DecisionListTask((0, 1, 2), ((), (1,), (2,))), "empty"),
        (lambda: td.cyclic_task(20), "distinct and nonzero mod L"),
        (lambda: td.check_sequence(5, (1, 2, 2)), "Assumption 4.1"),
        (lambda: td.check_sequence(5, (1, 7)), "outside the vocabulary"),
        (lambda: td.check_sequence_length(5, 6), "n = 6 exceeds the vocabulary size L = 5"),
        (lambda: td.event_probability(5, 6, [0], [1]), "1 <= n <= L"),
        (lambda: td.initial_loss(10, 11, 3), "exceeds the vocabulary"),
        (lambda: td.one_step_v_classes(60, 5, 1), "L > 60"),
        (lambda: td.labels(td.cyclic_task(100), (3, 4, 3)), "repeats tokens"),
        (lambda: td.random_task(4, 5, 0), "at most L"),
        (lambda: td.delta_a43(td.cyclic_task(100)), "exactly one of n"),
        (lambda: td.lambda_max_leading(1, 1), "L must be an integer >= 2"),
        (lambda: td.thm43_step_budget(1, 1, 1, Fraction(1, 2)), "L must be an integer >= 2"),
        (lambda: td.thm43_step_budget(8, 3, 3, 0), r"delta must lie in \(0, 1\]"),
        (lambda: td.thm43_c(3, 8, 0), r"delta must lie in \(0, 1\]"),
        (lambda: td.thm43_c(3, 8, Fraction(-1, 4)), r"delta must lie in \(0, 1\]"),
        (lambda: td.thm43_c(3, 8, 2), r"delta must lie in \(0, 1\]"),
        (lambda: td.thm43_c(3, 1, Fraction(1, 2)), r"L must lie in \[2, oo\)"),
        (lambda: td.thm44_c(3, Fraction(1, 2), 0, 2, 1), r"eps must lie in \(0, oo\)"),
        (lambda: td.thm44_c(3, 0, 1, 2, 1), r"delta must lie in \(0, 1\]"),
        (lambda: td.thm44_c(3, Fraction(1, 2), 1, 2, Fraction(1, 2)), r"Lbar must lie in \[1, oo\)"),
        (lambda: td.thm44_notin_S_bound(3, -1), r"eps must lie in \[0, oo\)"),
        (lambda: td.thm44_in_S_bound(3, 10, 1, Fraction(3, 2)), r"p must lie in \[0, 1\]"),
        (lambda: td.thm43_in_S_bound_printed(10, -0.1), r"p must lie in \[0, 1\]"),
        (lambda: td.event_probability(8, 3, [9], []), r"vocabulary range\(0, 8\)"),
        (lambda: td.event_probability(8, 3, [0], [-1]), r"vocabulary range\(0, 8\)"),
    ],
)
def test_bad_input_raises_a_clear_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), L=st.integers(3, 9), data=st.data())
def test_labels_follow_the_first_present_list_entry(seed, L, data):
    task = td.random_task(L, min(L, 4), seed, min_length=1)
    n = data.draw(st.integers(1, L))
    seq = tuple(random.Random(seed).sample(range(L), n))
    ys = td.labels(task, seq)
    for a, y in zip(seq, ys):
        assert y == task.perm[_ldt_brute(task, set(seq), a)]


# --- probabilities and the assumptions


@pytest.mark.parametrize(("L", "n"), [(6, 2), (7, 3), (8, 5)])
def test_event_probability_equals_counting(L, n):
    subsets = _subsets(L, n)
    for inside, outside in [((0,), ()), ((0, 1), (2,)), ((1, 2, 3), (0, 4)), ((0,), (0,))]:
        count = sum(1 for s in subsets if set(inside) <= set(s) and not set(outside) & set(s))
        assert td.event_probability(L, n, inside, outside) == Fraction(count, len(subsets))


def _law(L: int, n: int, seed: int) -> dict[frozenset[int], Fraction]:
    rng = random.Random(seed)
    w = {frozenset(s): rng.randint(0, 3) for s in _subsets(L, n)}
    w[frozenset(range(n))] += 1
    total = sum(w.values())
    return {s: Fraction(x, total) for s, x in w.items()}


def _delta43_brute(task, law) -> Fraction:
    vals = []
    for a in range(task.L):
        lst = task.lists[a]
        for k, b in enumerate(lst):
            for c in range(task.L):
                if c in lst[: k + 1]:
                    continue
                p = sum((q for s, q in law.items() if {a, b, c} <= s and _ldt_brute(task, s, a) == b), Fraction(0))
                if p > 0:
                    vals.append(p)
    return min(vals)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delta_a43_and_a44_match_brute_force(seed):
    L, n = 6, 3
    task = td.random_task(L, 3, seed, min_length=1)
    uniform = {frozenset(s): Fraction(1, math.comb(L, n)) for s in _subsets(L, n)}
    assert td.delta_a43(task, n=n)[0] == _delta43_brute(task, uniform) == td.delta_a43(task, law=uniform)[0]
    law = _law(L, n, seed)
    assert td.delta_a43(task, law=law)[0] == _delta43_brute(task, law)
    assert td.delta_a44(L, law=law) == min(p for p in law.values() if p > 0)
    assert td.delta_a44(L, n=n) == Fraction(1, math.comb(L, n))


def test_fig41_delta_is_three_in_two_out():
    task = td.cyclic_task(200)
    delta, (a, b, c) = td.delta_a43(task, 25)
    assert delta == Fraction(math.comb(195, 22), math.comb(200, 25))
    assert b == task.lists[a][2] and c not in task.lists[a]


def test_delta_a42_on_a_hand_example():
    # L = 4, n = 2, L_0 = (1, 0): a model that always misclassifies token 0 gives k* = 1 and S = {{0, 1}}
    task = td.DecisionListTask((0, 1, 2, 3), ((1, 0), (1,), (2,), (3,)))
    law = {frozenset(s): Fraction(1, 6) for s in _subsets(4, 2)}
    delta, per = td.delta_a42(task, law, lambda a, s: a == 0)
    assert per == {0: (1, Fraction(1, 6))} and delta == Fraction(1, 6)
    assert td.delta_a42(task, law, lambda a, s: False) == (None, {})


def test_misclassified_cp_is_the_strict_argmax_of_the_ldt_column():
    task = td.DecisionListTask((1, 2, 0), ((1, 0), (1,), (2,)))
    W = [[0, 0, 0], [Fraction(1, 2), 1, 0], [Fraction(1, 2), 0, 1]]  # columns 1, 2 classify their tokens
    assert not td.misclassified_cp(task, W, (0, 1), 0)
    assert td.misclassified_cp(task, W, (0, 1, 2), 0)  # tie between tokens 1 and 2: an error
    sets = td.thm43_sets(task, W, 3)
    assert sets == {0: (1, [(0, 1, 2)])}


# --- L_0 and the proof algebra


@pytest.mark.parametrize(("L", "n", "c"), [(6, 3, 2), (5, 1, 3), (7, 4, 0)])
def test_initial_loss_equals_the_softmax_at_w0(L, n, c):
    # W = 0: p = 1_s/n; V = cP: logits c/n on the n labels of s, 0 on the other L - n
    z = [sympy.Rational(c, n)] * n + [0] * (L - n)
    direct = -sympy.log(sympy.exp(z[0]) / sum(sympy.exp(x) for x in z))
    assert sympy.simplify(direct - td.initial_loss(L, n, c)) == 0


@settings(max_examples=50, deadline=None)
@given(L=st.integers(2, 500), data=st.data())
def test_initial_loss_at_most_log_L(L, data):
    n = data.draw(st.integers(1, L))
    c = data.draw(st.floats(0, 1e4))
    assert float(td.initial_loss(L, n, c)) <= math.log(L) + 1e-12
    assert float(td.initial_loss(L, n, c)) >= math.log(n) - 1e-12


def test_initial_loss_reference_values():
    # oracle: the cross-entropy of the logits z = c/n on the n labels of the sequence and 0 on the other L - n,
    # at the true label (one of the n): -z_y + log sum_j e^{z_j}
    z = [10 / 25] * 25 + [0.0] * 175
    ce = -z[0] + math.log(math.fsum(math.exp(v) for v in z))
    assert float(td.initial_loss(200, 25, 10)) == pytest.approx(ce, rel=1e-14)
    assert float(td.initial_loss(200, 25, 1000)) == pytest.approx(math.log(25), rel=1e-14)


def test_proof_algebra_holds_step_by_step():
    for printed, derived in td.thm43_algebra().values():
        assert sympy.simplify(printed - derived) == 0
    for printed, derived in td.thm44_algebra("corrected").values():
        assert sympy.simplify(printed - derived) == 0


def test_printed_six_eps_leaves_a_gap_of_six_eps_times_n_minus_one_over_n():
    S = td.ALGEBRA_SYMBOLS
    printed, derived = td.thm44_algebra("printed")["directional"]
    assert sympy.simplify(derived - printed - 6 * S["eps"] * (S["n"] - 1) / S["n"]) == 0


def test_thm44_threshold_matches_the_printed_simplification_numerically():
    n, delta, eps, M, Lbar = 5, Fraction(1, 10), Fraction(1, 2), 3, 2
    c = td.thm44_c(n, delta, eps, M, Lbar)
    lhs = c / (2 * n) - 2 * sympy.Rational(1, 2)
    rhs = (
        20 * Lbar * n / sympy.Rational(1, 10) * sympy.sqrt(6)
        + 30 * sympy.Rational(1, 2) * 10
        + sympy.Rational(1, 5)
        - 1
    )
    assert sympy.simplify(lhs - rhs) == 0


def _column_block_top_eigenvalue(L: int, n: int) -> sympy.Expr:
    """(1/n^4) x top eigenvalue of E[1{a in s}(I_s - 1_s 1_s^T / n)] for column a = 0, by enumeration."""
    subsets = [s for s in _subsets(L, n) if 0 in s]
    M = sympy.zeros(L, L)
    for s in subsets:
        for i in s:
            M[i, i] += 1
            for j in s:
                M[i, j] -= sympy.Rational(1, n)
    M = M / math.comb(L, n)
    return max(M.eigenvals()) / n**4


@pytest.mark.parametrize(("L", "n"), [(5, 2), (6, 3), (7, 3)])
def test_lambda_max_leading_is_the_top_eigenvalue_of_the_column_block(L, n):
    assert sympy.nsimplify(_column_block_top_eigenvalue(L, n)) == sympy.Rational(
        *td.lambda_max_leading(L, n).as_integer_ratio()
    )


def test_step_budget_at_fig41():
    delta, _ = td.delta_a43(td.cyclic_task(200), 25)
    budget = float(td.thm43_step_budget(200, 25, 4, delta))
    c = float(td.thm43_c(25, 200, delta))
    assert c == pytest.approx(9.5914e6, rel=1e-4)
    assert budget == pytest.approx(32 * 4 * float(td.lambda_max_leading(200, 25)) * c**2 / math.log(200), rel=1e-12)


# --- gradient identities (40 digits) against an independent sympy differentiation


def test_column_gradient_equals_symbolic_differentiation():
    rng = random.Random(3)
    L, seq, a = 4, (0, 2, 3), 2
    task = td.DecisionListTask((1, 2, 3, 0), ((3, 0), (1,), (0, 2), (3,)))
    Wv = [[Fraction(rng.randint(-8, 8), 4) for _ in range(L)] for _ in range(L)]
    Vv = [[Fraction(rng.randint(-8, 8), 4) for _ in range(L)] for _ in range(L)]
    w = sympy.symbols(f"w0:{L}")
    col = {i: w[i] for i in range(L)}
    e = {i: sympy.exp(col[i]) for i in seq}
    p = [e[i] / sum(e.values()) if i in seq else 0 for i in range(L)]
    z = [sum(sympy.Rational(Vv[r][k]) * p[k] for k in range(L)) for r in range(L)]
    y = td.labels(task, seq)[seq.index(a)]
    loss = -(z[y] - sympy.log(sum(sympy.exp(x) for x in z)))
    point = {w[i]: sympy.Rational(Wv[i][a]) for i in range(L)}
    p_num = td.attention_column(Wv, seq, a)
    sigma = td.output_probs(Vv, p_num)
    formula = td.grad_w_column(Vv, p_num, sigma, y)
    for k in range(L):
        assert abs(sympy.N(sympy.diff(loss, w[k]).subs(point), 30) - formula[k]) < 1e-25
    assert float(formula[1]) == 0.0  # token 1 is not in the sequence


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_cp_form_and_directional_derivative_agree_with_the_general_formula(seed):
    rng = random.Random(seed)
    L, n, c = 6, 3, 3
    task = td.random_task(L, 3, seed, min_length=1)
    W = [[Fraction(rng.randint(-8, 8), 8) for _ in range(L)] for _ in range(L)]
    V = [[Fraction(c) if task.perm[k] == r else 0 for k in range(L)] for r in range(L)]
    seq = tuple(rng.sample(range(L), n))
    for a in seq:
        u = td.label_determining_token(task, seq, a)
        p = td.attention_column(W, seq, a)
        sigma = td.output_probs(V, p)
        general = td.grad_w_column(V, p, sigma, task.perm[u])
        special = td.grad_w_column_cp(c, task.perm, p, sigma, u, seq)
        assert all(abs(g - s) < 1e-30 for g, s in zip(general, special))
        # v = indicator of L_a up to u: the tokens before u are absent, so <grad, v> is the u-entry (/n)
        d = td.directional_derivative_cp(c, n, task.perm, p, sigma, u, seq)
        assert abs(d - general[u] / n) < 1e-30


def test_gradient_identities_take_exact_irrational_entries_and_refuse_symbols():
    # regression: sympy.Float(log(2), 40) raised TypeError; such entries are now evaluated to DIGITS digits first
    W = [[0, 0, 0], [sympy.log(2), 0, 0], [0, 0, 0]]
    p = td.attention_column(W, (0, 1, 2), 0)
    assert all(abs(x - q) < 1e-38 for x, q in zip(p, (0.25, 0.5, 0.25)))
    sigma = td.output_probs([[sympy.sqrt(2)] * 3] * 3, p)
    assert all(abs(x - sympy.Rational(1, 3)) < 1e-38 for x in sigma)
    with pytest.raises(ValueError, match="symbolic expression t"):
        td.attention_column([[0, 0], [sympy.Symbol("t"), 0]], (0, 1), 0)


def test_attention_jacobian_rows_sum_to_zero_and_vanish_outside():
    W = [[Fraction(i * j % 5, 3) for j in range(5)] for i in range(5)]
    p = td.attention_column(W, (0, 3, 4), 3)
    J = td.attention_jacobian(p, (0, 3, 4))
    assert all(abs(sum(J[i][k] for i in range(5))) < 1e-35 for k in range(5))
    assert all(float(J[i][k]) == 0.0 for i in range(5) for k in (1, 2))
    assert all(float(J[1][k]) == 0.0 for k in range(5))


# --- Fig. 4.1: the first step of V


def _one_step_brute(task: td.DecisionListTask, n: int, eta: Fraction) -> list[list[Fraction]]:
    L = task.L
    subsets = _subsets(L, n)
    N = [[Fraction(0)] * L for _ in range(L)]
    for s in subsets:
        for y in td.labels(task, s):
            for t in s:
                N[y][t] += Fraction(1, len(subsets))
    return [[eta / n**2 * N[r][t] - eta / L**2 for t in range(L)] for r in range(L)]


@pytest.mark.parametrize(("L", "n", "seed"), [(7, 3, 0), (8, 4, 1), (6, 2, 2)])
def test_one_step_v_equals_brute_force_over_every_subset(L, n, seed):
    task = td.random_task(L, 3, seed, min_length=1)
    assert td.one_step_v(task, n, L**2) == _one_step_brute(task, n, Fraction(L**2))


@pytest.mark.parametrize(("L", "n"), [(61, 3), (64, 5), (80, 2), (100, 9)])
def test_four_class_closed_form_equals_the_enumeration(L, n):
    task = td.cyclic_task(L)
    V = td.one_step_v(task, n, L**2)
    classes = td.one_step_v_classes(L, n, L**2)
    assert all(V[r][t] == classes[td.entry_class(task, r, t)] for r in range(L) for t in range(L))
    assert classes["P"] == Fraction(L, n) - 1 and classes["generic"] == -Fraction(L - n, n * (L - 1))


def test_fig41_reference_values():
    """Fig. 4.1's setting (L = 200, n = 25, eta = L^2): the four class values equal the enumeration of V_1 - V_0 over
    every entry (one_step_v, itself checked against the brute force over subsets above); P and generic also
    equal their closed forms L/n - 1 and -(L - n)/(n (L - 1))."""
    L, n = 200, 25
    task = td.cyclic_task(L)
    v = td.one_step_v_classes(L, n, L**2)
    V = td.one_step_v(task, n, L**2)
    assert all(V[r][t] == v[td.entry_class(task, r, t)] for r in range(L) for t in range(L))
    assert {td.entry_class(task, r, t) for r in range(L) for t in range(L)} == set(v)
    assert v["P"] == 7 and v["generic"] == Fraction(-175, 25 * 199)
    assert float(v["shift"]) == pytest.approx(0.6296287953, rel=1e-9)  # regression pins of the values above
    assert float(v["antishift"]) == pytest.approx(-0.6999805541, rel=1e-9)


def test_printed_fig41_rule_leaves_the_vocabulary():
    one = td.printed_fig41_values(200, True)
    zero = td.printed_fig41_values(200, False)
    assert one["pi"] == [(181, 0)] and zero["pi"] == [(180, 200)]
    assert len(one["list"]) == 3 and len(zero["list"]) == 3


def test_cyclic_summary_collects_the_fig41_quantities():
    out = td.cyclic_summary(200, 25)
    assert out["delta_a43"] == Fraction(math.comb(195, 22), math.comb(200, 25))
    assert out["delta_a44"] == Fraction(1, math.comb(200, 25))
    assert out["one_step_v_at_eta_L2"]["P"] == 7
    assert float(out["L0_at_thm43_c"]) == pytest.approx(math.log(25), rel=1e-12)
    assert "one_step_v_at_eta_L2" not in td.cyclic_summary(40, 5)


def test_constants_accept_symbols_but_check_numbers():
    n, delta, eps = sympy.symbols("n delta eps", positive=True)
    assert td.thm43_c(n, 8, delta) == 4 * n**2 * sympy.log(8) / delta
    assert td.thm44_c(3, delta, eps, 2, 1).has(eps)
    assert td.thm43_c(3, 8, 1) == 36 * sympy.log(8)


@settings(max_examples=30, deadline=None)
@given(c=st.integers(1, 100), n=st.integers(1, 30), num=st.integers(0, 100))
def test_thm43_in_S_bounds_printed_is_n_times_derived_and_eps_zero_of_thm44(c, n, num):
    p = Fraction(num, 100)
    derived = td.thm43_in_S_bound(n, c, p)
    assert derived == -sympy.Rational(c) * sympy.Rational(p.numerator, p.denominator) * (1 - sympy.Rational(p)) / (
        2 * n
    )
    assert td.thm43_in_S_bound_printed(c, p) == n * derived
    assert td.thm44_in_S_bound(n, c, 0, p) == derived


def test_lemma41_printed_drift_bound_is_what_the_proof_writes():
    # T eta = (lambda eps / (2 L)) (1 / lambda) = eps / (2 L): its printed bound eps/2 is the value at L = 1
    lam, eps, loss = sympy.symbols("lam eps loss", positive=True)
    t_eta = (lam * eps / (2 * loss)) * (1 / lam)
    assert td.lemma41_drift_bound_printed() == sympy.simplify(t_eta / eps).subs(loss, 1)


def test_printed_fig41_claim_counts_every_token():
    # the caption's claim: pi is a permutation of [L]; a correct rule on Z_L has every pi(i) in range(L)
    L = 200
    task = td.cyclic_task(L)
    assert td.printed_fig41_claimed_in_vocabulary(L) == sum(0 <= task.perm[i] < L for i in range(L))
    assert td.printed_fig41_claimed_in_vocabulary(L) != L - len(td.printed_fig41_values(L, True)["pi"])


# --- sizes checked before any work, bad values refused naming the parameter (issue 32)


def _refused(call, param):
    start = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert info.value.param == param and str(info.value).startswith(f"{param} = ")
    assert time.perf_counter() - start < 1.0, "the refusal must come before the work"
    return info.value


@pytest.mark.parametrize("L", [7, 61, 100, 200, 1000])
def test_cyclic_summary_at_theorem_43s_c_prints_without_the_huge_exact_power(L):
    """initial_loss at c = 4 n^2 log L / delta expanded exp(-c/n) = L^(-4n/delta) exactly: printing
    cyclic_summary(61, 3) raised 'Exceeds the limit (4300 digits)', (100, 3) took 8 s, (200, 3) more than 30 s."""
    start = time.perf_counter()
    out = td.cyclic_summary(L, 3)
    text = repr(out)
    assert time.perf_counter() - start < 2.0 and len(text) < 5000
    L0 = out["L0_at_thm43_c"]
    assert float(L0) == pytest.approx(math.log(3), rel=1e-15)
    # the same exact number: exp(-c/n) with c/n = (4n/delta) log L, unevaluated once L^(4n/delta) passes 4000 digits
    q = sympy.Integer(4 * 3) / sympy.Rational(out["delta_a43"].numerator, out["delta_a43"].denominator)
    if q * math.log10(L) <= 4000:
        assert sympy.log(3 + (L - 3) * sympy.Integer(L) ** -q) == L0
    else:
        (power,) = L0.atoms(sympy.exp)
        assert power.args[0] == -q * sympy.log(L) and L0.args[0].args[0] == 3


def test_initial_loss_keeps_the_expansion_below_the_digit_limit():
    assert td.initial_loss(7, 3, 6 * sympy.log(7)) == sympy.log(3 + sympy.Rational(4, 49))  # 7^-2: expanded as before
    big = td.initial_loss(7, 3, 3 * 10**6 * sympy.log(7))  # 7^-(10^6): 845,000 digits, kept as exp(-10^6 log 7)
    assert big.has(sympy.exp) and float(big) == pytest.approx(math.log(3))


def test_delta_a43_uniform_equals_the_scan_over_every_triple():
    """delta_a43 for uniform n-subsets looks only at the first triple of each event size: the same (delta, triple)."""
    for seed in range(60):
        rnd = random.Random(seed)
        L = rnd.randint(2, 8)
        m = rnd.randint(1, L)
        task = td.random_task(L, m, seed, min_length=rnd.randint(1, m))
        for n in range(1, L + 1):
            best = None
            for a, b, c, A, B in td._a43_triples(task):
                prob = td.event_probability(L, n, A, B)
                if prob > 0 and (best is None or prob < best[0]):
                    best = (prob, (a, b, c))
            if best is None:
                with pytest.raises(ValueError):
                    td.delta_a43(task, n)
            else:
                assert td.delta_a43(task, n) == best


def test_event_probability_needs_no_binomial_of_the_vocabulary():
    """C(L, n) of L = 10^9, n = 5 * 10^8 has 3 * 10^8 digits; the ratio has a + b factors."""
    L, n = 10**9, 5 * 10**8
    assert td.event_probability(L, n, [0, 1], [2]) == Fraction(n * (n - 1) * (L - n), L * (L - 1) * (L - 2))


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: td.cyclic_task(10**9), "L"),
        (lambda: td.cyclic_summary(10**9, 3), "L"),
        (lambda: td.cyclic_summary(20_000, 10_000), "n"),
        (lambda: td.delta_a44(10**9, 5 * 10**8), "n"),
        (lambda: td.random_task(10**5, 3, 0), "L"),
        (lambda: td.printed_fig41_values(10**9, True), "L"),
        (lambda: td.uniform_subsets(10**9, 2), "L"),
        (lambda: td.lambda_max_leading(10**1001, 10**1000), "n"),
        (lambda: td.thm43_step_budget(8, 3, 3, Fraction(1, 10**5000)), "delta"),
        (
            lambda: td.ldt_count_matrix(td.DecisionListTask(tuple(range(1001)), tuple((a,) for a in range(1001))), 2),
            "task",
        ),
        (lambda: td.attention_column([[0] * 448] * 448, (0, 1), 0), "W"),
    ],
)
def test_sizes_are_refused_before_the_work(call, param):
    _refused(call, param)


TASK = td.DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: td.entry_class(TASK, -1, 0), "r"),
        (lambda: td.entry_class(TASK, 10**9, 0), "r"),
        (lambda: td.ldt_event(TASK, -1, 0), "a"),
        (lambda: td.label_determining_token(TASK, (5,), 5), "a"),
        (lambda: td.label_determining_token(-1, (0,), 0), "task"),
        (lambda: td.misclassified_cp(TASK, [[float("inf")] * 3] * 3, (0, 1), 0), "W"),
        (lambda: td.misclassified_cp(TASK, [[0] * 3] * 2, (0, 1), 0), "W"),
        (lambda: td.grad_w_column([[0] * 3] * 3, [0.25, 0.5, 0.25], [0.5, 0.5], 1), "sigma"),
        (lambda: td.grad_v_rows([0.25, 0.5, float("nan")], [0.25, 0.25, 0.5], 1), "p"),
        (lambda: td.attention_jacobian([0.5, float("nan")], (0, 1)), "p"),
        (lambda: td.directional_derivative_cp(3, 3, (1, 2, 0), [0.25] * 3, [0.25] * 3, 5, (0, 1)), "k_star"),
        (lambda: td.grad_w_column_cp(3, (1, 2, 2), [0.25] * 3, [0.25] * 3, 1, (0, 1)), "perm"),
        (lambda: td.one_step_v(TASK, 2, "1e999999999"), "eta"),
        (lambda: td.one_step_v_classes(61, 3, float("inf")), "eta"),
        (lambda: td.thm43_c(3, 8, "1e999999999"), "delta"),
        (lambda: td.initial_loss(6, 0.0, 2), "n"),
        (lambda: td.initial_loss(6, 3, float("nan")), "c"),
        (lambda: td.check_sequence(5, [1, float("inf")]), "seq"),
        (lambda: td.cyclic_task(7, perm_shift=2.5), "perm_shift"),
        (lambda: td.random_task(4, 2, float("inf")), "seed"),
        (lambda: td.delta_a44(3, law={frozenset({0, 1}): float("nan")}), "law"),
        (lambda: td.delta_a42(TASK, {frozenset({0, 1}): 1}, 5), "misclassified"),
        (lambda: td.printed_fig41_values(200, "yes"), "one_indexed"),
        (lambda: td.thm44_algebra(None), "s_notin_S_bound"),
    ],
)
def test_bad_values_are_refused_naming_the_parameter(call, param):
    """Negative indices answered silently, out-of-range ones raised IndexError, inf raised OverflowError, NaN
    propagated into the 40-digit identities, and '1e999999999' built a 10^9-digit integer."""
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param
