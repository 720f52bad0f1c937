"""Exact checks of theory/sparse_variable.py (Edelman Ch. 4, App. A.1-A.2): the head constructions against brute
force over every context, the closed-form worst-case errors, the Lemma A.25 network on its boxes, the exact
representations of random sparse functions (hypothesis), the norm closed forms, the constants of Lemma 4.7 and
Prop. 4.8, and the refused inputs."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import sparse_variable as ts
from theory._checks import LimitError


def _contexts(T: int):
    return itertools.product((0, 1), repeat=T)


def _build(lemma: str, T: int, I: tuple[int, ...], output: str) -> ts.Construction:
    s = len(I)
    if lemma == "A.21":
        return ts.lemma_a21(T, I, F(1, s + 1), output)
    gamma = min(F(1), F(2, s)) if output == "scalar" else F(1)
    return (ts.lemma_a19 if lemma == "A.19" else ts.lemma_a20)(T, I, gamma, output)


def _chi_target(c: ts.Construction, b) -> tuple[F, ...]:
    """The approximated functions written out independently of Construction.target."""
    rel = [b[i] for i in c.support]
    s, r = len(rel), sum(rel)
    if c.lemma == "A.21":
        return (F(r - s, r + 1),) if c.output == "scalar" else tuple(F(x - 1, r + 1) for x in rel)
    chis = [1 if x == 0 else -1 for x in rel]
    return (F(sum(chis), s),) if c.output == "scalar" else tuple(F(x) for x in chis)


# ------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize("T, s", [(3, 4), (5, 0), (0, 1), (2, -1)])
def test_sparsity_out_of_range_is_refused(T, s):
    with pytest.raises(ValueError, match=r"T|s \(sparsity\)"):
        ts.check_sparsity(T, s)


def test_s_greater_than_T_names_the_range():
    with pytest.raises(ValueError, match=r"1 <= s <= T = 3, got s = 4"):
        ts.check_sparsity(3, 4)
    with pytest.raises(ValueError, match="s <= T"):
        ts.lemma_a19(3, (0, 1, 2, 3))
    with pytest.raises(ValueError, match="s <= T"):
        ts.and_information_bound(2, 3)


@pytest.mark.parametrize("support", [(0, 0), (-1, 2), (1, 5), ()])
def test_bad_support_is_refused(support):
    with pytest.raises(ValueError):
        ts.check_support(5, support)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="gamma"):
        ts.lemma_a19(5, (1,), F(3, 2))
    with pytest.raises(ValueError, match="coherence"):
        ts.lemma_a19(5, (1, 2), F(1), coherence=F(1, 2))
    with pytest.raises(ValueError, match="gamma < 1"):
        ts.lemma_a21(5, (1,), F(1))
    with pytest.raises(ValueError, match="closer than 4 delta"):
        ts.relu_interpolation_net([(F(0),), (F(1, 2),)], [F(1), F(2)], F(1, 4))
    with pytest.raises(ValueError, match="levels"):
        ts.symmetric_representation(5, (1, 2), [F(1)] * 2)
    with pytest.raises(ValueError, match="bits"):
        ts.lemma_a19(3, (1,)).head_output((0, 2, 1))


# ------------------------------------------------------------------------------------------ heads


@pytest.mark.parametrize("lemma", ["A.19", "A.20", "A.21"])
@pytest.mark.parametrize("output", ["scalar", "vector"])
@pytest.mark.parametrize("T, I", [(5, (2,)), (6, (0, 4)), (7, (1, 3, 6))])
def test_worst_case_error_is_the_brute_force_maximum(lemma, output, T, I):
    c = _build(lemma, T, I, output)
    errs = {b: max(abs(h - g) for h, g in zip(c.head_output(b), _chi_target(c, b))) for b in _contexts(T)}
    assert max(errs.values()) == ts.worst_case_error(c)
    assert errs[ts.worst_case_input(c)] == ts.worst_case_error(c)
    assert ts.worst_case_error(c) <= c.gamma / 4


def test_single_head_closed_form_by_hand():
    """(2T - 2s + 1)/(s q + T - s + 1) with q = 8T/gamma: T = 4, s = 2, gamma = 1 -> 5/(64 + 3)."""
    c = ts.lemma_a19(4, (0, 3), F(1), "scalar")
    assert c.exp_R == 32 and ts.worst_case_error(c) == F(5, 67)
    b = (1, 0, 0, 1)  # relevant chi = -1, the three other positions (incl. [CLS] with value 0) leak
    assert c.head_output(b) == (F(-32 * 2 + 2, 2 * 32 + 3),)


def test_printed_multihead_outputs_zero():
    c = ts.lemma_a19(5, (0, 2, 4), F(1), "vector", thesis_wv=True)
    assert all(c.head_output(b) == (0, 0, 0) for b in _contexts(5))


def test_coherent_construction_with_orthonormal_gram_keeps_the_printed_key():
    c = ts.lemma_a19_coherent(6, (1, 4), F(1), [[1, 0], [0, 1]], F(0))
    printed = ts.lemma_a19(6, (1, 4), F(1), "scalar")
    assert c.heads[0].W_K == printed.heads[0].W_K
    assert c.R == printed.R
    G = [[F(1), F(1, 5)], [F(1, 5), F(1)]]
    alpha = [coef for coef, _, _ in ts.lemma_a19_coherent(6, (1, 4), F(1), G, F(1, 5)).heads[0].W_K.terms]
    assert [sum(g * a for g, a in zip(row, alpha)) for row in G] == [1, 1]


# ------------------------------------------------------------------------------------------ Lemma A.25


def _printed_or_corrected_bump(kind: str, u: F) -> F:
    net = ts.relu_interpolation_net([(F(0),)], [F(1)], F(1), bump=kind)
    return sum(sgn * max(F(0), u * net.W1[0][b] + net.W1[1][b]) for b, sgn in enumerate((1, -1, -1, 1)))


def test_corrected_bump_is_a_bump_and_the_printed_one_is_not():
    for k in range(-16, 17):
        u = F(k, 4)
        expect = 1 if abs(u) <= 1 else 0 if abs(u) >= 2 else 2 - abs(u)
        assert _printed_or_corrected_bump("corrected", u) == expect
    assert _printed_or_corrected_bump("printed", F(0)) == 0
    assert _printed_or_corrected_bump("printed", F(3)) == 1 and _printed_or_corrected_bump("printed", F(-3)) == -1


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(0, 2**16),
    st.lists(st.fractions(min_value=-1, max_value=1, max_denominator=8), min_size=3, max_size=3),
)
def test_relu_net_is_exact_on_the_boxes(d_f, seed, z):
    rng = random.Random(seed)
    pts = [tuple(F(x) for x in p) for p in itertools.product((-1, 1), repeat=d_f)]
    vals = [F(rng.randint(-9, 9), rng.randint(1, 5)) for _ in pts]
    delta = F(1, 4)
    net = ts.relu_interpolation_net(pts, vals, delta)
    for p, v in zip(pts, vals):
        assert net([x + delta * zi for x, zi in zip(p, z)]) == v
    assert net([F(0)] * d_f) == 0  # 1 away from every point in every coordinate


def test_mlp_closed_form_norms_equal_the_entries():
    rep = ts.general_representation(5, (0, 2, 3), [F(k - 3, 2) for k in range(8)])
    net, norms = rep.net, ts.mlp_norms(rep.net)
    sq = lambda M: sum(x * x for row in M for x in row)  # noqa: E731
    assert norms["W1_F"] ** 2 == sympy.Rational(sq(net.W1))
    assert norms["W2_F"] ** 2 == sympy.Rational(sq(net.W2))
    assert norms["w_F"] ** 2 == sympy.Rational(sum(x * x for x in net.w))
    entries = ts.mlp_max_entries(net)
    assert (norms["W1_max"], norms["W2_max"], norms["w_max"]) == tuple(
        sympy.Rational(entries[k]) for k in ("W1", "W2", "w")
    )
    B, delta = 1, net.delta
    assert entries["W1"] == B / delta + 2 > ts.stated_mlp_bounds(net, "A.25")["W1"]  # the erratum
    stated = ts.stated_mlp_bounds(net, "A.23", rep.construction.gamma)
    assert all(entries[k] <= stated[k] for k in ("W1", "W2", "w"))


# ------------------------------------------------------------------------------------------ representations


@settings(max_examples=25, deadline=None)
@given(
    T=st.integers(1, 6),
    data=st.data(),
    mapping=st.sampled_from(ts.MAPPINGS),
    symmetric=st.booleans(),
)
def test_random_sparse_functions_are_represented_exactly(T, data, mapping, symmetric):
    s = data.draw(st.integers(1, min(T, 3)))
    support = data.draw(st.lists(st.integers(0, T - 1), min_size=s, max_size=s, unique=True))
    values = data.draw(
        st.lists(
            st.fractions(min_value=-10, max_value=10, max_denominator=6),
            min_size=s + 1 if symmetric else 2**s,
            max_size=s + 1 if symmetric else 2**s,
        )
    )
    if symmetric:
        rep = ts.symmetric_representation(T, support, values, mapping)
        f = lambda b: values[sum(b[i] for i in sorted(support))]  # noqa: E731
    else:
        rep = ts.general_representation(T, support, values, mapping)
        f = lambda b: values[sum(b[i] << j for j, i in enumerate(sorted(support)))]  # noqa: E731
    for b in _contexts(T):
        assert rep(b) == f(b) == rep.f(b)


def test_printed_delta_breaks_the_s_head_representation():
    rep = ts.general_representation(6, (0, 2, 5), [F(k + 1) for k in range(8)], "deterministic", "printed")
    b = ts.worst_case_input(rep.construction)
    assert ts.worst_case_error(rep.construction) > rep.net.delta
    assert rep(b) != rep.f(b)


# ------------------------------------------------------------------------------------------ norms


@pytest.mark.parametrize("lemma", ["A.19", "A.20", "A.21"])
@pytest.mark.parametrize("output", ["scalar", "vector"])
def test_exact_head_norms_and_bounds(lemma, output):
    T, I = 50, (3, 17, 40)
    c = _build(lemma, T, I, output)
    norms, bounds = ts.exact_head_norms(c), ts.stated_head_bounds(c)
    for k, v in norms.items():
        assert float(v) <= float(bounds[k]) + 1e-12
    assert sympy.simplify(norms["W_Q"] - c.R) == 0
    if lemma in ("A.19", "A.20"):
        assert sympy.simplify(norms["W_Q"] - bounds["W_Q"]) == 0  # the W_Q bound is attained
        assert sympy.exp(c.R) == sympy.Rational(8 * T) / sympy.Rational(c.gamma)
    s = len(I)
    expected_k = {"A.19": math.sqrt(s) if output == "scalar" else 1.0, "A.20": 1.0, "A.21": math.sqrt(s + 1)}[lemma]
    assert float(norms["W_K"]) == pytest.approx(expected_k, rel=1e-15)


@pytest.mark.parametrize("lemma", ["A.19", "A.20", "A.21"])
@pytest.mark.parametrize("output", ["scalar", "vector"])
@pytest.mark.parametrize("T, I", [(7, (2,)), (50, (3, 17, 40)), (1000, (0, 5, 9, 999))])
def test_head_norm_closed_forms_equal_the_built_weights(lemma, output, T, I):
    """The closed forms (from lemma, output, T, s, gamma alone) against the Frobenius norms summed from the built
    weights' coefficients (the oracle: ``exact_head_norms`` of the construction)."""
    c = _build(lemma, T, I, output)
    closed = ts.head_norm_closed_forms(lemma, output, T, len(I), c.gamma)
    built = ts.exact_head_norms(c)
    assert set(closed) == set(built)
    for k in built:
        assert sympy.simplify(closed[k] - built[k]) == 0, k


