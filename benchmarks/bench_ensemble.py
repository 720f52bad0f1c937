"""Batched seed ensemble vs sequential single-seed runs vs a plain PyTorch loop, same training (verify.train.polynomial).

Usage::

    python benchmarks/bench_ensemble.py                      # k = 3, p = 5, m = 64, 8 seeds, 1000 steps
    python benchmarks/bench_ensemble.py --p 7 --k 2 --width 32 --steps 2000 --threads 2
    python benchmarks/bench_ensemble.py --p 71 --k 2 --width 500 --steps 100 --dtype float32 --plain onehot

Three ways to train the same S networks (the same initialisation, full batch, Adam, CE + lam ||theta||^nu):

* ``ensemble``: one :func:`verify.train.polynomial.train` call with all seeds (``--strategy``; default ``auto``);
* ``sequential``: S calls with one seed each;
* ``autograd`` (``--autograd``): the ensemble again with the step through autograd (``verify.train.polynomial._gradient_step``,
  the trainer's step before the hand-written gradient of verify.train.polynomial_step), for a before/after ratio;
* ``plain`` (``--plain onehot|embedding``): a single-seed loop written the way public research code writes it,
  an ``nn.Module`` (one-hot inputs into ``nn.Linear``, or ``nn.Embedding``), ``x ** k``, ``F.cross_entropy``,
  ``torch.optim.Adam``, once per seed.

The script checks that every variant reaches the same weights and prints the ratios (measured back to back in
one process, best of ``--repeats`` alternating rounds), the FLOP rate of the ensemble's steps (the median of its
runs' steps, each timed inside the run) and the matrix-product peak of this machine for the same dtype, and, with
``--plain``, a floor: the three products of one seed's step timed alone, and the ceiling that floor puts on the
ratio against the plain loop; all measured in the same run (``--clock cpu`` measures this process's CPU
time instead of wall time: use it with ``--threads 1`` on a shared machine).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import matmul_peak, step_products, summary, sync

import verify.train.polynomial as vt
from numerics.modular import ModularTask
from theory.modular import max_margin
from verify.runtime.options import RunOptions
from verify.train.homogeneous import init_weights
from verify.train.polynomial import TrainConfig, TrainResult, train
from verify.train.polynomial_step import STRATEGIES, StepShapes

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def _run(
    task: ModularTask,
    k: int,
    width: int,
    config: TrainConfig,
    reference: float,
    device: str,
    clock: Callable,
    step_times: list[float] | None = None,
) -> tuple[float, TrainResult]:
    """Seconds of one :func:`verify.train.polynomial.train` call and its result; with ``step_times``, the time of each of the
    run's training steps (``verify.train.polynomial._fused_step``: data gradient, regulariser, Adam) is appended to it."""
    step = vt._fused_step

    def timed_step(*args, **kwargs):  # type: ignore[no-untyped-def]
        t0 = clock()
        out = step(*args, **kwargs)
        sync(device)
        step_times.append(clock() - t0)  # type: ignore[union-attr]
        return out

    if step_times is not None:
        vt._fused_step = timed_step
    try:
        start = clock()
        result = train(task, k, width, config, RunOptions(device=device), reference_margin=reference)
        return clock() - start, result
    finally:
        vt._fused_step = step


class PlainNet(torch.nn.Module):
    """f(x) = W^T (U x)^k with x the concatenated one-hot inputs (``nn.Linear``) or summed ``nn.Embedding`` rows."""

    def __init__(self, U: np.ndarray, W: np.ndarray, degree: int, kind: str, dtype: torch.dtype) -> None:
        super().__init__()
        m, k, p = U.shape
        self.kind, self.degree, self.k, self.p = kind, degree, k, p
        flat = torch.as_tensor(U.reshape(m, k * p), dtype=dtype)
        if kind == "onehot":
            self.embed = torch.nn.Linear(k * p, m, bias=False, dtype=dtype)
            with torch.no_grad():
                self.embed.weight.copy_(flat)
        else:
            self.embed = torch.nn.Embedding(k * p, m, dtype=dtype)
            with torch.no_grad():
                self.embed.weight.copy_(flat.T)
        self.out = torch.nn.Linear(m, W.shape[1], bias=False, dtype=dtype)
        with torch.no_grad():
            self.out.weight.copy_(torch.as_tensor(W.T, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x) if self.kind == "onehot" else self.embed(x).sum(dim=1)
        return self.out(h**self.degree)

    def norm_power(self) -> torch.Tensor:
        u = self.embed.weight.square().sum(dim=1 if self.kind == "onehot" else 0)
        return (u + self.out.weight.square().sum(dim=0)).pow((self.degree + 1) / 2).sum()

    def weights(self) -> np.ndarray:
        U = self.embed.weight.detach() if self.kind == "onehot" else self.embed.weight.detach().T
        return U.reshape(-1, self.k, self.p).double().cpu().numpy()


def plain_run(
    task: ModularTask, k: int, width: int, config: TrainConfig, seed: int, kind: str, device: str
) -> PlainNet:
    """The plain single-seed loop (module doc); returns the trained network."""
    dtype = torch.float32 if config.dtype == "float32" else torch.float64
    U, W = init_weights(seed, width, task.n_blocks, task.block_size, task.n_classes, config.init_std)
    net = PlainNet(U.numpy(), W.numpy(), k, kind, dtype).to(device)
    x, y = task.batch(0, task.n_points)
    X = torch.as_tensor(x, device=device)
    if kind == "onehot":
        X = torch.nn.functional.one_hot(X, task.block_size).reshape(X.shape[0], -1).to(dtype)
    else:
        X = X + torch.arange(k, device=device) * task.block_size
    Y = torch.as_tensor(y, device=device)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr, betas=config.betas, eps=config.eps)
    for _ in range(config.steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(X), Y) + config.lam * net.norm_power()
        loss.backward()
        opt.step()
    return net


