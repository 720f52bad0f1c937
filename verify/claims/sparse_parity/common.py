"""What the Ch. 5 and Ch. 6 sparse-parity claims share: training a configuration on the report's device and
turning convergence times into plain data (``None`` for a seed that did not converge)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from verify.sparse_parity import SparseParityConfig, SparseParityResult, train_parity

from ..base import RunContext

__all__ = ["SRC_CH5", "SRC_CH6", "relu_mlp", "run_parity", "tc_list"]

SRC_CH5 = "Edelman thesis (2024) Ch. 5 / App. B (Barak et al. 2022)"
SRC_CH6 = "Edelman thesis (2024) Ch. 6 / App. C.3 (Edelman et al. 2023, Pareto frontiers)"


def relu_mlp(
    n: int, k: int, width: int, seeds: tuple[int, ...], steps: int, eval_every: int, **options: Any
) -> SparseParityConfig:
    """The model of both chapters' experiments: a width-r ReLU MLP u^T ReLU(Wx + b) trained with the hinge loss by
    SGD (Sec. 5.3.1 setting (ii), App. C.3.1); ``options`` are further :class:`SparseParityConfig` fields (init,
    learning rate, batch size, offline sample, weight decay, ...)."""
    return SparseParityConfig(
        n=n,
        k=k,
        width=width,
        activation="relu",
        loss="hinge",
        seeds=seeds,
        steps=steps,
        eval_every=eval_every,
        **options,
    )


def run_parity(cfg: SparseParityConfig, ctx: RunContext) -> SparseParityResult:
    """Train the seed ensemble ``cfg`` on ``ctx.device`` with the report's progress setting."""
    return train_parity(cfg, progress=ctx.progress, device=ctx.device)


def tc_list(t_c: np.ndarray) -> list[float | None]:
    """Convergence times as JSON-ready floats, ``None`` for a seed that did not converge (t_c = inf)."""
    return [float(t) if math.isfinite(t) else None for t in t_c]
