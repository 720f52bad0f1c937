"""Input validation shared by the exact-theory modules.

Every check raises :class:`ValueError` whose message names the hypothesis of the source theorem that
the input violates, so a researcher sees *why* a value is refused, not only that it is. The errors are
subclasses of ValueError that also carry the offending parameter (:class:`InputError`) and, for sizes,
the limit that was exceeded (:class:`LimitError`), so a front end can name the option the user typed.

Three families of checks live here:

* integers and moduli (:func:`check_positive_int`, :func:`check_odd_modulus`);
* numbers from callers (:func:`as_number`): ints, Fractions, floats, sympy numbers and expressions, or
  strings parsed by :class:`fractions.Fraction` (never by ``sympify``, which evaluates Python code);
* sizes checked before any work (:func:`check_cost`, :func:`log10_factorial`, :func:`format_count`): the
  amount of exact (sympy) work, or the number of digits of an exact answer, against a named limit with a
  hint on what to use instead.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Iterable, Sized
from fractions import Fraction
from typing import Any

import sympy

__all__ = [
    "MAX_DIGITS",
    "MAX_EXACT_ENTRIES",
    "MAX_FACTORIAL_N",
    "InputError",
    "LimitError",
    "as_fraction",
    "as_list",
    "as_number",
    "check_bool",
    "check_cost",
    "check_entries",
    "check_odd_modulus",
    "check_positive_int",
    "check_sequence",
    "format_count",
    "is_symbolic",
    "log10_binomial",
    "log10_factorial",
]

MAX_DIGITS = 4000
"""Largest number of decimal digits of an exact closed-form value (Python refuses to print integers of
more than 4300 digits, ``sys.get_int_max_str_digits``)."""

MAX_EXACT_ENTRIES = 200_000
"""Largest number of exact sympy entries one call may build (about 2-3 s of sympy work)."""

FractionLike = float | str | numbers.Rational
"""The values :class:`fractions.Fraction` reads exactly, for annotations: int, float, numeric str, Fraction and
sympy Rational (a registered :class:`numbers.Rational`)."""


class InputError(ValueError):
    """A :class:`ValueError` that names the offending parameter in ``param`` (None when several are involved).

    Parameters
    ----------
    message : str
        The error message (the violated hypothesis and the value).
    param : str or None, optional
        The offending parameter, e.g. ``"p"``; None when several are involved.

    Examples
    --------
    >>> from theory._checks import InputError, check_odd_modulus
    >>> try:
    ...     check_odd_modulus(8)
    ... except ValueError as e:
    ...     print(type(e).__name__, e.param)
    InputError p
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class LimitError(InputError):
    """A size parameter above a limit of this toolkit (the work or the memory it needs).

    Attributes
    ----------
    param : str
        The parameter whose value makes the work too large.
    value : object
        Its value.
    limit : object
        The limit that was exceeded (in the units named by the message).
    hint : str
        What to use instead.

    Examples
    --------
    >>> from theory._checks import LimitError, check_cost
    >>> try:
    ...     check_cost(300_000, 200_000, param="n", value=300_000, what="the matrix", hint="use a smaller n")
    ... except LimitError as e:
    ...     print(e.param, e.value, e.limit, e.hint)
    n 300000 200000 use a smaller n
    """

    def __init__(self, message: str, *, param: str, value: object, limit: object, hint: str = "") -> None:
        super().__init__(message, param=param)
        self.value = value
        self.limit = limit
        self.hint = hint


def is_symbolic(*values: object) -> bool:
    """Return True when any value is a non-numeric sympy expression (e.g. a Symbol).

    Parameters
    ----------
    *values : object
        The values to test (any types).

    Returns
    -------
    bool
        True iff some value is a sympy expression with free symbols.

    Examples
    --------
    >>> import sympy
    >>> from theory._checks import is_symbolic
    >>> is_symbolic(3, sympy.sqrt(2)), is_symbolic(sympy.Symbol("p"), 3)
    (False, True)
    """
    return any(isinstance(v, sympy.Basic) and not v.is_number for v in values)


