r"""The two scaling laws that Edelman thesis (2024) Ch. 5, Fig. 5.1 right and Fig. B.6 set against each other, as local
slopes of :math:`\log t_c` against :math:`\log n` between two sizes :math:`n_{lo}<n_{hi}` at a fixed parity degree k.

* SGD (Empirical Finding 5.1, :math:`t_c\le c\,n^{\alpha k}`; Sec. 5.4.1, Prop. B.7): the Fourier-gap analysis needs
  :math:`O(\log(n)/\gamma^2)=\tilde O(n^{k-1})` samples, so at a fixed batch size the slope is
  :func:`fourier_gap_law_slope` :math:`=(k-1)+\log(\ln n_{hi}/\ln n_{lo})/\log(n_{hi}/n_{lo})` (the log of the upper
  end of :func:`theory.boolean.tc_growth_window`, per unit of :math:`\log n`); it grows by one per degree.
* Random search over the k-sets (Sec. 5.3.2: success time :math:`\mathrm{Geom}(1/\binom nk)`, median and mean
  proportional to :math:`\binom nk`): :func:`random_search_law_slope`
  :math:`=\log(\binom{n_{hi}}k/\binom{n_{lo}}k)/\log(n_{hi}/n_{lo})`, about k (more at small n).

:func:`slope_law_boundary` is the midpoint of the two: a slope below it is nearer the Fourier-gap law than random
search's. The thesis prints no value of c or alpha (Fig. B.5 and B.6 hold them as images).
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from ._checks import InputError, LimitError, as_fraction, check_positive_int, format_count
from ._docstrings import fill_doc, sections
from .boolean import _check_comb_digits

__all__ = [
    "fourier_gap_law_slope",
    "init_dominance_rate",
    "noisy_parity_correlation",
    "random_search_law_slope",
    "random_search_width_speedup",
    "slope_law_boundary",
    "width_plateau_boundary",
]


#: The shared docstring section of the three slopes (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "sizes": sections(
        "n_lo, n_hi : int\n    ``2 <= n_lo < n_hi``.",
        "k : int\n    The parity degree, ``1 <= k <= n_lo``.",
        returns="float",
    ),
}


def _sizes(n_lo: object, n_hi: object, k: object) -> tuple[int, int, int]:
    lo = check_positive_int(n_lo, "n_lo", minimum=2)
    hi = check_positive_int(n_hi, "n_hi", minimum=2)
    kk = check_positive_int(k, "k")
    if hi <= lo:
        raise InputError(f"need 2 <= n_lo < n_hi, got n_lo = {lo}, n_hi = {hi}", param="n_hi")
    if kk > lo:
        raise InputError(f"need k <= n_lo (a k-set of the smaller size), got k = {kk}, n_lo = {lo}", param="k")
    return lo, hi, kk


def _log_ratio(hi: int, lo: int) -> float:
    """log(hi / lo) for exact positive ints ``hi > lo`` of any size (the quotient may be beyond the float range)."""
    return math.log1p((hi - lo) / lo) if hi <= 2 * lo else math.log(hi) - math.log(lo)


def _comb(n: int, k: int, param: str) -> int:
    """The exact C(n, k), refused (LimitError naming ``param``) beyond MAX_DIGITS digits before it is formed."""
    _check_comb_digits(n, k, param)
    return math.comb(n, k)


@fill_doc(_DOC)
def fourier_gap_law_slope(n_lo: int, n_hi: int, k: int) -> float:
    r"""The local slope of :math:`\log t_c` against :math:`\log n` between n_lo and n_hi under the Fourier-gap law
    :math:`t_c\propto n^{k-1}\ln n` (Edelman Sec. 5.4.1 and Prop. B.7; :func:`theory.boolean.tc_growth_window`):
    :math:`(k-1)+\log(\ln n_{hi}/\ln n_{lo})/\log(n_{hi}/n_{lo})`.

    {{sizes}}

    Raises
    ------
    ValueError
        If the sizes are not ordered or k is out of range.

    Examples
    --------
    >>> round(fourier_gap_law_slope(10, 20, 2), 6), round(fourier_gap_law_slope(10, 20, 3), 6)
    (1.379654, 2.379654)
    """
    lo, hi, kk = _sizes(n_lo, n_hi, k)
    # the log of tc_growth_window's upper end per unit of log n, formed in logs (n_hi / n_lo may exceed a float)
    return (kk - 1) + math.log(math.log(hi) / math.log(lo)) / _log_ratio(hi, lo)


@fill_doc(_DOC)
def random_search_law_slope(n_lo: int, n_hi: int, k: int) -> float:
    r"""The local slope of :math:`\log t_c` against :math:`\log n` between n_lo and n_hi under random search's law
    :math:`t_c\propto\binom nk` (Edelman Sec. 5.3.2, success time :math:`\mathrm{Geom}(1/\binom nk)`):
    :math:`\log(\binom{n_{hi}}k/\binom{n_{lo}}k)/\log(n_{hi}/n_{lo})`.

    {{sizes}}

    Examples
    --------
    >>> round(random_search_law_slope(10, 20, 2), 6), round(random_search_law_slope(10, 20, 3), 6)
    (2.078003, 3.247928)
    """
    lo, hi, kk = _sizes(n_lo, n_hi, k)
    return _log_ratio(_comb(hi, kk, "n_hi"), _comb(lo, kk, "n_lo")) / _log_ratio(hi, lo)


@fill_doc(_DOC)
def slope_law_boundary(n_lo: int, n_hi: int, k: int) -> float:
    """The midpoint of :func:`fourier_gap_law_slope` and :func:`random_search_law_slope`: a local slope below it is
    nearer the Fourier-gap law than random search's C(n, k) law (both laws from Edelman Ch. 5; module doc).

    {{sizes}}

    Examples
    --------
    >>> round(slope_law_boundary(10, 20, 3), 6)
    2.813791
    """
    return (fourier_gap_law_slope(n_lo, n_hi, k) + random_search_law_slope(n_lo, n_hi, k)) / 2


def random_search_width_speedup(n: int, k: int, r_lo: int, r_hi: int) -> float:
    r"""The speedup of random search from r_lo to r_hi parallel copies (Edelman Sec. 5.5, Fig. 5.4 left / Fig. B.10:
    "the expected success time for r copies of random search"): the first success of r independent
    :math:`\mathrm{Geom}(p)` searchers, :math:`p=1/\binom nk`, is :math:`\mathrm{Geom}(1-(1-p)^r)`, with expected
    success time :math:`1/(1-(1-p)^r)`; the speedup is the ratio of the expectations at r_lo and r_hi (about
    r_hi / r_lo while r_hi p is small: width is a parallel speedup for random search).

    Parameters
    ----------
    n, k : int
        The parity, ``1 <= k <= n``.
    r_lo, r_hi : int
        Widths (copies), ``1 <= r_lo < r_hi``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(random_search_width_speedup(20, 3, 30, 300), 6)  # C(20,3) = 1140
    8.908176
    """
    n = check_positive_int(n, "n")
    kk = check_positive_int(k, "k")
    lo = check_positive_int(r_lo, "r_lo")
    hi = check_positive_int(r_hi, "r_hi")
    if kk > n or hi <= lo:
        raise InputError(f"need 1 <= k <= n and r_lo < r_hi, got n = {n}, k = {kk}, r = {lo}, {hi}", param="r_hi")
    count = _comb(n, kk, "n")
    if count == 1:  # one k-set: every searcher succeeds at its first step, whatever the width
        return 1.0
    rate = -math.log1p(-(1 / count))  # -log(1 - p): 0.0 where p = 1/C(n, k) is below the float range
    if rate == 0.0:  # r p is then negligible at every float width: 1 - (1-p)^r = r p, the speedup r_hi / r_lo
        return _ratio(hi, lo)

    def success(r: int) -> float:  # 1 - (1-p)^r, the inverse of the expected success time
        x = r * rate if r < 2**1000 else math.exp(min(math.log(r) + math.log(rate), 700.0))
        return -math.expm1(-x)

    return success(hi) / success(lo)


def _ratio(hi: int, lo: int) -> float:
    """hi / lo for exact ints, refused (LimitError naming r_hi) beyond the float range."""
    log10 = math.log10(hi) - math.log10(lo)
    if log10 > 300:
        raise LimitError(
            f"r_hi = {format_count(hi)} is too large: the speedup r_hi / r_lo ~ 10^{log10:.0f} is beyond the float "
            "range",
            param="r_hi",
            value=hi,
            limit=10**300,
            hint="use a smaller r_hi",
        )
    return hi / lo


def width_plateau_boundary(n: int, k: int, r_lo: int, r_hi: int) -> float:
    """The geometric midpoint of no speedup (1, a plateau in width) and random search's speedup
    (:func:`random_search_width_speedup`): an SGD speedup below it is nearer the plateau than the parallel speedup of
    random search (Edelman Fig. 5.4 left / B.10).

    Parameters
    ----------
    n, k : int
        The parity, ``1 <= k <= n``.
    r_lo, r_hi : int
        Widths, ``1 <= r_lo < r_hi``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(width_plateau_boundary(20, 3, 30, 300), 6)
    2.984657
    """
    return math.sqrt(random_search_width_speedup(n, k, r_lo, r_hi))


def noisy_parity_correlation(p: object) -> Fraction:
    r"""The label correlation :math:`\mathbb E[y\,\chi_S(x)]=1-2p` of the noisy (n, k, :math:`\varepsilon`)-parity of
    Edelman App. B.3.6 / Fig. B.12, whose labels are :math:`\chi_S(x)` flipped independently with probability p
    (:math:`\varepsilon=1-2p`, the figure's convention): every population correlation of the clean problem, and so
    its Fourier gap, is scaled by :math:`\varepsilon`.

    Parameters
    ----------
    p : Fraction, str, int or float
        The flip probability, ``0 <= p < 1/2`` (read exactly: ``"0.45"`` is 9/20).

    Returns
    -------
    Fraction
        ``1 - 2p``.

    Examples
    --------
    >>> noisy_parity_correlation("0.45"), noisy_parity_correlation(0)
    (Fraction(1, 10), Fraction(1, 1))
    """
    q = as_fraction(p, "p", floats="decimal")
    if not 0 <= q < Fraction(1, 2):
        raise InputError(f"the flip probability must lie in [0, 1/2), got p = {p!r}", param="p")
    return 1 - 2 * q


def init_dominance_rate(theta: object) -> sympy.Expr:
    r"""The probability that changing the initialisation moves :math:`\log t_c` further than changing the SGD data
    stream, in a Gaussian random-effects model of the convergence times (Edelman Sec. 5.3.2, Fig. 5.2 centre:
    "convergence times ... are quite concentrated conditioned on initialization").

    Model: :math:`x_{ij}=\log t_c` of initialisation i trained on data stream j is
    :math:`\mu+a_i+e_{ij}`, with :math:`a_i\sim N(0,\sigma_a^2)` (the initialisation) and
    :math:`e_{ij}\sim N(0,\sigma_e^2)` (the SGD noise) independent, :math:`\theta=\sigma_a^2/\sigma_e^2`. For a
    base run (i, j), a data change (i, j') and an initialisation change (i', j), :math:`X=x_{ij'}-x_{ij}` and
    :math:`Y=x_{i'j}-x_{ij}` are jointly normal with :math:`\mathrm{Var}X=2\sigma_e^2`,
    :math:`\mathrm{Var}Y=2\sigma_a^2+2\sigma_e^2`, :math:`\mathrm{Cov}(X,Y)=\sigma_e^2`. Then
    :math:`|Y|>|X|` iff :math:`U=Y-X` and :math:`V=Y+X` have the same sign, and Sheppard's orthant formula gives

    .. math:: P(|Y|>|X|)=\tfrac12+\tfrac1\pi\arcsin\rho,\qquad
              \rho=\mathrm{corr}(U,V)=\frac{\theta}{\sqrt{(\theta+1)(\theta+3)}}.

    It is 1/2 at :math:`\theta=0` (the initialisation does not matter), :math:`\tfrac12+\arcsin(\sqrt2/4)/\pi
    \approx 0.615` at :math:`\theta=1` (the two sources vary :math:`\log t_c` equally: the null of the Fig. 5.2 centre
    claim) and tends to 1 as :math:`\theta\to\infty`. A data-stream effect shared by all initialisations
    (:math:`x_{ij}=\mu+a_i+b_j+e_{ij}`) cancels from Y and adds to Var X only, so at the same ratio of initialisation to
    total SGD-noise variance it lowers the rate (with :math:`\sigma_e=0` it is exactly 1/2 at :math:`\theta=1`).

    Parameters
    ----------
    theta : Fraction, str, int or float
        :math:`\sigma_a^2/\sigma_e^2 \ge 0`, read exactly (``"0.5"`` is 1/2).

    Returns
    -------
    sympy.Expr
        The exact rate (``float()`` of it for a number).

    Examples
    --------
    >>> init_dominance_rate(1)
    asin(sqrt(2)/4)/pi + 1/2
    >>> init_dominance_rate(0), round(float(init_dominance_rate(10)), 4)
    (1/2, 0.8153)
    """
    q = as_fraction(theta, "theta", floats="decimal")
    if q < 0:
        raise InputError(f"the variance ratio theta must be >= 0, got {theta!r}", param="theta")
    t = sympy.Rational(q.numerator, q.denominator)
    rho = t / sympy.sqrt((t + 1) * (t + 3))
    return sympy.Rational(1, 2) + sympy.asin(rho) / sympy.pi
