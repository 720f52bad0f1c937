"""Mutation audit of the Shi Ch. 4 transformer and polynomial-network judges (verify/claims/modular_transformer):
boundaries and per-seed conditions that the claim tests leave open, on hand-built observations whose verdict
follows from the judges' and configurations' docstrings."""

from __future__ import annotations

from verify.claims.base import Observation
from verify.claims.modular_transformer import grokking, heads, polynomial


def _grokking_obs(delays_by_run: list[tuple[int, list]]) -> Observation:
    runs = [{"k": k, "seeds": list(range(len(d))), "delay": d} for k, d in delays_by_run]
    return Observation(value=[None] * len(runs), details={"runs": runs, "seeds": list(range(len(runs[0]["delay"])))})


def test_grokking_delay_and_drop_bounds_are_inclusive() -> None:
    """A seed groks when its delay is *at least* min_delay and the delay falls by *at least* min_drop: delays
    200 (k = 2) then exactly 100 = min_delay (k = 3), a drop of exactly 100 = min_drop, succeed."""
    cfg = grokking.GrokkingConfig(grokking.QUICK.runs)
    assert (cfg.min_delay, cfg.min_drop, cfg.grok_runs) == (100, 100, None)
    predicted = grokking.predict_order(cfg)
    assert predicted["order"] == [0, 1]
    obs = _grokking_obs([(2, [200] * 8), (3, [100] * 8)])
    assert grokking.GrokkingPerSeed().population(predicted, obs, cfg)["successes"] == 8


def test_grokking_quick_rule_does_not_judge_the_drop_to_an_unjudged_run() -> None:
    """With grok_runs = 1 only the first run of the predicted order is judged, "neither their grokking nor the drop
    to them": a later run whose delay is longer (2000 after 1600) does not fail the seeds."""
    cfg = grokking.GrokkingConfig(grokking.QUICK.runs, grok_runs=1)
    predicted = grokking.predict_order(cfg)
    obs = _grokking_obs([(2, [1600] * 8), (3, [2000] * 8)])
    assert grokking.GrokkingPerSeed()(predicted, obs, cfg)[0] == "pass"


def _variant_rows(bad_conc_seed: int | None) -> Observation:
    rows = []
    for layer_norm, residual in heads.VARIANTS:
        conc = [0.7] * 8
        if (layer_norm, residual) == (False, True) and bad_conc_seed is not None:
            conc[bad_conc_seed] = float("nan")
        rows.append(
            {"layer_norm": layer_norm, "residual": residual, "val_accuracy": [0.9] * 8, "median_top_fraction": conc}
        )
    return Observation(value=[], details={"variants": rows}, seeds=tuple(range(8)))


def test_ablation_seed_needs_a_finite_head_concentration() -> None:
    """A seed counts as measured only with a finite validation accuracy *and* a finite head concentration in every
    variant: a NaN concentration for seed 2 in one variant leaves 7 of 8 seeds."""
    judge = heads.ABLATION_JUDGE
    pred = heads.predict_heads(heads.QUICK_HEADS)
    assert judge.population(pred, _variant_rows(None), heads.QUICK_HEADS)["successes"] == 8
    assert judge.population(pred, _variant_rows(2), heads.QUICK_HEADS)["successes"] == 7


def test_frequencies_reject_a_predicted_entry_that_is_not_a_frequency() -> None:
    """Lemma 4.11's frequencies 1..(p-1)/2 must be exactly the predicted ones; a predicted entry that is not a
    frequency of Z_p (2.5) is never used, so a seed using 1..11 (p = 23) does not match [1..11, 2.5]."""
    row = {"coverage": [3] * 11}
    exact = list(range(1, 12))
    assert polynomial._frequencies_vs_prediction(exact, row, None)["frequencies_as_predicted"] is True
    assert polynomial._frequencies_vs_prediction([*exact, 2.5], row, None)["frequencies_as_predicted"] is False


def test_control_judges_the_shuffled_network_on_its_own_concentration() -> None:
    """Both controls must stay below the predicted threshold: an untrained network at 0.3 of the threshold with a
    label-shuffled one above it (1.5 x) fails the seed; both below passes."""
    cfg = heads.QUICK_HEADS
    pred = heads.predict_heads(cfg)
    t = float(pred["threshold"])

    def row(untrained: float, shuffled: float) -> dict:
        return {
            "untrained_median_top_fraction": untrained * t,
            "shuffled_median_top_fraction": shuffled * t,
            "shuffled_train_accuracy": 1.0,
        }

    obs = Observation([0.0] * 2, details={"per_seed": [row(0.3, 1.5), row(0.3, 0.6)]})
    assert heads.CONTROL_JUDGE.population(pred, obs, cfg)["successes"] == 1
