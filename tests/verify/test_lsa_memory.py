"""Memory check and time estimate of the LSA trainers (Shi Ch. 5; docs/lsa.md, docs/training.md): population and SGD
training refuse a run whose estimate exceeds the free memory unless the run-wide override is set, the estimate
bounds the measured peak (within a factor 3 for SGD), and a long run prints its estimate."""

from __future__ import annotations

import numpy as np
import pytest

import verify.runtime.memory
from verify.runtime.loop import torch_threads
from verify.runtime.memory import InsufficientMemoryError
from verify.runtime.options import RunOptions
from verify.train import lsa as vl

from .peak_memory import PeakBytes

FACTOR = 3.0  # SGD: the estimate is at most this many times the measured peak (measured 1.3-2)
LAM = np.diag([1.0, 1.5, 2.0, 2.5])
CPU = RunOptions(device="cpu")  # the LSA trainers' old default device (RunOptions defaults to "auto")


@pytest.fixture(autouse=True)
def _one_thread():
    with torch_threads(1):
        yield


def test_memory_estimate_is_the_stated_count():
    """Hand count of the docstring for S = 2, d = 3, r = 2, N = 5, batch 7 (float64)."""
    reduced_params = 2 * (2 * 3 * 2 + 1)
    full_params = 2 * (2 * 2 * 4 + 4 * 4)
    vectors = 4 * 6 + 4 * 4  # four (N+1) and four (d+1) per prompt
    assert vl.memory_estimate("reduced", 2, 3, 2, 5, 7) == 8 * (4 * reduced_params + 2 * 7 * (2 * 4 * 6 + vectors))
    assert vl.memory_estimate("full", 2, 3, 2, 5, 7) == 8 * (4 * full_params + 2 * 7 * (3 * 4 * 6 + vectors))
    polish = 4 + 2 * vl.LBFGS_HISTORY + 8
    assert vl.memory_estimate("population", 2, 3, 2, 5) == 8 * (reduced_params * polish + 24 * 2 * 9)
    assert vl.memory_estimate("population", 2, 3, 2, 5, polish=False) == 8 * (reduced_params * 4 + 24 * 2 * 9)
    with pytest.raises(ValueError, match="model"):
        vl.memory_estimate("linear", 1, 3, 2, 5)


@pytest.mark.parametrize("model", ["reduced", "full"])
@pytest.mark.parametrize("d, N, r, S, batch", [(4, 10, 2, 3, 64), (3, 40, 1, 4, 32), (2, 2, 1, 2, 16)])
def test_sgd_memory_estimate_bounds_the_measured_peak(model, d, N, r, S, batch):
    Lam = np.diag(np.linspace(1.0, 2.0, d))
    with PeakBytes() as pb:
        vl.train_sgd(vl.SGDConfig(Lam, N, r, tuple(range(S)), model=model, steps=3, batch=batch), CPU)
    estimate = vl.memory_estimate(model, S, d, r, N, batch)
    assert pb.peak <= estimate <= FACTOR * pb.peak, (pb.peak, estimate)


@pytest.mark.parametrize("polish_steps", [0, 200])
def test_population_memory_estimate_bounds_the_measured_peak(polish_steps):
    """The population run is tiny (kilobytes): the estimate need only be an upper bound, within 4x."""
    with PeakBytes() as pb:
        vl.train_population(vl.PopulationConfig(LAM, 10, 2, (0, 1, 2), steps=3, polish_steps=polish_steps), CPU)
    estimate = vl.memory_estimate("population", 3, 4, 2, 10, polish=bool(polish_steps))
    assert pb.peak <= estimate <= 4 * pb.peak, (pb.peak, estimate)


def test_absurd_batches_are_refused_before_anything_is_allocated():
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check") as err:
        vl.train_sgd(vl.SGDConfig(LAM, 10**6, 2, (0,), batch=10**8, steps=1), CPU)
    assert "lower batch" in str(err.value)


@pytest.mark.parametrize(
    "run",
    [
        lambda options: vl.train_population(vl.PopulationConfig(LAM, 10, 2, (0, 1), steps=3, polish_steps=2), options),
        lambda options: vl.train_sgd(vl.SGDConfig(LAM, 10, 2, (0, 1), model="reduced", steps=3, batch=8), options),
        lambda options: vl.train_sgd(vl.SGDConfig(LAM, 10, 2, (0, 1), model="full", steps=3, batch=8), options),
    ],
    ids=["population", "reduced", "full"],
)
def test_short_memory_refuses_unless_overridden(monkeypatch, run):
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1000)
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check"):
        run(CPU)
    assert len(run(CPU.replace(ignore_memory_check=True)).seeds) == 2


def test_a_long_run_prints_its_estimate(monkeypatch, capsys):
    steps = verify.runtime.memory.PROBE_STEPS + 3
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    vl.train_sgd(vl.SGDConfig(LAM, 10, 2, (0, 1), steps=steps, batch=8), CPU)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("LSA SGD (reduced) r=2: 2 seed(s), about"), lines
    assert "GiB peak" in lines[0] and "ms per step, 3 steps left" in lines[0]
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 1e9)
    vl.train_population(vl.PopulationConfig(LAM, 10, 2, (0,), steps=steps, polish_steps=0), CPU)
    assert capsys.readouterr().err == ""
