r"""The Ch. 6 sparse-initialization algorithms run end to end on the cube {±1}^n (numpy), Edelman thesis App. C.2.

* :func:`thm_c16_one_step`: the eps-perturbed s-sparse init and one truncated batch gradient step of Thm C.16
  (= Thm 6.5), and the best correlation with :math:`\chi_S` of the subnetwork of good neurons, before and after.
* :func:`lemma_c5_deviations`: the sup-norm distance between the sample and the population hinge-loss gradient of a
  2-layer ReLU network with respect to (W, b) (Lemma C.5), for many independent samples.
* :func:`hinge_risk`: the (weighted) mean hinge loss of scores (Lemmas C.7-C.9).
* :func:`lemma_c6_features`: the ideal features of Lemma C.6 on the cube, and :func:`lemma_c9_convex_phase`: the
  convex phase of Thm C.11 (Lemma C.9) on given features.

A sample of m i.i.d. uniform points of {±1}^n enters only through its counts c(x) (a multinomial draw): every
empirical mean over the sample is :math:`\frac1m\sum_x c(x)\,g(x)`, so the cost does not grow with m and the
sample is exactly the i.i.d. one. Parity support S = {0..k-1} (by symmetry, App. B.1.2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theory._checks import InputError, check_cost
from theory._docstrings import fill_doc

from .limits import (
    STEP_COST,
    array_bytes,
    check_allocation,
    check_count,
    check_real,
    check_real_array,
    check_rng,
    check_seed,
    check_work,
)
from .walsh import characters, cube

__all__ = [
    "hinge_ridge_minimiser",
    "hinge_risk",
    "lemma_c5_deviations",
    "lemma_c6_features",
    "lemma_c9_convex_phase",
    "sample_counts",
    "thm_c11_end_to_end",
    "thm_c16_one_step",
]

#: Parameters entries shared by the one-step runs' docstrings (filled in by :func:`theory._docstrings.fill_doc`).
_DOC = {
    "width_m_seed": """width : int
    The width r (even).
m : int
    The sample size.