def test_head_norm_closed_forms_by_hand():
    s, T = 3, 10
    a19 = ts.head_norm_closed_forms("A.19", "scalar", T, s, F(2, 3))
    assert a19 == {"W_Q": sympy.log(120), "W_K": sympy.sqrt(3), "W_V": sympy.sqrt(2), "W_C": 1}
    assert ts.head_norm_closed_forms("A.19", "vector", T, s, F(1))["W_K"] == 1
    a20 = ts.head_norm_closed_forms("A.20", "vector", T, s, F(1))
    assert a20 == {"P_21": 3, "W_Q": sympy.log(80), "W_K": 1, "W_V": sympy.sqrt(2), "W_C": 1}
    a21 = ts.head_norm_closed_forms("A.21", "scalar", T, s, F(1, 4))
    assert a21 == {"W_Q": sympy.log(960), "W_K": 2, "W_V": sympy.sqrt(6), "W_C": sympy.sqrt(3)}


def test_head_norm_closed_forms_refuse_bad_input():
    with pytest.raises(ValueError, match="lemma"):
        ts.head_norm_closed_forms("A.22", "scalar", 10, 2, F(1))
    with pytest.raises(ValueError, match="output"):
        ts.head_norm_closed_forms("A.19", "matrix", 10, 2, F(1))
    with pytest.raises(ValueError, match="s <= T"):
        ts.head_norm_closed_forms("A.19", "scalar", 3, 4, F(1))
    with pytest.raises(ValueError, match="gamma"):
        ts.head_norm_closed_forms("A.19", "scalar", 10, 2, F(0))
    with pytest.raises(ValueError, match="gamma"):
        ts.head_norm_closed_forms("A.21", "scalar", 10, 2, F(1))


