"""Start-up time of the `tvk` commands a user types first (issue 31, item 7: `--version`, `--help`, `tvk list` in
under 0.5 s), each in a fresh Python process, against the baseline of starting Python itself in the same run.

Usage::

    python benchmarks/bench_cli_startup.py [--repeats 7]

Prints, per command, the best wall time of ``repeats`` fresh processes and its ratio to ``python -c pass``; and the
load average, since timings on a shared machine are not comparable. ``tvk list`` reads the claim index
(verify/claim_index.json) and imports neither torch nor the claims; `import torch` is timed as the reference of what
the lazy imports avoid.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from _timing import summary

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "python -c pass (baseline)": [sys.executable, "-c", "pass"],
    "tvk --version": [sys.executable, "-m", "verify.cli", "--version"],
    "tvk --help": [sys.executable, "-m", "verify.cli", "--help"],
    "tvk list": [sys.executable, "-m", "verify.cli", "list"],
    "tvk list --json": [sys.executable, "-m", "verify.cli", "list", "--json"],
    "python -c 'import torch' (reference)": [sys.executable, "-c", "import torch"],
}


def best_of(argv: list[str], repeats: int) -> float:
    """The smallest wall time of ``repeats`` runs of ``argv`` (output discarded; a failure stops the script)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    base = None
    for name, cmd in COMMANDS.items():
        t = best_of(cmd, args.repeats)
        base = base or t
        print(f"{name:40s} {t * 1000:8.0f} ms   x{t / base:5.1f} of python -c pass")
    print(f"load average after:  {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
