"""The k-sum transformer trainer's bookkeeping (verify/train/modular_transformer.py), without training: the chunked
evaluation against a brute-force count, the early-stop rule on hand-made histories, and the interval checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import verify.train.modular_transformer as mt
from verify.runtime.options import RunOptions
from verify.train.modular_transformer import SumTransformerConfig, _accuracy, _evaluation, train_sum_transformer

CPU = RunOptions(device="cpu")
TINY = SumTransformerConfig(p=5, k=2, d=8, heads=2, head_width=4, mlp=16, steps=12, eval_every=4, seeds=(0, 1))


class _TableModel:
    """Answer logits read from a fixed table by the first token (the point's index): a model with known outputs."""

    def __init__(self, table: torch.Tensor) -> None:
        self.table = table  # (S, n, C)

    def answer_logits(self, tokens: torch.Tensor) -> torch.Tensor:
        return torch.stack([self.table[s, tokens[s, :, 0]] for s in range(tokens.shape[0])])


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 50])
def test_chunked_accuracy_and_loss_equal_the_whole_set_count(chunk) -> None:
    """Per-seed accuracy and mean answer cross-entropy over all points, whatever the chunk (7 points, uneven chunks)."""
    S, n, C = 2, 7, 5
    g = torch.Generator().manual_seed(3)
    table = torch.randn(S, n, C, generator=g, dtype=torch.float64)
    labels = torch.randint(0, C, (S, n), generator=g)
    tokens = torch.arange(n).repeat(S, 1)[:, :, None].expand(S, n, 3).contiguous()
    acc, ce = _accuracy(_TableModel(table), tokens, labels, chunk)
    for s in range(S):
        hits = sum(int(table[s, i].argmax()) == int(labels[s, i]) for i in range(n))
        assert acc[s] == pytest.approx(hits / n)
        assert ce[s] == pytest.approx(float(F.cross_entropy(table[s], labels[s])))


def _stop(history: dict, **changes) -> bool:
    cfg = TINY.replace(**changes)
    _, stop = _evaluation(None, cfg, (None, None, None, None), history, None)  # the rule reads the history only
    return stop(0, {})


def test_early_stop_counts_a_threshold_reached_exactly() -> None:
    """'Reached' means at or above the threshold, for both accuracies, at some evaluation (not the last one)."""
    history = {"train_acc": [[0.5, 0.8], [0.2, 0.1]], "val_acc": [[0.1, 0.9], [0.75, 0.2]]}
    assert _stop(history, stop_train_acc=0.5, stop_val_acc=0.75)
    assert not _stop(history, stop_train_acc=0.5, stop_val_acc=0.76)


def test_early_stop_with_hold_needs_the_last_h_evaluations() -> None:
    """With stop_hold = h, validation must be at the threshold at each of the last h evaluations, and there must be
    h of them."""
    train = [[1.0, 1.0]] * 3
    assert not _stop(
        {"train_acc": train[:1], "val_acc": [[0.9, 0.9]]}, stop_train_acc=0.9, stop_val_acc=0.9, stop_hold=2
    )
    held = {"train_acc": train, "val_acc": [[0.2, 0.2], [0.9, 0.95], [0.9, 1.0]]}
    assert _stop(held, stop_train_acc=0.9, stop_val_acc=0.9, stop_hold=2)
    dipped = {"train_acc": train, "val_acc": [[0.9, 0.9], [0.5, 0.9], [0.9, 0.9]]}
    assert not _stop(dipped, stop_train_acc=0.9, stop_val_acc=0.9, stop_hold=2)
    assert _stop(dipped, stop_train_acc=0.9, stop_val_acc=0.9, stop_hold=0)


@pytest.mark.parametrize("name", ["eval_every", "eval_chunk", "nan_check_every"])
def test_intervals_must_be_positive(name) -> None:
    """An evaluation, chunk or NaN-check interval of 0 is refused naming the field."""
    with pytest.raises(ValueError, match=name):
        TINY.replace(**{name: 0})


def test_the_dtype_option_sets_the_training_arithmetic() -> None:
    """A float64 run (configured or run-wide) trains in float64: its weights differ from the float32 run's by
    round-off, and the two ways of asking agree to the bit."""
    cfg = TINY.replace(steps=4, eval_every=4)
    f32 = train_sum_transformer(cfg, CPU).params
    f64 = train_sum_transformer(cfg.replace(dtype="float64"), CPU).params
    wide = train_sum_transformer(cfg, RunOptions(device="cpu", dtype="float64")).params
    assert any(not torch.equal(f32[name], f64[name]) for name in f64)
    assert all(torch.allclose(f32[name], f64[name], atol=1e-4) for name in f64)
    assert all(torch.equal(wide[name], f64[name]) for name in f64)


def test_each_seed_draws_its_own_minibatches(monkeypatch) -> None:
    """With minibatches, the seeds of an ensemble draw different batch indices (one stream per seed)."""
    drawn: list[torch.Tensor] = []
    randint = torch.randint

    def spy(*args, **kwargs):
        out = randint(*args, **kwargs)
        drawn.append(out.clone())
        return out

    monkeypatch.setattr(torch, "randint", spy)
    train_sum_transformer(TINY.replace(steps=3, eval_every=3, batch_size=4), CPU)
    assert len(drawn) == 6  # three steps, two seeds, seed-major within a step
    assert any(not torch.equal(drawn[i], drawn[i + 1]) for i in range(0, 6, 2))


def test_curve_keeps_the_recorded_values() -> None:
    """A history read as an (evaluations, seeds) array holds the recorded values exactly (no rounding)."""
    history = {"val_acc": [[1 / 3, 0.99], [0.7, 1.0]]}
    run = mt.TransformerRun(TINY, history, {}, np.zeros(0), np.zeros(0), 0, False, 0.0)
    curve = run.curve("val_acc")
    assert curve.shape == (2, 2) and curve.tolist() == history["val_acc"]
