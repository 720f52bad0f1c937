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

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import SupportsFloat, SupportsIndex

import sympy

from ._checks import _as_int, as_number

__all__ = [
    "BE_CONSTANT",
    "SOURCE",
    "ErrorPiece",
    "block_probabilities",
    "blowup_time",
    "equal_init_error",
    "error",
    "error_pieces",
    "first_time_error_at_most",
    "flow_rhs",
    "flow_solution",
    "flow_time",
    "last_time_error_at_least",
    "lemma_b8_bounds",
    "lemma_b9_lower_bound",
    "lemma_b9_lower_bound_exact",
    "lemma_b9_upper_bound",
    "plateau_ratio",
    "plateau_ratio_scaled",
    "population_gradient_formula",
    "population_gradient_symbolic",
    "sum_distribution",
    "velocity_at_plateau_end_approx",
]

SOURCE = "Edelman thesis Sec. 5.4.2, App. B.2.3 (Lemmas B.8, B.9, Cor. B.10, Thm 5.7); docs/boolean.md"
BE_CONSTANT = Fraction(56, 100)  # Berry-Esseen constant for non-identical summands (Shevtsova 2010)

Rational = int | Fraction


# --------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------
def _check_k(k: object, minimum: int = 1, why: str = "") -> int:
    k = _as_int(k, "k")
    if k < minimum:
        raise ValueError(f"k must be an integer >= {minimum}{' (' + why + ')' if why else ''}, got k = {k}")
    return k


def _check_n_prime(n_prime: object, *, odd: bool = False) -> int:
    m = _as_int(n_prime, "n_prime")
    if m < 1:
        raise ValueError(f"n_prime (block size n' = n/k) must be >= 1, got {m}")
    if odd and m % 2 == 0:
        raise ValueError(
            f"the plateau quantities need odd n' (got n' = {m}): for even n' the sum U of the n'-1 irrelevant signs "
            f"is odd, so the all-ones init v = 1 is an atom of U: at t = 0 each block outputs exactly 0 with "
            f"probability P(U = -1) > 0 (counted as an error) and the thresholds of err(v) sit at odd integers; "
            f"for small even n' (e.g. n' = 4) the error is already below 0.49 right after t = 0. "
            f"Use odd n'"
        )
    return m


