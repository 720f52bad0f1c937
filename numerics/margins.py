r"""Exact float64 evaluation of margins of homogeneous one-hidden-layer polynomial networks.

One representation serves every task of the toolkit (modular addition, finite groups, sparse parity):

.. math:: f(\theta, x)[c] = \sum_{i=1}^m \Big(\sum_{j=1}^{k} \langle U_{i,j}, x_j\rangle\Big)^{\mathrm{deg}} W_{i,c},

with input blocks :math:`x_j\in\mathbb R^d`. Inputs are passed either as integer indices (one-hot
blocks, shape ``(n, k)``; then :math:`\langle U_{i,j}, x_j\rangle = U_{i,j,a_j}`) or as dense float
blocks (shape ``(n, k, d)``). The network is :math:`\nu`-homogeneous with :math:`\nu = \mathrm{deg}+1`
and is normalized by :math:`\|\theta\|_{2,\nu}^\nu = \sum_i \|\theta_i\|_2^\nu` (Shi Def C.2; Edelman 1.4).

Margins (Shi Defs 4.2, 4.3, 4.6; Edelman 1.5, 2.3):

* point margin :math:`g = f[y] - \max_{c\ne y} f[c]`, dataset margin :math:`h = \min g`,
  normalized margin :math:`h(\theta)/\|\theta\|_{2,\nu}^\nu`;
* class-weighted margin :math:`g' = f[y] - \sum_{c\ne y}\tau(x)[c] f[c]` and its expectation under a
  distribution q over points. Both are carried by one weight array :math:`Q(x, c) = q(x)\tau(x)[c]`
  (zero at the correct label, summing to 1); ``Q=None`` means uniform q and uniform tau.

Memory bound
------------
Every evaluation streams over the dataset in chunks of ``n`` points. A chunk holds the
pre-activations, their power and one squaring temporary (``3 m n`` floats), the logits with two
masked copies and the per-point margins (``about 5 n C``) and the inputs (``n k`` integers), i.e. at
most ``8 n (3m + 5C + k)`` bytes. The chunk size is chosen so this stays below ``memory_budget``
(default 32 MiB) whatever the dataset size ``p^k``; ``benchmarks/bench_margins.py`` measures the peak.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from theory._checks import InputError, check_cost, check_positive_int, format_count
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation, check_real, check_real_array

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "MAX_FORWARD_WORK",
    "HomogeneousNetwork",
    "MarginReport",
    "Task",
    "check_class_weights",
    "check_forward",
    "check_network",
    "check_task",
    "chunk_size_for",
    "class_weighted_point_margins",
    "evaluate",
    "int_power",
    "iter_logits",
    "normalized_margin",
    "point_margins",
]

DEFAULT_MEMORY_BUDGET = 32 * 2**20

MAX_FORWARD_WORK = 10**11
"""Largest forward pass over a whole dataset, in multiply-adds ``N m (k + C)`` (points x neurons x (input blocks +
classes), the count of ``tvk derive --evaluate``): about 15-30 minutes of numpy, 30 times the ``--evaluate auto``
limit of the command line."""

#: Parameters sections shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "logits": """F : np.ndarray, shape (n, C)
    Logits.
labels : np.ndarray, shape (n,)
    Correct labels.""",
}

#: The Returns sections of the network builders of the task modules (:mod:`numerics.modular`,
#: :mod:`numerics.parity`): a max-margin construction and a single optimal neuron, as :class:`HomogeneousNetwork`.
_NETWORK_DOC = {
    "returns_construction": """Returns
-------
HomogeneousNetwork
    The construction, degree k.""",
    "returns_neuron": """Returns
