"""Run claims and write the verification report: ``results.json``, ``report.md``, ``report.html`` and
``figures/*.png``, all rendered from the claim records.

Every claim runs before anything is written, and each file is written atomically, so an interrupted
report leaves either the previous files or none, never a half-written one.
"""

from __future__ import annotations

import html
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from .claims import RunContext, run_claim, select
from .device import resolve_device
from .figures import render_figures
from .io import prepare_directory, write_text_atomic
from .sweep import STORE_NAME, grid_of, sweep_session
from .sweep.preflight import preflight
from .train import TRAIN_DTYPES, config_overrides

__all__ = ["run_report", "render_markdown", "render_html", "ReportError"]

VERDICT_ICON = {"pass": "PASS", "fail": "FAIL", "refuted": "REFUTED", "inconclusive": "INCONCLUSIVE"}


class ReportError(RuntimeError):
    """Nothing to report (no claim matches) or the report cannot be produced."""


def _fmt(value: Any, limit: int = 240) -> str:
    """A short human rendering of a record value (exact and float forms, long lists and dicts elided);
    the full value is always in results.json."""
    if isinstance(value, dict) and "float" in value:
        exact = str(value.get("exact", ""))
        if re.fullmatch(r"-?\d+", exact):
            text = exact
        else:
            text = f"{exact} ≈ {value['float']:.10g}" if exact else f"{value['float']:.10g}"
    elif isinstance(value, dict) and "exact" in value:
        text = str(value["exact"])
    elif isinstance(value, dict):
        items = [f"{k}: {_fmt(v, limit)}" for k, v in list(value.items())[:3]]
        text = "{" + ", ".join(items) + (", …" if len(value) > 3 else "") + "}"
    elif isinstance(value, float):
        text = f"{value:.10g}"
    elif isinstance(value, list):
        shown = ", ".join(_fmt(v, limit) for v in value[:4])
        text = f"[{shown}, …] ({len(value)} values)" if len(value) > 4 else f"[{shown}]"
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _sweep_text(sweep: dict) -> str:
    """How many cells a grid claim's verdict rests on, and where they came from."""
    text = (
        f"verdict rests on {sweep['cells']} cells ({sweep['seeds']} seed runs); {sweep['executed']} run now on "
        f"{sweep['executor']}, {sweep['stored_before']} from the results store"
    )
    if sweep.get("shard"):
        text += f"; shard {sweep['shard']}"
    return text + ("" if sweep.get("complete", True) else "; incomplete")


def _summary(records: list[dict]) -> Counter:
    return Counter(r["verdict"] for r in records)


def render_markdown(records: list[dict], meta: dict, figures: dict[str, list[str]]) -> str:
    """The Markdown report: summary, a table of claims, then one section per claim."""
    counts = _summary(records)
    lines = [
        "# Theory verification report",
        "",
        f"- scale: `{meta['scale']}`; device: `{meta['device']}`; claims: {len(records)}; "
        f"generated {meta['generated']}; git revision `{meta.get('git_revision') or 'unknown'}`",
        "- verdicts: " + ", ".join(f"{k} {counts.get(k, 0)}" for k in VERDICT_ICON),
        f"- total runtime: {meta['runtime_s']:.1f} s",
        f"- training dtype: {meta.get('train_dtype', 'default')}"
        + ("; memory check ignored" if meta.get("ignore_memory_check") else ""),
        "",
        "| claim | kind | verdict | predicted (theory/) | observed | tolerance |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        lines.append(
            f"| [`{r['id']}`](#{r['id'].replace('.', '').lower()}) | {r['kind']} | **{VERDICT_ICON[r['verdict']]}** | "
            f"{_fmt(r['predicted'])} | {_fmt(r['observed'])} | {r['tolerance']} |"
        )
    for r in records:
        lines += [
            "",
            f"## {r['id']}",
            "",
            f"*{r['source']}* — **{VERDICT_ICON[r['verdict']]}** ({r['kind']})",
            "",
            f"> {r['statement']}",
            "",
            f"- verdict reason: {r['reason']}",
            f"- predicted: {_fmt(r['predicted'])}",
            f"- observed: {_fmt(r['observed'])}",
            f"- tolerance: {r['tolerance']}",
            f"- runtime: {r['metadata']['runtime_s']} s; seeds: {r['metadata']['seeds'] or '-'}; device: {r['metadata']['device']}",
        ]
        if r["metadata"].get("sweep"):
            lines.append(f"- sweep: {_sweep_text(r['metadata']['sweep'])}")
        if r.get("refutes"):
            lines.append(f'- the source as printed: "{r["refutes"]}"; corrected statement: `{r["corrected_by"]}`')
        if r.get("counterexample"):
            lines.append("- counterexample: `" + json.dumps(r["counterexample"], default=str) + "`")
        for name in figures.get(r["id"], []):
            lines += ["", f"![{name}](figures/{name})"]
    return "\n".join(lines) + "\n"


