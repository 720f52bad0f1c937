"""What the decision-list claims share: the source, random dyadic parameters and the sequence laws."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np

from theory import decision_lists as td

__all__ = ["DOC", "SRC", "dyadic_matrix", "to_float", "uniform_law"]

SRC = "Karp thesis (2024), Ch. 4"
DOC = "docs/decision_lists.md"


def dyadic_matrix(L: int, scale: int, rng: random.Random) -> list[list[Fraction]]:
    """An ``L x L`` matrix of multiples of 1/16 in ``[-scale, scale]`` (exact in float64, so theory and torch see
    the same numbers)."""
    return [[Fraction(rng.randint(-16 * scale, 16 * scale), 16) for _ in range(L)] for _ in range(L)]


def to_float(M: list[list[object]]) -> np.ndarray:
    """A nested list of exact or 40-digit numbers as a float64 array."""
    return np.array([[float(x) for x in row] for row in M], dtype=np.float64)


def uniform_law(L: int, n: int) -> dict[frozenset[int], Fraction]:
    """The uniform law on ``n``-subsets of ``range(L)`` as an explicit token-set law."""
    subsets = [frozenset(s) for s in td.uniform_subsets(L, n)]
    return {s: Fraction(1, len(subsets)) for s in subsets}
