r"""The algorithm of Edelman thesis Thm 5.5 (full statement, App. B.2.1) end to end, in numpy, seeds batched: a
width-r ReLU MLP :math:`f(x)=\sum_i u_i\,\mathrm{ReLU}(w_i^\top x+b_i)` on the (n, k)-sparse parity
:math:`y=\prod_{j<k}x_j` with the hinge loss :math:`(1-yf)_+`.

* Initialisation ("unbiased"): for i < r/2, :math:`w_i\sim\mathrm{Unif}\{\pm1\}^n`, :math:`u_i\sim\mathrm{Unif}\{\pm1\}`,
  :math:`b_i` uniform on a given grid; neuron i + r/2 copies w_i and b_i and takes :math:`-u_i` (so f = 0).
* Step 0: one batch of B samples; with :math:`\lambda_0 = 1` and rate :math:`\eta_0` the first layer becomes
  :math:`-\eta_0\hat g` and the biases :math:`b - \eta_0\hat\gamma` (never decayed); the second layer becomes 0
  (the proof's :math:`u^{(1)} = 0`).
* Steps 1 .. T-1: SGD on u alone with rate :math:`\eta`, batch B, first layer and biases frozen.

A batch of B i.i.d. uniform points of :math:`\{\pm1\}^n` is drawn as its multinomial counts over the 2^n points
(the same law as B draws), so the batch sizes the theorem asks for (about 10^7) cost 2^n per step, not B. The
population hinge loss :math:`L(\theta_t)` is exact (a mean over the 2^n points) at every t; the run returns its
minimum over t = 1..T (the theorem's :math:`\min_{t\in[T]}`).

Schedule constants (width, T, B, the rates, the bias grid) come from :mod:`theory.parity` (``thm55_*``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from numerics import walsh as nw
from numerics.limits import (
    STEP_COST,
    array_bytes,
    check_allocation,
    check_count,
    check_mc,
    check_real,
    check_real_array,
    check_seed,
)
from theory._checks import InputError, check_cost

__all__ = [
    "MAX_BATCH",
    "MAX_N",
    "MAX_RUN_WORK",
    "STEP_CHUNK",
    "lemB5_gradient_deviations",
    "lemB5_miss_exact",
    "lemB5_slot_cover",
    "thm55_init",
    "thm55_run",
]

MAX_N = 12
"""Largest n (the exact population loss and the batch counts live on the 2^n points)."""

MAX_BATCH = 10**18
"""Largest batch size B (its multinomial counts are drawn as int64 binomials)."""

MAX_RUN_WORK = 10**12
"""Largest work of one :func:`thm55_run`, T (E 2^n r + STEP_COST) array entries over T steps of E seeds of width r
(each step a Python iteration, counted as :data:`numerics.limits.STEP_COST` entries): the theorem's own schedule at
(n, k) = (5, 2) with 24 seeds is 3.6 10^11 (results/full); a billion steps is beyond it at any size."""

STEP_CHUNK = 1024
"""Steps whose batch counts are drawn at once (per seed, from its own generator)."""


def thm55_init(n: int, width: int, bias_grid: Sequence[float], seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unbiased initialisation of Thm 5.5 for one seed (``numpy.random.default_rng([seed, 0])``).

    Parameters
    ----------
    n : int
        Input dimension.
    width : int
        r, even.
    bias_grid : sequence of float
        The values the biases are drawn from, uniformly.
    seed : int
        The seed.

    Returns
    -------
    W (r, n), b (r,), u (r,) : float64 arrays
        Rows i and i + r/2 share w and b and have opposite u.

    Examples
    --------
    >>> W, b, u = thm55_init(5, 4, [-0.5, 0.0, 0.5], 0)
    >>> bool((W[:2] == W[2:]).all() and (b[:2] == b[2:]).all() and (u[:2] == -u[2:]).all())
    True
    """
    seed = check_seed(seed)
    n = check_count(n, "n", why="input bits")
    r = check_count(width, "width", why="hidden units")
    if r % 2:
        raise InputError(f"the unbiased initialisation pairs neurons: the width must be even, got {r}", param="width")
    check_allocation(
        array_bytes(r, n), "n" if n >= r else "width", max(n, r), "the initial first layer (width x n float64)"
    )
    grid = check_real_array(bias_grid, "bias_grid")
    if grid.ndim != 1 or not grid.size:
        raise InputError(f"bias_grid must be a non-empty list of values, got shape {grid.shape}", param="bias_grid")
    rng = np.random.default_rng([seed, 0])
    half = r // 2
    W = rng.choice([-1.0, 1.0], size=(half, n))
    u = rng.choice([-1.0, 1.0], size=half)
    b = rng.choice(grid, size=half)
    return np.concatenate([W, W]), np.concatenate([b, b]), np.concatenate([u, -u])


