r"""Sparse variable creation by self-attention (exact): the constructions behind Edelman thesis Prop. 4.12.

Source: Edelman thesis Ch. 4 (Sec. 4.4-4.5) and App. A.1-A.2 (Prop. A.18, Lemmas A.19-A.25, Lemma 4.7,
Cor. A.7, Prop. 4.8). Setting, claims and errata: ``docs/sparse_variable.md``.

Setting. A Boolean context ``b in {0,1}^T`` becomes the input ``X(b)`` of one attention layer with an extra
[CLS] row ``v_CLS`` (read out at [CLS]); ``I`` (``support``, ``|I| = s``) is the set of relevant positions and
``n(i)`` numbers them ``0..s-1`` in increasing order. Three input mappings (App. A.2.1):

* ``"deterministic"``: ``X(b)_t = v_t + E_{b_t}`` with fixed positional vectors ``v_t`` (Lemma A.19);
* ``"trainable"``: the same with a constructed positional table ``P`` (Lemma A.20);
* ``"bag"``: ``X(b)_t = b_t v_t`` (Lemma A.21; the thesis writes both "V diag(b)" and "V + diag(b)", the proof
  uses rows ``b_t v_t``).

The head is ``softmax(v_CLS^T W_Q W_K^T X^T) X W_V W_C`` (App. A.2.1); heads add up. Every weight here is a sum of
outer products of *named* unit vectors (positional ``("pos", j)``, token ``("tok", 0|1)``, ``("cls",)``, head
coordinates ``("k", j)``, output coordinates ``("out", j)``), which is how the thesis writes them. With an
orthonormal basis (coherence ``Delta = 0``) every score is ``R`` times an integer and ``e^R`` is rational, so a
head's output is an exact rational number (:meth:`Construction.head_output`). Numerical evaluation with an
arbitrary (approximately orthonormal) basis is in :mod:`numerics.sparse_variable`.

Contents:

* :func:`lemma_a19`, :func:`lemma_a20`, :func:`lemma_a21`: the attention heads (scalar output approximating a
  monotone symmetric function; ``s`` outputs approximating an injective function), with the thesis's ``R``
  (:func:`r_a19`, :func:`r_a20`, :func:`r_a21`), stated norm bounds (:func:`stated_head_bounds`) and exact norms
  (:func:`exact_head_norms`); :func:`lemma_a19_coherent` (:func:`r_a19_coherent`), the corrected head for
  positional vectors of coherence ``Delta > 0``;
* :func:`worst_case_error`: the exact largest ``|head(b) - g(b)|`` over all ``b`` (closed forms derived in
  ``docs/sparse_variable.md``) and :func:`worst_case_input`, an input attaining it;
* :func:`relu_interpolation_net` (Lemma A.25: the 3-layer ReLU network that is exactly ``f(x_i)`` on the
  ``delta``-box around each point), its entry bounds as printed (:func:`stated_mlp_bounds`) and its exact norms
  (:func:`mlp_norms`);
* :func:`symmetric_representation` (Lemma A.22: one head + MLP = any symmetric s-sparse function) and
  :func:`general_representation` (Lemma A.23: s heads, or one bag-of-vectors head, + MLP = any s-sparse function);
* :func:`softmax_jacobian_l11`, :data:`C_SOFTMAX`, :func:`softmax_linf_to_l1_constant`,
  :func:`lemma47_sharp_ratios`: the constants of Lemma 4.7 / Cor. A.7 and their sharp values;
* :func:`shattering_size`, :func:`prop48_target_weight_bound`: Prop. 4.8; :func:`chance_cross_entropy` and
  :func:`and_information_bound` (log2 C(T, s)) and :func:`and_threshold_log_law` (Fig. 4.2's threshold
  carried along its log law from the thesis's reading m*(300) ≈ 70): the predictions of the Sec. 4.6 training claims.

Sizes (checked before any work, ``docs/limits.md``): the exact constructions take ``T <=`` :data:`MAX_CONTEXT` =
10^5 positions; the Lemma A.25 network at most :data:`MAX_MLP_ENTRIES` = 10^6 exact entries (the general
representation of s <= 7 relevant bits); vector targets at most 2^16 patterns; :func:`fixed_score_worst_case_error`
at most 4000 digits and scores ``|R kappa_t| <= 10^50``; :func:`and_information_bound` ``C(T, s)`` of at most 4000
digits. Numbers from callers are read without evaluating them (a string exponent beyond +-4000 is refused).

Errata found here (``docs/sparse_variable.md``): the s-head construction of Lemma A.19 as printed has
``W_V^[b] = (E_0 - E_1) e_2^T`` while ``W_C^[b]`` reads coordinate 1, so every head outputs 0
(``thesis_wv=True`` reproduces it); Lemma A.25's bump ``v(x) - v(2 delta - x)`` is not a bump
(``bump="printed"``); the proofs of Lemmas A.22/A.23 take ``delta = gamma/8`` although a
``(gamma/4)``-approximation needs ``delta >= gamma/4`` (``delta_rule="printed"`` reproduces the failure); the
first-layer biases of Lemma A.25 reach ``B/delta + 2``, above the printed ``max(1, B)/delta``; for ``Delta > 0``
the relevant scores of Lemma A.19's head differ, so its attention on I is not uniform.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, SupportsIndex, SupportsInt, TypeAlias

import mpmath
import sympy

from theory import _checks
from theory._checks import MAX_DIGITS, InputError, LimitError, check_bool, check_cost, check_positive_int, format_count
from theory._docstrings import fill_doc, sections

__all__ = [
    "C_SOFTMAX",
    "FIG42_THRESHOLD_READING",
    "MAPPINGS",
    "MAX_CONTEXT",
    "MAX_MLP_ENTRIES",
    "Construction",
    "Head",
    "Name",
    "RankOneSum",
    "ReluNet",
    "SparseRepresentation",
    "and_information_bound",
    "and_threshold_log_law",
    "block_perturbation_bound",
    "chance_cross_entropy",
    "check_bits",
    "check_sparsity",
    "check_support",
    "chi",
    "exact_head_norms",
    "fixed_score_worst_case_error",
    "general_representation",
    "head_input_lipschitz",
    "head_norm_closed_forms",
    "lemma47_sharp_ratios",
    "lemma_a19",
    "lemma_a19_coherent",
    "lemma_a20",
    "lemma_a21",
    "mlp_max_entries",
    "mlp_norms",
    "perturbation_bound_sharp_ratio",
    "prop48_target_weight_bound",
    "r_a19",
    "r_a19_coherent",
    "r_a20",
    "r_a21",
    "random_support",
    "relu_interpolation_net",
    "scalar_output_bound",
    "score_coefficients",
    "shattering_size",
    "softmax_jacobian_l11",
    "softmax_l11_sup",
    "softmax_linf_to_l1_constant",
    "softmax_truncation_bound",
    "softmax_truncation_sup",
    "stated_head_bounds",
    "stated_mlp_bounds",
    "symmetric_representation",
    "worst_case_error",
    "worst_case_input",
]

MAPPINGS = ("deterministic", "trainable", "bag")
#: C_Norm of softmax in Assumption 4.5 / Cor. A.7: sup_theta ||J softmax(theta)||_{1,1} <= 2.
C_SOFTMAX = Fraction(2)

#: A named unit vector: ("pos", j), ("tok", 0 | 1), ("cls",), ("k", j) (head space), ("out", j) (output space).
Name: TypeAlias = tuple[Any, ...]
Vector = Mapping[Name, Fraction]
CLS: Name = ("cls",)
_ONE = Fraction(1)

MAX_CONTEXT = 100_000
"""Largest context length T of the exact constructions (one named positional vector per position; T = 10^5 takes
0.7 s to build and 6 s per exact head evaluation; the claims use T <= 10^5)."""

MAX_MLP_ENTRIES = 1_000_000
"""Largest number of exact entries of the Lemma A.25 network, ``(d_f + 1) 4 n d_f + (4 n d_f + 1) 2 n + 2 n`` for n
points of d_f coordinates (about a second; the general representation of s = 7 relevant bits has 946432)."""

MAX_SCORE_LOG10 = 50
"""Largest log10 of a score ``|R kappa_t|`` of :func:`fixed_score_worst_case_error` (mpmath's exp needs precision
growing with the score's digits)."""

MAX_VECTOR_LEVELS = 2**16
"""Largest number of patterns ``2^s`` of a vector target (:meth:`Construction.level_points`)."""


# --------------------------------------------------------------------------------------------- shared docstrings

#: Shared docstring sections (:func:`theory._docstrings.fill_doc`).
_T = "T : int\n    Context length."
_T_S = "T, s : int\n    Context length and sparsity."
_GAMMA = "gamma : Fraction\n    Approximation parameter, ``0 < gamma <= 1``."
_SUPPORT = "support : sequence of int\n    The relevant positions I."
_COHERENCE = "coherence : Fraction\n    ``Delta`` of the positional vectors, ``0 <= s Delta < 1``."
_EXACT_R = "sympy.Expr\n    Exact R."
_MAPPING = """
mapping : "deterministic" | "trainable" | "bag"
    The input mapping (Lemma A.19, A.20 or A.21).
delta_rule : "corrected" | "printed"
    Box half-width ``gamma/4`` or ``gamma/8``.
"""

_DOC = {
    "r_a19": sections(_T_S, _GAMMA, _COHERENCE, returns=_EXACT_R),
    "r_a20": sections(_T, _GAMMA, returns=_EXACT_R),
    "r_a21": sections(
        _T_S, "gamma : Fraction\n    Approximation parameter, ``s Delta < gamma <= 1``.", _COHERENCE, returns=_EXACT_R
    ),
    "r_a19_coherent": sections(
        _T_S, _GAMMA, "coherence : Fraction\n    ``Delta``, with ``(2s - 1) Delta < 1``.", returns=_EXACT_R
    ),
    "T_support": sections(_T, _SUPPORT),
    "T_support_gamma": sections(_T, _SUPPORT, _GAMMA),
    "T_support_gamma_output": sections(
        _T, _SUPPORT, _GAMMA, 'output : "scalar" | "vector"\n    One head (``g``) or s heads (``g\'``).'
    ),
    "T_support_s": sections(_T, "support : sequence of int\n    The relevant positions I (``s = |I|``)."),
    "mapping_representation": _MAPPING.strip("\n")
    + "\n\n"
    + sections(returns="SparseRepresentation", raises="ValueError"),
    "construction_norms": sections(
        "c : Construction",
        returns='dict of str to sympy.Expr\n    Keys ``"W_Q", "W_K", "W_V", "W_C"`` (and ``"P_21"`` first for A.20).',
    ),
    "fraction_or_error": sections(returns="Fraction", raises="ValueError"),
    "fraction_or_bad_argument": sections(
        returns="Fraction", raises="ValueError\n    An argument is negative or not a finite number."
    ),
    "T_s_R": sections(
        "T, s : int\n    Context length and number of kept positions, ``1 <= s <= T``.",
        "R : rational number\n    The score margin (modulus at most 500).",
    ),
    "expr_or_error": sections(returns="sympy.Expr", raises="ValueError"),
}


# --------------------------------------------------------------------------------------------- validation


def _as_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, sympy.Integer)):
        raise InputError(f"{name} must be an integer, got {value!r:.80}", param=name.split(" ")[0])
    return int(value)


def _check_context(T: object) -> int:
    """The context length of an exact construction, ``1 <= T <= MAX_CONTEXT``."""
    T_ = _as_int(T, "T (context length)")
    check_cost(
        T_,
        MAX_CONTEXT,
        param="T",
        value=T_,
        what="the exact constructions (one named positional vector per position)",
        hint="numerics.sparse_variable evaluates the heads in float64; the closed forms (r_a19, worst_case_error, "
        "head_norm_closed_forms) hold at any T",
    )
    return T_


def _mlp_entries(n: int, d_f: int) -> int:
    """Exact entries of the Lemma A.25 network on n points of d_f coordinates."""
    return (d_f + 1) * 4 * n * d_f + (4 * n * d_f + 1) * 2 * n + 2 * n


def _check_mlp(n: int, d_f: int, param: str, value: object) -> None:
    check_cost(
        _mlp_entries(n, d_f),
        MAX_MLP_ENTRIES,
        param=param,
        value=value,
        what=f"the Lemma A.25 network on {format_count(n)} points of {format_count(d_f)} coordinates "
        "(8 n^2 d_f + ... exact entries)",
        hint="use fewer relevant bits (the general representation has 2^s points of s coordinates)",
    )


def _bit_patterns(s: int, what: str) -> list[tuple[int, ...]]:
    """Every pattern in ``{0,1}^s``, the k-th with bit j ``(k >> j) & 1`` (little-endian index order), after
    refusing ``2^s`` above :data:`MAX_VECTOR_LEVELS` (the InputError names ``support`` and ``what``)."""
    check_cost(s, math.log2(MAX_VECTOR_LEVELS), param="support", value=s, what=what, hint="use fewer relevant bits")
    return [tuple((k >> j) & 1 for j in range(s)) for k in range(2**s)]


def _check_construction(c: object) -> None:
    if not isinstance(c, Construction):
        raise InputError(f"c must be a Construction (lemma_a19, lemma_a20, lemma_a21), got {c!r:.80}", param="c")


def _check_net(net: object) -> None:
    if not isinstance(net, ReluNet):
        raise InputError(f"net must be a ReluNet (relu_interpolation_net), got {net!r:.80}", param="net")


