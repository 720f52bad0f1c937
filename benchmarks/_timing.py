"""Timing helper shared by the benchmark scripts (best-of-N wall time in the same process)."""

from __future__ import annotations

import time
from typing import Any, Callable


def best_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Run ``fn`` ``repeats`` times; return (the smallest wall time in seconds, the last result)."""
    best, out = float("inf"), None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
