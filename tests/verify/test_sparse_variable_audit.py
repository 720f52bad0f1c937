"""Audit of the Ch. 4 training claims' verdict logic (verify/claims/sparse_variable/overfitting.py and trained.py):
the straddle check at its bound, the best restart per trial, Fig. 4.3's irrelevant-mass check (both ends of the probe
range, the T - s irrelevant bits, [CLS] excluded, the trial's own support) and Fig. 4.4's phase-transition reading at
its boundaries. Oracles: hand-built runs, histories and rows whose outcomes follow from the docstrings."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import sympy

from verify.claims import registry
from verify.claims.sparse_variable import overfitting, trained


def test_straddle_allows_m_below_equal_to_the_information_bound() -> None:
    """'log2 C(T, 3) <= m_below < m*(T) < m_above': m_below at the information bound itself is allowed."""
    cfg = overfitting.OverfitConfig()
    pred = {"threshold": (cfg.m_below + cfg.m_above) / 2, "information_bound": cfg.m_below}
    assert overfitting.straddle_problem(pred, cfg) is None
    assert overfitting.straddle_problem({**pred, "information_bound": cfg.m_below + 0.5}, cfg)


def test_the_best_restart_of_each_trial_is_read_at_the_end_of_its_run() -> None:
    """Per trial the restart with the highest best validation accuracy (App. A.3.2), its training accuracy at the
    last evaluation (not its best one)."""
    run = SimpleNamespace(
        config=SimpleNamespace(restarts=2, trials=(10, 11)),
        best_val=np.array([0.7, 0.9, 1.0, 0.6]),
        history=[
            {"val_acc": np.array([0.5, 0.6, 0.7, 0.5]), "train_acc": np.array([1.0, 1.0, 1.0, 1.0])},
            {"val_acc": np.array([0.7, 0.8, 0.9, 0.6]), "train_acc": np.array([0.9, 0.8, 0.97, 1.0])},
        ],
        rejections=[0, 1],
    )
    rows = overfitting._best_restarts(run, "below")
    assert [r["seed"] for r in rows] == [10, 11]
    assert [r["val_acc_below"] for r in rows] == [0.9, 1.0]
    assert [r["train_acc_below"] for r in rows] == [0.8, 0.97]
    assert [r["final_val_acc_below"] for r in rows] == [0.8, 0.9]


FIG43 = registry()["edelman-ch4-fig4.3-sparse-attention"]


def _fig43_problem(pred: dict, row: dict, **changes) -> str | None:
    cfg = dataclasses.replace(FIG43.configs["quick"], **changes)
    return trained._irrelevant_problem(pred, row, cfg)


def test_irrelevant_mass_within_the_tolerance_at_its_bound_succeeds() -> None:
    """'within max_irrelevant_mass of the predicted mass': a mass exactly at the tolerance succeeds."""
    pred = trained._predict_fig43(FIG43.configs["quick"])
    row = {"irrelevant_max": 0.1, "irrelevant_min": 0.0}
    assert _fig43_problem(pred, row) is None
    assert _fig43_problem(pred, {"irrelevant_max": 0.1 + 1e-12, "irrelevant_min": 0.0}) is not None


def test_irrelevant_mass_is_checked_at_both_ends_of_the_probe_range() -> None:
    """Against a predicted mass of 0.47 (0.01 per irrelevant bit) an example with mass 0 is 0.47 off even when the
    largest mass is close: every probe example must be within the tolerance."""
    cfg = FIG43.configs["quick"]
    pred = {"relevant_weight": sympy.Rational(1, 3), "irrelevant_weight": sympy.Rational(1, 100)}
    target = (cfg.run.T - cfg.run.s) / 100
    assert _fig43_problem(pred, {"irrelevant_max": target, "irrelevant_min": target}) is None
    assert _fig43_problem(pred, {"irrelevant_max": target + 0.03, "irrelevant_min": 0.0}) is not None


def test_the_predicted_mass_counts_the_t_minus_s_irrelevant_bits() -> None:
    """With weight 0.01 per irrelevant bit the predicted mass is (T - s) x 0.01, not T x 0.01: at a tolerance of
    0.01 the exact (T - s) mass succeeds and T x 0.01 fails."""
    cfg = FIG43.configs["quick"]
    pred = {"relevant_weight": sympy.Rational(1, 3), "irrelevant_weight": sympy.Rational(1, 100)}
    exact = (cfg.run.T - cfg.run.s) / 100
    assert _fig43_problem(pred, {"irrelevant_max": exact, "irrelevant_min": exact}, max_irrelevant_mass=0.01) is None
    wrong = cfg.run.T / 100
    assert _fig43_problem(pred, {"irrelevant_max": wrong, "irrelevant_min": wrong}, max_irrelevant_mass=0.01)


def test_attention_rows_use_the_trials_support_and_leave_out_cls() -> None:
    """Two trials of two restarts, T = 4, supports {0} and {3}: restart k belongs to trial k // 2; the irrelevant
    mass is the attention on the bits outside the trial's support, [CLS] (the last position) excluded."""
    att = np.zeros((4, 1, 1, 5))  # (seeds, probe examples, heads, T + 1)
    att[:, 0, 0, :] = [0.1, 0.2, 0.0, 0.3, 0.4]  # bits 0..3, then [CLS]
    run = SimpleNamespace(
        config=SimpleNamespace(restarts=2, seeds=(0, 1, 2, 3)),
        attention=att,
        supports=[(0,), (3,)],
        probe_bits=[np.array([[1, 0, 0, 1]]), np.array([[1, 0, 0, 1]])],
        best_val=np.ones(4),
        history=[{"val_acc": np.ones(4)}],
    )
    rows = trained._attention_rows(run)
    # trial 0 (support {0}): bits 1, 2, 3 -> 0.5; trial 1 (support {3}): bits 0, 1, 2 -> 0.3
    assert np.allclose([r["irrelevant_max"] for r in rows], [0.5, 0.5, 0.3, 0.3])
    assert np.allclose([r["cls_mean"] for r in rows], [0.4] * 4)


