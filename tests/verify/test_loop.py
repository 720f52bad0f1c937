"""Unit tests of the loop skeleton shared by the trainers (verify.runtime.loop; docs/training.md)."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.runtime.divergence import NonFiniteGuard, TrainingDiverged, first_nonfinite_seeds
from verify.runtime.loop import (
    Resumption,
    cosine_annealing,
    evaluation_count,
    run_loop,
    save_atomically,
    stack_seeds,
    torch_threads,
)


class Trace:
    """Records the order in which :func:`run_loop` calls its hooks."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []

    def step(self, t: int) -> torch.Tensor:
        self.events.append(("step", t))
        return torch.zeros(2)

    def evaluate(self, t: int) -> int:
        self.events.append(("eval", t))
        return t

    def save(self, t: int) -> None:
        self.events.append(("save", t))


def test_hooks_run_in_order_with_evaluation_before_the_update() -> None:
    trace = Trace()
    end = run_loop(
        trace.step, 5, evaluate=trace.evaluate, eval_every=2, resumption=Resumption(save=trace.save, checkpoint_every=3)
    )
    assert end.step == 5 and not end.stopped
    assert trace.events == [
        ("eval", 0),
        ("save", 0),
        ("step", 0),
        ("step", 1),
        ("eval", 2),
        ("step", 2),
        ("save", 3),
        ("step", 3),
        ("eval", 4),
        ("step", 4),
        ("eval", 5),
        ("save", 5),
    ]


@settings(max_examples=60, deadline=None)
@given(steps=st.integers(0, 40), every=st.integers(1, 12), data=st.data())
def test_evaluation_count_is_the_loops_own(steps: int, every: int, data) -> None:
    """The evaluations :func:`run_loop` makes, all of them and those after any step (a resumed run's remaining
    ones), against the loop itself run from that step."""
    after = data.draw(st.integers(-1, steps))
    trace = Trace()
    run_loop(trace.step, steps, evaluate=trace.evaluate, eval_every=every, resumption=Resumption(start=max(after, 0)))
    evals = [t for kind, t in trace.events if kind == "eval" and t > after]
    assert evaluation_count(steps, every, after=after) == len(evals)
    if after == -1:
        assert evaluation_count(steps, every) == len(evals)


def test_a_resumed_run_does_not_rewrite_its_checkpoint_at_the_start() -> None:
    trace = Trace()
    end = run_loop(
        trace.step,
        4,
        evaluate=trace.evaluate,
        eval_every=2,
        resumption=Resumption(start=2, save=trace.save, resumed=True),
    )
    assert end.step == 4
    assert trace.events == [("eval", 2), ("step", 2), ("step", 3), ("eval", 4), ("save", 4)]


def test_an_early_stop_ends_after_the_evaluation_and_saves() -> None:
    trace = Trace()
    end = run_loop(
        trace.step,
        10,
        evaluate=trace.evaluate,
        eval_every=3,
        stop=lambda t, rec: rec >= 3,
        resumption=Resumption(save=trace.save),
    )
    assert end.step == 3 and end.stopped
    assert trace.events[-2:] == [("eval", 3), ("save", 3)]
    assert ("step", 3) not in trace.events


def test_stopped_is_true_only_for_a_stop_before_the_last_step() -> None:
    trace = Trace()
    end = run_loop(trace.step, 2, evaluate=trace.evaluate, eval_every=5, stop=lambda t, rec: True)
    assert end.step == 0 and end.stopped  # asked at step 0 < 2
    end = run_loop(trace.step, 0, evaluate=trace.evaluate, stop=lambda t, rec: True)
    assert end.step == 0 and not end.stopped


def test_the_lr_schedule_is_written_into_every_param_group() -> None:
    p, q = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([{"params": [p]}, {"params": [q]}], lr=1.0)
    seen: list[list[float]] = []

    def step(t: int) -> None:
        seen.append([g["lr"] for g in opt.param_groups])

    run_loop(step, 4, optimizer=opt, lr_at=lambda t: 0.5 * 2**t)
    assert seen == [[0.5, 0.5], [1.0, 1.0], [2.0, 2.0], [4.0, 4.0]]
    with pytest.raises(ValueError, match="optimizer"):
        run_loop(step, 1, lr_at=lambda t: 1.0)


