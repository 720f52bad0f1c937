"""Small tasks shared by the tests, exercising the dense-input path of the Task protocol.

The sparse-parity dataset (Edelman Thm 7.8) is the toolkit's own ``numerics.parity.SparseParityTask``.
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
