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

from .margins import HomogeneousNetwork

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


def one_sided_power(v: np.ndarray) -> np.ndarray:
    """One-sided DFT power over the last axis, shape (..., floor(p/2) + 1)."""
    v = np.asarray(v, dtype=np.float64)
    p = v.shape[-1]
    P = np.abs(np.fft.rfft(v, axis=-1)) ** 2
    stop = P.shape[-1] if p % 2 else P.shape[-1] - 1  # Nyquist bin of even p is self-conjugate
    P[..., 1:stop] *= 2
    return P


def purity(v: np.ndarray) -> np.ndarray:
    """Maximum normalized one-sided power; 1 for a single-frequency (or constant) vector, NaN for 0."""
    P = one_sided_power(v)
    total = P.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, P.max(axis=-1) / np.where(total > 0, total, 1), np.nan)


def dominant_frequency(v: np.ndarray) -> np.ndarray:
    """Frequency (0..floor(p/2)) carrying the most one-sided power, over the last axis."""
    return np.argmax(one_sided_power(v), axis=-1)


def wrap_angle(x: np.ndarray | float) -> np.ndarray:
    r"""Wrap angles to :math:`(-\pi, \pi]`."""
    x = np.asarray(x, dtype=np.float64)
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
    """Fourier diagnostics of every neuron of a network whose blocks live on Z_p (U: (m,k,p), W: (m,p))."""
    if net.U.shape[2] != net.W.shape[1]:
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
    """Number of significant neurons whose dominant frequency is zeta, for zeta = 0..floor(p/2)."""
    return np.bincount(diag.frequency[diag.significant(rel_mass)], minlength=p // 2 + 1)


def diagonal_fourier(F: np.ndarray, inputs_sum: np.ndarray, p: int) -> np.ndarray:
    r"""The (k+1)-D DFT of the network function on the "diagonal" :math:`\hat F(j,\dots,j,-j)`.

    .. math:: \hat F(j,\dots,j,-j) = \sum_{a,c} F(a,c)\,e^{-2\pi i j(\sum_i a_i - c)/p}
              = \sum_{d}\Big(\sum_{\sum a - c \equiv d} F(a,c)\Big)e^{-2\pi i jd/p},

    computed from a batch of logits F (n, p) with ``inputs_sum`` = :math:`\sum_i a_i` per point, so it
    can be accumulated chunk by chunk. Shi Lemma C.20: for a unit-norm max-margin network it equals
    :math:`\gamma^* p^k` for every j != 0. Returns the complex array over j = 0..p-1.
    """
    d = (inputs_sum[:, None] - np.arange(p)[None, :]) % p
    diag_sums = np.bincount(d.ravel(), weights=F.ravel(), minlength=p)
    return np.fft.fft(diag_sums)
