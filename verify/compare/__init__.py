"""Learned weights against predicted optima, one module per task (same names as ``theory/`` and
``numerics/``). Every metric reads :class:`numerics.margins.HomogeneousNetwork` weights, whatever model
produced them."""

from .groups import GroupComparison, compare_groups
from .modular import ModularComparison, compare_modular
from .parity import ParityComparison, compare_parity

__all__ = [
    "GroupComparison",
    "ModularComparison",
    "ParityComparison",
    "compare_groups",
    "compare_modular",
    "compare_parity",
]
