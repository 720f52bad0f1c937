"""Exact checks of theory/attention_parity.py (Shi Ch. 5, Sec. 5.5: the constructions of Thm 5.5.1, their margins
and norms, the p_T condition, the noise ratio of Thm 5.5.2 and the counterexamples of docs/attention_parity.md).
Expected values come from independent brute force in Fractions."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy

from theory import attention_parity as tap


def _bits_code(t: int, i: int) -> int:
    return 1 if format(t, "08b")[::-1][i] == "1" else -1


def test_construction_matches_example():
    h = tap.parity_construction(3)
    assert list(h.a) == [-1, -1, -1, 1, -1, -1, -1, 1]
    for i in range(3):
        assert list(h.codes[i]) == [_bits_code(t, i) for t in range(8)]
        assert list(h.codes[i + 4]) == [-_bits_code(t, i) for t in range(8)]
    assert list(h.codes[3]) == [-3] * 8 and list(h.codes[7]) == [3] * 8


def _hamming(i: int, j: int) -> int:
    return bin(i ^ j).count("1")


def test_zero_loss_and_closed_form():
    h = tap.parity_construction(3)
    margins = tap.parity_margins(h)
    assert len(margins) == 224
    assert min(m for *_, m in margins) == 1
    assert sum(m == 1 for *_, m in margins) == 96
    for i, j, pi, pj, _ in margins:  # g = +-Hamming(i, j) (docs/attention_parity.md)
        assert h.output(i, j, pi, pj) == (_hamming(i, j) if pi == pj else -_hamming(i, j))
    s1, s2 = tap.parity_task_sets(8, 2)
    assert tap.parity_hinge_loss(h, s1 + s2, F(1, 10)) == 0
    assert [m for *_, m in margins] == tap.hamming_margins(3, [(i, j) for i in range(8) for j in range(8) if i != j])


def test_g1():
    g1 = tap.parity_g1(1, 3)
    s1, s2 = tap.parity_task_sets(8, 2)
    assert min(m for *_, m in tap.parity_margins(g1, s1)) >= 1
    # brute force of the S_2 loss: tasks whose indices agree in bit 1 give g = 0 (loss 1)
    w = {(1, 1): F(1, 4) + F(1, 10), (1, -1): F(1, 4), (-1, 1): F(1, 4), (-1, -1): F(1, 4) - F(1, 10)}
    brute = sum(
        w[(pi, pj)] * max(F(0), 1 - pi * pj * g1.output(i, j, pi, pj)) for i, j in s2 for pi, pj in tap.PARITY_PATTERNS
    ) / len(s2)
    assert tap.parity_hinge_loss(g1, s2, F(1, 10)) == brute
    assert tap.parity_hinge_loss(g1, s2, "0.1") == tap.parity_hinge_loss(g1, s2, "0.2")
    assert brute == tap.hamming_hinge_loss(1, s2)
    assert [m for *_, m in tap.parity_margins(g1, s1 + s2)] == tap.hamming_margins(1, s1 + s2)


def test_hamming_closed_form_for_larger_nu1():
    g1 = tap.parity_g1(2, 3)
    s1, s2 = tap.parity_task_sets(8, 4)
    assert [m for *_, m in tap.parity_margins(g1, s1 + s2)] == tap.hamming_margins(2, s1 + s2)
    assert tap.parity_hinge_loss(g1, s2, "0.2") == tap.hamming_hinge_loss(2, s2)


def test_pt_bound():
    g = F(1, 10)
    pt = tap.parity_pt_bound(8, g)
    assert 28 * pt * (F(1, 4) + g) == (1 - pt) * (F(1, 4) - g)
    assert abs(float(pt) - (0.15 / (28 * 0.35 + 0.15))) < 1e-15


def test_norm():
    for nu2 in (1, 2, 3):
        assert tap.parity_construction(nu2).frobenius_norm_sq(F(1, 10)) == tap.parity_norm_formula(nu2, F(1, 10))


def test_projection_ratio():
    _e1, _e2, ratio = tap.projection_ratio(1, 3)
    assert ratio == sympy.Rational(2, 4)


def test_g1_improvement_erratum_a():
    s1, s2 = tap.parity_task_sets(8, 2)
    better = tap.parity_g1(1, 3, pos_scale=2)
    assert min(m for *_, m in tap.parity_margins(better, s1)) >= 1
    assert tap.parity_hinge_loss(better, s2, "0.1") == tap.parity_hinge_loss(tap.parity_g1(1, 3), s2, "0.1") / 2


@pytest.mark.parametrize("cex,m", [(tap.COUNTEREXAMPLE_M5, 5), (tap.COUNTEREXAMPLE_M8, 8)])
def test_counterexamples(cex, m):
    h = tap.parity_heads(**cex)
    assert h.m == m
    assert min(mm for *_, mm in tap.parity_margins(h)) == 1
    if m == 8:
        assert h.code_norm() < tap.parity_construction(3).code_norm()


def test_parity_bad_input():
    with pytest.raises(ValueError, match="gamma"):
        tap.parity_hinge_loss(tap.parity_construction(2), [(0, 1)], F(1, 4))
    with pytest.raises(ValueError, match="nu1 <= nu2"):
        tap.parity_g1(3, 2)
    with pytest.raises(ValueError):
        tap.parity_heads([2], [[1, 2]])
    with pytest.raises(ValueError):
        tap.parity_construction(0)
    with pytest.raises(ValueError, match="d must be"):
        tap.parity_pt_bound(1, "0.1")
    with pytest.raises(ValueError, match="M"):
        tap.projection_ratio(1, 3, 0)


# ------------------------------------------------------------------ issue 32: hostile input (regressions)
def test_hostile_input_is_refused_naming_the_parameter():
    from theory._checks import InputError, LimitError

    with pytest.raises(LimitError) as info:
        tap.check_gamma("1e999999999")  # used to hang in Fraction
    assert info.value.param == "gamma"
    with pytest.raises(InputError) as info:
        tap.check_gamma(float("nan"))  # used to feed 'nan' to Fraction
    assert info.value.param == "gamma"
    for call, param in [
        (lambda: tap.parity_margins(tap.parity_construction(2), [(0, 9)]), "tasks"),  # used to raise IndexError
        (lambda: tap.parity_margins(-1), "heads"),  # used to raise AttributeError
        (lambda: tap.hamming_hinge_loss(2, []), "tasks"),  # used to raise ZeroDivisionError
        (lambda: tap.parity_hinge_loss(tap.parity_construction(2), [], "0.1"), "tasks"),
        (lambda: tap.ParityHeads((F(2),), ((F(1), F(0)),)), "a"),
    ]:
        with pytest.raises(InputError) as info:
            call()
        assert info.value.param == param
    for call, param in [
        (lambda: tap.parity_construction(30), "nu2"),  # used to build 2^30 codes per head
        (lambda: tap.parity_task_sets(10**5, 2), "d"),
        (lambda: tap.projection_ratio(1, 12), "nu2"),  # exact ranks: nu2 <= 9
        (lambda: tap.parity_norm_formula(10**9, "0.1"), "nu2"),
    ]:
        with pytest.raises(LimitError) as info:
            call()
        assert info.value.param == param
    assert tap.hamming_margins(10**400, [(0, 1)]) == [F(1)] * 4  # 2^(10^400) - 1 is no longer formed
