"""Memory and time before a run (docs/training.md, "Memory and time before a run"): every trainer estimates its peak
memory from its shapes and checks it against the device's free memory before the first update
(:func:`check_free_memory`, :class:`InsufficientMemoryError` naming the setting to lower and the override), and
times its first updates to print the estimate of a long run (:class:`RunEstimate`). :func:`preflight` does both for
a trainer that computes its own estimate.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # torch is imported where it is used: this module is imported by torch-free commands
    import torch

__all__ = [
    "ESTIMATE_WAIT_S",
    "MEMORY_SAFETY",
    "OVERRIDE_HINT",
    "PRINT_ESTIMATE_S",
    "PROBE_STEPS",
    "InsufficientMemoryError",
    "RunEstimate",
    "check_free_memory",
    "format_gib",
    "format_seconds",
    "format_step",
    "free_memory",
    "preflight",
    "update_seconds",
]

MEMORY_SAFETY = 0.85  # fraction of the free memory a run may plan to use
PRINT_ESTIMATE_S = 60.0  # runs estimated to take longer than this print their estimate before they go on
PROBE_STEPS = 5  # the time per step of that estimate is measured on the first PROBE_STEPS updates (at least)
#: A run that evaluates waits at most this long (after PROBE_STEPS updates) for its estimate to include an evaluation.
ESTIMATE_WAIT_S = 30.0
#: Appended to every refusal: the run-wide override (``RunOptions.ignore_memory_check``).
OVERRIDE_HINT = "or override the check with tvk --ignore-memory-check (RunOptions(ignore_memory_check=True))"


class InsufficientMemoryError(RuntimeError):
    """The estimated peak memory of a training run exceeds the free memory of its device."""


def format_seconds(s: float) -> str:
    """``42 s``, ``12.5 min``, ``3.2 h`` or ``4.1 days``."""
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def format_gib(n: float) -> str:
    """Bytes in GiB with two decimals, the unit of every memory estimate and refusal.

    >>> format_gib(3 * 2**29), format_gib(0)
    ('1.50 GiB', '0.00 GiB')
    """
    return f"{n / 2.0**30:.2f} GiB"


def format_step(s: float) -> str:
    """A time per step: ``455 ms`` below a second, ``1.9 s`` below two minutes, else :func:`format_seconds`.

    >>> format_step(0.4551), format_step(1.9), format_step(600.0)
    ('455 ms', '1.9 s', '10.0 min')
    """
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.3g} s" if s < 120 else format_seconds(s)


def free_memory(device: torch.device) -> int | None:
    """Free bytes on ``device``: ``torch.cuda.mem_get_info`` plus this process's cached blocks on CUDA, the
    kernel's MemAvailable on a Linux CPU; None when unknown."""
    if device.type == "cuda":
        import torch

        free, _ = torch.cuda.mem_get_info(device)
        return int(free + torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device))
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def check_free_memory(need: int, device: torch.device, what: str, remedy: str, ignore: bool = False) -> int | None:
    """Refuse a run whose estimated peak ``need`` (bytes) exceeds :data:`MEMORY_SAFETY` of ``device``'s free memory;
    returns the free bytes (None: unknown).

    Raises
    ------
    InsufficientMemoryError
        Unless ``ignore`` (``RunOptions.ignore_memory_check``) or the free memory is unknown: the message gives what
        ``what`` needs, what is usable, and the ``remedy``.
    """
    free = free_memory(device)
    if free is None or need <= MEMORY_SAFETY * free or ignore:
        return free
    raise InsufficientMemoryError(
        f"{what} needs about {format_gib(need)} on {device}, but {MEMORY_SAFETY:.0%} of the {format_gib(free)} free is "
        f"usable: {remedy}"
    )


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class RunEstimate:
    """Call it with (step, inputs) at the start of every update: before the first, ``check(inputs)`` (the trainer's
    memory check, returning its estimate in bytes; skipped when ``need`` is known already); once the updates of
    :meth:`window` are timed, when the rest of the run would take more than :data:`PRINT_ESTIMATE_S` seconds, the
    estimate (memory, time per step, total) goes to ``log``.

    A run that evaluates every ``eval_every`` steps between its updates (:func:`verify.runtime.loop.run_loop`
    evaluates at step t before update t) is timed over a window that holds its evaluations in proportion: ``n``
    consecutive updates with ``eval_every`` dividing ``n`` hold ``n / eval_every`` evaluations, wherever they start.
    Without it the estimate leaves the evaluations out, which can be most of the time (docs/running_at_scale.md,
    the seventh session). When that window ends more than :data:`ESTIMATE_WAIT_S` seconds after the first
    ``probe_steps`` updates (and these hold no evaluation), the updates-only estimate is printed first, and said to
    be one; when the run ends before the window does, only that one is (or, if an evaluation fell among those
    updates, theirs with it, and it says so)."""

    steps: int
    n_seeds: int
    desc: str
    log: Callable[[str], None] = field(default=_stderr)
    check: Callable[[Any], int | None] | None = None
    need: int | None = None
    probe_steps: int = PROBE_STEPS
    eval_every: int | None = None
    first: int | None = None
    t0: float | None = None

    def window(self) -> int:
        """The updates timed: ``probe_steps`` rounded up to a multiple of ``eval_every`` (when given).

        >>> RunEstimate(1000, 1, "run").window(), RunEstimate(1000, 1, "run", eval_every=50).window()
        (5, 50)
        >>> RunEstimate(1000, 1, "run", eval_every=2).window()
        6
        """
        e, probe = self.eval_every, self.probe_steps
        return probe if not e or e <= 0 else -(-probe // e) * e

    def __call__(self, t: int, inputs: Any) -> None:
        now = time.perf_counter()
        if self.t0 is None:
            if self.need is None and self.check is not None:
                self.need = self.check(inputs)
            self.first, self.t0 = t, now
            return
        if self.first is None:
            return
        done, window = t - self.first, self.window()
        if done == window:
            evals = f" (with its evaluation {self._every()})" if self.eval_every else ""
            self._report((now - self.t0) / done, t, evals)
        elif done == self.probe_steps < window:
            per_update = (now - self.t0) / done
            if self.first + window >= self.steps:  # the run ends first: no window of evaluations to wait for
                alone = self._no_evaluation(t)
                self._report(per_update, t, " (updates only)" if alone else f" (an evaluation among {done} updates)")
            elif self._no_evaluation(t) and per_update * (window - done) > ESTIMATE_WAIT_S:  # evaluations far off
                self._report(
                    per_update,
                    t,
                    f" (updates only: the evaluations {self._every()} are timed by step {self.first + window})",
                )

    def _every(self) -> str:
        """``every step`` or ``every 50 steps``."""
        return "every step" if self.eval_every == 1 else f"every {self.eval_every} steps"

    def _no_evaluation(self, t: int) -> bool:
        """Whether the updates timed so far (``first`` .. ``t - 1``) held no evaluation: no multiple of ``eval_every``
        in ``(first, t]``."""
        e, first = self.eval_every, self.first
        return not e or first is None or t // e == first // e

    def _report(self, per_step: float, t: int, note: str) -> None:
        """Log the estimate when the ``steps - t`` steps left take at least :data:`PRINT_ESTIMATE_S` seconds."""
        left = self.steps - t
        if per_step * left >= PRINT_ESTIMATE_S:
            mem = "" if self.need is None else f"about {format_gib(self.need)} peak, "
            self.log(
                f"{self.desc}: {self.n_seeds} seed(s), {mem}{format_step(per_step)} per step{note}, {left} steps "
                f"left: about {format_seconds(per_step * left)}"
            )


def preflight(
    need: int,
    device: torch.device,
    what: str,
    remedy: str,
    *,
    steps: int,
    n_seeds: int,
    desc: str,
    eval_every: int | None = None,
    ignore: bool = False,
) -> Callable[[int], None]:
    """Refuse now a run whose estimated peak ``need`` (bytes) does not fit on ``device``; return the hook to call
    with the step number at the start of every update.

    Parameters
    ----------
    need : int
        The trainer's memory estimate (bytes).
    device : torch.device
        Where the run allocates.
    what, remedy : str
        What is trained (sizes included) and which setting lowers ``need``; the message adds the override.
    steps, n_seeds, desc : int, int, str
        The run's total updates, seeds and name, for the printed estimate.
    eval_every : int or None
        The run evaluates every that many steps (:class:`RunEstimate` times the evaluations with the updates); None:
        it does not evaluate between updates.
    ignore : bool
        Skip the memory check (``RunOptions.ignore_memory_check``).

    Returns
    -------
    Callable[[int], None]
        ``at(step)``: after :data:`PROBE_STEPS` updates, prints the memory, time per step and total when the
        remaining steps would take more than :data:`PRINT_ESTIMATE_S` seconds (once per run).

    Raises
    ------
    InsufficientMemoryError
        When ``need`` exceeds the usable free memory and ``ignore`` is False.
    """
    check_free_memory(int(need), device, what, f"{remedy}, {OVERRIDE_HINT}", ignore)
    estimate = RunEstimate(steps, n_seeds, desc, need=int(need), eval_every=eval_every)  # checked: it only times
    return lambda step: estimate(step, None)


def wall_seconds(call: Callable[[], Any]) -> float:
    """Wall-clock seconds of ``call()`` (``time.perf_counter``), for the plan's probes of the real trainers."""
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def update_seconds(train: Callable[[int], Any], steps: int = 2) -> float:
    """Seconds per update of a trainer, as the machine is loaded now: ``train(n)`` runs ``n`` updates of the real
    trainer (evaluating only at its ends); after a one-update warm-up run, runs of ``steps`` and ``3 steps`` updates
    are timed and their difference over ``2 steps`` is returned (the set-up and the evaluations cancel). Not
    positive where the machine's noise exceeded the difference: the caller says unknown (the plan's probes,
    :mod:`verify.report.plan`)."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")

    train(1)  # the warm-up
    short = wall_seconds(lambda: train(steps))
    return (wall_seconds(lambda: train(3 * steps)) - short) / (2 * steps)
