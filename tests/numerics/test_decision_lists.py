"""Float64 decision-list numerics (Karp thesis Ch. 4): forward pass, closed-form gradients against finite
differences, population GD, Monte Carlo against the exact values, brute-force delta."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import decision_lists as nd
from theory import decision_lists as td


def _random_instance(seed: int, L: int = 7, n: int = 3) -> tuple:
    rng = np.random.default_rng(seed)
    task = td.random_task(L, 3, seed, min_length=1)
    W, V = rng.normal(size=(L, L)), rng.normal(size=(L, L)) * 2
    S = nd.sample_sequences(L, n, 5, rng)
    return task, W, V, S, nd.labels_array(task, S)


def test_labels_match_theory_on_every_subset():
    task = td.random_task(8, 4, 3, min_length=1)
    S = nd.subsets_array(8, 3)
    assert [tuple(r) for r in nd.labels_array(task, S).tolist()] == [td.labels(task, s) for s in map(tuple, S)]


def test_forward_gives_distributions_supported_on_the_sequence():
    _task, W, V, S, _ = _random_instance(0)
    p, z, sig = nd.forward(W, V, S)
    assert np.allclose(p.sum(-1), 1) and np.allclose(sig.sum(-1), 1)
    outside = np.ones_like(p, dtype=bool)
    for b in range(len(S)):
        outside[b][:, S[b]] = False
    assert np.all(p[outside] == 0)
    assert np.allclose(z, p @ V.T)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_closed_form_gradients_match_finite_differences(seed):
    _task, W, V, S, Y = _random_instance(seed)
    gW, gV = nd.closed_form_gradients(W, V, S, Y)
    h = 1e-6
    for M, g, which in ((W, gW, 0), (V, gV, 1)):
        for idx in [(0, 1), (2, 2), tuple(S[0, :2]), (S[1, 0], S[1, 2])]:
            E = np.zeros_like(M)
            E[idx] = h
            args_p = (W + E, V) if which == 0 else (W, V + E)
            args_m = (W - E, V) if which == 0 else (W, V - E)
            fd = (nd.sequence_losses(*args_p, S, Y).mean() - nd.sequence_losses(*args_m, S, Y).mean()) / (2 * h)
            assert fd == pytest.approx(g[idx], abs=1e-7)


def test_gradient_of_tokens_outside_every_sequence_is_exactly_zero():
    _task, W, V, S, Y = _random_instance(1, L=9, n=3)
    S, Y = S[:2], Y[:2]
    gW, _ = nd.closed_form_gradients(W, V, S, Y)
    absent = sorted(set(range(9)) - set(S.ravel().tolist()))
    assert absent and np.all(gW[absent, :] == 0) and np.all(gW[:, absent] == 0)


def test_population_gd_orders_the_columns_and_decreases_the_loss():
    task = td.DecisionListTask(
        tuple((i + 3) % 8 for i in range(8)), tuple(((a + 1) % 8, (a + 2) % 8, a) for a in range(8))
    )
    hist = nd.population_gd_w(task, 3, 5.0, 0.4, 20)
    assert hist.first_perfect == 2 and hist.ordered[-1] == 1.0 and hist.accuracy[-1] == 1.0
    assert np.all(np.diff(hist.loss) < 0)
    assert hist.loss[0] == pytest.approx(float(td.initial_loss(8, 3, 5)), rel=1e-12)


def test_column_order_detects_a_misordered_pair():
    task = td.DecisionListTask((0, 1, 2), ((1, 0), (1,), (2,)))
    W = np.array([[0.5, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert nd.column_order_ok(W, task).tolist() == [True, True, True]
    W[2, 0] = 0.7  # token 2 (not in L_0) above a = 0 itself
    assert nd.column_order_ok(W, task).tolist() == [False, True, True]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_column_order_is_strict_against_the_pairwise_definition(seed):
    """column_order_ok against W[a_1, a] > ... > W[a_m, a] > W[b, a] for every b not in L_a, checked pair by pair,
    on matrices of small integers (ties, which the strict order rejects, are frequent)."""
    task = td.random_task(5, 3, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(200):
        W = rng.integers(0, 3, size=(5, 5)).astype(np.float64)
        want = []
        for a, lst in enumerate(task.lists):
            chain = [W[t, a] for t in lst]
            rest = [W[b, a] for b in range(5) if b not in lst]
            want.append(all(x > y for x, y in itertools.pairwise(chain)) and all(chain[-1] > r for r in rest))
        assert nd.column_order_ok(W, task).tolist() == want


def test_exact_float_step_matches_the_exact_fractions():
    task = td.cyclic_task(64)
    exact = td.one_step_v(task, 5, 64**2)
    got = nd.one_step_v_exact_float(task, 5, 64**2)
    assert np.max(np.abs(got - np.array(exact, dtype=float))) < 1e-10


def test_one_step_monte_carlo_agrees_with_the_closed_form():
    task = td.cyclic_task(64)
    mc = nd.one_step_v_mc(task, 5, 64**2, samples=4000, seed=1)
    exact = td.one_step_v_classes(64, 5, 64**2)
    for k in td.ENTRY_CLASSES:
        if mc[k]["se"] == 0:
            assert k == "P" and mc[k]["mean"] == pytest.approx(float(exact[k]), rel=1e-12)
        else:
            assert abs(mc[k]["mean"] - float(exact[k])) <= 5 * mc[k]["se"]


def test_event_probability_monte_carlo_agrees_with_the_hypergeometric_value():
    est, se = nd.event_probability_mc(30, 6, [0, 5, 1], [2, 3], samples=4000, seed=2)
    exact = float(td.event_probability(30, 6, [0, 5, 1], [2, 3]))
    assert se > 0 and abs(est - exact) <= 5 * se


def test_brute_force_delta_matches_theory():
    task = td.random_task(6, 3, 5, min_length=2)
    law = {frozenset(s): Fraction(1, math.comb(6, 3)) for s in td.uniform_subsets(6, 3)}
    assert nd.brute_force_delta_a43(task, law) == td.delta_a43(task, n=3)[0]
    assert nd.brute_force_delta_a44(law) == td.delta_a44(6, n=3)


def test_directional_derivatives_in_S_equal_the_exact_expression():
    L, n, c = 7, 3, 3.0
    task = td.random_task(L, 3, 4, min_length=1)
    rng = np.random.default_rng(4)
    Wf = np.round(rng.normal(size=(L, L)) * 16) / 16
    W = [[Fraction(x).limit_denominator(16) for x in row] for row in Wf]
    S = nd.subsets_array(L, n)
    sets = td.thm43_sets(task, W, n)
    assert sets
    for a, (k_star, seqs) in sets.items():
        info = nd.notin_S_directional(task, Wf, c * nd.permutation_matrix(task), S, a)
        assert info["k_star"] == k_star
        rows = S[(a == S).any(axis=1)]
        assert [tuple(r) for r in rows[info["in_S"]].tolist()] == seqs
        V = [[Fraction(3) if task.perm[k] == r else 0 for k in range(L)] for r in range(L)]
        for s, d in zip(seqs, info["values"][info["in_S"]]):
            p = td.attention_column(W, s, a)
            exact = td.directional_derivative_cp(3, n, task.perm, p, td.output_probs(V, p), k_star, s)
            assert d == pytest.approx(float(exact), abs=1e-13)
            assert d <= -c / (2 * n) * float(p[k_star]) * (1 - float(p[k_star]))


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: nd.check_sequences(5, np.array([[0, 1, 1]])), "Assumption 4.1"),
        (lambda: nd.check_sequences(5, np.array([[0, 9]])), "range"),
        (lambda: nd.sample_sequences(4, 5, 3, np.random.default_rng(0)), "exceeds the vocabulary"),
        (lambda: nd.subsets_array(3, 4), "exceeds the vocabulary"),
        (lambda: nd.population_gd_w(td.cyclic_task(70), 3, -1.0, 0.1, 3), "c > 0"),
        (lambda: nd.one_step_v_mc(td.cyclic_task(70), 3, 1.0, 1, 0), "samples"),
        (lambda: nd.event_probability_mc(8, 3, [9], [], 10, 0), r"vocabulary range\(0, 8\)"),
        (lambda: nd.event_probability_mc(8, 3, [0], [-1], 10, 0), r"vocabulary range\(0, 8\)"),
    ],
)
def test_bad_input_raises_a_clear_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_float_minimum_over_triples_matches_the_exact_delta():
    for task, n in [(td.cyclic_task(200), 25), (td.random_task(9, 4, 3, min_length=1), 4)]:
        exact, _ = td.delta_a43(task, n)
        value, (a, b, c) = nd.a43_min_event_float(task, n)
        assert value == pytest.approx(float(exact), rel=1e-9)
        A, B = td.ldt_event(task, a, b)
        assert td.event_probability(task.L, n, A | {c}, B) == exact


def test_token_directional_matches_the_per_sequence_gradients_and_its_v_gradient_matches_differences():
    rng = np.random.default_rng(3)
    task = td.random_task(7, 3, 2, min_length=1)
    S = nd.subsets_array(7, 3)
    W = rng.normal(size=(7, 7))
    V = 3 * nd.permutation_matrix(task) + rng.uniform(-1, 1, size=(7, 7))
    seen = 0
    for a in range(7):
        ref, info = nd.notin_S_directional(task, W, V, S, a), nd.token_directional(task, W, V, S, a)
        if ref["k_star"] is None:
            assert info is None
            continue
        seen += 1
        assert info["k_star"] == ref["k_star"] and np.array_equal(info["in_S"], ref["in_S"])
        np.testing.assert_allclose(info["d"], ref["values"], atol=1e-13)
        assert np.all(info["d"][~info["nonzero"]] == 0.0)
        j = 0
        G = nd.directional_grad_v(V, info["p"][j], info["sigma"][j], info["q"][j], int(info["y"][j]), 3)
        h = 1e-6
        for r, t in [(0, 1), (int(info["y"][j]), 2), (4, 4)]:
            Vp, Vm = V.copy(), V.copy()
            Vp[r, t] += h
            Vm[r, t] -= h

            from_softmax = []
            for M in (Vp, Vm):
                z = M @ info["p"][j]
                sig = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
                from_softmax.append((M[info["y"][j]] - sig @ M) @ info["q"][j] / 3)
            assert G[r, t] == pytest.approx((from_softmax[0] - from_softmax[1]) / (2 * h), abs=1e-8)
    assert seen > 0


def test_adversarial_e_stays_in_the_box_and_does_not_lower_the_largest_derivative():
    task = td.random_task(8, 4, 5, min_length=3)
    S = nd.subsets_array(8, 3)
    W = np.random.default_rng(0).normal(size=(8, 8))
    E0 = np.zeros((8, 8))
    E, best = nd.adversarial_e(task, W, 4.5, 1.0, S, 6, E0)
    assert np.all(np.abs(E) <= 1.0)
    _, start = nd.adversarial_e(task, W, 4.5, 1.0, S, 0, E0)
    assert best >= start


# --- issue 32: no NaN for an empty class, sizes refused from their cost before any work


def test_one_step_monte_carlo_answers_none_for_an_empty_class():
    # Before the fix, cyclic_task(7) (every entry is P, a shift or an anti-shift) gave mean = se = NaN for the
    # generic class, with numpy divide warnings.
    import warnings

    task = td.cyclic_task(7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mc = nd.one_step_v_mc(task, 3, 49.0, 200, seed=0)
    assert mc["generic"] == {"mean": None, "se": None, "entries": 0}
    exact = np.array(td.one_step_v(task, 3, 49), dtype=float)
    for k, (r, t) in nd.class_indices(task).items():
        assert mc[k]["entries"] == len(r) > 0
        assert abs(mc[k]["mean"] - exact[r, t].mean()) <= 5 * mc[k]["se"] + 1e-12


def test_monte_carlo_sample_counts_are_capped_by_their_cost():
    # Before the fix, samples = 10**12 ran forever (or died in a MemoryError).
    from theory._checks import LimitError

    for call in (
        lambda s: nd.one_step_v_mc(td.cyclic_task(11), 4, 121.0, s, seed=0),
        lambda s: nd.event_probability_mc(7, 3, [0, 1], [2], s, seed=0),
        lambda s: nd.sample_sequences(7, 3, s, np.random.default_rng(0)),
    ):
        with pytest.raises(LimitError) as info:
            call(10**12)
        assert info.value.param in ("samples", "B") and str(info.value).startswith(f"{info.value.param} = ")
    with pytest.raises(LimitError, match="Monte-Carlo work") as info:  # 10^7 permutations of 200 tokens
        nd.one_step_v_mc(td.cyclic_task(200), 25, 1.0, 10**7, seed=0)
    assert info.value.param == "samples"


def test_enumerations_and_loops_are_sized_before_they_start():
    from theory._checks import LimitError

    with pytest.raises(LimitError) as info:  # C(10^9, 5 10^8) is never formed
        nd.subsets_array(10**9, 5 * 10**8)
    assert info.value.param == "n"
    with pytest.raises(LimitError) as info:
        nd.class_indices(td.cyclic_task(20_000))
    assert info.value.param == "task"
    with pytest.raises(LimitError) as info:
        nd.population_gd_w(td.random_task(5, 3, seed=0), 3, 4.0, 1.0, 10**9)
    assert info.value.param == "steps"


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: nd.forward(np.full((5, 5), np.nan), np.zeros((5, 5)), [[0, 1]]), "W"),
        (lambda: nd.check_sequences(5, [[0.0, np.nan]]), "S"),
        (lambda: nd.labels_array(None, [[0, 1]]), "task"),
        (lambda: nd.brute_force_delta_a44(-1), "law"),
        (lambda: nd.one_step_v_mc(td.cyclic_task(11), 4, 121.0, 100, seed=0, chunk=0), "chunk"),
        (
            lambda: nd.adversarial_e(
                td.random_task(5, 3, seed=0), np.zeros((5, 5)), 0.0, 0.1, [[0, 1, 2]], 1, np.zeros((5, 5))
            ),
            "c",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_parameter(call, param):
    from theory._checks import InputError

    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param
