"""The CPU cores this process may use: one answer for every place that sizes workers or threads by the machine.

Standard library only, so a freshly spawned worker can ask before numpy and torch are imported.
"""

from __future__ import annotations

import os

__all__ = ["cpu_cores"]


def cpu_cores() -> int:
    """CPU cores this process may use: its affinity mask where the platform has one (``taskset``, container CPU
    sets), else ``os.cpu_count()``; at least 1. ``os.cpu_count()`` alone counts the whole machine, which
    oversubscribes a process confined to fewer cores."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
