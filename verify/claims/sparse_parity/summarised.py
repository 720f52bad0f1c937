"""A :class:`~verify.claims.sparse_parity.common.SeedPopulation` judge whose reason is a summary of the observation
followed by the rule's tally, and whose run is inconclusive when the parameters of every seed of a setting diverged
(docs/verdicts.md); a seed that diverged alone is judged by :meth:`units` (a failing unit).

The judges of Fig. B.11 (``grokking.py``) and Fig. B.12 (``noisy.py``) are of this kind. The other population judges
of the chapter (the block populations of ``common.py``, ``sgd.py``'s and ``init_noise.py``'s) start the same way but
add checks of their own between the divergence and the tally (too few converged seeds, a control that the rule cannot
tell apart), so they keep their own ``__call__``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from ..base import Observation
from ..judges import Verdict
from .common import SeedPopulation

__all__ = ["SummarisedPopulation"]


@dataclass(frozen=True)
class SummarisedPopulation(SeedPopulation, ABC):
    """``inconclusive`` with the observation's ``details["divergence"]`` as the reason when every seed of a setting
    diverged; otherwise
    the rule's verdict on :meth:`units` (one unit per seed), its reason ``"<summary>; <tally>"``. :meth:`describe` is
    :attr:`criterion` followed by the rule's own description."""

    #: The per-seed criterion in words, the first part of :meth:`describe`.
    criterion: ClassVar[str]

    @abstractmethod
    def summary(self, predicted: Any, obs: Observation, config: Any) -> str:
        """What the observation shows, in the claim's terms (the first part of the reason)."""

    def __call__(self, predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        if obs.details.get("divergence"):
            return "inconclusive", obs.details["divergence"]
        verdict, tally = self.tally(self.units(predicted, obs, config), "seeds")
        return verdict, f"{self.summary(predicted, obs, config)}; {tally}"

    def describe(self) -> str:
        return f"{self.criterion}; {self.rule.describe()}"
