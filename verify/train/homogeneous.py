r"""Torch models whose weights are neuron blocks (docs/architecture.md).

:class:`HomogeneousEnsemble` is the homogeneous one-hidden-layer polynomial network of
``numerics.margins.HomogeneousNetwork`` with a leading *seed* dimension, so that S independent networks train as one
batched computation:

.. math:: f_s(\theta, x)[c] = \sum_{i=1}^m \Big(\sum_{j=1}^{k} \langle U_{s,i,j}, x_j\rangle\Big)^{\mathrm{deg}} W_{s,i,c},
          \qquad s = 1..S .

It covers k-input modular addition (Shi thesis Eq. 4.2, degree = k, one-hot blocks of size p; Edelman Ch. 7
for k = 2), finite groups (Edelman Thm 7.9: k = 2 one-hot blocks of size |G|, degree 2) and sparse parity
(Edelman Thm 7.8: one dense block of ±1 inputs, degree k). Inputs are index tensors ``(n, k)`` (one-hot
blocks, never materialised: :math:`\langle U_{s,i,j}, e_a\rangle = U_{s,i,j,a}` is a gather) or dense float
tensors ``(n, k, d)``. The network is :math:`\nu`-homogeneous, :math:`\nu = \mathrm{deg} + 1`, and normalised
by :math:`\|\theta\|_{2,\nu}^\nu = \sum_i \|\theta_i\|_2^\nu` (Shi Def C.2; Edelman Sec 1.4).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import torch

from numerics.margins import HomogeneousNetwork
from verify.runtime.loop import stack_seeds

__all__ = [
    "HomogeneousEnsemble",
    "as_input_tensor",
    "init_weights",
    "int_power",
    "logits",
    "preactivations",
    "seed_logit_chunks",
    "table_rows",
    "weights_table",
]


def init_weights(
    seed: int, width: int, n_blocks: int, block_size: int, n_classes: int, init_std: float | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Initial weights of one network: every entry i.i.d. :math:`N(0, \sigma^2)`, :math:`\sigma` = ``init_std``
    (default :math:`1/\sqrt{d}`, d = ``block_size``: N(0, 1/p) for one-hot blocks of size p, N(0, 1/d) for
    dense inputs of dimension d).

    The values come from a private ``torch.Generator`` seeded with ``seed`` and are drawn in float64 on the
    CPU (U first, then W), so a seed gives the same network whatever the ensemble, device or training dtype.

    Returns
    -------
    (U, W) : float64 CPU tensors of shapes (width, n_blocks, block_size) and (width, n_classes).
    """
    std = 1.0 / math.sqrt(block_size) if init_std is None else float(init_std)
    if not (std >= 0 and math.isfinite(std)):
        raise ValueError(f"init_std must be a finite non-negative number, got {init_std!r}")
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    U = torch.randn((width, n_blocks, block_size), generator=gen, dtype=torch.float64) * std
    W = torch.randn((width, n_classes), generator=gen, dtype=torch.float64) * std
    return U, W


