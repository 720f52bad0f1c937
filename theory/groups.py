r"""Finite groups with real irreducible representations: exact group data and Edelman Thm 7.9 (exact).

Network and task (Edelman thesis Ch. 7, App. D.8-D.9; spec ``shared/spec/feature_emergence.md`` §5):
a quadratic network :math:`f(a,b)[c] = \sum_i (u_i[a] + v_i[b])^2 w_i[c]` on all :math:`|G|^2` pairs
:math:`(a,b)\mapsto ab` of a finite group G, normalized by :math:`\|\theta\|_{2,3}^3`.

Contents
--------
* Groups as exact Cayley tables with element labels (:class:`FiniteGroup`, :func:`group`):
  S_n (n <= 6), A_n (n <= 6), D_n (order 2n), Z_n, Z_2^k, Q_8 and direct products, built from
  ``sympy.combinatorics`` permutation groups. Product convention: :math:`(a\circ b)(i) = a(b(i))`
  (spec §5.9), so Young's orthogonal form satisfies :math:`R(a\circ b) = R(a)R(b)`.
* Conjugacy classes and exact character tables (:class:`CharacterTable`, :func:`character_table`):
  Murnaghan-Nakayama for S_n (integers), closed forms for D_n and Z_n, Burnside's algorithm with exact
  sympy eigenvectors for A_n and Q_8 (spec §5.11), tensor products for direct products.
  Frobenius-Schur indicators :math:`\iota(\chi) = |G|^{-1}\sum_g \chi(g^2)`.
* Exact real orthogonal irreps where a closed form exists: Young's orthogonal form generators for
  S_n (:func:`young_orthogonal_generators`), the dihedral rotation/reflection matrices and the
  one-dimensional characters (:func:`closed_form_irrep`). All other real irreps (A_5, ...) are built
  numerically (float64) by the commutant method in ``numerics.groups``.
* Isotypic projectors :math:`P_R = (d_R/|G|)\sum_g \chi_R(g) L(g)`, i.e.
  :math:`P_R[x,y] = (d_R/|G|)\chi_R(xy^{-1})` (spec §5.1), exact.
* Edelman Thm 7.9: the condition :math:`\sum_{R\ne1} d_R^{3/2}\chi_R(C) < 0` for every nontrivial class,
  the class weights :math:`\tau_C` (Lemma D.14), :math:`\kappa_R`, the closed form
  :math:`\gamma^*(G) = 2/(3\sqrt{3|G|}\sum_{R\ne1} d_R^{5/2})`, the width :math:`2\sum_{R\ne1}d_R^3`,
  the corrected single-neuron maximum (Lemma D.13 times 2) and the construction of Lemmas D.15-D.16
  with corrected constants (spec §5.6).
* Thesis errata that change a number (spec §9 items 15-18): Lemma D.11/D.13 missing factor 2
  (:func:`single_neuron_max_as_printed`), Table D.1 swapped labels (:data:`TABLE_D1_AS_PRINTED`).

Hypotheses
----------
Thm 7.9 needs every irrep of G to be real (all Frobenius-Schur indicators +1) and the strict
condition above. Functions that need them raise :class:`ValueError` naming the failing hypothesis:
Z_p (p > 2), A_4 and Q_8 are not totally real; A_5 and S_6 violate the condition (use the
character-level LP of spec §5.8, ``numerics.groups.character_lp``).
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import sympy
from sympy import Integer, Rational, sqrt
from sympy.combinatorics import Permutation, PermutationGroup
from sympy.combinatorics.named_groups import AlternatingGroup, CyclicGroup, DihedralGroup, SymmetricGroup
from sympy.combinatorics.permutations import _af_rmul

__all__ = [
    "FiniteGroup",
    "CharacterTable",
    "group",
    "symmetric_group",
    "alternating_group",
    "dihedral_group",
    "cyclic_group",
    "elementary_abelian_2_group",
    "quaternion_group",
    "direct_product",
    "character_table",
    "burnside_character_table",
    "partitions",
    "murnaghan_nakayama",
    "standard_tableaux",
    "young_orthogonal_generators",
    "adjacent_transpositions",
    "closed_form_irrep",
    "isotypic_projector",
    "is_zero",
    "class_structure_constants",
    "is_totally_real",
    "check_totally_real",
    "condition_values",
    "condition_holds",
    "check_condition",
    "s_sum",
    "tau",
    "kappa",
    "max_margin",
    "min_width",
    "single_neuron_max",
    "single_neuron_max_as_printed",
    "LEMMA_D11_FACTOR",
    "LEMMA_D11_FACTOR_AS_PRINTED",
    "lemma_d15_neuron_norm_as_printed",
    "optimal_neuron_scale",
    "GroupConstruction",
    "construction",
    "character_game_matrix",
    "game_value_on_support",
    "TABLE_D1_CLASSES",
    "TABLE_D1_AS_PRINTED",
    "table_d1_corrected",
]

SOURCE = "Edelman Thm 7.9"
MAX_SYMMETRIC_DEGREE = 6


# --------------------------------------------------------------------------------------------
# Groups as Cayley tables
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FiniteGroup:
    """A finite group given by its exact Cayley table; element 0 is the identity.

    Attributes
    ----------
    name : str
        Canonical name (e.g. ``"S4"``, ``"D6"``, ``"Z2^3"``, ``"S3xZ2"``).
    labels : tuple of str
        One human-readable label per element.
    table : tuple of tuple of int
        ``table[a][b]`` is the index of the product ``ab`` (``a∘b`` for permutations).
    kind : str
        ``"symmetric"``, ``"alternating"``, ``"dihedral"``, ``"cyclic"``, ``"quaternion"`` or ``"product"``.
    n : int
        Degree (S_n, A_n), polygon size (D_n) or modulus (Z_n); 0 for products.
    factors : tuple of FiniteGroup
        The factors of a direct product (empty otherwise).
    perms : tuple of tuple of int, optional
        Array forms of the permutations (permutation groups only).
    """

    name: str
    labels: tuple[str, ...]
    table: tuple[tuple[int, ...], ...]
    kind: str
    n: int = 0
    factors: tuple["FiniteGroup", ...] = ()
    perms: tuple[tuple[int, ...], ...] | None = None

    def __repr__(self) -> str:
        return f"FiniteGroup({self.name!r}, order={self.order})"

    @property
    def order(self) -> int:
        return len(self.labels)

    def mul(self, a: int, b: int) -> int:
        """Index of the product ``ab``."""
        return self.table[a][b]

    @cached_property
    def inverse(self) -> tuple[int, ...]:
        """``inverse[g]`` is the index of :math:`g^{-1}`."""
        inv = [0] * self.order
        for a, row in enumerate(self.table):
            inv[a] = row.index(0)
        return tuple(inv)

    @cached_property
    def classes(self) -> tuple[tuple[int, ...], ...]:
        """Conjugacy classes as sorted element tuples, ordered by smallest element (identity class first)."""
        seen = [-1] * self.order
        out: list[tuple[int, ...]] = []
        inv = self.inverse
        for g in range(self.order):
            if seen[g] >= 0:
                continue
            cls = sorted({self.table[self.table[h][g]][inv[h]] for h in range(self.order)})
            for x in cls:
                seen[x] = len(out)
            out.append(tuple(cls))
        return tuple(out)

    @cached_property
    def class_of(self) -> tuple[int, ...]:
        """``class_of[g]`` is the index in :attr:`classes` of the class of g."""
        out = [0] * self.order
        for i, cls in enumerate(self.classes):
            for g in cls:
                out[g] = i
        return tuple(out)

    def is_abelian(self) -> bool:
        return all(self.table[a][b] == self.table[b][a] for a in range(self.order) for b in range(a))


def _from_permutations(
    name: str, kind: str, n: int, perms: Sequence[Permutation], labels: Sequence[str] | None = None
) -> FiniteGroup:
    """Cayley table of a list of permutations (first must be the identity), product a∘b = sympy ``_af_rmul``."""
    afs = [tuple(p.array_form) for p in perms]
    if any(afs[0][i] != i for i in range(len(afs[0]))):
        raise ValueError("the first element must be the identity")
    index = {af: i for i, af in enumerate(afs)}
    if len(index) != len(afs):
        raise ValueError("duplicate elements")
    table = tuple(tuple(index[tuple(_af_rmul(a, b))] for b in afs) for a in afs)
    if labels is None:
        labels = [_cycle_label(p) for p in perms]
    return FiniteGroup(name=name, labels=tuple(labels), table=table, kind=kind, n=n, perms=tuple(afs))


def _cycle_label(p: Permutation) -> str:
    cyc = p.cyclic_form
    if not cyc:
        return "e"
    return "".join("(" + " ".join(str(i + 1) for i in c) + ")" for c in cyc)


def _sorted_elements(G: PermutationGroup) -> list[Permutation]:
    return sorted(G.generate(), key=lambda p: tuple(p.array_form))


@functools.lru_cache(maxsize=None)
def symmetric_group(n: int) -> FiniteGroup:
    """The symmetric group S_n (2 <= n <= 6) on {1..n}; labels in 1-based cycle notation."""
    if not 2 <= n <= MAX_SYMMETRIC_DEGREE:
        raise ValueError(f"S_n is supported for 2 <= n <= {MAX_SYMMETRIC_DEGREE}, got n = {n}")
    return _from_permutations(f"S{n}", "symmetric", n, _sorted_elements(SymmetricGroup(n)))


@functools.lru_cache(maxsize=None)
def alternating_group(n: int) -> FiniteGroup:
    """The alternating group A_n (3 <= n <= 6)."""
    if not 3 <= n <= MAX_SYMMETRIC_DEGREE:
        raise ValueError(f"A_n is supported for 3 <= n <= {MAX_SYMMETRIC_DEGREE}, got n = {n}")
    return _from_permutations(f"A{n}", "alternating", n, _sorted_elements(AlternatingGroup(n)))


@functools.lru_cache(maxsize=None)
def dihedral_group(n: int) -> FiniteGroup:
    r"""The dihedral group D_n of order 2n (n >= 3), the symmetries of the n-gon.

    Element ``2k + f`` is :math:`r^k\circ s^f` (label ``r^k`` or ``r^k s``) with r the rotation and s the
    reflection generating ``sympy.combinatorics.named_groups.DihedralGroup(n)``.
    """
    if not isinstance(n, int) or n < 3:
        raise ValueError(f"D_n needs n >= 3 (order 2n), got n = {n!r}")
    r, s = DihedralGroup(n).generators
    elems, labels = [], []
    for k in range(n):
        for f in range(2):
            elems.append(Permutation(_af_rmul((r**k).array_form, (s**f).array_form)))
            labels.append(("e" if k == 0 else f"r^{k}") if f == 0 else ("s" if k == 0 else f"r^{k} s"))
    return _from_permutations(f"D{n}", "dihedral", n, elems, labels)


@functools.lru_cache(maxsize=None)
def cyclic_group(n: int) -> FiniteGroup:
    """The cyclic group Z_n (n >= 2); element k is g^k."""
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"Z_n needs n >= 2, got n = {n!r}")
    (g,) = CyclicGroup(n).generators
    return _from_permutations(f"Z{n}", "cyclic", n, [g**k for k in range(n)], [str(k) for k in range(n)])


@functools.lru_cache(maxsize=None)
def quaternion_group() -> FiniteGroup:
    """The quaternion group Q_8 (regular permutation representation on 8 points)."""
    i = Permutation([[0, 1, 3, 6], [2, 5, 7, 4]])
    j = Permutation([[0, 2, 3, 7], [1, 4, 6, 5]])
    G = PermutationGroup([i, j])
    if G.order() != 8 or G.is_abelian:
        raise AssertionError("Q8 generators are wrong")
    return _from_permutations("Q8", "quaternion", 8, _sorted_elements(G))


def direct_product(*groups: FiniteGroup) -> FiniteGroup:
    """Direct product G_1 x ... x G_r; element index is mixed-radix (last factor fastest)."""
    if len(groups) < 2:
        raise ValueError("a direct product needs at least two factors")
    if len(groups) > 2:
        return direct_product(direct_product(*groups[:-1]), groups[-1])
    G, H = groups
    nh = H.order
    table = tuple(
        tuple(G.table[a // nh][b // nh] * nh + H.table[a % nh][b % nh] for b in range(G.order * nh))
        for a in range(G.order * nh)
    )
    labels = tuple(f"({x}, {y})" for x in G.labels for y in H.labels)
    factors = (G.factors if G.kind == "product" else (G,)) + (H,)
    name = _product_name(factors)
    return FiniteGroup(name=name, labels=labels, table=table, kind="product", factors=(G, H))


def _product_name(factors: Sequence[FiniteGroup]) -> str:
    parts: list[list] = []
    for f in factors:
        if parts and parts[-1][0] == f.name:
            parts[-1][1] += 1
        else:
            parts.append([f.name, 1])
    return "x".join(n if k == 1 else f"{n}^{k}" for n, k in parts)


def elementary_abelian_2_group(k: int) -> FiniteGroup:
    """Z_2^k (k >= 1)."""
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"Z2^k needs k >= 1, got {k!r}")
    return cyclic_group(2) if k == 1 else direct_product(*([cyclic_group(2)] * k))


_FACTOR = re.compile(r"^(S|A|D|Z|Q)(\d+)(?:\^(\d+))?$")


@functools.lru_cache(maxsize=None)
def group(name: str) -> FiniteGroup:
    """Parse a group name: ``S3..S6``, ``A3..A6``, ``D3, D4, ...`` (order 2n), ``Z5``, ``Z2^3``, ``Q8``
    and direct products joined by ``x`` (``"S3xZ2"``, ``"D4xZ2^2"``).

    Raises
    ------
    ValueError
        For an unknown or unsupported name, listing the accepted forms.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"group name must be a non-empty string, got {name!r}")
    parts = name.replace(" ", "").replace("_", "").split("x")
    factors: list[FiniteGroup] = []
    for part in parts:
        m = _FACTOR.match(part)
        if not m:
            raise ValueError(
                f"unknown group name {name!r} (part {part!r}); accepted: S2..S6, A3..A6, Dn (n >= 3, order 2n), "
                "Zn, Zn^k, Q8 and direct products joined by 'x', e.g. 'S3xZ2', 'Z2^3'"
            )
        letter, num, power = m.group(1), int(m.group(2)), int(m.group(3) or 1)
        if power < 1:
            raise ValueError(f"exponent must be >= 1 in {part!r}")
        if letter == "S":
            g = symmetric_group(num)
        elif letter == "A":
            g = alternating_group(num)
        elif letter == "D":
            g = dihedral_group(num)
        elif letter == "Z":
            g = cyclic_group(num)
        else:
            if num != 8:
                raise ValueError(f"only the quaternion group Q8 is supported, got {part!r}")
            g = quaternion_group()
        factors.extend([g] * power)
    return factors[0] if len(factors) == 1 else direct_product(*factors)


