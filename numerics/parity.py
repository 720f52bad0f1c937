r"""Sparse parity in float64: the dataset as a :class:`numerics.margins.Task`, and the networks of
Edelman Thm 7.8 / App. D.7 as :class:`numerics.margins.HomogeneousNetwork`.

Shapes: a parity network has ``U (m, 1, n)`` (one dense input block of n bits), ``W (m, 2)`` and
``degree = k``; column 0 of W is the logit of :math:`y=\chi_S(x)=+1`, column 1 that of :math:`y=-1`
(so label 0 means :math:`\chi_S=+1`, label 1 means :math:`\chi_S=-1`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from theory import parity as tp
from theory._checks import InputError, LimitError, check_positive_int, format_count
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation, check_real, check_seed
from .margins import _NETWORK_DOC, HomogeneousNetwork

__all__ = [
    "MAX_BITS",
    "SparseParityTask",
    "check_bits",
    "construction_network",
    "network_from_neurons",
    "optimal_neuron_network",
    "random_network",
]

MAX_BITS = 26
"""Largest n accepted by :class:`SparseParityTask` (2^26 points; evaluation streams, training loads all)."""

#: Parameters and Returns sections shared by several docstrings of this module, with the network Returns of
#: :mod:`numerics.margins` (filled in by :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    **_NETWORK_DOC,
    "support": """n : int
    Number of bits.
support : sequence of int
    S, k distinct indices in ``0..n-1``.""",
    "returns_network": """Returns
-------
HomogeneousNetwork
    ``U`` (width, 1, n), ``W`` (width, 2), degree k.""",
}


def check_bits(n: object) -> int:
    """Validate the number of bits ``1 <= n <= MAX_BITS`` of a :class:`SparseParityTask` (before anything of size
    n or 2^n is formed).

    Parameters
    ----------
    n : object
        The number of bits to check.

    Returns
    -------
    int
        ``n`` as an int.

    Examples
    --------
    >>> check_bits(10)
    10
    >>> check_bits(27)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 27 is too large: the cube has 2^n = 134,217,728 points, above the limit 2^26 ...
    """
    n = check_positive_int(n, "n", hypothesis=f"{tp.SOURCE}: the number of input bits n >= 1")
    if n > MAX_BITS:
        points = format_count(2**n) if n < 64 else f"2^{format_count(n)}"  # never form 2^n for a huge n
        raise LimitError(
            f"n = {format_count(n)} is too large: the cube has 2^n = {points} points, above the limit 2^{MAX_BITS} "
            f"(at most n = {MAX_BITS} is supported); theory.parity.max_margin(k) gives gamma* independently of n",
            param="n",
            value=n,
            limit=MAX_BITS,
        )
    return n


def _check_network_memory(width: int, n: int) -> None:
    check_allocation(  # one neuron first: a huge n is the fault of n, not of the width
        array_bytes(n + 2),
        param="n",
        value=n,
        what=f"one neuron with n + 2 = {format_count(n + 2)} float64 weights",
        hint="a parity network on this many bits does not fit; theory.parity gives the closed forms",
    )
    check_allocation(
        array_bytes(width, n + 2),
        param="width",
        value=width,
        what=f"a network of {format_count(width)} neurons with n + 2 = {n + 2} float64 weights each",
        hint="use fewer neurons",
    )


@dataclass(frozen=True)
class SparseParityTask:
    r"""(n, S)-sparse parity on all of :math:`\{\pm1\}^n` (Edelman Thm 7.8; S is WLOG the first k bits by symmetry).

    Point i has bits :math:`x_j = 1 - 2((i\gg j)\,\&\,1)` (the order of :func:`theory.parity.cube`);
    inputs are dense float blocks of shape ``(N, 1, n)``; label 0 for :math:`\chi_S(x)=+1`, 1 for -1.

    Parameters
    ----------
    n : int
        Number of bits, ``1 <= n <= MAX_BITS``.
    support : sequence of int
        S, k distinct 0-based indices in ``0..n-1`` (stored sorted).

    Examples
    --------
    >>> task = SparseParityTask(3, (2, 0))
    >>> task.support, task.k, task.n_points
    ((0, 2), 2, 8)
    >>> x, y = task.batch(0, 8)
    >>> x.shape, y.tolist()  # label 1 where x_0 x_2 = -1
    ((8, 1, 3), [0, 1, 0, 1, 1, 0, 1, 0])
    """

    n: int
    support: tuple[int, ...]
    n_classes: int = 2
    n_blocks: int = 1

    def __post_init__(self) -> None:
        check_bits(self.n)
        n, S = tp.check_support(self.n, self.support)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "support", S)
        if self.n_classes != 2 or self.n_blocks != 1:
            raise ValueError("sparse parity has 2 classes and 1 input block")

    @property
    def k(self) -> int:
        return len(self.support)

    @property
    def n_points(self) -> int:
        return 2**self.n

    @property
    def block_size(self) -> int:
        return self.n

    def points(self, start: int, stop: int) -> np.ndarray:
        """Points ``start..stop-1`` of the cube as a float array (n_pts, n) of +-1."""
        if not (0 <= start <= stop <= self.n_points):
            raise ValueError(f"need 0 <= start <= stop <= {self.n_points}, got {start}, {stop}")
        check_allocation(
            array_bytes(stop - start, 2 * self.n + 1), param="stop", value=stop, what="the batch of cube points"
        )
        idx = np.arange(start, stop, dtype=np.int64)
        bits = (idx[:, None] >> np.arange(self.n)[None, :]) & 1
        return 1.0 - 2.0 * bits

    def chi(self, x: np.ndarray) -> np.ndarray:
        r""":math:`\chi_S(x)=\prod_{j\in S}x_j` for points x of shape (n_pts, n)."""
        return np.prod(x[:, list(self.support)], axis=1)

    def batch(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Dense inputs ``(n_pts, 1, n)`` and labels (0 for chi_S = +1, 1 for -1) of points ``start..stop-1``."""
        x = self.points(start, stop)
        return x[:, None, :], (self.chi(x) < 0).astype(np.int64)


