"""Batched seed ensemble vs sequential single-seed runs of the LSA trainers (verify.train.lsa).

Usage::

    python benchmarks/bench_lsa.py                     # d = 4, Lambda = diag(4,3,2,1), N = 20, r = 2, 8 seeds
    python benchmarks/bench_lsa.py --rank 4 --pop-steps 2000 --sgd-steps 100 --batch 1024 --threads 2

Measures, in one process and back to back,

* (a) ``train_population`` (Adam on the closed-form loss, no L-BFGS polish): training steps/s;
* (b) ``train_sgd`` (reduced model, fresh prompts): prompts/s (``S * batch * steps`` prompts per run),

each as one batched ensemble of S seeds against S sequential single-seed runs with the same number of steps.
The population ensemble follows exactly the single-seed trajectories (the script checks this). The SGD ensemble
draws its prompts from one generator seeded by the first seed, so its seeds see different prompts than the
single-seed runs: only the throughput is comparable there, not the weights.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import summary

from verify.runtime.options import RunOptions
from verify.train import lsa as vl


def _timed(fn: Callable[[], vl.LSAResult]) -> tuple[float, vl.LSAResult]:
    start = time.perf_counter()
    res = fn()
    return time.perf_counter() - start, res


def _compare(batched_fn, single_fn, seeds, repeats) -> tuple[float, float, vl.LSAResult, list[vl.LSAResult]]:
    """Best-of-`repeats` alternating rounds (the minimum filters out interference from other processes)."""
    t_b = t_s = math.inf
    batched, singles = None, []
    for _ in range(repeats):
        dt, batched = _timed(partial(batched_fn, seeds))
        t_b = min(t_b, dt)
        total, singles = 0.0, []
        for s in seeds:
            dt, res = _timed(partial(single_fn, (s,)))
            total += dt
            singles.append(res)
        t_s = min(t_s, total)
    return t_b, t_s, batched, singles


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--lam", type=float, nargs="+", default=[4.0, 3.0, 2.0, 1.0], help="diagonal of Lambda")
    parser.add_argument("--N", type=int, default=20)
    parser.add_argument("--rank", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--pop-steps", type=int, default=1000, help="Adam steps of the population trainer")
    parser.add_argument("--sgd-steps", type=int, default=40, help="Adam steps of the SGD trainer")
    parser.add_argument("--batch", type=int, default=1024, help="prompts per seed per SGD step")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1 is fastest for tiny models)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--repeats", type=int, default=2, help="alternating rounds; the best time of each variant is kept"
    )
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    L = np.diag(np.asarray(args.lam, dtype=np.float64))
    seeds = tuple(range(args.seeds))
    S = len(seeds)
    print(
        f"LSA d={L.shape[0]} Lambda=diag({', '.join(f'{x:g}' for x in args.lam)}) N={args.N} r={args.rank}, "
        f"{S} seeds, threads {torch.get_num_threads()}, device {args.device}, best of {args.repeats}, "
        f"torch {torch.__version__}"
    )

    options = RunOptions(device=args.device)

    def pop(sd, steps=args.pop_steps):
        return vl.train_population(vl.PopulationConfig(L, args.N, args.rank, sd, steps=steps, polish_steps=0), options)

    def sgd(sd, steps=args.sgd_steps):
        cfg = vl.SGDConfig(L, args.N, args.rank, sd, model="reduced", steps=steps, batch=args.batch)
        return vl.train_sgd(cfg, options)

    pop((0,), 20), sgd((0,), 3)  # warm-up

    out: dict[str, float] = {}
    # (a) population loss: steps/s (one step = one Adam update of every seed in the run)
    tb, ts, batched, singles = _compare(pop, pop, seeds, args.repeats)
    worst = max(
        float(np.max(np.abs(batched.M_eff[i] - s.M_eff[0])) / max(1e-300, np.max(np.abs(s.M_eff[0]))))
        for i, s in enumerate(singles)
    )
    n = args.pop_steps
    print(f"\n(a) population loss, {n} Adam steps (no L-BFGS polish)")
    print("  (a step = one Adam update of all S seeds; sequential: the S single-seed runs together)")
    print(f"  {'variant':<28}{'time [s]':>10}{'ms/step':>10}{'steps/s':>12}{'seed-steps/s':>15}")
    print(f"  {f'batched ensemble (S={S})':<28}{tb:>10.3f}{1e3 * tb / n:>10.3f}{n / tb:>12.0f}{S * n / tb:>15.0f}")
    print(f"  {f'sequential {S} x single seed':<28}{ts:>10.3f}{1e3 * ts / n:>10.3f}{n / ts:>12.0f}{S * n / ts:>15.0f}")
    print(f"  speed-up (sequential / batched): {ts / tb:.2f}x")
    print(f"  max relative M_eff difference batched vs sequential: {worst:.2e}")
    out["population_speedup"] = ts / tb

    # (b) SGD on fresh prompts: prompts/s
    tb, ts, batched, singles = _compare(sgd, sgd, seeds, args.repeats)
    n = args.sgd_steps
    prompts = S * args.batch * n
    print(f"\n(b) SGD (reduced model), {n} Adam steps x batch {args.batch} per seed ({prompts} prompts per variant)")
    print(f"  {'variant':<28}{'time [s]':>10}{'ms/step':>10}{'prompts/s':>12}")
    print(f"  {f'batched ensemble (S={S})':<28}{tb:>10.3f}{1e3 * tb / n:>10.2f}{prompts / tb:>12.0f}")
    print(f"  {f'sequential {S} x single seed':<28}{ts:>10.3f}{1e3 * ts / n:>10.2f}{prompts / ts:>12.0f}")
    print(f"  speed-up (sequential / batched): {ts / tb:.2f}x")
    print("  (batched seeds draw different prompts than single-seed runs: throughput only, weights not compared)")
    out["sgd_speedup"] = ts / tb
    return out


if __name__ == "__main__":
    main()
