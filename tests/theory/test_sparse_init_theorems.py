"""The Thm 6.5 / C.16 schedule, widths and sample sizes, and Lemmas C.5, C.7, C.10 of theory/sparse_init.py (Edelman
thesis App. C.2): exact values against brute force, the union bounds' minimality, the Chernoff tails."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import sparse_init as tsi
from theory.boolean import fourier_coefficient


@pytest.mark.parametrize("case", [(7, 4, 2), (9, 4, 2), (11, 6, 2), (9, 6, 4)])
def test_schedule_gradients_are_the_brute_force_correlations(case):
    n, k, s = case
    sch = tsi.thm_c16_schedule(n, k, s)
    eps = sch["eps"]
    w = [Fraction(1)] * s + [eps] * (n - s)

    def h(x):
        return int(sum(wi * xi for wi, xi in zip(w, x)) > 0)

    S = list(range(k))
    assert fourier_coefficient(h, n, [j for j in S if j != s]) == sch["xi_in"]  # i = s lies in S \ S'
    assert fourier_coefficient(h, n, [*S, k]) == sch["xi_out"]  # i = k lies outside S
    assert abs(sch["xi_out"]) < sch["gamma"] < abs(sch["xi_in"])
    assert sch["gamma"] - sch["tau"] == abs(sch["xi_out"]) and sch["gamma"] + sch["tau"] == abs(sch["xi_in"])
    assert sch["eta"] * abs(sch["xi_in"]) == eps / (2 * k)
    assert sch["w_S'"] == eps / (2 * k) and sch["w_out"] == eps**2 / (2 * k)


@pytest.mark.parametrize("case", [(7, 4, 2), (13, 4, 2), (15, 6, 4)])
def test_width_is_the_smallest_the_union_bound_certifies(case):
    n, k, s = case
    delta = 0.01
    r = tsi.thm_c16_width(n, k, s, "0.01")
    q = math.comb(k, s) / math.comb(n, s) / k
    assert r % 2 == 0
    assert k * (1 - q) ** (r // 2) <= delta / 2 < k * (1 - q) ** (r // 2 - 1)


@pytest.mark.parametrize(
    ("coords", "tau", "delta", "span"), [(1, "0.1", "0.05", 2), (300, "0.03", "0.005", 2), (7, "1/3", "0.2", 1)]
)
def test_hoeffding_sample_size_is_minimal(coords, tau, delta, span):
    m = tsi.hoeffding_sample_size(coords, tau, delta, span)
    t, d = float(Fraction(tau)), float(Fraction(delta))

    def fail(mm: int) -> float:
        return 2 * coords * math.exp(-2 * mm * t * t / span**2)

    assert fail(m) <= d * (1 + 1e-12) and fail(m - 1) > d


def test_lemma_c5_sample_size_matches_its_formula_and_the_hoeffding_union_bound():
    m = tsi.lemma_c5_sample_size(8, 8, "0.25", "0.1")
    assert m == math.ceil(4 * math.log(4 * 64 / 0.1) / 0.0625)
    # 2 exp(-m tau^2/4) <= delta/(2nr) per coordinate, nr + r <= 2nr coordinates: total <= delta
    assert (8 * 8 + 8) * 2 * math.exp(-m * 0.0625 / 4) <= 0.1


def test_sample_size_grows_like_the_inverse_square_of_xi_in():
    # m = O((n-s)^(k-s-1) log): at fixed k, s, the ratio m / xi_in^-2 is a logarithm
    for n in (9, 13, 17):
        r = tsi.thm_c16_width(n, 4, 2, "0.01")
        m = tsi.thm_c16_sample_size(n, 4, 2, r, "0.01")
        tau = tsi.thm_c16_schedule(n, 4, 2)["tau"]
        assert m == math.ceil(4 * math.log(2 * n * r // 2 / 0.005) / (2 * float(tau) ** 2))


def _binomial_tails(N: int, q: Fraction, mu: Fraction) -> tuple[Fraction, Fraction]:
    pmf = [math.comb(N, x) * q**x * (1 - q) ** (N - x) for x in range(N + 1)]
    low = sum((p for x, p in enumerate(pmf) if x < mu / 2), Fraction(0))
    high = sum((p for x, p in enumerate(pmf) if x > 3 * mu / 2), Fraction(0))
    return low, high


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.fractions(min_value=Fraction(1, 100), max_value=Fraction(99, 100), max_denominator=100))
def test_corrected_chernoff_tails_hold_for_every_binomial(N, q):
    mu = N * q
    bound = tsi.lemma_c10_chernoff_bound(mu)
    low, high = _binomial_tails(N, q, mu)
    assert low <= float(bound) * (1 + 1e-12) and high <= float(bound) * (1 + 1e-12)


def test_printed_chernoff_tails_fail_at_the_lemma_width():
    r = tsi.lemma_c10_width(15, 2, 9, "0.1")
    mu = tsi.lemma_c10_mean(r, 15, 2, 9)
    assert mu == Fraction(r, 4) * Fraction(9, 30) ** 2
    q = Fraction(9, 30) ** 2 / 2
    pmf = [math.comb(r // 2, x) * q**x * (1 - q) ** (r // 2 - x) for x in range(r // 2 + 1)]
    above_half = sum((p for x, p in enumerate(pmf) if x > mu / 2), Fraction(0))
    assert above_half > Fraction(99, 100) > float(tsi.lemma_c10_chernoff_bound(mu))


def test_lemma_c10_width_matches_its_formula():
    r = tsi.lemma_c10_width(40, 4, 17, "0.1")
    raw = math.ceil(80 * (80 / 17) ** 4 * math.log(80))
    assert r == raw + raw % 2


def test_lemma_c7_bound_is_the_norm_product():
    w, rows = [1, 2, 2], [[0, "1/2", 0], [1, 1, 1], ["1/4", 0, 0]]
    assert tsi.lemma_c7_bound(w, rows) == sympy.sqrt(3) * 3
    assert tsi.lemma_c7_bound([Fraction(3, 4)], [[2]]) == sympy.Rational(3, 2)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: tsi.thm_c16_schedule(8, 4, 2), "n - s odd"),
        (lambda: tsi.thm_c16_schedule(9, 6, 2), "no truncation threshold"),
        (lambda: tsi.thm_c16_width(7, 4, 2, 0), "delta"),
        (lambda: tsi.thm_c16_sample_size(7, 4, 2, 5, "0.01"), "even"),
        (lambda: tsi.hoeffding_sample_size(0, "0.1", "0.1"), "coordinates"),
        (lambda: tsi.hoeffding_sample_size(1, 0, "0.1"), "tau"),
        (lambda: tsi.lemma_c5_sample_size(8, 8, "0.1", 1), "delta"),
        (lambda: tsi.lemma_c10_width(5, 3, 2, "0.1"), "k <= s <= n"),
        (lambda: tsi.lemma_c10_mean(7, 15, 2, 9), "even"),
        (lambda: tsi.lemma_c10_chernoff_bound(0), "mu"),
        (lambda: tsi.lemma_c7_bound([1, 2], [[1]]), "len"),
        (lambda: tsi.thm_c16_correlation_threshold("0.5"), "eps"),
    ],
)
def test_inputs_are_checked(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("k", [2, 4, 6])
def test_lemma_c6_constants_readout_interpolates_chi_on_the_lattice(k):
    c = tsi.lemma_c6_constants(k)
    betas = [Fraction(-k + 2 * j, 2 * k) + Fraction(1, 32 * k) for j in range(k // 2)]
    for s in range(-k, k + 1, 2):
        feats = [Fraction(1)] + [max(Fraction(s, 2 * k) + b, Fraction(0)) for b in betas]
        feats += [max(Fraction(-s, 2 * k) + b, Fraction(0)) for b in betas]
        assert sum(sympy.Rational(f.numerator, f.denominator) * w for f, w in zip(feats, c["weights"])) == (-1) ** (
            (k - s) // 2
        )
        assert sum(f * f for f in feats) <= c["psi_norm"] ** 2
    assert c["B"] ** 2 == sum(w**2 for w in c["weights"])


def test_lemma_c9_steps_and_sample_size_are_minimal():
    T = tsi.lemma_c9_steps(1.0001, 181.0, 0.14)
    target = 100 * (1.0001 + 1 / 181.0) ** 2 / 0.14**2
    assert T / math.log(T) >= target > (T - 1) / math.log(T - 1)
    m = tsi.lemma_c9_sample_size(1.0, 181.0, 0.14, "0.05")
    assert m == math.ceil((4 * math.sqrt(2) * 181.0 + 1) ** 2 * math.log(40) / 0.14**2)


def test_lemma_c8_gap_adds_the_feature_distance_term():
    base = tsi.lemma_c8_gap(2.0, 1.0, 400, "0.1", 0.0)
    assert base == pytest.approx(5 * math.sqrt(2 * math.log(20)) / 20)
    assert tsi.lemma_c8_gap(2.0, 1.0, 400, "0.1", 0.25) == pytest.approx(base + 1.0)
