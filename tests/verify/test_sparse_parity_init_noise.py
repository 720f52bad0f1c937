"""The Fig. 5.2 centre claim (verify/claims/sparse_parity/init_noise.py): its units' seeds, and its judge on
synthetic observations (no training): the null rate of theory/ is p0, a prediction of the alternative's rate or an
observation without an initialisation effect does not pass, ties and unconverged runs are failures."""

from __future__ import annotations

import math

import pytest

from theory.scaling import init_dominance_rate
from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.sparse_parity.init_noise import ALT_THETA, INIT_RULE, InitNoiseConfig, InitOverNoise, _cells

CID = "edelman-ch5-fig5.2-init-vs-sgd-noise"


def test_units_use_disjoint_seeds_and_cross_initialisation_with_data() -> None:
    cfg = InitNoiseConfig(n=10, k=2, units=3)
    cells = {c.label.split(" units")[0]: c.config for c in _cells(cfg)}
    assert cells["base"].seeds == (0, 2, 4) and cells["base"].data_seeds is None  # the default streams
    assert cells["data change"].seeds == (0, 2, 4) and cells["data change"].data_seeds == (1, 3, 5)
    assert cells["init change"].seeds == (1, 3, 5) and cells["init change"].data_seeds == (0, 2, 4)
    assert cells["base"].lr == 0.01 and cells["base"].batch_size == 128  # the panel's setting


def _obs(shifts: list[tuple[float, float] | None]) -> Observation:
    rows = []
    for u, s in enumerate(shifts):
        if s is None:
            rows.append(
                {
                    "unit": u,
                    "base_seed": 2 * u,
                    "t_c": None,
                    "init_shift": None,
                    "data_shift": None,
                    "unconverged": ["init change"],
                }
            )
        else:
            a, b = s
            t = {"base": 400.0, "data_change": 400.0 * math.exp(b), "init_change": 400.0 * math.exp(a)}
            rows.append({"unit": u, "base_seed": 2 * u, "t_c": t, "init_shift": a, "data_shift": b, "unconverged": []})
    med = {"base": 400.0, "data change": 400.0, "init change": 400.0}
    return Observation(0.0, details={"units": rows, "median_t_c": med, "decomposition": None, "divergence": None})


def _predicted(theta: float = 1) -> dict:
    return {"null_rate": float(init_dominance_rate(theta))}


def test_the_rule_is_theorys_null_and_alternative() -> None:
    assert INIT_RULE.p0 == pytest.approx(0.5 + math.asin(math.sqrt(2) / 4) / math.pi)
    assert INIT_RULE.p_alt == pytest.approx(float(init_dominance_rate(ALT_THETA)))
    claim = registry()[CID]
    assert claim.judge.planned_runs(claim.configs["quick"]) == 40 and INIT_RULE.power(40) >= 0.8


def test_judge_passes_a_strong_initialisation_effect_and_not_the_alternative_as_prediction() -> None:
    cfg = InitNoiseConfig(n=10, k=2, units=40)
    obs = _obs([(0.2, 0.01)] * 36 + [(0.01, 0.02)] * 4)  # 36 of 40, as the quick run
    judge = InitOverNoise()
    assert judge(_predicted(), obs, cfg)[0] == "pass"
    assert judge(_predicted(ALT_THETA), obs, cfg)[0] != "pass"  # p0 = 0.815: the lower bound 0.786 is below it
    assert judge.population(_predicted(), obs, cfg)["successes"] == 36


def test_judge_fails_without_an_initialisation_effect_and_counts_ties_and_unconverged_as_failures() -> None:
    cfg = InitNoiseConfig(n=10, k=2, units=40)
    half = _obs([(0.1, 0.05)] * 16 + [(0.05, 0.1)] * 24)  # below the rate of theta = 0 (1/2)
    assert InitOverNoise()(_predicted(), half, cfg)[0] == "fail"
    ties = _obs([(0.0, 0.0)] * 10 + [None] * 10 + [(0.2, 0.01)] * 20)
    units = InitOverNoise().units(_predicted(), ties, cfg)
    assert sum(not u["problems"] for u in units) == 20
    assert "unconverged" in units[10]["problems"][0] and "<=" in units[0]["problems"][0]
