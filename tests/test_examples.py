"""Every script in examples/ runs (in its own process, from the examples folder) and writes its figure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))


def test_every_example_is_listed_in_the_readme() -> None:
    readme = (EXAMPLES / "README.md").read_text()
    assert SCRIPTS and all(f"`{name}`" in readme for name in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_example_runs_and_draws(script: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, script, str(tmp_path)],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ": pass (" in proc.stdout, proc.stdout
    assert ": fail (" not in proc.stdout and ": inconclusive (" not in proc.stdout, proc.stdout
    pngs = list(tmp_path.glob("*.png"))
    assert pngs and all(p.stat().st_size > 0 for p in pngs)
