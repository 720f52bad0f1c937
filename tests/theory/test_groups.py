"""Exact tests of ``theory.groups`` (spec feature_emergence §5, claims 16-23, errata 15-18).

Expected values come from independent routes: group axioms on the Cayley table, Schur orthogonality,
Burnside's algorithm against Murnaghan-Nakayama, brute-force exact evaluation of the construction's
logits, a second closed form. Comparisons are exact (``theory.groups.is_zero``).
"""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational, sqrt

from theory import groups as tg

TOTALLY_REAL = ["S3", "S4", "S5", "D4", "D5", "D6", "Z2^2", "Z2^3", "A5", "S3xZ2"]
CONDITION_HOLDS = ["S3", "S4", "S5", "D3", "D4", "D5", "D6", "D7", "D8", "D10", "Z2^2", "Z2^3", "S3xZ2"]
CONDITION_FAILS = ["A5", "S6"]
ORDERS = {
    "S3": 6,
    "S4": 24,
    "S5": 120,
    "S6": 720,
    "A4": 12,
    "A5": 60,
    "D4": 8,
    "D6": 12,
    "Z5": 5,
    "Z2^3": 8,
    "Q8": 8,
    "S3xZ2": 12,
    "D4xZ2": 16,
}


# ------------------------------------------------------------------------------------------
# Groups
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, order", sorted(ORDERS.items()))
def test_parser_orders(name, order):
    G = tg.group(name)
    assert G.order == order and G.labels[0] == G.labels[G.table[0][0]]
    assert all(G.table[0][g] == g == G.table[g][0] for g in range(G.order))


@pytest.mark.parametrize("bad", ["S7", "G5", "", "S3xx", "Q4", "D2", "Z1", "S3*Z2"])
def test_parser_rejects_unknown_names(bad):
    with pytest.raises(ValueError):
        tg.group(bad)


@pytest.mark.parametrize("name", ["S4", "D5", "A4", "Q8", "S3xZ2", "Z2^3"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_group_axioms(name, data):
    G = tg.group(name)
    a, b, c = (data.draw(st.integers(0, G.order - 1)) for _ in range(3))
    T = G.table
    assert T[T[a][b]][c] == T[a][T[b][c]]
    assert T[a][G.inverse[a]] == 0 == T[G.inverse[a]][a]
    assert sorted(T[a]) == list(range(G.order))  # Latin square


def test_named_structures():
    assert not tg.group("S3").is_abelian() and tg.group("Z2^3").is_abelian()
    Q8 = tg.group("Q8")
    assert sum(1 for g in range(1, 8) if Q8.table[g][g] == 0) == 1  # a unique involution
    D4 = tg.group("D4")
    assert sum(1 for g in range(1, 8) if D4.table[g][g] == 0) == 5
    assert sorted(len(c) for c in tg.group("S4").classes) == [1, 3, 6, 6, 8]
    assert sorted(len(c) for c in tg.group("A5").classes) == [1, 12, 12, 15, 20]


def test_classes_partition_and_are_conjugation_closed():
    for name in ["S4", "A5", "D6", "S3xZ2"]:
        G = tg.group(name)
        assert sorted(g for c in G.classes for g in c) == list(range(G.order))
        for c in G.classes:
            for h in range(G.order):
                assert G.table[G.table[h][c[0]]][G.inverse[h]] in c


# ------------------------------------------------------------------------------------------
# Character tables
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOTALLY_REAL + ["A4", "Q8", "Z5", "D7"])
def test_character_orthogonality_exact(name):
    ct = tg.character_table(name)
    G = ct.group
    assert sum(d * d for d in ct.dims) == G.order
    assert ct.n_irreps == len(G.classes)
    for r, s in itertools.combinations_with_replacement(range(ct.n_irreps), 2):
        inner = sum(n * a * sympy.conjugate(b) for n, a, b in zip(ct.class_sizes, ct.values[r], ct.values[s])) / G.order
        assert tg.is_zero(inner - (1 if r == s else 0)), (name, r, s)
    for c in range(1, len(G.classes)):  # column orthogonality: sum_R d_R chi_R(C) = 0 for C != e
        assert tg.is_zero(sum(d * row[c] for d, row in zip(ct.dims, ct.values)))


@pytest.mark.parametrize("name", ["S4", "S5"])
def test_burnside_matches_murnaghan_nakayama(name):
    mn = tg.character_table(name)
    bu = tg.burnside_character_table(name, seed=3)
    assert sorted(tuple(map(sympy.Integer, r)) for r in mn.values) == sorted(tuple(r) for r in bu.values)


def test_a5_character_values_exact():
    ct = tg.character_table("A5")
    golden = {Rational(1, 2) + sqrt(5) / 2, Rational(1, 2) - sqrt(5) / 2}
    values = {sympy.radsimp(v) for row in ct.values for v in row}
    assert golden <= values and ct.dims == (1, 3, 3, 4, 5)


@pytest.mark.parametrize(
    "name, expected",
    [("S5", {1}), ("D7", {1}), ("Z2^3", {1}), ("A5", {1}), ("Z5", {0, 1}), ("A4", {0, 1}), ("Q8", {-1, 1})],
)
def test_frobenius_schur_indicators(name, expected):
    assert set(int(i) for i in tg.character_table(name).indicators) == expected
    assert tg.is_totally_real(name) == (expected == {1})


def test_q8_has_exactly_one_quaternionic_irrep():
    assert tg.character_table("Q8").indicators.count(-1) == 1


# ------------------------------------------------------------------------------------------
# Irreps in closed form and projectors
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 1), (3, 1), (2, 2), (2, 1, 1), (3, 2), (3, 1, 1)])
def test_young_orthogonal_form_coxeter_relations(shape):
    gens = tg.young_orthogonal_generators(shape)
    d = gens[0].shape[0]
    eye = sympy.eye(d)
    for i, s in enumerate(gens):
        assert sympy.simplify(s * s.T - eye) == sympy.zeros(d, d)
        assert sympy.simplify(s * s - eye) == sympy.zeros(d, d)
        if i + 1 < len(gens):
            t = gens[i + 1]
            assert sympy.simplify(s * t * s - t * s * t) == sympy.zeros(d, d)
        for j in range(i + 2, len(gens)):
            assert sympy.simplify(s * gens[j] - gens[j] * s) == sympy.zeros(d, d)
    n = sum(shape)
    assert gens[0].trace() == tg.murnaghan_nakayama(tuple(shape), (2,) + (1,) * (n - 2))


