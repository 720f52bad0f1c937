"""The report directory is a transaction (issue 11, docs/report.md).

Fault injection: a full disk while the report is written or while a claim runs, a failure while the new files
are moved into place, an interrupt after some claims; concurrency: a second report into a locked directory, a
lock left by a killed process; housekeeping: stale temporary files and figures of claims no longer reported.
Claims here are tiny stand-ins (``report.select`` is patched), except where a registered cheap claim is used.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from numerics.modular import ModularTask
from theory import modular as tm
from verify.claims import Claim, Observation
from verify.claims.judges import MaxRel
from verify.claims.training import train_for_claim
from verify.report import directory
from verify.report import run as report
from verify.report.directory import LOCK_NAME, ReportDirectoryError
from verify.runtime import files
from verify.runtime.options import RunOptions
from verify.train.polynomial import TrainConfig

CHEAP = "shi-thm4.9-beta-sign,shi-lemC.14-fourier-identity"
QUIET = {"options": RunOptions(progress=False), "log": lambda s: None}


def _claim(cid: str, observe=None, value: float = 1.0, plot: bool = False) -> Claim:
    def default(cfg, ctx):
        arts = {"plots": [{"name": "curve", "kind": "lines", "series": [{"label": "a", "x": [0, 1], "y": [0, 1]}]}]}
        return Observation(value, artifacts=arts if plot else {})

    return Claim(
        id=cid,
        source="test",
        statement="s",
        kind="numeric",
        configs={"quick": None},
        predict=lambda cfg: value,
        observe=observe or default,
        judge=MaxRel(1e-9),
    )


def _use(monkeypatch, *claims: Claim) -> None:
    monkeypatch.setattr(report, "select", lambda only, scale: list(claims))


def _snapshot(out: Path) -> dict[str, bytes]:
    """Every file of the report directory except those of the latest run: its journal and, when it was killed,
    its lock file and staging directory."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file()
        and p.name not in (directory.JOURNAL_NAME, LOCK_NAME)
        and not p.relative_to(out).parts[0].startswith(directory.STAGE_PREFIX)
    }


@pytest.fixture
def previous(tmp_path, monkeypatch) -> Path:
    """A finished report of two claims (one with a figure) in tmp_path/rep."""
    out = tmp_path / "rep"
    _use(monkeypatch, _claim("old-a", plot=True), _claim("old-b"))
    report.run_report(out, **QUIET)
    assert (out / "figures" / "old-a-curve.png").is_file()
    return out


def _no_leftovers(out: Path) -> None:
    assert not list(out.glob(f"{directory.STAGE_PREFIX}*")) and not (out / LOCK_NAME).exists()


# ------------------------------------------------------------------------------------------ arguments


@pytest.mark.parametrize("out", ["", "  "])
def test_empty_out_is_refused(out, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(report.ReportError, match="--out must name a directory"):
        report.run_report(out, only=CHEAP, **QUIET)
    assert list(tmp_path.iterdir()) == []


def test_directory_is_created_only_after_claims_are_selected(tmp_path) -> None:
    with pytest.raises(report.ReportError, match="no claim matches"):
        report.run_report(tmp_path / "new", only="no-such-claim-*", **QUIET)
    assert not (tmp_path / "new").exists()


# ------------------------------------------------------------------------------------------ fault injection


def _fail_on_call(n: int, real):
    calls = [0]

    def writer(path, *args):
        calls[0] += 1
        if calls[0] == n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, *args)

    return writer


@pytest.mark.parametrize("call", [1, 2, 3, 4])
def test_disk_full_while_writing_leaves_the_previous_report_byte_identical(previous, monkeypatch, call) -> None:
    before = _snapshot(previous)
    _use(monkeypatch, _claim("new-a", value=2.0, plot=True))
    monkeypatch.setattr(files, "write_text", _fail_on_call(call, files.write_text))
    with pytest.raises(ReportDirectoryError, match="No space left on device") as info:
        report.run_report(previous, **QUIET)
    name = ("results.json", "results.csv", "report.md", "report.html")[call - 1]
    assert str(previous / name) in str(info.value) and "unchanged" in str(info.value)
    assert _snapshot(previous) == before
    _no_leftovers(previous)


