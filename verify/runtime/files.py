"""File output the report and the trainers rely on (docs/report.md).

* Atomic files: a reader never sees a half-written report file (:func:`atomic_path`, :func:`write_text_atomic`).
* The report directory as a transaction: a lock (:func:`directory_lock`), a staging directory inside it
  (:func:`staging_directory`), the swap of the staged files into place (:func:`swap_in`), the cleaning of what a
  killed run left behind (:func:`remove_stale`) and the JSON Lines journal of finished records (:class:`Journal`).
* Checkpoint bookkeeping shared by every trainer: the binding of a checkpoint to the running claim
  (:func:`claim_checkpoints`, :func:`checkpoint_binding`), the record of a resumption (:func:`note_resumed`), the
  moving aside of an unreadable checkpoint (:func:`quarantine`) and the log those messages go to
  (:func:`checkpoint_log`, :func:`log_to`).
"""

from __future__ import annotations

import contextvars
import errno
import fcntl
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ENVIRONMENT_ERRNOS",
    "JOURNAL_NAME",
    "LOCK_NAME",
    "STAGE_PREFIX",
    "CheckpointBinding",
    "DirectoryLockedError",
    "Journal",
    "ReportDirectoryError",
    "atomic_path",
    "checkpoint_binding",
    "checkpoint_log",
    "claim_checkpoints",
    "directory_lock",
    "log_to",
    "note_resumed",
    "prepare_directory",
    "quarantine",
    "remove_stale",
    "staging_directory",
    "swap_in",
    "write_text",
    "write_text_atomic",
]

LOCK_NAME = ".tvk-report.lock"
STAGE_PREFIX = ".tvk-stage-"
JOURNAL_NAME = "results.jsonl"
# Operating-system errors that say nothing about a claim (the disk, the quota, the permissions): they abort a run.
ENVIRONMENT_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS, errno.EIO, errno.EFBIG, errno.EMFILE}
)


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


# ---------------------------------------------------------------------------------------------------- the lock


