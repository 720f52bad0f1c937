"""The Edelman Thm 7.9 / App. D.8-D.9 claims and the group comparison (spec feature_emergence §5, §7 items 16-24)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import verify.claims.edelman_ch7_groups as group_claims  # noqa: F401  (registers the claims)
from numerics.groups import character_lp, construction_network, random_network
from numerics.margins import HomogeneousNetwork
from theory import groups as tg
from verify.claims.base import RunContext, registry, run_claim
from verify.compare.groups import compare_groups, gamma_star

QUICK = RunContext(scale="quick", progress=False)
EXPECTED = {
    "edelman-tabD.1-character-tables": "pass",
    "edelman-tabD.1-labels-as-printed": "refuted",
    "edelman-thm7.9-condition": "pass",
    "edelman-lemD.14-tau": "pass",
    "edelman-thm7.9-margin": "pass",
    "edelman-lemD.15-construction": "pass",
    "edelman-lemD.13-single-neuron": "pass",
    "edelman-lemD.13-single-neuron-as-printed": "refuted",
    "edelman-D.9.2-A5": "pass",
    "edelman-D.9.2-S6": "pass",
    "edelman-thm7.9-not-Zp": "pass",
    "edelman-thm7.9-training-S3": "pass",
}
FULL_ONLY = [
    "edelman-thm7.9-training-S4",
    "edelman-thm7.9-training-S5",
    "edelman-thm7.9-training-D5",
    "edelman-thm7.9-training-A5",
]


def _module_claims() -> dict:
    return {cid: c for cid, c in registry().items() if c.observe.__module__ == group_claims.__name__}


def test_every_quick_claim_is_listed():
    quick = {cid for cid, c in _module_claims().items() if "quick" in c.configs}
    assert quick == set(EXPECTED)
    for cid in FULL_ONLY:
        assert set(registry()[cid].configs) == {"full"}


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_quick_claim_verdict(cid):
    rec = run_claim(registry()[cid], QUICK)
    assert rec.verdict == EXPECTED[cid], rec.reason + str(rec.details.get("traceback", ""))
    json.dumps(rec.to_json())  # the record is reportable
    if rec.verdict == "refuted":
        claim = registry()[cid]
        assert claim.refutes and claim.corrected_by in registry()
        assert rec.counterexample


def test_training_record_feeds_the_figures():
    rec = run_claim(registry()["edelman-thm7.9-training-S3"], QUICK)
    hist = rec.artifacts["history"]
    assert len(hist[-1]["ratio"]) == len(rec.metadata["seeds"]) == 2
    cov = np.array(rec.artifacts["coverage"])
    assert cov.shape == (2, 2) and (cov > 0).all()  # S3: sign and standard irreps, per seed
    assert all(r <= 1 + 1e-9 for r in hist[-1]["ratio"])


@pytest.mark.parametrize("G", ["S3", "S4", "D4", "D5", "Z2^3"])
def test_compare_on_the_construction(G):
    c = compare_groups(construction_network(G), G)
    assert c.gamma_source == "closed form"
    assert abs(c.margin_ratio - 1) < 1e-12
    assert c.single_irrep_share == pytest.approx(1.0, abs=1e-12)
    assert c.min_purity > 1 - 1e-12
    assert c.coverage_ok and c.trivial_unused
    ct = tg.character_table(G)
    assert c.counts == (0,) + tuple(2 * d**3 for d in ct.dims[1:])  # the construction's 2 d_R^3 neurons per irrep
    assert c.counts_increase_with_dim
    assert c.wrong_logit_spread < 1e-12


def test_compare_on_the_a5_lp_construction():
    lp = character_lp("A5")
    c = compare_groups(construction_network("A5", budgets=list(lp.budgets)), "A5")
    assert c.gamma_source == "character LP" and c.expected_irreps == (1, 2, 3)
    assert abs(c.margin_ratio - 1) < 1e-10 and c.coverage_ok
    assert c.counts[4] == 0  # the 5-dim irrep is unused at the optimum


def test_compare_on_a_random_network():
    rng = np.random.default_rng(0)
    for G in ("S3", "S4"):
        c = compare_groups(random_network(G, 40, rng), G)
        assert c.margin_ratio <= 1 + 1e-9
        assert c.single_irrep_share < 0.5 and c.min_purity < 0.98
        assert sum(c.counts) == c.n_significant


def test_compare_flags_missing_irrep_and_trivial_neurons():
    net = construction_network("S3")
    ct = tg.character_table("S3")
    sign = ct.index("(1,1,1)")
    # drop the sign-irrep neurons: coverage must fail, the margin must drop
    from numerics.groups import neuron_irrep_diagnostics

    dom = neuron_irrep_diagnostics(net, "S3").neuron_dominant
    sub = net.subset(np.flatnonzero(dom != sign))
    c = compare_groups(sub, "S3")
    assert not c.all_irreps_used and c.margin_ratio < 1
    # add a trivial-irrep neuron (constant u, v, w): flagged
    triv = HomogeneousNetwork(np.full((1, 2, 6), 0.2), np.full((1, 6), 0.2), degree=2)
    c2 = compare_groups(HomogeneousNetwork.concatenate([net, triv]), "S3")
    assert not c2.trivial_unused and not c2.coverage_ok


def test_gamma_star_sources():
    assert gamma_star("S4")[1] == "closed form"
    g, src, used = gamma_star("S6")
    assert src == "character LP" and g == pytest.approx(7.266303386040882e-06, rel=1e-9)
    with pytest.raises(ValueError):
        gamma_star("Z5")
    with pytest.raises(ValueError):
        compare_groups(HomogeneousNetwork(np.zeros((1, 2, 6)), np.zeros((1, 6)), degree=3), "S3")


@pytest.mark.slow
@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_full_claim_verdict(cid):
    if registry()[cid].kind == "training":
        pytest.skip("full training runs are GPU-scale")
    rec = run_claim(registry()[cid], RunContext(scale="full", progress=False))
    assert rec.verdict == EXPECTED[cid], rec.reason
