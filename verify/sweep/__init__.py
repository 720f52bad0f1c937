"""Sweeps: grid claims as independent cells, run in-process, on local processes or on Ray, with a resumable
SQLite results store (docs/running_at_scale.md).

``cells``       :class:`Cell`, :class:`CellResult`, the cell hash and the exact JSON encoding of results
``grid``        :class:`Grid` (cells, run, aggregate, follow-up stages, cell cost); ``Claim(observe=grid.observe)``
``store``       :class:`ResultStore` (SQLite, WAL), :func:`merge_stores`
``executors``   ``local`` (default), ``processes`` (concurrent.futures), ``ray`` (Ray tasks)
``session``     :func:`sweep_session` (executor + store + shard for the claims run inside it), :func:`run_grid`
``cost``        the thesis-scale cost estimate; ``confirm`` prints it before a full-scale report
``cli``         ``tvk report`` options and ``tvk sweep status|merge``
"""

from __future__ import annotations

import importlib
from typing import Any

#: Where each exported name lives; the submodule is imported on first use (PEP 562), so that ``tvk --help`` and
#: ``tvk sweep status`` do not pay for numpy and sympy.
_HOMES = {
    "cells": ("Cell", "CellResult", "IncompleteGrid", "cell_hash", "decode", "encode"),
    "cost": ("CellCost", "DeviceSpeed", "calibrate", "estimate_grid"),
    "executors": ("EXECUTORS", "Executor", "LocalExecutor", "ProcessExecutor", "RayExecutor", "make_executor"),
    "grid": ("Grid", "grid_of", "grid_read_by", "reads_grid"),
    "session": ("SweepSession", "current_session", "parse_shard", "run_grid", "sweep_session"),
    "store": ("STORE_NAME", "ResultStore", "merge_stores"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name in _HOME_OF:
        return getattr(importlib.import_module(f"{__name__}.{_HOME_OF[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXECUTORS",
    "STORE_NAME",
    "Cell",
    "CellCost",
    "CellResult",
    "DeviceSpeed",
    "Executor",
    "Grid",
    "IncompleteGrid",
    "LocalExecutor",
    "ProcessExecutor",
    "RayExecutor",
    "ResultStore",
    "SweepSession",
    "calibrate",
    "cell_hash",
    "current_session",
    "decode",
    "encode",
    "estimate_grid",
    "grid_of",
    "grid_read_by",
    "make_executor",
    "merge_stores",
    "parse_shard",
    "reads_grid",
    "run_grid",
    "sweep_session",
]
