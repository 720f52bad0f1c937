"""numerics.stats against independent oracles: brute-force enumeration of Bernoulli outcomes, exact rational
arithmetic, and scipy's own tests (binomtest, fisher_exact, mannwhitneyu)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, binomtest, fisher_exact

from numerics import stats


@settings(deadline=None)  # exact Fractions of subnormal p take a while
@given(st.integers(1, 40), st.floats(0, 1))
def test_binomial_pmf_sums_to_one_and_matches_the_exact_formula(n: int, p: float) -> None:
    pmf = stats.binomial_pmf(n, p)
    assert pmf.shape == (n + 1,) and abs(pmf.sum() - 1) < 1e-9
    exact = [math.comb(n, j) * Fraction(p) ** j * (1 - Fraction(p)) ** (n - j) for j in range(n + 1)]
    assert np.allclose(pmf, [float(e) for e in exact], rtol=1e-9, atol=1e-300)


@settings(max_examples=60)
@given(st.integers(1, 60), st.data(), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_clopper_pearson_bounds_invert_the_binomial_tails(n: int, data: st.DataObject, confidence: float) -> None:
    """At the lower bound the chance of at least k successes is exactly 1 - c; at the upper bound the chance of at
    most k is 1 - c (the definition, checked with scipy's binomtest as the oracle of the two-sided interval)."""
    k = data.draw(st.integers(0, n))
    lo, hi = stats.clopper_pearson(k, n, confidence)
    alpha = 1 - confidence
    if k > 0:
        assert abs(stats.binomial_pmf(n, lo)[k:].sum() - alpha) < 1e-8
    else:
        assert lo == 0.0
    if k < n:
        assert abs(stats.binomial_pmf(n, hi)[: k + 1].sum() - alpha) < 1e-8
    else:
        assert hi == 1.0
    ref = binomtest(k, n).proportion_ci(confidence_level=1 - 2 * alpha, method="exact")  # two one-sided bounds
    assert abs(ref.low - lo) < 1e-9 and abs(ref.high - hi) < 1e-9


def test_rate_verdict_rule_on_hand_cases() -> None:
    # 0.05 ** (1/4) = 0.473 < 1/2 <= 0.05 ** (1/5) = 0.549: four clean seeds cannot show a rate above 1/2, five can
    assert stats.rate_verdict(4, 4, 0.5) == "inconclusive"
    assert stats.rate_verdict(5, 5, 0.5) == "pass"
    assert stats.rate_verdict(0, 5, 0.5) == "fail"
    assert stats.rate_verdict(2, 5, 0.5) == "inconclusive"
    with pytest.raises(ValueError, match="p0 must be > 0"):
        stats.rate_verdict(1, 2, 0.0)
    for bad in (float("nan"), -0.1, 1.5):
        with pytest.raises(ValueError, match="p0 must be a probability"):
            stats.rate_verdict(1, 2, bad)
    with pytest.raises(ValueError, match="successes"):
        stats.rate_verdict(3, 2, 0.5)


def test_rate_verdict_at_its_boundaries() -> None:
    """``pass`` iff lo >= p0 (inclusive) and ``fail`` iff hi < p0 (strict), as the docstring states: at p0 equal to
    the lower bound the verdict is a pass; at p0 = 1 with every seed a success (hi = 1 = p0) it is not a fail."""
    lo, hi = stats.clopper_pearson(8, 8)
    assert hi == 1.0 and lo < 1.0
    assert stats.rate_verdict(8, 8, lo) == "pass"
    assert stats.rate_verdict(8, 8, 1.0) == "inconclusive"


@pytest.mark.parametrize("n", [1, 3, 6, 9])
def test_power_and_flip_probability_by_enumerating_every_outcome(n: int) -> None:
    """Brute force over all 2^n seed outcomes: the power is the chance of a pass; the plug-in flip probability is the
    chance that a fresh set's verdict differs from the observed one."""
    p0, p = 0.5, 0.8
    verdict = [stats.rate_verdict(k, n, p0) for k in range(n + 1)]
    power = sum(
        p ** sum(o) * (1 - p) ** (n - sum(o)) for o in itertools.product((0, 1), repeat=n) if verdict[sum(o)] == "pass"
    )
    assert abs(stats.rate_power(n, p0, p) - power) < 1e-12
    for k in range(n + 1):
        q = k / n
        flip = sum(
            q ** sum(o) * (1 - q) ** (n - sum(o))
            for o in itertools.product((0, 1), repeat=n)
            if verdict[sum(o)] != verdict[k]
        )
        assert abs(stats.flip_probability(k, n, p0, method="plugin") - flip) < 1e-12


def test_predictive_pmf_is_the_beta_binomial_of_a_uniform_prior() -> None:
    """After k of n, fresh successes j of m have probability C(m, j) B(j + k + 1, m - j + n - k + 1) / B(k + 1,
    n - k + 1): checked in exact rationals (B of integers is a ratio of factorials)."""

    def beta(a: int, b: int) -> Fraction:
        return Fraction(math.factorial(a - 1) * math.factorial(b - 1), math.factorial(a + b - 1))

    for n, k, m in [(2, 2, 2), (8, 8, 8), (7, 3, 5), (5, 0, 9)]:
        exact = [math.comb(m, j) * beta(j + k + 1, m - j + n - k + 1) / beta(k + 1, n - k + 1) for j in range(m + 1)]
        assert sum(exact) == 1
        assert np.allclose(stats.predictive_pmf(k, n, m), [float(e) for e in exact], rtol=1e-10)


def test_flip_probability_falls_with_more_seeds() -> None:
    """All seeds passing: the predictive flip probability is below 1 % at 24 seeds, not at 8 (the seed counts the
    verdict rule needs, docs/verdicts.md)."""
    assert stats.flip_probability(8, 8, 0.5) > 0.1
    assert stats.flip_probability(24, 24, 0.5) < 0.01
    with pytest.raises(ValueError, match="method"):
        stats.flip_probability(3, 3, 0.5, method="bayes")


@settings(max_examples=40)
@given(st.integers(1, 12), st.data())
def test_fisher_greater_matches_scipy(runs: int, data: st.DataObject) -> None:
    x, y = data.draw(st.integers(0, runs)), data.draw(st.integers(0, runs))
    ref = fisher_exact([[x, runs - x], [y, runs - y]], alternative="greater").pvalue
    assert abs(float(stats.fisher_greater(x, y, runs)) - ref) < 1e-12


def test_fisher_power_by_enumeration_and_level() -> None:
    runs, level = 5, 0.1
    pw = stats.fisher_drop_power(0.9, 0.3, runs, level)
    brute = 0.0
    for x in range(runs + 1):
        for y in range(runs + 1):
            if fisher_exact([[x, runs - x], [y, runs - y]], alternative="greater").pvalue < level:
                brute += stats.binomial_pmf(runs, 0.9)[x] * stats.binomial_pmf(runs, 0.3)[y]
    assert abs(pw - brute) < 1e-12
    assert stats.fisher_drop_power(0.6, 0.6, runs, level) <= level  # no drop: the level is kept


def test_holm_step_down() -> None:
    assert stats.holm_rejections([0.01, 0.04, 0.03], 0.05) == [True, False, False]
    assert stats.holm_rejections([0.001, 0.02], 0.05) == [True, True]
    assert stats.holm_rejections([], 0.05) == []
    # a p-value equal to its threshold is not rejected ("0.03 >= 0.05/2 stops"; 0.05 / 2 == 0.025 in floats)
    assert stats.holm_rejections([0.025, 0.025], 0.05) == [False, False]
    assert stats.holm_rejections([0.05], 0.05) == [False]
    with pytest.raises(ValueError, match="p-values"):
        stats.holm_rejections([float("nan")], 0.05)


def test_mann_whitney_by_enumerating_every_ranking() -> None:
    """The exact p-value is the fraction of the C(n1 + n2, n1) equally likely rankings with U at least as large."""
    x, y = [3.1, 5.0, 7.2], [1.0, 4.0, 2.2, 0.5]
    res = stats.mann_whitney_greater(x, y)
    pooled = x + y
    u_obs = sum(a > b for a in x for b in y)
    count = total = 0
    for idx in itertools.combinations(range(len(pooled)), len(x)):
        xs = [pooled[i] for i in idx]
        ys = [pooled[i] for i in range(len(pooled)) if i not in idx]
        total += 1
        count += sum(a > b for a in xs for b in ys) >= u_obs
    statistic = res.U
    assert statistic == u_obs and abs(res.p_value - count / total) < 1e-12
    assert res.min_p == 1 / math.comb(7, 3) and res.effect == u_obs / 12
    assert stats.mann_whitney_greater([], [1.0]).p_value is None


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.sampled_from([0.01, 0.05, 0.2]))
@settings(max_examples=200, deadline=None)
def test_holm_matches_adjusted_pvalues(pvalues: list[float], alpha: float) -> None:
    """Holm's adjusted p-values max_{j <= i} min(1, (K - j + 1) p_(j)) below alpha <=> rejected; Holm sits between
    Bonferroni and the unadjusted tests."""
    k = len(pvalues)
    order = sorted(range(k), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * k, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * pvalues[i]))
        adjusted[i] = running
    got = stats.holm_rejections(pvalues, alpha)
    assert got == [a < alpha for a in adjusted]
    assert all(g >= (p * k < alpha) and g <= (p < alpha) for g, p in zip(got, pvalues))


