"""What the Ch. 8 claims share: the source, the float64 floor, the configurations and prompt sampling
(docs/looped.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics import looped as nl

SRC = "Shi thesis (2024), Ch. 8"
EPS = float(np.finfo(np.float64).eps)
#: The query scalars alpha != 0 cycled through the prompts.
ALPHAS = (-1.7, 0.3, 5.0)
#: The float64 error floor of a converged iterate is FLOOR_ULPS kappa eps (relative to ||theta*|| = 1).
FLOOR_ULPS = 64.0
#: Lemma 8.13 is also checked in exact rational arithmetic for prompts with n <= EXACT_N_MAX.
EXACT_N_MAX = 8
#: Figure 8.1: the float64 floor of ||theta^(t) - theta*||^2 (the runs reach it near 1e-31; see docs/looped.md).
DECAY_FLOOR = 1e-28
#: Figure 8.1: the loop count at which the mean log error is compared across n.
SLOPE_T = 10
#: Figure 8.1: the reported average kappa must lie within this many standard errors of the population mean.
KAPPA_Z = 4.0


@dataclass(frozen=True)
class LoopCfg:
    """Sizes of a looped-transformer check: d, the n values, loops T, prompts per (n, alpha), seed."""

    d: int
    ns: tuple[int, ...]
    T: int
    prompts: int
    seed: int = 0
    exact: bool = True  # theory predictions in Fraction arithmetic (float64 fallback when False)


@dataclass(frozen=True)
class KappaCfg:
    """Monte-Carlo draws per n for the population mean of kappa(X^T X), d = 4."""

    draws: int
    seed: int = 0


@dataclass(frozen=True)
class DecayCfg:
    """Figure 8.1 run: d, the n values, iterations T, trials per n, seed."""

    d: int
    ns: tuple[int, ...]
    T: int
    trials: int
    seed: int = 0
    slope_t: int = SLOPE_T


def float_floor(kappa: np.ndarray) -> np.ndarray:
    """float64 error floor of a converged iterate, relative to ||theta*|| = 1: 64 kappa eps."""
    return FLOOR_ULPS * kappa * EPS


def by_n(mapping: dict, n: int) -> Any:
    """``mapping[n]``, also for a record read back from JSON (string keys)."""
    return mapping[n] if n in mapping else mapping[str(n)]


def sample_prompts(cfg: LoopCfg, n: int, salt: int) -> nl.Prompts:
    return nl.sample_prompts(np.random.default_rng([cfg.seed, n, salt]), cfg.prompts, n, cfg.d)
