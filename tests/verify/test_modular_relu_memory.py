"""Memory check and time estimate of the ReLU modular-addition trainer (Edelman Fig. 7.1a; docs/modular.md): a run
whose estimate exceeds the free memory is refused unless the run-wide override is set, the estimate bounds the
measured peak within a factor 3, and a long run prints its estimate."""

from __future__ import annotations

import pytest

import verify.runtime.memory
from verify.runtime.memory import InsufficientMemoryError
from verify.runtime.options import RunOptions
from verify.train.modular_relu import ReluModularConfig, memory_estimate, train_relu_modular

from .peak_memory import PeakBytes

FACTOR = 3.0  # the estimate is an upper estimate, at most this many times the measured peak (measured 1.4-2.3)
CPU = RunOptions(device="cpu")


def test_memory_estimate_is_the_stated_count():
    """Hand count of the docstring for p = 5, width 3, two seeds: float32 floats, int64 pairs and labels."""
    cfg = ReluModularConfig(p=5, width=3, seeds=(0, 1))
    floats = 2 * (6 * 3 * 3 * 5 + 4 * 3 * 25 + 5 * 125)
    assert memory_estimate(cfg) == 4 * floats + 8 * (3 + 2 * 2) * 25


@pytest.mark.parametrize("p, width, S", [(7, 16, 2), (11, 32, 3), (13, 13, 4)])
def test_memory_estimate_bounds_the_measured_peak(p, width, S):
    cfg = ReluModularConfig(p=p, width=width, seeds=tuple(range(S)), steps=3, eval_every=2)
    with PeakBytes() as pb:
        train_relu_modular(cfg, CPU)
    assert pb.peak <= memory_estimate(cfg) <= FACTOR * pb.peak, (pb.peak, memory_estimate(cfg))


def test_absurd_sizes_are_refused_before_anything_is_allocated():
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check") as err:
        train_relu_modular(ReluModularConfig(p=10**4, width=10**5), CPU)
    assert "lower width" in str(err.value)


def test_short_memory_refuses_unless_overridden(monkeypatch):
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1000)
    cfg = ReluModularConfig(p=5, width=4, seeds=(0, 1), steps=2, eval_every=1)
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check"):
        train_relu_modular(cfg, CPU)
    assert [r["step"] for r in train_relu_modular(cfg, CPU.replace(ignore_memory_check=True)).history] == [0, 1, 2]


def test_a_long_run_prints_its_estimate(monkeypatch, capsys):
    cfg = ReluModularConfig(p=5, width=4, seeds=(0,), steps=verify.runtime.memory.PROBE_STEPS + 3, eval_every=100)
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    train_relu_modular(cfg, CPU)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ReLU mod-5: 1 seed(s), about"), lines
    assert "GiB peak" in lines[0] and "ms per step (updates only), 3 steps left" in lines[0]  # ends before step 100
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 1e9)
    train_relu_modular(cfg, CPU)
    assert capsys.readouterr().err == ""
