"""Shared helpers for the claim tests: every quick claim is run once per test session and cached, so the
parametrised verdict test (``test_claims.py``) and the per-task artifact tests share one run."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import pytest
import torch

from verify.claims import RunContext, registry, run_claim
from verify.claims.base import Claim, ClaimRecord, Evaluation, evaluate, to_jsonable
from verify.claims.external import claim_module
from verify.runtime.options import RunOptions
from verify.sweep.grid import grid_of
from verify.sweep.session import sweep_session

from . import claim_prefetch


def expected_verdict(cid: str, scale: str = "quick") -> str | None:
    """``refuted`` for a claim about a statement as printed (an erratum), ``inconclusive`` where the claim declares
    its test underpowered at this scale, None where it declares the verdict exploratory (reported, not presumed),
    ``pass`` for every other claim (:meth:`Claim.expected_verdict`)."""
    return registry()[cid].expected_verdict(scale)


def _parallel_grid(claim: Claim, scale: str) -> bool:
    """True for a grid claim whose cells each train on one thread (``num_threads=1``) and whose plan has a stage of
    at least two cells: its cells then run on the ``processes`` executor with 2 workers, one per core of the 2-core
    CI machine, instead of one after another on one core. The record is the same: a cell's result depends only on
    its configuration and seeds (``test_sweep.py::test_processes_executor_stores_what_local_stores``)."""
    grid, cfg = grid_of(claim), claim.configs.get(scale)
    if grid is None or getattr(cfg, "num_threads", None) != 1:
        return False
    return max(len(stage) for stage in grid.plan(cfg)) >= 2


#: Quick claims whose training takes more than about a minute of the 2-core CI machine (claim time measured in the
#: quick report of 2026-11-29, docs/benchmarks.md): their verdict and population tests are marked slow, so that the
#: default suite stays near ten minutes; `tvk report` runs them, and `pytest -m slow` checks them.
SLOW_VERDICTS = {
    "edelman-ch5-thm5.8-sgd-polynet": "7 s, 12 seeds x 2 cases at the stated T (1e5 sequential SGD steps)",
    "edelman-ch5-thm5.7-plateau-gaussian-init": "7 s, 24 seeds x 2 block sizes of gradient flow with the exact error",
    # the two grid claims of Ch. 5 the default suite still ran: 14.7 s and 11.6 s of its main process on the idle
    # 2-core machine (2026-11-29, clean clone, --durations), above the ~5 s a default-suite verdict may take
    "edelman-ch5-fig5.3-hidden-progress": "14.7 s, 96 seeds and the random-label control (two grid stages)",
    "edelman-ch5-fig5.1-tc-grows-with-n": "11.6 s, 9 seeds x 7 cells",
    "edelman-ch4-fig4.4-parity-transition": "21 s, 4 seeds x 2 T",
    "edelman-ch4-fig4.2-threshold-trend": "21 s",
    "edelman-ch4-fig4.3-sparse-attention": "8 s",
    "edelman-ch4-fig4.3-overfitting-below-threshold": "22 s on the shared 2-core machine, 8 trials x 2 sample sizes",
    "edelman-ch8-transformer-phases": "708 s on the loaded 2-core machine (192 s with the earlier 8 seeds), 40 seeds",
    "edelman-ch8-transformer-induction-head": "the phases run",
    "edelman-ch8-one-layer-control": "93 s, 8 seeds",
    "edelman-ch6-width-buys-data": "327 s at load average 5-10 (about four times the 16-seed run's 84 s), 64 seeds x 2 widths",
    "edelman-ch6-fig6.1-pareto-grid": "79 s, 12 cells",
    "karp-ch4-thm4.4-gd-classifies": "24-57 s on a loaded 2-core machine, 4 tasks x 1.1e4 population GD steps (Theorem 4.4's whole horizon)",
    "karp-ch4-thm4.4-gd-v-stays-close": "the same run (shared, cached)",
    "edelman-ch5-fig5.1-local-slope-law": "17 s of CPU (74 s wall on the loaded 2-core machine), 32 seeds x 4 cases",
    "edelman-ch5-fig5.4-width-plateau": "47 s wall on the loaded 2-core machine, 32 seeds x 2 widths (r = 300 at B = 128)",
    "edelman-ch5-figB.12-noisy-parity": "25 s wall on the loaded 2-core machine, 16 seeds x 2 noise levels",
    "edelman-ch5-fig5.2-init-vs-sgd-noise": "38-47 s wall on the loaded 2-core machine (load average 5), 40 units x 3 runs",
    "edelman-ch5-figB.11-finite-sample-grokking": "35 s wall on the loaded 2-core machine (load average 5), 16 seeds offline",
    "edelman-ch5-figB.11-small-m-fails": "23 s wall on the loaded 2-core machine (load average 7), 8 seeds x 4000 steps",
    "edelman-ch5-figB.11-lambda-widens-generalisation": "29 s wall on the loaded 2-core machine (load average 7), 8 seeds x 2 weight decays",
    "edelman-ch5-figB.11-largest-lambda-fails-to-train": "18 s wall on the loaded 2-core machine (load average 7), 8 seeds x 4000 steps",
    "edelman-ch6-lemC.9-convex-phase": "10 s, 60 seeds x 56,455 GD steps",
    "karp-ch3-lemB4-gradient-concentration": "9-22 s wall on the loaded 2-core machine (load average 8-9), 170 batches of 38,909 samples",
    "edelman-ch6-thm6.4-end-to-end": "19-26 s wall on the loaded 2-core machine (load average 9-11), 46 seeds x one convex phase at n = 11",
    "edelman-ch6-lemC.8-generalisation": "Lemma C.9's runs (10 s) when not already run in the process",
    "edelman-ch6-lemC.9-proof-bound": "13-17 s, 60 seeds x 160,008 GD steps (the corrected count)",
    "edelman-ch6-finding3-sparse-vs-dense": "the Pareto grid's 12 cells again outside a report's store (79 s alone)",
    "karp-ch3-thm3.1-alg-reaches-error": "35 s, one run of k = 2000 for 3000 steps",
    "karp-ch3-thm3.1-steps-vs-k": "40 s, runs at k = 2000 and 3000",
    "karp-ch3-lem3.1-3.2-noise-bound": "10-20 s, the trajectory and Monte Carlo at 25 states",
    "karp-ch3-lem3.1-signal-push": "10-16 s, Monte Carlo at 13 states",
    "karp-ch3-thm3.2-infimum-m2": "4-11 s on the loaded 2-core machine, 6 inits x a threshold search and 6,000 samples",
    "karp-ch3-thm3.2-infimum-m3": "6-14 s on the loaded 2-core machine, 4 inits x a threshold search and 6,000 samples",
    "karp-ch3-thm3.2-infimum-m4": "9-17 s on the loaded 2-core machine, 3 inits x a threshold search and 6,000 samples",
    "karp-ch3-thm3.2-infimum-one-filter": "8-19 s on the loaded 2-core machine, 6 x 2,000 samples of 1,001 rows",
    # variants at the source's hyper-parameters (docs/verdicts.md): the originals' quick runs at another setting,
    # measured 2026-11-29 on the shared machine at load average 14 (several times an idle machine's time)
    "edelman-ch4-fig4.4-parity-transition-source-hparams": "332 s under load, the original's 4 runs (21 s idle)",
    "shi-fig4.1-split-single-frequency-source-hparams": "312 s under load, the original's 3000 steps x 8 seeds",
    "shi-fig4.2-split-coverage-source-hparams": "the fig4.1 variant's run",
    "edelman-ch8-minimal-kl-bigram-source-hparams": "505 s under load, the original's 600 steps x 8 seeds",
    "edelman-ch8-minimal-bigram-direction-source-hparams": "the kl-bigram variant's run",
    "edelman-thm7.9-training-S3-source-hparams": "42 s under load, as the original (39 s beside it)",
}


def slow_if_heavy(cid: str, what: str = "of training") -> Any:
    """``cid`` as a pytest parameter, marked ``slow`` (with the measured cost as the reason) when it is one of
    :data:`SLOW_VERDICTS`: a test that needs such a claim's record trains it, so it is as slow as the verdict test."""
    if cid not in SLOW_VERDICTS:
        return cid
    return pytest.param(cid, marks=pytest.mark.slow(reason=f"{SLOW_VERDICTS[cid]} {what}; run by -m slow"))