def _as_group(G: "FiniteGroup | str") -> FiniteGroup:
    if isinstance(G, str):
        return group(G)
    if not isinstance(G, FiniteGroup):
        raise ValueError(f"expected a FiniteGroup or a group name, got {G!r}")
    return G


# --------------------------------------------------------------------------------------------
# Character tables
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CharacterTable:
    r"""Exact character table of a finite group.

    Attributes
    ----------
    group : FiniteGroup
    names : tuple of str
        Irrep names (trivial first; S_n irreps are partitions such as ``"(3,1)"``).
    dims : tuple of int
        :math:`d_R = \chi_R(e)`.
    values : tuple of tuple of sympy.Expr
        ``values[r][c]`` is :math:`\chi_r` on class ``c`` of ``group.classes``.
    """

    group: FiniteGroup
    names: tuple[str, ...]
    dims: tuple[int, ...]
    values: tuple[tuple[sympy.Expr, ...], ...]

    @property
    def n_irreps(self) -> int:
        return len(self.names)

    @property
    def classes(self) -> tuple[tuple[int, ...], ...]:
        return self.group.classes

    @property
    def class_sizes(self) -> tuple[int, ...]:
        return tuple(len(c) for c in self.group.classes)

    @property
    def class_labels(self) -> tuple[str, ...]:
        """Label of a representative of each class."""
        return tuple(self.group.labels[c[0]] for c in self.group.classes)

    def chi(self, r: int, g: int) -> sympy.Expr:
        """:math:`\\chi_r(g)` for an element index g."""
        return self.values[r][self.group.class_of[g]]

    def index(self, name: str) -> int:
        """Index of the irrep called ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"{self.group.name} has no irrep {name!r}; irreps: {self.names}") from None

    @cached_property
    def indicators(self) -> tuple[sympy.Expr, ...]:
        r"""Frobenius-Schur indicators :math:`|G|^{-1}\sum_g\chi(g^2)` (exact; +1 real, 0 complex, -1 quaternionic)."""
        G = self.group
        if G.kind == "cyclic":  # chi_j(g^2) sums to 0 unless 2j = 0 mod n (closed form, avoids slow trig zero tests)
            return tuple(Integer(1) if (2 * j) % G.n == 0 else Integer(0) for j in range(G.n))
        squares_class = [G.class_of[G.table[g][g]] for g in range(G.order)]
        counts = [0] * len(G.classes)
        for c in squares_class:
            counts[c] += 1
        out = []
        for row in self.values:
            x = sum(Integer(n) * row[c] for c, n in enumerate(counts)) / G.order
            v = int(round(float(sympy.re(sympy.N(x, 30)))))
            if v not in (-1, 0, 1) or not is_zero(x - v):
                raise AssertionError(f"Frobenius-Schur indicator {x} of {G.name} is not -1, 0 or 1")
            out.append(Integer(v))
        return tuple(out)

    def real_irreps(self) -> tuple[bool, ...]:
        return tuple(i == 1 for i in self.indicators)


def _simplify(x: sympy.Expr) -> sympy.Expr:
    return sympy.radsimp(sympy.expand(sympy.simplify(x)))


def is_zero(x: sympy.Expr) -> bool:
    """Exact zero test for algebraic numbers (sympy simplification, then the minimal polynomial)."""
    x = sympy.expand(sympy.sympify(x))
    if x == 0:
        return True
    s = sympy.simplify(x)
    if s == 0:
        return True
    if s.is_number:
        t = sympy.Symbol("t")
        try:
            return sympy.minimal_polynomial(s, t) == t
        except (NotImplementedError, ValueError):  # pragma: no cover - transcendental input
            return bool(abs(complex(s.evalf(60))) < 1e-50)
    return False


def partitions(n: int) -> list[tuple[int, ...]]:
    """Partitions of n in reverse lexicographic order ((n) first)."""
    out: list[tuple[int, ...]] = []

    def rec(rem: int, mx: int, prefix: tuple[int, ...]) -> None:
        if rem == 0:
            out.append(prefix)
            return
        for k in range(min(rem, mx), 0, -1):
            rec(rem - k, k, prefix + (k,))

    rec(n, n, ())
    return out


@functools.lru_cache(maxsize=None)
def murnaghan_nakayama(shape: tuple[int, ...], cycle_type: tuple[int, ...]) -> int:
    r"""Character :math:`\chi^\lambda(\mu)` of S_n by the Murnaghan-Nakayama rule (beta-numbers / abacus)."""
    if not cycle_type:
        return 1 if sum(shape) == 0 else 0
    r, rest = cycle_type[0], cycle_type[1:]
    L = len(shape)
    beta = [shape[i] + L - 1 - i for i in range(L)]
    total = 0
    for b in beta:
        if b - r >= 0 and (b - r) not in beta:
            sign = (-1) ** sum(1 for c in beta if b - r < c < b)
            new = sorted([c for c in beta if c != b] + [b - r], reverse=True)
            new_shape = tuple(x for x in (new[i] - (L - 1 - i) for i in range(L)) if x > 0)
            total += sign * murnaghan_nakayama(new_shape, rest)
    return total


def _partition_name(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, shape)) + ")"


def _cycle_type(af: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted((len(c) for c in Permutation(list(af)).full_cyclic_form), reverse=True))


def _order_irreps(
    names: list[str], rows: list[list[sympy.Expr]]
) -> tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[sympy.Expr, ...], ...]]:
    """Trivial first, then by dimension (stable otherwise)."""
    dims = [int(row[0]) for row in rows]
    trivial = [i for i, row in enumerate(rows) if all(v == 1 for v in row)]
    if len(trivial) != 1:
        raise AssertionError("character table without a unique trivial row")
    order = trivial + sorted((i for i in range(len(rows)) if i != trivial[0]), key=lambda i: dims[i])
    return tuple(names[i] for i in order), tuple(dims[i] for i in order), tuple(tuple(rows[i]) for i in order)


def _symmetric_table(G: FiniteGroup) -> CharacterTable:
    assert G.perms is not None
    types = [_cycle_type(G.perms[c[0]]) for c in G.classes]
    shapes = partitions(G.n)
    rows = [[Integer(murnaghan_nakayama(lam, mu)) for mu in types] for lam in shapes]
    names, dims, values = _order_irreps([_partition_name(s) for s in shapes], rows)
    return CharacterTable(G, names, dims, values)


def _dihedral_parts(G: FiniteGroup) -> list[tuple[str, int, int]]:
    """Irreps of D_n as (name, kind, j): kind 1 = 1-dim (j encodes which), kind 2 = 2-dim rotation j."""
    n = G.n
    out = [("triv", 1, 0), ("refl", 1, 1)]
    if n % 2 == 0:
        out += [("alt", 1, 2), ("alt*refl", 1, 3)]
    out += [(f"rot{j}", 2, j) for j in range(1, (n - 1) // 2 + 1)]
    return out


def _dihedral_matrix(n: int, kind: int, j: int, g: int) -> sympy.Matrix:
    k, f = divmod(g, 2)
    if kind == 1:
        sign = {0: 1, 1: (-1) ** f, 2: (-1) ** k, 3: (-1) ** (k + f)}[j]
        return sympy.Matrix([[sign]])
    a = 2 * sympy.pi * j * k / n
    rot = sympy.Matrix([[sympy.cos(a), -sympy.sin(a)], [sympy.sin(a), sympy.cos(a)]])
    return rot * sympy.diag(1, -1) if f else rot


def _dihedral_table(G: FiniteGroup) -> CharacterTable:
    parts = _dihedral_parts(G)
    rows = [[_dihedral_matrix(G.n, kind, j, c[0]).trace() for c in G.classes] for _, kind, j in parts]
    names, dims, values = _order_irreps([p[0] for p in parts], rows)
    return CharacterTable(G, names, dims, values)


def _cyclic_table(G: FiniteGroup) -> CharacterTable:
    n = G.n
    rows = [
        [sympy.exp(2 * sympy.pi * sympy.I * j * c[0] / n) if j else Integer(1) for c in G.classes] for j in range(n)
    ]
    rows = [[sympy.nsimplify(v) if v.is_real else v for v in row] for row in rows]
    names = ["triv"] + [f"chi{j}" for j in range(1, n)]
    return CharacterTable(G, tuple(names), tuple(1 for _ in range(n)), tuple(tuple(r) for r in rows))


def _product_table(G: FiniteGroup) -> CharacterTable:
    A, B = G.factors
    ta, tb = character_table(A), character_table(B)
    nb = B.order
    rows, names = [], []
    for i in range(ta.n_irreps):
        for j in range(tb.n_irreps):
            rows.append([_simplify(ta.chi(i, c[0] // nb) * tb.chi(j, c[0] % nb)) for c in G.classes])
            names.append(f"{ta.names[i]}⊗{tb.names[j]}")
    names2, dims, values = _order_irreps(names, rows)
    return CharacterTable(G, names2, dims, values)


def class_structure_constants(G: FiniteGroup) -> list[list[list[int]]]:
    r""":math:`c[i][j][k] = \#\{(x,y)\in C_i\times C_j: xy = g_k\}` for a fixed :math:`g_k \in C_k` (spec §5.11)."""
    K = len(G.classes)
    reps = [c[0] for c in G.classes]
    c = [[[0] * K for _ in range(K)] for _ in range(K)]
    inv = G.inverse
    for i, Ci in enumerate(G.classes):
        for x in Ci:
            for k, gk in enumerate(reps):
                y = G.table[inv[x]][gk]
                c[i][G.class_of[y]][k] += 1
    return c


def burnside_character_table(G: "FiniteGroup | str", seed: int = 0, max_tries: int = 20) -> CharacterTable:
    r"""Exact character table by Burnside's algorithm (spec §5.11).

    The vectors :math:`v_R = (|C_j|\chi_R(C_j)/d_R)_j` are the common eigenvectors of the class
    multiplication matrices :math:`M_i[j,k] = c_{ijk}`; we diagonalize a random integer combination
    :math:`\sum_i r_i M_i` exactly (sympy), normalize :math:`v_R(e) = 1` and recover
    :math:`d_R^2 = |G|/\sum_j |v_j|^2/|C_j|`. Works whenever sympy finds the eigenvalues in radicals
    (all groups here except Z_n for large n). Irrep names are ``"<dim>"`` with letters for repeats.
    """
    G = _as_group(G)
    c = class_structure_constants(G)
    K = len(G.classes)
    sizes = [len(cl) for cl in G.classes]
    rng = random.Random(seed)
    for _ in range(max_tries):
        r = [rng.randint(-20, 20) for _ in range(K)]
        M = sympy.Matrix(K, K, lambda j, k: sum(r[i] * c[i][j][k] for i in range(K)))
        vecs = M.eigenvects()
        if len(vecs) == K and all(m == 1 and len(vs) == 1 for _, m, vs in vecs):
            break
    else:  # pragma: no cover - essentially impossible for a random combination
        raise RuntimeError(f"Burnside: no simple-spectrum combination found for {G.name}")
    rows = []
    for _, _, (v,) in vecs:
        v = [_simplify(x / v[0]) for x in v]
        norm = _simplify(sum(x * sympy.conjugate(x) / s for x, s in zip(v, sizes)))
        d2 = _simplify(G.order / norm)
        d = int(round(float(sympy.sqrt(d2).evalf(30))))
        if not is_zero(d2 - d * d):
            raise AssertionError(f"Burnside: non-integer degree^2 {d2}")
        rows.append([_simplify(d * x / s) for x, s in zip(v, sizes)])
    dims = [int(row[0]) for row in rows]
    counts: dict[int, int] = {}
    names = []
    for d in dims:
        counts[d] = counts.get(d, 0) + 1
    seen: dict[int, int] = {}
    order_rows = sorted(range(K), key=lambda i: (dims[i], [-float(sympy.re(x)) for x in rows[i]]))
    rows = [rows[i] for i in order_rows]
    for row in rows:
        d = int(row[0])
        if all(v == 1 for v in row):
            names.append("triv")
            continue
        seen[d] = seen.get(d, 0) + 1
        names.append(str(d) if counts[d] - (1 if d == 1 else 0) <= 1 else f"{d}{'abcdefghijklmnop'[seen[d] - 1]}")
    names2, dims2, values = _order_irreps(names, rows)
    return CharacterTable(G, names2, dims2, values)


@functools.lru_cache(maxsize=None)
def _character_table_cached(G: FiniteGroup) -> CharacterTable:
    if G.kind == "symmetric":
        return _symmetric_table(G)
    if G.kind == "dihedral":
        return _dihedral_table(G)
    if G.kind == "cyclic":
        return _cyclic_table(G)
    if G.kind == "product":
        return _product_table(G)
    return burnside_character_table(G)


def character_table(G: "FiniteGroup | str") -> CharacterTable:
    """Exact character table (cached): Murnaghan-Nakayama for S_n, closed forms for D_n and Z_n,
    tensor products for direct products, Burnside's algorithm otherwise (A_n, Q_8)."""
    return _character_table_cached(_as_group(G))