def test_the_guard_names_the_step_and_the_seeds() -> None:
    losses = {0: [1.0, 1.0, 1.0], 1: [1.0, math.nan, math.inf]}
    guard = NonFiniteGuard((7, 8, 9), "toy", "lower lr")
    with pytest.raises(TrainingDiverged) as err:
        run_loop(lambda t: torch.tensor(losses[t]), 2, guard=guard)
    assert (err.value.trainer, err.value.step, err.value.seeds, err.value.what) == ("toy", 1, [8, 9], "loss = nan")
    assert err.value.remedy == "lower lr" and isinstance(err.value, FloatingPointError)
    assert str(err.value) == "toy training diverged at step 1 for seed(s) [8, 9]: loss = nan (lower lr)"


def test_the_guard_checks_weights_and_every_k_steps_and_the_last_step() -> None:
    w = torch.zeros(3, 2)
    guard = NonFiniteGuard((0, 1, 2), "toy", every=4, weights={"W": w})

    def step(t: int) -> None:
        if t == 1:
            w[2, 1] = math.inf

    with pytest.raises(TrainingDiverged) as err:
        run_loop(step, 10, guard=guard)
    assert (err.value.step, err.value.seeds) == (4, [2])  # first check after the divergence
    assert "weights W" in err.value.what
    assert str(err.value) == f"toy training diverged at step 4 for seed(s) [2]: {err.value.what}"  # no remedy
    w.zero_()
    with pytest.raises(TrainingDiverged) as err:
        run_loop(step, 3, guard=guard)
    assert err.value.step == 2  # the last update is always checked


def test_first_nonfinite_seeds() -> None:
    assert first_nonfinite_seeds(torch.ones(3, 4)) == []
    x = torch.ones(3, 2, 2)
    x[2, 1, 0] = math.nan
    x[0, 0, 1] = -math.inf
    assert first_nonfinite_seeds(x) == [0, 2]


@pytest.mark.parametrize(
    ("lr", "t_max", "eta_min", "steps"), [(1e-2, 300, 1e-4, 300), (0.3, 7, 0.0, 40), (1.0, 1, 0.0, 5)]
)
def test_cosine_annealing_is_bit_for_bit_torchs_scheduler(lr: float, t_max: int, eta_min: float, steps: int) -> None:
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=t_max, eta_min=eta_min)
    expected = []
    for _ in range(steps):
        expected.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert cosine_annealing(lr, t_max, eta_min, steps) == expected
    assert cosine_annealing(lr, t_max, eta_min, 0) == []


def test_stack_seeds_gives_each_seed_its_own_values_in_any_ensemble() -> None:
    def init(seed: int) -> dict[str, torch.Tensor]:
        g = torch.Generator().manual_seed(seed)
        return {"a": torch.randn(2, 3, generator=g, dtype=torch.float64), "b": torch.rand(4, generator=g)}

    both = stack_seeds((3, 5), init, dtype=torch.float32)
    alone = stack_seeds((5,), init, dtype=torch.float32)
    assert both["a"].shape == (2, 2, 3) and both["b"].shape == (2, 4) and both["a"].dtype == torch.float32
    assert torch.equal(both["a"][1], alone["a"][0]) and torch.equal(both["b"][1], alone["b"][0])
    plain = stack_seeds((1, 2), lambda s: torch.full((3,), float(s)))
    assert torch.equal(plain, torch.tensor([[1.0] * 3, [2.0] * 3], dtype=torch.float64))


def test_torch_threads_restores_the_setting() -> None:
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with torch_threads(None):
        assert torch.get_num_threads() == before


def test_save_atomically_leaves_no_temporary_file(tmp_path) -> None:
    path = tmp_path / "sub" / "ck.pt"
    save_atomically(path, {"x": torch.arange(3)})
    assert torch.equal(torch.load(path, weights_only=True)["x"], torch.arange(3))
    assert [f.name for f in path.parent.iterdir()] == ["ck.pt"]