def _check_output(output: object) -> None:
    if output not in ("scalar", "vector"):
        raise InputError(f"output must be 'scalar' or 'vector', got {output!r:.80}", param="output")


def check_sparsity(T: object, s: object) -> tuple[int, int]:
    """``(T, s)`` as ints: the context length ``T >= 1`` and the sparsity ``1 <= s <= T`` (an s-sparse function of
    T bits needs s distinct positions).

    Parameters
    ----------
    T, s : int
        Context length and sparsity.

    Returns
    -------
    tuple of int
        ``(T, s)``.

    Raises
    ------
    ValueError
        ``T < 1``, ``s < 1`` or ``s > T``, naming the allowed range.

    Examples
    --------
    >>> from theory.sparse_variable import check_sparsity
    >>> check_sparsity(5, 2)
    (5, 2)
    >>> check_sparsity(3, 4)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: s (sparsity) must satisfy 1 <= s <= T = 3, got s = 4
    """
    T_, s_ = _as_int(T, "T (context length)"), _as_int(s, "s (sparsity)")
    if T_ < 1:
        raise InputError(f"T (context length) must be >= 1, got T = {format_count(T_)}", param="T")
    if not 1 <= s_ <= T_:
        raise InputError(
            f"s (sparsity) must satisfy 1 <= s <= T = {format_count(T_)}, got s = {format_count(s_)}", param="s"
        )
    return T_, s_


def check_support(T: object, support: Iterable[object]) -> tuple[int, ...]:
    """The relevant positions ``I`` as a sorted tuple of distinct ints in ``[0, T)`` with ``1 <= |I| <= T``.

    Parameters
    ----------
    T : int
        Context length.
    support : iterable of int
        The relevant positions, in any order.

    Returns
    -------
    tuple of int
        ``I`` sorted.

    Raises
    ------
    ValueError
        A repeated position, one outside ``[0, T)``, or an empty support.

    Examples
    --------
    >>> from theory.sparse_variable import check_support
    >>> check_support(5, [3, 1])
    (1, 3)
    >>> check_support(4, [1, 1])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: support must hold distinct positions in [0, T = 4), got [1, 1]
    """
    T_ = _as_int(T, "T (context length)")
    if isinstance(support, (str, bytes)) or not hasattr(support, "__iter__"):
        raise InputError(f"support must be a sequence of positions, got {support!r:.80}", param="support")
    idx = tuple(sorted(_as_int(i, "support index") for i in support))
    if not idx:
        raise InputError("support must hold at least one position (1 <= s <= T)", param="support")
    check_sparsity(T_, len(idx))
    if len(set(idx)) != len(idx) or idx[0] < 0 or idx[-1] >= T_:
        raise InputError(
            f"support must hold distinct positions in [0, T = {format_count(T_)}), got {list(idx)[:12]}",
            param="support",
        )
    return idx


def check_bits(b: Sequence[SupportsInt | SupportsIndex | str], T: int) -> tuple[int, ...]:
    """A context ``b in {0,1}^T`` as a tuple of ints.

    Parameters
    ----------
    b : sequence of int
        The bits (anything ``int()`` maps to 0 or 1).
    T : int
        Context length.

    Returns
    -------
    tuple of int

    Raises
    ------
    ValueError
        ``len(b) != T`` or an entry other than 0 and 1.

    Examples
    --------
    >>> from theory.sparse_variable import check_bits
    >>> check_bits([0, 1, True], 3)
    (0, 1, 1)
    >>> check_bits([0, 2], 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: b must be a sequence of T = 2 bits in {0, 1}, got [0, 2]
    """
    if isinstance(b, (str, bytes)) or not hasattr(b, "__iter__"):
        raise InputError(f"b must be a sequence of T = {T!r:.40} bits in {{0, 1}}, got {b!r:.80}", param="b")
    try:
        bits = tuple(int(x) for x in b)
    except (TypeError, ValueError, OverflowError):
        bits = (2,)  # not bits: refused below with the caller's values
    if len(bits) != T or any(x not in (0, 1) for x in bits):
        raise InputError(f"b must be a sequence of T = {T!r:.40} bits in {{0, 1}}, got {list(b)[:12]}", param="b")
    return bits


def _check_fraction(
    x: numbers.Rational | float | str, name: str, lo: Fraction, hi: Fraction, closed_hi: bool = True
) -> Fraction:
    v = _checks.as_fraction(x, name)
    if not (lo < v and (v <= hi if closed_hi else v < hi)):
        raise InputError(f"{name} must lie in ({lo}, {hi}{']' if closed_hi else ')'}, got {v}", param=name)
    return v


def chi(bit: int) -> int:
    """The sign of a bit used by Lemma A.19: ``chi = +1`` for ``b = 0`` and ``-1`` for ``b = 1``.

    Parameters
    ----------
    bit : int
        0 or 1.

    Returns
    -------
    int
        ``1 - 2 bit``.

    Examples
    --------
    >>> from theory.sparse_variable import chi
    >>> chi(0), chi(1)
    (1, -1)
    """
    if isinstance(bit, (str, bytes)) or bit not in (0, 1):
        raise InputError(f"bit must be 0 or 1, got {bit!r:.80}", param="bit")
    return 1 - 2 * bit


def random_support(T: int, s: int, rng: object) -> tuple[int, ...]:
    """``s`` distinct positions of ``[0, T)`` drawn by ``rng.sample`` (a ``random.Random``).

    Parameters
    ----------
    T, s : int
        Context length and sparsity, ``1 <= s <= T``.
    rng : random.Random
        The source of randomness.

    Returns
    -------
    tuple of int
        Sorted positions.

    Examples
    --------
    >>> import random
    >>> from theory.sparse_variable import random_support
    >>> I = random_support(10, 3, random.Random(0))
    >>> len(I), all(0 <= i < 10 for i in I), I == tuple(sorted(set(I)))
    (3, True, True)
    """
    T, s = check_sparsity(T, s)
    check_cost(s, MAX_CONTEXT, param="s", value=s, what="the sampled positions", hint="use a smaller s")
    if T > 2**62:
        raise LimitError(
            f"T = {format_count(T)} is too large: positions are sampled from range(T), T <= 2^62; the exact "
            f"constructions take T <= {MAX_CONTEXT:,}",
            param="T",
            value=T,
            limit=2**62,
            hint=f"the exact constructions take T <= {MAX_CONTEXT:,}",
        )
    if not callable(getattr(rng, "sample", None)):
        raise InputError(f"rng must be a random.Random, got {rng!r:.80}", param="rng")
    return tuple(sorted(rng.sample(range(T), s)))  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------- weights


def _dot(x: Vector, y: Vector) -> Fraction:
    """Inner product of two combinations of orthonormal named vectors."""
    if len(x) > len(y):
        x, y = y, x
    return sum((c * y[n] for n, c in x.items() if n in y), Fraction(0))


@dataclass(frozen=True)
class RankOneSum:
    """A weight matrix ``W = sum_a c_a u_a w_a^T`` (left names index the input side ``x^T W``).

    Parameters
    ----------
    terms : tuple of (Fraction, Name, Name)
        The coefficients ``c_a`` with the names of ``u_a`` and ``w_a``.

    Examples
    --------
    ``W_V = (E_0 - E_1) e_1^T`` of Lemma A.19 maps the token ``E_0`` to ``e_1`` and ``E_1`` to ``-e_1``:

    >>> from fractions import Fraction
    >>> from theory.sparse_variable import RankOneSum
    >>> W = RankOneSum(((Fraction(1), ("tok", 0), ("k", 0)), (Fraction(-1), ("tok", 1), ("k", 0))))
    >>> W.apply_left({("tok", 1): Fraction(1)})
    {('k', 0): Fraction(-1, 1)}
    >>> W.frobenius_sq()
    Fraction(2, 1)
    """

    terms: tuple[tuple[Fraction, Name, Name], ...]

    def apply_left(self, x: Vector) -> dict[Name, Fraction]:
        """``x^T W`` for ``x`` a combination of orthonormal named vectors."""
        out: dict[Name, Fraction] = {}
        for c, u, w in self.terms:
            if x.get(u):
                out[w] = out.get(w, Fraction(0)) + c * x[u]
        return out

    def entries(self) -> dict[tuple[Name, Name], Fraction]:
        """The coefficient of every distinct outer product ``u w^T`` (duplicates merged)."""
        out: dict[tuple[Name, Name], Fraction] = {}
        for c, u, w in self.terms:
            out[(u, w)] = out.get((u, w), Fraction(0)) + c
        return out

    def frobenius_sq(self) -> Fraction:
        """``||W||_F^2`` when the named vectors are orthonormal: the sum of the squared merged coefficients."""
        return sum((c * c for c in self.entries().values()), Fraction(0))


@dataclass(frozen=True)
class Head:
    """One head: ``W_Q = R * W_Q_unit`` (the factor R is :attr:`Construction.R`), ``W_K, W_V, W_C``.

    Parameters
    ----------
    W_Q_unit, W_K, W_V, W_C : RankOneSum
        The query weight without its factor R, and the key, value and output weights.

    Examples
    --------
    The single head of Lemma A.19 reads the relevant positions ``I = {1, 3}`` (``W_K = v_I e_1^T``):

    >>> from theory.sparse_variable import lemma_a19
    >>> head = lemma_a19(4, [1, 3]).heads[0]
    >>> [(str(c), u, w) for c, u, w in head.W_K.terms]
    [('1', ('pos', 1), ('k', 0)), ('1', ('pos', 3), ('k', 0))]
    """

    W_Q_unit: RankOneSum
    W_K: RankOneSum
    W_V: RankOneSum
    W_C: RankOneSum


def _score_scale_args(
    T: object, s: object, gamma: object, coherence: object
) -> tuple[sympy.Integer, int, sympy.Expr, sympy.Expr]:
    """Checked ``(T, s, gamma, Delta)`` of the score scales: ``T, s >= 1``, ``0 < gamma <= 1``, ``0 <= s Delta < 1``.

    Caller values are converted by :func:`theory._checks.as_number` (a string is parsed, never evaluated).
    """
    T_i = check_positive_int(T, "T")
    s_i = check_positive_int(s, "s")
    g = _checks.as_number(gamma, "gamma", symbolic=False)
    D = _checks.as_number(coherence, "coherence", symbolic=False)
    if not 0 < g <= 1:
        raise InputError(f"gamma must lie in (0, 1], got {g}", param="gamma")
    if D < 0 or s_i * D >= 1:
        raise InputError(
            f"the coherence Delta must satisfy 0 <= s * Delta < 1, got s * Delta = {s_i * D}", param="coherence"
        )
    return sympy.Integer(T_i), s_i, g, D


@fill_doc(_DOC)
def r_a19(T: int, s: int, gamma: Fraction, coherence: Fraction = Fraction(0)) -> sympy.Expr:
    """``R = log(8T/gamma) / (1 - s Delta)`` (proof of Lemma A.19; also its s-head part).

    {{r_a19}}

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import r_a19
    >>> r_a19(4, 2, Fraction(1))
    log(32)
    >>> r_a19(4, 2, Fraction(1), coherence=Fraction(1, 4))
    2*log(32)
    """
    T, s, g, D = _score_scale_args(T, s, gamma, coherence)
    return sympy.log(8 * T / g) / (1 - s * D)


@fill_doc(_DOC)
def r_a20(T: int, gamma: Fraction) -> sympy.Expr:
    """``R = log(8T/gamma)`` (proof of Lemma A.20).

    {{r_a20}}

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import r_a20
    >>> r_a20(4, Fraction(1, 2))
    log(64)
    """
    T, _, g, _ = _score_scale_args(T, 1, gamma, Fraction(0))
    return sympy.log(8 * T / g)


@fill_doc(_DOC)
def r_a21(T: int, s: int, gamma: Fraction, coherence: Fraction = Fraction(0)) -> sympy.Expr:
    """``R = log(8 T s (1 + Delta) / (gamma - s Delta)) / (1 - s Delta)`` (proof of Lemma A.21).

    {{r_a21}}

    Raises
    ------
    ValueError
        ``gamma <= s Delta`` (and the ranges of :func:`r_a19`).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import r_a21
    >>> r_a21(4, 2, Fraction(1, 3))
    log(192)
    >>> r_a21(4, 2, Fraction(1, 4), Fraction(1, 8))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Lemma A.21 needs gamma > s * Delta, got gamma = 1/4, s * Delta = 1/4
    """
    T, s, g, D = _score_scale_args(T, s, gamma, coherence)
    if g - s * D <= 0:
        raise InputError(f"Lemma A.21 needs gamma > s * Delta, got gamma = {g}, s * Delta = {s * D}", param="gamma")
    return sympy.log(8 * T * s * (1 + D) / (g - s * D)) / (1 - s * D)


