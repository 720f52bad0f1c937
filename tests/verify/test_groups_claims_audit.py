"""Regression tests for the audit of the finite-group claims in ``verify/claims/groups/characters.py`` and
``margin.py``: the S_6 game's statement names the irreps its LP really uses, the quick condition run checks every
group the statement quotes, and the construction's incorrect logits are checked at every point."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.optimize import linprog

from numerics.groups import GroupTask, character_lp, construction_network, random_network
from theory import finite_groups as fg
from theory import groups as tg
from verify.claims.base import Observation, RunContext, registry
from verify.claims.groups import margin
from verify.runtime.options import RunOptions

from .claim_checks import evaluation, record


def _restricted_game_value(name: str, irreps: tuple[int, ...]) -> float:
    """max_{s in simplex on ``irreps``} min_C (s^T A)_C times 2 (3|G|)^-1.5, by scipy's LP (an oracle independent
    of numerics.groups.character_lp and of theory.groups.game_value_on_support)."""
    A = np.array(tg.character_game_matrix(name), dtype=float)[[r - 1 for r in irreps]]
    k, n_classes = A.shape
    res = linprog(
        np.r_[np.zeros(k), -1.0],
        A_ub=np.c_[-A.T, np.ones(n_classes)],
        b_ub=np.zeros(n_classes),
        A_eq=np.r_[np.ones(k), 0.0][None],
        b_eq=[1.0],
        bounds=[(0, None)] * k + [(None, None)],
    )
    assert res.success
    return -res.fun * 2 * (3 * fg.group(name).order) ** -1.5


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_s6_game_statement_names_an_optimal_support(scale):
    claim = registry()["edelman-D.9.2-S6"]
    cfg = claim.configs[scale]
    names = fg.character_table("S6").names
    for r in cfg.irreps:
        assert names[r] in claim.statement
    # The configured irreps reach gamma*; the irreps the statement used to name reach less: not an optimal support.
    wrong = tuple(names.index(n) for n in ("(5,1)", "(2,2,2)", "(4,1,1)"))
    full = _restricted_game_value("S6", tuple(range(1, len(names))))
    assert _restricted_game_value("S6", cfg.irreps) == pytest.approx(full, rel=1e-9)
    assert _restricted_game_value("S6", wrong) < full * (1 - 1e-3)
    with pytest.raises(ValueError, match="not an optimal pair"):
        tg.game_value_on_support("S6", wrong, cfg.classes)


def test_s6_verdict_does_not_depend_on_the_solvers_optimal_corner():
    """S_6 has several optimal irrep sets ((4,1,1) can be swapped for (3,1,1,1)): a configuration naming another
    optimal one passes too (review finding: the claim required the corner HiGHS happens to return)."""
    claim = registry()["edelman-D.9.2-S6"]
    cfg = claim.configs["quick"]
    names = fg.character_table("S6").names
    other = dataclasses.replace(cfg, irreps=tuple(names.index(n) for n in ("(3,3)", "(2,1,1,1,1)", "(3,1,1,1)")))
    assert sorted(other.irreps) != sorted(character_lp("S6").used_irreps)
    obs = margin._observe_game(other, RunContext(scale="quick", options=RunOptions(progress=False)))
    assert claim.judge(claim.predict(other), obs, other)[0] == "pass"


def test_game_judge_rejects_an_irrep_that_is_not_tight():
    """An irrep whose payoff against the LP's dual is below the value cannot be in an optimal support: the judge
    fails on it even when the values agree (they come from the configured, correct prediction here)."""
    claim = registry()["edelman-D.9.2-S6"]
    cfg = claim.configs["quick"]
    names = fg.character_table("S6").names
    slack = dataclasses.replace(cfg, irreps=tuple(names.index(n) for n in ("(3,3)", "(2,1,1,1,1)", "(4,2)")))
    obs = margin._observe_game(slack, RunContext(scale="quick", options=RunOptions(progress=False)))
    assert not obs.details["configured_irreps_tight_under_the_lp_dual"]
    verdict, reason = claim.judge(claim.predict(cfg), obs, slack)
    assert verdict == "fail" and "tight" in reason


def test_a5_game_uses_the_configured_support():
    rec = record("edelman-D.9.2-A5")
    assert rec.details["configured_irreps_tight_under_the_lp_dual"]
    assert rec.details["lp_margin_classes_are_the_configured_ones"]
    assert sorted(fg.character_table("A5").dims[r] for r in rec.details["used_irreps"]) == [3, 3, 4]


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_condition_runs_every_group_the_statement_quotes(scale):
    cfg = registry()["edelman-thm7.9-condition"].configs[scale]
    quoted = {label.partition(":")[0] for label, _ in cfg.reference}
    assert quoted == {"A5", "S6"} and set(cfg.fails) == quoted and quoted <= set(cfg.groups)


def test_condition_quick_record_has_the_s6_values():
    # S_6 at a 5-cycle: only sign (d = 1, chi = +1), (4,2) and (2,2,1,1) (d = 9, chi = -1) and (3,2,1) (d = 16,
    # chi = +1) have nonzero characters (Murnaghan-Nakayama by hand), so the sum is 1 - 2 * 27 + 64 = 11.
    failing = record("edelman-thm7.9-condition").details["failing_class_values"]
    assert set(failing) == {"A5", "S6"}
    assert failing["S6"]["(2 3 4 5 6)"] == pytest.approx(1 - 2 * 9**1.5 + 16**1.5, rel=1e-12)
    assert len(failing["S6"]) == 2 and list(failing["A5"]) == ["(2 3)(4 5)"]


@pytest.mark.parametrize("name", ["S3", "D4"])
def test_incorrect_logit_range_matches_brute_force(name):
    G = fg.group(name)
    task = GroupTask(G)
    net = random_network(G, 7, np.random.default_rng(3))
    inputs, labels = task.batch(0, task.n_points)
    F = net.logits(inputs)
    mask = np.ones_like(F, dtype=bool)
    mask[np.arange(len(labels)), labels] = False
    assert margin._incorrect_logit_range(net, task) == (F[mask].min(), F[mask].max())


def test_construction_incorrect_logits_equal_at_every_point():
    G = fg.group("S3")
    lo, hi = margin._incorrect_logit_range(construction_network(G), GroupTask(G))
    expected = -2 / (float(tg.s_sum(G)) * (3 * G.order) ** 1.5)
    assert lo == pytest.approx(expected, rel=1e-12) and hi == pytest.approx(expected, rel=1e-12)


def test_construction_judge_rejects_one_incorrect_logit_off_at_another_point():
    claim = registry()["edelman-lemD.15-construction"]
    ev = evaluation("edelman-lemD.15-construction")
    assert ev.verdict == "pass"
    for key in ("incorrect logit (smallest)", "incorrect logit (largest)"):
        value = {k: list(v) for k, v in ev.obs.value.items()}
        value[key][-1] *= 1 + 1e-6
        verdict, reason = claim.judge(ev.predicted, Observation(value, details=ev.obs.details), ev.config)
        assert verdict == "fail" and key in reason
