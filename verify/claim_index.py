"""A static index of the built-in claims, so ``tvk list`` answers without importing torch (or the claim modules).

Importing :mod:`verify.claims` imports every task module, and twelve of the sixteen import torch through their
training code (about 3 s). What ``tvk list`` shows (id, kind, source, the scales with a configuration, whether
the claim refutes a printed statement) changes only when a claim module changes, so it is written once to
``verify/claim_index.json`` by::

    python -m verify.claim_index --write      # after adding or changing a claim
    python -m verify.claim_index --check      # exit status 1 when the file is stale

The file records a SHA-256 digest of every ``verify/claims/**/*.py``; :func:`load_index` returns None when the
sources no longer match it, and :func:`list_claims` then imports the registry instead, so a stale index is slower,
never wrong. ``tests/verify/test_claim_index.py`` checks that the committed file is fresh.

This module imports only the standard library; it must not import :mod:`verify.claims` at module level.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import importlib.metadata as md
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from verify.runtime.selection import claim_patterns  # the same rule as verify.claims.select

__all__ = [
    "CLAIMS_DIR",
    "INDEX_PATH",
    "IndexEntry",
    "build_index",
    "check_claim_paths",
    "list_claims",
    "load_index",
    "main",
    "select_indexed",
    "sources_digest",
    "write_index",
]

SCHEMA_VERSION = 1
#: Where the index lives (next to this module; package data).
INDEX_PATH = Path(__file__).resolve().with_name("claim_index.json")
#: The sources the index is derived from.
CLAIMS_DIR = Path(__file__).resolve().parent / "claims"
#: Entry-point group of claims written outside the package (:mod:`verify.claims.external`).
ENTRY_POINT_GROUP = "tvk.claims"


@dataclass(frozen=True)
class IndexEntry:
    """What ``tvk list`` shows of a claim: the same ``id``, ``kind`` and ``source`` attributes as a Claim, the
    scales it has a configuration at, and whether it is about a statement as printed (``Claim.refuting``)."""

    id: str
    kind: str
    source: str
    scales: tuple[str, ...]
    refuting: bool


def sources_digest(root: Path = CLAIMS_DIR) -> str:
    """SHA-256 over the relative path and bytes of every ``*.py`` under ``root``, in sorted path order."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def build_index() -> dict[str, Any]:
    """The index of the built-in claims in registration order (imports :mod:`verify.claims`, hence torch).

    Claims loaded from outside the package (:mod:`verify.claims.external`) are left out.
    """
    from verify.claims import external, registry  # deferred: the point of this module is not to import them

    loaded = {cid for ids in external._LOADED.values() for cid in ids}
    entries = []
    for claim in registry().values():
        if claim.id in loaded:
            continue
        entry = IndexEntry(claim.id, claim.kind, claim.source, tuple(claim.configs), claim.refuting)
        entries.append({**asdict(entry), "scales": list(entry.scales)})
    return {"schema_version": SCHEMA_VERSION, "sources_sha256": sources_digest(), "claims": entries}


def write_index(path: Path = INDEX_PATH) -> dict[str, Any]:
    """Build the index and write it to ``path`` (one claim per line, stable order); returns it."""
    index = build_index()
    lines = [json.dumps(entry, ensure_ascii=False) for entry in index["claims"]]
    header = {k: v for k, v in index.items() if k != "claims"}
    text = json.dumps(header)[:-1] + ', "claims": [\n' + ",\n".join(lines) + "\n]}\n"
    Path(path).write_text(text, encoding="utf-8")
    return index


def load_index(path: Path = INDEX_PATH, *, check_fresh: bool = True) -> list[IndexEntry] | None:
    """The indexed claims, or None when the file is missing, unreadable, of another schema version, or (with
    ``check_fresh``) derived from claim sources other than the current ones."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        return None
    if check_fresh and data.get("sources_sha256") != sources_digest():
        return None
    try:
        return [
            IndexEntry(e["id"], e["kind"], e["source"], tuple(e["scales"]), bool(e["refuting"])) for e in data["claims"]
        ]
    except (KeyError, TypeError):
        return None


def select_indexed(entries: Sequence[IndexEntry], pattern: str | None = None, scale: str = "quick") -> list[IndexEntry]:
    """The entries whose id matches the shell-style ``pattern`` (:func:`claim_patterns`) and that have a
    configuration at ``scale``: the same rule as :func:`verify.claims.select`."""
    pats = claim_patterns(pattern)
    return [e for e in entries if scale in e.scales and any(fnmatch.fnmatch(e.id, p) for p in pats)]


def _has_entry_points(group: str = ENTRY_POINT_GROUP) -> bool:
    return bool(md.entry_points(group=group))


def check_claim_paths(modules: Sequence[str]) -> None:
    """Refuse a ``--claims`` path that names a directory (a path to a ``.py`` file is expected), before anything is
    imported: a ValueError naming it (the loader would say "no such file")."""
    for raw in modules:
        text = str(raw).strip()
        path_like = text.endswith(".py") or os.sep in text or bool(os.altsep and os.altsep in text)
        if path_like and Path(text).expanduser().is_dir():
            raise ValueError(
                f"claim module {text}: is a directory, not a .py file (a path to a .py file, or a dotted module name)"
            )


def list_claims(pattern: str | None = None, scale: str = "quick", modules: Sequence[str] = ()) -> list[Any]:
    """The claims ``tvk list`` shows: objects with ``id``, ``kind`` and ``source``, in registration order.

    From the index when it is fresh and nothing outside the package is to be loaded (no ``modules``, no installed
    ``tvk.claims`` entry point); otherwise from the registry, after loading the entry points and ``modules``
    (:mod:`verify.claims.external`), which imports torch.
    """
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    check_claim_paths(modules)
    if not modules and not _has_entry_points():
        entries = load_index()
        if entries is not None:
            return select_indexed(entries, pattern, scale)
    from verify.claims import select  # deferred: imports torch
    from verify.claims.external import load_claim_modules, load_entry_points

    load_entry_points()
    load_claim_modules(list(modules))
    return select(pattern, scale)  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m verify.claim_index [--write | --check] [--path FILE]``."""
    parser = argparse.ArgumentParser(prog="python -m verify.claim_index", description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="rebuild the index file (the default)")
    what.add_argument("--check", action="store_true", help="exit with status 1 when the index file is stale")
    parser.add_argument("--path", type=Path, default=INDEX_PATH, help=f"index file (default {INDEX_PATH.name})")
    args = parser.parse_args(argv)
    if args.check:
        stored = load_index(args.path, check_fresh=False)
        fresh = [IndexEntry(**{**e, "scales": tuple(e["scales"])}) for e in build_index()["claims"]]
        if stored != fresh or load_index(args.path) is None:
            print(f"{args.path} is stale: run python -m verify.claim_index --write", file=sys.stderr)
            return 1
        print(f"{args.path} is up to date ({len(fresh)} claims)")
        return 0
    index = write_index(args.path)
    print(f"wrote {args.path} ({len(index['claims'])} claims)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
