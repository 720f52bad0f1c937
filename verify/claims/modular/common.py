"""What the modular-addition claims share: the sources, their configurations and gamma* per case."""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from theory import modular as tm
from verify.train import TrainConfig

SHI = "Shi thesis (2024)"
EDELMAN = "Edelman thesis (2024)"
P = sympy.Symbol("p", positive=True, integer=True)
#: The k of the symbolic checks (Theorem 4.9 and the identities of Lemma C.16 / Eq. C.21).
SYMBOLIC_KS = tuple(range(1, 7))


@dataclass(frozen=True)
class CasesConfig:
    """(p, k) settings of a non-training claim, with the knobs some of them use: multi-start count of the
    single-neuron optimizer, number of random networks or dictionary atoms, and the random seed."""

    cases: tuple[tuple[int, int], ...]
    n_starts: int = 8
    n_random: int = 0
    seed: int = 0


@dataclass(frozen=True)
class PrimesConfig:
    """Moduli at which a k = 2 statement of Edelman Ch. 7 is checked."""

    ps: tuple[int, ...]


@dataclass(frozen=True)
class ModularTrainingConfig:
    """One training run: width ``width`` of the k-input network on Z_p, trained with ``train``.

    ``min_ratio`` is the margin ratio every seed must reach within the run's budget; ``purity`` is the block
    purity above which :func:`verify.compare.compare_modular` calls a neuron single-frequency;
    ``lp_reweighting`` also solves the LP over the learned directions (small p only).
    """

    p: int
    k: int
    width: int
    train: TrainConfig
    min_ratio: float = 0.95
    purity: float = 0.99
    lp_reweighting: bool = True


def case_list(cfg: CasesConfig) -> list[list[int]]:
    """The (p, k) cases as lists (for JSON details)."""
    return [list(c) for c in cfg.cases]


def max_margins(cfg: CasesConfig) -> list[sympy.Expr]:
    """gamma*(p, k) of Theorem 4.9 for every case."""
    return [tm.max_margin(p, k) for p, k in cfg.cases]
