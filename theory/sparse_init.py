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
from collections.abc import Callable, Iterable
from fractions import Fraction

import sympy

from ._checks import (
    MAX_DIGITS,
    MAX_EXACT_ENTRIES,
    FractionLike,
    InputError,
    _as_int,
    as_fraction,
    check_cost,
    format_count,
    log10_binomial,
)
from ._docstrings import fill_doc, sections
from .boolean import (
    MAX_EXACT_N,
    _check_comb_digits,
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
    "hoeffding_sample_size",
    "lemma_c5_sample_size",
    "lemma_c6_constants",
    "lemma_c7_bound",
    "lemma_c8_gap",
    "lemma_c9_conclusion",
    "lemma_c9_objective_bound",
    "lemma_c9_sample_size",
    "lemma_c9_steps",
    "lemma_c9_steps_corrected",
    "lemma_c10_chernoff_bound",
    "lemma_c10_mean",
    "lemma_c10_true_mean",
    "lemma_c10_width",
    "neuron_correlation",
    "perturbation_epsilon",
    "thm_c11_setting",
    "thm_c16_correlation_threshold",
    "thm_c16_good_probability",
    "thm_c16_ratio",
    "thm_c16_ratio_as_printed",
    "thm_c16_sample_size",
    "thm_c16_schedule",
    "thm_c16_width",
]

SOURCE = "Edelman thesis Lemmas C.13-C.15, Thm C.16 (App. C.2.4); docs/boolean.md"

MAX_CORRELATION_N = MAX_EXACT_N - 1
"""Largest n of the exact correlations, 13286: 1/2 Half_s(.) Maj_{n-s}(.) is an integer over 2^(n+1) (at most 4000
digits; theory.boolean.MAX_EXACT_N)."""


#: Shared docstring entries and sections (:func:`theory._docstrings.fill_doc`).
_DELTA = "delta : float, Fraction or str\n    The failure probability, in (0, 1)."
_DOC = {
    "nks": sections("n, k, s : int\n    As in :func:`check_under_sparse`."),
    "delta_width": _DELTA + "\n\n" + sections(returns="int\n    The even width r."),
    "delta_m": _DELTA + "\n\n" + sections(returns="int\n    m."),
    "c9_norms_eps": "psi_norm, B : float\n    :math:`\\|\\psi\\|_{\\infty,2}` and the readout norm bound, ``> 0``.\n"
    "eps : float\n    epsilon, in (0, 1/2).",
    "c9_steps": sections(
        "psi_norm : float\n    :math:`\\|\\psi\\|_{\\infty,2}`, ``> 0``.",
        "B : float\n    The readout norm bound, ``> 0``.",
        "eps : float\n    epsilon, in (0, 1/2).",
        returns="int\n    T.",
    ),
}


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


@fill_doc(_DOC)
def perturbation_epsilon(n: object, k: object, s: object) -> Fraction:
    """epsilon = 1/(2 max(C(n-s, k), n-s)): below 1/C(n-s, k) (App. C.2.4 init) and with (n-s) epsilon < 1, which the
    proof of Lemma C.13 actually uses. Equals 0.5/C(n-s,k) whenever C(n-s,k) >= n-s (every case the claims use);
    the max matters only when n-s < k, where C(n-s,k) = 0.

    {{nks}}

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
        log10_binomial(n - s, k) if k <= n - s else 0.0,  # C(n-s, k) = 0 for n - s < k
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


@fill_doc(_DOC)
def good_neuron_correlations(n: object, k: object, s: object) -> list[Fraction]:
    """The full vector (xi_0, ..., xi_{n-1}) for S = {0..k-1}, S' = {0..s-1} (Lemma C.15).

    {{nks}}

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


@fill_doc(_DOC)
def thm_c16_ratio(n: object, k: object, s: object) -> Fraction:
    """|xi_{S\\S'}| / |xi_{[n]\\S}| = (n-k)/(k-s-1) (corrected Thm C.16; docs/boolean.md).

    {{nks}}

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


@fill_doc(_DOC)
def thm_c16_ratio_as_printed(n: object, k: object, s: object) -> Fraction:
    """(n-s)/(k-s-1), the ratio as printed in the proof of Thm C.16 (refuted; docs/boolean.md).

    {{nks}}

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


# --------------------------------------------------------------------------------------------------
# Thm 6.5 / C.16 end to end: the one clipped batch step, its width and its sample size
# --------------------------------------------------------------------------------------------------
def _check_delta(delta: FractionLike, name: str = "delta") -> Fraction:
    d = as_fraction(delta, name)
    if not 0 < d < 1:
        raise InputError(f"{name} (a failure probability) must lie in (0, 1), got {name} = {delta!r:.80}", param=name)
    return d


def _check_precision(tau: FractionLike) -> Fraction:
    """The precision ``tau > 0`` of a sample-size bound (Hoeffding, Lemma C.5), read exactly."""
    t = as_fraction(tau, "tau")
    if t <= 0:
        raise InputError(f"tau (the precision) must be > 0, got tau = {tau!r:.80}", param="tau")
    return t


def _float_formula(compute: Callable[[], float], what: str) -> float:
    """The value of a floating-point formula; an InputError when it leaves the float range (an argument beyond it,
    an overflow or an underflow to a zero divisor) instead of an OverflowError, a ZeroDivisionError or an infinity."""
    try:
        x = compute()
    except (OverflowError, ZeroDivisionError):
        x = math.inf
    if not math.isfinite(x):
        raise InputError(f"{what} is beyond the floating-point range; use smaller sizes or a larger precision")
    return x


