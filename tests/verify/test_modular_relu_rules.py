"""The ReLU modular trainer's cost model and checks (verify/train/modular_relu.py): the multiply-adds of one update
against torch's flop counter, the initial scales, the significant-neuron rule and the configuration's edges."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from torch.utils.flop_counter import FlopCounterMode

from verify.runtime.options import RunOptions
from verify.train import modular_relu as vr

CPU = RunOptions(device="cpu")


def _flops(cfg: vr.ReluModularConfig) -> int:
    with FlopCounterMode(display=False) as counter:
        vr.train_relu_modular(cfg, CPU)
    return counter.get_total_flops()


def test_step_multiply_adds_equal_the_products_torch_counts() -> None:
    """One more update costs the multiply-adds torch's flop counter sees (two runs with the same evaluations)."""
    cfg = vr.ReluModularConfig(p=5, width=6, seeds=(0, 1), steps=1, eval_every=500)
    one_update = _flops(dataclasses.replace(cfg, steps=2)) - _flops(cfg)
    assert vr.step_multiply_adds(cfg) == one_update / 2  # a multiply-add is two flops


def test_initial_weights_have_the_documented_scales() -> None:
    """U, V entries are N(0, c^2 / p) and W entries N(0, c^2 / m), c = init_scale."""
    cfg = vr.ReluModularConfig(p=7, width=3000, init_scale=2.0)
    params = vr._init(cfg, 0)
    for name, fan in (("U", 7), ("V", 7), ("W", 3000)):
        assert float(params[name].std()) == pytest.approx(2.0 / fan**0.5, rel=0.05), name


def test_significant_neurons_reach_the_relative_mass() -> None:
    """A neuron is significant when its mass is at least rel_mass times the seed's largest (inclusive)."""
    mass = np.array([[2.0, 2e-3, 1e-3], [1.0, 0.5, 0.0]])
    result = vr.ReluModularResult((0, 1), np.zeros(2), np.zeros(2), mass, np.ones_like(mass), [])
    np.testing.assert_array_equal(result.significant(1e-3), [[True, True, False], [True, True, False]])


def test_config_edges() -> None:
    """p >= 3 and at least one step: p = 3 and steps = 1 are valid, p = 2 and steps = 0 are not."""
    assert vr.ReluModularConfig(p=3, width=1, steps=1).p == 3
    for bad, name in (({"p": 2}, "p must be"), ({"steps": 0}, "steps")):
        with pytest.raises(ValueError, match=name):
            vr.ReluModularConfig(**{"p": 5, "width": 2, **bad})
