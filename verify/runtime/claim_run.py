"""What a running claim collects from the code it calls (docs/training.md, "Checkpoints"): the binding of every
checkpoint written or read to the claim and its configuration, or to the training run that several claims share
(:func:`claim_run`, :func:`checkpoint_binding`), the checkpoints of finished runs kept until the claims that share
them have run (:func:`keeping_finished`, :func:`finished_checkpoint`), the checkpoints a trainer resumed from (:func:`note_resumed`), the setting each training run used (:func:`note_training`:
trainer, device, dtype, seeds), the moving aside of an unreadable checkpoint (:func:`quarantine`) and the log those
messages go to (:func:`checkpoint_log`, :func:`log_to`).

These are outputs of a run gathered for its record, not settings: what a trainer does is decided by its arguments
(:class:`verify.runtime.options.RunOptions`).
"""

from __future__ import annotations

import contextvars
import functools
import os
import shutil
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "CheckpointBinding",
    "ClaimRun",
    "checkpoint_binding",
    "checkpoint_log",
    "claim_run",
    "finished_checkpoint",
    "keeping_finished",
    "log_to",
    "note_resumed",
    "note_training",
    "quarantine",
    "shared_run",
]


@dataclass(frozen=True)
class CheckpointBinding:
    """What a checkpoint written while a claim runs is bound to: the claim id, or the name of the training run it
    shares with other claims (:func:`claim_run`'s ``bound_to``), and a hash of its configuration (the code revision
    is added by the trainer when it writes)."""

    claim: str
    config_hash: str


@dataclass
class ClaimRun:
    """What the code run for one claim reports back for its record: the checkpoints trainers resumed from
    (``{"step", "file"}``) and the setting of every training run (``{"trainer", "device", "dtype", "seeds"}``)."""

    binding: CheckpointBinding
    resumed: list[dict[str, Any]] = field(default_factory=list)
    trainings: list[dict[str, Any]] = field(default_factory=list)
    claim: str = ""  # the running claim's id, which log lines name ("" : the binding's)

    def __post_init__(self) -> None:
        if not self.claim:
            self.claim = self.binding.claim

    @property
    def shared(self) -> bool:
        """Whether the claim's checkpoints are bound to a run that it shares with other claims (``bound_to``)."""
        return self.binding.claim != self.claim


_RUN: contextvars.ContextVar[ClaimRun | None] = contextvars.ContextVar("tvk_claim_run", default=None)
_LOG: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("tvk_log", default=None)
_KEPT: contextvars.ContextVar[list[Path] | None] = contextvars.ContextVar("tvk_kept_checkpoints", default=None)


@contextmanager
def claim_run(claim: str, config_hash: str, *, bound_to: str | None = None) -> Iterator[ClaimRun]:
    """Bind the checkpoints that trainers write or read in the block to the claim ``claim`` with configuration
    hash ``config_hash``; yields the :class:`ClaimRun` that :func:`note_resumed` and :func:`note_training` fill.

    ``bound_to`` binds them instead to a training run that several claims share (the same name for each of them:
    :func:`verify.claims.base.shared_run_name`), so that any of those claims resumes a checkpoint that another one
    wrote; log lines still name ``claim``."""
    run = ClaimRun(CheckpointBinding(bound_to or claim, config_hash), claim=claim)
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)


def checkpoint_binding() -> CheckpointBinding | None:
    """The claim the running code's checkpoints are bound to (None outside :func:`claim_run`)."""
    run = _RUN.get()
    return None if run is None else run.binding


@contextmanager
def log_to(log: Callable[[str], None]) -> Iterator[None]:
    """Send :func:`checkpoint_log` messages of the block to ``log``."""
    token = _LOG.set(log)
    try:
        yield
    finally:
        _LOG.reset(token)


def checkpoint_log(message: str) -> None:
    """Log a checkpoint message (resuming, ignored, moved aside, not saved): to the log of :func:`log_to`, else
    to stderr; prefixed with the claim id when a claim runs."""
    run = _RUN.get()
    if run is not None:
        message = f"{run.claim}: {message}"
    log = _LOG.get()
    if log is not None:
        log(message)
    else:
        print(message, file=sys.stderr, flush=True)


@contextmanager
def keeping_finished() -> Iterator[list[Path]]:
    """Keep the checkpoints of the shared runs that finish in the block (:func:`finished_checkpoint`; a run of a
    claim bound to its own id, such as a grid's cell, whose result the sweep store keeps, is removed at once) until
    it ends.

    The report runs the claims that share a training run in such a block: the first claim trains and the others
    judge the same run from memory, so the run's checkpoint (saved at its last step) is what a report interrupted
    between them needs to resume it at that step instead of training it again. A block that ends normally removes
    the files it kept; one left by an exception (an interrupt, a full disk) leaves them for the rerun. Yields the
    list of kept files."""
    kept: list[Path] = []
    token = _KEPT.set(kept)
    try:
        yield kept
    finally:
        _KEPT.reset(token)
    for path in kept:  # not reached on an exception: the rerun resumes from them
        path.unlink(missing_ok=True)


