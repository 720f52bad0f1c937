"""docs/coverage.md, the traceability matrix of the four sources (issue 30 item 13), stays true: every claim id it
names is registered, every registered claim appears in it, each row's status agrees with its ids cell, and its
totals are the counts of its rows (docs/build_coverage_totals.py)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "coverage.md"
INDEX = ROOT / "verify" / "claim_index.json"


def _script():
    name = "build_coverage_totals"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "build_coverage_totals.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _registered() -> set[str]:
    return {claim["id"] for claim in json.loads(INDEX.read_text())["claims"]}


def _named() -> set[str]:
    return set(_script().CLAIM_ID.findall(DOC.read_text()))


def test_every_id_named_exists():
    unknown = sorted(_named() - _registered())
    assert not unknown, f"docs/coverage.md names claims that are not registered: {unknown}"


def test_every_registered_claim_is_in_the_matrix():
    absent = sorted(_registered() - _named())
    assert not absent, f"registered claims absent from docs/coverage.md (add them to their item's row): {absent}"


def test_the_totals_are_up_to_date():
    assert _script().main(["--check"]) == 0, "run python docs/build_coverage_totals.py"


def test_statuses_agree_with_the_ids_cells():
    rows = _script().rows(DOC.read_text())
    assert len(rows) > 200
    for row in rows:
        if row.status in ("covered", "partial"):
            assert row.ids, f"{row.source}, {row.item}: {row.status} without a claim id"
        else:
            assert not row.ids, f"{row.source}, {row.item}: {row.status} but its ids cell names {row.ids}"
        if row.status == "missing: planned":
            assert re.search(r"issue \d+ item \d+", row.text), f"{row.source}, {row.item}: planned where?"
        if row.status in ("partial", "missing: not planned", "out of scope"):
            assert row.text.startswith(row.status + ":"), f"{row.source}, {row.item}: '{row.status}: <why>' expected"


def test_all_four_sources_have_rows():
    sources = {row.source for row in _script().rows(DOC.read_text())}
    assert sources == {"Edelman", "Shi", "Karp", "Li et al."}


@pytest.mark.parametrize(
    ("cell", "ids"),
    [
        ("`edelman-ch4-lem4.7-lipschitz`, `shi-thm4.9-margin`", ["edelman-ch4-lem4.7-lipschitz", "shi-thm4.9-margin"]),
        ("`karp-ch4-thm4.4-gd-*` planned", ["karp-ch4-thm4.4-gd-*"]),  # a pattern in backticks is caught as an id
        ("`tvk list`, `verify/claim_index.json`, `theory.boolean`, `li`", []),  # other code is not an id
    ],
)
def test_the_id_pattern(cell, ids):
    assert _script().CLAIM_ID.findall(cell) == ids


def test_an_unknown_status_is_refused():
    with pytest.raises(ValueError, match="starts with none of"):
        _script().status_class("done")
