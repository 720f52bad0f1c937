"""The Lemma B.4 claim (verify/claims/local_signal/lemB4.py) at quick scale: its check can fail (a batch far below
the proof's size puts the deviations above 1/k), and its configuration follows the theory functions. The verdict
itself is checked with every claim by tests/verify/test_claims.py."""

from __future__ import annotations

import numpy as np

from numerics import local_signal_minibatch as nmb
from theory import local_signal as tl
from verify.claims import Observation, registry

CID = "karp-ch3-lemB4-gradient-concentration"


def test_fails_with_a_batch_of_16() -> None:
    """16 samples instead of 38,909: the deviations exceed 1/k = 0.25 on about a fifth of the batches (e^{-4} = 0.018 allowed), so the rate check fails."""
    claim = registry()[CID]
    cfg = claim.configs["quick"]
    sigma = tl.noise_sigma(cfg.k)
    rows = []
    for j, (c, v, b) in enumerate(cfg.states):
        pop = nmb.population_gradient(cfg.k, sigma, c, v, b)
        out = nmb.minibatch_deviations(cfg.k, cfg.d, sigma, c, v, b, 16, 40, 100 + j, pop)
        for dw, db in zip(out["dev_w"], out["dev_b"]):
            rows.append({"deviation_w": float(dw), "deviation_b": float(db), "ratio": max(dw, db) / cfg.tolerance})
    obs = Observation([0.0] * len(rows), details={"per_seed": rows})
    verdict, _ = claim.judge(claim.predict(cfg), obs, cfg)
    assert verdict == "fail"
    assert np.mean([r["ratio"] > 1 for r in rows]) > 0.1  # e^{-4} = 0.018


def test_configuration_follows_the_theory() -> None:
    claim = registry()[CID]
    for cfg in claim.configs.values():
        pred = claim.predict(cfg)
        assert pred["n"] == cfg.batch == tl.lemma_b4_batch_size(cfg.k, cfg.d)
        assert pred["tolerance"] == 1 / cfg.k
        assert pred["hoeffding_bound"] <= pred["failure_probability"]
        assert claim.judge.planned_runs(cfg) == len(cfg.seeds) * len(cfg.states)
        assert claim.judge.rule.power(claim.judge.planned_runs(cfg)) >= claim.judge.rule.min_power
