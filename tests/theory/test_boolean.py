"""Exact checks of theory/boolean.py (Edelman thesis Lemmas B.1, B.2, C.2, C.12, Prop. 6.3; errata in docs/boolean.md).

Brute force over {±1}^n (pure Python, exact integers/Fractions) is the oracle for n <= 12; the closed
forms and exact identities are checked beyond.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import boolean as B

F = Fraction

# reference table of Maj_n(k), n odd, k = 1, 3, 5, ... (O'Donnell Thm 5.19)
MAJ_TABLE = {
    1: [F(1)],
    3: [F(1, 2), F(-1, 2)],
    5: [F(3, 8), F(-1, 8), F(3, 8)],
    7: [F(5, 16), F(-1, 16), F(1, 16), F(-5, 16)],
    9: [F(35, 128), F(-5, 128), F(3, 128), F(-5, 128), F(35, 128)],
    11: [F(63, 256), F(-7, 256), F(3, 256), F(-3, 256), F(7, 256), F(-63, 256)],
    13: [F(x, 1024) for x in (231, -21, 7, -5, 7, -21, 231)],
    15: [F(x, 2048) for x in (429, -33, 9, -5, 5, -9, 33, -429)],
}
# even n, tie -> -1 (App. C.2.3), k = 0..n
MAJ_EVEN = {
    2: [F(-1, 2), F(1, 2), F(1, 2)],
    4: [F(x, 8) for x in (-3, 3, 1, -1, -3)],
    6: [F(x, 16) for x in (-5, 5, 1, -1, -1, 1, 5)],
    8: [F(x, 128) for x in (-35, 35, 5, -5, -3, 3, 5, -5, -35)],
    10: [F(x, 256) for x in (-63, 63, 7, -7, -3, 3, 3, -3, -7, 7, 63)],
    12: [F(x, 1024) for x in (-231, 231, 21, -21, -7, 7, 5, -5, -7, 7, 21, -21, -231)],
}
# Half_m at 2j = 0, 2, 4, ... (Lemma C.12 with the factor 2^-m)
HALF_TABLE = {
    2: [F(1, 2), F(-1, 2)],
    4: [F(3, 8), F(-1, 8), F(3, 8)],
    6: [F(x, 16) for x in (5, -1, 1, -5)],
    8: [F(x, 128) for x in (35, -5, 3, -5, 35)],
    10: [F(x, 256) for x in (63, -7, 3, -3, 7, -63)],
    12: [F(x, 1024) for x in (231, -21, 7, -5, 7, -21, 231)],
    14: [F(x, 2048) for x in (429, -33, 9, -5, 5, -9, 33, -429)],
}


# ---------------------------------------------------------------- basics
def test_characters_orthonormal_and_encoding():
    n = 4
    pts = B.cube(n)
    assert pts[0] == (1, 1, 1, 1) and pts[1] == (-1, 1, 1, 1) and pts[-1] == (-1, -1, -1, -1)
    for S in range(1 << n):
        for T in range(1 << n):
            inner = F(sum(B.character(S, x) * B.character(T, x) for x in pts), 1 << n)
            assert inner == (1 if S == T else 0)


def test_fourier_expansion_reconstructs_function():
    rng = random.Random(3)
    n = 5
    table = {x: F(rng.randint(-9, 9), rng.randint(1, 5)) for x in B.cube(n)}
    coeffs = B.fourier_coefficients(table.__getitem__, n)
    for x, v in table.items():
        assert sum(c * B.character(S, x) for S, c in enumerate(coeffs)) == v
    assert coeffs[0b10110] == B.fourier_coefficient(table.__getitem__, n, [1, 2, 4])


def test_derivative_and_influence():
    n = 5
    coeffs = B.fourier_coefficients(B.majority, n)
    for i in range(n):
        Df = B.derivative(B.majority, i)
        dco = B.fourier_coefficients(Df, n)
        for T in range(1 << n):
            expected = coeffs[T | 1 << i] if not T >> i & 1 else 0
            assert dco[T] == expected
        assert B.influence(B.majority, n, i) == sum(c * c for S, c in enumerate(coeffs) if S >> i & 1)
    # Half_{n-1} = D_n Maj_n for odd n (derivative in the last coordinate)
    D = B.derivative(B.majority, n - 1)
    for x in B.cube(n):
        assert D(x) == B.half(x[:-1])


# ---------------------------------------------------------------- Lemma B.1: Majority closed form
@pytest.mark.parametrize("n", sorted(MAJ_TABLE))
def test_majority_table_and_bruteforce(n):
    assert [B.majority_coefficient(n, k) for k in range(1, n + 1, 2)] == MAJ_TABLE[n]
    assert all(B.majority_coefficient(n, k) == 0 for k in range(0, n + 1, 2))
    if n <= 11:
        coeffs = B.fourier_coefficients(B.majority, n)
        for S, c in enumerate(coeffs):
            assert c == B.majority_coefficient(n, bin(S).count("1"))
    for k in range(n + 1):
        if n <= 13:
            assert B.majority_coefficient_bruteforce(n, k) == B.majority_coefficient(n, k)


@pytest.mark.parametrize("n", sorted(MAJ_EVEN))
def test_even_n_tie_rule(n):
    assert B.majority_coefficients(n) == MAJ_EVEN[n]
    if n <= 10:
        assert [B.majority_coefficient_bruteforce(n, k) for k in range(n + 1)] == MAJ_EVEN[n]
    # Maj_n(x) = Maj_{n+1}(x, -1)
    for x in B.cube(n):
        assert B.majority(x) == B.majority((*x, -1))


def test_larger_majority_values():
    for (n, k), v in {
        (21, 1): 0.176197,
        (21, 3): -0.00927353,
        (21, 5): 0.00163651,
        (51, 3): -0.00229133,
        (101, 3): -8.03932e-4,
        (101, 5): 2.48639e-5,
    }.items():
        assert float(B.majority_coefficient(n, k)) == pytest.approx(v, rel=1e-5)


# ---------------------------------------------------------------- Majority: recurrence, mirror symmetry, Parseval
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 100), st.data())
def test_majority_ratio_identity(h, data):
    n = 2 * h + 1
    j = 2 * data.draw(st.integers(0, (n - 3) // 2)) + 1
    assert B.majority_coefficient(n, j + 2) / B.majority_coefficient(n, j) == B.majority_ratio(n, j)
    assert B.majority_ratio(n, j) == F(-j, n - j - 1)


@pytest.mark.parametrize("n", range(1, 202, 2))
def test_majority_mirror_and_parseval(n):
    for k in range(1, n + 1, 2):
        assert abs(B.majority_coefficient(n, k)) == abs(B.majority_coefficient(n, n + 1 - k))
    assert sum(B.majority_level_weight(n, k) for k in range(n + 1)) == 1


def test_parseval_even_n():
    for n in range(2, 40, 2):
        assert sum(B.majority_level_weight(n, k) for k in range(n + 1)) == 1


def test_consecutive_odd_levels_form_used_in_B2():
    for n in range(5, 99, 2):
        for k in range(2, n - 1, 2):
            assert abs(B.majority_coefficient(n, k - 1)) == F(n - k, k - 1) * abs(B.majority_coefficient(n, k + 1))


# ---------------------------------------------------------------- Lemma B.1: level weights and their decay
@pytest.mark.parametrize("k", [1, 3, 5, 7, 11, 21])
def test_level_weight_decreasing_to_rho(k):
    ws = [B.majority_level_weight(n, k) for n in range(k, 402, 2)]
    assert all(a > b for a, b in itertools.pairwise(ws))
    r = B.rho(k)
    for n_start in range(10 * k + 1 if (10 * k) % 2 == 0 else 10 * k, 2002, 40):
        n = n_start + 1 if n_start % 2 == 0 else n_start
        dev = (sympy.Rational(B.majority_level_weight(n, k)) - r) / r
        dev = dev.evalf(40)
        assert 0 < dev <= sympy.Rational(k, n)


def test_rho_values_and_exponent():
    for k, v in {1: 0.63662, 3: 0.10610, 5: 0.04775, 7: 0.02842, 9: 0.01934}.items():
        assert float(B.rho(k)) == pytest.approx(v, abs=6e-6)
    assert float(B.rho(41) * 41**1.5) == pytest.approx(0.5111, abs=1e-4)
    assert float((2 / sympy.pi) ** sympy.Rational(3, 2)) == pytest.approx(0.50795, abs=1e-5)
    # Lemma B.1 as printed: the k^{-2/3} order is wrong; rho(k) k^{2/3} -> 0 while rho(k) k^{3/2} stays bounded
    r = [float(B.rho(k) / B.rho_as_printed_exponent(k)) for k in (1, 11, 101, 1001)]
    assert all(a > b for a, b in itertools.pairwise(r)) and r[-1] < 0.01
    # the level weight at n = 2001
    assert float(B.majority_level_weight(2001, 3)) == pytest.approx(0.106183, abs=1e-6)


def test_level1_asymptotics():
    for n in (3, 11, 101, 1001, 4001):
        d = (n * sympy.Rational(B.majority_coefficient(n, 1)) ** 2 - 2 / sympy.pi).evalf(50)
        assert 0 < d <= sympy.Rational(1, n)
    assert float(101 * B.majority_coefficient(101, 1) ** 2) == pytest.approx(0.639779, abs=1e-6)
    assert float(1001 * B.majority_coefficient(1001, 1) ** 2) == pytest.approx(0.636938, abs=1e-6)


def test_large_n_asymptotics():
    ratio = abs(B.majority_coefficient(10001, 5)) / B.majority_asymptotic(10001, 5)
    assert abs(float(ratio) - 1) < 0.01
    assert float(abs(B.majority_coefficient(1001, 3))) == pytest.approx(2.5250e-5, rel=1e-4)
    assert float(B.majority_asymptotic(1001, 3)) == pytest.approx(2.5194e-5, rel=1e-4)
    assert float(B.majority_asymptotic(10001, 5)) == pytest.approx(2.3931e-10, rel=1e-4)


# ---------------------------------------------------------------- Lemma C.12: Half
@pytest.mark.parametrize("m", sorted(HALF_TABLE))
def test_half_closed_form(m):
    assert [B.half_coefficient(m, k) for k in range(0, m + 1, 2)] == HALF_TABLE[m]
    assert all(B.half_coefficient(m, k) == 0 for k in range(1, m + 1, 2))
    assert all(B.half_coefficient(m, 2 * j) == B.majority_coefficient(m + 1, 2 * j + 1) for j in range(m // 2 + 1))
    if m <= 12:
        coeffs = B.fourier_coefficients(B.half, m)
        assert all(c == B.half_coefficient(m, bin(S).count("1")) for S, c in enumerate(coeffs))
        # Lemma C.12 as printed: the form (no 2^{-m}) disagrees with brute force
        assert coeffs[0] != B.half_coefficient_as_printed(m, 0)
        assert B.half_coefficient_as_printed(m, 0) == coeffs[0] * 2**m


def test_half_full_set():
    assert [B.half_full_set_coefficient(s) for s in (2, 4, 6, 8)] == [F(-1, 2), F(3, 8), F(-5, 16), F(35, 128)]


# ---------------------------------------------------------------- LTF identity (Lemma B.3)
@pytest.mark.parametrize("n", [1, 3, 5, 7, 9])
def test_ltf_identity(n):
    rng = random.Random(n)
    for _ in range(3):
        w = [rng.choice((-1, 1)) for _ in range(n)]
        b = F(rng.randint(-99, 99), 100)
        f = B.ltf(w, b)
        for x in B.cube(n):
            assert f(x) == F(1, 2) + F(1, 2) * B.majority([wi * xi for wi, xi in zip(w, x)])
        coeffs = B.fourier_coefficients(f, n)
        assert all(c == B.ltf_coefficient(w, b, S) for S, c in enumerate(coeffs))
        # odd n: unbiased/biased LTF has no even-level signal except the constant
        assert all(c == 0 for S, c in enumerate(coeffs) if S and bin(S).count("1") % 2 == 0)


# ---------------------------------------------------------------- Definition 5.4, Lemma B.2
GAP_TABLE = {
    (5, 2): F(1, 4),
    (9, 2): F(15, 64),
    (11, 2): F(7, 32),
    (15, 2): F(99, 512),
    (17, 4): F(165, 16384),
    (21, 4): F(1001, 131072),
    (25, 4): F(12597, 2097152),
    (25, 6): F(1547, 2097152),
}


def test_gap_table_and_closed_form():
    for (n, k), g in GAP_TABLE.items():
        assert B.majority_gap(n, k) == g == B.majority_gap_closed_form(n, k)
        assert B.majority_gap_closed_form(n, k) == F(n - 2 * k + 1, n - k) * abs(B.majority_coefficient(n, k - 1))
    assert float(B.majority_gap(51, 4)) == pytest.approx(0.00214507, rel=1e-5)
    assert float(B.majority_gap(49, 6)) == pytest.approx(1.43610e-4, rel=1e-5)
    assert float(B.lemma_b2_bound(17, 4)) == pytest.approx(4.6875e-4)


def test_gap_from_bruteforce_definition():
    for n, k in [(9, 2), (11, 4), (7, 2), (9, 3)]:
        coeffs = B.fourier_coefficients(B.majority, n)
        assert B.fourier_gap(coeffs, n, range(k)) == B.majority_gap(n, k)


def _bound_holds(n, k):
    # gap >= (3/100)(n-1)^{-(k-1)/2}  <=>  gap^2 (n-1)^{k-1} >= 9/10^4 (both sides >= 0), exact
    g = B.majority_gap(n, k)
    return g > 0 and g * g * (n - 1) ** (k - 1) >= F(9, 10**4)


@pytest.mark.parametrize("k", range(2, 21, 2))
def test_lemma_b2_holds(k):
    ns = list(range(4 * k + 1, 402, 2)) + list(range(403, 4002, 50))
    assert all(_bound_holds(n, k) for n in ns)
    # the smallest gap/bound ratios per k
    minima = {2: (9, 22.1), 4: (17, 21.5), 6: (25, 69.4), 8: (33, 385)}
    if k in minima:
        n, r = minima[k]
        assert float(B.majority_gap(n, k) / B.lemma_b2_bound(n, k)) == pytest.approx(r, rel=5e-3)


def test_odd_k_gap_is_zero_and_b2_refuses():
    for n in range(5, 60, 2):
        for k in range(1, n, 2):
            assert B.majority_gap(n, k) == 0
    with pytest.raises(ValueError, match="k even"):
        B.lemma_b2_bound(21, 3)
    with pytest.raises(ValueError, match="n odd"):
        B.lemma_b2_bound(20, 2)
    with pytest.raises(ValueError, match="n >= 4k"):
        B.lemma_b2_bound(9, 4)
    with pytest.raises(ValueError, match="k even"):
        B.majority_gap_closed_form(21, 3)


# ---------------------------------------------------------------- Sec. 5.3: interpolating activations
def test_oscillating_polynomials_and_sinusoid():
    z = sympy.Symbol("z")
    expected = {
        1: z,
        2: z**2 / 2 - 1,
        3: (z**3 - 7 * z) / 6,
        4: (z**4 - 16 * z**2 + 24) / 24,
        5: z * (z**4 - 30 * z**2 + 149) / 120,
        6: (z**6 - 50 * z**4 + 544 * z**2 - 720) / 720,
    }
    for k, p in expected.items():
        pk = B.oscillating_polynomial(k, z)
        assert sympy.expand(pk - p) == 0
        assert sympy.degree(pk, z) == k
        for j in range(k + 1):
            assert pk.subs(z, k - 2 * j) == (-1) ** j
        sig = B.sinusoid_activation(k, z)
        for j in range(k + 1):
            assert sig.subs(z, k - 2 * j) == (-1) ** j
    # sigma(w_S.x) = chi_S(x) on the whole cube
    n, S = 6, [0, 2, 5]
    sig = B.sinusoid_activation(len(S), z)
    for x in B.cube(n):
        assert sig.subs(z, sum(x[i] for i in S)) == B.character(S, x)


# ---------------------------------------------------------------- Fig. B.8: sinusoid closed form (exact symbolic check)
def test_sinusoid_closed_form_exact_small():
    n = 3
    w = [sympy.Rational(1, 3), sympy.Rational(-2, 5), sympy.Rational(3, 7)]
    c, b = sympy.Rational(7, 4), sympy.Rational(1, 5)
    for kind, fn in (("cos", sympy.cos), ("sin", sympy.sin)):
        for S in range(1 << n):
            brute = sum(fn(c * sum(wi * xi for wi, xi in zip(w, x)) + b) * B.character(S, x) for x in B.cube(n)) / 2**n
            closed = B.sinusoid_coefficient(w, c, b, S, kind)
            assert abs(sympy.N(brute - closed, 50)) < sympy.Float("1e-45")


# ---------------------------------------------------------------- Lemma C.2, Prop. 6.3
def test_lemma_c2_grid():
    """Lemma C.2's inequality holds under its hypothesis 4k < s <= n (App. C.2.2), and indeed for s >= k+3 on
    the grid, but not for s in {k, k+1, k+2} at larger n, k, outside the lemma's hypothesis 4k < s (docs/boolean.md).

    E.g. (n, k, s) = (48, 11, 11): 1/C(48,11) < (11/96)^11 -- outside the lemma's hypothesis.  At s = k
    the left side is 1/C(n,k) >= (k/(e n))^k only, which is below (k/2n)^k once C(n,k) > (2n/k)^k.
    The smallest failing n is 48 and the smallest failing k is 7 for n <= 200 (all failures have s-k <= 2).
    """
    failures = []
    for n in range(1, 61):
        for s in range(0, n + 1):
            for k in range(0, s + 1):
                if not B.lemma_c2_holds(n, k, s):
                    failures.append((n, k, s))
    assert failures and min(failures) == (48, 11, 11)
    assert {s - k for _, k, s in failures} <= {0, 1, 2}
    assert all(not 4 * k < s for _, k, s in failures), "Lemma C.2 must hold under its hypothesis 4k < s"
    assert F(1, math.comb(48, 11)) < F(11, 96) ** 11
    for n in range(61, 201, 13):
        for s in range(1, n + 1, 7):
            for k in range(0, s - 2, 3):
                assert B.lemma_c2_holds(n, k, s)
    # two worked examples
    assert float(F(math.comb(47, 10), math.comb(50, 13))) == pytest.approx(1.4592e-2, rel=1e-4)
    assert float(F(math.comb(96, 13), math.comb(100, 17))) == pytest.approx(6.0695e-4, rel=1e-4)
    assert B.lemma_c2_holds(50, 3, 13) and B.lemma_c2_holds(100, 4, 17)


def test_lemma_c2_corrected():
    for n in range(1, 51):
        for s in range(0, n + 1):
            for k in range(0, s + 1):
                p = B.lemma_c2_probability(n, k, s)
                assert p >= B.lemma_c2_corrected_bound(n, k, s)
                if s >= 2 * (k - 1):
                    assert B.lemma_c2_corrected_bound(n, k, s) >= B.lemma_c2_bound_as_printed(n, k, s)
                    assert B.lemma_c2_holds(n, k, s)


def test_sq_bookkeeping():
    assert math.comb(50, 3) == 19600
    assert B.sq_lower_bound_applies(10, 10, 0.1, 0.5, 50, 3) is False
    assert B.sq_lower_bound_applies(1, 1, 0.1, 0.5, 50, 3) is True
    assert B.thm56_condition(10, 1, 1, 50, 3) is True
    assert B.thm56_condition(10**5, 1, 1, 50, 3) is False


def test_sq_bookkeeping_boundaries():
    """The boundaries of the two conditions, from their statements: Prop. 6.3 needs r T / (tau^2 delta) <= C(n,k)/2
    (inclusive), Thm 5.6 needs D R^2 < eps^2 C(n,k) (strict). C(6,3) = 20, so the Prop. 6.3 threshold is 10."""
    assert B.sq_lower_bound_applies(10, 1, 1, 1, 6, 3) is True  # 10 <= 10
    assert B.sq_lower_bound_applies(5, 1, "0.5", 2, 6, 3) is True  # 5 / (1/4 * 2) = 10 <= 10
    assert B.sq_lower_bound_applies(11, 1, 1, 1, 6, 3) is False
    assert B.thm56_condition(20, 1, 1, 6, 3) is False  # 20 < 20 fails
    assert B.thm56_condition(5, 2, 1, 6, 3) is False  # 5 * 4 = 20
    assert B.thm56_condition(19, 1, 1, 6, 3) is True


def _gradient_coordinates(kind: str, k: int, n: int, w: tuple[int, ...]) -> list[float]:
    """Brute force g_i = E_x[chi_[k](x) x_i sigma'(w.x)] over {±1}^n, i = 0..n-1 (sigma' = 1{z>0}, cos z, sin z)."""
    act = {"ltf": lambda z: float(z > 0), "cos": math.cos, "sin": math.sin}[kind]
    g = [0.0] * n
    for x in itertools.product((-1, 1), repeat=n):
        chi = math.prod(x[:k])
        h = act(sum(wi * xi for wi, xi in zip(w, x)))
        for i in range(n):
            g[i] += chi * x[i] * h / 2**n
    return g


@pytest.mark.parametrize("kind", ["ltf", "cos", "sin"])
@pytest.mark.parametrize("k", range(1, 6))
def test_vanishing_gradient_gap_against_brute_force(kind, k):
    """Brute-force oracle: the gradient vanishes identically iff g_i = 0 for every sign vector w and every i (n odd,
    so w.x != 0 for the LTF); vanishing_gradient_gap returns 0 exactly then and raises otherwise."""
    n = k + 1 if k % 2 == 0 else k + 2
    vanishes = all(
        abs(gi) < 1e-12 for w in itertools.product((-1, 1), repeat=n) for gi in _gradient_coordinates(kind, k, n, w)
    )
    if vanishes:
        assert B.vanishing_gradient_gap(k, kind) == 0
    else:
        with pytest.raises(ValueError, match="does not vanish"):
            B.vanishing_gradient_gap(k, kind)


# ---------------------------------------------------------------- bad input
def test_bad_input_messages():
    with pytest.raises(ValueError, match=r"0 <= k <= n"):
        B.majority_coefficient(5, 6)
    with pytest.raises(ValueError, match=r"n must be an integer >= 1"):
        B.majority_coefficient(-3, 1)
    with pytest.raises(ValueError, match=r"non-negative dimension"):
        B.cube(-1)
    with pytest.raises(ValueError, match=r">= 1 \(the cube \{±1\}\^n needs a positive dimension\)"):
        B.majority_coefficient(0, 0)  # it said "non-negative" beside ">= 1"
    with pytest.raises(ValueError, match=r"integer"):
        B.majority_coefficient(5.0, 1)
    with pytest.raises(ValueError, match=r"too large for brute force.*closed form"):
        B.majority_coefficient_bruteforce(41, 3)
    with pytest.raises(ValueError, match=r"too large for brute force.*closed form"):
        B.fourier_coefficients(B.majority, 30)
    with pytest.raises(ValueError, match=r"odd-k identity"):
        B.rho(4)
    with pytest.raises(ValueError, match=r"odd-k identity"):
        B.majority_asymptotic(101, 4)
    with pytest.raises(ValueError, match=r"odd-k identity"):
        B.majority_ratio(11, 2)
    with pytest.raises(ValueError, match=r"needs n odd"):
        B.majority_ratio(10, 3)
    with pytest.raises(ValueError, match=r"m even"):
        B.half_coefficient(5, 2)
    with pytest.raises(ValueError, match=r"\|b\| < 1"):
        B.ltf_coefficient([1, 1, 1], 1, [0])
    with pytest.raises(ValueError, match=r"needs n odd"):
        B.ltf_coefficient([1, 1], 0, [0])
    with pytest.raises(ValueError, match=r"sign weights"):
        B.ltf_coefficient([1, 2, 1], 0, [0])
    with pytest.raises(ValueError, match=r"outside"):
        B.fourier_coefficient(B.majority, 3, [0, 3])
    with pytest.raises(ValueError, match=r"1 <= \|S\| <= n-1"):
        B.fourier_gap(B.fourier_coefficients(B.majority, 3), 3, [0, 1, 2])
    with pytest.raises(ValueError, match=r"k <= s <= n"):
        B.lemma_c2_holds(10, 5, 3)


# ------------------------------------------------------------------ issue 32: hostile input (regressions)
def test_level_weight_beyond_printable_digits_is_refused():
    """majority_level_weight(49999, 24999) used to return an exact value of ~30000 digits that Python cannot print;
    W^k[Maj_n] is an integer over 4^n, so n <= 6643 keeps it within 4000 digits."""
    from theory._checks import MAX_DIGITS, LimitError

    with pytest.raises(LimitError) as info:
        B.majority_level_weight(49999, 24999)
    assert info.value.param == "n" and info.value.limit == B.MAX_LEVEL_WEIGHT_N == 6643
    w = B.majority_level_weight(B.MAX_LEVEL_WEIGHT_N, B.MAX_LEVEL_WEIGHT_N // 2)
    assert len(str(w.numerator)) <= MAX_DIGITS and len(str(w.denominator)) <= MAX_DIGITS
    with pytest.raises(LimitError):
        B.majority_level_weight(B.MAX_LEVEL_WEIGHT_N + 1, 3)


def test_closed_forms_print_at_their_limit_and_are_refused_above():
    """Majority/Half coefficients and gaps are integers over 2^n: n <= 13287 keeps them within 4000 digits (they used
    to be accepted up to n = 50000, ~15000 digits). rho(k) keeps its binomial unevaluated where the rational would not
    print (k > 13275) and is refused above k = 50000."""
    from theory._checks import MAX_DIGITS, LimitError

    def digits(q):
        return max(len(str(q.numerator)), len(str(q.denominator)))

    edge = B.MAX_EXACT_N
    assert edge == 13287
    assert digits(B.majority_coefficient(edge, edge)) <= MAX_DIGITS
    assert digits(B.majority_coefficient(edge - 1, edge - 2)) <= MAX_DIGITS  # even n: the tie rule
    assert digits(B.half_coefficient_as_printed(edge - 1, 2)) <= MAX_DIGITS
    assert digits(B.rho(13275).args[0]) <= MAX_DIGITS
    reduced = B.rho(13277)
    assert len(str(reduced)) < 100 and reduced.has(sympy.binomial)
    assert float(reduced) == float(2 / sympy.pi * sympy.Rational(math.comb(13276, 6638), 13277 * 2**13276))
    for call, param in [
        (lambda: B.majority_coefficient(edge + 1, 3), "n"),
        (lambda: B.majority_gap(edge + 1, 2), "n"),
        (lambda: B.gradient_gap(edge + 1, 2), "n"),
        (lambda: B.half_coefficient(edge + 1, 2), "m"),
        (lambda: B.half_full_set_coefficient(edge + 1), "s"),
        (lambda: B.rho(B.MAX_RHO_K + 1), "k"),
    ]:
        with pytest.raises(LimitError) as info:
            call()
        assert info.value.param == param


def test_hostile_numbers_are_refused_naming_the_parameter():
    from theory._checks import InputError, LimitError

    with pytest.raises(LimitError) as info:
        B.sq_lower_bound_applies("1e999999999", 1, 1, 1, 10, 3)  # used to hang in Fraction
    assert info.value.param == "r"
    with pytest.raises(InputError) as info:
        B.sq_lower_bound_applies(1, 1, 0, 1, 10, 3)  # used to raise ZeroDivisionError
    assert info.value.param == "tau"
    with pytest.raises(InputError) as info:
        B.thm56_condition(float("nan"), 1, "0.1", 20, 5)  # NaN used to reach Fraction
    assert info.value.param == "D"
    with pytest.raises(InputError) as info:
        B.ltf([1, 1, 1], float("nan"))
    assert info.value.param == "b"
    with pytest.raises(LimitError):
        B.ltf_coefficient([1], "1e999999999", [0])
    with pytest.raises(InputError):
        B.parseval_sum([float("nan")])
    with pytest.raises(InputError):
        B.walsh_hadamard([float("nan"), 1])  # used to answer [nan, nan]
    with pytest.raises(LimitError):
        B.sinusoid_coefficient([1], "1e999999999", 0, [0])
    with pytest.raises(InputError):
        B.mask_indices(-1)  # used to answer (0,)
    with pytest.raises(InputError):
        B.level(-1)  # used to answer 1
    with pytest.raises(InputError):
        B.fourier_gap([0, 1], 3, [0])  # used to raise IndexError
    with pytest.raises(LimitError) as info:
        B.point(1, 10**9)  # used to build a tuple of 10^9 coordinates
    assert info.value.param == "n"
    with pytest.raises(LimitError) as info:
        B.random_search_tc_probability(10**400, 3, 0.5)  # used to raise OverflowError
    assert info.value.param == "n"
    with pytest.raises(LimitError) as info:
        B.lemma_b2_bound(10**401 + 1, 10**400)  # used to raise OverflowError
    assert info.value.param == "k"


def test_random_search_far_threshold_is_certain():
    """fraction = 1e308 or 10**400 used to raise OverflowError; the early-success probability is 1."""
    assert B.random_search_tc_probability(10, 3, 1e308)["p_early"] == 1.0
    assert B.random_search_tc_probability(10, 3, 10**400, seeds=10**400, min_fraction=10**400)["p_all_above_min"] == 0.0


def test_sq_gradient_variance_bound_is_attained_by_a_k_parity_derivative():
    # d_i h = chi_T with |T| = k: sum_{|S| = k} E[chi_S d_i h]^2 = 1, so the spread is exactly 1/C(n, k) (Lemma C.1)
    for n, k in ((3, 0), (4, 2), (5, 3), (6, 1)):
        T = tuple(range(k))
        coeffs = B.fourier_coefficients(lambda x, T=T: B.character(T, x), n)
        level_k = sum(c**2 for mask, c in enumerate(coeffs) if bin(mask).count("1") == k)
        assert level_k / math.comb(n, k) == B.sq_gradient_variance_bound(n, k)
    with pytest.raises(ValueError):
        B.sq_gradient_variance_bound(4, 5)
