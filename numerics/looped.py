"""Float64 gradient descent, prompt sampling and Figure 8.1 statistics for Shi thesis Ch. 8.

The reference GD here is plain numpy (batched over prompts), independent of the transformer in
``verify/train/looped.py`` and of the exact arithmetic in ``theory/looped.py``. See ``docs/looped.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from theory._checks import InputError, LimitError, check_cost, check_positive_int, format_count
from theory._docstrings import fill_doc

from .limits import MAX_MC_SAMPLES, MAX_MC_WORK, array_bytes, check_allocation, check_mc, check_real_array, check_rng

__all__ = [
    "MAX_MC_SAMPLES",
    "MAX_MC_WORK",
    "ErrorDecay",
    "KappaMoments",
    "Prompts",
    "fig_8_1_errors",
    "gd_constant_step",
    "gd_trajectory",
    "gram_extremes",
    "kappa_moments",
    "sample_prompts",
    "smoothness_violations",
    "thm_8_17_condition_holds",
    "thm_8_17_printed_growth",
    "thm_8_17_smallest_admissible_n",
]

#: Parameters sections shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "prompts": """X : np.ndarray, shape (B, n, d) or (n, d)
    Prompt inputs of full column rank.
y : np.ndarray, shape (B, n) or (n,)
    Labels.""",
    "loops": """T, d : int
    Loops (>= 1) and dimension (>= 1).""",
}


def _check_memory(shape: tuple[int, ...], sizes: dict[str, int], what: str, hint: str = "") -> None:
    """check_allocation of a float64 array, naming the largest of ``sizes`` (the parameters that make it)."""
    name = max(sizes, key=lambda k: sizes[k])
    nbytes = array_bytes(*shape)
    if nbytes > 2**70:  # beyond any machine (and beyond what numerics.limits.format_bytes can print)
        raise LimitError(
            f"{name} = {format_count(sizes[name])} is too large: {what} needs ~{format_count(nbytes)} bytes"
            + (f"; {hint}" if hint else ""),
            param=name,
            value=sizes[name],
            limit=2**70,
            hint=hint,
        )
    check_allocation(nbytes, param=name, value=sizes[name], what=what, hint=hint)


@dataclass(frozen=True)
class Prompts:
    """A batch of B prompts: X (B, n, d) with i.i.d. N(0, 1) entries, theta* (B, d) uniform on S^{d-1}, y = X theta*.

    Attributes
    ----------
    X : np.ndarray, shape (B, n, d)
        The in-context inputs.
    theta_star : np.ndarray, shape (B, d)
        The task vectors, of unit norm.
    y : np.ndarray, shape (B, n)
        The noise-free labels ``X theta*``.

    Examples
    --------
    >>> import numpy as np
    >>> pr = sample_prompts(np.random.default_rng(0), 2, 5, 2)
    >>> pr.X.shape, pr.theta_star.shape, pr.y.shape
    ((2, 5, 2), (2, 2), (2, 5))
    """

    X: np.ndarray
    theta_star: np.ndarray
    y: np.ndarray


def sample_prompts(rng: np.random.Generator, batch: int, n: int, d: int) -> Prompts:
    """Sample B prompts of Sec. 8.6 / Def. 8.3 (noise-free labels; theta* on the unit sphere S^(d-1); Def. 8.3 writes S^d).

    Parameters
    ----------
    rng : np.random.Generator
        Source of the draws.
    batch : int
        Number of prompts B >= 1.
    n, d : int
        Examples per prompt and their dimension, ``n > d >= 1`` (so that X^T X is invertible, Lemma 8.11).

    Returns
    -------
    Prompts
        X (B, n, d), theta* (B, d) and y = X theta* (B, n).

    Examples
    --------
    >>> import numpy as np
    >>> pr = sample_prompts(np.random.default_rng(0), 3, 5, 2)
    >>> np.linalg.norm(pr.theta_star, axis=1).round(12).tolist()
    [1.0, 1.0, 1.0]
    >>> bool(np.allclose(pr.y, np.einsum("bnd,bd->bn", pr.X, pr.theta_star)))
    True
    >>> sample_prompts(np.random.default_rng(0), 1, 2, 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: need n > d so that X^T X is invertible (Lemma 8.11), got n = 2, d = 2
    """
    rng = check_rng(rng)
    for name, v in (("batch", batch), ("n", n), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name} must be an integer >= 1, got {v!r:.80}", param=name)
    if n <= d:
        raise InputError(f"need n > d so that X^T X is invertible (Lemma 8.11), got n = {n}, d = {d}", param="n")
    _check_memory(
        (3 * int(batch), int(n), int(d)),
        {"batch": int(batch), "n": int(n), "d": int(d)},
        "the prompts X (batch, n, d) in float64 with their temporaries",
    )
    X = rng.standard_normal((batch, n, d))
    th = rng.standard_normal((batch, d))
    th /= np.linalg.norm(th, axis=1, keepdims=True)
    return Prompts(X, th, np.einsum("bnd,bd->bn", X, th))


def _batched(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    X, y = check_real_array(X, "X"), check_real_array(y, "y")
    if X.ndim == 2:
        X, y = X[None], y[None]
    if X.ndim != 3 or y.shape != X.shape[:2] or X.shape[2] < 1:
        raise InputError(
            f"X must be (B, n, d) and y (B, n); got X {X.shape}, y {y.shape}", param="X" if X.ndim != 3 else "y"
        )
    return X, y


def gram_extremes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L, mu, kappa) of X^T X per prompt (eigvalsh; X is (B, n, d) or (n, d)).

    Parameters
    ----------
    X : np.ndarray, shape (B, n, d) or (n, d)
        Prompt inputs of full column rank.

    Returns
    -------
    L, mu, kappa : np.ndarray, shape (B,) (0-d for one prompt)
        Largest and smallest eigenvalue of X^T X and their ratio (Def. 8.12).

    Raises
    ------
    ValueError
        If X^T X is singular for some prompt.

    Examples
    --------
    The condition number agrees with the exact one of :func:`theory.looped.condition_number`:

    >>> import numpy as np
    >>> from theory.looped import condition_number
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> L, mu, kappa = gram_extremes(X)
    >>> round(float(L), 6), round(float(mu), 6)
    (5.302776, 1.697224)
    >>> abs(float(kappa) - float(condition_number(X))) < 1e-12
    True
    """
    X = check_real_array(X, "X")
    if X.ndim not in (2, 3) or X.shape[-1] < 1:
        raise InputError(f"X must be (B, n, d) or (n, d) with d >= 1, got shape {X.shape}", param="X")
    ev = np.linalg.eigvalsh(np.swapaxes(X, -1, -2) @ X)
    L, mu = ev[..., -1], ev[..., 0]
    if np.any(mu <= 0):
        raise InputError("X^T X is singular for some prompt (need n > d and full column rank)", param="X")
    if not np.all(np.isfinite(L)):
        raise InputError("X^T X overflows float64 (entries of X too large)", param="X")
    return L, mu, L / mu


def gd_trajectory(X: np.ndarray, y: np.ndarray, etas: np.ndarray, theta0: np.ndarray | None = None) -> np.ndarray:
    """theta^(0..T) of GD on 1/2||y - X theta||^2, batched: returns (B, T+1, d).

    ``etas`` is (T,) (shared) or (B, T) (per prompt); every step size must be > 0 (Def. 8.7).

    Parameters
    ----------
    X : np.ndarray, shape (B, n, d) or (n, d)
        Prompt inputs.
    y : np.ndarray, shape (B, n) or (n,)
        Labels.
    etas : np.ndarray, shape (T,) or (B, T)
        Step sizes eta^(1..T), all > 0.
    theta0 : np.ndarray, shape (d,) or (B, d), optional
        Starting point; None = 0.

    Returns
    -------
    np.ndarray, shape (B, T+1, d)
        The iterates theta^(0), ..., theta^(T) of every prompt (B = 1 for a single prompt).

    Examples
    --------
    Three steps of size 1/10 agree with the exact rational iterates of :func:`theory.looped.gd_iterates`:

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from theory.looped import gd_iterates
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> y = X @ np.array([1.0, -1.0])
    >>> traj = gd_trajectory(X, y, [0.1, 0.1, 0.1])
    >>> traj.shape
    (1, 4, 2)
    >>> exact = gd_iterates(X, y, [Fraction(1, 10)] * 3)[-1]
    >>> exact
    [Fraction(337, 1000), Fraction(-727, 1000)]
    >>> bool(np.allclose(traj[0, -1], [float(v) for v in exact], rtol=0, atol=1e-15))
    True
    >>> gd_trajectory(X, y, [0.1, 0.0])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: step sizes must be > 0 (Def. 8.7)
    """
    X, y = _batched(X, y)
    B, _n, d = X.shape
    etas = check_real_array(etas, "etas")
    if etas.ndim == 1:
        etas = np.broadcast_to(etas, (B, etas.shape[0]))
    if etas.ndim != 2 or etas.shape[0] != B:
        raise InputError(f"etas must be (T,) or (B, T) with B = {B}, got {etas.shape}", param="etas")
    if np.any(etas <= 0):
        raise InputError("step sizes must be > 0 (Def. 8.7)", param="etas")
    if theta0 is not None:
        theta0 = check_real_array(theta0, "theta0")
        if theta0.shape not in ((d,), (B, d)):
            raise InputError(f"theta0 must have shape ({d},) or ({B}, {d}), got {theta0.shape}", param="theta0")
    T = etas.shape[1]
    _check_memory((B, T + 1, d), {"etas": T}, "the trajectory (B, T+1, d) in float64")
    G = np.swapaxes(X, 1, 2) @ X
    b = np.einsum("bnd,bn->bd", X, y)
    th = np.zeros((B, d)) if theta0 is None else np.array(np.broadcast_to(theta0, (B, d)), dtype=np.float64)
    out = np.empty((B, T + 1, d))
    out[:, 0] = th
    with np.errstate(over="ignore", invalid="ignore"):  # a divergence is refused below
        for t in range(T):
            th = th - etas[:, t, None] * (np.einsum("bij,bj->bi", G, th) - b)
            out[:, t + 1] = th
    if not np.isfinite(th).all():
        raise InputError(
            "the GD iterates overflow float64 (GD diverges: step sizes above 2/L, or a start theta0 too far out)",
            param=None,
        )
    return out


@fill_doc(_DOC)
def gd_constant_step(X: np.ndarray, y: np.ndarray, T: int, theta0: np.ndarray | None = None) -> np.ndarray:
    """GD with the prompt-dependent step eta = 1/L (Thms 8.16, 8.25); returns (B, T+1, d).

    Parameters
    ----------
    {{prompts}}
    T : int
        Number of steps.
    theta0 : np.ndarray, shape (d,) or (B, d), optional
        Starting point; None = 0.

    Returns
    -------
    np.ndarray, shape (B, T+1, d)
        The iterates theta^(0..T).

    Examples
    --------
    The error contracts by at most rho = max(|1 - mu/L|, |1 - L/L|) = 1 - 1/kappa per step
    (:func:`theory.looped.gd_contraction_factor`):

    >>> import numpy as np
    >>> from theory.looped import gd_contraction_factor
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> theta_star = np.array([1.0, -1.0])
    >>> traj = gd_constant_step(X, X @ theta_star, 5)
    >>> err = np.linalg.norm(traj[0] - theta_star, axis=1)
    >>> L, mu, _ = gram_extremes(X)
    >>> rho = float(gd_contraction_factor(1 / float(L), float(L), float(mu)))
    >>> round(rho, 6)
    0.679937
    >>> bool(np.all(err[1:] <= rho * err[:-1] + 1e-12))
    True
    """
    X, y = _batched(X, y)
    T = check_positive_int(T, "T", minimum=0, hypothesis="a number of GD steps")
    B, _n, d = X.shape
    _check_memory((B, T + 1, d + 1), {"T": T}, "the step sizes (B, T) and the trajectory (B, T+1, d) in float64")
    L, _, _ = gram_extremes(X)
    return gd_trajectory(X, y, np.repeat((1.0 / L)[:, None], T, axis=1), theta0)


@fill_doc(_DOC)
def smoothness_violations(X: np.ndarray, y: np.ndarray, rng: np.random.Generator, pairs: int = 64) -> dict[str, float]:
    """Lemmas 8.20, 8.22 on random points a, b and t in (0, 1), relative to the scale of each inequality.

    Returns the largest relative violation of (i) ||grad(a) - grad(b)|| <= L ||a - b|| and (ii) strong
    convexity l(t a + (1-t) b) <= t l(a) + (1-t) l(b) - mu/2 t(1-t)||a - b||^2 (<= 0 means it holds).

    Parameters
    ----------
    {{prompts}}
    rng : np.random.Generator
        Source of the random points a, b (entries N(0, 9)) and of t.
    pairs : int
        Random pairs (a, b) per prompt.

    Returns
    -------
    dict of str to float
        ``{"smoothness": ..., "strong_convexity": ...}``: the largest relative violations.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> v = smoothness_violations(X, X @ np.array([1.0, -1.0]), np.random.default_rng(0))
    >>> sorted(v)
    ['smoothness', 'strong_convexity']
    >>> v["smoothness"] <= 1e-12 and v["strong_convexity"] <= 1e-12
    True
    """
    rng = check_rng(rng)
    X, y = _batched(X, y)
    pairs = check_positive_int(pairs, "pairs", hypothesis="random pairs (a, b) per prompt")
    B, n, d = X.shape
    _check_memory(
        (8, B, pairs, max(n, d)), {"pairs": pairs}, "the random points and residuals (B, pairs, n) in float64"
    )
    L, mu, _ = gram_extremes(X)
    a, b = rng.standard_normal((2, B, pairs, d)) * 3
    t = rng.uniform(0, 1, (B, pairs))

    def loss(th: np.ndarray) -> np.ndarray:
        r = y[:, None, :] - np.einsum("bnd,bpd->bpn", X, th)
        return 0.5 * np.sum(r**2, axis=-1)

    def grad(th: np.ndarray) -> np.ndarray:
        r = np.einsum("bnd,bpd->bpn", X, th) - y[:, None, :]
        return np.einsum("bnd,bpn->bpd", X, r)

    gap = np.linalg.norm(grad(a) - grad(b), axis=-1) - L[:, None] * np.linalg.norm(a - b, axis=-1)
    smooth = float(np.max(gap / (L[:, None] * np.linalg.norm(a - b, axis=-1))))
    mid = t[..., None] * a + (1 - t[..., None]) * b
    rhs = t * loss(a) + (1 - t) * loss(b) - 0.5 * mu[:, None] * t * (1 - t) * np.sum((a - b) ** 2, axis=-1)
    scale = t * loss(a) + (1 - t) * loss(b)
    convex = float(np.max((loss(mid) - rhs) / scale))
    if not (math.isfinite(smooth) and math.isfinite(convex)):
        raise InputError("the losses overflow float64 (entries of X or y too large)", param="X")
    return {"smoothness": smooth, "strong_convexity": convex}


@dataclass(frozen=True)
class KappaMoments:
    """Monte-Carlo moments of kappa(X^T X): mean, its standard error, sd, sd of a `trials`-trial mean.

    Attributes
    ----------
    n, d : int
        Shape of X.
    draws : int
        Number of Monte-Carlo draws of X.
    mean, se : float
        Sample mean of kappa and its standard error.
    sd : float
        Sample standard deviation of kappa.
    sd_trial_mean : float
        Standard deviation of a mean over ``trials`` draws (the spread of a reported average).

    Examples
    --------
    >>> import numpy as np
    >>> km = kappa_moments(np.random.default_rng(0), 16, 4, draws=200)
    >>> (km.n, km.d, km.draws), km.se < km.sd
    ((16, 4, 200), True)
    """

    n: int
    d: int
    draws: int
    mean: float
    se: float
    sd: float
    sd_trial_mean: float


def kappa_moments(
    rng: np.random.Generator, n: int, d: int, draws: int, trials: int = 10, chunk: int = 20000
) -> KappaMoments:
    """E kappa(X^T X) for X with i.i.d. N(0, 1) entries (Fig. 8.1's reported average kappa), by MC.

    Parameters
    ----------
    rng : np.random.Generator
        Source of the draws.
    n, d : int
        Shape of X (n > d).
    draws : int
        Number of draws of X, >= 2.
    trials : int
        Trials averaged in the reported figure (for ``sd_trial_mean``), at most
        :data:`numerics.limits.MAX_MC_SAMPLES` (LimitError naming ``trials``).
    chunk : int
        Draws per batched eigendecomposition.

    Returns
    -------
    KappaMoments

    Examples
    --------
    Fig. 8.1 reports an average kappa of 4.57 over 10 trials at n = 16, d = 4
    (:data:`theory.looped.FIG_8_1_REPORTED_KAPPA`), within the spread of a 10-trial mean:

    >>> import numpy as np
    >>> from theory.looped import FIG_8_1_REPORTED_KAPPA
    >>> km = kappa_moments(np.random.default_rng(0), 16, 4, draws=2000)
    >>> round(km.mean, 1)
    4.8
    >>> abs(km.mean - float(FIG_8_1_REPORTED_KAPPA[16])) < 2 * km.sd_trial_mean
    True
    """
    rng = check_rng(rng)
    for name, v in (("n", n), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name} must be an integer >= 1, got {v!r:.80}", param=name)
    if n <= d:
        raise InputError(f"need n > d so that X^T X is invertible (Lemma 8.11), got n = {n}, d = {d}", param="n")
    n, d = int(n), int(d)
    draws = check_mc(draws, "draws", n * d + n * d * d + d**3, "draws x (n d + n d^2 + d^3)")
    trials = check_positive_int(trials, "trials", hypothesis="the trials of a reported mean")
    check_cost(trials, MAX_MC_SAMPLES, param="trials", value=trials, what="trial counts", hint="use fewer trials")
    chunk = check_positive_int(chunk, "chunk", hypothesis="draws per batched eigendecomposition")
    _check_memory((3 * min(chunk, draws), n, d), {"chunk": chunk}, "one chunk of draws (chunk, n, d) in float64")
    ks = []
    left = draws
    while left > 0:
        m = min(chunk, left)
        ks.append(gram_extremes(rng.standard_normal((m, n, d)))[2])
        left -= m
    k = np.concatenate(ks)
    sd = float(k.std(ddof=1))
    return KappaMoments(n, d, draws, float(k.mean()), sd / float(np.sqrt(draws)), sd, sd / float(np.sqrt(trials)))


@dataclass(frozen=True)
class ErrorDecay:
    """Figure 8.1 data for one n: per-trial kappa and normalised squared errors ||theta^(t) - theta*||^2/||theta^(0) - theta*||^2.

    Attributes
    ----------
    n : int
        Examples per prompt.
    kappa : np.ndarray, shape (trials,)
        kappa(X^T X) of each trial.
    ratio : np.ndarray, shape (trials, T+1)
        The normalised squared errors (column 0 is 1).

    Examples
    --------
    >>> import numpy as np
    >>> e = fig_8_1_errors(np.random.default_rng(0), 16, 4, 10, 3)
    >>> e.n, e.kappa.shape, e.ratio.shape, e.ratio[:, 0].tolist()
    (16, (3,), (3, 11), [1.0, 1.0, 1.0])
    """

    n: int
    kappa: np.ndarray  # (trials,)
    ratio: np.ndarray  # (trials, T+1)


def fig_8_1_errors(rng: np.random.Generator, n: int, d: int, T: int, trials: int) -> ErrorDecay:
    """Run Sec. 8.6's experiment for one n with the numpy GD reference (eta = 1/L, theta^(0) = 0).

    Parameters
    ----------
    rng : np.random.Generator
        Source of the prompts.
    n, d : int
        Examples per prompt and dimension (n > d).
    T : int
        Number of GD steps.
    trials : int
        Number of prompts.

    Returns
    -------
    ErrorDecay

    Examples
    --------
    Every trial obeys Theorem 8.25, ratio(T) <= (1 - 1/kappa)^T (:func:`theory.looped.thm_8_25_bound`):

    >>> import numpy as np
    >>> from theory.looped import thm_8_25_bound
    >>> e = fig_8_1_errors(np.random.default_rng(0), 16, 4, 20, 3)
    >>> all(e.ratio[i, -1] <= float(thm_8_25_bound(20, e.kappa[i])) for i in range(3))
    True
    """
    T = check_positive_int(T, "T", minimum=0, hypothesis="a number of GD steps")
    trials = check_positive_int(trials, "trials", hypothesis="prompts")
    if isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 1:
        _check_memory((trials, T + 1, int(d) + 1), {"T": T, "trials": trials}, "the trajectories (trials, T+1, d)")
    pr = sample_prompts(rng, trials, n, d)
    traj = gd_constant_step(pr.X, pr.y, T)
    err = np.sum((traj - pr.theta_star[:, None, :]) ** 2, axis=-1)
    return ErrorDecay(n, gram_extremes(pr.X)[2], err / err[:, :1])


# --- Theorem 8.17 (Gatmiry et al. 2024, Thm 4.1, as restated in Sec. 8.4): its condition and bound as printed


def _check_t_d(T: int, d: int) -> tuple[int, int]:
    T = check_positive_int(T, "T", minimum=1, hypothesis="Thm 8.17 bounds T >= 1 loops")
    d = check_positive_int(d, "d", minimum=1)
    if T > 3000:
        raise LimitError(
            f"T = {T} is too large: 4^T has more than 1800 digits", param="T", value=T, limit=3000, hint=""
        )
    return T, d


def thm_8_17_condition_holds(T: int, d: int, n: int) -> bool:
    """The condition of Theorem 8.17 as printed, ``8 T d^2/sqrt(n) <= 1/2^{2T}``, decided exactly: it reads
    ``sqrt(n) >= 8 T d^2 2^{2T}``, and for an integer right-hand side m, ``sqrt(n) >= m`` iff ``isqrt(n) >= m``.

    Parameters
    ----------
    T, d, n : int
        Loops (>= 1), dimension (>= 1) and in-context examples (>= 1).

    Returns
    -------
    bool

    Examples
    --------
    >>> thm_8_17_condition_holds(1, 1, 1023), thm_8_17_condition_holds(1, 1, 1024)
    (False, True)
    """
    T, d = _check_t_d(T, d)
    n = check_positive_int(n, "n", minimum=1)
    return math.isqrt(n) >= 8 * T * d * d * 2 ** (2 * T)


@fill_doc(_DOC)
def thm_8_17_smallest_admissible_n(T: int, d: int) -> int:
    """The smallest n for which :func:`thm_8_17_condition_holds`, by doubling then bisection on the printed
    condition (monotone in n).

    Parameters
    ----------
    {{loops}}

    Returns
    -------
    int

    Examples
    --------
    >>> thm_8_17_smallest_admissible_n(1, 1), thm_8_17_smallest_admissible_n(2, 3)
    (1024, 5308416)
    """
    T, d = _check_t_d(T, d)
    hi = 1
    while not thm_8_17_condition_holds(T, d, hi):
        hi *= 2
    lo = hi // 2  # the condition fails at lo (or lo = 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if thm_8_17_condition_holds(T, d, mid):
            hi = mid
        else:
            lo = mid
    return hi


@fill_doc(_DOC)
def thm_8_17_printed_growth(T: int, d: int) -> Fraction:
    """The printed bound ``8 T d^2 2^{2T}/sqrt(n)`` at T + 1 loops over its value at T loops (the same n: sqrt(n)
    cancels), exactly.

    Parameters
    ----------
    {{loops}}

    Returns
    -------
    fractions.Fraction

    Examples
    --------
    >>> thm_8_17_printed_growth(1, 4), thm_8_17_printed_growth(4, 2)
    (Fraction(8, 1), Fraction(5, 1))
    """
    T, d = _check_t_d(T, d)

    def numerator(loops: int) -> int:
        return 8 * loops * d * d * 2 ** (2 * loops)

    return Fraction(numerator(T + 1), numerator(T))
