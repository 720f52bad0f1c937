"""Size and solve time of the sum-of-squares bound on the single-neuron maximum, with and without block structure.

For each case the form F = ||P(u)||^2 of ``numerics.sos`` is built once; the relaxation is then solved with the
task's symmetry blocks (Fourier blocks of Z_p^k for modular addition, sign flips for parity, left x right
translations by an abelian subgroup for groups) and, in the same run, as one unstructured block over all monomials
(same variables, same level). Rows give the size of each program (used variables, monomials, Gram blocks, largest
block side, scalar unknowns, equality constraints, Clarabel's dense scaling entries sum (s(s+1)/2)^2), the solve time
(cvxpy compile + solver), the certified bound relative to gamma* (from ``theory``, only to show the tightness) and
the saving ratios unstructured / blocked. Unstructured programs whose block exceeds ``--plain-max`` are sized but
not solved.

Usage::

    python benchmarks/bench_sos.py                 # modular k=2 p=5,7,11; k=3 p=5,7; parity; S3, D4, D5, Z2^3
    python benchmarks/bench_sos.py --quick         # the small cases only
    python benchmarks/bench_sos.py --plain-max 140 # also solve larger unstructured programs (slow)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sympy
from _timing import summary

from numerics import sos
from numerics.groups import GroupTask, character_lp, class_weights
from numerics.modular import ModularTask
from numerics.parity import SparseParityTask
from theory import groups as tg
from theory.modular import max_margin
from theory.parity import max_margin as parity_max_margin


def cases(quick: bool) -> list[tuple[str, object, int, sos.Grading, object, float]]:
    """(label, task, degree, grading, Q, gamma*) per case."""
    out = []
    for p, k in ((5, 2), (7, 2), (5, 3)) if quick else ((5, 2), (7, 2), (11, 2), (5, 3), (7, 3)):
        out.append(
            (f"modular p={p} k={k}", ModularTask(p, k), k, sos.modular_grading(p, k), None, float(max_margin(p, k)))
        )
    for n, k in ((6, 3),) if quick else ((10, 2), (10, 3), (10, 4), (8, 5)):
        task = SparseParityTask(n, tuple(range(k)))
        out.append((f"parity n={n} k={k}", task, k, sos.sign_grading(n), None, float(parity_max_margin(k))))
    for name in ("S3", "Z2^3") if quick else ("S3", "D4", "D5", "Z2^3"):
        Q = class_weights(name, character_lp(name).class_tau.tolist())
        g = float(sympy.N(tg.max_margin(name), 30))
        out.append((f"group {name}", GroupTask(name), 2, sos.group_grading(name), Q, g))
    return out


def solve(form: sos.Form, grading: sos.Grading | None, degree: int, delta: float, g: float) -> tuple[float, float]:
    """(seconds, certified bound / gamma* - 1)."""
    t0 = time.perf_counter()
    res = sos.sos_sphere_bound(form, grading, max_block=10**6, max_scaling=10**15)
    bound = sos.output_layer_factor(degree) * (max(res.bound, 0.0) ** 0.5 + delta)
    return time.perf_counter() - t0, bound / g - 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--quick", action="store_true", help="small cases only")
    ap.add_argument("--plain-max", type=int, default=80, help="solve the unstructured program up to this block side")
    args = ap.parse_args(argv)
    sos.sos_sphere_bound(sos.Form(sos.monomials(2, 4)[1], sos.monomials(2, 4)[1].sum(axis=1) * 1.0 + 0j))  # warm-up
    head = (
        f"{'case':<20} {'prog':<6} {'vars':>4} {'mono':>5} {'blocks':>6} {'max':>4} {'scalars':>8} {'eqs':>6} "
        f"{'dense':>11} {'time s':>8} {'bound/g*-1':>10}"
    )
    print(head)
    print("-" * len(head))
    for label, task, degree, grading, Q, g in cases(args.quick):
        _, exps, P = sos.margin_polynomials(task, degree, grading, Q)
        size = abs(P).max(axis=1)
        keep = size > 1e-13 * size.max()  # as single_neuron_sdp_bound (conjugate pairs have equal size)
        delta = float(((abs(P[~keep]).sum(axis=0)) ** 2).sum() ** 0.5)
        form = sos.squared_norm_form(exps[keep], P[keep])
        rows = {}
        for prog, gr in (("block", grading), ("plain", None)):
            s = sos.sdp_size(form, gr)
            solved = prog == "block" or s.largest_block <= args.plain_max
            t, err = solve(form, gr, degree, delta, g) if solved else (float("nan"), float("nan"))
            rows[prog] = (s, t)
            print(
                f"{label:<20} {prog:<6} {s.n_used:>4} {s.n_monomials:>5} {len(s.block_sides):>6} {s.largest_block:>4} "
                f"{s.n_scalars:>8} {s.n_equalities:>6} {s.dense_scaling_entries:>11} "
                + (f"{t:>8.2f} {err:>10.1e}" if solved else f"{'skipped':>8} {'':>10}")
            )
        (sb, tb), (sp_, tp_) = rows["block"], rows["plain"]
        print(
            f"{'':<20} saving: largest block x{sp_.largest_block / sb.largest_block:.1f}, scalars "
            f"x{sp_.n_scalars / sb.n_scalars:.1f}, dense scaling x{sp_.dense_scaling_entries / max(sb.dense_scaling_entries, 1):.0f}"
            + (f", time x{tp_ / tb:.1f}" if tp_ == tp_ else "")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
