"""A hang guard for the robustness tests (issue 32): a call that has not returned after ``seconds`` of wall clock
is interrupted and the test fails as a hang.

The guard is not a timing assertion (issue 28: no test decides by wall clock): its limit is far above the time any
refusal or small call takes on a loaded 2-core machine, so that only a missing size check (work of minutes to
hours) trips it. How fast refusals are is measured in ``benchmarks/``, not asserted.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["HANG_S", "Hang", "watchdog"]

HANG_S = 60
"""Seconds before a call counts as a hang: 3x the 20 s answer target of issue 32, for a loaded CI machine."""


class Hang(BaseException):
    """Raised by the alarm; a BaseException, so that code under test that catches Exception cannot swallow it."""


@contextmanager
def watchdog(what: str, seconds: int = HANG_S) -> Iterator[None]:
    """Run the body under a SIGALRM of ``seconds``; raise :class:`Hang` naming ``what`` when it fires."""

    def fire(signum: int, frame: Any) -> None:
        raise Hang(f"{what} did not return within {seconds} s (a missing size check?)")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
