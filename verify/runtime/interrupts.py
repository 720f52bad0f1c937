"""How runs end: which SIGINT or SIGTERM handler a training loop may stand in for (:func:`verify.runtime.loop.run_loop`
defers a first Ctrl-C, or SIGTERM, to the end of the running update, saves a checkpoint and then stops;
docs/training.md).

The loop replaces a handler in place only when that handler does nothing but raise ``KeyboardInterrupt``:
Python's default, or a handler marked with :func:`raises_interrupt` (``tvk``'s, which also remembers that an
interrupt came). Any other handler (a caller's own) is left alone, and the loop stops where the interrupt lands.
A worker process started for a report or a sweep exits by itself when its parent is gone
(:func:`exit_with_parent`): a parent killed outright (SIGKILL, an out-of-memory kill) cannot stop it.
Torch-free, so the command line can mark its handler without importing torch.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["INTERRUPT_SIGNALS", "deferrable", "exit_with_parent", "raises_interrupt"]

#: The signals that stop a run as a Ctrl-C does: SIGINT, and the SIGTERM of ``kill`` or of a batch scheduler (Slurm at
#: a time limit); ``tvk`` turns both into KeyboardInterrupt, the training loop defers both.
INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_MARK = "_tvk_raises_keyboard_interrupt"

H = TypeVar("H", bound=Callable[..., Any])


def raises_interrupt(handler: H) -> H:
    """Mark ``handler`` (a function, or a method's function) as one that ends by raising ``KeyboardInterrupt``, so
    that a training loop may defer it (:func:`deferrable`)."""
    setattr(handler, _MARK, True)
    return handler


def deferrable(handler: object) -> bool:
    """True when ``handler``, an installed SIGINT or SIGTERM handler, only raises ``KeyboardInterrupt``: Python's
    default SIGINT handler or one marked with :func:`raises_interrupt` (a bound method answers for its function)."""
    return handler is signal.default_int_handler or bool(getattr(handler, _MARK, False))


def exit_with_parent(parent: int, every: float = 1.0) -> None:
    """In a worker process: exit (status 1) within ``every`` seconds of its parent, pid ``parent``, being gone (a
    daemon thread polls ``os.getppid()``, which changes when the worker is re-parented)."""

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="tvk-parent-watch", daemon=True).start()
