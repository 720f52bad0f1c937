"""The local-signal trainer's bookkeeping (verify/train/local_signal.py), without training: the signal direction, the
initial weights, the reduced simulator's test accuracy in the noise-free limit, and the configuration's edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from verify.train import local_signal as vs


def test_signal_direction_is_the_unit_diagonal() -> None:
    """w_* has equal entries and unit norm."""
    for d in (1, 4, 10):
        w = vs.w_star(d)
        assert w.shape == (d,) and np.allclose(w, w[0]) and math.isclose(np.linalg.norm(w), 1.0)


def test_initial_weights_have_the_configured_norm_and_depend_on_their_seed_only() -> None:
    """Each seed's w^(0) has norm init_norm, and is the same in any ensemble."""
    cfg = vs.SignalTrainConfig(k=10, d=5, init_norm=0.3, seeds=(4, 9, 2))
    w0 = vs.initial_state(cfg)
    np.testing.assert_allclose(np.linalg.norm(w0, axis=1), 0.3)
    np.testing.assert_array_equal(
        w0[1], vs.initial_state(vs.SignalTrainConfig(k=10, d=5, init_norm=0.3, seeds=(9,)))[0]
    )


def test_noise_free_reduced_accuracy() -> None:
    """Without noise (sigma = 0), f = y phi_b(c): a positive signal classifies every input, zero weights none
    (y f = 0 is not a correct prediction)."""
    gen = torch.Generator().manual_seed(0)
    c = torch.tensor([0.5, 0.0], dtype=torch.float64)
    zero = torch.zeros(2, dtype=torch.float64)
    acc = vs._reduced_accuracy(gen, c, zero, zero, sigma=0.0, k=7, n=50)
    assert acc.tolist() == [1.0, 0.0]


def test_bias_learning_rate_factor_zero_freezes_the_bias() -> None:
    """lr_b_factor = 0 (a frozen bias) is valid; a negative one is not; no seeds is refused."""
    assert vs.SignalTrainConfig(k=10, lr_b_factor=0.0).lr_b == 0.0
    with pytest.raises(ValueError, match="lr_b_factor"):
        vs.SignalTrainConfig(k=10, lr_b_factor=-0.1)
    with pytest.raises(ValueError, match="seeds"):
        vs.SignalTrainConfig(k=10, seeds=())
