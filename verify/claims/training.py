"""What every training claim shares: running the trainer for a claim on the run's device.

Training claims of every task (modular addition, sparse parity, finite groups) train a seed ensemble
with :func:`verify.train.polynomial.train` on ``ctx.device``, with a checkpoint under the report's scratch directory so
an interrupted report resumes. The checkpoint's name carries a hash of the trainer's configuration (which
holds no device) and is removed once the run finishes (a run that several claims share: once the last of them has
run). A run checkpointed on one device resumes on another when it
trains in the same dtype there and draws from no device generator; otherwise (a CPU run with dtype None is float64,
a CUDA one float32; a CPU generator's state does not fit a CUDA generator) the file is set aside and the run starts
afresh (docs/training.md).
Their verdicts use :class:`verify.claims.judges.PerSeed`; :func:`margin_ratio_check` is the check they share, and
:class:`MarginPerSeed` the judge that computes each seed's margin ratio from the claim's predicted gamma*.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from numerics.margins import Task
from verify.runtime.claim_run import finished_checkpoint
from verify.runtime.jsonable import config_hash
from verify.runtime.options import RunOptions
from verify.train.polynomial import train

from .base import RunContext
from .judges import PERTURB_REL, Check, PerSeed, as_float, flatten, perturb_value

__all__ = ["MarginPerSeed", "checkpoint_path", "margin_ratio_check", "run_checkpointed", "train_for_claim"]

T = TypeVar("T")


def margin_ratio_check(min_ratio: float | str = "min_ratio") -> Check:
    """A seed's normalized margin over gamma* must lie in [min_ratio, 1 + 1e-9]: no network beats the maximum
    margin (the upper end), and training gets close to it (the lower end). By default ``min_ratio`` is read from
    the claim's config (quick and full scales set their own)."""
    return Check("margin_ratio", "margin ratio", lo=min_ratio, hi=1 + 1e-9)


@dataclass(frozen=True)
class MarginPerSeed(PerSeed):
    """:class:`PerSeed` for a training claim whose prediction is gamma*: each seed's margin ratio is computed here, in
    the judge, as its normalized margin (the row's ``margin_field``, measured from the trained weights without
    gamma*) over the **predicted** gamma*, and replaces the row's ``margin_ratio`` before the checks (usually
    :func:`margin_ratio_check`, window [config.min_ratio, 1 + 1e-9]) see it. A wrong gamma* therefore changes the
    verdict: one that is too small puts every seed that came within its error of gamma* above the window's upper end
    ("no network beats gamma*"), one that is too large pushes seeds below ``min_ratio``. The perturbation moves
    gamma* down by 1 % (the upper end is the tight one for seeds that reach above 0.99 gamma*); a claim whose seeds
    stay below 0.99 gamma* cannot see a 1 % error and says so in ``Claim.insensitive``."""

    margin_field: str = "normalized_margin"

    def _counts(self, predicted: Any, obs: Any, config: Any) -> tuple[list[list[str]], list[dict[str, Any]]]:
        values = flatten(predicted)
        if len(values) != 1:
            raise ValueError(f"MarginPerSeed needs one predicted gamma*, got {len(values)} values")
        gamma = as_float(values[0])
        rows = [row | {"margin_ratio": float(row[self.margin_field]) / gamma} for row in obs.details[self.rows]]
        return self.seed_problems(predicted, rows, config), rows

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, PERTURB_REL, sign=-1)

    def describe(self) -> str:
        return f"margin ratio = normalized margin / predicted gamma*; {super().describe()}"


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
    report trains afresh (an interrupted run leaves it for the rerun), or, for a run that several claims share, once
    the last of them has run (:func:`verify.runtime.claim_run.finished_checkpoint`)."""
    ckpt = checkpoint_path(ctx, tag, config)
    result = run(ctx.run_options(ckpt))
    if ckpt:
        finished_checkpoint(ckpt)
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
