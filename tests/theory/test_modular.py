"""Exact tests of ``theory.modular`` (Shi thesis Ch. 4 + App. C; ``docs/modular.md``).

Every expected value is produced by an independent route -- a second closed form, a brute-force sum
over all inputs with exact sympy values, or an expansion of a polynomial identity -- and compared by
exact symbolic equality (``simplify(a - b) == 0`` or ``Expr.equals``). No expected number is
hard-coded and nothing is compared in floating point.
"""

from __future__ import annotations

import itertools
import random

import pytest
import sympy
from sympy import Rational, factorial, pi, sqrt

from theory import modular as tm

P = sympy.Symbol("p", positive=True)


def is_zero(expr: sympy.Expr) -> bool:
    """Exact zero test: simplify first, fall back to ``Expr.equals`` (which proves algebraic
    identities through minimal polynomials) when simplify leaves an unsimplified constant."""
    expr = sympy.sympify(expr)
    if sympy.simplify(expr) == 0:
        return True
    return expr.equals(0) is True


def is_zero_trig(expr: sympy.Expr) -> bool:
    """Exact zero test for trigonometric polynomials in symbolic phases."""
    return sympy.simplify(sympy.expand(sympy.expand_trig(expr))) == 0


def brute_logits(neurons, p: int, k: int, a, c) -> sympy.Expr:
    """f(theta, a)[c] = sum_i (sum_j u_ij(a_j))^k w_i(c) from the exact block values of the neurons."""
    return sympy.Add(*[sympy.Add(*[u[j][a[j]] for j in range(k)]) ** k * w[c] for u, w in neurons])


def exact_dft(f, j: int, p: int) -> sympy.Expr:
    """The DFT convention of ``docs/modular.md``: f_hat(j) = sum_x f(x) e^{-2 pi i j x / p}."""
    return sympy.Add(*[f[x] * sympy.exp(-2 * pi * sympy.I * j * x / p) for x in range(p)])


# ------------------------------------------------------------------------------------------
# gamma*(p, k): equivalent forms (Theorem 4.9 / C.22; claim shi-thm4.9-margin)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", range(1, 9))
def test_max_margin_equivalent_forms_symbolic_p(k):
    K = sympy.Integer(k)
    g = tm.max_margin(P, k)
    form2 = factorial(K) * 2 ** ((1 - K) / 2) / ((K + 1) ** ((K + 1) / 2) * (P - 1) * P ** ((K - 1) / 2))
    beta = sqrt(2 / ((K + 1) * P))
    form3 = P * factorial(K) * beta ** (K + 1) / ((P - 1) * 2**K)
    assert sympy.simplify(g - form2) == 0
    assert sympy.simplify(g - form3) == 0
    # beta is exactly the library's optimal amplitude
    assert sympy.simplify(tm.optimal_amplitude(P, k) - beta) == 0


def test_max_margin_special_cases_symbolic_p():
    # The closed forms for k = 3, 4, 5 (Thm C.21, Lemma C.11 for k = 3).
    assert sympy.simplify(tm.max_margin(P, 3) - Rational(3, 16) / (P * (P - 1))) == 0
    assert sympy.simplify(tm.max_margin(P, 4) - 6 * sqrt(10) / (125 * P ** Rational(3, 2) * (P - 1))) == 0
    assert sympy.simplify(tm.max_margin(P, 5) - Rational(5, 36) / (P**2 * (P - 1))) == 0


def test_max_margin_k2_equals_morwani_symbolically():
    assert sympy.simplify(tm.max_margin(P, 2) - tm.max_margin_k2_morwani(P)) == 0


@pytest.mark.parametrize("p", [3, 5, 7, 9, 11, 15, 97])
def test_max_margin_k2_equals_morwani_numeric_p(p):
    assert sympy.simplify(tm.max_margin(p, 2) - tm.max_margin_k2_morwani(p)) == 0


@pytest.mark.parametrize("p,k", [(3, 1), (5, 2), (9, 3), (15, 4), (23, 5)])
def test_max_margin_concrete_equals_symbolic_substitution(p, k):
    g = tm.max_margin(p, k)
    assert g.is_positive
    assert sympy.simplify(g - tm.max_margin(P, k).subs(P, p)) == 0


