"""Mutation audit of the Edelman Ch. 8 judges and observations (verify/claims/markov): boundaries and per-seed
conditions that the claim tests leave open, on hand-built observations whose verdict follows from the judges'
docstrings (dyadic numbers where a boundary is compared exactly)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import torch

from verify.claims.base import Observation
from verify.claims.judges import MC_Z
from verify.claims.markov import exact, trained


@dataclass(frozen=True)
class _Ts:
    ts: tuple[int, ...]


def test_relative_error_exactly_at_the_constant_passes() -> None:
    """The rule is ``t |obs - pred| / |pred| <= const``: an error of exactly const / t (here 10 x 1/1 at t = 10, exact
    in binary) passes; a strict comparison would reject the boundary that the docstring admits."""
    judge = exact.RelativeErrorWithinCOverT(10.0)
    assert judge([[1.0]], Observation([[2.0]], details={"ts": [10]}), _Ts((10,)))[0] == "pass"
    assert judge([[1.0]], Observation([[2.0625]], details={"ts": [10]}), _Ts((10,)))[0] == "fail"


def _successes(judge, predicted, rows) -> int:
    return judge.population(predicted, Observation([0.0] * len(rows), details={"per_seed": rows}))["successes"]


def test_closer_to_bigram_window_starts_z_standard_errors_below_the_bigram_kl() -> None:
    """The window's lower end is the bigram KL *less* z standard errors (a trained model may sit at, or within the
    Monte Carlo noise below, the near-Bayes strategy), and it is inclusive: a seed at the bigram KL succeeds, one
    half a window below succeeds, one twice the window below fails."""
    judge = trained.CloserToBigram()
    noisy = {"unigram": {"kl": 0.09, "stderr": 0.001}, "bigram": {"kl": 0.01, "stderr": 0.001}}
    rows = [{"plateau_kl": 0.01 - 0.5 * MC_Z * 0.001}, {"plateau_kl": 0.01}, {"plateau_kl": 0.01 - 2 * MC_Z * 0.001}]
    assert _successes(judge, noisy, rows) == 2
    exact_bigram = {"unigram": {"kl": 0.5, "stderr": 0.0}, "bigram": {"kl": 0.125, "stderr": 0.0}}
    assert _successes(judge, exact_bigram, [{"plateau_kl": 0.125}, {"plateau_kl": 0.3125}]) == 2  # both ends
    assert _successes(judge, exact_bigram, [{"plateau_kl": 0.3126}]) == 0


#: Dyadic strategy KLs, so that the phase judge's ratios are exact in binary.
DYADIC = {
    "uniform": {"kl": 1.0, "stderr": 0.0},
    "unigram": {"kl": 0.5, "stderr": 0.0},
    "bigram": {"kl": 0.125, "stderr": 0.0},
}


def _history(kls: list[float], nearest: list[str], n: int = 8) -> Observation:
    """``n`` identical seeds: test KL per evaluation, and KL 0 from the ``nearest`` strategy to the model (1 from the
    others)."""
    hist = [
        {"step": 100 * j, "kl": [kl] * n, **{f"kl_to_{s}": [0.0 if s == near else 1.0] * n for s in DYADIC}}
        for j, (kl, near) in enumerate(zip(kls, nearest))
    ]
    return Observation([kls[-1]] * n, details={"history": hist})


def test_three_phases_plateau_tolerance_is_inclusive() -> None:
    """A plateau at |KL / unigram KL - 1| = plateau_rel exactly (0.625 / 0.5 - 1 = 0.25) is on the plateau
    ("within plateau_rel"), so a run with three such evaluations passes."""
    obs = _history([1.0, 0.625, 0.625, 0.625, 0.125], ["uniform", "unigram", "unigram", "unigram", "bigram"])
    assert trained.ThreePhases()(DYADIC, obs)[0] == "pass"


def test_three_phases_counts_consecutive_plateau_evaluations() -> None:
    """Four plateau evaluations split 2 + 2 by one evaluation nearest the uniform strategy are not three consecutive
    ones: every seed fails the plateau condition."""
    near = ["uniform", "unigram", "unigram", "uniform", "unigram", "unigram", "bigram"]
    obs = _history([1.0, 0.5, 0.5, 0.9, 0.5, 0.5, 0.125], near)
    verdict, reason = trained.ThreePhases()(DYADIC, obs)
    assert verdict == "fail" and "unigram plateau of 2 evaluation(s)" in reason


def test_three_phases_end_fraction_is_measured_from_the_last_strategy_to_the_one_before() -> None:
    """The end fraction is (KL - bigram KL) / (unigram KL - bigram KL): a final KL of 0.265625 is
    0.140625 / 0.375 = 0.375 of the way back, above end_frac 0.35 (fail); 0.25 is 0.125 / 0.375 = 1/3 (pass)."""
    near = ["uniform", "unigram", "unigram", "unigram", "bigram"]
    assert trained.ThreePhases()(DYADIC, _history([1.0, 0.5, 0.5, 0.5, 0.265625], near))[0] == "fail"
    assert trained.ThreePhases()(DYADIC, _history([1.0, 0.5, 0.5, 0.5, 0.25], near))[0] == "pass"


FLOOR_PRED = {
    "unigram": {"kl": 0.09, "stderr": 0.001},
    "counts_bayes": {"kl": 0.075, "stderr": 0.0004},
}


def test_stays_above_floor_uses_combined_standard_errors_on_both_sides() -> None:
    """Learned: min KL <= unigram KL + z hypot(unigram SE, run SE), so 0.092 (one combined SE above 0.09) learned.
    Floor: min KL >= floor - z hypot(floor SE, run SE) = 0.075 - 4 x 0.00204, so 0.070 stays above it (it would
    not against the floor's SE alone, 0.0734), and 0.060 does not."""
    judge = trained.StaysAboveFloor()
    rows = [{"min_kl": v, "stderr_at_min": 0.002} for v in (0.092, 0.070, 0.060)]
    problems = judge.seed_problems(FLOOR_PRED, rows)
    assert [bool(p) for p in problems] == [False, False, True]


def test_stays_above_floor_admits_the_floor_itself() -> None:
    """With zero standard errors the limit is the floor's KL, and "stays >= the floor" admits a run exactly at it."""
    judge = trained.StaysAboveFloor()
    pred = {"unigram": {"kl": 0.5, "stderr": 0.0}, "counts_bayes": {"kl": 0.25, "stderr": 0.0}}
    assert judge.seed_problems(pred, [{"min_kl": 0.25, "stderr_at_min": 0.0}]) == [[]]


def _fake_run(W: np.ndarray, v: np.ndarray, kls: list[float]) -> SimpleNamespace:
    """One seed of a Markov run: final weights and an evaluation history with the given test KLs."""
    hist = [{"step": 10 * j, "kl": [kl], "kl_stderr": [0.001]} for j, kl in enumerate(kls)]
    return SimpleNamespace(
        seeds=(3,),
        history=hist,
        final={"kl": [kls[-1]]},
        state={"W": torch.tensor(W[None]), "v": torch.tensor(v[None])},
    )


def test_minimal_rows_diagonal_ratio_and_even_odd_pattern() -> None:
    """diag_ratio is min diag / max |off-diagonal| (W = [[3, -1], [0.5, 1.5]]: 1.5 / 1 = 1.5, not 3); even_odd needs
    every even lag strictly above both odd neighbours (v at lag 2 equal to lag 1 breaks it); the argmax lag is
    1-based."""
    W = np.array([[3.0, -1.0], [0.5, 1.5]])
    v = np.array([0.5, 0.5, 0.1, 0.4, 0.1, 0.3, 0.1, 0.0])
    row = trained._minimal_rows(_fake_run(W, v, [0.2, 0.1]), trained.MinimalStructureConfig())[0]
    assert row["diag_ratio"] == 1.5
    assert row["even_odd"] is False
    v_ok = np.array([0.1, 0.5, 0.1, 0.4, 0.1, 0.3, 0.1, 0.0])
    row = trained._minimal_rows(_fake_run(W, v_ok, [0.2, 0.1]), trained.MinimalStructureConfig())[0]
    assert row["even_odd"] is True and row["v_argmax_lag"] == 2


def test_one_layer_observation_reads_the_lowest_kl_over_training(monkeypatch) -> None:
    """StaysAboveFloor judges the *lowest* test KL over training (with its standard error and step), not the final
    one: a run that dips to 0.05 and ends at 0.2 has min_kl 0.05 at step 10."""
    run = _fake_run(np.eye(2), np.zeros(8), [0.21, 0.05, 0.2])
    monkeypatch.setattr(trained, "_transformer", lambda cfg, ctx: run)
    strategies = {"unigram": {"kl": 0.09, "stderr": 0.0}}
    monkeypatch.setattr(trained, "_predict_strategies", lambda cfg: strategies)
    monkeypatch.setattr(trained, "_predict_one_layer", lambda cfg: strategies)
    obs = trained._observe_one_layer(trained.OneLayerConfig(), None)
    row = obs.details["per_seed"][0]
    assert (row["min_kl"], row["step_at_min"], row["final_kl"]) == (0.05, 10, 0.2)
