"""Run claims and write the verification report: ``results.json``, ``report.md``, ``report.html`` and
``figures/*.png``, all rendered from the claim records.

The report directory is a transaction (docs/report.md): a run holds a lock on it, appends each finished record
to ``results.jsonl``, stages the report's files in a temporary directory inside it and swaps them in only at the
end, so a run that fails or is interrupted leaves the previous report as it was.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

from . import io
from .claims import RunContext, run_claim, select
from .device import resolve_device
from .figures import check_formats, render_figures
from .io import JOURNAL_NAME, DirectoryLockedError, Journal, ReportDirectoryError, prepare_directory
from .render import render_html, render_markdown, results_csv, results_json
from .sweep import STORE_NAME, grid_of, sweep_session
from .sweep.preflight import preflight
from .train import TRAIN_DTYPES, config_overrides

__all__ = ["run_report", "render_markdown", "render_html", "ReportError"]

REPORT_FILES = ("figures", "results.json", "results.csv", "report.md", "report.html")  # swapped in, in this order
CHECKPOINT_DIR = ".checkpoints"


class ReportError(RuntimeError):
    """Nothing to report (no claim matches) or the report cannot be produced."""


def _run_claims(
    claims: list, ctx: RunContext, session: Any, log: Callable[[str], None], journal: Journal | None = None
) -> list[dict]:
    """Run ``claims`` one after another in ``session``; one JSON record each, with the grid claims' sweep stats,
    appended to ``journal`` as it finishes."""
    records = []
    for i, claim in enumerate(claims, 1):
        log(f"[{i}/{len(claims)}] {claim.id} ({claim.kind}) ...")
        try:
            rec = run_claim(claim, ctx).to_json()
        except OSError as exc:  # disk full, permissions: nothing to do with the claim, the run stops
            raise ReportDirectoryError(
                f"claim {claim.id} stopped on an operating-system error: {exc}; the run is aborted and the "
                "previous report is unchanged"
            ) from exc
        if claim.id in session.stats:
            rec["metadata"]["sweep"] = session.stats.pop(claim.id)
        log(f"[{i}/{len(claims)}] {claim.id}: {rec['verdict']} — {rec['reason']} ({rec['metadata']['runtime_s']} s)")
        records.append(rec)
        if journal is not None:
            try:
                journal.append(rec)
            except OSError as exc:
                raise ReportDirectoryError(
                    f"cannot append to {journal.path}: {exc.strerror or exc}; the previous report is unchanged"
                ) from exc
    return records


def _write_report(
    stage: Path,
    out: Path,
    records: list[dict],
    meta: dict,
    *,
    self_contained: bool = False,
    figure_formats: tuple[str, ...] = ("png",),
) -> None:
    """Render every report file into ``stage``, then swap them into ``out`` (:func:`verify.io.swap_in`). An
    operating-system error (disk full, permissions) becomes a :class:`ReportDirectoryError` naming the path
    and ``out`` keeps its previous report."""
    try:
        figdir = stage / "figures"
        figures = render_figures(records, figdir, formats=figure_formats)
        texts = {
            "results.json": results_json(records, meta),
            "results.csv": results_csv(records),
            "report.md": render_markdown(records, meta, figures),
            "report.html": render_html(records, meta, figures, self_contained=self_contained, figures_dir=figdir),
        }
        for name, text in texts.items():
            io.write_text(stage / name, text)
    except OSError as exc:
        where = str(exc.filename).replace(str(stage), str(out)) if exc.filename else str(out)
        raise ReportDirectoryError(
            f"cannot write the report file {where!r}: {exc.strerror or exc}; the previous report in {str(out)!r} "
            "is unchanged"
        ) from exc
    try:
        io.swap_in(stage, out, REPORT_FILES)
    except OSError as exc:
        raise ReportDirectoryError(
            f"cannot move the new report into {str(out)!r} ({exc}); the previous report is unchanged"
        ) from exc


def run_report(
    out: str | Path,
    *,
    scale: str = "quick",
    only: str | None = None,
    device: str = "auto",
    progress: bool = True,
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
    executor: str = "local",
    ray_address: str | None = None,
    workers: int | None = None,
    gpus_per_cell: float | None = None,
    shard: str | None = None,
    confirm_cost: bool = False,
    dtype: str | None = None,
    ignore_memory_check: bool = False,
    self_contained: bool = False,
    figure_formats: tuple[str, ...] = ("png",),
) -> tuple[list[dict], dict]:
    """Run the selected claims and write the report into ``out``.

    Grid claims (:mod:`verify.sweep`) run their cells on ``executor`` (``local``, ``processes``, ``ray`` at
    ``ray_address``) and keep them in ``out/sweep.sqlite``, so a rerun skips finished cells; with ``shard`` =
    "I/N" only grid claims run, each on its share of cells; at full scale the estimated cost is printed first
    and a run above an hour needs ``confirm_cost`` (docs/running_at_scale.md).

    ``dtype`` ('float64', 'float32', 'tf32') replaces the training dtype of every polynomial-network run
    (:func:`verify.train.train`, through :func:`verify.train.config_overrides`); every judged quantity is still
    evaluated in float64. ``ignore_memory_check`` lets runs start whose estimated peak memory exceeds the device's
    free memory. Both are recorded in the report's metadata.

    ``self_contained`` embeds the figures in ``report.html`` (one file to mail or attach); ``figure_formats``
    (any of 'png', 'pdf', 'svg'; PNG is always written for the HTML page) adds vector copies for papers.

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
        If ``out`` is empty, no claim matches ``only`` at this scale, or another run holds the directory's lock.
    """
    if not str(out).strip():
        raise ReportError("--out must name a directory, got an empty path")
    dev = resolve_device(device)  # a CUDA request on a machine without CUDA fails here, before any claim runs
    try:
        formats = check_formats(figure_formats)
    except ValueError as exc:
        raise ReportError(str(exc)) from exc
    if dtype not in (None, *TRAIN_DTYPES):
        raise ReportError(f"--dtype must be one of {', '.join(TRAIN_DTYPES)}, got {dtype!r}")
    if dtype == "tf32" and dev.type != "cuda":
        raise ReportError(f"--dtype tf32 (TensorFloat-32 matrix products) needs a CUDA device, the run would use {dev}")
    claims = select(only, scale)  # type: ignore[arg-type]
    if shard is not None:
        claims = [c for c in claims if grid_of(c) is not None]
    if not claims:
        what = " grid" if shard is not None else ""
        raise ReportError(f"no{what} claim matches {only!r} at scale {scale!r}; `tvk list` shows the claim ids")
    out = prepare_directory(out)
    try:
        with io.directory_lock(out), io.log_to(log):
            for p in io.remove_stale(out, out / CHECKPOINT_DIR):
                log(f"removed {p} (left by an interrupted run)")
            with io.staging_directory(out) as stage:
                return _run_locked(
                    out,
                    stage,
                    claims,
                    scale=scale,
                    only=only,
                    device=device,
                    progress=progress,
                    log=log,
                    executor=executor,
                    ray_address=ray_address,
                    workers=workers,
                    gpus_per_cell=gpus_per_cell,
                    shard=shard,
                    confirm_cost=confirm_cost,
                    dtype=dtype,
                    ignore_memory_check=ignore_memory_check,
                    self_contained=self_contained,
                    formats=formats,
                )
    except DirectoryLockedError as exc:  # only the lock raises it
        raise ReportError(str(exc)) from exc


def _run_locked(
    out: Path,
    stage: Path,
    claims: list,
    *,
    scale: str,
    only: str | None,
    device: str,
    progress: bool,
    log: Callable[[str], None],
    executor: str,
    ray_address: str | None,
    workers: int | None,
    gpus_per_cell: float | None,
    shard: str | None,
    confirm_cost: bool,
    dtype: str | None,
    ignore_memory_check: bool,
    self_contained: bool,
    formats: tuple[str, ...],
) -> tuple[list[dict], dict]:
    """:func:`run_report` once ``out`` is locked and ``stage`` made: run the claims, journal them, write."""
    checkpoints = out / CHECKPOINT_DIR
    ctx = RunContext(scale=scale, device=device, progress=progress, workdir=str(checkpoints))  # type: ignore[arg-type]
    t0 = time.perf_counter()
    store = out / STORE_NAME if any(grid_of(c) is not None for c in claims) else None
    try:
        journal = Journal(out / JOURNAL_NAME)
    except OSError as exc:
        raise ReportDirectoryError(f"cannot write {str(out / JOURNAL_NAME)!r}: {exc.strerror or exc}") from exc
    with journal:
        with sweep_session(
            executor,
            store=store,
            shard=shard,
            workers=workers,
            ray_address=ray_address,
            gpus_per_cell=gpus_per_cell,
            log=log,
        ) as session:
            preflight(claims, scale, device, session, confirm=confirm_cost, log=log)  # type: ignore[arg-type]
            overrides = config_overrides(dtype=dtype, ignore_memory_check=ignore_memory_check or None)
            with overrides:
                try:
                    records = _run_claims(claims, ctx, session, log, journal)
                except BaseException as exc:
                    what = "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped"
                    log(
                        f"{what} after {journal.count} of {len(claims)} claims: their records are in {journal.path}; "
                        f"the previous report in {out} is unchanged"
                    )
                    raise
    try:
        checkpoints.rmdir()  # only removed when empty: unfinished runs keep their checkpoints
    except OSError:
        pass
    devices = sorted({str(r["metadata"]["device"]) for r in records})
    meta = {
        "scale": scale,
        "device": ",".join(devices),
        "generated": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "git_revision": records[0]["metadata"].get("git_revision"),
        "runtime_s": time.perf_counter() - t0,
        "only": only,
        "executor": executor,
        "shard": shard,
        "train_dtype": dtype or "default (float64 on CPU, float32 on CUDA)",
        "ignore_memory_check": ignore_memory_check,
        "command_line": list(sys.argv),
        "figure_formats": list(formats),
        "self_contained": self_contained,
    }
    _write_report(stage, out, records, meta, self_contained=self_contained, figure_formats=formats)
    return records, meta