@pytest.mark.parametrize("p", [3, 5, 7, 9])
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_max_margin_logits_structure(p, k):
    correct, wrong = tm.max_margin_logits(p, k)
    g = tm.max_margin(p, k)
    assert sympy.simplify(correct - wrong - g) == 0  # margin gamma*, all wrong logits equal
    assert sympy.simplify(correct + (p - 1) * wrong) == 0  # zero-mean output weights


@pytest.mark.parametrize("k", range(1, 7))
def test_min_width_forms(k):
    assert sympy.simplify(tm.min_width(P, k) - 2 ** (2 * k - 1) * (P - 1) / 2) == 0
    for p in (3, 5, 9):
        assert tm.min_width(p, k) == 2 ** (2 * k - 1) * (p - 1) // 2


@pytest.mark.parametrize("p", [3, 5, 7, 9, 15])
def test_frequencies_cover_nonzero_residues_once_up_to_sign(p):
    zs = list(tm.frequencies(p))
    residues = sorted([z % p for z in zs] + [(-z) % p for z in zs])
    assert residues == list(range(1, p))


# ------------------------------------------------------------------------------------------
# Construction (Lemma 4.11 / C.18 as corrected in docs/modular.md; claim shi-lem4.11-construction;
# odd composite p)
# ------------------------------------------------------------------------------------------

CONSTRUCTION_CASES = [
    (3, 1),
    (5, 1),
    (9, 1),
    (3, 2),
    (5, 2),
    (7, 2),
    (9, 2),
    (15, 2),
    (3, 3),
    (5, 3),
    (9, 3),
    (15, 3),
    (3, 4),
    (5, 4),
    (3, 5),
]


@pytest.mark.parametrize("p,k", CONSTRUCTION_CASES)
def test_construction_normalized_margin_equals_max_margin(p, k):
    c = tm.construction(p, k)
    assert sympy.simplify(c.normalized_margin - tm.max_margin(p, k)) == 0


@pytest.mark.parametrize("p,k", CONSTRUCTION_CASES)
def test_construction_neuron_bookkeeping(p, k):
    c = tm.construction(p, k)
    # 2^{2k-1} neurons per frequency, (p-1)/2 frequencies (docs/modular.md)
    assert c.n_active == len(c.neurons) == tm.min_width(p, k) == c.width
    for zeta in tm.frequencies(p):
        assert sum(n.zeta == zeta for n in c.neurons) == 2 ** (2 * k - 1)
    keys = {(n.zeta, tuple(n.phases)) for n in c.neurons}  # phases lie in (-pi, pi]
    assert len(keys) == len(c.neurons)  # no duplicated neuron
    for n in c.neurons:
        assert n.k == k and n.mismatch == 0
        # phase constraint sum_j theta_j = theta_w (mod 2 pi)
        assert sympy.simplify(sympy.Add(*n.phases) - n.theta_w) == 0
        assert sympy.simplify(n.amplitude ** (k + 1) * 2 ** (k - 1) * factorial(k) - 1) == 0


@pytest.mark.parametrize("p,k", [(3, 1), (5, 1), (3, 2), (3, 3)])
def test_construction_logits_brute_force(p, k):
    """logit(a, c) (closed form (p 1[c = sum a] - 1)/2) against the exact sum over the neurons."""
    c = tm.construction(p, k)
    neurons = [(n.u(), n.w()) for n in c.neurons]
    values = set()
    for a in itertools.product(range(p), repeat=k):
        for cc in range(p):
            exact = brute_logits(neurons, p, k, a, cc)
            assert sympy.simplify(exact - c.logit(a, cc)) == 0, (a, cc)
            values.add(c.logit(a, cc))
    # exactly two values: correct (p-1)/2 and wrong -1/2 (Lemma C.17/C.18 prints "0 otherwise": an erratum)
    assert len(values) == 2


