"""Float64 gradient descent, prompt sampling and Figure 8.1 statistics for Shi thesis Ch. 8.

The reference GD here is plain numpy (batched over prompts), independent of the transformer in
``verify/train/looped.py`` and of the exact arithmetic in ``theory/looped.py``. See ``docs/looped.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
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
]


@dataclass(frozen=True)
class Prompts:
    """A batch of B prompts: X (B, n, d) with i.i.d. N(0, 1) entries, theta* (B, d) uniform on S^{d-1}, y = X theta*."""

    X: np.ndarray
    theta_star: np.ndarray
    y: np.ndarray


def sample_prompts(rng: np.random.Generator, batch: int, n: int, d: int) -> Prompts:
    """Sample B prompts of Sec. 8.6 / Def. 8.3 (noise-free labels; theta* on the unit sphere S^(d-1); Def. 8.3 writes S^d)."""
    for name, v in (("batch", batch), ("n", n), ("d", d)):
        if not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    if n <= d:
        raise ValueError(f"need n > d so that X^T X is invertible (Lemma 8.11), got n = {n}, d = {d}")
    X = rng.standard_normal((batch, n, d))
    th = rng.standard_normal((batch, d))
    th /= np.linalg.norm(th, axis=1, keepdims=True)
    return Prompts(X, th, np.einsum("bnd,bd->bn", X, th))


def _batched(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if X.ndim == 2:
        X, y = X[None], y[None]
    if X.ndim != 3 or y.shape != X.shape[:2]:
        raise ValueError(f"X must be (B, n, d) and y (B, n); got X {X.shape}, y {y.shape}")
    return X, y


def gram_extremes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L, mu, kappa) of X^T X per prompt (eigvalsh; X is (B, n, d) or (n, d))."""
    X = np.asarray(X, dtype=np.float64)
    ev = np.linalg.eigvalsh(np.swapaxes(X, -1, -2) @ X)
    L, mu = ev[..., -1], ev[..., 0]
    if np.any(mu <= 0):
        raise ValueError("X^T X is singular for some prompt (need n > d and full column rank)")
    return L, mu, L / mu


def gd_trajectory(X: np.ndarray, y: np.ndarray, etas: np.ndarray, theta0: np.ndarray | None = None) -> np.ndarray:
    """theta^(0..T) of GD on 1/2||y - X theta||^2, batched: returns (B, T+1, d).

    ``etas`` is (T,) (shared) or (B, T) (per prompt); every step size must be > 0 (Def. 8.7).
    """
    X, y = _batched(X, y)
    B, _n, d = X.shape
    etas = np.asarray(etas, dtype=np.float64)
    if etas.ndim == 1:
        etas = np.broadcast_to(etas, (B, etas.shape[0]))
    if etas.ndim != 2 or etas.shape[0] != B:
        raise ValueError(f"etas must be (T,) or (B, T) with B = {B}, got {etas.shape}")
    if np.any(etas <= 0):
        raise ValueError("step sizes must be > 0 (Def. 8.7)")
    G = np.swapaxes(X, 1, 2) @ X
    b = np.einsum("bnd,bn->bd", X, y)
    th = np.zeros((B, d)) if theta0 is None else np.array(np.broadcast_to(theta0, (B, d)), dtype=np.float64)
    out = np.empty((B, etas.shape[1] + 1, d))
    out[:, 0] = th
    for t in range(etas.shape[1]):
        th = th - etas[:, t, None] * (np.einsum("bij,bj->bi", G, th) - b)
        out[:, t + 1] = th
    return out


def gd_constant_step(X: np.ndarray, y: np.ndarray, T: int, theta0: np.ndarray | None = None) -> np.ndarray:
    """GD with the prompt-dependent step eta = 1/L (Thms 8.16, 8.25); returns (B, T+1, d)."""
    X, y = _batched(X, y)
    L, _, _ = gram_extremes(X)
    return gd_trajectory(X, y, np.repeat((1.0 / L)[:, None], T, axis=1), theta0)


def smoothness_violations(X: np.ndarray, y: np.ndarray, rng: np.random.Generator, pairs: int = 64) -> dict[str, float]:
    """Lemmas 8.20, 8.22 on random points a, b and t in (0, 1), relative to the scale of each inequality.

    Returns the largest relative violation of (i) ||grad(a) - grad(b)|| <= L ||a - b|| and (ii) strong
    convexity l(t a + (1-t) b) <= t l(a) + (1-t) l(b) - mu/2 t(1-t)||a - b||^2 (<= 0 means it holds).
    """
    X, y = _batched(X, y)
    L, mu, _ = gram_extremes(X)
    B, _n, d = X.shape
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
    return {"smoothness": smooth, "strong_convexity": convex}


@dataclass(frozen=True)
class KappaMoments:
    """Monte-Carlo moments of kappa(X^T X): mean, its standard error, sd, sd of a `trials`-trial mean."""

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
    """E kappa(X^T X) for X with i.i.d. N(0, 1) entries (Fig. 8.1's reported average kappa), by MC."""
    if draws < 2:
        raise ValueError(f"draws must be >= 2, got {draws}")
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
    """Figure 8.1 data for one n: per-trial kappa and normalised squared errors ||theta^(t) - theta*||^2/||theta^(0) - theta*||^2."""

    n: int
    kappa: np.ndarray  # (trials,)
    ratio: np.ndarray  # (trials, T+1)


def fig_8_1_errors(rng: np.random.Generator, n: int, d: int, T: int, trials: int) -> ErrorDecay:
    """Run Sec. 8.6's experiment for one n with the numpy GD reference (eta = 1/L, theta^(0) = 0)."""
    pr = sample_prompts(rng, trials, n, d)
    traj = gd_constant_step(pr.X, pr.y, T)
    err = np.sum((traj - pr.theta_star[:, None, :]) ** 2, axis=-1)
    return ErrorDecay(n, gram_extremes(pr.X)[2], err / err[:, :1])
