"""The results store of grid claims: one SQLite file (standard library, WAL mode), by default
``<report dir>/sweep.sqlite`` (docs/running_at_scale.md).

Table ``cells`` holds one row per finished cell, keyed by (claim id, cell-configuration hash, seeds, code
revision), with the cell's configuration and result as JSON text, its runtime, host and executor. Each row is
committed on its own as the cell finishes, so a killed run loses at most the cells in flight, and a rerun (or
another job writing to the same file on the same host) skips every stored cell. Table ``plans`` holds, per
(claim id, scale, revision), the cell keys of each stage, which ``tvk sweep status`` compares with ``cells``.

SQLite's WAL needs shared memory: several processes on one host may share a store; jobs on different hosts
each write their own copy, merged with :func:`merge_stores` (``tvk sweep merge``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verify.runtime import files
from verify.runtime.provenance import code_revision

from .names import STORE_NAME

__all__ = [
    "STORE_NAME",
    "NotAStoreError",
    "PlanStatus",
    "ResultStore",
    "StoredCell",
    "check_store",
    "code_revision",
    "merge_stores",
    "seeds_text",
]

#: The store's file name inside a report directory.
SCHEMA_VERSION = "1"
_SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    claim_id TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    seeds TEXT NOT NULL,
    revision TEXT NOT NULL,
    label TEXT NOT NULL,
    stage INTEGER NOT NULL,
    config TEXT NOT NULL,
    result TEXT NOT NULL,
    runtime_s REAL NOT NULL,
    host TEXT NOT NULL,
    executor TEXT NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (claim_id, config_hash, seeds, revision)
);
CREATE TABLE IF NOT EXISTS plans (
    claim_id TEXT NOT NULL,
    scale TEXT NOT NULL,
    revision TEXT NOT NULL,
    stages TEXT NOT NULL,
    total INTEGER NOT NULL,
    started_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (claim_id, scale, revision)
);
"""


def seeds_text(seeds: Sequence[int]) -> str:
    """The seeds key of a cell: ``"0,1,2"``."""
    return ",".join(str(int(s)) for s in seeds)


@dataclass(frozen=True)
class CellEntry:
    """A finished cell to store (:meth:`ResultStore.put`): its key (claim, configuration hash, seeds, revision), its
    label and stage, the configuration and the result as JSON text, and where and how long it ran."""

    claim_id: str
    config_hash: str
    seeds: Sequence[int]
    revision: str
    label: str
    stage: int
    config: str
    result: str
    runtime_s: float
    host: str
    executor: str


@dataclass(frozen=True)
class StoredCell:
    """One row of ``cells`` (the result still as JSON text)."""

    config_hash: str
    seeds: str
    label: str
    stage: int
    result: str
    runtime_s: float
    host: str
    executor: str
    finished_at: float


@dataclass(frozen=True)
class PlanStatus:
    """Progress of one planned grid: cells done of total, device seconds spent, estimated time to go."""

    claim_id: str
    scale: str
    revision: str
    done: int
    total: int
    runtime_s: float
    eta_s: float | None
    started_at: float
    last_finished: float | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class NotAStoreError(ValueError):
    """A file given as a results store that is not one (not SQLite, or SQLite without the store's tables)."""


def _read_only(path: str | os.PathLike, timeout: float = 60.0, *, snapshot: bool = False) -> sqlite3.Connection:
    """A read-only connection to the existing SQLite file ``path``: nothing is written to it, not even a journal
    mode. A store in WAL mode gets SQLite's reader files ``-wal``/``-shm`` beside it (a writer may be active);
    ``snapshot=True`` reads a file that has no ``-wal`` beside it as immutable, creating nothing."""
    p = Path(path).resolve()
    uri = p.as_uri().replace("file://", "file:", 1) + "?mode=ro"
    if snapshot and not p.with_name(p.name + "-wal").exists():
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)


def check_store(path: str | os.PathLike, *, empty_ok: bool = False) -> None:
    """Refuse, without writing to it, a file that is not a results store of this schema.

    An empty file is not a store; with ``empty_ok`` (a store opened for writing) it is accepted: SQLite makes it
    one on the first write (and a process that has just created the store may not have written it yet).

    Raises
    ------
    NotAStoreError
        If ``path`` is not a file, is empty (unless ``empty_ok``), not an SQLite database, has no store tables,
        or another schema.
    """
    p = Path(path)
    if not p.is_file():
        raise NotAStoreError(f"no results store at {str(p)!r} (not a file)")
    try:
        with p.open("rb") as f:  # read, not stat: files such as /proc/version have size 0 and content
            head = f.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise NotAStoreError(f"cannot read the results store {str(p)!r}: {exc.strerror or exc}") from None
    if not head:
        if empty_ok:
            return
        raise NotAStoreError(f"{str(p)!r} is not a tvk results store: it is an empty file")
    if head != _SQLITE_MAGIC:
        raise NotAStoreError(f"{str(p)!r} is not a tvk results store: it is not an SQLite database file")
    try:
        db = _read_only(p, snapshot=True)
    except sqlite3.Error as exc:
        raise NotAStoreError(f"{str(p)!r} cannot be opened as a results store: {exc}") from None
    try:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"meta", "cells", "plans"} <= names:
            what = f"an SQLite database with the tables {sorted(names)}" if names else "an empty SQLite database"
            raise NotAStoreError(
                f"{str(p)!r} is not a tvk results store: it is {what}, without the store's tables meta, cells and plans"
            )
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise NotAStoreError(f"{str(p)!r} is not a tvk results store ({exc})") from None
    finally:
        db.close()
    if row is None or row[0] != SCHEMA_VERSION:
        found = "none" if row is None else row[0]
        raise NotAStoreError(f"{str(p)!r}: store schema {found}, this code reads schema {SCHEMA_VERSION}")


