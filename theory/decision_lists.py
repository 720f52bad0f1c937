r"""One-layer softmax attention learning decision lists (exact).

Source: Karp thesis (2024) Ch. 4, "Transformer Theory" (Sec. 4.2-4.3, Theorems 4.3 and 4.4, Lemma 4.1, Fig. 4.1);
the setting, the claims and the errata are explained in ``docs/decision_lists.md``.

Setting (Sec. 4.2). Vocabulary ``[L]`` (here the tokens ``0 .. L-1``), one-hot embeddings, a sequence of ``n``
distinct tokens ``s`` written ``X = [e_{i_1} | ... | e_{i_n}]`` and the model (Eq. 4.1)

.. math:: f_{W,V}(X) = \sigma(V X \sigma(X^\top W X)),

``sigma`` the softmax over columns; the loss is ``(1/n) sum_j -log f(X)_{y_j, j}`` (Eq. 4.2). Token ``a`` has a
decision list ``L_a = (a_1, ..., a_m)`` with ``a_m = a``; its label in ``s`` is ``pi(a_j)`` with ``j`` the first
index with ``a_j in s`` (the *label-determining token*, LDT). For the query ``a`` the attention over ``s`` is
``p_i propto exp(W[i, a])`` (only column ``a`` of ``W`` is used), the logits are ``z = V p`` and the prediction is
``softmax(z)``.

Contents (everything exact: ``fractions.Fraction``, integers, sympy; no numpy):

* :class:`DecisionListTask`, :func:`cyclic_task` (the Fig. 4.1 task on ``Z_L``), :func:`random_task`,
  :func:`label_determining_token`, :func:`labels`, :func:`check_sequence` (Assumption 4.1);
* the sequence law: uniform ``n``-subsets (:func:`event_probability`, :func:`uniform_subsets`) or an explicit
  finite law; :func:`delta_a43`, :func:`delta_a44`, :func:`delta_a42`: the ``delta`` of Assumptions 4.3, 4.4, 4.2;
* :func:`initial_loss`: ``L_0 = log(n + (L - n) e^{-c/n})`` at ``W = 0, V = cP``;
* :func:`thm43_algebra`, :func:`thm44_algebra`: the algebra of the proofs of Theorems 4.3 and 4.4 (sympy),
  :func:`thm43_c`, :func:`thm44_c`: the constants; the per-sequence bounds :func:`thm43_in_S_bound`,
  :func:`thm44_in_S_bound`, :func:`thm44_notin_S_bound` and, as printed, :func:`thm43_in_S_bound_printed`,
  :func:`lemma41_drift_bound_printed`, :func:`printed_fig41_claimed_in_vocabulary`; :func:`lambda_max_leading`, :func:`thm43_step_budget`: the
  Hessian scale at initialisation and the step budget it implies;
* the gradient identities of Sec. 4.3.3 in 40-digit arithmetic (:func:`attention_column`,
  :func:`output_probs`, :func:`attention_jacobian`, :func:`grad_w_column`, :func:`grad_w_column_cp`,
  :func:`grad_v_rows`, :func:`sequence_gradients`) and the exact directional derivative of the proof of
  Theorem 4.3 (:func:`directional_derivative_cp`);
* :func:`one_step_v` and :func:`one_step_v_classes`: the exact first GD step of ``V`` under uniform attention
  (Fig. 4.1), with its four entry classes (:func:`entry_class`);
* :func:`printed_fig41_values`: the values of the printed rule ``f(i) = i mod (L + 1)`` (vocabulary erratum).

Bad values raise :class:`theory._checks.InputError` (a ``ValueError``) naming the parameter; sizes are checked before
the work (:class:`theory._checks.LimitError`): tasks of at most :data:`MAX_TASK_TOKENS` tokens, enumerations of at
most :data:`MAX_LOOP_STEPS` steps, exact values of at most ``MAX_DIGITS`` digits (``1/C(L, n)``, ``n^4``, ...), and
``MAX_EXACT_ENTRIES`` entries of the 40-digit identities. At Theorem 4.3's ``c``, :func:`initial_loss` keeps
``exp(-c/n)`` unevaluated when sympy would expand it into ``L^(-4n/delta)`` of more than ``MAX_DIGITS`` digits.
"""

from __future__ import annotations

import itertools
import math
import numbers
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import comb

import sympy
from sympy import Symbol, exp, log, sqrt

from theory._checks import (
    MAX_DIGITS,
    MAX_EXACT_ENTRIES,
    InputError,
    as_fraction,
    as_number,
    check_cost,
    check_positive_int,
    format_count,
    log10_binomial,
)
from theory._docstrings import fill_doc, sections

#: What :class:`fractions.Fraction` converts exactly: ints, Fractions (any ``numbers.Rational``), floats (their
#: binary value) and numeric strings.
_FractionLike = int | numbers.Rational | float | str

__all__ = [
    "ALGEBRA_SYMBOLS",
    "DIGITS",
    "ENTRY_CLASSES",
    "FIG41_PERM_SHIFT",
    "FIG41_SHIFTS",
    "MAX_LOOP_STEPS",
    "MAX_TASK_TOKENS",
    "DecisionListTask",
    "antishift_class_value",
    "attention_column",
    "attention_jacobian",
    "check_sequence",
    "check_sequence_length",
    "cyclic_summary",
    "cyclic_task",
    "delta_a42",
    "delta_a43",
    "delta_a44",
    "directional_derivative_cp",
    "entry_class",
    "event_probability",
    "grad_v_rows",
    "grad_w_column",
    "grad_w_column_cp",
    "initial_loss",
    "label_determining_token",
    "labels",
    "lambda_max_leading",
    "ldt_count_matrix",
    "ldt_event",
    "lemma41_bounds",
    "lemma41_drift_bound_printed",
    "misclassified_cp",
    "one_step_v",
    "one_step_v_classes",
    "output_probs",
    "printed_fig41_claimed_in_vocabulary",
    "printed_fig41_values",
    "random_task",
    "sequence_gradients",
    "shift_class_value",
    "thm43_algebra",
    "thm43_c",
    "thm43_in_S_bound",
    "thm43_in_S_bound_printed",
    "thm43_sets",
    "thm43_step_budget",
    "thm44_algebra",
    "thm44_c",
    "thm44_horizon",
    "thm44_horizon_leading",
    "thm44_in_S_bound",
    "thm44_initial_loss_bound",
    "thm44_notin_S_bound",
    "thm44_sufficient_c",
    "uniform_subsets",
]

#: Digits of the arithmetic in which the gradient identities are evaluated (far below float64 rounding).
DIGITS = 40
#: Fig. 4.1: L_i = (i + 10, i + 20, i + 30, i) and pi(i) = i + 20 (on Z_L; see the vocabulary erratum in docs/decision_lists.md).
FIG41_SHIFTS: tuple[int, ...] = (10, 20, 30)
FIG41_PERM_SHIFT = 20

MAX_TASK_TOKENS = 500_000
"""Largest number of tokens (L times the list length) of a task built by :func:`cyclic_task` or drawn by
:func:`random_task` (which also draws from L - 1 tokens per list: L^2 <= 10 MAX_TASK_TOKENS), and largest L of
:func:`printed_fig41_values` (~2-3 s of Python)."""

MAX_LOOP_STEPS = 10**6
"""Largest number of Python loop steps of the exact enumerations: the triples (a, b, c) of Assumption 4.3 times the
size of an explicit law (:func:`delta_a43`), the L^2 M list entries of :func:`ldt_count_matrix` and
:func:`one_step_v`, the sequences times the tokens of :func:`thm43_sets`, the tokens times the law of
:func:`delta_a42` (~1-3 s)."""


# --- shared docstring sections (:func:`theory._docstrings.fill_doc`) --------------------------------------------

_SEQUENCE_LENGTH = "n : int\n    Sequence length, ``1 <= n <= L``."

_DOC = {
    "task_or_error": sections(returns="DecisionListTask", raises="ValueError"),
    "fraction_or_error": sections(returns="fractions.Fraction", raises="ValueError"),
    "L_n": sections("L : int\n    Vocabulary size, ``L >= 2``.", _SEQUENCE_LENGTH),
    "L_n_any": sections("L : int\n    Vocabulary size.", _SEQUENCE_LENGTH),
    "L_n_unchecked": "L : int\n    Vocabulary size.\nn : int\n    Sequence length.",
    "L_n_eta": sections(
        "L : int\n    Vocabulary size, ``L > 60``.",
        _SEQUENCE_LENGTH,
        "eta : rational\n    The step size (taken exactly).",
    ),
    "n_or_law": """
n : int or None, optional
    Sequence length of the uniform law (give ``n`` or ``law``, not both).
law : mapping of frozenset of int to fractions.Fraction, or None, optional
    An explicit law on token sets of one size, summing to 1.
""",
    "p_attention_expr": "p : number or sympy.Expr\n    The attention ``p_{k*}`` on the LDT, in ``[0, 1]``.\n\n"
    + sections(returns="sympy.Expr"),
    "grad_w": sections(returns="list\n    ``dl/dw_k`` for ``k = 0 .. L-1``."),
    "eps_Lbar": "eps : number\n    Theorem 4.4's ``eps > 0``.\nLbar : number\n    ``max{1, L_0} >= 1``.",
}


# --- checks of the callers' values ---------------------------------------------------------------------------------


def _token(value: object, name: str, L: int) -> int:
    """A token of the vocabulary range(L): an integer (an integral float too), 0 <= t < L."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float, sympy.Integer)):
        raise InputError(f"{name} must be a token (an integer in range(0, {L})), got {value!r:.80}", param=name)
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise InputError(f"{name} must be a token (an integer in range(0, {L})), got {value!r}", param=name)
    t = int(value)
    if not 0 <= t < L:
        raise InputError(f"{name} = {format_count(t)} is outside the vocabulary range(0, {L})", param=name)
    return t


def _check_task(task: object) -> DecisionListTask:
    if not isinstance(task, DecisionListTask):
        raise InputError(
            f"task must be a DecisionListTask (cyclic_task, random_task or DecisionListTask(perm, lists)), got "
            f"{task!r:.80}",
            param="task",
        )
    return task


def _digits(value: object) -> float:
    """Decimal digits of the numerator and denominator of an exact number (0 for a symbol or a float)."""
    if isinstance(value, (numbers.Integral, sympy.Integer)) and not isinstance(value, bool):
        v = abs(int(value))
        return math.log10(v) if v > 1 else 0.0
    if isinstance(value, (Fraction, sympy.Rational)):
        p, q = (value.numerator, value.denominator) if isinstance(value, Fraction) else (int(value.p), int(value.q))
        return math.log10(max(abs(p), q, 1))
    return 0.0


def _check_digits(digits: float, param: str, value: object, what: str) -> None:
    if isinstance(value, (Fraction, sympy.Rational)) and not isinstance(value, sympy.Integer) and _digits(value) > 40:
        value = f"[a fraction of {math.ceil(_digits(value))} digits]"  # str() of it may exceed Python's 4300 digits
    check_cost(
        math.ceil(digits),
        MAX_DIGITS,
        param=param,
        value=value,
        what=f"the number of digits of {what}",
        hint=f"exact values are limited to {MAX_DIGITS} digits (Python prints integers of at most 4300)",
    )


def _check_exact(digits: float, what: str, **values: object) -> None:
    """:func:`_check_digits` naming, of the caller's ``values``, the one of the most digits."""
    name = max(values, key=lambda k: _digits(values[k]))
    _check_digits(digits, name, values[name], what)


# --- the task (Sec. 4.2.2) -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionListTask:
    """The sequence-to-sequence mapping of Sec. 4.2.2 on the tokens ``0 .. L-1``.

    Parameters
    ----------
    perm : tuple of int
        ``perm[i] = pi(i)``, a permutation of ``range(L)`` (the matrix ``P`` has ``P[pi(i), i] = 1``).
    lists : tuple of tuple of int
        ``lists[a] = L_a = (a_1, ..., a_m)``: distinct tokens ending in ``a`` itself (``a_m = a``).

    Raises
    ------
    ValueError
        If ``perm`` is not a permutation of ``range(L)``, a list is empty, does not end in its own token, repeats a
        token or names a token outside the vocabulary.

    Examples
    --------
    The task of a 3-token vocabulary where token 0 is labelled by token 1 when 1 is present:

    >>> from theory.decision_lists import DecisionListTask
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> task.L, task.M, task.inverse
    (3, 2, (2, 0, 1))
    >>> DecisionListTask((0, 1, 2), ((0,), (2,), (2,)))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: decision list L_1 = (2,) must end in its own token 1 (Sec. 4.2.2: a_m = a), ends in 2
    """

    perm: tuple[int, ...]
    lists: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if not isinstance(self.perm, (tuple, list)) or isinstance(self.perm, str):
            raise InputError(
                f"perm must be a tuple of ints (a permutation of range(L)), got {self.perm!r:.80}", param="perm"
            )
        if not isinstance(self.lists, (tuple, list)):
            raise InputError(
                f"lists must be a tuple of decision lists (tuples of ints), got {self.lists!r:.80}", param="lists"
            )
        L = len(self.perm)
        if L < 1:
            raise InputError("the vocabulary must have L >= 1 tokens, got an empty permutation", param="perm")
        if any(isinstance(t, bool) or not isinstance(t, int) for t in self.perm) or sorted(self.perm) != list(range(L)):
            raise InputError(
                f"perm must be a permutation of range(L) = range({L}), got {self.perm!r:.200}", param="perm"
            )
        if len(self.lists) != L:
            raise InputError(f"need one decision list per token: {L} tokens but {len(self.lists)} lists", param="lists")
        for a, lst in enumerate(self.lists):
            if not isinstance(lst, (tuple, list)):
                raise InputError(f"decision list L_{a} must be a tuple of tokens, got {lst!r:.80}", param="lists")
            if len(lst) == 0:
                raise InputError(
                    f"decision list L_{a} is empty; it must end in its own token {a} (a_m = a)", param="lists"
                )
            if any(isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < L for t in lst):
                raise InputError(
                    f"decision list L_{a} = {lst!r:.80} has a token outside the vocabulary range(0, {L})", param="lists"
                )
            if lst[-1] != a:
                raise InputError(
                    f"decision list L_{a} = {lst} must end in its own token {a} (Sec. 4.2.2: a_m = a), ends in {lst[-1]}",
                    param="lists",
                )
            if len(set(lst)) != len(lst):
                raise InputError(
                    f"decision list L_{a} = {lst} repeats a token; list entries must be distinct", param="lists"
                )

    @property
    def L(self) -> int:
        """Vocabulary size."""
        return len(self.perm)

    @property
    def M(self) -> int:
        """The longest decision list (the thesis's ``M >= m``)."""
        return max(len(lst) for lst in self.lists)

    @cached_property
    def inverse(self) -> tuple[int, ...]:
        """``pi^{-1}`` as a tuple."""
        inv = [0] * self.L
        for i, r in enumerate(self.perm):
            inv[r] = i
        return tuple(inv)


