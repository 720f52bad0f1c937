r"""Exact predictions for the transformer and 50/50-split experiments of Shi thesis Sec. 4.5 (Figs 4.1-4.4,
App. C.10); the setting, the choices and the thresholds are explained in ``docs/modular_transformer.md``.

**The matrix analysed (Fig. 4.3).** For a head with key and query maps :math:`W^K, W^Q` and the token embedding
:math:`E` (one row per token), the thesis's attention matrix :math:`E^\top W^K W^{Q\top} E` restricted to the p
number tokens is the p x p matrix

.. math:: M[a, b] = e_a W^K (e_b W^Q)^\top, \qquad a, b \in \mathbb Z_p,

the (unscaled) attention score of key token a for query token b. We analyse its doubly centred part
:math:`M_c = (I - J/p) M (I - J/p)` (J the all-ones matrix): the part of M that depends on the query token b alone
cancels in the softmax over keys, and the part that depends on the key token a alone is a per-key bias; neither is a
2-D wave.

**2-D frequency bins.** With :math:`\hat M(j_1, j_2) = \sum_{a,b} M[a,b] e^{-2\pi i (j_1 a + j_2 b)/p}` (the
convention of ``docs/modular.md`` in each axis), bin :math:`(\zeta_1, \zeta_2)`,
:math:`\zeta_i \in \{0, \dots, (p-1)/2\}`, collects the points :math:`(\pm\zeta_1, \pm\zeta_2)`: 1, 2 or 4 points
(:func:`bin_size`). A product of cosines :math:`\cos(2\pi\zeta_1 a/p + \phi_1)\cos(2\pi\zeta_2 b/p + \phi_2)` lives in
exactly one bin (:func:`product_cosine_bin_power`), the 2-D analogue of the one-sided power of a neuron block.

**Prediction (Lemma 4.10 / 4.11 carried to a head).** Lemma 4.10: every block of a max-margin neuron is a
single-frequency cosine; Lemma 4.11: the circuit is a sum of such cosine computations, one frequency at a time. If a
head's key and query features are, in the same way, cosines at frequencies in a set K, its doubly centred score
matrix is a sum of products of such cosines, and all its power lies in the :math:`|K|^2` bins
:math:`K \times K` (:func:`head_power_support`; :func:`ideal_top_fraction` = 1). A pair need not be *tied*
(:math:`\zeta_1 = \zeta_2`, the same frequency in both axes, as inside one neuron): the bilinear score mixes any two
features, and the thesis's own description, "two cosine waveforms in each dimension, each characterized by
distinct frequencies", allows distinct ones. The thesis gives no number; the threshold the claims use is
:func:`concentration_threshold`, chosen as the midpoint between the Fourier ideal and the expectation for an
isotropic random matrix (:func:`isotropic_bin_share`).

**Grokking against k (Fig. 4.4).** The thesis's argument: the width the max-margin solution needs,
:math:`2^{2k-2}(p-1)` (Theorem 4.9), measures the complexity of the task; at a fixed model size a more complex task
leaves the lazy (NTK) regime sooner, so the delay between fitting the training half and generalizing shrinks.
:func:`predicted_delay_order` orders the settings by that width: the delay is predicted to decrease along it.

**Sizes** (checked before any work, ``docs/limits.md``): the lists of bins and of frequencies and the bins of a head's
support at most 200000 entries, :func:`ideal_top_fraction` at most 4 n_freq^2 <= 40000 exact DFT products (n_freq <=
100), :func:`dataset_size` and :func:`train_size` p^k of at most 4000 digits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import sympy
from sympy import I, Rational, exp

from . import _checks
from . import modular as tm
from ._checks import (
    MAX_EXACT_ENTRIES,
    InputError,
    as_list,
    check_cost,
    check_odd_modulus,
    check_positive_int,
    format_count,
)
from ._docstrings import fill_doc, sections
from .modular import _DOC as _MODULAR_DOC

__all__ = [
    "bin_size",
    "concentration_threshold",
    "cosine_dft",
    "covered_frequencies",
    "dataset_size",
    "frequency_bins",
    "head_power_support",
    "ideal_top_fraction",
    "isotropic_bin_share",
    "predicted_delay_order",
    "product_cosine_bin_power",
    "required_width",
    "single_frequency_purity",
    "train_size",
]


#: Shared docstring sections (:func:`theory._docstrings.fill_doc`), with :mod:`theory.modular`'s ``"p"``.
_DOC = {
    "p": _MODULAR_DOC["p"],
    "p_z_phi": sections(
        "p : int\n    Odd modulus ``p >= 3``.",
        "z : int\n    Frequency in ``0..(p-1)/2``.",
        "phi : number or sympy expression, optional\n    Phase, 0 by default.",
    ),
    "p_k": sections("p, k : int\n    Odd modulus ``p >= 3`` and number of inputs ``k >= 1``."),
}


MAX_IDEAL_POINTS = 40_000
"""Largest number 4 n_freq^2 of DFT products of :func:`ideal_top_fraction` (1.8 s at n_freq = 100)."""


@fill_doc(_DOC)
def frequency_bins(p: int) -> list[tuple[int, int]]:
    r"""The one-sided 2-D bins :math:`(\zeta_1, \zeta_2)`, :math:`0 \le \zeta_i \le (p-1)/2`, row by row.

    {{p}}

    Returns
    -------
    list of tuple of int
        The :math:`((p+1)/2)^2` bins.

    Examples
    --------
    >>> frequency_bins(5)
    [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]
    >>> sum(bin_size(5, z1, z2) for z1, z2 in frequency_bins(5))
    25
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p x Z_p)")
    h = (p - 1) // 2
    check_cost(
        (h + 1) ** 2,
        MAX_EXACT_ENTRIES,
        param="p",
        value=p,
        what="the number ((p+1)/2)^2 of bins",
        hint="bin_size(p, z1, z2) sizes one bin without listing them all",
    )
    return [(z1, z2) for z1 in range(h + 1) for z2 in range(h + 1)]


