"""The polynomial network's evaluation one seed and one cache-sized chunk at a time
(``verify.train.homogeneous.seed_logit_chunks``, ``verify.train.polynomial.ensemble_metrics``): the same numbers as
numpy's network (``numerics.margins``: an independent forward pass and evaluation) whatever the chunk, for index and
dense inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.margins import evaluate
from numerics.modular import ModularTask
from numerics.parity import SparseParityTask
from verify.train import polynomial as vp
from verify.train.homogeneous import HomogeneousEnsemble, int_power, logits, seed_logit_chunks

TASK = ModularTask(5, 3)


def _ensemble(seeds: int = 3, width: int = 6, task=TASK, degree: int = 3) -> HomogeneousEnsemble:
    return HomogeneousEnsemble.from_seeds(
        list(range(seeds)), width=width, n_blocks=task.n_blocks, block_size=task.block_size,
        n_classes=task.n_classes, degree=degree,
    )  # fmt: skip


@pytest.mark.parametrize("rows", [1, 7, 32, 125, 500])
@pytest.mark.parametrize("dense", [False, True])
def test_seed_chunks_are_numpy_logits_seed_by_seed(rows: int, dense: bool) -> None:
    model = _ensemble()
    x, _ = TASK.batch(0, TASK.n_points)
    inputs = torch.as_tensor(x)
    if dense:
        inputs = torch.nn.functional.one_hot(inputs, TASK.block_size).to(torch.float64)
    chunks = list(seed_logit_chunks(model.U.detach(), model.W.detach(), model.degree, inputs, rows))
    starts = list(range(0, TASK.n_points, rows))
    assert [(s, start) for s, start, _ in chunks] == [(s, start) for s in range(3) for start in starts]
    for s, net in enumerate(model.networks()):
        F = torch.cat([F for seed, _, F in chunks if seed == s]).numpy()
        np.testing.assert_allclose(F, net.logits(x), rtol=1e-12, atol=1e-12)


def test_seed_chunks_refuse_empty_chunks_and_bad_inputs() -> None:
    model = _ensemble()
    U, W = model.U.detach(), model.W.detach()
    with pytest.raises(ValueError, match="rows must be at least 1"):
        next(seed_logit_chunks(U, W, 3, torch.zeros((4, 3), dtype=torch.int64), 0))
    with pytest.raises(ValueError, match="index inputs must have shape"):
        next(seed_logit_chunks(U, W, 3, torch.zeros((4, 2), dtype=torch.int64), 2))
    with pytest.raises(ValueError, match="dense inputs must have shape"):
        next(seed_logit_chunks(U, W, 3, torch.zeros((4, 3, 4)), 2))


@pytest.mark.parametrize("budget, least", [(1, 1), (1, 32), (2**30, 1)])
def test_ensemble_metrics_equal_numpy_evaluation_whatever_the_chunk(monkeypatch, budget: int, least: int) -> None:
    """Chunks of 1 point, of 32, of a cache budget and of the whole dataset: the per-seed accuracy, margin and cross
    entropy of ``numerics.margins.evaluate`` (and the cross entropy by hand from numpy's logits)."""
    monkeypatch.setattr(vp, "EVAL_CACHE_BUDGET", budget)
    monkeypatch.setattr(vp, "EVAL_MIN_ROWS", least)
    model = _ensemble()
    x, y = TASK.batch(0, TASK.n_points)
    rec = vp.ensemble_metrics(model, torch.as_tensor(x), torch.as_tensor(y))
    for s, net in enumerate(model.networks()):
        report = evaluate(net, TASK)
        F = net.logits(x)
        F = F - F.max(axis=1, keepdims=True)
        ce = float(np.mean(np.log(np.exp(F).sum(axis=1)) - F[np.arange(len(y)), y]))
        assert rec["accuracy"][s] == pytest.approx(report.accuracy, abs=0)
        assert rec["margin"][s] == pytest.approx(report.min_margin, rel=1e-12, abs=1e-12)
        assert rec["cross_entropy"][s] == pytest.approx(ce, rel=1e-12)


@pytest.mark.parametrize("budget, least", [(1, 1), (1, 5), (2**30, 1)])
def test_ensemble_metrics_of_dense_inputs(monkeypatch, budget: int, least: int) -> None:
    monkeypatch.setattr(vp, "EVAL_CACHE_BUDGET", budget)
    monkeypatch.setattr(vp, "EVAL_MIN_ROWS", least)
    task = SparseParityTask(5, (0, 1))
    model = _ensemble(seeds=2, width=4, task=task, degree=2)
    x, y = task.batch(0, task.n_points)
    rec = vp.ensemble_metrics(model, torch.as_tensor(x), torch.as_tensor(y))
    for s, net in enumerate(model.networks()):
        report = evaluate(net, task)
        assert rec["accuracy"][s] == report.accuracy
        assert rec["margin"][s] == pytest.approx(report.min_margin, rel=1e-12, abs=1e-12)


def test_evaluation_rows_fit_the_budget_of_the_device() -> None:
    cpu, gpu = torch.device("cpu"), torch.device("cuda")
    assert vp.evaluation_rows(10**7, 2, cpu) == vp.EVAL_MIN_ROWS  # a wide network: the fewest points
    assert vp.evaluation_rows(10**8, 2, gpu) == 1
    for m, C in [(8, 2), (512, 23), (5632, 23)]:
        per_point = 8 * (m + 3 * C)
        rows = vp.evaluation_rows(m, C, cpu)
        assert rows * per_point <= max(vp.EVAL_CACHE_BUDGET, vp.EVAL_MIN_ROWS * per_point)
        assert (rows + 1) * per_point > vp.EVAL_CACHE_BUDGET
        assert vp.evaluation_rows(m, C, gpu) * per_point <= vp.EVAL_MEMORY_BUDGET


@settings(max_examples=40, deadline=None)
@given(e=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_int_power_is_the_power(e: int, seed: int) -> None:
    P = torch.randn(5, 4, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    torch.testing.assert_close(int_power(P, e), P**e, rtol=e * 2.3e-16, atol=0)


def test_int_power_refuses_non_positive_exponents() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        int_power(torch.ones(2), 0)


def test_logits_keep_the_autograd_graph() -> None:
    model = _ensemble(seeds=2)
    x, _ = TASK.batch(0, 10)
    logits(model.U, model.W, model.degree, torch.as_tensor(x)).sum().backward()
    assert model.U.grad is not None and model.W.grad is not None


def test_probe_evaluation_times_the_first_points_after_a_warm_up(monkeypatch) -> None:
    """A warm-up on one chunk, then one timed evaluation of the first ``points`` points (all of a smaller dataset),
    every seed of the configuration: the seconds of that evaluation per point, on a fake clock."""
    from verify.runtime.options import RunOptions

    calls, clock = [], [0.0]
    real = vp.ensemble_metrics

    def counted(model, inputs, labels, **kw):  # type: ignore[no-untyped-def]
        calls.append((model.n_seeds, inputs.shape[0], bool(torch.equal(labels, torch.as_tensor(y[: len(labels)])))))
        clock[0] += 0.5 * inputs.shape[0]  # half a second a point
        return real(model, inputs, labels, **kw)

    _, y = TASK.batch(0, TASK.n_points)
    monkeypatch.setattr(vp, "ensemble_metrics", counted)
    monkeypatch.setattr(vp.time, "perf_counter", lambda: clock[0])
    config = vp.TrainConfig(steps=1, lr=0.1, seeds=(0, 1, 2))
    rows = vp.evaluation_rows(6, TASK.n_classes, torch.device("cpu"))
    assert vp.probe_evaluation(TASK, 3, 6, config, RunOptions(device="cpu"), points=100) == 0.5
    assert calls == [(3, min(rows, 100), True), (3, 100, True)]
    calls.clear()
    assert vp.probe_evaluation(TASK, 3, 6, config, RunOptions(device="cpu"), points=10**6) == 0.5
    assert calls[-1] == (3, TASK.n_points, True)
    with pytest.raises(ValueError, match="points must be at least 1"):
        vp.probe_evaluation(TASK, 3, 6, config, RunOptions(device="cpu"), points=0)


@pytest.mark.parametrize("n_inputs, labels", [(0, (0,)), (10, (9,)), (10, (10, 1))])
def test_ensemble_metrics_refuse_empty_or_mismatched_data(n_inputs: int, labels: tuple[int, ...]) -> None:
    """No silent NaN from an empty dataset (0 / 0), no misaligned labels."""
    x, _ = TASK.batch(0, max(n_inputs, 1))
    with pytest.raises(ValueError, match="one label per input and at least one input"):
        vp.ensemble_metrics(_ensemble(), torch.as_tensor(x[:n_inputs]), torch.zeros(labels, dtype=torch.int64))


def test_the_trainer_says_what_its_evaluations_add_after_the_first(monkeypatch, capsys) -> None:
    """The plan line times updates only: after the first evaluation (with the callback's work on it, as a split's
    test half) the trainer prints once what the evaluations left add, and not when they add under the threshold."""
    import time

    from verify.runtime.options import RunOptions

    task = ModularTask(5, 2)
    config = vp.TrainConfig(steps=20, lr=1e-3, seeds=(0, 1), eval_every=5, dtype="float64", num_threads=1)
    seen = []
    real = vp.evaluations_line

    def spy(seconds, step, cfg, per_update):  # type: ignore[no-untyped-def]
        seen.append((seconds, step))
        return real(seconds, step, cfg, per_update)

    def slow_first(step, model, rec):  # type: ignore[no-untyped-def]
        if step == 0:
            time.sleep(0.2)
        return False

    monkeypatch.setattr(vp, "evaluations_line", spy)
    monkeypatch.setattr(vp, "PRINT_ESTIMATE_S", 0.0)
    vp.train(task, 2, 4, config, RunOptions(device="cpu", progress=False), callback=slow_first)
    assert len(seen) == 1 and seen[0][1] == 0 and seen[0][0] >= 0.2
    err = capsys.readouterr().err
    assert err.count("polynomial: an evaluation took") == 1 and "the 4 left add about" in err
    monkeypatch.setattr(vp, "PRINT_ESTIMATE_S", 1e9)
    vp.train(task, 2, 4, config, RunOptions(device="cpu", progress=False))
    assert "an evaluation took" not in capsys.readouterr().err
    monkeypatch.setattr(vp, "PRINT_ESTIMATE_S", 0.0)  # a run its callback stops at the first evaluation: nothing left
    vp.train(task, 2, 4, config, RunOptions(device="cpu", progress=False), callback=lambda *a: True)
    assert "an evaluation took" not in capsys.readouterr().err


def test_no_evaluation_is_left_after_the_last_step() -> None:
    """A resumed run whose first evaluation is the last step's (steps not a multiple of eval_every) has none left."""
    config = vp.TrainConfig(steps=12, lr=0.1, eval_every=5)
    assert vp.evaluations_line(1e6, 12, config, 1.0) is None
    assert "the 1 left add" in vp.evaluations_line(1e6, 10, config, 1.0)