def _counts(gen: np.random.Generator, batch: int, points: int, rows: int) -> np.ndarray:
    """Multinomial counts of ``batch`` uniform draws over ``points`` cells, ``rows`` times, by conditional binomials
    (cell j gets Bin(remaining, 1/(points - j)): the multinomial law exactly, vectorised over the rows).

    Examples
    --------
    >>> c = _counts(np.random.default_rng(0), 1000, 8, 3)
    >>> c.shape, c.sum(axis=1).tolist()
    ((3, 8), [1000.0, 1000.0, 1000.0])
    """
    out = np.empty((rows, points))
    rem = np.full(rows, batch, dtype=np.int64)
    for j in range(points - 1):
        out[:, j] = gen.binomial(rem, 1.0 / (points - j))
        rem -= out[:, j].astype(np.int64)
    out[:, -1] = rem
    return out


def thm55_run(
    n: int,
    k: int,
    inits: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
    seeds: Sequence[int],
    *,
    first_rate: float,
    rate: float,
    batch_size: int,
    steps: int,
) -> dict:
    r"""Run the algorithm (module docstring) from ``inits`` for T = ``steps`` iterations (step 0 and T - 1 steps of the
    second layer); one data stream per seed (``numpy.random.default_rng([seed, 1])``).

    Parameters
    ----------
    n, k : int
        Input dimension (n <= MAX_N) and parity degree; y = prod_{j < k} x_j.
    inits : sequence of (W, b, u)
        One initialisation per seed (:func:`thm55_init`).
    seeds : sequence of int
        One per initialisation.
    first_rate : float
        eta_0 of step 0.
    rate : float
        eta of the second-layer steps.
    batch_size : int
        B, of every step.
    steps : int
        T >= 2.

    Returns
    -------
    dict
        ``min_loss`` (E,) the minimum over t = 1..T of the exact population hinge loss; ``argmin`` (E,) the t where
        it is first reached; ``final_loss`` (E,) L(theta_T); ``final_error`` (E,) the 0-1 error of sign f at T (f = 0
        an error); ``loss_curve`` (E, <= 257) the loss at about 256 evenly spaced t (and ``curve_steps``);
        ``first_layer`` (E, r, n) and ``biases`` (E, r) after step 0.

    Examples
    --------
    >>> inits = [thm55_init(5, 8, [-0.5, 0.0, 0.5], s) for s in (0, 1)]
    >>> out = thm55_run(5, 2, inits, (0, 1), first_rate=4 / 3, rate=0.01, batch_size=10**6, steps=50)
    >>> out["min_loss"].shape, bool((out["min_loss"] <= 1).all())
    ((2,), True)
    """
    n = check_count(n, "n", why="input bits")
    check_cost(n, MAX_N, param="n", value=n, what="the run works on all 2^n points: n", hint="n <= MAX_N")
    k = check_count(k, "k", why="parity degree")
    steps = check_count(steps, "steps", minimum=2, why="iterations (step 0 and at least one more)")
    batch = check_count(batch_size, "batch_size", why="batch size")
    check_cost(batch, MAX_BATCH, param="batch_size", value=batch, what="the batch size", hint="int64 counts")
    eta0 = check_real(first_rate, "first_rate", positive=True)
    eta = check_real(rate, "rate", positive=True)
    seeds = list(seeds)
    if len(seeds) != len(inits):
        raise InputError(f"one seed per initialisation: {len(seeds)} seeds, {len(inits)} inits", param="seeds")
    X = nw.cube(n).astype(np.float64)  # (N, n)
    N = X.shape[0]
    y = np.prod(X[:, :k], axis=1)  # (N,)
    W0 = np.stack([w for w, _, _ in inits])  # E,r,n
    b0 = np.stack([b for _, b, _ in inits])
    u0 = np.stack([u for _, _, u in inits])
    E, r, _ = W0.shape
    check_cost(
        steps * (E * N * r + STEP_COST),
        MAX_RUN_WORK,
        param="steps",
        value=steps,
        what="the run's work T (E 2^n r + STEP_COST)",
        hint="fewer steps or seeds",
    )
    check_allocation(array_bytes(E, N, r), "n", n, "the features of every seed on the 2^n points")
    check_allocation(array_bytes(STEP_CHUNK, E, N), "n", n, "one chunk of batch counts")
    gens = [np.random.default_rng([s, 1]) for s in seeds]
    # step 0: f = 0 at init, so the hinge gradient is -y grad f; lambda_0 = 1 keeps only -eta0 times the batch gradient
    c0 = np.stack([_counts(g, batch, N, 1)[0] for g in gens]) / batch  # E,N: the batch as weights on the points
    active = (np.einsum("ern,Nn->eNr", W0, X) + b0[:, None, :]) > 0  # E,N,r
    coef = -(c0 * y)[:, :, None] * active * u0[:, None, :]  # d loss/d (w_i . x + b_i), weighted by the batch
    g_w = np.einsum("eNr,Nn->ern", coef, X)
    g_b = coef.sum(axis=1)
    W1 = -eta0 * g_w
    b1 = b0 - eta0 * g_b
    phi = np.maximum(np.einsum("ern,Nn->eNr", W1, X) + b1[:, None, :], 0.0)  # E,N,r: frozen features
    u = np.zeros((E, r))  # the proof's u^(1) = 0
    curve_at = set(np.linspace(1, steps, 257).round().astype(int).tolist())
    curve, curve_steps = [], []
    best = np.full(E, np.inf)
    arg = np.zeros(E, dtype=np.int64)
    t = 1  # theta_t: u is its second layer

    def record() -> tuple[np.ndarray, np.ndarray]:
        nonlocal best, arg
        margin = y * np.einsum("eNr,er->eN", phi, u)
        loss = np.maximum(1.0 - margin, 0.0).mean(axis=1)
        better = loss < best
        best, arg = np.where(better, loss, best), np.where(better, t, arg)
        if t in curve_at:
            curve.append(loss)
            curve_steps.append(t)
        return margin, loss

    margin, loss = record()
    while t < steps:
        c = min(STEP_CHUNK, steps - t)
        C = np.stack([_counts(g, batch, N, c) for g in gens], axis=1) / batch  # c,E,N: each batch as point weights
        for a in range(c):
            u += eta * np.einsum(
                "eN,eNr->er", C[a] * (margin < 1.0) * y, phi
            )  # hinge: gradient -y phi where margin < 1
            t += 1
            margin, loss = record()
    f = np.einsum("eNr,er->eN", phi, u)
    return {
        "min_loss": best,
        "argmin": arg,
        "final_loss": loss,
        "final_error": (np.sign(f) != y).mean(axis=1),
        "loss_curve": np.stack(curve, axis=1),
        "curve_steps": curve_steps,
        "first_layer": W1,
        "biases": b1,
    }