class ResultStore:
    """The SQLite store at ``path`` (``":memory:"`` for a private in-memory store).

    Parameters
    ----------
    path : str or Path
        The database file; its directory must exist. An existing file must be a store (:func:`check_store`).
    timeout : float
        Seconds to wait for another writer's lock.
    read_only : bool
        Open an existing store for reading only (``tvk sweep status``): nothing is created or written.
    """

    def __init__(self, path: str | os.PathLike, timeout: float = 60.0, *, read_only: bool = False) -> None:
        self.path = str(path)
        if self.path != ":memory:" and not Path(self.path).parent.is_dir():
            raise ValueError(f"the store's directory {str(Path(self.path).parent)!r} does not exist")
        if self.path != ":memory:" and (read_only or Path(self.path).exists()):
            check_store(self.path, empty_ok=not read_only)
        try:
            if read_only:
                self._db = _read_only(self.path, timeout)
                return
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        except sqlite3.OperationalError as exc:  # e.g. a directory that cannot be written
            if hasattr(self, "_db"):
                self._db.close()
            raise NotAStoreError(f"cannot open the results store {self.path!r}: {exc}") from None
        found = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        if found != SCHEMA_VERSION:
            raise ValueError(f"{self.path}: store schema {found}, this code reads schema {SCHEMA_VERSION}")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----------------------------------------------------------------------------------------------- cells

    def put(self, entry: CellEntry) -> bool:
        """Store a finished cell in its own transaction; False if that key was already stored (kept as it was)."""
        e = entry
        cur = self._db.execute(
            "INSERT OR IGNORE INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                e.claim_id,
                e.config_hash,
                seeds_text(e.seeds),
                e.revision,
                e.label,
                e.stage,
                e.config,
                e.result,
                float(e.runtime_s),
                e.host,
                e.executor,
                time.time(),
            ),
        )
        return cur.rowcount == 1

    def get(
        self, claim_id: str, keys: Iterable[tuple[str, Sequence[int]]], revision: str
    ) -> dict[tuple[str, str], StoredCell]:
        """The stored cells among ``keys`` = (config hash, seeds), by (hash, seeds text)."""
        wanted = {(h, seeds_text(s)) for h, s in keys}
        rows = self._db.execute(
            "SELECT config_hash, seeds, label, stage, result, runtime_s, host, executor, finished_at FROM cells "
            "WHERE claim_id = ? AND revision = ?",
            (claim_id, revision),
        )
        return {(r[0], r[1]): StoredCell(*r) for r in rows if (r[0], r[1]) in wanted}

    def count(self, claim_id: str | None = None) -> int:
        """Rows in ``cells`` (of one claim, or all)."""
        if claim_id is None:
            return int(self._db.execute("SELECT COUNT(*) FROM cells").fetchone()[0])
        return int(self._db.execute("SELECT COUNT(*) FROM cells WHERE claim_id = ?", (claim_id,)).fetchone()[0])

    def rows(self, claim_id: str | None = None) -> list[dict[str, Any]]:
        """Every stored cell as a dict (result and config as JSON text), ordered by claim, stage and label."""
        cols = [
            "claim_id",
            "config_hash",
            "seeds",
            "revision",
            "label",
            "stage",
            "config",
            "result",
            "runtime_s",
            "host",
            "executor",
            "finished_at",
        ]
        sql = f"SELECT {', '.join(cols)} FROM cells"
        args: tuple[Any, ...] = ()
        if claim_id is not None:
            sql, args = sql + " WHERE claim_id = ?", (claim_id,)
        return [dict(zip(cols, r)) for r in self._db.execute(sql + " ORDER BY claim_id, stage, label, seeds", args)]

    # ----------------------------------------------------------------------------------------------- plans

    def record_plan(
        self, claim_id: str, scale: str, revision: str, stages: list[list[tuple[str, Sequence[int]]]]
    ) -> None:
        """A run of this grid starts: store every stage's cell keys; the run's clock (for the ETA) starts now."""
        now = time.time()
        keys = [[[h, seeds_text(s)] for h, s in stage] for stage in stages]
        self._db.execute(
            "INSERT INTO plans VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (claim_id, scale, revision) DO UPDATE SET "
            "stages = excluded.stages, total = excluded.total, started_at = excluded.started_at, "
            "updated_at = excluded.updated_at",
            (claim_id, scale, revision, json.dumps(keys), sum(len(s) for s in keys), now, now),
        )

    def update_plan_stage(
        self, claim_id: str, scale: str, revision: str, stage: int, keys: Sequence[tuple[str, Sequence[int]]]
    ) -> None:
        """Replace a follow-up stage's worst-case keys by its actual ones (known once earlier stages finished)."""
        row = self._db.execute(
            "SELECT stages FROM plans WHERE claim_id = ? AND scale = ? AND revision = ?", (claim_id, scale, revision)
        ).fetchone()
        if row is None:
            return
        stages = json.loads(row[0])
        while len(stages) <= stage:
            stages.append([])
        stages[stage] = [[h, seeds_text(s)] for h, s in keys]
        self._db.execute(
            "UPDATE plans SET stages = ?, total = ?, updated_at = ? WHERE claim_id = ? AND scale = ? AND revision = ?",
            (json.dumps(stages), sum(len(s) for s in stages), time.time(), claim_id, scale, revision),
        )

    def status(self) -> list[PlanStatus]:
        """Every planned grid: cells done of total and an ETA.

        The ETA divides the cells still to run by the rate of the latest run (cells it finished per second since
        it started, until its last finished cell); before a run finishes a cell, by the mean runtime of the
        stored cells (one worker); None when no cell is stored yet.
        """
        out = []
        plans = self._db.execute(
            "SELECT claim_id, scale, revision, stages, total, started_at FROM plans ORDER BY claim_id, scale, revision"
        ).fetchall()
        for claim_id, scale, revision, stages, total, started in plans:
            keys = {(h, s) for stage in json.loads(stages) for h, s in stage}
            rows = [
                r
                for r in self._db.execute(
                    "SELECT config_hash, seeds, runtime_s, finished_at FROM cells WHERE claim_id = ? AND revision = ?",
                    (claim_id, revision),
                )
                if (r[0], r[1]) in keys
            ]
            done, spent = len(rows), sum(r[2] for r in rows)
            last = max((r[3] for r in rows), default=None)
            this_run = [r for r in rows if r[3] >= started]
            remaining = max(total - done, 0)
            eta: float | None = None
            if remaining == 0:
                eta = 0.0
            elif this_run and last is not None and last > started:
                eta = remaining * (last - started) / len(this_run)
            elif done:
                eta = remaining * spent / done
            out.append(PlanStatus(claim_id, scale, revision, done, total, spent, eta, started, last))
        return out


