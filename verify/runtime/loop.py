"""The loop skeleton shared by the toolkit's trainers (docs/training.md).

:func:`run_loop` runs ``step_fn(step)`` for ``step = start, ..., steps - 1`` and does around it what every
trainer needs:

* evaluation (``evaluate(step)``) at every multiple of ``eval_every`` and at the last step, *before* the
  update of that step, so the record at step t describes the parameters after t updates;
* an early stop (``stop(step, record)``) after each evaluation;
* the learning-rate schedule ``lr_at(step)`` written into the optimiser's param groups whenever it changes;
* a NaN/inf guard (:class:`verify.runtime.divergence.NonFiniteGuard`) on the per-seed loss returned by ``step_fn`` and on named weights,
  raising the trainer's own error with the step and the seeds;
* a checkpoint hook ``save(step)`` at multiples of ``checkpoint_every``, every ``checkpoint_seconds`` of wall
  time, at the last step and on an early stop (never at the step a run resumed from); a save that fails with an
  operating-system error (disk full, permissions) is a warning and training goes on;
* interrupts: with a ``save`` hook, Ctrl-C (SIGINT) is deferred to the end of the running update, then the state
  after the last whole update is saved and ``KeyboardInterrupt`` raised (a second Ctrl-C interrupts at once); a
  ``KeyboardInterrupt`` raised by ``evaluate`` or ``stop`` saves the same way, one raised inside ``step_fn`` does
  not (the update may be half applied);
* a throttled tqdm bar on stderr.

Helpers: :func:`stack_seeds` (the leading seed dimension: one initialisation per seed, stacked),
:func:`torch_threads` (torch's intra-op thread count for the duration of a run), :func:`save_atomically`
(checkpoint files, through a ``mkstemp`` temporary file) and :func:`cosine_annealing` (torch's cosine schedule as
a list of learning rates).
"""

from __future__ import annotations

import math
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from time import monotonic
from typing import Any, TypeVar

import torch

from verify.runtime.claim_run import checkpoint_log
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.interrupts import INTERRUPT_SIGNALS, deferrable
from verify.runtime.progress import count_bar

__all__ = [
    "Bar",
    "LoopEnd",
    "Resumption",
    "cosine_annealing",
    "evaluation_count",
    "run_loop",
    "save_atomically",
    "stack_seeds",
    "torch_threads",
]

R = TypeVar("R")


@dataclass(frozen=True)
class LoopEnd:
    """Where :func:`run_loop` stopped: ``step`` updates done; ``stopped`` if ``stop`` ended it before ``steps``."""

    step: int
    stopped: bool


@dataclass(frozen=True)
class Resumption:
    """Where a run starts and how it checkpoints: the first ``start`` step (``resumed`` when a checkpoint of that
    step is on disk already), the ``save(step)`` hook (None: no checkpoints), and the saves' interval in steps
    (``checkpoint_every``) and in seconds of wall time (``checkpoint_seconds``).
    :func:`verify.runtime.checkpoint.resume` makes one for a trainer."""

    start: int = 0
    resumed: bool = False
    save: Callable[[int], None] | None = None
    checkpoint_every: int | None = None
    checkpoint_seconds: float | None = None


@dataclass(frozen=True)
class Bar:
    """The progress bar of a run: shown when ``enabled``, named ``desc``, with ``postfix(record)`` after each
    evaluation."""

    enabled: bool = False
    desc: str = "train"
    postfix: Callable[[Any], dict[str, str]] | None = None


FRESH = Resumption()
NO_BAR = Bar()


def evaluation_count(steps: int, eval_every: int, after: int = -1) -> int:
    """How many evaluations :func:`run_loop` makes in a run of ``steps`` updates at the steps after ``after`` (-1: all
    of them): at every multiple of ``eval_every`` from 0, and at ``steps``.

    >>> evaluation_count(10, 5), evaluation_count(12, 5)
    (3, 4)
    >>> evaluation_count(12, 5, after=0), evaluation_count(12, 5, after=10), evaluation_count(12, 5, after=12)
    (3, 1, 0)
    """
    multiples = steps // eval_every - (after // eval_every if after >= 0 else -1)
    return multiples + (steps % eval_every != 0 and after < steps)


