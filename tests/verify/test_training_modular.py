r"""Training reaches the max-margin Fourier circuit of k-input modular addition (spec fourier_circuits C15,
feature_emergence §7 item 9), at the quick scale on a CPU.

The test runs the registered training claims themselves, so what passes here is what ``tvk report``
reports. Acceptance, for every seed of a >= 2-seed ensemble (float64, full batch):

* normalized margin h/||theta||_{2,k+1}^{k+1} in [0.95 gamma*, (1 + 1e-9) gamma*] (gamma* from ``theory.modular``);
* >= 95% of the ||theta_i||^{k+1} mass in single-frequency neurons (every block purity >= 0.99, one shared
  non-zero frequency);
* every frequency 1..(p-1)/2 dominates some non-negligible neuron; phase residual < 0.1 rad.
"""

from __future__ import annotations

import pytest

from theory.modular import frequencies, max_margin, min_width
from verify.claims import RunContext, registry, run_claim

TRAINING_CLAIMS = ["shi-thm4.9-training-k2", "shi-thm4.9-training-k3", "edelman-thm7.7-training"]


@pytest.fixture(scope="module", params=TRAINING_CLAIMS)
def record(request: pytest.FixtureRequest):
    claim = registry()[request.param]
    return claim.configs["quick"], run_claim(claim, RunContext(scale="quick", device="cpu", progress=False))


def test_claim_passes(record) -> None:
    cfg, rec = record
    assert rec.verdict == "pass", rec.reason
    assert rec.predicted["float"] == float(max_margin(cfg.p, cfg.k))


def test_configuration_is_a_cpu_ensemble_above_the_theorem_width(record) -> None:
    cfg, rec = record
    assert cfg.k in (2, 3) and cfg.width >= min_width(cfg.p, cfg.k)
    assert len(rec.metadata["seeds"]) >= 2 and rec.metadata["device"] == "cpu"


def test_every_seed_meets_the_acceptance_criterion(record) -> None:
    cfg, rec = record
    per_seed = rec.details["per_seed"]
    assert len(per_seed) == len(cfg.train.seeds)
    for seed, c in zip(cfg.train.seeds, per_seed):
        assert 0.95 <= c["margin_ratio"] <= 1 + 1e-9, f"seed {seed}: {c['margin_ratio']}"
        assert c["accuracy"] == 1.0
        assert c["single_frequency_share"] >= 0.95, f"seed {seed}: {c['single_frequency_share']}"
        assert len(c["coverage"]) == len(frequencies(cfg.p)) and min(c["coverage"]) > 0, f"seed {seed}: {c['coverage']}"
        assert c["max_phase_residual"] < 0.1, f"seed {seed}: {c['max_phase_residual']}"
        assert c["lp_ratio"] is None or c["lp_ratio"] <= 1 + 1e-6


def test_history_tracks_the_margin_ratio(record) -> None:
    cfg, rec = record
    hist = rec.artifacts["history"]
    assert hist[0]["step"] == 0 and hist[-1]["step"] == cfg.train.steps
    final = [c["margin_ratio"] for c in rec.details["per_seed"]]
    assert hist[-1]["ratio"] == pytest.approx(final, rel=1e-9)
