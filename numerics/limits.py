"""Memory estimates checked before large allocations (shared by every numerics module).

A function that allocates an array whose size grows with its arguments calls :func:`check_allocation`
first: the estimate is compared with the memory available now (``MemAvailable`` of ``/proc/meminfo``,
else the free physical pages), and an allocation larger than :data:`MEMORY_FRACTION` of it is refused
with a :class:`theory._checks.LimitError` (a ValueError) that names the parameter, the estimate and a
hint, instead of a MemoryError, swapping or the out-of-memory killer.

The exact-side limits (sympy work, digits of exact values) live in :mod:`theory._checks`.
"""

from __future__ import annotations

import math
import numbers
import operator
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from fractions import Fraction

import numpy as np

from theory._checks import (
    MAX_DIGITS,
    InputError,
    LimitError,
    as_fraction,
    check_bool,
    check_cost,
    check_positive_int,
    format_count,
)
from theory._docstrings import fill_doc

__all__ = [
    "MAX_ADDRESSABLE_BYTES",
    "MAX_MC_SAMPLES",
    "MAX_MC_WORK",
    "MAX_WORK",
    "MEMORY_FRACTION",
    "STEP_COST",
    "array_bytes",
    "available_memory",
    "check_allocation",
    "check_bool",
    "check_callback",
    "check_count",
    "check_mc",
    "check_rational",
    "check_real",
    "check_real_array",
    "check_real_vector",
    "check_rng",
    "check_seed",
    "check_work",
    "format_bytes",
    "max_mc_work",
    "max_work",
    "rounding_atol",
    "work_limits_scaled",
]

MEMORY_FRACTION = 0.5
"""Largest share of the available memory one allocation may take (temporaries need the rest)."""

MAX_WORK = 10**10
"""Largest number of array entries one Monte Carlo or sampling call may draw or update (draws x entries per draw,
e.g. chains x tokens x states): about a minute of numpy; the largest runs of ``verify/`` stay below 2 x 10^9."""

MAX_MC_SAMPLES = 10**8
"""Largest Monte-Carlo sample count of one call (draws, prompts, trials): 25-250 times the largest the claims use."""

MAX_MC_WORK = 10**10
"""Largest Monte-Carlo work of one call, in float entries drawn or processed (samples x the entries of one sample;
each function states its count): a few minutes of numpy."""

STEP_COST = 1000
"""What one step of a Python loop counts for in a cost compared with :data:`MAX_WORK` (its overhead is that of
about a thousand array entries), so that a loop of many tiny steps is not mistaken for cheap work."""


_WORK_SCALE: ContextVar[int] = ContextVar("numerics_work_scale", default=1)
"""The factor of the innermost :func:`work_limits_scaled` block (1 outside any)."""


@contextmanager
def _scaled(factor: int) -> Iterator[int]:
    token = _WORK_SCALE.set(factor)
    try:
        yield factor
    finally:
        _WORK_SCALE.reset(token)


def work_limits_scaled(factor: int) -> AbstractContextManager[int]:
    """Within the block, the work limits :data:`MAX_WORK` and :data:`MAX_MC_WORK` are ``factor`` times larger.

    The work limits bound the time of one call (about a minute of numpy): right for an interactive call, too tight
    for a run a user asked for at a source's own setting (``tvk report --scale full`` runs each claim in such a block,
    :data:`verify.claims.base.FULL_SCALE_WORK_FACTOR`, with its plan printed first). Memory limits, sample-count
    limits and the exact-side limits of :mod:`theory._checks` are not scaled: they guard the machine, not the time.
    Blocks nest (the innermost factor counts) and are local to the thread or task (a ``ContextVar``).

    Parameters
    ----------
    factor : int
        A positive integer.

    Returns
    -------
    context manager
        Entering it yields ``factor``.

    Raises
    ------
    InputError
        When ``factor`` is not a positive integer (at the call, before any block).

    Examples
    --------
    >>> with work_limits_scaled(10):
    ...     max_work() == 10 * MAX_WORK
    True
    >>> max_work() == MAX_WORK
    True
    """
    return _scaled(check_positive_int(factor, "factor"))