@pytest.mark.parametrize("p,k", [(3, 1), (5, 1), (3, 2)])
def test_construction_normalized_margin_fully_brute_force(p, k):
    """Margin from brute-force logits and the norm from the exact block entries, no closed form."""
    c = tm.construction(p, k)
    neurons = [(n.u(), n.w()) for n in c.neurons]
    margins = []
    for a in itertools.product(range(p), repeat=k):
        y = sum(a) % p
        F = [sympy.simplify(brute_logits(neurons, p, k, a, cc)) for cc in range(p)]
        margins.append(F[y] - max(F[cc] for cc in range(p) if cc != y))
    h = margins[0]
    assert all(sympy.simplify(m - h) == 0 for m in margins)
    norm_power = sympy.Add(
        *[(sum(x**2 for row in u for x in row) + sum(x**2 for x in w)) ** Rational(k + 1, 2) for u, w in neurons]
    )
    assert sympy.simplify(h / norm_power - tm.max_margin(p, k)) == 0
    assert sympy.simplify(norm_power - c.norm_power) == 0


def test_construction_width_padding():
    c = tm.construction(5, 2, width=40)
    assert c.width == 40 and c.n_active == tm.min_width(5, 2)
    assert sympy.simplify(c.normalized_margin - tm.max_margin(5, 2)) == 0


@pytest.mark.parametrize("p,k", [(3, 2), (5, 2), (3, 3)])
def test_construction_neurons_are_optimal_after_normalization(p, k):
    """Lemma C.18: Psi(theta_i) / ||theta_i||^{k+1} = gamma* for every construction neuron."""
    c = tm.construction(p, k)
    g = tm.max_margin(p, k)
    seen = set()
    for n in c.neurons:
        key = (n.zeta, tuple(n.phases))
        if key in seen:
            continue
        seen.add(key)
        psi = tm.psi_time_domain(n.u(), n.w())
        assert is_zero(psi / n.norm_squared() ** Rational(k + 1, 2) - g)


# ------------------------------------------------------------------------------------------
# Polarization and cos-sum identities (Lemma C.16, Eq. C.21; claim shi-lemC.16-polarization)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", range(1, 7))
def test_polarization_identity(k):
    lhs, rhs = tm.polarization_identity(k)
    assert sympy.expand(lhs - rhs) == 0
    # second formula: the full (un-halved) sum over all sign patterns equals 2^k k! prod d_i = 2 lhs
    if k > 5:  # the un-halved sum doubles the (already verified) expansion; keep the suite fast
        return
    d = sympy.symbols(f"d1:{k + 1}")
    full = sympy.Add(
        *[
            (-1) ** eps.count(-1) * sympy.Add(*[e * x for e, x in zip(eps, d)]) ** k
            for eps in itertools.product([1, -1], repeat=k)
        ]
    )
    assert sympy.expand(full - 2**k * factorial(k) * sympy.Mul(*d)) == 0
    assert sympy.expand(full - 2 * rhs) == 0


@pytest.mark.parametrize("k", range(1, 7))
def test_cos_sum_expansion(k):
    lhs, rhs = tm.cos_sum_expansion(k)
    assert len(sympy.Add.make_args(rhs)) == 2**k
    assert sympy.expand(sympy.expand_trig(lhs) - rhs) == 0


# ------------------------------------------------------------------------------------------
# Psi: time domain vs Fourier form (Shi Lemma C.14, claim C2)
# ------------------------------------------------------------------------------------------


def test_psi_fourier_equals_time_domain_symbolic_neuron():
    xs = sympy.symbols("x0:9", real=True)
    u = [list(xs[0:3]), list(xs[3:6])]
    w = list(xs[6:9])
    diff = tm.psi_fourier(u, w) - tm.psi_time_domain(u, w)
    assert sympy.simplify(sympy.expand_complex(diff)) == 0


@pytest.mark.parametrize("p,k,seed", [(5, 2, 0), (5, 2, 1), (3, 3, 0), (3, 3, 1), (3, 1, 0), (5, 1, 0)])
def test_psi_fourier_equals_time_domain_random_rationals(p, k, seed):
    rnd = random.Random(seed)

    def rat():
        return Rational(rnd.randint(-9, 9), rnd.randint(1, 7))

    u = [[rat() for _ in range(p)] for _ in range(k)]
    w = [rat() for _ in range(p)]  # non-zero DC parts included on purpose (the identity is exact)
    a = tm.psi_time_domain(u, w)
    assert a.is_Rational
    b = tm.psi_fourier(u, w)
    assert sympy.simplify(sympy.expand_complex(b) - a) == 0


