"""Memory check and time estimate of the local-signal SGD (Karp Ch. 3; docs/local_signal.md): both simulators refuse
a run whose estimate exceeds the free memory unless the run-wide override is set, the estimate bounds the measured
peak within a factor 3, and a long run prints its estimate."""

from __future__ import annotations

from dataclasses import replace

import pytest

import verify.runtime.memory
from verify.runtime.loop import torch_threads
from verify.runtime.memory import InsufficientMemoryError
from verify.runtime.options import RunOptions
from verify.train import local_signal as vs

from .peak_memory import PeakBytes

FACTOR = 3.0  # the estimate is an upper estimate, at most this many times the measured peak (measured 1.1-2.3)
SIMULATORS = ("reduced", "direct")
CPU = RunOptions(device="cpu")


def _cfg(simulator: str, **kw) -> vs.SignalTrainConfig:
    base = dict(k=50, d=6, batch=32, steps=3, eval_every=2, n_test=64, seeds=(0, 1), simulator=simulator)
    return vs.SignalTrainConfig(**(base | kw))


def test_memory_estimate_is_the_stated_count():
    """Hand count of the docstring (float64): eight S n k buffers (reduced); S n (k+1) rows of 3 d + 8 (direct),
    n the batch or the evaluation chunk."""
    cfg = _cfg("reduced", k=10, batch=7, n_test=5, seeds=(0, 1, 2))
    assert vs.memory_estimate(cfg) == 8 * 8 * 3 * 7 * 10
    assert vs.memory_estimate(replace(cfg, n_test=9), itemsize=4) == 4 * 8 * 3 * 9 * 10
    direct = replace(cfg, simulator="direct", d=4)
    assert vs.memory_estimate(direct) == 8 * 3 * 7 * 11 * (3 * 4 + 8)
    big = replace(direct, n_test=10**6)  # evaluation chunks of EVAL_CHUNK_ELEMENTS // (S (k+1) d) inputs
    assert vs.memory_estimate(big) == 8 * 3 * (vs.EVAL_CHUNK_ELEMENTS // (3 * 11 * 4)) * 11 * (3 * 4 + 8)


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("k, d, batch, n_test, S", [(50, 10, 64, 100, 3), (200, 5, 32, 32, 2), (2, 1, 8, 500, 1)])
def test_memory_estimate_bounds_the_measured_peak(simulator, k, d, batch, n_test, S):
    cfg = _cfg(simulator, k=k, d=d, batch=batch, n_test=n_test, seeds=tuple(range(S)))
    with torch_threads(1), PeakBytes() as pb:
        vs.train_signal(cfg, CPU)
    estimate = vs.memory_estimate(cfg)
    assert pb.peak <= estimate <= FACTOR * pb.peak, (pb.peak, estimate)


@pytest.mark.parametrize("simulator", SIMULATORS)
def test_absurd_sizes_are_refused_before_anything_is_allocated(simulator):
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check") as err:
        vs.train_signal(_cfg(simulator, k=10**6, batch=10**7), CPU)
    assert "batch" in str(err.value)


@pytest.mark.parametrize("simulator", SIMULATORS)
def test_short_memory_refuses_unless_overridden(monkeypatch, simulator):
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1000)
    cfg = _cfg(simulator, num_threads=1)
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check"):
        vs.train_signal(cfg, CPU)
    assert vs.train_signal(cfg, CPU.replace(ignore_memory_check=True)).steps.tolist() == [0, 2, 3]


def test_a_long_run_prints_its_estimate(monkeypatch, capsys):
    cfg = _cfg("reduced", steps=verify.runtime.memory.PROBE_STEPS + 3, num_threads=1)
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    vs.train_signal(cfg, CPU)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("local signal (reduced, k=50): 2 seed(s), about"), lines
    assert "GiB peak" in lines[0] and "ms per step (with its evaluation every 2 steps), 2 steps left" in lines[0]
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 1e9)
    vs.train_signal(cfg, CPU)
    assert capsys.readouterr().err == ""
