"""How close a training step can get to the GPU's matrix-product peak, and what kernel launches cost (CUDA only).

Usage (on a CUDA machine)::

    python benchmarks/bench_cuda_step.py                     # p = 71, k = 2, m = 500, 8 seeds, float32
    python benchmarks/bench_cuda_step.py --p 97 --width 768 --seeds 3 --no-compile

For the full-batch modular-addition step of ``--seeds`` networks (verify.train.polynomial_step), times each variant eagerly
and replayed from a CUDA graph (``torch.cuda.CUDAGraph``: the same kernels without launch overhead), median of
``--repeats`` calls, as a fraction of the float32 matrix-product peak measured in the same run:

* ``products``: the step's three matrix products alone (6 n m C flop per seed), all seeds batched into one ``bmm``
  each: the ceiling of issue 18's ratio (b) for any step that does these products;
* the data gradient through the general kernel (``index_add`` and one-hot product scatter) and the full-grid
  kernel (all seeds per launch), and the latter compiled (``torch.compile``) and with TF32 products;
* a whole update: the data gradient plus torch's fused Adam (``capturable=True``, tensor learning rate).

docs/benchmarks.md ("The full-grid kernel on CUDA") records the numbers and why no CUDA-graph path was added.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import matmul_peak, step_products, summary

from numerics.modular import ModularTask
from verify.train.polynomial_step import ChunkSchedule, ensemble_gradient, grid_labels


def median_time(fn: Callable[[], Any], repeats: int) -> float:
    """Median wall time of ``fn`` (each call synchronised), after one warm-up call."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def graphed(fn: Callable[[], Any]) -> Callable[[], None]:
    """``fn`` captured in a CUDA graph (after three warm-up calls on a side stream, as torch's docs require);
    returns the graph's replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--p", type=int, default=71)
    parser.add_argument("--width", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (tens of seconds)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("bench_cuda_step.py measures CUDA kernels and graphs: no CUDA device here")
    dev, dt = "cuda", torch.float32
    S, m, p = args.seeds, args.width, args.p
    task = ModularTask(p, 2)
    x_np, y_np = task.batch(0, task.n_points)
    x, y = torch.as_tensor(x_np, device=dev), torch.as_tensor(y_np, device=dev)
    n = x.shape[0]
    labels = grid_labels(x, y, p)
    assert labels is not None
    gen = torch.Generator(device="cpu").manual_seed(0)
    U = (torch.randn(S, m, 2, p, generator=gen, dtype=dt) * 0.5 / p**0.5).to(dev).requires_grad_()
    W = (torch.randn(S, m, p, generator=gen, dtype=dt) * 0.5 / p**0.5).to(dev).requires_grad_()
    Ud, Wd = U.detach(), W.detach()
    flops = 6.0 * n * m * p * S
    peak = matmul_peak(dt, dev)
    print(
        f"{torch.cuda.get_device_name()}, torch {torch.__version__}: p = {p}, k = 2, m = {m}, {S} seeds, float32, "
        f"{n} points; {flops / 1e9:.2f} GFLOP per step; float32 peak {peak / 1e12:.1f} TFLOP/s; median of "
        f"{args.repeats} calls"
    )

    def row(name: str, fn: Callable[[], Any], graph: bool = True) -> None:
        with torch.no_grad():
            cells = [("eager", median_time(fn, args.repeats))]
            if graph:
                cells.append(("graph", median_time(graphed(fn), args.repeats)))
        text = ", ".join(f"{how} {1e3 * t:.3f} ms ({flops / t / peak:.0%})" for how, t in cells)
        print(f"  {name:46s} {text}", flush=True)

    row("products alone (A W, A^T G, G W^T), seeds batched", step_products(n, m, p, dt, dev, S))

    def gradient(scatter: str = "index", grid: bool = False) -> Callable[[], Any]:
        return lambda: ensemble_gradient(
            Ud,
            Wd,
            2,
            x,
            y,
            ChunkSchedule(group=S, chunk=n, strategy="batched", scatter=scatter),
            labels=labels if grid else None,
        )

    row("general kernel, index_add", gradient())
    row("general kernel, one-hot product scatter", gradient("matmul"))
    row("full-grid kernel, seeds batched", gradient(grid=True))
    torch.backends.cuda.matmul.allow_tf32 = True
    row("full-grid kernel, TF32 products (vs float32 peak)", gradient(grid=True))
    torch.backends.cuda.matmul.allow_tf32 = False
    if not args.no_compile:
        t0 = time.perf_counter()
        compiled = torch.compile(gradient(grid=True), dynamic=False)
        compiled()
        torch.cuda.synchronize()
        print(f"  (torch.compile of the full-grid gradient: {time.perf_counter() - t0:.1f} s)")
        row("full-grid kernel, compiled", compiled)

    for name, scatter, grid in (("full-grid kernel", "index", True), ("one-hot product scatter", "matmul", False)):
        opt = torch.optim.Adam([U, W], lr=torch.tensor(1e-3, device=dev), fused=True, capturable=True)
        grad = gradient(scatter, grid)

        def update(opt: torch.optim.Optimizer = opt, grad: Callable[[], Any] = grad) -> torch.Tensor:
            opt.zero_grad(set_to_none=True)
            ce, dU, dW = grad()
            U.grad, W.grad = dU, dW
            opt.step()
            return ce

        row(f"whole update (+ fused Adam), {name}", update)


if __name__ == "__main__":
    main()