def test_psi_time_domain_matches_definition_with_eta():
    """Time-domain formula (Def C.12-C.13; docs/modular.md): Psi = eta(0) - E_{delta != 0} eta(delta) with
    eta(delta) = E_a[S(a)^k w(sum a - delta)]."""
    p, k = 3, 2
    rnd = random.Random(7)
    u = [[Rational(rnd.randint(-5, 5), rnd.randint(1, 4)) for _ in range(p)] for _ in range(k)]
    w = [Rational(rnd.randint(-5, 5), rnd.randint(1, 4)) for _ in range(p)]

    def eta(delta):
        return (
            sympy.Add(
                *[
                    sympy.Add(*[u[i][a[i]] for i in range(k)]) ** k * w[(sum(a) - delta) % p]
                    for a in itertools.product(range(p), repeat=k)
                ]
            )
            / p**k
        )

    psi = eta(0) - sympy.Add(*[eta(d) for d in range(1, p)]) / (p - 1)
    assert sympy.simplify(psi - tm.psi_time_domain(u, w)) == 0


# ------------------------------------------------------------------------------------------
# Optimal neuron (Lemma C.15, claim C3)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p,k", [(3, 1), (5, 1), (3, 2), (5, 2), (3, 3), (5, 3), (3, 4)])
def test_optimal_neuron_reaches_max_margin(p, k):
    for zeta in tm.frequencies(p):
        n = tm.optimal_neuron(p, k, zeta)
        assert sympy.simplify(tm.psi_time_domain(n.u(), n.w()) - tm.max_margin(p, k)) == 0


def test_optimal_neuron_reaches_max_margin_p7_via_equals():
    for zeta in tm.frequencies(7):
        n = tm.optimal_neuron(7, 2, zeta)
        assert (tm.psi_time_domain(n.u(), n.w()) - tm.max_margin(7, 2)).equals(0)


@pytest.mark.parametrize("p,k", [(3, 1), (3, 2), (5, 2)])
def test_optimal_neuron_any_symbolic_phases(p, k):
    phis = sympy.symbols(f"phi1:{k + 1}", real=True)
    n = tm.optimal_neuron(p, k, 1, phis)
    assert is_zero_trig(tm.psi_time_domain(n.u(), n.w()) - tm.max_margin(p, k))


@pytest.mark.parametrize("p,k", [(3, 1), (3, 2), (5, 2), (5, 3), (3, 4)])
def test_optimal_neuron_block_norms(p, k):
    for zeta in tm.frequencies(p):
        n = tm.optimal_neuron(p, k, zeta, [pi / 3 * (j + 1) for j in range(k)])
        blocks = [*n.u(), n.w()]
        total = 0
        for b in blocks:
            sq = sum(x**2 for x in b)
            assert is_zero(sq - Rational(1, k + 1))
            total += sq
            assert is_zero(sum(b))  # zero mean (no DC component)
        assert is_zero(total - 1)
        assert is_zero(n.norm_squared() - 1)


@pytest.mark.parametrize("p,k", [(3, 2), (5, 2), (5, 3)])
def test_optimal_neuron_fourier_magnitude(p, k):
    """|u_hat(+-zeta)| = sqrt(p / (2(k+1))) (Eq. C.16) from an exact DFT; zero at other frequencies."""
    for zeta in tm.frequencies(p):
        n = tm.optimal_neuron(p, k, zeta)
        for b in [*n.u(), n.w()]:
            for j in range(p):
                mag2 = sympy.expand_complex(exact_dft(b, j, p) * sympy.conjugate(exact_dft(b, j, p)))
                expected = tm.optimal_fourier_magnitude(p, k) ** 2 if j in (zeta, p - zeta) else 0
                assert is_zero(mag2 - expected)


