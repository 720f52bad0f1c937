r"""Max-margin Fourier circuits for modular addition with k inputs (exact).

Network (Shi thesis Eq. 4.2; Edelman Ch. 7 for k = 2)

.. math::  f(\theta, a)[c] = \sum_{i=1}^m \Big(\sum_{j=1}^k u_{i,j}(a_j)\Big)^k w_i(c),

trained on all p^k points of ``(a_1..a_k) -> a_1 + ... + a_k mod p`` with the L_{2,k+1} norm
:math:`\|\theta\|_{2,k+1}^{k+1} = \sum_i \|\theta_i\|_2^{k+1}`. The network is (k+1)-homogeneous.

Results implemented here (derivations and errata in ``docs/modular.md``):

* Shi Thm 4.9 / C.22: the maximum normalized margin
  :math:`\gamma^* = 2\,k! / ((2k+2)^{(k+1)/2} (p-1) p^{(k-1)/2})` for width
  :math:`m \ge 2^{2k-2}(p-1)`; Edelman Thm 7.7 (Morwani et al.) for k = 2.
* Shi Lemma 4.10 / C.15: the optimal unit neuron (single frequency, amplitude
  :math:`\beta=\sqrt{2/((k+1)p)}`, phases with :math:`\sum_i\vartheta_{u_i}=\vartheta_w`).
* Shi Lemma 4.11 / C.18: an explicit max-margin network with :math:`2^{2k-2}(p-1)` neurons whose
  output is :math:`(p\,1[c = \sum a] - 1)/2` (the source prints "0 otherwise"; it is -1/2).
* Edelman App. D.4: the "memorising" construction (two one-hot neurons per input pair) and its normalized
  margin, exactly below gamma* for every odd p (as printed and with its best rescaling; ``docs/modular.md``).
* Shi Lemma C.14: the single-neuron class-weighted objective Psi in Fourier form, and closed forms
  of Psi for deformed neurons (Lemma C.15; ``docs/modular.md``).

Hypotheses on the inputs
------------------------
* ``p`` is an odd integer >= 3. The sources assume p prime; the proofs use only that p is odd, and
  the value and construction are exact for odd composite p (checked in the tests for p = 9, 15).
  Even p is refused: the frequency p/2 is self-conjugate and the formula fails.
* ``k`` is an integer >= 1. For k = 1 the upper bound and the construction still hold (the
  inequality :math:`\|z\|_{(k+1)/2}\le\|z\|_1` is an equality), so :func:`max_margin` is exact, but the
  optimal neuron is **not** unique: any split of a neuron's mass over frequencies with aligned phases
  is optimal, so the single-frequency conclusion of Thm 4.9 does not follow for k = 1.
* Sizes (checked before any work, :class:`theory._checks.LimitError` naming the parameter): the exact
  closed forms need gamma* to have at most 4000 digits (the message gives the largest k for the given
  p); the exact construction at most 200000 entries; the symbolic identities at most 512 terms;
  :func:`psi_time_domain` at most 10^4 inputs; exact square roots of at most 1000-digit radicands
  (``MAX_RADICAND_DIGITS``: the amplitude ``sqrt(2/((k+1)p))``, the memorising norm, the deformed-neuron powers);
  numeric strings with a decimal exponent above 4000 are refused (``docs/limits.md``).
* Numbers from callers (phases, fractions, neuron entries) are ints, Fractions, floats, sympy numbers
  or numeric strings parsed by :class:`fractions.Fraction`; a string is never evaluated.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

import sympy
from sympy import Rational, cos, factorial, pi, sqrt

from ._checks import (
    MAX_DIGITS,
    MAX_EXACT_ENTRIES,
    InputError,
    as_number,
    check_cost,
    check_entries,
    check_odd_modulus,
    check_positive_int,
    format_count,
    is_symbolic,
    log10_factorial,
)
from ._docstrings import fill_doc, sections

__all__ = [
    "MAX_INIT_PURITY_P",
    "MEMORISING_SCALINGS",
    "FourierNeuron",
    "ModularConstruction",
    "construction",
    "construction_logit_as_printed",
    "cos_sum_expansion",
    "frequencies",
    "init_purity_cdf",
    "max_margin",
    "max_margin_k2_morwani",
    "max_margin_logits",
    "memorising_margin",
    "memorising_margin_ratio",
    "memorising_normalized_margin",
    "memorising_scales",
    "min_width",
    "optimal_amplitude",
    "optimal_fourier_magnitude",
    "optimal_neuron",
    "polarization_identity",
    "psi_dc_leak",
    "psi_fourier",
    "psi_phase_mismatch",
    "psi_time_domain",
    "psi_two_frequencies",
    "psi_unbalanced",
    "single_neuron_bound",
]

SOURCE = "Shi thesis Thm 4.9 / C.22"

MAX_IDENTITY_TERMS = 512
"""Largest number of terms of the symbolic identities (:func:`polarization_identity`, :func:`cos_sum_expansion`)."""

MAX_BRUTE_FORCE_POINTS = 10_000
"""Largest p^k for the brute-force :func:`psi_time_domain`."""


MAX_RADICAND_DIGITS = 1000
"""Largest number of digits of the exact radicand of a square root: sympy factors it to simplify the root (0.3 s at
1000 digits, 5 s at 2000, minutes at 4000)."""


#: Shared docstring sections (:func:`theory._docstrings.fill_doc`); ``"p"`` also serves
#: :mod:`theory.modular_transformer`.
_DOC = {
    "p": sections("p : int\n    Odd modulus ``p >= 3``."),
    "p_k_symbolic": sections(
        "p, k : int or sympy.Symbol\n"
        "    Odd modulus ``p >= 3`` and number of inputs ``k >= 1``; a symbol gives the symbolic formula."
    ),
    "u_w": sections(
        "u : sequence of k sequences of p numbers\n"
        "    The input blocks :math:`u_1..u_k` (p is read from their length).\n"
        "w : sequence of p numbers\n"
        "    The output block (``p >= 2``).",
    ),
}


def _digits(x: sympy.Expr) -> float:
    """Decimal digits of the exact numbers in ``x``: the sum over its rationals of log10 |numerator| + log10
    denominator (0 for floats and symbols), a bound on the size of what arithmetic on ``x`` forms."""
    return sum(math.log10(abs(r.p)) + math.log10(r.q) for r in x.atoms(sympy.Rational) if r.p != 0)


def _shown(x: sympy.Expr) -> str:
    """A number for a message: itself when short, its size otherwise (``str`` refuses integers above 4300 digits)."""
    d = _digits(x)
    return str(x) if d < 60 else f"a number of ~{d:.0f} digits"


def _check_number_size(x: sympy.Expr, name: str, *, power: float, radicand: float = 0.0, what: str) -> None:
    """Refuse a caller's exact number whose power (``power`` times its digits) is above MAX_DIGITS digits, or whose
    radicand (``radicand`` times its digits) is above MAX_RADICAND_DIGITS, before sympy forms it."""
    d = _digits(x)
    check_cost(
        power * d, MAX_DIGITS, param=name, value=_shown(x), what=what, hint=f"pass {name} with fewer digits", log10=True
    )
    check_cost(
        radicand * d,
        MAX_RADICAND_DIGITS,
        param=name,
        value=_shown(x),
        what=f"the radicand of {what}",
        hint=f"pass {name} with fewer digits, or a float",
        log10=True,
    )


def _check_pk(p: object, k: object) -> tuple[int, int]:
    return check_odd_modulus(p, source=SOURCE), check_positive_int(k, "k", hypothesis="number of inputs")


def _gamma_digits(p: int, k: int) -> float:
    """log10 of the size of the integers in gamma*(p, k) = 2 k! / ((2k+2)^((k+1)/2) (p-1) p^((k-1)/2)); inf for
    k > 10^300 (far above any limit; the float arithmetic below would overflow near 10^308)."""
    if k > 10**300:
        return math.inf
    lp = math.log10(p)
    return max(log10_factorial(k), (k + 1) / 2 * math.log10(2 * k + 2) + lp + (k - 1) / 2 * lp)


def _check_closed_form_size(p: int, k: int) -> None:
    """Refuse (p, k) whose exact gamma* has more than MAX_DIGITS digits (k! and p^((k-1)/2) are formed exactly)."""
    if _gamma_digits(p, k) <= MAX_DIGITS:
        return
    what = "the exact gamma*(p, k)"
    if _gamma_digits(p, 1) > MAX_DIGITS:
        check_cost(
            math.log10(p), MAX_DIGITS - 1, param="p", value=p, what="p", hint=f"{what} grows with it", log10=True
        )
    lo, hi = 1, 2  # largest k with at most MAX_DIGITS digits lies in [lo, hi)
    while _gamma_digits(p, hi) <= MAX_DIGITS:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _gamma_digits(p, mid) <= MAX_DIGITS else (lo, mid)
    check_cost(
        _gamma_digits(p, k),
        MAX_DIGITS,
        param="k",
        value=k,
        what=f"{what} at p = {format_count(p)}",
        hint=f"for this p the exact closed forms accept k <= {lo}; pass sympy symbols for the symbolic formula",
        log10=True,
    )


def _check_amplitude_pk(p: object, k: object) -> tuple[int, int]:
    """p and k of the amplitude sqrt(2/((k+1)p)): the radicand has at most MAX_RADICAND_DIGITS digits."""
    p, k = _check_pk(p, k)
    check_cost(
        math.log10(2 * (k + 1)) + math.log10(p),
        MAX_RADICAND_DIGITS,
        param="p" if p > k else "k",
        value=p if p > k else k,
        what="the radicand 2/((k+1) p) of the amplitude",
        hint="pass sympy symbols for the symbolic formula",
        log10=True,
    )
    return p, k


def _check_exact_pk(p: object, k: object) -> tuple[int, int]:
    p, k = _check_pk(p, k)
    _check_closed_form_size(p, k)
    return p, k


def max_margin(p: int | sympy.Expr, k: int | sympy.Expr) -> sympy.Expr:
    r"""Maximum L_{2,k+1}-normalized margin of the k-input polynomial network (Shi Thm 4.9).

    .. math:: \gamma^*(p,k) = \frac{2\,k!}{(2k+2)^{(k+1)/2}\,(p-1)\,p^{(k-1)/2}}

    Parameters
    ----------
    p, k : int or sympy.Symbol
        Odd modulus ``p >= 3`` and number of inputs ``k >= 1``. If either is a sympy symbol the
        symbolic formula is returned (no validation).

    Returns
    -------
    sympy.Expr
        Exact value (e.g. ``3/320`` for p = 5, k = 3).

    Examples
    --------
    >>> max_margin(5, 3)
    3/320
    >>> max_margin(3, 2) == max_margin_k2_morwani(3)
    True
    >>> from sympy import Symbol
    >>> max_margin(Symbol("p"), 2)
    sqrt(6)/(9*sqrt(p)*(p - 1))
    >>> max_margin(4, 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: p must be an odd integer >= 3 ...
    """
    if not is_symbolic(p, k):
        p, k = _check_exact_pk(p, k)
        p, k = sympy.Integer(p), sympy.Integer(k)
    return (
        2 * factorial(k) / ((2 * k + 2) ** ((k + 1) / sympy.Integer(2)) * (p - 1) * p ** ((k - 1) / sympy.Integer(2)))
    )


def max_margin_k2_morwani(p: int | sympy.Expr) -> sympy.Expr:
    r"""Edelman Thm 7.7 (Morwani et al. 2024) for k = 2: :math:`\gamma^* = \sqrt{2/27}/((p-1)\sqrt p)`.

    Stated independently of :func:`max_margin`; the two must agree at k = 2.

    Parameters
    ----------
    p : int or sympy.Symbol
        Odd modulus ``p >= 3``; a symbol gives the symbolic formula (no validation).

    Returns
    -------
    sympy.Expr
        Exact value of :math:`\gamma^*(p, 2)`.

    Examples
    --------
    >>> max_margin_k2_morwani(7)
    sqrt(42)/378
    >>> max_margin_k2_morwani(7) == max_margin(7, 2)
    True
    """
    if not is_symbolic(p):
        p = check_odd_modulus(p, source="Edelman Thm 7.7")
        _check_closed_form_size(p, 2)
        p = sympy.Integer(p)
    return sqrt(Rational(2, 27)) / ((p - 1) * sqrt(p))


@fill_doc(_DOC)
def min_width(p: int | sympy.Expr, k: int | sympy.Expr) -> int | sympy.Expr:
    r"""Width of the explicit construction and the theorem's bound, :math:`2^{2k-2}(p-1)`.

    {{p_k_symbolic}}

    Returns
    -------
    int or sympy.Expr
        :math:`2^{2k-2}(p-1)`.

    Examples
    --------
    >>> min_width(7, 3)
    96
    >>> from sympy import Symbol
    >>> min_width(Symbol("p"), 2)
    4*p - 4
    """
    if is_symbolic(p, k):
        return 2 ** (2 * k - 2) * (p - 1)
    p, k = _check_exact_pk(p, k)
    return 2 ** (2 * k - 2) * (p - 1)


@fill_doc(_DOC)
def frequencies(p: int) -> range:
    r"""The non-trivial frequencies :math:`\zeta \in \{1, \dots, (p-1)/2\}` up to conjugation.

    {{p}}

    Returns
    -------
    range
        ``range(1, (p - 1) // 2 + 1)``.

    Examples
    --------
    >>> list(frequencies(7))
    [1, 2, 3]
    >>> frequencies(6)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: p must be an odd integer >= 3 ...
    """
    p = check_odd_modulus(p, source=SOURCE)
    return range(1, (p - 1) // 2 + 1)


@fill_doc(_DOC)
def optimal_amplitude(p: int | sympy.Expr, k: int | sympy.Expr) -> sympy.Expr:
    r"""Per-entry amplitude of a unit-norm optimal neuron, :math:`\beta = \sqrt{2/((k+1)p)}` (Lemma C.15).

    {{p_k_symbolic}}

    Returns
    -------
    sympy.Expr
        :math:`\beta`.

    Examples
    --------
    >>> optimal_amplitude(5, 2)
    sqrt(30)/15

    The k + 1 cosine blocks of squared norm :math:`\beta^2 p/2` make a unit neuron:

    >>> optimal_amplitude(5, 2) ** 2 * 5 / 2 * 3
    1
    """
    if not is_symbolic(p, k):
        p, k = (sympy.Integer(v) for v in _check_amplitude_pk(p, k))
    return sqrt(2 / ((k + 1) * p))


@fill_doc(_DOC)
def optimal_fourier_magnitude(p: int | sympy.Expr, k: int | sympy.Expr) -> sympy.Expr:
    r"""|û(±ζ)| = |ŵ(±ζ)| = :math:`\sqrt{p/(2(k+1))}` for every block of a unit optimal neuron (Eq. C.16).

    {{p_k_symbolic}}

    Returns
    -------
    sympy.Expr
        The magnitude, :math:`\beta p/2` with :math:`\beta` = :func:`optimal_amplitude`.

    Examples
    --------
    >>> optimal_fourier_magnitude(5, 2)
    sqrt(30)/6
    >>> optimal_fourier_magnitude(5, 2) == optimal_amplitude(5, 2) * 5 / 2
    True
    """
    if not is_symbolic(p, k):
        p, k = (sympy.Integer(v) for v in _check_amplitude_pk(p, k))
    return sqrt(p / (2 * (k + 1)))


@fill_doc(_DOC)
def single_neuron_bound(p: int | sympy.Expr, k: int | sympy.Expr) -> sympy.Expr:
    r"""The end of the bound chain of Shi Lemma C.15: phases aligned, QM-GM on each
    frequency, Plancherel (:math:`\sum_{j\ge1} z(j) \le p/2`) and :math:`\|z\|_{(k+1)/2}\le\|z\|_1` give

    .. math:: \Psi \le \frac{2\,k!\,(p/2)^{(k+1)/2}}{(k+1)^{(k+1)/2}(p-1)p^k}.

    Derived independently of :func:`max_margin`; Thm 4.9 says the two are equal.

    {{p_k_symbolic}}

    Returns
    -------
    sympy.Expr
        The bound on :math:`\Psi` for a unit neuron.

    Examples
    --------
    >>> single_neuron_bound(5, 3)
    3/320
    >>> single_neuron_bound(5, 3) == max_margin(5, 3)
    True
    """
    if not is_symbolic(p, k):
        p, k = (sympy.Integer(v) for v in _check_exact_pk(p, k))
    e = (k + 1) / sympy.Integer(2)
    return 2 * factorial(k) * (p / sympy.Integer(2)) ** e / ((k + 1) ** e * (p - 1) * p**k)


def construction_logit_as_printed(p: int, a: Sequence[int], c: int) -> sympy.Expr:
    """Erratum record: the construction's output **as printed** in Shi Lemma C.17/C.18 (and Edelman
    D.6.2 for k = 2): "(p-1)/2 if sum(a) = c, 0 otherwise". The second case is wrong; the correct
    value is -1/2 (:meth:`ModularConstruction.logit`). Kept only so a claim can refute it.

    Parameters
    ----------
    p : int
        Odd modulus ``p >= 3``.
    a : sequence of int
        The inputs, residues in ``0..p-1``.
    c : int
        The class, a residue in ``0..p-1``.

    Returns
    -------
    sympy.Expr
        ``(p-1)/2`` if ``sum(a) = c mod p``, else 0.

    Examples
    --------
    >>> construction_logit_as_printed(3, [1, 2], 0), construction(3, 2).logit([1, 2], 0)
    (1, 1)
    >>> construction_logit_as_printed(3, [1, 1], 0), construction(3, 2).logit([1, 1], 0)
    (0, -1/2)
    """
    p = check_odd_modulus(p, source=SOURCE)
    a = _check_residues(a, p)
    c = _check_residue(c, p, "c")
    return Rational(p - 1, 2) if (sum(a) - c) % p == 0 else sympy.Integer(0)


def _check_residue(x: object, p: int, name: str) -> int:
    """A residue of Z_p: an integer in 0..p-1."""
    try:
        v = check_positive_int(x, name, minimum=0)
    except InputError:
        v = None
    if v is None or v >= p:
        raise InputError(
            f"{name} must be a residue mod p, i.e. an integer in 0..{p - 1}, got {name} = {x!r:.80}", param=name
        )
    return v


def _check_residues(a: object, p: int, k: int | None = None) -> list[int]:
    """The k >= 1 inputs a_1..a_k of the network: residues of Z_p (and exactly k of them when k is given)."""
    if isinstance(a, (str, bytes)):
        raise InputError(f"a must be a sequence of residues mod p, got {a!r}", param="a")
    try:
        items = list(cast("Iterable[object]", a))  # anything else raises the TypeError refused here
    except TypeError:
        raise InputError(f"a must be a sequence of residues mod p, got {a!r}", param="a") from None
    if not items:
        raise InputError("a must hold k >= 1 residues mod p (one per input), got an empty sequence", param="a")
    if k is not None and len(items) != k:
        raise InputError(f"a must hold exactly k = {k} residues mod p, got {len(items)}", param="a")
    return [_check_residue(x, p, "a") for x in items]


@fill_doc(_DOC)
def max_margin_logits(p: int | sympy.Expr, k: int | sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    r"""Logits of every unit-norm max-margin network (Lemma C.6 with uniform q*; ``docs/modular.md``).

    All points lie on the margin and all wrong logits are equal, and each w_i has zero mean, so
    :math:`f(\hat\theta,a)[c] = \gamma^*(1[c=y(a)] - 1/p)`.

    {{p_k_symbolic}}

    Returns
    -------
    (correct, wrong) : tuple of sympy.Expr
        :math:`\gamma^*(p-1)/p` and :math:`-\gamma^*/p`.

    Examples
    --------
    >>> correct, wrong = max_margin_logits(5, 3)
    >>> correct, wrong
    (3/400, -3/1600)
    >>> correct - wrong == max_margin(5, 3)
    True
    """
    g = max_margin(p, k)
    return sympy.simplify(g * (p - 1) / p), sympy.simplify(-g / p)


@dataclass(frozen=True)
class FourierNeuron:
    r"""A single-frequency neuron :math:`u_j(a) = A\cos(2\pi\zeta a/p + \vartheta_j)`,
    :math:`w(c) = A\cos(2\pi\zeta c/p + \vartheta_w)` with :math:`\vartheta_w = \sum_j \vartheta_j + \Delta`.

    ``mismatch`` (Delta) is zero for neurons in the optimal set of Lemma C.15.

    Attributes
    ----------
    p : int
        Odd modulus (the length of every block).
    zeta : int
        Frequency.
    phases : tuple of sympy.Expr
        The k input-block phases :math:`\vartheta_1..\vartheta_k`.
    amplitude : sympy.Expr
        The common amplitude A.
    mismatch : sympy.Expr
        :math:`\Delta`, 0 by default.

    Examples
    --------
    >>> from sympy import Integer, pi
    >>> n = FourierNeuron(p=3, zeta=1, phases=(Integer(0),), amplitude=Integer(1), mismatch=pi)
    >>> n.k, n.theta_w
    (1, pi)
    >>> n.u(), n.w()
    ([[1, -1/2, -1/2]], [-1, 1/2, 1/2])
    >>> n.norm_squared()
    3
    """

    p: int
    zeta: int
    phases: tuple[sympy.Expr, ...]
    amplitude: sympy.Expr
    mismatch: sympy.Expr = sympy.S.Zero

    @property
    def k(self) -> int:
        return len(self.phases)

    @property
    def theta_w(self) -> sympy.Expr:
        return sympy.Add(*self.phases) + self.mismatch

    def block(self, phase: sympy.Expr) -> list[sympy.Expr]:
        """Exact values of ``A cos(2 pi zeta x / p + phase)`` for x = 0..p-1."""
        p = check_odd_modulus(self.p, source=SOURCE)
        zeta = check_positive_int(self.zeta, "zeta", minimum=-(10**18))  # an integer (cos is periodic)
        check_cost(
            p * (self.k + 1),
            MAX_EXACT_ENTRIES,
            param="p",
            value=p,
            what="the number (k+1) p of exact entries of the neuron",
            hint="use numerics.modular.neuron_blocks (float64)",
        )
        amplitude, phase = as_number(self.amplitude, "amplitude"), as_number(phase, "phases")
        return [amplitude * cos(2 * pi * zeta * x / p + phase) for x in range(p)]

    def u(self) -> list[list[sympy.Expr]]:
        """The k input blocks as exact values."""
        return [self.block(ph) for ph in self.phases]

    def w(self) -> list[sympy.Expr]:
        """The output block as exact values."""
        return self.block(self.theta_w)

    def norm_squared(self) -> sympy.Expr:
        r"""Exact :math:`\|\theta_i\|_2^2 = (k+1) A^2 p / 2` (each zero-mean cosine block has norm² A²p/2)."""
        return (self.k + 1) * self.amplitude**2 * sympy.Integer(self.p) / 2


def optimal_neuron(p: int, k: int, zeta: int = 1, phases: Sequence[object] | None = None) -> FourierNeuron:
    r"""A unit-norm maximizer of the single-neuron objective Psi (Shi Lemma 4.10 / C.15).

    Parameters
    ----------
    p, k : int
        Odd modulus and number of inputs.
    zeta : int
        Frequency in ``1..(p-1)/2``.
    phases : sequence of k numbers or sympy expressions, optional
        Input-block phases; the output phase is their sum. Defaults to zeros.

    Returns
    -------
    FourierNeuron
        Amplitude :func:`optimal_amplitude`, mismatch 0, squared norm 1.

    Examples
    --------
    >>> n = optimal_neuron(5, 2)
    >>> n.amplitude, n.norm_squared()
    (sqrt(30)/15, 1)
    >>> psi_time_domain(n.u(), n.w()) == max_margin(5, 2)
    True
    >>> from sympy import pi
    >>> optimal_neuron(5, 2, phases=[pi / 3, pi / 6]).theta_w
    pi/2
    >>> optimal_neuron(5, 2, zeta=3)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: zeta must be a frequency in 1..2 for p = 5, got 3
    """
    p, k = _check_pk(p, k)
    check_cost(k, MAX_EXACT_ENTRIES, param="k", value=k, what="the number of exact phases", hint="use a smaller k")
    zeta = check_positive_int(zeta, "zeta", minimum=-(10**18))  # integer check; the range is checked below
    if zeta not in frequencies(p):
        raise InputError(
            f"zeta must be a frequency in 1..{format_count((p - 1) // 2)} for p = {format_count(p)}, got "
            f"{format_count(zeta)}",
            param="zeta",
        )
    phases = tuple([0] * k if phases is None else phases)
    if len(phases) != k:
        raise InputError(f"need k = {k} phases, got {len(phases)}", param="phases")
    phases = tuple(as_number(ph, "phases") for ph in phases)
    return FourierNeuron(p=p, zeta=zeta, phases=phases, amplitude=optimal_amplitude(p, k))


def polarization_identity(k: int) -> tuple[sympy.Expr, sympy.Expr]:
    r"""Both sides of Shi Lemma C.16 (Part 3), halved to :math:`\epsilon_1 = +1`:

    .. math:: 2^{k-1}k!\prod_i d_i = \sum_{\epsilon\in\{\pm1\}^k,\ \epsilon_1=1}(-1)^{\#\{\epsilon_j=-1\}}
              \Big(\sum_j \epsilon_j d_j\Big)^k.

    Returns ``(lhs, rhs)`` as polynomials in symbols d_1..d_k.

    Parameters
    ----------
    k : int
        Degree ``k >= 1`` (at most 10: the right side has :math:`2^{k-1}` terms).

    Returns
    -------
    (lhs, rhs) : tuple of sympy.Expr
        The two sides; ``lhs - rhs`` expands to 0.

    Examples
    --------
    >>> polarization_identity(2)
    (4*d1*d2, -(d1 - d2)**2 + (d1 + d2)**2)
    >>> from sympy import expand
    >>> lhs, rhs = polarization_identity(4)
    >>> expand(lhs - rhs)
    0
    """
    k = check_positive_int(k, "k")
    check_cost(
        2 ** min(k - 1, 64),
        MAX_IDENTITY_TERMS,
        param="k",
        value=k,
        what="the number of terms 2^(k-1) of the identity",
        hint="the identity is checked symbolically for small k only (k <= 10)",
    )
    d = sympy.symbols(f"d1:{k + 1}")
    lhs = 2 ** (k - 1) * factorial(k) * sympy.Mul(*d)
    rhs = sympy.Integer(0)
    for tail in itertools.product([1, -1], repeat=k - 1):
        eps = (1, *tail)
        rhs += (-1) ** eps.count(-1) * sympy.Add(*[e * dj for e, dj in zip(eps, d)]) ** k
    return lhs, rhs


def _even_subsets(k: int) -> list[tuple[int, ...]]:
    return [b for b in itertools.product([0, 1], repeat=k + 1) if sum(b) % 2 == 0]


def cos_sum_expansion(k: int) -> tuple[sympy.Expr, sympy.Expr]:
    r"""Both sides of Shi Eq. C.21: :math:`\cos(\sum_{i=1}^{k+1} x_i)` as a sum over even-weight
    :math:`b\in\{0,1\}^{k+1}` of :math:`s_b \prod_i \cos^{1-b_i}(x_i)\sin^{b_i}(x_i)`,
    :math:`s_b = (-1)^{1[|b| \equiv 2 \bmod 4]}` (2^k terms).

    Parameters
    ----------
    k : int
        Number of inputs ``k >= 1`` (k + 1 angles x_1..x_{k+1}; at most 9).

    Returns
    -------
    (lhs, rhs) : tuple of sympy.Expr
        :math:`\cos(x_1 + \dots + x_{k+1})` and the expansion; they agree after ``expand_trig``.

    Examples
    --------
    >>> cos_sum_expansion(1)
    (cos(x1 + x2), -sin(x1)*sin(x2) + cos(x1)*cos(x2))
    >>> from sympy import expand, expand_trig
    >>> lhs, rhs = cos_sum_expansion(3)
    >>> expand(expand_trig(lhs) - rhs)
    0
    """
    k = check_positive_int(k, "k")
    check_cost(
        2 ** min(k, 64),
        MAX_IDENTITY_TERMS,
        param="k",
        value=k,
        what="the number of terms 2^k of the expansion",
        hint="the identity is checked symbolically for small k only (k <= 9)",
    )
    x = sympy.symbols(f"x1:{k + 2}")
    rhs = sympy.Integer(0)
    for b in _even_subsets(k):
        s = -1 if sum(b) % 4 == 2 else 1
        rhs += s * sympy.Mul(*[sympy.sin(xi) if bi else sympy.cos(xi) for xi, bi in zip(x, b)])
    return cos(sympy.Add(*x)), rhs


@dataclass(frozen=True)
class ModularConstruction:
    r"""The explicit max-margin network of Shi Lemma 4.11 / C.18 (as corrected in ``docs/modular.md``).

    One neuron per frequency :math:`\zeta`, even-weight :math:`b\in\{0,1\}^{k+1}` and sign pattern
    :math:`\epsilon\in\{\pm1\}^k` with :math:`\epsilon_1=+1`; block phases
    :math:`\vartheta_j = -\tfrac{\pi}{2}b_j + \pi 1[\epsilon_j=-1]`, output phase
    :math:`\sum_j\vartheta_j`, and common amplitude :math:`t=(2^{k-1}k!)^{-1/(k+1)}`. The network
    computes :math:`F(a,c) = (p\,1[c\equiv\sum a]-1)/2` exactly.

    Attributes
    ----------
    p, k : int
        Odd modulus and number of inputs.
    neurons : tuple of FourierNeuron
        The :func:`min_width` non-zero neurons.
    width : int
        Total width m (at least ``len(neurons)``; the rest is zero padding).

    Examples
    --------
    >>> c = construction(3, 2)
    >>> c.n_active, c.logit([1, 2], 0), c.logit([1, 1], 0), c.margin
    (8, 1, -1/2, 3/2)
    >>> c.normalized_margin == max_margin(3, 2)
    True
    """

    p: int
    k: int
    neurons: tuple[FourierNeuron, ...]
    width: int

    @property
    def n_active(self) -> int:
        """Number of non-zero neurons (= :func:`min_width`); the rest of ``width`` is zero padding."""
        return len(self.neurons)

    def logit(self, a: Sequence[int], c: int) -> sympy.Expr:
        r"""Exact network output :math:`(p\,1[c \equiv \sum a] - 1)/2` (Lemma C.18, corrected).

        Raises
        ------
        ValueError
            If ``a`` is not k residues in 0..p-1 or ``c`` is not a residue in 0..p-1.
        """
        a = _check_residues(a, self.p, self.k)
        c = _check_residue(c, self.p, "c")
        return Rational(self.p * int((sum(a) - c) % self.p == 0) - 1, 2)

    @property
    def margin(self) -> sympy.Expr:
        """Dataset margin h(theta): correct logit (p-1)/2 minus every wrong logit -1/2, i.e. p/2."""
        return Rational(self.p, 2)

    @property
    def norm_power(self) -> sympy.Expr:
        r""":math:`\|\theta\|_{2,k+1}^{k+1} = \sum_i \|\theta_i\|_2^{k+1}` (exact)."""
        return sympy.Add(*[n.norm_squared() ** Rational(self.k + 1, 2) for n in self.neurons])

    @property
    def normalized_margin(self) -> sympy.Expr:
        r""":math:`h(\theta)/\|\theta\|_{2,k+1}^{k+1}`; simplifies to :func:`max_margin`."""
        return sympy.radsimp(sympy.simplify(self.margin / self.norm_power))


def construction(p: int, k: int, width: int | None = None) -> ModularConstruction:
    """Build the explicit max-margin network (see :class:`ModularConstruction`).

    Parameters
    ----------
    p, k : int
        Odd modulus and number of inputs.
    width : int, optional
        Total width m; the construction uses :func:`min_width` neurons and pads with zero neurons.

    Returns
    -------
    ModularConstruction
        The network, with exact neurons.

    Raises
    ------
    ValueError
        If ``width`` is below ``2^{2k-2}(p-1)``: the construction (and Thm 4.9) needs that many neurons.

    Examples
    --------
    >>> c = construction(5, 2, width=20)
    >>> c.n_active, c.width, c.normalized_margin
    (16, 20, sqrt(30)/180)
    >>> c.normalized_margin == max_margin(5, 2)
    True
    >>> construction(3, 2, width=4)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: width m = 4 is below the construction's size 2^(2k-2)(p-1) = 8 for p = 3, k = 2 ...
    """
    p, k = _check_pk(p, k)
    check_entries(
        (2 * k - 2) * math.log10(2) + math.log10(p - 1) + math.log10(k + 1) if k < 10**300 else math.inf,
        lambda: 2 ** (2 * k - 2) * (p - 1) * (k + 1),
        param="k",
        value=k,
        what=f"the exact construction at p = {format_count(p)} (2^(2k-2)(p-1)(k+1) entries)",
        hint="max_margin(p, k) and min_width(p, k) give the closed forms without building it",
    )
    n_min = min_width(p, k)
    if width is None:
        width = n_min
    width = check_positive_int(width, "width")
    if width < n_min:
        raise InputError(
            f"width m = {width} is below the construction's size 2^(2k-2)(p-1) = {n_min} for p = {p}, k = {k} "
            f"({SOURCE} requires m >= {n_min})",
            param="width",
        )
    t = (2 ** (k - 1) * factorial(k)) ** Rational(-1, k + 1)
    neurons = []
    for zeta in frequencies(p):
        for b in _even_subsets(k):
            for tail in itertools.product([1, -1], repeat=k - 1):
                eps = (1, *tail)
                phases = tuple(-pi / 2 * b[j] + pi * int(eps[j] == -1) for j in range(k))
                neurons.append(FourierNeuron(p=p, zeta=zeta, phases=phases, amplitude=t))
    return ModularConstruction(p=p, k=k, neurons=tuple(neurons), width=width)


# --------------------------------------------------------------------------------------------
# Edelman App. D.4: the memorising ("dense") construction, k = 2
# --------------------------------------------------------------------------------------------

MEMORISING_SCALINGS = ("printed", "rebalanced")
"""The block scales of :func:`memorising_scales`: as printed in Edelman App. D.4, and the best rescaling."""

D4_SOURCE = "Edelman thesis App. D.4"


def memorising_scales(scaling: str) -> tuple[sympy.Expr, sympy.Expr]:
    r"""Block scales (alpha, beta) of the memorising construction: u = alpha e_a, v = ±alpha e_b, w = ±beta e_r.

    * ``"printed"``: Edelman App. D.4 as printed, one-hot u, v and w = e_r / 4: (1, 1/4);
    * ``"rebalanced"``: :math:`\alpha = \beta = 2^{-2/3}` (so :math:`4\alpha^2\beta = 1` and the margin stays 1),
      the scales that maximize the normalized margin (AM-GM on the three block norms, ``docs/modular.md``).

    Parameters
    ----------
    scaling : {"printed", "rebalanced"}
        Which scales (:data:`MEMORISING_SCALINGS`).

    Returns
    -------
    (alpha, beta) : tuple of sympy.Expr
        The input-block and output-block scales.

    Examples
    --------
    >>> memorising_scales("printed")
    (1, 1/4)
    >>> alpha, beta = memorising_scales("rebalanced")
    >>> alpha, 4 * alpha**2 * beta
    (2**(1/3)/2, 1)
    >>> memorising_scales("dense")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: scaling must be one of ('printed', 'rebalanced'), got 'dense'
    """
    if not isinstance(scaling, str):  # an array's == is elementwise, and its truth value an error
        raise InputError(f"scaling must be one of {MEMORISING_SCALINGS}, got {scaling!r:.80}", param="scaling")
    if scaling == "printed":
        return sympy.Integer(1), Rational(1, 4)
    if scaling == "rebalanced":
        t = sympy.Integer(2) ** Rational(-2, 3)
        return t, t
    raise InputError(f"scaling must be one of {MEMORISING_SCALINGS}, got {scaling!r:.80}", param="scaling")


def memorising_normalized_margin(p: int | sympy.Expr, alpha: object, beta: object) -> sympy.Expr:
    r"""Normalized :math:`L_{2,3}` margin of the memorising network of Edelman App. D.4 (k = 2) with scales
    alpha, beta (derivation in ``docs/modular.md``).

    For every pair (a, b) two neurons :math:`(u, v, w) = (\alpha e_a, \pm\alpha e_b, \pm\beta e_{r(a,b)})`
    add up to :math:`\beta((\alpha 1_{i=a}+\alpha 1_{j=b})^2 - (\alpha 1_{i=a}-\alpha 1_{j=b})^2) 1_{c=r(a,b)}
    = 4\alpha^2\beta\,1_{i=a}1_{j=b}1_{c=r(a,b)}`, so the logits are :math:`4\alpha^2\beta\,1[c = r(a,b)]` for any
    table r (here r(a, b) = a + b mod p), the margin is :math:`4\alpha^2\beta`, and the :math:`2p^2` neurons of
    squared norm :math:`2\alpha^2+\beta^2` give

    .. math:: \frac{h(\theta)}{\|\theta\|_{2,3}^3} = \frac{4\alpha^2\beta}{2p^2(2\alpha^2+\beta^2)^{3/2}}.

    Parameters
    ----------
    p : int or sympy.Symbol
        Odd modulus >= 3 (a symbol gives the symbolic formula).
    alpha, beta : numbers > 0
        Scales of the input blocks and of the output block.

    Returns
    -------
    sympy.Expr
        The normalized margin.

    Examples
    --------
    >>> from sympy import Rational, Symbol
    >>> memorising_normalized_margin(3, 1, Rational(1, 4))
    32*sqrt(33)/9801
    >>> memorising_normalized_margin(Symbol("p"), 1, Rational(1, 4))
    32*sqrt(33)/(1089*p**2)

    A common rescaling of the three blocks leaves it unchanged (the network is 3-homogeneous):

    >>> memorising_normalized_margin(3, 1, 1) == memorising_margin(3, "rebalanced")
    True
    >>> memorising_normalized_margin(3, -1, 1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: alpha must be a positive number, got alpha = -1
    """
    a, b = as_number(alpha, "alpha"), as_number(beta, "beta")
    for name, v in (("alpha", a), ("beta", b)):
        if v.is_number and not (v.is_real and v > 0):
            raise InputError(f"{name} must be a positive number, got {name} = {_shown(v)}", param=name)
    da, db = _digits(a), _digits(b)
    check_cost(
        2 * (da + db),
        MAX_RADICAND_DIGITS,
        param="alpha" if da >= db else "beta",
        value=_shown(a if da >= db else b),
        what="the radicand 2 alpha^2 + beta^2 of the norm",
        hint="pass alpha and beta with fewer digits, or floats",
        log10=True,
    )
    if not is_symbolic(p):
        p = sympy.Integer(check_odd_modulus(p, source=D4_SOURCE))
        _check_closed_form_size(int(p), 2)
    return sympy.radsimp(4 * a**2 * b / (2 * p**2 * (2 * a**2 + b**2) ** Rational(3, 2)))


def memorising_margin(p: object, scaling: str = "printed") -> sympy.Expr:
    r"""Normalized margin of the memorising construction with the scales of :func:`memorising_scales`:
    :math:`1/(2p^2(33/16)^{3/2})` as printed, :math:`2/(3\sqrt3\,p^2)` rebalanced (Edelman App. D.4).

    Parameters
    ----------
    p : int or sympy.Symbol
        Odd modulus >= 3 (a symbol gives the symbolic formula).
    scaling : {"printed", "rebalanced"}
        The block scales (:func:`memorising_scales`).

    Returns
    -------
    sympy.Expr
        The normalized :math:`L_{2,3}` margin.

    Examples
    --------
    >>> from sympy import Symbol
    >>> memorising_margin(Symbol("p"), "rebalanced")
    2*sqrt(3)/(9*p**2)
    >>> memorising_margin(3), memorising_margin(3, "rebalanced")
    (32*sqrt(33)/9801, 2*sqrt(3)/81)
    """
    return memorising_normalized_margin(p, *memorising_scales(scaling))


def memorising_margin_ratio(p: object, scaling: str = "printed") -> sympy.Expr:
    r"""The memorising construction's normalized margin over :math:`\gamma^*(p, 2)`; below 1 for every odd p.

    Rebalanced it is :math:`\sqrt2\,(p-1)/p^{3/2}` (< 1 because :math:`p^3 - 2(p-1)^2 > 0` for p >= 1); as printed it
    is smaller by the factor :math:`(3\sqrt3/4)/(33/16)^{3/2}`.

    Parameters
    ----------
    p : int
        Odd modulus >= 3.
    scaling : {"printed", "rebalanced"}
        The block scales (:func:`memorising_scales`).

    Returns
    -------
    sympy.Expr
        The ratio, in (0, 1).

    Examples
    --------
    >>> memorising_margin_ratio(5, "rebalanced")
    4*sqrt(10)/25
    >>> round(float(memorising_margin_ratio(5)), 4), round(float(memorising_margin_ratio(5, "rebalanced")), 4)
    (0.2219, 0.506)
    """
    return sympy.radsimp(sympy.simplify(memorising_margin(p, scaling) / max_margin(p, 2)))


# --------------------------------------------------------------------------------------------
# Single-neuron class-weighted objective Psi (uniform q and tau), Shi Def C.12-C.13, Lemma C.14
# --------------------------------------------------------------------------------------------


def _neuron_arrays(
    u: Sequence[Sequence[object]], w: Sequence[object]
) -> tuple[list[list[sympy.Expr]], list[sympy.Expr], int, int]:
    try:
        u_rows, w_row = [list(row) for row in u], list(w)
    except TypeError:
        raise InputError("u must be a sequence of k blocks and w a block, each of p numbers", param="u") from None
    p = len(w_row)
    if p < 2:
        raise InputError(
            f"w must have p >= 2 entries (one per class of Z_p; Psi averages over the p - 1 wrong classes), "
            f"got p = len(w) = {p}",
            param="w",
        )
    if not u_rows or any(len(row) != p for row in u_rows):
        raise InputError(f"every block must have length p = {p}, got lengths {[len(r) for r in u_rows]}", param="u")
    u_exact = [[as_number(x, "u") for x in row] for row in u_rows]
    w_exact = [as_number(x, "w") for x in w_row]
    return u_exact, w_exact, p, len(u_exact)


@fill_doc(_DOC)
def psi_time_domain(u: Sequence[Sequence[object]], w: Sequence[object]) -> sympy.Expr:
    r"""Exact single-neuron class-weighted margin under uniform q and tau (definition, Shi Def C.13).

    .. math:: \Psi(u,w) = \mathbb E_{a}\Big[S(a)^k\Big(w(y(a)) - \frac{1}{p-1}\sum_{c\ne y(a)} w(c)\Big)\Big],
              \qquad S(a)=\sum_i u_i(a_i).

    Brute force over all p^k inputs; use for small p, k only.

    {{u_w}}

    Returns
    -------
    sympy.Expr
        :math:`\Psi(u, w)`, exact.

    Examples
    --------
    >>> psi_time_domain([[1, 0, 0]], [1, 0, 0])
    1/3
    >>> n = optimal_neuron(3, 2)
    >>> psi_time_domain(n.u(), n.w()), max_margin(3, 2)
    (sqrt(2)/18, sqrt(2)/18)
    """
    u, w, p, k = _neuron_arrays(u, w)
    check_cost(
        k * math.log10(p) if p > 1 else 0.0,
        math.log10(MAX_BRUTE_FORCE_POINTS),
        param="k",
        value=k,
        what=f"the number p^k of inputs of the brute-force enumeration at p = {p}",
        hint="psi_fourier gives the same value (Shi Lemma C.14) at O(p^2 k) cost",
        log10=True,
    )
    du = max(_digits(x) for row in u for x in row)
    dw = max(_digits(x) for x in w)
    check_cost(
        (k * k + 1) * max(du, dw),
        MAX_DIGITS,
        param="u" if du >= dw else "w",
        value=f"entries of ~{max(du, dw):.0f} digits",
        what=f"the exact powers S(a)^k at k = {k} (k^2 times the digits of an entry)",
        hint="psi_fourier gives the same value without the powers (Shi Lemma C.14)",
        log10=True,
    )
    total_w = sympy.Add(*w)
    acc = sympy.Integer(0)
    for a in itertools.product(range(p), repeat=k):
        s = sympy.Add(*[u[i][a[i]] for i in range(k)])
        y = sum(a) % p
        acc += s**k * (w[y] - (total_w - w[y]) / (p - 1))
    return sympy.expand(acc / sympy.Integer(p) ** k)


@fill_doc(_DOC)
def psi_fourier(u: Sequence[Sequence[object]], w: Sequence[object]) -> sympy.Expr:
    r"""Psi in Fourier form (Shi Lemma C.14), an exact identity for all real vectors:

    .. math:: \Psi(u,w) = \frac{k!}{(p-1)p^k}\sum_{j\ne0}\hat w(-j)\prod_{i=1}^k\hat u_i(j),
              \qquad \hat f(j)=\sum_x f(x)e^{-2\pi i jx/p}.

    {{u_w}}

    Returns
    -------
    sympy.Expr
        :math:`\Psi(u, w)`, exact (unsimplified roots of unity in general).

    Examples
    --------
    >>> psi_fourier([[1, 0, 0]], [1, 0, 0])
    1/3
    >>> psi_fourier([[1, 0, 0], [0, 1, 0]], [0, 1, 0]), psi_time_domain([[1, 0, 0], [0, 1, 0]], [0, 1, 0])
    (2/9, 2/9)
    """
    u, w, p, k = _neuron_arrays(u, w)
    check_cost(
        p * p * (k + 1),
        MAX_EXACT_ENTRIES,
        param="p",
        value=p,
        what="the number (k+1) p^2 of terms of the exact DFTs",
        hint="numerics.modular.psi_fourier evaluates Psi in float64",
    )

    def dft(f: list[sympy.Expr], j: int) -> sympy.Expr:
        return sympy.Add(*[f[x] * sympy.exp(-2 * pi * sympy.I * j * x / p) for x in range(p)])

    total = sympy.Add(*[dft(w, -j) * sympy.Mul(*[dft(ui, j) for ui in u]) for j in range(1, p)])
    return factorial(k) / ((p - 1) * sympy.Integer(p) ** k) * total


def _numeric_pk(p: object, k: object) -> tuple[int, int]:
    """p and k of the deformed-neuron formulas (numeric: the block count k+1 is used as an integer)."""
    if is_symbolic(p, k):
        raise InputError("the deformed-neuron formulas need numeric p and k", param="k")
    return _check_exact_pk(p, k)


def _fraction_in_unit_interval(x: object, name: str, what: str) -> sympy.Expr:
    v = as_number(x, name)
    if v.is_number and not (v.is_real and 0 <= v <= 1):
        raise InputError(f"{what} {name} must lie in [0, 1], got {name} = {_shown(v)}", param=name)
    return v


def psi_phase_mismatch(p: object, k: object, delta: object) -> sympy.Expr:
    r"""Psi of an otherwise optimal unit neuron whose phases miss the constraint by
    :math:`\Delta = \sum\vartheta_i - \vartheta_w`: :math:`\gamma^*\cos\Delta` (``docs/modular.md``).

    Parameters
    ----------
    p, k : int or sympy.Symbol
        Odd modulus ``p >= 3`` and number of inputs ``k >= 1``.
    delta : number or sympy expression
        The phase mismatch :math:`\Delta`.

    Returns
    -------
    sympy.Expr
        :math:`\gamma^*(p, k)\cos\Delta`.

    Examples
    --------
    >>> from dataclasses import replace
    >>> from sympy import pi
    >>> psi_phase_mismatch(3, 2, pi / 3)
    sqrt(2)/36
    >>> n = replace(optimal_neuron(3, 2), mismatch=pi / 3)
    >>> psi_time_domain(n.u(), n.w())
    sqrt(2)/36
    """
    return max_margin(p, k) * cos(as_number(delta, "delta"))


def psi_unbalanced(p: object, k: object, r: Sequence[object]) -> sympy.Expr:
    r"""Psi of a unit single-frequency neuron with aligned phases whose k+1 blocks have squared norms
    :math:`r_1..r_{k+1}` (summing to 1): :math:`\gamma^*\prod_i((k+1)r_i)^{1/2}` (``docs/modular.md``).

    Parameters
    ----------
    p, k : int
        Odd modulus ``p >= 3`` and number of inputs ``k >= 1``.
    r : sequence of k+1 numbers
        The blocks' shares of the squared norm, >= 0 and summing to 1.

    Returns
    -------
    sympy.Expr
        :math:`\Psi`; the balanced split :math:`r_i = 1/(k+1)` gives :math:`\gamma^*`.

    Examples
    --------
    >>> psi_unbalanced(5, 2, ["1/3", "1/3", "1/3"]) == max_margin(5, 2)
    True
    >>> psi_unbalanced(5, 2, ["1/2", "1/4", "1/4"]), max_margin(5, 2)
    (sqrt(5)/80, sqrt(30)/180)
    >>> psi_unbalanced(5, 2, [1, 1, 1])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: block fractions must be >= 0 and sum to 1, got [1, 1, 1]
    """
    p, k = _numeric_pk(p, k)
    try:
        items = list(r)
    except TypeError:
        raise InputError(f"r must be a sequence of k+1 = {k + 1} block fractions, got {r!r}", param="r") from None
    if len(items) != k + 1:
        raise InputError(f"need k+1 = {k + 1} block fractions, got {len(items)}", param="r")
    shares = [as_number(x, "r") for x in items]
    if any(x.is_number and not x.is_real for x in shares):
        raise InputError(f"block fractions must be real numbers, got {shares}", param="r")
    check_cost(
        sum(_digits((k + 1) * x) for x in shares),
        MAX_RADICAND_DIGITS,
        param="r",
        value=f"{k + 1} fractions of ~{sum(_digits(x) for x in shares):.0f} digits in all",
        what="the product of the radicands (k+1) r_i",
        hint="pass the fractions with fewer digits, or floats",
        log10=True,
    )
    if any(x.is_negative for x in shares) or sympy.simplify(sympy.Add(*shares) - 1) != 0:
        raise InputError(f"block fractions must be >= 0 and sum to 1, got {shares}", param="r")
    return max_margin(p, k) * sympy.Mul(*[sqrt((k + 1) * x) for x in shares])


def psi_two_frequencies(p: object, k: object, s: object) -> sympy.Expr:
    r"""Psi of a unit neuron whose mass is split over two frequencies in fractions s and 1-s, each
    part optimal in shape: :math:`\gamma^*(s^{(k+1)/2}+(1-s)^{(k+1)/2})` (``docs/modular.md``).

    Parameters
    ----------
    p, k : int
        Odd modulus ``p >= 3`` and number of inputs ``k >= 1``.
    s : number in [0, 1]
        The share of the first frequency.

    Returns
    -------
    sympy.Expr
        :math:`\Psi`; below :math:`\gamma^*` for ``0 < s < 1`` when ``k >= 2``.

    Examples
    --------
    >>> from sympy import Rational
    >>> psi_two_frequencies(5, 3, Rational(1, 2)), max_margin(5, 3)
    (3/640, 3/320)

    For k = 1 every split is optimal (the optimal neuron is not unique):

    >>> psi_two_frequencies(5, 1, Rational(1, 3)) == max_margin(5, 1)
    True
    """
    p, k = _numeric_pk(p, k)
    split = _fraction_in_unit_interval(s, "s", "the split")
    if split.is_number:
        _check_number_size(split, "s", power=(k + 1) / 2, radicand=k % 2 == 0, what="the exact power s^((k+1)/2)")
    e = Rational(k + 1, 2)
    return max_margin(p, k) * (split**e + (1 - split) ** e)


def psi_dc_leak(p: object, k: object, eps: object) -> sympy.Expr:
    r"""Psi of a unit optimal neuron with a fraction eps of every block's squared norm moved into its
    DC (constant) component: :math:`\gamma^*(1-\varepsilon)^{(k+1)/2}` (``docs/modular.md``).

    Parameters
    ----------
    p, k : int
        Odd modulus ``p >= 3`` and number of inputs ``k >= 1``.
    eps : number in [0, 1]
        The fraction moved into the DC component.

    Returns
    -------
    sympy.Expr
        :math:`\Psi`.

    Examples
    --------
    >>> from sympy import Rational
    >>> psi_dc_leak(5, 3, Rational(1, 2)), max_margin(5, 3) / 4
    (3/1280, 3/1280)
    >>> psi_dc_leak(5, 3, 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the DC fraction eps must lie in [0, 1], got eps = 2
    """
    p, k = _numeric_pk(p, k)
    leak = _fraction_in_unit_interval(eps, "eps", "the DC fraction")
    if leak.is_number:
        _check_number_size(
            leak, "eps", power=(k + 1) / 2, radicand=k % 2 == 0, what="the exact power (1 - eps)^((k+1)/2)"
        )
    return max_margin(p, k) * (1 - leak) ** Rational(k + 1, 2)


# --- Edelman Fig. 7.4a: the maximum normalized power of a neuron at a Gaussian initialisation

#: Largest p of :func:`init_purity_cdf` (an alternating sum of about p^2/8 exact terms).
MAX_INIT_PURITY_P = 401


def init_purity_cdf(p: int, x: object) -> sympy.Expr:
    r"""``P(purity(u) <= x)`` for ``u`` in ``R^p`` (p odd) with a spherically symmetric law (i.i.d. ``N(0, s^2)``
    entries: the initialisation of Edelman Ch. 7's networks in this toolkit), where ``purity`` is the maximum normalized
    one-sided Fourier power ``max_zeta P(zeta)/sum_zeta P(zeta)`` of Fig. 7.4 (``P(0) = |u^(0)|^2``,
    ``P(zeta) = 2 |u^(zeta)|^2``, zeta = 1..m, m = (p-1)/2).

    The powers are ``p s^2`` times ``chi^2_1`` (zeta = 0) and ``chi^2_2`` (zeta >= 1), independent, so the normalized
    powers are ``Dirichlet(1/2, 1, ..., 1)`` (m ones). Conditioning on the first, ``D_0 = s ~ Beta(1/2, m)``, the rest
    are ``(1 - s)`` times a flat ``Dirichlet(1^m)``, whose maximum has ``P(max <= y) = sum_j (-1)^j C(m, j)
    (1 - j y)_+^{m-1}``; so

    ``P(purity <= x) = (1/B(1/2, m)) sum_{j=0}^{m} (-1)^j C(m, j) int_0^{u_j} s^{-1/2} (1 - j x - s)^{m-1} ds``,
    ``u_j = min(x, 1 - j x)`` (terms with ``1 - j x <= 0`` vanish), ``B(1/2, m) = 4^m m! (m-1)!/(2m)!``; the integral
    is a polynomial in ``sqrt(u_j)``. Fig. 7.4a says only that "initially, the maximum power is randomly
    distributed"; this is that distribution.

    Parameters
    ----------
    p : int
        Odd, ``3 <= p <= MAX_INIT_PURITY_P``.
    x : rational in [0, 1]
        The threshold; a float is refused (pass ``Fraction(1, 10)``).

    Returns
    -------
    sympy.Expr
        The probability, exact (rationals times square roots of rationals).

    Examples
    --------
    For p = 3 (m = 1) the purity is ``max(D_0, 1 - D_0)`` with ``D_0 ~ Beta(1/2, 1)``, ``P(D_0 <= y) = sqrt(y)``:

    >>> from fractions import Fraction
    >>> init_purity_cdf(3, Fraction(3, 4)), init_purity_cdf(3, Fraction(1, 2)), init_purity_cdf(3, 1)
    (-1/2 + sqrt(3)/2, 0, 1)
    >>> round(float(init_purity_cdf(71, Fraction(1, 10))), 6)
    0.314365
    >>> init_purity_cdf(4, Fraction(1, 2))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: p must be an odd integer >= 3 (a real vector on Z_p with p odd), got p = 4
    """
    p = check_positive_int(p, "p", minimum=3)
    if p % 2 == 0:
        raise InputError(f"p must be an odd integer >= 3 (a real vector on Z_p with p odd), got p = {p}", param="p")
    check_cost(
        p,
        MAX_INIT_PURITY_P,
        param="p",
        value=p,
        what="the exact alternating sum of init_purity_cdf (about p^2/8 terms with growing integers)",
        hint="estimate it by Monte Carlo (numerics.spectra.purity of Gaussian vectors)",
    )
    xv = as_number(x, "x", symbolic=False)
    if not isinstance(xv, Rational) or not (0 <= xv <= 1):
        raise InputError(f"x must be a rational number in [0, 1], got {x!r:.80}", param="x")
    m = (p - 1) // 2
    beta = Rational(4**m * math.factorial(m) * math.factorial(m - 1), math.factorial(2 * m))
    total = sympy.Integer(0)
    for j in range(m + 1):
        c = 1 - j * xv
        if c <= 0:
            break
        u = min(xv, c)
        # int_0^u s^{-1/2} (c - s)^{m-1} ds = sum_k C(m-1, k) c^{m-1-k} (-1)^k u^{k+1/2}/(k+1/2)
        poly = sum(
            (
                Rational(math.comb(m - 1, k) * (-1) ** k) * c ** (m - 1 - k) * u**k / (k + Rational(1, 2))
                for k in range(m)
            ),
            Rational(0),
        )
        total += (-1) ** j * math.comb(m, j) * poly * sqrt(u)
    return total / beta
