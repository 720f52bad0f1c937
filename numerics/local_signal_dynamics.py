r"""Monte Carlo of the population quantities that the proofs of Karp thesis App. B.1.3 (Lemmas 3.1-3.3, B.3,
B.6-B.8) bound, at a state ``(c, v, b)`` of Alg. 3.1 (``docs/local_signal.md``, "Theorem 3.1 end to end and the
lemmas along trajectories").

The sampler is the reduction of App. B.1.1 taken literally: per input ``Y`` uniform in {-1, +1}; per noise row
``A_i, B_i`` iid ``N(0, sigma^2)`` (the projections on ``w_*`` and on ``w_perp/|w_perp|``), ``Z_i = c A_i + v B_i``;
``f = sum_i phi_b(Z_i) + phi_b(c Y)``. Every estimate is a sample mean with its standard error. Nothing here reads
a bound of ``theory.local_signal``: the claims compare these estimates with them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from theory import local_signal as tl
from theory._checks import InputError
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation, check_mc, check_real, check_seed
from .local_signal import _DOC as _LOCAL_SIGNAL_DOC
from .local_signal import MAX_K

__all__ = ["PopulationTerms", "init_failure_mc", "population_terms_mc"]

#: The seed and chunk Parameters of :mod:`numerics.local_signal` (filled in by :func:`theory._docstrings.fill_doc`,
#: issue 27).
_DOC = {"seed_chunk": _LOCAL_SIGNAL_DOC["seed_chunk"], "k_rows_sigma": tl._DOC["k_rows_sigma"]}


@dataclass(frozen=True)
class PopulationTerms:
    """Population quantities at one state ``(c, v, b)`` (means and standard errors over ``n`` samples).

    Attributes
    ----------
    noise_signal, se_noise_signal : float
        Lemma 3.1's term (1): ``E[-Y s(-Y f) sum_i A_i phi_b'(Z_i)]``, the noise rows' part of ``grad_w E l . w_*``.
    signal, se_signal : float
        Lemma 3.1's term (2): ``E[-s(-Y f) phi_b'(c Y)]`` (in [-2, 0]).
    noise_perp, se_noise_perp : float
        Lemma 3.2's term (1): ``E[-Y s(-Y f) sum_i B_i phi_b'(Z_i)]``, the gradient along ``w_perp/|w_perp|``.
    gamma_sym, se_gamma_sym : float
        ``(c^2 + v^2)^-1 E sum_i (s(a_2) - s(a_1)) Z_i 1{Z_i >= -b}``, the common factor of both noise terms after
        the proofs' symmetrisation (noise_signal = c gamma, noise_perp = v gamma); a low-variance estimator.
    grad_b, se_grad_b : float
        ``d/db E l`` (Lemma 3.3).
    loss, se_loss : float
        The population logistic loss ``E log(1 + exp(-Y f))`` (Lemmas B.7, B.8).
    error, se_error : float
        ``P[Y f <= 0]``.
    small_sum, se_small_sum : float
        ``P[|S| < phi_b(c) + 10]``, ``S = sum_i phi_b(Z_i)`` (Lemma B.8, whose ``c_t + b_t`` is ``phi_b(c)`` for
        ``c >= |b|``).
    upper_tail, se_upper_tail : float
        ``P[S >= phi_b(c)]`` (Lemma B.6's left side, with ``t = c_t + b_t = phi_b(c)``).
    n : int
        Samples.

    Examples
    --------
    >>> t = population_terms_mc(20, 0.5, 1.0, 0.1, -0.2, 500, seed=3)
    >>> isinstance(t, PopulationTerms), t.n, 0 <= t.error <= 1
    (True, 500, True)
    """

    noise_signal: float
    se_noise_signal: float
    signal: float
    se_signal: float
    noise_perp: float
    se_noise_perp: float
    gamma_sym: float
    se_gamma_sym: float
    grad_b: float
    se_grad_b: float
    loss: float
    se_loss: float
    error: float
    se_error: float
    small_sum: float
    se_small_sum: float
    upper_tail: float
    se_upper_tail: float
    n: int


def _phi(x: np.ndarray | float, b: float) -> np.ndarray:
    return np.maximum(np.asarray(x) + b, 0.0) - np.maximum(-np.asarray(x) + b, 0.0)


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))


@fill_doc(_DOC)
def population_terms_mc(
    k: int, sigma: float, c: float, v: float, b: float, n: int, seed: int, chunk: int = 2000
) -> PopulationTerms:
    """Monte Carlo of :class:`PopulationTerms` at ``(c, v, b)`` with ``k`` noise rows of standard deviation ``sigma``.

    Direct estimators (the per-sample gradients of App. B.1.1, ``phi_b'(x) = 1{x >= -b} + 1{x <= b}``,
    ``d phi_b/db = 1{x >= -b} - 1{x <= b}``) on one set of samples, and the symmetrised ``gamma`` of the proofs of
    Lemmas 3.1 and 3.2 (``a_2 = -phi_b(c) + S_{-i} + S_i``, ``a_1 = -phi_b(c) + S_{-i} - S_i``) on another.

    Parameters
    ----------
    {{k_rows_sigma}}
    c, v, b : float
        The state: ``c = w . w_*``, ``v = |w_perp| >= 0``, the bias; ``c^2 + v^2 > 0``.
    n : int
        Samples per estimator, ``n >= 2``.
    {{seed_chunk}}

    Returns
    -------
    PopulationTerms

    Examples
    --------
    The symmetrised gamma times c estimates Lemma 3.1's noise term, and both noise terms and gamma are >= 0 here:

    >>> t = population_terms_mc(50, 0.3, 0.5, 0.2, -0.1, 4000, seed=0)
    >>> abs(t.noise_signal - 0.5 * t.gamma_sym) < 4 * (t.se_noise_signal + 0.5 * t.se_gamma_sym)
    True
    >>> -2 <= t.signal <= 0, t.gamma_sym >= 0
    (True, True)
    """
    seed = check_seed(seed)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise InputError(f"k must be an integer >= 2, got {k!r}", param="k")
    k = int(k)
    if k > MAX_K:
        raise InputError(f"k must be at most 2^53 (a float factor of the noise sum), got {k!r:.40}", param="k")
    sigma, c, v, b = (check_real(x, name) for x, name in ((sigma, "sigma"), (c, "c"), (v, "v"), (b, "b")))
    if not sigma > 0:
        raise InputError(f"sigma must be > 0, got {sigma!r}", param="sigma")
    if v < 0 or c * c + v * v == 0:
        raise InputError(f"need v >= 0 and c^2 + v^2 > 0, got c = {c!r}, v = {v!r}", param="v")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"n must be an integer >= 2 (a standard error), got {n!r}", param="n")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise InputError(f"chunk must be an integer >= 1, got {chunk!r}", param="chunk")
    n, chunk = int(n), int(chunk)
    scale = sigma * math.hypot(c, v)
    if not (math.isfinite(scale) and math.isfinite(scale * k * 40 + abs(b) * k)):
        raise InputError(
            f"sigma = {sigma!r} with (c, v) = ({c!r}, {v!r}), b = {b!r}: the sum of the k noise rows' outputs is beyond "
            "the float range",
            param="c",
        )
    check_mc(n, "n", 6 * k, "n (6 k normals and products per sample)", minimum=2, sizes={"k": k})
    check_allocation(array_bytes(6 * min(chunk, n), k), "n", n, f"the ({min(chunk, n)}, {k}) sample blocks")
    rng = np.random.default_rng(seed)
    r2 = c * c + v * v
    g1 = float(_phi(c, b))
    cols: list[np.ndarray] = []
    gam: list[np.ndarray] = []
    done = 0
    while done < n:
        m = min(chunk, n - done)
        A = sigma * rng.standard_normal((m, k))
        B = sigma * rng.standard_normal((m, k))
        Z = c * A + v * B
        S_i = _phi(Z, b)
        S = S_i.sum(1)
        Y = rng.choice(np.array([-1.0, 1.0]), size=m)
        f = S + Y * g1
        sig = special.expit(-Y * f)
        dl = -Y * sig
        dphi = (-b <= Z).astype(float) + (b >= Z)
        dphib = (-b <= Z).astype(float) - (b >= Z)
        yc = c * Y
        cols.append(
            np.column_stack(
                [
                    dl * (A * dphi).sum(1),
                    -sig * ((yc >= -b).astype(float) + (yc <= b)),
                    dl * (B * dphi).sum(1),
                    dl * (dphib.sum(1) + (yc >= -b).astype(float) - (yc <= b)),
                    np.logaddexp(0.0, -Y * f),
                    (Y * f <= 0).astype(float),
                    (np.abs(S) < g1 + 10).astype(float),
                    (g1 <= S).astype(float),
                ]
            )
        )
        # the symmetrised gamma on independent samples
        Z2 = math.sqrt(r2) * sigma * rng.standard_normal((m, k))
        S2 = _phi(Z2, b)
        tot = S2.sum(1, keepdims=True)
        a2, a1 = -g1 + tot, -g1 + tot - 2 * S2
        gam.append(((special.expit(a2) - special.expit(a1)) * Z2 * (-b <= Z2)).sum(1) / r2)
        done += m
    M = np.concatenate(cols)
    est = [_mean_se(M[:, j]) for j in range(M.shape[1])]
    g = _mean_se(np.concatenate(gam))
    (ns, sns), (sg, ssg), (npp, snp), (gb, sgb), (lo, slo), (er, ser), (sm, ssm), (ut, sut) = est
    return PopulationTerms(
        noise_signal=ns,
        se_noise_signal=sns,
        signal=sg,
        se_signal=ssg,
        noise_perp=npp,
        se_noise_perp=snp,
        gamma_sym=g[0],
        se_gamma_sym=g[1],
        grad_b=gb,
        se_grad_b=sgb,
        loss=lo,
        se_loss=slo,
        error=er,
        se_error=ser,
        small_sum=sm,
        se_small_sum=ssm,
        upper_tail=ut,
        se_upper_tail=sut,
        n=n,
    )


def init_failure_mc(k: int, d: int, n: int, seed: int, chunk: int = 100_000) -> tuple[float, float]:
    """Monte Carlo of Lemma B.3's failure event: ``w ~ N(0, delta^2/(k d) I_d)``, ``c = w . w_*``,
    ``v = |w - c w_*|``; the frequency of ``max(|c|, v) > delta`` and its standard error (delta = 1: the event is
    scale-free; ``w_* = e_1``, any unit vector gives the same law).

    Parameters
    ----------
    k : int
        ``k >= 1`` (the variance is ``1/(k d)``).
    d : int
        Dimension, ``d >= 2``.
    n : int
        Draws, ``n >= 2``.
    seed : int
        Seed of ``np.random.default_rng``.
    chunk : int
        Draws per batch.

    Returns
    -------
    tuple of float
        ``(frequency, standard error)``.

    Examples
    --------
    >>> p, se = init_failure_mc(2, 3, 20000, seed=1)
    >>> 0.04 < p < 0.09 and se < 0.003
    True
    """
    seed = check_seed(seed)
    for value, name, lo in ((k, "k", 1), (d, "d", 2), (n, "n", 2), (chunk, "chunk", 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
            raise InputError(f"{name} must be an integer >= {lo}, got {value!r}", param=name)
    k, d, n, chunk = int(k), int(d), int(n), int(chunk)
    if k > MAX_K:
        raise InputError(f"k must be at most 2^53 (a float factor of the variance), got {k!r:.40}", param="k")
    check_mc(n, "n", d, "n (d normals per draw)", minimum=2, sizes={"d": d})
    rng = np.random.default_rng(seed)
    fails = 0
    done = 0
    while done < n:
        m = min(chunk, n - done)
        w = rng.standard_normal((m, d)) / math.sqrt(k * d)
        c = np.abs(w[:, 0])
        v = np.linalg.norm(w[:, 1:], axis=1)
        fails += int(np.sum((c > 1) | (v > 1)))
        done += m
    p = fails / n
    return p, max(math.sqrt(p * (1 - p) / n), 1.0 / n)