def finished_checkpoint(path: str | os.PathLike[str]) -> None:
    """The run that saved its checkpoints to ``path`` has finished: remove the file now, so that the next report
    trains afresh, or, for a run that several claims share (:func:`claim_run`'s ``bound_to``) inside
    :func:`keeping_finished`, when that block ends."""
    kept, run = _KEPT.get(), _RUN.get()
    if kept is not None and (run is None or run.shared):
        kept.append(Path(path))
    else:
        Path(path).unlink(missing_ok=True)


def note_resumed(step: int, file: str | os.PathLike) -> None:
    """Record (in the running claim's ``resumed_from``) and log that a trainer resumed from ``file`` at ``step``.

    The record keeps the file's name (``<trainer>_<configuration hash>.ckpt``), not its folder: records are archived
    and read on other machines, where the folder means nothing; the log names the whole path."""
    run = _RUN.get()
    if run is not None:
        run.resumed.append({"step": int(step), "file": os.path.basename(os.fspath(file))})
    checkpoint_log(f"resuming from step {int(step)} (checkpoint {file})")


def resumed_steps(metadata: Mapping[str, Any]) -> list[int]:
    """The steps at which a record's run resumed from a checkpoint (``metadata["resumed_from"]``, a list of
    ``{"file", "step"}`` written by :func:`note_resumed`); empty for a run that started at step 0. Such a record's
    wall time covers only the run's last part.

    Examples
    --------
    >>> resumed_steps({"resumed_from": [{"file": "run.ckpt", "step": 30753}]})
    [30753]
    >>> resumed_steps({"runtime_s": 12.5})
    []
    """
    resumed = metadata.get("resumed_from")
    if not isinstance(resumed, list):
        return []
    return [r["step"] for r in resumed if isinstance(r, dict) and type(r.get("step")) is int]


def resumed_text(metadata: Mapping[str, Any]) -> str:
    """How the report and the plan say that a record's run resumed (its first step of :func:`resumed_steps`); ""
    for a run that started at step 0.

    >>> resumed_text({"resumed_from": [{"file": "run.ckpt", "step": 30753}]})
    'resumed from a checkpoint at step 30,753'
    """
    steps = resumed_steps(metadata)
    return f"resumed from a checkpoint at step {min(steps):,}" if steps else ""


def note_training(setting: dict[str, Any]) -> None:
    """Record in the running claim's record the setting one training run used (trainer, device, dtype, seeds:
    :meth:`verify.runtime.options.RunSetting.describe`); nothing outside a claim."""
    run = _RUN.get()
    if run is not None:
        run.trainings.append(dict(setting))


R = TypeVar("R")


def shared_run(maxsize: int = 8) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Memoise a function that trains once for several claims (the ``lru_cache`` of a run two claims judge), and
    give each claim's record the run's settings: on a repeated call, the trainings and resumptions that the first
    call noted in its claim's run (:func:`note_training`, :func:`note_resumed`) are noted again in the running
    claim's, which a plain cache left without ``metadata.training``. Arguments must be hashable; the ``maxsize``
    most recent results are kept."""

    def decorate(fn: Callable[..., R]) -> Callable[..., R]:
        memo: OrderedDict[tuple, tuple[R, list[dict[str, Any]], list[dict[str, Any]]]] = OrderedDict()

        @functools.wraps(fn)
        def wrapper(*args: Any) -> R:
            run = _RUN.get()
            if args in memo:
                memo.move_to_end(args)
                result, trainings, resumed = memo[args]
                if run is not None:
                    run.trainings.extend(dict(t) for t in trainings)
                    run.resumed.extend(dict(r) for r in resumed)
                return result
            t0, r0 = (len(run.trainings), len(run.resumed)) if run is not None else (0, 0)
            result = fn(*args)
            noted = (list(run.trainings[t0:]), list(run.resumed[r0:])) if run is not None else ([], [])
            memo[args] = (result, *noted)
            if len(memo) > maxsize:
                memo.popitem(last=False)
            return result

        wrapper.cache_clear = memo.clear  # type: ignore[attr-defined]
        return wrapper

    return decorate


class CheckpointUnusableError(RuntimeError):
    """A checkpoint that can be neither loaded nor moved aside (e.g. a read-only directory)."""


def quarantine(path: str | os.PathLike, reason: str, kind: str = "unreadable", suffix: str = ".corrupt") -> Path:
    """Move a checkpoint the run cannot use aside to ``<path><suffix>`` (replacing an older one) and say so, with
    ``kind`` (``"unreadable"``, or ``"not trusted"`` for one of another run) and ``reason``; returns the new path.
    The run then starts fresh and its own checkpoints take the path, so nothing it cannot use is overwritten."""
    path = Path(path)
    aside = path.with_name(path.name + suffix)
    try:
        if aside.is_dir() and not aside.is_symlink():
            shutil.rmtree(aside)
        elif aside.exists() or aside.is_symlink():
            aside.unlink()
        os.replace(path, aside)
    except OSError as exc:
        raise CheckpointUnusableError(
            f"checkpoint {path} is {kind} ({reason}) and could not be moved aside to {aside} "
            f"({type(exc).__name__}: {exc.strerror or exc}); remove it or pass another checkpoint directory"
        ) from None
    checkpoint_log(f"checkpoint {path} is {kind} ({reason}); moved it to {aside} and starting fresh")
    return aside