def thm_c16_schedule(n: object, k: object, s: object) -> dict[str, Fraction]:
    r"""The one-step schedule of the proof of Thm C.16 (App. C.2.3) for the eps-perturbed s-sparse init, exact.

    With :math:`\xi_{in} = \tfrac12\widehat{\mathrm{Half}}_s([s])\widehat{\mathrm{Maj}}_{n-s}(k-s-1)` (coordinates of
    S \\ S') and :math:`\xi_{out} = \tfrac12\widehat{\mathrm{Half}}_s([s])\widehat{\mathrm{Maj}}_{n-s}(k-s+1)`
    (coordinates outside S; Lemma C.15): first-layer weight decay :math:`\lambda = 1-\varepsilon/(2k)`, learning rate
    :math:`\eta = \varepsilon/(2k|\xi_{in}|)` (printed with a minus sign), truncation threshold as printed
    :math:`\gamma_{printed} = |\xi_{out}|`; and the sample version this toolkit runs: truncation
    :math:`\gamma = (|\xi_{in}|+|\xi_{out}|)/2` with gradient precision :math:`\tau = (|\xi_{in}|-|\xi_{out}|)/2`, so that
    every coordinate estimated to within tau is truncated exactly when its population gradient is (S' and outside
    S: below gamma; S \\ S': above). The printed gamma = |xi_out| with tau = |xi_out|/2 keeps half of the
    irrelevant coordinates' noisy estimates (docs/sparse_parity.md). Biases, second layer: eta = 0. After the step a
    good neuron whose output weight has the sign of xi_in has, in population, weights
    :math:`\varepsilon/(2k)` on S', :math:`\varepsilon/(2k)+\varepsilon^2/(2k)` on S \\ S' and
    :math:`\varepsilon^2/(2k)` outside S (``w_S'``, ``w_S-S'``, ``w_out``).

    Parameters
    ----------
    n, k, s : int
        As in :func:`check_under_sparse`, with n - k > k - s - 1 (|xi_in| > |xi_out|: else no threshold separates).

    Returns
    -------
    dict of str to Fraction
        ``eps``, ``xi_in``, ``xi_out``, ``lam``, ``eta``, ``gamma_printed``, ``gamma``, ``tau``, ``w_S'``,
        ``w_S-S'``, ``w_out``.

    Examples
    --------
    >>> from theory.sparse_init import thm_c16_schedule
    >>> sch = thm_c16_schedule(7, 4, 2)
    >>> print(sch["eps"], sch["xi_in"], sch["xi_out"], sch["eta"], sch["gamma"], sch["tau"])
    1/10 -3/32 1/32 2/15 1/16 1/32
    >>> print(sch["w_S'"], sch["w_S-S'"], sch["w_out"])
    1/80 11/800 1/800
    """
    n, k, s = check_under_sparse(n, k, s)
    eps = perturbation_epsilon(n, k, s)
    xi_in = good_neuron_correlation(n, k, s, "S-S'")
    xi_out = good_neuron_correlation(n, k, s, "out")
    a_in, a_out = abs(xi_in), abs(xi_out)
    if a_in <= a_out:
        raise InputError(
            f"no truncation threshold separates S \\ S' from the coordinates outside S at (n, k, s) = ({n}, {k}, {s}): "
            f"|xi_in|/|xi_out| = (n-k)/(k-s-1) = {thm_c16_ratio(n, k, s)} <= 1 (Thm C.16 needs n - k > k - s - 1; the "
            f"printed ratio (n-s)/(k-s-1) hides this)",
            param="n",
        )
    lam = 1 - eps / (2 * k)
    return {
        "eps": eps,
        "xi_in": xi_in,
        "xi_out": xi_out,
        "lam": lam,
        "eta": eps / (2 * k * a_in),
        "gamma_printed": a_out,
        "gamma": (a_in + a_out) / 2,
        "tau": (a_in - a_out) / 2,
        "w_S'": (1 - lam),
        "w_S-S'": (1 - lam) * eps + eps / (2 * k),
        "w_out": (1 - lam) * eps,
    }


@fill_doc(_DOC)
def thm_c16_good_probability(n: object, k: object, s: object) -> Fraction:
    """P(S' ⊆ S) = C(k, s)/C(n, s) for a uniform s-subset S' and the parity's k-set S (proof of Thm C.16).

    {{nks}}

    Returns
    -------
    Fraction
        ``C(k, s)/C(n, s)``.

    Examples
    --------
    >>> from theory.sparse_init import thm_c16_good_probability
    >>> print(thm_c16_good_probability(7, 4, 2))
    2/7
    """
    n, k, s = check_under_sparse(n, k, s)
    _check_comb_digits(n, s)
    return Fraction(math.comb(k, s), math.comb(n, s))


@fill_doc(_DOC)
def thm_c16_width(n: object, k: object, s: object, delta: FractionLike) -> int:
    r"""The width r (even) for which, with probability >= 1 - delta/2, each of the k init biases is drawn by at least
    one good neuron (S' ⊆ S) among the r/2 independent ones (the mirrored half copies them):
    :math:`r/2 = \lceil \ln(2k/\delta) / (-\ln(1 - p/k)) \rceil`, p = C(k,s)/C(n,s), by a union bound over the k
    biases, :math:`k(1-p/k)^{r/2} \le \delta/2`. This is the width the proof of Thm C.16 asks for ("to be able to
    choose k + 1 good neurons with correct biases, we need width O(k^2 (n/k)^s)"), with its constant; the proof says
    k + 1 biases, the init has k (docs/sparse_parity.md). Floating-point logarithms, rounded up.

    {{nks}}
    {{delta_width}}

    Examples
    --------
    >>> from theory.sparse_init import thm_c16_width
    >>> thm_c16_width(7, 4, 2, "0.01")
    182
    """
    n, k, s = check_under_sparse(n, k, s)
    d = _check_delta(delta)
    q = float(thm_c16_good_probability(n, k, s)) / k
    if q >= 1:
        return 2
    half = _float_formula(
        lambda: math.log(2 * k / float(d)) / -math.log1p(-q),
        f"the Thm C.16 width at (n, k, s) = ({format_count(n)}, {format_count(k)}, {format_count(s)}), delta = {d}",
    )
    return 2 * math.ceil(half)


