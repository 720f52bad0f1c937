r"""One-layer softmax attention on decision lists in float64 (numpy): forward pass, the closed-form gradients of
Sec. 4.3.3, exact population gradient descent on ``W`` over every ``n``-subset, and Monte Carlo with standard
errors for the first GD step of ``V`` (Fig. 4.1) and for the events of Assumption 4.3.

Source: Karp thesis (2024) Ch. 4; the exact counterparts are in :mod:`theory.decision_lists` and the setting is
explained in ``docs/decision_lists.md``. Sequences are int arrays ``(B, n)`` of distinct tokens in ``0 .. L-1``;
the model is permutation-equivariant, so a uniform ``n``-permutation and a uniform ``n``-subset give the same
population loss, and :func:`subsets_array` (every ``n``-subset once) is the exact population for small ``L``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

import numpy as np
from scipy.special import gammaln

from theory import decision_lists as td
from theory._checks import InputError, check_cost, check_positive_int, format_count, log10_binomial
from theory._docstrings import fill_doc

from . import limits
from .limits import (
    MAX_MC_SAMPLES,
    MAX_MC_WORK,
    array_bytes,
    check_allocation,
    check_bool,
    check_mc,
    check_real,
    check_real_array,
    check_real_vector,
    check_rng,
)

__all__ = [
    "MAX_MC_SAMPLES",
    "MAX_MC_WORK",
    "MAX_SUBSETS",
    "MAX_TASK_WORK",
    "PopulationGD",
    "a43_min_event_float",
    "adversarial_e",
    "brute_force_delta_a43",
    "brute_force_delta_a44",
    "check_sequences",
    "class_indices",
    "closed_form_gradients",
    "column_order_ok",
    "correct_mask",
    "directional_grad_v",
    "event_probability_mc",
    "forward",
    "labels_array",
    "ldt_array",
    "notin_S_directional",
    "one_step_v_exact_float",
    "one_step_v_mc",
    "permutation_matrix",
    "population_gd_w",
    "population_gd_wv",
    "sample_sequences",
    "sequence_losses",
    "subsets_array",
    "token_directional",
]

MAX_SUBSETS = 5_000_000
"""Largest number C(L, n) of n-subsets enumerated by :func:`subsets_array` (the exact population)."""

MAX_TASK_WORK = 10**9
"""Largest python-level work ``L^2 M`` of the per-entry loops (:func:`class_indices`, :func:`a43_min_event_float`,
:func:`brute_force_delta_a43` times the law's size)."""

#: Parameters and Returns sections shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "vocabulary": """L : int
    Vocabulary size.
n : int
    Sequence length, ``1 <= n <= L``.""",
    "task": """task : theory.decision_lists.DecisionListTask
    The task.""",
    "weights": """W, V : np.ndarray, shape (L, L)
    The attention and value matrices.""",
    "sequences": """S : array_like, shape (B, n)
    Valid sequences.""",
    "law": """law : dict of frozenset to Fraction
    Probability of each token set.""",
    "returns_positions": """Returns
-------
np.ndarray of int64, shape (B, n)""",
    "returns_square": """Returns
-------
np.ndarray, shape (L, L)""",
    "returns_delta": """Returns
-------
fractions.Fraction""",
}
_DOC["L_n_unchecked"] = td._DOC["L_n_unchecked"]
_DOC["task_n"] = _DOC["task"] + "\nn : int\n    Sequence length."
_DOC["batch"] = "\n".join(
    (_DOC["weights"], _DOC["sequences"], "Y : np.ndarray of int, shape (B, n)\n    Their labels.")
)


def _check_task(task: object) -> td.DecisionListTask:
    if not isinstance(task, td.DecisionListTask):
        raise InputError(
            f"task must be a theory.decision_lists.DecisionListTask (random_task, cyclic_task), got {task!r:.80}",
            param="task",
        )
    return task


def _check_task_work(task: td.DecisionListTask, factor: int = 1, param: str = "task", what: str = "") -> None:
    L, M = task.L, task.M
    check_cost(
        L * L * M * factor,
        MAX_TASK_WORK,
        param=param,
        value=L if param == "task" else factor,
        what=what or f"the per-entry loops over the L x L matrix and the lists (L^2 M = {L}^2 x {M})",
        hint="use a smaller vocabulary L",
    )


def _matrix(value: object, name: str, L: int | None = None) -> np.ndarray:
    """A finite float64 (L, L) matrix (any square size when ``L`` is None)."""
    M = check_real_array(value, name)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 1 or (L is not None and M.shape[0] != L):
        want = f"({L}, {L})" if L is not None else "(L, L)"
        raise InputError(f"{name} must be a square matrix of shape {want}, got shape {M.shape}", param=name)
    return M


def _token(value: object, name: str, L: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) < L:
        raise InputError(f"{name} must be a token in range(0, {L}), got {value!r:.80}", param=name)
    return int(value)


def _labels(Y: object, shape: tuple[int, ...], L: int) -> np.ndarray:
    """Labels of the positions of S: integers in range(L) of the shape of S."""
    if Y is None or isinstance(Y, (str, bytes, bool)):
        raise InputError(f"Y must be an integer array of shape {shape}, got {Y!r:.80}", param="Y")
    try:
        arr = np.asarray(Y)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"Y must be an integer array of shape {shape}, got {Y!r:.80}", param="Y") from None
    if arr.shape != shape or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise InputError(f"Y must be an integer array of shape {shape}, got shape {arr.shape} ({arr.dtype})", param="Y")
    if arr.size and (arr.min() < 0 or arr.max() >= L):
        raise InputError(f"labels Y must lie in range(0, {L}), got values in [{arr.min()}, {arr.max()}]", param="Y")
    return arr.astype(np.int64, copy=False)


def _perm_cost(L: int) -> int:
    """Float entries of one uniform permutation drawn by argsort: L draws and L log2 L comparisons."""
    return L * (1 + max(1, L.bit_length()))


def _pass_work(B: int, n: int, L: int, steps: int) -> int:
    """The work of one step over ``B`` sequences, compared with :func:`numerics.limits.max_work`: ``28 B n (n + L)``
    for the forward and backward passes over the (B, n, L + n) arrays (measured: 79 ms a GD step at L = 20, n = 4,
    about 6 ns an entry of work) plus ``steps`` Python steps of :data:`numerics.limits.STEP_COST` (the step's numpy
    calls: 0.25-0.7 ms at L = 5 on a loaded 2-core machine)."""
    return 28 * B * n * (n + L) + steps * limits.STEP_COST


def _forward_bytes(B: int, n: int, L: int) -> int:
    """The forward pass's arrays p, z, sigma (B, n, L) and their temporaries in float64."""
    return array_bytes(6 * B, n, L)


@fill_doc(_DOC)
def subsets_array(L: int, n: int) -> np.ndarray:
    """Every ``n``-subset of ``range(L)`` as rows of an int64 array ``(C(L, n), n)`` (lexicographic).

    Parameters
    ----------
    {{vocabulary}}

    Returns
    -------
    np.ndarray of int64, shape (C(L, n), n)

    Examples
    --------
    >>> S = subsets_array(5, 3)
    >>> S.shape, S[:2].tolist()
    ((10, 3), [[0, 1, 2], [0, 1, 3]])
    >>> subsets_array(3, 4)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: sequence length n = 4 exceeds the vocabulary size L = 3: Assumption 4.1 (no duplicate tokens) needs 1 <= n <= L
    """
    L, n = td.check_sequence_length(L, n)
    _check_subsets(L, n)
    return np.array(list(td.uniform_subsets(L, n)), dtype=np.int64).reshape(-1, n)


def _check_subsets(L: int, n: int) -> int:
    """C(L, n) <= MAX_SUBSETS, sized in log space first (C(10^9, 5 10^8) would take long to form)."""
    param = "L" if min(n, L - n) <= 1 else "n"
    value = L if param == "L" else n
    log10 = log10_binomial(L, n)
    what = f"the enumeration of every n-subset (C(L, n) = C({format_count(L)}, {format_count(n)}) subsets)"
    hint = "sample_sequences draws uniform sequences; theory.decision_lists counts them exactly"
    if log10 > math.log10(MAX_SUBSETS) + 1:
        check_cost(log10, math.log10(MAX_SUBSETS), param=param, value=value, what=what, hint=hint, log10=True)
    count = comb(L, n)
    check_cost(count, MAX_SUBSETS, param=param, value=value, what=what, hint=hint)
    return count


@fill_doc(_DOC)
def sample_sequences(L: int, n: int, B: int, rng: np.random.Generator) -> np.ndarray:
    """``B`` iid uniform ``n``-permutations of ``range(L)`` (Fig. 4.1's ``s ~ U(n-permutations of [L])``).

    Parameters
    ----------
    {{vocabulary}}
    B : int
        Number of sequences, >= 1.
    rng : np.random.Generator
        Source of the draws.

    Returns
    -------
    np.ndarray of int64, shape (B, n)

    Examples
    --------
    >>> import numpy as np
    >>> sample_sequences(5, 3, 2, np.random.default_rng(0)).tolist()
    [[3, 2, 1], [3, 1, 2]]
    """
    L, n = td.check_sequence_length(L, n)
    if isinstance(B, bool) or not isinstance(B, numbers.Integral) or B < 1:
        raise InputError(f"the number of sequences B must be an integer >= 1, got {B!r:.80}", param="B")
    B = int(B)
    check_cost(B, MAX_MC_SAMPLES, param="B", value=B, what="sequence counts", hint="draw the sequences in chunks")
    check_cost(
        B * _perm_cost(L),
        limits.max_mc_work(),
        param="B",
        value=B,
        what=f"the draws (B L log2 L = {format_count(B)} x {format_count(_perm_cost(L))} entries)",
        hint="draw the sequences in chunks",
    )
    check_allocation(array_bytes(3 * B, L), "B", B, f"{format_count(B)} permutations of {format_count(L)} tokens")
    rng = check_rng(rng)
    return np.argsort(rng.random((B, L)), axis=1)[:, :n].astype(np.int64)


def check_sequences(L: int, S: np.ndarray) -> np.ndarray:
    """Validate a batch ``(B, n)``: tokens in ``range(L)`` and no repeats in a row (Assumption 4.1).

    Parameters
    ----------
    L : int
        Vocabulary size.
    S : array_like, shape (B, n)
        The sequences.

    Returns
    -------
    np.ndarray of int64, shape (B, n)

    Examples
    --------
    >>> check_sequences(5, [[0, 4, 2]]).tolist()
    [[0, 4, 2]]
    >>> check_sequences(5, [[0, 4, 2], [1, 3, 1]])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: sequence [1, 3, 1] repeats a token: Assumption 4.1 allows each token at most once
    """
    if S is None or isinstance(S, (str, bytes, bool)):
        raise InputError(f"sequences must be a (B, n) integer array with n >= 1, got {S!r:.80}", param="S")
    try:
        S = np.asarray(S)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"sequences must be a (B, n) integer array, got {S!r:.80}", param="S") from None
    if S.ndim != 2 or S.shape[1] < 1 or S.shape[0] < 1:
        raise InputError(f"sequences must be a (B, n) integer array with B, n >= 1, got shape {S.shape}", param="S")
    if not np.issubdtype(S.dtype, np.integer) and (
        S.dtype.kind != "f" or not np.all(np.isfinite(S)) or not np.all(np.round(S) == S)
    ):
        raise InputError(f"sequence tokens must be integers, got an array of dtype {S.dtype}", param="S")
    td.check_sequence_length(L, S.shape[1])
    if S.min() < 0 or S.max() >= L:
        raise InputError(f"sequence tokens must lie in range(0, {L}), got values in [{S.min()}, {S.max()}]", param="S")
    srt = np.sort(S, axis=1)
    if np.any(srt[:, 1:] == srt[:, :-1]):
        row = int(np.nonzero(np.any(srt[:, 1:] == srt[:, :-1], axis=1))[0][0])
        raise InputError(
            f"sequence {S[row].tolist()} repeats a token: Assumption 4.1 allows each token at most once", param="S"
        )
    return S.astype(np.int64)


