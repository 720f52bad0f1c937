"""What the local-signal-adaptivity claims (Karp thesis Ch. 3 + App. B) share: the source, the Monte Carlo z level
and the task judge (docs/local_signal.md)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..judges import MC_Z, as_floats

__all__ = ["DOC", "MC_Z", "SRC", "floats", "se_list"]

SRC = "Karp thesis (2024), Ch. 3"
DOC = "docs/local_signal.md"


def floats(values: Any) -> list[float]:
    """A flat list of floats (JSON-ready)."""
    return [float(v) for v in as_floats(values)]


def se_list(values: Any) -> list[float]:
    """Standard errors as floats, each at least 1e-300 (a zero SE would make the z test undefined)."""
    return [max(float(v), 1e-300) for v in np.ravel(values)]
