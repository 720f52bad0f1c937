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
import os

from theory._checks import LimitError, format_count

__all__ = ["MEMORY_FRACTION", "array_bytes", "available_memory", "check_allocation", "format_bytes"]

MEMORY_FRACTION = 0.5
"""Largest share of the available memory one allocation may take (temporaries need the rest)."""


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
        A number of bytes.

    Returns
    -------
    str
        ``n`` in the largest binary unit (KiB, MiB, GiB, TiB) it reaches, one decimal; plain bytes below 1 KiB.

    Examples
    --------
    >>> format_bytes(1536), format_bytes(3 * 2**30), format_bytes(100)
    ('1.5 KiB', '3.0 GiB', '100 B')
    """
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def array_bytes(*shape: int, itemsize: int = 8) -> int:
    """Bytes of a dense array of this shape (float64 by default); exact Python integer, no overflow.

    Parameters
    ----------
    *shape : int
        The array's dimensions.
    itemsize : int
        Bytes per entry (8 for float64).

    Returns
    -------
    int
        The product of the dimensions times ``itemsize``.

    Examples
    --------
    >>> array_bytes(1000, 1000)
    8000000
    >>> array_bytes(10, 10, itemsize=4)
    400
    >>> array_bytes(2**40, 2**40) == 2**83  # no int64 overflow
    True
    """
    return math.prod(int(s) for s in shape) * int(itemsize)


def check_allocation(nbytes: int, *, param: str, value: object, what: str, hint: str = "") -> None:
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
    avail = available_memory()
    if avail is None:
        return
    budget = int(avail * MEMORY_FRACTION)
    if nbytes <= budget:
        return
    raise LimitError(
        f"{param} = {format_count(value)} is too large: {what} needs about {format_bytes(nbytes)}, above "
        f"{MEMORY_FRACTION:.0%} of the {format_bytes(avail)} of memory available" + (f"; {hint}" if hint else ""),
        param=param,
        value=value,
        limit=budget,
        hint=hint,
    )
