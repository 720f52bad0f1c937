r"""Fixed embeddings cannot fit all sparse parities: Edelman thesis (2024), Ch. 5, Sec. 5.4.1, Theorem 5.6
("Low-width NTK cannot fit all parities", after Kamath et al. 2020 and Malach & Shalev-Shwartz 2022).

Theorem 5.6 as printed: let :math:`\Psi:\{\pm1\}^n\to\mathbb R^D` satisfy :math:`\sup_x\|\Psi(x)\|_2\le 1`, let
:math:`R,\varepsilon>0` and let :math:`\ell` be the 0-1 or the hinge loss. If :math:`DR^2<\varepsilon^2\binom nk`,
some k-set S has :math:`\inf_{\|w\|\le R}\mathbb E_{\mathcal D_S}\,\ell(\Psi(x)^\top w, y)>1-\varepsilon`.

For the hinge loss the statement holds for every admissible :math:`\varepsilon`, i.e. for every
:math:`\varepsilon>\sqrt{DR^2/\binom nk}`, so the largest hinge loss over S is at least
:func:`thm56_hinge_bound` :math:`= 1-R\sqrt{D/\binom nk}`. The thesis gives no proof; the standard one gives more.
Hinge :math:`\ge 1-y\hat y`, so the loss is at least :math:`1-R\,\|\mathbb E[\chi_S(x)\Psi(x)]\|_2`, and by
Bessel's inequality on each coordinate of :math:`\Psi`,
:math:`\sum_{|S|=k}\|\mathbb E[\chi_S\Psi]\|_2^2\le\mathbb E\|\Psi\|_2^2\le1`, so some S has
:math:`\|\mathbb E[\chi_S\Psi]\|_2\le\binom nk^{-1/2}`: the bound :func:`thm56_correlation_bound`
:math:`=1-R/\sqrt{\binom nk}`, free of D. It is attained by the degree-k Walsh embedding
:math:`\Psi(x)=(\chi_T(x))_{|T|=k}/\sqrt{\binom nk}` when :math:`R\le\sqrt{\binom nk}` (then
:math:`|\Psi(x)^\top w|\le1` and the hinge loss is linear in w).

For the 0-1 loss the statement as printed fails: the 0-1 loss depends on the sign of :math:`\Psi(x)^\top w` only,
so R does not matter, and the Walsh embedding with :math:`w=Re_S` classifies :math:`\chi_S` without error for every
S (docs/sparse_parity.md).
"""

from __future__ import annotations

import math

import sympy

from ._checks import InputError, as_number
from ._docstrings import fill_doc
from .boolean import _check_comb_digits, thm56_condition
from .parity import check_nk

__all__ = ["thm56_bound_as_printed", "thm56_correlation_bound", "thm56_hinge_bound", "thm56_walsh_dimension"]


#: The shared docstring entries of the two hinge bounds (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "R_n_k": "R : int, Fraction, str or sympy number\n    The norm budget of w, >= 0.\nn, k : int\n    The parity: ``1 <= k <= n``.",
}


def _nk(n: object, k: object) -> tuple[int, int]:
    """check_nk, and C(n, k) at most MAX_DIGITS digits (LimitError naming n) before it is formed."""
    n, k = check_nk(n, k)
    _check_comb_digits(n, k)
    return n, k


def _check_nonneg(value: object, name: str) -> sympy.Expr:
    x = as_number(value, name)
    if not (x.is_real and x >= 0):
        raise InputError(f"{name} must be a real number >= 0 (Edelman Thm 5.6), got {name} = {value!r:.80}", param=name)
    return x


@fill_doc(_DOC)
def thm56_hinge_bound(D: object, R: object, n: object, k: object) -> sympy.Expr:
    r"""Edelman thesis (2024) Thm 5.6 for the hinge loss, with the smallest admissible :math:`\varepsilon`:
    :math:`\max_{|S|=k}\inf_{\|w\|\le R}\mathbb E_{\mathcal D_S}[\max(0,1-y\,\Psi(x)^\top w)]\ge 1-R\sqrt{D/\binom nk}`
    for every embedding :math:`\Psi:\{\pm1\}^n\to\mathbb R^D` with :math:`\sup_x\|\Psi(x)\|_2\le1`.

    The theorem concludes :math:`>1-\varepsilon` whenever :math:`DR^2<\varepsilon^2\binom nk`; taking
    :math:`\varepsilon\downarrow\sqrt{DR^2/\binom nk}` gives this bound (the maximum over the finitely many S is
    attained, so the strict inequality becomes :math:`\ge` in the limit).

    Parameters
    ----------
    D : int
        The embedding dimension, >= 1.
    {{R_n_k}}

    Returns
    -------
    sympy.Expr
        ``1 - R sqrt(D / C(n, k))`` (exact).

    Raises
    ------
    ValueError
        If D < 1, R < 0, or k is not in [1, n].

    Examples
    --------
    >>> thm56_hinge_bound(4, sympy.Rational(1, 2), 6, 3)  # C(6,3) = 20: 1 - (1/2) sqrt(4/20)
    1 - sqrt(5)/10
    """
    n, k = _nk(n, k)
    d = _check_nonneg(D, "D")
    if not (d.is_integer and d >= 1):
        raise InputError(f"D must be an integer >= 1 (the embedding dimension), got D = {D!r:.80}", param="D")
    r = _check_nonneg(R, "R")
    return 1 - r * sympy.sqrt(sympy.Rational(1, math.comb(n, k)) * d)