-------
HomogeneousNetwork
    Width 1, degree k, norm 1.""",
}


def check_network(net: object, name: str = "net") -> HomogeneousNetwork:
    """``net`` when it is a :class:`HomogeneousNetwork`; InputError naming ``name`` otherwise.

    Parameters
    ----------
    net : object
        The caller's network.
    name : str, optional
        The parameter, named in the InputError (default ``"net"``).

    Returns
    -------
    HomogeneousNetwork
        ``net``.

    Examples
    --------
    >>> check_network([[1.0]])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: net must be a numerics.margins.HomogeneousNetwork, got [[1.0]]
    """
    if not isinstance(net, HomogeneousNetwork):
        raise InputError(f"{name} must be a numerics.margins.HomogeneousNetwork, got {net!r:.80}", param=name)
    return net


def check_task(task: object, name: str = "task") -> Task:
    """``task`` when it is a :class:`Task` (ModularTask, SparseParityTask, GroupTask, ...); InputError naming
    ``name`` otherwise.

    Parameters
    ----------
    task : object
        The caller's dataset.
    name : str, optional
        The parameter, named in the InputError (default ``"task"``).

    Returns
    -------
    Task
        ``task``.

    Examples
    --------
    >>> check_task("Z_5")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: task must be a numerics.margins.Task (ModularTask, SparseParityTask, GroupTask, ...), got 'Z_5'
    """
    if not isinstance(task, Task):
        raise InputError(
            f"{name} must be a numerics.margins.Task (ModularTask, SparseParityTask, GroupTask, ...), got {task!r:.80}",
            param=name,
        )
    return task


def _labels(labels: object, n: int, n_classes: int, name: str = "labels") -> np.ndarray:
    """Integer labels of shape (n,) in ``range(n_classes)``."""
    if labels is None or isinstance(labels, (str, bytes, bool)):
        raise InputError(f"{name} must be an integer array of shape ({n},), got {labels!r:.80}", param=name)
    try:
        arr = np.asarray(labels)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be an integer array of shape ({n},), got {labels!r:.80}", param=name) from None
    if arr.shape != (n,) or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise InputError(
            f"{name} must be an integer array of shape ({n},) (one label per row of F), got shape {arr.shape} "
            f"and dtype {arr.dtype}",
            param=name,
        )
    if arr.size and (arr.min() < 0 or arr.max() >= n_classes):
        raise InputError(
            f"{name} must lie in range(0, {n_classes}), got values in [{arr.min()}, {arr.max()}]", param=name
        )
    return arr.astype(np.int64, copy=False)


def _logits_array(F: object) -> np.ndarray:
    F = check_real_array(F, "F")
    if F.ndim != 2 or F.shape[1] < 2:
        raise InputError(f"F must be logits of shape (n, C) with C >= 2 classes, got shape {F.shape}", param="F")
    return F


def _forward_work(net: HomogeneousNetwork, task: Task) -> int:
    """Multiply-adds ``N m (k + C)`` of one forward pass of ``net`` over every point of ``task`` (exact int)."""
    return int(task.n_points) * int(net.width) * (int(task.n_blocks) + int(task.n_classes))


def check_forward(net: HomogeneousNetwork, task: Task) -> None:
    """Refuse a forward pass of ``net`` over every point of ``task`` above :data:`MAX_FORWARD_WORK` multiply-adds
    (``N m (k + C)``), naming the task (or the network when it is wider): the check :func:`evaluate` makes first, for
    a caller that announces a long pass only when it will run.

    Parameters
    ----------
    net : HomogeneousNetwork
        The network.
    task : Task
        The dataset.

    Returns
    -------
    None

    Raises
    ------
    theory._checks.LimitError
        The pass is above the limit.

    Examples
    --------
    >>> from numerics.parity import SparseParityTask, construction_network
    >>> check_forward(construction_network(8, (0, 1)), SparseParityTask(8, (0, 1)))
    """
    net, task = check_network(net), check_task(task)
    cost = _forward_work(net, task)
    big_net = net.width > task.n_points
    check_cost(
        cost,
        MAX_FORWARD_WORK,
        param="net" if big_net else "task",
        value=net.width if big_net else task.n_points,
        what=f"the forward pass over every point (N m (k + C) = {format_count(task.n_points)} points x "
        f"{format_count(net.width)} neurons x {int(task.n_blocks) + int(task.n_classes)} multiply-adds)",
        hint="use a smaller task or network, or sample points with task.batch",
    )


@runtime_checkable
class Task(Protocol):
    """A finite, fully enumerated classification dataset (the population the theory is about).

    Attributes
    ----------
    n_points : int
        Number of data points N.
    n_classes : int
        Number of labels C.
    n_blocks, block_size : int
        Input blocks k and their dimension d (a network for the task has ``U.shape == (m, k, d)``).

    Examples
    --------
    Any object with these attributes and a ``batch`` method is a task, e.g. k-input modular addition:

    >>> from numerics.modular import ModularTask
    >>> task = ModularTask(5, 2)
    >>> isinstance(task, Task)
    True
    >>> task.n_points, task.n_classes, task.n_blocks, task.block_size
    (25, 5, 2, 5)
    >>> inputs, labels = task.batch(0, 3)
    >>> inputs.tolist(), labels.tolist()
    ([[0, 0], [0, 1], [0, 2]], [0, 1, 2])
    """

    # Read-only properties: a task may expose them as plain attributes or as computed properties.
    @property
    def n_points(self) -> int: ...

    @property
    def n_classes(self) -> int: ...

    @property
    def n_blocks(self) -> int: ...

    @property
    def block_size(self) -> int: ...

    def batch(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Inputs and labels of points ``start..stop-1`` (inputs as indices ``(n, k)`` or dense ``(n, k, d)``)."""
        ...


