"""Checkpoints are bound, never trusted blindly, survive interrupts and bad disks (issue 11).

A checkpoint is bound to the running claim, its configuration hash and the code revision; one that does not
match is ignored with a log line, an unreadable one is moved aside, a resumption is logged and recorded, a
failed save is a warning, and an interrupt saves the running state so a rerun ends with the weights of an
uninterrupted run.
"""

from __future__ import annotations

import errno
import os
import pickle
import signal
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from numerics.modular import ModularTask
from verify.runtime import claim_run as cr
from verify.runtime import loop
from verify.runtime.checkpoint import Checkpoint, TrainerState, resume
from verify.runtime.loop import Resumption, run_loop, save_atomically
from verify.runtime.options import RunOptions
from verify.train.polynomial import CheckpointMismatchError, TrainConfig, train

TASK = ModularTask(5, 2)
CFG = TrainConfig(steps=30, lr=5e-3, lam=1e-3, seeds=(3, 5), eval_every=5, dtype="float64", num_threads=1)


@pytest.fixture(autouse=True)
def _fixed_revision(monkeypatch):
    """A fixed code revision: other people editing the tree during the test must not change the binding."""
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-1")


@pytest.fixture(scope="module")
def uninterrupted():
    return train(TASK, 2, 8, CFG, RunOptions(progress=False))


class _Stop(Exception):
    pass


def _crash_at(step: int, exc: type[BaseException] = _Stop):
    def callback(t, model, record):
        if t == step:
            raise exc

    return callback


def _messages() -> tuple[list[str], object]:
    lines: list[str] = []
    return lines, cr.log_to(lines.append)


def _same_weights(a, b) -> None:
    for x, y in zip(a.networks, b.networks):
        np.testing.assert_array_equal(x.U, y.U)
        np.testing.assert_array_equal(x.W, y.W)


def _train_in_claim(path: Path, claim: str = "claim-a", config_hash: str = "h1", **kw):
    with cr.claim_run(claim, config_hash) as run:
        res = train(TASK, 2, 8, kw.pop("config", CFG), RunOptions(checkpoint_path=str(path), progress=False), **kw)
    return res, run.resumed


def _checkpoint_at(path: Path, step: int, claim: str = "claim-a", config_hash: str = "h1") -> None:
    cfg = CFG.replace(checkpoint_every=step)
    with pytest.raises(_Stop), cr.claim_run(claim, config_hash):
        train(TASK, 2, 8, cfg, RunOptions(checkpoint_path=str(path), progress=False), callback=_crash_at(step))
    assert torch.load(path, weights_only=True)["step"] == step


# ------------------------------------------------------------------------------------------ binding


def test_matching_checkpoint_resumes_logs_and_records(tmp_path, uninterrupted) -> None:
    path = tmp_path / "run.ckpt"
    _checkpoint_at(path, 10)
    lines, log = _messages()
    with log:
        res, resumed = _train_in_claim(path, config=CFG.replace(checkpoint_every=10))
    assert res.resumed_from == 10
    assert resumed == [{"step": 10, "file": path.name}]
    assert any(line.startswith("claim-a: resuming from step 10") and str(path) in line for line in lines)
    _same_weights(res, uninterrupted)
    assert res.history == uninterrupted.history


@pytest.mark.parametrize(
    "claim, config_hash, revision, differs",
    [
        ("claim-b", "h1", "test-rev-1", "claim"),
        ("claim-a", "h2", "test-rev-1", "config_hash"),
        ("claim-a", "h1", "test-rev-2", "revision"),
    ],
)
def test_checkpoint_of_another_binding_is_ignored(
    tmp_path, monkeypatch, uninterrupted, claim, config_hash, revision, differs
) -> None:
    """The planted-checkpoint attack: a finished checkpoint (step = steps) with other weights made a claim
    pass without training. Bound to another claim, config or revision, it is not used."""
    path = tmp_path / "run.ckpt"
    planted = CFG.replace(lr=CFG.lr * 10)  # other weights ...
    with cr.claim_run("claim-a", "h1"):
        train(TASK, 2, 8, planted, RunOptions(checkpoint_path=str(path), progress=False))
    state = torch.load(path, weights_only=True)
    state["config"] = CFG.to_dict()  # ... passed off as this configuration, finished
    torch.save(state, path)
    monkeypatch.setenv("TVK_CODE_REVISION", revision)
    lines, log = _messages()
    with log:
        res, resumed = _train_in_claim(path, claim, config_hash)
    assert res.resumed_from is None and resumed == []
    assert any("ignoring checkpoint" in line and str(path) in line and f"{differs}:" in line for line in lines)
    _same_weights(res, uninterrupted)
    # kept aside, not overwritten by the fresh run's checkpoints: it can be renamed back
    aside = path.with_name(path.name + ".untrusted")
    assert any(f"moved it to {aside}" in line for line in lines)
    assert torch.load(aside, weights_only=True)["binding"] == state["binding"]
    # the same checkpoint in its own binding would have been used: the test above is not vacuous
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-1")
    torch.save(state, path)
    assert _train_in_claim(path)[0].resumed_from == CFG.steps


