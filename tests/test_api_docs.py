"""docs/build_api.py renders the API reference from the docstrings (pdoc): one page per module, numpy-style
sections, offline (no script or stylesheet from the network)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("pdoc", reason="pdoc is in the test and docs extras")

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "build_api.py"


def test_build_api_renders_a_module_offline(tmp_path):
    build = runpy.run_path(str(SCRIPT))["main"]
    assert build(["--out", str(tmp_path / "api"), "theory.boolean"]) == 0
    page = (tmp_path / "api" / "theory" / "boolean.html").read_text()
    import theory.boolean as mod

    public = [name for name in mod.__all__ if callable(getattr(mod, name))]
    assert public and all(f'id="{name}"' in page for name in public)  # every public function has an entry
    assert "Parameters" in page or "Returns" in page  # numpy sections were parsed
    assert not re.search(r'(src|href)="https?://(?!pdoc\.dev)', page)  # nothing fetched from the network


def test_build_api_replaces_a_stale_reference(tmp_path):
    out = tmp_path / "api"
    out.mkdir()
    (out / "stale.html").write_text("old")
    runpy.run_path(str(SCRIPT))["build"](out, ("theory.boolean",))
    assert not (out / "stale.html").exists()
