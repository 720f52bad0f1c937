"""The verdict rules of training claims (issue 28, docs/verdicts.md): every training claim judges a population of
seeds with a declared target rate; its power is known from the configuration before any run, and a scale whose power
is below the rule's minimum is declared underpowered, with the power in the reason; every training record carries
the population's numbers."""

from __future__ import annotations

import pytest

from numerics import stats
from verify.claims import registry, select

from .claim_checks import evaluation, slow_if_heavy

TRAINING = [c.id for c in registry().values() if c.kind == "training"]
QUICK_TRAINING = [slow_if_heavy(c.id) for c in select("*", "quick") if c.kind == "training"]


@pytest.mark.parametrize("cid", TRAINING)
def test_every_training_claim_judges_a_seed_population(cid: str) -> None:
    claim = registry()[cid]
    assert claim.judge.population_rule is not None, f"{cid}: its judge has no Population rule (docs/verdicts.md)"


@pytest.mark.parametrize("cid", TRAINING)
def test_power_is_known_before_the_run_and_low_power_is_declared(cid: str) -> None:
    claim = registry()[cid]
    rule = claim.judge.population_rule
    assert rule is not None
    for scale, config in claim.configs.items():
        n = claim.judge.planned_runs(config)
        assert n is not None and n >= 1, f"{cid} at {scale}: the judge cannot say how many runs it will count"
        power = rule.power(n)
        if power < rule.min_power:
            why = (claim.underpowered or {}).get(scale)
            assert why, f"{cid} at {scale}: power {power:.3f} < {rule.min_power} with {n} runs, not declared"


@pytest.mark.parametrize("cid", QUICK_TRAINING)
def test_training_records_carry_the_population(cid: str) -> None:
    ev = evaluation(cid)
    pop = ev.population
    assert pop is not None, f"{cid}: no population in the record ({ev.verdict}: {ev.reason})"
    claim = registry()[cid]
    assert pop["n"] == claim.judge.planned_runs(claim.configs["quick"]), "the run counted other runs than planned"
    assert (
        pop["verdict"] == ev.verdict
        or ev.verdict in ("fail", "inconclusive")  # a Requiring judge may add a fail
        or (ev.verdict == "refuted" and pop["verdict"] == "fail" and claim.refuting)  # a statement as printed
    )
    if not pop["deterministic"]:
        assert pop["lower"] == pytest.approx(stats.clopper_pearson(pop["successes"], pop["n"], pop["confidence"])[0])


def test_the_rule_on_the_worked_example() -> None:
    """docs/verdicts.md: 8 of 8 passes at p0 = 0.5, 6 of 8 cannot tell, 1 of 8 fails; power and flip probability."""
    from verify.claims.judges import Population

    rule = Population(p0=0.5, p_alt=0.95)
    assert [rule.verdict(k, 8) for k in (8, 7, 6, 2, 1)] == ["pass", "pass", "inconclusive", "inconclusive", "fail"]
    rec = rule.record(8, 8)
    assert rec["lower"] == pytest.approx(0.05 ** (1 / 8)) and rec["power"] == pytest.approx(0.943, abs=1e-3)
    assert rec["flip_probability_plugin"] == 0.0 and rec["flip_probability"] == pytest.approx(0.206, abs=1e-3)
    det = Population(deterministic=True).record(3, 3)
    assert det["verdict"] == "pass" and det["flip_probability"] == 0.0 and det["lower"] == det["upper"] == 1.0