@pytest.mark.parametrize("name", ["D3", "D4", "D6", "Z2^2", "S3xZ2"])
def test_closed_form_irreps_are_orthogonal_homomorphisms(name):
    G = tg.group(name)
    ct = tg.character_table(G)
    for r in range(ct.n_irreps):
        if name == "S3xZ2" and ct.dims[r] > 1:
            with pytest.raises(ValueError, match="Young|closed-form"):
                tg.closed_form_irrep(G, r, 0)
            continue
        mats = [tg.closed_form_irrep(G, r, g) for g in range(G.order)]
        for a, b in itertools.product(range(G.order), repeat=2):
            assert sympy.simplify(mats[a] * mats[b] - mats[G.table[a][b]]) == sympy.zeros(ct.dims[r], ct.dims[r])
        for g in range(G.order):
            assert tg.is_zero(mats[g].trace() - ct.chi(r, g))


@pytest.mark.parametrize("name", ["S3", "D4"])
def test_isotypic_projectors_exact(name):
    G = tg.group(name)
    ct = tg.character_table(G)
    P = [tg.isotypic_projector(G, r) for r in range(ct.n_irreps)]
    Z = sympy.zeros(G.order, G.order)
    for r in range(ct.n_irreps):
        assert sympy.simplify(P[r] * P[r] - P[r]) == Z
        assert P[r].T == P[r] and P[r].trace() == ct.dims[r] ** 2
        for s in range(r + 1, ct.n_irreps):
            assert sympy.simplify(P[r] * P[s]) == Z
    assert sympy.simplify(sum(P, Z) - sympy.eye(G.order)) == Z


# ------------------------------------------------------------------------------------------
# Thm 7.9: condition, tau, kappa, closed form
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CONDITION_HOLDS)
def test_condition_holds(name):
    assert tg.condition_holds(name)


@pytest.mark.parametrize("name", CONDITION_FAILS)
def test_condition_fails(name):
    assert not tg.condition_holds(name)


def test_condition_values_s6_exact():
    ct = tg.character_table("S6")
    vals = tg.condition_values("S6")
    positive = sorted(float(v) for v in vals[1:] if float(v) > 0)
    assert len(positive) == 2 and abs(positive[1] - 11) < 1e-12 and tg.is_zero(max(vals[1:], key=float) - 11)
    assert ct.group.order == 720


@pytest.mark.parametrize("name", TOTALLY_REAL + ["S6"])
def test_tau_sums_to_one_and_kappa_constant(name):
    ct = tg.character_table(name)
    t = tg.tau(name)
    assert tg.is_zero(sum(n * x for n, x in zip(ct.class_sizes, t)) - 1)
    S = tg.s_sum(name)
    k = tg.kappa(name)
    for r in range(1, ct.n_irreps):
        assert tg.is_zero(k[r] / sqrt(ct.dims[r]) - ct.group.order / S)
    assert (all(float(x) > 0 for x in t[1:])) == tg.condition_holds(name)


def test_closed_form_second_route_s3():
    # gamma* = 2/(3 sqrt(3|G|) S), S = 1 + 2^2.5 for S3, computed by hand
    assert tg.is_zero(tg.max_margin("S3") - 2 / (3 * sqrt(18) * (1 + 4 * sqrt(2))))
    assert tg.min_width("S3") == 18 and tg.min_width("S4") == 126 and tg.min_width("S5") == 1190


@pytest.mark.parametrize("name", ["S3", "S4", "D4", "D5", "Z2^3", "S3xZ2"])
def test_single_neuron_max_under_tau_equals_closed_form(name):
    assert tg.is_zero(tg.single_neuron_max(name) - tg.max_margin(name))


