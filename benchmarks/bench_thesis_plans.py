"""The Shi Thm 4.9 training claims at thesis scale: the plan the trainer picks, then a few real steps, on a GPU.

Usage (on a CUDA machine)::

    python benchmarks/bench_thesis_plans.py                                  # k = 4 and 5 in float32, k = 4 in TF32
    python benchmarks/bench_thesis_plans.py --jobs k3:float32:4,k4:tf32:3 --emulate-gib 79.2 --out plans.json

Each job ``kK:DTYPE:STEPS`` runs the registered ``shi-thm4.9-training-kK`` full configuration (3 seeds, 20 000 steps
planned) through :func:`verify.train.polynomial.train` and stops it after ``STEPS`` steps: the planner probes its candidates
and prints its plan (strategy, kernel, chunk, peak memory against free memory, time per step, total), then every
step is timed with a CUDA synchronize. Printed per job (and written as JSON with ``--out``): the plan, the median
step time, the FLOP rate, the hours 20 000 steps would take, and the peak memory torch allocated against the plan's
estimate. ``--emulate-gib`` cuts the free memory to that many GiB with a ballast allocation (79.2: what an 80 GB
H100 leaves free), so a larger card plans as the smaller one would; the ballast is not counted in the peaks
printed. Matrix-product peaks (float32, TF32, float64) are measured first. The numbers of docs/benchmarks.md
("Thesis scale on an 80 GB GPU") come from this script.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import matmul_peak, summary

import verify.train.polynomial as vt
from numerics.modular import ModularTask
from theory.modular import max_margin
from verify.claims import registry
from verify.runtime.options import RunOptions

GIB = 2.0**30
PEAK = {"warmups": 3, "repeats": 5}  # per peak measurement


def run_job(k: int, dtype: str, steps: int, ballast_bytes: int) -> dict[str, Any]:
    """Plan and run ``steps`` steps of the full ``shi-thm4.9-training-k{k}`` configuration; the measurements."""
    cfg = registry()[f"shi-thm4.9-training-k{k}"].configs["full"]
    train_cfg = cfg.train.replace(eval_every=steps, checkpoint_every=None)  # the full run, stopped
    options = RunOptions(device="cuda", dtype=dtype)  # the run-wide dtype, as tvk report --dtype sets it
    task = ModularTask(cfg.p, cfg.k)
    times: list[float] = []
    step = vt._fused_step

    def timed(*args: Any, **kwargs: Any) -> Any:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = step(*args, **kwargs)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        return out

    vt._fused_step = timed
    torch.cuda.reset_peak_memory_stats()
    try:
        result = vt.train(
            task,
            cfg.k,
            cfg.width,
            train_cfg,
            options,
            reference_margin=float(max_margin(cfg.p, cfg.k)),
            callback=lambda s, model, rec: s >= steps,
        )
    finally:
        vt._fused_step = step
    plan = result.plan or {}
    median = float(np.median(times))
    flops = float(plan.get("flops_per_step") or 0.0)
    return {
        "claim": f"shi-thm4.9-training-k{k}",
        "dtype": dtype,
        "p, k, m, seeds": (cfg.p, cfg.k, cfg.width, len(train_cfg.seeds)),
        "plan": plan,
        "planned_peak_gib": plan.get("peak_bytes", 0) / GIB,
        "measured_peak_gib": (torch.cuda.max_memory_allocated() - ballast_bytes) / GIB,
        "step_median_s": median,
        "tflops": flops / median / 1e12,
        "hours_for_planned_steps": median * cfg.train.steps / 3600,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--jobs", default="k4:float32:3,k5:float32:3,k4:tf32:3", help="kK:DTYPE:STEPS,...")
    parser.add_argument("--emulate-gib", type=float, default=None, help="cut the free memory to this many GiB")
    parser.add_argument("--out", default=None, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    jobs = []
    for job in args.jobs.split(","):
        try:
            k, dtype, steps = job.split(":")
            jobs.append((int(k.removeprefix("k")), dtype, int(steps)))
        except ValueError:
            parser.error(f"--jobs: {job!r} is not kK:DTYPE:STEPS (e.g. k4:float32:3)")
    if not torch.cuda.is_available():
        parser.error("needs a CUDA device (the thesis-scale steps take minutes to hours each on a CPU)")
    free, total = torch.cuda.mem_get_info()
    info: dict[str, Any] = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "total_gib": total / GIB,
        "float32_peak_tflops": matmul_peak(torch.float32, "cuda", **PEAK) / 1e12,
        "tf32_peak_tflops": matmul_peak(torch.float32, "cuda", tf32=True, **PEAK) / 1e12,
        "float64_peak_tflops": matmul_peak(torch.float64, "cuda", size=4096, **PEAK) / 1e12,
    }
    torch.cuda.empty_cache()  # the peaks' operands, so that the ballast leaves exactly --emulate-gib free
    ballast = None
    free, _ = torch.cuda.mem_get_info()
    if args.emulate_gib is not None and free > args.emulate_gib * GIB:
        ballast = torch.empty(int(free - args.emulate_gib * GIB), dtype=torch.uint8, device="cuda")
        info["free_gib_after_ballast"] = torch.cuda.mem_get_info()[0] / GIB
    print(json.dumps(info), flush=True)
    results: dict[str, Any] = {"info": info, "runs": []}
    for k, dtype, steps in jobs:
        try:
            row = run_job(k, dtype, steps, 0 if ballast is None else ballast.numel())
        except Exception as exc:  # an out-of-memory error is a result too: record it, go on with the next job
            row = {"claim": f"shi-thm4.9-training-k{k}", "dtype": dtype, "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(row, default=str), flush=True)
        results["runs"].append(row)
        torch.cuda.empty_cache()
        if args.out:
            Path(args.out).write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