# ------------------------------------------------------------------------------------------
# Deformed neurons (Lemma C.15, docs/modular.md; claim shi-lem4.10-deformations)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p,k", [(3, 1), (5, 2), (7, 3), (9, 4)])
def test_deformed_closed_forms_consistency(p, k):
    g = tm.max_margin(p, k)
    assert sympy.simplify(tm.psi_phase_mismatch(p, k, 0) - g) == 0
    assert sympy.simplify(tm.psi_phase_mismatch(p, k, pi) + g) == 0
    assert sympy.simplify(tm.psi_two_frequencies(p, k, 1) - g) == 0
    assert sympy.simplify(tm.psi_two_frequencies(p, k, 0) - g) == 0
    half = tm.psi_two_frequencies(p, k, Rational(1, 2))
    assert sympy.simplify(half - g * 2 ** Rational(1 - k, 2)) == 0
    s = Rational(1, 3)
    assert sympy.simplify(tm.psi_two_frequencies(p, k, s) - tm.psi_two_frequencies(p, k, 1 - s)) == 0
    assert sympy.simplify(tm.psi_unbalanced(p, k, [Rational(1, k + 1)] * (k + 1)) - g) == 0
    assert sympy.simplify(tm.psi_dc_leak(p, k, 0) - g) == 0
    assert sympy.simplify(tm.psi_dc_leak(p, k, 1)) == 0


def test_deformed_two_frequencies_k1_is_not_penalized():
    # k = 1: (s + (1 - s)) = 1, the non-uniqueness of the optimum noted in the module docstring
    s = sympy.Symbol("s", positive=True)
    assert sympy.simplify(tm.psi_two_frequencies(5, 1, s) - tm.max_margin(5, 1)) == 0


@pytest.mark.parametrize("delta", [pi / 3, pi / 2, 2 * pi / 3, pi])
def test_phase_mismatch_brute_force(delta):
    p, k = 3, 2
    n = tm.FourierNeuron(p=p, zeta=1, phases=(pi / 4, -pi / 6), amplitude=tm.optimal_amplitude(p, k), mismatch=delta)
    psi = tm.psi_time_domain(n.u(), n.w())
    # mismatch is theta_w - sum theta_j = -Delta; cos is even
    assert is_zero(psi - tm.psi_phase_mismatch(p, k, delta))


def test_phase_mismatch_brute_force_symbolic_delta():
    p, k = 3, 2
    d = sympy.Symbol("Delta", real=True)
    n = tm.FourierNeuron(p=p, zeta=1, phases=(0, 0), amplitude=tm.optimal_amplitude(p, k), mismatch=d)
    assert is_zero_trig(tm.psi_time_domain(n.u(), n.w()) - tm.psi_phase_mismatch(p, k, d))


@pytest.mark.parametrize(
    "p,k,r",
    [
        (3, 2, [Rational(1, 2), Rational(1, 4), Rational(1, 4)]),
        (3, 2, [Rational(1, 6), Rational(1, 3), Rational(1, 2)]),
        (3, 1, [Rational(1, 5), Rational(4, 5)]),
        (5, 2, [Rational(1, 2), Rational(1, 3), Rational(1, 6)]),
    ],
)
def test_unbalanced_brute_force(p, k, r):
    n = tm.optimal_neuron(p, k, 1)
    blocks = [*n.u(), n.w()]  # each block has squared norm 1/(k+1)
    scaled = [[sqrt((k + 1) * ri) * x for x in b] for ri, b in zip(r, blocks)]
    for ri, b in zip(r, scaled):
        assert is_zero(sum(x**2 for x in b) - ri)
    psi = tm.psi_time_domain(scaled[:k], scaled[k])
    assert is_zero(psi - tm.psi_unbalanced(p, k, r))


@pytest.mark.parametrize("p,k,eps", [(3, 2, Rational(1, 4)), (3, 1, Rational(1, 3)), (5, 2, Rational(1, 2))])
def test_dc_leak_brute_force(p, k, eps):
    n = tm.optimal_neuron(p, k, 1)
    blocks = [*n.u(), n.w()]
    # move a fraction eps of every block's squared norm (1/(k+1)) into a constant component
    const = sqrt(eps / ((k + 1) * p))
    leaked = [[sqrt(1 - eps) * x + const for x in b] for b in blocks]
    for b in leaked:
        assert is_zero(sum(x**2 for x in b) - Rational(1, k + 1))
    assert is_zero(tm.psi_time_domain(leaked[:k], leaked[k]) - tm.psi_dc_leak(p, k, eps))


