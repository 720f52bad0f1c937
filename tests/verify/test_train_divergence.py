"""A non-finite loss or weight stops the attention, k-sum transformer and ReLU modular trainers with a
TrainingDiverged naming the trainer and the offending seed (verify/runtime/divergence.py's guard, as each trainer
wires it)."""

from __future__ import annotations

import pytest
import torch

import verify.train.modular_transformer as mt
from verify.runtime.divergence import TrainingDiverged
from verify.runtime.options import RunOptions
from verify.train.attention import (
    AttentionConfig,
    AttentionEnsemble,
    FitHooks,
    FitSchedule,
    fit,
    per_seed_cross_entropy,
)
from verify.train.modular_relu import ReluModularConfig, train_relu_modular

CPU = RunOptions(device="cpu")


def _poison_second_seed_from(call: int):
    """A per-seed loss that turns the second seed's loss into NaN from the call-th training call on."""
    calls = [0]

    def poisoned(loss: torch.Tensor) -> torch.Tensor:
        if not torch.is_grad_enabled():  # evaluations are left alone
            return loss
        calls[0] += 1
        if calls[0] >= call:
            loss = loss * torch.tensor([1.0, float("nan")], dtype=loss.dtype)
        return loss

    return poisoned


def test_attention_fit_stops_on_a_nan_loss_naming_the_seed() -> None:
    """fit raises at the first poisoned update, naming the caller's seed (not its position)."""
    cfg = AttentionConfig(vocab=3, max_len=5, d=4, layers=1)
    model = AttentionEnsemble.init(cfg, (5, 9), dtype=torch.float64)
    tokens = torch.randint(0, 3, (2, 4, 5), generator=torch.Generator().manual_seed(0))
    poison = _poison_second_seed_from(3)
    hooks = FitHooks(loss_fn=lambda logits, y: poison(per_seed_cross_entropy(logits, y)))
    with pytest.raises(TrainingDiverged) as err:
        fit(model, lambda t: (tokens, tokens), FitSchedule(6, 1e-2, nan_check_every=1), CPU, seeds=(5, 9), hooks=hooks)
    assert err.value.trainer == "attention" and err.value.seeds == [9] and err.value.step == 2


def test_sum_transformer_stops_on_a_nan_loss(monkeypatch) -> None:
    """train_sum_transformer raises at the first poisoned update for the poisoned seed."""
    poison = _poison_second_seed_from(2)
    loss = mt.answer_cross_entropy
    monkeypatch.setattr(mt, "answer_cross_entropy", lambda logits, y: poison(loss(logits, y)))
    cfg = mt.SumTransformerConfig(p=5, k=2, d=8, heads=2, head_width=4, mlp=8, steps=5, seeds=(3, 4), nan_check_every=1)
    with pytest.raises(TrainingDiverged) as err:
        mt.train_sum_transformer(cfg, CPU)
    assert err.value.trainer == "sum-transformer" and err.value.seeds == [4] and err.value.step == 1


def test_relu_modular_stops_when_its_weights_overflow() -> None:
    """An lr so large that the float32 weights overflow ends the run with TrainingDiverged, not NaN results."""
    with pytest.raises(TrainingDiverged) as err:
        train_relu_modular(ReluModularConfig(p=5, width=4, seeds=(0, 1), steps=3, lr=1e30), CPU)
    assert err.value.trainer == "relu-modular"
