"""numerics/fourier_gaps.py: batch gradients and gaps (Prop. B.7, Figs. B.7, B.8) against brute force over
the cube (numerics.walsh.population_gradient_bruteforce), the sympy closed forms of theory.boolean and
Lemma B.3; statistical checks with fixed seeds and stated tolerances; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from numerics import fourier_gaps as fg
from numerics import walsh as nw
from theory import boolean as tb


# ---------------------------------------------------------------- batched transform
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 11), st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_fwht_batched_matches_butterfly(n, radix, seed):
    x = np.random.default_rng(seed).standard_normal((3, 2, 1 << n))
    np.testing.assert_allclose(nw.fwht_batched(x, radix=radix), nw.fwht(x), rtol=0, atol=1e-10 * (1 << n))
    v = np.random.default_rng(seed).integers(-9, 9, (2, 1 << n))
    assert np.array_equal(nw.fwht_batched(v, radix=radix), nw.fwht_int(v))  # exact on integers


def test_linear_forms_match_walsh_linear_form():
    W = np.random.default_rng(0).standard_normal((3, 8))
    Z = nw.linear_forms(W)
    for w, z in zip(W, Z):
        assert np.array_equal(z, nw.linear_form(w))
    np.testing.assert_allclose(Z, W @ nw.cube(8, np.float64).T, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- gaps
@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.integers(3, 9), elements=st.floats(-1, 1, allow_nan=False)), st.data())
def test_gaps_match_scalar_definition(g, data):
    k = data.draw(st.integers(1, g.shape[0] - 1))
    gmax, gmin = fg.gaps(g[None, :], k)
    assert gmax[0] == nw.fourier_gap_from_gradient(g, range(k), relaxed=True)
    assert gmin[0] == nw.fourier_gap_from_gradient(g, range(k))
    assert bool(fg.recovered(g[None, :], k)[0]) == (gmin[0] > 0)


# ---------------------------------------------------------------- exact gradients vs brute force
@pytest.mark.parametrize("n,k", [(9, 2), (9, 4), (11, 2)])
def test_sign_population_gradient_is_lemma_b3_bruteforce(n, k):
    W = fg.random_weights("sign", 3, n, np.random.default_rng(n + k))
    G = fg.sign_population_gradient(W, k)
    for w, g in zip(W, G):
        gw, _gb = nw.population_gradient_bruteforce(nw.relu_prime, w, 0.0, range(k))
        np.testing.assert_allclose(g, gw, rtol=0, atol=1e-12)


@pytest.mark.parametrize("dist,b", [("gaussian", 0.0), ("uniform", 0.0), ("gaussian", 0.37)])
def test_ltf_gradients_match_bruteforce(dist, b):
    n = 7
    W = fg.random_weights(dist, 5, n, np.random.default_rng(1))
    G = fg.ltf_gradients(W, [1, 2, 3], b=b, chunk=2)
    for k in (1, 2, 3):
        for w, g in zip(W, G[k]):
            gw, _ = nw.population_gradient_bruteforce(nw.relu_prime, w, b, range(k))
            np.testing.assert_allclose(g, -gw, rtol=0, atol=1e-12)


def test_sign_weights_give_exactly_the_majority_reference():
    """Lemma B.3: for sign w (n odd) |g| is ½|Maj_n(k∓1)|, so Γ_max = Γ_min = γ_grad for every draw."""
    n = 13
    for k in (2, 4):
        gmax, gmin = fg.random_ltf_gaps(n, [k], "sign", 20, seed=3)[k]
        ref = float(fg.gradient_gap_reference(n, k))
        np.testing.assert_allclose(gmax, ref, rtol=0, atol=1e-14)
        np.testing.assert_allclose(gmin, ref, rtol=0, atol=1e-14)


def test_gradient_gap_reference_is_half_the_majority_gap():
    for n, k in [(15, 2), (15, 4), (21, 2)]:
        assert fg.gradient_gap_reference(n, k) * 2 == tb.majority_gap_closed_form(n, k)


def test_odd_k_unbiased_ltf_gap_is_zero():
    """h(x) + h(-x) = 1 without a bias, so the even levels k±1 vanish for odd k."""
    res = fg.random_ltf_gaps(11, [3, 5], "uniform", 30, seed=0)
    for k in (3, 5):
        assert np.abs(res[k][0]).max() <= 1e-12


# ---------------------------------------------------------------- sinusoids
@pytest.mark.parametrize("kind", ["cos", "sin"])
@pytest.mark.parametrize("b", [0.0, 0.4])
def test_sinusoid_closed_form_matches_theory_and_bruteforce(kind, b):
    n, k, c = 5, 2, 0.7
    W = np.random.default_rng(2).standard_normal((2, n))
    G = fg.sinusoid_gradients(W, k, c, b=b, kind=kind)
    Gb = fg.sinusoid_gradients_bruteforce(W, k, c, b=b, kind=kind)
    np.testing.assert_allclose(G, Gb, rtol=0, atol=1e-12)
    for w, g in zip(W, G):
        oracle = [float(tb.sinusoid_coefficient(list(w), c, b, ((1 << k) - 1) ^ (1 << i), kind=kind)) for i in range(n)]
        np.testing.assert_allclose(g, oracle, rtol=0, atol=1e-12)


def test_sinusoid_gradient_matches_population_gradient_at_n10():
    """Closed form vs numerics.walsh.population_gradient with σ' = cos(c·)."""
    n, c = 10, 1 / math.sqrt(10)
    W = np.random.default_rng(4).standard_normal((3, n))
    for k in (2, 3):
        G = fg.sinusoid_gradients(W, k, c)
        for w, g in zip(W, G):
            gw, _ = nw.population_gradient(lambda z: np.cos(c * z), w, 0.0, range(k))
            np.testing.assert_allclose(g, -gw, rtol=0, atol=1e-12)


