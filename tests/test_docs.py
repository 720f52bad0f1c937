"""The worked example of docs/adding-a-claim.md runs as written: its code blocks are executed in order, the
claim it registers passes, and a perturbed prediction fails it."""

from __future__ import annotations

import re
from pathlib import Path

from verify.claims import RunContext, base, run_claim
from verify.runtime.options import RunOptions

DOC = Path(__file__).resolve().parents[1] / "docs" / "adding-a-claim.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_adding_a_claim_example_runs_and_can_fail(monkeypatch):
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))  # the example registers into a copy
    namespace: dict = {}
    for block in _blocks():
        exec(compile(block, str(DOC), "exec"), namespace)
    namespace["test_majority_influence_is_the_degree_one_coefficient"]()
    claim = base._REGISTRY["example-prop2.21-majority-influence"]
    rec = run_claim(claim, RunContext(options=RunOptions(progress=False)))
    assert rec.verdict == "pass", rec.reason
    assert rec.tolerance == claim.judge.describe()
    config = claim.configs["quick"]
    obs = claim.observe(config, RunContext(options=RunOptions(progress=False)))
    wrong = claim.judge.perturb(claim.predict(config), obs)
    assert claim.judge(wrong, obs, config)[0] == "fail"


def test_adding_a_claim_example_is_short():
    code = [
        line
        for block in _blocks()
        for line in block.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "from ", "import "))
    ]
    assert len(code) <= 30, len(code)  # "under 30 lines of new code"
