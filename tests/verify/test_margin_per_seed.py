"""The judge of the margin training claims (modular, parity, groups): :class:`verify.claims.training.MarginPerSeed`
computes each seed's margin ratio from the predicted gamma* and judges the seed population (docs/verdicts.md).
Synthetic observations: no training."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from verify.claims import registry
from verify.claims.judges import Check, Population
from verify.claims.training import MarginPerSeed, margin_ratio_check
from verify.runtime.protocol import Observation

JUDGE = MarginPerSeed((margin_ratio_check(), Check("share", "share", lo=0.95)), rule=Population(p0=0.5, p_alt=0.95))
GAMMA = 0.25


@dataclass(frozen=True)
class Cfg:
    min_ratio: float = 0.95


def _obs(ratios: list[float], share: float = 1.0, first_seed: int = 0) -> Observation:
    rows = [
        {"seed": first_seed + i, "normalized_margin": r * GAMMA, "margin_ratio": "stale", "share": share}
        for i, r in enumerate(ratios)
    ]
    return Observation(min(ratios) * GAMMA, details={"per_seed": rows})


def test_a_population_at_gamma_star_passes_and_records_its_numbers() -> None:
    obs = _obs([0.99] * 8)
    verdict, reason = JUDGE(GAMMA, obs, Cfg())
    assert verdict == "pass" and "8 of 8 seeds" in reason
    pop = JUDGE.population(GAMMA, obs, Cfg())
    assert pop["n"] == 8 and pop["successes"] == 8 and pop["power"] == pytest.approx(0.943, abs=1e-3)
    assert pop["flip_probability_plugin"] == 0.0


def test_a_failing_population_fails_and_names_the_seeds_that_ran() -> None:
    verdict, reason = JUDGE(GAMMA, _obs([0.99] + [0.5] * 7, first_seed=1000), Cfg())
    assert verdict == "fail" and "seed 1001: margin ratio 0.5" in reason


def test_a_small_population_is_inconclusive() -> None:
    assert JUDGE(GAMMA, _obs([0.99] * 3), Cfg())[0] == "inconclusive"


def test_the_ratio_is_computed_from_the_prediction() -> None:
    """The rows' own margin_ratio is ignored: a gamma* 1 % low puts seeds at 0.995 above 1 + 1e-9 (fail), a gamma*
    10 % high puts them below min_ratio (fail); the judge's perturbation is the first."""
    obs = _obs([0.995] * 8)
    assert JUDGE(GAMMA, obs, Cfg())[0] == "pass"
    assert JUDGE(JUDGE.perturb(GAMMA, obs), obs, Cfg())[0] == "fail"
    assert JUDGE(GAMMA * 1.1, obs, Cfg())[0] == "fail"
    with pytest.raises(ValueError, match="one predicted gamma"):
        JUDGE([GAMMA, GAMMA], obs, Cfg())


def test_other_checks_still_count() -> None:
    assert JUDGE(GAMMA, _obs([0.99] * 8, share=0.5), Cfg())[0] == "fail"


@pytest.mark.parametrize(
    "cid",
    [
        "shi-thm4.9-training-k2",
        "shi-thm4.9-training-k3",
        "shi-thm4.9-training-k4",
        "shi-thm4.9-training-k5",
        "edelman-thm7.7-training",
        "edelman-thm7.8-training",
        "edelman-thm7.9-training-S3",
        "edelman-thm7.9-training-S4",
        "edelman-thm7.9-training-S5",
        "edelman-thm7.9-training-D5",
        "edelman-thm7.9-training-A5",
    ],
)
def test_margin_training_claims_read_the_prediction(cid: str) -> None:
    claim = registry()[cid]
    assert isinstance(claim.judge, MarginPerSeed), f"{cid}: the margin ratio must be computed from the prediction"
    assert claim.deviations is not None and set(claim.deviations) == set(claim.configs)
