"""The Fig. 5.4 right / B.11 claim (verify/claims/sparse_parity/grokking.py): its trainer configuration, and its judge
on synthetic observations (no training): a gap of at least the factor passes, a training run whose held-out error
falls with its training error (no gap), a seed that never memorises or never generalises, does not."""

from __future__ import annotations

import pytest

from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.sparse_parity.grokking import (
    GROK_RULE,
    GrokConfig,
    Grokking,
    RegimeConfig,
    RegimeOutcomes,
    RegimeSetting,
)

CID = "edelman-ch5-figB.11-finite-sample-grokking"
CFG = GrokConfig(n=20, k=3, m=250, weight_decay=0.01, seeds=tuple(range(8)))
PRED = {"chance": 0.5, "C(n,k)": 1140, "log2_C(n,k)": 10.15}


def _obs(pairs: list[tuple[float | None, float | None]]) -> Observation:
    rows = [
        {
            "seed": s,
            "t_train": tr,
            "t_test": te,
            "ratio": te / tr if tr and te else None,
            "best_accuracy": 0.995 if te else 0.7,
            "final_train_accuracy": 1.0 if tr else 0.9,
        }
        for s, (tr, te) in enumerate(pairs)
    ]
    return Observation(0.0, details={"per_seed": rows, "divergence": None})


def test_the_trainer_records_training_accuracy_offline_at_the_source_hyperparameters() -> None:
    p = CFG.parity()
    assert p.mode == "offline" and p.n_train == 250 and p.train_accuracy
    assert (p.width, p.batch_size, p.lr, p.loss, p.decay) == (100, 32, 0.1, "hinge", "pytorch")
    assert abs(p.error_target - 0.01) < 1e-12
    claim = registry()[CID]
    assert GROK_RULE.power(claim.judge.planned_runs(claim.configs["quick"])) >= 0.8


def test_a_delayed_generalisation_passes_and_no_gap_fails() -> None:
    judge = Grokking()
    assert judge(PRED, _obs([(500.0, 5000.0)] * 8), CFG)[0] == "pass"
    assert judge(PRED, _obs([(900.0, 1800.0)] * 8), CFG)[0] == "fail"  # the m = 400 pilot: ratio 2 < 3


def test_never_memorising_or_never_generalising_is_a_failure() -> None:
    units = Grokking().units(PRED, _obs([(None, None), (500.0, None), (500.0, 1499.0), (500.0, 1500.0)]), CFG)
    assert [bool(u["problems"]) for u in units] == [True, True, True, False]
    assert "training error never 0" in units[0]["problems"][0] and "held-out" in units[1]["problems"][0]


# --- the caption's other statements (RegimeConfig / RegimeOutcomes) -------------------------------------------------

REGIME_IDS = (
    "edelman-ch5-figB.11-large-m-generalises",
    "edelman-ch5-figB.11-small-m-fails",
    "edelman-ch5-figB.11-lambda-widens-generalisation",
    "edelman-ch5-figB.11-largest-lambda-fails-to-train",
)


def _regime_obs(settings: list[tuple[str, list[tuple[float | None, float | None]]]]) -> Observation:
    """One row per (expected outcome, per-seed (t_train, t_test)) at made-up (m, lambda)."""
    rows = [
        {
            "m": 100 * (i + 1),
            "weight_decay": 0.01,
            "expect": expect,
            "seeds": list(range(len(pairs))),
            "t_train": [tr for tr, _ in pairs],
            "t_test": [te for _, te in pairs],
            "best_accuracy": [0.995 if te else 0.6 for _, te in pairs],
            "best_train_accuracy": [1.0 if tr else 0.8 for tr, _ in pairs],
            "final_train_accuracy": [1.0 if tr else 0.8 for tr, _ in pairs],
        }
        for i, (expect, pairs) in enumerate(settings)
    ]
    return Observation(0.0, details={"settings": rows, "seeds": rows[0]["seeds"], "divergence": None})


