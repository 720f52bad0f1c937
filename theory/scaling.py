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

from ._checks import InputError, check_positive_int
from .boolean import tc_growth_window

__all__ = ["fourier_gap_law_slope", "random_search_law_slope", "slope_law_boundary"]


def _sizes(n_lo: object, n_hi: object, k: object) -> tuple[int, int, int]:
    lo = check_positive_int(n_lo, "n_lo", minimum=2)
    hi = check_positive_int(n_hi, "n_hi", minimum=2)
    kk = check_positive_int(k, "k")
    if hi <= lo:
        raise InputError(f"need 2 <= n_lo < n_hi, got n_lo = {lo}, n_hi = {hi}", param="n_hi")
    if kk > lo:
        raise InputError(f"need k <= n_lo (a k-set of the smaller size), got k = {kk}, n_lo = {lo}", param="k")
    return lo, hi, kk


def fourier_gap_law_slope(n_lo: int, n_hi: int, k: int) -> float:
    r"""The local slope of :math:`\log t_c` against :math:`\log n` between n_lo and n_hi under the Fourier-gap law
    :math:`t_c\propto n^{k-1}\ln n` (Edelman Sec. 5.4.1 and Prop. B.7; :func:`theory.boolean.tc_growth_window`):
    :math:`(k-1)+\log(\ln n_{hi}/\ln n_{lo})/\log(n_{hi}/n_{lo})`.

    Parameters
    ----------
    n_lo, n_hi : int
        ``2 <= n_lo < n_hi``.
    k : int
        The parity degree, ``1 <= k <= n_lo``.

    Returns
    -------
    float

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
    return math.log(tc_growth_window(lo, hi, kk)[1]) / math.log(hi / lo)


def random_search_law_slope(n_lo: int, n_hi: int, k: int) -> float:
    r"""The local slope of :math:`\log t_c` against :math:`\log n` between n_lo and n_hi under random search's law
    :math:`t_c\propto\binom nk` (Edelman Sec. 5.3.2, success time :math:`\mathrm{Geom}(1/\binom nk)`):
    :math:`\log(\binom{n_{hi}}k/\binom{n_{lo}}k)/\log(n_{hi}/n_{lo})`.

    Parameters
    ----------
    n_lo, n_hi : int
        ``2 <= n_lo < n_hi``.
    k : int
        The parity degree, ``1 <= k <= n_lo``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(random_search_law_slope(10, 20, 2), 6), round(random_search_law_slope(10, 20, 3), 6)
    (2.078003, 3.247928)
    """
    lo, hi, kk = _sizes(n_lo, n_hi, k)
    return math.log(math.comb(hi, kk) / math.comb(lo, kk)) / math.log(hi / lo)


def slope_law_boundary(n_lo: int, n_hi: int, k: int) -> float:
    """The midpoint of :func:`fourier_gap_law_slope` and :func:`random_search_law_slope`: a local slope below it is
    nearer the Fourier-gap law than random search's C(n, k) law (both laws from Edelman Ch. 5; module doc).

    Examples
    --------
    >>> round(slope_law_boundary(10, 20, 3), 6)
    2.813791
    """
    return (fourier_gap_law_slope(n_lo, n_hi, k) + random_search_law_slope(n_lo, n_hi, k)) / 2
