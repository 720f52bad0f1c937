"""The Theorem 4.4 trainer (population GD on W and V, Karp thesis Ch. 4): torch autograd equals the closed-form
numpy GD, the records are those of the run, and the joint Hessian's W block carries kappa c^2."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import decision_lists as nd
from theory import decision_lists as td
from verify.runtime.options import RunOptions
from verify.train import decision_lists as vd


def _config(steps: int) -> vd.PopulationGDWVConfig:
    tasks = tuple(td.random_task(4, 2, s, min_length=2) for s in (0, 1))
    rng = np.random.default_rng(0)
    V0s = tuple(20.0 * nd.permutation_matrix(t) + rng.uniform(-0.5, 0.5, (4, 4)) for t in tasks)
    return vd.PopulationGDWVConfig(tasks, 2, V0s, (20.0, 20.0), (0.05, 0.02), steps, (0, 1))


def test_torch_run_equals_the_closed_form_gd_and_records_it():
    cfg = _config(6)
    run = vd.population_gd_wv(cfg, RunOptions(device="cpu", progress=False))
    for i, (task, V0, eta) in enumerate(zip(cfg.tasks, cfg.V0s, cfg.etas)):
        W, V, loss = nd.population_gd_wv(task, cfg.n, V0, eta, cfg.steps)
        assert np.abs(run.W[i] - W).max() < 1e-12 and np.abs(run.V[i] - V).max() < 1e-12
        assert run.loss[:, i] == pytest.approx(loss, rel=1e-12)
        assert run.v_dev[0, i] == pytest.approx(np.abs(V0 - 20.0 * nd.permutation_matrix(task)).max())
        assert run.v_step[0, i] == 0 and 0 < run.v_step[1:, i].max() <= eta  # Lemma 4.1's step: |grad_V| <= 1
    assert run.perfect.dtype == bool and run.perfect.shape == (cfg.steps + 1, 2)


def test_bad_config_is_refused():
    cfg = _config(1)
    with pytest.raises(ValueError, match="one task"):
        vd.PopulationGDWVConfig(cfg.tasks, 2, cfg.V0s[:1], cfg.cs, cfg.etas, 1, cfg.seeds)
    with pytest.raises(ValueError, match="steps"):
        vd.PopulationGDWVConfig(cfg.tasks, 2, cfg.V0s, cfg.cs, cfg.etas, -1, cfg.seeds)


def test_joint_hessian_is_kappa_c2_to_leading_order():
    task = td.random_task(3, 2, 0, min_length=2)
    c = 400.0
    lam = vd.hessian_lambda_max_wv(task, 2, c * nd.permutation_matrix(task), device="cpu")
    assert lam / (float(td.lambda_max_leading(3, 2)) * c * c) == pytest.approx(1.0, abs=0.02)
