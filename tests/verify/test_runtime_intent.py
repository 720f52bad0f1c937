"""verify/runtime checked by what its docstrings promise, on small hand-built cases (added by a mutation-testing
pass: each test here failed on a changed line of the code that the older tests let through)."""

from __future__ import annotations

import json
import os
import re
import stat

import pytest
import torch

import verify.runtime.memory
from verify.runtime import claim_run as cr
from verify.runtime import files
from verify.runtime.checkpoint import (
    Checkpoint,
    CheckpointMismatchError,
    NotACheckpointError,
    TrainerState,
    resume,
    set_generator_states,
)
from verify.runtime.jsonable import config_hash, to_jsonable
from verify.runtime.memory import InsufficientMemoryError, check_free_memory


@pytest.fixture(autouse=True)
def _fixed_revision(monkeypatch):
    """A fixed code revision: others editing the tree during the test must not change a checkpoint's binding."""
    monkeypatch.setenv("TVK_CODE_REVISION", "test-rev-1")


# ------------------------------------------------------------------ files


def test_a_failed_atomic_write_leaves_the_old_file_and_nothing_else(tmp_path) -> None:
    """``atomic_path``: on failure the temporary file is removed and the target is left as it was."""
    target = tmp_path / "report.md"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="disk"), files.atomic_path(target) as tmp:
        with open(tmp, "w") as fh:
            fh.write("half of the new")
        raise RuntimeError("disk full, say")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_an_atomically_written_file_is_an_ordinary_readable_file(tmp_path) -> None:
    """``atomic_path`` undoes ``mkstemp``'s private 0600: the file gets the mode of an ``open()``, 0666 less the
    umask."""
    target = tmp_path / "results.json"
    files.write_text_atomic(target, "{}")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask and target.read_text() == "{}"


def test_the_folders_a_failed_output_made_are_removed_again(tmp_path) -> None:
    """``missing_folders`` lists what ``mkdir(parents=True)`` makes, outermost first, and ``remove_empty_folders``
    takes all of them away again (innermost first), leaving a folder that holds something."""
    leaf = tmp_path / "a" / "b" / "c"
    missing = files.missing_folders(leaf)
    assert missing == [tmp_path / "a", tmp_path / "a" / "b", leaf]
    leaf.mkdir(parents=True)
    files.remove_empty_folders(missing)
    assert list(tmp_path.iterdir()) == []
    leaf.mkdir(parents=True)
    (tmp_path / "a" / "keep").write_text("x")
    files.remove_empty_folders(missing)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["keep"]


# ------------------------------------------------------------------ configuration hash


def test_the_configuration_hash_ignores_key_order() -> None:
    """``config_hash``: equal configurations hash equally whatever the order of their keys, nested ones too."""
    assert config_hash({"a": 1, "b": {"x": 1.5, "y": [1, 2]}}) == config_hash({"b": {"y": [1, 2], "x": 1.5}, "a": 1})
    assert config_hash({"a": 1, "b": 2}) != config_hash({"a": 2, "b": 1})


def test_non_finite_floats_become_json_strings() -> None:
    """``to_jsonable``: JSON has no NaN nor infinity, so a non-finite float becomes the string ``"nan"``, ``"inf"``
    or ``"-inf"`` (strict JSON writers accept the result)."""
    data = to_jsonable({"a": float("nan"), "b": [float("inf"), -float("inf")], "c": 1.5})
    assert data == {"a": "nan", "b": ["inf", "-inf"], "c": 1.5}
    json.dumps(data, allow_nan=False)


# ------------------------------------------------------------------ memory


def test_the_memory_check_keeps_its_safety_margin(monkeypatch) -> None:
    """``check_free_memory`` refuses a need above ``MEMORY_SAFETY`` (85 %) of the free memory, not only above it all."""
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1000)
    cpu = torch.device("cpu")
    assert check_free_memory(850, cpu, "a run", "lower width") == 1000
    with pytest.raises(InsufficientMemoryError):
        check_free_memory(851, cpu, "a run", "lower width")
    assert check_free_memory(2000, cpu, "a run", "lower width", ignore=True) == 1000


# ------------------------------------------------------------------ checkpoints


def test_a_trainer_state_cannot_overwrite_the_checkpoints_own_fields(tmp_path) -> None:
    """``Checkpoint.payload``: a trainer's state using a reserved key (the step, the binding, ...) would make the
    file lie about what it is; refused, and nothing is written."""
    ckpt = Checkpoint.at(tmp_path / "c.ckpt", "toy", {"steps": 5}, 5)
    for key in ("step", "binding", "config", "format"):
        with pytest.raises(ValueError, match="reserved keys"):
            ckpt.save(3, {key: 0, "trainer_state": {}})
    assert not (tmp_path / "c.ckpt").exists()