@pytest.mark.parametrize("k,s", [(2, Rational(1, 4)), (1, Rational(1, 3)), (2, Rational(1, 2))])
def test_two_frequencies_brute_force(k, s):
    p = 5
    n1, n2 = tm.optimal_neuron(p, k, 1), tm.optimal_neuron(p, k, 2)
    blocks = [
        [sqrt(s) * x + sqrt(1 - s) * y for x, y in zip(b1, b2)] for b1, b2 in zip([*n1.u(), n1.w()], [*n2.u(), n2.w()])
    ]
    total = sum(x**2 for b in blocks for x in b)
    assert is_zero(total - 1)
    assert is_zero(tm.psi_time_domain(blocks[:k], blocks[k]) - tm.psi_two_frequencies(p, k, s))


def test_sign_flips():
    """Lemma C.15 (docs/modular.md): Psi(-u, -w) = (-1)^{k+1} Psi(u, w) and Psi(u, -w) = -Psi(u, w)."""
    rnd = random.Random(3)
    for p, k in [(3, 1), (3, 2), (3, 3)]:
        u = [[Rational(rnd.randint(-5, 5), 3) for _ in range(p)] for _ in range(k)]
        w = [Rational(rnd.randint(-5, 5), 2) for _ in range(p)]
        base = tm.psi_time_domain(u, w)
        neg_u = [[-x for x in row] for row in u]
        neg_w = [-x for x in w]
        assert tm.psi_time_domain(neg_u, neg_w) == (-1) ** (k + 1) * base
        assert tm.psi_time_domain(u, neg_w) == -base


# ------------------------------------------------------------------------------------------
# Bad input: ValueError naming the violated hypothesis
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "func",
    [
        tm.max_margin,
        tm.min_width,
        tm.optimal_amplitude,
        tm.optimal_fourier_magnitude,
        tm.construction,
        tm.max_margin_logits,
    ],
)
@pytest.mark.parametrize("p", [4, 6, 10])
def test_even_p_refused(func, p):
    with pytest.raises(ValueError, match=r"p must be an odd integer >= 3 .*p > 2 prime.*p/2 is its own conjugate"):
        func(p, 2)


@pytest.mark.parametrize("p", [1, 2, 0, -3])
def test_small_p_refused(p):
    with pytest.raises(
        ValueError, match=r"p must be an odd integer >= 3 \(Shi thesis Thm 4.9 / C.22 assumes p > 2 prime"
    ):
        tm.max_margin(p, 2)


def test_morwani_even_p_names_its_source():
    with pytest.raises(ValueError, match=r"odd integer >= 3 \(Edelman Thm 7.7"):
        tm.max_margin_k2_morwani(8)


@pytest.mark.parametrize("p", [5.0, 5.5, "5", True, sympy.Rational(5, 1) / 2])
def test_non_integer_p_refused(p):
    with pytest.raises(ValueError, match=r"p must be an integer"):
        tm.max_margin(p, 2)


def test_float_p_message_suggests_int():
    with pytest.raises(ValueError, match=r"p must be an integer, got the float 5\.0; pass int"):
        tm.max_margin(5.0, 2)


@pytest.mark.parametrize("k", [2.0, 1.5, "2", None])
def test_non_integer_k_refused(k):
    with pytest.raises(ValueError, match=r"k must be an integer"):
        tm.max_margin(5, k)


@pytest.mark.parametrize("k", [0, -1])
def test_k_below_one_refused(k):
    with pytest.raises(ValueError, match=r"k must be an integer >= 1 \(number of inputs\)"):
        tm.max_margin(5, k)
    with pytest.raises(ValueError, match=r"k must be an integer >= 1"):
        tm.polarization_identity(k)
    with pytest.raises(ValueError, match=r"k must be an integer >= 1"):
        tm.cos_sum_expansion(k)


@pytest.mark.parametrize("p,k", [(5, 2), (3, 3), (7, 1)])
def test_width_below_bound_refused(p, k):
    n_min = tm.min_width(p, k)
    with pytest.raises(
        ValueError, match=rf"width m = {n_min - 1} is below .*2\^\(2k-2\)\(p-1\) = {n_min}.*requires m >= {n_min}"
    ):
        tm.construction(p, k, width=n_min - 1)