def test_regime_configs_share_the_grokking_trainer_and_keep_no_fit_seeds_training() -> None:
    for cid in REGIME_IDS:
        claim = registry()[cid]
        for cfg in claim.configs.values():
            assert not set(cfg.seeds) & set(range(100, 108)), "judged seeds overlap the pilots'"
            for s in cfg.settings:
                p = cfg.parity(s)
                assert p.mode == "offline" and p.n_train == s.m and p.weight_decay == s.weight_decay
                assert (p.width, p.batch_size, p.lr, p.loss, p.decay) == (100, 32, 0.1, "hinge", "pytorch")
                assert p.stop_when_converged == (s.expect != "no fit")
        assert claim.judge.rule.power(claim.judge.planned_runs(claim.configs["quick"])) >= 0.8
    widens = registry()["edelman-ch5-figB.11-lambda-widens-generalisation"].configs["quick"].settings
    assert len({s.m for s in widens}) == 1 and widens[0].weight_decay < widens[1].weight_decay


def test_regime_outcomes_judge_each_setting_per_seed() -> None:
    judge = RegimeOutcomes()
    cfg = RegimeConfig(n=20, k=3, settings=(RegimeSetting(400, 0.001, "no generalisation"),), seeds=tuple(range(8)))
    pair = [("no generalisation", [(800.0, None)] * 8), ("generalises", [(800.0, 2000.0)] * 8)]
    assert judge(PRED, _regime_obs(pair), cfg)[0] == "pass"
    swapped = [("no generalisation", [(800.0, 2000.0)] * 8), ("generalises", [(800.0, None)] * 8)]
    assert judge(PRED, _regime_obs(swapped), cfg)[0] == "fail"
    units = judge.units(
        PRED,
        _regime_obs([("no fit", [(None, None), (900.0, None), (None, 1500.0)])]),
        cfg,
    )
    assert [bool(u["problems"]) for u in units] == [False, True, False]
    assert "training error 0 at step 900" in units[1]["problems"][0]


def test_a_seed_that_diverged_alone_is_no_evidence_for_no_fit() -> None:
    """A blown-up run fits nothing and generalises nowhere: under 'no fit' or 'no generalisation' it must fail its
    unit, not count as the predicted outcome (7 of 8 diverged seeds used to make 'no fit' pass 8 of 8)."""
    judge = RegimeOutcomes()
    cfg = RegimeConfig(n=20, k=3, settings=(RegimeSetting(250, 0.1, "no fit"),), seeds=tuple(range(8)))
    obs = _regime_obs([("no fit", [(None, None)] * 8)])
    assert judge(PRED, obs, cfg)[0] == "pass"
    obs.details["settings"][0]["diverged_at"] = [100.0] * 7 + [None]
    verdict, reason = judge(PRED, obs, cfg)
    assert verdict == "fail" and "1 of 8 seeds meet the criterion" in reason, reason
    assert "parameters non-finite at step 100 (diverged)" in reason


def test_regime_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="expect"):
        RegimeSetting(100, 0.01, "fails")
    with pytest.raises(ValueError, match="distinct"):
        RegimeConfig(n=20, k=3, settings=(RegimeSetting(100, 0.01, "no fit"),) * 2, seeds=(0,))


# --- the judges' shared template (verify/claims/sparse_parity/summarised.py) --------------------------------------


def test_a_diverged_run_is_inconclusive_and_a_reason_is_the_summary_then_the_tally() -> None:
    """Both Fig. B.11 judges: a divergence in the details makes the verdict inconclusive with it as the reason (not
    judged on the tally); otherwise the reason is the judge's own summary, then the rule's tally of the seeds; the
    description is the per-seed criterion, then the rule's."""
    cases = (
        (Grokking(), _obs([(500.0, 5000.0)] * 8), CFG),
        (
            RegimeOutcomes(),
            _regime_obs([("no generalisation", [(500.0, None)] * 8)]),
            RegimeConfig(n=20, k=3, settings=(RegimeSetting(400, 0.001, "no generalisation"),), seeds=tuple(range(8))),
        ),
    )
    for judge, obs, cfg in cases:
        verdict, reason = judge(PRED, obs, cfg)
        summary = judge.summary(PRED, obs, cfg)
        tally = judge.tally(judge.units(PRED, obs, cfg), "seeds")
        assert verdict == "pass" == tally[0] and reason == f"{summary}; {tally[1]}"
        assert "8 of 8 seeds meet the criterion" in reason
        blown = Observation(obs.value, details={**obs.details, "divergence": "seed 3 diverged at step 50"})
        assert judge(PRED, blown, cfg) == ("inconclusive", "seed 3 diverged at step 50")
        assert judge.describe() == f"{judge.criterion}; {judge.rule.describe()}"
