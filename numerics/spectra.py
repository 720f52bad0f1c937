r"""Fourier diagnostics on :math:`\mathbb Z_p` for neurons of a polynomial network.

Conventions (``docs/modular.md``): :math:`\hat f(j) = \sum_x f(x)e^{-2\pi i jx/p}` (``numpy.fft.fft``).
For real vectors the **one-sided power** is :math:`P(0)=|\hat f(0)|^2` and
:math:`P(\zeta) = |\hat f(\zeta)|^2 + |\hat f(-\zeta)|^2` for :math:`\zeta = 1..\lfloor p/2\rfloor`
(the self-conjugate frequency p/2 of an even p counted once). The **purity** of a vector is
:math:`\max_\zeta P(\zeta)/\sum_\zeta P(\zeta)`, the quantity the sources call "maximum normalized power"
(Shi Fig 4.2; Edelman Fig 7.4); with a two-sided spectrum a pure cosine would score 1/2.

A neuron :math:`(u_1..u_k, w)` of the k-input network is predicted (Shi Thm 4.9) to have one frequency
:math:`\zeta` in every block, equal block norms, and phases with
:math:`\sum_j \arg\hat u_j(\zeta) - \arg\hat w(\zeta) \equiv 0 \pmod{2\pi}`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theory._checks import InputError, check_positive_int
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation, check_real, check_real_array
from .margins import HomogeneousNetwork, check_network

__all__ = [
    "NeuronDiagnostics",
    "diagonal_fourier",
    "dominant_frequency",
    "frequency_coverage",
    "neuron_diagnostics",
    "one_sided_power",
    "purity",
    "wrap_angle",
]

#: The Parameters section of the spectra of real vectors, shared by their docstrings (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "vectors": """v : float array (..., p)
    Real vectors on Z_p (last axis).""",
}


def _as_finite(value: object, name: str, *, min_ndim: int = 1) -> np.ndarray:
    """``value`` as a finite float64 array with at least ``min_ndim`` axes, the last one non-empty."""
    a = check_real_array(value, name)
    if a.ndim < min_ndim or (min_ndim and a.shape[-1] == 0):
        raise InputError(
            f"{name} must be an array with at least {min_ndim} axes and a non-empty last axis, got {value!r:.80}",
            param=name,
        )
    return a


@fill_doc(_DOC)
def one_sided_power(v: np.ndarray) -> np.ndarray:
    r"""One-sided DFT power over the last axis, shape (..., floor(p/2) + 1).

    Parameters
    ----------
    {{vectors}}

    Returns
    -------
    float array (..., floor(p/2) + 1)
        :math:`P(0), \dots, P(\lfloor p/2\rfloor)`; they sum to :math:`p\sum_x v(x)^2` (Plancherel).

    Examples
    --------
    >>> import numpy as np
    >>> v = np.cos(2 * np.pi * 2 * np.arange(7) / 7 + 0.3)
    >>> np.round(one_sided_power(v), 6).tolist()
    [0.0, 0.0, 24.5, 0.0]
    >>> bool(np.isclose(one_sided_power(v).sum(), 7 * (v**2).sum()))
    True
    """
    v = _as_finite(v, "v")
    p = v.shape[-1]
    P = np.abs(np.fft.rfft(v, axis=-1)) ** 2
    stop = P.shape[-1] if p % 2 else P.shape[-1] - 1  # Nyquist bin of even p is self-conjugate
    P[..., 1:stop] *= 2
    return P


@fill_doc(_DOC)
def purity(v: np.ndarray) -> np.ndarray:
    r"""Maximum normalized one-sided power; 1 for a single-frequency (or constant) vector, NaN for 0.

    Parameters
    ----------
    {{vectors}}

    Returns
    -------
    float array (...)
        :math:`\max_\zeta P(\zeta)/\sum_\zeta P(\zeta)` in [1/(floor(p/2)+1), 1], NaN for a zero vector.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(purity(np.cos(2 * np.pi * 2 * np.arange(7) / 7 + 0.3))), 12)
    1.0
    >>> float(purity(np.array([1.0, 0, 0, 0, 0])))  # a one-hot vector has a flat spectrum: 1/(2 + 1/2)
    0.4
    >>> float(purity(np.zeros(5)))
    nan
    """
    P = one_sided_power(v)
    total = P.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, P.max(axis=-1) / np.where(total > 0, total, 1), np.nan)


@fill_doc(_DOC)
def dominant_frequency(v: np.ndarray) -> np.ndarray:
    """Frequency (0..floor(p/2)) carrying the most one-sided power, over the last axis.

    Parameters
    ----------
    {{vectors}}

    Returns
    -------
    int array (...)
        The argmax of :func:`one_sided_power` (the lowest frequency on ties).

    Examples
    --------
    >>> import numpy as np
    >>> x = 2 * np.pi * np.arange(7) / 7
    >>> dominant_frequency(np.stack([np.cos(2 * x + 0.3), np.sin(3 * x), np.ones(7)])).tolist()
    [2, 3, 0]
    """
    return np.argmax(one_sided_power(v), axis=-1)


def wrap_angle(x: np.ndarray | float) -> np.ndarray:
    r"""Wrap angles to :math:`(-\pi, \pi]`.

    Parameters
    ----------
    x : float or float array
        Angles in radians.

    Returns
    -------
    float array
        :math:`x + 2\pi n` in :math:`(-\pi, \pi]` (a 0-d array for a scalar).

    Examples
    --------
    >>> import numpy as np
    >>> np.round(wrap_angle([np.pi, -np.pi, 3 * np.pi / 2, 7.0]), 6).tolist()
    [3.141593, 3.141593, -1.570796, 0.716815]
    """
    x = _as_finite(x, "x", min_ndim=0)
    return np.pi - np.mod(np.pi - x, 2 * np.pi)


@dataclass(frozen=True)
class NeuronDiagnostics:
    r"""Per-neuron Fourier structure of a k-input network (arrays of length m).

    Attributes
    ----------
    frequency : int array
        Dominant frequency of the neuron (argmax of the power summed over its k+1 blocks).
    block_frequency : int array (m, k+1)
        Dominant frequency of each block.
    block_purity : float array (m, k+1)
        Purity of each block u_1..u_k, w.
    phase_residual : float array
        :math:`\mathrm{wrap}(\sum_j\arg\hat u_j(\zeta)-\arg\hat w(\zeta))` at the neuron's frequency
        (NaN when that frequency is 0).
    balance : float array
        :math:`\max_b |(k+1)\|b\|^2/\|\theta_i\|^2 - 1|` over blocks b; 0 for a balanced neuron.
    mass : float array
        Share of the network norm :math:`\|\theta_i\|^{\nu}/\sum_l\|\theta_l\|^{\nu}`.
    dc_share : float array
        Share of the neuron's squared norm in the constant components of its blocks.

    Examples
    --------
    A neuron at frequency 3 with output phase mismatch 0.25, unequal blocks and 20% of its norm in the
    constant components (``numerics.modular.deformed_neuron``):

    >>> import numpy as np
    >>> from numerics.modular import deformed_neuron
    >>> d = neuron_diagnostics(deformed_neuron(7, 2, 3, mismatch=0.25, block_fractions=np.array([0.5, 0.25, 0.25]),
    ...                                        dc_fraction=0.2))
    >>> d.frequency.tolist(), round(float(d.phase_residual[0]), 9)
    ([3], 0.25)
    >>> round(float(d.balance[0]), 9), round(float(d.dc_share[0]), 9), np.round(d.min_purity, 9).tolist()
    (0.5, 0.2, [0.8])
    >>> d.single_frequency().tolist(), d.single_frequency(threshold=0.79).tolist(), d.significant().tolist()
    ([False], [True], [True])
    """

    frequency: np.ndarray
    block_frequency: np.ndarray
    block_purity: np.ndarray
    phase_residual: np.ndarray
    balance: np.ndarray
    mass: np.ndarray
    dc_share: np.ndarray

    @property
    def min_purity(self) -> np.ndarray:
        """Smallest block purity of each neuron."""
        return np.nanmin(self.block_purity, axis=1)

    def single_frequency(self, threshold: float = 0.99) -> np.ndarray:
        """Mask of single-frequency neurons: every block has purity >= threshold, all blocks share
        the same dominant frequency, and that frequency is not 0 (Shi Thm 4.9, item 2)."""
        same = (self.block_frequency == self.frequency[:, None]).all(axis=1)
        return (np.nan_to_num(self.block_purity, nan=0.0) >= threshold).all(axis=1) & same & (self.frequency > 0)

    def significant(self, rel_mass: float = 1e-3) -> np.ndarray:
        """Mask of neurons carrying non-negligible norm: mass > rel_mass / m (``docs/modular.md``)."""
        return self.mass > rel_mass / len(self.mass)


def neuron_diagnostics(net: HomogeneousNetwork) -> NeuronDiagnostics:
    """Fourier diagnostics of every neuron of a network whose blocks live on Z_p (U: (m,k,p), W: (m,p)).

    Parameters
    ----------
    net : HomogeneousNetwork
        A k-input network with input and output blocks on the same Z_p.

    Returns
    -------
    NeuronDiagnostics
        Per-neuron frequency, purities, phase residual, balance, mass and constant share.

    Examples
    --------
    Every neuron of the explicit max-margin construction has one frequency, purity 1 and phase residual 0
    (Shi Thm 4.9):

    >>> import numpy as np
    >>> from numerics.modular import construction_network
    >>> d = neuron_diagnostics(construction_network(5, 2))
    >>> d.frequency.tolist()
    [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2]
    >>> bool(d.min_purity.min() > 1 - 1e-12), bool(np.abs(d.phase_residual).max() < 1e-10)
    (True, True)
    >>> neuron_diagnostics(HomogeneousNetwork(np.ones((2, 2, 5)), np.ones((2, 3)), 2))
    Traceback (most recent call last):
    ...
    ValueError: Fourier diagnostics need input and output blocks on the same Z_p (d == C)
    """
    if check_network(net).U.shape[2] != net.W.shape[1]:
        raise ValueError("Fourier diagnostics need input and output blocks on the same Z_p (d == C)")
    blocks = np.concatenate([net.U, net.W[:, None, :]], axis=1)  # (m, k+1, p)
    k1 = blocks.shape[1]
    power = one_sided_power(blocks)  # (m, k+1, F)
    freq = np.argmax(power.sum(axis=1), axis=1)
    total = power.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        block_purity = np.where(total > 0, power.max(axis=2) / np.where(total > 0, total, 1), np.nan)
    spec = np.fft.fft(blocks, axis=-1)
    at = np.take_along_axis(spec, freq[:, None, None].repeat(k1, axis=1), axis=2)[..., 0]
    angles = np.angle(at)
    residual = wrap_angle(angles[:, :-1].sum(axis=1) - angles[:, -1])
    residual = np.where(freq > 0, residual, np.nan)
    sq = (blocks**2).sum(axis=2)
    norm2 = sq.sum(axis=1)
    safe = np.where(norm2 > 0, norm2, 1)
    balance = np.abs(k1 * sq / safe[:, None] - 1).max(axis=1)
    mass = net.neuron_norms() ** net.homogeneity
    mass = mass / mass.sum() if mass.sum() > 0 else mass
    dc = (blocks.sum(axis=2) ** 2 / blocks.shape[2]).sum(axis=1) / safe
    return NeuronDiagnostics(freq, np.argmax(power, axis=2), block_purity, residual, balance, mass, dc)


def frequency_coverage(diag: NeuronDiagnostics, p: int, rel_mass: float = 1e-3) -> np.ndarray:
    """Number of significant neurons whose dominant frequency is zeta, for zeta = 0..floor(p/2).

    Parameters
    ----------
    diag : NeuronDiagnostics
        Diagnostics of a network on Z_p (:func:`neuron_diagnostics`).
    p : int
        The modulus.
    rel_mass : float
        Significance threshold of :meth:`NeuronDiagnostics.significant`.

    Returns
    -------
    int array (floor(p/2) + 1,)
        Counts of significant neurons per dominant frequency.

    Examples
    --------
    The construction spreads its :math:`2^{2k-2}(p-1)` neurons evenly over the frequencies 1..(p-1)/2:

    >>> from numerics.modular import construction_network
    >>> from theory import modular as tm
    >>> frequency_coverage(neuron_diagnostics(construction_network(5, 2)), 5).tolist(), tm.min_width(5, 2)
    ([0, 8, 8], 16)
    """
    if not isinstance(diag, NeuronDiagnostics):
        raise InputError(f"diag must be a NeuronDiagnostics (neuron_diagnostics), got {diag!r:.80}", param="diag")
    p = check_positive_int(p, "p")
    check_allocation(
        array_bytes(p // 2 + 1), param="p", value=p, what="the counts of the p // 2 + 1 frequencies (int64)"
    )
    rel_mass = check_real(rel_mass, "rel_mass", nonnegative=True)  # an int beyond a float is refused
    return np.bincount(diag.frequency[diag.significant(rel_mass)], minlength=p // 2 + 1)


def diagonal_fourier(F: np.ndarray, inputs_sum: np.ndarray, p: int) -> np.ndarray:
    r"""The (k+1)-D DFT of the network function on the "diagonal" :math:`\hat F(j,\dots,j,-j)`.

    .. math:: \hat F(j,\dots,j,-j) = \sum_{a,c} F(a,c)\,e^{-2\pi i j(\sum_i a_i - c)/p}
              = \sum_{d}\Big(\sum_{\sum a - c \equiv d} F(a,c)\Big)e^{-2\pi i jd/p},

    computed from a batch of logits F (n, p) with ``inputs_sum`` = :math:`\sum_i a_i` per point, so it
    can be accumulated chunk by chunk. Shi Lemma C.20: for a unit-norm max-margin network it equals
    :math:`\gamma^* p^k` for every j != 0. Returns the complex array over j = 0..p-1.

    Parameters
    ----------
    F : float array (n, p)
        Logits of a batch of points.
    inputs_sum : int array (n,)
        :math:`\sum_i a_i` of each point.
    p : int
        The modulus.

    Returns
    -------
    complex array (p,)
        The batch's contribution to :math:`\hat F(j,\dots,j,-j)`, j = 0..p-1 (sum it over the batches).

    Examples
    --------
    Lemma C.20 on the unit-norm construction at p = 5, k = 2:

    >>> import numpy as np
    >>> from numerics.modular import ModularTask, construction_network
    >>> from theory import modular as tm
    >>> net = construction_network(5, 2)
    >>> unit = net.scaled(net.norm_power() ** (-1 / net.homogeneity))
    >>> inputs, _ = ModularTask(5, 2).batch(0, 25)
    >>> D = diagonal_fourier(unit.logits(inputs), inputs.sum(axis=1), 5)
    >>> bool(np.allclose(D[1:], float(tm.max_margin(5, 2)) * 5**2, rtol=1e-12, atol=0))
    True
    """
    F = _as_finite(F, "F", min_ndim=2)
    p = check_positive_int(p, "p")
    if F.ndim != 2 or F.shape[1] != p:
        raise InputError(f"F must be a batch of logits of shape (n, p = {p}), got shape {F.shape}", param="F")
    sums = np.asarray(inputs_sum)
    if sums.shape != (F.shape[0],) or not np.issubdtype(sums.dtype, np.integer):
        raise InputError(
            f"inputs_sum must be {F.shape[0]} integers (one per row of F), got {inputs_sum!r:.80}", param="inputs_sum"
        )
    d = (sums[:, None] - np.arange(p)[None, :]) % p
    diag_sums = np.bincount(d.ravel(), weights=F.ravel(), minlength=p)
    return np.fft.fft(diag_sums)