@fill_doc(_DOC)
def thm56_correlation_bound(R: object, n: object, k: object) -> sympy.Expr:
    r"""The bound the standard proof of Edelman Thm 5.6 gives for the hinge loss, free of the dimension D:
    :math:`\max_{|S|=k}\inf_{\|w\|\le R}\mathbb E_{\mathcal D_S}[\max(0,1-y\,\Psi(x)^\top w)]\ge1-R/\sqrt{\binom nk}`
    for every :math:`\Psi` with :math:`\sup_x\|\Psi(x)\|_2\le1` (hinge :math:`\ge1-y\hat y`, Cauchy-Schwarz, and
    Bessel's inequality :math:`\sum_{|S|=k}\|\mathbb E[\chi_S\Psi]\|^2\le\mathbb E\|\Psi\|^2\le1`; module doc).
    It implies :func:`thm56_hinge_bound` (D >= 1) and, for :math:`R\le\sqrt{\binom nk}`, holds with equality for the
    degree-k Walsh embedding :math:`\Psi(x)=(\chi_T(x))_{|T|=k}/\sqrt{\binom nk}`.

    Parameters
    ----------
    {{R_n_k}}

    Returns
    -------
    sympy.Expr
        ``1 - R / sqrt(C(n, k))`` (exact).

    Raises
    ------
    ValueError
        If R < 0 or k is not in [1, n].

    Examples
    --------
    >>> thm56_correlation_bound(2, 6, 3)  # 1 - 2/sqrt(20)
    1 - sqrt(5)/5
    >>> thm56_correlation_bound(1, 3, 3)
    0
    """
    n, k = _nk(n, k)
    r = _check_nonneg(R, "R")
    return 1 - r / sympy.sqrt(math.comb(n, k))


def thm56_walsh_dimension(n: object, k: object) -> int:
    """The dimension C(n, k) of the degree-k Walsh embedding (one coordinate per k-set), the embedding at which
    :func:`thm56_correlation_bound` is attained.

    Parameters
    ----------
    n, k : int
        The parity: ``1 <= k <= n``.

    Returns
    -------
    int
        C(n, k).

    Examples
    --------
    >>> thm56_walsh_dimension(6, 3)
    20
    """
    n, k = _nk(n, k)
    return math.comb(n, k)


def thm56_bound_as_printed(D: object, R: object, eps: object, n: object, k: object) -> sympy.Expr:
    r"""Edelman thesis (2024) Thm 5.6 as printed, for the 0-1 or the hinge loss: under its hypothesis
    :math:`DR^2<\varepsilon^2\binom nk` (:func:`theory.boolean.thm56_condition`), some k-set S has
    :math:`\inf_{\|w\|\le R}\mathbb E_{\mathcal D_S}\ell(\Psi(x)^\top w,y)>1-\varepsilon`; this returns the
    printed lower bound :math:`1-\varepsilon`.

    Parameters
    ----------
    D : int
        The embedding dimension.
    R, eps : int, Fraction, str or float
        The norm budget and the epsilon of the theorem (read exactly via their decimal strings).
    n, k : int
        The parity: ``1 <= k <= n``.

    Returns
    -------
    sympy.Expr
        ``1 - eps``.

    Raises
    ------
    ValueError
        If the hypothesis :math:`DR^2<\varepsilon^2\binom nk` fails (the theorem then says nothing), or an input is
        out of range.

    Examples
    --------
    >>> thm56_bound_as_printed(20, "0.25", "0.5", 6, 3)  # 20/16 < 20/4
    1/2
    >>> thm56_bound_as_printed(20, 1, "0.5", 6, 3)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: Thm 5.6 needs D R^2 < eps^2 C(n,k); got D = 20, R = 1, eps = '0.5', C(6,3) = 20
    """
    n, k = _nk(n, k)
    if not thm56_condition(D, R, eps, n, k):
        raise InputError(
            f"Thm 5.6 needs D R^2 < eps^2 C(n,k); got D = {D!r}, R = {R!r}, eps = {eps!r}, C({n},{k}) = "
            f"{math.comb(n, k)}",
            param="R",
        )
    return 1 - as_number(eps, "eps")
