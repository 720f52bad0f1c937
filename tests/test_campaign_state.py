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
from verify.sweep.store import CellEntry, ResultStore
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


def _cell(i: int) -> CellEntry:
    return CellEntry("claim-g", f"h{i}", (0,), "rev-a", f"cell {i}", 0, "{}", "{}", 1.0, "host", "local")


def test_a_grid_store_is_saved_whole_while_written_and_merged_on_restore(tmp_path) -> None:
    """The cells still in the store's write-ahead log are saved; a restore adds the saved cells to OUT's store and
    keeps the ones it has; a grid alone (no revision in the manifest) prints no ``git worktree add ... None``."""
    out = tmp_path / "grid"
    out.mkdir()
    with ResultStore(out / "sweep.sqlite") as store:  # open: its cells are in sweep.sqlite-wal, not yet in the file
        for i in range(3):
            store.put(_cell(i))
        manifest = cs.save(out, tmp_path / "saved", shlex.split(COMMAND), str(tmp_path / "gone"))
    assert manifest["revision"] is None and manifest["sweep_store"] is True
    assert not (tmp_path / "saved" / "sweep.sqlite-wal").exists()
    with ResultStore(tmp_path / "saved" / "sweep.sqlite", read_only=True) as saved:
        assert saved.count() == 3
    new = tmp_path / "new"
    new.mkdir()
    with ResultStore(new / "sweep.sqlite") as store:  # the new machine's report went on: cells 2 and 3
        for i in (2, 3):
            store.put(_cell(i))
    lines = cs.restore(tmp_path / "saved", new)
    with ResultStore(new / "sweep.sqlite", read_only=True) as store:
        assert store.count() == 4
    assert not any("None" in line for line in lines) and lines[-1].startswith(f"cd {tmp_path / 'gone'} && ")


@pytest.mark.parametrize("form", ["--out=/old/place", "", "--out /old/place"])
def test_the_printed_command_writes_into_the_restored_folder_by_its_whole_path(
    out, tmp_path, monkeypatch, form
) -> None:
    """``--out DIR``, ``--out=DIR`` or none (the report's default folder): the printed command names the restored
    OUT, made absolute (it runs after a ``cd``)."""
    command = ["python", "-m", "verify.cli", "report", "--scale", "full", *shlex.split(form)]
    cs.save(out, tmp_path / "saved", command, str(tmp_path))
    monkeypatch.chdir(tmp_path)
    last = cs.restore(tmp_path / "saved", Path("relative-out"))[-1]
    argv, where = shlex.split(last.split(" && ", 1)[1]), str(tmp_path / "relative-out")
    assert argv[-2:] == ["--out", where] or argv[-1] == f"--out={where}"
    assert "/old/place" not in last


@pytest.mark.parametrize("name", ["", ".", "..", "a/b"])
def test_a_name_that_is_not_one_folder_touches_nothing(out, tmp_path, name) -> None:
    campaigns = tmp_path / "campaigns"
    (campaigns / "other").mkdir(parents=True)
    argv = ["save", str(out), name, "--campaigns", str(campaigns), "--command", COMMAND, "--cwd", str(tmp_path)]
    assert cs.main(argv) == 2
    assert sorted(p.name for p in campaigns.iterdir()) == ["other"]


def test_a_manifest_of_another_layout_or_naming_other_files_is_refused(out, tmp_path) -> None:
    saved = tmp_path / "saved"
    cs.save(out, saved, shlex.split(COMMAND), str(tmp_path))
    new = tmp_path / "new"
    manifest = (saved / "manifest.json").read_text()
    (saved / "manifest.json").write_text("{}")
    with pytest.raises(cs.CampaignStateError, match="another layout"):
        cs.restore(saved, new)
    (saved / "manifest.json").write_text(manifest.replace('"file": "run.ckpt"', '"file": "../results.json"'))
    with pytest.raises(cs.CampaignStateError, match="not checkpoints' names"):
        cs.restore(saved, new)
    assert not new.exists()


def test_no_restore_into_a_folder_where_a_report_runs(out, tmp_path) -> None:
    saved = tmp_path / "saved"
    cs.save(out, saved, shlex.split(COMMAND), str(tmp_path))
    with directory_lock(out), pytest.raises(cs.CampaignStateError, match="a report runs"):
        cs.restore(saved, out)
