"""Run claims and write the verification report: ``results.json``, ``report.md``, ``report.html`` and
``figures/*.png``, all rendered from the claim records.

The report directory is a transaction (docs/report.md): a run holds a lock on it, appends each finished record
to ``results.jsonl``, stages the report's files in a temporary directory inside it and swaps them in only at the
end, so a run that fails or is interrupted leaves the previous report as it was.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from verify.claims import RunContext, registry, run_claim, select
from verify.claims.base import claim_module, shared_unit
from verify.claims.external import _LOADED as EXTERNAL_SOURCES  # the claim modules loaded here, for the workers to load
from verify.report import directory
from verify.report.diff import diff_records, load_records
from verify.report.directory import (
    CHECKPOINT_DIR,
    JOURNAL_NAME,
    DirectoryLockedError,
    Journal,
    JournalWrapper,
    ReportDirectoryError,
    prepare_directory,
)
from verify.report.figures import BackgroundFigures, FigureLedger, check_formats, render_figures
from verify.report.plan import work_unit
from verify.report.pool import (
    KIND_SECONDS,
    ClaimEnvironmentError,
    WorkerError,
    WorkerSetup,
    default_jobs,
    expected_runtimes,
    run_in_workers,
    schedule,
    work_units,
)
from verify.report.render import render_html, render_markdown, result_record, results_csv, results_json
from verify.runtime import files
from verify.runtime.claim_run import keeping_finished, log_to
from verify.runtime.cores import cpu_cores
from verify.runtime.device import resolve_device
from verify.runtime.options import RunOptions
from verify.runtime.provenance import git_revision
from verify.runtime.selection import no_match_message
from verify.sweep import STORE_NAME, grid_of, grid_read_by
from verify.sweep.confirm import confirm_cost
from verify.sweep.session import SweepOptions

__all__ = ["ReportError", "render_html", "render_markdown", "run_report"]

REPORT_FILES = ("figures", "results.json", "results.csv", "report.md", "report.html")  # swapped in, in this order
MAX_JOBS_PER_CORE = 4  # -j above this many worker processes per core is refused
#: With the default -j, a selection whose claims are expected to take less than this (seconds, as scheduled by
#: :func:`verify.report.pool.schedule`) runs here without workers: starting them costs a few seconds.
MIN_PARALLEL_S = 10.0


DEFAULT_OPTIONS = RunOptions(progress=True)
DEFAULT_SWEEP = SweepOptions()


class ReportError(RuntimeError):
    """Nothing to report (no claim matches) or the report cannot be produced."""


class _FigureJournal(JournalWrapper):
    """A report run's journal that also hands each finished record to a :class:`BackgroundFigures`."""

    def __init__(self, journal: Any, background: BackgroundFigures) -> None:
        super().__init__(journal)
        self.background = background

    def append(self, record: dict[str, Any]) -> None:
        self.journal.append(record)
        self.background.submit(record)


def _run_one(
    claim: Any, number: str, ctx: RunContext, session: Any, log: Callable[[str], None], journal: Journal | None
) -> dict:
    """Run ``claim`` here, log its start and finish as ``[number] ...``, journal its record and return it."""
    log(f"[{number}] {claim.id} ({claim.kind}) ...")
    try:
        rec = run_claim(claim, ctx).to_json()
    except OSError as exc:  # disk full, permissions: nothing to do with the claim, the run stops
        raise _claim_os_error(claim.id, exc) from exc
    if claim.id in session.stats:
        rec["metadata"]["sweep"] = session.stats.pop(claim.id)
    _finish(rec, number, log, journal)
    return rec


def _claim_os_error(claim_id: str, exc: OSError) -> ReportDirectoryError:
    return ReportDirectoryError(
        f"claim {claim_id} stopped on an operating-system error: {exc}; the run is aborted and the "
        "previous report is unchanged"
    )


def _finish(rec: dict, number: str, log: Callable[[str], None], journal: Journal | None) -> None:
    """Log a finished record as ``[number] id: verdict — reason (runtime)`` and append it to ``journal``."""
    log(f"[{number}] {rec['id']}: {rec['verdict']} — {rec['reason']} ({rec['metadata']['runtime_s']} s)")
    if journal is not None:
        try:
            journal.append(rec)
        except OSError as exc:
            raise ReportDirectoryError(
                f"cannot append to {journal.path}: {exc.strerror or exc}; the previous report is unchanged"
            ) from exc


