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
import os
import re
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numerics.limits import work_limits_scaled
from verify.runtime.claim_run import claim_run
from verify.runtime.files import ENVIRONMENT_ERRNOS
from verify.runtime.jsonable import config_hash, to_jsonable
from verify.runtime.protocol import Observation, RunContext, Scale
from verify.runtime.provenance import RECORD_LIBRARIES, git_revision, library_versions
from verify.runtime.selection import claim_patterns
from verify.sweep.grid import grid_of

from .judges import Judge, Verdict, as_float, as_floats

__all__ = [
    "CLAIM_ID",
    "KINDS",
    "Claim",
    "ClaimRecord",
    "Deviation",
    "Evaluation",
    "Observation",
    "PostHoc",
    "Resolution",
    "RunContext",
    "Scale",
    "Verdict",
    "as_float",
    "as_floats",
    "claim_module",
    "evaluate",
    "register",
    "registry",
    "run_claim",
    "select",
    "shared_run_name",
    "shared_unit",
    "to_jsonable",
    "unexpected_verdict",
]

KINDS = ("symbolic", "convex", "numeric", "training")
#: What a claim id may be (verify/report/schema/results.schema.json): it names files (figures, checkpoints) and anchors.
CLAIM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _check_declared(texts: tuple[str, ...], why: str, what: str, obj: object) -> None:
    """Refuse a declaration (a deviation, a post-hoc choice) with an empty field or a reason under three words."""
    if not all(str(x).strip() for x in texts) or len(why.split()) < 3:
        raise ValueError(f"{what}, got {obj}")


@dataclass(frozen=True)
class Deviation:
    """A setting of a configuration that differs from the source's (not only a size): which parameter, the
    source's value (with where it is stated), this configuration's value, and why (docs/verdicts.md)."""

    parameter: str
    source: str
    value: str
    why: str

    def __post_init__(self) -> None:
        _check_declared(
            (self.parameter, self.source, self.value),
            self.why,
            "a deviation needs a parameter, both values and a reason",
            self,
        )


ERRATUM_KINDS = ("typo", "notation", "substantive")


@dataclass(frozen=True)
class Erratum:
    """What kind of error a refuted statement is, and where the source prints it (docs/verdicts.md, "Errata").

    ``kind``: ``typo`` (a slip the source corrects nearby: the next line or the proof uses the right form),
    ``notation`` (a symbol or index that denotes the wrong object, the intended statement being clear), or
    ``substantive`` (the stated conclusion fails). ``quote`` is the source's text as printed; ``where`` names the
    document, page and equation or line. A statement that is true but weaker than what the proof derives is not an
    erratum (its claim passes and says so in ``Claim.note``)."""

    kind: str
    quote: str
    where: str

    def __post_init__(self) -> None:
        if self.kind not in ERRATUM_KINDS:
            raise ValueError(f"erratum kind must be one of {ERRATUM_KINDS}, got {self.kind!r}")
        if len(self.quote.split()) < 2 or len(self.where.split()) < 2:
            raise ValueError(f"an erratum needs the quoted source text and where it stands, got {self}")


@dataclass(frozen=True)
class Resolution:
    """How large an error of its prediction a claim's verdict detects, where that is coarser than the 1 % the
    prediction-perturbation test asks for (docs/verdicts.md, "How fine a check is"): ``rel``, the relative error
    from which on the verdict changes, measured for the prediction as a whole and for each entry alone, in either
    direction that the statement constrains (:func:`verify.claims.sensitivity.measure_resolution`, rounded up), and
    ``why`` the check cannot be finer (a Monte Carlo standard error, a bound with slack, a derived tolerance);
    ``undetected``: which entries no error up to 100 % detects, and why (points where a bound has that much slack:
    a looser bound is still a true bound), "" when every entry is detected.
    ``tests/verify/test_claims.py`` checks the measurement against it; the record and the report show it."""

    rel: float
    why: str
    undetected: str = ""

    def __post_init__(self) -> None:
        if not 0 < self.rel <= 1 or len(self.why.split()) < 4:
            raise ValueError(f"a resolution needs 0 < rel <= 1 and a reason, got {self}")
        if self.undetected and len(self.undetected.split()) < 4:
            raise ValueError(f"say which entries no error detects, and why, got {self.undetected!r}")