def _lists_padded(task: td.DecisionListTask) -> np.ndarray:
    out = np.full((task.L, task.M), -1, dtype=np.int64)
    for a, lst in enumerate(task.lists):
        out[a, : len(lst)] = lst
    return out


@fill_doc(_DOC)
def ldt_array(task: td.DecisionListTask, S: np.ndarray) -> np.ndarray:
    """The label-determining token of every position: the first entry of ``L_a`` present in the sequence.

    Parameters
    ----------
    task : theory.decision_lists.DecisionListTask
        The decision lists.
    {{sequences}}

    {{returns_positions}}

    Examples
    --------
    Agrees with :func:`theory.decision_lists.label_determining_token`:

    >>> from theory.decision_lists import label_determining_token, random_task
    >>> task = random_task(5, 3, seed=0)
    >>> task.lists[1]
    (3, 4, 1)
    >>> ldt_array(task, [[0, 1, 2], [0, 1, 3]]).tolist()
    [[2, 1, 1], [0, 3, 0]]
    >>> label_determining_token(task, (0, 1, 3), 1)
    3
    """
    task = _check_task(task)
    S = check_sequences(task.L, S)
    B, _n = S.shape
    check_allocation(
        array_bytes(2 * B, _n, task.M) + array_bytes(B, task.L + 1, itemsize=1),
        "S",
        B,
        f"the lists of {format_count(B)} sequences ({format_count(B)}, {_n}, M = {task.M}) in int64",
    )
    member = np.zeros((B, task.L + 1), dtype=bool)  # column L is the padding -1
    member[np.arange(B)[:, None], S] = True
    lists = _lists_padded(task)[S]  # (B, n, M)
    present = member[np.arange(B)[:, None, None], np.where(lists < 0, task.L, lists)]
    first = np.argmax(present, axis=-1)  # a_m = a is always present
    return np.take_along_axis(lists, first[..., None], axis=-1)[..., 0]


@fill_doc(_DOC)
def labels_array(task: td.DecisionListTask, S: np.ndarray) -> np.ndarray:
    """Labels ``pi(LDT)`` of every position, ``(B, n)`` (Sec. 4.2.2).

    Parameters
    ----------
    task : theory.decision_lists.DecisionListTask
        The decision lists and the permutation.
    {{sequences}}

    {{returns_positions}}

    Examples
    --------
    >>> from theory.decision_lists import labels, random_task
    >>> task = random_task(5, 3, seed=0)
    >>> labels_array(task, [[0, 1, 2], [0, 1, 3]]).tolist()
    [[0, 1, 1], [2, 4, 2]]
    >>> labels(task, [0, 1, 3])
    (2, 4, 2)
    """
    task = _check_task(task)
    return np.asarray(task.perm, dtype=np.int64)[ldt_array(task, S)]