def render_html(records: list[dict], meta: dict, figures: dict[str, list[str]]) -> str:
    """A self-contained HTML page with the same content as the Markdown report."""
    esc = html.escape
    counts = _summary(records)
    colors = {"pass": "#1a7f37", "fail": "#cf222e", "refuted": "#8250df", "inconclusive": "#9a6700"}
    rows = "".join(
        f"<tr><td><a href='#{esc(r['id'])}'><code>{esc(r['id'])}</code></a></td><td>{esc(r['kind'])}</td>"
        f"<td style='color:{colors[r['verdict']]};font-weight:bold'>{VERDICT_ICON[r['verdict']]}</td>"
        f"<td>{esc(_fmt(r['predicted']))}</td><td>{esc(_fmt(r['observed']))}</td><td>{esc(r['tolerance'])}</td></tr>"
        for r in records
    )
    sections = []
    for r in records:
        extra = ""
        if r.get("refutes"):
            extra += f"<p>The source as printed: “{esc(r['refutes'])}”; corrected statement: <code>{esc(r['corrected_by'])}</code></p>"
        if r.get("counterexample"):
            extra += f"<p>Counterexample: <code>{esc(json.dumps(r['counterexample'], default=str))}</code></p>"
        imgs = "".join(
            f"<img src='figures/{esc(n)}' alt='{esc(n)}' style='max-width:720px;display:block'>"
            for n in figures.get(r["id"], [])
        )
        sections.append(
            f"<section id='{esc(r['id'])}'><h2>{esc(r['id'])} <span style='color:{colors[r['verdict']]}'>"
            f"{VERDICT_ICON[r['verdict']]}</span></h2><p><em>{esc(r['source'])}</em> ({esc(r['kind'])})</p>"
            f"<blockquote>{esc(r['statement'])}</blockquote><ul><li>reason: {esc(r['reason'])}</li>"
            f"<li>predicted: {esc(_fmt(r['predicted']))}</li><li>observed: {esc(_fmt(r['observed']))}</li>"
            f"<li>tolerance: {esc(r['tolerance'])}</li><li>runtime: {r['metadata']['runtime_s']} s; seeds: "
            f"{esc(str(r['metadata']['seeds'] or '-'))}; device: {esc(str(r['metadata']['device']))}</li>"
            + (f"<li>sweep: {esc(_sweep_text(r['metadata']['sweep']))}</li>" if r["metadata"].get("sweep") else "")
            + f"</ul>{extra}{imgs}</section>"
        )
    summary = ", ".join(f"{k} {counts.get(k, 0)}" for k in VERDICT_ICON)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Theory verification report</title>"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top}"
        "blockquote{color:#444;border-left:3px solid #ccc;margin-left:0;padding-left:1em}</style></head><body>"
        f"<h1>Theory verification report</h1><p>scale <code>{esc(meta['scale'])}</code>, device <code>{esc(meta['device'])}</code>, "
        f"{len(records)} claims ({esc(summary)}), generated {esc(meta['generated'])}, git revision "
        f"<code>{esc(str(meta.get('git_revision') or 'unknown'))}</code>, runtime {meta['runtime_s']:.1f} s, "
        f"training dtype {esc(str(meta.get('train_dtype', 'default')))}"
        f"{'; memory check ignored' if meta.get('ignore_memory_check') else ''}</p>"
        "<table><tr><th>claim</th><th>kind</th><th>verdict</th><th>predicted (theory/)</th><th>observed</th><th>tolerance</th></tr>"
        f"{rows}</table>{''.join(sections)}</body></html>\n"
    )


def _run_claims(claims: list, ctx: RunContext, session: Any, log: Callable[[str], None]) -> list[dict]:
    """Run ``claims`` one after another in ``session``; one JSON record each, with the grid claims' sweep stats."""
    records = []
    for i, claim in enumerate(claims, 1):
        log(f"[{i}/{len(claims)}] {claim.id} ({claim.kind}) ...")
        rec = run_claim(claim, ctx).to_json()
        if claim.id in session.stats:
            rec["metadata"]["sweep"] = session.stats.pop(claim.id)
        log(f"[{i}/{len(claims)}] {claim.id}: {rec['verdict']} — {rec['reason']} ({rec['metadata']['runtime_s']} s)")
        records.append(rec)
    return records


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

    Returns
    -------
    (records, meta) : the JSON records written to ``results.json`` and the report metadata.

    Raises
    ------
    ReportDirectoryError
        If ``out`` cannot be written (checked before any claim runs).
    ReportError
        If no claim matches ``only`` at this scale.
    """
    dev = resolve_device(device)  # a CUDA request on a machine without CUDA fails here, before any claim runs
    if dtype not in (None, *TRAIN_DTYPES):
        raise ReportError(f"--dtype must be one of {', '.join(TRAIN_DTYPES)}, got {dtype!r}")
    if dtype == "tf32" and dev.type != "cuda":
        raise ReportError(f"--dtype tf32 (TensorFloat-32 matrix products) needs a CUDA device, the run would use {dev}")
    out = prepare_directory(out)
    claims = select(only, scale)  # type: ignore[arg-type]
    if shard is not None:
        claims = [c for c in claims if grid_of(c) is not None]
    if not claims:
        what = " grid" if shard is not None else ""
        raise ReportError(f"no{what} claim matches {only!r} at scale {scale!r}; `tvk list` shows the claim ids")
    ctx = RunContext(scale=scale, device=device, progress=progress, workdir=str(out / ".checkpoints"))  # type: ignore[arg-type]
    t0 = time.perf_counter()
    records = []
    store = out / STORE_NAME if any(grid_of(c) is not None for c in claims) else None
    with sweep_session(
        executor,
        store=store,
        shard=shard,
        workers=workers,
        ray_address=ray_address,
        gpus_per_cell=gpus_per_cell,
        log=log,
    ) as session:
        preflight(claims, scale, device, session, confirm=confirm_cost, log=log)
        overrides = config_overrides(dtype=dtype, ignore_memory_check=ignore_memory_check or None)
        with overrides:
            records = _run_claims(claims, ctx, session, log)
    try:
        (out / ".checkpoints").rmdir()  # only removed when empty: unfinished runs keep their checkpoints
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
    }
    figures = render_figures(records, out / "figures")
    texts = {
        "results.json": json.dumps(records, indent=1, default=str) + "\n",
        "report.md": render_markdown(records, meta, figures),
        "report.html": render_html(records, meta, figures),
    }
    for name, text in texts.items():  # everything is rendered before the first file is replaced
        write_text_atomic(out / name, text)
    return records, meta