@dataclass(frozen=True)
class Construction:
    """The attention part of one construction of App. A.2.5.

    Attributes
    ----------
    lemma : "A.19" | "A.20" | "A.21"
    mapping : one of :data:`MAPPINGS`
    output : "scalar" (approximates the monotone symmetric ``g``) or "vector" (the injective ``g'``, s outputs)
    T, support : context length and relevant positions
    heads : the heads (summed)
    positions : row t of the positional table as a combination of named positional vectors
    gamma : the approximation parameter of the lemma (the head is ``gamma/4``-close to ``g``)
    coherence : ``Delta`` of the positional vectors the weights assume (0: orthonormal)
    R : the score scale chosen by the proof (sympy)
    thesis_wv : whether the s-head part uses the printed ``W_V^[b] = (E_0 - E_1) e_2^T`` (erratum)
    variant : "printed", or "coherent" for :func:`lemma_a19_coherent`

    Examples
    --------
    The head of Lemma A.19 for ``T = 4``, ``I = {1, 3}``, ``gamma = 1``: ``R = log 32``, so the output at [CLS] is
    an exact rational, ``gamma/4``-close to ``g = (1/s) sum_{i in I} chi_i``:

    >>> from theory.sparse_variable import lemma_a19
    >>> c = lemma_a19(4, [1, 3])
    >>> c.R, c.exp_R
    (log(32), Fraction(32, 1))
    >>> b = (0, 1, 0, 1)
    >>> print(c.head_output(b)[0], c.target(b)[0])
    -62/67 -1
    """

    lemma: str
    mapping: str
    output: str
    T: int
    support: tuple[int, ...]
    heads: tuple[Head, ...]
    positions: tuple[dict[Name, Fraction], ...]
    gamma: Fraction
    coherence: Fraction
    R: sympy.Expr
    thesis_wv: bool = False
    variant: str = "printed"
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def s(self) -> int:
        return len(self.support)

    @property
    def n_out(self) -> int:
        return 1 if self.output == "scalar" else self.s

    @property
    def exp_R(self) -> Fraction:
        """``e^R`` as an exact rational (orthonormal basis only: then R = log of a rational)."""
        if self.coherence != 0:
            raise ValueError("e^R is rational only for an orthonormal basis (coherence 0)")
        arg = sympy.exp(self.R)
        if not arg.is_Rational:
            raise ValueError(f"e^R = {arg} is not rational")
        return Fraction(int(arg.p), int(arg.q))

    def input_rows(self, b: Sequence[int]) -> list[dict[Name, Fraction]]:
        """The rows of ``X(b)`` (T token rows, then the [CLS] row) as combinations of named vectors."""
        bits = check_bits(b, self.T)
        rows: list[dict[Name, Fraction]] = []
        for t, bt in enumerate(bits):
            if self.mapping == "bag":
                rows.append({n: c * bt for n, c in self.positions[t].items()} if bt else {})
            else:
                row = dict(self.positions[t])
                row[("tok", bt)] = row.get(("tok", bt), Fraction(0)) + 1
                rows.append(row)
        rows.append({CLS: Fraction(1)})
        return rows

    def head_output(self, b: Sequence[int]) -> tuple[Fraction, ...]:
        """The exact output of the summed heads at [CLS] (orthonormal basis): ``sum_h softmax(scores) X W_V W_C``.

        Scores are ``R * kappa_t`` with integer ``kappa_t``, so the weights are powers of ``e^R`` (rational)."""
        q = self.exp_R
        rows = self.input_rows(b)
        out = [Fraction(0)] * self.n_out
        for head in self.heads:
            query = head.W_Q_unit.apply_left(rows[-1])
            num = [Fraction(0)] * self.n_out
            den = Fraction(0)
            for row in rows:
                kappa = _dot(query, head.W_K.apply_left(row))
                if kappa.denominator != 1:
                    raise ValueError(f"score/R = {kappa} is not an integer: no exact evaluation")
                weight = q ** int(kappa)
                den += weight
                for name, c in head.W_C.apply_left(head.W_V.apply_left(row)).items():
                    num[name[1]] += weight * c
            out = [o + n / den for o, n in zip(out, num)]
        return tuple(out)

    def target(self, b: Sequence[int]) -> tuple[Fraction, ...]:
        """The function ``g`` (scalar) or ``g'`` (vector) the lemma approximates, exactly.

        A.19/A.20: ``g = (1/s) sum_{i in I} chi_i``, ``g'_j = chi_{I_j}``; A.21: ``g = (r - s)/(r + 1)``,
        ``g'_j = (b_{I_j} - 1)/(r + 1)`` with ``r = sum_{i in I} b_i``."""
        bits = check_bits(b, self.T)
        rel = [bits[i] for i in self.support]
        s, r = self.s, sum(rel)
        if self.lemma == "A.21":
            if self.output == "scalar":
                return (Fraction(r - s, r + 1),)
            return tuple(Fraction(x - 1, r + 1) for x in rel)
        if self.output == "scalar":
            return (Fraction(sum(chi(x) for x in rel), s),)
        return tuple(Fraction(chi(x)) for x in rel)

    def level_points(self) -> list[tuple[tuple[Fraction, ...], tuple[int, ...]]]:
        """Every value of the target and one pattern of relevant bits producing it: for a scalar target one per
        count ``r = 0..s``, for a vector target one per pattern in ``{0,1}^s`` (little-endian index order)."""
        s = self.s
        if self.output == "scalar":
            pats = [tuple(1 if j < r else 0 for j in range(s)) for r in range(s + 1)]
        else:
            pats = _bit_patterns(s, "the number of relevant bits s of a vector target (2^s patterns)")
        out = []
        for pat in pats:
            b = [0] * self.T
            for j, i in enumerate(self.support):
                b[i] = pat[j]
            out.append((self.target(b), pat))
        return out


def _unit(u: Name, w: Name, c: Fraction = Fraction(1)) -> tuple[Fraction, Name, Name]:
    return (Fraction(c), u, w)


@fill_doc(_DOC)
def lemma_a19(
    T: int,
    support: Sequence[int],
    gamma: Fraction = Fraction(1),
    output: str = "scalar",
    coherence: Fraction = Fraction(0),
    thesis_wv: bool = False,
) -> Construction:
    """Lemma A.19 (deterministic positional vectors v_t, tokens E_0, E_1): one head with
    ``W_Q = R v_CLS e_1^T``, ``W_K = v_I e_1^T``, ``W_V = (E_0 - E_1) e_1^T``, ``W_C = e_1 e_1^T`` (scalar, approximates
    ``(1/s) sum chi_i``), or s heads with ``W_K^[b] = v_{I_b} e_1^T`` and ``W_C^[b] = e_1 e_b^T`` (vector, approximates
    ``chi_I``). ``thesis_wv=True`` uses the printed ``W_V^[b] = (E_0 - E_1) e_2^T`` of the s-head part.

    {{T_support_gamma_output}}
    coherence : Fraction
        ``Delta`` the weights assume, ``0 <= Delta < 1/s`` (only R changes).
    thesis_wv : bool
        Use the printed ``W_V^[b]`` (every head then outputs 0).

    Returns
    -------
    Construction

    Examples
    --------
    The s heads approximate ``chi_I``; with the printed ``W_V^[b]`` they output 0 (erratum):

    >>> from theory.sparse_variable import lemma_a19
    >>> b = (0, 1, 0, 0)
    >>> c = lemma_a19(4, [1, 3], output="vector")
    >>> [str(x) for x in c.head_output(b)], [str(x) for x in c.target(b)]
    (['-29/36', '11/12'], ['-1', '1'])
    >>> [str(x) for x in lemma_a19(4, [1, 3], output="vector", thesis_wv=True).head_output(b)]
    ['0', '0']
    """
    T = _check_context(T)
    I = check_support(T, support)
    s = len(I)
    g = _check_fraction(gamma, "gamma", Fraction(0), Fraction(1))
    D = _checks.as_fraction(coherence, "coherence")
    if not 0 <= D < Fraction(1, s):
        raise InputError(f"Lemma A.19 needs coherence Delta in [0, 1/s = 1/{s}), got {D}", param="coherence")
    _check_output(output)
    thesis_wv = check_bool(thesis_wv, "thesis_wv")
    wq = RankOneSum((_unit(CLS, ("k", 0)),))
    wv = RankOneSum((_unit(("tok", 0), ("k", 0)), _unit(("tok", 1), ("k", 0), Fraction(-1))))
    if output == "scalar":
        heads: tuple[Head, ...] = (
            Head(
                wq,
                RankOneSum(tuple(_unit(("pos", i), ("k", 0)) for i in I)),
                wv,
                RankOneSum((_unit(("k", 0), ("out", 0)),)),
            ),
        )
    else:
        kv = 1 if thesis_wv else 0
        wv_b = RankOneSum((_unit(("tok", 0), ("k", kv)), _unit(("tok", 1), ("k", kv), Fraction(-1))))
        heads = tuple(
            Head(wq, RankOneSum((_unit(("pos", i), ("k", 0)),)), wv_b, RankOneSum((_unit(("k", 0), ("out", j)),)))
            for j, i in enumerate(I)
        )
    positions = tuple({("pos", t): _ONE} for t in range(T))
    return Construction("A.19", "deterministic", output, T, I, heads, positions, g, D, r_a19(T, s, g, D), thesis_wv)


@fill_doc(_DOC)
def r_a19_coherent(T: int, s: int, gamma: Fraction, coherence: Fraction) -> sympy.Expr:
    """``R = log(8T/gamma) (1 - (s-1) Delta) / (1 - (2s-1) Delta)``: the score scale of :func:`lemma_a19_coherent`
    (relevant scores exactly R, others at most ``R s Delta/(1 - (s-1) Delta)``, so Lemma A.24 applies with the gap
    ``R (1 - (2s-1) Delta)/(1 - (s-1) Delta) = log(8T/gamma)``).

    {{r_a19_coherent}}

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import r_a19_coherent
    >>> r_a19_coherent(4, 2, Fraction(1), Fraction(1, 4))
    3*log(32)
    >>> r_a19_coherent(4, 2, Fraction(1), Fraction(0))
    log(32)
    """
    T, s, g, D = _score_scale_args(T, s, gamma, coherence)
    if (2 * s - 1) * D >= 1:
        raise InputError(
            f"the coherent construction needs (2s - 1) Delta < 1, got {(2 * s - 1) * D}", param="coherence"
        )
    return sympy.log(8 * T / g) * (1 - (s - 1) * D) / (1 - (2 * s - 1) * D)


def _matrix(rows: object, name: str, n_rows: int, n_cols: int) -> list[list[Fraction]]:
    """An ``n_rows x n_cols`` matrix of rationals (checked before the entries are converted)."""
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__") or len(rows) != n_rows:
        raise InputError(f"{name} must be {n_rows} x {n_cols}, got {rows!r:.80}", param=name)
    out = []
    for row in rows:  # type: ignore[attr-defined]
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != n_cols:
            raise InputError(f"{name} must be {n_rows} x {n_cols}, got a row {row!r:.80}", param=name)
        out.append([_checks.as_fraction(x, name) for x in row])
    return out


