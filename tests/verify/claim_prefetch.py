"""Quick claim evaluations on a second core: one background worker process computes, while the tests run, the
evaluations that :func:`tests.verify.claim_checks.evaluation` will be asked for, so the 2-core CI machine runs two
claims at a time instead of one (most claims train on one torch thread).

``tests/conftest.py`` starts it once the tests are collected (``claim_checks.start_prefetch``) with the claims the
collected tests of ``test_claims.py`` need, in the order they need them; the worker takes them from the end of that
list while the tests take them from the front, so the two meet in the middle and the tests rarely wait. A claim the
tests reach before the worker does is taken back (the worker skips it) and computed in the test process, as without
a worker; one the worker has started is waited for. The worker sends each evaluation pickled, after checking that it survives
a pickle round trip unchanged (its JSON record is the same); an evaluation that does not, a claim the worker does
not know, or a worker that died, is computed in the test process instead. ``TVK_TEST_PREFETCH=0`` turns it off.

While the worker runs, the test process uses one torch thread (two processes with three threads on two cores slow
torch down many times over); its thread count is restored once the worker has nothing left (:meth:`Prefetcher.poll`).

This module imports only the standard library at load time: the worker limits its threads before torch loads.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any

from verify.runtime.cores import cpu_cores
from verify.runtime.options import RunOptions

#: Thread-count variables of OpenMP, MKL and OpenBLAS set in the worker before it imports numpy or torch.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: Fewest claims worth a worker process (its start costs a few seconds of imports).
MIN_CLAIMS = 10
#: Seconds the worker gets to exit after SIGTERM before it is killed.
TERMINATE_GRACE_S = 5.0


def enabled(n_claims: int) -> bool:
    """Whether to start the worker for ``n_claims`` claims: at least :data:`MIN_CLAIMS`, two cores or more
    (:func:`verify.runtime.cores.cpu_cores`), and
    ``TVK_TEST_PREFETCH`` not set to ``0``."""
    return n_claims >= MIN_CLAIMS and cpu_cores() >= 2 and os.environ.get("TVK_TEST_PREFETCH", "1") != "0"


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    """Leave through ``SystemExit`` when the test process ends the worker, so that its exit handlers release what
    it holds (semaphores of its libraries: the resource tracker would otherwise report them leaked)."""
    raise SystemExit(1)


def _init_worker() -> None:
    """One thread for everything in the worker, set before numpy and torch load; the worker ignores SIGINT (a
    Ctrl-C at the terminal stops the test process, which then ends the worker)."""
    for var in THREAD_VARIABLES:
        os.environ[var] = "1"
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    import torch  # deferred: the thread variables above must be set first

    torch.set_num_threads(1)


def _fingerprint(ev: Any) -> str:
    """The evaluation as its record shows it (JSON), for the round-trip check."""
    from verify.claims.base import to_jsonable  # deferred: imports torch

    fields = [ev.config, ev.predicted, ev.obs.value, ev.obs.details, ev.obs.counterexample, ev.obs.artifacts]
    return json.dumps(to_jsonable([*fields, list(ev.obs.seeds), ev.verdict, ev.reason]), sort_keys=True, default=repr)


def evaluate_unit(cids: tuple[str, ...]) -> dict[str, bytes | str]:
    """Run in the worker: each quick claim of ``cids`` evaluated (one after another, so claims that share a cached
    training run train it once), ``{id: pickled Evaluation}``, or ``{id: why not}`` for a claim the worker does
    not know or whose evaluation does not survive a pickle round trip."""
    from verify.claims import RunContext, registry  # deferred: imports torch
    from verify.claims.base import evaluate

    out: dict[str, bytes | str] = {}
    for cid in cids:
        claim = registry().get(cid)
        if claim is None:
            out[cid] = "not registered in the worker"
            continue
        ev = evaluate(claim, RunContext(scale="quick", options=RunOptions(progress=False)))
        try:
            blob = pickle.dumps(ev)
            if _fingerprint(pickle.loads(blob)) != _fingerprint(ev):
                raise ValueError("the record changes in a pickle round trip")
        except Exception as exc:
            out[cid] = f"{type(exc).__name__}: {exc}"
            continue
        out[cid] = blob
    return out


PENDING, IN_WORKER, TAKEN_BACK = 0, 1, 2


def _worker_main(units: list[tuple[str, ...]], state: Any, conn: Any) -> None:
    """The worker process: for each unit from the last to the first that the test process has not taken back,
    mark it as its own, evaluate it and send ``(index, results)``."""
    _init_worker()
    for i in reversed(range(len(units))):
        with state.get_lock():
            if state[i] != PENDING:
                continue
            state[i] = IN_WORKER
        conn.send((i, evaluate_unit(units[i])))
    conn.close()


class Prefetcher:
    """One worker process computing quick claim evaluations ahead of the tests (see the module docstring).

    Parameters
    ----------
    units : sequence of tuple of str
        The claims to compute, in the order the tests need them; each unit (claims sharing a training run) is
        evaluated by one process. The worker takes the units from the last to the first.
    set_threads, get_threads : callables
        ``torch.set_num_threads`` and ``torch.get_num_threads`` of the test process.
    """

    def __init__(
        self, units: Sequence[tuple[str, ...]], set_threads: Callable[[int], None], get_threads: Callable[[], int]
    ) -> None:
        mp = multiprocessing.get_context("spawn")  # never fork a process that runs torch's thread pools
        self._units = [tuple(u) for u in units]
        self._unit_of = {cid: i for i, unit in enumerate(self._units) for cid in unit}
        self._state: Any = mp.Array("b", len(self._units))
        self._results: dict[int, dict[str, bytes | str]] = {}
        self._cond = threading.Condition()
        self._ended = False  # the worker's end of the pipe is closed: it finished, or died
        receive, send = mp.Pipe(duplex=False)
        self._proc: Any = mp.Process(
            target=_worker_main, args=(self._units, self._state, send), name="tvk-claim-prefetch", daemon=True
        )
        self._proc.start()
        send.close()
        threading.Thread(target=self._read, args=(receive,), name="tvk-claim-prefetch-reader", daemon=True).start()
        self._set_threads = set_threads
        self._threads = get_threads()
        self._set_threads(1)
        self._closed = False
        #: Where each claim given to the worker was computed, once the tests asked for it: "worker", "here" (taken
        #: back before the worker started it) or "here: <why the worker's evaluation was not used>".
        self.sources: dict[str, str] = {}

    def _read(self, conn: Any) -> None:
        """Reader thread: store the worker's results as they come (the worker never blocks on a full pipe)."""
        while True:
            try:
                i, results = conn.recv()
            except (EOFError, OSError):
                break
            with self._cond:
                self._results[i] = results
                self._cond.notify_all()
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def take(self, cid: str) -> Any | None:
        """The evaluation of ``cid`` from the worker, waiting for it if the worker has started it; None when the
        test process must compute it (not given to the worker, taken back before the worker started it, or the
        worker's result is unusable)."""
        i = self._unit_of.get(cid)
        if i is None or cid in self.sources:
            return None
        mine = i in self._results
        if not mine and not self._closed:
            with self._state.get_lock():
                if self._state[i] == PENDING:
                    self._state[i] = TAKEN_BACK
                mine = self._state[i] == IN_WORKER
        if not mine:
            self.sources[cid] = "here"
            return None
        with self._cond:
            self._cond.wait_for(lambda: i in self._results or self._ended)
            result = self._results.get(i, {}).get(cid, "the worker process ended without it")
        try:
            if isinstance(result, str):
                raise ValueError(result)
            ev = pickle.loads(result)
        except Exception as exc:
            self.sources[cid] = f"here: {type(exc).__name__}: {exc}"
            return None
        self.sources[cid] = "worker"
        return ev

    def poll(self) -> None:
        """Once the worker has nothing left to do, end it and give the test process its threads back."""
        if self._closed:
            return
        with self._state.get_lock():
            states = list(self._state)
        with self._cond:
            idle = self._ended or all(s == TAKEN_BACK or i in self._results for i, s in enumerate(states))
        if idle:
            self.close()

    def close(self) -> None:
        """End the worker (terminating a claim it is running: the tests that needed it are over or stopped) and
        restore the test process's torch threads."""
        if self._closed:
            return
        self._closed = True
        with self._state.get_lock():  # the worker starts nothing more
            for i, s in enumerate(self._state):
                if s == PENDING:
                    self._state[i] = TAKEN_BACK
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(TERMINATE_GRACE_S)
        if self._proc.is_alive():  # stuck in a long native call
            self._proc.kill()
        self._proc.join()
        self._state = None  # frees its semaphore now (else the resource tracker may report it leaked at exit)
        with self._cond:
            self._ended = True  # nothing more will come
        self._set_threads(self._threads)

    def summary(self) -> str:
        """One line: how many claims came from the worker and which were computed here after all."""
        fell_back = sorted(c for c, s in self.sources.items() if s.startswith("here:"))
        worker = sum(s == "worker" for s in self.sources.values())
        line = f"claim prefetch: {worker} claim(s) computed by the worker process, {len(self.sources) - worker} here"
        return line + (f"; worker results not used for {', '.join(fell_back)}" if fell_back else "")


#: The session's prefetcher (None: no worker; every evaluation is computed in the test process).
PREFETCHER: Prefetcher | None = None
