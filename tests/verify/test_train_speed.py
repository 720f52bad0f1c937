"""The fast training step (verify.train.polynomial_step): the hand-written gradient against autograd, every execution
strategy against the others, the memory plan and its refusal, float32 training with float64 verdicts, and the
sparse-parity data stream drawn on the device."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.runtime.memory as rm
import verify.train.polynomial as vt
import verify.train.polynomial_step as ts
from numerics.modular import ModularTask
from numerics.parity import SparseParityTask
from verify.runtime.loop import torch_threads
from verify.runtime.memory import MEMORY_SAFETY, InsufficientMemoryError
from verify.runtime.options import RunOptions
from verify.train.homogeneous import HomogeneousEnsemble
from verify.train.polynomial import TrainConfig, _per_seed_cross_entropy, train
from verify.train.polynomial_step import (
    ChunkSchedule,
    StepRequest,
    StepShapes,
    ensemble_gradient,
    memory_plan,
    plan_step,
)
from verify.train.sparse_parity import SparseParityConfig, _DataStream, _seed_generator, memory_estimate, train_parity

TASK = ModularTask(5, 2)
BASE = TrainConfig(steps=30, lr=5e-3, lam=1e-3, seeds=(3, 5, 8), eval_every=10, dtype="float64", num_threads=1)


def _autograd_gradient(model: HomogeneousEnsemble, x: torch.Tensor, y: torch.Tensor):
    """The oracle: per-seed mean CE through torch autograd on the model's own forward pass."""
    model.zero_grad(set_to_none=True)
    ce = _per_seed_cross_entropy(model(x), y) / x.shape[0]
    ce.sum().backward()
    return ce.detach(), model.U.grad.clone(), model.W.grad.clone()


def _random_problem(seed: int, S: int, m: int, k: int, d: int, C: int, n: int, degree: int, dense: bool):
    gen = torch.Generator().manual_seed(seed)
    model = HomogeneousEnsemble.from_seeds(
        range(seed, seed + S), width=m, n_blocks=k, block_size=d, n_classes=C, degree=degree
    )
    if dense:
        x = (torch.randint(0, 2, (n, k, d), generator=gen) * 2 - 1).to(torch.float64)
    else:
        x = torch.randint(0, d, (n, k), generator=gen)
    y = torch.randint(0, C, (n,), generator=gen)
    return model, x, y


# ------------------------------------------------------------------------------------------ gradient


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 1000),
    S=st.integers(1, 4),
    m=st.integers(1, 9),
    k=st.integers(1, 3),
    d=st.integers(2, 6),
    C=st.integers(2, 6),
    n=st.integers(1, 40),
    degree=st.integers(1, 4),
    dense=st.booleans(),
    chunk=st.integers(1, 50),
    strategy=st.sampled_from(["batched", "loop", "parallel", "vmap"]),
    scatter=st.sampled_from(["index", "matmul"]),
)
def test_fused_gradient_equals_autograd(seed, S, m, k, d, C, n, degree, dense, chunk, strategy, scatter) -> None:
    """Every strategy, and both scatters of one-hot inputs (index_add_ and the one-hot product the CUDA probe may
    pick), give autograd's gradient."""
    model, x, y = _random_problem(seed, S, m, k, d, C, n, degree, dense)
    ce, gU, gW = _autograd_gradient(model, x, y)
    group = 1 if strategy in ("loop", "parallel") else S
    got_ce, dU, dW = ensemble_gradient(
        model.U,
        model.W,
        degree,
        x,
        y,
        ChunkSchedule(group=group, chunk=chunk, strategy=strategy, workers=2, scatter=scatter),
    )
    torch.testing.assert_close(got_ce, ce, rtol=1e-12, atol=1e-13)
    torch.testing.assert_close(dU, gU, rtol=1e-11, atol=1e-13 * max(1.0, float(gU.abs().max())))
    torch.testing.assert_close(dW, gW, rtol=1e-11, atol=1e-13 * max(1.0, float(gW.abs().max())))


