"""The results archive (docs/running_at_scale.md, "The results archive"): one small JSON record per claim and scale,
kept in the repository under ``results/<scale>/<claim id>.json``, so that verdicts at the theses' own settings
outlive the report directory that produced them.

``tvk report ... --archive results/`` writes each finished record into it (:func:`archive_records`); a record
replaces the archived one only when it finished later (``finished``, the record's ``metadata.timestamp``), never
the reverse, and every write is atomic (a temporary file renamed over the old one). A record is *stale* when the
claim's configuration at its scale (``config_hash``) or the claim's code (``claim_code``) has changed since
(:func:`staleness`).

The claim code is the SHA-256 over the relative path and the code text (:func:`code_text`: the source without
its comments, docstrings, blank lines and trailing white space) of the ``*.py`` files that make the claim: the
module that defines its ``observe`` (or ``predict``) and every module of the same family package under
``verify/claims/`` that it imports, directly or through another (so shared ``common.py`` helpers that decide
verdicts count, and a sibling module that adds other claims does not; the package's ``__init__``, which only
imports its modules, is left out); or that module alone when it sits directly in ``verify/claims/`` or outside the
package. It is robust to unrelated commits (unlike a git revision), to edits of comments and docstrings, and needs
no git (unlike a diff against a revision). Such a hash is written ``"text:<16 hex digits>"``; a record written
before 2026-11-30 holds the hash of the files' bytes (16 hex digits alone), compared as such
(:func:`claim_code_matches`) until ``docs/migrate_claim_code.py`` carries it over. Changes in ``theory/``,
``numerics/`` or the trainers are not detected by it: each record also carries ``code_revision``
(:func:`verify.runtime.provenance.code_revision`) for that.

Only the standard library and :mod:`verify.runtime` are imported at module level; the claims (hence torch) only
where staleness is computed.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import json
import os
import sys
import tokenize
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from verify.report.directory import JournalWrapper
from verify.runtime.files import missing_folders, remove_empty_folders, write_text_atomic
from verify.runtime.jsonable import config_hash
from verify.runtime.provenance import code_revision, hardware

__all__ = [
    "ARCHIVE_SCHEMA",
    "MAX_VALUE_CHARS",
    "MAX_VALUE_CHARS_RESULT",
    "ArchiveError",
    "ArchivingJournal",
    "archive_records",
    "archive_row",
    "archive_view",
    "claim_code_hash",
    "claim_code_matches",
    "code_text",
    "finished_at",
    "load_archive",
    "make_record",
    "merge_record",
    "record_path",
    "report_from_archive",
    "staleness",
]

ARCHIVE_SCHEMA = 1
#: A value under ``details`` or ``artifacts`` whose JSON is longer than this many characters (a training
#: history, a sample of points) is left out of the archived record; its key is listed under ``trimmed``.
MAX_VALUE_CHARS = 4000
#: Largest predicted, observed or config value (its JSON text) kept in an archived record: a longer list (a whole trajectory,
#: thousands of points) is left out and listed under ``trimmed``; the record's ``error`` is computed before.
MAX_VALUE_CHARS_RESULT = 50_000
#: Fields of a record kept as they are when present (the population and deviation fields of the verdict rules).
OPTIONAL_FIELDS = ("population", "deviations", "post_hoc", "erratum")
CLAIMS_ROOT = Path(__file__).resolve().parents[1] / "claims"


class ArchiveError(ValueError):
    """The archive directory or one of its records cannot be read or written."""


def record_path(root: str | Path, scale: str, claim_id: str) -> Path:
    """``root/<scale>/<claim id>.json``."""
    if "/" in claim_id or claim_id.startswith("."):
        raise ArchiveError(f"claim id {claim_id!r} cannot name an archive file")
    return Path(root) / scale / f"{claim_id}.json"


def finished_at(record: Mapping[str, Any]) -> datetime | None:
    """When ``record`` finished: its ``finished`` field, else ``metadata.timestamp`` (ISO 8601, with a UTC offset;
    one without an offset is read as UTC); None when neither parses."""
    text = record.get("finished") or (record.get("metadata") or {}).get("timestamp")
    if not isinstance(text, str):
        return None
    for fmt in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S"):
        try:
            t = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return t if t.tzinfo else t.replace(tzinfo=UTC)
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


@functools.lru_cache(maxsize=1024)
def _imported_modules(path: Path, source: str) -> frozenset[Path]:
    """The ``.py`` files under ``verify/claims/`` (as paths, existing or not) that the module at ``path`` imports:
    relative imports, ``verify.claims....`` imports and the names of ``from PKG import name`` that may be modules.
    Kept by path and text for the process (a plan checks some 240 records, most of them of a few families)."""
    out: set[Path] = set()
    for node in ast.walk(ast.parse(source)):
        targets: list[Path] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
            elif node.module and node.module.startswith("verify.claims."):
                base = CLAIMS_ROOT
            else:
                continue
            parts = (node.module or "").split(".") if node.level else (node.module or "").split(".")[2:]
            target = base.joinpath(*[p for p in parts if p])
            targets += [target.with_suffix(".py"), target / "__init__.py"]
            targets += [(target / alias.name).with_suffix(".py") for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("verify.claims."):
                    targets.append(CLAIMS_ROOT.joinpath(*alias.name.split(".")[2:]).with_suffix(".py"))
        out.update(targets)
    return frozenset(out)


def claim_code_files(start: Path, read: Callable[[Path], str | None] = _read_text) -> list[Path]:
    """The files whose code makes a claim defined in the module ``start`` (a path under ``verify/claims/``): ``start``
    and the modules of its family package that it imports, transitively, sorted; ``start`` alone when it is not
    in a package under ``verify/claims/``. ``read`` gives a file's text or None when it does not exist (the files
    of another revision can be read through it)."""
    try:
        rel = start.relative_to(CLAIMS_ROOT)
    except ValueError:
        return [start]
    if len(rel.parts) == 1:  # verify/claims/<module>.py
        return [start]
    family = CLAIMS_ROOT / rel.parts[0]
    seen: set[Path] = set()
    todo = [start]
    while todo:
        path = todo.pop()
        if path in seen or path == family / "__init__.py":
            continue
        source = read(path)
        if source is None:
            continue
        seen.add(path)
        todo += [p for p in _imported_modules(path, source) if family in p.parents and p not in seen]
    return sorted(seen)


def _module_file(module: str | None) -> Path | None:
    file = getattr(sys.modules.get(module or ""), "__file__", None)
    return Path(file).resolve() if file else None


def _in_family(path: Path) -> bool:
    """Whether ``path`` is a module of a family package under ``verify/claims/`` (not a module directly in it)."""
    return CLAIMS_ROOT in path.parents and len(path.relative_to(CLAIMS_ROOT).parts) > 1


def _code_files(
    module: str | None, also: Iterable[str] = (), read: Callable[[Path], str | None] = _read_text
) -> list[Path]:
    """:func:`claim_code_files` of ``module``, together with those of the modules ``also`` that are modules of a
    family package (a grid claim's ``predict`` and judge, whose ``observe`` is :mod:`verify.sweep.grid`'s); ``read``
    as for :func:`claim_code_files`."""
    first = _module_file(module)
    if first is None:
        return []
    files = set(claim_code_files(first, read))
    for name in also:
        path = _module_file(name)
        if path is not None and path != first and _in_family(path):
            files.update(claim_code_files(path, read))
    return sorted(files)


def claim_modules(claim: Any) -> tuple[str | None, list[str]]:
    """The module that defines ``claim`` (:func:`verify.claims.external.claim_module`) and the modules of its
    ``predict`` and judge, the arguments of :func:`_code_files`."""
    from verify.claims.external import claim_module  # deferred: imports the claims

    return claim_module(claim), [getattr(claim.predict, "__module__", None) or "", type(claim.judge).__module__]


def _docstring_lines(tree: ast.Module, lines: list[str]) -> set[int]:
    """The (1-based) lines of the docstrings of a module, its classes and its functions, where a docstring has its
    lines to itself (one that shares a line with code, ``def f(): "doc"`` or ``"doc"; x = 1``, is kept)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) or not node.body:
            continue
        first = node.body[0]
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)):
            continue
        if not isinstance(first.value.value, str) or first.end_lineno is None or first.end_col_offset is None:
            continue
        before = lines[first.lineno - 1].encode()[: first.col_offset]  # ast's offsets count UTF-8 bytes
        after = lines[first.end_lineno - 1].encode()[first.end_col_offset :].lstrip()
        if before.strip() or (after and not after.startswith(b"#")):
            continue
        out.update(range(first.lineno, first.end_lineno + 1))
    return out