FIG44 = trained.Fig44Config()


def _history(acc: list[float], loss: list[float], steps: list[int] | None = None) -> list[dict]:
    steps = steps or [10 * i for i in range(len(acc))]
    return [{"step": s, "test_acc": [a], "test_loss": [lo]} for s, a, lo in zip(steps, acc, loss)]


def test_the_transition_reading_of_a_hand_built_history() -> None:
    """Accuracy at chance (<= 0.6, 0.6 included) for 4 evaluations, then 0.8, then 1.0 at step 50: the plateau has
    4 evaluations, the run leaves chance at step 40 and reaches 0.99 at step 50; the rise runs from the last
    chance-level evaluation (step 30) to step 50, i.e. 20 of 50 steps."""
    h = _history([0.5, 0.55, 0.5, 0.6, 0.8, 1.0], [0.7, 0.69, 0.695, 0.69, 0.4, 0.01])
    r = trained._transition(h, 0, FIG44)
    assert r["plateau_evals"] == 4 and r["left_chance_at"] == 40 and r["reached_final_at"] == 50
    assert r["rise_steps"] == 20 and r["rise_share"] == 20 / 50


def test_a_run_reaching_exactly_the_final_accuracy_reaches_it() -> None:
    """'then reaches final_acc': accuracy 0.99 itself counts."""
    h = _history([0.5, 0.5, 0.5, 0.5, 0.99], [0.69] * 5)
    assert trained._transition(h, 0, FIG44)["reached_final_at"] == 40


def _row(**changes) -> dict:
    row = {"plateau_evals": FIG44.min_plateau, "plateau_loss": float(np.log(2)), "reached_final_at": 100}
    return {**row, "rise_share": FIG44.max_rise_share, **changes}


def test_transition_checks_hold_at_their_bounds() -> None:
    """A plateau of exactly min_plateau evaluations, a plateau loss exactly loss_tol from log 2 and a rise share
    exactly max_rise_share all show the transition ('for its first min_plateau evaluations', 'within', 'at most')."""
    chance = float(np.log(2))
    assert trained.transition_problems(_row(), chance, FIG44) == []
    wide = dataclasses.replace(FIG44, loss_tol=0.25)  # exact in binary: |0.75 - 0.5| is exactly the tolerance
    assert trained.transition_problems(_row(plateau_loss=0.75), 0.5, wide) == []
    assert trained.transition_problems(_row(plateau_loss=0.75 + 1e-12), 0.5, wide)
    assert trained.transition_problems(_row(plateau_evals=FIG44.min_plateau - 1), chance, FIG44)
    assert trained.transition_problems(_row(rise_share=FIG44.max_rise_share + 1e-9), chance, FIG44)


WIDE_T = (8, 64, 512, 4096)
FIG42 = trained.Fig42Config(
    sweep=dataclasses.replace(trained.SWEEP_QUICK, Ts=WIDE_T, ms=tuple(range(5, 401, 5))),
)


def _trend(ms: list[float]) -> list[str]:
    info = [float(v) for v in trained._predict_fig42(FIG42)["info_bits"]]
    return trained.replicate_trend(list(WIDE_T), [float(m) for m in ms], info, FIG42)[1]


def test_trend_drops_of_max_drop_grid_steps_are_allowed_and_one_more_is_not() -> None:
    """'m(T) never falls by more than max_drop (1) grid steps': 50 -> 45 passes that check, 50 -> 40 does not."""
    assert not any("< m(8)" in p for p in _trend([50, 45, 60, 80]))
    assert any("m(64) = 40 < m(8) = 50" in p for p in _trend([50, 40, 60, 80]))


def test_trend_must_rise_from_the_smallest_to_the_largest_t() -> None:
    """'rises from the smallest to the largest T': equal end points do not grow."""
    assert any("does not grow" in p for p in _trend([50, 55, 55, 50]))
    assert not any("does not grow" in p for p in _trend([50, 55, 55, 55]))


def test_a_threshold_at_the_smallest_grid_value_is_censored() -> None:
    """A threshold at the grid's smallest m is only an upper bound: the replicate cannot show the trend."""
    assert any("censored" in p and "[8]" in p for p in _trend([5, 60, 80, 100]))


def test_a_ratio_spread_above_the_bound_fails() -> None:
    """m / log2 C(T, 3) varying by more than max_ratio_spread (2) fails, whatever else holds: thresholds 2.5 times
    the information bound at T = 4096 and 1 times it at T = 8."""
    info = [float(v) for v in trained._predict_fig42(FIG42)["info_bits"]]
    grid = FIG42.sweep.ms
    ms = [min(grid, key=lambda m: abs(m - f * b)) for f, b in zip((1.0, 1.5, 2.0, 2.5), info)]
    spread = max(m / b for m, b in zip(ms, info)) / min(m / b for m, b in zip(ms, info))
    assert 2.0 < spread < 4.0
    assert any("spreads by" in p for p in _trend(ms))
