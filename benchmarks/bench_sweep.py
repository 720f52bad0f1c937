"""Sweep executors on the quick Pareto grid (verify.sweep): in-process vs local processes vs Ray, in one run.

Usage::

    python benchmarks/bench_sweep.py                         # quick Pareto grid (12 cells), 2 workers
    python benchmarks/bench_sweep.py --executors local,ray --workers 2 --overhead-tasks 400
    python benchmarks/bench_sweep.py --machines 1,10,100     # full-grid wall-time estimate on N machines

For each executor the grid runs once in a fresh session with an in-memory store: ``cold`` includes starting the
workers (process pool, local Ray) and a warm-up of one tiny cell per worker (imports of torch and the claims in
each worker), ``warm`` is the grid alone after that. Ratios are in-process time over executor time (> 1: faster).
The script checks that every executor gives the same observation (cell results bit for bit, wall times aside).

Then: per-task overhead of Ray (empty tasks: submit-all throughput with the workers' CPUs, and sequential
round trips) and of the sweep path through Ray and processes (empty cells through ``run_cells``); and the
full Pareto grid's estimated time from the calibrated cost model (``verify.sweep.cost``), serial and on N
machines with ``--workers`` cells in parallel each, next to the model's estimate of the quick grid, whose
measured time is above. The load average is printed: timings on a shared machine are not comparable.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import ray
except ImportError:  # the `distributed` extra is not installed: the Ray rows are skipped
    ray = None

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import summary

from verify.claims import RunContext, registry
from verify.claims.base import Observation
from verify.claims.sparse_parity.common import parity_cell, parity_cost, run_summary
from verify.claims.sparse_parity.pareto import PARETO_GRID, cell_config
from verify.runtime.memory import format_seconds
from verify.runtime.options import RunOptions
from verify.sweep import Cell, Grid, make_executor, sweep_session
from verify.sweep.cost import calibrate, estimate_grid
from verify.sweep.executors import local_ray_options


@dataclass(frozen=True)
class Empty:
    """An empty cell's configuration."""

    index: int


def empty_run(cell: Cell, ctx: RunContext) -> int:
    """A cell that does nothing (per-cell overhead of an executor)."""
    return cell.config.index


def _warmup_grid(workers: int) -> tuple[Grid, Any]:
    def cells(cfg: Any) -> list[Cell]:
        return [
            parity_cell(f"warm {i}", cell_config(10, 2, 2, None, "default", (i,), 1, 1, n_val=10)) for i in range(cfg)
        ]

    return Grid("bench-warmup", cells, run_summary, lambda cfg, res: Observation(len(res))), workers


def _strip(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k != "wall_s"}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def time_grid(executor: str, workers: int, config: Any, ctx: RunContext) -> tuple[float, float, Observation]:
    """(cold seconds, warm seconds, observation) of the Pareto grid on ``executor``."""
    t0 = time.perf_counter()
    with sweep_session(executor, workers=workers, log=lambda s: None):
        grid, n = _warmup_grid(workers)
        grid.observe(n, ctx)
        t1 = time.perf_counter()
        obs = PARETO_GRID.observe(config, ctx)
        t2 = time.perf_counter()
    return t2 - t0, t2 - t1, obs


def per_cell_overhead(executor: str, workers: int, tasks: int, ctx: RunContext) -> float:
    """Seconds per empty cell through ``run_cells`` (warm workers), all cells submitted at once."""
    ex = make_executor(executor, workers=workers)
    try:
        cells = [Cell(f"empty {i}", Empty(i), (0,)) for i in range(tasks)]
        ex.run_cells(empty_run, cells[: 2 * workers], ctx, lambda *a: None)  # start and warm the workers
        t0 = time.perf_counter()
        ex.run_cells(empty_run, cells, ctx, lambda *a: None)
        return (time.perf_counter() - t0) / tasks
    finally:
        ex.close()


