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
    """Bytes of memory available to new allocations now, or None when the platform does not say."""
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
    """``1.5 GiB``-style size."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def array_bytes(*shape: int, itemsize: int = 8) -> int:
    """Bytes of a dense array of this shape (float64 by default); exact Python integer, no overflow."""
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

    Raises
    ------
    LimitError
        A ValueError naming ``param``, the estimate and the available memory.
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