@pytest.mark.parametrize("name", ["S3", "S4", "D4", "D5", "Z2^3"])
def test_construction_reaches_closed_form_exactly(name):
    con = tg.construction(name)
    assert tg.is_zero(con.norm_power - 1)
    assert con.n_active == tg.min_width(name) == con.width
    margins = con.class_margins()[1:]
    assert all(tg.is_zero(m - margins[0]) for m in margins)  # every point on the margin
    assert tg.is_zero(con.normalized_margin - tg.max_margin(name))


def test_construction_logits_brute_force_s3():
    G = tg.group("S3")
    con = tg.construction(G)
    S, N = tg.s_sum(G), G.order
    unit = 2 / (S * (3 * N) ** Rational(3, 2))
    for a, b, c in itertools.product(range(N), repeat=3):
        expected = unit * (N - 1) if G.table[a][b] == c else -unit
        assert tg.is_zero(con.logit(a, b, c) - expected)


def test_game_value_on_support_matches_closed_form():
    ct = tg.character_table("S4")
    full = list(range(1, ct.n_irreps))
    g, budgets, taus = tg.game_value_on_support("S4", full, list(range(1, len(ct.classes))))
    assert tg.is_zero(g - tg.max_margin("S4"))
    assert all(tg.is_zero(x - y) for x, y in zip(taus[1:], tg.tau("S4")[1:]))
    with pytest.raises(ValueError):
        tg.game_value_on_support("S4", [1], [1])  # sign irrep alone is not optimal


def test_construction_with_lp_budgets_exact_a5():
    # the support of the A5 game (3,3,4-dim irreps; 3 of 4 classes) solved exactly, then the
    # construction with these budgets has exactly this margin (lower bound) and the single-neuron
    # maximum under the dual tau (Lemma D.13, upper bound) is the same number.
    ct = tg.character_table("A5")
    irreps = [r for r in range(1, ct.n_irreps) if ct.dims[r] < 5]
    best = None
    for classes in itertools.combinations(range(1, 5), 3):
        try:
            best = tg.game_value_on_support("A5", irreps, classes)
        except ValueError:
            continue
    assert best is not None
    g, budgets, taus = best
    con = tg.construction("A5", budgets=budgets)
    assert tg.is_zero(con.normalized_margin - g)
    assert tg.is_zero(tg.single_neuron_max("A5", taus) - g)
    assert float(g) > float(2 / (3 * sqrt(180) * tg.s_sum("A5")))  # the invalid closed form is lower


# ------------------------------------------------------------------------------------------
# Errors and errata
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, match",
    [
        ("A5", "condition.*fails.*LP"),
        ("S6", "condition.*fails"),
        ("Z5", "real.*indicator"),
        ("A4", "real"),
        ("Q8", "indicator -1"),
    ],
)
def test_closed_form_refuses_outside_hypotheses(name, match):
    with pytest.raises(ValueError, match=match):
        tg.max_margin(name)


def test_construction_width_and_budget_errors():
    with pytest.raises(ValueError, match="below the construction"):
        tg.construction("S3", width=17)
    assert tg.construction("S3", width=30).width == 30
    with pytest.raises(ValueError, match="sum to 1"):
        tg.construction("S3", budgets=[0, Rational(1, 2), Rational(1, 4)])
    with pytest.raises(ValueError, match="condition"):
        tg.construction("A5")
    with pytest.raises(ValueError, match="nontrivial"):
        tg.optimal_neuron_scale("S3", 0)


def test_lemma_d13_as_printed_is_half():
    for name in ["S3", "S4"]:
        assert tg.is_zero(2 * tg.single_neuron_max_as_printed(name) - tg.max_margin(name))
    assert tg.LEMMA_D11_FACTOR == 2 * tg.LEMMA_D11_FACTOR_AS_PRINTED


def test_lemma_d15_coefficient_as_printed_gives_wrong_norm():
    G = tg.group("S4")
    ct = tg.character_table(G)
    for r in range(1, ct.n_irreps):
        # exact norm of the printed neuron u = R_ij / sqrt(3|G|) (same for v, w): sum_g R_ij(g)^2 = |G|/d (Lemma D.10)
        norm = tg.lemma_d15_neuron_norm_as_printed(G, r)
        assert tg.is_zero(norm - 1 / sqrt(ct.dims[r]))
        assert tg.is_zero(tg.optimal_neuron_scale(G, r) * sqrt(3 * G.order) - sqrt(ct.dims[r]))


def test_table_d1_labels_swapped():
    printed, corrected = tg.TABLE_D1_AS_PRINTED, tg.table_d1_corrected()
    assert printed["standard"] == corrected["standard⊗sign"] and printed["standard⊗sign"] == corrected["standard"]
    assert printed["standard"] != corrected["standard"] and corrected["standard"][1] == 2
    assert all(printed[k] == corrected[k] for k in printed if not k.startswith("standard"))
    assert sorted(printed.values()) == sorted(corrected.values())
