"""A sweep session: the executor, the results store, the shard and the code revision that grid claims run
with (``tvk report --executor ... --shard ...`` opens one around the claims; docs/running_at_scale.md).

:func:`run_grid` is what ``Grid.observe`` does: for each stage, look the cells up in the store, run the missing
ones of this job's shard with the session's executor (each stored as it finishes), read every cell back from
the store and, once all stages are complete, aggregate. Without a session it runs in-process with a private
in-memory store, which is the toolkit's behaviour before sweeps existed.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verify.runtime.jsonable import canonical_json
from verify.runtime.provenance import code_revision

from .cells import Cell, CellResult, IncompleteGrid, decode
from .executors import (
    EXECUTORS,
    Executor,
    ResultCallback,
    check_gpus_per_cell,
    check_ray_address,
    check_workers,
    make_executor,
)
from .store import CellEntry, ResultStore, seeds_text

if TYPE_CHECKING:
    from verify.runtime.protocol import Observation, RunContext

    from .grid import Grid

__all__ = ["SweepSession", "current_session", "in_shard", "parse_shard", "run_grid", "sweep_session"]

_CURRENT: contextvars.ContextVar[SweepSession | None] = contextvars.ContextVar("tvk_sweep_session", default=None)


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"I/N"`` -> (I, N) with 0 <= I < N (this job runs the cells whose index in their stage is I mod N)."""
    if text is None:
        return None
    try:
        i, n = (int(part) for part in str(text).split("/"))
    except ValueError:
        raise ValueError(f"--shard must look like I/N (e.g. 0/4), got {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise ValueError(f"--shard I/N needs N >= 1 and 0 <= I < N, got {text!r}")
    return i, n


def in_shard(index: int, shard: tuple[int, int] | None) -> bool:
    """Whether the cell at ``index`` of its stage belongs to ``shard`` (round robin; every cell without one)."""
    return shard is None or index % shard[1] == shard[0]


@dataclass
class SweepSession:
    """What grid claims run with: executor, store, revision, optional shard, a log and per-claim statistics."""

    executor: Executor
    store: ResultStore
    revision: str
    shard: tuple[int, int] | None = None
    log: Callable[[str], None] = _stderr
    stats: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class SweepOptions:
    """How a report runs its grid claims (``tvk report`` options; docs/running_at_scale.md).

    Parameters
    ----------
    executor : {'auto', 'local', 'processes', 'ray'}
        Where cells run (:func:`verify.sweep.executors.make_executor`); ``'auto'`` (the default) is resolved by the
        report: with more than one report job each grid claim runs on one job's worker, its cells one after another,
        beside the other claims (:func:`verify.report.run.run_report`); a grid claim left to the report's own
        process (a selection of one grid claim) runs on one process per job (:meth:`resolved`); with one job, in
        this process.
    ray_address : str or None
        The Ray cluster for ``executor='ray'`` (None: a local instance).
    workers : int or None
        Worker processes (None: the executor's default).
    gpus_per_cell : float or None
        GPUs a Ray cell asks for.
    shard : str or None
        ``"I/N"``: run only job I's share of every grid (merged later with ``tvk sweep merge``).
    confirm_cost : bool
        Run a full-scale selection whose estimated wall time is above an hour.
    """

    executor: str = "auto"
    ray_address: str | None = None
    workers: int | None = None
    gpus_per_cell: float | None = None
    shard: str | None = None
    confirm_cost: bool = False

    def check(self) -> None:
        """Refuse options that cannot work before anything runs: an unknown executor, ``ray_address`` without the
        ray executor, a Ray head that does not answer (:func:`verify.sweep.executors.check_ray_address`), a bad
        shard, ``workers`` below 1, ``gpus_per_cell`` not in (0, 1] nor a whole number (NaN included), whichever
        executor runs.

        Raises
        ------
        ValueError
            Naming the option.
        """
        if self.executor not in ("auto", *EXECUTORS):
            raise ValueError(f"--executor must be one of auto, {', '.join(EXECUTORS)}, got {self.executor!r}")
        if self.ray_address is not None:
            if self.executor != "ray":
                raise ValueError("--ray-address needs --executor ray")
            check_ray_address(self.ray_address)
        if self.shard is not None:
            parse_shard(self.shard)
        check_workers(self.workers)  # also when this run's executor does not use them
        check_gpus_per_cell(self.gpus_per_cell)

    def resolved(self, jobs: int) -> SweepOptions:
        """These options with ``executor='auto'`` made concrete for a report of ``jobs`` worker processes: the
        ``processes`` executor with ``workers`` (default ``jobs``) when ``jobs > 1``, else ``local``."""
        if self.executor != "auto":
            return self
        if jobs > 1:
            return replace(self, executor="processes", workers=self.workers or jobs)
        return replace(self, executor="local")

    def session(self, store: str | Path | None, log: Callable[[str], None] = _stderr) -> Any:
        """:func:`sweep_session` with these options, keeping cells in ``store`` (``'auto'`` runs them here)."""
        return sweep_session(
            "local" if self.executor == "auto" else self.executor,
            store=store,
            shard=self.shard,
            workers=self.workers,
            ray_address=self.ray_address,
            gpus_per_cell=self.gpus_per_cell,
            log=log,
        )


@contextmanager
def sweep_session(
    executor: str | Executor = "local",
    *,
    store: str | Path | None = None,
    shard: str | tuple[int, int] | None = None,
    workers: int | None = None,
    ray_address: str | None = None,
    gpus_per_cell: float | None = None,
    revision: str | None = None,
    log: Callable[[str], None] = _stderr,
) -> Iterator[SweepSession]:
    """Open a session for the grid claims run inside the ``with`` block.

    Parameters
    ----------
    executor : ``local`` | ``processes`` | ``ray`` or an :class:`Executor`
    store : path of the SQLite store (None: in memory, nothing kept)
    shard : ``"I/N"`` or (I, N): run only this job's share of every grid
    workers, ray_address, gpus_per_cell : see :func:`verify.sweep.executors.make_executor`
    revision : the code revision keying stored cells (default :func:`verify.runtime.provenance.code_revision`)
    """
    shard_t = parse_shard(shard) if isinstance(shard, str) else shard
    if shard_t is not None:
        parse_shard(f"{shard_t[0]}/{shard_t[1]}")
    ex = (
        executor
        if isinstance(executor, Executor)
        else make_executor(executor, workers=workers, ray_address=ray_address, gpus_per_cell=gpus_per_cell)
    )
    db: ResultStore | None = None
    try:
        db = ResultStore(":memory:" if store is None else store)
        rev = revision or ("in-memory" if store is None else code_revision())
        sess = SweepSession(ex, db, rev, shard_t, log)
        token = _CURRENT.set(sess)
        try:
            yield sess
        finally:
            _CURRENT.reset(token)
    finally:
        if db is not None:
            db.close()
        ex.close()


def current_session() -> SweepSession | None:
    """The innermost open :func:`sweep_session`, or None."""
    return _CURRENT.get()


def run_grid(grid: Grid, config: Any, ctx: RunContext) -> Observation:
    """Observe a grid claim: run its missing cells, then aggregate the stored results (module docstring).

    Raises
    ------
    IncompleteGrid
        When cells of another shard are not in the store yet (the report shows the claim as inconclusive).
    """
    sess = current_session()
    if sess is None:
        with sweep_session(log=lambda msg: None) as private:
            return _run(grid, config, ctx, private)
    return _run(grid, config, ctx, sess)


def _keys(grid: Grid, cells: list[Cell]) -> list[tuple[str, tuple[int, ...]]]:
    return [(grid.key(c), c.seeds) for c in cells]


def _store_callback(grid: Grid, sess: SweepSession, stage: int, stats: dict[str, Any]) -> ResultCallback:
    """``on_result`` of the executors: store the finished cell at once (its own transaction) and count it."""

    def on_result(cell: Cell, text: str, runtime_s: float, host: str) -> None:
        sess.store.put(
            CellEntry(
                grid.claim_id,
                grid.key(cell),
                cell.seeds,
                sess.revision,
                label=cell.label,
                stage=stage,
                config=canonical_json(cell.config),
                result=text,
                runtime_s=runtime_s,
                host=host,
                executor=sess.executor.name,
            )
        )
        stats["executed"] += 1

    return on_result


def _run_stage(
    grid: Grid, cells: list[Cell], stage: int, ctx: RunContext, sess: SweepSession, stats: dict[str, Any]
) -> list[CellResult]:
    """Run this job's missing cells of one stage, then read the whole stage back from the store."""
    cid, keys = grid.claim_id, _keys(grid, cells)
    if len(set(keys)) != len(keys):
        raise ValueError(f"{cid}: stage {stage} has two cells with the same configuration and seeds")
    have = sess.store.get(cid, keys, sess.revision)
    stored = [(h, seeds_text(s)) in have for h, s in keys]
    todo = [c for j, c in enumerate(cells) if not stored[j] and in_shard(j, sess.shard)]
    stats["stored_before"] += sum(stored)
    if todo:
        sess.log(
            f"  {cid}: stage {stage}: {len(todo)} of {len(cells)} cells to run on {sess.executor.name}"
            f" ({sum(stored)} in the store)"
        )
    sess.executor.run_cells(grid.run, todo, ctx, _store_callback(grid, sess, stage, stats))
    have = sess.store.get(cid, keys, sess.revision)
    found = [have.get((h, seeds_text(s))) for h, s in keys]
    missing = [c.label for c, row in zip(cells, found) if row is None]
    if missing:
        stats["complete"] = False
        raise IncompleteGrid(
            f"{len(cells) - len(missing)}/{len(cells)} cells of stage {stage} are in the store (this job: shard "
            f"{stats.get('shard', '-')}); missing e.g. {missing[0]!r}. Merge the shards' stores "
            "(`tvk sweep merge`) and run `tvk report` on the merged store for the verdict"
        )
    return [CellResult(c, decode(row.result), row.runtime_s) for c, row in zip(cells, found) if row is not None]


def _run(grid: Grid, config: Any, ctx: RunContext, sess: SweepSession) -> Observation:
    cid, store, rev = grid.claim_id, sess.store, sess.revision
    store.record_plan(cid, ctx.scale, rev, [_keys(grid, stage) for stage in grid.plan(config)])
    stats: dict[str, Any] = {"cells": 0, "seeds": 0, "executed": 0, "stored_before": 0, "executor": sess.executor.name}
    if sess.shard is not None:
        stats["shard"] = f"{sess.shard[0]}/{sess.shard[1]}"
    sess.stats[cid] = stats
    results = _run_stage(grid, list(grid.cells(config)), 0, ctx, sess, stats)
    for stage, followup in enumerate(grid.followups, 1):
        cells = list(followup(config, results))
        store.update_plan_stage(cid, ctx.scale, rev, stage, _keys(grid, cells))
        results += _run_stage(grid, cells, stage, ctx, sess, stats)
    stats.update(cells=len(results), seeds=sum(len(r.cell.seeds) for r in results), complete=True)
    return grid.aggregate(config, results)
