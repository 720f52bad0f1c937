"""Prediction sensitivity: does a claim's verdict react to an error in its prediction, entry by entry, and from
which size of error on (docs/verdicts.md, "How fine a check is")?

A claim is re-judged on its recorded observation (nothing is recomputed) with its prediction moved:

* :func:`single_entry_perturbations`: each entry of a list, array or dict prediction moved alone by the judge's own
  step (:meth:`verify.claims.judges.Judge.perturb`: 1 % or 10 tolerances), so an entry the judge never reads is
  seen. At most :data:`MAX_ENTRIES` entries are moved, evenly spaced over the flattened prediction (first and last
  included): a deterministic sample, so the work is bounded by the size of the prediction, not by a clock.
* :func:`measure_resolution`: the smallest relative error, in either direction, that changes the verdict, for the
  prediction moved as a whole and for each sampled entry alone (a log-scale bisection between :data:`R_MIN` and
  :data:`R_MAX`, to a factor :data:`R_FACTOR`). The claim's resolution is the largest of these: the relative error
  from which on every entry, and the whole, is detected. A direction in which no error up to 100 % changes the
  verdict is one the statement does not constrain (a looser bound is still a true bound) and does not count; an
  entry that no error in either direction detects is reported as undetected.

* :func:`check_resolution`: the test of a claim's declaration (``tests/verify/test_claims.py``). A claim that
  declares nothing must detect an error of 1 % (:data:`verify.claims.judges.PERTURB_REL`) in its whole prediction
  and in each sampled entry alone, in every direction in which some error up to 100 % is detected (both for a
  two-sided check, one for a bound). A claim whose check is coarser declares it with the reason, as
  :class:`verify.claims.base.Resolution` (``rel``; ``undetected`` for entries that no error up to 100 % detects,
  such as points where a bound has that much slack); the test then checks that an error of ``rel`` is detected
  everywhere it can be, that half of it is not where ``rel`` is above 1 % (the declaration is not looser than the
  check), and that ``undetected`` is declared exactly when some entry is. A judge that compares every entry on its
  own, exactly or finer than 1 % (:func:`exact_by_construction`), detects a 1 % change of any entry by its
  definition and is not re-judged entry by entry (a sympy simplification per entry can take seconds). The work is a few judge calls per sampled entry (at
  most :data:`MAX_ENTRIES` entries); the bisection of :func:`measure_resolution` runs only to state the measured
  value when a declaration is missing or wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .judges import PERTURB_REL, ExactlyEqual, ExactOrFloat, Judge, as_floats, perturb_value

__all__ = [
    "MAX_ENTRIES",
    "R_FACTOR",
    "R_MAX",
    "R_MIN",
    "Measured",
    "check_resolution",
    "detects",
    "entry_paths",
    "exact_by_construction",
    "get_entry",
    "measure_resolution",
    "replace_entry",
    "sample_paths",
    "single_entry_perturbations",
]

#: At most this many entries of a prediction are moved one at a time (evenly spaced, first and last included).
MAX_ENTRIES = 16
#: The smallest relative error tried; a verdict that already changes there has a resolution of at most R_MIN.
R_MIN = 1e-12
#: The largest relative error tried (100 %): a direction no error up to it detects is not constrained.
R_MAX = 1.0
#: The bisection stops when the bracket [no change, change] is narrower than this factor.
R_FACTOR = 1.1

Path = tuple[Any, ...]


def _is_leaf(v: Any) -> bool:
    if isinstance(v, dict):
        return "float" in v and "exact" in v
    return not isinstance(v, (list, tuple, np.ndarray))


def _walk(value: Any, path: Path) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, np.ndarray):
        for idx in np.ndindex(value.shape):
            yield (*path, idx), value[idx]
    elif isinstance(value, dict) and not _is_leaf(value):
        for k, v in value.items():
            yield from _walk(v, (*path, k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _walk(v, (*path, i))
    else:
        yield path, value


def entry_paths(value: Any) -> list[Path]:
    """The path of every entry (leaf) of a prediction: list and tuple indices, dict keys (a ``{"exact", "float"}``
    dict is one entry), numpy index tuples; a scalar prediction has the one path ``()``. Strings and None (labels
    that travel with a prediction) are not entries."""
    return [p for p, v in _walk(value, ()) if v is not None and not isinstance(v, str)]


def get_entry(value: Any, path: Path) -> Any:
    """The entry of ``value`` at ``path``."""
    for key in path:
        value = value[key]
    return value


def replace_entry(value: Any, path: Path, new: Any) -> Any:
    """A copy of ``value`` with the entry at ``path`` replaced by ``new`` (containers keep their types)."""
    if not path:
        return new
    key, rest = path[0], path[1:]
    if isinstance(value, np.ndarray):
        out = value.copy()
        out[key] = new
        return out
    if isinstance(value, dict):
        return {**value, key: replace_entry(value[key], rest, new)}
    items = list(value)
    items[key] = replace_entry(items[key], rest, new)
    return type(value)(items) if isinstance(value, tuple) and not hasattr(value, "_fields") else items


def sample_paths(paths: list[Path], limit: int = MAX_ENTRIES) -> list[Path]:
    """At most ``limit`` of ``paths``, evenly spaced (first and last included); all of them when there are few."""
    if len(paths) <= limit:
        return list(paths)
    idx = sorted({round(i * (len(paths) - 1) / (limit - 1)) for i in range(limit)})
    return [paths[i] for i in idx]


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # numpy or sympy values that do not compare to a bool
        return False


def single_entry_perturbations(
    predicted: Any, perturbed: Any, limit: int = MAX_ENTRIES
) -> tuple[list[tuple[Path, Any]], int]:
    """``(moves, n)``: for each of at most ``limit`` sampled entries that ``perturbed`` (the judge's perturbation
    of the whole prediction) changes, ``(path, predicted with only that entry moved)``; ``n`` is the number of entries
    the perturbation changes (before sampling). ``([], 0)`` when ``perturbed`` does not have the prediction's layout
    (a judge whose perturbation rebuilds the prediction): then only the whole can be moved; ``([], n)`` when it moves
    at most one entry (that entry alone is the whole perturbation)."""
    paths = entry_paths(predicted)
    if entry_paths(perturbed) != paths:
        return [], 0
    moved = [p for p in paths if not _same(get_entry(predicted, p), get_entry(perturbed, p))]
    if len(moved) <= 1:  # one entry moved alone is the whole perturbation
        return [], len(moved)
    return [(p, replace_entry(predicted, p, get_entry(perturbed, p))) for p in sample_paths(moved, limit)], len(moved)


def detects(judge: Judge, wrong: Any, obs: Any, config: Any, verdict: str = "pass") -> bool:
    """Whether ``judge`` gives another verdict than ``verdict`` for the prediction ``wrong`` (a crash counts as a
    change: the wrong prediction was not accepted). A probe of an error up to :data:`R_MAX` = 100 % moves entries to
    0, where a relative judge divides by zero: numpy's warnings for that are silenced here, the verdict decides."""
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            return judge(wrong, obs, config)[0] != verdict
    except Exception:
        return True


