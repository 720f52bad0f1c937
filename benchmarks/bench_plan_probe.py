"""The grid probe of ``tvk report --plan`` (issue 29: the plan in under a minute): the sparse-parity trainer's update
at a grid's median cell, timed by :func:`verify.train.sparse_parity.probe_parity_step`. The baseline, in the same
run, is the probe as it was before 2026-11-30 04:00 UTC: its data stream drew a run's whole first chunk
(``DATA_CHUNK_ELEMENTS`` input entries a seed) for a probe of 15 updates. Now it draws only those updates' batches.

Usage::

    python benchmarks/bench_plan_probe.py [--claims ID,ID,...] [--repeats 2]

For each grid claim's median cell at full scale (the cell the plan probes): the best wall time of ``repeats`` probes
each way, their ratio, and the update time each way measured (it should agree within the machine's noise: the
updates are the same kernels on other bits). Prints the load average (timings on a shared machine are not
comparable across runs; the ratio within one run is).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_time, summary

from verify.claims import registry
from verify.sweep import cost
from verify.sweep.grid import grid_read_by
from verify.train import sparse_parity as sp

#: The grids the plan probes first on the 2-core CPU (the cheapest unprobed estimates; docs/running_at_scale.md).
DEFAULT_CLAIMS = (
    "edelman-ch5-fig5.2-no-early-convergence",
    "edelman-ch5-fig5.1-local-slope-law",
    "edelman-ch5-figB.12-noisy-parity",
)


def median_cell(claim_id: str, speed: cost.DeviceSpeed) -> sp.SparseParityConfig:
    """The configuration of the cell :func:`verify.sweep.cost.probe_scale` probes for ``claim_id`` at full scale."""
    claim = registry()[claim_id]
    grid = grid_read_by(claim)
    if grid is None or grid.cost is None:
        raise SystemExit(f"{claim_id}: not a grid claim with a cell cost")
    cells = [c for stage in grid.plan(claim.configs["full"]) for c in stage]
    costs = [grid.cost(c) for c in cells]
    order = sorted(range(len(cells)), key=lambda i: speed.seconds(costs[i]))
    return cells[order[len(cells) // 2]].config


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--claims", default=",".join(DEFAULT_CLAIMS))
    ap.add_argument("--repeats", type=int, default=2)
    a = ap.parse_args(argv)
    speed = cost.calibrate("cpu")
    capped = sp._run_parity

    def whole_chunk(cfg, options, callback, data_chunk=None):  # type: ignore[no-untyped-def]
        return capped(cfg, options, callback)  # the probe before: no cap on the first refill

    print(f"load average {os.getloadavg()[0]:.2f}; calibration {speed.flops_per_s / 1e9:.1f} G multiply-adds/s")
    for cid in a.claims.split(","):
        config = median_cell(cid, speed)
        sp._run_parity = whole_chunk
        try:
            t_0, u_0 = best_time(lambda config=config: sp.probe_parity_step(config, "cpu"), a.repeats)
        finally:
            sp._run_parity = capped
        t_1, u_1 = best_time(lambda config=config: sp.probe_parity_step(config, "cpu"), a.repeats)
        print(
            f"{cid} (median cell: {len(config.seeds)} seeds, n = {config.n}, batch {config.batch_size})\n"
            f"  before (whole first chunk): {t_0:6.2f} s a probe, update {u_0 * 1e3:.3g} ms\n"
            f"  now (15 updates' batches):  {t_1:6.2f} s a probe, update {u_1 * 1e3:.3g} ms   ratio {t_0 / t_1:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
