r"""Float64 evaluation of local signal adaptivity (Karp thesis Ch. 3 + App. B; ``docs/local_signal.md``): sampling
the signal-in-noise data, quadrature and scipy checks of the Gaussian facts, Monte Carlo with standard errors
(plain and importance-sampled) of the aligned CNN's error curve and logistic loss, the population-gradient
structure, and the finite-width CNTK's best linear classifier (hinge SVM and its dual in cvxpy).

Every Monte Carlo function takes a ``seed`` and returns estimates with standard errors.

Importance sampling of ``err(tau)`` (:func:`tail_sample`). For every ``tau >= tau_min`` only the noise values with
``|A| > tau_min`` enter ``sum_i S_tau(A_i)``, so a sample is stored sparsely: the number of exceedances is
``Binomial(k, q)``, ``q = 2 Phi^c(tau_min/sigma)``, and each exceedance is ``+-|A|`` with ``|A|`` drawn from the
Gaussian tail by inverse CDF: exact in distribution. The rare error event of the tail regime is one noise value
below about -1 (the signal's height). The proposal is the defensive mixture "nominal with probability alpha;
otherwise one of the k rows, chosen uniformly, is drawn from ``q~ = N(-mu, sigma^2)`` restricted to
``a < -tau_min``", whose likelihood ratio to the nominal law is ``alpha + (1 - alpha) (1/k) sum_j rho(A_j)`` with
``rho = q~/p`` (0 unless ``A_j < -tau_min``); the weights are its inverse, at most ``1/alpha``.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from scipy import integrate, optimize, special, stats

from numerics._quadrature import converged_quad
from theory import local_signal as tl
from theory._checks import InputError, check_cost, format_count
from theory._docstrings import fill_doc

from . import limits
from .limits import (
    MAX_MC_SAMPLES,
    MAX_MC_WORK,
    STEP_COST,
    array_bytes,
    check_allocation,
    check_mc,
    check_real,
    check_real_array,
    check_rng,
    rounding_atol,
)

__all__ = [
    "MAX_BOX_POINTS",
    "MAX_K",
    "MAX_MC_SAMPLES",
    "MAX_MC_WORK",
    "MAX_SVM_ENTRIES",
    "MAX_SVM_WORK",
    "GradientStructure",
    "KernelResult",
    "LemmaB12Event",
    "LemmaB12Probabilities",
    "LogisticOptimum",
    "SVMResult",
    "TailSample",
    "cnn_gradient_fd",
    "cnn_output",
    "cntk_features",
    "error_curve_fourier",
    "error_curve_mc",
    "gradient_structure_mc",
    "hinge_svm",
    "kernel_best_error",
    "lemma_b12_event_mc",
    "lemma_b12_event_probability",
    "lemma_b12_probabilities",
    "linear_classifier_mc",
    "logistic_optimum",
    "margins",
    "max_exceedance_mc",
    "mills_ratio",
    "regression_mc",
    "sample_inputs",
    "soft_threshold_moments_quad",
    "tail_sample",
    "truncated_moments_scipy",
]

MAX_K = 2**53
"""Largest number of noise rows k in the float64 formulas (beyond, k and k - 1 are the same float)."""

MAX_SVM_ENTRIES = 10**7
"""Largest feature matrix (n p entries) of one hinge SVM solved by cvxpy."""

MAX_SVM_WORK = 10**9
"""Largest total of the feature entries of every SVM of :func:`kernel_best_error` (inits x biases x n_train m d)."""

#: Parameters sections shared by several docstrings of this module and of :mod:`numerics.local_signal_dynamics`
#: (filled in by :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "rows": """k : int
    Number of noise rows, >= 2.
d : int
    Dimension of a row.""",
    "event_mc": """n : int
    Noise rows drawn, ``>= 2``.
seed : int
    Seed of ``np.random.default_rng``.
chunk : int
    Rows per batch.

Returns
-------
tuple of float
    ``(frequency, standard error)`` (the standard error at least ``1/n``).""",
    "b12_nodes": """nodes : int
    Gauss-Legendre points per dimension, ``>= 3``; the work grows as ``(1 + 2 nodes)^m``.

Returns
-------
LemmaB12Probabilities

Raises
------
ValueError""",
    "k": """k : int
    Number of noise rows, >= 2.""",
    "sigma": """sigma : float
    Noise standard deviation, > 0.""",
    "seed_chunk": """seed : int
    Seed of ``np.random.default_rng``.
chunk : int
    Samples per batch.""",
}


def _checked(check: Callable[..., object], value: object, name: str, *args: object) -> object:
    """A ``theory.local_signal`` check whose ValueError is re-raised as an InputError naming ``name``."""
    try:
        return check(value, *args)
    except InputError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(str(exc), param=name) from None


def _k(k: object, name: str = "k") -> int:
    if name == "k":
        kk = int(_checked(tl.check_k, k, name))  # type: ignore[call-overload]
    elif isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 2:
        raise InputError(f"{name} must be an integer >= 2, got {k!r:.80}", param=name)
    else:
        kk = int(k)
    check_cost(kk, MAX_K, param=name, value=kk, what="float64 integers", hint="the asymptotic forms of theory")
    return kk


def _d(d: object) -> int:
    return int(_checked(tl.check_d, d, "d"))  # type: ignore[call-overload]


def _sigma(sigma: object, name: str = "sigma") -> float:
    return float(_checked(tl.check_sigma, sigma, name))  # type: ignore[arg-type]


def _tau(tau: object, name: str = "tau") -> float:
    if isinstance(tau, bool):
        raise InputError(f"{name} must be a number in [0, 1), got {tau!r}", param=name)
    return float(_checked(tl.check_tau, tau, name))  # type: ignore[arg-type]


def _batch(n: object, name: str) -> int:
    return int(_checked(tl.check_batch, n, name, name))  # type: ignore[call-overload]


def _positive_int(value: object, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InputError(f"{name} ({what}) must be an integer >= 1, got {value!r:.80}", param=name)
    return int(value)


def _finite(x: object, what: str, param: str | None) -> None:
    if not np.all(np.isfinite(np.asarray(x, dtype=np.float64))):
        raise InputError(f"{what} overflows float64 (inputs too large); rescale them", param=param)


# --------------------------------------------------------------------------------------------------------------
# Data and the CNN


@fill_doc(_DOC)
def sample_inputs(
    rng: np.random.Generator, n: int, k: int, d: int, sigma: float, w_star: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` samples of Sec. 3.3: ``X (n, k+1, d)`` with the signal row ``y w_*`` at a uniform position and k noise
    rows ``N(0, sigma^2 I_d)``; ``y (n,)`` uniform in {-1, +1}. ``w_*`` defaults to ``1/sqrt(d)`` in every entry (the
    authors' code).

    Parameters
    ----------
    rng : np.random.Generator
        Source of the draws.
    n : int
        Number of samples.
    {{rows}}
    {{sigma}}
    w_star : np.ndarray, shape (d,), optional
        The signal direction.

    Returns
    -------
    X : np.ndarray, shape (n, k+1, d)
    y : np.ndarray, shape (n,)

    Examples
    --------
    Exactly one row of each sample is the signal ``y w_*``:

    >>> import numpy as np
    >>> X, y = sample_inputs(np.random.default_rng(0), 4, 3, 2, 0.5)
    >>> X.shape, y.tolist()
    ((4, 4, 2), [1.0, 1.0, 1.0, -1.0])
    >>> w_star = np.full(2, 1 / np.sqrt(2))
    >>> np.isclose(X, y[:, None, None] * w_star).all(axis=2).sum(axis=1).tolist()
    [1, 1, 1, 1]
    """
    rng = check_rng(rng)
    n = _batch(n, "n")
    k, d, sigma = _k(k), _d(d), _sigma(sigma)
    check_mc(n, "n", (k + 1) * d + 2, "n ((k+1) d + 2) draws", minimum=1, sizes={"k": k, "d": d})
    check_allocation(array_bytes(2 * n, k + 1, d), "n", n, f"{format_count(n)} samples ({k + 1}, {d}) in float64")
    w_star = np.full(d, 1 / np.sqrt(d)) if w_star is None else check_real_array(w_star, "w_star")
    if w_star.shape != (d,):
        raise InputError(f"w_star must be a vector of length d = {d}, got shape {w_star.shape}", param="w_star")
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    X = sigma * rng.standard_normal((n, k + 1, d))
    pos = rng.integers(0, k + 1, size=n)
    X[np.arange(n), pos] = y[:, None] * w_star[None, :]
    return X, y