@fill_doc(_DOC)
def permutation_matrix(task: td.DecisionListTask) -> np.ndarray:
    """``P`` with ``P[pi(i), i] = 1``.

    Parameters
    ----------
    task : theory.decision_lists.DecisionListTask
        The task (its permutation ``perm``).

    {{returns_square}}

    Examples
    --------
    >>> import numpy as np
    >>> from theory.decision_lists import random_task
    >>> task = random_task(5, 3, seed=0)
    >>> task.perm
    (2, 1, 0, 4, 3)
    >>> permutation_matrix(task)[:, 3].tolist()
    [0.0, 0.0, 0.0, 0.0, 1.0]
    """
    task = _check_task(task)
    check_allocation(array_bytes(task.L, task.L), "task", task.L, f"the ({task.L}, {task.L}) matrix P in float64")
    P = np.zeros((task.L, task.L))
    P[np.asarray(task.perm), np.arange(task.L)] = 1.0
    return P


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@fill_doc(_DOC)
def forward(W: np.ndarray, V: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``(p, z, sigma)`` for every position: ``p (B, n, L)`` the attention column of the query (``p_i propto
    e^{W[i, a]}`` on the tokens of the sequence, 0 elsewhere), ``z = V p`` and ``sigma = softmax(z)`` over the labels
    (Eq. 4.1 with one-hot embeddings).

    Parameters
    ----------
    {{weights}}
    {{sequences}}

    Returns
    -------
    p, z, sigma : np.ndarray, shape (B, n, L)

    Examples
    --------
    The attention column agrees with the 40-digit :func:`theory.decision_lists.attention_column`:

    >>> import numpy as np
    >>> from theory.decision_lists import attention_column
    >>> rng = np.random.default_rng(0)
    >>> W, V = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
    >>> p, z, sigma = forward(W, V, np.array([[0, 1, 2]]))
    >>> p.shape, bool(np.allclose(sigma.sum(-1), 1))
    ((1, 3, 5), True)
    >>> bool(np.allclose(p[0, 1], [float(x) for x in attention_column(W.tolist(), [0, 1, 2], 1)]))
    True
    """
    W = _matrix(W, "W")
    L = W.shape[0]
    V = _matrix(V, "V", L)
    S = check_sequences(L, S)
    B, n = S.shape
    check_allocation(_forward_bytes(B, n, L), "S", B, f"the forward pass of {format_count(B)} sequences (B, n, L)")
    scores = W[S[:, :, None], S[:, None, :]]  # (B, i, j) = W[s_i, s_j]
    A = _softmax(scores, axis=1)  # columns: query j attends over keys i
    p = np.zeros((B, n, L))
    p[np.arange(B)[:, None, None], np.arange(n)[None, None, :], S[:, :, None]] = A  # p[b, j, s_i] = A[b, i, j]
    z = p @ V.T
    return p, z, _softmax(z, axis=-1)


@fill_doc(_DOC)
def sequence_losses(W: np.ndarray, V: np.ndarray, S: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The loss (4.2) of every sequence, ``(1/n) sum_j -log sigma_{y_j}``, shape ``(B,)``.

    Parameters
    ----------
    {{batch}}

    Returns
    -------
    np.ndarray, shape (B,)

    Examples
    --------
    At ``W = 0``, ``V = cP`` every sequence has the loss ``L_0`` of :func:`theory.decision_lists.initial_loss`:

    >>> import numpy as np
    >>> from theory.decision_lists import initial_loss, random_task
    >>> task = random_task(5, 3, seed=0)
    >>> S = subsets_array(5, 3)
    >>> losses = sequence_losses(np.zeros((5, 5)), 2.0 * permutation_matrix(task), S, labels_array(task, S))
    >>> bool(np.allclose(losses, float(initial_loss(5, 3, 2))))
    True
    """
    _, z, _ = forward(W, V, S)
    Y = _labels(Y, z.shape[:2], z.shape[2])
    zmax = z.max(axis=-1, keepdims=True)
    logsum = np.log(np.exp(z - zmax).sum(axis=-1)) + zmax[..., 0]
    return (logsum - np.take_along_axis(z, Y[..., None], axis=-1)[..., 0]).mean(axis=1)


@fill_doc(_DOC)
def closed_form_gradients(W: np.ndarray, V: np.ndarray, S: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""``(grad_W, grad_V)`` of the mean sequence loss over the batch from the identities of Sec. 4.3.3:
    column ``a`` of ``grad_W`` collects ``(1/n) p_k [(Vp)_y - V_{y,k} + sum_l sigma_l (V_{l,k} - (Vp)_l)]`` at ``a``'s
    position, and ``grad_V = (1/n) sum_j (sigma - e_y) p^T``.

    Parameters
    ----------
    {{batch}}

    Returns
    -------
    grad_W, grad_V : np.ndarray, shape (L, L)

    Examples
    --------
    Agrees with the 40-digit :func:`theory.decision_lists.sequence_gradients`:

    >>> import numpy as np
    >>> from theory.decision_lists import random_task, sequence_gradients
    >>> task = random_task(5, 3, seed=0)
    >>> rng = np.random.default_rng(0)
    >>> W, V = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
    >>> S = np.array([[0, 1, 2]])
    >>> gW, gV = closed_form_gradients(W, V, S, labels_array(task, S))
    >>> tW, tV = sequence_gradients(task, W.tolist(), V.tolist(), [0, 1, 2])
    >>> bool(np.allclose(gW, np.array(tW, dtype=float))), bool(np.allclose(gV, np.array(tV, dtype=float)))
    (True, True)
    """
    p, z, sig = forward(W, V, S)
    B, n, L = p.shape
    S = check_sequences(L, S)
    Y = _labels(Y, (B, n), L)
    V = np.asarray(V, dtype=np.float64)
    zy = np.take_along_axis(z, Y[..., None], axis=-1)  # (B, n, 1)
    term = zy - V[Y] + sig @ V - (sig * z).sum(-1, keepdims=True)  # (B, n, L)
    gcol = p * term
    gWT = np.zeros((L, L))
    np.add.at(gWT, S.ravel(), gcol.reshape(-1, L))  # row a of gWT = column a of grad_W
    resid = sig.copy()
    np.put_along_axis(resid, Y[..., None], np.take_along_axis(resid, Y[..., None], axis=-1) - 1.0, axis=-1)
    gV = np.einsum("bjl,bjk->lk", resid, p)
    return gWT.T / (n * B), gV / (n * B)


@fill_doc(_DOC)
def correct_mask(W: np.ndarray, V: np.ndarray, S: np.ndarray, Y: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Positions whose true label is the unique argmax of the logits by more than ``tol`` (ties count as errors).

    Parameters
    ----------
    {{batch}}
    tol : float
        Required lead of the true logit.

    Returns
    -------
    np.ndarray of bool, shape (B, n)

    Examples
    --------
    At ``W = 0`` the tokens of a sequence tie, so ``V = cP`` classifies nothing:

    >>> import numpy as np
    >>> from theory.decision_lists import random_task
    >>> task = random_task(5, 3, seed=0)
    >>> S = np.array([[0, 1, 2]])
    >>> correct_mask(np.zeros((5, 5)), 2.0 * permutation_matrix(task), S, labels_array(task, S)).tolist()
    [[False, False, False]]
    """
    tol = check_real(tol, "tol")
    _, z, _ = forward(W, V, S)
    Y = _labels(Y, z.shape[:2], z.shape[2])
    zy = np.take_along_axis(z, Y[..., None], axis=-1)[..., 0]
    other = z.copy()
    np.put_along_axis(other, Y[..., None], -np.inf, axis=-1)
    return zy > other.max(axis=-1) + tol


def column_order_ok(W: np.ndarray, task: td.DecisionListTask) -> np.ndarray:
    r"""Per column ``a``: ``W[a_1, a] > ... > W[a_m, a] > max_{b not in L_a} W[b, a]`` (the ordering of the proof
    sketch of Sec. 4.3.2, sufficient for perfect classification).

    Parameters
    ----------
    W : np.ndarray, shape (L, L)
        The attention matrix.
    task : theory.decision_lists.DecisionListTask
        The decision lists.

    Returns
    -------
    np.ndarray of bool, shape (L,)

    Examples
    --------
    >>> import numpy as np
    >>> from theory.decision_lists import random_task
    >>> task = random_task(5, 3, seed=0)
    >>> column_order_ok(np.zeros((5, 5)), task).tolist()
    [False, False, False, False, False]
    >>> W = np.zeros((5, 5))
    >>> for a, lst in enumerate(task.lists):
    ...     W[list(lst), a] = np.arange(len(lst), 0, -1)
    >>> column_order_ok(W, task).tolist()
    [True, True, True, True, True]
    """
    task = _check_task(task)
    W = _matrix(W, "W", task.L)
    ok = np.zeros(task.L, dtype=bool)
    for a, lst in enumerate(task.lists):
        col = W[:, a]
        chain = col[list(lst)]
        rest = np.delete(col, list(lst))
        ok[a] = bool(np.all(np.diff(chain) < 0) and (rest.size == 0 or chain[-1] > rest.max()))
    return ok


@dataclass
class PopulationGD:
    """History of :func:`population_gd_w`: per recorded step the loss, the accuracy, the fraction of columns ordered
    by their list; the final ``W``; the first step with perfect classification (or None).

    Attributes
    ----------
    steps : list of int
        The steps 0..T.
    loss, accuracy, ordered : list of float
        Population loss, accuracy and share of ordered columns (:func:`column_order_ok`) at each step.
    W : np.ndarray or None
        The final ``W``.
    first_perfect : int or None
        The first step with accuracy 1.
    iterates : list of np.ndarray
        Every ``W_t`` (with ``keep_iterates``).

    Examples
    --------
    >>> from theory.decision_lists import random_task
    >>> hist = population_gd_w(random_task(5, 3, seed=0), 3, c=4.0, eta=50.0, steps=2, keep_iterates=True)
    >>> hist.steps, len(hist.iterates), hist.W.shape
    ([0, 1, 2], 3, (5, 5))
    """

    steps: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    ordered: list[float] = field(default_factory=list)
    W: np.ndarray | None = None
    first_perfect: int | None = None
    iterates: list[np.ndarray] = field(default_factory=list)


@fill_doc(_DOC)
def population_gd_w(
    task: td.DecisionListTask,
    n: int,
    c: float,
    eta: float,
    steps: int,
    W0: np.ndarray | None = None,
    keep_iterates: bool = False,
) -> PopulationGD:
    """Gradient descent on the exact population loss in ``W`` with ``V = cP`` fixed (Theorem 4.3's setting), the
    population being every ``n``-subset (uniform law), gradients from :func:`closed_form_gradients`; with
    ``keep_iterates`` every ``W_t`` is kept. Refused before any step (LimitError naming ``steps``, or ``n`` when one
    step is too much) when the work ``(steps + 1) (28 C(L, n) n (n + L) + 100 STEP_COST)`` (forward and backward
    passes, plus the Python steps of :data:`numerics.limits.STEP_COST`) exceeds :func:`numerics.limits.max_work`.

    Parameters
    ----------
    {{task_n}}
    c : float
        Scale of ``V = cP``, > 0.
    eta : float
        Step size, > 0.
    steps : int
        Number of GD steps, >= 0.
    W0 : np.ndarray, shape (L, L), optional
        Start; None = 0.
    keep_iterates : bool
        Keep every ``W_t``.

    Returns
    -------
    PopulationGD

    Examples
    --------
    The loss starts at ``L_0`` (:func:`theory.decision_lists.initial_loss`) and GD reaches perfect classification:

    >>> from theory.decision_lists import initial_loss, random_task
    >>> hist = population_gd_w(random_task(5, 3, seed=0), 3, c=4.0, eta=50.0, steps=30)
    >>> abs(hist.loss[0] - float(initial_loss(5, 3, 4))) < 1e-12
    True
    >>> hist.accuracy[0], hist.accuracy[-1], hist.first_perfect, hist.loss[-1] < hist.loss[0]
    (0.0, 1.0, 1, True)
    """
    task = _check_task(task)
    for name, value in (("c", c), ("eta", eta)):
        try:
            check_real(value, name, positive=True)
        except InputError:
            raise InputError(
                f"need c > 0 and eta > 0 (finite), got c = {c!r:.40}, eta = {eta!r:.40}", param=name
            ) from None
    steps = check_positive_int(steps, "steps", minimum=0, hypothesis="a number of GD steps")
    keep_iterates = check_bool(keep_iterates, "keep_iterates")
    L, n = td.check_sequence_length(task.L, n)
    count = _check_subsets(L, n)
    per_step = _pass_work(count, n, L, 100)
    single = per_step > limits.max_work()
    limits.check_work(
        (steps + 1) * per_step,
        param="n" if single else "steps",
        value=n if single else steps,
        what=f"the population GD ((steps + 1) x (28 C(L, n) n (n + L) + 100 STEP_COST), C(L, n) = {format_count(count)})",
        hint="use fewer steps or a smaller task",
    )
    check_allocation(_forward_bytes(count, n, L), "n", n, f"the forward pass over all {format_count(count)} subsets")
    if keep_iterates:
        check_allocation(array_bytes(steps + 1, L, L), "steps", steps, f"{format_count(steps + 1)} iterates W_t (L, L)")
    if W0 is not None:
        W0 = _matrix(W0, "W0", L)
    S = subsets_array(task.L, n)
    Y = labels_array(task, S)
    V = c * permutation_matrix(task)
    W = np.zeros((task.L, task.L)) if W0 is None else np.array(W0, dtype=np.float64)
    hist = PopulationGD()
    for t in range(steps + 1):
        acc = float(correct_mask(W, V, S, Y).mean())
        hist.steps.append(t)
        hist.loss.append(float(sequence_losses(W, V, S, Y).mean()))
        hist.accuracy.append(acc)
        hist.ordered.append(float(column_order_ok(W, task).mean()))
        if acc == 1.0 and hist.first_perfect is None:
            hist.first_perfect = t
        if keep_iterates:
            hist.iterates.append(W.copy())
        if t < steps:
            W = W - eta * closed_form_gradients(W, V, S, Y)[0]
            if not np.isfinite(W).all():
                raise InputError(
                    f"GD diverged: W overflows float64 at step {t + 1} (eta = {eta:g} too large)", param="eta"
                )
    hist.W = W
    return hist


def class_indices(task: td.DecisionListTask) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``(rows, cols)`` of the entries of each class of :data:`theory.decision_lists.ENTRY_CLASSES` except
    ``generic`` (the rest).

    Parameters
    ----------
    task : theory.decision_lists.DecisionListTask
        The task.

    Returns
    -------
    dict of str to (np.ndarray, np.ndarray)
        For ``"P"``, ``"shift"`` and ``"antishift"``.

    Examples
    --------
    On the Fig. 4.1 task on Z_11 (three list shifts) each class has L entries per shift:

    >>> from theory.decision_lists import cyclic_task
    >>> {k: len(rows) for k, (rows, cols) in class_indices(cyclic_task(11)).items()}
    {'P': 11, 'shift': 33, 'antishift': 33}
    """
    task = _check_task(task)
    _check_task_work(task)
    rows: dict[str, list[int]] = {k: [] for k in td.ENTRY_CLASSES if k != "generic"}
    cols: dict[str, list[int]] = {k: [] for k in rows}
    for t in range(task.L):
        for u in set(task.lists[t]) | {t} | {b for b in range(task.L) if t in task.lists[b]}:
            k = td.entry_class(task, task.perm[u], t)
            if k != "generic":
                rows[k].append(task.perm[u])
                cols[k].append(t)
    return {k: (np.array(rows[k], dtype=np.int64), np.array(cols[k], dtype=np.int64)) for k in rows}


@fill_doc(_DOC)
def one_step_v_mc(
    task: td.DecisionListTask, n: int, eta: float, samples: int, seed: int, chunk: int = 10_000
) -> dict[str, dict[str, float | None]]:
    r"""Monte Carlo of ``V_1 - V_0 = (eta/n^2) N - (eta/L^2) 11^T`` (Fig. 4.1 at ``W = 0``, ``V_0 = 0``) class by class.

    Each sampled sequence gives, for every class of entries, the class average of ``(eta/n^2) c_r 1{t in s} -
    eta/L^2`` (``c_r`` = number of positions labelled ``r``); the estimate is the mean over sequences and the
    standard error their standard deviation over ``sqrt(samples)``.

    Parameters
    ----------
    {{task_n}}
    eta : float
        Step size.
    samples : int
        Monte-Carlo sample size, >= 2.
    seed : int
        Seed of ``np.random.default_rng``.
    chunk : int
        Sequences per batch.

    Returns
    -------
    dict of str to dict
        Per class of :data:`theory.decision_lists.ENTRY_CLASSES`: ``mean``, ``se`` and the number of ``entries``. A
        class without entries (e.g. ``generic`` for ``cyclic_task(7)``, where every entry is ``P``, a shift or an
        anti-shift) has no average: its ``mean`` and ``se`` are None and ``entries`` is 0.

    Examples
    --------
    Each class average is within three standard errors of the exact :func:`theory.decision_lists.one_step_v`
    (the P class is exact: its SE is 0):

    >>> import numpy as np
    >>> from theory.decision_lists import cyclic_task, one_step_v
    >>> task = cyclic_task(11)
    >>> mc = one_step_v_mc(task, 4, 121.0, 4000, seed=0)
    >>> exact = np.array(one_step_v(task, 4, 121), dtype=float)
    >>> mc["P"]["mean"], mc["P"]["se"], float(exact[task.perm[0], 0])
    (1.75, 0.0, 1.75)
    >>> all(abs(mc[k]["mean"] - exact[r, t].mean()) <= 3 * mc[k]["se"] + 1e-12
    ...     for k, (r, t) in class_indices(task).items())
    True

    On ``Z_7`` every entry is in ``P``, a shift or an anti-shift, so the generic class is empty:

    >>> one_step_v_mc(cyclic_task(7), 3, 49.0, 100, seed=0)["generic"]
    {'mean': None, 'se': None, 'entries': 0}
    """
    seed = limits.check_seed(seed)
    task = _check_task(task)
    L, n = td.check_sequence_length(task.L, n)
    eta = check_real(eta, "eta")
    idx = class_indices(task)
    sizes = {k: len(r) for k, (r, _) in idx.items()}
    sizes["generic"] = L * L - sum(sizes.values())
    samples = check_mc(
        samples,
        "samples",
        _perm_cost(L) + 3 * L + n + sum(sizes.values()),
        "samples x (L log2 L for a permutation + L + the class entries)",
    )
    chunk = check_positive_int(chunk, "chunk", hypothesis="sequences per batch")
    check_allocation(array_bytes(6 * min(chunk, samples), L), "chunk", chunk, "one chunk of sequences (chunk, L)")
    rng = np.random.default_rng(seed)
    per_sample: dict[str, list[np.ndarray]] = {k: [] for k in td.ENTRY_CLASSES}
    done = 0
    while done < samples:
        b = min(chunk, samples - done)
        S = sample_sequences(L, n, b, rng)
        Y = labels_array(task, S)
        counts = np.zeros((b, L))
        np.add.at(counts, (np.repeat(np.arange(b), n), Y.ravel()), 1.0)
        member = np.zeros((b, L))
        member[np.arange(b)[:, None], S] = 1.0
        total = np.full(b, float(n * n))
        for k, (r, t) in idx.items():
            sums = (counts[:, r] * member[:, t]).sum(axis=1)
            total -= sums
            per_sample[k].append(sums / max(sizes[k], 1))
        per_sample["generic"].append(total / max(sizes["generic"], 1))
        done += b
    out: dict[str, dict[str, float | None]] = {}
    for k in td.ENTRY_CLASSES:
        if sizes[k] == 0:  # an empty class has no average (not NaN)
            out[k] = {"mean": None, "se": None, "entries": 0}
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            x = eta / n**2 * np.concatenate(per_sample[k]) - eta / L**2
            se = 0.0 if np.ptp(x) == 0 else float(x.std(ddof=1) / np.sqrt(x.size))  # constant: no rounding noise
            mean = float(x[0]) if se == 0 else float(x.mean())
        if not (math.isfinite(mean) and math.isfinite(se)):
            raise InputError(f"eta = {eta:.3g} makes the step overflow float64; use a smaller eta", param="eta")
        out[k] = {"mean": mean, "se": se, "entries": sizes[k]}
    return out


@fill_doc(_DOC)
def one_step_v_exact_float(task: td.DecisionListTask, n: int, eta: float) -> np.ndarray:
    r"""``V_1 - V_0`` at ``W = 0, V_0 = 0`` in float64, entry by entry: ``(eta/n^2) N(r, t) - eta/L^2`` with
    ``N(pi(u), t) = sum_{a: u in L_a} C(L - |A|, n - |A| ... )`` hypergeometric terms (``A = {a, u, t}``, the list
    entries before ``u`` absent), evaluated with float binomials (an implementation independent of
    :func:`theory.decision_lists.ldt_count_matrix`).

    Parameters
    ----------
    {{task_n}}
    eta : float
        Step size.

    {{returns_square}}

    Examples
    --------
    >>> import numpy as np
    >>> from theory.decision_lists import cyclic_task, one_step_v
    >>> task = cyclic_task(11)
    >>> bool(np.allclose(one_step_v_exact_float(task, 4, 121.0), np.array(one_step_v(task, 4, 121), dtype=float)))
    True
    """
    task = _check_task(task)
    L, n = td.check_sequence_length(task.L, n)
    eta = check_real(eta, "eta")
    _check_task_work(task)
    check_allocation(array_bytes(4 * L, L), "task", L, f"the ({L}, {L}) step in float64")
    log_total = float(_log_comb(np.array(L), np.array(n)))
    Nmat = np.zeros((L, L))
    t = np.arange(L)
    for a, lst in enumerate(task.lists):
        for k, u in enumerate(lst):
            before = np.array(lst[:k], dtype=np.int64)
            size_A = 2 + ((t != a) & (t != u)) if a != u else 1 + (t != u)
            ok = ~np.isin(t, before)
            prob = np.exp(_log_comb(np.full(L, L) - size_A - len(before), n - size_A) - log_total) * ok
            Nmat[task.perm[u]] += prob
    return eta / n**2 * Nmat - eta / L**2


def _log_comb(N: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``log C(N, k)`` element-wise, ``-inf`` where ``k < 0`` or ``k > N``."""
    N, k = np.asarray(N, dtype=np.float64), np.asarray(k, dtype=np.float64)
    valid = (k >= 0) & (k <= N)
    kk, NN = np.where(valid, k, 0.0), np.where(valid, N, 0.0)
    return np.where(valid, gammaln(NN + 1) - gammaln(kk + 1) - gammaln(NN - kk + 1), -np.inf)


@fill_doc(_DOC)
def event_probability_mc(
    L: int, n: int, inside: Sequence[int], outside: Sequence[int], samples: int, seed: int
) -> tuple[float, float]:
    r"""Monte Carlo of ``P[A subset s, B cap s empty]`` for a uniform ``n``-subset, averaged over the ``L`` cyclic
    translates of ``(A, B)`` in each sample (all have the same probability): ``(estimate, standard error)``.

    Parameters
    ----------
    {{L_n_unchecked}}
    inside, outside : sequence of int
        The token sets A and B.
    samples : int
        Monte-Carlo sample size, >= 2.
    seed : int
        Seed of ``np.random.default_rng``.

    Returns
    -------
    estimate, se : float

    Raises
    ------
    ValueError
        If a token of ``inside`` or ``outside`` is outside ``range(L)`` (it is never wrapped mod ``L``) or
        ``samples < 2``.

    Examples
    --------
    Within three standard errors of ``C(L - |A| - |B|, n - |A|) / C(L, n)``
    (:func:`theory.decision_lists.event_probability`):

    >>> from theory.decision_lists import event_probability
    >>> est, se = event_probability_mc(7, 3, [0, 1], [2], 5000, seed=0)
    >>> event_probability(7, 3, [0, 1], [2])
    Fraction(4, 35)
    >>> abs(est - 4 / 35) < 3 * se
    True
    """
    seed = limits.check_seed(seed)
    L, n = td.check_sequence_length(L, n)
    tokens = {}
    for name, seq in (("inside", inside), ("outside", outside)):
        if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence | np.ndarray):
            raise InputError(f"{name} must be a sequence of tokens, got {seq!r:.80}", param=name)
        for t in seq:
            if isinstance(t, bool) or not isinstance(t, numbers.Integral):
                raise InputError(f"{name} must hold integer tokens, got {t!r:.80}", param=name)
        tokens[name] = [int(t) for t in seq]
    bad = sorted(t for t in tokens["inside"] + tokens["outside"] if not 0 <= t < L)
    if bad:
        raise InputError(
            f"inside/outside tokens must lie in the vocabulary range(0, {L}), got {bad[:10]}",
            param="inside" if any(not 0 <= t < L for t in tokens["inside"]) else "outside",
        )
    width = len(tokens["inside"]) + len(tokens["outside"])
    samples = check_mc(
        samples,
        "samples",
        _perm_cost(L) + L * (1 + width),
        "samples x (L log2 L for a subset + L translates of the token sets)",
    )
    check_allocation(
        array_bytes(min(samples, 20_000), L, max(width, 1) + 4, itemsize=2),
        "inside",
        width,
        f"one chunk of translates ({min(samples, 20_000)}, {L}, {width})",
    )
    rng = np.random.default_rng(seed)
    A, B = np.asarray(tokens["inside"], dtype=np.int64), np.asarray(tokens["outside"], dtype=np.int64)
    shifts = np.arange(L)[:, None]
    Ai, Bi = (A[None, :] + shifts) % L, (B[None, :] + shifts) % L
    vals = []
    for start in range(0, samples, 20_000):
        b = min(20_000, samples - start)
        member = np.zeros((b, L), dtype=bool)
        member[np.arange(b)[:, None], sample_sequences(L, n, b, rng)] = True
        hit = member[:, Ai].all(axis=-1) & ~member[:, Bi].any(axis=-1)  # (b, L translates)
        vals.append(hit.mean(axis=1))
    x = np.concatenate(vals)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))


