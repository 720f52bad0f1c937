r"""Finite groups for exact computation: Cayley tables, conjugacy classes, character tables, real irreps.

A library of the representation theory behind Edelman thesis Ch. 7, Theorem 7.9 and App. D.8 (the
theorem itself, its margin, class weights and construction, is :mod:`theory.groups`). Standard
representation theory of finite groups (characters, Frobenius-Schur indicators, Murnaghan-Nakayama, Young's
orthogonal form); the conventions and computational recipes are collected in ``docs/groups.md``.

Contents
--------
* Groups as exact Cayley tables with element labels (:class:`FiniteGroup`, :func:`group`):
  S_n (n <= 6), A_n (n <= 6), D_n (order 2n), Z_n, Z_2^k, Q_8 and direct products, built from
  ``sympy.combinatorics`` permutation groups. Product convention: :math:`(a\circ b)(i) = a(b(i))`,
  so Young's orthogonal form satisfies :math:`R(a\circ b) = R(a)R(b)`.
* Conjugacy classes and exact character tables (:class:`CharacterTable`, :func:`character_table`):
  Murnaghan-Nakayama for S_n (integers), closed forms for D_n and Z_n, Burnside's algorithm with exact
  sympy eigenvectors for A_n and Q_8, tensor products for direct products.
  Frobenius-Schur indicators :math:`\iota(\chi) = |G|^{-1}\sum_g \chi(g^2)`; :func:`is_totally_real`.
* Exact real orthogonal irreps where a closed form exists: Young's orthogonal form generators for
  S_n (:func:`young_orthogonal_generators`), the dihedral rotation/reflection matrices and the
  one-dimensional characters (:func:`closed_form_irrep`). All other real irreps (A_5, ...) are built
  numerically (float64) by the commutant method in ``numerics.groups``.
* Isotypic projectors :math:`P_R = (d_R/|G|)\sum_g \chi_R(g) L(g)`, i.e.
  :math:`P_R[x,y] = (d_R/|G|)\chi_R(xy^{-1})` (real characters), exact.

Sizes (checked before any work, ``docs/limits.md``): :data:`MAX_GROUP_ORDER` = 720 (S_6), computed from the
name in log space before a group is built (``S7``, ``D500``, ``Z2^12``, ``Z1000000`` and ``S1000000`` are refused at
once, and so is :func:`group_order` above 720); names of at most 200 characters; Z_n and D_n are built from their
multiplication rules (``Z720`` in well under a second); :data:`MAX_CHARACTER_CLASSES` = 64 conjugacy classes for an
exact character table (and the K^3 class constants); Burnside's algorithm at most 12 classes, no element of prime
order >= 7 and at most :data:`MAX_BURNSIDE_TRIES` = 1000 tries; exact projectors |G|^2 <= 200000 entries, sized from
the name. Products of three or more factors are nested as
``(G1 x G2) x G3``; :func:`product_irrep_factors` maps an irrep of a product to the irreps of its two factors.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import sympy
from sympy import Integer, Rational, sqrt
from sympy.combinatorics import Permutation, PermutationGroup
from sympy.combinatorics.named_groups import AlternatingGroup, SymmetricGroup
from sympy.combinatorics.permutations import _af_rmul
from sympy.core.evalf import PrecisionExhausted
from sympy.polys.polyerrors import BasePolynomialError

from . import _checks
from ._checks import InputError, LimitError, as_number, check_cost, check_positive_int, format_count, log10_factorial
from ._docstrings import fill_doc, sections

__all__ = [
    "MAX_BURNSIDE_TRIES",
    "MAX_CHARACTER_CLASSES",
    "MAX_GROUP_ORDER",
    "MAX_PARTITION_SIZE",
    "MAX_SYMMETRIC_DEGREE",
    "MAX_TABLEAU_SIZE",
    "ZERO_TEST_DIGITS",
    "CharacterTable",
    "FiniteGroup",
    "adjacent_transpositions",
    "alternating_group",
    "as_group",
    "burnside_character_table",
    "cayley_tree",
    "character_table",
    "check_totally_real",
    "class_structure_constants",
    "closed_form_irrep",
    "cyclic_group",
    "dihedral_group",
    "direct_product",
    "elementary_abelian_2_group",
    "group",
    "group_order",
    "is_totally_real",
    "is_zero",
    "isotypic_projector",
    "murnaghan_nakayama",
    "partitions",
    "product_irrep_factors",
    "quaternion_group",
    "standard_tableaux",
    "symmetric_group",
    "young_orthogonal_generators",
]

MAX_SYMMETRIC_DEGREE = 6
"""Largest n of the symmetric and alternating groups S_n, A_n that are built (|S_6| = 720 = MAX_GROUP_ORDER)."""

MAX_GROUP_ORDER = 720
"""Largest |G| (the order of S_6): groups are exact Cayley tables of |G|^2 entries."""

ZERO_TEST_DIGITS = 30
"""Significant digits of a number that sympy's ``evalf(strict=True)`` must certify for :func:`is_zero` to call it
nonzero without its minimal polynomial."""

MAX_CHARACTER_CLASSES = 64
"""Largest number of conjugacy classes of an exact character table (classes^2 sympy entries; D_120 takes ~7 s)."""

MAX_BURNSIDE_CLASSES = 12
"""Largest number of classes for Burnside's algorithm (exact eigenvectors of a classes x classes matrix; 13
classes of D_20 take ~11 s). Elements of prime order >= 7 are refused too: their characters need 7th roots of
unity, which sympy's eigenvectors do not reach in useful time (Z_7 does not finish in a minute)."""

MAX_BURNSIDE_TRIES = 1000
"""Largest ``max_tries`` of :func:`burnside_character_table` (each try is an exact eigen-decomposition)."""

MAX_PARTITION_SIZE = 40
"""Largest n for :func:`partitions` and :func:`murnaghan_nakayama` (p(40) = 37338 partitions)."""

MAX_TABLEAU_SIZE = 10
"""Largest n for :func:`standard_tableaux` and :func:`young_orthogonal_generators` (at most 768 tableaux)."""

_ORDER_HINT = (
    "the exact groups are Cayley tables of |G|^2 entries; for Z_p use theory.modular (tvk derive modular), "
    "whose closed form holds at any p"
)


#: Shared docstring sections (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "group_or_error": sections(returns="FiniteGroup", raises="ValueError"),
    "table_or_error": sections(returns="CharacterTable", raises="ValueError"),
    "shape": sections("shape : sequence of int\n    A partition of ``n <= 10``."),
}


def _check_order(order: int, name: str, param: str = "group") -> None:
    if order > MAX_GROUP_ORDER:
        _refuse_order(name, format_count(order), param)