@pytest.mark.parametrize(
    "p_narrow,p_wide,runs,level", [(1.0, 0.5, 6, 0.05), (0.9, 0.3, 7, 0.01), (0.98, 0.96, 5, 0.05)]
)
def test_drop_power_by_enumeration(p_narrow: float, p_wide: float, runs: int, level: float) -> None:
    """Exact power = sum over all outcomes of P(outcome) 1[scipy Fisher p < level], enumerated directly."""
    expect = sum(
        binom.pmf(x, runs, p_narrow) * binom.pmf(y, runs, p_wide)
        for x in range(runs + 1)
        for y in range(runs + 1)
        if fisher_exact([[x, runs - x], [y, runs - y]], alternative="greater")[1] < level
    )
    assert stats.fisher_drop_power(p_narrow, p_wide, runs, level) == pytest.approx(expect, rel=1e-9, abs=1e-15)


@given(st.floats(0, 1), st.integers(1, 15))
@settings(max_examples=30, deadline=None)
def test_drop_power_without_a_drop_is_at_most_the_level(p: float, runs: int) -> None:
    assert stats.fisher_drop_power(p, p, runs, 0.05) <= 0.05 + 1e-12


def _exact_tied_p(x: list[int], y: list[int]) -> Fraction:
    """P(midrank sum of x >= observed) by enumerating every assignment of the pooled values (ties included)."""
    from scipy.stats import rankdata

    pooled = x + y
    ranks = rankdata(pooled)
    observed = sum(ranks[: len(x)])
    choices = list(itertools.combinations(range(len(pooled)), len(x)))
    hits = sum(sum(ranks[i] for i in idx) >= observed - 1e-9 for idx in choices)
    return Fraction(hits, len(choices))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=5), st.lists(st.integers(0, 3), min_size=1, max_size=5))
