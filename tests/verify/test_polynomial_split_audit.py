"""Mutation audit of :mod:`verify.claims.modular_transformer.polynomial`: what :func:`observe_split` measures per
seed (the seed's own test accuracy, the margin normalised by gamma*, purity over significant neurons and its gain
over initialisation) and which fields the two judges read, on a hand-built run of tiny networks and on hand-built
per-seed rows whose verdict follows from Lemmas 4.10-4.11 and Theorem 4.9."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from numerics.margins import HomogeneousNetwork
from numerics.modular_transformer import embedding_purity
from numerics.spectra import neuron_diagnostics
from theory import modular as tm
from verify.claims.base import Observation, RunContext
from verify.claims.modular_transformer import polynomial as po

P, K, M = 5, 2, 8


def _cosine_net(rng: np.random.Generator) -> HomogeneousNetwork:
    """Three neurons whose input blocks are single-frequency cosines (purity 1), frequencies 1 and 2 each used, and
    five negligible neurons (weights 1e-6, below the significance threshold) with random, impure blocks."""
    x = np.arange(P)
    U = np.stack([[np.cos(2 * np.pi * (1 + i % 2) * x / P + rng.uniform(0, 6)) for _ in range(K)] for i in range(M)])
    W = rng.standard_normal((M, P))
    U[3:] = 1e-6 * rng.standard_normal((M - 3, K, P))
    W[3:] *= 1e-6
    return HomogeneousNetwork(U, W, degree=K)


def _fake_run(seeds=(3, 4)):
    rng = np.random.default_rng(0)
    gamma = float(tm.max_margin(P, K))
    nets = [_cosine_net(rng) for _ in seeds]
    init = [HomogeneousNetwork(rng.standard_normal((M, K, P)), rng.standard_normal((M, P)), degree=K) for _ in seeds]
    result = SimpleNamespace(
        networks=nets,
        config=SimpleNamespace(seeds=tuple(seeds)),
        final={"accuracy": [1.0, 0.75]},
        history=[{"accuracy": [1.0, 0.75]}],
        wall_time=0.0,
    )
    return SimpleNamespace(
        result=result,
        initial=init,
        test_accuracy=[0.5, 0.25],
        all_normalized_margin=[0.5 * gamma, 2.0 * gamma],
        test_history={"step": [0], "test_acc": [[0.5, 0.25]]},
        train_indices=np.arange(12),
        test_indices=np.arange(13),
    )


@pytest.fixture
def observed(monkeypatch: pytest.MonkeyPatch):
    run = _fake_run()
    monkeypatch.setattr(po, "poly_split_run", lambda *a, **k: run)
    cfg = po.PolySplitConfig(P, K, M, po.QUICK.train, compare=None)
    return run, po.observe_split(cfg, RunContext())


def test_each_seed_reports_its_own_test_accuracy_and_normalised_margin(observed) -> None:
    """Per seed: the test-half accuracy of that seed (not another seed's, not the training accuracy) and the
    normalized margin divided by gamma* (Theorem 4.9 says the ratio is at most 1)."""
    _, obs = observed
    rows = obs.details["per_seed"]
    assert [r["seed"] for r in rows] == [3, 4]
    assert [r["test_accuracy"] for r in rows] == [0.5, 0.25]
    assert [r["train_accuracy"] for r in rows] == [1.0, 0.75]
    assert [r["margin_ratio"] for r in rows] == pytest.approx([0.5, 2.0], rel=1e-12)


def test_purity_is_over_significant_neurons_and_gain_is_over_initialisation(observed) -> None:
    """median_purity is the median purity of the significant neurons' blocks; purity_gain subtracts the median
    purity of the network at initialisation (Fig. 4.2's comparison), and coverage lists frequencies 1..(p-1)/2."""
    run, obs = observed
    for row, net, net0 in zip(obs.details["per_seed"], run.result.networks, run.initial):
        sig = neuron_diagnostics(net).significant()
        pur, pur0 = embedding_purity(net), embedding_purity(net0)
        assert row["median_purity"] == pytest.approx(float(np.nanmedian(pur[sig])))
        assert row["init_median_purity"] == pytest.approx(float(np.nanmedian(pur0)))
        assert row["purity_gain"] == pytest.approx(float(np.nanmedian(pur[sig]) - np.nanmedian(pur0)))
        assert sig.sum() == 3 and np.nanmedian(pur) < 1 - 1e-6  # the negligible neurons are impure
        assert row["median_purity"] == pytest.approx(1.0)  # the significant cosine blocks are pure
        assert row["n_significant"] == 3
        assert len(row["coverage"]) == (P - 1) // 2
        assert all(c > 0 for c in row["coverage"])  # both frequencies dominate some neuron


def _row(**changes):
    row = {"test_accuracy": 1.0, "train_accuracy": 1.0, "median_purity": 0.95}
    row |= {"coverage": [3] * 11, "purity_gain": 0.7, "margin_ratio": 0.5}
    return row | changes


def _verdict(judge, predicted, **changes) -> str:
    obs = Observation([0.9] * 8, {"per_seed": [_row(seed=i, **changes) for i in range(8)]})
    return judge(predicted, obs, po.QUICK)[0]


def test_fig41_reads_the_test_accuracy_not_the_training_accuracy() -> None:
    """Fig. 4.1's claim is about generalization: seeds that fit the training half (train accuracy 1) but reach only
    0.5 on the test half fail."""
    purity = po.predict_purity(po.QUICK)
    assert _verdict(po.FIG41_JUDGE, purity) == "pass"
    assert _verdict(po.FIG41_JUDGE, purity, test_accuracy=0.5) == "fail"


def test_fig42_fails_a_margin_above_gamma_star() -> None:
    """Theorem 4.9: the normalized margin is at most gamma*; seeds whose ratio is 1.5 (or 1.01) contradict it."""
    freqs = po.predict_coverage(po.QUICK)
    assert _verdict(po.FIG42_JUDGE, freqs, margin_ratio=1.0) == "pass"
    assert _verdict(po.FIG42_JUDGE, freqs, margin_ratio=1.5) == "fail"
    assert _verdict(po.FIG42_JUDGE, freqs, margin_ratio=1.01) == "fail"


def test_fig42_unused_frequency_is_not_counted_as_used() -> None:
    """A frequency with coverage 0 dominates no neuron: with the prediction 1..11 the seed's frequencies differ
    (Lemma 4.11 says every frequency is used), and a prediction that omits it is then exactly right."""
    row = _row(coverage=[3] * 10 + [0])
    assert po._frequencies_vs_prediction(list(range(1, 12)), row, None)["frequencies_as_predicted"] is False
    assert po._frequencies_vs_prediction(list(range(1, 11)), row, None)["frequencies_as_predicted"] is True
    assert po._frequencies_vs_prediction(list(range(1, 11)), _row(), None)["frequencies_as_predicted"] is False