# ------------------------------------------------------------------------------------------ Lemma 4.7, Prop. 4.8


def test_softmax_constants():
    for T in (1, 2, 5, 9):
        assert ts.softmax_jacobian_l11([F(1, T)] * T) == ts.softmax_l11_sup(T) == 2 * (1 - F(1, T))
    assert ts.softmax_jacobian_l11([F(1, 2), F(1, 3), F(1, 6)]) == 2 * (F(1, 4) + F(2, 9) + F(5, 36))
    assert ts.softmax_linf_to_l1_constant() == 1
    assert ts.lemma47_sharp_ratios() == (F(1, 2), F(1))
    with pytest.raises(ValueError):
        ts.softmax_jacobian_l11([F(1, 2), F(1, 3)])


def test_shattering_size_and_bounds():
    for T in (2, 3, 4, 7, 8, 1000, 1024, 1025):
        assert ts.shattering_size(T) == math.floor(math.log2(T))
    assert float(ts.prop48_target_weight_bound()) == pytest.approx(1 / (1 + math.sqrt(math.pi / 8)))
    assert ts.prop48_target_weight_bound() > sympy.Rational(1, 2)
    assert float(ts.and_information_bound(300)) == pytest.approx(math.log2(math.comb(300, 3)))
    with pytest.raises(ValueError):
        ts.shattering_size(1)


