r"""Boolean Fourier analysis on :math:`\{\pm1\}^n` (exact): Majority, Half, Fourier gaps, LTFs, sinusoids.

Source: Edelman thesis Ch. 5 + App. B (Def. 5.4, Lemmas B.1-B.3) and Ch. 6 + App. C (Lemmas C.2,
C.12, Prop. 6.3). Errata and derivations: ``docs/boolean.md``.

Conventions
-----------
* A point of the cube is encoded as an integer ``a`` in ``0..2^n-1``: bit ``i`` of ``a`` set means
  :math:`x_i=-1`, so :math:`x_i=(-1)^{a_i}` (the 0/1 encoding).  :func:`cube` lists the
  points in this order.
* A subset :math:`S\subseteq\{0..n-1\}` (0-based) is given as an iterable of indices or as a bit mask
  (an ``int``).  :math:`\chi_S(x)=\prod_{i\in S}x_i`, so with the encoding above
  :math:`\chi_S(a)=(-1)^{|S\cap a|}` and the vector of all coefficients is the Walsh-Hadamard transform
  of the value vector divided by :math:`2^n` (Sylvester ordering, same as ``sympy.discrete.fwht``).
* Exact values are :class:`fractions.Fraction` (``==`` with sympy ``Rational`` works both ways); values
  involving :math:`\pi` (:func:`rho`, :func:`majority_asymptotic`) are sympy expressions.
* ``Maj_n(k)`` is the coefficient of :math:`\mathrm{Maj}_n` at any k-set (symmetric function).

Hypotheses and errata enforced here
------------------------------------
* ``n >= 0`` integer, ``0 <= k <= n``; brute force refuses ``n > BRUTE_FORCE_MAX_N`` and names the
  closed form to use instead.
* Even n: ``sign(0) = -1`` (App. C.2.3), i.e. :math:`\mathrm{Maj}_n(x)=\mathrm{Maj}_{n+1}(x,-1)`.
* Half_m needs m even; its closed form carries the factor :math:`2^{-m}` missing from Lemma C.12
  (:func:`half_coefficient_as_printed` keeps the printed form for the refuted claim).
* :math:`\rho(k)` has exponent :math:`k^{-3/2}`, not the :math:`k^{-2/3}` of Lemma B.1.
* Lemma C.2's bound (s/2n)^k is false for some s < 2(k-1) (e.g. (n, k, s) = (48, 11, 11), outside
  the lemma's standing assumption 4k < s); :func:`lemma_c2_corrected_bound` gives ((s-k+1)/n)^k, valid always.
* Lemma B.2 (:func:`lemma_b2_bound`) needs k even and n odd (and ``n >= 4k``); for odd k the
  Majority gap is exactly 0 (documented in :func:`majority_gap`), so the bound fails.
* Sizes (checked before any work, ``docs/limits.md``): the exact Majority/Half closed forms accept
  n <= 13287 (:data:`MAX_EXACT_N`: they are integers over 2^n, so at most 4000 digits; ``majority_asymptotic``
  for larger n), the level weights n <= 6643 (integers over 4^n), other exact values at most 4000 digits.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import sympy

from ._checks import (
    MAX_DIGITS,
    MAX_FACTORIAL_N,
    FractionLike,
    InputError,
    LimitError,
    _as_int,
    as_fraction,
    as_number,
    check_cost,
    check_positive_int,
    check_sequence,
    format_count,
    log10_binomial,
    log10_factorial,
)
from ._docstrings import fill_doc, sections

__all__ = [
    "BRUTE_FORCE_MAX_N",
    "SOURCE",
    "as_mask",
    "character",
    "cube",
    "derivative",
    "fourier_coefficient",
    "fourier_coefficients",
    "fourier_gap",
    "gradient_gap",
    "half",
    "half_coefficient",
    "half_coefficient_as_printed",
    "half_full_set_coefficient",
    "influence",
    "lemma_b2_bound",
    "lemma_b2_bound_as_printed",
    "lemma_c2_bound_as_printed",
    "lemma_c2_corrected_bound",
    "lemma_c2_holds",
    "lemma_c2_probability",
    "level",
    "level_weight_exponent",
    "level_weight_exponent_as_printed",
    "level_weights",
    "ltf",
    "ltf_coefficient",
    "majority",
    "majority_asymptotic",
    "majority_coefficient",
    "majority_coefficient_bruteforce",
    "majority_coefficients",
    "majority_gap",
    "majority_gap_closed_form",
    "majority_level_weight",
    "majority_ratio",
    "mask_indices",
    "oscillating_polynomial",
    "parseval_sum",
    "point",
    "random_search_tc_probability",
    "rho",
    "rho_as_printed_exponent",
    "sinusoid_activation",
    "sinusoid_coefficient",
    "sq_gradient_variance_bound",
    "sq_lower_bound_applies",
    "tc_growth_window",
    "thm56_condition",
    "vanishing_gradient_gap",
    "walsh_hadamard",
]

SOURCE = "Edelman thesis Ch. 5-6, App. B-C; docs/boolean.md"
BRUTE_FORCE_MAX_N = 20

MAX_EXACT_N = int(MAX_DIGITS / math.log10(2))
"""Largest n (or m) of the exact Majority/Half closed forms, 13287: Maj_n(k) is a Fourier coefficient of a ±1
function, an integer over 2^n of absolute value <= 1, so its numerator and denominator have at most
n log10(2) + 1 <= MAX_DIGITS digits (Python does not print integers of more than 4300 digits)."""

MAX_LEVEL_WEIGHT_N = MAX_EXACT_N // 2
"""Largest n of :func:`majority_level_weight`, 6643: W^k[Maj_n] <= 1 is an integer over 4^n."""

MAX_RHO_K = 50_000
"""Largest k of :func:`rho` (exact binomials of k bits; above k = 13275 the value is returned unevaluated)."""

MAX_DIMENSION = 10**6
"""Largest n of the point and mask helpers (:func:`point`, :func:`as_mask`, :func:`fourier_gap`: n coordinates,
n-bit masks, n calls of the coefficient function)."""

MAX_SINUSOID_N = 2000
"""Largest number of weights of :func:`sinusoid_coefficient` (a sympy product of n + 1 factors: ~1 s at 2000)."""

MAX_COEFFICIENT_LIST_N = 2000
"""Largest n of :func:`majority_coefficients` (n + 1 exact values)."""

MAX_INTERPOLATION_K = 24
"""Largest k of :func:`oscillating_polynomial` (exact interpolation through k + 1 points; k = 20 takes ~1.5 s)."""

Subset = int | Iterable[int]
Number = int | Fraction


#: Shared docstring entries and sections (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "level_maj": "k : int\n    The level, ``0 <= k <= n``.\n\n" + sections(returns="Fraction\n    ``Maj_n(k)``."),
    "n_k_gap": sections(
        "n : int\n    The dimension, ``n >= 2``.", "k : int\n    The size of the set, ``1 <= k <= n-1``."
    ),
    "fraction_gap": sections(returns="Fraction\n    The gap."),
    "b2_returns": sections(returns="sympy.Expr\n    ``3/100 (n-1)^(-(k-1)/2)``."),
    "nks": sections("n, k, s : int\n    As in :func:`lemma_c2_probability`."),
    "n_k_bool": "n : int\n    The dimension.\nk : int\n    The parity degree, ``0 <= k <= n``.\n\n"
    + sections(returns="bool"),
}


# --------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------
def _check_n(n: object, *, name: str = "n", minimum: int = 0) -> int:
    v = _as_int(n, name)
    if v < minimum:
        raise InputError(
            f"{name} must be an integer >= {minimum} (the cube {{±1}}^{name} needs a "
            f"{'positive' if minimum >= 1 else 'non-negative'} dimension), got {name} = {format_count(v)}",
            param=name,
        )
    return v


def _check_level(n: int, k: object, *, name: str = "k") -> int:
    kk = _as_int(k, name)
    if kk < 0 or kk > n:
        raise InputError(
            f"{name} must satisfy 0 <= {name} <= n (a {name}-set of [n] exists only then), "
            f"got {name} = {format_count(kk)} with n = {format_count(n)}",
            param=name,
        )
    return kk


_ASYMPTOTIC_HINT = "use majority_asymptotic(n, k) = sqrt(2/pi) (k-2)!! n^(-k/2) for large n"


def _check_exact_n(n: int, *, name: str = "n", what: str = "the exact Majority coefficients") -> None:
    check_cost(
        n,
        MAX_EXACT_N,
        param=name,
        value=n,
        what=f"{what} (integers over 2^{name}: up to {name} log10(2) digits, at most {MAX_DIGITS})",
        hint=_ASYMPTOTIC_HINT,
    )


def _check_dimension(n: int, *, name: str = "n", what: str) -> None:
    check_cost(n, MAX_DIMENSION, param=name, value=n, what=what, hint="use a smaller n")


def _check_digits(log10_size: float, *, param: str, value: int, what: str, hint: str) -> None:
    check_cost(log10_size, MAX_DIGITS, param=param, value=value, what=what, hint=hint, log10=True)


def _check_brute(n: int) -> None:
    if n > BRUTE_FORCE_MAX_N:
        hint = "use the closed form majority_coefficient / half_coefficient / ltf_coefficient / sinusoid_coefficient instead"
        raise LimitError(
            f"n = {format_count(n)} is too large for brute force over {{±1}}^n (2^{format_count(n)} points; "
            f"limit n <= {BRUTE_FORCE_MAX_N}); {hint}",
            param="n",
            value=n,
            limit=BRUTE_FORCE_MAX_N,
            hint=hint,
        )


def _exact(value: Any, name: str) -> Any:
    """A value of a caller's function: a float is taken exactly (its binary value; NaN and infinities refused)."""
    return as_fraction(value, name) if isinstance(value, float) else value