# --- Lemma B.5 (App. B.2.1): the step-0 batch gradient and the bias slots of the initialisation


def lemB5_gradient_deviations(
    n: int,
    k: int,
    init: tuple[np.ndarray, np.ndarray, np.ndarray],
    batch_size: int,
    draws: int,
    seed: int,
    tau: float | None = None,
) -> dict:
    r"""Step 0 of Lemma B.5 / Thm 5.5 at one initialisation: the hinge-loss gradient of every sample point, its exact
    mean over the 2^n points (the population gradient), and ``draws`` batch gradients
    :math:`\hat g_i=\frac1B\sum_l\nabla_{w_i}\ell`, :math:`\hat\gamma_i=\frac1B\sum_l\nabla_{b_i}\ell`, each batch of
    B i.i.d. uniform points drawn as its multinomial counts (``numpy.random.default_rng([seed, 2])``). Nothing assumes
    f = 0 or the Fourier form: the network is evaluated, and the hinge subgradient is :math:`-y` where
    :math:`yf<1`, else 0.

    Parameters
    ----------
    n, k : int
        Input dimension (n <= MAX_N) and parity degree; y = prod_{j < k} x_j.
    init : (W, b, u)
        The initialisation (:func:`thm55_init`).
    batch_size : int
        B.
    draws : int
        Independent batches.
    seed : int
        The data stream's seed.
    tau : float, optional
        A tolerance: also count, per coordinate, the draws with :math:`|\hat g_{ij}-g_{ij}|\ge\tau`, compared in
        integers (:math:`|2^nS-BM|\ge 2^nB\tau` with S the batch's and M the cube's sum of the coordinate: exact
        while :math:`2^nB<2^{53}`).

    Returns
    -------
    dict
        ``max_deviation`` (draws,) the largest :math:`|\hat g_{ij}-g_{ij}|` and :math:`|\hat\gamma_i-\gamma_i|` over
        all i, j; ``population_w`` (r, n) and ``population_b`` (r,) the exact means (float64 of rationals with
        denominator 2^n); ``max_abs_f`` the largest |f(x)| at initialisation over the cube; with ``tau``,
        ``tail_count`` (r, n + 1) the draws at or beyond tau per coordinate (the last column: the bias).

    Examples
    --------
    >>> init = thm55_init(5, 4, [-0.5, 0.0, 0.5], 0)
    >>> out = lemB5_gradient_deviations(5, 2, init, 10**6, 3, 0)
    >>> out["max_deviation"].shape, out["max_abs_f"], bool((out["max_deviation"] < 0.01).all())
    ((3,), 0.0, True)
    >>> lemB5_gradient_deviations(5, 2, init, 64, 100, 0, tau=0.125)["tail_count"].shape
    (4, 6)
    """
    seed = check_seed(seed)
    n = check_count(n, "n", why="input bits")
    check_cost(n, MAX_N, param="n", value=n, what="the gradients live on all 2^n points: n", hint="n <= MAX_N")
    k = check_count(k, "k", why="parity degree")
    batch = check_count(batch_size, "batch_size", why="batch size")
    check_cost(batch, MAX_BATCH, param="batch_size", value=batch, what="the batch size", hint="int64 counts")
    if not isinstance(init, (tuple, list)) or len(init) != 3:
        raise InputError(f"init must be the triple (W, b, u) of thm55_init, got {init!r:.80}", param="init")
    W = check_real_array(init[0], "init[0]")
    b = check_real_array(init[1], "init[1]")
    u = check_real_array(init[2], "init[2]")
    if W.ndim != 2 or W.shape[1] != n or b.shape != (W.shape[0],) or u.shape != (W.shape[0],):
        raise InputError(f"init must be (W (r, n), b (r,), u (r,)) with n = {n}, got W {W.shape}", param="init")
    if k > n:
        raise InputError(f"the parity degree k = {k} exceeds n = {n}", param="k")
    r = W.shape[0]
    N = 1 << n
    draws = check_mc(draws, "draws", N + N * r * (n + 1), "draws x 2^n (r (n + 1) + 1)", minimum=1)
    check_allocation(array_bytes(N, r, n + 1), "n", n, "the per-point gradients (2^n x r x (n + 1))")
    X = nw.cube(n).astype(np.float64)
    y = np.prod(X[:, :k], axis=1)
    pre = X @ W.T + b[None, :]  # N, r
    f = np.maximum(pre, 0.0) @ u
    dloss = -y * (y * f < 1.0)  # hinge subgradient in f
    coef = dloss[:, None] * (pre > 0) * u[None, :]  # N, r: d loss / d (w_i . x + b_i)
    grads = np.concatenate([coef[:, :, None] * X[:, None, :], coef[:, :, None]], axis=2).reshape(N, -1)
    mean = grads.mean(axis=0)
    counts = _counts(np.random.default_rng([seed, 2]), batch, N, draws)  # draws, N (integer-valued)
    sums = counts @ grads  # draws, r (n + 1): integer sums of +-1 and 0, exact
    dev = np.abs(sums / batch - mean[None, :]).max(axis=1)
    full = mean.reshape(r, n + 1)
    out = {
        "max_deviation": dev,
        "population_w": full[:, :n],
        "population_b": full[:, n],
        "max_abs_f": float(np.abs(f).max()),
    }
    if tau is not None:
        t = check_real(tau, "tau", positive=True)
        if N * batch >= 2**53:
            raise InputError(f"2^n B = {N * batch} must be below 2^53 for the exact tail counts", param="batch_size")
        beyond = np.abs(N * sums - batch * grads.sum(axis=0)[None, :]) >= N * batch * t
        out["tail_count"] = beyond.sum(axis=0).reshape(r, n + 1)
    return out