def _check_frequency(p: int, z: object, name: str) -> int:
    z = check_positive_int(z, name, minimum=0)
    if z > (p - 1) // 2:
        raise InputError(
            f"{name} must lie in 0..(p-1)/2 = 0..{format_count((p - 1) // 2)} for p = {format_count(p)}, got "
            f"{format_count(z)}",
            param=name,
        )
    return z


def bin_size(p: int, z1: int, z2: int) -> int:
    r"""Number of points :math:`(\pm\zeta_1, \pm\zeta_2)` of :math:`\mathbb Z_p^2` in bin (z1, z2): 1, 2 or 4.

    Parameters
    ----------
    p : int
        Odd modulus ``p >= 3``.
    z1, z2 : int
        The bin, each in ``0..(p-1)/2``.

    Returns
    -------
    int

    Examples
    --------
    >>> bin_size(5, 0, 0), bin_size(5, 0, 2), bin_size(5, 1, 2)
    (1, 2, 4)
    >>> bin_size(5, 3, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: z1 must lie in 0..(p-1)/2 = 0..2 for p = 5, got 3
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p x Z_p)")
    z1, z2 = _check_frequency(p, z1, "z1"), _check_frequency(p, z2, "z2")
    return (1 if z1 == 0 else 2) * (1 if z2 == 0 else 2)


@fill_doc(_DOC)
def cosine_dft(p: int, z: int, phi: object = 0) -> dict[int, sympy.Expr]:
    r"""Exact DFT of :math:`f(a) = \cos(2\pi z a/p + \phi)` on :math:`\mathbb Z_p`: its non-zero coefficients.

    :math:`\hat f(j) = \sum_a f(a) e^{-2\pi i j a/p} = \tfrac p2 (e^{i\phi}[j \equiv z] + e^{-i\phi}[j \equiv -z])`
    (orthogonality of the characters); for z = 0 it is :math:`p\cos\phi` at j = 0. Keys are j in 0..p-1.

    {{p_z_phi}}

    Returns
    -------
    dict of int to sympy.Expr
        ``{j: f_hat(j)}`` for the non-zero coefficients.

    Examples
    --------
    >>> from sympy import pi
    >>> cosine_dft(5, 1)
    {1: 5/2, 4: 5/2}
    >>> cosine_dft(5, 2, pi / 2)
    {2: 5*I/2, 3: -5*I/2}
    >>> cosine_dft(5, 0, pi / 3)
    {0: 5/2}
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p)")
    z = _check_frequency(p, z, "z")
    phi = _checks.as_number(phi, "phi")
    if z == 0:
        return {0: p * sympy.cos(phi)}
    return {z: Rational(p, 2) * exp(I * phi), (p - z) % p: Rational(p, 2) * exp(-I * phi)}


