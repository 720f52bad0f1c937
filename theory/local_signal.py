r"""Local signal adaptivity: a one-filter CNN with a soft-threshold activation against its kernel (exact and
high-precision closed forms).

Source: Karp thesis (2024), Ch. 3 (Sec. 3.3-3.5) and App. B (B.1.1-B.1.3, B.2). The setting, the derivations
that the thesis leaves implicit and its errata are explained in ``docs/local_signal.md``.

Setting. An input X has k + 1 rows in R^d: one signal row ``y w_*`` (``||w_*|| = 1``, ``y`` uniform in {-1, +1})
and k noise rows ``eps_i ~ N(0, sigma^2 I_d)`` with ``sigma = log k / sqrt(k)`` (Sec. 3.3). The CNN is
``f_{w,b}(X) = sum_i phi_b(<w, X_i>)`` with ``phi_b(x) = ReLU(x + b) - ReLU(-x + b)``. For ``w = c w_*`` and
``b = -tau c`` (``0 <= tau < 1``, ``c > 0``) the classifier is correct iff
``sum_i S_tau(A_i) > -(1 - tau)`` with ``A_i ~ N(0, sigma^2)`` and the soft threshold
``S_tau(a) = sign(a) (|a| - tau)_+``, so its error ``err(tau)`` does not depend on c or d.

What is here (floats from ``math``/``mpmath``; sympy expressions where the value is a closed form):

* the activation, its derivatives and the soft threshold (:func:`soft_threshold`, :func:`soft_threshold_dx`,
  :func:`soft_threshold_db`, :func:`shrink`);
* Gaussian facts: the moments of ``S_tau(A)`` (:func:`soft_threshold_moments`), the truncated-normal moments
  (B.1)-(B.3) (:func:`truncated_moments`), the regressions (B.4)-(B.5) (:func:`regression_coefficients`), the
  Mills-ratio bounds (B.6) (:func:`mills_ratio`, :func:`mills_bounds`), the maxima of Lemmas B.1/B.2 exactly and
  their union bounds (:func:`max_exceedance`);
* the linear convolutional classifier's error ``Phi(-1/log k)`` (:func:`linear_classifier_error`);
* the error curve ``err(tau)`` by Fourier inversion (:func:`error_curve`), its CLT approximation
  (:func:`clt_error`), the tail floor (:func:`error_floor`) and the 0-1 optimal threshold ``tau*``
  (:func:`optimal_threshold`);
* Lemma B.11's event probability (one frozen filter) exactly, by the Mehler series of a bivariate normal
  (:func:`lemma_b11_event_probability`, :func:`bivariate_abs_tail`);
* Lemma B.5's numbers (:func:`lemma_b5`) and the k at which the proofs' asymptotic conditions start to hold
  (:func:`crossovers`);
* :func:`derive_signal`, the summary printed by ``tvk derive signal``.

Validation: ``k >= 2`` (an integer), ``d >= 1``, ``sigma > 0``, ``tau`` in [0, 1), batch size >= 1, finite real
numbers elsewhere; anything else raises :class:`theory._checks.InputError` (a :class:`ValueError`) naming the
parameter and its range. Sizes are checked before the work (:class:`theory._checks.LimitError`): the float formulas
take ``k <= MAX_FLOAT_K``, one :func:`error_curve` integral at most :data:`MAX_INVERSION_PANELS` panels (estimated
from k, tau, sigma and tol), an :func:`optimal_threshold` search at most :data:`MAX_SEARCH_PANELS`, and
:func:`derive_signal` ``k <= MAX_DERIVE_K``.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TypeGuard

import mpmath
import sympy

from ._checks import InputError, LimitError, as_fraction, check_bool, check_cost, format_count
from ._docstrings import fill_doc, sections

__all__ = [
    "MAX_B4_D",
    "MAX_B4_K",
    "MAX_B12_ENTRIES",
    "MAX_FLOAT_K",
    "MAX_INVERSION_PANELS",
    "MAX_MEHLER_TERMS",
    "MAX_SEARCH_PANELS",
    "RESOLVABLE_ERROR",
    "SOURCE",
    "LemmaB5",
    "LemmaB12Reduction",
    "OptimalThreshold",
    "bivariate_abs_tail",
    "check_batch",
    "check_d",
    "check_k",
    "check_sigma",
    "check_tau",
    "clt_error",
    "cnn_gradient",
    "cntk_feature_as_printed",
    "crossovers",
    "derive_signal",
    "error_curve",
    "error_floor",
    "exact_number",
    "faddeeva",
    "floor_approximation",
    "format_signal",
    "gradient_structure_residual",
    "kernel_error_bound",
    "lemma_b4_batch_size",
    "lemma_b4_failure_probability",
    "lemma_b4_hoeffding_bound",
    "lemma_b4_tolerance",
    "lemma_b4_truncation_probability",
    "lemma_b5",
    "lemma_b11_event_probability",
    "lemma_b12_reduction",
    "linear_classifier_error",
    "linear_classifier_error_exact",
    "linear_error_as_printed",
    "max_exceedance",
    "mills_bounds",
    "mills_ratio",
    "noise_sigma",
    "noise_sigma_exact",
    "normal_cdf",
    "normal_pdf",
    "normal_quantile",
    "normal_sf",
    "optimal_threshold",
    "reduction_difference",
    "regression_coefficients",
    "shrink",
    "soft_threshold",
    "soft_threshold_cf",
    "soft_threshold_db",
    "soft_threshold_dx",
    "soft_threshold_moments",
    "t2_as_printed",
    "t2_corrected",
    "theorem31_error_level",
    "truncated_moments",
    "union_bound",
]

SOURCE = "Karp thesis (2024), Ch. 3 and App. B"

# --------------------------------------------------------------------------------------------------------------
# Shared docstring sections (:func:`theory._docstrings.fill_doc`)

_K = """
k : int
    The number of noise rows, ``k >= 2``.
"""
_SIGMA_OR_DEFAULT = "sigma : float or None, optional\n    The noise standard deviation (default ``log k / sqrt k``)."
_TAU_SIGMA = """
tau : float
    The threshold, ``tau >= 0``.
sigma : float
    The standard deviation of ``A``, ``sigma > 0``.
"""
_C_ENTRIES = """
C : number
    The rate of Lemma 3.3 (finite, > 0).
C2 : number
    The constant of Lemma 3.3 (finite, > 0).
C3 : number
    The constant of Lemma B.7 (finite, > 0).
eta_b : number
    The bias step size (finite, > 0).
