r"""Linear looped transformer = multi-step gradient descent (Shi thesis Ch. 8; see ``docs/looped.md``).

Setting (Defs. 8.5-8.7, 8.9): a prompt :math:`X\in\mathbb R^{n\times d}` (n > d, so :math:`X^\top X` is
invertible), labels :math:`y = X\theta^*`, a scalar query :math:`\alpha\ne0` and :math:`q^{(0)}\in\mathbb R^d`;

.. math::
    Z^{(0)} = \begin{bmatrix} X & y\\ q^{(0)\top} & \alpha\end{bmatrix},\qquad
    \mathrm{Attn}(Z;Q,P) = (M\circ ZQZ^\top)\,Z P,\qquad
    Z^{(t)} = Z^{(t-1)} - \eta^{(t-1)}\,\mathrm{Attn}(Z^{(t-1)};Q,P),

with the query-only mask :math:`M` (last row :math:`[1_n, 0]`, zeros elsewhere), the hand-made weights
:math:`Q = I_{d+1}`, :math:`P=\mathrm{diag}(I_d, 0)` and the read-out
:math:`\mathrm{TF}(Z^{(0)}) = -(Z^{(T)}_{n+1,1:d})^\top`.

Results implemented here:

* Lemma 8.13 (:func:`lemma_8_13_attention`): :math:`\mathrm{Attn}(Z^{(0)})` is zero except its last row,
  :math:`[q^{(0)\top}X^\top X + \alpha y^\top X,\ 0]`.
* Theorem 8.14 (:func:`tf_output_predicted`, :func:`gd_iterates`): with :math:`\theta^{(0)} = -q^{(0)}/\alpha`
  and the *same* step sizes, :math:`q^{(t)}=-\alpha\theta^{(t)}` for t = 1..T (the thesis writes 2..T; see
  docs/looped.md, errata), so :math:`\mathrm{TF} = \alpha\theta^{(T)}`; any step sizes, any :math:`\alpha\ne0`,
  any :math:`q^{(0)}`.
* Lemmas 8.20/8.22 (:func:`gram_spectrum`): :math:`L=\lambda_{\max}(X^\top X)`, :math:`\mu=\lambda_{\min}`,
  :math:`\kappa=L/\mu` (Def. 8.12).
* Lemma 8.23 / Theorem 8.25 (:func:`thm_8_25_bound`, :func:`lemma_8_23_bound`): for
  :math:`\eta\in(0,1/L]`, :math:`\|\theta^{(T)}-\theta^*\|^2\le(1-\eta\mu)^T R^2`; at the prompt-dependent
  :math:`\eta = 1/L` this is :math:`(1-1/\kappa)^T R^2\le e^{-T/\kappa}R^2`.
* Theorem 8.16 (:func:`thm_8_16_bound`): with :math:`q^{(0)}=0`, :math:`\eta=1/L`:
  :math:`|\langle\mathrm{TF},\theta^*\rangle-\alpha|\le|\alpha|e^{-T/(2\kappa)}`; the sharper
  :math:`|\alpha|(1-1/\kappa)^T` (Lemma 8.15 with the exact contraction; docs/looped.md, errata) is
  :func:`thm_8_16_sharp_bound`.
* For quadratics and any :math:`\eta\in(0,2/L)` the exact contraction factor is
  :math:`\rho(\eta)=\max(|1-\eta\mu|,|1-\eta L|)<1` (:func:`gd_contraction_factor`), since
  :math:`\theta^{(t)}-\theta^* = (I-\eta X^\top X)(\theta^{(t-1)}-\theta^*)`.

Exactness. Every function is exact when its inputs are exact (``int``, :class:`fractions.Fraction`, sympy
rationals): GD and the transformer run in :class:`~fractions.Fraction` arithmetic, the spectrum uses the
roots of the characteristic polynomial (sympy ``CRootOf``), the bounds are sympy expressions. With
``exact=False`` (the float fallback) GD and the transformer run in Python floats (IEEE float64), which is
what the large Figure 8.1 settings use; a Python float converts to ``Fraction`` exactly, so ``exact=True``
on float data is still the exact result for those (binary) inputs.

Hypotheses on the inputs (each violation is a :class:`theory._checks.InputError`, a ``ValueError``, naming it): X
is an n x d list of rows with n > d >= 1 (invertible Gram matrix, Lemma 8.11), y has n entries, q^(0) has d entries,
alpha != 0, step sizes are > 0 (Def. 8.7), and for a convergence bound the step size lies in (0, 2/L) (in (0, 1/L]
for Lemma 8.23) and kappa >= 1; a float run whose iterate overflows (GD diverges) is refused.

Sizes are checked before the work (:class:`theory._checks.LimitError`): sympy matrices of at most
``MAX_EXACT_ENTRIES`` entries (:func:`mask`, :func:`construction`), exact runs of at most :data:`MAX_EXACT_GD_WORK`
(estimated from the denominators of the data and the step sizes), float runs of at most :data:`MAX_FLOAT_GD_OPS`
operations, exact powers ``(1 - eta mu)^T``, ``(1 - 1/kappa)^T`` of at most ``MAX_DIGITS`` digits, the exact
spectrum for ``d <= MAX_SPECTRUM_D``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy

from ._checks import (
    MAX_DIGITS,
    MAX_EXACT_ENTRIES,
    InputError,
    as_number,
    check_bool,
    check_cost,
    check_positive_int,
    format_count,
)
from ._docstrings import fill_doc, sections

__all__ = [
    "FIG_8_1_D",
    "FIG_8_1_N",
    "FIG_8_1_REPORTED_KAPPA",
    "FIG_8_1_T",
    "FIG_8_1_TRIALS",
    "MAX_EXACT_GD_WORK",
    "MAX_FLOAT_GD_OPS",
    "MAX_SPECTRUM_D",
    "MAX_THM_8_17_T",
    "SOURCE",
    "attention",
    "check_step_size",
    "condition_number",
    "construction",
    "embed",
    "gd_contraction_factor",
    "gd_iterates",
    "gram",
    "gram_spectrum",
    "lemma_8_13_attention",
    "lemma_8_23_bound",
    "looped_forward",
    "mask",
    "prompt_step_size",
    "tf_output_predicted",
    "tf_readout",
    "thm_8_16_bound",
    "thm_8_16_sharp_bound",
    "thm_8_17_bound",
    "thm_8_17_growth_factor",
    "thm_8_17_min_examples",
    "thm_8_25_bound",
    "thm_8_25_exp_bound",
]

SOURCE = "Shi thesis (2024), Ch. 8"

#: Figure 8.1 settings (Sec. 8.6): d = 4, n in {16, 32, 64, 128}, T = 200 iterations, 10 trials per n.
FIG_8_1_D = 4
FIG_8_1_N = (16, 32, 64, 128)
FIG_8_1_T = 200
FIG_8_1_TRIALS = 10
#: Average kappa(X^T X) over the 10 trials, as reported in Sec. 8.6 (source data, not a derivation).
FIG_8_1_REPORTED_KAPPA = {
    16: Fraction(457, 100),
    32: Fraction(313, 100),
    64: Fraction(207, 100),
    128: Fraction(162, 100),
}

Number = Any
Matrix = list[list[Number]]

MAX_SPECTRUM_D = 20
"""Largest d of the exact spectrum (:func:`gram_spectrum`, :func:`condition_number`): the roots of the degree-d
characteristic polynomial of X^T X take ~1.5 s at d = 20 on float data (~8 s at d = 30)."""

MAX_EXACT_GD_WORK = 100_000
"""Largest estimated work of an exact (``exact=True``) run of :func:`gd_iterates`, :func:`looped_forward` or
:func:`tf_output_predicted`: the number of exact multiply-adds per step times the sum over the steps of the squared
size (in thousands of digits) of the iterate's Fractions, which gain about ``log10(den eta) + log10(den X^T X)``
digits per step (~3 s at the limit; the Fig. 8.1 settings run in floats, ``exact=False``)."""

MAX_FLOAT_GD_OPS = 3_000_000
"""Largest number of float multiply-adds plus entries kept of a float (``exact=False``) run (~1 us each in Python: ~3 s
at the limit; Fig. 8.1's largest setting, n = 128, d = 4, T = 200, needs 5 * 10^5)."""


# ----------------------------------------------------------------------------------------- shared docstrings

#: Shared docstring entries and sections (:func:`theory._docstrings.fill_doc`).
_X = "X : array_like\n    The ``n x d`` prompt."
_Y = "y : array_like\n    The ``n`` labels."
_ALPHA = "alpha : number\n    The query scalar, ``alpha != 0``."
_EXACT = "exact : bool, optional\n    Fractions (default) or Python floats."
_KAPPA = "kappa : number\n    The condition number, ``kappa >= 1``."

_DOC = {
    "X_y": sections(_X, _Y),
    "X_y_alpha": sections(_X, _Y, _ALPHA),
    "y_alpha": _Y + "\n" + _ALPHA,
    "q0_exact": "q0 : array_like or None, optional\n    ``q^(0)``, length ``d`` (default 0).\n" + _EXACT,
    "exact": _EXACT,
    "etas": "etas : sequence of numbers\n    The step sizes ``eta^(0..T-1)``, each ``> 0``.",
    "X_full_rank": sections("X : array_like\n    The ``n x d`` prompt, ``n > d``, of full column rank."),
    "T_kappa_R": sections(
        "T : int\n    The number of loops (GD steps), ``T >= 0``.",
        _KAPPA,
        "R : number, optional\n    A bound on ``||theta^(0) - theta*||`` (default 1).",
        returns="sympy.Expr",
    ),
    "T_kappa_alpha": sections(
        "T : int\n    The number of loops, ``T >= 0``.",
        _KAPPA,
        _ALPHA,
        returns="sympy.Expr",
        raises="ValueError\n    For ``alpha = 0``, ``kappa < 1`` or ``T < 0``.",
    ),
    "T_d": sections(
        "T : int\n    The number of loops, ``1 <= T <= MAX_THM_8_17_T``.",
        "d : int\n    The feature dimension, ``d >= 1``.",
    ),
}


# ----------------------------------------------------------------------------------------- validation


def _is_number(x: object) -> bool:
    return (isinstance(x, numbers.Number) and not isinstance(x, bool)) or (isinstance(x, sympy.Basic) and x.is_number)


def _entries(name: str) -> str:
    return name if name == "alpha" else f"the entries of {name}"


def _to_exact(x: Number, name: str = "X") -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, numbers.Integral):
        return Fraction(int(x))
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InputError(f"{_entries(name)} must be finite, got {x!r}", param=name)
        return Fraction(x)
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sympy.Float):
        return _to_exact(float(x), name)
    if hasattr(x, "item"):  # numpy scalar, 0-d array
        return _to_exact(x.item(), name)
    raise InputError(
        f"{_entries(name)} must be real numbers (int, float, Fraction, sympy rational), got {x!r:.80}", param=name
    )


