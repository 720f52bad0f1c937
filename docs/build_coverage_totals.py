"""Count the statuses of docs/coverage.md's rows and write its totals table.

docs/coverage.md has one table per source chapter with the header ``| item | statement (short) | claim ids |
status |``; a row's status starts with ``covered``, ``partial``, ``missing: planned``, ``missing: not planned`` or
``out of scope``. ``python docs/build_coverage_totals.py`` rewrites the totals between the two markers below, one
line per source (the ``## `` heading above the table) and one for all; ``--check`` exits 1 when they are out of
date. ``tests/test_docs_coverage.py`` runs the check and compares the claim ids of the page, in backticks and
starting with a source's name (``edelman-``, ``shi-``, ``karp-``, ``li-``), with ``verify/claim_index.json``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "coverage.md"
BEGIN = "<!-- totals:"
END = "<!-- end totals -->"
HEADER = "| item | statement (short) | claim ids | status |"

#: A claim id in backticks: a source's name, a hyphen, then no blank and no backtick (``edelman-ch4-...``).
CLAIM_ID = re.compile(r"`((?:edelman|shi|karp|li)-[^`\s]+)`")

#: The status classes, in the order of the totals table; a status starts with one of these.
STATUSES = ("covered", "partial", "missing: planned", "missing: not planned", "out of scope")
COLUMNS = ("covered", "partial", "missing (planned)", "missing (not planned)", "out of scope")


class Row(NamedTuple):
    """One item row: the source (its ``## `` heading), the item, the claim ids of its ids cell, its status class
    and the status text."""

    source: str
    item: str
    ids: tuple[str, ...]
    status: str
    text: str


def status_class(text: str) -> str:
    """The status class a status cell starts with (``missing: planned`` before ``missing``).

    Raises ValueError for a status that starts with none of :data:`STATUSES`.
    """
    for status in sorted(STATUSES, key=len, reverse=True):
        if text.startswith(status):
            return status
    raise ValueError(f"status {text!r} starts with none of {STATUSES}")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def rows(text: str) -> list[Row]:
    """The item rows of every table with the item header, each with the ``## `` source heading above it."""
    out: list[Row] = []
    source = ""
    in_table = False
    for line in text.splitlines():
        if line.startswith("## "):
            source, in_table = line[3:].strip(), False
        elif line.strip() == HEADER:
            in_table = True
        elif in_table and line.startswith("| ---"):
            continue
        elif in_table and line.startswith("|"):
            cells = _cells(line)
            if len(cells) != 4:
                raise ValueError(f"a row of 4 cells expected, got {len(cells)}: {line!r}")
            item, _, ids, status = cells
            out.append(Row(source, item, tuple(CLAIM_ID.findall(ids)), status_class(status), status))
        else:
            in_table = False
    return out


def totals(items: list[Row]) -> dict[str, Counter[str]]:
    """Per source (in the page's order) and ``all``: how many rows have each status class."""
    out: dict[str, Counter[str]] = {}
    for row in items:
        out.setdefault(row.source, Counter())[row.status] += 1
    out["all"] = sum(out.values(), Counter())
    return out


def render(counts: dict[str, Counter[str]]) -> str:
    """The totals table (Markdown) between the markers."""
    lines = [
        "| source | " + " | ".join(COLUMNS) + " | rows |",
        "| --- |" + " --- |" * (len(COLUMNS) + 1),
    ]
    for source, c in counts.items():
        cells = [str(c[s]) for s in STATUSES] + [str(sum(c.values()))]
        lines.append(f"| {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rebuilt(text: str) -> str:
    """The page with its totals recomputed from its rows."""
    start = text.index(BEGIN)
    start = text.index("\n", start) + 1
    end = text.index(END)
    return text[:start] + "\n" + render(totals(rows(text))) + "\n\n" + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/coverage.md's totals are out of date")
    args = parser.parse_args(argv)
    text = DOC.read_text()
    new = rebuilt(text)
    if args.check:
        if new != text:
            print("docs/coverage.md: totals out of date; run python docs/build_coverage_totals.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
