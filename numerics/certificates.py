r"""Convex certificates for the maximum normalized margin: the LP over a neuron dictionary, its dual,
and lower/upper bound pairs.

Dictionary LP (the convex program behind the max-min duality of Edelman Lemma 7.2 / Morwani et al.; derived
in ``docs/modular.md``, section "Convex certificates"). Take unit-norm neurons
:math:`\bar\theta_1..\bar\theta_J` and the margin features

.. math:: D_j(x, c') = \phi(\bar\theta_j, x)[y(x)] - \phi(\bar\theta_j, x)[c'],\qquad c'\ne y(x).

A network :math:`\theta = \{\mu_j^{1/\nu}\bar\theta_j\}` has logits :math:`\sum_j\mu_j\phi(\bar\theta_j)` and
:math:`\|\theta\|_{2,\nu}^\nu = \sum_j\mu_j` (Edelman Lemma 7.3 part 2, Shi Lemma C.5), so

.. math::

    \text{(P)}\quad \max_{\mu\ge0,\,t}\ t \ \ \text{s.t.}\ \ D^\top\mu\ge t\mathbf 1,\ \ \textstyle\sum_j\mu_j\le1,
    \qquad
    \text{(D)}\quad \min_{Q\ge0,\,s\ge0}\ s \ \ \text{s.t.}\ \ \textstyle\sum Q = 1,\ \ DQ\le s\mathbf 1 .

The value of (P) is at most :math:`\gamma^*` for every dictionary and equals it when the dictionary
contains the neurons of a max-margin network. A dual point Q is a weight array
:math:`Q(x,c') = q(x)\tau(x)[c']` (Edelman Lemma 7.5): for *any* distribution Q,
:math:`\max(0, \max_j (DQ)_j)` bounds (P) from above (weak duality), and
:math:`\max_{\|\bar\theta\|\le1}\Psi_Q(\bar\theta)` bounds :math:`\gamma^*` itself (Edelman
Lemmas 7.2, 7.5).

Certificates are judged by duality gap and feasibility residuals, never by comparing dual vectors:
LP duals are not unique (for the modular construction both a vertex Q and the uniform Q are optimal).

Memory: the feature matrix has :math:`J\cdot N(C-1)` float64 entries (e.g. 96 x 2058 for Z_7, k = 3).
It is built by streaming the dataset; the LP itself needs it whole.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from theory._checks import InputError, LimitError, check_cost, check_odd_modulus, check_positive_int, format_count
from theory._docstrings import fill_doc
from theory.finite_groups import as_group
from theory.parity import check_nk

from .groups import GroupTask, character_lp, class_weights
from .groups import construction_network as group_construction
from .limits import array_bytes, check_allocation, check_bool, check_callback, check_real, check_seed
from .margins import (
    DEFAULT_MEMORY_BUDGET,
    HomogeneousNetwork,
    Task,
    check_class_weights,
    check_network,
    check_task,
    evaluate,
)
from .modular import ModularTask, construction_network
from .parity import SparseParityTask, check_bits
from .parity import construction_network as parity_construction
from .single_neuron import MAX_STARTS, SingleNeuronResult, maximize_single_neuron
from .sos import (
    MAX_BLOCK,
    Grading,
    SingleNeuronBound,
    SOSError,
    group_grading,
    modular_grading,
    sign_grading,
    single_neuron_sdp_bound,
)

__all__ = [
    "DEFAULT_SOLVERS",
    "DEFAULT_SOLVER_OPTIONS",
    "MAX_CERTIFY_FORWARD",
    "MAX_CONSTRUCTION_ENTRIES",
    "MAX_LP_ENTRIES",
    "MAX_SEARCH_WORK",
    "MAX_SOS_MONOMIALS",
    "Certificate",
    "CertificateError",
    "Certifier",
    "LPResult",
    "bracket_verdict",
    "certify",
    "certify_group",
    "certify_modular",
    "certify_parity",
    "check_certify_settings",
    "columns_to_class_weights",
    "feature_columns",
    "margin_features",
    "solve_dictionary_lp",
    "unit_neurons",
]

DEFAULT_SOLVERS: tuple[str, ...] = ("CLARABEL", "SCS")
"""Solvers tried in order by :func:`solve_dictionary_lp` (SCS is the fallback)."""

DEFAULT_SOLVER_OPTIONS: dict[str, dict[str, float]] = {
    "CLARABEL": {"tol_gap_abs": 1e-9, "tol_gap_rel": 1e-9, "tol_feas": 1e-9},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000},
}
"""Tolerances per solver; features are scaled to max |D| = 1 before solving. Tighter Clarabel
tolerances make it stop with ``optimal_inaccurate`` on degenerate dictionaries (e.g. the construction
for p = 3, k = 3), which is then rejected in favour of the fallback."""

MAX_LP_ENTRIES = 10**6
"""Largest feature matrix of the dictionary LP, ``J N (C-1)`` entries (neurons x margin constraints): 8e5 entries
(Z_7, k = 3, 400 neurons) solve in 6 s, 2e6 did not finish in 10 minutes."""

MAX_CERTIFY_FORWARD = 10**9
"""Largest forward pass of a certificate's lower network, ``N m (k + C)`` multiply-adds (``k d + C`` for dense
inputs): about 15 s of numpy."""

MAX_SEARCH_WORK = 10**8
"""Largest multi-start search of a certificate's heuristic upper value, ``n_starts N max(k d + C, 100)`` (starts x
points x the work of one point in one objective evaluation, at least the ~100 operations of its overhead; about 30
evaluations per start): about two minutes. The largest claim, (14, 3)-sparse parity with 20 starts, needs 3.3e7."""

MAX_SOS_MONOMIALS = 4000
"""Largest number ``C(k d + deg - 1, deg)`` of monomials of the margin polynomials for which the SOS relaxation is
attempted; above it the certificate is left without a rigorous bound (``sdp_note`` says why) before anything is
built. Modular p = 9, k = 3 has 3654 (170 s); p = 3, k = 5 has 11628 and took 5 minutes."""

MAX_CONSTRUCTION_ENTRIES = 30_000
"""Largest exact construction of Shi Lemma C.18 built as the lower network of :func:`certify_modular`,
``2^(2k-2) (p-1) (k+1)`` sympy entries: p = 5, k = 6 has 28672 (7 s); p = 3, k = 7 has 65536 (20 s)."""

#: Parameters and Returns sections shared by the certify_* docstrings (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "settings": """lower_network : HomogeneousNetwork, optional
    The network of the lower bound; None = the construction.
n_starts, seed : int
    Multi-start settings of the heuristic upper value.
tol : float
    Relative tolerance of :attr:`Certificate.certified`.""",
    "returns_certificate": """Returns