def run_loop(
    step_fn: Callable[[int], torch.Tensor | None],
    steps: int,
    *,
    evaluate: Callable[[int], R] | None = None,
    eval_every: int = 1,
    stop: Callable[[int, R], bool] | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    lr_at: Callable[[int], float] | None = None,
    guard: NonFiniteGuard | None = None,
    resumption: Resumption = FRESH,
    bar: Bar = NO_BAR,
) -> LoopEnd:
    """Run ``step_fn(step)`` (one update; returns the per-seed loss or None) for ``step = start .. steps - 1``
    (``start`` of ``resumption``).

    At each step t, in this order: evaluate (if t is a multiple of ``eval_every`` or t = ``steps``); save a
    checkpoint (if t is a multiple of ``checkpoint_every``, ``checkpoint_seconds`` have passed since the last
    save or the start, or t = ``steps``, unless the run resumed at t);
    ask ``stop(t, record)`` after an evaluation (a stop also saves); end at t = ``steps``; set the lr
    ``lr_at(t)`` in every param group of ``optimizer`` if it changed; ``step_fn(t)``; the guard (if t is a
    multiple of ``guard.every`` or the last update). The module docstring says what each hook is for.
    """
    start, resumed, save = resumption.start, resumption.resumed, resumption.save
    checkpoint_every, checkpoint_seconds = resumption.checkpoint_every, resumption.checkpoint_seconds
    if lr_at is not None and optimizer is None:
        raise ValueError("lr_at needs the optimizer whose param groups it sets")
    if eval_every < 1:
        raise ValueError(f"eval_every must be >= 1, got {eval_every!r}")
    postfix = bar.postfix
    progress = count_bar(steps, bar.desc, enabled=bar.enabled, initial=start)
    step, current_lr = start, None
    last_saved = start if resumed else None  # the step of the newest checkpoint on disk
    last_save_time = monotonic()
    in_update = False  # inside step_fn: the parameters may be half updated

    def checkpoint(step: int) -> None:
        nonlocal last_saved, last_save_time
        assert save is not None
        try:
            save(step)
        except OSError as exc:
            checkpoint_log(f"warning: the checkpoint of step {step} was not saved ({exc}); training goes on")
        else:
            last_saved = step
        last_save_time = monotonic()

    with _deferred_interrupt(save is not None) as interrupted:
        try:
            while True:
                if interrupted[0]:
                    raise KeyboardInterrupt
                may_save = save is not None and not (resumed and step == start)
                evaluated = evaluate is not None and (step % eval_every == 0 or step == steps)
                if evaluated:
                    record = evaluate(step)
                    if postfix is not None:
                        progress.set_postfix(postfix(record), refresh=False)
                due = step == steps or bool(checkpoint_every and step % checkpoint_every == 0)
                due = due or bool(checkpoint_seconds and monotonic() - last_save_time >= checkpoint_seconds)
                saved = may_save and due
                if saved:
                    checkpoint(step)
                if evaluated and stop is not None and stop(step, record):
                    if may_save and not saved:
                        checkpoint(step)
                    return LoopEnd(step, step < steps)
                if step >= steps:
                    return LoopEnd(step, False)
                if lr_at is not None:
                    lr = lr_at(step)
                    if lr != current_lr:
                        for group in optimizer.param_groups:
                            group["lr"] = lr
                        current_lr = lr
                in_update = True
                loss = step_fn(step)
                in_update = False
                if guard is not None and (step % guard.every == 0 or step + 1 == steps):
                    guard(step, loss)
                step += 1
                progress.update(1)
        except KeyboardInterrupt:
            if save is not None and not in_update and last_saved != step:
                checkpoint(step)
                if last_saved == step:
                    checkpoint_log(f"interrupted: saved a checkpoint at step {step}; a rerun resumes from it")
            raise
        finally:
            progress.close()


