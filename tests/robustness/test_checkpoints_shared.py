"""A training run that several claims share keeps its checkpoint until the last of them has run (docs/report.md,
"Binding").

Shi Figs. 4.1 and 4.2 judge one run at each k (about 22 h of one thread at k = 5), the Ch. 8 Markov claims one run
per k. The first claim of such a unit trains and the others judge the run from memory; the run's checkpoint used to
be removed when it finished and was bound to the claim that wrote it, so a report interrupted between those claims,
or a rerun of the others alone, trained the run again. Now the checkpoint is bound to the shared run
(:func:`verify.claims.base.shared_run_name`) and kept until the unit's last claim has run
(:func:`verify.runtime.claim_run.keeping_finished`); a run resumed at its last step ends with the result of the run
that wrote it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from numerics.modular import ModularTask
from verify.claims import base, registry
from verify.claims.judges import MaxRel
from verify.claims.training import run_checkpointed
from verify.report import run as report
from verify.runtime import claim_run as cr
from verify.runtime.checkpoint import read_checkpoint
from verify.runtime.options import RunOptions
from verify.runtime.protocol import Observation
from verify.sweep.grid import grid_of
from verify.train import polynomial as vtrain

from .test_checkpoints_trainers_more import (  # _fixed_revision: the autouse fixed code revision, used here too
    _equal,
    _fixed_revision,  # noqa: F401
    _markov_transformer,
    _options,
    _sv_and,
)

TASK = ModularTask(5, 2)
CFG = vtrain.TrainConfig(steps=12, lr=5e-3, lam=1e-3, seeds=(3, 5), eval_every=4, dtype="float64", num_threads=1)


def _train(options: RunOptions) -> vtrain.TrainResult:
    return vtrain.train(TASK, 2, 8, CFG, options)


# ------------------------------------------------------------------------------------------ the binding's name


def test_the_shi_pairs_share_a_run_name_and_a_claim_alone_has_none() -> None:
    """From the registry: at full scale Fig. 4.1 and Fig. 4.2 at k = 5 share one run (and not the k = 3 one); a
    claim whose run no other claim shares keeps its own id as the binding."""
    claims = registry()
    k5 = base.shared_run_name(claims["shi-fig4.2-split-coverage-k5"], "full")
    assert k5 == "shi-fig4.1-split-single-frequency-k5 + shi-fig4.2-split-coverage-k5"
    assert base.shared_run_name(claims["shi-fig4.1-split-single-frequency-k5"], "full") == k5
    assert base.shared_run_name(claims["shi-fig4.1-split-single-frequency-k3"], "full") != k5
    assert base.shared_run_name(claims["karp-ch3-thm3.1-alg-reaches-error"], "full") is None
    assert base.shared_run_name(claims["shi-thm4.9-beta-sign"], "quick") is None  # not a training claim


def test_a_grids_claim_shares_no_run() -> None:
    """Every grid's ``observe`` is ``Grid.observe`` (one module), so two grids of equal configurations would have had
    one shared-run key; their cells are shared through the sweep store, not through a run in memory."""
    grids = [c for c in registry().values() if grid_of(c) is not None]
    assert len(grids) >= 10 and {base.claim_module(c) for c in grids} == {"verify.sweep.grid"}
    for scale in ("quick", "full"):
        assert all(base.shared_unit(c, scale) is None and base.shared_run_name(c, scale) is None for c in grids)


def test_a_shared_runs_checkpoint_resumes_in_each_of_its_claims(tmp_path) -> None:
    """Written in claim a, resumed in claim b of the same run (the log names b); bound to claim a alone, the same
    file is not trusted in claim b."""
    path = tmp_path / "run.ckpt"
    shared = "claim-a + claim-b"
    with cr.claim_run("claim-a", "h1", bound_to=shared):
        first = _train(RunOptions(checkpoint_path=str(path), progress=False))
    assert read_checkpoint(path)["step"] == CFG.steps  # the trainer leaves it: run_checkpointed decides
    lines: list[str] = []
    with cr.log_to(lines.append), cr.claim_run("claim-b", "h1", bound_to=shared) as run:
        again = _train(RunOptions(checkpoint_path=str(path), progress=False))
    assert run.resumed == [{"step": CFG.steps, "file": path.name}]
    assert any(line.startswith(f"claim-b: resuming from step {CFG.steps}") for line in lines)
    for a, b in zip(again.networks, first.networks, strict=True):
        _equal([a.U, a.W], [b.U, b.W])
    assert again.history == first.history
    with cr.log_to(lines.append), cr.claim_run("claim-b", "h1") as run:
        _train(RunOptions(checkpoint_path=str(path), progress=False))
    assert run.resumed == [] and (tmp_path / "run.ckpt.untrusted").exists()


# ------------------------------------------------------------------------------------------ keeping finished runs


def test_finished_checkpoints_are_kept_until_the_block_ends_and_left_on_an_exception(tmp_path) -> None:
    a, b = tmp_path / "a.ckpt", tmp_path / "b.ckpt"
    a.write_bytes(b"x")
    cr.finished_checkpoint(a)  # outside a block: removed at once
    assert not a.exists()
    a.write_bytes(b"x")
    b.write_bytes(b"x")
    with cr.keeping_finished() as kept:
        cr.finished_checkpoint(a)
        cr.finished_checkpoint(b)
        assert a.exists() and b.exists() and kept == [a, b]
    assert not a.exists() and not b.exists()
    a.write_bytes(b"x")
    with pytest.raises(KeyboardInterrupt), cr.keeping_finished():
        cr.finished_checkpoint(a)
        raise KeyboardInterrupt
    assert a.exists()  # the rerun resumes from it
    cr.finished_checkpoint(tmp_path / "never-written.ckpt")  # a run without a file: nothing to remove


def test_a_run_of_one_claim_alone_is_removed_at_once_in_a_block(tmp_path) -> None:
    """A claim bound to its own id (a grid's cells: the sweep store keeps their results, and a rerun reads them
    from there) leaves nothing behind, even when interrupted later in the block; a shared run's file is kept."""
    a, b = tmp_path / "a.ckpt", tmp_path / "b.ckpt"
    a.write_bytes(b"x")
    b.write_bytes(b"x")
    with pytest.raises(KeyboardInterrupt), cr.keeping_finished():
        with cr.claim_run("grid-claim", "h1"):
            cr.finished_checkpoint(a)
        with cr.claim_run("claim-a", "h1", bound_to="claim-a + claim-b"):
            cr.finished_checkpoint(b)
        assert not a.exists() and b.exists()
        raise KeyboardInterrupt
    assert not a.exists() and b.exists()


