r"""Disjoint-PolyNet on the (n, k)-disjoint parity (exact): population gradient, gradient flow, 0-1 error,
loss plateau.

Source: Edelman thesis Sec. 5.4.2 and App. B.2.3 (Lemma B.8, Lemma B.9, Corollary B.10, Thm 5.7);
errata and derivations: ``docs/boolean.md``.

Model: :math:`f(x; w_{1:k}) = \prod_{i=1}^k \langle w_i, x_{P_i}\rangle` with k blocks of size ``n'``; the
relevant coordinate of block i is its first one, :math:`v_i := w_{i,1}`, and :math:`u_i := w_{i,2:n'}`.
Target :math:`y = \chi_S(x) = \prod_i x_{P_i,1}`; correlation loss :math:`\ell = -y f`.

* Population gradient (Sec. 5.4.2): :math:`g_i = -(\prod_{j\ne i} v_j) e_1` (:func:`population_gradient_formula`;
  :func:`population_gradient_symbolic` derives it by exact expectation of the polynomial over the cube).
* Gradient flow :math:`\dot v_i = \prod_{j\ne i} v_j`; for equal init :math:`v_0`:
  :math:`v(t) = (v_0^{2-k}-(k-2)t)^{-1/(k-2)}` (k >= 3), :math:`v_0 e^t` (k = 2) (:func:`flow_solution`,
  :func:`flow_time`, :func:`blowup_time`).
* Exact error (my form of the proof of Lemma B.9, eqs. B.9-B.12): with :math:`U_i = u_i^\top z_i^-`,
  :math:`a_i = P(U_i<|v_i|)`, :math:`b_i = P(U_i>|v_i|)` and :math:`\sigma = \prod_i \mathrm{sign}(v_i)`,
  :math:`\mathrm{err} = 1 - [\prod_i(a_i+b_i) + \sigma\prod_i(a_i-b_i)]/2`; an output exactly 0 counts as an
  error (sign(0) = 0, Lemma B.9). Exact Fractions (:func:`error`).
* Plateau (Thm 5.7 main text): :math:`T(\varepsilon)` = first time the error is <= epsilon along the all-equal flow.
  Along the flow the error depends on v only through comparisons with the integer support of U, so
  :math:`T(\varepsilon)` is found exactly by scanning the support (:func:`first_time_error_at_most`,
  :func:`plateau_ratio`).
* Any init with :math:`\prod_i v_i(0) > 0` (Thm 5.7, full statement: N(0, 1) weights): the flow keeps
  :math:`v_i^2 - v_i(0)^2 = q` common, reached at :math:`t(q) = \int_0^q \tfrac12\prod_i(\gamma+v_i(0)^2)^{-1/2}d\gamma`
  (:func:`flow_time_general`); the first time the error is <= eps is t at the exact crossing shift, found from the
  blocks' sums of irrelevant weights in integers (:func:`first_time_error_at_most_general`,
  :func:`plateau_fraction_general`); the theorem's order :func:`thm57_rate`.
* Online SGD (Thm 5.8, full statement, App. B.2.4): the stated step count :func:`thm58_steps`, the adaptive rate's
  constant :func:`thm58_rate_scale`, Claim B.11's bound :data:`THM58_IRRELEVANT_BOUND` and the growth of the
  relevant weights the induction of Claim B.12 derives (:func:`thm58_relevant_lower_bound`).

Errata / remarks enforced or documented here
--------------------------------------------
* The flow is over i in [k] (the thesis writes [n]).
* In the proof of Lemma B.9, :math:`1-2P(U>|v|) = P(|U|\le|v|)`, not :math:`P(U\le|v|)`.
* Lemma B.9's Berry-Esseen term :math:`c\|u\|_\infty/\|u\|_2^3` is too small: Berry-Esseen for a weighted
  Rademacher sum gives :math:`C\sum_j|u_j|^3/\|u\|_2^3 \le C\|u\|_\infty/\|u\|_2` (order :math:`n'^{-1/2}` for
  ±1 weights, not :math:`n'^{-3/2}`); the printed lower bound fails, e.g. k = 3, n' = 101, v = 2.01
  (:func:`lemma_b9_lower_bound`, ``as_printed=True``; the corrected form uses :math:`2C\sum|u|^3/\|u\|_2^3`
  for the two-sided event, C = 0.56 (Shevtsova 2010)).
* Lemma B.9's upper bound :math:`2\sum_i e^{-v_i^2/\|u_i\|_2^2}` drops the 2 of Hoeffding's exponent
  (:math:`P(U\ge t)\le e^{-t^2/(2\|u\|_2^2)}`); it fails e.g. at k = 3, n' = 8, v = 6.51 (err 0.0230 > 0.0141)
  (:func:`lemma_b9_upper_bound`, ``as_printed=True``).
* Cor. B.10 defines :math:`T(\alpha) = \sup\{t: \mathrm{err}\ge\alpha\}`, which is infinite for alpha = 0; the
  main text's "first time with error <= epsilon" is used (:func:`last_time_error_at_least` gives the sup form
  for alpha > 0). Cor. B.10's proof puts :math:`\gamma^{1/k}` where :math:`(2\gamma)^{1/k}` solves
  :math:`\tfrac12-\tfrac12 p^k = \tfrac12-\gamma` (harmless for the O(.)).
* Plateau functions need odd n': for even n' the sum U of n'-1 signs is odd, so the initial point v = 1 is an atom
  of U (zero outputs at t = 0) and the steps of err(v) sit at odd integers; for small even n' (e.g. 4) the error is
  below 0.49 right after t = 0. (This does not hold for every even n': for large even n', e.g. 100, the first time
  with err <= 0.49 is at v = 3, not t = 0+.)
"""

from __future__ import annotations

import bisect
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import SupportsFloat, SupportsIndex

import sympy

from . import _checks
from ._checks import MAX_DIGITS, MAX_EXACT_ENTRIES, InputError, _as_int, as_number, check_bool, check_cost, format_count
from ._docstrings import fill_doc, sections
from .parity import _log_fraction

__all__ = [
    "BE_CONSTANT",
    "MAX_BLOCK_PATTERNS",
    "MAX_THM58_STEPS",
    "SOURCE",
    "THM58_IRRELEVANT_BOUND",
    "ErrorPiece",
    "block_probabilities",
    "blowup_time",
    "equal_init_error",
    "error",
    "error_pieces",
    "first_time_error_at_most",
    "first_time_error_at_most_general",
    "flow_rhs",
    "flow_solution",
    "flow_time",
    "flow_time_general",
    "last_time_error_at_least",
    "lemma_b8_bounds",
    "lemma_b9_lower_bound",
    "lemma_b9_lower_bound_exact",
    "lemma_b9_upper_bound",
    "plateau_fraction_general",
    "plateau_ratio",
    "plateau_ratio_scaled",
    "population_gradient_formula",
    "population_gradient_symbolic",
    "sum_distribution",
    "thm57_rate",
    "thm58_rate_scale",
    "thm58_relevant_lower_bound",
    "thm58_steps",
    "velocity_at_plateau_end_approx",
]

SOURCE = "Edelman thesis Sec. 5.4.2, App. B.2.3 (Lemmas B.8, B.9, Cor. B.10, Thm 5.7); docs/boolean.md"
BE_CONSTANT = Fraction(56, 100)  # Berry-Esseen constant for non-identical summands (Shevtsova 2010)

MAX_EXACT_BITS = int(MAX_DIGITS / math.log10(2))
"""Largest exponent b of the denominator 2^b of an exact error or probability, 13287 (at most 4000 digits): the
error of k blocks of n' - 1 irrelevant signs is an integer over 2^(k(n'-1)+1)."""

MAX_SYMBOLIC_TERMS = 66_000
"""Largest k^3 n'^(k+1) of :func:`population_gradient_symbolic`: k n' coordinates, each a polynomial of n'^(k-1)
monomials (a product of k factors) in k n' variables (k = 3, n' = 4 gives 6912, ~0.3 s; k = n' = 4 gives 65536,
~3 s)."""

MAX_SYMBOLIC_VARIABLES = 100
"""Largest number of variables k n' of :func:`population_gradient_symbolic` (k = 1, n' = 100: ~2 s)."""

MAX_BLOCKS = 1000
"""Largest number of relevant weights of :func:`flow_rhs` (k products of k - 1 factors)."""

MAX_SCAN_N_PRIME = 15_001
"""Largest n' of the exact scans (:func:`first_time_error_at_most`, :func:`last_time_error_at_least`,
:func:`plateau_ratio`): they tabulate the n' binomials C(n'-1, j) of n' bits (~n'^2 bit operations, ~2 s)."""

MAX_SCAN_COST = 10**10
"""Largest s (k n')^1.585 of the exact scans: s steps, each a k-th power of an n'-bit integer (k n' bits, Karatsuba);
~2 s. The scan for eps stops by v = sqrt(2 n' ln(k/eps)) (Hoeffding: err(v) <= k exp(-v^2/(2 n'))), so
s = min(n', sqrt(2 n' ln(k/eps)) + 4) (eps = 0 needs no powers): eps = 0.49 at k = 6, n' = 10001 is 4 10^9, a tiny eps
(10^-3000) at k = 3, n' = 9179 would be 5 10^10 (~11 s)."""

KARATSUBA = math.log2(3)
"""The exponent of the cost of multiplying big integers (CPython: Karatsuba)."""

MAX_PIECES_COST = 10**11
"""Largest n' (k n')^2 of :func:`error_pieces`: about n' exact fractions over 2^(k(n'-1)+1) to reduce (~1 s)."""

MAX_FLOAT_N_PRIME = 10**300
"""Largest n' of the float approximation :func:`velocity_at_plateau_end_approx` (float range)."""

Rational = int | Fraction


#: Shared docstring entries and sections (:func:`theory._docstrings.fill_doc`).
_K1 = "k : int\n    The number of blocks, ``k >= 1``."
_K2 = "k : int\n    The number of blocks, ``k >= 2``."
_N_PRIME = "n_prime : int\n    The block size, ``n' >= 1``."
_V0 = "v0 : rational, optional\n    The initial value, ``v0 > 0`` (default 1)."
_DOC = {
    "k2_v0": _K2 + "\nv0 : number or sympy.Expr, optional\n    The initial value (default 1).",
    "zero_one_error": sections(returns="Fraction\n    The 0-1 error."),
    "k1_n_prime": sections(_K1, _N_PRIME),
    "k1_n_prime_v0": sections(_K1, _N_PRIME, _V0),
    "k2_n_prime_v0": "\n".join((_K2, _N_PRIME, _V0)),
    "k3_n_prime_eps": sections(
        "k : int\n    The number of blocks, ``k >= 3``.",
        "n_prime : int\n    The block size, odd, ``n' >= 3``.",
        "eps : rational, optional\n    The error level (default 49/100).",
    ),
    "v_u_printed": sections(
        "v : sequence of numbers\n    The relevant weights, with ``prod v_i > 0``.",
        "u : sequence of sequences of numbers\n    The irrelevant weights of each block (non-zero).",
        "as_printed : bool, optional\n    The thesis' form (default False: the corrected one).",
    ),
    "float_bound": sections(returns="float\n    The bound."),
}