def _solve(G: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Exact Gaussian elimination for a small nonsingular system."""
    n = len(G)
    A = [[*map(Fraction, row), Fraction(r)] for row, r in zip(G, rhs)]
    for i in range(n):
        piv = next(r for r in range(i, n) if A[r][i] != 0)
        A[i], A[piv] = A[piv], A[i]
        for r in range(n):
            if r != i and A[r][i] != 0:
                f = A[r][i] / A[i][i]
                A[r] = [a - f * b for a, b in zip(A[r], A[i])]
    return [A[i][n] / A[i][i] for i in range(n)]


@fill_doc(_DOC)
def lemma_a19_coherent(
    T: int, support: Sequence[int], gamma: Fraction, gram: Sequence[Sequence[Fraction]], coherence: Fraction
) -> Construction:
    """A corrected single head of Lemma A.19 for positional vectors of coherence ``Delta > 0``.

    The printed ``W_K = v_I e_1^T`` gives relevant position t the score ``R (1 + sum_{i in I, i != t} <v_i, v_t>)``,
    which differ between relevant positions by up to ``2 R (s-1) Delta``; with ``R ~ log T`` the attention is far
    from uniform on I (docs/sparse_variable.md). Here ``W_K = sum_i alpha_i v_i e_1^T`` with ``G_II alpha = 1``
    (``gram`` = the exact Gram matrix of the relevant vectors), so every relevant score is exactly R, and R is
    :func:`r_a19_coherent`. Needs ``Delta < 1/(2s - 1)``.

    {{T_support_gamma}}
    gram : s x s sequence of Fraction
        Exact inner products ``<v_i, v_j>`` of the relevant positional vectors (unit diagonal).
    coherence : Fraction
        ``Delta``, ``0 <= Delta < 1/(2s - 1)``.

    Returns
    -------
    Construction
        One scalar head, ``variant="coherent"``.

    Examples
    --------
    With ``<v_0, v_1> = 1/10`` the key weights are ``alpha = (10/11, 10/11)``, so both relevant scores are R:

    >>> from fractions import Fraction
    >>> from theory.sparse_variable import lemma_a19_coherent
    >>> d = Fraction(1, 10)
    >>> c = lemma_a19_coherent(3, [0, 1], Fraction(1), [[1, d], [d, 1]], d)
    >>> [str(a) for a, _, _ in c.heads[0].W_K.terms], c.R
    (['10/11', '10/11'], 9*log(24)/7)
    """
    T = _check_context(T)
    I = check_support(T, support)
    s = len(I)
    g = _check_fraction(gamma, "gamma", Fraction(0), Fraction(1))
    D = _checks.as_fraction(coherence, "coherence")
    if not 0 <= D < Fraction(1, 2 * s - 1):
        raise InputError(
            f"the corrected head needs coherence Delta in [0, 1/(2s - 1) = 1/{2 * s - 1}), got {D}", param="coherence"
        )
    G = _matrix(gram, "gram", s, s)
    if any(G[i][i] != 1 for i in range(s)):
        raise InputError(
            f"gram must be the s x s Gram matrix (unit diagonal) of the relevant vectors, s = {s}", param="gram"
        )
    try:
        alpha = _solve(G, [Fraction(1)] * s)
    except StopIteration:
        raise InputError(
            "gram is singular: the relevant positional vectors must be linearly independent", param="gram"
        ) from None
    wq = RankOneSum((_unit(CLS, ("k", 0)),))
    wk = RankOneSum(tuple(_unit(("pos", i), ("k", 0), a) for i, a in zip(I, alpha)))
    wv = RankOneSum((_unit(("tok", 0), ("k", 0)), _unit(("tok", 1), ("k", 0), Fraction(-1))))
    head = Head(wq, wk, wv, RankOneSum((_unit(("k", 0), ("out", 0)),)))
    positions = tuple({("pos", t): _ONE} for t in range(T))
    R = r_a19_coherent(T, s, g, D)
    return Construction("A.19", "deterministic", "scalar", T, I, (head,), positions, g, D, R, variant="coherent")


@fill_doc(_DOC)
def lemma_a20(T: int, support: Sequence[int], gamma: Fraction = Fraction(1), output: str = "scalar") -> Construction:
    """Lemma A.20 (trainable positional table P): scalar: ``P_i = v_1`` on I, 0 elsewhere, ``W_K = v_1 e_1^T``;
    vector: ``P_i = e_{n(i)}`` on I, head b has ``W_K^[b] = e_b e_1^T``; ``W_Q, W_V, W_C`` as in Lemma A.19 and
    ``R = log(8T/gamma)``.

    {{T_support_gamma_output}}

    Returns
    -------
    Construction

    Examples
    --------
    >>> from theory.sparse_variable import lemma_a20, worst_case_error
    >>> c = lemma_a20(4, [1, 3])
    >>> c.R, worst_case_error(c)
    (log(32), Fraction(5, 67))
    """
    T = _check_context(T)
    I = check_support(T, support)
    g = _check_fraction(gamma, "gamma", Fraction(0), Fraction(1))
    _check_output(output)
    wq = RankOneSum((_unit(CLS, ("k", 0)),))
    wv = RankOneSum((_unit(("tok", 0), ("k", 0)), _unit(("tok", 1), ("k", 0), Fraction(-1))))
    index = {i: j for j, i in enumerate(I)}
    if output == "scalar":
        positions = tuple({("pos", 0): Fraction(1)} if t in index else {} for t in range(T))
        heads: tuple[Head, ...] = (
            Head(wq, RankOneSum((_unit(("pos", 0), ("k", 0)),)), wv, RankOneSum((_unit(("k", 0), ("out", 0)),))),
        )
    else:
        positions = tuple({("pos", index[t]): Fraction(1)} if t in index else {} for t in range(T))
        heads = tuple(
            Head(wq, RankOneSum((_unit(("pos", j), ("k", 0)),)), wv, RankOneSum((_unit(("k", 0), ("out", j)),)))
            for j in range(len(I))
        )
    return Construction("A.20", "trainable", output, T, I, heads, positions, g, Fraction(0), r_a20(T, g))


@fill_doc(_DOC)
def lemma_a21(
    T: int,
    support: Sequence[int],
    gamma: Fraction | None = None,
    output: str = "scalar",
    coherence: Fraction = Fraction(0),
) -> Construction:
    """Lemma A.21 (bag of vectors, rows ``b_t v_t``): one head with ``W_Q = R v_CLS e_1^T``,
    ``W_K = (v_I + v_CLS) e_1^T``, ``W_V = sum_i v_i e_{n(i)}^T - v_CLS (sum_i e_{n(i)})^T`` and ``W_C = sum_i e_{n(i)}
    e_1^T`` (scalar: approximates ``(r - s)/(r + 1)``) or ``W_C = sum_i e_{n(i)} e_{n(i)}^T`` (vector: approximates
    ``(b_i - 1)/(r + 1)``). ``gamma`` must satisfy ``s Delta < gamma < 1``; default ``1/(s + 1)``.

    {{T_support}}
    gamma : Fraction, optional
        Approximation parameter (default ``1/(s + 1)``).
    output : "scalar" | "vector"
        Approximate ``g`` or ``g'``.
    coherence : Fraction
        ``Delta`` the weights assume, ``0 <= Delta < 1/s``.

    Returns
    -------
    Construction

    Examples
    --------
    With ``r = 1`` of ``s = 2`` relevant bits set, ``g = (r - s)/(r + 1) = -1/2``:

    >>> from theory.sparse_variable import lemma_a21
    >>> c = lemma_a21(4, [1, 3])
    >>> c.gamma, c.R
    (Fraction(1, 3), log(192))
    >>> print(c.head_output((1, 1, 0, 0))[0], c.target((1, 1, 0, 0))[0])
    -64/129 -1/2
    """
    T = _check_context(T)
    I = check_support(T, support)
    s = len(I)
    D = _checks.as_fraction(coherence, "coherence")
    if not 0 <= D < Fraction(1, s):
        raise InputError(f"Lemma A.21 needs coherence Delta in [0, 1/s = 1/{s}), got {D}", param="coherence")
    g = Fraction(1, s + 1) if gamma is None else _checks.as_fraction(gamma, "gamma")
    if not s * D < g < 1:
        raise InputError(f"Lemma A.21 needs s Delta < gamma < 1, got gamma = {g} (s Delta = {s * D})", param="gamma")
    _check_output(output)
    wq = RankOneSum((_unit(CLS, ("k", 0)),))
    wk = RankOneSum((*tuple(_unit(("pos", i), ("k", 0)) for i in I), _unit(CLS, ("k", 0))))
    wv = RankOneSum(
        tuple(_unit(("pos", i), ("k", j)) for j, i in enumerate(I))
        + tuple(_unit(CLS, ("k", j), Fraction(-1)) for j in range(s))
    )
    if output == "scalar":
        wc = RankOneSum(tuple(_unit(("k", j), ("out", 0)) for j in range(s)))
    else:
        wc = RankOneSum(tuple(_unit(("k", j), ("out", j)) for j in range(s)))
    positions = tuple({("pos", t): _ONE} for t in range(T))
    return Construction("A.21", "bag", output, T, I, (Head(wq, wk, wv, wc),), positions, g, D, r_a21(T, s, g, D))


@fill_doc(_DOC)
def stated_head_bounds(c: Construction) -> dict[str, sympy.Expr]:
    """The norm bounds the lemma states for each head (Frobenius; ``P`` in the ``(2,1)`` norm for Lemma A.20).

    A.19: ``||W_Q|| <= log(8T/gamma)/(1 - s Delta)``, ``||W_K|| <= s`` (scalar) or ``1`` (per head), ``||W_V|| <= 2``,
    ``||W_C|| <= 1``. A.20: ``||P^T||_{2,1} <= s``, ``||W_Q|| <= log(8T/gamma)``, ``||W_K|| <= 1``, ``||W_V|| <= 2``,
    ``||W_C|| <= 1``. A.21: ``||W_Q|| <= log(8Ts(1+Delta)/(gamma - s Delta))/(1 - s Delta)``, ``||W_K|| <= s + 1``,
    ``||W_V|| <= 2s``, ``||W_C|| <= s``.

    {{construction_norms}}

    Examples
    --------
    The stated bounds hold for the constructed weights (:func:`exact_head_norms`):

    >>> from theory.sparse_variable import exact_head_norms, lemma_a19, stated_head_bounds
    >>> c = lemma_a19(4, [1, 3])
    >>> stated_head_bounds(c)
    {'W_Q': log(32), 'W_K': 2, 'W_V': 2, 'W_C': 1}
    >>> exact = exact_head_norms(c)
    >>> all(exact[k] <= v for k, v in stated_head_bounds(c).items())
    True
    """
    _check_construction(c)
    s = c.s
    if c.lemma == "A.19":
        return {
            "W_Q": r_a19(c.T, s, c.gamma, c.coherence),
            "W_K": sympy.Integer(s if c.output == "scalar" else 1),
            "W_V": sympy.Integer(2),
            "W_C": sympy.Integer(1),
        }
    if c.lemma == "A.20":
        return {
            "P_21": sympy.Integer(s),
            "W_Q": r_a20(c.T, c.gamma),
            "W_K": sympy.Integer(1),
            "W_V": sympy.Integer(2),
            "W_C": sympy.Integer(1),
        }
    return {
        "W_Q": r_a21(c.T, s, c.gamma, c.coherence),
        "W_K": sympy.Integer(s + 1),
        "W_V": sympy.Integer(2 * s),
        "W_C": sympy.Integer(s),
    }


@fill_doc(_DOC)
def exact_head_norms(c: Construction) -> dict[str, sympy.Expr]:
    """The Frobenius norms of the constructed weights of the first head (all heads have equal norms), and
    ``||P^T||_{2,1} = sum_t ||P_t||`` for a trainable table, for an orthonormal basis (exact sympy).

    {{construction_norms}}

    Examples
    --------
    >>> from theory.sparse_variable import exact_head_norms, lemma_a20, lemma_a21
    >>> exact_head_norms(lemma_a20(4, [1, 3]))
    {'P_21': 2, 'W_Q': log(32), 'W_K': 1, 'W_V': sqrt(2), 'W_C': 1}
    >>> exact_head_norms(lemma_a21(4, [1, 3]))
    {'W_Q': log(192), 'W_K': sqrt(3), 'W_V': 2, 'W_C': sqrt(2)}
    """
    _check_construction(c)
    h = c.heads[0]
    out = {
        "W_Q": c.R * sympy.sqrt(sympy.Rational(h.W_Q_unit.frobenius_sq())),
        "W_K": sympy.sqrt(sympy.Rational(h.W_K.frobenius_sq())),
        "W_V": sympy.sqrt(sympy.Rational(h.W_V.frobenius_sq())),
        "W_C": sympy.sqrt(sympy.Rational(h.W_C.frobenius_sq())),
    }
    if c.lemma == "A.20":
        squares = Counter(sum((v * v for v in row.values()), Fraction(0)) for row in c.positions)
        out = {"P_21": sum((n * sympy.sqrt(sympy.Rational(q)) for q, n in squares.items()), sympy.Integer(0)), **out}
    return out


def head_norm_closed_forms(lemma: str, output: str, T: int, s: int, gamma: Fraction) -> dict[str, sympy.Expr]:
    r"""The Frobenius norms of the weights the proofs of Lemmas A.19-A.21 write down, in closed form, for
    orthonormal positional vectors (``Delta = 0``), from the parameters alone (no construction is built).

    Every weight is a sum of outer products of orthonormal unit vectors, so its squared Frobenius norm is the sum of
    its squared coefficients:

    * A.19 (proof of Lemma A.19): ``W_Q = R v_CLS e_1^T`` gives ``R = log(8T/gamma)``; ``W_K = v_I e_1^T`` gives
      ``||v_I|| = sqrt(s)`` (one head) or ``W_K^[b] = v_{n^-1(b)} e_1^T`` gives 1 (s heads);
      ``W_V = (E_0 - E_1) e_1^T`` gives ``sqrt(2)``; ``W_C = e_1 e_b^T`` gives 1.
    * A.20 (proof of Lemma A.20): ``||P^T||_{2,1} = s`` (``P_i = v_1`` or ``e_{n(i)}`` on I, 0 elsewhere);
      ``R = log(8T/gamma)``; ``W_K = v_1 e_1^T`` or ``e_b e_1^T``: 1; ``W_V``: ``sqrt(2)``; ``W_C``: 1.
    * A.21 (proof of Lemma A.21): ``R = log(8Ts/gamma)`` (``log(8Ts(1 + Delta)/(gamma - s Delta))/(1 - s Delta)``
      at ``Delta = 0``); ``W_K = (v_I + v_CLS) e_1^T``: ``sqrt(s + 1)``;
      ``W_V = sum_i v_i e_{n(i)}^T - v_CLS (sum_i e_{n(i)})^T``: ``sqrt(2s)``; ``W_C = sum_i e_{n(i)} e_1^T`` (scalar)
      or ``sum_i e_{n(i)} e_{n(i)}^T`` (vector): ``sqrt(s)``.

    Parameters
    ----------
    lemma : "A.19" | "A.20" | "A.21"
    output : "scalar" | "vector"
    T, s : context length ``T >= 1`` and sparsity ``1 <= s <= T``
    gamma : the approximation parameter, ``0 < gamma <= 1`` (A.19, A.20) or ``0 < gamma < 1`` (A.21)

    Returns
    -------
    dict with keys ``"W_Q", "W_K", "W_V", "W_C"`` (and ``"P_21"`` first for A.20), exact sympy numbers.

    Raises
    ------
    ValueError
        An unknown lemma or output, ``T``/``s`` out of range, or ``gamma`` outside the lemma's range.

    Examples
    --------
    The closed forms equal the norms of the built construction:

    >>> from fractions import Fraction
    >>> from theory.sparse_variable import exact_head_norms, head_norm_closed_forms, lemma_a19
    >>> head_norm_closed_forms("A.19", "scalar", 4, 2, Fraction(1))
    {'W_Q': log(32), 'W_K': sqrt(2), 'W_V': sqrt(2), 'W_C': 1}
    >>> _ == exact_head_norms(lemma_a19(4, [1, 3]))
    True
    """
    if not isinstance(lemma, str) or lemma not in ("A.19", "A.20", "A.21"):
        raise InputError(f"lemma must be 'A.19', 'A.20' or 'A.21', got {lemma!r:.80}", param="lemma")
    _check_output(output)
    T, s = check_sparsity(T, s)
    g = _check_fraction(gamma, "gamma", Fraction(0), Fraction(1), closed_hi=lemma != "A.21")
    G = sympy.Rational(g.numerator, g.denominator)
    sq = sympy.sqrt
    if lemma == "A.21":
        return {"W_Q": sympy.log(8 * T * s / G), "W_K": sq(s + 1), "W_V": sq(2 * s), "W_C": sq(s)}
    out = {
        "W_Q": sympy.log(8 * T / G),
        "W_K": sq(s) if (lemma == "A.19" and output == "scalar") else sympy.Integer(1),
        "W_V": sq(2),
        "W_C": sympy.Integer(1),
    }
    if lemma == "A.20":
        return {"P_21": sympy.Integer(s), **out}
    return out


@fill_doc(_DOC)
def worst_case_error(c: Construction) -> Fraction:
    r"""The exact ``max_b max_j |head(b)_j - g(b)_j|`` for an orthonormal basis (``q = e^R``).

    A.19/A.20, scalar: ``(2T - 2s + 1)/(s q + T - s + 1)`` (all relevant bits 1, all others 0); vector (one position
    per head): ``(2T - 1)/(q + T)``. A.21 (the error depends on b only through ``r``): scalar
    ``max_r (s - r)(T - r)/((r + 1)(q (r + 1) + T - r))``, vector ``max_{r < s} (T - r)/((r + 1)(q (r + 1) + T - r))``.
    Derivations: ``docs/sparse_variable.md``; tests compare them with every input for small T.

    Parameters
    ----------
    c : Construction
        Orthonormal basis (coherence 0); not the printed ``thesis_wv`` s-head construction.

    {{fraction_or_error}}
        ``c.thesis_wv`` is set, or the coherence is not 0.

    Examples
    --------
    ``(2T - 2s + 1)/(s q + T - s + 1)`` with ``q = 32``, attained at :func:`worst_case_input`, below ``gamma/4``:

    >>> from theory.sparse_variable import lemma_a19, worst_case_error, worst_case_input
    >>> c = lemma_a19(4, [1, 3])
    >>> worst_case_error(c)
    Fraction(5, 67)
    >>> b = worst_case_input(c)
    >>> abs(c.head_output(b)[0] - c.target(b)[0]) == worst_case_error(c) < c.gamma / 4
    True
    """
    _check_construction(c)
    q, T, s = c.exp_R, c.T, c.s
    if c.thesis_wv:
        raise ValueError("no closed form for the printed (zero-output) s-head construction")
    if c.lemma in ("A.19", "A.20"):
        if c.output == "scalar":
            return Fraction(2 * T - 2 * s + 1) / (s * q + T - s + 1)
        return Fraction(2 * T - 1) / (q + T)
    if c.output == "scalar":
        return max(Fraction((s - r) * (T - r)) / ((r + 1) * (q * (r + 1) + T - r)) for r in range(s + 1))
    return max(Fraction(T - r) / ((r + 1) * (q * (r + 1) + T - r)) for r in range(s))


def worst_case_input(c: Construction) -> tuple[int, ...]:
    """A context attaining :func:`worst_case_error`: A.19/A.20 all relevant bits 1 and all others 0 (scalar) or
    only the first relevant bit 1 (vector: that head sees chi = -1 there and +1 everywhere else); A.21 all bits 0 (r = 0; for the scalar case the maximising r is
    0 whenever ``q >= T``, which the chosen R ensures).

    Parameters
    ----------
    c : Construction

    Returns
    -------
    tuple of int
        A context ``b in {0,1}^T``.

    Examples
    --------
    >>> from theory.sparse_variable import lemma_a19, lemma_a21, worst_case_input
    >>> worst_case_input(lemma_a19(4, [1, 3])), worst_case_input(lemma_a19(4, [1, 3], output="vector"))
    ((0, 1, 0, 1), (0, 1, 0, 0))
    >>> worst_case_input(lemma_a21(4, [1, 3]))
    (0, 0, 0, 0)
    """
    _check_construction(c)
    I = set(c.support)
    if c.lemma == "A.21":
        return tuple(0 for _ in range(c.T))
    if c.output == "scalar":
        return tuple(1 if t in I else 0 for t in range(c.T))
    return tuple(1 if t == c.support[0] else 0 for t in range(c.T))


def score_coefficients(c: Construction, cross_gram: Sequence[Sequence[Fraction]]) -> list[Fraction]:
    r"""``kappa_t = score_t / R`` of the single scalar head of Lemma A.19 (printed or :func:`lemma_a19_coherent`) for
    positional vectors with the given inner products: ``W_K = sum_i alpha_i v_i e_1^T`` gives
    ``kappa_t = sum_{i in I} alpha_i <v_i, v_t>``; the token vectors are orthogonal to every ``v_i`` (App. A.2.1), so
    the scores do not depend on b.

    Parameters
    ----------
    c : a one-head scalar construction of the deterministic mapping
    cross_gram : ``s x T`` exact inner products, row j: ``<v_{I_j}, v_t>`` for ``t = 0..T-1``

    Returns
    -------
    list of Fraction
        ``kappa_t`` for ``t = 0..T-1``.

    Raises
    ------
    ValueError
        Another construction, or ``cross_gram`` of the wrong shape.

    Examples
    --------
    With ``<v_0, v_1> = 1/10`` the printed ``W_K = v_I e_1^T`` scores the relevant positions ``R (1 + 1/10)``; the
    corrected head of :func:`lemma_a19_coherent` scores them exactly R:

    >>> from fractions import Fraction
    >>> from theory.sparse_variable import lemma_a19, lemma_a19_coherent, score_coefficients
    >>> d = Fraction(1, 10)
    >>> cross = [[1, d, 0], [d, 1, 0]]
    >>> [str(k) for k in score_coefficients(lemma_a19(3, [0, 1]), cross)]
    ['11/10', '11/10', '0']
    >>> c = lemma_a19_coherent(3, [0, 1], Fraction(1), [[1, d], [d, 1]], d)
    >>> [str(k) for k in score_coefficients(c, cross)]
    ['1', '1', '0']
    """
    _check_construction(c)
    if c.mapping != "deterministic" or c.output != "scalar" or len(c.heads) != 1:
        raise InputError("score_coefficients needs the one-head scalar construction of Lemma A.19", param="c")
    if isinstance(cross_gram, (str, bytes)) or not hasattr(cross_gram, "__len__") or len(cross_gram) != c.s:
        raise InputError(f"cross_gram must be s x T = {c.s} x {c.T}, got {cross_gram!r:.80}", param="cross_gram")
    G = _matrix(cross_gram, "cross_gram", c.s, c.T)
    q = c.heads[0].W_Q_unit.apply_left({CLS: _ONE})
    coef = {i: Fraction(0) for i in c.support}
    for a, u, w in c.heads[0].W_K.terms:
        if u[0] != "pos" or u[1] not in coef:
            raise ValueError(f"W_K must read relevant positional vectors only, got {u}")
        coef[u[1]] += a * q.get(w, Fraction(0))
    return [sum((coef[i] * G[j][t] for j, i in enumerate(c.support)), Fraction(0)) for t in range(c.T)]


def fixed_score_worst_case_error(
    kappa: Sequence[Fraction], support: Sequence[int], R: sympy.Expr, digits: int = 50
) -> sympy.Float:
    r"""The exact ``max_{b in {0,1}^T} |head(b) - g(b)|`` of a scalar head whose scores ``R kappa_t`` do not depend
    on b, with value ``chi_t`` on token t, the [CLS] row at score 0 and value 0, and ``g = (1/s) sum_{i in I} chi_i``
    (Lemma A.19; for the coherent heads see :func:`score_coefficients`), evaluated to ``digits`` digits.

    With ``p_t = e^{R kappa_t} / (1 + sum_u e^{R kappa_u})`` the error is ``sum_t c_t chi_t`` with
    ``c_t = p_t - 1/s`` on I and ``p_t`` off I; the signs ``chi_t`` are free, so the largest error is
    ``sum_{t in I} |p_t - 1/s| + sum_{t not in I} p_t``, attained at ``chi_t = sign(c_t)``. For an orthonormal basis
    (``kappa = 1`` on I, 0 elsewhere, ``e^R = q``) it is ``(2T - 2s + 1)/(s q + T - s + 1)``
    (:func:`worst_case_error`).

    Parameters
    ----------
    kappa : sequence of Fraction
        ``score_t / R`` for ``t = 0..T-1`` (rational).
    support : sequence of int
        The relevant positions I.
    R : sympy.Expr
        The score scale (a number).
    digits : int
        Significant digits of the result, at least 15.

    Returns
    -------
    sympy.Float

    Raises
    ------
    ValueError
        ``support`` not a set of positions of ``[0, len(kappa))``, ``digits < 15``, or a non-rational ``kappa`` entry.

    Examples
    --------
    For an orthonormal basis it is the closed form of :func:`worst_case_error`, ``3/50`` here:

    >>> from theory.sparse_variable import fixed_score_worst_case_error, lemma_a19, worst_case_error
    >>> c = lemma_a19(3, [0, 1])
    >>> fixed_score_worst_case_error([1, 1, 0], [0, 1], c.R, digits=20), worst_case_error(c)
    (0.060000000000000000000, Fraction(3, 50))
    """
    digits = _as_int(digits, "digits")
    if digits < 15:
        raise InputError(f"digits must be >= 15, got {format_count(digits)}", param="digits")
    check_cost(
        digits,
        MAX_DIGITS,
        param="digits",
        value=digits,
        what="the working precision",
        hint="50 digits (the default) separate the errors of every construction here",
    )
    if isinstance(kappa, (str, bytes)) or not hasattr(kappa, "__len__"):
        raise InputError(f"kappa must be a sequence of rationals, got {kappa!r:.80}", param="kappa")
    T = len(kappa)
    check_cost(T, MAX_CONTEXT, param="kappa", value=T, what="the context length len(kappa)", hint="use a smaller T")
    I = set(check_support(T, support))
    R_ = _checks.as_number(R, "R", symbolic=False)  # never sympify a caller's string
    ks = []
    for k in kappa:
        k_ = _checks.as_number(k, "kappa entry", symbolic=False)
        if isinstance(k, float):  # a finite float is an exact binary rational
            k_ = sympy.Rational(*Fraction(k).as_integer_ratio())
        if not k_.is_Rational:
            raise InputError(f"kappa entries must be rational (score / R), got {k_}", param="kappa")
        ks.append(Fraction(int(k_.p), int(k_.q)))
    k_max = max((abs(k) for k in ks), default=Fraction(0))
    largest = sympy.Rational(k_max.numerator, k_max.denominator) * abs(R_)
    if bool(largest > 10**MAX_SCORE_LOG10):
        raise LimitError(
            f"R = {sympy.N(R_, 6)} is too large: the scores R kappa_t reach {sympy.N(largest, 3)}, above the limit "
            f"10^{MAX_SCORE_LOG10} (R = log(8T/gamma)/(1 - s Delta) is a few dozen for the constructions)",
            param="R",
            value=R_,
            limit=10**MAX_SCORE_LOG10,
        )
    with mpmath.workdps(digits + 10):
        r = mpmath.mpf(str(sympy.N(R_, digits + 20)))
        w = [mpmath.exp(r * mpmath.mpf(k.numerator) / k.denominator) for k in ks]
        Z = mpmath.fsum(w) + 1
        inv_s = mpmath.mpf(1) / len(I)
        err = mpmath.fsum(abs(w[t] / Z - inv_s) if t in I else w[t] / Z for t in range(T))
        return sympy.Float(mpmath.nstr(err, digits), digits)


# --------------------------------------------------------------------------------------------- Lemma A.25


@dataclass(frozen=True)
class ReluNet:
    """The 3-layer ReLU network of Lemma A.25, ``f(x) = relu([relu([x 1] W1) 1] W2) w`` (exact rationals).

    ``W1`` is ``(d_f + 1) x 4 n d_f`` (last row: biases), ``W2`` is ``(4 n d_f + 1) x 2n``, ``w`` has ``2n`` entries.
    Column ``(b, i, j)`` of W1 is ``4 (i d_f + j) + b``; column ``(b', i')`` of W2 is ``2 i' + b'``.

    Attributes
    ----------
    W1, W2 : tuple of tuple of Fraction
        The two hidden layers, biases in the last row.
    w : tuple of Fraction
        Output weights.
    delta : Fraction
        Half-width of the boxes.
    points : tuple of tuple of Fraction
        The interpolation points.
    values : tuple of Fraction
        The value on the box around each point.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import relu_interpolation_net
    >>> net = relu_interpolation_net([[0], [1]], [3, -2], Fraction(1, 4))
    >>> net.d_f, len(net.W1[0]), len(net.w)
    (1, 8, 4)
    >>> print(net([Fraction(1, 4)]), net([Fraction(1, 2)]), net([1]))
    3 0 -2
    """

    W1: tuple[tuple[Fraction, ...], ...]
    W2: tuple[tuple[Fraction, ...], ...]
    w: tuple[Fraction, ...]
    delta: Fraction
    points: tuple[tuple[Fraction, ...], ...]
    values: tuple[Fraction, ...]

    @property
    def d_f(self) -> int:
        return len(self.W1) - 1

    def __call__(self, x: Sequence[Fraction]) -> Fraction:
        """The exact output at ``x``."""
        if isinstance(x, (str, bytes)) or not hasattr(x, "__len__") or len(x) != self.d_f:
            raise InputError(f"x must have d_f = {self.d_f} entries, got {x!r:.80}", param="x")
        xs = [_checks.as_fraction(v, "x") for v in x] + [Fraction(1)]
        h1 = [
            max(Fraction(0), sum((xs[r] * self.W1[r][c] for r in range(len(xs)) if self.W1[r][c]), Fraction(0)))
            for c in range(len(self.W1[0]))
        ] + [Fraction(1)]
        h2 = [
            max(
                Fraction(0),
                sum((h1[r] * self.W2[r][c] for r in range(len(h1)) if self.W2[r][c] and h1[r]), Fraction(0)),
            )
            for c in range(len(self.W2[0]))
        ]
        return sum((a * b for a, b in zip(h2, self.w)), Fraction(0))


def relu_interpolation_net(
    points: Sequence[Sequence[Fraction]], values: Sequence[Fraction], delta: Fraction, bump: str = "corrected"
) -> ReluNet:
    r"""Lemma A.25: a 3-layer ReLU network equal to ``values[i]`` on the box ``||x - points[i]||_inf <= delta``.

    Layer 1 builds, per point i and coordinate j, a bump of ``u = (x_j - x_ij)/delta`` from four ReLUs combined with
    signs ``(1, -1, -1, 1)``. ``bump="corrected"``: ``(u + 2)_+ - (u + 1)_+ - (u - 1)_+ + (u - 2)_+``, i.e.
    ``v(y) - v(y - 3 delta)`` with ``v(y) = (y/delta + 1)_+ - (y/delta)_+`` and ``y = x_j - x_ij + delta``: 1 on
    ``|u| <= 1``, 0 for ``|u| >= 2``. ``bump="printed"``: the proof's ``(u + 2)_+ - (u + 1)_+ - (2 - u)_+ + (1 - u)_+``
    (``v(y) - v(2 delta - y)``), which is 0 for ``|u| <= 1``, -1 for ``u <= -2`` and +1 for ``u >= 2``: not a bump
    (docs/sparse_variable.md). Layer 2 forms ``(sum_j psi/delta + 1 - d_f/delta)_+ - (sum_j psi/delta - d_f/delta)_+``
    (1 iff every bump is 1, 0 once one coordinate is ``2 delta`` away, as ``delta <= 1``); the output weights are
    ``+-values[i]``.

    Raises
    ------
    Parameters
    ----------
    points : sequence of sequence of Fraction
        n points of ``d_f`` coordinates each, pairwise at least ``4 delta`` apart in the sup norm.
    values : sequence of Fraction
        The value at each point.
    delta : Fraction
        Half-width of the boxes, ``0 < delta <= 1``.
    bump : "corrected" | "printed"
        The bump of layer 1.

    Returns
    -------
    ReluNet

    Raises
    ------
    ValueError
        Points of different lengths, ``len(values) != len(points)``, ``delta`` not in (0, 1], an unknown ``bump``, or
        two points closer than ``4 delta`` in the sup norm (the lemma's hypothesis).

    Examples
    --------
    The network is ``values[i]`` on the whole box; the printed bump misses the value at the point itself:

    >>> from fractions import Fraction
    >>> from theory.sparse_variable import relu_interpolation_net
    >>> net = relu_interpolation_net([[0], [1]], [3, -2], Fraction(1, 4))
    >>> [str(net([x])) for x in (Fraction(-1, 4), 0, Fraction(1, 4), Fraction(3, 4), 1)]
    ['3', '3', '3', '-2', '-2']
    >>> print(relu_interpolation_net([[0], [1]], [3, -2], Fraction(1, 4), bump="printed")([0]))
    0
    >>> relu_interpolation_net([[0], [Fraction(1, 2)]], [3, -2], Fraction(1, 4))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: points 0 and 1 are closer than 4 delta = 1 (Lemma A.25's hypothesis)
    """
    for name, seq in (("points", points), ("values", values)):
        if isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__") or not len(seq):
            raise InputError(f"{name} must be a non-empty sequence, got {seq!r:.80}", param=name)
    if any(isinstance(p, (str, bytes)) or not hasattr(p, "__len__") for p in points):
        raise InputError("points must be sequences of coordinates", param="points")
    n, d_f = len(points), len(points[0])
    if len(values) != n or any(len(p) != d_f for p in points) or d_f < 1:
        raise InputError("need one value per point and points of one common length >= 1", param="values")
    _check_mlp(n, d_f, "points", f"{format_count(n)} points of {format_count(d_f)} coordinates")
    pts = [tuple(_checks.as_fraction(v, "points") for v in p) for p in points]
    vals = [_checks.as_fraction(v, "values") for v in values]
    dl = _check_fraction(delta, "delta", Fraction(0), Fraction(1))
    if bump not in ("corrected", "printed"):
        raise InputError(f"bump must be 'corrected' or 'printed', got {bump!r:.80}", param="bump")
    for a, b in itertools.combinations(range(n), 2):
        if max(abs(x - y) for x, y in zip(pts[a], pts[b])) < 4 * dl:
            raise InputError(
                f"points {a} and {b} are closer than 4 delta = {4 * dl} (Lemma A.25's hypothesis)", param="points"
            )
    zero = Fraction(0)
    units = ((1, 2), (1, 1), (1, -1), (1, -2)) if bump == "corrected" else ((1, 2), (1, 1), (-1, 2), (-1, 1))
    W1 = [[zero] * (4 * n * d_f) for _ in range(d_f + 1)]
    for i, p in enumerate(pts):
        for j in range(d_f):
            base = 4 * (i * d_f + j)
            for b, (sign, shift) in enumerate(units):
                W1[j][base + b] = sign / dl
                W1[d_f][base + b] = -sign * p[j] / dl + shift
    W2 = [[zero] * (2 * n) for _ in range(4 * n * d_f + 1)]
    for i in range(n):
        for j in range(d_f):
            base = 4 * (i * d_f + j)
            for b, sign in enumerate((1, -1, -1, 1)):
                W2[base + b][2 * i] = sign / dl
                W2[base + b][2 * i + 1] = sign / dl
        W2[4 * n * d_f][2 * i] = 1 - d_f / dl
        W2[4 * n * d_f][2 * i + 1] = -d_f / dl
    w = []
    for v in vals:
        w += [v, -v]
    return ReluNet(tuple(map(tuple, W1)), tuple(map(tuple, W2)), tuple(w), dl, tuple(pts), tuple(vals))


def stated_mlp_bounds(net: ReluNet, lemma: str = "A.25", gamma: Fraction | None = None) -> dict[str, Fraction]:
    """Entry bounds (largest absolute entry) as printed. ``"A.25"``: ``||W1|| <= max(1, B)/delta``,
    ``||W2|| <= d_f/delta``, ``||w|| <= max |f|``; ``"A.22"/"A.23"``: ``8 max(1, B)/gamma``, ``8 s/gamma``, ``max |f|``
    with B the largest coordinate of the points and s = 1 (A.22: one input) or the number of inputs (A.23).

    Parameters
    ----------
    net : ReluNet
    lemma : "A.25" | "A.22" | "A.23"
        Whose statement.
    gamma : Fraction, optional
        Needed for A.22 and A.23.

    Returns
    -------
    dict of str to Fraction
        Keys ``"W1", "W2", "w"``.

    Raises
    ------
    ValueError
        ``gamma`` missing for A.22 or A.23.

    Examples
    --------
    The first-layer biases reach ``B/delta + 2``, above the printed ``max(1, B)/delta`` (erratum):

    >>> from fractions import Fraction
    >>> from theory.sparse_variable import mlp_max_entries, relu_interpolation_net, stated_mlp_bounds
    >>> net = relu_interpolation_net([[2], [3]], [1, 0], Fraction(1, 4))
    >>> print(stated_mlp_bounds(net)["W1"], mlp_max_entries(net)["W1"])
    12 14
    """
    _check_net(net)
    if not isinstance(lemma, str) or lemma not in ("A.25", "A.22", "A.23"):
        raise InputError(f"lemma must be 'A.25', 'A.22' or 'A.23', got {lemma!r:.80}", param="lemma")
    B = max(abs(x) for p in net.points for x in p)
    fmax = max(abs(v) for v in net.values)
    if lemma == "A.25":
        return {"W1": max(Fraction(1), B) / net.delta, "W2": Fraction(net.d_f) / net.delta, "w": fmax}
    if gamma is None:
        raise InputError("Lemmas A.22/A.23 state their bounds in gamma: pass gamma", param="gamma")
    g = _checks.as_fraction(gamma, "gamma")
    if g <= 0:
        raise InputError(f"gamma must be positive (the bounds divide by it), got {g}", param="gamma")
    s = 1 if lemma == "A.22" else net.d_f
    return {"W1": 8 * max(Fraction(1), B) / g, "W2": Fraction(8 * s) / g, "w": fmax}


def mlp_max_entries(net: ReluNet) -> dict[str, Fraction]:
    """The largest absolute entry of W1, W2 and w (exact).

    Parameters
    ----------
    net : ReluNet

    Returns
    -------
    dict of str to Fraction
        Keys ``"W1", "W2", "w"``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import mlp_max_entries, relu_interpolation_net
    >>> {k: str(v) for k, v in mlp_max_entries(relu_interpolation_net([[0], [1]], [3, -2], Fraction(1, 4))).items()}
    {'W1': '6', 'W2': '4', 'w': '3'}
    """
    _check_net(net)
    return {
        "W1": max(abs(x) for row in net.W1 for x in row),
        "W2": max(abs(x) for row in net.W2 for x in row),
        "w": max(abs(x) for x in net.w),
    }


def mlp_norms(net: ReluNet) -> dict[str, sympy.Expr]:
    r"""Closed-form Frobenius norms and largest entries of the Lemma A.25 network (n points, d_f inputs, box delta).

    ``||W1||_F^2 = n d_f (4/delta^2 + 10) + 4 ||X||_F^2/delta^2`` (per (i, j): four entries ``+-1/delta`` and the biases
    ``2 -+ a``, ``1 -+ a`` with ``a = x_ij/delta``, whose squares add to ``4 a^2 + 10``);
    ``||W2||_F^2 = n (8 d_f/delta^2 + (1 - d_f/delta)^2 + (d_f/delta)^2)``; ``||w||_F^2 = 2 sum_i f_i^2``;
    largest entries ``max(1/delta, B/delta + 2)``, ``d_f/delta`` (as ``delta <= 1``) and ``max |f|``.

    Parameters
    ----------
    net : ReluNet

    Returns
    -------
    dict of str to sympy.Expr
        Keys ``"W1_F", "W2_F", "w_F"`` (Frobenius norms) and ``"W1_max", "W2_max", "w_max"``.

    Examples
    --------
    The closed form agrees with the entries of the built network:

    >>> from fractions import Fraction
    >>> from theory.sparse_variable import mlp_norms, relu_interpolation_net
    >>> net = relu_interpolation_net([[0], [1]], [3, -2], Fraction(1, 4))
    >>> norms = mlp_norms(net)
    >>> norms["W1_F"], norms["W2_F"], norms["w_F"]
    (2*sqrt(53), 3*sqrt(34), sqrt(26))
    >>> norms["W1_F"] ** 2 == sum(x * x for row in net.W1 for x in row)
    True
    """
    _check_net(net)
    n, d_f, dl = len(net.points), net.d_f, net.delta
    X2 = sum(x * x for p in net.points for x in p)
    B = max(abs(x) for p in net.points for x in p)
    w1 = n * d_f * (4 / dl**2 + 10) + 4 * X2 / dl**2
    w2 = n * (8 * d_f / dl**2 + (1 - d_f / dl) ** 2 + (d_f / dl) ** 2)
    w = 2 * sum(v * v for v in net.values)
    R = sympy.Rational
    return {
        "W1_F": sympy.sqrt(R(w1)),
        "W2_F": sympy.sqrt(R(w2)),
        "w_F": sympy.sqrt(R(w)),
        "W1_max": R(max(1 / dl, B / dl + 2)),
        "W2_max": R(d_f / dl),
        "w_max": R(max(abs(v) for v in net.values)),
    }


# --------------------------------------------------------------------------------------------- Lemmas A.22/A.23


@dataclass(frozen=True)
class SparseRepresentation:
    """Attention heads + the Lemma A.25 network: ``f_tf+mlp(X(b)) = net(sum of heads at [CLS])``.

    ``table`` maps the relevant bits (little-endian tuple in support order) to f; ``symmetric`` tables depend only
    on their sum. ``delta_rule``: "corrected" (``delta = gamma/4``) or "printed" (``delta = gamma/8``, the proofs of
    Lemmas A.22/A.23).

    Attributes
    ----------
    construction : Construction
        The attention heads.
    net : ReluNet
        The Lemma A.25 network applied to the heads' output.
    table : dict of tuple of int to Fraction
        The target function on the relevant bits.
    delta_rule : "corrected" | "printed"

    Examples
    --------
    >>> from theory.sparse_variable import symmetric_representation
    >>> rep = symmetric_representation(3, [0, 2], [5, 0, 7])
    >>> print(rep((1, 0, 1)), rep.f((1, 0, 1)))
    7 7
    """

    construction: Construction
    net: ReluNet
    table: dict[tuple[int, ...], Fraction]
    delta_rule: str

    def f(self, b: Sequence[int]) -> Fraction:
        """The target Boolean function, exactly."""
        bits = check_bits(b, self.construction.T)
        return self.table[tuple(bits[i] for i in self.construction.support)]

    def __call__(self, b: Sequence[int]) -> Fraction:
        """The network's exact output (orthonormal basis): the MLP at the exact head output (memoised)."""
        cache = self.construction._cache
        h = self.construction.head_output(b)
        key = ("net", self.delta_rule, h)
        if key not in cache:
            cache[key] = self.net(h)
        return cache[key]


def _delta(gamma: Fraction, rule: str) -> Fraction:
    if rule == "corrected":
        return gamma / 4
    if rule == "printed":
        return gamma / 8
    raise InputError(
        f"delta_rule must be 'corrected' (gamma/4) or 'printed' (gamma/8), got {rule!r:.80}", param="delta_rule"
    )


@fill_doc(_DOC)
def symmetric_representation(
    T: int,
    support: Sequence[int],
    levels: Sequence[Fraction],
    mapping: str = "deterministic",
    delta_rule: str = "corrected",
) -> SparseRepresentation:
    """Lemma A.22 with Lemma A.19 (``gamma = min(1, 2/s)``), A.20 (same) or A.21 (``gamma = 1/(s + 1)``): one head
    and the Lemma A.25 network on ``d_f = 1`` input equal ``f(b) = levels[r]``, ``r = sum_{i in I} b_i``, for every b.

    The head is ``gamma/4``-close to a ``gamma``-separated monotone function, so the network's box half-width is
    ``delta = gamma/4`` (``delta_rule="printed"``: the proof's ``gamma/8``).

    {{T_support_s}}
    levels : sequence of Fraction
        ``s + 1`` values, ``levels[r]`` for ``r`` relevant bits set.
    {{mapping_representation}}
        ``len(levels) != s + 1`` or an unknown ``mapping`` or ``delta_rule``.

    Examples
    --------
    The network equals f on every context (exact arithmetic):

    >>> from itertools import product
    >>> from theory.sparse_variable import symmetric_representation
    >>> rep = symmetric_representation(3, [0, 2], [5, 0, 7])
    >>> all(rep(b) == rep.f(b) == [5, 0, 7][b[0] + b[2]] for b in product((0, 1), repeat=3))
    True
    """
    T = _check_context(T)
    I = check_support(T, support)
    s = len(I)
    if isinstance(levels, (str, bytes)) or not hasattr(levels, "__len__") or len(levels) != s + 1:
        raise InputError(
            f"a symmetric s-sparse function needs s + 1 = {s + 1} levels, got {levels!r:.80}", param="levels"
        )
    if delta_rule not in ("corrected", "printed"):
        _delta(Fraction(1), delta_rule)  # refuses it
    _check_mlp(s + 1, 1, "support", f"{format_count(s)} relevant positions")
    level_values = [_checks.as_fraction(v, "levels") for v in levels]
    if mapping == "bag":
        c = lemma_a21(T, I, Fraction(1, s + 1), "scalar")
    elif mapping in ("deterministic", "trainable"):
        g = min(Fraction(1), Fraction(2, s))
        c = lemma_a19(T, I, g, "scalar") if mapping == "deterministic" else lemma_a20(T, I, g, "scalar")
    else:
        raise InputError(f"mapping must be one of {MAPPINGS}, got {mapping!r:.80}", param="mapping")
    pts, vals = [], []
    for value, pat in c.level_points():
        pts.append(value)
        vals.append(level_values[sum(pat)])
    net = relu_interpolation_net(pts, vals, _delta(c.gamma, delta_rule))
    pats = _bit_patterns(s, "the number of relevant bits s (a table of 2^s values)")
    table = {p: level_values[sum(p)] for p in pats}
    return SparseRepresentation(c, net, table, delta_rule)


@fill_doc(_DOC)
def general_representation(
    T: int,
    support: Sequence[int],
    table: Sequence[Fraction],
    mapping: str = "deterministic",
    delta_rule: str = "corrected",
) -> SparseRepresentation:
    """Lemma A.23 with the s-head constructions of Lemma A.19 / A.20 (``gamma = 1``; ``g' = chi_I`` is 2-injective)
    or the single bag-of-vectors head of Lemma A.21 (``gamma = 1/(s + 1)``): equal to
    ``f(b) = table[sum_j b_{I_j} 2^j]`` for every b (box half-width ``delta = gamma/4``; "printed": ``gamma/8``).

    {{T_support_s}}
    table : sequence of Fraction
        ``2^s`` values, little-endian in the relevant bits.
    {{mapping_representation}}
        ``len(table) != 2^s`` or an unknown ``mapping`` or ``delta_rule``.

    Examples
    --------
    With ``delta = gamma/4`` the network is f everywhere; the proofs' ``gamma/8`` is smaller than the heads' worst
    error, and the network misses f there:

    >>> from itertools import product
    >>> from theory.sparse_variable import general_representation, worst_case_error, worst_case_input
    >>> rep = general_representation(3, [0, 2], [1, 2, 3, 4])
    >>> all(rep(b) == rep.f(b) for b in product((0, 1), repeat=3))
    True
    >>> bad = general_representation(3, [0, 1, 2], list(range(1, 9)), delta_rule="printed")
    >>> print(worst_case_error(bad.construction), bad.net.delta)
    5/27 1/8
    >>> b = worst_case_input(bad.construction)
    >>> print(bad(b), bad.f(b))
    0 2
    """
    T = _check_context(T)
    I = check_support(T, support)
    s = len(I)
    if s > 62 or _mlp_entries(2**s, s) > MAX_MLP_ENTRIES:
        _check_mlp(2 ** min(s, 62), s, "support", f"{format_count(s)} relevant positions")
    if isinstance(table, (str, bytes)) or not hasattr(table, "__len__") or len(table) != 2**s:
        raise InputError(f"an s-sparse function needs 2^s = {2**s} table entries, got {table!r:.80}", param="table")
    if delta_rule not in ("corrected", "printed"):
        _delta(Fraction(1), delta_rule)  # refuses it
    table_values = [_checks.as_fraction(v, "table") for v in table]
    if mapping == "bag":
        c = lemma_a21(T, I, Fraction(1, s + 1), "vector")
    elif mapping == "deterministic":
        c = lemma_a19(T, I, Fraction(1), "vector")
    elif mapping == "trainable":
        c = lemma_a20(T, I, Fraction(1), "vector")
    else:
        raise InputError(f"mapping must be one of {MAPPINGS}, got {mapping!r:.80}", param="mapping")
    pats = _bit_patterns(s, "the number of relevant bits s (a table of 2^s values)")  # s <= 7 here: no refusal
    tab = {p: table_values[k] for k, p in enumerate(pats)}
    pts = [v for v, _ in c.level_points()]
    net = relu_interpolation_net(pts, [tab[p] for _, p in c.level_points()], _delta(c.gamma, delta_rule))
    return SparseRepresentation(c, net, tab, delta_rule)


# --------------------------------------------------------------------------------------------- Lemma 4.7 / Cor. A.7


@fill_doc(_DOC)
def softmax_jacobian_l11(p: Sequence[Fraction]) -> Fraction:
    """``||J softmax||_{1,1} = sum_ij |p_i (1[i=j] - p_j)| = 2 sum_i p_i (1 - p_i)`` at the probability vector p
    (proof of Cor. A.7).

    Parameters
    ----------
    p : sequence of Fraction
        A probability vector.

    {{fraction_or_error}}
        ``p`` has a negative entry or does not sum to 1.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import softmax_jacobian_l11
    >>> softmax_jacobian_l11([Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)])
    Fraction(11, 9)
    >>> softmax_jacobian_l11([Fraction(1, 2), Fraction(1, 3)])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: p must be a probability vector
    """
    if isinstance(p, (str, bytes)) or not hasattr(p, "__iter__"):
        raise InputError(f"p must be a probability vector, got {p!r:.80}", param="p")
    ps = [_checks.as_fraction(x, "p") for x in p]
    if any(x < 0 for x in ps) or sum(ps) != 1:
        raise InputError("p must be a probability vector", param="p")
    return 2 * sum((x * (1 - x) for x in ps), Fraction(0))


def softmax_l11_sup(T: int) -> Fraction:
    """``sup_theta ||J softmax(theta)||_{1,1} = 2 (1 - 1/T)`` over R^T (approached at the uniform p), below
    Cor. A.7's ``C_softmax = 2``.

    Parameters
    ----------
    T : int
        Length of the score vector, ``T >= 1``.

    Returns
    -------
    Fraction

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import C_SOFTMAX, softmax_jacobian_l11, softmax_l11_sup
    >>> softmax_l11_sup(4), softmax_l11_sup(4) == softmax_jacobian_l11([Fraction(1, 4)] * 4) < C_SOFTMAX
    (Fraction(3, 2), True)
    """
    T = check_positive_int(T, "T")
    return 2 * (1 - Fraction(1, T))


def softmax_linf_to_l1_constant() -> Fraction:
    r"""The sharp constant L in ``||softmax(a) - softmax(b)||_1 <= L ||a - b||_inf``: L = 1.

    ``J = diag(p) - p p^T``; for ``||u||_inf <= 1``, ``||J u||_1 = sum_i p_i |u_i - p.u|`` is convex in u, so it is
    largest at a sign vector, where it equals ``4 q (1 - q)`` with ``q = p(u = +1)``: at most 1 (``q = 1/2``). Lemma
    A.6's integral then gives L <= 1, attained in the limit of a small perturbation at ``p = (1/2, 1/2)``. Cor. A.7
    uses ``||J||_{1,1} <= 2`` instead, twice this.

    Returns
    -------
    Fraction
        1.

    Examples
    --------
    >>> from theory.sparse_variable import softmax_linf_to_l1_constant
    >>> softmax_linf_to_l1_constant()
    Fraction(1, 1)
    """
    q = sympy.Symbol("q")
    value = 4 * q * (1 - q)
    crit = sympy.solve(sympy.diff(value, q), q)
    best = max([value.subs(q, c) for c in crit] + [value.subs(q, 0), value.subs(q, 1)])
    return Fraction(int(best.p), int(best.q))


def lemma47_sharp_ratios() -> tuple[Fraction, Fraction]:
    """The sharp suprema of (left side)/(right side) of Lemma 4.7 with ``C_Norm = 2``: for perturbations of the
    score parameters only, ``L_sharp / C_softmax = 1/2`` (:func:`softmax_linf_to_l1_constant`); for perturbations of
    ``phi_in`` only, 1 (equal rows of the value change).

    Returns
    -------
    tuple of Fraction
        ``(1/2, 1)``.

    Examples
    --------
    >>> from theory.sparse_variable import lemma47_sharp_ratios
    >>> lemma47_sharp_ratios()
    (Fraction(1, 2), Fraction(1, 1))
    """
    return softmax_linf_to_l1_constant() / C_SOFTMAX, Fraction(1)


# --------------------------------------------------------------------------------------------- Lemmas A.14-A.16, A.24


def _nonnegative(value: object, name: str) -> Fraction:
    x = _checks.as_fraction(value, name)
    if x < 0:
        raise InputError(f"{name} must be >= 0, got {float(x):.6g}", param=name)
    return x


@fill_doc(_DOC)
def head_input_lipschitz(value_norm: object, qk_norm: object, softmax_constant: object = C_SOFTMAX) -> Fraction:
    r"""Lemma A.14's Lipschitz constant of an attention head in its input:
    :math:`\|W_V\|_2\,(1 + 2C\,\|W_K W_Q^\top\|_2)` in the norm :math:`\|(\cdot)^\top\|_{2,\infty}` (largest row norm),
    for inputs with rows in the unit ball.

    With ``softmax_constant = C = 2`` (:data:`C_SOFTMAX`, Cor. A.7) it is the printed
    :math:`\|W_V\|_2(1 + 4\|W_K W_Q^\top\|_2)`; with the sharp softmax constant ``C = 1``
    (:func:`softmax_linf_to_l1_constant`) the proof's own chain gives the sharpened
    :math:`\|W_V\|_2(1 + 2\|W_K W_Q^\top\|_2)`.

    Parameters
    ----------
    value_norm, qk_norm : rational number
        :math:`\|W_V\|_2` and :math:`\|W_K W_Q^\top\|_2` (a float is read as its exact binary value), both >= 0.
    softmax_constant : rational number
        The constant C of :math:`\|\mathrm{softmax}(a) - \mathrm{softmax}(b)\|_1 \le C\|a - b\|_\infty`, >= 0.

    {{fraction_or_error}}
        A norm or the constant is negative or not a finite number.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_variable import head_input_lipschitz, softmax_linf_to_l1_constant
    >>> head_input_lipschitz(2, Fraction(1, 2)), head_input_lipschitz(2, Fraction(1, 2), softmax_linf_to_l1_constant())
    (Fraction(6, 1), Fraction(4, 1))
    """
    v, q = _nonnegative(value_norm, "value_norm"), _nonnegative(qk_norm, "qk_norm")
    c = _nonnegative(softmax_constant, "softmax_constant")
    return v * (1 + 2 * c * q)


@fill_doc(_DOC)
def block_perturbation_bound(
    out_term: object,
    input_gap: object,
    score_term: object,
    value_term: object,
    value_norm: object,
    qk_norm: object,
    out_norm: object,
    sigma_lipschitz: object = 1,
) -> Fraction:
    r"""Lemma A.15's bound on how far block i+1's output moves, :math:`\|(g^{(i+1)}(X; W) - g^{(i+1)}(X;
    \widehat W))^\top\|_{2,\infty}`, when the input representation and the block's weights both move:

    .. math:: t_C + L_\sigma B_C B_V (1 + 4 B_{QK})\,\delta + 2 L_\sigma B_C B_V\, t_{QK} + L_\sigma B_C\, t_V,

    with :math:`\delta = \|(g^{(i)}(X;W) - g^{(i)}(X;\widehat W))^\top\|_{2,\infty}` (``input_gap``),
    :math:`t_C = \|(W_C - \widehat W_C)^\top \sigma(\Pi(f(\hat g; \widehat W)))^\top\|_{2,\infty}` (``out_term``),
    :math:`t_{QK} = \|(W_Q W_K^\top - \widehat W_Q \widehat W_K^\top)\hat g^\top\|_{2,\infty}` (``score_term``),
    :math:`t_V = \|(W_V - \widehat W_V)^\top \hat g^\top\|_{2,\infty}` (``value_term``), and the norm bounds
    :math:`B_V \ge \|W_V\|_2`, :math:`B_{QK} \ge \|W_K W_Q^\top\|_2`, :math:`B_C \ge \|W_C\|_2` (Edelman thesis,
    App. A.1.7, Lemma A.15; the factor :math:`B_V(1 + 4B_{QK})` is Lemma A.14's constant,
    :func:`head_input_lipschitz`).

    Parameters
    ----------
    out_term, input_gap, score_term, value_term : rational number
        The four distances above, >= 0.
    value_norm, qk_norm, out_norm : rational number
        :math:`B_V`, :math:`B_{QK}`, :math:`B_C`, >= 0.
    sigma_lipschitz : rational number
        :math:`L_\sigma`, the Lipschitz constant of the activation, >= 0.

    {{fraction_or_bad_argument}}

    Examples
    --------
    >>> from theory.sparse_variable import block_perturbation_bound
    >>> block_perturbation_bound(1, 1, 1, 1, value_norm=1, qk_norm=1, out_norm=1)
    Fraction(9, 1)
    """
    names = ("out_term", "input_gap", "score_term", "value_term", "value_norm", "qk_norm", "out_norm")
    t_c, gap, t_qk, t_v, b_v, b_qk, b_c = (
        _nonnegative(x, n)
        for x, n in zip((out_term, input_gap, score_term, value_term, value_norm, qk_norm, out_norm), names)
    )
    lip = _nonnegative(sigma_lipschitz, "sigma_lipschitz") * b_c
    return t_c + lip * head_input_lipschitz(b_v, b_qk) * gap + 2 * lip * b_v * t_qk + lip * t_v


@fill_doc(_DOC)
def scalar_output_bound(readout_norm: object, cls_gap: object, readout_term: object) -> Fraction:
    r"""Lemma A.16's bound on the scalar output's change, :math:`|g_{\text{tf-scalar}}(X; W, w) -
    g_{\text{tf-scalar}}(X; \widehat W, \hat w)| \le \|w\|\,\|g_{[\text{CLS}]} - \hat g_{[\text{CLS}]}\| +
    |(w - \hat w)^\top \hat g_{[\text{CLS}]}|` (Edelman thesis, App. A.1.7, Lemma A.16).

    Parameters
    ----------
    readout_norm : rational number
        :math:`\|w\|`, >= 0.
    cls_gap : rational number
        :math:`\|g^{(L+1)}(X; W)_{[\text{CLS}]} - g^{(L+1)}(X; \widehat W)_{[\text{CLS}]}\|`, >= 0.
    readout_term : rational number
        :math:`|(w - \hat w)^\top g^{(L+1)}(X; \widehat W)_{[\text{CLS}]}|`, >= 0.

    {{fraction_or_bad_argument}}

    Examples
    --------
    >>> from theory.sparse_variable import scalar_output_bound
    >>> scalar_output_bound(2, "1/4", "1/8")
    Fraction(5, 8)
    """
    w = _nonnegative(readout_norm, "readout_norm")
    return w * _nonnegative(cls_gap, "cls_gap") + _nonnegative(readout_term, "readout_term")


def perturbation_bound_sharp_ratio() -> Fraction:
    r"""The supremum of (left side)/(right side) of Lemmas A.15 and A.16: 1, attained.

    Lemma A.15: when only :math:`W_C` moves and no projection :math:`\Pi_{\text{norm}}` is active, the left side is
    :math:`\|(W_C - \widehat W_C)^\top a\|` row by row, exactly the first term; when only :math:`W_V` moves, the
    tokens are equal (uniform attention on equal rows), :math:`\sigma` is the identity (:math:`L_\sigma = 1`),
    :math:`W_C` is :math:`B_C` times an isometry and no projection is active, the left side is exactly the last
    term. Lemma A.16: when only w moves the left side is the second term; when only the blocks move and w is
    parallel to the [CLS] gap, the first. The other terms are not attained (the softmax terms carry Cor. A.7's
    ``C_softmax = 2``, twice the sharp constant: :func:`softmax_linf_to_l1_constant`).

    Returns
    -------
    Fraction
        1.

    Examples
    --------
    >>> from theory.sparse_variable import perturbation_bound_sharp_ratio, scalar_output_bound
    >>> perturbation_bound_sharp_ratio() == scalar_output_bound(1, 0, 1)  # only w moves: |(w - w_hat)^T g| / itself
    True
    """
    return _ONE


def _truncation_args(T: object, s: object, R: object) -> tuple[int, int, sympy.Expr]:
    T_ = check_positive_int(T, "T")
    s_ = check_positive_int(s, "s")
    if s_ > T_:
        raise InputError(f"s must be at most T = {T_}, got s = {s_}", param="s")
    R_ = _checks.as_number(R, "R", symbolic=False)
    if not R_.is_Rational or abs(R_) > MAX_SCORE_LOG10 * 10:
        raise InputError(
            f"R must be a rational number of modulus at most {MAX_SCORE_LOG10 * 10}, got {R!r:.80}", param="R"
        )
    return T_, s_, R_


@fill_doc(_DOC)
def softmax_truncation_bound(T: int, s: int, R: object) -> sympy.Expr:
    r"""Lemma A.24 (softmax truncation) as printed: for scores with :math:`z_t \ge R` (t <= s) and
    :math:`z_t \le 0` (t > s), and :math:`z'` equal to z on the first s positions and :math:`-\infty` after,
    :math:`\|\mathrm{softmax}(z') - \mathrm{softmax}(z)\|_1 \le 2(T - s)/(s e^R)` (Edelman thesis, App. A.2.3).

    {{T_s_R}}

    Returns
    -------
    sympy.Expr
        ``2 (T - s) exp(-R) / s``.

    Raises
    ------
    ValueError
        ``s`` outside ``1..T`` or ``R`` not a rational number in range.

    Examples
    --------
    >>> from theory.sparse_variable import softmax_truncation_bound
    >>> softmax_truncation_bound(4, 1, 0), softmax_truncation_bound(4, 2, 1)
    (6, 2*exp(-1))
    """
    T_, s_, R_ = _truncation_args(T, s, R)
    return sympy.Integer(2 * (T_ - s_)) * sympy.exp(-R_) / s_


@fill_doc(_DOC)
def softmax_truncation_sup(T: int, s: int, R: object) -> sympy.Expr:
    r"""The exact supremum of :math:`\|\mathrm{softmax}(z') - \mathrm{softmax}(z)\|_1` under Lemma A.24's
    hypotheses: :math:`2(T - s)/(s e^R + T - s)`, attained at :math:`z_t = R` (t <= s), :math:`z_t = 0` (t > s).

    With :math:`a = \sum_{t \le s} e^{z_t} \ge s e^R` and :math:`m = \sum_{t > s} e^{z_t} \le T - s`, both sums of the
    lemma's proof equal :math:`m/(a + m)`, so the distance is :math:`2m/(a + m)`: increasing in m, decreasing in a.
    It is below the printed :func:`softmax_truncation_bound` by the factor :math:`s e^R/(s e^R + T - s)`, which
    tends to 1 as R grows (the printed bound is asymptotically sharp).

    {{T_s_R}}

    {{expr_or_error}}
        As :func:`softmax_truncation_bound`.

    Examples
    --------
    >>> from theory.sparse_variable import softmax_truncation_bound, softmax_truncation_sup
    >>> softmax_truncation_sup(4, 1, 0), bool(softmax_truncation_sup(4, 2, 1) < softmax_truncation_bound(4, 2, 1))
    (3/2, True)
    """
    T_, s_, R_ = _truncation_args(T, s, R)
    return sympy.Integer(2 * (T_ - s_)) / (s_ * sympy.exp(R_) + T_ - s_)


# --------------------------------------------------------------------------------------------- Prop. 4.8 and Fig. 4.2


def shattering_size(T: int) -> int:
    """Prop. 4.8: ``floor(log2 T)`` inputs shattered by unbounded heads, i.e. ``2^floor(log2 T)`` sign patterns.

    Parameters
    ----------
    T : int
        The context length of Prop. 4.8 (tokens the heads attend over), ``T >= 2``.

    Returns
    -------
    int

    Examples
    --------
    >>> from theory.sparse_variable import shattering_size
    >>> [shattering_size(T) for T in (2, 3, 4, 7, 8, 1000)]
    [1, 1, 2, 2, 3, 9]
    >>> shattering_size(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Prop. 4.8 needs T >= 2, got T = 1
    """
    T = _as_int(T, "T")
    if T < 2:
        raise InputError(f"Prop. 4.8 needs T >= 2, got T = {format_count(T)}", param="T")
    return T.bit_length() - 1


def prop48_target_weight_bound() -> sympy.Expr:
    """The proof of Prop. 4.8: the attended position gets weight ``>= 1/(1 + sqrt(pi/8)) > 1/2``.

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.sparse_variable import prop48_target_weight_bound
    >>> w = prop48_target_weight_bound()
    >>> round(float(w), 6), bool(w > 0.5)
    (0.614758, True)
    """
    return 1 / (1 + sympy.sqrt(sympy.pi / 8))


def chance_cross_entropy() -> sympy.Expr:
    """``log 2``: the cross-entropy of the constant prediction 1/2 on balanced binary labels (chance level of the
    sparse-parity loss curves of Fig. 4.4).

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.sparse_variable import chance_cross_entropy
    >>> chance_cross_entropy()
    log(2)
    """
    return sympy.log(2)


def and_information_bound(T: int, s: int = 3) -> sympy.Expr:
    """``log2 C(T, s)``: the bits a learner must collect to name one of the ``C(T, s)`` s-sparse ANDs; one balanced
    label carries at most one bit, so ``m >= log2 C(T, s)`` samples are needed (Sec. 4.6).

    Parameters
    ----------
    T, s : int
        Context length and sparsity, ``1 <= s <= T``.

    Returns
    -------
    sympy.Expr
        Exact ``log2 C(T, s)``.

    Examples
    --------
    >>> from theory.sparse_variable import and_information_bound
    >>> and_information_bound(4, 1)
    2
    >>> and_information_bound(10)  # log2 C(10, 3) = log2 120
    3 + log(15)/log(2)
    """
    T, s = check_sparsity(T, s)
    hint = "log2 C(T, s) ~ s log2(T/s) for s << T"
    check_cost(math.log10(T), MAX_DIGITS, param="T", value=T, what="T (4000 digits at most)", hint=hint, log10=True)
    check_cost(_checks.log10_binomial(T, s), MAX_DIGITS, param="s", value=s, what="C(T, s)", hint=hint, log10=True)
    return sympy.log(sympy.binomial(T, s), 2)


#: Fig. 4.3 (left), caption: at T = 300 "the threshold (≈ 70 from Figure 4.2)"; the (T, m) reading the thesis gives.
FIG42_THRESHOLD_READING: tuple[int, int] = (300, 70)


def and_threshold_log_law(T: int, s: int = 3, anchor: tuple[int, int] = FIG42_THRESHOLD_READING) -> sympy.Expr:
    """``m*(T) = m_0 log2 C(T, s) / log2 C(T_0, s)``: the sample threshold of Fig. 4.2 carried from the thesis's
    reading ``m*(T_0) = m_0`` (Fig. 4.3 caption: ``m*(300) ≈ 70``) to other T along the log law Fig. 4.2 reports
    (Sec. 4.6: the threshold "scales logarithmically with T", on the scale of the information bound
    :func:`and_information_bound`).

    Parameters
    ----------
    T, s : int
        Context length and sparsity, ``1 <= s <= T``.
    anchor : tuple of int
        ``(T_0, m_0)``: a context length ``T_0 > s`` (so that ``log2 C(T_0, s) > 0``) and its threshold ``m_0 >= 1``.

    Returns
    -------
    sympy.Expr
        Exact ``m_0 log C(T, s) / log C(T_0, s)``.

    Examples
    --------
    >>> from theory.sparse_variable import and_threshold_log_law
    >>> and_threshold_log_law(300)
    70
    >>> round(float(and_threshold_log_law(32)), 2)  # 70 log2(4960) / log2(4455100)
    38.91
    """
    T0, m0 = anchor
    if int(m0) != m0 or m0 < 1:
        raise ValueError(f"the anchor's threshold m_0 must be an integer >= 1, got {m0!r}")
    if int(T0) != T0 or s >= T0:
        raise ValueError(f"the anchor's context length T_0 must be an integer > s = {s}, got {T0!r}")
    ratio = and_information_bound(T, s) / and_information_bound(int(T0), s)
    return sympy.Integer(int(m0)) * ratio
