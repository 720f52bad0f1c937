r"""Lemma B.4 of Karp thesis App. B.1.3 (``docs/local_signal.md``): the minibatch gradients of Alg. 3.1 against the
population gradient, at a fixed state ``(w, b)``.

The population gradient is computed without sampling (:func:`population_gradient`): by the symmetry
``(X, y) -> (-X, -y)`` it is the expectation at ``y = 1``; with ``A_i, B_i`` the projections of noise row i on
``w_*`` and ``e_perp = w_perp/|w_perp|``, ``Z_i = c A_i + v B_i ~ N(0, s^2)``, ``s = sigma sqrt(c^2 + v^2)``,
``E[A_i | Z_i] = c Z_i/(c^2+v^2)`` and ``E[B_i | Z_i] = v Z_i/(c^2+v^2)`` (App. B.1.2, (B.4)-(B.5)), and the
orthogonal complement contributes nothing. So, with ``m(z) = 1{z > -b} + 1{z < b}``,
``e(z) = 1{z > -b} - 1{z < b}``, ``phi_b`` the activation, ``g = phi_b(c)``, ``S_{-1}`` the sum of the other
``k - 1`` rows' ``phi_b(Z_i)`` and ``psi(x) = E sigma(-(x + g + S_{-1}))``:

* ``grad_w . w_* = -m(c) P - k c/(c^2+v^2) G``, ``grad_w . e_perp = -k v/(c^2+v^2) G``,
* ``grad_b = -e(c) P - k D``,

with ``P = E psi(phi_b(Z))``, ``G = E[Z m(Z) psi(phi_b(Z))]``, ``D = E[e(Z) psi(phi_b(Z))]`` (Z ~ N(0, s^2)). The law of
``S_{-1}`` is the (k-1)-fold convolution of the law of ``phi_b(Z)`` (an atom at 0 when b < 0), binned on a lattice
of step ``h`` and convolved by FFT; the three Gaussian integrals are Gauss-Legendre on the pieces cut at
``z = +-|b|``. The binning adds ``h^2/12`` to each row's variance: the error is ``O(k h^2)`` (the lattice step is a
parameter, and the tests halve it).

The minibatch side (:func:`minibatch_deviations`) draws full d-dimensional samples (:func:`numerics.local_signal.
sample_inputs`: the signal row at a uniform position, y uniform) and differentiates the CNN per sample
(:func:`sample_gradients`); it reads nothing of the population computation but its result.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special

from theory import local_signal as tl
from theory._checks import InputError, LimitError, format_count
from theory._docstrings import fill_doc

from . import limits
from .limits import STEP_COST, array_bytes, check_allocation, check_real
from .local_signal import MAX_K, _batch, _finite, _gauss_legendre01, _k, _sigma, sample_inputs
from .local_signal_dynamics import _phi

#: The k and sigma Parameters of :mod:`theory.local_signal` (filled in by :func:`theory._docstrings.fill_doc`).
_DOC = {"k_rows_sigma": tl._DOC["k_rows_sigma"]}

__all__ = [
    "MAX_LATTICE",
    "MAX_NODES",
    "PopulationGradient",
    "minibatch_deviations",
    "population_gradient",
    "sample_gradients",
]

MAX_LATTICE = 2**24
"""Largest lattice of :func:`population_gradient` (the (k-1)-fold convolution, before padding to a power of 2)."""

MAX_NODES = 10_000
"""Largest number of Gauss-Legendre nodes per piece of :func:`population_gradient`."""


@dataclass(frozen=True)
class PopulationGradient:
    """The population gradient of the logistic loss of Alg. 3.1 at ``(w, b)``, ``w = c w_* + v e_perp``.

    Attributes
    ----------
    star : float
        ``grad_w E l . w_*``.
    perp : float
        ``grad_w E l . e_perp`` (0 when ``v = 0``).
    bias : float
        ``grad_b E l``.
    loss_weight : float
        ``P = E sigma(-y f)``.

    Examples
    --------
    At ``c = 0`` the output is symmetric about 0, so ``E sigma(-y f) = 1/2``:

    >>> g = population_gradient(4, 0.7, 0.0, 1.0, 0.2)
    >>> round(g.loss_weight, 12)
    0.5
    """

    star: float
    perp: float
    bias: float
    loss_weight: float


def _sum_law(k: int, s: float, b: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    """The lattice law ``(u, p)`` of the sum of ``k - 1`` iid ``phi_b(Z)``, ``Z ~ N(0, s^2)``, on the step ``h``."""
    a = abs(b)
    m = k - 1
    points = max(m, 1) * (2 * ((12 * s + 2 * a) / h + 2)) + 1  # before any rounding: may be huge
    if not points <= MAX_LATTICE:
        raise LimitError(
            f"the lattice of the {m}-fold convolution needs about {points:.3g} points (> {MAX_LATTICE}): take a "
            "coarser step h or a smaller k or |b|",
            param="h",
            value=h,
            limit=MAX_LATTICE,
        )
    J = math.ceil((12 * s + 2 * a) / h) + 1
    u = np.arange(-J, J + 1) * h

    def cdf(x: np.ndarray) -> np.ndarray:  # P[phi_b(Z) <= x], phi_b nondecreasing
        if b < 0:
            z = np.where(x >= 0, x + a, x - a)
        else:
            z = np.where(np.abs(x) <= 2 * b, x / 2, np.where(x > 0, x - b, x + b))
        return special.ndtr(z / s)

    p = cdf(u + h / 2) - cdf(u - h / 2)
    N = m * (2 * J) + 1
    L = 1 << (N - 1).bit_length()
    q = np.fft.irfft(np.fft.rfft(p, L) ** m, L)[:N]
    return (np.arange(N) - m * J) * h, np.clip(q, 0.0, None)


@fill_doc(_DOC)
def population_gradient(
    k: int, sigma: float, c: float, v: float, b: float, *, h: float | None = None, nodes: int = 200
) -> PopulationGradient:
    """The population gradient of Alg. 3.1's logistic loss at ``w = c w_* + v e_perp`` and bias ``b`` without
    sampling: lattice convolution and Gauss-Legendre quadrature (module docstring).

    Parameters
    ----------
    {{k_rows_sigma}}
    c, v : float
        ``w . w_*`` and ``|w_perp|`` (``v >= 0``, not both 0).
    b : float
        The bias.
    h : float, optional
        Lattice step; default ``min(1, s + |b|)/400`` with ``s = sigma sqrt(c^2 + v^2)`` (the binning error is
        ``O(k h^2)`` times the curvature of the logistic function, which has scale 1).
    nodes : int
        Gauss-Legendre nodes per piece of the Z integrals, >= 10.

    Returns
    -------
    PopulationGradient

    Examples
    --------
    At ``b > 0`` and ``c, v -> 0`` every row is in its linear part (``phi_b(z) = 2z``): the gradient along ``w_*``
    is ``-E[sigma(-f) 2 y (y w_* + sum_i X_i)] . w_* -> -1`` (the signal row; the noise rows average out):

    >>> g = population_gradient(3, 0.5, 1e-4, 1e-4, 1.0)
    >>> round(g.star, 3), round(g.loss_weight, 3), g.bias == 0
    (-1.0, 0.5, True)
    """
    k, sigma = _k(k), _sigma(sigma)
    if k > MAX_K:
        raise InputError(f"k must be <= {MAX_K}, got {k}", param="k")
    c, v, b = check_real(c, "c"), check_real(v, "v"), check_real(b, "b")
    if v < 0 or (c == 0 and v == 0):
        raise InputError(f"need v >= 0 and (c, v) != (0, 0), got c = {c}, v = {v}", param="v")
    if isinstance(nodes, bool) or not isinstance(nodes, numbers.Integral) or nodes < 10:  # numpy integers too
        raise InputError(f"nodes must be an integer >= 10, got {nodes!r:.40}", param="nodes")
    nodes = int(nodes)
    if nodes > MAX_NODES:
        raise LimitError(f"nodes = {nodes} is above {MAX_NODES}", param="nodes", value=nodes, limit=MAX_NODES)
    r2 = c * c + v * v
    s = sigma * math.sqrt(r2)
    if not (0 < r2 < math.inf and 0 < s < math.inf):
        raise InputError(f"sigma^2 (c^2 + v^2) must be a positive float, got c = {c}, v = {v}", param="c")
    step = min(1.0, s + abs(b)) / 400 if h is None else check_real(h, "h")
    if not 0 < step <= 1:
        raise InputError(f"h (the lattice step) must lie in (0, 1], got {h}", param="h")
    u, q = _sum_law(k, s, b, step)
    keep = q > 1e-300
    u, q = u[keep], q[keep]
    a, edge = abs(b), 12 * s
    cuts = [-edge, *([-a, a] if 0 < a < edge else [0.0]), edge]  # the Gaussian's +-12 s, cut at the kinks +-|b|
    x, wq = _gauss_legendre01(nodes)
    zs, ws = [], []
    for lo, hi in itertools.pairwise(cuts):
        zs.append(lo + (hi - lo) * x)
        ws.append((hi - lo) * wq)
    z, wz = np.concatenate(zs), np.concatenate(ws)
    wz = wz * np.exp(-0.5 * (z / s) ** 2) / (s * math.sqrt(2 * math.pi))
    g = float(_phi(c, b))
    check_allocation(array_bytes(z.size, u.size), "h", step, f"the {z.size} x {u.size} psi table")
    psi = special.expit(-(_phi(z, b)[:, None] + g + u[None, :])) @ q
    mz = (z > -b).astype(float) + (z < b)
    ez = (z > -b).astype(float) - (z < b)
    P, G, D = float(wz @ psi), float(wz @ (z * mz * psi)), float(wz @ (ez * psi))
    _finite([P, G, D], "the population gradient", "c")
    m_c = float(c > -b) + float(c < b)
    e_c = float(c > -b) - float(c < b)
    return PopulationGradient(
        star=-m_c * P - k * c / r2 * G, perp=-k * v / r2 * G, bias=-e_c * P - k * D, loss_weight=P
    )


def sample_gradients(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample gradients of ``l(f, y) = log(1 + exp(-y f))``, ``f = sum_i phi_b(<w, X_i>)`` (Alg. 3.1):
    ``-y sigma(-y f) sum_i m(z_i) X_i`` in w and ``-y sigma(-y f) sum_i (1{z_i > -b} - 1{z_i < b})`` in b.

    Parameters
    ----------
    X : np.ndarray, shape (n, k+1, d)
        Inputs.
    y : np.ndarray, shape (n,)
        Labels in {-1, +1}.
    w : np.ndarray, shape (d,)
        The filter.
    b : float
        The bias.

    Returns
    -------
    g_w : np.ndarray, shape (n, d)
    g_b : np.ndarray, shape (n,)

    Examples
    --------
    One sample, one active row ``z = 1 > -b``, ``f = 1.5``:

    >>> import numpy as np
    >>> gw, gb = sample_gradients(np.array([[[1.0, 0.0]]]), np.array([1.0]), np.array([1.0, 0.0]), 0.5)
    >>> np.allclose(gw, [[-special.expit(-1.5), 0.0]]), np.allclose(gb, [-special.expit(-1.5)])
    (True, True)
    """
    X, y, w = limits.check_real_array(X, "X"), limits.check_real_array(y, "y"), limits.check_real_array(w, "w")
    if X.ndim != 3 or y.shape != X.shape[:1] or w.shape != X.shape[2:]:
        raise InputError(
            f"shapes X (n, k+1, d), y (n,), w (d,) do not match: {X.shape}, {y.shape}, {w.shape}", param="X"
        )
    b = check_real(b, "b")
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        z = X @ w
        f = _phi(z, b).sum(1)
        dl = -y * special.expit(-y * f)
        up, down = (z > -b).astype(float), (z < b).astype(float)
        g_w, g_b = dl[:, None] * np.einsum("ni,nid->nd", up + down, X), dl * (up - down).sum(1)
    _finite(g_w, "the per-sample gradients", "X")
    _finite(g_b, "the per-sample gradients", "X")
    return g_w, g_b


