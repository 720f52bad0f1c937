r"""Fourier-gap numerics of Edelman thesis Ch. 5 / App. B (Prop. B.7, Figs. B.7, B.8).

Conventions (as :mod:`numerics.walsh`): point ``a`` of {±1}^n has :math:`x_i=(-1)^{a_i}`, the target is
the (n,k)-sparse parity :math:`y=\chi_S(x)` with S = [k] (bits 0..k-1), and a neuron's population
gradient of the correlation loss is :math:`-E[y\,x\,\sigma'(w^\top x+b)]`.  Gaps are read from the
"positive" gradient :math:`g = E[y\,x\,\sigma'(w^\top x)]` (App. B.3.1); only |g| matters.

* Prop. B.7 one-step recovery: batch estimates :math:`\hat g` of the gradient of one ReLU neuron,
  vectorised over trials, either streamed over i.i.d. samples in chunks (:func:`batch_gradients_streamed`,
  any B) or drawn as multinomial counts over the cube (:func:`batch_gradients_counts`, the same law;
  O(2^n n) per trial whatever B).  Success = the k largest |ĝ_i| are exactly S (strictly).
* Random-LTF gaps (Fig. B.7): exact g for many random w through ONE batched transform
  (:func:`numerics.walsh.fwht_batched`, a blocked-matmul form of the transform).
* Sinusoid gaps (Fig. B.8 left): closed form (:func:`theory.boolean.sinusoid_coefficient`), vectorised over draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from theory import boolean as tb
from theory._checks import InputError, check_cost, check_positive_int, format_count
from theory._docstrings import fill_doc

from . import limits
from .limits import MAX_MC_SAMPLES, MAX_MC_WORK, array_bytes, check_allocation, check_real, check_real_array, check_rng
from .walsh import MAX_N as MAX_CUBE_N
from .walsh import fwht_batched, linear_forms

__all__ = [
    "DISTRIBUTIONS",
    "MAX_BITS",
    "MAX_MC_SAMPLES",
    "MAX_MC_WORK",
    "MAX_TRANSFORM_WORK",
    "RecoveryResult",
    "batch_gradients_counts",
    "batch_gradients_streamed",
    "gaps",
    "gradient_gap_reference",
    "ltf_gradients",
    "one_step_recovery",
    "prefix_mask",
    "random_ltf_gaps",
    "random_weights",
    "recovered",
    "sign_population_gradient",
    "sinusoid_gaps",
    "sinusoid_gradients",
    "sinusoid_gradients_bruteforce",
]

DISTRIBUTIONS = ("sign", "uniform", "gaussian")
COUNTS_MAX_N = 20

MAX_BITS = 100_000
"""Largest number of bits n: the sinusoid gradients build (D, n, n) factors, prefix masks n entries."""

MAX_TRANSFORM_WORK = 10**10
"""Largest exact work of the batched transforms, ``draws 2^n n`` (:func:`ltf_gradients`, :func:`random_ltf_gaps`,
:func:`sinusoid_gradients_bruteforce`)."""

MAX_COUNT_BATCH = 2**62
"""Largest batch size of the cube-count estimator (multinomial counts in int64)."""

#: Parameters and Returns sections shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "returns_batch": r"""Returns
-------
np.ndarray, shape (T, n)
    The batch gradients :math:`\hat g`.""",
    "sweep": """n : int
    Number of bits.
ks : sequence of int
    Support sizes, each in ``1 .. n-1``.
dist : str
    Weight law, one of :data:`DISTRIBUTIONS`.
draws : int
    Number of weight vectors D.
seed : int
    Seed of the weights.""",
    "sinusoid": """k : int
    Support size, ``1 <= k <= n - 1``.
c : float
    Frequency.
b : float
    Phase (bias).
kind : str
    ``"cos"`` or ``"sin"``.""",
    "returns_gradients": """Returns