def _poly_split(path: Path | None) -> Any:
    from verify.train import modular_transformer as vmt

    cfg = vtrain.TrainConfig(steps=10, lr=0.05, seeds=(0, 1), eval_every=5, checkpoint_every=5, dtype="float64")
    return vmt.train_polynomial_split(5, 2, 8, cfg, _options(path))


def _poly_split_outcome(run: Any) -> list:
    return [[n.U for n in run.result.networks], run.test_history, run.test_accuracy, run.result.history]


def _markov_outcome(run: Any) -> list:
    return [run.state, run.history, run.extra]


def _sv_outcome(run: Any) -> list:
    return [run.history, run.best_val, run.attention]


@pytest.mark.parametrize(
    "run, outcome",
    [(_poly_split, _poly_split_outcome), (_markov_transformer, _markov_outcome), (_sv_and, _sv_outcome)],
    ids=["polynomial-split", "markov-transformer", "sparse-variable-and"],
)
def test_a_run_resumed_at_its_last_step_ends_with_the_finished_runs_result(
    tmp_path, run: Callable[[Path | None], Any], outcome: Callable[[Any], list]
) -> None:
    """The trainers of the shared runs (Shi Figs. 4.1/4.2, Edelman Ch. 8, Ch. 6 sparse variable): resumed from the
    checkpoint of their last step, with no update left, they return the finished run's weights and histories (the
    evaluation of the last step is not repeated)."""
    path = tmp_path / "run.ckpt"
    with cr.claim_run("claim-a", "h1"):
        first = run(path)
    steps = read_checkpoint(path)["step"]
    with cr.log_to(lambda line: None), cr.claim_run("claim-a", "h1") as claim:
        again = run(path)
    assert claim.resumed == [{"step": steps, "file": path.name}]
    _equal(outcome(again), outcome(first))


# ------------------------------------------------------------------------------------------ in a report


def _observe(stop: dict[str, bool]) -> Callable[[Any, Any], Observation]:
    """A training claim's observe: the shared run (checkpointed under the report), or a Ctrl-C while ``stop["now"]``."""

    def observe(cfg: Any, ctx: Any) -> Observation:
        if stop["now"]:
            raise KeyboardInterrupt
        res = run_checkpointed(ctx, "shared", CFG.to_dict(), _train)
        return Observation(float(res.final["accuracy"].min()))

    return observe


def test_a_report_interrupted_between_two_claims_of_a_run_resumes_it_for_the_other(tmp_path, monkeypatch) -> None:
    """The first claim trains and gets its record; a Ctrl-C in the second leaves the finished run's checkpoint;
    a report of the second claim alone resumes the run at its last step (no update is repeated), and a report
    that finishes removes the checkpoint."""
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    stop = {"now": False}
    ids = (f"test-shared-a-{tmp_path.name}", f"test-shared-b-{tmp_path.name}")
    for cid in ids:
        base.register(
            base.Claim(
                id=cid,
                source="test",
                statement="s",
                kind="training",
                configs={"quick": "tiny"},
                predict=lambda cfg: 1.0,
                observe=_observe(stop),
                judge=MaxRel(1.0),
            )
        )
    out = tmp_path / "r"
    options = RunOptions(progress=False, device="cpu")
    lines: list[str] = []
    run_claim = report.run_claim

    def interrupt_second(claim: Any, ctx: Any) -> Any:
        stop["now"] = claim.id == ids[1]
        return run_claim(claim, ctx)

    monkeypatch.setattr(report, "run_claim", interrupt_second)
    with pytest.raises(KeyboardInterrupt):
        report.run_report(out, only=",".join(ids), jobs=1, options=options, log=lines.append)
    (ckpt,) = (out / report.CHECKPOINT_DIR).glob("shared_*.ckpt")
    assert read_checkpoint(ckpt)["step"] == CFG.steps
    assert read_checkpoint(ckpt)["binding"]["claim"] == " + ".join(ids)
    monkeypatch.setattr(report, "run_claim", run_claim)
    stop["now"] = False
    records, _ = report.run_report(out, only=ids[1], jobs=1, options=options, log=lines.append)
    assert records[0]["metadata"]["resumed_from"] == [{"step": CFG.steps, "file": ckpt.name}]
    assert not ckpt.exists() and not (out / report.CHECKPOINT_DIR).exists()
