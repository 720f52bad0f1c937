"""Sweeps: grid claims as independent cells, run in-process, on local processes or on Ray, with a resumable
SQLite results store (docs/running_at_scale.md).

``cells``       :class:`Cell`, :class:`CellResult`, the cell hash and the exact JSON encoding of results
``grid``        :class:`Grid` (cells, run, aggregate, follow-up stages, cell cost); ``Claim(observe=grid.observe)``
``store``       :class:`ResultStore` (SQLite, WAL), :func:`merge_stores`
``executors``   ``local`` (default), ``processes`` (concurrent.futures), ``ray`` (Ray tasks)
``session``     :func:`sweep_session` (executor + store + shard for the claims run inside it), :func:`run_grid`
``cost``        the thesis-scale cost estimate; ``preflight`` prints it before a full-scale report
``cli``         ``tvk report`` options and ``tvk sweep status|merge``
"""

from .cells import Cell, CellResult, IncompleteGrid, cell_hash, decode, encode
from .cost import CellCost, DeviceSpeed, calibrate, estimate_grid
from .executors import EXECUTORS, Executor, LocalExecutor, ProcessExecutor, RayExecutor, make_executor
from .grid import Grid, grid_of
from .session import SweepSession, current_session, parse_shard, run_grid, sweep_session
from .store import STORE_NAME, ResultStore, merge_stores

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
    "make_executor",
    "merge_stores",
    "parse_shard",
    "run_grid",
    "sweep_session",
]