def _to_float(x: Number, name: str = "X") -> float:
    try:
        v = float(x)
    except OverflowError:
        raise InputError(
            f"{_entries(name)} must be finite floats, got {format_count(x)} (beyond the float range)", param=name
        ) from None
    except (TypeError, ValueError):
        raise InputError(f"{_entries(name)} must be real numbers, got {x!r:.80}", param=name) from None
    if not math.isfinite(v):
        raise InputError(f"{_entries(name)} must be finite, got {x!r}", param=name)
    return v


def _conv(exact: bool, name: str = "X"):
    if check_bool(exact, "exact"):
        return lambda x: _to_exact(x, name)
    return lambda x: _to_float(x, name)


def _matrix(X: Any, exact: bool, name: str = "X") -> Matrix:
    rows = X.tolist() if hasattr(X, "tolist") else X
    if isinstance(rows, (str, bytes)):
        raise InputError(f"{name} must be a 2-D array (a list of rows), got a string", param=name)
    try:
        rows = [list(r) for r in rows]
    except TypeError as exc:
        raise InputError(f"{name} must be a 2-D array (a list of rows), got {type(X).__name__}", param=name) from exc
    if not rows or not rows[0]:
        raise InputError(f"{name} must be non-empty, got shape ({len(rows)}, 0)", param=name)
    if len({len(r) for r in rows}) != 1:
        raise InputError(f"{name} is ragged: row lengths {sorted({len(r) for r in rows})}", param=name)
    conv = _conv(exact, name)
    return [[conv(v) for v in r] for r in rows]


def _vector(v: Any, length: int, exact: bool, name: str) -> list[Number]:
    vals = v.tolist() if hasattr(v, "tolist") else v
    if isinstance(vals, (str, bytes)):
        raise InputError(f"{name} must be a 1-D array of length {length}, got a string", param=name)
    try:
        vals = list(vals)
    except TypeError as exc:
        raise InputError(f"{name} must be a 1-D array of length {length}, got {v!r:.80}", param=name) from exc
    if vals and isinstance(vals[0], (list, tuple)):
        if all(isinstance(r, (list, tuple)) and len(r) == 1 for r in vals):
            vals = [r[0] for r in vals]
        else:
            raise InputError(f"{name} must be 1-D of length {length}, got a 2-D array", param=name)
    if len(vals) != length:
        raise InputError(
            f"{name} must have length {length} (shape mismatch with X), got length {len(vals)}", param=name
        )
    conv = _conv(exact, name)
    return [conv(x) for x in vals]


def _check_prompt(X: Any, y: Any, exact: bool, *, require_overdetermined: bool = True) -> tuple[Matrix, list[Number]]:
    Xm = _matrix(X, exact)
    n, d = len(Xm), len(Xm[0])
    if require_overdetermined and n <= d:
        raise InputError(
            f"need n > d so that X^T X is invertible (Sec. 8.3.4, Lemma 8.11), got n = {n}, d = {d}", param="X"
        )
    return Xm, _vector(y, n, exact, "y")


