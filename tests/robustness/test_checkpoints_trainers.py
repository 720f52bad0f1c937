"""Every checkpointing trainer resumes exactly (issue 11; docs/training.md, "Checkpoints").

For each trainer wired to :mod:`verify.runtime.checkpoint`: a run interrupted at step N (a ``KeyboardInterrupt`` from an
evaluation hook, or a real SIGINT during an update) leaves a checkpoint; a rerun resumes from it, records
``resumed_from`` and logs "resuming from step N", and ends with parameters *equal* (``torch.equal`` /
``np.array_equal``) to those of an uninterrupted run with the same seeds. A corrupt checkpoint is moved aside with
a message naming it and the run starts fresh; a planted checkpoint of another binding is not used.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from verify.runtime import claim_run as cr
from verify.runtime.checkpoint import CheckpointMismatchError, read_checkpoint
from verify.runtime.options import RunOptions
from verify.train import attention as va
from verify.train import lsa as vl
from verify.train import sparse_parity as vsp


@pytest.fixture(autouse=True)
def _fixed_revision(monkeypatch):
    """A fixed code revision: other people editing the tree during the test must not change the binding."""
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-1")


def _in_claim(run: Callable[[], Any], claim: str = "claim-a", config_hash: str = "h1") -> tuple[Any, list, list]:
    """``run()`` inside a claim's checkpoint binding; returns its result, the resumptions and the log lines."""
    lines: list[str] = []
    with cr.log_to(lines.append), cr.claim_run(claim, config_hash) as claim_run:
        out = run()
    return out, list(claim_run.resumed), lines


def _sigint_at(step: int, t: int) -> None:
    """A real Ctrl-C during update ``t`` (deferred by the loop to the end of the update, then saved)."""
    if t == step:
        os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture
def default_sigint():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _assert_resumed(resumed: list, lines: list[str], path: Path, step: int) -> None:
    assert resumed == [{"step": step, "file": path.name}]
    assert any(f"claim-a: resuming from step {step}" in line and str(path) in line for line in lines)


def _corrupt(path: Path) -> bytes:
    path.write_bytes(path.read_bytes()[:150])
    return path.read_bytes()


def _assert_quarantined(path: Path, bad: bytes, resumed: list, lines: list[str]) -> None:
    aside = path.with_name(path.name + ".corrupt")
    assert aside.read_bytes() == bad
    assert any("unreadable" in line and str(path) in line and str(aside) in line for line in lines)
    assert resumed == []


def _plant_foreign(path: Path, run: Callable[[], Any], monkeypatch) -> None:
    """Write a finished checkpoint at ``path`` under another code revision (other weights, same config)."""
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-other")
    _in_claim(run)
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-1")


# ------------------------------------------------------------------------------------------ sparse parity


def _parity_cfg(**kw) -> vsp.SparseParityConfig:
    base = dict(n=10, k=2, width=30, lr=0.1, steps=120, eval_every=5, n_val=128, seeds=(0, 1, 2, 3))
    base.update(kw)
    return vsp.SparseParityConfig(dtype="float64", keep_params=True, **base)


def _parity_equal(a: vsp.SparseParityResult, b: vsp.SparseParityResult) -> None:
    for name in a.params:
        assert torch.equal(torch.as_tensor(a.params[name]), torch.as_tensor(b.params[name])), name
    for name in ("steps", "accuracy", "loss", "rho", "delta_in", "t_c", "diverged"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.steps_run == b.steps_run


PARITY_CASES = {
    # online, seeds converging at different steps: masked, then compacted ensembles; refills every 7 updates
    "online": (dict(), 7),
    # offline: the training sample and the shuffled epochs straddling refills
    "offline": (dict(mode="offline", n_train=40, target_error=0.2), 5),
}


@pytest.mark.parametrize("case", sorted(PARITY_CASES))
@pytest.mark.parametrize("interrupt_at", [50, 55])  # after a compaction; at an evaluation that freezes seeds
def test_sparse_parity_interrupt_and_resume_equals_uninterrupted(tmp_path, monkeypatch, case, interrupt_at) -> None:
    options, refill_steps = PARITY_CASES[case]
    cfg = _parity_cfg(**options)
    monkeypatch.setattr(vsp, "DATA_CHUNK_ELEMENTS", refill_steps * cfg.batch_size * cfg.n)
    full = vsp.train_parity(cfg)
    assert full.steps_run > 0 and len(set(full.t_c.tolist())) >= 2  # seeds freeze at different steps
    path = tmp_path / "parity.ckpt"

    def interrupt(step: int, metrics: dict) -> None:
        if step == interrupt_at:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path)), callback=interrupt))
    assert read_checkpoint(path)["step"] == interrupt_at
    res, resumed, lines = _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path))))
    _assert_resumed(resumed, lines, path, interrupt_at)
    _parity_equal(res, full)
    # the finished run's checkpoint resumes at its last step and gives the same result again
    again, resumed, _ = _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path))))
    assert resumed[0]["step"] == full.steps_run
    _parity_equal(again, full)


