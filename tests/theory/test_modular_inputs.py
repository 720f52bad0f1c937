"""Bad-input tests of ``theory.modular``: a ValueError naming the parameter and its range, never NaN."""

from __future__ import annotations

import time

import pytest
import sympy

from theory import modular as tm
from theory._checks import InputError, LimitError


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


# ------------------------------------------------------------------------------------------ issue 32: hostile input


@pytest.mark.parametrize(
    "call,sentence",
    [
        (
            lambda: tm.polarization_identity(11),
            "k = 11 is too large: the number of terms 2^(k-1) of the identity is 1,024, above the limit 512",
        ),
        (
            lambda: tm.cos_sum_expansion(10),
            "k = 10 is too large: the number of terms 2^k of the expansion is 1,024, above the limit 512",
        ),
        (
            lambda: tm.FourierNeuron(p=100_001, zeta=1, phases=(0,), amplitude=1).u(),
            "p = 100,001 is too large: the number (k+1) p of exact entries of the neuron is 200,002, above the limit",
        ),
        (
            lambda: tm.psi_fourier([[0] * 317], [0] * 317),
            "p = 317 is too large: the number (k+1) p^2 of terms of the exact DFTs is 200,978, above the limit 200,000",
        ),
    ],
)
def test_refusals_read_as_sentences(call, sentence):
    """The limits used to read "the identity has 2^(k-1) terms is 1,024": the counted quantity is now the subject."""
    with pytest.raises(LimitError) as info:
        call()
    assert str(info.value).startswith(sentence), str(info.value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), sympy.nan, sympy.zoo, "nan", "1e999999999"])
@pytest.mark.parametrize(
    "call,param",
    [
        (lambda v: tm.psi_dc_leak(5, 3, v), "eps"),
        (lambda v: tm.psi_two_frequencies(5, 3, v), "s"),
        (lambda v: tm.psi_phase_mismatch(3, 2, v), "delta"),
        (lambda v: tm.psi_unbalanced(5, 2, [v, "1/2", "1/2"]), "r"),
        (lambda v: tm.memorising_normalized_margin(3, v, 1), "alpha"),
        (lambda v: tm.optimal_neuron(5, 2, phases=[v, 0]), "phases"),
        (lambda v: tm.psi_time_domain([[v, 0, 0]], [1, 0, 0]), "u"),
        (lambda v: tm.FourierNeuron(p=3, zeta=1, phases=(0,), amplitude=v).u(), "amplitude"),
    ],
)
def test_nan_inf_and_huge_exponents_are_refused_naming_the_parameter(call, param, value):
    """'1e999999999' made Fraction build 10^999999999 (minutes); NaN and infinities are InputErrors."""
    t0 = time.perf_counter()
    with pytest.raises(InputError) as info:
        call(value)
    assert time.perf_counter() - t0 < 0.5 and info.value.param == param


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: tm.optimal_amplitude(10**1001 + 1, 2), "p"),  # sympy factors the radicand: minutes at 4000 digits
        (lambda: tm.optimal_fourier_magnitude(3, 10**1001), "k"),
        (lambda: tm.optimal_neuron(10**1001 + 1, 2), "p"),
        (lambda: tm.memorising_normalized_margin(3, sympy.Rational(1, 10**600), 1), "alpha"),
        (lambda: tm.psi_two_frequencies(5, 1001, sympy.Rational(1, 10**10)), "s"),
        (lambda: tm.psi_dc_leak(5, 2, sympy.Rational(1, 10**1001)), "eps"),
        (lambda: tm.psi_unbalanced(5, 1, [sympy.Rational(1, 10**600), 1 - sympy.Rational(1, 10**600)]), "r"),
        (lambda: tm.psi_time_domain([[sympy.Rational(1, 10**1000), 0, 0], [0, 1, 0]], [1, 0, 0]), "u"),
        (lambda: tm.construction(3, 10**400), "k"),  # the log-cost overflowed a float (OverflowError)
    ],
)
def test_huge_numbers_are_refused_before_sympy_forms_them(call, param):
    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 0.5 and info.value.param == param
    assert str(info.value).startswith(f"{param} = ")


def test_a_huge_p_is_shown_by_its_size_in_the_message():
    """The message printed p in full (thousands of digits) in "the exact gamma*(p, k) at p = ..."."""
    with pytest.raises(LimitError) as info:
        tm.max_margin(10**3000 + 1, 2)
    assert "at p = ~10^3000" in str(info.value) and len(str(info.value)) < 400
