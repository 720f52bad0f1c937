"""The pytest plugin (verify/pytest_plugin.py): ``pytest --tvk PATTERN`` runs claims as test items that pass on the
expected verdict (``refuted`` for an erratum claim) and fail otherwise with predicted, observed, tolerance and
reason; -k, -x, --lf and --junitxml work; without --tvk the plugin adds nothing.

The runs are in-process (pytester's inline runs) against a copy of the claim registry, so the deliberately
failing claims of the temporary module vanish with each test."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest
import torch

from verify.claims import base, external, registry
from verify.claims.judges import ExactlyEqual

pytest_plugins = ["pytester"]

PLUGIN = ("-p", "verify.pytest_plugin")
FAST = "edelman-thm7.8-margin,edelman-thm7.8-construction,edelman-D.6.2-output-as-printed"

_counter = itertools.count()

# The start of the claim modules below: a configuration and an observation of the sum 1 + 2 + ... + n.
PREAMBLE = """
from dataclasses import dataclass

from verify.claims import Claim, Observation, register
from verify.claims.judges import ExactlyEqual


@dataclass(frozen=True)
class SumConfig:
    n: int


def observe(cfg, ctx):
    return Observation(sum(range(1, cfg.n + 1)))
"""

# Three claims on the sum: one right, one with a wrong prediction, one whose observation crashes.
EXT_MODULE = (
    PREAMBLE
    + """

def crash(cfg, ctx):
    raise ZeroDivisionError("observation crashed on purpose")


common = dict(source="Gauss", kind="symbolic", configs={"quick": SumConfig(100)}, judge=ExactlyEqual())
register(Claim(id="ext-gauss-ok", statement="1 + ... + n = n(n+1)/2", predict=lambda c: c.n * (c.n + 1) // 2,
               observe=observe, **common))
register(Claim(id="ext-gauss-fails", statement="1 + ... + n = n(n-1)/2", predict=lambda c: c.n * (c.n - 1) // 2,
               observe=observe, **common))
register(Claim(id="ext-gauss-crashes", statement="1 + ... + n = n(n+1)/2", predict=lambda c: c.n * (c.n + 1) // 2,
               observe=crash, **common))
"""
)


@pytest.fixture
def isolated(monkeypatch):
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(external, "_LOADED", {})


@pytest.fixture
def ext_module(pytester) -> str:
    """A claim module file in the test directory (not a test file: pytest does not collect it)."""
    path = pytester.path / f"tvk_plugin_ext_{next(_counter)}_{id(pytester) % 10**6}.py"
    path.write_text(EXT_MODULE)
    return str(path)


def test_fast_claims_run_as_passing_items(pytester, isolated):
    result = pytester.runpytest(*PLUGIN, f"--tvk={FAST}", "-v")
    result.assert_outcomes(passed=3)
    for cid in FAST.split(","):  # the erratum claim edelman-D.6.2-... passes by being refuted
        result.stdout.fnmatch_lines([f"tvk::{cid} PASSED*"])
    assert registry()["edelman-D.6.2-output-as-printed"].refuting


def test_a_shell_pattern_selects_claims_and_k_narrows_them(pytester, isolated):
    result = pytester.runpytest(*PLUGIN, "--tvk", "edelman-thm7.8-*", "-k", "construction or margin", "--co", "-q")
    selected = [line.removeprefix("tvk::") for line in result.outlines if line.startswith("tvk::")]
    every = [c.id for c in base.select("edelman-thm7.8-*")]
    assert selected == [c for c in every if "construction" in c or "margin" in c]
    assert {"edelman-thm7.8-margin", "edelman-thm7.8-construction"} <= set(selected) and len(selected) < len(every)
    # The claim's kind is a keyword too.
    result = pytester.runpytest(*PLUGIN, "--tvk=edelman-thm7.8-*", "-k", "symbolic", "--co", "-q")
    symbolic = sorted(c.id for c in base.select("edelman-thm7.8-*") if c.kind == "symbolic")
    assert sorted(line.removeprefix("tvk::") for line in result.outlines if line.startswith("tvk::")) == symbolic


def test_a_failing_claim_fails_with_predicted_observed_tolerance_and_reason(pytester, isolated, ext_module):
    result = pytester.runpytest(*PLUGIN, "--tvk-claims", ext_module, "--tvk=ext-gauss-*")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*claim ext-gauss-fails: verdict 'fail', expected 'pass'",
            "*source:    Gauss",
            "*predicted: 4950",
            "*observed:  5050",
            f"*tolerance: {ExactlyEqual().describe()}",
            "*reason:*",
        ]
    )
    # A crash is inconclusive, and shows its traceback.
    result.stdout.fnmatch_lines(["*claim ext-gauss-crashes: verdict 'inconclusive'*", "*ZeroDivisionError*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_x_stops_at_the_first_failing_claim(pytester, isolated, ext_module):
    result = pytester.runpytest(*PLUGIN, "--tvk-claims", ext_module, "--tvk=ext-gauss-*", "-x")
    result.assert_outcomes(passed=1, failed=1)  # registration order: ok, fails, (crashes: not run)
    assert "ext-gauss-crashes" not in result.stdout.str()


def test_last_failed_reruns_only_the_failed_claim(pytester, isolated, ext_module):
    args = (*PLUGIN, "--tvk-claims", ext_module, "--tvk=ext-gauss-ok,ext-gauss-fails")
    pytester.runpytest(*args).assert_outcomes(passed=1, failed=1)
    result = pytester.runpytest(*args, "--lf", "-v")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(["*tvk::ext-gauss-fails FAILED*"])


def test_junitxml_carries_the_verdict_and_the_values(pytester, isolated, ext_module):
    xml = pytester.path / "claims.xml"
    pytester.runpytest(*PLUGIN, "--tvk-claims", ext_module, "--tvk=ext-gauss-ok,ext-gauss-fails", f"--junitxml={xml}")
    cases = {c.get("name"): c for c in ET.parse(xml).getroot().iter("testcase")}
    assert set(cases) == {"ext-gauss-ok", "ext-gauss-fails"}
    props = {p.get("name"): p.get("value") for p in cases["ext-gauss-fails"].iter("property")}
    assert props["verdict"] == "fail" and props["expected"] == "pass"
    assert (props["predicted"], props["observed"]) == ("4950", "5050")
    assert props["tolerance"] == ExactlyEqual().describe()
    failure = cases["ext-gauss-fails"].find("failure")
    assert failure is not None and "predicted: 4950" in (failure.text or "") + (failure.get("message") or "")
    assert cases["ext-gauss-ok"].find("failure") is None


def test_without_tvk_the_plugin_adds_nothing(pytester, isolated):
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest(*PLUGIN, "-v")
    result.assert_outcomes(passed=1)
    assert "tvk::" not in result.stdout.str()


def test_with_tvk_and_paths_claims_run_alongside_tests_and_without_paths_alone(pytester, isolated):
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest(*PLUGIN, "--tvk=edelman-thm7.8-margin", "test_plain.py", "-v")
    result.assert_outcomes(passed=2)
    result = pytester.runpytest(*PLUGIN, "--tvk=edelman-thm7.8-margin", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*tvk::edelman-thm7.8-margin PASSED*"])


def test_a_pattern_matching_nothing_is_a_collection_error(pytester, isolated):
    result = pytester.runpytest(*PLUGIN, "--tvk=no-such-claim-*")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--tvk 'no-such-claim-*' matches no claim with a 'quick' configuration*"])


def test_a_bad_claim_module_is_a_usage_error(pytester, isolated, tmp_path):
    result = pytester.runpytest(*PLUGIN, "--tvk", "--tvk-claims", str(tmp_path / "absent.py"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tvk: claim module *absent.py: no such file*"])


# Claims whose expected verdict is not `pass`: declared underpowered at quick (a pass or an inconclusive is what the
# run may give, a fail is a failure) and an erratum whose statement as printed holds (not refuted: a failure).
POWER_MODULE = (
    PREAMBLE
    + """

