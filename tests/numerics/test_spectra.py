"""Fourier diagnostics: purity, dominant frequency, phase residual, balance, coverage, diagonal DFT."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.margins import iter_logits
from numerics.modular import ModularTask, construction_network, deformed_neuron, neuron_blocks, random_network
from numerics.spectra import (
    diagonal_fourier,
    dominant_frequency,
    frequency_coverage,
    neuron_diagnostics,
    one_sided_power,
    purity,
    wrap_angle,
)
from theory import modular as tm

odd_p = st.sampled_from([3, 5, 7, 9, 11, 13])


@settings(max_examples=40, deadline=None)
@given(p=odd_p, data=st.data())
def test_pure_cosine_has_purity_one_at_its_frequency(p, data):
    zeta = data.draw(st.integers(1, (p - 1) // 2))
    phase = data.draw(st.floats(-10, 10))
    amp = data.draw(st.floats(0.1, 5))
    v = amp * np.cos(2 * np.pi * zeta * np.arange(p) / p + phase)
    assert purity(v) == pytest.approx(1.0, abs=1e-12)
    assert dominant_frequency(v) == zeta


@settings(max_examples=40, deadline=None)
@given(p=st.integers(2, 16), seed=st.integers(0, 10**6))
def test_one_sided_power_is_plancherel(p, seed):
    """sum of one-sided power = sum_j |f^(j)|^2 = p sum_x f(x)^2, for odd and even p."""
    v = np.random.default_rng(seed).normal(size=p)
    assert one_sided_power(v).sum() == pytest.approx(p * (v**2).sum(), rel=1e-12)


def test_purity_of_zero_vector_is_nan():
    assert np.isnan(purity(np.zeros(5)))


@settings(max_examples=50, deadline=None)
@given(x=st.floats(-100, 100))
def test_wrap_angle_range_and_equivalence(x):
    w = float(wrap_angle(x))
    assert -np.pi < w <= np.pi + 1e-12
    assert np.cos(w) == pytest.approx(np.cos(x), abs=1e-9) and np.sin(w) == pytest.approx(np.sin(x), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(p=st.sampled_from([5, 7, 11]), k=st.integers(1, 4), data=st.data())
def test_phase_residual_recovers_mismatch(p, k, data):
    """A neuron whose output phase is sum(theta_u) - Delta has residual wrap(Delta)."""
    delta = data.draw(st.floats(-3.0, 3.0))
    phases = np.array(data.draw(st.lists(st.floats(-6, 6), min_size=k, max_size=k)))
    zeta = data.draw(st.integers(1, (p - 1) // 2))
    d = neuron_diagnostics(deformed_neuron(p, k, zeta, phases, mismatch=delta))
    assert d.frequency[0] == zeta
    assert d.phase_residual[0] == pytest.approx(float(wrap_angle(delta)), abs=1e-9)
    assert d.balance[0] == pytest.approx(0.0, abs=1e-12)


def test_balance_and_dc_share_of_deformed_neuron():
    d = neuron_diagnostics(deformed_neuron(7, 2, 1, block_fractions=np.array([0.5, 0.25, 0.25]), dc_fraction=0.2))
    assert d.balance[0] == pytest.approx(3 * 0.5 - 1, rel=1e-12)
    assert d.dc_share[0] == pytest.approx(0.2, rel=1e-12)


@pytest.mark.parametrize("p,k", [(5, 2), (7, 2), (5, 3), (7, 3)])
def test_construction_diagnostics_match_theorem(p, k):
    net = construction_network(p, k)
    d = neuron_diagnostics(net)
    assert np.all(d.min_purity > 1 - 1e-12)
    assert np.nanmax(np.abs(d.phase_residual)) < 1e-10
    cov = frequency_coverage(d, p)
    assert cov[0] == 0 and np.all(cov[1:] == tm.min_width(p, k) // len(tm.frequencies(p)))


def test_random_network_is_not_pure():
    d = neuron_diagnostics(random_network(23, 2, 200, np.random.default_rng(0)))
    assert np.median(d.min_purity) < 0.6


@pytest.mark.parametrize("p,k", [(5, 2), (3, 3), (7, 2)])
def test_diagonal_fourier_equals_full_multidimensional_fft(p, k):
    """The streamed diagonal equals the (k+1)-D FFT of F evaluated at (j, ..., j, -j)."""
    net = random_network(p, k, 7, np.random.default_rng(1))
    task = ModularTask(p, k)
    inputs, _ = task.batch(0, task.n_points)
    F = net.logits(inputs).reshape((p,) * (k + 1))
    full = np.fft.fftn(F)
    acc = np.zeros(p, dtype=complex)
    for _, inp, _, Fc in iter_logits(net, task, chunk_size=5):
        acc += diagonal_fourier(Fc, inp.sum(axis=1), p)
    for j in range(p):
        assert acc[j] == pytest.approx(full[(j,) * k + ((-j) % p,)], abs=1e-9 * np.abs(full).max())


def test_neuron_blocks_shapes():
    U, w = neuron_blocks(7, 3, 2, np.zeros(3), 0.0, 1.0)
    assert U.shape == (3, 7) and w.shape == (7,)


def test_diagnostics_reject_mismatched_blocks():
    from numerics.margins import HomogeneousNetwork

    with pytest.raises(ValueError, match="same Z_p"):
        neuron_diagnostics(HomogeneousNetwork(np.ones((2, 2, 5)), np.ones((2, 3)), 2))


def test_bad_arrays_are_refused_with_the_parameter_named():
    from theory._checks import InputError, LimitError

    for call, param in [
        (lambda: purity(np.array([1.0, np.nan, 0.0])), "v"),
        (lambda: one_sided_power(3.0), "v"),
        (lambda: wrap_angle(float("nan")), "x"),
    ]:
        with pytest.raises(InputError) as info:
            call()
        assert info.value.param == param
    from numerics.modular import construction_network

    with pytest.raises(LimitError) as info:
        frequency_coverage(neuron_diagnostics(construction_network(5, 2)), 10**13)
    assert info.value.param == "p"
