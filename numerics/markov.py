r"""Sampling Markov chains and the in-context strategies of Edelman thesis Ch. 8 (float64 numpy, ``docs/markov.md``).

The in-context learning task of Sec. 8.1 / App. E: every sequence draws its own transition matrix P from a prior
(Dirichlet(1) rows by default), its first token from the stationary law :math:`\pi(P)` and then
:math:`x_{s+1} \sim P_{x_s,:}`. Tokens are 0-based ints in ``range(k)``; a batch of ``n`` sequences of length
``t`` is an int64 array ``(n, t)``; position p (0-based index ``p - 1``) is the prediction of :math:`x_{p+1}`
from :math:`x_1, \dots, x_p`.

Strategies (Sec. 8.2, Eqs. (8.1)-(8.3) with the denominator corrected in ``docs/markov.md``), at position p:

* uniform: :math:`q_j = 1/k`;
* unigram: :math:`q_j = (n_j + \alpha)/(p + k\alpha)`, :math:`n_j = \#\{s \le p: x_s = j\}`;
* bigram (the statistical induction head): :math:`q_j = (c_{x_p j} + \alpha)/(N_{x_p} + k\alpha)`,
  :math:`c_{ij} = \#\{s < p: x_s = i, x_{s+1} = j\}`, :math:`N_i = \sum_j c_{ij}`;
* trigram (Sec. 8.3.3): the same with the context :math:`(x_{p-1}, x_p)`.

The test metric of the thesis is :math:`\mathrm{KL}(P_{x_t,:} \,\|\, q)` at the last token (App. E.2);
:func:`mc_strategy_kl` estimates it by Monte Carlo with a standard error.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from theory._checks import InputError, LimitError, format_count
from theory._docstrings import fill_doc

from . import limits
from .limits import STEP_COST, array_bytes, check_allocation, check_count, check_real, check_real_array, check_work

__all__ = [
    "PRIORS",
    "STRATEGIES",
    "bigram_construction",
    "induction_targets",
    "kl",
    "lift_ngram",
    "mc_counts_bayes_kl",
    "mc_strategy_kl",
    "sample_ngram_sequences",
    "sample_ngram_tables",
    "sample_sequences",
    "sample_transition_matrices",
    "stationary",
    "strategy_probs",
    "transition_counts",
    "true_next",
    "true_next_ngram",
    "unigram_construction",
]

PRIORS = ("dirichlet", "doubly_stochastic", "unigrams", "mixture", "symmetric")
STRATEGIES = ("uniform", "unigram", "bigram", "trigram")
_STOCHASTIC_ATOL = 1e-9
_REJECTION_MAX_K = 5  # doubly stochastic: exact rejection sampling for k <= 5, Sinkhorn above (as the thesis code)

#: Parameters and Returns sections shared by several docstrings of this module and of
#: :mod:`numerics.markov_gradients` (filled in by :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "rng": """rng : numpy.random.Generator
    Source of the draws (required).""",
    "returns_tokens": """Returns
-------
int64 array (n, t)
    Tokens in ``range(k)``.""",
    "seqs": """seqs : int array (n, t)
    Sequences of tokens in ``range(k)``.
k : int
    Number of states, >= 2.""",
    "parameters_kt": """Parameters
----------
k : int
    Number of states, >= 2.
t : int
    Context length, >= 2.""",
    "chains": """P : float array (n, k, k)
    The sequences' transition matrices.