@fill_doc(_DOC)
def cyclic_task(L: int, shifts: Sequence[int] = FIG41_SHIFTS, perm_shift: int = FIG41_PERM_SHIFT) -> DecisionListTask:
    """The Fig. 4.1 task on ``Z_L``: ``pi(i) = i + perm_shift`` and ``L_i = (i + d_1, ..., i + d_{m-1}, i)`` mod ``L``.

    The thesis writes ``f(i) = i mod (L + 1)``, which leaves the vocabulary (vocabulary erratum in
    ``docs/decision_lists.md``, :func:`printed_fig41_values`); reducing mod ``L`` keeps every token in range.

    Parameters
    ----------
    L : int
        Vocabulary size, ``L >= 2``.
    shifts : sequence of int, optional
        ``(d_1, ..., d_{m-1})``, the list entries before ``i`` are ``i + d_j`` (default Fig. 4.1's ``(10, 20, 30)``).
    perm_shift : int, optional
        ``pi(i) = i + perm_shift`` mod ``L`` (default 20).

    {{task_or_error}}
        If a shift is 0 mod ``L`` or two shifts coincide mod ``L`` (a list would repeat a token);
        :class:`theory._checks.LimitError` when the task has more than :data:`MAX_TASK_TOKENS` tokens,
        ``L (len(shifts) + 1)`` (``L <= 125,000`` for Fig. 4.1's three shifts).

    Examples
    --------
    >>> from theory.decision_lists import cyclic_task
    >>> task = cyclic_task(200)
    >>> task.perm[0], task.lists[195]
    (20, (5, 15, 25, 195))
    >>> cyclic_task(7, shifts=(1, 2), perm_shift=3).lists[6]
    (0, 1, 6)
    >>> cyclic_task(20)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the shifts (10, 20, 30) must be distinct and nonzero mod L = 20
    """
    L = check_positive_int(L, "L", minimum=2)
    if isinstance(shifts, (str, bytes)) or not hasattr(shifts, "__iter__"):
        raise InputError(f"shifts must be a sequence of ints, got {shifts!r:.80}", param="shifts")
    shifts = tuple(shifts)
    if len(shifts) > L:
        raise InputError(f"the {len(shifts)} shifts cannot be distinct and nonzero mod L = {L}", param="shifts")
    for d in shifts:
        if isinstance(d, bool) or not isinstance(d, (numbers.Integral, sympy.Integer)):
            raise InputError(f"shifts must be ints, got {d!r:.80}", param="shifts")
    if isinstance(perm_shift, bool) or not isinstance(perm_shift, (numbers.Integral, sympy.Integer)):
        raise InputError(f"perm_shift must be an int, got {perm_shift!r:.80}", param="perm_shift")
    check_cost(
        L * (len(shifts) + 1),
        MAX_TASK_TOKENS,
        param="L",
        value=L,
        what=f"the number of tokens of the task, L (len(shifts) + 1) = L x {len(shifts) + 1},",
        hint="the closed forms (one_step_v_classes, delta_a44, thm43_c) do not build the task",
    )
    reduced = [int(d) % L for d in shifts]
    if 0 in reduced or len(set(reduced)) != len(reduced):
        raise InputError(f"the shifts {tuple(shifts)} must be distinct and nonzero mod L = {L}", param="shifts")
    perm_shift = int(perm_shift)
    perm = tuple((i + perm_shift) % L for i in range(L))
    lists = tuple((*tuple((i + d) % L for d in reduced), i) for i in range(L))
    return DecisionListTask(perm, lists)


@fill_doc(_DOC)
def random_task(L: int, m: int, seed: int, min_length: int | None = None) -> DecisionListTask:
    """A random task: ``pi`` uniform and each ``L_a`` = distinct random other tokens, then ``a``.

    List lengths are uniform on ``min_length .. m`` (all ``m`` when ``min_length`` is None). Drawn with Python's
    :class:`random.Random` (``seed``), so the task is reproducible without numpy.

    Parameters
    ----------
    L : int
        Vocabulary size, ``L >= 2``.
    m : int
        Longest list length, ``1 <= m <= L``.
    seed : int
        Seed of the :class:`random.Random` generator, an integer ``>= 0``.
    min_length : int or None, optional
        Shortest list length, ``1 <= min_length <= m``.

    {{task_or_error}}
        Unless ``1 <= min_length <= m <= L``; :class:`theory._checks.LimitError` when the draw (L lists, each from
        L - 1 tokens) exceeds ``L^2 <= 10 MAX_TASK_TOKENS`` (``L <= 2236``).

    Examples
    --------
    >>> from theory.decision_lists import random_task
    >>> random_task(4, 2, seed=0)
    DecisionListTask(perm=(2, 0, 1, 3), lists=((3, 0), (2, 1), (1, 2), (2, 3)))
    >>> random_task(4, 5, seed=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: need 1 <= min_length <= m <= L = 4 (a list has at most L distinct tokens), got 5, 5
    """
    seed = check_positive_int(seed, "seed", minimum=0, hypothesis="a seed of random.Random")
    L = check_positive_int(L, "L", minimum=2)
    m = check_positive_int(m, "m", minimum=1)
    lo = m if min_length is None else check_positive_int(min_length, "min_length", minimum=1)
    if m > L or lo > m:
        raise InputError(
            f"need 1 <= min_length <= m <= L = {L} (a list has at most L distinct tokens), got {lo}, {m}",
            param="m" if m > L else "min_length",
        )
    check_cost(
        L * L,
        10 * MAX_TASK_TOKENS,
        param="L",
        value=L,
        what="the draw (L lists, each drawn from the L - 1 other tokens), L^2,",
        hint="cyclic_task builds a large task without drawing",
    )
    rng = random.Random(seed)
    perm = list(range(L))
    rng.shuffle(perm)
    lists = []
    for a in range(L):
        k = rng.randint(lo, m)
        lists.append((*tuple(rng.sample([t for t in range(L) if t != a], k - 1)), a))
    return DecisionListTask(tuple(perm), tuple(lists))


@fill_doc(_DOC)
def lambda_max_leading(L: int, n: int) -> Fraction:
    r"""``kappa = (n - 1) / (n^4 (L - 1))``: the largest Hessian eigenvalue of the population loss in ``W`` at ``W = 0``,
    ``V = cP`` is ``kappa c^2 + O(c)`` for uniform ``n``-subsets (``docs/decision_lists.md``).

    At ``W = 0`` the ``n`` tokens of ``s`` tie, so for large ``c`` the per-position loss is ``logsumexp(c p) - c p_u``
    up to ``e^{-c/n}``; its Hessian in ``p`` is ``(c^2/n)(I - 11^T/n)`` and the attention Jacobian is
    ``(1/n)(I - 11^T/n)``, giving ``(c^2/n^3)(I_s - 1_s 1_s^T/n)`` per position and, with the ``1/n`` of (4.2) and the
    law of ``s``, the block ``(c^2/n^4) E[1{a in s}(I_s - 1_s 1_s^T/n)]`` for column ``a``. Its top eigenvalue
    (vector ``e_a - 1/(L-1)`` on the other tokens) is ``(n-1)/(L-1)`` times ``c^2/n^4``.

    {{L_n}}

    Returns
    -------
    fractions.Fraction
        ``kappa``.

    Examples
    --------
    >>> from theory.decision_lists import lambda_max_leading
    >>> lambda_max_leading(8, 3)  # 2 / (81 * 7)
    Fraction(2, 567)
    >>> lambda_max_leading(5, 1)  # n = 1: a single token, the loss is flat in W
    Fraction(0, 1)
    """
    L, n = check_sequence_length(L, n)
    if L < 2:
        raise InputError(f"L must be an integer >= 2 (kappa has L - 1 in its denominator), got L = {L}", param="L")
    _check_digits(4 * _digits(n) + _digits(L), "n", n, "n^4 (L - 1)")
    return Fraction(n - 1, n**4 * (L - 1))


@fill_doc(_DOC)
def thm43_step_budget(L: int, n: int, M: int, delta: object) -> sympy.Expr:
    r"""A lower bound on Theorem 4.3's step budget ``T = 32 M lambda_max / log L``: with ``lambda_max >= kappa c^2``
    (:func:`lambda_max_leading`, ``c = 4 n^2 log L / delta``) it is ``32 M kappa c^2 / log L =
    512 M (n - 1) log L / (delta^2 (L - 1))``.

    {{L_n}}
    M : int
        Longest decision list, ``M >= 1``.
    delta : number
        ``delta`` of Assumption 4.3, in ``(0, 1]``.

    Returns
    -------
    sympy.Expr
        The lower bound on ``T`` (exact).

    Raises
    ------
    ValueError
        For ``L < 2``, ``n`` outside ``1..L``, ``M < 1`` or ``delta`` outside ``(0, 1]``.

    Examples
    --------
    The closed form equals ``32 M kappa c^2 / log L``:

    >>> import sympy
    >>> from fractions import Fraction
    >>> from theory.decision_lists import lambda_max_leading, thm43_c, thm43_step_budget
    >>> T = thm43_step_budget(8, 3, 3, Fraction(1, 2))
    >>> T
    12288*log(8)/7
    >>> T == 32 * 3 * lambda_max_leading(8, 3) * thm43_c(3, 8, Fraction(1, 2)) ** 2 / sympy.log(8)
    True
    """
    L, n = check_sequence_length(L, n)
    if L < 2:
        raise InputError(f"L must be an integer >= 2 (log L > 0 and L - 1 > 0), got L = {L}", param="L")
    M = check_positive_int(M, "M")
    d = _in_range(delta, "delta", 0, 1, lo_open=True, why="Assumption 4.3: a positive probability")
    _check_digits(
        2 * _digits(d) + _digits(M) + _digits(n) + _digits(L) + 3, "delta", d, "512 M (n - 1) / (delta^2 (L - 1))"
    )
    return 512 * M * (n - 1) * log(L) / (d**2 * (L - 1))


@fill_doc(_DOC)
def check_sequence_length(L: object, n: object) -> tuple[int, int]:
    """Validate ``1 <= n <= L`` (Assumption 4.1: ``n`` distinct tokens need ``n <= L``).

    Parameters
    ----------
    {{L_n_unchecked}}

    Returns
    -------
    tuple of int
        ``(L, n)`` as ints.

    Raises
    ------
    ValueError
        Unless ``1 <= n <= L`` are integers.

    Examples
    --------
    >>> from theory.decision_lists import check_sequence_length
    >>> check_sequence_length(5, 3)
    (5, 3)
    >>> check_sequence_length(5, 6)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: sequence length n = 6 exceeds the vocabulary size L = 5: Assumption 4.1 ... needs 1 <= n <= L
    """
    L = check_positive_int(L, "L", minimum=1)
    n = check_positive_int(n, "n", minimum=1)
    if n > L:
        raise InputError(
            f"sequence length n = {format_count(n)} exceeds the vocabulary size L = {format_count(L)}: Assumption 4.1 "
            f"(no duplicate tokens) needs 1 <= n <= L",
            param="n",
        )
    return L, n


def check_sequence(L: int, seq: Sequence[int]) -> tuple[int, ...]:
    """Validate one sequence: tokens in ``range(L)`` and no duplicates (Assumption 4.1).

    Parameters
    ----------
    L : int
        Vocabulary size.
    seq : sequence of int
        The tokens ``(i_1, ..., i_n)``.

    Returns
    -------
    tuple of int
        ``seq`` as a tuple of ints.

    Raises
    ------
    ValueError
        For a token outside ``range(L)``, a repeated token or ``len(seq) > L``.

    Examples
    --------
    >>> from theory.decision_lists import check_sequence
    >>> check_sequence(5, [4, 0, 2])
    (4, 0, 2)
    >>> check_sequence(5, (1, 2, 2))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: sequence (1, 2, 2) repeats tokens [2]: Assumption 4.1 allows each token at most once
    """
    L = check_positive_int(L, "L", minimum=1)
    if isinstance(seq, (str, bytes)) or not hasattr(seq, "__iter__"):
        raise InputError(f"the sequence must be a sequence of tokens (ints), got {seq!r:.80}", param="seq")
    seq = tuple(seq)
    check_sequence_length(L, max(len(seq), 1))
    if not seq:
        raise InputError("the sequence is empty; Assumption 4.1 needs 1 <= n <= L tokens", param="seq")
    tokens = []
    for t in seq:
        if isinstance(t, bool) or not isinstance(t, (numbers.Integral, float, sympy.Integer)):
            raise InputError(f"sequence {seq!r:.80} has a token {t!r:.40} that is not an int", param="seq")
        if isinstance(t, float) and not (math.isfinite(t) and float(t).is_integer()):
            raise InputError(f"sequence {seq!r:.80} has a token {t!r} that is not an int", param="seq")
        tokens.append(int(t))
    seq = tuple(tokens)
    bad = [t for t in seq if not 0 <= t < L]
    if bad:
        raise InputError(f"sequence {seq} has tokens {bad} outside the vocabulary range(0, {L})", param="seq")
    if len(set(seq)) != len(seq):
        dup = sorted(t for t, c in Counter(seq).items() if c > 1)
        raise InputError(
            f"sequence {seq} repeats tokens {dup}: Assumption 4.1 allows each token at most once", param="seq"
        )
    return seq


def label_determining_token(task: DecisionListTask, s: Iterable[int], a: int) -> int:
    """The label-determining token of ``a`` in ``s``: the first ``a_j`` of ``L_a`` that lies in ``s``.

    Parameters
    ----------
    task : DecisionListTask
    s : iterable of int
        The tokens of the sequence (its order does not matter).
    a : int
        A token of ``s``.

    Returns
    -------
    int
        The LDT ``u``; ``a``'s label is ``pi(u)``.

    Raises
    ------
    ValueError
        If ``a`` is not in ``s``.

    Examples
    --------
    ``L_0 = (1, 0)``: token 1 decides 0's label when present, else 0 itself:

    >>> from theory.decision_lists import DecisionListTask, label_determining_token
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> label_determining_token(task, (0, 1, 2), 0), label_determining_token(task, (0, 2), 0)
    (1, 0)
    """
    task = _check_task(task)
    if isinstance(s, (str, bytes)) or not hasattr(s, "__iter__"):
        raise InputError(f"s must be a sequence of tokens, got {s!r:.80}", param="s")
    present = set(s)
    a = _token(a, "a", task.L)
    if a not in present:
        raise InputError(f"token {a} is not in the sequence {sorted(present, key=repr)!r:.200}", param="a")
    return next(t for t in task.lists[a] if t in present)


