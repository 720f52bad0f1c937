"""Adaptive quadrature that refuses where scipy's QUADPACK only warns.

``scipy.integrate.quad`` returns a value with an ``IntegrationWarning`` when it gives up (the integral "is probably
divergent, or slowly convergent", the subdivision limit was reached, round-off was detected): that value is wrong,
not just inexact, and a warning is easy to miss. The float oracles of this package that integrate numerically
(:func:`numerics.polynet.flow_time_quad`, :func:`numerics.local_signal.soft_threshold_moments_quad`) call
:func:`converged_quad` instead, which raises :class:`theory._checks.InputError` naming the caller's parameter.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
from scipy import integrate

from numerics.limits import check_count, check_real
from theory._checks import InputError

__all__ = ["MAX_SUBDIVISIONS", "converged_quad"]

#: The most subdivisions QUADPACK may make (its work arrays grow with them).
MAX_SUBDIVISIONS = 10_000


def _limit(value: object, name: str) -> float:
    """An integration limit: a real number or an infinity, never NaN, a string or a bool."""
    if isinstance(value, (bool, str)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{name} must be a real number or an infinity, got {value!r:.60}", param=name)
    try:
        out = float(value)
    except OverflowError:
        raise InputError(f"{name} = {value!r:.60} is beyond the float range", param=name) from None
    if math.isnan(out):
        raise InputError(f"{name} must be a real number or an infinity, got nan", param=name)
    return out


def converged_quad(
    f: Callable[[float], float],
    a: float,
    b: float,
    *,
    epsrel: float,
    param: str,
    what: str,
    hint: str = "",
    limit: int = 200,
) -> float:
    """The integral of ``f`` from ``a`` to ``b`` by ``scipy.integrate.quad`` (``epsabs = 0``, relative ``epsrel``),
    or InputError when QUADPACK does not converge, the integrand fails (an ``ArithmeticError``) or the value is not
    finite.

    Parameters
    ----------
    f : callable
        The integrand, ``f(x) -> float``.
    a, b : float
        The limits (``numpy.inf`` allowed).
    epsrel : float
        The relative accuracy asked of QUADPACK.
    param : str
        The caller's parameter that the InputError names.
    what : str
        What is integrated, for the message (e.g. ``"the flow time at k = 3"``).
    hint : str, optional
        Appended to the message: where an exact value is found instead.
    limit : int, optional
        QUADPACK's subdivision limit (default 200).

    Returns
    -------
    float
        The integral.

    Examples
    --------
    >>> converged_quad(lambda v: v ** -2.0, 1.0, 4.0, epsrel=1e-13, param="v_to", what="the integral of v^-2")
    0.75
    >>> converged_quad(lambda v: 1.0 / v, 1e-300, 1.0, epsrel=1e-13, param="v_from", what="the integral of 1/v")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the integral of 1/v: the quadrature does not converge (The maximum number of subdivisions (200) has been achieved)
    """
    if not callable(f):
        raise InputError(f"f must be the integrand, a callable, got {f!r:.60}", param="f")
    for name, text in (("param", param), ("what", what), ("hint", hint)):
        if not isinstance(text, str):
            raise InputError(f"{name} must be a string, got {text!r:.60}", param=name)
    a, b = _limit(a, "a"), _limit(b, "b")
    epsrel = check_real(epsrel, "epsrel", positive=True)
    limit = check_count(limit, "limit", why="QUADPACK's subdivisions")
    if limit > MAX_SUBDIVISIONS:
        raise InputError(f"limit = {limit} subdivisions is above {MAX_SUBDIVISIONS:,}", param="limit")
    with warnings.catch_warnings():
        warnings.simplefilter("error", integrate.IntegrationWarning)
        try:
            val, _ = integrate.quad(f, a, b, epsabs=0.0, epsrel=epsrel, limit=limit)
        except ArithmeticError as exc:  # the integrand itself fails inside the range (1/0, an overflow)
            raise InputError(
                f"{what}: the integrand cannot be evaluated between {a} and {b} ({exc})", param=param
            ) from None
        except integrate.IntegrationWarning as exc:  # QUADPACK gave up: its value would be wrong, not just inexact
            first = " ".join(str(exc).split()).split(". ")[0].rstrip(".")  # QUADPACK's first sentence
            raise InputError(
                f"{what}: the quadrature does not converge ({first})" + (f"; {hint}" if hint else ""),
                param=param,
            ) from None
    if not math.isfinite(val):
        raise InputError(f"{what} overflows float64" + (f"; {hint}" if hint else ""), param=param)
    return float(val)