def test_width_not_integer_refused():
    with pytest.raises(ValueError, match=r"width must be an integer"):
        tm.construction(5, 2, width=16.5)


def test_wrong_number_of_phases_refused():
    with pytest.raises(ValueError, match=r"need k = 2 phases, got 1"):
        tm.optimal_neuron(5, 2, 1, [0])
    with pytest.raises(ValueError, match=r"need k = 2 phases, got 3"):
        tm.optimal_neuron(5, 2, 1, [0, 0, 0])


@pytest.mark.parametrize("zeta", [0, 3, -1, 5])
def test_zeta_out_of_range_refused(zeta):
    with pytest.raises(ValueError, match=r"zeta must be a frequency in 1\.\.2 for p = 5"):
        tm.optimal_neuron(5, 2, zeta)


def test_block_fractions_refused():
    with pytest.raises(ValueError, match=r"must be >= 0 and sum to 1"):
        tm.psi_unbalanced(5, 2, [Rational(1, 2), Rational(1, 2), Rational(1, 2)])
    with pytest.raises(ValueError, match=r"must be >= 0 and sum to 1"):
        tm.psi_unbalanced(5, 2, [Rational(3, 2), Rational(-1, 4), Rational(-1, 4)])
    with pytest.raises(ValueError, match=r"need k\+1 = 3 block fractions, got 2"):
        tm.psi_unbalanced(5, 2, [Rational(1, 2), Rational(1, 2)])


def test_split_and_dc_fraction_out_of_range_refused():
    with pytest.raises(ValueError, match=r"split s must lie in \[0, 1\]"):
        tm.psi_two_frequencies(5, 2, Rational(3, 2))
    with pytest.raises(ValueError, match=r"DC fraction eps must lie in \[0, 1\]"):
        tm.psi_dc_leak(5, 2, -Rational(1, 10))


def test_psi_block_length_mismatch_refused():
    with pytest.raises(ValueError, match=r"every block must have length p = 3"):
        tm.psi_time_domain([[1, 2, 3], [1, 2]], [1, 2, 3])
    with pytest.raises(ValueError, match=r"every block must have length p = 3"):
        tm.psi_fourier([], [1, 2, 3])


def test_non_integer_zeta_refused():
    with pytest.raises(ValueError, match="zeta must be an integer"):
        tm.optimal_neuron(5, 2, 1.0)


# --- Edelman App. D.4: the memorising construction


def _memorising_exact(p: int, alpha: sympy.Expr, beta: sympy.Expr) -> sympy.Expr:
    """Normalized margin by brute force: the exact logits of all 2p^2 one-hot neurons over every input
    pair, the smallest correct-minus-wrong gap, over the sum of the neuron norms cubed."""
    neurons = []
    for a, b in itertools.product(range(p), repeat=2):
        r = (a + b) % p
        for s in (1, -1):
            u = [alpha * int(i == a) for i in range(p)]
            v = [s * alpha * int(i == b) for i in range(p)]
            w = [s * beta * int(i == r) for i in range(p)]
            neurons.append(([u, v], w))
    margins = []
    for a in itertools.product(range(p), repeat=2):
        logits = [brute_logits(neurons, p, 2, a, c) for c in range(p)]
        y = sum(a) % p
        margins += [logits[y] - logits[c] for c in range(p) if c != y]
    norm = sympy.Add(
        *[(sum(x**2 for blk in u for x in blk) + sum(x**2 for x in w)) ** Rational(3, 2) for u, w in neurons]
    )
    return min(margins) / norm


@pytest.mark.parametrize("scaling", tm.MEMORISING_SCALINGS)
def test_memorising_margin_matches_brute_force(scaling: str) -> None:
    alpha, beta = tm.memorising_scales(scaling)
    assert is_zero(tm.memorising_margin(3, scaling) - _memorising_exact(3, alpha, beta))


