"""``tvk status``: where a report directory stands while its claims run, without touching it (docs/report.md,
"Watching a long report").

A full-scale campaign runs for hours to days (docs/running_at_scale.md), usually with ``--no-progress`` in the
background. This reads what the report leaves in its directory as it goes and writes nothing:

* the lock (:data:`verify.report.directory.LOCK_NAME`): the pid of the report writing into the directory, and
  whether that process is still alive (a killed report leaves the file behind);
* the journal (:data:`verify.report.directory.JOURNAL_NAME`): the records finished so far, by verdict;
* the finished report (``results.json``): when it was generated and its verdicts;
* the training runs' checkpoints in ``.checkpoints``: the claim (or the shared run) each is bound to, its trainer,
  the step it saved of its run's steps, the dtype, when it was saved, and whether the code running ``tvk status``
  would resume it (the same code revision: :func:`verify.runtime.provenance.code_revision`) or set it aside
  (docs/report.md, "Binding"); files already set aside (``.untrusted``, ``.corrupt``) are listed apart.

Grid claims keep their cells in ``sweep.sqlite``: ``tvk sweep status`` reads it.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verify.report.directory import CHECKPOINT_DIR, JOURNAL_NAME, LOCK_NAME, lock_holder
from verify.runtime.provenance import code_revision

__all__ = ["checkpoint_status", "report_status", "status_text"]

#: Suffixes of checkpoints set aside (:func:`verify.runtime.claim_run.quarantine`).
SET_ASIDE = (".untrusted", ".corrupt")


def _utc(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (signal 0 checks without sending; one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _flock_held(path: Path) -> bool | None:
    """Whether some process holds a ``flock`` on the file ``path``, read from ``/proc/locks`` (nothing is locked
    here: even a brief lock of ours would make a report starting at that moment refuse the directory); None where
    the kernel does not list its locks."""
    try:
        st = path.stat()
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in table.splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == key:  # a waiter's line has "->" in fields[1]
            return True
    return False


def _not_regular(path: Path) -> str | None:
    """Why ``path`` may not be read as a file (a FIFO or a device would block the read, a folder cannot be read);
    None for a regular file or nothing at all."""
    return f"{path.name} is not a regular file" if path.exists() and not path.is_file() else None


def _text_of(path: Path) -> str:
    """The text of the regular file ``path`` (FileNotFoundError when there is none); OSError for anything else at
    that name (:func:`_not_regular`)."""
    why = _not_regular(path)
    if why:
        raise OSError(why)
    return path.read_text(encoding="utf-8", errors="replace")


def _lock(out: Path) -> dict[str, Any] | None:
    """The lock file's pid, whether that process is alive and whether the lock is held (``held``: a live pid alone
    may be an unrelated process that took a killed report's pid; None where it cannot be told); None without a lock
    file."""
    path = out / LOCK_NAME
    if not (path.exists() or path.is_symlink()):
        return None
    why = _not_regular(path)
    if why:
        return {"pid": None, "alive": None, "held": None, "error": why}
    pid = lock_holder(path)
    return {"pid": pid, "alive": None if pid is None else _alive(pid), "held": _flock_held(path)}


def _verdicts(records: list[Mapping[str, Any]]) -> dict[str, int]:
    return dict(Counter(str(r.get("verdict")) for r in records))


def _journal(out: Path) -> dict[str, Any] | None:
    """The journal's records by verdict (a line cut short by a kill is counted apart); None without a journal."""
    path = out / JOURNAL_NAME
    try:
        lines = _text_of(path).splitlines()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    records, unreadable = [], 0
    for line in lines:
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            unreadable += 1
            continue
        if isinstance(rec, dict):
            records.append(rec)
        else:
            unreadable += 1
    return {
        "records": len(records),
        "verdicts": _verdicts(records),
        "last": records[-1].get("id") if records else None,
        "unreadable_lines": unreadable,
        "modified": _utc(path.stat().st_mtime),
    }