def _as_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, sympy.Integer)):
        if isinstance(value, (float, sympy.Float)) and math.isfinite(float(value)) and float(value).is_integer():
            raise InputError(f"{name} must be an integer, got the float {value!r}; pass int({value!r})", param=name)
        raise InputError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}", param=name)
    return int(value)


def check_odd_modulus(p: object, *, source: str = "Shi Thm 4.9") -> int:
    """Validate the modulus of Z_p.

    The sources assume p > 2 prime; the proofs only use that p is odd (j and -j are distinct
    frequencies for j != 0), and the formulas were verified for odd composite p. Even p is outside
    the theory: frequency p/2 is self-conjugate and the single-neuron optimum is larger.

    Parameters
    ----------
    p : int
        The modulus (an ``int``, numpy or sympy integer; a float is refused even when integral).
    source : str, optional
        The theorem named in the error message.

    Returns
    -------
    int
        ``p`` as an ``int``.

    Raises
    ------
    InputError
        If ``p`` is not an odd integer ``>= 3``.

    Examples
    --------
    >>> from theory._checks import check_odd_modulus
    >>> check_odd_modulus(7)
    7
    >>> check_odd_modulus(8)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: p must be an odd integer >= 3 (Shi Thm 4.9 assumes p > 2 prime; the proof needs only
    p odd), got p = 8; for even p the frequency p/2 is its own conjugate and the closed form does not hold
    """
    p_int = _as_int(p, "p")
    if p_int < 3 or p_int % 2 == 0:
        raise InputError(
            f"p must be an odd integer >= 3 ({source} assumes p > 2 prime; the proof needs only p odd), "
            f"got p = {format_count(p_int)}"
            + (
                "; for even p the frequency p/2 is its own conjugate and the closed form does not hold"
                if p_int % 2 == 0 and p_int >= 2
                else ""
            ),
            param="p",
        )
    return p_int


def check_positive_int(value: object, name: str, *, minimum: int = 1, hypothesis: str = "") -> int:
    """Validate an integer parameter ``value >= minimum``.

    Parameters
    ----------
    value : int
        The value to check (``int``, numpy or sympy integer; bools and floats are refused).
    name : str
        The parameter's name, used in the message and as :attr:`InputError.param`.
    minimum : int, optional
        The smallest accepted value (default 1).
    hypothesis : str, optional
        Why the minimum holds, added to the message in parentheses.

    Returns
    -------
    int
        ``value`` as an ``int``.

    Raises
    ------
    InputError
        If ``value`` is not an integer or is below ``minimum``.

    Examples
    --------
    >>> from theory._checks import check_positive_int
    >>> check_positive_int(3, "k")
    3
    >>> check_positive_int(0, "k", hypothesis="the network has k inputs")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: k must be an integer >= 1 (the network has k inputs), got k = 0
    >>> check_positive_int(2.0, "k")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: k must be an integer, got the float 2.0; pass int(2.0)
    """
    v, minimum = _as_int(value, name), _as_int(minimum, "minimum")
    if v < minimum:
        extra = f" ({hypothesis})" if hypothesis else ""
        raise InputError(
            f"{name} must be an integer >= {format_count(minimum)}{extra}, got {name} = {format_count(v)}", param=name
        )
    return v


def check_bool(value: object, name: str) -> bool:
    """A flag: ``True`` or ``False`` (a Python or numpy bool), returned as a Python bool; anything else, even a
    truthy number or string, is refused, so that a mistyped flag is named instead of being taken (and echoed into a
    result) as ``True``.

    Parameters
    ----------
    value : bool
        The flag (``bool`` or ``numpy.bool_``).
    name : str
        The parameter's name, used in the message and as :attr:`InputError.param`.

    Returns
    -------
    bool
        ``value`` as a Python bool.

    Raises
    ------
    InputError
        If ``value`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from theory._checks import check_bool
    >>> check_bool(True, "sdp"), check_bool(np.bool_(False), "sdp")
    (True, False)
    >>> check_bool("3", "sdp")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: sdp must be True or False, got '3'
    """
    numpy_bool = type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")  # numpy 2, 1
    if not (isinstance(value, bool) or numpy_bool):  # theory/ does not import numpy
        raise InputError(f"{name} must be True or False, got {value!r:.80}", param=name)
    return bool(value)


