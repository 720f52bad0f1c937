"""The sweep part of the ``tvk`` command (docs/running_at_scale.md).

    tvk report ... [--executor local|processes|ray] [--ray-address auto|HOST:PORT] [--workers N]
                   [--gpus-per-cell F] [--shard I/N] [--confirm-cost]
    tvk sweep status [--out DIR | --store FILE] [--json]
    tvk sweep merge  OUT SRC [SRC ...] [--json]     (OUT, SRC: report directories or .sqlite files)

``verify.cli`` adds these with :func:`add_report_options` and :func:`add_sweep_commands`.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verify.runtime.jsonable import JSON_OPTION_HELP
from verify.runtime.memory import format_seconds

from .names import EXECUTORS, STORE_NAME

if TYPE_CHECKING:
    from .session import SweepOptions

__all__ = ["add_report_options", "add_sweep_commands", "cmd_merge", "cmd_status", "store_path", "sweep_options"]


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """The sweep options of ``tvk report``."""
    group = parser.add_argument_group("sweeps (grid claims; docs/running_at_scale.md)")
    group.add_argument(
        "--executor",
        choices=("auto", *EXECUTORS),
        default="auto",
        help="where grid cells run: auto (default: each grid claim on one of the report's job workers, beside the "
        "other claims, when the report runs several jobs, else in this process), in this process, one process per "
        "core, or Ray tasks",
    )
    group.add_argument(
        "--ray-address",
        default=None,
        help="with --executor ray: 'auto' (the cluster of `ray start`), HOST:PORT or ray://HOST:PORT; "
        "default: start a local Ray",
    )
    group.add_argument(
        "--workers", type=int, default=None, help="processes (--executor processes) or CPUs of a local Ray"
    )
    group.add_argument(
        "--gpus-per-cell",
        type=float,
        default=None,
        help="Ray: GPUs per cell when cells run on GPUs (a fraction shares a GPU; default 1)",
    )
    group.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="run only grid claims, and of each grid only cells I, I+N, I+2N, ... (0 <= I < N), e.g. for a Slurm "
        "array; merge the stores with `tvk sweep merge`",
    )
    group.add_argument(
        "--confirm-cost",
        action="store_true",
        help="run grids at --scale full even when the printed estimate exceeds an hour",
    )


def sweep_options(args: argparse.Namespace) -> SweepOptions:
    """The :class:`verify.sweep.session.SweepOptions` of :func:`verify.report.run.run_report` from the parsed
    sweep options: each field from the option of its name (:func:`add_report_options` adds one per field)."""
    from .session import SweepOptions  # deferred: argument parsing stays light (issue 31, item 7)

    return SweepOptions(**{f.name: getattr(args, f.name) for f in fields(SweepOptions)})


def store_path(where: str | Path) -> Path:
    """A store file (an existing file, or a new name ending in ``.sqlite``), or ``<report dir>/sweep.sqlite`` for a
    directory."""
    p = Path(where)
    if p.is_file():
        return p
    return p / STORE_NAME if p.is_dir() or p.suffix != ".sqlite" else p


def _emit(obj: dict[str, Any], as_json: bool, text: str) -> None:
    print(json.dumps(obj) if as_json else text)


def cmd_status(args: argparse.Namespace) -> int:
    """``tvk sweep status``: cells done/total per planned grid, device time spent and an ETA."""
    path = store_path(args.store or args.out)
    if not path.is_file():
        raise ValueError(f"no results store at {str(path)!r} (run `tvk report` with grid claims first)")
    from .store import ResultStore  # deferred: argument parsing stays light

    with ResultStore(path, read_only=True) as store:  # status never writes to the file
        plans = store.status()
        cells = store.count()
    rows = [p.to_dict() for p in plans]
    lines = [f"{path}: {cells} stored cells"]
    for p in plans:
        eta = "-" if p.eta_s is None else ("done" if p.eta_s == 0 else f"~{format_seconds(p.eta_s)}")
        last = "-" if p.last_finished is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(p.last_finished))
        lines.append(
            f"{p.done:>6}/{p.total:<6} {p.claim_id} [{p.scale}, rev {p.revision}]  ETA {eta}; "
            f"{format_seconds(p.runtime_s)} of cell time; last cell {last}"
        )
    if not plans:
        lines.append("no grid planned yet")
    _emit({"store": str(path), "cells": cells, "grids": rows}, args.json, "\n".join(lines))
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    """``tvk sweep merge OUT SRC...``: copy the cells and plans of the source stores into OUT's store."""
    target = store_path(args.target)
    sources = [store_path(s) for s in args.sources]
    from .store import merge_stores  # deferred: argument parsing stays light

    counts = merge_stores(target, sources)
    if target.name == STORE_NAME:
        then = f"`tvk report --out {target.parent}` aggregates them"
    else:  # tvk report reads <out>/sweep.sqlite only
        then = f"`tvk report --out DIR` aggregates them once the store is DIR/{STORE_NAME} (rename or copy it there)"
    text = (
        f"merged {len(sources)} store(s) into {target}: {counts['cells_added']} new cells "
        f"({counts['cells']} in all), {counts['plans_added']} new plans; {then}"
    )
    _emit({"target": str(target), "sources": [str(s) for s in sources], **counts}, args.json, text)
    return 0


def add_sweep_commands(sub: Any) -> None:
    """``tvk sweep status|merge`` under the top-level subparsers ``sub``."""
    sweep = sub.add_parser("sweep", help="grid claims: progress of a results store, merging shards' stores")
    cmds = sweep.add_subparsers(dest="sweep_command", required=True)
    st = cmds.add_parser("status", help="cells done/total per grid claim and an ETA")
    where = st.add_mutually_exclusive_group()
    where.add_argument("--out", default="tvk-report", help="report directory holding sweep.sqlite (default tvk-report)")
    where.add_argument("--store", default=None, help="a store file (instead of --out)")
    st.add_argument("--json", action="store_true", help=JSON_OPTION_HELP)
    st.set_defaults(func=cmd_status)
    mg = cmds.add_parser("merge", help="merge shards' stores into one (then `tvk report` aggregates)")
    mg.add_argument("target", help="report directory or .sqlite file to merge into (created if missing)")
    mg.add_argument("sources", nargs="+", help="report directories or .sqlite files of the shards")
    mg.add_argument("--json", action="store_true", help=JSON_OPTION_HELP)
    mg.set_defaults(func=cmd_merge)
