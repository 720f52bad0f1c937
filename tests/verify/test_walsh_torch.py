"""verify/train/walsh.py: the torch Walsh-Hadamard transform and population gradient against numerics.walsh (CPU),
on CUDA when present (``-m gpu``); bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import walsh as nw
from verify.train import walsh as vw


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 11), st.integers(1, 8), st.integers(0, 2**31 - 1))
def test_fwht_matches_numpy(n, radix, seed):
    x = np.random.default_rng(seed).standard_normal((2, 3, 1 << n))
    got = vw.fwht(torch.tensor(x), radix=radix).numpy()
    np.testing.assert_allclose(got, nw.fwht(x), rtol=0, atol=1e-10 * max(1, 1 << n))


def test_fwht_float32_and_involution():
    x = np.random.default_rng(0).standard_normal((4, 1 << 12))
    t = torch.tensor(x, dtype=torch.float32)
    y = vw.fwht(t)
    assert y.dtype == torch.float32 and y.shape == t.shape
    np.testing.assert_allclose(y.double().numpy(), nw.fwht(x), rtol=0, atol=2e-4 * 64)
    np.testing.assert_allclose(vw.fwht(vw.fwht(t)).numpy() / (1 << 12), x, rtol=0, atol=1e-5)
    assert np.array_equal(vw.fwht(torch.tensor(x)).numpy(), vw.fwht(torch.tensor(x)).numpy())  # no in-place change


def test_hadamard_entries():
    H = vw.hadamard(3).numpy()
    for S in range(8):
        assert np.array_equal(H[:, S], nw.characters(3, S))


def test_cube_and_linear_form_match_numpy():
    w = np.random.default_rng(1).standard_normal((2, 6))
    assert np.array_equal(vw.cube(6).numpy(), nw.cube(6, np.float64))
    got = vw.linear_form(torch.tensor(w)).numpy()
    for i in range(2):
        np.testing.assert_allclose(got[i], nw.linear_form(w[i]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("S", [[0], [0, 2], [1, 3, 4]])
def test_population_gradient_matches_numpy(S):
    rng = np.random.default_rng(len(S))
    W = rng.standard_normal((2, 3, 7))
    b = rng.uniform(-0.5, 0.5, (2, 3))
    gw, gb = vw.population_gradient(vw.relu_prime, torch.tensor(W), torch.tensor(b), S, device="cpu")
    assert gw.shape == (2, 3, 7) and gb.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            ew, eb = nw.population_gradient(nw.relu_prime, W[i, j], b[i, j], S)
            np.testing.assert_allclose(gw[i, j].numpy(), ew, rtol=0, atol=1e-12)
            assert abs(float(gb[i, j]) - eb) <= 1e-12
    # smooth sigma', scalar bias, list input
    gw, gb = vw.population_gradient(torch.cos, W[0, 0].tolist(), 0.2, S, device="cpu")
    ew, eb = nw.population_gradient(np.cos, W[0, 0], 0.2, S)
    np.testing.assert_allclose(gw.numpy(), ew, rtol=0, atol=1e-12)
    # independent oracle: the explicit loop over the cube
    bw, _bb = nw.population_gradient_bruteforce(nw.relu_prime, W[1, 2], b[1, 2], S)
    gw, gb = vw.population_gradient(vw.relu_prime, torch.tensor(W[1, 2]), float(b[1, 2]), S)
    np.testing.assert_allclose(gw.numpy(), bw, rtol=0, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="power of 2"):
        vw.fwht(torch.zeros(6))
    with pytest.raises(ValueError, match="floating"):
        vw.fwht(torch.zeros(8, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"torch\.Tensor"):
        vw.fwht(np.zeros(8))
    with pytest.raises(ValueError, match="b must be"):
        vw.population_gradient(vw.relu_prime, torch.zeros(2, 5), torch.zeros(3), [0], device="cpu")
    with pytest.raises(ValueError, match="radix"):
        vw.fwht(torch.zeros(8), radix=0)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_matches_cpu():
    x = np.random.default_rng(0).standard_normal((3, 1 << 16))
    for dt, tol in ((torch.float64, 1e-8), (torch.float32, 5e-2)):
        got = vw.fwht(torch.tensor(x, dtype=dt, device="cuda")).cpu().double().numpy()
        np.testing.assert_allclose(got, nw.fwht(x), rtol=0, atol=tol)
    W = np.random.default_rng(1).standard_normal((4, 15))
    gw, _gb = vw.population_gradient(vw.relu_prime, W, 0.1, [0, 1, 2], device="cuda")
    assert gw.device.type == "cuda"
    for i in range(4):
        ew, _eb = nw.population_gradient(nw.relu_prime, W[i], 0.1, [0, 1, 2])
        np.testing.assert_allclose(gw[i].cpu().numpy(), ew, rtol=0, atol=1e-12)
