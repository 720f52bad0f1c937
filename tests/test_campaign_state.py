"""docs/campaign_state.py carries a campaign's checkpoints from one machine to the next: a save keeps each run's
step, the revision that wrote it and the command that resumes it; a restore puts the files back, never over a later
step, and names the report's new folder in the command it prints; a save that would mix revisions or has no command
writes nothing."""

from __future__ import annotations

import importlib.util
import os
import shlex
from pathlib import Path

import pytest
import torch

from numerics.modular import ModularTask
from verify.report.directory import CHECKPOINT_DIR, directory_lock
from verify.runtime import claim_run as cr
from verify.runtime.options import RunOptions
from verify.train import polynomial as vtrain

ROOT = Path(__file__).resolve().parents[1]
CFG = vtrain.TrainConfig(steps=6, lr=5e-3, seeds=(0,), eval_every=3, dtype="float64", num_threads=1)
COMMAND = "python -m verify.cli report --scale full --only claim-x --out /old/place --confirm-cost"


def _script():
    spec = importlib.util.spec_from_file_location("campaign_state", ROOT / "docs" / "campaign_state.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cs = _script()


@pytest.fixture
def out(tmp_path, monkeypatch) -> Path:
    """A report folder holding one finished checkpoint of claim-x, written by revision ``rev-a``."""
    folder = tmp_path / "camp"
    (folder / CHECKPOINT_DIR).mkdir(parents=True)
    monkeypatch.setenv("TVK_CODE_REVISION", "rev-a")
    with cr.claim_run("claim-x", "h1"):
        vtrain.train(
            ModularTask(5, 2), 2, 4, CFG, RunOptions(checkpoint_path=str(folder / CHECKPOINT_DIR / "run.ckpt"))
        )
    return folder


def _set_step(path: Path, step: int) -> None:
    state = torch.load(path, weights_only=False)
    state["step"] = step
    torch.save(state, path)


def test_save_then_restore_resumes_the_same_run_in_a_new_folder(out, tmp_path) -> None:
    saved = tmp_path / "repo" / "campaigns" / "x"
    manifest = cs.save(out, saved, shlex.split(COMMAND), str(tmp_path / "gone-worktree"))
    assert manifest["revision"] == "rev-a" and manifest["sweep_store"] is False
    [entry] = manifest["checkpoints"]
    assert (entry["file"], entry["bound_to"], entry["step"], entry["steps"]) == ("run.ckpt", "claim-x", 6, 6)
    assert (saved / "run.ckpt").read_bytes() == (out / CHECKPOINT_DIR / "run.ckpt").read_bytes()

    new = tmp_path / "new-machine"
    lines = cs.restore(saved, new)
    assert (new / CHECKPOINT_DIR / "run.ckpt").read_bytes() == (saved / "run.ckpt").read_bytes()
    assert lines[0] == "# claim-x: step 6 of 6"
    assert lines[1] == f"git worktree add {tmp_path / 'gone-worktree'} rev-a"  # the folder is missing: made again
    assert lines[2].endswith(COMMAND.replace("/old/place", str(new)))


def test_restore_never_goes_back_to_an_earlier_step(out, tmp_path) -> None:
    saved = tmp_path / "saved"
    cs.save(out, saved, shlex.split(COMMAND), str(tmp_path))
    _set_step(out / CHECKPOINT_DIR / "run.ckpt", 7)  # the run went on after the save
    before = (out / CHECKPOINT_DIR / "run.ckpt").read_bytes()
    with pytest.raises(cs.CampaignStateError, match="step 7, later than the saved 6"):
        cs.restore(saved, out)
    assert (out / CHECKPOINT_DIR / "run.ckpt").read_bytes() == before


def test_a_save_reads_the_running_reports_command(out, tmp_path) -> None:
    with directory_lock(out):  # this process holds the lock: it is "the running report"
        manifest = cs.save(out, tmp_path / "saved")
    argv = [a for a in Path("/proc/self/cmdline").read_bytes().decode().split("\0") if a]
    assert manifest["cwd"] == os.getcwd()
    assert manifest["command"].endswith(shlex.join(argv[1:]))  # this process's arguments, after the kept env


def test_a_save_that_cannot_be_resumed_writes_nothing(out, tmp_path, monkeypatch) -> None:
    dest = tmp_path / "saved"
    with pytest.raises(cs.CampaignStateError, match="give its --command"):
        cs.save(out, dest)  # no report runs there and no command is given
    monkeypatch.setenv("TVK_CODE_REVISION", "rev-b")
    with cr.claim_run("claim-y", "h2"):
        vtrain.train(ModularTask(5, 2), 2, 4, CFG, RunOptions(checkpoint_path=str(out / CHECKPOINT_DIR / "b.ckpt")))
    with pytest.raises(cs.CampaignStateError, match="several revisions"):
        cs.save(out, dest, shlex.split(COMMAND), str(tmp_path))
    with pytest.raises(cs.CampaignStateError, match="nothing to save"):
        cs.save(tmp_path / "empty", dest, shlex.split(COMMAND), str(tmp_path))
    assert not dest.exists()
    with pytest.raises(cs.CampaignStateError, match="no campaign saved"):
        cs.restore(dest, out)