def _check_alpha(alpha: Number, exact: bool) -> Number:
    if not _is_number(alpha):
        raise InputError(f"alpha must be a real number, got {alpha!r:.80}", param="alpha")
    a = _conv(exact, "alpha")(alpha)
    if a == 0:
        raise InputError("alpha must be non-zero (Thm 8.14 sets theta^(0) = -q^(0)/alpha)", param="alpha")
    return a


def _check_etas(etas: Sequence[Number], exact: bool) -> list[Number]:
    if isinstance(etas, (str, bytes)):
        raise InputError(f"etas must be a sequence of step sizes, got the string {etas!r:.80}", param="etas")
    try:
        vals = list(etas)
    except TypeError as exc:
        raise InputError(f"etas must be a sequence of step sizes, got {etas!r:.80}", param="etas") from exc
    conv = _conv(exact, "etas")
    out = [conv(e) for e in vals]
    bad = [e for e in out if not e > 0]
    if bad:
        raise InputError(f"step sizes eta^(t) must be > 0 (Def. 8.7), got {bad[:3]}", param="etas")
    return out


def _log10_abs(q: Fraction) -> float:
    """log10 |q| for a non-zero Fraction of any size (math.log10 takes big ints)."""
    return math.log10(abs(q.numerator)) - math.log10(q.denominator)


def _check_run_cost(
    Xm: Matrix, yv: list[Number], eta: list[Number], exact: bool, *, per_step: int, kept: int, start: list[Number]
) -> None:
    """Refuse a GD / looped-transformer run before it starts when it is too long (see :data:`MAX_EXACT_GD_WORK`).

    ``per_step`` is the number of multiply-adds of one step, ``kept`` the number of entries the result keeps per
    step. An exact iterate gains about ``log10 den(eta_t) + log10 den(X^T X, X^T y) + log10(1 + eta_t ||X^T X||)``
    digits per step (its denominator is multiplied by those of eta_t and of the Gram matrix, its size by at most
    the norm of ``I - eta_t X^T X``), and each exact operation costs about the square of that size.
    """
    T = len(eta)
    check_cost(
        (T + 1) * kept + T * per_step,
        MAX_FLOAT_GD_OPS,
        param="etas",
        value=f"[{T} step sizes]",
        what=f"the number of operations of the run ({T} steps of {per_step} multiply-adds, {kept} entries kept per step)",
        hint="use fewer steps or a smaller prompt",
    )
    if not exact or T == 0:
        return
    den = 1
    for row in Xm:
        for v in row:
            den = math.lcm(den, v.denominator)
    den_y = 1
    for v in yv:
        den_y = math.lcm(den_y, v.denominator)
    big = max((abs(v) for row in Xm for v in row), default=Fraction(0))
    log_gram = math.log10(len(Xm) * len(Xm[0])) + 2 * _log10_abs(big) if big else -math.inf
    growth_data = 2 * math.log10(den) + math.log10(den_y)
    digits = max((math.log10(max(abs(v.numerator), v.denominator, 1)) for v in start), default=0.0) + 2.0
    work = 0.0
    for e in eta:
        log_step = _log10_abs(e) + log_gram
        digits += (
            math.log10(e.denominator) + growth_data + (log_step if log_step > 15 else math.log10(1 + 10**log_step))
        )
        work += (max(digits, 100.0) / 1000) ** 2
    check_cost(
        per_step * work,
        MAX_EXACT_GD_WORK,
        param="etas",
        value=f"[{T} step sizes]",
        what=(
            f"the estimated work of the exact run ({T} steps of {per_step} multiply-adds on Fractions that reach "
            f"~{format_count(int(digits))} digits)"
        ),
        hint="run it in floats (exact=False), with fewer steps, or with step sizes and data of small denominators",
    )


# ----------------------------------------------------------------------------------------- small linear algebra


def _matmul(A: Matrix, B: Matrix) -> Matrix:
    Bt = list(zip(*B))
    return [[sum(a * b for a, b in zip(row, col)) for col in Bt] for row in A]


def _transpose(A: Matrix) -> Matrix:
    return [list(r) for r in zip(*A)]


def _matvec(A: Matrix, v: Sequence[Number]) -> list[Number]:
    return [sum(a * b for a, b in zip(row, v)) for row in A]


# ----------------------------------------------------------------------------------------- the construction


def mask(n: int) -> sympy.Matrix:
    """The query-only mask M of Def. 8.6: (n+1) x (n+1), last row [1_n, 0], zeros elsewhere.

    Parameters
    ----------
    n : int
        The number of prompt rows, ``n >= 1``.

    Returns
    -------
    sympy.Matrix
        ``M``, ``(n+1) x (n+1)``.

    Raises
    ------
    ValueError
        For ``n < 1`` or a non-int; :class:`theory._checks.LimitError` when ``(n+1)^2`` exceeds
        :data:`theory._checks.MAX_EXACT_ENTRIES` (``n > 446``).

    Examples
    --------
    >>> from theory.looped import mask
    >>> mask(2)
    Matrix([
    [0, 0, 0],
    [0, 0, 0],
    [1, 1, 0]])
    """
    n = check_positive_int(n, "n")
    check_cost(
        (n + 1) ** 2,
        MAX_EXACT_ENTRIES,
        param="n",
        value=n,
        what="the number of exact entries of the mask, (n+1)^2,",
        hint="M is zero except its last row [1_n, 0]; attention() applies it without building it",
    )
    return sympy.Matrix(n + 1, n + 1, lambda i, j: 1 if (i == n and j < n) else 0)


def construction(d: int) -> tuple[sympy.Matrix, sympy.Matrix]:
    """The hand-made weights of Thm 8.14: ``Q = I_{d+1}``, ``P = diag(I_d, 0)``, both (d+1) x (d+1) (Def. 8.6 writes
    d x d; see docs/looped.md, errata).

    Parameters
    ----------
    d : int
        The dimension of ``theta``, ``d >= 1``.

    Returns
    -------
    tuple of sympy.Matrix
        ``(Q, P)``.

    Raises
    ------
    ValueError
        For ``d < 1`` or a non-int; :class:`theory._checks.LimitError` when the two matrices have more than
        :data:`theory._checks.MAX_EXACT_ENTRIES` entries (``d > 315``).

    Examples
    --------
    >>> from theory.looped import construction
    >>> Q, P = construction(2)
    >>> Q == Q.eye(3), P
    (True, Matrix([
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 0]]))
    """
    d = check_positive_int(d, "d")
    check_cost(
        2 * (d + 1) ** 2,
        MAX_EXACT_ENTRIES,
        param="d",
        value=d,
        what="the number of exact entries of the construction, 2 (d+1)^2,",
        hint="Q = I_(d+1) and P = diag(I_d, 0); attention() and looped_forward() use them without building them",
    )
    P = sympy.diag(*([1] * d + [0]))
    return sympy.eye(d + 1), P


