"""Progress bars on stderr, written once (torch-free, so `tvk certify` shows one without importing torch).

A bar counts units of work (steps of a training loop, starts of a multi-start search); it redraws at most every
:data:`PROGRESS_INTERVAL` seconds and disappears when closed (``leave=False``), so a finished run leaves only
its result lines. ``enabled=False`` (``--no-progress``) draws nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm.auto import tqdm

__all__ = ["PROGRESS_INTERVAL", "count_bar", "counter"]

PROGRESS_INTERVAL = 0.5  # seconds between redraws of a progress bar


def count_bar(total: int, desc: str, *, enabled: bool = True, initial: int = 0, unit: str = "it") -> tqdm:
    """A bar on stderr over ``total`` units (``initial`` already done), throttled to :data:`PROGRESS_INTERVAL`.

    Parameters
    ----------
    total : int
        Units of the whole run.
    desc : str
        The bar's label.
    enabled : bool
        False: a disabled bar (draws nothing; its methods still work).
    initial : int
        Units done before the bar starts (a resumed run).
    unit : str
        The unit's name in the rate (``"start"`` gives ``start/s``).

    Returns
    -------
    tqdm.tqdm
        The bar; the caller updates and closes it.
    """
    return tqdm(
        total=total,
        initial=initial,
        file=sys.stderr,
        disable=not enabled,
        desc=desc,
        unit=unit,
        leave=False,
        dynamic_ncols=True,
        mininterval=PROGRESS_INTERVAL,
    )


@contextmanager
def counter(
    total: int, desc: str, *, enabled: bool = True, unit: str = "it", done: Callable[[], object] | None = None
) -> Iterator[Callable[[int], None]]:
    """A progress hook over ``total`` units: the callable takes the number of units finished so far (the
    ``progress`` hook of :func:`numerics.single_neuron.maximize_single_neuron`). The bar appears at the first
    call, so work refused before it starts (a bad setting) prints its error alone; at ``total`` the bar closes and
    ``done()`` runs once (e.g. a line saying what comes next). The bar closes on leaving the block in every case.

    Parameters
    ----------
    total, desc, enabled, unit :
        As in :func:`count_bar`.
    done : callable, optional
        Called once when the count reaches ``total``.

    Yields
    ------
    callable
        ``update(finished: int) -> None``.
    """
    bars: list[tqdm] = []
    finished = False

    def update(count: int) -> None:
        nonlocal finished
        if finished:
            return
        if not bars:
            bars.append(count_bar(total, desc, enabled=enabled, unit=unit))
        bars[0].update(count - bars[0].n)
        if count >= total:
            finished = True
            bars[0].close()
            if done is not None:
                done()

    try:
        yield update
    finally:
        for bar in bars:
            bar.close()
