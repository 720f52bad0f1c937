"""What the polynomial-network trainer's evaluations add to a run (verify.train.polynomial.train): its plan line
(:func:`verify.train.polynomial_step.plan_step`) times the update only, and this measures the part it leaves out, at
the full-scale shapes of the polynomial-network training claims. The report's plan counts the evaluations since
2026-12-01 (``StepShapes.flops_per_evaluation``, docs/training.md).

Usage::

    python benchmarks/bench_polynomial_eval.py                         # Shi Thm 4.9 k = 2, Edelman Thm 7.7, Thm 7.9 S5
    python benchmarks/bench_polynomial_eval.py shi-fig4.1-split-single-frequency --steps 24

For each claim the real trainer runs ``--steps`` updates of its full-scale configuration twice, evaluating never
(the baseline) and every ``--every`` steps; the difference over the evaluations is one evaluation
(``ensemble_metrics`` on the whole dataset, float64). The script prints an update's and an evaluation's time, their
ratio, and the share of the claim's run that its ``eval_every`` gives the evaluations:
``(evaluation / update) / eval_every``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import best_time

CLAIMS = ("shi-thm4.9-training-k2", "edelman-thm7.7-training", "edelman-thm7.9-training-S5")


def measure(claim_id: str, steps: int, every: int, repeats: int) -> dict[str, float]:
    """Seconds per update and per evaluation of ``claim_id``'s full-scale training, and the evaluations' share of its
    run (one torch thread, the CPU)."""
    import torch

    import verify.claims  # noqa: F401 (registers the claims)
    from verify.claims import base
    from verify.report.plan import _polynomial_task
    from verify.runtime.options import RunOptions
    from verify.train import polynomial as vp

    torch.set_num_threads(1)
    claim = base.registry().get(claim_id)
    if claim is None or "full" not in claim.configs:
        raise SystemExit(f"{claim_id} is not a claim with a full-scale configuration (tvk list)")
    cfg = claim.configs["full"]
    found = _polynomial_task(cfg)
    if found is None:
        raise SystemExit(f"{claim_id} is not a polynomial-network training claim")
    task, degree = found
    options = RunOptions(device="cpu", progress=False)

    def run(eval_every: int) -> None:
        vp.train(task, degree, int(cfg.width), replace(cfg.train, steps=steps, eval_every=eval_every), options)

    run(10**9)  # warm-up: allocations, the plan's probe
    never, _ = best_time(lambda: run(10**9), repeats)
    often, _ = best_time(lambda: run(every), repeats)
    update = never / steps
    evaluation = (often - never) / (steps // every)
    return {"update_s": update, "eval_s": evaluation, "share": evaluation / update / cfg.train.eval_every}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("claims", nargs="*", default=list(CLAIMS), help="polynomial-network training claim ids")
    ap.add_argument("--steps", type=int, default=40, help="updates per timed run")
    ap.add_argument("--every", type=int, default=4, help="evaluate every this many steps in the second run")
    ap.add_argument("--repeats", type=int, default=2, help="best of this many runs each way")
    args = ap.parse_args(argv)
    if args.steps < args.every or args.every < 1:
        ap.error("--steps must be at least --every, and --every at least 1")
    for claim_id in args.claims:
        t0 = time.perf_counter()
        m = measure(claim_id, args.steps, args.every, args.repeats)
        print(
            f"{claim_id}: update {m['update_s'] * 1e3:.1f} ms, evaluation {m['eval_s'] * 1e3:.1f} ms "
            f"(x{m['eval_s'] / m['update_s']:.2f} an update); at its eval_every the evaluations are "
            f"{m['share']:.2%} of the run  [{time.perf_counter() - t0:.0f} s]",
            flush=True,
        )


if __name__ == "__main__":
    main()