# --------------------------------------------------------------------------------------------
# Numbers from callers: never evaluate a string
# --------------------------------------------------------------------------------------------

_NUMERIC_STRING = re.compile(
    r"^\s*[+-]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?(?:\s*/\s*(?P<den>\d+))?\s*$"
)


def _string_digits(match: re.Match[str]) -> tuple[int, int]:
    """The exponent of a numeric string and a bound on the digits of its exact numerator and denominator, read from
    the text alone (``Fraction('1e999999999')`` would form 10^999999999 before anything could refuse it)."""
    mantissa = (match["int"] + (match["frac"] or "")).lstrip("0")
    exponent = int(match["exp"] or "0")  # at most 200 characters: the string's length was bounded first
    shift = exponent - len(match["frac"] or "")
    numerator = len(mantissa) + max(shift, 0)
    denominator = len(match["den"] or "") + max(-shift, 0)
    return exponent, max(numerator, denominator) if mantissa else 1


#: Longest numeric string read as a number (its digits and exponent are bounded from the text before any parsing).
MAX_NUMERIC_STRING = 200


def _parse_numeric_string(text: str, name: str) -> sympy.Rational:
    if len(text) > MAX_NUMERIC_STRING:
        raise LimitError(
            f"{name} = {text[:40]!r}... is too long: {format_count(len(text))} characters, above the limit "
            f"{MAX_NUMERIC_STRING} of a numeric string",
            param=name,
            value=text[:80],
            limit=MAX_NUMERIC_STRING,
            hint="pass an int, a Fraction or a shorter string",
        )
    match = _NUMERIC_STRING.match(text)
    if match is None or not (match["int"] or match["frac"]):
        raise InputError(
            f"{name} must be a number (an int, a Fraction, a float, a sympy number or a numeric string such as "
            f"'3', '-1/2' or '0.25'), got the string {text[:80]!r}",
            param=name,
        )
    exponent, digits = _string_digits(match)
    if match["den"] is not None and not match["den"].strip("0"):
        raise InputError(f"{name} must be a finite number, got {text!r} (division by zero)", param=name)
    if not (match["int"] + (match["frac"] or "")).strip("0"):
        return sympy.Integer(0)  # 0e999999999 is 0: no 10^999999999 is formed
    if digits > MAX_DIGITS:
        raise LimitError(
            f"{name} = {text[:80]!r} is too large: with the exponent {format_count(exponent)} its exact value has "
            f"about {format_count(digits)} digits, above the limit {MAX_DIGITS} (MAX_DIGITS); pass a number whose "
            f"exact numerator and denominator have at most {MAX_DIGITS} digits",
            param=name,
            value=text,
            limit=MAX_DIGITS,
            hint=f"pass a number of at most {MAX_DIGITS} digits",
        )
    try:
        q = Fraction(text.replace(" ", ""))
    except ZeroDivisionError:
        raise InputError(f"{name} must be a finite number, got {text!r} (division by zero)", param=name) from None
    except ValueError:
        raise InputError(f"{name} must be a number, got the string {text!r}", param=name) from None
    return sympy.Rational(q.numerator, q.denominator)


