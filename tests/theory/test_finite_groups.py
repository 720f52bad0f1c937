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
from theory._checks import InputError, LimitError

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


# ------------------------------------------------------------------------------------------
# Sizes checked from the name before anything is built (issue 32)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("letter", "num"), [("S", 10**6), ("S", 7), ("A", 10**400), ("D", 361), ("Z", 721)])
def test_group_order_above_the_limit_is_refused_not_zero(letter, num):
    """group_order("S", 10**6) returned 0; the order is sized in log space and refused above |G| <= 720."""
    with pytest.raises(LimitError, match=r"\|G\| <= 720") as info:
        fg.group_order(letter, num)
    assert info.value.param == "num" and str(info.value).startswith("num = ")


def test_group_order_answers_exactly_up_to_the_limit():
    assert [fg.group_order("S", n) for n in range(1, 7)] == [1, 2, 6, 24, 120, 720]
    assert (fg.group_order("A", 6), fg.group_order("D", 360), fg.group_order("Z", 720), fg.group_order("Q", 8)) == (
        360,
        720,
        720,
        8,
    )
    for bad in [("X", 3), ("Q", 4), ("S", 0), ("Z", 2.0)]:
        with pytest.raises(InputError):
            fg.group_order(*bad)


@pytest.mark.parametrize("name", ["S7", "A9", "S1000000", "Z2^100000xS3", "D" + "9" * 150])
def test_names_above_the_limit_are_refused_before_building(name):
    with pytest.raises(LimitError, match=r"\|G\| <= 720") as info:
        fg.group(name)
    assert info.value.param == "group"


def test_cyclic_and_dihedral_tables_match_the_permutation_construction():
    """Z_n and D_n are built from their multiplication rules (no |G|^2 products of degree-n permutations): the same
    labels, tables and permutations as sympy's CyclicGroup/DihedralGroup products."""
    from sympy.combinatorics import Permutation
    from sympy.combinatorics.named_groups import CyclicGroup, DihedralGroup
    from sympy.combinatorics.permutations import _af_rmul

    for n in range(3, 25):
        r, s = DihedralGroup(n).generators
        elems = [Permutation(_af_rmul((r**k).array_form, (s**f).array_form)) for k in range(n) for f in range(2)]
        ref = fg._from_permutations(f"D{n}", "dihedral", n, elems, list(fg.dihedral_group(n).labels))
        G = fg.dihedral_group(n)
        assert (G.table, G.perms, G.labels) == (ref.table, ref.perms, ref.labels)
        (g,) = CyclicGroup(n).generators
        ref = fg._from_permutations(f"Z{n}", "cyclic", n, [g**k for k in range(n)], [str(k) for k in range(n)])
        G = fg.cyclic_group(n)
        assert (G.table, G.perms, G.labels) == (ref.table, ref.perms, ref.labels)


def test_z720_is_built_at_once_and_its_character_table_refused():
    """group("Z720") took 28 s (|G|^2 products of 720-point permutations); tvk derive group --name Z720 was refused
    only after that. The bound is loose (a guard against the quadratic-in-degree construction, not a benchmark)."""
    import time

    t0 = time.perf_counter()
    assert fg.group("Z720").order == 720
    with pytest.raises(LimitError, match="conjugacy classes") as info:
        fg.character_table("Z720")
    assert info.value.param == "group" and time.perf_counter() - t0 < 10


def test_isotypic_projector_is_refused_before_the_group_is_built(monkeypatch):
    """The |G|^2 check comes from the name: neither the group nor its character table is built, and the message reads
    as a sentence."""
    monkeypatch.setattr(fg, "group", lambda name: pytest.fail(f"built {name}"))
    with pytest.raises(LimitError) as info:
        fg.isotypic_projector("S6", 1)
    assert info.value.param == "G"
    assert str(info.value).startswith(
        "G = S6 is too large: the number of entries of the exact projector, |G|^2, is 518,400, above the limit 200,000"
    )


def test_burnside_tries_and_class_constants_are_bounded():
    with pytest.raises(LimitError) as info:
        fg.burnside_character_table("S3", max_tries=10**9)
    assert info.value.param == "max_tries"
    with pytest.raises(LimitError, match="conjugacy classes"):
        fg.class_structure_constants("Z120")  # 120^3 class constants
    assert fg.class_structure_constants("S3") == fg.class_structure_constants(fg.group("S3"))


@pytest.mark.parametrize("x", ["1e999999999", -1e308, float("nan")])
def test_is_zero_refuses_or_answers_without_hanging(x):
    try:
        assert fg.is_zero(x) is False
    except ValueError as exc:
        assert getattr(exc, "param", None) == "x"


@pytest.mark.parametrize(("name", "classes"), [("Z720", 720), ("D360", 183), ("Z2^7", 128), ("S4xZ13", 65)])
def test_character_tables_above_the_class_limit_are_refused_from_the_name(monkeypatch, name, classes):
    """The class count comes from the name's parts (p(n) for S_n, (n + 3)/2 or (n + 6)/2 for D_n, n for Z_n, products
    multiply): tvk derive group --name Z720 no longer builds Z_720 first."""
    monkeypatch.setattr(fg, "group", lambda name: pytest.fail(f"built {name}"))
    with pytest.raises(LimitError, match=f"it has {classes} conjugacy classes") as info:
        fg.character_table(name)
    assert info.value.param == "group"
    with pytest.raises(LimitError, match="conjugacy classes"):
        fg.check_totally_real(name)


def test_class_counts_from_names_match_the_built_groups():
    for name in ["S2", "S4", "S6", "A4", "A5", "A6", "Q8", "Z7", "D5", "D6", "Z2^3", "S3xZ2", "D4xZ2^2", "Q8xZ3"]:
        assert fg._name_classes(name)[0] == len(fg.group(name).classes), name


def test_is_zero_decides_nonzero_numbers_without_the_minimal_polynomial(monkeypatch):
    """A nonzero algebraic number, however close to 0, is decided by certified digits; only a zero (which no number
    of digits can certify) reaches the minimal polynomial, the step that took minutes for D_17's characters."""
    calls = []
    real = sympy.minimal_polynomial

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(sympy, "minimal_polynomial", counted)
    c = sympy.cos(2 * sympy.pi / 17)
    near = sympy.sqrt(2) - sympy.Rational(665857, 470832)  # a convergent of sqrt(2): 1.6e-12
    assert not fg.is_zero(near) and not fg.is_zero(2 * c - 1) and not fg.is_zero(c**2 - c / 3)
    assert calls == []
    z = 2 * sympy.pi / 7
    zero = sympy.cos(z) + sympy.cos(2 * z) + sympy.cos(3 * z) + sympy.Rational(1, 2)  # sympy.simplify keeps it
    assert fg.is_zero(zero) and len(calls) == 1


@pytest.mark.parametrize("n", [17, 31])
def test_dihedral_indicators_are_all_real_without_exact_zero_tests(n, monkeypatch):
    """Every irrep of D_n is real (Frobenius-Schur indicator +1), decided from the table's values in floats checked
    to be within 1e-20 of an integer: no exact zero test (each took minutes at n = 17)."""
    monkeypatch.setattr(fg, "is_zero", lambda x: pytest.fail(f"exact zero test of {x}"))
    ct = fg.character_table(fg.group(f"D{n}"))
    assert ct.indicators == tuple(sympy.Integer(1) for _ in ct.names)