def code_text(source: str) -> str:
    r"""``source`` (Python) without its comments, the docstrings of its module, classes and functions, blank lines and
    trailing white space: what :func:`claim_code_hash` hashes, so that editing a comment or a docstring leaves a
    claim's archived records current. The same text on every Python >= 3.11 (it reads comment tokens and line
    numbers, not the tokens of f-strings or the shape of ``ast.dump``, which differ between versions).

    Examples
    --------
    >>> from verify.report.archive import code_text
    >>> print(code_text("'''Doc.'''\n\nx = 1  # one\ns = '# not a comment'  \n"))
    x = 1
    s = '# not a comment'
    """
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines = source.split("\n")
    skip = _docstring_lines(ast.parse(source), lines)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    kept = (line.rstrip() for i, line in enumerate(lines, start=1) if i not in skip)
    return "\n".join(line for line in kept if line)


def code_hash(files: Iterable[Path], read: Callable[[Path], bytes]) -> str:
    """SHA-256 (16 hex digits) over each file's name (relative to its folder when there is one file, else to
    ``verify/claims/``) and ``read(file)``, in the given order (the bytes, or the :func:`code_text`)."""
    files = list(files)
    h = hashlib.sha256()
    base = files[0].parent if len(files) == 1 else CLAIMS_ROOT
    for path in files:
        try:
            name = path.relative_to(base).as_posix()
        except ValueError:
            name = path.name
        h.update(name.encode() + b"\0" + read(path) + b"\0")
    return h.hexdigest()[:16]