def test_disk_full_while_rendering_figures(previous, monkeypatch) -> None:
    before = _snapshot(previous)
    _use(monkeypatch, _claim("new-a", plot=True))

    def full(records, figures_dir, **kw):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(Path(figures_dir) / "new-a-curve.png"))

    monkeypatch.setattr(report, "render_figures", full)
    with pytest.raises(ReportDirectoryError, match=r"figures/new-a-curve.png.*No space left"):
        report.run_report(previous, **QUIET)
    assert _snapshot(previous) == before
    _no_leftovers(previous)


@pytest.mark.parametrize("call", [1, 3, 5, 6])
def test_failure_while_swapping_in_rolls_back(previous, monkeypatch, call) -> None:
    """The swap is 6 renames (the 5 entries into a fresh run directory, then the link .tvk-current over the old
    one, the commit); a failure at any of them leaves the previous report."""
    before = _snapshot(previous)
    _use(monkeypatch, _claim("new-a", value=2.0, plot=True))
    calls = [0]
    real = directory._move

    def move(src, dst):
        calls[0] += 1
        if calls[0] == call:
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        real(src, dst)

    monkeypatch.setattr(directory, "_move", move)
    with pytest.raises(ReportDirectoryError, match="previous report is unchanged"):
        report.run_report(previous, **QUIET)
    assert calls[0] == call
    assert _snapshot(previous) == before
    _no_leftovers(previous)


def test_disk_full_in_a_claim_aborts_the_run_and_keeps_finished_records(previous, monkeypatch) -> None:
    """An operating-system error of the environment is not a verdict: the run stops with the path, the report
    stays, and the journal keeps the claims that finished."""
    before = _snapshot(previous)
    ckpt = str(previous / ".checkpoints" / "x.ckpt")

    def full(cfg, ctx):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), ckpt)

    _use(monkeypatch, _claim("new-a"), _claim("new-b"), _claim("new-full", observe=full), _claim("new-never"))
    with pytest.raises(ReportDirectoryError, match="new-full") as info:
        report.run_report(previous, **QUIET)
    assert ckpt in str(info.value) and "No space left on device" in str(info.value)
    assert _snapshot(previous) == before
    journal = [json.loads(line) for line in (previous / directory.JOURNAL_NAME).read_text().splitlines()]
    assert [r["id"] for r in journal] == ["new-a", "new-b"]
    _no_leftovers(previous)


def test_other_claim_errors_stay_inconclusive(tmp_path, monkeypatch) -> None:
    def missing(cfg, ctx):
        raise FileNotFoundError(errno.ENOENT, "no such data file", "/nowhere")

    _use(monkeypatch, _claim("a", observe=missing))
    records, _ = report.run_report(tmp_path / "r", **QUIET)
    assert records[0]["verdict"] == "inconclusive" and "no such data file" in records[0]["reason"]


def test_journal_of_an_interrupted_run(previous, monkeypatch) -> None:
    before = _snapshot(previous)

    def interrupt(cfg, ctx):
        raise KeyboardInterrupt

    _use(monkeypatch, _claim("new-a"), _claim("new-b"), _claim("new-c", observe=interrupt))
    lines: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        report.run_report(previous, options=RunOptions(progress=False), log=lines.append)
    assert lines[-1].startswith("interrupted after 2 of 3 claims") and "previous report" in lines[-1]
    lines = (previous / directory.JOURNAL_NAME).read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["new-a", "new-b"]
    assert _snapshot(previous) == before
    _no_leftovers(previous)