@fill_doc(_DOC)
def a43_min_event_float(task: td.DecisionListTask, n: int) -> tuple[float, tuple[int, int, int]]:
    r"""The smallest positive probability over the triple events of Assumption 4.3 for uniform ``n``-subsets, in
    float64, with a triple attaining it: for every ``a``, every ``b = a_k`` of ``L_a`` and every token ``c`` not among
    ``a_1 .. a_k``, ``P[{a, b, c} subset s, a_1 .. a_{k-1} absent] = C(L - |A| - k, n - |A|) / C(L, n)`` with
    ``A = {a, b, c}``, via log-gamma binomials (an enumeration written independently of
    :func:`theory.decision_lists.delta_a43`, to check its minimum at sizes where brute force over token sets is
    impossible).

    Parameters
    ----------
    {{task_n}}

    Returns
    -------
    delta : float
        The smallest positive probability.
    triple : tuple of int
        ``(a, b, c)`` attaining it.

    Examples
    --------
    >>> from theory.decision_lists import delta_a43, random_task
    >>> task = random_task(5, 3, seed=0)
    >>> delta, triple = a43_min_event_float(task, 3)
    >>> round(delta, 12), triple
    (0.1, (0, 4, 1))
    >>> delta_a43(task, 3)
    (Fraction(1, 10), (0, 4, 1))
    """
    task = _check_task(task)
    L, n = td.check_sequence_length(task.L, n)
    _check_task_work(task)
    log_total = float(_log_comb(np.array(L), np.array(n)))
    best, arg = np.inf, (-1, -1, -1)
    tokens = np.arange(L)
    for a, lst in enumerate(task.lists):
        for k, b in enumerate(lst):
            allowed = ~np.isin(tokens, lst[: k + 1])
            size_A = np.where(np.isin(tokens, [a, b]), 0, 1) + len({a, b})
            prob = np.exp(_log_comb(L - size_A - k, n - size_A) - log_total)
            prob = np.where(allowed & (prob > 0), prob, np.inf)
            j = int(np.argmin(prob))
            if prob[j] < best:
                best, arg = float(prob[j]), (a, int(b), j)
    if not math.isfinite(best):  # no triple event has positive probability (e.g. n < 3)
        raise InputError(
            f"no triple event of Assumption 4.3 has positive probability for n = {n} (each needs three tokens in "
            "the sequence)",
            param="n",
        )
    return best, arg


