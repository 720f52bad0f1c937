"""The polynomial network's evaluation (``verify.train.polynomial.ensemble_metrics``) one seed and one cache-sized
chunk at a time, against the evaluation it replaced (2026-12-01): all seeds at once in 64 MiB chunks, with torch's
``pow``. Both read the same points of the same ensemble at the full-scale shapes of three claims, on one thread of the
CPU, in float64; the script prints each one's microseconds per point and seed, their ratio and the largest relative
difference of their per-seed margins and cross entropies.

Usage::

    python benchmarks/bench_eval_chunks.py               # Shi Fig. 4.1 k = 5, Shi Thm 4.9 k = 2, Edelman Thm 7.8
    python benchmarks/bench_eval_chunks.py --points 4096 --repeats 3

The shapes (seeds S, width m, classes C, blocks k x d, degree): Shi Fig. 4.1/4.2 at k = 5 (8, 5632, 23, 5 x 23, 5:
6.4 million points an evaluation, 21 evaluations a run), Shi Thm 4.9 at k = 2 and Edelman Thm 7.8 (their full-scale
configurations, read from the registry).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import best_time

CLAIMS = ("shi-fig4.1-split-single-frequency-k5", "shi-thm4.9-training-k2", "edelman-thm7.8-training")
#: The replaced evaluation's chunk: 64 MiB of float64 over all seeds.
OLD_BUDGET = 64 * 2**20


def old_metrics(model, inputs, labels):  # type: ignore[no-untyped-def]
    """The evaluation as it was before 2026-12-01 (its margin and cross entropy): every seed in one batched
    product per chunk of ``OLD_BUDGET`` bytes, the activation by ``torch.pow`` (the baseline)."""
    import torch

    U, W = model.U.detach().to(torch.float64), model.W.detach().to(torch.float64)
    S, m = U.shape[:2]
    chunk = max(1, OLD_BUDGET // (8 * S * (m + 3 * W.shape[2])))
    ce = torch.zeros(S, dtype=torch.float64)
    h = torch.full((S,), math.inf, dtype=torch.float64)
    for start in range(0, inputs.shape[0], chunk):
        x, y = inputs[start : start + chunk], labels[start : start + chunk]
        F = torch.bmm(_old_preactivations(U, x).pow(model.degree), W)
        idx = y.view(1, -1, 1).expand(S, -1, 1)
        ce -= F.log_softmax(dim=2).gather(2, idx).squeeze(2).sum(dim=1)
        g = F.gather(2, idx).squeeze(2) - F.scatter(2, idx, -math.inf).amax(dim=2)
        h = torch.minimum(h, g.amin(dim=1))
    return {"margin": h.tolist(), "cross_entropy": (ce / inputs.shape[0]).tolist()}


def _old_preactivations(U, x):  # type: ignore[no-untyped-def]
    """``verify.train.homogeneous.preactivations`` before 2026-12-01: index inputs gathered from the strided view
    of U as a ((k, d), (S, m)) table (no contiguous copy)."""
    import torch

    S, m, k, d = U.shape
    if x.dtype.is_floating_point:
        return torch.matmul(x.reshape(x.shape[0], k * d).to(U.dtype), U.reshape(S, m, k * d).transpose(1, 2))
    table = U.permute(2, 3, 0, 1).reshape(k * d, S * m)  # a strided view, as the old code read it
    summed = torch.nn.functional.embedding_bag(x + torch.arange(k) * d, table, mode="sum")
    return summed.view(x.shape[0], S, m).transpose(0, 1)


def measure(claim_id: str, points: int, repeats: int) -> dict[str, float]:
    """Microseconds per point and seed of the old and the new evaluation of ``claim_id``'s full-scale ensemble on
    its first ``points`` points, and the largest relative difference of their margins and cross entropies."""
    import torch

    from verify.claims import registry
    from verify.report.plan import _polynomial_task
    from verify.train import polynomial as vp
    from verify.train.homogeneous import HomogeneousEnsemble, as_input_tensor

    torch.set_num_threads(1)
    cfg = registry()[claim_id].configs["full"]
    found = _polynomial_task(cfg)
    if found is None:
        raise SystemExit(f"{claim_id} is not a polynomial-network training claim")
    task, degree = found
    n = min(points, task.n_points)
    x, y = task.batch(0, n)
    inputs, labels = as_input_tensor(x, torch.device("cpu"), torch.float64), torch.as_tensor(y)
    model = HomogeneousEnsemble.from_seeds(
        cfg.train.seeds, width=cfg.width, n_blocks=task.n_blocks, block_size=task.block_size,
        n_classes=task.n_classes, degree=degree,
    )  # fmt: skip
    old_s, old = best_time(lambda: old_metrics(model, inputs, labels), repeats)
    new_s, new = best_time(lambda: vp.ensemble_metrics(model, inputs, labels), repeats)
    diff = max(
        abs(a - b) / max(abs(a), 1e-300) for key in ("margin", "cross_entropy") for a, b in zip(old[key], new[key])
    )
    per = 1e6 / (n * len(cfg.train.seeds))
    return {"old_us": old_s * per, "new_us": new_s * per, "ratio": old_s / new_s, "rel_diff": diff}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", nargs="*", default=list(CLAIMS))
    parser.add_argument("--points", type=int, default=8192, help="points of each dataset read (default 8192)")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    if args.points < 1 or args.repeats < 1:
        parser.error("--points and --repeats must be at least 1")
    print(f"{'claim':40} {'old us/pt-seed':>15} {'new us/pt-seed':>15} {'old/new':>8} {'rel. diff':>10}")
    for claim in args.claims:
        r = measure(claim, args.points, args.repeats)
        print(f"{claim:40} {r['old_us']:15.2f} {r['new_us']:15.2f} {r['ratio']:8.2f} {r['rel_diff']:10.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