def minibatch_deviations(
    k: int,
    d: int,
    sigma: float,
    c: float,
    v: float,
    b: float,
    n: int,
    batches: int,
    seed: int,
    population: PopulationGradient,
    chunk: int = 50_000,
) -> dict[str, np.ndarray]:
    """``batches`` independent minibatches of ``n`` samples at ``w = c w_* + v e_perp`` (``w_* = e_1``,
    ``e_perp = e_2``): each batch's ``||mean g_w - grad_w||_2`` and ``|mean g_b - grad_b|`` against ``population``,
    and the batch means of the gradient's components along ``w_*`` and ``e_perp`` and in b. Refused before any draw:
    a draw of ``min(chunk, n)`` samples above the memory available (LimitError naming ``d``), the Monte-Carlo draws
    (:func:`numerics.limits.check_mc`), and the work ``batches (n ((k+1) d + 2) + ceil(n / chunk) 40 STEP_COST)``
    (each draw of a batch is about 40 numpy calls, :data:`numerics.limits.STEP_COST` each: 0.2-0.35 ms a batch of 10
    on a loaded 2-core machine) above :func:`numerics.limits.max_work` (LimitError naming ``batches``, or ``n``).

    Parameters
    ----------
    k : int
        Number of noise rows, >= 2.
    d : int
        Dimension, >= 2.
    sigma : float
        Noise standard deviation.
    c, v, b : float
        The state.
    n : int
        Batch size.
    batches : int
        Number of independent batches.
    seed : int
        Seed of ``np.random.default_rng``.
    population : PopulationGradient
        The population gradient at the state.
    chunk : int
        Samples drawn at a time.

    Returns
    -------
    dict of np.ndarray
        ``dev_w``, ``dev_b`` (shape (batches,)) and ``mean`` (shape (batches, 3): star, perp, bias).

    Examples
    --------
    >>> pg = population_gradient(3, 0.6, 0.8, 0.3, -0.1)
    >>> out = minibatch_deviations(3, 2, 0.6, 0.8, 0.3, -0.1, 500, 4, seed=0, population=pg)
    >>> out["dev_w"].shape, bool((out["dev_b"] < 0.2).all())
    ((4,), True)
    """
    seed = limits.check_seed(seed)
    k, sigma, n = _k(k), _sigma(sigma), _batch(n, "n")
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 2:  # numpy integers too
        raise InputError(f"d must be an integer >= 2 (w_* and e_perp), got {d!r}", param="d")
    d = int(d)
    batches = _batch(batches, "batches")
    chunk = _batch(chunk, "chunk")
    c, v, b = check_real(c, "c"), check_real(v, "v"), check_real(b, "b")
    if not isinstance(population, PopulationGradient):
        raise InputError(
            f"population must be a PopulationGradient, got {type(population).__name__}", param="population"
        )
    m = min(chunk, n)
    check_allocation(
        array_bytes(m, k + 1, d),
        param="d",
        value=d,
        what=f"a draw of min(chunk, n) = {format_count(m)} samples X (m, k+1, d) in float64",
        hint="use a smaller d or chunk",
    )
    per_sample = (k + 1) * d + 2
    limits.check_mc(n * batches, "n", per_sample, "n batches ((k+1) d + 2) draws", minimum=1, sizes={"k": k, "d": d})
    draws, loop = n * batches * per_sample, batches * -(-n // chunk) * 40 * STEP_COST
    limits.check_work(
        draws + loop,
        param="batches" if loop >= draws else "n",
        value=batches if loop >= draws else n,
        what=f"the batches (batches (n ((k+1) d + 2) + ceil(n / chunk) 40 STEP_COST) = {format_count(batches)} x "
        f"({format_count(n * per_sample)} + {format_count(-(-n // chunk) * 40 * STEP_COST)}))",
        hint="use fewer batches" if loop >= draws else "use a smaller n",
    )
    w_star, e_perp = np.zeros(d), np.zeros(d)
    w_star[0] = e_perp[1] = 1.0
    w = c * w_star + v * e_perp
    pop_w = population.star * w_star + population.perp * e_perp
    rng = np.random.default_rng(seed)
    means = np.empty((batches, d + 1))
    for t in range(batches):
        acc = np.zeros(d + 1)
        done = 0
        while done < n:
            m = min(chunk, n - done)
            X, y = sample_inputs(rng, m, k, d, sigma, w_star)
            gw, gb = sample_gradients(X, y, w, b)
            acc[:d] += gw.sum(0)
            acc[d] += gb.sum()
            done += m
        means[t] = acc / n
    _finite(means, "the batch means", "c")
    dev_w = np.linalg.norm(means[:, :d] - pop_w, axis=1)
    dev_b = np.abs(means[:, d] - population.bias)
    return {"dev_w": dev_w, "dev_b": dev_b, "mean": np.column_stack([means[:, 0], means[:, 1], means[:, d]])}
