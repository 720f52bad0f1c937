"""A helper of the tests that start and stop processes (report workers, sweep workers)."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Whether process ``pid`` is running: it exists and is not a zombie (a zombie has exited; only its parent,
    perhaps init, has still to reap it). Reads ``/proc``: the tests that call it skip where there is none."""
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in state