def test_direct_call_still_refuses_a_foreign_checkpoint(tmp_path, monkeypatch) -> None:
    """Outside a claim (the Python API with an explicit path) a mismatch is an error, as before."""
    path = tmp_path / "run.ckpt"
    train(TASK, 2, 8, CFG.replace(steps=5), RunOptions(checkpoint_path=str(path), progress=False))
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-2")
    with pytest.raises(CheckpointMismatchError, match="revision"):
        train(TASK, 2, 8, CFG.replace(steps=5), RunOptions(checkpoint_path=str(path), progress=False))


@pytest.mark.parametrize("content", [{"a": 1}, [1, 2]])
def test_a_torch_file_that_is_no_checkpoint_is_corrupt_not_untrusted(tmp_path, uninterrupted, content) -> None:
    path = tmp_path / "run.ckpt"
    torch.save(content, path)
    lines, log = _messages()
    with log:
        res, _ = _train_in_claim(path)
    assert res.resumed_from is None and path.with_name("run.ckpt.corrupt").exists()
    assert any("not a training checkpoint" in line and "untrusted" not in line for line in lines), lines
    _same_weights(res, uninterrupted)


def test_an_unreadable_file_is_reported_without_torchs_unsafe_advice(tmp_path, uninterrupted) -> None:
    """torch.load's message for a file it refuses advises weights_only=False, which would run the file's code."""
    path = tmp_path / "run.ckpt"
    torch.save({"format": 2, "x": np.arange(3)}, path)  # a numpy array: refused by weights_only loading
    lines, log = _messages()
    with log:
        res, _ = _train_in_claim(path)
    assert res.resumed_from is None and path.with_name("run.ckpt.corrupt").exists()
    text = "\n".join(lines)
    assert "not a readable torch file" in text and "weights_only" not in text and "\n" not in lines[0], lines
    _same_weights(res, uninterrupted)


@pytest.mark.parametrize("damage", ["no optimiser state", "a tensor of another shape"])
def test_a_bound_checkpoint_whose_state_does_not_fit_is_moved_aside(tmp_path, uninterrupted, damage) -> None:
    """Its binding matches but its content does not: it used to crash the claim (a KeyError recorded as the
    verdict, again at every rerun) or, with a tensor of another shape, to broadcast into the weights silently."""
    path = tmp_path / "run.ckpt"
    _checkpoint_at(path, 10)
    state = torch.load(path, weights_only=True)
    if damage == "no optimiser state":
        del state["optimizer"]
    else:
        state["U"] = torch.zeros(1, dtype=torch.float64)
    torch.save(state, path)
    lines, log = _messages()
    with log:
        res, resumed = _train_in_claim(path, config=CFG.replace(checkpoint_every=10))
    assert res.resumed_from is None and resumed == [] and path.with_name("run.ckpt.corrupt").exists()
    assert any("moved it to" in line for line in lines), lines
    _same_weights(res, uninterrupted)


def test_checkpoint_of_an_older_format_is_ignored_in_a_claim(tmp_path, uninterrupted) -> None:
    path = tmp_path / "run.ckpt"
    torch.save({"format": 1, "step": 30}, path)
    lines, log = _messages()
    with log:
        res, _ = _train_in_claim(path)
    assert res.resumed_from is None and any("not a training checkpoint of format" in line for line in lines)
    _same_weights(res, uninterrupted)


# ------------------------------------------------------------------------------------------ corrupt files


