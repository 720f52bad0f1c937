"""Peak memory and time of one Markov-transformer evaluation (verify.train.markov.evaluate_kls): in chunks of
chains (the default, ``EVAL_SCORE_BYTES`` of float64 attention scores a chunk) against one forward pass over every
test chain (the baseline, the code before 2026-11-30).

Usage::

    python benchmarks/bench_markov_eval.py                      # Fig. 8.4a's model: k = 4, t = 100, 10 seeds; 1000 chains
    python benchmarks/bench_markov_eval.py --chains 4000        # its full eval_n (one pass: about 15 GiB)

Each way runs in a fresh process (``ru_maxrss`` is the process's peak resident memory, the test set and the model
included); the script prints both peaks and times, their ratios, and whether the KLs are equal bit for bit.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _one(chains: int, seeds: int, one_pass: bool) -> dict[str, object]:
    """One evaluation in this process: its wall time, this process's peak RSS (bytes) and the KLs."""
    import torch

    from verify.train import markov as vm
    from verify.train.attention import AttentionConfig, AttentionEnsemble

    if one_pass:
        vm.EVAL_SCORE_BYTES = 1 << 62  # every chain in one chunk
    cfg = AttentionConfig(vocab=4, max_len=100, d=16, layers=2, heads=1, positions="relative")
    model = AttentionEnsemble.init(cfg, tuple(range(seeds)), dtype=torch.float32)
    test = vm.make_test_set(4, 100, chains)
    t0 = time.perf_counter()
    kls = vm.evaluate_kls(model, test, torch.device("cpu"))
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "kls": kls}


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chains", type=int, default=1000, help="test chains (Fig. 8.4a's eval_n is 4000)")
    ap.add_argument("--seeds", type=int, default=10, help="ensemble seeds (Fig. 8.4a: 10)")
    ap.add_argument("--child", choices=["chunked", "one-pass"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_one(args.chains, args.seeds, args.child == "one-pass")))
        return {}
    out = {}
    for way in ("one-pass", "chunked"):
        cmd = [sys.executable, __file__, "--chains", str(args.chains), "--seeds", str(args.seeds), "--child", way]
        out[way] = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    base, new = out["one-pass"], out["chunked"]
    gib = 2.0**30
    print(f"evaluate_kls, k = 4, t = 100, {args.seeds} seeds, {args.chains} chains (fresh process each)")
    for way in ("one-pass", "chunked"):
        print(f"  {way:9s} peak {out[way]['peak'] / gib:6.2f} GiB  {out[way]['seconds']:7.2f} s")
    ratios = {"peak": new["peak"] / base["peak"], "time": new["seconds"] / base["seconds"]}
    print(f"  chunked / one-pass: peak x{ratios['peak']:.3f}, time x{ratios['time']:.3f}")
    print(f"  KLs equal bit for bit: {new['kls'] == base['kls']}")
    return ratios


if __name__ == "__main__":
    main()