# --------------------------------------------------------------------------------------------
# Real orthogonal irreps in closed form
# --------------------------------------------------------------------------------------------


def standard_tableaux(shape: Sequence[int]) -> list[tuple[tuple[int, int], ...]]:
    """Standard Young tableaux of a partition; each is the tuple of (row, col) positions of 1..n."""
    shape = tuple(shape)
    n = sum(shape)
    out: list[tuple[tuple[int, int], ...]] = []

    def rec(filled: list[int], pos: list[tuple[int, int]]) -> None:
        if len(pos) == n:
            out.append(tuple(pos))
            return
        for r in range(len(shape)):
            c = filled[r]
            if c < shape[r] and (r == 0 or filled[r - 1] > c):
                filled[r] += 1
                rec(filled, pos + [(r, c)])
                filled[r] -= 1

    rec([0] * len(shape), [])
    return out


def young_orthogonal_generators(shape: Sequence[int]) -> list[sympy.Matrix]:
    r"""Exact matrices of the adjacent transpositions :math:`s_i = (i\ i{+}1)`, i = 1..n-1, in Young's
    orthogonal form for the irrep of S_n labelled by ``shape`` (spec §5.11).

    With axial distance :math:`r = c(i+1) - c(i)` (content c = col - row): diagonal entry 1/r, and
    :math:`\sqrt{1-1/r^2}` coupling T with :math:`s_i T` when i, i+1 share neither row nor column.
    """
    tabs = standard_tableaux(shape)
    index = {t: k for k, t in enumerate(tabs)}
    n, d = sum(shape), len(tabs)
    gens = []
    for i in range(n - 1):
        M = sympy.zeros(d, d)
        for k, t in enumerate(tabs):
            (r1, c1), (r2, c2) = t[i], t[i + 1]
            ax = (c2 - r2) - (c1 - r1)
            M[k, k] = Rational(1, ax)
            if r1 != r2 and c1 != c2:
                swapped = list(t)
                swapped[i], swapped[i + 1] = t[i + 1], t[i]
                M[k, index[tuple(swapped)]] = sqrt(1 - Rational(1, ax * ax))
        gens.append(M)
    return gens