@fill_doc(_DOC)
def notin_S_directional(
    task: td.DecisionListTask, W: np.ndarray, V: np.ndarray, S: np.ndarray, a: int, tol: float = 0.0
) -> dict[str, np.ndarray | int | None]:
    r"""The directional derivatives ``<grad_w L(W, V; s), v>`` of the proof of Theorem 4.4 for token ``a``.

    ``a`` misclassified somewhere in ``S`` (else ``k_star`` is None): ``k*`` = the first token of ``L_a`` that is
    ``a``'s LDT in a sequence where ``a`` is misclassified; ``v`` = indicator of the tokens of ``L_a`` up to and
    including ``k*``; ``S`` = sequences with ``a`` misclassified and LDT ``k*``. Returns the derivative for every
    sequence of ``S`` containing ``a`` (``in_S`` says which are in the set ``S``), from
    :func:`closed_form_gradients` on one sequence at a time (per-sequence loss (4.2)).

    Parameters
    ----------
    {{task}}
    {{weights}}
    S : array_like, shape (B, n)
        The sequences considered (e.g. every ``n``-subset).
    a : int
        The query token.
    tol : float
        Lead required for a correct classification (:func:`correct_mask`).

    Returns
    -------
    dict
        ``k_star`` (int or None), ``values`` (derivatives, one per sequence containing ``a``) and ``in_S`` (bool).

    Examples
    --------
    At ``W = 0``, ``V = cP`` the derivative of every sequence of ``S`` is at most ``-(c/2n) p(1 - p)``,
    ``p = 1/n`` (:func:`theory.decision_lists.thm43_in_S_bound`), and ``S`` is the set of
    :func:`theory.decision_lists.thm43_sets`:

    >>> import numpy as np
    >>> from theory.decision_lists import random_task, thm43_in_S_bound, thm43_sets
    >>> task = random_task(5, 3, seed=0)
    >>> S = subsets_array(5, 3)
    >>> info = notin_S_directional(task, np.zeros((5, 5)), 4.0 * permutation_matrix(task), S, 0)
    >>> info["k_star"], info["in_S"].tolist()
    (4, [False, False, True, False, True, True])
    >>> bool(np.all(info["values"][info["in_S"]] <= float(thm43_in_S_bound(3, 4, 1 / 3))))
    True
    >>> thm43_sets(task, np.zeros((5, 5)).tolist(), 3)[0]
    (4, [(0, 1, 4), (0, 2, 4), (0, 3, 4)])
    """
    task = _check_task(task)
    S = check_sequences(task.L, S)
    a = _token(a, "a", task.L)
    W, V = _matrix(W, "W", task.L), _matrix(V, "V", task.L)
    tol = check_real(tol, "tol")
    B, n = S.shape
    check_cost(
        B * (task.L * task.L + n * task.L),
        limits.max_mc_work(),
        param="S",
        value=B,
        what=f"one gradient per sequence (B (L^2 + n L) = {format_count(B)} x {format_count(task.L**2 + n * task.L)})",
        hint="use token_directional (vectorised) or fewer sequences",
    )
    Y = labels_array(task, S)
    ldt = ldt_array(task, S)
    has_a = np.equal(S, a).any(axis=1)
    pos = np.argmax(a == S, axis=1)
    wrong = ~correct_mask(W, V, S, Y, tol)[np.arange(len(S)), pos] & has_a
    lst = task.lists[a]
    if not wrong.any():
        return {"k_star": None, "values": np.zeros(0), "in_S": np.zeros(0, dtype=bool)}
    k_idx = min(lst.index(int(t)) for t in ldt[np.arange(len(S)), pos][wrong])
    v = np.zeros(task.L)
    v[list(lst[: k_idx + 1])] = 1.0
    rows = np.nonzero(has_a)[0]
    values = np.array([closed_form_gradients(W, V, S[i : i + 1], Y[i : i + 1])[0][:, a] @ v for i in rows])
    in_S = wrong[rows] & (ldt[rows, pos[rows]] == lst[k_idx])
    return {"k_star": int(lst[k_idx]), "values": values, "in_S": in_S}


