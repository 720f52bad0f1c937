"""CITATION.cff (issue 31, item 7) cites this version of the toolkit: its version is the package's, its release date a
valid date, and every source thesis of the claims is among its references."""

from __future__ import annotations

import datetime as dt
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_version_and_date():
    cff = _cff()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert str(cff["version"]) == version
    assert isinstance(dt.date.fromisoformat(str(cff["date-released"])), dt.date)


def test_the_sources_are_referenced():
    authors = {a.get("family-names") for ref in _cff()["references"] for a in ref.get("authors", [])}
    assert {"Edelman", "Shi", "Karp"} <= authors