def test_sinusoid_gap_parity_of_k():
    """Through cos only even levels survive: Γ = 0 for even k, Γ > 0 for odd k (Fig. B.8)."""
    _, res = fg.sinusoid_gaps(15, [2, 3, 4], "gaussian", 200, seed=0)
    assert np.abs(res[2][0]).max() == 0 and np.abs(res[4][0]).max() == 0
    assert (res[3][0] > 0).mean() >= 0.95


# ---------------------------------------------------------------- batch gradients (Prop. B.7)
@pytest.mark.parametrize("method", ["streamed", "counts"])
def test_batch_gradient_is_unbiased(method):
    """Mean of T independent batch gradients at one w vs the exact ḡ: each coordinate has variance <= 1/(TB);
    tolerance 5 standard errors (all n coordinates; fixed seed)."""
    n, k, B, T = 9, 2, 500, 400
    w = fg.random_weights("sign", 1, n, np.random.default_rng(0))
    Wt = np.repeat(w, T, axis=0)
    rng = np.random.default_rng(11)
    G = (
        fg.batch_gradients_streamed(Wt, k, B, rng, chunk_elems=4096)
        if method == "streamed"
        else fg.batch_gradients_counts(Wt, k, B, rng)
    )
    assert np.all(np.abs(G) <= 1)
    assert np.allclose(G * B, np.round(G * B))  # sums of ±1/0 terms
    err = np.abs(G.mean(0) - fg.sign_population_gradient(w, k)[0])
    assert err.max() <= 5 / math.sqrt(T * B)


def test_streamed_and_counts_give_the_same_success_rate():
    """Same law: success rates at n=11, k=2, B = 5/γ² over 400 trials each differ by < 0.12 (≈ 4 SE)."""
    n, k = 11, 2
    B = math.ceil(5 / float(fg.gradient_gap_reference(n, k)) ** 2)
    a = fg.one_step_recovery(n, k, [B], 400, seed=5, method="streamed")
    b = fg.one_step_recovery(n, k, [B], 400, seed=6, method="counts")
    assert abs(a.rates[0] - b.rates[0]) < 0.12
    assert a.violations == (0,) and b.violations == (0,)


def test_one_step_recovery_b1_small():
    """Prop. B.7 at n=21, k=2 with 100 trials: P >= 0.95 at 20/γ² and <= 0.5 at 1/γ²; no Prop. B.7 violations."""
    n, k = 21, 2
    g = float(fg.gradient_gap_reference(n, k))
    r = fg.one_step_recovery(n, k, [math.ceil(1 / g**2), math.ceil(20 / g**2)], 100, seed=0)
    assert r.rates[0] <= 0.5 and r.rates[1] >= 0.95
    assert r.violations == (0, 0) and r.within[1] >= r.within[0]