def _is_integral(x: numbers.Real) -> bool:
    try:
        return int(x) == x  # type: ignore[call-overload]
    except (ValueError, OverflowError):  # NaN, infinities
        return False


@dataclass(frozen=True)
class HomogeneousNetwork:
    r"""Weights of a homogeneous polynomial network, as neuron blocks (float64).

    Parameters
    ----------
    U : array, shape (m, k, d)
        Input blocks :math:`u_{i,j}`.
    W : array, shape (m, C)
        Output weights :math:`w_i`.
    degree : int
        Exponent of the activation :math:`z^{\mathrm{deg}}`.

    Raises
    ------
    ValueError
        For mismatched shapes, non-finite weights or a degree that is not a positive integer.

    Examples
    --------
    The network is :math:`\nu`-homogeneous: scaling every weight by alpha scales the logits by
    :math:`\alpha^\nu` and the norm power too.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> net = HomogeneousNetwork(rng.standard_normal((4, 2, 3)), rng.standard_normal((4, 3)), degree=2)
    >>> net.width, net.homogeneity
    (4, 3)
    >>> x = np.array([[0, 2], [1, 1]])
    >>> bool(np.allclose(net.scaled(2.0).logits(x), 2.0**3 * net.logits(x)))
    True
    >>> round(net.scaled(2.0).norm_power() / net.norm_power(), 9)
    8.0
    >>> HomogeneousNetwork(np.zeros((2, 1, 3)), np.zeros((3, 3)), degree=1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: expected U of shape (m, k, d) and W of shape (m, C); got (2, 1, 3) and (3, 3)
    """

    U: np.ndarray
    W: np.ndarray
    degree: int

    def __post_init__(self) -> None:
        U = check_real_array(self.U, "U", finite=False)
        W = check_real_array(self.W, "W", finite=False)
        if U.ndim != 3 or W.ndim != 2 or U.shape[0] != W.shape[0]:
            raise InputError(
                f"expected U of shape (m, k, d) and W of shape (m, C); got {U.shape} and {W.shape}",
                param="U" if U.ndim != 3 else "W",
            )
        if not (np.isfinite(U).all() and np.isfinite(W).all()):
            raise InputError("network weights contain NaN or inf", param="U" if not np.isfinite(U).all() else "W")
        degree = self.degree
        if isinstance(degree, bool) or not isinstance(degree, numbers.Real) or not _is_integral(degree) or degree < 1:
            raise InputError(f"degree must be a positive integer, got {degree!r:.80}", param="degree")
        object.__setattr__(self, "U", U)
        object.__setattr__(self, "W", W)
        object.__setattr__(self, "degree", int(self.degree))

    @property
    def width(self) -> int:
        return self.U.shape[0]

    @property
    def homogeneity(self) -> int:
        r""":math:`\nu = \mathrm{deg} + 1`: :math:`f(\alpha\theta) = \alpha^\nu f(\theta)`."""
        return self.degree + 1

    def neuron_norms(self) -> np.ndarray:
        r"""Per-neuron Euclidean norms :math:`\|\theta_i\|_2`, shape (m,)."""
        return np.sqrt(np.einsum("mkd,mkd->m", self.U, self.U) + np.einsum("mc,mc->m", self.W, self.W))

    def norm_power(self) -> float:
        r""":math:`\|\theta\|_{2,\nu}^{\nu} = \sum_i \|\theta_i\|_2^{\nu}`."""
        return float(np.sum(self.neuron_norms() ** self.homogeneity))

    def preactivations(self, inputs: np.ndarray) -> np.ndarray:
        r""":math:`S_{i}(x) = \sum_j \langle U_{i,j}, x_j\rangle`, shape (m, n)."""
        if np.issubdtype(inputs.dtype, np.integer):
            S = np.zeros((self.width, inputs.shape[0]))
            for j in range(inputs.shape[1]):
                S += self.U[:, j, inputs[:, j]]
            return S
        return np.einsum("mkd,nkd->mn", self.U, inputs)

    def logits(self, inputs: np.ndarray) -> np.ndarray:
        """Network outputs for a batch of inputs, shape (n, C)."""
        return _int_power(self.preactivations(inputs), self.degree).T @ self.W

    def scaled(self, alpha: float) -> HomogeneousNetwork:
        """The network with every parameter multiplied by alpha (for homogeneity checks)."""
        return HomogeneousNetwork(self.U * alpha, self.W * alpha, self.degree)

    def subset(self, index: np.ndarray) -> HomogeneousNetwork:
        """The sub-network made of the neurons selected by ``index``."""
        return HomogeneousNetwork(self.U[index], self.W[index], self.degree)

    def nonzero(self) -> HomogeneousNetwork:
        """The sub-network without its zero neurons (they have no direction)."""
        return self.subset(np.flatnonzero(self.neuron_norms() > 0))

    @staticmethod
    def concatenate(nets: list[HomogeneousNetwork]) -> HomogeneousNetwork:
        """Stack the neurons of several networks of equal degree and shapes into one network."""
        if len({n.degree for n in nets}) != 1:
            raise ValueError("cannot concatenate networks of different degrees")
        return HomogeneousNetwork(
            np.concatenate([n.U for n in nets]), np.concatenate([n.W for n in nets]), nets[0].degree
        )


