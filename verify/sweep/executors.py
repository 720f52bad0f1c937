"""Where a grid's cells run: in this process (``local``, the default), one process per core (``processes``,
:mod:`concurrent.futures`) or as Ray tasks (``ray``, Ray's own task API on a cluster or a local Ray started on
demand). Every executor hands each finished cell to a callback as it finishes (the session stores it at once),
so a killed run loses only the cells in flight.

A cell's result crosses the process boundary as the JSON text of :func:`verify.sweep.cells.encode`, made where
the cell ran, so every executor stores the same text for the same cell.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import errno
import multiprocessing
import os
import signal
import socket
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from verify.runtime.cores import cpu_cores
from verify.runtime.interrupts import INTERRUPT_SIGNALS, exit_with_parent

from .cells import Cell, encode
from .names import EXECUTORS

if TYPE_CHECKING:
    from verify.runtime.protocol import RunContext

__all__ = [
    "EXECUTORS",
    "RAY_EXTRA_HINT",
    "Executor",
    "LocalExecutor",
    "ProcessExecutor",
    "RayExecutor",
    "ResultCallback",
    "execute_cell",
    "local_ray_options",
    "make_executor",
]

RAY_EXTRA_HINT = 'the ray executor needs Ray: pip install -e ".[distributed]" (the `distributed` extra, ray[default])'

#: ``on_result(cell, result_json, runtime_s, host)``
ResultCallback = Callable[[Cell, str, float, str], None]
RunFn = Callable[[Cell, "RunContext"], Any]


def execute_cell(run: RunFn, cell: Cell, ctx: RunContext) -> tuple[str, float, str]:
    """Run one cell and encode its result where it ran: (result JSON, seconds, host name)."""
    t0 = time.perf_counter()
    text = encode(run(cell, ctx))
    return text, time.perf_counter() - t0, socket.gethostname()


def _cell_threads(cell: Cell) -> int | None:
    threads = getattr(cell.config, "num_threads", None)
    return int(threads) if isinstance(threads, int) and threads >= 1 else None


class Executor(ABC):
    """Runs cells and reports each finished one; subclasses set :attr:`name` and implement :meth:`run_cells`."""

    name = "base"

    def workers(self) -> int:
        """Cells that can run at once (for the wall-time estimate)."""
        return 1

    @abstractmethod
    def run_cells(self, run: RunFn, cells: Sequence[Cell], ctx: RunContext, on_result: ResultCallback) -> None:
        """Run ``cells``; call ``on_result`` for each as it finishes. A failing cell does not stop the others
        already submitted; the first failure is raised once they are done."""

    def close(self) -> None:  # noqa: B027  (optional hook: executors without workers release nothing)
        """Release workers (a process pool, a Ray instance this executor started); nothing by default."""

    def describe(self) -> str:
        return f"{self.name} ({self.workers()} worker{'s' if self.workers() != 1 else ''})"


class LocalExecutor(Executor):
    """In this process, one cell after another, with the run's context as given (progress bars included)."""

    name = "local"

    def run_cells(self, run: RunFn, cells: Sequence[Cell], ctx: RunContext, on_result: ResultCallback) -> None:
        for cell in cells:
            on_result(cell, *execute_cell(run, cell, ctx))


def _init_process_worker(threads: int, parent: int) -> None:
    exit_with_parent(parent)  # a parent killed outright would otherwise leave the worker waiting for ever
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    os.environ.setdefault("MKL_NUM_THREADS", str(threads))
    import torch  # deferred: only worker processes need it here

    torch.set_num_threads(threads)


def _raise_first(errors: list[tuple[Cell, BaseException]], total: int) -> None:
    if errors:
        cell, exc = errors[0]
        raise RuntimeError(
            f"{len(errors)} of {total} cells failed; first: cell {cell.label!r}: {type(exc).__name__}: {exc}"
        ) from exc


def check_workers(workers: int | None) -> None:
    """``--workers``: None (the executor's default) or an integer >= 1."""
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")


def check_gpus_per_cell(gpus_per_cell: float | None) -> None:
    """``--gpus-per-cell``: None (1 GPU) or a number in (0, 1] or a whole number."""
    g = gpus_per_cell
    if g is not None and not 0 < g <= 1 and not (g > 1 and float(g).is_integer()):
        raise ValueError(f"--gpus-per-cell must be in (0, 1] or a whole number, got {g}")


