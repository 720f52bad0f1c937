r"""Float64 evaluation of the LSA / in-context regression theory (Shi Ch. 5, Sec. 5.3-5.4): the Eq. 5.1 forward
pass, a prompt sampler, Monte-Carlo estimates of the pretraining loss (Lemma 5.1) and of the noisy evaluation loss
(Thm 5.4.2) with standard errors, and a multi-start L-BFGS check of Thm 5.4.1 (``docs/lsa.md``).

Every MC function takes a ``seed`` and returns ``(mean, standard_error)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from theory._checks import InputError, LimitError, check_cost, check_positive_int, format_count
from theory._docstrings import fill_doc

from . import limits
from .limits import (
    MAX_MC_SAMPLES,
    MAX_MC_WORK,
    array_bytes,
    check_allocation,
    check_real,
    check_real_array,
    check_real_vector,
    check_rng,
)

__all__ = [
    "MAX_COUNT",
    "MAX_D",
    "MAX_LBFGS_STARTS",
    "MAX_LBFGS_WORK",
    "MAX_MC_SAMPLES",
    "MAX_MC_WORK",
    "LbfgsResult",
    "as_covariance",
    "check_count",
    "closed_form",
    "ell_tilde",
    "expanded_prediction",
    "gamma",
    "lbfgs_rank_r",
    "lsa_forward",
    "lsa_weights",
    "mc_eval_loss",
    "mc_pretrain_loss",
    "random_orthogonal",
    "sample_prompts",
    "thm542",
]

MAX_D = 2048
"""Largest dimension d of Lambda (and of :func:`random_orthogonal`): d x d eigendecompositions and products, about
10^10 flops."""

MAX_COUNT = 2**53
"""Largest number of in-context examples N, M: beyond 2^53 a float64 no longer holds N + 1 (and 1/N is lost next to
1)."""

MAX_LBFGS_STARTS = 10_000
"""Largest number of L-BFGS starts of :func:`lbfgs_rank_r` (as ``numerics.single_neuron.MAX_STARTS``)."""

MAX_LBFGS_WORK = 10**10
"""Largest ``n_starts d^3`` of :func:`lbfgs_rank_r` (each start runs up to 5000 iterations of d x d products)."""

#: Parameters and Returns sections shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "covariance": """Lam : array_like, shape (d, d)
    Covariance of x (symmetric PSD).
N : int
    Number of in-context examples, >= 1.""",
    "weights": """WPV, WKQ : np.ndarray, shape (d+1, d+1)
    The LSA weights.
Lam : array_like, shape (d, d)
    Covariance of x.""",
    "monte_carlo": """n_prompts : int
    Monte-Carlo sample size.
seed : int
    Seed of ``np.random.default_rng``.
chunk : int
    Prompts per batch.""",
    "returns_estimate": """Returns