@fill_doc(_DOC)
def token_directional(task: td.DecisionListTask, W: np.ndarray, V: np.ndarray, S: np.ndarray, a: int) -> dict | None:
    r"""Every sequence of ``S`` containing ``a``, classified as in the proofs of Theorems 4.3/4.4, with its directional
    derivative in closed form (vectorised; None when ``a`` is never misclassified).

    With ``k*``, ``v`` and ``S`` as in :func:`notin_S_directional`, ``p`` the attention column of ``a``, ``s'`` the
    tokens of ``s`` where ``v = 1`` and ``P' = v . p``, the chain rule of Sec. 4.3.3 summed over ``s'`` gives

    .. math:: \langle \nabla_w L(W, V; s), v\rangle = \frac1n \langle V_y - \sigma^\top V, q\rangle,
              \qquad q = P' p - v \circ p,

    which is exactly 0 when ``s'`` is empty (``nonzero`` False). Returned: ``k_star``, ``v``, ``rows``, ``in_S``,
    ``nonzero``, ``d`` and the ``p``, ``sigma``, ``q``, ``y`` of every row (for :func:`directional_grad_v`).

    Parameters
    ----------
    {{task}}
    {{weights}}
    S : array_like, shape (B, n)
        The sequences considered.
    a : int
        The query token.

    Returns
    -------
    dict or None
        The quantities above, or None.

    Examples
    --------
    The closed form gives the derivatives of :func:`notin_S_directional`:

    >>> import numpy as np
    >>> from theory.decision_lists import random_task
    >>> task = random_task(5, 3, seed=0)
    >>> S, W, V = subsets_array(5, 3), np.zeros((5, 5)), 4.0 * permutation_matrix(task)
    >>> info = token_directional(task, W, V, S, 0)
    >>> info["k_star"], info["rows"].shape
    (4, (6, 3))
    >>> bool(np.allclose(info["d"], notin_S_directional(task, W, V, S, 0)["values"]))
    True
    """
    task = _check_task(task)
    S = check_sequences(task.L, S)
    a = _token(a, "a", task.L)
    W, V = _matrix(W, "W", task.L), _matrix(V, "V", task.L)
    n = S.shape[1]
    rows = S[np.equal(S, a).any(axis=1)]
    if rows.size == 0:
        return None
    pos = np.argmax(rows == a, axis=1)
    B = len(rows)
    Y = labels_array(task, rows)
    ok = correct_mask(W, V, rows, Y)[np.arange(B), pos]
    ldt = ldt_array(task, rows)[np.arange(B), pos]
    lst = task.lists[a]
    if ok.all():
        return None
    k_idx = min(lst.index(int(t)) for t in ldt[~ok])
    v = np.zeros(task.L)
    v[list(lst[: k_idx + 1])] = 1.0
    p, _, sig = forward(W, V, rows)
    p, sig, y = p[np.arange(B), pos], sig[np.arange(B), pos], Y[np.arange(B), pos]
    q = (p @ v)[:, None] * p - v[None, :] * p
    d = ((V[y] - sig @ V) * q).sum(axis=1) / n
    return {
        "k_star": int(lst[k_idx]),
        "v": v,
        "rows": rows,
        "in_S": ~ok & (ldt == lst[k_idx]),
        "nonzero": (v[rows] > 0).any(axis=1),
        "d": d,
        "p": p,
        "sigma": sig,
        "q": q,
        "y": y,
    }


