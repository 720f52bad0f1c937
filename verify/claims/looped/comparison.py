"""Theorem 8.17 (Shi thesis Sec. 8.4, restating Gatmiry et al. (2024), Thm 4.1): the bound that Sec. 8.4 compares
Theorem 8.16 with, made exact (docs/looped.md, "Theorem 8.17").

Predictions from :mod:`theory.looped` (``n_min = 64 T^2 d^4 16^T``, the growth factor ``4 (T + 1)/T``); observations
from :mod:`numerics.looped`, which decides the printed condition ``8 T d^2/sqrt(n) <= 1/2^{2T}`` exactly and bisects
for the smallest admissible n, and takes the ratio of the printed bound at T + 1 and T loops.
"""

from __future__ import annotations

from dataclasses import dataclass

from numerics import looped as nl
from theory import looped as tl

from ..base import Claim, Observation, RunContext, register
from ..judges import ExactlyEqual
from .common import SRC


@dataclass(frozen=True)
class Thm817Config:
    """Loops T and dimensions d (Fig. 8.1's d = 4 among them)."""

    Ts: tuple[int, ...]
    ds: tuple[int, ...]


def _predict(cfg: Thm817Config) -> list[object]:
    n_min = [tl.thm_8_17_min_examples(T, d) for T in cfg.Ts for d in cfg.ds]
    return n_min + [tl.thm_8_17_growth_factor(T) for T in cfg.Ts]


def _observe(cfg: Thm817Config, ctx: RunContext) -> Observation:
    n_min = [nl.thm_8_17_smallest_admissible_n(T, d) for T in cfg.Ts for d in cfg.ds]
    growth = [nl.thm_8_17_printed_growth(T, cfg.ds[0]) for T in cfg.Ts]
    bound_at_n_min = [
        str(tl.thm_8_17_bound(T, d, n)) for (T, d), n in zip(((T, d) for T in cfg.Ts for d in cfg.ds), n_min)
    ]
    return Observation(
        n_min + growth,
        details={
            "Ts": list(cfg.Ts),
            "ds": list(cfg.ds),
            "bound_at_smallest_admissible_n": bound_at_n_min,
            "condition_fails_below": all(
                not nl.thm_8_17_condition_holds(T, d, n - 1)
                for (T, d), n in zip(((T, d) for T in cfg.Ts for d in cfg.ds), n_min)
            ),
        },
    )


register(
    Claim(
        id="shi-thm8.17-gatmiry-condition",
        source=f"{SRC}, Sec. 8.4, Theorem 8.17 (Theorem 4.1 of Gatmiry et al. (2024)) and the comparison after it",
        statement="Theorem 8.17's condition 8 T d^2/sqrt(n) <= 1/2^{2T} holds iff n >= 64 T^2 d^4 16^T (262144 "
        "examples at d = 4, T = 1; 1.8e18 at T = 10), its bound 8 T d^2 2^{2T}/sqrt(n) equals sqrt(n_min/n) <= 1 "
        "there, and at fixed (d, n) the bound grows by the factor 4 (T + 1)/T per loop (the 'exponential "
        "increase' that Sec. 8.4 contrasts with Theorem 8.16's |alpha| exp(-T/(2 kappa))).",
        kind="symbolic",
        configs={
            "quick": Thm817Config(Ts=(1, 2, 3, 5, 10), ds=(1, 4)),
            "full": Thm817Config(Ts=(1, 2, 3, 5, 10, 20, 50, 100), ds=(1, 2, 4, 8)),
        },
        predict=_predict,
        observe=_observe,
        judge=ExactlyEqual(),
        note="Theorem 8.17 is a citation (Gatmiry et al. (2024) is not among the sources): what is checked is the "
        "arithmetic of its condition and bound as Sec. 8.4 prints them, not the cited result.",
    )
)
