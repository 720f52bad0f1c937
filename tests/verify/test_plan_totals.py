"""The plan at its edges (verify/report/plan.py; docs/running_at_scale.md, "The plan"): which record is the
measurement, whether a claim that needs exactly the usable memory fits, the totals' 2-hour threshold, and the human
table (its fits column, units and alignment) and JSON (null for a time that is not a finite number)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from verify.claims import registry
from verify.report import plan
from verify.runtime.jsonable import to_jsonable

SYMBOLIC = "edelman-ch5-lemB.2-exact-gap"  # a fast claim without an estimator: only a record gives it a time


def _row(cid: str, seconds: float | None, fits: bool | None = None, memory: int | None = None) -> plan.PlanRow:
    return plan.PlanRow(cid, "training", "s", seconds, memory, fits, "grid cost model", "")


def _journal(out: Path, claim: Any, *runs: tuple[float, str, str]) -> Path:
    """A report directory whose results.jsonl holds a record of ``claim`` at its full configuration per (runtime,
    device, finish time)."""
    out.mkdir()
    lines = [
        json.dumps(
            {
                "id": claim.id,
                "scale": "full",
                "verdict": "pass",
                "config": to_jsonable(claim.configs["full"]),
                "metadata": {"runtime_s": seconds, "device": device, "timestamp": when},
            }
        )
        for seconds, device, when in runs
    ]
    (out / "results.jsonl").write_text("\n".join(lines) + "\n")
    return out


def test_the_latest_record_is_the_measurement(tmp_path: Path) -> None:
    """Of two records of the same configuration on the same device type, the plan takes the one that finished last,
    wherever it stands in the file."""
    claim = registry()[SYMBOLIC]
    out = _journal(
        tmp_path / "out", claim, (20.0, "cpu", "2026-11-28T13:00:00+0000"), (10.0, "cpu", "2026-11-28T12:00:00+0000")
    )
    (row,), _ = plan.make_plan([claim], "full", "cpu", out=out, calibrate=False)
    assert row.basis == "measured" and row.seconds == 20.0 and "2026-11-28" in row.note


def test_a_record_on_a_numbered_gpu_measures_the_gpu(tmp_path: Path) -> None:
    """A record of ``--device cuda:1`` (its device "cuda:1") is a measurement for ``--plan --device cuda``, not for
    the CPU."""
    claim = registry()[SYMBOLIC]
    out = _journal(tmp_path / "out", claim, (7.5, "cuda:1", "2026-11-28T12:00:00+0000"))
    (row,), _ = plan.make_plan([claim], "full", "cuda", out=out, calibrate=False)
    assert row.basis == "measured" and row.seconds == 7.5
    (row,), _ = plan.make_plan([claim], "full", "cpu", out=out, calibrate=False)
    assert row.seconds is None


@dataclass(frozen=True)
class _Config:
    need: int


@pytest.mark.parametrize(("need", "fits"), [(999, True), (1000, True), (1001, False)])
def test_a_claim_that_needs_exactly_the_usable_memory_fits(monkeypatch, need: int, fits: bool) -> None:
    """``fits`` is "the estimated peak is at most the usable memory": equal fits, a byte more does not."""
    monkeypatch.setattr(plan, "_device_memory", lambda device: (1000, "cpu: 1000 bytes usable"))
    monkeypatch.setitem(
        plan.ESTIMATORS, _Config, lambda claim, config, device, speed: plan.Estimate(1.0, config.need, "t")
    )
    claim = SimpleNamespace(id="zz-qa", kind="numeric", source="s", configs={"full": _Config(need)}, observe=print)
    (row,), _ = plan.make_plan([claim], "full", "cpu", calibrate=False)
    assert row.memory_bytes == need and row.fits is fits


def test_a_claim_planned_at_exactly_two_hours_is_within_two_hours() -> None:
    """The campaign threshold is inclusive: 2 h counts "at or below 2 h", a second more counts "above"."""
    rows = [_row("at", plan.AFFORDABLE_S), _row("above", plan.AFFORDABLE_S + 1.0)]
    tot = plan.totals(rows)
    assert (tot["within_2h"], tot["over_2h"]) == (1, 1)
    assert "1 at or below 2 h, 1 above" in plan.format_plan(rows, {"memory": "cpu: test"}, "full", "cpu")


def test_a_time_that_is_not_finite_is_null_in_the_plans_json() -> None:
    """``--plan --json`` writes a claim's seconds as null unless it is a finite number (strict JSON, no Infinity)."""
    doc = plan.plan_document([_row("inf", math.inf), _row("ok", 5.0)], {"memory": "cpu: test"}, "full", "cpu")
    assert [c["seconds"] for c in doc["claims"]] == [None, 5.0]
    json.dumps(doc["claims"], allow_nan=False)


def _table(rows: list[plan.PlanRow]) -> dict[str, str]:
    """The human plan's line of each row, by claim id."""
    lines = plan.format_plan(rows, {"memory": "cpu: test"}, "full", "cpu").splitlines()
    return {r.id: next(line for line in lines if line.startswith(r.id + " ")) for r in rows}


def test_the_table_says_which_claims_fit_and_aligns_its_columns() -> None:
    """The fits column reads "yes" for a claim that fits and "NO" for one that does not; every column starts where
    its header does, whatever the length of the claim ids."""
    rows = [
        _row("a-claim-with-a-rather-long-identifier", 5.0, True, 2**20),
        _row("b", 7.0, False, 2**34),
        _row("c", None, None, None),
    ]
    text = plan.format_plan(rows, {"memory": "cpu: test"}, "full", "cpu")
    header = text.splitlines()[1]
    lines = _table(rows)
    fits = {cid: line[: line.index("grid cost model")].split()[-1] for cid, line in lines.items()}
    assert fits == {"a-claim-with-a-rather-long-identifier": "yes", "b": "NO", "c": "unknown"}
    for line in lines.values():
        assert line.index("training") == header.index("kind")
        assert line.rstrip().endswith("grid cost model") and len(line) == len(header) + len("grid cost model") - 5


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (2**20, "1 MiB"),
        (2**30, "1.00 GiB"),
        (2**20 - 2**10, "1023 KiB"),
        (999 * 2**30, "999.00 GiB"),
        (2**40, "1.00 TiB"),
    ],
)
def test_memory_is_written_in_the_largest_unit_it_fills(n: int, text: str) -> None:
    """A peak of exactly 1 MiB reads "1 MiB" (not "1024 KiB"), exactly 1 GiB "1.00 GiB", exactly 1 TiB "1.00 TiB"."""
    assert plan._bytes(n) == text


def test_memory_fits_the_tables_column_up_to_a_thousand_tib() -> None:
    """Every peak below 1000 TiB is at most 10 characters, the memory column's width (a full-scale grid plans 1.4 TiB,
    which in GiB, "1425.81 GiB", shifted its row)."""
    sizes = [int(m * 2**e) for e in range(10, 50) for m in (1.0, 1.5, 9.99, 99.9, 999.0, 1000.0, 1023.9)]
    assert max(len(plan._bytes(n)) for n in sizes if n < 1000 * 2**40) <= 10


def test_times_of_a_year_or_more_are_in_years() -> None:
    """A plan of several years says so in years (a grid at the thesis's scale on a CPU)."""
    year = 365.25 * 86400
    assert _table([_row("long", 3 * year)])["long"].split()[2:4] == ["3", "years"]