@dataclass(frozen=True)
class PostHoc:
    """A threshold or setting chosen after seeing a result: which parameter, its value, when (the run or step that
    showed the result it was chosen from) and why; declared so that a reader can discount the verdict it decides."""

    parameter: str
    value: str
    when: str
    why: str

    def __post_init__(self) -> None:
        _check_declared(
            (self.parameter, self.value, self.when),
            self.why,
            "a post-hoc choice needs a parameter, its value, when and why",
            self,
        )


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
        The settings at each scale (frozen ``...Config`` dataclasses); a claim without a config for a scale
        is not run at that scale.
    predict : callable
        ``predict(config)``: the quantity the verdict is judged on, computed by ``theory/``.
    observe : callable
        ``observe(config, ctx)``: measures it with ``numerics/`` or ``verify/`` and returns an
        :class:`Observation`.
    judge : :class:`verify.claims.judges.Judge`
        ``judge(predicted, observation, config)`` gives the verdict.
    tolerance : str, optional
        The tolerance in words; defaults to ``judge.describe()`` (write a number once).
    refutes : str, optional
        For a claim about an erratum: the statement as printed in the source.
    corrected_by : str, optional
        Id of the claim that holds the corrected statement.
    erratum : Erratum, optional
        For a claim about an erratum: its kind and the quoted source text with its place.
    note : str, optional
        What a reader should know about the statement that the verdict does not say (e.g. a printed bound that is
        true but weaker than what the proof derives).
    insensitive : str, optional
        Why this claim's verdict legitimately does not change when its predicted value is perturbed (a
        structural yes/no statement); the prediction-perturbation test lists these claims.
    on_device : bool, optional
        Whether ``observe`` runs torch on ``ctx.device`` (the record's metadata then names the resolved
        device); defaults to True for training claims.
    deviations : mapping scale -> tuple of Deviation, optional
        Every setting of the scale's configuration that differs from the source's (besides sizes), with why; the
        record and the report show them next to the verdict.
    post_hoc : tuple of PostHoc, optional
        Every threshold or setting chosen after seeing a result (value, when, why).
    resolution : Resolution, optional
        The relative error of the prediction from which on the verdict changes, where it is coarser than 1 %, and
        why (the record and the report show it).
    underpowered : mapping scale -> str, optional
        Scales at which the claim's statistical test is declared, before the run, too weak to decide (the
        reason, with the power): the expected verdict there is ``inconclusive``, and ``tvk report`` does not
        count that verdict as a failure (docs/report.md). The verdict itself is never changed.
    variant_of : str, optional
        Id of the claim this one is a variant of: the same statement and judge at the original's quick sizes, with
        the source's hyper-parameters that the original's quick setting changes (its ``deviations``) restored; the
        report shows the two verdicts side by side (docs/verdicts.md, "Variants at the source's hyper-parameters").
    exploratory : mapping scale -> str, optional
        Scales at which the verdict is reported but not presumed (the reason): no expected verdict
        (:meth:`expected_verdict` is None), a ``fail`` or ``inconclusive`` there is a finding, not a failure of
        ``tvk report`` or of the tests, which only require that the run did not crash.
    seeded : bool, optional
        The configurations' ``seeds`` draw the random instances (tasks, initial points) that the prediction is made
        for, not only the trainers' randomness. Under a seed offset (``tvk report --seed-offset N``) :func:`evaluate`
        then shifts the configuration's seeds before predicting and observing, so a fresh seed set is a fresh set of
        instances, and runs the trainers without a further offset; the record's configuration lists the seeds that
        ran. Default False: the offset reaches the trainers only.
    """

    id: str
    source: str
    statement: str
    kind: str
    configs: Mapping[str, Any]
    predict: Callable[[Any], Any]
    observe: Callable[[Any, RunContext], Observation]
    judge: Judge
    tolerance: str | None = None
    refutes: str | None = None
    corrected_by: str | None = None
    insensitive: str | None = None
    on_device: bool | None = None
    underpowered: Mapping[str, str] | None = None
    deviations: Mapping[str, tuple[Deviation, ...]] | None = None
    post_hoc: tuple[PostHoc, ...] = ()
    erratum: Erratum | None = None
    note: str | None = None
    resolution: Resolution | None = None
    variant_of: str | None = None
    exploratory: Mapping[str, str] | None = None
    seeded: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not CLAIM_ID.fullmatch(self.id):
            raise ValueError(
                f"claim id {self.id!r} must be letters, digits, '.', '_' and '-', beginning with a letter or a digit "
                "(it names the claim's files, figures and anchors; the results schema's pattern)"
            )
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if not self.configs:
            raise ValueError(f"claim {self.id}: needs a config for at least one scale")
        if not isinstance(self.judge, Judge):
            raise TypeError(
                f"claim {self.id}: judge must be a verify.claims.judges.Judge, got {type(self.judge).__name__}"
            )
        if self.tolerance is None:
            object.__setattr__(self, "tolerance", self.judge.describe())
        if self.on_device is None:
            object.__setattr__(self, "on_device", self.kind == "training")
        if self.seeded and not all(
            hasattr(cfg, "seeds") and dataclasses.is_dataclass(cfg) for cfg in self.configs.values()
        ):
            raise ValueError(f"claim {self.id}: seeded needs configurations (dataclasses) with a `seeds` field")
        for scale in self.deviations or {}:
            if scale not in self.configs:
                raise ValueError(f"claim {self.id}: deviations for {scale!r}, which has no config")
        for scale, why in (self.underpowered or {}).items():
            if scale not in self.configs or len(str(why).split()) < 4:
                raise ValueError(f"claim {self.id}: underpowered needs a configured scale and a reason, got {scale!r}")
        for scale, why in (self.exploratory or {}).items():
            if scale not in self.configs or len(str(why).split()) < 4 or scale in (self.underpowered or {}):
                raise ValueError(
                    f"claim {self.id}: exploratory needs a configured scale, not declared underpowered, and a reason, "
                    f"got {scale!r}"
                )

    @property
    def refuting(self) -> bool:
        """True for a claim about a statement as printed (an erratum): its expected verdict is ``refuted``."""
        return self.refutes is not None

    def expected_verdict(self, scale: str) -> str | None:
        """``refuted`` for an erratum, None at a scale declared :attr:`exploratory` (not presumed), ``inconclusive``
        at a scale declared :attr:`underpowered`, else ``pass``."""
        if scale in (self.exploratory or {}):
            return None
        if self.refuting:
            return "refuted"
        return "inconclusive" if scale in (self.underpowered or {}) else "pass"


def unexpected_verdict(verdict: str, expected: str | None) -> bool:
    """Whether ``verdict`` counts against a claim whose expected verdict (:meth:`Claim.expected_verdict`) is
    ``expected``: the rule of ``tvk report``'s exit status and of the pytest plugin's items (docs/cli.md).

    Never at a scale declared exploratory (``expected`` None: reported, not presumed); a ``fail`` always; at a scale
    declared underpowered (``expected`` is ``inconclusive``) nothing else (a pass there is an outcome its power did
    not promise, not a failure); otherwise every verdict other than the expected one (an inconclusive, an erratum
    that the run did not refute).

    >>> from verify.claims.base import unexpected_verdict
    >>> [unexpected_verdict(v, "inconclusive") for v in ("pass", "inconclusive", "fail")]
    [False, False, True]
    >>> [unexpected_verdict(v, "refuted") for v in ("refuted", "pass", "inconclusive")]
    [False, True, True]
    >>> unexpected_verdict("fail", None)
    False
    """
    if expected is None:
        return False
    if verdict == "fail":
        return True
    return expected != "inconclusive" and verdict != expected


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
    population: dict[str, Any] | None = None
    deviations: list[dict[str, str]] = dataclasses.field(default_factory=list)
    post_hoc: list[dict[str, str]] = dataclasses.field(default_factory=list)
    erratum: dict[str, str] | None = None
    note: str | None = None
    resolution: dict[str, Any] | None = None

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
    """Claims whose id matches the shell-style ``pattern`` (comma-separated alternatives allowed,
    :func:`verify.runtime.selection.claim_patterns`; an empty one is refused) and that have a config at ``scale``, in
    registration order."""
    pats = claim_patterns(pattern)
    return [c for c in _REGISTRY.values() if scale in c.configs and any(fnmatch.fnmatch(c.id, p) for p in pats)]


def claim_module(claim: Claim) -> str | None:
    """The module that defines ``claim``'s ``observe`` (or ``predict``) function, or None when unknown."""
    for fn in (claim.observe, claim.predict):
        mod = getattr(fn, "__module__", None)
        if isinstance(mod, str):
            return mod
    return None


