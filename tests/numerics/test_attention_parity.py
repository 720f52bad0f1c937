"""numerics/attention_parity.py: float margins against the exact ones, the projection Monte Carlo of Thm 5.5.2
and the finite-M simulation (Shi Ch. 5, Sec. 5.5)."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import attention_parity as nap
from theory import attention_parity as tap


@pytest.mark.parametrize("gamma", [0.05, 0.1, 0.2])
def test_float_margins_match_exact(gamma):
    for heads in (tap.parity_construction(3), tap.parity_g1(1, 3), tap.parity_heads(**tap.COUNTEREXAMPLE_M5)):
        exact = np.array([float(m) for *_, m in tap.parity_margins(heads)])
        np.testing.assert_allclose(nap.float_margins(heads, gamma), exact, rtol=1e-12, atol=1e-12)


def test_projection_mc():
    out = nap.projection_mc(1, 3, 16, 50_000, seed=0)
    e1, e2, _ = tap.projection_ratio(1, 3, 16)
    assert abs(out["D1"] - float(e1)) <= 4 * out["D1_se"]
    assert abs(out["D2"] - float(e2)) <= 4 * out["D2_se"]


def test_projection_ratio_standard_error_matches_independent_replicates():
    """The delta-method SE of the ratio against the spread of the ratio over 40 independent replicates (seeds):
    their standard deviation estimates the same SE to about 1/sqrt(2 x 39) = 11 % (tolerance 35 %)."""
    runs = [nap.projection_mc(1, 3, 16, 5_000, seed=s) for s in range(40)]
    spread = float(np.std([r["ratio"] for r in runs], ddof=1))
    se = float(np.mean([r["ratio_se"] for r in runs]))
    assert se == pytest.approx(spread, rel=0.35)
    _, _, ratio = tap.projection_ratio(1, 3, 16)
    assert abs(runs[0]["ratio"] - float(ratio)) <= 4 * runs[0]["ratio_se"]


@pytest.mark.parametrize("n", [0, 1, 2.5, True])
def test_bad_draw_and_prompt_counts(n):
    with pytest.raises(ValueError, match="n_draws"):
        nap.projection_mc(1, 3, 16, n, seed=0)
    with pytest.raises(ValueError, match="n_prompts"):
        nap.parity_behaviour_sim(tap.parity_construction(3), 0.1, 8, n, seed=0)


def test_parity_behaviour_sim_orders_models():
    g1, g2 = tap.parity_g1(1, 3), tap.parity_construction(3)
    a = nap.parity_behaviour_sim(g1, 0.2, 64, 4000, seed=0)
    b = nap.parity_behaviour_sim(g2, 0.2, 64, 4000, seed=1)
    assert b["hinge"] - a["hinge"] > 4 * np.hypot(a["hinge_se"], b["hinge_se"])
    with pytest.raises(ValueError, match="gamma"):
        nap.parity_behaviour_sim(g1, 0.3, 8, 10, seed=0)
    with pytest.raises(ValueError, match="gamma"):
        nap.float_margins(g1, 0.25)


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: nap.projection_mc(1, 3, 16, 10**12, seed=0), "n_draws"),
        (lambda: nap.projection_mc(1, 3, 10**12, 200, seed=0), "M"),
        (lambda: nap.projection_mc(1, 10**9, 16, 200, seed=0), "nu2"),
        (lambda: nap.parity_behaviour_sim(tap.parity_g1(1, 3), 0.2, 16, 10**12, seed=0), "n_prompts"),
        (lambda: nap.parity_behaviour_sim(tap.parity_g1(1, 3), 0.2, 10**12, 200, seed=0), "M"),
    ],
)
def test_monte_carlo_counts_are_capped_from_their_cost(call, param):
    """n_draws = 10**12 died in a MemoryError, nu2 = 10**9 never returned (issue 32)."""
    import time

    from theory._checks import LimitError

    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 2.0 and info.value.param == param


def test_the_zero_one_error_does_not_jump_with_round_off_in_gamma():
    """At gamma = 0.2 the heads' sums cancelled to exactly 0 (g = 0: wrong), at 0.2 +- 1e-10 to +-1e-17 (half
    right): err01 moved by 5 points, about one standard error, with the same prompts (the hinge loss did not)."""
    import numpy as np

    from numerics.attention_parity import parity_behaviour_sim
    from theory import attention_parity as tap

    errs = {
        float(g): parity_behaviour_sim(tap.parity_g1(1, 3), g, M=16, n_prompts=100, seed=0)["err01"]
        for g in (0.2, np.float32(0.2), 0.2000000001, 0.1999999999)
    }
    assert len(set(errs.values())) == 1, errs


def _exact_one_example(heads, gamma):
    """Hinge loss and 0-1 error of ``parity_behaviour_sim`` at M = 1 and d = 2 by exact enumeration (Fractions) of
    the example's and the query's feature pairs under P(1,1) = 1/4 + gamma, P(+-) = P(-+) = 1/4, P(--) = 1/4 - gamma
    (zeta = y phi for one example; g = 0 counts as wrong)."""
    import itertools
    from fractions import Fraction

    g = Fraction(gamma)
    law = {(1, 1): Fraction(1, 4) + g, (1, -1): Fraction(1, 4), (-1, 1): Fraction(1, 4), (-1, -1): Fraction(1, 4) - g}
    hinge = err = Fraction(0)
    for p, q in itertools.product(law, law):
        y, yq = p[0] * p[1], q[0] * q[1]
        out = sum(
            a * max(Fraction(0), sum(y * p[t] * c[t] / (4 * g) * q[t] for t in range(2)))
            for a, c in zip(heads.a, heads.codes)
        )
        hinge += law[p] * law[q] * max(Fraction(0), 1 - yq * out)
        err += law[p] * law[q] * (yq * out <= 0)
    return float(hinge), float(err)


@pytest.mark.parametrize(
    ("gamma", "heads"),
    [
        ("1/5", tap.parity_construction(1)),
        ("1/10", tap.parity_construction(1)),
        # one head with codes (1, 1): g = 0 (wrong) whenever the example and the query differ in one feature
        ("1/5", tap.parity_heads(a=[1], codes=[[1, 1]])),
    ],
)
def test_behaviour_sim_at_one_example_matches_exact_enumeration(gamma, heads):
    from fractions import Fraction

    hinge, err = _exact_one_example(heads, Fraction(gamma))
    out = nap.parity_behaviour_sim(heads, float(Fraction(gamma)), M=1, n_prompts=20_000, seed=0)
    assert abs(out["hinge"] - hinge) < 5 * out["hinge_se"], (out, hinge)
    assert abs(out["err01"] - err) < 5 * out["err01_se"], (out, err)


def test_sampled_feature_pair_has_the_stated_law():
    rng = np.random.default_rng(0)
    n, gamma = 200_000, 0.2
    phi = nap._sample_phi(rng, (n,), 5, 3, 1, gamma)
    pair = phi[:, 3] * 2 + phi[:, 1]  # (1,1) -> 3, (1,-1) -> 1, (-1,1) -> -1, (-1,-1) -> -3
    for code, p in ((3, 0.25 + gamma), (1, 0.25), (-1, 0.25), (-3, 0.25 - gamma)):
        assert abs(np.mean(pair == code) - p) < 5 * np.sqrt(p * (1 - p) / n), code
    for t in (0, 2, 4):  # the other features are uniform signs
        assert abs(phi[:, t].mean()) < 5 / np.sqrt(n)


def test_nu1_equal_to_nu2_is_allowed():
    """``nu1 <= nu2`` (k = 2^nu1 <= d = 2^nu2): equal values are in range, and g_1* then projects like g_2*."""
    out = nap.projection_mc(2, 2, M=4, n_draws=50, seed=0)
    assert out["ratio"] == 1.0
