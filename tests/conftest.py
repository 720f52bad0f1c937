"""Test-suite configuration: hypothesis runs without a per-example deadline; on CI (CI set in the environment)
derandomized too, so a CI failure reproduces exactly; locally it explores new examples on every run.

Once the tests are collected, the quick claims that ``tests/verify/test_claims.py``'s collected tests need start
on a background worker process, which computes their evaluations on the second core while the tests run
(``tests/verify/claim_prefetch.py``; ``TVK_TEST_PREFETCH=0`` turns it off)."""

import os
import sys

import pytest
from hypothesis import settings

# No per-example deadline (hypothesis's default is 200 ms): a deadline is a timing assertion, and it failed a
# correct test (a 320 ms example of tests/theory/test_decision_lists_thm44_gd.py) on a 2-core machine busy with a
# training run; the suite's time is kept by its size, measured in benchmarks/, not asserted per example.
settings.register_profile("tvk", deadline=None)
settings.register_profile("ci", parent=settings.get_profile("tvk"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "tvk")

#: The tests whose ``cid`` parameter names a quick claim they evaluate (through ``claim_checks.evaluation``).
PREFETCHED_TESTS = ("test_quick_claim_verdict", "test_perturbed_prediction_changes_the_verdict")


def _claim_checks():
    """``tests.verify.claim_checks`` if a collected test module imported it (it imports torch), else None."""
    return sys.modules.get("tests.verify.claim_checks")


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    cids = [
        item.callspec.params["cid"]
        for item in session.items
        if item.path.name == "test_claims.py"
        and getattr(item, "originalname", "") in PREFETCHED_TESTS
        and "cid" in getattr(getattr(item, "callspec", None), "params", {})
    ]
    checks = _claim_checks()
    if cids and checks is not None:
        checks.start_prefetch(cids)


def pytest_runtest_logfinish() -> None:
    checks = _claim_checks()
    if checks is not None and checks.claim_prefetch.PREFETCHER is not None:
        checks.claim_prefetch.PREFETCHER.poll()


def pytest_sessionfinish() -> None:
    checks = _claim_checks()
    if checks is not None:
        checks.stop_prefetch()


def pytest_terminal_summary(terminalreporter) -> None:
    checks = _claim_checks()
    if checks is not None and checks.claim_prefetch.PREFETCHER is not None:
        terminalreporter.write_line(checks.claim_prefetch.PREFETCHER.summary())