def merge_stores(target: str | os.PathLike, sources: Sequence[str | os.PathLike]) -> dict[str, int]:
    """Copy every cell and plan of ``sources`` into ``target`` (created if missing, with its directory); a cell
    already in the target is kept. Every source is checked (read-only: a source is never written) before the
    target is made, and a target this call created is removed again if the merge fails. Returns
    ``{"cells_added": ..., "plans_added": ..., "cells": <rows in the target>}``."""
    for src in sources:
        check_store(src)  # a missing file included
    target = Path(target)
    folders, new_target = files.missing_folders(target.parent), not target.exists()
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise NotAStoreError(
                f"cannot create the folder {str(target.parent)!r} of the merged store {str(target)!r}: "
                f"{exc.strerror or exc}"
            ) from None
        with ResultStore(target) as dst:
            counts = _merge_into(dst, target, sources)
    except BaseException:
        if new_target:
            _remove_store(target)
        files.remove_empty_folders(folders)
        raise
    return counts


def _merge_into(dst: ResultStore, target: Path, sources: Sequence[str | os.PathLike]) -> dict[str, int]:
    """:func:`merge_stores` into the open store ``dst`` (at ``target``)."""
    added_cells = added_plans = 0
    db = dst._db
    for src in sources:
        if Path(src).resolve() == target.resolve():
            continue
        db.execute("ATTACH DATABASE ? AS src", (str(src),))
        try:
            db.execute("BEGIN")
            added_cells += db.execute("INSERT OR IGNORE INTO cells SELECT * FROM src.cells").rowcount
            added_plans += db.execute("INSERT OR IGNORE INTO plans SELECT * FROM src.plans").rowcount
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise NotAStoreError(f"cannot merge the store {str(src)!r} into {str(target)!r}: {exc}") from None
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
            db.execute("DETACH DATABASE src")
    return {"cells_added": added_cells, "plans_added": added_plans, "cells": dst.count()}


def _remove_store(path: Path) -> None:
    """Remove the store ``path`` with SQLite's files beside it (a failed merge's new target)."""
    for f in (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm", "-journal"))):
        with contextlib.suppress(FileNotFoundError):
            f.unlink()