class _Payload:
    """Unpickling this runs ``os.system``: a checkpoint must never be loaded with a full unpickler."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("content", ["truncated", "cut-50%", "cut-99%", "garbage", "pickle"])
def test_corrupt_checkpoint_is_moved_aside_and_training_starts_fresh(tmp_path, uninterrupted, content) -> None:
    path = tmp_path / "run.ckpt"
    marker = tmp_path / "executed"
    (tmp_path / "run.ckpt.corrupt").mkdir()  # an older quarantined path, even a directory, is replaced
    (tmp_path / "run.ckpt.corrupt" / "old").write_text("old")
    if content == "truncated":
        _checkpoint_at(path, 10)
        path.write_bytes(path.read_bytes()[:200])
    elif content.startswith("cut-"):
        _checkpoint_at(path, 10)
        whole = path.read_bytes()
        path.write_bytes(whole[: len(whole) * int(content[4:-1]) // 100])
    elif content == "garbage":
        path.write_bytes(b"\x00not a checkpoint" * 10)
    else:
        path.write_bytes(pickle.dumps(_Payload(marker), protocol=2))
    bad = path.read_bytes()
    lines, log = _messages()
    with log:
        res, resumed = _train_in_claim(path)
    aside = tmp_path / "run.ckpt.corrupt"
    assert aside.read_bytes() == bad
    assert any("unreadable" in line and str(path) in line and str(aside) in line for line in lines)
    assert res.resumed_from is None and resumed == []
    assert not marker.exists(), "the checkpoint's pickle was executed"
    _same_weights(res, uninterrupted)


def test_directory_at_the_checkpoint_path_is_moved_aside(tmp_path, uninterrupted) -> None:
    """A directory where the checkpoint should be (torch raises IsADirectoryError) is quarantined like a bad file."""
    path = tmp_path / "run.ckpt"
    path.mkdir()
    (path / "inside").write_text("kept")
    lines, log = _messages()
    with log:
        res, resumed = _train_in_claim(path)
    aside = tmp_path / "run.ckpt.corrupt"
    assert (aside / "inside").read_text() == "kept"
    assert sum("unreadable" in line and str(aside) in line for line in lines) == 1
    assert res.resumed_from is None and resumed == []
    _same_weights(res, uninterrupted)


# ------------------------------------------------------------------------------------------ saving


def test_failed_checkpoint_save_is_a_warning(tmp_path, monkeypatch, uninterrupted) -> None:
    def full_disk(path, state):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(loop, "save_atomically", full_disk)  # every trainer saves through it
    lines, log = _messages()
    with log:
        res, _ = _train_in_claim(tmp_path / "run.ckpt", config=CFG.replace(checkpoint_every=10))
    warnings = [line for line in lines if "warning" in line and "not saved" in line]
    assert len(warnings) == 4  # steps 0, 10, 20 and the final 30
    assert "No space left on device" in warnings[0]
    _same_weights(res, uninterrupted)


def test_checkpoint_temp_files_are_unpredictable(tmp_path, monkeypatch) -> None:
    """The old ``{ckpt}.tmp-{pid}`` name followed a planted symlink; mkstemp creates a new file exclusively."""
    victim = tmp_path / "victim"
    victim.write_text("precious")
    path = tmp_path / "run.ckpt"
    os.symlink(victim, tmp_path / f"run.ckpt.tmp-{os.getpid()}")
    made: list[str] = []
    real = tempfile.mkstemp

    def spy(*a, **k):
        fd, name = real(*a, **k)
        made.append(name)
        return fd, name

    monkeypatch.setattr("verify.runtime.loop.tempfile.mkstemp", spy)
    save_atomically(path, {"x": torch.arange(3)})
    assert victim.read_text() == "precious"
    assert len(made) == 1 and Path(made[0]).parent == tmp_path and not Path(made[0]).exists()
    assert torch.equal(torch.load(path, weights_only=True)["x"], torch.arange(3))


# ------------------------------------------------------------------------------------------ interrupts


def test_keyboard_interrupt_saves_and_rerun_ends_with_the_uninterrupted_weights(tmp_path, uninterrupted) -> None:
    path = tmp_path / "run.ckpt"
    assert CFG.checkpoint_every is None  # no periodic checkpoint: the interrupt alone writes it
    with pytest.raises(KeyboardInterrupt):
        _train_in_claim(path, callback=_crash_at(15, KeyboardInterrupt))
    assert torch.load(path, weights_only=True)["step"] == 15
    res, resumed = _train_in_claim(path)
    assert res.resumed_from == 15 and resumed == [{"step": 15, "file": path.name}]
    assert res.history == uninterrupted.history
    _same_weights(res, uninterrupted)


class _Trace:
    def __init__(self) -> None:
        self.steps: list[int] = []
        self.saved: list[int] = []

    def step(self, t: int) -> None:
        self.steps.append(t)

    def save(self, t: int) -> None:
        self.saved.append(t)


def test_interrupt_inside_an_update_saves_nothing() -> None:
    """A KeyboardInterrupt raised inside step_fn may leave the update half applied: no checkpoint of it."""
    trace = _Trace()

    def step(t: int) -> None:
        trace.step(t)
        if t == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_loop(step, 10, resumption=Resumption(save=trace.save, checkpoint_every=100))
    assert trace.saved == [0]


def _sigint_at(when: int, trace: _Trace, signum: int = signal.SIGINT) -> Callable[[int], None]:
    """A step function that records its steps in ``trace`` and sends this process a real ``signum`` (SIGINT: a
    Ctrl-C) at step ``when``."""

    def step(t: int) -> None:
        trace.step(t)
        if t == when:
            os.kill(os.getpid(), signum)

    return step


def test_sigint_is_deferred_to_the_end_of_the_update_then_saved() -> None:
    """A real Ctrl-C: the running update finishes, the state after it is saved, then KeyboardInterrupt."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    trace = _Trace()

    step = _sigint_at(3, trace)

    try:
        with cr.log_to(lambda s: None), pytest.raises(KeyboardInterrupt):
            run_loop(step, 10, resumption=Resumption(save=trace.save, checkpoint_every=100))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert trace.steps == [0, 1, 2, 3] and trace.saved == [0, 4]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_under_the_command_line_handler_is_deferred_too(signum: int) -> None:
    """`tvk` installs its own handler for SIGINT and SIGTERM for the whole command (verify.cli._SigintWatch); a Ctrl-C,
    or the SIGTERM of a batch scheduler at its time limit, during training must finish the update and save the state
    after it (docs/report.md), and the command's handlers are in place again afterwards."""
    from verify.cli import _SIGINT

    _SIGINT.install()
    trace = _Trace()
    step = _sigint_at(3, trace, signum)
    try:
        with cr.log_to(lambda s: None), pytest.raises(KeyboardInterrupt):
            run_loop(step, 10, resumption=Resumption(save=trace.save, checkpoint_every=100))
        assert signal.getsignal(signal.SIGINT) == _SIGINT._handle == signal.getsignal(signal.SIGTERM)
    finally:
        _SIGINT.restore()
    assert trace.steps == [0, 1, 2, 3] and trace.saved == [0, 4]