# --------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------
def _check_k(k: object, minimum: int = 1, why: str = "") -> int:
    k = _as_int(k, "k")
    if k < minimum:
        raise InputError(
            f"k must be an integer >= {minimum}{' (' + why + ')' if why else ''}, got k = {format_count(k)}", param="k"
        )
    return k


def _check_n_prime(n_prime: object, *, odd: bool = False) -> int:
    m = _as_int(n_prime, "n_prime")
    if m < 1:
        raise InputError(f"n_prime (block size n' = n/k) must be >= 1, got {format_count(m)}", param="n_prime")
    if odd and m % 2 == 0:
        raise InputError(
            f"the plateau quantities need odd n' (got n' = {m}): for even n' the sum U of the n'-1 irrelevant signs "
            f"is odd, so the all-ones init v = 1 is an atom of U: at t = 0 each block outputs exactly 0 with "
            f"probability P(U = -1) > 0 (counted as an error) and the thresholds of err(v) sit at odd integers; "
            f"for small even n' (e.g. n' = 4) the error is already below 0.49 right after t = 0. "
            f"Use odd n'",
            param="n_prime",
        )
    return m


def _check_error_bits(k: int, m: int, *, k_name: str = "k") -> None:
    """The exact error of k blocks of m irrelevant signs is an integer over 2^(km+1): refuse more than
    MAX_EXACT_BITS bits (4000 digits) before any binomial is formed."""
    hint = "use numerics.polynet for float errors, or a smaller k n'"
    check_cost(
        m + 1,
        MAX_EXACT_BITS,
        param="n_prime",
        value=m + 1,
        what=f"the exact error (an integer over 2^(k(n'-1)+1), at most {MAX_DIGITS} digits)",
        hint=hint,
    )
    check_cost(
        k * m + 1,
        MAX_EXACT_BITS,
        param=k_name,
        value=k,
        what=f"the exponent k(n'-1)+1 of the denominator 2^(k(n'-1)+1) of the exact error (n' = {m + 1})",
        hint=hint,
    )


def _hoeffding_v(k: int, m: int, level: Fraction) -> float:
    """A v beyond which err(v) < level along the equal-init flow: err(v) <= k P(U >= v) <= k exp(-v^2/(2m)) for the
    sum U of m signs (Hoeffding), so v = sqrt(2 m ln(k/level)) (with a margin for float rounding)."""
    log_ratio = math.log(k) + math.log(level.denominator) - math.log(level.numerator)
    return math.sqrt(2 * max(m, 1) * max(log_ratio, 0.0)) * (1 + 1e-9) + 2


def _log10_scan_cost(k: int, n_prime: int, level: Fraction) -> float:
    """log10 of s (k n')^1.585: s = min(n', v_H + 4) steps (v_H = _hoeffding_v), each a k-th power of an integer of
    n' bits (k n' bits; Karatsuba)."""
    steps = min(n_prime, _hoeffding_v(k, n_prime - 1, level) + 4)
    return math.log10(steps) + KARATSUBA * (math.log10(k) + math.log10(n_prime))


def _check_scan_cost(k: int, m: int, level: Fraction) -> None:
    """The scans tabulate n' binomials, then raise integers of n' bits to the power k (k n' bits) at each step up to
    where err < level (no powers for level 0)."""
    hint = "numerics.polynet.plateau_numeric gives the float version"
    check_cost(
        m + 1,
        MAX_SCAN_N_PRIME,
        param="n_prime",
        value=m + 1,
        what="the exact scans (a table of n' binomials of n' bits)",
        hint=hint,
    )
    if level == 0:
        return
    by_k = _log10_scan_cost(k, 3, level) > math.log10(MAX_SCAN_COST)
    check_cost(
        _log10_scan_cost(k, m + 1, level),
        math.log10(MAX_SCAN_COST),
        param="k" if by_k else "n_prime",
        value=k if by_k else m + 1,
        what="the work of the exact scan over the atoms of U (s steps, each powers of k n' bits: s (k n')^1.585 with "
        "s = min(n', sqrt(2 n' ln(k/eps)) + 4))",
        hint=hint + "; a larger eps (alpha) stops the scan earlier",
        log10=True,
    )


def _check_power_digits(k: int, *values: Fraction) -> None:
    """v^(2-k) is formed exactly for rational v: refuse more than MAX_DIGITS digits."""
    size = max((math.log10(max(abs(q.numerator), q.denominator, 1)) for q in values), default=0.0)  # 0 for v = 1
    check_cost(
        0 if size == 0 else int((k - 2) * size) + 1 if k <= 10**300 else math.inf,
        MAX_DIGITS,
        param="k",
        value=k,
        what="the number of digits of the exact power v^(k-2)",
        hint="pass a float or a sympy Symbol for v0 to get a float or symbolic value",
        log10=False,
    )


def _rational_of(value: sympy.Expr) -> Fraction | None:
    return Fraction(int(value.p), int(value.q)) if isinstance(value, sympy.Rational) else None


def _rational(x: object, name: str) -> Fraction:
    """A caller's rational: int, Fraction, float (its exact binary value), numeric str or sympy Rational."""
    if isinstance(x, sympy.Basic):
        if not x.is_Rational:
            raise InputError(
                f"{name} must be rational for the exact error (comparisons with the integer support of U), got {x}",
                param=name,
            )
        return Fraction(int(x.p), int(x.q))
    if not isinstance(x, (numbers.Number, str)) and not hasattr(x, "dtype"):
        raise InputError(
            f"{name} must be an int, Fraction, float, str or sympy Rational, got {type(x).__name__}", param=name
        )
    return _checks.as_fraction(x, name)  # bools, NaN, infinities and unbounded strings refused


def _real(x: object, name: str) -> float:
    """A caller's finite float (ints, Fractions, floats, numeric strings)."""
    if isinstance(x, (bool, list, tuple, dict)) or x is None:
        raise InputError(f"{name} must be a real number, got {x!r:.80}", param=name)
    try:
        f = float(_checks.as_fraction(x, name)) if isinstance(x, str) else float(x)  # type: ignore[arg-type]
    except OverflowError:
        raise InputError(f"{name} = {format_count(x)} is beyond the float range", param=name) from None
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a real number, got {x!r:.80}", param=name) from None
    if not math.isfinite(f):
        raise InputError(f"{name} must be finite, got {x!r:.80}", param=name)
    return f


def _reals(xs: object, name: str) -> list[float]:
    """The items of ``xs`` as finite floats (:func:`_real`); a string or a non-iterable is refused."""
    return [_real(x, name) for x in _checks.as_list(xs, name)]


def _positive_product(v: list[float]) -> bool:
    """prod v_i > 0 from the signs (a float product of many small factors underflows to 0)."""
    return all(x != 0 for x in v) and sum(x < 0 for x in v) % 2 == 0


def _finite_result(values: tuple[float, ...], what: str, param: str) -> None:
    if not all(math.isfinite(x) for x in values):
        raise InputError(f"{what} leaves the float range for these inputs: {values}", param=param)


# --------------------------------------------------------------------------------------------------
# population gradient
# --------------------------------------------------------------------------------------------------
def population_gradient_formula(k: object, n_prime: object) -> list[list[sympy.Expr]]:
    """g_i = -(prod_{j != i} v_j) e_1 (Sec. 5.4.2), as sympy expressions in the weights w_{i,j}.

    Returns ``G[i][j]`` = dE[l]/dw_{i,j} with symbols ``w_{i}_{j}`` (0-based; j = 0 is the relevant weight v_i).

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 1``.
    n_prime : int
        The block size n', ``n' >= 1``.

    Returns
    -------
    list of list of sympy.Expr
        The k x n' gradient.

    Examples
    --------
    >>> from theory.polynet import population_gradient_formula
    >>> population_gradient_formula(3, 2)
    [[-w_1_0*w_2_0, 0], [-w_0_0*w_2_0, 0], [-w_0_0*w_1_0, 0]]
    """
    k, m = _check_k(k), _check_n_prime(n_prime)
    check_cost(
        k * (m + k),
        MAX_EXACT_ENTRIES,
        param="k" if k * (1 + k) > MAX_EXACT_ENTRIES else "n_prime",
        value=k if k * (1 + k) > MAX_EXACT_ENTRIES else m,
        what="the number of entries of the k x n' gradient (k n' entries and k products of k - 1 symbols)",
        hint="the gradient is -(prod_{j != i} v_j) e_1 for every block; use smaller k, n'",
    )
    W = _weight_symbols(k, m)
    return [
        [(-sympy.Mul(*[W[l][0] for l in range(k) if l != i]) if j == 0 else sympy.Integer(0)) for j in range(m)]
        for i in range(k)
    ]


def _weight_symbols(k: int, m: int) -> list[list[sympy.Symbol]]:
    return [[sympy.Symbol(f"w_{i}_{j}", real=True) for j in range(m)] for i in range(k)]


def population_gradient_symbolic(k: object, n_prime: object) -> list[list[sympy.Expr]]:
    """The population gradient of l = -chi_S(x) f(x; w) derived symbolically (independent of the formula).

    f is a polynomial in the x's; E_x over {±1}^n of a monomial is 1 if every exponent is even and 0
    otherwise. We expand -chi_S(x) df/dw_{i,j} and reduce each monomial with that rule.
    Cost grows like n'^(k-1) terms per coordinate; meant for small k, n' (e.g. k = 3, n' = 4).

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 1``.
    n_prime : int
        The block size n', with ``k^3 n'^(k+1) <= 66000`` and ``k n' <= 100`` (k n' coordinates, each n'^(k-1)
        monomials in k n' variables).

    Returns
    -------
    list of list of sympy.Expr
        The k x n' gradient, as :func:`population_gradient_formula`.

    Examples
    --------
    >>> from theory.polynet import population_gradient_formula, population_gradient_symbolic
    >>> population_gradient_symbolic(3, 2) == population_gradient_formula(3, 2)
    True
    """
    k, m = _check_k(k), _check_n_prime(n_prime)

    def log10_terms(mm: int) -> float:  # log10 of k^3 n'^(k+1), in log space (k may be astronomically large)
        return 3 * math.log10(k) + (k + 1) * math.log10(mm) if k <= 10**300 else math.inf

    hint = "population_gradient_formula gives the closed form for any k, n'"
    by_k = log10_terms(2) > math.log10(MAX_SYMBOLIC_TERMS)
    check_cost(
        log10_terms(m),
        math.log10(MAX_SYMBOLIC_TERMS),
        param="k" if by_k else "n_prime",
        value=k if by_k else m,
        what="the work k^3 n'^(k+1) of the expansion (k n' coordinates, each n'^(k-1) monomials of a product of k "
        "factors, reduced in k n' variables)",
        hint=hint,
        log10=True,
    )
    by_k = 2 * k > MAX_SYMBOLIC_VARIABLES
    check_cost(
        k * m,
        MAX_SYMBOLIC_VARIABLES,
        param="k" if by_k else "n_prime",
        value=k if by_k else m,
        what="the number of variables k n' of the polynomials whose monomials are reduced",
        hint=hint,
    )
    W = _weight_symbols(k, m)
    X = [[sympy.Symbol(f"x_{i}_{j}") for j in range(m)] for i in range(k)]
    xs = [x for row in X for x in row]
    chi = sympy.Mul(*[X[i][0] for i in range(k)])
    f = sympy.Mul(*[sum(W[i][j] * X[i][j] for j in range(m)) for i in range(k)])
    out = []
    for i in range(k):
        row = []
        for j in range(m):
            poly = sympy.Poly(sympy.expand(-chi * sympy.diff(f, W[i][j])), *xs)
            row.append(sympy.Add(*[c for mon, c in poly.terms() if all(e % 2 == 0 for e in mon)]))
        out.append(row)
    return out