def shared_unit(claim: Claim, scale: str) -> tuple[str | None, Any] | None:
    """The key under which training claims may share a cached training run, and so run in one work unit of the
    report (:func:`verify.report.pool.schedule`): their module and configuration at ``scale``; None for other
    claims, for a grid's claim (every grid's ``observe`` is :meth:`verify.sweep.grid.Grid.observe`, of one module, and
    its cells are shared through the sweep store instead) and for a configuration that cannot be compared."""
    if claim.kind != "training" or grid_of(claim) is not None:
        return None
    config = claim.configs.get(scale)
    try:
        hash(config)
    except TypeError:
        return None
    return (claim_module(claim), config)


def shared_run_name(claim: Claim, scale: str) -> str | None:
    """What the checkpoints of ``claim``'s training run at ``scale`` are bound to when registered claims share that
    run (the same :func:`shared_unit`): their ids, sorted and joined by ``" + "`` (``claim``'s own among them);
    None when no other claim shares it. Any claim of the pair (Shi Figs. 4.1 and 4.2 judge one run at each k)
    then resumes the run's checkpoint, whichever of them wrote it and whichever a report selects."""
    key = shared_unit(claim, scale)
    if key is None or key[0] is None:
        return None
    ids = {c.id for c in _REGISTRY.values() if c is not claim and scale in c.configs and shared_unit(c, scale) == key}
    return " + ".join(sorted(ids | {claim.id})) if ids else None