-------
mean, se : float
    The estimate and its standard error.""",
}


def _check_d(d: int, name: str) -> None:
    check_cost(
        d,
        MAX_D,
        param=name,
        value=d,
        what="d x d eigendecompositions and products",
        hint="theory.lsa gives the closed forms exactly for small d",
    )


def _check_weights(WPV: object, WKQ: object) -> tuple[np.ndarray, np.ndarray]:
    """The LSA weights: finite square arrays of one shape (d+1, d+1), d >= 1."""
    WPV, WKQ = check_real_array(WPV, "WPV"), check_real_array(WKQ, "WKQ")
    for name, W in (("WPV", WPV), ("WKQ", WKQ)):
        if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 2:
            raise InputError(f"{name} must be a square (d+1, d+1) matrix with d >= 1, got shape {W.shape}", param=name)
    if WKQ.shape != WPV.shape:
        raise InputError(f"shapes do not match: W^PV {WPV.shape}, W^KQ {WKQ.shape}", param="WKQ")
    return WPV, WKQ


def _finite_result(x: np.ndarray | float, what: str, param: str | None = None) -> None:
    if not np.all(np.isfinite(x)):
        raise InputError(f"{what} overflows float64 (inputs too large); rescale them", param=param)


def as_covariance(Lam: np.ndarray) -> np.ndarray:
    """Validate Lambda (square, symmetric, PSD) as float64; ValueError otherwise (Shi Sec. 5.4).

    Parameters
    ----------
    Lam : array_like, shape (d, d)
        Candidate covariance of x (symmetry and PSD up to 1e-12 relative to its largest entry).

    Returns
    -------
    np.ndarray, shape (d, d)
        Lambda as float64.

    Examples
    --------
    >>> as_covariance([[2, 0], [0, 1]]).tolist()
    [[2.0, 0.0], [0.0, 1.0]]
    >>> as_covariance([[1, 0], [0, -1]])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Lambda must be positive semi-definite, got eigenvalues [-1.  1.]
    """
    if Lam is None or isinstance(Lam, (str, bytes, bool)):
        raise InputError(f"Lambda must be a non-empty square d x d matrix, got {Lam!r:.80}", param="Lam")
    try:
        L = np.asarray(Lam, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"Lambda must be a real d x d matrix, got {Lam!r:.80}", param="Lam") from None
    if L.ndim != 2 or L.shape[0] != L.shape[1] or L.shape[0] == 0:
        raise InputError(f"Lambda must be a non-empty square d x d matrix, got shape {L.shape}", param="Lam")
    _check_d(L.shape[0], "Lam")
    if not np.all(np.isfinite(L)):
        raise InputError("Lambda must be finite", param="Lam")
    scale = max(1.0, float(np.abs(L).max()))
    if scale > 1e150:  # its square (Gamma Lambda, the losses) would overflow float64
        raise InputError(
            f"Lambda has entries up to {scale:.3g}: above 1e150 its products overflow; rescale it", param="Lam"
        )
    if np.abs(L - L.T).max() > 1e-12 * scale:
        raise InputError("Lambda must be symmetric (it is the covariance of x, Shi Sec. 5.4)", param="Lam")
    if np.linalg.eigvalsh(L).min() < -1e-12 * scale:
        raise InputError(f"Lambda must be positive semi-definite, got eigenvalues {np.linalg.eigvalsh(L)}", param="Lam")
    return L


def check_count(N: int, name: str = "N") -> int:
    """A number of in-context examples (``N``, ``M``) as an int >= 1; ValueError otherwise.

    Parameters
    ----------
    N : int
        The count (an integral float such as ``5.0`` is accepted).
    name : str
        Its name in the error message.

    Returns
    -------
    int

    Examples
    --------
    >>> check_count(5), check_count(5.0)
    (5, 5)
    >>> check_count(0, "M")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: M must be an integer >= 1, got 0
    """
    try:
        ok = not isinstance(N, (bool, str)) and int(N) == N and N >= 1
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"{name} must be an integer >= 1, got {N!r:.80}", param=name)
    n = int(N)
    if n > MAX_COUNT:
        raise LimitError(
            f"{name} = {format_count(n)} is above the limit {name} <= 2^53: a float64 no longer holds {name} + 1; "
            "theory.lsa gives the exact values at any N",
            param=name,
            value=n,
            limit=MAX_COUNT,
            hint="theory.lsa gives the exact values at any N",
        )
    return n


def _check_int_range(value: object, name: str, lo: int, hi: int | None = None, what: str = "") -> int:
    """An integer ``lo <= value (<= hi)``; ValueError naming ``name`` and the range otherwise."""
    rng = f"in [{lo}, {hi}]" if hi is not None else f">= {lo}"
    try:
        v = check_positive_int(value, name, minimum=lo)
    except InputError:
        v = None
    if v is None or (hi is not None and v > hi):
        raise InputError(f"{name}{what} must be an integer {rng}, got {name} = {value!r:.80}", param=name)
    return v


def random_orthogonal(d: int, rng: np.random.Generator) -> np.ndarray:
    """Haar-random orthogonal matrix (QR of a Gaussian matrix with sign fix).

    Parameters
    ----------
    d : int
        Dimension.
    rng : np.random.Generator
        Source of the Gaussian matrix.

    Returns
    -------
    np.ndarray, shape (d, d)
        An orthogonal matrix.

    Examples
    --------
    >>> import numpy as np
    >>> Q = random_orthogonal(3, np.random.default_rng(0))
    >>> bool(np.allclose(Q.T @ Q, np.eye(3)))
    True
    """
    d = check_positive_int(d, "d", hypothesis="the dimension")
    _check_d(d, "d")
    rng = check_rng(rng)
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


@fill_doc(_DOC)
def gamma(Lam: np.ndarray, N: int) -> np.ndarray:
    """``Gamma = (1 + 1/N) Lambda + tr(Lambda)/N I`` (Lemma 5.1).

    Parameters
    ----------
    {{covariance}}

    Returns
    -------
    np.ndarray, shape (d, d)

    Examples
    --------
    Equal to the exact :func:`theory.lsa.gamma_matrix`:

    >>> import numpy as np
    >>> from theory.lsa import gamma_matrix
    >>> gamma(np.diag([2.0, 1.0]), 4).tolist()
    [[3.25, 0.0], [0.0, 2.0]]
    >>> gamma_matrix([[2, 0], [0, 1]], 4)
    Matrix([
    [13/4, 0],
    [   0, 2]])
    """
    L = as_covariance(Lam)
    N = check_count(N)
    return (1 + 1 / N) * L + np.trace(L) / N * np.eye(L.shape[0])


def closed_form(Lam: np.ndarray, N: int, r: int) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
    """Float version of Thm 5.4.1: returns ``(U*, v*, L_r, lam_desc, Q)``; eigenvalues descending.

    For Lambda = 0 (all T_i = 0) every U is optimal and ``v* = 0`` is returned (as in
    ``theory.lsa.optimal_rank_r``), never inf/NaN.

    Parameters
    ----------
    Lam : array_like, shape (d, d)
        Covariance of x (symmetric PSD).
    N : int
        Number of in-context examples in pretraining, >= 1.
    r : int
        Rank, in [0, d].

    Returns
    -------
    U : np.ndarray, shape (d, d)
        ``Q diag(v*) Q^T``.
    v : np.ndarray, shape (d,)
        ``v_i* = 1/T_i`` for ``i < r``, 0 beyond.
    L_r : float
        The optimal pretraining loss ``1/2 tr Lambda - 1/2 sum_{i<=r} lambda_i^2 / T_i``.
    lam_desc : np.ndarray, shape (d,)
        Eigenvalues of Lambda, descending.
    Q : np.ndarray, shape (d, d)
        The eigenvectors (columns), in the order of ``lam_desc``.

    Examples
    --------
    The loss and ``v*`` agree with the exact :func:`theory.lsa.optimal_rank_r`:

    >>> import numpy as np
    >>> from theory.lsa import optimal_rank_r
    >>> U, v, L_r, lam, Q = closed_form(np.diag([2.0, 1.0]), 4, 1)
    >>> opt = optimal_rank_r([[2, 0], [0, 1]], 4, 1)
    >>> opt.loss, opt.v
    (23/26, [4/13, 0])
    >>> abs(float(L_r) - float(opt.loss)) < 1e-15, bool(np.allclose(v, [4 / 13, 0]))
    (True, True)
    """
    L = as_covariance(Lam)
    N = check_count(N)
    d = L.shape[0]
    try:
        ok = not isinstance(r, (bool, str)) and int(r) == r and 0 <= r <= d
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"rank r must be an integer in [0, d = {d}], got {r!r:.80}", param="r")
    r = int(r)
    ev, Q = np.linalg.eigh(L)
    o = np.argsort(ev, kind="stable")[::-1]
    ev, Q = ev[o], Q[:, o]
    tr = ev.sum()
    T = (1 + 1 / N) * ev + tr / N
    positive = T > 0
    inv_T = np.divide(1.0, T, out=np.zeros_like(T), where=positive)
    v = np.where(np.arange(d) < r, inv_T, 0.0)
    U = Q @ np.diag(v) @ Q.T
    Lr = tr / 2 - 0.5 * float(np.sum((ev**2 * inv_T)[:r]))
    return U, v, Lr, ev, Q


@fill_doc(_DOC)
def ell_tilde(U: np.ndarray, u: float, Lam: np.ndarray, N: int) -> float:
    """Reduced loss of Lemma 5.1 (float).

    ``l~(U, u) = tr[1/2 u^2 Gamma Lambda U Lambda U^T - u Lambda^2 U^T]``.

    Parameters
    ----------
    U : array_like, shape (d, d)
        The key-query block ``W11^KQ``.
    u : float
        The projection-value entry ``w22^PV``.
    {{covariance}}

    Returns
    -------
    float

    Examples
    --------
    At the rank-1 optimum it equals the exact ``-1/2 sum lambda_i^2 / T_i`` of :func:`theory.lsa.optimal_rank_r`:

    >>> import numpy as np
    >>> from theory.lsa import optimal_rank_r
    >>> Lam = np.diag([2.0, 1.0])
    >>> U = closed_form(Lam, 4, 1)[0]
    >>> opt = optimal_rank_r([[2, 0], [0, 1]], 4, 1)
    >>> opt.reduced_loss
    -8/13
    >>> abs(ell_tilde(U, 1.0, Lam, 4) - float(opt.reduced_loss)) < 1e-15
    True
    """
    L = as_covariance(Lam)
    U = check_real_array(U, "U")
    if U.shape != L.shape:
        raise InputError(f"U must have shape {L.shape}, got {U.shape}", param="U")
    u = check_real(u, "u")
    G = gamma(L, N)
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(np.trace(0.5 * np.float64(u) ** 2 * G @ L @ U @ L @ U.T - u * L @ L @ U.T))
    _finite_result(value, "the reduced loss")
    return value


def thm542(lam: np.ndarray, N: int, r: int, M: int, sigma: float, c: np.ndarray) -> float:
    """Thm 5.4.2 in eigen-coordinates: ``lam`` descending, ``c = Q^T w``; unhalved loss, rho = M.

    ``lam`` are the eigenvalues of Lambda (finite, >= 0, descending), ``N, M >= 1`` the prompt lengths of
    training and evaluation, ``r`` in [0, d] the rank, ``sigma >= 0`` the label-noise std. A zero
    ``T_i = (N+1) lam_i + tr`` (Lambda = 0) gives ``v_i* = 0``, as in ``theory.lsa.noisy_eval_loss``.

    Parameters
    ----------
    lam : array_like, shape (d,)
        Eigenvalues of Lambda, descending.
    N : int
        Number of in-context examples in pretraining.
    r : int
        Rank of the optimum, in [0, d].
    M : int
        Number of in-context examples at evaluation (rho = M).
    sigma : float
        Label-noise standard deviation.
    c : array_like, shape (d,)
        The task vector in eigen-coordinates, ``Q^T w``.

    Returns
    -------
    float
        The evaluation loss ``E (y_hat - <w, x_q>)^2``.

    Examples
    --------
    Equal to the exact :func:`theory.lsa.noisy_eval_loss`:

    >>> import numpy as np
    >>> from sympy import Rational
    >>> from theory.lsa import noisy_eval_loss
    >>> exact = noisy_eval_loss([[2, 0], [0, 1]], 4, 1, 3, Rational(1, 2), [1, Rational(1, 2)])
    >>> exact
    753/676
    >>> abs(thm542(np.array([2.0, 1.0]), 4, 1, 3, 0.5, np.array([1.0, 0.5])) - float(exact)) < 1e-15
    True
    >>> thm542(np.array([1.0, 2.0]), 4, 1, 3, 0.5, np.array([1.0, 0.5]))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: lam must be the eigenvalues of Lambda in descending order (>= 0, non-increasing), got [1. 2.]
    """
    try:
        lam = np.asarray(lam, dtype=np.float64)
        c = np.asarray(c, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError("lam and c must be real vectors of the same length d", param="lam") from None
    if lam.ndim != 1 or lam.size == 0 or lam.shape != c.shape:
        raise InputError(
            f"lam and c must be vectors of the same length d >= 1, got {lam.shape} and {c.shape}", param="lam"
        )
    if not (np.all(np.isfinite(lam)) and np.all(np.isfinite(c))):
        raise InputError("lam and c must be finite", param="lam")
    scale = max(1.0, float(np.abs(lam).max()))
    if lam.min() < -1e-12 * scale or np.any(np.diff(lam) > 0):
        raise InputError(
            f"lam must be the eigenvalues of Lambda in descending order (>= 0, non-increasing), got {lam}", param="lam"
        )
    N = check_count(N)
    M = check_count(M, "M")
    d = len(lam)
    r = _check_int_range(r, "r", 0, d, " (rank)")
    sigma = check_real(sigma, "sigma", nonnegative=True)  # the label-noise std (Thm 5.4.2)
    tr = lam.sum()
    idx = np.arange(d) < r
    T = (N + 1) * lam + tr
    v = np.where(idx, np.divide(N, T, out=np.zeros_like(T), where=T > 0), 0.0)
    s = np.where(idx, c, 0.0)
    xi = np.where(idx, 0.0, c)
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(
            np.sum(s**2 * v**2 * lam**3) / M
            + (np.sum(c**2 * lam) + sigma**2) * np.sum(v**2 * lam**2) / M
            + np.sum(xi**2 * lam)
            + np.sum(s**2 * lam * (lam * v - 1) ** 2)
        )
    _finite_result(value, "the evaluation loss", "lam")
    return value


def lsa_weights(
    U: np.ndarray, u: float, p: np.ndarray | None = None, q: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 5.3 weights: ``W^PV = [[0, 0], [p^T, u]]``, ``W^KQ = [[U, 0], [q^T, 0]]`` (p = q = 0 by default).

    Parameters
    ----------
    U : array_like, shape (d, d)
        The block ``W11^KQ``.
    u : float
        The entry ``w22^PV``.
    p, q : array_like, shape (d,), optional
        The rows ``w21^PV`` and ``w21^KQ``; None = 0.

    Returns
    -------
    W^PV, W^KQ : np.ndarray, shape (d+1, d+1)

    Examples
    --------
    >>> import numpy as np
    >>> WPV, WKQ = lsa_weights(np.eye(2), 0.5, p=np.array([1.0, 2.0]))
    >>> WPV.tolist()
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 0.5]]
    >>> WKQ.tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
    """
    U = check_real_array(U, "U")
    if U.ndim != 2 or U.shape[0] != U.shape[1] or U.shape[0] == 0:
        raise InputError(f"U must be a non-empty square d x d matrix, got shape {U.shape}", param="U")
    d = U.shape[0]
    u = check_real(u, "u")
    for name, vec in (("p", p), ("q", q)):
        if vec is not None and check_real_array(vec, name).shape != (d,):
            raise InputError(f"{name} must be a vector of length d = {d}, got shape {np.shape(vec)}", param=name)
    WPV = np.zeros((d + 1, d + 1))
    WKQ = np.zeros((d + 1, d + 1))
    WPV[d, d] = u
    WKQ[:d, :d] = U
    if p is not None:
        WPV[d, :d] = p
    if q is not None:
        WKQ[d, :d] = q
    return WPV, WKQ


