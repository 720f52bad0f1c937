"""The sparse-parity trainer's bookkeeping (verify/train/sparse_parity.py), without training: the validation and
training accuracy of hand-made networks (f = 0 an error), the memory estimate by hand count, the documented defaults
and the configuration's boundaries."""

from __future__ import annotations

import itertools

import pytest
import torch

import verify.train.sparse_parity as sp
from verify.train.sparse_parity import SparseParityConfig, _evaluate, _train_accuracy, activation_fn


def _cfg(**kw) -> SparseParityConfig:
    base = dict(n=8, k=3, width=4, steps=20, eval_every=5, n_val=64, seeds=(0, 1), dtype="float64")
    return SparseParityConfig(**{**base, **kw})


def _linear_pair() -> tuple[SparseParityConfig, dict[str, torch.Tensor]]:
    """PolyNet with k = 1 computes w.x + b: seed 0 is x_1 (the parity chi_{1}), seed 1 is the zero function."""
    cfg = _cfg(n=2, k=1, arch="polynet", loss="hinge")
    W = torch.tensor([[[1.0, 0.0]], [[0.0, 0.0]]], dtype=torch.float64)
    return cfg, {"W": W, "b": torch.zeros(2, 1, dtype=torch.float64)}


def test_validation_accuracy_and_loss_of_hand_made_networks() -> None:
    """On the four points of {-1, 1}^2: the parity itself is always right with hinge loss 0; the zero function
    (sign 0) is always wrong, with hinge loss 1 per point (a mean over points)."""
    cfg, params = _linear_pair()
    x = torch.tensor(list(itertools.product([-1.0, 1.0], repeat=2)), dtype=torch.float64)
    acc, loss = _evaluate(cfg, params, activation_fn("relu", 1), x, x[:, 0])
    assert acc.tolist() == [1.0, 0.0]
    assert loss.tolist() == [0.0, 1.0]


def test_training_accuracy_counts_f_zero_as_an_error() -> None:
    """Each seed's accuracy on its own int8 sample: the parity 1, the zero function 0."""
    cfg, params = _linear_pair()
    x = torch.tensor(list(itertools.product([-1, 1], repeat=2)), dtype=torch.int8).expand(2, 4, 2)
    assert _train_accuracy(cfg, params, activation_fn("relu", 1), x, x[:, :, 0]).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("arch, rows", [("mlp", 4), ("polynet", 3)])
def test_memory_estimate_is_the_stated_count(arch, rows) -> None:
    """Hand count of the docstring for n = 8, batch 32, two seeds, 64 validation points, float32, online and
    offline (m = 100)."""
    cfg = _cfg(arch=arch)
    chunk = sp.DATA_CHUNK_ELEMENTS // (32 * 8)  # batches per refill
    batch = 2 * 32 * 9 * 4 + 4 * 2 * 32 * rows * 4  # the float batch (inputs and labels), four (E, B, rows) buffers
    params = 5 * 2 * rows * (8 + 2) * 4  # W (rows, n), b and u (rows): five copies
    validation = 64 * 9 * 4
    evaluation = 3 * 2 * 64 * rows * 4  # below EVAL_CHUNK_ELEMENTS
    online = 2 * chunk * 32 * 9  # int8 inputs and labels of one refill per seed
    assert sp.memory_estimate(cfg) == online + batch + params + validation + evaluation
    offline = 2 * 100 * (8 + 8) + 2 * chunk * 32 * 8  # int8 samples with int64 indices, an int64 index refill
    assert sp.memory_estimate(cfg.replace(mode="offline", n_train=100)) == (
        offline + batch + params + validation + evaluation
    )


def test_documented_defaults_of_the_evaluation() -> None:
    """n_val None: 8192 points online, 10^4 offline; target_error None: 0 online, 0.1 offline."""
    online = _cfg(n_val=None)
    offline = _cfg(n_val=None, mode="offline", n_train=50)
    assert (online.n_eval, offline.n_eval) == (8192, 10_000)
    assert (online.error_target, offline.error_target) == (0.0, 0.1)
    assert _cfg(target_error=0.25).error_target == 0.25


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(mode="offline", n_train=0), "n_train"),
        (dict(target_error=1.0), "target_error"),
        (dict(seeds=(-1, 2)), "seeds"),
        (dict(n=3, k=3, width=1, fourier_gap=True), "k < n"),
    ],
)
def test_values_just_outside_the_range_are_refused(kw, match) -> None:
    """The first invalid value of each field is refused naming it."""
    with pytest.raises(ValueError, match=match):
        _cfg(**kw)


def test_the_range_edges_are_accepted() -> None:
    """k = n (the full parity), sparsity = n, one training point and target error 0 are valid."""
    assert _cfg(n=3, k=3).k == 3
    assert _cfg(init="sparse", sparsity=8).sparsity == 8
    assert _cfg(mode="offline", n_train=1).n_train == 1
    assert _cfg(target_error=0.0).error_target == 0.0