def test_sparse_parity_periodic_checkpoint_and_sigint(tmp_path, default_sigint) -> None:
    cfg = _parity_cfg(steps=60, seeds=(0, 1))
    full = vsp.train_parity(cfg)
    path = tmp_path / "parity.ckpt"
    real_next = vsp._DataStream.next
    calls = [0]

    def next_batch(self):  # the batch of update 23 (only updates draw batches)
        calls[0] += 1
        _sigint_at(23, calls[0] - 1)
        return real_next(self)

    with pytest.MonkeyPatch.context() as mp, pytest.raises(KeyboardInterrupt):
        mp.setattr(vsp._DataStream, "next", next_batch)
        _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path), checkpoint_every=10)))
    assert read_checkpoint(path)["step"] == 24  # the update running at the interrupt finished, then saved
    res, resumed, lines = _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path))))
    _assert_resumed(resumed, lines, path, 24)
    _parity_equal(res, full)


def test_sparse_parity_corrupt_checkpoint_is_quarantined(tmp_path) -> None:
    cfg = _parity_cfg(steps=30, seeds=(0, 1))
    path = tmp_path / "parity.ckpt"
    _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path))))
    bad = _corrupt(path)
    res, resumed, lines = _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path))))
    _assert_quarantined(path, bad, resumed, lines)
    _parity_equal(res, vsp.train_parity(cfg))


def test_sparse_parity_foreign_checkpoint_is_not_used(tmp_path, monkeypatch) -> None:
    cfg = _parity_cfg(steps=30, seeds=(0, 1))
    path = tmp_path / "parity.ckpt"
    _plant_foreign(
        path, lambda: vsp.train_parity(cfg.replace(lr=0.05), RunOptions(checkpoint_path=str(path))), monkeypatch
    )
    state = read_checkpoint(path)
    state["config"] = cfg.to_dict()  # other weights passed off as this configuration, finished
    torch.save(state, path)
    res, resumed, lines = _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path))))
    assert resumed == [] and any("ignoring checkpoint" in line and "revision:" in line for line in lines)
    _parity_equal(res, vsp.train_parity(cfg))
    with pytest.raises(CheckpointMismatchError, match="lr"):  # a direct call refuses another config
        vsp.train_parity(cfg.replace(lr=0.2), RunOptions(checkpoint_path=str(path)))


# ------------------------------------------------------------------------------------------ LSA

LAM = np.diag([3.0, 2.0, 1.0])


def _lsa_options(path: Path | None, checkpoint_every: int | None) -> RunOptions:
    return RunOptions(
        device="cpu", checkpoint_path=None if path is None else str(path), checkpoint_every=checkpoint_every
    )


def _lsa_population(path: Path | None = None, checkpoint_every: int | None = None) -> vl.LSAResult:
    cfg = vl.PopulationConfig(LAM, 6, 2, (0, 1), steps=40, polish_steps=5)
    return vl.train_population(cfg, _lsa_options(path, checkpoint_every))


def _lsa_sgd(path: Path | None = None, model: str = "full", checkpoint_every: int | None = None) -> vl.LSAResult:
    cfg = vl.SGDConfig(LAM, 6, 2, (0, 1), model=model, steps=40, batch=16)
    return vl.train_sgd(cfg, _lsa_options(path, checkpoint_every))