# ---------------------------------------------------------------- bad input
def test_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n odd"):
        fg.one_step_recovery(10, 2, [10], 5, 0)
    with pytest.raises(ValueError, match="method"):
        fg.one_step_recovery(11, 2, [10], 5, 0, method="magic")
    with pytest.raises(ValueError, match="dist"):
        fg.random_weights("cauchy", 2, 3, rng)
    with pytest.raises(ValueError, match="batch size"):
        fg.batch_gradients_streamed(np.ones((1, 5)), 2, 0, rng)
    with pytest.raises(ValueError, match="1 <= k <= n-1"):
        fg.gaps(np.ones((2, 4)), 4)
    with pytest.raises(ValueError, match="sign weights"):
        fg.sign_population_gradient(np.full((1, 5), 0.5), 2)
    with pytest.raises(ValueError, match="n <= 20"):
        fg.batch_gradients_counts(np.ones((1, 21)), 2, 5, rng)
    with pytest.raises(ValueError, match="power of 2"):
        nw.fwht_batched(np.ones(6))
    with pytest.raises(ValueError, match="kind"):
        fg.sinusoid_gradients(np.ones((1, 4)), 2, 0.5, kind="tan")


# ---------------------------------------------------------------- issue 32: sizes from their cost, no garbage
def test_monte_carlo_batch_sizes_and_trials_are_capped_by_their_cost():
    # Before the fix, B = 10**12 streamed forever, and one_step_recovery with 10**12 trials never returned.
    from theory._checks import LimitError

    rng = np.random.default_rng(0)
    with pytest.raises(LimitError, match="B = ") as info:
        fg.batch_gradients_streamed(np.ones((1, 5)), 2, 10**12, rng)
    assert info.value.param == "B"
    with pytest.raises(LimitError, match="Monte-Carlo work") as info:  # 1000 trials x 10^7 samples x 5 bits
        fg.batch_gradients_streamed(np.ones((1000, 5)), 2, 10**7, rng)
    assert info.value.param == "B"
    with pytest.raises(LimitError) as info:
        fg.one_step_recovery(5, 2, [8], 10**12, 0)
    assert info.value.param == "trials"
    with pytest.raises(LimitError) as info:
        fg.one_step_recovery(21, 2, [10**7], 1000, 0)  # streamed: 1000 x 10^7 x 21 entries
    assert info.value.param == "trials"
    with pytest.raises(LimitError) as info:
        fg.batch_gradients_counts(np.ones((1, 5)), 2, 10**400, rng)  # int64 multinomial counts
    assert info.value.param == "B"


def test_exact_transforms_are_capped_before_drawing():
    from theory._checks import LimitError

    with pytest.raises(LimitError) as info:
        fg.random_ltf_gaps(20, [2], "sign", 10**4, seed=0)  # 10^4 x 2^20 x 20
    assert info.value.param == "draws"
    with pytest.raises(LimitError) as info:
        fg.ltf_gradients(np.ones((1, 27)), [2])
    assert info.value.param == "W"


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: fg.ltf_gradients(np.ones((3, 5)), [2], chunk=0), "chunk"),  # returned np.empty garbage
        (lambda: fg.one_step_recovery(5, 2, [8], 10, 0, chunk_trials=0), "chunk_trials"),
        (lambda: fg.sinusoid_gradients_bruteforce(np.ones((1, 4)), 2, 0.5, kind="tan"), "kind"),  # silently sin
        (lambda: fg.sinusoid_gaps(5, [1], "uniform", 10, seed=0, c=float("nan")), "c"),  # NaN gaps
        (lambda: fg.ltf_gradients(np.ones((1, 5)), [2], b=float("nan")), "b"),  # gradients of 0
        (lambda: fg.gaps(np.array([[np.nan, 0.1, 0.2]]), 1), "g"),
    ],
)
def test_bad_values_are_refused_naming_the_parameter(call, param):
    from theory._checks import InputError

    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param
