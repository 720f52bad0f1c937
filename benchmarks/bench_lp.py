"""Time the dictionary-LP certificate (margin features + cvxpy solve) as p grows.

For k-input modular addition with the explicit max-margin construction as dictionary
(2^{2k-2}(p-1) unit neurons, Shi Lemma C.18), the LP of ``numerics.certificates`` has
J = 2^{2k-2}(p-1) variables and p^k (p-1) margin constraints; its value must equal gamma*.

Usage::

    python benchmarks/bench_lp.py                      # k=2: p=3..13, k=3: p=3,5,7
    python benchmarks/bench_lp.py --k2 3 5 7 --k3 3 5 --repeats 3 --solver SCS

Prints one row per (k, p): dictionary size, number of margin constraints, best-of-``repeats`` time for
building the features alone and for the whole certificate (features + solve), that time relative to
the smallest p of the same k measured in this run, the relative error of the LP value against
gamma*, the relative duality gap, and the solver used.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import best_time, summary

from numerics.certificates import margin_features, solve_dictionary_lp, unit_neurons
from numerics.modular import ModularTask, construction_network
from theory.modular import max_margin


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--k2", type=int, nargs="*", default=[3, 5, 7, 9, 11, 13], help="moduli p for k = 2")
    ap.add_argument("--k3", type=int, nargs="*", default=[3, 5, 7], help="moduli p for k = 3")
    ap.add_argument("--repeats", type=int, default=3, help="take the best of this many runs")
    ap.add_argument("--solver", default=None, help="cvxpy solver name (default: CLARABEL, SCS fallback)")
    args = ap.parse_args(argv)

    header = f"{'k':>2} {'p':>3} {'J':>5} {'rows':>7} {'features s':>11} {'LP total s':>11} {'ratio':>7} {'|LP/g*-1|':>10} {'rel gap':>9}  solver"
    print(header)
    print("-" * len(header))
    for k, ps in ((2, args.k2), (3, args.k3)):
        base = None
        for p in sorted(ps):
            task = ModularTask(p, k)
            dictionary = unit_neurons(construction_network(p, k))
            g = float(max_margin(p, k))
            t_feat, D = best_time(partial(margin_features, dictionary, task, normalize=False), args.repeats)
            t_lp, res = best_time(partial(solve_dictionary_lp, dictionary, task, solver=args.solver), args.repeats)
            base = t_lp if base is None else base
            print(
                f"{k:>2} {p:>3} {dictionary.width:>5} {D.shape[1]:>7} {t_feat:>11.4f} {t_lp:>11.4f} {t_lp / base:>7.1f} "
                f"{abs(res.value / g - 1):>10.1e} {res.relative_gap:>9.1e}  {res.solver}"
                + (f" (after: {'; '.join(res.attempts)})" if res.attempts else "")
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
