"""Audit of the Fig. 5.4 right / B.11 claims' verdict logic (verify/claims/sparse_parity/grokking.py): t_train is
the first evaluation with training accuracy exactly 1, the aggregates keep each seed's own times and each (m, lambda)
setting's own cells, and a seed must show its panel's outcome at every setting. Oracles: fake training results and
hand-built cell results whose times are known by construction."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from tests.verify.test_sparse_parity_grokking import _regime_obs  # one builder of regime observations
from verify.claims.sparse_parity import grokking
from verify.claims.sparse_parity.grokking import (
    GrokConfig,
    RegimeConfig,
    RegimeOutcomes,
    RegimeSetting,
    _aggregate,
    _cells,
    _regime_aggregate,
    _regime_cells,
    run_grokking,
)
from verify.sweep import CellResult

PRED = {"chance": 0.5, "C(n,k)": 1140, "log2_C(n,k)": 10.15}


def test_t_train_is_the_first_evaluation_with_zero_training_error(monkeypatch) -> None:
    """Seed 0 fits at the third evaluation (accuracy 0.995 at the second is not training error 0), seed 1 never
    does (inf)."""
    train = np.array([[0.5, 0.5], [0.995, 0.99], [1.0, 0.999], [1.0, 0.9]])
    fake = SimpleNamespace(
        config=SimpleNamespace(seeds=(3, 4)),
        train_accuracy=train,
        steps=np.array([0, 50, 100, 150]),
        t_c=np.array([150.0, np.inf]),
        diverged=np.array([False, False]),
        diverged_at=np.array([np.inf, np.inf]),
        accuracy=np.array([[0.5, 0.5], [0.6, 0.5], [0.8, 0.5], [1.0, 0.6]]),
        steps_run=150,
    )
    monkeypatch.setattr(grokking, "run_parity", lambda cfg, ctx: fake)
    out = run_grokking(SimpleNamespace(config=None), None)
    assert out["t_train"].tolist() == [100.0, np.inf] and out["seeds"] == [3, 4]
    assert out["final_train_accuracy"].tolist() == [1.0, 0.9]


def _grok_results(cfg: GrokConfig, t_train: list[float], t_test: list[float]) -> list[CellResult]:
    (cell,) = _cells(cfg)
    E = len(cell.seeds)
    value = {
        "seeds": list(cell.seeds),
        "t_train": np.array(t_train),
        "t_c": np.array(t_test),
        "diverged_at": np.full(E, np.inf),
        "best_accuracy": np.where(np.isfinite(t_test), 1.0, 0.7),
        "final_train_accuracy": np.where(np.isfinite(t_train), 1.0, 0.9),
        "steps": np.array([0, 50]),
        "accuracy": np.full((2, E), 0.5),
        "train_accuracy": np.full((2, E), 0.5),
    }
    return [CellResult(cell, value, 1.0)]


def test_the_grokking_aggregate_keeps_each_seeds_times() -> None:
    """Per seed its own t_train and t_test (None where never reached), so the units follow the seed: seed 0 groks
    (ratio 4 >= 3), seed 1 does not (ratio 2), seed 2 never generalises."""
    cfg = GrokConfig(n=20, k=3, m=250, weight_decay=0.01, seeds=(0, 1, 2))
    obs = _aggregate(cfg, _grok_results(cfg, [100.0, 100.0, 100.0], [400.0, 200.0, np.inf]))
    assert [(r["t_train"], r["t_test"]) for r in obs.details["per_seed"]] == [
        (100.0, 400.0),
        (100.0, 200.0),
        (100.0, None),
    ]
    units = grokking.Grokking().units(PRED, obs, cfg)
    assert [bool(u["problems"]) for u in units] == [False, True, True]


CFG1 = RegimeConfig(n=20, k=3, settings=(RegimeSetting(400, 0.01, "generalises"),), seeds=(0, 1))


def test_generalises_is_judged_on_the_held_out_accuracy() -> None:
    """'generalises' = held-out accuracy reaches the level: a seed that fits its training set but never reaches the
    held-out level fails; one that reaches it succeeds, whatever its training time."""
    units = RegimeOutcomes().units(PRED, _regime_obs([("generalises", [(800.0, None), (None, 900.0)])]), CFG1)
    assert [bool(u["problems"]) for u in units] == [True, False]


def test_a_seed_must_show_the_outcome_at_every_setting() -> None:
    """The first setting's outcome alone is not enough: seed 1 shows it at the first setting and not at the
    second."""
    obs = _regime_obs(
        [("no generalisation", [(800.0, None), (800.0, None)]), ("generalises", [(800.0, 2000.0), (800.0, None)])]
    )
    units = RegimeOutcomes().units(PRED, obs, CFG1)
    assert [bool(u["problems"]) for u in units] == [False, True]


def test_the_regime_aggregate_keeps_settings_with_the_same_m_apart() -> None:
    """Two settings at one m and different weight decays (the lambda-widens claim): each row holds its own cells'
    times."""
    cfg = RegimeConfig(
        n=20,
        k=3,
        settings=(RegimeSetting(400, 0.001, "no generalisation"), RegimeSetting(400, 0.01, "generalises")),
        seeds=(0, 1),
    )
    results = []
    for cell in _regime_cells(cfg):
        wd = cell.config.weight_decay
        t_test = np.array([np.inf, np.inf]) if wd == 0.001 else np.array([1500.0, 1600.0])
        value = {
            "seeds": list(cell.seeds),
            "t_train": np.array([300.0, 300.0]),
            "t_c": t_test,
            "diverged_at": np.full(2, np.inf),
            "best_accuracy": np.where(np.isfinite(t_test), 1.0, 0.6),
            "final_train_accuracy": np.ones(2),
            "steps": np.array([0, 50]),
            "accuracy": np.full((2, 2), 0.5),
            "train_accuracy": np.ones((2, 2)),
        }
        results.append(CellResult(cell, value, 1.0))
    obs = _regime_aggregate(cfg, results)
    assert [r["t_test"] for r in obs.details["settings"]] == [[None, None], [1500.0, 1600.0]]
    assert RegimeOutcomes()(PRED, obs, cfg)[0] in ("pass", "inconclusive")
    assert all(u["problems"] == [] for u in RegimeOutcomes().units(PRED, obs, cfg))
