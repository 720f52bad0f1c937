"""What a script or a reader takes from the report's outputs (verify/report/render.py): the CSV's numbers in their
own columns at full precision, the "Changes since" section's order and its rerun command, and the population line's
percentages. Records are built by hand; the expected values follow from docs/report.md and the docstrings."""

from __future__ import annotations

import csv
import io
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from verify.report import render
from verify.report.diff import diff_records


def _record(cid: str = "x", predicted: Any = 0.25, observed: Any = 0.25, **extra: Any) -> dict[str, Any]:
    """A minimal claim record as a run produces it."""
    rec = {"id": cid, "source": "s", "kind": "numeric", "verdict": "pass", "predicted": predicted, "observed": observed}
    rec["metadata"] = {"runtime_s": 1.0}
    return rec | extra


def _csv_rows(records: list[dict[str, Any]]) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(render.results_csv(records))))


@pytest.mark.parametrize(("predicted", "observed"), [(1 / 3, 0.1 + 0.2), (1e-300, 2.0**0.5), (123456.789012345, -1.5)])
def test_csv_numbers_are_full_precision_in_their_own_columns(predicted: float, observed: float) -> None:
    """The CSV's ``predicted`` and ``observed`` read back to the very float64 of each side (docs/report.md: "numbers
    in full precision, the float64's repr"), and its ``error_abs`` to their difference."""
    (row,) = _csv_rows([_record(predicted=predicted, observed=observed)])
    assert float(row["predicted"]) == predicted and float(row["observed"]) == observed
    assert float(row["error_abs"]) == abs(observed - predicted)


def _compare(tmp_path: Path, old: list[dict[str, Any]], new: list[dict[str, Any]], new_dir: Path) -> dict:
    """``meta["compare"]`` as ``tvk report --compare`` stores it: the diff of two record sets, as JSON."""
    d = diff_records({r["id"]: r for r in old}, {r["id"]: r for r in new}, str(tmp_path / "prev"), str(new_dir))
    return d.to_json()


def test_changes_since_lists_verdict_changes_before_other_findings(tmp_path: Path) -> None:
    """The "Changes since" section puts verdict changes first, whatever the order of the claims (docstring of
    ``changes_view``): a runtime change of the first claim comes after the verdict flip of the second."""
    old = [_record("a"), _record("b")]
    new = [_record("a", metadata={"runtime_s": 30.0}), _record("b", verdict="fail")]
    view = render.changes_view({"compare": _compare(tmp_path, old, new, tmp_path / "out")})
    assert view is not None
    kinds = [f["kind"] for f in view["findings"]]
    assert sorted(kinds) == ["runtime", "verdict"] and kinds[0] == "verdict"
    assert view["command"] == f"tvk diff {tmp_path / 'prev'} {tmp_path / 'out'}"


def test_comparing_with_the_reports_own_results_file_offers_no_diff_command(tmp_path: Path) -> None:
    """``--compare OUT/results.json``: the previous run was this directory's and is replaced, so the section offers
    no ``tvk diff`` (it would compare the run with itself) and says "in the previous run only"."""
    out = tmp_path / "out"
    data = {"old": str(out / "results.json"), "new": str(out), "changes": [], "added": [], "removed": ["gone"]}
    view = render.changes_view({"compare": data})
    assert view is not None and view["command"] is None
    assert [f["text"] for f in view["findings"]] == ["in the previous run only"]


def test_a_flip_probability_of_zero_reads_zero_percent() -> None:
    """A population line says "0 %" for a probability that is exactly 0, "< 0.01 %" only for a positive one."""
    pop = {"n": 10, "successes": 10, "confidence": 0.95, "lower": 0.7, "upper": 1.0, "p0": 0.5, "p_alt": 0.9}
    text = render.population_text(pop | {"flip_probability": 0.0, "flip_probability_plugin": 1e-6})
    assert "flip the verdict with probability 0 % (plug-in < 0.01 %)" in text


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:1"])
def test_a_record_run_on_any_gpu_is_rerun_on_the_gpu(device: str) -> None:
    """The rerun command of a record that ran on a GPU (``--device cuda:1`` records "cuda:1") repeats
    ``--device cuda``; a CPU record adds nothing."""
    assert render.rerun_options({}, {"metadata": {"device": device}}) == " --device cuda"
    assert render.rerun_options({}, {"metadata": {"device": "cpu"}}) == ""


class _Text(HTMLParser):
    """The text and the tags of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.text, self.tags = "", []

    def handle_data(self, data: str) -> None:
        self.text += data

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)


@pytest.mark.parametrize("path", ["verify/claims/a<b>.py", "ext/&amp;/x.py", 'd/"q"/<script>alert(1)</script>'])
def test_a_path_in_the_html_page_is_text(path: str) -> None:
    """A file path shown in report.html (an external claim's module may live anywhere) reads back as the same
    text, with no markup but the line-break hints after its slashes."""
    parsed = _Text()
    parsed.feed(str(render.break_after_slashes(path)))
    parsed.close()
    assert parsed.text == path and set(parsed.tags) == {"wbr"}


@pytest.mark.parametrize(
    ("verdict", "expected"), [("pass", "refuted"), ("refuted", "pass"), ("fail", "pass"), ("inconclusive", "pass")]
)
def test_every_claim_that_needs_attention_has_a_next_step(verdict: str, expected: str) -> None:
    """A claim in "Needs attention" (a fail, an inconclusive, or a verdict other than the expected one: an erratum
    that now passes) always says what to do next."""
    rec = {"id": "x-not-registered", "verdict": verdict, "reason": "", "metadata": {"expected_verdict": expected}}
    fields = render._attention_fields(rec, "md", {"run": {}, "report_dir": None, "local": True})
    assert fields["attention"] and fields["next_step"]


def test_changes_since_counts_the_findings_it_does_not_list(tmp_path: Path) -> None:
    """Beyond CHANGES_LIMIT findings the section lists the first ones and counts the rest: none is lost unsaid."""
    n = render.CHANGES_LIMIT + 7
    data = {"old": str(tmp_path / "prev"), "new": str(tmp_path / "out"), "changes": [], "removed": []}
    view = render.changes_view({"compare": data | {"added": [f"c{i}" for i in range(n)]}})
    assert view is not None
    assert len(view["findings"]) == render.CHANGES_LIMIT and view["more"] == n - render.CHANGES_LIMIT
    assert view["counts"] == f"{n} added"
