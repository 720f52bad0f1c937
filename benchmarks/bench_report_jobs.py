"""`tvk report -j 1` against `-j N` on the same selection, end to end (a fresh `tvk` process each), in one run.

Usage::

    python benchmarks/bench_report_jobs.py                          # -j 1 vs -j 2, default selection
    python benchmarks/bench_report_jobs.py --jobs 2 --only 'shi-*' --repeats 2

Each run is ``python -m verify.cli report --only SEL -j J --no-progress --json`` into a fresh directory, so the
times include starting Python, importing the claims and, for ``-j N``, starting the workers (each imports torch
and the claims). With ``--repeats R`` the runs alternate (1, N, 1, N, ...) and the best time of each is kept.
The script checks that both give the same claims in the same order with the same verdicts (exit status 1 if
not) and prints the load average before and after: timings on a shared machine are not comparable.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Symbolic, numeric and convex claims of modular addition, LSA and the Edelman Ch. 7 margin claims, with their
#: training runs (about 70 s of claim time on the 2-core CPU; no grid claim).
DEFAULT_ONLY = "shi-*,edelman-thm7*,edelman-fig7*"


def run_report(only: str, jobs: int, out: Path) -> tuple[float, list[tuple[str, str]]]:
    """Wall time of one `tvk report` and its (id, verdict) list."""
    cmd = [sys.executable, "-m", "verify.cli", "report", "--only", only, "-j", str(jobs), "--out", str(out)]
    cmd += ["--no-progress", "--json"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):  # 1: a claim failed; still a comparable report
        raise SystemExit(f"tvk report -j {jobs} exited {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}")
    obj = json.loads(proc.stdout)
    return wall, [(c["id"], c["verdict"]) for c in obj["claims"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=DEFAULT_ONLY, help=f"claim selection (default {DEFAULT_ONLY!r})")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes of the parallel run (default 2)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each, alternating; best kept (default 1)")
    args = parser.parse_args(argv)
    if args.jobs < 2 or args.repeats < 1:
        parser.error("--jobs must be >= 2 and --repeats >= 1")
    print(f"selection {args.only!r}; {os.cpu_count()} cores; load average before: {os.getloadavg()}")
    best = {1: float("inf"), args.jobs: float("inf")}
    verdicts: dict[int, list[tuple[str, str]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-report-jobs-") as tmp:
        for r in range(args.repeats):
            for jobs in (1, args.jobs):
                wall, got = run_report(args.only, jobs, Path(tmp) / f"j{jobs}-{r}")
                best[jobs] = min(best[jobs], wall)
                verdicts[jobs] = got
                print(f"  -j {jobs:<2} run {r + 1}: {wall:7.1f} s  ({len(got)} claims)", flush=True)
    same = verdicts[1] == verdicts[args.jobs]
    print(f"load average after: {os.getloadavg()}")
    print(f"claims: {len(verdicts[1])}; verdicts and order identical: {same}")
    print(
        f"-j 1: {best[1]:.1f} s   -j {args.jobs}: {best[args.jobs]:.1f} s   ratio (-j 1 / -j {args.jobs}): "
        f"{best[1] / best[args.jobs]:.2f}x"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
