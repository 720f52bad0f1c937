"""verify.runtime.memory: the memory check and long-run estimate of the trainers without an attention model."""

from __future__ import annotations

import pytest
import torch

import verify.runtime.memory
from verify.runtime.memory import OVERRIDE_HINT, PROBE_STEPS, InsufficientMemoryError, preflight
from verify.runtime.options import RunOptions
from verify.train.modular_relu import ReluModularConfig, train_relu_modular

CPU = torch.device("cpu")


def _run(need: int, steps: int = 10, **kw) -> None:
    at = preflight(need, CPU, "a toy run", "lower width", steps=steps, n_seeds=3, desc="toy", **kw)
    for t in range(steps):
        at(t)


def test_refuses_with_the_remedy_and_the_override(monkeypatch):
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 2**30)
    with pytest.raises(InsufficientMemoryError) as err:
        _run(2**31)
    assert str(err.value).startswith("a toy run needs about 2.00 GiB on cpu")
    assert str(err.value).endswith(f"lower width, {OVERRIDE_HINT}") and "tvk --ignore-memory-check" in OVERRIDE_HINT
    _run(2**29)  # fits in 85 % of the free memory
    _run(2**31, ignore=True)


def test_a_trainer_refuses_unless_its_run_options_override(monkeypatch):
    """The run-wide override RunOptions(ignore_memory_check=True) reaches the check of a trainer using preflight."""
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1)
    cfg = ReluModularConfig(p=5, width=4, seeds=(0,), steps=2, eval_every=1)
    with pytest.raises(InsufficientMemoryError, match="ReLU modular training of 1 seeds") as err:
        train_relu_modular(cfg, RunOptions(device="cpu"))
    assert str(err.value).endswith(f"lower width or train fewer seeds per call, {OVERRIDE_HINT}")
    res = train_relu_modular(cfg, RunOptions(device="cpu", ignore_memory_check=True))
    assert [rec["step"] for rec in res.history] == [0, 1, 2]


def test_prints_one_line_with_memory_and_time_only_for_a_long_run(monkeypatch, capsys):
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    _run(3 * 2**29, steps=PROBE_STEPS + 4)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("toy: 3 seed(s), about 1.50 GiB peak, "), lines
    assert lines[0].endswith("4 steps left: about 0 s")
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 1e9)
    _run(3 * 2**29, steps=PROBE_STEPS + 4)
    assert capsys.readouterr().err == ""
