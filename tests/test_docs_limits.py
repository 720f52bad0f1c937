"""docs/limits.md lists every size limit of theory/ and numerics/ (issue 32): its generated table is rebuilt from
the code by docs/build_limits.py, and must equal what is committed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("build_limits", ROOT / "docs" / "build_limits.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_limits_table_is_up_to_date():
    assert _script().main(["--check"]) == 0, "run python docs/build_limits.py"


def test_every_limit_constant_is_in_the_table():
    build = _script()
    text = (ROOT / "docs" / "limits.md").read_text()
    names = [(m, name) for m in build.modules() for name, _, _ in build.limits_of(m)]
    assert len(names) > 100
    for module, name in names:
        assert f"| `{module}` | `{name}` |" in text, (module, name)


def test_first_sentence_skips_abbreviations():
    build = _script()
    assert build._first_sentence("Largest d (Fig. 4.1, e.g. here). Second.") == "Largest d (Fig. 4.1, e.g. here)."
