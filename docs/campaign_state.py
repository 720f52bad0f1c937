"""Carry a full-scale campaign's training state from one machine to the next (docs/running_at_scale.md, "A campaign
that outlives its machine").

A long ``tvk report --scale full`` resumes from the checkpoints in ``OUT/.checkpoints`` (and a grid from its cells in
``OUT/sweep.sqlite``), but only on a machine that still has them, and only with the code revision that wrote them (a
checkpoint of another revision is set aside). The sessions that run this project's campaigns get a new machine
from time to time, and a run of 5 h or more then starts again from step 0. This script keeps the state in the
repository, beside the archived records:

``python docs/campaign_state.py save OUT NAME``
    copies OUT's checkpoints (and grid store) into ``results/campaigns/NAME/`` with a ``manifest.json``: the revision
    that wrote them, each run's step out of its steps, and the command and folder of the running report (read from
    the process that holds OUT's lock, or given with ``--command`` and ``--cwd``). A run's file is copied as it stands:
    trainers write checkpoints by a rename, so a copy taken while the report runs is whole; the grid store (SQLite in
    WAL mode, its latest cells possibly still in ``sweep.sqlite-wal``) is copied by SQLite's backup, which is.
``python docs/campaign_state.py restore NAME OUT``
    puts them back into OUT (refusing to replace a checkpoint of a later step, or to write where a report runs; the
    saved grid cells merged into OUT's store, whose own cells are kept) and prints the commands that resume the
    campaign: a worktree of the revision where the folder is missing, then the report.

Remove ``results/campaigns/NAME/`` in the commit that archives the campaign's record.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's verify, run as a script from anywhere

from verify.report.directory import CHECKPOINT_DIR  # noqa: E402
from verify.report.status import checkpoint_status, report_status  # noqa: E402
from verify.sweep.store import NotAStoreError, merge_stores  # noqa: E402

MANIFEST = "manifest.json"
SWEEP_STORE = "sweep.sqlite"
#: A file larger than this is not copied into the repository (a clone carries every version of it).
MAX_FILE_BYTES = 20 * 2**20


class CampaignStateError(Exception):
    """A save or restore that cannot be done as asked; nothing was written."""


#: The environment variables of the running report that the manifest keeps (threads, import path, the toolkit's).
KEPT_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONPATH")


def _running_command(lock: dict[str, Any] | None) -> tuple[list[str], str] | None:
    """The command (the kept environment variables, then the argument list) and working folder of the process
    holding a report folder's ``lock`` (:func:`verify.report.status.report_status`'s), or None when none runs."""
    if not lock or not lock.get("held"):  # no lock, or one left by a killed report
        return None
    proc = Path("/proc") / str(lock["pid"])
    try:
        argv = [a for a in (proc / "cmdline").read_bytes().decode().split("\0") if a]
        env = dict(e.split("=", 1) for e in (proc / "environ").read_bytes().decode().split("\0") if "=" in e)
        cwd = os.readlink(proc / "cwd")
    except (OSError, UnicodeDecodeError):  # gone, another user's, or bytes that are not UTF-8: no command read
        return None
    if argv and Path(argv[0]).name.startswith("python"):
        argv[0] = "python"
    kept = [f"{k}={v}" for k, v in sorted(env.items()) if k in KEPT_ENV or k.startswith("TVK_")]
    return (["env", *kept] if kept else []) + argv, cwd


def _state_files(out: Path) -> list[Path]:
    folder = out / CHECKPOINT_DIR
    files = sorted(p for p in folder.glob("*.ckpt") if p.is_file()) if folder.is_dir() else []
    store = out / SWEEP_STORE
    return files + ([store] if store.is_file() else [])


def _check_name(name: str) -> None:
    """Refuse a campaign NAME that is not one plain folder name (``""``, ``.``, ``..`` or a path would make a save
    replace the campaigns folder itself, or a folder outside it)."""
    if name in ("", ".", "..") or Path(name).name != name:
        raise CampaignStateError(f"a campaign's NAME is one folder name, not {name!r}")


def _copy_store(src: Path, dst: Path) -> None:
    """A consistent copy of the SQLite store ``src`` (the cells still in its write-ahead log included, whatever a
    writer does meanwhile), as one self-contained file ``dst`` (rollback journal: no ``-wal``/``-shm`` beside it)."""
    source = sqlite3.connect(f"{src.resolve().as_uri().replace('file://', 'file:', 1)}?mode=ro", uri=True)
    target = sqlite3.connect(dst, isolation_level=None)
    try:
        source.backup(target)
        target.execute("PRAGMA journal_mode=DELETE")
    finally:
        target.close()
        source.close()


def save(out: Path, dest: Path, command: list[str] | None = None, cwd: str | None = None) -> dict[str, Any]:
    """Copy ``out``'s checkpoints and grid store into ``dest`` (replacing what it held) with their manifest.

    The files are gathered in a new folder beside ``dest`` that then takes its place, so a save that fails leaves
    the earlier one as it was.

    Raises
    ------
    CampaignStateError
        ``out`` holds no state, a checkpoint cannot be read, the files were written by more than one revision, a
        file is over ``MAX_FILE_BYTES``, no command is known (no report runs in ``out`` and none is given), ``dest``
        is a link, or a file could not be copied (a run that finished meanwhile removed its checkpoint).
    """
    files = _state_files(out)
    if not files:
        raise CampaignStateError(f"no checkpoint or grid store in {out} (nothing to save)")
    status = report_status(out)  # the lock and every checkpoint, each file read once
    checkpoints = status["checkpoints"]
    unread = [c["file"] for c in checkpoints if "error" in c]
    if unread:
        raise CampaignStateError(f"cannot read {', '.join(unread)}: wait for the next save and run this again")
    revisions = sorted({str(c["revision"]) for c in checkpoints})  # "None": a file that recorded no revision
    if len(revisions) > 1:
        raise CampaignStateError(f"checkpoints of several revisions ({', '.join(revisions)}): save one campaign")
    big = [p.name for p in files if p.stat().st_size > MAX_FILE_BYTES]
    if big:
        raise CampaignStateError(f"over {MAX_FILE_BYTES >> 20} MiB, not for the repository: {', '.join(big)}")
    running = _running_command(status["lock"])
    if command is None and running is not None:
        command, cwd = running
    if not command or not cwd:
        raise CampaignStateError(f"no report runs in {out}: give its --command and --cwd")
    if dest.is_symlink():
        raise CampaignStateError(f"{dest} is a link: save into a folder of the repository")
    manifest = {
        "revision": checkpoints[0]["revision"] if checkpoints else None,
        "cwd": str(Path(cwd).resolve()),
        "command": shlex.join(command),
        "out": str(out.resolve()),
        "checkpoints": [
            {k: c[k] for k in ("file", "bound_to", "trainer", "step", "steps", "saved")} for c in checkpoints
        ],
        "sweep_store": (out / SWEEP_STORE).is_file(),
    }
    dest.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        for path in files:
            if path.name == SWEEP_STORE:
                _copy_store(path, new / path.name)
            else:
                shutil.copy2(path, new / path.name)
        (new / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        new.chmod(0o755)  # mkdtemp's 0700 would travel with the folder
    except (OSError, sqlite3.Error) as exc:
        shutil.rmtree(new, ignore_errors=True)
        raise CampaignStateError(
            f"cannot copy the state of {out} ({type(exc).__name__}: {exc}); run this again"
        ) from exc
    if dest.exists():
        shutil.rmtree(dest)
    new.rename(dest)
    return manifest


def _manifest(src: Path) -> dict[str, Any]:
    """The manifest saved in ``src``, checked: its keys, and checkpoint files that are plain names present there."""
    try:
        manifest = json.loads((src / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise CampaignStateError(f"no campaign saved in {src} ({exc})") from exc
    try:
        entries = manifest["checkpoints"]
        names = [e["file"] for e in entries]
        fine = all(isinstance(e["step"], int) and "bound_to" in e and "steps" in e for e in entries)
        fine = fine and all(isinstance(manifest[k], str) for k in ("cwd", "command"))
    except (KeyError, TypeError):
        fine = False
    if not fine:
        raise CampaignStateError(f"{src / MANIFEST} is not a manifest of this script (another layout)")
    bad = [n for n in names if not isinstance(n, str) or Path(n).name != n or not n.endswith(".ckpt")]
    if bad:
        raise CampaignStateError(f"{src / MANIFEST} names files that are not checkpoints' names: {bad}")
    missing = [n for n in names + ([SWEEP_STORE] if manifest.get("sweep_store") else []) if not (src / n).is_file()]
    if missing:
        raise CampaignStateError(f"{src} lacks {', '.join(missing)}, which its manifest lists")
    return manifest


def _with_out(command: list[str], out: Path) -> list[str]:
    """``command`` with its report folder (``--out DIR`` or ``--out=DIR``; added where it had none) set to ``out``."""
    command = [f"--out={out}" if a.startswith("--out=") else a for a in command]
    if "--out" in command[:-1]:
        command[command.index("--out") + 1] = str(out)
    elif not any(a.startswith("--out=") for a in command):
        command += ["--out", str(out)]
    return command


def restore(src: Path, out: Path) -> list[str]:
    """Copy the state saved in ``src`` into ``out``; return the commands that resume the campaign.

    Raises
    ------
    CampaignStateError
        ``src`` holds no manifest of this script's layout (or one naming files it lacks, or that are not plain
        checkpoint names), a report runs in ``out``, ``out`` holds a checkpoint of the same run at a later step, or
        the saved grid store cannot be merged into ``out``'s.
    """
    manifest = _manifest(src)
    out = out.resolve()  # the printed command runs in another folder
    if out.is_dir() and (report_status(out)["lock"] or {}).get("held"):
        raise CampaignStateError(f"a report runs in {out}: stop it before restoring into it")
    folder = out / CHECKPOINT_DIR
    for entry in manifest["checkpoints"]:
        there = folder / entry["file"]
        if there.is_file():
            have = checkpoint_status(there)
            if have.get("step", -1) > entry["step"]:
                raise CampaignStateError(f"{there} is at step {have['step']}, later than the saved {entry['step']}")
    if manifest.get("sweep_store"):
        try:  # the saved cells added, OUT's own cells kept (a store of a later run has more of them)
            merge_stores(out / SWEEP_STORE, [src / SWEEP_STORE])
        except (NotAStoreError, sqlite3.Error) as exc:
            raise CampaignStateError(f"cannot merge {src / SWEEP_STORE} into {out / SWEEP_STORE}: {exc}") from exc
    folder.mkdir(parents=True, exist_ok=True)
    for entry in manifest["checkpoints"]:
        shutil.copy2(src / entry["file"], folder / entry["file"])
    cwd, command = manifest["cwd"], _with_out(shlex.split(manifest["command"]), out)
    steps = [f"# {c['bound_to']}: step {c['step']} of {c['steps']}" for c in manifest["checkpoints"]]
    if Path(cwd).is_dir():
        worktree = []
    elif manifest.get("revision"):
        worktree = [f"git worktree add {shlex.quote(cwd)} {shlex.quote(manifest['revision'])}"]
    else:  # a grid store alone: its cells are keyed by revision, the manifest names none
        worktree = [f"# {cwd} is missing: make it a worktree of the revision the grid ran (tvk sweep status)"]
    return [*steps, *worktree, f"cd {shlex.quote(cwd)} && {shlex.join(command)}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    s = sub.add_parser("save", help="copy OUT's training state into results/campaigns/NAME")
    s.add_argument("out", type=Path)
    s.add_argument("name")
    s.add_argument("--command", help="the report's command line, where no report runs in OUT")
    s.add_argument("--cwd", help="the folder it runs in (a worktree of the checkpoints' revision)")
    r = sub.add_parser("restore", help="put results/campaigns/NAME back into OUT and print how to resume")
    r.add_argument("name")
    r.add_argument("out", type=Path)
    for p in (s, r):
        p.add_argument("--campaigns", type=Path, default=ROOT / "results" / "campaigns")
    args = parser.parse_args(argv)
    try:
        _check_name(args.name)
        if args.action == "save":
            command = shlex.split(args.command) if args.command else None
            manifest = save(args.out, args.campaigns / args.name, command, args.cwd)
            for c in manifest["checkpoints"]:
                print(f"saved {c['bound_to']}: step {c['step']} of {c['steps']} ({c['file']})")
        else:
            print("\n".join(restore(args.campaigns / args.name, args.out)))
    except CampaignStateError as exc:
        print(f"campaign_state: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
