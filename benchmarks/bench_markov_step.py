"""Edelman Fig. 8.4a's training step at its full configuration (``edelman-ch8-priors-speed``: k = 4, t = 100,
10 seeds, batch 64, two attention layers with relative positions), now against its earlier code, in one run.

Usage::

    python benchmarks/bench_markov_step.py                      # doubly stochastic prior, 10 steps, best of 3 (after a warm-up)
    python benchmarks/bench_markov_step.py --prior mixture --steps 20 --repeats 5

Two parts of a step, each timed now and with the earlier code swapped in (alternating rounds, best of
``--repeats``), with a check that both give the same bits:

* the data draw (``verify.train.markov._batches``): each seed's 64 transition matrices and its chains. Before: the
  rejection sampler's rounds drawn one by one (``numerics.markov._birkhoff_rounds``, the specification); now: the rounds
  replayed on blocks of candidates, each candidate's entries tested on the candidates that passed the ones before, and
  runs of rounds that keep nothing stepped over at once (``numerics.markov._birkhoff_rejection``);
* the update (forward, backward, AdamW) on fixed batches. Before: the causal mask by ``masked_fill_`` of a boolean
  mask; now: an additive mask (``verify.train.attention._mask_future``).

One torch thread (``--threads``), as the report's campaign runs. The header prints the date and the load average.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import math
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_time, summary

from numerics import markov as nm
from verify.claims import registry
from verify.train import attention as va
from verify.train import markov as vm
from verify.train.attention import AttentionEnsemble, per_seed_cross_entropy


def _masked_fill(scores: torch.Tensor) -> torch.Tensor:
    """The earlier mask: -inf filled above the diagonal through a broadcast boolean mask."""
    T = scores.shape[-1]
    return scores.masked_fill_(~torch.ones(T, T, dtype=torch.bool, device=scores.device).tril(), -math.inf)


def _rounds(k: int, n: int, rng: np.random.Generator, block: int = 0) -> np.ndarray:
    return nm._birkhoff_rounds(k, n, rng)


@contextlib.contextmanager
def _swapped(module: object, name: str, value: Callable[..., object] | None) -> Iterator[None]:
    """``module.name`` replaced by ``value`` for the block (nothing replaced for None)."""
    old = getattr(module, name)
    if value is not None:
        setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--prior", choices=["doubly_stochastic", "mixture"], default="doubly_stochastic")
    ap.add_argument("--steps", type=int, default=10, help="steps a round (drawn or updated)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    cfg = getattr(registry()["edelman-ch8-priors-speed"].configs["full"], args.prior)
    cfg = dataclasses.replace(cfg, steps=args.steps)
    print(
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f}, "
        f"{args.threads} thread(s); {args.prior}, k = {cfg.k}, t = {cfg.t}, {len(cfg.seeds)} seeds x batch "
        f"{cfg.batch}; best of {args.repeats} rounds of {args.steps} steps"
    )

    def draws() -> list[tuple[torch.Tensor, torch.Tensor]]:
        streams = vm._seed_streams(cfg.seeds)
        draw = vm._batches(cfg.k, cfg.t, cfg.batch, cfg.prior, cfg.order, streams, torch.device("cpu"))
        return [draw(s) for s in range(args.steps)]

    def updates(batches: list[tuple[torch.Tensor, torch.Tensor]]) -> dict[str, torch.Tensor]:
        model = AttentionEnsemble.init(cfg.model, cfg.seeds)
        opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        for x, y in batches:
            loss = per_seed_cross_entropy(model(x), y).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        return model.state()

    times: dict[str, dict[str, float]] = {"draw": {}, "update": {}}
    results: dict[str, dict[str, object]] = {"draw": {}, "update": {}}
    batches = draws()
    updates(batches)  # a warm-up round, not timed (the allocator's first requests)
    for _ in range(args.repeats):
        for label, swap in (("before", _rounds), ("now", None)):
            with _swapped(nm, "_birkhoff_rejection", swap):
                t, out = best_time(draws, 1)
            times["draw"][label] = min(times["draw"].get(label, math.inf), t / args.steps)
            results["draw"][label] = out
        for label, swap in (("before", _masked_fill), ("now", None)):
            with _swapped(va, "_mask_future", swap):
                t, out = best_time(lambda: updates(batches), 1)
            times["update"][label] = min(times["update"].get(label, math.inf), t / args.steps)
            results["update"][label] = out
    pairs = zip(results["draw"]["before"], results["draw"]["now"])  # type: ignore[call-overload]
    same_draws = all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) for a, b in pairs)
    before_w, now_w = results["update"]["before"], results["update"]["now"]
    same_weights = all(torch.equal(before_w[n], now_w[n]) for n in before_w)
    print(f"{'part':8} {'before ms':>10} {'now ms':>10} {'before/now':>11}  same bits")
    for part, same in (("draw", same_draws), ("update", same_weights)):
        b, n = times[part]["before"], times[part]["now"]
        print(f"{part:8} {b * 1e3:10.1f} {n * 1e3:10.1f} {b / n:11.2f}  {same}")
    total_b = times["draw"]["before"] + times["update"]["before"]
    total_n = times["draw"]["now"] + times["update"]["now"]
    print(f"{'step':8} {total_b * 1e3:10.1f} {total_n * 1e3:10.1f} {total_b / total_n:11.2f}")
    return {"draw": times["draw"]["before"] / times["draw"]["now"], "step": total_b / total_n}


if __name__ == "__main__":
    main()