def products_time(
    n: int, m: int, C: int, dtype: torch.dtype, device: str, clock: Callable, repeats: int = 7, seeds: int = 1
) -> float:
    """Best time of the step's three matrix products timed alone (:func:`_timing.step_products`; ``seeds`` > 1:
    batched). S seeds times the one-seed time is a floor for the step on this machine."""
    products = step_products(n, m, C, dtype, device, seeds)
    products()
    sync(device)
    best = math.inf
    for _ in range(repeats):
        t0 = clock()
        products()
        sync(device)
        best = min(best, clock() - t0)
    return best


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--p", type=int, default=5)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1 is fastest for tiny nets)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    parser.add_argument("--strategy", choices=STRATEGIES, default="auto")
    parser.add_argument("--plain", choices=["none", "onehot", "embedding"], default="none")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--autograd", action="store_true", help="also time the ensemble with the autograd step")
    parser.add_argument(
        "--repeats", type=int, default=3, help="alternating rounds; the best time of each variant is kept"
    )
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    clock = CLOCKS[args.clock]
    task = ModularTask(args.p, args.k)
    reference = float(max_margin(args.p, args.k))
    config = TrainConfig(
        steps=args.steps,
        lr=5e-3,
        lam=1e-3,
        init_std=0.5 / math.sqrt(args.p),
        seeds=tuple(range(args.seeds)),
        eval_every=args.steps,
        dtype=args.dtype,
        strategy=args.strategy,
    )
    print(
        f"task p={args.p} k={args.k} ({task.n_points} points), width {args.width}, {args.steps} steps, "
        f"{args.seeds} seeds, {args.dtype}, strategy {args.strategy}, threads {torch.get_num_threads()}, "
        f"device {args.device}, {args.clock} clock, best of {args.repeats}, torch {torch.__version__}"
    )

    train(task, args.k, args.width, config.replace(steps=20, seeds=(0,)), RunOptions(device=args.device))  # warm-up

    # Best of `repeats` alternating rounds: the minimum filters out interference from other processes.
    t_batched = t_seq = t_plain = t_auto = math.inf
    step_times: list[float] = []  # every training step of the ensemble runs
    plain_nets: list[PlainNet] = []
    fused_step = vt._fused_step

    def autograd_step(model, optimizer, executor, x, y, cfg):  # type: ignore[no-untyped-def]
        return vt._gradient_step(model, optimizer, x, y, cfg)

    for _ in range(args.repeats):
        if args.autograd:
            vt._fused_step = autograd_step
            try:
                dt, old = _run(task, args.k, args.width, config, reference, args.device, clock)
            finally:
                vt._fused_step = fused_step
            t_auto = min(t_auto, dt)
        dt, batched = _run(task, args.k, args.width, config, reference, args.device, clock, step_times)
        t_batched = min(t_batched, dt)
        total, sequential = 0.0, []
        for seed in config.seeds:
            dt, res = _run(task, args.k, args.width, config.replace(seeds=(seed,)), reference, args.device, clock)
            total += dt
            sequential.append(res)
        t_seq = min(t_seq, total)
        if args.plain != "none":
            start = clock()
            plain_nets = [plain_run(task, args.k, args.width, config, s, args.plain, args.device) for s in config.seeds]
            t_plain = min(t_plain, clock() - start)

    def rel(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.max(np.abs(a - b)) / max(1e-300, np.max(np.abs(b))))

    worst = max(rel(b.U, s.networks[0].U) for b, s in zip(batched.networks, sequential))
    ratios = np.array(batched.final["ratio"])
    plan = batched.plan or {}
    shapes = StepShapes(
        args.seeds, args.width, args.k, args.p, args.p, args.k, False, task.n_points, task.n_points, 8, 2
    )
    flops = shapes.flops_per_step * args.steps
    peak = matmul_peak(torch.float32 if args.dtype == "float32" else torch.float64, args.device, clock)
    print(
        f"plan: {plan.get('strategy')} ({plan.get('group')} seed(s) per launch, {plan.get('kernel', 'general')} kernel), "
        f"chunks of {plan.get('chunk')} [{plan.get('reason')}]"
    )
    print(f"batched ensemble (S={args.seeds}):   {t_batched:8.2f} s   ({1e3 * t_batched / args.steps:.2f} ms/step)")
    print(
        f"sequential {args.seeds} x single seed: {t_seq:8.2f} s   ({1e3 * t_seq / args.steps:.2f} ms/step for all seeds)"
    )
    print(f"speed-up: {t_seq / t_batched:.2f}x")
    print(
        f"FLOP rate of the ensemble run: {flops / t_batched / 1e9:.1f} GFLOP/s = {flops / t_batched / peak:.0%} of the "
        f"{args.dtype} matrix-product peak {peak / 1e9:.1f} GFLOP/s measured now"
    )
    if args.autograd:
        print(
            f"ensemble with the autograd step:  {t_auto:8.2f} s   ({1e3 * t_auto / args.steps:.2f} ms/step); "
            f"hand-written step {t_auto / t_batched:.2f}x faster; weights differ by "
            f"{max(rel(a.U, b.U) for a, b in zip(old.networks, batched.networks)):.2e}"
        )
    step_rate = None
    if step_times:
        t_step = float(np.median(step_times))
        step_rate = flops / args.steps / t_step
        probe = plan.get("seconds_per_step")
        print(
            f"FLOP rate of a training step of the ensemble (data gradient, regulariser, Adam; median of the runs' "
            f"{len(step_times)} steps, {1e3 * t_step:.1f} ms, fastest {1e3 * min(step_times):.1f} ms): "
            f"{step_rate / 1e9:.1f} GFLOP/s = {step_rate / peak:.0%} of the peak"
            + ("" if not probe else f" (the run's probe estimated {1e3 * probe:.1f} ms)")
        )
    vs_plain = None
    if plain_nets:
        per_seed_plain = t_plain / args.seeds
        per_seed_ours = t_seq / args.seeds
        vs_plain = (per_seed_plain / per_seed_ours, t_plain / t_batched)
        print(
            f"plain PyTorch loop ({args.plain}), {args.seeds} x single seed: {t_plain:8.2f} s   "
            f"({1e3 * per_seed_plain / args.steps:.2f} ms/step per seed)"
        )
        print(f"vs plain, one seed: {vs_plain[0]:.2f}x; {args.seeds} seeds: {vs_plain[1]:.2f}x")
        dtype = torch.float32 if args.dtype == "float32" else torch.float64
        floor = products_time(task.n_points, args.width, args.p, dtype, args.device, clock) * args.steps
        print(
            f"floor: the three products of a step alone take {1e3 * floor / args.steps:.2f} ms per seed "
            f"({shapes.flops_per_step / args.seeds / (floor / args.steps) / 1e9:.1f} GFLOP/s); a run of only those "
            f"products would be {per_seed_plain / floor:.2f}x faster than the plain loop per seed (the ceiling of "
            f"ratio (c) without batching gains); the ensemble run's steps take {t_batched / args.seeds / floor:.2f}x "
            f"that floor"
        )
        batched_floor = products_time(task.n_points, args.width, args.p, dtype, args.device, clock, seeds=args.seeds)
        best_rate = max(args.seeds / floor, 1 / batched_floor) * shapes.flops_per_step
        print(
            f"the same products of all {args.seeds} seeds batched (one bmm each): {1e3 * batched_floor:.2f} ms "
            f"({shapes.flops_per_step / batched_floor / 1e9:.1f} GFLOP/s); the faster of the two floors runs at "
            f"{best_rate / peak:.0%} of the peak: the ceiling of ratio (b) on this machine (a step does these products "
            "and more)"
        )
        worst_plain = max(rel(net.weights(), s.networks[0].U) for net, s in zip(plain_nets, sequential))
        print(f"max relative weight difference plain vs ours: {worst_plain:.2e}")
    print(f"max relative weight difference batched vs sequential: {worst:.2e}")
    print(f"final ratio to gamma* per seed: min {ratios.min():.4f}, max {ratios.max():.4f}")
    run_rate = flops / t_batched / peak
    step = "n/a" if step_rate is None else f"{step_rate / peak:.0%}"
    plain = (
        "n/a (--plain none)"
        if vs_plain is None
        else f"{vs_plain[0]:.2f}x per seed, {vs_plain[1]:.2f}x for {args.seeds}"
    )
    print(
        f"issue 18 ratios: (a) ensemble / sequential {t_seq / t_batched:.2f}x (asks >= 1.0x, target 1.5x); "
        f"(b) FLOP rate of the step {step}, of the whole run {run_rate:.0%} of the peak (asks >= 50%); "
        f"(c) vs plain {plain} (asks >= 1.0x and >= 3x)"
    )
    return t_seq / t_batched


if __name__ == "__main__":
    main()
