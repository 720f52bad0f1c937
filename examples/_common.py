"""Shared by the examples: where figures go (the first command-line argument, or ``examples-out/``)."""

from __future__ import annotations

import sys
from pathlib import Path

from verify.claims import RunContext, registry
from verify.claims.base import Evaluation, evaluate
from verify.runtime.options import RunOptions


def out_dir() -> Path:
    """The output folder named on the command line (created), default ``examples-out``."""
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "examples-out")
    out.mkdir(parents=True, exist_ok=True)
    return out


def run(claim_id: str) -> Evaluation:
    """Run one claim at quick scale on the CPU and print its verdict line."""
    ev = evaluate(registry()[claim_id], RunContext(scale="quick", options=RunOptions(device="cpu", progress=False)))
    print(f"{claim_id}: {ev.verdict} ({ev.reason})")
    return ev
