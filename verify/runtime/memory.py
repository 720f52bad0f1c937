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
    "MEMORY_SAFETY",
    "OVERRIDE_HINT",
    "PRINT_ESTIMATE_S",
    "PROBE_STEPS",
    "InsufficientMemoryError",
    "RunEstimate",
    "check_free_memory",
    "format_seconds",
    "free_memory",
    "preflight",
    "update_seconds",
]

MEMORY_SAFETY = 0.85  # fraction of the free memory a run may plan to use
PRINT_ESTIMATE_S = 60.0  # runs estimated to take longer than this print their estimate before they go on
PROBE_STEPS = 5  # the time per step of that estimate is measured on the first PROBE_STEPS updates
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
    gib = 2.0**30
    raise InsufficientMemoryError(
        f"{what} needs about {need / gib:.2f} GiB on {device}, but {MEMORY_SAFETY:.0%} of the {free / gib:.2f} GiB "
        f"free is usable: {remedy}"
    )


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class RunEstimate:
    """Call it with (step, inputs) at the start of every update: before the first, ``check(inputs)`` (the trainer's
    memory check, returning its estimate in bytes; skipped when ``need`` is known already); after ``probe_steps``
    (default :data:`PROBE_STEPS`) updates, when the rest of the run would take more than :data:`PRINT_ESTIMATE_S` seconds, the
    estimate (memory, time per step, total) goes to ``log``."""

    steps: int
    n_seeds: int
    desc: str
    log: Callable[[str], None] = field(default=_stderr)
    check: Callable[[Any], int | None] | None = None
    need: int | None = None
    probe_steps: int = PROBE_STEPS
    first: int | None = None
    t0: float | None = None

    def __call__(self, t: int, inputs: Any) -> None:
        if self.t0 is None:
            if self.need is None and self.check is not None:
                self.need = self.check(inputs)
            self.first, self.t0 = t, time.perf_counter()
        elif self.first is not None and t == self.first + self.probe_steps:
            per_step = (time.perf_counter() - self.t0) / self.probe_steps
            left = self.steps - t
            if per_step * left >= PRINT_ESTIMATE_S:
                mem = "" if self.need is None else f"about {self.need / 2.0**30:.2f} GiB peak, "
                self.log(
                    f"{self.desc}: {self.n_seeds} seed(s), {mem}{per_step * 1e3:.3g} ms per step, {left} steps left: "
                    f"about {format_seconds(per_step * left)}"
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
    estimate = RunEstimate(steps, n_seeds, desc, need=int(need))  # checked above: RunEstimate only times
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
