"""The run-wide options every trainer takes explicitly (docs/training.md, "Run options").

:class:`RunOptions` carries what a run's caller decides and a configuration does not: the device, the training
dtype, the progress bar, the checkpoint file and interval, the seed offset and the memory-check override. Each
trainer takes one as its ``options`` argument; nothing reaches a trainer through a global or a context variable.

A trainer turns its options into a :class:`RunSetting` with :meth:`RunOptions.setting`, naming its own default
dtype (the policy it was written and validated with) and its seeds; the setting holds the resolved device, dtype
and seeds, and is recorded in the running claim's record (:func:`verify.runtime.claim_run.note_training`), so every
record says what each of its runs actually used.

The dtype policy, in order: ``options.dtype`` when set (``tvk report --dtype``); else a trainer configuration's own
``dtype`` field when it has one and sets it; else the trainer's default, one of ``"float64"``, ``"float32"`` or
:data:`AUTO` (float64 on the CPU, float32 on CUDA). ``"tf32"`` is float32 storage with TensorFloat-32 matrix
products, on CUDA only. Every judged quantity is evaluated in float64 whatever the training dtype.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # torch is imported when a trainer resolves its setting, never by listing claims
    import torch

__all__ = ["AUTO", "DEFAULT_OPTIONS", "DTYPE_NAMES", "RunOptions", "RunSetting"]

C = TypeVar("C")

AUTO = "auto"
"""The dtype policy "float64 on the CPU, float32 on CUDA" (small runs exact-ish, large ones fast)."""
SEED_OFFSET_LIMIT = 2**31
"""The largest seed offset plus one: the shifted seeds stay valid for every generator (numpy, torch) the trainers
seed."""
DTYPE_NAMES = ("float64", "float32", "tf32")


@dataclass(frozen=True)
class RunOptions:
    """How one run goes, as decided by its caller (``tvk report`` options, a claim, a test).

    Parameters
    ----------
    device : str
        ``"auto"`` (CUDA when available, else the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    dtype : str or None
        ``"float64"``, ``"float32"`` or ``"tf32"`` for every trainer; None: each trainer's own policy (module
        docstring).
    progress : bool
        Draw a progress bar on stderr.
    checkpoint_path : str or None
        The checkpoint file the trainer saves to and resumes from (None: no checkpoints).
    checkpoint_every : int or None
        Also save every this many steps (None: the trainer's or configuration's interval; trainers always save
        every ``verify.runtime.checkpoint.CHECKPOINT_SECONDS`` of wall time, at the end and on Ctrl-C).
    seed_offset : int
        Added to every seed a trainer draws from (``tvk report --seed-offset``): offset N runs the disjoint seed set
        ``i + N``.
    ignore_memory_check : bool
        Start runs whose estimated peak memory exceeds the device's free memory.
    """

    device: str = "auto"
    dtype: str | None = None
    progress: bool = False
    checkpoint_path: str | None = None
    checkpoint_every: int | None = None
    seed_offset: int = 0
    ignore_memory_check: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.device, str):
            raise ValueError(f"device must be a string ('auto', 'cpu', 'cuda', 'cuda:N'), got {self.device!r}")
        if self.dtype is not None and self.dtype not in DTYPE_NAMES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPE_NAMES)} or None, got {self.dtype!r}")
        if self.checkpoint_every is not None and (
            isinstance(self.checkpoint_every, bool)
            or not isinstance(self.checkpoint_every, int)
            or self.checkpoint_every < 1
        ):
            raise ValueError(f"checkpoint_every must be None or an integer >= 1, got {self.checkpoint_every!r}")
        if (
            isinstance(self.seed_offset, bool)
            or not isinstance(self.seed_offset, int)
            or not 0 <= self.seed_offset < SEED_OFFSET_LIMIT
        ):
            raise ValueError(f"seed_offset must be an integer in [0, 2^31), got {self.seed_offset!r}")
        if not isinstance(self.progress, bool) or not isinstance(self.ignore_memory_check, bool):
            raise ValueError("progress and ignore_memory_check must be booleans")

    def replace(self, **changes: Any) -> RunOptions:
        """A copy with ``changes`` applied (validated)."""
        return dataclasses.replace(self, **changes)

    def seeds(self, seeds: Sequence[int]) -> tuple[int, ...]:
        """The seeds a run with these options draws from: ``seeds`` shifted by :attr:`seed_offset`."""
        return tuple(int(s) + self.seed_offset for s in seeds)

    def _shifted(self, value: Any) -> Any:
        """A seed field shifted by :attr:`seed_offset`: a tuple of seeds, one integer seed, or None (kept)."""
        if value is None:
            return None
        if isinstance(value, int):
            return value + self.seed_offset
        return self.seeds(value)

    def resolved_device(self) -> torch.device:
        """The :class:`torch.device` that :attr:`device` names on this machine."""
        from verify.runtime.device import resolve_device

        return resolve_device(self.device)

    def dtype_name(self, device_type: str, default: str = AUTO, configured: str | None = None) -> str:
        """The training dtype's name under the policy of the module docstring, for a device of type
        ``device_type`` (``"cpu"``, ``"cuda"``), a trainer default ``default`` and a configuration's ``configured``
        dtype (None: the configuration has none)."""
        name = self.dtype or configured or default
        if name == AUTO:
            name = "float32" if device_type == "cuda" else "float64"
        if name not in DTYPE_NAMES:
            raise ValueError(f"unknown training dtype {name!r}; expected one of {', '.join(DTYPE_NAMES)} or 'auto'")
        if name == "tf32" and device_type != "cuda":
            raise ValueError(
                f"dtype tf32 (TensorFloat-32 matrix products) needs a CUDA device, the run uses {device_type}"
            )
        return name

    def setting(
        self, trainer: str, seeds: Sequence[int] = (), *, default_dtype: str = AUTO, configured_dtype: str | None = None
    ) -> RunSetting:
        """Resolve device, dtype and seeds for one run of ``trainer`` and note them in the running claim's record.

        Parameters
        ----------
        trainer : str
            The trainer's name as records show it (``"polynomial"``, ``"lsa-sgd"``, ...).
        seeds : sequence of int
            The configuration's seeds (before :attr:`seed_offset`).
        default_dtype : str
            The trainer's own dtype policy: ``"float64"``, ``"float32"`` or :data:`AUTO`.
        configured_dtype : str or None
            The configuration's ``dtype`` field, for trainers whose configurations have one.
        """
        return self._resolve(trainer, self.seeds(seeds), default_dtype, configured_dtype)

    def configure(
        self, config: C, trainer: str, *, default_dtype: str = AUTO, seed_fields: Sequence[str] = ("seeds",)
    ) -> tuple[C, RunSetting]:
        """The configuration a run of ``trainer`` trains, and its :meth:`setting`.

        ``config`` is a frozen dataclass. Every field named in ``seed_fields`` (tuples of seeds: initialisations,
        datasets; or one integer seed, such as the minibatch order an ensemble shares) is shifted by
        :attr:`seed_offset`; where it has a ``dtype`` field a run-wide :attr:`dtype` replaces
        it (``tf32`` as its storage dtype ``float32``). So the configuration a trainer binds its checkpoints to and returns in its result is the one that ran.
        The setting's seeds are the configuration's ``seeds`` (a field or a property) after the shift.
        """
        names = {f.name for f in dataclasses.fields(config)}  # type: ignore[arg-type]
        changes: dict[str, Any] = {}
        if self.seed_offset:
            changes |= {name: self._shifted(getattr(config, name)) for name in seed_fields if name in names}
        if (
            "dtype" in names and self.dtype is not None
        ):  # the storage dtype (tf32 stores float32; the setting says tf32)
            changes["dtype"] = "float32" if self.dtype == "tf32" else self.dtype
        if changes:
            config = dataclasses.replace(config, **changes)  # type: ignore[type-var]
        configured = getattr(config, "dtype") if "dtype" in names else None  # noqa: B009 (a field known by name)
        seeds = tuple(int(s) for s in getattr(config, "seeds", ()))
        return config, self._resolve(trainer, seeds, default_dtype, configured)

    def _resolve(self, trainer: str, seeds: tuple[int, ...], default_dtype: str, configured: str | None) -> RunSetting:
        from verify.runtime.claim_run import note_training

        device = self.resolved_device()
        setting = RunSetting(trainer, device, self.dtype_name(device.type, default_dtype, configured), seeds)
        note_training(setting.describe())
        return setting


@dataclass(frozen=True)
class RunSetting:
    """What one run actually uses: the resolved device, the dtype and the seeds (after the offset)."""

    trainer: str
    device: torch.device
    dtype_name: str
    seeds: tuple[int, ...]

    @property
    def dtype(self) -> torch.dtype:
        """The storage dtype (``tf32`` stores float32)."""
        import torch

        return torch.float64 if self.dtype_name == "float64" else torch.float32

    @property
    def tf32(self) -> bool:
        """Whether matrix products run in TensorFloat-32 (CUDA only)."""
        return self.dtype_name == "tf32"

    @contextmanager
    def precision(self) -> Iterator[None]:
        """The block's CUDA matrix products in TF32 when :attr:`tf32`, restored afterwards."""
        if not self.tf32:
            yield
            return
        import torch

        matmul = torch.backends.cuda.matmul
        before = matmul.fp32_precision
        matmul.fp32_precision = "tf32"
        try:
            yield
        finally:
            matmul.fp32_precision = before

    def describe(self) -> dict[str, Any]:
        """The setting as record data: ``{"trainer", "device", "dtype", "seeds"}``."""
        return {
            "trainer": self.trainer,
            "device": str(self.device),
            "dtype": self.dtype_name,
            "seeds": list(self.seeds),
        }


DEFAULT_OPTIONS = RunOptions()
"""The options of a trainer called without any: the best device here, each trainer's dtype policy, no progress
bar, no checkpoints, no seed offset."""
