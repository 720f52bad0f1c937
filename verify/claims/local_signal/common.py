"""What the local-signal-adaptivity claims (Karp thesis Ch. 3 + App. B) share: the source, the Monte Carlo z level
and the task judge (docs/local_signal.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..judges import MC_Z, Judge, Verdict, ZScore, as_floats

__all__ = ["DOC", "MC_Z", "SRC", "ZScoreAnd", "floats", "se_list"]

SRC = "Karp thesis (2024), Ch. 3"
DOC = "docs/local_signal.md"


@dataclass(frozen=True)
class ZScoreAnd(Judge):
    """:class:`ZScore` (every estimate within ``z`` standard errors of its prediction, SEs in
    ``obs.details[stderr_key]``), and every detail named in ``require`` true (a structural fact checked alongside:
    a sign, a bound)."""

    z: float
    require: tuple[str, ...] = ()
    stderr_key: str = "stderr"

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = ZScore(self.z, self.stderr_key)(predicted, obs, config)
        missing = [key.replace("_", " ") for key in self.require if not obs.details.get(key, False)]
        if verdict == "pass" and missing:
            return "fail", f"{reason}; false: {', '.join(missing)}"
        return verdict, reason + (
            f"; and {', '.join(k.replace('_', ' ') for k in self.require)}" if self.require else ""
        )

    def describe(self) -> str:
        text = f"|estimate - predicted| <= {self.z:g} standard errors"
        return text + "".join(f"; and {key.replace('_', ' ')}" for key in self.require)

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return ZScore(self.z, self.stderr_key).perturb(predicted, obs)


def floats(values: Any) -> list[float]:
    """A flat list of floats (JSON-ready)."""
    return [float(v) for v in as_floats(values)]


def se_list(values: Any) -> list[float]:
    """Standard errors as floats, each at least 1e-300 (a zero SE would make the z test undefined)."""
    return [max(float(v), 1e-300) for v in np.ravel(values)]