@dataclass
class Measured:
    """The measured resolution of one claim: ``whole`` (the prediction moved as a whole) and ``entries`` (each
    sampled entry alone, by path), each the smallest detected relative error over the directions that detect any
    (None: no error up to :data:`R_MAX` in either direction changes the verdict); ``n_entries`` counts the entries
    (before sampling)."""

    whole: float | None
    entries: dict[Path, float | None] = field(default_factory=dict)
    n_entries: int = 1

    @property
    def undetected(self) -> list[Path]:
        """Entries (``()`` for the whole) that no error up to 100 % detects."""
        out = [p for p, r in self.entries.items() if r is None]
        return ([()] if self.whole is None else []) + out

    @property
    def resolution(self) -> float | None:
        """The largest resolution over the whole and the entries; None when something is undetected."""
        if self.undetected:
            return None
        return max([self.whole, *self.entries.values()])  # type: ignore[type-var]

    def worst(self) -> str:
        """Which part sets the resolution, in words."""
        if self.undetected:
            return "undetected: " + ", ".join("the whole" if not p else f"entry {list(p)}" for p in self.undetected)
        r = self.resolution
        if self.whole == r:
            return "the whole prediction"
        return "entry " + str(next(list(p) for p, v in self.entries.items() if v == r))


def _threshold(changes: Callable[[float], bool]) -> float | None:
    """The smallest relative error r in [R_MIN, R_MAX] with ``changes(r)`` (to a factor R_FACTOR, by bisection on
    log r, assuming that a larger error is detected once a smaller one is); None when R_MAX does not change it."""
    if not changes(R_MAX):
        return None
    if changes(R_MIN):
        return R_MIN
    lo, hi = R_MIN, R_MAX
    while hi / lo > R_FACTOR:
        mid = float(f"{math.sqrt(lo * hi):.3g}")  # a short decimal: an exact prediction moves by a small rational
        if changes(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _entry_threshold(
    judge: Judge, predicted: Any, obs: Any, config: Any, verdict: str, path: Path | None
) -> float | None:
    found = []
    for sign in (1, -1):

        def changes(r: float, sign: int = sign) -> bool:
            if path is None:
                wrong = perturb_value(predicted, r, sign=sign)
            else:
                wrong = replace_entry(predicted, path, perturb_value(get_entry(predicted, path), r, sign=sign))
            return detects(judge, wrong, obs, config, verdict)

        if path is not None and isinstance(get_entry(predicted, path), (bool, np.bool_)):
            return 0.0 if changes(R_MAX) else None  # a yes/no entry is flipped, whatever r
        found.append(_threshold(changes))
    detected = [r for r in found if r is not None]
    return max(detected) if detected else None


def measure_resolution(
    judge: Judge, predicted: Any, obs: Any, config: Any = None, verdict: str = "pass", limit: int = MAX_ENTRIES
) -> Measured:
    """The resolution of a judge's verdict on its recorded observation (module docstring): the prediction moved as
    a whole by ``perturb_value(predicted, r, sign=+-1)``, and each of at most ``limit`` evenly spaced entries alone."""
    paths = entry_paths(predicted)
    out = Measured(_entry_threshold(judge, predicted, obs, config, verdict, None), n_entries=len(paths))
    if len(paths) > 1:
        for p in sample_paths(paths, limit):
            out.entries[p] = _entry_threshold(judge, predicted, obs, config, verdict, p)
    return out


def exact_by_construction(judge: Judge, predicted: Any = None) -> bool:
    """True for a judge that compares every entry of the prediction on its own, exactly or within a tolerance
    finer than 1 %, by its definition: :class:`ExactlyEqual`, or :class:`ExactOrFloat` (and its subclasses) with a
    relative ``float_tol`` below 1 %, or an absolute one below 1 % of the smallest nonzero predicted entry; alone or
    as the inner judge of a :class:`~verify.claims.judges.Requiring`. Any change of 1 % in any entry fails it, so it
    is not re-judged entry by entry (one sympy simplification per entry can take seconds)."""
    judge = getattr(judge, "inner", judge)
    if isinstance(judge, ExactlyEqual):
        return True
    if not isinstance(judge, ExactOrFloat):
        return False
    if judge.relative:
        return judge.float_tol < PERTURB_REL
    if predicted is None:
        return False
    try:
        sizes = np.abs(as_floats(predicted))
    except (TypeError, ValueError):
        return False
    sizes = sizes[np.isfinite(sizes) & (sizes > 0)]
    return sizes.size > 0 and judge.float_tol < PERTURB_REL * float(sizes.min())


def _moved(predicted: Any, path: Path | None, r: float, sign: int) -> Any:
    if path is None:
        return perturb_value(predicted, r, sign=sign)
    return replace_entry(predicted, path, perturb_value(get_entry(predicted, path), r, sign=sign))


def _detects_at(
    judge: Judge, predicted: Any, obs: Any, config: Any, verdict: str, path: Path | None, r: float, sign: int
) -> bool:
    return detects(judge, _moved(predicted, path, r, sign), obs, config, verdict)


def _name(path: Path | None) -> str:
    return "the whole prediction" if path is None else f"entry {list(path)}"


def check_resolution(
    judge: Judge,
    predicted: Any,
    obs: Any,
    config: Any = None,
    declared: Any = None,
    verdict: str = "pass",
    limit: int = MAX_ENTRIES,
) -> list[str]:
    """The problems of a claim's declared resolution against its judge on the recorded observation (module
    docstring); empty when the declaration (``declared``: a :class:`verify.claims.base.Resolution`, or None for
    "1 %") is right. Each problem names the part and, where a number is to be declared, the measured one."""
    if exact_by_construction(judge, predicted):
        return (
            [] if declared is None else ["the judge compares every entry finer than 1 %: drop the declared resolution"]
        )
    rel = PERTURB_REL if declared is None else declared.rel
    paths = entry_paths(predicted)
    parts: list[Path | None] = [None, *(sample_paths(paths, limit) if len(paths) > 1 else [])]

    def at(path: Path | None, r: float, sign: int) -> bool:
        return _detects_at(judge, predicted, obs, config, verdict, path, r, sign)

    # the directions in which some error up to 100 % is detected (the ones the statement constrains): an error of
    # r must be detected in each of them, as measure_resolution measures
    directions = {p: [s for s in (1, -1) if at(p, R_MAX, s)] for p in parts}
    never = [p for p in parts if not directions[p]]
    late = [p for p in parts if directions[p] and not all(at(p, rel, s) for s in directions[p])]
    problems = []
    if never and not (declared is not None and declared.undetected):
        problems.append(
            "no error up to 100 % changes the verdict in " + ", ".join(map(_name, never[:6])) + " (of "
            f"{len(paths)} entries): declare which and why in Resolution(undetected=...), or make the judge read them"
        )
    if not never and declared is not None and declared.undetected:
        problems.append("every sampled entry is detected by some error up to 100 %: drop Resolution.undetected")
    if late or (
        declared is not None and rel > PERTURB_REL and all(all(at(p, rel / 2, s) for s in directions[p]) for p in parts)
    ):
        m = measure_resolution(judge, predicted, obs, config, verdict, limit)
        measured = max([v for v in [m.whole, *m.entries.values()] if v is not None], default=0.0)
        if late:
            problems.append(
                f"an error of {rel:.3g} in " + ", ".join(map(_name, late[:6])) + " does not change the verdict; it is "
                f"detected from {measured:.3g} on ({m.worst()}): tighten the tolerance (with the reason) or declare "
                "Resolution(rel=..., why=...)"
            )
        else:
            problems.append(
                f"the declared resolution {rel:.3g} is loose: half of it is detected already (measured "
                f"{measured:.3g}, {m.worst()})"
            )
    return problems