def ray_task_overhead(workers: int, tasks: int) -> tuple[float, float]:
    """Ray's own per-task cost with empty tasks: (throughput seconds per task, sequential round trip seconds)."""
    ray.init(**local_ray_options(workers))  # as the ray executor starts a local Ray
    try:

        @ray.remote(num_cpus=1)
        def noop(i: int) -> int:
            return i

        ray.get([noop.remote(i) for i in range(4 * workers)])  # workers up
        t0 = time.perf_counter()
        ray.get([noop.remote(i) for i in range(tasks)])
        throughput = (time.perf_counter() - t0) / tasks
        rounds = max(20, tasks // 10)
        t0 = time.perf_counter()
        for i in range(rounds):
            ray.get(noop.remote(i))
        return throughput, (time.perf_counter() - t0) / rounds
    finally:
        ray.shutdown()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--executors", default="local,processes,ray")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--overhead-tasks", type=int, default=200)
    parser.add_argument("--machines", default="1,10,100", help="machine counts for the full-grid estimate")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)

    claim = registry()[PARETO_GRID.claim_id]
    quick, full = claim.configs["quick"], claim.configs["full"]
    ctx = RunContext(options=RunOptions(progress=False, device=args.device))
    names = [e.strip() for e in args.executors.split(",") if e.strip() and (e.strip() != "ray" or ray is not None)]
    print(f"load average before: {os.getloadavg()} on {os.cpu_count()} cores")
    print(f"quick Pareto grid: {len(PARETO_GRID.plan(quick)[0])} cells, {len(quick.seeds)} seeds each")
    out: dict[str, Any] = {"load_before": os.getloadavg()}
    times, ref = {}, None
    for name in names:
        cold, warm, obs = time_grid(name, args.workers, quick, ctx)
        times[name] = (cold, warm)
        same = "reference" if ref is None else ("same" if _strip(obs.details) == _strip(ref.details) else "DIFFERENT")
        ref = ref or obs
        print(f"  {name:10s} cold {cold:7.1f} s   warm {warm:7.1f} s   observation: {same}")
    if "local" in times:
        base = times["local"][1]
        for name, (cold, warm) in times.items():
            if name != "local":
                print(
                    f"  {name:10s} vs in-process: {base / cold:.2f}x cold, {base / warm:.2f}x warm ({args.workers} workers)"
                )
    out["grid"] = times

    print(f"per-cell overhead, {args.overhead_tasks} empty cells, {args.workers} workers:")
    for name in names:
        if name != "local":
            sec = per_cell_overhead(name, args.workers, args.overhead_tasks, ctx)
            out[f"overhead_{name}"] = sec
            print(f"  {name:10s} {sec * 1e3:.2f} ms per cell through run_cells")
    if "ray" in names:
        thr, rtt = ray_task_overhead(args.workers, args.overhead_tasks)
        out["ray_task"] = (thr, rtt)
        print(f"  ray tasks  {thr * 1e3:.2f} ms per task (throughput), {rtt * 1e3:.2f} ms per sequential round trip")

    speed = calibrate(args.device)
    est_quick = estimate_grid(PARETO_GRID, quick, speed)
    est_full = estimate_grid(PARETO_GRID, full, speed)
    print(
        f"cost model on {speed.device}: {speed.overhead_s * 1e6:.0f} us per launch, "
        f"{speed.flops_per_s / 1e9:.1f} G multiply-adds/s"
    )
    measured = f"{times['local'][1]:.1f} s measured in-process" if "local" in times else "not measured"
    at_steps_run = sum(
        speed.seconds(dataclasses.replace(cost, steps=c["steps_run"], evals=c["steps_run"] // quick.eval_every + 2))
        for c, cost in zip(ref.details["cells"], (parity_cost(cell) for cell in PARETO_GRID.plan(quick)[0]))
    )
    print(
        f"  quick grid: estimated {format_seconds(est_quick.pending_s)} serial at the step budget, "
        f"{format_seconds(at_steps_run)} at the steps the cells ran; {measured}"
    )
    print(f"  full grid: {est_full.cells} cells, ~{format_seconds(est_full.median_cell_s)} per cell (median),")
    print(
        f"             ~{format_seconds(est_full.pending_s)} serial on one {speed.device} worker (at the step budget)"
    )
    for n in (int(m) for m in args.machines.split(",")):
        wall = est_full.pending_s / (n * args.workers)
        print(f"             ~{format_seconds(wall)} wall on {n} machine(s) x {args.workers} workers")
    out["estimate_quick_s"], out["estimate_full_s"] = est_quick.pending_s, est_full.pending_s
    print(f"load average after: {os.getloadavg()}")
    return out


if __name__ == "__main__":
    main()