class DirectoryLockedError(RuntimeError):
    """Another process (or thread) holds the report directory's lock."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path, self.pid = path, pid
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(
            f"{path.parent} is in use: {who} holds its lock {str(path)!r} (another report is being written into "
            "this directory); wait for it to finish or choose another output directory"
        )


def _lock_holder(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").split()
        return int(text[0]) if text else None
    except (OSError, ValueError):
        return None


@contextmanager
def directory_lock(directory: str | os.PathLike, name: str = LOCK_NAME) -> Iterator[Path]:
    """Hold an exclusive lock on ``directory`` for the block: the file ``directory/name`` under ``flock``, with
    the holder's pid written into it.

    The kernel releases a ``flock`` when its holder exits, however it exits, so a lock file left by a killed
    run (whatever pid it names) is taken over; a live holder (another process, or another thread of this one)
    makes this raise :class:`DirectoryLockedError` naming the lock file and the pid in it. The file is removed
    when the block ends.
    """
    path = Path(directory) / name
    for _ in range(5):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DirectoryLockedError(path, _lock_holder(path)) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino  # not a file a releasing holder just unlinked
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    else:
        raise DirectoryLockedError(path, _lock_holder(path))
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield path
    finally:
        with suppress(OSError):
            os.unlink(path)
        os.close(fd)  # releases the flock


# ---------------------------------------------------------------------------------------------------- staging


@contextmanager
def staging_directory(directory: str | os.PathLike) -> Iterator[Path]:
    """A fresh temporary directory ``directory/.tvk-stage-*`` (same file system, so its files can be renamed into
    place); removed with what is left in it when the block ends."""
    stage = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=directory))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _move(src: Path, dst: Path) -> None:
    os.replace(src, dst)


def swap_in(stage: Path, target: Path, names: Sequence[str]) -> None:
    """Move ``stage/name`` to ``target/name`` for every name (files or directories), replacing what is there.

    The previous entries are moved into ``stage/.previous`` first (and removed with the staging directory). If a
    move fails, the moves already made are undone, so ``target`` keeps its previous entries, and the error is
    raised.
    """
    backup = stage / ".previous"
    backup.mkdir(exist_ok=True)
    undo: list[tuple[Path, Path]] = []  # (from, to) moves that restore the previous state, in reverse order
    try:
        for name in names:
            old, new = target / name, stage / name
            if old.exists() or old.is_symlink():
                _move(old, backup / name)
                undo.append((backup / name, old))
            _move(new, old)
            undo.append((old, new))
    except BaseException:
        for src, dst in reversed(undo):
            with suppress(OSError):
                os.replace(src, dst)
        raise


def remove_stale(directory: Path, checkpoints: Path | None = None) -> list[Path]:
    """Remove what an interrupted run left in ``directory``: staging directories, the temporary files of atomic
    writes and, in ``checkpoints``, checkpoint temporary files. Call it holding the lock. Returns the removed
    paths."""
    removed = []
    patterns = [f"{STAGE_PREFIX}*", ".results.json.*", ".report.md.*", ".report.html.*"]
    for pattern in patterns:
        for p in directory.glob(pattern):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
            removed.append(p)
    if checkpoints is not None and checkpoints.is_dir():
        for pattern in (".*.tmp", "*.tmp-*"):
            for p in checkpoints.glob(pattern):
                if p.is_file() or p.is_symlink():
                    p.unlink(missing_ok=True)
                    removed.append(p)
    return removed


class Journal:
    """``results.jsonl``: one JSON record per line, appended and flushed to the disk as each claim finishes, so a
    run that dies keeps the records it finished. Opening it starts a new journal (the previous run's is replaced)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.count = 0  # records appended
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        self._fh = os.fdopen(os.open(self.path, flags, 0o666), "w", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps(record, default=str) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.count += 1

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------------- checkpoints


@dataclass(frozen=True)
class CheckpointBinding:
    """What a checkpoint written while a claim runs is bound to: the claim id and a hash of its configuration
    (the code revision is added by the trainer when it writes)."""

    claim: str
    config_hash: str


_BINDING: contextvars.ContextVar[CheckpointBinding | None] = contextvars.ContextVar("tvk_binding", default=None)
_RESUMED: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar("tvk_resumed", default=None)
_LOG: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("tvk_log", default=None)


@contextmanager
def claim_checkpoints(claim: str, config_hash: str) -> Iterator[list[dict[str, Any]]]:
    """Bind the checkpoints that trainers write or read in the block to the claim ``claim`` with configuration
    hash ``config_hash``; yields the list that :func:`note_resumed` fills with ``{"step", "file"}``."""
    resumed: list[dict[str, Any]] = []
    t1 = _BINDING.set(CheckpointBinding(claim, config_hash))
    t2 = _RESUMED.set(resumed)
    try:
        yield resumed
    finally:
        _BINDING.reset(t1)
        _RESUMED.reset(t2)


def checkpoint_binding() -> CheckpointBinding | None:
    """The claim the running code's checkpoints are bound to (None outside :func:`claim_checkpoints`)."""
    return _BINDING.get()


@contextmanager
def log_to(log: Callable[[str], None]) -> Iterator[None]:
    """Send :func:`checkpoint_log` messages of the block to ``log``."""
    token = _LOG.set(log)
    try:
        yield
    finally:
        _LOG.reset(token)


def checkpoint_log(message: str) -> None:
    """Log a checkpoint message (resuming, ignored, moved aside, not saved): to the log of :func:`log_to`, else
    to stderr; prefixed with the claim id when a claim runs."""
    binding = _BINDING.get()
    if binding is not None:
        message = f"{binding.claim}: {message}"
    log = _LOG.get()
    if log is not None:
        log(message)
    else:
        print(message, file=sys.stderr, flush=True)


def note_resumed(step: int, file: str | os.PathLike) -> None:
    """Record (in the running claim's ``resumed_from``) and log that a trainer resumed from ``file`` at ``step``."""
    resumed = _RESUMED.get()
    if resumed is not None:
        resumed.append({"step": int(step), "file": str(file)})
    checkpoint_log(f"resuming from step {int(step)} (checkpoint {file})")


def quarantine(path: str | os.PathLike, reason: str) -> Path:
    """Move an unreadable checkpoint aside to ``<path>.corrupt`` (replacing an older one) and say so; returns
    the new path."""
    path = Path(path)
    aside = path.with_name(path.name + ".corrupt")
    os.replace(path, aside)
    checkpoint_log(f"checkpoint {path} is unreadable ({reason}); moved it to {aside} and starting fresh")
    return aside