def directional_grad_v(V: np.ndarray, p: np.ndarray, sigma: np.ndarray, q: np.ndarray, y: int, n: int) -> np.ndarray:
    r"""The gradient in ``V`` of one row's derivative ``(1/n) <V_y - sigma^T V, q>`` of :func:`token_directional`
    (``sigma = softmax(V p)``, ``p`` and ``q`` fixed by ``W``): ``(1/n)[e_y q^T - sigma q^T - (sigma o (h - sigma.h))
    p^T]`` with ``h = V q``.

    Parameters
    ----------
    V : np.ndarray, shape (L, L)
        The value matrix.
    p, sigma, q : np.ndarray, shape (L,)
        The row's attention, output probabilities and ``q`` (:func:`token_directional`).
    y : int
        The row's label.
    n : int
        Sequence length.

    Returns
    -------
    np.ndarray, shape (L, L)

    Examples
    --------
    A central difference along a random direction D agrees with ``<G, D>``:

    >>> import numpy as np
    >>> from theory.decision_lists import random_task
    >>> task = random_task(5, 3, seed=0)
    >>> rng = np.random.default_rng(1)
    >>> W, V = rng.standard_normal((5, 5)), 4.0 * permutation_matrix(task) + 0.1 * rng.standard_normal((5, 5))
    >>> info = token_directional(task, W, V, subsets_array(5, 3), 0)
    >>> j = int(np.flatnonzero(info["nonzero"])[0])
    >>> p, q, y = info["p"][j], info["q"][j], int(info["y"][j])
    >>> def d(V):
    ...     z = V @ p
    ...     sig = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    ...     return (V[y] - sig @ V) @ q / 3
    >>> G = directional_grad_v(V, p, info["sigma"][j], q, y, 3)
    >>> D, h = rng.standard_normal((5, 5)), 1e-6
    >>> abs(float(d(V + h * D) - d(V - h * D)) / (2 * h) - float(np.sum(G * D))) < 1e-8
    True
    """
    V = _matrix(V, "V")
    L = V.shape[0]
    p, sigma, q = check_real_vector(p, "p", L), check_real_vector(sigma, "sigma", L), check_real_vector(q, "q", L)
    y = _token(y, "y", L)
    _, n = td.check_sequence_length(L, n)
    h = V @ q
    G = -np.outer(sigma, q) - np.outer(sigma * (h - sigma @ h), p)
    G[y] += q
    return G / n


def adversarial_e(
    task: td.DecisionListTask, W: np.ndarray, c: float, eps: float, S: np.ndarray, iters: int, E0: np.ndarray
) -> tuple[np.ndarray, float]:
    r"""An entry-wise ``|E| <= eps`` that makes a derivative of a sequence ``s not in S`` (with ``s'`` nonempty) of
    ``V = cP + E`` large: ``iters`` steps of sign-gradient ascent (step ``eps/4``, clipped to the box) on the currently
    largest such derivative, each step re-deriving ``k*`` and ``S`` for the new ``V``. Returns the best ``E`` seen and
    its largest derivative (``-inf`` if no such sequence ever exists). An adversary for the bound of Theorem 4.4's
    proof: any ``E`` in the box is a valid instance, so the search only makes the test harder. Refused before any
    step (LimitError naming ``iters``) when the work ``(iters + 1) L (28 B n (n + L) + 100 STEP_COST)`` (L token
    searches per step, each passes over the B sequences and about 100 numpy calls) exceeds
    :func:`numerics.limits.max_work`.

    Parameters
    ----------
    task : theory.decision_lists.DecisionListTask
        The task.
    W : np.ndarray, shape (L, L)
        The attention matrix.
    c : float
        Scale of ``cP``, > 0.
    eps : float
        The box radius, >= 0.
    S : np.ndarray, shape (B, n)
        The sequences considered.
    iters : int
        Number of ascent steps.
    E0 : np.ndarray, shape (L, L)
        Start (clipped to the box).

    Returns
    -------
    E : np.ndarray, shape (L, L)
        The best perturbation seen.
    value : float
        Its largest derivative.

    Examples
    --------
    The search stays below the bound ``6 eps / n`` of :func:`theory.decision_lists.thm44_notin_S_bound`:

    >>> import numpy as np
    >>> from theory.decision_lists import random_task, thm44_notin_S_bound
    >>> task = random_task(5, 3, seed=0)
    >>> W = np.random.default_rng(0).standard_normal((5, 5))
    >>> E, value = adversarial_e(task, W, 4.0, 0.1, subsets_array(5, 3), 5, np.zeros((5, 5)))
    >>> float(np.abs(E).max()) <= 0.1, value <= float(thm44_notin_S_bound(3, 0.1))
    (True, True)
    """
    task = _check_task(task)
    W = _matrix(W, "W", task.L)
    c = check_real(c, "c", positive=True)
    eps = check_real(eps, "eps", nonnegative=True)
    S = check_sequences(task.L, S)
    iters = check_positive_int(iters, "iters", minimum=0, hypothesis="a number of ascent steps")
    E0 = _matrix(E0, "E0", task.L)
    B, n = S.shape
    L = task.L
    limits.check_work(
        (iters + 1) * L * _pass_work(B, n, L, 100),
        param="iters",
        value=iters,
        what=f"the search ((iters + 1) x L tokens x (28 B n (n + L) + 100 STEP_COST), B = {format_count(B)} sequences)",
        hint="use fewer iters or sequences",
    )
    check_allocation(_forward_bytes(B, n, L), "S", B, f"the forward pass of {format_count(B)} sequences (B, n, L)")
    P = permutation_matrix(task)
    E = np.clip(np.array(E0, dtype=np.float64), -eps, eps)
    best, best_E = -np.inf, E.copy()
    for _ in range(iters + 1):
        V = c * P + E
        top = None
        for a in range(task.L):
            info = token_directional(task, W, V, S, a)
            if info is None:
                continue
            idx = np.nonzero(~info["in_S"] & info["nonzero"])[0]
            if idx.size:
                j = int(idx[np.argmax(info["d"][idx])])
                if top is None or info["d"][j] > top[0]:
                    top = (float(info["d"][j]), info, j)
        if top is None:
            break
        if top[0] > best:
            best, best_E = top[0], E.copy()
        info, j = top[1], top[2]
        G = directional_grad_v(V, info["p"][j], info["sigma"][j], info["q"][j], int(info["y"][j]), n)
        E = np.clip(E + 0.25 * eps * np.sign(G), -eps, eps)
    return best_E, best


