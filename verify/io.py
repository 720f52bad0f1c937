"""Atomic file output: a reader never sees a half-written report file."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["ReportDirectoryError", "prepare_directory", "atomic_path", "write_text_atomic"]


class ReportDirectoryError(OSError):
    """The output directory cannot be created or written."""


def prepare_directory(path: str | os.PathLike) -> Path:
    """Create ``path`` (and parents) and check that a file can be written there.

    Raises
    ------
    ReportDirectoryError
        With the path and the operating system's reason.
    """
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".tvk-probe-", dir=p)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ReportDirectoryError(f"cannot write the report directory {str(p)!r}: {exc.strerror or exc}") from exc
    return p


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path next to ``target``; on success it replaces ``target`` in one rename,
    on failure it is removed and ``target`` is left as it was."""
    target = Path(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix or ".tmp", dir=target.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary, readable file
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``target`` atomically (UTF-8)."""
    with atomic_path(target) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