def test_journal_matches_results_json(tmp_path) -> None:
    out = tmp_path / "r"
    records, _ = report.run_report(out, only=CHEAP, **QUIET)
    journal = [json.loads(line) for line in (out / directory.JOURNAL_NAME).read_text().splitlines()]
    written = json.loads((out / "results.json").read_text())["claims"]
    extra = {
        "error",
        "judge",
        "nonfinite",
    }  # the re-judging fields results.json adds to each record (verify.report.render)
    assert journal == written  # each line is the claim results.json holds (issue 31, item 6)
    assert [{k: v for k, v in r.items() if k not in extra} for r in journal] == json.loads(
        json.dumps(records, default=str)
    )


def _run_of(out: Path) -> tuple[str, str, str]:
    """Which run (its claim ids) results.json, report.md and results.csv of ``out`` come from, as a reader sees them."""
    ids = ",".join(r["id"] for r in json.loads((out / "results.json").read_text())["claims"])

    def mentions(text: str) -> str:
        return ",".join(i for i in ("old-a", "new-a") if i in text)

    return ids, mentions((out / "report.md").read_text()), mentions((out / "results.csv").read_text())


@pytest.mark.parametrize("kill_at", range(1, 8))
def test_a_killed_swap_never_shows_two_runs(previous, monkeypatch, kill_at) -> None:
    """Killed at any rename of the swap (KeyboardInterrupt stands for SIGKILL: nothing after it runs), the files a
    reader opens all come from one run: the previous one before the commit, the new one after it."""
    _use(monkeypatch, _claim("new-a", value=2.0, plot=True))
    calls = [0]
    real = directory._move

    def move(src, dst):
        calls[0] += 1
        if calls[0] == kill_at:
            raise KeyboardInterrupt
        real(src, dst)

    monkeypatch.setattr(directory, "_move", move)
    with contextlib.suppress(KeyboardInterrupt):
        report.run_report(previous, **QUIET)
    ids, md, csv = _run_of(previous)
    assert ids in ("old-a,old-b", "new-a")
    assert md == csv == ("old-a" if ids == "old-a,old-b" else "new-a")
    figures = sorted(p.name for p in (previous / "figures").iterdir())
    assert figures == (["old-a-curve.png"] if ids == "old-a,old-b" else ["new-a-curve.png"])


def test_a_report_of_the_older_layout_is_migrated(tmp_path, monkeypatch) -> None:
    """A directory whose report entries are plain files (written before the link layout) is published over: its
    entries become links to the new run, and nothing of the old report is left."""
    out = tmp_path / "old"
    out.mkdir()
    (out / "figures").mkdir()
    (out / "figures" / "gone.png").write_bytes(b"png")
    for name in ("results.json", "results.csv", "report.md", "report.html"):
        (out / name).write_text("old " + name)
    _use(monkeypatch, _claim("new-a", plot=True))
    report.run_report(out, **QUIET)
    for name in ("figures", "results.json", "results.csv", "report.md", "report.html"):
        assert (out / name).is_symlink() and os.readlink(out / name) == f"{directory.CURRENT_NAME}/{name}"
    assert _run_of(out) == ("new-a", "new-a", "new-a")
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["new-a-curve.png"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(directory.RUN_PREFIX)) == [
        directory.current_run(out).name
    ]
    _no_leftovers(out)


def test_the_published_run_directory_has_the_umasks_permissions(tmp_path, monkeypatch) -> None:
    """The run directory the report's links lead into was made by mkdtemp (0700): another user, or a web server,
    could list the report directory and not open report.html. It now has a plain mkdir's permissions."""
    umask = os.umask(0o022)
    try:
        _use(monkeypatch, _claim("perm-a"))
        report.run_report(tmp_path / "r", **QUIET)
    finally:
        os.umask(umask)
    assert directory.current_run(tmp_path / "r").stat().st_mode & 0o777 == 0o755


def test_only_the_published_run_directory_is_kept(previous, monkeypatch) -> None:
    first = directory.current_run(previous)
    _use(monkeypatch, _claim("new-a"))
    report.run_report(previous, **QUIET)
    second = directory.current_run(previous)
    assert first is not None and second is not None and first != second and not first.exists()
    runs = [p for p in previous.iterdir() if p.name.startswith((directory.RUN_PREFIX, directory.LINK_PREFIX))]
    assert runs == [second]