def _construction_rows(d: int) -> tuple[Matrix, Matrix]:
    """Q = I_{d+1} and P = diag(I_d, 0) as lists of int rows (the entries of :func:`construction`)."""
    Q = [[int(i == j) for j in range(d + 1)] for i in range(d + 1)]
    P = [[int(i == j and i < d) for j in range(d + 1)] for i in range(d + 1)]
    return Q, P


@fill_doc(_DOC)
def embed(X: Any, y: Any, alpha: Number, q0: Any = None, *, exact: bool = True) -> Matrix:
    """Z^(0) = [[X, y], [q0^T, alpha]] of Def. 8.5 as a list of rows ((n+1) x (d+1)); q0 = 0 by default.

    Parameters
    ----------
    X : array_like
        The ``n x d`` prompt (a list of rows or an array).
    {{y_alpha}}
    {{q0_exact}}

    Returns
    -------
    list of list
        ``Z^(0)``, ``(n+1) x (d+1)``.

    Raises
    ------
    ValueError
        For a ragged or empty ``X``, a length mismatch, ``alpha = 0`` or a non-finite entry.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.looped import embed
    >>> X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]  # y = X theta* with theta* = (1, 2)
    >>> embed(X, y, 2, exact=False)
    [[1.0, 0.0, 1.0], [0.0, 1.0, 2.0], [1.0, 1.0, 3.0], [0.0, 0.0, 2.0]]
    >>> embed(X, y, 2, q0=[Fraction(1, 2), 0])[-1]
    [Fraction(1, 2), Fraction(0, 1), Fraction(2, 1)]
    >>> embed(X, y, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: alpha must be non-zero (Thm 8.14 sets theta^(0) = -q^(0)/alpha)
    """
    Xm, yv = _check_prompt(X, y, exact, require_overdetermined=False)
    d = len(Xm[0])
    a = _check_alpha(alpha, exact)
    q = [_conv(exact)(0)] * d if q0 is None else _vector(q0, d, exact, "q0")
    return [[*row, yi] for row, yi in zip(Xm, yv)] + [[*q, a]]


def attention(Z: Any, Q: Any = None, P: Any = None, *, exact: bool = True) -> Matrix:
    """Attn(Z; Q, P) = (M o Z Q Z^T) Z P (Def. 8.6) with the query-only mask; Q, P default to the construction.

    Parameters
    ----------
    Z : array_like
        ``(n+1) x (d+1)``, ``n, d >= 1``.
    Q, P : array_like or None, optional
        ``(d+1) x (d+1)`` weights (default :func:`construction`).
    exact : bool, optional
        Fractions (default) or Python floats.

    Returns
    -------
    list of list
        ``Attn(Z; Q, P)``, ``(n+1) x (d+1)``; only the last row is non-zero.

    Raises
    ------
    ValueError
        For a ``Z`` smaller than ``2 x 2`` or ``Q``, ``P`` of the wrong shape.

    Examples
    --------
    >>> from theory.looped import attention, embed
    >>> X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]  # y = X theta* with theta* = (1, 2)
    >>> attention(embed(X, y, 1), exact=False)
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [4.0, 5.0, 0.0]]
    """
    Zm = _matrix(Z, exact, "Z")
    n1, d1 = len(Zm), len(Zm[0])
    if n1 < 2 or d1 < 2:
        raise InputError(f"Z must be (n+1) x (d+1) with n, d >= 1, got shape ({n1}, {d1})", param="Z")
    Qd, Pd = _construction_rows(d1 - 1)
    Qm = _matrix(Qd if Q is None else Q, exact, "Q")
    Pm = _matrix(Pd if P is None else P, exact, "P")
    for name, A in (("Q", Qm), ("P", Pm)):
        if len(A) != d1 or len(A[0]) != d1:
            raise InputError(
                f"{name} must be ({d1}, {d1}) to match Z's {d1} columns, got ({len(A)}, {len(A[0])})", param=name
            )
    zero = _conv(exact)(0)
    # Only the query row (index n) of the mask is non-zero, and it attends to rows 0..n-1.
    zq = [sum(Zm[-1][k] * Qm[k][j] for k in range(d1)) for j in range(d1)]
    scores = [sum(zq[j] * Zm[i][j] for j in range(d1)) for i in range(n1 - 1)]  # (Z Q Z^T)[n, i]
    v = [sum(scores[i] * Zm[i][j] for i in range(n1 - 1)) for j in range(d1)]  # row n of (M o ZQZ^T) Z
    last = [sum(v[k] * Pm[k][j] for k in range(d1)) for j in range(d1)]
    return [[zero] * d1 for _ in range(n1 - 1)] + [last]


@fill_doc(_DOC)
def lemma_8_13_attention(X: Any, y: Any, alpha: Number, q0: Any = None, *, exact: bool = True) -> Matrix:
    """Lemma 8.13's closed form: Attn(Z^(0)) = [[0, 0], [q0^T X^T X + alpha y^T X, 0]] (list of rows).

    {{X_y_alpha}}
    {{q0_exact}}

    Returns
    -------
    list of list
        ``(n+1) x (d+1)``.

    Examples
    --------
    The closed form equals the attention of the embedded prompt:

    >>> from theory.looped import attention, embed, lemma_8_13_attention
    >>> X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]  # y = X theta* with theta* = (1, 2)
    >>> lemma_8_13_attention(X, y, 2, q0=[1, -1])[-1]  # q0^T X^T X + 2 y^T X = (1, -1) + (8, 10)
    [Fraction(9, 1), Fraction(9, 1), Fraction(0, 1)]
    >>> lemma_8_13_attention(X, y, 2, q0=[1, -1]) == attention(embed(X, y, 2, q0=[1, -1]))
    True
    """
    Xm, yv = _check_prompt(X, y, exact, require_overdetermined=False)
    n, d = len(Xm), len(Xm[0])
    a = _check_alpha(alpha, exact)
    zero = _conv(exact)(0)
    q = [zero] * d if q0 is None else _vector(q0, d, exact, "q0")
    G = gram(Xm, exact=exact)
    last = [sum(q[k] * G[k][j] for k in range(d)) + a * sum(yv[i] * Xm[i][j] for i in range(n)) for j in range(d)]
    return [[zero] * (d + 1) for _ in range(n)] + [[*last, zero]]


