r"""Max-margin networks for (n, k)-sparse parity (exact).

Setting (Edelman thesis Thm 7.8, App. D.7):
inputs :math:`x\in\{\pm1\}^n`, label :math:`y=\chi_S(x)=\prod_{j\in S}x_j` with :math:`|S|=k`, network

.. math:: f(\theta, x) = \sum_{i=1}^m (u_i^\top x)^k\, w_i \in \mathbb R^2,

with :math:`w_i[0]` the logit of :math:`y=+1`, :math:`w_i[1]` that of :math:`y=-1`, :math:`\mathbf b=[1,-1]`,
and the norm :math:`\|\theta\|_{2,k+1}^{k+1}=\sum_i(\|u_i\|^2+\|w_i\|^2)^{(k+1)/2}` (the network is
(k+1)-homogeneous). The full cube is the dataset.

Results implemented here:

* Thm 7.8: for :math:`m\ge 2^{k-1}` the maximum normalized margin is
  :math:`\gamma^*(k)=\sqrt2\,k!\,(k+1)^{-(k+1)/2}`, independent of n (:func:`max_margin`, :func:`min_width`).
* App. D.7: the identity :math:`E_x[(u^\top x)^k\chi_S(x)] = k!\prod_{j\in S}u_j`
  (:func:`parity_expectation`), the single-neuron objective (:func:`neuron_margin`) and its unit maximizers
  :math:`u=\sigma/\sqrt{k+1}` on S, :math:`w=(\prod\sigma)/\sqrt{k+1}\cdot\mathbf b/\sqrt2`
  (:func:`optimal_neuron`).
* App. D.7 (cleaned): the width-:math:`2^{k-1}` construction, one neuron per
  :math:`\sigma\in\{\pm1\}^k` with :math:`\sigma_1=+1`, scale :math:`\lambda=2^{-(k-1)/(k+1)}`, whose output is
  :math:`(k!/\sqrt2)(k+1)^{-(k+1)/2}\chi_S(x)\,\mathbf b` (:func:`construction`).
* Thm 7.8 items 1-2: the structure of every max-margin network, as a checkable description
  (:class:`StructuralPrediction`, :func:`structural_prediction`).
* Thm 5.5 (full statement, App. B.2.1; a ReLU MLP, not the network above): the schedule of its SGD algorithm,
  width, iterations, batch, the two rates and the bias grid (``thm55_*``).

Three typos of the thesis are typographic ("∏_{j∈𝒮𝒮}", the garbled "ε_1 = 1" and the pair-flip
argument, "quadratic" for the quartic network); none changes a number, so no refuted claim is needed.

Hypotheses on the inputs
------------------------
* ``k`` is an integer >= 1 (the activation degree and the parity's order) and ``n >= k``.
* The support S is a set of k distinct indices in ``0..n-1`` (0-based).
* A construction needs width ``m >= 2^{k-1}``; extra width is zero padding.
* Sizes (checked before any work, ``docs/limits.md``): the exact closed forms accept k <= 1463 (k! of at
  most 4000 digits); the exact construction at most 200000 entries (2^(k-1) neurons of n + 2), so
  ``k = 30`` is refused before anything is built; :func:`cube` n <= 16.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

import sympy
from sympy import Rational, factorial, sqrt

from ._checks import (
    MAX_DIGITS,
    MAX_EXACT_ENTRIES,
    InputError,
    as_fraction,
    as_number,
    check_bool,
    check_cost,
    check_entries,
    check_positive_int,
    format_count,
    is_symbolic,
    log10_factorial,
)
from ._docstrings import fill_doc, sections

__all__ = [
    "LEMB5_SOURCE",
    "MAX_LEMB5_K",
    "MAX_THM55_BATCH",
    "MAX_THM55_N",
    "SOURCE",
    "THM55_SOURCE",
    "ParityConstruction",
    "ParityNeuron",
    "StructuralPrediction",
    "check_nk",
    "check_support",
    "construction",
    "cube",
    "expectation_identity_residual",
    "lemB5_batch",
    "lemB5_coordinate_tail",
    "lemB5_first_step_gradient",
    "lemB5_hoeffding_bound",
    "lemB5_miss_bound_as_printed",
    "lemB5_miss_probability",
    "lemB5_slot_biases",
    "lemB5_slot_probability",
    "lemB5_slot_probability_as_printed",
    "lemB5_tau",
    "lemB5_width",
    "max_margin",
    "max_margin_spec_form",
    "min_width",
    "neuron_margin",
    "optimal_neuron",
    "output_coefficient",
    "parity_expectation",
    "structural_prediction",
    "thm55_batch",
    "thm55_bias_grid",
    "thm55_first_step_rate",
    "thm55_second_layer_rate",
    "thm55_steps",
    "thm55_width",
]

SOURCE = "Edelman thesis Thm 7.8"

MAX_CUBE_BITS = 16
"""Largest n for :func:`cube` (2^16 exact points)."""

MAX_EXPANSION_TERMS = 20_000
"""Largest number of monomials C(n+k-1, k) of the symbolic expansion in :func:`parity_expectation`."""


#: Shared docstring entries and sections (:func:`theory._docstrings.fill_doc`).
_K_SYMBOLIC = (
    "k : int or sympy.Symbol\n    Parity order ``k >= 1``; a symbol gives the symbolic formula (no validation)."
)
_WIDTH = "r : int\n    The width."
_EVEN_WIDTH = "r : int\n    Even width."
_N_ODD = "n : int\n    Odd input dimension n > k."
_K_EVEN = "k : int\n    Even parity degree."
_LEMB5_EPS = "eps : rational\n    The lemma's epsilon, in (0, 1/2)."
_LEMB5_DELTA = "delta : rational\n    The lemma's delta, in (0, 1/2)."
_EPS_INT = "eps : rational\n    The target loss, in (0, 1/2).\n\n" + sections(returns="int")
_DOC = {
    "k_symbolic": sections(_K_SYMBOLIC),
    "k_margin": sections(_K_SYMBOLIC, returns="sympy.Expr\n    Exact value of :math:`\\gamma^*(k)`."),
    "n_support": sections(
        "n : int\n    Number of input bits.", "support : sequence of int\n    S (0-based); k = ``len(support)``."
    ),
    "n_k": sections(_N_ODD, _K_EVEN),
    "nk_r": sections("n, k : int\n    Odd input dimension and even parity degree.", _WIDTH),
    "eps_int": _EPS_INT,
    "r_eps_int": _WIDTH + "\n" + _EPS_INT,
    "lemB5_tau": sections(_N_ODD, _K_EVEN, _LEMB5_EPS, returns="float\n    tau."),
    "lemB5_batch": sections(
        _N_ODD,
        _K_EVEN,
        _WIDTH,
        "eps, delta : rational\n    The lemma's epsilon and delta, in (0, 1/2).",
        returns="int\n    B.",
    ),
    "lemB5_width": sections(
        _K_EVEN,
        _LEMB5_DELTA,
        "corrected : bool\n    The corrected condition instead of the printed one.",
        returns="int\n    r.",
    ),
    "lemB5_slot_biases": sections(_K_EVEN, returns="list of Fraction\n    The k slot biases, increasing."),
    "lemB5_q": sections(_K_EVEN, returns="Fraction\n    q."),
    "lemB5_q_printed": sections(_K_EVEN, returns="Fraction\n    1/(k 2^(k-1))."),
    "lemB5_miss": sections(_K_EVEN, _EVEN_WIDTH, returns="Fraction\n    P."),
    "lemB5_miss_printed": sections(_K_EVEN, _EVEN_WIDTH, returns="Fraction\n    k (1 - 1/(k 2^(k-1)))^(r/2)."),
}


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _check_k(k: object) -> int:
    return check_positive_int(k, "k", hypothesis=f"{SOURCE}: the parity order and activation degree k >= 1")


def _exact_cost(k: int) -> float:
    """log10 of the larger of k! and (k+1)^((k+1)/2), the digits of the exact gamma*(k)."""
    return max(log10_factorial(k), (k + 1) / 2 * math.log10(k + 1)) if k < 10**300 else math.inf


def _largest_exact_k() -> int:
    """The largest k whose :func:`_exact_cost` is at most MAX_DIGITS (1463 at 4000 digits)."""
    k = 1
    while _exact_cost(k + 1) <= MAX_DIGITS:
        k += 1
    return k


def _check_exact_k(k: object) -> int:
    """k for the exact closed forms: k! and (k+1)^((k+1)/2) must have at most MAX_DIGITS digits."""
    k = _check_k(k)
    check_cost(
        _exact_cost(k),
        MAX_DIGITS,
        param="k",
        value=k,
        what="the exact gamma*(k) = sqrt(2) k! (k+1)^(-(k+1)/2)",
        hint=f"the exact closed forms accept k <= {_MAX_EXACT_K}; pass a sympy Symbol for the symbolic formula",
        log10=True,
    )
    return k


_MAX_EXACT_K = _largest_exact_k()
"""Largest k of the exact closed forms (k! and (k+1)^((k+1)/2) of at most MAX_DIGITS digits)."""


def _check_construction_size(n: int, k: int) -> None:
    check_entries(
        (k - 1) * math.log10(2) + math.log10(n + 2),
        lambda: 2 ** (k - 1) * (n + 2),
        param="k",
        value=k,
        what=f"the exact construction (2^(k-1) neurons of n + 2 = {n + 2} entries)",
        hint="max_margin(k) and min_width(k) give the closed forms of Thm 7.8 without building it",
    )


def _bounded_list(values: object, name: str, what: str) -> list[object]:
    """The items of a caller's sequence, at most MAX_EXACT_ENTRIES of them: the length is checked before the items
    are copied (a ``range(10**9)`` support used to be listed in full)."""
    if isinstance(values, (str, bytes)):
        raise InputError(f"{name} must be a sequence of {what}, got {values!r:.80}", param=name)
    try:
        size = len(values)  # type: ignore[arg-type]
    except TypeError:
        size = None
    if size is not None:
        check_cost(size, MAX_EXACT_ENTRIES, param=name, value=size, what=f"the length of {name}", hint="")
    try:
        items = list(itertools.islice(iter(values), MAX_EXACT_ENTRIES + 1))  # type: ignore[call-overload]
    except TypeError:
        raise InputError(f"{name} must be a sequence of {what}, got {values!r:.80}", param=name) from None
    check_cost(len(items), MAX_EXACT_ENTRIES, param=name, value=len(items), what=f"the length of {name}", hint="")
    return items


def _bit_index(j: object) -> int:
    try:
        return check_positive_int(j, "support index", minimum=0, hypothesis="0-based bit index")
    except InputError as exc:
        raise InputError(str(exc), param="support") from None


def check_nk(n: object, k: object) -> tuple[int, int]:
    """Validate ``n >= 1`` and ``1 <= k <= n`` (Thm 7.8: a k-sparse parity on n bits).

    Parameters
    ----------
    n : int
        Number of input bits.
    k : int
        Parity order.

    Returns
    -------
    (n, k) : tuple of int

    Raises
    ------
    ValueError
        Naming the violated hypothesis (n < 1, k < 1 or k > n).

    Examples
    --------
    >>> check_nk(5, 3)
    (5, 3)
    >>> check_nk(2, 3)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: k = 3 > n = 2: Edelman thesis Thm 7.8 needs a support S of k <= n of the n input bits
    """
    n_int = check_positive_int(n, "n", hypothesis=f"{SOURCE}: the number of input bits n >= 1")
    k_int = _check_k(k)
    if k_int > n_int:
        raise InputError(
            f"k = {format_count(k_int)} > n = {format_count(n_int)}: {SOURCE} needs a support S of k <= n of the n input bits",
            param="k",
        )
    return n_int, k_int


def check_support(n: object, support: Sequence[object], k: object | None = None) -> tuple[int, tuple[int, ...]]:
    """Validate the parity's support S (0-based indices) for n bits, optionally of size k.

    Returns ``(n, S)`` with S as a sorted tuple of ints.

    Parameters
    ----------
    n : int
        Number of input bits.
    support : sequence of int
        The indices of S, in ``0..n-1``.
    k : int, optional
        The required size of S.

    Returns
    -------
    (n, S) : tuple of int and tuple of int

    Raises
    ------
    ValueError
        If S is empty, has repeated or out-of-range entries, non-integer entries, or its size is not k.

    Examples
    --------
    >>> check_support(5, [3, 0, 2])
    (5, (0, 2, 3))
    >>> check_support(4, [1, 1])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the support S has repeated indices [1, 1]; Edelman thesis Thm 7.8 needs k distinct bits
    >>> check_support(4, [0, 1], k=3)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the support S = [0, 1] has size 2, not k = 3 (Edelman thesis Thm 7.8 needs |S| = k)
    """
    n_int = check_positive_int(n, "n", hypothesis=f"{SOURCE}: the number of input bits n >= 1")
    if isinstance(support, (str, bytes)) or (hasattr(support, "__len__") and len(support) > n_int):
        raise InputError(
            f"support must be a sequence of at most n = {format_count(n_int)} distinct bit indices, "
            f"got {support!r:.80}",
            param="support",
        )
    items = _bounded_list(support, "support", "bit indices")
    idx = [_bit_index(j) for j in items]
    if not idx:
        raise InputError(f"the support S must be non-empty ({SOURCE} needs |S| = k >= 1)", param="support")
    if len(set(idx)) != len(idx):
        raise InputError(
            f"the support S has repeated indices {sorted(idx)[:20]}; {SOURCE} needs k distinct bits", param="support"
        )
    bad = [j for j in idx if j >= n_int]
    if bad:
        raise InputError(
            f"support indices {bad[:20]} are out of range 0..{format_count(n_int - 1)} for n = {format_count(n_int)} "
            "bits",
            param="support",
        )
    if k is not None:
        k_int = _check_k(k)
        if len(idx) != k_int:
            raise InputError(
                f"the support S = {sorted(idx)[:20]} has size {len(idx)}, not k = {format_count(k_int)} "
                f"({SOURCE} needs |S| = k)",
                param="support",
            )
    check_nk(n_int, len(idx))
    return n_int, tuple(sorted(idx))


# --------------------------------------------------------------------------------------------
# Closed forms
# --------------------------------------------------------------------------------------------


@fill_doc(_DOC)
def max_margin(k: int | sympy.Expr) -> sympy.Expr:
    r"""Maximum L_{2,k+1}-normalized margin of the degree-k parity network (Thm 7.8).

    .. math:: \gamma^*(k) = \sqrt2\,k!\,(k+1)^{-(k+1)/2}

    Independent of n; valid for width :math:`m\ge 2^{k-1}`.

    {{k_margin}}

    Examples
    --------
    >>> max_margin(1), max_margin(2), max_margin(3)
    (sqrt(2)/2, 2*sqrt(6)/9, 3*sqrt(2)/8)
    >>> from sympy import Symbol
    >>> max_margin(Symbol("k"))
    sqrt(2)*(k + 1)**(-k/2 - 1/2)*factorial(k)
    >>> max_margin(0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: k must be an integer >= 1 ...
    """
    if not is_symbolic(k):
        k = sympy.Integer(_check_exact_k(k))
    return sqrt(2) * factorial(k) * (k + 1) ** (-(k + 1) / sympy.Integer(2))


@fill_doc(_DOC)
def max_margin_spec_form(k: int | sympy.Expr) -> sympy.Expr:
    r"""The same value as printed in Thm 7.8: :math:`k!\sqrt{2(k+1)^{-(k+1)}}` (stated independently).

    {{k_margin}}

    Examples
    --------
    >>> max_margin_spec_form(3)
    3*sqrt(2)/8
    >>> all(max_margin_spec_form(k) == max_margin(k) for k in range(1, 8))
    True
    """
    if not is_symbolic(k):
        k = sympy.Integer(_check_exact_k(k))
    return factorial(k) * sqrt(2 * (k + 1) ** (-(k + 1)))


def min_width(k: int | sympy.Expr) -> int | sympy.Expr:
    r"""The width requirement of Thm 7.8 and the size of the construction, :math:`2^{k-1}`.

    Parameters
    ----------
    k : int or sympy.Symbol
        Parity order ``k >= 1``; a symbol gives the symbolic formula.

    Returns
    -------
    int or sympy.Expr
        :math:`2^{k-1}`.

    Examples
    --------
    >>> min_width(4)
    8
    >>> from sympy import Symbol
    >>> min_width(Symbol("k"))
    2**(k - 1)
    """
    if is_symbolic(k):
        return 2 ** (k - 1)
    return 2 ** (_check_exact_k(k) - 1)


@fill_doc(_DOC)
def output_coefficient(k: int | sympy.Expr) -> sympy.Expr:
    r"""The construction's output :math:`f(x) = c\,\chi_S(x)\,[1,-1]` has :math:`c=(k!/\sqrt2)(k+1)^{-(k+1)/2}=\gamma^*/2`.

    {{k_symbolic}}

    Returns
    -------
    sympy.Expr
        The coefficient c.

    Examples
    --------
    >>> output_coefficient(3)
    3*sqrt(2)/16
    >>> 2 * output_coefficient(3) == max_margin(3)
    True
    """
    if not is_symbolic(k):
        k = sympy.Integer(_check_exact_k(k))
    return factorial(k) / sqrt(2) * (k + 1) ** (-(k + 1) / sympy.Integer(2))


def cube(n: int) -> list[tuple[int, ...]]:
    r"""All points of :math:`\{\pm1\}^n` in the order of ``numerics.parity.SparseParityTask``:
    point i has bit j equal to :math:`1-2\,((i\gg j)\,\&\,1)`.

    Parameters
    ----------
    n : int
        Number of bits, ``1 <= n <= 16``.

    Returns
    -------
    list of tuple of int
        The :math:`2^n` points.

    Examples
    --------
    >>> cube(2)
    [(1, 1), (-1, 1), (1, -1), (-1, -1)]
    >>> cube(17)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 17 is above the limit n <= 16 ...
    """
    n = check_positive_int(n, "n", hypothesis=f"{SOURCE}: the number of input bits n >= 1")
    check_cost(
        n,
        MAX_CUBE_BITS,
        param="n",
        value=n,
        what="the number of bits of the exact cube (2^n points)",
        hint="numerics.parity.SparseParityTask streams the cube in float64 (n <= 26)",
    )
    return [tuple(1 - 2 * ((i >> j) & 1) for j in range(n)) for i in range(2**n)]


# --------------------------------------------------------------------------------------------
# The expectation identity and the single-neuron objective (App. D.7)
# --------------------------------------------------------------------------------------------


def _check_expansion_terms(n: int, k: int, hint: str) -> None:
    r"""Raise :class:`LimitError` (naming n and ``hint``) when the expansion of :math:`(u^\top x)^k` in n symbols has
    more than MAX_EXPANSION_TERMS monomials, :math:`\binom{n+k-1}{k}` (counted as infinite for n > 10,000)."""
    check_cost(
        math.comb(n + k - 1, k) if n <= 10_000 else math.inf,
        MAX_EXPANSION_TERMS,
        param="n",
        value=n,
        what=f"the number of monomials C(n+k-1, k) of the expansion of (u.x)^k at k = {k}",
        hint=hint,
    )


def _as_vector(values: Sequence[object], name: str) -> list[sympy.Expr]:
    """A caller's vector as exact sympy entries (numbers or sympy expressions; strings are never evaluated)."""
    return [as_number(v, name) for v in _bounded_list(values, name, "numbers")]


def parity_expectation(u: Sequence[object], support: Sequence[int], k: int | None = None) -> sympy.Expr:
    r""":math:`E_{x\sim U\{\pm1\}^n}[(u^\top x)^k\chi_S(x)]` computed by expansion with :math:`x_j^2=1`.

    The polynomial :math:`(u^\top x)^k\prod_{j\in S}x_j` is expanded in fresh symbols :math:`x_j`; every
    exponent is reduced mod 2 (:math:`x_j^2=1`) and the expectation keeps the constant term (every
    non-constant multilinear monomial has mean 0). Works for symbolic u. Cost grows like
    :math:`\binom{n+k-1}{k}` terms, so use small n.

    Parameters
    ----------
    u : sequence of n numbers or sympy expressions
        The neuron's input weights.
    support : sequence of int
        S (0-based); ``k`` defaults to ``len(support)``.
    k : int, optional
        Degree of the activation; must equal ``|S|`` (Thm 7.8 uses degree k for a k-sparse parity).

    Returns
    -------
    sympy.Expr
        Equal to ``k! * prod(u[j] for j in S)`` (:func:`expectation_identity_residual`).

    Examples
    --------
    >>> parity_expectation([1, 2, 3], [0, 2])
    6
    >>> from sympy import symbols
    >>> a, b, c = symbols("a b c")
    >>> parity_expectation([a, b, c], [0, 2])
    2*a*c
    """
    u = _as_vector(u, "u")
    n, S = check_support(len(u), support, k)
    kk = len(S)
    _check_expansion_terms(
        n, kk, "use expectation_identity_residual's closed form k! prod_S u_j (App. D.7) for large n"
    )
    x = sympy.symbols(f"x0:{n}")
    poly = sympy.Poly(sympy.Add(*[ui * xi for ui, xi in zip(u, x)]) ** kk * sympy.Mul(*[x[j] for j in S]), *x)
    const = sympy.Integer(0)
    for monom, coeff in poly.terms():
        if all(e % 2 == 0 for e in monom):
            const += coeff
    return sympy.expand(const)


def expectation_identity_residual(n: int, k: int) -> sympy.Expr:
    r""":math:`E_x[(u^\top x)^k\chi_S(x)] - k!\prod_{j\in S}u_j` for symbolic :math:`u\in\mathbb R^n`,
    S = the first k bits. Simplifies to 0.

    Parameters
    ----------
    n : int
        Number of bits (the expansion has :math:`\binom{n+k-1}{k}` monomials: keep n small).
    k : int
        Parity order, ``1 <= k <= n``.

    Returns
    -------
    sympy.Expr
        The expanded residual, 0.

    Examples
    --------
    >>> expectation_identity_residual(3, 2)
    0
    """
    n, k = check_nk(n, k)
    _check_expansion_terms(n, k, "the identity is checked symbolically for small n and k only")
    u = sympy.symbols(f"u0:{n}", real=True)
    S = tuple(range(k))
    return sympy.expand(parity_expectation(u, S) - factorial(k) * sympy.Mul(*[u[j] for j in S]))


def neuron_margin(u: Sequence[object], w: Sequence[object], support: Sequence[int]) -> sympy.Expr:
    r"""Expected margin of one neuron under uniform q: :math:`E_x[\psi] = k!\,(w_0-w_1)\prod_{j\in S}u_j`.

    :math:`\psi(\omega,x,y) = \phi[y]-\phi[-y] = (u^\top x)^k (w_0-w_1)\chi_S(x)`, so the identity of
    :func:`parity_expectation` gives the value :math:`\sqrt2\,k!\,\beta\prod u_j` with
    :math:`\beta = (w_0-w_1)/\sqrt2`. Not normalized; divide by :math:`\|\omega\|^{k+1}`.

    Parameters
    ----------
    u : sequence of n numbers or sympy expressions
        Input weights.
    w : sequence of 2 numbers or sympy expressions
        Output weights (logits of y = +1 and y = -1).
    support : sequence of int
        S (0-based); k = ``len(support)``.

    Returns
    -------
    sympy.Expr
        :math:`k!\,(w_0-w_1)\prod_{j\in S}u_j`.

    Examples
    --------
    >>> neuron_margin([1, 2, 3], [1, -1], [0, 2])
    12
    >>> n = optimal_neuron(3, [0, 2])
    >>> neuron_margin(n.u, n.w, [0, 2]) == max_margin(2)
    True
    """
    u = _as_vector(u, "u")
    w = _as_vector(w, "w")
    if len(w) != 2:
        raise InputError(f"w must have 2 entries (logits of y = +1 and y = -1), got {len(w)}", param="w")
    _, S = check_support(len(u), support)
    return factorial(len(S)) * (w[0] - w[1]) * sympy.Mul(*[u[j] for j in S])


@dataclass(frozen=True)
class ParityNeuron:
    """One neuron :math:`(u, w)` with exact entries; ``u`` has n entries, ``w`` two.

    Attributes
    ----------
    u : tuple of sympy.Expr
        Input weights (n entries).
    w : tuple of sympy.Expr
        Output weights: the logits of y = +1 and y = -1.

    Examples
    --------
    >>> from sympy import Integer, Rational
    >>> n = ParityNeuron(u=(Integer(1), Integer(0)), w=(Integer(1), Integer(-1)))
    >>> n.norm_squared(), n.preactivation((1, -1))
    (3, 1)
    >>> n.scaled(Rational(1, 2))
    ParityNeuron(u=(1/2, 0), w=(1/2, -1/2))
    """

    u: tuple[sympy.Expr, ...]
    w: tuple[sympy.Expr, ...]

    def norm_squared(self) -> sympy.Expr:
        r""":math:`\|u\|^2+\|w\|^2` (exact)."""
        return sympy.nsimplify(sympy.Add(*[v**2 for v in self.u + self.w]))

    def scaled(self, lam: sympy.Expr) -> ParityNeuron:
        return ParityNeuron(tuple(lam * v for v in self.u), tuple(lam * v for v in self.w))

    def preactivation(self, x: Sequence[int]) -> sympy.Expr:
        return sympy.Add(*[ui * xi for ui, xi in zip(self.u, x)])


@fill_doc(_DOC)
def optimal_neuron(n: int, support: Sequence[int], sigma: Sequence[int] | None = None) -> ParityNeuron:
    r"""A unit-norm maximizer of the single-neuron margin (App. D.7).

    :math:`u_j=\sigma_j/\sqrt{k+1}` for the j-th element of S, 0 off S, and
    :math:`w=(\prod\sigma)/\sqrt{k+1}\cdot[1,-1]/\sqrt2`. Its expected margin is :func:`max_margin`.

    {{n_support}}
    sigma : sequence of k signs (+1/-1), optional
        Defaults to all +1.

    Returns
    -------
    ParityNeuron
        The neuron, of unit norm.

    Examples
    --------
    >>> optimal_neuron(3, [0, 2])
    ParityNeuron(u=(sqrt(3)/3, 0, sqrt(3)/3), w=(sqrt(6)/6, -sqrt(6)/6))
    >>> optimal_neuron(3, [0, 2], sigma=[1, -1]).norm_squared()
    1
    >>> optimal_neuron(3, [0, 2], sigma=[1, 2])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: sigma must be k = 2 signs in {+1, -1}, got (1, 2)
    """
    n, S = check_support(n, support)
    check_cost(n, MAX_EXACT_ENTRIES, param="n", value=n, what="the number of exact entries of u", hint="")
    k = len(S)
    signs: tuple[object, ...] = tuple([1] * k if sigma is None else _bounded_list(sigma, "sigma", "signs"))
    if len(signs) != k or any(isinstance(s, bool) or s not in (1, -1) for s in signs):
        raise InputError(f"sigma must be k = {k} signs in {{+1, -1}}, got {signs!r:.200}", param="sigma")
    sigma = cast("tuple[int, ...]", signs)
    r = 1 / sqrt(k + 1)
    u = [sympy.Integer(0)] * n
    for s, j in zip(sigma, S):
        u[j] = s * r
    sign = math.prod(sigma)
    w = (sign * r / sqrt(2), -sign * r / sqrt(2))
    return ParityNeuron(tuple(u), tuple(sympy.sympify(v) for v in w))


@dataclass(frozen=True)
class ParityConstruction:
    r"""The width-:math:`2^{k-1}` max-margin network of App. D.7 (cleaned: ``docs/parity.md``).

    One neuron :math:`\lambda\cdot` :func:`optimal_neuron` ``(sigma)`` per :math:`\sigma\in\{\pm1\}^k` with
    :math:`\sigma_1=+1`, :math:`\lambda = 2^{-(k-1)/(k+1)}` so that :math:`\|\theta\|_{2,k+1}^{k+1}=1`.
    ``width`` may exceed the number of neurons (zero padding).

    Attributes
    ----------
    n : int
        Number of input bits.
    support : tuple of int
        S, sorted.
    neurons : tuple of ParityNeuron
        The :math:`2^{k-1}` non-zero neurons.
    scale : sympy.Expr
        :math:`\lambda`.
    width : int
        Total width m.

    Examples
    --------
    >>> c = construction(3, [0, 2])
    >>> c.n_active, c.scale
    (2, 2**(2/3)/2)
    >>> c.logits((1, 1, -1)), c.predicted_logits((1, 1, -1))
    ((-sqrt(6)/9, sqrt(6)/9), (-sqrt(6)/9, sqrt(6)/9))
    >>> c.point_margin((1, 1, -1)), c.margin, c.norm_power
    (2*sqrt(6)/9, 2*sqrt(6)/9, 1)
    >>> c.normalized_margin == max_margin(2)
    True
    """

    n: int
    support: tuple[int, ...]
    neurons: tuple[ParityNeuron, ...]
    scale: sympy.Expr
    width: int

    @property
    def k(self) -> int:
        return len(self.support)

    @property
    def n_active(self) -> int:
        """Number of non-zero neurons (= :func:`min_width`)."""
        return len(self.neurons)

    def logits(self, x: Sequence[int]) -> tuple[sympy.Expr, sympy.Expr]:
        r"""Exact network output at :math:`x\in\{\pm1\}^n`, summed neuron by neuron (no shortcut)."""
        if (
            isinstance(x, (str, bytes))
            or not hasattr(x, "__len__")
            or len(x) != self.n
            or any(v not in (1, -1) for v in x)
        ):
            raise InputError(f"x must be a point of {{+1,-1}}^{self.n}, got {x!r:.80}", param="x")
        out = [sympy.Integer(0), sympy.Integer(0)]
        for nr in self.neurons:
            a = nr.preactivation(x) ** self.k
            out = [out[0] + a * nr.w[0], out[1] + a * nr.w[1]]
        return tuple(sympy.radsimp(sympy.simplify(v)) for v in out)

    def predicted_logits(self, x: Sequence[int]) -> tuple[sympy.Expr, sympy.Expr]:
        r"""The claimed output :math:`(k!/\sqrt2)(k+1)^{-(k+1)/2}\chi_S(x)[1,-1]`."""
        c = output_coefficient(self.k) * math.prod(x[j] for j in self.support)
        return c, -c

    def point_margin(self, x: Sequence[int]) -> sympy.Expr:
        r""":math:`f[y]-f[-y]` at x with :math:`y=\chi_S(x)` (index 0 for +1, 1 for -1)."""
        f = self.logits(x)
        y = 0 if math.prod(x[j] for j in self.support) == 1 else 1
        return sympy.simplify(f[y] - f[1 - y])

    @property
    def margin(self) -> sympy.Expr:
        r"""Dataset margin :math:`h(\theta)`: twice the output coefficient, the same at every x."""
        return 2 * output_coefficient(self.k)

    @property
    def norm_power(self) -> sympy.Expr:
        r""":math:`\|\theta\|_{2,k+1}^{k+1}=\sum_i\|\theta_i\|^{k+1}` (exact; equals 1)."""
        return sympy.simplify(sympy.Add(*[nr.norm_squared() ** Rational(self.k + 1, 2) for nr in self.neurons]))

    @property
    def normalized_margin(self) -> sympy.Expr:
        r""":math:`h(\theta)/\|\theta\|_{2,k+1}^{k+1}`; simplifies to :func:`max_margin`."""
        return sympy.radsimp(sympy.simplify(self.margin / self.norm_power))


@fill_doc(_DOC)
def construction(n: int, support: Sequence[int], width: int | None = None) -> ParityConstruction:
    """Build the width-``2^{k-1}`` construction (see :class:`ParityConstruction`).

    {{n_support}}
    width : int, optional
        Total width m, at least :math:`2^{k-1}` (the default); extra neurons are zero.

    Returns
    -------
    ParityConstruction

    Raises
    ------
    ValueError
        For an invalid support, or ``width`` below ``2^{k-1}`` (Thm 7.8 requires ``m >= 2^{k-1}``).

    Examples
    --------
    >>> c = construction(4, [0, 1, 3], width=5)
    >>> c.n_active, c.width, c.normalized_margin
    (4, 5, 3*sqrt(2)/8)
    >>> construction(3, [0, 1], width=1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: width m = 1 is below 2^(k-1) = 2 for k = 2: ...
    """
    n, S = check_support(n, support)
    k = len(S)
    _check_construction_size(n, k)
    need = min_width(k)
    width = need if width is None else check_positive_int(width, "width")
    if width < need:
        raise InputError(
            f"width m = {width} is below 2^(k-1) = {need} for k = {k}: {SOURCE} and its construction "
            f"require m >= {need} neurons",
            param="width",
        )
    lam = sympy.Integer(2) ** Rational(-(k - 1), k + 1)
    neurons = tuple(optimal_neuron(n, S, (1, *rest)).scaled(lam) for rest in itertools.product([1, -1], repeat=k - 1))
    return ParityConstruction(n=n, support=S, neurons=neurons, scale=lam, width=width)


# --------------------------------------------------------------------------------------------
# Structure of every max-margin network (Thm 7.8 items 1-2)
# --------------------------------------------------------------------------------------------


def _finite_floats(values: Sequence[float], name: str) -> list[float]:
    """A caller's weights as finite floats (NaN or infinite weights have no direction to compare); float work, so no
    length limit."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InputError(f"{name} must be a sequence of numbers, got {values!r:.80}", param=name)
    out = []
    for v in values:
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"{name} must hold real numbers, got {v!r:.80}", param=name) from None
        if not math.isfinite(f):
            raise InputError(f"{name} must hold finite numbers, got {v!r:.80}", param=name)
        out.append(f)
    return out


@dataclass(frozen=True)
class StructuralPrediction:
    r"""What Thm 7.8 says about every neuron of every max-margin network, for a unit-norm neuron
    :math:`\bar\omega = \omega/\|\omega\|`.

    Attributes
    ----------
    n : int
        Number of input bits.
    support : tuple of int
        :math:`\mathrm{spt}(u)=S`.
    abs_u : sympy.Expr
        :math:`|\bar u_j| = 1/\sqrt{k+1}` for every :math:`j\in S` (equal to :math:`\|\bar w\|`).
    w_norm : sympy.Expr
        :math:`\|\bar w\| = 1/\sqrt{k+1}`.
    w_entry : sympy.Expr
        :math:`\bar w=\pm w_{\text{entry}}[1,-1]`, :math:`w_{\text{entry}}=1/\sqrt{2(k+1)}` (w in span b).
    sign_rule : str
        :math:`(\prod_S u_j)(w_0-w_1)>0`.

    Examples
    --------
    >>> sp = structural_prediction(3, [0, 2])
    >>> sp.abs_u, sp.w_entry
    (sqrt(3)/3, sqrt(6)/6)
    >>> n = optimal_neuron(3, [0, 2])
    >>> u, w = [float(v) for v in n.u], [float(v) for v in n.w]
    >>> sp.matches(u, w, atol=1e-9), sp.matches([2 * v for v in u], [2 * v for v in w], atol=1e-9)
    (True, True)
    >>> sp.matches(u, [-v for v in w], atol=1e-9)
    False
    >>> {key: round(v, 3) for key, v in sp.deviations([1, 0.1, 1], [1, -1]).items()}
    {'off_support': 0.05, 'abs_u': 0.078, 'w': 0.091, 'w_balance': 0.0, 'sign_product': 0.249, 'support_share': 0.995}
    """

    n: int
    support: tuple[int, ...]
    abs_u: sympy.Expr
    w_norm: sympy.Expr
    w_entry: sympy.Expr
    sign_rule: str = "(prod_{j in S} u_j) * (w[0] - w[1]) > 0"

    @property
    def k(self) -> int:
        return len(self.support)

    def deviations(self, u: Sequence[float], w: Sequence[float]) -> dict[str, float]:
        r"""Deviations of one neuron (any scale; it is normalized first) from the prediction.

        Returns
        -------
        dict
            ``off_support`` (max :math:`|\bar u_j|`, j not in S), ``abs_u`` (max over S of
            :math:`||\bar u_j|-1/\sqrt{k+1}|`), ``w`` (min over the sign of
            :math:`\max_c|\bar w_c\mp w_{\text{entry}}b_c|`), ``w_balance`` (:math:`|\bar w_0+\bar w_1|`),
            ``sign_product`` (:math:`(\prod_S\bar u_j)(\bar w_0-\bar w_1)`, positive when the rule holds),
            ``support_share`` (:math:`\sum_{j\in S}\bar u_j^2/\|\bar u\|^2`).
        """
        u, w = _finite_floats(u, "u"), _finite_floats(w, "w")
        if len(u) != self.n or len(w) != 2:
            raise InputError(
                f"need u of length n = {self.n} and w of length 2, got {len(u)} and {len(w)}",
                param="u" if len(u) != self.n else "w",
            )
        norm = math.sqrt(sum(v * v for v in u) + sum(v * v for v in w))
        if norm == 0:
            raise InputError("the zero neuron has no direction", param="u")
        if not math.isfinite(norm):
            raise InputError(f"the neuron's norm overflows a float (got {norm}); rescale u and w", param="u")
        u = [v / norm for v in u]
        w = [v / norm for v in w]
        a, e = float(self.abs_u), float(self.w_entry)
        S = set(self.support)
        u2 = sum(v * v for v in u)
        return {
            "off_support": max([abs(u[j]) for j in range(self.n) if j not in S], default=0.0),
            "abs_u": max(abs(abs(u[j]) - a) for j in S),
            "w": min(max(abs(w[0] - s * e), abs(w[1] + s * e)) for s in (1, -1)),
            "w_balance": abs(w[0] + w[1]),
            "sign_product": math.prod(u[j] for j in S) * (w[0] - w[1]),
            "support_share": sum(u[j] ** 2 for j in S) / u2 if u2 > 0 else 0.0,
        }

    def matches(self, u: Sequence[float], w: Sequence[float], atol: float) -> bool:
        """True iff every deviation is at most ``atol`` and the sign rule holds strictly."""
        d = self.deviations(u, w)
        return d["off_support"] <= atol and d["abs_u"] <= atol and d["w"] <= atol and d["sign_product"] > 0


def structural_prediction(n: int, support: Sequence[int]) -> StructuralPrediction:
    """The Thm 7.8 structure for the parity on bits ``support`` of n (see :class:`StructuralPrediction`).

    Parameters
    ----------
    n : int
        Number of input bits.
    support : sequence of int
        S (0-based).

    Returns
    -------
    StructuralPrediction

    Examples
    --------
    >>> structural_prediction(3, [2, 0])
    StructuralPrediction(n=3, support=(0, 2), abs_u=sqrt(3)/3, w_norm=sqrt(3)/3, w_entry=sqrt(6)/6, sign_rule=...)
    """
    n, S = check_support(n, support)
    k = len(S)
    return StructuralPrediction(
        n=n, support=S, abs_u=1 / sqrt(k + 1), w_norm=1 / sqrt(k + 1), w_entry=1 / sqrt(2 * (k + 1))
    )


# --------------------------------------------------------------------------------------------
# Theorem 5.5 (full statement, App. B.2.1): the schedule of SGD on a ReLU MLP for sparse parity
# --------------------------------------------------------------------------------------------
THM55_SOURCE = "Edelman thesis Thm 5.5 (full statement, App. B.2.1), Lemma B.5"

MAX_THM55_N = 2000
"""Largest n of the Thm 5.5 schedule (the exact Majority coefficient xi_{k-1} of n - 1 bits)."""

MAX_THM55_BATCH = 10**300
"""Largest batch size :func:`thm55_batch` returns (float range; k >= 2 with a tiny xi_{k-1} or eps goes beyond)."""


def _check_thm55(n: object, k: object, eps: object) -> tuple[int, int, Fraction]:
    kk = check_positive_int(k, "k", minimum=2, hypothesis=f"{THM55_SOURCE}: an even parity degree k >= 2")
    if kk % 2:
        raise InputError(
            f"{THM55_SOURCE} needs an even k (odd-k Majority coefficients vanish at level k - 1), got k = {kk}",
            param="k",
        )
    nn = check_positive_int(n, "n")
    if nn % 2 == 0 or nn < kk + 1:
        raise InputError(f"{THM55_SOURCE} needs an odd n > k, got n = {nn}, k = {kk}", param="n")
    check_cost(
        nn,
        MAX_THM55_N,
        param="n",
        value=nn,
        what="the exact Majority coefficient of the schedule",
        hint="the schedule is meant for small n",
    )
    return nn, kk, _check_thm55_eps(eps)


def _check_thm55_eps(eps: object) -> Fraction:
    """The accuracy eps of Thm 5.5 as an exact Fraction in (0, 1/2), else InputError (param "eps")."""
    e = as_fraction(eps, "eps")
    if not 0 < e < Fraction(1, 2):
        raise InputError(f"{THM55_SOURCE} fixes eps in (0, 1/2), got eps = {eps!r:.80}", param="eps")
    return e


def _log_fraction(x: Fraction) -> float:
    """ln x of a positive Fraction of any size (math.log of its integer numerator and denominator, never a float
    conversion of the quotient that overflows or underflows)."""
    return math.log(x.numerator) - math.log(x.denominator)


def thm55_bias_grid(k: object) -> list[Fraction]:
    r"""The initial biases of Thm 5.5's "unbiased initialisation": :math:`b_i\sim\mathrm{Unif}\{-1+1/k,\dots,1-1/k\}`,
    read with step 1/k (2k - 1 values; the thesis prints only the ends, App. B.2.1).

    Parameters
    ----------
    k : int
        The parity degree, k >= 2.

    Returns
    -------
    list of Fraction
        -1 + j/k for j = 1 .. 2k - 1.

    Examples
    --------
    >>> [str(b) for b in thm55_bias_grid(2)]
    ['-1/2', '0', '1/2']
    """
    kk = check_positive_int(k, "k", minimum=2, hypothesis=f"{THM55_SOURCE}: k >= 2")
    check_cost(kk, MAX_EXACT_ENTRIES, param="k", value=kk, what="the bias grid (2k - 1 values)", hint="a smaller k")
    return [Fraction(-kk + j, kk) for j in range(1, 2 * kk)]


@fill_doc(_DOC)
def thm55_width(k: object, eps: object) -> int:
    r"""The width of Thm 5.5: the smallest even r with :math:`r\ge k\,2^k\log(8k/\varepsilon)` (App. B.2.1).

    Parameters
    ----------
    k : int
        The parity degree, k >= 2.
    {{eps_int}}
        r.

    Examples
    --------
    >>> thm55_width(2, "0.45")
    30
    """
    kk = check_positive_int(k, "k", minimum=2, hypothesis=f"{THM55_SOURCE}: k >= 2")
    check_cost(kk, 60, param="k", value=kk, what="the width k 2^k log(8k/eps) (a float)", hint="a smaller k")
    e = _check_thm55_eps(eps)
    log_ratio = math.log(8 * kk / e) if e * 2**900 > 1 else math.log(8 * kk) - _log_fraction(e)  # tiny eps: in logs
    r = math.ceil(kk * 2**kk * log_ratio)
    return r + r % 2


@fill_doc(_DOC)
def thm55_steps(n: object, k: object, r: object, eps: object) -> int:
    r"""The iteration count of Thm 5.5: the smallest integer :math:`T\ge 2^9k^3rn^2/\varepsilon^2` (App. B.2.1; the
    main text's :math:`O(k^3r^2n/\varepsilon^2)` differs: docs/sparse_parity.md).

    {{n_k}}
    {{r_eps_int}}
        T.

    Examples
    --------
    >>> thm55_steps(5, 2, 30, "0.45")
    15170371
    """
    nn, kk, e = _check_thm55(n, k, eps)
    rr = check_positive_int(r, "r")
    return math.ceil(Fraction(2**9 * kk**3 * rr * nn**2) / e**2)


@fill_doc(_DOC)
def thm55_first_step_rate(n: object, k: object) -> Fraction:
    r"""Step 0 of Thm 5.5: :math:`\eta_0 = 1/(k|\xi_{k-1}|)` with :math:`\xi_{k-1}=\widehat{\mathrm{Maj}_n}([k-1])`
    (Lemma B.1), with :math:`\lambda_0 = 1` on the weights, so that the first layer becomes :math:`-\eta_0\hat g`
    (App. B.2.1, Lemma B.4).

    {{n_k}}

    Returns
    -------
    Fraction
        eta_0 (exact).

    Examples
    --------
    >>> thm55_first_step_rate(5, 2)
    Fraction(4, 3)
    """
    from .boolean import majority_coefficient

    nn, kk, _ = _check_thm55(n, k, Fraction(1, 4))
    return 1 / (kk * abs(majority_coefficient(nn, kk - 1)))


@fill_doc(_DOC)
def thm55_second_layer_rate(n: object, k: object, r: object, steps: object) -> float:
    r"""After step 0 of Thm 5.5 only the second layer moves, with :math:`\eta_t = 4k^{1.5}/(n\sqrt{r(T-1)})` and
    no weight decay (App. B.2.1; Thm B.6 with M = 8k^1.5).

    {{nk_r}}
    steps : int
        The iterations T >= 2.

    Returns
    -------
    float
        eta.

    Examples
    --------
    >>> round(thm55_second_layer_rate(5, 2, 30, 15170371), 8)
    0.00010607
    """
    nn, kk, _ = _check_thm55(n, k, Fraction(1, 4))
    rr = check_positive_int(r, "r")
    T = check_positive_int(steps, "steps", minimum=2)
    x = rr * (T - 1)
    if x < 2**1000:
        return 4 * kk**1.5 / (nn * math.sqrt(x))
    return 4 * kk**1.5 / nn * math.exp(-0.5 * math.log(x))  # r (T - 1) beyond float range: in logs


@fill_doc(_DOC)
def thm55_batch(n: object, k: object, r: object, eps: object) -> int:
    r"""The batch size the proof of Thm 5.5 derives (Lemma B.5 with :math:`\varepsilon'=\varepsilon/(64k^2n)`,
    :math:`\delta'=\varepsilon/8`): :math:`B=\lceil(2/\tau^2)\log(4nr/\delta')\rceil`,
    :math:`\tau=|\xi_{k-1}|/(16k\sqrt{2n\log(2k/\varepsilon')})`. The statement's own form
    :math:`c_1^{-1}2^8k^{7/6}n\binom{n}{k-1}\log(\dots)\log(\dots)` has an unstated constant c1 (Lemma B.1).

    Parameters
    ----------
    n, k : int
        Odd input dimension and even parity degree.
    {{r_eps_int}}
        B.

    Examples
    --------
    >>> thm55_batch(5, 2, 30, "0.45")
    12615239
    """
    from .boolean import majority_coefficient

    nn, kk, e = _check_thm55(n, k, eps)
    rr = check_positive_int(r, "r")
    xi = abs(majority_coefficient(nn, kk - 1))
    eps1 = e / (64 * kk**2 * nn)
    log_tau = _log_fraction(xi) - math.log(16 * kk) - 0.5 * math.log(2 * nn * (math.log(2 * kk) - _log_fraction(eps1)))
    log_batch = math.log(2) - 2 * log_tau + math.log(math.log(32 * nn * rr) - _log_fraction(e))
    check_cost(
        log_batch / math.log(10),
        math.log10(MAX_THM55_BATCH),
        param="k",
        value=kk,
        what="the batch size (2/tau^2) log(4nr/delta') of Thm 5.5",
        hint="a smaller k",
        log10=True,
    )
    if rr < 2**900 and e * 2**900 > 1 and xi * 2**900 > 1:  # within float range: the float formula
        eps_1 = float(e) / (64 * kk**2 * nn)
        tau = float(xi) / (16 * kk * math.sqrt(2 * nn * math.log(2 * kk / eps_1)))
        return math.ceil(2 / tau**2 * math.log(4 * nn * rr / (float(e) / 8)))
    return math.ceil(math.exp(log_batch))


# --------------------------------------------------------------------------------------------
# Lemma B.5 (App. B.2.1): the first step's batch gradient concentrates, and the width the
# initialisation needs so that every bias slot of Lemma B.4 has a matching neuron pair
# --------------------------------------------------------------------------------------------
LEMB5_SOURCE = "Edelman thesis Lemma B.5 (App. B.2.1)"

MAX_LEMB5_K = 60
"""Largest k of the Lemma B.5 width (k 2^k log(k/delta) as a float)."""


def _check_delta(delta: object) -> Fraction:
    d = as_fraction(delta, "delta")
    if not 0 < d < Fraction(1, 2):
        raise InputError(f"{LEMB5_SOURCE} fixes delta in (0, 1/2), got delta = {delta!r:.80}", param="delta")
    return d


def _check_even_k(k: object, limit: int) -> int:
    kk = check_positive_int(k, "k", minimum=2, hypothesis=f"{LEMB5_SOURCE}: an even parity degree k >= 2")
    if kk % 2:
        raise InputError(f"{LEMB5_SOURCE} needs an even k, got k = {kk}", param="k")
    check_cost(kk, limit, param="k", value=kk, what="the parity degree of Lemma B.5", hint="a smaller k")
    return kk


def _check_paired_width(r: object, what: str) -> int:
    """The width r of the unbiased initialisation as an int: at least 2 and even (its neurons come in mirrored
    pairs), else InputError; above 4096 (the exact power (1 - q)^(r/2)), a LimitError naming ``what``."""
    rr = check_positive_int(r, "r", minimum=2)
    if rr % 2:
        raise InputError(f"the unbiased initialisation pairs neurons: r must be even, got {rr}", param="r")
    check_cost(rr, 4096, param="r", value=rr, what=what, hint="a smaller r")
    return rr


@fill_doc(_DOC)
def lemB5_tau(n: object, k: object, eps: object) -> float:
    r"""The tolerance of Lemma B.5: :math:`\tau=|\xi_{k-1}|/(16k\sqrt{2n\log(2k/\varepsilon)})`, with
    :math:`\xi_{k-1}=\widehat{\mathrm{Maj}_n}([k-1])` (Lemma B.1) exact and the square root and logarithm in float64
    (Edelman thesis, Lemma B.5, App. B.2.1).

    {{lemB5_tau}}

    Examples
    --------
    >>> round(lemB5_tau(5, 2, "1/4"), 8)
    0.00222556
    """
    from .boolean import majority_coefficient

    nn, kk, e = _check_thm55(n, k, eps)
    xi = abs(majority_coefficient(nn, kk - 1))
    return float(xi) / (16 * kk * math.sqrt(2 * nn * math.log(2 * kk / float(e))))


@fill_doc(_DOC)
def lemB5_batch(n: object, k: object, r: object, eps: object, delta: object) -> int:
    r"""The batch size of Lemma B.5: the smallest integer :math:`B\ge(2/\tau^2)\log(4nr/\delta)`, :math:`\tau` of
    :func:`lemB5_tau` (Edelman thesis, Lemma B.5, App. B.2.1). By Hoeffding's inequality for the B per-sample
    gradient coordinates in [-1, 1] (:math:`2e^{-B\tau^2/2}` each) and a union bound over the :math:`(n+1)r`
    coordinates, every coordinate of the batch gradient is then within :math:`\tau` of its mean with probability
    at least :math:`1-\delta` (the proof's Eq. (B.6)).

    {{lemB5_batch}}

    Examples
    --------
    >>> lemB5_batch(5, 2, 18, "1/4", "1/4")
    2936504
    """
    nn, kk, _ = _check_thm55(n, k, eps)
    d = _check_delta(delta)
    rr = check_positive_int(r, "r")
    check_cost(rr, 10**9, param="r", value=rr, what="the width of Lemma B.5", hint="a smaller r")
    tau = lemB5_tau(nn, kk, eps)
    return math.ceil(2 / tau**2 * math.log(4 * nn * rr / float(d)))


@fill_doc(_DOC)
def lemB5_width(k: object, delta: object, corrected: bool = False) -> int:
    r"""The width of Lemma B.5: the smallest even r with :math:`r\ge k\,2^k\log(k/\delta)` as printed, or with
    :math:`r\ge k\,2^{k+1}\log(k/\delta)` (``corrected``), the width the proof's own argument needs once its
    per-pair probability :math:`2^{-k+1}\cdot\frac{1}{2k}=\frac{1}{k2^k}` is multiplied out (it prints
    :math:`\frac{1}{k2^{k-1}}`; docs/sparse_parity.md). (Edelman thesis, Lemma B.5 and its proof, App. B.2.1.)

    {{lemB5_width}}

    Examples
    --------
    >>> lemB5_width(2, "1/10"), lemB5_width(2, "1/10", corrected=True)
    (24, 48)
    """
    kk = _check_even_k(k, MAX_LEMB5_K)
    d = _check_delta(delta)
    factor = kk * 2 ** (kk + 1 if check_bool(corrected, "corrected") else kk)
    r = math.ceil(factor * (math.log(kk) - _log_fraction(d)))
    return r + r % 2


@fill_doc(_DOC)
def lemB5_slot_biases(k: object) -> list[Fraction]:
    r"""The biases the proof of Lemma B.5 asks one neuron each of: :math:`-\tfrac12+i'/k`, :math:`i'\in[k]`, all on
    the grid :func:`thm55_bias_grid` (k even) (Edelman thesis, proof of Lemma B.5, App. B.2.1; Lemma B.4 itself
    prints :math:`-\tfrac12+(i+1)/k`).

    {{lemB5_slot_biases}}

    Examples
    --------
    >>> [str(b) for b in lemB5_slot_biases(4)]
    ['-1/4', '0', '1/4', '1/2']
    """
    kk = _check_even_k(k, MAX_EXACT_ENTRIES)
    return [Fraction(-1, 2) + Fraction(i, kk) for i in range(1, kk + 1)]


@fill_doc(_DOC)
def lemB5_slot_probability(k: object) -> Fraction:
    r"""The exact probability that one mirrored pair (i, i + r/2) of the unbiased initialisation serves a given slot
    of :func:`lemB5_slot_biases`: :math:`w_i` constant on [k] (probability :math:`2^{-k+1}`; then one neuron of the
    pair has :math:`w_{i,j}=u_i\,\mathrm{sign}\,\xi_{k-1}` on [k]) and :math:`b_i` the slot's value (probability
    :math:`1/(2k-1)` on the step-1/k grid of 2k - 1 values): :math:`q=2^{-k+1}/(2k-1)` (Edelman thesis, proof of
    Lemma B.5, App. B.2.1; printed there as :math:`1/(k2^{k-1})`, see :func:`lemB5_slot_probability_as_printed`).

    {{lemB5_q}}

    Examples
    --------
    >>> lemB5_slot_probability(2), lemB5_slot_probability(4)
    (Fraction(1, 6), Fraction(1, 56))
    """
    kk = _check_even_k(k, MAX_EXACT_ENTRIES)
    return Fraction(1, 2 ** (kk - 1) * (2 * kk - 1))


@fill_doc(_DOC)
def lemB5_slot_probability_as_printed(k: object) -> Fraction:
    r"""The per-pair probability as the proof of Lemma B.5 prints it: "with probability :math:`\frac{1}{k\cdot
    2^{k-1}}`" (Edelman thesis, proof of Lemma B.5, App. B.2.1), twice its own factors
    :math:`2^{-k+1}\cdot\frac{1}{2k}`.

    {{lemB5_q_printed}}

    Examples
    --------
    >>> lemB5_slot_probability_as_printed(2)
    Fraction(1, 4)
    """
    kk = _check_even_k(k, MAX_EXACT_ENTRIES)
    return Fraction(1, kk * 2 ** (kk - 1))


@fill_doc(_DOC)
def lemB5_miss_probability(k: object, r: object) -> Fraction:
    r"""The exact probability that the unbiased initialisation of width r leaves some slot of
    :func:`lemB5_slot_biases` without a serving pair (the proof of Lemma B.5 bounds it by :math:`\delta`): each of
    the r/2 independent pairs serves slot i' with probability q (:func:`lemB5_slot_probability`) and at most one
    slot, so by inclusion-exclusion over the missed slots

    .. math:: P = \sum_{j=1}^{k} (-1)^{j+1}\binom{k}{j}(1-jq)^{r/2}.

    (Edelman thesis, proof of Lemma B.5, App. B.2.1.)

    {{lemB5_miss}}

    Examples
    --------
    >>> float(lemB5_miss_probability(2, 24)) > 0.2
    True
    """
    kk = _check_even_k(k, MAX_LEMB5_K)
    rr = _check_paired_width(r, "the width of the exact miss probability")
    q = lemB5_slot_probability(kk)
    return sum(
        (Fraction((-1) ** (j + 1) * math.comb(kk, j)) * (1 - j * q) ** (rr // 2) for j in range(1, kk + 1)),
        Fraction(0),
    )


def lemB5_first_step_gradient(n: object, k: object, w: Sequence[object], u: object) -> tuple[list[Fraction], Fraction]:
    r"""The mean step-0 gradient of one neuron of the unbiased initialisation (the proof of Lemma B.5: f = 0 at
    initialisation and the hinge loss has :math:`\ell'(0, y) = -y`, so :math:`E[\nabla\ell] = (g_i, \gamma_i)`), in
    the Fourier form of Lemma B.3 for :math:`y=\chi_{[k]}(x)`, :math:`|b_i| < 1`:
    :math:`g_{i,j}=-\tfrac12u_i\xi_{k-1}\chi_{[k]\setminus\{j\}}(w_i)` for :math:`j\in[k]`,
    :math:`g_{i,j}=-\tfrac12u_i\xi_{k+1}\chi_{[k]\cup\{j\}}(w_i)` otherwise, and :math:`\gamma_i=0`, with
    :math:`\xi_m=\widehat{\mathrm{Maj}_n}([m])` (Lemma B.1). (Edelman thesis, Lemma B.3 and the proof of Lemma B.5,
    App. B.2.1; coordinates 0-based, [k] = {0, ..., k-1}.)

    Parameters
    ----------
    n : int
        Odd input dimension n > k.
    k : int
        Even parity degree.
    w : sequence of int
        The neuron's weights in {-1, +1}^n.
    u : int
        Its output weight, -1 or +1.

    Returns
    -------
    (list of Fraction, Fraction)
        g_i (n entries) and gamma_i.

    Examples
    --------
    >>> g, gamma = lemB5_first_step_gradient(5, 2, [1, 1, 1, 1, 1], 1)
    >>> [str(v) for v in g], gamma
    (['-3/16', '-3/16', '1/16', '1/16', '1/16'], Fraction(0, 1))
    """
    from .boolean import character, majority_coefficient

    nn, kk, _ = _check_thm55(n, k, Fraction(1, 4))
    values = list(w)
    if len(values) != nn or any(v not in (-1, 1) for v in values):
        raise InputError(f"w must be a vector in {{-1, +1}}^{nn}, got {w!r:.80}", param="w")
    if u not in (-1, 1):
        raise InputError(f"u must be -1 or +1, got {u!r:.80}", param="u")
    ww = [1 if v == 1 else -1 for v in values]
    uu = 1 if u == 1 else -1
    lo, hi = majority_coefficient(nn, kk - 1), majority_coefficient(nn, kk + 1)
    g = [
        -uu * lo / 2 * character([i for i in range(kk) if i != j], ww)
        if j < kk
        else -uu * hi / 2 * character([*range(kk), j], ww)
        for j in range(nn)
    ]
    return g, Fraction(0)


@fill_doc(_DOC)
def lemB5_miss_bound_as_printed(k: object, r: object) -> Fraction:
    r"""The proof of Lemma B.5's bound on the probability that some slot of :func:`lemB5_slot_biases` has no serving
    pair, with its printed per-pair probability :math:`1/(k2^{k-1})`: the union over the k slots of
    :math:`(1-\frac{1}{k2^{k-1}})^{r/2}` (then bounded by :math:`k\exp(-r/(k2^k))\le\delta` for
    :math:`r\ge k2^k\log(k/\delta)`). (Edelman thesis, proof of Lemma B.5, App. B.2.1.)

    {{lemB5_miss_printed}}

    Examples
    --------
    >>> float(lemB5_miss_bound_as_printed(2, lemB5_width(2, "1/10"))) < 0.1
    True
    """
    kk = _check_even_k(k, MAX_LEMB5_K)
    rr = _check_paired_width(r, "the width of the exact bound")
    return kk * (1 - lemB5_slot_probability_as_printed(kk)) ** (rr // 2)


MAX_LEMB5_TAIL_BATCH = 2048
"""Largest batch of :func:`lemB5_coordinate_tail` (its exact sum has about B^2/2 terms)."""


def lemB5_coordinate_tail(g: object, batch: object, tau: object) -> Fraction:
    r"""The exact tail :math:`P(|\hat g-g|\ge\tau)` of one coordinate of the step-0 batch gradient at the unbiased
    initialisation: the per-point coordinate :math:`-y\,u_i\mathbf 1[w_i\cdot x+b_i>0]\,x_j` (or without
    :math:`x_j` for the bias) takes the values -1, 0, 1 and is non-zero on exactly half of :math:`\{\pm1\}^n` (for
    odd n and :math:`|b_i|<1`, :math:`\mathbf 1[w\cdot x+b>0]=(1+\mathrm{Maj}(w\odot x))/2`), with mean g
    (:func:`lemB5_first_step_gradient`): :math:`p_{\pm}=(\tfrac12\pm g)/2`, :math:`p_0=\tfrac12`. With a and c the
    batch's counts of +1 and -1,

    .. math:: P=\sum_{a,c:\,|a-c-Bg|\ge B\tau}\frac{B!}{a!\,c!\,(B-a-c)!}\,p_+^a\,p_-^c\,p_0^{B-a-c}.

    The proof of Lemma B.5 bounds it by Hoeffding's :math:`2e^{-B\tau^2/2}` (:func:`lemB5_hoeffding_bound`).
    (Edelman thesis, proof of Lemma B.5, App. B.2.1.)

    Parameters
    ----------
    g : rational
        The coordinate's mean, \|g\| <= 1/2.
    batch : int
        B.
    tau : rational
        The tolerance, > 0.

    Returns
    -------
    Fraction
        P.

    Examples
    --------
    >>> lemB5_coordinate_tail(0, 1, "1/2")
    Fraction(1, 2)
    >>> round(float(lemB5_coordinate_tail("5/32", 128, "1/8")), 4)
    0.0467
    """
    gg = as_fraction(g, "g")
    if abs(gg) > Fraction(1, 2):
        raise InputError(f"a coordinate non-zero on half the cube has |g| <= 1/2, got g = {g!r:.80}", param="g")
    B = check_positive_int(batch, "batch")
    check_cost(B, MAX_LEMB5_TAIL_BATCH, param="batch", value=B, what="the batch of the exact tail", hint="a smaller B")
    t = as_fraction(tau, "tau")
    if t <= 0:
        raise InputError(f"tau must be positive, got tau = {tau!r:.80}", param="tau")
    p_plus, p_minus = (Fraction(1, 2) + gg) / 2, (Fraction(1, 2) - gg) / 2
    D = math.lcm(p_plus.denominator, p_minus.denominator, 2)
    A, C, H = p_plus.numerator * (D // p_plus.denominator), p_minus.numerator * (D // p_minus.denominator), D // 2
    fact = [1] * (B + 1)
    for i in range(1, B + 1):
        fact[i] = fact[i - 1] * i
    pa = [A**i for i in range(B + 1)]
    pc = [C**i for i in range(B + 1)]
    ph = [H**i for i in range(B + 1)]
    total = 0
    for a in range(B + 1):
        for c in range(B - a + 1):
            if abs(a - c - B * gg) >= B * t:
                total += fact[B] // (fact[a] * fact[c] * fact[B - a - c]) * pa[a] * pc[c] * ph[B - a - c]
    return Fraction(total, D**B)


def lemB5_hoeffding_bound(batch: object, tau: object) -> float:
    r"""Hoeffding's bound the proof of Lemma B.5 uses for one coordinate of the step-0 batch gradient (B terms in
    [-1, 1]): :math:`P(|\hat g-E\hat g|\ge\tau)\le 2e^{-B\tau^2/2}` (Edelman thesis, proof of Lemma B.5, Eq. (B.6),
    App. B.2.1).

    Parameters
    ----------
    batch : int
        B.
    tau : rational
        The tolerance, > 0.

    Returns
    -------
    float
        2 exp(-B tau^2 / 2).

    Examples
    --------
    >>> round(lemB5_hoeffding_bound(128, "1/8"), 4)
    0.7358
    """
    B = check_positive_int(batch, "batch")
    t = as_fraction(tau, "tau")
    if t <= 0:
        raise InputError(f"tau must be positive, got tau = {tau!r:.80}", param="tau")
    x = B * t * t / 2
    return 2 * math.exp(-float(x)) if x < 10**6 else 0.0