def as_input_tensor(inputs: np.ndarray | torch.Tensor, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """Index inputs -> int64 tensor on ``device``; dense inputs -> ``dtype`` tensor on ``device``."""
    t = torch.as_tensor(inputs)
    if t.dtype.is_floating_point:
        return t.to(device=device, dtype=dtype)
    if t.dtype == torch.bool or t.dtype.is_complex:
        raise TypeError(f"inputs must be integer indices or real floats, got {t.dtype}")
    return t.to(device=device, dtype=torch.int64)


def _is_dense(inputs: torch.Tensor, k: int, d: int) -> bool:
    """Whether ``inputs`` are dense floats (n, k, d) rather than integer indices (n, k); a ValueError for neither."""
    if inputs.ndim == 2 and not inputs.dtype.is_floating_point:
        if inputs.shape[1] != k:
            raise ValueError(f"index inputs must have shape (n, k = {k}), got {tuple(inputs.shape)}")
        return False
    if inputs.ndim == 3 and inputs.dtype.is_floating_point:
        if tuple(inputs.shape[1:]) != (k, d):
            raise ValueError(f"dense inputs must have shape (n, k = {k}, d = {d}), got {tuple(inputs.shape)}")
        return True
    raise ValueError(
        f"inputs must be integer indices (n, k) or dense floats (n, k, d); got shape {tuple(inputs.shape)} dtype {inputs.dtype}"
    )


def weights_table(U: torch.Tensor, dense: bool) -> torch.Tensor:
    """U (S, m, k, d) as the forward passes read it: the ((k, d), (S, m)) gather table of index inputs, a contiguous
    copy (the reshape alone is a strided view, whose rows ``embedding_bag`` reads several times slower), or
    (S, m, k d) for dense inputs (a view)."""
    S, m, k, d = U.shape
    return U.reshape(S, m, k * d) if dense else U.permute(2, 3, 0, 1).reshape(k * d, S * m).contiguous()


def table_rows(inputs: torch.Tensor, block_size: int) -> torch.Tensor:
    """Index inputs (n, k) as rows of :func:`weights_table`'s (k d)-row table: symbol a_j of block j is row
    j d + a_j.

    >>> table_rows(torch.tensor([[0, 1], [2, 3]]), 4).tolist()
    [[0, 5], [2, 7]]
    """
    return inputs + torch.arange(inputs.shape[1], device=inputs.device) * block_size


def _preactivations_of(
    table: torch.Tensor, inputs: torch.Tensor, dense: bool, block_size: int, seeds: int
) -> torch.Tensor:
    """:func:`preactivations` from :func:`weights_table`'s ``table`` of ``seeds`` networks, shape (S, n, m)."""
    n = inputs.shape[0]
    if dense:
        return torch.matmul(inputs.reshape(n, -1).to(table.dtype), table.transpose(1, 2))
    summed = torch.nn.functional.embedding_bag(
        table_rows(inputs, block_size), table, mode="sum"
    )  # (n, S*m): Σ_j rows, no (n, k, ...) tensor
    return summed.view(n, seeds, -1).transpose(0, 1)


def preactivations(U: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    r""":math:`S_{s,n,i} = \sum_j \langle U_{s,i,j}, x_{n,j}\rangle` for batched blocks U (S, m, k, d); shape (S, n, m).

    Index inputs ``(n, k)`` are gathered and summed from ``U`` viewed as a ((k, d), (S, m)) table by one
    ``embedding_bag(mode="sum")`` (no one-hot tensor and no (n, k, S, m) intermediate; the result is a
    transposed view); dense inputs ``(n, k, d)`` use one batched matrix product.
    """
    dense = _is_dense(inputs, U.shape[2], U.shape[3])
    return _preactivations_of(weights_table(U, dense), inputs, dense, U.shape[3], U.shape[0])


def int_power(P: torch.Tensor, e: int) -> torch.Tensor:
    """P^e (e >= 1) by repeated squaring: element-wise products only (torch's ``pow`` calls the libm power for
    exponents other than 2 and 3, several times slower). The training step's forward pass
    (:mod:`verify.train.polynomial_step`) and the evaluation (:func:`logits`) multiply the same factors in the same
    order.

    >>> int_power(torch.tensor([2.0, -3.0]), 5).tolist()
    [32.0, -243.0]
    """
    if e < 1:
        raise ValueError(f"the exponent must be a positive integer, got {e!r}")
    if e == 1:
        return P
    half = int_power(P * P, e // 2)
    return half * P if e % 2 else half


def logits(U: torch.Tensor, W: torch.Tensor, degree: int, inputs: torch.Tensor) -> torch.Tensor:
    r"""Batched network outputs :math:`F_{s,n,c} = \sum_i S_{s,n,i}^{\mathrm{deg}} W_{s,i,c}`, shape (S, n, C)."""
    return torch.bmm(int_power(preactivations(U, inputs), degree), W)


def seed_logit_chunks(
    U: torch.Tensor, W: torch.Tensor, degree: int, inputs: torch.Tensor, rows: int
) -> Iterator[tuple[int, int, torch.Tensor]]:
    r""":func:`logits` one seed and ``rows`` inputs at a time: yields ``(s, start, F)``, F of shape (c, C) the outputs
    of seed s on ``inputs[start : start + c]``, seed by seed. Each seed's table is built once, contiguous; with small
    chunks on the CPU this ran about 6 times faster than all seeds at once over a strided table in 64 MiB chunks at
    Shi Fig. 4.1's k = 5 shapes (``benchmarks/bench_eval_chunks.py``, docs/benchmarks.md).

    >>> U, W = torch.ones(2, 3, 2, 4, dtype=torch.float64), torch.ones(2, 3, 1, dtype=torch.float64)
    >>> x = torch.tensor([[0, 1], [2, 3], [1, 1]])
    >>> [(s, start, F.tolist()) for s, start, F in seed_logit_chunks(U, W, 2, x, rows=2)][:2]
    [(0, 0, [[12.0], [12.0]]), (0, 2, [[12.0]])]
    """
    if rows < 1:
        raise ValueError(f"rows must be at least 1, got {rows!r}")
    S, _, k, d = U.shape
    dense = _is_dense(inputs, k, d)
    for s in range(S):
        table = weights_table(U[s : s + 1], dense)
        for start in range(0, inputs.shape[0], rows):
            P = _preactivations_of(table, inputs[start : start + rows], dense, d, 1)[0]
            yield s, start, int_power(P, degree) @ W[s]


class HomogeneousEnsemble(torch.nn.Module):
    r"""S independent polynomial networks of width m stored as batched parameters.

    Parameters
    ----------
    U : tensor, shape (S, m, k, d)
        Input blocks :math:`u_{s,i,j}`.
    W : tensor, shape (S, m, C)
        Output weights :math:`w_{s,i}`.
    degree : int
        Exponent of the activation :math:`z^{\mathrm{deg}}` (= k for modular addition, Shi Eq. 4.2).

    Notes
    -----
    Seeds never interact: the forward pass of seed s reads only ``U[s]`` and ``W[s]``, so the gradient of a
    sum of per-seed losses is, seed by seed, the gradient of that seed's own loss.
    """

    def __init__(self, U: torch.Tensor, W: torch.Tensor, degree: int) -> None:
        super().__init__()
        if U.ndim != 4 or W.ndim != 3 or U.shape[:2] != W.shape[:2]:
            raise ValueError(
                f"expected U of shape (S, m, k, d) and W of shape (S, m, C); got {tuple(U.shape)} and {tuple(W.shape)}"
            )
        if U.dtype != W.dtype or not U.dtype.is_floating_point:
            raise ValueError(f"U and W must share one floating dtype, got {U.dtype} and {W.dtype}")
        if int(degree) != degree or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        self.U = torch.nn.Parameter(U)
        self.W = torch.nn.Parameter(W)
        self.degree = int(degree)

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_seeds(
        cls,
        seeds: Sequence[int],
        *,
        width: int,
        n_blocks: int,
        block_size: int,
        n_classes: int,
        degree: int,
        init_std: float | None = None,
        dtype: torch.dtype = torch.float64,
        device: torch.device | str = "cpu",
    ) -> HomogeneousEnsemble:
        """One network per seed, each initialised by :func:`init_weights` from its own generator."""
        seeds = [int(s) for s in seeds]
        if not seeds:
            raise ValueError("need at least one seed")
        if width < 1:
            raise ValueError(f"width must be >= 1, got {width}")

        def init(seed: int) -> dict[str, torch.Tensor]:
            U, W = init_weights(seed, width, n_blocks, block_size, n_classes, init_std)
            return {"U": U, "W": W}

        weights = stack_seeds(seeds, init, device=device, dtype=dtype)
        return cls(weights["U"], weights["W"], degree)

    @classmethod
    def from_networks(
        cls, nets: Sequence[HomogeneousNetwork], dtype: torch.dtype = torch.float64, device: torch.device | str = "cpu"
    ) -> HomogeneousEnsemble:
        """Stack numpy networks of equal shapes and degree (e.g. ``numerics.modular.construction_network``)."""
        if not nets or len({n.degree for n in nets}) != 1 or len({(n.U.shape, n.W.shape) for n in nets}) != 1:
            raise ValueError("need a non-empty list of networks of equal shapes and degree")
        U = torch.as_tensor(np.stack([n.U for n in nets])).to(device=device, dtype=dtype)
        W = torch.as_tensor(np.stack([n.W for n in nets])).to(device=device, dtype=dtype)
        return cls(U, W, nets[0].degree)

    # ------------------------------------------------------------------ shapes

    @property
    def n_seeds(self) -> int:
        return self.U.shape[0]

    @property
    def width(self) -> int:
        return self.U.shape[1]

    @property
    def n_blocks(self) -> int:
        return self.U.shape[2]

    @property
    def block_size(self) -> int:
        return self.U.shape[3]

    @property
    def n_classes(self) -> int:
        return self.W.shape[2]

    @property
    def homogeneity(self) -> int:
        r""":math:`\nu = \mathrm{deg} + 1`."""
        return self.degree + 1

    # ------------------------------------------------------------------ computation

    def preactivations(self, inputs: torch.Tensor) -> torch.Tensor:
        r""":math:`S_{s,n,i} = \sum_j \langle U_{s,i,j}, x_{n,j}\rangle`, shape (S, n, m) (see :func:`preactivations`)."""
        return preactivations(self.U, inputs)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Logits of every seed, shape (S, n, C)."""
        return logits(self.U, self.W, self.degree, inputs)

    def neuron_norms_squared(self) -> torch.Tensor:
        r""":math:`\|\theta_{s,i}\|_2^2`, shape (S, m)."""
        return self.U.square().sum(dim=(2, 3)) + self.W.square().sum(dim=2)

    def neuron_norms(self) -> torch.Tensor:
        r""":math:`\|\theta_{s,i}\|_2`, shape (S, m)."""
        return self.neuron_norms_squared().sqrt()

    def norm_power(self) -> torch.Tensor:
        r""":math:`\|\theta_s\|_{2,\nu}^\nu = \sum_i \|\theta_{s,i}\|_2^\nu`, shape (S,).

        Computed as :math:`(\|\theta_i\|^2)^{\nu/2}`, which is differentiable at a zero neuron for
        :math:`\nu \ge 2` (no square root).
        """
        return self.neuron_norms_squared().pow(self.homogeneity / 2).sum(dim=1)

    # ------------------------------------------------------------------ export

    def network(self, s: int) -> HomogeneousNetwork:
        """Seed index ``s`` (position in the ensemble) as a float64 numpy :class:`HomogeneousNetwork` copy."""
        U = self.U[s].detach().to("cpu", torch.float64).numpy().copy()
        W = self.W[s].detach().to("cpu", torch.float64).numpy().copy()
        return HomogeneousNetwork(U, W, self.degree)

    def networks(self) -> list[HomogeneousNetwork]:
        """Every seed as a float64 numpy :class:`HomogeneousNetwork` (independent copies)."""
        return [self.network(s) for s in range(self.n_seeds)]

    def extra_repr(self) -> str:
        S, m, k, d = self.U.shape
        return f"seeds={S}, width={m}, blocks={k}x{d}, classes={self.n_classes}, degree={self.degree}, dtype={self.U.dtype}"
