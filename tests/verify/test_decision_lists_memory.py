"""Memory check and time estimate of the decision-list trainers (Karp Ch. 4; docs/decision_lists.md): population GD
on W, one GD step of V and the Hessian refuse a run whose estimate exceeds the free memory unless the run-wide
override is set, the estimate bounds the measured peak within a factor 3, and a long run prints its estimate."""

from __future__ import annotations

import math

import pytest
import torch

import verify.runtime.memory
from theory import decision_lists as td
from verify.runtime.loop import torch_threads
from verify.runtime.memory import InsufficientMemoryError
from verify.runtime.options import RunOptions
from verify.train import decision_lists as vd

from .peak_memory import PeakBytes

FACTOR = 3.0  # the estimate is an upper estimate, at most this many times the measured peak (measured 1.3-2.4)
CPU = RunOptions(device="cpu")  # the trainers' old default device (RunOptions defaults to "auto")


@pytest.fixture(autouse=True)
def _one_thread():
    with torch_threads(1):
        yield


def _tasks(L: int, S: int) -> list[td.DecisionListTask]:
    return [td.random_task(L, min(L, 4), s, min_length=1) for s in range(S)]


def _runs(L: int, n: int, S: int, options: RunOptions = CPU) -> dict:
    """The three runs with ``options`` (the Hessian takes the device and the memory override from them)."""
    tasks = _tasks(L, S)
    cfg = vd.PopulationGDConfig(tasks, n, [2.0] * S, [0.5] * S, 2, seeds=tuple(range(S)))
    return {
        "population": lambda: vd.population_gd_w(cfg, options),
        "one_step": lambda: vd.one_gd_step_v(
            tasks[0], n, 1.0, v0_std=1.0, samples=400, chunks=2, seed=0, options=options
        ),
        "hessian": lambda: vd.hessian_lambda_max(
            tasks[0], n, 2.0, device=options.device, ignore_memory_check=options.ignore_memory_check
        ),
    }


def _estimates(L: int, n: int, S: int) -> dict[str, int]:
    return {
        "population": vd.memory_estimate(S, math.comb(L, n), n, L),
        "one_step": vd.memory_estimate(1, 200, n, L),
        "hessian": vd.hessian_memory_estimate(math.comb(L, n), n, L),
    }


def test_memory_estimate_is_the_stated_count():
    """Hand count of the docstring for S = 2 seeds, B = 3 sequences, n = 2, L = 5 (float64 and int64: 8 bytes)."""
    per_sequence = 4 * 2 * 2 + 5 * 2 * 5  # four (n, n) and five (n, L) buffers
    shared = 3 * (2 + 4) + 2 * 3 * 2 + 4 * 2 * 25  # tokens and index, labels, W/V/grad/step
    assert vd.memory_estimate(2, 3, 2, 5) == 8 * (2 * 3 * per_sequence + shared)
    assert vd.hessian_memory_estimate(3, 2, 5) == 8 * 4 * 5**4 + 2 * vd.memory_estimate(1, 3, 2, 5)


@pytest.mark.parametrize("L, n, S", [(9, 3, 3), (8, 8, 2), (12, 4, 1)])
def test_memory_estimate_bounds_the_measured_peak(L, n, S):
    for name, run in _runs(L, n, S).items():
        with PeakBytes() as pb:
            run()
        estimate = _estimates(L, n, S)[name]
        assert pb.peak <= estimate <= FACTOR * pb.peak, (name, pb.peak, estimate)


def test_absurd_sizes_are_refused_before_anything_is_allocated():
    """10^10 sequences per chunk (about 190 TB by the estimate): refused with the real free memory, before a
    sequence is drawn."""
    tasks = _tasks(40, 1)
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check"):
        vd.one_gd_step_v(tasks[0], 10, 1.0, v0_std=1.0, samples=2 * 10**10, chunks=2, seed=0, options=CPU)


@pytest.mark.parametrize("name", ["population", "one_step", "hessian"])
def test_short_memory_refuses_unless_overridden(monkeypatch, name):
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1000)
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check") as err:
        _runs(6, 3, 2)[name]()
    assert "needs about" in str(err.value)
    _runs(6, 3, 2, CPU.replace(ignore_memory_check=True))[name]()


def test_population_gd_prints_its_estimate_before_a_long_run(monkeypatch, capsys):
    tasks = _tasks(6, 2)
    cfg = vd.PopulationGDConfig(tasks, 3, [2.0, 2.0], [0.5, 0.5], verify.runtime.memory.PROBE_STEPS + 3, seeds=(0, 1))
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    vd.population_gd_w(cfg, CPU)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("population GD on W (L=6, n=3): 2 seed(s), about"), lines
    assert "GiB peak" in lines[0] and "ms per step (with its evaluation every step), 3 steps left" in lines[0]
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 1e9)
    vd.population_gd_w(cfg, CPU)
    assert capsys.readouterr().err == ""


def test_the_check_changes_no_number(monkeypatch):
    """The hook only reads a clock: results with and without the long-run print are equal bit for bit."""
    tasks = _tasks(6, 2)
    cfg = vd.PopulationGDConfig(tasks, 3, [2.0, 2.0], [0.5, 0.5], 8, seeds=(0, 1))
    ref = vd.population_gd_w(cfg, CPU)
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    again = vd.population_gd_w(cfg, CPU)
    assert torch.equal(torch.as_tensor(ref.W), torch.as_tensor(again.W)) and ref.loss.tolist() == again.loss.tolist()
