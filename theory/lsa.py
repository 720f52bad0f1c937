r"""Linear self-attention (LSA) trained for in-context linear regression (exact).

Source: Shi thesis Ch. 5 (Sec. 5.3-5.4) and App. D.1-D.2. The setting, the corrected statements and the errata are
explained in ``docs/lsa.md``.

Setting. Prompts of N examples ``x_i ~ N(0, Lambda)``, task ``w ~ N(0, I_d)``, labels ``y_i = <w, x_i>``; the
one-layer LSA of Eq. 5.1 predicts ``y_hat = (1/rho) s_xy^T M_eff x_q + (even terms)`` with the identifiable
matrix ``M_eff = w22^PV W11^KQ + w21^PV (w21^KQ)^T``.

Results implemented here (exact sympy when the inputs are exact; mpmath float fallback otherwise):

* Eq. 5.1-5.2: the literal output of Eq. 5.1 (:func:`lsa_output`), the corrected Eq. 5.2
  (:func:`corrected_prediction`) and its expansion (:func:`expanded_prediction`), with symbolic checks that they
  agree (:func:`eq52_residuals`), that four blocks never enter (:func:`dead_block_derivatives`) and that
  ``(u, U) -> (u/c, cU)`` changes nothing (:func:`scale_symmetry_residuals`).
* Lemma 5.1: ``Gamma = (1 + 1/N) Lambda + (tr Lambda / N) I`` (:func:`gamma_matrix`) and the reduced loss
  ``l~(U, u) = tr[1/2 u^2 Gamma Lambda U Lambda U^T - u Lambda^2 U^T]`` (:func:`reduced_loss`), with the
  constant made explicit: ``L = l~ + 1/2 tr Lambda`` (:func:`population_loss`). **Hidden assumption**: the lemma
  holds only when ``w21^PV = w21^KQ = 0``; in general ``L = l~(M_eff, 1) + 1/2 tr Lambda + 1/2 E[even^2]``.
  :func:`lemma51_moments` re-derives it from Isserlis' theorem.
* Lemma D.1 / (D.4): the full-rank optimum ``U = Gamma^{-1}``, ``min l~ = -1/2 tr(Lambda^2 Gamma^{-1})``
  (:func:`full_rank_optimum`) and the excess-loss identity (:func:`excess_loss`, :func:`excess_loss_frobenius`).
* Thm 5.4.1: the rank-r optimum ``U* = Q diag(v*) Q^T`` with ``v_i* = 1/T_i`` on the top-r eigendirections
  (eigenvalues sorted **descending**), ``T_i = (1 + 1/N) lambda_i + tr D / N``, and the loss
  ``L_r = 1/2 tr Lambda - 1/2 sum_{i<=r} lambda_i^2 / T_i`` (:func:`optimal_rank_r`). A tie
  ``lambda_r = lambda_{r+1}`` makes U* non-unique; :attr:`RankOptimum.unique` says so.
  As N -> infinity, ``v_i* -> 1/lambda_i`` at the exact rate of :func:`limit_relative_error`.
* Thm 5.4.2: the (unhalved, rho = M) evaluation loss under a noisy prompt for a fixed task (:func:`noisy_eval_loss`),
  its large-N approximation, its average over ``w`` (:func:`expected_noisy_eval_loss`, derived in ``docs/lsa.md``)
  and Thm 5.4.3, the difference between ranks (:func:`rank_difference`); the trade-off "smaller models are more
  robust" as :func:`best_rank`.

Singular Lambda: the loss sees U only through ``Lambda U Lambda`` and ``diag(Lambda^2 U)``, so the rows and
columns of U along the null space are free and :attr:`RankOptimum.unique` is False for r >= 1; for Lambda = 0 every
U is optimal and U* = 0, L_r = 0 are returned (never zoo/NaN). Sizes: d <= 64 (diagonal) and d <= 24 (otherwise);
the symbolic checks d, n <= 3; prompts of Eq. 5.1 with (d+1)(n+1)(d+n+2) <= 200000 products; the exact square roots of
:func:`excess_loss_frobenius` of at most 1000-digit entries.

Errata (``docs/lsa.md``): Eq. 5.2 garbled; Lemma 5.1's hidden assumption and unstated constant; the 1/2 dropped
in the proof sketch of Thm 5.4.1; "V* is diagonal" needs Eckart-Young; the ties are not mentioned.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import sympy
from sympy import Integer, Matrix, Rational

from ._checks import MAX_EXACT_ENTRIES, InputError, LimitError, check_bool, check_cost, format_count
from ._docstrings import fill_doc, sections
from .modular import MAX_RADICAND_DIGITS, _digits

__all__ = [
    "SOURCE",
    "RankOptimum",
    "as_covariance",
    "best_rank",
    "check_count",
    "corrected_prediction",
    "dead_block_derivatives",
    "eigen_descending",
    "eq52_residuals",
    "excess_loss",
    "excess_loss_frobenius",
    "excess_loss_identity",
    "expanded_prediction",
    "expected_noisy_eval_loss",
    "full_rank_optimum",
    "gamma_matrix",
    "is_exact",
    "lemma51_moments",
    "lemma51_residuals",
    "limit_relative_error",
    "loss_constant",
    "lsa_output",
    "noisy_eval_loss",
    "noisy_eval_loss_approx",
    "optimal_losses",
    "optimal_rank_r",
    "population_loss",
    "rank_difference",
    "rank_difference_approx",
    "reduced_loss",
    "scale_symmetry_residuals",
    "t_values",
]

SOURCE = "Shi thesis Ch. 5, Sec. 5.4 and App. D.1-D.2"
_NUM_TOL = 1e-12

MAX_DIM = 64
"""Largest d of a diagonal Lambda (exact d x d sympy matrices; d = 64 takes ~0.5 s)."""

MAX_DENSE_DIM = 24
"""Largest d of a non-diagonal Lambda (30-digit eigen-decomposition and d^3 exact products; d = 20 takes ~1 s)."""


# ----------------------------------------------------------------------------------- shared docstring sections

_LAM = """
Lam : d x d symmetric PSD matrix
    A sympy Matrix, nested sequence or numpy array; exact entries give exact results.
"""
_NONZERO = "    Not 0.\n"
_N = """
N : int or sympy.Symbol
    Number of in-context examples in pretraining, >= 1.
"""
_WEIGHTS = """
U : d x d matrix
    ``W11^KQ`` (or ``M_eff``).
u : number
    ``w22^PV``.
"""
_RANK = """
r : int
    Rank of the optimum, in [0, d].
"""
_RANKS = """
r, r2 : int
    The ranks r <= r' in [0, d].
"""
_PROMPT_NOISE = """
M : int
    Number of examples in the evaluation prompt, >= 1.
sigma : number
    Label-noise standard deviation, >= 0.
"""
_TASK = """
w : sequence of d numbers
    The task.
"""
_TASK_SUPPORTED = """
w : sequence of d numbers
    The task; ``Q^T w`` must vanish beyond the first r coordinates.
"""
_EIGENBASIS = """
w_in_eigenbasis : bool, optional
    ``w`` is given as ``Q^T w`` (eigen-coordinates of :func:`eigen_descending`).
"""


#: The shared docstring sections of this module (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "Lam": sections(_LAM),
    "Lam_N": sections(_LAM, _N),
    "Lam0_N": sections(_LAM + _NONZERO, _N),
    "U_u_Lam_N": sections(_WEIGHTS, _LAM, _N),
    "U_u_Lam0_N": sections(_WEIGHTS, _LAM + _NONZERO, _N),
    "noisy_eval": sections(_LAM, _N, _RANK, _PROMPT_NOISE, _TASK, _EIGENBASIS),
    "noisy_eval_approx": sections(_LAM, _RANK, _PROMPT_NOISE, _TASK, _EIGENBASIS),
    "expected_eval": sections(_LAM, _N, _RANK, _PROMPT_NOISE),
    "rank_difference": sections(_LAM, _N, _RANKS, _PROMPT_NOISE, _TASK_SUPPORTED, _EIGENBASIS),
    "rank_difference_approx": sections(_LAM, _RANKS, _PROMPT_NOISE, _TASK_SUPPORTED, _EIGENBASIS),
    "best_rank": sections(_LAM, _N, _PROMPT_NOISE, _TASK, _EIGENBASIS),
    "prompt": sections(
        """
E : sympy.Matrix
    The prompt, (d+1) x (n+1): columns ``(x_i, y_i)`` and the query ``(x_q, 0)`` last.
WPV, WKQ : sympy.Matrix
    The (d+1) x (d+1) value-projection and key-query matrices.
rho : number or sympy.Symbol
    The normalisation.
""",
        returns="sympy.Expr\n    ``y_hat``.",
    ),
    "ex_prompt": """
