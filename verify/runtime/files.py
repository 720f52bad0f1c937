"""Files written so that a reader never sees half of one (docs/report.md): :func:`atomic_path`,
:func:`write_text_atomic`, :func:`write_text`, and the operating-system errors that say nothing about a claim
(:data:`ENVIRONMENT_ERRNOS`: they stop a run instead of deciding a verdict).
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = [
    "ENVIRONMENT_ERRNOS",
    "atomic_path",
    "missing_folders",
    "remove_empty_folders",
    "write_text",
    "write_text_atomic",
]

# Operating-system errors that say nothing about a claim (the disk, the quota, the permissions, an unreachable
# cluster of the sweep's Ray executor): they abort a run.
ENVIRONMENT_ERRNOS = frozenset(
    {
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.EIO,
        errno.EFBIG,
        errno.EMFILE,
        errno.ENETUNREACH,
    }
)


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
    with atomic_path(target) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def write_text(target: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``target`` (UTF-8) and flush it to the disk; used for files inside a staging directory,
    which nobody reads before :func:`swap_in`."""
    with open(target, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def missing_folders(folder: str | os.PathLike) -> list[Path]:
    """The folders of ``folder``'s path that do not exist yet, outermost first (what ``mkdir(parents=True)`` makes)."""
    missing: list[Path] = []
    for p in [Path(folder), *Path(folder).parents]:
        if p.exists() or p.is_symlink():
            break
        missing.insert(0, p)
    return missing


def remove_empty_folders(folders: list[Path]) -> None:
    """Remove ``folders`` (as :func:`missing_folders` listed them, outermost first) innermost first, each only while
    it is empty: undoing a ``mkdir(parents=True)`` of an output that failed."""
    for p in reversed(folders):
        with suppress(OSError):
            p.rmdir()
