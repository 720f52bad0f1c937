r"""Exact tests and bounds for verdicts on populations of seeds (docs/verdicts.md).

Everything here is exact up to floating-point round-off (binomial and hypergeometric sums, incomplete beta
inverses), never a normal approximation, except a Mann-Whitney test of samples too large for its exact null
distribution (said in its result). Probabilities are clipped to [0, 1] (a sum of probabilities may pass 1 by
round-off).

* :func:`binomial_pmf`: :math:`P(X = j)`, :math:`X \sim \mathrm{Bin}(n, p)` (scipy's, accurate to round-off near
  the mode for every n; p = 0, 1 and subnormal p exact or finite).
* :func:`clopper_pearson`: the exact one-sided confidence bounds of a success rate (Clopper and Pearson 1934).
* :func:`rate_verdict`: the seed-population verdict (``pass`` iff the lower bound is at least the target rate
  :math:`p_0`, ``fail`` iff the upper bound is below it, else ``inconclusive``), :func:`rate_power` (its power
  against a stated alternative, before the run) and :func:`flip_probability` (after the run: the probability that a
  fresh set of as many seeds would give another verdict).
* :func:`fisher_greater`, :func:`fisher_drop_power`: the one-sided Fisher exact test of a drop in success rate
  between two settings, and its exact power.
* :func:`holm_rejections`: Holm's step-down procedure for a family of tests.
* :func:`mann_whitney_greater`: the one-sided Mann-Whitney U test, exact with ties (the permutation distribution of
  the midrank sum).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv, gammaln, xlog1py, xlogy
from scipy.stats import betabinom, binom, hypergeom, mannwhitneyu, rankdata

from theory._checks import InputError, LimitError

__all__ = [
    "MAX_COUNT",
    "MAX_FISHER_RUNS",
    "MAX_MW_EXACT_WORK",
    "MAX_VERDICT_COUNT",
    "VERDICTS",
    "MannWhitney",
    "binomial_pmf",
    "clopper_pearson",
    "fisher_drop_power",
    "fisher_greater",
    "flip_probability",
    "holm_rejections",
    "mann_whitney_greater",
    "predictive_pmf",
    "rate_power",
    "rate_verdict",
]

VERDICTS = ("pass", "fail", "inconclusive")
"""The verdicts :func:`rate_verdict` gives."""


MAX_COUNT = 10**7
"""Largest number of trials of a binomial or predictive distribution (its array of n + 1 probabilities)."""
MAX_VERDICT_COUNT = 10**5
"""Largest number of seeds of :func:`rate_power` and :func:`flip_probability` (a confidence bound per count)."""
MAX_FISHER_RUNS = 2000
"""Largest number of runs of :func:`fisher_drop_power` (a p-value per pair of counts: (runs + 1)^2)."""
MAX_MW_EXACT_WORK = 2 * 10**8
"""Most cell updates of :func:`mann_whitney_greater`'s exact null distribution, (n1 + n2)(min(n1, n2) + 1)(sum of the
doubled midranks + 1), a second or two; larger samples get the normal approximation (said in the result)."""


def _check_count(n: int, name: str = "n", limit: int = MAX_COUNT, why: str = "n + 1 probabilities") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{name} must be an integer >= 1, got {n!r}", param=name)
    if n > limit:
        raise LimitError(
            f"{name} = {n} is too large: the limit is {name} <= {limit} ({why})", param=name, value=n, limit=limit
        )
    return int(n)


def _check_probability(p: float, name: str) -> float:
    if isinstance(p, (bool, str, bytes)):  # float(True) and float("0.5") would pass
        raise InputError(f"{name} must be a probability in [0, 1] (a number), got {p!r}", param=name)
    try:
        value = float(p)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be a probability in [0, 1], got {p!r}", param=name) from None
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise InputError(f"{name} must be a probability in [0, 1], got {p!r}", param=name)
    return value


def _check_level(confidence: float) -> float:
    try:
        c = math.nan if isinstance(confidence, (bool, str, bytes)) else float(confidence)
    except (TypeError, ValueError, OverflowError):
        c = math.nan
    if not 0.5 <= c < 1.0:  # NaN fails too
        raise InputError(f"confidence must lie in [0.5, 1), got {confidence!r}", param="confidence")
    return c


def _check_successes(successes: int, n: int) -> int:
    if isinstance(successes, bool) or not isinstance(successes, (int, np.integer)) or not 0 <= successes <= n:
        raise InputError(f"successes must be an integer in [0, n = {n}], got {successes!r}", param="successes")
    return int(successes)


def binomial_pmf(n: int, p: float) -> np.ndarray:
    r"""The binomial probabilities :math:`P(X = j) = \binom{n}{j} p^j (1-p)^{n-j}`, j = 0..n (``scipy.stats.binom``:
    relative error near round-off for every n; the log-gamma form used before lost about n eps, 3e-8 at n = 10^7).

    Parameters
    ----------
    n : int
        Trials (>= 1).
    p : float
        Success probability in [0, 1].

    Returns
    -------
    numpy.ndarray
        Shape (n + 1,), summing to 1.

    Examples
    --------
    >>> [round(float(v), 4) for v in binomial_pmf(4, 0.5)]
    [0.0625, 0.25, 0.375, 0.25, 0.0625]
    >>> binomial_pmf(3, 1.0).tolist()
    [0.0, 0.0, 0.0, 1.0]
    """
    n, p = _check_count(n), _check_probability(p, "p")
    j = np.arange(n + 1)
    if not 0.0 < p < 1e-300:
        try:
            return np.asarray(binom.pmf(j, n, p), dtype=float)
        except OverflowError:  # scipy's (boost's) can overflow near the float range's end
            pass
    # at a p below 1e-300 scipy underflows (P(X = 1) = n p becomes 0) or overflows: the log-gamma form is accurate
    log_comb = gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1)
    return np.exp(log_comb + xlogy(j, p) + xlog1py(n - j, -p))


def clopper_pearson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    r"""The exact one-sided Clopper-Pearson bounds of a success rate, each at level ``confidence``.

    .. math:: p_{lo} = B^{-1}(1 - c;\, k,\, n - k + 1), \qquad p_{hi} = B^{-1}(c;\, k + 1,\, n - k)

    (:math:`p_{lo} = 0` for k = 0, :math:`p_{hi} = 1` for k = n), where :math:`B^{-1}` is the inverse regularised
    incomplete beta function: :math:`P_{p_{lo}}(X \ge k) = 1 - c` and :math:`P_{p_{hi}}(X \le k) = 1 - c`.

    Parameters
    ----------
    successes : int
        Successes k, 0 <= k <= n.
    n : int
        Trials (seeds).
    confidence : float
        One-sided confidence level c in [0.5, 1).

    Returns
    -------
    (float, float)
        The lower and the upper bound.

    Examples
    --------
    >>> lo, hi = clopper_pearson(8, 8)
    >>> round(lo, 4), hi                   # 0.05 ** (1 / 8)
    (0.6877, 1.0)
    >>> [round(b, 4) for b in clopper_pearson(0, 10)]
    [0.0, 0.2589]
    """
    n = _check_count(n)
    c, k = _check_level(confidence), _check_successes(successes, n)
    lo = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, 1 - c))
    hi = 1.0 if k == n else float(betaincinv(k + 1, n - k, c))
    return lo, hi


def rate_verdict(successes: int, n: int, p0: float, confidence: float = 0.95) -> str:
    """The verdict on "the success rate is at least ``p0``" from ``successes`` of ``n`` seeds.

    ``pass`` iff the lower Clopper-Pearson bound is at least ``p0``; ``fail`` iff the upper bound is below ``p0``;
    ``inconclusive`` otherwise (the seeds cannot tell).

    Parameters
    ----------
    successes, n : int
        Seeds that met the per-seed criterion, and seeds run.
    p0 : float
        The declared target rate, in (0, 1].
    confidence : float
        The level of each one-sided bound.

    Returns
    -------
    str
        ``"pass"``, ``"fail"`` or ``"inconclusive"``.

    Examples
    --------
    >>> rate_verdict(8, 8, 0.5), rate_verdict(4, 4, 0.5), rate_verdict(0, 8, 0.5)
    ('pass', 'inconclusive', 'fail')
    """
    p0 = _check_probability(p0, "p0")
    if p0 == 0.0:
        raise ValueError("p0 must be > 0: a target rate of 0 is met by doing nothing")
    lo, hi = clopper_pearson(successes, n, confidence)
    if lo >= p0:
        return "pass"
    return "fail" if hi < p0 else "inconclusive"


def _verdicts(n: int, p0: float, confidence: float) -> np.ndarray:
    """:func:`rate_verdict` for every success count 0..n, as indices into :data:`VERDICTS`."""
    _check_count(n, "n", MAX_VERDICT_COUNT, "a confidence bound per success count")
    return np.array([VERDICTS.index(rate_verdict(k, n, p0, confidence)) for k in range(n + 1)])


def rate_power(n: int, p0: float, p_alt: float, confidence: float = 0.95) -> float:
    """The probability that :func:`rate_verdict` passes with ``n`` seeds when the true rate is ``p_alt``.

    Computed before a run, from the configuration alone: the power of the seed-population judge against the
    alternative ``p_alt`` (for a claim, the rate the statement implies, e.g. 0.95 for "almost every seed").

    Parameters
    ----------
    n : int
        Seeds.
    p0 : float
        The target rate.
    p_alt : float
        The true success rate assumed.
    confidence : float
        The level of the bounds.

    Returns
    -------
    float
        :math:`P_{X \\sim Bin(n, p_{alt})}(\\text{verdict}(X) = \\text{pass})`.

    Examples
    --------
    >>> round(rate_power(8, 0.5, 0.95), 3), round(rate_power(20, 0.5, 0.95), 3)
    (0.943, 1.0)
    >>> rate_power(4, 0.5, 1.0)          # 4 seeds can never show a rate above 1/2 at 95 %
    0.0
    """
    n = _check_count(n)
    verdicts = _verdicts(n, _check_probability(p0, "p0"), confidence)
    return _probability(binomial_pmf(n, _check_probability(p_alt, "p_alt"))[verdicts == 0].sum())


def _probability(total: float) -> float:
    """A sum of probabilities as a probability: clipped to [0, 1] (round-off may carry it past 1 by ~1e-12, which
    a record's schema refuses); a NaN is an error, never a probability of 0 (``max(0.0, nan)`` is 0.0)."""
    value = float(total)
    if math.isnan(value):
        raise ValueError("a sum of probabilities is NaN (a bug: the probabilities were checked before)")
    return min(1.0, max(0.0, value))


def predictive_pmf(successes: int, n: int, m: int | None = None) -> np.ndarray:
    r"""The distribution of the successes of ``m`` fresh seeds (default ``n``) after ``successes`` of ``n``.

    The beta-binomial posterior predictive under a uniform prior on the rate (Laplace): the rate is
    :math:`\mathrm{Beta}(k + 1, n - k + 1)` after k of n, and
    :math:`P(X' = j) = \binom{m}{j} B(j + k + 1, m - j + n - k + 1) / B(k + 1, n - k + 1)`.

    Parameters
    ----------
    successes, n : int
        The observed successes k of n seeds.
    m : int or None
        Fresh seeds (default n).

    Returns
    -------
    numpy.ndarray
        Shape (m + 1,), summing to 1.

    Examples
    --------
    >>> [round(float(v), 4) for v in predictive_pmf(2, 2)]   # after 2 of 2: E[(1-p)^2], 2 E[p(1-p)], E[p^2]
    [0.1, 0.3, 0.6]
    """
    n = _check_count(n)
    m = n if m is None else _check_count(m, "m")
    k = _check_successes(successes, n)
    return np.asarray(betabinom.pmf(np.arange(m + 1), m, k + 1, n - k + 1), dtype=float)


def flip_probability(successes: int, n: int, p0: float, confidence: float = 0.95, method: str = "predictive") -> float:
    """The probability that a fresh set of ``n`` seeds gives another verdict than ``successes`` of ``n`` did.

    The verdict of each count is :func:`rate_verdict`. With ``method="predictive"`` (the default) the fresh successes
    follow :func:`predictive_pmf`: the observed rate with its uncertainty, so an observed 8 of 8 does not make a fresh
    failure impossible. With ``method="plugin"`` they follow Bin(n, k/n), the observed rate taken as the truth (0
    for k = n: optimistic; reported beside the predictive one).

    Parameters
    ----------
    successes, n : int
        The observed successes and seeds.
    p0 : float
        The target rate.
    confidence : float
        The level of the bounds.
    method : {'predictive', 'plugin'}
        The distribution of the fresh successes.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> round(flip_probability(8, 8, 0.5), 3)     # 8 of 8: a fresh set of 8 fails to pass about 1 time in 5
    0.206
    >>> flip_probability(8, 8, 0.5, method="plugin")
    0.0
    >>> flip_probability(24, 24, 0.5) < 0.01
    True
    """
    n = _check_count(n)
    verdicts = _verdicts(n, _check_probability(p0, "p0"), confidence)
    observed = VERDICTS.index(rate_verdict(successes, n, p0, confidence))
    if method == "predictive":
        pmf = predictive_pmf(successes, n)
    elif method == "plugin":
        pmf = binomial_pmf(n, successes / n)
    else:
        raise ValueError(f"method must be 'predictive' or 'plugin', got {method!r}")
    return _probability(pmf[verdicts != observed].sum())


def fisher_greater(x: np.ndarray | int, y: np.ndarray | int, runs: int) -> np.ndarray:
    """One-sided Fisher exact p-values of [[x, runs - x], [y, runs - y]] for "the first row succeeds more often".

    :math:`P(X \\ge x)` for :math:`X \\sim \\mathrm{Hypergeom}(2\\,runs, x + y, runs)` (what
    ``scipy.stats.fisher_exact(..., alternative="greater")`` computes), vectorised over ``x`` and ``y``.

    Parameters
    ----------
    x, y : int or array of int
        Successes of the first and the second setting, out of ``runs`` each.
    runs : int
        Runs per setting.

    Returns
    -------
    numpy.ndarray
        The p-values (shape of ``x + y``).

    Examples
    --------
    >>> round(float(fisher_greater(10, 2, 10)), 5)
    0.00036
    >>> float(fisher_greater(5, 5, 10))  > 0.5
    True
    """
    runs = _check_count(runs, "runs")
    counts = []
    for name, value in (("x", x), ("y", y)):
        arr = np.asarray(value)
        if arr.dtype.kind not in "iu" or np.any((arr < 0) | (arr > runs)):
            raise InputError(
                f"{name} must be integer success counts in [0, runs = {runs}], got {value!r}"[:200], param=name
            )
        counts.append(arr.astype(np.int64))  # x - 1 and x + y wrapped around in unsigned and narrow integer types
    x, y = counts
    return np.minimum(hypergeom.sf(x - 1, 2 * runs, x + y, runs), 1.0)


def fisher_drop_power(p_first: float, p_second: float, runs: int, level: float) -> float:
    """Exact power of the one-sided Fisher test of :func:`fisher_greater` at ``level``.

    The probability, when the first setting succeeds with probability ``p_first`` and the second with ``p_second``
    (independent Bernoulli runs, ``runs`` each), that the p-value is below ``level``: a sum over all
    (runs + 1)^2 outcomes.

    Parameters
    ----------
    p_first, p_second : float
        The success probabilities.
    runs : int
        Runs per setting.
    level : float
        The test's level, in (0, 1].

    Returns
    -------
    float
        The power.

    Examples
    --------
    >>> round(fisher_drop_power(1.0, 0.5, 10, 0.05), 3)
    0.828
    >>> fisher_drop_power(0.5, 0.5, 10, 0.05) <= 0.05     # the level is kept
    True
    """
    runs = _check_count(runs, "runs", MAX_FISHER_RUNS, "a p-value per pair of counts, (runs + 1)^2")
    p_first, p_second = _check_probability(p_first, "p_first"), _check_probability(p_second, "p_second")
    if isinstance(level, bool) or not (isinstance(level, numbers.Real) and 0 < level <= 1):  # numpy reals too
        raise InputError(f"level must lie in (0, 1], got {level!r}", param="level")
    k = np.arange(runs + 1)
    x, y = np.meshgrid(k, k, indexing="ij")
    reject = fisher_greater(x, y, runs) < level
    prob = np.outer(binomial_pmf(runs, p_first), binomial_pmf(runs, p_second))
    return _probability(prob[reject].sum())


def holm_rejections(pvalues: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure at family-wise level ``alpha``.

    Reject the i-th smallest p-value while it is below alpha / (K - i + 1), K = the number of tests.

    Parameters
    ----------
    pvalues : sequence of float
        One p-value per test.
    alpha : float
        The family-wise level, in (0, 1).

    Returns
    -------
    list of bool
        Per test, in the given order, whether it is rejected.

    Examples
    --------
    >>> holm_rejections([0.01, 0.04, 0.03], 0.05)     # 0.01 < 0.05/3, then 0.03 >= 0.05/2 stops
    [True, False, False]
    >>> holm_rejections([0.001, 0.02], 0.05)
    [True, True]
    """
    if isinstance(alpha, bool) or not (isinstance(alpha, numbers.Real) and 0 < alpha < 1):  # numpy reals too
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}", param="alpha")
    try:
        values = list(pvalues)  # once: a generator is read a single time
        if any(isinstance(v, (bool, str, bytes)) for v in values):  # float(True) and float("0.01") would pass
            raise TypeError
        p = [float(v) for v in values]
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"pvalues must be numbers in [0, 1], got {pvalues!r}"[:200], param="pvalues") from None
    if any(not 0 <= v <= 1 for v in p):  # NaN fails too
        raise InputError(f"p-values must lie in [0, 1], got {p}", param="pvalues")
    order = np.argsort(p, kind="stable")
    out = [False] * len(p)
    for rank, idx in enumerate(order):
        if not p[idx] < alpha / (len(p) - rank):
            break
        out[idx] = True
    return out


@dataclass(frozen=True)
class MannWhitney:
    """A one-sided Mann-Whitney U test of "x is stochastically larger than y".

    Attributes
    ----------
    U : float or None
        The statistic, with midranks for ties (None without data).
    p_value : float or None
        The p-value (None without data): exact, or the normal approximation where ``method`` says so.
    min_p : float
        The smallest p-value the sample sizes allow, 1 / C(n1 + n2, n1): no data can reject at a level at or below it.
    effect : float or None
        U / (n1 n2), the estimated P(x > y) + P(x = y) / 2.
    method : str
        ``"exact"`` (the permutation distribution of the midrank sum, ties included) or ``"normal"`` (samples whose
        exact distribution is beyond :data:`MAX_MW_EXACT_WORK`: the normal approximation with the tie and continuity
        corrections).

    Examples
    --------
    >>> MannWhitney(U=None, p_value=None, min_p=0.5, effect=None).min_p
    0.5
    """

    U: float | None
    p_value: float | None
    min_p: float
    effect: float | None
    method: str = "exact"


def _sample(values: Sequence[float], name: str) -> np.ndarray:
    """``values`` as a 1-D float array (a string, None, a boolean or a table is refused, not read as numbers)."""
    arr = None if values is None or isinstance(values, (str, bytes)) else np.asarray(values)
    if arr is None or arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iuf"):
        raise InputError(f"{name} must be a 1-D sequence of numbers, got {values!r}"[:200], param=name)
    return arr.astype(float)


def _midrank_sum_sf(doubled: np.ndarray, n1: int, observed: int) -> float:
    """P(S >= ``observed``) for S the sum of ``n1`` of the ``doubled`` midranks (integers) drawn without replacement,
    each of the C(N, n1) choices equally likely: counts of (items chosen, sum) by dynamic programming over the items
    (floats, below 10^300 by the caller's check), for the smaller of the two samples (S >= s iff the other sample's
    sum is at most the total minus s)."""
    top = int(doubled.sum())
    m = min(n1, len(doubled) - n1)
    counts = np.zeros((m + 1, top + 1))
    counts[0, 0] = 1.0
    for r in doubled.tolist():
        counts[1:, r:] = counts[1:, r:] + counts[:-1, : top + 1 - r]  # the right side is read before it is written
    tail = counts[m, observed:] if m == n1 else counts[m, : top - observed + 1]
    return _probability(tail.sum() / counts[m].sum())


def mann_whitney_greater(x: Sequence[float], y: Sequence[float]) -> MannWhitney:
    """The one-sided Mann-Whitney U test of "``x`` is stochastically larger than ``y``".

    The p-value is exact, ties included: the probability, over the C(n1 + n2, n1) equally likely assignments of the
    pooled values to the samples, of a midrank sum of ``x`` at least the observed one (scipy's exact method assumes
    no ties, and its p-value with ties can be smaller than the exact one). Samples whose exact distribution is beyond
    :data:`MAX_MW_EXACT_WORK` get the normal approximation with the tie and continuity corrections
    (``method="normal"``).

    Parameters
    ----------
    x, y : sequence of float
        The two samples, 1-D (an empty or non-finite sample gives no statistic).

    Returns
    -------
    MannWhitney
        The statistic, the p-value, the smallest attainable p-value, the effect size and the method.

    Examples
    --------
    >>> res = mann_whitney_greater([5, 6, 7, 8], [1, 2, 3, 4])
    >>> res.U, round(res.p_value, 4), round(res.min_p, 4), res.method       # 1 / C(8, 4)
    (16.0, 0.0143, 0.0143, 'exact')
    >>> round(mann_whitney_greater([3, 3, 2], [2, 2, 1, 0, 0]).p_value, 4)  # ties: 3 of the C(8, 3) = 56
    0.0536
    """
    a, b = _sample(x, "x"), _sample(y, "y")
    if a.size > MAX_COUNT or b.size > MAX_COUNT:
        raise LimitError(
            f"samples of {a.size} and {b.size} values are too large: the limit is {MAX_COUNT}",
            param="x" if a.size > MAX_COUNT else "y",
            value=max(a.size, b.size),
            limit=MAX_COUNT,
        )
    n1, n2 = len(a), len(b)
    log_arrangements = math.lgamma(n1 + n2 + 1) - math.lgamma(n1 + 1) - math.lgamma(n2 + 1)
    # 1 / C(n1 + n2, n1); beyond the float range (1/C overflowed there) its logarithm's exponential, 0.0 at the end
    min_p = 1.0 / math.comb(n1 + n2, n1) if log_arrangements < 700 else math.exp(-log_arrangements)
    if not (n1 and n2 and np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return MannWhitney(None, None, min_p, None)
    doubled = np.rint(2 * rankdata(np.concatenate([a, b]))).astype(np.int64)  # midranks are halves: 2r is exact
    rank_sum2 = int(doubled[:n1].sum())
    U = rank_sum2 / 2 - n1 * (n1 + 1) / 2
    work = (n1 + n2) * (min(n1, n2) + 1) * (int(doubled.sum()) + 1)
    if log_arrangements <= 300 * math.log(10) and work <= MAX_MW_EXACT_WORK:
        p, method = _midrank_sum_sf(doubled, n1, rank_sum2), "exact"
    else:
        p, method = float(mannwhitneyu(a, b, alternative="greater", method="asymptotic").pvalue), "normal"
    return MannWhitney(float(U), p, min_p, float(U) / (n1 * n2), method)
