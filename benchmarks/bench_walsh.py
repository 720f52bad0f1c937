"""Walsh-Hadamard transforms and Fourier-gap numerics against their baselines, in one run.

1. Exact population gradient of one ReLU neuron at n = 20 (``numerics.walsh.population_gradient``, one
   transform of h = 1[w.x > 0]) against the explicit loop over the 2^n inputs
   (``numerics.walsh.population_gradient_bruteforce``). With ``--bf-n m < 20`` the loop runs at n = m and
   its time is extrapolated linearly in the number of inputs (x 2^(20-m)); the output says so.
2. ``verify.train.walsh.fwht`` (torch, CPU and CUDA when available) against ``numerics.walsh.fwht`` (numpy) for
   n = 16..22, one float64 vector (and float32 on CUDA).
3. Random-LTF gaps (Fig. B.7): ``numerics.fourier_gaps.random_ltf_gaps`` (one batched transform over draws)
   against a per-draw loop (one ``walsh_coefficients`` per draw, all k read from it).
4. One-step recovery (Prop. B.7) at n = 15, k = 4, B = 20/gamma^2: cube-count estimator against the streamed
   i.i.d. estimator (same law).

Usage::

    python benchmarks/bench_walsh.py               # everything (the full n = 20 loop takes ~half a minute)
    python benchmarks/bench_walsh.py --bf-n 16     # loop at n = 16, extrapolated x16
    python benchmarks/bench_walsh.py --torch-threads 2

Times are best-of-``--repeats`` wall times (perf_counter) in the same process; every ratio is baseline / new.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from functools import partial

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import best_time, summary

from numerics import fourier_gaps as fg
from numerics import walsh as nw
from verify.train import walsh as vw


def bench_gradient(n: int, bf_n: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal(n)
    S = [0, 1, 2]
    t_fast, (gw, _) = best_time(lambda: nw.population_gradient(nw.relu_prime, w, 0.0, S), repeats)
    wb = w[:bf_n]
    t0 = time.perf_counter()
    bw, _ = nw.population_gradient_bruteforce(nw.relu_prime, wb, 0.0, S)
    t_bf = time.perf_counter() - t0
    scale = 2 ** (n - bf_n)
    if bf_n == n:
        err = float(np.abs(bw - gw).max())
        note = f"full loop over 2^{n} inputs; max |difference| = {err:.1e}"
    else:
        fb, _ = nw.population_gradient(nw.relu_prime, wb, 0.0, S)
        err = float(np.abs(bw - fb).max())
        note = (
            f"loop timed at n = {bf_n} and extrapolated linearly x{scale} in the number of inputs "
            f"(per-input cost also grows with n, so this understates the loop); max |diff| at n = {bf_n} = {err:.1e}"
        )
    t_loop = t_bf * scale
    print(
        f"[1] population gradient, ReLU neuron, n = {n}: transform {t_fast * 1e3:.1f} ms, "
        f"brute-force loop {t_loop:.1f} s -> ratio {t_loop / t_fast:.0f}x  ({note})"
    )


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize()


def _synced_fwht(t: torch.Tensor, dev: torch.device) -> torch.Tensor:
    """The torch transform of ``t``, waiting for the device to finish (so the timing is the kernel's)."""
    y = vw.fwht(t)
    _sync(dev)
    return y


def bench_fwht(ns, repeats: int) -> None:
    devs = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    print(
        f"[2] Walsh-Hadamard transform of one vector (torch {torch.__version__}, "
        f"{torch.get_num_threads()} CPU threads; CUDA {'yes' if len(devs) > 1 else 'not available'})"
    )
    for n in ns:
        x = np.random.default_rng(n).standard_normal(1 << n)
        t_np, ref = best_time(partial(nw.fwht, x), repeats)
        parts = [f"n = {n:2d}: numpy {t_np * 1e3:8.2f} ms"]
        for dev in devs:
            for dt in (torch.float64,) if dev.type == "cpu" else (torch.float64, torch.float32):
                t = torch.tensor(x, dtype=dt, device=dev)
                vw.fwht(t)  # warm-up (CUDA context, Hadamard blocks)
                _sync(dev)

                t_t, y = best_time(partial(_synced_fwht, t, dev), repeats)
                err = float(np.abs(y.double().cpu().numpy() - ref).max() / np.abs(ref).max())
                parts.append(
                    f"torch {dev.type} {str(dt)[6:]} {t_t * 1e3:8.2f} ms (x{t_np / t_t:5.1f}, rel err {err:.0e})"
                )
        print("    " + " | ".join(parts))


def bench_ltf(n: int, draws: int, repeats: int) -> None:
    ks = (2, 3, 4)
    W = fg.random_weights("uniform", draws, n, np.random.default_rng(0))

    def batched():
        G = fg.ltf_gradients(W, ks)
        return {k: fg.gaps(G[k], k) for k in ks}

    def loop():
        out = {k: ([], []) for k in ks}
        for w in W:
            hh = nw.walsh_coefficients(nw.relu_prime(nw.linear_form(w)))
            for k in ks:
                g = hh[((1 << k) - 1) ^ (1 << np.arange(n))]
                out[k][0].append(nw.fourier_gap_from_gradient(g, range(k), relaxed=True))
                out[k][1].append(nw.fourier_gap_from_gradient(g, range(k)))
        return {k: (np.array(a), np.array(b)) for k, (a, b) in out.items()}

    t_b, rb = best_time(batched, repeats)
    t_l, rl = best_time(loop, 1)
    err = max(float(np.abs(rb[k][i] - rl[k][i]).max()) for k in ks for i in (0, 1))
    print(
        f"[3] random-LTF gaps, n = {n}, {draws} uniform draws, k in {ks}: batched {t_b:.2f} s, "
        f"per-draw loop {t_l:.2f} s -> ratio {t_l / t_b:.1f}x (max |difference| {err:.1e})"
    )


def bench_recovery(n: int, k: int, trials: int, repeats: int) -> None:
    g = float(fg.gradient_gap_reference(n, k))
    B = math.ceil(20 / g**2)
    t_c, rc = best_time(lambda: fg.one_step_recovery(n, k, [B], trials, 0, method="counts"), repeats)
    t_s, rs = best_time(lambda: fg.one_step_recovery(n, k, [B], trials, 0, method="streamed"), 1)
    print(
        f"[4] one-step recovery n = {n}, k = {k}, B = {B}, {trials} trials: cube counts {t_c:.2f} s "
        f"(P = {rc.rates[0]:.2f}), streamed samples {t_s:.2f} s (P = {rs.rates[0]:.2f}) -> ratio {t_s / t_c:.1f}x"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--n", type=int, default=20, help="dimension of the population-gradient benchmark")
    ap.add_argument("--bf-n", type=int, default=None, help="run the brute-force loop at this n and extrapolate")
    ap.add_argument("--fwht-n", type=int, nargs="+", default=list(range(16, 23)))
    ap.add_argument("--draws", type=int, default=300)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch CPU threads (default 1, like the single-threaded numpy butterfly)",
    )
    args = ap.parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    bf_n = args.n if args.bf_n is None else args.bf_n
    if not 1 <= bf_n <= args.n:
        ap.error(f"--bf-n must be in 1..{args.n}")
    bench_gradient(args.n, bf_n, args.repeats)
    bench_fwht(args.fwht_n, args.repeats)
    bench_ltf(15, args.draws, args.repeats)
    bench_recovery(15, 4, args.trials, args.repeats)


if __name__ == "__main__":
    main()
