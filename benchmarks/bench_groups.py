"""Time the finite-group machinery (Edelman Thm 7.9; ``docs/groups.md``).

For each group: building the Cayley table (sympy permutations), the exact character table
(Murnaghan-Nakayama for S_n, Burnside for A_n), the float64 real orthogonal irreps (Young's
orthogonal form for S_n, commutant method for A_n) and the character-level LP of Edelman App. D.9.2 (HiGHS).
Caches are cleared before every repeat; the best of ``--repeats`` runs is reported.

Usage::

    python benchmarks/bench_groups.py                 # S5, S6, A5
    python benchmarks/bench_groups.py --groups S4 S5 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _timing import summary

from numerics import groups as ng
from theory import finite_groups as fg


def clear_caches() -> None:
    for f in (
        fg.group,
        fg.symmetric_group,
        fg.alternating_group,
        fg.dihedral_group,
        fg.cyclic_group,
        fg.quaternion_group,
        fg._character_table_cached,
        fg.murnaghan_nakayama,
        ng._real_irreps_cached,
    ):
        f.cache_clear()


def run_once(name: str) -> dict[str, float]:
    clear_caches()
    t0 = time.perf_counter()
    G = fg.group(name)
    t1 = time.perf_counter()
    ct = fg.character_table(G)
    t2 = time.perf_counter()
    ng.real_irreps(G)
    t3 = time.perf_counter()
    lp = ng.character_lp(G)
    t4 = time.perf_counter()
    return {
        "table": t1 - t0,
        "chars": t2 - t1,
        "irreps": t3 - t2,
        "lp": t4 - t3,
        "value": lp.value,
        "K": ct.n_irreps,
        "order": G.order,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--groups", nargs="*", default=["S5", "S6", "A5"])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"{'G':>4} {'|G|':>5} {'K':>3} {'Cayley s':>9} {'chars s':>8} {'irreps s':>9} {'LP s':>7}  {'LP gamma*':>22}")
    for name in args.groups:
        runs = [run_once(name) for _ in range(args.repeats)]
        best = {k: min(r[k] for r in runs) for k in ("table", "chars", "irreps", "lp")}
        r = runs[0]
        print(
            f"{name:>4} {r['order']:>5} {r['K']:>3} {best['table']:>9.3f} {best['chars']:>8.3f} "
            f"{best['irreps']:>9.3f} {best['lp']:>7.4f}  {r['value']:>22.16g}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