def lsa_forward(E: np.ndarray, WPV: np.ndarray, WKQ: np.ndarray, rho: float) -> np.ndarray:
    """Eq. 5.1: ``(E + W^PV E (E^T W^KQ E) / rho)[..., -1, -1]``; ``E`` of shape ``(B, d+1, n+1)``.

    Parameters
    ----------
    E : np.ndarray, shape (B, d+1, n+1)
        Prompts (the last column holds the query, with label slot 0).
    WPV, WKQ : np.ndarray, shape (d+1, d+1)
        The LSA weights.
    rho : float
        The normalisation (N in pretraining).

    Returns
    -------
    np.ndarray, shape (B,)
        The predictions ``y_hat``.

    Examples
    --------
    Agrees with the expanded form of Eq. 5.2 (:func:`expanded_prediction`):

    >>> import numpy as np
    >>> Lam = np.diag([2.0, 1.0])
    >>> E, y_q = sample_prompts(np.random.default_rng(0), 4, Lam, 3)
    >>> WPV, WKQ = lsa_weights(closed_form(Lam, 3, 2)[0], 1.0)
    >>> bool(np.allclose(lsa_forward(E, WPV, WKQ, 3), expanded_prediction(E, WPV, WKQ, 3)))
    True
    """
    E, WPV, WKQ, rho = _check_forward_args(E, WPV, WKQ, rho)
    # only entry (d+1, n+1) is needed: (W^PV[-1] E) . (E^T W^KQ E[:, -1])
    with np.errstate(over="ignore", invalid="ignore"):
        row = np.einsum("j,bjn->bn", WPV[-1], E)  # (B, n+1)
        col = np.einsum("bjn,bj->bn", E, E[:, :, -1] @ WKQ.T)  # (B, n+1)
        out = E[:, -1, -1] + np.einsum("bn,bn->b", row, col) / rho
    _finite_result(out, "the prediction")
    return out