def test_mann_whitney_is_exact_with_ties(x: list[int], y: list[int]) -> None:
    """With ties scipy's exact method assumed none: of 300 tied samples its p-value was smaller than the exact one
    in 194 (x = [3, 3, 2], y = [2, 2, 1, 0, 0]: 0.0357 against 3/56 = 0.0536). Oracle: every assignment enumerated."""
    res = stats.mann_whitney_greater(x, y)
    assert res.method == "exact" and abs(res.p_value - float(_exact_tied_p(x, y))) < 1e-12
    assert res.effect == pytest.approx(
        (sum(a > b for a in x for b in y) + sum(a == b for a in x for b in y) / 2) / (len(x) * len(y))
    )


@pytest.mark.parametrize("n", [513, 515, 2000])
def test_mann_whitney_of_large_samples_is_never_nan_nor_a_crash(n: int) -> None:
    """From about 513 values per sample the exact p-value was NaN (silently "not significant"), and from 515 the
    smallest p-value 1/C(2n, n) raised OverflowError, far below MAX_COUNT. Oracle: scipy's normal approximation."""
    from scipy.stats import mannwhitneyu

    x, y = np.arange(n) + 0.5, np.arange(n)
    res = stats.mann_whitney_greater(x, y)
    want = mannwhitneyu(x, y, alternative="greater", method="asymptotic").pvalue
    assert res.method == "normal" and res.p_value == pytest.approx(want) and 0.0 <= res.min_p < 1e-300