def product_cosine_bin_power(
    p: int, z1: int, z2: int, phi1: object = 0, phi2: object = 0
) -> dict[tuple[int, int], sympy.Expr]:
    r"""Exact 2-D power per bin of :math:`M[a,b] = \cos(2\pi z_1 a/p + \phi_1)\cos(2\pi z_2 b/p + \phi_2)`.

    The 2-D DFT of a product factorizes, :math:`\hat M(j_1, j_2) = \hat f_1(j_1)\hat f_2(j_2)` (:func:`cosine_dft`),
    so all the power sits in the single bin (z1, z2); for z1, z2 != 0 each of its four points carries
    :math:`p^4/16` and the bin :math:`p^4/4 = p^2\sum_{a,b} M[a,b]^2` (Parseval). Returns {bin: power} for the
    bins with non-zero power.

    Parameters
    ----------
    p : int
        Odd modulus ``p >= 3``.
    z1, z2 : int
        Frequencies of the two factors, each in ``0..(p-1)/2``.
    phi1, phi2 : number or sympy expression, optional
        Phases, 0 by default.

    Returns
    -------
    dict of (int, int) to sympy.Expr
        ``{(z1, z2): power}``.

    Examples
    --------
    >>> product_cosine_bin_power(5, 1, 2)
    {(1, 2): 625/4}
    >>> from sympy import pi
    >>> product_cosine_bin_power(5, 1, 2, pi / 3, 1)
    {(1, 2): 625/4}
    >>> product_cosine_bin_power(5, 0, 2)
    {(0, 2): 625/2}
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p)")
    z1, z2 = _check_frequency(p, z1, "z1"), _check_frequency(p, z2, "z2")  # named here: cosine_dft says "z"
    phi1, phi2 = _checks.as_number(phi1, "phi1"), _checks.as_number(phi2, "phi2")
    f1, f2 = cosine_dft(p, z1, phi1), cosine_dft(p, z2, phi2)
    out: dict[tuple[int, int], sympy.Expr] = {}
    for j1, c1 in f1.items():
        for j2, c2 in f2.items():
            key = (min(j1, p - j1), min(j2, p - j2))
            out[key] = sympy.simplify(out.get(key, 0) + sympy.expand(c1 * c2 * sympy.conjugate(c1 * c2)))
    return {k: v for k, v in out.items() if v != 0}


def head_power_support(p: int, key_freqs: Sequence[int], query_freqs: Sequence[int]) -> frozenset[tuple[int, int]]:
    r"""Bins that can carry doubly centred power when the key features use frequencies ``key_freqs`` and the query
    features ``query_freqs`` (every feature a cosine :math:`\cos(2\pi\zeta a/p + \phi)`, :math:`\zeta \ge 1`).

    :math:`M = \sum_{\zeta \in K, \zeta' \in Q} f_\zeta(a) g_{\zeta'}(b)` up to constants, and by linearity of the
    DFT and :func:`product_cosine_bin_power` its power lies in :math:`K \times Q`; the doubly centred part drops the
    bins with a zero coordinate.

    Parameters
    ----------
    p : int
        Odd modulus ``p >= 3``.
    key_freqs, query_freqs : sequence of int
        Frequencies in ``0..(p-1)/2`` of the key and the query features.

    Returns
    -------
    frozenset of (int, int)
        The bins :math:`(\zeta, \zeta')`, :math:`\zeta \in K`, :math:`\zeta' \in Q`, both non-zero.

    Examples
    --------
    >>> sorted(head_power_support(7, [1, 2], [3, 0]))
    [(1, 3), (2, 3)]
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p x Z_p)")
    ks = {_check_frequency(p, z, "key_freqs") for z in as_list(key_freqs, "key_freqs", items="frequencies")}
    qs = {_check_frequency(p, z, "query_freqs") for z in as_list(query_freqs, "query_freqs", items="frequencies")}
    check_cost(
        len(ks) * len(qs),
        MAX_EXACT_ENTRIES,
        param="key_freqs" if len(ks) >= len(qs) else "query_freqs",
        value=len(ks) if len(ks) >= len(qs) else len(qs),
        what="the number |K| |Q| of bins of the support",
        hint="use fewer distinct frequencies",
    )
    return frozenset((a, b) for a in ks for b in qs if a > 0 and b > 0)