>>> from sympy import Matrix
>>> E = Matrix([[1, 2, 3], [1, 2, 0]])  # d = 1: x = (1, 2), y = (1, 2), x_q = 3
>>> WPV, WKQ = Matrix([[5, 7], [2, 3]]), Matrix([[1, 4], [2, 6]])
""",
    "symbolic_size": sections(
        """
d, n : int, optional
    Dimension and number of examples of the symbolic prompt, each in [1, 3].
"""
    ),
}


# ----------------------------------------------------------------------------------- validation


def _to_sympy(x: Any, name: str | None = None) -> sympy.Expr:
    """A caller's number as a sympy value (never a string: ``sympify`` would run it as code); ``name`` is the parameter
    named by the refusal."""
    what = f"{name}: expected" if name else "expected"
    if isinstance(x, bool):
        raise InputError(f"{what} a number, got the bool {x!r}", param=name)
    if isinstance(x, Fraction):
        return Rational(x.numerator, x.denominator)
    if isinstance(x, sympy.Basic):
        if not isinstance(x, sympy.Expr):
            raise InputError(f"{what} a number, got {x!r:.80}", param=name)
        if x.is_number and (x.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or x.is_finite is False):
            raise InputError(f"{what} a finite number, got {x}", param=name)
        if x.is_number and x.is_real is False:
            raise InputError(f"{what} a real number, got {x}", param=name)
        return x
    if isinstance(x, numbers.Integral):
        return Integer(int(x))
    if isinstance(x, numbers.Real):
        if not math.isfinite(float(x)):
            raise InputError(f"{what} a finite number, got {x!r}", param=name)
        return sympy.Float(float(x), 30)
    if hasattr(x, "item") and getattr(x, "shape", None) == ():  # numpy scalar, without importing numpy
        return _to_sympy(x.item(), name)
    raise InputError(f"{what} a real number, got {x!r:.80} of type {type(x).__name__}", param=name)


def _canon(x: sympy.Expr) -> sympy.Expr:
    """Canonical exact form: rationals stay as they are (sympy keeps them reduced); anything else is simplified.
    (``sympy.nsimplify`` is avoided: it can replace a large rational by a float-fitted radical.)"""
    x = sympy.sympify(x)
    if x.is_Rational or x.has(sympy.Float) or x.free_symbols:
        return x
    return sympy.simplify(x)


def is_exact(m: Matrix) -> bool:
    """True when every entry of ``m`` is an exact sympy number (no Float).

    Parameters
    ----------
    m : sympy.Matrix
        The matrix.

    Returns
    -------
    bool

    Examples
    --------
    >>> from sympy import Matrix, Rational
    >>> is_exact(Matrix([[1, Rational(1, 2)]])), is_exact(as_covariance([[0.5, 0], [0, 1]]))
    (True, False)
    """
    if not isinstance(m, sympy.MatrixBase):
        raise InputError(f"m must be a sympy Matrix, got {m!r:.80} of type {type(m).__name__}", param="m")
    return all(not e.has(sympy.Float) for e in m)


def as_covariance(Lam: Any, *, source: str = "Shi Sec. 5.4") -> Matrix:
    """Validate a token covariance Lambda (square, symmetric, PSD, d >= 1) and return it as a sympy Matrix.

    Accepts a sympy Matrix, a nested sequence or a numpy array (converted through ``tolist``). Float entries
    select the numeric fallback of every function of this module.

    Parameters
    ----------
    Lam : d x d matrix
        A sympy Matrix, nested sequence or numpy array of real numbers.
    source : str, optional
        The source named in the error messages.

    Returns
    -------
    sympy.Matrix
        Lambda with sympy entries (floats become 30-digit sympy Floats).

    Raises
    ------
    ValueError
        Non-square, empty, non-symmetric or not positive semi-definite input; the message names the hypothesis
        of the source (x ~ N(0, Lambda) needs Lambda symmetric PSD).

    Examples
    --------
    >>> as_covariance([[2, 1], [1, 2]])
    Matrix([
    [2, 1],
    [1, 2]])
    >>> as_covariance([[1, 2], [0, 1]])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Lambda must be symmetric (Shi Sec. 5.4: it is the covariance of x), got [[1, 2], [0, 1]]
    >>> as_covariance([[1, 0], [0, -1]])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Lambda must be positive semi-definite (Shi Sec. 5.4: it is a covariance), got eigenvalues
    [1.0, -1.0]
    """
    if hasattr(Lam, "shape") and hasattr(Lam, "tolist") and not isinstance(Lam, sympy.MatrixBase):
        shape = tuple(Lam.shape)  # a numpy array: sized before tolist() copies it
        if len(shape) == 2 and shape[0] == shape[1]:
            _check_dim(shape[0], None)  # above MAX_DIM whatever its entries
        Lam = Lam.tolist()
    if isinstance(Lam, (str, bytes)):
        raise InputError(f"Lambda must be a square matrix of real numbers, got {Lam!r:.80}", param="Lambda")
    try:
        if isinstance(Lam, sympy.MatrixBase):
            if Lam.rows != Lam.cols:
                raise InputError(
                    f"Lambda must be a square d x d matrix ({source}), got shape {Lam.shape}", param="Lambda"
                )
            _check_dim(Lam.rows, bool(Lam.is_diagonal()) if Lam.rows <= MAX_DIM else None)
            m = Matrix(Lam)
        else:
            if hasattr(Lam, "__len__"):
                _check_dim(len(Lam), None)
            rows = [[r] if isinstance(r, (str, bytes)) else list(r) for r in Lam]
            if any(len(r) != len(rows) for r in rows):
                raise InputError(
                    f"Lambda must be a non-empty square d x d matrix ({source}), got rows of lengths "
                    f"{[len(r) for r in rows][:10]}",
                    param="Lambda",
                )
            if any(isinstance(e, (str, bytes)) for r in rows for e in r):
                raise InputError("Lambda must have numeric entries, not strings", param="Lambda")
            _check_dim(len(rows), all(e == 0 for i, r in enumerate(rows) for j, e in enumerate(r) if i != j))
            m = Matrix([[_to_sympy(e, "Lambda") for e in r] for r in rows]) if rows else Matrix(0, 0, [])
    except (TypeError, sympy.SympifyError) as exc:
        raise InputError(f"Lambda must be a square matrix of real numbers, got {Lam!r:.200}", param="Lambda") from exc
    if m.rows == 0 or m.rows != m.cols:
        raise InputError(
            f"Lambda must be a non-empty square d x d matrix ({source}), got shape {m.shape}", param="Lambda"
        )
    m = m.applyfunc(lambda e: _to_sympy(e, "Lambda"))
    if any(not e.is_real for e in m):
        raise InputError(f"Lambda must have real entries ({source}), got {m.tolist()!s:.200}", param="Lambda")
    scale = max([abs(float(e)) for e in m] + [1.0])
    if is_exact(m):
        if m != m.T:
            raise InputError(
                f"Lambda must be symmetric ({source}: it is the covariance of x), got {m.tolist()!s:.200}",
                param="Lambda",
            )
    elif max(abs(float(m[i, j] - m[j, i])) for i in range(m.rows) for j in range(m.cols)) > 1e-12 * scale:
        raise InputError(
            f"Lambda must be symmetric ({source}: it is the covariance of x), got {m.tolist()!s:.200}", param="Lambda"
        )
    lam, _ = _eig(m)
    if min(float(v) for v in lam) < -1e-12 * scale:
        raise InputError(
            f"Lambda must be positive semi-definite ({source}: it is a covariance), "
            f"got eigenvalues {[float(v) for v in lam]}",
            param="Lambda",
        )
    return m


def _check_dim(d: int, diagonal: bool | None) -> None:
    """d of Lambda within MAX_DIM (diagonal) or MAX_DENSE_DIM (otherwise; None: not known yet, MAX_DIM)."""
    kind = {True: "a diagonal", False: "a non-diagonal", None: "any"}[diagonal]
    check_cost(
        d,
        MAX_DENSE_DIM if diagonal is False else MAX_DIM,
        param="Lambda",
        value=f"a {format_count(d)} x {format_count(d)} matrix",
        what=f"the dimension d of {kind} Lambda (exact d x d matrices)",
        hint=f"the exact results accept d <= {MAX_DIM} for a diagonal Lambda and d <= {MAX_DENSE_DIM} otherwise "
        "(numerics.lsa works in float64)",
    )


def check_count(N: Any, name: str = "N") -> sympy.Expr:
    """A number of in-context examples (``N``, ``M``) as a sympy Integer >= 1; a symbol passes unchanged.

    Parameters
    ----------
    N : int or sympy.Symbol
        The count.
    name : str, optional
        Its name in the error message.

    Returns
    -------
    sympy.Integer or sympy.Symbol

    Raises
    ------
    ValueError
        Not an integer, or < 1.

    Examples
    --------
    >>> from sympy import Symbol
    >>> check_count(3), check_count(Symbol("N"))
    (3, N)
    >>> check_count(0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: N (number of in-context examples) must be an integer >= 1, got N = 0
    """
    if isinstance(N, sympy.Basic) and not N.is_number:
        return N
    if isinstance(N, bool) or not isinstance(N, (numbers.Integral, sympy.Integer)):
        raise InputError(f"{name} (number of in-context examples) must be an integer >= 1, got {N!r:.80}", param=name)
    if int(N) < 1:
        raise InputError(
            f"{name} (number of in-context examples) must be an integer >= 1, got {name} = {N}", param=name
        )
    return Integer(int(N))


def _check_rank(r: Any, d: int) -> int:
    if isinstance(r, bool) or not isinstance(r, (numbers.Integral, sympy.Integer)):
        raise InputError(f"rank r must be an integer in [0, d], got {r!r:.80}", param="r")
    r = int(r)
    if not 0 <= r <= d:
        raise InputError(f"rank r must satisfy 0 <= r <= d = {d} (Thm 5.4.1), got r = {r}", param="r")
    return r


def _check_square(U: Any, d: int, name: str = "U") -> Matrix:
    if hasattr(U, "tolist") and not isinstance(U, sympy.MatrixBase):
        U = U.tolist()
    if isinstance(U, sympy.MatrixBase):
        if U.shape != (d, d):
            raise InputError(f"{name} must have shape ({d}, {d}) to match Lambda, got {U.shape}", param=name)
        return Matrix(U).applyfunc(lambda e: _to_sympy(e, name))
    if isinstance(U, (str, bytes)) or not hasattr(U, "__len__") or len(U) != d:
        shape = (len(U),) if hasattr(U, "__len__") and not isinstance(U, (str, bytes)) else "none"
        raise InputError(
            f"{name} must have shape ({d}, {d}) to match Lambda, got {U!r:.80} (shape {shape})", param=name
        )
    rows = []
    for r in U:
        if isinstance(r, (str, bytes)) or not hasattr(r, "__len__") or len(r) != d:
            raise InputError(f"{name} must have shape ({d}, {d}) to match Lambda, got the row {r!r:.80}", param=name)
        rows.append([_to_sympy(e, name) for e in r])
    return Matrix(rows)


def _check_vector(w: Any, d: int, name: str) -> list[sympy.Expr]:
    if hasattr(w, "tolist") and not isinstance(w, sympy.MatrixBase):
        w = w.tolist()
    if isinstance(w, (str, bytes)) or not hasattr(w, "__iter__"):
        raise InputError(f"{name} must be a vector of d = {d} numbers, got {w!r:.80}", param=name)
    if hasattr(w, "__len__") and len(w) != d:
        raise InputError(f"{name} must have length d = {d} to match Lambda, got length {len(w)}", param=name)
    vals = list(w)
    if len(vals) != d:
        raise InputError(f"{name} must have length d = {d} to match Lambda, got length {len(vals)}", param=name)
    return [_to_sympy(v, name) for v in vals]


# ----------------------------------------------------------------------------------- eigen


def _eig(m: Matrix) -> tuple[list[sympy.Expr], Matrix]:
    """Eigenvalues (descending) and orthonormal eigenvectors (columns) of a symmetric matrix."""
    d = m.rows
    if m.is_diagonal():
        order = sorted(range(d), key=lambda i: -float(m[i, i]))  # stable: ties keep their index order
        lam = [m[i, i] for i in order]
        Q = Matrix.zeros(d, d)
        for col, i in enumerate(order):
            Q[i, col] = 1
        return lam, Q
    if is_exact(m) and d <= 4:
        try:
            pairs = m.eigenvects()
            cols, lam = [], []
            for val, mult, vecs in sorted(pairs, key=lambda p: -float(p[0])):
                basis = sympy.GramSchmidt([sympy.simplify(v) for v in vecs], orthonormal=True)
                cols += [b.applyfunc(sympy.radsimp) for b in basis]
                lam += [_canon(val) if val.is_rational else sympy.simplify(val)] * mult
            if len(cols) == d and all(v.is_real for v in lam):
                return lam, Matrix.hstack(*cols)
        except (NotImplementedError, ValueError, TypeError):
            pass
    # numeric fallback (large d or irrational spectra): mpmath, 30 digits
    with mpmath.workdps(30):
        E, V = mpmath.eigsy(
            mpmath.matrix(
                [
                    [mpmath.mpf(str(float(e))) if e.is_Float else mpmath.mpf(sympy.N(e, 40)) for e in m.row(i)]
                    for i in range(d)
                ]
            )
        )
        order = sorted(range(d), key=lambda i: -float(E[i]))
        lam = [sympy.Float(E[i], 30) for i in order]
        Q = Matrix(d, d, lambda a, b: sympy.Float(V[a, order[b]], 30))
    return lam, Q


@fill_doc(_DOC)
def eigen_descending(Lam: Any) -> tuple[list[sympy.Expr], Matrix]:
    """Eigen-decomposition ``Lambda = Q D Q^T`` with ``D = diag(lambda_1 >= ... >= lambda_d)`` (Thm 5.4.1).

    Exact for diagonal Lambda and for exact d <= 4 with an explicit spectrum; otherwise 30-digit mpmath.
    Within a tied eigenspace the columns are an orthonormal basis (one of many: see :class:`RankOptimum`).

    {{Lam}}

    Returns
    -------
    (lam, Q) : tuple of list and sympy.Matrix
        The eigenvalues, descending, and the orthonormal eigenvectors as columns.

    Examples
    --------
    >>> lam, Q = eigen_descending([[2, 1], [1, 2]])
    >>> lam
    [3, 1]
    >>> Q
    Matrix([
    [sqrt(2)/2, -sqrt(2)/2],
    [sqrt(2)/2,  sqrt(2)/2]])
    >>> Q * Q.T == Q.T * Q == Q**0
    True
    """
    return _eig(as_covariance(Lam))


def t_values(lam: Sequence[Any], N: Any) -> list[sympy.Expr]:
    """``T_i = (1 + 1/N) lambda_i + tr D / N``: the eigenvalues of Gamma (Thm 5.4.1).

    Parameters
    ----------
    lam : sequence of numbers
        The eigenvalues of Lambda.
    N : int or sympy.Symbol
        Number of in-context examples in pretraining, >= 1.

    Returns
    -------
    list of sympy.Expr
        ``T_1..T_d``.

    Examples
    --------
    >>> t_values([2, 1], 2)
    [9/2, 3]
    >>> from sympy import Symbol
    >>> t_values([2, 1], Symbol("N"))
    [2 + 5/N, 1 + 4/N]
    """
    N = check_count(N)
    if isinstance(lam, (str, bytes)) or not hasattr(lam, "__iter__"):
        raise InputError(f"lam must be a sequence of eigenvalues, got {lam!r:.80}", param="lam")
    if hasattr(lam, "__len__"):
        check_cost(len(lam), MAX_DIM, param="lam", value=len(lam), what="the number d of eigenvalues", hint="")
    lam = [_to_sympy(v, "lam") for v in lam]
    check_cost(len(lam), MAX_DIM, param="lam", value=len(lam), what="the number d of eigenvalues", hint="")
    tr = sum(lam, Integer(0))
    return [_canon((1 + 1 / N) * v + tr / N) for v in lam]


# ----------------------------------------------------------------------------------- Lemma 5.1


@fill_doc(_DOC)
def gamma_matrix(Lam: Any, N: Any) -> Matrix:
    """``Gamma = (1 + 1/N) Lambda + (tr Lambda / N) I_d`` (Shi Lemma 5.1).

    {{Lam_N}}

    Returns
    -------
    sympy.Matrix
        Gamma.

    Examples
    --------
    >>> gamma_matrix([[2, 0], [0, 1]], 2)
    Matrix([
    [9/2, 0],
    [  0, 3]])
    """
    m = as_covariance(Lam)
    N = check_count(N)
    return (1 + 1 / N) * m + (m.trace() / N) * sympy.eye(m.rows)


@fill_doc(_DOC)
def loss_constant(Lam: Any) -> sympy.Expr:
    """The constant of Lemma 5.1, ``C = 1/2 tr Lambda`` (the loss of the zero predictor; ``docs/lsa.md``).

    {{Lam}}

    Returns
    -------
    sympy.Expr
        ``tr Lambda / 2``.

    Examples
    --------
    >>> loss_constant([[2, 0], [0, 1]])
    3/2
    >>> population_loss([[0, 0], [0, 0]], 0, [[2, 0], [0, 1]], 2)
    3/2
    """
    return as_covariance(Lam).trace() / 2


@fill_doc(_DOC)
def reduced_loss(U: Any, u: Any, Lam: Any, N: Any) -> sympy.Expr:
    """``l~(U, u) = tr[1/2 u^2 Gamma Lambda U Lambda U^T - u Lambda^2 U^T]`` (Shi Lemma 5.1).

    ``U = W11^KQ`` and ``u = w22^PV``; valid as the LSA loss minus 1/2 tr Lambda only when
    ``w21^PV = w21^KQ = 0`` (hidden assumption, ``docs/lsa.md``). For general weights pass ``U = M_eff, u = 1`` to
    get the odd part of the loss.

    {{U_u_Lam_N}}

    Returns
    -------
    sympy.Expr
        ``l~(U, u)``.

    Examples
    --------
    >>> reduced_loss([[1, 0], [0, 1]], 1, [[2, 0], [0, 1]], 2)
    11/2
    """
    m = as_covariance(Lam)
    U = _check_square(U, m.rows)
    u = _to_sympy(u, "u")
    G = gamma_matrix(m, N)
    val = (u**2 / 2) * (G * m * U * m * U.T).trace() - u * (m * m * U.T).trace()
    return _canon(val) if is_exact(U) and is_exact(m) and not u.has(sympy.Float) else sympy.expand(val)


@fill_doc(_DOC)
def population_loss(U: Any, u: Any, Lam: Any, N: Any) -> sympy.Expr:
    """Pretraining population loss ``1/2 E (y_hat - y_q)^2 = l~(U, u) + 1/2 tr Lambda`` (Lemma 5.1, with
    ``w21^PV = w21^KQ = 0``).

    {{U_u_Lam_N}}

    Returns
    -------
    sympy.Expr
        The loss.

    Examples
    --------
    >>> population_loss([[1, 0], [0, 1]], 1, [[2, 0], [0, 1]], 2)
    7
    >>> population_loss([[0, 0], [0, 0]], 0, [[2, 0], [0, 1]], 2) == loss_constant([[2, 0], [0, 1]])
    True
    """
    return reduced_loss(U, u, Lam, N) + loss_constant(Lam)


@fill_doc(_DOC)
def full_rank_optimum(Lam: Any, N: Any) -> tuple[Matrix, sympy.Expr]:
    """Lemma D.1 (Zhang et al. Cor. A.2): ``argmin l~ = (Gamma^{-1}, 1)`` and ``min l~ = -1/2 tr(Lambda^2 Gamma^{-1})``.

    Returns ``(Gamma^{-1}, min l~)``. Gamma is positive definite whenever Lambda != 0 (tr Lambda > 0).

    {{Lam0_N}}

    Returns
    -------
    (Gamma^{-1}, min l~) : tuple of sympy.Matrix and sympy.Expr

    Examples
    --------
    >>> Ginv, lmin = full_rank_optimum([[2, 0], [0, 1]], 2)
    >>> Ginv, lmin
    (Matrix([
    [2/9,   0],
    [  0, 1/3]]), -11/18)
    >>> reduced_loss(Ginv, 1, [[2, 0], [0, 1]], 2) == lmin
    True
    >>> full_rank_optimum([[0, 0], [0, 0]], 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Lambda = 0: every U is optimal (l~ = 0); Gamma is singular
    """
    m = as_covariance(Lam)
    if all(e == 0 for e in m):
        raise InputError("Lambda = 0: every U is optimal (l~ = 0); Gamma is singular", param="Lambda")
    Ginv = gamma_matrix(m, N).inv()
    return Ginv, -(m * m * Ginv).trace() / 2


def _sqrt_psd(m: Matrix) -> Matrix:
    lam, Q = _eig(m)
    return Q * sympy.diag(*[sympy.sqrt(v) for v in lam]) * Q.T


@fill_doc(_DOC)
def excess_loss(U: Any, u: Any, Lam: Any, N: Any) -> sympy.Expr:
    """Left side of (D.4): ``l~(U, u) - min l~`` with ``min l~ = -1/2 tr(Lambda^2 Gamma^{-1})`` (Lemma D.1).

    {{U_u_Lam0_N}}

    Returns
    -------
    sympy.Expr
        The excess loss, >= 0.

    Examples
    --------
    >>> excess_loss([[1, 0], [0, 1]], 1, [[2, 0], [0, 1]], 2)
    55/9
    >>> Ginv, _ = full_rank_optimum([[2, 0], [0, 1]], 2)
    >>> excess_loss(Ginv, 1, [[2, 0], [0, 1]], 2)
    0
    """
    m = as_covariance(Lam)
    _, lmin = full_rank_optimum(m, N)
    lhs = reduced_loss(U, u, m, N) - lmin
    return _canon(sympy.expand(lhs)) if is_exact(m) else lhs


@fill_doc(_DOC)
def excess_loss_frobenius(U: Any, u: Any, Lam: Any, N: Any) -> sympy.Expr:
    """Right side of (D.4): ``1/2 ||Gamma^{1/2} (u Lambda^{1/2} U Lambda^{1/2} - Lambda Gamma^{-1})||_F^2``, computed
    literally with matrix square roots (App. D.1).

    {{U_u_Lam0_N}}

    Returns
    -------
    sympy.Expr
        The right side, expanded.

    Examples
    --------
    >>> excess_loss_frobenius([[1, 0], [0, 1]], 1, [[2, 0], [0, 1]], 2)
    55/9
    """
    m = as_covariance(Lam)
    U = _check_square(U, m.rows)
    u = _to_sympy(u, "u")
    if is_exact(m):  # sympy factors each radicand to simplify sqrt(Gamma) and sqrt(Lambda)
        G = gamma_matrix(m, N)
        for name, M, shown in (("Lambda", m, None), ("N", G, N)):
            size = max(_digits(e) for e in M)
            check_cost(
                size,
                MAX_RADICAND_DIGITS,
                param=name,
                value=format_count(shown) if shown is not None else f"a matrix with entries of ~{size:.0f} digits",
                what=f"an exact entry of {'Lambda' if shown is None else 'Gamma'} under the square root",
                hint="excess_loss gives the same value without square roots (Lemma D.1)",
                log10=True,
            )
    Ginv, _ = full_rank_optimum(m, N)
    R = _sqrt_psd(gamma_matrix(m, N)) * (u * _sqrt_psd(m) * U * _sqrt_psd(m) - m * Ginv)
    return sympy.expand(sum((e**2 for e in R), Integer(0)) / 2)


@fill_doc(_DOC)
def excess_loss_identity(U: Any, u: Any, Lam: Any, N: Any) -> tuple[sympy.Expr, sympy.Expr]:
    """(D.4): ``l~(U, u) - min l~ = 1/2 ||Gamma^{1/2} (u Lambda^{1/2} U Lambda^{1/2} - Lambda Gamma^{-1})||_F^2``.

    Returns ``(lhs, rhs)`` (:func:`excess_loss`, :func:`excess_loss_frobenius`); their difference simplifies to 0.

    {{U_u_Lam0_N}}

    Returns
    -------
    (lhs, rhs) : tuple of sympy.Expr

    Examples
    --------
    >>> excess_loss_identity([[1, 2], [2, 0]], 3, [[2, 0], [0, 1]], 4)
    (12291/52, 12291/52)
    """
    return excess_loss(U, u, Lam, N), excess_loss_frobenius(U, u, Lam, N)


# ----------------------------------------------------------------------------------- Thm 5.4.1


def _is_zero_value(x: sympy.Expr) -> bool:
    """Exact zero test for exact x, |x| <= 1e-300 for floats (T_i = 0 happens only for Lambda = 0)."""
    return bool(x == 0) if not x.has(sympy.Float) else abs(float(x)) <= 1e-300


def _inverse_or_zero(x: sympy.Expr) -> sympy.Expr:
    """1/x, or 0 where x = 0: T_i = 0 only for Lambda = 0, where v_i does not enter the loss."""
    return Integer(0) if _is_zero_value(x) else 1 / x


@dataclass(frozen=True)
class RankOptimum:
    """The rank-r optimum of Thm 5.4.1 (with scale c = 1: ``u* = 1``, ``U* = Q diag(v*) Q^T``).

    Attributes
    ----------
    r, N : int
    lam : list
        Eigenvalues of Lambda, descending.
    T : list
        ``T_i = (1 + 1/N) lambda_i + tr D / N``.
    v : list
        ``v_i* = 1/T_i`` for ``i <= r``, 0 beyond. Where ``T_i = 0`` (only for Lambda = 0) the loss does not
        depend on ``v_i`` and 0 is returned.
    Q : Matrix
        Orthonormal eigenvectors (columns), in the order of ``lam``.
    U : Matrix
        ``Q diag(v*) Q^T``; any ``(c U, 1/c)``, c != 0, is optimal as well (scale symmetry).
    reduced_loss : sympy.Expr
        ``l~(U*, 1) = -1/2 sum_{i<=r} lambda_i^2 / T_i``.
    loss : sympy.Expr
        ``L_r = 1/2 tr Lambda + l~(U*, 1)``.
    unique : bool
        True iff ``u U`` is the unique minimiser: ``r = 0``, or Lambda is non-singular and ``r = d`` or
        ``lambda_r > lambda_{r+1}``. With a tie at the cut any r-dimensional subspace of the tied eigenspace is
        optimal: compare losses, not matrices. With a singular Lambda the loss sees U only through
        ``Lambda U Lambda`` and ``diag(Lambda^2 U)``, so the rows and columns of U along the null space of Lambda
        are free (for r >= 1): the returned U is one optimum among many, and ``unique`` is False.

    Examples
    --------
    >>> opt = optimal_rank_r([[2, 0], [0, 1]], 2, 1)
    >>> opt.v, opt.reduced_loss, opt.loss, opt.unique
    ([2/9, 0], -4/9, 19/18, True)
    >>> opt.U
    Matrix([
    [2/9, 0],
    [  0, 0]])

    A tie at the cut (Lambda = I, r = 1) leaves U* non-unique:

    >>> optimal_rank_r([[1, 0], [0, 1]], 2, 1).unique
    False
    """

    r: int
    N: int
    lam: list
    T: list
    v: list
    Q: Matrix
    U: Matrix
    reduced_loss: sympy.Expr
    loss: sympy.Expr
    unique: bool


def _exact_positive(x: sympy.Expr) -> bool:
    """``x > 0`` for an exact number. sympy decides most signs symbolically; when it cannot (a difference of two
    radicals of 150-digit numbers cancels to ~1e-150: "cannot determine truth value of Relational") the sign is
    read from an evaluation with enough digits (twice the digits of the numbers in x, plus 30)."""
    x = sympy.simplify(x)
    rel = x > 0
    if rel is sympy.true or rel is sympy.false:
        return bool(rel)
    digits = 30 + 2 * int(_digits(x))
    value = sympy.N(x, digits)
    return bool(value > 0) and abs(value) > sympy.Float(10, digits) ** (-(digits - 10))


def optimal_rank_r(Lam: Any, N: Any, r: Any) -> RankOptimum:
    """Closed-form rank-r optimum of the reduced loss (Shi Thm 5.4.1; the proof needs Eckart-Young, ``docs/lsa.md``).

    Parameters
    ----------
    Lam : d x d symmetric PSD matrix (exact entries give exact results).
    N : int >= 1, number of in-context examples in pretraining.
    r : int in [0, d].

    Returns
    -------
    RankOptimum

    Raises
    ------
    ValueError
        Lambda not symmetric PSD, N < 1, r outside [0, d].

    Examples
    --------
    >>> [optimal_rank_r([[2, 0], [0, 1]], 2, r).loss for r in (0, 1, 2)]
    [3/2, 19/18, 8/9]
    >>> optimal_rank_r([[2, 0], [0, 1]], 2, 2).reduced_loss == full_rank_optimum([[2, 0], [0, 1]], 2)[1]
    True
    >>> optimal_rank_r([[2, 0], [0, 1]], 2, 3)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: rank r must satisfy 0 <= r <= d = 2 (Thm 5.4.1), got r = 3
    """
    m = as_covariance(Lam)
    N = check_count(N)
    d = m.rows
    r = _check_rank(r, d)
    lam, Q = _eig(m)
    T = t_values(lam, N)
    exact = is_exact(m)
    scale = max(1.0, float(lam[0]))

    def positive(x: sympy.Expr) -> bool:
        return _exact_positive(x) if exact else float(x) > _NUM_TOL * scale

    # T_i = 0 only when Lambda = 0 (tr D = 0): then every U is optimal and v_i = 0 is returned
    v = [1 / T[i] if i < r and positive(T[i]) else Integer(0) for i in range(d)]
    U = Q * sympy.diag(*v) * Q.T
    if is_exact(U):
        U = U.applyfunc(_canon)
    red = -sum((lam[i] ** 2 / T[i] for i in range(r) if positive(lam[i])), Integer(0)) / 2
    singular = not positive(lam[d - 1])
    unique = r == 0 or (not singular and (r == d or positive(lam[r - 1] - lam[r])))
    return RankOptimum(
        r=r,
        N=int(N),
        lam=lam,
        T=T,
        v=v,
        Q=Q,
        U=U,
        reduced_loss=_canon(red) if is_exact(m) else red,
        loss=_canon(m.trace() / 2 + red) if is_exact(m) else m.trace() / 2 + red,
        unique=unique,
    )


@fill_doc(_DOC)
def optimal_losses(Lam: Any, N: Any) -> list[sympy.Expr]:
    """``[L_0, ..., L_d]``, the optimal pretraining losses by rank (Thm 5.4.1; derived in ``docs/lsa.md``).

    {{Lam_N}}

    Returns
    -------
    list of sympy.Expr
        ``L_0 = tr Lambda / 2 >= L_1 >= ... >= L_d``.

    Examples
    --------
    >>> optimal_losses([[2, 0], [0, 1]], 2)
    [3/2, 19/18, 8/9]

    Float entries give the 30-digit numeric fallback:

    >>> [round(float(v), 6) for v in optimal_losses([[2.0, 0], [0, 1.0]], 2)]
    [1.5, 1.055556, 0.888889]
    """
    m = as_covariance(Lam)
    N = check_count(N)
    lam, _ = _eig(m)
    T = t_values(lam, N)
    out, acc = [], m.trace() / 2
    for r in range(m.rows + 1):
        out.append(_canon(acc) if is_exact(m) else acc)
        if r < m.rows:
            acc = acc - (lam[r] ** 2 / T[r] / 2 if not _is_zero_value(T[r]) else 0)
    return out


def limit_relative_error(Lam: Any, N: Any) -> list[sympy.Expr]:
    """``|lambda_i v_i* - 1| = (lambda_i + tr D) / ((N+1) lambda_i + tr D)``: how far the full-rank optimum is from
    its N -> infinity limit ``v_i* = 1/lambda_i``, one value per eigenvalue (descending).

    Derived (``docs/lsa.md``) from Shi Theorem 5.4.1 (Sec. 5.4.1, p. 76), which gives
    ``v_i* = N / ((N+1) lambda_i + tr D)``: then ``lambda_i v_i* - 1 = -(lambda_i + tr D) / ((N+1) lambda_i + tr D)``.
    The rate is O(1/N) and lies in (0, 1] (1 for ``lambda_i = 0``). For ``Lambda = 0`` the loss does not depend on
    ``v`` and :func:`optimal_rank_r` returns ``v_i* = 0``, so 1 is returned there as well.

    Parameters
    ----------
    Lam : d x d symmetric PSD matrix (exact entries give exact results).
    N : int >= 1, number of in-context examples in pretraining.

    Returns
    -------
    list of sympy.Expr
        One rate per eigenvalue, descending.

    Raises
    ------
    ValueError
        Lambda not symmetric PSD, or N not an integer >= 1.

    Examples
    --------
    >>> limit_relative_error([[2, 0], [0, 1]], 2)
    [5/9, 2/3]
    >>> opt = optimal_rank_r([[2, 0], [0, 1]], 2, 2)
    >>> [abs(l * v - 1) for l, v in zip(opt.lam, opt.v)]
    [5/9, 2/3]
    """
    m = as_covariance(Lam)
    N = check_count(N)
    lam, _ = _eig(m)
    tr = m.trace()  # = tr D
    out = []
    for x in lam:
        den = (N + 1) * x + tr
        val = Integer(1) if _is_zero_value(den) else (x + tr) / den
        out.append(_canon(val) if is_exact(m) else val)
    return out


# ----------------------------------------------------------------------------------- Thm 5.4.2 / 5.4.3


def _eval_setup(Lam: Any, N: Any, r: Any, M: Any, sigma: Any, w: Any, w_in_eigenbasis: bool):
    m = as_covariance(Lam)
    N = check_count(N)
    M = check_count(M, "M")
    d = m.rows
    r = _check_rank(r, d)
    w_in_eigenbasis = check_bool(w_in_eigenbasis, "w_in_eigenbasis")
    lam, Q = _eig(m)
    wv = _check_vector(w, d, "w")
    c = wv if w_in_eigenbasis else list(Q.T * Matrix(wv))
    sig = _to_sympy(sigma, "sigma")
    if sig.is_number and sig < 0:
        raise InputError(f"sigma (label-noise std) must be >= 0, got {sigma!r}", param="sigma")
    return m, N, M, d, r, lam, c, sig


@fill_doc(_DOC)
def noisy_eval_loss(
    Lam: Any, N: Any, r: Any, M: Any, sigma: Any, w: Any, *, w_in_eigenbasis: bool = False
) -> sympy.Expr:
    r"""Shi Thm 5.4.2: evaluation loss of the rank-r optimum on a noisy prompt, for a **fixed** task w.

    ``L = E_{x, eps, x_q} (f(E) - <w, x_q>)^2`` (not halved) with M examples, rho = M, labels
    ``y_i = <w, x_i> + eps_i``, ``eps_i ~ N(0, sigma^2)``. With ``w = Q(s + xi)`` (s on the top r coordinates):

    ``L = (1/M) ||s||^2_{V*^2 D^3} + (1/M)(||s + xi||^2_D + sigma^2) tr(V*^2 D^2) + ||xi||^2_D
    + sum_{i<=r} s_i^2 lambda_i (lambda_i v_i* - 1)^2``.

    ``w`` is in the original coordinates unless ``w_in_eigenbasis`` (then it is ``Q^T w``).

    {{noisy_eval}}

    Returns
    -------
    sympy.Expr
        The evaluation loss.

    Examples
    --------
    >>> noisy_eval_loss([[2, 0], [0, 1]], 2, 1, 2, 0, [1, 0])
    82/81
    >>> noisy_eval_loss([[2, 0], [0, 1]], 2, 1, 2, 1, [1, 0])
    10/9

    For large N it tends to :func:`noisy_eval_loss_approx`:

    >>> round(float(noisy_eval_loss([[2, 0], [0, 1]], 10**6, 1, 2, 0, [1, 0])), 4)
    2.0
    """
    m, N, M, d, r, lam, c, sig = _eval_setup(Lam, N, r, M, sigma, w, w_in_eigenbasis)
    T = t_values(lam, N)
    v = [_inverse_or_zero(T[i]) if i < r else Integer(0) for i in range(d)]
    s = [c[i] if i < r else Integer(0) for i in range(d)]
    xi = [Integer(0) if i < r else c[i] for i in range(d)]
    term1 = sum((s[i] ** 2 * v[i] ** 2 * lam[i] ** 3 for i in range(d)), Integer(0)) / M
    normD = sum((c[i] ** 2 * lam[i] for i in range(d)), Integer(0))
    trv = sum(((v[i] * lam[i]) ** 2 for i in range(d)), Integer(0))
    term2 = (normD + sig**2) * trv / M
    term3 = sum((xi[i] ** 2 * lam[i] for i in range(d)), Integer(0))
    term4 = sum((s[i] ** 2 * lam[i] * (lam[i] * v[i] - 1) ** 2 for i in range(d)), Integer(0))
    return (
        _canon(term1 + term2 + term3 + term4)
        if is_exact(m) and not sig.has(sympy.Float) and all(not x.has(sympy.Float) for x in c)
        else term1 + term2 + term3 + term4
    )


@fill_doc(_DOC)
def noisy_eval_loss_approx(
    Lam: Any, r: Any, M: Any, sigma: Any, w: Any, *, w_in_eigenbasis: bool = False
) -> sympy.Expr:
    """Large-N approximation of Thm 5.4.2 (``N lambda_r >> tr D``, ``v_i* ~ 1/lambda_i``):
    ``L ~ ||xi||^2_D + (1/M)[(r+1)||s||^2_D + r ||xi||^2_D + r sigma^2]``.

    {{noisy_eval_approx}}

    Returns
    -------
    sympy.Expr
        The approximate evaluation loss.

    Examples
    --------
    >>> noisy_eval_loss_approx([[2, 0], [0, 1]], 1, 2, 0, [1, 0])
    2
    """
    _m, _, M, d, r, lam, c, sig = _eval_setup(Lam, 1, r, M, sigma, w, w_in_eigenbasis)
    s2 = sum((c[i] ** 2 * lam[i] for i in range(r)), Integer(0))
    x2 = sum((c[i] ** 2 * lam[i] for i in range(r, d)), Integer(0))
    return x2 + ((r + 1) * s2 + r * x2 + r * sig**2) / M


@fill_doc(_DOC)
def expected_noisy_eval_loss(Lam: Any, N: Any, r: Any, M: Any, sigma: Any) -> sympy.Expr:
    """Thm 5.4.2 averaged over ``w ~ N(0, I)`` (derived in ``docs/lsa.md``):
    ``(1/M) sum_{i<=r} v_i^2 lambda_i^3 + (1/M)(tr D + sigma^2) sum_{i<=r} v_i^2 lambda_i^2 + sum_{i>r} lambda_i
    + sum_{i<=r} lambda_i (lambda_i v_i - 1)^2``. With M = N, sigma = 0 it equals ``2 L_r`` (a consistency check of Lemma 5.1 against Thm 5.4.2).

    {{expected_eval}}

    Returns
    -------
    sympy.Expr
        The expected evaluation loss.

    Examples
    --------
    >>> expected_noisy_eval_loss([[2, 0], [0, 1]], 2, 1, 2, 0)
    19/9
    >>> 2 * optimal_rank_r([[2, 0], [0, 1]], 2, 1).loss
    19/9
    """
    m, N, M, d, r, lam, _, sig = _eval_setup(Lam, N, r, M, sigma, [0] * as_covariance(Lam).rows, True)
    T = t_values(lam, N)
    tr = sum(lam, Integer(0))
    val = Integer(0)
    for i in range(d):
        if i < r:
            v = _inverse_or_zero(T[i])
            val += v**2 * lam[i] ** 3 / M + (tr + sig**2) * v**2 * lam[i] ** 2 / M + lam[i] * (lam[i] * v - 1) ** 2
        else:
            val += lam[i]
    return _canon(val) if is_exact(m) and not sig.has(sympy.Float) else val


def _check_support_s(c: list, r: int) -> None:
    if any(x != 0 for x in c[r:]):
        raise InputError(
            f"Thm 5.4.3 assumes w = Q s with s supported on the first r = {r} eigen-coordinates; got Q^T w = {c}",
            param="w",
        )


@fill_doc(_DOC)
def rank_difference(
    Lam: Any, N: Any, r: Any, r2: Any, M: Any, sigma: Any, w: Any, *, w_in_eigenbasis: bool = False
) -> sympy.Expr:
    """Shi Thm 5.4.3: ``L(f_{r'}) - L(f_r) = (1/M)(||s||^2_D + sigma^2) sum_{i=r+1}^{r'} (N lambda_i/((N+1)lambda_i
    + tr D))^2 >= 0`` for ``r <= r'`` and ``w = Q s``, s supported on the first r coordinates.

    {{rank_difference}}

    Returns
    -------
    sympy.Expr
        ``L(f_{r'}) - L(f_r)``.

    Examples
    --------
    >>> Lam = [[2, 0], [0, 1]]
    >>> rank_difference(Lam, 2, 1, 2, 2, 1, [1, 0])
    1/6
    >>> noisy_eval_loss(Lam, 2, 2, 2, 1, [1, 0]) - noisy_eval_loss(Lam, 2, 1, 2, 1, [1, 0])
    1/6
    >>> rank_difference(Lam, 2, 1, 2, 2, 1, [1, 1])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Thm 5.4.3 assumes w = Q s with s supported on the first r = 1 eigen-coordinates; got
    Q^T w = [1, 1]
    """
    m, N, M, d, r, lam, c, sig = _eval_setup(Lam, N, r, M, sigma, w, w_in_eigenbasis)
    r2 = _check_rank(r2, d)
    if r2 < r:
        raise InputError(f"Thm 5.4.3 needs r <= r', got r = {r}, r' = {r2}", param="r2")
    _check_support_s(c, r)
    tr = sum(lam, Integer(0))
    s2 = sum((c[i] ** 2 * lam[i] for i in range(r)), Integer(0))
    val = (
        (s2 + sig**2)
        / M
        * sum(((N * lam[i] * _inverse_or_zero((N + 1) * lam[i] + tr)) ** 2 for i in range(r, r2)), Integer(0))
    )
    return _canon(val) if is_exact(m) and not sig.has(sympy.Float) and all(not x.has(sympy.Float) for x in c) else val


@fill_doc(_DOC)
def rank_difference_approx(
    Lam: Any, r: Any, r2: Any, M: Any, sigma: Any, w: Any, *, w_in_eigenbasis: bool = False
) -> sympy.Expr:
    """Large-N form of Thm 5.4.3: ``(r' - r)/M (||s||^2_D + sigma^2)``.

    {{rank_difference_approx}}

    Returns
    -------
    sympy.Expr
        The approximate difference.

    Examples
    --------
    >>> rank_difference_approx([[2, 0], [0, 1]], 1, 2, 2, 1, [1, 0])
    3/2
    >>> round(float(rank_difference([[2, 0], [0, 1]], 10**6, 1, 2, 2, 1, [1, 0])), 4)
    1.5
    """
    _m, _, M, d, r, lam, c, sig = _eval_setup(Lam, 1, r, M, sigma, w, w_in_eigenbasis)
    r2 = _check_rank(r2, d)
    _check_support_s(c, r)
    s2 = sum((c[i] ** 2 * lam[i] for i in range(r)), Integer(0))
    return (r2 - r) * (s2 + sig**2) / M


@fill_doc(_DOC)
def best_rank(
    Lam: Any, N: Any, M: Any, sigma: Any, w: Any, *, w_in_eigenbasis: bool = False
) -> tuple[int, list[sympy.Expr]]:
    """The noise trade-off of Sec. 5.4.2 as a computable statement: the rank r in [0, d] whose optimum has the
    smallest Thm 5.4.2 loss for this task, noise and prompt length (smallest r on ties), and all the losses.

    More label noise sigma favours smaller r ("smaller models are more robust", Sec. 5.4.2).

    {{best_rank}}

    Returns
    -------
    (r, losses) : tuple of int and list of sympy.Expr
        The best rank and the losses of ranks 0..d.

    Examples
    --------
    >>> best_rank([[2, 0], [0, 1]], 10, 10, 0, [1, 1])
    (2, [3, 7/5, 24/35])
    >>> best_rank([[2, 0], [0, 1]], 10, 2, 5, [1, 1])[0]
    0
    """
    m = as_covariance(Lam)
    d = m.rows
    losses = [noisy_eval_loss(m, N, r, M, sigma, w, w_in_eigenbasis=w_in_eigenbasis) for r in range(d + 1)]
    fl = [float(x) for x in losses]
    return fl.index(min(fl)), losses


# ----------------------------------------------------------------------------------- Lemma 5.1, symbolic


MAX_SYMBOLIC_DIM = 3
"""Largest d (and number n of examples) of the symbolic checks (Lemma 5.1, Eq. 5.1-5.2): the expansions grow as d^4."""


def _check_symbolic_size(value: object, name: str, rule: str) -> int:
    """d or n of the symbolic checks: an integer in [1, MAX_SYMBOLIC_DIM]; LimitError above (the expansions grow as
    d^4), InputError for anything else. ``rule`` states the hypothesis and the values got."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:  # numpy, sympy integers
        raise InputError(rule, param=name)
    value = int(value)
    if value > MAX_SYMBOLIC_DIM:
        hint = f"the numeric functions of this module take d <= {MAX_DENSE_DIM} ({MAX_DIM} for a diagonal Lambda)"
        raise LimitError(
            f"{name} = {format_count(value)} is too large: {rule}; {hint}",
            param=name,
            value=value,
            limit=MAX_SYMBOLIC_DIM,
            hint=hint,
        )
    return value


def _isserlis_fourth(A: Matrix, Ls: Matrix) -> Matrix:
    """``E[x x^T A x x^T]`` for ``x ~ N(0, Ls)`` entrywise by Isserlis' theorem
    ``E[x_i x_j x_k x_l] = L_ij L_kl + L_ik L_jl + L_il L_jk``."""
    d = Ls.rows
    return Matrix(
        d,
        d,
        lambda i, j: sum(
            A[k, l] * (Ls[i, k] * Ls[l, j] + Ls[i, l] * Ls[k, j] + Ls[i, j] * Ls[k, l])
            for k in range(d)
            for l in range(d)
        ),
    )


def lemma51_moments(d: int = 2) -> tuple[list[sympy.Expr], list[sympy.Expr]]:
    """Lemma 5.1 for a general symmetric Lambda, general U, u and symbolic N, in two independent computations.

    Returns ``(derived, stated)``, entry by entry:

    1. ``E[x x^T A x x^T]`` (symmetric A) by Isserlis' theorem vs the formula ``2 L A L + tr(A L) L``;
    2. ``E[H A H]`` for ``H = X^T X / N`` (``(1/N^2)[N E[x x^T A x x^T] + N(N-1) L A L]``) vs
       ``(1 + 1/N) L A L + tr(A L) L / N``;
    3. ``E (u w^T H U x_q - w^T x_q)^2 / 2`` (w ~ N(0, I), p = q = 0, rho = N, expanded with Isserlis) vs the
       lemma's ``l~(U, u) + 1/2 tr L``.

    The derivation is sketched in ``docs/lsa.md``.

    Parameters
    ----------
    d : int, optional
        Dimension, in [1, 3] (the expansion grows as d^4).

    Returns
    -------
    (derived, stated) : tuple of two lists of sympy.Expr

    Examples
    --------
    >>> derived, stated = lemma51_moments(1)
    >>> derived[0], stated[0]  # E[x^4] a = 3 a l^2 for x ~ N(0, l)
    (3*a00*l00**2, 3*a00*l00**2)
    >>> derived == stated
    True
    """
    d = _check_symbolic_size(
        d, "d", f"d must be an integer in [1, 3] (the symbolic expansion grows as d^4), got {d!r:.80}"
    )
    N = sympy.Symbol("N", positive=True)
    u = sympy.Symbol("u")
    Ls = Matrix(d, d, lambda i, j: sympy.Symbol(f"l{min(i, j)}{max(i, j)}"))
    As = Matrix(d, d, lambda i, j: sympy.Symbol(f"a{min(i, j)}{max(i, j)}"))
    U = Matrix(d, d, lambda i, j: sympy.Symbol(f"U{i}{j}"))
    derived: list[sympy.Expr] = []
    stated: list[sympy.Expr] = []
    F = _isserlis_fourth(As, Ls)
    derived += list(F.applyfunc(sympy.expand))
    stated += list((2 * Ls * As * Ls + (As * Ls).trace() * Ls).applyfunc(sympy.expand))
    EH = (N * F + N * (N - 1) * Ls * As * Ls) / N**2
    derived += list(EH.applyfunc(sympy.simplify))
    stated += list(((1 + 1 / N) * Ls * As * Ls + (As * Ls).trace() * Ls / N).applyfunc(sympy.simplify))
    # loss: E_w,x_q tr[(u H U - I) L (u H U - I)^T] with E_w ww^T = I; quadratic term uses E[H B H], B = U L U^T
    B = U * Ls * U.T
    EHBH = (N * _isserlis_fourth(B, Ls) + N * (N - 1) * Ls * B * Ls) / N**2
    mse = u**2 * EHBH.trace() - 2 * u * (Ls * U * Ls).trace() + Ls.trace()
    G = (1 + 1 / N) * Ls + Ls.trace() / N * sympy.eye(d)
    lt = (u**2 / 2 * G * Ls * U * Ls * U.T - u * Ls * Ls * U.T).trace()
    derived.append(sympy.expand(mse / 2))
    stated.append(sympy.expand(lt + Ls.trace() / 2))
    return derived, stated


def lemma51_residuals(d: int = 2) -> list[sympy.Expr]:
    """``derived - stated`` of :func:`lemma51_moments`, simplified: all 0.

    Parameters
    ----------
    d : int, optional
        Dimension, in [1, 3].

    Returns
    -------
    list of sympy.Expr
        The residuals.

    Examples
    --------
    >>> lemma51_residuals(1)
    [0, 0, 0]
    >>> lemma51_residuals(4)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: d = 4 is too large: d must be an integer in [1, 3] (the symbolic expansion grows as d^4),
    got 4; ...
    """
    derived, stated = lemma51_moments(d)
    return [sympy.simplify(a - b) for a, b in zip(derived, stated)]


# ----------------------------------------------------------------------------------- Eq. 5.1-5.2, symbolic


def _as_matrix(M: Any, name: str, shape: tuple[int, int] | None = None) -> Matrix:
    """A caller's matrix (sympy Matrix, nested sequence or numpy array) with numeric or symbolic entries, its shape
    checked (when given) before its entries are read."""
    if hasattr(M, "tolist") and not isinstance(M, sympy.MatrixBase):
        M = M.tolist()
    if isinstance(M, sympy.MatrixBase):
        rows, cols = M.shape
    elif isinstance(M, (str, bytes)) or not hasattr(M, "__len__") or not len(M):
        raise InputError(f"{name} must be a non-empty matrix of numbers, got {M!r:.80}", param=name)
    else:
        rows = len(M)
        first: Any = M[0] if hasattr(M, "__getitem__") else None
        if isinstance(first, (str, bytes)) or not hasattr(first, "__len__"):
            raise InputError(f"{name} must be a non-empty matrix of numbers, got {M!r:.80}", param=name)
        cols = len(first)
        if any(isinstance(r, (str, bytes)) or not hasattr(r, "__len__") or len(r) != cols for r in M):
            raise InputError(f"{name} must have rows of equal length, got {M!r:.80}", param=name)
    if shape is not None and (rows, cols) != shape:
        raise InputError(f"{name} must have shape {shape} to match E, got {(rows, cols)}", param=name)
    entries = M if isinstance(M, sympy.MatrixBase) else [e for r in M for e in r]
    return Matrix(rows, cols, [_to_sympy(e, name) for e in entries])


def _check_prompt(E: Any, WPV: Any, WKQ: Any, rho: Any) -> tuple[Matrix, Matrix, Matrix, sympy.Expr]:
    """The prompt E ((d+1) x (n+1), d >= 1), the (d+1) x (d+1) weights and a non-zero rho, sized before the products:
    the literal Eq. 5.1 forms (d+1)(n+1)(d+n+2) products."""
    if isinstance(E, sympy.MatrixBase) or hasattr(E, "shape"):
        rows, cols = (int(v) for v in tuple(E.shape)[:2]) if len(tuple(E.shape)) == 2 else (0, 0)
    elif isinstance(E, (list, tuple)) and E and hasattr(E[0], "__len__"):
        rows, cols = len(E), len(E[0])
    else:
        rows = cols = 0
    check_cost(
        rows * cols * (rows + cols),
        MAX_EXACT_ENTRIES,
        param="E",
        value=f"a {format_count(rows)} x {format_count(cols)} prompt",
        what="the number (d+1)(n+1)(d+n+2) of exact products of Eq. 5.1",
        hint="numerics.lsa evaluates prompts in float64",
    )
    E = _as_matrix(E, "E")
    if E.rows < 2:
        raise InputError(f"E must have d + 1 >= 2 rows (the tokens (x_i, y_i)), got shape {E.shape}", param="E")
    WPV = _as_matrix(WPV, "WPV", (E.rows, E.rows))
    WKQ = _as_matrix(WKQ, "WKQ", (E.rows, E.rows))
    r = _to_sympy(rho, "rho")
    if r.is_number and r == 0:
        raise InputError("rho must be non-zero (Eq. 5.1 divides by it), got 0", param="rho")
    return E, WPV, WKQ, r


@fill_doc(_DOC)
def lsa_output(E: Matrix, WPV: Matrix, WKQ: Matrix, rho: Any) -> sympy.Expr:
    """The prediction of Eq. 5.1 taken literally: entry (d+1, n+1) of ``E + W^PV E (E^T W^KQ E) / rho``.

    {{prompt}}

    Examples
    --------
    {{ex_prompt}}
    >>> lsa_output(E, WPV, WKQ, 2)
    279/2
    """
    E, WPV, WKQ, rho = _check_prompt(E, WPV, WKQ, rho)
    return (E + WPV * E * (E.T * WKQ * E) / rho)[-1, -1]


@fill_doc(_DOC)
def corrected_prediction(E: Matrix, WPV: Matrix, WKQ: Matrix, rho: Any) -> sympy.Expr:
    """Eq. 5.2 as corrected in ``docs/lsa.md``: ``y_hat = (w21^PV^T, w22^PV) (E E^T / rho) [W11^KQ; w21^KQ^T] x_q``.

    {{prompt}}

    Examples
    --------
    {{ex_prompt}}
    >>> corrected_prediction(E, WPV, WKQ, 2), lsa_output(E, WPV, WKQ, 2)
    (279/2, 279/2)
    """
    E, WPV, WKQ, rho = _check_prompt(E, WPV, WKQ, rho)
    d = E.rows - 1
    return (WPV[d, :] * (E * E.T / rho) * WKQ[:, :d] * E[:d, -1])[0, 0]


@fill_doc(_DOC)
def expanded_prediction(E: Matrix, WPV: Matrix, WKQ: Matrix, rho: Any) -> sympy.Expr:
    """The corrected Eq. 5.2 expanded (``docs/lsa.md``): ``(1/rho)[p^T S U x_q + (p^T s_xy)(q^T x_q) +
    u s_xy^T U x_q + u s_yy q^T x_q]`` with ``p = w21^PV``, ``u = w22^PV``, ``U = W11^KQ``, ``q = w21^KQ``,
    ``S = sum_i x_i x_i^T + x_q x_q^T``, ``s_xy = sum_i y_i x_i``, ``s_yy = sum_i y_i^2``.

    {{prompt}}

    Examples
    --------
    {{ex_prompt}}
    >>> expanded_prediction(E, WPV, WKQ, 2), lsa_output(E, WPV, WKQ, 2)
    (279/2, 279/2)
    """
    E, WPV, WKQ, rho = _check_prompt(E, WPV, WKQ, rho)
    d = E.rows - 1
    p, u = WPV[d, :d].T, WPV[d, d]
    U, q = WKQ[:d, :d], WKQ[d, :d].T
    X, y, xq = E[:d, :], E[d, :-1], E[:d, -1]
    S = X * X.T
    sxy = E[:d, :-1] * y.T
    syy = (y * y.T)[0, 0]
    qx = (q.T * xq)[0, 0]
    return ((p.T * S * U * xq)[0, 0] + (p.T * sxy)[0, 0] * qx + u * (sxy.T * U * xq)[0, 0] + u * syy * qx) / rho


def _symbolic_prompt(d: int, n: int) -> tuple[Matrix, Matrix, Matrix, sympy.Symbol]:
    """A symbolic prompt E ((d+1) x (n+1), query label 0), symbolic W^PV, W^KQ and rho."""
    rule = f"d and n must be integers in [1, 3] (the expansion grows fast), got d = {d!r:.80}, n = {n!r:.80}"
    d, n = _check_symbolic_size(d, "d", rule), _check_symbolic_size(n, "n", rule)
    E = Matrix(d + 1, n + 1, lambda a, b: 0 if (a == d and b == n) else sympy.Symbol(f"e{a}_{b}"))
    WPV = Matrix(d + 1, d + 1, lambda a, b: sympy.Symbol(f"pv{a}_{b}"))
    WKQ = Matrix(d + 1, d + 1, lambda a, b: sympy.Symbol(f"kq{a}_{b}"))
    return E, WPV, WKQ, sympy.Symbol("rho", positive=True)


@fill_doc(_DOC)
def eq52_residuals(d: int = 2, n: int = 2) -> list[sympy.Expr]:
    """Eq. 5.1 (literal) minus the corrected Eq. 5.2, and minus its expansion, for a symbolic prompt with ``n``
    examples and symbolic weights; both expand to 0.

    {{symbolic_size}}

    Returns
    -------
    list of sympy.Expr
        The two residuals.

    Examples
    --------
    >>> eq52_residuals(1, 1)
    [0, 0]
    """
    E, WPV, WKQ, rho = _symbolic_prompt(d, n)
    out = lsa_output(E, WPV, WKQ, rho)
    return [
        sympy.expand(out - corrected_prediction(E, WPV, WKQ, rho)),
        sympy.expand(out - expanded_prediction(E, WPV, WKQ, rho)),
    ]


@fill_doc(_DOC)
def dead_block_derivatives(d: int = 2, n: int = 2) -> list[sympy.Expr]:
    """``d y_hat / d theta`` of the literal Eq. 5.1 output for every entry theta of the blocks W11^PV, w12^PV,
    w12^KQ and w22^KQ (symbolic prompt and weights); all are 0 because the query's label slot is 0.

    {{symbolic_size}}

    Returns
    -------
    list of sympy.Expr
        One derivative per entry, ``d(d+1) + d+1`` of them.

    Examples
    --------
    >>> dead_block_derivatives(1, 1)
    [0, 0, 0, 0]
    """
    E, WPV, WKQ, rho = _symbolic_prompt(d, n)
    out = sympy.expand(lsa_output(E, WPV, WKQ, rho))
    dead = [WPV[a, b] for a in range(d) for b in range(d + 1)] + [WKQ[a, d] for a in range(d + 1)]
    return [sympy.diff(out, t) for t in dead]


@fill_doc(_DOC)
def scale_symmetry_residuals(d: int = 2, n: int = 2) -> list[sympy.Expr]:
    """The symmetry ``(u, U) -> (u/c, cU)`` of Thm 5.4.1 (weights (5.3), p = q = 0): the change of the literal
    Eq. 5.1 output and of ``l~`` (symbolic symmetric Lambda and N); both expand to 0.

    {{symbolic_size}}

    Returns
    -------
    list of sympy.Expr
        The two changes.

    Examples
    --------
    >>> scale_symmetry_residuals(1, 1)
    [0, 0]
    """
    E, _, _, rho = _symbolic_prompt(d, n)
    c, u, N = sympy.symbols("c u N", positive=True)
    U = Matrix(d, d, lambda i, j: sympy.Symbol(f"U{i}{j}"))
    Ls = Matrix(d, d, lambda i, j: sympy.Symbol(f"l{min(i, j)}{max(i, j)}"))

    def weights(uu: sympy.Expr, UU: Matrix) -> tuple[Matrix, Matrix]:
        WPV = sympy.zeros(d + 1, d + 1)
        WKQ = sympy.zeros(d + 1, d + 1)
        WPV[d, d] = uu
        WKQ[:d, :d] = UU
        return WPV, WKQ

    def lt(uu: sympy.Expr, UU: Matrix) -> sympy.Expr:
        G = (1 + 1 / N) * Ls + Ls.trace() / N * sympy.eye(d)
        return (uu**2 / 2 * G * Ls * UU * Ls * UU.T - uu * Ls * Ls * UU.T).trace()

    return [
        sympy.expand(lsa_output(E, *weights(u / c, c * U), rho) - lsa_output(E, *weights(u, U), rho)),
        sympy.expand(lt(u / c, c * U) - lt(u, U)),
    ]