def hoeffding_sample_size(coordinates: object, tau: FractionLike, delta: FractionLike, span: object = 2) -> int:
    r"""m such that the mean of m i.i.d. terms of range ``span`` estimates each of ``coordinates`` means to within
    tau with probability >= 1 - delta: Hoeffding's :math:`P(|\hat g - g| \ge \tau) \le 2e^{-2m\tau^2/\mathrm{span}^2}`
    and a union bound, :math:`m = \lceil \mathrm{span}^2 \ln(2\,\mathrm{coordinates}/\delta)/(2\tau^2) \rceil`
    (floating-point logarithm, rounded up). With span 2 (per-sample gradient terms in [-1, 1]) this is the
    "standard Chernoff bound" the proof of Thm C.16 invokes.

    Parameters
    ----------
    coordinates : int
        The number of estimated means, ``>= 1``.
    tau : float, Fraction or str
        The precision, ``> 0``.
    delta : float, Fraction or str
        The failure probability, in (0, 1).
    span : int
        The range of one term, ``>= 1``.

    Returns
    -------
    int
        The sample size m.

    Examples
    --------
    >>> from theory.sparse_init import hoeffding_sample_size
    >>> hoeffding_sample_size(1, "0.1", "0.05")  # 2 ln(40) / 0.01 = 737.8
    738
    """
    c = _as_int(coordinates, "coordinates")
    if c < 1:
        raise InputError(f"coordinates must be >= 1, got {format_count(c)}", param="coordinates")
    span_ = _as_int(span, "span")
    if span_ < 1:
        raise InputError(f"span must be >= 1, got {format_count(span_)}", param="span")
    t = _check_precision(tau)
    d = _check_delta(delta)
    m = _float_formula(
        lambda: span_**2 * math.log(2 * c / float(d)) / (2 * float(t) ** 2),
        f"the Hoeffding sample size with coordinates = {format_count(c)}, span = {format_count(span_)}, tau = {tau!r:.40}",
    )
    return math.ceil(m)