@fill_doc(_DOC)
def looped_forward(
    X: Any, y: Any, alpha: Number, etas: Sequence[Number], q0: Any = None, *, exact: bool = True
) -> list[Matrix]:
    """All layers Z^(0..T) of the looped transformer (Def. 8.7) with the construction's Q, P.

    Exact (Fraction) by default; ``exact=False`` runs in float64. Each step costs O(n d).

    {{X_y_alpha}}
    {{etas}}
    {{q0_exact}}

    Returns
    -------
    list of list of list
        ``[Z^(0), ..., Z^(T)]``.

    Raises
    ------
    ValueError
        For an invalid prompt, ``alpha = 0`` or a step size ``<= 0``.

    Examples
    --------
    Three loops at ``eta = 1/L = 1/3``; only the query row moves:

    >>> from fractions import Fraction
    >>> from theory.looped import looped_forward
    >>> X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]  # y = X theta* with theta* = (1, 2)
    >>> Zs = looped_forward(X, y, 1, [Fraction(1, 3)] * 3)
    >>> len(Zs), Zs[-1][-1]
    (4, [Fraction(-31, 27), Fraction(-50, 27), Fraction(1, 1)])
    """
    Z = embed(X, y, alpha, q0, exact=exact)
    eta = _check_etas(etas, exact)
    n1, d1 = len(Z), len(Z[0])
    _check_run_cost(
        [row[:-1] for row in Z[:-1]],
        [row[-1] for row in Z[:-1]],
        eta,
        exact,
        per_step=2 * d1 * d1 + 3 * n1 * d1,
        kept=n1 * d1,
        start=Z[-1],
    )
    Qm, Pm = _construction_rows(d1 - 1)
    out = [Z]
    for step, e in enumerate(eta, 1):
        A = attention(Z, Qm, Pm, exact=exact)
        Z = [[z - e * a for z, a in zip(zr, ar)] for zr, ar in zip(Z, A)]
        if not exact:
            _check_diverged(Z[-1], step)
        out.append(Z)
    return out


def tf_readout(Z: Matrix) -> list[Number]:
    """TF(Z^(0)) := -(Z^(T)_{n+1, 1:d})^T, the negated first d entries of the query row.

    Parameters
    ----------
    Z : list of list
        The last layer ``Z^(T)``, ``(n+1) x (d+1)``.

    Returns
    -------
    list
        ``TF``, length ``d``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.looped import looped_forward, tf_readout
    >>> X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]  # y = X theta* with theta* = (1, 2)
    >>> tf_readout(looped_forward(X, y, 1, [Fraction(1, 3)] * 3)[-1])
    [Fraction(31, 27), Fraction(50, 27)]
    """
    rows = Z.tolist() if hasattr(Z, "tolist") else Z
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or len(rows) < 2:
        raise InputError(f"Z must be a layer (n+1) x (d+1) with n, d >= 1 (a list of rows), got {Z!r:.80}", param="Z")
    last = rows[-1]
    if isinstance(last, (str, bytes)) or not isinstance(last, Sequence) or len(last) < 2:
        raise InputError(f"the query row of Z must have d + 1 >= 2 entries, got {last!r:.80}", param="Z")
    if not all(_is_number(v) and not (isinstance(v, float) and not math.isfinite(v)) for v in last):
        raise InputError(f"the query row of Z must hold numbers, got {last!r:.80}", param="Z")
    return [-v for v in last[:-1]]


# ----------------------------------------------------------------------------------------- gradient descent


def gram(X: Any, *, exact: bool = True) -> Matrix:
    """X^T X (d x d).

    Parameters
    ----------
    X : array_like
        The ``n x d`` prompt.
    exact : bool, optional
        Fractions (default) or Python floats.

    Returns
    -------
    list of list
        ``X^T X``.

    Examples
    --------
    >>> from theory.looped import gram
    >>> gram([[1, 0], [0, 1], [1, 1]], exact=False)
    [[2.0, 1.0], [1.0, 2.0]]
    """
    Xm = _matrix(X, exact)
    return _matmul(_transpose(Xm), Xm)


@fill_doc(_DOC)
def gd_iterates(
    X: Any, y: Any, etas: Sequence[Number], theta0: Any = None, *, exact: bool = True
) -> list[list[Number]]:
    """theta^(0..T) of GD on l(theta) = 1/2 ||y - X theta||^2 (Def. 8.9), any step sizes eta^(t) > 0.

    theta^(t) = theta^(t-1) - eta^(t-1) (X^T X theta^(t-1) - X^T y); theta0 = 0 by default.

    {{X_y}}
    {{etas}}
    theta0 : array_like or None, optional
        ``theta^(0)``, length ``d`` (default 0).
    {{exact}}

    Returns
    -------
    list of list
        ``[theta^(0), ..., theta^(T)]``.

    Examples
    --------
    At ``eta = 1/L`` the component of the error along the top eigenvector ``(1, 1)`` of ``X^T X`` vanishes in one step;
    the other shrinks by ``1 - 1/kappa = 2/3`` per step:

    >>> from fractions import Fraction
    >>> from theory.looped import gd_iterates
    >>> X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]  # y = X theta* with theta* = (1, 2)
    >>> [[str(t) for t in theta] for theta in gd_iterates(X, y, [Fraction(1, 3)] * 3)]
    [['0', '0'], ['4/3', '5/3'], ['11/9', '16/9'], ['31/27', '50/27']]
    """
    Xm, yv = _check_prompt(X, y, exact, require_overdetermined=False)
    d = len(Xm[0])
    eta = _check_etas(etas, exact)
    zero = _conv(exact)(0)
    th = [zero] * d if theta0 is None else _vector(theta0, d, exact, "theta0")
    _check_run_cost(Xm, yv, eta, exact, per_step=d * d + 2 * d, kept=d, start=th)
    G = gram(Xm, exact=exact)
    b = _matvec(_transpose(Xm), yv)
    out = [th]
    for step, e in enumerate(eta, 1):
        grad = [g - bi for g, bi in zip(_matvec(G, th), b)]
        th = [t - e * g for t, g in zip(th, grad)]
        if not exact:
            _check_diverged(th, step)
        out.append(th)
    return out


def _check_diverged(values: list[Number], t: int) -> None:
    """Refuse a float run whose iterate left the float range (GD diverges for a step size >= 2/L)."""
    if not all(math.isfinite(v) for v in values):
        raise InputError(
            f"the float iterate overflows at step {t}: GD diverges for step sizes eta >= 2/L (check_step_size); use "
            "smaller step sizes, or exact=True",
            param="etas",
        )


