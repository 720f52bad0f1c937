"""Batched transformer ensemble vs sequential single-seed runs (verify.attention, Edelman Ch. 8 architecture).

Usage::

    python benchmarks/bench_attention.py                  # S = 8, k = 2, t = 50, d = 16, 2 layers, 100 steps
    python benchmarks/bench_attention.py --seeds 8 --t 100 --steps 50 --threads 2 --device cpu

Trains the two-layer attention-only transformer with relative positions (AdamW, batch 64 per seed, fixed
pre-drawn Markov-chain batches so data sampling is not timed) once as one ensemble of S seeds and once as S
single-seed runs with the same steps, back to back in one process, and prints the time of each and their ratio.
The ensemble's weights equal the single-seed runs' (checked to 1e-4 in float32).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from numerics import markov as nm  # noqa: E402
from verify.attention import AttentionConfig, AttentionEnsemble, fit  # noqa: E402
from verify.device import resolve_device  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--t", type=int, default=50)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    dev = resolve_device(a.device)
    cfg = AttentionConfig(vocab=a.k, max_len=a.t, d=16, layers=2, heads=1, positions="relative")
    rng = np.random.default_rng(0)
    n = a.seeds * a.batch * 4
    x = nm.sample_sequences(nm.sample_transition_matrices(a.k, n, rng=rng), a.t + 1, rng)
    data = torch.as_tensor(x.reshape(4, a.seeds, a.batch, a.t + 1), device=dev)
    seeds = tuple(range(a.seeds))

    def run(ids: tuple[int, ...], cols: list[int]) -> AttentionEnsemble:
        m = AttentionEnsemble.init(cfg, ids, device=dev, dtype=torch.float32)
        fit(m, lambda s: (data[s % 4][cols, :, :-1], data[s % 4][cols, :, 1:]), a.steps, lr=1e-3, seeds=ids)
        return m

    run(seeds[:1], [0])  # warm-up
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    t0 = time.perf_counter()
    batched = run(seeds, list(range(a.seeds)))
    sync()
    t_batched = time.perf_counter() - t0
    t0 = time.perf_counter()
    singles = [run((s,), [i]) for i, s in enumerate(seeds)]
    sync()
    t_seq = time.perf_counter() - t0
    err = max(
        float((batched.p(name)[i] - m.p(name)[0]).detach().abs().max())
        for i, m in enumerate(singles)
        for name in batched.names()
    )
    print(f"device {dev}, threads {torch.get_num_threads()}, S = {a.seeds}, k = {a.k}, t = {a.t}, steps = {a.steps}")
    print(f"batched ensemble: {t_batched:.2f} s ({a.steps / t_batched:.1f} steps/s)")
    print(f"sequential runs:  {t_seq:.2f} s ({a.seeds * a.steps / t_seq:.1f} single-seed steps/s)")
    print(f"speed-up (sequential / batched): {t_seq / t_batched:.2f}x; max |weight difference| {err:.2e}")


if __name__ == "__main__":
    main()
