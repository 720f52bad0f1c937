"""The full-grid kernel of verify.train.polynomial_step (k = 2 one-hot blocks, degree 2, the whole grid per step): its
gradient against autograd on the model's own forward pass, the grid detection, the plan's choice of kernel and a
whole training trajectory against the autograd trainer."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.train.polynomial as vt
import verify.train.polynomial_step as ts
from numerics.modular import ModularTask
from verify.runtime.memory import MEMORY_SAFETY, InsufficientMemoryError
from verify.train.homogeneous import HomogeneousEnsemble
from verify.train.polynomial import TrainConfig, _per_seed_cross_entropy, train
from verify.train.polynomial_step import (
    ChunkSchedule,
    StepRequest,
    ensemble_gradient,
    grid_labels,
    grid_rows,
    plan_step,
)


def _autograd_gradient(model: HomogeneousEnsemble, x: torch.Tensor, y: torch.Tensor):
    """The oracle: per-seed mean CE through torch autograd on the model's own forward pass."""
    model.zero_grad(set_to_none=True)
    ce = _per_seed_cross_entropy(model(x), y) / x.shape[0]
    ce.sum().backward()
    return ce.detach(), model.U.grad.clone(), model.W.grad.clone()


def _grid_problem(seed: int, S: int, m: int, d: int, C: int, dtype: torch.dtype = torch.float64):
    """S seeds of width m on every pair (a, b) of {0..d-1}^2 in a random order, with random labels in {0..C-1}."""
    gen = torch.Generator().manual_seed(seed)
    model = HomogeneousEnsemble.from_seeds(
        range(seed, seed + S), width=m, n_blocks=2, block_size=d, n_classes=C, degree=2, dtype=dtype
    )
    a, b = torch.meshgrid(torch.arange(d), torch.arange(d), indexing="ij")
    x = torch.stack([a.reshape(-1), b.reshape(-1)], dim=1)[torch.randperm(d * d, generator=gen)]
    y = torch.randint(0, C, (d * d,), generator=gen)
    return model, x, y


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 1000),
    S=st.integers(1, 3),
    m=st.integers(1, 12),
    d=st.integers(1, 9),
    C=st.integers(2, 9),
    rows=st.integers(1, 11),
    strategy=st.sampled_from(["loop", "parallel", "batched"]),
)
def test_grid_gradient_equals_autograd(seed, S, m, d, C, rows, strategy) -> None:
    model, x, y = _grid_problem(seed, S, m, d, C)
    ce, gU, gW = _autograd_gradient(model, x, y)
    labels = grid_labels(x, y, d)
    assert labels is not None
    got_ce, dU, dW = ensemble_gradient(
        model.U, model.W, 2, x, y, ChunkSchedule(group=1, chunk=rows * d, strategy=strategy, workers=2), labels=labels
    )
    torch.testing.assert_close(got_ce, ce, rtol=1e-12, atol=1e-13)
    torch.testing.assert_close(dU, gU, rtol=1e-10, atol=1e-13)
    torch.testing.assert_close(dW, gW, rtol=1e-10, atol=1e-13)


def test_grid_gradient_float32_at_a_larger_size() -> None:
    """float32 at p = 23, m = 64 (several row blocks): the float32 round-off of the float64 autograd gradient."""
    model, x, y = _grid_problem(7, 2, 64, 23, 23, torch.float32)
    ref = HomogeneousEnsemble(model.U.detach().double(), model.W.detach().double(), 2)
    ce, gU, gW = _autograd_gradient(ref, x, y)
    for strategy in ("loop", "batched"):  # one seed per call (the CPU), all seeds per call (CUDA)
        got = ensemble_gradient(
            model.U,
            model.W,
            2,
            x,
            y,
            ChunkSchedule(group=1, chunk=5 * 23, strategy=strategy),
            labels=grid_labels(x, y, 23),
        )
        for a, b in zip(got, (ce, gU, gW)):
            assert a.dtype == torch.float32
            assert float((a.double() - b).abs().max()) <= 1e-5 * float(b.abs().max())


def test_grid_labels_detects_exactly_the_full_grid() -> None:
    _, x, y = _grid_problem(0, 1, 2, 4, 3)
    table = grid_labels(x, y, 4)
    assert table is not None and table.shape == (4, 4)
    for (a, b), label in zip(x.tolist(), y.tolist()):
        assert int(table[a, b]) == label
    duplicate = x.clone()
    duplicate[0] = duplicate[1]
    assert grid_labels(duplicate, y, 4) is None  # one pair twice, one missing
    assert grid_labels(x[:-1], y[:-1], 4) is None  # a pair missing
    assert grid_labels(x, y, 5) is None  # not the grid of this block size
    assert grid_labels(x.double(), y, 4) is None  # dense inputs
    x3 = torch.cat([x, x[:, :1]], dim=1)
    assert grid_labels(x3, y, 4) is None  # k = 3
    assert grid_labels(x + 4, y, 4) is None and grid_labels(x - 1, y, 4) is None  # out of range


