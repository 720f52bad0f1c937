"""Time the exact sign decisions of Edelman Thm 7.9's condition for dihedral groups (``theory.groups``,
``theory.finite_groups.is_zero``; docs/benchmarks.md).

The condition's values of D_n are sums of cosines of multiples of 2 pi / n. ``is_zero`` first asks sympy's
``evalf(strict=True)`` for certified digits (a nonzero value is decided there) and only then simplifies and computes
the minimal polynomial. The baseline is the earlier route (simplify, then the minimal polynomial) on the same
values, in the same run; both must give the same signs.

Usage::

    python benchmarks/bench_group_zero_test.py            # D7, D11
    python benchmarks/bench_group_zero_test.py --groups D5 D7
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sympy
from _timing import summary

from theory import finite_groups as fg
from theory import groups as tg


def minimal_polynomial_route(x: sympy.Expr) -> bool:
    """Zero test without the certified digits (the route before 2026-11-30)."""
    s = sympy.simplify(sympy.expand(x))
    if s == 0:
        return True
    t = sympy.Symbol("t")
    return sympy.minimal_polynomial(s, t) == t


def main() -> None:
    parser = argparse.ArgumentParser(description=summary(__doc__))
    parser.add_argument("--groups", nargs="+", default=["D7", "D11"])
    args = parser.parse_args()
    print(f"{'group':6s} {'values':>6s} {'certified digits (s)':>21s} {'minimal polynomial (s)':>23s} {'ratio':>7s}")
    for name in args.groups:
        values = tg.condition_values(name)[1:]
        t0 = time.perf_counter()
        fast = [fg.is_zero(v) for v in values]
        t1 = time.perf_counter()
        slow = [minimal_polynomial_route(v) for v in values]
        t2 = time.perf_counter()
        assert fast == slow, (name, fast, slow)
        print(f"{name:6s} {len(values):6d} {t1 - t0:21.2f} {t2 - t1:23.2f} {(t2 - t1) / (t1 - t0):6.0f}x")


if __name__ == "__main__":
    main()