@fill_doc(_DOC)
def tf_output_predicted(
    X: Any, y: Any, alpha: Number, etas: Sequence[Number], q0: Any = None, *, exact: bool = True
) -> list[Number]:
    """Theorem 8.14's prediction TF(Z^(0)) = alpha theta^(T), GD started at theta^(0) = -q0/alpha.

    {{X_y_alpha}}
    etas : sequence of numbers
        The step sizes, each ``> 0``.
    {{q0_exact}}

    Returns
    -------
    list
        ``alpha theta^(T)``, length ``d``.

    Examples
    --------
    Theorem 8.14, exactly, for any step sizes, ``alpha`` and ``q^(0)``:

    >>> from fractions import Fraction
    >>> from theory.looped import looped_forward, tf_output_predicted, tf_readout
    >>> X, y = [[1, 0], [0, 1], [1, 1]], [1, 2, 3]  # y = X theta* with theta* = (1, 2)
    >>> etas, q0 = [Fraction(1, 3), Fraction(1, 4)], [1, 1]
    >>> tf_output_predicted(X, y, 2, etas, q0)
    [Fraction(5, 2), Fraction(7, 2)]
    >>> tf_readout(looped_forward(X, y, 2, etas, q0)[-1]) == tf_output_predicted(X, y, 2, etas, q0)
    True
    """
    a = _check_alpha(alpha, exact)
    Xm, _ = _check_prompt(X, y, exact, require_overdetermined=False)
    d = len(Xm[0])
    theta0 = None if q0 is None else [-v / a for v in _vector(q0, d, exact, "q0")]
    return [a * t for t in gd_iterates(X, y, etas, theta0, exact=exact)[-1]]


# ----------------------------------------------------------------------------------------- spectrum and bounds


@fill_doc(_DOC)
def gram_spectrum(X: Any) -> tuple[sympy.Expr, sympy.Expr]:
    """(L, mu) = (lambda_max, lambda_min) of X^T X, exactly (sympy ``CRootOf`` of the characteristic polynomial).

    Lemma 8.20: l is L-smooth; Lemma 8.22: mu-strongly convex. Float entries convert exactly to rationals.
    Requires n > d (mu > 0).

    {{X_full_rank}}

    Returns
    -------
    tuple of sympy.Expr
        ``(L, mu)``.

    Raises
    ------
    ValueError
        For ``n <= d`` or a rank-deficient ``X``; :class:`theory._checks.LimitError` for ``d > MAX_SPECTRUM_D``.

    Examples
    --------
    >>> from theory.looped import gram_spectrum
    >>> gram_spectrum([[1, 0], [0, 1], [1, 1]])
    (3, 1)
    >>> gram_spectrum([[1, 0], [0, 2], [1, 1]])
    (sqrt(13)/2 + 7/2, 7/2 - sqrt(13)/2)
    >>> gram_spectrum([[1, 2], [2, 4], [3, 6]])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: X^T X is singular (rank-deficient X); Lemma 8.22 needs mu > 0
    """
    Xm = _matrix(X, True)
    n, d = len(Xm), len(Xm[0])
    if n <= d:
        raise InputError(
            f"need n > d so that X^T X is invertible (Sec. 8.3.4, Lemma 8.11), got n = {n}, d = {d}", param="X"
        )
    check_cost(
        d,
        MAX_SPECTRUM_D,
        param="X",
        value=f"[{n} x {d} prompt]",
        what="the dimension d of the exact spectrum (the roots of the degree-d characteristic polynomial of X^T X)",
        hint=f"the exact spectrum takes d <= {MAX_SPECTRUM_D}; use numpy.linalg.eigvalsh(X.T @ X) for larger d",
    )
    G = sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in r] for r in gram(Xm)])
    lam = sympy.Symbol("lam")
    roots = sympy.Poly(G.charpoly(lam).as_expr(), lam).real_roots()
    mu, L = roots[0], roots[-1]
    if not mu > 0:
        raise InputError("X^T X is singular (rank-deficient X); Lemma 8.22 needs mu > 0", param="X")
    return L, mu


@fill_doc(_DOC)
def condition_number(X: Any) -> sympy.Expr:
    """kappa = lambda_max(X^T X) / lambda_min(X^T X) (Def. 8.12), exact.

    {{X_full_rank}}

    Returns
    -------
    sympy.Expr
        ``kappa >= 1``.

    Examples
    --------
    >>> from theory.looped import condition_number
    >>> condition_number([[1, 0], [0, 1], [1, 1]])
    3
    """
    L, mu = gram_spectrum(X)
    return L / mu


def _check_kappa(kappa: Number) -> sympy.Expr:
    k = as_number(kappa, "kappa", symbolic=False)
    if not k.is_number or not k.is_real:
        raise InputError(f"kappa must be a real number, got {kappa!r}", param="kappa")
    if k < 1:
        raise InputError(f"kappa = L/mu must be >= 1, got {kappa!r}", param="kappa")
    return k


def _check_T(T: int) -> int:
    if isinstance(T, bool) or not isinstance(T, (numbers.Integral, sympy.Integer)) or T < 0:
        raise InputError(f"T (number of loops / GD steps) must be an integer >= 0, got {T!r:.80}", param="T")
    return int(T)


def _sym(x: Number, name: str) -> sympy.Expr:
    if not _is_number(x):
        raise InputError(f"{name} must be a real number, got {x!r:.80}", param=name)
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    v = as_number(x, name, symbolic=False)  # refuses NaN, infinities and zoo
    if v.is_real is not True:
        raise InputError(f"{name} must be a real number, got {x!r:.80}", param=name)
    return v


def _power(base: sympy.Expr, T: int, name: str) -> sympy.Expr:
    """``base**T``, refused before the work when ``base`` is an exact rational whose T-th power has more than
    :data:`theory._checks.MAX_DIGITS` digits."""
    height = max(abs(int(base.p)), int(base.q)) if isinstance(base, sympy.Rational) else 1
    if height > 1:
        # an int: T may be far beyond the float range
        digits = math.ceil(T * math.log10(height)) if T < 10**15 else T * (height.bit_length() - 1) * 30103 // 100000
        check_cost(
            digits,
            MAX_DIGITS,
            param="T",
            value=T,
            what=f"the number of digits of the exact power ({name})^T",
            hint=(
                "the exponential forms (thm_8_25_exp_bound, thm_8_16_bound) are closed forms for any T; or pass a "
                "float step size / kappa for a float bound"
            ),
        )
    return base**T


def prompt_step_size(L: Number) -> sympy.Expr:
    """The prompt-dependent step size eta = 1/L = 1/||X^T X|| of Thms 8.16, 8.25 (an assumption the thesis leaves
    implicit; see docs/looped.md, errata).

    Parameters
    ----------
    L : number
        ``lambda_max(X^T X) > 0``.

    Returns
    -------
    sympy.Expr
        ``1/L``.

    Raises
    ------
    ValueError
        For ``L <= 0``.

    Examples
    --------
    >>> from theory.looped import gram_spectrum, prompt_step_size
    >>> L, mu = gram_spectrum([[1, 0], [0, 1], [1, 1]])
    >>> prompt_step_size(L)
    1/3
    """
    Ls = _sym(L, "L")
    if not Ls > 0:
        raise InputError(f"L = ||X^T X|| must be > 0, got {L!r}", param="L")
    return 1 / Ls