def test_a_callers_own_sigint_handler_is_left_alone() -> None:
    """A handler that is not known to only raise KeyboardInterrupt is not replaced: the caller keeps control."""
    seen: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    trace = _Trace()

    step = _sigint_at(3, trace)

    try:
        run_loop(step, 6, resumption=Resumption(save=trace.save, checkpoint_every=100))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT] and trace.steps == list(range(6))


def test_checkpoint_seconds_saves_without_a_step_period(monkeypatch) -> None:
    clock = iter(float(t) for t in range(100))
    monkeypatch.setattr("verify.runtime.loop.monotonic", lambda: next(clock))
    trace = _Trace()
    run_loop(trace.step, 6, resumption=Resumption(save=trace.save, checkpoint_seconds=2.0))
    assert trace.saved == [1, 3, 5, 6]


@pytest.mark.parametrize("damage", ["no trainer state", "a tensor of another shape"])
def test_resume_moves_aside_a_trainer_state_that_does_not_fit(tmp_path, damage) -> None:
    """The trainers built on TrainerState (resume()): a damaged state is moved aside, the run starts fresh, and a
    half-restored state is put back to the fresh one."""
    path = tmp_path / "run.ckpt"
    weights = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    trainer = TrainerState({"w": weights})
    with cr.claim_run("claim-a", "h1"):
        ckpt = Checkpoint.at(path, "toy", {"steps": 5}, 5)
        resume(ckpt, trainer).save(3)
        state = torch.load(path, weights_only=True)
        if damage == "no trainer state":
            del state["trainer_state"]
        else:
            state["trainer_state"]["tensors"]["w"] = torch.zeros(1, dtype=torch.float64)
        torch.save(state, path)
        with cr.log_to(lambda s: None):
            again = resume(Checkpoint.at(path, "toy", {"steps": 5}, 5), trainer)
    assert again.start == 0 and path.with_name("run.ckpt.corrupt").exists()
    assert torch.equal(weights, torch.arange(6, dtype=torch.float64).reshape(2, 3))