def int_power(S: np.ndarray, degree: int) -> np.ndarray:
    """Elementwise ``S**degree`` for a positive integer degree by repeated squaring in place
    (several times faster than numpy's generic float power for small integer exponents).

    Parameters
    ----------
    S : np.ndarray
        Float array (left unchanged), finite.
    degree : int
        Exponent >= 1.

    Returns
    -------
    np.ndarray
        A new array of the shape of ``S``.

    Raises
    ------
    theory._checks.InputError
        For a degree that is not an integer >= 1 (a negative exponent is not a repeated product), an ``S`` with NaN
        or infinities, or a power that overflows float64 (checked before any product).

    Examples
    --------
    >>> import numpy as np
    >>> int_power(np.array([2.0, -3.0, 0.5]), 3).tolist()
    [8.0, -27.0, 0.125]
    >>> int_power(np.array([2.0]), -2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: degree must be an integer >= 1 (S**degree by repeated squaring), got degree = -2
    """
    degree = check_positive_int(degree, "degree", hypothesis="S**degree by repeated squaring")
    if not isinstance(S, np.ndarray):
        S = check_real_array(S, "S")
    elif S.dtype.kind not in "biuf":
        raise InputError(f"S must be a real array, got dtype {S.dtype}", param="S")
    if S.size:
        big = max(float(S.max()), -float(S.min()))  # two passes, no temporary (NaN propagates)
        if not math.isfinite(big):
            raise InputError("S must be finite (it contains NaN or an infinity)", param="S")
        if big > 1 and degree > math.log(np.finfo(np.float64).max) / math.log(big):  # int vs float: exact
            raise InputError(
                f"S**degree overflows float64: max |S| = {big:.3g}, degree = {format_count(degree)} "
                f"(max |S|^degree is above 1.8e308); rescale S",
                param="degree",
            )
    return _int_power(S, degree)


def _int_power(S: np.ndarray, degree: int) -> np.ndarray:
    """:func:`int_power` without the checks (the forward pass checks its results instead)."""
    result: np.ndarray | None = None
    base = S
    while degree:
        if degree & 1:
            result = base.copy() if result is None else np.multiply(result, base, out=result)
        degree >>= 1
        if degree:
            base = base * base
    assert result is not None
    return result