def _results(out: Path) -> dict[str, Any] | None:
    """The finished report's generation time and verdicts; None without ``results.json``."""
    path = out / "results.json"
    try:
        obj = json.loads(_text_of(path))
    except FileNotFoundError:
        if path.is_symlink():  # the report's link into .tvk-current (verify/report/directory.py) leads nowhere
            return {"error": f"a link to {os.readlink(path)!r}, which does not exist"}
        return None
    except (OSError, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    claims = obj.get("claims") if isinstance(obj, dict) else None
    header = obj.get("header") if isinstance(obj, dict) else None
    if not isinstance(claims, list) or not all(isinstance(c, dict) for c in claims):
        return {"error": "not a report's results (no list of claim records under 'claims')"}
    if not isinstance(header, dict):
        header = {}
    return {
        "generated": header.get("generated"),
        "scale": header.get("scale"),
        "claims": len(claims),
        "verdicts": _verdicts(claims),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def checkpoint_status(path: str | os.PathLike[str], revision: str | None = None) -> dict[str, Any]:
    """What a trainer's checkpoint holds, for :func:`report_status`.

    Parameters
    ----------
    path : path-like
        The checkpoint file (``<trainer tag>_<configuration hash>.ckpt``).
    revision : str, optional
        The code revision to compare with (default: this code's,
        :func:`verify.runtime.provenance.code_revision`).

    Returns
    -------
    dict
        ``file``, ``bound_to`` (the claim id, or the sharing claims' ids joined by ``" + "``), ``trainer``,
        ``step``, ``steps`` (the run's steps when its configuration names them, else None), ``dtype``, ``saved``
        (the file's modification time, UTC), ``revision`` (the code revision that wrote it) and ``resumes_here``
        (whether ``revision`` equals it: code of another revision sets the file aside instead of resuming it); for
        a file that cannot be read, ``file`` and ``error``.
    """
    from verify.runtime.checkpoint import read_checkpoint  # deferred: torch

    path = Path(path)
    here = code_revision() if revision is None else revision
    try:
        state = read_checkpoint(path)
        binding = state.get("binding") or {}
        config = state.get("config") or {}
        steps = config.get("steps") if isinstance(config, Mapping) else None
        meta = state.get("meta") or {}
        return {  # strings or None whatever the file holds, so the --json output is always JSON
            "file": path.name,
            "bound_to": _text(binding.get("claim")),
            "trainer": _text(state.get("trainer")),
            "step": int(state["step"]),
            "steps": steps if isinstance(steps, int) and not isinstance(steps, bool) else None,
            "dtype": _text(
                (meta.get("dtype") if isinstance(meta, Mapping) else None)
                or (config.get("dtype") if isinstance(config, Mapping) else None)
            ),
            "saved": _utc(path.stat().st_mtime),
            "revision": _text(binding.get("revision")),
            "resumes_here": binding.get("revision") == here,
        }
    except Exception as exc:  # a file being replaced, truncated, foreign: say so, never stop the status
        return {"file": path.name, "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"}


def report_status(out: str | os.PathLike[str]) -> dict[str, Any]:
    """Where the report directory ``out`` stands (the module's list), as plain data; nothing is written.

    Raises
    ------
    ValueError
        ``out`` is not a directory.
    """
    out = Path(out)
    if not out.is_dir():
        raise ValueError(f"no report directory at {str(out)!r} (tvk report --out DIR writes one)")
    folder = out / CHECKPOINT_DIR
    try:
        files, folder_error = (sorted(folder.iterdir()) if folder.is_dir() else []), None
    except OSError as exc:  # a folder the user may not list: said, the rest of the status still shown
        files, folder_error = [], f"{type(exc).__name__}: {exc}"
    revision = code_revision()
    return {
        "directory": str(out),
        "lock": _lock(out),
        "journal": _journal(out),
        "results": _results(out),
        "revision": revision,
        "checkpoints": [checkpoint_status(p, revision) for p in files if p.suffix == ".ckpt" and p.is_file()],
        "checkpoints_error": folder_error,
        "set_aside": [p.name for p in files if p.suffix in SET_ASIDE],
        "sweep_store": (out / "sweep.sqlite").is_file(),
    }


def _counts(verdicts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items(), key=lambda kv: -kv[1])) or "none"


def _checkpoint_line(c: Mapping[str, Any], revision: str) -> str:
    if "error" in c:
        return f"  {c['file']}: unreadable now ({c['error']})"
    of = ""
    if c["steps"]:
        of = f" of {c['steps']:,} ({100 * c['step'] / c['steps']:.1f} %)"
    written = c["revision"]  # whole: a cut "abc+dirty.1234" would read as the clean checkout abc
    if c["resumes_here"]:
        resumes = "this code resumes it"
    elif written is None:
        resumes = f"no code revision recorded: this code ({revision}) would set it aside"
    else:
        who = (
            f"only code with the same uncommitted edits to {written.split('+')[0]} resumes it"
            if "+" in written
            else f"a checkout of {written} resumes it"
        )
        resumes = f"written by revision {written}: this code ({revision}) would set it aside, {who}"
    return (
        f"  {c['bound_to'] or '(no claim)'}: step {c['step']:,}{of}, trainer {c['trainer']}, {c['dtype'] or 'dtype ?'}, "
        f"saved {c['saved']}; {resumes} ({c['file']})"
    )


def status_text(status: Mapping[str, Any]) -> str:
    """:func:`report_status` as the lines ``tvk status`` prints."""
    lock, journal, results = status["lock"], status["journal"], status["results"]
    who = "a process" if lock is None or lock["pid"] is None else f"process {lock['pid']}"
    if lock is None:
        running = "no report is running in it"
    elif lock.get("held") or (lock.get("held") is None and lock.get("alive")):
        running = f"a report is running in it ({who} holds its lock)"
    elif lock.get("held") is None and lock.get("alive") is None:
        running = "a lock file without a pid in it: a report is starting or ended without releasing it"
    else:
        now = ", now another program" if lock.get("alive") else ""
        running = f"a report that ended without releasing its lock ({who}{now}) left it; none runs now"
    lines = [f"{status['directory']}: {running}"]
    if lock is not None and "error" in lock:
        lines[0] = f"{status['directory']}: its lock cannot be read ({lock['error']})"
    if journal is not None and "error" in journal:
        lines.append(f"{JOURNAL_NAME}: unreadable ({journal['error']})")
    elif journal is not None:
        cut = f"; {journal['unreadable_lines']} line(s) not a record" if journal["unreadable_lines"] else ""
        last = f", the last {journal['last']}" if journal["last"] else ""
        lines.append(
            f"records of the current or last run: {journal['records']} ({_counts(journal['verdicts'])}){last}; "
            f"journal written {journal['modified']}{cut}"
        )
    if results is not None:
        if "error" in results:
            lines.append(f"results.json: unreadable ({results['error']})")
        else:
            lines.append(
                f"finished report: {results['claims']} claims at {results['scale']} scale, generated "
                f"{results['generated']} ({_counts(results['verdicts'])})"
            )
    ckpts = status["checkpoints"]
    if status.get("checkpoints_error"):
        lines.append(f"{CHECKPOINT_DIR}: cannot be listed ({status['checkpoints_error']})")
    lines.append(f"training runs with a checkpoint: {len(ckpts)}" + (":" if ckpts else ""))
    lines += [_checkpoint_line(c, status["revision"]) for c in ckpts]
    if status["set_aside"]:
        lines.append(f'set aside (not resumed; docs/report.md, "Binding"): {", ".join(status["set_aside"])}')
    if status["sweep_store"]:
        lines.append(f"grid cells: tvk sweep status --out {status['directory']}")
    return "\n".join(lines)
