"""verify.runtime.memory: the memory check and long-run estimate of the trainers without an attention model."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import verify.runtime.memory
from verify.runtime.memory import (
    ESTIMATE_WAIT_S,
    OVERRIDE_HINT,
    PROBE_STEPS,
    InsufficientMemoryError,
    RunEstimate,
    preflight,
)
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


def _timed_run(monkeypatch, steps: int, update_s: float, eval_s: float, eval_every: int, start: int = 0) -> list[str]:
    """The lines a RunEstimate logs on a clock that advances ``update_s`` an update and ``eval_s`` an evaluation, the
    evaluation of step t coming before update t, as in run_loop."""
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(verify.runtime.memory, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    lines: list[str] = []
    at = RunEstimate(steps, 1, "toy", lines.append, eval_every=eval_every)
    for t in range(start, steps):
        if t % eval_every == 0:
            clock.now += eval_s
        at(t, None)
        clock.now += update_s
    return lines


def test_the_estimate_counts_the_evaluations(monkeypatch):
    """Updates of 1 s and a 9 s evaluation every 10 steps: 1.9 s a step, where the first updates alone say 1 s."""
    lines = _timed_run(monkeypatch, 1000, 1.0, 9.0, 10)
    assert lines == [
        "toy: 1 seed(s), 1.9 s per step (with its evaluation every 10 steps), 990 steps left: about 31.4 min"
    ]


@given(st.integers(0, 400), st.integers(1, 200))
def test_any_start_times_whole_evaluation_periods(start, every):
    """A resumed run starts anywhere: its window still holds one evaluation per ``eval_every`` updates (0.5 s
    updates and ``every / 4`` s evaluations: 0.75 s a step, exactly in binary)."""
    with pytest.MonkeyPatch.context() as mp:
        lines = _timed_run(mp, 10_000, 0.5, every / 4, every, start)
    window = -(-PROBE_STEPS // every) * every
    left = 10_000 - start - window
    assert lines[-1].endswith(
        f"750 ms per step (with its evaluation {'every step' if every == 1 else f'every {every} steps'}), {left} "
        "steps left: about "
        f"{verify.runtime.memory.format_seconds(0.75 * left)}"
    )
    first_updates_alone = start // every == (start + PROBE_STEPS) // every
    assert len(lines) == (2 if first_updates_alone and 0.5 * (window - PROBE_STEPS) > ESTIMATE_WAIT_S else 1)


def test_a_far_evaluation_gets_the_updates_only_line_first(monkeypatch):
    """Updates of 20 s and an evaluation every 100: after 5 updates the line says it counts updates only and when
    the evaluations will be timed; after 100, the full estimate."""
    first, full = _timed_run(monkeypatch, 10_000, 20.0, 100.0, 100)
    assert first == (
        "toy: 1 seed(s), 20 s per step (updates only: the evaluations every 100 steps are timed by step 100), "
        "9995 steps left: about 55.5 h"
    )
    assert full.startswith("toy: 1 seed(s), 21 s per step (with its evaluation every 100 steps), 9900 steps left")


def test_a_run_shorter_than_its_window_says_updates_only(monkeypatch):
    assert _timed_run(monkeypatch, 40, 10.0, 100.0, 50) == [
        "toy: 1 seed(s), 10 s per step (updates only), 35 steps left: about 5.8 min"
    ]


def test_a_short_resumed_run_with_an_evaluation_among_its_first_updates_says_so(monkeypatch):
    """Resumed at step 48 of 60 with an evaluation every 50: the one at 50 falls among the 5 timed updates and the
    run ends before a whole period (1 s updates, a 10 s evaluation: 15 s / 5 = 3 s a step over 7 steps left)."""
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    assert _timed_run(monkeypatch, 60, 1.0, 10.0, 50, start=48) == [
        "toy: 1 seed(s), 3 s per step (an evaluation among 5 updates), 7 steps left: about 21 s"
    ]