def labels(task: DecisionListTask, seq: Sequence[int]) -> tuple[int, ...]:
    """The label sequence ``(pi(LDT(i_1)), ..., pi(LDT(i_n)))`` of a valid sequence (Sec. 4.2.2).

    Parameters
    ----------
    task : DecisionListTask
    seq : sequence of int
        A valid sequence (:func:`check_sequence`).

    Returns
    -------
    tuple of int
        ``y_j = pi(LDT(i_j))`` for every position ``j``.

    Examples
    --------
    >>> from theory.decision_lists import DecisionListTask, labels
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> labels(task, (0, 1, 2)), labels(task, (2, 0))
    ((2, 2, 0), (0, 1))
    """
    seq = check_sequence(_check_task(task).L, seq)
    return tuple(task.perm[label_determining_token(task, seq, a)] for a in seq)


# --- sequence laws and the assumptions (Sec. 4.2.3) -----------------------------------------------------------------


@fill_doc(_DOC)
def uniform_subsets(L: int, n: int) -> Iterator[tuple[int, ...]]:
    """Every ``n``-subset of ``range(L)`` (the support of a uniform ``n``-permutation, up to order).

    {{L_n_any}}

    Returns
    -------
    iterator of tuple of int
        The ``C(L, n)`` subsets, each sorted, in lexicographic order.

    Raises
    ------
    ValueError
        Unless ``1 <= n <= L``; :class:`theory._checks.LimitError` for ``L > MAX_TASK_TOKENS``.

    Examples
    --------
    >>> from theory.decision_lists import uniform_subsets
    >>> list(uniform_subsets(4, 2))
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    L, n = check_sequence_length(L, n)
    check_cost(
        L,
        MAX_TASK_TOKENS,
        param="L",
        value=L,
        what="the vocabulary (itertools.combinations holds it as a tuple)",
        hint="event_probability gives the probability of an event of uniform n-subsets without enumerating them",
    )
    return itertools.combinations(range(L), n)


@fill_doc(_DOC)
def event_probability(L: int, n: int, inside: Iterable[int], outside: Iterable[int]) -> Fraction:
    """``P[A subset s, B cap s empty]`` for a uniform ``n``-subset ``s``: ``C(L - |A| - |B|, n - |A|) / C(L, n)``.

    0 when ``A`` and ``B`` intersect or ``|A| > n``.

    {{L_n_any}}
    inside : iterable of int
        The tokens ``A`` that must be in ``s``.
    outside : iterable of int
        The tokens ``B`` that must not be in ``s``.

    {{fraction_or_error}}
        If a token of ``inside`` or ``outside`` is not in the vocabulary ``range(L)``.

    Examples
    --------
    >>> from theory.decision_lists import event_probability
    >>> event_probability(6, 3, inside=[0, 1], outside=[2])  # C(3, 1) / C(6, 3)
    Fraction(3, 20)
    >>> event_probability(6, 3, inside=[0], outside=[0])
    Fraction(0, 1)
    """
    L, n = check_sequence_length(L, n)
    for name, tokens in (("inside", inside), ("outside", outside)):
        if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
            raise InputError(f"{name} must be a collection of tokens, got {tokens!r:.80}", param=name)
    A, B = set(inside), set(outside)
    for name, tokens in (("inside", A), ("outside", B)):
        bad = sorted(
            (t for t in tokens if isinstance(t, bool) or not (isinstance(t, numbers.Integral) and 0 <= t < L)), key=repr
        )
        if bad:
            raise InputError(f"{name} tokens must lie in the vocabulary range(0, {L}), got {bad!r:.200}", param=name)
    if A & B or len(A) > n:
        return Fraction(0)
    a, b = len(A), len(B)
    _check_digits((a + b) * math.log10(L), "inside", f"[{a} tokens]", "the probability (|inside| + |outside| factors)")
    # C(L - a - b, n - a) / C(L, n) = [n!/(n-a)!] [(L-n)!/(L-n-b)!] [(L-a-b)!/L!], a + b factors: no C(L, n)
    num = math.prod(n - i for i in range(a)) * math.prod(L - n - j for j in range(b))
    return Fraction(num, math.prod(L - i for i in range(a + b)))


def ldt_event(task: DecisionListTask, a: int, b: int) -> tuple[frozenset[int], frozenset[int]] | None:
    """``(A, B)`` with ``{a in s, b is a's LDT} = {A subset s, B cap s empty}``; None if ``b`` is not in ``L_a``.

    Parameters
    ----------
    task : DecisionListTask
    a : int
        The query token.
    b : int
        The candidate LDT.

    Returns
    -------
    tuple of frozenset of int, or None
        ``(A, B)``: ``A = {a, b}``, ``B`` = the entries of ``L_a`` before ``b``.

    Examples
    --------
    >>> from theory.decision_lists import DecisionListTask, ldt_event
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> ldt_event(task, 0, 1)
    (frozenset({0, 1}), frozenset())
    >>> ldt_event(task, 0, 0)  # 0 decides its own label iff 1 is absent
    (frozenset({0}), frozenset({1}))
    >>> ldt_event(task, 0, 2) is None
    True
    """
    task = _check_task(task)
    a, b = _token(a, "a", task.L), _token(b, "b", task.L)
    lst = task.lists[a]
    if b not in lst:
        return None
    k = lst.index(b)
    return frozenset({a, b}), frozenset(lst[:k])


def _law_probability(law: Mapping[frozenset[int], Fraction], A: set[int], B: set[int]) -> Fraction:
    return sum((p for s, p in law.items() if s >= A and not (B & s)), Fraction(0))


def _a43_triples(task: DecisionListTask) -> Iterator[tuple[int, int, int, frozenset[int], frozenset[int]]]:
    """Every triple (a, b, c) of Assumption 4.3 with its event ``(A, B)``: ``b in L_a``, ``c`` after ``b`` in
    ``L_a`` or not in ``L_a``; the event is ``{a, b, c} subset s`` and the tokens before ``b`` absent."""
    for a in range(task.L):
        lst = task.lists[a]
        for k, b in enumerate(lst):
            before = frozenset(lst[:k])
            for c in range(task.L):
                if c in lst and lst.index(c) <= k:
                    continue
                yield a, b, c, frozenset({a, b, c}), before


@fill_doc(_DOC)
def delta_a43(
    task: DecisionListTask, n: int | None = None, law: Mapping[frozenset[int], Fraction] | None = None
) -> tuple[Fraction, tuple[int, int, int]]:
    """The largest ``delta`` of Assumption 4.3 and a triple attaining it.

    ``delta = min P[a, b, c in s and b is a's LDT]`` over the triples of the assumption with positive
    probability, for uniform ``n``-subsets (``n`` given; closed form :func:`event_probability`) or an explicit
    law (``law``: token set -> probability).

    Parameters
    ----------
    task : DecisionListTask
    {{n_or_law}}

    Returns
    -------
    tuple
        ``(delta, (a, b, c))``: ``delta`` a :class:`fractions.Fraction`, ``(a, b, c)`` a triple attaining it.

    Raises
    ------
    ValueError
        Unless exactly one of ``n`` and ``law`` is given, for an invalid law, or when no triple has positive
        probability.

    Examples
    --------
    >>> from theory.decision_lists import DecisionListTask, delta_a43
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> delta_a43(task, n=2)
    (Fraction(1, 3), (0, 1, 0))
    >>> delta_a43(task)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: give exactly one of n (uniform n-subsets) or law (explicit token-set law)
    """
    task = _check_task(task)
    if (n is None) == (law is None):
        raise InputError("give exactly one of n (uniform n-subsets) or law (explicit token-set law)", param="n")
    best: tuple[Fraction, tuple[int, int, int]] | None = None
    if law is not None:
        _check_law(task.L, law)
        triples = sum(len(lst) for lst in task.lists) * task.L
        check_cost(
            triples * (1 + len(law)),
            MAX_LOOP_STEPS,
            param="law",
            value=f"[{len(law)} token sets]",
            what=f"the enumeration (the {format_count(triples)} triples of Assumption 4.3 times the law)",
            hint="pass n for uniform n-subsets (closed-form probabilities)",
        )
        for a, b, c, A, B in _a43_triples(task):
            prob = _law_probability(law, set(A), set(B))
            if prob > 0 and (best is None or prob < best[0]):
                best = (prob, (a, b, c))
    else:
        size = check_sequence_length(task.L, n)[1]
        # the probability depends only on (|A|, |B|): the smallest positive one over the sizes that occur, then the
        # first triple of such a size (the triple the scan over every triple with a strict < keeps)
        probs = {
            key: event_probability(task.L, size, range(key[0]), range(key[0], key[0] + key[1]))
            for key in _a43_sizes(task)
        }
        positive = [p for p in probs.values() if p > 0]
        if positive:
            smallest = min(positive)
            keys = {key for key, p in probs.items() if p == smallest}
            a, b, c = next((a, b, c) for a, b, c, nA, nB in _a43_first_triples(task) if (nA, nB) in keys)
            best = (smallest, (a, b, c))
    if best is None:
        raise InputError("no triple of Assumption 4.3 has positive probability under this law", param="law")
    return best


def _a43_sizes(task: DecisionListTask) -> set[tuple[int, int]]:
    """The sizes ``(|A|, |B|)`` of the events of the triples of Assumption 4.3, from the list lengths alone: for ``b``
    at position ``k < m - 1`` of ``L_a``, ``c = a`` gives ``(2, k)`` and any other token after ``b`` or outside ``L_a``
    (there are ``L - k - 2``) gives ``(3, k)``; for ``b = a`` (``k = m - 1``) every ``c`` outside ``L_a`` gives
    ``(2, k)``."""
    L = task.L
    sizes: set[tuple[int, int]] = set()
    for m in {len(lst) for lst in task.lists}:
        for k in range(m - 1):
            sizes.add((2, k))
            if k + 2 < L:
                sizes.add((3, k))
        if m < L:
            sizes.add((2, m - 1))
    return sizes


def _a43_first_triples(task: DecisionListTask) -> Iterator[tuple[int, int, int, int, int]]:
    """The triples of :func:`_a43_triples` that can decide the minimum of a law that depends only on ``(|A|, |B|)``
    (uniform n-subsets): for each ``(a, b)``, the first ``c`` of each size ``|A| = |{a, b, c}|``, in the order of the
    enumeration, with ``|A|`` and ``|B|``. The first triple attaining the smallest positive probability is the same as
    over all triples (a later ``c`` of the same size has the same probability and never improves it strictly), in
    O(L M^2) instead of O(L^2 M)."""
    L = task.L
    for a in range(L):
        lst = task.lists[a]
        for k, b in enumerate(lst):
            skip = set(lst[: k + 1])  # c may not precede b in L_a, nor be b
            firsts: dict[int, int] = {}
            for c in sorted({a, b} - skip):  # c in {a, b}: |A| = 2 (or 1 when a = b = c, which is skipped)
                firsts.setdefault(len({a, b, c}), c)
            c = 0
            while c < L and (c in skip or c in (a, b)):
                c += 1
            if c < L:  # the first other c: |A| = |{a, b}| + 1
                firsts.setdefault(len({a, b, c}), c)
            for nA, c in sorted(firsts.items(), key=lambda item: item[1]):
                yield a, b, c, nA, k


@fill_doc(_DOC)
def delta_a44(L: int, n: int | None = None, law: Mapping[frozenset[int], Fraction] | None = None) -> Fraction:
    """The largest ``delta`` of Assumption 4.4: the smallest positive probability of a size-``n`` token set
    (``1 / C(L, n)`` for uniform ``n``-subsets).

    Parameters
    ----------
    L : int
        Vocabulary size.
    {{n_or_law}}

    {{fraction_or_error}}
        Unless exactly one of ``n`` and ``law`` is given, or for an invalid law; :class:`theory._checks.LimitError`
        when ``1/C(L, n)`` has more than ``MAX_DIGITS`` digits.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import delta_a44
    >>> delta_a44(5, n=2)  # 1 / C(5, 2)
    Fraction(1, 10)
    >>> delta_a44(3, law={frozenset({0, 1}): Fraction(3, 4), frozenset({1, 2}): Fraction(1, 4)})
    Fraction(1, 4)
    """
    if (n is None) == (law is None):
        raise InputError("give exactly one of n (uniform n-subsets) or law (explicit token-set law)", param="n")
    if law is None:
        L, n = check_sequence_length(L, n)
        _check_digits(log10_binomial(L, n), "n", n, f"1/C(L, n) at L = {format_count(L)}")
        return Fraction(1, comb(L, n))
    L = check_positive_int(L, "L")
    _check_law(L, law)
    return min(p for p in law.values() if p > 0)


def _check_law(L: int, law: Mapping[frozenset[int], Fraction]) -> None:
    if not isinstance(law, Mapping):
        raise InputError(f"law must be a mapping token set -> probability, got {law!r:.80}", param="law")
    for s, p in law.items():
        if not isinstance(s, (frozenset, set, tuple)):
            raise InputError(f"the law's keys must be token sets (frozensets of ints), got {s!r:.80}", param="law")
        if any(isinstance(t, bool) or not isinstance(t, numbers.Integral) or not 0 <= t < L for t in s):
            raise InputError(f"token set {sorted(s, key=repr)!r:.80} has a token outside range(0, {L})", param="law")
        if isinstance(p, bool) or not isinstance(p, numbers.Rational):
            raise InputError(
                f"the probability of {sorted(s)} must be exact (an int or a Fraction), got {p!r:.80}", param="law"
            )
        if p < 0:
            raise InputError(f"probability of {sorted(s)} is negative: {p}", param="law")
    sizes = {len(s) for s in law}
    if len(sizes) != 1:
        raise InputError(
            f"every token set of the law must have the same size n, got sizes {sorted(sizes)}", param="law"
        )
    if sum(law.values()) != 1:
        raise InputError(f"the probabilities must sum to 1, got {sum(law.values())}", param="law")


def delta_a42(
    task: DecisionListTask,
    law: Mapping[frozenset[int], Fraction],
    misclassified: Callable[[int, frozenset[int]], bool],
) -> tuple[Fraction | None, dict[int, tuple[int, Fraction]]]:
    """``P[S]`` of Assumption 4.2 for every misclassified token, and their minimum (the largest valid ``delta``).

    For each token ``a`` misclassified in some sequence: ``k*`` is the first token of ``L_a`` that is ``a``'s LDT
    in a sequence where ``a`` is misclassified, and ``S = {s : a in s, a misclassified in s, LDT = k*}``.
    ``misclassified(a, s)`` says whether the model misclassifies ``a`` in the token set ``s``.

    Parameters
    ----------
    task : DecisionListTask
    law : mapping of frozenset of int to fractions.Fraction
        The law of the token set ``s`` (one size, summing to 1).
    misclassified : callable
        ``misclassified(a, s) -> bool``.

    Returns
    -------
    (delta, per_token)
        ``per_token[a] = (k*, P[S])``; ``delta`` is None when no token is misclassified.

    Examples
    --------
    A model that always misclassifies token 0, under uniform 2-subsets of 4 tokens and ``L_0 = (1, 0)``:

    >>> import itertools
    >>> from fractions import Fraction
    >>> from theory.decision_lists import DecisionListTask, delta_a42
    >>> task = DecisionListTask((0, 1, 2, 3), ((1, 0), (1,), (2,), (3,)))
    >>> law = {frozenset(s): Fraction(1, 6) for s in itertools.combinations(range(4), 2)}
    >>> delta_a42(task, law, lambda a, s: a == 0)  # k* = 1, S = {{0, 1}}
    (Fraction(1, 6), {0: (1, Fraction(1, 6))})
    >>> delta_a42(task, law, lambda a, s: False)
    (None, {})
    """
    task = _check_task(task)
    _check_law(task.L, law)
    if not callable(misclassified):
        raise InputError(
            f"misclassified must be a callable (a, s) -> bool, got {misclassified!r:.80}", param="misclassified"
        )
    check_cost(
        task.L * len(law),
        MAX_LOOP_STEPS,
        param="law",
        value=f"[{len(law)} token sets]",
        what=f"the enumeration (L = {task.L} tokens times the law)",
        hint="use a smaller law",
    )
    per_token: dict[int, tuple[int, Fraction]] = {}
    for a in range(task.L):
        events = [(s, p) for s, p in law.items() if a in s and p > 0 and misclassified(a, s)]
        if not events:
            continue
        order = {t: i for i, t in enumerate(task.lists[a])}
        k_star = min((label_determining_token(task, s, a) for s, _ in events), key=order.__getitem__)
        prob = sum((p for s, p in events if label_determining_token(task, s, a) == k_star), Fraction(0))
        per_token[a] = (k_star, prob)
    delta = min((p for _, p in per_token.values()), default=None)
    return delta, per_token


def misclassified_cp(task: DecisionListTask, W: Sequence[Sequence[_FractionLike]], s: Iterable[int], a: int) -> bool:
    """Whether the model with ``V = cP`` (any ``c > 0``) misclassifies ``a`` in ``s``, exactly.

    With ``V = cP`` the logits are ``c p_i`` on the labels ``pi(i)``, ``i in s``, and 0 elsewhere, so ``a`` is classified
    correctly iff its LDT ``u`` has the strictly largest ``W[u, a]`` over ``s`` (ties count as errors).

    Parameters
    ----------
    task : DecisionListTask
    W : sequence of sequence of rationals
        The ``L x L`` attention matrix (exact: ints, Fractions, floats or numeric strings).
    s : iterable of int
        The tokens of the sequence.
    a : int
        A token of ``s``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import DecisionListTask, misclassified_cp
    >>> task = DecisionListTask((1, 2, 0), ((1, 0), (1,), (2,)))
    >>> W = [[0, 0, 0], [Fraction(1, 2), 1, 0], [Fraction(1, 2), 0, 1]]
    >>> misclassified_cp(task, W, (0, 1), 0)
    False
    >>> misclassified_cp(task, W, (0, 1, 2), 0)  # W[1][0] = W[2][0]: a tie is an error
    True
    """
    task = _check_task(task)
    seq = check_sequence(task.L, tuple(s))
    u = label_determining_token(task, seq, a)
    a = int(a)
    rows = _exact_rows(W, task.L, "W")
    return any(as_fraction(rows[i][a], "W") >= as_fraction(rows[u][a], "W") for i in seq if i != u)


def _exact_rows(W: object, L: int, name: str) -> Sequence[Sequence[object]]:
    """``W`` checked to be an L x L matrix (a sequence of L rows of length L); its entries are converted later."""
    rows = W.tolist() if hasattr(W, "tolist") else W
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or len(rows) != L:
        raise InputError(f"{name} must be an L x L matrix with L = {L}, got {W!r:.80}", param=name)
    for row in rows:
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or len(row) != L:
            raise InputError(f"{name} must be an L x L matrix with L = {L}, got a row {row!r:.80}", param=name)
    return rows


def thm43_sets(
    task: DecisionListTask, W: Sequence[Sequence[_FractionLike]], n: int
) -> dict[int, tuple[int, list[tuple[int, ...]]]]:
    """For ``V = cP`` and uniform ``n``-subsets: every misclassified token ``a`` with its ``k*`` and the sequences of
    its set ``S`` (proofs of Theorems 4.3 and 4.4), via :func:`misclassified_cp`, exactly.

    Parameters
    ----------
    task : DecisionListTask
    W : sequence of sequence of rationals
        The ``L x L`` attention matrix (exact).
    n : int
        Sequence length, ``1 <= n <= L``.

    Returns
    -------
    dict
        ``a -> (k*, [s, ...])`` for every misclassified token ``a``, the sequences as sorted tuples.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import DecisionListTask, thm43_sets
    >>> task = DecisionListTask((1, 2, 0), ((1, 0), (1,), (2,)))
    >>> W = [[0, 0, 0], [Fraction(1, 2), 1, 0], [Fraction(1, 2), 0, 1]]
    >>> thm43_sets(task, W, 3)
    {0: (1, [(0, 1, 2)])}
    >>> thm43_sets(task, W, 2)  # in {0, 2} the LDT of 0 is 0 itself, and W[2][0] > W[0][0]
    {0: (0, [(0, 2)])}
    """
    task = _check_task(task)
    L, n = check_sequence_length(task.L, n)
    rows = _exact_rows(W, L, "W")
    log_count = log10_binomial(L, n) + math.log10(L + n * n)
    check_cost(
        log_count,
        math.log10(MAX_LOOP_STEPS),
        param="n",
        value=n,
        what=f"the enumeration (C(L, n) sequences times L + n^2 steps, L = {L}),",
        hint="the uniform law's closed forms (delta_a43, delta_a44) do not enumerate",
        log10=True,
    )
    W = [[as_fraction(x, "W") for x in row] for row in rows]
    out: dict[int, tuple[int, list[tuple[int, ...]]]] = {}
    subsets = list(uniform_subsets(task.L, n))
    for a in range(task.L):
        wrong = [s for s in subsets if a in s and misclassified_cp(task, W, s, a)]
        if not wrong:
            continue
        order = {t: i for i, t in enumerate(task.lists[a])}
        k_star = min((label_determining_token(task, s, a) for s in wrong), key=order.__getitem__)
        out[a] = (k_star, [s for s in wrong if label_determining_token(task, s, a) == k_star])
    return out


# --- Theorems 4.3 and 4.4: loss at initialisation, constants, proof algebra -----------------------------------------


def initial_loss(L: object, n: object, c: object) -> sympy.Expr:
    r"""``L_0 = log(n + (L - n) e^{-c/n})``: the loss at ``W = 0, V = cP`` (every sequence and position).

    At ``W = 0`` the attention is ``p = 1_s / n``, so ``z = cP p`` is ``c/n`` on the ``n`` labels ``pi(s)`` (the
    true one among them) and 0 elsewhere: ``-log sigma_y = log(n + (L - n) e^{-c/n}) <= log L`` (used, as
    ``L_0 <= log L``, in the proof of Theorem 4.3). Symbols are allowed.

    Parameters
    ----------
    L, n : int or sympy.Expr
        Vocabulary size and sequence length (checked ``1 <= n <= L`` when both are ints).
    c : number or sympy.Expr
        The scale of ``V = cP``.

    Returns
    -------
    sympy.Expr
        ``L_0`` (exact).

    Examples
    --------
    >>> import sympy
    >>> from theory.decision_lists import initial_loss
    >>> initial_loss(6, 3, 2)
    log(3*exp(-2/3) + 3)
    >>> initial_loss(6, 3, 0)  # c = 0: the uniform prediction over the L labels
    log(6)
    >>> n, c = sympy.symbols("n c", positive=True)
    >>> initial_loss(10, n, c)
    log(n + (10 - n)*exp(-c/n))
    """
    Ls, ns, cs = as_number(L, "L"), as_number(n, "n"), as_number(c, "c")
    if Ls.is_number and ns.is_number:
        check_sequence_length(L, n)
    else:
        for name, x, v in (("L", L, Ls), ("n", n, ns)):
            if v.is_number:
                check_positive_int(x, name)
    if cs.is_number and cs.is_real is not True:
        raise InputError(f"c must be a real number, got {c!r:.80}", param="c")
    e, kept = _exp(-cs / ns)
    if kept:  # evaluate=False all the way up: Mul and Add would rewrite exp(q log L) as L**q again
        return log(sympy.Add(ns, sympy.Mul(Ls - ns, e, evaluate=False), evaluate=False), evaluate=False)
    return log(ns + (Ls - ns) * e)


def _exp(x: sympy.Expr) -> tuple[sympy.Expr, bool]:
    """``(exp(x), False)``, or ``(exp(x) unevaluated, True)`` when sympy would expand it into an exact power of more
    than MAX_DIGITS digits.

    sympy rewrites ``exp(q log B)`` with rational q and B as ``B**q``, an exact rational of ``|q| log10 B`` digits: at
    Theorem 4.3's ``c = 4 n^2 log L / delta``, ``exp(-c/n) = L^(-4n/delta)`` has ``(4n/delta) log10 L`` digits
    (~772,000 at L = 61, n = 3; 36 million at L = 200). ``exp(-(4n/delta) log L)`` is the same exact number, kept in
    that form (its evalf is cheap); below the limit the expansion is kept, as before.
    """
    for term in sympy.Add.make_args(x):
        coeff, rest = term.as_coeff_Mul()
        factors = sympy.Mul.make_args(rest)
        logs = [f for f in factors if isinstance(f, sympy.log)]
        if len(logs) != 1 or not all(f.is_number for f in factors):
            continue
        base = logs[0].args[0]
        exponent = coeff * sympy.Mul(*(f for f in factors if not isinstance(f, sympy.log)))
        if not (base.is_Rational and exponent.is_Rational) or exponent == 0:
            continue
        height = max(abs(int(base.p)), int(base.q))
        if height < 2:
            continue
        log_digits = math.log10(abs(int(exponent.p))) - math.log10(int(exponent.q)) + math.log10(math.log10(height))
        if log_digits > math.log10(MAX_DIGITS):
            return exp(x, evaluate=False), True
    return exp(x), False


def _sym(x: object, name: str = "value") -> sympy.Expr:
    """A caller's number as sympy, never evaluating a string as code (:func:`theory._checks.as_number`); a number must
    be real."""
    v = as_number(x, name)
    if v.is_number and v.is_real is not True:
        raise InputError(f"{name} must be a real number, got {x!r:.80}", param=name)
    return v


def _in_range(
    x: object, name: str, lo: object, hi: object | None = None, *, lo_open: bool = False, why: str = ""
) -> sympy.Expr:
    """``x`` as sympy, checked to lie in ``(lo, hi]`` (``lo_open``) or ``[lo, hi]`` when it is a number (a symbol
    passes unchecked, for the proof algebra); ``why`` names the hypothesis of the thesis that needs the range."""
    v = _sym(x, name)
    if not v.is_number:
        return v
    low_ok = v > lo if lo_open else v >= lo
    high_ok = hi is None or v <= hi
    if not (bool(low_ok) and bool(high_ok)):
        left = "(" if lo_open else "["
        right = f"{hi}]" if hi is not None else "oo)"
        extra = f" ({why})" if why else ""
        raise InputError(f"{name} must lie in {left}{lo}, {right}{extra}, got {name} = {v}", param=name)
    return v


def thm43_c(n: object, L: object, delta: object) -> sympy.Expr:
    """Theorem 4.3's value scale ``c = 4 n^2 log L / delta``.

    Parameters
    ----------
    n : int or sympy.Expr
        Sequence length, ``n >= 1``.
    L : int or sympy.Expr
        Vocabulary size, ``L >= 2``.
    delta : number or sympy.Expr
        ``delta`` of Assumption 4.3, in ``(0, 1]``.

    Returns
    -------
    sympy.Expr
        ``c`` (exact).

    Raises
    ------
    ValueError
        For a numeric ``n < 1``, ``L < 2`` (``log L > 0``) or ``delta`` outside ``(0, 1]`` (a probability bound of
        Assumption 4.3); symbols are allowed (the proof algebra).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import thm43_c
    >>> thm43_c(3, 8, 1), thm43_c(3, 8, Fraction(1, 2))
    (36*log(8), 72*log(8))
    >>> thm43_c(3, 8, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: delta must lie in (0, 1] (Assumption 4.3: a positive probability), got delta = 0
    """
    ns = _in_range(n, "n", 1, why="sequence length")
    Ls = _in_range(L, "L", 2, why="Theorem 4.3 needs log L > 0")
    ds = _in_range(delta, "delta", 0, 1, lo_open=True, why="Assumption 4.3: a positive probability")
    _check_digits(2 * _digits(ns) + _digits(ds) + 1, "n", n, "4 n^2 / delta")
    return 4 * ns**2 * log(Ls) / ds


def thm44_c(n: object, delta: object, eps: object, M: object, Lbar: object) -> sympy.Expr:
    """Theorem 4.4's threshold ``c = (4 Lbar sqrt(M / eps) + 6 eps / n) (10 n^2 / delta) + 4 eps`` (c must exceed it).

    Parameters
    ----------
    n : int or sympy.Expr
        Sequence length, ``n >= 1``.
    delta : number or sympy.Expr
        ``delta`` of Assumption 4.4, in ``(0, 1]``.
    eps : number or sympy.Expr
        ``eps > 0``, with ``||V_0 - cP|| <= eps / 2``.
    M : number or sympy.Expr
        Longest decision list, ``M >= 1``.
    Lbar : number or sympy.Expr
        ``Lbar = max{1, L_0} >= 1``.

    Returns
    -------
    sympy.Expr
        The threshold (exact).

    Raises
    ------
    ValueError
        For a numeric ``n < 1``, ``delta`` outside ``(0, 1]``, ``eps <= 0``, ``M < 1`` or ``Lbar < 1``; symbols are
        allowed (the proof algebra).

    Examples
    --------
    >>> from theory.decision_lists import thm44_c
    >>> thm44_c(1, 1, 1, 1, 1)  # (4 + 6) * 10 + 4
    104
    >>> thm44_c(3, 1, 0, 2, 1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: eps must lie in (0, oo) (Theorem 4.4: ||V_0 - cP|| <= eps/2 with eps > 0), got eps = 0
    """
    ns = _in_range(n, "n", 1, why="sequence length")
    ds = _in_range(delta, "delta", 0, 1, lo_open=True, why="Assumption 4.4: a positive probability")
    es = _in_range(eps, "eps", 0, lo_open=True, why="Theorem 4.4: ||V_0 - cP|| <= eps/2 with eps > 0")
    Ms = _in_range(M, "M", 1, why="the longest decision list")
    Lb = _in_range(Lbar, "Lbar", 1, why="Lbar = max{1, L_0} >= 1")
    _check_digits(
        2 * _digits(ns) + _digits(ds) + 2 * _digits(es) + _digits(Ms) + _digits(Lb) + 3, "n", n, "the threshold c"
    )
    return (4 * Lb * sqrt(Ms / es) + 6 * es / ns) * 10 * ns**2 / ds + 4 * es


def thm44_notin_S_bound(n: int, eps: object) -> sympy.Expr:
    """The bound for ``s not in S`` that the proof of Theorem 4.4 derives and uses: ``<grad_w L(W,V;s), v> <= 6 eps/n``
    (the theorem's text says ``6 eps``; ``docs/decision_lists.md``).

    Parameters
    ----------
    n : int
        Sequence length, ``n >= 1``.
    eps : number or sympy.Expr
        The entry-wise bound on ``V - cP``, ``eps >= 0``.

    Returns
    -------
    sympy.Expr
        ``6 eps / n``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import thm44_notin_S_bound
    >>> thm44_notin_S_bound(3, Fraction(1, 2))
    1
    """
    n = check_positive_int(n, "n")
    return 6 * _in_range(eps, "eps", 0, why="an entry-wise bound on V - cP") / n


@fill_doc(_DOC)
def thm44_in_S_bound(n: int, c: object, eps: object, p: object) -> sympy.Expr:
    """The bound for ``s in S`` in the proof of Theorem 4.4: ``-(1/2n) p(1 - p)(c - 4 eps)`` with ``p = p_{k*}``.

    Parameters
    ----------
    n : int
        Sequence length, ``n >= 1``.
    c : number or sympy.Expr
        The scale of ``cP``.
    eps : number or sympy.Expr
        The entry-wise bound on ``V - cP``, ``eps >= 0``.
    {{p_attention_expr}}

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import thm43_in_S_bound, thm44_in_S_bound
    >>> thm44_in_S_bound(3, 10, 1, Fraction(1, 2))  # -(1/6)(1/4)(10 - 4)
    -1/4
    >>> thm44_in_S_bound(3, 10, 0, Fraction(1, 2)) == thm43_in_S_bound(3, 10, Fraction(1, 2))
    True
    """
    n = check_positive_int(n, "n")
    ps = _in_range(p, "p", 0, 1, why="an attention weight")
    es = _in_range(eps, "eps", 0, why="an entry-wise bound on V - cP")
    return -ps * (1 - ps) * (_sym(c, "c") - 4 * es) / (2 * n)


@fill_doc(_DOC)
def thm43_in_S_bound(n: int, c: object, p: object) -> sympy.Expr:
    """The bound for ``s in S`` that the proof of Theorem 4.3 derives (``V = cP``):
    ``<grad_w L(W; s), v> <= -(c/2n) p(1 - p)`` with ``p = p_{k*}`` (from ``sigma_y <= 1/2``); the
    ``eps = 0`` case of :func:`thm44_in_S_bound`.

    Parameters
    ----------
    n : int
        Sequence length, ``n >= 1``.
    c : number or sympy.Expr
        The scale of ``V = cP``.
    {{p_attention_expr}}

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import thm43_in_S_bound
    >>> thm43_in_S_bound(3, 10, Fraction(1, 2))  # -(10/6)(1/4)
    -5/12
    """
    n = check_positive_int(n, "n")
    ps = _in_range(p, "p", 0, 1, why="an attention weight")
    return -_sym(c, "c") * ps * (1 - ps) / (2 * n)


@fill_doc(_DOC)
def thm43_in_S_bound_printed(c: object, p: object) -> sympy.Expr:
    """The s in S bound of the proof of Theorem 4.3 as printed, ``-(eps/2) p(1 - p)``, with the undefined ``eps``
    read as the value scale ``c``: ``-(c/2) p(1 - p)`` (``n`` times the derived :func:`thm43_in_S_bound`; erratum
    in ``docs/decision_lists.md``).

    Parameters
    ----------
    c : number or sympy.Expr
        The value scale (the printed ``eps``).
    {{p_attention_expr}}

    Examples
    --------
    The printed bound is ``n`` times the derived one:

    >>> from fractions import Fraction
    >>> from theory.decision_lists import thm43_in_S_bound, thm43_in_S_bound_printed
    >>> thm43_in_S_bound_printed(10, Fraction(1, 2))
    -5/4
    >>> thm43_in_S_bound_printed(10, Fraction(1, 2)) == 3 * thm43_in_S_bound(3, 10, Fraction(1, 2))
    True
    """
    ps = _in_range(p, "p", 0, 1, why="an attention weight")
    return -_sym(c, "c") * ps * (1 - ps) / 2


def lemma41_drift_bound_printed() -> sympy.Rational:
    """The last step of the proof of Lemma 4.1 as printed, divided by ``eps``: ``T eta / eps = 1/(2 L) <= 1/2`` with
    ``T = lambda_max eps / (2 L)``, ``eta = 1 / lambda_max`` (the bound each entry of ``V`` may drift, over ``eps``).
    It needs ``L >= 1``, true of ``Lbar = max{1, L_0}`` but not of the loss ``L_0`` (``docs/decision_lists.md``).

    Returns
    -------
    sympy.Rational
        ``1/2``.

    Examples
    --------
    The printed ``1/2`` is ``T eta / eps = 1/(2 L)`` at ``L = 1``:

    >>> import sympy
    >>> from theory.decision_lists import lemma41_drift_bound_printed
    >>> lam, eps, L = sympy.symbols("lam eps L", positive=True)
    >>> T, eta = lam * eps / (2 * L), 1 / lam
    >>> T * eta / eps, lemma41_drift_bound_printed() == (T * eta / eps).subs(L, 1)
    (1/(2*L), True)
    """
    return sympy.Rational(1, 2)


#: The positive symbols of the proof algebra (n, L, delta, M, eps, Lbar, L0, lam = lambda_max).
ALGEBRA_SYMBOLS: dict[str, Symbol] = {
    name: Symbol(name, positive=True) for name in ("n", "L", "delta", "M", "eps", "Lbar", "L0", "lam")
}


def thm43_algebra() -> dict[str, tuple[sympy.Expr, sympy.Expr]]:
    r"""The algebra of the proof of Theorem 4.3 as ``name -> (printed, derived)`` pairs (equal iff the step holds).

    With ``c = 4 n^2 log L / delta`` and ``L_0 <= log L``:

    * ``delta_prime``: ``(1/n)(c/2n) delta' <= L_0`` gives ``delta' <= 2 n^2 log L / c = delta / 2``;
    * ``directional``: ``(delta/2)(c/2n)(1/2n)(1 - 1/2n) = (2n - 1) log L / (4n)`` (the bound on
      ``|<grad L, v>|``), and its excess over ``log L / 4`` is ``(n - 1) log L / (4n) >= 0``;
    * ``grad_norm_sq``: ``(log L / 4)^2 / M = log^2 L / (16 M)`` (``||v|| <= sqrt(M)``);
    * ``gd_bound``: ``2 lambda L_0 / T`` at ``T = 32 M lambda / log L`` and ``L_0 = log L`` is ``log^2 L / (16 M)``.

    Returns
    -------
    dict of str to tuple of sympy.Expr
        ``name -> (printed, derived)`` in the symbols :data:`ALGEBRA_SYMBOLS`.

    Examples
    --------
    >>> from theory.decision_lists import thm43_algebra
    >>> steps = thm43_algebra()
    >>> steps["delta_prime"]
    (delta/2, delta/2)
    >>> all(printed == derived for printed, derived in steps.values())
    True
    """
    S = ALGEBRA_SYMBOLS
    n, L, delta, M, lam = S["n"], S["L"], S["delta"], S["M"], S["lam"]
    c = thm43_c(n, L, delta)
    delta_prime = sympy.simplify(log(L) / ((1 / n) * (c / (2 * n))))
    directional = sympy.simplify((delta / 2) * (c / (2 * n)) * (1 / (2 * n)) * (1 - 1 / (2 * n)))
    T = 32 * M * lam / log(L)
    return {
        "delta_prime": (delta / 2, delta_prime),
        "directional": ((2 * n - 1) * log(L) / (4 * n), directional),
        "directional_excess": ((n - 1) * log(L) / (4 * n), sympy.simplify(directional - log(L) / 4)),
        "grad_norm_sq": (log(L) ** 2 / (16 * M), sympy.simplify((log(L) / 4) ** 2 / M)),
        "gd_bound": (log(L) ** 2 / (16 * M), sympy.simplify(2 * lam * log(L) / T)),
    }


def thm44_algebra(s_notin_S_bound: str = "corrected") -> dict[str, tuple[sympy.Expr, sympy.Expr]]:
    r"""The algebra of the proof of Theorem 4.4 as ``name -> (printed, derived)`` pairs.

    With ``c`` at the threshold of :func:`thm44_c`:

    * ``denominator``: ``c/(2n) - 2 eps = (20 Lbar n / delta) sqrt(M/eps) + 30 eps / delta + 2 eps / n - 2 eps``;
    * ``small_attention_mass``: ``(n L_0) / ((20 Lbar n / delta) sqrt(M/eps))`` is ``(delta/20)(L_0/Lbar)
      sqrt(eps/M)``, which at the largest allowed ``eps = 16 M`` and ``L_0 = Lbar`` is ``delta / 5``;
    * ``directional``: ``-(1/2n)(1/4n)(c - 4 eps)(4 delta/5) + b`` with ``b`` the bound for ``s not in S``: the
      proof's ``6 eps / n`` (``"corrected"``) gives exactly ``-4 Lbar sqrt(M/eps)``; the statement's ``6 eps``
      (``"printed"``) leaves ``6 eps (n - 1)/n`` over it;
    * ``grad_norm_sq``: ``(4 Lbar sqrt(M/eps))^2 / M = 16 Lbar^2 / eps``;
    * ``gd_bound``: ``2 lambda L_0 / T`` at ``T = lambda eps / (2 Lbar)`` is ``4 L_0 Lbar / eps``;
    * ``lemma41``: ``T eta = eps / (2 Lbar)`` at ``eta = 1 / lambda``.

    Parameters
    ----------
    s_notin_S_bound : {"corrected", "printed"}, optional
        Which bound for ``s not in S`` enters ``directional``: the proof's ``6 eps / n`` or the statement's ``6 eps``.

    Returns
    -------
    dict of str to tuple of sympy.Expr
        ``name -> (printed, derived)`` in the symbols :data:`ALGEBRA_SYMBOLS`.

    Raises
    ------
    ValueError
        For another ``s_notin_S_bound``.

    Examples
    --------
    With the statement's ``6 eps`` every step holds but ``directional``, which keeps ``6 eps (n - 1)/n``:

    >>> from theory.decision_lists import thm44_algebra
    >>> steps = thm44_algebra("printed")
    >>> [name for name, (printed, derived) in steps.items() if printed != derived]
    ['directional']
    >>> printed, derived = steps["directional"]
    >>> printed, derived - printed
    (-4*Lbar*sqrt(M)/sqrt(eps), 6*eps - 6*eps/n)
    """
    if not isinstance(s_notin_S_bound, str) or s_notin_S_bound not in ("corrected", "printed"):
        raise InputError(
            f"s_notin_S_bound must be 'corrected' or 'printed', got {s_notin_S_bound!r:.80}", param="s_notin_S_bound"
        )
    S = ALGEBRA_SYMBOLS
    n, delta, M, eps, Lbar, L0, lam = S["n"], S["delta"], S["M"], S["eps"], S["Lbar"], S["L0"], S["lam"]
    c = thm44_c(n, delta, eps, M, Lbar)
    small = n * L0 / ((20 * Lbar * n / delta) * sqrt(M / eps))
    b = 6 * eps / n if s_notin_S_bound == "corrected" else 6 * eps
    directional = -(1 / (2 * n)) * (1 / (4 * n)) * (c - 4 * eps) * (4 * delta / 5) + b
    T = lam * eps / (2 * Lbar)
    return {
        "denominator": (
            20 * Lbar * n / delta * sqrt(M / eps) + 30 * eps / delta + 2 * eps / n - 2 * eps,
            sympy.expand(c / (2 * n) - 2 * eps),
        ),
        "small_attention_mass": (delta / 20 * (L0 / Lbar) * sqrt(eps / M), sympy.simplify(small)),
        "small_attention_mass_at_16M": (delta / 5, sympy.simplify(small.subs({eps: 16 * M, L0: Lbar}))),
        "directional": (-4 * Lbar * sqrt(M / eps), sympy.simplify(sympy.expand(directional))),
        "grad_norm_sq": (16 * Lbar**2 / eps, sympy.simplify((4 * Lbar * sqrt(M / eps)) ** 2 / M)),
        "gd_bound": (4 * L0 * Lbar / eps, sympy.simplify(2 * lam * L0 / T)),
        "lemma41": (eps / (2 * Lbar), sympy.simplify(T / lam)),
    }


# --- the gradient identities of Sec. 4.3.3 (40-digit arithmetic) ----------------------------------------------------


def _num(x: object, name: str = "value") -> sympy.Float:
    v = as_number(x, name, symbolic=False)
    if v.is_real is not True:
        raise InputError(f"{name} must hold real numbers, got {x!r:.80}", param=name)
    # sympy.Float takes rationals and floats but not an exact irrational such as log(2): evaluate that first
    return sympy.Float(v if v.is_Rational or v.is_Float else v.evalf(DIGITS), DIGITS)


def _check_entries(count: int, name: str, what: str) -> None:
    check_cost(
        count,
        MAX_EXACT_ENTRIES,
        param=name,
        value=f"[{what}]",
        what=f"the number of {DIGITS}-digit entries of the computation",
        hint="the gradient identities are checks on small vocabularies; numerics/ and verify/ evaluate large ones",
    )


def _matrix(M: Sequence[Sequence[object]], L: int, name: str) -> list[list[sympy.Float]]:
    rows = _exact_rows(M, L, name)
    _check_entries(L * L, name, f"{L} x {L} matrix")
    return [[_num(x, name) for x in row] for row in rows]


def _vector(p: object, name: str, L: int | None = None) -> list:
    """A probability-like vector: a sequence of finite real numbers (of length L when given), returned unchanged."""
    items = p.tolist() if hasattr(p, "tolist") else p  # a numpy scalar's tolist() is a number, not a list
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise InputError(f"{name} must be a sequence of numbers, got {p!r:.80}", param=name)
    values = list(items)
    if not values or (L is not None and len(values) != L):
        raise InputError(
            f"{name} must have {'L = ' + str(L) if L is not None else 'at least one'} entries, got {len(values)}",
            param=name,
        )
    for x in values:
        if isinstance(x, (str, bytes)):
            raise InputError(f"{name} must hold numbers, got the string {x!r:.40}", param=name)
        if as_number(x, name, symbolic=False).is_real is not True:
            raise InputError(f"{name} must hold real numbers, got {x!r:.80}", param=name)
    return values


def _permutation(perm: object, L: int) -> tuple[int, ...]:
    if isinstance(perm, (str, bytes)) or not isinstance(perm, Sequence):
        raise InputError(f"perm must be a permutation of range({L}), got {perm!r:.80}", param="perm")
    if len(perm) != L or any(isinstance(t, bool) or not isinstance(t, numbers.Integral) for t in perm):
        raise InputError(f"perm must be a permutation of range({L}), got {perm!r:.80}", param="perm")
    out = tuple(int(t) for t in perm)
    if sorted(out) != list(range(L)):
        raise InputError(f"perm must be a permutation of range({L}), got {perm!r:.80}", param="perm")
    return out


def _tokens(s: object, name: str, L: int) -> tuple[int, ...]:
    if isinstance(s, (str, bytes)) or not hasattr(s, "__iter__"):
        raise InputError(f"{name} must be a collection of tokens, got {s!r:.80}", param=name)
    return tuple(_token(t, name, L) for t in s)


def attention_column(W: Sequence[Sequence[object]], s: Sequence[int], a: int) -> list[sympy.Float]:
    r"""The attention of query ``a`` over the tokens: ``p_i = e^{W[i,a]} / sum_{k in s} e^{W[k,a]}`` for ``i in s``,
    0 outside ``s`` (the column of ``X sigma(X^T W X)`` at ``a``'s position, indexed by token).

    Parameters
    ----------
    W : sequence of sequence of numbers
        The ``L x L`` attention matrix (ints, Fractions, floats, numeric strings or sympy numbers).
    s : sequence of int
        A valid sequence (:func:`check_sequence`).
    a : int
        The query token, in ``s``.

    Returns
    -------
    list of sympy.Float
        ``p`` indexed by token, at :data:`DIGITS` digits.

    Raises
    ------
    ValueError
        If ``a`` is not in ``s``, ``s`` is invalid or ``W`` is not ``L x L``.

    Examples
    --------
    ``W[1, 0] = log 2`` doubles the weight of token 1 for the query 0:

    >>> import sympy
    >>> from theory.decision_lists import attention_column
    >>> W = [[0, 0, 0], [sympy.log(2), 0, 0], [0, 0, 0]]
    >>> [float(x) for x in attention_column(W, (0, 1, 2), 0)]
    [0.25, 0.5, 0.25]
    >>> [float(x) for x in attention_column(W, (0, 2), 0)]  # token 1 absent
    [0.5, 0.0, 0.5]
    """
    rows = W.tolist() if hasattr(W, "tolist") else W
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise InputError(f"W must be an L x L matrix, got {W!r:.80}", param="W")
    L = len(rows)
    s = check_sequence(L, s)
    a = _token(a, "a", L)
    if a not in s:
        raise InputError(f"query token {a} is not in the sequence {s}", param="a")
    Wm = _matrix(rows, L, "W")
    weights = {i: exp(Wm[i][a]) for i in s}
    total = sum(weights.values())
    return [weights[i] / total if i in weights else sympy.Float(0, DIGITS) for i in range(L)]


def output_probs(V: Sequence[Sequence[object]], p: Sequence[sympy.Expr]) -> list[sympy.Float]:
    """``sigma = softmax(V p)`` over the ``L`` output labels.

    Parameters
    ----------
    V : sequence of sequence of numbers
        The ``L x L`` value matrix.
    p : sequence of sympy numbers
        An attention column (:func:`attention_column`).

    Returns
    -------
    list of sympy.Float
        ``sigma``, at :data:`DIGITS` digits.

    Examples
    --------
    >>> from theory.decision_lists import output_probs
    >>> p = [0.25, 0.5, 0.25]
    >>> [round(float(x), 6) for x in output_probs([[0] * 3] * 3, p)]  # V = 0: uniform
    [0.333333, 0.333333, 0.333333]
    >>> V = [[0, 0, 3], [3, 0, 0], [0, 3, 0]]  # V = 3P with pi = (1, 2, 0): logits (0.75, 0.75, 1.5)
    >>> [round(float(x), 6) for x in output_probs(V, p)]
    [0.242895, 0.242895, 0.514209]
    """
    p = _vector(p, "p")
    L = len(p)
    Vm = _matrix(V, L, "V")
    z = [sum(Vm[l][i] * p[i] for i in range(L)) for l in range(L)]
    zmax = max(z)
    e = [exp(zl - zmax) for zl in z]
    total = sum(e)
    return [x / total for x in e]


def attention_jacobian(p: Sequence[sympy.Expr], s: Iterable[int]) -> list[list[sympy.Float]]:
    r"""``J[i][k] = dp_i / dw_k``: ``p_i (1{i = k} - p_k)`` for ``i, k in s``; 0 when ``k`` (or ``i``) is not in ``s``
    (Sec. 4.3.3, the first display of the proofs of Theorems 4.3 and 4.4).

    Parameters
    ----------
    p : sequence of sympy numbers
        An attention column (:func:`attention_column`).
    s : iterable of int
        The tokens of the sequence.

    Returns
    -------
    list of list
        The ``L x L`` matrix ``J``.

    Examples
    --------
    Every column sums to 0 (``p`` stays on the simplex):

    >>> from theory.decision_lists import attention_jacobian
    >>> J = attention_jacobian([0.25, 0.5, 0.25], (0, 1, 2))
    >>> [[float(x) for x in row] for row in J]
    [[0.1875, -0.125, -0.0625], [-0.125, 0.25, -0.125], [-0.0625, -0.125, 0.1875]]
    >>> [float(sum(J[i][k] for i in range(3))) for k in range(3)]
    [0.0, 0.0, 0.0]
    """
    p = _vector(p, "p")
    L = len(p)
    _check_entries(L * L, "p", f"{L} x {L} Jacobian")
    present = set(_tokens(s, "s", L))
    zero = sympy.Float(0, DIGITS)
    return [
        [p[i] * ((1 if i == k else 0) - p[k]) if i in present and k in present else zero for k in range(L)]
        for i in range(L)
    ]


@fill_doc(_DOC)
def grad_w_column(V: Sequence[Sequence[object]], p: Sequence[sympy.Expr], sigma: Sequence[sympy.Expr], y: int) -> list:
    r"""Per-token chain rule of Sec. 4.3.3: ``dl/dw_k = p_k [(Vp)_y - V_{y,k} + sum_l sigma_l (V_{l,k} - (Vp)_l)]``
    for ``l = -log sigma_y`` and ``w`` the query's column of ``W`` (0 for ``k`` outside ``s``, where ``p_k = 0``).

    Parameters
    ----------
    V : sequence of sequence of numbers
        The ``L x L`` value matrix.
    p : sequence of sympy numbers
        The query's attention column (:func:`attention_column`).
    sigma : sequence of sympy numbers
        The prediction ``softmax(V p)`` (:func:`output_probs`).
    y : int
        The label of the query.

    {{grad_w}}

    Examples
    --------
    The entries sum to 0 (adding a constant to the column leaves ``p`` unchanged):

    >>> import sympy
    >>> from theory.decision_lists import attention_column, grad_w_column, output_probs
    >>> W = [[0, 0, 0], [sympy.log(2), 0, 0], [0, 0, 0]]
    >>> V = [[0, 0, 3], [3, 0, 0], [0, 3, 0]]
    >>> p = attention_column(W, (0, 1, 2), 0)
    >>> g = grad_w_column(V, p, output_probs(V, p), y=2)
    >>> [round(float(x), 6) for x in g]
    [0.273257, -0.546514, 0.273257]
    >>> abs(sum(g)) < 1e-35
    True
    """
    p = _vector(p, "p")
    L = len(p)
    sigma = _vector(sigma, "sigma", L)
    y = _token(y, "y", L)
    Vm = _matrix(V, L, "V")
    Vp = [sum(Vm[l][i] * p[i] for i in range(L)) for l in range(L)]
    mix = sum(sigma[l] * Vp[l] for l in range(L))
    return [p[k] * (Vp[y] - Vm[y][k] + sum(sigma[l] * Vm[l][k] for l in range(L)) - mix) for k in range(L)]


@fill_doc(_DOC)
def grad_w_column_cp(
    c: object, perm: Sequence[int], p: Sequence[sympy.Expr], sigma: Sequence[sympy.Expr], u: int, s: Iterable[int]
) -> list:
    r"""The same gradient with ``V = cP`` (``u`` = the label-determining token, ``y = pi(u)``):
    ``dl/dw_k = c p_k [p_u - 1{k = u} + sigma_{pi(k)} - sum_{i in s} sigma_{pi(i)} p_i]``.

    Parameters
    ----------
    c : number
        The scale of ``V = cP``.
    perm : sequence of int
        ``pi`` (:attr:`DecisionListTask.perm`).
    p : sequence of sympy numbers
        The query's attention column.
    sigma : sequence of sympy numbers
        The prediction ``softmax(cP p)``.
    u : int
        The query's LDT.
    s : iterable of int
        The tokens of the sequence.

    {{grad_w}}

    Examples
    --------
    It agrees with :func:`grad_w_column` at ``V = 3P``:

    >>> import sympy
    >>> from theory.decision_lists import attention_column, grad_w_column, grad_w_column_cp, output_probs
    >>> perm, W = (1, 2, 0), [[0, 0, 0], [sympy.log(2), 0, 0], [0, 0, 0]]
    >>> V = [[3 if perm[k] == r else 0 for k in range(3)] for r in range(3)]
    >>> p = attention_column(W, (0, 1, 2), 0)
    >>> sigma = output_probs(V, p)
    >>> special = grad_w_column_cp(3, perm, p, sigma, u=1, s=(0, 1, 2))
    >>> general = grad_w_column(V, p, sigma, y=perm[1])
    >>> max(abs(a - b) for a, b in zip(special, general)) < 1e-35
    True
    """
    cf = _num(c, "c")
    p = _vector(p, "p")
    L = len(p)
    sigma, perm = _vector(sigma, "sigma", L), _permutation(perm, L)
    u, s = _token(u, "u", L), _tokens(s, "s", L)
    mix = sum(sigma[perm[i]] * p[i] for i in s)
    return [cf * p[k] * (p[u] - (1 if k == u else 0) + sigma[perm[k]] - mix) for k in range(len(p))]


def grad_v_rows(p: Sequence[sympy.Expr], sigma: Sequence[sympy.Expr], y: int) -> list[list]:
    r"""``grad_{v_y} l = (sigma_y - 1) p`` and ``grad_{v_l} l = sigma_l p`` for ``l != y`` (rows of ``V``; Sec. 4.3.3,
    proof of Theorem 4.4).

    Parameters
    ----------
    p : sequence of sympy numbers
        The query's attention column.
    sigma : sequence of sympy numbers
        The prediction.
    y : int
        The label of the query.

    Returns
    -------
    list of list
        The ``L x L`` gradient of ``l`` in ``V``.

    Examples
    --------
    Each column sums to ``(sum_l sigma_l - 1) p_k = 0``:

    >>> from theory.decision_lists import grad_v_rows
    >>> G = grad_v_rows([0.5, 0.0, 0.5], [0.25, 0.25, 0.5], y=2)
    >>> G
    [[0.125, 0.0, 0.125], [0.125, 0.0, 0.125], [-0.25, -0.0, -0.25]]
    >>> [sum(G[l][k] for l in range(3)) for k in range(3)]
    [0.0, 0.0, 0.0]
    """
    p = _vector(p, "p")
    L = len(p)
    _check_entries(L * L, "p", f"{L} x {L} gradient")
    sigma = _vector(sigma, "sigma", L)
    y = _token(y, "y", L)
    return [[(sigma[l] - (1 if l == y else 0)) * p[k] for k in range(L)] for l in range(L)]


def sequence_gradients(
    task: DecisionListTask,
    W: Sequence[Sequence[object]],
    V: Sequence[Sequence[object]],
    seq: Sequence[int],
    *,
    cp: object | None = None,
) -> tuple[list[list], list[list]]:
    r"""``(grad_W, grad_V)`` of the sequence loss (4.2), ``(1/n) sum_j -log f_{y_j, j}``, from the identities:
    column ``a`` of ``grad_W`` is ``(1/n) dl/dw`` at ``a``'s position (:func:`grad_w_column`, or
    :func:`grad_w_column_cp` when ``cp = c`` says that ``V = cP``), and ``grad_V = (1/n) sum_j`` :func:`grad_v_rows`.
    Every entry of a row or column of a token outside the sequence is 0.

    Parameters
    ----------
    task : DecisionListTask
    W : sequence of sequence of numbers
        The ``L x L`` attention matrix.
    V : sequence of sequence of numbers
        The ``L x L`` value matrix.
    seq : sequence of int
        A valid sequence.
    cp : number or None, optional
        ``c`` when ``V = cP`` (then :func:`grad_w_column_cp` is used).

    Returns
    -------
    tuple of list of list
        ``(grad_W, grad_V)``, each ``L x L`` at :data:`DIGITS` digits.

    Examples
    --------
    At ``W = 0``, ``V = 0``: ``grad_W`` vanishes, and the column of the absent token 1 of ``grad_V`` is 0:

    >>> from theory.decision_lists import DecisionListTask, sequence_gradients
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> zero = [[0] * 3] * 3
    >>> gW, gV = sequence_gradients(task, zero, zero, (0, 2))
    >>> [[float(x) for x in row] for row in gW]
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    >>> [[round(float(x), 6) for x in row] for row in gV]
    [[-0.083333, 0.0, -0.083333], [-0.083333, 0.0, -0.083333], [0.166667, 0.0, 0.166667]]
    """
    L = _check_task(task).L
    seq = check_sequence(L, seq)
    n = len(seq)
    _check_entries(3 * n * L * L, "W", f"{n} positions x 3 matrices of {L} x {L}")
    if cp is not None:
        _num(cp, "cp")
    ys = labels(task, seq)
    zero = sympy.Float(0, DIGITS)
    gW = [[zero] * L for _ in range(L)]
    gV = [[zero] * L for _ in range(L)]
    for a, y in zip(seq, ys):
        p = attention_column(W, seq, a)
        sigma = output_probs(V, p)
        if cp is None:
            col = grad_w_column(V, p, sigma, y)
        else:
            col = grad_w_column_cp(cp, task.perm, p, sigma, label_determining_token(task, seq, a), seq)
        for k in range(L):
            gW[k][a] += col[k] / n
        rows = grad_v_rows(p, sigma, y)
        for l in range(L):
            for k in range(L):
                gV[l][k] += rows[l][k] / n
    return gW, gV


def directional_derivative_cp(
    c: object,
    n: int,
    perm: Sequence[int],
    p: Sequence[sympy.Expr],
    sigma: Sequence[sympy.Expr],
    k_star: int,
    s: Iterable[int],
) -> sympy.Float:
    r"""``<grad_w L(W; s), v>`` for ``s in S`` (``k*`` = the LDT, the tokens before it absent), ``V = cP``, exactly:

    .. math:: -\frac{c}{n} p_{k^*}\Big[(1 - p_{k^*})(1 - \sigma_y) + \sum_{i \in s \setminus k^*} \sigma_{\pi(i)} p_i\Big]

    (the proof of Theorem 4.3 bounds the bracket below by ``(1 - p_{k*})(1 - sigma_y)``, then uses ``sigma_y <= 1/2``
    to reach ``-(c/2n) p_{k*}(1 - p_{k*})``).

    Parameters
    ----------
    c : number
        The scale of ``V = cP``.
    n : int
        Sequence length.
    perm : sequence of int
        ``pi``.
    p : sequence of sympy numbers
        The query's attention column.
    sigma : sequence of sympy numbers
        The prediction.
    k_star : int
        The LDT ``k*``.
    s : iterable of int
        The tokens of the sequence.

    Returns
    -------
    sympy.Float

    Examples
    --------
    With the tokens before ``k*`` absent it is the ``k*`` entry of :func:`grad_w_column` over ``n``:

    >>> import sympy
    >>> from theory.decision_lists import attention_column, directional_derivative_cp, grad_w_column, output_probs
    >>> perm, W = (1, 2, 0), [[0, 0, 0], [sympy.log(2), 0, 0], [0, 0, 0]]
    >>> V = [[3 if perm[k] == r else 0 for k in range(3)] for r in range(3)]
    >>> p = attention_column(W, (0, 1, 2), 0)
    >>> sigma = output_probs(V, p)
    >>> d = directional_derivative_cp(3, 3, perm, p, sigma, k_star=1, s=(0, 1, 2))
    >>> round(float(d), 6), abs(d - grad_w_column(V, p, sigma, perm[1])[1] / 3) < 1e-35
    (-0.182171, True)
    """
    cf = _num(c, "c")
    n = check_positive_int(n, "n")
    p = _vector(p, "p")
    L = len(p)
    sigma, perm = _vector(sigma, "sigma", L), _permutation(perm, L)
    k_star, s = _token(k_star, "k_star", L), _tokens(s, "s", L)
    y = perm[k_star]
    rest = sum(sigma[perm[i]] * p[i] for i in s if i != k_star)
    return -cf / n * p[k_star] * ((1 - p[k_star]) * (1 - sigma[y]) + rest)


# --- Fig. 4.1: one GD step of V under uniform attention --------------------------------------------------------------


def ldt_count_matrix(task: DecisionListTask, n: int) -> tuple[list[list[int]], int]:
    r"""``(C(L, n) N, C(L, n))`` with ``N(r, t) = E[#{positions j : y_j = r} 1{t in s}]`` for uniform ``n``-subsets.

    ``y_j = pi(u)`` exactly when ``u`` is the LDT of the token ``a`` at position ``j``, so
    ``N(pi(u), t) = sum_{a : u in L_a} P[{a, u, t} subset s, the tokens before u in L_a absent]``, each term an
    :func:`event_probability`; the integer counts avoid Fractions until the end.

    Parameters
    ----------
    task : DecisionListTask
    n : int
        Sequence length, ``1 <= n <= L``.

    Returns
    -------
    tuple
        ``(counts, C(L, n))``: ``counts`` an ``L x L`` list of int, ``N = counts / C(L, n)``.

    Examples
    --------
    >>> from theory.decision_lists import DecisionListTask, ldt_count_matrix
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> ldt_count_matrix(task, 2)
    ([[1, 1, 2], [1, 0, 1], [2, 3, 1]], 3)
    """
    L, n = check_sequence_length(_check_task(task).L, n)
    _check_loop(task, 1)
    counts = [[0] * L for _ in range(L)]
    cache: dict[tuple[int, int], int] = {}

    def count(nA: int, nB: int) -> int:
        if (nA, nB) not in cache:
            cache[nA, nB] = comb(L - nA - nB, n - nA) if nA <= n and nA + nB <= L else 0
        return cache[nA, nB]

    for a in range(L):
        lst = task.lists[a]
        for k, u in enumerate(lst):
            before = set(lst[:k])
            r = task.perm[u]
            base = {a, u}
            for t in range(L):
                if t in before:
                    continue
                counts[r][t] += count(len(base | {t}), len(before))
    return counts, comb(L, n)


def _check_loop(task: DecisionListTask, per_entry: int) -> None:
    """The L^2 M list entries of :func:`ldt_count_matrix` (plus ``per_entry`` steps per entry of V) within
    :data:`MAX_LOOP_STEPS`."""
    L, entries = task.L, sum(len(lst) for lst in task.lists)
    check_cost(
        L * entries + per_entry * L * L,
        MAX_LOOP_STEPS,
        param="task",
        value=f"[L = {L}, {entries} list entries]",
        what="the enumeration (L tokens times the list entries, plus the L^2 entries of V)",
        hint="one_step_v_classes gives the four values of the Fig. 4.1 task in closed form",
    )


def one_step_v(task: DecisionListTask, n: int, eta: _FractionLike) -> list[list[Fraction]]:
    r"""``V_1 - V_0`` after one population GD step from ``W = 0``, ``V_0 = 0`` (exact; Fig. 4.1's setting up to
    its ``V_0 ~ N(0, 1e-8)``, whose effect is of order ``||V_0||``):

    .. math:: V_1 - V_0 = \frac{\eta}{n^2} N - \frac{\eta}{L^2} \mathbf{1}\mathbf{1}^\top,

    since at ``W = 0`` every attention column is ``1_s / n`` and at ``V = 0`` the prediction is uniform, so
    ``grad_V L = E[(1/n) sum_j (1/L - e_{y_j}) 1_s^T / n]`` and ``E[1_s] = (n/L) 1``.

    Parameters
    ----------
    task : DecisionListTask
    n : int
        Sequence length, ``1 <= n <= L``.
    eta : rational
        The step size (int, Fraction, float or numeric string; taken exactly).

    Returns
    -------
    list of list of fractions.Fraction
        ``V_1 - V_0``, ``L x L``.

    Examples
    --------
    The formula above with :func:`ldt_count_matrix`:

    >>> from fractions import Fraction
    >>> from theory.decision_lists import DecisionListTask, ldt_count_matrix, one_step_v
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> V1 = one_step_v(task, 2, 9)
    >>> V1[2]
    [Fraction(1, 2), Fraction(5, 4), Fraction(-1, 4)]
    >>> counts, total = ldt_count_matrix(task, 2)
    >>> V1 == [[Fraction(9, 4) * Fraction(N, total) - 1 for N in row] for row in counts]
    True
    """
    eta = as_fraction(eta, "eta")
    L, n = check_sequence_length(_check_task(task).L, n)
    _check_loop(task, 15)
    counts, total = ldt_count_matrix(task, n)
    return [[eta * Fraction(counts[r][t], total * n * n) - eta / (L * L) for t in range(L)] for r in range(L)]


def _check_fig41_size(L: int, n: int) -> tuple[int, int]:
    L, n = check_sequence_length(L, n)
    if 2 * max(FIG41_SHIFTS) >= L:
        raise InputError(
            f"the Fig. 4.1 closed forms need L > {2 * max(FIG41_SHIFTS)} (so that i + d and i - d never collide for "
            f"the list shifts d = {FIG41_SHIFTS}), got L = {L}",
            param="L",
        )
    return L, n


@fill_doc(_DOC)
def antishift_class_value(L: int, n: int, eta: _FractionLike) -> Fraction:
    r"""The closed form of an anti-shift entry ``V_1[pi(t - d), t]`` of the Fig. 4.1 task (``t`` precedes ``u = t - d``
    in ``u``'s own list, so ``u`` is never its own LDT when ``t`` is present):

    .. math:: \frac{\eta}{n^2}\frac{n(n-1)(n-2)}{L(L-1)(L-2)}\Big[1 + \frac{L-n}{L-3}
              + \frac{(L-n)(L-n-1)}{(L-3)(L-4)}\Big] - \frac{\eta}{L^2}.

    {{L_n_eta}}

    {{fraction_or_error}}
        For ``L <= 60`` (``2 max(FIG41_SHIFTS)``) or ``n`` outside ``1..L``.

    Examples
    --------
    It is the entry ``V_1[pi(t - 10), t]`` of :func:`one_step_v`:

    >>> from theory.decision_lists import antishift_class_value, cyclic_task, one_step_v
    >>> antishift_class_value(61, 3, 61**2)
    Fraction(-1709, 1770)
    >>> task = cyclic_task(61)
    >>> one_step_v(task, 3, 61**2)[task.perm[(0 - 10) % 61]][0]
    Fraction(-1709, 1770)
    """
    L, n = _check_fig41_size(L, n)
    eta = as_fraction(eta, "eta")
    triple = Fraction(n * (n - 1) * (n - 2), L * (L - 1) * (L - 2))
    tail = 1 + Fraction(L - n, L - 3) + Fraction((L - n) * (L - n - 1), (L - 3) * (L - 4))
    return eta / (n * n) * triple * tail - eta / (L * L)


@fill_doc(_DOC)
def shift_class_value(L: int, n: int, eta: _FractionLike) -> Fraction:
    r"""The closed form of a decision-list shift entry ``V_1[pi(t + d), t]`` of the Fig. 4.1 task (``t + d`` precedes
    ``t`` in ``t``'s own list):

    .. math:: \frac{\eta}{n^2}\frac{n(n-1)}{L(L-1)}\Big[1 + \frac{(L-n)(L-n-1)(L-n-2)}{(L-2)(L-3)(L-4)}\Big]
              - \frac{\eta}{L^2}.

    {{L_n_eta}}

    {{fraction_or_error}}
        For ``L <= 60`` or ``n`` outside ``1..L``.

    Examples
    --------
    It is the entry ``V_1[pi(t + 10), t]`` of :func:`one_step_v`:

    >>> from theory.decision_lists import cyclic_task, one_step_v, shift_class_value
    >>> shift_class_value(61, 3, 61**2)
    Fraction(341, 1062)
    >>> task = cyclic_task(61)
    >>> one_step_v(task, 3, 61**2)[task.perm[10]][0]
    Fraction(341, 1062)
    """
    L, n = _check_fig41_size(L, n)
    eta = as_fraction(eta, "eta")
    pair = Fraction(n * (n - 1), L * (L - 1))
    absent = Fraction((L - n) * (L - n - 1) * (L - n - 2), (L - 2) * (L - 3) * (L - 4))
    return eta / (n * n) * pair * (1 + absent) - eta / (L * L)


#: The entry classes of ``V_1`` (:func:`entry_class`), in the order of :func:`one_step_v_classes`.
ENTRY_CLASSES: tuple[str, ...] = ("P", "shift", "antishift", "generic")


def entry_class(task: DecisionListTask, r: int, t: int) -> str:
    """The class of entry ``(r, t)`` of ``V`` with ``r = pi(u)``: ``"P"`` (``u = t``), ``"shift"`` (``u`` precedes ``t``
    in ``L_t``), ``"antishift"`` (``t`` precedes ``u`` in ``L_u``) or ``"generic"``.

    Parameters
    ----------
    task : DecisionListTask
    r : int
        Row of ``V`` (a label).
    t : int
        Column of ``V`` (a token).

    Returns
    -------
    str
        One of :data:`ENTRY_CLASSES`.

    Examples
    --------
    >>> from theory.decision_lists import DecisionListTask, entry_class
    >>> task = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    >>> [[entry_class(task, r, t) for t in range(3)] for r in range(3)]
    [['generic', 'generic', 'P'], ['P', 'antishift', 'generic'], ['shift', 'P', 'generic']]
    """
    task = _check_task(task)
    r, t = _token(r, "r", task.L), _token(t, "t", task.L)
    u = task.inverse[r]
    if u == t:
        return "P"
    if u in task.lists[t]:
        return "shift"
    if t in task.lists[u]:
        return "antishift"
    return "generic"


@fill_doc(_DOC)
def one_step_v_classes(L: int, n: int, eta: _FractionLike) -> dict[str, Fraction]:
    r"""The four values of :func:`one_step_v` for the Fig. 4.1 task on ``Z_L`` (closed forms, ``L > 60``):

    * ``P``: ``V_1[pi(t), t] = (eta/n^2)(n/L) - eta/L^2`` (each of the ``n`` positions has one LDT, and on ``Z_L`` every
      token is equally likely to be it), ``L/n - 1`` at ``eta = L^2``;
    * ``shift``: ``V_1[pi(t + d), t]`` for ``d`` in the list shifts, :func:`shift_class_value`;
    * ``antishift``: ``V_1[pi(t - d), t]``, :func:`antishift_class_value`;
    * ``generic``: every other entry, ``(eta/n^2) n(n-1)/(L(L-1)) - eta/L^2``, ``-(L-n)/(n(L-1))`` at ``eta = L^2``.

    {{L_n_eta}}

    Returns
    -------
    dict of str to fractions.Fraction
        The value of each class of :data:`ENTRY_CLASSES`.

    Raises
    ------
    ValueError
        For ``L <= 60`` or ``n`` outside ``1..L``.

    Examples
    --------
    At ``eta = L^2``, ``P = L/n - 1`` and ``generic = -(L - n)/(n (L - 1))``; Fig. 4.1's setting gives ``P = 7``:

    >>> from fractions import Fraction
    >>> from theory.decision_lists import one_step_v_classes
    >>> v = one_step_v_classes(61, 3, 61**2)
    >>> v["P"] == Fraction(61, 3) - 1, v["generic"] == -Fraction(58, 3 * 60)
    (True, True)
    >>> one_step_v_classes(200, 25, 200**2)["P"]
    Fraction(7, 1)
    >>> one_step_v_classes(60, 5, 1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the Fig. 4.1 closed forms need L > 60 (so that i + d and i - d never collide ...), got L = 60
    """
    L, n = _check_fig41_size(L, n)
    eta = as_fraction(eta, "eta")
    return {
        "P": eta / (n * n) * Fraction(n, L) - eta / (L * L),
        "shift": shift_class_value(L, n, eta),
        "antishift": antishift_class_value(L, n, eta),
        "generic": eta / (n * n) * Fraction(n * (n - 1), L * (L - 1)) - eta / (L * L),
    }


def printed_fig41_values(L: int, one_indexed: bool) -> dict[str, list[tuple[int, int]]]:
    """Where the printed rule ``f(i) = i mod (L + 1)`` of Fig. 4.1 leaves the vocabulary.

    For every token ``i`` of ``[L]`` (``1..L`` when ``one_indexed``, else ``0..L-1``), evaluates ``pi(i) = f(i + 20)``
    and the list entries ``f(i + 10), f(i + 20), f(i + 30)``; returns the ``(i, value)`` pairs outside the
    vocabulary, by rule (``"pi"``, ``"list"``).

    Parameters
    ----------
    L : int
        Vocabulary size, ``L >= 2``.
    one_indexed : bool
        Whether the vocabulary ``[L]`` is ``1..L`` (else ``0..L-1``).

    Returns
    -------
    dict of str to list of tuple of int
        ``{"pi": [(i, pi(i)), ...], "list": [(i, f(i + d)), ...]}``, the values outside the vocabulary.

    Examples
    --------
    Either reading of ``[L]`` has one ``pi(i)`` and three list entries outside it:

    >>> from theory.decision_lists import printed_fig41_values
    >>> printed_fig41_values(200, one_indexed=True)
    {'pi': [(181, 0)], 'list': [(171, 0), (181, 0), (191, 0)]}
    >>> printed_fig41_values(200, one_indexed=False)["pi"]
    [(180, 200)]
    """
    L = check_positive_int(L, "L", minimum=2)
    check_cost(
        L,
        MAX_TASK_TOKENS,
        param="L",
        value=L,
        what="the vocabulary the rule is evaluated on",
        hint="the rule leaves the vocabulary for the tokens i = L - 20 (pi) and L - d (the lists), whatever L",
    )
    if not isinstance(one_indexed, bool):
        raise InputError(f"one_indexed must be True or False, got {one_indexed!r:.80}", param="one_indexed")
    vocab = range(1, L + 1) if one_indexed else range(L)

    def f(i: int) -> int:
        return i % (L + 1)

    out: dict[str, list[tuple[int, int]]] = {"pi": [], "list": []}
    for i in vocab:
        if f(i + FIG41_PERM_SHIFT) not in vocab:
            out["pi"].append((i, f(i + FIG41_PERM_SHIFT)))
        out["list"] += [(i, f(i + d)) for d in FIG41_SHIFTS if f(i + d) not in vocab]
    return out


def printed_fig41_claimed_in_vocabulary(L: int) -> int:
    """What the caption of Fig. 4.1 asserts about its rule ``pi(i) = f(i + 20)``, ``f(i) = i mod (L + 1)``: that ``pi``
    is a permutation of the vocabulary ``[L]``, so the number of tokens whose ``pi`` lies in the vocabulary is ``L``
    (compare :func:`printed_fig41_values`, which evaluates the rule).

    Parameters
    ----------
    L : int
        Vocabulary size, ``L >= 2``.

    Returns
    -------
    int
        ``L``.

    Examples
    --------
    The claim against the evaluated rule (one ``pi(i)`` leaves ``[L]``):

    >>> from theory.decision_lists import printed_fig41_claimed_in_vocabulary, printed_fig41_values
    >>> printed_fig41_claimed_in_vocabulary(200), 200 - len(printed_fig41_values(200, True)["pi"])
    (200, 199)
    """
    return check_positive_int(L, "L", minimum=2)


def cyclic_summary(L: int, n: int) -> dict[str, object]:
    """The exact quantities of the Fig. 4.1 task on ``Z_L`` with uniform ``n``-subsets (for ``tvk derive``):
    ``delta`` of Assumptions 4.3 and 4.4, Theorem 4.3's ``c``, ``L_0`` at that ``c``, ``kappa`` of
    :func:`lambda_max_leading`, the step-budget lower bound and, for ``L > 60``, the four values of the first GD
    step of ``V`` at ``eta = L^2``.

    Parameters
    ----------
    L : int
        Vocabulary size (the shifts 10, 20, 30 must be distinct and nonzero mod ``L``).
    n : int
        Sequence length, ``1 <= n <= L``.

    Returns
    -------
    dict of str to object
        Keys ``delta_a43``, ``delta_a43_triple``, ``delta_a44``, ``thm43_c``, ``L0_at_thm43_c``, ``kappa``,
        ``step_budget_lower`` and, for ``L > 60``, ``one_step_v_at_eta_L2``.

    Raises
    ------
    ValueError
        Unless ``1 <= n <= L``; :class:`theory._checks.LimitError` for ``L > 125,000`` (the task's
        :data:`MAX_TASK_TOKENS`) or a ``1/C(L, n)`` of more than ``MAX_DIGITS`` digits.

    Examples
    --------
    At Theorem 4.3's ``c`` the loss at initialisation is ``log n`` to double precision:

    >>> import math
    >>> from theory.decision_lists import cyclic_summary
    >>> s = cyclic_summary(7, 3)
    >>> s["delta_a43"], s["thm43_c"], s["kappa"]
    (Fraction(1, 35), 1260*log(7), Fraction(1, 243))
    >>> float(s["L0_at_thm43_c"]) == math.log(3), "one_step_v_at_eta_L2" in s
    (True, False)
    """
    L, n = check_sequence_length(L, n)
    _check_digits(log10_binomial(L, n), "n", n, f"delta_a44 = 1/C(L, n) at L = {format_count(L)}")
    task = cyclic_task(L)
    delta, triple = delta_a43(task, n)
    c = thm43_c(n, L, delta)
    out: dict[str, object] = {
        "delta_a43": delta,
        "delta_a43_triple": triple,
        "delta_a44": delta_a44(L, n),
        "thm43_c": c,
        "L0_at_thm43_c": initial_loss(L, n, c),
        "kappa": lambda_max_leading(L, n),
        "step_budget_lower": thm43_step_budget(L, n, task.M, delta),
    }
    if 2 * max(FIG41_SHIFTS) < L:
        out["one_step_v_at_eta_L2"] = one_step_v_classes(L, n, L * L)
    return out


# --- Theorem 4.4 and Lemma 4.1 end to end: the constants of a run of GD on W and V ----------------------------------


def thm44_initial_loss_bound(L: object, n: object, c: object, eps: object) -> sympy.Expr:
    r"""An upper bound on ``L_0`` at ``W_0 = 0`` and any ``V_0`` with ``||V_0 - cP||_inf <= eps/2`` (Theorem 4.4's
    initialisation): ``L_0 <= eps + log(n + (L - n) e^{-c/n})``, the loss of :func:`initial_loss` plus ``eps``.

    At ``W = 0`` the attention is ``p = 1_s / n``, so the logits are ``z_l = (c/n) 1{l in pi(s)} + e_l`` with
    ``|e_l| <= eps/2`` (a mean of ``n`` entries of ``V_0 - cP``); the true label ``y = pi(LDT)`` is among the
    ``n`` labels ``pi(s)``, so ``-log sigma_y = logsumexp(z) - z_y <= [c/n + eps/2 + log(n + (L - n) e^{-c/n})]
    - (c/n - eps/2)``. Since the second term is at most ``log L``, ``Lbar = max{1, L_0} <= max{1, eps + log L}``
    for every ``c >= 0`` (:func:`thm44_sufficient_c`).

    Parameters
    ----------
    L, n : int
        Vocabulary size and sequence length, ``1 <= n <= L``.
    c : number
        The scale of ``cP``, ``c >= 0``.
    eps : number
        Theorem 4.4's ``eps > 0``.

    Returns
    -------
    sympy.Expr
        The bound (exact).

    Raises
    ------
    ValueError
        For ``n`` outside ``1..L``, ``c < 0`` or ``eps <= 0``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import initial_loss, thm44_initial_loss_bound
    >>> thm44_initial_loss_bound(6, 3, 2, Fraction(1, 2)) == initial_loss(6, 3, 2) + Fraction(1, 2)
    True
    >>> thm44_initial_loss_bound(6, 3, -1, 1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: c must lie in [0, oo) (the scale of cP), got c = -1
    """
    L, n = check_sequence_length(L, n)
    cs = _in_range(c, "c", 0, why="the scale of cP")
    es = _in_range(eps, "eps", 0, lo_open=True, why="Theorem 4.4: ||V_0 - cP|| <= eps/2 with eps > 0")
    _check_exact(max(_digits(L), _digits(cs) + _digits(n), _digits(es)) + 1, "the bound", L=L, c=cs, eps=es)
    return es + initial_loss(L, n, cs)


def thm44_sufficient_c(L: object, n: object, delta: object, eps: object, M: object) -> sympy.Expr:
    r"""A value of Theorem 4.4's threshold that holds whatever ``V_0`` in the box: :func:`thm44_c` at
    ``Lbar = max{1, eps + log L}``, the bound of :func:`thm44_initial_loss_bound` on ``Lbar = max{1, L_0}`` (the
    threshold increases with ``Lbar``, so any ``c`` above this value is above the theorem's threshold for the
    actual ``L_0``).

    Parameters
    ----------
    L, n : int
        Vocabulary size and sequence length, ``1 <= n <= L``, ``L >= 2``.
    delta : number
        ``delta`` of Assumption 4.2 (for instance Assumption 4.4's ``1/C(L, n)``), in ``(0, 1]``.
    eps : number
        Theorem 4.4's ``eps``, ``0 < eps <= 16 M``.
    M : int
        Longest decision list, ``M >= 1``.

    Returns
    -------
    sympy.Expr
        The threshold (exact); Theorem 4.4 needs ``c`` strictly above it.

    Raises
    ------
    ValueError
        For ``n`` outside ``1..L``, ``L < 2``, ``delta`` outside ``(0, 1]``, ``M < 1`` or ``eps`` outside
        ``(0, 16 M]`` (the theorem's hypothesis ``eps <= 16 M``).

    Examples
    --------
    >>> import sympy
    >>> from fractions import Fraction
    >>> from theory.decision_lists import thm44_c, thm44_sufficient_c
    >>> c = thm44_sufficient_c(3, 2, Fraction(1, 3), 1, 2)
    >>> c == thm44_c(2, Fraction(1, 3), 1, 2, 1 + sympy.log(3))
    True
    >>> thm44_sufficient_c(3, 2, Fraction(1, 3), 40, 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: eps must lie in (0, 32] (Theorem 4.4: eps <= 16 M), got eps = 40
    """
    L, n = check_sequence_length(L, n)
    if L < 2:
        raise InputError(f"L must be an integer >= 2, got L = {L}", param="L")
    Ms = check_positive_int(M, "M")
    es = _in_range(eps, "eps", 0, 16 * Ms, lo_open=True, why="Theorem 4.4: eps <= 16 M")
    _check_exact(max(_digits(L), 2 * _digits(es) + _digits(Ms) + 3), "the threshold c", L=L, eps=es, M=Ms)
    return thm44_c(n, delta, es, Ms, sympy.Max(1, es + log(L)))


@fill_doc(_DOC)
def thm44_horizon(lam: object, eps: object, Lbar: object) -> sympy.Expr:
    r"""Theorem 4.4's step count ``T = lambda_max eps / (2 Lbar)``: GD with ``eta = 1/lambda_max`` classifies every
    sequence at some ``t <= T``, and Lemma 4.1's drift of ``V`` over ``T`` steps is ``T eta = eps / (2 Lbar)``.

    Parameters
    ----------
    lam : number
        ``lambda_max > 0``, the largest eigenvalue of the Hessian of the population loss in ``(W, V)``.
    {{eps_Lbar}}

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.decision_lists import thm44_horizon
    >>> thm44_horizon(1000, 1, 2)
    250
    >>> thm44_horizon(1000, 1, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Lbar must lie in [1, oo) (Lbar = max{1, L_0} >= 1), got Lbar = 0
    """
    lm = _in_range(lam, "lam", 0, lo_open=True, why="the largest Hessian eigenvalue, the inverse step size")
    es = _in_range(eps, "eps", 0, lo_open=True, why="Theorem 4.4: eps > 0")
    Lb = _in_range(Lbar, "Lbar", 1, why="Lbar = max{1, L_0} >= 1")
    _check_exact(_digits(lm) + _digits(es) + _digits(Lb) + 1, "T = lam eps / (2 Lbar)", lam=lm, eps=es, Lbar=Lb)
    return lm * es / (2 * Lb)


def thm44_horizon_leading(L: int, n: int, c: object, eps: object, Lbar: object) -> sympy.Expr:
    r"""The leading term of Theorem 4.4's step count: :func:`thm44_horizon` with ``lambda_max`` replaced by
    ``kappa c^2`` (:func:`lambda_max_leading`, the top eigenvalue of the ``W`` block of the Hessian at ``W = 0``,
    ``V = cP``, up to ``O(c)``): ``kappa c^2 eps / (2 Lbar)``.

    Parameters
    ----------
    L, n : int
        Vocabulary size and sequence length, ``1 <= n <= L``, ``L >= 2``.
    c : number
        The scale of ``cP``, ``c > 0``.
    eps : number
        Theorem 4.4's ``eps > 0``.
    Lbar : number
        ``max{1, L_0} >= 1`` (or an upper bound on it, which lowers the count).

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.decision_lists import thm44_horizon_leading
    >>> thm44_horizon_leading(3, 2, 100, 1, 1)  # (1/32) 10^4 / 2
    625/4
    """
    kappa = lambda_max_leading(L, n)
    cs = _in_range(c, "c", 0, lo_open=True, why="the scale of cP")
    _check_exact(_digits(kappa) + 2 * _digits(cs) + 1, "kappa c^2", c=cs)
    return thm44_horizon(sympy.Rational(kappa.numerator, kappa.denominator) * cs**2, eps, Lbar)


@fill_doc(_DOC)
def lemma41_bounds(eps: object, Lbar: object) -> dict[str, sympy.Expr]:
    r"""Lemma 4.1 and its proof (Karp thesis Ch. 4, Sec. 4.3.3): every entry of ``grad_V L`` is at most 1 in absolute
    value, so one GD step moves each entry of ``V`` by at most ``eta`` (``per_step_over_eta = 1``); over the
    ``T = lambda_max eps/(2 Lbar)`` steps of Theorem 4.4 at ``eta = 1/lambda_max`` the drift is at most
    ``T eta = eps/(2 Lbar)`` (``drift``), hence ``||V_t - cP||_inf <= eps/2 + eps/(2 Lbar)`` (``v_deviation_proof``)
    ``<= eps`` (``v_deviation``, the lemma's statement) for every ``t <= T``.

    (The entry ``(l, k)`` of ``grad_V`` is a mean over sequences of ``(1/n) sum_j (sigma_l - 1{l = y_j}) p_{j,k}``,
    each term at most ``p_{j,k} <= 1`` in absolute value.)

    Parameters
    ----------
    {{eps_Lbar}}

    Returns
    -------
    dict of str to sympy.Expr
        ``per_step_over_eta``, ``drift``, ``v_deviation_proof`` and ``v_deviation``.

    Examples
    --------
    >>> from theory.decision_lists import lemma41_bounds
    >>> lemma41_bounds(1, 2)
    {'per_step_over_eta': 1, 'drift': 1/4, 'v_deviation_proof': 3/4, 'v_deviation': 1}
    """
    es = _in_range(eps, "eps", 0, lo_open=True, why="Theorem 4.4: eps > 0")
    Lb = _in_range(Lbar, "Lbar", 1, why="Lbar = max{1, L_0} >= 1")
    _check_exact(_digits(es) + _digits(Lb) + 1, "eps / (2 Lbar)", eps=es, Lbar=Lb)
    drift = es / (2 * Lb)
    return {
        "per_step_over_eta": sympy.Integer(1),
        "drift": drift,
        "v_deviation_proof": es / 2 + drift,
        "v_deviation": es,
    }