class ProcessExecutor(Executor):
    """One worker process per core (``workers``, default :func:`verify.runtime.cores.cpu_cores`), started with ``spawn`` on
    first use and kept for the session; each worker's torch uses ``cores // workers`` threads unless the cell's
    configuration sets ``num_threads``. Progress bars are off in the workers."""

    name = "processes"

    def __init__(self, workers: int | None = None) -> None:
        check_workers(workers)
        self._workers = workers or cpu_cores()
        self._pool: cf.ProcessPoolExecutor | None = None

    def workers(self) -> int:
        return self._workers

    def _get_pool(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            threads = max(1, cpu_cores() // self._workers)
            self._pool = cf.ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_process_worker,
                initargs=(threads, os.getpid()),
            )
        return self._pool

    def run_cells(self, run: RunFn, cells: Sequence[Cell], ctx: RunContext, on_result: ResultCallback) -> None:
        if not cells:
            return
        pool = self._get_pool()
        wctx = dataclasses.replace(ctx, options=ctx.options.replace(progress=False))
        futures = {pool.submit(execute_cell, run, cell, wctx): cell for cell in cells}
        errors: list[tuple[Cell, BaseException]] = []
        for fut in cf.as_completed(futures):
            cell = futures[fut]
            try:
                text, runtime, host = fut.result()
            except Exception as exc:  # reported after the other cells finished
                errors.append((cell, exc))
                continue
            on_result(cell, text, runtime, host)
        _raise_first(errors, len(cells))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


@contextmanager
def _keeping_signal_handlers() -> Iterator[None]:
    """Put back the SIGINT and SIGTERM handlers that ``ray.init`` replaces: its C++ core installs a SIGTERM handler
    that aborts the process with a stack dump (exit 134), so a scheduler's SIGTERM could not stop ``tvk`` the way a
    Ctrl-C does (checkpoints saved, store and journal closed: docs/report.md)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in INTERRUPT_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)


def local_ray_options(num_cpus: int) -> dict[str, Any]:
    """The ``ray.init`` keywords of a local Ray started for a run: ``num_cpus`` CPUs, no dashboard, and workers at
    this process's niceness. Ray runs its workers at niceness 15 by default, below every other process, so beside
    any other load a cell waited for CPU time (the Ray test's 8 cells took 60 s instead of 6 s beside two training
    runs at niceness 5); ``nice tvk report --executor ray`` now lowers the cells with the run. Ray's
    ``worker_niceness`` is an increment over the niceness its raylet inherits from this process, so 0 keeps the
    workers at ours (``os.nice(0)`` there doubled it: a run at niceness 5 had its cells at 10). A
    ``RAY_worker_niceness`` in the environment is left to Ray."""
    options: dict[str, Any] = {"num_cpus": num_cpus, "include_dashboard": False, "logging_level": "WARNING"}
    if "RAY_worker_niceness" not in os.environ and hasattr(os, "nice"):  # (os.nice: Unix only)
        options["_system_config"] = {"worker_niceness": 0}
    return options


class RayExecutor(Executor):
    """Ray tasks (``ray.remote`` + ``ray.wait``), one per cell, with ``num_cpus`` = the cell's ``num_threads``
    (default ``cpus_per_cell``) and ``num_gpus`` = ``gpus_per_cell`` when the run's device is not the CPU and the
    cluster has GPUs.

    Parameters
    ----------
    address : str, optional
        ``auto`` (the cluster this machine belongs to, ``ray start``), ``HOST:PORT`` of a head node, or
        ``ray://HOST:PORT`` (Ray client); None starts a local Ray on first use and stops it on :meth:`close`.
    num_cpus : int, optional
        CPUs of the local Ray (default :func:`verify.runtime.cores.cpu_cores`); ignored with ``address``.
    cpus_per_cell, gpus_per_cell : float
        Resources of a cell's task when its configuration names no thread count / when it uses a GPU
        (a fraction lets small cells share a GPU).
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        cpus_per_cell: float = 1.0,
        gpus_per_cell: float = 1.0,
    ) -> None:
        check_workers(num_cpus)
        if not cpus_per_cell > 0:
            raise ValueError(f"cpus per cell must be > 0, got {cpus_per_cell}")
        check_gpus_per_cell(gpus_per_cell)
        try:
            import ray  # deferred: an optional extra, imported only when this executor is chosen
        except ImportError as exc:
            raise RuntimeError(RAY_EXTRA_HINT) from exc
        self._ray = ray
        self.address, self.num_cpus = address, num_cpus
        self.cpus_per_cell, self.gpus_per_cell = cpus_per_cell, gpus_per_cell
        self._started = False
        self._remote: Any = None

    def _init(self, ray: Any) -> None:
        """Connect to the cluster at :attr:`address`, or start a local Ray."""
        if self.address:
            try:
                ray.init(address=self.address, logging_level="WARNING")
            except Exception as exc:  # Ray's ConnectionError, RuntimeError, ...: the cluster, not the claim
                first = " ".join(str(exc).split())[:300]
                raise OSError(
                    errno.ENETUNREACH,
                    f"cannot connect to the Ray cluster at {self.address!r} ({type(exc).__name__}: {first}); "
                    "start it with `ray start --head` there, or check --ray-address",
                ) from exc
        else:
            ray.init(**local_ray_options(self.num_cpus or cpu_cores()))
            self._started = True

    def _ensure(self) -> Any:
        ray = self._ray
        if not ray.is_initialized():
            with _keeping_signal_handlers():
                self._init(ray)
        if self._remote is None:
            self._remote = ray.remote(execute_cell)
        return ray

    def workers(self) -> int:
        ray = self._ensure()
        return max(1, int(ray.cluster_resources().get("CPU", 1) // self.cpus_per_cell))

    def describe(self) -> str:
        ray = self._ensure()
        res = ray.cluster_resources()
        where = f"cluster at {self.address}" if self.address else "local Ray"
        return f"ray ({where}: {res.get('CPU', 0):g} CPUs, {res.get('GPU', 0):g} GPUs)"

    def run_cells(self, run: RunFn, cells: Sequence[Cell], ctx: RunContext, on_result: ResultCallback) -> None:
        if not cells:
            return
        ray = self._ensure()
        use_gpu = ctx.device != "cpu" and ray.cluster_resources().get("GPU", 0) > 0
        wctx = dataclasses.replace(ctx, options=ctx.options.replace(progress=False), workdir=None)
        run_ref = ray.put(run)
        pending = {}
        for cell in cells:
            opts = {"num_cpus": _cell_threads(cell) or self.cpus_per_cell, "name": cell.label[:100]}
            if use_gpu:
                opts["num_gpus"] = self.gpus_per_cell
            pending[self._remote.options(**opts).remote(run_ref, cell, wctx)] = cell
        errors: list[tuple[Cell, BaseException]] = []
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                cell = pending.pop(ref)
                try:
                    text, runtime, host = ray.get(ref)
                except Exception as exc:  # RayTaskError wraps the cell's exception; reported at the end
                    errors.append((cell, exc))
                    continue
                on_result(cell, text, runtime, host)
        _raise_first(errors, len(cells))

    def close(self) -> None:
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
        self._started = False
        self._remote = None


#: How long :func:`check_ray_address` waits for a TCP connection to the cluster's head.
RAY_CONNECT_TIMEOUT_S = 5.0


def ray_head(address: str) -> tuple[str, int] | None:
    """The (host, port) that ``address`` names: ``host:port`` (the head's GCS port) or ``ray://host:port`` (the Ray
    Client port, 10001 when left out); None for ``auto`` and ``local``, which Ray resolves itself.

    >>> ray_head("10.0.0.5:6379"), ray_head("ray://head.cluster:10001"), ray_head("ray://head"), ray_head("auto")
    (('10.0.0.5', 6379), ('head.cluster', 10001), ('head', 10001), None)
    """
    if address in ("auto", "local"):
        return None
    rest, client = (address[len("ray://") :], True) if address.startswith("ray://") else (address, False)
    host, sep, port = rest.rpartition(":")
    if not sep:
        host, port = rest, ("10001" if client else "")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            f"--ray-address {address!r} is not an address: give HOST:PORT (the head's port, e.g. 10.0.0.5:6379), "
            "ray://HOST:PORT (Ray Client) or auto"
        )
    return host, int(port)


def check_ray_address(address: str, timeout: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """Refuse, within ``timeout`` seconds, a Ray address whose head does not accept a TCP connection (before any
    claim runs: Ray itself retries for about a minute and the grid claim would end inconclusive).

    Raises
    ------
    ValueError
        Naming the address and the operating system's reason.
    """
    head = ray_head(address)
    if head is None:
        return
    try:
        with socket.create_connection(head, timeout=timeout):
            pass
    except OSError as exc:
        reason = f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else (exc.strerror or exc)
        raise ValueError(
            f"--ray-address {address!r}: cannot connect to {head[0]}:{head[1]} ({reason}); start the cluster with "
            "`ray start --head` on that machine, or check the address and the firewall"
        ) from None


def make_executor(
    name: str = "local",
    *,
    workers: int | None = None,
    ray_address: str | None = None,
    gpus_per_cell: float | None = None,
) -> Executor:
    """The executor ``name`` (one of :data:`EXECUTORS`); ``workers`` = processes, or CPUs of a local Ray."""
    if name not in EXECUTORS:
        raise ValueError(f"--executor must be one of {', '.join(EXECUTORS)}, got {name!r}")
    if ray_address is not None and name != "ray":
        raise ValueError("--ray-address needs --executor ray")
    if name == "local":
        return LocalExecutor()
    if name == "processes":
        return ProcessExecutor(workers)
    return RayExecutor(ray_address, num_cpus=workers, gpus_per_cell=1.0 if gpus_per_cell is None else gpus_per_cell)