def test_matmul_kernel_is_planned_only_where_it_applies() -> None:
    """kernel='matmul' runs through the plan (the step's gradient equals the index_add_ one) and is refused for
    dense inputs, vmap and unknown scatters; the automatic choice on the CPU never probes it (CUDA only)."""
    model, x, y = _random_problem(1, 3, 40, 3, 7, 7, 343, 2, False)
    kw = dict(dataset_points=x.shape[0], optimizer_slots=2, steps=1000)
    step = plan_step(model.U, model.W, 2, x, y, StepRequest(**kw, kernel="matmul", strategy="loop"))
    assert step.plan.kernel == "matmul" and "one-hot product scatter" in step.plan.describe()
    want = plan_step(model.U, model.W, 2, x, y, StepRequest(**kw, kernel="general", strategy="loop"))
    for a, b in zip(step.gradient(model.U, model.W, x, y), want.gradient(model.U, model.W, x, y)):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)
    auto = plan_step(model.U, model.W, 2, x, y, StepRequest(**kw))
    assert auto.plan.kernel == "general" and "matmul" not in auto.plan.reason
    dense_model, xd, yd = _random_problem(1, 2, 5, 1, 4, 4, 20, 2, True)
    with pytest.raises(ValueError, match="one-hot"):
        plan_step(dense_model.U, dense_model.W, 2, xd, yd, StepRequest(**kw, kernel="matmul"))
    with pytest.raises(ValueError, match="vmap"):
        plan_step(model.U, model.W, 2, x, y, StepRequest(**kw, kernel="matmul", strategy="vmap"))
    with pytest.raises(ValueError, match="scatter"):
        ensemble_gradient(model.U, model.W, 2, x, y, ChunkSchedule(group=1, chunk=8, scatter="atomic"))


def test_explicit_matmul_kernel_is_kept_on_a_full_grid() -> None:
    """kernel='matmul' on a full k = 2 grid (where the automatic CPU choice would consider the full-grid kernel)
    stays 'matmul', with or without a probe (review finding: it came back as 'grid')."""
    d = 23
    a, b = np.meshgrid(np.arange(d), np.arange(d), indexing="ij")
    x = torch.as_tensor(np.stack([a.ravel(), b.ravel()], axis=1))
    y = (x[:, 0] + x[:, 1]) % d
    model = HomogeneousEnsemble.from_seeds(
        (0, 1), width=300, n_blocks=2, block_size=d, n_classes=d, degree=2, init_std=0.1
    )
    for steps in (5, 1000):
        step = plan_step(
            model.U,
            model.W,
            2,
            x,
            y,
            StepRequest(dataset_points=d * d, optimizer_slots=2, steps=steps, kernel="matmul"),
        )
        assert step.plan.kernel == "matmul", (steps, step.plan)


def test_compile_falls_back_when_the_reference_check_fails(monkeypatch) -> None:
    """An error in the eager reference of the compile check (e.g. out of device memory) gives the eager step with a
    warning, not an exception out of the planner."""
    model, x, y = _random_problem(3, 1, 5, 2, 4, 4, 16, 2, False)
    U = model.U.detach()
    table = U.permute(2, 3, 0, 1).reshape(8, 5).contiguous()
    xc = ts._chunk_inputs(x, 0, 16, 4, False)
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: fn)

    def broken(*args, **kwargs):
        raise RuntimeError("CUDA out of memory (simulated)")

    monkeypatch.setattr(ts, "_eager_chunk", broken)
    with pytest.warns(UserWarning, match="out of memory"):
        assert ts._compile_chunk(2, False, table, model.W.detach(), xc, y) is None


def test_matmul_kernel_memory_counts_the_one_hot_matrix() -> None:
    """The memory plan of the matmul kernel adds the (chunk, k d) one-hot matrix to the general kernel's peak."""
    shapes = ts.StepShapes(3, 64, 4, 47, 47, 2, False, 47**4, 47**4, 4, 2)
    chunk, general = ts._chunk_for(shapes, ("general", "loop"), "cuda", 80 * 2**30, 1 << 20, False, 0, 1)
    chunk2, matmul = ts._chunk_for(shapes, ("matmul", "loop"), "cuda", 80 * 2**30, 1 << 20, False, 0, 1)
    assert chunk == chunk2 == 1 << 20 and matmul - general == chunk * 4 * 4 * 47