def _rational(x: object, name: str) -> Fraction:
    if isinstance(x, bool):
        raise ValueError(f"{name} must be a number, got {x!r}")
    if isinstance(x, sympy.Basic):
        if not x.is_Rational:
            raise ValueError(
                f"{name} must be rational for the exact error (comparisons with the integer support of U), got {x}"
            )
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x}")
        return Fraction(x)  # exact binary value
    if isinstance(x, str):
        return Fraction(x)
    raise ValueError(f"{name} must be an int, Fraction, float, str or sympy Rational, got {type(x).__name__}")


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
        The block size n', with ``n'^(k-1) <= 20000``.

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
    if m ** (k - 1) > 20000:
        raise ValueError(
            f"population_gradient_symbolic expands n'^(k-1) = {m ** (k - 1)} monomials; use k, n' "
            f"with n'^(k-1) <= 20000"
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
    v = list(v)
    return [math.prod(v[:i] + v[i + 1 :]) for i in range(len(v))]


def flow_solution(t: object, k: object, v0: object = 1) -> sympy.Expr:
    """v(t) for equal init v_i(0) = v0 > 0: (v0^(2-k) - (k-2) t)^(-1/(k-2)) for k >= 3, v0 e^t for k = 2.

    Valid for 0 <= t < T_inf = v0^(2-k)/(k-2) (k >= 3; blow-up at T_inf). Exact sympy expression.

    Parameters
    ----------
    t : number or sympy.Expr
        The time (a symbol gives the formula).
    k : int
        The number of blocks, ``k >= 2``.
    v0 : number or sympy.Expr, optional
        The initial value (default 1).

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
    ValueError: t = 1 is outside [0, T_inf) with T_inf = v0^(2-k)/(k-2) = 1; the flow blows up at T_inf
    """
    k = _check_k(k, 2, "the equal-init flow is dv/dt = v^(k-1); k = 1 is the trivial dv/dt = 1")
    ts, v0s = as_number(t, "t"), as_number(v0, "v0")
    if v0s.is_number and not v0s > 0:
        raise ValueError(f"v0 must be > 0 (equal positive init, so prod v_i(0) > 0), got {v0s}")
    if k == 2:
        return v0s * sympy.exp(ts)
    if ts.is_number and (ts < 0 or ts >= blowup_time(k, v0s)):
        raise ValueError(
            f"t = {ts} is outside [0, T_inf) with T_inf = v0^(2-k)/(k-2) = {blowup_time(k, v0s)}; "
            f"the flow blows up at T_inf"
        )
    return (v0s ** (2 - k) - (k - 2) * ts) ** sympy.Rational(-1, k - 2)


def blowup_time(k: object, v0: object = 1) -> sympy.Expr:
    """T_inf = v0^(2-k)/(k-2) for k >= 3 (sympy.oo for k = 2: exponential growth, no blow-up).

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 2``.
    v0 : number or sympy.Expr, optional
        The initial value (default 1).

    Returns
    -------
    sympy.Expr
        T_inf.

    Examples
    --------
    >>> from theory.polynet import blowup_time
    >>> blowup_time(3), blowup_time(4, 2), blowup_time(2)
    (1, 1/8, oo)
    """
    k = _check_k(k, 2, "blow-up needs k >= 2")
    v0s = as_number(v0, "v0")
    if k == 2:
        return sympy.oo
    return v0s ** (2 - k) / (k - 2)


def flow_time(v: object, k: object, v0: object = 1) -> Fraction | sympy.Expr:
    """Inverse of the flow: t(v) = (v0^(2-k) - v^(2-k))/(k-2) (k >= 3), log(v/v0) (k = 2), for v >= v0 > 0.

    Exact Fraction when v and v0 are rational and k >= 3.

    Parameters
    ----------
    v : number or sympy.Expr
        The value reached, ``v >= v0``.
    k : int
        The number of blocks, ``k >= 2``.
    v0 : number or sympy.Expr, optional
        The initial value (default 1).

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
    if isinstance(v, (int, Fraction)) and isinstance(v0, (int, Fraction)):
        v, v0 = Fraction(v), Fraction(v0)
        if v0 <= 0 or v < v0:
            raise ValueError(f"flow_time needs v >= v0 > 0 (v only grows along the flow), got v = {v}, v0 = {v0}")
        if k == 2:
            return sympy.log(sympy.Rational(v.numerator, v.denominator) / sympy.Rational(v0.numerator, v0.denominator))
        return (v0 ** (2 - k) - v ** (2 - k)) / (k - 2)
    vs, v0s = as_number(v, "v"), as_number(v0, "v0")
    if k == 2:
        return sympy.log(vs / v0s)
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
    us = [_rational(x, "irrelevant weight") for x in u]
    m = len(us)
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
    a = sum((p for x, p in dist.items() if x < av), Fraction(0))
    b = sum((p for x, p in dist.items() if x > av), Fraction(0))
    return a, b


def _irrelevant(k: int, u: Sequence[Sequence] | None, n_prime: object | None) -> list[list]:
    if u is None:
        if n_prime is None:
            raise ValueError("give the irrelevant weights u (k sequences) or n_prime (all-ones irrelevant weights)")
        m = _check_n_prime(n_prime)
        return [[1] * (m - 1) for _ in range(k)]
    blocks = [list(ui) for ui in u]
    if len(blocks) != k:
        raise ValueError(f"u must hold one irrelevant-weight vector per block (k = {k}), got {len(blocks)}")
    return blocks


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

    Returns
    -------
    Fraction
        The 0-1 error.

    Examples
    --------
    >>> from theory.polynet import error
    >>> print(error([2, 2, 2], n_prime=4), error([2, 2, -2], n_prime=4))
    37/128 91/128
    >>> error([2, 2, 2], n_prime=4) == error([2, 2, 2], [[1, -1, 1]] * 3)  # any ±1 irrelevant weights
    True
    """
    vs = [_rational(x, "v") for x in v]
    k = len(vs)
    if k < 1:
        raise ValueError("v must hold at least one relevant weight (k >= 1)")
    blocks = _irrelevant(k, u, n_prime)
    sigma = math.prod((x > 0) - (x < 0) for x in vs)
    plus, minus = Fraction(1), Fraction(1)
    for vi, ui in zip(vs, blocks):
        a, b = block_probabilities(vi, sum_distribution(ui))
        plus *= a + b
        minus *= a - b
    return 1 - (plus + sigma * minus) / 2


def _binomial_counts(m: int) -> list[int]:
    """[C(m, 0), ..., C(m, m)] by the exact recurrence C(m, j+1) = C(m, j)(m-j)/(j+1)."""
    out = [1]
    for j in range(m):
        out.append(out[-1] * (m - j) // (j + 1))
    return out


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

    Returns
    -------
    Fraction
        The 0-1 error.

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
    vv = _rational(v, "v")
    if vv <= 0:
        raise ValueError(f"equal_init_error needs v > 0 (positive product along the flow), got {vv}")
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


def error_pieces(k: object, n_prime: object, v0: object = 1) -> list[ErrorPiece]:
    """err(v) for v >= v0 along the all-equal flow, as a step function (all-ones irrelevant weights).

    Breakpoints are the atoms of U = sum of n'-1 signs (integers n'-1-2j > v0); between them err is constant;
    at an atom some outputs are exactly 0. Pieces are in increasing v; the first starts at v0 (a point piece if
    v0 is itself an atom), the last is (n'-1, oo) with err = 0.

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 1``.
    n_prime : int
        The block size, ``n' >= 1``.
    v0 : rational, optional
        The initial value, ``v0 > 0`` (default 1).

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
    v0 = _rational(v0, "v0")
    if v0 <= 0:
        raise ValueError(f"v0 must be > 0, got {v0}")
    c = _binomial_counts(m)
    atoms = sorted({m - 2 * j for j in range(m + 1)})
    probs = {m - 2 * j: c[j] for j in range(m + 1)}

    def counts(v: Fraction) -> tuple[int, int]:
        A = sum(p for x, p in probs.items() if x < v)
        B = sum(p for x, p in probs.items() if x > v)
        return A, B

    pieces: list[ErrorPiece] = []
    above = [Fraction(a) for a in atoms if a > v0]
    if v0 in atoms:
        pieces.append(ErrorPiece(v0, v0, True, _err_from_counts(*counts(v0), m, k)))
    lo = v0
    # incremental counts: A = mass below the current interval, B = mass above it
    for a in above:
        mid = (lo + a) / 2
        pieces.append(ErrorPiece(lo, a, False, _err_from_counts(*counts(mid), m, k)))
        pieces.append(ErrorPiece(a, a, True, _err_from_counts(*counts(a), m, k)))
        lo = a
    pieces.append(ErrorPiece(lo, None, False, _err_from_counts(*counts(lo + 1), m, k)))
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
    k : int
        The number of blocks, ``k >= 2``.
    n_prime : int
        The block size, ``n' >= 1``.
    v0 : rational, optional
        The initial value, ``v0 > 0`` (default 1).

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
        raise ValueError(f"eps must be in [0, 1), got {e}")
    v0 = _rational(v0, "v0")
    if v0 <= 0:
        raise ValueError(f"v0 must be > 0, got {v0}")
    vstar = _scan(k, m, v0, e)
    return vstar, flow_time(vstar, k, v0)


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
    k : int
        The number of blocks, ``k >= 2``.
    n_prime : int
        The block size, ``n' >= 1``.
    v0 : rational, optional
        The initial value, ``v0 > 0`` (default 1).

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
    ValueError: alpha must be in (0, 1] (for alpha = 0 the sup is infinite), got 0
    """
    k = _check_k(k, 2, "the equal-init flow needs k >= 2")
    m = _check_n_prime(n_prime) - 1
    al = _rational(alpha, "alpha")
    if not 0 < al <= 1:
        raise ValueError(f"alpha must be in (0, 1] (for alpha = 0 the sup is infinite), got {al}")
    pieces = error_pieces(k, m + 1, v0)
    hits = [p for p in pieces if p.err >= al]
    if not hits:
        v = _rational(v0, "v0")
    else:
        last = hits[-1]
        if last.point:
            v = last.lo
        else:
            assert last.hi is not None  # the last piece (lo, oo) has err = 0 < alpha: a hit has a finite end
            v = last.hi
    return v, flow_time(v, k, _rational(v0, "v0"))


def plateau_ratio(k: object, n_prime: object, eps: object = Fraction(49, 100)) -> Fraction:
    """1 - T(eps)/T(0) along the all-ones flow (Thm 5.7: this is O(n'^(1-k/2)) for eps = 0.49), exact.

    Needs k >= 3 and odd n' >= 3 (see the module docstring for the even-n' degeneracy).

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 3``.
    n_prime : int
        The block size, odd, ``n' >= 3``.
    eps : rational, optional
        The error level (default 49/100).

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
    ValueError: the plateau quantities need odd n' (got n' = 10): ...
    """
    k = _check_k(k, 3, "Thm 5.7 assumes k >= 3; for k = 2 the flow is exponential and T(0) = log(n'-1)")
    m = _check_n_prime(n_prime, odd=True)
    if m < 3:
        raise ValueError(f"n' must be >= 3 so that T(0) > 0 (v must grow from 1 to n'-1), got n' = {m}")
    _, t_eps = first_time_error_at_most(eps, k, m)
    _, t_0 = first_time_error_at_most(0, k, m)
    return 1 - t_eps / t_0


def plateau_ratio_scaled(k: object, n_prime: object, eps: object = Fraction(49, 100)) -> float:
    """(1 - T(eps)/T(0)) / n'^(1-k/2), which Thm 5.7 says is O(1) (no constant is given; about 12 for odd n' >= 11, k = 3..5).

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 3``.
    n_prime : int
        The block size, odd, ``n' >= 3``.
    eps : rational, optional
        The error level (default 49/100).

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
    return float(r) / float(m) ** (1 - kk / 2)


def velocity_at_plateau_end_approx(k: object, n_prime: object, gamma: float = 0.01) -> float:
    """sqrt(pi n'/2) (2 gamma)^(1/k): the v at which 1/2 - 1/2 (sqrt(2/(pi n')) v)^k = 1/2 - gamma (Cor. B.10,
    with the Gaussian small-argument approximation erf(v/sqrt(2n')) ~ sqrt(2/(pi n')) v).

    Parameters
    ----------
    k : int
        The number of blocks, ``k >= 1``.
    n_prime : int
        The block size, ``n' >= 1``.
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
    return math.sqrt(math.pi * m / 2) * (2 * gamma) ** (1 / k)


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
    v = [float(x) for x in v0]
    k = len(v)
    if k < 3:
        raise ValueError(f"Lemma B.8 needs k >= 3 (k = 2 is exponential), got k = {k}")
    if not math.prod(v) > 0:
        raise ValueError(f"Lemma B.8 needs prod v_i(0) > 0, got {v}")
    b = float(b)
    if not 0 <= i < k:
        raise ValueError(f"i must be in 0..{k - 1}, got {i}")
    if b < abs(v[i]):
        raise ValueError(f"b must be >= |v_i(0)| = {abs(v[i])}, got {b}")
    va = sum(x * x for x in v) / k
    vg = math.prod(x * x for x in v) ** (1 / k)
    e = 1 - k / 2
    lower = (va**e - (va + b * b - v[i] ** 2) ** e) / (k - 2)
    upper = (vg + b * b - v[i] ** 2) ** e / (k - 2)
    return lower, upper