-------
np.ndarray, shape (D, n)""",
}


def _weights2d(value: object, name: str) -> np.ndarray:
    W = check_real_array(value, name)
    if W.ndim != 2 or W.shape[1] < 1:
        raise InputError(f"{name} must be (trials, n), got shape {W.shape}", param=name)
    return W


def _draws2d(W: object) -> np.ndarray:
    """``W`` as a real array of shape ``(draws, n)``, one weight vector per row (the batched gradients of App. B)."""
    W = check_real_array(W, "W")
    if W.ndim != 2:
        raise InputError(f"W must be (draws, n), got shape {W.shape}", param="W")
    return W


def _check_kind(kind: object) -> str:
    if kind not in ("cos", "sin"):
        raise InputError(f"kind must be 'cos' or 'sin', got {kind!r:.80}", param="kind")
    return str(kind)


def _check_cube(n: int, param: str = "n") -> None:
    """n <= numerics.walsh.MAX_N for a dense array over {±1}^n."""
    check_cost(
        n,
        MAX_CUBE_N,
        param=param,
        value=n,
        what="a dense transform over {±1}^n",
        hint="the closed forms of theory.boolean (majority_coefficient, ltf_coefficient, sinusoid_coefficient)",
    )


def _check_samples(samples: object, name: str, *, minimum: int = 1) -> int:
    n = check_positive_int(samples, name, minimum=minimum)
    check_cost(n, MAX_MC_SAMPLES, param=name, value=n, what="Monte-Carlo sample counts", hint=f"use a smaller {name}")
    return n


def _check_work(work: int, limit: int, param: str, value: object, what: str, hint: str) -> None:
    check_cost(work, limit, param=param, value=value, what=what, hint=hint)


def _check_transforms(draws: int, n: int, param: str, value: object, hint: str) -> None:
    """Bound the work of ``draws`` batched fast Walsh-Hadamard transforms over the ``2^n`` points of {±1}^n.

    Each transform costs ``2^n n`` operations (:func:`numerics.walsh.fwht_batched`), so the work is ``draws 2^n n``,
    held to :data:`MAX_TRANSFORM_WORK` (:func:`ltf_gradients`, :func:`random_ltf_gaps`,
    :func:`sinusoid_gradients_bruteforce`).

    Parameters
    ----------
    draws : int
        Number of weight vectors transformed.
    n : int
        Number of bits.
    param : str
        The argument blamed in the error.
    value : object
        Its value, for the message.
    hint : str
        What to do instead.
    """
    _check_work(
        draws * (n << n),
        MAX_TRANSFORM_WORK,
        param,
        value,
        f"the transforms of {format_count(draws)} draws over 2^{n} points (draws 2^n n)",
        hint,
    )


def gradient_gap_reference(n: int, k: int) -> Fraction:
    r"""Majority reference in gradient units, :math:`\gamma_{grad}=\tfrac12(|Maj_n(k-1)|-|Maj_n(k+1)|)`.

    For a random sign w (n odd, no bias) :math:`1\{w^\top x>0\}=\tfrac12+\tfrac12Maj_n(w\odot x)`, so the
    gradient coordinates are :math:`\tfrac12|Maj_n(k\mp1)|` (Lemma B.3) and the gap of σ' = that of the gradient.
    Exact, from :func:`theory.boolean.gradient_gap`.

    Parameters
    ----------
    n : int
        Number of bits (odd for the Majority identity).
    k : int
        Size of the support S = [k].

    Returns
    -------
    fractions.Fraction

    Examples
    --------
    >>> from theory.boolean import majority_coefficient
    >>> gradient_gap_reference(5, 2)
    Fraction(1, 8)
    >>> (abs(majority_coefficient(5, 1)) - abs(majority_coefficient(5, 3))) / 2
    Fraction(1, 8)
    """
    return tb.gradient_gap(n, k)


def _check_nk(n: int, k: int) -> tuple[int, int]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"n must be an integer >= 2, got {n!r:.80}", param="n")
    check_cost(
        int(n),
        MAX_BITS,
        param="n",
        value=int(n),
        what="bit counts",
        hint="the closed forms of theory.boolean (gradient_gap, majority_coefficient)",
    )
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n - 1:
        raise InputError(
            f"k must be an integer with 1 <= k <= n-1 (the gap compares levels k-1 and k+1), got k = {k!r:.80}, "
            f"n = {n}",
            param="k",
        )
    return int(n), int(k)


def random_weights(dist: str, draws: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """(draws, n) float64 weights: ``sign`` (Unif{±1}), ``uniform`` (U[-1,1]) or ``gaussian`` (N(0,1)).

    Parameters
    ----------
    dist : str
        One of :data:`DISTRIBUTIONS`.
    draws, n : int
        Number of weight vectors and their dimension, both >= 1.
    rng : np.random.Generator
        Source of the draws.

    Returns
    -------
    np.ndarray, shape (draws, n)

    Examples
    --------
    >>> import numpy as np
    >>> random_weights("sign", 2, 5, np.random.default_rng(0)).tolist()
    [[-1.0, -1.0, -1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, -1.0]]
    >>> random_weights("cauchy", 1, 3, np.random.default_rng(0))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: dist must be one of ('sign', 'uniform', 'gaussian'), got 'cauchy'
    """
    if dist not in DISTRIBUTIONS:
        raise InputError(f"dist must be one of {DISTRIBUTIONS}, got {dist!r:.80}", param="dist")
    for name, v in (("draws", draws), ("n", n)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"need draws >= 1 and n >= 1, got draws = {draws!r:.40}, n = {n!r:.40}", param=name)
    rng = check_rng(rng)
    big = "draws" if draws >= n else "n"
    check_allocation(
        array_bytes(int(draws), int(n), itemsize=16),
        big,
        draws if big == "draws" else n,
        f"the weights ({format_count(draws)}, {format_count(n)}) in float64 with their draws",
    )
    if dist == "sign":
        return 1.0 - 2.0 * rng.integers(0, 2, size=(draws, n))
    if dist == "uniform":
        return rng.uniform(-1.0, 1.0, size=(draws, n))
    return rng.standard_normal((draws, n))


def prefix_mask(n: int, k: int) -> np.ndarray:
    """Boolean (n,) indicator of S = [k] (coordinates 0..k-1).

    Parameters
    ----------
    n : int
        Number of bits, >= 2.
    k : int
        Support size, ``1 <= k <= n - 1``.

    Returns
    -------
    np.ndarray of bool, shape (n,)

    Examples
    --------
    >>> prefix_mask(5, 2).tolist()
    [True, True, False, False, False]
    >>> prefix_mask(5, 5)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: k must be an integer with 1 <= k <= n-1 (the gap compares levels k-1 and k+1), got k = 5, n = 5
    """
    n, k = _check_nk(n, k)
    return np.arange(n) < k


def gaps(g: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Relaxed and Def.-5.4 gaps of gradients g (..., n) at S = [k], along the last axis.

    :math:`\Gamma_{max}=\max_{i\in[k]}|g_i|-\max_{i\notin[k]}|g_i|` (App. B.3.1) and
    :math:`\Gamma_{min}=\min_{i\in[k]}|g_i|-\max_{i\notin[k]}|g_i|` (Def. 5.4, footnote of B.3.1).

    Parameters
    ----------
    g : array_like, shape (..., n)
        Gradients (only their absolute values matter).
    k : int
        Support size, ``1 <= k <= n - 1``.

    Returns
    -------
    gamma_max, gamma_min : np.ndarray, shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> gmax, gmin = gaps(np.array([[0.3, -0.2, 0.1, 0.05], [0.3, 0.1, 0.1, 0.0]]), 2)
    >>> gmax.round(12).tolist(), gmin.round(12).tolist()
    ([0.2, 0.2], [0.1, 0.0])
    """
    a = np.abs(check_real_array(g, "g"))
    if a.ndim < 1:
        raise InputError(f"g must be gradients of shape (..., n), got a scalar {g!r:.80}", param="g")
    n = a.shape[-1]
    _check_nk(n, k)
    outside = a[..., k:].max(axis=-1)
    return a[..., :k].max(axis=-1) - outside, a[..., :k].min(axis=-1) - outside