def _refuse_order(name: str, shown: str, param: str) -> None:
    raise LimitError(
        f"{param} = {name} is too large: |G| = {shown}, above the limit |G| <= {MAX_GROUP_ORDER} "
        f"(the order of S_6); {_ORDER_HINT}",
        param=param,
        value=name,
        limit=MAX_GROUP_ORDER,
        hint=_ORDER_HINT,
    )


_LOG10_MAX_ORDER = math.log10(MAX_GROUP_ORDER)


def _log10_order(letter: str, num: int) -> float:
    """log10 |G| of the group ``letter + str(num)`` (num >= 1), in O(1) whatever the size of num."""
    if letter in ("S", "A"):
        if num > 10**300:  # log10(num!) is beyond the float range: the order is certainly above every limit
            return math.inf
        log10_fact = log10_factorial(num)
        return log10_fact if letter == "S" else max(0.0, log10_fact - math.log10(2))
    if letter == "Q":
        return math.log10(8)
    log10_num = (num.bit_length() - 1) * math.log10(2) if num > 2**1000 else math.log10(num)
    return log10_num + (math.log10(2) if letter == "D" else 0.0)


def _exact_order(letter: str, num: int) -> int:
    """|G| of the group ``letter + str(num)``; only called when the order is small (log10 checked first)."""
    if letter == "S":
        return math.factorial(num)
    if letter == "A":
        return max(1, math.factorial(num) // 2)
    if letter == "D":
        return 2 * num
    return 8 if letter == "Q" else num


def _shown_order(log10_order: float, exact: int | None = None) -> str:
    if exact is not None:
        return format_count(exact)
    return f"~10^{log10_order:.0f}" if math.isfinite(log10_order) else "beyond 10^(10^300)"


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

    Examples
    --------
    >>> from theory.finite_groups import symmetric_group
    >>> G = symmetric_group(3)
    >>> G, G.labels
    (FiniteGroup('S3', order=6), ('e', '(2 3)', '(1 2)', '(1 2 3)', '(1 3 2)', '(1 3)'))
    >>> G.labels[G.mul(1, 2)], G.is_abelian()
    ('(1 3 2)', False)
    >>> G.classes
    ((0,), (1, 2, 5), (3, 4))
    """

    name: str
    labels: tuple[str, ...]
    table: tuple[tuple[int, ...], ...]
    kind: str
    n: int = 0
    factors: tuple[FiniteGroup, ...] = ()
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


def _check_degree(n: object, letter: str, minimum: int) -> int:
    """The degree of S_n or A_n: an integer ``minimum <= n <= 6`` (LimitError above 6, from log10 n!)."""
    n_int = check_positive_int(n, "n", minimum=minimum, hypothesis=f"{letter}_n")
    if n_int > MAX_SYMMETRIC_DEGREE:
        log10_order = _log10_order(letter, n_int)
        exact = _exact_order(letter, n_int) if log10_order <= 15 else None
        raise LimitError(
            f"n = {format_count(n_int)} is too large: {letter}_n is supported for {minimum} <= n <= "
            f"{MAX_SYMMETRIC_DEGREE} (|{letter}_{n_int if exact is not None else 'n'}| = "
            f"{_shown_order(log10_order, exact)}, above the limit |G| <= {MAX_GROUP_ORDER}); {_ORDER_HINT}",
            param="n",
            value=n_int,
            limit=MAX_SYMMETRIC_DEGREE,
            hint=_ORDER_HINT,
        )
    return n_int


@fill_doc(_DOC)
@functools.cache
def symmetric_group(n: int) -> FiniteGroup:
    """The symmetric group S_n (2 <= n <= 6) on {1..n}; labels in 1-based cycle notation.

    Parameters
    ----------
    n : int
        Degree, ``2 <= n <= 6``.

    {{group_or_error}}
        ``n`` not an integer ``>= 2``; a :class:`theory._checks.LimitError` for ``n > 6`` (order above 720).

    Examples
    --------
    >>> from theory.finite_groups import symmetric_group
    >>> symmetric_group(4)
    FiniteGroup('S4', order=24)
    >>> symmetric_group(7)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 7 is too large: S_n is supported for 2 <= n <= 6 (|S_7| = 5,040, above the limit ...
    """
    n = _check_degree(n, "S", 2)
    return _from_permutations(f"S{n}", "symmetric", n, _sorted_elements(SymmetricGroup(n)))


@functools.cache
def alternating_group(n: int) -> FiniteGroup:
    """The alternating group A_n (3 <= n <= 6).

    Parameters
    ----------
    n : int
        Degree, ``3 <= n <= 6``.

    Returns
    -------
    FiniteGroup

    Examples
    --------
    >>> from theory.finite_groups import alternating_group
    >>> alternating_group(5), len(alternating_group(5).classes)
    (FiniteGroup('A5', order=60), 5)
    """
    n = _check_degree(n, "A", 3)
    return _from_permutations(f"A{n}", "alternating", n, _sorted_elements(AlternatingGroup(n)))


@functools.cache
def dihedral_group(n: int) -> FiniteGroup:
    r"""The dihedral group D_n of order 2n (n >= 3), the symmetries of the n-gon.

    Element ``2k + f`` is :math:`r^k\circ s^f` (label ``r^k`` or ``r^k s``) with r the rotation and s the
    reflection generating ``sympy.combinatorics.named_groups.DihedralGroup(n)``.

    Parameters
    ----------
    n : int
        Number of vertices, ``n >= 3``.

    Returns
    -------
    FiniteGroup

    Examples
    --------
    >>> from theory.finite_groups import dihedral_group
    >>> dihedral_group(4).labels
    ('e', 's', 'r^1', 'r^1 s', 'r^2', 'r^2 s', 'r^3', 'r^3 s')
    """
    n = check_positive_int(n, "n", minimum=3, hypothesis="D_n has order 2n")
    _check_order(2 * n, f"D{n}", param="n")
    # r^k s^f is i -> (k + (-1)^f i) mod n shifted by f (n - 1): sympy's DihedralGroup(n) generators r: i -> i + 1,
    # s: i -> n - 1 - i; (r^k s^f)(r^j s^g) = r^(k + (-1)^f j) s^(f + g), so the table needs no permutation products
    perms = tuple(
        tuple((k + i) % n if f == 0 else (k + n - 1 - i) % n for i in range(n)) for k in range(n) for f in range(2)
    )
    table = tuple(
        tuple(2 * ((k + (j if f == 0 else -j)) % n) + (f ^ h) for j in range(n) for h in range(2))
        for k in range(n)
        for f in range(2)
    )
    labels = tuple(
        ("e" if k == 0 else f"r^{k}") if f == 0 else ("s" if k == 0 else f"r^{k} s") for k in range(n) for f in range(2)
    )
    return FiniteGroup(name=f"D{n}", labels=labels, table=table, kind="dihedral", n=n, perms=perms)


@functools.cache
def cyclic_group(n: int) -> FiniteGroup:
    """The cyclic group Z_n (n >= 2); element k is g^k.

    Parameters
    ----------
    n : int
        Order, ``2 <= n <= 720``.

    Returns
    -------
    FiniteGroup

    Examples
    --------
    >>> from theory.finite_groups import cyclic_group
    >>> Z = cyclic_group(5)
    >>> Z.mul(3, 4), Z.is_abelian()
    (2, True)
    """
    n = check_positive_int(n, "n", minimum=2, hypothesis="Z_n")
    _check_order(n, f"Z{n}", param="n")
    # g^k is i -> i + k mod n (sympy's CyclicGroup(n) generator is i -> i + 1), so g^a g^b = g^(a + b mod n)
    perms = tuple(tuple((i + k) % n for i in range(n)) for k in range(n))
    table = tuple(tuple((a + b) % n for b in range(n)) for a in range(n))
    return FiniteGroup(
        name=f"Z{n}", labels=tuple(str(k) for k in range(n)), table=table, kind="cyclic", n=n, perms=perms
    )


@functools.cache
def quaternion_group() -> FiniteGroup:
    """The quaternion group Q_8 (regular permutation representation on 8 points).

    Returns
    -------
    FiniteGroup

    Examples
    --------
    >>> from theory.finite_groups import quaternion_group
    >>> Q = quaternion_group()
    >>> Q.order, Q.is_abelian(), [len(c) for c in Q.classes]
    (8, False, [1, 2, 2, 1, 2])
    """
    i = Permutation([[0, 1, 3, 6], [2, 5, 7, 4]])
    j = Permutation([[0, 2, 3, 7], [1, 4, 6, 5]])
    G = PermutationGroup([i, j])
    if G.order() != 8 or G.is_abelian:
        raise AssertionError("Q8 generators are wrong")
    return _from_permutations("Q8", "quaternion", 8, _sorted_elements(G))


def direct_product(*groups: FiniteGroup) -> FiniteGroup:
    """Direct product G_1 x ... x G_r; element index is mixed-radix (last factor fastest).

    Parameters
    ----------
    *groups : FiniteGroup
        At least two factors.

    Returns
    -------
    FiniteGroup
        ``kind="product"``, with ``factors`` ``(G_1 x ... x G_{r-1}, G_r)``.

    Examples
    --------
    >>> from theory.finite_groups import cyclic_group, direct_product, symmetric_group
    >>> G = direct_product(symmetric_group(3), cyclic_group(2))
    >>> G, G.labels[:3]
    (FiniteGroup('S3xZ2', order=12), ('(e, 0)', '(e, 1)', '((2 3), 0)'))
    """
    if len(groups) < 2:
        raise ValueError("a direct product needs at least two factors")
    if not all(isinstance(g, FiniteGroup) for g in groups):
        raise InputError(f"direct_product needs FiniteGroup factors, got {groups!r:.80}", param="groups")
    order = 1
    for g in groups:
        order *= g.order
        _check_order(order, "x".join(g.name for g in groups), param="groups")
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
    """Z_2^k (k >= 1).

    Parameters
    ----------
    k : int
        Number of factors, ``1 <= k <= 9``.

    Returns
    -------
    FiniteGroup

    Examples
    --------
    >>> from theory.finite_groups import elementary_abelian_2_group
    >>> elementary_abelian_2_group(3)
    FiniteGroup('Z2^3', order=8)
    """
    k = check_positive_int(k, "k", hypothesis="Z2^k")
    if k > 9:  # |G| = 2^k > 720
        _refuse_order(
            f"Z2^{format_count(k)}",
            _shown_order(k * math.log10(2) if k < 10**300 else math.inf, 2**k if k < 50 else None),
            "k",
        )
    return cyclic_group(2) if k == 1 else direct_product(*([cyclic_group(2)] * k))


_FACTOR = re.compile(r"^(S|A|D|Z|Q)(\d{1,400})(?:\^(\d{1,400}))?$")

MAX_GROUP_NAME = 200
"""Longest group name accepted (a product of order <= 720 has at most 9 non-trivial factors)."""


def _name_log10_order(parts: Sequence[str]) -> tuple[float, int | None]:
    """log10 |G| of a product name and, when it is below 10^15, |G| itself; computed from the
    name's parts in O(len(name)) before any group is built (parts the parser refuses count as 1)."""
    total = 0.0
    for part in parts:
        m = _FACTOR.match(part)
        if not m:
            continue  # the parser names the bad part
        letter, num, power = m.group(1), int(m.group(2)), int(m.group(3) or 1)
        if num < 1 or power < 1:
            continue
        total += power * _log10_order(letter, num)
    if total > 15:
        return total, None
    exact = 1
    for part in parts:
        m = _FACTOR.match(part)
        if m and int(m.group(2)) >= 1:
            exact *= _exact_order(m.group(1), int(m.group(2))) ** int(m.group(3) or 1)
    return total, exact


@fill_doc(_DOC)
@functools.cache
def group(name: str) -> FiniteGroup:
    """Parse a group name: ``S3..S6``, ``A3..A6``, ``D3, D4, ...`` (order 2n), ``Z5``, ``Z2^3``, ``Q8``
    and direct products joined by ``x`` (``"S3xZ2"``, ``"D4xZ2^2"``).

    The order is computed from the name before anything is built: a group above :data:`MAX_GROUP_ORDER` is refused
    at once (``"S7"``, ``"D500"``, ``"Z2^12"``, ``"S1000000"``).

    Parameters
    ----------
    name : str
        The group's name (spaces and underscores are ignored; at most 200 characters).

    {{group_or_error}}
        For an unknown or unsupported name, listing the accepted forms; a :class:`theory._checks.LimitError`
        (``param="group"``) for a group of order above 720.

    Examples
    --------
    >>> from theory.finite_groups import group
    >>> group("S3xZ2"), group("Z2^3"), group("D_4")
    (FiniteGroup('S3xZ2', order=12), FiniteGroup('Z2^3', order=8), FiniteGroup('D4', order=8))
    >>> group("D500")
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: group = D500 is too large: |G| = 1,000, above the limit |G| <= 720 (the order of S_6); ...
    """
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"the group name must be a non-empty string, got {name!r:.80}", param="group")
    if len(name) > MAX_GROUP_NAME:
        raise InputError(
            f"the group name must have at most {MAX_GROUP_NAME} characters (a group of order <= {MAX_GROUP_ORDER} has at "
            f"most 9 non-trivial factors), got {len(name):,} characters: {name[:40]!r}...",
            param="group",
        )
    parts = name.replace(" ", "").replace("_", "").split("x")
    log10_order, exact = _name_log10_order(parts)
    if exact is None or exact > MAX_GROUP_ORDER:
        _refuse_order(name.strip(), _shown_order(log10_order, exact), "group")
    factors: list[FiniteGroup] = []
    for part in parts:
        m = _FACTOR.match(part)
        if not m:
            raise InputError(
                f"unknown group name {name!r} (part {part!r}); accepted: S2..S6, A3..A6, Dn (n >= 3, order 2n), "
                "Zn, Zn^k, Q8 and direct products joined by 'x', e.g. 'S3xZ2', 'Z2^3'",
                param="group",
            )
        letter, num, power = m.group(1), int(m.group(2)), int(m.group(3) or 1)
        if power < 1:
            raise InputError(f"exponent must be >= 1 in {part!r}", param="group")
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
                raise InputError(f"only the quaternion group Q8 is supported, got {part!r}", param="group")
            g = quaternion_group()
        factors.extend([g] * power)
    return factors[0] if len(factors) == 1 else direct_product(*factors)


def group_order(letter: str, num: int) -> int:
    """Order of the group named ``letter + str(num)`` (S, A, D, Z or Q), without building it.

    The order is sized in log space first (``S_n`` has ``n!`` elements): an order above :data:`MAX_GROUP_ORDER`
    (the groups this module builds) is refused at once.

    Parameters
    ----------
    letter : str
        ``"S"``, ``"A"``, ``"D"``, ``"Z"`` or ``"Q"``.
    num : int
        The number after the letter, ``>= 1`` (8 for Q).

    Returns
    -------
    int
        The order, at most 720.

    Raises
    ------
    InputError
        An unknown letter, ``num < 1``, or Q with ``num != 8``.
    LimitError
        ``param="num"``: the order is above 720 (S_n and A_n for n >= 7, D_n for n > 360, Z_n for n > 720).

    Examples
    --------
    >>> from theory.finite_groups import group_order
    >>> [group_order(x, n) for x, n in [("S", 4), ("A", 5), ("D", 6), ("Z", 7), ("Q", 8)]]
    [24, 60, 12, 7, 8]
    >>> group_order("S", 10**6)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: num = 1,000,000 is too large: |S_n| = ~10^5565709 at n = 1,000,000, above the limit ...
    """
    if not isinstance(letter, str) or letter not in ("S", "A", "D", "Z", "Q"):
        raise InputError(f"letter must be one of 'S', 'A', 'D', 'Z', 'Q', got {letter!r:.80}", param="letter")
    num = check_positive_int(num, "num")
    if letter == "Q" and num != 8:
        raise InputError(f"only the quaternion group Q8 is supported, got num = {format_count(num)}", param="num")
    log10_order = _log10_order(letter, num)
    exact = _exact_order(letter, num) if log10_order <= _LOG10_MAX_ORDER + 3 else None
    if exact is None or exact > MAX_GROUP_ORDER:
        raise LimitError(
            f"num = {format_count(num)} is too large: |{letter}_n| = {_shown_order(log10_order, exact)} at "
            f"n = {format_count(num)}, above the limit |G| <= {MAX_GROUP_ORDER} (the order of S_6); {_ORDER_HINT}",
            param="num",
            value=num,
            limit=MAX_GROUP_ORDER,
            hint=_ORDER_HINT,
        )
    return exact


@fill_doc(_DOC)
def as_group(G: FiniteGroup | str) -> FiniteGroup:
    """A :class:`FiniteGroup` as it is, or the group a name stands for (:func:`group`).

    Parameters
    ----------
    G : FiniteGroup or str

    {{group_or_error}}
        Neither a FiniteGroup nor a valid group name.

    Examples
    --------
    >>> from theory.finite_groups import as_group, symmetric_group
    >>> as_group("S3") is symmetric_group(3)
    True
    >>> as_group(3)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: expected a FiniteGroup or a group name, got 3
    """
    if isinstance(G, str):
        return group(G)
    if not isinstance(G, FiniteGroup):
        raise InputError(f"expected a FiniteGroup or a group name, got {G!r:.80}", param="G")
    return G


def _order_before_building(G: FiniteGroup | str) -> int:
    """|G| of a FiniteGroup, or of a name without building the group (refused above MAX_GROUP_ORDER)."""
    if isinstance(G, FiniteGroup):
        return G.order
    if isinstance(G, str) and G.strip() and len(G) <= MAX_GROUP_NAME:
        _, exact = _name_log10_order(G.replace(" ", "").replace("_", "").split("x"))
        if exact is not None and exact <= MAX_GROUP_ORDER:
            return exact
    return as_group(G).order  # refuses the name with the parser's message


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

    Examples
    --------
    >>> from theory.finite_groups import character_table
    >>> ct = character_table("S3")
    >>> ct.names, ct.class_labels, ct.values
    (('(3)', '(1,1,1)', '(2,1)'), ('e', '(2 3)', '(1 2 3)'), ((1, 1, 1), (1, -1, 1), (2, 0, -1)))

    Row orthogonality, :math:`\sum_C |C|\chi_R(C)\chi_S(C) = |G|\delta_{RS}` (real characters), and
    :math:`\sum_R d_R^2 = |G|`:

    >>> ct = character_table("S4")
    >>> [[sum(n * a * b for n, a, b in zip(ct.class_sizes, x, y)) for y in ct.values] for x in ct.values]
    [[24, 0, 0, 0, 0], [0, 24, 0, 0, 0], [0, 0, 24, 0, 0], [0, 0, 0, 24, 0], [0, 0, 0, 0, 24]]
    >>> sum(d**2 for d in ct.dims)
    24
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
            # an integer by theory: the check of the table is numeric (an exact zero test of x - v takes minutes
            # for D_17's cos(2 pi/17) values); a wrong table gives a value off -1, 0, 1 by far more than 1e-20
            approx = complex(sympy.N(x, ZERO_TEST_DIGITS))
            v = round(approx.real)
            if v not in (-1, 0, 1) or abs(approx - v) > 1e-20:
                raise AssertionError(f"Frobenius-Schur indicator {x} of {G.name} is not -1, 0 or 1")
            out.append(Integer(v))
        return tuple(out)

    def real_irreps(self) -> tuple[bool, ...]:
        return tuple(i == 1 for i in self.indicators)


def _simplify(x: sympy.Expr) -> sympy.Expr:
    return sympy.radsimp(sympy.expand(sympy.simplify(x)))


def is_zero(x: sympy.Expr) -> bool:
    """Exact zero test for algebraic numbers: a number whose first :data:`ZERO_TEST_DIGITS` significant digits
    sympy's ``evalf(strict=True)`` certifies is not zero; else sympy simplification, then the minimal polynomial
    decides (the slow steps, tens of seconds for the characters of D_11 and hours beyond, which the certified digits
    spare every nonzero value; an expression with floats skips the digits and keeps the tolerance below).

    Parameters
    ----------
    x : sympy.Expr
        A number (ints, Fractions and numeric strings are accepted as by :func:`theory._checks.as_number`).

    Returns
    -------
    bool

    Examples
    --------
    Exact, unlike a float tolerance:

    >>> from sympy import Rational, sqrt
    >>> from theory.finite_groups import is_zero
    >>> is_zero((1 + sqrt(2)) ** 2 - 2 * sqrt(2) - 3), is_zero(Rational(1, 10**30))
    (True, False)
    """
    x = sympy.expand(as_number(x, "x"))
    if x == 0:
        return True
    if x.is_number and not x.has(sympy.Float):  # (floats keep the tolerance below)
        try:  # a nonzero number: evalf certifies its leading digits (strict: it raises rather than guess near zero)
            if complex(x.evalf(ZERO_TEST_DIGITS, strict=True)) != 0:
                return False
        except (PrecisionExhausted, TypeError, ValueError):
            pass  # zero, or too close to it for the digits: simplification and the minimal polynomial decide
    s = sympy.simplify(x)
    if s == 0:
        return True
    if s.is_number:
        t = sympy.Symbol("t")
        try:
            return sympy.minimal_polynomial(s, t) == t
        except (NotImplementedError, ValueError, BasePolynomialError):  # floats, transcendental input
            return bool(abs(complex(s.evalf(60))) < 1e-50)
    return False


def partitions(n: int) -> list[tuple[int, ...]]:
    """Partitions of n in reverse lexicographic order ((n) first).

    Parameters
    ----------
    n : int
        ``0 <= n <= 40``.

    Returns
    -------
    list of tuple of int

    Examples
    --------
    >>> from theory.finite_groups import partitions
    >>> partitions(4)
    [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)]
    >>> len(partitions(10))
    42
    """
    n = check_positive_int(n, "n", minimum=0)
    check_cost(n, MAX_PARTITION_SIZE, param="n", value=n, what="the partitioned integer", hint="")
    out: list[tuple[int, ...]] = []

    def rec(rem: int, mx: int, prefix: tuple[int, ...]) -> None:
        if rem == 0:
            out.append(prefix)
            return
        for k in range(min(rem, mx), 0, -1):
            rec(rem - k, k, (*prefix, k))

    rec(n, n, ())
    return out


@functools.cache
def murnaghan_nakayama(shape: tuple[int, ...], cycle_type: tuple[int, ...]) -> int:
    r"""Character :math:`\chi^\lambda(\mu)` of S_n by the Murnaghan-Nakayama rule (beta-numbers / abacus).

    Parameters
    ----------
    shape : tuple of int
        The partition :math:`\lambda` labelling the irrep.
    cycle_type : tuple of int
        The cycle type :math:`\mu` of the class (positive parts, any order), of the same total.

    Returns
    -------
    int

    Examples
    --------
    At the identity the character is the dimension, the number of standard tableaux:

    >>> from theory.finite_groups import murnaghan_nakayama, standard_tableaux
    >>> murnaghan_nakayama((3, 1, 1), (1, 1, 1, 1, 1)), len(standard_tableaux((3, 1, 1)))
    (6, 6)
    >>> [murnaghan_nakayama((2, 1), mu) for mu in [(1, 1, 1), (2, 1), (3,)]]
    [2, 0, -1]
    """
    _check_partition(shape, "shape", sort=True)
    _check_partition(cycle_type, "cycle_type", sort=False)
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


def _check_partition(parts: object, name: str, *, sort: bool) -> tuple[int, ...]:
    """A tuple of positive ints (non-increasing when ``sort``) of total at most MAX_PARTITION_SIZE."""
    if not isinstance(parts, tuple) or not all(
        isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in parts
    ):
        raise InputError(f"{name} must be a tuple of positive integers, got {parts!r:.80}", param=name)
    if sort and list(parts) != sorted(parts, reverse=True):
        raise InputError(f"{name} must be a partition (non-increasing parts), got {parts!r}", param=name)
    check_cost(sum(parts), MAX_PARTITION_SIZE, param=name, value=sum(parts), what=f"the size of {name}", hint="")
    return parts


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


def class_structure_constants(G: FiniteGroup | str) -> list[list[list[int]]]:
    r""":math:`c[i][j][k] = \#\{(x,y)\in C_i\times C_j: xy = g_k\}` for a fixed :math:`g_k \in C_k`
    (the class multiplication coefficients of Burnside's algorithm).

    Parameters
    ----------
    G : FiniteGroup or str
        A group of at most 64 conjugacy classes (``K^3`` counts).

    Returns
    -------
    list of list of list of int
        ``c[i][j][k]`` over the classes of ``G.classes``.

    Examples
    --------
    In S_3 the product of two transpositions is the identity 3 times and each 3-cycle 3 times:

    >>> from theory.finite_groups import class_structure_constants, group
    >>> class_structure_constants(group("S3"))[1][1]
    [3, 0, 3]
    """
    G = as_group(G)
    _check_classes(G)  # K^3 counts
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


def _class_combination(c: list[list[list[int]]], weights: Sequence[int]) -> list[list[int]]:
    r"""The matrix :math:`\sum_i w_i M_i` with :math:`M_i[j,k] = c[i][j][k]`."""
    K = len(c)
    return [[sum(weights[i] * c[i][j][k] for i in range(K)) for k in range(K)] for j in range(K)]


@fill_doc(_DOC)
def burnside_character_table(G: FiniteGroup | str, seed: int = 0, max_tries: int = 20) -> CharacterTable:
    r"""Exact character table by Burnside's algorithm (recipe in ``docs/groups.md``).

    The vectors :math:`v_R = (|C_j|\chi_R(C_j)/d_R)_j` are the common eigenvectors of the class
    multiplication matrices :math:`M_i[j,k] = c_{ijk}`; we diagonalize a random integer combination
    :math:`\sum_i r_i M_i` exactly (sympy), normalize :math:`v_R(e) = 1` and recover
    :math:`d_R^2 = |G|/\sum_j |v_j|^2/|C_j|`. Works whenever sympy finds the eigenvalues in radicals
    (all groups here except Z_n for large n). Irrep names are ``"<dim>"`` with letters for repeats.

    Parameters
    ----------
    G : FiniteGroup or str
        At most 12 classes and no element of prime order >= 7.
    seed : int
        Seed of the random integer combination.
    max_tries : int
        Combinations tried until one has a simple spectrum, ``1 <= max_tries <= 1000``.

    {{table_or_error}}
        Too many classes, or an element of prime order >= 7 (a :class:`theory._checks.LimitError`).

    Examples
    --------
    It reproduces the Murnaghan-Nakayama table of S_3:

    >>> from theory.finite_groups import burnside_character_table, character_table
    >>> ct = burnside_character_table("S3")
    >>> ct.names, ct.values == character_table("S3").values
    (('triv', '1', '2'), True)
    """
    seed = check_positive_int(seed, "seed", minimum=0)
    max_tries = check_positive_int(max_tries, "max_tries")
    check_cost(
        max_tries,
        MAX_BURNSIDE_TRIES,
        param="max_tries",
        value=max_tries,
        what="the random combinations tried",
        hint="a random combination has a simple spectrum almost surely: the default 20 is plenty",
    )
    G = as_group(G)
    _check_classes(G, MAX_BURNSIDE_CLASSES)
    big = [q for q in _element_order_primes(G) if q >= 7]
    if big:
        raise LimitError(
            f"group = {G.name} has elements of prime order {big[0]}: Burnside's exact eigenvectors would need "
            f"{big[0]}-th roots of unity in radicals (sympy does not finish); use character_table, which has "
            "closed forms for Z_n, D_n, S_n and direct products",
            param="group",
            value=G.name,
            limit=5,
        )
    c = class_structure_constants(G)
    K = len(G.classes)
    sizes = [len(cl) for cl in G.classes]
    rng = random.Random(seed)
    for _ in range(max_tries):
        weights = [rng.randint(-20, 20) for _ in range(K)]
        M = sympy.Matrix(_class_combination(c, weights))
        vecs = M.eigenvects()
        if len(vecs) == K and all(m == 1 and len(vs) == 1 for _, m, vs in vecs):
            break
    else:  # pragma: no cover - essentially impossible for a random combination
        raise RuntimeError(f"Burnside: no simple-spectrum combination found for {G.name}")
    rows = []
    for _, _, (eigvec,) in vecs:
        v = [_simplify(x / eigvec[0]) for x in eigvec]
        norm = _simplify(sum(x * sympy.conjugate(x) / s for x, s in zip(v, sizes)))
        d2 = _simplify(G.order / norm)
        d = round(float(sympy.sqrt(d2).evalf(30)))
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


def _element_order_primes(G: FiniteGroup) -> list[int]:
    """Sorted primes dividing the order of some element of G."""
    primes: set[int] = set()
    for g in range(G.order):
        x, order = g, 1
        while x != 0:
            x, order = G.table[x][g], order + 1
        q = 2
        while order > 1:
            while order % q == 0:
                primes.add(q)
                order //= q
            q += 1
    return sorted(primes)


def _check_classes(G: FiniteGroup, limit: int = MAX_CHARACTER_CLASSES) -> None:
    n = len(G.classes)
    if n > limit:
        hint = (
            "for Z_p use theory.modular (tvk derive modular)"
            if G.kind == "cyclic"
            else "groups with few classes (S_n, A_n, D_n with n <= 120, small products) are supported"
        )
        raise LimitError(
            f"group = {G.name} is too large: it has {n} conjugacy classes, above the limit {limit} of the exact "
            f"character table ({n}^2 exact entries); {hint}",
            param="group",
            value=G.name,
            limit=limit,
        )


@functools.cache
def _character_table_cached(G: FiniteGroup) -> CharacterTable:
    _check_classes(G)
    if G.kind == "symmetric":
        return _symmetric_table(G)
    if G.kind == "dihedral":
        return _dihedral_table(G)
    if G.kind == "cyclic":
        return _cyclic_table(G)
    if G.kind == "product":
        return _product_table(G)
    return burnside_character_table(G)


def character_table(G: FiniteGroup | str) -> CharacterTable:
    """Exact character table (cached): Murnaghan-Nakayama for S_n, closed forms for D_n and Z_n,
    tensor products for direct products, Burnside's algorithm otherwise (A_n, Q_8).

    Parameters
    ----------
    G : FiniteGroup or str
        At most 64 conjugacy classes.

    Returns
    -------
    CharacterTable

    Examples
    --------
    >>> from theory.finite_groups import character_table
    >>> ct = character_table("D4")
    >>> ct.names, ct.dims
    (('triv', 'refl', 'alt', 'alt*refl', 'rot1'), (1, 1, 1, 1, 2))
    >>> character_table("Z4").values[1]
    (1, I, -1, -I)
    """
    _check_name_classes(G)
    return _character_table_cached(as_group(G))


_ALTERNATING_CLASSES = {1: 1, 2: 1, 3: 3, 4: 4, 5: 5, 6: 7}


def _name_classes(name: str) -> tuple[int, str] | None:
    """Number of conjugacy classes of the group a name stands for, from its parts (a product has the product of its
    factors' counts), and its kind; None when the parser would refuse the name."""
    parts = name.replace(" ", "").replace("_", "").split("x")
    count, kinds = 1, set()
    for part in parts:
        m = _FACTOR.match(part)
        if not m:
            return None
        letter, num, power = m.group(1), int(m.group(2)), int(m.group(3) or 1)
        if num < 1 or power < 1 or (letter in "SA" and num > MAX_SYMMETRIC_DEGREE) or power > 64:
            return None
        if letter == "S":
            k = len(partitions(num))
        elif letter == "A":
            k = _ALTERNATING_CLASSES[num]
        elif letter == "D":
            k = (num + 6) // 2 if num % 2 == 0 else (num + 3) // 2
        elif letter == "Z":
            k = num
        else:
            k = 5
        count *= k**power
        kinds.add("cyclic" if letter == "Z" and power == 1 else "other")
    return count, ("cyclic" if len(parts) == 1 and kinds == {"cyclic"} else "other")


def _check_name_classes(G: FiniteGroup | str) -> None:
    """Refuse a group name of more than MAX_CHARACTER_CLASSES classes before the group is built (the order is checked
    first, so the name stands for a group of at most 720 elements)."""
    if not isinstance(G, str) or len(G) > MAX_GROUP_NAME:
        return
    _order_before_building(G)
    counted = _name_classes(G)
    if counted is None or counted[0] <= MAX_CHARACTER_CLASSES:
        return
    n, kind = counted
    hint = (
        "for Z_p use theory.modular (tvk derive modular)"
        if kind == "cyclic"
        else "groups with few classes (S_n, A_n, D_n with n <= 120, small products) are supported"
    )
    raise LimitError(
        f"group = {G.strip()} is too large: it has {n} conjugacy classes, above the limit {MAX_CHARACTER_CLASSES} of "
        f"the exact character table ({n}^2 exact entries); {hint}",
        param="group",
        value=G.strip(),
        limit=MAX_CHARACTER_CLASSES,
        hint=hint,
    )


# --------------------------------------------------------------------------------------------
# Real orthogonal irreps in closed form
# --------------------------------------------------------------------------------------------


@fill_doc(_DOC)
def standard_tableaux(shape: Sequence[int]) -> list[tuple[tuple[int, int], ...]]:
    """Standard Young tableaux of a partition; each is the tuple of (row, col) positions of 1..n.

    {{shape}}

    Returns
    -------
    list of tuple of (int, int)

    Examples
    --------
    >>> from theory.finite_groups import standard_tableaux
    >>> standard_tableaux((2, 1))
    [((0, 0), (0, 1), (1, 0)), ((0, 0), (1, 0), (0, 1))]
    >>> len(standard_tableaux((3, 2)))
    5
    """
    shape = _check_partition(tuple(shape) if isinstance(shape, (list, tuple)) else shape, "shape", sort=True)
    n = sum(shape)
    check_cost(
        n, MAX_TABLEAU_SIZE, param="shape", value=n, what="the size of the shape", hint="S_n is supported for n <= 6"
    )
    out: list[tuple[tuple[int, int], ...]] = []

    def rec(filled: list[int], pos: list[tuple[int, int]]) -> None:
        if len(pos) == n:
            out.append(tuple(pos))
            return
        for r in range(len(shape)):
            c = filled[r]
            if c < shape[r] and (r == 0 or filled[r - 1] > c):
                filled[r] += 1
                rec(filled, [*pos, (r, c)])
                filled[r] -= 1

    rec([0] * len(shape), [])
    return out


@fill_doc(_DOC)
def young_orthogonal_generators(shape: Sequence[int]) -> list[sympy.Matrix]:
    r"""Exact matrices of the adjacent transpositions :math:`s_i = (i\ i{+}1)`, i = 1..n-1, in Young's
    orthogonal form for the irrep of S_n labelled by ``shape`` (recipe in ``docs/groups.md``).

    With axial distance :math:`r = c(i+1) - c(i)` (content c = col - row): diagonal entry 1/r, and
    :math:`\sqrt{1-1/r^2}` coupling T with :math:`s_i T` when i, i+1 share neither row nor column.

    {{shape}}

    Returns
    -------
    list of sympy.Matrix
        n - 1 orthogonal matrices of side the number of standard tableaux.

    Examples
    --------
    The Coxeter relations of S_3, :math:`s_i^2 = 1` and :math:`(s_1 s_2)^3 = 1`:

    >>> from sympy import eye, simplify
    >>> from theory.finite_groups import young_orthogonal_generators
    >>> s1, s2 = young_orthogonal_generators((2, 1))
    >>> s2
    Matrix([
    [     -1/2, sqrt(3)/2],
    [sqrt(3)/2,       1/2]])
    >>> s1**2 == s2**2 == eye(2), simplify((s1 * s2) ** 3) == eye(2)
    (True, True)
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


def adjacent_transpositions(G: FiniteGroup | str) -> list[int]:
    """Element indices of :math:`s_i = (i\\ i{+}1)` in S_n, i = 1..n-1 (generators for Young's form).

    Parameters
    ----------
    G : FiniteGroup or str
        A symmetric group.

    Returns
    -------
    list of int

    Raises
    ------
    ValueError
        G is not a symmetric group.

    Examples
    --------
    >>> from theory.finite_groups import adjacent_transpositions, group
    >>> G = group("S3")
    >>> [G.labels[g] for g in adjacent_transpositions(G)]
    ['(1 2)', '(2 3)']
    """
    G = as_group(G)
    if G.kind != "symmetric" or G.perms is None:
        raise ValueError(f"adjacent transpositions are defined for S_n only, got {G.name}")
    out = []
    for i in range(G.n - 1):
        af = list(range(G.n))
        af[i], af[i + 1] = af[i + 1], af[i]
        out.append(G.perms.index(tuple(af)))
    return out


def cayley_tree(G: FiniteGroup | str, generators: Sequence[int]) -> list[tuple[int, int, int]]:
    """The breadth-first spanning tree of the Cayley graph of ``G`` on ``generators``, from the identity.

    Each edge ``(g, i, h)`` has ``h = g s_i`` (``G.table[g][generators[i]]``); every element other than the identity
    that the generators reach is the ``h`` of exactly one edge, in the order a breadth-first search from the
    identity reaches it (the generators tried in their order). A representation given on the generators extends to
    every element along these edges, ``R(h) = R(g) R(s_i)`` (``R(e) = I`` first); Young's orthogonal form on the
    adjacent transpositions (:func:`adjacent_transpositions`, :func:`young_orthogonal_generators`) extends this way
    to all of S_n.

    Parameters
    ----------
    G : FiniteGroup or str
        The group.
    generators : sequence of int
        Element indices ``s_1, s_2, ...``.

    Returns
    -------
    list of tuple of int
        The edges ``(g, i, h)`` in breadth-first order.

    Examples
    --------
    >>> from theory.finite_groups import adjacent_transpositions, cayley_tree, group
    >>> G = group("S3")
    >>> [(G.labels[g], i, G.labels[h]) for g, i, h in cayley_tree(G, adjacent_transpositions(G))]
    [('e', 0, '(1 2)'), ('e', 1, '(2 3)'), ('(1 2)', 1, '(1 2 3)'), ('(2 3)', 0, '(1 3 2)'), ('(1 2 3)', 0, '(1 3)')]
    """
    G = as_group(G)
    s = [_check_index(g, G.order, "generators", "element") for g in generators]
    reached = [False] * G.order
    reached[0] = True
    edges = []
    frontier = [0]
    while frontier:
        nxt = []
        for g in frontier:
            for i, si in enumerate(s):
                h = G.table[g][si]
                if not reached[h]:
                    reached[h] = True
                    edges.append((g, i, h))
                    nxt.append(h)
        frontier = nxt
    return edges


def _check_index(i: object, n: int, name: str, what: str) -> int:
    i = check_positive_int(i, name, minimum=0)
    if i >= n:
        raise InputError(f"{name} must be an {what} index in 0..{n - 1}, got {name} = {i}", param=name)
    return i


def product_irrep_factors(G: FiniteGroup | str, r: int) -> tuple[int, int]:
    """Indices ``(i, j)`` in the factors' character tables of the irrep ``r = R_i (x) R_j`` of a direct product.

    ``G.factors`` is ``(A, B)`` with A itself a product for three or more factors, so the irrep names of A
    contain ``⊗``; the name is split at the position where both sides are irrep names of A and B.

    Parameters
    ----------
    G : FiniteGroup or str
        A direct product.
    r : int
        Irrep index in G's character table.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> from theory.finite_groups import character_table, product_irrep_factors
    >>> character_table("S3xZ2").names[3], product_irrep_factors("S3xZ2", 3)
    ('(1,1,1)⊗chi1', (1, 1))
    """
    G = as_group(G)
    if G.kind != "product":
        raise InputError(f"{G.name} is not a direct product", param="G")
    ct = character_table(G)
    r = _check_index(r, ct.n_irreps, "r", "irrep")
    A, B = G.factors
    ta, tb = character_table(A), character_table(B)
    name = ct.names[r]
    for pos in (i for i, ch in enumerate(name) if ch == "⊗"):
        left, right = name[:pos], name[pos + 1 :]
        if left in ta.names and right in tb.names:
            return ta.names.index(left), tb.names.index(right)
    raise AssertionError(f"irrep {name!r} of {G.name} is not a product of irreps of {A.name} and {B.name}")


def closed_form_irrep(G: FiniteGroup | str, r: int, g: int) -> sympy.Matrix:
    r"""Exact orthogonal matrix :math:`R_r(g)` for irreps with a closed form: D_n (1-dim characters and
    the rotation irreps :math:`r^k s^f\mapsto \mathrm{rot}(2\pi jk/n)\,\mathrm{diag}(1,-1)^f`), every
    1-dim real character (e.g. Z_2^k, the sign of S_n) and direct products of those (Kronecker products).

    Parameters
    ----------
    G : FiniteGroup or str
    r : int
        Irrep index in G's character table.
    g : int
        Element index.

    Returns
    -------
    sympy.Matrix

    Raises
    ------
    ValueError
        If the irrep has no closed form here (S_n irreps of dim > 1: use Young's form; A_5: numerics).

    Examples
    --------
    The rotation irrep of D_4 at the rotation ``r^1``, and the homomorphism property :math:`R(g)R(h) = R(gh)`:

    >>> from theory.finite_groups import closed_form_irrep, group
    >>> D4 = group("D4")
    >>> D4.labels[2], closed_form_irrep(D4, 4, 2)
    ('r^1', Matrix([
    [0, -1],
    [1,  0]]))
    >>> R = [closed_form_irrep(D4, 4, g) for g in range(8)]
    >>> all(R[g] * R[h] == R[D4.mul(g, h)] for g in range(8) for h in range(8))
    True
    """
    G = as_group(G)
    ct = character_table(G)
    r = _check_index(r, ct.n_irreps, "r", "irrep")
    g = _check_index(g, G.order, "g", "element")
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
        ia, ib = product_irrep_factors(G, r)
        return sympy.kronecker_product(closed_form_irrep(A, ia, g // B.order), closed_form_irrep(B, ib, g % B.order))
    raise ValueError(
        f"no closed-form real irrep for {ct.names[r]} of {G.name}; use Young's orthogonal form (S_n) or "
        "numerics.groups.real_irreps (commutant method)"
    )


def isotypic_projector(G: FiniteGroup | str, r: int) -> sympy.Matrix:
    r"""Exact isotypic projector :math:`P_R = (d_R/|G|)\sum_g\chi_R(g)L(g)`, :math:`(L_g u)(x) = u(g^{-1}x)`,
    i.e. :math:`P_R[x,y] = (d_R/|G|)\,\chi_R(xy^{-1})` (real characters assumed).

    Parameters
    ----------
    G : FiniteGroup or str
        At most ``|G|^2 = 200000`` entries.
    r : int
        Irrep index in G's character table.

    Returns
    -------
    sympy.Matrix
        ``|G| x |G|``.

    Examples
    --------
    A projector of rank :math:`d_R^2` (the multiplicity of R in the regular representation is :math:`d_R`):

    >>> from theory.finite_groups import isotypic_projector
    >>> P = isotypic_projector("S3", 2)
    >>> P * P == P, P.rank()
    (True, 4)
    """
    order = _order_before_building(G)
    check_cost(
        order**2,
        _checks.MAX_EXACT_ENTRIES,
        param="G",
        value=G.name if isinstance(G, FiniteGroup) else G.strip(),
        what="the number of entries of the exact projector, |G|^2,",
        hint="numerics.groups.isotypic_projectors gives it in float64",
    )
    G = as_group(G)
    ct = character_table(G)
    r = _check_index(r, ct.n_irreps, "r", "irrep")
    d, N = ct.dims[r], G.order
    inv = G.inverse
    return sympy.Matrix(N, N, lambda x, y: Rational(d, N) * ct.chi(r, G.table[x][inv[y]]))


# --------------------------------------------------------------------------------------------
# Totally real groups
# --------------------------------------------------------------------------------------------


def is_totally_real(G: FiniteGroup | str) -> bool:
    """True iff every irrep of G is realizable over R (all Frobenius-Schur indicators +1).

    Parameters
    ----------
    G : FiniteGroup or str

    Returns
    -------
    bool

    Examples
    --------
    >>> from theory.finite_groups import is_totally_real
    >>> [is_totally_real(G) for G in ("S4", "D4", "Z2^3", "Z3", "Q8")]
    [True, True, True, False, False]
    """
    return all(i == 1 for i in character_table(G).indicators)


@fill_doc(_DOC)
def check_totally_real(G: FiniteGroup | str, source: str = "this computation") -> CharacterTable:
    """Return the character table, or raise ValueError naming the irreps that are not real.

    ``source`` names what needs real irreps (it starts the message).

    Parameters
    ----------
    G : FiniteGroup or str
    source : str
        What needs real irreps.

    {{table_or_error}}
        Some Frobenius-Schur indicator is not +1.

    Examples
    --------
    Q_8's 2-dimensional irrep is quaternionic:

    >>> from theory.finite_groups import check_totally_real
    >>> check_totally_real("S3").names
    ('(3)', '(1,1,1)', '(2,1)')
    >>> check_totally_real("Q8", source="Thm 7.9")
    Traceback (most recent call last):
    ...
    ValueError: Thm 7.9 assumes every irrep of G is real (Frobenius-Schur indicator +1); Q8 has 2 with indicator -1; ...
    """
    _check_name_classes(G)
    G = as_group(G)
    ct = character_table(G)
    bad = [(ct.names[i], ind) for i, ind in enumerate(ct.indicators) if ind != 1]
    if bad:
        hint = " (for Z_p use theory.modular, Edelman Thm 7.7)" if G.kind == "cyclic" else ""
        raise ValueError(
            f"{source} assumes every irrep of G is real (Frobenius-Schur indicator +1); {G.name} has "
            + ", ".join(f"{n} with indicator {ind}" for n, ind in bad)
            + f"; it does not apply{hint}"
        )
    return ct