def max_work() -> int:
    """:data:`MAX_WORK` times the factor of the enclosing :func:`work_limits_scaled` block (1 outside any).

    Returns
    -------
    int
        The limit in force now.

    Examples
    --------
    >>> max_work() == MAX_WORK
    True
    """
    return MAX_WORK * _WORK_SCALE.get()


def max_mc_work() -> int:
    """The Monte-Carlo work limit in force: :data:`MAX_MC_WORK`, scaled as :func:`max_work` scales :data:`MAX_WORK`.

    Returns
    -------
    int
        ``MAX_MC_WORK`` times the factor of the enclosing :func:`work_limits_scaled` block.

    Examples
    --------
    >>> with work_limits_scaled(3):
    ...     max_mc_work() == 3 * MAX_MC_WORK
    True
    """
    return MAX_MC_WORK * _WORK_SCALE.get()


def available_memory() -> int | None:
    """Bytes of memory available to new allocations now, or None when the platform does not say.

    Returns
    -------
    int or None
        ``MemAvailable`` of ``/proc/meminfo`` in bytes, else the free physical pages times the page
        size, else None.

    Examples
    --------
    >>> m = available_memory()
    >>> m is None or (isinstance(m, int) and m > 0)
    True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def format_bytes(n: float) -> str:
    """``1.5 GiB``-style size.

    Parameters
    ----------
    n : float
        A number of bytes (an int of any size, or a float).

    Returns
    -------
    str
        ``n`` in the largest binary unit (KiB, MiB, GiB, TiB) it reaches, one decimal; plain bytes below 1 KiB;
        ``~2^X TiB`` beyond 2^60 TiB (an int too large for a float is never converted to one).

    Examples
    --------
    >>> format_bytes(1536), format_bytes(3 * 2**30), format_bytes(100)
    ('1.5 KiB', '3.0 GiB', '100 B')
    >>> format_bytes(10**400)
    '~2^1288 TiB'
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Real):
        raise InputError(f"n must be a number of bytes, got {n!r:.80}", param="n")
    if isinstance(n, numbers.Integral):
        n = int(n)
        if n >= 2**100:  # beyond 2^60 TiB: the exponent only (no float conversion of a huge int)
            return f"~2^{n.bit_length() - 1 - 40} TiB"
    elif not math.isfinite(float(n)):
        raise InputError(f"n must be a finite number of bytes, got {n!r}", param="n")
    elif n >= 2.0**100:
        return f"~2^{math.floor(math.log2(n)) - 40} TiB"
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def _as_size(value: object, name: str) -> int:
    """A dimension or a byte count as a non-negative int (integral floats accepted); InputError naming ``name``."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a non-negative integer, got the bool {value!r}", param=name)
    if isinstance(value, numbers.Integral):
        v = operator.index(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        v = int(float(value))
    else:
        raise InputError(f"{name} must be a non-negative integer, got {value!r:.80}", param=name)
    if v < 0:
        raise InputError(f"{name} must be a non-negative integer, got {name} = {format_count(v)}", param=name)
    return v


def check_count(value: object, name: str, *, minimum: int = 1, why: str = "", message: str = "") -> int:
    """A count (draws, chains, samples, a length) as an int ``>= minimum``; an integral float such as ``5.0`` is
    accepted, as the numerics modules always did. Sizes are checked separately, from their cost.

    Parameters
    ----------
    value : object
        The count.
    name : str
        The parameter's name (in the message and as :attr:`InputError.param`).
    minimum : int
        The smallest accepted count.
    why : str
        Why the minimum holds, added to the message in parentheses.
    message : str
        The whole message instead of the default one (a module's established wording).

    Returns
    -------
    int
        ``value`` as an int.

    Raises
    ------
    InputError
        A bool, a non-integer, a non-finite value or a count below ``minimum``.

    Examples
    --------
    >>> check_count(5, "n"), check_count(5.0, "n")
    (5, 5)
    >>> check_count(1, "n_draws", minimum=2, why="a mean and its standard error")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n_draws must be an integer >= 2 (a mean and its standard error), got 1
    """
    count: int | None = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, numbers.Integral):
        count = operator.index(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        count = int(float(value))
    if count is None or count < minimum:
        extra = f" ({why})" if why else ""
        shown = format_count(count) if count is not None else f"{value!r:.80}"
        raise InputError(message or f"{name} must be an integer >= {minimum}{extra}, got {shown}", param=name)
    return count


def check_rational(value: object, name: str) -> Fraction:
    """An exact rational (int, Fraction, finite float, numeric string, sympy Rational) as a Fraction of at most
    :data:`theory._checks.MAX_DIGITS` digits; a string's exponent is read before the number is expanded, so
    ``"1e999999999"`` is refused at once instead of building a billion-digit integer.

    Parameters
    ----------
    value : int, Fraction, float or str
        The number.
    name : str
        The parameter's name (in the message and as :attr:`InputError.param`).

    Returns
    -------
    Fraction
        ``value``, exactly.

    Raises
    ------
    InputError
        A bool, a non-number, NaN, an infinity or more than ``MAX_DIGITS`` digits.

    Examples
    --------
    >>> check_rational("-1/2", "b"), check_rational(0.25, "b")
    (Fraction(-1, 2), Fraction(1, 4))
    >>> check_rational("1e999999999", "b")
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: b = '1e999999999' is too large: with the exponent 999,999,999 its exact value has ...
    >>> check_rational(10**5000, "b")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: b must be a rational of at most 4000 digits
    """
    q = as_fraction(value, name)  # a string's exponent is bounded before it is expanded; NaN, oo, bools refused
    if max(abs(q.numerator), q.denominator).bit_length() > MAX_DIGITS * 10 // 3:
        raise InputError(f"{name} must be a rational of at most {MAX_DIGITS} digits", param=name)
    return q


def array_bytes(*shape: int, itemsize: int = 8) -> int:
    """Bytes of a dense array of this shape (float64 by default); exact Python integer, no overflow.

    Parameters
    ----------
    *shape : int
        The array's dimensions, each >= 0.
    itemsize : int
        Bytes per entry (8 for float64), >= 0.

    Returns
    -------
    int
        The product of the dimensions times ``itemsize``.

    Raises
    ------
    InputError
        A negative or non-integer dimension (``param="shape"``) or item size (``param="itemsize"``).

    Examples
    --------
    >>> array_bytes(1000, 1000)
    8000000
    >>> array_bytes(10, 10, itemsize=4)
    400
    >>> array_bytes(2**40, 2**40) == 2**83  # no int64 overflow
    True
    >>> array_bytes(-5, 3)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: shape must be a non-negative integer, got shape = -5
    """
    return math.prod(_as_size(s, "shape") for s in shape) * _as_size(itemsize, "itemsize")


MAX_ADDRESSABLE_BYTES = 2**63
"""Allocations of this size or more are refused even where the available memory is unknown (numpy indexes
with int64)."""


def check_allocation(nbytes: int, param: str, value: object, what: str, hint: str = "") -> None:
    """Refuse an allocation of ``nbytes`` larger than :data:`MEMORY_FRACTION` of the available memory.

    Parameters
    ----------
    nbytes : int
        Estimated size of the allocation (see :func:`array_bytes`).
    param, value : str, object
        The parameter that makes it large and its value (named first in the message).
    what : str
        What is allocated, e.g. ``"the weights (width, k+1, p) in float64"``.
    hint : str
        What to do instead.

    Returns
    -------
    None
        Returns quietly when the allocation fits (or when the platform does not report its memory).

    Raises
    ------
    LimitError
        A ValueError naming ``param``, the estimate and the available memory.

    Examples
    --------
    With the available memory fixed at 1 GiB (this machine's amount left out):

    >>> from unittest import mock
    >>> with mock.patch("numerics.limits.available_memory", return_value=2**30):
    ...     check_allocation(array_bytes(100, 100), param="n", value=100, what="the Gram matrix")
    ...     check_allocation(array_bytes(10**5, 10**5), param="n", value=10**5,
    ...                      what="the Gram matrix (n, n) in float64", hint="use a smaller n")
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 100,000 is too large: the Gram matrix (n, n) in float64 needs about 74.5 GiB,
    above 50% of the 1.0 GiB of memory available; use a smaller n
    """
    nbytes = _as_size(nbytes, "nbytes")  # a Python int of any size: compared in integers, never as a float
    avail = available_memory()
    if avail is None:
        if nbytes < MAX_ADDRESSABLE_BYTES:
            return
        where, budget = f"above the {format_bytes(MAX_ADDRESSABLE_BYTES)} numpy can address", MAX_ADDRESSABLE_BYTES
    else:
        budget = int(avail * MEMORY_FRACTION)
        if nbytes <= budget:
            return
        where = f"above {MEMORY_FRACTION:.0%} of the {format_bytes(avail)} of memory available"
    raise LimitError(
        f"{param} = {format_count(value)} is too large: {what} needs about {format_bytes(nbytes)}, {where}"
        + (f"; {hint}" if hint else ""),
        param=param,
        value=value,
        limit=budget,
        hint=hint,
    )


def check_work(cost: int, *, param: str, value: object, what: str, hint: str = "") -> None:
    """Refuse a Monte Carlo or sampling call whose ``cost`` (array entries drawn or updated) exceeds :data:`MAX_WORK`
    (times the factor of an enclosing :func:`work_limits_scaled` block),
    before it starts (:func:`theory._checks.check_cost` with this limit; ``cost`` is compared as an exact integer).

    Parameters
    ----------
    cost : int
        The number of array entries the call would draw or update (an exact int of any size).
    param, value : str, object
        The parameter that makes it large and its value (named first in the message).
    what : str
        What the cost counts, e.g. ``"the Monte Carlo (n chains x t tokens x k^2 counts)"``.
    hint : str
        What to do instead.

    Returns
    -------
    None
        When ``cost <= max_work()``.

    Raises
    ------
    LimitError
        Naming ``param``, the cost and the limit.

    Examples
    --------
    >>> check_work(10**6, param="n", value=1000, what="the draws")
    >>> check_work(10**12, param="n", value=10**9, what="the Monte Carlo (n draws x 1000 entries)", hint="use fewer draws")
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 1,000,000,000 is too large: the Monte Carlo (n draws x 1000 entries) is
    1,000,000,000,000, above the limit 10,000,000,000; use fewer draws
    """
    check_cost(_as_size(cost, "cost"), max_work(), param=param, value=value, what=what, hint=hint)


def check_rng(rng: object) -> np.random.Generator:
    """``rng`` itself when it is a numpy Generator; else an InputError naming ``rng``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random generator a function draws from.

    Returns
    -------
    numpy.random.Generator
        ``rng``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> check_rng(rng) is rng
    True
    >>> check_rng(0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: rng must be a numpy Generator (np.random.default_rng(seed)), got 0
    """
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r:.80}", param="rng")
    return rng


def check_seed(value: object, name: str = "seed", *, why: str = "") -> int:
    """A seed of ``numpy.random.default_rng`` (or of :class:`random.Random`) as an int ``>= 0``; a bool, a float
    (even ``2.0``), a string, ``None`` or a negative value is refused, so that a bad seed is named instead of failing
    inside numpy or being taken silently (``True`` as 1, a negative seed of :class:`random.Random` as its absolute
    value). A valid seed is returned unchanged (as an int), so it gives the same numbers as before the check.

    Parameters
    ----------
    value : int
        The seed: a Python or numpy integer ``>= 0``.
    name : str
        The parameter's name (in the message and as :attr:`InputError.param`).
    why : str
        What the seed seeds, added to the message in parentheses.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    InputError
        A ValueError naming ``name`` when ``value`` is not an integer ``>= 0``.

    Examples
    --------
    >>> check_seed(3), check_seed(np.int64(7))
    (3, 7)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: seed must be an integer >= 0, got seed = -1
    >>> check_seed(True, "init_seed", why="the initial weights")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: init_seed must be an integer >= 0 (the initial weights), got True of type bool
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        extra = f" ({why})" if why else ""
        raise InputError(
            f"{name} must be an integer >= 0{extra}, got {value!r:.80} of type {type(value).__name__}", param=name
        )
    return check_positive_int(value, name, minimum=0, hypothesis=why)


_NAME_DOC = """name : str
    The parameter, named in the InputError."""

#: The parameters the value checks share (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "scalar_value": "value : object\n    The caller's value.\n" + _NAME_DOC,
    "array_value": "value : array_like\n    The caller's values.\n" + _NAME_DOC,
}


@fill_doc(_DOC)
def check_real(
    value: object, name: str, *, positive: bool = False, nonnegative: bool = False, what: str = "a finite real number"
) -> float:
    """A finite real number (int, float, Fraction, numpy or sympy number; never a string or a bool) as a float:
    ``> 0`` with ``positive``, ``>= 0`` with ``nonnegative``; an int beyond the float range is refused.

    Parameters
    ----------
    {{scalar_value}}
    positive, nonnegative : bool
        Also require ``value > 0`` (``>= 0``).
    what : str
        What the message says the value must be.

    Returns
    -------
    float
        ``float(value)``.

    Examples
    --------
    >>> check_real(3, "x"), check_real(0.5, "x", positive=True)
    (3.0, 0.5)
    >>> check_real(10**400, "x")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: x must be a finite real number, got x = ~10^400
    >>> check_real(-1, "eta", nonnegative=True)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: eta must be a finite real number >= 0, got eta = -1
    """
    cond = " > 0" if positive else " >= 0" if nonnegative else ""
    if value is None or isinstance(value, (bool, str, bytes)):
        raise InputError(f"{name} must be {what}{cond}, got {value!r:.80}", param=name)
    try:
        f = float(value)  # type: ignore[arg-type]
    except OverflowError:
        f = math.inf
    except (TypeError, ValueError):
        raise InputError(f"{name} must be {what}{cond}, got {value!r:.80}", param=name) from None
    if not math.isfinite(f) or (positive and f <= 0) or (nonnegative and f < 0):
        raise InputError(f"{name} must be {what}{cond}, got {name} = {format_count(value)}", param=name)
    return f


@fill_doc(_DOC)
def check_callback(value: object, name: str) -> Callable[..., object] | None:
    """None or a callable (a progress hook); InputError naming ``name`` otherwise.

    Parameters
    ----------
    {{scalar_value}}

    Returns
    -------
    Callable or None
        ``value``.

    Examples
    --------
    >>> check_callback(print, "progress") is print, check_callback(None, "progress")
    (True, None)
    >>> check_callback(3, "progress")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: progress must be None or a callable, got 3
    """
    if value is not None and not callable(value):
        raise InputError(f"{name} must be None or a callable, got {value!r:.80}", param=name)
    return value


@fill_doc(_DOC)
def rounding_atol(raw: object, atol: float, terms: int = 1) -> float:
    """The tolerance of an identity checked on ``raw`` (rows summing to 1, a unit norm): ``atol``, or, where ``raw``
    is an array of a coarser float type (float32, float16: a torch or GPU result), the rounding of ``terms`` entries
    of that type, ``max(atol, 4 terms eps)``: a float32 row of a stochastic matrix sums to 1 only within ~1e-7.

    Parameters
    ----------
    raw : object
        The caller's value, before any conversion to float64.
    atol : float
        The tolerance for float64 (and for values that are not float arrays).
    terms : int, optional
        The number of entries the identity adds up (default 1).

    Returns
    -------
    float
        The tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> rounding_atol([0.5, 0.5], 1e-8), rounding_atol(np.ones(2), 1e-8)
    (1e-08, 1e-08)
    >>> float(f"{rounding_atol(np.ones(2, np.float32), 1e-8, terms=2):.3g}")
    9.54e-07
    >>> rounding_atol([0.5, 0.5], float("nan"))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: atol must be a finite real number >= 0, got atol = nan
    """
    atol = check_real(atol, "atol", nonnegative=True)  # a NaN tolerance passed every check silently
    terms = check_count(terms, "terms")
    dtype = getattr(raw, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.floating):
        return max(atol, 4 * terms * float(np.finfo(dtype).eps))
    return atol


def check_real_array(value: object, name: str, *, finite: bool = True) -> np.ndarray:
    """A float64 array; what numpy cannot convert is refused, and with ``finite`` NaN and infinities (InputError
    naming ``name``).

    Parameters
    ----------
    {{array_value}}
    finite : bool
        Also refuse NaN and infinities (callers that report non-finite weights themselves pass False).

    Returns
    -------
    numpy.ndarray
        ``value`` as float64.

    Examples
    --------
    >>> check_real_array([1, 2.5], "x")
    array([1. , 2.5])
    >>> check_real_array([1, float("nan")], "x")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: x must be finite (it contains NaN or an infinity)
    >>> check_real_array(["1", "2"], "x")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: x must be a real array of finite numbers, got ['1', '2']
    """
    if value is None or isinstance(value, (str, bytes, bool)):
        raise InputError(f"{name} must be a real array, got {value!r:.80}", param=name)
    try:
        raw = np.asarray(value)
        if raw.dtype.kind in "USV" or (raw.dtype.kind == "O" and any(isinstance(v, (str, bytes)) for v in raw.flat)):
            raise TypeError  # numpy reads ["1", "2"] as numbers; a string is never a weight
        arr = raw.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be a real array of finite numbers, got {value!r:.80}", param=name) from None
    if finite and not np.isfinite(arr).all():
        raise InputError(f"{name} must be finite (it contains NaN or an infinity)", param=name)
    return arr


@fill_doc(_DOC)
def check_real_vector(value: object, name: str, length: int, *, what: str = "") -> np.ndarray:
    """A finite float64 vector of exactly ``length`` entries: :func:`check_real_array`, then its shape.

    Parameters
    ----------
    {{array_value}}
    length : int
        The number of entries required.
    what : str, optional
        The message for a wrong shape (default: ``"<name> must be a real vector of length <length>"``).

    Returns
    -------
    numpy.ndarray
        ``value`` as a float64 vector of shape ``(length,)``.

    Examples
    --------
    >>> check_real_vector([1, 2], "w", 2)
    array([1., 2.])
    >>> check_real_vector([[1, 2]], "w", 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: w must be a real vector of length 2, got shape (1, 2)
    """
    v = check_real_array(value, name)
    if v.shape != (length,):
        raise InputError(
            f"{what or f'{name} must be a real vector of length {length}'}, got shape {v.shape}", param=name
        )
    return v


def check_mc(
    samples: object,
    name: str,
    per_sample: int,
    what: str,
    *,
    minimum: int = 2,
    sizes: dict[str, int] | None = None,
) -> int:
    """A Monte-Carlo sample count checked before any draw: an int ``>= minimum`` (two for a standard error), at
    most :data:`MAX_MC_SAMPLES`, whose work ``samples * per_sample`` is at most :data:`MAX_MC_WORK` (times the factor of an
    enclosing :func:`work_limits_scaled` block).

    When a thousand samples are already above the work limit, the refusal names the largest of ``sizes`` (the
    parameters that make one sample expensive) instead of the sample count.

    Parameters
    ----------
    samples : int
        The sample count.
    name : str
        Its parameter name.
    per_sample : int
        Float entries drawn or processed per sample.
    what : str
        What the work counts, for the message.
    minimum : int
        The smallest sample count accepted.
    sizes : dict of str to int, optional
        The parameters that make one sample expensive, with their values.

    Returns
    -------
    int
        ``samples`` as an int.

    Examples
    --------
    >>> check_mc(1000, "n", 10, "n samples x 10 entries")
    1000
    >>> check_mc(10**9, "n", 10, "n samples x 10 entries")
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 1,000,000,000 is above the limit n <= 100,000,000 of Monte-Carlo sample counts;
    use a smaller n
    """
    hypothesis = "a standard error needs two samples" if minimum == 2 else ""
    n = check_positive_int(samples, name, minimum=minimum, hypothesis=hypothesis)
    check_cost(n, MAX_MC_SAMPLES, param=name, value=n, what="Monte-Carlo sample counts", hint=f"use a smaller {name}")
    param, value = name, n
    if sizes and 1000 * per_sample > max_mc_work():
        param = max(sizes, key=lambda key: sizes[key])
        value = sizes[param]
    check_cost(
        n * per_sample,
        max_mc_work(),
        param=param,
        value=value,
        what=f"the Monte-Carlo work ({what} = {format_count(n)} x {format_count(per_sample)} float entries)",
        hint=f"use a smaller {param}",
    )
    return n
