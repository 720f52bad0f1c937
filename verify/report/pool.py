"""Run a report's claims in worker processes: ``tvk report -j N`` (docs/report.md, "Parallel claims").

The parent (:func:`verify.report.run.run_report`) keeps everything that touches the report directory's bookkeeping:
the lock, the journal, the numbering of the log lines, the grid claims and their sweep session. The workers only
run claims: each is a fresh interpreter started with ``spawn`` (never ``fork``: the parent has torch and OpenMP
thread pools running, which a forked child inherits in an undefined state), imports the claims, limits torch to
``threads`` intra-op threads and sends back each claim's record as it finishes.

A worker finds a claim by its id in its own registry, which it rebuilds by importing the built-in claims, the
external claim modules the parent loaded (:mod:`verify.claims.external`) and the modules that define the claims it
is given; a claim it does not find (one that exists only in the parent's memory) is handed back to the parent,
which runs it itself.

Interrupts: workers run in their own process group, so a Ctrl-C at the terminal reaches only the parent, which
forwards exactly one SIGINT to each worker: a trainer saves its checkpoint after the running update and stops
(docs/report.md, "Interrupts"), any other claim stops at once. The parent waits up to :data:`GRACE_S` seconds for
them, then terminates what is left; a second Ctrl-C terminates at once. A worker whose parent died exits by itself.

This module imports only the standard library at load time, so a worker sets its thread limits before numpy and
torch are imported; the claim machinery is imported inside the worker (deferred imports).
"""

from __future__ import annotations

import collections
import dataclasses
import importlib
import json
import math
import multiprocessing
import multiprocessing.connection as mp_connection
import os
import pickle
import signal
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verify.runtime.claim_run import keeping_finished
from verify.runtime.cores import cpu_cores
from verify.runtime.interrupts import exit_with_parent
from verify.runtime.protocol import RunContext

__all__ = [
    "GRACE_S",
    "KIND_SECONDS",
    "ClaimEnvironmentError",
    "WorkerError",
    "WorkerSetup",
    "default_jobs",
    "expected_runtimes",
    "run_in_workers",
    "runtime_prior",
    "schedule",
    "work_units",
]

#: Seconds the workers get, after an interrupt or an error, to save checkpoints and stop before they are terminated.
GRACE_S = 30.0
#: How often (seconds) the parent checks on its workers while it waits for a message.
POLL_S = 0.25
#: The runtime (seconds) assumed for a claim that no earlier report in the directory has timed, by kind: about the
#: mean quick-scale runtimes on the 2-core CPU (2026-11-25: training 16 s, numeric 0.7 s, convex 0.4 s, symbolic
#: 0.16 s over 130 claims); only their order matters much.
KIND_SECONDS = {"training": 20.0, "convex": 1.0, "numeric": 1.0, "symbolic": 0.2}
#: Thread-count variables of OpenMP, MKL and OpenBLAS set for a worker (unless the user set them), before it
#: imports numpy or torch.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: glibc malloc settings of a worker (unless the user set them; other C libraries ignore them): blocks up to 32 MiB
#: (the largest threshold glibc takes) come from the heap instead of fresh ``mmap`` pages, and up to 256 MiB of free
#: heap is kept instead of handed back. A training step allocates and frees the same activation buffers of a few MB
#: every update; with glibc's defaults each one is new zeroed pages, page-faulted again (measured on the quick Markov
#: transformer's step, 2-core CPU: 10-12 ms of 73-77 ms per step in the kernel, about 550k page faults per 100
#: steps; with these settings 0 ms and about 1k; docs/benchmarks.md). The numbers computed do not change.
MALLOC_VARIABLES = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}


class WorkerError(RuntimeError):
    """A worker process died (killed, out of memory, a crash of the interpreter) or could not start."""


class ClaimEnvironmentError(OSError):
    """A claim in a worker stopped on an operating-system error of the environment (``verify.runtime.files.ENVIRONMENT_ERRNOS``:
    disk full, permissions, ...); ``claim_id`` names it. Raised in the parent with the worker's errno, message and
    file name."""

    claim_id: str = ""


