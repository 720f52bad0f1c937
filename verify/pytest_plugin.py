"""A pytest plugin that runs claims as test items: ``pytest --tvk 'edelman-thm7.8-*'``.

Options (group ``tvk``)::

    --tvk[=PATTERN]         run the claims whose id matches PATTERN (shell-style, comma-separated; default all)
    --tvk-scale quick|full  the scale the claims run at (default quick)
    --tvk-device auto|cpu|cuda   torch device of the training claims (default auto)
    --tvk-claims MODULE     also load claims from MODULE (dotted name or .py file; repeatable)
    --tvk-dtype float64|float32|tf32   training dtype of every training claim (default: each trainer's own)
    --tvk-seed-offset N     run every training claim on the disjoint seed set i + N (default 0)

Each selected claim becomes one item ``tvk::<claim id>`` (a :class:`ClaimItem` under the :class:`ClaimCollector`
that the plugin attaches to the session). The item runs :func:`verify.claims.base.evaluate` and fails where
``tvk report`` would count the verdict against the claim (:func:`verify.claims.base.unexpected_verdict`): it
passes with the expected verdict (``refuted`` for a claim about a statement as printed, ``Claim.refutes``;
``pass`` for every other claim), also with a ``pass`` or an ``inconclusive`` at a scale the claim declared
underpowered, and with any verdict at a scale it declared exploratory; a claim that crashed always fails. The
options are checked once, before any claim runs (a bad ``--tvk`` pattern or seed offset, ``--tvk-device cuda``
without CUDA: a usage error). A failing item shows the claim's source, statement, predicted and observed values,
tolerance, verdict and reason (and the traceback when the claim crashed). Items carry the marker ``tvk`` and
their kind as a keyword, so ``-m tvk``, ``-k 'not training'``, ``-x``, ``--lf``, ``--junitxml`` (verdict,
predicted, observed and tolerance as properties) and pytest-xdist's ``-n`` work as for any test.

With ``--tvk`` and no path on the command line only the claims are collected (not the ``testpaths``); name
paths to run tests alongside. Without ``--tvk`` the plugin adds nothing. Installed ``tvk.claims`` entry points
are loaded too (:mod:`verify.claims.external`).
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ClaimCollector", "ClaimItem", "ClaimVerdictMismatch"]

#: Longest predicted/observed text shown in a failure (the full values are in ``tvk report``'s results.json).
MAX_VALUE_CHARS = 1500


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tvk", "theory-verification-kit claims as tests")
    group.addoption(
        "--tvk",
        action="store",
        nargs="?",
        const="*",
        default=None,
        metavar="PATTERN",
        help="run the claims whose id matches PATTERN (shell-style, comma-separated; default all) as test items; "
        "without paths on the command line only the claims are collected. Write --tvk=PATTERN before paths.",
    )
    group.addoption(
        "--tvk-scale",
        choices=("quick", "full"),
        default="quick",
        help="scale the claims run at: quick (minutes on a CPU, default) or full (the sources' settings)",
    )
    group.addoption(
        "--tvk-device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="torch device of the training claims (default auto: cuda when available)",
    )
    group.addoption(
        "--tvk-dtype",
        choices=("float64", "float32", "tf32"),
        default=None,
        help="training dtype of every training claim (default: each trainer's own policy)",
    )
    group.addoption(
        "--tvk-seed-offset",
        type=int,
        default=0,
        metavar="N",
        help="run every training claim on the disjoint seed set i + N, N in [0, 2^31) (default 0)",
    )
    group.addoption(
        "--tvk-claims",
        action="append",
        default=[],
        metavar="MODULE",
        help="also load the claims of MODULE (a dotted module name or a .py file); repeatable",
    )


def _active(config: pytest.Config) -> bool:
    return config.getoption("tvk", default=None) is not None


def pytest_configure(config: pytest.Config) -> None:
    if not _active(config):
        return
    config.addinivalue_line("markers", "tvk: a claim of the theory-verification-kit run as a test (--tvk)")
    from verify.claims import external  # deferred: the claim registry imports torch
    from verify.runtime.device import DeviceUnavailableError, resolve_device
    from verify.runtime.selection import claim_patterns

    try:
        claim_patterns(config.getoption("tvk"), option="--tvk")
        resolve_device(_options(config).device)  # --tvk-device cuda without CUDA: refused once, not per claim
        external.load_entry_points()
        external.load_claim_modules(config.getoption("tvk_claims"))
    except (external.ClaimLoadError, ValueError, DeviceUnavailableError) as exc:
        raise pytest.UsageError(f"--tvk: {exc}") from exc


def _options(config: pytest.Config) -> Any:
    """The :class:`verify.runtime.options.RunOptions` of ``--tvk-device``, ``--tvk-dtype`` and ``--tvk-seed-offset``
    (a ValueError names a bad value: a seed offset outside [0, 2^31))."""
    from verify.runtime.options import RunOptions

    offset = config.getoption("tvk_seed_offset")
    try:
        return RunOptions(
            device=config.getoption("tvk_device"), dtype=config.getoption("tvk_dtype"), seed_offset=offset
        )
    except ValueError as exc:
        raise ValueError(f"--tvk-seed-offset {offset}: {exc}") from None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, pytest.CollectReport, Any]:
    """Attach the claim collector to the session's collection (alone when no path was given)."""
    rep = yield
    if isinstance(collector, pytest.Session) and _active(collector.config) and rep.passed:
        claims = ClaimCollector.from_parent(collector, name="tvk", nodeid="tvk")
        explicit = collector.config.args_source == pytest.Config.ArgsSource.ARGS
        rep.result = [*rep.result, claims] if explicit else [claims]
    return rep