@fill_doc(_DOC)
def network_from_neurons(neurons: Sequence[tp.ParityNeuron], k: int, width: int | None = None) -> HomogeneousNetwork:
    """Float64 :class:`HomogeneousNetwork` of exact theory neurons, zero-padded to ``width``.

    Parameters
    ----------
    neurons : sequence of theory.parity.ParityNeuron
        At least one neuron, all with the same n.
    k : int
        The degree of the network (the parity order).
    width : int, optional
        Number of neurons after zero padding (default ``len(neurons)``).

    {{returns_network}}

    Examples
    --------
    >>> from theory import parity as tp
    >>> net = network_from_neurons([tp.optimal_neuron(4, [0, 1])], 2, width=3)
    >>> net.U.shape, net.W.shape, net.degree
    ((3, 1, 4), (3, 2), 2)
    >>> net.U[:, 0].round(6).tolist()
    [[0.57735, 0.57735, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    """
    if isinstance(neurons, (str, bytes)) or not isinstance(neurons, Sequence):
        raise InputError(
            f"neurons must be a sequence of theory.parity.ParityNeuron, got {neurons!r:.80}", param="neurons"
        )
    if not neurons:
        raise InputError("need at least one neuron", param="neurons")
    if not all(isinstance(nr, tp.ParityNeuron) for nr in neurons):
        raise InputError("neurons must be theory.parity.ParityNeuron objects", param="neurons")
    n = len(neurons[0].u)
    if any(len(nr.u) != n or len(nr.w) != 2 for nr in neurons):
        raise InputError(f"every neuron needs n = {n} input weights and 2 output weights", param="neurons")
    k = tp.check_nk(n, k)[1]
    m = len(neurons) if width is None else check_positive_int(width, "width")
    if m < len(neurons):
        raise InputError(f"width {m} is below the number of neurons {len(neurons)}", param="width")
    _check_network_memory(m, n)
    U = np.zeros((m, 1, n))
    W = np.zeros((m, 2))
    for i, nr in enumerate(neurons):
        U[i, 0] = [float(v) for v in nr.u]
        W[i] = [float(v) for v in nr.w]
    return HomogeneousNetwork(U, W, k)


