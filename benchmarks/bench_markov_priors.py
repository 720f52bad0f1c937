"""Drawing doubly stochastic transition matrices (Fig. 8.4a's prior, numerics.markov.sample_transition_matrices):
the rejection sampler's rounds replayed on large blocks (now) against one draw a round (before, kept as
``numerics.markov._birkhoff_rounds``).

Usage::

    python benchmarks/bench_markov_priors.py                 # k = 3 and 4, 64 matrices (a training batch of one seed)
    python benchmarks/bench_markov_priors.py --k 4 --n 640 --repeats 5

Both ways start from the same generator state; the script checks that the matrices and the generator's state after
the call are equal bit for bit, and prints the best-of-``repeats`` times and their ratio.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_time

from numerics import markov as nm


def main(argv: list[str] | None = None) -> dict[int, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--k", type=int, nargs="+", default=[3, 4], help="states (2..5)")
    ap.add_argument("--n", type=int, default=64, help="matrices per call (a seed's batch in Fig. 8.4a: 64)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    ratios = {}
    print(f"doubly stochastic matrices, {args.n} per call, best of {args.repeats}")
    for k in args.k:
        before, old = best_time(lambda k=k: nm._birkhoff_rounds(k, args.n, np.random.default_rng(k)), args.repeats)
        now, new = best_time(lambda k=k: nm._birkhoff_rejection(k, args.n, np.random.default_rng(k)), args.repeats)
        rng_old, rng_new = np.random.default_rng(k), np.random.default_rng(k)
        nm._birkhoff_rounds(k, args.n, rng_old)
        nm._birkhoff_rejection(k, args.n, rng_new)
        same = np.array_equal(old, new) and rng_old.bit_generator.state == rng_new.bit_generator.state
        ratios[k] = before / now
        print(
            f"  k = {k}: one draw a round {before * 1e3:8.2f} ms, replayed {now * 1e3:8.2f} ms, "
            f"x{ratios[k]:.2f}; equal bit for bit: {same}"
        )
    return ratios


if __name__ == "__main__":
    main()