def test_probabilities_never_pass_one() -> None:
    """Sums of binomial probabilities drifted past 1 (rate_power(1000, 0.75, 0.95) = 1 + 6e-13), and an archived
    record's population.power failed the results schema's maximum of 1."""
    assert stats.rate_power(1000, 0.75, 0.95) <= 1.0 and stats.rate_power(60, 0.5, 0.95) <= 1.0
    assert stats.fisher_drop_power(0.99, 0.1, 28, 0.05) <= 1.0
    assert abs(stats.binomial_pmf(10**6, 0.3).sum() - 1) < 1e-12  # the log-gamma form was off by 3e-10


def test_probabilities_are_clamped_whatever_the_round_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cases above sum to just below 1 with today's binomial_pmf, so they no longer exercise the clamp, and the
    sign of a sum's last-bit error differs between machines (rate_power(200, 0.1, 0.99) was 1 + 2.2e-16 unclamped
    here). So the round-off is made explicit: a pmf 1e-9 too large must still give probabilities of at most 1, and
    the near-certain pass of rate_power(200, 0.1, 0.99) exactly 1."""
    exact = stats.binomial_pmf
    monkeypatch.setattr(stats, "binomial_pmf", lambda n, p: exact(n, p) * (1 + 1e-9))
    assert stats.rate_power(200, 0.1, 0.99) == 1.0
    assert stats.fisher_drop_power(0.99, 0.01, 20, 0.05) == 1.0


@pytest.mark.parametrize(
    ("x", "y", "runs"), [(np.array([0], np.uint64), np.array([0], np.uint64), 5), (np.int8(100), np.int8(100), 120)]
)
def test_fisher_reads_any_integer_type(x, y, runs) -> None:
    """Unsigned and narrow integer counts wrapped around in x - 1 and x + y (p = 0 for [[0, 5], [0, 5]], NaN)."""
    a, b = int(np.ravel(x)[0]), int(np.ravel(y)[0])
    want = fisher_exact([[a, runs - a], [b, runs - b]], alternative="greater")[1]
    assert float(np.ravel(stats.fisher_greater(x, y, runs))[0]) == pytest.approx(want)


@pytest.mark.parametrize(
    "call",
    [
        lambda: stats.rate_verdict(1, 8, True),
        lambda: stats.rate_power(8, 0.5, True),
        lambda: stats.rate_verdict(1, 8, 0.5, "0.95"),
        lambda: stats.holm_rejections(["0.01"], 0.05),
        lambda: stats.holm_rejections([True, False], 0.05),
        lambda: stats.mann_whitney_greater([1, 2], None),
        lambda: stats.mann_whitney_greater("12", [0]),
        lambda: stats.mann_whitney_greater([[1, 2], [3, 4]], [0]),
    ],
)
def test_a_boolean_a_string_or_a_table_is_not_read_as_numbers(call) -> None:
    """True read as 1.0, "0.95" as 0.95, None as an empty sample and a table flattened, all without a word."""
    with pytest.raises(stats.InputError):
        call()


def test_holm_reads_a_generator_once() -> None:
    """The check for booleans and strings consumed a generator, and Holm then rejected nothing ([])."""
    assert stats.holm_rejections((p for p in [0.001, 0.02]), 0.05) == [True, True]


def test_binomial_pmf_at_a_p_below_1e_300_is_accurate() -> None:
    """scipy's pmf underflows there (P(X = 1) of Bin(10, 1e-310) came out 0); oracle: exact rationals."""
    pmf = stats.binomial_pmf(10, 1e-310)
    assert pmf[1] == pytest.approx(float(10 * Fraction(1e-310) * (1 - Fraction(1e-310)) ** 9), rel=1e-12)


def test_a_nan_sum_of_probabilities_is_an_error_not_zero() -> None:
    with pytest.raises(ValueError, match="NaN"):
        stats._probability(float("nan"))
