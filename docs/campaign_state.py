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
    trainers write checkpoints by a rename, so a copy taken while the report runs is whole.
``python docs/campaign_state.py restore NAME OUT``
    puts them back into OUT (refusing to replace a checkpoint of a later step) and prints the commands that resume
    the campaign: a worktree of the revision where the folder is missing, then the report.

Remove ``results/campaigns/NAME/`` in the commit that archives the campaign's record.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's verify, run as a script from anywhere

from verify.report.directory import CHECKPOINT_DIR  # noqa: E402
from verify.report.status import checkpoint_status, report_status  # noqa: E402

MANIFEST = "manifest.json"
SWEEP_STORE = "sweep.sqlite"
#: A file larger than this is not copied into the repository (a clone carries every version of it).
MAX_FILE_BYTES = 20 * 2**20


class CampaignStateError(Exception):
    """A save or restore that cannot be done as asked; nothing was written."""


#: The environment variables of the running report that the manifest keeps (threads, import path, the toolkit's).
KEPT_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONPATH")


def _running_command(out: Path) -> tuple[list[str], str] | None:
    """The command (the kept environment variables, then the argument list) and working folder of the process
    holding ``out``'s report lock, or None when none runs."""
    lock = report_status(out)["lock"]
    if not lock or not lock.get("held"):  # no lock, or one left by a killed report
        return None
    proc = Path("/proc") / str(lock["pid"])
    try:
        argv = [a for a in (proc / "cmdline").read_bytes().decode().split("\0") if a]
        env = dict(e.split("=", 1) for e in (proc / "environ").read_bytes().decode().split("\0") if "=" in e)
        cwd = os.readlink(proc / "cwd")
    except OSError:
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


def save(out: Path, dest: Path, command: list[str] | None = None, cwd: str | None = None) -> dict[str, Any]:
    """Copy ``out``'s checkpoints and grid store into ``dest`` (replacing what it held) with their manifest.

    Raises
    ------
    CampaignStateError
        ``out`` holds no state, a checkpoint cannot be read, the files were written by more than one revision, a
        file is over ``MAX_FILE_BYTES``, or no command is known (no report runs in ``out`` and none is given).
    """
    files = _state_files(out)
    if not files:
        raise CampaignStateError(f"no checkpoint or grid store in {out} (nothing to save)")
    checkpoints = [checkpoint_status(p) for p in files if p.suffix == ".ckpt"]
    unread = [c["file"] for c in checkpoints if "error" in c]
    if unread:
        raise CampaignStateError(f"cannot read {', '.join(unread)}: wait for the next save and run this again")
    revisions = sorted({c["revision"] for c in checkpoints})
    if len(revisions) > 1:
        raise CampaignStateError(f"checkpoints of several revisions ({', '.join(revisions)}): save one campaign")
    big = [p.name for p in files if p.stat().st_size > MAX_FILE_BYTES]
    if big:
        raise CampaignStateError(f"over {MAX_FILE_BYTES >> 20} MiB, not for the repository: {', '.join(big)}")
    running = _running_command(out)
    if command is None and running is not None:
        command, cwd = running
    if not command or not cwd:
        raise CampaignStateError(f"no report runs in {out}: give its --command and --cwd")
    manifest = {
        "revision": revisions[0] if revisions else None,
        "cwd": cwd,
        "command": shlex.join(command),
        "out": str(out),
        "checkpoints": [
            {k: c[k] for k in ("file", "bound_to", "trainer", "step", "steps", "saved")} for c in checkpoints
        ],
        "sweep_store": (out / SWEEP_STORE).is_file(),
    }
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for path in files:
        shutil.copy2(path, dest / path.name)
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def restore(src: Path, out: Path) -> list[str]:
    """Copy the state saved in ``src`` into ``out``; return the commands that resume the campaign.

    Raises
    ------
    CampaignStateError
        ``src`` holds no manifest, or ``out`` holds a checkpoint of the same run at a later step.
    """
    try:
        manifest = json.loads((src / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise CampaignStateError(f"no campaign saved in {src} ({exc})") from exc
    folder = out / CHECKPOINT_DIR
    for entry in manifest["checkpoints"]:
        there = folder / entry["file"]
        if there.is_file():
            have = checkpoint_status(there)
            if have.get("step", -1) > entry["step"]:
                raise CampaignStateError(f"{there} is at step {have['step']}, later than the saved {entry['step']}")
    folder.mkdir(parents=True, exist_ok=True)
    for entry in manifest["checkpoints"]:
        shutil.copy2(src / entry["file"], folder / entry["file"])
    if manifest.get("sweep_store"):
        shutil.copy2(src / SWEEP_STORE, out / SWEEP_STORE)
    cwd, command = manifest["cwd"], shlex.split(manifest["command"])
    if "--out" in command[:-1]:  # the report writes where the state now is
        command[command.index("--out") + 1] = str(out)
    steps = [f"# {c['bound_to']}: step {c['step']} of {c['steps']}" for c in manifest["checkpoints"]]
    worktree = [] if Path(cwd).is_dir() else [f"git worktree add {shlex.quote(cwd)} {manifest['revision']}"]
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
