"""k-sum mod p transformers (verify.train.modular_transformer): batched seed ensemble vs sequential runs, and the W^KQ
2-D spectrum diagnostic's time per head against p.

Usage::

    python benchmarks/bench_modular_transformer.py                     # S = 8, k = 2, p = 23, 200 steps, CPU
    python benchmarks/bench_modular_transformer.py --seeds 8 --steps 100 --threads 2 --device cpu
    python benchmarks/bench_modular_transformer.py --dft-only --ps 11 23 31 61 97

Part 1 trains the quick Fig. 4.3 model (one layer, d = 32, 4 heads of width 8, MLP 128, full training half each
step, AdamW) once as one ensemble of S seeds and once as S single-seed runs with the same steps, back to back in one
process, and prints steps/s of each and their ratio; the ensemble's weights equal the single runs' (checked).
Evaluation is done once at the end only (``eval_every`` = steps). Part 2 times
``numerics.modular_transformer.head_spectra`` (double centring, 2-D FFT, binning, top-9 share, tied share,
dominant bin) on 160 random p x p heads and prints the time per head.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_time, summary

from numerics.modular_transformer import head_spectra
from verify.runtime.options import RunOptions
from verify.train.modular_transformer import SumTransformerConfig, train_sum_transformer


def bench_training(a: argparse.Namespace) -> None:
    cfg = SumTransformerConfig(
        p=a.p, k=a.k, d=32, heads=4, head_width=8, mlp=128, lr=3e-3, weight_decay=1.0, steps=a.steps,
        eval_every=a.steps, seeds=tuple(range(a.seeds)), num_threads=a.threads,
    )  # fmt: skip
    options = RunOptions(device=a.device)
    train_sum_transformer(cfg.replace(seeds=(0,), steps=5), options)  # warm-up
    t_batched, batched = best_time(lambda: train_sum_transformer(cfg, options), 1)
    t_seq, singles = best_time(lambda: [train_sum_transformer(cfg.replace(seeds=(s,)), options) for s in cfg.seeds], 1)
    err = max(
        float((batched.params[n][i] - r.params[n][0]).abs().max()) for i, r in enumerate(singles) for n in r.params
    )
    print(f"device {a.device}, threads {a.threads}, S = {a.seeds}, k = {a.k}, p = {a.p}, steps = {a.steps}")
    print(f"batched ensemble: {t_batched:.2f} s ({a.steps / t_batched:.1f} ensemble steps/s)")
    print(f"sequential runs:  {t_seq:.2f} s ({a.seeds * a.steps / t_seq:.1f} single-seed steps/s)")
    print(f"speed-up (sequential / batched): {t_seq / t_batched:.2f}x; max |weight difference| {err:.2e}")


def bench_dft(ps: list[int], heads: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    print(f"2-D spectrum diagnostic (head_spectra, top 9 bins), {heads} heads per call, best of {repeats}:")
    for p in ps:
        M = rng.standard_normal((heads, p, p))
        t, _ = best_time(lambda M=M: head_spectra(M, 9), repeats)
        print(f"  p = {p:4d}: {t / heads * 1e6:9.1f} us per head")


def main() -> None:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--p", type=int, default=23)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--ps", type=int, nargs="+", default=[11, 23, 31, 61, 97])
    ap.add_argument("--heads", type=int, default=160)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dft-only", action="store_true")
    a = ap.parse_args()
    if not a.dft_only:
        bench_training(a)
    bench_dft(a.ps, a.heads, a.repeats)


if __name__ == "__main__":
    main()