#: How a claim-code hash over the code text (:func:`code_text`) begins; a hash without it is over the bytes.
TEXT_HASH_PREFIX = "text:"


@functools.lru_cache(maxsize=256)
def _text_of(source: str) -> bytes:
    """:func:`code_text` of ``source``, encoded; kept for the process (a plan checks some 240 records, most of them
    of a few families, and each check reads the family's files again)."""
    return code_text(source).encode()


def _text_bytes(path: Path) -> bytes:
    return _text_of(path.read_text(encoding="utf-8"))


def claim_code_hash(claim: Any) -> str | None:
    """``"text:"`` and the SHA-256 (16 hex digits) of the claim's code text (:func:`claim_code_files`,
    :func:`code_text`, module docstring); None when its module is unknown."""
    files = _code_files(*claim_modules(claim))
    return TEXT_HASH_PREFIX + code_hash(files, _text_bytes) if files else None


def claim_code_matches(stored: str, claim: Any) -> bool:
    """Whether ``stored`` (a record's ``claim_code``) is the hash of the claim's current code: over its code text
    when it begins with ``"text:"``, else over its files' bytes (a record written before 2026-11-30)."""
    if stored.startswith(TEXT_HASH_PREFIX):
        return stored == claim_code_hash(claim)
    files = _code_files(*claim_modules(claim))
    return bool(files) and stored == code_hash(files, Path.read_bytes)


def _trim(value: Any, trimmed: list[str], where: str, limit: int = MAX_VALUE_CHARS) -> Any:
    """``value`` without its entries longer than ``limit`` characters of JSON (each listed in ``trimmed``); a value
    that is not a dict is kept whole when short enough, else left out (None)."""
    if not isinstance(value, dict):
        if value is not None and len(json.dumps(value, default=str)) > limit:
            trimmed.append(where)
            return None
        return value
    out = {}
    for key, v in value.items():
        if len(json.dumps(v, default=str)) > limit:
            trimmed.append(f"{where}.{key}")
            continue
        out[key] = v
    return out


def _error(rec: Mapping[str, Any]) -> Any:
    """The record's error as ``results.json`` gives it: ``{"abs", "rel", "n"}``, the largest difference between
    numeric predicted and observed values (:func:`verify.report.render._error`); None when they are not numeric."""
    from verify.report.render import _error as numeric_error  # deferred: render imports this module

    return numeric_error(rec.get("predicted"), rec.get("observed"))


