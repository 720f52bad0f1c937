"""Artifacts of the Edelman Thm 7.8 claims (their verdicts are in test_claims.py) and the parity comparison."""

from __future__ import annotations

import numpy as np
import pytest

from numerics.margins import HomogeneousNetwork
from numerics.parity import construction_network, random_network
from theory import parity as tp
from verify.claims.base import registry
from verify.compare.parity import compare_parity

from .claim_checks import evaluation, record

FAST_IDS = [
    "edelman-thm7.8-margin",
    "edelman-thm7.8-construction",
    "edelman-thm7.8-single-neuron",
    "edelman-thm7.8-certificate",
    "edelman-thm7.8-upper-bound",
]


def test_claims_registered_with_both_scales():
    reg = registry()
    for cid in [*FAST_IDS, "edelman-thm7.8-training"]:
        assert {"quick", "full"} <= set(reg[cid].configs)
    assert reg["edelman-thm7.8-training"].kind == "training"


def test_predicted_values_come_from_theory():
    cfg = registry()["edelman-thm7.8-construction"].configs["quick"]
    pred = registry()["edelman-thm7.8-construction"].predict(cfg)
    assert pred == [tp.max_margin(k) for _, k in cfg.nk for _ in range(4)]


def test_upper_bound_perturbed_constructions_come_close_to_gamma_star():
    rec = record("edelman-thm7.8-upper-bound")
    assert max(c["max_ratio"] for c in rec.details["per_case"]) > 0.999  # a lowered bound would be caught


def test_quick_training_claim_has_margin_curve():
    rec = record("edelman-thm7.8-training")
    hist = rec.artifacts["history"]
    cfg = registry()["edelman-thm7.8-training"].configs["quick"]
    assert len(hist[-1]["ratio"]) == len(rec.metadata["seeds"]) == len(cfg.train.seeds)
    assert [row["seed"] for row in rec.details["per_seed"]] == rec.metadata["seeds"]  # rows name the seeds that ran
    population = evaluation("edelman-thm7.8-training").population
    assert population["n"] == len(cfg.train.seeds) and population["power"] >= 0.8
    for seed in rec.details["per_seed"]:  # the margin window holds for every seed; the structure decides some
        assert cfg.min_ratio <= seed["margin_ratio"] <= 1 + 1e-9


def test_compare_parity_on_construction_is_exact():
    n, S = 8, (0, 1, 2, 3)
    c = compare_parity(construction_network(n, S, width=12), n, S, lp=True)
    assert c.margin_ratio == pytest.approx(1.0, rel=1e-10)
    assert c.lp_ratio == pytest.approx(1.0, rel=1e-8)
    assert c.max_structure_deviation < 1e-12 and c.sign_rule_holds
    assert c.structured_share == pytest.approx(1.0)
    assert c.n_dominant == tp.min_width(4) and len(c.top_neurons) == tp.min_width(4)
    assert c.support_share == pytest.approx(1.0)


def test_compare_parity_flags_random_and_sign_flipped_networks():
    n, S = 6, (0, 1, 2)
    r = compare_parity(random_network(n, 3, 10, seed=3), n, S)
    assert r.margin_ratio < 1 and r.max_structure_deviation > 0.01 and r.structured_share < 0.5
    base = construction_network(n, S)
    flipped = HomogeneousNetwork(base.U, -base.W, 3)  # every neuron violates the sign rule: margin -gamma*
    f = compare_parity(flipped, n, S)
    assert f.margin_ratio == pytest.approx(-1.0, rel=1e-10)
    assert not f.sign_rule_holds and f.structured_share == 0.0


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: compare_parity(construction_network(6, (0, 1, 2)), 6, (0, 1)), "degree k = 2"),
        (lambda: compare_parity(construction_network(6, (0, 1, 2)), 7, (0, 1, 2)), r"U \(m, 1, 7\)"),
        (lambda: compare_parity(construction_network(6, (0, 1, 2)), 6, (0, 1, 9)), "out of range"),
        (
            lambda: compare_parity(HomogeneousNetwork(np.zeros((2, 1, 4)), np.zeros((2, 2)), 2), 4, (0, 1)),
            "zero network",
        ),
    ],
)
def test_compare_parity_bad_inputs(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()