@contextmanager
def _deferred_interrupt(enabled: bool) -> Iterator[list[bool]]:
    """While enabled (and in the main thread), for SIGINT and SIGTERM each, when the handler in place only raises
    ``KeyboardInterrupt`` (Python's default SIGINT handler, or ``tvk``'s for both signals:
    :func:`verify.runtime.interrupts.deferrable`; Python's default SIGTERM kills the process and is left alone), the
    first such signal only sets the flag ``interrupted[0]`` (checked by :func:`run_loop` between updates) and puts the
    handlers back, so a second one raises ``KeyboardInterrupt`` at once."""
    interrupted = [False]
    previous = {sig: signal.getsignal(sig) for sig in INTERRUPT_SIGNALS}
    deferred = {sig: h for sig, h in previous.items() if deferrable(h)}
    if not enabled or threading.current_thread() is not threading.main_thread() or not deferred:
        yield interrupted
        return

    def handler(signum: int, frame: Any) -> None:
        interrupted[0] = True
        for sig, h in deferred.items():
            signal.signal(sig, h)
        checkpoint_log("interrupt: saving a checkpoint after this update (interrupt again to stop at once)")

    for sig in deferred:
        signal.signal(sig, handler)
    try:
        yield interrupted
    finally:
        for sig, h in deferred.items():
            signal.signal(sig, h)
    if interrupted[0]:  # the interrupt came during the last steps: the run ended, the caller still stops
        raise KeyboardInterrupt


def stack_seeds(
    seeds: Sequence[int],
    init: Callable[[int], Any],
    *,
    device: torch.device | str = "cpu",
    dtype: torch.dtype = torch.float64,
) -> Any:
    """The leading seed dimension: ``init(seed)`` for every seed, stacked along a new axis 0 and moved.

    ``init`` returns a tensor, or a dict of tensors (stacked name by name). Each seed's values come from its
    own ``init`` call, so a seed gets the same initial parameters whatever ensemble it belongs to.
    """
    per_seed = [init(int(s)) for s in seeds]
    if isinstance(per_seed[0], dict):
        return {name: torch.stack([p[name] for p in per_seed]).to(device=device, dtype=dtype) for name in per_seed[0]}
    return torch.stack(per_seed).to(device=device, dtype=dtype)


@contextmanager
def torch_threads(num_threads: int | None) -> Iterator[None]:
    """Set torch's intra-op CPU threads for the block and restore them after; None leaves the setting alone."""
    if num_threads is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def save_atomically(path: Path, state: dict[str, Any]) -> None:
    """``torch.save`` to a new temporary file in the same folder (``mkstemp``: an unpredictable name, created
    exclusively, so no planted file or symlink is written through), flushed to the disk, then ``os.replace``
    (readers never see half a file). On any error the temporary file is removed and ``path`` is unchanged."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(state, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def cosine_annealing(lr: float, t_max: int, eta_min: float, steps: int) -> list[float]:
    r"""The lr of updates 0..steps-1 under ``torch.optim.lr_scheduler.CosineAnnealingLR(T_max, eta_min)``.

    :math:`\eta_t \approx \eta_{\min} + (\eta_0 - \eta_{\min})(1 + \cos(\pi t / T))/2`, computed with torch's own
    recursion (the ratio of consecutive cosine factors applied to the previous lr), so the values are bit for
    bit those the torch scheduler would write into the param groups.
    """
    lrs = [float(lr)] if steps > 0 else []
    for t in range(1, steps):
        if (t - 1 - t_max) % (2 * t_max) == 0:
            lrs.append(lrs[-1] + (lr - eta_min) * (1 - math.cos(math.pi / t_max)) / 2)
        else:
            ratio = (1 + math.cos(math.pi * t / t_max)) / (1 + math.cos(math.pi * (t - 1) / t_max))
            lrs.append(ratio * (lrs[-1] - eta_min) + eta_min)
    return lrs
