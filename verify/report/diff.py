"""Compare two runs claim by claim (``tvk diff OLD NEW``; docs/report.md, "Comparing runs").

A run is a report directory (its ``results.json``, else its ``results.jsonl`` journal) or one of those files.
:func:`diff_runs` lists, by claim id: claims added and removed, claims run at another scale (a quick run against
a full one: a result change, which explains the values' changes), verdict changes, exact values that changed (a
predicted or observed ``{"exact": ...}`` value whose text differs, or a NaN or infinity, read back from the
record's ``nonfinite`` list, that appeared, went or changed), float values that drifted beyond a relative
tolerance, error changes and runtime changes. :meth:`RunDiff.same_results` is the check a refactoring must pass:
the same ids, scales, verdicts and exact values (issue 27's before/after comparison). Nothing here imports torch.
"""

from __future__ import annotations

import copy
import json
import math
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DRIFT_RTOL", "MAX_RESULTS_BYTES", "RunDiff", "diff_records", "diff_runs", "load_records", "record_problem"]

#: Default relative change of a float value reported as drift (float64 round-off of identical code is far below).
DRIFT_RTOL = 1e-9
#: A runtime change is reported when the new runtime is outside [old / RUNTIME_FACTOR, old * RUNTIME_FACTOR] (and
#: one of them is above RUNTIME_FLOOR_S seconds).
RUNTIME_FACTOR = 2.0
RUNTIME_FLOOR_S = 1.0


#: The largest results file :func:`load_records` reads (bytes): a full-scale ``results.json`` is a few MB.
MAX_RESULTS_BYTES = 256 * 1024 * 1024


