"""Batched seed ensemble vs sequential single-seed runs of the sparse-parity SGD trainer (verify.train.sparse_parity).

Usage::

    python benchmarks/bench_sparse_parity.py                        # (30,3), width 100, 16 seeds, 500 steps
    python benchmarks/bench_sparse_parity.py --width 1 --activation sinusoid --lr 0.01 --n 50 --seeds 32
    python benchmarks/bench_sparse_parity.py --device cuda --seeds 256 --steps 2000

Both variants run exactly the same updates (``stop_when_converged=False``, so no seed stops early; every seed
has its own data stream, so the ensemble's seed e follows its single-seed run). The script checks that the
validation-accuracy histories agree and prints the wall-time ratio, measured back to back in one process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import summary

from verify.runtime.options import RunOptions
from verify.train.sparse_parity import SparseParityConfig, train_parity


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--width", type=int, default=100)
    parser.add_argument("--activation", default="relu")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--eval-every", type=int, default=50)
    parser.add_argument("--n-val", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1 is fastest for small nets)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--repeats", type=int, default=2, help="alternating rounds; the best time of each is kept")
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    base = SparseParityConfig(
        n=args.n,
        k=args.k,
        width=args.width,
        activation=args.activation,
        lr=args.lr,
        batch_size=args.batch,
        steps=args.steps,
        eval_every=args.eval_every,
        n_val=args.n_val,
        stop_when_converged=False,
        seeds=tuple(range(args.seeds)),
    )
    print(
        f"(n,k)=({args.n},{args.k}) width {args.width} {args.activation}, B={args.batch}, {args.steps} steps, "
        f"{args.seeds} seeds, device {args.device}, threads {args.threads}"
    )
    options = RunOptions(device=args.device)
    best_batched, best_seq = float("inf"), float("inf")
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        batched = train_parity(base, options)
        best_batched = min(best_batched, time.perf_counter() - t0)
        t0 = time.perf_counter()
        singles = [train_parity(base.replace(seeds=(s,)), options) for s in base.seeds]
        best_seq = min(best_seq, time.perf_counter() - t0)
    seq_acc = np.concatenate([r.accuracy for r in singles], axis=1)
    max_diff = float(np.abs(seq_acc - batched.accuracy).max())
    ratio = best_seq / best_batched
    print(f"batched ensemble : {best_batched:8.3f} s")
    print(f"sequential seeds : {best_seq:8.3f} s")
    print(f"speed-up         : {ratio:8.2f}x   (max |accuracy difference| over the histories: {max_diff:.2e})")
    return ratio


if __name__ == "__main__":
    main()