@fill_doc(_DOC)
def brute_force_delta_a43(task: td.DecisionListTask, law: dict[frozenset[int], Fraction]) -> Fraction:
    """Assumption 4.3's ``delta`` by brute force: for every triple (a, b, c) with ``b in L_a`` and ``c`` after ``b`` in
    ``L_a`` or not in ``L_a``, add up the probability of every token set containing ``a, b, c`` in which ``b`` is
    ``a``'s label-determining token (found by scanning ``L_a``); the smallest positive total (exact).

    Parameters
    ----------
    {{task}}
    {{law}}

    {{returns_delta}}

    Examples
    --------
    For the uniform law on 3-subsets it equals :func:`theory.decision_lists.delta_a43`:

    >>> from fractions import Fraction
    >>> from theory.decision_lists import delta_a43, random_task, uniform_subsets
    >>> task = random_task(5, 3, seed=0)
    >>> law = {frozenset(s): Fraction(1, 10) for s in uniform_subsets(5, 3)}
    >>> brute_force_delta_a43(task, law), delta_a43(task, 3)[0]
    (Fraction(1, 10), Fraction(1, 10))
    """
    task = _check_task(task)
    law = _check_law(law, task.L)
    _check_task_work(
        task,
        max(1, len(law)),
        "law",
        f"the brute force over the triples and the law (L^2 M |law| = {task.L}^2 x {task.M} x {len(law)})",
    )
    best: Fraction | None = None
    for a, b, c, _, _ in td._a43_triples(task):
        lst = task.lists[a]
        prob = Fraction(0)
        for s, p in law.items():
            if a in s and b in s and c in s and next(t for t in lst if t in s) == b:
                prob += p
        if prob > 0 and (best is None or prob < best):
            best = prob
    if best is None:
        raise InputError("no triple of Assumption 4.3 has positive probability under this law", param="law")
    return best


def _check_law(law: object, L: int | None = None) -> dict[frozenset[int], Fraction]:
    """A law over token sets: a mapping of sets of int tokens to exact non-negative probabilities."""
    if not isinstance(law, Mapping):
        raise InputError(f"law must be a dict of frozenset to Fraction, got {law!r:.80}", param="law")
    out: dict[frozenset[int], Fraction] = {}
    for key, p in law.items():
        if not isinstance(key, (set, frozenset)) or not all(
            isinstance(t, numbers.Integral) and not isinstance(t, bool) and (L is None or 0 <= int(t) < L) for t in key
        ):
            where = "" if L is None else f" in range(0, {L})"
            raise InputError(f"law keys must be sets of integer tokens{where}, got {key!r:.80}", param="law")
        if isinstance(p, bool) or not isinstance(p, numbers.Rational) or p < 0:
            raise InputError(
                f"law values must be exact probabilities >= 0 (Fraction or int), got {p!r:.80}", param="law"
            )
        out[frozenset(int(t) for t in key)] = Fraction(p)
    return out


@fill_doc(_DOC)
def brute_force_delta_a44(law: dict[frozenset[int], Fraction]) -> Fraction:
    """Assumption 4.4's ``delta``: the smallest positive probability of a token set (exact).

    Parameters
    ----------
    {{law}}

    {{returns_delta}}

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.decision_lists import delta_a44
    >>> law = {frozenset({0, 1}): Fraction(1, 2), frozenset({0, 2}): Fraction(1, 3), frozenset({1, 2}): Fraction(1, 6)}
    >>> brute_force_delta_a44(law), delta_a44(3, law=law)
    (Fraction(1, 6), Fraction(1, 6))
    """
    positive = [p for p in _check_law(law).values() if p > 0]
    if not positive:
        raise InputError("law has no token set of positive probability", param="law")
    return min(positive)


@fill_doc(_DOC)
def population_gd_wv(
    task: td.DecisionListTask, n: int, V0: np.ndarray, eta: float, steps: int
) -> tuple[np.ndarray, np.ndarray, list[float]]:
    r"""Gradient descent on the exact population loss in ``W`` and ``V`` (Theorem 4.4's update) from ``W_0 = 0``
    and ``V0``, the population being every ``n``-subset, gradients from :func:`closed_form_gradients` (the
    identities of Sec. 4.3.3, no autograd): an independent reference for the torch trainer.

    Parameters
    ----------
    {{task_n}}
    V0 : np.ndarray, shape (L, L)
        The start of ``V``.
    eta : float
        Step size, > 0.
    steps : int
        Number of GD steps, >= 0.

    Returns
    -------
    W, V : np.ndarray, shape (L, L)
        After ``steps`` updates.
    loss : list of float
        The population loss at steps ``0 .. steps``.

    Raises
    ------
    ValueError
        For a task, ``n``, ``V0``, ``eta`` or ``steps`` out of range, a run whose work ``(steps + 1) (28 C(L, n) n (n + L) + 50
        STEP_COST)`` is above :func:`numerics.limits.max_work` (LimitError naming ``steps``), or a GD that
        diverges (``W`` or ``V`` overflows float64: ``eta`` too large).

    Examples
    --------
    One step from ``W = 0``, ``V = 2P`` lowers the loss:

    >>> from theory.decision_lists import random_task
    >>> task = random_task(4, 2, seed=0)
    >>> W, V, loss = population_gd_wv(task, 2, 2.0 * permutation_matrix(task), 1.0, 1)
    >>> W.shape, loss[1] < loss[0]
    ((4, 4), True)
    """
    task = _check_task(task)
    check_real(eta, "eta", positive=True)
    steps = check_positive_int(steps, "steps", minimum=0, hypothesis="a number of GD steps")
    L, n = td.check_sequence_length(task.L, n)
    count = _check_subsets(L, n)
    limits.check_work(
        (steps + 1) * _pass_work(count, n, L, 50),
        param="steps",
        value=steps,
        what=f"the population GD ((steps + 1) x (28 C(L, n) n (n + L) + 50 STEP_COST), C(L, n) = {format_count(count)})",
        hint="use fewer steps or a smaller task",
    )
    V = _matrix(V0, "V0", L).copy()
    S = subsets_array(L, n)
    Y = labels_array(task, S)
    W = np.zeros((L, L))
    loss = [float(sequence_losses(W, V, S, Y).mean())]
    for _ in range(steps):
        gW, gV = closed_form_gradients(W, V, S, Y)
        with np.errstate(over="ignore", invalid="ignore"):  # a divergence is refused below
            W, V = W - eta * gW, V - eta * gV
        if not (np.isfinite(W).all() and np.isfinite(V).all()):
            raise InputError(
                f"GD diverged: W or V overflows float64 at step {len(loss)} (eta = {eta:g} too large)", param="eta"
            )
        loss.append(float(sequence_losses(W, V, S, Y).mean()))
    return W, V, loss