def _lsa_equal(a: vl.LSAResult, b: vl.LSAResult) -> None:
    assert torch.equal(torch.as_tensor(a.M_eff), torch.as_tensor(b.M_eff))
    assert a.curve == b.curve and a.details == b.details
    assert np.array_equal(a.final_loss, b.final_loss, equal_nan=True)


LSA_TRAINERS = {
    "population": (_lsa_population, vl, "population_reduced_loss"),  # called once per Adam update
    "sgd-full": (_lsa_sgd, vl, "sample_prompts"),  # one prompt batch per update, from the trainer's generator
    "sgd-reduced": (lambda path=None, **kw: _lsa_sgd(path, "reduced", **kw), vl, "sample_prompts"),
}


@pytest.mark.parametrize("name", sorted(LSA_TRAINERS))
def test_lsa_sigint_and_resume_equals_uninterrupted(tmp_path, monkeypatch, default_sigint, name) -> None:
    run, module, hook = LSA_TRAINERS[name]
    full = run()
    path = tmp_path / "lsa.ckpt"
    real = getattr(module, hook)
    calls = [0]

    def spy(*a, **k):
        _sigint_at(17, calls[0])  # during update 17
        calls[0] += 1
        return real(*a, **k)

    with pytest.MonkeyPatch.context() as mp, pytest.raises(KeyboardInterrupt):
        mp.setattr(module, hook, spy)
        _in_claim(lambda: run(path, checkpoint_every=5))
    assert read_checkpoint(path)["step"] == 18
    res, resumed, lines = _in_claim(lambda: run(path))
    _assert_resumed(resumed, lines, path, 18)
    _lsa_equal(res, full)
    assert full.M_eff.shape[0] == 2 and not np.array_equal(full.M_eff[0], full.M_eff[1])


def test_lsa_corrupt_and_foreign_checkpoints(tmp_path, monkeypatch) -> None:
    path = tmp_path / "lsa.ckpt"
    full = _lsa_sgd()
    _in_claim(lambda: _lsa_sgd(path))
    bad = _corrupt(path)
    res, resumed, lines = _in_claim(lambda: _lsa_sgd(path))
    _assert_quarantined(path, bad, resumed, lines)
    _lsa_equal(res, full)
    # planted: a finished checkpoint of another claim (other prompts: another seed's generator) is not used
    state = read_checkpoint(path)
    state["trainer_state"]["tensors"] = {k: v * 0 for k, v in state["trainer_state"]["tensors"].items()}
    torch.save(state, path)
    res, resumed, lines = _in_claim(lambda: _lsa_sgd(path), claim="claim-b")
    assert resumed == [] and any("ignoring checkpoint" in line and "claim:" in line for line in lines)
    _lsa_equal(res, full)
    # ... while in its own binding the same file is used (the zeroed weights show): the test above is not vacuous
    state["binding"]["claim"] = "claim-a"
    torch.save(state, path)
    res, resumed, _ = _in_claim(lambda: _lsa_sgd(path))
    assert resumed and np.all(res.M_eff == 0)


# ------------------------------------------------------------------------------------------ attention.fit


def _fit(
    path: Path | None = None, steps: int = 20, interrupt_at: int | None = None, torch_seed: int = 123, **kw
) -> dict[str, Any]:
    """A small dropout transformer on per-seed numpy token streams (the caller's state: streams and history)."""
    seeds = (0, 1)
    cfg = va.AttentionConfig(vocab=3, max_len=6, d=8, layers=1, heads=2, mlp=8, dropout=0.1)
    model = va.AttentionEnsemble.init(cfg, seeds, dtype=torch.float64)
    torch.manual_seed(torch_seed)
    streams = [np.random.default_rng(s) for s in seeds]
    history: list[dict[str, Any]] = []

    def batch(t: int) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.as_tensor(np.stack([r.integers(0, 3, size=(4, 6)) for r in streams]))
        return x, torch.roll(x, 1, dims=-1)

    def evaluate(t: int) -> dict[str, Any]:
        if t == interrupt_at:
            raise KeyboardInterrupt
        history.append({"step": t, "norm": sum(float(p.detach().norm()) for p in model.parameters())})
        return history[-1]

    def state() -> dict[str, Any]:
        return {"streams": [r.bit_generator.state for r in streams], "history": list(history)}

    def restore(saved: dict[str, Any]) -> None:
        for r, s in zip(streams, saved["streams"]):
            r.bit_generator.state = s
        history[:] = saved["history"]

    end = va.fit(
        model, batch, va.FitSchedule(steps, lr=1e-2, eval_every=5, num_threads=1),
        RunOptions(checkpoint_path=None if path is None else str(path), **kw), seeds=seeds,
        hooks=va.FitHooks(evaluate=evaluate, checkpoint_config={"model": cfg.to_dict()}, state=state, restore=restore),
    )  # fmt: skip
    return {"end": end, "params": {k: v.detach().clone() for k, v in model.state_dict().items()}, "history": history}


