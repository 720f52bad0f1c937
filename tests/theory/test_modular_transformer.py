"""theory.modular_transformer: exact 2-D spectra of cosine heads, the isotropic share, the threshold rule and the
predicted delay order, against numpy brute force (independent oracle) and Monte Carlo."""

import time
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import modular_transformer as tmt
from theory._checks import LimitError

ODD_P = st.sampled_from([3, 5, 7, 9, 11, 13])


def _binned_numpy(M: np.ndarray) -> np.ndarray:
    """Brute-force binned 2-D power: a double loop over all DFT points (independent of numerics/)."""
    p = M.shape[0]
    a = np.arange(p)
    out = np.zeros((p // 2 + 1, p // 2 + 1))
    for j1 in range(p):
        for j2 in range(p):
            c = (M * np.exp(-2j * np.pi * (j1 * a[:, None] + j2 * a[None, :]) / p)).sum()
            out[min(j1, p - j1), min(j2, p - j2)] += abs(c) ** 2
    return out


@settings(max_examples=25, deadline=None)
@given(p=ODD_P, data=st.data())
def test_product_cosine_power_matches_brute_force(p, data):
    h = (p - 1) // 2
    z1, z2 = data.draw(st.integers(0, h)), data.draw(st.integers(0, h))
    phi1, phi2 = data.draw(st.sampled_from([0, 1, 2])), data.draw(st.sampled_from([0, 1, 3]))
    exact = tmt.product_cosine_bin_power(p, z1, z2, sympy.Rational(phi1, 3), sympy.Rational(phi2, 5))
    a = np.arange(p)
    M = np.outer(np.cos(2 * np.pi * z1 * a / p + phi1 / 3), np.cos(2 * np.pi * z2 * a / p + phi2 / 5))
    brute = _binned_numpy(M)
    want = np.zeros_like(brute)
    for (b1, b2), v in exact.items():
        want[b1, b2] = float(v)
    assert np.allclose(brute, want, atol=1e-8 * p**4)
    assert len(exact) <= 1  # a product of cosines lives in one bin


def test_product_cosine_power_is_parseval_exact():
    p = 11
    power = tmt.product_cosine_bin_power(p, 2, 5)
    assert power == {(2, 5): sympy.Rational(p**4, 4)}  # p^2 * sum M^2 = p^2 * (p/2)^2


def test_bin_sizes_cover_the_plane():
    for p in (3, 5, 13):
        assert sum(tmt.bin_size(p, a, b) for a, b in tmt.frequency_bins(p)) == p * p


def test_cosine_dft_against_numpy():
    p, z = 13, 4
    got = tmt.cosine_dft(p, z, sympy.Rational(1, 2))
    ref = np.fft.fft(np.cos(2 * np.pi * z * np.arange(p) / p + 0.5))
    full = np.array([complex(got.get(j, 0)) for j in range(p)])
    assert np.allclose(full, ref, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(p=st.sampled_from([7, 11, 13]), data=st.data())
def test_head_support_contains_all_power(p, data):
    h = (p - 1) // 2
    K = data.draw(st.sets(st.integers(1, h), min_size=1, max_size=3))
    Q = data.draw(st.sets(st.integers(1, h), min_size=1, max_size=3))
    rng = np.random.default_rng(0)
    a = np.arange(p)
    feats = lambda fs: np.concatenate(  # noqa: E731
        [np.stack([np.cos(2 * np.pi * z * a / p), np.sin(2 * np.pi * z * a / p)]) for z in sorted(fs)]
    )
    M = feats(K).T @ rng.standard_normal((2 * len(K), 2 * len(Q))) @ feats(Q) + 3.0  # plus a constant
    M = M - M.mean(0) - M.mean(1)[:, None] + M.mean()
    P = _binned_numpy(M)
    support = tmt.head_power_support(p, sorted(K), sorted(Q))
    inside = sum(P[b] for b in support)
    assert inside == pytest.approx(P.sum(), rel=1e-9)


def test_ideal_top_fraction_is_one():
    assert tmt.ideal_top_fraction(11, 3) == 1
    assert tmt.ideal_top_fraction(7, 1) == 1


def test_isotropic_share_by_monte_carlo():
    p, r = 11, 3
    rng = np.random.default_rng(1)
    shares = []
    for _ in range(400):
        M = rng.standard_normal((p, p))
        M = M - M.mean(0) - M.mean(1)[:, None] + M.mean()
        P = np.abs(np.fft.fft2(M)) ** 2
        shares.append((P[1, 1] + P[1, -1] + P[-1, 1] + P[-1, -1]) * r / P.sum())  # r bins of 4 points each
    se = np.std(shares) / np.sqrt(len(shares))
    assert abs(np.mean(shares) - float(tmt.isotropic_bin_share(p, r))) < 4 * se


@settings(max_examples=30, deadline=None)
@given(p=st.sampled_from([7, 11, 23, 31, 97]), r=st.integers(1, 9))
def test_threshold_lies_between_noise_and_ideal(p, r):
    if r >= ((p - 1) // 2) ** 2:
        with pytest.raises(ValueError, match="n_bins"):
            tmt.concentration_threshold(p, r)
        return
    share = tmt.isotropic_bin_share(p, r)
    t = tmt.concentration_threshold(p, r)
    assert share < t < 1 and isinstance(t, Fraction)
    assert t - share == 1 - t  # the midpoint


def test_delay_order_for_the_thesis_runs():
    cases = [(97, 2), (31, 3), (11, 4), (5, 5)]
    widths = [4 ** (k - 1) * (p - 1) for p, k in cases]  # 2^{2k-2}(p-1), written out
    assert [tmt.required_width(p, k) for p, k in cases] == widths == [384, 480, 640, 1024]
    assert tmt.predicted_delay_order(cases) == [0, 1, 2, 3]
    assert tmt.predicted_delay_order(list(reversed(cases))) == [3, 2, 1, 0]


def test_dataset_sizes():
    assert [tmt.dataset_size(p, k) for p, k in [(97, 2), (31, 3), (11, 4), (5, 5)]] == [9409, 29791, 14641, 3125]
    assert tmt.train_size(31, 4) == 31**4 // 2


@settings(max_examples=20, deadline=None)
@given(p=ODD_P, data=st.data())
def test_single_frequency_purity_is_one(p, data):
    z = data.draw(st.integers(1, (p - 1) // 2))
    assert tmt.single_frequency_purity(p, z, sympy.Rational(data.draw(st.integers(-5, 5)), 7)) == 1
    v = np.cos(2 * np.pi * z * np.arange(p) / p + 0.3)
    P = np.abs(np.fft.rfft(v)) ** 2
    P[1:] *= 2
    assert P.max() / P.sum() == pytest.approx(1.0, abs=1e-12)


def test_covered_frequencies():
    assert tmt.covered_frequencies(11) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: tmt.frequency_bins(8), "p must be an odd integer"),
        (lambda: tmt.bin_size(7, 4, 0), r"z1 must lie in 0..\(p-1\)/2 = 0..3"),
        (lambda: tmt.cosine_dft(7, -1), "z must be an integer >= 0"),
        (lambda: tmt.ideal_top_fraction(7, 4), r"n_freq must lie in 1..\(p-1\)/2 = 1..3"),
        (lambda: tmt.isotropic_bin_share(7, 9), "n_bins must be below"),
        (lambda: tmt.predicted_delay_order([(5, 2)]), "at least two"),
        (lambda: tmt.single_frequency_purity(7, 0, sympy.pi / 2), "purity is undefined"),
        (lambda: tmt.dataset_size(5, 0), "k must be an integer >= 1"),
    ],
)
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------------------------------ issue 32: hostile input


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: tmt.frequency_bins(10**9 + 1), "p"),  # a list of 2.5e17 bins
        (lambda: tmt.covered_frequencies(10**400 + 1), "p"),  # len() of the range overflowed
        (lambda: tmt.dataset_size(5, 10**9), "k"),  # 5^(10^9) formed exactly
        (lambda: tmt.train_size(3, 10**400), "k"),
        (lambda: tmt.ideal_top_fraction(1001, 101), "n_freq"),
        (lambda: tmt.head_power_support(10**9 + 1, range(1, 1001), range(1, 1001)), "key_freqs"),
    ],
)
def test_sizes_are_refused_before_the_work(call, param):
    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 1.0 and info.value.param == param
    assert str(info.value).startswith(f"{param} = ")


def test_the_ideal_head_skips_pslq_on_rational_powers():
    """nsimplify (PSLQ) ran on every rational bin power (1.3 s at n_freq = 3); the value is unchanged."""
    t0 = time.perf_counter()
    assert tmt.ideal_top_fraction(41, 12) == 1 and tmt.ideal_top_fraction(11, 3) == 1
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("value", [float("nan"), float("inf"), sympy.nan, sympy.zoo, "1e999999999"])
def test_a_nan_phase_is_refused_naming_it(value):
    for call in (tmt.cosine_dft, tmt.single_frequency_purity):
        with pytest.raises(ValueError) as info:
            call(7, 2, value)
        assert info.value.param == "phi"