# --------------------------------------------------------------------------------------------------
# gradient flow
# --------------------------------------------------------------------------------------------------
def flow_rhs(v: Sequence) -> list:
    """dv_i/dt = prod_{j != i} v_j (gradient flow of the correlation loss, App. B.2.3, i in [k]).

    Parameters
    ----------
    v : sequence of numbers
        The relevant weights ``v_1..v_k``.

    Returns
    -------
    list
        ``[dv_1/dt, ..., dv_k/dt]``.

    Examples
    --------
    >>> from theory.polynet import flow_rhs
    >>> flow_rhs([1, 2, 3])
    [6, 3, 2]
    """
    v = _checks.check_sequence(
        v,
        "v",
        MAX_BLOCKS,
        what="the number of relevant weights k (k products of k - 1 factors)",
        hint="the equal-init flow is dv/dt = v^(k-1)",
    )
    bits = 0
    for x in v:
        if isinstance(x, str) or not isinstance(x, (numbers.Number, sympy.Basic)):
            raise InputError(f"v must hold numbers or sympy expressions, got {x!r:.80}", param="v")
        q = as_number(x, "v")  # refuses NaN, infinities and zoo; symbols pass
        if isinstance(q, sympy.Rational):
            bits += max(int(q.p).bit_length(), int(q.q).bit_length())
    check_cost(
        bits * math.log10(2),
        MAX_DIGITS,
        param="v",
        value=len(v),
        what="the number of digits of the exact products",
        hint="pass floats for float products",
    )
    return [math.prod(v[:i] + v[i + 1 :]) for i in range(len(v))]


@fill_doc(_DOC)
def flow_solution(t: object, k: object, v0: object = 1) -> sympy.Expr:
    """v(t) for equal init v_i(0) = v0 > 0: (v0^(2-k) - (k-2) t)^(-1/(k-2)) for k >= 3, v0 e^t for k = 2.

    Valid for 0 <= t < T_inf = v0^(2-k)/(k-2) (k >= 3; blow-up at T_inf). Exact sympy expression.

    Parameters
    ----------
    t : number or sympy.Expr
        The time (a symbol gives the formula).
    {{k2_v0}}

    Returns
    -------
    sympy.Expr
        v(t).

    Examples
    --------
    >>> import sympy
    >>> from theory.polynet import flow_solution
    >>> t = sympy.Symbol("t")
    >>> flow_solution(t, 3), flow_solution(t, 4), flow_solution(t, 2)
    (1/(1 - t), 1/sqrt(1 - 2*t), exp(t))
    >>> sympy.simplify(sympy.diff(flow_solution(t, 4), t) - flow_solution(t, 4) ** 3)  # dv/dt = v^(k-1)
    0
    >>> flow_solution(1, 3)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: t = 1 is outside [0, T_inf) with T_inf = v0^(2-k)/(k-2) = 1; the flow blows up at T_inf
    """
    k = _check_k(k, 2, "the equal-init flow is dv/dt = v^(k-1); k = 1 is the trivial dv/dt = 1")
    ts, v0s = as_number(t, "t"), _check_v0(v0)
    if ts.is_number and not ts.is_real:
        raise InputError(f"t must be a real time, got {ts}", param="t")
    if k == 2:
        return v0s * sympy.exp(ts)
    t_inf = blowup_time(k, v0s)
    if ts.is_number and (ts < 0 or ts >= t_inf):
        raise InputError(
            f"t = {ts} is outside [0, T_inf) with T_inf = v0^(2-k)/(k-2) = {t_inf}; the flow blows up at T_inf",
            param="t",
        )
    return (v0s ** (2 - k) - (k - 2) * ts) ** sympy.Rational(-1, k - 2)


@fill_doc(_DOC)
def blowup_time(k: object, v0: object = 1) -> sympy.Expr:
    """T_inf = v0^(2-k)/(k-2) for k >= 3 (sympy.oo for k = 2: exponential growth, no blow-up).

    Parameters
    ----------
    {{k2_v0}}

    Returns
    -------
    sympy.Expr
        T_inf.

    Examples
    --------
    >>> from theory.polynet import blowup_time
    >>> blowup_time(3), blowup_time(4, 2), blowup_time(2)
    (1, 1/8, oo)
    >>> blowup_time(3, v0=0)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: v0 must be > 0 (equal positive init, so prod v_i(0) > 0; at v0 = 0 the flow stays at 0
    and never blows up), got 0
    """
    k = _check_k(k, 2, "blow-up needs k >= 2")
    v0s = _check_v0(v0)
    if k == 2:
        return sympy.oo  # exponential growth v0 e^t: no finite blow-up time (the documented answer, not an error)
    q = _rational_of(v0s)
    if q is not None:
        _check_power_digits(k, q)
    return v0s ** (2 - k) / (k - 2)


def _check_v0(v0: object) -> sympy.Expr:
    """v0 > 0 (a number) or a symbolic expression; NaN, infinities and zoo are refused by as_number."""
    v0s = as_number(v0, "v0")
    if v0s.is_number and not (v0s.is_real and v0s > 0):
        raise InputError(
            f"v0 must be > 0 (equal positive init, so prod v_i(0) > 0; at v0 = 0 the flow stays at 0 and never blows "
            f"up), got {v0s}",
            param="v0",
        )
    return v0s


@fill_doc(_DOC)
def flow_time(v: object, k: object, v0: object = 1) -> Fraction | sympy.Expr:
    """Inverse of the flow: t(v) = (v0^(2-k) - v^(2-k))/(k-2) (k >= 3), log(v/v0) (k = 2), for v >= v0 > 0.

    Exact Fraction when v and v0 are rational and k >= 3.

    Parameters
    ----------
    v : number or sympy.Expr
        The value reached, ``v >= v0``.
    {{k2_v0}}

    Returns
    -------
    Fraction or sympy.Expr
        t(v): a Fraction for int/Fraction v, v0 and k >= 3, a sympy expression otherwise.

    Examples
    --------
    >>> from theory.polynet import flow_solution, flow_time
    >>> print(flow_time(2, 3), flow_time(2, 2))
    1/2 log(2)
    >>> flow_solution(flow_time(3, 4), 4)
    3
    """
    k = _check_k(k, 2, "the equal-init flow needs k >= 2")
    exact = (int, Fraction)
    if isinstance(v, exact) and isinstance(v0, exact) and not isinstance(v, bool) and not isinstance(v0, bool):
        v, v0 = Fraction(v), Fraction(v0)
        if v0 <= 0 or v < v0:
            raise InputError(
                f"flow_time needs v >= v0 > 0 (v only grows along the flow), got v = {v}, v0 = {v0}",
                param="v0" if v0 <= 0 else "v",
            )
        if k == 2:
            return sympy.log(sympy.Rational(v.numerator, v.denominator) / sympy.Rational(v0.numerator, v0.denominator))
        _check_power_digits(k, v, v0)
        return (v0 ** (2 - k) - v ** (2 - k)) / (k - 2)
    vs, v0s = as_number(v, "v"), _check_v0(v0)
    if vs.is_number and not (vs.is_real and vs >= v0s if v0s.is_number else vs.is_real and vs > 0):
        raise InputError(
            f"flow_time needs v >= v0 > 0 (v only grows along the flow), got v = {vs}, v0 = {v0s}", param="v"
        )
    if k == 2:
        return sympy.log(vs / v0s)
    rationals = [q for q in (_rational_of(vs), _rational_of(v0s)) if q is not None]
    _check_power_digits(k, *rationals)
    return (v0s ** (2 - k) - vs ** (2 - k)) / (k - 2)


# --------------------------------------------------------------------------------------------------
# exact error
# --------------------------------------------------------------------------------------------------
def sum_distribution(u: Sequence) -> dict[Fraction, Fraction]:
    """Exact law of U = sum_j u_j z_j with z uniform on {±1}^m: {value: probability} (Fractions).

    All |u_j| equal to c: U = c(m - 2j) with probability C(m, j)/2^m (binomial); otherwise convolution.

    Parameters
    ----------
    u : sequence of rationals
        The weights ``u_j`` (int, Fraction, float, str or sympy Rational, read exactly).

    Returns
    -------
    dict of Fraction to Fraction
        ``{value: probability}``.

    Examples
    --------
    >>> from theory.polynet import sum_distribution
    >>> print(*(f"P(U={x})={p}" for x, p in sorted(sum_distribution([1, 1, 1]).items())))
    P(U=-3)=1/8 P(U=-1)=3/8 P(U=1)=3/8 P(U=3)=1/8
    """
    us = _weights(u, "u")
    m = len(us)
    _check_law_size(us, "u")
    if m and us[0] != 0 and all(abs(x) == abs(us[0]) for x in us):
        c = abs(us[0])
        return {c * (m - 2 * j): Fraction(cj, 2**m) for j, cj in enumerate(_binomial_counts(m))}
    dist = {Fraction(0): Fraction(1)}
    for x in us:
        new: dict[Fraction, Fraction] = {}
        for val, p in dist.items():
            for sgn in (1, -1):
                key = val + sgn * x
                new[key] = new.get(key, Fraction(0)) + p / 2
        dist = new
    return dist


def _weights(u: object, name: str) -> list[Fraction]:
    """The items of ``u`` as exact rationals (:func:`_rational`); a string or a non-iterable is refused."""
    return [_rational(x, name) for x in _checks.as_list(u, name, items="rational weights")]


