"""Claims as data: a theorem's statement, its predicted value (from ``theory/``), how it is observed,
the tolerance and the verdict.

A :class:`Claim` is pure description plus three callables: ``predict(config)`` returns the value the
source predicts (always computed by ``theory/``), ``observe(config, ctx)`` measures it (``numerics/``
or ``verify/``), and ``judge(predicted, observation)`` returns the verdict. Running a claim gives a
:class:`ClaimRecord`, the only thing the report renders.

Verdicts: ``pass`` (observation agrees within tolerance), ``fail`` (it does not), ``refuted`` (the
source's statement as printed is contradicted by a counterexample, which the record carries, and
``corrected_by`` names the claim holding the corrected statement), ``inconclusive`` (the check could
not decide, e.g. an optimizer did not converge or an error occurred).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import time
import traceback
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

import numpy as np
import sympy

__all__ = [
    "Scale",
    "Verdict",
    "KINDS",
    "RunContext",
    "Observation",
    "Claim",
    "ClaimRecord",
    "register",
    "registry",
    "select",
    "run_claim",
    "to_jsonable",
    "as_float",
    "as_floats",
    "judge_relative",
    "judge_absolute",
    "judge_symbolic_zero",
    "judge_refuted_if_differs",
]

Scale = Literal["quick", "full"]
Verdict = Literal["pass", "fail", "refuted", "inconclusive"]
KINDS = ("symbolic", "convex", "numeric", "training")


@dataclass(frozen=True)
class RunContext:
    """Where and how claims run: scale, torch device name, progress bars, a scratch dir for checkpoints."""

    scale: Scale = "quick"
    device: str = "auto"
    progress: bool = True
    workdir: str | None = None


@dataclass
class Observation:
    """What ``observe`` measured: the headline value, supporting details, optional counterexample and
    ``artifacts`` (plain data for figures: training curves, spectra, histograms)."""

    value: Any
    details: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    artifacts: dict[str, Any] = field(default_factory=dict)
    seeds: tuple[int, ...] = ()


Judge = Callable[[Any, Observation, Any], tuple[Verdict, str]]


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a source.

    Attributes
    ----------
    id : str
        Names the source, e.g. ``shi-thm4.9-margin``.
    source : str
        Human reference, e.g. "Shi thesis, Theorem 4.9 (App. C.9)".
    statement : str
        What is claimed, in words and formulas.
    kind : str
        One of ``symbolic``, ``convex``, ``numeric``, ``training``.
    configs : mapping scale -> config
        The settings at each scale; a claim without a config for a scale is not run at that scale.
    predict, observe, judge : callables
        ``predict(config)``, ``observe(config, ctx)``, ``judge(predicted, observation, config)``.
    tolerance : str
        The tolerance in words (the judge enforces it).
    refutes : str, optional
        For a claim about an erratum: the statement as printed in the source.
    corrected_by : str, optional
        Id of the claim that holds the corrected statement.
    """

    id: str
    source: str
    statement: str
    kind: str
    configs: Mapping[str, Any]
    predict: Callable[[Any], Any]
    observe: Callable[[Any, RunContext], Observation]
    judge: Judge
    tolerance: str
    refutes: str | None = None
    corrected_by: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if not self.configs:
            raise ValueError(f"claim {self.id}: needs a config for at least one scale")