def slow_unless_light(*cids: str) -> Any:
    """A ``slow`` mark for a test that needs the records of ``cids`` when any of them is in :data:`SLOW_VERDICTS`,
    otherwise no mark (``pytest.mark.usefixtures()``)."""
    heavy = [c for c in cids if c in SLOW_VERDICTS]
    if not heavy:
        return pytest.mark.usefixtures()
    return pytest.mark.slow(reason="needs the run of " + ", ".join(f"{c} ({SLOW_VERDICTS[c]})" for c in heavy))


@functools.cache
def evaluation(cid: str, scale: str = "quick") -> Evaluation:
    """Predict, observe and judge claim ``cid`` once per session (see :func:`verify.claims.base.evaluate`)."""
    claim, ctx = registry()[cid], RunContext(scale=scale, options=RunOptions(progress=False))
    prefetched = claim_prefetch.PREFETCHER.take(cid) if claim_prefetch.PREFETCHER and scale == "quick" else None
    if prefetched is not None:
        return prefetched
    if _parallel_grid(claim, scale):
        with sweep_session("processes", workers=2, log=lambda msg: None):
            return evaluate(claim, ctx)
    return evaluate(claim, ctx)


def start_prefetch(cids: Sequence[str]) -> None:
    """Start the session's claim prefetch worker (:mod:`tests.verify.claim_prefetch`) for the quick claims ``cids``
    (in the order the tests need them), unless :func:`claim_prefetch.enabled` says no. Left to the test process:
    grid claims that run their cells on two processes (:func:`_parallel_grid`: they use both cores themselves) and
    claims not defined in ``verify`` (a worker may not have them). Training claims of one module and configuration
    form one unit, so a training run they share through a cache is trained once, in one process."""
    known = registry()
    todo = [
        cid
        for cid in dict.fromkeys(cids)
        if cid in known
        and "quick" in known[cid].configs
        and (claim_module(known[cid]) or "").startswith("verify.")
        and not _parallel_grid(known[cid], "quick")
    ]
    if claim_prefetch.PREFETCHER is not None or not claim_prefetch.enabled(len(todo)):
        return
    units: dict[object, list[str]] = {}
    for cid in todo:
        claim, key = known[cid], cid
        if claim.kind == "training":
            shared = (claim_module(claim), claim.configs["quick"])
            try:
                hash(shared)
                key = shared
            except TypeError:  # a configuration that cannot be compared shares nothing
                pass
        units.setdefault(key, []).append(cid)
    claim_prefetch.PREFETCHER = claim_prefetch.Prefetcher(
        [tuple(u) for u in units.values()], torch.set_num_threads, torch.get_num_threads
    )


