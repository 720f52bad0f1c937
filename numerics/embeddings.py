r"""Fixed embeddings against every k-sparse parity, one convex program per parity (Edelman thesis (2024), Ch. 5,
Sec. 5.4.1, Theorem 5.6; the bounds are in :mod:`theory.embeddings`).

For an embedding :math:`\Psi` (rows :math:`\Psi(x)` over all :math:`2^n` points of the cube, uniform weights) and
a label vector :math:`y=\chi_S`, the hinge program and its Lagrange dual are

.. math::

    \text{(P)}\ \min_{\|w\|_2\le R}\ \tfrac1N\textstyle\sum_x\max(0,1-y_x\Psi(x)^\top w),\qquad
    \text{(D)}\ \max_{\alpha\in[0,1]^N}\ \tfrac1N\textstyle\sum_x\alpha_x-R\,\big\|\tfrac1N\sum_x\alpha_xy_x\Psi(x)\big\|_2 .

Weak duality holds for *every* :math:`\alpha\in[0,1]^N` (minimise the Lagrangian over the ball), so a primal point
projected onto the ball and a dual point clipped into the box (or :math:`\alpha\equiv1`, the proof's point
:math:`1-R\|\mathbb E[y\Psi]\|`, whichever is larger) give a rigorous bracket, evaluated here in numpy
whatever the solver reports: the certificate is the bracket's width (the duality gap) and the residuals of the raw
solver points (ball and box violations), as for :mod:`numerics.certificates`. The solver is Clarabel, with SCS as the
fallback (:data:`numerics.certificates.DEFAULT_SOLVERS`); a status other than ``optimal`` is never used.

The embeddings (each scaled so that :math:`\max_x\|\Psi(x)\|_2=1`, the theorem's hypothesis): the degree-k Walsh
embedding (:func:`walsh_embedding`), random ReLU features (:func:`random_relu_embedding`) and the neural tangent
features of a width-m two-layer ReLU network at a Gaussian initialisation (:func:`ntk_embedding`), the "NTK" of the
theorem's title.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from theory._checks import InputError, LimitError
from theory.parity import check_nk

from .certificates import DEFAULT_SOLVER_OPTIONS, DEFAULT_SOLVERS, CertificateError
from .limits import check_count, check_real, check_real_array, check_seed
from .walsh import characters, cube

__all__ = [
    "MAX_PROGRAM_ENTRIES",
    "HingeBracket",
    "ParitySweep",
    "hinge_over_parities",
    "normalize_rows",
    "ntk_embedding",
    "random_relu_embedding",
    "walsh_embedding",
    "zero_one_error",
]

#: Largest embedding matrix (2^n x D entries) a sweep accepts, or an embedding function builds: 2^10 x 2000 solves
#: in seconds per parity.
MAX_PROGRAM_ENTRIES = 4_000_000


def _check_entries(n: object, D: int, param: str, value: int) -> int:
    """n as an int >= 1; a (2^n, D) embedding above MAX_PROGRAM_ENTRIES entries refused (LimitError naming ``param``,
    whose value is ``value``; or n) before it is built."""
    n = check_count(n, "n")
    if n > 62 or 2**n * D > MAX_PROGRAM_ENTRIES:
        param, value = ("n", n) if 2 ** min(n, 63) > MAX_PROGRAM_ENTRIES else (param, value)
        raise LimitError(
            f"{param} = {value:,} is too large: the embedding (2^{n:,}, {D:,}) is above the limit "
            f"{MAX_PROGRAM_ENTRIES:,} entries",
            param=param,
            value=value,
            limit=MAX_PROGRAM_ENTRIES,
            hint=f"use a smaller {param} or n",
        )
    return n


def normalize_rows(psi: np.ndarray) -> np.ndarray:
    r"""Scale an embedding so that :math:`\max_x\|\Psi(x)\|_2=1` (Thm 5.6's :math:`\sup_x\|\Psi(x)\|_2\le1`, met
    with equality at the longest row). A zero embedding is refused.

    Parameters
    ----------
    psi : array (points, D)
        A finite embedding matrix, one row per point.

    Returns
    -------
    numpy.ndarray
        ``psi`` divided by its largest row norm.

    Examples
    --------
    >>> normalize_rows(np.array([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.2]]
    """
    psi = check_real_array(psi, "psi")
    if psi.ndim != 2 or not psi.size:
        raise InputError(
            f"an embedding must be a finite, non-empty (points, D) array, got shape {psi.shape}", param="psi"
        )
    top = float(np.sqrt((psi**2).sum(axis=1)).max())
    if not top > 0:
        raise InputError("the embedding is zero at every point", param="psi")
    return psi / top


def walsh_embedding(n: int, sets: Sequence[Sequence[int]]) -> np.ndarray:
    r"""The Walsh embedding :math:`\Psi(x)=(\chi_T(x))_{T\in\text{sets}}/\sqrt{|\text{sets}|}` over the points of
    :func:`numerics.walsh.cube` (every row has norm exactly 1).

    Parameters
    ----------
    n : int
        The dimension.
    sets : sequence of sequences of int
        The index sets T (subsets of ``0..n-1``), at least one.

    Returns
    -------
    numpy.ndarray
        The (2^n, len(sets)) embedding.

    Examples
    --------
    >>> walsh_embedding(2, [(0,), (1,)]).round(4).tolist()
    [[0.7071, 0.7071], [-0.7071, 0.7071], [0.7071, -0.7071], [-0.7071, -0.7071]]
    """
    if isinstance(sets, (str, bytes)) or not isinstance(sets, Sequence) or not len(sets):
        raise InputError(f"the Walsh embedding needs a non-empty sequence of sets, got {sets!r:.80}", param="sets")
    if any(isinstance(T, (str, bytes)) or not isinstance(T, (Sequence, np.ndarray)) for T in sets):
        raise InputError("each set must be a sequence of indices in 0..n-1", param="sets")
    cols = [characters(n, list(T)).astype(np.float64) for T in sets]
    return np.stack(cols, axis=1) / np.sqrt(len(sets))


def random_relu_embedding(n: int, D: int, seed: int) -> np.ndarray:
    r"""D random ReLU features :math:`\max(0, g_j^\top x/\sqrt n + b_j)`, :math:`g_j\sim N(0,I_n)`,
    :math:`b_j\sim N(0,1)`, over the cube, scaled by :func:`normalize_rows` (a fixed random-features model).

    Parameters
    ----------
    n : int
        The dimension.
    D : int
        The number of features.
    seed : int
        Seed of ``numpy``'s generator for g and b.

    Returns
    -------
    numpy.ndarray
        The (2^n, D) embedding, max row norm 1.

    Examples
    --------
    >>> psi = random_relu_embedding(3, 4, seed=0)
    >>> psi.shape, float(np.sqrt((psi**2).sum(axis=1)).max())
    ((8, 4), 1.0)
    """
    seed = check_seed(seed)
    D = check_count(D, "D")
    _check_entries(n, D, "D", D)
    X = cube(n).astype(np.float64)
    rng = np.random.default_rng(seed)
    G, b = rng.standard_normal((n, D)), rng.standard_normal(D)
    return normalize_rows(np.maximum(0.0, X @ G / np.sqrt(n) + b))


def ntk_embedding(n: int, width: int, seed: int) -> np.ndarray:
    r"""The tangent features of :math:`f(x)=\sum_{j\le m}a_j\,\mathrm{ReLU}(w_j^\top x/\sqrt n)/\sqrt m` at a Gaussian
    initialisation (:math:`a_j, w_{ji}\sim N(0,1)`): the gradient of f with respect to (a, W),
    :math:`(\mathrm{ReLU}(w_j^\top x/\sqrt n),\ a_j\mathbf 1[w_j^\top x>0]\,x/\sqrt n)_j/\sqrt m`, of dimension
    D = m(n+1), scaled by :func:`normalize_rows`. A linear model on these features is the network's linearisation
    around its initialisation (the neural tangent kernel regime of Thm 5.6).

    Parameters
    ----------
    n : int
        The dimension.
    width : int
        m, the hidden units.
    seed : int
        Seed of ``numpy``'s generator for a and W.

    Returns
    -------
    numpy.ndarray
        The (2^n, m (n+1)) embedding, max row norm 1.

    Examples
    --------
    >>> ntk_embedding(3, 2, seed=0).shape
    (8, 8)
    """
    seed = check_seed(seed)
    width = check_count(width, "width")
    _check_entries(n, width * (check_count(n, "n") + 1), "width", width)
    X = cube(n).astype(np.float64)
    rng = np.random.default_rng(seed)
    W, a = rng.standard_normal((n, width)), rng.standard_normal(width)
    z = X @ W / np.sqrt(n)
    first = np.maximum(0.0, z)
    second = ((z > 0) * a)[:, :, None] * X[:, None, :] / np.sqrt(n)
    return normalize_rows(np.concatenate([first, second.reshape(len(X), -1)], axis=1) / np.sqrt(width))


def zero_one_error(psi: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    r"""The 0-1 loss :math:`\Pr_x[\operatorname{sign}(\Psi(x)^\top w)\ne y_x]` over the rows (a zero output counts as
    an error: it has no sign).

    Parameters
    ----------
    psi : array (points, D)
        The embedding.
    y : array (points,)
        Labels in {-1, 1}.
    w : array (D,)
        The linear read-out.

    Returns
    -------
    float
        The fraction of points misclassified.

    Examples
    --------
    >>> zero_one_error(np.eye(2), np.array([1, -1]), np.array([1.0, 0.0]))
    0.5
    """
    psi, y, w = check_real_array(psi, "psi"), check_real_array(y, "y"), check_real_array(w, "w")
    if psi.ndim != 2 or y.shape != psi.shape[:1] or w.shape != psi.shape[1:] or not len(y):
        raise InputError(
            f"need psi (points, D), y (points,) and w (D,); got shapes {psi.shape}, {y.shape}, {w.shape}", param="psi"
        )
    out = psi @ w
    return float(np.mean(~(np.sign(out) == y)))


@dataclass(frozen=True)
class HingeBracket:
    """A certified value of the hinge program (P) for one parity: ``upper`` (P's objective at the solver's w,
    projected onto the ball) and ``lower`` (D's objective at the solver's dual, clipped into the box); both
    evaluated in numpy, so ``lower <= min (P) <= upper`` holds whatever the solver did. ``ball_residual`` and
    ``box_residual``: how far the raw solver points lay outside the ball and the box.

    Attributes
    ----------
    support : tuple of int
        The parity's k-set S.
    lower, upper : float
        The certified bracket of the program's value.
    ball_residual, box_residual : float
        Violations of the raw solver points (primal ball, dual box).
    solver : str
        The cvxpy solver that gave the points.

    Examples
    --------
    >>> HingeBracket((0, 1), 0.5, 0.5 + 1e-9, 0.0, 0.0, "CLARABEL").gap < 1e-8
    True
    """

    support: tuple[int, ...]
    lower: float
    upper: float
    ball_residual: float
    box_residual: float
    solver: str

    @property
    def gap(self) -> float:
        return self.upper - self.lower


@dataclass(frozen=True)
class ParitySweep:
    """The hinge program over every k-set: per parity its :class:`HingeBracket`; ``hardest`` is the parity with the
    largest certified lower bound (a rigorous lower bound on max_S min (P)).

    Attributes
    ----------
    n, k : int
        The parity family.
    R : float
        The norm budget.
    D : int
        The embedding dimension.
    brackets : tuple of HingeBracket
        One per k-set, in lexicographic order.
    seconds : float
        Wall time of the sweep.

    Examples
    --------
    >>> b = HingeBracket((0,), 0.2, 0.2, 0.0, 0.0, "CLARABEL"), HingeBracket((1,), 0.4, 0.4, 0.0, 0.0, "CLARABEL")
    >>> ParitySweep(2, 1, 1.0, 2, b, 0.0).hardest.support
    (1,)
    """

    n: int
    k: int
    R: float
    D: int
    brackets: tuple[HingeBracket, ...]
    seconds: float

    @property
    def max_lower(self) -> float:
        return max(b.lower for b in self.brackets)

    @property
    def max_upper(self) -> float:
        return max(b.upper for b in self.brackets)

    @property
    def max_gap(self) -> float:
        return max(b.gap for b in self.brackets)

    @property
    def hardest(self) -> HingeBracket:
        return max(self.brackets, key=lambda b: b.lower)


def _bracket(
    psi: np.ndarray, y: np.ndarray, R: float, w: np.ndarray, lam: np.ndarray
) -> tuple[float, float, float, float]:
    N = len(y)
    norm = float(np.linalg.norm(w))
    w_feas = w * min(1.0, R / norm) if norm > 0 else w
    upper = float(np.mean(np.maximum(0.0, 1.0 - y * (psi @ w_feas))))
    alpha_raw = N * lam
    alpha = np.clip(alpha_raw, 0.0, 1.0)
    lower = float(alpha.mean() - R * np.linalg.norm((alpha * y) @ psi) / N)
    # alpha = 1 is the proof's dual point (1 - R ||E[y Psi]||), exact where the hinge loss is linear in w
    lower = max(lower, float(1.0 - R * np.linalg.norm(y @ psi) / N))
    box = float(max(0.0, -alpha_raw.min(), alpha_raw.max() - 1.0))
    return lower, upper, max(0.0, norm - R), box


def hinge_over_parities(
    psi: np.ndarray,
    n: int,
    k: int,
    R: float,
    solvers: Sequence[str] = DEFAULT_SOLVERS,
    gap_tol: float = 1e-6,
) -> ParitySweep:
    r"""Solve the hinge program (P) (module doc) for every k-set S of [n], labels :math:`y=\chi_S`, and certify each
    by its numpy-evaluated bracket (width at most ``gap_tol``).

    Parameters
    ----------
    psi : array (2^n, D)
        The embedding over :func:`numerics.walsh.cube`, ``max_x ||psi(x)|| <= 1``.
    n, k : int
        The parity family, ``1 <= k <= n``.
    R : float
        The norm budget of w, > 0.
    solvers : sequence of str
        cvxpy solvers tried in order (Clarabel, SCS as the fallback).
    gap_tol : float
        The largest bracket width accepted as a certificate.

    Returns
    -------
    ParitySweep
        Every parity's certified bracket.

    Raises
    ------
    CertificateError
        If no solver returns ``optimal`` with a bracket narrower than ``gap_tol`` for some parity.

    Examples
    --------
    The degree-2 Walsh embedding on 4 bits (D = 6), R = 1: every parity's minimum is 1 - 1/sqrt(6).

    >>> sweep = hinge_over_parities(walsh_embedding(4, list(itertools.combinations(range(4), 2))), 4, 2, 1.0)
    >>> round(sweep.max_lower, 6), round(sweep.max_upper, 6), round(1 - 1 / 6**0.5, 6)
    (0.591752, 0.591752, 0.591752)
    """
    n, k = check_nk(n, k)
    psi = check_real_array(psi, "psi")
    if psi.ndim != 2 or n > 62 or psi.shape[0] != 2**n or not psi.shape[1]:
        raise InputError(f"psi must be a finite (2^n, D) array with n = {n:,}, got shape {psi.shape}", param="psi")
    if float(np.sqrt((psi**2).sum(axis=1)).max()) > 1 + 1e-12:
        raise InputError("Thm 5.6 needs sup_x ||psi(x)||_2 <= 1; scale it with normalize_rows", param="psi")
    if psi.size > MAX_PROGRAM_ENTRIES:
        raise LimitError(
            f"psi {psi.shape} has {psi.size:,} entries, above the limit {MAX_PROGRAM_ENTRIES:,} of the program",
            param="psi",
            value=psi.shape,
            limit=MAX_PROGRAM_ENTRIES,
            hint="use a smaller n or D",
        )
    R = check_real(R, "R", positive=True)
    gap_tol = check_real(gap_tol, "gap_tol", positive=True)
    import cvxpy as cp  # deferred: cvxpy is slow to import

    if isinstance(solvers, (str, bytes)) or not isinstance(solvers, Sequence) or not len(solvers):
        raise InputError(
            f"solvers must be a non-empty sequence of cvxpy solver names, got {solvers!r:.80}", param="solvers"
        )
    unknown = [s for s in solvers if not isinstance(s, str) or s not in cp.installed_solvers()]
    if unknown:
        raise InputError(
            f"solvers: {unknown!r:.80} not among the installed cvxpy solvers {cp.installed_solvers()}", param="solvers"
        )

    N, D = psi.shape
    w = cp.Variable(D)
    xi = cp.Variable(N, nonneg=True)
    y_par = cp.Parameter(N)
    margin = xi >= 1 - cp.multiply(y_par, psi @ w)
    problem = cp.Problem(cp.Minimize(cp.sum(xi) / N), [margin, cp.norm(w, 2) <= R])
    t0 = time.perf_counter()
    out = []
    for S in itertools.combinations(range(n), k):
        y = characters(n, list(S)).astype(np.float64)
        y_par.value = y
        attempts = []
        for name in solvers:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    problem.solve(solver=name, **DEFAULT_SOLVER_OPTIONS.get(name, {}))
            except Exception as exc:  # a solver failure of any kind: try the next one
                attempts.append(f"{name}: raised {type(exc).__name__}")
                continue
            if problem.status != "optimal" or w.value is None or margin.dual_value is None:
                attempts.append(f"{name}: status {problem.status!r}")
                continue
            lower, upper, ball, box = _bracket(psi, y, R, np.asarray(w.value), np.asarray(margin.dual_value))
            if not upper - lower <= gap_tol:
                attempts.append(f"{name}: bracket [{lower:.9g}, {upper:.9g}] wider than {gap_tol:g}")
                continue
            out.append(HingeBracket(tuple(S), lower, upper, ball, box, name))
            break
        else:
            raise CertificateError(f"hinge program for S = {S}: no certified solve; " + "; ".join(attempts))
    return ParitySweep(n, k, float(R), D, tuple(out), time.perf_counter() - t0)