def lemB5_slot_cover(
    k: int, width: int, bias_grid: Sequence[float], slots: Sequence[float], draws: int, seed: int
) -> dict:
    r"""Monte Carlo of the event the proof of Lemma B.5 needs: every slot bias s has a neuron i of the unbiased
    initialisation (:func:`thm55_init`, only the first k input coordinates drawn: the others do not enter) with
    :math:`b_i=s` and :math:`w_{i,j}=u_i\,\sigma` for all :math:`j\in[k]`, for :math:`\sigma=+1` and for
    :math:`\sigma=-1` (the proof's :math:`\sigma=\mathrm{sign}\,\xi_{k-1}`). Draw d uses seed ``seed + d``.
    Refused before any draw (:func:`numerics.limits.check_mc`, LimitError naming ``draws`` or ``width``) when the
    work ``draws (r (k + 2) + 20 STEP_COST)`` exceeds :func:`numerics.limits.max_mc_work`: a draw is a fresh
    generator and about a dozen numpy calls, 20 :data:`numerics.limits.STEP_COST` (0.09-0.13 ms on a loaded 2-core
    machine).

    Parameters
    ----------
    k : int
        Parity degree.
    width : int
        r, even.
    bias_grid : sequence of float
        The initial biases' values.
    slots : sequence of float
        The slot biases.
    draws : int
        Initialisations drawn.
    seed : int
        The first draw's seed.

    Returns
    -------
    dict
        ``missed`` (draws,) bool: some slot has no neuron with sigma = +1; ``missed_minus`` the same for
        sigma = -1; ``served`` (draws, slots) the neurons serving each slot (sigma = +1).

    Examples
    --------
    >>> out = lemB5_slot_cover(2, 24, [-0.5, 0.0, 0.5], [0.0, 0.5], 200, 0)
    >>> bool(0.1 < out["missed"].mean() < 0.35), bool((out["missed"] == out["missed_minus"]).all())
    (True, True)
    """
    seed = check_seed(seed)
    k = check_count(k, "k", why="parity degree")
    r = check_count(width, "width", why="hidden units")
    s = check_real_array(slots, "slots")
    if s.ndim != 1 or not s.size:
        raise InputError(f"slots must be a non-empty list of biases, got shape {s.shape}", param="slots")
    draws = check_mc(
        draws,
        "draws",
        r * (k + 2) + 20 * STEP_COST,
        "draws x (r (k + 2) + 20 STEP_COST)",
        minimum=1,
        sizes={"width": r},
    )
    served, served_minus = np.zeros((draws, s.size), dtype=np.int64), np.zeros((draws, s.size), dtype=np.int64)
    for d in range(draws):
        W, b, u = thm55_init(k, r, bias_grid, seed + d)
        at_slot = b[:, None] == s[None, :]  # r, slots
        plus = (u[:, None] == W).all(axis=1)
        minus = (-u[:, None] == W).all(axis=1)
        served[d] = (at_slot & plus[:, None]).sum(axis=0)
        served_minus[d] = (at_slot & minus[:, None]).sum(axis=0)
    return {"missed": (served == 0).any(axis=1), "missed_minus": (served_minus == 0).any(axis=1), "served": served}


