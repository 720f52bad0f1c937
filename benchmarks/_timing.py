"""Timing helpers shared by the benchmark scripts (best-of-N wall time in the same process, matrix-product peak)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Run ``fn`` ``repeats`` times; return (the smallest wall time in seconds, the last result)."""
    best, out = float("inf"), None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def sync(device: str) -> None:
    """Wait for the device's queued kernels (CUDA); nothing on the CPU."""
    if device.startswith("cuda"):
        import torch  # deferred: the scripts without torch import this module too

        torch.cuda.synchronize()


def matmul_peak(
    dtype: Any,
    device: str = "cpu",
    clock: Callable[[], float] = time.perf_counter,
    size: int | None = None,
    repeats: int = 7,
    warmups: int = 1,
    tf32: bool = False,
) -> float:
    """FLOP/s of the best of ``repeats`` (size x size) torch products after ``warmups`` (this machine's practical
    peak for ``dtype``): ``size`` defaults to 1024 on the CPU and 8192 on CUDA, where a 1024 product is too short to
    keep the GPU busy; ``tf32`` lets float32 CUDA products use TF32 for the measurement."""
    import torch  # deferred, as above

    size = size or (8192 if device.startswith("cuda") else 1024)
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        a, b = (torch.randn(size, size, dtype=dtype, device=device) for _ in range(2))
        for _ in range(warmups):
            a @ b
        sync(device)
        best = math.inf
        for _ in range(repeats):
            t0 = clock()
            a @ b
            sync(device)
            best = min(best, clock() - t0)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before
    return 2.0 * size**3 / best


def step_products(n: int, m: int, C: int, dtype: Any, device: str, seeds: int = 1) -> Callable[[], Any]:
    """The three matrix products every training step of one seed must do, on random operands: the logits A W,
    (n x m)(m x C), and the gradient's A^T G and G W^T (6 n m C flop; the hand-written step and the full-grid kernel
    do these FLOPs and nothing larger). With ``seeds`` > 1, that many seeds' products batched (one ``bmm`` each), as
    a batched step runs them. Returns the call (no synchronisation)."""
    import torch  # deferred, as above

    shape = (seeds,) if seeds > 1 else ()
    A = torch.randn(*shape, n, m, dtype=dtype, device=device)
    W = torch.randn(*shape, m, C, dtype=dtype, device=device)
    G = torch.randn(*shape, n, C, dtype=dtype, device=device)
    return lambda: (A @ W, A.mT @ G, G @ W.mT)


def summary(doc: str | None) -> str:
    """The first paragraph of a script's docstring as one line: its ``--help`` description (the first line alone
    stops mid-sentence where the docstring wraps)."""
    return " ".join((doc or "").strip().split("\n\n")[0].split())