def as_number(value: object, name: str, *, symbolic: bool = True) -> sympy.Expr:
    """A caller's number as a sympy expression, without ever evaluating code.

    Accepted: ``int``, :class:`fractions.Fraction`, finite ``float`` (kept as a sympy Float), numpy scalars,
    sympy numbers and, when ``symbolic`` is True, sympy expressions with free symbols (``pi/3``,
    ``Symbol('t')``). A ``str`` is parsed as a plain decimal or fraction (``'-1/2'``, ``'0.25'``, ``'1e-3'``)
    by :class:`fractions.Fraction` (``sympify`` would run the string as Python code).

    Parameters
    ----------
    value : int, Fraction, float, str, numpy scalar or sympy.Expr
        The caller's number.
    name : str
        The parameter's name, used in the message and as :attr:`InputError.param`.
    symbolic : bool, optional
        Whether expressions with free symbols are accepted (default True).

    Returns
    -------
    sympy.Expr
        An exact ``Rational``/``Integer`` for ints, Fractions and strings, a ``Float`` for floats, the
        expression itself for sympy input.

    Raises
    ------
    InputError
        For anything else, and for NaN, infinities and ``zoo``.

    Examples
    --------
    >>> import sympy
    >>> from fractions import Fraction
    >>> from theory._checks import as_number
    >>> as_number("-1/2", "b"), as_number(Fraction(3, 4), "b"), as_number(sympy.pi / 3, "b")
    (-1/2, 3/4, pi/3)
    >>> as_number('__import__("os")', "b")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: b must be a number (an int, a Fraction, a float, a sympy number or a numeric string
    such as '3', '-1/2' or '0.25'), got the string '__import__("os")'
    >>> as_number(float("nan"), "b")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: b must be finite, got nan
    """
    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, got the bool {value!r}", param=name)
    if isinstance(value, str):
        return _parse_numeric_string(value, name)
    if isinstance(value, sympy.Basic):
        if not isinstance(value, sympy.Expr):
            raise InputError(f"{name} must be a number or a sympy expression, got {value!r}", param=name)
        if value.is_number:
            if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or value.is_finite is False:
                raise InputError(f"{name} must be finite, got {value}", param=name)
            return value
        if not symbolic:
            raise InputError(f"{name} must be a number, got the symbolic expression {value}", param=name)
        return value
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, numbers.Integral):
        return sympy.Integer(int(value))
    if isinstance(value, numbers.Real):
        f = float(value)
        if not math.isfinite(f):
            raise InputError(f"{name} must be finite, got {value!r}", param=name)
        return sympy.Float(f)
    if hasattr(value, "item") and hasattr(value, "dtype") and getattr(value, "shape", None) == ():
        return as_number(value.item(), name, symbolic=symbolic)  # numpy scalar (without importing numpy)
    raise InputError(
        f"{name} must be a number (int, Fraction, float or sympy number), got {value!r:.80} of type "
        f"{type(value).__name__}",
        param=name,
    )


def as_fraction(value: object, name: str, *, floats: str = "binary") -> Fraction:
    """A caller's rational number as an exact :class:`fractions.Fraction`, refused before ``Fraction`` sees it when it
    is not one (``Fraction(nan)`` raises a bare error, ``Fraction('1e999999999')`` never returns).

    Accepted: ``int``, :class:`fractions.Fraction`, finite ``float`` (its exact binary value, or with
    ``floats="decimal"`` the decimal it prints as: ``0.1`` -> 1/10), numpy scalars, sympy Rationals and Floats (read
    like floats) and numeric strings as in :func:`as_number` (at most :data:`MAX_DIGITS` digits).

    Parameters
    ----------
    value : int, Fraction, float, str, numpy scalar or sympy number
        The caller's number.
    name : str
        The parameter's name, used in the message and as :attr:`InputError.param`.
    floats : {"binary", "decimal"}, optional
        How a float is read: its exact binary value (default) or its shortest decimal string.

    Returns
    -------
    Fraction
        The value, exactly.

    Raises
    ------
    InputError
        NaN, infinities, irrational or symbolic sympy expressions, bools and other types.
    LimitError
        A numeric string with more than :data:`MAX_DIGITS` digits (e.g. ``'1e5000'``).

    Examples
    --------
    >>> from theory._checks import as_fraction
    >>> print(as_fraction("-1/2", "b"), as_fraction(0.1, "b", floats="decimal"), as_fraction(0.5, "b"))
    -1/2 1/10 1/2
    >>> as_fraction(float("nan"), "gamma")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: gamma must be finite, got nan
    """
    if floats not in ("binary", "decimal"):
        raise InputError(f"floats must be 'binary' or 'decimal', got {floats!r:.80}", param="floats")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, float) or (isinstance(value, numbers.Real) and not isinstance(value, sympy.Basic)):
        if isinstance(value, bool):
            raise InputError(f"{name} must be a number, got the bool {value!r}", param=name)
        f = float(value)
        if not math.isfinite(f):
            raise InputError(f"{name} must be finite, got {value!r}", param=name)
        return Fraction(repr(f)) if floats == "decimal" else Fraction(f)
    x = as_number(value, name, symbolic=False)  # strings (bounded), sympy numbers, numpy scalars; NaN and oo refused
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sympy.Float):
        sign, man, exp, bits = x._mpf_  # the exact binary value (-1)^sign man 2^exp
        if (abs(exp) + bits) * math.log10(2) > MAX_DIGITS:
            raise LimitError(
                f"{name} = {x:.3g} is too large: its exact binary value has more than {MAX_DIGITS} digits (MAX_DIGITS)",
                param=name,
                value=x,
                limit=MAX_DIGITS,
                hint=f"pass a number of at most {MAX_DIGITS} digits",
            )
        if floats == "decimal":
            return Fraction(str(x))  # the digits sympy prints (a bounded exponent: checked above)
        q = Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
        return -q if sign else q
    raise InputError(f"{name} must be a rational number, got {x}", param=name)