@dataclass
class ClaimRecord:
    """The result of running one claim; every report field comes from here."""

    id: str
    source: str
    statement: str
    kind: str
    scale: str
    predicted: Any
    observed: Any
    tolerance: str
    verdict: Verdict
    reason: str
    details: dict[str, Any]
    counterexample: dict[str, Any] | None
    refutes: str | None
    corrected_by: str | None
    config: Any
    artifacts: dict[str, Any]
    metadata: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(dataclasses.asdict(self))


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add a claim to the global registry (ids must be unique)."""
    if claim.id in _REGISTRY:
        raise ValueError(f"duplicate claim id {claim.id!r}")
    _REGISTRY[claim.id] = claim
    return claim


def registry() -> dict[str, Claim]:
    """All registered claims, by id (importing ``verify.claims`` registers the built-in ones)."""
    return dict(_REGISTRY)


def select(pattern: str | None = None, scale: Scale = "quick") -> list[Claim]:
    """Claims whose id matches the shell-style ``pattern`` (comma-separated alternatives allowed) and
    that have a config at ``scale``, in registration order."""
    pats = [p.strip() for p in (pattern or "*").split(",") if p.strip()]
    return [c for c in _REGISTRY.values() if scale in c.configs and any(fnmatch.fnmatch(c.id, p) for p in pats)]


def to_jsonable(x: Any) -> Any:
    """Convert sympy values, numpy arrays and scalars, dataclasses and tuples into JSON-ready data.

    A sympy number becomes ``{"exact": str, "float": float}`` so both forms reach the report.
    """
    if isinstance(x, sympy.Basic):
        if x.is_number:
            try:
                return {"exact": str(x), "float": float(x)}
            except TypeError:
                return {"exact": str(x)}
        return {"exact": str(x)}
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return to_jsonable(dataclasses.asdict(x))
    if isinstance(x, dict):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return to_jsonable(x.tolist())
    if isinstance(x, np.generic):
        return to_jsonable(x.item())
    if isinstance(x, Fraction):
        return {"exact": str(x), "float": float(x)}
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def as_float(x: Any) -> float:
    """A predicted or observed value as a float (JSON records carry sympy numbers as {"exact", "float"})."""
    return float(x["float"]) if isinstance(x, dict) else float(x)


def as_floats(values: Any) -> np.ndarray:
    """A list of predicted or observed values as a float array (see :func:`as_float`)."""
    return np.array([as_float(v) for v in values], dtype=np.float64)


def judge_relative(rtol: float) -> Judge:
    """pass iff |observed - predicted| <= rtol |predicted| (observed may be a list: all must pass)."""

    def judge(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        values = obs.value if isinstance(obs.value, (list, tuple)) else [obs.value]
        pred = as_float(predicted)
        err = max(abs(as_float(v) - pred) for v in values) / abs(pred)
        return ("pass" if err <= rtol else "fail"), f"max relative error {err:.3e} (tolerance {rtol:g})"

    return judge


def judge_absolute(atol: float, require: str | None = None) -> Judge:
    """pass iff max |observed - predicted| <= atol (scalars or equal-length lists); with ``require``, the
    observation's ``details[require]`` must also be true (e.g. a symbolic cross-check that ran alongside)."""

    def judge(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        many = isinstance(predicted, (list, tuple))
        pred = as_floats(predicted) if many else np.array([as_float(predicted)])
        got = as_floats(obs.value) if many else np.array([as_float(obs.value)])
        if pred.shape != got.shape:
            return "fail", f"length mismatch {pred.size} vs {got.size}"
        if require and not obs.details.get(require, False):
            return "fail", f"{require} is False"
        err = float(np.max(np.abs(got - pred))) if pred.size else 0.0
        return ("pass" if err <= atol else "fail"), (f"max |observed - predicted| = {err:.3e} over {pred.size} "
                                                     f"value(s) (tolerance {atol:g})")

    return judge


def judge_symbolic_zero(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    """pass iff every observed residual simplifies to exactly 0."""
    residuals = obs.value if isinstance(obs.value, (list, tuple)) else [obs.value]
    bad = [r for r in residuals if sympy.simplify(sympy.sympify(r)) != 0]
    return ("pass", "all residuals simplify to 0") if not bad else ("fail", f"non-zero residuals: {bad[:3]}")


def judge_refuted_if_differs(rtol: float) -> Judge:
    """For a statement as printed in a source: ``refuted`` when the observation contradicts it
    (the observation carries the counterexample), ``pass`` when it agrees."""

    def judge(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        pred, got = as_float(predicted), as_float(obs.value)
        if abs(got - pred) <= rtol * max(1.0, abs(pred)):
            return "pass", "the statement as printed holds"
        return "refuted", f"printed value {pred:.6g}, observed {got:.6g} (see counterexample)"

    return judge


def _git_revision() -> str | None:
    import subprocess
    from pathlib import Path

    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, cwd=Path(__file__).resolve().parent
        )
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict[str, str]:
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version()}
    for pkg in ("numpy", "scipy", "sympy", "cvxpy", "torch", "theory-verification-kit"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return out


def run_claim(claim: Claim, ctx: RunContext) -> ClaimRecord:
    """Run one claim at ``ctx.scale``; any exception becomes an ``inconclusive`` record with the error."""
    if ctx.scale not in claim.configs:
        raise ValueError(f"claim {claim.id} has no {ctx.scale!r} configuration (has {sorted(claim.configs)})")
    config = claim.configs[ctx.scale]
    t0 = time.perf_counter()
    predicted: Any = None
    obs = Observation(value=None)
    try:
        predicted = claim.predict(config)
        obs = claim.observe(config, ctx)
        verdict, reason = claim.judge(predicted, obs, config)
    except Exception as exc:  # a crash decides nothing about the theorem
        verdict, reason = "inconclusive", f"{type(exc).__name__}: {exc}"
        obs.details = {**obs.details, "traceback": traceback.format_exc(limit=6)}
    meta = {
        "runtime_s": round(time.perf_counter() - t0, 3),
        "seeds": list(obs.seeds),
        "device": obs.details.pop("device", "cpu"),
        "versions": _versions(),
        "git_revision": _git_revision(),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    return ClaimRecord(
        id=claim.id,
        source=claim.source,
        statement=claim.statement,
        kind=claim.kind,
        scale=ctx.scale,
        predicted=to_jsonable(predicted),
        observed=to_jsonable(obs.value),
        tolerance=claim.tolerance,
        verdict=verdict,
        reason=reason,
        details=to_jsonable(obs.details),
        counterexample=to_jsonable(obs.counterexample),
        refutes=claim.refutes,
        corrected_by=claim.corrected_by,
        config=to_jsonable(config),
        artifacts=to_jsonable(obs.artifacts),
        metadata=meta,
    )
