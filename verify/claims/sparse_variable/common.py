"""Shared pieces of the Edelman Ch. 4 claims: sources, case generation and the constructions' parameters."""

from __future__ import annotations

import random
from fractions import Fraction

from theory import sparse_variable as ts

SRC = "Edelman thesis (2024), Ch. 4"
SRC_A2 = "Edelman thesis (2024), App. A.2"
SRC_A1 = "Edelman thesis (2024), App. A.1"
SRC_A3 = "Edelman thesis (2024), App. A.3"

#: The lemma behind each input mapping (App. A.2.1-A.2.2).
LEMMA_OF = {"deterministic": "A.19", "trainable": "A.20", "bag": "A.21"}


def case_rng(seed: int, *key: int) -> random.Random:
    """A ``random.Random`` for one case, fixed by the config's seed and the case's integers."""
    h = seed
    for k in key:
        h = h * 1_000_003 + int(k)
    return random.Random(h)


def gamma_of(lemma: str, output: str, s: int) -> Fraction:
    """The approximation parameter the claims use (``docs/sparse_variable.md``): ``1/(s + 1)`` for Lemma A.21,
    ``min(1, 2/s)`` for a scalar head of Lemma A.19/A.20 and 1 for their s heads."""
    if lemma == "A.21":
        return Fraction(1, s + 1)
    return min(Fraction(1), Fraction(2, s)) if output == "scalar" else Fraction(1)


def construction(lemma: str, T: int, support: tuple[int, ...], output: str) -> ts.Construction:
    """The head(s) of a lemma with the parameters the representations use (``docs/sparse_variable.md``):
    Lemmas A.19/A.20 with ``gamma = min(1, 2/s)`` (scalar, approximates a (2/s)-separated g) or ``gamma = 1``
    (vector, chi_I is 2-separated); Lemma A.21 with ``gamma = 1/(s + 1)``."""
    gamma = gamma_of(lemma, output, len(support))
    if lemma == "A.21":
        return ts.lemma_a21(T, support, gamma, output)
    if lemma == "A.19":
        return ts.lemma_a19(T, support, gamma, output)
    return ts.lemma_a20(T, support, gamma, output)


def random_levels(rng: random.Random, n: int) -> list[Fraction]:
    """``n`` random rationals ``a/q`` with ``|a| <= 9``, ``1 <= q <= 4`` (the values of a random target function)."""
    return [Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)]