def adjacent_transpositions(G: "FiniteGroup | str") -> list[int]:
    """Element indices of :math:`s_i = (i\\ i{+}1)` in S_n, i = 1..n-1 (generators for Young's form)."""
    G = _as_group(G)
    if G.kind != "symmetric" or G.perms is None:
        raise ValueError(f"adjacent transpositions are defined for S_n only, got {G.name}")
    out = []
    for i in range(G.n - 1):
        af = list(range(G.n))
        af[i], af[i + 1] = af[i + 1], af[i]
        out.append(G.perms.index(tuple(af)))
    return out


def closed_form_irrep(G: "FiniteGroup | str", r: int, g: int) -> sympy.Matrix:
    r"""Exact orthogonal matrix :math:`R_r(g)` for irreps with a closed form: D_n (1-dim characters and
    the rotation irreps :math:`r^k s^f\mapsto \mathrm{rot}(2\pi jk/n)\,\mathrm{diag}(1,-1)^f`), every
    1-dim real character (e.g. Z_2^k, the sign of S_n) and direct products of those (Kronecker products).

    Raises
    ------
    ValueError
        If the irrep has no closed form here (S_n irreps of dim > 1: use Young's form; A_5: numerics).
    """
    G = _as_group(G)
    ct = character_table(G)
    if ct.dims[r] == 1:
        v = ct.chi(r, g)
        if ct.indicators[r] != 1:
            raise ValueError(
                f"irrep {ct.names[r]} of {G.name} is not real (Frobenius-Schur indicator {ct.indicators[r]})"
            )
        return sympy.Matrix([[v]])
    if G.kind == "dihedral":
        name = ct.names[r]
        kind, j = next((k, jj) for nm, k, jj in _dihedral_parts(G) if nm == name)
        return _dihedral_matrix(G.n, kind, j, g)
    if G.kind == "product":
        A, B = G.factors
        ta, tb = character_table(A), character_table(B)
        na, nb = ct.names[r].split("⊗", 1)
        return sympy.kronecker_product(
            closed_form_irrep(A, ta.index(na), g // B.order), closed_form_irrep(B, tb.index(nb), g % B.order)
        )
    raise ValueError(
        f"no closed-form real irrep for {ct.names[r]} of {G.name}; use Young's orthogonal form (S_n) or "
        "numerics.groups.real_irreps (commutant method)"
    )


def isotypic_projector(G: "FiniteGroup | str", r: int) -> sympy.Matrix:
    r"""Exact isotypic projector :math:`P_R = (d_R/|G|)\sum_g\chi_R(g)L(g)`, :math:`(L_g u)(x) = u(g^{-1}x)`,
    i.e. :math:`P_R[x,y] = (d_R/|G|)\,\chi_R(xy^{-1})` (spec §5.1; real characters assumed)."""
    G = _as_group(G)
    ct = character_table(G)
    d, N = ct.dims[r], G.order
    inv = G.inverse
    return sympy.Matrix(N, N, lambda x, y: Rational(d, N) * ct.chi(r, G.table[x][inv[y]]))


# --------------------------------------------------------------------------------------------
# Edelman Thm 7.9
# --------------------------------------------------------------------------------------------


def is_totally_real(G: "FiniteGroup | str") -> bool:
    """True iff every irrep of G is realizable over R (all Frobenius-Schur indicators +1, spec §5.1)."""
    return all(i == 1 for i in character_table(G).indicators)


def check_totally_real(G: "FiniteGroup | str", source: str = SOURCE) -> CharacterTable:
    """Return the character table, or raise ValueError naming the irreps that are not real."""
    G = _as_group(G)
    ct = character_table(G)
    bad = [(ct.names[i], ind) for i, ind in enumerate(ct.indicators) if ind != 1]
    if bad:
        hint = " (for Z_p use theory.modular / Edelman Thm 7.7)" if G.kind == "cyclic" else ""
        raise ValueError(
            f"{source} assumes every irrep of G is real (Frobenius-Schur indicator +1); {G.name} has "
            + ", ".join(f"{n} with indicator {ind}" for n, ind in bad)
            + f"; neither the closed form nor the character LP of spec §5.8 applies{hint}"
        )
    return ct


def _d15(d: int) -> sympy.Expr:
    return Integer(d) ** Rational(3, 2)


def condition_values(G: "FiniteGroup | str") -> tuple[sympy.Expr, ...]:
    r"""Exact :math:`\sum_{R\ne1} d_R^{3/2}\chi_R(C)` for every class C (entry 0, the identity class,
    is :math:`\sum_{R\ne1} d_R^{5/2}`); spec §5.5. Requires real irreps."""
    ct = check_totally_real(G)
    return tuple(
        sympy.expand(sum(_d15(ct.dims[r]) * ct.values[r][c] for r in range(1, ct.n_irreps)))
        for c in range(len(ct.classes))
    )


def _sign(x: sympy.Expr) -> int:
    if is_zero(x):
        return 0
    return 1 if float(sympy.re(sympy.N(x, 50))) > 0 else -1


def condition_holds(G: "FiniteGroup | str") -> bool:
    r"""Edelman Thm 7.9's condition: :math:`\sum_{R\ne1} d_R^{3/2}\chi_R(C) < 0` for every nontrivial class."""
    return all(_sign(v) < 0 for v in condition_values(G)[1:])


def check_condition(G: "FiniteGroup | str") -> CharacterTable:
    """Raise ValueError naming the classes where Thm 7.9's condition fails (after the reality check)."""
    G = _as_group(G)
    ct = check_totally_real(G)
    vals = condition_values(G)
    bad = [(ct.class_labels[c], vals[c]) for c in range(1, len(vals)) if _sign(vals[c]) >= 0]
    if bad:
        raise ValueError(
            f"{SOURCE} condition sum_(R != 1) d_R^1.5 chi_R(C) < 0 fails for {G.name} at class(es) "
            + ", ".join(f"{lab} (value {float(sympy.N(v)):+.6g})" for lab, v in bad)
            + "; the closed form is invalid there. Use the character-level LP of spec §5.8 "
            "(numerics.groups.character_lp)"
        )
    return ct


def s_sum(G: "FiniteGroup | str") -> sympy.Expr:
    r""":math:`S = \sum_{R\ne1} d_R^{5/2}` (spec §5.5; unrelated to the parity support)."""
    ct = check_totally_real(G)
    return sympy.Add(*[Integer(d) ** Rational(5, 2) for d in ct.dims[1:]])


def tau(G: "FiniteGroup | str") -> tuple[sympy.Expr, ...]:
    r"""Class weights of Lemma D.14 (corrected, spec §5.5):
    :math:`\tau_C = -\sum_{R\ne1} d_R^{3/2}\chi_R(C)/S` for nontrivial C; entry 0 (identity class) is 0.

    They satisfy :math:`\sum_{C\ne e}|C|\tau_C = 1` for every totally real G; they are all positive iff
    :func:`condition_holds`. No condition check here (a failing condition gives negative entries).
    """
    vals = condition_values(G)
    S = s_sum(G)
    return (Integer(0),) + tuple(sympy.radsimp(-v / S) for v in vals[1:])


def kappa(G: "FiniteGroup | str", class_weights: Sequence[object] | None = None) -> tuple[sympy.Expr, ...]:
    r""":math:`\kappa_R = 1 - \sum_{C\ne e}\tau_C|C|\chi_R(C)/d_R` (Lemma D.11, spec §5.3) for every irrep
    (entry 0 is the trivial irrep). ``class_weights`` defaults to :func:`tau`."""
    ct = check_totally_real(G)
    t = tau(G) if class_weights is None else tuple(sympy.sympify(x) for x in class_weights)
    if len(t) != len(ct.classes):
        raise ValueError(f"need one class weight per class ({len(ct.classes)}), got {len(t)}")
    sizes = ct.class_sizes
    return tuple(
        sympy.radsimp(
            sympy.expand(1 - sum(t[c] * sizes[c] * ct.values[r][c] for c in range(1, len(sizes))) / ct.dims[r])
        )
        for r in range(ct.n_irreps)
    )


LEMMA_D11_FACTOR = 2
"""Corrected constant of Lemma D.11: E[psi'] = 2 sum_R kappa_R tr(alpha beta gamma^T)/d_R^2 (spec §5.3)."""
LEMMA_D11_FACTOR_AS_PRINTED = 1
"""The thesis's Lemma D.11 omits the factor 2 of the cross term 2u(a)v(b)w (spec §9 item 16)."""


def single_neuron_max(G: "FiniteGroup | str", class_weights: Sequence[object] | None = None) -> sympy.Expr:
    r"""Lemma D.13 (corrected, spec §5.4): for class-constant weights :math:`\tau`,

    .. math:: \max_{\|\omega\|\le1}E[\psi'] = \frac{2}{3\sqrt3|G|^{3/2}}\max_{R\ne1}\frac{\kappa_R}{\sqrt{d_R}}.

    ``class_weights`` defaults to :func:`tau` (then the value is :func:`max_margin` when the condition
    holds). By Lemma 7.5 this bounds :math:`\gamma^*` from above for every admissible (non-negative) tau.
    """
    G = _as_group(G)
    ct = check_totally_real(G)
    k = kappa(G, class_weights)
    ratios = [sympy.radsimp(k[r] / sqrt(ct.dims[r])) for r in range(1, ct.n_irreps)]
    best = max(ratios, key=lambda x: float(sympy.N(x, 50)))
    return sympy.radsimp(LEMMA_D11_FACTOR * best / (3 * sqrt(3) * Integer(G.order) ** Rational(3, 2)))


def single_neuron_max_as_printed(G: "FiniteGroup | str", class_weights: Sequence[object] | None = None) -> sympy.Expr:
    """Erratum record: Lemma D.13 as printed, :math:`(1/(3\\sqrt3|G|^{3/2}))\\max\\kappa_R/\\sqrt{d_R}`,
    half the true single-neuron maximum (spec §9 item 16). Kept so a claim can refute it."""
    return sympy.radsimp(single_neuron_max(G, class_weights) * LEMMA_D11_FACTOR_AS_PRINTED / LEMMA_D11_FACTOR)


def lemma_d15_neuron_norm_as_printed(G: "FiniteGroup | str", r: int) -> sympy.Expr:
    r"""Erratum record (spec §9 item 18): Lemma D.15 uses the coefficient :math:`1/\sqrt{3|G|}`, i.e.
    :math:`u = R_{ij}/\sqrt{3|G|}` and likewise v, w. With :math:`\sum_g R_{ij}(g)^2 = |G|/d_R`
    (Lemma D.10) that neuron has norm :math:`\sqrt{3\cdot|G|/(3|G|d_R)} = d_R^{-1/2}`, not 1; a unit
    neuron needs :func:`optimal_neuron_scale` :math:`=\sqrt{d_R/(3|G|)}`."""
    G = _as_group(G)
    ct = check_totally_real(G)
    if not 1 <= r < ct.n_irreps:
        raise ValueError(f"r must be a nontrivial irrep index in 1..{ct.n_irreps - 1}, got {r}")
    c2 = Rational(1, 3 * G.order)
    return sqrt(3 * c2 * Rational(G.order, ct.dims[r]))


def max_margin(G: "FiniteGroup | str") -> sympy.Expr:
    r"""Edelman Thm 7.9: :math:`\gamma^*(G) = 2/(3\sqrt{3|G|}\,\sum_{R\ne1}d_R^{5/2})` (exact).

    Raises
    ------
    ValueError
        If some irrep of G is not real (Z_p, A_4, Q_8) or the condition
        :math:`\sum_{R\ne1}d_R^{3/2}\chi_R(C) < 0` fails for some nontrivial class (A_5, S_6); the message
        names the hypothesis and points to the character LP of spec §5.8.
    """
    G = _as_group(G)
    check_condition(G)
    return sympy.radsimp(2 / (3 * sqrt(3 * G.order) * s_sum(G)))


def min_width(G: "FiniteGroup | str") -> int:
    r"""Width of the construction and of Thm 7.9's hypothesis, :math:`2\sum_{R\ne1}d_R^3`."""
    ct = check_totally_real(G)
    return 2 * sum(d**3 for d in ct.dims[1:])


def optimal_neuron_scale(G: "FiniteGroup | str", r: int) -> sympy.Expr:
    r"""The factor :math:`t = \sqrt{d_R/(3|G|)}` of the rank-1 optimal unit neuron of spec §5.4:
    :math:`u(g)=t\,x^\top R(g)y,\ v(g)=t\,y^\top R(g)z,\ w(g)=t\,x^\top R(g)z` (x, y, z unit vectors)."""
    G = _as_group(G)
    ct = check_totally_real(G)
    if not 1 <= r < ct.n_irreps:
        raise ValueError(f"optimal neurons live in a nontrivial irrep: r must be in 1..{ct.n_irreps - 1}, got {r}")
    return sqrt(Rational(ct.dims[r], 3 * G.order))


@dataclass(frozen=True)
class GroupConstruction:
    r"""The max-margin network of Lemmas D.15-D.16 (corrected, spec §5.6), as exact scalars.

    For each nontrivial irrep R and (i,j,k) in [d_R]^3 two neurons
    :math:`u = c_R R_{ij},\ v = \pm c_R R_{jk},\ w = \pm c_R R_{ik}`, with
    :math:`c_R = \lambda_R\sqrt{d_R/(3|G|)}` and :math:`\lambda_R^3 = s_R/(2d_R^3)`; the default budgets
    :math:`s_R = d_R^{5/2}/S` give :math:`\lambda_R^3 = d_R^{-1/2}/(2S)`.

    Attributes
    ----------
    group : FiniteGroup
    budgets : tuple of sympy.Expr
        :math:`s_R` per irrep (entry 0, trivial, is 0); they sum to 1 = :math:`\|\theta\|_{2,3}^3`.
    coefficients : tuple of sympy.Expr
        :math:`c_R` per irrep (0 for the trivial irrep and unused irreps).
    width : int
        Total width (>= number of active neurons; the rest is zero padding).
    """

    group: FiniteGroup
    budgets: tuple[sympy.Expr, ...]
    coefficients: tuple[sympy.Expr, ...]
    width: int

    @property
    def n_active(self) -> int:
        ct = character_table(self.group)
        return 2 * sum(ct.dims[r] ** 3 for r in range(1, ct.n_irreps) if not self.budgets[r].is_zero)

    @property
    def norm_power(self) -> sympy.Expr:
        return sympy.radsimp(sympy.Add(*self.budgets))

    def logit(self, a: int, b: int, c: int) -> sympy.Expr:
        r""":math:`f(a,b)[c] = \sum_R 4c_R^3\chi_R(abc^{-1})` (exact)."""
        G = self.group
        ct = character_table(G)
        g = G.table[G.table[a][b]][G.inverse[c]]
        return sympy.radsimp(sum(4 * self.coefficients[r] ** 3 * ct.chi(r, g) for r in range(1, ct.n_irreps)))

    def class_margins(self) -> tuple[sympy.Expr, ...]:
        r"""Margin :math:`f[ab] - f[ab\,g]` for g in each nontrivial class (entry 0 is 0):
        :math:`2(3|G|)^{-3/2}\sum_R s_R d_R^{-1/2}(1-\chi_R(C)/d_R)`."""
        ct = character_table(self.group)
        return (Integer(0),) + tuple(
            sympy.radsimp(
                sum(4 * self.coefficients[r] ** 3 * (ct.dims[r] - ct.values[r][c]) for r in range(1, ct.n_irreps))
            )
            for c in range(1, len(ct.classes))
        )

    @property
    def margin(self) -> sympy.Expr:
        """Dataset margin h = minimum class margin (exact)."""
        return min(self.class_margins()[1:], key=lambda x: float(sympy.N(x, 50)))

    @property
    def normalized_margin(self) -> sympy.Expr:
        return sympy.radsimp(self.margin / self.norm_power)


def construction(
    G: "FiniteGroup | str", width: int | None = None, budgets: Sequence[object] | None = None
) -> GroupConstruction:
    """The construction of spec §5.6 (default budgets: Thm 7.9's, requires the condition), or with
    explicit per-irrep budgets ``s_R`` (non-negative, summing to 1; entry 0 ignored) as in spec §5.8.

    Raises
    ------
    ValueError
        If G is not totally real, if the default budgets are asked for and the condition fails, if the
        budgets are invalid, or if ``width`` is below the number of neurons the construction uses.
    """
    G = _as_group(G)
    ct = check_totally_real(G)
    if budgets is None:
        check_condition(G)
        S = s_sum(G)
        s = (Integer(0),) + tuple(Integer(d) ** Rational(5, 2) / S for d in ct.dims[1:])
    else:
        s = tuple(sympy.sympify(x) for x in budgets)
        if len(s) != ct.n_irreps:
            raise ValueError(f"need one budget per irrep ({ct.n_irreps}, trivial first), got {len(s)}")
        total = sympy.Add(*s[1:])
        inexact = any(isinstance(x, sympy.Float) for x in s)
        if any(float(x) < 0 for x in s) or not (abs(float(total) - 1) <= 1e-12 if inexact else is_zero(total - 1)):
            raise ValueError("budgets s_R must be non-negative and sum to 1 over the nontrivial irreps")
        s = (Integer(0),) + s[1:]
    coeffs = (Integer(0),) + tuple(
        (s[r] / (2 * Integer(ct.dims[r]) ** 3)) ** Rational(1, 3) * sqrt(Rational(ct.dims[r], 3 * G.order))
        for r in range(1, ct.n_irreps)
    )
    n_active = 2 * sum(ct.dims[r] ** 3 for r in range(1, ct.n_irreps) if not s[r].is_zero)
    if width is None:
        width = n_active
    if isinstance(width, bool) or not isinstance(width, int) or width < n_active:
        raise ValueError(
            f"width m = {width!r} is below the construction's size {n_active} = 2 sum_(R used) d_R^3 for {G.name} "
            f"({SOURCE} requires m >= {min_width(G)})"
        )
    return GroupConstruction(group=G, budgets=s, coefficients=coeffs, width=width)


def character_game_matrix(G: "FiniteGroup | str") -> tuple[tuple[sympy.Expr, ...], ...]:
    r"""Payoff :math:`A[R][C] = d_R^{-1/2}(1-\chi_R(C)/d_R)` of the character-level game of spec §5.8
    (rows: nontrivial irreps, columns: nontrivial classes); then
    :math:`\gamma^*(G) = 2(3|G|)^{-3/2}\max_{s\in\Delta}\min_C (s^\top A)_C`."""
    ct = check_totally_real(G)
    return tuple(
        tuple(sympy.radsimp((1 - ct.values[r][c] / ct.dims[r]) / sqrt(ct.dims[r])) for c in range(1, len(ct.classes)))
        for r in range(1, ct.n_irreps)
    )


def game_value_on_support(
    G: "FiniteGroup | str", irreps: Sequence[int], classes: Sequence[int]
) -> tuple[sympy.Expr, tuple[sympy.Expr, ...], tuple[sympy.Expr, ...]]:
    r"""Exact value of the character game of spec §5.8 (Edelman D.9.2, corrected) given its support.

    Solves the two square systems of D.9.2: budgets s on the used irreps with
    :math:`\sum_R s_R A[R][C] = t` on the margin classes and :math:`\sum s = 1`; class weights p on the
    margin classes with :math:`\sum_C p_C A[R][C] = t` on the used irreps and :math:`\sum p = 1`
    (corrected normalization :math:`\sum|C|\tau_C = 1`, i.e. :math:`p_C = |C|\tau_C`). Indices are those of
    the character table (irrep 0 and class 0 are trivial and not allowed).

    Returns
    -------
    (gamma, budgets, class_tau)
        :math:`\gamma^* = 2(3|G|)^{-3/2}t`, :math:`s_R` per irrep (0 off the support), :math:`\tau_C` per class.

    Raises
    ------
    ValueError
        If the support is not square or the systems are singular, or the solution is not an optimal
        pair (negative weights, or a constraint off the support is violated): then the guessed support is wrong.
    """
    G = _as_group(G)
    ct = check_totally_real(G)
    A = character_game_matrix(G)
    irreps, classes = list(irreps), list(classes)
    if len(irreps) != len(classes) or not irreps:
        raise ValueError("D.9.2 needs as many used irreps as margin classes (square systems)")
    if not all(1 <= r < ct.n_irreps for r in irreps) or not all(1 <= c < len(ct.classes) for c in classes):
        raise ValueError("irrep and class indices must be nontrivial (>= 1)")
    t = sympy.Symbol("t")
    s = sympy.symbols(f"s0:{len(irreps)}")
    p = sympy.symbols(f"p0:{len(classes)}")
    eq_s = [sum(s[i] * A[r - 1][c - 1] for i, r in enumerate(irreps)) - t for c in classes] + [sum(s) - 1]
    eq_p = [sum(p[i] * A[r - 1][c - 1] for i, c in enumerate(classes)) - t for r in irreps] + [sum(p) - 1]
    sol_s = sympy.solve(eq_s, list(s) + [t], dict=True)
    sol_p = sympy.solve(eq_p, list(p) + [t], dict=True)
    if len(sol_s) != 1 or len(sol_p) != 1:
        raise ValueError("the D.9.2 systems on this support are singular")
    val = sympy.radsimp(sol_s[0][t])
    budgets = [Integer(0)] * ct.n_irreps
    for i, r in enumerate(irreps):
        budgets[r] = sympy.radsimp(sol_s[0][s[i]])
    taus = [Integer(0)] * len(ct.classes)
    for i, c in enumerate(classes):
        taus[c] = sympy.radsimp(sol_p[0][p[i]] / ct.class_sizes[c])
    tol = 1e-25
    ok = all(float(sympy.N(x, 40)) >= -tol for x in budgets + taus) and is_zero(sol_p[0][t] - val)
    ok = ok and all(
        float(sympy.N(sum(budgets[r] * A[r - 1][c - 1] for r in irreps) - val, 40)) >= -tol
        for c in range(1, len(ct.classes))
    )
    ok = ok and all(
        float(sympy.N(sum(taus[c] * ct.class_sizes[c] * A[r - 1][c - 1] for c in classes) - val, 40)) <= tol
        for r in range(1, ct.n_irreps)
    )
    if not ok:
        raise ValueError("the solution on this support is not an optimal pair of the game (wrong support)")
    gamma = sympy.radsimp(2 * val / (3 * Integer(G.order)) ** Rational(3, 2))
    return gamma, tuple(budgets), tuple(taus)


# --------------------------------------------------------------------------------------------
# Thesis Table D.1 (S_5), spec §5.9 and §9 item 15
# --------------------------------------------------------------------------------------------

TABLE_D1_CLASSES: tuple[tuple[int, ...], ...] = (
    (1, 1, 1, 1, 1),
    (2, 1, 1, 1),
    (2, 2, 1),
    (3, 1, 1),
    (4, 1),
    (5,),
    (3, 2),
)
"""Cycle types of the columns of Table D.1: e, (12), (12)(34), (123), (1234), (12345), (12)(345)."""

TABLE_D1_AS_PRINTED: dict[str, tuple[int, ...]] = {
    "trivial": (1, 1, 1, 1, 1, 1, 1),
    "sign": (1, -1, 1, 1, -1, 1, -1),
    "standard": (4, -2, 0, 1, 0, -1, 1),
    "standard⊗sign": (4, 2, 0, 1, 0, -1, -1),
    "5d_a": (5, 1, 1, -1, -1, 0, 1),
    "5d_b": (5, -1, 1, -1, 1, 0, -1),
    "6d": (6, 0, -2, 0, 0, 1, 0),
}
"""Table D.1 of the thesis **as printed**: the rows 'standard' and 'standard⊗sign' have swapped labels
(the standard representation (4,1) has chi((12)) = +2). The set of rows is correct (spec §9 item 15)."""

_TABLE_D1_PARTITIONS = {
    "trivial": (5,),
    "sign": (1, 1, 1, 1, 1),
    "standard": (4, 1),
    "standard⊗sign": (2, 1, 1, 1),
    "5d_a": (3, 2),
    "5d_b": (2, 2, 1),
    "6d": (3, 1, 1),
}


def table_d1_corrected() -> dict[str, tuple[int, ...]]:
    """Table D.1 recomputed (Murnaghan-Nakayama) with the thesis's row labels, columns in :data:`TABLE_D1_CLASSES`."""
    return {
        name: tuple(murnaghan_nakayama(lam, mu) for mu in TABLE_D1_CLASSES)
        for name, lam in _TABLE_D1_PARTITIONS.items()
    }