# ------------------------------------------------------------------------------------------ fixed scores (Delta > 0)


def test_fixed_score_worst_case_matches_the_orthonormal_closed_form():
    for T, I in [(5, (0,)), (9, (1, 4, 7)), (40, (2, 3, 30, 39))]:
        c = _build("A.19", T, I, "scalar")
        G = [[F(int(i == t)) for t in range(T)] for i in I]
        kappa = ts.score_coefficients(c, G)
        assert kappa == [F(int(t in I)) for t in range(T)]
        got = ts.fixed_score_worst_case_error(kappa, I, c.R, digits=40)
        assert abs(got - sympy.Rational(ts.worst_case_error(c))) < sympy.Float(10) ** -38


def _mp_head_minus_target(kappa, I, R, b):
    """Brute force at 40 digits: softmax over the T scores R kappa_t and the [CLS] score 0, values chi_t."""
    with mpmath.workdps(40):
        r = mpmath.mpf(str(sympy.N(R, 50)))
        w = [mpmath.exp(r * mpmath.mpf(k.numerator) / k.denominator) for k in kappa]
        head = mpmath.fsum(wt * (1 - 2 * bt) for wt, bt in zip(w, b)) / (mpmath.fsum(w) + 1)
        return abs(head - mpmath.mpf(sum(1 - 2 * b[i] for i in I)) / len(I))


@pytest.mark.parametrize("seed", range(4))
def test_fixed_score_worst_case_is_the_brute_force_maximum(seed):
    rng = random.Random(seed)
    T, I = 8, tuple(sorted(rng.sample(range(8), 3)))
    kappa = [F(1) if t in I else F(rng.randint(-60, 60), 100) for t in range(T)]
    kappa[I[0]] = F(rng.randint(70, 130), 100)  # unequal relevant scores too
    R = sympy.log(20)
    brute = max(_mp_head_minus_target(kappa, I, R, b) for b in _contexts(T))
    got = ts.fixed_score_worst_case_error(kappa, I, R, digits=30)
    assert abs(float(got) - float(brute)) <= 1e-25 * float(brute)


