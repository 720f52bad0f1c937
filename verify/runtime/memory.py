"""The check every trainer makes before its first update (docs/training.md, "Memory and time before a run"): its
estimated peak memory against the device's free memory, and the time estimate of a long run.

:func:`preflight` is for trainers that do not train a :class:`verify.train.attention.AttentionEnsemble` (whose
:class:`verify.train.attention.RunEstimate` estimates the memory itself from the batch): the trainer computes its own
``memory_estimate`` from its shapes, :func:`verify.train.polynomial_step.check_free_memory` refuses a run that does not fit,
and the returned hook times the first updates through :class:`verify.train.attention.RunEstimate`, which prints one line
(memory, time per step, total) on stderr when the rest of the run would take more than
:data:`verify.train.polynomial_step.PRINT_ESTIMATE_S` seconds.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from verify.train.attention import RunEstimate
from verify.train.polynomial_step import check_free_memory

__all__ = ["OVERRIDE_HINT", "preflight"]

#: Appended to every refusal: the run-wide override that :func:`verify.train.polynomial_step.check_free_memory` reads.
OVERRIDE_HINT = "or override the check with tvk --ignore-memory-check (verify.train.polynomial.config_overrides)"


def preflight(
    need: int,
    device: torch.device,
    what: str,
    remedy: str,
    *,
    steps: int,
    n_seeds: int,
    desc: str,
    ignore: bool = False,
) -> Callable[[int], None]:
    """Refuse now a run whose estimated peak ``need`` (bytes) does not fit on ``device``; return the hook to call
    with the step number at the start of every update.

    Parameters
    ----------
    need : int
        The trainer's memory estimate (bytes).
    device : torch.device
        Where the run allocates.
    what, remedy : str
        What is trained (sizes included) and which setting lowers ``need``; the message adds the override.
    steps, n_seeds, desc : int, int, str
        The run's total updates, seeds and name, for the printed estimate.
    ignore : bool
        Skip the memory check (a trainer's own ``ignore_memory_check``); the run-wide ``tvk --ignore-memory-check``
        is honoured either way.

    Returns
    -------
    Callable[[int], None]
        ``at(step)``: after :data:`verify.train.attention.PROBE_STEPS` updates, prints the memory, time per step and
        total when the remaining steps would take more than ``PRINT_ESTIMATE_S`` seconds (once per run).

    Raises
    ------
    verify.train.polynomial_step.InsufficientMemoryError
        When ``need`` exceeds the usable free memory and no override is set.
    """
    check_free_memory(int(need), device, what, f"{remedy}, {OVERRIDE_HINT}", ignore)
    estimate = RunEstimate(None, steps, n_seeds, desc, need=int(need))  # checked above: RunEstimate only times
    no_inputs = torch.empty(0)
    return lambda step: estimate(step, no_inputs)