def recovered(ghat: np.ndarray, k: int) -> np.ndarray:
    """True where the k largest |ĝ_i| are exactly S = [k], strictly (min over S > max outside; ties fail).

    Parameters
    ----------
    ghat : array_like, shape (..., n)
        Gradient estimates.
    k : int
        Support size, ``1 <= k <= n - 1``.

    Returns
    -------
    np.ndarray of bool, shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> recovered(np.array([[0.3, -0.2, 0.1, 0.05], [0.3, 0.1, 0.1, 0.0]]), 2).tolist()
    [True, False]
    """
    try:
        return gaps(ghat, k)[1] > 0
    except InputError as exc:
        if exc.param == "g":
            raise InputError(str(exc).replace("g must", "ghat must", 1), param="ghat") from None
        raise


def _parity_prefix(x: np.ndarray, k: int) -> np.ndarray:
    return np.prod(x[..., :k], axis=-1)


@fill_doc(_DOC)
def batch_gradients_streamed(
    w: np.ndarray, k: int, B: int, rng: np.random.Generator, *, b: float = 0.0, chunk_elems: int = 1 << 22
) -> np.ndarray:
    r"""Batch gradients :math:`\hat g=-\frac1B\sum_{s\le B} y_s x_s 1\{w^\top x_s+b>0\}` of one ReLU neuron.

    ``w`` is (T, n): one independent batch of B uniform samples per row (Prop. B.7's estimator, S = [k]).
    Samples are streamed in chunks of at most ``chunk_elems`` ±1 entries over all trials, so any B fits.
    Arithmetic is float32 (exact for sign / small-integer w; chunk sums stay below 2^24), accumulated in float64.

    Parameters
    ----------
    w : np.ndarray, shape (T, n)
        One weight vector per trial.
    k : int
        Support size of the parity, ``1 <= k <= n - 1``.
    B : int
        Batch size, >= 1.
    rng : np.random.Generator
        Source of the samples.
    b : float
        Bias of the neuron.
    chunk_elems : int
        Upper bound on the ±1 entries drawn at once.

    {{returns_batch}}

    Examples
    --------
    With B = 4096 the estimate is within :math:`\gamma_{grad}/2 = 1/16` of the exact population gradient
    (:func:`sign_population_gradient`), so S is recovered (Prop. B.7):

    >>> import numpy as np
    >>> W = random_weights("sign", 3, 5, np.random.default_rng(0))
    >>> ghat = batch_gradients_streamed(W, 2, 4096, np.random.default_rng(1))
    >>> bool(np.abs(ghat - sign_population_gradient(W, 2)).max() < 1 / 16), recovered(ghat, 2).tolist()
    (True, [True, True, True])
    """
    w = _weights2d(w, "w")
    T, n = w.shape
    _check_nk(n, k)
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise InputError(f"batch size B must be an integer >= 1, got {B!r:.80}", param="B")
    B = _check_samples(B, "B")
    rng, b = check_rng(rng), check_real(b, "b")
    if abs(b) >= 1e38:  # the streamed arithmetic is float32
        raise InputError(
            f"b must lie within the float32 range of the estimator (|b| < 1e38), got b = {b:.3g}", param="b"
        )
    chunk_elems = check_positive_int(chunk_elems, "chunk_elems")
    _check_work(
        T * B * n,
        limits.max_mc_work(),
        "B",
        B,
        f"the Monte-Carlo work (trials B n = {format_count(T)} x {format_count(B)} x {n} ±1 entries)",
        "use a smaller B or fewer trials",
    )
    c = max(1, min(B, chunk_elems // (T * n)))
    check_allocation(
        array_bytes(T, c, n, itemsize=16),
        "chunk_elems",
        chunk_elems,
        f"one chunk of samples ({T}, {format_count(c)}, {n}) with its float32 copies",
        "use a smaller chunk_elems",
    )
    acc = np.zeros((T, n))
    w32 = w.astype(np.float32)[:, :, None]
    done = 0
    while done < B:
        m = min(c, B - done)
        x = (1 - 2 * rng.integers(0, 2, size=(T, m, n), dtype=np.int8)).astype(np.float32)
        z = np.matmul(x, w32)[..., 0] + np.float32(b)
        yh = _parity_prefix(x, k) * (z > 0)
        acc += np.matmul(yh[:, None, :], x)[:, 0, :]
        done += m
    return -acc / B


@fill_doc(_DOC)
def batch_gradients_counts(w: np.ndarray, k: int, B: int, rng: np.random.Generator, *, b: float = 0.0) -> np.ndarray:
    r"""The same estimator in law, through multinomial counts :math:`c_a` of B uniform draws on the cube:

    :math:`\hat g_i=-\frac1B\sum_a c_a\,h_a\,\chi_{S\triangle\{i\}}(a)=-\frac1B\,[H(c\odot h)]_{S\triangle\{i\}}`
    (the proof of Prop. B.7 with the empirical measure), one batched transform for all trials; cost O(2^n n) per trial.

    Parameters
    ----------
    w : np.ndarray, shape (T, n)
        One weight vector per trial (n <= 20).
    k : int
        Support size of the parity, ``1 <= k <= n - 1``.
    B : int
        Batch size, >= 1.
    rng : np.random.Generator
        Source of the counts.
    b : float
        Bias of the neuron.

    {{returns_batch}}

    Examples
    --------
    >>> import numpy as np
    >>> W = random_weights("sign", 3, 5, np.random.default_rng(0))
    >>> ghat = batch_gradients_counts(W, 2, 4096, np.random.default_rng(1))
    >>> bool(np.abs(ghat - sign_population_gradient(W, 2)).max() < 1 / 16), recovered(ghat, 2).tolist()
    (True, [True, True, True])
    >>> batch_gradients_counts(np.ones((1, 21)), 2, 10, np.random.default_rng(0))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the cube-count estimator needs n <= 20, got n = 21; use batch_gradients_streamed
    """
    w = _weights2d(w, "w")
    T, n = w.shape
    _check_nk(n, k)
    if n > COUNTS_MAX_N:
        raise InputError(
            f"the cube-count estimator needs n <= {COUNTS_MAX_N}, got n = {n}; use batch_gradients_streamed",
            param="w",
        )
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise InputError(f"batch size B must be an integer >= 1, got {B!r:.80}", param="B")
    check_cost(
        int(B),
        MAX_COUNT_BATCH,
        param="B",
        value=int(B),
        what="multinomial counts in int64",
        hint="the population gradient (sign_population_gradient) is the limit of large B",
    )
    rng, b = check_rng(rng), check_real(b, "b")
    _check_work(
        T * (n << n),
        limits.max_mc_work(),
        "w",
        T,
        f"the transform of {format_count(T)} trials over 2^{n} points",
        "use fewer trials (rows of w)",
    )
    check_allocation(array_bytes(3 * T, 1 << n), "w", T, f"the counts ({format_count(T)}, 2^{n}) in float64")
    N = 1 << n
    counts = rng.multinomial(B, np.full(N, 1.0 / N), size=T).astype(np.float64)
    counts *= linear_forms(w) + b > 0
    H = fwht_batched(counts)
    idx = ((1 << k) - 1) ^ (1 << np.arange(n))
    return -H[:, idx] / B


def sign_population_gradient(W: np.ndarray, k: int) -> np.ndarray:
    r"""Exact population gradient :math:`-E[y\,x\,1\{w^\top x>0\}]` at sign weights W (T, n), n odd, S = [k].

    Lemma B.3 (with u = 1): :math:`\bar g_i=-\tfrac12\chi_{S\triangle\{i\}}(w)\,Maj_n(|S\triangle\{i\}|)`,
    and :math:`\chi_{S\triangle\{i\}}(w)=w_i\prod_{j\in S}w_j` for sign w.  Majority values from ``theory.boolean``.

    Parameters
    ----------
    W : np.ndarray, shape (T, n)
        Sign weights (entries ±1), n odd.
    k : int
        Support size, ``1 <= k <= n - 1``.

    Returns
    -------
    np.ndarray, shape (T, n)

    Examples
    --------
    It is minus the exact transform of :func:`ltf_gradients`, and its gap is :math:`\gamma_{grad}` for every w:

    >>> import numpy as np
    >>> W = random_weights("sign", 3, 5, np.random.default_rng(0))
    >>> g = sign_population_gradient(W, 2)
    >>> g[0].tolist()
    [0.1875, 0.1875, -0.0625, 0.0625, 0.0625]
    >>> bool(np.allclose(g, -ltf_gradients(W, [2])[2]))
    True
    >>> gaps(g, 2)[1].tolist(), float(gradient_gap_reference(5, 2))
    ([0.125, 0.125, 0.125], 0.125)
    """
    W = check_real_array(W, "W")
    if W.ndim != 2 or not np.all(np.abs(W) == 1):
        raise InputError("sign_population_gradient needs sign weights W of shape (T, n) with entries ±1", param="W")
    _T, n = W.shape
    n, k = _check_nk(n, k)
    if n % 2 == 0:
        raise InputError(f"the Lemma B.3 formula needs n odd (no ties w.x = 0), got n = {n}", param="W")
    maj = np.where(
        prefix_mask(n, k), float(tb.majority_coefficient(n, k - 1)), float(tb.majority_coefficient(n, k + 1))
    )
    return -0.5 * np.prod(W[:, :k], axis=1, keepdims=True) * W * maj[None, :]


@dataclass(frozen=True)
class RecoveryResult:
    r"""Success counts of one-step recovery at each batch size (Prop. B.7).

    Attributes
    ----------
    n, k : int
        Number of bits and support size.
    batch_sizes : tuple of int
        The batch sizes B.
    trials : int
        Trials per batch size.
    successes : tuple of int
        Trials that recovered S, per B.
    gamma_grad : float
        :func:`gradient_gap_reference`.
    method : str
        The estimators used (``"counts"``, ``"streamed"`` or both joined by ``+``).
    seed : int
        The seed of the run.
    within : tuple of int
        Trials with :math:`\|\hat g-\bar g\|_\infty<\gamma_{grad}/2`, per B.
    violations : tuple of int
        Failures among ``within`` (Prop. B.7 says there are none).

    Examples
    --------
    >>> r = one_step_recovery(5, 2, [8, 256], 40, seed=0)
    >>> r.successes, r.rates
    ((3, 34), (0.075, 0.85))
    """

    n: int
    k: int
    batch_sizes: tuple[int, ...]
    trials: int
    successes: tuple[int, ...]
    gamma_grad: float
    method: str
    seed: int
    within: tuple[int, ...] = ()
    violations: tuple[int, ...] = ()

    @property
    def rates(self) -> tuple[float, ...]:
        return tuple(s / self.trials for s in self.successes)


def one_step_recovery(
    n: int,
    k: int,
    batch_sizes: Sequence[int],
    trials: int,
    seed: int,
    *,
    method: str = "auto",
    chunk_trials: int = 50,
    chunk_elems: int = 1 << 22,
) -> RecoveryResult:
    r"""Success rate of Prop. B.7 one-step recovery with a random sign w (no bias), S = [k].

    Per trial: draw :math:`w\sim\mathrm{Unif}\{\pm1\}^n`, a fresh batch of B samples, the batch gradient
    :math:`\hat g` of :math:`-y\,\mathrm{ReLU}(w^\top x)`, success iff the top-k of :math:`|\hat g|` is S.
    For sign w the population gradient is :math:`\mp\tfrac12\chi(w)Maj_n(k\mp1)` (Lemma B.3), gap
    :math:`\gamma_{grad}` (:func:`gradient_gap_reference`); Prop. B.7 gives recovery once
    :math:`\|\hat g-\bar g\|_\infty<\gamma_{grad}/2`, i.e. :math:`B=O(\log n/\gamma^2)`.

    ``method``: ``streamed`` (i.i.d. samples in chunks), ``counts`` (multinomial on the cube, same law) or
    ``auto`` (counts when n <= 20 and B >= 2^n / 4, else streamed).  Seeds: one
    ``np.random.default_rng([seed, j])`` per batch size j.

    Also counts, per B, the trials with :math:`\|\hat g-\bar g\|_\infty<\gamma_{grad}/2` (``within``, exact
    :math:`\bar g` from :func:`sign_population_gradient`) and among them the failures (``violations``): Prop. B.7
    as stated says there are none.

    Parameters
    ----------
    n : int
        Number of bits (odd).
    k : int
        Support size, ``1 <= k <= n - 1``.
    batch_sizes : sequence of int
        The batch sizes B.
    trials : int
        Trials per batch size, >= 1.
    seed : int
        Base seed.
    method : str
        ``"auto"``, ``"streamed"`` or ``"counts"``.
    chunk_trials : int
        Trials drawn at once.
    chunk_elems : int
        Chunk bound of the streamed estimator.

    Returns
    -------
    RecoveryResult

    Examples
    --------
    Success grows with B, and no trial within :math:`\gamma_{grad}/2` of the population gradient fails:

    >>> r = one_step_recovery(5, 2, [8, 256], 40, seed=0)
    >>> r.rates, r.gamma_grad, r.method
    ((0.075, 0.85), 0.125, 'counts')
    >>> r.within, r.violations
    ((0, 16), (0, 0))
    """
    seed = limits.check_seed(seed)
    n, k = _check_nk(n, k)
    if n % 2 == 0:
        raise InputError(f"one-step recovery with sign w needs n odd (no ties w.x = 0), got n = {n}", param="n")
    if method not in ("auto", "streamed", "counts"):
        raise InputError(f"method must be 'auto', 'streamed' or 'counts', got {method!r:.80}", param="method")
    if method == "counts" and n > COUNTS_MAX_N:
        raise InputError(
            f"the cube-count estimator needs n <= {COUNTS_MAX_N}, got n = {n}; use method='streamed'", param="method"
        )
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise InputError(f"trials must be an integer >= 1, got {trials!r:.80}", param="trials")
    trials = _check_samples(trials, "trials")
    chunk_trials = check_positive_int(chunk_trials, "chunk_trials")
    chunk_elems = check_positive_int(chunk_elems, "chunk_elems")
    if isinstance(batch_sizes, (str, bytes)) or not isinstance(batch_sizes, Sequence):
        raise InputError(
            f"batch_sizes must be a sequence of integers >= 1, got {batch_sizes!r:.80}", param="batch_sizes"
        )
    for B in batch_sizes:
        if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
            raise InputError(f"batch_sizes must hold integers >= 1, got {B!r:.80}", param="batch_sizes")
    batch_sizes = tuple(int(B) for B in batch_sizes)
    methods = [
        method if method != "auto" else ("counts" if n <= COUNTS_MAX_N and (1 << n) <= 4 * B else "streamed")
        for B in batch_sizes
    ]
    for B, m in zip(batch_sizes, methods, strict=True):
        check_cost(
            B,
            MAX_COUNT_BATCH if m == "counts" else MAX_MC_SAMPLES,
            param="batch_sizes",
            value=B,
            what="multinomial counts in int64" if m == "counts" else "Monte-Carlo sample counts",
            hint="use smaller batch sizes",
        )
    per_trial = sum((n << n) if m == "counts" else B * n for B, m in zip(batch_sizes, methods, strict=True))
    single = per_trial > limits.max_mc_work()  # even one trial is too much: the batch sizes must shrink
    _check_work(
        trials * per_trial,
        limits.max_mc_work(),
        "batch_sizes" if single else "trials",
        max(batch_sizes) if single else trials,
        f"the Monte-Carlo work (trials x (B n streamed, or 2^n n by cube counts), summed over the batch sizes, "
        f"= {format_count(trials)} x {format_count(per_trial)} ±1 entries)",
        "use smaller batch sizes" if single else "use fewer trials",
    )
    succ, within, viol = [], [], []
    used = set()
    half_gap = float(gradient_gap_reference(n, k)) / 2
    for j, (B, m) in enumerate(zip(batch_sizes, methods, strict=True)):
        rng = np.random.default_rng([seed, j])
        used.add(m)
        s = inside = bad = 0
        per = chunk_trials if m == "streamed" else max(1, min(chunk_trials, (1 << 24) >> n))
        for t0 in range(0, trials, per):
            W = random_weights("sign", min(per, trials - t0), n, rng)
            if m == "counts":
                G = batch_gradients_counts(W, k, B, rng)
            else:
                G = batch_gradients_streamed(W, k, B, rng, chunk_elems=chunk_elems)
            ok = recovered(G, k)
            close = np.abs(G - sign_population_gradient(W, k)).max(axis=1) < half_gap
            s += int(ok.sum())
            inside += int(close.sum())
            bad += int((close & ~ok).sum())
        succ.append(s)
        within.append(inside)
        viol.append(bad)
    return RecoveryResult(
        n,
        k,
        batch_sizes,
        trials,
        tuple(succ),
        float(gradient_gap_reference(n, k)),
        "+".join(sorted(used)),
        seed,
        tuple(within),
        tuple(viol),
    )


def _check_ks(ks: object, n: int) -> tuple[int, ...]:
    """Support sizes: a sequence of integers, each in 1 .. n-1."""
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Sequence):
        raise InputError(f"ks must be a sequence of support sizes in 1 .. n-1, got {ks!r:.80}", param="ks")
    for k in ks:
        _check_nk(n, k)
    return tuple(int(k) for k in ks)


def _bits_table(n: int, ks: Sequence[int]) -> dict[int, np.ndarray]:
    return {k: ((1 << k) - 1) ^ (1 << np.arange(n)) for k in ks}


def ltf_gradients(W: np.ndarray, ks: Sequence[int], *, b: float = 0.0, chunk: int = 64) -> dict[int, np.ndarray]:
    r"""Exact :math:`g=E[y\,x\,1\{w^\top x+b>0\}]` for every row w of W (D, n) and each S = [k], k in ks.

    :math:`g_i=\hat h(S\triangle\{i\})` with :math:`h=1\{w^\top x+b>0\}` (proof of Prop. B.7); the coefficients of all
    draws come from one batched transform of the (D, 2^n) array of h values, ``chunk`` draws at a time.

    Parameters
    ----------
    W : np.ndarray, shape (D, n)
        Weight vectors.
    ks : sequence of int
        Support sizes, each in ``1 .. n-1``.
    b : float
        Bias.
    chunk : int
        Draws per batched transform.

    Returns
    -------
    dict of int to np.ndarray, shape (D, n)
        The exact gradient g for each k.

    Examples
    --------
    At a sign w (n odd, no bias) the coordinates are :math:`\tfrac12|Maj_n(k\mp1)|` (Lemma B.3,
    :func:`theory.boolean.majority_coefficient`):

    >>> import numpy as np
    >>> from theory.boolean import majority_coefficient
    >>> g = ltf_gradients(np.ones((1, 5)), [2])[2]
    >>> np.abs(g[0]).tolist()
    [0.1875, 0.1875, 0.0625, 0.0625, 0.0625]
    >>> float(abs(majority_coefficient(5, 1)) / 2), float(abs(majority_coefficient(5, 3)) / 2)
    (0.1875, 0.0625)
    """
    W = _draws2d(W)
    D, n = W.shape
    ks = _check_ks(ks, n)
    b = check_real(b, "b")
    chunk = check_positive_int(chunk, "chunk", hypothesis="draws per batched transform")
    _check_cube(n, "W")
    _check_transforms(D, n, "W", D, "use fewer draws, or the closed forms of theory.boolean")
    check_allocation(
        array_bytes(3 * min(chunk, D), 1 << n) + array_bytes(len(ks), D, n),
        "chunk",
        chunk,
        f"one chunk of transforms ({format_count(min(chunk, D))}, 2^{n}) in float64",
        "use a smaller chunk",
    )
    idx = _bits_table(n, ks)
    out = {k: np.empty((D, n)) for k in ks}
    for d0 in range(0, D, chunk):
        Hh = fwht_batched((linear_forms(W[d0 : d0 + chunk]) + b > 0).astype(np.float64))
        Hh /= Hh.shape[-1]
        for k in ks:
            out[k][d0 : d0 + chunk] = Hh[:, idx[k]]
    return out


@fill_doc(_DOC)
def random_ltf_gaps(
    n: int, ks: Sequence[int], dist: str, draws: int, seed: int, *, chunk: int = 64
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    r"""Fig. B.7: (Γ_max, Γ_min) of exact ReLU gradients for ``draws`` random w ~ ``dist`` (no bias), per k.

    Seed: ``np.random.default_rng(seed)`` draws all weights (D, n) at once.

    Parameters
    ----------
    {{sweep}}
    chunk : int
        Draws per batched transform.

    Returns
    -------
    dict of int to (np.ndarray, np.ndarray)
        ``(gamma_max, gamma_min)``, each of shape (D,), for each k.

    Examples
    --------
    For sign weights every draw has :math:`\Gamma_{min} = \gamma_{grad}` (:func:`gradient_gap_reference`):

    >>> out = random_ltf_gaps(5, [2], "sign", 50, seed=0)
    >>> sorted(set(out[2][1].tolist())), float(gradient_gap_reference(5, 2))
    ([0.125], 0.125)
    """
    seed = limits.check_seed(seed)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"n must be an integer >= 2, got {n!r:.80}", param="n")
    _check_cube(int(n))
    ks = _check_ks(ks, int(n))
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise InputError(f"draws must be an integer >= 1, got {draws!r:.80}", param="draws")
    single = int(n) << int(n) > MAX_TRANSFORM_WORK
    _check_transforms(
        int(draws),
        int(n),
        "n" if single else "draws",
        n if single else draws,
        "use fewer draws, or the closed forms of theory.boolean",
    )
    W = random_weights(dist, draws, n, np.random.default_rng(seed))
    G = ltf_gradients(W, ks, chunk=chunk)
    return {k: gaps(G[k], k) for k in ks}


@fill_doc(_DOC)
def sinusoid_gradients(W: np.ndarray, k: int, c: float, *, b: float = 0.0, kind: str = "cos") -> np.ndarray:
    r"""Closed form (:func:`theory.boolean.sinusoid_coefficient`) of :math:`g_i=E[y\,x_i\,\phi(c\,w^\top x+b)]`, φ = cos or sin, S = [k].

    :math:`g_i=\widehat{\phi}(S\triangle\{i\})` with
    :math:`\widehat{\cos}(T)=\cos(b+\pi|T|/2)\prod_{j\in T}\sin(cw_j)\prod_{j\notin T}\cos(cw_j)` (sin: sin of the phase).
    ``kind='cos'`` is the gradient of the neuron :math:`\sin(c\,w^\top x+b)` divided by c (Fig. B.8 via σ' = cos);
    ``kind='sin'`` is the formula as printed in Fig. B.8.  Vectorised over the rows of W (D, n).

    Parameters
    ----------
    W : np.ndarray, shape (D, n)
        Weight vectors.
    {{sinusoid}}

    {{returns_gradients}}

    Examples
    --------
    Coordinate i = 1 with S = {0} is the coefficient at T = {0, 1} of
    :func:`theory.boolean.sinusoid_coefficient`; with ``kind='cos'`` and k even every coordinate vanishes:

    >>> import numpy as np
    >>> from theory.boolean import sinusoid_coefficient
    >>> W = random_weights("gaussian", 2, 5, np.random.default_rng(0))
    >>> g = sinusoid_gradients(W, 1, 0.5)
    >>> abs(float(sinusoid_coefficient(W[0].tolist(), 0.5, 0, {0, 1})) - float(g[0, 1])) < 1e-12
    True
    >>> float(np.abs(sinusoid_gradients(W, 2, 0.5)).max())
    0.0
    """
    kind = _check_kind(kind)
    W = _draws2d(W)
    D, n = W.shape
    _check_nk(n, k)
    c, b = check_real(c, "c"), check_real(b, "b")
    check_allocation(array_bytes(3 * D + 1, n, n), "W", D, f"the factors ({format_count(D)}, {n}, {n}) in float64")
    with np.errstate(over="ignore", invalid="ignore"):
        cW = c * W
    if not np.isfinite(cW).all():
        raise InputError(f"c w overflows float64 (c = {c:.3g})", param="c")
    s, co = np.sin(cW), np.cos(cW)
    inS = prefix_mask(n, k)
    T = inS[None, :] ^ np.eye(n, dtype=bool)  # row i: S xor {i}
    factors = np.where(T[None, :, :], s[:, None, :], co[:, None, :])  # (D, i, j)
    level = T.sum(axis=1)
    phase = b + math.pi * level / 2
    ph = np.cos(phase) if kind == "cos" else np.sin(phase)
    ph = np.where(np.abs(ph) < 1e-15, 0.0, ph)  # cos(pi/2 * odd) is exactly 0
    return ph[None, :] * np.prod(factors, axis=-1)


@fill_doc(_DOC)
def sinusoid_gradients_bruteforce(W: np.ndarray, k: int, c: float, *, b: float = 0.0, kind: str = "cos") -> np.ndarray:
    """The same g by one batched transform of φ(c w.x + b) over the cube (independent oracle, n <= 20).

    Parameters
    ----------
    W : np.ndarray, shape (D, n)
        Weight vectors (n <= 20).
    {{sinusoid}}

    {{returns_gradients}}

    Examples
    --------
    >>> import numpy as np
    >>> W = random_weights("gaussian", 2, 5, np.random.default_rng(0))
    >>> bool(np.allclose(sinusoid_gradients_bruteforce(W, 1, 0.5), sinusoid_gradients(W, 1, 0.5)))
    True
    >>> bool(np.allclose(sinusoid_gradients_bruteforce(W, 2, 0.5, kind="sin"), sinusoid_gradients(W, 2, 0.5, kind="sin")))
    True
    """
    kind = _check_kind(kind)
    W = _draws2d(W)
    D, n = W.shape
    _check_nk(n, k)
    if n > COUNTS_MAX_N:
        raise InputError(f"brute force over the cube needs n <= {COUNTS_MAX_N}, got n = {n}", param="W")
    c, b = check_real(c, "c"), check_real(b, "b")
    _check_transforms(D, n, "W", D, "use fewer draws, or sinusoid_gradients (the closed form)")
    check_allocation(array_bytes(4 * D, 1 << n), "W", D, f"the values ({format_count(D)}, 2^{n}) in float64")
    with np.errstate(over="ignore", invalid="ignore"):
        Z = c * linear_forms(W) + b
    if not np.isfinite(Z).all():
        raise InputError(f"c w.x + b overflows float64 (c = {c:.3g}, b = {b:.3g})", param="c")
    V = np.cos(Z) if kind == "cos" else np.sin(Z)
    Hh = fwht_batched(V) / V.shape[-1]
    return Hh[:, _bits_table(n, [k])[k]]


@fill_doc(_DOC)
def sinusoid_gaps(
    n: int, ks: Sequence[int], dist: str, draws: int, seed: int, *, c: float | None = None, kind: str = "cos"
) -> tuple[np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]]]:
    """Fig. B.8 left: weights (D, n) and, per k, (Γ_max, Γ_min) of the closed-form gradients; c = 1/√n default.

    Parameters
    ----------
    {{sweep}}
    c : float, optional
        Frequency; None = ``1/sqrt(n)``.
    kind : str
        ``"cos"`` or ``"sin"``.

    Returns
    -------
    W : np.ndarray, shape (D, n)
    gaps : dict of int to (np.ndarray, np.ndarray)
        ``(gamma_max, gamma_min)``, each of shape (D,), for each k.

    Examples
    --------
    >>> W, out = sinusoid_gaps(5, [1, 3], "uniform", 100, seed=0)
    >>> W.shape, sorted(out), out[3][1].shape
    ((100, 5), [1, 3], (100,))
    >>> bool((out[1][1] > 0).all())
    True
    """
    seed = limits.check_seed(seed)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"n must be an integer >= 2, got {n!r:.80}", param="n")
    n = int(n)
    ks = _check_ks(ks, n)
    kind = _check_kind(kind)
    c = 1.0 / math.sqrt(n) if c is None else check_real(c, "c")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise InputError(f"draws must be an integer >= 1, got {draws!r:.80}", param="draws")
    check_allocation(
        array_bytes(3 * int(draws) + 1, n, n),
        "draws",
        draws,
        f"the factors ({format_count(draws)}, {n}, {n}) of the closed form in float64",
    )
    W = random_weights(dist, draws, n, np.random.default_rng(seed))
    return W, {k: gaps(sinusoid_gradients(W, k, c, kind=kind), k) for k in ks}