# ------------------------------------------------------------------------------------------ housekeeping


def test_stale_files_and_figures_of_dropped_claims_are_removed(previous, monkeypatch) -> None:
    stale = [
        previous / f"{directory.STAGE_PREFIX}dead",
        previous / ".results.json.x1y2.json",
        previous / ".report.md.q9w8.md",
    ]
    stale[0].mkdir()
    (stale[0] / "report.md").write_text("half")
    for p in stale[1:]:
        p.write_text("x")
    (previous / ".checkpoints").mkdir()
    ckpt_tmp = previous / ".checkpoints" / ".a.ckpt.k3j4.tmp"
    ckpt_tmp.write_text("x")
    kept_ckpt = previous / ".checkpoints" / "a.ckpt"
    kept_ckpt.write_text("an unfinished run's checkpoint")
    _use(monkeypatch, _claim("new-a", plot=True))
    report.run_report(previous, **QUIET)
    assert not any(p.exists() for p in [*stale, ckpt_tmp])
    assert kept_ckpt.exists()
    assert sorted(p.name for p in (previous / "figures").iterdir()) == ["new-a-curve.png"]
    assert [r["id"] for r in json.loads((previous / "results.json").read_text())["claims"]] == ["new-a"]
    _no_leftovers(previous)


# ------------------------------------------------------------------------------------------ the lock


def test_second_concurrent_report_refuses(tmp_path, monkeypatch) -> None:
    out = tmp_path / "r"
    entered, release = threading.Event(), threading.Event()

    def slow(cfg, ctx):
        entered.set()
        assert release.wait(20)
        return Observation(1.0)

    _use(monkeypatch, _claim("slow", observe=slow))
    results: list = []
    first = threading.Thread(target=lambda: results.append(report.run_report(out, **QUIET)))
    first.start()
    try:
        assert entered.wait(20)
        with pytest.raises(report.ReportError, match=rf"process {os.getpid()} holds its lock .*{LOCK_NAME}") as info:
            report.run_report(out, **QUIET)
        assert "in use" in str(info.value)
    finally:
        release.set()
        first.join(30)
    assert results and results[0][0][0]["verdict"] == "pass"
    assert (out / "results.json").is_file()
    _no_leftovers(out)


HOLD = """
import sys, time
from verify.report import directory
from verify.runtime import files
with directory.directory_lock(sys.argv[1]):
    print("locked", flush=True)
    time.sleep(60)
"""


def test_lock_of_a_live_process_refuses_and_of_a_killed_one_is_taken_over(tmp_path) -> None:
    out = tmp_path / "r"
    out.mkdir()
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "locked"
        with pytest.raises(report.ReportError, match=rf"process {child.pid} holds its lock"):
            report.run_report(out, only=CHEAP, **QUIET)
        assert not (out / "results.json").exists()
    finally:
        child.kill()
        child.wait(10)
    assert (out / LOCK_NAME).read_text().strip() == str(child.pid)  # SIGKILL left the file behind
    records, _ = report.run_report(out, only=CHEAP, **QUIET)
    assert len(records) == 2
    _no_leftovers(out)


def test_planted_lock_file_of_a_dead_pid_is_taken_over(tmp_path) -> None:
    out = tmp_path / "r"
    out.mkdir()
    (out / LOCK_NAME).write_text("999999999\n")
    records, _ = report.run_report(out, only=CHEAP, **QUIET)
    assert len(records) == 2
    _no_leftovers(out)


RUN_THEN_HANG = """
import sys, time
from verify.report import run as report
from verify.claims import Claim, Observation
from verify.claims.judges import MaxRel
from verify.runtime.options import RunOptions

def hang(cfg, ctx):
    print("ready", flush=True)
    time.sleep(60)

def claim(cid, observe):
    return Claim(id=cid, source="t", statement="s", kind="numeric", configs={"quick": None},
                 predict=lambda c: 1.0, observe=observe, judge=MaxRel(1e-9))

report.select = lambda only, scale: [claim("a", lambda c, x: Observation(1.0)), claim("b", hang)]
report.run_report(sys.argv[1], options=RunOptions(progress=False), log=lambda s: None)
"""


