"""The remaining trainers checkpoint and resume exactly (issue 11; docs/training.md, "Checkpoints").

Per trainer: a run interrupted at step N (a ``KeyboardInterrupt`` raised by an evaluation, or by the update of
step N) leaves a checkpoint; a rerun resumes from it, records ``resumed_from`` and ends with parameters *equal*
(``torch.equal``) to those of an uninterrupted run, with the same history.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from numerics.modular import ModularTask
from theory import decision_lists as td
from verify.runtime import claim_run as cr
from verify.runtime.checkpoint import CheckpointMismatchError, read_checkpoint
from verify.runtime.options import AUTO, RunOptions
from verify.train import attention as va
from verify.train import decision_lists as vd
from verify.train import local_signal as vls
from verify.train import lsa as vl
from verify.train import markov as vm
from verify.train import modular_relu as vmr
from verify.train import modular_transformer as vmt
from verify.train import polynomial as vtrain
from verify.train import sparse_variable as vsv


@pytest.fixture(autouse=True)
def _fixed_revision(monkeypatch):
    """A fixed code revision: other people editing the tree during the test must not change the binding."""
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-1")


def _in_claim(run: Callable[[], Any]) -> tuple[Any, list]:
    """``run()`` inside a claim's checkpoint binding; returns its result and the resumptions."""
    with cr.log_to(lambda line: None), cr.claim_run("claim-a", "h1") as claim:
        out = run()
    return out, list(claim.resumed)