def lemB5_miss_exact(k: int, pairs: int, bias_grid: Sequence[Fraction], slots: Sequence[Fraction]) -> Fraction:
    r"""The exact probability that some slot is left without a serving pair (the event of :func:`lemB5_slot_cover`),
    by dynamic programming over the set of slots already served, pair by pair: a pair serves slot s with probability
    P(w constant on [k]) (counted over :math:`\{\pm1\}^k`) times the share of grid values equal to s. An independent
    route to :func:`theory.parity.lemB5_miss_probability` (inclusion-exclusion).

    Parameters
    ----------
    k : int
        Parity degree, k <= 16.
    pairs : int
        r/2, the independent pairs.
    bias_grid : sequence of Fraction
        The initial biases' values (exact).
    slots : sequence of Fraction
        The slot biases (exact, at most 16).

    Returns
    -------
    Fraction
        P(some slot is not served).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> lemB5_miss_exact(2, 1, [F(-1, 2), F(0), F(1, 2)], [F(0), F(1, 2)])
    Fraction(1, 1)
    >>> lemB5_miss_exact(2, 2, [F(-1, 2), F(0), F(1, 2)], [F(0), F(1, 2)])
    Fraction(17, 18)
    """
    k = check_count(k, "k", why="parity degree")
    check_cost(k, 16, param="k", value=k, what="the parity degree (2^k sign vectors counted)", hint="k <= 16")
    m = check_count(pairs, "pairs", why="neuron pairs")
    check_cost(m, 10**4, param="pairs", value=m, what="the pairs of the exact recursion", hint="fewer pairs")
    grid = [Fraction(v) for v in bias_grid]
    sl = [Fraction(v) for v in slots]
    if not grid or not 1 <= len(sl) <= 16:
        raise InputError(f"need a non-empty grid and 1..16 slots, got {len(grid)} and {len(sl)}", param="slots")
    const = sum(1 for w in itertools.product((-1, 1), repeat=k) if len(set(w)) == 1)
    p = [Fraction(const, 2**k) * Fraction(grid.count(v), len(grid)) for v in sl]
    rest = 1 - sum(p)
    full = (1 << len(sl)) - 1
    dist = {0: Fraction(1)}
    for _ in range(m):
        new: dict[int, Fraction] = {}
        for mask, pr in dist.items():
            new[mask] = new.get(mask, Fraction(0)) + pr * rest
            for j, pj in enumerate(p):
                nm = mask | (1 << j)
                new[nm] = new.get(nm, Fraction(0)) + pr * pj
        dist = new
    return 1 - dist.get(full, Fraction(0))