-------
Certificate""",
}


def _fits(net: HomogeneousNetwork, task: Task, name: str) -> None:
    if net.U.shape[1:] != (task.n_blocks, task.block_size) or net.W.shape[1] != task.n_classes:
        raise InputError(
            f"{name} shapes U{net.U.shape}, W{net.W.shape} do not fit the task "
            f"(k = {task.n_blocks} blocks of size {task.block_size}, {task.n_classes} classes)",
            param=name,
        )


@dataclass(frozen=True)
class _Sizes:
    """The work of a certificate, estimated from the sizes of its task before anything is built."""

    points: int  # N
    inputs: int  # k d, the neuron's input size
    classes: int  # C
    blocks: int  # k (the forward pass reads one entry per block for index inputs, k d for dense ones)
    degree: int
    width: int  # neurons of the lower network
    n_starts: int

    @property
    def forward(self) -> int:
        return self.points * self.width * (self.blocks + self.classes)

    @property
    def search(self) -> int:
        return self.n_starts * self.points * max(self.inputs + self.classes, 100)

    @property
    def monomials(self) -> int:
        return math.comb(self.inputs + self.degree - 1, self.degree)

    def exceeded(self) -> tuple[str, int, int, str] | None:
        """The first cost above its limit: (kind, cost, limit, what), or None."""
        if self.forward > MAX_CERTIFY_FORWARD:
            return (
                "forward",
                self.forward,
                MAX_CERTIFY_FORWARD,
                f"the forward pass of the lower network (N m (k + C) = {format_count(self.points)} points x "
                f"{format_count(self.width)} neurons x {self.blocks + self.classes} multiply-adds)",
            )
        if self.search > MAX_SEARCH_WORK:
            return (
                "search",
                self.search,
                MAX_SEARCH_WORK,
                f"the multi-start search of the upper value (n_starts N max(k d + C, 100) = {self.n_starts} starts x "
                f"{format_count(self.points)} points x {max(self.inputs + self.classes, 100)})",
            )
        return None


def _task_sizes(task: Task, width: int, n_starts: int, degree: int) -> _Sizes:
    """The sizes of a task built by the caller (its first input tells index from dense inputs)."""
    inputs, _ = task.batch(0, min(1, int(task.n_points)))
    dense = not np.issubdtype(np.asarray(inputs).dtype, np.integer)
    k, d = int(task.n_blocks), int(task.block_size)
    return _Sizes(int(task.n_points), k * d, int(task.n_classes), k * d if dense else k, degree, width, n_starts)


def _sos_note(sizes: _Sizes) -> str:
    """Why the SOS relaxation is not attempted (empty when it is)."""
    if sizes.monomials <= MAX_SOS_MONOMIALS:
        return ""
    return (
        f"not attempted: the margin polynomials have C(k d + deg - 1, deg) = {format_count(sizes.monomials)} "
        f"monomials (k d = {sizes.inputs}, deg = {sizes.degree}), above MAX_SOS_MONOMIALS = {MAX_SOS_MONOMIALS} of "
        "numerics.certificates; the upper end is the heuristic multi-start value only"
    )


class CertificateError(RuntimeError):
    """A convex certificate could not be computed (every solver failed); no number is returned.

    Parameters
    ----------
    message : str
        What was solved and why every solver tried was rejected.

    Examples
    --------
    >>> from numerics.modular import ModularTask, construction_network
    >>> try:
    ...     solve_dictionary_lp(construction_network(3, 1), ModularTask(3, 1), solver="NOPE")
    ... except CertificateError as e:
    ...     print(str(e)[:63])
    dictionary LP: solver NOPE is not an installed cvxpy solver (in
    """


class _UnknownSolverError(InputError, CertificateError):
    """A solver name cvxpy does not have: bad input (a ValueError naming ``solver``) and, as before, a
    CertificateError (no solver could be tried)."""


# --------------------------------------------------------------------------------------------
# Margin features
# --------------------------------------------------------------------------------------------


def unit_neurons(dictionary: HomogeneousNetwork, normalize: bool = True, atol: float = 1e-9) -> HomogeneousNetwork:
    r"""The dictionary with every neuron of unit Euclidean norm :math:`\|\bar\theta_j\|_2 = 1`.

    Parameters
    ----------
    dictionary : HomogeneousNetwork
        The candidate neurons (at least one).
    normalize : bool
        If True, rescale each neuron to unit norm; if False, only check that it already is.
    atol : float
        Tolerance on the norms when ``normalize=False``.

    Returns
    -------
    HomogeneousNetwork
        The unit-norm neurons (``dictionary`` itself when ``normalize=False``).

    Raises
    ------
    ValueError
        For a zero neuron (it has no direction), or, with ``normalize=False``, a neuron whose norm
        differs from 1 by more than ``atol``.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.margins import HomogeneousNetwork
    >>> from numerics.modular import construction_network
    >>> unit_neurons(construction_network(3, 2)).neuron_norms().round(12).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    >>> unit_neurons(HomogeneousNetwork(np.zeros((1, 1, 3)), np.zeros((1, 3)), 1))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: dictionary neurons [0] are zero; drop them (a zero neuron has no direction)
    """
    dictionary = check_network(dictionary, "dictionary")
    normalize = check_bool(normalize, "normalize")
    atol = check_real(atol, "atol", nonnegative=True)
    with np.errstate(over="ignore"):
        norms = dictionary.neuron_norms()
    if dictionary.width == 0:
        raise InputError("the dictionary is empty", param="dictionary")
    if np.any(norms == 0):
        raise InputError(
            f"dictionary neurons {np.flatnonzero(norms == 0).tolist()} are zero; drop them (a zero neuron has no direction)",
            param="dictionary",
        )
    if not np.all(np.isfinite(norms)):
        raise InputError("the norms of some dictionary neurons overflow float64; rescale them", param="dictionary")
    if not normalize:
        bad = np.flatnonzero(np.abs(norms - 1) > atol)
        if bad.size:
            raise InputError(
                f"dictionary neurons must have unit norm (normalize=False); neurons {bad[:10].tolist()} have norms {norms[bad[:10]]}",
                param="dictionary",
            )
        return dictionary
    return HomogeneousNetwork(dictionary.U / norms[:, None, None], dictionary.W / norms[:, None], dictionary.degree)


def _wrong_labels(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """Wrong labels of each point in increasing order, shape (n, C-1)."""
    r = np.arange(n_classes - 1)[None, :]
    return r + (r >= labels[:, None])


def feature_columns(task: Task) -> tuple[np.ndarray, np.ndarray]:
    r"""Column map of :func:`margin_features`: column :math:`x(C-1)+r` is (point x, its r-th wrong label).

    Parameters
    ----------
    task : Task
        The dataset.

    Returns
    -------
    points, wrong_labels : int arrays, shape (N (C-1),)

    Examples
    --------
    For k = 1 modular addition on Z_3 the label of point x is x:

    >>> from numerics.modular import ModularTask
    >>> points, wrong = feature_columns(ModularTask(3, 1))
    >>> points.tolist(), wrong.tolist()
    ([0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1])
    """
    task = check_task(task)
    _check_columns(task)
    _, labels = task.batch(0, task.n_points)
    C = task.n_classes
    points = np.repeat(np.arange(task.n_points), C - 1)
    return points, _wrong_labels(np.asarray(labels, dtype=np.int64), C).ravel()


def _check_columns(task: Task) -> None:
    """The margin constraints of a task, N (C-1) (point, wrong label) pairs with their index arrays in memory."""
    if task.n_classes < 2:
        raise InputError("margin features need at least 2 classes", param="task")
    columns = int(task.n_points) * (int(task.n_classes) - 1)
    check_allocation(
        array_bytes(4 * columns) + array_bytes(2 * int(task.n_points), int(task.n_classes)),
        "task",
        task.n_points,
        f"the {format_count(columns)} margin constraints (point, wrong label) with their labels",
    )


def columns_to_class_weights(values: np.ndarray, task: Task) -> np.ndarray:
    """Scatter a vector over the columns of :func:`margin_features` into an (N, C) array (zero at correct labels).

    Parameters
    ----------
    values : array_like, shape (N (C-1),)
        One value per (point, wrong label), ordered as :func:`feature_columns`.
    task : Task
        The dataset.

    Returns
    -------
    np.ndarray, shape (N, C)

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.modular import ModularTask
    >>> columns_to_class_weights(np.arange(6.0), ModularTask(3, 1)).tolist()
    [[0.0, 0.0, 1.0], [2.0, 0.0, 3.0], [4.0, 5.0, 0.0]]
    """
    task = check_task(task)
    _check_columns(task)
    if values is None or isinstance(values, (str, bytes, bool)):
        raise InputError(f"values must be a real vector of length N (C-1), got {values!r:.80}", param="values")
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(
            f"values must be a real vector of length N (C-1), got {values!r:.80}", param="values"
        ) from None
    if values.shape != (task.n_points * (task.n_classes - 1),):
        raise InputError(
            f"expected a vector of length N (C-1) = {task.n_points * (task.n_classes - 1)}, got shape {values.shape}",
            param="values",
        )
    if not np.all(np.isfinite(values)):
        raise InputError("values must be finite (it contains NaN or an infinity)", param="values")
    points, wrong = feature_columns(task)
    Q = np.zeros((task.n_points, task.n_classes))
    Q[points, wrong] = values
    return Q


def margin_features(
    dictionary: HomogeneousNetwork,
    task: Task,
    normalize: bool = True,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> np.ndarray:
    r"""Margin features :math:`D_j(x,c') = \phi(\bar\theta_j,x)[y(x)] - \phi(\bar\theta_j,x)[c']` of unit neurons.

    With :math:`S_j(x) = \sum_i\langle\bar U_{j,i}, x_i\rangle`:
    :math:`D_j(x,c') = S_j(x)^{\mathrm{deg}}(\bar w_j[y(x)] - \bar w_j[c'])` (the constraint
    matrix of the LP in the module doc).

    Parameters
    ----------
    dictionary : HomogeneousNetwork
        J neurons; normalized to unit norm (``normalize=True``) or required to be unit norm.
    task : Task
        The dataset; columns follow :func:`feature_columns`.
    normalize : bool
        Rescale the neurons to unit norm (True) or require that they are (False).
    memory_budget : int
        Bytes per streamed chunk of the dataset (the result itself is held whole).

    Returns
    -------
    np.ndarray, shape (J, N (C-1))

    Examples
    --------
    Weighting the unit neurons of the construction by :math:`\mu_j \propto \|\theta_j\|_2^\nu` gives its
    normalized margin, here :math:`\gamma^*` of :func:`theory.modular.max_margin`:

    >>> from numerics.modular import ModularTask, construction_network
    >>> from theory.modular import max_margin
    >>> net = construction_network(3, 2)
    >>> D = margin_features(net, ModularTask(3, 2))
    >>> D.shape
    (8, 18)
    >>> mu = net.neuron_norms() ** net.homogeneity
    >>> abs(float((D.T @ (mu / mu.sum())).min()) - float(max_margin(3, 2))) < 1e-12
    True
    """
    dictionary, task = check_network(dictionary, "dictionary"), check_task(task)
    _fits(dictionary, task, "dictionary")
    if task.n_classes < 2:
        raise InputError("margin features need at least 2 classes", param="task")
    budget = (
        int(memory_budget)
        if isinstance(memory_budget, numbers.Integral) and not isinstance(memory_budget, bool)
        else check_real(memory_budget, "memory_budget")
    )
    J, C, N = dictionary.width, task.n_classes, task.n_points
    check_allocation(
        array_bytes(J, N, C - 1),
        "dictionary" if J > N else "task",
        J if J > N else N,
        f"the margin features (J, N (C-1)) = ({format_count(J)}, {format_count(N * (C - 1))}) in float64",
        "use a smaller dictionary or task",
    )
    net = unit_neurons(dictionary, normalize)
    D = np.empty((J, N, C - 1))
    per_point = 8 * (J * (2 * C + 2) + task.n_blocks * task.block_size + C)
    n = max(1, int(budget // per_point))
    for start in range(0, N, n):
        stop = min(start + n, N)
        inputs, labels = task.batch(start, stop)
        labels = np.asarray(labels, dtype=np.int64)
        with np.errstate(over="ignore", invalid="ignore"):
            s = net.preactivations(inputs) ** net.degree  # (J, n)
            wrong = _wrong_labels(labels, C)  # (n, C-1)
            D[:, start:stop] = s[:, :, None] * (net.W[:, labels][:, :, None] - net.W[:, wrong])
    if not np.all(np.isfinite(D)):
        raise InputError("the margin features overflow float64 (inputs too large for this degree)", param="task")
    return D.reshape(J, N * (C - 1))


# --------------------------------------------------------------------------------------------
# The dictionary LP
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LPResult:
    r"""Primal and dual solution of the dictionary LP (module doc), with its certificate data.

    Attributes
    ----------
    value : float
        Primal optimum t reported by the solver (:math:`\le\gamma^*`).
    dual_value : float
        :math:`\max(0,\max_j (D Q)_j)` for the returned Q projected onto the simplex; an upper bound on
        the LP value for this dictionary, valid whatever the solver accuracy (weak duality).
    achieved_margin : float
        :math:`\min_{(x,c')}(D^\top\mu)` for the returned mu made feasible (clipped at 0, scaled to
        :math:`\sum\mu\le1`): the dataset margin h of :attr:`network`, whose norm power is :math:`\le 1`.
    primal_margin_residual, primal_budget_residual, primal_sign_residual : float
        :math:`\max(0, t-\min D^\top\mu)`, :math:`\max(0,\sum\mu-1)`, :math:`\max(0,-\min\mu)` for the raw solver output.
    dual_mass_residual, dual_sign_residual : float
        :math:`|\sum Q - 1|` and :math:`\max(0, -\min Q)` for the raw solver output.
    solver, status : str
        The solver that produced the solution and its (optimal) status.
    mu : np.ndarray, shape (J,)
        Feasible weights :math:`\mu_j = \lambda_j^\nu` (clipped, :math:`\sum\mu\le1`).
    Q : np.ndarray, shape (N, C)
        The dual weights :math:`q(x)\tau(x)[c]` projected onto the simplex (usable as ``Q`` elsewhere).
    network : HomogeneousNetwork
        :math:`\theta = \{\mu_j^{1/\nu}\bar\theta_j\}` with :math:`\|\theta\|_{2,\nu}^\nu = \sum_j\mu_j`.
    attempts : tuple of str
        One line per solver tried before success (why it was rejected).
    feature_scale : float
        max |D| (the solver sees D / feature_scale); the unit of the absolute gap tolerance.
    solve_seconds : float
        Wall time of the successful solve (compile + solve).

    Examples
    --------
    >>> from numerics.margins import evaluate
    >>> from numerics.modular import ModularTask, construction_network
    >>> task = ModularTask(3, 1)
    >>> res = solve_dictionary_lp(construction_network(3, 1), task)
    >>> res.status, res.is_certified(), res.max_residual < 1e-9
    ('optimal', True, True)
    >>> res.mu.round(6).tolist(), res.Q.shape, round(float(res.Q.sum()), 12)
    ([0.5, 0.5], (3, 3), 1.0)
    >>> abs(evaluate(res.network, task).min_margin - res.achieved_margin) < 1e-12
    True
    """

    value: float
    dual_value: float
    achieved_margin: float
    primal_margin_residual: float
    primal_budget_residual: float
    primal_sign_residual: float
    dual_mass_residual: float
    dual_sign_residual: float
    solver: str
    status: str
    mu: np.ndarray
    Q: np.ndarray
    network: HomogeneousNetwork
    attempts: tuple[str, ...]
    feature_scale: float
    solve_seconds: float

    @property
    def primal_value(self) -> float:
        """Alias of :attr:`value` (the primal optimum t)."""
        return self.value

    @property
    def gap(self) -> float:
        """Duality gap ``dual_value - value`` (>= 0 up to solver accuracy)."""
        return self.dual_value - self.value

    @property
    def residuals(self) -> dict[str, float]:
        """The five feasibility residuals by name (primal: margin, budget, sign; dual: mass, sign)."""
        return {
            "primal_margin": self.primal_margin_residual,
            "primal_budget": self.primal_budget_residual,
            "primal_sign": self.primal_sign_residual,
            "dual_mass": self.dual_mass_residual,
            "dual_sign": self.dual_sign_residual,
        }

    @property
    def relative_gap(self) -> float:
        return abs(self.gap) / max(abs(self.dual_value), abs(self.value), np.finfo(float).tiny)

    @property
    def max_residual(self) -> float:
        return max(self.residuals.values())

    def is_certified(self, rtol: float = 1e-6, atol: float | None = None, residual_tol: float = 1e-6) -> bool:
        """True if ``|gap| <= atol + rtol max(|value|, |dual_value|)`` and every residual is at most
        ``residual_tol``, the margin residual (in the features' units) measured in units of ``feature_scale`` as the
        solver saw it, the others being unitless; ``atol`` defaults to ``1e-9 * feature_scale`` (needed when the LP
        value is 0). So the verdict does not depend on the scale of the inputs (the same LP with inputs x1000 used
        to fail the residual test)."""
        atol = 1e-9 * self.feature_scale if atol is None else atol
        gap_ok = abs(self.gap) <= atol + rtol * max(abs(self.value), abs(self.dual_value))
        scaled = dict(self.residuals)
        scaled["primal_margin"] /= max(self.feature_scale, np.finfo(float).tiny)
        return bool(gap_ok and max(scaled.values()) <= residual_tol)


def _solver_list(solver: object) -> tuple[str, ...]:
    if solver is None:
        return DEFAULT_SOLVERS
    if isinstance(solver, str):
        return (solver.upper(),)
    if not isinstance(solver, Sequence) or not all(isinstance(s, str) for s in solver):
        raise InputError(
            f"solver must be a cvxpy solver name or a sequence of names, got {solver!r:.80}", param="solver"
        )
    names = tuple(s.upper() for s in solver)
    if not names:
        raise InputError("solver must name at least one cvxpy solver", param="solver")
    return names


def solve_dictionary_lp(
    dictionary: HomogeneousNetwork,
    task: Task,
    solver: str | Sequence[str] | None = None,
    solver_options: Mapping[str, Mapping[str, object]] | None = None,
    normalize: bool = True,
) -> LPResult:
    r"""Solve the dictionary LP (P) and read off its dual (D) (module doc; ``docs/modular.md``).

    Parameters
    ----------
    dictionary : HomogeneousNetwork
        Candidate neurons (rescaled to unit norm unless ``normalize=False``; zero neurons are refused).
    task : Task
        The dataset.
    solver : str or sequence of str, optional
        cvxpy solver names tried in order; None = ``("CLARABEL", "SCS")`` (Clarabel, SCS as fallback);
        a single name is tried alone.
    solver_options : mapping, optional
        Per-solver keyword arguments, overriding :data:`DEFAULT_SOLVER_OPTIONS`.
    normalize : bool
        Rescale the neurons to unit norm (True) or require that they are (False).

    Returns
    -------
    LPResult
        From the first solver that returns status ``optimal`` with finite primal and dual values.

    Raises
    ------
    CertificateError
        If every solver raises or returns a status other than ``optimal`` (including
        ``optimal_inaccurate``). No number from a failed solve is ever returned.

    Examples
    --------
    The dictionary of the construction's neurons reaches :math:`\gamma^*` (:func:`theory.modular.max_margin`),
    with a matching dual bound:

    >>> from numerics.modular import ModularTask, construction_network
    >>> from theory.modular import max_margin
    >>> res = solve_dictionary_lp(construction_network(3, 2), ModularTask(3, 2))
    >>> gamma = float(max_margin(3, 2))
    >>> abs(res.value - gamma) < 1e-9 * gamma, res.is_certified()
    (True, True)
    >>> res.value <= res.dual_value + 1e-9 * res.feature_scale
    True
    """
    dictionary, task = check_network(dictionary, "dictionary"), check_task(task)
    _fits(dictionary, task, "dictionary")
    if task.n_classes < 2:
        raise InputError("margin features need at least 2 classes", param="task")
    J, columns = dictionary.width, int(task.n_points) * (int(task.n_classes) - 1)
    check_cost(
        J * columns,
        MAX_LP_ENTRIES,
        param="dictionary" if columns < J else "task",
        value=J if columns < J else task.n_points,
        what=f"the dictionary LP (J N (C-1) = {format_count(J)} neurons x {format_count(columns)} margin constraints)",
        hint="use fewer neurons or a smaller task",
    )
    names = _solver_list(solver)
    if solver_options is not None and not isinstance(solver_options, Mapping):
        raise InputError(
            f"solver_options must be a mapping of solver names, got {solver_options!r:.80}", param="solver_options"
        )
    import cvxpy as cp  # deferred: cvxpy is slow to import, and listing claims must not need it

    unknown = [name for name in names if name not in cp.installed_solvers()]
    if unknown:
        raise _UnknownSolverError(
            f"dictionary LP: solver {', '.join(unknown)} is not an installed cvxpy solver (installed: "
            f"{', '.join(cp.installed_solvers())}); no value is returned",
            param="solver",
        )
    net = unit_neurons(dictionary, normalize)
    D = margin_features(net, task, normalize=False)
    J = net.width
    scale = float(np.abs(D).max())
    if not scale > 0:
        raise ValueError("every margin feature is zero: the dictionary neurons separate nothing")
    Ds = D / scale
    mu_var = cp.Variable(J, nonneg=True)
    t_var = cp.Variable()
    margin_con = Ds.T @ mu_var >= t_var
    budget_con = cp.sum(mu_var) <= 1
    problem = cp.Problem(cp.Maximize(t_var), [margin_con, budget_con])
    options: dict[str, dict[str, object]] = {name: dict(opts) for name, opts in DEFAULT_SOLVER_OPTIONS.items()}
    for name, opts in (solver_options or {}).items():
        if not isinstance(name, str) or not isinstance(opts, Mapping):
            raise InputError(
                f"solver_options must map solver names to option dicts, got {name!r:.40}", param="solver_options"
            )
        options.setdefault(name.upper(), {}).update(opts)
    attempts: list[str] = []
    for name in names:
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():  # "solution may be inaccurate": the status is checked below
                warnings.simplefilter("ignore", UserWarning)
                problem.solve(solver=name, **options.get(name, {}))
        except Exception as exc:  # a solver failure of any kind means: try the next one
            attempts.append(f"{name}: raised {type(exc).__name__}: {exc}")
            continue
        elapsed = time.perf_counter() - t0
        status = str(problem.status)
        raw_mu, raw_t, raw_Q = mu_var.value, t_var.value, margin_con.dual_value
        if status != "optimal":
            attempts.append(f"{name}: status {status!r} (not 'optimal')")
            continue
        if (
            raw_mu is None
            or raw_t is None
            or raw_Q is None
            or not (np.isfinite(raw_mu).all() and np.isfinite(raw_t) and np.isfinite(raw_Q).all())
        ):
            attempts.append(f"{name}: status 'optimal' but missing or non-finite primal/dual values")
            continue
        raw_Q = np.asarray(raw_Q, dtype=np.float64).ravel()
        if not raw_Q.clip(0).sum() > 0:
            attempts.append(f"{name}: status 'optimal' but the dual Q has no positive mass")
            continue
        return _build_result(
            net,
            task,
            D,
            scale,
            np.asarray(raw_mu, dtype=np.float64).ravel(),
            float(raw_t),
            raw_Q,
            name,
            status,
            attempts,
            elapsed,
        )
    raise CertificateError(
        f"dictionary LP ({J} neurons, {D.shape[1]} margin constraints) failed with every solver tried; "
        "no value is returned from a failed solve. " + "; ".join(attempts)
    )


def _build_result(
    net: HomogeneousNetwork,
    task: Task,
    D: np.ndarray,
    scale: float,
    raw_mu: np.ndarray,
    raw_t_scaled: float,
    raw_Q: np.ndarray,
    solver: str,
    status: str,
    attempts: list[str],
    elapsed: float,
) -> LPResult:
    t = raw_t_scaled * scale
    margins_raw = D.T @ raw_mu
    mu = np.clip(raw_mu, 0.0, None)
    mu = mu / max(1.0, float(mu.sum()))
    Q = np.clip(raw_Q, 0.0, None)
    Q = Q / Q.sum()
    nu = net.homogeneity
    lam = mu ** (1.0 / nu)
    recovered = HomogeneousNetwork(net.U * lam[:, None, None], net.W * lam[:, None], net.degree)
    return LPResult(
        value=t,
        dual_value=max(0.0, float((D @ Q).max())),
        achieved_margin=float((D.T @ mu).min()),
        primal_margin_residual=max(0.0, t - float(margins_raw.min())),
        primal_budget_residual=max(0.0, float(raw_mu.sum()) - 1.0),
        primal_sign_residual=max(0.0, -float(raw_mu.min())),
        dual_mass_residual=abs(float(raw_Q.sum()) - 1.0),
        dual_sign_residual=max(0.0, -float(raw_Q.min())),
        solver=solver,
        status=status,
        mu=mu,
        Q=columns_to_class_weights(Q, task),
        network=recovered,
        attempts=tuple(attempts),
        feature_scale=scale,
        solve_seconds=elapsed,
    )


# --------------------------------------------------------------------------------------------
# Lower/upper bound certificates
# --------------------------------------------------------------------------------------------


def bracket_verdict(
    lower: float,
    upper_rigorous: float | None,
    gamma: float,
    rtol: float,
    attained: bool = True,
    upper_heuristic: float | None = None,
) -> tuple[str, str]:
    r"""Judge a predicted :math:`\gamma` against a certified bracket (``docs/certificates.md``).

    * ``fail`` when the bracket excludes :math:`\gamma`: the lower bound (a forward pass) exceeds
      :math:`\gamma(1+\text{rtol})`, or the rigorous upper bound is below :math:`\gamma(1-\text{rtol})`; and, when
      the lower network is claimed to attain :math:`\gamma` (``attained``), a lower bound below
      :math:`\gamma(1-\text{rtol})`;
    * ``inconclusive`` when no rigorous upper bound is available (only the heuristic multi-start value), or the
      interval contains :math:`\gamma` but is wider than the tolerance (a loose relaxation above, or a lower
      network not claimed to attain :math:`\gamma` below);
    * ``pass`` otherwise: both bounds within ``rtol`` of :math:`\gamma`.

    Parameters
    ----------
    lower : float
        The lower bound (normalized margin of an explicit network).
    upper_rigorous : float or None
        The rigorous upper bound; None when there is none.
    gamma : float
        The predicted value.
    rtol : float
        Relative tolerance.
    attained : bool
        Whether the lower network is claimed to attain :math:`\gamma`.
    upper_heuristic : float, optional
        The multi-start value, quoted in the reason when there is no rigorous bound.

    Returns
    -------
    verdict, reason : str
        ``"pass"``, ``"fail"`` or ``"inconclusive"``, and a one-line explanation.

    Raises
    ------
    theory._checks.InputError
        Naming the parameter, for a NaN or infinite bound, gamma or tolerance (no verdict is ever computed from one:
        every comparison with NaN is False, which read as "pass"), a gamma <= 0 (a maximum margin is positive, and
        the tolerance is relative to it) or a negative tolerance. Callers treat the exception as inconclusive.

    Examples
    --------
    >>> bracket_verdict(0.25, 0.2500001, 0.25, 1e-6)
    ('pass', 'gamma = 0.25, certified interval [0.25, 0.2500001]: both bounds within 4.0e-07 of gamma (tolerance 1e-06)')
    >>> bracket_verdict(0.26, 0.27, 0.25, 1e-6)[0]
    'fail'
    >>> bracket_verdict(0.25, None, 0.25, 1e-6, upper_heuristic=0.25)
    ('inconclusive', 'gamma = 0.25, certified interval [0.25, ?]: no rigorous upper bound; heuristic (multi-start) upper value 0.25')
    >>> bracket_verdict(0.25, 0.25, float("nan"), 1e-6)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: gamma must be a finite real number > 0, got gamma = nan
    """
    g = check_real(gamma, "gamma", positive=True)
    lower = check_real(lower, "lower")
    upper_rigorous = None if upper_rigorous is None else check_real(upper_rigorous, "upper_rigorous")
    rtol = check_real(rtol, "rtol", nonnegative=True)
    upper_heuristic = None if upper_heuristic is None else check_real(upper_heuristic, "upper_heuristic")
    attained = check_bool(attained, "attained")
    tol = rtol * abs(g)
    interval = f"[{lower:.12g}, {upper_rigorous:.12g}]" if upper_rigorous is not None else f"[{lower:.12g}, ?]"
    head = f"gamma = {g:.12g}, certified interval {interval}"
    if lower > g + tol:
        return (
            "fail",
            f"{head}: the network's forward-pass margin exceeds gamma by {(lower - g) / abs(g):.2e} (relative)",
        )
    if upper_rigorous is not None and upper_rigorous < g - tol:
        return (
            "fail",
            f"{head}: the rigorous upper bound is below gamma by {(g - upper_rigorous) / abs(g):.2e} (relative)",
        )
    if lower < g - tol:
        short = f"{(g - lower) / abs(g):.2e} (relative)"
        if attained:
            return "fail", f"{head}: the network said to attain gamma falls short by {short}"
        return "inconclusive", f"{head}: the lower bound is {short} below gamma (interval too wide to decide)"
    if upper_rigorous is None:
        heur = "" if upper_heuristic is None else f"; heuristic (multi-start) upper value {upper_heuristic:.12g}"
        return "inconclusive", f"{head}: no rigorous upper bound{heur}"
    if upper_rigorous > g + tol:
        return "inconclusive", (
            f"{head}: the relaxation is loose (upper bound {(upper_rigorous - g) / abs(g):.2e} above gamma, "
            f"tolerance {rtol:g})"
        )
    return "pass", (
        f"{head}: both bounds within {max(abs(lower - g), abs(upper_rigorous - g)) / abs(g):.1e} of gamma "
        f"(tolerance {rtol:g})"
    )


@dataclass(frozen=True)
class Certificate:
    r"""A bracket :math:`\text{lower}\le\gamma^*\le\text{upper}` for the maximum normalized margin, neither end
    taken from a closed form.

    * lower: the normalized margin :math:`h(\theta)/\|\theta\|_{2,\nu}^\nu` of an explicit network, by the float64
      forward pass over every input (``numerics.margins.evaluate``);
    * upper: :math:`\max_{\|\bar\theta\|\le1}\Psi_Q(\bar\theta)` for a class weighting Q (any Q gives a valid bound,
      Edelman Lemmas 7.2, 7.5), computed two ways: (a) multi-start L-BFGS (``upper_heuristic``: a value *attained*
      by a neuron, so a lower estimate of the maximum, not a bound), and (b) the sum-of-squares relaxation of
      :mod:`numerics.sos` (``upper_rigorous``: a bound up to float64 rounding, see that module).

    Attributes
    ----------
    lower : float
        The normalized margin of the lower network.
    upper_heuristic : float
        The multi-start maximum of :math:`\Psi_Q` (attained by a neuron; not a bound).
    upper_rigorous : float or None
        None when the SDP was not run or could not be solved (``sdp_note`` says why).
    tol : float
        Relative tolerance of :attr:`certified` and :meth:`verdict`.
    lower_source, weighting : str
        Where the lower bound and the class weighting come from.
    heuristic : dict
        Multi-start details (starts, starts at the best value, convergence, message).
    sdp : SingleNeuronBound or None
        The relaxation's record (solver, status, duality gap, residuals, sizes, times).
    sdp_note : str
        Why there is no rigorous bound (empty when there is one).

    Examples
    --------
    For k = 1 modular addition on Z_3 the bracket closes on :math:`\gamma^* = 1/4`
    (:func:`theory.modular.max_margin`):

    >>> from theory.modular import max_margin
    >>> cert = certify_modular(3, 1, n_starts=2)
    >>> cert.rigorous, cert.certified, cert.consistent
    (True, True, True)
    >>> gamma = float(max_margin(3, 1))
    >>> cert.lower <= gamma * (1 + 1e-12) and gamma <= cert.upper * (1 + 1e-12)
    True
    >>> cert.verdict(max_margin(3, 1))[0]
    'pass'
    """

    lower: float
    upper_heuristic: float
    upper_rigorous: float | None
    tol: float
    lower_source: str
    weighting: str
    heuristic: dict
    sdp: SingleNeuronBound | None = None
    sdp_note: str = ""

    def __post_init__(self) -> None:
        # no NaN or infinity may reach a verdict: the bounds are checked when the certificate is made
        check_real(self.lower, "lower")
        check_real(self.upper_heuristic, "upper_heuristic")
        if self.upper_rigorous is not None:
            check_real(self.upper_rigorous, "upper_rigorous")
        check_real(self.tol, "tol", nonnegative=True)
        for name in ("lower_source", "weighting", "sdp_note"):
            if not isinstance(getattr(self, name), str):
                raise InputError(f"{name} must be a str, got {getattr(self, name)!r:.80}", param=name)
        if not isinstance(self.heuristic, Mapping):
            raise InputError(f"heuristic must be a dict, got {self.heuristic!r:.80}", param="heuristic")
        if self.sdp is not None and not isinstance(self.sdp, SingleNeuronBound):
            raise InputError(f"sdp must be a SingleNeuronBound or None, got {self.sdp!r:.80}", param="sdp")

    @property
    def rigorous(self) -> bool:
        """True when the upper end is the rigorous SDP bound."""
        return self.upper_rigorous is not None

    @property
    def upper(self) -> float:
        """The rigorous upper bound when there is one, else the heuristic value (see :attr:`rigorous`)."""
        return self.upper_rigorous if self.upper_rigorous is not None else self.upper_heuristic

    @property
    def gap(self) -> float:
        """``upper - lower`` (>= 0 when both bounds are right)."""
        return self.upper - self.lower

    @property
    def relative_gap(self) -> float:
        """``|upper - lower| / max(|upper|, |lower|)``."""
        return abs(self.gap) / max(abs(self.upper), abs(self.lower), np.finfo(float).tiny)

    @property
    def relaxation_gap(self) -> float:
        """``(upper_rigorous - upper_heuristic) / upper_rigorous``: how far the relaxation can be from the true
        single-neuron maximum (the heuristic value is attained by a neuron); NaN without an SDP bound."""
        if self.upper_rigorous is None:
            return float("nan")
        return (self.upper_rigorous - self.upper_heuristic) / max(abs(self.upper_rigorous), np.finfo(float).tiny)

    @property
    def consistent(self) -> bool:
        """False if the lower bound exceeds an upper value beyond ``tol``: one of them is wrong (or, for the
        heuristic value, the optimizer missed the maximum)."""
        return self.lower <= self.upper + self.tol * max(abs(self.upper), abs(self.lower))

    @property
    def certified(self) -> bool:
        r"""True if the upper bound is rigorous and the relative gap is at most ``tol``: :math:`\gamma^*` is then
        known to that accuracy without any closed form."""
        return bool(self.rigorous and np.isfinite(self.relative_gap) and self.relative_gap <= self.tol)

    def verdict(self, gamma: object, rtol: float | None = None, attained: bool = True) -> tuple[str, str]:
        """:func:`bracket_verdict` of this certificate against a predicted gamma (``rtol`` defaults to ``tol``);
        a NaN or infinite gamma or rtol raises InputError (no verdict)."""
        return bracket_verdict(
            self.lower,
            self.upper_rigorous,
            check_real(gamma, "gamma", positive=True),
            self.tol if rtol is None else rtol,
            attained,
            self.upper_heuristic,
        )

    def summary(self) -> dict[str, object]:
        """Plain data for records and ``tvk certify --json`` (``relaxation_gap`` is None without a rigorous bound)."""
        return {
            "lower": self.lower,
            "upper_rigorous": self.upper_rigorous,
            "upper_heuristic": self.upper_heuristic,
            "rigorous": self.rigorous,
            "relative_gap": self.relative_gap,
            "relaxation_gap": None if self.upper_rigorous is None else self.relaxation_gap,  # JSON: null, not NaN
            "certified": self.certified,
            "tol": self.tol,
            "lower_source": self.lower_source,
            "weighting": self.weighting,
            "heuristic": dict(self.heuristic),
            "sdp": None if self.sdp is None else self.sdp.summary(),
            "sdp_note": self.sdp_note,
        }

    def text(self) -> str:
        """Lines for ``tvk certify``: the interval, which end is rigorous, the solver and the gaps."""
        lines = [
            f"  lower  {self.lower:.12e}  ({self.lower_source}; float64 forward pass over every input)",
            f"  upper  {self.upper_heuristic:.12e}  heuristic: multi-start L-BFGS maximum of Psi_Q "
            f"({self.heuristic.get('n_at_best')}/{self.heuristic.get('n_starts')} starts at the best; not a bound)",
        ]
        if self.sdp is not None:
            s = self.sdp.sos
            lines.append(
                f"  upper  {self.upper_rigorous:.12e}  RIGOROUS: SOS relaxation, {s.solver} ({s.status}), duality gap "
                f"{s.gap:.1e}, residual {s.residual_l1:.1e}, feasibility tol {s.feasibility_tolerance:g}; "
                f"{s.size.n_monomials} monomials, {len(s.size.block_sides)} blocks (largest {s.size.largest_block}), "
                f"grading {s.grading}"
            )
        else:
            lines.append(f"  upper  (no rigorous bound: {self.sdp_note})")
        lines.append(
            f"  weighting: {self.weighting}; interval width {self.relative_gap:.1e} relative -> "
            + ("CERTIFIED" if self.certified else "not certified")
        )
        return "\n".join(lines)


def check_certify_settings(
    tol: object = 1e-6, n_starts: object = 1, seed: object = 0, maxiter: object = 1, progress: object = None
) -> None:
    """Validate the settings of :func:`certify` before any work.

    Parameters
    ----------
    tol : float
        Relative tolerance of the bracket.
    n_starts : int
        Number of multi-start runs.
    seed : int
        Seed of the starts.
    maxiter : int
        L-BFGS iteration cap per start.
    progress : callable, optional
        The progress hook (None or a callable).

    Returns
    -------
    None

    Raises
    ------
    theory._checks.InputError
        A ValueError naming the parameter: ``tol`` not a finite number >= 0, ``n_starts`` not an integer in
        [1, MAX_STARTS], ``seed`` not an integer >= 0 (``numpy.random.default_rng``), ``maxiter`` not an integer >= 1,
        ``progress`` neither None nor a callable.

    Examples
    --------
    >>> check_certify_settings(tol=1e-6, n_starts=8, seed=0, maxiter=100)
    >>> check_certify_settings(n_starts=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n_starts must be an integer >= 1, got n_starts = 0
    """
    check_real(tol, "tol", nonnegative=True, what="a finite real number (the bracket's relative tolerance)")
    check_seed(seed)
    check_callback(progress, "progress")
    for name, value, minimum in (("n_starts", n_starts, 1), ("maxiter", maxiter, 1)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise InputError(
                f"{name} must be an integer >= {minimum}, got {value!r} of type {type(value).__name__}", param=name
            )
        if value < minimum:
            raise InputError(f"{name} must be an integer >= {minimum}, got {name} = {value}", param=name)
    check_cost(
        int(n_starts),  # type: ignore[call-overload]
        MAX_STARTS,
        param="n_starts",
        value=int(n_starts),  # type: ignore[call-overload]
        what="the multi-start search (one L-BFGS run per start)",
        hint="a few dozen starts find the maximum on the tasks of this toolkit",
    )


def certify(
    task: Task,
    degree: int,
    lower_network: HomogeneousNetwork,
    Q: np.ndarray | None = None,
    grading: Grading | None = None,
    *,
    weighting: str = "uniform q and tau",
    sdp: bool = True,
    n_starts: int = 20,
    seed: int = 0,
    tol: float = 1e-6,
    solver: str | Sequence[str] | None = None,
    max_block: int = MAX_BLOCK,
    maxiter: int = 2000,
    progress: Callable[[int], object] | None = None,
) -> Certificate:
    r"""Bracket :math:`\gamma^*` between an explicit network and a class-weighted single-neuron bound.

    Parameters
    ----------
    task : Task
        The dataset.
    degree : int
        Activation exponent (must equal ``lower_network.degree``).
    lower_network : HomogeneousNetwork
        Any non-zero network; its normalized margin (forward pass) is the lower bound.
    Q : array (N, C), optional
        Class weights of the upper bound (None = uniform q and tau). Any valid weighting gives a valid bound.
    grading : Grading, optional
        A symmetry of the weighted problem for the SDP's block structure (:mod:`numerics.sos`); None = one block.
    weighting : str
        Where Q comes from, for the record.
    sdp : bool
        Compute the rigorous bound (b); False leaves only the heuristic value (a).
    n_starts, seed : int
        Multi-start settings of the heuristic value (1 <= n_starts <= ``MAX_STARTS``, seed >= 0).
    tol : float
        Relative tolerance of :attr:`Certificate.certified` (finite, >= 0).
    solver, max_block :
        Passed to :func:`numerics.sos.single_neuron_sdp_bound`.
    maxiter : int
        L-BFGS iteration cap per start of the heuristic value (>= 1).
    progress : callable, optional
        Called with the number of finished starts after each start of the heuristic value.

    Returns
    -------
    Certificate

    Raises
    ------
    ValueError
        Bad settings (:func:`check_certify_settings`, before any work), or a ``lower_network`` of another degree.
    theory._checks.LimitError
        Before any work, when the forward pass of ``lower_network`` is above :data:`MAX_CERTIFY_FORWARD` or the
        multi-start search above :data:`MAX_SEARCH_WORK` (naming ``task``, ``lower_network`` or ``n_starts``).

    Notes
    -----
    An SDP that is too large (``max_block``, or more than :data:`MAX_SOS_MONOMIALS` monomials, which is checked before
    anything is built) or that every solver fails on leaves ``upper_rigorous`` None with the reason in ``sdp_note``:
    the certificate is then only heuristic, never silently a closed form.

    Examples
    --------
    Without the SDP only the heuristic upper value is available, so nothing is certified:

    >>> from numerics.modular import ModularTask, construction_network
    >>> from theory.modular import max_margin
    >>> task, net = ModularTask(3, 1), construction_network(3, 1)
    >>> cert = certify(task, 1, net, sdp=False, n_starts=2)
    >>> cert.rigorous, cert.sdp_note, cert.certified
    (False, 'not requested', False)
    >>> gamma = float(max_margin(3, 1))
    >>> abs(cert.lower - gamma) < 1e-12, abs(cert.upper_heuristic - gamma) < 1e-9
    (True, True)
    >>> certify(task, 2, net)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: lower_network has degree 1, expected 2
    """
    check_certify_settings(tol=tol, n_starts=n_starts, seed=seed, maxiter=maxiter, progress=progress)
    task = check_task(task)
    lower_network = check_network(lower_network, "lower_network")
    if lower_network.degree != degree:
        raise InputError(f"lower_network has degree {lower_network.degree}, expected {degree}", param="degree")
    _fits(lower_network, task, "lower_network")
    if grading is not None and not isinstance(grading, Grading):
        raise InputError(f"grading must be a numerics.sos.Grading or None, got {grading!r:.80}", param="grading")
    if not isinstance(weighting, str):
        raise InputError(f"weighting must be a str, got {weighting!r:.80}", param="weighting")
    sdp = check_bool(sdp, "sdp")
    if sdp:
        _solver_list(solver)
        check_positive_int(max_block, "max_block")
    sizes = _task_sizes(task, lower_network.width, int(n_starts), int(degree))
    over = sizes.exceeded()
    if over is not None:
        kind, cost, limit, what = over
        if kind == "forward":
            param, value = (
                ("lower_network", lower_network.width)
                if lower_network.width > task.n_points
                else ("task", task.n_points)
            )
        else:
            one = int(n_starts) > 1 and cost // int(n_starts) <= limit  # fewer starts would do
            param, value = ("n_starts", int(n_starts)) if one else ("task", task.n_points)
        check_cost(cost, limit, param=param, value=value, what=what, hint="use a smaller task, network or n_starts")
    if Q is not None:
        Q = check_class_weights(Q, task)
    report = evaluate(lower_network, task)
    res: SingleNeuronResult = maximize_single_neuron(
        task, degree, Q=Q, n_starts=n_starts, seed=seed, maxiter=maxiter, progress=progress
    )
    heuristic = {
        "n_starts": res.n_starts,
        "n_at_best": res.n_at_best,
        "converged": res.success,
        "grad_norm": res.grad_norm,
        "message": res.message,
        "method": "L-BFGS-B (scipy), multi-start",
    }
    bound, note = None, ""
    if sdp and _sos_note(sizes):
        note = _sos_note(sizes)
    elif sdp:
        try:
            bound = single_neuron_sdp_bound(task, degree, grading, Q, solver=solver, max_block=max_block)
        except (ValueError, SOSError) as exc:
            note = f"{type(exc).__name__}: {exc}"
        if bound is not None and not math.isfinite(bound.bound):
            note = f"the SOS bound is not finite ({bound.bound}); no rigorous bound"
            bound = None
    else:
        note = "not requested"
    if not math.isfinite(report.normalized_margin):
        raise InputError("the normalized margin of lower_network is not finite", param="lower_network")
    if not math.isfinite(res.value):
        raise InputError(f"the multi-start value is not finite ({res.value}); rescale the task", param="task")
    return Certificate(
        lower=report.normalized_margin,
        upper_heuristic=res.value,
        upper_rigorous=None if bound is None else bound.bound,
        tol=tol,
        lower_source=f"normalized margin of a width-{lower_network.width} network",
        weighting=weighting,
        heuristic=heuristic,
        sdp=bound,
        sdp_note=note,
    )


# --------------------------------------------------------------------------------------------
# The certificates of the three tasks (claims, `tvk certify`, benchmarks)
# --------------------------------------------------------------------------------------------


def _largest(ok: Callable[[int], bool], upto: int) -> int:
    """The largest x in [1, upto] with ok(x) (ok is monotone decreasing), 0 if none."""
    best = 0
    for x in range(1, upto + 1):
        if not ok(x):
            break
        best = x
    return best


def _refuse(sizes: _Sizes, param: str, value: object, hint: str) -> None:
    over = sizes.exceeded()
    if over is not None:
        check_cost(over[1], over[2], param=param, value=value, what=over[3], hint=hint)


def _log10_search(n_starts: int, p: int, k: int) -> float:
    """log10 of the search work n_starts p^k max(k p + p, 100), inf beyond the float range."""
    try:
        return math.log10(n_starts) + k * math.log10(p) + math.log10(max(k * p + p, 100))
    except OverflowError:  # k beyond ~10^308
        return math.inf


def _check_modular_size(p: int, k: int, width: int | None, n_starts: int) -> None:
    """The work of :func:`certify_modular` from p and k alone, before the task, the construction or the grading is
    built; refuses naming k (or p when k = 1 is already too large for this p)."""

    def construction(kk: int) -> int:
        return 2 ** (2 * kk - 2) * (p - 1) * (kk + 1)

    def sizes(kk: int) -> _Sizes:
        w = 2 ** (2 * kk - 2) * (p - 1) if width is None else width
        return _Sizes(p**kk, kk * p, p, kk, kk, w, n_starts)

    def fits(kk: int) -> bool:
        if kk > 15 / math.log10(p):  # p^k points: far above every limit (and never formed)
            return False
        return (width is not None or construction(kk) <= MAX_CONSTRUCTION_ENTRIES) and sizes(kk).exceeded() is None

    if fits(k):
        return
    param, value = ("k", k) if k > 1 and fits(1) else ("p", p)
    largest = _largest(fits, min(k - 1, 64))
    hint = (
        "theory.modular.max_margin(p, k) and min_width(p, k) give gamma* and the width in closed form (Shi Thm 4.9)"
        + (f"; certify_modular answers up to k = {largest} for p = {format_count(p)}" if largest else "")
    )
    if k > 15 / math.log10(p):
        check_cost(
            _log10_search(n_starts, p, k),
            math.log10(MAX_SEARCH_WORK),
            param=param,
            value=value,
            what=f"the multi-start search over the p^k points (n_starts p^k max(k p + p, 100), p = {format_count(p)})",
            hint=hint,
            log10=True,
        )
    if width is None and construction(k) > MAX_CONSTRUCTION_ENTRIES:
        check_cost(
            construction(k),
            MAX_CONSTRUCTION_ENTRIES,
            param=param,
            value=value,
            what=f"the exact construction of Shi Lemma C.18 (2^(2k-2)(p-1)(k+1) entries, p = {format_count(p)})",
            hint=hint,
        )
    _refuse(sizes(k), param, value, hint)


def _check_parity_size(n: int, k: int, width: int | None, n_starts: int) -> None:
    """The work of :func:`certify_parity` from n and k, before anything is built; refuses naming k (or n when
    k = 1 is already too large on n bits)."""

    def sizes(kk: int) -> _Sizes:
        return _Sizes(2**n, n, 2, n, kk, 2 ** (kk - 1) if width is None else width, n_starts)

    if sizes(k).exceeded() is None:
        return
    param, value = ("k", k) if k > 1 and sizes(1).exceeded() is None else ("n", n)
    _refuse(sizes(k), param, value, "theory.parity.max_margin(k) gives gamma* in closed form (Edelman Thm 7.8)")


@dataclass(frozen=True)
class Certifier:
    """The settings of the task certificates, given once: the multi-start search, the bracket's tolerance and a
    progress hook. Its methods certify one task each; :func:`certify_modular`, :func:`certify_parity` and
    :func:`certify_group` are these methods with silent settings (``tvk certify`` passes its progress bar here).

    Parameters
    ----------
    n_starts, seed : int
        Multi-start settings of the heuristic upper value (1 <= n_starts <= ``MAX_STARTS``, seed >= 0).
    tol : float
        Relative tolerance of :attr:`Certificate.certified` (finite, >= 0).
    progress : callable, optional
        Called with the number of finished starts after each start of the search (a progress bar's update);
        None: silent.

    Raises
    ------
    theory._checks.InputError
        Bad settings (:func:`check_certify_settings`), when the settings are made, before any work.

    Examples
    --------
    >>> seen = []
    >>> cert = Certifier(n_starts=3, progress=seen.append).parity(3, 2)
    >>> seen, cert.certified
    ([1, 2, 3], True)
    >>> Certifier(seed=-1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: seed must be an integer >= 0, got seed = -1
    """

    n_starts: int = 8
    seed: int = 0
    tol: float = 1e-6
    progress: Callable[[int], object] | None = None

    def __post_init__(self) -> None:
        check_certify_settings(tol=self.tol, n_starts=self.n_starts, seed=self.seed, progress=self.progress)

    def _certify(
        self, task: Task, degree: int, net: HomogeneousNetwork, grading: Grading, construction: str | None, **kw: Any
    ) -> Certificate:
        """:func:`certify` with these settings; the lower end is named ``construction`` with the width when that is
        given (None: the caller's network, named by :func:`certify`)."""
        cert = certify(
            task,
            degree,
            net,
            grading=grading,
            n_starts=self.n_starts,
            seed=self.seed,
            tol=self.tol,
            progress=self.progress,
            **kw,
        )
        return cert if construction is None else replace(cert, lower_source=f"{construction} (width {net.width})")

    def modular(self, p: int, k: int, lower_network: HomogeneousNetwork | None = None) -> Certificate:
        """:func:`certify_modular` with these settings (its parameters ``p``, ``k``, ``lower_network``)."""
        p = check_odd_modulus(p)
        k = check_positive_int(k, "k", hypothesis="the number of summands")
        if lower_network is not None:
            lower_network = check_network(lower_network, "lower_network")
        _check_modular_size(p, k, None if lower_network is None else lower_network.width, int(self.n_starts))
        net = construction_network(p, k) if lower_network is None else lower_network
        built = None if lower_network is not None else "the construction of Shi Lemma C.18"
        return self._certify(ModularTask(p, k), k, net, modular_grading(p, k), built)

    def parity(self, n: int, k: int, lower_network: HomogeneousNetwork | None = None) -> Certificate:
        """:func:`certify_parity` with these settings (its parameters ``n``, ``k``, ``lower_network``)."""
        n, k = check_nk(check_bits(n), k)  # before range(k): k <= n <= MAX_BITS
        if lower_network is not None:
            lower_network = check_network(lower_network, "lower_network")
        _check_parity_size(n, k, None if lower_network is None else lower_network.width, int(self.n_starts))
        S = tuple(range(k))
        net = parity_construction(n, S) if lower_network is None else lower_network
        built = None if lower_network is not None else "the construction of Edelman App. D.7"
        return self._certify(SparseParityTask(n, S), k, net, sign_grading(n), built)

    def group(self, name: str, lower_network: HomogeneousNetwork | None = None) -> Certificate:
        """:func:`certify_group` with these settings (its parameters ``name``, ``lower_network``)."""
        if not isinstance(name, str):
            raise InputError(f"name must be a group name such as 'S3' or 'Z2^2', got {name!r:.80}", param="name")
        if lower_network is not None:
            lower_network = check_network(lower_network, "lower_network")
        try:
            order = int(as_group(name).order)  # the theory checks the name and MAX_GROUP_ORDER before building
        except InputError:
            raise
        except ValueError as exc:
            raise InputError(str(exc), param="name") from None

        def refuse(width: int) -> None:
            over = _Sizes(order * order, 2 * order, order, 2, 2, width, int(self.n_starts)).exceeded()
            if over is not None:
                check_cost(
                    over[1],
                    over[2],
                    param="name",
                    value=name,
                    what=f"{over[3]} for |G| = {order}",
                    hint="theory.groups.max_margin(name) gives gamma* in closed form (Edelman Thm 7.9)",
                )

        refuse(0 if lower_network is None else lower_network.width)  # the search, before the character LP
        check_allocation(
            array_bytes(order * order, order),
            "name",
            name,
            f"the class weights (|G|^2, |G|) for |G| = {order}",
            "theory.groups.max_margin(name) gives gamma* in closed form (Edelman Thm 7.9)",
        )
        try:
            lp = character_lp(name)
            Q = class_weights(name, lp.class_tau.tolist())
            net = group_construction(name, budgets=lp.budgets.tolist()) if lower_network is None else lower_network
            grading = group_grading(name)
        except LimitError as exc:  # a limit of the character table or the groups module: name the parameter here
            raise LimitError(
                f"name = {name} is too large for the certificate: {exc}",
                param="name",
                value=name,
                limit=exc.limit,
                hint=exc.hint,
            ) from None
        refuse(net.width)  # the forward pass of the construction (2 sum d_R^3 neurons)
        built = None if lower_network is not None else "the construction of Lemmas D.15-D.16 with the LP budgets"
        return self._certify(
            GroupTask(as_group(name)),
            2,
            net,
            grading,
            built,
            Q=Q,
            weighting="q uniform, tau from the dual of the character LP (App. D.9.2)",
        )


@fill_doc(_DOC)
def certify_modular(
    p: int, k: int, lower_network: HomogeneousNetwork | None = None, n_starts: int = 8, seed: int = 0, tol: float = 1e-6
) -> Certificate:
    r"""k-input modular addition on :math:`\mathbb Z_p`: the construction of Shi Lemma C.18 (lower; or
    ``lower_network``), uniform q and tau (upper), the SDP blocked by :func:`numerics.sos.modular_grading`.

    Parameters
    ----------
    p : int
        Odd modulus >= 3.
    k : int
        Number of inputs >= 1.
    {{settings}}

    {{returns_certificate}}

    Examples
    --------
    Both ends agree with :math:`\gamma^*` of Shi Thm 4.9 (:func:`theory.modular.max_margin`):

    >>> from theory.modular import max_margin
    >>> cert = certify_modular(3, 2, n_starts=2)
    >>> cert.certified, cert.verdict(max_margin(3, 2))[0]
    (True, 'pass')
    >>> round(cert.lower, 9), round(float(max_margin(3, 2)), 9)
    (0.07856742, 0.07856742)
    """
    return Certifier(n_starts, seed, tol).modular(p, k, lower_network)


@fill_doc(_DOC)
def certify_parity(
    n: int, k: int, lower_network: HomogeneousNetwork | None = None, n_starts: int = 8, seed: int = 0, tol: float = 1e-6
) -> Certificate:
    r"""(n, k)-sparse parity, S the first k bits: the construction of Edelman App. D.7 (lower; or
    ``lower_network``), uniform q (upper; binary, so tau is trivial), the SDP blocked by sign flips.

    Parameters
    ----------
    n : int
        Number of bits.
    k : int
        Size of the support, ``1 <= k <= n``.
    {{settings}}

    {{returns_certificate}}

    Examples
    --------
    >>> from theory.parity import max_margin
    >>> cert = certify_parity(3, 2, n_starts=2)
    >>> cert.certified, cert.verdict(max_margin(2))[0]
    (True, 'pass')
    >>> round(cert.lower, 9), round(float(max_margin(2)), 9)
    (0.544331054, 0.544331054)
    """
    return Certifier(n_starts, seed, tol).parity(n, k, lower_network)


@fill_doc(_DOC)
def certify_group(
    name: str,
    lower_network: HomogeneousNetwork | None = None,
    n_starts: int = 8,
    seed: int = 0,
    tol: float = 1e-6,
) -> Certificate:
    r"""Composition in a finite group G: the construction of Edelman Lemmas D.15-D.16 with the character LP's
    budgets (lower; or ``lower_network``), class weights :math:`\tau_{C(y^{-1}c')}` from the character LP's
    dual (upper; computed by HiGHS, not the closed form), the SDP blocked by
    :func:`numerics.sos.group_grading`.

    Parameters
    ----------
    name : str
        A group name of :func:`theory.finite_groups.group` whose irreps are all real (e.g. ``"S3"``, ``"Z2^2"``).
    {{settings}}

    {{returns_certificate}}

    Examples
    --------
    >>> from theory.groups import max_margin
    >>> cert = certify_group("Z2", n_starts=2)
    >>> cert.certified, cert.verdict(max_margin("Z2"))[0]
    (True, 'pass')
    >>> round(cert.lower, 9), round(float(max_margin("Z2")), 9)
    (0.272165527, 0.272165527)
    """
    return Certifier(n_starts, seed, tol).group(name, lower_network)
