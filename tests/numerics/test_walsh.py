"""numerics/walsh.py: transforms against brute force and sympy; population gradients (Lemmas B.3, C.1,
C.3, C.4, the sinusoid closed form, label noise); bad input."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from numerics import walsh as W
from theory import boolean as B

F = Fraction


def _hadamard(n):
    X = W.cube(n, np.int64)
    N = 1 << n
    H = np.empty((N, N), dtype=np.int64)
    for S in range(N):
        H[:, S] = W.characters(n, S)
    return X, H


# ---------------------------------------------------------------- transforms
@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_fwht_matches_dense_hadamard_and_sympy(n):
    rng = np.random.default_rng(n)
    _, H = _hadamard(n)
    v = rng.integers(-50, 50, 1 << n)
    assert np.array_equal(W.fwht_int(v), H.T @ v)
    assert np.allclose(W.fwht(v.astype(float)), H.T @ v)
    assert [int(c) for c in W.fwht_exact([int(t) for t in v])] == list(H.T @ v)
    q = [F(int(t), 7) for t in v]
    assert W.walsh_coefficients_exact(q) == B.fourier_coefficients(lambda x: q[_index(x)], n)


def _index(x):
    return sum(1 << i for i, xi in enumerate(x) if xi == -1)


def test_fwht_inplace_and_batched():
    a = np.random.default_rng(0).standard_normal((3, 64))
    ref = np.stack([W.fwht(r) for r in a])
    b = a.copy()
    out = W.fwht(b, inplace=True)
    assert out is b and np.allclose(b, ref)
    assert np.allclose(W.fwht(a), ref)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.sampled_from([1, 2, 8, 64, 256]), elements=st.floats(-1e3, 1e3, allow_nan=False)))
def test_roundtrip_and_parseval_float(v):
    c = W.walsh_coefficients(v)
    assert np.allclose(W.fwht(c), v, atol=1e-9)
    assert np.allclose(W.ifwht(W.fwht(v)), v, atol=1e-9)
    assert np.isclose((c**2).sum(), (v**2).mean(), rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 6).flatmap(
        lambda n: st.lists(
            st.fractions(min_value=-99, max_value=99, max_denominator=50), min_size=1 << n, max_size=1 << n
        )
    )
)
def test_roundtrip_and_parseval_exact(vals):
    c = W.walsh_coefficients_exact(vals)
    N = len(vals)
    assert sum(x * x for x in c) == sum(F(v) ** 2 for v in vals) / N
    back = [F(int(t.p), int(t.q)) for t in W.fwht_exact(c)]
    assert back == [F(v) for v in vals]


def test_linear_form_matches_cube():
    w = np.random.default_rng(1).standard_normal(9)
    assert np.allclose(W.linear_form(w), W.cube(9, np.float64) @ w)


# ---------------------------------------------------------------- Lemma B.3 and its all-ones warm-up
@pytest.mark.parametrize("n,k,a,b", [(11, 2, -0.123047, 0.013672), (15, 4, 0.008057, -0.002197)])
def test_warmup_all_ones(n, k, a, b):
    g, _gb = W.population_gradient(W.relu_prime, np.ones(n), 0.0, range(k))
    assert g[0] == pytest.approx(a, abs=1e-6) and g[-1] == pytest.approx(b, abs=1e-6)
    ge, _gbe = W.population_gradient_exact([1] * n, 0, range(k))
    assert ge[:k] == [-B.majority_coefficient(n, k - 1) / 2] * k
    assert ge[k:] == [-B.majority_coefficient(n, k + 1) / 2] * (n - k)
    # gradient units gap = half the Majority gap
    assert W.fourier_gap_from_gradient(np.array([float(x) for x in ge]), range(k)) == pytest.approx(
        float(B.majority_gap(n, k) / 2), abs=1e-15
    )


@pytest.mark.parametrize("n", [11, 15])
def test_odd_k_exactly_zero(n):
    ge, gbe = W.population_gradient_exact([1] * n, 0, range(3))
    # weight gradient vanishes for odd k (no signal without a bias); the bias gradient carries it
    assert all(x == 0 for x in ge)
    assert gbe == -B.majority_coefficient(n, 3) / 2 != 0


@pytest.mark.parametrize("n", [9, 11, 13])
@pytest.mark.parametrize("k", [2, 4])
def test_lemma_b3(n, k):
    rng = np.random.default_rng(100 * n + k)
    for _ in range(3):
        w = rng.choice([-1, 1], n)
        b = F(int(rng.integers(-99, 100)), 100)
        u = int(rng.choice([-1, 1]))
        gw, gb = W.population_gradient_exact(w.tolist(), b, range(k))
        gw = [u * g for g in gw]
        xi_lo, xi_hi = B.majority_coefficient(n, k - 1), B.majority_coefficient(n, k + 1)
        for j in range(n):
            if j < k:
                expected = -F(u, 2) * xi_lo * B.character([i for i in range(k) if i != j], w.tolist())
            else:
                expected = -F(u, 2) * xi_hi * B.character([*range(k), j], w.tolist())
            assert gw[j] == expected
        assert gb == 0
        # float transform agrees
        gf, _gbf = W.population_gradient(W.relu_prime, w, float(b), range(k))
        assert np.allclose(u * gf, [float(x) for x in gw], atol=1e-14)


def test_transform_gradient_equals_bruteforce_loop():
    rng = np.random.default_rng(7)
    n = 9
    w = rng.standard_normal(n)

    def sp(z: np.ndarray) -> np.ndarray:
        return 1.0 / np.cosh(z) ** 2  # tanh'

    for S in ([0, 1], [2, 5, 7], []):
        g, gb = W.population_gradient(sp, w, 0.3, S)
        g2, gb2 = W.population_gradient_bruteforce(sp, w, 0.3, S)
        assert np.allclose(g, g2, atol=1e-13) and abs(gb - gb2) < 1e-13


# ---------------------------------------------------------------- Fig. B.8: sinusoid closed form (float, n = 10)
def test_sinusoid_closed_form_bruteforce_n10():
    rng = np.random.default_rng(16)
    n = 10
    w, c, b = rng.standard_normal(n), 0.7, 0.4
    z = W.linear_form(w)
    for kind, fn in (("cos", np.cos), ("sin", np.sin)):
        coeffs = W.walsh_coefficients(fn(c * z + b))
        for S in [*rng.integers(0, 1 << n, 30), 0, (1 << n) - 1]:
            closed = float(B.sinusoid_coefficient(w.tolist(), c, b, int(S), kind))
            assert abs(coeffs[S] - closed) < 1e-12
    # no bias: cos only even levels, sin only odd levels
    cc = W.walsh_coefficients(np.cos(c * z))
    sc = W.walsh_coefficients(np.sin(c * z))
    lev = np.array([bin(S).count("1") for S in range(1 << n)])
    assert np.abs(cc[lev % 2 == 1]).max() < 1e-14 and np.abs(sc[lev % 2 == 0]).max() < 1e-14


# ---------------------------------------------------------------- Lemmas C.3/C.4 (s-sparse good neuron)
@pytest.mark.parametrize("n,k,s", [(13, 2, 9), (14, 4, 11)])
def test_lemma_c3_c4(n, k, s):
    w = [1] * s + [0] * (n - s)  # supp(w) = first s coordinates, S = first k
    corr, _ = W.population_gradient_exact(w, 0, range(k))
    corr = [-c for c in corr]  # E[chi_S x_i 1{w.x > 0}]
    assert corr[:k] == [B.majority_coefficient(s, k - 1) / 2] * k
    assert corr[k:s] == [B.majority_coefficient(s, k + 1) / 2] * (s - k)
    assert corr[s:] == [0] * (n - s)
    assert abs(corr[k] / corr[0]) == F(k - 1, s - k) <= F(4 * k, s)
    if (n, k, s) == (13, 2, 9):
        assert float(corr[0]) == pytest.approx(0.136719, abs=1e-6)
        assert float(corr[k]) == pytest.approx(-0.019531, abs=1e-6)
    # C.4: one relevant index missing from the support -> only that coordinate is nonzero
    w_bad = [1] * s + [0] * (n - s)
    w_bad[0] = 0
    w_bad[s] = 1
    cb, _ = W.population_gradient_exact(w_bad, 0, range(k))
    cb = [-c for c in cb]
    assert cb[0] == B.majority_coefficient(s, k - 1) / 2 and all(c == 0 for c in cb[1:])


# ---------------------------------------------------------------- Lemma C.1, label noise
def test_lemma_c1():
    n, k = 10, 3
    rng = np.random.default_rng(26)
    z_cube = W.cube(n, np.float64)
    sets = [m for m in range(1 << n) if bin(m).count("1") == k]
    for _ in range(5):
        theta = rng.standard_normal(n)
        dh = (1 - np.tanh(z_cube @ theta) ** 2) / n  # d/dtheta_i h = x_i * dh, |.| <= 1/n
        hh = W.walsh_coefficients(dh)
        for i in range(n):
            vals = [hh[S ^ (1 << i)] ** 2 for S in sets]  # E[chi_S x_i dh]^2
            assert np.mean(vals) <= 1 / math.comb(n, k)


def test_label_noise_scales_gradient():
    n, k = 11, 2
    w = np.random.default_rng(10).choice([-1.0, 1.0], n)
    y = W.characters(n, range(k)).astype(float)
    g, _ = W.population_gradient(W.relu_prime, w, 0.2, range(k))
    for p in (0.1, 0.25, 0.4):
        gn, _ = W.population_gradient(W.relu_prime, w, 0.2, None, labels=(1 - 2 * p) * y)
        assert np.allclose(gn, (1 - 2 * p) * g, atol=1e-15)


# ---------------------------------------------------------------- bad input
def test_bad_input():
    with pytest.raises(ValueError, match="power of 2"):
        W.fwht(np.ones(6))
    with pytest.raises(ValueError, match="power of 2"):
        W.fwht_exact([1, 2, 3])
    with pytest.raises(ValueError, match="n must be >= 0"):
        W.cube(-2)
    with pytest.raises(ValueError, match=r"too large.*closed forms"):
        W.cube(40)
    with pytest.raises(ValueError, match="integer array"):
        W.fwht_int(np.ones(4))
    with pytest.raises(ValueError, match="C-contiguous float64"):
        W.fwht(np.ones(4, dtype=np.int64), inplace=True)
    with pytest.raises(ValueError, match="outside"):
        W.population_gradient(W.relu_prime, np.ones(5), 0, [7])
    with pytest.raises(ValueError, match=r"too large for the brute-force loop.*transform"):
        W.population_gradient_bruteforce(W.relu_prime, np.ones(22), 0, [0])


# ------------------------------------------------------------------ sizes checked before allocating (issue 32)


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: W.hadamard_block(22), "m"),  # 2^44 float64 entries: numpy's bare "128 TiB" MemoryError before
        (lambda: W.hadamard_block(10**9), "m"),
        (lambda: W.fwht_batched(np.zeros((1, 2**20)), radix=10**9), "radix"),
        (lambda: W.linear_form(np.ones(1000)), "w"),
        (lambda: W.linear_forms(np.ones((2, 1000))), "W"),
        (lambda: W.cube(27), "n"),
        (lambda: W.fwht_exact([0] * 2**18), "values"),
        (lambda: W.population_gradient_bruteforce(W.relu_prime, np.ones(21), 0.0, [0]), "w"),
    ],
)
def test_large_transforms_are_refused_before_allocating(call, param):
    from theory._checks import LimitError

    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 2.0 and info.value.param == param


def test_exact_gradient_bias_is_read_without_expanding_it():
    """A huge bias made the exact gradient hang (10^999999999 as a Fraction) or overflow int64; the bias is read
    from its exponent, and the exact threshold keeps every representable bias exact."""
    with pytest.raises(ValueError, match="4000 digits"):
        W.population_gradient_exact([1, 1, 1], "1e999999999", [0])
    for b in (Fraction(10**30), Fraction(-(10**30)), Fraction(1, 3), Fraction(-5, 2)):
        gw, gb = W.population_gradient_exact([1, 2, 3], b, [0, 1])
        ref_w, ref_b = W.population_gradient_bruteforce(W.relu_prime, np.array([1.0, 2.0, 3.0]), float(b), [0, 1])
        assert np.allclose([float(g) for g in gw], ref_w, atol=1e-15) and abs(float(gb) - ref_b) < 1e-15