seqs : int array (n, t)
    The sequences.""",
}


def _check_k(k: int) -> int:
    return check_count(k, "k", minimum=2, message=f"the number of states k must be an integer >= 2, got {k!r:.80}")


def _check_t(t: int) -> int:
    return check_count(t, "t", minimum=2, message=f"the sequence length t must be an integer >= 2, got {t!r:.80}")


def _check_n(n: int, minimum: int = 1, why: str = "") -> int:
    return check_count(
        n,
        "n",
        minimum=minimum,
        message=f"the number of sequences n must be an integer >= {minimum}{why}, got {n!r:.80}",
    )


def _check_rng(rng: np.random.Generator | None) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
    return rng


def _check_prior(prior: object) -> str:
    if not isinstance(prior, str) or prior not in PRIORS:
        raise InputError(f"unknown prior {prior!r:.80}; expected one of {PRIORS}", param="prior")
    return prior


def _check_strategy(strategy: object) -> str:
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        raise InputError(f"unknown strategy {strategy!r:.80}; expected one of {STRATEGIES}", param="strategy")
    return strategy


#: Candidates drawn per accepted matrix by the rejection sampler of doubly stochastic matrices (the inverse of the
#: share of [0, 1]^((k-1)^2) whose completion is non-negative: 1, 1/8, 8.8e-4, 3e-7 for k = 2..5, measured).
_REJECTION_DRAWS = {2: 1, 3: 8, 4: 1200, 5: 4_000_000}


def _matrix_work(k: int, prior: str) -> int:
    """Entries drawn or updated per transition matrix: k^2 for Dirichlet rows; for a doubly stochastic matrix k^2
    times the candidates of the rejection sampler (k <= 5) or times 1000 Sinkhorn sweeps (k > 5)."""
    if prior in ("doubly_stochastic", "mixture"):
        return k * k * (_REJECTION_DRAWS[k] if k <= _REJECTION_MAX_K else 1000)
    return k * k


def _check_matrices(k: int, n: int, prior: str) -> None:
    per = _matrix_work(k, prior)
    check_work(per, param="k", value=k, what=f"one {prior} transition matrix (k^2 entries)", hint="use a smaller k")
    check_allocation(3 * array_bytes(k, k), param="k", value=k, what="one transition matrix (k, k)")
    check_work(
        n * per, param="n", value=n, what=f"the draws of n {prior} transition matrices", hint="use fewer matrices"
    )
    check_allocation(
        3 * array_bytes(n, k, k), param="n", value=n, what=f"n transition matrices (n, k = {k}, k)", hint="use fewer"
    )


def _check_sequence_sizes(n: int, t: int, k: int, what: str = "the chains") -> None:
    """Sampling n chains of t tokens over k states: t Python steps over (n, k) arrays."""
    check_work(
        t * (k + STEP_COST),
        param="t",
        value=t,
        what="one chain of t tokens (t steps)",
        hint="use a shorter context",
    )
    check_allocation(array_bytes(n, t) + 4 * array_bytes(n, k), param="t", value=t, what=f"{what} (n, t) in int64")
    check_work(
        n * t * k + t * STEP_COST,
        param="t",
        value=t,
        what=f"{what} (n = {format_count(n)} chains x t tokens x k = {k} states)",
        hint="use a shorter context or fewer chains",
    )


def _check_stochastic(P: np.ndarray) -> np.ndarray:
    """``P`` as float64 ``(n, k, k)`` with non-negative rows summing to 1 (within float64 rounding, or a float32
    array's: :func:`numerics.limits.rounding_atol`); ValueError otherwise."""
    raw = P
    P = check_real_array(P, "P", finite=False)
    if P.ndim == 2:
        P = P[None]
    if P.ndim != 3 or P.shape[1] != P.shape[2] or P.shape[0] == 0:
        raise InputError(f"transition matrices must have shape (n, k, k), got {P.shape}", param="P")
    if P.shape[1] < 2:
        raise InputError(f"transition matrices need k >= 2 states, got shape {P.shape}", param="P")
    if not np.all(np.isfinite(P)) or P.min() < -_STOCHASTIC_ATOL:
        raise InputError("transition matrices must be finite with non-negative entries", param="P")
    err = np.abs(P.sum(axis=-1) - 1.0).max()
    if err > limits.rounding_atol(raw, 1e-8, terms=P.shape[-1]):
        raise InputError(
            f"transition matrices must be row-stochastic (rows sum to 1); max |row sum - 1| = {err:.3g}", param="P"
        )
    return np.clip(P, 0.0, None)


def _check_seqs(seqs: np.ndarray, k: int) -> np.ndarray:
    x = np.asarray(seqs)
    if x.ndim != 2 or not np.issubdtype(x.dtype, np.integer):
        raise InputError(f"sequences must be an integer array of shape (n, t), got {x.dtype} {x.shape}", param="seqs")
    if x.shape[1] < 2:
        raise InputError(f"the sequence length t must be an integer >= 2, got {x.shape[1]}", param="seqs")
    if x.size and (x.min() < 0 or x.max() >= k):
        raise InputError(f"tokens must lie in range(k = {k}), got values in [{x.min()}, {x.max()}]", param="seqs")
    return x.astype(np.int64, copy=False)


# --- Sec. 8.1 and Fig. 8.4a: the priors over transition matrices


def _doubly_stochastic(k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    r"""Uniform samples of the Birkhoff polytope for k <= 5, Sinkhorn-normalised Dir(1) rows above.

    The polytope is the image of its top-left (k-1) x (k-1) block under an affine bijection (the last row and column
    are fixed by the row and column sums), so a uniform block on :math:`[0,1]^{(k-1)^2}` kept when the completed
    matrix is non-negative is uniform on the polytope (:func:`_birkhoff_rejection`).
    """
    if k > _REJECTION_MAX_K:
        M = rng.dirichlet(np.ones(k), size=(n, k))
        for _ in range(1000):
            M = M / M.sum(axis=1, keepdims=True)
            M = M / M.sum(axis=2, keepdims=True)
        return M
    # the same matrices either way; replaying pays where rounds are many (k = 4: ~1 candidate in 1,080 is kept)
    return _birkhoff_rounds(k, n, rng) if k <= 3 else _birkhoff_rejection(k, n, rng)


def _completed(B: np.ndarray) -> np.ndarray:
    """The k x k matrices with top-left blocks ``B`` (m, k-1, k-1) and unit row and column sums."""
    last_col = 1.0 - B.sum(axis=2)  # (m, k-1)
    top = np.concatenate([B, last_col[:, :, None]], axis=2)  # (m, k-1, k)
    last_row = 1.0 - top.sum(axis=1)  # (m, k)
    return np.concatenate([top, last_row[:, None, :]], axis=1)


def _completes(B: np.ndarray) -> np.ndarray:
    """Whether each block of ``B`` (m, k-1, k-1), entries in [0, 1), has a non-negative :func:`_completed` matrix:
    its last column and row, summed slice by slice in the order ``np.sum`` adds an axis of fewer than 8 entries
    (the same bits; a reduction over a short axis of a large array is the slow part of drawing).

    The entries are tested one at a time, each on the blocks that passed the ones before (about 1 in 6 passes the
    first at k = 4, 1 in 1,080 all of them): the same sums and comparisons as testing every block, on fewer blocks.
    """
    r = B.shape[1]
    keep = np.arange(len(B))
    last: list[np.ndarray] = []  # the last column's entries 1 - sum_j B[i, j] of the kept blocks, i = 0, 1, ...
    for i in range(r):
        s = B[:, i, 0] if i == 0 else B[keep, i, 0]  # the first test reads every block: a view, no copy
        for j in range(1, r):
            s = s + (B[:, i, j] if i == 0 else B[keep, i, j])
        entry = 1.0 - s
        ok = entry >= 0
        keep, last = keep[ok], [c[ok] for c in [*last, entry]]
    for j in range(r):  # the last row's entries 1 - sum_i B[i, j]
        s = B[keep, 0, j]
        for i in range(1, r):
            s = s + B[keep, i, j]
        ok = 1.0 - s >= 0
        keep, last = keep[ok], [c[ok] for c in last]
    corner = last[0].copy()  # the corner 1 - sum_i (last column)_i
    for c in last[1:]:
        corner += c
    out = np.zeros(len(B), dtype=bool)
    out[keep[1.0 - corner >= 0]] = True
    return out


def _birkhoff_rounds(k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`_birkhoff_rejection` one draw a round, as first written: the specification the replay is tested
    against, and the faster way for k <= 3, where a round or two fill the batch (``benchmarks/bench_markov_priors.py``)."""
    out, filled = np.empty((n, k, k)), 0
    while filled < n:
        M = _completed(rng.random((max(64, 4 * (n - filled)), k - 1, k - 1)))
        take = M[M.min(axis=(1, 2)) >= 0][: n - filled]
        out[filled : filled + len(take)] = take
        filled += len(take)
    return out


def _birkhoff_rejection(k: int, n: int, rng: np.random.Generator, block: int = 1 << 14) -> np.ndarray:
    """``n`` uniform doubly stochastic k x k matrices by rejection, as rounds of ``m = max(64, 4 (n - filled))``
    candidate blocks ``rng.random((m, k-1, k-1))`` of which the first non-negative completions are kept, in order.

    The rounds are replayed on candidates drawn in growing blocks (a round's worth, then as many as drawn so far, at
    most ``block``; the stream of doubles is the same however it is cut), then ``rng`` is set to where the rounds end: the matrices and the generator's state equal those of drawing
    round by round, bit for bit (tests/numerics/test_markov.py). Only the kept candidates are completed
    (:func:`_completes` tests the others), and a run of rounds whose candidates are all drawn and none kept is
    stepped over at once (no round in it draws, and ``m`` stays). At k = 4 about 1 in 1,080 is kept, some 70,000
    candidates for 64 matrices, 2.4 times faster replayed than round by round, 4.5 times with both (docs/benchmarks.md,
    ``benchmarks/bench_markov_priors.py``); it was half of Fig. 8.4a's training step.
    """
    d = (k - 1) ** 2
    start = dict(copy.deepcopy(rng.bit_generator.state))
    positions = np.empty(0, dtype=np.int64)  # stream positions (candidates) of the kept ones, ascending
    matrices = np.empty((0, k, k))
    drawn, pos, filled = 0, 0, 0
    out = np.empty((n, k, k))
    while filled < n:
        m = max(64, 4 * (n - filled))
        lo = int(np.searchsorted(positions, pos))
        empty = (int(positions[lo]) if lo < len(positions) else drawn) - pos  # drawn candidates before the next kept
        if empty >= m:  # whole rounds that keep nothing (filled, so m, stays): stepped over at once, not one by one
            pos += empty // m * m
            continue
        while drawn < pos + m:
            size = max(pos + m - drawn, min(block, drawn))  # a round's worth first, then doubling
            B = rng.random((size, k - 1, k - 1))
            ok = np.flatnonzero(_completes(B))
            positions = np.concatenate([positions, drawn + ok])
            matrices = np.concatenate([matrices, _completed(B[ok])])
            drawn += size
        lo, hi = np.searchsorted(positions, [pos, pos + m])
        take = min(int(hi - lo), n - filled)
        out[filled : filled + take] = matrices[lo : lo + take]
        filled += take
        pos += m
    _rewind(rng, start, pos * d)
    return out


def _rewind(rng: np.random.Generator, start: dict[str, Any], doubles: int) -> None:
    """Set ``rng`` to its state ``start`` advanced by ``doubles`` float64 draws (one 64-bit output each): by PCG64's
    ``advance`` (one step, one output; its buffered 32-bit half kept as it was), else by drawing them again (Philox's
    ``advance`` counts blocks of four outputs)."""
    bg = rng.bit_generator
    bg.state = start
    if isinstance(bg, np.random.PCG64 | np.random.PCG64DXSM):
        bg.advance(doubles)
        state: dict[str, Any] = dict(bg.state)
        state.update({key: start[key] for key in ("has_uint32", "uinteger") if key in start})
        bg.state = state  # type: ignore[assignment]  # numpy types it _PCG64State, a TypedDict of this dict
        return
    for a in range(0, doubles, 1 << 20):
        rng.random(min(1 << 20, doubles - a))


@fill_doc(_DOC)
def sample_transition_matrices(
    k: int, n: int, prior: str = "dirichlet", rng: np.random.Generator | None = None
) -> np.ndarray:
    r"""``n`` transition matrices ``(n, k, k)`` drawn from ``prior`` (Sec. 8.1, Fig. 8.4a, Cor. E.2).

    Priors: ``"dirichlet"`` (rows iid Dir(1), the main task), ``"doubly_stochastic"`` (uniform on doubly
    stochastic matrices, so :math:`\pi` is uniform), ``"unigrams"`` (every row is the same Dir(1) draw: iid tokens),
    ``"mixture"`` (each matrix from one of the last two with probability 1/2), ``"symmetric"`` (k = 2,
    :math:`P = [[a, 1-a], [1-a, a]]`, :math:`a \sim U(0,1)`, the a = b case of Cor. E.2).

    Parameters
    ----------
    k : int
        Number of states, >= 2.
    n : int
        Number of matrices, >= 1.
    prior : str
        One of :data:`PRIORS`.
    {{rng}}

    Returns
    -------
    float64 array (n, k, k)
        Row-stochastic matrices.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> P = sample_transition_matrices(3, 4, rng=rng)
    >>> P.shape, bool(np.allclose(P.sum(axis=-1), 1))
    ((4, 3, 3), True)
    >>> D = sample_transition_matrices(3, 4, "doubly_stochastic", rng=rng)
    >>> bool(np.allclose(D.sum(axis=1), 1)), bool(np.allclose(stationary(D), 1 / 3))  # pi is uniform
    (True, True)
    >>> sample_transition_matrices(3, 1, "symmetric", rng=rng)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the symmetric prior (a = b, Cor. E.2) is defined for k = 2 only, got k = 3
    """
    k, n, rng = _check_k(k), _check_n(n), _check_rng(rng)
    prior = _check_prior(prior)
    if prior == "symmetric" and k != 2:
        raise InputError(f"the symmetric prior (a = b, Cor. E.2) is defined for k = 2 only, got k = {k}", param="k")
    _check_matrices(k, n, prior)
    if prior == "dirichlet":
        return rng.dirichlet(np.ones(k), size=(n, k))
    if prior == "doubly_stochastic":
        return _doubly_stochastic(k, n, rng)
    if prior == "unigrams":
        return np.repeat(rng.dirichlet(np.ones(k), size=n)[:, None, :], k, axis=1)
    if prior == "mixture":
        ds = _doubly_stochastic(k, n, rng)
        ug = np.repeat(rng.dirichlet(np.ones(k), size=n)[:, None, :], k, axis=1)
        return np.where((rng.random(n) < 0.5)[:, None, None], ds, ug)
    if prior == "symmetric":
        if k != 2:
            raise ValueError(f"the symmetric prior (a = b, Cor. E.2) is defined for k = 2 only, got k = {k}")
        a = rng.random(n)
        return np.stack([np.stack([a, 1 - a], -1), np.stack([1 - a, a], -1)], axis=1)
    raise ValueError(f"unknown prior {prior!r}; expected one of {PRIORS}")


def stationary(P: np.ndarray) -> np.ndarray:
    r"""Stationary laws :math:`\pi` with :math:`\pi P = \pi`, :math:`\sum_j \pi_j = 1`; ``(n, k)`` for P ``(n, k, k)``.

    Solves :math:`\pi [P - I \,|\, \mathbf{1}]_{\text{last column replaced}} = e_k` batched; a chain without a unique
    stationary law (reducible, probability 0 under the priors) raises ValueError.

    Parameters
    ----------
    P : float array (n, k, k) or (k, k)
        Row-stochastic matrices.

    Returns
    -------
    float64 array (n, k)
        The stationary laws (n = 1 for a single matrix).

    Examples
    --------
    For k = 2, :math:`\pi = (1-b, 1-a)/(2-a-b)` (``theory.markov.stationary_law``):

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from theory import markov as tmk
    >>> stationary(np.array([[0.9, 0.1], [0.5, 0.5]])).round(12).tolist()
    [[0.833333333333, 0.166666666667]]
    >>> tmk.stationary_law(Fraction(9, 10), Fraction(1, 2))
    Matrix([[5/6, 1/6]])
    >>> stationary(np.eye(2))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: a transition matrix has no unique stationary distribution (reducible chain)
    """
    P = _check_stochastic(P)
    A = P - np.eye(P.shape[1])
    A[:, :, -1] = 1.0
    rhs = np.zeros(P.shape[:2])
    rhs[:, -1] = 1.0
    with np.errstate(all="ignore"):
        cond = np.linalg.cond(A)
    if np.any(~np.isfinite(cond)) or np.any(cond > 1e12):
        raise InputError("a transition matrix has no unique stationary distribution (reducible chain)", param="P")
    pi = np.linalg.solve(np.swapaxes(A, 1, 2), rhs[..., None])[..., 0]
    return np.clip(pi, 0.0, None) / np.clip(pi, 0.0, None).sum(axis=1, keepdims=True)


def _draw(cdf_rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-cdf draws: ``cdf_rows`` ``(n, k)`` cumulative, ``u`` ``(n,)`` uniform -> ``(n,)`` tokens."""
    return np.minimum((u[:, None] >= cdf_rows).sum(axis=1), cdf_rows.shape[1] - 1)


@fill_doc(_DOC)
def sample_sequences(P: np.ndarray, t: int, rng: np.random.Generator | None = None) -> np.ndarray:
    r"""One chain of length ``t`` per matrix: ``(n, t)`` int64, :math:`x_1 \sim \pi(P)`, :math:`x_{s+1} \sim P_{x_s,:}`.

    Parameters
    ----------
    P : float array (n, k, k) or (k, k)
        Row-stochastic matrices, one per chain.
    t : int
        Length of the chains, >= 2.
    {{rng}}

    {{returns_tokens}}

    Examples
    --------
    >>> import numpy as np
    >>> x = sample_sequences(np.array([[0.0, 1.0], [1.0, 0.0]]), 6, np.random.default_rng(0))
    >>> x.shape, bool(np.all(x[:, 1:] != x[:, :-1]))  # this chain always switches
    ((1, 6), True)
    >>> sample_sequences(np.array([[0.5, 0.6], [0.5, 0.5]]), 6, np.random.default_rng(0))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: transition matrices must be row-stochastic (rows sum to 1); max |row sum - 1| = 0.1
    """
    P, t, rng = _check_stochastic(P), _check_t(t), _check_rng(rng)
    n = int(P.shape[0])
    _check_sequence_sizes(n, t, P.shape[1])
    cdf = np.cumsum(P, axis=-1)
    x = np.empty((n, t), dtype=np.int64)
    x[:, 0] = _draw(np.cumsum(stationary(P), axis=-1), rng.random(n))
    rows = np.arange(n)
    for s in range(1, t):
        x[:, s] = _draw(cdf[rows, x[:, s - 1]], rng.random(n))
    return x


# --- Sec. 8.2: counts and strategies


@fill_doc(_DOC)
def transition_counts(seqs: np.ndarray, k: int) -> np.ndarray:
    r"""Bigram counts seen up to every position: ``C[n, p-1, i, j] = #{s < p: x_s = i, x_{s+1} = j}``, ``(n, t, k, k)``.

    Memory is ``n t k^2`` floats; :func:`strategy_probs` uses a running count instead.

    Parameters
    ----------
    {{seqs}}

    Returns
    -------
    float64 array (n, t, k, k)
        The running bigram counts.

    Examples
    --------
    >>> import numpy as np
    >>> C = transition_counts(np.array([[0, 1, 0, 0, 1, 1]]), 2)
    >>> C.shape, C[0, -1].tolist()  # 0->0 once, 0->1 twice, 1->0 once, 1->1 once
    ((1, 6, 2, 2), [[1.0, 2.0], [1.0, 1.0]])
    """
    k = _check_k(k)
    x = _check_seqs(seqs, k)
    n, t = x.shape
    check_allocation(
        2 * array_bytes(n, t, k, k), param="k", value=k, what=f"the running counts (n, t, k, k) = {(n, t, k, k)}"
    )
    onehot = np.zeros((n, t, k, k))
    onehot[np.arange(n)[:, None], np.arange(1, t)[None, :], x[:, :-1], x[:, 1:]] = 1.0
    return np.cumsum(onehot, axis=1)


@fill_doc(_DOC)
def strategy_probs(seqs: np.ndarray, k: int, strategy: str, alpha: float = 1.0) -> np.ndarray:
    r"""Next-token laws ``(n, t, k)`` predicted at every position by ``strategy`` (module docstring, Sec. 8.2).

    ``alpha`` is the flat Dirichlet pseudo-count (:math:`\alpha = 1`: the posterior mean under Dir(1) rows,
    Eq. (8.3) corrected). The trigram strategy at p = 1 (no two-token context yet) falls back to the bigram one.

    Parameters
    ----------
    {{seqs}}
    strategy : str
        One of :data:`STRATEGIES`.
    alpha : float
        Positive pseudo-count.

    Returns
    -------
    float64 array (n, t, k)
        The predicted law at every position.

    Examples
    --------
    At the last position, the same laws as the exact ``theory.markov.strategy_probs``:

    >>> import numpy as np
    >>> from theory import markov as tmk
    >>> seq = [0, 0, 1, 0, 2, 0, 0, 1, 2, 0]
    >>> for s in ("unigram", "bigram", "trigram"):
    ...     q = strategy_probs(np.array([seq]), 3, s)[0, -1]
    ...     exact = tmk.strategy_probs(seq, 3, "ngram" if s == "trigram" else s, 3)
    ...     print(s, [str(v) for v in exact], bool(np.allclose(q, [float(v) for v in exact])))
    unigram ['7/13', '3/13', '3/13'] True
    bigram ['3/8', '3/8', '1/4'] True
    trigram ['1/2', '1/4', '1/4'] True
    """
    k = _check_k(k)
    x = _check_seqs(seqs, k)
    strategy = _check_strategy(strategy)
    given = alpha
    alpha = check_real(alpha, "alpha", positive=True, what="a pseudo-count, a finite real number")
    if not alpha < 2**1000:
        raise InputError(f"alpha must be a pseudo-count below 2^1000, got alpha = {format_count(given)}", param="alpha")
    n, t = x.shape
    n_running = {"uniform": 0, "unigram": k, "bigram": k * k, "trigram": k * k * k}[strategy]
    check_allocation(
        3 * array_bytes(n, t, k) + 2 * array_bytes(n, max(n_running, 1)),
        param="k",
        value=k,
        what=f"the {strategy} laws (n, t, k) = {(n, t, k)} and running counts",
    )
    check_work(
        n * t * k + n * n_running + t * STEP_COST,
        param="k",
        value=k,
        what=f"the {strategy} laws of n = {n} sequences of t = {t} tokens",
        hint="use fewer or shorter sequences",
    )
    if strategy == "uniform":
        return np.full((n, t, k), 1.0 / k)
    if strategy == "unigram":
        counts = np.cumsum(np.eye(k)[x], axis=1)  # n_j up to p
        return (counts + alpha) / (np.arange(1, t + 1)[None, :, None] + k * alpha)
    if strategy == "bigram":
        rows = np.arange(n)
        running = np.zeros((n, k, k))
        out = np.empty((n, t, k))
        for p in range(t):
            if p > 0:
                running[rows, x[:, p - 1], x[:, p]] += 1.0
            c = running[rows, x[:, p]]
            out[:, p] = (c + alpha) / (c.sum(axis=1, keepdims=True) + k * alpha)
        return out
    if strategy == "trigram":
        rows = np.arange(n)
        running = np.zeros((n, k, k, k))
        out = strategy_probs(x, k, "bigram", alpha)  # p = 1 fallback
        for p in range(1, t):
            if p > 1:
                running[rows, x[:, p - 2], x[:, p - 1], x[:, p]] += 1.0
            c = running[rows, x[:, p - 1], x[:, p]]
            out[:, p] = (c + alpha) / (c.sum(axis=1, keepdims=True) + k * alpha)
        return out
    raise ValueError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES}")


@fill_doc(_DOC)
def true_next(P: np.ndarray, seqs: np.ndarray) -> np.ndarray:
    r"""The true next-token law :math:`P_{x_p,:}` at every position, ``(n, t, k)``.

    Parameters
    ----------
    {{chains}}

    Returns
    -------
    float64 array (n, t, k)
        Row :math:`x_p` of the sequence's matrix at every position p.

    Examples
    --------
    >>> import numpy as np
    >>> true_next(np.array([[0.9, 0.1], [0.5, 0.5]]), np.array([[0, 1, 0]])).tolist()
    [[[0.9, 0.1], [0.5, 0.5], [0.9, 0.1]]]
    """
    P = _check_stochastic(P)
    x = _check_seqs(seqs, P.shape[1])
    if x.shape[0] != P.shape[0]:
        raise InputError(f"need one matrix per sequence: {P.shape[0]} matrices, {x.shape[0]} sequences", param="seqs")
    check_allocation(array_bytes(*x.shape, P.shape[1]), param="seqs", value=x.shape, what="the laws (n, t, k)")
    return P[np.arange(P.shape[0])[:, None], x]


def kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    r""":math:`\mathrm{KL}(p \| q) = \sum_j p_j \ln(p_j / q_j)` over the last axis (natural log, :math:`0 \ln 0 = 0`).

    Parameters
    ----------
    p, q : float arrays (..., k)
        Laws over the last axis, of the same shape.

    Returns
    -------
    float64 array (...)
        The divergences in nats.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(kl(np.array([1.0, 0.0]), np.array([0.5, 0.5]))), 12) == round(float(np.log(2)), 12)
    True
    >>> kl(np.array([[0.5, 0.5], [0.2, 0.8]]), np.array([[0.5, 0.5], [0.2, 0.8]])).tolist()
    [0.0, 0.0]
    """
    p_raw, q_raw = p, q
    p, q = check_real_array(p, "p", finite=False), check_real_array(q, "q", finite=False)
    if p.shape != q.shape or p.ndim < 1:
        raise InputError(f"p and q must have the same shape (..., k), got {p.shape} and {q.shape}", param="q")
    for name, a, raw in (("p", p, p_raw), ("q", q, q_raw)):
        if not np.isfinite(a).all() or (a.size and a.min() < 0):
            raise InputError(f"{name} must hold finite non-negative probabilities", param=name)
        err = float(np.abs(a.sum(axis=-1) - 1.0).max()) if a.size else 0.0
        if err > limits.rounding_atol(raw, 1e-6, terms=a.shape[-1]):  # kl([1, 1], [1, 3]) was -1.1 nats
            raise InputError(
                f"{name} must hold laws (summing to 1 over the last axis); max |sum - 1| = {err:.3g}", param=name
            )
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)
    return terms.sum(axis=-1)


# --- Sec. 8.3.3: n-gram chains (the trigram task of Fig. 8.5)


@fill_doc(_DOC)
def sample_ngram_tables(k: int, order: int, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
    r"""Next-token tables ``(n, k^{order-1}, k)``: for each (order-1)-token context (base-k index, oldest token
    most significant) an iid Dir(1) law (Sec. 8.3.3).

    Parameters
    ----------
    k : int
        Number of states, >= 2.
    order : int
        The n of the n-gram, >= 2 (3: trigram).
    n : int
        Number of tables, >= 1.
    {{rng}}

    Returns
    -------
    float64 array (n, k^(order-1), k)
        One next-token law per context.

    Examples
    --------
    >>> import numpy as np
    >>> T = sample_ngram_tables(2, 3, 5, np.random.default_rng(0))
    >>> T.shape, bool(np.allclose(T.sum(axis=-1), 1))
    ((5, 4, 2), True)
    """
    k, n, rng = _check_k(k), _check_n(n), _check_rng(rng)
    order = check_count(
        order, "order", minimum=2, message=f"the n-gram order must be an integer >= 2, got {order!r:.80}"
    )
    _check_contexts(k, order)
    contexts = k ** (order - 1)
    check_allocation(
        2 * array_bytes(n, contexts, k), param="n", value=n, what=f"n tables (n, k^(order-1) = {contexts}, k)"
    )
    check_work(n * contexts * k, param="n", value=n, what="the Dirichlet draws of n tables", hint="use fewer tables")
    return rng.dirichlet(np.ones(k), size=(n, contexts))


def _check_contexts(k: int, order: int, param: str = "order") -> None:
    """k^(order-1) contexts of k^(order-1) entries each in the lifted chain, checked in log space."""
    if order > 63 or (order - 1) * math.log2(k) > 62:
        raise LimitError(
            f"{param} = {format_count(order)} is too large: the n-gram has k^(order-1) contexts, above 2^62 at k = {k}",
            param=param,
            value=order,
            limit=62,
        )
    contexts = k ** (order - 1)
    check_allocation(
        4 * array_bytes(contexts, contexts),
        param=param,
        value=order,
        what=f"the lifted chain on the k^(order-1) = {format_count(contexts)} contexts (k^(order-1))^2 per table",
        hint="use a smaller order or k",
    )


def lift_ngram(T: np.ndarray, k: int) -> np.ndarray:
    r"""The chain on (order-1)-tuples: :math:`(y_1..y_{m}) \to (y_2..y_m, j)` with probability ``T[ctx, j]``;
    ``(n, k^m, k^m)``, m = order - 1.

    Parameters
    ----------
    T : float array (n, k^m, k)
        Next-token tables (:func:`sample_ngram_tables`).
    k : int
        Number of states.

    Returns
    -------
    float64 array (n, k^m, k^m)
        The lifted transition matrices (row-stochastic).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[[0.4, 0.6], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]])
    >>> lift_ngram(T, 2)[0].tolist()  # context (y1, y2) = 2 y1 + y2 moves to (y2, j)
    [[0.4, 0.6, 0.0, 0.0], [0.0, 0.0, 0.9, 0.1], [0.2, 0.8, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]]
    """
    T = _check_tables(T)
    n, C, kk = T.shape
    k = _check_k(k)
    if k != kk:
        raise InputError(f"k = {k} does not match the tables' last axis ({kk} states)", param="k")
    check_allocation(array_bytes(n, C, C), param="T", value=T.shape, what=f"the lifted matrices (n, C, C), C = {C}")
    check_work(n * C * C + C * STEP_COST, param="T", value=T.shape, what="the lifted matrices (n, C, C)")
    L = np.zeros((n, C, C))
    for c in range(C):
        L[:, c, (c * k) % C + np.arange(k)] = T[:, c, :]
    return L


@fill_doc(_DOC)
def sample_ngram_sequences(T: np.ndarray, t: int, rng: np.random.Generator | None = None) -> np.ndarray:
    r"""n-gram chains ``(n, t)``: the first order-1 tokens from the stationary law of the lifted chain
    (:func:`lift_ngram`), then :math:`x_{s+1} \sim T[(x_{s-m+1}..x_s), :]`.

    Parameters
    ----------
    T : float array (n, k^m, k)
        Next-token tables, one per chain.
    t : int
        Length of the chains, > m.
    {{rng}}

    {{returns_tokens}}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = sample_ngram_sequences(sample_ngram_tables(3, 3, 4, rng), 12, rng)
    >>> x.shape, x.dtype, bool(x.min() >= 0 and x.max() <= 2)
    ((4, 12), dtype('int64'), True)
    >>> sample_ngram_sequences(np.full((1, 4, 2), 0.5), 2, rng)  # t must exceed the context length m = 2
    Traceback (most recent call last):
    ...
    theory._checks.InputError: tables must have shape (n, k^m, k) with t > m; got (1, 4, 2), t = 2
    """
    T = _check_tables(T)
    t, rng = _check_t(t), _check_rng(rng)
    n, C, k = (int(s) for s in T.shape)
    m = round(np.log(C) / np.log(k))
    if k**m != C or m < 1 or t <= m:
        raise InputError(f"tables must have shape (n, k^m, k) with t > m; got {T.shape}, t = {t}", param="T")
    _check_sequence_sizes(n, t, k)
    pi = stationary(lift_ngram(T, k))
    ctx = _draw(np.cumsum(pi, axis=-1), rng.random(n))
    x = np.empty((n, t), dtype=np.int64)
    for i in range(m):
        x[:, i] = (ctx // k ** (m - 1 - i)) % k
    cdf = np.cumsum(T, axis=-1)
    rows = np.arange(n)
    for s in range(m, t):
        x[:, s] = _draw(cdf[rows, ctx], rng.random(n))
        ctx = (ctx * k) % C + x[:, s]
    return x


def _check_tables(T: object) -> np.ndarray:
    """Next-token tables (n, C, k): finite, non-negative, rows summing to 1, k >= 2, C >= 1."""
    A = check_real_array(T, "T", finite=False)
    if A.ndim != 3 or A.shape[0] < 1 or A.shape[1] < 1 or A.shape[2] < 2:
        raise InputError(f"tables must have shape (n, k^m, k) with k >= 2, got {A.shape}", param="T")
    atol = limits.rounding_atol(T, 1e-8, terms=A.shape[-1])  # a float32 table's rows sum to 1 within its rounding
    if not np.isfinite(A).all() or A.min() < -_STOCHASTIC_ATOL or np.abs(A.sum(axis=-1) - 1.0).max() > atol:
        raise InputError("tables must hold finite next-token laws (non-negative, rows summing to 1)", param="T")
    return A


def true_next_ngram(T: np.ndarray, seqs: np.ndarray) -> np.ndarray:
    """True next-token laws of an n-gram chain at positions p >= order - 1, ``(n, t - m + 1, k)`` (positions m..t).

    Parameters
    ----------
    T : float array (n, k^m, k)
        Next-token tables, one per sequence.
    seqs : int array (n, t)
        The sequences.

    Returns
    -------
    float64 array (n, t - m + 1, k)
        ``T[context]`` for the contexts ending at positions m..t.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[[0.4, 0.6], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]])
    >>> true_next_ngram(T, np.array([[0, 1, 1, 0]])).tolist()  # contexts (0,1), (1,1), (1,0)
    [[[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]]]
    """
    T = _check_tables(T)
    n, C, k = T.shape
    m = round(np.log(C) / np.log(k))
    if k**m != C or m < 1:
        raise InputError(f"tables must have shape (n, k^m, k), got {T.shape}", param="T")
    x = _check_seqs(seqs, k)
    if x.shape[0] != n or x.shape[1] < m:
        raise InputError(f"need one sequence of at least m = {m} tokens per table, got {x.shape}", param="seqs")
    ctx = np.zeros((n, x.shape[1] - m + 1), dtype=np.int64)
    for i in range(m):
        ctx = ctx * k + x[:, i : x.shape[1] - m + 1 + i]
    return T[np.arange(n)[:, None], ctx]


# --- App. E.2: the strategies' test KL at the last token, by Monte Carlo


@fill_doc(_DOC)
def mc_strategy_kl(
    k: int,
    t: int,
    strategy: str,
    n: int,
    rng: np.random.Generator | None = None,
    prior: str = "dirichlet",
    chunk: int = 20_000,
    order: int = 2,
) -> tuple[float, float]:
    r"""Monte-Carlo :math:`E\,\mathrm{KL}(\text{truth} \| q_{\text{strategy}})` at the last of ``t`` context tokens.

    ``order = 2``: Markov chains from ``prior``; ``order = 3``: trigram chains (:func:`sample_ngram_tables`).
    Returns ``(mean, standard error)`` over ``n`` independent chains (one matrix per chain). Refused before any draw
    (LimitError naming ``t`` or ``n``) when the work ``n per_chain + ceil(n / chunk) (12 t + 10) STEP_COST`` exceeds
    :func:`numerics.limits.max_work` (``per_chain = matrix + 3 t k + running counts``; the loops over the tokens count
    12 steps a token): t = 10^6 is refused.

    {{parameters_kt}}
    strategy : str
        One of :data:`STRATEGIES`.
    n : int
        Number of chains, >= 2 (for the standard error).
    {{rng}}
    prior : str
        Prior of the matrices (``order = 2``), one of :data:`PRIORS`.
    chunk : int
        Chains per batch.
    order : int
        2 (Markov chains) or 3 (trigram chains).

    Returns
    -------
    mean, stderr : float
        The Monte-Carlo mean KL (nats) and its standard error.

    Examples
    --------
    The bigram strategy at k = 2, t = 8 against the exact finite sum ``theory.markov.two_state_strategy_kl``:

    >>> import numpy as np
    >>> from theory import markov as tmk
    >>> mean, se = mc_strategy_kl(2, 8, "bigram", 5000, np.random.default_rng(0))
    >>> exact = float(tmk.two_state_strategy_kl(8, "bigram"))
    >>> round(exact, 6), abs(mean - exact) < 4 * se
    (0.07596, True)
    """
    k, t, rng = _check_k(k), _check_t(t), _check_rng(rng)
    n = _check_n(n, 2, " (a standard error needs two chains)")
    strategy, prior = _check_strategy(strategy), _check_prior(prior)
    chunk = check_count(chunk, "chunk", why="chains per batch")
    if isinstance(order, bool) or order not in (2, 3):
        raise InputError(f"order must be 2 (Markov) or 3 (trigram), got {order!r:.80}", param="order")
    if order == 3:
        _check_contexts(k, 3, param="k")
    _check_mc(k, t, n, chunk, strategy, prior if order == 2 else "dirichlet", order)
    vals = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        if order == 2:
            P = sample_transition_matrices(k, m, prior, rng)
            x = sample_sequences(P, t, rng)
            truth = P[np.arange(m), x[:, -1]]
        elif order == 3:
            T = sample_ngram_tables(k, 3, m, rng)
            x = sample_ngram_sequences(T, t, rng)
            truth = true_next_ngram(T, x)[:, -1]
        else:
            raise ValueError(f"order must be 2 (Markov) or 3 (trigram), got {order!r}")
        q = strategy_probs(x, k, strategy)[:, -1]
        vals.append(kl(truth, q))
    v = np.concatenate(vals)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v)))