def make_record(rec: Mapping[str, Any], claim: Any | None = None, *, revision: str | None = None) -> dict[str, Any]:
    """The archived form of a claim record (:meth:`verify.claims.base.ClaimRecord.to_json`): the record with large
    ``details`` / ``artifacts`` values left out, plus the provenance fields ``config_hash``, ``claim_code``,
    ``code_revision``, ``device``, ``hardware``, ``wall_time_s``, ``seeds``, ``finished`` and ``error``.

    ``claim`` (the registered Claim) gives the configuration hash and the claim code; without it the hash is taken
    of the record's ``config`` and the claim code is None (never stale on code)."""
    meta = dict(rec.get("metadata") or {})
    trimmed: list[str] = []
    out = {k: v for k, v in rec.items() if k not in ("details", "artifacts", "metadata")}
    out["details"] = _trim(rec.get("details"), trimmed, "details")
    out["artifacts"] = _trim(rec.get("artifacts"), trimmed, "artifacts")
    for key in ("predicted", "observed", "config"):  # the config's hash is kept whole below
        out[key] = _trim(rec.get(key), trimmed, key, MAX_VALUE_CHARS_RESULT)
    meta.pop("training", None)  # per-run trainer settings: the config hash and code revision say what ran
    out["metadata"] = meta
    scale = rec.get("scale")
    config = claim.configs.get(scale) if claim is not None and scale in claim.configs else rec.get("config")
    out.update(
        {
            "archive_schema": ARCHIVE_SCHEMA,
            "config_hash": config_hash(config),
            "claim_code": claim_code_hash(claim) if claim is not None else None,
            "code_revision": revision or code_revision(),
            "device": meta.get("device"),
            "hardware": hardware(),
            "wall_time_s": meta.get("runtime_s"),
            "seeds": meta.get("seeds"),
            "finished": meta.get("timestamp"),
            "error": _error(rec),
            "trimmed": trimmed,
        }
    )
    for key in OPTIONAL_FIELDS:
        if key not in out and isinstance(rec.get("details"), dict) and key in rec["details"]:
            out[key] = rec["details"][key]
    return out


def _read(path: Path) -> dict[str, Any] | None:
    """The archived record in ``path``, None when it holds none (:func:`_problem`)."""
    return _problem(path)[0]


