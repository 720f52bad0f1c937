"""theory.sparse_init.thm_c11_setting: the settings of the proof of Thm C.11 (= Thm 6.4, Edelman thesis App. C.2.2)
against brute force (Lemma C.3's correlations over {±1}^s) and the lemmas they come from."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import sparse_init as tsi
from theory._checks import InputError


def _good_neuron_correlation(s: int, size: int) -> Fraction:
    """E_x[1{sum_j x_j > 0} prod_{j < size} x_j] over {±1}^s (s odd): Lemma C.3's correlation of a good neuron on a
    coordinate of S (size k - 1) or of supp w \\ S (size k + 1), by enumeration."""
    total = 0
    for x in itertools.product((-1, 1), repeat=s):
        if sum(x) > 0:
            total += math.prod(x[:size])
    return Fraction(total, 2**s)


@pytest.mark.parametrize("k,s", [(2, 9), (2, 11), (2, 13)])
def test_step_constants_are_the_brute_force_correlations(k, s):
    st_ = tsi.thm_c11_setting(s + 2, k, s, "1/4", "1/10")
    assert st_["C"] == _good_neuron_correlation(s, k - 1)
    assert st_["c"] == _good_neuron_correlation(s, k + 1)
    assert st_["eta"] * abs(st_["C"]) == Fraction(1, 2 * k)  # the good neuron's weights on S become 1/(2k)
    assert abs(st_["c"] / st_["C"]) == Fraction(k - 1, s - k)  # Lemma C.3's exact ratio, <= 4k/s


@given(
    n=st.integers(10, 15),
    eps=st.fractions(Fraction(1, 20), Fraction(9, 20)),
    delta=st.sampled_from(["0.01", "0.1", "0.3"]),
)
@settings(max_examples=25, deadline=None)
def test_settings_meet_the_lemmas_they_come_from(n, eps, delta):
    k, s = 2, 9
    got = tsi.thm_c11_setting(n, k, s, eps, delta)
    r = got["width"]
    assert r == tsi.lemma_c10_width(n, k, s, delta)
    assert got["r_prime"] == tsi.lemma_c10_true_mean(r, n, k, s)
    B, rp, eta = float(got["B"]), float(got["r_prime"]), float(got["eta"])
    assert got["lam"] == eps / Fraction(str(got["B"] ** 2))
    assert got["tau"] <= float(eps) / (4 * B * k * rp * n * eta) * (1 + 1e-12)  # Lemma C.6: distance <= eps/B
    assert got["tau"] <= 1 / (16 * eta * k * n) * (1 + 1e-12)  # Lemma C.6's hypothesis on tau
    assert got["m"] >= tsi.lemma_c5_sample_size(n, r, got["tau"], delta)
    assert got["m"] >= tsi.lemma_c9_sample_size(math.sqrt(8 * k * rp), B, eps, delta)
    assert got["s_required"] == pytest.approx(
        80 * k * B**2 * math.log(2 * k / float(Fraction(delta))) / float(eps) ** 2
    )
    assert got["s_required"] > n > s  # the theorem's hypothesis cannot hold on the enumerated cube
    assert got["bound"] == eps
    assert got["biases"] == [(-k + 2 * j + Fraction(1, 16)) / (2 * k) for j in range(k // 2)]  # App. C.2.2, corrected


@pytest.mark.parametrize(
    "args",
    [
        (15, 3, 9, "1/4", "1/10"),  # k odd
        (15, 2, 10, "1/4", "1/10"),  # s even
        (15, 2, 7, "1/4", "1/10"),  # s <= 4k
        (9, 2, 9, "1/4", "1/10"),  # s >= n
        (15, 2, 9, "1/2", "1/10"),  # eps not below 1/2
        (15, 2, 9, "0", "1/10"),
        (15, 2, 9, "1/4", "1/2"),  # delta not below 1/2
        (15, 2, 9, "1/4", "0"),
    ],
)
def test_inputs_outside_the_theorem_are_refused(args):
    with pytest.raises(InputError):
        tsi.thm_c11_setting(*args)
