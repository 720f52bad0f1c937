r"""The single-neuron class-weighted max-margin problem, for any task and activation degree.

For one neuron :math:`\theta = (U, w)` with input blocks :math:`U_j\in\mathbb R^d` (j = 1..k) and output
weights :math:`w\in\mathbb R^C`, and class weights :math:`Q(x,c) = q(x)\tau(x)[c]` (zero at the correct
label, total mass 1), the class-weighted margin of the neuron is (Shi thesis Def C.12-C.13; Edelman
Lemma 7.5)

.. math::

    \Psi_Q(\theta) = \sum_x S(x)^{\mathrm{deg}}\; r(x)\cdot w, \qquad
    S(x) = \sum_{j=1}^k \langle U_j, x_j\rangle, \qquad
    r(x) = \Big(\sum_c Q(x,c)\Big) e_{y(x)} - Q(x,\cdot).

It equals :math:`E_q[\psi'_\tau(\theta, x, y)]` and is :math:`\nu`-homogeneous with :math:`\nu = \mathrm{deg}+1`,
so :math:`\max_{\|\theta\|_2\le1}\Psi_Q = \max_{\theta\ne0}\Psi_Q(\theta)/\|\theta\|_2^{\nu}`. By Edelman
Lemma 7.5 / Shi Lemma C.5 this maximum is the largest expected class-weighted margin of any network
with :math:`\|\theta\|_{2,\nu}\le1`, hence an upper bound on the maximum normalized margin
:math:`\gamma^*` for every Q.

The problem is a homogeneous polynomial maximisation on a sphere (non-convex, NP-hard in general);
:func:`maximize_single_neuron` runs multi-start L-BFGS on the scale-free objective (``docs/modular.md``,
section "Convex certificates"). A numeric maximum is a *lower* estimate of the true maximum of
:math:`\Psi_Q`; it is an upper bound on :math:`\gamma^*` only if the global maximum was found.

Memory bound
------------
Every evaluation streams over ``task.batch`` chunks of ``n`` points. A chunk holds the inputs
(``n k`` indices or ``n k d`` floats), a slice of Q (``n C``) and a few length-``n`` vectors, i.e. at most
about ``8 n (k d + 3 C + 8)`` bytes, kept below ``memory_budget`` (default 32 MiB).
:func:`maximize_single_neuron` caches the chunks between iterations only when they all fit in
that budget, and streams them otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from theory._checks import InputError, check_cost

from .limits import (
    array_bytes,
    check_allocation,
    check_callback,
    check_count,
    check_real,
    check_real_array,
    check_seed,
    check_work,
)
from .margins import DEFAULT_MEMORY_BUDGET, HomogeneousNetwork, Task, check_class_weights, check_task

__all__ = [
    "MAX_DEGREE",
    "MAX_STARTS",
    "SingleNeuronResult",
    "class_weighted_objective",
    "maximize_single_neuron",
    "objective_chunk_size",
]

_Chunk = tuple[np.ndarray, np.ndarray, "np.ndarray | None"]

MAX_DEGREE = 64
"""Largest activation degree (the objective is a polynomial of degree ``degree + 1``; the tasks of this toolkit use
k <= 26)."""


def _check_degree(degree: object) -> int:
    d = check_count(degree, "degree", why="degree must be a positive integer")
    check_cost(
        d,
        MAX_DEGREE,
        param="degree",
        value=d,
        what="the activation degree (the objective is a polynomial of degree + 1 in float64)",
        hint="use the degree of the task (k inputs: degree k)",
    )
    return d


def _check_budget(memory_budget: object) -> int:
    return check_count(memory_budget, "memory_budget", why="bytes per chunk")


def objective_chunk_size(task: Task, memory_budget: int = DEFAULT_MEMORY_BUDGET) -> int:
    """Number of points per chunk so that one chunk of the objective uses at most ``memory_budget`` bytes.

    Parameters
    ----------
    task : Task
        The dataset (its ``n_blocks``, ``block_size`` and ``n_classes``).
    memory_budget : int
        Bytes per chunk.

    Returns
    -------
    int
        ``memory_budget // (8 (k d + 3 C + 8))``, at least 1.

    Examples
    --------
    >>> from numerics.modular import ModularTask
    >>> task = ModularTask(5, 2)  # k d + 3 C + 8 = 10 + 15 + 8 = 33 floats per point
    >>> objective_chunk_size(task, memory_budget=8 * 33 * 100), objective_chunk_size(task, memory_budget=1)
    (100, 1)
    """
    task = check_task(task)
    memory_budget = _check_budget(memory_budget)
    per_point = 8 * (task.n_blocks * task.block_size + 3 * task.n_classes + 8)
    return max(1, int(memory_budget // per_point))


def _check_neuron(U: np.ndarray, w: np.ndarray, task: Task, degree: int) -> tuple[np.ndarray, np.ndarray, int]:
    task = check_task(task)
    U_arr, w_arr = check_real_array(U, "U", finite=False), check_real_array(w, "w", finite=False)
    if U_arr.shape != (task.n_blocks, task.block_size) or w_arr.shape != (task.n_classes,):
        raise InputError(
            f"a neuron for this task needs U of shape (k, d) = {(task.n_blocks, task.block_size)} and w of shape "
            f"(C,) = {(task.n_classes,)}; got {U_arr.shape} and {w_arr.shape}",
            param="U" if U_arr.shape != (task.n_blocks, task.block_size) else "w",
        )
    for name, a in (("U", U_arr), ("w", w_arr)):
        if not np.isfinite(a).all():
            raise InputError(f"{name} must be finite (it holds NaN or infinite entries)", param=name)
    d = _check_degree(degree)
    if task.n_classes < 2:
        raise InputError("the class-weighted margin needs at least 2 classes", param="task")
    return U_arr, w_arr, d


def _iter_chunks(task: Task, Q: np.ndarray | None, chunk_size: int) -> Iterator[_Chunk]:
    for start in range(0, task.n_points, chunk_size):
        stop = min(start + chunk_size, task.n_points)
        inputs, labels = task.batch(start, stop)
        yield inputs, np.asarray(labels, dtype=np.int64), None if Q is None else Q[start:stop]


def _chunk_terms(
    U: np.ndarray, w: np.ndarray, degree: int, chunk: _Chunk, n_points: int
) -> tuple[float, np.ndarray, np.ndarray]:
    r"""Contribution of one chunk to :math:`(\Psi, \nabla_U\Psi, \nabla_w\Psi)`.

    With :math:`s = S^{\mathrm{deg}}` and :math:`\rho(x) = r(x)\cdot w`:
    :math:`\Psi = \sum_x s\rho`, :math:`\partial\Psi/\partial w = \sum_x s(x) r(x)` and
    :math:`\partial\Psi/\partial U_j = \sum_x \mathrm{deg}\,S^{\mathrm{deg}-1}\rho(x)\, x_j`.
    """
    inputs, labels, Qc = chunk
    C = w.shape[0]
    index_inputs = np.issubdtype(inputs.dtype, np.integer)
    if index_inputs:
        S = np.zeros(inputs.shape[0])
        for j in range(inputs.shape[1]):
            S += U[j, inputs[:, j]]
    else:
        S = np.einsum("kd,nkd->n", U, inputs)
    s = S**degree
    w_y = w[labels]
    s_by_label = np.bincount(labels, weights=s, minlength=C)
    if Qc is None:  # q = 1/N, tau = 1/(C-1) on every wrong label
        rho = (w_y - (w.sum() - w_y) / (C - 1)) / n_points
        grad_w = (s_by_label - (s.sum() - s_by_label) / (C - 1)) / n_points
    else:
        q = Qc.sum(axis=1)
        rho = q * w_y - Qc @ w
        grad_w = np.bincount(labels, weights=s * q, minlength=C) - Qc.T @ s
    h = degree * S ** (degree - 1) * rho
    if index_inputs:
        grad_U = np.stack([np.bincount(inputs[:, j], weights=h, minlength=U.shape[1]) for j in range(U.shape[0])])
    else:
        grad_U = np.einsum("n,nkd->kd", h, inputs)
    return float(s @ rho), grad_U, grad_w


def _accumulate(
    U: np.ndarray, w: np.ndarray, degree: int, chunks: Iterator[_Chunk] | list[_Chunk], n_points: int
) -> tuple[float, np.ndarray, np.ndarray]:
    value, grad_U, grad_w = 0.0, np.zeros_like(U), np.zeros_like(w)
    for chunk in chunks:
        v, gU, gw = _chunk_terms(U, w, degree, chunk, n_points)
        value += v
        grad_U += gU
        grad_w += gw
    return value, grad_U, grad_w


def class_weighted_objective(
    U: np.ndarray,
    w: np.ndarray,
    task: Task,
    degree: int,
    Q: np.ndarray | None = None,
    chunk_size: int | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    r"""Single-neuron class-weighted margin :math:`\Psi_Q(U, w)` and its analytic gradient.

    .. math::

        \Psi_Q = \sum_x S(x)^{\mathrm{deg}}\Big(q(x)\,w_{y(x)} - \sum_c Q(x,c)\,w_c\Big),\quad
        q(x) = \sum_c Q(x,c),

        \frac{\partial\Psi_Q}{\partial w_c} = \sum_{x:\,y(x)=c} q(x) S(x)^{\mathrm{deg}} - \sum_x Q(x,c) S(x)^{\mathrm{deg}},
        \qquad
        \frac{\partial\Psi_Q}{\partial U_j} = \sum_x \mathrm{deg}\,S(x)^{\mathrm{deg}-1}\,(r(x)\cdot w)\; x_j

    (Shi thesis Def C.12-C.13 for modular addition, derived in ``docs/modular.md``; Edelman Lemma 7.5
    in general). For one-hot index inputs :math:`x_j = e_{a_j}` the
    last sum is a ``np.bincount`` over ``inputs[:, j]``; for dense inputs it is an einsum.

    Parameters
    ----------
    U : array, shape (k, d)
        Input blocks of the neuron.
    w : array, shape (C,)
        Output weights.
    task : Task
        The dataset (streamed with ``task.batch``).
    degree : int
        Exponent of the activation :math:`z^{\mathrm{deg}}`.
    Q : array, shape (N, C), optional
        Class weights :math:`q(x)\tau(x)[c]` (validated by :func:`numerics.margins.check_class_weights`).
        None means uniform q and uniform tau: :math:`Q = 1/(N(C-1))` on every wrong label.
    chunk_size : int, optional
        Points per streamed chunk (default: :func:`objective_chunk_size`).

    Returns
    -------
    value : float
        :math:`\Psi_Q(U, w)`; equals ``evaluate(HomogeneousNetwork(U[None], w[None], degree), task, Q).class_weighted``.
    grad_U : array, shape (k, d)
    grad_w : array, shape (C,)

    Examples
    --------
    At the optimal neuron of modular addition it is :math:`\gamma^*(p, k)` (Shi Lemma C.15); for any neuron it is
    the class-weighted margin of the width-1 network, and :math:`\langle\nabla\Psi, \theta\rangle = \nu\Psi`
    (Euler, :math:`\nu` = 3):

    >>> import numpy as np
    >>> from numerics.margins import HomogeneousNetwork, evaluate
    >>> from numerics.modular import ModularTask, optimal_neuron_network
    >>> from theory import modular as tm
    >>> task = ModularTask(5, 2)
    >>> net = optimal_neuron_network(5, 2)
    >>> value, _, _ = class_weighted_objective(net.U[0], net.W[0], task, 2)
    >>> abs(value - float(tm.max_margin(5, 2))) < 1e-12
    True
    >>> rng = np.random.default_rng(0)
    >>> U, w = rng.normal(size=(2, 5)), rng.normal(size=5)
    >>> value, gU, gw = class_weighted_objective(U, w, task, 2)
    >>> abs(value - evaluate(HomogeneousNetwork(U[None], w[None], 2), task).class_weighted) < 1e-12
    True
    >>> abs(float((gU * U).sum() + gw @ w) - 3 * value) < 1e-12
    True
    """
    U, w, degree = _check_neuron(U, w, task, degree)
    if Q is not None:
        Q = check_class_weights(Q, task)
    n = check_count(chunk_size, "chunk_size") if chunk_size is not None else objective_chunk_size(task)
    value, grad_U, grad_w = _accumulate(U, w, degree, _iter_chunks(task, Q, n), task.n_points)
    if not (np.isfinite(value) and np.isfinite(grad_U).all() and np.isfinite(grad_w).all()):
        raise InputError(
            f"the objective overflows float64 at this neuron (max |U| = {np.abs(U).max():.3g}, max |w| = "
            f"{np.abs(w).max():.3g}, degree {degree}); rescale the neuron (Psi is homogeneous of degree {degree + 1})",
            param="U",
        )
    return value, grad_U, grad_w


@dataclass(frozen=True)
class SingleNeuronResult:
    r"""Outcome of :func:`maximize_single_neuron`.

    Attributes
    ----------
    value : float
        Best value of :math:`\Psi_Q(\theta)/\|\theta\|_2^{\nu}` over the starts (an estimate of
        :math:`\max_{\|\theta\|_2\le1}\Psi_Q`, exact only if the global maximum was reached).
    network : HomogeneousNetwork
        The best maximizer, rescaled to unit Euclidean norm, as a width-1 network.
    start_values : np.ndarray, shape (n_starts,)
        Final scale-free value of every start.
    n_at_best : int
        Number of starts whose value is within ``1e-6`` (relative) of the best.
    iterations : np.ndarray, shape (n_starts,)
        L-BFGS iterations per start.
    success : bool
        The best start converged: scipy reported success, or the gradient of the scale-free
        objective at the maximizer is below ``1e-6 * |value|`` (line searches often stop at the
        precision limit with a non-success flag even at the optimum).
    grad_norm : float
        Euclidean norm of the gradient of :math:`\Psi_Q/\|\theta\|^{\nu}` at the unit-norm maximizer.
    message : str
        scipy's message for the best start.

    Examples
    --------
    >>> from numerics.parity import SparseParityTask
    >>> res = maximize_single_neuron(SparseParityTask(3, (0, 1)), 2, n_starts=2, seed=0)
    >>> res.n_starts, res.n_at_best, res.success, res.network.width
    (2, 2, True, 1)
    >>> round(res.network.norm_power(), 12)  # unit norm
    1.0
    """

    value: float
    network: HomogeneousNetwork
    start_values: np.ndarray
    n_at_best: int
    iterations: np.ndarray
    success: bool
    grad_norm: float
    message: str

    @property
    def n_starts(self) -> int:
        return int(self.start_values.shape[0])


class _ScaleFree:
    r"""Callable :math:`\theta\mapsto(-\Psi_Q(\theta)/\|\theta\|^{\nu}, -\nabla)` for scipy, with chunk caching."""

    def __init__(self, task: Task, degree: int, Q: np.ndarray | None, chunk_size: int, memory_budget: int) -> None:
        self.task, self.degree, self.Q, self.chunk_size = task, degree, Q, chunk_size
        k, d, C = task.n_blocks, task.block_size, task.n_classes
        self.k, self.d, self.C = k, d, C
        inputs, _ = task.batch(0, min(1, task.n_points))
        per_point = 8 * ((k if np.issubdtype(inputs.dtype, np.integer) else k * d) + 1 + (C if Q is not None else 0))
        self.cache = None
        if per_point * task.n_points <= memory_budget:
            check_allocation(
                per_point * task.n_points,
                param="memory_budget",
                value=memory_budget,
                what="the cached chunks of the task",
                hint="use a memory_budget below the memory available (the chunks are then streamed)",
            )
            self.cache = list(_iter_chunks(task, Q, chunk_size))

    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return theta[: self.k * self.d].reshape(self.k, self.d), theta[self.k * self.d :]

    def psi(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        U, w = self.split(theta)
        chunks = self.cache if self.cache is not None else _iter_chunks(self.task, self.Q, self.chunk_size)
        value, gU, gw = _accumulate(U, w, self.degree, chunks, self.task.n_points)
        return value, np.concatenate([gU.ravel(), gw])

    def scale_free(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        r""":math:`F = \Psi/\|\theta\|^{\nu}` and :math:`\nabla F = \nabla\Psi/\|\theta\|^{\nu} - \nu\Psi\theta/\|\theta\|^{\nu+2}`."""
        nu = self.degree + 1
        norm2 = float(theta @ theta)
        if norm2 == 0.0:
            return 0.0, np.zeros_like(theta)
        value, grad = self.psi(theta)
        norm_nu = norm2 ** (nu / 2)
        return value / norm_nu, grad / norm_nu - nu * value * theta / (norm_nu * norm2)

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = self.scale_free(theta)
        return -value, -grad


MAX_STARTS = 10_000
"""Largest ``n_starts`` of :func:`maximize_single_neuron` (each start is a full L-BFGS run)."""


def maximize_single_neuron(
    task: Task,
    degree: int,
    Q: np.ndarray | None = None,
    n_starts: int = 20,
    seed: int = 0,
    tol: float = 1e-12,
    maxiter: int = 2000,
    chunk_size: int | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Callable[[int], object] | None = None,
) -> SingleNeuronResult:
    r"""Maximize the single-neuron class-weighted margin :math:`\max_{\|\theta\|_2\le1}\Psi_Q(\theta)`.

    Multi-start L-BFGS (``scipy.optimize.minimize``, ``method="L-BFGS-B"``, analytic gradient) on the
    scale-free objective :math:`-\Psi_Q(\theta)/\|\theta\|_2^{\mathrm{deg}+1}` from i.i.d. standard
    Gaussian starts (``docs/modular.md``, section "Convex certificates"; Shi thesis Lemma C.15 gives the
    closed-form optimum for modular addition with uniform Q).

    Parameters
    ----------
    task : Task
        The dataset.
    degree : int
        Activation exponent; the neuron is :math:`\nu = \mathrm{deg}+1` homogeneous.
    Q : array (N, C), optional
        Class weights (None = uniform q and tau).
    n_starts : int
        Number of random starts (>= 1).
    seed : int
        Seed of the Gaussian starts (``np.random.default_rng(seed)``).
    tol : float
        Relative tolerance: L-BFGS stops when the projected gradient is below ``tol`` times the
        scale of the objective (estimated from the first start) or the relative decrease is below ``tol``.
    maxiter : int
        Iteration cap per start.
    chunk_size, memory_budget :
        Streaming controls (module doc).
    progress : callable, optional
        Called with the number of finished starts after each start (a progress bar's update).

    Returns
    -------
    SingleNeuronResult

    Raises
    ------
    ValueError
        If ``n_starts < 1``, ``degree`` is not a positive integer, or Q has the wrong shape or is not a
        valid weight array.

    Examples
    --------
    With uniform Q the maximum is :math:`\gamma^*`: for modular addition (Shi Lemma C.15) and for sparse
    parity (Edelman Thm 7.8):

    >>> from numerics.modular import ModularTask
    >>> from numerics.parity import SparseParityTask
    >>> from theory import modular as tm, parity as tp
    >>> res = maximize_single_neuron(ModularTask(3, 2), 2, n_starts=2, seed=0)
    >>> abs(res.value - float(tm.max_margin(3, 2))) < 1e-9
    True
    >>> res = maximize_single_neuron(SparseParityTask(3, (0, 1)), 2, n_starts=2, seed=0)
    >>> abs(res.value - float(tp.max_margin(2))) < 1e-9
    True
    >>> maximize_single_neuron(ModularTask(3, 2), 2, n_starts=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n_starts must be an integer >= 1, got 0
    """
    seed = check_seed(seed)
    task = check_task(task)
    n_starts = check_count(n_starts, "n_starts")
    check_cost(
        int(n_starts),
        MAX_STARTS,
        param="n_starts",
        value=int(n_starts),
        what="the multi-start search (one L-BFGS run per start)",
        hint="a few dozen starts find the maximum on the tasks of this toolkit",
    )
    tol = check_real(tol, "tol", positive=True)
    maxiter = check_count(maxiter, "maxiter")
    memory_budget = _check_budget(memory_budget)
    progress = check_callback(progress, "progress")
    k, d, C = task.n_blocks, task.block_size, task.n_classes
    _check_neuron(np.zeros((k, d)), np.zeros(C), task, degree)
    check_work(
        int(n_starts) * task.n_points * (k * d + C),
        param="n_starts",
        value=int(n_starts),
        what=f"the objective at every start (n_starts x N = {task.n_points} points x (k d + C) entries)",
        hint="use fewer starts",
    )
    if Q is not None:
        Q = check_class_weights(Q, task)
    n = check_count(chunk_size, "chunk_size") if chunk_size is not None else objective_chunk_size(task, memory_budget)
    fun = _ScaleFree(task, int(degree), Q, n, memory_budget)
    rng = np.random.default_rng(seed)
    dim = k * d + C
    check_allocation(array_bytes(int(n_starts), dim), param="n_starts", value=int(n_starts), what="the start points")
    starts = rng.standard_normal((int(n_starts), dim))
    starts /= np.linalg.norm(starts, axis=1, keepdims=True)
    # Psi is homogeneous, so its scale on the unit sphere is that of its gradient at a random unit point;
    # tolerances are taken relative to it so that tiny objectives (e.g. 1e-3 for Z_5, k = 4) still converge.
    scale = max(float(np.linalg.norm(fun.psi(starts[0])[1])), np.finfo(float).tiny)
    values, iterations, results = np.empty(len(starts)), np.empty(len(starts), dtype=np.int64), []
    for i, x0 in enumerate(starts):
        res = minimize(
            lambda th: tuple(v / scale for v in fun(th)),
            x0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": maxiter, "ftol": tol, "gtol": tol, "maxcor": 20},
        )
        values[i], iterations[i] = -res.fun * scale, res.nit
        results.append(res)
        if progress is not None:
            progress(i + 1)
    best = int(np.argmax(values))
    theta = results[best].x / np.linalg.norm(results[best].x)
    value, grad = fun.scale_free(theta)
    U, w = fun.split(theta)
    grad_norm = float(np.linalg.norm(grad))
    n_at_best = int(np.sum(np.abs(values - values[best]) <= 1e-6 * max(abs(values[best]), np.finfo(float).tiny)))
    success = bool(
        np.isfinite(value) and (results[best].success or grad_norm <= 1e-6 * max(abs(value), np.finfo(float).tiny))
    )
    return SingleNeuronResult(
        value=float(value),
        network=HomogeneousNetwork(U[None].copy(), w[None].copy(), int(degree)),
        start_values=values,
        n_at_best=n_at_best,
        iterations=iterations,
        success=success,
        grad_norm=grad_norm,
        message=str(results[best].message),
    )