seed : int or sequence of int
    Seeds the init and the sample (``numpy.random.default_rng``).""",
}

MAX_CUBE_N = 16
"""Largest n of the cube computations here (2^16 points)."""


def _check_seeds(seed: object) -> int | list[int]:
    """The seed of the one-step runs: an int >= 0 or a non-empty sequence of them (the entropy of
    ``numpy.random.default_rng``, e.g. ``[seed, n, k, s]``), each checked by :func:`numerics.limits.check_seed`."""
    if isinstance(seed, Sequence) and not isinstance(seed, (str, bytes)):
        if not seed:
            raise InputError("seed must be an integer >= 0 or a non-empty sequence of them, got []", param="seed")
        return [check_seed(v, why="each entry of a seed sequence") for v in seed]
    return check_seed(seed)


BLAS_PER_ENTRY = 32
"""How many multiply-adds of a BLAS matrix product count as one array entry of :data:`numerics.limits.MAX_WORK` in
:func:`hinge_ridge_minimiser`'s cost (a product runs at about that many times numpy's per-entry speed)."""

SMALL_GRAM = 5 * 10**7
"""Largest N d^2 whose Gram matrix :func:`hinge_ridge_minimiser` forms by ``einsum`` (single-threaded) rather than by
BLAS (at N = 2048, d = 73 on two busy cores: 13 ms against 170 ms)."""

MIN_SCALED_RIDGE = 1e-12
"""Smallest weight decay over the squared largest feature that :func:`hinge_ridge_minimiser` accepts (the Newton
systems then span more than the double-precision range; Thm C.11's runs have about 8e-6)."""

MAX_SAMPLE_SIZE = 10**18
"""Largest sample size m: the sample enters only through its multinomial counts (int64), so the cost does not grow
with m."""


def _check_cube_n(n: object) -> int:
    n = check_count(n, "n")
    check_cost(
        n,
        MAX_CUBE_N,
        param="n",
        value=n,
        what="the cube computations (the whole cube {±1}^n is enumerated)",
        hint="use a smaller n",
    )
    return n


def _check_m(m: object) -> int:
    m = check_count(m, "m", message=f"the sample size m must be an integer >= 1, got {m!r:.80}")
    check_cost(m, MAX_SAMPLE_SIZE, param="m", value=m, what="sample sizes (int64 counts)", hint="use a smaller m")
    return m


def sample_counts(n: int, m: int, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """The counts c(x) of m i.i.d. uniform points of {±1}^n (multinomial), in :func:`numerics.walsh.cube` order.

    Parameters
    ----------
    n : int
        The dimension, ``1 <= n <= 16``.
    m : int
        The sample size, ``>= 1``.
    rng : numpy.random.Generator
        The generator.
    size : int, optional
        Draw this many independent samples (rows).

    Returns
    -------
    int64 array (2^n,) or (size, 2^n)
        The counts; each row sums to m.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.sparse_init import sample_counts
    >>> int(sample_counts(3, 100, np.random.default_rng(0)).sum())
    100
    """
    n, m, rng = _check_cube_n(n), _check_m(m), check_rng(rng)
    if size is not None:
        size = check_count(size, "size")
        check_work(size << n, param="size", value=size, what="the counts (size x 2^n)", hint="use a smaller size")
        check_allocation(array_bytes(size, 1 << n), param="size", value=size, what="the counts (size, 2^n) in int64")
    p = np.full(1 << n, 1.0 / (1 << n))
    return rng.multinomial(m, p, size=size).astype(np.int64)


def hinge_risk(scores: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> float:
    r"""The mean hinge loss :math:`\sum_x p(x)\max(0, 1 - y(x)\,\mathrm{score}(x))` with weights p (uniform if None).

    Parameters
    ----------
    scores : array (N,)
        The predictions.
    y : array (N,)
        The labels in {±1}.
    weights : array (N,), optional
        Nonnegative weights (normalised to sum 1).

    Returns
    -------
    float
        The risk.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.sparse_init import hinge_risk
    >>> hinge_risk(np.array([0.0, 2.0]), np.array([1, 1]))
    0.5
    """
    s, t = check_real_array(scores, "scores"), check_real_array(y, "y")
    if s.shape != t.shape:
        raise InputError(f"scores and labels must have one shape, got {s.shape} and {t.shape}")
    loss = np.maximum(0.0, 1.0 - t * s)
    if weights is None:
        return float(loss.mean())
    p = check_real_array(weights, "weights")
    if p.shape != s.shape or np.any(p < 0) or not p.sum() > 0:
        raise InputError("weights must be nonnegative, of the scores' shape, and not all 0", param="weights")
    return float(loss @ p / p.sum())


def _finite(a: np.ndarray, what: str) -> np.ndarray:
    """``a`` when every entry is finite; else an InputError (the weights or biases left the float range)."""
    if not np.isfinite(a).all():
        raise InputError(f"{what} leave the float range: use eps, biases, eta and lam of moderate size")
    return a


def _best_correlation(features: np.ndarray, chi: np.ndarray) -> tuple[float, float]:
    """The cosine between chi and its least-squares projection on span{1, features} over the uniform cube (the best
    correlation any output weights on these features reach), and the accuracy of the projection's sign."""
    A = np.column_stack([np.ones(len(chi)), features])
    scale = np.abs(A).max(axis=0)
    scale[scale == 0] = 1.0
    coef, *_ = np.linalg.lstsq(A / scale, chi.astype(np.float64), rcond=None)
    f = (A / scale) @ coef
    norm = float(np.sqrt(np.mean(f * f)))
    corr = float(np.mean(f * chi) / norm) if norm > 0 else 0.0
    return corr, float(np.mean(np.sign(f) == chi))


def _draw_init(
    rng: np.random.Generator, n: int, s: int, half: int, n_biases: int, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The random part of the App. C.2 init and sample, drawn from ``rng`` in this order: for each of the ``half``
    neurons a uniform s-subset of ``range(n)`` (``(half, s)``, unsorted), a bias index uniform in
    ``range(n_biases)`` and an output weight ``u = ±1``; then the counts of ``m`` uniform points of the cube
    (:func:`sample_counts`)."""
    supports = np.argsort(rng.random((half, n)), axis=1)[:, :s]
    bias_index = rng.integers(n_biases, size=half)
    u = rng.choice(np.array([-1.0, 1.0]), size=half)
    return supports, bias_index, u, sample_counts(n, m, rng)


@fill_doc(_DOC)
def thm_c16_one_step(
    n: int,
    k: int,
    s: int,
    eps: float,
    biases: Sequence[float],
    eta: float,
    lam: float,
    gamma: float,
    width: int,
    m: int,
    seed: int | Sequence[int],
) -> dict[str, Any]:
    r"""One run of the Thm C.16 algorithm (App. C.2.3) on the (n, k)-parity with S = {0..k-1}.

    Init: r/2 neurons with weights 1 on a uniform s-subset S' and ``eps`` elsewhere, a bias drawn uniformly from
    ``biases``, output weight u = ±1; each mirrored (same w, b, output -u); output bias 0, so f = 0. One step on a
    sample of m i.i.d. uniform points (labels :math:`\chi_S`), hinge loss: at f = 0 the first-layer gradient of neuron
    i is :math:`-u_i\frac1m\sum_x y\,1\{w_i\cdot x+b_i>0\}\,x`; it is truncated (entries of modulus <= ``gamma``
    set to 0) and :math:`w_i \leftarrow (1-\lambda)w_i - \eta\,\mathrm{trunc}(\nabla)`; biases and output weights do
    not move. The subnetwork is the good neurons (S' ⊆ S, both copies): at f = 0 a neuron's step depends only on its
    own parameters, so the other neurons' steps, which cannot change the subnetwork, are not computed.

    Parameters
    ----------
    n, k, s : int
        Dimension, parity degree, init sparsity (``s < k <= n``, ``n <= 16``).
    eps : float
        The perturbation epsilon of the init.
    biases : sequence of float
        The bias grid of the init.
    eta, lam, gamma : float
        First-layer learning rate, weight decay and truncation threshold.
    {{width_m_seed}}

    Returns
    -------
    dict
        ``good`` (good neurons among the r/2), ``good_per_bias`` (their count per bias), ``corr_after``,
        ``corr_init`` (best correlation with chi_S of the good neurons after the step and at init, output weights tied
        within each (bias, copy) group: a lower bound on the best subnetwork),
        ``acc_after`` (accuracy of the sign of that fit), ``support_exact`` (share of the good neurons whose
        untruncated gradient coordinates are exactly S \ S'), ``w_S'``, ``w_S-S'``, ``w_out`` (the mean post-step
        weights of the good neurons whose output weight moved their S \ S' weights up, by coordinate class).

    Examples
    --------
    >>> from numerics.sparse_init import thm_c16_one_step
    >>> out = thm_c16_one_step(7, 4, 2, 0.1, [-0.0375, -0.0125, 0.0125, 0.0375], 2 / 15, 79 / 80, 1 / 16, 182,
    ...                        25494, 0)
    >>> out["corr_after"] > 0.5, out["corr_init"] < 0.1
    (True, True)
    """
    seed = _check_seeds(seed)
    n, m = _check_cube_n(n), _check_m(m)
    k, s = check_count(k, "k"), check_count(s, "s", minimum=0)
    width = check_count(width, "width", minimum=2)
    eps, eta, lam, gamma = (
        check_real(v, name) for v, name in ((eps, "eps"), (eta, "eta"), (lam, "lam"), (gamma, "gamma"))
    )
    grid = check_real_array(biases, "biases")
    if not 0 <= s < k <= n or width % 2 or grid.ndim != 1 or not grid.size:
        raise InputError(
            f"need 0 <= s < k <= n, an even width >= 2 and a non-empty 1-D bias grid; got {(n, k, s, width)} and "
            f"biases of shape {grid.shape}"
        )
    half = width // 2
    check_work(
        half * ((1 << n) * 4 + STEP_COST),
        param="width",
        value=width,
        what="the one step (r/2 neurons x 2^n points, and a Python loop over the good neurons)",
        hint="use a smaller width",
    )
    check_allocation(array_bytes(1 << n, half, 2), param="width", value=width, what="the activations (2^n, r/2) x 2")
    supports, bias_index, u, counts = _draw_init(np.random.default_rng(seed), n, s, half, len(grid), m)
    bias = grid[bias_index]
    X = cube(n).astype(np.float64)
    chi = characters(n, list(range(k))).astype(np.float64)
    good = np.all(supports < k, axis=1) if s else np.ones(half, dtype=bool)
    idx = np.flatnonzero(good)
    W0 = np.full((len(idx), n), eps)
    for row, i in enumerate(idx):
        W0[row, supports[i]] = 1.0
    b = bias[idx]
    with np.errstate(over="ignore", invalid="ignore"):
        pre = _finite(X @ W0.T + b, "the init's pre-activations w.x + b")
    act = (pre > 0).astype(np.float64)  # (2^n, G): the good neurons' ReLU' at init
    corr_hat = ((counts * chi)[:, None] * X).T @ act / m  # (n, G): (1/m) sum_x c y x 1{.}
    inside = np.zeros(n, dtype=bool)
    inside[:k] = True
    W_all, up_all, exact = [], [], 0
    for sign in (1.0, -1.0):  # the neuron and its mirror (output weight -u)
        grad = -(sign * u[idx])[None, :] * corr_hat  # (n, G)
        kept = np.abs(grad) > gamma
        W_all.append((1.0 - lam) * W0 - eta * np.where(kept, grad, 0.0).T)
        for row in range(len(idx)):
            rest = inside.copy()
            rest[supports[idx[row]]] = False  # S minus S'
            exact += sign == 1.0 and bool(np.array_equal(kept[:, row], rest))
            up_all.append(bool(-grad[rest, row].mean() > 0))
    with np.errstate(over="ignore", invalid="ignore"):
        W1, up = _finite(np.vstack(W_all), "the weights after the step"), np.array(up_all, dtype=bool)
    B1, bias_id = np.concatenate([b, b]), np.concatenate([bias_index[idx], bias_index[idx]])
    # the subnetwork: the copy of each good neuron whose step raised its S \ S' weights, one feature per bias (the mean
    # of its neurons: tied output weights, so the fit is a lower bound on the best subnetwork's)
    groups = [g for j in range(len(grid)) if len(g := np.flatnonzero(up & (bias_id == j)))]

    def grouped(Wm: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.maximum(_finite(X @ Wm.T + B1, "the pre-activations after the step"), 0.0)
        return np.column_stack([z[:, g].mean(axis=1) for g in groups])

    corr_after, acc_after = _best_correlation(grouped(W1), chi) if groups else (0.0, 0.5)
    corr_init, _ = _best_correlation(grouped(np.vstack([W0, W0])), chi) if groups else (0.0, 0.5)
    moved = [(W1[i], i % len(idx)) for i in np.flatnonzero(up)]
    per_bias = [int(np.sum(bias_index[idx] == j)) for j in range(len(grid))]

    def mean_weight(cls: str) -> float | None:
        vals = []
        for w, row in moved:
            support = np.zeros(n, dtype=bool)
            support[supports[idx[row]]] = True
            mask = {"S'": support, "S-S'": inside & ~support, "out": ~inside}[cls]
            vals += w[mask].tolist()
        return float(np.mean(vals)) if vals else None

    return {
        "good": len(idx),
        "good_per_bias": per_bias,
        "corr_after": corr_after,
        "corr_init": corr_init,
        "acc_after": acc_after,
        "support_exact": exact / len(idx) if len(idx) else 0.0,
        "w_S'": mean_weight("S'"),
        "w_S-S'": mean_weight("S-S'"),
        "w_out": mean_weight("out"),
    }


def lemma_c5_deviations(n: int, k: int, width: int, m: int, draws: int, seed: int) -> dict[str, Any]:
    r"""Lemma C.5 by Monte Carlo: :math:`\|\nabla_{W,b}L_S - \nabla_{W,b}L_D\|_\infty` for ``draws`` independent
    samples S of m i.i.d. uniform points, labels :math:`\chi_{\{0..k-1\}}`, hinge loss, at one fixed network
    :math:`f(x) = \sum_i u_i\,\mathrm{ReLU}(w_i\cdot x + b_i) + \beta` with random parameters (``seed``):
    :math:`w_i \sim N(0, I/n)`, :math:`b_i \sim U[-1/2, 1/2]`, :math:`u_i \in \{\pm 1\}` uniform (so the per-sample
    gradient terms lie in [-1, 1]), :math:`\beta = 0`. The population gradient is the mean over the whole cube.

    Parameters
    ----------
    n, k : int
        Dimension (``<= 16``) and parity degree.
    width : int
        The width r.
    m : int
        The sample size.
    draws : int
        The number of independent samples.
    seed : int
        Seeds the network and the samples.

    Returns
    -------
    dict
        ``deviation`` (array (draws,): the sup-norm distance per sample), ``coordinates`` (n r + r) and
        ``active_share`` (the share of cube points with hinge margin < 1, where the gradient is not 0).

    Examples
    --------
    >>> from numerics.sparse_init import lemma_c5_deviations
    >>> out = lemma_c5_deviations(6, 2, 4, 400, 10, 0)
    >>> out["deviation"].shape, out["coordinates"]
    ((10,), 28)
    """
    seed = check_seed(seed)
    n, m, k = _check_cube_n(n), _check_m(m), check_count(k, "k")
    width, draws = check_count(width, "width"), check_count(draws, "draws")
    if not k <= n:
        raise InputError(f"need 1 <= k <= n; got n = {n}, k = {k}", param="k")
    entries = (1 << n) * (n + 1) * width  # the per-point gradients (2^n, n r + r)
    check_allocation(
        array_bytes(entries), param="width", value=width, what="the per-point gradients (2^n, (n+1) r) in float64"
    )
    check_work(
        (draws + 2) * entries,
        param="draws" if draws > width else "width",
        value=max(draws, width),
        what="the gradients of the samples (draws x 2^n x (n+1) r)",
        hint="use fewer draws or a smaller width",
    )
    rng = np.random.default_rng(seed)
    W = rng.normal(0.0, 1.0 / np.sqrt(n), size=(width, n))
    b = rng.uniform(-0.5, 0.5, size=width)
    u = rng.choice(np.array([-1.0, 1.0]), size=width)
    X = cube(n).astype(np.float64)
    y = characters(n, list(range(k))).astype(np.float64)
    pre = X @ W.T + b
    f = np.maximum(pre, 0.0) @ u
    active = (y * f < 1).astype(np.float64)  # hinge derivative -y where the margin is below 1
    gate = (pre > 0) * (-(y * active))[:, None] * u[None, :]  # (2^n, r): d loss / d b_i per point
    per_point = np.concatenate([(gate[:, :, None] * X[:, None, :]).reshape(len(X), -1), gate], axis=1)
    population = per_point.mean(axis=0)
    counts = sample_counts(n, m, rng, size=draws)
    sample = counts @ per_point / m
    return {
        "deviation": np.abs(sample - population).max(axis=1),
        "coordinates": int(per_point.shape[1]),
        "active_share": float(active.mean()),
    }


def lemma_c6_features(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    r"""The ideal features of Lemma C.6 at every point of :math:`\{\pm1\}^n`, built from the lemma's formula:
    :math:`\psi^*(x) = (1, \mathrm{ReLU}(s_x/(2k) + \beta_j), \mathrm{ReLU}(-s_x/(2k) + \beta_j))_{j=0}^{k/2-1}`,
    :math:`s_x = \sum_{i\in S} x_i`, :math:`\beta_j = (-k + 2j + 1/16)/(2k)` (the corrected index set of
    ``docs/sparse_parity.md``), and the labels :math:`\chi_S(x)`, S = {0..k-1} (Edelman thesis, App. C.2.2).

    Parameters
    ----------
    n : int
        The dimension, ``1 <= n <= 16``.
    k : int
        The parity degree, even, ``2 <= k <= n``.

    Returns
    -------
    (array (2^n, k + 1), array (2^n,))
        The features (first column the constant 1) and :math:`\chi_S`.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.sparse_init import lemma_c6_features
    >>> psi, chi = lemma_c6_features(2, 2)
    >>> psi.shape, np.allclose(psi @ np.linalg.lstsq(psi, chi, rcond=None)[0], chi)
    ((4, 3), True)
    """
    n = _check_cube_n(n)
    k = check_count(k, "k")
    if k % 2 or not 2 <= k <= n:
        raise InputError(f"need an even k with 2 <= k <= n, got n = {n}, k = {k}", param="k")
    s = cube(n)[:, :k].astype(np.float64).sum(axis=1)
    betas = [(-k + 2 * j + 1 / 16) / (2 * k) for j in range(k // 2)]
    cols = (
        [np.ones(len(s))]
        + [np.maximum(s / (2 * k) + b, 0) for b in betas]
        + [np.maximum(-s / (2 * k) + b, 0) for b in betas]
    )
    return np.column_stack(cols), characters(n, list(range(k))).astype(np.float64)


def lemma_c9_convex_phase(
    psi: np.ndarray,
    y: np.ndarray,
    radius: float,
    lam: float,
    steps: int,
    m: int,
    seeds: Sequence[int],
) -> dict[str, np.ndarray]:
    r"""The convex phase of Thm C.11 (Lemma C.9), one run per seed, all seeds at once: features
    :math:`\varphi^{(1)} = \psi + \Delta` with a random perturbation of :math:`\|\Delta(x)\|_2 \le` ``radius`` at every
    point (the constant first feature is not moved), a sample of m i.i.d. uniform points of the support of ``psi``
    (multinomial counts), and ``steps`` steps of gradient descent from w = 0 on
    :math:`L_S(h_{\varphi^{(1)},w}) + \frac\lambda2\|w\|^2` (hinge loss, a subgradient) with step size
    :math:`1/(\lambda t)` (Shamir & Zhang 2013, as in the proof).

    Parameters
    ----------
    psi : array (N, d)
        The features at the N support points (uniform distribution), first column the constant 1.
    y : array (N,)
        The labels in {±1}.
    radius : float
        The perturbation bound, ``>= 0``.
    lam : float
        The weight decay, ``> 0``.
    steps : int
        T, ``>= 1``.
    m : int
        The sample size.
    seeds : sequence of int
        One run per seed (the perturbation and the sample).

    Returns
    -------
    dict of arrays (one entry per seed)
        ``risk_D``, ``risk_S`` (hinge risks of the output on the distribution and the sample), ``norm`` (its
        :math:`\|w_T\|_2`), ``distance`` (:math:`\|\varphi^{(1)}-\psi\|_{\infty,2}`) and ``error_D`` (0-1 error).

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.sparse_init import lemma_c9_convex_phase
    >>> psi = np.array([[1.0, 1.0], [1.0, -1.0]]); y = np.array([1.0, -1.0])
    >>> out = lemma_c9_convex_phase(psi, y, 0.0, 0.01, 2000, 100, [0, 1])
    >>> bool(np.all(out["risk_D"] < 0.05))
    True
    """
    P, t = check_real_array(psi, "psi"), check_real_array(y, "y")
    radius = check_real(radius, "radius", nonnegative=True)
    lam = check_real(lam, "lam", positive=True)
    steps, m = check_count(steps, "steps"), _check_m(m)
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
        raise InputError(f"seeds must be a sequence of seeds, got {seeds!r:.80}", param="seeds")
    if P.ndim != 2 or t.shape != (P.shape[0],) or not P.size or not seeds:
        raise InputError("need psi (N, d), y (N,) and seeds")
    N, d = P.shape
    check_allocation(array_bytes(len(seeds), N, d), param="seeds", value=len(seeds), what="the features (seeds, N, d)")
    check_work(
        steps * (len(seeds) * N * d * 4 + STEP_COST),
        param="steps",
        value=steps,
        what="the gradient steps (steps x seeds x N x d)",
        hint="use fewer steps or seeds",
    )
    phis, weights = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        delta = rng.normal(size=(N, d))
        delta[:, 0] = 0.0
        delta *= (radius * rng.uniform(0.5, 1.0, size=(N, 1))) / np.maximum(
            np.linalg.norm(delta, axis=1, keepdims=True), 1e-300
        )
        phis.append(P + delta)
        weights.append(rng.multinomial(int(m), np.full(N, 1.0 / N)) / m)
    Phi, p = np.stack(phis), np.stack(weights)  # (R, N, d), (R, N)
    w = np.zeros((len(seeds), d))
    py = p * t
    for step in range(1, steps + 1):
        scores = np.einsum("rnd,rd->rn", Phi, w)
        active = (t * scores < 1).astype(np.float64)
        grad = -np.einsum("rn,rnd->rd", py * active, Phi) + lam * w
        w -= grad / (lam * step)
    scores = np.einsum("rnd,rd->rn", Phi, w)
    loss = np.maximum(0.0, 1.0 - t * scores)
    return {
        "risk_D": loss.mean(axis=1),
        "risk_S": (loss * p).sum(axis=1),
        "norm": np.linalg.norm(w, axis=1),
        "distance": np.linalg.norm(Phi - P, axis=2).max(axis=1),
        "error_D": (np.sign(scores) != t).mean(axis=1),
    }


def _spd_inverse(M: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """x -> M^{-1} x for M = I + a positive semi-definite matrix (eigenvalues >= 1): by Cholesky, or, where rounding
    has made the computed M lose definiteness (entries of very different size late in an interior-point run), by its
    eigendecomposition with the eigenvalues raised to 1, their exact lower bound."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve, eigh

    M = (M + M.T) / 2
    try:
        factor = cho_factor(M)
        return lambda x: cho_solve(factor, x)
    except LinAlgError:
        vals, vecs = eigh(M)
        vals = np.maximum(vals, 1.0)
        return lambda x: vecs @ ((vecs.T @ x) / vals)


def hinge_ridge_minimiser(
    features: np.ndarray, y: np.ndarray, weights: np.ndarray, lam: float, tol: float = 1e-9, max_iter: int = 60
) -> dict[str, Any]:
    r"""The minimiser of :math:`P(w) = \sum_x p_x\max(0, 1 - y_x\varphi(x)\cdot w) + \frac\lambda2\|w\|^2` (the
    weight-decayed hinge risk of a linear readout, Lemma C.9's objective), with a certificate.

    Solved through its dual :math:`D(\alpha) = \sum_x\alpha_x - \frac1{2\lambda}\|\sum_x\alpha_x y_x\varphi(x)\|^2`,
    :math:`0 \le \alpha_x \le p_x`, :math:`w(\alpha) = \frac1\lambda\sum_x\alpha_x y_x\varphi(x)`, by a primal-dual
    interior-point method (Mehrotra predictor-corrector) on the box, each Newton system reduced by the Woodbury identity
    to a d x d Cholesky solve (cost N d^2 per iteration for N points and d features). Weak duality,
    :math:`D(\alpha) \le \min P \le P(w(\alpha))` for every :math:`\alpha` in the box, makes the gap
    :math:`P(w) - D(\alpha)`, evaluated here in numpy, a certificate whatever the iterations did; it returns the first
    iterate whose gap is at most ``tol`` max(1, P).

    Parameters
    ----------
    features : array (N, d)
        :math:`\varphi(x)` per point.
    y : array (N,)
        The labels in {±1}.
    weights : array (N,)
        :math:`p_x \ge 0` (points of weight 0 are left out).
    lam : float
        The weight decay, ``> 0``, at least :data:`MIN_SCALED_RIDGE` times the largest squared feature (the problem is
        solved with the features scaled to max 1, an exact reformulation).
    tol : float
        The relative duality gap at which to stop, ``> 0``.
    max_iter : int
        At most this many iterations; a gap still above ``tol`` then raises (as does a step that leaves the float
        range, which happens only below any useful gap).

    Returns
    -------
    dict
        ``w`` (array (d,)), ``primal`` (P(w)), ``dual`` (the certificate's D), ``iterations``.

    Raises
    ------
    numerics.certificates.CertificateError
        If no iterate's gap is certified within ``max_iter`` iterations.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.sparse_init import hinge_ridge_minimiser
    >>> out = hinge_ridge_minimiser(np.array([[1.0], [-1.0]]), np.array([1.0, -1.0]), np.array([0.5, 0.5]), 0.5)
    >>> round(float(out["w"][0]), 6), round(out["primal"], 6)  # P(w) = max(0, 1 - w) + w^2/4: w = 1 at the kink
    (1.0, 0.25)
    """
    Phi, t, p = check_real_array(features, "features"), check_real_array(y, "y"), check_real_array(weights, "weights")
    lam, tol = check_real(lam, "lam", positive=True), check_real(tol, "tol", positive=True)
    max_iter = check_count(max_iter, "max_iter")
    if Phi.ndim != 2 or t.shape != (len(Phi),) or p.shape != t.shape or np.any(p < 0) or not p.sum() > 0:
        raise InputError("need features (N, d), labels (N,) and nonnegative weights (N,), not all 0")
    check_work(
        max_iter * Phi.shape[0] * (Phi.shape[1] ** 2 // BLAS_PER_ENTRY + 16),
        param="features",
        value=Phi.shape,
        what=f"the interior-point iterations (max_iter x N x (d^2/{BLAS_PER_ENTRY} + 16))",
        hint="use fewer features or points",
    )
    keep = p > 0
    scale = float(np.abs(Phi[keep]).max()) or 1.0  # phi -> phi / c, w -> c w, lam -> lam / c^2: the same problem
    A = t[keep, None] * Phi[keep] / scale
    lam_scaled = lam / scale**2
    if not lam_scaled >= MIN_SCALED_RIDGE:
        raise InputError(
            f"lam / max|features|^2 = {lam_scaled:.3g} is below {MIN_SCALED_RIDGE:.0e}: the problem cannot be solved to "
            "a certified gap in double precision; rescale the features or raise lam",
            param="lam",
        )
    lam = lam_scaled
    q = p[keep]
    Aq = A * q[:, None]  # dual variables scaled to beta = alpha / p in [0, 1]
    N, d = Aq.shape
    beta, s, z, v = np.full(N, 0.5), np.full(N, 0.5), q.copy(), q.copy()  # s = 1 - beta, kept apart (no cancellation)

    def certificate(b: np.ndarray) -> tuple[np.ndarray, float, float]:
        w = Aq.T @ b / lam
        half_norm = lam / 2 * float(w @ w)
        return w, float(q @ np.maximum(0.0, 1.0 - A @ w)) + half_norm, float(q @ b) - half_norm

    def to_boundary(x: np.ndarray, dx: np.ndarray) -> float:
        """The largest step in (0, 1] that keeps x + step dx >= 0."""
        neg = dx < 0
        return min(1.0, float(np.min(-x[neg] / dx[neg]))) if neg.any() else 1.0

    best = np.inf
    for iteration in range(max_iter + 1):
        w, primal, dual = certificate(beta)
        best = min(best, primal - dual)
        if primal - dual <= tol * max(1.0, abs(primal)):
            return {"w": w / scale, "primal": primal, "dual": dual, "iterations": iteration}
        if iteration == max_iter or not np.isfinite(primal - dual):
            break
        resid = Aq @ w - q - z + v  # the dual's stationarity residual
        Dinv = 1.0 / (z / beta + v / s)
        scaled = Dinv[:, None] * Aq
        # a small Gram matrix by einsum (one thread): BLAS threads that spin on a busy machine cost more than it
        gram = np.einsum("ni,nj->ij", scaled, Aq) if N * d * d <= SMALL_GRAM else Aq.T @ scaled
        inverse = _spd_inverse(np.eye(d) + gram / lam)

        def newton(rhs: np.ndarray, Dinv: np.ndarray = Dinv, inverse: Any = inverse) -> np.ndarray:
            u = Dinv * rhs  # (diag(1/Dinv) + Aq Aq^T / lam)^{-1} rhs by Woodbury
            return u - Dinv * (Aq @ inverse(Aq.T @ u / lam))

        da = newton(-resid - z + v)  # the affine (predictor) direction
        dza, dva = -z - z * da / beta, -v + v * da / s
        a = min(to_boundary(beta, da), to_boundary(s, -da), to_boundary(z, dza), to_boundary(v, dva))
        gap = float(beta @ z + s @ v)
        gap_aff = float((beta + a * da) @ (z + a * dza) + (s - a * da) @ (v + a * dva))
        mu = (gap_aff / gap) ** 3 * gap / (2 * N)
        db = newton(-resid + (mu - beta * z - da * dza) / beta - (mu - s * v + da * dva) / s)
        dz = (mu - beta * z - da * dza - z * db) / beta
        dv = (mu - s * v + da * dva + v * db) / s
        a = 0.99 * min(to_boundary(beta, db), to_boundary(s, -db), to_boundary(z, dz), to_boundary(v, dv))
        beta, s, z, v = beta + a * db, s - a * db, z + a * dz, v + a * dv
    from .certificates import CertificateError  # imports cvxpy: only when raising

    raise CertificateError(
        f"the weight-decayed hinge problem was not solved to a relative duality gap of {tol:.3g} within {iteration} "
        f"iterations (smallest gap {best:.3g}); use a larger tol"
    )


@fill_doc(_DOC)
def thm_c11_end_to_end(
    n: int,
    k: int,
    s: int,
    biases: Sequence[float],
    eta: float,
    lam: float,
    width: int,
    m: int,
    seed: int | Sequence[int],
) -> dict[str, Any]:
    r"""One run of the Thm C.11 algorithm (= Thm 6.4, App. C.2.2) on the (n, k)-parity with S = {0..k-1}, with the
    convex phase solved exactly.

    Init (App. C.2.2): r/2 neurons with weights 1 on a uniform s-subset and 0 elsewhere, a bias drawn uniformly from
    ``biases``, output weight u = ±1; each mirrored (same w, b, output -u); output bias 0, so f = 0. A sample of m
    i.i.d. uniform points (labels :math:`\chi_S`; multinomial counts). First step (proof of Lemma C.6, item 3): weight
    decay 1 and learning rate ``eta`` on the first-layer weights, nothing else moves, so
    :math:`w_i^{(1)} = -\eta\nabla_{w_i}L_S(f)`, with the hinge loss's derivative :math:`-y\,1\{yf(x)<1\}` at the
    init's f. Convex phase (Lemma C.9): the readout w over the features :math:`\varphi^{(1)}(x) = (1,
    \mathrm{ReLU}(w_i^{(1)}\cdot x+b_i))_i` minimising :math:`L_S(h_{\varphi^{(1)},w}) + \frac\lambda2\|w\|^2`, solved
    to a certified duality gap (:func:`hinge_ridge_minimiser`) instead of by the proof's gradient descent, whose limit
    it is.
    Two exact reductions of that problem: a feature that is 0 on every point gets weight 0 and is dropped, and c
    identical features are one feature scaled by :math:`\sqrt c` (same optimum value, predictions and
    :math:`\|w\|`).

    Parameters
    ----------
    n, k, s : int
        Dimension (``<= 16``), parity degree, init sparsity (``k <= s < n``).
    biases : sequence of float
        The bias grid of the init.
    eta, lam : float
        The first step's learning rate and the convex phase's weight decay (``> 0``).
    {{width_m_seed}}

    Returns
    -------
    dict
        ``risk_D``, ``risk_S`` (hinge risks of h on the distribution and the sample), ``error_D`` (its 0-1 error),
        ``norm`` (:math:`\|w\|_2`), ``objective`` (the solved problem's value), ``good`` (good neurons, S ⊆ supp w,
        among the r/2), ``good_per_bias``, ``features`` (distinct features that are not 0 everywhere, the constant
        one included), ``bad_active`` (bad neurons whose feature is not 0 everywhere: Lemma C.6's proof says none),
        ``w_S``, ``w_rest`` (the good neurons' mean post-step :math:`|w_{ij}^{(1)}|` on S and on supp w \ S: Lemma
        C.3 gives :math:`\eta|C_{k,s}|` and :math:`\eta|c_{k,s}|` for population gradients), ``w_off`` (their
        largest :math:`|w_{ij}^{(1)}|` off supp w: 0 for population gradients; None without good neurons, and
        ``w_rest`` also None when s = k, supp w \ S being empty),
        ``duality_gap`` and ``ipm_iterations`` (:func:`hinge_ridge_minimiser`).

    Examples
    --------
    >>> from numerics.sparse_init import thm_c11_end_to_end
    >>> out = thm_c11_end_to_end(10, 2, 9, [-0.484375], 1 / (4 * 35 / 256), 0.25 / 32769, 640, 10**12, 0)
    >>> out["bad_active"], out["features"], round(out["risk_D"], 3), round(out["w_S"], 4)
    (0, 17, 0.363, 0.25)
    """
    seed = _check_seeds(seed)
    n, m = _check_cube_n(n), _check_m(m)
    k, s = check_count(k, "k"), check_count(s, "s")
    width = check_count(width, "width", minimum=2)
    eta = check_real(eta, "eta", positive=True)
    lam = check_real(lam, "lam", positive=True)
    grid = check_real_array(biases, "biases")
    if not k <= s < n or width % 2 or grid.ndim != 1 or not grid.size:
        raise InputError(
            f"need k <= s < n, an even width >= 2 and a non-empty 1-D bias grid; got {(n, k, s, width)} and biases "
            f"of shape {grid.shape}"
        )
    check_work(
        width * (1 << n) * (n + 4),
        param="width",
        value=width,
        what="the step and the features (r neurons x 2^n points)",
        hint="use a smaller width or n",
    )
    check_allocation(array_bytes(1 << n, width, 2), param="width", value=width, what="the features (2^n, r) x 2")
    half = width // 2
    supports, bias_index, u, counts = _draw_init(np.random.default_rng(seed), n, s, half, len(grid), m)
    supports = np.sort(supports, axis=1)
    bias = grid[bias_index]
    X = cube(n).astype(np.float64)
    y = characters(n, list(range(k))).astype(np.float64)
    W0 = np.zeros((half, n))
    W0[np.arange(half)[:, None], supports] = 1.0
    pre0 = X @ W0.T + bias
    f0 = np.maximum(pre0, 0.0) @ u - np.maximum(pre0, 0.0) @ u  # the mirrored copies cancel: f = 0
    slope = -y * (y * f0 < 1)  # the hinge loss's derivative at each point
    corr = ((counts * slope)[:, None] * X).T @ (pre0 > 0).astype(np.float64) / m  # (n, r/2): dL_S/dw_i without u_i
    W1 = np.vstack([-eta * u[:, None] * corr.T, eta * u[:, None] * corr.T])  # the neuron (u_i), its mirror (-u_i)
    good = np.all(supports[:, None, :] != np.arange(k)[:, None], axis=2).sum(axis=1) == 0
    on_support = np.zeros((half, n), dtype=bool)
    on_support[np.arange(half)[:, None], supports] = True
    step = np.abs(W1[:half][good])  # the good neurons' post-step weights (the mirrors are their negatives)
    in_S = np.zeros(n, dtype=bool)
    in_S[:k] = True
    rest = on_support[good] & ~in_S
    key = np.column_stack([np.tile(supports, (2, 1)), np.tile(bias_index, 2), np.concatenate([u, -u])])
    _, first, mult = np.unique(key, axis=0, return_index=True, return_counts=True)
    feats = np.maximum(X @ W1[first].T + np.concatenate([bias, bias])[first], 0.0)
    active = np.abs(feats).max(axis=0) > 0
    bad_active = int(np.sum(mult[active & ~np.tile(good, 2)[first]]))
    Phi = np.column_stack([np.ones(len(X)), feats[:, active] * np.sqrt(mult[active])])
    p = counts / m
    sol = hinge_ridge_minimiser(Phi, y, p, lam)
    scores = Phi @ sol["w"]
    loss = np.maximum(0.0, 1.0 - y * scores)
    return {
        "risk_D": float(loss.mean()),
        "risk_S": float(loss @ p),
        "error_D": float(np.mean(np.sign(scores) != y)),
        "norm": float(np.linalg.norm(sol["w"])),
        "objective": sol["primal"],
        "duality_gap": sol["primal"] - sol["dual"],
        "good": int(good.sum()),
        "good_per_bias": [int(np.sum(good & (bias_index == j))) for j in range(len(grid))],
        "features": int(Phi.shape[1]),
        "bad_active": bad_active,
        "w_S": float(step[:, in_S].mean()) if len(step) else None,
        "w_rest": float(step[rest].mean()) if step[rest].size else None,  # None also for s = k (no supp w \ S)
        "w_off": float(step[~on_support[good]].max()) if len(step) else None,
        "ipm_iterations": sol["iterations"],
    }
