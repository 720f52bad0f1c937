"""Mutation audit of the training observers of the modular, parity and finite-group claims
(``verify/claims/modular/training_runs.py``: observe_training; ``parity.py``: observe_parity_training;
``groups/trained.py``: observe_group_training): which seeds the rows name and which seed sets the headline. No
network is trained: ``train_for_claim`` is replaced by a result holding the theorems' own max-margin constructions
(normalized margin gamma* by Theorems 4.9, 7.8 and 7.9) and a random network (far below gamma*), run under seeds
shifted as ``RunOptions.seed_offset`` shifts them. Each test kills a one-line mutant that the other tests (which run
at offset 0) let through."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from numerics import groups as ngroups
from numerics import modular as nmod
from numerics import parity as npar
from theory import modular as tm
from theory import parity as tp
from verify.claims import parity
from verify.claims.base import registry
from verify.claims.groups import trained
from verify.claims.modular import training_runs

SEEDS = (1000, 1001)  # the seeds that ran: the config's 0 and 1 shifted by an offset of 1000


def _fake(networks: list) -> object:
    def train_for_claim(*args, **kwargs):
        return SimpleNamespace(networks=networks, config=SimpleNamespace(seeds=SEEDS), history={}, wall_time=0.0)

    return train_for_claim


def _check(obs, gamma: float) -> None:
    assert tuple(obs.seeds) == SEEDS
    assert [r["seed"] for r in obs.details["per_seed"]] == list(SEEDS)
    assert obs.value < 0.9 * gamma  # the headline is the worst seed (the random network), not the construction


@pytest.mark.filterwarnings("ignore:All-NaN slice")  # the construction's zero-padded neurons have no purity
def test_modular_rows_name_the_seeds_that_ran(monkeypatch):
    """Rows and seeds are those of the run (offset applied), not the config's; the headline is the worst seed."""
    cfg = registry()["shi-thm4.9-training-k2"].configs["quick"]
    nets = [
        nmod.construction_network(cfg.p, 2, cfg.width),
        nmod.random_network(cfg.p, 2, cfg.width, np.random.default_rng(0)),
    ]
    monkeypatch.setattr(training_runs, "train_for_claim", _fake(nets))
    obs = training_runs.observe_training(cfg, None)
    gamma = float(tm.max_margin(cfg.p, 2))
    assert obs.details["per_seed"][0]["margin_ratio"] == pytest.approx(1.0, abs=1e-9)
    _check(obs, gamma)


def test_parity_rows_name_the_seeds_that_ran(monkeypatch):
    """As for modular addition, for the (n, k) parity."""
    cfg = registry()["edelman-thm7.8-training"].configs["quick"]
    S = tuple(range(cfg.k))
    nets = [npar.construction_network(cfg.n, S, cfg.width), npar.random_network(cfg.n, cfg.k, cfg.width, seed=0)]
    monkeypatch.setattr(parity, "train_for_claim", _fake(nets))
    obs = parity.observe_parity_training(cfg, None)
    assert obs.details["per_seed"][0]["margin_ratio"] == pytest.approx(1.0, abs=1e-9)
    _check(obs, float(tp.max_margin(cfg.k)))


def test_group_rows_name_the_seeds_that_ran(monkeypatch):
    """As for modular addition, for S_3 (where Theorem 7.9's condition holds)."""
    cfg = registry()["edelman-thm7.9-training-S3"].configs["quick"]
    nets = [
        ngroups.construction_network("S3", cfg.width),
        ngroups.random_network("S3", cfg.width, np.random.default_rng(0)),
    ]
    monkeypatch.setattr(trained, "train_for_claim", _fake(nets))
    obs = trained.observe_group_training(cfg, None)
    assert obs.details["per_seed"][0]["margin_ratio"] == pytest.approx(1.0, abs=1e-6)
    _check(obs, obs.details["gamma_star"])