def _check_numbers(values: object, name: str) -> list:
    """A caller's sequence of exact numbers (ints, Fractions, floats, sympy numbers), as a list; NaN, infinities,
    strings and other types refused."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InputError(f"{name} must be a sequence of numbers, got {values!r:.80}", param=name)
    out = list(values)
    for v in out:
        numpy_scalar = hasattr(v, "dtype") and getattr(v, "shape", None) == ()
        if (isinstance(v, bool) or not isinstance(v, (int, float, Fraction, sympy.Number))) and not numpy_scalar:
            raise InputError(f"{name} must hold numbers, got {v!r:.80} of type {type(v).__name__}", param=name)
        if isinstance(v, sympy.Basic):
            if v.has(sympy.nan, sympy.zoo) or v.is_finite is False:
                raise InputError(f"{name} must hold finite numbers, got {v}", param=name)
        elif v != v or v in (math.inf, -math.inf):
            raise InputError(f"{name} must hold finite numbers, got {v!r:.80}", param=name)
    return out


def as_mask(S: Subset, n: int) -> int:
    """Bit mask of a subset of ``{0..n-1}`` given as a mask or an iterable of distinct indices.

    Parameters
    ----------
    S : int or iterable of int
        The subset: a bit mask, or distinct 0-based indices.
    n : int
        The dimension: every index must lie in ``0..n-1``.

    Returns
    -------
    int
        The mask with bit ``i`` set iff ``i`` is in S.

    Examples
    --------
    >>> from theory.boolean import as_mask
    >>> as_mask([0, 2], 3), as_mask(0b101, 3)
    (5, 5)
    >>> as_mask([3], 3)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: subset index 3 is outside {0..2} (n = 3; indices are 0-based)
    """
    n = _check_n(n)
    _check_dimension(n, what="the dimension of the subset")
    if isinstance(S, (bool, str, bytes)) or (not isinstance(S, int) and not hasattr(S, "__iter__")):
        raise InputError(f"subset must be an int mask or an iterable of indices, got {S!r:.80}", param="S")
    if isinstance(S, int):
        if S < 0 or S >> n:
            raise InputError(f"subset mask {format_count(S)} is not a subset of {{0..{n - 1}}} (n = {n})", param="S")
        return S
    mask = 0
    for raw in S:
        i = _as_int(raw, "subset index")
        if not 0 <= i < n:
            raise InputError(
                f"subset index {format_count(i)} is outside {{0..{n - 1}}} (n = {n}; indices are 0-based)", param="S"
            )
        if mask >> i & 1:
            raise InputError(f"subset index {i} is repeated; a subset has distinct indices", param="S")
        mask |= 1 << i
    return mask


def mask_indices(mask: int) -> tuple[int, ...]:
    """The indices of the set bits of ``mask``, increasing (the inverse of :func:`as_mask`).

    Parameters
    ----------
    mask : int
        A non-negative bit mask.

    Returns
    -------
    tuple of int
        The 0-based indices i with bit i of ``mask`` set.

    Examples
    --------
    >>> from theory.boolean import as_mask, mask_indices
    >>> mask_indices(0b101)
    (0, 2)
    >>> as_mask(mask_indices(0b1101), 4) == 0b1101
    True
    """
    mask = _check_mask(mask)
    return tuple(i for i, bit in enumerate(reversed(bin(mask)[2:])) if bit == "1")  # O(bits), not O(bits^2)


def _check_mask(mask: object, name: str = "mask") -> int:
    m = _as_int(mask, name)
    if m < 0:
        raise InputError(f"{name} must be a non-negative bit mask, got {format_count(m)}", param=name)
    return m


def level(S: Subset) -> int:
    """|S| for a mask or an iterable.

    Parameters
    ----------
    S : int or iterable of int
        A subset as a bit mask or as indices.

    Returns
    -------
    int
        The number of elements of S.

    Examples
    --------
    >>> from theory.boolean import level
    >>> level([0, 2]), level(0b111)
    (2, 3)
    """
    if isinstance(S, int) and not isinstance(S, bool):
        return bin(_check_mask(S, "S")).count("1")
    if isinstance(S, (bool, str, bytes)) or not hasattr(S, "__iter__"):
        raise InputError(f"S must be an int mask or an iterable of indices, got {S!r:.80}", param="S")
    indices = {_as_int(i, "S") for i in S}
    if any(i < 0 for i in indices):
        raise InputError(f"S must hold 0-based indices (>= 0), got {min(indices)}", param="S")
    return len(indices)


# --------------------------------------------------------------------------------------------------
# cube, characters, brute-force coefficients
# --------------------------------------------------------------------------------------------------
def point(a: int, n: int) -> tuple[int, ...]:
    """The point x with x_i = (-1)^{bit i of a}.

    Parameters
    ----------
    a : int
        The integer code of the point, ``0 <= a < 2^n``.
    n : int
        The dimension.

    Returns
    -------
    tuple of int
        The point of {±1}^n.

    Examples
    --------
    >>> from theory.boolean import point
    >>> point(5, 3)  # 5 = 0b101: x_0 = x_2 = -1
    (-1, 1, -1)
    """
    n = _check_n(n)
    _check_dimension(n, what="the number of coordinates of the point")
    a = _check_mask(a, "a")
    if a.bit_length() > n:
        raise InputError(f"a must satisfy 0 <= a < 2^n (n = {n}), got a = {format_count(a)}", param="a")
    return _point(a, n)


def _point(a: int, n: int) -> tuple[int, ...]:
    return tuple(1 - 2 * (a >> i & 1) for i in range(n))


def cube(n: object) -> list[tuple[int, ...]]:
    """All 2^n points of {±1}^n in the integer-encoding order (bit i set <=> x_i = -1).

    Parameters
    ----------
    n : int
        The dimension, ``0 <= n <= BRUTE_FORCE_MAX_N``.

    Returns
    -------
    list of tuple of int
        The points, ``cube(n)[a] == point(a, n)``.

    Examples
    --------
    >>> from theory.boolean import cube
    >>> cube(2)
    [(1, 1), (-1, 1), (1, -1), (-1, -1)]
    >>> cube(21)
    Traceback (most recent call last):
        ...
    theory._checks.LimitError: n = 21 is too large for brute force over {±1}^n (2^21 points; limit n <= 20); use the
    closed form ...
    """
    n = _check_n(n)
    _check_brute(n)
    return [_point(a, n) for a in range(1 << n)]


def character(S: Subset, x: Sequence[int]) -> int:
    """chi_S(x) = prod_{i in S} x_i (chi_emptyset = 1).

    Parameters
    ----------
    S : int or iterable of int
        The subset (mask or indices).
    x : sequence of int
        A point of {±1}^n.

    Returns
    -------
    int
        ``chi_S(x)``, ±1.

    Examples
    --------
    >>> from theory.boolean import character
    >>> character([0, 2], (-1, 1, -1)), character([], (-1, 1, -1))
    (1, 1)
    """
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__") or not hasattr(x, "__getitem__"):
        raise InputError(f"x must be a point of {{±1}}^n (a sequence of ±1), got {x!r:.80}", param="x")
    if any(isinstance(v, bool) or v not in (1, -1) for v in x):
        raise InputError(f"x must be a point of {{±1}}^n (entries ±1), got {list(x)[:20]!r:.80}", param="x")
    mask = as_mask(S, len(x))
    out = 1
    for i in mask_indices(mask):
        out *= x[i]
    return out


def _values(f: Callable[[tuple[int, ...]], Number], n: int) -> list:
    out = []
    for x in cube(n):
        out.append(_exact(f(x), "f"))  # a float: its exact binary value
    return out


def walsh_hadamard(values: Sequence[Number]) -> list:
    """Unnormalised Walsh-Hadamard transform (Sylvester order), exact, pure Python butterfly O(n 2^n).

    Parameters
    ----------
    values : sequence of int or Fraction
        The values, of length a power of 2.

    Returns
    -------
    list
        The transform (same length, same exact number types). Applying it twice multiplies by the length.

    Examples
    --------
    >>> from theory.boolean import walsh_hadamard
    >>> walsh_hadamard([1, 0, 0, 0])
    [1, 1, 1, 1]
    >>> walsh_hadamard(walsh_hadamard([3, 1, 4, 1]))  # H^2 = 4 I
    [12, 4, 16, 4]
    """
    if hasattr(values, "__len__") and not isinstance(values, (str, bytes)):
        check_cost(
            len(values),
            1 << BRUTE_FORCE_MAX_N,
            param="values",
            value=len(values),
            what="the length N of the exact transform (pure Python, N log N operations)",
            hint="use numerics.walsh for float transforms",
        )
    return _walsh_hadamard(_check_numbers(values, "values"))


def _walsh_hadamard(a: list) -> list:
    N = len(a)
    if N == 0 or N & (N - 1):
        raise InputError(f"the Walsh-Hadamard transform needs a length that is a power of 2, got {N}", param="values")
    h = 1
    while h < N:
        for start in range(0, N, 2 * h):
            for j in range(start, start + h):
                u, v = a[j], a[j + h]
                a[j], a[j + h] = u + v, u - v
        h *= 2
    return a


def fourier_coefficients(f: Callable[[tuple[int, ...]], Number], n: object) -> list[Fraction]:
    """All 2^n coefficients f^(S), indexed by the mask of S, by brute force (exact).

    Parameters
    ----------
    f : callable
        ``f(x)`` for a point x (tuple of ±1) gives an int, Fraction or float (floats are taken exactly).
    n : int
        The dimension, ``0 <= n <= BRUTE_FORCE_MAX_N``.

    Returns
    -------
    list of Fraction
        ``coeffs[mask] = f^(S)``.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficients, majority
    >>> print(*fourier_coefficients(majority, 3))  # Maj_3 = (x0 + x1 + x2 - x0 x1 x2)/2
    0 1/2 1/2 0 1/2 0 0 -1/2
    """
    n = _check_n(n)
    _check_brute(n)
    N = 1 << n
    return [as_fraction(c, "f") / N for c in _walsh_hadamard(_values(f, n))]


def fourier_coefficient(f: Callable[[tuple[int, ...]], Number], n: object, S: Subset) -> Fraction:
    """f^(S) = E_x[f(x) chi_S(x)] by brute force over {±1}^n (exact).

    Parameters
    ----------
    f : callable
        ``f(x)`` for a point x (tuple of ±1) gives an int, Fraction or float.
    n : int
        The dimension, ``0 <= n <= BRUTE_FORCE_MAX_N``.
    S : int or iterable of int
        The subset (mask or 0-based indices).

    Returns
    -------
    Fraction
        The exact coefficient ``f^(S)``.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficient, majority, majority_coefficient
    >>> print(fourier_coefficient(majority, 5, [0, 1, 2]))
    -1/8
    >>> fourier_coefficient(majority, 5, [0, 1, 2]) == majority_coefficient(5, 3)
    True
    """
    n = _check_n(n)
    _check_brute(n)
    mask = as_mask(S, n)
    total = Fraction(0)
    for a in range(1 << n):
        v = _exact(f(_point(a, n)), "f")
        total += -v if bin(a & mask).count("1") & 1 else v
    return total / (1 << n)


def level_weights(coeffs: Sequence[Number], n: object) -> list[Fraction]:
    """W^k[f] = sum_{|S|=k} f^(S)^2 for k = 0..n, from the mask-indexed coefficient list.

    Parameters
    ----------
    coeffs : sequence of int or Fraction
        The 2^n coefficients indexed by mask (as from :func:`fourier_coefficients`).
    n : int
        The dimension.

    Returns
    -------
    list of Fraction
        ``[W^0[f], ..., W^n[f]]``.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficients, level_weights, majority
    >>> print(*level_weights(fourier_coefficients(majority, 3), 3))
    0 3/4 0 1/4
    """
    n = _check_n(n)
    if isinstance(coeffs, (str, bytes)) or not hasattr(coeffs, "__len__"):
        raise InputError(f"coeffs must be a sequence of 2^n numbers, got {coeffs!r:.80}", param="coeffs")
    if n > 62 or len(coeffs) != 1 << n:
        raise InputError(f"expected 2^n coefficients for n = {format_count(n)}, got {len(coeffs)}", param="coeffs")
    W = [Fraction(0)] * (n + 1)
    for mask, c in enumerate(coeffs):
        W[bin(mask).count("1")] += as_fraction(c, "coeffs") ** 2
    return W


def parseval_sum(coeffs: Sequence[Number]) -> Fraction:
    """sum_S f^(S)^2 (= E[f^2] by Parseval).

    Parameters
    ----------
    coeffs : sequence of int or Fraction
        Fourier coefficients.

    Returns
    -------
    Fraction
        The sum of their squares.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficients, majority, parseval_sum
    >>> print(parseval_sum(fourier_coefficients(majority, 5)))  # E[Maj^2] = 1
    1
    """
    if isinstance(coeffs, (str, bytes)) or not hasattr(coeffs, "__iter__"):
        raise InputError(f"coeffs must be a sequence of numbers, got {coeffs!r:.80}", param="coeffs")
    return sum((as_fraction(c, "coeffs") ** 2 for c in coeffs), Fraction(0))


def derivative(f: Callable[[tuple[int, ...]], Number], i: int) -> Callable[[tuple[int, ...]], Fraction]:
    """D_i f(x) = (f(x^{i->1}) - f(x^{i->-1}))/2 = sum_{S∋i} f^(S) chi_{S\\{i}}(x).

    Parameters
    ----------
    f : callable
        A function of a point x (tuple of ±1).
    i : int
        The 0-based coordinate, ``i >= 0``.

    Returns
    -------
    callable
        ``D_i f``, a function of a point giving a Fraction (ValueError if ``i >= len(x)``).

    Examples
    --------
    >>> from theory.boolean import derivative, majority
    >>> D0 = derivative(majority, 0)
    >>> print(D0((1, 1, -1)), D0((1, 1, 1)))  # 1 iff x_0 is pivotal
    1 0
    """
    i = _as_int(i, "i")
    if i < 0:
        raise InputError(f"coordinate i must be >= 0 (0-based), got {format_count(i)}", param="i")
    if not callable(f):
        raise InputError(f"f must be a function of a point of {{±1}}^n, got {f!r:.80}", param="f")

    def Df(x: tuple[int, ...]) -> Fraction:
        if i >= len(x):
            raise InputError(f"coordinate i = {format_count(i)} is outside the input of length {len(x)}", param="i")
        xp = (*x[:i], 1, *x[i + 1 :])
        xm = (*x[:i], -1, *x[i + 1 :])
        return as_fraction(f(xp) - f(xm), "f") / 2

    return Df


def influence(f: Callable[[tuple[int, ...]], Number], n: object, i: int) -> Fraction:
    """Inf_i[f] = E[(D_i f)^2] = sum_{S∋i} f^(S)^2 (brute force, exact).

    Parameters
    ----------
    f : callable
        A function of a point x (tuple of ±1).
    n : int
        The dimension, ``n <= BRUTE_FORCE_MAX_N``.
    i : int
        The 0-based coordinate, ``0 <= i < n``.

    Returns
    -------
    Fraction
        ``Inf_i[f]``.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficients, influence, majority
    >>> print(influence(majority, 3, 0))
    1/2
    >>> c = fourier_coefficients(majority, 3)
    >>> influence(majority, 3, 0) == sum(c[m] ** 2 for m in range(8) if m & 1)
    True
    """
    n = _check_n(n)
    _check_brute(n)
    i = _as_int(i, "i")
    if not 0 <= i < n:
        raise InputError(f"coordinate i must satisfy 0 <= i < n = {n}, got {format_count(i)}", param="i")
    vals = _values(derivative(f, i), n)
    return sum((v * v for v in vals), Fraction(0)) / (1 << n)


# --------------------------------------------------------------------------------------------------
# Majority and Half
# --------------------------------------------------------------------------------------------------
def majority(x: Sequence[int]) -> int:
    """Maj_n(x) = sign(sum x_i) with sign(0) = -1 (App. C.2.3 tie rule; only matters for even n).

    Parameters
    ----------
    x : sequence of int
        A point of {±1}^n.

    Returns
    -------
    int
        ±1.

    Examples
    --------
    >>> from theory.boolean import majority
    >>> majority((1, -1, 1)), majority((1, -1))  # a tie gives -1
    (1, -1)
    """
    return 1 if sum(x) > 0 else -1


def half(x: Sequence[int]) -> int:
    """Half_m(x) = 1[sum x_i = 0] (m even; Half_m = D_n Maj_n with m = n-1).

    Parameters
    ----------
    x : sequence of int
        A point of {±1}^m.

    Returns
    -------
    int
        1 if the coordinates sum to 0, else 0.

    Examples
    --------
    >>> from theory.boolean import cube, derivative, half, majority
    >>> half((1, -1)), half((1, 1))
    (1, 0)
    >>> all(half(x[:2]) == derivative(majority, 2)(x) for x in cube(3))  # Half_2 = D_3 Maj_3
    True
    """
    return 1 if sum(x) == 0 else 0


def _maj_odd(n: int, k: int) -> Fraction:
    if k % 2 == 0:
        return Fraction(0)
    h, j = (n - 1) // 2, (k - 1) // 2
    val = Fraction(math.comb(h, j) * math.comb(n - 1, h), math.comb(n - 1, k - 1) * 2 ** (n - 1))
    return -val if j % 2 else val


@fill_doc(_DOC)
def majority_coefficient(n: object, k: object) -> Fraction:
    """Maj_n(k), closed form (Lemma B.1 / O'Donnell Thm 5.19), exact.

    Odd n: 0 for even k, ``(-1)^((k-1)/2) C((n-1)/2,(k-1)/2)/C(n-1,k-1) 2^-(n-1) C(n-1,(n-1)/2)`` for odd k.
    Even n (tie -> -1): ``Maj_{n+1}(k)`` for odd k and ``-Maj_{n+1}(k+1)`` for even k.

    Parameters
    ----------
    n : int
        The dimension, ``1 <= n <= MAX_EXACT_N`` (13287: Maj_n(k) is an integer over 2^n, at most 4000 digits).
    {{level_maj}}

    Examples
    --------
    >>> from theory.boolean import majority_coefficient
    >>> print(majority_coefficient(5, 1), majority_coefficient(5, 3), majority_coefficient(5, 4))
    3/8 -1/8 0
    >>> majority_coefficient(4, 2) == -majority_coefficient(5, 3)  # even n: the tie rule
    True
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    _check_exact_n(n)
    if n % 2:
        return _maj_odd(n, k)
    return _maj_odd(n + 1, k) if k % 2 else -_maj_odd(n + 1, k + 1)


@fill_doc(_DOC)
def majority_coefficient_bruteforce(n: object, k: object) -> Fraction:
    """E[Maj_n(x) chi_{[k]}(x)] by exhaustive enumeration (exact; integer sum / 2^n).

    Parameters
    ----------
    n : int
        The dimension, ``1 <= n <= BRUTE_FORCE_MAX_N``.
    {{level_maj}}

    Examples
    --------
    >>> from theory.boolean import majority_coefficient, majority_coefficient_bruteforce
    >>> print(majority_coefficient_bruteforce(7, 3))
    -1/16
    >>> all(majority_coefficient_bruteforce(6, k) == majority_coefficient(6, k) for k in range(7))
    True
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    _check_brute(n)
    mask = (1 << k) - 1
    total = 0
    for a in range(1 << n):
        s = n - 2 * bin(a).count("1")
        m = 1 if s > 0 else -1
        total += -m if bin(a & mask).count("1") & 1 else m
    return Fraction(total, 1 << n)


def majority_coefficients(n: object) -> list[Fraction]:
    """[Maj_n(0), ..., Maj_n(n)] from the closed form.

    Parameters
    ----------
    n : int
        The dimension, ``1 <= n <= 2000``.

    Returns
    -------
    list of Fraction
        The n + 1 coefficients, by level.

    Examples
    --------
    >>> from theory.boolean import majority_coefficients
    >>> print(*majority_coefficients(5))
    0 3/8 0 -1/8 0 3/8
    """
    n = _check_n(n, minimum=1)
    check_cost(
        n,
        MAX_COEFFICIENT_LIST_N,
        param="n",
        value=n,
        what="n for the list of all n + 1 exact coefficients",
        hint="majority_coefficient(n, k) gives one level",
    )
    return [majority_coefficient(n, k) for k in range(n + 1)]


def _check_odd_n(n: int, what: str) -> None:
    if n % 2 == 0:
        raise InputError(
            f"{what} needs n odd (the thesis's Majority has no ties), got n = {format_count(n)}; for even n "
            f"use majority_coefficient, which applies the tie rule sign(0) = -1",
            param="n",
        )


def _check_odd_k(k: int, what: str, name: str = "k") -> None:
    if k % 2 == 0:
        raise InputError(
            f"{what} is an odd-k identity (Maj_n(k) = 0 for even k when n is odd), got k = {format_count(k)}",
            param=name,
        )


def majority_ratio(n: object, j: object) -> Fraction:
    """Maj_n(j+2)/Maj_n(j) = -j/(n-j-1) for n odd, j odd, 1 <= j <= n-2 (Lemma B.1 recurrence).

    Parameters
    ----------
    n : int
        The dimension, odd.
    j : int
        The level, odd, ``1 <= j <= n-2``.

    Returns
    -------
    Fraction
        ``-j/(n-j-1)``.

    Examples
    --------
    >>> from theory.boolean import majority_coefficient, majority_ratio
    >>> print(majority_ratio(7, 1))
    -1/5
    >>> majority_ratio(7, 1) == majority_coefficient(7, 3) / majority_coefficient(7, 1)
    True
    >>> majority_ratio(7, 2)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: the ratio identity Maj_n(j+2)/Maj_n(j) = -j/(n-j-1) is an odd-k identity (Maj_n(k) =
    0 for even k when n is odd), got k = 2
    """
    n = _check_n(n, minimum=1)
    _check_digits(
        n.bit_length() * math.log10(2), param="n", value=n, what="the exact ratio -j/(n-j-1)", hint="use a smaller n"
    )
    _check_odd_n(n, "the ratio identity Maj_n(j+2)/Maj_n(j) = -j/(n-j-1)")
    j = _as_int(j, "j")
    _check_odd_k(j, "the ratio identity Maj_n(j+2)/Maj_n(j) = -j/(n-j-1)", name="j")
    if not 1 <= j <= n - 2:
        raise InputError(
            f"the ratio identity needs 1 <= j <= n-2, got j = {format_count(j)}, n = {format_count(n)}", param="j"
        )
    return Fraction(-j, n - j - 1)


def majority_level_weight(n: object, k: object) -> Fraction:
    """W^k[Maj_n] = C(n,k) Maj_n(k)^2 (exact).

    Parameters
    ----------
    n : int
        The dimension, ``1 <= n <= 6643`` (``MAX_LEVEL_WEIGHT_N``: W^k is an integer over 4^n, at most 4000 digits).
    k : int
        The level, ``0 <= k <= n``.

    Returns
    -------
    Fraction
        ``W^k[Maj_n]``.

    Examples
    --------
    >>> from theory.boolean import majority_level_weight
    >>> print(majority_level_weight(3, 1), majority_level_weight(3, 3))
    3/4 1/4
    >>> sum(majority_level_weight(7, k) for k in range(8)) == 1  # Parseval
    True
    >>> majority_level_weight(49999, 24999)
    Traceback (most recent call last):
        ...
    theory._checks.LimitError: n = 49,999 is above the limit n <= 6,643 of the exact level weight W^k[Maj_n] ...
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    check_cost(
        n,
        MAX_LEVEL_WEIGHT_N,
        param="n",
        value=n,
        what=f"the exact level weight W^k[Maj_n] (an integer over 4^n: up to 2n log10(2) digits, at most {MAX_DIGITS})",
        hint="use rho(k), its n -> oo limit, or majority_asymptotic(n, k) for |Maj_n(k)|",
    )
    return math.comb(n, k) * majority_coefficient(n, k) ** 2


def rho(k: object) -> sympy.Expr:
    """lim_{n->oo} W^k[Maj_n] = (2/pi) C(k-1,(k-1)/2)/(k 2^(k-1)) for odd k (Lemma C.3 corrected; docs/boolean.md).

    Order k^{-3/2} (rho(k) k^{3/2} -> (2/pi)^{3/2}); Lemma B.1's k^{-2/3} is wrong (docs/boolean.md).

    Parameters
    ----------
    k : int
        The level, odd, ``1 <= k <= 50000`` (:data:`MAX_RHO_K`).

    Returns
    -------
    sympy.Expr
        ``rho(k)``, a rational multiple of ``1/pi``; for k > 13275, where that rational has more than 4000 digits
        (Python prints at most 4300), the same exact value with the binomial and the power of 2 left unevaluated
        (``float`` and ``sympy.N`` evaluate it).

    Examples
    --------
    >>> from theory.boolean import majority_level_weight, rho
    >>> rho(1), rho(3)
    (2/pi, 1/(3*pi))
    >>> round(float(rho(3)), 4), round(float(majority_level_weight(2001, 3)), 4)
    (0.1061, 0.1062)
    >>> rho(20001), float(rho(20001))
    (2*binomial(20000, 10000)*(1/20001)/(2**20000*pi), 1.7957589850524586e-07)
    """
    k = _as_int(k, "k")
    if k < 1:
        raise InputError(f"rho(k) needs k >= 1, got k = {format_count(k)}", param="k")
    _check_odd_k(k, "rho(k), the limit of W^k[Maj_n],")
    check_cost(
        k,
        MAX_RHO_K,
        param="k",
        value=k,
        what="rho(k) (its exact binomial C(k-1, (k-1)/2) is evaluated by float() and sympy.N)",
        hint="rho(k) ~ (2/pi)^(3/2) k^(-3/2) for large k",
    )
    if (k - 1) * math.log10(2) + math.log10(k) > MAX_DIGITS:  # the rational would not print: keep it unevaluated
        return sympy.Mul(
            2,
            sympy.binomial(k - 1, (k - 1) // 2, evaluate=False),
            sympy.Pow(sympy.Integer(2), -(k - 1), evaluate=False),
            sympy.Rational(1, k),
            1 / sympy.pi,
            evaluate=False,
        )
    return 2 / sympy.pi * sympy.Rational(math.comb(k - 1, (k - 1) // 2), k * 2 ** (k - 1))


def rho_as_printed_exponent(k: object) -> sympy.Expr:
    """The order k^{-2/3} printed in Lemma B.1 (refuted; docs/boolean.md); the true order is k^{-3/2}.

    Parameters
    ----------
    k : int
        The level, ``k >= 1``.

    Returns
    -------
    sympy.Expr
        ``k^(-2/3)``.

    Examples
    --------
    >>> from theory.boolean import rho_as_printed_exponent
    >>> rho_as_printed_exponent(8)
    1/4
    """
    k = _as_int(k, "k")
    if k < 1:
        raise InputError(f"k must be an integer >= 1, got k = {format_count(k)}", param="k")
    _check_digits(
        k.bit_length() * math.log10(2), param="k", value=k, what="the exact value k^(-2/3)", hint="use a smaller k"
    )
    return sympy.Integer(k) ** sympy.Rational(-2, 3)


def level_weight_exponent() -> sympy.Rational:
    """-3/2: the exponent of k in rho(k) ~ (2/pi)^{3/2} k^{-3/2} (O'Donnell Thm 5.22; Lemma B.1 corrected).

    Returns
    -------
    sympy.Rational
        ``-3/2``.

    Examples
    --------
    >>> from theory.boolean import level_weight_exponent
    >>> level_weight_exponent()
    -3/2
    """
    return sympy.Rational(-3, 2)


def level_weight_exponent_as_printed() -> sympy.Rational:
    """-2/3: the exponent of k printed in Lemma B.1 (refuted; docs/boolean.md, errata).

    Returns
    -------
    sympy.Rational
        ``-2/3``.

    Examples
    --------
    >>> from theory.boolean import level_weight_exponent_as_printed
    >>> level_weight_exponent_as_printed()
    -2/3
    """
    return sympy.Rational(-2, 3)


def _double_factorial_odd(m: int) -> int:
    """m!! for odd m >= -1 (with (-1)!! = 1)."""
    out = 1
    while m > 1:
        out *= m
        m -= 2
    return out


def majority_asymptotic(n: object, k: object) -> sympy.Expr:
    """sqrt(2/pi) (k-2)!! n^{-k/2}: the n->oo approximation of |Maj_n(k)| for fixed odd k.

    Parameters
    ----------
    n : int
        The dimension, ``n >= 1``.
    k : int
        The level, odd, ``k <= n``.

    Returns
    -------
    sympy.Expr
        The exact expression.

    Examples
    --------
    >>> from theory.boolean import majority_asymptotic, majority_coefficient
    >>> majority_asymptotic(101, 3)
    sqrt(202)/(10201*sqrt(pi))
    >>> round(float(majority_asymptotic(1001, 1)), 5), round(float(majority_coefficient(1001, 1)), 5)
    (0.02522, 0.02523)
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    _check_odd_k(k, "the asymptotic |Maj_n(k)| ~ sqrt(2/pi) (k-2)!! n^(-k/2)")
    _check_digits(
        max(log10_factorial(k) / 2, k / 2 * math.log10(n)) if k <= MAX_FACTORIAL_N else math.inf,
        param="k",
        value=k,
        what="the exact value (k-2)!! n^(k/2)",
        hint="use a smaller k",
    )
    return sympy.sqrt(2 / sympy.pi) * _double_factorial_odd(k - 2) * sympy.Integer(n) ** sympy.Rational(-k, 2)


def _check_half_m(m: object, name: str = "m") -> int:
    m = _check_n(m, name=name)
    _check_exact_n(m, name=name, what="the exact Half coefficients")
    if m % 2:
        raise InputError(
            f"Half_{name} needs {name} even (sum of {name} signs can be 0 only then), got {name} = {format_count(m)}",
            param=name,
        )
    return m


def half_coefficient(m: object, k: object) -> Fraction:
    """Half_m(T) for |T| = k (Lemma C.12 with the factor 2^{-m} restored; docs/boolean.md).

    0 for odd k; ``(-1)^j C(m/2,j) C(m,m/2) / (C(m,2j) 2^m)`` = Maj_{m+1}(2j+1) for k = 2j.

    Parameters
    ----------
    m : int
        The dimension, even, ``0 <= m <= MAX_EXACT_N``.
    k : int
        The level, ``0 <= k <= m``.

    Returns
    -------
    Fraction
        ``Half_m(T)`` for any T with ``|T| = k``.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficient, half, half_coefficient, majority_coefficient
    >>> print(half_coefficient(4, 2), half_coefficient(4, 3))
    -1/8 0
    >>> half_coefficient(4, 2) == majority_coefficient(5, 3) == fourier_coefficient(half, 4, [0, 1])
    True
    >>> half_coefficient(3, 1)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: Half_m needs m even (sum of m signs can be 0 only then), got m = 3
    """
    m = _check_half_m(m)
    k = _check_level(m, k)
    if k % 2:
        return Fraction(0)
    j, h = k // 2, m // 2
    val = Fraction(math.comb(h, j) * math.comb(m, h), math.comb(m, k) * 2**m)
    return -val if j % 2 else val


def half_coefficient_as_printed(m: object, k: object) -> Fraction:
    """Lemma C.12 as printed, without 2^{-m} (refuted by brute force; docs/boolean.md).

    Parameters
    ----------
    m : int
        The dimension, even.
    k : int
        The level, ``0 <= k <= m``.

    Returns
    -------
    Fraction
        ``2^m Half_m(k)``.

    Examples
    --------
    >>> from theory.boolean import half_coefficient_as_printed
    >>> print(half_coefficient_as_printed(4, 2))  # a 0/1 function has coefficients in [-1, 1]
    -2
    """
    m = _check_half_m(m)
    return half_coefficient(m, k) * 2**m


def half_full_set_coefficient(s: object) -> Fraction:
    """Half_s([s]) = (-1)^{s/2} C(s,s/2)/2^s.

    Parameters
    ----------
    s : int
        The dimension, even.

    Returns
    -------
    Fraction
        ``Half_s([s])``.

    Examples
    --------
    >>> from theory.boolean import half_full_set_coefficient
    >>> print(half_full_set_coefficient(2), half_full_set_coefficient(4))
    -1/2 3/8
    """
    s = _check_half_m(s, name="s")
    return half_coefficient(s, s)


# --------------------------------------------------------------------------------------------------
# Fourier gap, Lemma B.2
# --------------------------------------------------------------------------------------------------
def fourier_gap(
    coeff: Callable[[int], Number] | Sequence[Number] | Mapping[int, Number], n: object, S: Subset
) -> Fraction:
    """gamma_f(S) = min_{i in S} |f^(S\\{i})| - max_{i notin S} |f^(S ∪ {i})| (Definition 5.4).

    ``coeff`` maps a mask to f^(mask): a callable, a mask-indexed list or a dict. Needs 1 <= |S| <= n-1.

    Parameters
    ----------
    coeff : callable, sequence or mapping
        ``f^(mask)`` for every mask.
    n : int
        The dimension, ``n >= 2``.
    S : int or iterable of int
        The set (mask or indices), ``1 <= |S| <= n-1``.

    Returns
    -------
    Fraction
        ``gamma_f(S)``.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficients, fourier_gap, majority, majority_gap
    >>> c = fourier_coefficients(majority, 5)
    >>> print(fourier_gap(c, 5, [0, 1]))
    1/4
    >>> fourier_gap(c, 5, [0, 1]) == majority_gap(5, 2)
    True
    """
    n = _check_n(n, minimum=2)
    mask = as_mask(S, n)  # checks n <= MAX_DIMENSION (n calls of coeff)
    k = bin(mask).count("1")
    if not 1 <= k <= n - 1:
        raise InputError(
            f"the Fourier gap at S needs 1 <= |S| <= n-1 (S has (k-1)-subsets and "
            f"(k+1)-supersets), got |S| = {k}, n = {n}",
            param="S",
        )
    if not callable(coeff) and (isinstance(coeff, (str, bytes)) or not hasattr(coeff, "__getitem__")):
        raise InputError(
            f"coeff must be a function, a sequence or a mapping of masks, got {coeff!r:.80}", param="coeff"
        )

    def get(msk: int) -> Fraction:
        try:
            value = coeff(msk) if callable(coeff) else coeff[msk]
        except (IndexError, KeyError):
            raise InputError(f"coeff has no coefficient at the mask {msk} (n = {n})", param="coeff") from None
        return as_fraction(value, "coeff")

    lower = min(abs(get(mask & ~(1 << i))) for i in range(n) if mask >> i & 1)
    upper = max(abs(get(mask | (1 << i))) for i in range(n) if not mask >> i & 1)
    return lower - upper


@fill_doc(_DOC)
def majority_gap(n: object, k: object) -> Fraction:
    """Exact Fourier gap of Maj_n at any k-set: |Maj_n(k-1)| - |Maj_n(k+1)| (1 <= k <= n-1).

    For odd n and odd k both coefficients are at even levels, so the gap is exactly 0 (Lemma B.2
    does not hold there; docs/boolean.md).  For odd n and even k it equals ``majority_gap_closed_form``.

    {{n_k_gap}}

    {{fraction_gap}}

    Examples
    --------
    >>> from theory.boolean import majority_gap
    >>> print(majority_gap(5, 2), majority_gap(5, 3))
    1/4 0
    """
    n = _check_n(n, minimum=2)
    k = _check_level(n, k)
    if not 1 <= k <= n - 1:
        raise InputError(f"the Majority gap needs 1 <= k <= n-1, got k = {k}, n = {format_count(n)}", param="k")
    return abs(majority_coefficient(n, k - 1)) - abs(majority_coefficient(n, k + 1))


def _check_b2_hypotheses(n: int, k: int, what: str) -> None:
    if n % 2 == 0:
        raise InputError(
            f"{what} needs n odd (hidden assumption of Lemma B.2, docs/boolean.md), got n = {format_count(n)}",
            param="n",
        )
    if k % 2:
        raise InputError(
            f"{what} needs k even (hidden assumption of Lemma B.2, docs/boolean.md); for odd k the "
            f"Majority gap is exactly 0 and the bound fails, got k = {format_count(k)}",
            param="k",
        )
    if k < 2:
        raise InputError(f"{what} needs k >= 2 (k even), got k = {format_count(k)}", param="k")


@fill_doc(_DOC)
def majority_gap_closed_form(n: object, k: object) -> Fraction:
    """(n-2k+1)/(k-1) |Maj_n(k+1)| for odd n, even k, 2 <= k <= n-1 (Lemma B.2 proof, App. B.2.1).

    Parameters
    ----------
    n : int
        The dimension, odd, ``n >= 3``.
    k : int
        The size of the set, even, ``2 <= k <= n-1``.

    {{fraction_gap}}

    Examples
    --------
    >>> from theory.boolean import majority_gap, majority_gap_closed_form
    >>> print(majority_gap_closed_form(9, 4))
    1/64
    >>> all(majority_gap_closed_form(9, k) == majority_gap(9, k) for k in (2, 4, 6, 8))
    True
    """
    n = _check_n(n, minimum=3)
    k = _check_level(n, k)
    _check_b2_hypotheses(n, k, "the closed-form Majority gap (n-2k+1)/(k-1)|Maj_n(k+1)|")
    if k > n - 1:
        raise InputError(f"the closed-form Majority gap needs k <= n-1, got k = {k}, n = {n}", param="k")
    return Fraction(n - 2 * k + 1, k - 1) * abs(majority_coefficient(n, k + 1))


@fill_doc(_DOC)
def lemma_b2_bound(n: object, k: object) -> sympy.Expr:
    """Lemma B.2's bound 0.03 (n-1)^{-(k-1)/2} (exact rational 3/100 times a power).

    Hypotheses enforced: k even, n odd (docs/boolean.md), n >= 4k.

    Parameters
    ----------
    n : int
        The dimension, odd, ``n >= 4k``.
    k : int
        The size of the set, even, ``k >= 2``.

    {{b2_returns}}

    Examples
    --------
    >>> from theory.boolean import lemma_b2_bound, majority_gap
    >>> lemma_b2_bound(9, 2)
    3*sqrt(2)/400
    >>> majority_gap(9, 2) >= lemma_b2_bound(9, 2)
    True
    >>> lemma_b2_bound(13, 3)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: Lemma B.2 needs k even (hidden assumption of Lemma B.2, docs/boolean.md); for odd k
    the Majority gap is exactly 0 and the bound fails, got k = 3
    """
    n = _check_n(n, minimum=1)
    k = _as_int(k, "k")
    _check_b2_hypotheses(n, k, "Lemma B.2")
    if n < 4 * k:
        raise InputError(f"Lemma B.2 needs n >= 4k, got n = {format_count(n)}, k = {format_count(k)}", param="n")
    _check_b2_digits(n, k)
    return sympy.Rational(3, 100) * sympy.Integer(n - 1) ** sympy.Rational(-(k - 1), 2)


@fill_doc(_DOC)
def lemma_b2_bound_as_printed(n: object, k: object) -> sympy.Expr:
    """Lemma B.2's bound 0.03 (n-1)^{-(k-1)/2} as printed: for any fixed k and n >= 4k (no parity hypotheses).

    Refuted for odd k, where the Majority gap is exactly 0 (docs/boolean.md, errata).

    Parameters
    ----------
    n : int
        The dimension, ``n >= 4k``.
    k : int
        The size of the set, ``k >= 1``.

    {{b2_returns}}

    Examples
    --------
    >>> from theory.boolean import lemma_b2_bound_as_printed, majority_gap
    >>> print(lemma_b2_bound_as_printed(13, 3), majority_gap(13, 3))  # the bound exceeds the gap
    1/400 0
    """
    n = _check_n(n, minimum=1)
    k = _as_int(k, "k")
    if k < 1:
        raise InputError(f"Lemma B.2 needs k >= 1, got k = {format_count(k)}", param="k")
    if n < 4 * k:
        raise InputError(f"Lemma B.2 needs n >= 4k, got n = {format_count(n)}, k = {format_count(k)}", param="n")
    _check_b2_digits(n, k)
    return sympy.Rational(3, 100) * sympy.Integer(n - 1) ** sympy.Rational(-(k - 1), 2)


def _check_b2_digits(n: int, k: int) -> None:
    _check_digits(
        (k - 1) / 2 * math.log10(max(n - 1, 1)) if k <= MAX_FACTORIAL_N else math.inf,
        param="k",
        value=k,
        what="the exact value (n-1)^((k-1)/2)",
        hint="use a smaller k",
    )


@fill_doc(_DOC)
def gradient_gap(n: object, k: object) -> Fraction:
    r"""Majority reference in gradient units, :math:`\gamma_{grad}=\tfrac12(|Maj_n(k-1)|-|Maj_n(k+1)|)`.

    For a ReLU neuron at a random sign w (n odd, no bias), :math:`1\{w^\top x>0\}=\tfrac12+\tfrac12
    Maj_n(w\odot x)`, so the population-gradient coordinates are :math:`\tfrac12|Maj_n(k\mp1)|` (Lemma B.3) and
    their gap is half the Majority gap (Prop. B.7, App. B.2.2).

    {{n_k_gap}}

    Returns
    -------
    Fraction
        Half of :func:`majority_gap`.

    Examples
    --------
    >>> from theory.boolean import gradient_gap
    >>> print(gradient_gap(5, 2))
    1/8
    """
    return Fraction(1, 2) * majority_gap(n, k)


def vanishing_gradient_gap(k: object, kind: str) -> Fraction:
    r"""0: the Fourier gap of :math:`g = E[\chi_{[k]}(x)\,x\,\sigma'(w^\top x)]` when parity forces every
    coordinate to vanish (no bias, App. B.3.1); ValueError when it does not.

    ``g_i`` is the coefficient of :math:`\sigma'(w^\top x)` at :math:`[k]\triangle\{i\}`, of size k-1 or k+1.
    ``kind='ltf'`` (:math:`\sigma' = 1\{z>0\}`): :math:`h(x)+h(-x)=1`, so every even level >= 2 vanishes, i.e.
    g = 0 for odd k >= 3 (Fig. B.7). ``kind='cos'``/``'sin'`` (:math:`\sigma'=\cos(cz)` or :math:`\sin(cz)`):
    only even/odd levels survive (:func:`sinusoid_coefficient`), so g = 0 for even/odd k (Fig. B.8).

    Parameters
    ----------
    k : int
        The parity degree.
    kind : {'ltf', 'cos', 'sin'}
        The derivative of the activation.

    Returns
    -------
    Fraction
        0 (ValueError when the gradient does not vanish identically).

    Examples
    --------
    >>> from theory.boolean import vanishing_gradient_gap
    >>> print(vanishing_gradient_gap(3, "ltf"), vanishing_gradient_gap(4, "cos"))
    0 0
    >>> vanishing_gradient_gap(3, "cos")
    Traceback (most recent call last):
        ...
    theory._checks.InputError: the cos gradient does not vanish identically at k = 3
    """
    k = _as_int(k, "k")
    vanishes = {
        "ltf": k >= 3 and k % 2 == 1,
        "cos": k >= 1 and k % 2 == 0,
        "sin": k >= 1 and k % 2 == 1,
    }
    if not isinstance(kind, str) or kind not in vanishes:
        raise InputError(f"kind must be 'ltf', 'cos' or 'sin', got {kind!r:.80}", param="kind")
    if not vanishes[kind]:
        raise InputError(f"the {kind} gradient does not vanish identically at k = {format_count(k)}", param="k")
    return Fraction(0)


# --------------------------------------------------------------------------------------------------
# LTFs and sinusoids
# --------------------------------------------------------------------------------------------------
def _check_ltf(w: Sequence[int], b: FractionLike | sympy.Basic) -> tuple[tuple[int, ...], Fraction]:
    if isinstance(w, (str, bytes)) or not hasattr(w, "__iter__"):
        raise InputError(f"w must be a sequence of sign weights, got {w!r:.80}", param="w")
    w = tuple(w)
    if any(isinstance(v, bool) or v not in (1, -1) for v in w):
        raise InputError(f"the LTF identity needs sign weights w in {{±1}}^n, got w = {w!r:.200}", param="w")
    n = len(w)
    if n % 2 == 0:
        raise InputError(
            f"the LTF identity 1[w.x+b>0] = 1/2 + 1/2 Maj(w⊙x) needs n odd (so |w.x| >= 1), got n = {n}", param="w"
        )
    if isinstance(b, sympy.Basic):
        q = sympy.nsimplify(as_number(b, "b", symbolic=False))
        if not q.is_Rational:
            raise InputError(f"b must be a rational number, got {b}", param="b")
        bq = Fraction(int(q.p), int(q.q))
    else:
        bq = as_fraction(b, "b")
    if not abs(bq) < 1:
        raise InputError(f"the LTF identity needs |b| < 1 (the bias never flips the sign), got b = {b}", param="b")
    return w, bq


def ltf(w: Sequence[int], b: FractionLike = 0) -> Callable[[Sequence[int]], int]:
    """x -> 1[w.x + b > 0].

    Parameters
    ----------
    w : sequence of int
        The weights.
    b : int, float, Fraction or str, optional
        The bias (read exactly by :class:`fractions.Fraction`; default 0).

    Returns
    -------
    callable
        The 0/1-valued function of a point x.

    Examples
    --------
    >>> from theory.boolean import ltf
    >>> f = ltf([1, -1, 1])
    >>> f((1, 1, 1)), f((1, 1, -1))
    (1, 0)
    """
    w = tuple(_check_numbers(w, "w"))
    bq = as_fraction(b, "b")
    return lambda x: 1 if sum(wi * xi for wi, xi in zip(w, x)) + bq > 0 else 0


def ltf_coefficient(w: Sequence[int], b: FractionLike | sympy.Basic, S: Subset) -> Fraction:
    """Coefficient of 1[w.x+b>0] at S: 1/2 at S = ∅, (1/2) chi_S(w) Maj_n(|S|) otherwise (App. B.2.1).

    Hypotheses: w in {±1}^n, n odd, |b| < 1 (then 1[w.x+b>0] = 1/2 + 1/2 Maj_n(w⊙x)).

    Parameters
    ----------
    w : sequence of int
        Sign weights, ``w in {±1}^n``, n odd.
    b : int, float, Fraction, str or sympy number
        The bias, ``|b| < 1``.
    S : int or iterable of int
        The set (mask or indices).

    Returns
    -------
    Fraction
        The coefficient at S.

    Examples
    --------
    >>> from theory.boolean import fourier_coefficient, ltf, ltf_coefficient
    >>> print(ltf_coefficient([1, -1, 1], 0, []), ltf_coefficient([1, -1, 1], "1/2", [1]))
    1/2 -1/4
    >>> ltf_coefficient([1, -1, 1], "1/2", [1]) == fourier_coefficient(ltf([1, -1, 1], "1/2"), 3, [1])
    True
    >>> ltf_coefficient([1, 1, 1], 1, [0])
    Traceback (most recent call last):
        ...
    theory._checks.InputError: the LTF identity needs |b| < 1 (the bias never flips the sign), got b = 1
    """
    w, _ = _check_ltf(w, b)
    n = len(w)
    mask = as_mask(S, n)
    if mask == 0:
        return Fraction(1, 2)
    return Fraction(character(mask, w), 2) * majority_coefficient(n, bin(mask).count("1"))


def sinusoid_coefficient(w: Sequence, c: object, b: object, S: Subset, kind: str = "cos") -> sympy.Expr:
    """Fourier coefficient at T of cos(c w.x + b) (``kind='cos'``) or sin(c w.x + b) (App. B.3.1, Fig. B.8).

    ``cos(c w.x+b)^(T) = Re(e^{ib} i^{|T|}) prod_{j in T} sin(c w_j) prod_{j notin T} cos(c w_j)``;
    ``sin`` uses Im. Exact for sympy inputs, sympy Floats for float inputs.

    Parameters
    ----------
    w : sequence of numbers
        The weights (see :func:`theory._checks.as_number`).
    c, b : number or sympy.Expr
        The frequency and the phase.
    S : int or iterable of int
        The set T (mask or indices).
    kind : {'cos', 'sin'}, optional
        The activation (default ``'cos'``).

    Returns
    -------
    sympy.Expr
        The coefficient at T.

    Examples
    --------
    >>> import sympy
    >>> from theory.boolean import sinusoid_coefficient
    >>> sinusoid_coefficient([1, 1], sympy.pi / 2, 0, [0, 1])  # cos(pi (x0 + x1)/2) = -x0 x1
    -1
    >>> sinusoid_coefficient([1, 1], sympy.pi / 2, 0, [0])
    0
    """
    if not isinstance(kind, str) or kind not in ("cos", "sin"):
        raise InputError(f"kind must be 'cos' or 'sin', got {kind!r:.80}", param="kind")
    w = check_sequence(
        w,
        "w",
        MAX_SINUSOID_N,
        what="the number of weights (a sympy product of one factor per weight)",
        hint="use fewer weights or numerics for float values",
    )
    w = [as_number(v, "w") for v in w]
    n = len(w)
    mask = as_mask(S, n)
    t = bin(mask).count("1")
    c, b = as_number(c, "c"), as_number(b, "b")
    phase = b + sympy.pi * t / 2
    factors = [sympy.cos(phase) if kind == "cos" else sympy.sin(phase)]
    factors += [sympy.sin(c * w[j]) if mask >> j & 1 else sympy.cos(c * w[j]) for j in range(n)]
    return sympy.Mul(*factors)  # one product (a product built factor by factor is O(n^2))


def _check_variable(z: object) -> sympy.Expr:
    if z is None:
        return sympy.Symbol("z")
    if not isinstance(z, sympy.Expr):
        raise InputError(f"z must be a sympy Symbol or expression (or None), got {z!r:.80}", param="z")
    return z


def oscillating_polynomial(k: object, z: sympy.Symbol | None = None) -> sympy.Expr:
    """Degree-k polynomial p_k with p_k(k-2j) = (-1)^j, j = 0..k (Sec. 5.3, the oscillating-polynomial activation).

    Parameters
    ----------
    k : int
        The degree, ``1 <= k <= 24``.
    z : sympy.Symbol, optional
        The variable (default ``Symbol('z')``).

    Returns
    -------
    sympy.Expr
        The expanded polynomial.

    Examples
    --------
    >>> from theory.boolean import oscillating_polynomial
    >>> oscillating_polynomial(2), oscillating_polynomial(3)
    (z**2/2 - 1, z**3/6 - 7*z/6)
    >>> p = oscillating_polynomial(3)
    >>> [p.subs("z", s) for s in (3, 1, -1, -3)]
    [1, -1, 1, -1]
    """
    k = _check_n(k, name="k", minimum=1)
    check_cost(
        k,
        MAX_INTERPOLATION_K,
        param="k",
        value=k,
        what="the degree of the exact interpolating polynomial",
        hint="sinusoid_activation(k) is the closed-form activation with the same values",
    )
    z = _check_variable(z)
    pts = [(k - 2 * j, (-1) ** j) for j in range(k + 1)]
    return sympy.expand(sympy.interpolate(pts, z))


def sinusoid_activation(k: object, z: sympy.Symbol | None = None) -> sympy.Expr:
    """sigma(z) = cos(pi (z-k)/2), which gives sigma(w_S.x) = chi_S(x) (Sec. 5.3, the sinusoidal activation).

    Parameters
    ----------
    k : int
        The parity degree, ``k >= 1``.
    z : sympy.Symbol, optional
        The variable (default ``Symbol('z')``).

    Returns
    -------
    sympy.Expr
        ``cos(pi (z-k)/2)``.

    Examples
    --------
    >>> from theory.boolean import sinusoid_activation
    >>> sigma = sinusoid_activation(3)
    >>> sigma
    cos(pi*(z/2 - 3/2))
    >>> [sigma.subs("z", s) for s in (3, 1, -1, -3)]  # chi_S at sum_S x = s
    [1, -1, 1, -1]
    """
    k = _check_n(k, name="k", minimum=1)
    z = _check_variable(z)
    return sympy.cos(sympy.pi * (z - k) / 2)


# --------------------------------------------------------------------------------------------------
# Ch. 6 bookkeeping
# --------------------------------------------------------------------------------------------------
def _check_c2(n: object, k: object, s: object) -> tuple[int, int, int]:
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    s = _as_int(s, "s")
    if not k <= s <= n:
        raise InputError(
            f"Lemma C.2 needs k <= s <= n, got k = {format_count(k)}, s = {format_count(s)}, n = {format_count(n)}",
            param="s",
        )
    _check_digits(
        max(log10_binomial(n, s), k * math.log10(2 * n) if k <= MAX_FACTORIAL_N else math.inf),
        param="n",
        value=n,
        what="the exact C(n, s) or (2n)^k",
        hint="use a smaller n",
    )
    return n, k, s


def lemma_c2_probability(n: object, k: object, s: object) -> Fraction:
    """P(S ⊆ supp(w)) = C(n-k,s-k)/C(n,s) for a uniform s-subset supp(w) and a fixed k-set S.

    Parameters
    ----------
    n : int
        The dimension, ``n >= 1``.
    k : int
        The size of S, ``0 <= k <= s``.
    s : int
        The size of the support, ``k <= s <= n``.

    Returns
    -------
    Fraction
        ``C(n-k, s-k)/C(n, s)``.

    Examples
    --------
    >>> from theory.boolean import lemma_c2_probability
    >>> print(lemma_c2_probability(8, 2, 4))
    3/14
    """
    n, k, s = _check_c2(n, k, s)
    return Fraction(math.comb(n - k, s - k), math.comb(n, s))


@fill_doc(_DOC)
def lemma_c2_bound_as_printed(n: object, k: object, s: object) -> Fraction:
    """(s/(2n))^k, the lower bound of Lemma C.2, stated under the standing assumption 4k < s <= n of App. C.2.2
    (where it holds); without that assumption it can fail for s < 2(k-1), e.g. (n, k, s) = (48, 11, 11).

    {{nks}}

    Returns
    -------
    Fraction
        ``(s/(2n))^k``.

    Examples
    --------
    >>> from theory.boolean import lemma_c2_bound_as_printed, lemma_c2_probability
    >>> print(lemma_c2_bound_as_printed(8, 2, 4))
    1/16
    >>> lemma_c2_bound_as_printed(48, 11, 11) > lemma_c2_probability(48, 11, 11)
    True
    """
    n, k, s = _check_c2(n, k, s)
    return Fraction(s, 2 * n) ** k


@fill_doc(_DOC)
def lemma_c2_corrected_bound(n: object, k: object, s: object) -> Fraction:
    """((s-k+1)/n)^k <= C(n-k,s-k)/C(n,s) always (each factor (s-i)/(n-i) >= (s-k+1)/n).

    It is >= (s/(2n))^k when s >= 2(k-1), so the printed bound holds in that regime (which contains the
    k < s/4 regime of Lemma C.3 / Thm C.11).

    {{nks}}

    Returns
    -------
    Fraction
        ``((s-k+1)/n)^k``.

    Examples
    --------
    >>> from theory.boolean import lemma_c2_corrected_bound, lemma_c2_probability
    >>> print(lemma_c2_corrected_bound(8, 2, 4))
    9/64
    >>> lemma_c2_corrected_bound(48, 11, 11) <= lemma_c2_probability(48, 11, 11)
    True
    """
    n, k, s = _check_c2(n, k, s)
    return Fraction(s - k + 1, n) ** k


@fill_doc(_DOC)
def lemma_c2_holds(n: object, k: object, s: object) -> bool:
    """Whether C(n-k,s-k)/C(n,s) >= (s/(2n))^k at (n, k, s) (exact comparison).

    Lemma C.2 asserts this under App. C.2.2's standing assumption 4k < s <= n, where it always holds (it
    holds whenever s >= 2(k-1)); outside the assumption it can fail, e.g. at (n, k, s) = (48, 11, 11).

    {{nks}}

    Returns
    -------
    bool
        Whether the printed bound holds at (n, k, s).

    Examples
    --------
    >>> from theory.boolean import lemma_c2_holds
    >>> lemma_c2_holds(8, 2, 4), lemma_c2_holds(48, 11, 11)
    (True, False)
    """
    return lemma_c2_probability(n, k, s) >= lemma_c2_bound_as_printed(n, k, s)


def _check_comb_digits(n: int, k: int, param: str = "n") -> None:
    """The exact C(n, k) refused beyond MAX_DIGITS digits (LimitError naming ``param``, value n) before it is formed."""
    _check_digits(log10_binomial(n, k), param=param, value=n, what="the exact C(n, k)", hint=f"use a smaller {param}")


@fill_doc(_DOC)
def sq_lower_bound_applies(r: object, T: object, tau: object, delta: object, n: object, k: object) -> bool:
    """Prop. 6.3 bookkeeping: r T / (tau^2 delta) <= C(n,k)/2 (r = number of parameters; docs/boolean.md).

    Parameters
    ----------
    r, T, tau, delta : int, Fraction, float or str
        Parameters, queries, tolerance and failure probability (read exactly via ``Fraction(str(.))``).
    {{n_k_bool}}
        Whether ``r T / (tau^2 delta) <= C(n, k)/2``.

    Examples
    --------
    >>> from theory.boolean import sq_lower_bound_applies
    >>> sq_lower_bound_applies(100, 100, "0.1", "0.5", 30, 5), sq_lower_bound_applies(100, 100, "0.1", "0.5", 50, 10)
    (False, True)
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    _check_comb_digits(n, k)
    r, T = _nonnegative(r, "r"), _nonnegative(T, "T")
    tau, delta = _positive(tau, "tau"), _positive(delta, "delta")
    lhs = r * T / (tau**2 * delta)
    return lhs <= Fraction(math.comb(n, k), 2)


def sq_gradient_variance_bound(n: object, k: object) -> Fraction:
    r"""Lemma C.1 (the statistical-query step of Prop. 6.3): for a model with :math:`\|\nabla_\theta h_\theta(x)\|_\infty
    \le 1` at every x and a loss with :math:`\ell'(\hat y, y) = -y + \ell_0(\hat y)`, the population gradient's
    spread over a uniformly random k-parity target is at most :math:`1/\binom{n}{k}`:

    .. math:: \mathbb{E}_{S \sim \binom{[n]}{k}}\big[(g_i(\chi_S, \theta) - \mathbb{E}_x[\ell_0(h_\theta(x))
              \partial_i h_\theta(x)])^2\big] = \binom{n}{k}^{-1} \sum_{|S| = k} \widehat{\partial_i h_\theta}(S)^2
              \le \binom{n}{k}^{-1}

    (Parseval: the level-k Fourier weight of :math:`\partial_i h_\theta` is at most
    :math:`\mathbb{E}_x[(\partial_i h_\theta)^2] \le 1`; attained when :math:`\partial_i h_\theta` is a k-parity).
    Edelman thesis, App. C.2.1, Lemma C.1 (the printed lemma omits the :math:`\mathbb{E}_x` around the subtracted
    term; its proof's first line has it).

    Parameters
    ----------
    n : int
        The dimension, ``n >= 1``.
    k : int
        The parity degree, ``0 <= k <= n``.

    Returns
    -------
    Fraction
        :math:`1/\binom{n}{k}`.

    Raises
    ------
    ValueError
        ``n < 1``, ``k`` outside ``0..n``, or ``C(n, k)`` with more than ``MAX_DIGITS`` digits.

    Examples
    --------
    >>> from theory.boolean import sq_gradient_variance_bound
    >>> sq_gradient_variance_bound(6, 3), sq_gradient_variance_bound(10, 0)
    (Fraction(1, 20), Fraction(1, 1))
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    _check_comb_digits(n, k)
    return Fraction(1, math.comb(n, k))


def _nonnegative(value: object, name: str) -> Fraction:
    """A caller's quantity read exactly as its decimal string (``0.1`` is 1/10), >= 0."""
    q = as_fraction(value, name, floats="decimal")
    if q < 0:
        raise InputError(f"{name} must be >= 0, got {name} = {value!r:.80}", param=name)
    return q


def _positive(value: object, name: str) -> Fraction:
    q = as_fraction(value, name, floats="decimal")
    if q <= 0:
        raise InputError(f"{name} must be > 0, got {name} = {value!r:.80}", param=name)
    return q


@fill_doc(_DOC)
def thm56_condition(D: object, R: object, eps: object, n: object, k: object) -> bool:
    """Thm 5.6 condition D R^2 < eps^2 C(n,k).

    Parameters
    ----------
    D, R, eps : int, Fraction, float or str
        The quantities of Thm 5.6 (read exactly via ``Fraction(str(.))``).
    {{n_k_bool}}
        Whether ``D R^2 < eps^2 C(n, k)``.

    Examples
    --------
    >>> from theory.boolean import thm56_condition
    >>> thm56_condition(1000, 1, "0.1", 20, 5), thm56_condition(1000, 1, "0.1", 40, 10)  # C(20,5) = 15504
    (False, True)
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    _check_comb_digits(n, k)
    D, R, eps = _nonnegative(D, "D"), _nonnegative(R, "R"), _positive(eps, "eps")
    return eps**2 * math.comb(n, k) > D * R**2


def random_search_tc_probability(
    n: int, k: int, fraction: float, seeds: int = 1, min_fraction: float | None = None
) -> dict[str, float]:
    """Random search as the reference of Edelman Fig. 5.2 (Sec. 5.3.2): one uniformly random k-set guessed per step, so its
    success time is T ~ Geom(p), p = 1/C(n,k) (support 1, 2, ...), median m = ⌈ln 2 / -ln(1-p)⌉.

    Returns ``p_early`` = P(T <= ⌊fraction·m⌋) = 1 - (1-p)^⌊fraction·m⌋ and, with ``min_fraction``, the
    probability that all of ``seeds`` i.i.d. runs have T > min_fraction·m (a min/median ratio above
    ``min_fraction``, up to the sample median's fluctuation): (1-p)^{seeds·⌊min_fraction·m⌋}.

    Parameters
    ----------
    n : int
        The dimension.
    k : int
        The parity degree, ``0 <= k <= n`` with ``C(n, k) >= 2``.
    fraction : float
        ``>= 0``; the early-success threshold in units of the median.
    seeds : int, optional
        The number of i.i.d. runs (default 1).
    min_fraction : float or None, optional
        ``>= 0``; adds ``p_all_above_min`` when given.

    Returns
    -------
    dict of str to float
        ``C``, ``p``, ``median``, ``p_early`` and, with ``min_fraction``, ``p_all_above_min``.

    Examples
    --------
    >>> from theory.boolean import random_search_tc_probability
    >>> r = random_search_tc_probability(10, 3, 0.5, seeds=5, min_fraction=0.1)
    >>> r["C"], r["median"], round(r["p_early"], 4), round(r["p_all_above_min"], 4)
    (120.0, 83.0, 0.2904, 0.7155)
    """
    n = _check_n(n, minimum=1)
    k = _check_level(n, k)
    seeds = _as_int(seeds, "seeds")
    if seeds < 1:
        raise InputError(f"seeds must be an integer >= 1, got seeds = {format_count(seeds)}", param="seeds")
    for name, v in (("fraction", fraction), ("min_fraction", min_fraction)):
        if v is None and name == "min_fraction":
            continue
        if (
            isinstance(v, bool)
            or not isinstance(v, numbers.Real)  # int, float, Fraction and numpy reals (np.float32(0.5))
            or (not isinstance(v, numbers.Rational) and not math.isfinite(float(v)))  # a float-like: finite
            or not v >= 0
        ):
            raise InputError(f"{name} must be a finite number >= 0, got {v!r:.80}", param=name)
    log10_C = log10_binomial(n, k)
    if log10_C > 300:
        shown = f"~10^{log10_C:.0f}" if math.isfinite(log10_C) else "beyond 10^(10^300)"
        raise LimitError(
            f"n = {format_count(n)} is too large: C(n, k) = {shown} at k = {format_count(k)} is above the float64 "
            "range (limit 10^300); random search never succeeds at that size",
            param="n",
            value=n,
            limit=300,
        )
    C = math.comb(n, k)
    if C < 2:
        raise InputError(f"random search is trivial for C({n},{k}) = {C}", param="k")
    log_q = math.log1p(-1.0 / C)
    med = math.ceil(math.log(2.0) / -log_q)
    out = {
        "C": float(C),
        "p": 1.0 / C,
        "median": float(med),
        "p_early": -math.expm1(_log_survival(_steps(fraction, med), log_q)),
    }
    if min_fraction is not None:
        out["p_all_above_min"] = math.exp(_log_survival(seeds * _steps(min_fraction, med), log_q))
    return out


def _steps(fraction: float | Fraction, med: int) -> int:
    """floor(fraction * med), exact for ints and Fractions; 10^301 (off the scale) when a float product overflows."""
    x = fraction * med
    return 10**301 if isinstance(x, float) and not math.isfinite(x) else math.floor(x)


def _log_survival(steps: int, log_q: float) -> float:
    """log P(T > steps) = steps log(1-p), -inf once the product leaves the float range (the probability is 0)."""
    return steps * log_q if steps <= 10**300 else -math.inf


def tc_growth_window(n_lo: int, n_hi: int, k: int) -> tuple[float, float]:
    """The window (1, F] of the growth factor t_c(n_hi) / t_c(n_lo) of SGD on (n, k)-sparse parities (Edelman Fig. 5.1):
    ``F = (n_hi / n_lo)^(k-1) ln(n_hi) / ln(n_lo)``, the ratio of the sample complexities O(log(n) / gamma^2) of
    Prop. B.7 at a Fourier gap gamma = Theta(n^(-(k-1)/2)) (Sec. 5.4.1: O~(n^(k-1)) samples, so at a fixed batch
    O~(n^(k-1)) steps). t_c grows with n (the lower end) and no faster than that order (the upper end); random search
    over the k-sets grows like C(n, k) ~ n^k. For even k the order is 1/gamma^2 of :func:`lemma_b2_bound` at the odd
    n + 1; for odd k the Majority gap vanishes and the order is the same power of n.

    Parameters
    ----------
    n_lo, n_hi : int
        The two input sizes, ``2 <= n_lo < n_hi``.
    k : int
        The parity degree, ``k >= 1``.

    Returns
    -------
    tuple of float
        ``(1.0, F)``.

    Examples
    --------
    >>> tc_growth_window(10, 40, 2)
    (1.0, 6.408239965311849)
    >>> tc_growth_window(40, 10, 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: need 2 <= n_lo < n_hi, got n_lo = 40, n_hi = 10
    """
    n_lo = check_positive_int(n_lo, "n_lo", minimum=2)
    n_hi = check_positive_int(n_hi, "n_hi", minimum=2)
    k = check_positive_int(k, "k")
    if n_hi <= n_lo:
        raise InputError(f"need 2 <= n_lo < n_hi, got n_lo = {n_lo}, n_hi = {n_hi}", param="n_hi")
    # logs of the ints (any size), and k - 1 as a float only below 10^300: no OverflowError on the way to the limit
    log_f = math.inf if k > 10**300 else (k - 1) * (math.log(n_hi) - math.log(n_lo))
    log_f += math.log(math.log(n_hi) / math.log(n_lo))
    if log_f > 700:
        raise LimitError(
            f"k = {format_count(k)} is too large: the window's upper end exp({log_f:.3g}) is beyond the float range",
            param="k",
            value=k,
            limit=700,
            hint="use a smaller k",
        )
    ratio = 1.0 if k == 1 else n_hi / n_lo  # below exp(700) here
    return 1.0, ratio ** (k - 1) * math.log(n_hi) / math.log(n_lo)
