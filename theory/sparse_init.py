r"""Under-sparse (epsilon-perturbed s-sparse) initialization, Ch. 6 / App. C.2.4 (exact).

Source: Edelman thesis Lemmas C.13-C.15, Thm C.16 (= Thm 6.5); errata: ``docs/boolean.md``.

Neuron (Lemma C.13): :math:`h_w(x) = \mathrm{ReLU}(\langle w, x\rangle)` with :math:`w\in\{\varepsilon,1\}^n`, ones on
the s-set S', epsilon elsewhere, :math:`(n-s)\varepsilon < 1`; the Thm C.16 biases
:math:`\pm\varepsilon(2j-1)/(2k)` have modulus < epsilon/2 and do not change :math:`h_w'` (proof of Thm C.16).
The lemmas compute the correlation (not the loss gradient; the correlation-loss gradient is its negative)

.. math:: \xi_i := \mathbb{E}_x[\partial_{w_i} h_w(x)\,\chi_S(x)] = \mathbb{E}_x[1\{\langle w,x\rangle>0\}\, x_i\,\chi_S(x)].

Lemma C.13 (i in S): :math:`\tfrac12\,\widehat{\mathrm{Half}}_s(\bar S\setminus\{i\})\,\widehat{\mathrm{Maj}}_{n-s}(S\setminus(\bar S\cup\{i\}))`;
Lemma C.14 (i not in S): :math:`\tfrac12\,\widehat{\mathrm{Half}}_s(\bar S\cup(S'\cap\{i\}))\,\widehat{\mathrm{Maj}}_{n-s}((S\cup\{i\})\setminus S')`,
with :math:`\bar S = S\cap S'`. For a good neuron (S' subset of S, Lemma C.15): 0 on S',
:math:`\tfrac12\widehat{\mathrm{Half}}_s([s])\widehat{\mathrm{Maj}}_{n-s}(k-s-1)` on S \\ S' and
:math:`\tfrac12\widehat{\mathrm{Half}}_s([s])\widehat{\mathrm{Maj}}_{n-s}(k-s+1)` off S.

Hypotheses enforced: k, s even, 0 <= s < k (so s <= k-2), k+1 <= n, and **n - s odd**: for
even n-s the sum of the n-s perturbed coordinates can be 0, w.x + b then equals b, and Lemma C.13's proof mixes
">0" and ">=0" there. Exact brute force (integer transform, tests/numerics/test_polynet.py) shows that for
even n-s and any tie rule / bias of the grid the values are still 1/2 Half_s([s]) Maj_{n-s+1}(k-s-+1) (odd-level
coefficients do not depend on the tie rule), so the ratio becomes (n-k+1)/(k-s-1); a float "deviation" at e.g.
(14,6,2) is rounding of exact ties w.x = 0 with b = 0.

Erratum (docs/boolean.md): :math:`|\xi_{S\setminus S'}|/|\xi_{[n]\setminus S}| = (n-k)/(k-s-1)` (from
:math:`\mathrm{Maj}_N(j+2)/\mathrm{Maj}_N(j) = -j/(N-j-1)` with N = n-s, j = k-s-1); Thm C.16 prints (n-s)/(k-s-1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from ._checks import (
    MAX_DIGITS,
    MAX_EXACT_ENTRIES,
    FractionLike,
    InputError,
    _as_int,
    as_fraction,
    check_cost,
    format_count,
)
from .boolean import (
    MAX_EXACT_N,
    _log10_comb,
    half_coefficient,
    half_full_set_coefficient,
    majority_coefficient,
)

__all__ = [
    "SOURCE",
    "bias_grid",
    "check_under_sparse",
    "good_neuron_correlation",
    "good_neuron_correlations",
    "neuron_correlation",
    "perturbation_epsilon",
    "thm_c16_ratio",
    "thm_c16_ratio_as_printed",
]

SOURCE = "Edelman thesis Lemmas C.13-C.15, Thm C.16 (App. C.2.4); docs/boolean.md"

MAX_CORRELATION_N = MAX_EXACT_N - 1
"""Largest n of the exact correlations, 13286: 1/2 Half_s(.) Maj_{n-s}(.) is an integer over 2^(n+1) (at most 4000
digits; theory.boolean.MAX_EXACT_N)."""


def check_under_sparse(n: object, k: object, s: object) -> tuple[int, int, int]:
    """Validate (n, k, s) for Lemmas C.13-C.15: k, s even, 0 <= s <= k-2, k+1 <= n, n-s odd.

    Parameters
    ----------
    n : int
        The dimension.
    k : int
        The parity degree.
    s : int
        The sparsity of the neuron (size of S').

    Returns
    -------
    tuple of int
        ``(n, k, s)`` as ints.

    Examples
    --------
    >>> from theory.sparse_init import check_under_sparse
    >>> check_under_sparse(7, 4, 2)
    (7, 4, 2)
    >>> check_under_sparse(8, 4, 2)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: need n - s odd (got n - s = 6): with n - s even the sum of the epsilon-weighted
    coordinates can be 0 ...
    """
    n, k, s = _as_int(n, "n"), _as_int(k, "k"), _as_int(s, "s")
    if k < 2 or k % 2:
        raise InputError(f"Lemmas C.13-C.15 assume k even (>= 2), got k = {format_count(k)}", param="k")
    if s < 0 or s % 2:
        raise InputError(f"Lemmas C.13-C.15 assume s even (>= 0), got s = {format_count(s)}", param="s")
    if s >= k:
        raise InputError(
            f"the under-sparse regime needs s < k (Thm 6.5; Lemma C.13's 'k < s' is a typo), "
            f"got s = {format_count(s)}, k = {format_count(k)}",
            param="s",
        )
    if n < k + 1:
        raise InputError(
            f"need n >= k+1 (there must be a coordinate outside S), got n = {format_count(n)}, k = {format_count(k)}",
            param="n",
        )
    if (n - s) % 2 == 0:
        raise InputError(
            f"need n - s odd (got n - s = {format_count(n - s)}): with n - s even the sum of the epsilon-weighted "
            f"coordinates can be 0 when sum_{{S'}} x = 0 (a tie w.x = 0 decided by the bias; Lemma C.13 mixes > 0 "
            f"and >= 0 there; docs/boolean.md), and the closed form changes to Maj_{{n-s+1}}, with ratio "
            f"(n-k+1)/(k-s-1)",
            param="n",
        )
    return n, k, s


def _check_exact(n: int) -> None:
    check_cost(
        n,
        MAX_CORRELATION_N,
        param="n",
        value=n,
        what=f"the exact correlations (1/2 Half_s Maj_(n-s): integers over 2^(n+1), at most {MAX_DIGITS} digits)",
        hint="thm_c16_ratio(n, k, s) gives the ratio in closed form for any n",
    )


def perturbation_epsilon(n: object, k: object, s: object) -> Fraction:
    """epsilon = 1/(2 max(C(n-s, k), n-s)): below 1/C(n-s, k) (App. C.2.4 init) and with (n-s) epsilon < 1, which the
    proof of Lemma C.13 actually uses. Equals 0.5/C(n-s,k) whenever C(n-s,k) >= n-s (every case the claims use);
    the max matters only when n-s < k, where C(n-s,k) = 0.

    Parameters
    ----------
    n, k, s : int
        As in :func:`check_under_sparse`.

    Returns
    -------
    Fraction
        epsilon.

    Examples
    --------
    >>> from theory.sparse_init import perturbation_epsilon
    >>> print(perturbation_epsilon(7, 4, 2), perturbation_epsilon(9, 4, 2))  # C(5, 4) = 5, C(7, 4) = 35
    1/10 1/70
    """
    n, k, s = check_under_sparse(n, k, s)
    check_cost(
        _log10_comb(n - s, k),
        MAX_DIGITS,
        param="n",
        value=n,
        what="the exact C(n-s, k)",
        hint="use a smaller n",
        log10=True,
    )
    return Fraction(1, 2 * max(math.comb(n - s, k), n - s))


def bias_grid(k: object, eps: FractionLike) -> list[Fraction]:
    """Thm C.16 init biases {±eps (2j-1)/(2k) : j = 1..k/2} (k values, modulus < eps/2).

    Parameters
    ----------
    k : int
        The parity degree, even, ``k >= 2``.
    eps : int, float, Fraction or str
        epsilon (read exactly by :class:`fractions.Fraction`).

    Returns
    -------
    list of Fraction
        The k biases, increasing.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory.sparse_init import bias_grid
    >>> print(*bias_grid(4, Fraction(1, 10)))
    -3/80 -1/80 1/80 3/80
    """
    k = _as_int(k, "k")
    if k < 2 or k % 2:
        raise InputError(f"the bias grid assumes k even (>= 2), got k = {format_count(k)}", param="k")
    check_cost(k, MAX_EXACT_ENTRIES, param="k", value=k, what="the grid of k exact biases", hint="use a smaller k")
    e = as_fraction(eps, "eps")
    if e <= 0:
        raise InputError(f"eps (the perturbation epsilon) must be > 0, got eps = {eps!r:.80}", param="eps")
    pos = [e * (2 * j - 1) / (2 * k) for j in range(1, k // 2 + 1)]
    return sorted([-p for p in pos] + pos)


def _set(x: Iterable[int], name: str, n: int) -> frozenset[int]:
    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        raise InputError(f"{name} must be an iterable of indices, got {x!r:.80}", param=name)
    out = frozenset(_as_int(i, name) for i in x)
    if any(not 0 <= i < n for i in out):
        raise InputError(f"{name} indices must lie in 0..{n - 1}, got {sorted(out)!r:.200}", param=name)
    return out


def neuron_correlation(n: object, k: object, s: object, S: Iterable[int], S_prime: Iterable[int], i: int) -> Fraction:
    """E[1{w.x > 0} x_i chi_S(x)] for w = 1 on S', epsilon elsewhere (Lemmas C.13 / C.14, any S'), exact.

    i in S: 1/2 Half_s(|S̄ \\ {i}|) Maj_{n-s}(|S \\ (S̄ ∪ {i})|); i not in S: 1/2 Half_s(|S̄ ∪ (S' ∩ {i})|)
    Maj_{n-s}(|(S ∪ {i}) \\ S'|), S̄ = S ∩ S' (the coefficients depend only on set sizes).

    Parameters
    ----------
    n, k, s : int
        As in :func:`check_under_sparse`.
    S : iterable of int
        The parity's k-set (0-based).
    S_prime : iterable of int
        The neuron's s-set S' (0-based).
    i : int
        The coordinate, ``0 <= i < n``.

    Returns
    -------
    Fraction
        xi_i.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficient
    >>> from theory.sparse_init import neuron_correlation, perturbation_epsilon
    >>> print(neuron_correlation(7, 4, 2, [0, 1, 2, 3], [0, 1], 2))
    -3/32

    Brute force over {±1}^7: xi_i is the coefficient of 1{w.x > 0} at S △ {i}.

    >>> w = [1, 1] + [perturbation_epsilon(7, 4, 2)] * 5
    >>> def h(x):
    ...     return int(sum(wi * xi for wi, xi in zip(w, x)) > 0)
    >>> fourier_coefficient(h, 7, [0, 1, 3]) == neuron_correlation(7, 4, 2, [0, 1, 2, 3], [0, 1], 2)
    True
    """
    n, k, s = check_under_sparse(n, k, s)
    _check_exact(n)
    S_, Sp = _set(S, "S", n), _set(S_prime, "S_prime", n)
    if len(S_) != k or len(Sp) != s:
        raise InputError(
            f"need |S| = k = {k} and |S'| = s = {s}, got {len(S_)} and {len(Sp)}",
            param="S" if len(S_) != k else "S_prime",
        )
    i = _as_int(i, "i")
    if not 0 <= i < n:
        raise InputError(f"i must be in 0..{n - 1}, got {format_count(i)}", param="i")
    Sbar = S_ & Sp
    if i in S_:
        inner, outer = Sbar - {i}, S_ - (Sbar | {i})
    else:
        inner, outer = Sbar | (Sp & {i}), (S_ | {i}) - Sp
    half = half_coefficient(s, len(inner))  # Half_0 = 1 (empty sum is 0)
    return half * majority_coefficient(n - s, len(outer)) / 2


def good_neuron_correlation(n: object, k: object, s: object, case: str) -> Fraction:
    """Lemma C.15 for a good neuron (S' subset of S): ``case`` in {"S'", "S-S'", "out"}.

    S': 0; S \\ S': 1/2 Half_s([s]) Maj_{n-s}(k-s-1); outside S: 1/2 Half_s([s]) Maj_{n-s}(k-s+1).

    Parameters
    ----------
    n, k, s : int
        As in :func:`check_under_sparse`.
    case : {"S'", "S-S'", "out"}
        Where the coordinate lies.

    Returns
    -------
    Fraction
        xi_i for any coordinate i of that case.

    Examples
    --------
    >>> from theory.sparse_init import good_neuron_correlation
    >>> print(*(good_neuron_correlation(7, 4, 2, case) for case in ("S'", "S-S'", "out")))
    0 -3/32 1/32
    """
    n, k, s = check_under_sparse(n, k, s)
    _check_exact(n)
    if not isinstance(case, str) or case not in ("S'", "S-S'", "out"):
        raise InputError(f'case must be "S\'", "S-S\'" or "out", got {case!r:.80}', param="case")
    half = half_full_set_coefficient(s)
    if case == "S'":
        return Fraction(0)
    if case == "S-S'":
        return half * majority_coefficient(n - s, k - s - 1) / 2
    return half * majority_coefficient(n - s, k - s + 1) / 2


def good_neuron_correlations(n: object, k: object, s: object) -> list[Fraction]:
    """The full vector (xi_0, ..., xi_{n-1}) for S = {0..k-1}, S' = {0..s-1} (Lemma C.15).

    Parameters
    ----------
    n, k, s : int
        As in :func:`check_under_sparse`.

    Returns
    -------
    list of Fraction
        The n correlations.

    Examples
    --------
    >>> from theory.sparse_init import good_neuron_correlations, neuron_correlation
    >>> print(*good_neuron_correlations(7, 4, 2))
    0 0 -3/32 -3/32 1/32 1/32 1/32
    >>> good_neuron_correlations(7, 4, 2) == [neuron_correlation(7, 4, 2, range(4), range(2), i) for i in range(7)]
    True
    """
    n, k, s = check_under_sparse(n, k, s)
    _check_exact(n)
    value = {case: good_neuron_correlation(n, k, s, case) for case in ("S'", "S-S'", "out")}  # once each, not n times
    return [value["S'"] if i < s else value["S-S'"] if i < k else value["out"] for i in range(n)]


def thm_c16_ratio(n: object, k: object, s: object) -> Fraction:
    """|xi_{S\\S'}| / |xi_{[n]\\S}| = (n-k)/(k-s-1) (corrected Thm C.16; docs/boolean.md).

    Parameters
    ----------
    n, k, s : int
        As in :func:`check_under_sparse`.

    Returns
    -------
    Fraction
        ``(n-k)/(k-s-1)``.

    Examples
    --------
    >>> from theory.sparse_init import good_neuron_correlations, thm_c16_ratio
    >>> xi = good_neuron_correlations(9, 4, 2)
    >>> print(thm_c16_ratio(9, 4, 2), abs(xi[2]) / abs(xi[8]))
    5 5
    """
    n, k, s = check_under_sparse(n, k, s)
    return Fraction(n - k, k - s - 1)


def thm_c16_ratio_as_printed(n: object, k: object, s: object) -> Fraction:
    """(n-s)/(k-s-1), the ratio as printed in the proof of Thm C.16 (refuted; docs/boolean.md).

    Parameters
    ----------
    n, k, s : int
        As in :func:`check_under_sparse`.

    Returns
    -------
    Fraction
        ``(n-s)/(k-s-1)``.

    Examples
    --------
    >>> from theory.sparse_init import thm_c16_ratio, thm_c16_ratio_as_printed
    >>> print(thm_c16_ratio_as_printed(9, 4, 2), thm_c16_ratio(9, 4, 2))
    7 5
    """
    n, k, s = check_under_sparse(n, k, s)
    return Fraction(n - s, k - s - 1)
