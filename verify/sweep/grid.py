"""A grid claim as data: its cells, the run function of one cell and the aggregate that turns the cells'
results into the claim's :class:`~verify.claims.base.Observation` (docs/running_at_scale.md).

Grids whose later cells depend on earlier results (the random-label control of the hidden-progress claim
trains for as many steps as the true-label run needed) declare follow-up stages: each is a function of the
configuration and the results so far; called with ``None`` instead of results it returns the stage's
worst-case cells (for the cost estimate and ``tvk sweep status``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from .cells import Cell, CellResult, cell_hash
from .cost import CellCost
from .session import run_grid

if TYPE_CHECKING:
    from verify.runtime.protocol import Observation, RunContext

__all__ = ["Grid", "grid_of", "grid_read_by", "reads_grid"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Grid:
    """A claim's grid of independent runs; ``Claim(observe=grid.observe, ...)`` makes it a grid claim.

    Attributes
    ----------
    claim_id : str
        The id of the claim this grid observes (the store's first key).
    cells : callable
        ``cells(config) -> list[Cell]``: the first stage, in a fixed order (the order of the aggregate's inputs
        and of ``--shard``'s round robin).
    run : callable
        ``run(cell, ctx) -> result``: one cell on ``ctx.device``; a module-level function (it is pickled by
        reference for the ``processes`` and ``ray`` executors); the result is plain data (:func:`encode`).
    aggregate : callable
        ``aggregate(config, results) -> Observation`` from the :class:`CellResult` list (store order = the
        stages' cell order); it sees only what the store holds.
    followups : tuple of callables
        Later stages, ``stage(config, results_so_far) -> list[Cell]``; with ``None`` instead of results each
        returns its worst-case cells (planning, cost estimate).
    cost : callable, optional
        ``cost(cell) -> CellCost``: the work of one cell for the cost estimate of ``--scale full``.
    """

    claim_id: str
    cells: Callable[[Any], Sequence[Cell]]
    run: Callable[[Cell, RunContext], Any]
    aggregate: Callable[[Any, list[CellResult]], Observation]
    followups: tuple[Callable[[Any, list[CellResult] | None], Sequence[Cell]], ...] = field(default=())
    cost: Callable[[Cell], CellCost] | None = None

    def plan(self, config: Any) -> list[list[Cell]]:
        """Every stage's cells, the follow-up stages at their worst case (no results needed)."""
        return [list(self.cells(config))] + [list(stage(config, None)) for stage in self.followups]

    def key(self, cell: Cell) -> str:
        """The cell's configuration hash (:func:`config_hash` with this grid's run function)."""
        return cell_hash(cell.config, self.run)

    def observe(self, config: Any, ctx: RunContext) -> Observation:
        """Run the missing cells with the current sweep session's executor and store, then aggregate the stored
        results (:func:`verify.sweep.session.run_grid`); without a session: in-process, in-memory store."""
        return run_grid(self, config, ctx)


def grid_of(claim: Any) -> Grid | None:
    """The :class:`Grid` behind a claim whose ``observe`` is ``grid.observe``; None for any other claim."""
    owner = getattr(claim.observe, "__self__", None)
    return owner if isinstance(owner, Grid) else None


def reads_grid(grid: Grid) -> Callable[[F], F]:
    """Mark an ``observe`` function that observes through ``grid.observe`` and adds to it (a second claim on the
    same cells, such as Finding (3) on the Pareto grid): a report runs such a claim in its own process after the
    grid claims, where the cells are already in the sweep store, instead of recomputing them in a worker."""

    def mark(fn: F) -> F:
        fn.__reads_grid__ = grid  # type: ignore[attr-defined]
        return fn

    return mark


def grid_read_by(claim: Any) -> Grid | None:
    """The :class:`Grid` a claim observes through: its own (:func:`grid_of`) or the one its ``observe`` reads
    (:func:`reads_grid`); None for any other claim."""
    return grid_of(claim) or getattr(claim.observe, "__reads_grid__", None)