def stop_prefetch() -> None:
    """End the prefetch worker (what it has not finished is not needed any more)."""
    if claim_prefetch.PREFETCHER is not None:
        claim_prefetch.PREFETCHER.close()


@functools.cache
def record(cid: str, scale: str = "quick") -> ClaimRecord:
    """The claim's record, from the cached evaluation when the scale is quick."""
    claim = registry()[cid]
    if scale != "quick":
        return run_claim(claim, RunContext(scale=scale, options=RunOptions(progress=False)))
    ev = evaluation(cid)
    return ClaimRecord(
        id=cid,
        source=claim.source,
        statement=claim.statement,
        kind=claim.kind,
        scale=scale,
        predicted=to_jsonable(ev.predicted),
        observed=to_jsonable(ev.obs.value),
        tolerance=claim.tolerance or "",
        verdict=ev.verdict,
        reason=ev.reason,
        details=to_jsonable(ev.obs.details),
        counterexample=to_jsonable(ev.obs.counterexample),
        refutes=claim.refutes,
        corrected_by=claim.corrected_by,
        config=to_jsonable(ev.config),
        artifacts=to_jsonable(ev.obs.artifacts),
        metadata={"runtime_s": ev.runtime_s, "seeds": list(ev.obs.seeds)},
    )


def assert_verdict(cid: str, scale: str = "quick") -> ClaimRecord:
    """Run claim ``cid`` at ``scale`` and check its verdict is the expected one (:func:`expected_verdict`; a claim
    exploratory at this scale only has to run without crashing); a refuted claim must carry the printed statement, a
    counterexample and a ``corrected_by`` claim that exists."""
    claim = registry()[cid]
    rec = record(cid, scale)
    expected = expected_verdict(cid, scale)
    if expected is None:
        assert "traceback" not in (rec.details or {}), rec.reason
    else:
        assert rec.verdict == expected, rec.reason
    if rec.verdict == "refuted":
        assert claim.refutes and claim.corrected_by in registry() and rec.counterexample
        assert not registry()[claim.corrected_by].refuting
    rec.to_json()
    return rec
