"""The loop skeleton shared by the toolkit's trainers (docs/training.md).

:func:`run_loop` runs ``step_fn(step)`` for ``step = start, ..., steps - 1`` and does around it what every
trainer needs:

* evaluation (``evaluate(step)``) at every multiple of ``eval_every`` and at the last step, *before* the
  update of that step, so the record at step t describes the parameters after t updates;
* an early stop (``stop(step, record)``) after each evaluation;
* the learning-rate schedule ``lr_at(step)`` written into the optimiser's param groups whenever it changes;
* a NaN/inf guard (:class:`NonFiniteGuard`) on the per-seed loss returned by ``step_fn`` and on named weights,
  raising the trainer's own error with the step and the seeds;
* a checkpoint hook ``save(step)`` at multiples of ``checkpoint_every``, at the last step and on an early stop
  (never at the step a run resumed from);
* a throttled tqdm bar on stderr.

Helpers: :func:`stack_seeds` (the leading seed dimension: one initialisation per seed, stacked),
:func:`torch_threads` (torch's intra-op thread count for the duration of a run), :func:`save_atomically`
(checkpoint files) and :func:`cosine_annealing` (torch's cosine schedule as a list of learning rates).
"""

from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

import torch
from tqdm.auto import tqdm

__all__ = [
    "LoopEnd",
    "NonFiniteGuard",
    "run_loop",
    "stack_seeds",
    "torch_threads",
    "save_atomically",
    "cosine_annealing",
    "first_nonfinite_seeds",
]

R = TypeVar("R")
PROGRESS_INTERVAL = 0.5  # seconds between redraws of the progress bar


@dataclass(frozen=True)
class LoopEnd:
    """Where :func:`run_loop` stopped: ``step`` updates done; ``stopped`` if ``stop`` ended it before ``steps``."""

    step: int
    stopped: bool


def first_nonfinite_seeds(values: torch.Tensor) -> list[int]:
    """Positions along the leading (seed) axis whose entries are not all finite; [] when all are finite."""
    ok = torch.isfinite(values.reshape(values.shape[0], -1)).all(dim=1)
    if bool(ok.all()):
        return []
    return (~ok).nonzero()[:, 0].tolist()


@dataclass(frozen=True)
class NonFiniteGuard:
    """Raise the trainer's error when the loss or the weights of some seed become NaN or infinite.

    Parameters
    ----------
    seeds : tuple of int
        The seed of each position of the leading seed axis.
    error : callable
        ``error(step, bad_seeds, what)`` returns the exception to raise; ``bad_seeds`` lists every offending
        seed (in ensemble order) and ``what`` describes the first one.
    every : int
        :func:`run_loop` checks after the update of every step that is a multiple of ``every`` and after the
        last update (1 = every step; larger saves device synchronisations).
    weights : mapping of str to tensor
        Named parameters with a leading seed axis, checked after the loss.
    """

    seeds: tuple[int, ...]
    error: Callable[[int, list[int], str], Exception]
    every: int = 1
    weights: Mapping[str, torch.Tensor] | None = None

    def __call__(self, step: int, loss: torch.Tensor | None) -> None:
        """Check the per-seed ``loss`` (S,) of update ``step`` and then the weights; raise on the first problem."""
        if loss is not None:
            bad = first_nonfinite_seeds(loss)
            if bad:
                raise self.error(step, [self.seeds[i] for i in bad], f"loss = {loss[bad[0]].item()}")
        for name, tensor in (self.weights or {}).items():
            bad = first_nonfinite_seeds(tensor.detach())
            if bad:
                raise self.error(step, [self.seeds[i] for i in bad], f"weights {name} became NaN/inf after this update")


def run_loop(
    step_fn: Callable[[int], torch.Tensor | None],
    steps: int,
    *,
    start: int = 0,
    evaluate: Callable[[int], R] | None = None,
    eval_every: int = 1,
    stop: Callable[[int, R], bool] | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    lr_at: Callable[[int], float] | None = None,
    guard: NonFiniteGuard | None = None,
    save: Callable[[int], None] | None = None,
    checkpoint_every: int | None = None,
    resumed: bool = False,
    progress: bool = False,
    desc: str = "train",
    postfix: Callable[[R], dict[str, str]] | None = None,
) -> LoopEnd:
    """Run ``step_fn(step)`` (one update; returns the per-seed loss or None) for ``step = start .. steps - 1``.

    At each step t, in this order: evaluate (if t is a multiple of ``eval_every`` or t = ``steps``); save a
    checkpoint (if t is a multiple of ``checkpoint_every`` or t = ``steps``, unless the run resumed at t);
    ask ``stop(t, record)`` after an evaluation (a stop also saves); end at t = ``steps``; set the lr
    ``lr_at(t)`` in every param group of ``optimizer`` if it changed; ``step_fn(t)``; the guard (if t is a
    multiple of ``guard.every`` or the last update). The module docstring says what each hook is for.
    """
    if lr_at is not None and optimizer is None:
        raise ValueError("lr_at needs the optimizer whose param groups it sets")
    if eval_every < 1:
        raise ValueError(f"eval_every must be >= 1, got {eval_every!r}")
    bar = tqdm(
        total=steps,
        initial=start,
        file=sys.stderr,
        disable=not progress,
        desc=desc,
        leave=False,
        dynamic_ncols=True,
        mininterval=PROGRESS_INTERVAL,
    )
    step, current_lr = start, None
    try:
        while True:
            may_save = save is not None and not (resumed and step == start)
            evaluated = evaluate is not None and (step % eval_every == 0 or step == steps)
            if evaluated:
                record = evaluate(step)
                if postfix is not None:
                    bar.set_postfix(postfix(record), refresh=False)
            saved = may_save and (step == steps or bool(checkpoint_every and step % checkpoint_every == 0))
            if saved:
                save(step)
            if evaluated and stop is not None and stop(step, record):
                if may_save and not saved:
                    save(step)
                return LoopEnd(step, step < steps)
            if step >= steps:
                return LoopEnd(step, False)
            if lr_at is not None:
                lr = lr_at(step)
                if lr != current_lr:
                    for group in optimizer.param_groups:
                        group["lr"] = lr
                    current_lr = lr
            loss = step_fn(step)
            if guard is not None and (step % guard.every == 0 or step + 1 == steps):
                guard(step, loss)
            step += 1
            bar.update(1)
    finally:
        bar.close()


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
    """``torch.save`` to a temporary file in the same folder, then ``os.replace`` (readers never see half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        torch.save(state, tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


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
