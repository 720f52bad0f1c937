"""Local signal adaptivity (Karp Ch. 3): the exact reduced SGD simulator against the direct d-dimensional one, and the
importance-sampled err(tau) against plain Monte Carlo.

Usage::

    python benchmarks/bench_local_signal.py                      # k = 1000, d = 10, batch 500 (Fig. 3.3), 2 seeds
    python benchmarks/bench_local_signal.py --steps 100 --agree-seeds 32 --n-mc 400000

Measures, in one process and back to back,

* (a) steps/s of ``verify.train.local_signal.train_signal`` with ``simulator="reduced"`` and ``"direct"`` at the same
  setting (same seeds; the reduced one draws B k projections per step instead of B k d coordinates, and only the
  rows above the threshold once b < 0); the speed depends on the phase of training (b >= 0 early: dense), so both
  run the same number of steps from the same initialisation, and the reduced one also from a trained state;
* (b) agreement of the two simulators' trajectories: means of c = w.w_*, v = |w_perp|, b and the test accuracy over
  independent seed ensembles at a smaller size (k = 50), with the two-sample z;
* (c) importance sampling of err(tau) in the tail: the variance ratio plain / importance-sampled at equal sample
  sizes for tau in {0.8, 0.9, 0.95} (k = 1000), and both estimates against the Fourier-inversion value.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import summary

from numerics import local_signal as nl
from theory import local_signal as tl
from verify.runtime.options import RunOptions
from verify.train import local_signal as vs

CPU = RunOptions(device="cpu")


def _steps_per_second(cfg: vs.SignalTrainConfig) -> tuple[float, vs.SignalRun]:
    t0 = time.perf_counter()
    run = vs.train_signal(cfg, CPU)
    return cfg.steps / (time.perf_counter() - t0), run


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--steps", type=int, default=30, help="SGD steps timed per simulator")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--agree-seeds", type=int, default=16, help="seeds per simulator for the agreement check")
    parser.add_argument("--n-mc", type=int, default=200_000, help="Monte Carlo draws per estimator in (c)")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    out: dict[str, float] = {}

    seeds = tuple(range(args.seeds))
    cfg = vs.SignalTrainConfig(
        k=args.k,
        d=args.d,
        batch=args.batch,
        steps=args.steps,
        seeds=seeds,
        eval_every=args.steps,
        n_test=500,
        num_threads=args.threads,
    )
    print(
        f"(a) SGD steps/s, k={args.k} d={args.d} batch={args.batch} seeds={args.seeds}, {args.steps} steps from init, "
        f"threads {args.threads}, torch {torch.__version__}"
    )
    red, _ = _steps_per_second(replace(cfg, simulator="reduced"))
    direct, _ = _steps_per_second(replace(cfg, simulator="direct"))
    print(
        f"  reduced: {red:8.2f} steps/s   direct: {direct:8.3f} steps/s   ratio {red / direct:6.1f}x  (b >= 0 or small |b|: dense)"
    )
    # the thresholded phase: 600 reduced steps to b < 0, then time the reduced simulator there
    warm = vs.train_signal(replace(cfg, simulator="reduced", steps=600, eval_every=600), CPU)
    tau = float(np.nanmean(warm.tau[-1]))
    late_cfg = replace(cfg, simulator="reduced", lr_w=0.1, steps=args.steps)
    late = _late_phase_rate(late_cfg, warm)
    print(
        f"  reduced after 600 steps (|b|/c = {tau:.2f}, sparse path): {late:8.2f} steps/s   ratio to direct {late / direct:6.1f}x"
    )
    out.update(
        {"reduced_steps_per_s": red, "direct_steps_per_s": direct, "ratio": red / direct, "ratio_late": late / direct}
    )

    small = vs.SignalTrainConfig(k=50, d=10, batch=50, steps=300, eval_every=100, n_test=1000, num_threads=args.threads)
    n = args.agree_seeds
    runs = {
        "reduced": vs.train_signal(replace(small, simulator="reduced", seeds=tuple(range(n))), CPU),
        "direct": vs.train_signal(replace(small, simulator="direct", seeds=tuple(range(1000, 1000 + n))), CPU),
    }
    print(f"(b) agreement at k=50 d=10 batch 50, {n} independent seeds per simulator (mean over seeds at step 300)")
    worst = 0.0
    for q in ("c", "v", "b", "accuracy"):
        a, b = (getattr(runs[s], q)[-1] for s in ("reduced", "direct"))
        z = (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        worst = max(worst, abs(z))
        print(f"  {q:9s} reduced {a.mean():+.5f}  direct {b.mean():+.5f}  z = {z:+.2f}")
    print(f"  wall time: reduced {runs['reduced'].seconds:.1f} s, direct {runs['direct'].seconds:.1f} s")
    out["agreement_max_z"] = float(worst)

    k = 1000
    sigma = tl.noise_sigma(k)
    taus = (0.8, 0.9, 0.95)
    print(f"(c) err(tau) in the tail, k={k}, {args.n_mc} draws each (sparse sampler from tau = 0.7)")
    t0 = time.perf_counter()
    plain = nl.tail_sample(k, sigma, 0.7, args.n_mc, 1, importance=False)
    ep, sp = nl.error_curve_mc(plain, taus)
    t_plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    tilt = nl.tail_sample(k, sigma, 0.7, args.n_mc, 2, importance=True)
    ei, si = nl.error_curve_mc(tilt, taus)
    t_is = time.perf_counter() - t0
    for j, tau in enumerate(taus):
        exact = tl.error_curve(k, tau)
        ratio = (sp[j] / si[j]) ** 2
        out[f"variance_ratio_tau_{tau}"] = float(ratio)
        print(
            f"  tau={tau:4.2f} exact {exact:.6f} | plain {ep[j]:.6f} +- {sp[j]:.1e} | IS {ei[j]:.6f} +- {si[j]:.1e} | "
            f"variance ratio {ratio:6.1f}"
        )
    print(f"  time: plain {t_plain:.2f} s, importance-sampled {t_is:.2f} s")
    return out


def _late_phase_rate(cfg: vs.SignalTrainConfig, warm: vs.SignalRun) -> float:
    """Steps/s of the reduced simulator continued from the state reached by ``warm`` (b < 0)."""
    state = {"c": warm.c[-1], "v": warm.v[-1], "b": warm.b[-1]}
    t0 = time.perf_counter()
    vs.train_signal(cfg, CPU, start_state=state)
    return cfg.steps / (time.perf_counter() - t0)


if __name__ == "__main__":
    main()