def _norms(u: Sequence) -> tuple[float, float, float]:
    uf = [float(x) for x in u]
    if not uf or all(x == 0 for x in uf):
        raise ValueError("Lemma B.9 needs non-zero irrelevant weights u_i (||u_i||_2 > 0)")
    return max(abs(x) for x in uf), math.sqrt(sum(x * x for x in uf)), sum(abs(x) ** 3 for x in uf)


def _check_b9(v: Sequence, u: Sequence[Sequence]) -> None:
    """Lemma B.9's hypotheses on its inputs: one u_i per v_i, at least one factor, and prod_i v_i > 0."""
    if len(v) != len(u) or not v:
        raise ValueError(f"Lemma B.9 needs one weight vector u_i per v_i (k >= 1), got {len(v)} v and {len(u)} u")
    prod = math.prod(float(vi) for vi in v)
    if not prod > 0:
        raise ValueError(f"Lemma B.9 assumes prod_i v_i > 0, got v = {list(v)!r}")


def lemma_b9_upper_bound(v: Sequence, u: Sequence[Sequence], *, as_printed: bool = False) -> float:
    """Lemma B.9 upper bound on the error from Hoeffding: err <= sum_i P(U_i > |v_i|) + sum_i P(U_i = |v_i|).

    Corrected: 2 sum_i exp(-v_i^2/(2 ||u_i||_2^2)) (Hoeffding for a Rademacher sum: P(U >= t) <= exp(-t^2/(2||u||^2))).
    ``as_printed=True``: 2 sum_i exp(-v_i^2/||u_i||_2^2), which is false: k = 3, n' = 8, all-ones u, v = 6.51 gives
    err = 1 - (1 + (63/64)^3)/2 = 0.0230 > 0.0141 (a single tail P(U = 7) = 1/128 already exceeds exp(-v^2/7)).

    Parameters
    ----------
    v : sequence of numbers
        The relevant weights, with ``prod v_i > 0``.
    u : sequence of sequences of numbers
        The irrelevant weights of each block (non-zero).
    as_printed : bool, optional
        The thesis' form (default False: the corrected one).

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> from theory.polynet import error, lemma_b9_upper_bound
    >>> u = [[1] * 7] * 3
    >>> round(float(error(["6.51"] * 3, u)), 4), round(lemma_b9_upper_bound([6.51] * 3, u, as_printed=True), 4)
    (0.0231, 0.0141)
    >>> round(lemma_b9_upper_bound([6.51] * 3, u), 4)
    0.2907
    """
    _check_b9(v, u)
    d = 1.0 if as_printed else 2.0
    return 2 * sum(math.exp(-(float(vi) ** 2) / (d * _norms(ui)[1] ** 2)) for vi, ui in zip(v, u))