_TOKEN_STEPS = 12
"""Steps of :data:`numerics.limits.STEP_COST` one token of one batch of the Monte Carlo counts for: the loops over
the tokens cost 20-65 us a token on a loaded 2-core machine (bigram 20, the order-3 trigram at k = 10 65; about 6 us
a step), so that t = 10^6 (about a minute) is refused."""


def _check_mc(k: int, t: int, n: int, chunk: int, strategy: str, prior: str, order: int) -> None:
    """The Monte Carlo of n chains in batches of ``chunk``: per chain a matrix (or the k^2 tables and the
    k^2 x k^2 lifted chain of a trigram), t tokens and the strategy's laws (t x k, plus k^3 running counts for the
    trigram strategy).

    Each batch runs Python loops over the t tokens (the sampler's, the strategy's): a token counts for
    :data:`_TOKEN_STEPS` steps of :data:`numerics.limits.STEP_COST`, so the work is
    ``n per_chain + ceil(n / chunk) (12 t + 10) STEP_COST`` (``per_chain = matrix + 3 t k + running``)."""
    matrix = _matrix_work(k, prior) if order == 2 else k**3 + k**6
    running = k**3 if strategy == "trigram" else k * k
    per_chain = matrix + 3 * t * k + running
    check_work(
        per_chain + _TOKEN_STEPS * t * STEP_COST,
        param="t",
        value=t,
        what=f"one chain (t tokens x k = {k} states, its matrix and laws)",
        hint="use a shorter context",
    )
    m = min(chunk, n)
    check_allocation(
        array_bytes(m, 4 * t * k + 4 * k * k + running + (2 * k**4 if order == 3 else 0)),
        param="chunk",
        value=chunk,
        what=f"a batch of {format_count(m)} chains of t = {t} tokens with their matrices and laws",
        hint="use a smaller chunk",
    )
    steps = -(-n // chunk) * (_TOKEN_STEPS * t + 10)
    check_work(
        n * per_chain + steps * STEP_COST,
        param="n",
        value=n,
        what=f"the Monte Carlo (n chains x {format_count(per_chain)} entries per chain)",
        hint="use fewer chains",
    )


def _counts_key(x: np.ndarray, k: int) -> np.ndarray:
    """One integer per chain for (x_t, n_1, ..., n_{k-1}): the current token and the token counts (n_k is fixed by
    the others), in mixed radix."""
    t = x.shape[1]
    counts = np.stack([(x == j).sum(axis=1) for j in range(k - 1)], axis=1)
    key = x[:, -1].astype(np.int64)
    for j in range(k - 1):
        key = key * (t + 1) + counts[:, j]
    return key


@fill_doc(_DOC)
def mc_counts_bayes_kl(
    k: int, t: int, n: int, rng: np.random.Generator | None = None, prior: str = "dirichlet", chunk: int = 50_000
) -> tuple[float, float]:
    r"""The test KL at the last token of the Bayes predictor that sees only the current token :math:`x_t` and the
    token counts :math:`(n_1, \dots, n_k)` of :math:`x_1..x_t` ("unigram information"), by Monte Carlo.

    The predictor :math:`E[P_{x_t,:} \mid x_t, n]` is the average of the true next-token law over ``n`` training
    chains with the same :math:`(x_t, n)` (shrunk toward the unigram strategy with weight 1, which only matters for
    rare groups); its KL is then averaged over ``n // 2`` fresh chains. Returns ``(mean, standard error)``. The work
    of the ``m = n + max(n // 2, 2)`` chains is checked as in :func:`mc_strategy_kl` (``m per_chain + ceil(m / chunk)
    (12 t + 10) STEP_COST``, LimitError naming ``t`` or ``n``).

    No predictor that is a function of :math:`(x_t, n)` has a lower expected KL (the unigram strategy is one of
    them). The plug-in estimate is slightly *above* the exact floor, by about (number of groups) x (k - 1) / (2 n)
    (k = 2, t = 50, n = 200,000: 102 groups, about 2.6e-4).

    {{parameters_kt}}
    n : int
        Number of training chains, >= 1.
    {{rng}}
    prior : str
        Prior of the matrices, one of :data:`PRIORS`.
    chunk : int
        Chains per batch.

    Returns
    -------
    mean, stderr : float
        The Monte-Carlo mean KL (nats) over the test chains and its standard error.

    Examples
    --------
    Below the unigram strategy's exact KL (``theory.markov.two_state_strategy_kl``), one of the predictors it beats:

    >>> import numpy as np
    >>> from theory import markov as tmk
    >>> mean, se = mc_counts_bayes_kl(2, 8, 5000, np.random.default_rng(0))
    >>> mean + 4 * se < float(tmk.two_state_strategy_kl(8, "unigram"))
    True
    """
    k, t, n, rng = _check_k(k), _check_t(t), _check_n(n), _check_rng(rng)
    prior = _check_prior(prior)
    chunk = check_count(chunk, "chunk", why="chains per batch")
    if (
        k > 63 or (k - 1) * math.log2(t + 1) + math.log2(k) > 62
    ):  # the key (x_t, n_1..n_{k-1}) in mixed radix must fit int64
        raise LimitError(
            f"k = {k} is too large at t = {t}: the group key k (t+1)^(k-1) of (x_t, n_1, ..., n_(k-1)) is above 2^62 "
            "(int64)",
            param="k",
            value=k,
            limit=62,
        )
    m_total = n + max(n // 2, 2)
    _check_mc(k, t, m_total, chunk, "unigram", prior, 2)

    def draw(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keys, truth, unigram = [], [], []
        for start in range(0, m, chunk):
            size = min(chunk, m - start)
            P = sample_transition_matrices(k, size, prior, rng)
            x = sample_sequences(P, t, rng)
            keys.append(_counts_key(x, k))
            truth.append(P[np.arange(size), x[:, -1]])
            unigram.append(strategy_probs(x, k, "unigram")[:, -1])
        return np.concatenate(keys), np.concatenate(truth), np.concatenate(unigram)

    train_keys, train_truth, _ = draw(n)
    test_keys, test_truth, test_unigram = draw(max(n // 2, 2))
    groups, inverse = np.unique(np.concatenate([train_keys, test_keys]), return_inverse=True)
    sums, counts = np.zeros((groups.size, k)), np.zeros(groups.size)
    np.add.at(sums, inverse[:n], train_truth)
    np.add.at(counts, inverse[:n], 1.0)
    g = inverse[n:]
    q = (sums[g] + test_unigram) / (counts[g] + 1.0)[:, None]
    v = kl(test_truth, q)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size))


# --- Prop. 8.2 and Fig. 8.2: where the construction's second layer attends


def induction_targets(seqs: np.ndarray) -> np.ndarray:
    r"""``(n, t, t)`` bool: at position p (row), the positions j <= p that follow an earlier copy of the current
    token, :math:`j \ge 2` and :math:`x_{j-1} = x_p` (1-based). The layer-2 attention of the Prop. 8.2
    construction spreads over exactly these (its layer 1 attends to j = i - 1).

    Parameters
    ----------
    seqs : int array (n, t)
        The sequences.

    Returns
    -------
    bool array (n, t, t)
        ``[m, p, j]``: 0-based column j >= 1 with ``x[m, j-1] == x[m, p]`` and j <= p.

    Examples
    --------
    >>> import numpy as np
    >>> T = induction_targets(np.array([[0, 0, 1, 0, 2, 0, 0, 1, 2, 0]]))
    >>> np.flatnonzero(T[0, -1]).tolist()  # the successors of the earlier 0s
    [1, 2, 4, 6, 7]
    """
    x = np.asarray(seqs)
    if x.ndim != 2 or not np.issubdtype(x.dtype, np.integer):
        raise InputError(f"sequences must be an integer array of shape (n, t), got {x.dtype} {x.shape}", param="seqs")
    t = x.shape[1]
    check_allocation(
        3 * array_bytes(x.shape[0], t, t, itemsize=1),
        param="seqs",
        value=x.shape,
        what="the targets (n, t, t) as bools",
    )
    prev = np.concatenate([np.full((x.shape[0], 1), -1), x[:, :-1]], axis=1)  # x_{j-1}, none at j = 1
    return (prev[:, None, :] == x[:, :, None]) & np.tri(t, dtype=bool)[None]


# --- Fact 8.3: the minimal model's constructions


@fill_doc(_DOC)
def bigram_construction(k: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Fact 8.3: :math:`W_k = I`, :math:`v = e_2` (lag 2 in the thesis's 1-based indexing, ``v[1]`` here) make the
    minimal model's logits the bigram counts :math:`f_{p,i} = \#\{t' \le p: x_{t'} = i, x_{t'-1} = x_p\}`.

    {{parameters_kt}}

    Returns
    -------
    W : float64 array (k, k)
        :math:`W_k = I`.
    v : float64 array (t,)
        :math:`v = e_2`.

    Examples
    --------
    The minimal model (``numerics.markov_gradients.minimal_model_logits``) then outputs the exact bigram counts of
    ``theory.markov.bigram_logits``:

    >>> import numpy as np
    >>> from numerics.markov_gradients import minimal_model_logits
    >>> from theory import markov as tmk
    >>> seq = [0, 0, 1, 0, 2, 0, 0, 1, 2, 0]
    >>> f = minimal_model_logits(np.array([seq]), *bigram_construction(3, 10))
    >>> f[0].astype(int).tolist() == tmk.bigram_logits(seq, 3)
    True
    """
    k, t = _check_k(k), _check_t(t)
    _check_construction(k, t)
    v = np.zeros(t)
    v[1] = 1.0
    return np.eye(k), v


@fill_doc(_DOC)
def unigram_construction(k: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`W_k = \mathbf{1}\mathbf{1}^\top`, :math:`v = e_1`: the logits are the unigram counts
    :math:`f_{p,i} = \#\{t' \le p: x_{t'} = i\}` (Sec. 8.4).

    {{parameters_kt}}

    Returns
    -------
    W : float64 array (k, k)
        :math:`W_k = \mathbf{1}\mathbf{1}^\top`.
    v : float64 array (t,)
        :math:`v = e_1`.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.markov_gradients import minimal_model_logits
    >>> from theory import markov as tmk
    >>> seq = [0, 0, 1, 0, 2, 0, 0, 1, 2, 0]
    >>> f = minimal_model_logits(np.array([seq]), *unigram_construction(3, 10))
    >>> f[0, -1].tolist(), f[0].astype(int).tolist() == tmk.unigram_logits(seq, 3)
    ([6.0, 2.0, 2.0], True)
    """
    k, t = _check_k(k), _check_t(t)
    _check_construction(k, t)
    v = np.zeros(t)
    v[0] = 1.0
    return np.ones((k, k)), v


def _check_construction(k: int, t: int) -> None:
    """W_k (k, k) and v (t,), for the minimal model, which builds the (t, t) Toeplitz matrix of v."""
    check_allocation(array_bytes(k, k), param="k", value=k, what="W_k (k, k)")
    check_allocation(
        array_bytes(t, t),
        param="t",
        value=t,
        what="the (t, t) Toeplitz matrix of v that the minimal model (minimal_model_logits) builds",
        hint="use a shorter context",
    )