def load_records(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The records of a run by claim id: ``path`` is a report directory, a ``results.json`` or a ``results.jsonl``.

    A ``results.json`` is the object ``{"header": {...}, "claims": [...]}`` of ``tvk report``
    (``verify/report/schema/results.schema.json``); a ``results.jsonl`` holds one claim record per line. Each
    record must be an object with a non-empty string ``id`` (unique in the run), a string ``verdict`` and an object
    (or null) ``metadata`` and ``error``; a run holds at least one record (``tvk report`` never writes an empty
    one). The file must be a regular file of at most :data:`MAX_RESULTS_BYTES` bytes.

    Raises
    ------
    ValueError
        When ``path`` holds no readable results (the message names the path and what was expected).
    """
    p = Path(path)
    if p.is_dir():
        for name in ("results.json", "results.jsonl"):
            if (p / name).is_file():
                return load_records(p / name)
        raise ValueError(f"{str(p)!r} holds neither results.json nor results.jsonl (a report directory was expected)")
    text = _read_results_text(p)
    where = f"{str(p)!r} is not a results file of tvk"
    try:
        if p.suffix == ".jsonl":
            records = [_json_line(line, n) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        else:
            doc = json.loads(text, parse_constant=_not_json)
            if not (isinstance(doc, dict) and "claims" in doc and "header" in doc):
                raise ValueError(f"{where}: a results.json is an object with 'header' and 'claims'")
            if not isinstance(doc["header"], dict):
                raise ValueError(f"{where}: its 'header' is {_kind(doc['header'])}, not an object")
            records = doc["claims"]
    except (json.JSONDecodeError, _NotJSON, RecursionError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    if not isinstance(records, list):
        raise ValueError(f"{where}: its claims are {_kind(records)}, not a list of claim records")
    if not records:
        raise ValueError(f"{where}: it holds no claim record (a run of tvk report has at least one)")
    out: dict[str, dict[str, Any]] = {}
    for i, rec in enumerate(records, 1):
        problem = record_problem(rec)
        if problem is None and rec["id"] in out:
            problem = f"the id {rec['id']!r} appears twice"
        if problem is not None:
            raise ValueError(f"{where}: record {i}: {problem}")
        out[rec["id"]] = rec
    return out


class _NotJSON(ValueError):
    """A token of Python's JSON dialect that JSON does not have (``NaN``, ``Infinity``, ``-Infinity``)."""


def _not_json(token: str) -> Any:
    raise _NotJSON(
        f"{token} is not JSON (tvk writes a NaN or an infinity as null and lists it in the record's 'nonfinite')"
    )


def _json_line(line: str, n: int) -> Any:
    """Line ``n`` of a ``results.jsonl`` as JSON; an error names the line (a decoder's position is in the line)."""
    try:
        return json.loads(line, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise _NotJSON(f"line {n}: {exc.msg} (column {exc.colno})") from None
    except _NotJSON as exc:
        raise _NotJSON(f"line {n}: {exc}") from None


def _read_results_text(p: Path) -> str:
    """The text of the results file ``p``: a regular file of at most :data:`MAX_RESULTS_BYTES` bytes, UTF-8."""
    limit = f"the limit of {MAX_RESULTS_BYTES:,} bytes for a results file (MAX_RESULTS_BYTES)"
    try:
        info = p.stat()  # before opening: opening a FIFO would wait for a writer
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{str(p)!r} is not a regular file (a results.json or results.jsonl was expected)")
        if info.st_size > MAX_RESULTS_BYTES:
            raise ValueError(f"{str(p)!r} has {info.st_size:,} bytes, above {limit}")
        with p.open("rb") as f:
            data = f.read(MAX_RESULTS_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    if len(data) > MAX_RESULTS_BYTES:  # it grew while being read
        raise ValueError(f"{str(p)!r} is above {limit}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{str(p)!r} is not a results file of tvk: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None


def record_problem(rec: Any) -> str | None:
    """What makes ``rec`` unusable as a claim record of a run or of the results archive (None: nothing): not an
    object, no non-empty string ``id``, no string ``verdict``, a ``metadata`` or ``error`` that is not an object."""
    if not isinstance(rec, dict):
        return f"{_kind(rec)}, not an object"
    cid = rec.get("id")
    if not isinstance(cid, str) or not cid:
        return f"its 'id' is {_kind(cid) if 'id' in rec else 'missing'}, not a non-empty string"
    if not isinstance(rec.get("verdict"), str):
        return (
            f"claim {cid!r}: its 'verdict' is {_kind(rec['verdict']) if 'verdict' in rec else 'missing'}, not a string"
        )
    for key in ("metadata", "error"):
        if not isinstance(rec.get(key), (dict, type(None))):
            return f"claim {cid!r}: its {key!r} is {_kind(rec[key])}, not an object or null"
    return None


def _kind(value: Any) -> str:
    """``value`` in a few words for a message: its JSON type, with the value when it is short."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    kind = "null" if value is None else names.get(type(value), type(value).__name__)
    text = json.dumps(value) if isinstance(value, (str, int, float, bool)) else ""
    return f"{kind} {text}" if text and len(text) <= 40 else kind


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(JSON pointer, leaf) pairs of a value; an ``{"exact", ...}`` dict is one leaf."""
    if isinstance(value, Mapping) and "exact" in value:
        yield path or "/", value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _leaves(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}/{i}")
    else:
        yield path or "/", value


#: The values a ``nonfinite`` entry of a record names (``results.json`` writes them as null).
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
#: The parts of a record that are compared value by value.
_COMPARED = ("predicted", "observed")


def _compared_values(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The predicted and observed values of ``rec``, with every NaN or infinity that ``results.json`` wrote as null
    put back from the record's ``nonfinite`` list (JSON pointers), so that a NaN that became an infinity is a
    change; an entry that names no null value there is passed over."""
    out = {key: copy.deepcopy(rec.get(key)) for key in _COMPARED}
    flags = rec.get("nonfinite")
    for flag in flags if isinstance(flags, list) else []:
        if (
            not isinstance(flag, Mapping)
            or not isinstance(flag.get("path"), str)
            or flag.get("value") not in _NONFINITE
        ):
            continue
        parts = [p.replace("~1", "/").replace("~0", "~") for p in flag["path"].split("/")[1:]]
        if len(parts) >= 2 and parts[0] in _COMPARED:
            _put_null(out[parts[0]], parts[1:], _NONFINITE[flag["value"]])
        elif len(parts) == 1 and parts[0] in _COMPARED and out[parts[0]] is None:
            out[parts[0]] = _NONFINITE[flag["value"]]
    return out


def _put_null(node: Any, parts: list[str], value: float) -> None:
    """Set the null at the path ``parts`` below ``node`` (keys of objects, indices of lists) to ``value``."""
    try:
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        key: Any = int(parts[-1]) if isinstance(node, list) else parts[-1]
        if node[key] is None:
            node[key] = value
    except (KeyError, IndexError, ValueError, TypeError):
        pass


def _same(x: float, y: float) -> bool:
    """Equal floats, a NaN counting as equal to a NaN."""
    return x == y or (math.isnan(x) and math.isnan(y))


def _text(value: Any) -> str:
    """A value in a line of :meth:`RunDiff.text`: a string as it is, anything else as JSON (``NaN``, ``Infinity``)."""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _number(v: Any) -> float | None:
    if isinstance(v, Mapping):
        v = v.get("float")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


@dataclass
class ClaimChange:
    """What changed for one claim present in both runs."""

    id: str
    scale: tuple[Any, Any] | None = None
    verdict: tuple[str, str] | None = None
    exact: list[dict[str, Any]] = field(default_factory=list)
    drift: list[dict[str, Any]] = field(default_factory=list)
    shape: list[str] = field(default_factory=list)
    error: tuple[Any, Any] | None = None
    runtime: tuple[float, float] | None = None

    @property
    def empty(self) -> bool:
        return not (self.scale or self.verdict or self.exact or self.drift or self.shape or self.error or self.runtime)


@dataclass
class RunDiff:
    """Every difference between two runs (:func:`diff_runs`)."""

    old: str
    new: str
    added: list[str]
    removed: list[str]
    changes: list[ClaimChange]
    rtol: float

    def same_results(self) -> bool:
        """The same claims, verdicts and exact values (floats may drift, runtimes change)."""
        return not (self.added or self.removed or any(c.scale or c.verdict or c.exact or c.shape for c in self.changes))

    def to_json(self) -> dict[str, Any]:
        """The diff as JSON data."""
        return {
            "old": self.old,
            "new": self.new,
            "rtol": self.rtol,
            "added": self.added,
            "removed": self.removed,
            "same_results": self.same_results(),
            "changes": [{k: v for k, v in asdict(c).items() if v} for c in self.changes],
        }

    def text(self) -> str:
        """The diff in words, one line per finding."""
        lines = [f"tvk diff {self.old} -> {self.new}"]
        lines += [f"  added:   {cid}" for cid in self.added]
        lines += [f"  removed: {cid}" for cid in self.removed]
        for c in self.changes:
            if c.scale:
                lines.append(f"  scale:   {c.id}: {c.scale[0]} -> {c.scale[1]} (runs at two scales: the values differ)")
            if c.verdict:
                lines.append(f"  verdict: {c.id}: {c.verdict[0]} -> {c.verdict[1]}")
            lines += [f"  exact:   {c.id}{e['where']}: {_text(e['old'])} -> {_text(e['new'])}" for e in c.exact]
            lines += [f"  shape:   {c.id}: {s}" for s in c.shape]
            lines += [
                f"  drift:   {c.id}{d['where']}: {d['old']:.10g} -> {d['new']:.10g} (relative {d['rel']:.2e})"
                for d in c.drift
            ]
            if c.error:
                lines.append(f"  error:   {c.id}: {_text(c.error[0])} -> {_text(c.error[1])}")
            if c.runtime:
                lines.append(f"  runtime: {c.id}: {c.runtime[0]:.3g} s -> {c.runtime[1]:.3g} s")
        if len(lines) == 1:
            lines.append("  no differences")
        lines.append(
            "  same claims, verdicts and exact values"
            if self.same_results()
            else "  results differ (claims, verdicts or exact values)"
        )
        return "\n".join(lines)


def _compare_values(change: ClaimChange, key: str, old: Any, new: Any, rtol: float) -> None:
    old_leaves, new_leaves = dict(_leaves(old)), dict(_leaves(new))
    if old_leaves.keys() != new_leaves.keys():
        change.shape.append(f"{key} has {len(new_leaves)} value(s), had {len(old_leaves)} (or other positions)")
        return
    for where, a in old_leaves.items():
        b = new_leaves[where]
        exact_a = a.get("exact") if isinstance(a, Mapping) else None
        exact_b = b.get("exact") if isinstance(b, Mapping) else None
        if exact_a is not None or exact_b is not None:
            if exact_a != exact_b:
                change.exact.append({"where": f" {key}{where}", "old": exact_a, "new": exact_b})
            continue
        x, y = _number(a), _number(b)
        if x is None or y is None:
            if a != b:
                change.exact.append({"where": f" {key}{where}", "old": a, "new": b})
            continue
        if not (math.isfinite(x) and math.isfinite(y)):  # a NaN or an infinity that came, went or changed: a result
            if not _same(x, y):
                change.exact.append({"where": f" {key}{where}", "old": x, "new": y})
            continue
        scale = max(abs(x), abs(y))
        rel = 0.0 if x == y else (abs(x - y) / scale if scale else math.inf)
        if not rel <= rtol:
            change.drift.append({"where": f" {key}{where}", "old": x, "new": y, "rel": rel})


def _runtime(record: Mapping[str, Any]) -> float | None:
    value = (record.get("metadata") or {}).get("runtime_s")
    return float(value) if isinstance(value, (int, float)) else None


def diff_runs(
    old: str | os.PathLike[str], new: str | os.PathLike[str], *, rtol: float = DRIFT_RTOL, runtimes: bool = True
) -> RunDiff:
    """Compare the run ``old`` with the run ``new`` claim by claim (module docstring).

    Parameters
    ----------
    old, new : path
        Report directories, ``results.json`` or ``results.jsonl`` files.
    rtol : float
        Relative change of a float value (predicted or observed) reported as drift.
    runtimes : bool
        Report runtime changes beyond a factor :data:`RUNTIME_FACTOR`.

    Returns
    -------
    RunDiff
    """
    _check_rtol(rtol)
    return diff_records(load_records(old), load_records(new), str(old), str(new), rtol=rtol, runtimes=runtimes)


def _check_rtol(rtol: float) -> None:
    if not (rtol >= 0 and math.isfinite(rtol)):
        raise ValueError(f"rtol must be a finite number >= 0, got {rtol!r}")


def diff_records(
    a: Mapping[str, Mapping[str, Any]],
    b: Mapping[str, Mapping[str, Any]],
    old: str,
    new: str,
    *,
    rtol: float = DRIFT_RTOL,
    runtimes: bool = True,
) -> RunDiff:
    """:func:`diff_runs` of records already loaded (``{claim id: record}``, as :func:`load_records` returns them);
    ``old`` and ``new`` name the runs in the result. ``tvk report --compare PREV`` loads PREV before any claim runs
    and compares it with the records of its own run here."""
    _check_rtol(rtol)
    changes = []
    for cid in [c for c in a if c in b]:
        ra, rb = a[cid], b[cid]
        change = ClaimChange(cid)
        if ra.get("scale") != rb.get("scale"):
            change.scale = (ra.get("scale"), rb.get("scale"))
        if ra.get("verdict") != rb.get("verdict"):
            change.verdict = (ra.get("verdict"), rb.get("verdict"))
        va, vb = _compared_values(ra), _compared_values(rb)
        for key in _COMPARED:
            _compare_values(change, key, va[key], vb[key], rtol)
        ea, eb = ra.get("error"), rb.get("error")
        if ea != eb and not (isinstance(ea, Mapping) and isinstance(eb, Mapping) and _close(ea, eb, rtol)):
            change.error = (ea, eb)
        if runtimes:
            change.runtime = _runtime_change(_runtime(ra), _runtime(rb))
        if not change.empty:
            changes.append(change)
    return RunDiff(
        old,
        new,
        added=[c for c in b if c not in a],
        removed=[c for c in a if c not in b],
        changes=changes,
        rtol=rtol,
    )


def _runtime_change(old: float | None, new: float | None) -> tuple[float, float] | None:
    """(old, new) when both are known, one is above RUNTIME_FLOOR_S and they differ by more than RUNTIME_FACTOR."""
    if old is None or new is None or max(old, new) <= RUNTIME_FLOOR_S:
        return None
    return None if old / RUNTIME_FACTOR <= new <= old * RUNTIME_FACTOR else (old, new)


def _close(a: Mapping[str, Any], b: Mapping[str, Any], rtol: float) -> bool:
    """Two error dicts agree: the same keys and numbers within ``rtol``."""
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = _number(a[k]), _number(b[k])
        if x is None or y is None:
            if a[k] != b[k]:
                return False
        elif not (_same(x, y) or abs(x - y) <= rtol * max(abs(x), abs(y))):
            return False
    return True