def check_step_size(eta: Number, L: Number, *, upper: str = "2/L") -> sympy.Expr:
    """Raise ValueError unless eta lies in (0, 2/L) (``upper='2/L'``) or (0, 1/L] (``upper='1/L'``).

    Parameters
    ----------
    eta : number
        The step size.
    L : number
        ``lambda_max(X^T X) > 0``.
    upper : {"2/L", "1/L"}, optional
        The interval: ``(0, 2/L)`` (convergence) or ``(0, 1/L]`` (Lemma 8.23).

    Returns
    -------
    sympy.Expr
        ``eta`` as a sympy number.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.looped import check_step_size
    >>> check_step_size(Fraction(1, 2), 3)
    1/2
    >>> check_step_size(Fraction(1, 2), 3, upper="1/L")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: step size eta = 1/2 must lie in (0, 1/L] = (0, 0.333333] (Lemma 8.23, Garrigos & Gower Thm 3.6)
    """
    if upper not in ("2/L", "1/L"):
        raise InputError(f"upper must be '2/L' or '1/L', got {upper!r:.80}", param="upper")
    e, Ls = _sym(eta, "eta"), _sym(L, "L")
    if not Ls > 0:
        raise InputError(f"L must be > 0, got {L!r}", param="L")
    if upper == "2/L":
        if not (e > 0 and e * Ls < 2):
            raise InputError(
                f"step size eta = {eta} must lie in (0, 2/L) = (0, {sympy.N(2 / Ls, 6)}) for GD on the "
                "L-smooth least-squares objective to converge",
                param="eta",
            )
    elif not (e > 0 and e * Ls <= 1):
        raise InputError(
            f"step size eta = {eta} must lie in (0, 1/L] = (0, {sympy.N(1 / Ls, 6)}] "
            "(Lemma 8.23, Garrigos & Gower Thm 3.6)",
            param="eta",
        )
    return e


def gd_contraction_factor(eta: Number, L: Number, mu: Number) -> sympy.Expr:
    """rho(eta) = max(|1 - eta mu|, |1 - eta L|): ||theta^(t) - theta*|| <= rho ||theta^(t-1) - theta*|| for
    least squares (theta^(t) - theta* = (I - eta X^T X)(theta^(t-1) - theta*)); rho < 1 iff eta in (0, 2/L).

    Parameters
    ----------
    eta : number
        The step size, in ``(0, 2/L)``.
    L : number
        ``lambda_max(X^T X) > 0``.
    mu : number
        ``lambda_min(X^T X)``, ``0 < mu <= L``.

    Returns
    -------
    sympy.Expr
        ``rho(eta)``.

    Raises
    ------
    ValueError
        For ``eta`` outside ``(0, 2/L)`` or ``mu`` outside ``(0, L]``.

    Examples
    --------
    With ``L = 3``, ``mu = 1``: ``1 - 1/kappa`` at ``eta = 1/L``, and the best rate ``(kappa - 1)/(kappa + 1)`` at
    ``eta = 2/(L + mu)``:

    >>> from fractions import Fraction
    >>> from theory.looped import gd_contraction_factor
    >>> gd_contraction_factor(Fraction(1, 3), 3, 1), gd_contraction_factor(Fraction(1, 2), 3, 1)
    (2/3, 1/2)
    """
    e = check_step_size(eta, L)
    Ls, ms = _sym(L, "L"), _sym(mu, "mu")
    if not (ms > 0 and ms <= Ls):
        raise InputError(f"need 0 < mu <= L, got mu = {mu}, L = {L}", param="mu")
    return sympy.Max(sympy.Abs(1 - e * ms), sympy.Abs(1 - e * Ls))


def lemma_8_23_bound(T: int, eta: Number, L: Number, mu: Number, R: Number = 1) -> sympy.Expr:
    """Lemma 8.23: ||theta^(T) - theta*||^2 <= (1 - eta mu)^T R^2 for eta in (0, 1/L] and ||theta^(0) - theta*|| <= R.

    Parameters
    ----------
    T : int
        The number of GD steps, ``T >= 0``.
    eta : number
        The step size, in ``(0, 1/L]``.
    L : number
        ``lambda_max(X^T X) > 0``.
    mu : number
        ``lambda_min(X^T X)``, ``0 < mu <= L``.
    R : number, optional
        A bound on ``||theta^(0) - theta*||`` (default 1).

    Returns
    -------
    sympy.Expr
        The bound on ``||theta^(T) - theta*||^2``.

    Examples
    --------
    GD from 0 on the prompt with ``theta* = (1, 2)`` (``R = sqrt 5``), three steps at ``eta = 1/3``:

    >>> import sympy
    >>> from fractions import Fraction
    >>> from theory.looped import gd_iterates, lemma_8_23_bound
    >>> theta = gd_iterates([[1, 0], [0, 1], [1, 1]], [1, 2, 3], [Fraction(1, 3)] * 3)[-1]
    >>> error = (theta[0] - 1) ** 2 + (theta[1] - 2) ** 2
    >>> bound = lemma_8_23_bound(3, Fraction(1, 3), 3, 1, R=sympy.sqrt(5))
    >>> error, bound, error <= bound
    (Fraction(32, 729), 40/27, True)
    """
    T = _check_T(T)
    e = check_step_size(eta, L, upper="1/L")
    ms = _sym(mu, "mu")
    if not (ms > 0 and ms <= _sym(L, "L")):
        raise InputError(f"need 0 < mu <= L, got mu = {mu}, L = {L}", param="mu")
    Rs = _sym(R, "R")
    return _power(1 - e * ms, T, "1 - eta mu") * Rs**2


@fill_doc(_DOC)
def thm_8_25_bound(T: int, kappa: Number, R: Number = 1) -> sympy.Expr:
    """Theorem 8.25 with eta = 1/L: ||theta^(T) - theta*||^2 <= (1 - 1/kappa)^T R^2.

    {{T_kappa_R}}

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.looped import thm_8_25_bound, thm_8_25_exp_bound
    >>> thm_8_25_bound(3, 3), thm_8_25_exp_bound(3, 3)
    (8/27, exp(-1))
    >>> thm_8_25_bound(3, Fraction(1, 2))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: kappa = L/mu must be >= 1, got Fraction(1, 2)
    """
    k, T = _check_kappa(kappa), _check_T(T)
    Rs = _sym(R, "R")
    return _power(1 - 1 / k, T, "1 - 1/kappa") * Rs**2


@fill_doc(_DOC)
def thm_8_25_exp_bound(T: int, kappa: Number, R: Number = 1) -> sympy.Expr:
    """Theorem 8.25's second form (Fact 8.24): ||theta^(T) - theta*||^2 <= exp(-T/kappa) R^2.

    {{T_kappa_R}}

    Examples
    --------
    It lies above :func:`thm_8_25_bound` (``1 - x <= e^{-x}``):

    >>> from theory.looped import thm_8_25_bound, thm_8_25_exp_bound
    >>> thm_8_25_exp_bound(3, 3, R=2), bool(thm_8_25_bound(3, 3, R=2) <= thm_8_25_exp_bound(3, 3, R=2))
    (4*exp(-1), True)
    """
    return sympy.exp(-sympy.Integer(_check_T(T)) / _check_kappa(kappa)) * _sym(R, "R") ** 2


