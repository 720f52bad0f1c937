"""Training that diverged: one exception for every trainer (:class:`TrainingDiverged`) and the guard that raises it
(:class:`NonFiniteGuard`, called by :func:`verify.runtime.loop.run_loop` after the updates it checks).

A diverged run decides nothing about a theorem: the claim that trained it is ``inconclusive`` with the message,
which names the trainer, the step, every offending seed and what to change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch

__all__ = ["NonFiniteGuard", "TrainingDiverged", "first_nonfinite_seeds"]


class TrainingDiverged(FloatingPointError):
    """The loss or the weights of some seeds became NaN or infinite.

    Attributes
    ----------
    trainer : str
        The trainer's name (``"polynomial"``, ``"attention"``, ``"lsa-sgd"``, ...).
    step : int
        The update after which it was found (with a guard checking every few steps, the first check after it).
    seeds : list of int
        Every offending seed, in ensemble order.
    what : str
        What became non-finite, for the first offending seed.
    remedy : str
        The settings to change.
    """

    def __init__(self, trainer: str, step: int, seeds: Sequence[int], what: str, remedy: str = "") -> None:
        self.trainer, self.step, self.seeds, self.what, self.remedy = trainer, int(step), list(seeds), what, remedy
        tail = f" ({remedy})" if remedy else ""
        super().__init__(f"{trainer} training diverged at step {step} for seed(s) {self.seeds}: {what}{tail}")


def first_nonfinite_seeds(values: torch.Tensor) -> list[int]:
    """Positions along the leading (seed) axis whose entries are not all finite; [] when all are finite."""
    ok = torch.isfinite(values.reshape(values.shape[0], -1)).all(dim=1)
    if bool(ok.all()):
        return []
    return (~ok).nonzero()[:, 0].tolist()


@dataclass(frozen=True)
class NonFiniteGuard:
    """Raise :class:`TrainingDiverged` when the loss or the weights of some seed become NaN or infinite.

    Parameters
    ----------
    seeds : tuple of int
        The seed of each position of the leading seed axis.
    trainer : str
        The trainer's name, for the message.
    remedy : str
        The settings to change, for the message.
    every : int
        :func:`verify.runtime.loop.run_loop` checks after the update of every step that is a multiple of ``every``
        and after the last update (1 = every step; larger saves device synchronisations).
    weights : mapping of str to tensor
        Named parameters with a leading seed axis, checked after the loss.
    """

    seeds: tuple[int, ...]
    trainer: str
    remedy: str = ""
    every: int = 1
    weights: Mapping[str, torch.Tensor] | None = None

    def __call__(self, step: int, loss: torch.Tensor | None) -> None:
        """Check the per-seed ``loss`` (S,) of update ``step`` and then the weights; raise on the first problem."""
        if loss is not None:
            bad = first_nonfinite_seeds(loss)
            if bad:
                self._raise(step, bad, f"loss = {loss[bad[0]].item()}")
        for name, tensor in (self.weights or {}).items():
            bad = first_nonfinite_seeds(tensor.detach())
            if bad:
                self._raise(step, bad, f"weights {name} became NaN/inf after this update")

    def _raise(self, step: int, positions: list[int], what: str) -> None:
        raise TrainingDiverged(self.trainer, step, [self.seeds[i] for i in positions], what, self.remedy)
