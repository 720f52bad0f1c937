"""verify/train/local_signal.py: the configuration's validation, the shared initialisation, the sparse noise statistics
against the dense ones, the reduced simulator against the direct one (distribution of a short run), degenerate
dimensions and the history."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from theory import local_signal as tl
from verify.runtime.options import RunOptions
from verify.train import local_signal as vs


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"k": 1}, "k"),
        ({"d": 0}, "d"),
        ({"batch": 0}, "batch"),
        ({"sigma": 0.0}, "sigma"),
        ({"sigma": -1.0}, "sigma"),
        ({"steps": -1}, "steps"),
        ({"lr_w": 0.0}, "lr_w"),
        ({"simulator": "exact"}, "simulator"),
        ({"seeds": ()}, "seeds"),
        ({"n_test": 0}, "n_test"),
        ({"init_norm": 0.0}, "init_norm"),
    ],
)
def test_bad_config_raises_a_clear_value_error(kwargs, name):
    with pytest.raises(ValueError, match=name):
        vs.SignalTrainConfig(**kwargs)


def test_defaults_are_the_thesis_settings():
    cfg = vs.SignalTrainConfig()
    assert (cfg.k, cfg.d, cfg.batch, cfg.steps, cfg.lr_w) == (1000, 10, 500, 10_000, 0.1)
    assert cfg.lr_b == pytest.approx(0.1 / 1000) and cfg.noise == pytest.approx(tl.noise_sigma(1000))


def test_initial_state_is_seeded_and_has_the_init_norm():
    cfg = vs.SignalTrainConfig(seeds=(3, 4), init_norm=1e-3)
    w = vs.initial_state(cfg)
    np.testing.assert_allclose(np.linalg.norm(w, axis=1), 1e-3, rtol=1e-12)
    np.testing.assert_array_equal(w[0], vs.initial_state(replace(cfg, seeds=(3,)))[0])


@pytest.mark.parametrize("b", [-0.05, -0.2])
def test_sparse_noise_statistics_have_the_dense_law(b):
    """The sparse path (only |z| > |b| drawn) against dense draws: means and variances of F, Pz, P2, Pb."""
    gen = torch.Generator().manual_seed(0)
    s = torch.full((1,), 0.1, dtype=torch.float64)
    bb = torch.full((1,), b, dtype=torch.float64)
    sparse = [torch.stack(vs._noise_stats(gen, s, bb, 200, 4000)).reshape(4, -1)]
    z = 0.1 * torch.randn(4000, 200, generator=gen, dtype=torch.float64)
    up, down = (z + b > 0).double(), (-z + b > 0).double()
    dense = torch.stack(
        [
            (torch.relu(z + b) - torch.relu(-z + b)).sum(1),
            ((up + down) * z).sum(1),
            (up + down).sum(1),
            (up - down).sum(1),
        ]
    )
    sp = sparse[0]
    for i in range(4):
        se = math.sqrt(float(sp[i].var()) / sp.shape[1] + float(dense[i].var()) / dense.shape[1])
        assert abs(float(sp[i].mean() - dense[i].mean())) <= 4 * float(se) + 1e-12
        assert float(sp[i].var()) == pytest.approx(float(dense[i].var()), rel=0.15)


def test_reduced_and_direct_simulators_agree_in_distribution():
    base = vs.SignalTrainConfig(
        k=20, d=5, batch=10, steps=30, eval_every=15, n_test=200, init_norm=0.2, lr_w=0.3, num_threads=1
    )
    red = vs.train_signal(replace(base, simulator="reduced", seeds=tuple(range(150))), RunOptions(device="cpu"))
    dire = vs.train_signal(replace(base, simulator="direct", seeds=tuple(range(1000, 1150))), RunOptions(device="cpu"))
    assert list(red.steps) == list(dire.steps) == [0, 15, 30]
    for q in ("c", "v", "b"):
        a, b = getattr(red, q)[-1], getattr(dire, q)[-1]
        se = np.sqrt(a.var() / a.size + b.var() / b.size)
        assert abs(a.mean() - b.mean()) <= 4.5 * se, q
        assert a.std() == pytest.approx(b.std(), rel=0.3), q


@pytest.mark.parametrize("d", [1, 2])
def test_degenerate_dimensions(d):
    run = vs.train_signal(
        vs.SignalTrainConfig(k=10, d=d, batch=5, steps=5, eval_every=5, n_test=50, seeds=(0, 1)), RunOptions()
    )
    assert np.all(np.isfinite(run.c)) and np.all(np.isfinite(run.v))
    if d == 1:
        np.testing.assert_array_equal(run.v, 0.0)


def test_history_and_derived_quantities():
    run = vs.train_signal(
        vs.SignalTrainConfig(k=100, d=4, batch=50, steps=40, eval_every=20, n_test=300, seeds=(0,), num_threads=1),
        RunOptions(),
    )
    assert run.c.shape == run.v.shape == run.b.shape == run.accuracy.shape == (3, 1)
    np.testing.assert_allclose(run.cosine, run.c / np.hypot(run.c, run.v))
    assert run.b[0, 0] == 0 and np.all((run.accuracy >= 0) & (run.accuracy <= 1))
    assert run.seconds > 0


def test_start_state_continues_a_run_and_is_reduced_only():
    cfg = vs.SignalTrainConfig(k=50, d=4, batch=20, steps=10, eval_every=10, n_test=100, seeds=(0, 1))
    first = vs.train_signal(cfg, RunOptions())
    state = {"c": first.c[-1], "v": first.v[-1], "b": first.b[-1]}
    more = vs.train_signal(cfg, RunOptions(), start_state=state)
    np.testing.assert_allclose(more.c[0], first.c[-1]) and np.testing.assert_allclose(more.b[0], first.b[-1])
    with pytest.raises(ValueError, match="reduced"):
        vs.train_signal(replace(cfg, simulator="direct"), RunOptions(), start_state=state)


@pytest.mark.parametrize("x,b", [(0.5, -0.5), (-0.5, -0.5), (0.5, 0.5), (-0.5, 0.5), (0.0, 0.0), (1.0, 2.0)])
def test_soft_threshold_derivatives_follow_autograd_at_the_kinks(x, b):
    """soft_threshold_dx / _db are 1{x + b > 0} +- 1{-x + b > 0}, strict: at a kink (x + b = 0 or -x + b = 0) they
    take torch's ReLU'(0) = 0, the derivative autograd gives the model trained in verify/ (exact values 0, +-1, 2)."""
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    bt = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    (torch.relu(xt + bt) - torch.relu(-xt + bt)).backward()
    assert tl.soft_threshold_dx(x, b) == xt.grad.item() and tl.soft_threshold_db(x, b) == bt.grad.item()