@dataclass
class Evaluation:
    """The raw result of running one claim: the predicted value and observation as computed (before JSON
    conversion), the verdict and its reason, and the runtime."""

    config: Any
    predicted: Any
    obs: Observation
    verdict: Verdict
    reason: str
    runtime_s: float
    population: dict[str, Any] | None = None


FULL_SCALE_WORK_FACTOR = 10
"""At ``--scale full`` a claim's prediction and observation run with the per-call work limits of ``numerics`` ten
times higher (:func:`numerics.limits.work_limits_scaled`: about ten minutes of numpy per call instead of one). The
interactive limits refused six Monte-Carlo and gradient-descent runs at the sources' own settings by factors of
1.6-3.2 (docs/running_at_scale.md); the plan states each claim's cost before a full run starts. Memory limits stay."""


def work_factor(scale: str) -> int:
    """The factor of the ``numerics`` work limits at ``scale``: :data:`FULL_SCALE_WORK_FACTOR` at full, else 1."""
    return FULL_SCALE_WORK_FACTOR if scale == "full" else 1


def evaluate(claim: Claim, ctx: RunContext) -> Evaluation:
    """Predict, observe and judge one claim at ``ctx.scale``; any exception becomes ``inconclusive`` with the
    error (a crash decides nothing about the theorem), except an operating-system error of the environment
    (``verify.runtime.files.ENVIRONMENT_ERRNOS``: disk full, quota, permissions, read-only file system), which is raised:
    it says nothing about the claim and the run must stop rather than record a verdict."""
    if ctx.scale not in claim.configs:
        raise ValueError(f"claim {claim.id} has no {ctx.scale!r} configuration (has {sorted(claim.configs)})")
    config = claim.configs[ctx.scale]
    if claim.seeded and ctx.options.seed_offset:  # fresh instances: the prediction sees the shifted seeds too
        config = dataclasses.replace(config, seeds=ctx.options.seeds(config.seeds))
        ctx = dataclasses.replace(ctx, options=ctx.options.replace(seed_offset=0))
    t0 = time.perf_counter()
    predicted: Any = None
    obs = Observation(value=None)
    population = None
    try:
        with work_limits_scaled(work_factor(ctx.scale)):
            predicted = claim.predict(config)
            obs = claim.observe(config, ctx)
        verdict, reason = claim.judge(predicted, obs, config)
        population = claim.judge.population(predicted, obs, config)
    except Exception as exc:  # a crash decides nothing about the theorem
        if isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRNOS:
            raise
        verdict, reason = "inconclusive", f"{type(exc).__name__}: {exc}"
        obs.details = {**obs.details, "traceback": _traceback_text()}
    return Evaluation(config, predicted, obs, verdict, reason, round(time.perf_counter() - t0, 3), population)


