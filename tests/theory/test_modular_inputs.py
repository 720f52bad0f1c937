"""Bad-input tests of ``theory.modular``: a ValueError naming the parameter and its range, never NaN."""

from __future__ import annotations

import pytest
import sympy

from theory import modular as tm


@pytest.mark.parametrize("w", [[1], []], ids=["p=1", "p=0"])
def test_psi_refuses_fewer_than_two_classes(w):
    # Psi divides by p - 1 (the wrong classes); p = 1 used to give NaN
    for psi in (tm.psi_fourier, tm.psi_time_domain):
        with pytest.raises(ValueError, match=r"w must have p >= 2"):
            psi([w], w)


def test_psi_smallest_valid_p_agrees_with_brute_force():
    # p = 2, k = 1 by hand: S(a) = u(a), y(a) = a, Psi = mean_a u(a) (w(a) - w(1 - a))
    u, w = [1, 2], [3, -1]
    by_hand = sympy.Rational(1 * (3 - (-1)) + 2 * (-1 - 3), 2)
    assert tm.psi_time_domain([u], w) == by_hand
    assert sympy.simplify(tm.psi_fourier([u], w) - by_hand) == 0


@pytest.mark.parametrize(
    ("a", "c", "match"),
    [
        ([7, 1], 3, r"a must be a residue mod p, i\.e\. an integer in 0\.\.4, got a = 7"),
        ([-1, 1], 3, r"a must be a residue mod p, i\.e\. an integer in 0\.\.4, got a = -1"),
        ([], 3, r"a must hold k >= 1 residues"),
        ("12", 3, r"a must be a sequence"),
        (5, 3, r"a must be a sequence"),
        ([1, 1], 5, r"c must be a residue mod p, i\.e\. an integer in 0\.\.4"),
        ([1, 1], -1, r"c must be a residue mod p"),
        ([1.0, 1], 2, r"a must be a residue mod p, i\.e\. an integer in 0\.\.4, got a = 1\.0"),
    ],
)
def test_construction_logit_as_printed_refuses_non_residues(a, c, match):
    with pytest.raises(ValueError, match=match):
        tm.construction_logit_as_printed(5, a, c)


def test_construction_logit_refuses_wrong_input_count_and_residues():
    net = tm.construction(5, 2)
    with pytest.raises(ValueError, match=r"a must hold exactly k = 2"):
        net.logit([1, 2, 3], 1)
    with pytest.raises(ValueError, match=r"c must be a residue mod p"):
        net.logit([1, 2], 7)


def test_valid_residues_still_accepted():
    # printed value (p-1)/2 on the correct class, 0 elsewhere; corrected value p/2 - 1/2 and -1/2
    assert tm.construction_logit_as_printed(5, [4, 4], 3) == 2
    assert tm.construction_logit_as_printed(5, [4, 4], 0) == 0
    assert tm.construction(5, 2).logit([4, 4], 3) == 2
    assert tm.construction(5, 2).logit([4, 4], 0) == sympy.Rational(-1, 2)