def test_coherent_score_coefficients_make_relevant_scores_equal():
    T, I = 6, (1, 4)
    # <v_1, v_t> = (t - 1)/20 and <v_4, v_t> = (t - 4)/20 off the diagonal, except <v_4, v_1> = <v_1, v_4> = 3/20
    G = [[F(1) if t == i else F(t - i, 20) for t in range(T)] for i in I]
    G[1][1] = F(3, 20)
    gram = [[F(1), F(3, 20)], [F(3, 20), F(1)]]
    c = ts.lemma_a19_coherent(T, I, F(1), gram, F(3, 20))
    kappa = ts.score_coefficients(c, G)
    assert [kappa[i] for i in I] == [1, 1]
    with pytest.raises(ValueError, match="s x T"):
        ts.score_coefficients(c, G[:1])
    with pytest.raises(ValueError, match="one-head scalar"):
        ts.score_coefficients(_build("A.19", T, I, "vector"), G)
    with pytest.raises(ValueError, match="digits"):
        ts.fixed_score_worst_case_error(kappa, I, c.R, digits=5)
    with pytest.raises(ValueError, match="rational"):
        ts.fixed_score_worst_case_error([sympy.sqrt(2), 0, 0], (0,), c.R)
    with pytest.raises(ValueError, match="R"):
        ts.fixed_score_worst_case_error([1, 0, 0], (0,), "log(5)")


# ------------------------------------------------------------------------------------------ sizes (issue 32)


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda: ts.lemma_a19(10**9, (0,)), "T"),
        (lambda: ts.lemma_a21(ts.MAX_CONTEXT + 1, (0,)), "T"),
        (lambda: ts.general_representation(8, tuple(range(8)), [F(0)] * 256), "support"),
        (lambda: ts.general_representation(100, tuple(range(100)), []), "support"),
        (lambda: ts.symmetric_representation(1000, tuple(range(1000)), [F(0)] * 1001), "support"),
        (lambda: ts.relu_interpolation_net([(F(k),) for k in range(1000)], [F(0)] * 1000, F(1, 4)), "points"),
        (lambda: ts.random_support(10**9, 10**9, random.Random(0)), "s"),
        (lambda: ts.fixed_score_worst_case_error([1, 0], (0,), 1, digits=10**9), "digits"),
        (lambda: ts.fixed_score_worst_case_error([1, 0], (0,), "1e3000"), "R"),
        (lambda: ts.and_information_bound(10**6, 5 * 10**5), "s"),
    ],
)
def test_sizes_are_refused_before_the_work(call, param):
    """Each of these hung or ran out of memory (T = 10^9 positions, a 2^(2s) s^2-entry network, a billion digits)."""
    with pytest.raises(LimitError) as info:
        call()
    assert info.value.param == param and str(info.value).startswith(f"{param} = ")


def test_the_limits_allow_the_claims_cases():
    """The claims use T <= 10^5 and s <= 6 (general representation): accepted."""
    assert ts.worst_case_error(ts.lemma_a19(ts.MAX_CONTEXT, (0, 5, 9))) > 0
    rep = ts.general_representation(6, tuple(range(6)), [F(k) for k in range(64)])
    assert rep((1, 0, 1, 0, 1, 1)) == rep.f((1, 0, 1, 0, 1, 1))
    assert ts.and_information_bound(10**400, 3) > 0  # C(T, 3) has 1200 digits


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda: ts.chi(float("nan")), "bit"),
        (lambda: ts.lemma_a19(4, (1,), gamma="1e999999999"), "gamma"),
        (lambda: ts.lemma_a19(4, (1,), coherence=float("inf")), "coherence"),
        (lambda: ts.r_a19(4, 2, "1e-999999999"), "gamma"),
        (lambda: ts.check_bits([0, float("inf")], 2), "b"),
        (lambda: ts.stated_mlp_bounds(ts.relu_interpolation_net([[0]], [1], F(1, 4)), "A.22", 0), "gamma"),
        (lambda: ts.stated_mlp_bounds(ts.relu_interpolation_net([[0]], [1], F(1, 4)), "A.99", F(1)), "lemma"),
        (lambda: ts.worst_case_error(-1), "c"),
        (lambda: ts.mlp_norms(None), "net"),
        (lambda: ts.random_support(5, 2, rng=-1), "rng"),
        (lambda: ts.lemma_a19_coherent(3, (0, 1), F(1), [[1, 1], [1, 1]], F(0)), "gram"),
    ],
)
def test_bad_values_are_refused_naming_the_parameter(call, param):
    """NaN came back from chi, OverflowError from Fraction(inf), ZeroDivisionError from gamma = 0, a hang from
    Fraction("1e999999999"), AttributeError from a non-construction, StopIteration from a singular Gram matrix."""
    with pytest.raises(ValueError) as info:
        call()
    assert info.value.param == param