# --------------------------------------------------------------------------------------------
# Sizes checked before any work
# --------------------------------------------------------------------------------------------


MAX_FACTORIAL_N = 10**300
"""Largest n of :func:`log10_factorial` (log10(n!) ~ n log10(n) stays in the float range up to n ~ 10^305)."""


def log10_factorial(n: int) -> float:
    """log10(n!) in O(1) (``lgamma``), to size an exact answer before computing it.

    Parameters
    ----------
    n : int
        An integer, ``n <= 10^300`` (:data:`MAX_FACTORIAL_N`; values ``<= 1`` give 0).

    Returns
    -------
    float
        The decimal logarithm of ``n!`` (float accuracy).

    Raises
    ------
    InputError
        ``n`` is not an integer (a float, NaN, a string).
    LimitError
        ``n > 10^300``: log10(n!) is beyond the float range (callers refuse such sizes first).

    Examples
    --------
    >>> from theory._checks import log10_factorial
    >>> round(log10_factorial(10), 6), len(str(3628800))  # 10! = 3628800 has 7 digits
    (6.559763, 7)
    >>> log10_factorial(10**400)
    Traceback (most recent call last):
        ...
    theory._checks.LimitError: n = ~10^400 is too large: log10(n!) ~ n log10(n) is beyond the float range, above the
    limit n <= 10^300; size the work from log10(n) instead
    """
    n = _as_int(n, "n")
    if n <= 1:
        return 0.0
    if n > MAX_FACTORIAL_N:
        raise LimitError(
            f"n = {format_count(n)} is too large: log10(n!) ~ n log10(n) is beyond the float range, above the limit "
            "n <= 10^300; size the work from log10(n) instead",
            param="n",
            value=n,
            limit=MAX_FACTORIAL_N,
            hint="size the work from log10(n) instead",
        )
    return math.lgamma(n + 1) / math.log(10)


#: Below this many factors, :func:`log10_binomial` sums ``log10(n - i)`` term by term (exact to float accuracy).
_BINOMIAL_DIRECT_TERMS = 10_000


