"""verify/claims/base.py without running a real claim: the expected verdict of a declared scale, what
:func:`evaluate` does with an error of the environment and with a crash, the population it records, and the bounds
of a claim's declarations. Written for the mutation audit of the verdict machinery."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

import verify
from verify.claims.base import Claim, Observation, RunContext, evaluate
from verify.claims.judges import Check, MaxAbs, PerSeed, Population
from verify.runtime.options import RunOptions

CTX = RunContext(options=RunOptions(device="cpu", progress=False))
UNDERPOWERED = "four seeds give power 0.3"  # a reason of five words


def _claim(observe: Any = None, judge: Any = None, **kw: Any) -> Claim:
    return Claim(
        id="test-claim-base",
        source="test",
        statement="one equals one",
        kind="numeric",
        configs={"quick": None, "full": None},
        predict=lambda cfg: 1.0,
        observe=observe or (lambda cfg, ctx: Observation(1.0)),
        judge=judge or MaxAbs(0.0),
        **kw,
    )


def test_the_expected_verdict_of_each_declared_scale():
    """``inconclusive`` at a scale declared underpowered, ``pass`` elsewhere, ``refuted`` for an erratum, None at an
    exploratory scale."""
    claim = _claim(underpowered={"quick": UNDERPOWERED})
    assert claim.expected_verdict("quick") == "inconclusive" and claim.expected_verdict("full") == "pass"
    assert _claim(exploratory={"quick": UNDERPOWERED}).expected_verdict("quick") is None
    assert _claim(refutes="one equals two").expected_verdict("full") == "refuted"


def test_an_underpowered_or_exploratory_scale_needs_a_reason_of_four_words():
    with pytest.raises(ValueError, match="underpowered needs"):
        _claim(underpowered={"quick": "power is low"})
    assert _claim(underpowered={"quick": "the power is low"}).underpowered
    with pytest.raises(ValueError, match="exploratory needs"):
        _claim(exploratory={"quick": "not yet presumed"})


def test_a_scale_is_not_both_underpowered_and_exploratory():
    with pytest.raises(ValueError, match="not declared underpowered"):
        _claim(underpowered={"quick": UNDERPOWERED}, exploratory={"quick": UNDERPOWERED})


def _raising(exc: BaseException):
    def observe(cfg: Any, ctx: RunContext) -> Observation:
        raise exc

    return observe


def test_an_error_of_the_environment_stops_the_run_and_any_other_error_is_inconclusive():
    """A full disk says nothing about the claim: it is raised. Any other error, another OSError included, becomes
    ``inconclusive`` with the error as its reason."""
    with pytest.raises(OSError, match="No space"):
        evaluate(_claim(_raising(OSError(errno.ENOSPC, "No space left on device"))), CTX)
    ev = evaluate(_claim(_raising(OSError(errno.ENOENT, "no such file"))), CTX)
    assert ev.verdict == "inconclusive" and "no such file" in ev.reason
    ev = evaluate(_claim(_raising(ZeroDivisionError("division by zero"))), CTX)
    assert ev.verdict == "inconclusive" and ev.reason == "ZeroDivisionError: division by zero"


def test_the_traceback_of_an_error_names_the_repositorys_files_relative_to_it():
    """An archived record is read on other machines: its traceback names this repository's files relative to the
    repository (the frame of ``evaluate`` as ``verify/claims/base.py``), never the folder the report ran in."""
    root = Path(verify.__file__).resolve().parents[1]
    ev = evaluate(_claim(_raising(ZeroDivisionError("division by zero"))), CTX)
    text = ev.obs.details["traceback"]
    assert str(root) not in text
    assert f'File "{Path("verify", "claims", "base.py")}", line' in text and "ZeroDivisionError" in text


def test_evaluate_records_the_judges_population():
    """A population judge's statistics reach the evaluation (hence the record); a plain judge has none."""
    judge = PerSeed((Check("ok", "ok", truthy=True),), rule=Population(p0=0.5, p_alt=0.95))
    rows = [{"ok": True}] * 7 + [{"ok": False}]
    ev = evaluate(_claim(lambda cfg, ctx: Observation(None, details={"per_seed": rows}), judge), CTX)
    assert ev.population is not None and (ev.population["n"], ev.population["successes"]) == (8, 7)
    assert ev.population["verdict"] == ev.verdict == "pass"  # 7 of 8 against p0 = 0.5 (docs/verdicts.md)
    assert evaluate(_claim(), CTX).population is None