def _check_compatible(net: HomogeneousNetwork, task: Task) -> None:
    if net.U.shape[1:] != (task.n_blocks, task.block_size) or net.W.shape[1] != task.n_classes:
        raise ValueError(
            f"network shapes U{net.U.shape}, W{net.W.shape} do not fit the task "
            f"(k = {task.n_blocks} blocks of size {task.block_size}, {task.n_classes} classes)"
        )


def chunk_size_for(width: int, n_classes: int, n_blocks: int, memory_budget: int = DEFAULT_MEMORY_BUDGET) -> int:
    """Number of points per chunk so that one chunk uses at most ``memory_budget`` bytes (module doc).

    Parameters
    ----------
    width : int
        Number of neurons m (>= 0).
    n_classes : int
        Number of labels C (>= 1).
    n_blocks : int
        Number of input blocks k (>= 1).
    memory_budget : int
        Bytes allowed per chunk (a finite number; below one point's bytes gives chunks of 1 point).

    Returns
    -------
    int
        ``max(1, memory_budget // (8 (3m + 5C + k)))``.

    Examples
    --------
    >>> chunk_size_for(16, 5, 2)
    55924
    >>> chunk_size_for(16, 5, 2, memory_budget=1000), chunk_size_for(16, 5, 2, memory_budget=10)
    (1, 1)
    """
    width = check_positive_int(width, "width", minimum=0)
    n_classes = check_positive_int(n_classes, "n_classes")
    n_blocks = check_positive_int(n_blocks, "n_blocks")
    budget = _check_budget(memory_budget)
    per_point = 8 * (3 * width + 5 * n_classes + n_blocks)
    return max(1, int(budget // per_point))


def _check_budget(memory_budget: object) -> float | int:
    """A memory budget in bytes: an int, or a finite real number."""
    if isinstance(memory_budget, numbers.Integral) and not isinstance(memory_budget, bool):
        return int(memory_budget)
    return check_real(memory_budget, "memory_budget")


def iter_logits(
    net: HomogeneousNetwork, task: Task, chunk_size: int | None = None, memory_budget: int = DEFAULT_MEMORY_BUDGET
) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Stream ``(start, inputs, labels, logits)`` over the whole dataset in bounded-memory chunks.

    The arguments and the size of the pass (:data:`MAX_FORWARD_WORK`) are checked when the function is called, before
    the first chunk.

    Parameters
    ----------
    net : HomogeneousNetwork
        A network whose shapes fit the task.
    task : Task
        The dataset.
    chunk_size : int, optional
        Points per chunk (>= 1); None = :func:`chunk_size_for` the ``memory_budget``.
    memory_budget : int
        Bytes allowed per chunk when ``chunk_size`` is None.

    Returns
    -------
    Iterator
        Yields ``(start, inputs, labels, logits)``: the index of the chunk's first point, the chunk's inputs, its
        labels (n,) and logits (n, C).

    Examples
    --------
    The construction of ``theory.modular.construction`` has logits (p 1[c = sum a] - 1)/2:

    >>> from numerics.modular import ModularTask, construction_network
    >>> net, task = construction_network(5, 2), ModularTask(5, 2)
    >>> [(start, F.shape) for start, _, _, F in iter_logits(net, task, chunk_size=10)]
    [(0, (10, 5)), (10, (10, 5)), (20, (5, 5))]
    >>> start, inputs, labels, F = next(iter_logits(net, task))
    >>> inputs[1].tolist(), int(labels[1]), F[1].round(9).tolist()
    ([0, 1], 1, [-0.5, 2.0, -0.5, -0.5, -0.5])
    """
    net, task = check_network(net), check_task(task)
    _check_compatible(net, task)
    check_forward(net, task)
    if chunk_size is not None:
        # 0 or a negative size would skip every point (min_margin = inf)
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, numbers.Integral) or chunk_size < 1:
            raise InputError(
                f"chunk_size must be >= 1 (an integer number of points), got {chunk_size!r:.80}", param="chunk_size"
            )
        n = int(chunk_size)
        name, value = "chunk_size", n
    else:
        n = chunk_size_for(net.width, task.n_classes, task.n_blocks, memory_budget)
        name, value = "memory_budget", memory_budget
    rows = min(n, int(task.n_points))
    check_allocation(
        array_bytes(rows, 3 * net.width + 5 * task.n_classes + task.n_blocks),
        param=name,
        value=value,
        what=f"one chunk of {format_count(rows)} points (pre-activations, logits and inputs in float64)",
        hint="use a smaller chunk_size or memory_budget",
    )
    return _iter_logits(net, task, n)


def _iter_logits(
    net: HomogeneousNetwork, task: Task, n: int
) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    for start in range(0, task.n_points, n):
        inputs, labels = task.batch(start, min(start + n, task.n_points))
        yield start, inputs, labels, net.logits(inputs)


@fill_doc(_DOC)
def point_margins(F: np.ndarray, labels: np.ndarray) -> np.ndarray:
    r"""Multi-class margins :math:`g = F[y] - \max_{c\ne y}F[c]` for a batch of logits F (n, C).

    Parameters
    ----------
    {{logits}}

    Returns
    -------
    np.ndarray, shape (n,)
        The point margins (negative where a wrong label wins).

    Examples
    --------
    >>> import numpy as np
    >>> F = np.array([[3.0, 1.0, 2.0], [0.0, 4.0, 4.0]])
    >>> point_margins(F, np.array([0, 1])).tolist()
    [1.0, 0.0]
    """
    F = _logits_array(F)
    return _point_margins(F, _labels(labels, F.shape[0], F.shape[1]))


def _point_margins(F: np.ndarray, labels: np.ndarray) -> np.ndarray:
    rows = np.arange(F.shape[0])
    correct = F[rows, labels]
    masked = F.copy()
    masked[rows, labels] = -np.inf
    return correct - masked.max(axis=1)


@fill_doc(_DOC)
def class_weighted_point_margins(F: np.ndarray, labels: np.ndarray, tau: np.ndarray | None = None) -> np.ndarray:
    r"""Class-weighted margins :math:`g' = F[y] - \sum_{c\ne y}\tau[c]F[c]` (Shi Def 4.6).

    ``tau`` has shape (n, C) with rows summing to 1 over the wrong labels; None means uniform.

    Parameters
    ----------
    {{logits}}
    tau : np.ndarray, shape (n, C), optional
        Weights of the wrong labels (the entry at the correct label is ignored); None = uniform.

    Returns
    -------
    np.ndarray, shape (n,)
        The class-weighted margins (at least the point margins of :func:`point_margins`).

    Examples
    --------
    >>> import numpy as np
    >>> F = np.array([[3.0, 1.0, 2.0], [0.0, 4.0, 4.0]])
    >>> labels = np.array([0, 1])
    >>> class_weighted_point_margins(F, labels).tolist()
    [1.5, 2.0]
    >>> tau = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    >>> class_weighted_point_margins(F, labels, tau).tolist()
    [1.0, 4.0]
    """
    F = _logits_array(F)
    labels = _labels(labels, F.shape[0], F.shape[1])
    if tau is not None:
        tau = check_real_array(tau, "tau")
        if tau.shape != F.shape:
            raise InputError(f"tau must have the shape of F {F.shape}, got {tau.shape}", param="tau")
    return _class_weighted_point_margins(F, labels, tau)


def _class_weighted_point_margins(F: np.ndarray, labels: np.ndarray, tau: np.ndarray | None = None) -> np.ndarray:
    rows = np.arange(F.shape[0])
    correct = F[rows, labels]
    if tau is None:
        return correct - (F.sum(axis=1) - correct) / (F.shape[1] - 1)
    tau = tau.copy()
    tau[rows, labels] = 0.0
    return correct - np.einsum("nc,nc->n", tau, F)


def check_class_weights(Q: np.ndarray, task: Task, atol: float = 1e-9) -> np.ndarray:
    """Validate a weight array Q(x, c) = q(x) tau(x)[c]: shape (N, C), non-negative, zero at the
    correct labels, total mass 1. Returns it as float64.

    Parameters
    ----------
    Q : array_like, shape (N, C)
        Candidate class weights.
    task : Task
        The dataset (its labels locate the entries that must vanish).
    atol : float
        Tolerance for negative entries and for the entries at the correct labels.

    Returns
    -------
    np.ndarray, shape (N, C)
        ``Q`` as float64, clipped at 0.

    Raises
    ------
    theory._checks.InputError
        A ValueError naming ``Q``: for a wrong shape, a negative or non-finite entry, a total mass other than 1, or
        mass at a correct label.

    Examples
    --------
    Uniform q and tau on k = 1 modular addition (each point's label is its input):

    >>> import numpy as np
    >>> from numerics.modular import ModularTask
    >>> task = ModularTask(3, 1)
    >>> Q = (1 - np.eye(3)) / 6
    >>> round(float(check_class_weights(Q, task).sum()), 12)
    1.0
    >>> check_class_weights(np.full((3, 3), 1 / 9), task)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: class weights must vanish at the correct label of every point
    """
    task = check_task(task)
    atol = check_real(atol, "atol", nonnegative=True)
    Q = check_real_array(Q, "Q", finite=False)
    if Q.shape != (task.n_points, task.n_classes):
        raise InputError(
            f"class weights must have shape (N, C) = {(task.n_points, task.n_classes)}, got {Q.shape}", param="Q"
        )
    if not np.isfinite(Q).all() or (-atol > Q).any():
        raise InputError("class weights must be finite and non-negative", param="Q")
    if abs(Q.sum() - 1.0) > 1e-6:
        raise InputError(
            f"class weights must sum to 1 (a distribution over (point, wrong label)), got {Q.sum()}", param="Q"
        )
    _, labels = task.batch(0, task.n_points)
    if np.abs(Q[np.arange(task.n_points), labels]).max() > atol:
        raise InputError("class weights must vanish at the correct label of every point", param="Q")
    return np.clip(Q, 0.0, None)


@dataclass(frozen=True)
class MarginReport:
    """Margins of a network over a whole dataset (float64, one streaming pass).

    Attributes
    ----------
    min_margin : float
        h(theta) = min over points of the multi-class margin.
    max_margin : float
        The largest point margin (equal to ``min_margin`` when every point is on the margin).
    mean_margin : float
        Uniform average of the point margins.
    class_weighted : float
        E_Q[g'] (uniform q and tau when Q is None).
    accuracy : float
        Share of points whose correct logit is strictly the largest.
    norm_power : float
        ||theta||_{2,nu}^nu.
    wrong_logit_spread : float
        Max over points of (largest - smallest wrong logit); 0 iff all wrong logits are equal.
    argmin : int
        Index of a point attaining the minimum margin.
    n_points : int
        Number of data points N.

    Examples
    --------
    >>> from numerics.modular import ModularTask, construction_network
    >>> report = evaluate(construction_network(3, 1), ModularTask(3, 1))
    >>> round(report.min_margin, 9), report.accuracy, report.n_points
    (1.5, 1.0, 3)
    >>> report.normalized_margin <= report.normalized_class_weighted * (1 + 1e-12)
    True
    """

    min_margin: float
    max_margin: float
    mean_margin: float
    class_weighted: float
    accuracy: float
    norm_power: float
    wrong_logit_spread: float
    argmin: int
    n_points: int = field(default=0)

    def _per_norm_power(self, value: float) -> float:
        r"""``value`` divided by :math:`\|\theta\|_{2,\nu}^\nu` (``norm_power``); ValueError on the zero network
        (``norm_power <= 0``), which has no normalized margin."""
        if self.norm_power <= 0:
            raise ValueError("the zero network has no normalized margin")
        return value / self.norm_power

    @property
    def normalized_margin(self) -> float:
        r""":math:`h(\theta)/\|\theta\|_{2,\nu}^\nu`; raises on the zero network."""
        return self._per_norm_power(self.min_margin)

    @property
    def normalized_class_weighted(self) -> float:
        r""":math:`E_Q[g']/\|\theta\|_{2,\nu}^\nu` (an upper bound on the normalized margin)."""
        return self._per_norm_power(self.class_weighted)


def evaluate(
    net: HomogeneousNetwork,
    task: Task,
    Q: np.ndarray | None = None,
    chunk_size: int | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> MarginReport:
    """Margins, class-weighted margin, accuracy and wrong-logit spread of ``net`` over all of ``task``.

    Parameters
    ----------
    net : HomogeneousNetwork
        A network whose shapes fit the task.
    task : Task
        The dataset, enumerated completely.
    Q : array (N, C), optional
        Class weights q(x) tau(x)[c] (see :func:`check_class_weights`); None = uniform q and tau.
    chunk_size, memory_budget :
        Streaming controls; see the module's memory bound.

    Returns
    -------
    MarginReport

    Examples
    --------
    The construction of Shi Lemma C.18 attains the maximum normalized margin of
    :func:`theory.modular.max_margin` (Thm 4.9), with every point on the margin:

    >>> from numerics.modular import ModularTask, construction_network
    >>> from theory.modular import max_margin
    >>> report = evaluate(construction_network(5, 2), ModularTask(5, 2))
    >>> round(report.min_margin, 9), round(report.max_margin, 9), report.accuracy
    (2.5, 2.5, 1.0)
    >>> abs(report.normalized_margin - float(max_margin(5, 2))) < 1e-12
    True
    """
    chunks = iter_logits(net, task, chunk_size, memory_budget)  # checks net, task, the sizes (before any work)
    if task.n_points < 1:
        raise InputError("task has no points: the margins of an empty dataset are undefined", param="task")
    if Q is not None:
        Q = check_class_weights(Q, task)
    h, hmax, total, cw, correct_count, spread, argmin = np.inf, -np.inf, 0.0, 0.0, 0, 0.0, 0
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below, not warned about
        for start, _, labels, F in chunks:
            g = _point_margins(F, labels)
            i = int(np.argmin(g))
            if g[i] < h:
                h, argmin = float(g[i]), start + i
            hmax = max(hmax, float(g.max()))
            total += float(g.sum())
            correct_count += int((g > 0).sum())
            rows = np.arange(F.shape[0])
            masked_hi = F.copy()
            masked_hi[rows, labels] = -np.inf
            masked_lo = F.copy()
            masked_lo[rows, labels] = np.inf
            spread = max(spread, float((masked_hi.max(1) - masked_lo.min(1)).max()))
            if Q is None:
                cw += float(_class_weighted_point_margins(F, labels).sum()) / task.n_points
            else:
                Qc = Q[start : start + F.shape[0]]
                q = Qc.sum(axis=1)
                cw += float(q @ F[rows, labels] - np.einsum("nc,nc->", Qc, F))
        norm_power = net.norm_power()
    if not all(math.isfinite(v) for v in (h, hmax, total, cw, spread, norm_power)):
        raise InputError(
            "the logits or the norm of net overflow float64 (weights too large for this degree); rescale the "
            "network (the normalized margin does not depend on the scale)",
            param="net",
        )
    if norm_power < np.finfo(float).tiny and (np.any(net.U) or np.any(net.W)):  # not the zero network: underflow
        raise InputError(
            f"the norm of net underflows float64 (weights too small for this degree: ||theta||^nu = {norm_power:.3g}); "
            "rescale the network (the normalized margin does not depend on the scale)",
            param="net",
        )
    return MarginReport(
        min_margin=h,
        max_margin=hmax,
        mean_margin=total / task.n_points,
        class_weighted=cw,
        accuracy=correct_count / task.n_points,
        norm_power=norm_power,
        wrong_logit_spread=spread,
        argmin=argmin,
        n_points=task.n_points,
    )


def normalized_margin(net: HomogeneousNetwork, task: Task, **kwargs: Any) -> float:
    r"""Shortcut for ``evaluate(net, task).normalized_margin`` = :math:`h(\theta)/\|\theta\|_{2,\nu}^\nu`.

    Parameters
    ----------
    net : HomogeneousNetwork
        A non-zero network whose shapes fit the task.
    task : Task
        The dataset.
    **kwargs
        Passed to :func:`evaluate` (``Q``, ``chunk_size``, ``memory_budget``).

    Returns
    -------
    float
        The normalized margin (invariant under scaling of the weights).

    Examples
    --------
    >>> from numerics.modular import ModularTask, construction_network
    >>> from theory.modular import max_margin
    >>> net, task = construction_network(3, 2), ModularTask(3, 2)
    >>> abs(normalized_margin(net, task) - float(max_margin(3, 2))) < 1e-12
    True
    >>> abs(normalized_margin(net.scaled(3.0), task, chunk_size=4) - normalized_margin(net, task)) < 1e-12
    True
    """
    return evaluate(net, task, **kwargs).normalized_margin