# --------------------------------------------------------------------------------------------- Lemmas A.14-A.16, A.24


def _softmax_exact(z: list) -> list:
    e = [sympy.exp(x) if x is not None else sympy.Integer(0) for x in z]  # None stands for -inf
    total = sum(e)
    return [x / total for x in e]


@given(st.integers(1, 12), st.data(), st.integers(-3, 6))
@settings(max_examples=30, deadline=None)
def test_softmax_truncation_sup_is_attained_and_below_the_printed_bound(T, data, R):
    s = data.draw(st.integers(1, T))
    z = [sympy.Integer(R)] * s + [sympy.Integer(0)] * (T - s)
    p, p_trunc = _softmax_exact(z), _softmax_exact(z[:s] + [None] * (T - s))
    attained = sum(abs(a - b) for a, b in zip(p, p_trunc))
    sup = ts.softmax_truncation_sup(T, s, R)
    assert sympy.simplify(attained - sup) == 0
    assert sup <= ts.softmax_truncation_bound(T, s, R)
    assert (sup < ts.softmax_truncation_bound(T, s, R)) == (s < T)


def test_softmax_truncation_refuses_bad_arguments():
    for args in ((4, 5, 0), (4, 0, 0), (4, 1, "1/0"), (4, 1, 10**9)):
        with pytest.raises(ValueError):
            ts.softmax_truncation_bound(*args)


@given(st.fractions(0, 10), st.fractions(0, 10), st.fractions(0, 4))
@settings(max_examples=50, deadline=None)
def test_head_constant_is_monotone_and_the_sharp_one_is_smaller(v, q, c):
    assert ts.head_input_lipschitz(v, q, c) == v * (1 + 2 * c * q)
    assert ts.head_input_lipschitz(v, q, 1) <= ts.head_input_lipschitz(v, q)
    assert ts.head_input_lipschitz(v, q + 1) >= ts.head_input_lipschitz(v, q)


def test_block_and_scalar_bounds_reduce_to_their_single_terms():
    # only W_C moves: the bound is its first term; only w moves: the second term of Lemma A.16
    assert ts.block_perturbation_bound(F(1, 3), 0, 0, 0, 5, 7, 11) == F(1, 3)
    assert ts.block_perturbation_bound(0, 1, 0, 0, 2, 1, 3, sigma_lipschitz=F(1, 2)) == F(1, 2) * 3 * 2 * 5
    assert ts.block_perturbation_bound(0, 0, 1, 1, 2, 1, 3) == 2 * 3 * 2 + 3
    assert ts.scalar_output_bound(3, 0, F(1, 7)) == F(1, 7) and ts.perturbation_bound_sharp_ratio() == 1
    with pytest.raises(ValueError):
        ts.block_perturbation_bound(-1, 0, 0, 0, 1, 1, 1)


def test_threshold_log_law_is_the_information_bound_scaled_to_the_thesis_reading():
    """m*(T) = 70 log2 C(T, 3) / log2 C(300, 3) (Fig. 4.3 caption: m*(300) ≈ 70): exactly 70 at T = 300, the
    information bound times one constant at every T, increasing in T; a bad anchor raises ValueError."""
    assert ts.and_threshold_log_law(300) == 70
    const = 70 / math.log2(math.comb(300, 3))
    for T in (4, 8, 32, 100, 1100):
        got = float(ts.and_threshold_log_law(T))
        assert got == pytest.approx(const * math.log2(math.comb(T, 3)), rel=1e-12)
        assert (
            sympy.simplify(
                ts.and_threshold_log_law(T) - 70 * ts.and_information_bound(T) / ts.and_information_bound(300)
            )
            == 0
        )
    values = [float(ts.and_threshold_log_law(T)) for T in range(4, 60)]
    assert values == sorted(values)
    assert ts.and_threshold_log_law(10, 2, anchor=(10, 5)) == 5
    for anchor in ((300, 0), (3, 70), (300, 7.5), (2.5, 70)):
        with pytest.raises(ValueError, match="anchor"):
            ts.and_threshold_log_law(32, anchor=anchor)
