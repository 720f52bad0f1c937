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


# Hand-built unit neurons for n = 6, S = (0, 1, 2), k = 3: the prediction is |u_j| = 1/2 on S, u = 0 off S,
# w = +-[1, -1] / sqrt(8), (u_0 u_1 u_2)(w_0 - w_1) > 0. Each neuron below misses it in one known way.
_E = 1 / np.sqrt(8)
_NEURONS = {
    "off": ([0.5, 0.5, 0.5, 0.05, 0, 0], [np.sqrt(0.2475 / 2), -np.sqrt(0.2475 / 2)]),  # off-support 0.05
    "abs_u": ([0.6, 0.5, 0.5, 0, 0, 0], [np.sqrt(0.07), -np.sqrt(0.07)]),  # |u_0| - 1/2 = 0.1
    "sign": ([0.5, 0.5, -0.5, 0, 0, 0], [_E, -_E]),  # sign product -(1/8)(2/sqrt 8)
    "w": ([0.5, 0.5, 0.5, 0, 0, 0], [0.5, 0.0]),  # w deviation max(|0.5 - e|, |0 + e|) = e
    "exact": ([0.5, 0.5, 0.5, 0, 0, 0], [_E, -_E]),
    "junk": ([0, 0, 0, 1.0, 0, 0], [0.0, 0.0]),
    "zero": ([0, 0, 0, 0, 0, 0], [0.0, 0.0]),
}


def _parity_net(spec):
    """Neurons named in ``spec`` ((name, norm) pairs), each the unit neuron of _NEURONS scaled to that norm."""
    U = np.array([np.array(_NEURONS[name][0]) * r for name, r in spec])[:, None, :]
    W = np.array([np.array(_NEURONS[name][1]) * r for name, r in spec])
    assert np.allclose([np.hypot(np.linalg.norm(u), np.linalg.norm(w)) for u, w in _NEURONS.values()][:-2], 1.0)
    return HomogeneousNetwork(U, W, 3)


SPEC = [("off", 5.0), ("abs_u", 4.0), ("sign", 3.0), ("w", 2.0), ("exact", 1.5), ("junk", 1.0), ("zero", 0.0)]


def test_compare_parity_reports_the_worst_of_the_top_neurons():
    """The structure metrics are the worst values over exactly the 2^{k-1} largest neurons (Thm 7.8, one bad neuron each)."""
    c = compare_parity(_parity_net(SPEC), 6, (0, 1, 2))
    assert c.top_neurons == (0, 1, 2, 3)  # 2^{k-1} = 4 largest; "exact" and "junk" are smaller
    assert c.max_off_support == pytest.approx(0.05, abs=1e-12)
    assert c.max_abs_u_deviation == pytest.approx(0.1, abs=1e-12)
    assert c.max_w_deviation == pytest.approx(_E, abs=1e-12)
    assert c.max_structure_deviation == pytest.approx(_E, abs=1e-12)
    assert c.min_sign_product == pytest.approx(-2 * _E / 8, abs=1e-12) and not c.sign_rule_holds
    assert c.support_share == pytest.approx(0.75 / 0.7525, abs=1e-12)  # the "off" neuron: 3/4 of |u|^2 = 0.7525 on S


def test_compare_parity_top_count_and_structured_share():
    """n_top picks the largest neurons (zero ones never), structured_share is the matched share of sum ||theta_i||^{k+1}."""
    net = _parity_net(SPEC)
    two = compare_parity(net, 6, (0, 1, 2), n_top=2)
    assert two.top_neurons == (0, 1) and two.sign_rule_holds and two.max_w_deviation < 0.1
    every = compare_parity(net, 6, (0, 1, 2), n_top=10)
    assert every.top_neurons == (0, 1, 2, 3, 4, 5)  # the zero neuron is not a neuron to check
    power = np.array([r for _, r in SPEC]) ** 4
    assert every.structured_share == pytest.approx(power[4] / power.sum(), rel=1e-12)  # only "exact" within 0.01
    loose = compare_parity(net, 6, (0, 1, 2), structure_tol=0.06)  # "off" (0.05) now matches too
    assert loose.structured_share == pytest.approx((power[0] + power[4]) / power.sum(), rel=1e-12)


def test_compare_parity_sign_rule_is_strict():
    """A zero sign product (w_0 = w_1) does not satisfy the sign rule (prod u_j)(w_0 - w_1) > 0."""
    U = np.array([[[0.5, 0.5, 0.5, 0, 0, 0]], [[0.5, 0.5, 0.5, 0, 0, 0]]])
    W = np.array([[_E, -_E], [0.5, 0.5]])
    c = compare_parity(HomogeneousNetwork(U, W, 3), 6, (0, 1, 2), n_top=2)
    assert c.min_sign_product == 0.0 and not c.sign_rule_holds