"""

_DOC = {
    "k": _K.strip("\n"),
    "k_section": sections(_K),
    "k_float": sections(_K, returns="float"),
    "k_expr": sections(_K, returns="sympy.Expr"),
    "sigma_or_default": _SIGMA_OR_DEFAULT,
    "k_sigma_float": sections(_K, _SIGMA_OR_DEFAULT, returns="float"),
    "tau_sigma": _TAU_SIGMA.strip("\n"),
    "k_rows_sigma": "k : int\n    Noise rows, ``k >= 2``.\nsigma : float\n    Noise standard deviation, > 0.",
    "x_float": sections("x : float", returns="float"),
    "x_b": sections("x : float\n    The pre-activation.\nb : float\n    The bias."),
    "t2": sections(_C_ENTRIES, _K, returns="sympy.Expr\n    ``T_2``, exact."),
    "int_or_error": sections(returns="int", raises="ValueError"),
    "float_or_error": sections(returns="float", raises="ValueError"),
    "int_zero": sections(returns="int\n    0."),
    "expr_or_error": sections(returns="sympy.Expr", raises="ValueError"),
}


# --------------------------------------------------------------------------------------------------------------
# Validation


def _is_int(value: object) -> TypeGuard[numbers.Integral]:
    return isinstance(value, (numbers.Integral, sympy.Integer)) and not isinstance(value, bool)


@fill_doc(_DOC)
def check_k(k: object, *, minimum: int = 2) -> int:
    """The number of noise rows k as an int >= ``minimum`` (Sec. 3.3 needs k >= 2 for sigma = log k / sqrt k > 0).

    Parameters
    ----------
    k : int
        The number of noise rows (an int or a sympy Integer; not a bool or a float).
    minimum : int, optional
        The smallest accepted value (default 2).

    {{int_or_error}}
        For a non-integer or ``k < minimum``.

    Examples
    --------
    >>> from theory.local_signal import check_k
    >>> check_k(10)
    10
    >>> check_k(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: k (the number of noise rows) must be an integer >= 2 (sigma = log k / sqrt k must be > 0), got k = 1
    """
    if not _is_int(k):
        raise InputError(f"k (the number of noise rows) must be an integer >= {minimum}, got {k!r:.80}", param="k")
    if int(k) < minimum:
        raise InputError(
            f"k (the number of noise rows) must be an integer >= {minimum} (sigma = log k / sqrt k must be > 0), "
            f"got k = {int(k)}",
            param="k",
        )
    return int(k)


MAX_FLOAT_K = 10**300
"""Largest k of the float formulas (sigma = log k / sqrt k, k Phi^c(1/sigma), ...): k must be a float. The exact
forms (:func:`noise_sigma_exact`, :func:`linear_classifier_error_exact`, :func:`union_bound`) take any k."""


def _float_k(k: object, name: str = "k") -> int:
    """:func:`check_k`, and k <= :data:`MAX_FLOAT_K` (the float formulas multiply by k)."""
    if name != "k":
        if not _is_int(k) or int(k) < 2:
            raise InputError(f"{name} must be an integer >= 2, got {k!r:.80}", param=name)
        k = int(k)
    else:
        k = check_k(k)
    if k > MAX_FLOAT_K:
        raise LimitError(
            f"{name} = {format_count(k)} is above the limit {name} <= 10^300 of the float formulas (k is a float "
            "factor); noise_sigma_exact and linear_classifier_error_exact are exact for any k",
            param=name,
            value=k,
            limit=MAX_FLOAT_K,
            hint="noise_sigma_exact and linear_classifier_error_exact are exact for any k",
        )
    return k


def _check_limits(limits: tuple[tuple[str, int, int], ...], of: str) -> None:
    """Raise :class:`LimitError` for the first ``(name, value, limit)`` of ``limits`` with ``value > limit``:
    "name = value is above the limit name <= limit of ``of``", both numbers as :func:`format_count` writes them."""
    for name, value, limit in limits:
        if value > limit:
            raise LimitError(
                f"{name} = {format_count(value)} is above the limit {name} <= {format_count(limit)} of {of}",
                param=name,
                value=value,
                limit=limit,
            )


def _finite(x: object, name: str, *, allow_inf: bool = False) -> float:
    """``x`` as a float: a real number (not a bool, not a string), not NaN, within the float range (and finite unless
    ``allow_inf``)."""
    if isinstance(x, (bool, str, bytes)) or (not isinstance(x, (numbers.Real, sympy.Basic)) and not hasattr(x, "item")):
        raise InputError(f"{name} must be a real number, got {x!r:.80}", param=name)
    try:
        v = float(x)  # type: ignore[arg-type]
    except OverflowError:
        raise InputError(f"{name} must lie in the float range, got {format_count(x)}", param=name) from None
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a real number, got {x!r:.80}", param=name) from None
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise InputError(f"{name} must be a finite number, got {x!r:.80}", param=name)
    return v


def _mpf(x: object) -> mpmath.mpf:
    """``x`` (a real number that :func:`_finite` accepted) as an mpmath number; a numpy scalar through its Python
    value (mpmath refuses ``numpy.int64``)."""
    item = getattr(x, "item", None)
    return mpmath.mpf(item() if callable(item) and not isinstance(x, sympy.Basic) else x)


def _check_tol(tol: object) -> float:
    t = _finite(tol, "tol")
    if not t > 0:
        raise InputError(
            f"tol (the accuracy of the inversion integral) must be a finite number > 0, got {tol!r}", param="tol"
        )
    return t


@fill_doc(_DOC)
def check_d(d: object) -> int:
    """The patch dimension d as an int >= 1.

    Parameters
    ----------
    d : int
        The patch dimension.

    {{int_or_error}}
        For a non-integer or ``d < 1``.

    Examples
    --------
    >>> from theory.local_signal import check_d
    >>> check_d(3)
    3
    >>> check_d(0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: d (the patch dimension) must be an integer >= 1, got 0
    """
    if not _is_int(d) or int(d) < 1:
        raise InputError(f"d (the patch dimension) must be an integer >= 1, got {d!r:.80}", param="d")
    return int(d)


@fill_doc(_DOC)
def check_sigma(sigma: object) -> float:
    """A noise standard deviation: a finite float > 0.

    Parameters
    ----------
    sigma : float
        Anything ``float()`` takes.

    {{float_or_error}}
        For a non-number, a non-finite value or ``sigma <= 0``.

    Examples
    --------
    >>> from theory.local_signal import check_sigma
    >>> check_sigma("0.5")
    0.5
    >>> check_sigma(-1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: sigma (the noise standard deviation) must be a finite number > 0, got sigma = -1
    """
    try:
        s = float(sigma)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InputError(
            f"sigma (the noise standard deviation) must be a finite number > 0, got {sigma!r:.80}", param="sigma"
        ) from None
    if not math.isfinite(s) or s <= 0:
        raise InputError(
            f"sigma (the noise standard deviation) must be a finite number > 0, got sigma = {sigma!r:.80}",
            param="sigma",
        )
    return s


@fill_doc(_DOC)
def check_tau(tau: object) -> float:
    """A threshold ratio tau = |b|/c in [0, 1) (tau >= 1 thresholds the signal row away as well).

    Parameters
    ----------
    tau : float
        Anything ``float()`` takes.

    {{float_or_error}}
        For a non-number or ``tau`` outside ``[0, 1)``.

    Examples
    --------
    >>> from theory.local_signal import check_tau
    >>> check_tau(0)
    0.0
    >>> check_tau(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: tau (= |b|/c) must lie in [0, 1) (tau >= 1 removes the signal row as well), got tau = 1
    """
    try:
        t = float(tau)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"tau (= |b|/c) must be a number in [0, 1), got {tau!r:.80}", param="tau") from None
    if not (0.0 <= t < 1.0):
        raise InputError(
            f"tau (= |b|/c) must lie in [0, 1) (tau >= 1 removes the signal row as well), got tau = {tau!r:.80}",
            param="tau",
        )
    return t


@fill_doc(_DOC)
def check_batch(batch: object, name: str = "batch") -> int:
    """A batch (or sample) size as an int >= 1.

    Parameters
    ----------
    batch : int
        The size.
    name : str, optional
        The parameter's name in the message.

    {{int_or_error}}
        For a non-integer or a size below 1.

    Examples
    --------
    >>> from theory.local_signal import check_batch
    >>> check_batch(64)
    64
    >>> check_batch(0, "samples")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: samples (a batch size) must be an integer >= 1, got 0
    """
    if not _is_int(batch) or int(batch) < 1:
        raise InputError(f"{name} (a batch size) must be an integer >= 1, got {batch!r:.80}", param=str(name))
    return int(batch)


# --------------------------------------------------------------------------------------------------------------
# The setting


@fill_doc(_DOC)
def noise_sigma(k: int) -> float:
    """``sigma = log k / sqrt(k)`` (Sec. 3.3; natural log, as in the authors' code).

    {{k_float}}

    Examples
    --------
    >>> from theory.local_signal import noise_sigma
    >>> round(noise_sigma(100), 12)  # log(100) / 10
    0.460517018599
    """
    k = _float_k(k)
    return math.log(k) / math.sqrt(k)


@fill_doc(_DOC)
def noise_sigma_exact(k: int) -> sympy.Expr:
    """``sigma = log k / sqrt(k)`` as a sympy expression.

    {{k_expr}}

    Examples
    --------
    >>> from theory.local_signal import noise_sigma, noise_sigma_exact
    >>> noise_sigma_exact(100)
    log(100)/10
    >>> abs(float(noise_sigma_exact(100)) - noise_sigma(100)) < 1e-15
    True
    """
    k = check_k(k)
    return sympy.log(sympy.Integer(k)) / sympy.sqrt(sympy.Integer(k))


def soft_threshold(x: float, b: float) -> float:
    """``phi_b(x) = ReLU(x + b) - ReLU(-x + b)`` (Sec. 3.3). Odd in x; for b < 0 it is ``sign(x)(|x| - |b|)_+``,
    for b >= 0 it is ``2x`` on ``|x| <= b`` and ``x + b sign(x)`` beyond.

    Parameters
    ----------
    x : float
        The pre-activation ``<w, X_i>``.
    b : float
        The bias.

    Returns
    -------
    float

    Examples
    --------
    >>> from theory.local_signal import soft_threshold
    >>> [soft_threshold(x, -0.5) for x in (-2.0, -0.25, 0.25, 2.0)]  # b < 0: shrink by |b|
    [-1.5, 0.0, 0.0, 1.5]
    >>> [soft_threshold(x, 0.5) for x in (-2.0, -0.25, 0.25, 2.0)]  # b >= 0: 2x inside, x + b sign(x) beyond
    [-2.5, -0.5, 0.5, 2.5]
    """
    _finite(x, "x")
    _finite(b, "b")
    return max(x + b, 0.0) - max(-x + b, 0.0)


@fill_doc(_DOC)
def soft_threshold_dx(x: float, b: float) -> float:
    """``d phi_b / dx = 1{x + b > 0} + 1{-x + b > 0}`` (the gradient used in App. B.1.1, ties of measure 0).

    {{x_b}}

    Returns
    -------
    float
        0, 1 or 2.

    Examples
    --------
    >>> from theory.local_signal import soft_threshold_dx
    >>> [soft_threshold_dx(x, -0.5) for x in (-2.0, -0.25, 0.25, 2.0)]
    [1.0, 0.0, 0.0, 1.0]
    >>> [soft_threshold_dx(x, 0.5) for x in (-2.0, -0.25, 0.25, 2.0)]
    [1.0, 2.0, 2.0, 1.0]
    """
    _finite(x, "x")
    _finite(b, "b")
    return float(x + b > 0) + float(-x + b > 0)


@fill_doc(_DOC)
def soft_threshold_db(x: float, b: float) -> float:
    """``d phi_b / db = 1{x + b > 0} - 1{-x + b > 0}``.

    {{x_b}}

    Returns
    -------
    float
        -1, 0 or 1.

    Examples
    --------
    >>> from theory.local_signal import soft_threshold_db
    >>> [soft_threshold_db(x, -0.5) for x in (-2.0, -0.25, 0.25, 2.0)]
    [-1.0, 0.0, 0.0, 1.0]
    """
    _finite(x, "x")
    _finite(b, "b")
    return float(x + b > 0) - float(-x + b > 0)


def shrink(a: float, tau: float) -> float:
    """The soft threshold ``S_tau(a) = sign(a)(|a| - tau)_+`` = ``phi_{-tau}(a)`` for ``tau >= 0``.

    Parameters
    ----------
    a : float
        The input.
    tau : float
        The threshold, ``tau >= 0``.

    Returns
    -------
    float

    Examples
    --------
    >>> from theory.local_signal import shrink, soft_threshold
    >>> shrink(2.0, 0.5), shrink(-0.25, 0.5)
    (1.5, -0.0)
    >>> all(shrink(a, 0.5) == soft_threshold(a, -0.5) for a in (-2.0, -0.25, 0.25, 2.0))
    True
    """
    _finite(a, "a")
    if not _finite(tau, "tau") >= 0:
        raise InputError(f"tau must be >= 0 for the soft threshold S_tau, got tau = {tau!r}", param="tau")
    return math.copysign(max(abs(a) - tau, 0.0), a)


# --------------------------------------------------------------------------------------------------------------
# Gaussian facts


@fill_doc(_DOC)
def normal_pdf(x: float) -> float:
    """Standard normal density phi(x).

    {{x_float}}

    Examples
    --------
    >>> import math
    >>> from theory.local_signal import normal_pdf
    >>> normal_pdf(0.0) == 1 / math.sqrt(2 * math.pi)
    True
    """
    x = _finite(x, "x", allow_inf=True)
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


@fill_doc(_DOC)
def normal_cdf(x: float) -> float:
    """Standard normal CDF Phi(x) (via erfc, accurate in the lower tail).

    {{x_float}}

    Examples
    --------
    >>> from theory.local_signal import normal_cdf
    >>> normal_cdf(0.0), normal_cdf(-1.0) + normal_cdf(1.0)
    (0.5, 1.0)
    >>> f"{normal_cdf(-10.0):.6e}"  # no cancellation in the lower tail
    '7.619853e-24'
    """
    x = _finite(x, "x", allow_inf=True)
    return 0.5 * math.erfc(-x / math.sqrt(2))


@fill_doc(_DOC)
def normal_sf(x: float) -> float:
    """Standard normal tail Phi^c(x) = 1 - Phi(x) (via erfc, accurate in the upper tail).

    {{x_float}}

    Examples
    --------
    >>> from theory.local_signal import normal_cdf, normal_sf
    >>> f"{normal_sf(10.0):.6e}", 1 - normal_cdf(10.0)  # 1 - Phi cancels to 0
    ('7.619853e-24', 0.0)
    """
    x = _finite(x, "x", allow_inf=True)
    return 0.5 * math.erfc(x / math.sqrt(2))


@fill_doc(_DOC)
def normal_quantile(p: float) -> float:
    """Phi^{-1}(p) for p in (0, 1) (mpmath, 30 significant digits: the working precision grows with the digits
    ``1 - 2p`` loses to cancellation in the lower tail, so ``p = 1e-300`` is as accurate as ``p = 0.01``).

    Parameters
    ----------
    p : float
        A probability in ``(0, 1)``.

    {{float_or_error}}
        For ``p`` outside ``(0, 1)``.

    Examples
    --------
    >>> from theory.local_signal import normal_cdf, normal_quantile
    >>> round(normal_quantile(0.975), 6), normal_quantile(0.5)
    (1.959964, 0.0)
    >>> abs(normal_cdf(normal_quantile(0.01)) - 0.01) < 1e-15
    True
    >>> normal_quantile(1e-100)  # far in the tail: no cancellation to -inf
    -21.273453560965326
    >>> normal_quantile(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: p must lie in (0, 1), got 1
    """
    q = _finite(p, "p", allow_inf=True)  # a float: numpy scalars and Fractions too
    if not 0 < q < 1:
        raise InputError(f"p must lie in (0, 1), got {p!r}", param="p")
    lost = max(0, math.ceil(-math.log10(min(q, 1 - q))))  # digits of 1 - 2p lost to cancellation (<= 324)
    with mpmath.workdps(30 + lost):
        return float(-mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(q)))


@fill_doc(_DOC)
def exact_number(x: object) -> sympy.Expr:
    """``x`` as an exact sympy number: ints and Fractions exactly, decimal strings and floats by their decimal text
    (``0.4`` is 2/5), sympy numbers unchanged.

    Parameters
    ----------
    x : int, fractions.Fraction, float, str or sympy number

    {{expr_or_error}}
        For a bool or a non-number.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.local_signal import exact_number
    >>> exact_number(0.4), exact_number("1e-3"), exact_number(Fraction(2, 6))
    (2/5, 1/1000, 1/3)
    >>> exact_number(True)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: x must be a number, got the bool True
    """
    return _exact(x, "x")


def _exact(x: object, name: str) -> sympy.Expr:
    """:func:`exact_number`, naming ``name`` in the error."""
    if isinstance(x, sympy.Basic):
        if x.is_number and (x.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or x.is_finite is False):
            raise InputError(f"{name}: expected a finite number, got {x}", param=name)
        return x
    q = as_fraction(x, name, floats="decimal")  # strings are parsed with their exponent bounded (MAX_DIGITS)
    return sympy.Rational(q.numerator, q.denominator)


def _sf_mp(x: mpmath.mpf) -> mpmath.mpf:
    """Phi^c(x) = erfc(x / sqrt 2) / 2 at the working precision. Beyond |x| = 1e6 the asymptotic series
    ``phi(x)/x sum_j (-1)^j (2j-1)!! / x^(2j)`` (8 terms, relative error below 1e-80): mpmath's erfc loses the digits of
    the exponent x^2/2 there (7e-12 relative at x = 1e10) and overflows a float inside beyond x = 1e154."""
    if abs(x) <= 1e6:
        return mpmath.erfc(x / mpmath.sqrt(2)) / 2
    u = abs(x)
    term, series = mpmath.mpf(1), mpmath.mpf(1)
    for j in range(1, 8):
        term *= -(2 * j - 1) / u**2
        series += term
    tail = mpmath.npdf(u) / u * series
    return tail if x > 0 else 1 - tail


@fill_doc(_DOC)
def mills_ratio(x: float) -> float:
    """The Mills ratio ``Phi^c(x) / phi(x)`` (mpmath at 30 digits, so no cancellation for large x).

    {{x_float}}

    Examples
    --------
    ``sqrt(pi/2)`` at 0 and about ``1/x`` for large ``x``:

    >>> import math
    >>> from theory.local_signal import mills_ratio
    >>> abs(mills_ratio(0.0) - math.sqrt(math.pi / 2)) < 1e-15
    True
    >>> round(mills_ratio(40.0), 8), 1 / 40
    (0.0249844, 0.025)
    """
    _finite(x, "x")
    with mpmath.workdps(30):
        xm = _mpf(x)
        value = float(_sf_mp(xm) / mpmath.npdf(xm))
    if not math.isfinite(value):
        raise InputError(
            f"x = {x!r}: the Mills ratio (about exp(x^2/2) sqrt(2 pi) for x < 0) is beyond the float range; it is "
            "finite for x >= -37.5",
            param="x",
        )
    return value


MILLS_EXACT_DIGITS = 100  # beyond this many digits in x's numerator or denominator, mills_bounds works in floats
MILLS_FLOAT_DIGITS = 60  # the precision it then uses


def mills_bounds(x: object) -> tuple[sympy.Expr, sympy.Expr]:
    """(B.6): ``2/(sqrt(x^2 + 4) + x) <= Phi^c(x)/phi(x) <= 2/(sqrt(x^2 + 2) + x)`` for ``x >= 0`` (exact sympy).

    ``x`` may be an int, a Fraction, a decimal string or a sympy number (taken exactly). An exact x whose numerator
    or denominator exceeds ``10**MILLS_EXACT_DIGITS`` (such as 1e-300 taken exactly) is evaluated to
    ``MILLS_FLOAT_DIGITS`` digits instead: sympy's exact square root of 4 + 10^-600 fails inside its factoring
    (found by the property test).

    Parameters
    ----------
    x : int, fractions.Fraction, str or sympy number
        ``x >= 0``, taken exactly (:func:`exact_number`).

    Returns
    -------
    tuple of sympy.Expr
        ``(lower, upper)``.

    Raises
    ------
    ValueError
        For ``x < 0``.

    Examples
    --------
    >>> from theory.local_signal import mills_bounds, mills_ratio
    >>> mills_bounds(1)
    (2/(1 + sqrt(5)), 2/(1 + sqrt(3)))
    >>> lo, hi = mills_bounds(1)
    >>> float(lo) < mills_ratio(1.0) < float(hi)
    True
    >>> mills_bounds(-1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the Mills-ratio bounds (B.6) are stated for x >= 0, got x = -1
    """
    xs = _exact(x, "x")
    if not xs.is_number or xs.is_real is not True:
        raise InputError(f"x must be a real number, got {x!r:.80}", param="x")
    if xs.is_negative:
        raise InputError(f"the Mills-ratio bounds (B.6) are stated for x >= 0, got x = {x!r}", param="x")
    if xs.is_Rational and max(abs(xs.p), xs.q) > 10**MILLS_EXACT_DIGITS:
        xs = sympy.Float(xs, MILLS_FLOAT_DIGITS)
    return 2 / (sympy.sqrt(xs**2 + 4) + xs), 2 / (sympy.sqrt(xs**2 + 2) + xs)


@fill_doc(_DOC)
def soft_threshold_moments(tau: float, sigma: float) -> tuple[float, float, float]:
    """Moments of ``S = S_tau(A)``, ``A ~ N(0, sigma^2)``, ``a = tau / sigma`` (derived in docs/local_signal.md):

    ``P[S != 0] = 2 Phi^c(a)``, ``E|S| = 2 sigma [phi(a) - a Phi^c(a)]``,
    ``E S^2 = 2 sigma^2 [(1 + a^2) Phi^c(a) - a phi(a)]``. Needs ``tau >= 0`` (any size) and ``sigma > 0``.

    Parameters
    ----------
    {{tau_sigma}}

    Returns
    -------
    tuple of float
        ``(P[S != 0], E|S|, E S^2)``.

    Raises
    ------
    ValueError
        For ``tau < 0`` (or not finite) or an invalid ``sigma``.

    Examples
    --------
    At ``tau = 0``, ``S = A``: ``(1, sigma sqrt(2/pi), sigma^2)``:

    >>> import math
    >>> from theory.local_signal import soft_threshold_moments
    >>> p, m1, m2 = soft_threshold_moments(0.0, 1.0)
    >>> p, abs(m1 - math.sqrt(2 / math.pi)) < 1e-15, m2
    (1.0, True, 1.0)
    >>> [round(m, 6) for m in soft_threshold_moments(1.0, 1.0)]
    [0.317311, 0.166631, 0.15068]
    """
    sigma = check_sigma(sigma)
    if not _finite(tau, "tau") >= 0:
        raise InputError(f"tau must be a finite number >= 0 for the soft threshold S_tau, got {tau!r}", param="tau")
    moments = _moments_mp(tau, sigma)
    out = (float(moments[0]), float(moments[1]), float(moments[2]))
    if not all(math.isfinite(m) for m in out):
        raise InputError(
            f"sigma = {sigma!r} is too large: E S^2 = 2 sigma^2 [...] is beyond the float range", param="sigma"
        )
    return out


def _moments_mp(tau: float, sigma: float) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """The moments of :func:`soft_threshold_moments` as mpmath numbers (no underflow of E S^2 for a tiny sigma)."""
    with mpmath.workdps(30):
        a = _mpf(tau) / sigma
        sf = _sf_mp(a)
        pdf = mpmath.npdf(a)
        try:
            scale = 2 * sigma**2  # the float factor of the original formula (same rounding)
        except OverflowError:
            scale = 2 * mpmath.mpf(sigma) ** 2
        return 2 * sf, 2 * sigma * (pdf - a * sf), scale * ((1 + a * a) * sf - a * pdf)


def truncated_moments(alpha: float, s: float) -> tuple[float, float, float]:
    """(B.1)-(B.3): for ``Z ~ N(0, s^2)`` conditioned on ``Z >= alpha s``, with ``r = phi(alpha)/Phi^c(alpha)``:

    ``E[Z | .] = s r``, ``Var[Z | .] = s^2 [1 + alpha r - r^2]``, ``E[Z^2 | .] = s^2 [1 + alpha r]``.
    (In App. B, ``alpha = |b|/s`` and the conditioning event is ``Z >= -b`` with ``b < 0``.)

    Parameters
    ----------
    alpha : float
        The truncation point in units of ``s`` (finite).
    s : float
        The standard deviation, ``s > 0``.

    Returns
    -------
    tuple of float
        ``(E[Z | .], Var[Z | .], E[Z^2 | .])``.

    Examples
    --------
    At ``alpha = 0`` the half-normal: mean ``sqrt(2/pi)``, variance ``1 - 2/pi``, second moment 1:

    >>> import math
    >>> from theory.local_signal import truncated_moments
    >>> mean, var, second = truncated_moments(0.0, 1.0)
    >>> abs(mean - math.sqrt(2 / math.pi)) < 1e-15, abs(var - (1 - 2 / math.pi)) < 1e-15, second
    (True, True, 1.0)
    """
    s = check_sigma(s)
    alpha_f = _finite(alpha, "alpha")
    # 1 + alpha r - r^2 ~ 1/alpha^2 cancels 4 log10(alpha) digits (r ~ alpha): 40 digits hold up to alpha ~ 1e5
    dps = 40 if abs(alpha_f) < 1e5 else 40 + 4 * math.ceil(math.log10(abs(alpha_f)))
    with mpmath.workdps(dps):
        a = _mpf(alpha)
        r = mpmath.npdf(a) / _sf_mp(a)
        try:
            s2 = s**2
        except OverflowError:
            s2 = mpmath.mpf(s) ** 2
        out = float(s * r), float(s2 * (1 + a * r - r * r)), float(s2 * (1 + a * r))
    if not all(math.isfinite(m) for m in out):
        raise InputError(
            f"alpha = {alpha!r} with s = {s!r}: the moments (E[Z^2 | Z >= alpha s] ~ (alpha s)^2) are beyond the float "
            "range",
            param="alpha",
        )
    return out


def regression_coefficients(c: object, v: object) -> tuple[sympy.Expr, sympy.Expr]:
    """(B.4)-(B.5): with ``Z = cA + vB``, A, B iid ``N(0, sigma^2)``: ``E[cA | Z] = Z c^2/(c^2+v^2)`` and
    ``E[vB | Z] = Z v^2/(c^2+v^2)``; returns the two coefficients exactly. Needs ``(c, v) != (0, 0)``.

    Parameters
    ----------
    c, v : int, fractions.Fraction, float, str or sympy number
        The weights of ``A`` and ``B``, not both 0 (taken exactly).

    Returns
    -------
    tuple of sympy.Expr
        ``(c^2/(c^2+v^2), v^2/(c^2+v^2))``; they sum to 1.

    Examples
    --------
    >>> from theory.local_signal import regression_coefficients
    >>> regression_coefficients(3, 4)
    (9/25, 16/25)
    >>> regression_coefficients(0, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: (c, v) must not both be 0: Z = cA + vB would be degenerate
    """
    cs, vs = _exact(c, "c"), _exact(v, "v")
    if cs == 0 and vs == 0:
        raise InputError("(c, v) must not both be 0: Z = cA + vB would be degenerate", param="c")
    den = cs**2 + vs**2
    return cs**2 / den, vs**2 / den


def max_exceedance(n: int, absolute: bool = False) -> float:
    """Exact ``P[max_{j<=n} X_j >= 2 sigma sqrt(log n)]`` for iid ``N(0, sigma^2)`` (Lemma B.1), or with ``|X_j|``
    (Lemma B.2): ``1 - (1 - q)^n`` with ``q = Phi^c(2 sqrt(log n))`` (``2 Phi^c`` for |X_j|). Independent of sigma.

    Parameters
    ----------
    n : int
        The number of variables, ``n >= 2``.
    absolute : bool, optional
        Lemma B.2's ``|X_j|`` instead of Lemma B.1's ``X_j``.

    Returns
    -------
    float

    Examples
    --------
    The exact probabilities lie below the lemmas' union bounds ``1/n`` and ``2/n``:

    >>> from theory.local_signal import max_exceedance, union_bound
    >>> f"{max_exceedance(100):.4e}", union_bound(100)
    ('8.8524e-04', Fraction(1, 100))
    >>> max_exceedance(100, absolute=True) < union_bound(100, absolute=True)
    True
    """
    n = _float_k(n, "n")
    absolute = check_bool(absolute, "absolute")
    t = 2 * math.sqrt(math.log(n))
    q = (2 if absolute else 1) * normal_sf(t)
    return -math.expm1(n * math.log1p(-q))


def union_bound(n: int, absolute: bool = False) -> Fraction:
    """The bounds of Lemma B.1 (``1/n``) and Lemma B.2 (``2/n``).

    Parameters
    ----------
    n : int
        The number of variables, ``n >= 2``.
    absolute : bool, optional
        Lemma B.2 (``2/n``) instead of Lemma B.1 (``1/n``).

    Returns
    -------
    fractions.Fraction

    Examples
    --------
    >>> from theory.local_signal import union_bound
    >>> union_bound(100), union_bound(100, absolute=True)
    (Fraction(1, 100), Fraction(1, 50))
    """
    n = check_k(n, minimum=2)
    absolute = check_bool(absolute, "absolute")
    return Fraction(2 if absolute else 1, n)


def linear_error_as_printed() -> Fraction:
    """Sec. 3.3 as printed: the linear classifier "fails to classify the labels correctly with at least probability
    0.49" (true only for k >= 2.1e17, :func:`crossovers`).

    Returns
    -------
    fractions.Fraction
        ``49/100``.

    Examples
    --------
    At ``k = 100`` the linear classifier errs with probability 0.414, below the printed 0.49:

    >>> from theory.local_signal import linear_classifier_error, linear_error_as_printed
    >>> linear_error_as_printed(), round(linear_classifier_error(100), 3)
    (Fraction(49, 100), 0.414)
    """
    return Fraction(49, 100)


@fill_doc(_DOC)
def linear_classifier_error_exact(k: int) -> sympy.Expr:
    """Error of ``l(X) = sum_i <w_*, X_i>`` (Sec. 3.3): ``l = y + N(0, k sigma^2)`` so the error is
    ``Phi(-1/(sigma sqrt k)) = Phi(-1/log k)``, as a sympy expression ``erfc(1/(sqrt 2 log k))/2``.

    {{k_expr}}

    Examples
    --------
    >>> from theory.local_signal import linear_classifier_error_exact
    >>> linear_classifier_error_exact(100)
    erfc(sqrt(2)/(2*log(100)))/2
    >>> round(float(linear_classifier_error_exact(100)), 12)
    0.41404679961
    """
    k = check_k(k)
    return sympy.erfc(1 / (sympy.sqrt(2) * sympy.log(sympy.Integer(k)))) / 2


@fill_doc(_DOC)
def linear_classifier_error(k: int) -> float:
    """Float value of :func:`linear_classifier_error_exact`: ``Phi(-1/log k)``.

    {{k_float}}

    Examples
    --------
    >>> from theory.local_signal import linear_classifier_error, linear_classifier_error_exact
    >>> round(linear_classifier_error(100), 12)
    0.41404679961
    >>> abs(linear_classifier_error(100) - float(linear_classifier_error_exact(100))) < 1e-15
    True
    """
    k = _float_k(k)
    return normal_cdf(-1.0 / math.log(k))


# --------------------------------------------------------------------------------------------------------------
# The error curve err(tau) of the aligned CNN, by Fourier inversion


@lru_cache(maxsize=1)
def _weideman(n: int = 40) -> tuple[float, tuple[float, ...]]:
    """Coefficients of Weideman's (1994) rational approximation of the Faddeeva function with ``n`` terms
    (``L = sqrt(n / sqrt 2)``), computed by a direct cosine transform."""
    m = 2 * n
    size = 2 * m
    L = math.sqrt(n / math.sqrt(2))
    ts = [L * math.tan(j * math.pi / m / 2) for j in range(-m + 1, m)]
    f = [0.0] + [math.exp(-t * t) * (L * L + t * t) for t in ts]
    shifted = f[size // 2 :] + f[: size // 2]
    a = [sum(shifted[j] * math.cos(2 * math.pi * j * r / size) for j in range(size)) / size for r in range(size)]
    return L, tuple(a[1 : n + 1][::-1])


def faddeeva(z: complex) -> complex:
    """The Faddeeva function ``w(z) = exp(-z^2) erfc(-iz)`` for ``Im z >= 0`` (Weideman 1994, 40 terms: relative
    error below 1e-14 on the region used here, checked against mpmath in the tests).

    Parameters
    ----------
    z : complex
        ``Im z >= 0``.

    Returns
    -------
    complex

    Raises
    ------
    ValueError
        For ``Im z < 0``.

    Examples
    --------
    ``w(i) = e erfc(1)``:

    >>> import math
    >>> from theory.local_signal import faddeeva
    >>> abs(faddeeva(1j) - math.e * math.erfc(1)) < 1e-14
    True
    >>> faddeeva(-1j)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: faddeeva is implemented for Im z >= 0, got (-0-1j)
    """
    if isinstance(z, (bool, str, bytes)) or (not isinstance(z, numbers.Complex) and not hasattr(z, "item")):
        raise InputError(f"z must be a complex number, got {z!r:.80}", param="z")
    try:
        zc = complex(z)
    except (OverflowError, TypeError, ValueError):
        raise InputError(
            f"z must be a complex number within the float range, got {format_count(z)}", param="z"
        ) from None
    if not (math.isfinite(zc.real) and math.isfinite(zc.imag)) or abs(zc) > FADDEEVA_MAX_ABS:
        raise InputError(
            f"z must be finite with |z| <= {FADDEEVA_MAX_ABS:g} (the range of the rational approximation), got {z!r}",
            param="z",
        )
    if zc.imag < 0:
        raise InputError(f"faddeeva is implemented for Im z >= 0, got {z!r}", param="z")
    value = _faddeeva(z)
    if not (math.isfinite(value.real) and math.isfinite(value.imag)):
        raise InputError(f"z = {z!r} is outside the range of the rational approximation", param="z")
    return value


FADDEEVA_MAX_ABS = 1e150
"""Largest |z| of :func:`faddeeva` (beyond, the squares of the rational approximation leave the float range)."""


def _faddeeva(z: complex) -> complex:
    """:func:`faddeeva` without the checks (the inner loop of :func:`error_curve`)."""
    L, coef = _weideman()
    denom = L - 1j * z
    Z = (L + 1j * z) / denom
    p = 0j
    for c in coef:
        p = p * Z + c
    return 2 * p / denom**2 + 1 / (math.sqrt(math.pi) * denom)


@fill_doc(_DOC)
def soft_threshold_cf(t: float, tau: float, sigma: float) -> float:
    """Characteristic function of ``S_tau(A)``, ``A ~ N(0, sigma^2)``, ``a = tau/sigma`` (derived in
    docs/local_signal.md): ``E cos(tS) = P[S = 0] + exp(-a^2/2) Re w((sigma t + i a)/sqrt 2)``.

    Parameters
    ----------
    t : float
        The frequency.
    {{tau_sigma}}

    Returns
    -------
    float

    Examples
    --------
    1 at ``t = 0``; at ``tau = 0`` the Gaussian's ``exp(-sigma^2 t^2 / 2)``:

    >>> import math
    >>> from theory.local_signal import soft_threshold_cf
    >>> abs(soft_threshold_cf(0.0, 0.5, 1.0) - 1) < 1e-14
    True
    >>> abs(soft_threshold_cf(2.0, 0.0, 0.5) - math.exp(-0.5)) < 1e-14
    True
    """
    _finite(t, "t")
    sigma = check_sigma(sigma)
    if not _finite(tau, "tau") >= 0:
        raise InputError(
            f"tau must be a finite number >= 0 for the soft threshold S_tau, got tau = {tau!r}", param="tau"
        )
    a = tau / sigma
    if math.exp(-0.5 * a * a) == 0.0:  # the continuous part has no weight in floats: S = 0 with probability 1
        return math.erf(a / math.sqrt(2)) + 0.0
    try:
        value = _cf(t, tau, sigma)
    except OverflowError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(f"t = {t!r} is too large: sigma t leaves the range of the Faddeeva approximation", param="t")
    return value


def _cf(t: float, tau: float, sigma: float) -> float:
    """:func:`soft_threshold_cf` without the checks (the inner loop of :func:`error_curve`)."""
    a = tau / sigma
    p0 = math.erf(a / math.sqrt(2))
    return p0 + math.exp(-0.5 * a * a) * _faddeeva(complex(sigma * t, a) / math.sqrt(2)).real


def _gauss_legendre(degree: int = 3) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Gauss-Legendre nodes and weights on [-1, 1] (mpmath's rule of ``3 * 2^(degree-1)`` points)."""
    rule = mpmath.calculus.quadrature.GaussLegendre(mpmath.mp).calc_nodes(degree, 60)
    return tuple(float(x) for x, _ in rule), tuple(float(w) for _, w in rule)


# 12-point Gauss-Legendre rule for the panels of the inversion integral.
_GL_X, _GL_W = _gauss_legendre(3)


def _higher_order_cf(psi: float, p0: float, k: int, log_p0: float) -> float:
    """``psi^k - p0^k - k p0^(k-1) (psi - p0)``: the characteristic function of the part of
    ``sum_i S_tau(A_i)`` with at least two nonzero terms, without cancellation when ``psi - p0`` is small."""
    u = psi - p0
    if p0 > 0 and abs(k * u) < 0.05 * p0:
        x = u / p0
        # p0^k * sum_{j >= 2} C(k, j) x^j, summed until the terms are negligible
        term, total, j = 1.0, 0.0, 0
        while j < k:
            term *= (k - j) / (j + 1) * x
            j += 1
            if j >= 2:
                total += term
                if term == 0 or abs(term) < 1e-18 * abs(total):
                    break
        return math.exp(k * log_p0) * total
    p0k1 = math.exp((k - 1) * log_p0) if p0 > 0 else 0.0
    return psi**k - p0k1 * p0 - k * p0k1 * u


@fill_doc(_DOC)
def error_curve(k: int, tau: float, sigma: float | None = None, *, tol: float = 1e-10) -> float:
    r"""``err(tau) = P[sum_{i=1}^k S_tau(A_i) <= -(1 - tau)]``, ``A_i ~ N(0, sigma^2)`` iid (docs/local_signal.md):
    the error of the CNN with ``w = c w_*``, ``b = -tau c`` (any c > 0, any d). ``sigma`` defaults to log k/sqrt k.

    Computed by Fourier inversion (Gil-Pelaez) with the single-row term taken out in closed form: with
    ``p0 = P[S = 0]``, ``psi`` the characteristic function of S (:func:`soft_threshold_cf`) and ``x = 1 - tau``,

    ``err = k p0^(k-1) Phi^c(1/sigma) + m/2 - (1/pi) int_0^inf sin(t x) R(t)/t dt``,

    where ``R = psi^k - p0^k - k p0^(k-1)(psi - p0)`` is the characteristic function of the part with >= 2 nonzero
    rows and ``m = R(0)`` its mass. The integral runs over Gauss-Legendre panels until the integration-by-parts
    bound on the rest, ``|R(T)| / (T x)``, is below ``tol``; absolute error about ``tol`` (values below about 1e-10
    are not resolved, except where only the exact single-row term remains), clipped at 0.

    Parameters
    ----------
    {{k}}
    tau : float
        The threshold ratio ``|b|/c``, in ``[0, 1)``.
    {{sigma_or_default}}
    tol : float, optional
        The absolute accuracy of the inversion integral.

    {{float_or_error}}
        For an invalid ``k``, ``tau``, ``sigma`` or ``tol``; :class:`theory._checks.LimitError` when the integral needs
        more than :data:`MAX_INVERSION_PANELS` panels (about ``16 sqrt(k)`` at ``tau = 0``,
        ``16 (1 - tau) / (pi sigma)`` for a small ``sigma``, and a tail that grows like ``(tol (1 - tau))^(-1/5)``).

    Examples
    --------
    At ``tau = 0`` the CNN is the linear classifier; a threshold removes most of the noise (``k = 1000``), and near
    ``tau = 1`` the error tends to :func:`error_floor`:

    >>> from theory.local_signal import error_curve, error_floor, linear_classifier_error
    >>> abs(error_curve(100, 0.0) - linear_classifier_error(100)) < 1e-9
    True
    >>> round(linear_classifier_error(1000), 4), round(error_curve(1000, 0.5), 4)
    (0.4424, 0.1435)
    >>> abs(error_curve(1000, 0.999) - error_floor(1000)) < 1e-7
    True
    """
    k = _float_k(k)
    tau = check_tau(tau)
    sigma = noise_sigma(k) if sigma is None else check_sigma(sigma)
    tol = _check_tol(tol)
    _check_panels(k, tau, sigma, tol)
    x = 1.0 - tau
    a = tau / sigma
    p0 = math.erf(a / math.sqrt(2))
    log_p0 = math.log(p0) if p0 > 0 else -math.inf
    p0k1 = math.exp((k - 1) * log_p0) if p0 > 0 else 0.0
    single = k * p0k1 * normal_sf(1.0 / sigma)
    mass = 1.0 - p0k1 * p0 - k * p0k1 * (1.0 - p0)
    # panel width: a fraction of the oscillation period of sin(tx), of the scale 1/sigma of psi and of the scale
    # 1/sqrt(k E S^2) on which psi^k decays
    spread = math.sqrt(k * soft_threshold_moments(tau, sigma)[2])
    h = 0.25 * min(math.pi / x, 1.0 / sigma, 1.0 / spread if spread > 0 else math.inf)
    integral, t0, t_max = 0.0, 0.0, 1e7 / sigma
    while True:
        panel, peak = 0.0, 0.0
        for xi, wi in zip(_GL_X, _GL_W):
            t = t0 + 0.5 * h * (xi + 1.0)
            R = _higher_order_cf(_cf(t, tau, sigma), p0, k, log_p0)
            panel += wi * math.sin(t * x) * R / t
            peak = max(peak, abs(R))
        integral += 0.5 * h * panel
        t0 += h
        if peak / (t0 * x) < tol and t0 > 4.0 / sigma:
            break
        if t0 > t_max:  # not reached within the panel limit (the estimate of _inversion_panels is within a few panels)
            raise LimitError(
                f"k = {k}, tau = {tau}, sigma = {sigma}: the inversion integral did not converge within t = 10^7/sigma",
                param="tol",
                value=tol,
                limit=t_max,
                hint="use a larger tol",
            )
    return max(single + 0.5 * mass - integral / math.pi, 0.0)


MAX_INVERSION_PANELS = 20_000
"""Largest number of 12-point panels of one :func:`error_curve` integral (~5000 panels/s: ~4 s at the limit; k = 10^6
at tau = 0 needs 16,000)."""


def _inversion_panels(k: int, tau: float, sigma: float, tol: float) -> tuple[float, str]:
    """The number of panels :func:`error_curve` integrates over, estimated before the work, and the parameter that
    drives it (``"k"``, ``"sigma"``, ``"tau"`` or ``"tol"``).

    The integral runs to ``t > 4/sigma`` with panels of width ``h = (1/4) min(pi/(1 - tau), 1/sigma,
    1/sqrt(k E S^2))``, and on until the bound ``|R(t)| / (t (1 - tau))`` of the rest is below ``tol``; for large t,
    ``|R(t)| ~ 2 k (k - 1) (a phi(a))^2 p0^(k-2) / (sigma t)^4`` with ``a = tau/sigma`` (the density of ``S_tau(A)``
    has a kink at 0, so ``psi(t) - p0 ~ 2 a phi(a) / (sigma t)^2``). The estimate is within a few panels of the count
    (measured from k = 2 to 10^6, tau up to 1 - 10^-9, tol down to 10^-13; tests/theory/test_local_signal.py).
    """
    x = 1.0 - tau
    a = tau / sigma
    spread = math.sqrt(k * soft_threshold_moments(tau, sigma)[2])  # as in error_curve
    scales = {"sigma": math.pi / x, "": 1.0 / sigma, "k": 1.0 / spread if spread > 0 else math.inf}
    driver = min(scales, key=scales.__getitem__)
    h = 0.25 * scales[driver]
    body = (4.0 / sigma) / h if h > 0 else math.inf
    tail = 0.0
    p0 = math.erf(a / math.sqrt(2))
    if a > 0 and p0 > 0:
        log_c = (
            math.log(2 * k * (k - 1))
            + 2 * (math.log(a) - 0.5 * a * a - 0.5 * math.log(2 * math.pi))
            + (k - 2) * math.log(p0)
            - 4 * math.log(sigma)
        )
        log_t = (log_c - math.log(x) - math.log(tol)) / 5
        tail = math.exp(min(log_t, 700.0)) / h if h > 0 else math.inf
    if tail > body:
        return tail + 2, "tol" if tol < 1e-10 else "tau"
    return body + 2, driver or "k"


def _check_panels(k: int, tau: float, sigma: float, tol: float) -> None:
    panels, param = _inversion_panels(k, tau, sigma, tol)
    value = {"k": k, "sigma": sigma, "tau": tau, "tol": tol}[param]
    if panels > MAX_INVERSION_PANELS:
        raise LimitError(
            f"{param} = {format_count(value)} is too large for the inversion integral of err(tau) (k = {k}, "
            f"tau = {tau:g}, sigma = {sigma:.4g}, tol = {tol:g}): it needs ~{format_count(float(panels))} panels, "
            f"above the limit {MAX_INVERSION_PANELS:,} (~4 s); clt_error(k, tau) is the CLT approximation, "
            "error_floor(k, sigma) the limit tau -> 1",
            param=param,
            value=value,
            limit=MAX_INVERSION_PANELS,
            hint="clt_error(k, tau) is the CLT approximation, error_floor(k, sigma) the limit tau -> 1",
        )


@fill_doc(_DOC)
def clt_error(k: int, tau: float, sigma: float | None = None) -> float:
    """CLT approximation of :func:`error_curve`: ``Phi(-(1 - tau) / sqrt(k E S^2))`` with ``E S^2`` from
    :func:`soft_threshold_moments` (the sum of k iid soft-thresholded noise terms treated as Gaussian).

    Parameters
    ----------
    {{k}}
    tau : float
        The threshold ratio, in ``[0, 1)``.
    {{sigma_or_default}}

    Returns
    -------
    float

    Examples
    --------
    Exact at ``tau = 0`` (a sum of Gaussians), close to :func:`error_curve` at ``k = 1000``:

    >>> from theory.local_signal import clt_error, error_curve, linear_classifier_error
    >>> abs(clt_error(100, 0.0) - linear_classifier_error(100)) < 1e-15
    True
    >>> round(clt_error(1000, 0.5), 4), round(error_curve(1000, 0.5), 4)
    (0.1473, 0.1435)
    """
    k = _float_k(k)
    tau = check_tau(tau)
    sigma = noise_sigma(k) if sigma is None else check_sigma(sigma)
    es2 = soft_threshold_moments(tau, sigma)[2]
    if es2 > 0:
        return normal_cdf(-(1 - tau) / math.sqrt(k * es2))
    # E S^2 underflows (a tiny sigma, or tau >> sigma): the z-score in mpmath (whose exponents do not underflow), then
    # Phi(-z), 0.0 when z leaves the float range (the ZeroDivisionError of the audit, at tau = 0 and sigma = 1e-200)
    with mpmath.workdps(30):
        a = _mpf(tau) / sigma
        m2 = 2 * mpmath.mpf(sigma) ** 2 * ((1 + a * a) * _sf_mp(a) - a * mpmath.npdf(a))
        if not m2 > 0:
            return 0.0
        z = (1 - tau) / mpmath.sqrt(k * m2)
    return normal_cdf(-float(z))


@fill_doc(_DOC)
def error_floor(k: int, sigma: float | None = None) -> float:
    """``lim_{tau -> 1-} err(tau) = (1 - (1 - 2 Phi^c(1/sigma))^k) / 2``: with the threshold at the signal's height a
    noise row below -1 alone decides the sign (docs/local_signal.md).

    {{k_sigma_float}}

    Examples
    --------
    >>> from theory.local_signal import error_floor, normal_sf, noise_sigma
    >>> f"{error_floor(1000):.6e}"
    '2.343217e-03'
    >>> q = 2 * normal_sf(1 / noise_sigma(1000))  # the formula, evaluated naively (it loses about 3 digits)
    >>> abs(error_floor(1000) - (1 - (1 - q) ** 1000) / 2) < 1e-12
    True
    """
    k = _float_k(k)
    sigma = noise_sigma(k) if sigma is None else check_sigma(sigma)
    q = 2 * normal_sf(1.0 / sigma)
    if q >= 1.0:  # sigma so large that Phi(-1/sigma) rounds to 1/2: every patch flips, the floor is 1/2
        return 0.5
    return -0.5 * math.expm1(k * math.log1p(-q))


@fill_doc(_DOC)
def floor_approximation(k: int, sigma: float | None = None) -> float:
    """The first-order floor ``k Phi(-1/sigma)`` (an upper bound on :func:`error_floor`).

    {{k_sigma_float}}

    Examples
    --------
    Close to the floor where it is small, far above it where it is not:

    >>> from theory.local_signal import error_floor, floor_approximation
    >>> f"{floor_approximation(1000):.4e}", f"{error_floor(1000):.4e}"
    ('2.3487e-03', '2.3432e-03')
    >>> round(floor_approximation(10), 4), round(error_floor(10), 4)
    (0.8482, 0.4221)
    """
    k = _float_k(k)
    sigma = noise_sigma(k) if sigma is None else check_sigma(sigma)
    return k * normal_sf(1.0 / sigma)


#: Below this error the inversion (absolute accuracy about 1e-10) cannot locate the minimum of err(tau).
RESOLVABLE_ERROR = 1e-7

MAX_SEARCH_PANELS = 40_000
"""Largest number of panels of the error_curve integrals of one :func:`optimal_threshold` search (~8 s; the default
search at k = 10^6, the limit of ``tvk derive signal``, needs about 20,000)."""


@dataclass(frozen=True)
class OptimalThreshold:
    """The 0-1 optimum of the aligned CNN: ``tau*`` (argmin of ``err`` on [0, 1)), ``err(tau*)``, the floor and the
    bracket searched. ``resolved`` is False when the smallest error found is below :data:`RESOLVABLE_ERROR`: then
    err is numerically 0 on a whole interval, tau* is not determined (NaN) and ``error`` is only an upper bound.

    Attributes
    ----------
    tau : float
        ``tau*`` (NaN when not resolved).
    error : float
        ``err(tau*)``, or :data:`RESOLVABLE_ERROR` as an upper bound when not resolved.
    floor : float
        :func:`error_floor` at the same ``k`` and ``sigma``.
    bracket : tuple of float
        The interval of tau the golden-section search refined.
    resolved : bool, optional
        Whether ``tau*`` is determined (default True).

    Examples
    --------
    >>> from theory.local_signal import OptimalThreshold
    >>> OptimalThreshold(tau=0.95, error=0.0023, floor=0.0023, bracket=(0.9, 0.999))
    OptimalThreshold(tau=0.95, error=0.0023, floor=0.0023, bracket=(0.9, 0.999), resolved=True)
    """

    tau: float
    error: float
    floor: float
    bracket: tuple[float, float]
    resolved: bool = True

    def __post_init__(self) -> None:
        resolved = check_bool(self.resolved, "resolved")
        tau = _finite(self.tau, "tau", allow_inf=False) if resolved else float(self.tau)
        if resolved and not 0 <= tau < 1:
            raise InputError(f"tau must lie in [0, 1) when resolved, got {self.tau!r}", param="tau")
        if not resolved and not math.isnan(tau):
            raise InputError(f"tau must be NaN when not resolved, got {self.tau!r}", param="tau")
        for name in ("error", "floor"):
            if not 0 <= _finite(getattr(self, name), name) <= 1:
                raise InputError(f"{name} must be a probability in [0, 1], got {getattr(self, name)!r}", param=name)
        b = self.bracket
        if not isinstance(b, tuple) or len(b) != 2 or not _finite(b[0], "bracket") <= _finite(b[1], "bracket"):
            raise InputError(f"bracket must be a pair (lo, hi) with lo <= hi, got {b!r:.80}", param="bracket")


@fill_doc(_DOC)
@lru_cache(maxsize=64)
def optimal_threshold(k: int, sigma: float | None = None, *, xtol: float = 2e-3, grid: int = 11) -> OptimalThreshold:
    """``tau* = argmin_{tau in [0,1)} err(tau)``: a grid of ``grid`` points on [0, 0.999] brackets the minimum, then a
    golden-section search refines it to ``xtol`` in tau. (err is flat near its minimum: at k = 1000 it changes by
    less than 1e-5 on [0.9, 0.999], so tau* is only defined to about 0.02; err(tau*) to about 1e-9.)

    Parameters
    ----------
    {{k}}
    {{sigma_or_default}}
    xtol : float, optional
        The width in tau at which the golden-section search stops.
    grid : int, optional
        The number of grid points on ``[0, 0.999]``.

    Returns
    -------
    OptimalThreshold

    Raises
    ------
    ValueError
        For an invalid ``k``, ``sigma``, ``xtol`` (finite, > 0) or ``grid`` (an integer >= 2);
        :class:`theory._checks.LimitError` when one error_curve integral needs more than
        :data:`MAX_INVERSION_PANELS` panels, or the grid (before any work) or the golden-section search (once the grid
        has located the bracket) more than :data:`MAX_SEARCH_PANELS` in all.

    Examples
    --------
    A coarse search (``grid=3``; the default grid costs 1-2 s) at k = 2: the optimal threshold almost halves the
    error of ``tau = 0`` and beats the floor, the limit at ``tau -> 1``; with little noise the error is below
    :data:`RESOLVABLE_ERROR` on a whole interval:

    >>> from theory.local_signal import error_curve, optimal_threshold
    >>> opt = optimal_threshold(2, grid=3, xtol=0.3)
    >>> opt.resolved, round(opt.error, 4), round(error_curve(2, 0.0), 4), round(opt.floor, 4)
    (True, 0.0401, 0.0746, 0.0405)
    >>> optimal_threshold(2, 0.05, grid=2)
    OptimalThreshold(tau=nan, error=1e-07, floor=5.50...e-89, bracket=(0.0, 0.999), resolved=False)
    """
    k = _float_k(k)
    sigma = noise_sigma(k) if sigma is None else check_sigma(sigma)
    xtol = _finite(xtol, "xtol")
    if not xtol > 0:
        raise InputError(f"xtol (the width at which the search stops) must be > 0, got {xtol!r}", param="xtol")
    if not _is_int(grid) or int(grid) < 2:
        raise InputError(
            f"grid (the number of grid points on [0, 0.999]) must be an integer >= 2, got {grid!r:.80}", param="grid"
        )
    grid = int(grid)
    check_cost(
        grid,
        MAX_SEARCH_PANELS // 16,
        param="grid",
        value=grid,
        what="the number of error_curve integrals of the grid (each at least 16 panels)",
        hint="a grid of 11 points (the default) brackets the minimum",
    )
    xs = [0.999 * i / (grid - 1) for i in range(grid)]
    panels = [_inversion_panels(k, x, sigma, 1e-10) for x in xs]
    worst = max(range(grid), key=lambda j: panels[j][0])
    if panels[worst][0] > MAX_INVERSION_PANELS:
        _check_panels(k, xs[worst], sigma, 1e-10)  # raises, naming k or sigma
    check_cost(
        sum(p for p, _ in panels),
        MAX_SEARCH_PANELS,
        param="grid",
        value=grid,
        what=f"the number of panels of the grid's {grid} error_curve integrals",
        hint="use a smaller grid",
    )
    ys = [error_curve(k, x, sigma) for x in xs]
    i = min(range(grid), key=ys.__getitem__)
    if ys[i] < RESOLVABLE_ERROR:
        return OptimalThreshold(math.nan, RESOLVABLE_ERROR, error_floor(k, sigma), (0.0, 0.999), resolved=False)
    lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, grid - 1)]
    g = (math.sqrt(5) - 1) / 2
    steps = max(0, math.ceil(math.log(xtol / (hi - lo)) / math.log(g))) + 2 if hi > lo else 2
    check_cost(
        steps * max(panels[max(i - 1, 0)][0], panels[min(i + 1, grid - 1)][0], panels[i][0]),
        MAX_SEARCH_PANELS,
        param="xtol",
        value=xtol,
        what=f"the number of panels of the golden-section search ({steps} error_curve integrals on [{lo:.4g}, {hi:.4g}])",
        hint="use a larger xtol (the error is flat near its minimum: tau* is defined to about 0.02)",
    )
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = error_curve(k, c, sigma), error_curve(k, d, sigma)
    while b - a > xtol:
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = error_curve(k, c, sigma)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = error_curve(k, d, sigma)
    best_tau, best = (c, fc) if fc <= fd else (d, fd)
    if ys[i] < best:
        best_tau, best = xs[i], ys[i]
    return OptimalThreshold(best_tau, best, error_floor(k, sigma), (lo, hi))


# --------------------------------------------------------------------------------------------------------------
# Lemma B.5 and the regimes of the asymptotic statements


@dataclass(frozen=True)
class LemmaB5:
    """Lemma B.5's numbers at k: ``alpha* = 2 sqrt(log k)``; the proof's union bound ``2k exp(-alpha*^2/2) = 2/k``;
    the exact union bound ``2k Phi^c(alpha*)``; the sufficient threshold in tau units for an aligned filter,
    ``tau_suff = sigma alpha* = 2 log^{3/2} k / sqrt k`` (usable only when < 1).

    Attributes
    ----------
    k : int
        The number of noise rows.
    alpha : float
        ``alpha* = 2 sqrt(log k)``.
    union_bound : float
        ``2k exp(-alpha*^2/2) = 2/k``.
    exact_union_bound : float
        ``2k Phi^c(alpha*)``.
    tau_sufficient : float
        ``sigma alpha*``.

    Examples
    --------
    >>> from theory.local_signal import LemmaB5, lemma_b5
    >>> isinstance(lemma_b5(1000), LemmaB5)
    True
    """

    k: int
    alpha: float
    union_bound: float
    exact_union_bound: float
    tau_sufficient: float

    def __post_init__(self) -> None:
        check_k(self.k)
        for name in ("alpha", "union_bound", "exact_union_bound", "tau_sufficient"):
            if not _finite(getattr(self, name), name) >= 0:
                raise InputError(f"{name} must be >= 0, got {getattr(self, name)!r}", param=name)


@fill_doc(_DOC)
def lemma_b5(k: int) -> LemmaB5:
    """:class:`LemmaB5` at ``k`` (sigma = log k / sqrt k).

    {{k_section}}

    Returns
    -------
    LemmaB5

    Examples
    --------
    At ``k = 1000`` the proof's bound is ``2/k``, the exact union bound is 14 times smaller, and the sufficient
    threshold still exceeds 1 (it drops below 1 from about ``k = 1611``, :func:`crossovers`):

    >>> from theory.local_signal import lemma_b5
    >>> b5 = lemma_b5(1000)
    >>> round(b5.union_bound, 12), f"{b5.exact_union_bound:.4e}", round(b5.tau_sufficient, 4)
    (0.002, '1.4681e-04', 1.1482)
    """
    k = _float_k(k)
    alpha = 2 * math.sqrt(math.log(k))
    return LemmaB5(
        k=k,
        alpha=alpha,
        union_bound=2 * k * math.exp(-alpha * alpha / 2),
        exact_union_bound=2 * k * normal_sf(alpha),
        tau_sufficient=noise_sigma(k) * alpha,
    )


def _solve_log10(f, lo: float, hi: float) -> float:
    """The root in log10(k) of ``f(log k)`` on [lo, hi] (bisection in mpmath at 40 digits)."""
    with mpmath.workdps(40):
        ln10 = mpmath.log(10)
        g = lambda u: f(mpmath.mpf(u) * ln10)  # noqa: E731
        root = mpmath.findroot(g, (lo, hi), solver="anderson")
        return float(root)


def crossovers() -> dict[str, float]:
    """log10 of the k at which the asymptotic statements of Ch. 3 / App. B start to hold (docs/local_signal.md):

    * ``tau_suff_below_1``: ``2 log^{3/2} k / sqrt k = 1`` (Lemma B.5's sufficient threshold leaves the signal),
      about k = 1611 (the larger root; the function rises above 1 at k of about 12);
    * ``lemma33_sketch``: ``log^4 k = k^{1/8}`` (Omega(1/log^4 k) implies omega(k^{-1/8})), about 10^70.8;
    * ``lemmaB9``: ``k^{1/4} = 4 log^{3/2} k`` (the proof's ``2 sqrt(c^2+v^2) log^{3/2} k / k^{1/4} < c/2`` with
      v = 0), about 10^10.8;
    * ``linear_error_049``: ``Phi(-1/log k) = 0.49`` (the "at least 0.49" of Sec. 3.3), about 10^17.3.

    Returns
    -------
    dict of str to float
        ``log10 k`` at each crossover.

    Examples
    --------
    >>> from theory.local_signal import crossovers
    >>> {name: round(x, 1) for name, x in crossovers().items()}
    {'tau_suff_below_1': 3.2, 'lemma33_sketch': 70.8, 'lemmaB9': 10.8, 'linear_error_049': 17.3}
    """
    with mpmath.workdps(40):
        z051 = mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf("0.02"))  # Phi(-1/L) = 0.49  <=>  1/L = Phi^{-1}(0.51)
    return {
        "tau_suff_below_1": _solve_log10(lambda L: 2 * L**1.5 / mpmath.exp(L / 2) - 1, 2.5, 4.0),
        "lemma33_sketch": _solve_log10(lambda L: 4 * mpmath.log(L) - L / 8, 60.0, 80.0),
        "lemmaB9": _solve_log10(lambda L: L / 4 - mpmath.log(4) - 1.5 * mpmath.log(L), 8.0, 14.0),
        "linear_error_049": _solve_log10(lambda L: 1 / L - z051, 15.0, 20.0),
    }


def _is_sequence(v: object) -> bool:
    """A list, tuple, numpy array, ... (anything with a length that iterates), not a string."""
    return not isinstance(v, (str, bytes)) and hasattr(v, "__len__") and hasattr(v, "__iter__")


def _check_rows(X: tuple[tuple[float, ...], ...], w: tuple[float, ...], name: str) -> None:
    """Every row of X must have the filter's length d = len(w) >= 1 (a shorter row would silently drop coordinates),
    and every entry of X and w must be a finite real number."""
    if not _is_sequence(w):
        raise InputError(f"{name} (the filter) must be a sequence of numbers, got {w!r:.80}", param=name)
    if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
        raise InputError(f"X must be a sequence of rows, got {X!r:.80}", param="X")
    d = len(w)
    if d < 1:
        raise InputError(f"{name} (the filter) must have length d >= 1, got length {d}", param=name)
    for v in w:
        _finite(v, name)
    for i, row in enumerate(X):
        if not _is_sequence(row):
            raise InputError(f"row {i} of X must be a sequence of numbers, got {row!r:.80}", param="X")
        if len(row) != d:
            raise InputError(
                f"row {i} of X has length {len(row)}; every row must have the filter's length d = {d}", param="X"
            )
        for v in row:
            _finite(v, "X")


def _dot(u: tuple[float, ...], v: tuple[float, ...]) -> float:
    return sum(a * b for a, b in zip(u, v))


def cnn_gradient(X: tuple[tuple[float, ...], ...], w: tuple[float, ...], b: float) -> list[float]:
    """``grad_w f_{w,b}(X) = sum_i X_i [1{<w, X_i> + b > 0} + 1{-<w, X_i> + b > 0}]`` (App. B.2): weight 1 on rows
    with ``|<w, X_i>| > -b`` when b < 0, and for b >= 0 weight 2 on rows with ``|<w, X_i>| < b``, 1 elsewhere.

    Parameters
    ----------
    X : tuple of tuple of float
        The rows ``X_i``, each of length ``d``.
    w : tuple of float
        The filter, length ``d >= 1``.
    b : float
        The bias.

    Returns
    -------
    list of float
        ``grad_w f``, length ``d``.

    Raises
    ------
    ValueError
        If a row's length differs from the filter's, or ``d = 0``.

    Examples
    --------
    >>> from theory.local_signal import cnn_gradient
    >>> X = ((1.0, 0.0), (0.2, 0.5), (-0.3, 0.1))  # <w, X_i> = 1.0, 0.2, -0.3
    >>> cnn_gradient(X, (1.0, 0.0), -0.25)  # rows with |<w, X_i>| > 0.25, weight 1
    [0.7, 0.1]
    >>> cnn_gradient(((1.0,),), (1.0, 0.0), 0.0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: row 0 of X has length 1; every row must have the filter's length d = 2
    """
    _check_rows(X, w, "w")
    _finite(b, "b")
    out = [0.0] * len(w)
    for row in X:
        dot = _dot(w, row)
        weight = float(dot + b > 0) + float(-dot + b > 0)  # soft_threshold_dx(dot, b)
        out = [o + weight * x for o, x in zip(out, row)]
    return out


def cntk_feature_as_printed(X: tuple[tuple[float, ...], ...], w0: tuple[float, ...], b: float) -> list[float]:
    """The CNTK feature of App. B.2 as printed, ``sum_i X_i 1{|<w0, X_i>| + b >= 0}`` (m = 1), which the thesis calls
    the gradient of f at initialization; it drops the weight 2 of rows with ``|<w0, X_i>| < b`` when b > 0.

    Parameters
    ----------
    X : tuple of tuple of float
        The rows ``X_i``, each of length ``d``.
    w0 : tuple of float
        The filter at initialization, length ``d >= 1``.
    b : float
        The bias.

    Returns
    -------
    list of float
        The feature, length ``d``.

    Examples
    --------
    It agrees with :func:`cnn_gradient` for ``b < 0`` (up to ties); for ``b > 0`` the row 0.2 has weight 2 in the
    gradient, 1 here:

    >>> from theory.local_signal import cnn_gradient, cntk_feature_as_printed
    >>> X = ((1.0, 0.0), (0.2, 0.5), (-0.3, 0.1))
    >>> cntk_feature_as_printed(X, (1.0, 0.0), -0.25) == cnn_gradient(X, (1.0, 0.0), -0.25)
    True
    >>> [round(x, 12) for x in cnn_gradient(X, (1.0, 0.0), 0.25)]
    [1.1, 1.1]
    >>> [round(x, 12) for x in cntk_feature_as_printed(X, (1.0, 0.0), 0.25)]
    [0.9, 0.6]
    """
    _check_rows(X, w0, "w0")
    _finite(b, "b")
    out = [0.0] * len(w0)
    for row in X:
        weight = float(abs(_dot(w0, row)) + b >= 0)
        out = [o + weight * x for o, x in zip(out, row)]
    return out


def _phase_constants(C: object, C2: object, C3: object, eta_b: object) -> tuple[sympy.Expr, ...]:
    """The constants of phase 2 of the proof of Theorem 3.1 as exact sympy numbers, each finite and > 0 (C the rate
    of Lemma 3.3, C_2 and C_3 those of Lemmas 3.3 and B.7, eta_b the bias step size; C and eta_b divide T_2)."""
    out = []
    for name, x in (("C", C), ("C2", C2), ("C3", C3), ("eta_b", eta_b)):
        why = f"{name} (a constant of the proof of Theorem 3.1) must be a finite number > 0, got {x!r:.80}"
        if isinstance(x, float) and not math.isfinite(x):
            raise InputError(why, param=name)
        try:
            value = _exact(x, name)
        except InputError:
            raise InputError(why, param=name) from None
        if not (value.is_finite and value.is_positive):
            raise InputError(why, param=name)
        out.append(value)
    return tuple(out)


@fill_doc(_DOC)
def t2_as_printed(C: float, C2: float, C3: float, eta_b: float, k: int) -> sympy.Expr:
    """Phase 2 of the proof of Theorem 3.1 as printed: ``T_2 = 4 C_3 log^{3/2} k / sqrt k + (C_2 - eta_b)/log^4 k
    * 1/(eta_b C)`` (the first term is a distance in b, not a number of steps).

    {{t2}}

    Examples
    --------
    >>> from theory.local_signal import t2_as_printed
    >>> t2_as_printed(1, 2, 1, 1, 100)
    log(100)**(-4) + 2*log(100)**(3/2)/5
    >>> t2_as_printed(0, 2, 1, 1, 100)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: C (a constant of the proof of Theorem 3.1) must be a finite number > 0, got 0
    """
    k = check_k(k)
    L = sympy.log(sympy.Integer(k))
    C, C2, C3, eta_b = _phase_constants(C, C2, C3, eta_b)
    return 4 * C3 * L ** sympy.Rational(3, 2) / sympy.sqrt(k) + (C2 - eta_b) / L**4 / (eta_b * C)


@fill_doc(_DOC)
def t2_corrected(C: float, C2: float, C3: float, eta_b: float, k: int) -> sympy.Expr:
    """The number of steps for b, decreasing by ``eta_b C`` per step, to go from the largest positive value the
    printed formula allows, ``(C_2 - eta_b)/log^4 k``, to ``-4 C_3 log^{3/2} k / sqrt k``:
    ``T_2 = [4 C_3 log^{3/2} k / sqrt k + (C_2 - eta_b)/log^4 k] / (eta_b C)`` (docs/local_signal.md).

    {{t2}}

    Examples
    --------
    The two agree exactly when ``eta_b C = 1``:

    >>> from theory.local_signal import t2_as_printed, t2_corrected
    >>> t2_corrected(1, 2, 1, 1, 100) - t2_as_printed(1, 2, 1, 1, 100)
    0
    >>> t2_corrected(2, 2, 1, 1, 100) - t2_as_printed(2, 2, 1, 1, 100)
    -log(100)**(3/2)/5
    """
    k = check_k(k)
    L = sympy.log(sympy.Integer(k))
    C, C2, C3, eta_b = _phase_constants(C, C2, C3, eta_b)
    return (4 * C3 * L ** sympy.Rational(3, 2) / sympy.sqrt(k) + (C2 - eta_b) / L**4) / (eta_b * C)


def theorem31_error_level() -> Fraction:
    """Theorem 3.1's guarantee: the trained CNN errs with probability <= 1/100.

    Returns
    -------
    fractions.Fraction
        ``1/100``.

    Examples
    --------
    Below the kernel's lower bound of Theorem 3.2:

    >>> from theory.local_signal import kernel_error_bound, theorem31_error_level
    >>> theorem31_error_level(), theorem31_error_level() < kernel_error_bound()
    (Fraction(1, 100), True)
    """
    return Fraction(1, 100)


@fill_doc(_DOC)
def reduction_difference() -> int:
    """App. B.1.1's reduction is exact in distribution: with fresh batches the law of ``(c_t, v_t, b_t)`` is the same
    whether the d-dimensional inputs or only their projections are sampled (docs/local_signal.md). Returns the
    difference between the two simulators' expected trajectories, 0.

    {{int_zero}}

    Examples
    --------
    >>> from theory.local_signal import reduction_difference
    >>> reduction_difference()
    0
    """
    return 0


def kernel_error_bound() -> Fraction:
    """Theorem 3.2's conclusion: with d = 1/sigma^2 and m = O(1) filters frozen at a random init, every linear
    predictor over the CNTK features errs with probability >= 1/10 (the proof gives (1/4)(1 - O(1/log k))).

    Returns
    -------
    fractions.Fraction
        ``1/10``.

    Examples
    --------
    >>> from theory.local_signal import kernel_error_bound
    >>> kernel_error_bound()
    Fraction(1, 10)
    """
    return Fraction(1, 10)


# --------------------------------------------------------------------------------------------------------------
# Lemma B.11 (App. B.2.1): the event probability of one filter, exactly

MAX_MEHLER_TERMS = 20_000
"""Most terms of the Mehler series of :func:`bivariate_abs_tail` (about ``log(1/tol)/(1 - |rho|)`` are needed)."""

_CRAMER_K = mpmath.mpf("1.0865")
"""An upper bound on Cramer's constant 1.086435...: ``|He_n(x)| <= K sqrt(n!) e^{x^2/4}`` for every n and real x."""


def _mehler_tail_bound(n: int, rho: mpmath.mpf, a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """Bound on the terms of index ``> n`` (even) of the series of :func:`bivariate_abs_tail`: by Cramer's inequality
    ``|term_j| <= (2 K^2/pi) e^{-(a^2 + b^2)/4} |rho|^j / j``, summed over even ``j >= n + 2``."""
    r = abs(rho)
    return 2 * _CRAMER_K**2 / mpmath.pi * mpmath.exp(-(a * a + b * b) / 4) * r ** (n + 2) / ((n + 2) * (1 - r * r))


@fill_doc(_DOC)
def bivariate_abs_tail(alpha: float, beta: float, rho: float, *, tol: float = 1e-20) -> float:
    """``P[|Z_1| >= alpha, |Z_2| >= beta]`` for a standard bivariate normal pair with correlation ``rho``, as the exact
    Mehler (tetrachoric) series

    ``4 Phi^c(alpha) Phi^c(beta) + 4 phi(alpha) phi(beta) sum_{n even >= 2} rho^n/n! He_{n-1}(alpha) He_{n-1}(beta)``

    (``He`` the probabilists' Hermite polynomials). It follows from the expansion of the bivariate density,
    ``phi(x) phi(y) sum_n rho^n/n! He_n(x) He_n(y)``, and ``int_{|x| >= a} phi He_n = 2 phi(a) He_{n-1}(a)`` for even
    ``n >= 2`` (0 for odd n). The first term is the product of the two marginal tails: the lower bound that the
    proof of Lemma B.11 uses (Karp thesis, App. B.2.1), by Sidak's inequality. The series is summed, at 40 digits,
    up to the first even n whose tail bound by Cramer's inequality, ``(2 K^2/pi) e^{-(alpha^2+beta^2)/4}
    |rho|^{n+2}/((n+2)(1 - rho^2))`` (K = 1.0865), is at most ``tol``: the result is within ``tol`` plus rounding of
    the probability. At ``|rho| = 1``, ``|Z_1| = |Z_2|`` and the value is ``2 Phi^c(max(alpha, beta))``.

    Parameters
    ----------
    alpha, beta : float
        Thresholds ``>= 0`` (``inf`` allowed: probability 0).
    rho : float
        Correlation in ``[-1, 1]``.
    tol : float
        Bound on the truncation error, ``> 0``.

    {{float_or_error}}
        For a negative threshold, ``|rho| > 1`` or ``tol <= 0``; a :class:`theory._checks.LimitError` (naming rho)
        when more than :data:`MAX_MEHLER_TERMS` terms are needed.

    Examples
    --------
    Independent coordinates give the product of the tails; ``alpha = 0`` leaves one tail:

    >>> from theory.local_signal import bivariate_abs_tail, normal_sf
    >>> bivariate_abs_tail(1.0, 0.5, 0.0) == 4 * normal_sf(1.0) * normal_sf(0.5)
    True
    >>> abs(bivariate_abs_tail(0.0, 0.5, 0.7) - 2 * normal_sf(0.5)) < 1e-15
    True
    >>> p = bivariate_abs_tail(1.0, 1.0, 0.6)
    >>> round(p, 10), p > 4 * normal_sf(1.0) ** 2  # above the product (Sidak)
    (0.1484895033, True)
    """
    a = _finite(alpha, "alpha", allow_inf=True)
    b = _finite(beta, "beta", allow_inf=True)
    r = _finite(rho, "rho")
    if not (a >= 0 and b >= 0):
        raise InputError(f"the thresholds must be >= 0, got alpha = {alpha!r:.40}, beta = {beta!r:.40}", param="alpha")
    if not abs(r) <= 1:
        raise InputError(f"rho (a correlation) must lie in [-1, 1], got {rho!r:.40}", param="rho")
    t = _finite(tol, "tol")
    if not t > 0:
        raise InputError(
            f"tol (the truncation error of the series) must be a finite number > 0, got {tol!r}", param="tol"
        )
    if math.isinf(a) or math.isinf(b):
        return 0.0
    with mpmath.workdps(40):
        am, bm, rm = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(r)
        if abs(r) == 1:
            return float(2 * _sf_mp(max(am, bm)))
        n = 0
        if r != 0 and _mehler_tail_bound(0, rm, am, bm) > t:
            # the smallest even n whose tail bound is <= tol (the bound decreases in n), by bisection
            if _mehler_tail_bound(MAX_MEHLER_TERMS, rm, am, bm) > t:
                raise LimitError(
                    f"rho = {r!r} needs more than {format_count(MAX_MEHLER_TERMS)} terms of the Mehler series for "
                    f"tol = {t:g} (the limit of bivariate_abs_tail); use a larger tol or |rho| further from 1",
                    param="rho",
                    value=rho,
                    limit=MAX_MEHLER_TERMS,
                )
            lo, hi = 0, MAX_MEHLER_TERMS // 2  # bound(2 lo) > tol >= bound(2 hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if _mehler_tail_bound(2 * mid, rm, am, bm) <= t else (mid, hi)
            n = 2 * hi
        head = 4 * _sf_mp(am) * _sf_mp(bm)
        # He_{j}(x) for j = n - 1 odd, by He_{j+1} = x He_j - j He_{j-1}; coef = rho^n / n!
        he_a_prev, he_a = mpmath.mpf(1), am  # He_0, He_1
        he_b_prev, he_b = mpmath.mpf(1), bm
        coef, series = mpmath.mpf(1), mpmath.mpf(0)
        for j in range(1, n, 2):  # j = n - 1 for n = 2, 4, ...
            coef *= rm * rm / ((j + 1) * j)
            series += coef * he_a * he_b
            # advance He_j -> He_{j+2}
            he_a_prev, he_a = he_a, am * he_a - j * he_a_prev  # He_{j+1}
            he_a_prev, he_a = he_a, am * he_a - (j + 1) * he_a_prev  # He_{j+2}
            he_b_prev, he_b = he_b, bm * he_b - j * he_b_prev
            he_b_prev, he_b = he_b, bm * he_b - (j + 1) * he_b_prev
        value = head + 4 * mpmath.npdf(am) * mpmath.npdf(bm) * series
        return float(min(max(value, mpmath.mpf(0)), mpmath.mpf(1)))


def _vector(v: object, name: str, d: int | None = None) -> tuple[float, ...]:
    """A non-empty sequence of finite reals (of length ``d`` when given), as floats."""
    if not _is_sequence(v):
        raise InputError(f"{name} must be a sequence of numbers, got {v!r:.80}", param=name)
    out = tuple(_finite(x, name) for x in v)  # type: ignore[attr-defined]
    if not out or (d is not None and len(out) != d):
        raise InputError(f"{name} must have length d = {d or '>= 1'}, got length {len(out)}", param=name)
    return out


@fill_doc(_DOC)
def lemma_b11_event_probability(
    w0: tuple[float, ...], w: tuple[float, ...], w_star: tuple[float, ...], b: float, C: float, sigma: float
) -> float:
    """Lemma B.11 (Karp thesis, App. B.2.1, m = 1) exactly: the probability of its Event A,
    ``P_{eps ~ N(0, sigma^2 I_d)}[|g(eps)| >= C sigma |g(w_*)|]`` with ``g(x) = <w, x> 1{|<w^(0), x>| + b >= 0}``.

    In the lemma's Case 1 (``|<w^(0), w_*>| + b < 0``) ``g(w_*) = 0`` and the probability is 1; so it is when
    ``<w, w_*> = 0`` or ``w = 0``. Otherwise (Case 2) Event A is ``|Z_1| >= alpha, |Z_2| >= beta`` for the standard
    normal pair ``Z_1 = <w/|w|, eps>/sigma``, ``Z_2 = <w^(0)/|w^(0)|, eps>/sigma`` of correlation
    ``rho = <w, w^(0)>/(|w| |w^(0)|)``, with ``alpha = C |<w, w_*>|/|w|`` and ``beta = max(0, -b)/(sigma |w^(0)|)``:
    :func:`bivariate_abs_tail`. The proof's lower bound, ``P_{x ~ N(0,1)}[|x| >= alpha] P_{x ~ N(0, sigma^2)}[|x| >=
    |<w^(0)/|w^(0)|, w_*>|]``, replaces ``beta`` by the larger ``|<w^(0)/|w^(0)|, w_*>|/sigma`` and the pair by an
    independent one (Sidak's inequality, which the proof uses without naming it).

    Parameters
    ----------
    w0, w, w_star : sequence of float
        The frozen filter ``w^(0) != 0``, the kernel weights and the unit signal direction (all of length d).
    b : float
        The bias.
    C : float
        The lemma's constant, ``> 0``.
    sigma : float
        The noise level, ``> 0``.

    {{float_or_error}}
        For vectors of different lengths, ``w0 = 0``, ``|w_star| != 1`` (within 1e-9) or ``C, sigma <= 0``.

    Examples
    --------
    Without a gate (``b >= 0``) the event is ``|<w/|w|, eps>| >= C sigma |<w/|w|, w_*>|``; at ``w = w_*``:

    >>> from theory.local_signal import lemma_b11_event_probability, normal_sf
    >>> abs(lemma_b11_event_probability((0.6, 0.8), (1.0, 0.0), (1.0, 0.0), 0.0, 1.0, 0.5) - 2 * normal_sf(1.0)) < 1e-15
    True
    >>> round(lemma_b11_event_probability((0.6, 0.8), (1.0, 0.0), (1.0, 0.0), -0.3, 1.0, 0.5), 10)
    0.2153741459
    >>> lemma_b11_event_probability((0.6, 0.8), (1.0, 0.0), (1.0, 0.0), -0.7, 1.0, 0.5)  # Case 1: g(w_*) = 0
    1.0
    """
    w_star = _vector(w_star, "w_star")
    d = len(w_star)
    w0, w = _vector(w0, "w0", d), _vector(w, "w", d)
    b = _finite(b, "b")
    c = _finite(C, "C")
    if not c > 0:
        raise InputError(f"C must be > 0, got {C!r:.40}", param="C")
    s = check_sigma(sigma)
    with mpmath.workdps(40):
        vs, v0, vw = ([mpmath.mpf(x) for x in v] for v in (w_star, w0, w))
        norm_star = mpmath.sqrt(mpmath.fdot(vs, vs))
        if not abs(norm_star - 1) <= 1e-9:
            raise InputError(f"w_star must be a unit vector, got |w_star| = {float(norm_star)!r}", param="w_star")
        norm0, norm_w = mpmath.sqrt(mpmath.fdot(v0, v0)), mpmath.sqrt(mpmath.fdot(vw, vw))
        if norm0 == 0:
            raise InputError("w0 (the frozen filter) must be nonzero", param="w0")
        signal = mpmath.fdot(vw, vs)
        if abs(mpmath.fdot(v0, vs)) + b < 0 or signal == 0:  # Case 1, or g(w_*) = 0: |g(eps)| >= 0 always
            return 1.0
        alpha = c * abs(signal) / norm_w
        beta = max(mpmath.mpf(0), -mpmath.mpf(b)) / (mpmath.mpf(s) * norm0)
        rho = max(mpmath.mpf(-1), min(mpmath.mpf(1), mpmath.fdot(vw, v0) / (norm_w * norm0)))
        return bivariate_abs_tail(float(alpha), float(beta), float(rho))


MAX_B12_ENTRIES = 10**5
"""Most covariance entries of :func:`lemma_b12_reduction`: ``2^m (m + 1)^2`` for m filters (m <= 9)."""


@dataclass(frozen=True)
class LemmaB12Reduction:
    """Lemma B.12's Event A (Karp thesis, App. B.2.2) as Gaussian box probabilities, from
    :func:`lemma_b12_reduction`; ``v_j = w_j^(0)/|w_j^(0)|``, ``G_j = <v_j, eps>/sigma`` and, for a set P of gates,
    ``L_P = <v_P, eps>/(sigma s)`` with ``v_P = sum_{j in P} w_j`` and ``s`` the largest ``|w_ij|`` (the event is
    invariant under ``w -> w/s``; 1 when ``w = 0``).

    ``P[A] = 1 - sum_P P[|G_j| >= beta_j (j in P), |G_j| < beta_j (j not in P), |L_P| < level]``.

    Attributes
    ----------
    gate_correlation : tuple of tuple of float
        ``R_ij = <v_i, v_j>``, the correlations of the standard normals ``G_j`` (m x m).
    gate_thresholds : tuple of float
        ``beta_j = max(0, -b_j)/(sigma |w_j^(0)|)``: gate j is open on the noise row iff ``|G_j| >= beta_j``
        (``inf`` beyond the float range: that gate never opens).
    signal_thresholds : tuple of float
        ``|<v_j, w_*>|/sigma``: the thresholds of the proof's events E_1 and E_2.
    open_on_signal : tuple of int
        ``M(w_*)``: the gates with ``|<w_j^(0), w_*>| + b_j >= 0``.
    patterns : tuple of tuple of int
        Every subset P of the m gates, by size, then in lexicographic order.
    pattern_covariances : tuple of tuple of tuple of float
        Per pattern, the covariance of ``(G_1, ..., G_m, L_P)``: R, then ``<v_j, v_P>/s`` and ``|v_P|^2/s^2``.
    level : float
        ``C |g(w_*)|/s``, the bound on ``|L_P|`` in the complement of A.
    small_ball : float
        ``P_{x ~ N(0,1)}[|x| < C |<v_hat, w_*>|] = erf(C |<v_hat, w_*>|/sqrt 2)``, ``v_hat`` the unit vector along
        ``v_{M(w_*)}`` (0 when ``g(w_*) = 0``).
    g_star : float
        ``g(w_*) = <v_{M(w_*)}, w_*>``.

    Examples
    --------
    >>> from theory.local_signal import lemma_b12_reduction
    >>> red = lemma_b12_reduction([(0.6, 0.8)], [(1.0, 0.0)], (1.0, 0.0), [-0.3], 1.0, 0.5)
    >>> red.patterns, red.open_on_signal, red.gate_thresholds
    (((), (0,)), (0,), (0.6,))
    """

    gate_correlation: tuple[tuple[float, ...], ...]
    gate_thresholds: tuple[float, ...]
    signal_thresholds: tuple[float, ...]
    open_on_signal: tuple[int, ...]
    patterns: tuple[tuple[int, ...], ...]
    pattern_covariances: tuple[tuple[tuple[float, ...], ...], ...]
    level: float
    small_ball: float
    g_star: float


def _filter_rows(rows: object, name: str, d: int) -> tuple[tuple[float, ...], ...]:
    """A non-empty sequence of filters of length d (a single vector of length d is one filter), as float rows."""
    if not _is_sequence(rows) or not len(rows):  # type: ignore[arg-type]
        raise InputError(f"{name} must be a non-empty sequence of filters, got {rows!r:.80}", param=name)
    if not any(_is_sequence(r) for r in rows):  # type: ignore[attr-defined]
        return (_vector(rows, name, d),)
    return tuple(_vector(r, name, d) for r in rows)  # type: ignore[attr-defined]


def _mp_float(x: mpmath.mpf) -> float:
    """``float(x)``, ``inf`` beyond the float range (mpmath raises no overflow)."""
    return float(x) if abs(x) < mpmath.mpf("1.7e308") else math.copysign(math.inf, float(mpmath.sign(x)))


def lemma_b12_reduction(
    w0: object, w: object, w_star: tuple[float, ...], b: object, C: float, sigma: float
) -> LemmaB12Reduction:
    """Lemma B.12 (Karp thesis, App. B.2.2, ``1 <= m <= C`` frozen filters) reduced exactly to Gaussian box
    probabilities: Event A is ``|g(eps)| >= C sigma |g(w_*)|``, ``eps ~ N(0, sigma^2 I_d)``,
    ``g(x) = sum_j <w_j, x> 1{|<w_j^(0), x>| + b_j >= 0}``.

    Gate j is open on the noise row iff ``|<w_j^(0), eps>| >= -b_j``, i.e. ``|G_j| >= beta_j`` with
    ``G_j = <v_j, eps>/sigma`` standard normal (``v_j = w_j^(0)/|w_j^(0)|``) and
    ``beta_j = max(0, -b_j)/(sigma |w_j^(0)|)``. Given the set P of open gates, ``g(eps) = <v_P, eps>`` with
    ``v_P = sum_{j in P} w_j``; the patterns partition the space, so

    ``P[A] = 1 - sum_{P subset [m]} P[|G_j| >= beta_j (j in P), |G_j| < beta_j (j not in P), |L_P| < C |g(w_*)|/s]``,

    ``L_P = <v_P, eps>/(sigma s)``, each term the probability of a box of the normal vector ``(G, L_P)``, whose
    covariance is the Gram matrix of ``v_1, ..., v_m, v_P/s``. At m = 1 this is Lemma B.11's
    ``P[|Z_1| >= alpha, |Z_2| >= beta]`` (:func:`lemma_b11_event_probability`); the box probabilities for m >= 2
    have no closed form (``numerics.local_signal.lemma_b12_probabilities`` integrates them). Computed at 40 digits
    and rounded to floats.

    Parameters
    ----------
    w0, w : sequence of sequence of float
        The m frozen filters ``w_j^(0) != 0`` and the kernel weights (m rows of length d; one vector is one filter).
    w_star : sequence of float
        The unit signal direction (length d).
    b : float or sequence of float
        The biases (one per filter, or one for all).
    C : float
        The lemma's constant, ``> 0``.
    sigma : float
        The noise level, ``> 0``.

    Returns
    -------
    LemmaB12Reduction

    Raises
    ------
    ValueError
        For rows of different lengths, ``w`` not of ``w0``'s shape, a zero filter, ``|w_star| != 1`` (within 1e-9)
        or ``C, sigma <= 0``; a :class:`theory._checks.LimitError` naming ``w0`` when ``2^m (m + 1)^2`` exceeds
        :data:`MAX_B12_ENTRIES`.

    Examples
    --------
    Two filters at right angles, both gates open on the signal row, both kernel weights ``w_*``; with both gates open
    on the noise row, ``L = 2 <w_*, eps>/sigma`` has covariances ``<v_j, 2 w_*>`` = 1.2, 1.6 and variance 4:

    >>> from theory.local_signal import lemma_b12_reduction
    >>> red = lemma_b12_reduction([(0.6, 0.8), (0.8, -0.6)], [(1.0, 0.0), (1.0, 0.0)], (1.0, 0.0), -0.2, 1.0, 0.5)
    >>> red.open_on_signal, red.gate_thresholds, red.signal_thresholds
    ((0, 1), (0.4, 0.4), (1.2, 1.6))
    >>> red.patterns
    ((), (0,), (1,), (0, 1))
    >>> red.pattern_covariances[3][2], red.level, red.g_star
    ((1.2, 1.6, 4.0), 2.0, 2.0)
    """
    ws = _vector(w_star, "w_star")
    d = len(ws)
    rows0 = _filter_rows(w0, "w0", d)
    m = len(rows0)
    check_cost(
        2**m * (m + 1) ** 2,
        MAX_B12_ENTRIES,
        param="w0",
        value=m,
        what=f"the reduction of m = {m} filters has 2^m (m + 1)^2 covariance entries, more than",
        hint="use fewer filters",
    )
    rows = _filter_rows(w, "w", d)
    if len(rows) != m:
        raise InputError(f"w must have m = {m} rows like w0, got {len(rows)}", param="w")
    seq = tuple(b) if _is_sequence(b) else (b,) * m  # type: ignore[arg-type]
    biases = tuple(_finite(x, "b") for x in seq)
    if len(biases) != m:
        raise InputError(f"b must be a number or have length m = {m}, got length {len(biases)}", param="b")
    c = _finite(C, "C")
    if not c > 0:
        raise InputError(f"C must be > 0, got {C!r:.40}", param="C")
    sig = check_sigma(sigma)
    with mpmath.workdps(40):
        vs = [mpmath.mpf(x) for x in ws]
        if not abs(mpmath.sqrt(mpmath.fdot(vs, vs)) - 1) <= 1e-9:
            raise InputError(f"w_star must be a unit vector, got |w_star| = {float(mpmath.norm(vs))!r}", param="w_star")
        f0 = [[mpmath.mpf(x) for x in r] for r in rows0]
        norms0 = [mpmath.sqrt(mpmath.fdot(r, r)) for r in f0]
        if any(n == 0 for n in norms0):
            raise InputError("w0 (the frozen filters) must be nonzero", param="w0")
        v = [[x / n for x in r] for r, n in zip(f0, norms0)]
        scale = max((abs(mpmath.mpf(x)) for r in rows for x in r), default=mpmath.mpf(0)) or mpmath.mpf(1)
        fw = [[mpmath.mpf(x) / scale for x in r] for r in rows]
        R = tuple(tuple(_mp_float(mpmath.fdot(vi, vj)) for vj in v) for vi in v)
        beta = tuple(_mp_float(max(mpmath.mpf(0), -mpmath.mpf(bj)) / (sig * n)) for bj, n in zip(biases, norms0))
        align = [mpmath.fdot(vj, vs) for vj in v]
        signal = tuple(_mp_float(abs(a) / sig) for a in align)
        open_star = tuple(j for j in range(m) if abs(mpmath.fdot(f0[j], vs)) + biases[j] >= 0)

        def v_of(P: tuple[int, ...]) -> list[mpmath.mpf]:
            return [mpmath.fsum(fw[j][i] for j in P) for i in range(d)]

        v_star = v_of(open_star)
        g_scaled = mpmath.fdot(v_star, vs)
        norm_star = mpmath.sqrt(mpmath.fdot(v_star, v_star))
        small = 0.0 if g_scaled == 0 else _mp_float(mpmath.erf(c * abs(g_scaled) / norm_star / mpmath.sqrt(2)))
        patterns = tuple(P for size in range(m + 1) for P in itertools.combinations(range(m), size))
        covs = []
        for P in patterns:
            vP = v_of(P)
            cross = tuple(_mp_float(mpmath.fdot(vj, vP)) for vj in v)
            covs.append((*(R[j] + (cross[j],) for j in range(m)), (*cross, _mp_float(mpmath.fdot(vP, vP)))))
        return LemmaB12Reduction(
            gate_correlation=R,
            gate_thresholds=beta,
            signal_thresholds=signal,
            open_on_signal=open_star,
            patterns=patterns,
            pattern_covariances=tuple(covs),
            level=_mp_float(c * abs(g_scaled)),
            small_ball=small,
            g_star=_mp_float(g_scaled * scale),
        )


@fill_doc(_DOC)
def gradient_structure_residual() -> int:
    """The symmetrisation in the proofs of Lemmas 3.1 and 3.2 gives ``grad_w E l = gamma w + kappa w_*`` exactly
    (docs/local_signal.md): the component of the population gradient orthogonal to span{w, w_*} is 0, and the
    symmetrised estimators of gamma and kappa agree with the direct ones. Returns that residual, 0.

    {{int_zero}}

    Examples
    --------
    >>> from theory.local_signal import gradient_structure_residual
    >>> gradient_structure_residual()
    0
    """
    return 0


# --------------------------------------------------------------------------------------------------------------
# The summary for `tvk derive signal`


MAX_DERIVE_K = 10**6
"""Largest k of :func:`derive_signal` (``tvk derive signal``): its threshold search evaluates err(tau) about 25 times,
and each evaluation costs more as k grows (~2 s in all at k = 10^6, ~25 s at 10^9)."""


def derive_signal(k: int) -> dict[str, str | int | float | None]:
    """``tvk derive signal --k K``: sigma = log k / sqrt k, the linear classifier's error Phi(-1/log k), the CLT
    error at tau = 0, the 0-1 optimal threshold tau* of the aligned CNN with err(tau*), the floor
    (1 - (1 - 2 Phi^c(1/sigma))^k)/2 and its first-order form k Phi(-1/sigma), and Lemma B.5's sufficient tau.

    Parameters
    ----------
    k : int
        The number of noise rows, ``2 <= k <= MAX_DERIVE_K``.

    Returns
    -------
    dict
        ``task``, ``source``, ``k``, ``sigma``, ``linear_classifier_error``, ``tau_star``, ``err_tau_star``,
        ``err_tau_star_below`` (:data:`RESOLVABLE_ERROR` when tau* is not resolved, else None), ``floor``,
        ``floor_first_order``, ``lemma_b5_alpha`` and ``lemma_b5_tau_sufficient``.

    Raises
    ------
    ValueError
        For ``k < 2``; :class:`theory._checks.LimitError` for ``k > MAX_DERIVE_K``.

    Examples
    --------
    The threshold search takes 0.2-3 s (so it is not run here; :func:`format_signal` shows the text); beyond
    ``MAX_DERIVE_K`` the summary is refused before any work:

    >>> from theory.local_signal import derive_signal
    >>> derive_signal(10**7)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: k = 10,000,000 is above the limit k <= 1,000,000 of the summary ...
    """
    k = check_k(k)
    check_cost(
        k,
        MAX_DERIVE_K,
        param="k",
        value=k,
        what="the summary (err(tau) is a numerical integral whose cost grows with k: ~2 s at k = 10^6)",
        hint="noise_sigma(k) = log k / sqrt k and linear_classifier_error(k) = Phi(-1/log k) are closed forms",
    )
    sigma = noise_sigma(k)
    opt = optimal_threshold(k, sigma)
    b5 = lemma_b5(k)
    return {
        "task": "signal",
        "source": "Karp thesis Ch. 3 (docs/local_signal.md)",
        "k": k,
        "sigma": sigma,
        "linear_classifier_error": linear_classifier_error(k),
        "tau_star": opt.tau if opt.resolved else None,
        "err_tau_star": opt.error if opt.resolved else None,
        "err_tau_star_below": None if opt.resolved else RESOLVABLE_ERROR,
        "floor": opt.floor,
        "floor_first_order": floor_approximation(k, sigma),
        "lemma_b5_alpha": b5.alpha,
        "lemma_b5_tau_sufficient": b5.tau_sufficient,
    }


def format_signal(summary: dict) -> str:
    """The text of ``tvk derive signal`` for a :func:`derive_signal` summary.

    Parameters
    ----------
    summary : dict
        A :func:`derive_signal` summary.

    Returns
    -------
    str

    Examples
    --------
    The summary ``derive_signal(10**4)`` returns (there ``err`` is below :data:`RESOLVABLE_ERROR` on an interval),
    built here from its closed-form parts:

    >>> from theory.local_signal import (RESOLVABLE_ERROR, error_floor, floor_approximation, format_signal,
    ...     lemma_b5, linear_classifier_error, noise_sigma)
    >>> k, b5 = 10**4, lemma_b5(10**4)
    >>> summary = {"k": k, "sigma": noise_sigma(k), "linear_classifier_error": linear_classifier_error(k),
    ...     "tau_star": None, "err_tau_star_below": RESOLVABLE_ERROR, "floor": error_floor(k),
    ...     "floor_first_order": floor_approximation(k), "lemma_b5_alpha": b5.alpha,
    ...     "lemma_b5_tau_sufficient": b5.tau_sufficient}
    >>> print(format_signal(summary))
    local signal adaptivity (Karp Ch. 3), k = 10000 noise rows, aligned filter w = c w_*, b = -tau c
      sigma = log k / sqrt k = 0.0921034
      linear classifier error Phi(-1/log k) = 0.45677
      tau*, err(tau*)        : err < 1e-07 on an interval (tau* not resolved)
      floor lim_(tau->1) err = 9.19937e-24  (k Phi(-1/sigma) = 9.19937e-24)
      Lemma B.5: alpha* = 6.0697, sufficient tau = 0.5590
    """
    if not isinstance(summary, Mapping):
        raise InputError(f"summary must be the dict derive_signal returns, got {summary!r:.80}", param="summary")
    keys = ["k", "sigma", "linear_classifier_error", "tau_star", "floor", "floor_first_order", "lemma_b5_alpha"]
    keys += ["lemma_b5_tau_sufficient", "err_tau_star_below" if summary.get("tau_star") is None else "err_tau_star"]
    missing = [key for key in keys if key not in summary]
    if missing:
        raise InputError(f"summary lacks the keys {missing} of a derive_signal summary", param="summary")
    k = summary["k"]
    if summary["tau_star"] is None:
        opt = f"  tau*, err(tau*)        : err < {summary['err_tau_star_below']:g} on an interval (tau* not resolved)"
    else:
        opt = (
            f"  tau* (0-1 optimal)     = {summary['tau_star']:.4f}  (err is flat near it)\n"
            f"  err(tau*)              = {summary['err_tau_star']:.6g}"
        )
    return (
        f"local signal adaptivity (Karp Ch. 3), k = {k} noise rows, aligned filter w = c w_*, b = -tau c\n"
        f"  sigma = log k / sqrt k = {summary['sigma']:.6g}\n"
        f"  linear classifier error Phi(-1/log k) = {summary['linear_classifier_error']:.6g}\n"
        f"{opt}\n"
        f"  floor lim_(tau->1) err = {summary['floor']:.6g}  (k Phi(-1/sigma) = {summary['floor_first_order']:.6g})\n"
        f"  Lemma B.5: alpha* = {summary['lemma_b5_alpha']:.4f}, sufficient tau = {summary['lemma_b5_tau_sufficient']:.4f}"
        + ("  (> 1: unusable at this k)" if summary["lemma_b5_tau_sufficient"] >= 1 else "")
    )


# --------------------------------------------------------------------------------------------------------------
# Theorem 3.1 end to end and the lemmas of App. B.1.3 along trajectories (issue 30; docs/local_signal.md, "Theorem
# 3.1 end to end and the lemmas along trajectories")

__all__ += [
    "MAX_INIT_D",
    "bernstein_tail_bound",
    "init_failure_bound",
    "init_failure_probability",
    "lemma31_small_c",
    "lemma_b7_loss_level",
    "lemma_b8_probability",
    "noise_term_bound",
    "theorem31_step_budget",
]


def _state(k: object, sigma: object, c: object, v: object, b: object) -> tuple[int, float, float, float, float]:
    """Checked ``(k, sigma, c, v, b)``: 2 <= k <= MAX_FLOAT_K, sigma > 0, v >= 0, c^2 + v^2 > 0, all finite."""
    k = _float_k(k)
    sigma = check_sigma(sigma)
    c_f, v_f, b_f = _finite(c, "c"), _finite(v, "v"), _finite(b, "b")
    if v_f < 0:
        raise InputError(f"v = |w_perp| must be >= 0, got {v!r}", param="v")
    if c_f == 0 and v_f == 0:
        raise InputError("(c, v) must not both be 0: the noise projections Z = c A + v B would vanish", param="c")
    return k, sigma, c_f, v_f, b_f


@fill_doc(_DOC)
def noise_term_bound(k: int, sigma: float, c: float, v: float, b: float) -> float:
    r"""The bound of the proofs of Lemmas 3.1 and 3.2 (Karp thesis, App. B.1.3) on the noise rows' part of the
    population gradient, per unit of the weight it multiplies:

    ``K = k (sigma^2 + (3/2) sigma^2 alpha phi(alpha)/Phi^c(alpha)) P[Z >= -b]``, with ``s = sigma sqrt(c^2 + v^2)``,
    ``alpha = |b|/s`` and ``Z ~ N(0, s^2)``, so that ``P[Z >= -b] = Phi^c(-b/s)``.

    The proofs show ``(1) = c gamma`` (Lemma 3.1, along w_*) and ``(1) = v gamma`` (Lemma 3.2, along
    ``w_perp/|w_perp|``) with ``0 <= gamma`` and ``|(1)| <= |c| K``, ``(1) <= v K`` (the last display of each proof,
    "= |c_t| sum_{i in I} (sigma^2 + 3/2 sigma^2 alpha_t phi(alpha_t)/Phi^c(alpha_t)) P[Z_i >= -b_t]"), so
    ``gamma <= K``; Lemma B.5's ``alpha <= 2 sqrt(log k)`` then gives ``O(log^3 k)``.

    Parameters
    ----------
    {{k_rows_sigma}}
    c, v, b : float
        The state ``c = w . w_*``, ``v = |w_perp| >= 0`` (not both 0), the bias.

    Returns
    -------
    float
        ``K``.

    Examples
    --------
    At ``b = 0`` (alpha = 0) the bound is ``k sigma^2 / 2``, whatever c and v:

    >>> from theory.local_signal import noise_term_bound
    >>> noise_term_bound(100, 0.5, 1.0, 0.3, 0.0), 100 * 0.25 / 2
    (12.5, 12.5)
    >>> noise_term_bound(100, 0.5, 0.0, 0.0, 0.1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: (c, v) must not both be 0: the noise projections Z = c A + v B would vanish
    """
    k, sigma, c, v, b = _state(k, sigma, c, v, b)
    with mpmath.workdps(30):
        s = mpmath.mpf(sigma) * mpmath.sqrt(mpmath.mpf(c) ** 2 + mpmath.mpf(v) ** 2)
        alpha = abs(mpmath.mpf(b)) / s
        ratio = mpmath.npdf(alpha) / _sf_mp(alpha)
        p = _sf_mp(-mpmath.mpf(b) / s)
        s2 = mpmath.mpf(sigma) ** 2
        return float(k * (s2 + mpmath.mpf(3) / 2 * s2 * alpha * ratio) * p)


def lemma31_small_c(k: int) -> float:
    """The scale below which the sketch of Lemma 3.1 (Karp thesis, Sec. 3.4) has the signal row win:
    ``|w . w_*| = o(1/log^3 k)``; returns ``1/log^3 k`` (the noise part is at most ``O(|c| log^3 k)``, the signal part
    ``-Theta(1)``). The full Lemma 3.1 (App. B.1.3) takes ``|c_t| <= H/log^4 k`` for a constant H.

    Parameters
    ----------
    k : int
        Noise rows, ``k >= 3`` (log k > 1).

    Returns
    -------
    float

    Examples
    --------
    >>> from theory.local_signal import lemma31_small_c
    >>> round(lemma31_small_c(1000), 6)
    0.003034
    """
    k = check_k(k, minimum=3)
    return 1.0 / math.log(k) ** 3 if k <= MAX_FLOAT_K else 1.0 / (math.log10(k) * math.log(10)) ** 3


def theorem31_step_budget(k: int) -> int:
    """The poly(k) step budget within which Alg. 3.1 is required to reach test error <= 0.01 (Theorem 3.1, Karp
    thesis Sec. 3.4 and App. B.1.3: "T = poly(k) iterations"): ``T(k) = ceil(k^{3/2})``.

    The theorem fixes no degree. The proof's phase lengths are ``T_1 = (2 C_2/log^4 k + delta)/(eta A)`` and, with
    the corrected ``T_2`` (:func:`t2_corrected`) at ``eta_b = eta/k``, ``T_2 = O(sqrt(k) log^{3/2} k / eta)``; the
    budget ``k^{3/2}`` is a declared degree-3/2 polynomial, above that order at fixed eta for every k >= 3 and
    constant C_3/C up to about ``k/(4 log^{3/2} k)``. The claims record the step at which the error first falls to
    0.01 against k (docs/local_signal.md), so how far below the budget the runs are is data, not judged.

    Parameters
    ----------
    k : int
        Noise rows, ``k >= 2``.

    Returns
    -------
    int
        The smallest integer T with ``T^2 >= k^3``.

    Examples
    --------
    >>> from theory.local_signal import theorem31_step_budget
    >>> theorem31_step_budget(100), theorem31_step_budget(2000)
    (1000, 89443)
    """
    k = check_k(k)
    return math.isqrt(k**3 - 1) + 1


MAX_INIT_D = 10**6
"""Largest dimension d of :func:`init_failure_probability` (its chi-square tail has d - 1 degrees of freedom)."""


def init_failure_probability(k: int, d: int) -> float:
    """Lemma B.3 exactly: for ``w^(0) ~ N(0, delta^2/(k d) I_d)``, the probability that ``|c^(0)| > delta`` or
    ``v^(0) > delta`` (``c = w . w_*``, ``v = |w - c w_*|``):

    ``1 - (1 - 2 Phi^c(sqrt(k d))) P[chi^2_{d-1} <= k d]``

    (``c ~ N(0, delta^2/(k d))`` and ``v^2 ~ delta^2/(k d) chi^2_{d-1}`` are independent). The lemma bounds it by
    ``e^{-Omega(k)}``; its proof by ``2 d e^{-k/2}`` (:func:`init_failure_bound`).

    Parameters
    ----------
    k : int
        ``k >= 1``.
    d : int
        ``d >= 2``.

    Returns
    -------
    float

    Examples
    --------
    >>> from theory.local_signal import init_failure_bound, init_failure_probability
    >>> p = init_failure_probability(3, 3)
    >>> round(p, 6), p < float(init_failure_bound(3, 3))
    (0.013779, True)
    """
    k = check_k(k, minimum=1)
    d = check_d(d)
    if d < 2:
        raise InputError(f"d must be >= 2 (v lives in the d - 1 directions orthogonal to w_*), got d = {d}", param="d")
    _check_limits(
        (("k", k, MAX_FLOAT_K), ("d", d, MAX_INIT_D)),
        "init_failure_probability (the chi-square tail is evaluated at k d)",
    )
    with mpmath.workdps(40):
        x = mpmath.mpf(k) * d
        p_c = 2 * _sf_mp(mpmath.sqrt(x))
        q_v = mpmath.gammainc(mpmath.mpf(d - 1) / 2, x / 2, mpmath.inf, regularized=True)  # P[chi^2_{d-1} > k d]
        return float(p_c + (1 - p_c) * q_v)  # = 1 - (1 - p_c)(1 - q_v), without cancelling the tiny tails


def init_failure_bound(k: int, d: int) -> sympy.Expr:
    """The proof of Lemma B.3 (Karp thesis, App. B.1.3): ``P[not E] <= sum_i P[|w_i| >= delta/sqrt d] <= d 2 e^{-k/2}``,
    as an exact sympy expression ``2 d exp(-k/2)``.

    Parameters
    ----------
    k : int
        ``k >= 1``.
    d : int
        ``d >= 1``.

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.local_signal import init_failure_bound
    >>> init_failure_bound(4, 3)
    6*exp(-2)
    """
    k = check_k(k, minimum=1)
    d = check_d(d)
    return 2 * sympy.Integer(d) * sympy.exp(-sympy.Rational(k, 2))


def _soft_moments_below(b: mpmath.mpf, s: mpmath.mpf, M: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``P[|S| <= M]`` and ``E[S^2 1{|S| <= M}]`` for ``S = phi_b(Z)``, ``Z ~ N(0, s^2)`` (both halves by symmetry)."""
    dens = lambda z: mpmath.npdf(z, 0, s)  # noqa: E731
    if b < 0:  # soft threshold at |b|: |S| <= M iff |Z| <= |b| + M
        hi = -b + M
        p = 1 - 2 * _sf_mp(hi / s)
        m2 = 2 * mpmath.quad(lambda z: (z + b) ** 2 * dens(z), [-b, hi])
        return p, m2
    # b >= 0: S = 2Z on |Z| <= b, Z + b sign Z beyond; |S| <= M iff |Z| <= M/2 (M <= 2b) or |Z| <= M - b
    if 2 * b >= M:
        hi = M / 2
        return 1 - 2 * _sf_mp(hi / s), 2 * mpmath.quad(lambda z: 4 * z * z * dens(z), [0, hi])
    hi = M - b
    inner = mpmath.quad(lambda z: 4 * z * z * dens(z), [0, b]) if b > 0 else mpmath.mpf(0)
    outer = mpmath.quad(lambda z: (z + b) ** 2 * dens(z), [b, hi])
    return 1 - 2 * _sf_mp(hi / s), 2 * (inner + outer)


def bernstein_tail_bound(k: int, sigma: float, c: float, v: float, b: float) -> float:
    r"""The right side of the Bernstein step in the proof of Lemma B.6 (Karp thesis, App. B.1.3):

    ``P[sum_{i in I} S_i >= t] <= exp(-t^2 / (2 k u^2 + 2 M t/3)) + 2 k exp(-(M - b)^2 / (2 s^2))``

    at ``M = s log^2 k`` and ``t = c_t + b_t``, with ``S_i = phi_b(Z_i)``, ``Z_i ~ N(0, s^2)``,
    ``s = sigma sqrt(c^2 + v^2)`` and ``u^2 = Var[S_i | |S_i| <= M]`` computed exactly (mpmath quadrature of the
    soft threshold's truncated second moment; the conditional mean is 0 by symmetry). ``t = c + b`` is the signal
    row's ``phi_b(c)`` when ``c >= |b|``; it must be > 0.

    Parameters
    ----------
    k : int
        Noise rows, ``k >= 3``.
    sigma : float
        Noise standard deviation, > 0.
    c, v, b : float
        The state, with ``c + b > 0``.

    Returns
    -------
    float
        The bound (it may exceed 1: then the step says nothing at this k).

    Examples
    --------
    At k = 1000 the term ``2 M t/3`` dominates and the bound is vacuous, about exp(-3 (1 - tau) / (2 sigma log^2 k)):

    >>> from theory.local_signal import bernstein_tail_bound, noise_sigma
    >>> round(bernstein_tail_bound(1000, noise_sigma(1000), 1.0, 0.0, -0.5), 4)
    0.9384
    """
    k, sigma, c, v, b = _state(k, sigma, c, v, b)
    if k < 3:
        raise InputError(f"k must be >= 3 (M = s log^2 k), got {k}", param="k")
    if not c + b > 0:
        raise InputError(f"t = c + b must be > 0 (the signal row's margin), got c + b = {c + b!r}", param="b")
    with mpmath.workdps(30):
        s = mpmath.mpf(sigma) * mpmath.sqrt(mpmath.mpf(c) ** 2 + mpmath.mpf(v) ** 2)
        L = mpmath.log(k)
        M = s * L**2
        bb = mpmath.mpf(b)
        p, m2 = _soft_moments_below(bb, s, M)
        u2 = m2 / p
        t = mpmath.mpf(c) + bb
        first = mpmath.exp(-(t**2) / (2 * k * u2 + 2 * M * t / 3))
        second = 2 * k * mpmath.exp(-((M - bb) ** 2) / (2 * s**2))
        return float(first + second)


def lemma_b7_loss_level() -> Fraction:
    """The premise of Lemmas B.7 and B.8 (Karp thesis, App. B.1.3): "E[l(f_0(X), y)] <= 1 at the start of training,
    so we must have E[l(f_t(X), y)] <= 1 for all t <= T" (the loss at f = 0 is log 2 < 1).

    Returns
    -------
    fractions.Fraction
        ``1``.

    Examples
    --------
    >>> import math
    >>> from theory.local_signal import lemma_b7_loss_level
    >>> lemma_b7_loss_level(), math.log(2) < lemma_b7_loss_level()
    (Fraction(1, 1), True)
    """
    return Fraction(1)


def lemma_b8_probability() -> Fraction:
    """Lemma B.8 (Karp thesis, App. B.1.3): ``P[|S| < c_t + b_t + 10] >= 4/5`` for all t <= T (from
    ``1 >= E l >= 10 P[S <= -(c_t + b_t) - 10] = 5 P[|S| >= c_t + b_t + 10]``).

    Returns
    -------
    fractions.Fraction
        ``4/5``.

    Examples
    --------
    >>> from theory.local_signal import lemma_b8_probability
    >>> lemma_b8_probability()
    Fraction(4, 5)
    """
    return Fraction(4, 5)


# --------------------------------------------------------------------------------------------------------------
# Theorem 3.2 with the infimum over w (issue 30 item 10; docs/local_signal.md, "Theorem 3.2: the infimum over w"):
# the Gaussian-limit infimum of one gated filter in closed form, the init law of its alignment, and the k that the
# theorem's "probability 0.999 over the init" needs

__all__ += [
    "cntk_critical_alignment",
    "cntk_single_filter_infimum",
    "gated_noise_moments",
    "init_alignment_tail",
    "thm32_aligned_filter_probability",
    "thm32_needed_log10_k",
]

MAX_ALIGNMENT_D = 10**30
"""Largest dimension d of :func:`init_alignment_tail` (mpmath's incomplete beta function at 40 digits)."""


def gated_noise_moments(tau: float) -> tuple[float, float]:
    """The second moments of a noise row behind one CNTK gate (Karp thesis, Sec. 3.5 and App. B.2): for
    ``z ~ N(0, I_d)``, a unit vector ``u`` and the gate ``1{|<u, z>| >= tau}``,

    ``E[z z^T 1{|<u, z>| >= tau}] = p (I - u u^T) + q u u^T``,  ``p = 2 Phi^c(tau)``,
    ``q = E[x^2 1{|x| >= tau}] = 2 (tau phi(tau) + Phi^c(tau))`` (``x ~ N(0, 1)``),

    since the component of z orthogonal to u is independent of the gate. With ``tau = -b/(sigma |w^(0)|)`` this is
    the covariance (divided by sigma^2) of the CNTK feature ``eps 1{|<w^(0), eps>| + b >= 0}`` of a noise row.

    Parameters
    ----------
    tau : float
        The gate's threshold in units of the noise level, ``>= 0`` (``inf``: the gate is shut, ``(0, 0)``).

    Returns
    -------
    tuple of float
        ``(p, q)``: the moment across u (the gate's pass probability) and along u.

    Raises
    ------
    ValueError
        For a negative or non-finite threshold other than ``inf``.

    Examples
    --------
    >>> from theory.local_signal import gated_noise_moments, normal_sf
    >>> gated_noise_moments(0.0)  # no gate: E[z z^T] = I
    (1.0, 1.0)
    >>> p, q = gated_noise_moments(1.0)
    >>> round(p, 10), round(q, 10), abs(p - 2 * normal_sf(1.0)) < 1e-15
    (0.3173105079, 0.8012519569, True)
    """
    t = _finite(tau, "tau", allow_inf=True)
    if not t >= 0:
        raise InputError(f"tau (the gate's threshold over sigma) must be >= 0, got {tau!r:.40}", param="tau")
    if math.isinf(t):
        return 0.0, 0.0
    with mpmath.workdps(30):
        tm = mpmath.mpf(t)
        sf = _sf_mp(tm)
        return float(2 * sf), float(2 * (tm * mpmath.npdf(tm) + sf))


def cntk_single_filter_infimum(D: float, k: int) -> float:
    """Theorem 3.2 with one filter (Theorem B.1, Karp thesis App. B.2.1): the infimum over the weights w and the bias
    b of the CNTK's error ``P[y k_w(X) <= 0]`` in the Gaussian (CLT) limit of the noise sum, in closed form,

    ``Phi^c( sqrt( (c^2/q(D) + (1 - c^2)/p(D)) / (k sigma^2) ) )``,  ``c = D sigma``,

    with ``sigma = log k / sqrt k``, ``D = |<w^(0)/|w^(0)|, w_*>| / sigma`` the filter's alignment with the signal in
    noise units (``sqrt(d) |<w0_hat, w_*>|`` when ``d = 1/sigma^2``) and ``(p, q)`` of :func:`gated_noise_moments`.

    Derivation. ``k_w(X) = y s + N`` with ``s = <w, w_*> 1{D >= tau}`` (the signal row ``y w_*`` passes the gate
    ``|<w0_hat, x>| >= tau sigma`` iff ``D >= tau``) and ``N = sum_i <w, eps_i> 1_i`` over the k noise rows; N is
    symmetric and independent of y (the gate is even in eps), so the error is ``P[N >= |s|]`` (ties aside) and in the
    Gaussian limit ``Phi^c(|s| / sd(N))``, ``Var N = k sigma^2 w^T M w``, ``M = p (I - u u^T) + q u u^T``. The
    supremum over w of ``s^2 / w^T M w`` is ``w_*^T M^{-1} w_* = c^2/q + (1 - c^2)/p`` (Cauchy-Schwarz; attained at
    ``w = M^{-1} w_*``). It increases with tau on ``[0, D]`` (p and q decrease), and ``tau > D`` shuts the signal out
    (error 1/2): the infimum over b is at ``tau = D``, the tightest gate that the signal passes, where the gate passes
    a noise row with probability ``p(D) = 2 Phi^c(D)`` only. At ``D = 0`` (no gate) it is ``Phi^c(1/log k)``, the
    linear classifier's error (:func:`linear_classifier_error`).

    Parameters
    ----------
    D : float
        The alignment, ``0 <= D <= 1/sigma``.
    k : int
        The number of noise rows, ``k >= 2``.

    Returns
    -------
    float
        ``Phi^c(sqrt(w_*^T M^{-1} w_* / (k sigma^2)))`` at ``tau = D``: the smallest Gaussian-limit error over w and b.

    Raises
    ------
    ValueError
        For ``D`` outside ``[0, 1/sigma]`` or an invalid k.

    Examples
    --------
    >>> from theory.local_signal import cntk_single_filter_infimum, linear_classifier_error
    >>> cntk_single_filter_infimum(0.0, 1000) == linear_classifier_error(1000)
    True
    >>> [round(cntk_single_filter_infimum(D, 1000), 4) for D in (1.0, 2.0, 2.5, 3.0)]
    [0.4, 0.2667, 0.1321, 0.0148]
    """
    k = _float_k(k)
    s = noise_sigma(k)
    x = _finite(D, "D")
    if not 0 <= x <= 1 / s:
        raise InputError(
            f"D (the alignment |<w0_hat, w_*>|/sigma) must lie in [0, 1/sigma] = [0, {1 / s:.6g}], got {D!r:.40}",
            param="D",
        )
    if x > 60:  # q(60) < 1e-780 and k sigma^2 = log^2 k < 5e5, so snr^2 >= 1/(q k sigma^2) > 1e770: error 0
        return 0.0
    with mpmath.workdps(30):
        xm, sm = mpmath.mpf(x), mpmath.mpf(s)
        sf = _sf_mp(xm)
        p, q = 2 * sf, 2 * (xm * mpmath.npdf(xm) + sf)
        c2 = min(xm * xm * sm * sm, mpmath.mpf(1))
        snr2 = (c2 / q + (1 - c2) / p) / (k * sm * sm)
        return float(_sf_mp(mpmath.sqrt(snr2)))


def cntk_critical_alignment(k: int, level: float = 0.1) -> float:
    """The alignment ``D*`` at which :func:`cntk_single_filter_infimum` equals ``level`` (Theorem 3.2's 0.1 by
    default): an init with a filter aligned beyond ``D*`` has, in the Gaussian limit, a kernel predictor (that filter
    gated at ``tau = D``, the others shut) erring less than ``level``. Found by bisection (60 halvings) on
    ``[0, 1/sigma]``; the infimum decreases in D wherever ``c^2 = D^2 sigma^2 <= 1/3`` (docs/local_signal.md), which
    covers the crossing for ``k >= 1000``.

    Parameters
    ----------
    k : int
        The number of noise rows, ``k >= 2``.
    level : float
        The error level, in ``(0, 1/2)``.

    Returns
    -------
    float
        ``D*`` (``0`` when the linear classifier already errs less than ``level``).

    Raises
    ------
    ValueError
        For an invalid k or level.

    Examples
    --------
    >>> from theory.local_signal import cntk_critical_alignment, cntk_single_filter_infimum
    >>> D = cntk_critical_alignment(1000)
    >>> round(D, 4), abs(cntk_single_filter_infimum(D, 1000) - 0.1) < 1e-12
    (2.6083, True)
    """
    k = _float_k(k)
    lv = _finite(level, "level")
    if not 0 < lv < 0.5:
        raise InputError(f"level (an error level) must lie in (0, 1/2), got {level!r:.40}", param="level")
    lo, hi = 0.0, min(1 / noise_sigma(k), 61.0)  # the infimum is 0 beyond D = 60
    if cntk_single_filter_infimum(lo, k) <= lv:
        return 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cntk_single_filter_infimum(mid, k) > lv else (lo, mid)
    return hi


def init_alignment_tail(x: float, k: int, d: int) -> float:
    """The law of a frozen filter's alignment (the Init Event of Theorem B.1 and Theorem 3.2's proof, Karp thesis
    App. B.2): for ``w^(0) ~ N(0, sigma_0^2 I_d)``, ``P[|<w^(0)/|w^(0)|, w_*>| / sigma >= x]``. The squared
    alignment ``<w0_hat, w_*>^2`` is Beta(1/2, (d-1)/2) (a chi^2_1 over a chi^2_d), so the probability is the
    regularized incomplete beta function ``I_{1 - x^2 sigma^2}((d-1)/2, 1/2)`` (mpmath, 80 digits; 0 where the
    bound ``t^{-1/2} (1 - t)^b / (b B(1/2, b))``, ``t = x^2 sigma^2``, ``b = (d-1)/2``, is below 1e-325);
    ``sigma = log k / sqrt k``.

    Parameters
    ----------
    x : float
        The alignment level, ``>= 0``.
    k : int
        The number of noise rows, ``k >= 2`` (through sigma).
    d : int
        The dimension, ``2 <= d <=`` :data:`MAX_ALIGNMENT_D`.

    Returns
    -------
    float
        The tail probability, in ``[0, 1]``.

    Raises
    ------
    ValueError
        For invalid arguments (a :class:`theory._checks.LimitError` above the limit on d).

    Examples
    --------
    For large d the alignment over sigma is close to |N(0, 1)| when ``d = 1/sigma^2``:

    >>> from theory.local_signal import init_alignment_tail, normal_sf
    >>> round(init_alignment_tail(2.6083, 1000, 21), 6)
    0.005638
    >>> round(init_alignment_tail(2.0, 10**12, 1309803451) / (2 * normal_sf(2.0)), 6)
    1.0
    """
    xv = _finite(x, "x")
    if not xv >= 0:
        raise InputError(f"x (an alignment level) must be >= 0, got {x!r:.40}", param="x")
    k = _float_k(k)
    d = check_d(d)
    if d < 2:
        raise InputError(f"d must be >= 2 (w0_hat = +-w_* when d = 1), got d = {d}", param="d")
    if d > MAX_ALIGNMENT_D:
        raise LimitError(
            f"d = {format_count(d)} is above the limit d <= 10^30 of init_alignment_tail",
            param="d",
            value=d,
            limit=MAX_ALIGNMENT_D,
        )
    s = noise_sigma(k)
    with mpmath.workdps(80):  # t >= 1e-60 resolves against 1 for every d <= 10^30
        t = (mpmath.mpf(xv) * mpmath.mpf(s)) ** 2
        if t >= 1:
            return 0.0
        half_b = mpmath.mpf(d - 1) / 2
        # P[Beta(1/2, b) >= t] <= t^(-1/2) (1 - t)^b / (b B(1/2, b)): below the float range, the answer is 0
        log_bound = -mpmath.log(t) / 2 + half_b * mpmath.log1p(-t) - mpmath.log(half_b * mpmath.beta(0.5, half_b))
        if t > 0 and log_bound < -750:
            return 0.0
        # the lower tail of Beta((d-1)/2, 1/2) at 1 - t: no cancellation (1 - I_t(1/2, b) loses the small tails)
        return float(mpmath.betainc(half_b, mpmath.mpf(1) / 2, 0, 1 - t, regularized=True))


def thm32_aligned_filter_probability(k: int, m: int, d: int | None = None, level: float = 0.1) -> float:
    """The probability over the init of m frozen filters that one of them is aligned beyond :func:`cntk_critical_
    alignment`, ``1 - (1 - init_alignment_tail(D*, k, d))^m`` (the filters are independent): a lower bound, in the
    Gaussian limit, on the probability that the CNTK's infimum error is below ``level`` (one such filter suffices).
    Theorem 3.2 (Karp thesis, Sec. 3.5 and App. B.2.2) needs it at most 0.001 for its "w.p. at least 0.999".

    Parameters
    ----------
    k : int
        The number of noise rows, ``k >= 2``.
    m : int
        The number of filters, ``1 <= m <= 10^6``.
    d : int, optional
        The dimension (default ``round(1/sigma^2) = round(k / log^2 k)``, Theorem 3.2's ``d = 1/sigma^2``).
    level : float
        The error level, in ``(0, 1/2)``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For invalid arguments.

    Examples
    --------
    At the k = 1000 of Figure 3.3 (d = 21) it is about 0.0056 m, not at most 0.001:

    >>> from theory.local_signal import thm32_aligned_filter_probability
    >>> [round(thm32_aligned_filter_probability(1000, m), 4) for m in (1, 2, 3, 4)]
    [0.0056, 0.0112, 0.0168, 0.0224]
    """
    k = _float_k(k)
    if not _is_int(m) or not 1 <= int(m) <= 10**6:
        raise InputError(f"m (the number of filters) must be an integer in [1, 10^6], got {m!r:.40}", param="m")
    dd = max(2, round(1 / noise_sigma(k) ** 2)) if d is None else d
    tail = init_alignment_tail(cntk_critical_alignment(k, level), k, dd)
    return float(-mpmath.expm1(int(m) * mpmath.log1p(-mpmath.mpf(tail))))


def thm32_needed_log10_k(m: int, confidence: float = 0.999, level: float = 0.1) -> float:
    """``log10`` of the smallest k from which :func:`thm32_aligned_filter_probability` (d = round(k/log^2 k)) stays at
    most ``1 - confidence``: a necessary condition, in the Gaussian limit, for Theorem 3.2's "w.p. at least 0.999
    over the random initialization" (Karp thesis, Sec. 3.5; App. B.2.2 states it for all k >= some k_1, an asymptotic
    statement). Asymptotically the probability is about ``m / (z^2 log^2 k)`` (``z = Phi^{-1}(1 - level)``): it
    decays only like ``1/log^2 k``. Found on a grid of ``log10 k`` in steps of 0.5 from 3 to 32 (the last grid point
    still above, then 40 bisection steps); the probability is not monotone below ``k = 10^5`` (the beta law of a small
    d), so the grid is scanned from the top down: the answer is the last crossing.

    Parameters
    ----------
    m : int
        The number of filters, ``1 <= m <= 6``.
    confidence : float
        In ``(0, 1)``.
    level : float
        The error level, in ``(0, 1/2)``.

    Returns
    -------
    float
        ``log10 k`` (``3.0`` when the probability is already at most ``1 - confidence`` from k = 1000 on).

    Raises
    ------
    ValueError
        For invalid arguments, or no crossing below ``k = 10^32``.

    Examples
    --------
    >>> from theory.local_signal import thm32_needed_log10_k
    >>> round(thm32_needed_log10_k(1), 2)
    10.72
    """
    if not _is_int(m) or not 1 <= int(m) <= 6:
        raise InputError(f"m (the number of filters) must be an integer in [1, 6], got {m!r:.40}", param="m")
    conf = _finite(confidence, "confidence")
    if not 0 < conf < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence!r:.40}", param="confidence")
    lv = _finite(level, "level")
    if not 0 < lv < 0.5:
        raise InputError(f"level (an error level) must lie in (0, 1/2), got {level!r:.40}", param="level")
    target = 1 - conf

    def excess(log10_k: float) -> float:
        return thm32_aligned_filter_probability(round(10**log10_k), int(m), level=lv) - target

    grid = [3 + 0.5 * i for i in range(59)]  # 3 .. 32
    if excess(grid[-1]) > 0:
        raise InputError(f"the probability stays above {target:g} up to k = 10^32 for m = {m}", param="m")
    above = next((g for g in reversed(grid) if excess(g) > 0), None)
    if above is None:
        return 3.0
    lo, hi = above, above + 0.5
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return hi


# --------------------------------------------------------------------------------------------------------------
# Lemma B.4: the minibatch gradients (App. B.1.3)

MAX_B4_K = 10**6
"""Largest k of :func:`lemma_b4_batch_size` (the batch grows as ``8 d k^5``; 10^6 gives about 10^32 d)."""


MAX_B4_D = 10**9
"""Largest dimension d of the Lemma B.4 functions (the batch grows linearly in d)."""


def _b4_args(k: object, d: object) -> tuple[int, int]:
    k = check_k(k)
    d = check_d(d)
    _check_limits((("k", k, MAX_B4_K), ("d", d, MAX_B4_D)), "the Lemma B.4 batch size")
    return k, d


@fill_doc(_DOC)
def lemma_b4_tolerance(k: int) -> Fraction:
    """The tolerance of both bounds of Lemma B.4 (Karp thesis, App. B.1.3, p. 83) under the choices of this toolkit:
    ``|g_b_hat - grad_b| <= 1/k`` as printed, and ``||g_w_hat - grad_w|| <= delta/(eta poly(k)) = 1/k`` with
    ``eta/delta = k`` (Remark B.1: ``eta/delta = Omega(k)``, constant 1) and ``poly(k) = 1`` (the proof leaves it
    unstated; 1 is the largest tolerance its form allows, so the smallest batch).

    Parameters
    ----------
    {{k}}

    Returns
    -------
    Fraction
        ``1/k``.

    Examples
    --------
    >>> from theory.local_signal import lemma_b4_tolerance
    >>> lemma_b4_tolerance(4)
    Fraction(1, 4)
    """
    return Fraction(1, check_k(k))


@fill_doc(_DOC)
def lemma_b4_failure_probability(k: int) -> sympy.Expr:
    """Lemma B.4's failure probability ``e^{-Omega(k)}`` with the constant of ``Omega`` taken as 1: ``exp(-k)``
    (exact sympy expression).

    {{k_expr}}

    Examples
    --------
    >>> from theory.local_signal import lemma_b4_failure_probability
    >>> lemma_b4_failure_probability(4)
    exp(-4)
    """
    return sympy.exp(-sympy.Integer(check_k(k)))


@fill_doc(_DOC)
def lemma_b4_hoeffding_bound(k: int, d: int, n: int) -> sympy.Expr:
    """The failure probability the proof of Lemma B.4 (App. B.1.3, p. 83) gives a batch of ``n`` through its two
    Hoeffding steps, at the tolerance ``t = 1/k`` of :func:`lemma_b4_tolerance`, with the ranges it uses:

    * bias: ``|grad_b l| <= k + 1`` ("poly(k)" in the proof: ``|sigma| < 1`` and each of the k + 1 rows adds
      ``1{z > -b} - 1{z < b}`` in {-1, 0, 1}), so ``P[|mean - E| >= t] <= 2 exp(-n t^2 / (2 (k+1)^2))``;
    * weights, coordinate j, on the proof's event ``E_j`` (``|X_ij| <= 1`` for every noise row): ``|g_j| <=
      sum_i |X_ij| (1{..} + 1{..}) <= 2 (k + 1)``, so with ``t_j = t / sqrt(d)`` (the proof's
      ``delta/(eta sqrt(d poly(k)))``) and a union bound over the d coordinates,
      ``2 d exp(-n t^2 / (8 d (k+1)^2))``.

    The sum ``2 exp(-n/(2 k^2 (k+1)^2)) + 2 d exp(-n/(8 d k^2 (k+1)^2))``. The proof's truncation term
    ``P[not E_j over the batch]`` is left out (:func:`lemma_b4_truncation_probability`).

    Parameters
    ----------
    {{k}}
    d : int
        The dimension, >= 1.
    n : int
        The batch size, >= 1.

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.local_signal import lemma_b4_batch_size, lemma_b4_hoeffding_bound
    >>> lemma_b4_hoeffding_bound(2, 1, 72)
    2*exp(-1) + 2*exp(-1/4)
    >>> n = lemma_b4_batch_size(4, 2)
    >>> bool(lemma_b4_hoeffding_bound(4, 2, n) <= sympy.exp(-4))
    True
    """
    k, d = _b4_args(k, d)
    n = check_batch(n, "n")
    kk = sympy.Integer(k) ** 2 * (k + 1) ** 2
    return 2 * sympy.exp(-sympy.Rational(n) / (2 * kk)) + 2 * d * sympy.exp(-sympy.Rational(n) / (8 * d * kk))


def lemma_b4_batch_size(k: int, d: int) -> int:
    """The batch size of Lemma B.4 (Karp thesis, App. B.1.3, p. 83, "n = poly(k)") made explicit from its proof's
    own constants: the smallest n at which each Hoeffding term of :func:`lemma_b4_hoeffding_bound` is at most
    ``e^{-k}/2`` (so their sum is at most the failure probability ``e^{-k}`` of
    :func:`lemma_b4_failure_probability`):

    ``n = max(ceil(2 k^2 (k+1)^2 (k + ln 4)), ceil(8 d k^2 (k+1)^2 (k + ln(4 d))))
        = ceil(8 d k^2 (k+1)^2 (k + ln(4 d)))``

    (the weight term always needs the larger batch). At the thesis's ``k = 1000, d = 10`` this is about
    ``8.0e16``; at ``k = 4``: 38 909 (d = 2) and 246 045 (d = 10).

    Parameters
    ----------
    k : int
        The number of noise rows, 2 <= k <= :data:`MAX_B4_K`.
    d : int
        The dimension, 1 <= d <= :data:`MAX_B4_D`.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For invalid k or d.

    Examples
    --------
    >>> from theory.local_signal import lemma_b4_batch_size
    >>> lemma_b4_batch_size(4, 2), lemma_b4_batch_size(4, 10)
    (38909, 246045)
    >>> f"{lemma_b4_batch_size(1000, 10):.3e}"
    '8.046e+16'
    """
    k, d = _b4_args(k, d)
    kk = sympy.Integer(k) ** 2 * (k + 1) ** 2
    # the weight term's n_w = 8 d kk (k + ln 4d) >= the bias term's 2 kk (k + ln 4) for every d >= 1
    return int(sympy.ceiling(8 * d * kk * (k + sympy.log(4 * d))))


def lemma_b4_truncation_probability(k: int) -> float:
    """The probability that one sample falls outside the event ``E_j`` of the proof of Lemma B.4 (App. B.1.3):
    some noise row has ``|X_ij| > 1`` in coordinate j, ``1 - (1 - 2 Phi^c(1/sigma))^k`` with ``sigma = log k /
    sqrt k`` (Sec. 3.3). The proof calls it ``e^{-Omega~(k)}`` (it is about ``2k exp(-k/(2 log^2 k))``); over a
    batch of n samples the proof's ``P[not E_hat_j] = 1 - (1 - p)^n``.

    Parameters
    ----------
    k : int
        The number of noise rows, 2 <= k <= :data:`MAX_FLOAT_K`.

    Returns
    -------
    float

    Examples
    --------
    At ``k = 4`` (sigma = 0.693) about half of the samples leave ``E_j``; at ``k = 1000`` one in 213:

    >>> from theory.local_signal import lemma_b4_truncation_probability
    >>> round(lemma_b4_truncation_probability(4), 4), round(lemma_b4_truncation_probability(1000), 5)
    (0.4758, 0.00469)
    """
    k = _float_k(k)
    with mpmath.workdps(40):
        p = 2 * _sf_mp(1 / mpmath.mpf(noise_sigma(k)))
        return float(-mpmath.expm1(k * mpmath.log1p(-p)))
