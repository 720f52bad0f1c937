"""Checkpoints of the toolkit's trainers, written once (docs/training.md, "Checkpoints").

A trainer that checkpoints describes its file with a :class:`Checkpoint` (the path, the trainer's name, its
configuration as plain data, the number of steps and what else must match) and hands :meth:`Checkpoint.save` to
:func:`verify.runtime.loop.run_loop` as the ``save`` hook. What it saves is its own business: the parameter tensors, the
optimiser's ``state_dict``, the step, the history so far and the state of every random generator it draws from
(:func:`generator_states`, :func:`global_rng_state`, :func:`numpy_rng_states`), so that a resumed run follows
exactly the trajectory of an uninterrupted one. This module adds the rest, the same for every trainer:

* the **binding**: every file records the running claim, the hash of its configuration
  (:func:`verify.runtime.claim_run.claim_run`) and the code revision (:func:`verify.runtime.provenance.code_revision`);
* **trust**: :meth:`Checkpoint.load` returns the saved state only when the binding, the trainer, the
  configuration (except the fields declared ``resumable``) and ``meta`` all match and the saved step is not beyond
  ``steps``. Otherwise, while a claim runs, the file is ignored with a log line (the run's own checkpoints replace
  it); in a direct call it raises :class:`CheckpointMismatchError`;
* **corrupt files** (truncated, not a torch file, refused by ``weights_only`` loading, which never runs a pickle's
  code; not a checkpoint; a checkpoint of this run whose saved state does not fit it: a missing part, a tensor of
  another shape) are moved aside to ``<file>.corrupt`` with a message naming both (:func:`verify.runtime.claim_run.quarantine`) and the
  run starts fresh;
* a resumption is logged ("resuming from step N") and recorded in the claim's ``metadata.resumed_from``
  (:meth:`Checkpoint.resumed`, :func:`verify.runtime.claim_run.note_resumed`);
* writing goes through :func:`verify.runtime.loop.save_atomically` (a ``mkstemp`` temporary file, then a rename).
"""

from __future__ import annotations

import copy
import os
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from verify.runtime import loop
from verify.runtime.claim_run import checkpoint_binding, checkpoint_log, note_resumed, quarantine
from verify.runtime.jsonable import to_jsonable
from verify.runtime.loop import Resumption
from verify.runtime.provenance import code_revision

if TYPE_CHECKING:
    from verify.runtime.options import RunOptions, RunSetting

__all__ = [
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_SECONDS",
    "Checkpoint",
    "CheckpointMismatchError",
    "Evaluations",
    "NotACheckpointError",
    "Resumption",
    "TrainerState",
    "check_generator_states",
    "check_saved_tensors",
    "current_binding",
    "fit_checkpoint",
    "generator_states",
    "global_rng_state",
    "numpy_rng_states",
    "read_checkpoint",
    "resume",
    "set_generator_states",
    "set_global_rng_state",
    "set_numpy_rng_states",
    "tensors_state",
]

CHECKPOINT_FORMAT = 2  # 2: checkpoints carry their binding (claim, claim config hash, code revision)
CHECKPOINT_SECONDS = 60.0  # with a checkpoint path, trainers also save at least this often (seconds of wall time)
BINDING_KEYS = ("claim", "config_hash", "revision")


class CheckpointMismatchError(ValueError):
    """An existing checkpoint was written by a different configuration, task, trainer, claim or code revision."""


class NotACheckpointError(ValueError):
    """A file at a checkpoint's path that is not a training checkpoint (not a torch file, not a checkpoint's dict,
    or a checkpoint whose saved state does not fit the run)."""


def current_binding() -> dict[str, Any]:
    """What a checkpoint written now is bound to: the running claim and its config hash (None outside a claim,
    :func:`verify.runtime.claim_run.claim_run`) and the code revision (:func:`verify.runtime.provenance.code_revision`)."""
    b = checkpoint_binding()
    return {
        "claim": None if b is None else b.claim,
        "config_hash": None if b is None else b.config_hash,
        "revision": code_revision(),
    }