def ideal_top_fraction(p: int, n_freq: int) -> sympy.Expr:
    r"""Share of the doubly centred power in the top :math:`n^2` bins of the ideal Fourier head, n = ``n_freq``.

    The ideal head is the sum over all pairs :math:`\zeta, \zeta' \in \{1..n\}` of
    :math:`\cos(2\pi\zeta a/p)\cos(2\pi\zeta' b/p)` (Lemma 4.10 blocks in both axes, Lemma 4.11's several
    frequencies); its exact DFT (:func:`cosine_dft`) is summed point by point and binned. The value is 1: all the
    power lies in :math:`\{1..n\}^2` (:func:`head_power_support`).

    Parameters
    ----------
    p : int
        Odd modulus ``p >= 3``.
    n_freq : int
        Number n of frequencies, in ``1..(p-1)/2``.

    Returns
    -------
    sympy.Expr
        The share, 1.

    Examples
    --------
    >>> ideal_top_fraction(7, 2)
    1
    >>> ideal_top_fraction(7, 4)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n_freq must lie in 1..(p-1)/2 = 1..3 for p = 7, got 4
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p x Z_p)")
    n = check_positive_int(n_freq, "n_freq")
    if n > (p - 1) // 2:
        raise InputError(
            f"n_freq must lie in 1..(p-1)/2 = 1..{format_count((p - 1) // 2)} for p = {format_count(p)}, got "
            f"{format_count(n)}",
            param="n_freq",
        )
    check_cost(
        4 * n * n,
        MAX_IDEAL_POINTS,
        param="n_freq",
        value=n,
        what="the number 4 n_freq^2 of exact DFT products of the ideal head",
        hint="the share is 1 for every n_freq (head_power_support gives the bins)",
    )
    coef: dict[tuple[int, int], sympy.Expr] = {}
    for z1 in range(1, n + 1):
        for z2 in range(1, n + 1):
            for j1, c1 in cosine_dft(p, z1).items():
                for j2, c2 in cosine_dft(p, z2).items():
                    coef[(j1, j2)] = coef.get((j1, j2), 0) + c1 * c2
    power: dict[tuple[int, int], sympy.Expr] = {}
    for (j1, j2), c in coef.items():
        key = (min(j1, p - j1), min(j2, p - j2))
        value = sympy.expand(c * sympy.conjugate(c))  # rational for phase 0; nsimplify (PSLQ) only otherwise
        power[key] = power.get(key, 0) + (value if value.is_Rational else sympy.nsimplify(value))
    total = sum(power.values())
    top = sorted(power.values(), key=lambda v: float(v), reverse=True)[: n * n]
    return sympy.nsimplify(sum(top) / total)


def isotropic_bin_share(p: int, n_bins: int) -> Fraction:
    r"""Expected share of the doubly centred power in ``n_bins`` fixed bins with both coordinates non-zero, for a
    matrix with i.i.d. Gaussian entries: :math:`4 n / (p-1)^2`.

    The 2-D DFT is a multiple of a unitary map, so every coefficient of an i.i.d. Gaussian matrix has the same
    expected power; double centring keeps the :math:`(p-1)^2` coefficients with :math:`j_1, j_2 \ne 0`, four per bin.

    Parameters
    ----------
    p : int
        Odd modulus ``p >= 3``.
    n_bins : int
        Number of bins, below the :math:`((p-1)/2)^2` doubly centred bins.

    Returns
    -------
    fractions.Fraction
        :math:`4n/(p-1)^2`.

    Examples
    --------
    >>> isotropic_bin_share(7, 4)
    Fraction(4, 9)
    >>> isotropic_bin_share(7, 9)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n_bins must be below the 9 doubly centred bins of p = 7 ...
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p x Z_p)")
    n_bins = check_positive_int(n_bins, "n_bins")
    total_bins = ((p - 1) // 2) ** 2
    if n_bins >= total_bins:
        raise InputError(
            f"n_bins must be below the {format_count(total_bins)} doubly centred bins of p = {format_count(p)} (else every matrix is 'concentrated'),"
            f" got {n_bins}",
            param="n_bins",
        )
    return Fraction(4 * n_bins, (p - 1) ** 2)


def concentration_threshold(p: int, n_bins: int) -> Fraction:
    r"""The concentration threshold of the Fig. 4.3 claims (a chosen rule, ``docs/modular_transformer.md``):
    the midpoint between the ideal Fourier head (share 1 in its top bins, :func:`ideal_top_fraction`) and an
    isotropic random matrix (:func:`isotropic_bin_share`): :math:`(1 + 4n/(p-1)^2)/2`.

    A head passes when its top ``n_bins`` bins hold at least this share: it is closer to the Fourier ideal than to
    isotropic noise.

    Parameters
    ----------
    p : int
        Odd modulus ``p >= 3``.
    n_bins : int
        Number of top bins, below the :math:`((p-1)/2)^2` doubly centred bins.

    Returns
    -------
    fractions.Fraction
        :math:`(1 + 4n/(p-1)^2)/2`.

    Examples
    --------
    >>> concentration_threshold(7, 4)
    Fraction(13, 18)
    >>> concentration_threshold(5, 1) == (ideal_top_fraction(5, 1) + isotropic_bin_share(5, 1)) / 2
    True
    """
    return (1 + isotropic_bin_share(p, n_bins)) / 2


@fill_doc(_DOC)
def dataset_size(p: int, k: int) -> int:
    """Number of points :math:`p^k` of the k-sum mod p dataset (Shi Eq. 4.1).

    {{p_k}}

    Returns
    -------
    int
        :math:`p^k`.

    Examples
    --------
    >>> dataset_size(5, 3)
    125
    """
    p = check_odd_modulus(p, source="Shi Sec. 4.3.1")
    k = check_positive_int(k, "k")
    check_cost(
        k * math.log10(p) if k < 10**300 else math.inf,
        _checks.MAX_DIGITS,
        param="k" if k > 1 else "p",
        value=k if k > 1 else p,
        what=f"the exact p^k at p = {format_count(p)}",
        hint="the dataset of the experiments has p^k <= 2^62 points (numerics.modular.ModularTask)",
        log10=True,
    )
    return p**k


@fill_doc(_DOC)
def train_size(p: int, k: int) -> int:
    r"""Points in the training half of the thesis's "even split": :math:`\lfloor p^k / 2 \rfloor`.

    {{p_k}}

    Returns
    -------
    int
        :math:`\lfloor p^k / 2 \rfloor`.

    Examples
    --------
    >>> train_size(5, 3)
    62
    """
    return dataset_size(p, k) // 2


@fill_doc(_DOC)
def required_width(p: int, k: int) -> int:
    """Width at which Theorem 4.9 guarantees the max-margin Fourier circuit: :math:`2^{2k-2}(p-1)`.

    {{p_k}}

    Returns
    -------
    int
        :func:`theory.modular.min_width` as an int.

    Examples
    --------
    >>> required_width(97, 2), required_width(5, 5)
    (384, 1024)
    """
    return int(tm.min_width(p, k))


def predicted_delay_order(cases: Sequence[tuple[int, int]]) -> list[int]:
    r"""Indices of the (p, k) ``cases`` in the order in which the grokking delay is predicted to *decrease*
    (Fig. 4.4 and the thesis's argument in Sec. 4.5): increasing :func:`required_width`, ties broken by k.

    For the thesis's four runs (k, p) = (2, 97), (3, 31), (4, 11), (5, 5) the widths are 384, 480, 640, 1024, so the
    delay is predicted to decrease with k.

    Parameters
    ----------
    cases : sequence of (p, k)
        At least two settings.

    Returns
    -------
    list of int
        Indices into ``cases``, largest predicted delay first.

    Examples
    --------
    >>> predicted_delay_order([(5, 5), (11, 4), (31, 3), (97, 2)])
    [3, 2, 1, 0]
    >>> predicted_delay_order([(5, 2)])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: cases needs at least two (p, k) settings to order, got 1
    """
    if len(cases) < 2:
        raise InputError(f"cases needs at least two (p, k) settings to order, got {len(cases)}", param="cases")
    widths = [(required_width(p, k), k, i) for i, (p, k) in enumerate(cases)]
    return [i for _, _, i in sorted(widths)]


@fill_doc(_DOC)
def covered_frequencies(p: int) -> list[int]:
    r"""The frequencies :math:`1..(p-1)/2` every max-margin network uses (Theorem 4.9, Lemma C.20; Fig. 4.2a).

    {{p}}

    Returns
    -------
    list of int

    Examples
    --------
    >>> covered_frequencies(7)
    [1, 2, 3]
    """
    freqs = tm.frequencies(p)
    check_cost(
        freqs.stop - freqs.start,  # len() of a range above 2^63 overflows
        MAX_EXACT_ENTRIES,
        param="p",
        value=p,
        what="the number (p-1)/2 of frequencies",
        hint="theory.modular.frequencies(p) gives them as a range",
    )
    return list(freqs)


@fill_doc(_DOC)
def single_frequency_purity(p: int, z: int, phi: object = 0) -> sympy.Expr:
    r"""Maximum normalized one-sided power (the "purity" of Fig. 4.2, ``docs/modular.md``) of a Lemma 4.10 block
    :math:`u(a) = \cos(2\pi z a/p + \phi)`, from its exact DFT (:func:`cosine_dft`): 1 (all power at frequency z).

    {{p_z_phi}}

    Returns
    -------
    sympy.Expr
        The purity, 1.

    Examples
    --------
    >>> from sympy import pi
    >>> single_frequency_purity(7, 2, pi / 5)
    1
    >>> single_frequency_purity(7, 0, pi / 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: cos(phi) = 0 makes the constant block (z = 0) vanish; its purity is undefined
    """
    power: dict[int, sympy.Expr] = {}
    for j, c in cosine_dft(p, z, phi).items():
        key = min(j, p - j)
        power[key] = power.get(key, 0) + sympy.expand(c * sympy.conjugate(c))
    total = sympy.simplify(sum(power.values()))
    if total == 0:
        raise InputError("cos(phi) = 0 makes the constant block (z = 0) vanish; its purity is undefined", param="phi")
    return sympy.simplify(max(power.values(), key=lambda v: float(v)) / total)