def cnn_output(X: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """``f_{w,b}(X) = sum_i phi_b(<w, X_i>)`` for ``X (..., k+1, d)``.

    Parameters
    ----------
    X : np.ndarray, shape (..., k+1, d)
        Inputs.
    w : array_like, shape (d,)
        The filter.
    b : float
        The bias of ``phi_b(z) = ReLU(z + b) - ReLU(-z + b)``.

    Returns
    -------
    np.ndarray, shape (...)

    Examples
    --------
    With ``b < 0`` each row contributes its soft threshold ``sign(z)(|z| - |b|)_+``:

    >>> import numpy as np
    >>> X = np.array([[[1.0, 0.0], [0.0, -2.0], [0.1, 0.0]]])
    >>> cnn_output(X, np.array([1.0, 1.0]), -0.5).tolist()
    [-1.0]
    """
    X, w, b = _check_cnn_args(X, w, b)
    with np.errstate(over="ignore", invalid="ignore"):
        z = X @ w
        out = (np.maximum(z + b, 0) - np.maximum(-z + b, 0)).sum(-1)
    _finite(out, "the CNN output", "X")
    return out


def _check_cnn_args(X: object, w: object, b: object) -> tuple[np.ndarray, np.ndarray, float]:
    X, w = check_real_array(X, "X"), check_real_array(w, "w")
    if w.ndim != 1 or w.size < 1:
        raise InputError(f"w must be a vector of length d >= 1, got shape {w.shape}", param="w")
    if X.ndim < 2 or X.shape[-1] != w.size:
        raise InputError(f"X must be (..., k+1, d) with d = {w.size}, got shape {X.shape}", param="X")
    return X, w, check_real(b, "b")


def cnn_gradient_fd(X: np.ndarray, w: np.ndarray, b: float, h: float = 1e-7) -> np.ndarray:
    """``grad_w f_{w,b}(X)`` by central finite differences of :func:`cnn_output` (f is piecewise linear in w, so the
    differences are exact up to rounding unless a kink lies within ``h``).

    Parameters
    ----------
    X : np.ndarray, shape (k+1, d)
        One input.
    w : array_like, shape (d,)
        The filter.
    b : float
        The bias.
    h : float
        Finite-difference step.

    Returns
    -------
    np.ndarray, shape (d,)

    Examples
    --------
    Agrees with the closed form of App. B.2 (:func:`theory.local_signal.cnn_gradient`):

    >>> import numpy as np
    >>> from theory.local_signal import cnn_gradient
    >>> X = np.array([[1.0, 0.0], [0.0, -2.0], [0.1, 0.0]])
    >>> g = cnn_gradient_fd(X, np.array([1.0, 1.0]), -0.5)
    >>> g.round(6).tolist(), cnn_gradient(((1.0, 0.0), (0.0, -2.0), (0.1, 0.0)), (1.0, 1.0), -0.5)
    ([1.0, -2.0], [1.0, -2.0])
    """
    X, w, b = _check_cnn_args(X, w, b)
    h = check_real(h, "h", positive=True)
    eye = np.eye(w.size)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.array([(cnn_output(X, w + h * e, b) - cnn_output(X, w - h * e, b)) / (2 * h) for e in eye])
    _finite(out, "the finite differences", "h")
    return out


# --------------------------------------------------------------------------------------------------------------
# Gaussian facts, computed independently of theory/


@fill_doc(_DOC)
def soft_threshold_moments_quad(tau: float, sigma: float) -> tuple[float, float, float]:
    """``P[S != 0]``, ``E|S|``, ``E S^2`` of ``S = S_tau(A)``, ``A ~ N(0, sigma^2)``, by ``scipy.integrate.quad`` of
    the defining integrals ``2 int_tau^inf (a - tau)^j p(a) da`` (j = 0, 1, 2).

    Parameters
    ----------
    tau : float
        The threshold, >= 0.
    {{sigma}}

    Returns
    -------
    p_nonzero, mean_abs, second_moment : float

    Examples
    --------
    Agrees with the closed forms of :func:`theory.local_signal.soft_threshold_moments`:

    >>> import numpy as np
    >>> from theory.local_signal import soft_threshold_moments
    >>> quad = soft_threshold_moments_quad(0.5, 1.0)
    >>> [round(v, 9) for v in quad]
    [0.617075077, 0.395593115, 0.41927852]
    >>> bool(np.allclose(quad, soft_threshold_moments(0.5, 1.0), rtol=1e-10, atol=0))
    True
    """
    tau = check_real(tau, "tau", nonnegative=True)
    sigma = _sigma(sigma)
    pdf = stats.norm(scale=sigma).pdf

    def moment_density(j: int) -> Callable[[float], float]:
        return lambda a: float((a - tau) ** j * pdf(a))

    with np.errstate(over="ignore", under="ignore"):
        out = [
            2
            * converged_quad(
                moment_density(j),
                tau,
                np.inf,
                epsrel=1e-12,
                param="sigma",
                what=f"the moment {j} at tau = {tau:.3g}, sigma = {sigma:.3g}",
                hint="theory.local_signal.soft_threshold_moments gives the closed forms",
            )
            for j in (0, 1, 2)
        ]
    _finite(out, "the moments", "tau")
    return out[0], out[1], out[2]


def truncated_moments_scipy(alpha: float, s: float) -> tuple[float, float, float]:
    """Mean, variance and second moment of ``N(0, s^2)`` conditioned on ``Z >= alpha s`` (``scipy.stats.truncnorm``).

    Parameters
    ----------
    alpha : float
        The truncation point in units of ``s``.
    s : float
        Standard deviation, > 0.

    Returns
    -------
    mean, var, second_moment : float

    Examples
    --------
    Agrees with (B.1)-(B.3) (:func:`theory.local_signal.truncated_moments`):

    >>> import numpy as np
    >>> from theory.local_signal import truncated_moments
    >>> bool(np.allclose(truncated_moments_scipy(0.5, 2.0), truncated_moments(0.5, 2.0), rtol=1e-9, atol=0))
    True
    """
    alpha = check_real(alpha, "alpha")
    dist = stats.truncnorm(alpha, np.inf, scale=_sigma(s, "s"))
    with np.errstate(over="ignore", invalid="ignore"):
        mean, var = (float(v) for v in dist.stats(moments="mv"))
        out = (mean, var, var + mean**2)
    if not all(math.isfinite(v) for v in out) or var < 0:
        raise InputError(f"the truncated moments at alpha = {alpha:.3g} are beyond float64 accuracy", param="alpha")
    return out


def regression_mc(c: float, v: float, sigma: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slopes of ``cA`` and of ``vB`` on ``Z = cA + vB`` (A, B iid ``N(0, sigma^2)``, ``n`` samples)
    with their standard errors (B.4, B.5 predict ``c^2/(c^2+v^2)`` and ``v^2/(c^2+v^2)``).

    Parameters
    ----------
    c, v : float
        The coefficients of ``Z = cA + vB`` (finite, not both 0).
    sigma : float
        Standard deviation of A and B, > 0.
    n : int
        Number of samples, >= 2.
    seed : int
        Seed of ``np.random.default_rng``.

    Returns
    -------
    slopes, ses : np.ndarray, shape (2,)

    Examples
    --------
    Within three standard errors of :func:`theory.local_signal.regression_coefficients`:

    >>> import numpy as np
    >>> from theory.local_signal import regression_coefficients
    >>> slopes, ses = regression_mc(1.0, 2.0, 1.0, 10000, seed=0)
    >>> regression_coefficients(1, 2)
    (1/5, 4/5)
    >>> bool(np.all(np.abs(slopes - [0.2, 0.8]) < 3 * ses))
    True
    """
    seed = limits.check_seed(seed)
    n, sigma = _batch(n, "n"), _sigma(sigma)
    if n < 2:
        raise InputError(
            f"n (the number of samples) must be an integer >= 2 for a standard error, got n = {n}", param="n"
        )
    for name, value in (("c", c), ("v", v)):
        try:
            check_real(value, name)
        except InputError:
            raise InputError(
                f"(c, v) must be finite and not both 0 (Z = cA + vB would be degenerate), got ({c!r:.40}, {v!r:.40})",
                param=name,
            ) from None
    if c == 0 and v == 0:
        raise InputError(
            f"(c, v) must be finite and not both 0 (Z = cA + vB would be degenerate), got ({c!r}, {v!r})", param="c"
        )
    c, v = float(c), float(v)
    check_mc(n, "n", 12, "n x 12 (two draws and the sums)", minimum=1)
    check_allocation(array_bytes(8, n), "n", n, f"the {format_count(n)} samples and their products in float64")
    rng = np.random.default_rng(seed)
    A, B = sigma * rng.standard_normal((2, n))
    slopes, ses = [], []
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        Z = c * A + v * B
        for target in (c * A, v * B):
            beta = float(Z @ target / (Z @ Z))
            resid = target - beta * Z
            ses.append(float(np.sqrt(resid @ resid / (n - 1) / (Z @ Z))))
            slopes.append(beta)
    _finite(slopes + ses, "the regression", "c" if abs(c) >= abs(v) else "v")
    return np.array(slopes), np.array(ses)


def mills_ratio(x: np.ndarray | float) -> np.ndarray:
    """``Phi^c(x)/phi(x) = sqrt(pi/2) erfcx(x/sqrt 2)`` (scipy's scaled complementary error function).

    Parameters
    ----------
    x : float or np.ndarray
        Points.

    Returns
    -------
    np.ndarray
        The Mills ratio at ``x`` (0-d for a scalar).

    Examples
    --------
    ``sqrt(pi/2)`` at 0, and the 30-digit values of :func:`theory.local_signal.mills_ratio`:

    >>> import numpy as np
    >>> from theory.local_signal import mills_ratio as mills_exact
    >>> round(float(mills_ratio(0.0)), 12)
    1.253314137316
    >>> bool(np.allclose(mills_ratio([1.0, 10.0]), [mills_exact(1.0), mills_exact(10.0)], rtol=1e-13, atol=0))
    True
    """
    x = check_real_array(x, "x")
    with np.errstate(over="ignore"):
        out = np.sqrt(np.pi / 2) * special.erfcx(x / np.sqrt(2))
    if not np.all(np.isfinite(out)):
        raise InputError("the Mills ratio overflows float64 below x = -37.5 (it grows like exp(x^2/2))", param="x")
    return out


def max_exceedance_mc(
    n_vars: int, n_samples: int, seed: int, sigma: float = 1.0, chunk: int = 20_000
) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo ``P[max_j X_j >= t]`` and ``P[max_j |X_j| >= t]``, ``t = 2 sigma sqrt(log n)``, for ``n_vars`` iid
    ``N(0, sigma^2)`` (Lemmas B.1, B.2); returns estimates and standard errors (the SE uses ``max(p_hat, 1/N)`` so a
    count of 0 keeps a positive SE).

    Parameters
    ----------
    n_vars : int
        Number of variables n, >= 2.
    n_samples : int
        Monte-Carlo sample size.
    seed : int
        Seed of ``np.random.default_rng``.
    sigma : float
        Standard deviation.
    chunk : int
        Samples per batch.

    Returns
    -------
    p, se : np.ndarray, shape (2,)
        For ``max X_j`` and ``max |X_j|``.

    Examples
    --------
    Within three standard errors of the exact :func:`theory.local_signal.max_exceedance`, and below the union bounds
    1/n and 2/n:

    >>> import numpy as np
    >>> from theory.local_signal import max_exceedance
    >>> p, se = max_exceedance_mc(10, 20000, seed=0)
    >>> exact = [max_exceedance(10), max_exceedance(10, absolute=True)]
    >>> bool(np.all(np.abs(p - exact) < 3 * se)), bool(np.all(p < [0.1, 0.2]))
    (True, True)
    """
    seed = limits.check_seed(seed)
    n_vars, n_samples = _k(n_vars, "n_vars"), _batch(n_samples, "n_samples")
    sigma = _sigma(sigma)
    chunk = _positive_int(chunk, "chunk", "samples per batch")
    check_mc(n_samples, "n_samples", 4 * n_vars, "n_samples x 4 n_vars", minimum=1, sizes={"n_vars": n_vars})
    check_allocation(
        array_bytes(3 * min(chunk, n_samples), n_vars), "chunk", chunk, "one chunk of draws (chunk, n_vars)"
    )
    rng = np.random.default_rng(seed)
    t = 2 * sigma * np.sqrt(np.log(n_vars))
    hits = np.zeros(2)
    done = 0
    while done < n_samples:
        m = min(chunk, n_samples - done)
        X = sigma * rng.standard_normal((m, n_vars))
        hits += [(X.max(1) >= t).sum(), (np.abs(X).max(1) >= t).sum()]
        done += m
    p = hits / n_samples
    return p, np.sqrt(np.maximum(p, 1 / n_samples) * (1 - p) / n_samples)


@fill_doc(_DOC)
def linear_classifier_mc(k: int, d: int, n: int, seed: int, chunk: int = 2000) -> tuple[float, float]:
    """Monte Carlo error of ``l(X) = sum_i <w_*, X_i>`` on full d-dimensional samples (Sec. 3.3), with its SE;
    ``sigma = log k / sqrt k``.

    Parameters
    ----------
    {{rows}}
    n : int
        Monte-Carlo sample size.
    {{seed_chunk}}

    Returns
    -------
    error, se : float

    Examples
    --------
    Within three standard errors of ``Phi(-1/log k)`` (:func:`theory.local_signal.linear_classifier_error`):

    >>> from theory.local_signal import linear_classifier_error
    >>> err, se = linear_classifier_mc(16, 3, 20000, seed=0)
    >>> abs(err - linear_classifier_error(16)) < 3 * se
    True
    """
    seed = limits.check_seed(seed)
    k, d, n = _k(k), _d(d), _batch(n, "n")
    chunk = _positive_int(chunk, "chunk", "samples per batch")
    check_mc(n, "n", 2 * (k + 1) * d + 4, "n (2 (k+1) d + 4)", minimum=1, sizes={"k": k, "d": d})
    check_allocation(
        array_bytes(3 * min(chunk, n), k + 1, d), "chunk", chunk, f"one chunk of samples (chunk, {k + 1}, {d})"
    )
    sigma = tl.noise_sigma(k)
    rng = np.random.default_rng(seed)
    w_star = np.full(d, 1 / np.sqrt(d))
    wrong, done = 0, 0
    while done < n:
        m = min(chunk, n - done)
        X, y = sample_inputs(rng, m, k, d, sigma, w_star)
        wrong += int((y * (X @ w_star).sum(1) <= 0).sum())
        done += m
    p = wrong / n
    return p, float(np.sqrt(p * (1 - p) / n))


# --------------------------------------------------------------------------------------------------------------
# err(tau) and the logistic loss of the aligned CNN: Fourier inversion with scipy, (importance-sampled) Monte Carlo


@fill_doc(_DOC)
def error_curve_fourier(k: int, tau: float, sigma: float) -> float:
    """``err(tau)`` by Gil-Pelaez inversion with scipy (``special.wofz`` and QUADPACK's Fourier integral QAWF), an
    implementation independent of :func:`theory.local_signal.error_curve` (same decomposition: the single-row term
    ``k p0^(k-1) Phi^c(1/sigma)`` in closed form, the rest by the integral of ``sin(t x) R(t)/t``).

    Parameters
    ----------
    {{k}}
    tau : float
        The threshold, in [0, 1).
    {{sigma}}

    Returns
    -------
    float

    Examples
    --------
    >>> from theory.local_signal import error_curve
    >>> round(error_curve_fourier(16, 0.5, 0.5), 6)
    0.245072
    >>> abs(error_curve_fourier(16, 0.5, 0.5) - error_curve(16, 0.5, 0.5)) < 1e-9
    True
    """
    k, tau, sigma = _k(k), _tau(tau), _sigma(sigma)
    x, a = 1.0 - tau, tau / sigma
    p0 = float(special.erf(a / np.sqrt(2)))
    p0k1 = p0 ** (k - 1)

    def R(t: float) -> float:
        psi = p0 + np.exp(-a * a / 2) * special.wofz((sigma * t + 1j * a) / np.sqrt(2)).real
        u = psi - p0
        if p0 > 0 and abs(k * u) < 0.05 * p0:
            j = np.arange(2, 40)
            logc = special.gammaln(k + 1) - special.gammaln(j + 1) - special.gammaln(k - j + 1)
            return float(p0**k * np.sum(np.exp(logc) * (u / p0) ** j))
        return psi**k - p0k1 * p0 - k * p0k1 * u

    head, _ = integrate.quad(lambda t: R(t) / t if t > 0 else 0.0, 0, 1.0, weight="sin", wvar=x, limit=400)
    tail, _ = integrate.quad(lambda t: R(t) / t, 1.0, np.inf, weight="sin", wvar=x, limlst=200)
    mass = 1.0 - p0k1 * p0 - k * p0k1 * (1.0 - p0)
    value = k * p0k1 * float(special.ndtr(-1.0 / sigma)) + 0.5 * mass - (head + tail) / np.pi
    _finite(value, "the Fourier inversion", "sigma")
    return value


@dataclass(frozen=True)
class TailSample:
    """A sparse sample of ``n`` draws of ``(A_1..A_k)``: the values with ``|A| > tau_min`` (``values``) and the draw
    each belongs to (``owner``), with the importance weights of the draws (all 1 without importance sampling).

    Attributes
    ----------
    k : int
        Number of noise rows per draw.
    sigma : float
        Noise standard deviation.
    tau_min : float
        The smallest threshold the sample serves.
    n : int
        Number of draws.
    values : np.ndarray, shape (M,)
        The noise values with ``|A| > tau_min``, of all draws.
    owner : np.ndarray of int, shape (M,)
        The draw of each value.
    weights : np.ndarray, shape (n,)
        Importance weights (at most ``1/alpha``).
    importance : bool
        Whether the defensive mixture proposal was used.
    params : dict
        ``shift`` and ``defensive`` of the proposal.

    Examples
    --------
    >>> s = tail_sample(16, 0.5, 0.3, 1000, seed=0)
    >>> s.n, s.weights.shape, bool(abs(s.values).min() > 0.3), bool(s.weights.max() <= 1 / 0.2)
    (1000, (1000,), True, True)
    """

    k: int
    sigma: float
    tau_min: float
    n: int
    values: np.ndarray
    owner: np.ndarray
    weights: np.ndarray
    importance: bool
    params: dict = field(default_factory=dict)


def _tail_magnitudes(rng: np.random.Generator, m: int, a_min: float, sigma: float) -> np.ndarray:
    """``m`` draws of ``|A|`` given ``|A| > sigma a_min`` (inverse CDF in the upper tail)."""
    return -sigma * special.ndtri((1.0 - rng.random(m)) * special.ndtr(-a_min))  # 1 - U in (0, 1]: finite


@fill_doc(_DOC)
def tail_sample(
    k: int,
    sigma: float,
    tau_min: float,
    n: int,
    seed: int,
    *,
    importance: bool = True,
    shift: float = 1.0,
    defensive: float = 0.2,
) -> TailSample:
    """Draw ``n`` samples of the k noise projections, exactly in distribution for every ``S_tau``, ``tau >= tau_min``
    (see the module docstring), with the defensive mixture proposal (``shift`` = mu, ``defensive`` = alpha) when
    ``importance``. ``tau_min`` must lie in (0, 1).

    Parameters
    ----------
    {{k}}
    {{sigma}}
    tau_min : float
        Smallest threshold to serve, in (0, 1).
    n : int
        Number of draws.
    seed : int
        Seed of ``np.random.default_rng``.
    importance : bool
        Use the defensive mixture proposal.
    shift : float
        The mean shift mu of the special row.
    defensive : float
        The nominal share alpha, in (0, 1].

    Returns
    -------
    TailSample

    Examples
    --------
    Without importance sampling the weights are 1 and the number of stored values is ``Binomial(k n, q)``,
    ``q = 2 Phi^c(tau_min/sigma)``:

    >>> from scipy.special import ndtr
    >>> s = tail_sample(16, 0.5, 0.3, 4000, seed=0, importance=False)
    >>> bool((s.weights == 1).all())
    True
    >>> q = 2 * ndtr(-0.3 / 0.5)
    >>> bool(abs(s.values.size / (16 * 4000) - q) < 0.01)
    True
    >>> tail_sample(16, 0.5, 1.0, 10, seed=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: tau_min must lie in (0, 1) for the sparse sampler, got 1.0
    """
    seed = limits.check_seed(seed)
    importance = limits.check_bool(importance, "importance")
    k, n, sigma = _k(k), _batch(n, "n"), _sigma(sigma)
    if isinstance(tau_min, bool) or not isinstance(tau_min, numbers.Real) or not 0 < tau_min < 1:
        raise InputError(f"tau_min must lie in (0, 1) for the sparse sampler, got {tau_min!r:.80}", param="tau_min")
    if isinstance(defensive, bool) or not isinstance(defensive, numbers.Real) or not 0 < defensive <= 1:
        raise InputError(
            f"defensive (the nominal share alpha) must lie in (0, 1], got {defensive!r:.80}", param="defensive"
        )
    tau_min, defensive = float(tau_min), float(defensive)
    shift = check_real(shift, "shift")
    a_min = tau_min / sigma
    q = 2 * special.ndtr(-a_min)
    per_draw = 4 + 6 * math.ceil(k * q)  # the draw, its count, and ~6 floats per stored tail value
    check_mc(n, "n", per_draw, "n (4 + 6 k q) for the stored tail values", minimum=1, sizes={"k": k})
    check_allocation(array_bytes(n, per_draw), "n", n, f"{format_count(n)} draws with their tail values")
    rng = np.random.default_rng(seed)
    special_row = (rng.random(n) >= defensive) if importance else np.zeros(n, dtype=bool)
    counts = rng.binomial(k - special_row.astype(np.int64), q)
    owner = np.repeat(np.arange(n), counts)
    values = _tail_magnitudes(rng, owner.size, a_min, sigma) * (2.0 * rng.integers(0, 2, owner.size) - 1.0)
    if importance:
        # the special rows: N(-shift, sigma^2) restricted to a < -tau_min, by inverse CDF
        m = int(special_row.sum())
        lo = special.ndtr((shift - tau_min) / sigma)
        if not lo > 0:
            raise InputError(
                f"shift = {shift:.3g} leaves no mass below -tau_min for the special row (Phi((shift - tau_min)/sigma) "
                "= 0)",
                param="shift",
            )
        special_vals = -shift + sigma * special.ndtri((1.0 - rng.random(m)) * lo)
        values = np.concatenate([values, special_vals])
        owner = np.concatenate([owner, np.flatnonzero(special_row)])
        # likelihood ratio rho(a) = q~(a)/p(a) on a < -tau_min
        neg = values < -tau_min
        rho = np.zeros_like(values)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            rho[neg] = np.exp(-(2 * values[neg] * shift + shift**2) / (2 * sigma**2)) / lo
        with np.errstate(over="ignore", invalid="ignore"):
            weights = 1.0 / (defensive + (1 - defensive) * np.bincount(owner, weights=rho, minlength=n) / k)
        if not (np.all(np.isfinite(values)) and np.all(np.isfinite(weights))):
            raise InputError(f"shift = {shift:.3g} makes the importance weights overflow float64", param="shift")
    else:
        weights = np.ones(n)
    return TailSample(
        k, sigma, tau_min, n, values, owner, weights, importance, {"shift": shift, "defensive": defensive}
    )


def margins(sample: TailSample, tau: float) -> np.ndarray:
    """``(1 - tau) + sum_i S_tau(A_i)`` per draw: ``y f / c`` of the CNN with ``w = c w_*``, ``b = -tau c``.

    Parameters
    ----------
    sample : TailSample
        The draws.
    tau : float
        The threshold, at least ``sample.tau_min``.

    Returns
    -------
    np.ndarray, shape (sample.n,)

    Examples
    --------
    A draw without values above ``tau`` has margin ``1 - tau``:

    >>> import numpy as np
    >>> s = tail_sample(4, 0.2, 0.5, 1000, seed=0, importance=False)
    >>> m = margins(s, 0.6)
    >>> quiet = np.setdiff1d(np.arange(s.n), s.owner[np.abs(s.values) > 0.6])
    >>> m.shape, quiet.size > 0, bool(np.allclose(m[quiet], 0.4))
    ((1000,), True, True)
    >>> margins(s, 0.4)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: tau = 0.4 is below the sample's tau_min = 0.5
    """
    if not isinstance(sample, TailSample):
        raise InputError(f"sample must be a TailSample (from tail_sample), got {sample!r:.80}", param="sample")
    tau = _tau(tau)
    if tau < sample.tau_min:
        raise InputError(f"tau = {tau} is below the sample's tau_min = {sample.tau_min}", param="tau")
    v = sample.values
    s = np.where(v > tau, v - tau, 0.0) + np.where(v < -tau, v + tau, 0.0)
    return (1 - tau) + np.bincount(sample.owner, weights=s, minlength=sample.n)


def error_curve_mc(sample: TailSample, taus: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Estimates of ``err(tau) = P[margin <= 0]`` for every tau (common random numbers) and their SEs.

    Parameters
    ----------
    sample : TailSample
        The draws.
    taus : sequence of float
        Thresholds, each at least ``sample.tau_min``.

    Returns
    -------
    estimates, ses : np.ndarray, shape (len(taus),)

    Examples
    --------
    Within three standard errors of the Fourier inversion :func:`theory.local_signal.error_curve`:

    >>> import numpy as np
    >>> from theory.local_signal import error_curve, noise_sigma
    >>> s = tail_sample(16, noise_sigma(16), 0.3, 20000, seed=0)
    >>> est, se = error_curve_mc(s, [0.5, 0.8])
    >>> bool(np.all(np.abs(est - [error_curve(16, 0.5), error_curve(16, 0.8)]) < 3 * se))
    True
    """
    if not isinstance(sample, TailSample):
        raise InputError(f"sample must be a TailSample (from tail_sample), got {sample!r:.80}", param="sample")
    if isinstance(taus, (str, bytes)) or not isinstance(taus, Sequence | np.ndarray):
        raise InputError(f"taus must be a sequence of thresholds, got {taus!r:.80}", param="taus")
    if sample.n < 2:
        raise InputError(f"the sample has n = {sample.n} draw: a standard error needs two", param="sample")
    for tau in taus:  # every threshold is checked before any work
        if _tau(tau, "taus") < sample.tau_min:
            raise InputError(f"taus: tau = {tau} is below the sample's tau_min = {sample.tau_min}", param="taus")
    est, se = [], []
    for tau in taus:
        x = sample.weights * (margins(sample, tau) <= 0)
        est.append(x.mean())
        se.append(x.std(ddof=1) / np.sqrt(sample.n))
    return np.array(est), np.array(se)


def _logistic_at(m: np.ndarray, wts: np.ndarray) -> tuple[float, float]:
    """``min_c mean(w log(1 + exp(-c m)))`` over c > 0 (convex in c): returns (c*, loss)."""

    def loss(logc: float) -> float:
        return float(np.mean(wts * np.logaddexp(0.0, -np.exp(logc) * m)))

    res = optimize.minimize_scalar(loss, bounds=(-3.0, 8.0), method="bounded", options={"xatol": 1e-6})
    return float(np.exp(res.x)), float(res.fun)


@dataclass(frozen=True)
class LogisticOptimum:
    """The logistic population optimum over ``w = c w_*``, ``b = -tau c``: per batch (independent IS samples) the
    minimiser on a tau grid refined by a parabola; the means and their standard errors over batches.

    Attributes
    ----------
    c, tau, b : float
        The optimal scale, threshold and bias ``b = -tau c`` (means over batches).
    loss : float
        The logistic loss there.
    error : float
        The 0-1 error there.
    se : dict of str to float
        Standard errors of the five means over batches.
    per_batch : list of dict
        The values of every batch.

    Examples
    --------
    >>> from theory.local_signal import noise_sigma
    >>> opt = logistic_optimum(16, noise_sigma(16), [0.3, 0.5, 0.7, 0.9], 2000, 3, seed=0)
    >>> len(opt.per_batch), sorted(opt.se)
    (3, ['b', 'c', 'error', 'loss', 'tau'])
    """

    c: float
    tau: float
    b: float
    loss: float
    error: float
    se: dict[str, float]
    per_batch: list[dict[str, float]]


@fill_doc(_DOC)
def logistic_optimum(
    k: int,
    sigma: float,
    taus: Sequence[float],
    n: int,
    batches: int,
    seed: int,
) -> LogisticOptimum:
    """``(c*, b*) = argmin E log(1 + exp(-y f))`` over the aligned filters (docs/local_signal.md): for each of
    ``batches`` importance samples of size ``n`` (seeds ``seed + j``), the loss minimised over c at every tau of the
    grid, the best tau refined by a parabola through its neighbours, and the 0-1 error there.

    Parameters
    ----------
    {{k}}
    {{sigma}}
    taus : sequence of float
        The threshold grid (at least 3 values in (0, 1)).
    n : int
        Draws per batch.
    batches : int
        Number of independent batches, >= 2.
    seed : int
        Seed of the first batch.

    Returns
    -------
    LogisticOptimum

    Examples
    --------
    >>> from theory.local_signal import noise_sigma
    >>> opt = logistic_optimum(16, noise_sigma(16), [0.3, 0.5, 0.7, 0.9], 2000, 3, seed=0)
    >>> 0.3 <= opt.tau <= 0.9, opt.c > 0, 0 < opt.error < 0.5
    (True, True, True)
    """
    k, n, sigma = _k(k), _batch(n, "n"), _sigma(sigma)
    if isinstance(taus, (str, bytes)) or not isinstance(taus, Sequence | np.ndarray) or len(taus) < 3:
        raise InputError(f"taus must hold at least 3 thresholds in (0, 1), got {taus!r:.80}", param="taus")
    grid = np.asarray(sorted(_tau(t, "taus") for t in taus), dtype=np.float64)
    if grid[0] <= 0:
        raise InputError(f"taus must lie in (0, 1) (the sparse sampler needs tau_min > 0), got {grid[0]}", param="taus")
    if isinstance(batches, bool) or not isinstance(batches, numbers.Integral) or batches < 2:
        raise InputError(
            f"batches must be an integer >= 2 (the standard errors are over batches), got {batches!r:.80}",
            param="batches",
        )
    batches = int(batches)
    seed = limits.check_seed(seed, why="batch j uses seed + j")
    q = 2 * special.ndtr(-grid[0] / sigma)
    per_draw = 5 + 6 * math.ceil(k * q) + 40 * (len(grid) + 1)  # the sample, then ~40 loss evaluations per tau
    check_cost(n, MAX_MC_SAMPLES, param="n", value=n, what="Monte-Carlo sample counts", hint="use a smaller n")
    single = n * per_draw > limits.max_mc_work()
    check_cost(
        batches * n * per_draw,
        limits.max_mc_work(),
        param="n" if single else "batches",
        value=n if single else batches,
        what=f"the Monte-Carlo work (batches x n x (6 k q + 40 loss evaluations per tau) = {format_count(batches)} x "
        f"{format_count(n)} x {format_count(per_draw)} float entries)",
        hint="use a smaller n" if single else "use fewer batches",
    )
    rows = []
    for j in range(batches):
        sample = tail_sample(k, sigma, float(grid[0]), n, seed + j)
        best = [_logistic_at(margins(sample, t), sample.weights) for t in grid]
        losses = np.array([b[1] for b in best])
        i = int(np.clip(np.argmin(losses), 1, len(grid) - 2))
        x3, y3 = grid[i - 1 : i + 2], losses[i - 1 : i + 2]
        a2 = np.polyfit(x3, y3, 2)
        t_star = float(np.clip(-a2[1] / (2 * a2[0]), x3[0], x3[-1])) if a2[0] > 0 else float(grid[i])
        m = margins(sample, t_star)
        c_star, loss = _logistic_at(m, sample.weights)
        err = float(np.mean(sample.weights * (m <= 0)))
        rows.append({"c": c_star, "tau": t_star, "b": -t_star * c_star, "loss": loss, "error": err})
    keys = ("c", "tau", "b", "loss", "error")
    _finite([[r[key] for key in keys] for r in rows], "the logistic optimum", "taus")
    mean = {key: float(np.mean([r[key] for r in rows])) for key in keys}
    se = {key: float(np.std([r[key] for r in rows], ddof=1) / np.sqrt(batches)) for key in keys}
    return LogisticOptimum(mean["c"], mean["tau"], mean["b"], mean["loss"], mean["error"], se, rows)


# --------------------------------------------------------------------------------------------------------------
# The structure of the population gradient


@dataclass(frozen=True)
class GradientStructure:
    """``grad_w E l`` at ``(w, b)`` decomposed as ``gamma w + kappa w_* + r`` (r orthogonal to span{w, w_*}), from full
    d-dimensional samples (``direct``), and gamma, kappa from the symmetrised formulas on reduced samples (``sym``);
    each with its standard error. ``min_sym_term`` is the smallest per-sample value of the symmetrised gamma
    integrand, which the proof says is >= 0 pointwise.

    Attributes
    ----------
    gamma_direct, kappa_direct : float
        gamma and kappa from full samples.
    residual : np.ndarray, shape (d-2,)
        The component r in the orthonormal complement of span{w, w_*}.
    se_gamma_direct, se_kappa_direct : float
        Their standard errors.
    se_residual : np.ndarray, shape (d-2,)
        Standard errors of ``residual``.
    gamma_sym, kappa_sym : float
        gamma and kappa from the symmetrised formulas.
    se_gamma_sym, se_kappa_sym : float
        Their standard errors.
    min_sym_term : float
        The smallest symmetrised gamma integrand.

    Examples
    --------
    >>> import numpy as np
    >>> gs = gradient_structure_mc(4, np.array([1.0, 0.5, 0.0]), -0.3, 0.5, 2000, seed=0)
    >>> gs.residual.shape, gs.min_sym_term >= 0
    ((1,), True)
    """

    gamma_direct: float
    kappa_direct: float
    residual: np.ndarray
    se_gamma_direct: float
    se_kappa_direct: float
    se_residual: np.ndarray
    gamma_sym: float
    kappa_sym: float
    se_gamma_sym: float
    se_kappa_sym: float
    min_sym_term: float


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return special.expit(x)


@fill_doc(_DOC)
def gradient_structure_mc(
    k: int, w: np.ndarray, b: float, sigma: float, n: int, seed: int, chunk: int = 10_000
) -> GradientStructure:
    """Monte Carlo of the population gradient at ``(w, b)`` with ``w_* = e_1`` (docs/local_signal.md).

    Direct: per-sample gradients ``-y sigma(-y f) sum_i phi_b'(<w, X_i>) X_i`` on full samples, each decomposed in
    the basis {w, w_*, orthonormal complement}; means and SEs over samples. Symmetrised (the proofs of Lemmas 3.1,
    3.2): ``gamma = (c^2+v^2)^-1 E sum_i (sigma(a_2) - sigma(a_1)) Z_i 1{Z_i >= -b}`` with
    ``a_2 = -g(1) + S_{-i} + S_i``, ``a_1 = -g(1) + S_{-i} - S_i``, ``g(1) = phi_b(c)``, and
    ``kappa = E[-sigma(-Y f)(1{cY >= -b} + 1{cY <= b})]``, on independent reduced samples ``Z_i ~ N(0, s^2)``.

    Parameters
    ----------
    {{k}}
    w : np.ndarray, shape (d,)
        The filter, d >= 3, with a component orthogonal to ``e_1``.
    b : float
        The bias.
    {{sigma}}
    n : int
        Monte-Carlo sample size (each estimator).
    {{seed_chunk}}

    Returns
    -------
    GradientStructure

    Examples
    --------
    The direct and the symmetrised estimates agree within their standard errors, and the residual vanishes:

    >>> import numpy as np
    >>> gs = gradient_structure_mc(4, np.array([1.0, 0.5, 0.0]), -0.3, 0.5, 2000, seed=0)
    >>> from math import hypot
    >>> abs(gs.gamma_direct - gs.gamma_sym) < 3 * hypot(gs.se_gamma_direct, gs.se_gamma_sym)
    True
    >>> abs(gs.kappa_direct - gs.kappa_sym) < 3 * hypot(gs.se_kappa_direct, gs.se_kappa_sym)
    True
    >>> bool(np.all(np.abs(gs.residual) < 3 * gs.se_residual))
    True
    """
    seed = limits.check_seed(seed)
    k, n, sigma = _k(k), _batch(n, "n"), _sigma(sigma)
    if n < 2:
        raise InputError(f"n (the sample size) must be an integer >= 2 for a standard error, got n = {n}", param="n")
    w = check_real_array(w, "w")
    if w.ndim != 1:
        raise InputError(f"w must be a vector of length d >= 3, got shape {w.shape}", param="w")
    d = w.size
    if d < 3:
        raise InputError(f"d must be >= 3 so that a complement of span{{w, w_*}} exists, got d = {d}", param="w")
    b = check_real(b, "b")
    chunk = _positive_int(chunk, "chunk", "samples per batch")
    c, v = float(w[0]), float(np.linalg.norm(w[1:]))
    if v == 0 or not math.isfinite(v):
        raise InputError(
            "w must have a component orthogonal to w_* = e_1 (v > 0) to separate gamma from kappa", param="w"
        )
    check_mc(n, "n", 6 * (k + 1) * d + 8 * k + 2 * d, "n (6 (k+1) d + 8 k + 2 d)", minimum=1, sizes={"k": k, "w": d})
    check_allocation(array_bytes(n + 6 * min(chunk, n) * (k + 1), d), "n", n, f"the {format_count(n)} gradients (n, d)")
    w_star = np.eye(d)[0]
    # orthonormal basis: w_*, u = w_perp/|w_perp|, then the complement
    u = np.concatenate([[0.0], w[1:]]) / v
    q, _ = np.linalg.qr(np.column_stack([w_star, u, np.eye(d)[:, 1:]]))
    comp = q[:, 2:d]
    rng = np.random.default_rng(seed)
    coef = np.linalg.inv(np.array([[c, 1.0], [v, 0.0]]))  # (g.w_*, g.u) = (gamma c + kappa, gamma v)
    rows = []
    done = 0
    while done < n:
        m = min(chunk, n - done)
        X, y = sample_inputs(rng, m, k, d, sigma, w_star)
        z = X @ w
        f = (np.maximum(z + b, 0) - np.maximum(-z + b, 0)).sum(1)
        dl = -y * _sigmoid(-y * f)
        g = dl[:, None] * np.einsum("ni,nid->nd", (z + b > 0).astype(float) + (-z + b > 0), X)
        gk = (coef @ np.stack([g @ w_star, g @ u])).T  # (m, 2): gamma, kappa per sample
        rows.append(np.column_stack([gk, g @ comp]))
        done += m
    G = np.concatenate(rows)
    mean, se = G.mean(0), G.std(0, ddof=1) / np.sqrt(n)
    # symmetrised estimators on reduced samples
    s = sigma * np.hypot(c, v)
    g1 = max(c + b, 0) - max(-c + b, 0)
    gam, kap, min_term = [], [], np.inf
    done = 0
    while done < n:
        m = min(chunk, n - done)
        Z = s * rng.standard_normal((m, k))
        S_i = np.maximum(Z + b, 0) - np.maximum(-Z + b, 0)
        S = S_i.sum(1, keepdims=True)
        a2, a1 = -g1 + S, -g1 + S - 2 * S_i
        term = (_sigmoid(a2) - _sigmoid(a1)) * Z * (-b <= Z)
        min_term = min(min_term, float(term.min()))
        gam.append(term.sum(1) / (c * c + v * v))
        Y = rng.choice(np.array([-1.0, 1.0]), size=m)
        f = S[:, 0] + Y * g1
        kap.append(-_sigmoid(-Y * f) * ((c * Y >= -b).astype(float) + (c * Y <= b)))
        done += m
    gam_a, kap_a = np.concatenate(gam), np.concatenate(kap)
    _finite([gam_a.mean(), kap_a.mean(), *mean, *se], "the gradient", "w")
    return GradientStructure(
        gamma_direct=float(mean[0]),
        kappa_direct=float(mean[1]),
        residual=mean[2:],
        se_gamma_direct=float(se[0]),
        se_kappa_direct=float(se[1]),
        se_residual=se[2:],
        gamma_sym=float(gam_a.mean()),
        kappa_sym=float(kap_a.mean()),
        se_gamma_sym=float(gam_a.std(ddof=1) / np.sqrt(n)),
        se_kappa_sym=float(kap_a.std(ddof=1) / np.sqrt(n)),
        min_sym_term=min_term,
    )


# --------------------------------------------------------------------------------------------------------------
# The finite-width CNTK (Sec. 3.5, App. B.2)


def cntk_features(X: np.ndarray, w0: np.ndarray, biases: Sequence[float]) -> np.ndarray:
    """Features of the finite-width CNTK with filters frozen at ``w0 (m, d)``: for every bias vector (one per
    filter, or a scalar for all) the concatenation over j of ``sum_i X_i 1{|<w0_j, X_i>| + b_j >= 0}`` (App. B.2,
    with the absolute value as in App. B); returns ``(len(biases), n, m d)``.

    The kernel predictor is ``k_w(X) = <w, features(X)>`` for a weight vector w (one block per filter).

    Parameters
    ----------
    X : np.ndarray, shape (n, k+1, d)
        Inputs.
    w0 : np.ndarray, shape (m, d) or (d,)
        The frozen filters.
    biases : sequence of float or of array_like
        Bias vectors (one entry per filter, or a scalar for all).

    Returns
    -------
    np.ndarray, shape (len(biases), n, m d)

    Examples
    --------
    With m = 1 each feature is :func:`theory.local_signal.cntk_feature_as_printed`:

    >>> import numpy as np
    >>> from theory.local_signal import cntk_feature_as_printed
    >>> X = np.array([[[1.0, 0.0], [0.0, -2.0], [-3.0, 0.5]]])
    >>> F = cntk_features(X, np.array([[1.0, 0.0]]), [0.0, -2.0])
    >>> F.shape, F[:, 0].tolist()
    ((2, 1, 2), [[-2.0, -1.5], [-3.0, 0.5]])
    >>> cntk_feature_as_printed(((1.0, 0.0), (0.0, -2.0), (-3.0, 0.5)), (1.0, 0.0), -2.0)
    [-3.0, 0.5]
    """
    X = check_real_array(X, "X")
    w0 = np.atleast_2d(check_real_array(w0, "w0"))
    if X.ndim != 3 or w0.ndim != 2 or w0.shape[1] != X.shape[2]:
        raise InputError(f"X must be (n, k+1, d) and w0 (m, d) or (d,); got {X.shape} and {w0.shape}", param="X")
    bias_list = _bias_grid(biases, w0.shape[0])
    m_d = w0.shape[0] * X.shape[2]
    check_allocation(
        array_bytes(len(bias_list) + 2, X.shape[0], m_d) + array_bytes(2, X.shape[0], X.shape[1], w0.shape[0]),
        "X",
        X.shape[0],
        f"the features ({len(bias_list)}, {X.shape[0]}, {m_d}) in float64",
    )
    with np.errstate(over="ignore", invalid="ignore"):
        proj = np.abs(X @ w0.T)  # (n, k+1, m)
    _finite(proj, "<w0, X_i>", "X")
    out = []
    for bj in bias_list:
        gate = (proj + bj >= 0).astype(np.float64)  # (n, k+1, m)
        out.append(np.einsum("nim,nid->nmd", gate, X).reshape(X.shape[0], -1))
    with np.errstate(over="ignore", invalid="ignore"):
        F = np.stack(out)
    _finite(F, "the features", "X")
    return F


def _bias_list(biases: object) -> Sequence | np.ndarray:
    """The bias grid as a non-empty sequence (its entries are checked by :func:`_bias_grid`)."""
    if isinstance(biases, (str, bytes)) or not isinstance(biases, Sequence | np.ndarray):
        raise InputError(f"biases (the bias grid) must be a sequence of biases, got {biases!r:.80}", param="biases")
    if len(biases) == 0:
        raise InputError("biases (the bias grid) must hold at least one bias, got an empty grid", param="biases")
    return biases


def _bias_grid(biases: object, m: int) -> list[np.ndarray]:
    """Bias vectors (one entry per filter, or a scalar for all): finite, at least one."""
    out = []
    for b in _bias_list(biases):
        bj = check_real_array(b, "biases")
        if bj.ndim > 1 or (bj.ndim == 1 and bj.size not in (1, m)):
            raise InputError(
                f"each bias must be a scalar or a vector of length m = {m}, got shape {bj.shape}", param="biases"
            )
        out.append(np.broadcast_to(bj, (m,)))
    return out


@dataclass(frozen=True, eq=False)
class LemmaB12Event:
    """Lemma B.12's Event A (Karp thesis, App. B.2.2) for m frozen filters: ``A = {|g(eps)| >= C sigma |g(w_*)|}``
    for a noise row ``eps ~ N(0, sigma^2 I_d)``, with ``g(x) = sum_j <w_j, x> 1{|<w_j^(0), x>| + b_j >= 0}``.
    Lemma B.11's Event A (App. B.2.1) is its m = 1 case. The inputs of :func:`lemma_b12_event_probability`
    (quadrature) and :func:`lemma_b12_event_mc` (Monte Carlo), checked once, when the event is made.

    Parameters
    ----------
    w0, w : np.ndarray, shape (m, d) (a vector is one filter)
        The frozen filters and the kernel weights.
    w_star : np.ndarray, shape (d,)
        The signal direction.
    b : float or sequence of float
        The biases (one per filter, or one for all); stored as a vector of length m.
    C, sigma : float
        The lemma's constant and the noise level, both ``> 0``.

    Raises
    ------
    theory._checks.InputError
        Naming the argument: mismatched shapes, a non-finite entry, ``C <= 0`` or ``sigma <= 0``.

    Examples
    --------
    Lemma B.11's one filter, given as vectors:

    >>> ev = LemmaB12Event([0.6, 0.8], [1.0, 0.0], [1.0, 0.0], -0.3, 1.0, 0.5)
    >>> ev.w0.shape, ev.b.tolist()
    ((1, 2), [-0.3])
    """

    w0: np.ndarray
    w: np.ndarray
    w_star: np.ndarray
    b: np.ndarray
    C: float
    sigma: float

    def __post_init__(self) -> None:
        w0, w, w_star, b = _filters(self.w0, self.w, self.w_star, self.b)
        C, sigma = check_real(self.C, "C", positive=True), _sigma(self.sigma)
        for name, value in (("w0", w0), ("w", w), ("w_star", w_star), ("b", b), ("C", C), ("sigma", sigma)):
            object.__setattr__(self, name, value)

    @property
    def m(self) -> int:
        """The number of filters."""
        return int(self.w0.shape[0])


def _event(event: object) -> LemmaB12Event:
    """``event`` checked to be a :class:`LemmaB12Event`."""
    if not isinstance(event, LemmaB12Event):
        raise InputError(f"event must be a LemmaB12Event, got {type(event).__name__}", param="event")
    return event


@fill_doc(_DOC)
def lemma_b12_event_mc(event: LemmaB12Event, n: int, seed: int, chunk: int = 100_000) -> tuple[float, float]:
    """Monte Carlo of Lemma B.12's Event A (Karp thesis, App. B.2.2, m frozen filters; Lemma B.11 at m = 1): the
    frequency over ``n`` noise rows ``eps ~ N(0, sigma^2 I_d)`` of ``|g(eps)| >= C sigma |g(w_*)|``, with
    ``g(x) = sum_j <w_j, x> 1{|<w_j^(0), x>| + b_j >= 0}`` computed from the CNTK features of the row
    (:func:`cntk_features`, the kernel's weights ``w`` flattened filter by filter), and its standard error.

    Parameters
    ----------
    event : LemmaB12Event
        The filters, the signal direction, the biases, C and sigma.
    {{event_mc}}

    Examples
    --------
    Two filters without gates (``b = 0``) and weights summing to ``w_*``: the event is ``|N(0, 1)| >= C``:

    >>> import numpy as np
    >>> w0 = np.array([[0.6, 0.8], [0.8, -0.6]])
    >>> w = np.array([[0.5, 0.0], [0.5, 0.0]])
    >>> p, se = lemma_b12_event_mc(LemmaB12Event(w0, w, [1.0, 0.0], [0.0, 0.0], 1.0, 0.5), 20000, seed=0)
    >>> abs(p - 0.3173) < 4 * se
    True

    Lemma B.11's one filter against its exact series:

    >>> from theory.local_signal import lemma_b11_event_probability
    >>> p, se = lemma_b12_event_mc(LemmaB12Event([0.6, 0.8], [1.0, 0.0], [1.0, 0.0], -0.3, 1.0, 0.5), 20000, seed=0)
    >>> abs(p - lemma_b11_event_probability((0.6, 0.8), (1.0, 0.0), (1.0, 0.0), -0.3, 1.0, 0.5)) < 4 * se
    True
    """
    seed = limits.check_seed(seed)
    ev = _event(event)
    w0, w, w_star, b, C, sigma = ev.w0, ev.w, ev.w_star, ev.b, ev.C, ev.sigma
    d, m = w_star.size, ev.m
    n = _batch(n, "n")
    if n < 2:
        raise InputError(f"n must be >= 2 (a standard error), got {n}", param="n")
    chunk = _positive_int(chunk, "chunk", "rows per batch")
    check_mc(n, "n", (2 + m) * d, "n ((2 + m) d per row)", sizes={"d": d})
    check_allocation(
        array_bytes(3 * min(chunk, n), m * d) + array_bytes(min(chunk, n), d),
        "chunk",
        chunk,
        f"one chunk of rows ({chunk}, {d}) and their features ({chunk}, {m * d})",
    )
    weights = w.ravel()
    biases = cast("Sequence[float]", [b])  # one bias vector (cntk_features takes a vector per filter set)
    g_star = float(cntk_features(w_star[None, None, :], w0, biases)[0, 0] @ weights)
    level = C * sigma * abs(g_star)
    rng = np.random.default_rng(seed)
    hits, done = 0, 0
    while done < n:
        size = min(chunk, n - done)
        eps = sigma * rng.standard_normal((size, 1, d))
        g = cntk_features(eps, w0, biases)[0] @ weights
        hits += int(np.sum(np.abs(g) >= level))
        done += size
    p = hits / n
    return p, max(math.sqrt(p * (1 - p) / n), 1.0 / n)


# --------------------------------------------------------------------------------------------------------------
# Lemma B.12 (App. B.2.2): the event probability of m frozen filters, as Gaussian box probabilities

MAX_BOX_POINTS = 2 * 10**7
"""Most quadrature points of :func:`lemma_b12_event_probability`, as counted by :func:`_box_points`: the ``C(m, s) 2^s``
boxes with s integrated levels (s = 0..m) of the sum over gate patterns and signs, each at its tensor rule."""

_RANK_TOL = 1e-10
"""Pivots of the correlation matrix below this are zero (a coordinate that is a linear function of the others)."""

QMC_LOG2, QMC_SCRAMBLES = 12, 8
"""Scrambled Sobol points (2^QMC_LOG2 per scramble, QMC_SCRAMBLES scrambles) for a box the product rule does not
resolve."""

_GL_ENOUGH = 1e-9
"""A regular box whose two Gauss-Legendre rules differ by more than this relative to its probability is integrated
again in the other pivot order and by randomised quasi-Monte Carlo, and the estimate with the smallest error
estimate is kept (a sharp conditional interval)."""

_RELATIVE_ENOUGH = 1e-3
"""A probability whose inclusion-exclusion error estimate exceeds this fraction of it is also summed over signed
boxes (:func:`_signed_boxes`), and the estimate with the smaller error estimate is kept."""

_NEAR_SINGULAR = 1e-4
"""A box whose smallest pivot (conditional variance of a standardised coordinate) is below this, or whose
covariance is singular, is integrated by randomised quasi-Monte Carlo (its integrand has kinks)."""


def _gauss_legendre01(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on (0, 1)."""
    x, wt = np.polynomial.legendre.leggauss(n)
    return (x + 1) / 2, wt / 2


def _interval_mass(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``Phi(hi) - Phi(lo)`` (0 where ``hi <= lo``), from the nearer tail for accuracy."""
    upper = lo > 0
    mass = np.where(upper, special.ndtr(-lo) - special.ndtr(-hi), special.ndtr(hi) - special.ndtr(lo))
    return np.maximum(mass, 0.0)


def _pivoted_cholesky(
    corr: np.ndarray, lo: np.ndarray, hi: np.ndarray, genz: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``corr = K K^T`` with K of shape (k, r), r the numerical rank (pivots > :data:`_RANK_TOL`), pivoting for the
    box ``lo_i < X_i < hi_i`` on Genz's rule (``genz``: next the coordinate whose interval, scaled by its
    conditional standard deviation, has the least probability; the conditional means taken as 0) or on the largest
    conditional variance (the stable rule; the first on ties); each row's level: the index of its last column with
    an entry above the tolerance (the pivot row of column c has level c; a row that is a combination of earlier
    pivots gets the level of its last one); and the pivots (the conditional variances of the pivot coordinates)."""
    k = corr.shape[0]
    K = np.zeros((k, k))
    diag = np.diag(corr).astype(float).copy()
    done = np.zeros(k, dtype=bool)
    pivots: list[float] = []
    r = 0
    for c in range(k):
        rest = np.where(done, -np.inf, diag)
        live = rest > _RANK_TOL
        if not live.any():
            break
        if genz:
            sd = np.sqrt(np.where(live, rest, 1.0))
            with np.errstate(invalid="ignore"):
                mass = np.where(live, _interval_mass(lo / sd, hi / sd), np.inf)
            p = int(np.argmin(mass))
        else:
            p = int(np.argmax(rest))
        K[:, c] = (corr[:, p] - K[:, :c] @ K[p, :c]) / np.sqrt(rest[p])
        K[done, c] = 0.0
        K[p, c] = np.sqrt(rest[p])
        pivots.append(float(rest[p]))
        done[p] = True
        diag = diag - K[:, c] ** 2
        r = c + 1
    K = K[:, :r]
    big = np.abs(K) > 1e-9
    level = np.array([int(np.nonzero(row)[0].max()) if row.any() else -1 for row in big])
    return K, level, np.array(pivots)


def _box_nodes(nodes: int, dims: int) -> int:
    """Points per dimension of a box with ``dims`` integrated levels: ``nodes`` from 4 levels on, twice as many at 3,
    four times as many at 1 or 2 (a box of low rank is cheap, and a singular one has kinks that converge slowly)."""
    return nodes if dims >= 4 else 2 * nodes if dims == 3 else 4 * nodes


def _box_points(nodes: int, m: int) -> int:
    """An upper bound on the quadrature points of :func:`lemma_b12_event_probability`: ``C(m, s) 2^s`` boxes of
    ``s + 1`` coordinates (s gates and L_P), each with at most ``s`` integrated levels, for s = 0..m."""
    return sum(math.comb(m, s) * 2**s * _box_nodes(nodes, s) ** s for s in range(m + 1))


def _genz_level(
    K: np.ndarray, level: np.ndarray, lo: np.ndarray, hi: np.ndarray, z: np.ndarray, c: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Level c of Genz's sequential conditioning at the points z (N, r) (columns < c set): the interval that the
    constraints ``lo_i < K_i z < hi_i`` of the level leave for z_c, and its probability."""
    rows = np.nonzero(level == c)[0]
    shift = z[:, :c] @ K[rows, :c].T  # (N, rows)
    with np.errstate(invalid="ignore"):
        ends = np.stack(((lo[rows] - shift) / K[rows, c], (hi[rows] - shift) / K[rows, c]))
    low = np.max(np.min(ends, axis=0), axis=1)
    high = np.min(np.max(ends, axis=0), axis=1)
    return low, high, _interval_mass(low, high)


def _draw(lo: np.ndarray, hi: np.ndarray, mass: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``Phi^{-1}(Phi(lo) + u (Phi(hi) - Phi(lo)))``, from the nearer tail (0 on an empty interval)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        zc = np.where(
            lo > 0,
            -special.ndtri(np.clip(special.ndtr(-lo) - u * mass, 1e-300, 1.0)),
            special.ndtri(np.clip(special.ndtr(lo) + u * mass, 1e-300, 1.0)),
        )
    return np.where(mass > 0, np.clip(zc, lo, hi), 0.0)


def _genz_integrand(K: np.ndarray, level: np.ndarray, lo: np.ndarray, hi: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Genz's integrand at the points ``u`` (N, r - 1) of the unit cube: the product over the levels of the
    conditional probability of the interval left by the constraints of that level, z_c drawn by inverse CDF from
    its interval (the last level is integrated exactly)."""
    r = K.shape[1]
    z = np.zeros((u.shape[0], r))
    weight = np.ones(u.shape[0])
    for c in range(r):
        low, high, mass = _genz_level(K, level, lo, hi, z, c)
        weight = weight * mass
        if c < r - 1:
            z[:, c] = _draw(low, high, mass, u[:, c])
    return weight


def _genz_tensor(K: np.ndarray, level: np.ndarray, lo: np.ndarray, hi: np.ndarray, nodes: int) -> float:
    """Genz's integral by the tensor Gauss-Legendre rule of ``nodes`` points per level, the points of the outer
    levels shared by the inner ones (the tree of the product rule, level by level)."""
    r = K.shape[1]
    u, wu = _gauss_legendre01(nodes)
    z = np.zeros((1, r))
    weight = np.ones(1)
    for c in range(r):
        low, high, mass = _genz_level(K, level, lo, hi, z, c)
        weight = weight * mass
        if c == r - 1:
            break
        n_pts = len(weight)
        z = np.repeat(z, nodes, axis=0)
        z[:, c] = _draw(np.repeat(low, nodes), np.repeat(high, nodes), np.repeat(mass, nodes), np.tile(u, n_pts))
        weight = np.repeat(weight, nodes) * np.tile(wu, n_pts)
    return float(np.sum(weight))


def _genz_qmc(
    K: np.ndarray, level: np.ndarray, lo: np.ndarray, hi: np.ndarray, rng: np.random.Generator
) -> tuple[float, float]:
    """Genz's integral by scrambled Sobol points (:data:`QMC_SCRAMBLES` scrambles of ``2^QMC_LOG2`` points): the
    mean and 3 standard errors over the scrambles."""
    r = K.shape[1]
    ests = []
    for _ in range(QMC_SCRAMBLES):
        pts = stats.qmc.Sobol(r - 1, scramble=True, rng=rng).random_base2(QMC_LOG2)
        ests.append(float(np.mean(_genz_integrand(K, level, lo, hi, pts))))
    return float(np.mean(ests)), 3 * float(np.std(ests, ddof=1)) / math.sqrt(QMC_SCRAMBLES)


def _box(cov: np.ndarray, lo: np.ndarray, hi: np.ndarray, nodes: int, rng: np.random.Generator) -> tuple[float, float]:
    """``P[lo_i < X_i < hi_i for every i]`` for ``X ~ N(0, cov)`` (positive semi-definite, possibly singular; the
    limits may be infinite), and an error estimate: Genz's sequential conditioning (X = K z, z standard normal, K a
    pivoted Cholesky factor; each z_c drawn by inverse CDF from the interval the constraints of its level leave;
    the last level exact). A regular box: the tensor Gauss-Legendre rule at ``nodes`` points per dimension (more for
    few dimensions, :func:`_box_nodes`), the error estimated as the change from ``ceil(2 nodes/3)``; where that
    change exceeds :data:`_GL_ENOUGH` (relative), again in the other pivot order (:func:`_pivoted_cholesky`) and by
    :func:`_genz_qmc`, keeping the estimate with the smallest error estimate. A singular or nearly singular box
    (several constraints on one level: kinks): :func:`_genz_qmc`, the error 3 standard errors over the scrambles."""
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    keep = []
    for i in range(len(lo)):
        if lo[i] == -np.inf and hi[i] == np.inf:
            continue
        if sd[i] <= 1e-14 * max(1.0, float(sd.max())):  # X_i = 0
            if not lo[i] < 0 < hi[i]:
                return 0.0, 0.0
            continue
        if not lo[i] < hi[i]:
            return 0.0, 0.0
        keep.append(i)
    if not keep:
        return 1.0, 0.0
    idx = np.array(keep)
    s = sd[idx]
    corr = cov[np.ix_(idx, idx)] / np.outer(s, s)
    low, high = lo[idx] / s, hi[idx] / s
    best: tuple[float, float] | None = None
    for genz in (True, False):
        K, level, pivots = _pivoted_cholesky(corr, low, high, genz)
        r = K.shape[1]
        if r == 1 or (r == len(idx) and float(pivots.min()) >= _NEAR_SINGULAR):
            fine, coarse = (
                _genz_tensor(K, level, low, high, _box_nodes(n, r - 1)) for n in (nodes, math.ceil(2 * nodes / 3))
            )
            if best is None or abs(fine - coarse) < best[1]:
                best = (fine, abs(fine - coarse))
            if r == 1 or best[1] <= _GL_ENOUGH * abs(best[0]):
                return best
        elif genz:  # singular: kinks whatever the order
            return _genz_qmc(K, level, low, high, rng)
    qmc = _genz_qmc(*_pivoted_cholesky(corr, low, high)[:2], low, high, rng)
    return best if best is not None and best[1] <= qmc[1] else qmc


def _abs_pattern(
    cov: np.ndarray, t: np.ndarray, outside: Sequence[int], nodes: int, rng: np.random.Generator
) -> tuple[float, float]:
    """``P[|X_i| >= t_i for i in outside, |X_i| < t_i otherwise]`` for ``X ~ N(0, cov)`` and an error estimate (the
    sum of the boxes'), by inclusion-exclusion over the subsets T of ``outside`` (``1{|x| >= t} = 1 - 1{|x| < t}``):
    ``sum_T (-1)^|T| P[|X_i| < t_i, i not in outside minus T]``, each a centered box (:func:`_box`), whose integrands
    are smooth (bounded intervals); a small result is a difference of O(1) terms, so its error is absolute."""
    inside = [i for i in range(len(t)) if i not in set(outside)]
    total, error = 0.0, 0.0
    for size in range(len(outside) + 1):
        for T in itertools.combinations(outside, size):
            idx = np.array(sorted(inside + list(T)), dtype=int)
            sub = t[idx]
            box, err = (1.0, 0.0) if idx.size == 0 else _box(cov[np.ix_(idx, idx)], -sub, sub, nodes, rng)
            total += (-1) ** size * box
            error += err
    return total, error


def _signed_boxes(
    cov: np.ndarray,
    closed: Sequence[int],
    opened: Sequence[int],
    beta: np.ndarray,
    nodes: int,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """``P[|X_i| < beta_i (i in closed), |X_i| >= beta_i (i in opened)]`` for ``X ~ N(0, cov)`` (the other
    coordinates free) and an error estimate (the sum of the boxes'): a sum of boxes (:func:`_box`) over the sides
    ``X_i >= beta_i`` or ``X_i <= -beta_i`` of every opened coordinate with ``beta_i > 0`` (one with ``beta_i = 0``
    is free). Every term is a probability, so a small result keeps its relative accuracy. Negating X maps the boxes
    onto each other in pairs: the sides of the first signed coordinate are fixed to ``+`` and the sum doubled."""
    k = cov.shape[0]
    lo, hi = np.full(k, -np.inf), np.full(k, np.inf)
    for i in closed:
        lo[i], hi[i] = -beta[i], beta[i]
    signed = [i for i in opened if beta[i] > 0]
    if any(np.isinf(beta[i]) for i in signed):
        return 0.0, 0.0
    total, error = 0.0, 0.0
    for signs in itertools.product((1.0, -1.0), repeat=max(len(signed) - 1, 0)):
        l_box, h_box = lo.copy(), hi.copy()
        for i, sgn in zip(signed, (1.0, *signs)):
            l_box[i], h_box[i] = (beta[i], np.inf) if sgn > 0 else (-np.inf, -beta[i])
        p, e = _box(cov, l_box, h_box, nodes, rng)
        total, error = total + p, error + e
    factor = 2.0 if signed else 1.0
    return factor * total, factor * error


@dataclass(frozen=True)
class LemmaB12Probabilities:
    """The Gaussian probabilities of Lemma B.12 (Karp thesis, App. B.2.2) for one ``(w^(0), w, b)``, from
    :func:`lemma_b12_event_probability`.

    Attributes
    ----------
    event : float
        ``P[A]``, ``A = {|g(eps)| >= C sigma |g(w_*)|}``.
    error : float
        The quadrature's error estimate of ``event``: its difference between the rule at ``nodes`` and at
        ``ceil(2 nodes/3)`` points per dimension.
    gates_match : float
        ``P[M(eps) = M(w_*)]``: every gate opens on the noise row exactly when it opens on the signal row.
    e1_e2 : float
        ``P[E_1 and E_2]``: ``|<v_j, eps>| >= |<v_j, w_*>|`` for the gates open on ``w_*`` and ``<=`` for the others
        (``v_j = w_j^(0)/|w_j^(0)|``), the proof's sufficient event for ``M(eps) = M(w_*)``.
    proof_error : float
        The same estimate for ``gates_match`` and ``e1_e2`` (the larger of the two).
    small_ball : float
        ``P_{x ~ N(0,1)}[|x| < C |<v_hat, w_*>|]``, ``v_hat`` the unit vector along ``sum_{j in M(w_*)} w_j``
        (0 when ``g(w_*) = 0``).
    g_star : float
        ``g(w_*)``.
    open_on_signal : tuple of int
        ``M(w_*)``, the gates open on the signal row.

    Examples
    --------
    >>> import numpy as np
    >>> res = lemma_b12_event_probability(LemmaB12Event(np.eye(2)[:1], np.eye(2)[:1], [1.0, 0.0], [0.0], 1.0, 0.5))
    >>> round(res.event, 6), res.open_on_signal
    (0.317311, (0,))
    """

    event: float
    error: float
    gates_match: float
    e1_e2: float
    proof_error: float
    small_ball: float
    g_star: float
    open_on_signal: tuple[int, ...]

    @property
    def proof_lower_bound(self) -> float:
        """The proof's explicit union bound, ``P[A] >= P[M(eps) = M(w_*)] - P_{N(0,1)}[|x| < C |<v_hat, w_*>|]``
        (1 when ``g(w_*) = 0``)."""
        return 1.0 if self.g_star == 0 else self.gates_match - self.small_ball


def _filters(w0: object, w: object, w_star: object, b: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``w0, w`` as (m, d) (a vector is one filter), ``w_star`` as (d,) and ``b`` as (m,), checked."""
    w_star = check_real_array(w_star, "w_star")
    if w_star.ndim != 1 or w_star.size < 1:
        raise InputError(f"w_star must be a vector of length d >= 1, got shape {w_star.shape}", param="w_star")
    d = w_star.size
    w0 = np.atleast_2d(check_real_array(w0, "w0"))
    w = np.atleast_2d(check_real_array(w, "w"))
    if w0.ndim != 2 or w0.shape[1] != d or w0.shape[0] < 1:
        raise InputError(
            f"w0 must have the shape (m, {d}) (m >= 1 filters of w_star's length), got {w0.shape}", param="w0"
        )
    if w.shape != w0.shape:
        raise InputError(f"w must have the shape {w0.shape} of w0, got {w.shape}", param="w")
    b = check_real_array(b, "b")
    if b.ndim > 1 or b.size not in (1, w0.shape[0]):
        raise InputError(f"b must be a scalar or a vector of length m = {w0.shape[0]}, got shape {b.shape}", param="b")
    return w0, w, w_star, np.broadcast_to(b, (w0.shape[0],)).astype(float)


@fill_doc(_DOC)
def lemma_b12_event_probability(event: LemmaB12Event, *, nodes: int = 24) -> LemmaB12Probabilities:
    """Lemma B.12 (Karp thesis, App. B.2.2, ``1 <= m <= C`` filters) as Gaussian box probabilities: the probability
    of its Event A, ``P_{eps ~ N(0, sigma^2 I_d)}[|g(eps)| >= C sigma |g(w_*)|]`` with
    ``g(x) = sum_j <w_j, x> 1{|<w_j^(0), x>| + b_j >= 0}``, and the two probabilities its proof bounds it by.

    Write ``G_j = <v_j, eps>/sigma`` (``v_j = w_j^(0)/|w_j^(0)|``; standard normals of correlations ``<v_i, v_j>``):
    gate j is open on the noise row iff ``|G_j| >= beta_j = max(0, -b_j)/(sigma |w_j^(0)|)``. Given the set P of
    open gates, ``g(eps) = <v_P, eps>`` with ``v_P = sum_{j in P} w_j``, and ``L_P = <v_P, eps>/sigma`` is normal
    with variance ``|v_P|^2`` and covariances ``<v_j, v_P>`` with the G_j. The patterns partition the space, so

    ``P[A] = 1 - sum_{P subset [m]} P[|G_j| >= beta_j (j in P), |G_j| < beta_j (j not in P), |L_P| < C |g(w_*)|]``,

    each term an (m+1)-dimensional Gaussian probability of a union of boxes; inclusion-exclusion over the
    ``|G_j| >= beta_j`` turns each into centered boxes ``P[|X_i| < a_i]`` (3^m of them in all), computed by Genz's
    sequential conditioning on a pivoted Cholesky factor (a singular covariance, e.g. ``w_j = v_j``, is reduced to
    its rank; the last level is exact). At m = 1 this is Lemma B.11's ``P[|Z_1| >= alpha, |Z_2| >= beta]``
    (:func:`theory.local_signal.lemma_b11_event_probability`).
    The reduction is :func:`theory.local_signal.lemma_b12_reduction`; :func:`lemma_b12_probabilities` integrates it.

    The same machinery gives ``P[M(eps) = M(w_*)]`` and ``P[E_1 and E_2]`` (proof of Lemma B.12, up to (B.9)),
    whose thresholds are ``|<v_j, w_*>|/sigma``; with ``small_ball`` they give the proof's explicit union bound
    :attr:`LemmaB12Probabilities.proof_lower_bound`.

    Error. A regular box: a product Gauss-Legendre rule; its integrand is analytic on bounded intervals, and the
    error estimate is the change between ``nodes`` and ``ceil(2 nodes/3)`` points per dimension (the coarser rule's
    error, so conservative where the rule converges geometrically; boxes of low rank get more points,
    :func:`_box_nodes`); where it is not small, the other pivot order and scrambled Sobol points are tried too. A
    singular box (several constraints on one level: kinks): scrambled Sobol points, 3 standard errors over the
    scrambles. Inclusion-exclusion computes a small probability as a difference of O(1) terms, so its error is
    absolute: where the error estimate exceeds 1e-3 of the value, the probability is also summed over signed boxes
    (``G_j >= beta_j`` or ``G_j <= -beta_j``; every term a probability, :func:`_signed_boxes`) and the estimate with
    the smaller error estimate is kept. The errors are estimates, not bounds; tests compare the result with the
    exact m = 1 series, scipy's multivariate normal CDF, a finer rule and Monte Carlo.

    Parameters
    ----------
    event : LemmaB12Event
        The filters (each nonzero), the unit signal direction, the biases, C and sigma.
    {{b12_nodes}}
        For an ``event`` that is not a :class:`LemmaB12Event`, a zero filter or ``|w_star| != 1`` (within 1e-9); a
        :class:`theory._checks.LimitError` naming ``nodes`` (or ``w0``, for too many filters) when the rule would
        have more than :data:`MAX_BOX_POINTS` points.

    Examples
    --------
    At m = 1 it is Lemma B.11's exact series:

    >>> import numpy as np
    >>> from theory.local_signal import lemma_b11_event_probability
    >>> w0, w, ws = np.array([[0.6, 0.8]]), np.array([[1.0, 0.0]]), np.array([1.0, 0.0])
    >>> res = lemma_b12_event_probability(LemmaB12Event(w0, w, ws, [-0.3], 1.0, 0.5))
    >>> exact = lemma_b11_event_probability((0.6, 0.8), (1.0, 0.0), (1.0, 0.0), -0.3, 1.0, 0.5)
    >>> abs(res.event - exact) < 1e-12, res.error < 1e-12
    (True, True)

    Two filters; the proof's union bound is below the probability:

    >>> w0 = np.array([[0.6, 0.8], [0.8, -0.6]])
    >>> res = lemma_b12_event_probability(LemmaB12Event(w0, w0 + ws, ws, [-0.2, -0.2], 1.0, 0.5))
    >>> round(res.event, 6), res.proof_lower_bound <= res.event
    (0.243363, True)
    """
    ev = _event(event)
    nodes = _nodes(nodes, ev.m)
    reduction = tl.lemma_b12_reduction(ev.w0.tolist(), ev.w.tolist(), ev.w_star.tolist(), ev.b.tolist(), ev.C, ev.sigma)
    return lemma_b12_probabilities(reduction, nodes=nodes)


def _nodes(nodes: object, m: int) -> int:
    """``nodes`` checked (an integer >= 3) against :data:`MAX_BOX_POINTS` for m filters."""
    nodes = _positive_int(nodes, "nodes", "Gauss-Legendre points per dimension")
    if nodes < 3:
        raise InputError(f"nodes must be an integer >= 3 (an error estimate at 2 nodes/3), got {nodes}", param="nodes")
    if _box_points(3, min(m, 12)) > MAX_BOX_POINTS:
        check_cost(
            _box_points(3, min(m, 12)),
            MAX_BOX_POINTS,
            param="w0",
            value=m,
            what="the boxes of m filters at 3 points per dimension have",
            hint="use fewer filters",
        )
    check_cost(
        _box_points(nodes, m),
        MAX_BOX_POINTS,
        param="nodes",
        value=nodes,
        what=f"the boxes of m = {m} filters have up to",
        hint="use fewer nodes",
    )
    return nodes


@fill_doc(_DOC)
def lemma_b12_probabilities(reduction: tl.LemmaB12Reduction, *, nodes: int = 24) -> LemmaB12Probabilities:
    """The Gaussian box probabilities of Lemma B.12's exact reduction
    (:func:`theory.local_signal.lemma_b12_reduction`, Karp thesis, App. B.2.2), integrated numerically: the event's
    ``P[A] = 1 - sum_P P[|G_j| >= beta_j (j in P), |G_j| < beta_j (j not in P), |L_P| < level]``, and the proof's
    ``P[M(eps) = M(w_*)]`` (thresholds ``beta_j``) and ``P[E_1 and E_2]`` (thresholds ``|<v_j, w_*>|/sigma``) over
    the gates open and shut on the signal row. The method and its error estimate are those of
    :func:`lemma_b12_event_probability`.

    Parameters
    ----------
    reduction : theory.local_signal.LemmaB12Reduction
        The reduction of one ``(w^(0), w, w_*, b, C, sigma)``.
    {{b12_nodes}}
        When ``reduction`` is not a :class:`theory.local_signal.LemmaB12Reduction`; a
        :class:`theory._checks.LimitError` naming ``nodes`` (or ``w0``, for too many filters) when the rule would
        have more than :data:`MAX_BOX_POINTS` points.

    Examples
    --------
    One filter and no gate (``b = 0``): ``P[|<w_*, eps>| >= C sigma] = 2 Phi^c(1)``:

    >>> from theory.local_signal import lemma_b12_reduction, normal_sf
    >>> res = lemma_b12_probabilities(lemma_b12_reduction([(1.0, 0.0)], [(1.0, 0.0)], (1.0, 0.0), 0.0, 1.0, 0.5))
    >>> abs(res.event - 2 * normal_sf(1.0)) < 1e-12, res.open_on_signal
    (True, (0,))
    """
    if not isinstance(reduction, tl.LemmaB12Reduction):
        raise InputError(
            f"reduction must be a theory.local_signal.LemmaB12Reduction, got {type(reduction).__name__}",
            param="reduction",
        )
    m = len(reduction.gate_thresholds)
    nodes = _nodes(nodes, m)
    R = np.array(reduction.gate_correlation, dtype=float)
    beta = np.array(reduction.gate_thresholds, dtype=float)
    e12_thresholds = np.array(reduction.signal_thresholds, dtype=float)
    open_star = reduction.open_on_signal
    rng = np.random.default_rng(12)  # the scrambles of the singular boxes: a fixed seed, a deterministic result
    closed_star = [j for j in range(m) if j not in open_star]
    covs = [(P, np.array(cov, dtype=float)) for P, cov in zip(reduction.patterns, reduction.pattern_covariances)]
    thresholds = np.append(beta, reduction.level)

    def centered() -> tuple[tuple[float, float], ...]:
        miss = [_abs_pattern(cov, thresholds, list(P), nodes, rng) for P, cov in covs]
        return (
            (1.0 - sum(p for p, _ in miss), sum(e for _, e in miss)),
            _abs_pattern(R, beta, list(open_star), nodes, rng),
            _abs_pattern(R, e12_thresholds, list(open_star), nodes, rng),
        )

    def signed(which: int) -> tuple[float, float]:
        if which == 0:
            parts = [
                _signed_boxes(cov, [j for j in range(m) if j not in P], [*P, m], thresholds, nodes, rng)
                for P, cov in covs
            ]
            return sum(p for p, _ in parts), sum(e for _, e in parts)
        return _signed_boxes(R, closed_star, list(open_star), beta if which == 1 else e12_thresholds, nodes, rng)

    results = list(centered())
    for i, (value, err) in enumerate(results):
        if err > _RELATIVE_ENOUGH * abs(value):  # a small probability: the sum of signed boxes keeps its accuracy
            other = signed(i)
            if other[1] < err:
                results[i] = other
    (event, error), (match, e_match), (e12, e_e12) = results
    event = min(max(event, 0.0), 1.0)
    return LemmaB12Probabilities(
        event, error, match, e12, max(e_match, e_e12), reduction.small_ball, reduction.g_star, open_star
    )


@dataclass(frozen=True)
class SVMResult:
    """The hinge-loss SVM ``min_w lam/2 |w|^2 + (1/n) sum_i max(0, 1 - y_i <w, F_i>)`` (no intercept: the CNTK has
    none) and its dual ``max_{0 <= alpha <= 1/n} sum alpha - |sum_i alpha_i y_i F_i|^2 / (2 lam)``, solved separately;
    ``gap = primal - dual`` (>= 0 up to solver tolerance) and ``w`` from the primal.

    Attributes
    ----------
    w : np.ndarray, shape (p,)
        The primal weights.
    primal, dual : float
        The optimal values of the two programs.
    gap : float
        ``primal - dual``.
    status : str
        The two solver statuses joined by ``/``.

    Examples
    --------
    >>> import numpy as np
    >>> F = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = hinge_svm(F, np.array([1.0, 1.0, -1.0, -1.0]), 0.1)
    >>> res.status, abs(res.gap) < 1e-6
    ('optimal/optimal', True)
    """

    w: np.ndarray
    primal: float
    dual: float
    gap: float
    status: str


def hinge_svm(F: np.ndarray, y: np.ndarray, lam: float) -> SVMResult:
    """Solve :class:`SVMResult`'s primal and dual with cvxpy (Clarabel, SCS as fallback).

    Parameters
    ----------
    F : np.ndarray, shape (n, p)
        Features.
    y : np.ndarray, shape (n,)
        Labels in {-1, +1}.
    lam : float
        Ridge weight, > 0.

    Returns
    -------
    SVMResult

    Examples
    --------
    Four separable points: ``w = (1, 1)`` puts every point on the margin, and the optimum is
    ``lam/2 |w|^2 = 0.1``:

    >>> import numpy as np
    >>> F = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = hinge_svm(F, np.array([1.0, 1.0, -1.0, -1.0]), 0.1)
    >>> res.w.round(6).tolist(), round(res.primal, 6), round(res.dual, 6)
    ([1.0, 1.0], 0.1, 0.1)
    """
    import cvxpy as cp  # deferred: cvxpy is slow to import

    F = check_real_array(F, "F")
    if F.ndim != 2 or F.shape[0] < 1 or F.shape[1] < 1:
        raise InputError(f"F must be a non-empty (n, p) feature matrix, got shape {F.shape}", param="F")
    n, p = F.shape
    check_cost(
        n * p,
        MAX_SVM_ENTRIES,
        param="F",
        value=n * p,
        what="cvxpy's hinge SVM (n p feature entries)",
        hint="use fewer samples or features",
    )
    y = check_real_array(y, "y")
    if y.shape != (n,) or not np.all(np.abs(y) == 1):
        raise InputError(f"y must hold n = {n} labels in {{-1, +1}}, got shape {y.shape}", param="y")
    try:
        lam = check_real(lam, "lam", positive=True)
    except InputError:
        raise InputError(f"lam (the ridge weight) must be a finite number > 0, got {lam!r:.80}", param="lam") from None
    if float(np.abs(F).max()) > 1e150:
        raise InputError("F has entries above 1e150: its squared norms overflow float64; rescale it", param="F")
    scale = float(np.sqrt(np.mean(np.sum(F * F, 1)))) or 1.0
    Fs = F / scale  # conditioning: the problem in w' = scale w with lam' = lam / scale^2
    lam_s = lam / scale**2
    w = cp.Variable(p)
    primal = cp.Problem(cp.Minimize(lam_s / 2 * cp.sum_squares(w) + cp.sum(cp.pos(1 - cp.multiply(y, Fs @ w))) / n))
    a = cp.Variable(n)
    Yf = y[:, None] * Fs
    dual = cp.Problem(
        cp.Maximize(cp.sum(a) - cp.sum_squares(Yf.T @ a) / (2 * lam_s)),
        [a >= 0, a <= 1.0 / n],
    )
    status = []
    for prob in (primal, dual):
        for solver in ("CLARABEL", "SCS"):
            try:
                prob.solve(solver=solver)
            except cp.SolverError:
                continue
            if prob.status in ("optimal", "optimal_inaccurate"):
                break
        status.append(prob.status)
    values = (primal.value, dual.value, w.value)
    if any(v is None for v in values) or not all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values):
        raise InputError(
            f"the hinge SVM could not be solved (statuses {'/'.join(str(x) for x in status)}); rescale F or lam",
            param="F",
        )
    return SVMResult(
        w=np.asarray(w.value) / scale,
        primal=float(primal.value),
        dual=float(dual.value),
        gap=float(primal.value - dual.value),
        status="/".join(status),
    )


@dataclass(frozen=True)
class KernelResult:
    """Best test error of the CNTK's hinge-SVM classifier over the bias grid, per random init, with the duality gaps
    of every solve and ``sqrt(d) |<w0_hat, w_*>|`` of each init.

    Attributes
    ----------
    best_error : np.ndarray, shape (inits,)
        The smallest test error over the bias grid.
    best_bias : np.ndarray, shape (inits,)
        The bias attaining it.
    errors : np.ndarray, shape (inits, len(biases))
        Every test error.
    max_gap : float
        The largest absolute duality gap of the SVM solves.
    alignment : np.ndarray, shape (inits,)
        ``sqrt(d) |<w0_hat, w_*>|`` (of order 1 for a random direction, ``sqrt(d)`` for ``w_*`` itself).
    statuses : list of str
        Solver statuses of every solve.

    Examples
    --------
    >>> res = kernel_best_error(4, 2, [0.0, -0.5], 1, 40, 40, seed=0)
    >>> res.errors.shape, res.best_error.shape, res.max_gap < 1e-6
    ((1, 2), (1,), True)
    """

    best_error: np.ndarray
    best_bias: np.ndarray
    errors: np.ndarray
    max_gap: float
    alignment: np.ndarray
    statuses: list[str]


@fill_doc(_DOC)
def kernel_best_error(
    k: int,
    d: int,
    biases: Sequence[float],
    inits: int,
    n_train: int,
    n_test: int,
    seed: int,
    lam: float = 1e-3,
    m: int = 1,
    chunk: int = 500,
    w0: np.ndarray | None = None,
) -> KernelResult:
    """For ``inits`` random inits of ``m`` filters (``w0_j ~ N(0, I_d)``; only their directions matter), the CNTK
    features of ``n_train + n_test`` fresh samples (``sigma = log k/sqrt k``, ``w_* = 1/sqrt d``) at every bias of
    the grid, a hinge SVM per (init, bias) and its test error (``y k_w(X) <= 0`` counts as an error).

    ``w0`` (shape ``(inits, m, d)``, nonzero rows) replaces the random inits by given filters, e.g. ``w_*`` itself
    for a positive control; their directions are used.

    Refused before any draw (LimitError naming ``inits``, or the largest of ``n_train``/``n_test`` and ``m`` when one
    init is too much) when ``inits ((n_train + n_test) (k+1) m (d+2) + (500 ceil(n / chunk) + 2000 len(biases))
    STEP_COST)`` exceeds :func:`numerics.limits.max_mc_work`: a feature batch counts 500 and a hinge SVM (cvxpy, about
    11 ms on a loaded 2-core machine) 2000 steps of :data:`numerics.limits.STEP_COST`.

    Parameters
    ----------
    {{rows}}
    biases : sequence of float
        The bias grid (non-empty).
    inits : int
        Number of inits, >= 1.
    n_train, n_test : int
        Training and test sample sizes.
    seed : int
        Seed of ``np.random.default_rng``.
    lam : float
        Ridge weight of the SVM, > 0.
    m : int
        Filters per init, >= 1.
    chunk : int
        Samples per batch.
    w0 : np.ndarray, shape (inits, m, d), optional
        Given filters instead of random ones.

    Returns
    -------
    KernelResult

    Examples
    --------
    The positive control ``w0 = w_*`` has alignment ``sqrt(d)``:

    >>> import numpy as np
    >>> res = kernel_best_error(4, 2, [0.0], 1, 40, 40, seed=0, w0=np.ones((1, 1, 2)))
    >>> res.alignment.round(12).tolist(), res.statuses
    ([1.414213562373], ['optimal/optimal'])
    >>> kernel_best_error(4, 2, [], 1, 40, 40, seed=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: biases (the bias grid) must hold at least one bias, got an empty grid
    """
    seed = limits.check_seed(seed)
    k, d = _k(k), _d(d)
    n_train, n_test = _batch(n_train, "n_train"), _batch(n_test, "n_test")
    for name, value in (("inits", inits), ("m", m)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InputError(
                f"{name} (the number of {'inits' if name == 'inits' else 'filters'}) must be an integer "
                f">= 1, got {value!r:.80}",
                param=name,
            )
    inits, m = int(inits), int(m)
    _bias_list(biases)
    try:
        lam = check_real(lam, "lam", positive=True)
    except InputError:
        raise InputError(f"lam (the ridge weight) must be a finite number > 0, got {lam!r:.80}", param="lam") from None
    chunk = _positive_int(chunk, "chunk", "samples per batch")
    n = n_train + n_test
    draws = n * ((k + 1) * d + 2)
    big = "n_train" if n_train >= n_test else "n_test"
    big_value = n_train if big == "n_train" else n_test
    check_cost(
        n,
        MAX_MC_SAMPLES,
        param=big,
        value=big_value,
        what="Monte-Carlo sample counts (n_train + n_test)",
        hint=f"use a smaller {big}",
    )
    check_cost(
        draws,
        limits.max_mc_work(),
        param=big,
        value=big_value,
        what=f"the samples ((n_train + n_test) ((k+1) d + 2) = {format_count(n)} x {format_count((k + 1) * d + 2)})",
        hint=f"use a smaller {big}",
    )
    steps = -(-n // chunk) * 500 + len(biases) * 2000
    per_init = n * (k + 1) * m * (d + 2) + steps * STEP_COST
    if per_init * 2 <= limits.max_mc_work():  # the inits make it large; else one init is already too much
        heavy, heavy_value, hint = "inits", inits, "use fewer inits"
    else:
        heavy, heavy_value = (big, big_value) if big_value >= m else ("m", m)
        hint = f"use a smaller {heavy}"
    check_cost(
        inits * per_init,
        limits.max_mc_work(),
        param=heavy,
        value=heavy_value,
        what=f"the CNTK features and SVMs (inits ((n_train + n_test) (k+1) m (d+2) + (500 ceil(n / chunk) + 2000 "
        f"biases) STEP_COST) = {format_count(inits)} x {format_count(per_init)})",
        hint=hint,
    )
    check_cost(
        n_train * m * d,
        MAX_SVM_ENTRIES,
        param="n_train",
        value=n_train,
        what=f"one hinge SVM (n_train m d = {format_count(n_train)} x {m} x {d} feature entries)",
        hint="use a smaller n_train",
    )
    check_cost(
        inits * len(biases) * n_train * m * d,
        MAX_SVM_WORK,
        param="inits" if inits >= len(biases) else "biases",
        value=inits if inits >= len(biases) else len(biases),
        what=f"the {format_count(inits * len(biases))} hinge SVMs (inits x biases x n_train m d)",
        hint="use fewer inits or biases",
    )
    check_allocation(
        array_bytes(inits * len(biases) + 2, n, m * d),
        big,
        big_value,
        f"the features ({inits}, {len(biases)}, {format_count(n)}, {m * d}) in float64",
    )
    _bias_grid(biases, m)
    sigma = tl.noise_sigma(k)
    rng = np.random.default_rng(seed)
    w_star = np.full(d, 1 / np.sqrt(d))
    if w0 is None:
        W0 = rng.standard_normal((inits, m, d))
    else:
        try:
            W0 = np.array(w0, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputError(
                f"w0 (given filters) must be a real array of shape (inits, m, d), got {w0!r:.80}", param="w0"
            ) from None
        norms = np.linalg.norm(W0, axis=-1) if W0.ndim == 3 else np.zeros(0)
        if W0.shape != (inits, m, d) or not np.all(np.isfinite(W0)) or not np.all(norms > 0):
            raise InputError(
                f"w0 (given filters) must be a finite array of shape (inits, m, d) = ({inits}, {m}, {d}) with nonzero "
                f"rows, got shape {W0.shape}",
                param="w0",
            )
    W0 /= np.linalg.norm(W0, axis=-1, keepdims=True)
    n = n_train + n_test
    feats = np.zeros((inits, len(biases), n, m * d))
    ys = np.zeros(n)
    done = 0
    while done < n:
        size = min(chunk, n - done)
        X, y = sample_inputs(rng, size, k, d, sigma, w_star)
        ys[done : done + size] = y
        for j in range(inits):
            feats[j, :, done : done + size] = cntk_features(X, W0[j], biases)
        done += size
    errors = np.zeros((inits, len(biases)))
    gaps, statuses = [], []
    for j in range(inits):
        for i in range(len(biases)):
            F = feats[j, i]
            res = hinge_svm(F[:n_train], ys[:n_train], lam)
            gaps.append(res.gap)
            statuses.append(res.status)
            errors[j, i] = float(np.mean(ys[n_train:] * (F[n_train:] @ res.w) <= 0))
    best = errors.min(1)
    return KernelResult(
        best_error=best,
        best_bias=np.asarray(biases)[errors.argmin(1)],
        errors=errors,
        max_gap=float(np.max(np.abs(gaps))),
        alignment=np.sqrt(d) * np.abs(W0[:, 0] @ w_star),
        statuses=statuses,
    )


# --------------------------------------------------------------------------------------------------------------
# Theorem 3.2 with the infimum over w (issue 30 item 10; docs/local_signal.md, "Theorem 3.2: the infimum over w"):
# the CNTK's noise second moments by quadrature on the planes of pairs of gates, the Gaussian-limit infimum over w
# (a generalised Rayleigh quotient), a search over the gates' thresholds, and Monte Carlo of the finite-k error

__all__ += ["CNTKInfimum", "CNTKSearch", "cntk_error_mc", "cntk_gaussian_infimum", "cntk_infimum_search"]

MAX_CNTK_FILTERS = 16
"""Most frozen filters m of :func:`cntk_gaussian_infimum` (m^2 plane integrals and an eigendecomposition of size
m (m + 1))."""

MAX_THETA = 1024
"""Most Gauss-Legendre nodes per smooth piece of one plane integral of :func:`cntk_gaussian_infimum`."""


@functools.lru_cache(maxsize=8)
def _leggauss(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] (cached: every plane integral of a search uses the same)."""
    return np.polynomial.legendre.leggauss(n)


def _plane_moments(rho: float, ti: float, tj: float, n: int) -> tuple[float, np.ndarray]:
    """For ``r ~ N(0, I_2)`` and the gates ``|r_1| >= ti``, ``|rho r_1 + s r_2| >= tj`` (``s = sqrt(1 - rho^2)``):
    ``P`` and ``E[r r^T 1]``, in polar coordinates ``r = R (cos t, sin t)``: the gates hold iff ``R >= R(t) =
    max(ti/|cos t|, tj/|cos(t - t_j)|)`` (``t_j`` the angle of the second gate direction), and
    ``int_{R(t)}^inf R^{1+2} e^{-R^2/2} dR = (R(t)^2 + 2) e^{-R(t)^2/2}``. The t-integrals are split where R(t) is
    not smooth (the zeros of the two cosines and the angles where the two ratios cross), and graded around each zero
    (where ``|cos| = tau 4^j``, ``j = -2, ..., 7``: the integrand turns from 1 to 0 over a width of about tau there),
    and each piece is integrated by Gauss-Legendre on ``n`` nodes: the integrand is analytic on every piece (and
    flat, with every derivative 0, where a cosine vanishes), so the integrals are accurate to rounding for ``n`` of
    a few dozen, whatever the thresholds."""
    s = math.sqrt(max(0.0, 1.0 - rho * rho))
    tj_angle = math.atan2(s, rho)
    cuts = [0.0, 2 * math.pi, math.pi / 2, 3 * math.pi / 2, tj_angle + math.pi / 2, tj_angle - math.pi / 2]
    # near a zero t0 of a gate's cosine, e^{-tau^2/(2 cos^2)} turns from 1 to 0 over |t - t0| ~ tau: graded cuts at
    # |cos| = tau kappa resolve that scale however small tau is
    for tau, zero in ((ti, math.pi / 2), (tj, tj_angle + math.pi / 2)):
        if tau > 0:
            for kappa in 4.0 ** np.arange(-2, 8):  # 1/16 ... 16384: pieces of geometric lengths
                h = math.asin(min(1.0, tau * float(kappa)))
                cuts += [zero - h, zero + h, zero + math.pi - h, zero + math.pi + h]
    if ti > 0 and tj > 0 and s > 0:  # ti |cos(t - t_j)| = tj |cos t|: tan t = (+-tj - ti cos t_j)/(ti sin t_j)
        for sign in (1.0, -1.0):
            base = math.atan((sign * tj - ti * rho) / (ti * s))
            cuts += [base, base + math.pi]
    edges = np.unique(np.mod(np.array(cuts), 2 * math.pi))
    edges = np.concatenate([edges[edges < 2 * math.pi], [2 * math.pi]])
    if edges[0] > 0:
        edges = np.concatenate([[0.0], edges])
    x, wts = _leggauss(n)
    lo, hi = edges[:-1, None], edges[1:, None]
    t = ((hi - lo) / 2 * x + (hi + lo) / 2).ravel()
    wt = ((hi - lo) / 2 * wts).ravel() / (2 * math.pi)
    c, sn = np.cos(t), np.sin(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        ri = ti / np.abs(c) if ti > 0 else np.zeros_like(t)
        rj = tj / np.abs(rho * c + s * sn) if tj > 0 else np.zeros_like(t)
    r = np.maximum(ri, rj)
    e = np.exp(-0.5 * r * r)
    f = np.where(np.isfinite(r), (r * r + 2) * e, 0.0)
    a = np.array([[wt @ (f * c * c), wt @ (f * c * sn)], [wt @ (f * c * sn), wt @ (f * sn * sn)]])
    return float(wt @ e), a


def _gated_blocks(u0: np.ndarray, taus: np.ndarray, n: int) -> np.ndarray:
    """``M`` (blocks ``E[z z^T 1_i 1_j]``, z ~ N(0, I_r)) for unit gate directions ``u0 (m, r)`` in an
    r-dimensional coordinate space: each block is ``P (I - E E^T) + E A E^T`` with E an orthonormal basis of the
    plane of the two gate directions (the component of z orthogonal to the plane is independent of both gates)."""
    m, r = u0.shape
    M = np.zeros((m * r, m * r))
    eye = np.eye(r)
    for i in range(m):
        for j in range(i, m):
            rho = float(np.clip(u0[i] @ u0[j], -1.0, 1.0))
            perp = u0[j] - rho * u0[i]
            norm = float(np.linalg.norm(perp))
            if i == j or norm < 1e-12:  # one gate direction: |z_1| >= max of the thresholds
                p, a = _plane_moments(0.0, max(taus[i], taus[j]), 0.0, n)
                e1 = u0[i][:, None]
                block = p * (eye - e1 @ e1.T) + a[0, 0] * (e1 @ e1.T)
            else:
                p, a = _plane_moments(rho, taus[i], taus[j], n)
                E = np.stack([u0[i], perp / norm], axis=1)
                block = p * (eye - E @ E.T) + E @ a @ E.T
            M[i * r : (i + 1) * r, j * r : (j + 1) * r] = block
            M[j * r : (j + 1) * r, i * r : (i + 1) * r] = block.T
    return M


@dataclass(frozen=True)
class CNTKInfimum:
    """The Gaussian-limit infimum over w of the CNTK's error for frozen filters and gate thresholds
    (:func:`cntk_gaussian_infimum`).

    Attributes
    ----------
    error : float
        ``Phi^c(snr)``.
    snr : float
        ``sqrt(u^T M^+ u / (k sigma^2))``: the largest signal over noise standard deviation.
    taus : np.ndarray, shape (m,)
        The thresholds over sigma (``inf``: the gate is shut).
    weights : np.ndarray, shape (m, d)
        A minimising w (rows of shut filters 0), scaled so that the signal row contributes ``y``.
    signal_passes : np.ndarray of bool, shape (m,)
        Which gates the signal row passes (``D_j >= tau_j``).
    alignment : np.ndarray, shape (m,)
        ``D_j = |<w0_hat_j, w_*>| / sigma``.

    Examples
    --------
    >>> import numpy as np
    >>> w_star = np.full(21, 1 / np.sqrt(21))
    >>> res = cntk_gaussian_infimum(np.random.default_rng(0).standard_normal((2, 21)), w_star, [0.0, np.inf], 1000)
    >>> res.signal_passes.tolist(), bool(abs(res.error - 0.5 * math.erfc(res.snr / math.sqrt(2))) < 1e-12)
    ([True, False], True)
    """

    error: float
    snr: float
    taus: np.ndarray
    weights: np.ndarray
    signal_passes: np.ndarray
    alignment: np.ndarray


def _cntk_inputs(w0: object, w_star: object, k: object, sigma: object) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Checked ``(w0_hat (m, d), w_star (d,), k, sigma)``."""
    raw, w_star = w_star, check_real_array(w_star, "w_star")
    if w_star.ndim != 1 or w_star.size < 1:
        raise InputError(f"w_star must be a vector (d,), got shape {w_star.shape}", param="w_star")
    norm = float(np.linalg.norm(w_star))
    if not abs(norm - 1) <= rounding_atol(raw, 1e-9, terms=w_star.size):  # a float32 unit vector: within its rounding
        raise InputError(f"w_star must be a unit vector, got |w_star| = {norm:.10g}", param="w_star")
    W = np.atleast_2d(check_real_array(w0, "w0"))
    if W.ndim != 2 or W.shape[1] != w_star.size or not 1 <= W.shape[0] <= MAX_CNTK_FILTERS:
        raise InputError(
            f"w0 must be (m, d) with d = {w_star.size} and 1 <= m <= {MAX_CNTK_FILTERS}, got shape {W.shape}",
            param="w0",
        )
    norms = np.linalg.norm(W, axis=1)
    if not np.all(norms > 0) or not np.all(np.isfinite(norms)):
        raise InputError("w0 (the frozen filters) must have nonzero, finite rows", param="w0")
    k = _k(k)
    s = tl.noise_sigma(k) if sigma is None else _sigma(sigma)
    return W / norms[:, None], w_star, k, s


def _taus(taus: object, m: int) -> np.ndarray:
    t = check_real_array(taus, "taus", finite=False)
    if t.shape != (m,) or np.any(np.isnan(t)) or not np.all(t >= 0):
        raise InputError(f"taus must be m = {m} thresholds >= 0 (inf: shut), got {taus!r:.80}", param="taus")
    return t.astype(np.float64)


def cntk_gaussian_infimum(
    w0: np.ndarray,
    w_star: np.ndarray,
    taus: Sequence[float] | np.ndarray,
    k: int,
    sigma: float | None = None,
    n_theta: int = 32,
) -> CNTKInfimum:
    """The infimum over w of the error ``P[y k_w(X) <= 0]`` of the finite-width CNTK (Karp thesis, Sec. 3.5 and
    Theorem 3.2, App. B.2.2) with frozen filters ``w0`` and gates ``1{|<w0_hat_j, x>| >= tau_j sigma}`` (bias
    ``b_j = -tau_j sigma |w0_j|``), in the Gaussian limit of the noise sum.

    ``k_w(X) = y s + N``: the signal row contributes ``y s``, ``s = sum_{j: D_j >= tau_j} <w_j, w_*>``, and the k
    noise rows ``N = sum_i g(eps_i)``, ``g(x) = sum_j <w_j, x> 1_j(x)``, symmetric (the gates are even) and
    independent of y. So the error is ``P[N >= |s|]`` and, with N Gaussian of variance ``k sigma^2 w^T M w``
    (``M = E[Phi Phi^T]``, ``Phi_j(z) = z 1_j(z)``, ``z ~ N(0, I_d)``), ``Phi^c(|s|/sd N)``, whose infimum over w is
    ``Phi^c(sqrt(u^T M^+ u / (k sigma^2)))``, ``u = (w_* 1{D_j >= tau_j})_j`` (Cauchy-Schwarz, attained at
    ``w = M^+ u``). The problem is invariant under the rotations that fix ``U = span(w0, w_*)``, so the minimiser
    lies in ``U^m`` and M is needed on U only (size ``m dim U``); each block of M is computed in the plane of its two
    gate directions by :func:`_plane_moments` (polar coordinates, Gauss-Legendre on ``n_theta`` nodes per smooth
    piece). ``M^+`` drops the eigenvalues below ``1e-12`` times the largest: two features that differ only on a set of
    tiny probability (a gate at ``tau ~ 0`` next to an open one) give such an eigenvalue, along which the signal's
    component is 0 exactly (the signal row is in both or neither feature) and only rounding is left. A signal
    component above ``1e-6 |u|`` there means features that no noise row passes (a gate at ``tau`` so large that
    ``Phi^c(tau)`` underflows): error 0, ``snr = inf``.

    Parameters
    ----------
    w0 : np.ndarray, shape (m, d)
        The frozen filters (nonzero rows; only their directions matter).
    w_star : np.ndarray, shape (d,)
        The unit signal direction.
    taus : sequence of float, length m
        Thresholds over sigma, ``>= 0`` (``0``: the gate is always open; ``inf``: shut).
    k : int
        The number of noise rows.
    sigma : float, optional
        The noise level (default ``log k / sqrt k``).
    n_theta : int
        Gauss-Legendre nodes per smooth piece of a plane integral (at most 94 pieces), ``16 <= n_theta <=``
        :data:`MAX_THETA`.

    Returns
    -------
    CNTKInfimum

    Raises
    ------
    ValueError
        For invalid arguments.
    RuntimeError
        When M has an eigenvalue below ``-1e-9`` times the largest (the quadrature failed; never seen with the graded
        cuts).

    Examples
    --------
    One filter gated at its alignment gives :func:`theory.local_signal.cntk_single_filter_infimum`:

    >>> import numpy as np
    >>> from theory.local_signal import cntk_single_filter_infimum, noise_sigma
    >>> d, k = 21, 1000
    >>> w_star = np.full(d, 1 / np.sqrt(d))
    >>> w0 = np.random.default_rng(0).standard_normal((1, d))
    >>> D = abs(w0[0] @ w_star) / np.linalg.norm(w0) / noise_sigma(k)
    >>> res = cntk_gaussian_infimum(w0, w_star, [D * (1 - 1e-12)], k)
    >>> bool(abs(res.error - cntk_single_filter_infimum(D, k)) < 1e-9), res.signal_passes.tolist()
    (True, [True])
    """
    W, w_star, k, s = _cntk_inputs(w0, w_star, k, sigma)
    m = W.shape[0]
    t = _taus(taus, m)
    n = _positive_int(n_theta, "n_theta", "quadrature nodes")
    if n < 16:
        raise InputError(f"n_theta (quadrature nodes) must be >= 16, got {n}", param="n_theta")
    check_cost(n, MAX_THETA, param="n_theta", value=n, what="quadrature nodes per plane", hint="use fewer nodes")
    check_cost(
        m * m * 94 * n,
        MAX_MC_WORK,
        param="n_theta",
        value=n,
        what="the plane integrals (m^2 x 94 pieces x n_theta nodes)",
        hint="use a smaller n_theta",
    )
    align = np.abs(W @ w_star) / s
    passes = np.isfinite(t) & (align >= t)
    weights = np.zeros_like(W)
    active = np.flatnonzero(np.isfinite(t))
    if not passes.any():
        return CNTKInfimum(0.5, 0.0, t, weights, passes, align)
    Q, _ = np.linalg.qr(np.concatenate([W[active], w_star[None, :]]).T)  # (d, r) basis of U
    sv = np.linalg.svd(np.concatenate([W[active], w_star[None, :]]), compute_uv=False)
    Q = Q[:, : int(np.sum(sv > 1e-10 * sv[0]))]
    r = Q.shape[1]
    u0 = W[active] @ Q
    u0 /= np.linalg.norm(u0, axis=1, keepdims=True)
    M = _gated_blocks(u0, t[active], n)
    u = np.concatenate([(w_star @ Q) * float(passes[j]) for j in active])
    ev, V = np.linalg.eigh(M)
    if ev[0] < -1e-9 * max(float(ev[-1]), 1e-300):  # M is a second-moment matrix: PSD up to rounding
        raise RuntimeError(
            f"the gated second moments have an eigenvalue {ev[0]:.3g} below 0 (largest {ev[-1]:.3g}): the plane "
            f"quadrature failed at thresholds {t[active].tolist()}; use a larger n_theta"
        )
    keep = ev > 1e-12 * max(float(ev[-1]), 1e-300)  # the pseudo-inverse: rounding-level eigenvalues dropped
    coef = V.T @ u
    if np.linalg.norm(coef[~keep]) > 1e-6 * np.linalg.norm(u):  # the signal along features no noise row passes
        x = V[:, ~keep] @ coef[~keep]
        snr, err = math.inf, 0.0
    else:
        x = V[:, keep] @ (coef[keep] / ev[keep])
        snr = math.sqrt(max(float(u @ x), 0.0) / (k * s * s))
        err = float(stats.norm.sf(snr))
    x = x / float(u @ x)  # signal row contributes y
    for a, j in enumerate(active):
        weights[j] = Q @ x[a * r : (a + 1) * r]
    return CNTKInfimum(err, snr, t, weights, passes, align)


@dataclass(frozen=True)
class CNTKSearch:
    """The smallest Gaussian-limit infimum found by :func:`cntk_infimum_search`, and the work it took.

    Attributes
    ----------
    best : CNTKInfimum
        The best thresholds and their minimising w.
    evaluations : int
        Thresholds evaluated.
    candidates : list of list of float
        Each filter's candidate thresholds.

    Examples
    --------
    >>> import numpy as np
    >>> w_star = np.full(21, 1 / np.sqrt(21))
    >>> w0 = np.random.default_rng(0).standard_normal((1, 21))
    >>> res = cntk_infimum_search(w0, w_star, 1000, grid=(1.0,), n_theta=32)
    >>> len(res.candidates), res.evaluations >= len(res.candidates[0])
    (1, True)
    """

    best: CNTKInfimum
    evaluations: int
    candidates: list[list[float]] = field(default_factory=list)


def cntk_infimum_search(
    w0: np.ndarray,
    w_star: np.ndarray,
    k: int,
    grid: Sequence[float] = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0),
    sigma: float | None = None,
    n_theta: int = 32,
    exhaustive: bool = False,
) -> CNTKSearch:
    """The smallest :func:`cntk_gaussian_infimum` over gate thresholds in a candidate set: for filter j, ``inf``
    (shut), ``0`` (always open), ``D_j (1 - 1e-9)`` (the tightest gate the signal passes, Theorem B.1's optimum for
    one filter) and the ``grid`` (values above ``D_j`` shut the signal out of gate j but let it cancel noise). By
    coordinate descent from two starts (every gate at ``D_j``; every gate open), or over the whole product of the
    candidate sets when ``exhaustive``. An upper bound on the infimum over every b, not a certificate.

    Parameters
    ----------
    w0 : np.ndarray, shape (m, d)
        The frozen filters.
    w_star : np.ndarray, shape (d,)
        The unit signal direction.
    k : int
        The number of noise rows.
    grid : sequence of float
        Extra thresholds over sigma, ``>= 0``.
    sigma : float, optional
        The noise level (default ``log k / sqrt k``).
    n_theta : int
        Gauss-Legendre nodes per smooth piece of a plane integral.
    exhaustive : bool
        Every combination (``(len(grid) + 3)^m`` evaluations) instead of coordinate descent.

    Returns
    -------
    CNTKSearch

    Examples
    --------
    >>> import numpy as np
    >>> d = 21
    >>> w_star = np.full(d, 1 / np.sqrt(d))
    >>> w0 = np.random.default_rng(0).standard_normal((2, d))
    >>> res = cntk_infimum_search(w0, w_star, 1000, grid=(1.0,), n_theta=32)
    >>> 0.1 < res.best.error < 0.5, res.evaluations > 2
    (True, True)
    """
    W, w_star, k, s = _cntk_inputs(w0, w_star, k, sigma)
    m = W.shape[0]
    g = check_real_array(grid, "grid")
    if g.ndim != 1 or g.size > 64 or np.any(g < 0):
        raise InputError(f"grid must be at most 64 thresholds >= 0, got {grid!r:.80}", param="grid")
    exhaustive = limits.check_bool(exhaustive, "exhaustive")
    align = np.abs(W @ w_star) / s
    cands = [sorted({math.inf, 0.0, float(a) * (1 - 1e-9), *map(float, g)}) for a in align]
    if exhaustive:
        check_cost(
            len(cands[0]) ** m,
            10**5,
            param="grid",
            value=g.size,
            what="the threshold combinations",
            hint="use a shorter grid or coordinate descent",
        )

    def evaluate(t: Sequence[float] | np.ndarray) -> CNTKInfimum:
        return cntk_gaussian_infimum(W, w_star, list(t), k, s, n_theta)

    best, evaluations = None, 0
    if exhaustive:
        import itertools

        for combo in itertools.product(*cands):
            res = evaluate(combo)
            evaluations += 1
            if best is None or res.error < best.error:
                best = res
    else:
        for start in (align * (1 - 1e-9), np.zeros(m)):
            cur = evaluate(start)
            evaluations += 1
            improved = True
            while improved:
                improved = False
                for j in range(m):
                    for tj in cands[j]:
                        if tj == cur.taus[j]:
                            continue
                        trial = cur.taus.copy()
                        trial[j] = tj
                        res = evaluate(trial)
                        evaluations += 1
                        if res.error < cur.error - 1e-12:
                            cur, improved = res, True
            if best is None or cur.error < best.error:
                best = cur
    assert best is not None
    return CNTKSearch(best, evaluations, [list(c) for c in cands])


def cntk_error_mc(
    w0: np.ndarray,
    weights: np.ndarray,
    taus: Sequence[float] | np.ndarray,
    w_star: np.ndarray,
    k: int,
    n: int,
    seed: int,
    sigma: float | None = None,
    chunk: int = 250,
) -> tuple[float, float]:
    """Monte Carlo of the finite-k error ``P[y k_w(X) <= 0]`` of the CNTK (Karp thesis, Sec. 3.5) with frozen filters
    ``w0``, weights ``w`` and biases ``b_j = -tau_j sigma |w0_j|`` (shut filters, ``tau_j = inf``, dropped), on ``n``
    fresh samples of :func:`sample_inputs` (k noise rows and the signal row), the kernel evaluated from
    :func:`cntk_features`: independent of the Gaussian limit of :func:`cntk_gaussian_infimum`.

    Parameters
    ----------
    w0, weights : np.ndarray, shape (m, d)
        The frozen filters and the kernel weights.
    taus : sequence of float, length m
        Thresholds over sigma (``inf``: shut).
    w_star : np.ndarray, shape (d,)
        The unit signal direction.
    k : int
        The number of noise rows.
    n : int
        Samples, ``>= 2``.
    seed : int
        Seed of ``np.random.default_rng``.
    sigma : float, optional
        The noise level (default ``log k / sqrt k``).
    chunk : int
        Samples per batch.

    Returns
    -------
    tuple of float
        ``(error frequency, standard error)`` (the standard error at least ``1/n``).

    Examples
    --------
    Without gates and with ``w = w_*`` this is the linear classifier, error ``Phi(-1/(sigma sqrt k))``:

    >>> import numpy as np
    >>> w_star = np.array([1.0, 0.0])
    >>> p, se = cntk_error_mc(w_star[None], w_star[None], [0.0], w_star, 16, 4000, seed=0, sigma=0.25)
    >>> abs(p - 0.1587) < 4 * se
    True
    """
    seed = limits.check_seed(seed)
    W, w_star, k, s = _cntk_inputs(w0, w_star, k, sigma)
    m, d = W.shape
    w = check_real_array(weights, "weights")
    if w.shape != (m, d):
        raise InputError(f"weights must have the shape {(m, d)} of w0, got {w.shape}", param="weights")
    t = _taus(taus, m)
    n = _batch(n, "n")
    if n < 2:
        raise InputError(f"n must be >= 2 (a standard error), got {n}", param="n")
    chunk = _positive_int(chunk, "chunk", "samples per batch")
    check_mc(n, "n", (k + 1) * d * (m + 1), "n ((k+1) d (m+1) entries)", sizes={"k": k, "d": d})
    on = np.isfinite(t)
    rng = np.random.default_rng(seed)
    if not on.any():
        return 1.0, 1.0 / n  # k_w = 0: sign(0) != y, every sample is an error
    biases = [-(t[on] * s)]
    flat = w[on].reshape(-1)
    errors, done = 0, 0
    while done < n:
        size = min(chunk, n - done)
        X, y = sample_inputs(rng, size, k, d, s, w_star)
        F = cntk_features(X, W[on], biases)[0]
        errors += int(np.sum(y * (F @ flat) <= 0))
        done += size
    p = errors / n
    return p, max(math.sqrt(p * (1 - p) / n), 1.0 / n)