common = dict(source="Gauss", kind="symbolic", configs={"quick": SumConfig(10)}, judge=ExactlyEqual(), observe=observe)
weak = {"quick": "declared too weak to decide here"}
register(Claim(id="ext-power-weak-passes", statement="sum = n(n+1)/2", predict=lambda c: c.n * (c.n + 1) // 2,
               underpowered=weak, **common))
register(Claim(id="ext-power-weak-fails", statement="sum = n(n-1)/2", predict=lambda c: c.n * (c.n - 1) // 2,
               underpowered=weak, **common))
register(Claim(id="ext-power-erratum-holds", statement="sum = n(n+1)/2", predict=lambda c: c.n * (c.n + 1) // 2,
               refutes="sum = n(n+1)/2 as printed", **common))
"""
)


def test_items_follow_the_reports_rule_for_underpowered_claims_and_errata(pytester, isolated):
    """An item fails where `tvk report` counts the verdict against the claim (verify.claims.base.unexpected_verdict):
    a pass at a scale declared underpowered passed `tvk report` but failed its item ("expected 'inconclusive'")."""
    path = pytester.path / f"tvk_plugin_power_{next(_counter)}.py"
    path.write_text(POWER_MODULE)
    result = pytester.runpytest(*PLUGIN, f"--tvk-claims={path}", "--tvk=ext-power-*", "-v")
    result.stdout.fnmatch_lines(["*tvk::ext-power-weak-passes PASSED*"])
    result.stdout.fnmatch_lines(["*tvk::ext-power-weak-fails FAILED*"])
    result.stdout.fnmatch_lines(["*tvk::ext-power-erratum-holds FAILED*"])
    result.assert_outcomes(passed=1, failed=2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tvk="], "*--tvk: --tvk '' names no pattern*leave --tvk out*"),
        (["--tvk=edelman-thm7.8-margin", "--tvk-seed-offset=-1"], "*--tvk-seed-offset -1*[0, 2^31)*"),
        (["--tvk=edelman-thm7.8-margin", f"--tvk-seed-offset={2**31}"], "*--tvk-seed-offset 2147483648*[0, 2^31)*"),
    ],
)
def test_bad_options_are_one_usage_error_before_any_claim_runs(pytester, isolated, args, message):
    """An empty pattern and a seed offset outside [0, 2^31) were a traceback in every item (naming `--only`, an
    option of `tvk`), or accepted where `tvk report` refuses them."""
    result = pytester.runpytest(*PLUGIN, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_cuda_is_refused_once(pytester, isolated):
    """`--tvk-device cuda` without CUDA failed every training claim as inconclusive (and passed the others), where
    `tvk report --device cuda` refuses the run up front."""
    result = pytester.runpytest(*PLUGIN, "--tvk=edelman-thm7.8-margin", "--tvk-device", "cuda")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tvk: *cuda*"])