def _run_claims(
    claims: list, ctx: RunContext, session: Any, log: Callable[[str], None], journal: Journal | None = None
) -> list[dict]:
    """Run ``claims`` one after another in ``session``, the claims that share a training run together
    (:func:`verify.report.pool.work_units` keyed by :func:`verify.claims.base.shared_unit`, each unit at the place of
    its first claim); one JSON record each, with the grid claims' sweep stats, appended to ``journal`` as it
    finishes, and returned in selection order. A finished shared run's checkpoint is kept until the unit's last claim
    has its record (:func:`verify.runtime.claim_run.keeping_finished`): a report interrupted in between resumes the
    run at its last step for the claims left instead of training it again."""
    number = {id(c): f"{i}/{len(claims)}" for i, c in enumerate(claims, 1)}
    done: dict[int, dict] = {}
    for unit in work_units(claims, lambda claim: shared_unit(claim, ctx.scale)):
        with keeping_finished():
            done.update((id(c), _run_one(c, number[id(c)], ctx, session, log, journal)) for c in unit)
    return [done[id(c)] for c in claims]


def _run_parallel(
    claims: list,
    ctx: RunContext,
    session: Any,
    log: Callable[[str], None],
    journal: Journal,
    *,
    jobs: int,
    runtimes: dict[str, float],
    min_seconds: float = 0.0,
    grids_in_pool: bool = False,
) -> list[dict]:
    """Run ``claims`` on ``jobs`` worker processes (:mod:`verify.report.pool`), then here those that must run here:
    claims that exist only in this process (not registered under their id), claims the workers could not import
    and, unless ``grids_in_pool``, the grid claims and the claims that read a grid's cells
    (:func:`verify.sweep.grid_read_by`: they share this process's sweep session, its store and its executor, and
    get the whole machine after the pool). With ``grids_in_pool`` a grid claim and the claims that read its cells
    form one unit of the pool (the grid first), run on one worker with the ``local`` executor on this session's
    store: their cells overlap with the other claims instead of waiting for the pool to end.

    Records are journalled as they finish (in finishing order) and returned in selection order, as
    :func:`_run_claims` returns them; log lines keep each claim's number in the selection. Fewer than two units of
    work, or work expected to take less than ``min_seconds``, run here without workers."""
    n = len(claims)
    number = {c.id: f"{i}/{n}" for i, c in enumerate(claims, 1)}
    known = registry()
    pooled = [c for c in claims if known.get(c.id) is c and (grids_in_pool or grid_read_by(c) is None)]
    pooled.sort(key=lambda c: grid_of(c) is None and grid_read_by(c) is not None)  # a grid before its readers
    by_id = {c.id: c for c in pooled}
    done: dict[str, dict] = {}

    def on_start(claim_id: str) -> None:
        log(f"[{number[claim_id]}] {claim_id} ({by_id[claim_id].kind}) ...")

    def on_done(claim_id: str, rec: dict) -> None:
        done[claim_id] = rec
        _finish(rec, number[claim_id], log, journal)

    def unit_key(claim: Any) -> Any:
        return work_unit(claim, ctx.scale, grids=grids_in_pool)

    units = [[c.id for c in unit] for unit in schedule(pooled, runtimes, unit_key)]
    workers = min(jobs, len(units))
    expected = sum(runtimes.get(c.id, KIND_SECONDS.get(c.kind, 1.0)) for c in pooled)
    if workers < 2 or expected < min_seconds:  # nothing to run side by side, or not worth starting workers
        return _run_claims(claims, ctx, session, log, journal)
    threads = max(1, cpu_cores() // workers)
    here = n - len(pooled)
    log(
        f"running {len(pooled)} claim(s) on {workers} worker process(es), {threads} thread(s) each"
        + (
            f"; {here} claim(s) ("
            + (
                "claims defined only here"
                if grids_in_pool
                else "grid claims and their readers, or claims defined only here"
            )
            + ") run here afterwards"
            if here
            else ""
        )
    )
    setup = WorkerSetup(
        threads=threads,
        context=ctx,
        sources=tuple(EXTERNAL_SOURCES),
        modules=_claim_modules(pooled),
        store=session.store.path if grids_in_pool and session.store.path != ":memory:" else None,
        revision=session.revision,
    )
    try:
        run_in_workers(units, workers, setup, on_start=on_start, on_done=on_done, log=log)
    except ClaimEnvironmentError as exc:
        raise _claim_os_error(exc.claim_id, exc) from exc
    except WorkerError as exc:
        raise ReportError(str(exc)) from exc
    pooled_ids = set(done)
    records = []
    with keeping_finished():  # claims run here may share a run too (a module the workers could not import)
        for claim in claims:
            if claim.id in pooled_ids and by_id.get(claim.id) is claim:
                records.append(done[claim.id])
            else:  # a grid claim, one only this process has, or one a worker could not find
                records.append(_run_one(claim, number[claim.id], ctx, session, log, journal))
    return records


def _claim_modules(claims: list) -> tuple[str, ...]:
    """The modules outside the built-in claims that define ``claims``: a worker imports them to register them."""
    mods = {claim_module(c) for c in claims}
    return tuple(sorted(m for m in mods if m and m != "__main__" and not m.startswith("verify.")))


def _write_report(
    stage: Path,
    out: Path,
    records: list[dict],
    meta: dict,
    output: ReportOutput,
    background: BackgroundFigures | None = None,
    log: Callable[[str], None] | None = None,
) -> None:
    """Render every report file into ``stage``, then swap them into ``out`` (:func:`verify.report.directory.swap_in`). An
    operating-system error (disk full, permissions) becomes a :class:`ReportDirectoryError` naming the path
    and ``out`` keeps its previous report. The figures of the records ``background`` has rendered while the claims
    ran are taken from it; the rest are rendered here, into the same ledger (no two figures share a file name). A
    figure that cannot be drawn is skipped: ``log`` (default: stderr) says which, and so does its claim's section."""
    try:
        figdir = stage / "figures"
        done = background.collect() if background is not None else {}
        skip = background.submitted if background is not None else set()
        ledger = background.ledger if background is not None else FigureLedger()
        rest = render_figures(
            [r for r in records if r["id"] not in skip], figdir, formats=output.figure_formats, log=log, ledger=ledger
        )
        figures = {r["id"]: names for r in records if (names := done.get(r["id"]) or rest.get(r["id"]))}
        skipped = ledger.skipped
        texts = {
            "results.json": results_json(records, meta),
            "results.csv": results_csv(records),
            "report.md": render_markdown(records, meta, figures, skipped_figures=skipped),
            "report.html": render_html(
                records,
                meta,
                figures,
                self_contained=output.self_contained,
                figures_dir=figdir,
                report_dir=out,
                skipped_figures=skipped,
            ),
        }
        for name, text in texts.items():
            files.write_text(stage / name, text)
    except OSError as exc:
        where = str(exc.filename).replace(str(stage), str(out)) if exc.filename else str(out)
        raise ReportDirectoryError(
            f"cannot write the report file {where!r}: {exc.strerror or exc}; the previous report in {str(out)!r} "
            "is unchanged"
        ) from exc
    try:
        directory.swap_in(stage, out, REPORT_FILES)
    except OSError as exc:
        raise ReportDirectoryError(
            f"cannot move the new report into {str(out)!r} ({exc}); the previous report is unchanged"
        ) from exc


@dataclass(frozen=True)
class ReportOutput:
    """How the report's files are written.

    Parameters
    ----------
    self_contained : bool
        Embed the figures in ``report.html`` (one file to mail or attach).
    figure_formats : tuple of str
        Any of 'png', 'pdf', 'svg' (PNG is always written for the HTML page): vector copies for papers.
    """

    self_contained: bool = False
    figure_formats: tuple[str, ...] = ("png",)


DEFAULT_OUTPUT = ReportOutput()


@dataclass(frozen=True)
class CheckedSettings:
    """The settings of a report after :func:`check_report_settings`: the number of worker processes (``auto_jobs``:
    chosen by the default), the figure formats, the sweep options resolved for ``jobs``, whether grid claims run in
    the job pool, and the run ``compare`` names (None: none)."""

    jobs: int
    auto_jobs: bool
    formats: tuple[str, ...]
    sweep: SweepOptions
    grids_in_pool: bool
    previous: tuple[str, dict[str, dict]] | None


def check_report_settings(
    out: str | Path,
    *,
    scale: str,
    options: RunOptions,
    sweep: SweepOptions,
    output: ReportOutput,
    jobs: int | None,
    archive: str | Path | None,
    compare: str | Path | None,
) -> CheckedSettings:
    """Every check :func:`run_report` makes before it selects a claim (its Raises: the output path not empty,
    ``jobs``, the device, the dtype, the figure formats, the sweep options, ``compare`` read, ``archive`` writable);
    ``tvk report --within`` makes them too when nothing fits its limit, so a mistyped option fails alike."""
    if not str(out).strip():
        raise ReportError("--out must name a directory, got an empty path")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ReportError(f"-j/--jobs must be an integer >= 1, got {jobs!r}")
    dev = resolve_device(options.device)  # a CUDA request on a machine without CUDA fails here, before any claim runs
    auto_jobs = jobs is None
    if jobs is None:
        jobs = default_jobs(dev.type, scale)
    if jobs > MAX_JOBS_PER_CORE * cpu_cores():
        raise ReportError(
            f"-j/--jobs {jobs} is above the limit {MAX_JOBS_PER_CORE * cpu_cores()} ({MAX_JOBS_PER_CORE} x the "
            f"{cpu_cores()} cores here): each worker process holds its own torch and claims (a few hundred MB)"
        )
    try:
        formats = check_formats(output.figure_formats)
        options.dtype_name(dev.type)  # tf32 on the CPU is refused before any claim runs
        sweep.check()  # an unreachable Ray head is refused here, not as an inconclusive grid claim
        # 'auto' with jobs > 1: grid claims run in the job pool, each on one worker (the processes executor, one
        # process per job, is what a grid claim left to this process uses: alone, or defined only here)
        grids_in_pool = sweep.executor == "auto" and sweep.shard is None
        sweep = sweep.resolved(jobs)
    except ValueError as exc:
        raise ReportError(str(exc)) from exc
    previous = _previous_run(compare)  # read (and refused) before any claim runs
    if archive is not None:  # as --out and --compare: an archive that cannot take records is refused now
        from verify.report.archive import check_archive_target

        check_archive_target(archive)
    return CheckedSettings(jobs, auto_jobs, formats, sweep, grids_in_pool, previous)


def run_report(
    out: str | Path,
    *,
    scale: str = "quick",
    only: str | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
    sweep: SweepOptions = DEFAULT_SWEEP,
    output: ReportOutput = DEFAULT_OUTPUT,
    jobs: int | None = 1,
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
    archive: str | Path | None = None,
    compare: str | Path | None = None,
) -> tuple[list[dict], dict]:
    """Run the selected claims and write the report into ``out``.

    ``compare`` names a previous run (a report directory, ``results.json`` or ``results.jsonl``, as ``tvk diff``
    takes): it is read before any claim runs (so it may be ``out`` itself) and the report gets a "Changes since"
    section, :func:`verify.report.diff.diff_records` of that run and this one.

    ``archive`` names a results archive (:mod:`verify.report.archive`): every finished record is merged into it
    (a newer record replaces an older one, never the reverse) and the report shows the archived verdicts of the
    other scale next to this run's.

    ``options`` (:class:`verify.runtime.options.RunOptions`) reaches every trainer of every claim: the device, the
    training dtype (``float64``, ``float32``, ``tf32`` or None for each trainer's own policy; every judged quantity
    is still evaluated in float64), progress bars, the seed offset and the memory-check override. Each record's
    ``metadata["training"]`` lists the device, dtype and seeds every training run actually used.

    Grid claims (:mod:`verify.sweep`) run their cells as ``sweep`` says (``local``, ``processes``, ``ray`` at an
    address) and keep them in ``out/sweep.sqlite``, so a rerun skips finished cells; with a shard "I/N" only grid
    claims run, each on its share of cells; at full scale the estimated cost is printed first and a run above an
    hour needs ``confirm_cost`` (docs/running_at_scale.md).

    ``jobs`` > 1 runs the claims on that many worker processes (:mod:`verify.report.pool`; docs/report.md,
    "Parallel claims"), longest expected first, with ``cores // jobs`` torch threads each. With the ``auto``
    executor (the default) a grid claim is a unit of the pool like any other (its cells run one after another on
    its worker and go to ``out/sweep.sqlite``; a claim that reads its cells follows it on that worker); with an
    executor named explicitly, grid claims run in this process after the pool, on that executor. Claims that are
    not registered under their id run in this process afterwards. The records, ``results.json`` and the
    report are in selection order as with ``jobs=1`` (which runs everything here, one claim after another); the
    journal is in finishing order. None: :func:`verify.report.pool.default_jobs` (the number of cores for a quick
    report on the CPU, else 1), and no workers for a selection expected to take less than :data:`MIN_PARALLEL_S`.

    The directory (docs/report.md) is created once the claims are selected and locked for the run (a second
    run into it raises :class:`ReportError`); each finished record is appended to ``results.jsonl``; the report's
    files are staged in a temporary directory inside ``out`` and swapped in at the end, replacing the previous
    report's files (``figures/`` as a whole, so figures of claims not in this report go). Training claims
    checkpoint into ``out/.checkpoints`` and a rerun resumes from them.

    Returns
    -------
    (records, meta) : the JSON records written to ``results.json`` and the report metadata.

    Raises
    ------
    ReportDirectoryError
        If ``out`` cannot be created or written, or a claim stops on an operating-system error (disk full,
        permissions); the message names the path and the previous report is left as it was.
    ReportError
        If ``out`` is empty, ``jobs`` is not an integer in [1, 4 x cores] (:data:`MAX_JOBS_PER_CORE`), the dtype
        needs a device the run does not use, the sweep options cannot work (an unreachable ``ray_address``), no claim
        matches ``only`` at this scale, another run holds the directory's lock, or a worker process died; or
        ``compare`` holds no readable results (before any claim runs).
    ArchiveError
        A ValueError: ``archive`` is not a directory, or cannot be created or written (before any claim runs).
    """
    checked = check_report_settings(
        out, scale=scale, options=options, sweep=sweep, output=output, jobs=jobs, archive=archive, compare=compare
    )
    jobs, sweep, previous = checked.jobs, checked.sweep, checked.previous
    claims = select(only, scale)  # type: ignore[arg-type]
    if sweep.shard is not None:
        claims = [c for c in claims if grid_of(c) is not None]
    if not claims:
        what = " grid" if sweep.shard is not None else ""
        raise ReportError(no_match_message(only, scale, what))
    out = prepare_directory(out)
    run = _ReportRun(
        out=out,
        claims=claims,
        ctx=RunContext(scale=scale, options=options, workdir=str(out / CHECKPOINT_DIR)),  # type: ignore[arg-type]
        only=only,
        sweep=sweep,
        output=replace(output, figure_formats=checked.formats),
        jobs=jobs,
        auto_jobs=checked.auto_jobs,
        grids_in_pool=checked.grids_in_pool,
        log=log,
        archive=str(archive) if archive else None,
        previous=previous,
    )
    try:
        with directory.directory_lock(out), log_to(log):
            for p in directory.remove_stale(out, out / CHECKPOINT_DIR):
                log(f"removed {p} (left by an interrupted run)")
            with directory.staging_directory(out) as stage:
                return run.execute(stage)
    except DirectoryLockedError as exc:  # only the lock raises it
        raise ReportError(str(exc)) from exc


def _previous_run(compare: str | Path | None) -> tuple[str, dict[str, dict]] | None:
    """``(path, records by id)`` of the run ``--compare`` names (:func:`verify.report.diff.load_records`), None
    without one; a :class:`ReportError` naming ``--compare`` when it holds no readable results."""
    if compare is None:
        return None
    if not str(compare).strip():
        raise ReportError("--compare must name a report directory or a results file, got an empty path")
    try:
        return str(compare), load_records(compare)
    except ValueError as exc:
        raise ReportError(f"--compare: {exc}") from exc


def changes_since(previous: tuple[str, dict[str, dict]], records: list[dict], out: str) -> dict[str, Any]:
    """The "Changes since" data of the report (``meta["compare"]``): :meth:`verify.report.diff.RunDiff.to_json` of
    the previous run's records against this run's, both in ``results.json``'s form (:func:`result_record`)."""
    path, old = previous
    new = {r["id"]: result_record(r) for r in records}
    return diff_records(old, new, path, out).to_json()


@dataclass(frozen=True)
class _ReportRun:
    """One :func:`run_report` once its claims are selected: run them, journal them, write the report."""

    out: Path
    claims: list
    ctx: RunContext
    only: str | None
    sweep: SweepOptions
    output: ReportOutput
    jobs: int
    auto_jobs: bool
    log: Callable[[str], None]
    grids_in_pool: bool = False
    archive: str | None = None
    previous: tuple[str, dict[str, dict]] | None = None

    def execute(self, stage: Path) -> tuple[list[dict], dict]:
        """Run the claims with ``out`` locked and ``stage`` made, then write the report from ``stage``."""
        out, claims, ctx, log = self.out, self.claims, self.ctx, self.log
        checkpoints = out / CHECKPOINT_DIR
        t0 = time.perf_counter()
        store = out / STORE_NAME if any(grid_of(c) is not None for c in claims) else None
        runtimes = expected_runtimes(out, ctx.scale) if self.jobs > 1 else {}  # before the journal starts afresh
        try:
            journal = Journal(out / JOURNAL_NAME, form=result_record)  # each line in results.json's form
        except OSError as exc:
            raise ReportDirectoryError(f"cannot write {str(out / JOURNAL_NAME)!r}: {exc.strerror or exc}") from exc
        if self.archive:  # each finished record also goes into the results archive (verify/report/archive.py)
            from verify.report.archive import ArchivingJournal

            journal = ArchivingJournal(journal, self.archive)
        # with workers, this process only waits for them: it draws each finished record's figures meanwhile
        background = BackgroundFigures(stage / "figures", self.output.figure_formats, log) if self.jobs > 1 else None
        if background is not None:
            journal = _FigureJournal(journal, background)
        with journal, self.sweep.session(store, log) as session:
            confirm_cost(claims, ctx.scale, ctx.device, session, confirm=self.sweep.confirm_cost, log=log)
            try:
                if self.jobs > 1:
                    records = _run_parallel(
                        claims,
                        ctx,
                        session,
                        log,
                        journal,
                        jobs=self.jobs,
                        runtimes=runtimes,
                        min_seconds=MIN_PARALLEL_S if self.auto_jobs else 0.0,
                        grids_in_pool=self.grids_in_pool,
                    )
                else:
                    records = _run_claims(claims, ctx, session, log, journal)
            except BaseException as exc:
                if background is not None:
                    background.cancel()
                what = "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped"
                log(
                    f"{what} after {journal.count} of {len(claims)} claims: their records are in {journal.path}; "
                    f"the previous report in {out} is unchanged"
                )
                raise
        with contextlib.suppress(OSError):
            checkpoints.rmdir()  # only removed when empty: unfinished runs keep their checkpoints
        meta = self.metadata(records, time.perf_counter() - t0)
        if self.archive:
            log(f"archive {self.archive}: " + ", ".join(f"{k}: {v}" for k, v in journal.outcome.items()))
            meta["archive"] = self.archive
        if self.previous is not None:
            meta["compare"] = changes_since(self.previous, records, str(out))
        _write_report(stage, out, records, meta, self.output, background, log)
        return records, meta

    def metadata(self, records: list[dict], runtime_s: float) -> dict[str, Any]:
        """The report's metadata (``results.json`` header, the report's first lines)."""
        options = self.ctx.options
        devices = sorted({str(r["metadata"]["device"]) for r in records})
        return {
            "scale": self.ctx.scale,
            "device": ",".join(devices),
            "generated": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "git_revision": git_revision(),
            "runtime_s": runtime_s,
            "only": self.only,
            "executor": self.sweep.executor,
            "shard": self.sweep.shard,
            "train_dtype": options.dtype or "each trainer's own policy (see each record's metadata.training)",
            "dtype": options.dtype,
            "seed_offset": options.seed_offset,
            "ignore_memory_check": options.ignore_memory_check,
            "command_line": list(sys.argv),
            "figure_formats": list(self.output.figure_formats),
            "self_contained": self.output.self_contained,
            "jobs": self.jobs,
        }