@fill_doc(_DOC)
def thm_c16_sample_size(n: object, k: object, s: object, width: object, delta: FractionLike) -> int:
    r"""The sample size m of the one clipped step: every first-layer gradient coordinate of the r/2 independent
    neurons (per-sample terms :math:`\pm x_j 1\{\cdot\} \in [-1, 1]`) within :math:`\tau = (|\xi_{in}|-|\xi_{out}|)/2`
    with probability >= 1 - delta/2: :func:`hoeffding_sample_size` with n r/2 coordinates and delta/2. Since
    :math:`|\xi_{in}| = \Theta((n-s)^{-(k-s-1)/2})`, m = O((n-s)^{k-s-1} log(n r/delta)), the theorem's
    :math:`m = O((n/k)^{k-s-1})`.

    {{nks}}
    width : int
        The width r, even, ``>= 2``.
    {{delta_m}}

    Examples
    --------
    >>> from theory.sparse_init import thm_c16_sample_size
    >>> thm_c16_sample_size(7, 4, 2, 182, "0.01")
    25494
    """
    n, k, s = check_under_sparse(n, k, s)
    r = _as_int(width, "width")
    if r < 2 or r % 2:
        raise InputError(f"width must be even and >= 2 (mirrored halves), got {format_count(r)}", param="width")
    d = _check_delta(delta)
    return hoeffding_sample_size(n * r // 2, thm_c16_schedule(n, k, s)["tau"], d / 2)


def thm_c16_correlation_threshold(eps: FractionLike) -> Fraction:
    """1/2 - eps, the correlation with chi_S that Thm C.16 promises for some subnetwork after the step.

    Parameters
    ----------
    eps : float, Fraction or str
        epsilon, in (0, 1/2).

    Returns
    -------
    Fraction
        ``1/2 - eps``.

    Examples
    --------
    >>> from theory.sparse_init import thm_c16_correlation_threshold
    >>> print(thm_c16_correlation_threshold("0.1"))
    2/5
    """
    e = as_fraction(eps, "eps")
    if not 0 < e < Fraction(1, 2):
        raise InputError(f"eps must lie in (0, 1/2), got eps = {eps!r:.80}", param="eps")
    return Fraction(1, 2) - e


# --------------------------------------------------------------------------------------------------
# Lemmas C.5 and C.10 (App. C.2.2): gradient concentration and the r'-good initialization
# --------------------------------------------------------------------------------------------------
@fill_doc(_DOC)
def lemma_c5_sample_size(n: object, width: object, tau: FractionLike, delta: FractionLike) -> int:
    r"""Lemma C.5's sample size :math:`m = \lceil 4\ln(4nr/\delta)/\tau^2 \rceil`: then, with probability >= 1 - delta,
    every coordinate of :math:`\nabla_{W,b} L_S` is within tau of :math:`\nabla_{W,b} L_D` (Hoeffding,
    :math:`2e^{-m\tau^2/4}` per coordinate, union over the nr + r <= 2nr coordinates; it needs per-sample terms of
    modulus <= sqrt(2), e.g. |u_i| <= 1 for the hinge loss). Floating-point logarithm, rounded up.

    Parameters
    ----------
    n : int
        The input dimension, ``>= 1``.
    width : int
        The width r, ``>= 1``.
    tau : float, Fraction or str
        The precision, ``> 0``.
    {{delta_m}}

    Examples
    --------
    >>> from theory.sparse_init import lemma_c5_sample_size
    >>> lemma_c5_sample_size(8, 8, "0.25", "0.1")  # 4 ln(2560) / 0.0625 = 502.3
    503
    """
    n_, r = _as_int(n, "n"), _as_int(width, "width")
    if n_ < 1 or r < 1:
        raise InputError(f"need n >= 1 and width >= 1, got n = {format_count(n_)}, width = {format_count(r)}")
    t = _check_precision(tau)
    d = _check_delta(delta)
    m = _float_formula(
        lambda: 4 * math.log(4 * n_ * r / float(d)) / float(t) ** 2,
        f"Lemma C.5's sample size with n = {format_count(n_)}, width = {format_count(r)}, tau = {tau!r:.40}",
    )
    return math.ceil(m)


@fill_doc(_DOC)
def lemma_c10_width(n: object, k: object, s: object, delta: FractionLike) -> int:
    r"""Lemma C.10's width :math:`r = \lceil 20k(2n/s)^k\ln(2k/\delta)\rceil` (the proof of Thm C.11 chooses it),
    rounded up to even (mirrored halves). Floating-point logarithm.

    Parameters
    ----------
    n, k, s : int
        ``1 <= k <= s <= n``.
    {{delta_width}}

    Examples
    --------
    >>> from theory.sparse_init import lemma_c10_width
    >>> lemma_c10_width(15, 2, 9, "0.1")  # 40 (10/3)^2 ln 40 = 1639.5
    1640
    """
    n_, k_, s_ = _as_int(n, "n"), _as_int(k, "k"), _as_int(s, "s")
    if not 1 <= k_ <= s_ <= n_:
        raise InputError(f"need 1 <= k <= s <= n, got n = {n_}, k = {k_}, s = {s_}")
    d = _check_delta(delta)
    r = math.ceil(
        _float_formula(
            lambda: 20 * k_ * (2 * n_ / s_) ** k_ * math.log(2 * k_ / float(d)),
            f"Lemma C.10's width 20k (2n/s)^k ln(2k/delta) at n = {format_count(n_)}, k = {format_count(k_)}, "
            f"s = {format_count(s_)}",
        )
    )
    return r + r % 2


def lemma_c10_mean(width: object, n: object, k: object, s: object) -> Fraction:
    r"""Lemma C.10's mean number of good neurons with a given bias, :math:`\mu = (r/(2k))(s/(2n))^k`: each of the r/2
    independent neurons is good (S ⊆ supp w) with probability at least :math:`(s/2n)^k` (Lemma C.2) and has the
    given bias with probability 1/k, and the proof takes these bounds as the probability ("Observe that
    E[r'_i] = r/(2k) (s/2n)^k"). The count is then Binomial(r/2, (s/2n)^k/k).

    Parameters
    ----------
    width : int
        The width r, even, ``>= 2``.
    n, k, s : int
        ``1 <= k <= s <= n``.

    Returns
    -------
    Fraction
        mu.

    Examples
    --------
    >>> from theory.sparse_init import lemma_c10_mean
    >>> print(lemma_c10_mean(1640, 15, 2, 9))
    369/10
    """
    r, n_, k_, s_ = _as_int(width, "width"), _as_int(n, "n"), _as_int(k, "k"), _as_int(s, "s")
    if r < 2 or r % 2:
        raise InputError(f"width must be even and >= 2, got {format_count(r)}", param="width")
    if not 1 <= k_ <= s_ <= n_:
        raise InputError(f"need 1 <= k <= s <= n, got n = {n_}, k = {k_}, s = {s_}")
    check_cost(
        k_ * math.log10(2 * n_),
        MAX_DIGITS,
        param="k",
        value=k_,
        what="the exact (s/(2n))^k (its denominator has about k log10(2n) digits)",
        hint="use a smaller k or n",
        log10=True,
    )
    return Fraction(r, 2 * k_) * Fraction(s_, 2 * n_) ** k_


def lemma_c10_chernoff_bound(mu: FractionLike) -> sympy.Expr:
    r"""exp(-mu/10), the right-hand side of both Chernoff inequalities of the proof of Lemma C.10. For X ~ Binomial with
    mean mu, the multiplicative Chernoff bounds with deviation 1/2 give
    :math:`P(X \le \mu/2) \le e^{-\mu/8} \le e^{-\mu/10}` and
    :math:`P(X \ge 3\mu/2) \le e^{-(1/2)^2\mu/(2+1/2)} = e^{-\mu/10}`: the corrected inequalities bound the lower tail
    below mu/2 and the upper tail above 3 mu/2. As printed, the proof bounds :math:`P(r'_i > \mu/2)` and
    :math:`P(r'_i < 3\mu/2)`, events of probability close to 1 (docs/sparse_parity.md, errata).

    Parameters
    ----------
    mu : float, Fraction or str
        The mean, ``> 0``.

    Returns
    -------
    sympy.Expr
        ``exp(-mu/10)``, exact.

    Examples
    --------
    >>> from theory.sparse_init import lemma_c10_chernoff_bound
    >>> lemma_c10_chernoff_bound(10)
    exp(-1)
    """
    m = as_fraction(mu, "mu")
    if m <= 0:
        raise InputError(f"mu (a mean count) must be > 0, got mu = {mu!r:.80}", param="mu")
    return sympy.exp(-sympy.Rational(m.numerator, m.denominator) / 10)


def lemma_c7_bound(w: Iterable[FractionLike], differences: Iterable[Iterable[FractionLike]]) -> sympy.Expr:
    r"""The right-hand side of Lemma C.7, :math:`\|w\|_2\,\|\psi-\psi'\|_{\infty,2}
    = \|w\|_2 \max_x \|\psi(x)-\psi'(x)\|_2`, exact, from the rows :math:`\psi(x)-\psi'(x)` at the points x of the
    distribution's support (or of the sample).

    Parameters
    ----------
    w : iterable of numbers
        The readout (read exactly by :class:`fractions.Fraction`).
    differences : iterable of iterables of numbers
        One row psi(x) - psi'(x) per point, each of len(w).

    Returns
    -------
    sympy.Expr
        ``sqrt(sum w_i^2 * max_x sum_j d_xj^2)``.

    Examples
    --------
    >>> from theory.sparse_init import lemma_c7_bound
    >>> lemma_c7_bound([3, 4], [[1, 0], [0, "1/2"]])
    5
    """
    wv = [as_fraction(a, "w") for a in w]
    rows = [[as_fraction(a, "differences") for a in row] for row in differences]
    if not wv or not rows:
        raise InputError("need a non-empty readout w and at least one row of differences")
    if any(len(row) != len(wv) for row in rows):
        raise InputError(f"every row of differences must have len(w) = {len(wv)} entries", param="differences")
    check_cost(
        len(rows) * len(wv),
        MAX_EXACT_ENTRIES,
        param="differences",
        value=len(rows) * len(wv),
        what="the exact entries",
        hint="use fewer points",
    )
    w2 = sum((a * a for a in wv), Fraction(0))
    d2 = max(sum((a * a for a in row), Fraction(0)) for row in rows)
    return sympy.sqrt(sympy.Rational(w2.numerator, w2.denominator) * sympy.Rational(d2.numerator, d2.denominator))


# --------------------------------------------------------------------------------------------------
# Lemmas C.8 and C.9 (App. C.2.2): the convex phase of Thm C.11 on the ideal features of Lemma C.6
# --------------------------------------------------------------------------------------------------
def lemma_c6_constants(k: object) -> dict[str, sympy.Expr]:
    r"""The ideal features of Lemma C.6 for even k: :math:`\psi^*(x) = (1, \mathrm{ReLU}(\pm s_x/(2k)+\beta_j))_{j}`,
    :math:`s_x = \sum_{i\in S}x_i`, :math:`\beta_j = (-k+2j+1/16)/(2k)`, j = 0..k/2-1 (the corrected index set,
    ``theory.interpolation.c6_features``): the readout :math:`w^*` with :math:`\langle\psi^*(x), w^*\rangle=\chi_S(x)`,
    its norm :math:`B_k = \|w^*\|_2` and :math:`\|\psi^*\|_{\infty,2} = \max_x\|\psi^*(x)\|_2`, exact.

    Parameters
    ----------
    k : int
        The parity degree, even, ``k >= 2``.

    Returns
    -------
    dict
        ``weights`` (list of sympy numbers), ``B`` and ``psi_norm`` (sympy).

    Examples
    --------
    >>> from theory.sparse_init import lemma_c6_constants
    >>> c = lemma_c6_constants(2)
    >>> c["weights"], c["B"], c["psi_norm"]
    ([-1, 128, 128], 3*sqrt(3641), sqrt(4097)/64)
    """
    from .interpolation import c6_features

    th = c6_features(k)
    if not th["lsq"].exact:
        raise InputError(f"the Lemma C.6 features do not interpolate chi at k = {k}", param="k")
    w = list(th["lsq"].weights)  # exact (checked above); never nsimplify: it can turn a rational into a radical
    Phi = th["Phi"]
    norms = [sum(Phi[i, j] ** 2 for j in range(Phi.shape[1])) for i in range(Phi.shape[0])]
    return {
        "weights": w,
        "B": sympy.sqrt(sum(c**2 for c in w)),
        "psi_norm": sympy.sqrt(max(norms)),
    }


MAX_STEPS_TARGET = 10**300
"""Largest right-hand side 100 (psi_norm + 1/B)^2 / eps^2 of :func:`lemma_c9_steps` (T / ln T above it puts T beyond
the float range)."""


def _norms_and_eps(psi_norm: object, B: object, eps: object) -> tuple[Fraction, Fraction, Fraction]:
    """psi_norm > 0, B > 0 and eps in (0, 1/2) of Lemma C.9, read exactly (NaN, infinities and non-numbers refused)."""
    p, b, e = as_fraction(psi_norm, "psi_norm"), as_fraction(B, "B"), as_fraction(eps, "eps")
    if not (p > 0 and b > 0 and 0 < e < Fraction(1, 2)):
        raise InputError(f"need psi_norm > 0, B > 0 and eps in (0, 1/2), got {psi_norm!r}, {B!r}, {eps!r}")
    return p, b, e


def _smallest_reaching(f: Callable[[int], float], target: float, start: int) -> int:
    """The smallest integer ``T >= start`` with ``f(T) >= target``, for ``f`` increasing on ``[start, inf)``: ``T``
    doubles from ``start`` until ``f(T)`` reaches the target, then the last doubling is bisected."""
    lo, hi = start, start
    while f(hi) < target:
        lo, hi = hi, 2 * hi
    while lo < hi:
        mid = (lo + hi) // 2
        if f(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return hi


@fill_doc(_DOC)
def lemma_c9_steps(psi_norm: float, B: float, eps: float) -> int:
    r"""The smallest T >= 3 with :math:`T/\ln T \ge 100(\|\psi\|_{\infty,2} + 1/B)^2/\varepsilon^2` (Lemma C.9's step
    count; T / ln T increases for T >= 3). Floating point.

    {{c9_steps}}

    Examples
    --------
    >>> import math
    >>> from theory.sparse_init import lemma_c9_steps
    >>> T = lemma_c9_steps(1.0, 10.0, 0.25)  # T / ln T >= 1936
    >>> T / math.log(T) >= 1936 > (T - 1) / math.log(T - 1)
    True
    """
    p, b, e = _norms_and_eps(psi_norm, B, eps)
    target = _float_formula(
        lambda: 100 * (float(p) + 1 / float(b)) ** 2 / float(e) ** 2,
        f"Lemma C.9's T / ln T >= 100 (psi_norm + 1/B)^2 / eps^2 at psi_norm = {psi_norm!r:.40}, B = {B!r:.40}, "
        f"eps = {eps!r:.40}",
    )
    if target > MAX_STEPS_TARGET:
        raise InputError(
            f"Lemma C.9's T / ln T >= {target:.3g} is above {MAX_STEPS_TARGET:.0e} (T then leaves the float range); "
            f"use a larger B or eps or a smaller psi_norm",
            param="eps",
        )
    return _smallest_reaching(lambda T: T / math.log(T), target, 3)


@fill_doc(_DOC)
def lemma_c9_sample_size(psi_norm: float, B: float, eps: float, delta: FractionLike) -> int:
    r"""Lemma C.9's :math:`m = \lceil (4\sqrt2 B\|\psi\|_{\infty,2}+1)^2\ln(2/\delta)/\varepsilon^2 \rceil`. Floating point.

    Parameters
    ----------
    {{c9_norms_eps}}
    {{delta_m}}

    Examples
    --------
    >>> from theory.sparse_init import lemma_c9_sample_size
    >>> lemma_c9_sample_size(1.0, 1.0, 0.25, "0.5")  # (4 sqrt 2 + 1)^2 ln 4 / 0.0625 = 982.6
    983
    """
    p, b, e = _norms_and_eps(psi_norm, B, eps)
    d = float(_check_delta(delta))
    m = _float_formula(
        lambda: (4 * math.sqrt(2) * float(b) * float(p) + 1) ** 2 * math.log(2 / d) / float(e) ** 2,
        f"Lemma C.9's sample size at psi_norm = {psi_norm!r:.40}, B = {B!r:.40}, eps = {eps!r:.40}",
    )
    return math.ceil(m)


def lemma_c8_gap(B: float, psi_norm: float, m: int, delta: FractionLike, distance: float) -> float:
    r"""Lemma C.8's excess :math:`(2B\|\psi\|_{\infty,2}+1)\sqrt{2\ln(2/\delta)}/\sqrt m + 2B\|\psi-\psi'\|_{\infty,2}`:
    with probability >= 1 - delta over the sample, :math:`L_D(h) \le L_S(h)` + this for every h of norm <= B over any
    :math:`\psi'`. Floating point.

    Parameters
    ----------
    B, psi_norm : float
        The class's norm bound and :math:`\|\psi\|_{\infty,2}`, ``> 0``.
    m : int
        The sample size, ``>= 1``.
    delta : float, Fraction or str
        The failure probability, in (0, 1).
    distance : float
        :math:`\|\psi-\psi'\|_{\infty,2}`, ``>= 0``.

    Returns
    -------
    float
        The excess.

    Examples
    --------
    >>> from theory.sparse_init import lemma_c8_gap
    >>> round(lemma_c8_gap(1.0, 1.0, 100, "0.5", 0.0), 6)  # 3 sqrt(2 ln 4) / 10
    0.499533
    """
    b, p, m_, dist = (
        as_fraction(v, name) for v, name in ((B, "B"), (psi_norm, "psi_norm"), (m, "m"), (distance, "distance"))
    )
    if not (b > 0 and p > 0 and m_ >= 1 and dist >= 0):
        raise InputError(f"need B, psi_norm > 0, m >= 1, distance >= 0, got {B!r}, {psi_norm!r}, {m!r}, {distance!r}")
    d = float(_check_delta(delta))
    return _float_formula(
        lambda: (
            (2 * float(b) * float(p) + 1) * math.sqrt(2 * math.log(2 / d)) / math.sqrt(m_) + 2 * float(b) * float(dist)
        ),
        f"Lemma C.8's excess at B = {B!r:.40}, psi_norm = {psi_norm!r:.40}, m = {m!r:.40}, distance = {distance!r:.40}",
    )


@fill_doc(_DOC)
def lemma_c9_steps_corrected(psi_norm: float, B: float, eps: float) -> int:
    r"""The step count Lemma C.9's proof needs: the smallest T >= 1 with
    :math:`100 B^2(\|\psi\|_{\infty,2} + \varepsilon/B)^2(1+\ln T)/(\varepsilon T) \le \varepsilon`, i.e.
    :math:`T/(1+\ln T) \ge 100(B\|\psi\|_{\infty,2} + \varepsilon)^2/\varepsilon^2` (T / (1 + ln T) increases for
    T >= 1). Floating point.

    Source: Edelman thesis, App. C.2.2, proof of Lemma C.9. With :math:`\lambda = \varepsilon/B^2` its bound reads
    :math:`L(w_T) \le 2\varepsilon + B\|\psi\|\sqrt{2\ln(2/\delta)}/\sqrt m + 100B^2(\|\psi\| + \varepsilon/B)^2
    (1+\ln T)/(\varepsilon T)` (:func:`lemma_c9_objective_bound`), and "L(w_T) <= 4 eps" needs the last term to be at
    most eps, which is this condition. The lemma and the proof's "So, if ..." print
    :math:`T/\ln T \ge 100(\|\psi\| + B^{-1})^2/\varepsilon^2` (:func:`lemma_c9_steps`), about :math:`B^2` times
    fewer steps. This count depends on :math:`\psi` and B only through :math:`B\|\psi\|_{\infty,2}`, as the proof's GD
    does (it is unchanged by :math:`\psi \to c\psi`, :math:`B \to B/c`); the printed one is not.

    {{c9_steps}}

    Examples
    --------
    >>> import math
    >>> from theory.sparse_init import lemma_c9_steps_corrected
    >>> T = lemma_c9_steps_corrected(1.0, 1.0, 0.25)  # T / (1 + ln T) >= 100 (1.25)^2 / 0.0625 = 2500
    >>> T / (1 + math.log(T)) >= 2500 > (T - 1) / (1 + math.log(T - 1))
    True
    """
    p, b, e = _norms_and_eps(psi_norm, B, eps)
    target = _float_formula(
        lambda: 100 * (float(b) * float(p) + float(e)) ** 2 / float(e) ** 2,
        f"Lemma C.9's corrected T / (1 + ln T) >= 100 (B psi_norm + eps)^2 / eps^2 at psi_norm = {psi_norm!r:.40}, "
        f"B = {B!r:.40}, eps = {eps!r:.40}",
    )
    if target > MAX_STEPS_TARGET:
        raise InputError(
            f"Lemma C.9's corrected T / (1 + ln T) >= {target:.3g} is above {MAX_STEPS_TARGET:.0e} (T then leaves the "
            f"float range); use a larger eps or a smaller B psi_norm",
            param="eps",
        )
    return _smallest_reaching(lambda T: T / (1 + math.log(T)), target, 1)


@fill_doc(_DOC)
def lemma_c9_conclusion(B: float, eps: float) -> dict[str, float]:
    r"""Lemma C.9's conclusion (Edelman thesis, App. C.2.2): the returned :math:`h` has :math:`L_D(h) \le 7\varepsilon`,
    and in its proof :math:`\|w_T\|^2 \le 8B^2`, so :math:`\|w_T\| \le \sqrt8\,B`.

    Parameters
    ----------
    B : float
        The norm bound of the comparator :math:`w^*` (``> 0``).
    eps : float
        The accuracy :math:`\varepsilon`, in (0, 1/2).

    Returns
    -------
    dict
        ``risk_bound`` (:math:`7\varepsilon`) and ``norm_bound`` (:math:`\sqrt8\,B`).

    Raises
    ------
    ValueError
        For ``B`` not in (0, 1e300] or ``eps`` not in (0, 1/2).

    Examples
    --------
    >>> from theory.sparse_init import lemma_c9_conclusion
    >>> lemma_c9_conclusion(1.0, 0.1)
    {'risk_bound': 0.7000000000000001, 'norm_bound': 2.8284271247461903}
    """
    _, b, e = _norms_and_eps(1, B, eps)
    if b > 10**300:
        raise InputError(f"B must be at most 1e300 (a float), got {B!r:.40}", param="B")
    return {"risk_bound": float(7 * e), "norm_bound": math.sqrt(8) * float(b)}


def lemma_c9_objective_bound(
    psi_norm: float, B: float, eps: float, delta: FractionLike, m: int, T: int, lam: float | None = None
) -> float:
    r"""The proof of Lemma C.9's bound on the regularised objective
    :math:`L(w) = L_S(h_{\varphi^{(1)},w}) + \frac\lambda2\|w\|^2` after T steps of GD (step :math:`1/(\lambda t)`),
    before its last simplification:

    .. math:: L(w_T) \le 2\varepsilon + \frac{B\|\psi\|_{\infty,2}\sqrt{2\ln(2/\delta)}}{\sqrt m}
              + \frac{\lambda B^2}{2} + \frac{100(\|\psi\|_{\infty,2} + \varepsilon/B)^2(1+\ln T)}{\lambda T},

    with :math:`\lambda = \varepsilon/B^2` unless given (Edelman thesis, App. C.2.2, proof of Lemma C.9: Claims 2-3,
    with probability >= 1 - delta over the sample, given :math:`\|\varphi^{(1)} - \psi\|_{\infty,2} \le
    \varepsilon/B` and some :math:`\|w^*\| \le B` with :math:`L_D(h_{\psi,w^*}) \le \varepsilon`). The proof
    then needs it to be at most :math:`4\varepsilon`, which gives :math:`\|w_T\|^2 \le 2L(w_T)/\lambda \le 8B^2`.
    Floating point.

    Parameters
    ----------
    {{c9_norms_eps}}
    delta : float, Fraction or str
        The failure probability, in (0, 1).
    m, T : int
        The sample size and the number of steps, ``>= 1``.
    lam : float, optional
        The weight decay, ``> 0``; default :math:`\varepsilon/B^2` (the proof's choice).

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> from theory.sparse_init import lemma_c9_objective_bound
    >>> round(lemma_c9_objective_bound(1.0, 1.0, 0.25, "0.5", 983, 24_000), 4)  # 0.5 + 0.0531 + 0.125 + 0.2887
    0.9668
    """
    p, b, e = _norms_and_eps(psi_norm, B, eps)
    d = float(_check_delta(delta))
    m_, t_ = as_fraction(m, "m"), as_fraction(T, "T")
    if not (m_ >= 1 and t_ >= 1 and m_.denominator == 1 and t_.denominator == 1):
        raise InputError(f"need integers m >= 1 and T >= 1, got m = {m!r:.40}, T = {T!r:.40}", param="T")
    lam_ = e / b**2 if lam is None else as_fraction(lam, "lam")
    if not lam_ > 0:
        raise InputError(f"the weight decay lam must be > 0, got {lam!r:.40}", param="lam")
    try:
        P, Bf, E, L = float(p), float(b), float(e), float(lam_)
    except OverflowError:
        raise InputError(
            f"psi_norm, B and lam must be floats (below about 1e308), got {psi_norm!r:.40}, {B!r:.40}, {lam!r:.40}",
            param="psi_norm",
        ) from None
    return _float_formula(
        lambda: (
            2 * E
            + Bf * P * math.sqrt(2 * math.log(2 / d)) / math.sqrt(float(m_))
            + L * Bf**2 / 2
            + 100 * (P + E / Bf) ** 2 * (1 + math.log(float(t_))) / (L * float(t_))
        ),
        f"Lemma C.9's objective bound at psi_norm = {psi_norm!r:.40}, B = {B!r:.40}, eps = {eps!r:.40}, m = {m!r:.40}, "
        f"T = {T!r:.40}",
    )


def lemma_c10_true_mean(width: object, n: object, k: object, s: object) -> Fraction:
    r"""The mean number of good neurons with one given bias at the Thm C.11 init, with the exact probability of a good
    neuron: :math:`(r/2)\,\binom{n-k}{s-k}/\binom ns / (k/2)` (r/2 independent neurons, S ⊆ supp w with the probability
    of Lemma C.2's proof, one of the k/2 biases of the corrected grid j = 0..k/2-1). Lemma C.10 uses the lower bound
    :math:`(s/2n)^k` for the first factor (and 1/k for the second), :func:`lemma_c10_mean`; the true mean is several
    times larger, so the upper side :math:`|I_j| \le 2r'` of "r'-good" fails for the lemma's r' (docs/sparse_parity.md).

    Parameters
    ----------
    width : int
        The width r, even, ``>= 2``.
    n, k, s : int
        ``1 <= k <= s <= n``, k even.

    Returns
    -------
    Fraction
        The mean.

    Examples
    --------
    >>> from theory.sparse_init import lemma_c10_mean, lemma_c10_true_mean
    >>> print(lemma_c10_true_mean(1640, 15, 2, 9), lemma_c10_mean(1640, 15, 2, 9))
    1968/7 369/10
    """
    r, n_, k_, s_ = _as_int(width, "width"), _as_int(n, "n"), _as_int(k, "k"), _as_int(s, "s")
    if r < 2 or r % 2:
        raise InputError(f"width must be even and >= 2, got {format_count(r)}", param="width")
    if not 1 <= k_ <= s_ <= n_ or k_ % 2:
        raise InputError(f"need 1 <= k <= s <= n with k even, got n = {n_}, k = {k_}, s = {s_}")
    _check_comb_digits(n_, s_)
    return Fraction(r, 2) * Fraction(math.comb(n_ - k_, s_ - k_), math.comb(n_, s_)) / (k_ // 2)


# --------------------------------------------------------------------------------------------------
# Thm C.11 (= Thm 6.4, App. C.2.2): the over-sparse algorithm end to end, its settings from the proof
# --------------------------------------------------------------------------------------------------
@fill_doc(_DOC)
def thm_c11_setting(n: object, k: object, s: object, eps: FractionLike, delta: FractionLike) -> dict[str, object]:
    r"""The settings the proof of Thm C.11 (= Thm 6.4, App. C.2.2) chooses at (n, k, s, eps, delta), and its conclusion.

    * width :math:`r = \lceil 20k(2n/s)^k\ln(2k/\delta)\rceil` (Lemma C.10, :func:`lemma_c10_width`) and the init's
      biases :math:`\beta_j = (-k+2j+1/16)/(2k)`, j = 0..k/2-1 (the corrected index set, docs/sparse_parity.md);
    * first step (Lemma C.6, item 3): weight decay 1 and learning rate :math:`\eta = 1/(2k|C_{k,s}|)` on the
      first-layer weights, 0 elsewhere, :math:`C_{k,s} = \tfrac12\widehat{\mathrm{Maj}}_s(k-1)` and
      :math:`c_{k,s} = \tfrac12\widehat{\mathrm{Maj}}_s(k+1)` the good neuron's population correlations on S and on
      supp w \ S (Lemma C.3); so :math:`\eta C_{k,s} = \pm 1/(2k)`;
    * convex phase (Lemma C.9): weight decay :math:`\lambda = \varepsilon/B_k^2` on the readout, :math:`B_k` the norm
      of the ideal readout (:func:`lemma_c6_constants`), and the printed step count T of Lemma C.9 at
      :math:`\|\psi\|_{\infty,2} = \sqrt{8kr'}` (reported: the proof's step size 1/(lambda t) needs about B_k^2 times
      more, docs/sparse_parity.md);
    * sample size: the larger of Lemma C.5's :math:`4\ln(4nr/\delta)/\tau^2` at the proof's precision
      :math:`\tau = \min(\varepsilon/(4B_k k r' n\eta),\ 1/(16\eta k n))` and Lemma C.9's
      :math:`(4\sqrt2 B_k\|\psi\|_{\infty,2}+1)^2\ln(2/\delta)/\varepsilon^2`, with r' the true mean count of good
      neurons per bias (:func:`lemma_c10_true_mean`; the printed r' is refuted, docs/sparse_parity.md);
    * the sparsity the proof needs, :math:`s \ge 80kB_k^2\ln(2k/\delta)/\varepsilon^2` (reported, ``s_required``);
    * the conclusion: with probability at least 1 - delta, :math:`L_D(h) \le \varepsilon` (hinge loss), ``bound``.

    Parameters
    ----------
    n, k, s : int
        k even, s odd, ``4k < s < n`` (Lemma C.3's k < s/4).
    eps : float, Fraction or str
        epsilon, in (0, 1/2).
    delta : float, Fraction or str
        The failure probability, in (0, 1/2).

    Returns
    -------
    dict
        ``width`` (int), ``biases`` (list of Fractions), ``C``, ``c``, ``eta``, ``lam``, ``bound`` (Fractions), ``B`` (sympy), ``r_prime``
        (Fraction), ``tau`` (float), ``m``, ``T`` (int) and ``s_required`` (float).

    Examples
    --------
    >>> from theory.sparse_init import thm_c11_setting
    >>> st = thm_c11_setting(15, 2, 9, "1/4", "1/10")
    >>> st["width"], st["C"], st["eta"] * st["C"], st["lam"], st["bound"]
    (1640, Fraction(35, 256), Fraction(1, 4), Fraction(1, 131076), Fraction(1, 4))
    >>> f"{st['s_required']:.3g}"  # the sparsity the proof needs, against s = 9
    '3.09e+08'
    """
    n_, k_, s_ = _as_int(n, "n"), _as_int(k, "k"), _as_int(s, "s")
    if k_ < 2 or k_ % 2 or s_ % 2 == 0 or not 4 * k_ < s_ < n_:
        raise InputError(f"Thm C.11 needs k even, s odd and 4k < s < n, got n = {n_}, k = {k_}, s = {s_}")
    e = as_fraction(eps, "eps")
    if not 0 < e < Fraction(1, 2):
        raise InputError(f"eps must lie in (0, 1/2), got eps = {eps!r:.80}", param="eps")
    d = _check_delta(delta)
    if not d < Fraction(1, 2):
        raise InputError(f"delta must lie in (0, 1/2) (Thm C.11), got delta = {delta!r:.80}", param="delta")
    r = lemma_c10_width(n_, k_, s_, d)
    C = majority_coefficient(s_, k_ - 1) / 2
    c = majority_coefficient(s_, k_ + 1) / 2
    eta = 1 / (2 * k_ * abs(C))
    consts = lemma_c6_constants(k_)
    B = consts["B"]
    B2 = as_fraction(sympy.expand(B**2), "B^2")  # a sum of squared rational norms: exact
    r_prime = lemma_c10_true_mean(r, n_, k_, s_)
    Bf, rp, etaf = float(B), float(r_prime), float(eta)
    tau = min(float(e) / (4 * Bf * k_ * rp * n_ * etaf), 1 / (16 * etaf * k_ * n_))
    psi_norm = math.sqrt(8 * k_ * rp)
    m = max(lemma_c5_sample_size(n_, r, tau, d), lemma_c9_sample_size(psi_norm, Bf, float(e), d))
    return {
        "width": r,
        "biases": [Fraction(-k_ + 2 * j, 2 * k_) + Fraction(1, 32 * k_) for j in range(k_ // 2)],
        "C": C,
        "c": c,
        "eta": eta,
        "B": B,
        "lam": e / B2,
        "r_prime": r_prime,
        "tau": tau,
        "m": m,
        "T": lemma_c9_steps(psi_norm, Bf, float(e)),
        "s_required": 80 * k_ * float(B2) * math.log(2 * k_ / float(d)) / float(e) ** 2,
        "bound": e,
    }
