"""What the finite-group claims share: the source, the configurations and exact-to-float conversion.

Edelman thesis (2024), Ch. 7, Sec. 7.6 (Theorem 7.9) and App. D.8-D.9; derivations, corrected constants and
the reference values quoted by the claims are in ``docs/groups.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

SRC = "Edelman thesis (2024)"


@dataclass(frozen=True)
class GroupsConfig:
    """Groups (by name, see ``theory.finite_groups.group``) at which a statement is checked, plus the knobs some
    claims use: the groups where a condition is expected to fail, the multi-start count and seed of the
    single-neuron optimizer, and reference values quoted in the statement (label -> value, ``docs/groups.md``)."""

    groups: tuple[str, ...]
    fails: tuple[str, ...] = ()
    n_starts: int = 8
    seed: int = 0
    reference: tuple[tuple[str, float], ...] = ()


def to_float(x: Any) -> float:
    """An exact (sympy) value as a float, evaluated to 30 digits first."""
    return float(sympy.N(x, 30))
