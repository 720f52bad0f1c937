"""Exact checks of theory.parity's Lemma B.5 functions (Edelman thesis, App. B.2.1).

Oracles: enumeration of {+-1}^n (the mean hinge gradient at the mirrored initialisation), of the bias grid and sign
vectors (the per-pair probability), and of every outcome of a few pairs (the miss probability); expected values only
from brute force or from the printed formulas.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import parity as tp


def _brute_mean_gradient(n, k, w, u, b):
    """E_x over {+-1}^n of the hinge gradient of one neuron of a mirrored pair (f = 0, so l' = -y): -y u 1[w.x + b > 0]
    (x_j for w_j, 1 for b), exact."""
    gw, gb = [Fraction(0)] * n, Fraction(0)
    for x in itertools.product((1, -1), repeat=n):
        y = math.prod(x[:k])
        if sum(wi * xi for wi, xi in zip(w, x)) + b > 0:
            gw = [g - Fraction(y * u * xj) for g, xj in zip(gw, x)]
            gb -= y * u
    return [g / 2**n for g in gw], gb / 2**n


@pytest.mark.parametrize("n,k", [(5, 2), (7, 2), (7, 4), (9, 4)])
def test_first_step_gradient_is_the_bruteforce_mean(n, k):
    rng = random.Random(n * 10 + k)
    for _ in range(3):
        w = [rng.choice((-1, 1)) for _ in range(n)]
        u = rng.choice((-1, 1))
        for b in tp.thm55_bias_grid(k):
            g, gamma = tp.lemB5_first_step_gradient(n, k, w, u)
            assert (g, gamma) == _brute_mean_gradient(n, k, w, u, b)


def test_slot_biases_lie_on_the_grid():
    for k in (2, 4, 6, 8):
        assert set(tp.lemB5_slot_biases(k)) <= set(tp.thm55_bias_grid(k))


@pytest.mark.parametrize("k", [2, 4, 6])
def test_slot_probability_by_enumeration(k):
    grid = tp.thm55_bias_grid(k)
    for s in tp.lemB5_slot_biases(k):
        hits = sum(
            1
            for w in itertools.product((-1, 1), repeat=k)
            for u in (-1, 1)
            for b in grid
            if b == s and len(set(w)) == 1  # the pair (w, u), (w, -u) serves s: one of them has w = u sign xi on [k]
        )
        assert Fraction(hits, 2**k * 2 * len(grid)) == tp.lemB5_slot_probability(k)
    assert tp.lemB5_slot_probability_as_printed(k) == 2 * Fraction(1, 2 ** (k - 1)) * Fraction(1, 2 * k)


@pytest.mark.parametrize("k,r", [(2, 2), (2, 4), (2, 8), (4, 2), (4, 6), (4, 8)])
def test_miss_probability_by_enumerating_every_outcome(k, r):
    q = tp.lemB5_slot_probability(k)
    outcomes = [*range(k), None]  # each pair serves one slot or none
    prob = {j: q for j in range(k)} | {None: 1 - k * q}
    total = Fraction(0)
    for combo in itertools.product(outcomes, repeat=r // 2):
        if set(range(k)) - set(combo):
            total += math.prod((prob[c] for c in combo), start=Fraction(1))
    assert tp.lemB5_miss_probability(k, r) == total


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([2, 4]), st.integers(1, 60))
def test_miss_probability_falls_with_the_width(k, half):
    p, p2 = tp.lemB5_miss_probability(k, 2 * half), tp.lemB5_miss_probability(k, 2 * half + 2)
    assert 0 <= p2 <= p <= 1


@pytest.mark.parametrize("k,delta", [(2, "1/10"), (2, "1/4"), (4, "1/10"), (4, "2/5"), (6, "1/4")])
def test_widths_are_the_smallest_even_widths_meeting_their_conditions(k, delta):
    d = float(Fraction(delta))
    for corrected, factor in ((False, k * 2**k), (True, k * 2 ** (k + 1))):
        r = tp.lemB5_width(k, delta, corrected=corrected)
        bound = factor * math.log(k / d)
        assert r % 2 == 0 and r >= bound and r - 2 < bound


@pytest.mark.parametrize("k,delta", [(2, "1/10"), (2, "1/4"), (2, "2/5"), (4, "1/10"), (4, "1/4")])
def test_printed_width_misses_a_slot_more_often_than_delta_and_the_corrected_does_not(k, delta):
    r, rc = tp.lemB5_width(k, delta), tp.lemB5_width(k, delta, corrected=True)
    assert tp.lemB5_miss_bound_as_printed(k, r) <= Fraction(delta)  # the printed chain is consistent with itself
    assert tp.lemB5_miss_probability(k, r) > Fraction(delta)  # but its per-pair probability is too large
    assert tp.lemB5_miss_probability(k, rc) <= Fraction(delta)


@pytest.mark.parametrize("n,k,r,eps", [(5, 2, 30, "0.45"), (7, 2, 18, "0.25"), (9, 4, 178, "0.1")])
def test_thm55_batch_is_lemma_b5_batch_at_the_proofs_eps_and_delta(n, k, r, eps):
    e = Fraction(eps)
    assert tp.thm55_batch(n, k, r, eps) == tp.lemB5_batch(n, k, r, e / (64 * k**2 * n), e / 8)


@pytest.mark.parametrize("n,k,r", [(5, 2, 18), (9, 4, 178)])
def test_batch_is_the_smallest_integer_meeting_the_condition(n, k, r):
    tau = tp.lemB5_tau(n, k, "1/4")
    bound = 2 / tau**2 * math.log(4 * n * r / 0.25)
    B = tp.lemB5_batch(n, k, r, "1/4", "1/4")
    assert B >= bound > B - 1
    xi = abs(Fraction(tp.thm55_first_step_rate(n, k)) * k) ** -1  # |xi_{k-1}| = 1/(k eta_0)
    assert tau == pytest.approx(float(xi) / (16 * k * math.sqrt(2 * n * math.log(8 * k))), rel=1e-15)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: tp.lemB5_width(3, "1/10"), "even k"),
        (lambda: tp.lemB5_width(2, "1/2"), "delta in"),
        (lambda: tp.lemB5_miss_probability(2, 7), "even"),
        (lambda: tp.lemB5_first_step_gradient(5, 2, [1, 1, 1, 1, 0], 1), "vector in"),
        (lambda: tp.lemB5_first_step_gradient(5, 2, [1, 1, 1, 1, 1], 2), "u must be"),
        (lambda: tp.lemB5_batch(6, 2, 18, "1/4", "1/4"), "odd n"),
    ],
)
def test_inputs_outside_the_lemma_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("r", [-2, 0, 1, 2, 3, 24, 25, 4095, 4096, 4097, 4098, 10**6])
def test_both_miss_functions_take_the_paired_widths_up_to_4096(r):
    """The unbiased initialisation pairs its neurons: both functions of the miss probability (and the shared check)
    accept exactly the even widths 2 .. 4096; an odd or smaller width is an InputError, a larger one a LimitError
    naming the function's own work."""
    from theory._checks import InputError, LimitError

    for call, what in (
        (lambda: tp._check_paired_width(r, "the work"), "the work"),
        (lambda: tp.lemB5_miss_probability(2, r), "the exact miss probability"),
        (lambda: tp.lemB5_miss_bound_as_printed(2, r), "the exact bound"),
    ):
        if r >= 2 and r % 2 == 0 and r <= 4096:
            call()
        elif r >= 2 and r % 2 == 0:
            with pytest.raises(LimitError, match=what) as info:
                call()
            assert info.value.param == "r" and info.value.limit == 4096
        else:
            with pytest.raises(InputError) as info:
                call()
            assert info.value.param == "r" and not isinstance(info.value, LimitError)


def _coordinate_law(n, k, w, u, b, j):
    """(P(+1), P(-1)) of the per-point coordinate -y u 1[w.x + b > 0] x_j (j = n: the bias), by enumeration."""
    plus = minus = 0
    for x in itertools.product((1, -1), repeat=n):
        if sum(wi * xi for wi, xi in zip(w, x)) + b > 0:
            v = -math.prod(x[:k]) * u * (x[j] if j < n else 1)
            plus, minus = plus + (v == 1), minus + (v == -1)
    return Fraction(plus, 2**n), Fraction(minus, 2**n)


@pytest.mark.parametrize("batch", [1, 2, 3, 5])
@pytest.mark.parametrize("tau", ["1/8", "1/3", "1/2"])
def test_coordinate_tail_by_enumerating_every_batch(batch, tau):
    n, k, w, u, b = 5, 2, [1, -1, 1, 1, -1], -1, Fraction(1, 2)
    g, gamma = tp.lemB5_first_step_gradient(n, k, w, u)
    for j, mean in ((0, g[0]), (3, g[3]), (n, gamma)):
        p_plus, p_minus = _coordinate_law(n, k, w, u, b, j)
        assert p_plus + p_minus == Fraction(1, 2) and p_plus - p_minus == mean
        law = {1: p_plus, -1: p_minus, 0: Fraction(1, 2)}
        brute = sum(
            (
                math.prod((law[v] for v in seq), start=Fraction(1))
                for seq in itertools.product((1, 0, -1), repeat=batch)
                if abs(Fraction(sum(seq), batch) - mean) >= Fraction(tau)
            ),
            Fraction(0),
        )
        assert tp.lemB5_coordinate_tail(mean, batch, tau) == brute


@settings(max_examples=30, deadline=None)
@given(st.fractions("-1/2", "1/2", max_denominator=64), st.integers(1, 60), st.fractions("1/32", 1, max_denominator=32))
def test_coordinate_tail_is_below_hoeffding(g, batch, tau):
    p = tp.lemB5_coordinate_tail(g, batch, tau)
    assert 0 <= p <= 1
    assert float(p) <= tp.lemB5_hoeffding_bound(batch, tau) + 1e-12
