"""Exact tests of ``theory.finite_groups``: Cayley tables, classes, character tables, real irreps, projectors.

Expected values come from independent routes: group axioms on the Cayley table, Schur orthogonality,
Burnside's algorithm against Murnaghan-Nakayama, the Coxeter relations of Young's orthogonal form, the
homomorphism property of the closed-form irreps. Comparisons are exact (``theory.finite_groups.is_zero``).
"""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational, sqrt

from theory import finite_groups as fg

TOTALLY_REAL = ["S3", "S4", "S5", "D4", "D5", "D6", "Z2^2", "Z2^3", "A5", "S3xZ2"]
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
    G = fg.group(name)
    assert G.order == order and G.labels[0] == G.labels[G.table[0][0]]
    assert all(G.table[0][g] == g == G.table[g][0] for g in range(G.order))


@pytest.mark.parametrize("bad", ["S7", "G5", "", "S3xx", "Q4", "D2", "Z1", "S3*Z2"])
def test_parser_rejects_unknown_names(bad):
    with pytest.raises(ValueError):
        fg.group(bad)


@pytest.mark.parametrize("name", ["S4", "D5", "A4", "Q8", "S3xZ2", "Z2^3"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_group_axioms(name, data):
    G = fg.group(name)
    a, b, c = (data.draw(st.integers(0, G.order - 1)) for _ in range(3))
    T = G.table
    assert T[T[a][b]][c] == T[a][T[b][c]]
    assert T[a][G.inverse[a]] == 0 == T[G.inverse[a]][a]
    assert sorted(T[a]) == list(range(G.order))  # Latin square


def test_named_structures():
    assert not fg.group("S3").is_abelian() and fg.group("Z2^3").is_abelian()
    Q8 = fg.group("Q8")
    assert sum(1 for g in range(1, 8) if Q8.table[g][g] == 0) == 1  # a unique involution
    D4 = fg.group("D4")
    assert sum(1 for g in range(1, 8) if D4.table[g][g] == 0) == 5
    assert sorted(len(c) for c in fg.group("S4").classes) == [1, 3, 6, 6, 8]
    assert sorted(len(c) for c in fg.group("A5").classes) == [1, 12, 12, 15, 20]


def test_classes_partition_and_are_conjugation_closed():
    for name in ["S4", "A5", "D6", "S3xZ2"]:
        G = fg.group(name)
        assert sorted(g for c in G.classes for g in c) == list(range(G.order))
        for c in G.classes:
            for h in range(G.order):
                assert G.table[G.table[h][c[0]]][G.inverse[h]] in c


# ------------------------------------------------------------------------------------------
# Character tables
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*TOTALLY_REAL, "A4", "Q8", "Z5", "D7"])
def test_character_orthogonality_exact(name):
    ct = fg.character_table(name)
    G = ct.group
    assert sum(d * d for d in ct.dims) == G.order
    assert ct.n_irreps == len(G.classes)
    for r, s in itertools.combinations_with_replacement(range(ct.n_irreps), 2):
        inner = sum(n * a * sympy.conjugate(b) for n, a, b in zip(ct.class_sizes, ct.values[r], ct.values[s])) / G.order
        assert fg.is_zero(inner - (1 if r == s else 0)), (name, r, s)
    for c in range(1, len(G.classes)):  # column orthogonality: sum_R d_R chi_R(C) = 0 for C != e
        assert fg.is_zero(sum(d * row[c] for d, row in zip(ct.dims, ct.values)))


@pytest.mark.parametrize("name", ["S4", "S5"])
def test_burnside_matches_murnaghan_nakayama(name):
    mn = fg.character_table(name)
    bu = fg.burnside_character_table(name, seed=3)
    assert sorted(tuple(map(sympy.Integer, r)) for r in mn.values) == sorted(tuple(r) for r in bu.values)


def test_a5_character_values_exact():
    ct = fg.character_table("A5")
    golden = {Rational(1, 2) + sqrt(5) / 2, Rational(1, 2) - sqrt(5) / 2}
    values = {sympy.radsimp(v) for row in ct.values for v in row}
    assert golden <= values and ct.dims == (1, 3, 3, 4, 5)


@pytest.mark.parametrize(
    "name, expected",
    [("S5", {1}), ("D7", {1}), ("Z2^3", {1}), ("A5", {1}), ("Z5", {0, 1}), ("A4", {0, 1}), ("Q8", {-1, 1})],
)
def test_frobenius_schur_indicators(name, expected):
    assert set(int(i) for i in fg.character_table(name).indicators) == expected
    assert fg.is_totally_real(name) == (expected == {1})


def test_q8_has_exactly_one_quaternionic_irrep():
    assert fg.character_table("Q8").indicators.count(-1) == 1


# ------------------------------------------------------------------------------------------
# Irreps in closed form and projectors
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 1), (3, 1), (2, 2), (2, 1, 1), (3, 2), (3, 1, 1)])
def test_young_orthogonal_form_coxeter_relations(shape):
    gens = fg.young_orthogonal_generators(shape)
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
    assert gens[0].trace() == fg.murnaghan_nakayama(tuple(shape), (2,) + (1,) * (n - 2))


@pytest.mark.parametrize("name", ["D3", "D4", "D6", "Z2^2", "S3xZ2"])
def test_closed_form_irreps_are_orthogonal_homomorphisms(name):
    G = fg.group(name)
    ct = fg.character_table(G)
    for r in range(ct.n_irreps):
        if name == "S3xZ2" and ct.dims[r] > 1:
            with pytest.raises(ValueError, match=r"Young|closed-form"):
                fg.closed_form_irrep(G, r, 0)
            continue
        mats = [fg.closed_form_irrep(G, r, g) for g in range(G.order)]
        for a, b in itertools.product(range(G.order), repeat=2):
            assert sympy.simplify(mats[a] * mats[b] - mats[G.table[a][b]]) == sympy.zeros(ct.dims[r], ct.dims[r])
        for g in range(G.order):
            assert fg.is_zero(mats[g].trace() - ct.chi(r, g))


@pytest.mark.parametrize("name", ["S3", "D4"])
def test_isotypic_projectors_exact(name):
    G = fg.group(name)
    ct = fg.character_table(G)
    P = [fg.isotypic_projector(G, r) for r in range(ct.n_irreps)]
    Z = sympy.zeros(G.order, G.order)
    for r in range(ct.n_irreps):
        assert sympy.simplify(P[r] * P[r] - P[r]) == Z
        assert P[r] == P[r].T and P[r].trace() == ct.dims[r] ** 2
        for s in range(r + 1, ct.n_irreps):
            assert sympy.simplify(P[r] * P[s]) == Z
    assert sympy.simplify(sum(P, Z) - sympy.eye(G.order)) == Z
