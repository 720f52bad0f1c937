"""Every quick claim, parametrised: its verdict (``refuted`` for a statement as printed, ``pass`` otherwise)
and, for every non-refuted claim (training claims included, re-judged on their recorded observation), that the
verdict changes when the predicted value is perturbed by 1 % or by 10 times the tolerance (whichever is larger,
:meth:`verify.claims.judges.Judge.perturb`), as a whole and one entry at a time (list, dict and array predictions:
an entry the judge never reads is seen), and, for the claims that are not training claims, that an error of 1 % in
the whole prediction or in any one entry changes the verdict unless the claim declares a coarser resolution with the
reason (:class:`verify.claims.base.Resolution`, checked against the judge: :mod:`verify.claims.sensitivity`).

A new claim is covered without editing this file. Claims whose verdict legitimately does not depend on the
predicted value declare why in ``Claim.insensitive``; :func:`test_insensitive_claims_say_why` lists them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from verify.claims import registry, select
from verify.claims.judges import Judge
from verify.claims.sensitivity import check_resolution, detects, exact_by_construction, single_entry_perturbations

from .claim_checks import SLOW_VERDICTS, assert_verdict, evaluation, slow_if_heavy

#: Quick claims whose run takes 25-65 s on the 2-core CPU and whose record no other default test needs: their
#: verdict test is marked ``slow`` to keep the default suite near 10 minutes (the default report, `tvk report`,
#: still runs them; `pytest -m slow` checks their verdicts). Measured 2026-11-25 on a quiet machine.
QUICK = [slow_if_heavy(c.id, "of training; run by `tvk report`") for c in select("*", "quick")]
#: Every non-refuted quick claim whose verdict must react to its prediction; training claims are re-judged on their
#: recorded observation (no retraining). A claim declared underpowered at quick scale is expected inconclusive there
#: (its perturbation is tested at the scale that decides it, or by its task's tests).
PERTURBABLE = [
    c.id for c in select("*", "quick") if not c.refuting and not c.insensitive and c.expected_verdict("quick") == "pass"
]


@pytest.mark.parametrize("cid", QUICK)
def test_quick_claim_verdict(cid: str) -> None:
    assert_verdict(cid)


@pytest.mark.parametrize("cid", PERTURBABLE)
def test_perturbed_prediction_changes_the_verdict(cid: str) -> None:
    claim = registry()[cid]
    ev = evaluation(cid)
    assert ev.verdict == "pass", ev.reason
    wrong = claim.judge.perturb(ev.predicted, ev.obs)
    verdict, reason = claim.judge(wrong, ev.obs, ev.config)
    assert verdict != "pass", f"{cid}: a prediction off by 1 % (or 10x the tolerance) still passes: {reason}"
    if claim.kind != "training":  # entry by entry, both directions, at 1 % or the declared resolution
        problems = check_resolution(claim.judge, ev.predicted, ev.obs, ev.config, claim.resolution)
        assert not problems, f"{cid}: " + "; ".join(problems)
    elif not exact_by_construction(claim.judge, ev.predicted):  # the judge's own perturbation, one entry at a time
        moves, n = single_entry_perturbations(ev.predicted, wrong)
        unseen = [list(p) for p, one in moves if not detects(claim.judge, one, ev.obs, ev.config)]
        declared = claim.resolution.undetected if claim.resolution else ""
        # an entry is exempt when a key on its path is named, in backticks, in Resolution.undetected with the reason
        unseen = [p for p in unseen if not any(isinstance(x, str) and f"`{x}`" in declared for x in p)]
        assert not unseen, (
            f"{cid}: the perturbation of entry {unseen[0]} alone (of {n} moved) still passes: the judge does not read "
            "it; make it read every entry, or name it and say why in Claim(resolution=Resolution(undetected=...))"
        )


def test_slow_verdicts_name_existing_quick_claims() -> None:
    quick = {c.id for c in select("*", "quick")}
    assert set(SLOW_VERDICTS) <= quick


def test_insensitive_claims_say_why() -> None:
    listed = {c.id: c.insensitive for c in registry().values() if c.insensitive}
    for cid, why in listed.items():
        assert len(why.split()) >= 4, f"{cid}: say why the verdict cannot depend on the prediction"
        assert not registry()[cid].refuting, f"{cid}: refuted claims are never perturbed; drop `insensitive`"
    print("claims exempt from the perturbation test:", *sorted(listed), sep="\n  ")


def test_every_claim_uses_a_judge_object_and_states_its_tolerance() -> None:
    for claim in registry().values():
        assert isinstance(claim.judge, Judge)
        assert claim.tolerance
        if claim.refuting:
            assert claim.corrected_by in registry(), claim.id


def test_full_scale_runs_every_quick_claim() -> None:
    """`tvk report --scale full` runs every claim that quick runs (at its full setting, or the same one)."""
    missing = [c.id for c in registry().values() if "quick" in c.configs and "full" not in c.configs]
    assert not missing, f"claims without a full-scale configuration: {missing}"


def test_no_claim_module_imports_another_task():
    """Task modules are peers: they import the shared machinery (base, judges, training) and the lower layers,
    never another task's claims (a task package may import its own submodules)."""
    import ast
    from pathlib import Path

    import verify.claims as pkg

    root = Path(pkg.__file__).parent
    shared = {"base", "judges", "training"}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).with_suffix("")
        if rel.parts[0] in shared | {"__init__"}:
            continue
        task = rel.parts[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against this module's package
                    package = ["verify", "claims", *rel.parts[:-1]]
                    base = package[: len(package) - node.level + 1]
                    names = [node.module] if node.module else [a.name for a in node.names]
                    targets = [".".join([*base, n]) for n in names]
                else:
                    targets = [node.module or ""]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                parts = t.split(".")
                if parts[:2] == ["verify", "claims"] and len(parts) > 2:
                    assert parts[2] in shared or parts[2] == task, f"{path.name} imports {t}"


def test_variants_at_the_source_hyperparameters_name_their_original() -> None:
    """A ``variant_of`` claim (docs/verdicts.md, "Variants at the source's hyper-parameters") names a registered
    claim, is judged by the same judge, has quick and full configurations, and its quick configuration differs from
    the original's (it restores a hyper-parameter the original's quick setting changes)."""
    claims = registry()
    variants = [c for c in claims.values() if c.variant_of]
    assert variants
    for c in variants:
        original = claims.get(c.variant_of)
        assert original is not None and not original.variant_of, c.id
        assert c.judge == original.judge and c.kind == original.kind, c.id
        assert {"quick", "full"} <= set(c.configs) and c.configs["quick"] != original.configs["quick"], c.id
        assert c.id.startswith(original.id), c.id


def test_exploratory_verdicts_are_reported_not_presumed() -> None:
    """At a scale declared exploratory a claim has no expected verdict, and `tvk report` does not count its fail or
    inconclusive as unexpected; an exploratory scale needs a configuration and a reason, and is not underpowered."""
    import dataclasses

    from verify.cli import _unexpected

    claim = next(c for c in registry().values() if c.exploratory)
    assert claim.expected_verdict("quick") is None
    records = [
        {"verdict": "fail", "metadata": {"expected_verdict": None, "exploratory": "reported, not presumed here"}},
        {"verdict": "inconclusive", "metadata": {"expected_verdict": None, "exploratory": "reported, not presumed"}},
        {"verdict": "fail", "metadata": {"expected_verdict": "pass"}},
    ]
    assert _unexpected(records) == {"fail": 1}
    # at a scale declared underpowered only a fail counts; an erratum that the run did not refute counts (its
    # "pass" said the printed statement held, and tvk report exited 0: "every claim passed or was refuted as expected")
    weak = [{"verdict": v, "metadata": {"expected_verdict": "inconclusive"}} for v in ("pass", "inconclusive", "fail")]
    assert _unexpected(weak) == {"fail": 1}
    errata = [{"verdict": v, "metadata": {"expected_verdict": "refuted"}} for v in ("refuted", "pass", "inconclusive")]
    assert _unexpected(errata) == {"pass": 1, "inconclusive": 1}
    with pytest.raises(ValueError, match="exploratory"):
        dataclasses.replace(claim, exploratory={"quick": "too short"})
    with pytest.raises(ValueError, match="exploratory"):
        dataclasses.replace(claim, underpowered={"quick": "four runs cannot decide it"})


def test_full_scale_runs_with_the_raised_work_limits() -> None:
    """At --scale full the numerics work limits are FULL_SCALE_WORK_FACTOR times higher while a claim predicts and
    observes (and the record says so); at quick scale they are the interactive ones."""
    from numerics import limits
    from verify.claims.base import FULL_SCALE_WORK_FACTOR, Claim, run_claim
    from verify.claims.judges import ExactlyEqual
    from verify.runtime.options import RunOptions
    from verify.runtime.protocol import Observation, RunContext

    claim = Claim(
        id="test-work-limit-factor",
        source="this test",
        statement="The work limit in force is the scale's.",
        kind="numeric",
        configs={"quick": 1, "full": FULL_SCALE_WORK_FACTOR},
        predict=lambda factor: factor * limits.MAX_WORK,
        observe=lambda factor, ctx: Observation(value=limits.max_work()),
        judge=ExactlyEqual(),
    )
    for scale in ("quick", "full"):
        record = run_claim(claim, RunContext(scale=scale, options=RunOptions(progress=False, device="cpu")))
        assert record.verdict == "pass", record.reason
        assert record.metadata.get("work_limit_factor") == (FULL_SCALE_WORK_FACTOR if scale == "full" else None)
    assert limits.max_work() == limits.MAX_WORK


#: Modules of verify/claims/ that register no claim: the loader of claims kept outside the package and the
#: perturbation measurements the tests and the report use.
NOT_CLAIM_MODULES = frozenset({"verify.claims.external", "verify.claims.sensitivity"})


def test_every_module_of_the_claims_package_is_imported_by_the_registry() -> None:
    """A claim module that nothing imports registers nothing, silently: a new file needs its name in
    ``verify.claims.TASKS``, or an import in its family package's ``__init__.py`` (docs/adding-a-claim.md)."""
    root = Path(__file__).resolve().parents[2]
    modules = sorted(
        ".".join(f.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for f in (root / "verify" / "claims").rglob("*.py")
    )
    code = (
        "import sys; from verify.claims import registry; registry(); "
        f"print('\\n'.join(m for m in {modules!r} if m not in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    unimported = set(out.split()) - NOT_CLAIM_MODULES
    assert not unimported, (
        f"never imported when the claims load, so their claims are not registered: {sorted(unimported)}"
    )


@pytest.mark.parametrize("bad", ["ext:gauss-sum", "two words", "-leading-dash", "accent-é", ""])
def test_a_claim_id_must_be_a_safe_name(bad: str) -> None:
    """An id outside the results schema's pattern was registered, and its figures were then skipped one by one
    (their file names would not be safe) while the report exited 0; it is refused when the claim is made."""
    import dataclasses

    claim = next(iter(registry().values()))
    with pytest.raises(ValueError, match="claim id"):
        dataclasses.replace(claim, id=bad)
