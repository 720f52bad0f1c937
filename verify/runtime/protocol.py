"""The run protocol between the code that runs claims (the report, the pytest plugin, sweeps) and a claim's
``observe``: a :class:`RunContext` in, an :class:`Observation` out (docs/architecture.md).

It lives below the claims and the sweep engine so that both can use it without importing each other. Torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from verify.runtime.options import RunOptions

__all__ = ["Observation", "RunContext", "Scale"]

Scale = Literal["quick", "full"]


@dataclass(frozen=True)
class RunContext:
    """Where and how claims run.

    Parameters
    ----------
    scale : {'quick', 'full'}
        Which configuration of each claim runs.
    options : RunOptions
        The run-wide options every trainer receives (device, dtype, progress, seed offset, memory-check override);
        a claim adds the checkpoint file of each run (:meth:`run_options`).
    workdir : str or None
        A scratch directory for checkpoints (the report's ``.checkpoints``); None: no checkpoints.
    """

    scale: Scale = "quick"
    options: RunOptions = field(default_factory=RunOptions)
    workdir: str | None = None

    @property
    def device(self) -> str:
        """The device name of :attr:`options` (``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"``)."""
        return self.options.device

    @property
    def progress(self) -> bool:
        """Whether trainers draw progress bars."""
        return self.options.progress

    def resolved_device(self) -> str:
        """The torch device ``device`` names on this machine (``auto`` -> ``cuda`` or ``cpu``)."""
        return str(self.options.resolved_device())

    def run_options(self, checkpoint_path: str | None = None) -> RunOptions:
        """:attr:`options` for one training run, saving to and resuming from ``checkpoint_path``."""
        return self.options.replace(checkpoint_path=checkpoint_path)


@dataclass
class Observation:
    """What ``observe`` measured: the headline value, supporting details, optional counterexample and
    ``artifacts`` (plain data for figures: training curves, spectra, histograms)."""

    value: Any
    details: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    artifacts: dict[str, Any] = field(default_factory=dict)
    seeds: tuple[int, ...] = ()
