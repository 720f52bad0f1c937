r"""Sparse parity with a two-layer multi-head attention model (exact).

Source: Shi thesis Ch. 5, Sec. 5.5 (Theorems 5.5.1 and 5.5.2) and App. D.3; the setting, the population model,
the corrected statements and the errata are explained in ``docs/attention_parity.md``.

Setting. Hidden features ``phi in {+-1}^d``, ``d = 2^nu2``; a task is an ordered pair (i, j), i != j, with label
``y = phi_i phi_j``; the pair (phi_i, phi_j) has the skewed law ``P(1,1) = 1/4 + gamma, P(1,-1) = P(-1,1) = 1/4,
P(-1,-1) = 1/4 - gamma``. The model is ``g = sum_h a_h ReLU((y^T X / N) W^(h) x_q)`` with ``|a_h| <= 1``.

Population model. With N -> infinity head h receives ``z^T V^(h) phi_q`` with ``z = 2 gamma (e_i + e_j)`` and
``V^(h) = G^T W^(h) G``. For diagonal V this is ``2 gamma (V_ii phi_i + V_jj phi_j) = (C_i phi_i + C_j phi_j) / 2``
with the code ``C = 4 gamma V``, so every margin is independent of gamma. Everything below is exact
(``fractions.Fraction``).

* :func:`parity_construction` (g_2*) and :func:`parity_g1` (g_1*): the constructions of Thm 5.5.1;
* :func:`parity_margins`, :func:`parity_hinge_loss`: margins ``y g`` and the population hinge loss by brute force
  over every task and sign pattern;
* :func:`hamming_margins`, :func:`hamming_hinge_loss`: the closed form of those margins for the constructions
  (``y g`` is the Hamming distance of ``i - 1`` and ``j - 1`` on the bits the model encodes);
* :func:`parity_pt_bound`, :func:`parity_norm_formula`: the p_T condition of Thm 5.5.1 and the norm of g_2*;
* :func:`projection_ratio`: the noise ratio of Thm 5.5.2 (with the pseudo-inverse projector);
* :data:`COUNTEREXAMPLE_M5`, :data:`COUNTEREXAMPLE_M8`: zero-loss models that refute the optimality claims of
  Thm 5.5.1 (``docs/attention_parity.md``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy import Integer, Matrix, Rational

from theory._checks import MAX_DIGITS, MAX_EXACT_ENTRIES, InputError, as_fraction, check_cost, format_count
from theory._docstrings import fill_doc, sections
from theory.lsa import check_count

__all__ = [
    "COUNTEREXAMPLE_M5",
    "COUNTEREXAMPLE_M8",
    "PARITY_PATTERNS",
    "ParityHeads",
    "check_dim",
    "check_gamma",
    "hamming_hinge_loss",
    "hamming_margins",
    "parity_construction",
    "parity_g1",
    "parity_heads",
    "parity_hinge_loss",
    "parity_margins",
    "parity_norm_formula",
    "parity_pt_bound",
    "parity_task_sets",
    "pattern_weights",
    "projection_ratio",
]

PARITY_PATTERNS: tuple[tuple[int, int], ...] = ((1, 1), (1, -1), (-1, 1), (-1, -1))

MAX_MARGIN_TERMS = 100_000
"""Largest tasks x 4 patterns x m heads of :func:`parity_margins` (exact Fraction arithmetic, ~2 s; every ordered
pair at d = 32 with the 12 heads of g_2* is 47616)."""

MAX_RANK_COST = 250_000
"""Largest rows^2 x cols of the exact ranks of :func:`projection_ratio`: (2(nu2 + 1))^2 2^nu2, nu2 <= 9 (~2 s)."""

#: Five heads with zero population hinge loss on S_1 u S_2 for d = 8 (Thm 5.5.1 says 8 are needed;
#: ``docs/attention_parity.md``, erratum (b)). Codes ``C = 4 gamma diag(V)``, read exactly from the strings.
COUNTEREXAMPLE_M5: dict[str, Any] = {
    "a": (1, -1, -1, 1, -1),
    "codes": (
        ("-3.3", "-3.3", "-3.6", "-3.6", "-3.3", "-3.4", "-3.6", "-3.3"),
        ("-0.7", "0.8", "1.9", "0.9", "-1.5", "-1.6", "3.0", "-2.9"),
        ("0.7", "-1.8", "-0.5", "1.7", "-0.7", "2.9", "-2.7", "1.5"),
        ("3.3", "3.5", "3.6", "3.6", "3.5", "3.4", "3.6", "3.4"),
        ("-0.2", "1.4", "-1.5", "-2.7", "2.6", "-1.4", "-0.4", "1.4"),
    ),
}
#: An eight-head zero-loss solution with sum C^2 = 66.66 < 192, the code norm of the thesis' g_2*
#: (``docs/attention_parity.md``, erratum (c)).
COUNTEREXAMPLE_M8: dict[str, Any] = {
    "a": (1, 1, -1, 1, -1, -1, -1, -1),
    "codes": (
        ("-1.91", "-1.92", "-1.92", "-1.91", "-1.91", "-1.91", "-1.90", "-1.92"),
        ("1.09", "1.09", "1.09", "1.09", "1.09", "1.08", "1.09", "1.09"),
        ("-0.29", "0.37", "0.91", "1.09", "-0.38", "-0.86", "0.51", "-0.81"),
        ("1.09", "1.08", "1.09", "1.09", "1.09", "1.09", "1.09", "1.09"),
        ("0.69", "-0.74", "0.24", "-0.84", "-0.49", "1.09", "0.59", "-0.14"),
        ("0.95", "-0.79", "-0.37", "0.56", "0.20", "-0.51", "-0.19", "0.37"),
        ("-0.77", "0.95", "-1.05", "-0.13", "-0.32", "0.13", "0.47", "1.24"),
        ("-0.32", "0.43", "0.52", "-0.41", "1.26", "0.40", "-1.11", "-0.40"),
    ),
}


#: Shared docstring sections (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "nu1_nu2": sections("nu1 : int\n    ``k = 2^nu1``, ``1 <= nu1 <= nu2``.", "nu2 : int\n    ``d = 2^nu2``."),
    "bits_tasks": sections(
        "bits : int\n    The number of encoded bits, ``>= 1``.",
        "tasks : sequence of (int, int)\n    The tasks (0-based).",
    ),
}


# ----------------------------------------------------------------------------------- validation


def check_gamma(gamma: Any) -> Fraction:
    """``gamma`` as an exact Fraction in (0, 1/4) (a float is read through its decimal string).

    Parameters
    ----------
    gamma : int, float, Fraction or str
        The skew of the pattern law.

    Returns
    -------
    Fraction
        ``gamma``, exactly.

    Raises
    ------
    ValueError
        ``gamma`` outside (0, 1/4): the pattern law ``P(1,1) = 1/4 + gamma, P(-1,-1) = 1/4 - gamma`` of Sec. 5.5
        needs it.

    Examples
    --------
    >>> from theory.attention_parity import check_gamma
    >>> print(check_gamma(0.1), check_gamma("1/8"))
    1/10 1/8
    >>> check_gamma(0.25)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: gamma must lie in (0, 1/4) (Shi Sec. 5.5: P(1,1) = 1/4 + gamma), got 0.25
    """
    g = as_fraction(gamma, "gamma", floats="decimal")  # a float is read through its decimal string
    if not 0 < g < Fraction(1, 4):
        raise InputError(
            f"gamma must lie in (0, 1/4) (Shi Sec. 5.5: P(1,1) = 1/4 + gamma), got {gamma!r:.80}", param="gamma"
        )
    return g


def _check_nu(nu: Any, name: str) -> int:
    if isinstance(nu, bool) or not isinstance(nu, numbers.Integral) or int(nu) < 1:
        raise InputError(f"{name} must be an integer >= 1 (d = 2^nu2, k = 2^nu1), got {nu!r:.80}", param=name)
    return int(nu)


def _digits(q: Fraction) -> float:
    """Decimal digits of the larger of the numerator and denominator of q."""
    return max(q.numerator.bit_length(), q.denominator.bit_length()) * math.log10(2)


def _check_tasks(tasks: Any, name: str = "tasks", d: int | None = None) -> list[tuple[int, int]]:
    """Ordered pairs (i, j) of distinct 0-based feature indices (below d when given)."""
    if isinstance(tasks, (str, bytes)) or not hasattr(tasks, "__iter__"):
        raise InputError(f"{name} must be a sequence of pairs (i, j), got {tasks!r:.80}", param=name)
    out = []
    for t in tasks:
        if isinstance(t, (str, bytes)) or not hasattr(t, "__len__") or len(t) != 2:
            raise InputError(f"{name} must hold pairs (i, j), got {t!r:.80}", param=name)
        i, j = t
        if any(isinstance(x, bool) or not isinstance(x, numbers.Integral) for x in (i, j)):
            raise InputError(f"{name} must hold pairs of integer indices, got {t!r:.80}", param=name)
        i, j = int(i), int(j)
        if i < 0 or j < 0 or i == j or (d is not None and max(i, j) >= d):
            where = f"0..{d - 1}" if d is not None else "0, 1, ..."
            raise InputError(
                f"{name} must hold ordered pairs of distinct feature indices in {where}, got {t!r:.80}", param=name
            )
        out.append((i, j))
    return out


def check_dim(d: Any) -> int:
    """The feature dimension d as an int >= 2 (a task needs two distinct features); ValueError otherwise.

    Parameters
    ----------
    d : int
        The feature dimension.

    Returns
    -------
    int
        ``d``.

    Examples
    --------
    >>> from theory.attention_parity import check_dim
    >>> check_dim(8)
    8
    >>> check_dim(1)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: d must be an integer >= 2, got 1
    """
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 2:
        raise InputError(f"d must be an integer >= 2, got {d!r:.80}", param="d")
    return int(d)


def pattern_weights(gamma: Any) -> dict[tuple[int, int], Fraction]:
    """The law of (phi_i, phi_j) (Shi Sec. 5.5): ``P(1,1) = 1/4 + gamma``, ``P(1,-1) = P(-1,1) = 1/4``,
    ``P(-1,-1) = 1/4 - gamma``.

    Parameters
    ----------
    gamma : int, float, Fraction or str
        The skew, in (0, 1/4).

    Returns
    -------
    dict of tuple to Fraction
        ``{(phi_i, phi_j): probability}``.

    Examples
    --------
    >>> from theory.attention_parity import pattern_weights
    >>> print(*(f"P{k}={p}" for k, p in pattern_weights("1/8").items()))
    P(1, 1)=3/8 P(1, -1)=1/4 P(-1, 1)=1/4 P(-1, -1)=1/8
    """
    g = check_gamma(gamma)
    q = Fraction(1, 4)
    return {(1, 1): q + g, (1, -1): q, (-1, 1): q, (-1, -1): q - g}


# ----------------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class ParityHeads:
    """A multi-head parity model with diagonal heads, stored by codes ``C_h = 4 gamma diag(V^(h))`` (exact).

    ``a[h]`` in [-1, 1] is the output weight of head h, ``codes[h][t]`` the code of feature t (0-based).

    Attributes
    ----------
    a : tuple of Fraction
        The output weights, one per head.
    codes : tuple of tuple of Fraction
        One row of d codes per head.

    Examples
    --------
    >>> from theory.attention_parity import parity_construction
    >>> g = parity_construction(1)  # d = 2, m = 4
    >>> g.m, g.d, str(g.code_norm())
    (4, 2, '8')
    >>> print(g.output(0, 1, 1, 1), g.output(0, 1, 1, -1))  # y g = 1 on both patterns
    1 -1
    """

    a: tuple[Fraction, ...]
    codes: tuple[tuple[Fraction, ...], ...]

    def __post_init__(self) -> None:
        exact = (int, Fraction)
        if not isinstance(self.a, tuple) or any(isinstance(x, bool) or not isinstance(x, exact) for x in self.a):
            raise InputError(f"a must be a tuple of Fractions, got {self.a!r:.80}", param="a")
        if (
            not isinstance(self.codes, tuple)
            or not self.codes
            or any(not isinstance(row, tuple) for row in self.codes)
            or any(isinstance(x, bool) or not isinstance(x, exact) for row in self.codes for x in row)
        ):
            raise InputError(
                f"codes must be a non-empty tuple of tuples of Fractions, got {self.codes!r:.80}", param="codes"
            )
        if len(self.a) != len(self.codes) or len({len(row) for row in self.codes}) != 1 or not self.codes[0]:
            raise InputError(
                f"need one code row per head and non-empty rows of equal length; got {len(self.a)} weights, "
                f"row lengths {[len(r) for r in self.codes][:20]}",
                param="codes",
            )
        if any(abs(x) > 1 for x in self.a):
            raise InputError(
                f"output weights must lie in [-1, 1] (Shi Sec. 5.5), got {list(map(str, self.a))}", param="a"
            )

    @property
    def m(self) -> int:
        """The number of heads (the model's scale)."""
        return len(self.a)

    @property
    def d(self) -> int:
        """The feature dimension."""
        return len(self.codes[0])

    def output(self, i: int, j: int, phi_i: int, phi_j: int) -> Fraction:
        """``g = sum_h a_h ReLU((C_h[i] phi_i + C_h[j] phi_j)/2)`` in the population limit (Sec. 5.5)."""
        total = Fraction(0)
        for a, c in zip(self.a, self.codes):
            z = (c[i] * phi_i + c[j] * phi_j) / 2
            if z > 0:
                total += a * z
        return total

    def code_norm(self) -> Fraction:
        """``sum_h ||C_h||^2 = 16 gamma^2 sum_h ||V^(h)||_F^2``."""
        return sum((c * c for row in self.codes for c in row), Fraction(0))

    def frobenius_norm_sq(self, gamma: Any) -> Fraction:
        """``sum_h ||V^(h)||_F^2`` at this gamma (``V = C / (4 gamma)``)."""
        g = check_gamma(gamma)
        return self.code_norm() / (16 * g * g)


def parity_heads(a: Sequence[Any], codes: Sequence[Sequence[Any]]) -> ParityHeads:
    """Build :class:`ParityHeads` from exact values (strings such as ``"-3.3"`` are read exactly).

    Parameters
    ----------
    a : sequence of numbers
        The output weights, in [-1, 1].
    codes : sequence of sequences of numbers
        One code row per head, all of the same length d.

    Returns
    -------
    ParityHeads
        The model, with exact Fractions.

    Examples
    --------
    >>> from theory.attention_parity import COUNTEREXAMPLE_M5, parity_heads
    >>> m5 = parity_heads(**COUNTEREXAMPLE_M5)
    >>> m5.m, m5.d, str(m5.codes[0][0])
    (5, 8, '-33/10')
    >>> parity_heads([2], [[1, 2]])
    Traceback (most recent call last):
        ...
    theory._checks.InputError: output weights must lie in [-1, 1] (Shi Sec. 5.5), got ['2']
    """
    for name, seq in (("a", a), ("codes", codes)):
        if isinstance(seq, (str, bytes)) or not hasattr(seq, "__iter__"):
            raise InputError(f"{name} must be a sequence, got {seq!r:.80}", param=name)
    af = tuple(as_fraction(x, "a", floats="decimal") for x in a)  # "-3.3" and 0.1 are read exactly as decimals
    rows = [list(row) if not isinstance(row, (str, bytes)) and hasattr(row, "__iter__") else None for row in codes]
    if any(row is None for row in rows):
        raise InputError(f"codes must hold one sequence of codes per head, got {codes!r:.80}", param="codes")
    cf = tuple(tuple(as_fraction(x, "codes", floats="decimal") for x in row) for row in rows if row is not None)
    if len(af) != len(cf) or not cf or len({len(r) for r in cf}) != 1:
        raise InputError(
            f"need one code row per head and rows of equal length; got {len(af)} weights, "
            f"row lengths {[len(r) for r in cf][:20]}",
            param="codes",
        )
    if any(abs(x) > 1 for x in af):
        raise InputError(f"output weights must lie in [-1, 1] (Shi Sec. 5.5), got {list(map(str, af))}", param="a")
    return ParityHeads(af, cf)


def parity_construction(nu2: Any, nu_pos: Any | None = None) -> ParityHeads:
    """The construction of Shi Thm 5.5.1 in codes ``C = 4 gamma V``, d = 2^nu2, m = 2(nu2 + 1) heads.

    Heads ``1..nu2``: ``a = -1``, code ``2 bit_i(t-1) - 1`` (bit 1 = least significant); head ``nu2 + 1``:
    ``a = +1``, code ``-nu_pos`` everywhere (``nu_pos = nu2`` for g_2*); heads ``nu2+2..2nu2+2`` mirror the first
    half with negated codes.

    Parameters
    ----------
    nu2 : int
        ``d = 2^nu2``, ``nu2 >= 1``.
    nu_pos : number, optional
        The magnitude of the positive heads' code (default ``nu2``).

    Returns
    -------
    ParityHeads
        g_2*.

    Examples
    --------
    >>> from theory.attention_parity import parity_construction
    >>> g = parity_construction(1)
    >>> [str(a) for a in g.a], [[str(c) for c in row] for row in g.codes]
    (['-1', '1', '-1', '1'], [['-1', '1'], ['-1', '-1'], ['1', '-1'], ['1', '1']])
    """
    nu2 = _check_nu(nu2, "nu2")
    _check_construction(nu2)
    nu_pos = nu2 if nu_pos is None else as_fraction(nu_pos, "nu_pos")
    d = 2**nu2
    a, codes = [], []
    for i in range(1, nu2 + 1):
        a.append(Fraction(-1))
        codes.append(tuple(Fraction(2 * (((t - 1) >> (i - 1)) & 1) - 1) for t in range(1, d + 1)))
    a.append(Fraction(1))
    codes.append(tuple(Fraction(-nu_pos) for _ in range(d)))
    a = a + a
    codes = codes + [tuple(-c for c in row) for row in codes]
    return ParityHeads(tuple(a), tuple(codes))


def _check_construction(nu2: int) -> None:
    check_cost(
        2 * (nu2 + 1) * 2**nu2 if nu2 <= 64 else math.inf,
        MAX_EXACT_ENTRIES,
        param="nu2",
        value=nu2,
        what="the number of exact codes 2(nu2 + 1) 2^nu2 of g_2*",
        hint="nu2 <= 12 (d = 4096); the margins have the closed form hamming_margins(nu2, tasks)",
    )


@fill_doc(_DOC)
def parity_g1(nu1: Any, nu2: Any, pos_scale: Any | None = None) -> ParityHeads:
    """g_1* of Thm 5.5.1: neurons ``{1..nu1, nu2+1, nu2+2..nu2+nu1+1, 2nu2+2}`` of g_2*, with positive-neuron code
    ``-nu1`` (``pos_scale`` overrides it; ``pos_scale = 2`` with nu1 = 1 is the improvement of erratum (a) in
    ``docs/attention_parity.md``).

    {{nu1_nu2}}
    pos_scale : number, optional
        The magnitude of the positive heads' code (default ``nu1``).

    Returns
    -------
    ParityHeads
        g_1*, with ``2(nu1 + 1)`` heads.

    Examples
    --------
    >>> from theory.attention_parity import parity_g1
    >>> g = parity_g1(1, 2)
    >>> g.m, [[str(c) for c in row] for row in g.codes]
    (4, [['-1', '1', '-1', '1'], ['-1', '-1', '-1', '-1'], ['1', '-1', '1', '-1'], ['1', '1', '1', '1']])
    """
    nu1 = _check_nu(nu1, "nu1")
    nu2 = _check_nu(nu2, "nu2")
    if nu1 > nu2:
        raise InputError(
            f"need nu1 <= nu2 (k = 2^nu1 <= d = 2^nu2), got nu1 = {format_count(nu1)}, nu2 = {format_count(nu2)}",
            param="nu1",
        )
    _check_construction(nu2)
    full = parity_construction(nu2, nu1 if pos_scale is None else as_fraction(pos_scale, "pos_scale"))
    keep = [*range(nu1), nu2, *list(range(nu2 + 1, nu2 + 1 + nu1)), 2 * nu2 + 1]
    return ParityHeads(tuple(full.a[h] for h in keep), tuple(full.codes[h] for h in keep))


def parity_task_sets(d: int, k: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """``S_1 = A x A minus the diagonal`` (A = first k features) and ``S_2`` = the other ordered pairs (0-based).

    Parameters
    ----------
    d : int
        The feature dimension.
    k : int
        The size of A, ``k <= d``.

    Returns
    -------
    tuple of two lists of (int, int)
        ``(S_1, S_2)``.

    Examples
    --------
    >>> from theory.attention_parity import parity_task_sets
    >>> s1, s2 = parity_task_sets(4, 2)
    >>> s1, len(s2)
    ([(0, 1), (1, 0)], 10)
    """
    d = check_dim(d)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k <= d:
        raise InputError(f"k (the size of A) must be an integer in 0..d = {d}, got {k!r:.80}", param="k")
    k = int(k)
    check_cost(
        d * (d - 1),
        MAX_EXACT_ENTRIES,
        param="d",
        value=d,
        what="the number of ordered pairs d(d-1)",
        hint="use a smaller d",
    )
    s1 = [(i, j) for i in range(k) for j in range(k) if i != j]
    s2 = [(i, j) for i in range(d) for j in range(d) if i != j and not (i < k and j < k)]
    return s1, s2


def _all_pairs_checked(heads: ParityHeads) -> list[tuple[int, int]]:
    """Every ordered pair of the model's d features, refused before it is listed when the margins would be too many."""
    d = heads.d
    check_cost(
        4 * d * (d - 1) * heads.m,
        MAX_MARGIN_TERMS,
        param="heads",
        value=d,
        what="the number of exact head outputs of every task, d(d-1) x 4 patterns x m heads (d features)",
        hint="pass tasks, or use hamming_margins for the constructions",
    )
    return [(i, j) for i in range(d) for j in range(d) if i != j]


def parity_margins(
    heads: ParityHeads, tasks: Sequence[tuple[int, int]] | None = None
) -> list[tuple[int, int, int, int, Fraction]]:
    """``y g`` for every task (i, j) (default: all ordered pairs) and pattern (phi_i, phi_j); exact, gamma-free.

    Parameters
    ----------
    heads : ParityHeads
        The model.
    tasks : sequence of (int, int), optional
        The tasks (0-based; default: every ordered pair).

    Returns
    -------
    list of tuple
        ``(i, j, phi_i, phi_j, y g)`` for every task and pattern.

    Examples
    --------
    >>> from theory.attention_parity import parity_construction, parity_margins
    >>> [str(m[-1]) for m in parity_margins(parity_construction(2), [(0, 3)])]  # 0 = 00b and 3 = 11b differ in 2 bits
    ['2', '2', '2', '2']
    """
    if not isinstance(heads, ParityHeads):
        raise InputError(f"heads must be a ParityHeads model, got {heads!r:.80}", param="heads")
    tasks = _all_pairs_checked(heads) if tasks is None else _check_tasks(tasks, d=heads.d)
    check_cost(
        4 * len(tasks) * heads.m,
        MAX_MARGIN_TERMS,
        param="tasks",
        value=len(tasks),
        what="the number of exact head outputs, tasks x 4 patterns x m heads",
        hint="hamming_margins gives the margins of the constructions in closed form",
    )
    return [(i, j, pi, pj, pi * pj * heads.output(i, j, pi, pj)) for i, j in tasks for pi, pj in PARITY_PATTERNS]


def parity_hinge_loss(heads: ParityHeads, tasks: Sequence[tuple[int, int]], gamma: Any) -> Fraction:
    """Population hinge loss ``E max(0, 1 - y g)`` over tasks uniform on ``tasks`` and the skewed pattern law
    (:func:`pattern_weights`), by brute force over every task and pattern.

    Parameters
    ----------
    heads : ParityHeads
        The model.
    tasks : sequence of (int, int)
        The tasks (uniform).
    gamma : int, float, Fraction or str
        The skew, in (0, 1/4).

    Returns
    -------
    Fraction
        The population hinge loss.

    Examples
    --------
    >>> from theory.attention_parity import COUNTEREXAMPLE_M5, parity_heads, parity_hinge_loss, parity_task_sets
    >>> s1, s2 = parity_task_sets(8, 2)
    >>> print(parity_hinge_loss(parity_heads(**COUNTEREXAMPLE_M5), s1 + s2, "0.1"))  # 5 heads, zero loss
    0
    """
    weights = pattern_weights(gamma)
    if not isinstance(heads, ParityHeads):
        raise InputError(f"heads must be a ParityHeads model, got {heads!r:.80}", param="heads")
    tasks = _check_tasks(tasks, d=heads.d)
    if not tasks:
        raise InputError("tasks must hold at least one task (the loss is a mean over tasks)", param="tasks")
    tot = Fraction(0)
    for *_, pi, pj, marg in parity_margins(heads, tasks):
        tot += weights[(pi, pj)] * max(Fraction(0), 1 - marg)
    return tot / len(tasks)


# ----------------------------------------------------------------------------------- closed forms


@fill_doc(_DOC)
def hamming_margins(bits: Any, tasks: Sequence[tuple[int, int]]) -> list[Fraction]:
    """Closed form of the margins of the constructions of Thm 5.5.1, one per (task, pattern) as in
    :func:`parity_margins`: ``y g = Hamming(i, j)`` on the ``bits`` lowest bits of the 0-based indices, for every
    sign pattern (``bits = nu2`` for g_2*, ``nu1`` for g_1*).

    Derivation (``docs/attention_parity.md``): a pair of mirrored bit heads contributes ``-|C_i phi_i + C_j phi_j|/2``
    and the positive pair ``nu |phi_i + phi_j| / 2``; with ``y = phi_i phi_j`` the sum is the number of bits on which
    ``i`` and ``j`` differ.

    {{bits_tasks}}

    Returns
    -------
    list of Fraction
        Four margins (one per pattern) per task.

    Examples
    --------
    >>> from theory.attention_parity import hamming_margins, parity_construction, parity_margins
    >>> tasks = [(0, 3), (1, 2), (2, 3)]
    >>> [str(m) for m in hamming_margins(2, tasks)[::4]]
    ['2', '2', '1']
    >>> hamming_margins(2, tasks) == [m[-1] for m in parity_margins(parity_construction(2), tasks)]
    True
    """
    b = _check_nu(bits, "bits")
    tasks = _check_tasks(tasks)
    mask = _bit_mask(b, tasks)
    return [Fraction(bin((i ^ j) & mask).count("1")) for i, j in tasks for _ in PARITY_PATTERNS]


def _bit_mask(bits: int, tasks: list[tuple[int, int]]) -> int:
    """2^bits - 1, capped at the bits the indices have (the same masked values; no 2^(10^9) is formed)."""
    width = max((max(i, j).bit_length() for i, j in tasks), default=0)
    return 2 ** min(bits, width) - 1


@fill_doc(_DOC)
def hamming_hinge_loss(bits: Any, tasks: Sequence[tuple[int, int]]) -> Fraction:
    """The population hinge loss implied by :func:`hamming_margins`: integer margins give loss 1 on a task whose
    indices agree on the ``bits`` lowest bits and 0 otherwise, for every gamma; the loss is the fraction of such
    tasks.

    {{bits_tasks}}

    Returns
    -------
    Fraction
        The loss.

    Examples
    --------
    >>> from theory.attention_parity import hamming_hinge_loss, parity_g1, parity_hinge_loss, parity_task_sets
    >>> s1, s2 = parity_task_sets(4, 2)
    >>> print(hamming_hinge_loss(1, s1 + s2))  # (0, 2), (2, 0), (1, 3), (3, 1) of 12 tasks
    1/3
    >>> hamming_hinge_loss(1, s1 + s2) == parity_hinge_loss(parity_g1(1, 2), s1 + s2, "0.2")
    True
    """
    b = _check_nu(bits, "bits")
    tasks = _check_tasks(tasks)
    if not tasks:
        raise InputError("tasks must hold at least one task (the loss is a mean over tasks)", param="tasks")
    mask = _bit_mask(b, tasks)
    return Fraction(sum(((i ^ j) & mask) == 0 for i, j in tasks), len(tasks))


def parity_pt_bound(d: Any, gamma: Any) -> Fraction:
    """Thm 5.5.1's condition ``p_T < (1/4 - gamma) / ((d(d-1)/2)(1/4 + gamma) + 1/4 - gamma)``.

    Parameters
    ----------
    d : int
        The feature dimension, ``d >= 2``.
    gamma : int, float, Fraction or str
        The skew, in (0, 1/4).

    Returns
    -------
    Fraction
        The upper bound on p_T.

    Examples
    --------
    >>> from theory.attention_parity import parity_pt_bound
    >>> print(parity_pt_bound(4, "1/8"))
    1/19
    """
    g = check_gamma(gamma)
    d = check_dim(d)
    d_digits = 2 * d.bit_length() * math.log10(2)
    check_cost(d_digits, MAX_DIGITS, param="d", value=d, what="the exact bound (digits of d^2)", hint="use a smaller d")
    check_cost(
        d_digits + _digits(g),
        MAX_DIGITS,
        param="gamma",
        value=gamma,
        what="the exact bound (digits of d^2 and gamma)",
        hint="pass gamma with fewer digits",
    )
    q = Fraction(1, 4)
    return (q - g) / (Fraction(d * (d - 1), 2) * (q + g) + q - g)


def parity_norm_formula(nu2: Any, gamma: Any) -> Fraction:
    """``sum_i ||V^(i)||_F^2 = 2 d nu2 (1 + nu2) / (16 gamma^2)`` for g_2* (Thm 5.5.1, d = 2^nu2).

    Parameters
    ----------
    nu2 : int
        ``d = 2^nu2``, ``nu2 >= 1``.
    gamma : int, float, Fraction or str
        The skew, in (0, 1/4).

    Returns
    -------
    Fraction
        ``sum_i ||V^(i)||_F^2``.

    Examples
    --------
    >>> from theory.attention_parity import parity_construction, parity_norm_formula
    >>> print(parity_norm_formula(2, "1/8"))
    192
    >>> parity_norm_formula(2, "1/8") == parity_construction(2).frobenius_norm_sq("1/8")
    True
    """
    nu2 = _check_nu(nu2, "nu2")
    g = check_gamma(gamma)
    nu_digits = (nu2 + 1) * math.log10(2) + 2 * math.log10(nu2 + 1) if nu2 <= 10**300 else math.inf
    check_cost(
        nu_digits,
        MAX_DIGITS,
        param="nu2",
        value=nu2,
        what="the exact 2^(nu2+1) nu2 (nu2+1) (digits)",
        hint="use a smaller nu2",
    )
    check_cost(
        nu_digits + 2 * _digits(g),
        MAX_DIGITS,
        param="gamma",
        value=gamma,
        what="the exact norm (digits of 2^nu2 and gamma^2)",
        hint="pass gamma with fewer digits",
    )
    return Fraction(2 * 2**nu2 * nu2 * (1 + nu2)) / (16 * g * g)


def _rank_exact(cols: list[tuple[Fraction, ...]]) -> int:
    return Matrix([[Rational(x.numerator, x.denominator) for x in c] for c in cols]).rank()


@fill_doc(_DOC)
def projection_ratio(nu1: Any, nu2: Any, M: Any | None = None) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
    """Thm 5.5.2's noise ratio: ``E||P_{D_j} Xi||^2 = rank(D_j)/M`` with ``E Xi Xi^T = I/M`` and ``P`` the orthogonal
    projector onto ``col(D_j)`` (the pseudo-inverse: ``D_j^T D_j`` is singular, ``docs/attention_parity.md``).

    Returns ``(E||P_{D_1} Xi||^2, E||P_{D_2} Xi||^2, ratio)``; the ratio is ``(nu1 + 1)/(nu2 + 1)``. ``M`` may be
    left out (a positive symbol ``M``).

    {{nu1_nu2}}
    M : int, optional
        The number of samples (default: the positive symbol ``M``).

    Returns
    -------
    tuple of sympy.Expr
        ``(E||P_{D_1} Xi||^2, E||P_{D_2} Xi||^2, ratio)``.

    Examples
    --------
    >>> from theory.attention_parity import projection_ratio
    >>> projection_ratio(1, 2)
    (2/M, 3/M, 2/3)
    >>> projection_ratio(1, 3, 10)
    (1/5, 2/5, 1/2)
    """
    n2 = _check_nu(nu2, "nu2")
    check_cost(
        (2 * (n2 + 1)) ** 2 * 2**n2 if n2 <= 64 else math.inf,
        MAX_RANK_COST,
        param="nu2",
        value=n2,
        what="the work rows^2 x cols of the exact rank of the 2(nu2 + 1) x 2^nu2 codes",
        hint="nu2 <= 9; the ratio is (nu1 + 1)/(nu2 + 1)",
    )
    g1 = parity_g1(nu1, nu2)
    g2 = parity_construction(nu2)
    Ms = sympy.Symbol("M", positive=True) if M is None else check_count(M, "M")
    e1 = Integer(_rank_exact(list(g1.codes))) / Ms
    e2 = Integer(_rank_exact(list(g2.codes))) / Ms
    return e1, e2, sympy.simplify(e1 / e2)