def log10_binomial(n: int, k: int) -> float:
    """log10 C(n, k) without forming C(n, k), for any size of ``n``, to size an exact answer before computing it.

    With ``j = min(k, n - k)``: for ``j <= 10^4`` the sum ``sum_{i<j} log10(n - i) - log10(j!)``; beyond, Stirling's
    formula in a form without cancellation,
    ``ln C(n, j) = j ln(n/j) - (n - j) log1p(-j/n) + (1/2) ln(n / (2 pi j (n - j))) + (1/n - 1/j - 1/(n-j)) / 12``
    ``+ O(1/j^3)`` (a remainder below 10^-12 there, so float accuracy; the differences of ``lgamma`` lose every digit
    once ``n >> j``).

    Parameters
    ----------
    n : int
        A non-negative integer, of any size.
    k : int
        An integer with ``0 <= k <= n``.

    Returns
    -------
    float
        The decimal logarithm of ``C(n, k)``; ``inf`` where ``min(k, n - k) > 10^300`` (then ``C(n, k) >= 2^j`` is
        beyond every size check).

    Raises
    ------
    InputError
        ``n`` or ``k`` is not an integer, or ``k`` lies outside ``0..n``.

    Examples
    --------
    >>> from theory._checks import log10_binomial
    >>> round(10 ** log10_binomial(10, 3))  # C(10, 3) = 120
    120
    >>> round(log10_binomial(10**100, 2), 6)  # C(10^100, 2) = 10^100 (10^100 - 1) / 2
    199.69897
    >>> log10_binomial(5, 7)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: k must satisfy 0 <= k <= n, got k = 7 with n = 5
    """
    n, k = _as_int(n, "n"), _as_int(k, "k")
    if not 0 <= k <= n:
        raise InputError(f"k must satisfy 0 <= k <= n, got k = {format_count(k)} with n = {format_count(n)}", param="k")
    j = min(k, n - k)
    if j == 0:
        return 0.0
    if j <= _BINOMIAL_DIRECT_TERMS:
        return sum(math.log10(n - i) for i in range(j)) - log10_factorial(j)
    if j > MAX_FACTORIAL_N:
        return math.inf
    t = j / n  # in (0, 1/2]; (n - j) log1p(-t) = j (1 - t) log1p(-t) / t
    ln_c = j * (math.log(n) - math.log(j)) - j * (1 - t) * math.log1p(-t) / t
    ln_c += 0.5 * (math.log(n) - math.log(2 * math.pi) - math.log(j) - math.log(n - j))
    ln_c += (1 / n - 1 / j - 1 / (n - j)) / 12  # the 1/(12 m) terms of ln m! (error O(1/j^3))
    return ln_c / math.log(10)


def format_count(n: object) -> str:
    """An integer for a message: grouped digits up to 10^15, ``~10^X`` beyond (no huge int-to-str).

    Parameters
    ----------
    n : object
        An integer (bools are shown with ``str``), a float (3 significant digits) or anything else (``str``).

    Returns
    -------
    str
        The text to put in a message.

    Examples
    --------
    >>> from theory._checks import format_count
    >>> format_count(1234567), format_count(10**20), format_count(0.000123)
    ('1,234,567', '~10^20', '0.000123')
    """
    if isinstance(n, numbers.Integral) and not isinstance(n, bool):
        n = int(n)
        if abs(n) < 10**15:
            return f"{n:,}"
        return ("-" if n < 0 else "") + f"~10^{(abs(n).bit_length() - 1) * math.log10(2):.0f}"
    if isinstance(n, float):
        return f"{n:.3g}"
    return str(n)


def _power_text(x: float) -> str:
    """``10^x`` for a decimal logarithm x (an int is never converted to float: it may be above the float range)."""
    if isinstance(x, numbers.Integral):
        return f"10^{int(x)}" if abs(int(x)) < 10**15 else f"10^({format_count(int(x))})"
    return f"10^{float(x):.0f}" if math.isfinite(x) else "10^(10^300)"  # (an infinite limit is never exceeded)


def _distinct_texts(cost: float, limit: float, log10: bool) -> tuple[str, str]:
    """The cost and the limit as message texts, with as many digits as it takes for them to differ (a cost just
    above its limit would otherwise read ``~10^5, above the limit 10^5``).

    >>> _distinct_texts(5.0002, 5, True), _distinct_texts(100000.5, 100000, False)
    (('~10^5.0002', '10^5'), ('100000.5', '100,000'))
    """
    if log10 and not (isinstance(cost, numbers.Integral) or math.isfinite(cost)):
        return "beyond 10^(10^300)", _power_text(limit)
    pair = (cost, limit)
    # an int is never converted to float: it may be above the float range
    exact = [
        isinstance(x, numbers.Integral) or (not log10 and float(x).is_integer() and abs(float(x)) < 1e15) for x in pair
    ]
    texts = [(_power_text(x) if log10 else format_count(int(x) if e else float(x))) for x, e in zip(pair, exact)]
    try:
        refinable = not all(exact) and math.isfinite(float(limit)) and math.isfinite(float(cost))
    except OverflowError:  # an int or Fraction beyond the float range beside a float: the rounded texts differ
        refinable = False
    if refinable:
        for digits in range(0 if log10 else 3, 17):
            shown = [float(f"{float(x):.{digits}{'f' if log10 else 'g'}}") if not e else x for x, e in zip(pair, exact)]
            if shown[0] > shown[1]:
                break
        if digits > (0 if log10 else 3):
            texts = [
                t if e else (f"10^{float(x):.{digits}f}" if log10 else f"{float(x):.{digits}g}")
                for x, e, t in zip(pair, exact, texts)
            ]
    if texts[0] == texts[1]:  # two ints above 10^15 that round alike
        texts[0] = f"{texts[1]} + {format_count(int(cost) - int(limit))}"
    return ("~" if log10 else "") + texts[0], texts[1]