def _check_forward_args(
    E: object, WPV: object, WKQ: object, rho: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    E = check_real_array(E, "E")
    WPV, WKQ = _check_weights(WPV, WKQ)
    if E.ndim != 3 or WPV.shape != (E.shape[1], E.shape[1]) or E.shape[2] < 1:
        raise InputError(f"shapes do not match: E {E.shape}, W^PV {WPV.shape}, W^KQ {WKQ.shape}", param="E")
    return E, WPV, WKQ, check_real(rho, "rho", positive=True)


def expanded_prediction(E: np.ndarray, WPV: np.ndarray, WKQ: np.ndarray, rho: float) -> np.ndarray:
    """The corrected Eq. 5.2 expanded (``docs/lsa.md``): ``(1/rho)[p^T S U x_q + (p^T s_xy)(q^T x_q) + u s_xy^T U x_q + u s_yy q^T x_q]``.

    Parameters
    ----------
    E : np.ndarray, shape (B, d+1, n+1)
        Prompts with query label slot 0.
    WPV, WKQ : np.ndarray, shape (d+1, d+1)
        Weights of the form of :func:`lsa_weights`.
    rho : float
        The normalisation.

    Returns
    -------
    np.ndarray, shape (B,)

    Examples
    --------
    With general ``p`` and ``q`` it still matches the forward pass of Eq. 5.1:

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> E, _ = sample_prompts(rng, 3, np.eye(2), 4)
    >>> WPV, WKQ = lsa_weights(rng.standard_normal((2, 2)), 0.7, p=rng.standard_normal(2), q=rng.standard_normal(2))
    >>> bool(np.allclose(expanded_prediction(E, WPV, WKQ, 4), lsa_forward(E, WPV, WKQ, 4)))
    True
    """
    E, WPV, WKQ, rho = _check_forward_args(E, WPV, WKQ, rho)
    d = WPV.shape[0] - 1
    p, u = WPV[d, :d], WPV[d, d]
    U, q = WKQ[:d, :d], WKQ[d, :d]
    X = E[:, :d, :]  # (B, d, n+1) includes x_q
    y = E[:, d, :-1]
    xq = E[:, :d, -1]
    S = np.einsum("bin,bjn->bij", X, X)
    sxy = np.einsum("bin,bn->bi", X[:, :, :-1], y)
    syy = np.sum(y**2, axis=1)
    Uxq = xq @ U.T
    qxq = xq @ q
    with np.errstate(over="ignore", invalid="ignore"):
        out = (
            np.einsum("i,bij,bj->b", p, S, Uxq) + (sxy @ p) * qxq + u * np.einsum("bi,bi->b", sxy, Uxq) + u * syy * qxq
        ) / rho
    _finite_result(out, "the prediction")
    return out


def sample_prompts(
    rng: np.random.Generator, B: int, Lam: np.ndarray, n: int, w: np.ndarray | None = None, sigma: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """B prompts ``E (B, d+1, n+1)`` with ``x ~ N(0, Lambda)``, ``w ~ N(0, I)`` (or the fixed ``w``), labels
    ``<w, x_i> + N(0, sigma^2)``, query label slot 0; returns ``(E, y_q)`` with the noise-free target
    ``y_q = <w, x_q>``.

    Parameters
    ----------
    rng : np.random.Generator
        Source of the draws.
    B : int
        Number of prompts, >= 0.
    Lam : array_like, shape (d, d)
        Covariance of x (symmetric PSD).
    n : int
        In-context examples per prompt, >= 0.
    w : array_like, shape (d,), optional
        A fixed task vector; None = a fresh ``w ~ N(0, I)`` per prompt.
    sigma : float
        Label-noise standard deviation, >= 0.

    Returns
    -------
    E : np.ndarray, shape (B, d+1, n+1)
    y_q : np.ndarray, shape (B,)

    Examples
    --------
    >>> import numpy as np
    >>> E, y_q = sample_prompts(np.random.default_rng(0), 2, np.eye(2), 3, w=np.array([1.0, -1.0]))
    >>> E.shape, y_q.shape, E[:, -1, -1].tolist()
    ((2, 3, 4), (2,), [0.0, 0.0])
    >>> bool(np.allclose(E[:, 2, :3], E[:, 0, :3] - E[:, 1, :3]))
    True
    """
    rng = check_rng(rng)
    L = as_covariance(Lam)
    d = L.shape[0]
    B = _check_int_range(B, "B", 0, what=" (number of prompts)")
    n = _check_int_range(n, "n", 0, what=" (number of in-context examples)")
    sigma = check_real(sigma, "sigma", nonnegative=True)  # the label-noise std (Thm 5.4.2)
    if w is not None:
        w = check_real_vector(w, "w", d)
    _check_prompt_memory(B, n, d, "B" if n <= B else "n")
    ev, Q = np.linalg.eigh(L)
    root = Q * np.sqrt(np.clip(ev, 0, None))
    X = rng.standard_normal((B, n + 1, d)) @ root.T
    W = rng.standard_normal((B, d)) if w is None else np.broadcast_to(np.asarray(w, dtype=np.float64), (B, d))
    y = np.einsum("bnd,bd->bn", X, W)
    E = np.zeros((B, d + 1, n + 1))
    E[:, :d, :] = X.transpose(0, 2, 1)
    E[:, d, :n] = y[:, :n] + sigma * rng.standard_normal((B, n))
    return E, y[:, n]


def _check_prompt_memory(B: int, n: int, d: int, param: str) -> None:
    """The prompts (B, n+1, d), E (B, d+1, n+1) and their temporaries in float64 (about 4 arrays of B (n+1)(d+1))."""
    nbytes = array_bytes(4 * B, n + 1, d + 1)
    value = B if param in ("B", "chunk") else n
    if nbytes > 2**70:  # beyond any machine (and beyond what numerics.limits.format_bytes can print)
        raise LimitError(
            f"{param} = {format_count(value)} is too large: the prompts need ~{format_count(nbytes)} bytes",
            param=param,
            value=value,
            limit=2**70,
        )
    check_allocation(
        nbytes,
        param=param,
        value=value,
        what=f"{format_count(B)} prompts of {format_count(n + 1)} examples in d = {d} (float64, with temporaries)",
        hint=f"use a smaller {param}",
    )


def _check_mc(n_prompts: int, chunk: int, length: int, length_name: str, d: int) -> tuple[int, int]:
    """The Monte-Carlo sizes, checked before any draw: ``n_prompts`` in [1, MAX_MC_SAMPLES], the work
    ``n_prompts (length + 1)(d + 1)`` at most MAX_MC_WORK (naming the prompt length when one prompt alone is too
    much), and one chunk of prompts against the available memory."""
    n_prompts = _check_int_range(n_prompts, "n_prompts", 1, what=" (Monte-Carlo sample size)")
    chunk = _check_int_range(chunk, "chunk", 1, what=" (prompts per batch)")
    check_cost(
        n_prompts,
        MAX_MC_SAMPLES,
        param="n_prompts",
        value=n_prompts,
        what="Monte-Carlo sample counts",
        hint="use a smaller n_prompts",
    )
    per_prompt = (length + 1) * (d + 1)
    single = 1000 * per_prompt > limits.max_mc_work()  # a thousand prompts of this length are already too much
    check_cost(
        n_prompts * per_prompt,
        limits.max_mc_work(),
        param=length_name if single else "n_prompts",
        value=length if single else n_prompts,
        what=f"the Monte-Carlo work (n_prompts ({length_name} + 1)(d + 1) float entries)",
        hint=f"use a smaller {length_name if single else 'n_prompts'}",
    )
    _check_prompt_memory(min(chunk, n_prompts), length, d, "chunk")
    return n_prompts, chunk


def _mc(fn: Callable[[int], np.ndarray], n_prompts: int, chunk: int) -> tuple[float, float]:
    s = s2 = 0.0
    done = 0
    while done < n_prompts:
        b = min(chunk, n_prompts - done)
        e = fn(b)
        s += float(e.sum())
        s2 += float((e**2).sum())
        done += b
    mean = s / n_prompts
    var = max(s2 / n_prompts - mean**2, 0.0)
    _finite_result(np.array([mean, s2]), "the Monte-Carlo loss")
    return mean, float(np.sqrt(var / n_prompts))


@fill_doc(_DOC)
def mc_pretrain_loss(
    WPV: np.ndarray, WKQ: np.ndarray, Lam: np.ndarray, N: int, n_prompts: int, seed: int, chunk: int = 50_000
) -> tuple[float, float]:
    """MC of the pretraining loss ``1/2 E (y_hat - <w, x_q>)^2`` (rho = N, w ~ N(0, I)): ``(mean, SE)``.

    Parameters
    ----------
    {{weights}}
    N : int
        In-context examples per prompt (and rho).
    {{monte_carlo}}

    {{returns_estimate}}

    Examples
    --------
    At the rank-1 optimum the estimate matches the exact loss ``L_1 = 23/26`` of
    :func:`theory.lsa.optimal_rank_r` within three standard errors:

    >>> import numpy as np
    >>> from theory.lsa import optimal_rank_r
    >>> Lam = np.diag([2.0, 1.0])
    >>> WPV, WKQ = lsa_weights(closed_form(Lam, 4, 1)[0], 1.0)
    >>> mean, se = mc_pretrain_loss(WPV, WKQ, Lam, 4, 20000, seed=0)
    >>> abs(mean - float(optimal_rank_r([[2, 0], [0, 1]], 4, 1).loss)) < 3 * se
    True
    """
    seed = limits.check_seed(seed)
    N = check_count(N)
    d = as_covariance(Lam).shape[0]
    WPV, WKQ = _check_weights(WPV, WKQ)
    if WPV.shape != (d + 1, d + 1):
        raise InputError(f"WPV and WKQ must be (d+1, d+1) = {(d + 1, d + 1)} for Lambda, got {WPV.shape}", param="WPV")
    n_prompts, chunk = _check_mc(n_prompts, chunk, N, "N", d)
    rng = np.random.default_rng(seed)

    def f(b: int) -> np.ndarray:
        E, yq = sample_prompts(rng, b, Lam, N)
        return 0.5 * (lsa_forward(E, WPV, WKQ, N) - yq) ** 2

    return _mc(f, n_prompts, chunk)


@fill_doc(_DOC)
def mc_eval_loss(
    WPV: np.ndarray,
    WKQ: np.ndarray,
    Lam: np.ndarray,
    M: int,
    w: np.ndarray,
    sigma: float,
    n_prompts: int,
    seed: int,
    chunk: int = 50_000,
) -> tuple[float, float]:
    """MC of Thm 5.4.2's loss ``E (y_hat - <w, x_q>)^2`` (unhalved, rho = M, fixed w, label noise sigma >= 0).

    Parameters
    ----------
    {{weights}}
    M : int
        In-context examples per evaluation prompt (and rho).
    w : array_like, shape (d,)
        The fixed task vector.
    sigma : float
        Label-noise standard deviation, >= 0.
    {{monte_carlo}}

    {{returns_estimate}}

    Examples
    --------
    Matches Thm 5.4.2 (:func:`thm542`, exact value 753/676) within three standard errors:

    >>> import numpy as np
    >>> Lam = np.diag([2.0, 1.0])
    >>> WPV, WKQ = lsa_weights(closed_form(Lam, 4, 1)[0], 1.0)
    >>> mean, se = mc_eval_loss(WPV, WKQ, Lam, 3, np.array([1.0, 0.5]), 0.5, 20000, seed=0)
    >>> abs(mean - 753 / 676) < 3 * se
    True
    """
    seed = limits.check_seed(seed)
    M = check_count(M, "M")
    d = as_covariance(Lam).shape[0]
    WPV, WKQ = _check_weights(WPV, WKQ)
    if WPV.shape != (d + 1, d + 1):
        raise InputError(f"WPV and WKQ must be (d+1, d+1) = {(d + 1, d + 1)} for Lambda, got {WPV.shape}", param="WPV")
    w = check_real_vector(w, "w", d)
    sigma = check_real(sigma, "sigma", nonnegative=True)  # the label-noise std (Thm 5.4.2)
    n_prompts, chunk = _check_mc(n_prompts, chunk, M, "M", d)
    rng = np.random.default_rng(seed)

    def f(b: int) -> np.ndarray:
        E, yq = sample_prompts(rng, b, Lam, M, w=w, sigma=sigma)
        return (lsa_forward(E, WPV, WKQ, M) - yq) ** 2

    return _mc(f, n_prompts, chunk)


@dataclass(frozen=True)
class LbfgsResult:
    """Best of the multi-start L-BFGS runs on ``l~(A B^T, 1)``: loss, the product ``A B^T``, all final losses.

    Attributes
    ----------
    loss : float
        The smallest final loss.
    U : np.ndarray, shape (d, d)
        ``A B^T`` of the best run.
    losses : np.ndarray, shape (n_starts,)
        The final loss of every start.
    converged : int
        Number of starts whose L-BFGS run reported success.

    Examples
    --------
    >>> import numpy as np
    >>> res = lbfgs_rank_r(np.diag([2.0, 1.0]), 4, 1, n_starts=3)
    >>> res.losses.shape, res.converged, res.U.shape
    ((3,), 3, (2, 2))
    """

    loss: float
    U: np.ndarray
    losses: np.ndarray
    converged: int


def lbfgs_rank_r(Lam: np.ndarray, N: int, r: int, n_starts: int = 20, seed: int = 0) -> LbfgsResult:
    """Multi-start L-BFGS on ``l~(A B^T, 1)`` with ``A, B in R^{d x r}`` (analytic gradients): the
    rank constraint of Thm 5.4.1 as a factorisation, minimised from ``n_starts`` random starts.

    Parameters
    ----------
    Lam : array_like, shape (d, d)
        Covariance of x (symmetric PSD).
    N : int
        Number of in-context examples in pretraining.
    r : int
        Rank, in [1, d].
    n_starts : int
        Number of random starts, >= 1.
    seed : int
        Seed of ``np.random.default_rng`` for the starts.

    Returns
    -------
    LbfgsResult

    Examples
    --------
    The search finds the closed-form rank-1 optimum of Thm 5.4.1 (:func:`theory.lsa.optimal_rank_r`):

    >>> import numpy as np
    >>> from theory.lsa import optimal_rank_r
    >>> res = lbfgs_rank_r(np.diag([2.0, 1.0]), 4, 1, n_starts=3)
    >>> opt = optimal_rank_r([[2, 0], [0, 1]], 4, 1)
    >>> abs(res.loss - float(opt.reduced_loss)) < 1e-9
    True
    >>> bool(np.allclose(res.U, np.array(opt.U, dtype=float), atol=1e-6))
    True
    """
    seed = limits.check_seed(seed)
    L = as_covariance(Lam)
    N = check_count(N)
    d = L.shape[0]
    r = _check_int_range(r, "r", 1, d, " (rank of A B^T)")
    n_starts = _check_int_range(n_starts, "n_starts", 1, what=" (number of L-BFGS starts)")
    check_cost(
        n_starts,
        MAX_LBFGS_STARTS,
        param="n_starts",
        value=n_starts,
        what="L-BFGS starts",
        hint="a few dozen starts find the optimum of Thm 5.4.1",
    )
    single = d**3 > MAX_LBFGS_WORK
    check_cost(
        n_starts * d**3,
        MAX_LBFGS_WORK,
        param="Lam" if single else "n_starts",
        value=d if single else n_starts,
        what="the multi-start search (n_starts d^3 per iteration)",
        hint="closed_form(Lam, N, r) gives the optimum of Thm 5.4.1 directly",
    )
    G = gamma(L, N)
    L2 = L @ L
    rng = np.random.default_rng(seed)

    def fg(z: np.ndarray) -> tuple[float, np.ndarray]:
        A = z[: d * r].reshape(d, r)
        B = z[d * r :].reshape(d, r)
        U = A @ B.T
        f = 0.5 * np.trace(G @ L @ U @ L @ U.T) - np.trace(L2 @ U.T)
        gU = G @ L @ U @ L - L2  # G, L symmetric and commuting
        return f, np.concatenate([(gU @ B).ravel(), (gU.T @ A).ravel()])

    best, losses, conv = None, [], 0
    for _ in range(n_starts):
        z0 = 0.5 * rng.standard_normal(2 * d * r)
        res = minimize(fg, z0, jac=True, method="L-BFGS-B", options={"maxiter": 5000, "gtol": 1e-12, "ftol": 1e-15})
        losses.append(res.fun)
        conv += bool(res.success)
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None  # n_starts >= 1 (checked above)
    A = best.x[: d * r].reshape(d, r)
    B = best.x[d * r :].reshape(d, r)
    return LbfgsResult(float(best.fun), A @ B.T, np.array(losses), conv)