def test_compiled_chunk_path_matches_eager_in_eager_mode() -> None:
    """The traced (functional) chunk, run eagerly, gives the in-place chunk's gradient (what compile traces)."""
    for dense, degree in ((False, 2), (False, 3), (True, 1), (True, 2)):
        model, x, y = _random_problem(7, 3, 6, 1 if dense else 2, 5, 5, 23, degree, dense)
        want = ensemble_gradient(model.U, model.W, degree, x, y, ChunkSchedule(group=3, chunk=23))
        for group in (3, 1):

            def fn(t, W, xc, yc, degree=degree, dense=dense):
                return ts._functional_chunk(t, W, xc, yc, degree, dense)

            got = ensemble_gradient(model.U, model.W, degree, x, y, ChunkSchedule(group=group, chunk=4), compiled=fn)
            for a, b in zip(got, want):
                torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("reg_power", [None, 1.0, 2.0, 2.5, 6.0])
def test_regulariser_gradient_matches_autograd(degree: int, reg_power: float | None) -> None:
    """The hand-written gradient of lam ||theta||_{2,nu}^r (verify.train.polynomial._add_regulariser_gradient) against
    autograd of verify.train.polynomial._regulariser, float64, per seed, for nu = degree + 1 and r below, at and above nu;
    one neuron set to zero (q = 0, where q^(nu/2 - 1) is 0 or 1)."""
    model, _, _ = _random_problem(degree, 3, 5, 2, 4, 4, 1, degree, False)
    with torch.no_grad():
        model.U[1, 2].zero_()
        model.W[1, 2].zero_()
    lam = 0.37
    ref = vt._regulariser(model.norm_power(), lam, reg_power, model.homogeneity)
    gU, gW = torch.autograd.grad(ref.sum(), [model.U, model.W])
    base_U, base_W = torch.randn_like(model.U), torch.randn_like(model.W)  # the data gradient it is added to
    model.U.grad, model.W.grad = base_U.clone(), base_W.clone()
    val = vt._add_regulariser_gradient(model, lam, reg_power)
    torch.testing.assert_close(val, ref.detach(), rtol=1e-13, atol=0)
    torch.testing.assert_close(model.U.grad - base_U, gU, rtol=1e-12, atol=1e-15)
    torch.testing.assert_close(model.W.grad - base_W, gW, rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------------------------------ strategies


def test_every_strategy_gives_the_same_weights() -> None:
    strategies = ("batched", "loop", "parallel", "vmap")
    runs = {s: train(TASK, 2, 8, BASE.replace(strategy=s, num_threads=2)) for s in strategies}
    alone = train(TASK, 2, 8, BASE.replace(seeds=(5,)))
    assert runs["parallel"].plan["workers"] == 2 and runs["loop"].plan["workers"] == 1
    for s, res in runs.items():
        assert res.plan["strategy"] == s and res.plan["group"] == (1 if s in ("loop", "parallel") else 3)
        for a, b in zip(res.networks, runs["batched"].networks):
            np.testing.assert_allclose(a.U, b.U, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(a.W, b.W, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(res.networks[1].U, alone.networks[0].U, rtol=1e-12, atol=1e-14)


def test_fused_trainer_follows_the_autograd_trainer(monkeypatch) -> None:
    """The whole trajectory with the hand-written step equals the one with the autograd step (kept in
    verify.train.polynomial as _gradient_step), for one-hot and dense inputs, full batch and minibatches."""

    def autograd_step(model, optimizer, executor, x, y, config):
        return vt._gradient_step(model, optimizer, x, y, config)

    cases = [
        (TASK, 2, BASE),
        (ModularTask(5, 3), 3, BASE.replace(steps=20, chunk_size=17)),
        (SparseParityTask(5, (0, 1)), 2, BASE.replace(steps=20, lr=0.05, batch_size=9, optimizer="sgd")),
    ]
    for task, degree, cfg in cases:
        fused = train(task, degree, 6, cfg)
        with monkeypatch.context() as mp:
            mp.setattr(vt, "_fused_step", autograd_step)
            ref = train(task, degree, 6, cfg)
        for a, b in zip(fused.networks, ref.networks):
            np.testing.assert_allclose(a.U, b.U, rtol=1e-10, atol=1e-13)
            np.testing.assert_allclose(a.W, b.W, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(fused.metric("loss"), ref.metric("loss"), rtol=1e-10)


def test_auto_strategy_batches_small_steps_and_probes_large_ones() -> None:
    small = train(TASK, 2, 8, BASE)
    assert small.plan["strategy"] == "batched" and "small step" in small.plan["reason"]
    assert small.plan["seconds_per_step"] is None
    model, x, y = _random_problem(0, 4, 256, 2, 31, 31, 31 * 31, 2, False)
    step = plan_step(model.U, model.W, 2, x, y, StepRequest(dataset_points=x.shape[0], optimizer_slots=2, steps=1000))
    assert step.plan.strategy in ("batched", "loop", "parallel") and step.plan.reason.startswith("probe:")
    assert step.plan.seconds_per_step > 0
    assert ("parallel" in step.plan.reason) == (torch.get_num_threads() > 1)
    short = plan_step(model.U, model.W, 2, x, y, StepRequest(dataset_points=x.shape[0], optimizer_slots=2, steps=5))
    assert short.plan.strategy == "loop" and "cost model" in short.plan.reason
    with pytest.raises(ValueError, match="strategy"):
        TrainConfig(steps=1, lr=1.0, strategy="threads")


def test_probe_times_candidates_in_interleaved_rounds(monkeypatch) -> None:
    """Every candidate is warmed up, then timed once per round in turn (not all of one candidate's repeats before
    the next); each keeps its best round, scaled to a whole step by the candidate's own factor."""
    calls: list[str] = []
    clock = [0.0]
    cost = {"a": [5.0, 1.0, 3.0, 2.0], "b": [9.0, 4.0, 4.0, 2.5]}  # warm-up, then one per round (PROBE_REPEATS 3)
    monkeypatch.setattr(ts, "PROBE_REPEATS", 3)

    def fake_call(step, U, W, x, y):  # the plan's strategy names the candidate here
        plan = step.plan

        def fn() -> None:
            clock[0] += cost[plan.strategy][calls.count(plan.strategy)]
            calls.append(plan.strategy)

        return fn, {"a": 1.0, "b": 10.0}[plan.strategy]

    class Plan:
        def __init__(self, strategy: str) -> None:
            self.strategy = strategy

    U = torch.zeros(1)
    with monkeypatch.context() as m:
        m.setattr(ts, "_probe_call", fake_call)
        m.setattr(ts.time, "process_time", lambda: clock[0])
        m.setattr(ts.time, "perf_counter", lambda: clock[0])
        times = ts._probe_all({("k", "a"): Plan("a"), ("k", "b"): Plan("b")}, U, U, 2, U, U)
    assert calls == ["a", "b"] * 4
    assert times == {("k", "a"): 1.0, ("k", "b"): 25.0}


def test_parallel_strategy_restores_the_thread_count_and_raises_worker_errors() -> None:
    """The threads of ``parallel`` run with one intra-op thread each; the caller's setting comes back, also after
    an error inside a worker."""
    model, x, y = _random_problem(3, 4, 6, 2, 5, 5, 25, 2, False)
    with torch_threads(2):
        ensemble_gradient(model.U, model.W, 2, x, y, ChunkSchedule(group=1, chunk=7, strategy="parallel", workers=2))
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError, match="embedding_bag"):  # an index out of range, inside a worker
            ensemble_gradient(
                model.U, model.W, 2, x + 100, y, ChunkSchedule(group=1, chunk=7, strategy="parallel", workers=2)
            )
        assert torch.get_num_threads() == 2


def test_long_run_prints_its_plan(monkeypatch, capsys) -> None:
    monkeypatch.setattr(ts, "SMALL_STEP_ELEMENTS", 0)  # probe even this tiny step
    monkeypatch.setattr(ts, "PRINT_ESTIMATE_S", 0.0)
    res = train(TASK, 2, 8, BASE)
    err = capsys.readouterr().err
    assert "training plan on cpu (float64)" in err and "estimated peak memory" in err and "ms per step" in err
    assert res.plan["seconds_per_step"] > 0


# ------------------------------------------------------------------------------------------ memory


def _shapes(**changes) -> StepShapes:
    base = dict(
        n_seeds=3,
        width=2944,
        n_blocks=4,
        block_size=47,
        n_classes=47,
        degree=4,
        dense=False,
        batch_points=47**4,
        dataset_points=47**4,
        itemsize=4,
    )
    return StepShapes(**{**base, **changes})


def test_memory_plan_sizes_chunks_to_free_memory() -> None:
    sh = _shapes()
    # float32 buffers per point and seed: P, P^3, A (reused for dA), the (n, S m) scatter copy, F and G
    assert sh.bytes_per_point_seed("batched") == 4 * (4 * 2944 + 2 * 47)
    assert sh.bytes_per_point_seed("loop") == 4 * (3 * 2944 + 2 * 47)
    free = 80 * 10**9
    chunk, peak = memory_plan(sh, "batched", "cuda", free)
    usable = MEMORY_SAFETY * free
    assert peak <= usable and chunk & (chunk - 1) == 0  # fits, power of two
    assert sh.fixed_bytes() + 2 * chunk * (sh.bytes_per_point_seed("batched") * 3 + sh.bytes_per_point()) > usable
    loop_chunk, _ = memory_plan(sh, "loop", "cuda", free)
    assert loop_chunk >= chunk  # one seed per launch needs less memory per point
    cpu_chunk, _ = memory_plan(_shapes(width=500, itemsize=4), "batched", "cpu", None)
    assert cpu_chunk == 1024  # the largest power of two with 1024 x 500 float32 <= CPU_CACHE_BYTES (2 MiB)


def test_memory_refusal_names_the_numbers_and_the_override() -> None:
    sh = _shapes()
    with pytest.raises(InsufficientMemoryError, match=r"chunk_size <= \d+ points would fit.*ignore_memory_check"):
        memory_plan(sh, "batched", "cuda", 80 * 10**9, chunk_size=47**4)
    with pytest.raises(InsufficientMemoryError, match="no chunk size fits"):
        memory_plan(sh, "batched", "cuda", 10**6)
    chunk, _ = memory_plan(sh, "batched", "cuda", 10**6, chunk_size=1024, ignore_memory_check=True)
    assert chunk == 1024


def test_trainer_refuses_when_memory_is_short_unless_overridden(monkeypatch) -> None:
    monkeypatch.setattr(ts, "free_memory", lambda device: 1000)
    with pytest.raises(InsufficientMemoryError, match="ignore_memory_check"):
        train(TASK, 2, 8, BASE)
    res = train(TASK, 2, 8, BASE, RunOptions(ignore_memory_check=True))
    assert res.steps_done == BASE.steps and res.plan["free_bytes"] == 1000


# ------------------------------------------------------------------------------------------ dtypes


def test_run_options_apply_and_are_recorded() -> None:
    """A run-wide dtype (RunOptions.dtype) replaces the config's and is recorded in the result's config and in the
    running claim's record; the seed offset shifts the seeds the result's config holds; neither outlives the call."""
    from verify.runtime.claim_run import claim_run

    with claim_run("test-claim", "0" * 16) as run:
        res = train(
            TASK, 2, 8, BASE.replace(strategy="loop"), RunOptions(device="cpu", dtype="float32", seed_offset=10)
        )
    assert res.dtype == "float32" and res.config.dtype == "float32" and res.plan["strategy"] == "loop"
    assert res.config.seeds == (13, 15, 18)
    assert run.trainings == [{"trainer": "polynomial", "device": "cpu", "dtype": "float32", "seeds": [13, 15, 18]}]
    plain = train(TASK, 2, 8, BASE.replace(steps=1))  # the options of one call only
    assert plain.dtype == "float64" and plain.config.dtype == "float64" and plain.config.seeds == BASE.seeds
    with pytest.raises(TypeError, match="precision"):
        RunOptions(precision="float32")
    with pytest.raises(ValueError, match="dtype"):
        RunOptions(dtype="float16")


def test_tf32_is_only_for_cuda() -> None:
    assert TrainConfig(steps=1, lr=1.0, dtype="tf32").dtype == "tf32"
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match=r"tf32.*CUDA"):
            train(TASK, 2, 8, BASE.replace(dtype="tf32"), RunOptions(device="cpu"))
        with pytest.raises(ValueError, match=r"tf32.*CUDA"):
            train(TASK, 2, 8, BASE, RunOptions(device="cpu", dtype="tf32"))


def test_float32_training_is_evaluated_in_float64() -> None:
    res32 = train(TASK, 2, 8, BASE.replace(dtype="float32"))
    res64 = train(TASK, 2, 8, BASE)
    assert res32.dtype == "float32" and all(net.U.dtype == np.float64 for net in res32.networks)
    np.testing.assert_allclose(res32.metric("normalized_margin"), res64.metric("normalized_margin"), rtol=1e-4)


def _verdicts_in_both_dtypes(claim_id: str, monkeypatch) -> tuple[str, str]:
    from verify.claims.base import RunContext, run_claim, select  # deferred: registers every claim

    seen: list[str | None] = []

    class Spy(vt._PolynomialRun):  # the configuration each run trains (after the run options)
        def __init__(self, task, degree, width, config, *args):
            seen.append(config.dtype)
            super().__init__(task, degree, width, config, *args)

    monkeypatch.setattr(vt, "_PolynomialRun", Spy)
    (claim,) = select(claim_id, "quick")
    out = []
    for dtype in ("float64", "float32"):
        record = run_claim(claim, RunContext(scale="quick", options=RunOptions(device="cpu", dtype=dtype)))
        assert seen and seen[-1] == dtype
        trainings = record.metadata["training"]
        assert trainings and all(t["dtype"] == dtype and t["device"] == "cpu" for t in trainings)
        out.append(record.verdict)
    return out[0], out[1]


@pytest.mark.parametrize("claim_id", ["shi-thm4.9-training-k2", "shi-thm4.9-training-k3"])
def test_float32_training_gives_the_quick_verdicts(claim_id, monkeypatch) -> None:
    v64, v32 = _verdicts_in_both_dtypes(claim_id, monkeypatch)
    assert v64 == v32 == "pass"


@pytest.mark.slow
@pytest.mark.parametrize(
    "claim_id", ["edelman-thm7.7-training", "edelman-thm7.8-training", "edelman-thm7.9-training-S3"]
)
def test_float32_training_gives_the_quick_verdicts_slow(claim_id, monkeypatch) -> None:
    v64, v32 = _verdicts_in_both_dtypes(claim_id, monkeypatch)
    assert v64 == v32 == "pass"


@pytest.mark.slow
def test_compiled_step_gives_the_eager_weights() -> None:
    """torch.compile of the chunk gradient (minutes to compile on this CPU), or its eager fallback."""
    cfg = BASE.replace(steps=10, chunk_size=16)
    eager = train(TASK, 2, 8, cfg)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = train(TASK, 2, 8, cfg.replace(compile=True))
    assert compiled.plan["compiled"] or any("running eagerly" in str(w.message) for w in caught)
    for a, b in zip(compiled.networks, eager.networks):
        np.testing.assert_allclose(a.U, b.U, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("compiled_faster", [True, False])
def test_automatic_compile_is_kept_only_when_measured_faster(monkeypatch, compiled_faster) -> None:
    """compile=None compiles a long run, re-probes it and keeps it only when faster than the eager probe (here
    the compiler and the probe are stand-ins: the decision, not torch.compile, is under test)."""
    model, x, y = _random_problem(2, 2, 300, 2, 31, 31, 31 * 31, 2, False)
    calls = []

    def fake_compile(*args, **kwargs):
        calls.append(args[-1])  # the kernel
        return lambda *a: None

    def fake_probe(trials, *args, **kwargs):
        return {
            c: (0.5 if (args[-1] if args else kwargs.get("compiled")) is not None and compiled_faster else 1.0)
            for c in trials
        }

    monkeypatch.setattr(ts, "_compile_for", fake_compile)
    monkeypatch.setattr(ts, "_probe_all", fake_probe)
    kw = dict(dataset_points=x.shape[0], optimizer_slots=2, kernel="general", strategy="loop")
    step = plan_step(model.U, model.W, 2, x, y, StepRequest(steps=int(ts.COMPILE_MIN_RUN_S) + 1, **kw))
    assert calls == ["general"] and step.plan.compiled is compiled_faster
    assert (step.compiled is not None) is compiled_faster
    assert step.plan.seconds_per_step == (0.5 if compiled_faster else 1.0)
    assert ("not faster" in step.plan.reason) is (not compiled_faster)
    short = plan_step(model.U, model.W, 2, x, y, StepRequest(steps=int(ts.COMPILE_MIN_RUN_S) // 2, **kw))
    assert not short.plan.compiled and len(calls) == 1  # a shorter run is not worth compiling


def test_functional_chunk_matmul_scatter_matches_index_add() -> None:
    """The traced chunk's one-hot product scatter gives the index_add_ table gradient (what compile traces)."""
    model, x, y = _random_problem(4, 2, 6, 3, 5, 5, 40, 3, False)
    U = model.U.detach()
    g, m, k, d = U.shape
    table = U.permute(2, 3, 0, 1).reshape(k * d, g * m).contiguous()
    xc = ts._chunk_inputs(x, 0, 40, d, False)
    a = ts._functional_chunk(table, model.W.detach(), xc, y, 3, False, "index")
    b = ts._functional_chunk(table, model.W.detach(), xc, y, 3, False, "matmul")
    for u, v in zip(a, b):
        torch.testing.assert_close(u, v, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------------------------------ sparse parity


def test_online_stream_is_drawn_per_seed_on_the_device() -> None:
    """The buffered stream equals drawing every seed's chunk with its own generator (the independent oracle)."""
    cfg = SparseParityConfig(n=6, k=2, batch_size=4, seeds=(2, 9, 4), label_noise=0.2)
    data = _DataStream(cfg, torch.device("cpu"), torch.float32)
    got = [data.next() for _ in range(data.chunk + 3)]  # crosses one refill
    for e, seed in enumerate(cfg.seeds):
        g = _seed_generator(seed, 1, torch.device("cpu"))
        xs, ys = [], []
        for _ in range(2):
            x = 1 - 2 * torch.randint(0, 2, (data.chunk, 4, 6), generator=g, dtype=torch.int8)
            y = x[..., :2].prod(dim=-1)
            flip = torch.rand(x.shape[:-1], generator=g) < 0.2
            xs.append(x)
            ys.append(torch.where(flip, -y, y))
        x_all, y_all = torch.cat(xs), torch.cat(ys)
        for t, (xb, yb) in enumerate(got):
            assert torch.equal(xb[e], x_all[t].float()) and torch.equal(yb[e], y_all[t].float())


def test_sparse_parity_memory_check(monkeypatch) -> None:
    import verify.train.sparse_parity as sp

    cfg = SparseParityConfig(n=10, k=2, width=8, steps=5, seeds=(0, 1), n_val=64)
    chunk = sp.DATA_CHUNK_ELEMENTS // (cfg.batch_size * cfg.n)
    assert memory_estimate(cfg) >= 2 * chunk * cfg.batch_size * (cfg.n + 1)  # the online refill alone
    assert memory_estimate(cfg.replace(seeds=tuple(range(4)))) > memory_estimate(cfg)
    monkeypatch.setattr(rm, "free_memory", lambda device: 10**5)  # sparse parity checks through runtime.memory
    with pytest.raises(InsufficientMemoryError, match="ignore_memory_check"):
        train_parity(cfg)
    assert train_parity(cfg, RunOptions(ignore_memory_check=True)).steps_run == 5


def test_sparse_parity_long_run_prints_estimate(monkeypatch, capsys) -> None:
    monkeypatch.setattr(rm, "PRINT_ESTIMATE_S", 0.0)  # RunEstimate prints the estimate
    cfg = SparseParityConfig(n=10, k=2, width=8, steps=25, seeds=(0,), n_val=64, stop_when_converged=False)
    train_parity(cfg.replace(eval_every=5), RunOptions(device="cpu"))  # updates 1..20 hold 4 evaluations
    err = capsys.readouterr().err
    assert re.search(
        r"sparse-parity n=10 k=2 on cpu: 1 seed\(s\), about [\d.]+ GiB peak, [\d.]+ ms per step \(with its "
        r"evaluation every 5 steps\), 4 steps left",
        err,
    )
    train_parity(cfg, RunOptions(device="cpu"))  # eval_every 50: the run ends before an evaluation is timed
    assert re.search(r"[\d.]+ ms per step \(updates only\), 4 steps left", capsys.readouterr().err)