def default_jobs(device_type: str, scale: str) -> int:
    """``-j``'s default: one worker per core for a quick report on the CPU, else 1 (no workers).

    On CUDA the claims would share one GPU (and its memory); at full scale on the CPU each claim's memory check
    sees the memory free when it starts, not what the other workers will take, so parallel claims could run out
    of memory together. Both stay sequential unless ``-j`` asks otherwise."""
    return cpu_cores() if device_type == "cpu" and scale == "quick" else 1


@dataclass(frozen=True)
class WorkerSetup:
    """What every worker needs: the run's context and where the claims come from.

    Attributes
    ----------
    threads : int
        torch intra-op threads (and OpenMP/MKL/OpenBLAS threads, unless set in the environment) per worker.
    context : verify.runtime.protocol.RunContext
        The parent's context (scale, run options, checkpoint directory); workers show no progress bars.
    sources : tuple of str
        The keys of the external claim modules the parent loaded (``verify.claims.external``): dotted names, file
        paths, ``entry-point:...``.
    modules : tuple of str
        Further modules that define the claims to run; importing them registers those claims.
    parent : int
        The parent's pid: a worker whose parent is gone exits.
    store : str or None
        The report's sweep store (SQLite, WAL mode: several processes may write it). When set, the worker runs its
        claims inside a sweep session on this store with the ``local`` executor, so that grid claims handed to it
        keep their cells there (a claim that reads a grid's cells runs in the same unit, after the grid) and each
        record carries its ``metadata.sweep`` statistics, as in the parent.
    revision : str or None
        The code revision keying the stored cells (the parent's; None: the worker computes its own).
    """

    threads: int
    context: RunContext
    sources: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    parent: int = 0
    store: str | None = None
    revision: str | None = None


# ------------------------------------------------------------------------------------------------ scheduling


#: Quick-scale runtimes (seconds) of every claim in one measured default report on the 2-core CPU, shipped with the
#: package (``python docs/build_runtime_prior.py REPORT_DIR`` rewrites it): a first report into a new directory
#: schedules by them instead of by :data:`KIND_SECONDS` alone, so that the longest claims start first.
RUNTIME_PRIOR = Path(__file__).with_name("quick_runtimes.json")


