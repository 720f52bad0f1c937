r"""Random search as the control of the Fig. 5.1 scaling claims (Edelman thesis (2024) Ch. 5, Sec. 5.3.2): block
medians of independent success times :math:`T\sim\mathrm{Geom}(1/\binom nk)` (support 1, 2, ...) over a grid of
(n, k), and their local slopes of :math:`\log t_c` against :math:`\log n`, by seeded Monte Carlo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from theory._checks import InputError, LimitError, check_cost, format_count
from theory.parity import check_nk

from . import limits
from .limits import MAX_MC_SAMPLES, check_count, check_real_array, check_seed

__all__ = ["MAX_SEARCH_SETS", "block_count", "block_medians", "local_slopes", "random_search_block_medians"]

MAX_SEARCH_SETS = 10**15
"""Largest C(n, k) of a random-search case: success times of mean C(n, k) stay far inside numpy's int64."""


def local_slopes(ns: Sequence[int], medians: Sequence[float]) -> list[float]:
    r"""Local slopes :math:`\log(m_{i+1}/m_i)/\log(n_{i+1}/n_i)` of a median curve over increasing ns (inf/nan where
    a median is not finite).

    Parameters
    ----------
    ns : sequence of int
        Increasing sizes, at least two.
    medians : sequence of float
        The medians at those sizes.

    Returns
    -------
    list of float
        One slope per consecutive pair.

    Examples
    --------
    >>> [round(s, 6) for s in local_slopes([10, 20, 40], [100.0, 400.0, 800.0])]
    [2.0, 1.0]
    """
    n = check_real_array(ns, "ns")
    m = check_real_array(medians, "medians", finite=False)
    if n.ndim != 1 or n.shape != m.shape or len(n) < 2 or not np.all(np.diff(n) > 0):
        raise InputError("local_slopes needs >= 2 increasing sizes and as many medians", param="ns")
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.diff(np.log(m)) / np.diff(np.log(n))).tolist()


def block_count(n: int, block: int, what: str = "values") -> int:
    r"""The number of consecutive blocks of ``block`` items in ``n`` items, :math:`n/\mathrm{block}`, where ``block``
    divides ``n`` (the seed blocks of the Fig. 5.1 and 5.4 claims, Edelman Sec. 5.3.2).

    Parameters
    ----------
    n : int
        The number of items (seeds, values), at least 0.
    block : int
        The block size, at least 1.
    what : str
        What the items are, in the error message.

    Returns
    -------
    int
        n / block.

    Raises
    ------
    InputError
        ``block`` below 1 (``param="block"``), ``n`` negative (``param="n"``) or not a multiple of ``block``
        (``param="block"``).

    Examples
    --------
    >>> block_count(12, 4, "seeds")
    3
    >>> block_count(10, 4, "seeds")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: 10 seeds do not split into blocks of 4
    """
    n = check_count(n, "n", minimum=0)
    block = check_count(block, "block")
    if n % block:
        raise InputError(f"{n} {what} do not split into blocks of {block}", param="block")
    return n // block


def block_medians(values: np.ndarray, block: int) -> np.ndarray:
    """Medians of consecutive blocks of ``block`` values (inf where more than half of a block is inf).

    Parameters
    ----------
    values : array (N,)
        N a multiple of ``block``.
    block : int
        The block size.

    Returns
    -------
    numpy.ndarray
        N / block medians.

    Examples
    --------
    >>> block_medians(np.array([1.0, 3.0, 5.0, np.inf]), 2).tolist()
    [2.0, inf]
    """
    v = check_real_array(values, "values", finite=False)
    if np.isnan(v).any():
        raise InputError("values must not contain NaN (inf marks a run that never succeeded)", param="values")
    if v.ndim != 1:
        raise InputError(f"values must be one-dimensional, got shape {v.shape}", param="values")
    block = check_count(block, "block")
    block_count(len(v), block)
    return np.median(v.reshape(-1, block), axis=1)


def random_search_block_medians(
    cases: Sequence[tuple[int, int]], blocks: int, block: int, seed: int = 0, copies: int = 1
) -> dict[tuple[int, int], np.ndarray]:
    r"""Per case (n, k), ``blocks`` medians of ``block`` independent success times of random search over the k-sets
    (one guess per step; Edelman Sec. 5.3.2), run as ``copies`` parallel searchers (the first success of r
    :math:`\mathrm{Geom}(p)` searchers is :math:`\mathrm{Geom}(1-(1-p)^r)`, :math:`p=1/\binom nk`), drawn with
    ``numpy``'s generator of ``seed``.

    Parameters
    ----------
    cases : sequence of (n, k)
        The parities.
    blocks, block : int
        The number of blocks and the draws per block.
    seed : int
        Seed of ``numpy``'s generator.
    copies : int
        r, parallel searchers per run.

    Returns
    -------
    dict
        (n, k) -> array of ``blocks`` medians.

    Examples
    --------
    >>> m = random_search_block_medians([(10, 2)], blocks=20000, block=1, seed=0)[(10, 2)]
    >>> bool(abs(np.mean(m) - 45) < 1.5)  # the mean of Geom(1/45) is 45
    True
    """
    seed = check_seed(seed)
    blocks, block, copies = (
        check_count(v, name) for v, name in ((blocks, "blocks"), (block, "block"), (copies, "copies"))
    )
    draws = blocks * block
    param = "blocks" if blocks >= block else "block"
    hint = "use fewer blocks or a smaller block"
    check_cost(draws, MAX_MC_SAMPLES, param=param, value=draws, what="the draws per case (blocks x block)", hint=hint)
    parsed = _cases(cases)
    check_cost(draws * len(parsed), limits.max_mc_work(), param="cases", value=len(parsed), what="the draws", hint=hint)
    rng = np.random.default_rng(seed)
    out = {}
    for n, k in parsed:
        count = math.comb(n, k)
        # 1 - (1-p)^r with p = 1/C(n, k); copies beyond the float range succeed at once unless p is tiny
        p = 1.0 if count == 1 else -math.expm1(math.log1p(-1 / count) * min(copies, 2**1000))
        out[(n, k)] = block_medians(rng.geometric(p, size=draws).astype(np.float64), block)
    return out


def _cases(cases: object) -> list[tuple[int, int]]:
    """The (n, k) cases as ints with 1 <= k <= n and C(n, k) <= MAX_SEARCH_SETS (InputError / LimitError naming
    ``cases``)."""
    if isinstance(cases, np.ndarray):
        cases = cases.tolist()
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Sequence):
        raise InputError(f"cases must be a sequence of (n, k) pairs, got {cases!r:.80}", param="cases")
    out = []
    for case in cases:
        if isinstance(case, (str, bytes)) or not isinstance(case, (Sequence, np.ndarray)) or len(case) != 2:
            raise InputError(f"each case must be a pair (n, k), got {case!r:.80}", param="cases")
        n, k = check_nk(*case)
        if math.comb(n, min(k, n - k, 64)) > MAX_SEARCH_SETS or math.comb(n, k) > MAX_SEARCH_SETS:
            raise LimitError(
                f"cases: C({format_count(n)}, {format_count(k)}) is above the limit {format_count(MAX_SEARCH_SETS)} "
                "of k-sets searched (success times of that mean overflow the draws)",
                param="cases",
                value=(n, k),
                limit=MAX_SEARCH_SETS,
                hint="use a smaller n or k",
            )
        out.append((n, k))
    return out