def _fit_equal(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["params"].keys() == b["params"].keys()
    for k in a["params"]:
        assert torch.equal(a["params"][k], b["params"][k]), k
    assert a["history"] == b["history"] and a["end"] == b["end"]


@pytest.mark.parametrize("interrupt_at", [10, 15])
def test_attention_fit_interrupt_and_resume_equals_uninterrupted(tmp_path, interrupt_at) -> None:
    full = _fit()
    path = tmp_path / "fit.ckpt"
    with pytest.raises(KeyboardInterrupt):
        _in_claim(lambda: _fit(path, interrupt_at=interrupt_at))
    assert read_checkpoint(path)["step"] == interrupt_at
    res, resumed, lines = _in_claim(lambda: _fit(path))
    _assert_resumed(resumed, lines, path, interrupt_at)
    _fit_equal(res, full)
    # dropout draws from torch's global generator: another global seed gives other weights, so restoring it matters
    other = _fit(torch_seed=7)["params"]
    assert not all(torch.equal(other[k], full["params"][k]) for k in other)


def test_attention_fit_corrupt_and_foreign_checkpoints(tmp_path, monkeypatch) -> None:
    full = _fit()
    path = tmp_path / "fit.ckpt"
    _in_claim(lambda: _fit(path))
    bad = _corrupt(path)
    res, resumed, lines = _in_claim(lambda: _fit(path))
    _assert_quarantined(path, bad, resumed, lines)
    _fit_equal(res, full)
    _plant_foreign(path, lambda: _fit(path, steps=15), monkeypatch)
    res, resumed, lines = _in_claim(lambda: _fit(path))
    assert resumed == [] and any("ignoring checkpoint" in line and "revision:" in line for line in lines)
    _fit_equal(res, full)


@pytest.mark.parametrize(
    "damage", ["no data stream", "a parameter of another shape", "an unknown record", "CUDA generator states"]
)
def test_sparse_parity_checkpoint_that_does_not_fit_is_moved_aside(tmp_path, damage) -> None:
    """A checkpoint bound to this run whose state does not fit (damaged or tampered with) used to crash the claim at
    every rerun, or to broadcast a parameter of another shape into the weights; it is moved aside as corrupt and the
    run starts fresh (the same result as an uninterrupted run)."""
    cfg = _parity_cfg()
    full = vsp.train_parity(cfg)
    path = tmp_path / "parity.ckpt"

    def interrupt(step: int, metrics: dict) -> None:
        if step == 50:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path)), callback=interrupt))
    state = torch.load(path, weights_only=True)
    saved = state  # the sparse-parity trainer saves its state at the top level
    if damage == "no data stream":
        del saved["data"]
    elif damage == "a parameter of another shape":
        name = next(iter(saved["params"]))
        saved["params"][name] = torch.zeros(1, dtype=torch.float64)
    elif damage == "an unknown record":
        saved["per_seed"]["not a record"] = torch.zeros(4)
    else:  # a CUDA generator's state is 16 bytes (seed, offset), a CPU one's 5056: a checkpoint of a GPU run
        saved["data"]["generators"] = [torch.zeros(16, dtype=torch.uint8) for _ in saved["data"]["generators"]]
    torch.save(state, path)
    res, resumed, lines = _in_claim(lambda: vsp.train_parity(cfg, RunOptions(checkpoint_path=str(path))))
    assert resumed == [] and path.with_name("parity.ckpt.corrupt").exists()
    assert any("NotACheckpointError: its saved" in line for line in lines), lines
    _parity_equal(res, full)