def test_grid_rows_fill_the_cache_budget() -> None:
    assert grid_rows(500, 71, 4, 71, "cpu") == min(71, max(ts.GRID_MIN_ROWS, ts.GRID_BLOCK_BYTES // (500 * 71 * 4)))
    assert grid_rows(10**6, 71, 8, 71, "cpu") == ts.GRID_MIN_ROWS
    assert grid_rows(2, 3, 8, 5, "cpu") == 5  # never more than the grid
    assert grid_rows(500, 71, 4, 71, "cuda") == 71


def test_plan_considers_the_grid_kernel_only_where_it_applies(monkeypatch) -> None:
    model, x, y = _grid_problem(1, 2, 128, 47, 47, torch.float32)
    kw = dict(dataset_points=x.shape[0], optimizer_slots=2)
    probed = plan_step(model.U, model.W, 2, x, y, StepRequest(steps=1000, **kw)).plan
    grid = "grid-parallel" if torch.get_num_threads() > 1 else "grid-loop"
    assert probed.reason.startswith("probe:") and grid in probed.reason and "batched" in probed.reason
    assert probed.kernel in ("grid", "general") and probed.seconds_per_step > 0
    short = plan_step(model.U, model.W, 2, x, y, StepRequest(steps=5, **kw)).plan
    assert short.kernel == "grid" and short.strategy == "loop" and short.chunk % 47 == 0
    assert plan_step(model.U, model.W, 2, x, y, StepRequest(steps=5, kernel="general", **kw)).plan.kernel == "general"
    assert plan_step(model.U, model.W, 2, x, y, StepRequest(steps=5, strategy="loop", **kw)).plan.kernel == "general"
    forced = plan_step(model.U, model.W, 2, x, y, StepRequest(steps=5, strategy="parallel", kernel="grid", **kw)).plan
    assert forced.kernel == "grid" and forced.strategy == "parallel"
    assert plan_step(model.U, model.W, 3, x, y, StepRequest(steps=5, **kw)).plan.kernel == "general"  # degree 3
    assert plan_step(model.U, model.W, 2, x[:-1], y[:-1], StepRequest(steps=5, **kw)).plan.kernel == "general"
    with pytest.raises(ValueError, match="full grid"):
        plan_step(model.U, model.W, 2, x[:-1], y[:-1], StepRequest(steps=5, kernel="grid", **kw))
    batched = plan_step(model.U, model.W, 2, x, y, StepRequest(steps=5, strategy="batched", kernel="grid", **kw)).plan
    assert batched.kernel == "grid" and batched.strategy == "batched" and batched.group == 2
    with pytest.raises(ValueError, match="must not be 'vmap'"):
        plan_step(model.U, model.W, 2, x, y, StepRequest(steps=5, kernel="grid", strategy="vmap", **kw))
    with pytest.raises(ValueError, match="kernel must be one of"):
        plan_step(model.U, model.W, 2, x, y, StepRequest(steps=5, kernel="fast", **kw))
    monkeypatch.setattr(ts, "SMALL_STEP_ELEMENTS", 10**12)  # small steps stay batched with the general kernel
    small = plan_step(model.U, model.W, 2, x, y, StepRequest(steps=1000, **kw)).plan
    assert small.kernel == "general" and small.strategy == "batched"


def test_grid_memory_plan_counts_the_seeds_in_flight_and_shrinks_blocks_to_fit() -> None:
    """The full-grid kernel's peak grows with the seeds per launch (batched: all S), its blocks shrink to what the
    free memory holds, and a grid that cannot fit even one row per block is refused with the override named."""
    shapes = ts.StepShapes(8, 500, 2, 71, 71, 2, False, 71 * 71, 71 * 71, 4, 2)
    rows_cuda, peak_batched = ts._chunk_for(shapes, ("grid", "batched"), "cuda", None, None, False, 0, 1)
    _, peak_loop = ts._chunk_for(shapes, ("grid", "loop"), "cuda", None, None, False, 0, 1)
    assert rows_cuda == 71 * 71  # the whole grid in one block on CUDA
    per_seed_block = 4 * (2 * 500 * 71 * 71 + 3 * 71 * 71 * 71 + 6 * 500 * 71)
    assert peak_batched - peak_loop == 7 * per_seed_block  # eight seeds in flight against one
    free = int((peak_batched - 60 * 8 * 4 * (2 * 500 * 71 + 3 * 71 * 71)) / MEMORY_SAFETY)  # ~11 rows short
    planned, peak = ts._chunk_for(shapes, ("grid", "batched"), "cuda", free, None, False, 0, 1)
    assert planned % 71 == 0 and 1 <= planned // 71 < 71 and peak <= MEMORY_SAFETY * free
    with pytest.raises(InsufficientMemoryError, match="ignore-memory-check"):
        ts._chunk_for(shapes, ("grid", "batched"), "cuda", shapes.fixed_bytes(), None, False, 0, 1)
    chunk, _ = ts._chunk_for(shapes, ("grid", "batched"), "cuda", shapes.fixed_bytes(), None, True, 0, 1)
    assert chunk == 71 * 71  # overridden: the plan it would have run
    with pytest.raises(InsufficientMemoryError, match=r"71 rows of 71 points .* chunk_size <= (\d+) points") as err:
        ts._chunk_for(shapes, ("grid", "batched"), "cuda", free, 71 * 71, False, 0, 1)  # a given size is kept
    fits = int(re.search(r"chunk_size <= (\d+) points", str(err.value)).group(1))
    assert fits == planned  # the rows the planner chose above, in points


def test_grid_step_falls_back_on_a_batch_that_is_not_the_grid() -> None:
    model, x, y = _grid_problem(2, 2, 16, 7, 7)
    step = plan_step(
        model.U, model.W, 2, x, y, StepRequest(dataset_points=49, optimizer_slots=2, steps=5, kernel="grid")
    )
    assert step.labels(x, y, 7) is not None
    part = (x[:20], y[:20])
    assert step.labels(*part, 7) is None
    for batch in ((x, y), part):
        want = _autograd_gradient(model, *batch)
        for a, b in zip(step.gradient(model.U, model.W, *batch), want):
            torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-13)


def test_grid_trainer_follows_the_autograd_trainer(monkeypatch) -> None:
    """A whole trajectory (Adam, regulariser, float64) with the full-grid kernel equals the autograd step's."""
    task = ModularTask(7, 2)
    cfg = TrainConfig(steps=25, lr=5e-3, lam=1e-3, seeds=(2, 4), eval_every=5, dtype="float64", num_threads=1)

    def autograd_step(model, optimizer, executor, x, y, config):
        return vt._gradient_step(model, optimizer, x, y, config)

    monkeypatch.setattr(ts, "SMALL_STEP_ELEMENTS", 0)
    monkeypatch.setattr(ts, "PROBE_MIN_STEPS", 10**9)  # cost model: the full-grid kernel
    fused = train(task, 2, 6, cfg)
    assert fused.plan["kernel"] == "grid"
    monkeypatch.setattr(vt, "_fused_step", autograd_step)
    ref = train(task, 2, 6, cfg)
    for a, b in zip(fused.networks, ref.networks):
        np.testing.assert_allclose(a.U, b.U, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(a.W, b.W, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(fused.metric("loss"), ref.metric("loss"), rtol=1e-10)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_grid_kernel_on_cuda_batches_the_seeds_and_matches_float64() -> None:
    """On CUDA the probe times the full-grid kernel with all seeds per launch against the general kernels; the
    batched full-grid gradient in float32 is the float64 autograd gradient up to float32 round-off."""
    model, x, y = _grid_problem(3, 4, 96, 31, 31, torch.float32)
    ref = HomogeneousEnsemble(model.U.detach().double(), model.W.detach().double(), 2)
    want = _autograd_gradient(ref, x, y)
    U, W = model.U.detach().cuda(), model.W.detach().cuda()
    xc, yc = x.cuda(), y.cuda()
    got = ensemble_gradient(
        U, W, 2, xc, yc, ChunkSchedule(group=4, chunk=31 * 31, strategy="batched"), labels=grid_labels(xc, yc, 31)
    )
    for a, b in zip(got, want):
        assert a.is_cuda and float((a.double().cpu() - b).abs().max()) <= 1e-5 * float(b.abs().max())
    plan = plan_step(U, W, 2, xc, yc, StepRequest(dataset_points=31 * 31, optimizer_slots=2, steps=1000)).plan
    assert "grid-batched" in plan.reason and "matmul-batched" in plan.reason, plan.reason
    short = plan_step(U, W, 2, xc, yc, StepRequest(dataset_points=31 * 31, optimizer_slots=2, steps=5)).plan
    assert (short.kernel, short.strategy, short.chunk) == ("grid", "batched", 31 * 31)
