"""The Sec. 4.6 trainers of verify/train/sparse_variable.py on tiny settings: data and inputs, the [CLS] loss, seeds
trained together equal seeds trained alone, the history and attention shapes, the sweep's cell bookkeeping, and
the refused inputs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from numerics import sparse_variable as ns
from verify.runtime.options import RunOptions
from verify.train import sparse_variable as vs

TINY = vs.ModelConfig(d=8, heads=2, dropout=0.0)
CPU = RunOptions(device="cpu")


def test_with_cls_and_loss():
    x = np.array([[[0, 1, 1], [1, 1, 0]]])
    tok = vs.with_cls(x)
    assert tok.shape == (1, 2, 4) and (tok[..., -1] == vs.CLS_TOKEN).all() and (tok[..., :3] == x).all()
    logits = torch.zeros(1, 2, 4, 2)
    logits[0, :, -1] = torch.tensor([[3.0, 0.0], [0.0, 3.0]])
    y = torch.tensor([[0, 1]])
    expected = np.log1p(np.exp(-3.0))
    assert vs.cls_cross_entropy(logits, y).item() == pytest.approx(expected, rel=1e-6)


def test_and_datasets_are_identifiable_and_reproducible():
    cfg = vs.AndRunConfig(T=12, m=30, trials=(4, 5), n_val=50, model=TINY)
    sup, _, x, y, xv, yv = vs.and_datasets(cfg)
    again = vs.and_datasets(cfg)
    assert all(np.array_equal(a, b) for a, b in zip((x, y, xv, yv), again[2:]))
    for i, I in enumerate(sup):
        assert len(I) == 3 and ns.consistent_supports(x[i], y[i], 3) == [I]
        assert np.array_equal(ns.and_labels(xv[i], I), yv[i])


def test_train_and_records_history_attention_and_success():
    cfg = vs.AndRunConfig(
        T=6,
        m=40,
        trials=(0,),
        restarts=2,
        support=(0, 2, 5),
        model=TINY,
        steps=6,
        lr=1e-2,
        n_val=64,
        eval_every=3,
        attention_probe=5,
        num_threads=1,
    )
    run = vs.train_and(cfg, CPU)
    assert [h["step"] for h in run.history] == [0, 3, 6]
    assert len(run.history[-1]["val_acc"]) == 2 and run.best_val.shape == (2,)
    assert run.attention.shape == (2, 5, 2, 7)
    np.testing.assert_allclose(run.attention.sum(-1), 1.0, atol=1e-12)
    assert run.trial_success() == [bool((run.best_val > 0.99).any())]


def test_restarts_train_as_if_alone():
    base = dict(T=6, m=40, support=(0, 2, 5), model=TINY, steps=4, lr=1e-2, n_val=32, eval_every=4, num_threads=1)
    together = vs.train_and(vs.AndRunConfig(trials=(0,), restarts=2, **base), CPU)
    alone = vs.train_and(vs.AndRunConfig(trials=(0,), restarts=1, **base), CPU)
    assert together.history[-1]["train_loss"][0] == pytest.approx(alone.history[-1]["train_loss"][0], rel=1e-5)


def test_parity_run_and_cell():
    run = vs.train_parity(
        vs.ParityRunConfig(T=5, seeds=(0, 1), model=TINY, steps=4, batch=16, n_test=32, eval_every=2, num_threads=1),
        CPU,
    )
    assert [h["step"] for h in run.history] == [0, 2, 4] and len(run.history[0]["test_acc"]) == 2
    sweep = vs.SweepConfig(
        Ts=(6,),
        ms=(30,),
        trials=2,
        restarts=1,
        run=vs.AndRunConfig(T=6, m=30, model=TINY, steps=2, n_val=32, eval_every=2, num_threads=1),
    )
    cfg = vs.cell_config(sweep, 6, 30)
    assert cfg.trials == (6_030_000, 6_030_001) and cfg.support is None and cfg.stop_when_all_succeed
    cell = vs.and_cell(cfg, CPU)
    assert cell["T"] == 6 and cell["m"] == 30 and 0 <= cell["success_rate"] <= 1 and len(cell["best_val"]) == 2
    assert vs.thresholds_of(sweep, [cell])[6] == (30 if cell["success_rate"] >= 0.8 else float("inf"))
    tiny = vs.and_cell(vs.cell_config(sweep, 30, 1), CPU)  # one sample of 30 bits never identifies I
    assert tiny["unidentifiable"] and tiny["success_rate"] == 0


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="s <= T"):
        vs.AndRunConfig(T=2, m=10)
    with pytest.raises(ValueError, match="s <= T"):
        vs.ParityRunConfig(T=2)
    with pytest.raises(ValueError, match="divisible"):
        vs.ModelConfig(d=10, heads=3)
    with pytest.raises(ValueError, match="increasing"):
        vs.SweepConfig(Ts=(64, 16), ms=(10,))


@pytest.mark.parametrize("T, d, heads", [(6, 8, 2), (12, 16, 1)])
def test_cls_ensemble_is_the_full_pass_at_cls(T, d, heads):
    """:class:`vs.ClsEnsemble` computes only what the classifier reads: its logits and [CLS] attention row equal the
    last position of the full :class:`AttentionEnsemble` pass with the same parameters (eval mode)."""
    from verify.train.attention import AttentionEnsemble

    cfg = vs.attention_config(T, vs.ModelConfig(d=d, heads=heads, init_std=0.2))
    full = AttentionEnsemble.init(cfg, (0, 1, 2), dtype=torch.float64)
    cls = vs.ClsEnsemble(cfg, {n: full.p(n).detach().clone() for n in full.names()})
    full.eval()
    cls.eval()
    x = torch.as_tensor(vs.with_cls(np.random.default_rng(0).integers(0, 2, (3, 5, T))))
    logits, maps = full(x, return_attention=True)
    cl, cm = cls(x, return_attention=True)
    assert cl.shape == (3, 5, 1, 2) and cm[0].shape == (3, 5, heads, 1, T + 1)
    torch.testing.assert_close(cl[:, :, 0], logits[:, :, -1], rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(cm[0][:, :, :, 0], maps[0][:, :, :, -1], rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="one layer"):
        vs.ClsEnsemble.init(dataclasses.replace(cfg, layers=2), (0,))