def _support_bound(us: list[Fraction]) -> int:
    """A bound on the number of values of U = sum_j u_j z_j: 2^m, and (S/g + 1) when the |u_j| lie on a lattice
    g Z / L (S = sum of the |u_j| L): the values are -S/L + 2 t g / L."""
    a = [abs(x) for x in us if x]
    if len(a) <= 17:
        return 2 ** len(a)
    lcm = 1
    for x in a:
        lcm = math.lcm(lcm, x.denominator)
        if lcm.bit_length() > 64:
            return 2 ** len(a)
    ints = [x.numerator * (lcm // x.denominator) for x in a]
    return min(2 ** len(a), sum(ints) // math.gcd(*ints) + 1)


def _check_law_size(us: list[Fraction], name: str) -> None:
    """The exact law of U has probabilities over 2^m and at most _support_bound values, built by m convolutions."""
    hint = "use numerics.polynet for float errors, or fewer or equal irrelevant weights"
    check_cost(
        len(us),
        MAX_EXACT_BITS,
        param=name,
        value=len(us),
        what=f"the number of irrelevant weights m (probabilities over 2^m, at most {MAX_DIGITS} digits)",
        hint=hint,
    )
    if us and us[0] != 0 and all(abs(x) == abs(us[0]) for x in us):
        return  # the binomial law: m + 1 values
    check_cost(
        len(us) * _support_bound(us),
        MAX_EXACT_ENTRIES,
        param=name,
        value=len(us),
        what="the work of the exact convolution (m weights times the number of values of U)",
        hint=hint,
    )


def block_probabilities(v: object, dist: dict[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    """(a, b) = (P(U < |v|), P(U > |v|)) for the law ``dist`` of U (block i answers correctly / wrongly).

    Parameters
    ----------
    v : rational
        The relevant weight v_i.
    dist : dict of Fraction to Fraction
        The law of U_i (:func:`sum_distribution`).

    Returns
    -------
    tuple of Fraction
        ``(a, b)``.

    Examples
    --------
    >>> from theory.polynet import block_probabilities, sum_distribution
    >>> print(*block_probabilities(2, sum_distribution([1, 1, 1])))
    7/8 1/8
    """
    av = abs(_rational(v, "v"))
    if not isinstance(dist, Mapping):
        raise InputError(
            f"dist must be a dict {{value: probability}} (sum_distribution), got {dist!r:.80}", param="dist"
        )
    law = [(_rational(x, "dist"), _rational(p, "dist")) for x, p in dist.items()]
    if any(p < 0 for _, p in law) or sum((p for _, p in law), Fraction(0)) != 1:
        raise InputError("dist must be a probability law (probabilities >= 0 summing to 1)", param="dist")
    return _block_probabilities(av, dict(law))


def _block_probabilities(av: Fraction, dist: dict[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    a = sum((p for x, p in dist.items() if x < av), Fraction(0))
    b = sum((p for x, p in dist.items() if x > av), Fraction(0))
    return a, b


def _irrelevant(k: int, u: Sequence[Sequence] | None, n_prime: object | None) -> list[list[Fraction]]:
    """The irrelevant weights of the k blocks, checked (sizes first) before any law is built."""
    if u is None:
        if n_prime is None:
            raise InputError(
                "give the irrelevant weights u (k sequences) or n_prime (all-ones irrelevant weights)", param="u"
            )
        m = _check_n_prime(n_prime)
        _check_error_bits(k, m - 1, k_name="v")
        return [[Fraction(1)] * (m - 1) for _ in range(k)]
    if isinstance(u, (str, bytes)) or not hasattr(u, "__iter__"):
        raise InputError(f"u must hold one sequence of irrelevant weights per block, got {u!r:.80}", param="u")
    blocks = [_weights(ui, "u") for ui in u]
    if len(blocks) != k:
        raise InputError(f"u must hold one irrelevant-weight vector per block (k = {k}), got {len(blocks)}", param="u")
    _check_blocks(blocks)
    return blocks


def _check_blocks(blocks: list[list[Fraction]]) -> None:
    """Each block's law is built exactly, and the error is a product over blocks of probabilities over 2^(m_i)."""
    for ui in blocks:
        _check_law_size(ui, "u")
    check_cost(
        sum(len(ui) for ui in blocks) + 1,
        MAX_EXACT_BITS,
        param="u",
        value=sum(len(ui) for ui in blocks),
        what=f"the exponent sum_i m_i + 1 of the denominator of the exact error (at most {MAX_DIGITS} digits)",
        hint="use numerics.polynet for float errors",
    )


@fill_doc(_DOC)
def error(v: Sequence, u: Sequence[Sequence] | None = None, *, n_prime: object | None = None) -> Fraction:
    """Exact 0-1 error P[sign f(x) != chi_S(x)] of a disjoint-PolyNet (sign(0) = 0 counts as an error).

    ``err = 1 - [prod_i (a_i + b_i) + sigma prod_i (a_i - b_i)]/2`` with a_i = P(U_i < |v_i|),
    b_i = P(U_i > |v_i|), U_i = u_i . z_i^- and sigma = prod_i sign(v_i) (Lemma B.9 assumes sigma = +1).
    Block i has the right sign w.p. a_i, the wrong sign w.p. b_i, and output 0 w.p. 1 - a_i - b_i,
    independently over blocks; the output is right iff no block is 0 and an even number are wrong.

    ``u``: irrelevant weights per block (rationals); or ``n_prime`` for all-ones irrelevant weights
    (identical law for any ±1 irrelevant weights).

    Parameters
    ----------
    v : sequence of rationals
        The relevant weights ``v_1..v_k`` (read exactly).
    u : sequence of sequences of rationals, optional
        The irrelevant weights of each block.
    n_prime : int, optional
        The block size, when ``u`` is left out.

    {{zero_one_error}}

    Examples
    --------
    >>> from theory.polynet import error
    >>> print(error([2, 2, 2], n_prime=4), error([2, 2, -2], n_prime=4))
    37/128 91/128
    >>> error([2, 2, 2], n_prime=4) == error([2, 2, 2], [[1, -1, 1]] * 3)  # any ±1 irrelevant weights
    True
    """
    vs = _weights(v, "v")
    k = len(vs)
    if k < 1:
        raise InputError("v must hold at least one relevant weight (k >= 1)", param="v")
    blocks = _irrelevant(k, u, n_prime)
    sigma = math.prod((x > 0) - (x < 0) for x in vs)
    plus, minus = Fraction(1), Fraction(1)
    for vi, ui in zip(vs, blocks):
        a, b = _block_probabilities(abs(vi), sum_distribution(ui))
        plus *= a + b
        minus *= a - b
    return 1 - (plus + sigma * minus) / 2


def _binomial_counts(m: int) -> list[int]:
    """[C(m, 0), ..., C(m, m)] by the exact recurrence C(m, j+1) = C(m, j)(m-j)/(j+1)."""
    out = [1]
    for j in range(m):
        out.append(out[-1] * (m - j) // (j + 1))
    return out


@fill_doc(_DOC)
def equal_init_error(v: object, k: object, n_prime: object) -> Fraction:
    """err(v, ..., v) with all-ones (or ±1) irrelevant weights: 1 - [(a+b)^k + (a-b)^k]/2 (v > 0).

    Parameters
    ----------
    v : rational
        The common relevant weight, ``v > 0``.
    k : int
        The number of blocks, ``k >= 1``.
    n_prime : int
        The block size, ``n' >= 1``.

    {{zero_one_error}}

    Examples
    --------
    >>> from theory.polynet import equal_init_error, error
    >>> print(equal_init_error(2, 3, 4))
    37/128
    >>> equal_init_error(2, 3, 4) == error([2, 2, 2], n_prime=4)
    True
    """
    k = _check_k(k)
    m = _check_n_prime(n_prime) - 1
    _check_error_bits(k, m)
    vv = _rational(v, "v")
    if vv <= 0:
        raise InputError(f"equal_init_error needs v > 0 (positive product along the flow), got {vv}", param="v")
    c = _binomial_counts(m)
    A = sum(c[j] for j in range(m + 1) if m - 2 * j < vv)
    B = sum(c[j] for j in range(m + 1) if m - 2 * j > vv)
    return _err_from_counts(A, B, m, k)


def _err_from_counts(A: int, B: int, m: int, k: int) -> Fraction:
    return 1 - Fraction((A + B) ** k + (A - B) ** k, 2 * 2 ** (m * k))


@dataclass(frozen=True)
class ErrorPiece:
    """The error along the equal-init flow on a piece of the v-axis: the open interval (lo, hi)
    (``hi = None`` for (lo, oo)), or the single point lo when ``point`` is True (an atom of U).

    Attributes
    ----------
    lo : Fraction
        The left end (the point itself for a point piece).
    hi : Fraction or None
        The right end (None for infinity; equal to ``lo`` for a point piece).
    point : bool
        Whether the piece is the single point lo.
    err : Fraction
        The error on the piece.

    Examples
    --------
    >>> from theory.polynet import error_pieces
    >>> for p in error_pieces(3, 4):
    ...     print(p.lo, p.hi, p.point, p.err)
    1 1 True 109/128
    1 3 False 37/128
    3 3 True 169/512
    3 None False 0
    """

    lo: Fraction
    hi: Fraction | None
    point: bool
    err: Fraction

    def __post_init__(self) -> None:
        exact = (int, Fraction)
        for name in ("lo", "err"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, exact):
                raise InputError(f"{name} must be an exact int or Fraction, got {value!r:.80}", param=name)
        if self.hi is not None and (isinstance(self.hi, bool) or not isinstance(self.hi, exact)):
            raise InputError(f"hi must be an exact int or Fraction or None, got {self.hi!r:.80}", param="hi")
        if not isinstance(self.point, bool):
            raise InputError(f"point must be a bool, got {self.point!r:.80}", param="point")
        if (self.hi is not None and self.hi < self.lo) or (self.point and self.hi != self.lo):
            raise InputError(
                f"need lo <= hi (hi = lo for a point piece), got lo = {self.lo}, hi = {self.hi}", param="hi"
            )
        if not 0 <= self.err <= 1:
            raise InputError(f"err must be a probability in [0, 1], got {self.err}", param="err")


@fill_doc(_DOC)
def error_pieces(k: object, n_prime: object, v0: object = 1) -> list[ErrorPiece]:
    """err(v) for v >= v0 along the all-equal flow, as a step function (all-ones irrelevant weights).

    Breakpoints are the atoms of U = sum of n'-1 signs (integers n'-1-2j > v0); between them err is constant;
    at an atom some outputs are exactly 0. Pieces are in increasing v; the first starts at v0 (a point piece if
    v0 is itself an atom), the last is (n'-1, oo) with err = 0.

    {{k1_n_prime_v0}}

    Returns
    -------
    list of ErrorPiece
        The pieces, in increasing v.

    Examples
    --------
    >>> from theory.polynet import equal_init_error, error_pieces
    >>> [str(p.err) for p in error_pieces(3, 4)]  # U in {-3, -1, 1, 3}: atoms at v = 1 and 3
    ['109/128', '37/128', '169/512', '0']
    >>> error_pieces(3, 4)[1].err == equal_init_error(2, 3, 4)
    True
    """
    k = _check_k(k)
    m = _check_n_prime(n_prime) - 1
    _check_error_bits(k, m)
    check_cost(
        (m + 1) * (k * m + 1) ** 2,
        MAX_PIECES_COST,
        param="n_prime",
        value=m + 1,
        what="the work of the exact pieces (about n' pieces, each an exact fraction over 2^(k(n'-1)+1) to reduce: "
        "n' (k n')^2)",
        hint="first_time_error_at_most and last_time_error_at_least give the crossing times for larger n'",
    )
    return [ErrorPiece(lo, hi, pt, _err_from_counts(A, B, m, k)) for lo, hi, pt, A, B in _piece_counts(m, v0)]


def _piece_counts(
    m: int, v0: object, upto: float | None = None
) -> list[tuple[Fraction, Fraction | None, bool, int, int]]:
    """The pieces of :func:`error_pieces` as (lo, hi, point, A, B): A (B) = the number of sign patterns of the m
    irrelevant signs with U < v (U > v) on the piece, out of 2^m; with ``upto``, only the pieces starting at or
    below it."""
    v0 = _rational(v0, "v0")
    if v0 <= 0:
        raise InputError(f"v0 must be > 0, got {v0}", param="v0")
    c = _binomial_counts(m)
    atoms = sorted({m - 2 * j for j in range(m + 1)})
    probs = {m - 2 * j: c[j] for j in range(m + 1)}
    below = [0]  # below[i] = mass of the atoms[:i] (prefix sums: each count in O(log n'), not O(n'))
    for atom in atoms:
        below.append(below[-1] + probs[atom])

    def counts(v: Fraction) -> tuple[int, int]:
        A = below[bisect.bisect_left(atoms, v)]
        B = below[-1] - below[bisect.bisect_right(atoms, v)]
        return A, B

    pieces: list[tuple[Fraction, Fraction | None, bool, int, int]] = []
    above = [Fraction(a) for a in atoms if a > v0]
    if v0 in atoms:
        pieces.append((v0, v0, True, *counts(v0)))
    lo = v0
    # A = mass below the current interval, B = mass above it
    for a in above:
        if upto is not None and lo > upto:
            return pieces
        mid = (lo + a) / 2
        pieces.append((lo, a, False, *counts(mid)))
        pieces.append((a, a, True, *counts(a)))
        lo = a
    if upto is None or lo <= upto:
        pieces.append((lo, None, False, *counts(lo + 1)))
    return pieces


def _scan(k: int, m: int, v0: Fraction, eps: Fraction) -> Fraction:
    """inf{v >= v0: err(v) <= eps} along the equal-init flow, scanning the atoms of U upwards with running integer
    counts A = #{U < v}, B = #{U > v} (out of 2^m) and the integer test q (D - S) <= p D for
    err = 1 - S/D, S = (A+B)^k + (A-B)^k, D = 2^(mk+1), eps = p/q (O(n') big-integer operations)."""
    p, q = eps.numerator, eps.denominator
    D = 2 ** (m * k + 1)

    def ok(A: int, B: int) -> bool:
        if p == 0:  # err = 0 iff no output is 0 and the number of wrong blocks is a.s. even
            return 2**m == A + B and (B == 0 or (A == 0 and k % 2 == 0))
        S = (A + B) ** k + (A - B) ** k
        return q * (D - S) <= p * D

    c = _binomial_counts(m)
    vals = [m - 2 * j for j in range(m + 1)]  # decreasing
    A = sum(cj for cj, x in zip(c, vals) if x < v0)
    P = sum(cj for cj, x in zip(c, vals) if x == v0)
    B = 2**m - A - P
    if P and ok(A, B):  # the point v0 (an atom)
        return v0
    A += P
    lo = v0
    for a in sorted(x for x in set(vals) if x > v0):
        if ok(A, B):  # open interval (lo, a) (or [v0, a) at the start)
            return lo
        pa = c[(m - a) // 2]
        B -= pa
        if ok(A, B):  # the atom a: outputs 0 with probability P(U = a) per block
            return Fraction(a)
        A += pa
        lo = Fraction(a)
    return lo  # (lo, oo): B = 0, err = 0


@fill_doc(_DOC)
def first_time_error_at_most(
    eps: object, k: object, n_prime: object, v0: object = 1
) -> tuple[Fraction, Fraction | sympy.Expr]:
    """(v*, T(eps)): T(eps) = inf{t >= 0: err(t) <= eps} along the equal-init flow (Thm 5.7, main text).

    All-ones (or ±1) irrelevant weights, v_i(0) = v0. v* = inf{v >= v0: err(v) <= eps}; T = flow_time(v*).
    For eps = 0 (odd n'), v* = n' - 1: T(0) is the time v reaches n' - 1.

    Parameters
    ----------
    eps : rational
        The error level, ``0 <= eps < 1``.
    {{k2_n_prime_v0}}

    Returns
    -------
    tuple
        ``(v*, T(eps))``: a Fraction and a Fraction (k >= 3) or sympy expression (k = 2).

    Examples
    --------
    >>> from theory.polynet import first_time_error_at_most
    >>> print(*first_time_error_at_most(0, 3, 5))  # v reaches n' - 1 = 4 at t = 3/4
    4 3/4
    >>> print(*first_time_error_at_most("0.49", 3, 11))
    2 1/2
    """
    k = _check_k(k, 2, "the equal-init flow needs k >= 2")
    m = _check_n_prime(n_prime) - 1
    e = _rational(eps, "eps")
    if not 0 <= e < 1:
        raise InputError(f"eps must be in [0, 1), got {e}", param="eps")
    _check_scan_cost(k, m, e)
    v0 = _rational(v0, "v0")
    if v0 <= 0:
        raise InputError(f"v0 must be > 0, got {v0}", param="v0")
    vstar = _scan(k, m, v0, e)
    return vstar, flow_time(vstar, k, v0)


@fill_doc(_DOC)
def last_time_error_at_least(
    alpha: object, k: object, n_prime: object, v0: object = 1
) -> tuple[Fraction, Fraction | sympy.Expr]:
    """(v, T) with T = sup{t: err(t) >= alpha} (Cor. B.10's definition of T(alpha)), for 0 < alpha <= 1.

    For alpha = 0 the supremum is infinite (err >= 0 always), so Cor. B.10's T(0) must be read as the
    main text's first time with err = 0 (:func:`first_time_error_at_most`).

    Parameters
    ----------
    alpha : rational
        The error level, ``0 < alpha <= 1``.
    {{k2_n_prime_v0}}

    Returns
    -------
    tuple
        ``(v, T(alpha))``, as in :func:`first_time_error_at_most`.

    Examples
    --------
    >>> from theory.polynet import last_time_error_at_least
    >>> print(*last_time_error_at_least("0.01", 3, 5))
    4 3/4
    >>> last_time_error_at_least(0, 3, 5)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: alpha must be in (0, 1] (for alpha = 0 the sup is infinite), got 0
    """
    k = _check_k(k, 2, "the equal-init flow needs k >= 2")
    m = _check_n_prime(n_prime) - 1
    al = _rational(alpha, "alpha")
    if not 0 < al <= 1:
        raise InputError(f"alpha must be in (0, 1] (for alpha = 0 the sup is infinite), got {al}", param="alpha")
    _check_scan_cost(k, m, al)
    p, q, D = al.numerator, al.denominator, 2 ** (m * k + 1)

    def err_at_least(A: int, B: int) -> bool:  # err = 1 - S/D >= p/q in integers (no fraction of k n' bits reduced)
        return q * (D - (A + B) ** k - (A - B) ** k) >= p * D

    # pieces starting beyond the Hoeffding point have err < alpha: they cannot be the last hit
    upto = _hoeffding_v(k, m, al)
    hits = [(lo, hi, pt) for lo, hi, pt, A, B in _piece_counts(m, v0, upto) if err_at_least(A, B)]
    if not hits:
        v = _rational(v0, "v0")
    else:
        lo, hi, pt = hits[-1]
        if pt:
            v = lo
        else:
            assert hi is not None  # the last piece (lo, oo) has err = 0 < alpha: a hit has a finite end
            v = hi
    return v, flow_time(v, k, _rational(v0, "v0"))


@fill_doc(_DOC)
def plateau_ratio(k: object, n_prime: object, eps: object = Fraction(49, 100)) -> Fraction:
    """1 - T(eps)/T(0) along the all-ones flow (Thm 5.7: this is O(n'^(1-k/2)) for eps = 0.49), exact.

    Needs k >= 3 and odd n' >= 3 (see the module docstring for the even-n' degeneracy).

    {{k3_n_prime_eps}}

    Returns
    -------
    Fraction
        ``1 - T(eps)/T(0)``.

    Examples
    --------
    >>> from theory.polynet import plateau_ratio
    >>> print(plateau_ratio(3, 11))
    4/9
    >>> plateau_ratio(3, 10)
    Traceback (most recent call last):
        ...
    theory._checks.InputError: the plateau quantities need odd n' (got n' = 10): ...
    """
    k = _check_k(k, 3, "Thm 5.7 assumes k >= 3; for k = 2 the flow is exponential and T(0) = log(n'-1)")
    m = _check_n_prime(n_prime, odd=True)
    if m < 3:
        raise InputError(
            f"n' must be >= 3 so that T(0) > 0 (v must grow from 1 to n'-1), got n' = {m}", param="n_prime"
        )
    e = _rational(eps, "eps")
    if not 0 <= e < 1:
        raise InputError(f"eps must be in [0, 1), got {e}", param="eps")
    _check_scan_cost(k, m - 1, e)
    _, t_eps = first_time_error_at_most(eps, k, m)
    _, t_0 = first_time_error_at_most(0, k, m)
    return 1 - t_eps / t_0


@fill_doc(_DOC)
def plateau_ratio_scaled(k: object, n_prime: object, eps: object = Fraction(49, 100)) -> float:
    """(1 - T(eps)/T(0)) / n'^(1-k/2), which Thm 5.7 says is O(1) (no constant is given; about 12 for odd n' >= 11, k = 3..5).

    {{k3_n_prime_eps}}

    Returns
    -------
    float
        ``(1 - T(eps)/T(0)) n'^(k/2-1)``.

    Examples
    --------
    >>> from theory.polynet import plateau_ratio_scaled
    >>> round(plateau_ratio_scaled(3, 11), 4)  # (4/9) sqrt(11)
    1.4741
    """
    r = plateau_ratio(k, n_prime, eps)
    kk, m = _as_int(k, "k"), _as_int(n_prime, "n_prime")  # integers: plateau_ratio has validated them
    if r == 0:
        return 0.0
    scale = float(m) ** (1 - kk / 2)
    out = float(r) / scale if scale > 0 else math.inf
    if not (math.isfinite(out) and out > 0):  # float(r) or n'^(1-k/2) under/overflowed: work with logs
        try:
            out = math.exp(math.log(r.numerator) - math.log(r.denominator) + (kk / 2 - 1) * math.log(m))
        except OverflowError:
            raise InputError(
                f"(1 - T(eps)/T(0)) n'^(k/2-1) is beyond the float range at k = {kk}, n' = {m}", param="k"
            ) from None
    return out


@fill_doc(_DOC)
def velocity_at_plateau_end_approx(k: object, n_prime: object, gamma: float = 0.01) -> float:
    """sqrt(pi n'/2) (2 gamma)^(1/k): the v at which 1/2 - 1/2 (sqrt(2/(pi n')) v)^k = 1/2 - gamma (Cor. B.10,
    with the Gaussian small-argument approximation erf(v/sqrt(2n')) ~ sqrt(2/(pi n')) v).

    {{k1_n_prime}}
    gamma : float, optional
        The distance of the error below 1/2 (default 0.01).

    Returns
    -------
    float
        The approximate v.

    Examples
    --------
    >>> from theory.polynet import velocity_at_plateau_end_approx
    >>> round(velocity_at_plateau_end_approx(3, 101), 4)
    3.419
    """
    k = _check_k(k)
    m = _check_n_prime(n_prime)
    check_cost(
        m,
        MAX_FLOAT_N_PRIME,
        param="n_prime",
        value=m,
        what="the float approximation",
        hint="the float range ends near 10^308",
    )
    g = _real(gamma, "gamma")
    if not 0 < g <= 0.5:
        raise InputError(
            f"gamma must lie in (0, 1/2] (the error 1/2 - gamma lies in [0, 1/2)), got gamma = {gamma!r:.80}",
            param="gamma",
        )
    return math.sqrt(math.pi * m / 2) * (2 * g) ** (1 / k)


# --------------------------------------------------------------------------------------------------
# Lemma B.8 and Lemma B.9 bounds
# --------------------------------------------------------------------------------------------------
def lemma_b8_bounds(v0: Sequence, b: SupportsFloat | SupportsIndex | str, i: int) -> tuple[float, float]:
    """Lemma B.8 (k >= 3, prod v_i(0) > 0): (lower bound on T_i(b), upper bound on T_i(oo) - T_i(b)).

    ``T_i(b) >= (va^(1-k/2) - (va + b^2 - v_i(0)^2)^(1-k/2))/(k-2)`` and
    ``T_i(oo) - T_i(b) <= (vg + b^2 - v_i(0)^2)^(1-k/2)/(k-2)``, va = mean v_j(0)^2, vg = (prod v_j(0)^2)^(1/k).
    Needs b >= |v_i(0)|.

    Parameters
    ----------
    v0 : sequence of numbers
        The initial relevant weights ``v_1(0)..v_k(0)``, k >= 3, with a positive product.
    b : float
        The level, ``b >= |v_i(0)|``.
    i : int
        The 0-based block.

    Returns
    -------
    tuple of float
        ``(lower bound on T_i(b), upper bound on T_i(oo) - T_i(b))``.

    Examples
    --------
    >>> from theory.polynet import blowup_time, flow_time, lemma_b8_bounds
    >>> lemma_b8_bounds([1, 1, 1], 2, 0)  # equal init: both are tight
    (0.5, 0.5)
    >>> print(flow_time(2, 3), blowup_time(3) - flow_time(2, 3))
    1/2 1/2
    """
    v = _reals(v0, "v0")
    k = len(v)
    if k < 3:
        raise InputError(f"Lemma B.8 needs k >= 3 (k = 2 is exponential), got k = {k}", param="v0")
    if not _positive_product(v):
        raise InputError(f"Lemma B.8 needs prod v_i(0) > 0, got {v!r:.200}", param="v0")
    b = _real(b, "b")
    i = _as_int(i, "i")
    if not 0 <= i < k:
        raise InputError(f"i must be in 0..{k - 1}, got {format_count(i)}", param="i")
    if b < abs(v[i]):
        raise InputError(f"b must be >= |v_i(0)| = {abs(v[i])}, got {b}", param="b")
    try:
        va = sum(x * x for x in v) / k
        vg = math.prod(x * x for x in v) ** (1 / k)
        e = 1 - k / 2
        lower = (va**e - (va + b * b - v[i] ** 2) ** e) / (k - 2)
        upper = (vg + b * b - v[i] ** 2) ** e / (k - 2)
    except (OverflowError, ZeroDivisionError):
        raise InputError(
            f"the Lemma B.8 bounds leave the float range for v0 = {v!r:.120}, b = {b} (k = {k})", param="v0"
        ) from None
    _finite_result((lower, upper), "the Lemma B.8 bounds", "v0")
    return lower, upper


def _norms(uf: list[float]) -> tuple[float, float, float]:
    if not uf or all(x == 0 for x in uf):
        raise InputError("Lemma B.9 needs non-zero irrelevant weights u_i (||u_i||_2 > 0)", param="u")
    out = max(abs(x) for x in uf), math.sqrt(sum(x * x for x in uf)), sum(abs(x) ** 3 for x in uf)
    _finite_result(out, "the norms of the irrelevant weights", "u")
    return out


def _check_b9(v: Sequence, u: Sequence[Sequence]) -> tuple[list[float], list[list[float]]]:
    """Lemma B.9's hypotheses on its inputs: one u_i per v_i, at least one factor, and prod_i v_i > 0; the weights
    as finite floats."""
    vf = _reals(v, "v")
    if isinstance(u, (str, bytes)) or not hasattr(u, "__iter__"):
        raise InputError(f"u must hold one sequence of irrelevant weights per block, got {u!r:.80}", param="u")
    uf = [_reals(ui, "u") for ui in u]
    if len(vf) != len(uf) or not vf:
        raise InputError(
            f"Lemma B.9 needs one weight vector u_i per v_i (k >= 1), got {len(vf)} v and {len(uf)} u", param="u"
        )
    if not _positive_product(vf):
        raise InputError(f"Lemma B.9 assumes prod_i v_i > 0, got v = {list(v)!r:.200}", param="v")
    return vf, uf


@fill_doc(_DOC)
def lemma_b9_upper_bound(v: Sequence, u: Sequence[Sequence], *, as_printed: bool = False) -> float:
    """Lemma B.9 upper bound on the error from Hoeffding: err <= sum_i P(U_i > |v_i|) + sum_i P(U_i = |v_i|).

    Corrected: 2 sum_i exp(-v_i^2/(2 ||u_i||_2^2)) (Hoeffding for a Rademacher sum: P(U >= t) <= exp(-t^2/(2||u||^2))).
    ``as_printed=True``: 2 sum_i exp(-v_i^2/||u_i||_2^2), which is false: k = 3, n' = 8, all-ones u, v = 6.51 gives
    err = 1 - (1 + (63/64)^3)/2 = 0.0230 > 0.0141 (a single tail P(U = 7) = 1/128 already exceeds exp(-v^2/7)).

    {{v_u_printed}}

    {{float_bound}}

    Examples
    --------
    >>> from theory.polynet import error, lemma_b9_upper_bound
    >>> u = [[1] * 7] * 3
    >>> round(float(error(["6.51"] * 3, u)), 4), round(lemma_b9_upper_bound([6.51] * 3, u, as_printed=True), 4)
    (0.0231, 0.0141)
    >>> round(lemma_b9_upper_bound([6.51] * 3, u), 4)
    0.2907
    """
    vf, uf = _check_b9(v, u)
    d = 1.0 if check_bool(as_printed, "as_printed") else 2.0
    try:
        out = 2 * sum(math.exp(-(vi**2) / (d * _norms(ui)[1] ** 2)) for vi, ui in zip(vf, uf))
    except (OverflowError, ZeroDivisionError):
        raise InputError("the Lemma B.9 bound leaves the float range for these weights", param="u") from None
    _finite_result((out,), "the Lemma B.9 bound", "u")
    return out


@fill_doc(_DOC)
def lemma_b9_lower_bound(
    v: Sequence, u: Sequence[Sequence], *, as_printed: bool = False, c: float = float(BE_CONSTANT)
) -> float:
    """Lemma B.9 lower bound 1/2 - 1/2 prod_i (erf(|v_i|/(sqrt2 ||u_i||_2)) + BE_i).

    ``as_printed=True``: BE_i = c ||u_i||_inf/||u_i||_2^3 (as in the thesis; false, see module docstring).
    Otherwise (corrected): BE_i = 2 c sum_j |u_ij|^3/||u_i||_2^3 (two-sided Berry-Esseen for P(|U| <= |v|)),
    each factor capped at 1.

    {{v_u_printed}}
    c : float, optional
        The Berry-Esseen constant (default 0.56).

    {{float_bound}}

    Examples
    --------
    >>> from theory.polynet import error, lemma_b9_lower_bound
    >>> u = [[1] * 100] * 3
    >>> round(float(error(["2.01"] * 3, u)), 4)
    0.4935
    >>> round(lemma_b9_lower_bound([2.01] * 3, u, as_printed=True), 4), round(lemma_b9_lower_bound([2.01] * 3, u), 4)
    (0.498, 0.49)
    """
    vf, uf = _check_b9(v, u)
    as_printed = check_bool(as_printed, "as_printed")
    c = _real(c, "c")
    if c < 0:
        raise InputError(f"c (the Berry-Esseen constant) must be >= 0, got {c}", param="c")
    prod = 1.0
    try:
        for vi, ui in zip(vf, uf):
            inf, l2, l3 = _norms(ui)
            g = math.erf(abs(vi) / (math.sqrt(2) * l2))
            be = c * inf / l2**3 if as_printed else 2 * c * l3 / l2**3
            prod *= (g + be) if as_printed else min(1.0, g + be)
    except (OverflowError, ZeroDivisionError):
        raise InputError("the Lemma B.9 bound leaves the float range for these weights", param="u") from None
    out = 0.5 - 0.5 * prod
    _finite_result((out,), "the Lemma B.9 bound", "u")
    return out


def lemma_b9_lower_bound_exact(v: Sequence, u: Sequence[Sequence]) -> Fraction:
    """1/2 - 1/2 prod_i P(|U_i| <= |v_i|) (= P(#{i: U_i > |v_i|} odd), B.12 corrected), exact; err >= this.

    Parameters
    ----------
    v : sequence of rationals
        The relevant weights (read exactly).
    u : sequence of sequences of rationals
        The irrelevant weights of each block.

    Returns
    -------
    Fraction
        The lower bound.

    Examples
    --------
    >>> from theory.polynet import error, lemma_b9_lower_bound_exact
    >>> print(lemma_b9_lower_bound_exact([2, 2, 2], [[1, 1, 1]] * 3), error([2, 2, 2], n_prime=4))
    37/128 37/128
    """
    vs = _weights(v, "v")
    if isinstance(u, (str, bytes)) or not hasattr(u, "__iter__"):
        raise InputError(f"u must hold one sequence of irrelevant weights per block, got {u!r:.80}", param="u")
    blocks = [_weights(ui, "u") for ui in u]
    if len(vs) != len(blocks):
        raise InputError(f"need one weight vector u_i per v_i, got {len(vs)} v and {len(blocks)} u", param="u")
    _check_blocks(blocks)
    prod = Fraction(1)
    for vi, ui in zip(vs, blocks):
        av = abs(vi)
        prod *= sum((p for x, p in sum_distribution(ui).items() if abs(x) <= av), Fraction(0))
    return Fraction(1, 2) - prod / 2


# --------------------------------------------------------------------------------------------------
# Theorem 5.8 (full statement, App. B.2.4): online SGD on the disjoint-PolyNet
# --------------------------------------------------------------------------------------------------
#: Claim B.11 (App. B.2.4): every irrelevant weight stays within this bound along the run, |w_{i,j}^(t)| <= 3/2.
THM58_IRRELEVANT_BOUND = Fraction(3, 2)

MAX_THM58_STEPS = 10**12
"""Largest step count :func:`thm58_steps` returns (a run of that many sequential SGD steps is beyond reach anyway)."""


def _check_thm58(k: object, n_prime: object, eps: object, delta: object) -> tuple[int, int, Fraction, Fraction]:
    kk = _check_k(k, 2, "Thm 5.8 trains a product of k >= 2 blocks")
    m = _check_n_prime(n_prime)
    if m < 2:
        raise InputError(f"Thm 5.8 needs n' >= 2 (a block with irrelevant weights), got n' = {m}", param="n_prime")
    e = _rational(eps, "eps")
    if not 0 < e < Fraction(1, 2):
        raise InputError(f"Thm 5.8 fixes eps in (0, 1/2), got eps = {eps!r:.80}", param="eps")
    d = _rational(delta, "delta")
    if not 0 < d < 1:
        raise InputError(f"delta (the SGD failure probability) must lie in (0, 1), got {delta!r:.80}", param="delta")
    return kk, m, e, d


_K_CAP = 10**300
"""Where Thm 5.8's float logarithms cap the exponent 2k - 1 (a float): the power (3n'-2)^(k-1) with k - 1 >= 10^300 is
beyond any float (its count refused, its reciprocal 0) all the same."""


def _thm58_log_root(k: int, m: int, T: int, d: Fraction) -> float:
    """ln sqrt(2 T log(2 n T / delta)), n = k m, for T and n of any size (Thm 5.8's rate and growth)."""
    return 0.5 * (math.log(2 * T) + math.log(math.log(2 * k * m * T) - _log_fraction(d)))


def _thm58_holds(T: int, c: sympy.Expr, a: Fraction) -> bool:
    """T >= c log(a T), decided at 60 significant digits (the two sides are never within 1e-40 at integer T here)."""
    return bool(sympy.N(sympy.Integer(T) - c * sympy.log(sympy.Rational(a.numerator, a.denominator) * T), 60) >= 0)


def thm58_steps(k: object, n_prime: object, eps: object, delta: object) -> int:
    r"""The step count of Thm 5.8: the smallest integer T with
    :math:`T \ge 6\log(2nT/\delta)\log(2k/\varepsilon)(3n'-2)^{2k-1}`, n = k n'.

    Source: Edelman thesis, Thm 5.8 (full statement, App. B.2.4): with the adaptive rate
    :func:`thm58_rate_scale`, ±1 initialisation and any batch size, the error after T steps is at most eps with
    probability 1/2 over the initialisation (the sign of prod_i w_{i,1}) and 1 - delta over the sampling. The
    condition has T on both sides; T - c log(2nT/delta) increases for T > c, so the smallest T is found by a
    fixed-point iteration and then decided exactly (60 digits) at its neighbours.

    Parameters
    ----------
    k : int
        Number of blocks, ``k >= 2``.
    n_prime : int
        Block size n' >= 2.
    eps : rational
        Target error in (0, 1/2).
    delta : rational
        Failure probability of the sampling, in (0, 1).

    Returns
    -------
    int
        The smallest T satisfying the condition.

    Examples
    --------
    >>> thm58_steps(2, 2, "0.1", "0.2")
    19196
    >>> thm58_steps(2, 1, "0.1", "0.2")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Thm 5.8 needs n' >= 2 (a block with irrelevant weights), got n' = 1
    """
    kk, m, e, d = _check_thm58(k, n_prime, eps, delta)
    n = kk * m
    log_size = (
        math.log10(6)
        + math.log10(math.log(2 * kk) - _log_fraction(e))
        + min(2 * kk - 1, _K_CAP) * math.log10(3 * m - 2)
    )
    check_cost(
        log_size + math.log10(max(math.log(2 * n) - _log_fraction(d) + log_size * math.log(10), 1.0)),
        math.log10(MAX_THM58_STEPS),
        param="k",
        value=kk,
        what="the step count 6 log(2nT/delta) log(2k/eps) (3n'-2)^(2k-1) of Thm 5.8",
        hint="smaller k or n'",
        log10=True,
    )
    c_float = 6 * (math.log(2 * kk) - _log_fraction(e)) * (3 * m - 2) ** (2 * kk - 1)
    t = c_float
    for _ in range(200):
        t = c_float * (math.log(2 * n * t) - _log_fraction(d))
    c = 6 * sympy.log(sympy.Rational(2 * kk) / sympy.Rational(e.numerator, e.denominator)) * (3 * m - 2) ** (2 * kk - 1)
    a = Fraction(2 * n) / d
    T = max(math.ceil(t), 1)
    while not _thm58_holds(T, c, a):
        T += 1
    while T > 1 and _thm58_holds(T - 1, c, a):
        T -= 1
    return T


def thm58_rate_scale(k: object, n_prime: object, steps: object, delta: object) -> float:
    r"""The constant of Thm 5.8's adaptive rate :math:`\eta_i^{(t)} = s / \prod_{l\ne i}\|w_l^{(t)}\|_1` with
    :math:`s = 1/(2\sqrt{2T\log(2nT/\delta)})`, n = k n' (Edelman thesis, proof of Thm 5.8, App. B.2.4): the rate
    makes every step move each weight by at most :math:`1/\sqrt{2T\log(2nT/\delta)}`.

    Parameters
    ----------
    k, n_prime : int
        Blocks k >= 2 and block size n' >= 2.
    steps : int
        The horizon T >= 1 of the run (the rate depends on it).
    delta : rational
        Failure probability in (0, 1).

    Returns
    -------
    float
        s.

    Examples
    --------
    >>> round(thm58_rate_scale(2, 2, 19196, "0.2"), 7)
    0.0006932
    """
    kk, m, _, d = _check_thm58(k, n_prime, Fraction(1, 4), delta)
    T = _checks.check_positive_int(steps, "steps")
    if kk * m * T < 2**900 and d * 2**900 > 1:
        return 1 / (2 * math.sqrt(2 * T * math.log(2 * kk * m * T / float(d))))
    return 0.5 * math.exp(-_thm58_log_root(kk, m, T, d))  # n T or 1/delta beyond float range: in logs


def thm58_relevant_lower_bound(k: object, n_prime: object, steps: object, delta: object, t: object) -> float:
    r"""The growth of the relevant weights that the proof of Thm 5.8 derives (Claim B.12's induction, last line):
    after t updates, :math:`|w_{i,1}^{(t+1)}| \ge \tfrac12\bigl(1 + (3n'-2)^{-(k-1)}\,t/\sqrt{2T\log(2nT/\delta)}\bigr)`
    (and :math:`\mathrm{sign}(w_{i,1})` is kept), on the event that the sampling martingales stay within 1/2
    (probability 1 - delta) and prod_i sign(w_{i,1}^{(1)}) > 0 (Edelman thesis, App. B.2.4). At t = 0 it is 1/2:
    Claim B.12's invariant |w_{i,1}| >= 1/2. (Claim B.12 as printed states a different, sqrt(t)-shaped form that the
    induction does not derive; docs/sparse_parity.md.)

    Parameters
    ----------
    k, n_prime, steps, delta
        As :func:`thm58_rate_scale`.
    t : int
        Updates done, 0 <= t <= T.

    Returns
    -------
    float
        The lower bound.

    Examples
    --------
    >>> thm58_relevant_lower_bound(2, 2, 19196, "0.2", 0)
    0.5
    >>> round(thm58_relevant_lower_bound(2, 2, 19196, "0.2", 19196), 4)
    3.8267
    """
    kk, m, _, d = _check_thm58(k, n_prime, Fraction(1, 4), delta)
    T = _checks.check_positive_int(steps, "steps")
    tt = _as_int(t, "t")
    if not 0 <= tt <= T:
        raise InputError(f"t (updates done) must lie in [0, T = {T}], got {tt}", param="t")
    if tt == 0:
        return 0.5
    if kk * m * T < 2**900 and d * 2**900 > 1 and (kk - 1) * (3 * m - 2).bit_length() < 900:
        return 0.5 * (1 + tt / ((3 * m - 2) ** (kk - 1) * math.sqrt(2 * T * math.log(2 * kk * m * T / float(d)))))
    return 0.5 * (
        1 + math.exp(math.log(tt) - min(kk - 1, _K_CAP) * math.log(3 * m - 2) - _thm58_log_root(kk, m, T, d))
    )  # beyond float range: in logs


# --------------------------------------------------------------------------------------------------
# Thm 5.7 (full statement, App. B.2.3): any initialisation with prod v_i(0) > 0, e.g. i.i.d. N(0, 1)
# --------------------------------------------------------------------------------------------------
MAX_BLOCK_PATTERNS = 2**22
"""Largest sum over blocks of 2^(m_i - 1) (m_i irrelevant weights in block i) that
:func:`first_time_error_at_most_general` enumerates: each pattern is one exact integer (~4 s at the limit; a block
of n' = 21 is 2^19)."""

_GENERAL = {
    "v0": "v0 : sequence of rationals\n    The initial relevant weights ``v_1(0)..v_k(0)`` (floats read exactly), "
    "with ``prod_i v_i(0) > 0``.",
    "u": "u : sequence of sequences of rationals\n    The irrelevant weights ``u_i`` of each block (floats read "
    "exactly); they stay fixed along the flow.",
}


def _check_general_v0(v0: object, minimum: int = 1) -> list[Fraction]:
    vs = _weights(v0, "v0")
    if len(vs) < minimum:
        raise InputError(f"v0 must hold at least {minimum} relevant weights, got {len(vs)}", param="v0")
    if not _positive_product([float(x) if x else 0.0 for x in vs]):
        raise InputError(
            "the flow formulas need prod_i v_i(0) > 0 (Lemma B.8, Thm 5.7 condition on it), got signs "
            f"{[(x > 0) - (x < 0) for x in vs]!r:.200}",
            param="v0",
        )
    return vs


@fill_doc(_GENERAL)
def flow_time_general(q: object, v0: Sequence) -> float:
    r"""The gradient-flow time at which the common shift :math:`q = v_i(t)^2 - v_i(0)^2` reaches q (any init with
    :math:`\prod_i v_i(0) > 0`):

    .. math:: t(q) = \int_0^q \tfrac12 \prod_{i=1}^k \bigl(\gamma + v_i(0)^2\bigr)^{-1/2}\, d\gamma .

    Source: Edelman thesis, App. B.2.3, proof of Lemma B.8 (eq. B.7 makes :math:`v_i^2 - v_i(0)^2` common to all
    blocks; :math:`\dot q = 2\prod_i (q + v_i(0)^2)^{1/2}`; the inverse-function formula for :math:`q^{-1}`).
    ``q = "oo"`` (or ``math.inf``) gives the blow-up time :math:`T_\infty` (finite for k >= 3). Evaluated by
    mpmath's tanh-sinh quadrature at 30 digits (the integrand is smooth on [0, q]), returned as a float.

    Parameters
    ----------
    q : rational or "oo"
        The shift, ``q >= 0`` (float, Fraction, int, numeric str; ``"oo"`` or ``math.inf`` for the blow-up).
    {{v0}}

    Returns
    -------
    float
        t(q).

    Examples
    --------
    >>> from theory.polynet import flow_time, flow_time_general
    >>> flow_time_general(3, [1, 1, 1])  # v: 1 -> 2 along the all-ones flow, as flow_time(2, 3)
    0.5
    >>> print(flow_time(2, 3))
    1/2
    >>> round(flow_time_general("oo", [1, 1, 1]), 12)  # blow-up time 1/(k-2)
    1.0
    >>> round(flow_time_general("oo", [0.5, -1, -2]), 6)
    0.8849
    """
    vs = _check_general_v0(v0)
    k = len(vs)
    check_cost(k, MAX_BLOCKS, param="v0", value=k, what="the number of blocks k", hint="fewer blocks")
    infinite = (isinstance(q, str) and q.strip().lower() in ("oo", "inf", "infinity")) or (
        isinstance(q, float) and q == math.inf
    )
    if infinite:
        if k < 3:
            raise InputError(f"the flow blows up in finite time only for k >= 3, got k = {k}", param="q")
        qq = None
    else:
        qq = _rational(q, "q")
        if qq < 0:
            raise InputError(f"q must be >= 0 (v_i^2 only grows along the flow), got {qq}", param="q")
        if qq == 0:
            return 0.0
    import mpmath

    with mpmath.workdps(30):
        cs = [mpmath.mpf(x.numerator) ** 2 / mpmath.mpf(x.denominator) ** 2 for x in vs]
        half = mpmath.mpf(1) / 2

        def integrand(g: mpmath.mpf) -> mpmath.mpf:
            return half / mpmath.sqrt(mpmath.fprod([g + c for c in cs]))

        top = mpmath.inf if qq is None else mpmath.mpf(qq.numerator) / qq.denominator
        points = [mpmath.mpf(0), *sorted({c for c in cs if c < top}), top]  # split at the integrand's scales c_i
        value = mpmath.quad(integrand, points)
    out = float(value)
    _finite_result((out,), "t(q)", "v0")
    return out


def _common_scale(values: list[Fraction]) -> int:
    """The least common denominator L of the weights: L * w is an integer for every weight."""
    scale = 1
    for x in values:
        scale = math.lcm(scale, x.denominator)
    return scale


def _block_thresholds(vi: int, ui: list[int]) -> list[int]:
    """Sorted integers s^2 - vi^2 over the 2^(m-1) sums s = u_1 + sum_{j>1} +-u_j (scaled weights; the sums with
    -u_1 are their negatives, with the same s^2): block i's pattern z has |U_i| < |v_i(t)| iff q(t) > s^2 - v_i(0)^2."""
    sums = [ui[0]] if ui else [0]
    for a in ui[1:]:
        sums = [s + a for s in sums] + [s - a for s in sums]
    return sorted(s * s - vi * vi for s in sums)


@fill_doc(_GENERAL)
def first_time_error_at_most_general(eps: object, v0: Sequence, u: Sequence[Sequence]) -> tuple[Fraction, float]:
    r"""(q*, T(eps)): the first gradient-flow time at which the 0-1 error is <= eps, from any init with
    :math:`\prod_i v_i(0) > 0` (irrelevant weights arbitrary, e.g. N(0, 1) draws), exactly.

    Along the flow :math:`v_i(t)^2 = v_i(0)^2 + q(t)` (Lemma B.8's proof) and the irrelevant weights stay fixed. Off
    the atoms of :math:`U_i = u_i^\top z_i^-` (where no output is 0) the error is
    :math:`\mathrm{err} = \tfrac12 - \tfrac12\prod_i P(|U_i| < |v_i|)` (Lemma B.9's eq. B.12, corrected; the
    product of the blocks' correlations :math:`E[\mathrm{sign}\langle w_i, x_{P_i}\rangle\, x_{P_i,1}]`), non-increasing
    in q; at an atom it is larger. So :math:`q^* = \min\{q \in \{0\}\cup\Theta : \prod_i N_i(q)/2^{m_i-1} \ge
    1 - 2\varepsilon\}` with :math:`\Theta = \{s^2 - v_i(0)^2 > 0\}` over the sums s and
    :math:`N_i(q) = \#\{s : s^2 - v_i(0)^2 \le q\}`; eps = 0 gives :math:`q^* = \max(0, \max_i \|u_i\|_1^2 -
    v_i(0)^2)` (every block right: :math:`|v_i| > \|u_i\|_1`). The weights are scaled to integers (their least
    common denominator), the 2^(m_i - 1) sums enumerated and the counts compared in integers (exact);
    :math:`T = t(q^*)` is :func:`flow_time_general` (a float).

    Source: Edelman thesis, App. B.2.3: Thm 5.7 (full statement, N(0, 1) init, T(.) as in Cor. B.10 with the main
    text's "first time the error is at most eps"), Lemmas B.8 and B.9.

    Parameters
    ----------
    eps : rational
        The error level, ``0 <= eps < 1/2``.
    {{v0}}
    {{u}}

    Returns
    -------
    tuple
        ``(q*, T(eps))``: a Fraction and a float.

    Examples
    --------
    >>> from theory.polynet import first_time_error_at_most, first_time_error_at_most_general
    >>> q, t = first_time_error_at_most_general(0, [1, 1, 1], [[1] * 4] * 3)
    >>> print(q, round(t, 12))  # v reaches n' - 1 = 4: q = 15, as the all-ones scan
    15 0.75
    >>> print(*first_time_error_at_most(0, 3, 5))
    4 3/4
    >>> u = [[0.5, -1.25, 0.75, 0.25, 1.5, -0.5, 1, 0.25]] * 3  # n' = 9
    >>> q, t = first_time_error_at_most_general("0.49", [0.5, -0.75, -0.25], u)
    >>> print(q, round(t, 6))
    3/4 1.049045
    """
    e = _rational(eps, "eps")
    if not 0 <= e < Fraction(1, 2):
        raise InputError(f"eps must be in [0, 1/2) (the error is <= 1/2 along the flow), got {e}", param="eps")
    vs = _check_general_v0(v0)
    k = len(vs)
    if isinstance(u, (str, bytes)) or not hasattr(u, "__iter__"):
        raise InputError(f"u must hold one sequence of irrelevant weights per block, got {u!r:.80}", param="u")
    blocks = [_weights(ui, "u") for ui in u]
    if len(blocks) != k:
        raise InputError(f"u must hold one irrelevant-weight vector per block (k = {k}), got {len(blocks)}", param="u")
    check_cost(
        sum(2 ** max(len(ui) - 1, 0) for ui in blocks),
        MAX_BLOCK_PATTERNS,
        param="u",
        value=max(len(ui) for ui in blocks),
        what="the number of sign patterns enumerated (sum over blocks of 2^(m_i - 1), m_i irrelevant weights)",
        hint="use fewer irrelevant weights per block (n' <= 21)",
    )
    scale = _common_scale(vs + [x for ui in blocks for x in ui])
    check_cost(
        scale.bit_length(),
        MAX_EXACT_BITS,
        param="u",
        value=scale.bit_length(),
        what="the bits of the common denominator of the weights",
        hint="round the weights",
    )
    thresholds = [_block_thresholds(int(vi * scale), [int(x * scale) for x in ui]) for vi, ui in zip(vs, blocks)]
    sizes = [len(t) for t in thresholds]
    p, r = e.numerator, e.denominator
    need = (r - 2 * p) * math.prod(sizes)

    def ok(level: int) -> bool:
        return r * math.prod(bisect.bisect_right(t, level) for t in thresholds) >= need

    if ok(0):
        qs = 0
    else:
        candidates = sorted({x for t in thresholds for x in t if x > 0})
        lo, hi = 0, len(candidates) - 1  # ok(candidates[-1]): every block's counts are full
        while lo < hi:
            mid = (lo + hi) // 2
            if ok(candidates[mid]):
                hi = mid
            else:
                lo = mid + 1
        qs = candidates[lo]
    qstar = Fraction(qs, scale * scale)
    return qstar, flow_time_general(qstar, vs)


@fill_doc(_GENERAL)
def plateau_fraction_general(v0: Sequence, u: Sequence[Sequence], eps: object = Fraction(49, 100)) -> float:
    r"""T(eps)/T(0): the fraction of the gradient-flow time before zero error spent with error > eps, from any init
    with :math:`\prod_i v_i(0) > 0` and arbitrary irrelevant weights (Thm 5.7, full statement: for N(0, 1) init
    and k >= 3 it is :math:`1 - \tilde O(n'^{1-k/2}\gamma^{2/k-1})`, eps = 1/2 - gamma, with probability
    1 - 1/poly(n')).

    T(eps) and T(0) are :func:`first_time_error_at_most_general` (exact crossing shifts, the times by quadrature).

    Parameters
    ----------
    {{v0}}
    {{u}}
    eps : rational, optional
        The error level, ``0 < eps < 1/2`` (default 49/100).

    Returns
    -------
    float
        ``T(eps)/T(0)`` (0 when the error is already <= eps right after t = 0).

    Raises
    ------
    InputError
        When T(0) = 0 (every block already right: ``|v_i(0)| > ||u_i||_1``).

    Examples
    --------
    >>> from theory.polynet import plateau_fraction_general, plateau_ratio
    >>> round(plateau_fraction_general([1, 1, 1], [[1] * 10] * 3), 12)  # all-ones, n' = 11: 1 - 4/9
    0.555555555556
    >>> print(1 - plateau_ratio(3, 11))
    5/9
    >>> u = [[0.5, -1.25, 0.75, 0.25, 1.5, -0.5, 1, 0.25]] * 3
    >>> round(plateau_fraction_general([0.5, -0.75, -0.25], u), 6)
    0.561455
    """
    e = _rational(eps, "eps")
    if not 0 < e < Fraction(1, 2):
        raise InputError(f"eps must be in (0, 1/2), got {e}", param="eps")
    _, t_zero = first_time_error_at_most_general(0, v0, u)
    if t_zero == 0:
        raise InputError("T(0) = 0: every block already has |v_i(0)| > ||u_i||_1 (no plateau to measure)", param="v0")
    _, t_eps = first_time_error_at_most_general(e, v0, u)
    return t_eps / t_zero


def thm57_rate(k: object, n_prime: object, gamma: object = Fraction(1, 100)) -> float:
    r"""The order :math:`n'^{1-k/2}\,\gamma^{2/k-1}` of :math:`1 - T(1/2-\gamma)/T(0)` in Thm 5.7 (full statement,
    N(0, 1) init; Cor. B.10 for ±1 init), without its unstated constant and polylog factors.

    Source: Edelman thesis, App. B.2.3, Thm 5.7 (full statement) and Cor. B.10.

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 3``.
    n_prime : int
        The block size, ``n' >= 1``.
    gamma : rational, optional
        The distance of the error level below 1/2, ``0 < gamma < 1/2`` (default 1/100: error 0.49).

    Returns
    -------
    float
        ``n'^(1-k/2) gamma^(2/k-1)``.

    Examples
    --------
    >>> from theory.polynet import thm57_rate
    >>> round(thm57_rate(4, 17), 6)  # 17^-1 * 0.01^-0.5
    0.588235
    >>> round(thm57_rate(4, 5) / thm57_rate(4, 17), 4)  # the predicted shrink factor from n' = 5 to 17 is 5/17
    3.4
    """
    kk = _check_k(k, 3, "Thm 5.7 assumes k >= 3")
    m = _check_n_prime(n_prime)
    g = _rational(gamma, "gamma")
    if not 0 < g < Fraction(1, 2):
        raise InputError(f"gamma must be in (0, 1/2), got {g}", param="gamma")
    check_cost(kk, MAX_BLOCKS, param="k", value=kk, what="the number of blocks k", hint="fewer blocks")
    try:
        return math.exp((1 - kk / 2) * math.log(m) + (2 / kk - 1) * math.log(float(g)))
    except OverflowError:
        raise InputError(f"n'^(1-k/2) gamma^(2/k-1) leaves the float range at k = {kk}, n' = {m}", param="k") from None
