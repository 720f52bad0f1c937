"""What every training claim shares: running the trainer for a claim on the run's device.

Training claims of every task (modular addition, sparse parity, finite groups) train a seed ensemble
with :func:`verify.train.polynomial.train` on ``ctx.device``, with a checkpoint under the report's scratch directory so
an interrupted report resumes. The checkpoint's name carries a hash of the trainer's configuration (which
holds no device: a run checkpointed on one device resumes on another) and is removed once the run finishes.
Their verdicts use :class:`verify.claims.judges.PerSeed`; :data:`MARGIN_RATIO` is the check they share.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from numerics.margins import Task
from verify.runtime.jsonable import config_hash
from verify.runtime.options import RunOptions
from verify.train.polynomial import train

from .base import RunContext
from .judges import Check

__all__ = ["checkpoint_path", "margin_ratio_check", "run_checkpointed", "train_for_claim"]

T = TypeVar("T")


def margin_ratio_check(min_ratio: float | str = "min_ratio") -> Check:
    """A seed's normalized margin over gamma* must lie in [min_ratio, 1 + 1e-9]: no network beats the maximum
    margin (the upper end), and training gets close to it (the lower end). By default ``min_ratio`` is read from
    the claim's config (quick and full scales set their own)."""
    return Check("margin_ratio", "margin ratio", lo=min_ratio, hi=1 + 1e-9)


def checkpoint_path(ctx: RunContext, tag: str, config: Any) -> str | None:
    """``<workdir>/<tag>_<config hash>.ckpt`` under the report's scratch directory, or None without one (the hash
    also covers the run options that change what is trained: the dtype and the seed offset)."""
    if not ctx.workdir:
        return None
    os.makedirs(ctx.workdir, exist_ok=True)
    digest = config_hash({"config": config, "dtype": ctx.options.dtype, "seed_offset": ctx.options.seed_offset})
    return os.path.join(ctx.workdir, f"{tag}_{digest}.ckpt")


def run_checkpointed(ctx: RunContext, tag: str, config: Any, run: Callable[[RunOptions], T]) -> T:
    """``run(options)`` with the run's options and the checkpoint file :func:`checkpoint_path` (None without a
    scratch directory), which the trainer saves to and resumes from; removed once the run has finished, so the next
    report trains afresh (an interrupted run leaves it for the rerun)."""
    ckpt = checkpoint_path(ctx, tag, config)
    result = run(ctx.run_options(ckpt))
    if ckpt and os.path.exists(ckpt):
        os.unlink(ckpt)
    return result


def train_for_claim(
    task: Task, degree: int, width: int, train_cfg: Any, ctx: RunContext, tag: str, reference_margin: float
) -> Any:
    """Train ``width`` neurons of degree ``degree`` on ``task`` for a claim; returns the ``TrainResult``."""
    return run_checkpointed(
        ctx,
        f"{tag}_m{width}",
        train_cfg.to_dict(),
        lambda options: train(task, degree, width, train_cfg, options, reference_margin=reference_margin),
    )