def lemma_b9_lower_bound(
    v: Sequence, u: Sequence[Sequence], *, as_printed: bool = False, c: float = float(BE_CONSTANT)
) -> float:
    """Lemma B.9 lower bound 1/2 - 1/2 prod_i (erf(|v_i|/(sqrt2 ||u_i||_2)) + BE_i).

    ``as_printed=True``: BE_i = c ||u_i||_inf/||u_i||_2^3 (as in the thesis; false, see module docstring).
    Otherwise (corrected): BE_i = 2 c sum_j |u_ij|^3/||u_i||_2^3 (two-sided Berry-Esseen for P(|U| <= |v|)),
    each factor capped at 1.

    Parameters
    ----------
    v : sequence of numbers
        The relevant weights, with ``prod v_i > 0``.
    u : sequence of sequences of numbers
        The irrelevant weights of each block (non-zero).
    as_printed : bool, optional
        The thesis' form (default False: the corrected one).
    c : float, optional
        The Berry-Esseen constant (default 0.56).

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> from theory.polynet import error, lemma_b9_lower_bound
    >>> u = [[1] * 100] * 3
    >>> round(float(error(["2.01"] * 3, u)), 4)
    0.4935
    >>> round(lemma_b9_lower_bound([2.01] * 3, u, as_printed=True), 4), round(lemma_b9_lower_bound([2.01] * 3, u), 4)
    (0.498, 0.49)
    """
    _check_b9(v, u)
    prod = 1.0
    for vi, ui in zip(v, u):
        inf, l2, l3 = _norms(ui)
        g = math.erf(abs(float(vi)) / (math.sqrt(2) * l2))
        be = c * inf / l2**3 if as_printed else 2 * c * l3 / l2**3
        prod *= (g + be) if as_printed else min(1.0, g + be)
    return 0.5 - 0.5 * prod


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
    prod = Fraction(1)
    for vi, ui in zip(v, u):
        av = abs(_rational(vi, "v"))
        prod *= sum((p for x, p in sum_distribution(ui).items() if abs(x) <= av), Fraction(0))
    return Fraction(1, 2) - prod / 2
