"""The polynomial trainer's bookkeeping (verify/train/polynomial.py), without training: the metrics of two hand-made
networks computed by hand, and TrainConfig's checks at their boundaries."""

from __future__ import annotations

import math

import pytest
import torch

from verify.train.homogeneous import HomogeneousEnsemble
from verify.train.polynomial import TrainConfig, ensemble_metrics


def _two_networks() -> HomogeneousEnsemble:
    """Degree 2 (nu = 3), one neuron, one block over two symbols, three classes.

    Seed 0: u = (1, -2), w = (2, 1, 0): logits (2, 1, 0) at symbol 0 and (8, 4, 0) at symbol 1.
    Seed 1: u = (0, 1), w = (1, 1, 0): logits (0, 0, 0) at symbol 0 and (1, 1, 0) at symbol 1 (ties).
    """
    U = torch.tensor([[[[1.0, -2.0]]], [[[0.0, 1.0]]]], dtype=torch.float64)
    W = torch.tensor([[[2.0, 1.0, 0.0]], [[1.0, 1.0, 0.0]]], dtype=torch.float64)
    return HomogeneousEnsemble(U, W, degree=2)


def test_metrics_of_hand_made_networks() -> None:
    """Accuracy counts a strictly largest correct logit only (a tie is an error); margin, norm power, mean
    cross-entropy, the regulariser lambda (||theta||^nu)^(r/nu) and the ratio are those of the formulas."""
    inputs, labels = torch.tensor([[0], [1]]), torch.tensor([1, 0])
    rec = ensemble_metrics(_two_networks(), inputs, labels, lam=0.1, reg_power=2.0, reference_margin=0.5)
    assert rec["accuracy"] == [0.5, 0.0]
    assert rec["margin"] == [-1.0, 0.0]  # seed 0: 1 - 2 at symbol 0; seed 1: ties, 0
    # ||theta||^2 = (1 + 4) + (4 + 1) = 10 and (0 + 1) + (1 + 1) = 3, raised to nu / 2 = 3/2
    assert rec["norm_power"] == pytest.approx([10**1.5, 3**1.5])
    ce0 = ((math.log(math.exp(2) + math.exp(1) + 1) - 1) + (math.log(math.exp(8) + math.exp(4) + 1) - 8)) / 2
    ce1 = (math.log(3) + (math.log(2 * math.e + 1) - 1)) / 2
    assert rec["cross_entropy"] == pytest.approx([ce0, ce1])
    # r / nu = 2/3: (10^1.5)^(2/3) = 10 and (3^1.5)^(2/3) = 3
    assert rec["loss"] == pytest.approx([ce0 + 0.1 * 10, ce1 + 0.1 * 3])
    assert rec["normalized_margin"] == pytest.approx([-(10**-1.5), 0.0])
    assert rec["ratio"] == pytest.approx([-(10**-1.5) / 0.5, 0.0])


@pytest.mark.parametrize(
    "change, name",
    [
        ({"steps": -1}, "steps"),
        ({"lr_doublings": (-5, 10)}, "lr_doublings"),
        ({"warmup_steps": -1}, "warmup_steps"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"batch_size": 0}, "batch_size"),
        ({"checkpoint_every": 0}, "checkpoint_every"),
        ({"lr": True}, "lr"),
        ({"reg_power": 0.0}, "reg_power"),
        ({"eval_every": 0}, "eval_every"),
        ({"nan_check_every": 0}, "nan_check_every"),
    ],
)
def test_train_config_refuses_values_just_outside_the_range(change, name) -> None:
    """Each field's first invalid value is refused with a message naming it."""
    with pytest.raises(ValueError, match=name):
        TrainConfig(**{"steps": 10, "lr": 1e-2, **change})


def test_train_config_accepts_the_range_edges() -> None:
    """The first valid values of the same fields are accepted."""
    cfg = TrainConfig(steps=0, lr=1e-2, lr_doublings=(0, 0, 3), warmup_steps=0, chunk_size=1, batch_size=1)
    assert cfg.lr_doublings == (0, 0, 3)
