"""One training step of the modular-addition network: execution strategies, torch.compile, memory plans.

Usage::

    python benchmarks/bench_train_step.py                                # p = 71, k = 2, m = 500, 8 seeds
    python benchmarks/bench_train_step.py --p 7 --k 2 --width 32 --dtype float64
    python benchmarks/bench_train_step.py --compile                      # adds torch.compile (minutes on a CPU)
    python benchmarks/bench_train_step.py --plans                        # memory plans of the paper settings

Times the data gradient of one full-batch step (no optimiser) for every seed, best of ``--repeats`` alternating
rounds in one process: ``autograd`` (the model's forward pass and ``backward``, the trainer's step before
verify.train.polynomial_step), the hand-written gradient with ``batched`` (all seeds per kernel), ``loop`` (one seed at a
time) and ``vmap`` (``torch.func.vmap`` of the single-seed autograd gradient), the full-grid kernel for k = 2
(``grid-loop``, ``grid-parallel``, ``grid-batched``: verify.train.polynomial_step._grid_gradient), what ``auto`` picks, and optionally
the compiled chunk gradient. Prints each as ms/step, GFLOP/s and fraction of the matrix-product peak of the same
dtype measured in the same run, and checks that every variant gives the autograd gradient.

``--plans`` prints, for the thesis-scale runs of the Shi Theorem 4.9 training claims, the chunk size and peak
memory the planner would choose on a GPU with ``--gpu-gib`` GiB free, and the FLOPs of one step.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import matmul_peak, summary, sync

from numerics.modular import ModularTask
from verify.train.homogeneous import HomogeneousEnsemble
from verify.train.polynomial import _per_seed_cross_entropy
from verify.train.polynomial_step import (
    ChunkSchedule,
    StepRequest,
    StepShapes,
    _compile_for,
    ensemble_gradient,
    grid_labels,
    grid_rows,
    memory_plan,
    plan_step,
)

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
#: Thesis-scale Shi Theorem 4.9 training runs (p, k, width, seeds, the claim's chunk_size), as registered in
#: verify.claims.modular (shi-thm4.9-training-k2 ... -k5 at --scale full).
#: (p, k, m, S, a fixed chunk for comparison): the thesis-scale Shi Thm 4.9 runs, whose claims leave the chunk to the
#: memory plan (chunk_size None, the first row of each pair).
PAPER_RUNS = ((97, 2, 768, 3, 1 << 16), (97, 3, 1536, 3, 1 << 15), (47, 4, 2944, 3, 1 << 14), (23, 5, 5632, 3, 1 << 13))


def plans(gpu_gib: float) -> None:
    """Memory plans of the paper-scale runs on a GPU with ``gpu_gib`` GiB free (float32, Adam)."""
    free = int(gpu_gib * 2**30)
    print(f"memory plans on a GPU with {gpu_gib:g} GiB free (float32, Adam, full batch):")
    print("   p  k     m  S      points  strategy  chunk_size       chunk  chunks/step  peak GiB  GFLOP/step")
    for p, k, m, S, fixed_chunk in PAPER_RUNS:
        sh = StepShapes(S, m, k, p, p, k, False, p**k, p**k, 4, 2)
        for strategy in ("batched", "loop"):
            for chunk_size in (None, fixed_chunk):
                chunk, peak = memory_plan(sh, strategy, "cuda", free, chunk_size)
                print(
                    f"{p:4d} {k:2d} {m:5d} {S:2d} {p**k:11d}  {strategy:8s} {chunk_size!s:>10s} {chunk:11d} "
                    f"{math.ceil(p**k / chunk):12d} {peak / 2**30:9.1f} {sh.flops_per_step / 1e9:11.1f}"
                )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--p", type=int, default=71)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--width", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float32")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-vmap", action="store_true", help="skip vmap (slow at large sizes)")
    parser.add_argument("--compile", action="store_true", help="also time the torch.compile'd chunk gradient")
    parser.add_argument("--plans", action="store_true", help="print the memory plans of the paper-scale runs")
    parser.add_argument("--gpu-gib", type=float, default=80.0)
    parser.add_argument("--device", default="cpu", help="cpu or cuda (use --clock wall on CUDA)")
    parser.add_argument("--no-autograd", action="store_true", help="skip autograd (its memory at thesis sizes)")
    args = parser.parse_args(argv)
    if args.plans:
        plans(args.gpu_gib)
        return

    torch.set_num_threads(args.threads)
    clock = CLOCKS[args.clock]
    dtype = torch.float32 if args.dtype == "float32" else torch.float64
    task = ModularTask(args.p, args.k)
    x_np, y_np = task.batch(0, task.n_points)
    dev = args.device
    X, Y = torch.as_tensor(x_np, device=dev), torch.as_tensor(y_np, device=dev)
    model = HomogeneousEnsemble.from_seeds(
        range(args.seeds),
        width=args.width,
        n_blocks=args.k,
        block_size=args.p,
        n_classes=args.p,
        degree=args.k,
        init_std=0.5 / math.sqrt(args.p),
        dtype=dtype,
        device=dev,
    )
    auto = plan_step(model.U, model.W, args.k, X, Y, StepRequest(dataset_points=len(Y), optimizer_slots=2, steps=1000))
    chunk = auto.plan.chunk
    S = args.seeds

    def autograd() -> Any:
        model.zero_grad(set_to_none=True)
        ce = _per_seed_cross_entropy(model(X), Y) / len(Y)
        ce.sum().backward()
        return ce.detach(), model.U.grad, model.W.grad

    labels = grid_labels(X, Y, args.p) if args.k == 2 else None
    rows = grid_rows(args.width, args.p, dtype.itemsize, args.p, torch.device(dev).type)

    def fused(strategy: str, compiled: Any = None, grid: bool = False, scatter: str = "index") -> Callable[[], Any]:
        group = 1 if strategy in ("loop", "parallel") else S
        workers = min(torch.get_num_threads(), S) if strategy == "parallel" else 1
        return lambda: ensemble_gradient(
            model.U,
            model.W,
            args.k,
            X,
            Y,
            ChunkSchedule(
                group=group, chunk=rows * args.p if grid else chunk, strategy=strategy, workers=workers, scatter=scatter
            ),
            compiled=compiled,
            labels=labels if grid else None,
        )

    variants: dict[str, Callable[[], Any]] = {"batched": fused("batched"), "loop": fused("loop")}
    if not args.no_autograd:
        variants = {"autograd": autograd, **variants}
    variants["matmul-batched"] = fused("batched", scatter="matmul")  # the one-hot product scatter
    variants["matmul-loop"] = fused("loop", scatter="matmul")
    if torch.get_num_threads() > 1:
        variants["parallel"] = fused("parallel")
    if labels is not None:  # the full-grid kernel (k = 2, degree 2)
        variants["grid-loop"] = fused("loop", grid=True)
        variants["grid-batched"] = fused("batched", grid=True)  # all seeds per call (what CUDA runs)
        if torch.get_num_threads() > 1:
            variants["grid-parallel"] = fused("parallel", grid=True)
    if not args.no_vmap:
        variants["vmap"] = fused("vmap")
    if args.compile:
        sh = StepShapes(S, args.width, args.k, args.p, args.p, args.k, False, len(Y), len(Y), dtype.itemsize, 2)
        t0 = time.perf_counter()
        compiled = _compile_for(sh, auto.plan.strategy, chunk, model.U, model.W, args.k, X, Y)
        print(f"torch.compile of the chunk gradient ({auto.plan.strategy}): {time.perf_counter() - t0:.1f} s wall")
        if compiled is not None:
            variants[f"{auto.plan.strategy}+compile"] = fused(auto.plan.strategy, compiled)
    flops = auto.plan.flops_per_step
    reference = autograd() if not args.no_autograd else variants["loop"]()
    base = "autograd" if not args.no_autograd else "loop"
    best = {name: math.inf for name in variants}
    for _ in range(args.repeats):
        for name, fn in variants.items():
            fn()
            sync(dev)
            t0 = clock()
            out = fn()
            sync(dev)
            best[name] = min(best[name], clock() - t0)
            if name != "autograd":
                err = max(float((a - b).abs().max() / b.abs().max()) for a, b in zip(out, reference))
                assert err < (1e-4 if dtype == torch.float32 else 1e-10), (name, err)
    peak = matmul_peak(dtype, dev, clock)
    print(
        f"p={args.p} k={args.k} m={args.width} S={S} {args.dtype}, {len(Y)} points, chunks of {chunk}, threads "
        f"{torch.get_num_threads()}, device {dev}, {args.clock} clock, best of {args.repeats}; auto picks {auto.plan.strategy} "
        f"({auto.plan.kernel} kernel, chunks of {auto.plan.chunk}) "
        f"[{auto.plan.reason}]; {flops / 1e9:.2f} GFLOP/step; matmul peak {peak / 1e9:.1f} GFLOP/s"
    )
    print(f"  variant             ms/step   GFLOP/s  of peak  vs {base}")
    for name, t in best.items():
        print(f"  {name:18s} {1e3 * t:8.2f} {flops / t / 1e9:9.1f} {flops / t / peak:8.0%} {best[base] / t:11.2f}x")


if __name__ == "__main__":
    main()
