"""``tvk status`` reads a report directory without writing to it: the running report, the records so far, the
training runs' checkpoints and whether this code resumes them (verify/report/status.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from numerics.modular import ModularTask
from tests.robustness._watchdog import watchdog
from verify import cli
from verify.report.directory import CHECKPOINT_DIR, JOURNAL_NAME, LOCK_NAME, directory_lock
from verify.report.status import checkpoint_status, report_status, status_text
from verify.runtime import claim_run as cr
from verify.runtime.options import RunOptions
from verify.train import polynomial as vtrain

CFG = vtrain.TrainConfig(steps=6, lr=5e-3, seeds=(0,), eval_every=3, dtype="float64", num_threads=1)


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``root`` with its size and modification time (ns)."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def _dead_pid() -> int:
    """The pid of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


@pytest.fixture
def report_dir(tmp_path, monkeypatch) -> Path:
    """A report directory as a running full-scale report leaves it: a lock of this process, a journal of two
    records and a line cut short, one checkpoint written by code revision ``rev-a``, one set aside, one garbage."""
    out = tmp_path / "r"
    (out / CHECKPOINT_DIR).mkdir(parents=True)
    (out / LOCK_NAME).write_text(f"{os.getpid()}\n")
    lines = [json.dumps({"id": "a", "verdict": "pass"}), json.dumps({"id": "b", "verdict": "fail"}), '{"id": "c", "ver']
    (out / JOURNAL_NAME).write_text("\n".join(lines))
    monkeypatch.setenv("TVK_CODE_REVISION", "rev-a")
    with cr.claim_run("claim-x", "h1", bound_to="claim-x + claim-y"):
        vtrain.train(ModularTask(5, 2), 2, 4, CFG, RunOptions(checkpoint_path=str(out / CHECKPOINT_DIR / "run.ckpt")))
    (out / CHECKPOINT_DIR / "old.ckpt.untrusted").write_bytes(b"x")
    (out / CHECKPOINT_DIR / "garbage.ckpt").write_bytes(b"not a checkpoint")
    return out


def test_status_reads_the_lock_journal_and_checkpoints(report_dir, monkeypatch) -> None:
    (report_dir / LOCK_NAME).unlink()
    with directory_lock(report_dir):  # a report holding the directory, as tvk report does
        before = _tree(report_dir)
        status = report_status(report_dir)
        assert _tree(report_dir) == before  # nothing written, nothing moved aside (the garbage file stays)
    assert status["lock"] == {"pid": os.getpid(), "alive": True, "held": True}
    assert status["journal"]["records"] == 2 and status["journal"]["unreadable_lines"] == 1
    assert status["journal"]["verdicts"] == {"pass": 1, "fail": 1} and status["journal"]["last"] == "b"
    assert status["results"] is None and status["set_aside"] == ["old.ckpt.untrusted"]
    good, bad = sorted(status["checkpoints"], key=lambda c: c["file"] != "run.ckpt")
    assert good["bound_to"] == "claim-x + claim-y" and good["trainer"] == "polynomial"
    assert (good["step"], good["steps"], good["dtype"]) == (CFG.steps, CFG.steps, "float64")
    assert good["revision"] == "rev-a" and good["resumes_here"] is True
    assert bad["file"] == "garbage.ckpt" and "error" in bad
    text = status_text(status)
    assert "a report is running in it" in text and "step 6 of 6 (100.0 %)" in text and "this code resumes it" in text
    monkeypatch.setenv("TVK_CODE_REVISION", "rev-b")  # another checkout: it would set the file aside
    other = checkpoint_status(report_dir / CHECKPOINT_DIR / "run.ckpt")
    assert other["resumes_here"] is False
    assert "would set it aside, a checkout of rev-a resumes it" in status_text(report_status(report_dir))


def test_a_lock_left_by_a_killed_report_is_told_apart(report_dir) -> None:
    pid = _dead_pid()
    (report_dir / LOCK_NAME).write_text(f"{pid}\n")
    text = status_text(report_status(report_dir))
    assert f"ended without releasing its lock (process {pid})" in text
    (report_dir / LOCK_NAME).unlink()
    assert "no report is running in it" in status_text(report_status(report_dir))


def test_a_live_pid_that_does_not_hold_the_lock_is_not_a_running_report(report_dir) -> None:
    """The fixture's lock names this (live) process, which holds no flock on it: a killed report's pid reused."""
    status = report_status(report_dir)
    assert status["lock"] == {"pid": os.getpid(), "alive": True, "held": False}
    assert "none runs now" in status_text(status) and "a report is running" not in status_text(status)


def test_a_dirty_revision_is_named_whole(report_dir, monkeypatch) -> None:
    import torch

    path = report_dir / CHECKPOINT_DIR / "run.ckpt"
    state = torch.load(path, weights_only=True)
    state["binding"]["revision"] = "ac5a9bd6e929+dirty.deadbeef"
    state["trainer"] = torch.zeros(2)  # a foreign value: still JSON
    torch.save(state, path)
    monkeypatch.setenv("TVK_CODE_REVISION", "ac5a9bd6e929")
    text = status_text(report_status(report_dir))
    assert "written by revision ac5a9bd6e929+dirty.deadbeef" in text and "a checkout of" not in text
    json.dumps(report_status(report_dir))


@pytest.mark.parametrize(
    "content", ["[1, 2]", '{"claims": {"a": 1}}', '{"claims": ["x"]}', '{"claims": 5}', '{"header": [], "claims": []}']
)
def test_a_results_json_of_another_shape_is_said_unreadable(report_dir, capsys, content) -> None:
    (report_dir / "results.json").write_text(content)
    assert cli.main(["status", "--out", str(report_dir), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert results == {"generated": None, "scale": None, "claims": 0, "verdicts": {}} or "error" in results


def test_the_command_prints_json_and_refuses_a_missing_directory(report_dir, tmp_path, capsys) -> None:
    (report_dir / "results.json").write_text(
        json.dumps(
            {"header": {"generated": "2026-12-01 22:04:15 UTC", "scale": "full"}, "claims": [{"verdict": "pass"}]}
        )
    )
    assert cli.main(["status", "--out", str(report_dir), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["results"] == {
        "generated": "2026-12-01 22:04:15 UTC",
        "scale": "full",
        "claims": 1,
        "verdicts": {"pass": 1},
    }
    assert cli.main(["status", "--out", str(tmp_path / "missing")]) == 2
    assert "no report directory" in capsys.readouterr().err


def test_fifos_and_folders_at_the_files_names_are_said_and_never_block(report_dir) -> None:
    """A FIFO at the journal's, the lock's or results.json's name would block a read (the command hung); a folder at
    the journal's name cannot be read. Each is said in its own line; the checkpoints are still listed."""
    (report_dir / LOCK_NAME).unlink()
    os.mkfifo(report_dir / LOCK_NAME)
    os.mkfifo(report_dir / "results.json")
    (report_dir / JOURNAL_NAME).unlink()
    (report_dir / JOURNAL_NAME).mkdir()
    with watchdog("tvk status on FIFOs"):
        status = report_status(report_dir)
    text = status_text(status)
    assert "its lock cannot be read (.tvk-report.lock is not a regular file)" in text
    assert f"{JOURNAL_NAME}: unreadable" in text and "results.json: unreadable" in text
    assert any(c["file"] == "run.ckpt" and c["step"] == CFG.steps for c in status["checkpoints"])
    assert json.loads(json.dumps(status))["journal"]["error"]