def read_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a checkpoint file (tensors on the CPU; ``weights_only`` loading, so a file holding anything but tensors
    and plain data is refused rather than executed).

    Raises
    ------
    NotACheckpointError
        If the file is not a torch file, holds more than tensors and plain data, or is not a checkpoint (a dict
        with a ``format``).
    CheckpointMismatchError
        If it is a checkpoint of another format than ``CHECKPOINT_FORMAT``.
    """
    try:
        state = torch.load(Path(path), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as exc:
        # torch's own text goes on for lines and advises weights_only=False, which would run the file's code
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NotACheckpointError(f"not a readable torch file ({type(exc).__name__}: {first})") from None
    if not isinstance(state, dict) or "format" not in state:
        raise NotACheckpointError(f"not a training checkpoint (a {type(state).__name__} without a format)")
    if state.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointMismatchError(f"{path} is not a training checkpoint of format {CHECKPOINT_FORMAT}")
    return state


def _differences(saved: Mapping[str, Any], wanted: Mapping[str, Any], skip: frozenset[str] = frozenset()) -> list[str]:
    return [
        f"{k}: checkpoint {saved.get(k)!r} != requested {wanted.get(k)!r}"
        for k in sorted(set(saved) | set(wanted))
        if k not in skip and saved.get(k) != wanted.get(k)
    ]


@dataclass(frozen=True)
class Checkpoint:
    """One trainer run's checkpoint file and what a file must match to be resumed.

    Parameters
    ----------
    path : Path
        The file.
    trainer : str
        The trainer's name (a checkpoint of another trainer is never resumed).
    config : mapping
        The trainer's configuration as plain data; every field must match except those in ``resumable``.
    steps : int
        The run's number of steps; a checkpoint beyond it is refused.
    meta : mapping
        Further plain data that must match exactly (the task, the model size, ...).
    resumable : frozenset of str
        Configuration fields that may differ (they do not change the trajectory: steps, threads, ...).
    binding : dict
        The claim, config hash and code revision (:func:`current_binding`, taken when the object is made).
    """

    path: Path
    trainer: str
    config: Mapping[str, Any]
    steps: int
    meta: Mapping[str, Any] = field(default_factory=dict)
    resumable: frozenset[str] = frozenset()
    binding: dict[str, Any] = field(default_factory=current_binding)

    @classmethod
    def at(
        cls, path: str | os.PathLike[str] | None, trainer: str, config: Any, steps: int, **kw: Any
    ) -> Checkpoint | None:
        """The checkpoint of a run that writes to ``path``; None when ``path`` is None (no checkpoints). ``config``
        (a dataclass or a mapping) and ``meta`` are kept as JSON data (:func:`verify.runtime.jsonable.to_jsonable`),
        so a saved configuration compares equal to a new one."""
        if path is None:
            return None
        if "meta" in kw:
            kw["meta"] = to_jsonable(kw["meta"])
        return cls(Path(path), trainer, to_jsonable(config), int(steps), **kw)

    @classmethod
    def for_run(
        cls,
        options: RunOptions,
        setting: RunSetting,
        trainer: str,
        config: Any,
        steps: int,
        *,
        meta: Mapping[str, Any] | None = None,
        resumable: frozenset[str] = frozenset(),
    ) -> Checkpoint | None:
        """:meth:`at` for one trainer run: the file ``options.checkpoint_path`` (None: no checkpoints), its ``meta``
        with the dtype the run resolved (``setting.dtype_name``: float64, float32 or tf32). So a checkpoint written in
        one dtype is never continued in another, also where the device decided it (a configuration's dtype None:
        float64 on the CPU, float32 on CUDA), and a float32 checkpoint is never continued under TF32 products."""
        return cls.at(
            options.checkpoint_path,
            trainer,
            config,
            steps,
            meta={"dtype": setting.dtype_name, **(meta or {})},
            resumable=resumable,
        )

    def check(self, state: Mapping[str, Any]) -> None:
        """Raise :class:`CheckpointMismatchError` (listing every difference) unless ``state`` may be resumed."""
        saved_binding = state.get("binding") or {}
        diffs = [
            f"{k}: checkpoint {saved_binding.get(k)!r} != this run {self.binding.get(k)!r}"
            for k in BINDING_KEYS
            if saved_binding.get(k) != self.binding.get(k)
        ]
        if state.get("trainer") != self.trainer:
            diffs.append(f"trainer: checkpoint {state.get('trainer')!r} != this run {self.trainer!r}")
        diffs += _differences(state.get("config") or {}, self.config, self.resumable)
        diffs += _differences(state.get("meta") or {}, self.meta)
        if diffs:
            raise CheckpointMismatchError(
                f"checkpoint {self.path} was written by a different run. Differences:\n  " + "\n  ".join(diffs)
            )
        if int(state["step"]) > self.steps:
            raise CheckpointMismatchError(
                f"checkpoint {self.path} is at step {state['step']}, beyond the requested steps = {self.steps}"
            )

    def load(self, fits: Callable[[Mapping[str, Any]], None] | None = None) -> dict[str, Any] | None:
        """The saved state if this run may resume from it, else None (then training starts fresh).

        ``fits(state)``, when given, raises unless the saved state fits the run (its keys, its tensors' shapes:
        :func:`check_saved_tensors`), checked before anything is restored; a state that does not fit is moved aside
        like a corrupt file.

        Whatever cannot be loaded (a truncated or foreign file, a file the user may not read, a directory at the
        checkpoint's path) is moved aside (:func:`verify.runtime.claim_run.quarantine`) with one log line and the run
        starts fresh. A readable checkpoint of another run is ignored with a log line while a claim runs, and moved
        aside to ``<file>.untrusted`` (so the fresh run's checkpoints do not overwrite it), and raises
        :class:`CheckpointMismatchError` in a direct call.
        """
        if not self.path.exists():
            return None
        try:
            state = read_checkpoint(self.path)
            self.check(state)
            if fits is not None:
                fits(state)
        except CheckpointMismatchError as exc:
            if self.binding.get("claim") is None:
                raise
            # kept, not overwritten: rename it back to resume it with the revision and configuration that wrote it
            checkpoint_log(f"ignoring checkpoint {self.path} (not trusted): {exc}")
            quarantine(self.path, "written by a different run", "not trusted", ".untrusted")
            return None
        except Exception as exc:  # truncated, not a torch file, unreadable, a directory, wrong structure
            quarantine(self.path, f"{type(exc).__name__}: {exc}")
            return None
        return state

    def resumed(self, step: int) -> None:
        """Log "resuming from step N" and record it in the running claim's ``resumed_from``."""
        note_resumed(step, self.path)

    def payload(self, step: int, state: Mapping[str, Any]) -> dict[str, Any]:
        """The file's content: the binding, trainer, configuration, meta and step, then the trainer's ``state``."""
        out = {
            "format": CHECKPOINT_FORMAT,
            "trainer": self.trainer,
            "binding": dict(self.binding),
            "config": dict(self.config),
            "meta": dict(self.meta),
            "step": int(step),
        }
        clash = set(out) & set(state)
        if clash:
            raise ValueError(f"a trainer's checkpoint state may not use the reserved keys {sorted(clash)}")
        out.update(state)
        return out

    def save(self, step: int, state: Mapping[str, Any]) -> None:
        """Write :meth:`payload` atomically (:func:`verify.runtime.loop.save_atomically`)."""
        loop.save_atomically(self.path, self.payload(step, state))


# ---------------------------------------------------------------------------------------------------- trainer state


@dataclass(frozen=True)
class TrainerState:
    """What a trainer with fixed-shape parameters consists of, saved and restored in place by :func:`resume`.

    Parameters
    ----------
    tensors : mapping of str to tensor
        Parameters (and buffers) updated in place; restored with ``copy_``.
    optimizer : torch optimiser, optional
        Its ``state_dict`` (moments, step counts, param-group lrs).
    generators : sequence of torch.Generator
        Every torch generator the trainer draws from.
    global_rng : bool
        Also save torch's global generators (:func:`global_rng_state`; dropout draws from them).
    extra : callable, optional
        ``extra()`` returns the rest as plain data or tensors (history, loss curve, a caller's numpy streams).
    restore_extra : callable, optional
        ``restore_extra(saved)`` puts what ``extra()`` returned back.
    records : mapping of str to list or dict
        Containers of plain data the trainer appends to (histories, loss curves), saved as copies and restored
        in place (so closures holding them see the restored content).
    numpy_rngs : sequence of numpy Generator
        numpy generators the trainer draws from (:func:`numpy_rng_states`).
    evaluations : Evaluations, optional
        The trainer's evaluation hook wrapped by :class:`Evaluations` (its last record is saved, so a step
        evaluated before the checkpoint is not evaluated again).
    """

    tensors: Mapping[str, torch.Tensor]
    optimizer: torch.optim.Optimizer | None = None
    generators: Sequence[torch.Generator] = ()
    global_rng: bool = False
    extra: Callable[[], Mapping[str, Any]] | None = None
    restore_extra: Callable[[Mapping[str, Any]], None] | None = None
    records: Mapping[str, list | dict] = field(default_factory=dict)
    numpy_rngs: Sequence[np.random.Generator] = ()
    evaluations: Evaluations | None = None

    def state(self) -> dict[str, Any]:
        """The state to save now."""
        return {
            "tensors": tensors_state(self.tensors),
            "optimizer": None if self.optimizer is None else self.optimizer.state_dict(),
            "generators": generator_states(self.generators),
            "global_rng": global_rng_state() if self.global_rng else None,
            "extra": {} if self.extra is None else dict(self.extra()),
            "records": {name: copy.deepcopy(c) for name, c in self.records.items()},
            "numpy_rngs": numpy_rng_states(self.numpy_rngs),
            "evaluations": None if self.evaluations is None else self.evaluations.state(),
        }

    def restore(self, saved: Mapping[str, Any]) -> None:
        """Put a saved :meth:`state` back (tensors in place, optimiser, generators, extra)."""
        names = set(saved["tensors"])
        if names != set(self.tensors):
            raise CheckpointMismatchError(f"checkpoint tensors {sorted(names)} != this run's {sorted(self.tensors)}")
        check_saved_tensors(saved["tensors"], self.tensors)  # copy_ would broadcast a wrong shape silently
        with torch.no_grad():
            for name, t in self.tensors.items():
                t.copy_(saved["tensors"][name])
        if self.optimizer is not None:
            self.optimizer.load_state_dict(saved["optimizer"])
        set_generator_states(self.generators, saved["generators"])
        if self.global_rng:
            set_global_rng_state(saved["global_rng"])
        if self.restore_extra is not None:
            self.restore_extra(saved["extra"])
        for name, container in self.records.items():
            _restore_in_place(container, saved["records"][name])
        set_numpy_rng_states(self.numpy_rngs, saved.get("numpy_rngs", []))
        if self.evaluations is not None:
            self.evaluations.restore(saved["evaluations"])


def _restore_in_place(container: list | dict, saved: list | dict) -> None:
    """Replace the content of a list or dict by ``saved`` (keeping the object)."""
    if isinstance(container, list):
        container[:] = copy.deepcopy(list(saved))
    else:
        container.clear()
        container.update(copy.deepcopy(dict(saved)))


class Evaluations:
    """A trainer's ``evaluate(step)`` hook that remembers its last (step, record), for :class:`TrainerState`.

    :func:`verify.runtime.loop.run_loop` saves a checkpoint at step t *after* evaluating t; a run resumed at t calls the
    hook for t again, and this wrapper returns the saved record instead of evaluating (and appending to a history)
    a second time. The record must therefore be plain data or tensors.
    """

    def __init__(self, evaluate: Callable[[int], Any]) -> None:
        self.evaluate = evaluate
        self.step: int | None = None
        self.record: Any = None

    def __call__(self, step: int) -> Any:
        if self.step == step:
            return self.record
        record = self.evaluate(step)
        self.step, self.record = step, record
        return record

    def state(self) -> dict[str, Any]:
        """The last evaluated step and its record."""
        return {"step": self.step, "record": copy.deepcopy(self.record)}

    def restore(self, saved: Mapping[str, Any]) -> None:
        """Put :meth:`state` back."""
        self.step, self.record = saved["step"], saved["record"]


def fit_checkpoint(
    config: Any,
    records: Mapping[str, list | dict] | None = None,
    numpy_rngs: Sequence[np.random.Generator] = (),
    extra: Callable[[], Mapping[str, Any]] | None = None,
    restore_extra: Callable[[Mapping[str, Any]], None] | None = None,
    *,
    dtype: str,
) -> dict[str, Any]:
    """The checkpoint fields of :class:`verify.train.attention.FitHooks` for a caller: ``checkpoint_config`` (the
    caller's ``config`` as JSON data, its ``dtype`` the one the run resolved: ``dtype``, the setting's
    :attr:`verify.runtime.options.RunSetting.dtype_name`, so that a float64 checkpoint of a CPU run with dtype None
    is not continued in float32 on CUDA) and the ``state``/``restore`` hooks of the caller's own state (its histories
    ``records``, the numpy generators its batches come from, and ``extra``/``restore_extra``), saved and restored by
    a tensor-less :class:`TrainerState`."""
    caller = TrainerState(
        {}, extra=extra, restore_extra=restore_extra, records=dict(records or {}), numpy_rngs=numpy_rngs
    )
    bound = {**to_jsonable(config), "dtype": dtype}
    return {"checkpoint_config": bound, "state": caller.state, "restore": caller.restore}


def resume(ckpt: Checkpoint | None, trainer: TrainerState, checkpoint_every: int | None = None) -> Resumption:
    """Restore ``trainer`` from ``ckpt`` when it holds a trusted checkpoint (:meth:`Checkpoint.load`; logged and
    recorded by :meth:`Checkpoint.resumed`) and return where to start and the hook that saves ``trainer``."""
    if checkpoint_every is not None and (isinstance(checkpoint_every, bool) or int(checkpoint_every) < 1):
        raise ValueError(f"checkpoint_every must be None or an integer >= 1, got {checkpoint_every!r}")
    if ckpt is None:
        return Resumption()
    saved = ckpt.load()
    start = 0
    if saved is not None:
        fresh = trainer.state()
        try:
            trainer.restore(saved["trainer_state"])
        except Exception as exc:  # its binding matched but its state does not fit: moved aside, start fresh
            trainer.restore(fresh)
            quarantine(ckpt.path, f"its saved state does not fit this run: {type(exc).__name__}: {exc}")
            saved = None
        else:
            start = int(saved["step"])
            ckpt.resumed(start)

    def save(step: int) -> None:
        ckpt.save(step, {"trainer_state": trainer.state()})

    return Resumption(start, saved is not None, save, checkpoint_every, CHECKPOINT_SECONDS)


# ---------------------------------------------------------------------------------------------------- state helpers


def check_saved_tensors(
    saved: Mapping[str, Any], shapes: Mapping[str, torch.Tensor | Sequence[int]], keys: Sequence[str] = ()
) -> None:
    """Raise :class:`NotACheckpointError` unless ``saved`` holds, for every entry of ``shapes`` (a tensor of the run,
    or the shape it must have), a tensor of that shape, and an entry for every name in ``keys`` (a
    :meth:`Checkpoint.load` ``fits`` check: ``copy_`` would broadcast a tensor of another shape into the run's weights
    without a word)."""
    missing = [k for k in (*shapes, *keys) if k not in saved]
    if missing:
        raise NotACheckpointError(f"its saved state lacks {missing}")
    for name, want in shapes.items():
        shape = tuple(want.shape if isinstance(want, torch.Tensor) else want)
        got = saved[name]
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != shape:
            have = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
            raise NotACheckpointError(f"its saved {name} is {have}, this run's {shape}")


def tensors_state(tensors: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Detached CPU copies of named tensors (parameters, buffers), ready to save."""
    return {name: t.detach().to("cpu", copy=True) for name, t in tensors.items()}


def generator_states(generators: Sequence[torch.Generator]) -> list[torch.Tensor]:
    """The states of torch generators (CPU byte tensors, also for CUDA generators)."""
    return [g.get_state() for g in generators]


def check_generator_states(generators: Sequence[torch.Generator], states: Sequence[Any]) -> None:
    """Raise :class:`NotACheckpointError` unless ``states`` can be put back into ``generators``: as many, each a
    byte tensor the size of its generator's own state. A CPU generator's state (5056 bytes) does not fit a CUDA
    generator (16 bytes), nor the reverse: a checkpoint written on another kind of device; ``set_state`` would raise
    half-way through a restore."""
    if len(generators) != len(states):
        raise NotACheckpointError(f"its saved state has {len(states)} generator states, this run {len(generators)}")
    for i, (g, s) in enumerate(zip(generators, states)):
        want = g.get_state()
        if not isinstance(s, torch.Tensor) or s.dtype != want.dtype or s.shape != want.shape:
            have = f"{s.dtype} {tuple(s.shape)}" if isinstance(s, torch.Tensor) else type(s).__name__
            raise NotACheckpointError(
                f"its saved generator state {i} is {have}, a {g.device.type} generator's is {want.dtype} "
                f"{tuple(want.shape)} (a checkpoint of a run on another kind of device?)"
            )


def set_generator_states(generators: Sequence[torch.Generator], states: Sequence[torch.Tensor]) -> None:
    """Put saved states back into torch generators (same number, in the same order; checked first:
    :func:`check_generator_states`)."""
    check_generator_states(generators, states)
    for g, s in zip(generators, states):
        g.set_state(s)


def global_rng_state() -> dict[str, Any]:
    """torch's global generators: the CPU one and, if CUDA has been initialised, every CUDA device's."""
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else []
    return {"cpu": torch.get_rng_state(), "cuda": cuda}


def set_global_rng_state(state: Mapping[str, Any]) -> None:
    """Restore :func:`global_rng_state` (the CUDA states only where this process has as many devices)."""
    torch.set_rng_state(state["cpu"])
    cuda = list(state.get("cuda") or [])
    if cuda and torch.cuda.is_available() and torch.cuda.device_count() == len(cuda):
        torch.cuda.set_rng_state_all(cuda)


def numpy_rng_states(rngs: Sequence[np.random.Generator]) -> list[dict[str, Any]]:
    """The bit-generator states of numpy generators (plain dicts of ints and strings)."""
    return [r.bit_generator.state for r in rngs]


def set_numpy_rng_states(rngs: Sequence[np.random.Generator], states: Sequence[Mapping[str, Any]]) -> None:
    """Put saved bit-generator states back into numpy generators (same number, in the same order)."""
    if len(rngs) != len(states):
        raise CheckpointMismatchError(f"checkpoint has {len(states)} numpy generator states, the run {len(rngs)}")
    for r, s in zip(rngs, states):
        r.bit_generator.state = dict(s)