def test_killed_report_keeps_the_previous_report_and_the_finished_records(previous) -> None:
    """SIGKILL in the middle of a run: nothing cleans up, yet the previous report is intact, the journal has the
    finished claim, and the next run removes the leftovers and takes over the lock."""
    before = _snapshot(previous)
    child = subprocess.Popen([sys.executable, "-c", RUN_THEN_HANG, str(previous)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
    finally:
        child.kill()
        child.wait(10)
    assert [json.loads(line)["id"] for line in (previous / directory.JOURNAL_NAME).read_text().splitlines()] == ["a"]
    assert _snapshot(previous) == before
    assert (previous / LOCK_NAME).exists() and list(previous.glob(f"{directory.STAGE_PREFIX}*"))
    records, _ = report.run_report(previous, **QUIET)  # the fixture's claims again
    assert [r["id"] for r in records] == ["old-a", "old-b"]
    _no_leftovers(previous)


# ------------------------------------------------------------------------------------------ resume in a report


TASK = ModularTask(5, 2)
TRAIN = TrainConfig(steps=40, lr=5e-3, lam=1e-3, seeds=(3, 5), eval_every=5, dtype="float64", num_threads=1)


def _training_claim() -> Claim:
    gamma = float(tm.max_margin(5, 2))

    def observe(cfg, ctx):
        res = train_for_claim(TASK, 2, 8, cfg, ctx, "t", gamma)
        weights = np.concatenate([np.ravel(n.U) for n in res.networks] + [np.ravel(n.W) for n in res.networks])
        return Observation(float(np.min(res.final["ratio"])), details={"weights": weights.tolist()})

    return Claim(
        id="train-claim",
        source="test",
        statement="s",
        kind="training",
        configs={"quick": TRAIN},
        predict=lambda cfg: 1.0,
        observe=observe,
        judge=MaxRel(10.0),
    )


def test_interrupted_training_claim_resumes_in_the_next_report(tmp_path, monkeypatch) -> None:
    """Ctrl-C during a training claim saves its checkpoint under out/.checkpoints; the rerun resumes from it,
    logs and records it, and ends with the weights of an uninterrupted run."""
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev")
    monkeypatch.setattr(report, "select", lambda only, scale: [_training_claim()])
    clean, _ = report.run_report(tmp_path / "clean", **QUIET)

    import verify.train.polynomial as vt

    real, calls = vt.ensemble_metrics, [0]

    def interrupt_at_step_15(*a, **k):  # evaluations at steps 0, 5, 10, 15: the 4th is interrupted
        calls[0] += 1
        if calls[0] == 4:
            raise KeyboardInterrupt
        return real(*a, **k)

    out = tmp_path / "r"
    monkeypatch.setattr(vt, "ensemble_metrics", interrupt_at_step_15)
    with pytest.raises(KeyboardInterrupt):
        report.run_report(out, **QUIET)
    monkeypatch.setattr(vt, "ensemble_metrics", real)
    (ckpt,) = (out / ".checkpoints").iterdir()
    assert not (out / "results.json").exists() and not (out / LOCK_NAME).exists()

    lines: list[str] = []
    t0 = time.perf_counter()
    records, _ = report.run_report(out, options=RunOptions(progress=False), log=lines.append)
    assert time.perf_counter() - t0 < 30
    assert records[0]["metadata"]["resumed_from"] == [{"step": 15, "file": ckpt.name}]
    assert any("train-claim: resuming from step 15" in line for line in lines)
    assert clean[0]["metadata"]["resumed_from"] is None
    assert records[0]["details"]["weights"] == clean[0]["details"]["weights"]
    assert records[0]["observed"] == clean[0]["observed"]
    assert not (out / ".checkpoints").exists()  # finished: the checkpoint is gone