def runtime_prior(scale: str) -> dict[str, float]:
    """The shipped runtimes of :data:`RUNTIME_PRIOR` at ``scale`` (quick only; an unreadable file gives nothing)."""
    if scale != "quick":
        return {}
    try:
        doc = json.loads(RUNTIME_PRIOR.read_text(encoding="utf-8"))
        claims = doc["claims"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if not isinstance(claims, dict):
        return {}
    return {
        k: float(v)
        for k, v in claims.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    }


def expected_runtimes(out: Path, scale: str) -> dict[str, float]:
    """Each claim's runtime (seconds) in the previous report of ``out`` at ``scale``: from ``results.json`` and,
    overriding it, the journal ``results.jsonl`` of the latest run (read before the new run truncates it), over
    the shipped :func:`runtime_prior`. Files that are missing or unreadable give nothing."""
    times: dict[str, float] = runtime_prior(scale)
    try:
        doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
        records = list(doc.get("claims", [])) if isinstance(doc, dict) else []
    except (OSError, ValueError):
        records = []
    try:
        lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    for rec in records:
        if not isinstance(rec, dict) or rec.get("scale") != scale:
            continue
        runtime = (rec.get("metadata") or {}).get("runtime_s")
        if isinstance(rec.get("id"), str) and isinstance(runtime, (int, float)) and math.isfinite(runtime):
            times[rec["id"]] = float(runtime)
    return times


def work_units(claims: Sequence[Any], shared_key: Callable[[Any], Any]) -> list[list[Any]]:
    """``claims`` grouped into work units, in selection order: claims with the same ``shared_key(claim)`` (not None)
    form one unit, in selection order, at the place of the first of them; every other claim is a unit of its own.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> units = work_units([C(id="a", k=1), C(id="b", k=None), C(id="c", k=1)], lambda c: c.k)
    >>> [[c.id for c in unit] for unit in units]
    [['a', 'c'], ['b']]
    """
    units: list[list[Any]] = []
    shared: dict[Any, list[Any]] = {}
    for claim in claims:
        key = shared_key(claim)
        if key is None:
            units.append([claim])
        elif key in shared:
            shared[key].append(claim)
        else:
            shared[key] = [claim]
            units.append(shared[key])
    return units


def schedule(claims: Sequence[Any], runtimes: dict[str, float], shared_key: Callable[[Any], Any]) -> list:
    """The work units of the workers (:func:`work_units`), longest expected first: lists of claims that one worker
    runs in order.

    :func:`verify.report.run.run_report` keys training claims by their module and configuration, so that a training
    run which several claims share through a cache (e.g. two Markov claims, or Fig. 4.1 and 4.2 of the modular
    transformer) is trained once. A claim's expected runtime is its runtime in ``runtimes`` (the previous report),
    else :data:`KIND_SECONDS` of its kind; a unit's is the sum. Ties keep selection order."""

    def cost(unit: list[Any]) -> float:
        return sum(runtimes.get(c.id, KIND_SECONDS.get(c.kind, 1.0)) for c in unit)

    return sorted(work_units(claims, shared_key), key=cost, reverse=True)  # stable: equal costs keep selection order


# ------------------------------------------------------------------------------------------------ the workers


class _Missing(LookupError):
    """The worker's registry has no claim of this id."""


@contextmanager
def _claim_runner(setup: WorkerSetup, send: Callable[[tuple], None]) -> Iterator[Callable[[str], dict]]:
    """Import the claims, limit the threads, log to the parent; yield ``run(claim_id) -> record``."""
    import torch  # deferred: the thread variables above must be set before torch and numpy load

    from verify.claims import registry, run_claim
    from verify.claims.external import load_claim_modules, load_entry_points
    from verify.runtime.claim_run import log_to

    torch.set_num_threads(setup.threads)
    files_and_modules = [s for s in setup.sources if not s.startswith("entry-point:")]
    if len(files_and_modules) < len(setup.sources):
        load_entry_points()
    load_claim_modules(files_and_modules)
    for module in setup.modules:
        with suppress(Exception):
            importlib.import_module(module)
    ctx = dataclasses.replace(setup.context, options=setup.context.options.replace(progress=False))

    def forward_log(message: str) -> None:
        send(("log", None, message))

    with log_to(forward_log), _worker_sweep(setup, forward_log) as session:

        def run(claim_id: str) -> dict:
            claim = registry().get(claim_id)
            if claim is None:
                raise _Missing(claim_id)
            record = run_claim(claim, ctx).to_json()
            if session is not None and claim_id in session.stats:
                record["metadata"]["sweep"] = session.stats.pop(claim_id)
            return record

        yield run


@contextmanager
def _worker_sweep(setup: WorkerSetup, log: Callable[[str], None]) -> Iterator[Any]:
    """The worker's sweep session on the parent's store (:attr:`WorkerSetup.store`), or None without one."""
    if setup.store is None:
        yield None
        return
    from verify.sweep.session import sweep_session

    with sweep_session("local", store=setup.store, revision=setup.revision, log=log) as session:
        yield session


def _portable(record: dict) -> dict:
    """The record as it crosses the pipe: itself when it pickles, else its JSON form (as the journal writes it)."""
    try:
        pickle.dumps(record)
        return record
    except Exception:
        return json.loads(json.dumps(record, default=str))


def _worker_main(conn: Any, setup: WorkerSetup) -> None:
    """A worker: say ``ready``, take a unit (a list of claim ids) from ``conn``, run it, say ``ready`` again, ...
    until it gets None.

    Messages on ``conn`` (its own pipe to the parent; a message is in the pipe when ``send`` returns, so it survives
    the worker being killed a moment later): ``("ready", None, None)``, ``("start", id, None)``, ``("done", id,
    record)``, ``("missing", id, None)``, ``("log", None, text)``, ``("oserror", id, (errno, strerror, filename,
    text))``, ``("error", id, text)`` (an exception outside the claim's own code, e.g. while its record is made),
    ``("interrupted", id, None)``, ``("broken", None, text)`` (the worker could not start)."""
    with suppress(OSError, ValueError):  # stdout is the parent's result: what claim code prints goes to stderr
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    os.setpgid(0, 0)  # own process group: a Ctrl-C at the terminal reaches only the parent, which forwards one
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # writes to the terminal from a background group never stop it
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the parent's stop request, even if it ignores SIGINT
    exit_with_parent(setup.parent)
    current: str | None = None
    try:
        with _claim_runner(setup, conn.send) as run:
            while True:
                current = None
                conn.send(("ready", None, None))
                unit = conn.recv()
                if unit is None:
                    return
                with keeping_finished():  # a shared run's checkpoint stays until the unit's last claim has run
                    for claim_id in unit:
                        current = claim_id
                        conn.send(("start", claim_id, None))
                        try:
                            record = run(claim_id)
                        except _Missing:
                            conn.send(("missing", claim_id, None))
                            continue
                        conn.send(("done", claim_id, _portable(record)))
    except KeyboardInterrupt:
        _last_word(conn, ("interrupted", current, None))
    except EOFError:  # the parent is gone
        pass
    except OSError as exc:
        if current is None:  # while the worker started (importing the claims) or talked to the parent
            _last_word(conn, ("broken", None, f"{type(exc).__name__}: {exc}"))
        else:
            info = (exc.errno, exc.strerror, None if exc.filename is None else str(exc.filename), str(exc))
            _last_word(conn, ("oserror", current, info))
    except BaseException as exc:
        kind = "error" if current is not None else "broken"
        _last_word(conn, (kind, current, f"{type(exc).__name__}: {' '.join(str(exc).split())}"))


def _last_word(conn: Any, message: tuple) -> None:
    """Send a worker's final message, unless the parent is gone or stopping it (a second interrupt)."""
    with suppress(OSError, KeyboardInterrupt):
        conn.send(message)


# ------------------------------------------------------------------------------------------------ the parent


@contextmanager
def _worker_environment(threads: int) -> Iterator[None]:
    """Set the thread-count variables and :data:`MALLOC_VARIABLES` (those the user has not set) while workers are
    started: a spawned worker inherits the environment of this moment, before it imports numpy or torch (and its C
    library reads the malloc settings when the process starts)."""
    values = {name: str(threads) for name in THREAD_VARIABLES} | MALLOC_VARIABLES
    added = [name for name in values if name not in os.environ]
    for name in added:
        os.environ[name] = values[name]
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


@contextmanager
def _bare_main() -> Iterator[None]:
    """While workers are started, ``__main__`` is an empty module: ``spawn`` would otherwise have each worker
    re-run the caller's main script (the ``tvk`` script, a user's script without a ``__main__`` guard, which would
    start the report again, or ``<stdin>``, which cannot be re-run). The workers need nothing from it."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _exit_text(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = " (the kernel's out-of-memory killer sends it)" if name == "SIGKILL" else ""
        return f"killed by {name}{why}"
    return f"exit status {code}"


def run_in_workers(
    units: Sequence[Sequence[str]],
    jobs: int,
    setup: WorkerSetup,
    *,
    on_start: Callable[[str], None],
    on_done: Callable[[str, dict], None],
    log: Callable[[str], None],
) -> list[str]:
    """Run ``units`` (lists of claim ids; handed out in the order given, each to the next idle worker) on ``jobs``
    spawned workers; return the ids of the claims the workers did not find (the caller runs them).

    ``on_start(id)`` is called when a worker starts a claim, ``on_done(id, record)`` when its record arrives (in
    finishing order; an exception of ``on_done`` stops the run), and ``log`` gets the workers' checkpoint messages.
    Each worker has its own pipe: a worker that dies closes it, which the parent sees at once.

    Raises
    ------
    ClaimEnvironmentError
        A claim stopped on an operating-system error (as raised by :func:`verify.claims.base.evaluate`); its
        errno, message and ``filename`` are those of the worker's error.
    KeyboardInterrupt
        The run was interrupted; the workers were asked to stop (trainers save a checkpoint) and are gone.
    WorkerError
        A worker died, could not start, or failed outside a claim's own code.
    """
    if not units:
        return []
    jobs = max(1, min(jobs, len(units)))
    mp = multiprocessing.get_context("spawn")
    setup = dataclasses.replace(setup, parent=os.getpid())
    pending = collections.deque(list(u) for u in units)
    workers: dict[Any, Any] = {}  # the parent's end of a worker's pipe -> its process
    running: dict[Any, str] = {}  # pipe -> the claim its worker runs
    missing: list[str] = []
    finished: set[Any] = set()  # pipes of workers told to exit

    def handle(conn: Any, message: tuple) -> None:
        kind, claim_id, payload = message
        if kind == "log":
            log(payload)
        elif kind == "ready":
            if pending:
                _send(conn, pending.popleft())
            else:
                finished.add(conn)
                _send(conn, None)
        elif kind == "start":
            running[conn] = claim_id
            on_start(claim_id)
        elif kind == "done":
            running.pop(conn, None)
            on_done(claim_id, payload)
        elif kind == "missing":
            running.pop(conn, None)
            missing.append(claim_id)
        elif kind == "oserror":
            errno_, strerror, filename, text = payload
            exc = (
                ClaimEnvironmentError(errno_, strerror, filename) if errno_ is not None else ClaimEnvironmentError(text)
            )
            exc.claim_id = claim_id or ""
            raise exc
        elif kind == "interrupted":
            raise KeyboardInterrupt
        elif kind in ("error", "broken"):
            where = f"while running claim {claim_id}" if claim_id else "while it started"
            raise WorkerError(f"a worker process failed {where}: {payload}")

    def gone(conn: Any) -> None:
        """The worker closed its pipe: it exited (fine after its last unit) or died (the run stops)."""
        proc = workers.pop(conn)
        conn.close()
        if conn in finished:  # told to exit, every record in: how it ends its interpreter is not the run's concern
            proc.join(60)
            return
        proc.join(5)
        what = f"while running claim {running[conn]}" if conn in running else "between claims"
        raise WorkerError(
            f"worker process {proc.pid} died {what} ({_exit_text(proc.exitcode)}); the records finished so far "
            "are in the journal; rerun with -j 1 to run the claims in one process"
        )

    procs: list[Any] = []
    ok = False
    try:
        with _worker_environment(setup.threads), _bare_main():
            for i in range(jobs):
                here, there = mp.Pipe(duplex=True)
                proc = mp.Process(
                    target=_worker_main, args=(there, setup), name=f"tvk-report-worker-{i + 1}", daemon=True
                )
                proc.start()
                there.close()  # the worker holds the only other end: its death is an end of file here
                workers[here] = proc
                procs.append(proc)
        while workers:
            for conn in mp_connection.wait(list(workers), timeout=POLL_S):
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    gone(conn)
                    continue
                handle(conn, message)
        ok = True
        return missing
    finally:
        if not ok:
            _stop(workers, log, on_done)
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in workers:
            conn.close()


def _send(conn: Any, obj: Any) -> None:
    """Hand ``obj`` to a worker; a worker that is gone is noticed when its pipe reads as closed."""
    with suppress(OSError):
        conn.send(obj)


def _stop(workers: dict[Any, Any], log: Callable[[str], None], on_done: Callable[[str, dict], None]) -> None:
    """Stop the workers after an interrupt or an error: one SIGINT each (trainers save a checkpoint after the
    running update), up to :data:`GRACE_S` seconds for them to exit while their log messages and finished records
    (``on_done``, whose errors are ignored now) are still taken, then terminate (SIGTERM, then SIGKILL) the rest."""
    alive = [p for p in workers.values() if p.is_alive()]
    try:
        if alive:
            log(
                f"stopping {len(alive)} worker process(es): trainers save a checkpoint after the running update "
                f"(up to {GRACE_S:.0f} s; interrupt again to stop them at once)"
            )
        for proc in alive:
            with suppress(OSError):
                os.kill(proc.pid, signal.SIGINT)
        deadline = time.monotonic() + GRACE_S
        while workers and time.monotonic() < deadline:
            for conn in mp_connection.wait(list(workers), timeout=POLL_S):
                try:
                    kind, claim_id, payload = conn.recv()
                except (EOFError, OSError):
                    workers.pop(conn).join(1)
                    conn.close()
                    continue
                if kind == "log":
                    log(payload)
                elif kind == "ready":
                    _send(conn, None)
                elif kind == "done":
                    with suppress(Exception):
                        on_done(claim_id, payload)
    except KeyboardInterrupt:
        log("stopping the worker processes now")
    finally:
        for proc in workers.values():
            if proc.is_alive():
                proc.terminate()