def check_cost(
    cost: float, limit: float, *, param: str, value: object, what: str, hint: str, log10: bool = False
) -> None:
    """Raise :class:`LimitError` when ``cost > limit``, before the work is done.

    Parameters
    ----------
    cost, limit : number
        The size of the work (e.g. number of exact entries) and its limit; with ``log10=True`` both are
        decimal logarithms (for sizes too large to form, such as the digits of ``k!``).
    param, value : str, object
        The parameter that makes the work large, and its value (named first in the message).
    what : str
        What the cost counts, e.g. ``"the construction has 2^(k-1) (n+2) exact entries"``.
    hint : str
        What to use instead (another function, the closed form, a smaller value).
    log10 : bool, optional
        Whether ``cost`` and ``limit`` are decimal logarithms (default False).

    Returns
    -------
    None
        When ``cost <= limit``.

    Raises
    ------
    LimitError
        When ``cost > limit``.

    Examples
    --------
    >>> from theory._checks import check_cost
    >>> check_cost(10, 100, param="n", value=10, what="the matrix", hint="")
    >>> check_cost(5000.3, 4000, param="k", value=2000, what="the number of digits of k!", hint="use a smaller k",
    ...            log10=True)
    Traceback (most recent call last):
        ...
    theory._checks.LimitError: k = 2,000 is too large: the number of digits of k! is ~10^5000, above the limit
    10^4000; use a smaller k
    """
    for name, x in (("cost", cost), ("limit", limit)):
        if isinstance(x, bool) or not isinstance(x, numbers.Real) or (isinstance(x, float) and math.isnan(x)):
            raise InputError(f"{name} must be a real number (not NaN), got {x!r:.80}", param=name)
    if cost <= limit:
        return
    shown, lim = _distinct_texts(cost, limit, log10)
    if not log10 and cost == value:
        message = f"{param} = {shown} is above the limit {param} <= {lim} of {what}"
        raise LimitError(message + (f"; {hint}" if hint else ""), param=param, value=value, limit=limit, hint=hint)
    raise _too_large(param, value, what, shown, lim, hint, limit)


def _too_large(param: str, value: object, what: str, shown: str, lim: str, hint: str, limit: object) -> LimitError:
    """The :class:`LimitError` of a work ``what`` of size ``shown`` above the limit ``lim`` (texts)."""
    message = f"{param} = {format_count(value)} is too large: {what} is {shown}, above the limit {lim}"
    return LimitError(message + (f"; {hint}" if hint else ""), param=param, value=value, limit=limit, hint=hint)


