"""Where a result came from, written once (docs/report.md, "Provenance"): the git state of this checkout, the code
revision that keys checkpoints and stored sweep cells, library versions and the hardware.

Each is computed once per process (the code that runs is the code imported when it started, so a later edit of the
checkout does not change what ran): a report computes them once and every record and checkpoint reuses them.
Nothing here imports torch; :func:`hardware` consults torch only when it is already imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata as md
import os
import platform
import subprocess
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "CODE_DIRS",
    "LIBRARIES",
    "RECORD_LIBRARIES",
    "code_revision",
    "git_revision",
    "git_state",
    "hardware",
    "library_versions",
]

ROOT = Path(__file__).resolve().parents[2]
#: The directories whose state keys stored results (an edit elsewhere, in tests or docs, keeps them valid).
CODE_DIRS = ("theory", "numerics", "verify")
#: Libraries whose versions the header of ``results.json`` records (when installed).
LIBRARIES = ("numpy", "scipy", "sympy", "torch", "cvxpy", "clarabel", "scs", "matplotlib", "jinja2")
#: Libraries whose versions every claim record carries.
RECORD_LIBRARIES = ("numpy", "scipy", "sympy", "cvxpy", "torch", "theory-verification-kit")


def _git(args: list[str], cwd: Path = ROOT) -> str | None:
    """``git args`` in ``cwd``: its stdout, or None when git is missing, fails or takes more than 10 s."""
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10, cwd=cwd)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


@cache
def git_revision() -> str | None:
    """The commit of this checkout (``git rev-parse HEAD``), None outside git."""
    out = _git(["rev-parse", "HEAD"])
    return out.strip() or None if out else None


def git_state(cwd: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """``{"revision": HEAD or None, "dirty": True when tracked files differ from HEAD, None when unknown}``."""
    where = Path(cwd) if cwd is not None else ROOT
    rev = (_git(["rev-parse", "HEAD"], where) or "").strip() or None
    status = _git(["status", "--porcelain", "--untracked-files=no"], where) if rev else None
    return {"revision": rev, "dirty": None if status is None else bool(status.strip())}


@cache
def _checkout_revision() -> str:
    head = git_revision()
    if not head:
        try:
            return "v" + md.version("theory-verification-kit")
        except md.PackageNotFoundError:
            return "unknown"
    rev = head[:12]
    diff = _git(["diff", "HEAD", "--", *CODE_DIRS]) or ""
    untracked = (_git(["ls-files", "--others", "--exclude-standard", "--", *CODE_DIRS]) or "").split()
    if diff or untracked:
        h = hashlib.sha1(diff.encode())
        for name in sorted(untracked):
            if name.endswith(".py"):
                h.update(name.encode())
                h.update((ROOT / name).read_bytes())
        rev += f"+dirty.{h.hexdigest()[:8]}"
    return rev


def code_revision() -> str:
    """The code revision that keys checkpoints and stored cells.

    ``TVK_CODE_REVISION`` if set; else the git commit of this checkout (12 hex digits), with ``+dirty.<hash>``
    when tracked or untracked files under ``theory/``, ``numerics/`` or ``verify/`` differ from it (the hash of
    that difference, so an edited trainer never reuses results of the old code); outside git the package version.
    """
    return os.environ.get("TVK_CODE_REVISION") or _checkout_revision()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def hardware() -> dict[str, Any]:
    """CPU model, logical threads, platform, and the GPU name and CUDA version when torch sees one (torch is only
    consulted when it is already imported, so this never pays for importing it)."""
    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "threads": os.cpu_count(),
        "platform": platform.platform(),
        "gpu": None,
        "cuda": None,
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_available():
                info["gpu"] = torch.cuda.get_device_name(0)
                info["cuda"] = torch.version.cuda
        except Exception:  # a broken driver leaves the GPU fields empty rather than failing the report
            pass
    return info


def library_versions(names: Iterable[str] = LIBRARIES) -> dict[str, str]:
    """Python's version and the installed versions of ``names`` (those not installed are left out)."""
    return dict(_versions(tuple(names)))


@cache
def _versions(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = {"python": platform.python_version()}
    for name in names:
        with contextlib.suppress(md.PackageNotFoundError):
            out[name] = md.version(name)
    return tuple(out.items())
