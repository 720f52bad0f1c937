"""Streaming (chunked) margin evaluation against a naive full materialization.

``numerics.margins.evaluate`` streams the p^k points of k-input modular addition in chunks sized so
that one chunk stays under a memory budget (default 32 MiB). The baseline written here builds the
whole (m, p^k) pre-activation array and the (p^k, p) logits at once, then takes the same margins
(min/max point margin, uniform class-weighted margin, wrong-logit spread).

Usage::

    python benchmarks/bench_margins.py                       # default cases
    python benchmarks/bench_margins.py --cases 23,3,2048 47,3,256 --repeats 3

Per case (p, k, m) with a Gaussian network of width m, it prints the best-of-``repeats`` wall time of
each method (measured without tracing), the peak of Python-tracked memory of each method measured in
a separate traced run (``tracemalloc``; numpy registers its array buffers with it), the ratios
naive/chunked of both, and the largest difference between the two results relative to the logit scale.
Both methods run in the same process, one after the other, on the same network.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from functools import partial

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _timing import summary

from numerics.margins import HomogeneousNetwork, evaluate
from numerics.modular import ModularTask, random_network

DEFAULT_CASES = [(7, 3, 96), (23, 3, 2048), (11, 4, 640), (47, 3, 256)]


def naive_evaluate(net: HomogeneousNetwork, task: ModularTask) -> dict[str, float]:
    """All points at once: S (m, p^k), S^k, logits F (p^k, p), then margins."""
    X, y = task.batch(0, task.n_points)
    S = np.zeros((net.width, task.n_points))
    for j in range(task.k):
        S += net.U[:, j, X[:, j]]
    F = (S**net.degree).T @ net.W
    rows = np.arange(task.n_points)
    correct = F[rows, y]
    hi = F.copy()
    hi[rows, y] = -np.inf
    lo = F.copy()
    lo[rows, y] = np.inf
    g = correct - hi.max(1)
    cw = float(np.mean(correct - (F.sum(1) - correct) / (task.p - 1)))
    return dict(
        min_margin=float(g.min()),
        max_margin=float(g.max()),
        class_weighted=cw,
        wrong_logit_spread=float((hi.max(1) - lo.min(1)).max()),
        scale=float(np.abs(F).max()),
    )


def chunked_evaluate(net: HomogeneousNetwork, task: ModularTask) -> dict[str, float]:
    r = evaluate(net, task)
    return dict(
        min_margin=r.min_margin,
        max_margin=r.max_margin,
        class_weighted=r.class_weighted,
        wrong_logit_spread=r.wrong_logit_spread,
    )


def best_time(fn, repeats: int):
    best, out = float("inf"), None
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peak_bytes(fn) -> int:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--cases", nargs="*", default=[f"{p},{k},{m}" for p, k, m in DEFAULT_CASES], help="p,k,m triples")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    header = (
        f"{'p':>3} {'k':>2} {'m':>5} {'points':>8} | {'chunked s':>9} {'naive s':>8} {'t naive/chunk':>13} | "
        f"{'chunked MiB':>11} {'naive MiB':>9} {'mem naive/chunk':>15} | {'max rel diff':>12}"
    )
    print(header)
    print("-" * len(header))
    for case in args.cases:
        p, k, m = (int(v) for v in case.split(","))
        task = ModularTask(p, k)
        net = random_network(p, k, m, np.random.default_rng(args.seed))
        t_chunk, res_c = best_time(partial(chunked_evaluate, net, task), args.repeats)
        t_naive, res_n = best_time(partial(naive_evaluate, net, task), args.repeats)
        mem_c = peak_bytes(partial(chunked_evaluate, net, task))
        mem_n = peak_bytes(partial(naive_evaluate, net, task))
        diff = max(abs(res_c[key] - res_n[key]) for key in res_c) / res_n["scale"]
        print(
            f"{p:>3} {k:>2} {m:>5} {task.n_points:>8} | {t_chunk:>9.3f} {t_naive:>8.3f} {t_naive / t_chunk:>13.2f} | "
            f"{mem_c / 2**20:>11.1f} {mem_n / 2**20:>9.1f} {mem_n / mem_c:>15.1f} | {diff:>12.1e}"
        )


if __name__ == "__main__":
    main()
