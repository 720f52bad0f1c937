"""``tvk report``'s exit code from its verdicts and its option checks (verify/cli.py; README, "Exit codes": 0 every
verdict as expected, 1 a claim failed or was inconclusive where not declared, 2 bad input). The report run itself is
replaced by a stub returning hand-built records, so nothing trains."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from verify import cli


def _rec(verdict: str, expected: str = "pass", **metadata: Any) -> dict[str, Any]:
    return {"id": f"x-{verdict}-{expected}", "verdict": verdict, "metadata": {"expected_verdict": expected, **metadata}}


@pytest.fixture
def stub_report(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """``run_report`` replaced: it returns the records the test puts in the returned list."""
    from verify.report import run as report_run

    records: list[dict[str, Any]] = []
    monkeypatch.setattr(report_run, "run_report", lambda out, **kw: (records, {"runtime_s": 0.1}))
    return records


@pytest.fixture
def no_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """A report that starts running fails the test (an internal error, exit 3): the refusals come before it."""
    from verify.report import run as report_run

    def ran(*a: Any, **k: Any) -> Any:
        raise AssertionError("the report ran")

    monkeypatch.setattr(report_run, "run_report", ran)


@pytest.mark.parametrize(
    ("records", "code"),
    [
        ([_rec("pass")], 0),
        ([_rec("pass"), _rec("fail")], 1),
        ([_rec("inconclusive")], 1),
        ([_rec("inconclusive", "inconclusive")], 0),  # declared underpowered beforehand
        ([_rec("refuted", "refuted")], 0),  # an erratum, refuted as expected
        ([_rec("pass", "refuted")], 1),  # an erratum the run did not refute
        ([_rec("fail", exploratory="reported, not presumed")], 0),
        ([_rec("inconclusive", exploratory="reported, not presumed"), _rec("fail")], 1),
    ],
)
def test_the_exit_code_follows_the_verdicts(tmp_path: Path, capsys, stub_report, records, code: int) -> None:
    """Exit 1 for a fail, an undeclared inconclusive or an erratum not refuted, unless the claim is exploratory at
    this scale; 0 otherwise; the JSON answer counts the unexpected verdicts that decided it."""
    stub_report.extend(records)
    assert cli.main(["report", "--out", str(tmp_path / "out"), "--no-progress", "--json"]) == code
    answer = json.loads(capsys.readouterr().out)
    assert bool(answer["unexpected"]) == (code == 1)


@pytest.mark.parametrize(
    ("option", "name"),
    [(["-j", "0"], "-j/--jobs"), (["--jobs=-2"], "-j/--jobs"), (["--seed-offset", str(2**31)], "--seed-offset")],
)
def test_an_option_out_of_range_is_bad_input_naming_it(tmp_path: Path, capsys, no_report, option, name) -> None:
    """``-j 0`` (at least one worker) and ``--seed-offset 2^31`` (offsets lie in [0, 2^31)) are refused as bad input
    (exit 2) by an error naming the option, before the report starts."""
    code = cli.main(["report", "--out", str(tmp_path / "out"), "--no-progress", "--json", *option])
    out = capsys.readouterr().out
    assert code == 2 and name in json.loads(out)["error"]


def test_the_largest_seed_offset_is_accepted(tmp_path: Path, capsys, stub_report) -> None:
    """2^31 - 1, the last offset of [0, 2^31), runs."""
    stub_report.append(_rec("pass"))
    assert cli.main(["report", "--out", str(tmp_path / "out"), "--no-progress", "--seed-offset", str(2**31 - 1)]) == 0


@pytest.mark.parametrize("value", ["maybe", "2", "ja"])
def test_an_unknown_json_value_is_an_error_answered_in_json(capsys, value: str) -> None:
    """``--json=VALUE`` other than yes/true/1/on or no/false/0/off is bad input, and the error comes as the JSON
    object a script asked for (one object on stdout), with one line on stderr."""
    assert cli.main(["list", f"--json={value}"]) == 2
    out, err = capsys.readouterr()
    assert "--json" in json.loads(out)["error"] and err.count("\n") == 1


@pytest.mark.parametrize(("text", "seconds"), [("1d", 86400.0), ("1.5d", 129600.0), ("0.5h", 1800.0), ("2m", 120.0)])
def test_within_accepts_days_and_fractions(text: str, seconds: float) -> None:
    """``--within`` takes the units s, m, h and d of its parser (``_DURATION``), and fractions of them."""
    assert cli._duration(text) == seconds


def _diff_raises(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> list[str]:
    """``tvk diff A B`` whose comparison raises ``exc``; the argv to run it."""
    from verify.report import diff

    def boom(*a: Any, **k: Any) -> Any:
        raise exc

    monkeypatch.setattr(diff, "diff_runs", boom)
    return ["diff", "old", "new", "--json"]


def test_running_out_of_memory_is_a_size_problem_not_a_bug(monkeypatch, capsys) -> None:
    """A MemoryError ends with exit 2 and "use smaller sizes" (what the user can change), not as an internal error."""
    assert cli.main(_diff_raises(monkeypatch, MemoryError())) == 2
    assert "use smaller sizes" in json.loads(capsys.readouterr().out)["error"]


def test_an_internal_error_is_one_line_and_tvk_debug_shows_its_traceback(monkeypatch, capsys) -> None:
    """A bug of tvk is exit 3 with one line; with TVK_DEBUG=1 the exception itself propagates (its traceback)."""
    argv = _diff_raises(monkeypatch, KeyError("planted"))
    monkeypatch.delenv("TVK_DEBUG", raising=False)
    assert cli.main(argv) == 3
    assert "internal error: KeyError" in json.loads(capsys.readouterr().out)["error"]
    monkeypatch.setenv("TVK_DEBUG", "1")
    with pytest.raises(KeyError, match="planted"):
        cli.main(argv)


@pytest.mark.parametrize("value", [10**309, -(10**320), 10**399], ids=["1e309", "-1e320", "1e399"])
def test_an_overflow_names_the_option_beyond_the_float_range(value: int) -> None:
    """An OverflowError names no parameter: the message names the integer option that no float can hold."""
    with pytest.raises(OverflowError):
        float(value)  # the premise: this option's value is beyond the float range
    args = argparse.Namespace(command="derive", task="modular", p=value, k=2, json=False)
    message = cli._overflow_message(OverflowError("int too large to convert to float"), args)
    assert message is not None and message.startswith("--p ") and "--k" not in message