class ClaimVerdictMismatch(Exception):
    """Raised by :class:`ClaimItem` when a claim's verdict is not the expected one."""

    def __init__(self, claim: Any, evaluation: Any, expected: str | None) -> None:
        super().__init__(f"{claim.id}: verdict {evaluation.verdict}, expected {expected}")
        self.claim = claim
        self.evaluation = evaluation
        self.expected = expected


def _show(value: Any) -> str:
    """A compact one-line form of a predicted or observed value (exact forms kept), cut at MAX_VALUE_CHARS."""
    from verify.claims.base import to_jsonable

    try:
        text = json.dumps(to_jsonable(value), default=repr, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + f" ... ({len(text)} characters)"


def _source_file(claim: Any) -> Path | None:
    for fn in (claim.observe, claim.predict):
        try:
            src = inspect.getsourcefile(fn)
        except TypeError:
            continue
        if src:
            return Path(src)
    return None


class ClaimCollector(pytest.Collector):
    """The session-level collector of the claims selected by ``--tvk`` at ``--tvk-scale``."""

    def collect(self) -> Iterator[ClaimItem]:
        from verify.claims import select  # deferred: the claim registry imports torch

        pattern = self.config.getoption("tvk")
        scale = self.config.getoption("tvk_scale")
        claims = select(pattern, scale)
        if not claims:
            raise pytest.Collector.CollectError(
                f"--tvk {pattern!r} matches no claim with a {scale!r} configuration (`tvk list --scale {scale}` "
                "lists the ids)"
            )
        for claim in claims:
            yield ClaimItem.from_parent(self, name=claim.id, claim_id=claim.id)


class ClaimItem(pytest.Item):
    """One claim run as a test: passes when its verdict is the expected one."""

    def __init__(self, *, claim_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        from verify.claims import registry

        self.claim = registry()[claim_id]
        self.add_marker("tvk")
        self.extra_keyword_matches.update({self.claim.kind, "refuting" if self.claim.refuting else "positive"})

    def runtest(self) -> None:
        from verify.claims import RunContext
        from verify.claims.base import evaluate, unexpected_verdict

        cache = getattr(self.config, "cache", None)  # absent with -p no:cacheprovider
        ctx = RunContext(
            scale=self.config.getoption("tvk_scale"),
            options=_options(self.config),
            workdir=str(cache.mkdir("tvk-checkpoints")) if cache is not None else None,
        )
        ev = evaluate(self.claim, ctx)
        expected = self.claim.expected_verdict(ctx.scale)
        self.user_properties.extend(
            [
                ("verdict", ev.verdict),
                ("expected", expected or "any (exploratory)"),
                ("kind", self.claim.kind),
                ("predicted", _show(ev.predicted)),
                ("observed", _show(ev.obs.value)),
                ("tolerance", self.claim.tolerance or ""),
                ("runtime_s", ev.runtime_s),
            ]
        )
        crashed = isinstance(ev.obs.details, dict) and "traceback" in ev.obs.details
        if crashed or unexpected_verdict(ev.verdict, expected):
            raise ClaimVerdictMismatch(self.claim, ev, expected)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        exc = excinfo.value
        if not isinstance(exc, ClaimVerdictMismatch):
            return str(super().repr_failure(excinfo, style=style))
        claim, ev = exc.claim, exc.evaluation
        lines = [
            f"claim {claim.id}: verdict {ev.verdict!r}, expected "
            + (repr(exc.expected) if exc.expected is not None else "any verdict but a crash (exploratory)"),
            f"  source:    {claim.source}",
            f"  statement: {claim.statement}",
        ]
        if claim.refutes:
            lines.append(f"  as printed: {claim.refutes}")
        lines += [
            f"  predicted: {_show(ev.predicted)}",
            f"  observed:  {_show(ev.obs.value)}",
            f"  tolerance: {claim.tolerance}",
            f"  reason:    {ev.reason}",
            f"  scale:     {self.config.getoption('tvk_scale')}, {ev.runtime_s:.3g} s",
        ]
        tb = ev.obs.details.get("traceback") if isinstance(ev.obs.details, dict) else None
        if tb:
            lines += ["", str(tb).rstrip()]
        return "\n".join(lines)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        return _source_file(self.claim) or self.path, None, f"tvk claim {self.claim.id}"