#: This repository's folder and a separator: left out of the file names of a record's traceback.
_REPO_PREFIX = str(Path(__file__).resolve().parents[2]) + os.sep


def _traceback_text(limit: int = 6) -> str:
    """The traceback of the exception being handled (its last ``limit`` frames), its files named relative to the
    repository (``verify/claims/...``, not ``/home/.../verify/claims/...``): records are archived and read on other
    machines, where the folder a report ran in means nothing. Files outside the repository keep their paths."""
    return traceback.format_exc(limit=limit).replace(_REPO_PREFIX, "")


def run_claim(claim: Claim, ctx: RunContext) -> ClaimRecord:
    """Run one claim at ``ctx.scale`` (:func:`evaluate`) and turn the result into its record.

    Checkpoints written or read while it runs are bound to the claim and its configuration
    (:func:`verify.runtime.claim_run.claim_run`), or to the training run when other claims share it
    (:func:`shared_run_name`); ``metadata["resumed_from"]`` lists the ``{"step", "file"}`` of every checkpoint a
    trainer resumed from, ``file`` being the file's name without its folder (None when none)."""
    bound_to = shared_run_name(claim, ctx.scale)
    with claim_run(claim.id, config_hash(claim.configs.get(ctx.scale)), bound_to=bound_to) as run:
        ev = evaluate(claim, ctx)
    obs = ev.obs
    ran = sorted({s for t in run.trainings for s in t["seeds"]})  # the seeds the trainers used (offset applied)
    meta = {
        "runtime_s": ev.runtime_s,
        "seeds": ran or list(obs.seeds),
        "device": ctx.resolved_device() if claim.on_device else "cpu",
        "versions": library_versions(RECORD_LIBRARIES),
        "git_revision": git_revision(),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "resumed_from": list(run.resumed) or None,
        "training": list(run.trainings) or None,
        "expected_verdict": claim.expected_verdict(ctx.scale),
    }
    if work_factor(ctx.scale) != 1:
        meta["work_limit_factor"] = work_factor(ctx.scale)
    if ctx.scale in (claim.underpowered or {}):
        meta["underpowered"] = claim.underpowered[ctx.scale]
    if ctx.scale in (claim.exploratory or {}):
        meta["exploratory"] = claim.exploratory[ctx.scale]
    if claim.variant_of:
        meta["variant_of"] = claim.variant_of
    return ClaimRecord(
        id=claim.id,
        source=claim.source,
        statement=claim.statement,
        kind=claim.kind,
        scale=ctx.scale,
        predicted=to_jsonable(ev.predicted),
        observed=to_jsonable(obs.value),
        tolerance=claim.tolerance,
        verdict=ev.verdict,
        reason=ev.reason,
        details=to_jsonable(obs.details),
        counterexample=to_jsonable(obs.counterexample),
        refutes=claim.refutes,
        corrected_by=claim.corrected_by,
        config=to_jsonable(ev.config),
        artifacts=to_jsonable(obs.artifacts),
        metadata=meta,
        population=to_jsonable(ev.population),
        deviations=[dataclasses.asdict(d) for d in (claim.deviations or {}).get(ctx.scale, ())],
        post_hoc=[dataclasses.asdict(p) for p in claim.post_hoc],
        erratum=None if claim.erratum is None else dataclasses.asdict(claim.erratum),
        note=claim.note,
        resolution=None if claim.resolution is None else dataclasses.asdict(claim.resolution),
    )