@fill_doc(_DOC)
def construction_network(n: int, support: Sequence[int], width: int | None = None) -> HomogeneousNetwork:
    r"""The width-:math:`2^{k-1}` max-margin construction (App. D.7) in float64.

    Built from :func:`theory.parity.construction` (exact entries rounded once); zero-padded to ``width``.
    Its norm power is 1 and its margin is :math:`\gamma^*(k)` at every point.

    Parameters
    ----------
    {{support}}
    width : int, optional
        Zero-pad to this many neurons (at least :math:`2^{k-1}`).

    {{returns_construction}}

    Examples
    --------
    >>> from numerics.margins import evaluate
    >>> from theory import parity as tp
    >>> net = construction_network(6, [0, 1, 2])
    >>> net.width, round(net.norm_power(), 12)
    (4, 1.0)
    >>> r = evaluate(net, SparseParityTask(6, (0, 1, 2)))
    >>> abs(r.min_margin - float(tp.max_margin(3))) < 1e-12, abs(r.max_margin - r.min_margin) < 1e-12
    (True, True)
    """
    c = tp.construction(n, support, width)
    return network_from_neurons(c.neurons, c.k, c.width)


@fill_doc(_DOC)
def optimal_neuron_network(n: int, support: Sequence[int], sigma: Sequence[int] | None = None) -> HomogeneousNetwork:
    r"""The unit optimal neuron of :func:`theory.parity.optimal_neuron` as a width-1 network.

    Parameters
    ----------
    {{support}}
    sigma : sequence of k signs (+1/-1), optional
        Signs of the weights on S (default all +1).

    {{returns_neuron}}

    Examples
    --------
    Its margin averaged over the cube is :math:`\gamma^*(k)` (App. D.7):

    >>> from numerics.margins import evaluate
    >>> from theory import parity as tp
    >>> net = optimal_neuron_network(6, [0, 1, 2])
    >>> net.U[0, 0].round(6).tolist(), net.W[0].round(6).tolist()
    ([0.5, 0.5, 0.5, 0.0, 0.0, 0.0], [0.353553, -0.353553])
    >>> abs(evaluate(net, SparseParityTask(6, (0, 1, 2))).mean_margin - float(tp.max_margin(3))) < 1e-12
    True
    """
    nr = tp.optimal_neuron(n, support, sigma)
    return network_from_neurons([nr], len(tp.check_support(n, support)[1]))


@fill_doc(_DOC)
def random_network(n: int, k: int, width: int, seed: int = 0, scale: float = 1.0) -> HomogeneousNetwork:
    r"""A degree-k parity network with i.i.d. N(0, scale^2) weights (for upper-bound property tests).

    Parameters
    ----------
    n : int
        Number of bits.
    k : int
        Degree (parity order), ``1 <= k <= n``.
    width : int
        Number of neurons, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``.
    scale : float
        Positive standard deviation of the entries.

    {{returns_network}}

    Examples
    --------
    No network beats the max margin :math:`\gamma^*(k)` (Thm 7.8):

    >>> from numerics.margins import normalized_margin
    >>> from theory import parity as tp
    >>> net = random_network(6, 3, 10, seed=0)
    >>> net.U.shape, normalized_margin(net, SparseParityTask(6, (0, 1, 2))) <= float(tp.max_margin(3))
    ((10, 1, 6), True)
    >>> random_network(6, 3, 10, scale=0.0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: scale must be a finite real number > 0, got scale = 0
    """
    seed = check_seed(seed)
    n, k = tp.check_nk(n, k)
    width = check_positive_int(width, "width", hypothesis="number of neurons")
    scale = check_real(scale, "scale", positive=True)  # a float: an int beyond int64 (10**30) is a number
    _check_network_memory(width, n)
    rng = np.random.default_rng(seed)
    return HomogeneousNetwork(rng.standard_normal((width, 1, n)) * scale, rng.standard_normal((width, 2)) * scale, k)