def _problem(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the record, None) when ``path`` holds an archived record: a JSON object with a claim id, one of the
    verdicts and the scale of its folder (:func:`verify.report.diff.record_problem`); else (None, why not)."""
    from verify.report.diff import record_problem
    from verify.report.render import VERDICTS  # deferred: render imports this module

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"unreadable ({type(exc).__name__})"
    problem = record_problem(data)
    if problem is None and data["verdict"] not in VERDICTS:
        problem = f"its verdict {data['verdict']!r} is not one of {', '.join(VERDICTS)}"
    if problem is None and data.get("scale") != path.parent.name:
        problem = f"its scale {data.get('scale')!r} is not that of its folder {path.parent.name!r}"
    return (None, problem) if problem else (data, None)


def record_text(record: Mapping[str, Any]) -> str:
    """The file text of an archived record: one top-level field per line (sorted), each value as compact JSON, so
    that ``git diff results/`` shows which fields changed while the file stays small."""
    lines = [
        f"{json.dumps(k)}: {json.dumps(record[k], sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(',', ':'))}"
        for k in sorted(record)
    ]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def merge_record(root: str | Path, record: Mapping[str, Any]) -> str:
    """Write the archived ``record`` into ``root`` unless the archived one finished at the same time or later.

    Returns ``"written"`` (no record before), ``"replaced"`` (an older one) or ``"kept"`` (the archived one is not
    older: it stays). A record without a readable finish time never replaces one that has it."""
    path = record_path(root, str(record["scale"]), str(record["id"]))
    old = _read(path) if path.exists() else None
    if old is not None:
        t_new, t_old = finished_at(record), finished_at(old)
        if t_new is None or (t_old is not None and t_new <= t_old):
            return "kept"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, record_text(record))
    return "written" if old is None else "replaced"


def archive_records(
    root: str | Path, records: Iterable[Mapping[str, Any]], claims: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """Archive every record (:func:`make_record`, :func:`merge_record`); ``claims`` maps ids to registered claims
    (default: the registry). Returns {claim id: "written" / "replaced" / "kept"}."""
    if claims is None:
        from verify.claims import registry  # deferred: imports torch

        claims = registry()
    revision = code_revision()
    try:
        Path(root).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArchiveError(f"cannot create the archive {str(root)!r}: {exc.strerror or exc}") from exc
    outcome = {}
    for rec in records:
        archived = make_record(rec, claims.get(rec["id"]), revision=revision)
        try:
            outcome[rec["id"]] = merge_record(root, archived)
        except OSError as exc:
            raise ArchiveError(f"cannot write to the archive {str(root)!r}: {exc.strerror or exc}") from exc
    return outcome


def check_archive_target(root: str | Path) -> None:
    """Refuse, before any claim runs, an ``--archive`` that cannot take records: an empty path, a path that is
    not a directory, or a directory that cannot be created or written. A missing archive is created on the first
    record, so here its folders are made and removed again (nothing is left behind).

    Raises
    ------
    ArchiveError
        Naming ``--archive`` and the path.
    """
    if not str(root).strip():
        raise ArchiveError("--archive must name a directory, got an empty path")
    p = Path(root)
    if p.exists() and not p.is_dir():
        raise ArchiveError(f"--archive {str(p)!r} is not a directory (a results archive is a directory)")
    missing = missing_folders(p)
    try:
        p.mkdir(parents=True, exist_ok=True)
        writable = os.access(p, os.W_OK | os.X_OK)
    except OSError as exc:
        raise ArchiveError(f"--archive: cannot create the archive {str(p)!r}: {exc.strerror or exc}") from None
    finally:
        remove_empty_folders(missing)
    if not writable:
        raise ArchiveError(f"--archive: cannot write to the archive {str(p)!r}: permission denied")


def load_archive(root: str | Path, skipped: list[str] | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """Every readable record of the archive, by (scale, claim id); a file that holds no archived record
    (:func:`_problem`: unreadable, truncated, without a verdict) is skipped, and listed in ``skipped`` ("path: why")
    when it is given."""
    root = Path(root)
    if not root.is_dir():
        raise ArchiveError(f"no archive at {str(root)!r} (a directory written by tvk report --archive)")
    out = {}
    for path in sorted(root.glob("*/*.json")):
        rec, problem = _problem(path)
        if rec is not None:
            out[(path.parent.name, rec["id"])] = rec
        elif skipped is not None:
            skipped.append(f"{path}: {problem}")
    return out


def staleness(record: Mapping[str, Any], claim: Any | None, current_hash: str | None = None) -> str | None:
    """Why ``record`` no longer describes its claim (None: current): the claim is gone or has no configuration at
    the record's scale, its configuration changed (``config_hash``), or its code changed (``claim_code``).
    ``current_hash``: the configuration's hash at the record's scale where the caller has it (a large configuration
    takes seconds to hash)."""
    if claim is None:
        return "the claim no longer exists"
    scale = record.get("scale")
    if scale not in claim.configs:
        return f"the claim has no {scale} configuration any more"
    if record.get("config_hash") != (current_hash or config_hash(claim.configs[scale])):
        return "its configuration changed since"
    code = record.get("claim_code")
    if code is not None and not claim_code_matches(code, claim):
        return "its claim code changed since"
    return None


def _date(record: Mapping[str, Any]) -> str:
    t = finished_at(record)
    return t.strftime("%Y-%m-%d") if t else "unknown date"


def _hardware_text(record: Mapping[str, Any]) -> str:
    hw = record.get("hardware") or {}
    device = str(record.get("device") or "?")
    if device.startswith("cuda") and hw.get("gpu"):
        return str(hw["gpu"])
    cpu = hw.get("cpu") or "unknown CPU"
    threads = hw.get("threads")
    return f"{cpu} ({threads} threads)" if threads else str(cpu)


def archive_row(record: Mapping[str, Any] | None, claim: Any | None) -> dict[str, Any] | None:
    """How the report shows one archived record: verdict, date, hardware, device, wall time and staleness."""
    if record is None:
        return None
    return {
        "verdict": record.get("verdict"),
        "date": _date(record),
        "hardware": _hardware_text(record),
        "device": record.get("device") or "?",
        "wall_time_s": record.get("wall_time_s"),
        "stale": staleness(record, claim),
    }


def archive_view(records: list[dict], meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's "quick and full-scale verdicts" table when ``meta["archive"]`` names an archive: one row per
    claim of ``records``, with its quick and full-scale verdicts
    (this run's record at its scale, else the archived one) and, for archived ones, date, hardware and staleness.
    [] without an archive or when it cannot be read."""
    root = meta.get("archive")
    if not root:
        return []
    try:
        archived = load_archive(root)
    except ArchiveError:
        return []
    from verify.claims import registry  # deferred: imports torch

    claims = registry()
    from_archive = bool(meta.get("from_archive"))
    ids = list(dict.fromkeys(r["id"] for r in records))  # the claims of this report only
    here = {(r.get("scale"), r["id"]): r for r in records}
    rows = []
    for cid in ids:
        row: dict[str, Any] = {"id": cid}
        for scale in ("quick", "full"):
            rec = here.get((scale, cid))
            if rec is not None and not from_archive:
                row[scale] = {
                    "verdict": rec["verdict"],
                    "date": "this run",
                    "hardware": "",
                    "device": "",
                    "stale": None,
                }
            else:
                row[scale] = archive_row(archived.get((scale, cid)), claims.get(cid))
        if row["quick"] is None and row["full"] is None:
            continue
        rows.append(row)
    return rows