def check_entries(
    log10_count: float,
    count: Callable[[], int],
    *,
    param: str,
    value: object,
    what: str,
    hint: str,
    limit: int = MAX_EXACT_ENTRIES,
) -> None:
    """Raise :class:`LimitError` when a number of entries, known first by its decimal logarithm, is above
    ``limit``: compared and named exactly (``count()``) when below 10^15, by its order above (where it cannot be
    formed); the limit is always named exactly (``10^5`` would misstate 200,000).

    Parameters
    ----------
    log10_count : float
        log10 of the number of entries (``inf`` for one beyond the float range).
    count : callable
        The exact number of entries, called only when ``log10_count < 15``.
    param, value, what, hint : str, object, str, str
        As for :func:`check_cost`.
    limit : int, optional
        The largest number of entries (default :data:`MAX_EXACT_ENTRIES`).

    Returns
    -------
    None
        When the count is at most ``limit``.

    Raises
    ------
    LimitError
        When it is above.

    Examples
    --------
    >>> from theory._checks import check_entries
    >>> check_entries(math.log10(65536), lambda: 65536, param="k", value=7, what="the construction", hint="")
    >>> check_entries(math.log10(262144), lambda: 262144, param="k", value=8, what="the construction", hint="")
    Traceback (most recent call last):
        ...
    theory._checks.LimitError: k = 8 is too large: the construction is 262,144, above the limit 200,000
    >>> check_entries(600.2, lambda: 0, param="k", value=1000, what="the construction", hint="")
    Traceback (most recent call last):
        ...
    theory._checks.LimitError: k = 1,000 is too large: the construction is ~10^600, above the limit 200,000
    """
    if isinstance(log10_count, bool) or not isinstance(log10_count, numbers.Real) or log10_count != log10_count:
        raise InputError(f"log10_count must be a real number (not NaN), got {log10_count!r:.80}", param="log10_count")
    if log10_count < 15:
        check_cost(count(), limit, param=param, value=value, what=what, hint=hint)
        return
    # an int is never converted to float: it may be above the float range
    finite = isinstance(log10_count, numbers.Integral) or math.isfinite(log10_count)
    shown = "~" + _power_text(log10_count) if finite else "beyond 10^(10^300)"
    raise _too_large(param, value, what, shown, format_count(limit), hint, limit)


def as_list(value: object, name: str, *, items: str = "numbers") -> list[Any]:
    """``value`` as a list: any iterable but a string or bytes, which would be read character by character.

    Parameters
    ----------
    value : object
        The argument, e.g. the frequencies of a head.
    name : str
        The parameter's name, used in the message.
    items : str, optional
        What the items are, for the message (default ``"numbers"``).

    Returns
    -------
    list
        The items, in order (not checked: that is the caller's job).

    Raises
    ------
    InputError
        If ``value`` is a string, bytes or not iterable.

    Examples
    --------
    >>> from theory._checks import as_list
    >>> as_list(range(3), "freqs")
    [0, 1, 2]
    >>> as_list("13", "freqs", items="frequencies")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: freqs must be a sequence of frequencies, got '13'
    """
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name} must be a sequence of {items}, got {value!r:.80}", param=name)
    try:
        return list(value)  # type: ignore[call-overload]
    except TypeError:
        raise InputError(f"{name} must be a sequence of {items}, got {value!r:.80}", param=name) from None


def check_sequence(value: object, name: str, limit: int, *, what: str, hint: str) -> list[Any]:
    """``value`` as a list, after checking that it is a sequence (not a string) of at most ``limit`` items.

    The length is checked before the items are copied when ``value`` has one (a generator is copied first), so a
    huge sequence is refused at once with a :class:`LimitError` naming ``name``; the items themselves are the
    caller's to check.

    Parameters
    ----------
    value : object
        The argument, e.g. the weights ``w`` of a neuron.
    name : str
        The parameter's name, used in every message.
    limit : int
        The largest number of items.
    what, hint : str
        What the number of items counts, and what to use instead (as :func:`check_cost` takes them).

    Returns
    -------
    list
        The items, in order.

    Raises
    ------
    InputError
        If ``value`` is a string, bytes or not iterable.
    LimitError
        If it has more than ``limit`` items.

    Examples
    --------
    >>> from theory._checks import check_sequence
    >>> check_sequence((1, 2, 3), "w", 10, what="the number of weights", hint="")
    [1, 2, 3]
    >>> check_sequence("12", "w", 10, what="the number of weights", hint="")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: w must be a sequence of numbers, got '12'
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InputError(f"{name} must be a sequence of numbers, got {value!r:.80}", param=name)
    items = value if isinstance(value, Sized) else list(value)  # a generator has no length before it is copied
    check_cost(len(items), limit, param=name, value=len(items), what=what, hint=hint)
    return list(items)
