"""Before a ``--scale full`` report runs its grid claims: print the estimated cost (cells x estimated seconds per
cell on the current device, and the wall time on the executor's workers) and stop unless a run estimated above
an hour was confirmed (``--confirm-cost``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from verify.runtime.memory import format_seconds

from .cost import CONFIRM_ABOVE_S, GridEstimate, calibrate, estimate_grid
from .grid import grid_of
from .session import SweepSession

__all__ = ["CostNotConfirmed", "confirm_cost"]


class CostNotConfirmed(ValueError):
    """A run estimated above :data:`~verify.sweep.cost.CONFIRM_ABOVE_S` seconds was not confirmed."""


def confirm_cost(
    claims: Sequence[Any],
    scale: str,
    device: str,
    session: SweepSession,
    *,
    confirm: bool,
    log: Callable[[str], None],
) -> list[GridEstimate]:
    """Estimate the grid claims among ``claims`` at ``scale`` (only ``full``; [] otherwise) and log it.

    Raises
    ------
    CostNotConfirmed
        If the estimated wall time exceeds an hour and ``confirm`` is False (nothing has run yet).
    """
    grids = [(c, grid_of(c)) for c in claims]
    grids = [(c, g) for c, g in grids if g is not None and g.cost is not None and scale in c.configs]
    if scale != "full" or not grids:
        return []
    speed = calibrate(device)
    log(
        f"cost estimate on {speed.device} (calibrated: {speed.overhead_s * 1e6:.0f} us per launch, "
        f"{speed.flops_per_s / 1e9:.1f} G multiply-adds/s; step budgets are upper bounds):"
    )
    estimates = [estimate_grid(g, c.configs[scale], speed, session) for c, g in grids]
    for est in estimates:
        log(est.describe())
    total = sum(e.pending_s for e in estimates)
    workers = session.executor.workers()
    wall = total / workers
    log(
        f"  total: {sum(e.pending for e in estimates)} cells, ~{format_seconds(total)} of device time, "
        f"~{format_seconds(wall)} wall on {session.executor.describe()}"
    )
    if wall > CONFIRM_ABOVE_S and not confirm:
        raise CostNotConfirmed(
            f"the grid claims are estimated at ~{format_seconds(wall)} of wall time (above "
            f"{format_seconds(CONFIRM_ABOVE_S)}); pass --confirm-cost to run them, or use more workers "
            "(--executor ray, --shard I/N)"
        )
    return estimates