def render_markdown_table(rows: list[dict[str, Any]]) -> str:
    """The side-by-side table in Markdown ('' without rows)."""
    if not rows:
        return ""

    def cell(v: dict | None) -> str:
        return _cell_text(v, lambda verdict: f"**{verdict}**").replace("|", "\\|")

    lines = [
        "## Quick and full-scale verdicts",
        "",
        "Each claim's verdict at the quick and at the theses' (full) scale: from this run, or from the results "
        "archive with its date and hardware; a stale archived verdict was reached with another configuration or "
        "claim code than the current one.",
        "",
        "| claim | quick | full scale |",
        "|---|---|---|",
    ]
    lines += [f"| {r['id']} | {cell(r['quick'])} | {cell(r['full'])} |" for r in rows]
    return "\n".join(lines) + "\n"


def _cell_text(v: dict | None, strong: Callable[[str], str] = str) -> str:
    """One scale's cell of a side-by-side row: the verdict in capitals (through ``strong``, e.g. Markdown bold), the
    archived record's date and hardware, and why it is stale; "not archived" for None."""
    if v is None:
        return "not archived"
    text = strong(str(v["verdict"]).upper())
    if v["date"] != "this run":
        text += f" ({v['date']}, {v['hardware']})"
    if v["stale"]:
        text += f"; stale: {v['stale']}"
    return text