def _equal(a: Any, b: Any) -> None:
    """Nested equality with ``torch.equal`` for tensors and ``np.array_equal`` (NaN-aware) for arrays."""
    if isinstance(a, torch.Tensor):
        assert torch.equal(a, b)
    elif isinstance(a, np.ndarray):
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _equal(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _equal(x, y)
    else:
        assert a == b or (a != a and b != b)


def _options(path: Path | None, **kw: Any) -> RunOptions:
    """CPU options with the checkpoint file ``path`` (None: no checkpoints)."""
    return RunOptions(device="cpu", checkpoint_path=None if path is None else str(path), **kw)


def _interrupt_and_resume(
    tmp_path: Path,
    run: Callable[..., Any],
    patch: Callable[[pytest.MonkeyPatch, int], None],
    step: int,
    saved_at: int | None = None,
) -> tuple[Any, Any]:
    """An uninterrupted run, then a run interrupted at ``step`` (``patch`` raises there) and its rerun, which resumes
    from step ``saved_at`` (default ``step``: the interrupt came between updates and was saved there; an exception
    inside an update leaves the last periodic checkpoint)."""
    saved_at = step if saved_at is None else saved_at
    full = run(None)
    path = tmp_path / "run.ckpt"
    with pytest.MonkeyPatch.context() as mp, pytest.raises(KeyboardInterrupt):
        patch(mp, step)
        _in_claim(lambda: run(path))
    assert read_checkpoint(path)["step"] == saved_at
    res, resumed = _in_claim(lambda: run(path))
    assert resumed == [{"step": saved_at, "file": path.name}]
    return full, res


def _raise_at(module: Any, name: str, step: int, mp: pytest.MonkeyPatch, count_from: int = 0) -> None:
    """Make ``module.name`` raise ``KeyboardInterrupt`` on its ``step``-th call (counted from ``count_from``)."""
    real = getattr(module, name)
    calls = [count_from]

    def spy(*a, **k):
        if calls[0] == step:
            raise KeyboardInterrupt
        calls[0] += 1
        return real(*a, **k)

    mp.setattr(module, name, spy)


def _interrupt_evaluation(module: Any, step: int, mp: pytest.MonkeyPatch) -> None:
    """Make the evaluation of ``step`` in ``module.run_loop`` raise ``KeyboardInterrupt`` (Ctrl-C between updates)."""
    real = module.run_loop

    def run_loop(*a, evaluate=None, **k):
        def interrupted(t: int) -> Any:
            if t == step:
                raise KeyboardInterrupt
            return evaluate(t)

        return real(*a, evaluate=interrupted, **k)

    mp.setattr(module, "run_loop", run_loop)


# ------------------------------------------------------------------------------------------ modular ReLU


def test_relu_modular_resumes_exactly(tmp_path) -> None:
    cfg = vmr.ReluModularConfig(p=5, width=6, seeds=(0, 1), steps=30, eval_every=4)

    def run(path):
        return vmr.train_relu_modular(cfg, _options(path, checkpoint_every=4))

    # torch.relu is called once per update and once per evaluation: update 13's call is call 13 + 4 evaluations.
    # The last save (step 12) came after step 12's evaluation, which the rerun must not record twice.
    patch = lambda mp, s: _raise_at(vmr.torch, "relu", s + 4, mp)  # noqa: E731
    full, res = _interrupt_and_resume(tmp_path, run, patch, 13, saved_at=12)
    _equal(res.history, full.history)
    _equal([res.mass, res.purity, res.loss], [full.mass, full.purity, full.loss])
    assert [r["step"] for r in res.history] == [*range(0, 30, 4), 30]


# ------------------------------------------------------------------------------------------ decision lists


def test_decision_lists_population_gd_resumes_exactly(tmp_path) -> None:
    tasks = [td.random_task(5, 3, s, min_length=1) for s in (0, 1)]

    def run(path):
        cfg = vd.PopulationGDConfig(tasks, 3, [5.0, 20.0], [0.4, 0.1], 12, seeds=(0, 1))
        return vd.population_gd_w(cfg, _options(path))

    # per step, position_logits runs twice in the evaluation (first) and once in the update: call 3 s is step s's
    # evaluation, before it records anything
    full, res = _interrupt_and_resume(tmp_path, run, lambda mp, s: _raise_at(vd, "position_logits", 3 * s, mp), 7)
    _equal([res.W, res.loss, res.accuracy, res.ordered], [full.W, full.loss, full.accuracy, full.ordered])
    assert res.steps == full.steps == list(range(13)) and res.first_perfect == full.first_perfect


# ------------------------------------------------------------------------------------------ local signal


@pytest.mark.parametrize("simulator", ["reduced", "direct"])
def test_local_signal_resumes_exactly(tmp_path, simulator) -> None:
    cfg = vls.SignalTrainConfig(
        k=20, d=3, batch=8, steps=24, lr_w=0.5, seeds=(0, 1), eval_every=3, n_test=16, simulator=simulator
    )

    def run(path):
        return vls.train_signal(cfg, _options(path, checkpoint_every=6))

    full, res = _interrupt_and_resume(tmp_path, run, lambda mp, s: _interrupt_evaluation(vls, s, mp), 15)
    _equal([res.steps, res.c, res.v, res.b, res.accuracy], [full.steps, full.c, full.v, full.b, full.accuracy])
    assert list(res.steps) == list(range(0, 25, 3))


# ------------------------------------------------------------------------------------------ modular transformer


def test_sum_transformer_resumes_exactly(tmp_path) -> None:
    cfg = vmt.SumTransformerConfig(
        p=5, k=2, d=8, heads=2, head_width=4, mlp=8, steps=20, batch_size=4, seeds=(0, 1), eval_every=5, warmup_steps=3
    )
    calls = []

    def run(path):
        return vmt.train_sum_transformer(cfg, _options(path, checkpoint_every=5), callback=lambda t, r: calls.append(t))

    full, res = _interrupt_and_resume(tmp_path, run, lambda mp, s: _interrupt_evaluation(vmt, s, mp), 15)
    _equal(res.params, full.params)
    _equal(res.history, full.history)
    assert res.history["step"] == [0, 5, 10, 15, 20] and res.steps_done == full.steps_done == 20
    # the callback saw every evaluation once: uninterrupted, interrupted (0, 5, 10), resumed (15, 20)
    assert calls == [0, 5, 10, 15, 20, 0, 5, 10, 15, 20]


def test_polynomial_split_resumes_exactly_with_its_test_history(tmp_path) -> None:
    """The even-split polynomial run (Shi App. C.10) keeps its test-accuracy history in the evaluation records, so
    a resumed run reports the steps before the interrupt too."""
    cfg = vtrain.TrainConfig(steps=20, lr=0.05, seeds=(0, 1), eval_every=5, checkpoint_every=5, dtype="float64")

    def run(path):
        return vmt.train_polynomial_split(5, 2, 8, cfg, _options(path))

    full, res = _interrupt_and_resume(tmp_path, run, lambda mp, s: _interrupt_evaluation(vtrain, s, mp), 15)
    for a, b in zip(res.result.networks, full.result.networks):
        _equal(a.U, b.U)
        _equal(a.W, b.W)
    assert full.test_history["step"] == [0, 5, 10, 15, 20]
    _equal(res.test_history, full.test_history)
    _equal(res.test_accuracy, full.test_accuracy)


# ------------------------------------------------------------------------------------------ Markov chains (fit)


def _markov_minimal(path):
    cfg = vm.MinimalModelConfig(k=2, t=6, steps=20, lr=0.5, batch=4, seeds=(0, 1), eval_every=5, eval_n=16)
    return vm.train_minimal(cfg, _options(path))


def _markov_transformer(path):
    model = va.AttentionConfig(vocab=2, max_len=6, d=8, layers=2, heads=1, mlp=8, dropout=0.1)
    cfg = vm.TransformerConfig(k=2, t=6, model=model, steps=20, lr=1e-2, batch=4, seeds=(0, 1), eval_every=5, eval_n=16)
    torch.manual_seed(5)  # dropout draws from torch's global generator (a resumed run restores it)
    return vm.train_transformer(cfg, _options(path))


@pytest.mark.parametrize("run", [_markov_minimal, _markov_transformer], ids=["minimal", "transformer"])
def test_markov_resumes_exactly(tmp_path, run) -> None:
    full, res = _interrupt_and_resume(tmp_path, run, lambda mp, s: _interrupt_evaluation(va, s, mp), 10)
    _equal(res.state, full.state)
    _equal(res.history, full.history)
    _equal(res.extra, full.extra)
    assert [r["step"] for r in res.history] == [0, 5, 10, 15, 20]


# ------------------------------------------------------------------------------------------ sparse variable (fit)

SV_MODEL = vsv.ModelConfig(d=8, heads=2, mlp_ratio=1)  # dropout 0.1: torch's global generator is restored


def _sv_and(path):
    cfg = vsv.AndRunConfig(
        T=6, m=12, trials=(0, 1), steps=20, lr=1e-2, n_val=32, eval_every=5, model=SV_MODEL, attention_probe=2
    )
    return vsv.train_and(cfg, _options(path))


def _sv_parity(path):
    cfg = vsv.ParityRunConfig(T=6, s=2, seeds=(0, 1), steps=20, batch=8, n_test=32, eval_every=5, model=SV_MODEL)
    return vsv.train_parity(cfg, _options(path))


@pytest.mark.parametrize("run", [_sv_and, _sv_parity], ids=["and", "parity"])
def test_sparse_variable_resumes_exactly(tmp_path, run) -> None:
    full, res = _interrupt_and_resume(tmp_path, run, lambda mp, s: _interrupt_evaluation(va, s, mp), 10)
    _equal(res.history, full.history)
    assert [r["step"] for r in res.history] == [0, 5, 10, 15, 20]
    if isinstance(full, vsv.AndRun):  # the final attention rows (a function of the final weights) and best accuracies
        _equal([res.best_val, res.attention], [full.best_val, full.attention])


# ------------------------------------------------------------------------------------------ dtype decided by the device


def _resolve_auto_as_on_cuda(mp: pytest.MonkeyPatch) -> None:
    """Resolve the dtype policy "auto" as a CUDA device does (float32), the run staying on the CPU: what a rerun on a
    GPU of a report interrupted on a CPU sees (a claim's checkpoint file name holds no device)."""
    real = RunOptions.dtype_name

    def as_on_cuda(self: RunOptions, device_type: str, default: str = AUTO, configured: str | None = None) -> str:
        auto = (self.dtype or configured or default) == AUTO
        return real(self, "cuda" if auto else device_type, default, configured)

    mp.setattr(RunOptions, "dtype_name", as_on_cuda)


def _polynomial_auto(path):
    cfg = vtrain.TrainConfig(steps=10, lr=0.05, seeds=(0, 1), eval_every=5, dtype=None, num_threads=1)
    return vtrain.train(ModularTask(5, 2), 2, 8, cfg, _options(path))


def _markov_minimal_auto(path):
    cfg = vm.MinimalModelConfig(k=2, t=6, steps=10, lr=0.5, batch=4, seeds=(0, 1), eval_every=5, eval_n=16)
    return vm.train_minimal(cfg, _options(path))


def _markov_transformer_auto(path):
    model = va.AttentionConfig(vocab=2, max_len=6, d=8, layers=1, heads=1, mlp=8)
    cfg = vm.TransformerConfig(
        k=2, t=6, model=model, steps=10, lr=1e-2, batch=4, seeds=(0,), eval_every=5, eval_n=16, dtype=None
    )
    return vm.train_transformer(cfg, _options(path))


def _sv_parity_auto(path):
    cfg = vsv.ParityRunConfig(
        T=6, s=2, seeds=(0,), steps=10, batch=8, n_test=32, eval_every=5, model=SV_MODEL, dtype=None
    )
    return vsv.train_parity(cfg, _options(path))


def _lsa_sgd_auto(path):
    cfg = vl.SGDConfig(np.diag([3.0, 2.0, 1.0]), 6, 2, (0, 1), model="reduced", steps=10, batch=8, dtype=None)
    return vl.train_sgd(cfg, _options(path))


def _local_signal_auto(path):
    cfg = vls.SignalTrainConfig(k=20, d=3, batch=8, steps=10, lr_w=0.5, seeds=(0,), eval_every=5, n_test=16)
    return vls.train_signal(cfg, _options(path))


DEVICE_DECIDED = {
    "polynomial": _polynomial_auto,
    "markov-minimal": _markov_minimal_auto,
    "markov-transformer": _markov_transformer_auto,
    "sparse-variable-parity": _sv_parity_auto,
    "lsa-sgd": _lsa_sgd_auto,
    "local-signal": _local_signal_auto,
}


@pytest.mark.parametrize("name", sorted(DEVICE_DECIDED))
def test_checkpoint_is_bound_to_the_dtype_the_device_decided(tmp_path, monkeypatch, name) -> None:
    """With the configuration's dtype None the device decides it (float64 on the CPU, float32 on CUDA) and the
    configuration a checkpoint is bound to is the same on both; the polynomial and Markov trainers continued a CPU
    float64 checkpoint in float32 on CUDA and recorded float32. Every trainer binds its checkpoint to the resolved
    dtype: a rerun that resolves another one refuses the file (a direct call raises, naming the dtype)."""
    run, path = DEVICE_DECIDED[name], tmp_path / "run.ckpt"
    run(path)
    assert read_checkpoint(path)["step"] == 10
    _resolve_auto_as_on_cuda(monkeypatch)
    with pytest.raises(CheckpointMismatchError, match=r"dtype: checkpoint 'float64' != requested 'float32'"):
        run(path)