@fill_doc(_DOC)
def thm_8_16_bound(T: int, kappa: Number, alpha: Number) -> sympy.Expr:
    """Theorem 8.16 as stated: |<TF(Z^(0)), theta*> - alpha| <= |alpha| exp(-T/(2 kappa)) (q0 = 0, eta = 1/L).

    {{T_kappa_alpha}}

    Examples
    --------
    >>> from theory.looped import thm_8_16_bound
    >>> thm_8_16_bound(3, 3, 2)
    2*exp(-1/2)
    >>> thm_8_16_bound(3, 3, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: alpha must be non-zero (Thm 8.16)
    """
    a = _sym(alpha, "alpha")
    if a == 0:
        raise InputError("alpha must be non-zero (Thm 8.16)", param="alpha")
    return sympy.Abs(a) * sympy.exp(-sympy.Integer(_check_T(T)) / (2 * _check_kappa(kappa)))


@fill_doc(_DOC)
def thm_8_16_sharp_bound(T: int, kappa: Number, alpha: Number) -> sympy.Expr:
    """The sharper bound |alpha| (1 - 1/kappa)^T <= |alpha| exp(-T/kappa) (Theorem 8.16's exponent is loose by a
    factor 2; see docs/looped.md, errata).

    {{T_kappa_alpha}}

    Examples
    --------
    On the prompt with ``theta* = (1, 0)`` (``||theta*|| = 1``), ``alpha = 2``, ``q0 = 0`` and three loops at
    ``eta = 1/L = 1/3``, the error ``8/27`` lies below the sharp bound ``16/27``, itself below the stated ``2 e^{-1/2}``:

    >>> from fractions import Fraction
    >>> from theory.looped import looped_forward, tf_readout, thm_8_16_bound, thm_8_16_sharp_bound
    >>> TF = tf_readout(looped_forward([[1, 0], [0, 1], [1, 1]], [1, 0, 1], 2, [Fraction(1, 3)] * 3)[-1])
    >>> abs(TF[0] - 2), thm_8_16_sharp_bound(3, 3, 2), round(float(thm_8_16_bound(3, 3, 2)), 4)
    (Fraction(8, 27), 16/27, 1.2131)
    """
    a = _sym(alpha, "alpha")
    if a == 0:
        raise InputError("alpha must be non-zero (Thm 8.16)", param="alpha")
    k, T = _check_kappa(kappa), _check_T(T)
    return sympy.Abs(a) * _power(1 - 1 / k, T, "1 - 1/kappa")


# --- Theorem 8.17 (Gatmiry et al. 2024, Thm 4.1, as restated in Sec. 8.4): the bound it compares against

#: Largest T of :func:`thm_8_17_min_examples` / :func:`thm_8_17_bound` (16^T has 1.2 T digits).
MAX_THM_8_17_T = 3000


def _check_thm_8_17(T: int, d: int) -> tuple[int, int]:
    T = check_positive_int(T, "T", minimum=1, hypothesis="Thm 8.17 bounds T >= 1 loops")
    d = check_positive_int(d, "d", minimum=1)
    check_cost(
        T,
        MAX_THM_8_17_T,
        param="T",
        value=T,
        what="the exact 16^T of Thm 8.17's condition (1.2 T digits)",
        hint="compare logarithms: ln n_min = 2 ln(8 T d^2) + 2 T ln 4",
    )
    return T, d


@fill_doc(_DOC)
def thm_8_17_min_examples(T: int, d: int) -> int:
    """The fewest in-context examples for which Theorem 8.17's condition ``8 T d^2/sqrt(n) <= 1/2^{2T}`` holds:
    ``n_min = (8 T d^2 4^T)^2 = 64 T^2 d^4 16^T`` (the condition squared; Shi thesis Sec. 8.4, Thm 8.17, restating
    Gatmiry et al. (2024), Thm 4.1).

    It grows like ``16^T``: at d = 4, T = 1 it is 262144, at T = 10 about 1.8e18, against the O(d) examples that make
    kappa constant in Theorem 8.16.

    {{T_d}}

    Returns
    -------
    int
        ``n_min``, exact.

    Examples
    --------
    >>> thm_8_17_min_examples(1, 1), thm_8_17_min_examples(1, 4), thm_8_17_min_examples(2, 1)
    (1024, 262144, 65536)
    >>> thm_8_17_min_examples(0, 4)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: T must be an integer >= 1 (Thm 8.17 bounds T >= 1 loops), got T = 0
    """
    T, d = _check_thm_8_17(T, d)
    return 64 * T * T * d**4 * 16**T


@fill_doc(_DOC)
def thm_8_17_bound(T: int, d: int, n: int) -> sympy.Expr:
    """Theorem 8.17's error bound ``8 T d^2 2^{2T}/sqrt(n)``, which equals ``sqrt(n_min/n)`` with ``n_min`` of
    :func:`thm_8_17_min_examples`: wherever its condition holds (``n >= n_min``) the bound is at most 1, and equal to
    1 at ``n = n_min``. At fixed ``(d, n)`` it grows with T by the factor ``4 (T + 1)/T`` per loop (the "exponential
    increase" of Sec. 8.4's comparison), where Theorem 8.16's ``|alpha| e^{-T/(2 kappa)}`` shrinks by
    ``e^{-1/(2 kappa)}``.

    {{T_d}}
    n : int
        The number of in-context examples, ``n >= 1``.

    Returns
    -------
    sympy.Expr
        The bound, exact.

    Examples
    --------
    >>> thm_8_17_bound(1, 1, 1024), thm_8_17_bound(1, 1, 4096), thm_8_17_bound(2, 1, 4096)
    (1, 1/2, 4)
    >>> thm_8_17_bound(1, 1, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n must be an integer >= 1, got n = 0
    """
    T, d = _check_thm_8_17(T, d)
    n = check_positive_int(n, "n", minimum=1)
    return sympy.sqrt(sympy.Rational(thm_8_17_min_examples(T, d), n))


def thm_8_17_growth_factor(T: int) -> sympy.Rational:
    """The factor by which Theorem 8.17's bound grows from T to T + 1 loops at fixed ``(d, n)``: ``4 (T + 1)/T``
    (from ``8 T d^2 2^{2T}/sqrt(n)``; always above 4, so the bound increases exponentially in T).

    Parameters
    ----------
    T : int
        The number of loops, ``T >= 1``.

    Returns
    -------
    sympy.Rational

    Examples
    --------
    >>> thm_8_17_growth_factor(1), thm_8_17_growth_factor(3)
    (8, 16/3)
    """
    T, _ = _check_thm_8_17(T, 1)
    return sympy.Rational(4 * (T + 1), T)