def annotate(views: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    """Give each claim view of the report its ``scales`` line ("quick: PASS; full scale: FAIL (2026-11-29, ...)"),
    or '' when the report reads no archive."""
    by_id = {r["id"]: r for r in rows}
    for v in views:
        row = by_id.get(v["id"])
        v["scales"] = f"quick: {_cell_text(row['quick'])}; full scale: {_cell_text(row['full'])}" if row else ""


def render_html_table(rows: list[dict[str, Any]]) -> str:
    """The side-by-side table as an HTML section ('' without rows); every value is escaped."""
    if not rows:
        return ""
    from html import escape

    def cell(v: dict | None) -> str:
        if v is None:
            return '<td class="muted">not archived</td>'
        verdict = escape(str(v["verdict"]))
        text = f'<span class="v v-{verdict}">{verdict.upper()}</span>'
        if v["date"] != "this run":
            text += f" {escape(v['date'])}, {escape(v['hardware'])}"
        if v["stale"]:
            text += f" <strong>stale</strong>: {escape(v['stale'])}"
        return f"<td>{text}</td>"

    body = "\n".join(
        f"<tr><td><code>{escape(r['id'])}</code></td>{cell(r['quick'])}{cell(r['full'])}</tr>" for r in rows
    )
    return (
        '<section id="scales">\n<h2>Quick and full-scale verdicts</h2>\n'
        "<p class=\"muted\">Each claim's verdict at the quick and at the theses' (full) scale: from this run, or from "
        "the results archive with its date and hardware; a stale archived verdict was reached with another "
        "configuration or claim code than the current one.</p>\n"
        '<div class="scroll"><table class="scales"><thead><tr><th>claim</th><th>quick</th><th>full scale</th></tr>'
        f"</thead>\n<tbody>\n{body}\n</tbody></table></div>\n</section>\n"
    )


def _claim_record_fields() -> dict[str, Any]:
    """The fields of a claim record (:class:`verify.claims.base.ClaimRecord`) and their defaults (None where a
    field has none): what :func:`as_claim_record` takes from an archived record."""
    import dataclasses

    from verify.claims.base import ClaimRecord  # deferred: the claims package imports torch

    out: dict[str, Any] = {}
    for f in dataclasses.fields(ClaimRecord):
        if f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
        else:
            out[f.name] = None if f.default is dataclasses.MISSING else f.default
    return out


def as_claim_record(archived: Mapping[str, Any]) -> dict[str, Any]:
    """An archived record as a claim record (the report's input): every field of a claim record (its population,
    deviations, post-hoc choices, erratum and note included; a field an older record lacks takes the record's
    default), and the archive's provenance under ``metadata["archive"]``. A predicted or observed value the archive
    left out (longer than :data:`MAX_VALUE_CHARS_RESULT` characters of JSON) is said in the record's note, and its
    error is the one archived before the value was left out."""
    fields = _claim_record_fields()
    rec = {k: archived.get(k, default) for k, default in fields.items()}
    for key in ("details", "artifacts"):
        rec[key] = rec[key] if isinstance(rec[key], dict) else {}
    meta = dict(rec["metadata"] or {})
    meta.setdefault("runtime_s", archived.get("wall_time_s"))
    meta.setdefault("seeds", archived.get("seeds") or [])
    meta["archive"] = {k: v for k, v in archived.items() if k not in fields}
    rec["metadata"] = meta
    left_out = [k for k in ("predicted", "observed") if k in (archived.get("trimmed") or [])]
    if left_out:
        said = (
            f"{' and '.join(left_out)} left out of the archived record (longer than {MAX_VALUE_CHARS_RESULT:,} "
            "characters of JSON); the error shown is the one archived with the full values"
        )
        rec["note"] = f"{rec['note']}; {said}" if rec.get("note") else said
    return rec


def select_archived(
    archived: Mapping[tuple[str, str], dict[str, Any]], scale: str, only: str | None = None
) -> list[dict[str, Any]]:
    """One archived record per claim matching ``only``: the one at ``scale``, else the one at the other scale; in
    the registry's order, claims no longer registered last (by id)."""
    import fnmatch

    from verify.claims import registry  # deferred: imports torch
    from verify.runtime.selection import claim_patterns

    pats = claim_patterns(only)
    order = {cid: i for i, cid in enumerate(registry())}
    ids = sorted({cid for _, cid in archived}, key=lambda c: (order.get(c, len(order)), c))
    out = []
    for cid in ids:
        if not any(fnmatch.fnmatch(cid, p) for p in pats):
            continue
        rec = archived.get((scale, cid)) or next((r for (s, c), r in sorted(archived.items()) if c == cid), None)
        if rec is not None:
            out.append(rec)
    return out


#: How many ids a log line of :func:`report_from_archive` lists before it counts the rest.
LISTED = 8


def not_archived(archived: Mapping[tuple[str, str], dict[str, Any]], only: str | None = None) -> list[str]:
    """The registered claims that ``only`` selects and that have no archived record at either scale."""
    import fnmatch

    from verify.claims import registry  # deferred: imports torch
    from verify.runtime.selection import claim_patterns

    pats, have = claim_patterns(only), {cid for _, cid in archived}
    return [cid for cid in registry() if cid not in have and any(fnmatch.fnmatch(cid, p) for p in pats)]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def report_from_archive(
    root: str | Path,
    out: str | Path,
    *,
    scale: str = "full",
    only: str | None = None,
    output: Any = None,
    log: Callable[[str], None] = _stderr,
) -> tuple[list[dict], dict]:
    """Render the report into ``out`` from the archive ``root`` alone: no claim runs, nothing is computed but the
    report itself (offline). Each archived claim appears with its record at ``scale`` (else the other scale's), and
    the quick and full-scale verdicts side by side. ``log`` gets one line naming the archive's files that hold no
    readable record (left out) and one naming the selected claims the archive has no record of (not in the report).

    Raises
    ------
    ArchiveError
        If ``root`` is not an archive (a report directory is named as one) or holds no record matching ``only``.
    """
    from verify.claims import registry  # deferred: imports torch
    from verify.report import directory  # deferred: the report machinery imports torch
    from verify.report.run import DEFAULT_OUTPUT, _write_report

    skipped: list[str] = []
    archived = load_archive(root, skipped)
    if skipped:  # a damaged file is named, not published as a verdict "None"
        log(
            f"the archive {str(root)!r} has {len(skipped)} file(s) without a readable record, left out: "
            + "; ".join(skipped)
        )
    if not archived and any((Path(root) / name).is_file() for name in ("results.json", "results.jsonl")):
        raise ArchiveError(
            f"{str(root)!r} looks like a report directory (it holds results.json or results.jsonl), not a results "
            "archive (<scale>/<claim id>.json records, written by tvk report --archive)"
        )
    chosen = select_archived(archived, scale, only)
    if not chosen:
        raise ArchiveError(f"the archive {str(root)!r} holds no record matching {only or '*'!r}")
    absent = not_archived(archived, only)
    if absent:
        shown = ", ".join(absent[:LISTED]) + (f", ... ({len(absent) - LISTED} more)" if len(absent) > LISTED else "")
        log(
            f"{len(absent)} selected claim(s) have no record in the archive at either scale, not in the report: {shown}"
        )
    records = [as_claim_record(r) for r in chosen]
    claims = registry()
    for rec, stored in zip(records, chosen):  # said where readers act: needs attention, the table, results.json
        rec["metadata"]["archive"]["stale"] = staleness(stored, claims.get(stored["id"]))
    output = output or DEFAULT_OUTPUT
    devices = sorted({str(r["metadata"].get("device")) for r in records})
    revisions = sorted({str(r.get("code_revision"))[:12] for r in chosen if r.get("code_revision")})
    times = [t for r in chosen if isinstance(t := r.get("wall_time_s"), (int, float))]
    meta = {
        "scale": scales.pop() if len(scales := {r["scale"] for r in records}) == 1 else scale,  # what is shown
        "scale_note": f"from the archive {root}; {scale} requested, the other scale where {scale} is not archived",
        "device": ",".join(devices),
        "generated": datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S %Z"),
        "git_revision": ", ".join(revisions) or None,  # the records' own code revisions, not this checkout's
        "runtime_s": float(sum(times)),  # the archived runs' wall time together (nothing ran now)
        "train_dtype": "each run's own (the archive keeps its configuration hash and code revision)",
        "only": only,
        "command_line": list(sys.argv),
        "figure_formats": list(output.figure_formats),
        "self_contained": output.self_contained,
        "archive": str(root),
        "from_archive": True,
    }
    out = directory.prepare_directory(out)
    with directory.directory_lock(out), directory.staging_directory(out) as stage:
        _write_report(stage, out, records, meta, output)
    return records, meta


class ArchivingJournal(JournalWrapper):
    """A report run's journal (:class:`verify.report.directory.Journal`) that also merges each record into the
    archive ``root`` as it finishes, so an interrupted campaign keeps every finished verdict; ``outcome`` maps
    claim ids to "written" / "replaced" / "kept"."""

    def __init__(self, journal: Any, root: str | Path, claims: Mapping[str, Any] | None = None) -> None:
        super().__init__(journal)
        self.root, self.claims = root, claims
        self.outcome: dict[str, str] = {}

    def append(self, record: dict[str, Any]) -> None:
        self.journal.append(record)
        if ((record.get("metadata") or {}).get("sweep") or {}).get("complete", True) is False:
            self.outcome[record["id"]] = "not archived (a shard's incomplete grid)"
            return
        self.outcome.update(archive_records(self.root, [record], self.claims))
