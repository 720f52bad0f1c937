"""Edelman Ch. 8 benchmarks: the batched transformer ensemble against sequential runs, and the exact finite-t gradient.

Usage::

    python benchmarks/bench_attention.py                       # both parts, quick Markov setting, CPU clock
    python benchmarks/bench_attention.py --clock wall --threads 2 --device cpu
    python benchmarks/bench_attention.py --skip-ensemble --gradient-ts 25,50,100,200,400

Part 1 (``verify.train.attention``): the two-layer attention-only transformer with relative positions of the quick
``edelman-ch8-transformer-phases`` setting (k = 2, t = 50, d = 16, AdamW lr 3e-3, batch 64 per seed) trained for
``--steps`` steps on fixed pre-drawn Markov-chain batches (data sampling is not timed), once as one ensemble of S seeds
and once as S single-seed runs, back to back in one process; prints both times, their ratio and the largest weight
difference between the ensemble's seeds and the single runs (the same trajectories up to float32 summation order:
agreement means within 1e-3 of the largest weight).

Part 2 (``numerics.markov_gradients.finite_t_gradients``): the time of the exact finite-t one- and two-step population
gradients (Gauss-Legendre over (a, b), matrix powers; O(t^3)) as t grows, best of ``--repeats``, with the growth
exponent between consecutive t.

``--clock cpu`` (the default) times this process's CPU time (``time.process_time``, all its threads), which a shared
machine's other load moves much less than the wall time; ``--clock wall`` times ``time.perf_counter``. The header
prints the date and the load average so that a line can be read against the machine's state.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import summary

from numerics import markov as nm
from numerics import markov_gradients as mg
from verify.runtime.device import resolve_device
from verify.train.attention import AttentionConfig, AttentionEnsemble, FitSchedule, fit

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
QUICK_LR = 3e-3  # the quick transformer claims' AdamW learning rate (verify/claims/markov/trained.py)


def bench_ensemble(a: argparse.Namespace, clock: Callable[[], float]) -> None:
    dev = resolve_device(a.device)
    cfg = AttentionConfig(vocab=a.k, max_len=a.t, d=16, layers=2, heads=1, positions="relative")
    rng = np.random.default_rng(0)
    n = a.seeds * a.batch * 4
    x = nm.sample_sequences(nm.sample_transition_matrices(a.k, n, rng=rng), a.t + 1, rng)
    data = torch.as_tensor(x.reshape(4, a.seeds, a.batch, a.t + 1), device=dev)
    seeds = tuple(range(a.seeds))
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    def run(ids: tuple[int, ...], cols: list[int]) -> AttentionEnsemble:
        m = AttentionEnsemble.init(cfg, ids, device=dev, dtype=torch.float32)

        def batch(s: int) -> tuple[torch.Tensor, torch.Tensor]:
            return data[s % 4][cols, :, :-1], data[s % 4][cols, :, 1:]

        fit(m, batch, FitSchedule(a.steps, a.lr), seeds=ids)
        return m

    run(seeds[:1], [0])  # warm-up
    t_batched = t_seq = math.inf
    for _ in range(a.repeats):
        sync()
        t0 = clock()
        batched = run(seeds, list(range(a.seeds)))
        sync()
        t_batched = min(t_batched, clock() - t0)
        t0 = clock()
        singles = [run((s,), [i]) for i, s in enumerate(seeds)]
        sync()
        t_seq = min(t_seq, clock() - t0)
    diff = max(
        float((batched.p(name)[i] - m.p(name)[0]).detach().abs().max())
        for i, m in enumerate(singles)
        for name in batched.names()
    )
    scale = max(float(batched.p(name).detach().abs().max()) for name in batched.names())
    print(
        f"[ensemble] device {dev}, threads {torch.get_num_threads()}, S = {a.seeds}, k = {a.k}, t = {a.t}, d = 16, "
        f"2 layers, batch {a.batch}/seed, AdamW lr {a.lr:g}, {a.steps} steps, best of {a.repeats}"
    )
    print(f"  batched ensemble (S = {a.seeds}): {t_batched:.2f} s ({1e3 * t_batched / a.steps:.1f} ms/step)")
    print(f"  sequential {a.seeds} x 1 seed:   {t_seq:.2f} s ({1e3 * t_seq / a.steps:.1f} ms per step of all seeds)")
    print(
        f"  speed-up (sequential / batched): {t_seq / t_batched:.2f}x; max |weight difference| {diff:.2e} = "
        f"{diff / scale:.1e} of the largest weight ({'agree' if diff <= 1e-3 * scale else 'DIFFER'}: float32 "
        "summation order, amplified by Adam's normalisation where gradients are tiny; tolerance 1e-3 relative)"
    )


def bench_gradients(a: argparse.Namespace, clock: Callable[[], float]) -> None:
    ts = [int(v) for v in a.gradient_ts.split(",")]
    print(f"[finite-t gradients] numerics.markov_gradients.finite_t_gradients (k = 2), best of {a.repeats}")
    prev = None
    for t in ts:
        best = math.inf
        for _ in range(a.repeats):
            t0 = clock()
            mg.finite_t_gradients(t)
            best = min(best, clock() - t0)
        nodes = 2 * (t // 2 + 16) ** 2
        growth = "" if prev is None else f", growth exponent {math.log(best / prev[1]) / math.log(t / prev[0]):.2f}"
        print(f"  t = {t:4d}: {best:8.3f} s ({nodes} nodes x {t} matrix powers{growth})")
        prev = (t, best)


def main() -> None:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--t", type=int, default=50)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=QUICK_LR)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--gradient-ts", default="25,50,100,200")
    ap.add_argument("--skip-ensemble", action="store_true")
    ap.add_argument("--skip-gradients", action="store_true")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    clock = CLOCKS[a.clock]
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{now}, load average {load}, {os.cpu_count()} CPUs, torch {torch.__version__}, {a.clock} clock")
    if not a.skip_ensemble:
        bench_ensemble(a, clock)
    if not a.skip_gradients:
        bench_gradients(a, clock)


if __name__ == "__main__":
    main()
