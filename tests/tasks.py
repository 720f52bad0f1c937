"""Small tasks shared by the tests, exercising the dense-input path of the Task protocol.

The sparse-parity dataset here is a test fixture only (all of {+-1}^n, Edelman Thm 7.8 setting); the
toolkit's own parity task belongs to the sparse-parity issue.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numerics.modular import ModularTask


@dataclass(frozen=True)
class DenseOneHotTask:
    """ModularTask with its one-hot inputs passed as dense float blocks (n, k, p): exercises the einsum path."""

    base: ModularTask

    n_points = property(lambda self: self.base.n_points)
    n_classes = property(lambda self: self.base.n_classes)
    n_blocks = property(lambda self: self.base.n_blocks)
    block_size = property(lambda self: self.base.block_size)

    def batch(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        idx, labels = self.base.batch(start, stop)
        return np.eye(self.base.p)[idx], labels


@dataclass(frozen=True)
class SparseParityTask:
    """(n, S)-sparse parity on all of {+-1}^n, dense inputs (N, 1, n); label 0 for chi_S = +1, 1 for -1."""

    n: int
    support: tuple[int, ...]
    n_classes: int = 2
    n_blocks: int = 1

    @property
    def n_points(self) -> int:
        return 2**self.n

    @property
    def block_size(self) -> int:
        return self.n

    def batch(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        idx = np.arange(start, stop)
        bits = (idx[:, None] >> np.arange(self.n)[None, :]) & 1
        x = 1.0 - 2.0 * bits
        chi = np.prod(x[:, list(self.support)], axis=1)
        return x[:, None, :], (chi < 0).astype(np.int64)
