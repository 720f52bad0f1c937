"""Carry the ``claim_code`` of the archived records over to today's claim-code hash, without re-running anything
and without hiding a real change.

Two changes of the hash made this necessary:

- 2026-11-29: a record's claim code hashed every ``*.py`` file of the claim's family package under
  ``verify/claims/``, so adding a claim to one module made every record of the family stale. The hash now covers
  the claim's own module and the family modules it imports (:func:`verify.report.archive.claim_code_files`).
- 2026-11-30: the hash was over the files' bytes, so a corrected comment or docstring made the claim's records
  stale, each a re-run of up to hours. It is now over their code text (:func:`verify.report.archive.code_text`:
  without comments, docstrings and blank lines), written ``"text:<16 hex digits>"``.

For each record:

- a record gets the text hash of the code at its own revision (``metadata.git_revision``, read with
  ``git show``), after checking that one of the older hashes at that revision (family-wide or per-claim, over the
  bytes) is the stored one (so the record was made from that commit's code); it is then stale exactly when its
  own modules' code text changed since;
- a record whose revision cannot be read but whose stored hash equals one of the older hashes of today's code gets
  today's text hash;
- any other record (no revision, a revision git does not have, a stored hash that does not match its revision) is
  left as it is, and stays stale.

``python docs/migrate_claim_code.py [results]`` prints one line per record changed and a summary; running it again
changes nothing (a record from an older checkout, written with a bytes hash, is carried over by the next run).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verify.claims import registry  # noqa: E402
from verify.report import archive  # noqa: E402


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, check=False)


def _family_files(start: Path, listing: Callable[[Path], list[Path]]) -> list[Path]:
    """The files of the family-wide hash (before 2026-11-29): every ``*.py`` of the family package, or ``start``."""
    rel = start.relative_to(archive.CLAIMS_ROOT) if archive.CLAIMS_ROOT in start.parents else None
    if rel is None or len(rel.parts) == 1:
        return [start]
    return sorted(listing(archive.CLAIMS_ROOT / rel.parts[0]))


def _at_revision(rev: str) -> tuple[Callable[[Path], bytes | None], Callable[[Path], list[Path]]]:
    def read(path: Path) -> bytes | None:
        out = _git("show", f"{rev}:{path.relative_to(ROOT).as_posix()}")
        return out.stdout if out.returncode == 0 else None

    def listing(folder: Path) -> list[Path]:
        out = _git("ls-tree", "-r", "--name-only", rev, folder.relative_to(ROOT).as_posix())
        return [ROOT / line for line in out.stdout.decode().split() if line.endswith(".py")]

    return read, listing


def _now() -> tuple[Callable[[Path], bytes | None], Callable[[Path], list[Path]]]:
    def read(path: Path) -> bytes | None:
        return path.read_bytes() if path.is_file() else None

    def listing(folder: Path) -> list[Path]:
        return [p for p in folder.rglob("*.py") if "__pycache__" not in p.parts]

    return read, listing


def _hashes(
    claim: object, read: Callable[[Path], bytes | None], listing: Callable[[Path], list[Path]]
) -> tuple[str, str, str] | None:
    """(family-wide bytes hash, per-claim bytes hash, per-claim text hash) of ``claim``'s code as ``read`` sees it;
    None when a file is missing."""
    module, also = archive.claim_modules(claim)
    first = archive._module_file(module)
    if first is None:
        return None
    text = lambda p: None if (b := read(p)) is None else b.decode()  # noqa: E731
    per_claim = sorted(set(archive._code_files(module, also, text)))
    family = _family_files(first, listing)
    if any(read(p) is None for p in (*per_claim, *family)):
        return None
    strict = lambda p: read(p) or b""  # noqa: E731
    code = lambda p: archive.code_text(strict(p).decode()).encode()  # noqa: E731
    return (
        archive.code_hash(family, strict),
        archive.code_hash(per_claim, strict),
        archive.TEXT_HASH_PREFIX + archive.code_hash(per_claim, code),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default=str(ROOT / "results"))
    args = parser.parse_args()
    claims = registry()
    now = _now()
    tally: Counter[str] = Counter()
    for path in sorted(Path(args.results).glob("*/*.json")):
        rec = json.loads(path.read_text())
        claim = claims.get(rec["id"])
        hashes = _hashes(claim, *now) if claim is not None else None
        if hashes is None:
            tally["left: claim or module unknown"] += 1
            continue
        *older_now, text_now = hashes
        stored = rec.get("claim_code")
        if stored == text_now:
            tally["already current"] += 1
            continue
        if isinstance(stored, str) and stored.startswith(archive.TEXT_HASH_PREFIX):
            tally["already a text hash (stale: its modules changed since)"] += 1
            continue
        rev = (rec.get("metadata") or {}).get("git_revision") or ""
        then = _hashes(claim, *_at_revision(rev)) if rev else None
        if then is not None and stored in then[:2]:  # made from its revision's code: compare that code with today's
            new = then[2]
            why = "current" if new == text_now else "stale (its modules changed since)"
        elif stored in older_now:  # its revision unreadable, but the code is today's
            new, why = text_now, "current (code unchanged)"
        else:
            tally["left stale: the stored hash does not match its revision"] += 1
            continue
        rec["claim_code"] = new
        archive.write_text_atomic(path, archive.record_text(rec))
        tally[why] += 1
        print(f"{path.relative_to(Path(args.results).parent)}: {stored} -> {new} ({why})")
    for what, n in sorted(tally.items()):
        print(f"{n:4d} {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