def test_memorising_margin_closed_forms() -> None:
    """As printed (alpha, beta) = (1, 1/4): 1/(2 p^2 (33/16)^(3/2)); rebalanced 2/(3 sqrt 3 p^2) (Edelman App. D.4)."""
    assert is_zero(tm.memorising_margin(P, "printed") - 1 / (2 * P**2 * Rational(33, 16) ** Rational(3, 2)))
    assert is_zero(tm.memorising_margin(P, "rebalanced") - 2 / (3 * sqrt(3) * P**2))
    assert is_zero(tm.memorising_margin_ratio(P, "rebalanced") - sqrt(2) * (P - 1) / P ** Rational(3, 2))


def test_rebalanced_scales_maximise_the_margin() -> None:
    """Stationary point of the scale-invariant margin in t = beta/alpha is t = 1, and it is a maximum."""
    t = sympy.Symbol("t", positive=True)
    f = tm.memorising_normalized_margin(P, 1, t)
    crit = sympy.solve(sympy.diff(f, t), t)
    assert crit == [1]
    assert sympy.diff(f, t, 2).subs(t, 1).subs(P, 3) < 0
    alpha, beta = tm.memorising_scales("rebalanced")
    assert alpha == beta and 4 * alpha**2 * beta == 1


@pytest.mark.parametrize("p", [3, 5, 7, 9, 11, 97, 10**6 + 3])
def test_memorising_is_below_gamma_star(p: int) -> None:
    for scaling in tm.MEMORISING_SCALINGS:
        ratio = tm.memorising_margin_ratio(p, scaling)
        assert sympy.simplify(ratio - 1).is_negative
        assert is_zero(ratio - tm.memorising_margin(p, scaling) / tm.max_margin_k2_morwani(p))


def test_memorising_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="scaling"):
        tm.memorising_scales("doubled")
    with pytest.raises(ValueError, match="alpha"):
        tm.memorising_normalized_margin(5, -1, 1)
    with pytest.raises(ValueError, match="p"):
        tm.memorising_margin(4)


# --- Edelman Fig. 7.4a: the purity of a Gaussian vector


def test_init_purity_cdf_small_p_and_support() -> None:
    """p = 3: purity = max(D, 1 - D), D ~ Beta(1/2, 1), P(D <= y) = sqrt(y); the purity is >= 1/(m + 1) and <= 1."""
    from fractions import Fraction

    import sympy

    from theory.modular import init_purity_cdf

    for x in (Fraction(1, 2), Fraction(3, 5), Fraction(3, 4), Fraction(9, 10)):
        want = sympy.sqrt(sympy.Rational(x)) - sympy.sqrt(1 - sympy.Rational(x))
        assert sympy.simplify(init_purity_cdf(3, x) - want) == 0
    for p in (5, 7, 11):
        m = (p - 1) // 2
        assert init_purity_cdf(p, Fraction(1, m + 1) - Fraction(1, 10**6)) == 0
        assert sympy.simplify(init_purity_cdf(p, 1) - 1) == 0
        values = [float(init_purity_cdf(p, Fraction(k, 40)).evalf(30)) for k in range(41)]
        assert all(b >= a - 1e-15 for a, b in itertools.pairwise(values))


def test_init_purity_cdf_p5_by_quadrature() -> None:
    """p = 5 (Dirichlet(1/2, 1, 1)): P(max <= x) by a direct double integral of the Dirichlet density."""
    from fractions import Fraction

    import mpmath

    from theory.modular import init_purity_cdf

    x = Fraction(1, 2)
    xf = mpmath.mpf(1) / 2
    norm = mpmath.gamma(2.5) / (mpmath.gamma(0.5) * mpmath.gamma(1) ** 2)

    def inner(d1: mpmath.mpf) -> mpmath.mpf:  # d0 in [max(0, 1 - d1 - x), min(x, 1 - d1)], d2 = 1 - d0 - d1 <= x
        lo, hi = max(0, 1 - d1 - xf), min(xf, 1 - d1)
        return mpmath.quad(lambda d0: d0 ** (-0.5), [lo, hi]) if hi > lo else mpmath.mpf(0)

    direct = norm * mpmath.quad(inner, [0, xf])
    assert abs(float(init_purity_cdf(5, x).evalf(30)) - float(direct)) < 1e-9