def test_a_run_with_more_steps_resumes_a_checkpoint_of_fewer(tmp_path) -> None:
    """``Checkpoint.check``: configuration fields declared ``resumable`` (the step budget) may differ, every other
    field must match (a direct call raises on a mismatch)."""
    path = tmp_path / "c.ckpt"
    with cr.claim_run("claim-a", "h1"):
        Checkpoint.at(path, "toy", {"steps": 5, "lr": 0.1}, 5, resumable=frozenset({"steps"})).save(5, {"w": 1})
    for steps in (5, 10):
        with cr.claim_run("claim-a", "h1"):
            more = Checkpoint.at(path, "toy", {"steps": steps, "lr": 0.1}, steps, resumable=frozenset({"steps"}))
            state = more.load()
        assert state is not None and (state["step"], state["w"]) == (5, 1)
    other_lr = Checkpoint.at(path, "toy", {"steps": 10, "lr": 0.2}, 10, resumable=frozenset({"steps"}))
    with pytest.raises(CheckpointMismatchError, match=re.escape("lr: checkpoint 0.1 != requested 0.2")):
        other_lr.load()


@pytest.mark.parametrize("every", [0, -2, True])
def test_checkpoint_every_must_be_a_positive_integer(tmp_path, every) -> None:
    """``resume``: ``checkpoint_every`` is None or an integer >= 1 (0 would never save, a bool is no period)."""
    with pytest.raises(ValueError, match="checkpoint_every"):
        resume(Checkpoint.at(tmp_path / "c.ckpt", "toy", {}, 5), TrainerState({}), every)


def test_generator_states_must_match_in_number() -> None:
    """``set_generator_states`` checks first that there are as many saved states as generators (zip would restore
    only some of them and say nothing)."""
    gens = [torch.Generator().manual_seed(s) for s in (1, 2)]
    with pytest.raises(NotACheckpointError, match="1 generator states, this run 2"):
        set_generator_states(gens, [gens[0].get_state()])


def test_a_state_that_fails_half_way_through_its_restore_leaves_the_fresh_weights(tmp_path) -> None:
    """``resume``: a trusted checkpoint whose state fails to restore after its tensors were copied (here: one
    generator state saved, two generators in this run) is moved aside, and the run starts fresh from step 0 with its
    own initial weights, not the checkpoint's."""
    path = tmp_path / "c.ckpt"
    with cr.claim_run("claim-a", "h1"), cr.log_to(lambda s: None):
        saved_w = torch.ones(3, dtype=torch.float64)
        one = TrainerState({"w": saved_w}, generators=[torch.Generator().manual_seed(1)])
        resume(Checkpoint.at(path, "toy", {}, 5), one).save(2)
        w = torch.zeros(3, dtype=torch.float64)
        two = TrainerState({"w": w}, generators=[torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)])
        again = resume(Checkpoint.at(path, "toy", {}, 5), two)
    assert (again.start, again.resumed) == (0, False) and path.with_name("c.ckpt.corrupt").exists()
    assert torch.equal(w, torch.zeros(3, dtype=torch.float64))


def test_a_resumed_run_does_not_rewrite_the_checkpoint_it_resumed_from_at_a_period() -> None:
    """``run_loop``: no save at the step a run resumed from, also when that step is a multiple of
    ``checkpoint_every`` (the file on disk is that step's already)."""
    from verify.runtime.loop import Resumption, run_loop

    saved: list[int] = []
    run_loop(lambda t: None, 8, resumption=Resumption(start=3, resumed=True, save=saved.append, checkpoint_every=3))
    assert saved == [6, 8]
    saved.clear()
    run_loop(lambda t: None, 8, resumption=Resumption(start=3, resumed=False, save=saved.append, checkpoint_every=3))
    assert saved == [3, 6, 8]  # a fresh start at 3 (nothing on disk) saves it


def test_a_checkpoint_save_that_fails_leaves_the_previous_file_and_no_temporary(tmp_path) -> None:
    """``save_atomically``: on an error (here a state torch cannot pickle) the temporary file is removed and the
    previous checkpoint is left as it was."""
    from verify.runtime.loop import save_atomically

    path = tmp_path / "c.ckpt"
    save_atomically(path, {"x": torch.arange(3)})
    before = path.read_bytes()
    with pytest.raises(Exception, match=r"pickle|lambda"):
        save_atomically(path, {"x": torch.arange(1000), "hook": lambda: 0})
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["c.ckpt"]
