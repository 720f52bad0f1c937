"""What the Ch. 8 claims share: the source, the float64 floor, the configurations and prompt sampling
(docs/looped.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics import looped as nl

from ..judges import MC_Z

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
#: Figure 8.1: the reported average kappa must lie within this many standard errors of the population mean (the
#: toolkit's Monte Carlo convention, :data:`verify.claims.judges.MC_Z`).
KAPPA_Z = MC_Z


def _check_int(name: str, value: Any, least: int) -> None:
    """A clear ValueError unless ``value`` is an integer >= ``least``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")


def _check_ns(ns: Any) -> None:
    """A clear ValueError unless ``ns`` is a non-empty tuple of integers >= 1 (a claim over no n checks nothing)."""
    if not isinstance(ns, tuple) or not ns:
        raise ValueError(f"ns must be a non-empty tuple of integers >= 1, got {ns!r}")
    for n in ns:
        _check_int("each n in ns", n, 1)


@dataclass(frozen=True)
class LoopCfg:
    """Sizes of a looped-transformer check: d, the n values, loops T, prompts per (n, alpha), seed."""

    d: int
    ns: tuple[int, ...]
    T: int
    prompts: int
    seed: int = 0
    exact: bool = True  # theory predictions in Fraction arithmetic (float64 fallback when False)

    def __post_init__(self) -> None:
        _check_int("d", self.d, 1)
        _check_ns(self.ns)
        _check_int("T", self.T, 0)
        _check_int("prompts", self.prompts, 1)


@dataclass(frozen=True)
class KappaCfg:
    """Monte-Carlo draws per n for the population mean of kappa(X^T X), d = 4."""

    draws: int
    seed: int = 0

    def __post_init__(self) -> None:
        _check_int("draws", self.draws, 2)


@dataclass(frozen=True)
class DecayCfg:
    """Figure 8.1 run: d, the n values, iterations T, trials per n, seed."""

    d: int
    ns: tuple[int, ...]
    T: int
    trials: int
    seed: int = 0
    slope_t: int = SLOPE_T

    def __post_init__(self) -> None:
        _check_int("d", self.d, 1)
        _check_ns(self.ns)
        _check_int("T", self.T, 1)
        _check_int("trials", self.trials, 1)
        _check_int("slope_t", self.slope_t, 1)
        if self.slope_t > self.T:
            raise ValueError(f"slope_t must be in [1, T] = [1, {self.T}], got {self.slope_t}")


def float_floor(kappa: np.ndarray) -> np.ndarray:
    """float64 error floor of a converged iterate, relative to ||theta*|| = 1: 64 kappa eps."""
    return FLOOR_ULPS * kappa * EPS


def by_n(mapping: dict, n: int) -> Any:
    """``mapping[n]``, also for a record read back from JSON (string keys)."""
    return mapping[n] if n in mapping else mapping[str(n)]


def sample_prompts(cfg: LoopCfg, n: int, salt: int) -> nl.Prompts:
    return nl.sample_prompts(np.random.default_rng([cfg.seed, n, salt]), cfg.prompts, n, cfg.d)
