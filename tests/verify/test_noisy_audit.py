"""Audit of the Fig. B.12 noisy-parity claim's verdict logic (verify/claims/sparse_parity/noisy.py): a seed succeeds
only when it converges at every flip probability (its own column at every level), the aggregate keeps each level's
cells apart, and the trainer gets the flip probability it is named by. Oracles: hand-built cell results whose
per-level outcomes are known by construction."""

from __future__ import annotations

import numpy as np

from verify.claims.base import Observation
from verify.claims.sparse_parity.noisy import NoisyConfig, NoisyParity, _aggregate, _cells
from verify.sweep import CellResult

CFG = NoisyConfig(n=10, k=3, flips=("0.25", "0.45"), seeds=(0, 1, 2), steps=100)
PRED = {"chance": 0.5, "eps": {"0.25": 0.5, "0.45": 0.1}}


def _results(tc: dict[str, list[float]], diverged: dict[str, list[float]] | None = None) -> list[CellResult]:
    out = []
    for cell in _cells(CFG):
        p = next(f for f in CFG.flips if cell.config.label_noise == float(f))
        t = np.array(tc[p], dtype=float)
        value = {
            "seeds": list(cell.seeds),
            "t_c": t,
            "best_accuracy": np.where(np.isfinite(t), 1.0, 0.6),
            "diverged_at": np.array((diverged or {}).get(p, [np.inf] * len(t)), dtype=float),
        }
        out.append(CellResult(cell, value, 1.0))
    return out


def test_each_level_trains_at_its_own_flip_probability() -> None:
    """The cell named p trains with labels flipped with probability p."""
    assert sorted(c.config.label_noise for c in _cells(CFG)) == [0.25, 0.45]
    assert CFG.parity("0.45", (0,)).label_noise == 0.45


def test_a_seed_must_converge_at_every_level() -> None:
    """Seed 0 converges at both levels (success); seed 1 misses the second level, seed 2 the first (both fail): the
    unit reads the seed's own entry at every level, not the first seed's nor the first level's only."""
    tc = {"0.25": [100.0, 200.0, np.inf], "0.45": [300.0, np.inf, 400.0]}
    obs = _aggregate(CFG, _results(tc))
    assert [r["flip"] for r in obs.details["levels"]] == ["0.25", "0.45"]
    assert obs.details["levels"][1]["t_c"] == [300.0, None, 400.0]
    units = NoisyParity().units(PRED, obs, CFG)
    assert [bool(u["problems"]) for u in units] == [False, True, True]
    assert "p=0.45" in units[1]["problems"][0] and "p=0.25" in units[2]["problems"][0]


def test_every_seed_diverging_at_one_level_is_inconclusive() -> None:
    """All seeds blown up at one level is no evidence either way: inconclusive, with the divergence as reason."""
    tc = {"0.25": [100.0, 200.0, 300.0], "0.45": [np.inf] * 3}
    obs = _aggregate(CFG, _results(tc, {"0.45": [50.0, 50.0, 60.0]}))
    verdict, reason = NoisyParity()(PRED, obs, CFG)
    assert verdict == "inconclusive" and reason.startswith("p=0.45: training diverged")


def test_units_on_a_hand_built_observation() -> None:
    """Directly on the record's shape: a level row per flip, t_c None where the seed did not reach the level."""
    rows = [
        {"flip": "0.25", "t_c": [1.0, None], "best_accuracy": [1.0, 0.7], "converged": 1, "median": 1.0},
        {"flip": "0.45", "t_c": [None, 2.0], "best_accuracy": [0.7, 1.0], "converged": 1, "median": 2.0},
    ]
    cfg = NoisyConfig(n=10, k=3, flips=("0.25", "0.45"), seeds=(0, 1), steps=100)
    obs = Observation({}, details={"levels": rows, "seeds": [0, 1], "divergence": None})
    assert all(u["problems"] for u in NoisyParity().units(PRED, obs, cfg))
