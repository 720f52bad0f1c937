"""What every training claim shares: running the trainer for a claim, and the margin-ratio check.

Training claims of every task (modular addition, sparse parity, finite groups) train a seed ensemble
with :func:`verify.train.train` on the report's device, with a checkpoint under the report's scratch
directory so an interrupted report resumes; the checkpoint name carries a hash of the configuration (a
changed config trains afresh) and is removed once the run finishes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import Any

from numerics.margins import Task

from .base import RunContext, Verdict

__all__ = ["train_for_claim", "ratio_problem", "training_verdict"]


def train_for_claim(task: Task, degree: int, width: int, train_cfg: Any, ctx: RunContext, tag: str,
                    reference_margin: float) -> Any:
    """Train ``width`` neurons of degree ``degree`` on ``task`` for a claim; returns the ``TrainResult``."""
    from verify.train import train

    cfg = dataclasses.replace(train_cfg, device=ctx.device)
    ckpt = None
    if ctx.workdir:
        os.makedirs(ctx.workdir, exist_ok=True)
        digest = hashlib.sha1(json.dumps(cfg.to_dict(), sort_keys=True).encode()).hexdigest()[:10]
        ckpt = os.path.join(ctx.workdir, f"{tag}_m{width}_{digest}.ckpt")
    result = train(task, degree, width, cfg, checkpoint_path=ckpt, progress=ctx.progress, reference_margin=reference_margin)
    if ckpt and os.path.exists(ckpt):
        os.unlink(ckpt)  # finished: the next report trains afresh
    return result


def ratio_problem(seed_index: int, ratio: float, min_ratio: float) -> str | None:
    """The problem with a seed's margin ratio, if any: it must lie in [min_ratio, 1 + 1e-9] (no network
    beats the maximum margin)."""
    if min_ratio <= ratio <= 1 + 1e-9:
        return None
    return f"seed {seed_index}: margin ratio {ratio:.4f} outside [{min_ratio}, 1+1e-9]"


def training_verdict(summary: str, problems: list[str], ok_note: str) -> tuple[Verdict, str]:
    """``fail`` listing every per-seed problem, or ``pass`` with ``ok_note``; both lead with ``summary``."""
    if problems:
        return "fail", summary + "; " + "; ".join(problems)
    return "pass", summary + "; " + ok_note
