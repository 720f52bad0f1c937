"""verify.train.modular_transformer: the residual switch, the answer loss, seed independence of the batched trainer, the
label-shuffled control, early stopping, and the even-split polynomial trainer (tiny, fast settings)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import verify.runtime.memory
from numerics.margins import evaluate
from numerics.modular import ModularTask
from numerics.modular_transformer import SplitModularTask, even_split, sum_sequences
from verify.runtime.memory import InsufficientMemoryError
from verify.runtime.options import RunOptions
from verify.train.attention import AttentionEnsemble
from verify.train.modular_transformer import (
    SumTransformer,
    SumTransformerConfig,
    _split_data,
    answer_cross_entropy,
    score_matrices,
    train_polynomial_split,
    train_sum_transformer,
    warmup_lr,
)
from verify.train.polynomial import TrainConfig

CPU = RunOptions(device="cpu")

TINY = SumTransformerConfig(p=5, k=2, d=8, heads=2, head_width=4, mlp=16, steps=12, eval_every=4, seeds=(0, 1))


def test_residual_model_is_the_shared_model():
    cfg = TINY.attention_config()
    ours = SumTransformer.create(cfg, (0, 1), dtype=torch.float64)
    shared = AttentionEnsemble.init(cfg, (0, 1), dtype=torch.float64)
    tokens = torch.randint(0, 6, (2, 7, 3))
    assert torch.equal(ours(tokens), shared(tokens))


def test_no_residual_forward_against_the_formula():
    cfg = TINY.replace(residual=False, layer_norm=False).attention_config()
    model = SumTransformer.create(cfg, (3,), residual=False, dtype=torch.float64)
    tokens = torch.tensor([[[1, 4, 5]]])
    P = {n: model.p(n)[0] for n in model.names()}
    z = P["embed"][tokens[0, 0]] + P["pos"][:3]  # (T, d)
    heads = []
    for h in range(2):
        q, k, v = z @ P["l0.q"][h], z @ P["l0.k"][h], z @ P["l0.v"][h]
        scores = (q @ k.T / 2.0).masked_fill(~torch.ones(3, 3, dtype=torch.bool).tril(), -float("inf"))
        heads.append(torch.softmax(scores, -1) @ v @ P["l0.o"][h])
    z = sum(heads)  # no residual
    z = F.gelu(z @ P["l0.mlp_in"] + P["l0.mlp_in_b"]) @ P["l0.mlp_out"] + P["l0.mlp_out_b"]
    want = z @ P["readout"] + P["readout_b"]
    assert torch.allclose(model(tokens)[0, 0], want, atol=1e-12)


def test_answer_cross_entropy_reads_the_last_position():
    logits = torch.randn(2, 5, 3, 7)
    targets = torch.randint(0, 7, (2, 5))
    want = torch.stack([F.cross_entropy(logits[s, :, -1], targets[s]) for s in range(2)])
    assert torch.allclose(answer_cross_entropy(logits, targets), want)


def test_warmup():
    assert [warmup_lr(1.0, 4, t) for t in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert warmup_lr(0.1, 0, 0) == 0.1


@pytest.mark.parametrize("batch_size", [None, 8])
def test_seeds_train_as_if_alone(batch_size):
    cfg = TINY.replace(dtype="float64", batch_size=batch_size)
    together = train_sum_transformer(cfg, CPU)
    alone = train_sum_transformer(cfg.replace(seeds=(1,)), CPU)
    for name, value in alone.params.items():
        assert torch.allclose(together.params[name][1], value[0], atol=1e-10), name
    assert together.history["val_acc"][-1][1] == alone.history["val_acc"][-1][0]


def test_history_split_and_score_matrices():
    run = train_sum_transformer(TINY, CPU)
    assert run.history["step"] == [0, 4, 8, 12] and run.steps_done == 12
    assert run.score_matrices.shape == (2, 1, 2, 5, 5)
    assert np.allclose(run.score_matrices, score_matrices(run.params, 1, 5))
    assert not np.allclose(run.score_matrices, run.initial_score_matrices)
    tr, va = even_split(25, 0)
    assert tr.size == 12 and va.size == 13


def test_shuffled_labels_are_a_permutation_of_the_training_labels():
    cfg = TINY.replace(shuffle_labels=True)
    _, y_shuf, _, y_val = _split_data(cfg, torch.device("cpu"))
    _, y_true, _, y_val2 = _split_data(TINY, torch.device("cpu"))
    assert torch.equal(y_val, y_val2)
    assert not torch.equal(y_shuf, y_true)
    assert torch.equal(y_shuf.sort(dim=1).values, y_true.sort(dim=1).values)


def test_early_stop_once_every_seed_reached_both_thresholds():
    run = train_sum_transformer(TINY.replace(stop_train_acc=0.01, stop_val_acc=0.01), CPU)
    assert run.stopped_early and run.steps_done == 0


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"p": 4}, "p must be an odd integer"),
        ({"seeds": (1, 1)}, "seeds"),
        ({"lr": 0.0}, "lr"),
        ({"betas": (0.9, 1.0)}, "betas"),
        ({"stop_train_acc": 0.9}, "stop_val_acc"),
        ({"dtype": "float16"}, "dtype"),
        ({"train_fraction": 1.0}, "train_fraction"),
        ({"positions": "rotary"}, "positions"),
        ({"stop_train_acc": 2.0, "stop_val_acc": 0.9}, r"stop_train_acc .* \(0, 1\]"),
        ({"stop_train_acc": 0.99, "stop_val_acc": 0.0}, r"stop_val_acc .* \(0, 1\]"),
        ({"stop_train_acc": float("nan"), "stop_val_acc": 0.9}, "stop_train_acc"),
        ({"init_std": 0.0}, "init_std"),
        ({"init_std": float("nan")}, "init_std"),
        ({"weight_decay": float("inf")}, "weight_decay"),
        ({"weight_decay": -1.0}, "weight_decay"),
        ({"head_width": -8}, "head_width"),
        ({"mlp": -1}, "mlp"),
        ({"d": 0}, "d must be"),
        ({"steps": -1}, "steps"),
    ],
)
def test_config_validation(changes, match):
    with pytest.raises(ValueError, match=match):
        TINY.replace(**changes)


def test_polynomial_split_trainer():
    cfg = TrainConfig(steps=30, lr=5e-3, optimizer="adamw", weight_decay=1.0, seeds=(0, 1), eval_every=10)
    run = train_polynomial_split(5, 2, 16, cfg, CPU)
    assert run.train_indices.size + run.test_indices.size == 25
    assert not set(run.train_indices) & set(run.test_indices)
    assert run.test_history["step"] == [0, 10, 20, 30]
    assert len(run.test_accuracy) == 2 and all(0 <= a <= 1 for a in run.all_accuracy)
    assert run.result.networks[0].U.shape == (16, 2, 5)
    test_task = SplitModularTask(5, 2, tuple(run.test_indices))  # numpy float64 oracle for the torch metrics
    assert run.test_accuracy == pytest.approx([evaluate(net, test_task).accuracy for net in run.result.networks])
    assert run.all_normalized_margin == pytest.approx(
        [evaluate(net, ModularTask(5, 2)).normalized_margin for net in run.result.networks], rel=1e-9
    )


def test_transformer_run_checks_its_memory_first(monkeypatch) -> None:
    """The Shi Sec. 4.5 trainer checks the attention memory estimate against the free memory before its first
    update (issue 18: the attention models get the same treatment), and the run-wide override lets it start."""
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1000)
    with pytest.raises(InsufficientMemoryError, match="attention training"):
        train_sum_transformer(TINY.replace(steps=2))
    assert train_sum_transformer(TINY.replace(steps=2), RunOptions(ignore_memory_check=True)).steps_done == 2


@pytest.mark.parametrize("positions", ["absolute", "relative"])
def test_answer_logits_are_the_last_position_of_the_forward_pass(positions):
    """The training loss and the accuracies read :meth:`SumTransformer.answer_logits`, which skips the work no
    answer depends on; it must equal the forward pass at the last position (one and two layers, with and without
    residual connections and MLP)."""
    for layers, residual, mlp in ((1, True, 16), (2, True, 16), (2, False, 0)):
        cfg = SumTransformerConfig(p=7, k=3, layers=layers, d=8, heads=2, mlp=mlp, positions=positions, seeds=(0, 1))
        model = SumTransformer.create(cfg.attention_config(), cfg.seeds, residual=residual, dtype=torch.float64)
        tokens = torch.as_tensor(sum_sequences(7, 3)[0][:50])
        full = model(tokens)[:, :, -1]
        assert torch.allclose(model.answer_logits(tokens), full, atol=1e-12, rtol=1e-10)


def test_stop_hold_is_validated():
    """``stop_hold`` (the early stop waits for the validation threshold held at the last h evaluations) is a count."""
    assert SumTransformerConfig(p=7, k=2, stop_hold=3).stop_hold == 3
    with pytest.raises(ValueError, match="stop_hold"):
        SumTransformerConfig(p=7, k=2, stop_hold=-1)
