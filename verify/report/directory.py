"""The report directory as a transaction (docs/report.md): a lock (:func:`directory_lock`), a staging directory
inside it (:func:`staging_directory`), the swap of the staged report into place as one unit (:func:`swap_in`), the
cleaning of what a killed run left behind (:func:`remove_stale`) and the JSON Lines journal of finished records
(:class:`Journal`).

The report's entries (``report.html``, ``results.json``, ``figures/``, ...) are symbolic links
``DIR/name -> .tvk-current/name``, and ``DIR/.tvk-current`` is a link to the directory ``DIR/.tvk-run-XXXX`` of the
last complete run. Publishing a run is one ``rename(2)`` of a new ``.tvk-current`` link over the old one, so a
reader opening ``DIR/report.html`` and ``DIR/results.json`` finds both from one run, whenever the writer was killed.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

__all__ = [
    "CHECKPOINT_DIR",
    "CURRENT_NAME",
    "JOURNAL_NAME",
    "LOCK_NAME",
    "RUN_PREFIX",
    "STAGE_PREFIX",
    "DirectoryLockedError",
    "Journal",
    "JournalWrapper",
    "ReportDirectoryError",
    "current_run",
    "directory_lock",
    "lock_holder",
    "prepare_directory",
    "remove_stale",
    "staging_directory",
    "swap_in",
]

LOCK_NAME = ".tvk-report.lock"
STAGE_PREFIX = ".tvk-stage-"
RUN_PREFIX = ".tvk-run-"  # the directory of one published run's report
LINK_PREFIX = ".tvk-link-"  # a link being made, renamed over its place at once
CURRENT_NAME = ".tvk-current"  # the link to the published run's directory: the one pointer every reader follows
JOURNAL_NAME = "results.jsonl"
CHECKPOINT_DIR = ".checkpoints"  # the trainers' checkpoints of the claims that run (verify.claims.training)


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


def lock_holder(path: Path) -> int | None:
    """The pid written into the lock file ``path`` (:func:`directory_lock`); None when it cannot be read."""
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
            raise DirectoryLockedError(path, lock_holder(path)) from None
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
        raise DirectoryLockedError(path, lock_holder(path))
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


def _unique_name(prefix: str) -> str:
    """A name no other process picks at the same moment: ``prefix``, this process's id and 8 random hex digits."""
    return f"{prefix}{os.getpid()}-{os.urandom(4).hex()}"


def _link(target: str, path: Path) -> None:
    """Point the symbolic link ``path`` at ``target`` in one ``rename(2)``: a fresh link beside it, renamed over it."""
    tmp = path.with_name(_unique_name(LINK_PREFIX))
    os.symlink(target, tmp)
    try:
        _move(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def current_run(target: Path) -> Path | None:
    """The directory of the published run (what ``target/.tvk-current`` points to), or None."""
    link = target / CURRENT_NAME
    try:
        return target / os.readlink(link)
    except OSError:
        return None


def _fresh_directory(parent: Path, prefix: str) -> Path:
    """A new directory ``parent/<prefix><pid>-<random>`` with the permissions of a plain ``mkdir`` (the umask's):
    the published run directory, which the report's links lead into, so it is readable wherever the report
    directory is (``tempfile.mkdtemp`` makes it 0700: other users and a web server could not follow the links)."""
    while True:
        path = parent / _unique_name(prefix)
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path


def swap_in(stage: Path, target: Path, names: Sequence[str]) -> None:
    """Publish ``stage/name`` for every name (files or directories) as ``target/name``, as one unit.

    The entries are moved into a fresh run directory ``target/.tvk-run-XXXX``; then one rename points
    ``target/.tvk-current`` at it (the commit: before it every reader sees the previous report, after it the new
    one, never a mix); then each ``target/name`` is made the link ``.tvk-current/name`` if it is not one already (a
    directory written by an older version is moved into the previous run's directory first: a one-time migration)
    and the previous run's directory is removed. If anything fails before the commit, the new run directory is
    removed and ``target`` keeps its previous report; the error is raised.
    """
    run = _fresh_directory(target, RUN_PREFIX)
    previous = current_run(target)
    try:
        for name in names:
            _move(stage / name, run / name)
        _link(run.name, target / CURRENT_NAME)  # the commit
    except BaseException:
        shutil.rmtree(run, ignore_errors=True)
        raise
    legacy = stage / ".previous"  # entries of a report written before the link layout
    for name in names:
        entry = target / name
        wanted = f"{CURRENT_NAME}/{name}"
        if entry.is_symlink() and os.readlink(entry) == wanted:
            continue
        if entry.exists() or entry.is_symlink():
            legacy.mkdir(exist_ok=True)
            _move(entry, legacy / name)
        _link(wanted, entry)
    if previous is not None and previous.resolve() != run.resolve():
        shutil.rmtree(previous, ignore_errors=True)


def remove_stale(directory: Path, checkpoints: Path | None = None) -> list[Path]:
    """Remove what an interrupted run left in ``directory``: staging directories, run directories that are not the
    published one, half-made links, the temporary files of atomic writes and, in ``checkpoints``, checkpoint
    temporary files. Call it holding the lock. Returns the removed paths."""
    removed = []
    patterns = [
        f"{STAGE_PREFIX}*",
        ".results.json.*",
        ".report.md.*",
        ".report.html.*",
        f"{RUN_PREFIX}*",
        f"{LINK_PREFIX}*",
    ]
    published = current_run(directory)
    for pattern in patterns:
        for p in directory.glob(pattern):
            if published is not None and p.name == published.name:
                continue  # the published run's directory
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
            removed.append(p)
    if checkpoints is not None and checkpoints.is_dir():
        for pattern in (".*.tmp", "*.tmp-*"):  # verify.runtime.files's temporaries; an earlier checkpoint writer's
            for p in checkpoints.glob(pattern):
                if p.is_file() or p.is_symlink():
                    p.unlink(missing_ok=True)
                    removed.append(p)
    return removed


class JournalWrapper:
    """A journal that adds to :meth:`Journal.append` (subclasses override :meth:`append` and call it): everything
    else, ``count``, ``path``, the context manager, is the wrapped journal's."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal

    def append(self, record: dict[str, Any]) -> None:
        self.journal.append(record)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.journal, name)

    def __enter__(self) -> JournalWrapper:
        self.journal.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.journal.__exit__(*exc)


class Journal:
    """``results.jsonl``: one JSON record per line, appended and flushed to the disk as each claim finishes, so a
    run that dies keeps the records it finished. Opening it starts a new journal (the previous run's is replaced).
    ``form`` turns each record into the line written (``tvk report``: the form of ``results.json``'s claims,
    :func:`verify.report.render.result_record`); None writes the record as it is."""

    def __init__(self, path: str | os.PathLike, form: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.path = Path(path)
        self.form = form
        self.count = 0  # records appended
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        self._fh = os.fdopen(os.open(self.path, flags, 0o666), "w", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        line = record if self.form is None else self.form(record)
        self._fh.write(json.dumps(line, default=str, allow_nan=self.form is None) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.count += 1

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
