r"""Modular addition with k inputs in float64: the dataset, networks built from ``theory.modular``,
and the single-neuron objective Psi in closed Fourier form (Shi Lemma C.14).

The dataset is all of :math:`\mathbb Z_p^k` with label :math:`y(a) = a_1+\dots+a_k \bmod p`, enumerated
in lexicographic order (point index = base-p number with digits :math:`a_1\dots a_k`). Inputs are
one-hot blocks, passed as indices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theory import modular as tm
from theory._checks import (
    MAX_EXACT_ENTRIES,
    InputError,
    LimitError,
    check_odd_modulus,
    check_positive_int,
    format_count,
)
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation, check_bool, check_real, check_real_vector, rounding_atol
from .margins import _NETWORK_DOC, HomogeneousNetwork, check_network

__all__ = [
    "MAX_LOGITS",
    "MAX_POINTS",
    "ModularTask",
    "construction_network",
    "deformed_neuron",
    "memorising_network",
    "neuron_blocks",
    "optimal_neuron_network",
    "psi_fourier",
    "random_network",
]

MAX_POINTS = 2**62
"""Largest p^k of a :class:`ModularTask` (point indices are int64)."""

MAX_LOGITS = 2**36
"""Largest p^(k+1) of a :class:`ModularTask`: its p^k points with p logits each, the work of one pass over the
dataset (evaluation, training) per neuron (about 7 x 10^10)."""

#: Parameters sections shared by several docstrings of this module and of :mod:`numerics.modular_transformer`,
#: with the network Returns of :mod:`numerics.margins` (filled in by :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    **_NETWORK_DOC,
    "task": """p : int
    Odd modulus >= 3.
k : int
    Number of inputs, >= 1.""",
}
_DOC["neuron"] = (
    _DOC["task"]
    + "\nzeta : int\n    Frequency in 1..(p-1)/2.\nphases : float array (k,), optional\n    Input phases (default 0)."
)


def _check_width(width: object, name: str = "width", *, minimum: int = 1) -> int:
    return check_positive_int(width, name, minimum=minimum, hypothesis="number of neurons")


def _check_scale(scale: object, name: str = "scale") -> float:
    return check_real(scale, name, positive=True)


def _check_weights_memory(width: int, k: int, p: int, param: str = "width", k_param: str = "k") -> None:
    """The weights (width, k+1, p): one block of p first (names p), one neuron (names k), then all (names param)."""
    for shape, name, value, what in (
        ((2, p), "p", p, f"one neuron's blocks of p = {format_count(p)} float64 weights"),
        ((k + 1, p), k_param, k, f"one neuron with (k+1) p = {format_count((k + 1) * p)} float64 weights"),
        (
            (width, k + 1, p),
            param,
            width,
            f"a network of {format_count(width)} neurons with (k+1) p = {format_count((k + 1) * p)} float64 weights "
            "each",
        ),
    ):
        check_allocation(
            array_bytes(*shape),
            param=name,
            value=value,
            what=what,
            hint="use fewer neurons" if name == param else f"use a smaller {name}",
        )


class _ModularLayout:
    r"""The :class:`numerics.margins.Task` layout of k-input modular addition (Shi Sec 4.3.1): the labels are the p
    residues of :math:`\mathbb Z_p` and the input is k blocks, each a residue one-hot in :math:`\mathbb R^p`; shared by
    :class:`ModularTask` and :class:`numerics.modular_transformer.SplitModularTask` (its own subset of the points)."""

    p: int
    k: int

    @property
    def n_classes(self) -> int:
        return self.p

    @property
    def n_blocks(self) -> int:
        return self.k

    @property
    def block_size(self) -> int:
        return self.p


@dataclass(frozen=True)
class ModularTask(_ModularLayout):
    """All p^k points of k-input modular addition (Shi Sec 4.3.1).

    Parameters
    ----------
    p : int
        Odd modulus >= 3 (even p is outside the theory; pass ``allow_even=True`` to study it).
    k : int
        Number of inputs, >= 1.
    allow_even : bool
        Accept an even modulus p >= 2.

    Examples
    --------
    >>> import numpy as np
    >>> task = ModularTask(5, 2)
    >>> task.n_points, task.n_classes
    (25, 5)
    >>> x, y = task.batch(5, 8)
    >>> x.tolist(), y.tolist()
    ([[1, 0], [1, 1], [1, 2]], [1, 2, 3])
    >>> ModularTask(4, 2)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: p must be an odd integer >= 3 (Shi Thm 4.9 assumes p > 2 prime; ...), got p = 4; ...
    """

    p: int
    k: int
    allow_even: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "allow_even", check_bool(self.allow_even, "allow_even"))
        p = check_positive_int(self.p, "p", minimum=2) if self.allow_even else check_odd_modulus(self.p)
        object.__setattr__(self, "p", p)  # plain ints: the sizes below are exact integer arithmetic
        object.__setattr__(self, "k", check_positive_int(self.k, "k"))
        if self.p.bit_length() > 19 or self.p * self.p > MAX_LOGITS:  # even k = 1 is too large: p^2 logits
            raise LimitError(
                f"p = {format_count(self.p)} is too large: the dataset has p^k points with p logits each, p^(k+1) >= "
                f"p^2 = {format_count(self.p * self.p)}, above the limit "
                f"2^36 (at most p = {math.isqrt(MAX_LOGITS)}); theory.modular gives the closed forms at any size",
                param="p",
                value=self.p,
                limit=MAX_LOGITS,
            )
        if self.k > 62 or self.k * math.log2(self.p) > 62:  # p >= 2: k > 62 alone exceeds 2^62 (and no float overflows)
            size = format_count(self.p**self.k) if self.k <= 10**4 else f"{self.p}^{format_count(self.k)}"
            raise LimitError(
                f"k = {format_count(self.k)} is too large: the dataset has p^k = {size} points at p = {self.p}, "
                f"above the limit 2^62 (point indices are int64); theory.modular gives the closed forms at any size",
                param="k",
                value=self.k,
                limit=MAX_POINTS,
            )
        if self.p ** (self.k + 1) > MAX_LOGITS:  # exact: p^k <= 2^62 here
            k_max = max(k for k in range(1, 37) if self.p ** (k + 1) <= MAX_LOGITS)
            raise LimitError(
                f"k = {self.k} is too large: the dataset has p^k = {format_count(self.p**self.k)} points with p = "
                f"{self.p} logits each, p^(k+1) = {format_count(self.p ** (self.k + 1))}, above the limit 2^36 (for "
                f"p = {self.p} at most k = {k_max}); theory.modular gives the closed forms at any size",
                param="k",
                value=self.k,
                limit=MAX_LOGITS,
            )

    @property
    def n_points(self) -> int:
        return self.p**self.k

    def batch(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Index inputs (n, k) and labels (n,) of points ``start..stop-1``."""
        start = check_positive_int(start, "start", minimum=0)
        stop = check_positive_int(stop, "stop", minimum=0)
        if stop > self.n_points:
            raise InputError(f"need stop <= p^k = {self.n_points}, got start = {start}, stop = {stop}", param="stop")
        check_allocation(
            array_bytes(max(stop - start, 0), 2 * self.k + 2),
            param="stop",
            value=stop,
            what="the index batch",
            hint="use a smaller batch",
        )
        return self.points(np.arange(start, stop, dtype=np.int64))

    def points(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index inputs (n, k) and labels (n,) of the points numbered ``idx`` (base-p digits, first input most
        significant; label = digit sum mod p)."""
        powers = self.p ** np.arange(self.k - 1, -1, -1, dtype=np.int64)
        inputs = (np.asarray(idx, dtype=np.int64)[:, None] // powers[None, :]) % self.p
        return inputs, inputs.sum(axis=1) % self.p


def neuron_blocks(
    p: int, k: int, zeta: int, phases: np.ndarray, theta_w: float, amplitude: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""Float blocks :math:`u_j(a) = A\cos(2\pi\zeta a/p + \vartheta_j)`, :math:`w(c) = A\cos(2\pi\zeta c/p + \vartheta_w)`.

    Returns ``(U, w)`` of shapes (k, p) and (p,).

    Parameters
    ----------
    p : int
        Length of the blocks (the modulus).
    k : int
        Number of input blocks (``len(phases)``).
    zeta : int
        Frequency.
    phases : float array (k,)
        Input phases :math:`\vartheta_1..\vartheta_k`.
    theta_w : float
        Output phase :math:`\vartheta_w`.
    amplitude : float
        A.

    Returns
    -------
    U : float array (k, p)
        Input blocks.
    w : float array (p,)
        Output block.

    Examples
    --------
    >>> import numpy as np
    >>> U, w = neuron_blocks(5, 2, 1, np.zeros(2), 0.0, 1.0)
    >>> U.shape, w.round(4).tolist()
    ((2, 5), [1.0, 0.309, -0.809, -0.809, 0.309])
    """
    p = check_positive_int(p, "p", minimum=1)
    k = check_positive_int(k, "k", hypothesis="number of input blocks")
    zeta_real = check_real(zeta, "zeta", what="an integer frequency")
    if not zeta_real.is_integer():
        raise InputError(f"zeta must be an integer frequency, got {zeta!r}", param="zeta")
    zeta_int = int(zeta) if abs(zeta_real) < 2**53 else int(zeta) % p  # beyond 2^53 only zeta mod p is meaningful
    phases_arr = check_real_vector(phases, "phases", k)
    theta_w = check_real(theta_w, "theta_w")
    amplitude = check_real(amplitude, "amplitude")
    check_allocation(array_bytes(2, p), param="p", value=p, what="one neuron block of p float64 entries")
    check_allocation(array_bytes(k + 1, p), param="k", value=k, what="the neuron blocks (k+1, p)")
    x = 2 * np.pi * zeta_int * np.arange(p) / p
    U = amplitude * np.cos(x[None, :] + phases_arr[:, None])
    return U, amplitude * np.cos(x + theta_w)


def _from_fourier_neurons(p: int, k: int, neurons: tuple[tm.FourierNeuron, ...], width: int) -> HomogeneousNetwork:
    _check_weights_memory(width, k, p)
    U = np.zeros((width, k, p))
    W = np.zeros((width, p))
    for i, n in enumerate(neurons):
        U[i], W[i] = neuron_blocks(
            p, k, n.zeta, np.array([float(ph) for ph in n.phases]), float(n.theta_w), float(n.amplitude)
        )
    return HomogeneousNetwork(U, W, degree=k)


@fill_doc(_DOC)
def construction_network(p: int, k: int, width: int | None = None) -> HomogeneousNetwork:
    r"""The explicit max-margin network of ``theory.modular.construction`` as float64 weights
    (zero-padded to ``width``); its logits are (p 1[c = sum a] - 1)/2.

    Parameters
    ----------
    {{task}}
    width : int, optional
        Zero-pad to this many neurons (at least :math:`2^{2k-2}(p-1)`).

    {{returns_construction}}

    Examples
    --------
    Its normalized margin is :math:`\gamma^*(p, k)` (Shi Thm 4.9):

    >>> import numpy as np
    >>> from numerics.margins import evaluate
    >>> from theory import modular as tm
    >>> net = construction_network(5, 2)
    >>> net.width == tm.min_width(5, 2)
    True
    >>> task = ModularTask(5, 2)
    >>> np.unique(net.logits(task.batch(0, 25)[0]).round(9)).tolist()  # (5 * 1[c = a + b] - 1) / 2
    [-0.5, 2.0]
    >>> abs(evaluate(net, task).normalized_margin - float(tm.max_margin(5, 2))) < 1e-12
    True
    """
    k = check_positive_int(k, "k")
    if k > 10**6:  # theory.modular.construction sizes 2^(2k-2) (p-1) (k+1) entries in floats: refuse before
        raise LimitError(
            f"k = {format_count(k)} is too large: the construction has 2^(2k-2) (p-1) neurons, above the limit "
            f"{format_count(MAX_EXACT_ENTRIES)} exact entries; theory.modular.max_margin and min_width give the "
            "closed forms",
            param="k",
            value=k,
            limit=MAX_EXACT_ENTRIES,
        )
    c = tm.construction(p, k, width)
    return _from_fourier_neurons(p, k, c.neurons, c.width)


def memorising_network(p: int, alpha: float, beta: float, table: np.ndarray | None = None) -> HomogeneousNetwork:
    r"""The memorising construction of Edelman App. D.4 (k = 2) as float64 weights, built from its definition:
    for every input pair (a, b) two neurons :math:`(\alpha e_a, \alpha e_b, \beta e_{r(a,b)})` and
    :math:`(\alpha e_a, -\alpha e_b, -\beta e_{r(a,b)})`, :math:`2p^2` neurons in all (as printed
    :math:`\alpha = 1`, :math:`\beta = 1/4`). Its logits are :math:`4\alpha^2\beta\,1[c = r(a,b)]`
    (``theory.modular.memorising_normalized_margin``), and every block is one-hot, so its Fourier spectrum is flat.

    Parameters
    ----------
    p : int
        Odd modulus >= 3.
    alpha, beta : float
        Positive scales of the input blocks and of the output block.
    table : int array (p, p), optional
        The memorised labels r(a, b) in 0..p-1; default a + b mod p.

    Returns
    -------
    HomogeneousNetwork
        :math:`2p^2` neurons, degree 2.

    Examples
    --------
    >>> from numerics.margins import evaluate
    >>> from theory import modular as tm
    >>> net = memorising_network(5, 1.0, 0.25)
    >>> r = evaluate(net, ModularTask(5, 2))
    >>> net.width, r.min_margin  # 4 alpha^2 beta
    (50, 1.0)
    >>> abs(r.normalized_margin - float(tm.memorising_margin(5))) < 1e-15
    True
    """
    p = check_odd_modulus(p, source="Edelman thesis App. D.4")
    alpha, beta = _check_scale(alpha, "alpha"), _check_scale(beta, "beta")
    _check_weights_memory(2 * p * p, 2, p, param="p", k_param="p")
    a, b = (g.ravel() for g in np.meshgrid(np.arange(p), np.arange(p), indexing="ij"))
    if table is None:
        r = (a + b) % p
    else:
        t = np.asarray(table)
        if t.shape != (p, p) or not np.issubdtype(t.dtype, np.integer) or t.min() < 0 or t.max() >= p:
            raise InputError(f"table must be a ({p}, {p}) integer array with entries in 0..{p - 1}", param="table")
        r = t[a, b]
    m = 2 * p * p
    U = np.zeros((m, 2, p))
    W = np.zeros((m, p))
    pair = np.arange(p * p)
    for sign, rows in ((1.0, 2 * pair), (-1.0, 2 * pair + 1)):
        U[rows, 0, a] = alpha
        U[rows, 1, b] = sign * alpha
        W[rows, r] = sign * beta
    return HomogeneousNetwork(U, W, degree=2)


@fill_doc(_DOC)
def optimal_neuron_network(p: int, k: int, zeta: int = 1, phases: np.ndarray | None = None) -> HomogeneousNetwork:
    r"""One unit-norm optimal neuron (``theory.modular.optimal_neuron``) as a width-1 network.

    Parameters
    ----------
    {{neuron}}

    {{returns_neuron}}

    Examples
    --------
    Its Psi is the single-neuron maximum :math:`\gamma^*(p, k)` (Shi Lemma C.15):

    >>> from theory import modular as tm
    >>> net = optimal_neuron_network(5, 2)
    >>> net.width, round(net.norm_power(), 12)
    (1, 1.0)
    >>> abs(float(psi_fourier(net)[0]) - float(tm.max_margin(5, 2))) < 1e-12
    True
    """
    n = tm.optimal_neuron(p, k, zeta, None if phases is None else [float(v) for v in phases])
    return _from_fourier_neurons(p, k, (n,), 1)


def random_network(
    p: int, k: int, width: int, rng: np.random.Generator, scale: float | None = None
) -> HomogeneousNetwork:
    r"""Gaussian network with i.i.d. N(0, scale^2) entries (default scale 1/sqrt(p)); ``width = 0`` gives an
    empty network (no random atoms). Even p is allowed (the Fourier identity of Lemma C.14 holds for any p).

    Parameters
    ----------
    p : int
        Modulus >= 2.
    k : int
        Number of inputs, >= 1.
    width : int
        Number of neurons, >= 0.
    rng : numpy.random.Generator
        Source of the entries.
    scale : float, optional
        Positive standard deviation (default :math:`1/\sqrt p`).

    Returns
    -------
    HomogeneousNetwork
        ``U`` (width, k, p), ``W`` (width, p), degree k.

    Examples
    --------
    >>> import numpy as np
    >>> net = random_network(5, 2, 3, np.random.default_rng(0))
    >>> net.U.shape, net.W.shape, net.degree
    ((3, 2, 5), (3, 5), 2)
    >>> random_network(5, 2, 3, rng=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: rng must be a numpy Generator (np.random.default_rng(seed)), got 0
    """
    p = check_positive_int(p, "p", minimum=2)
    k = check_positive_int(k, "k")
    width = _check_width(width, minimum=0)
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r:.80}", param="rng")
    s = 1.0 / math.sqrt(p) if scale is None else _check_scale(scale)
    _check_weights_memory(width, k, p)
    return HomogeneousNetwork(rng.normal(0, s, (width, k, p)), rng.normal(0, s, (width, p)), degree=k)


@fill_doc(_DOC)
def deformed_neuron(
    p: int,
    k: int,
    zeta: int = 1,
    phases: np.ndarray | None = None,
    *,
    mismatch: float = 0.0,
    block_fractions: np.ndarray | None = None,
    second_zeta: int | None = None,
    split: float = 1.0,
    dc_fraction: float = 0.0,
) -> HomogeneousNetwork:
    r"""A unit-norm neuron deformed away from the optimum in the ways of ``docs/modular.md``
    (section "Deformed neurons", Shi Lemma C.15).

    Parameters
    ----------
    {{neuron}}
    mismatch : float
        Delta: the output phase is :math:`\sum_j\vartheta_j - \Delta`.
    block_fractions : array (k+1,), optional
        Squared norms of the k+1 blocks (sum 1); default 1/(k+1) each.
    second_zeta, split : int, float
        Put a fraction ``split`` of every block's squared norm on ``zeta`` and ``1 - split`` on
        ``second_zeta`` (same phases), each part optimal in shape.
    dc_fraction : float
        Move this fraction of every block's squared norm into a constant component.

    Returns
    -------
    HomogeneousNetwork
        Width-1 network; compare its Psi with ``theory.modular.psi_*``.

    Examples
    --------
    >>> from theory import modular as tm
    >>> psi = psi_fourier(deformed_neuron(7, 2, 1, mismatch=0.5))[0]
    >>> abs(float(psi) - float(tm.psi_phase_mismatch(7, 2, 0.5))) < 1e-12  # gamma* cos(Delta)
    True
    >>> psi = psi_fourier(deformed_neuron(7, 2, 1, second_zeta=3, split=0.25))[0]
    >>> abs(float(psi) - float(tm.psi_two_frequencies(7, 2, 0.25))) < 1e-12
    True
    >>> deformed_neuron(7, 2, 4)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: zeta must be a frequency in 1..3 for p = 7, got 4
    """
    p, k = check_odd_modulus(p), check_positive_int(k, "k")
    _check_weights_memory(1, k, p)
    mismatch = check_real(mismatch, "mismatch")
    split = check_real(split, "split")
    dc_fraction = check_real(dc_fraction, "dc_fraction")
    for name, z in (("zeta", zeta), ("second_zeta", second_zeta)):
        if z is not None and (
            isinstance(z, bool) or not isinstance(z, (int, np.integer)) or not 1 <= z <= (p - 1) // 2
        ):
            raise InputError(f"{name} must be a frequency in 1..{(p - 1) // 2} for p = {p}, got {z!r:.80}", param=name)
    if second_zeta is None and split != 1.0:
        raise ValueError("split only applies with a second_zeta")
    if not (0.0 <= split <= 1.0 and 0.0 <= dc_fraction <= 1.0):
        raise ValueError(f"split and dc_fraction must lie in [0, 1], got {split} and {dc_fraction}")
    phases = np.zeros(k) if phases is None else check_real_vector(phases, "phases", k)
    why = f"block_fractions must be k+1 = {k + 1} non-negative numbers summing to 1"
    r = np.full(k + 1, 1.0 / (k + 1))
    if block_fractions is not None:
        r = check_real_vector(block_fractions, "block_fractions", k + 1, what=why)
    if np.any(r < 0) or abs(r.sum() - 1) > rounding_atol(block_fractions, 1e-12, terms=k + 1):  # float32: its rounding
        raise InputError(why, param="block_fractions")
    unit_amp = math.sqrt(2.0 / p)  # a zero-mean cosine with this amplitude has norm 1

    def shaped(z: int) -> np.ndarray:
        U, w = neuron_blocks(p, k, z, phases, float(phases.sum() - mismatch), unit_amp)
        return np.vstack([U, w[None]])

    blocks = shaped(zeta)
    if second_zeta is not None:
        if second_zeta == zeta:
            raise ValueError("second_zeta must differ from zeta")
        blocks = math.sqrt(split) * blocks + math.sqrt(1 - split) * shaped(second_zeta)
    blocks = math.sqrt(1 - dc_fraction) * blocks + math.sqrt(dc_fraction / p)
    blocks = blocks * np.sqrt(r)[:, None]
    return HomogeneousNetwork(blocks[None, :k], blocks[None, k], degree=k)


def psi_fourier(net: HomogeneousNetwork) -> np.ndarray:
    r"""Per-neuron Psi (uniform q and tau) through the DFT, Shi Lemma C.14:

    .. math:: \Psi_i = \frac{k!}{(p-1)p^k}\,\mathrm{Re}\sum_{j\ne0}\hat w_i(-j)\prod_{l=1}^k\hat u_{i,l}(j).

    Cost O(m k p log p) instead of the O(m p^{k+1}) brute force. Returns shape (m,).

    Parameters
    ----------
    net : HomogeneousNetwork
        A k-input network with blocks on Z_p (``U`` (m, k, p), ``W`` (m, p)).

    Returns
    -------
    float array (m,)
        :math:`\Psi_i` of every neuron.

    Examples
    --------
    The identity checked against the exact brute force of Shi Def C.13:

    >>> import numpy as np
    >>> from theory import modular as tm
    >>> net = random_network(5, 2, 3, np.random.default_rng(0))
    >>> exact = tm.psi_time_domain(net.U[0].tolist(), net.W[0].tolist())
    >>> abs(float(psi_fourier(net)[0]) - float(exact)) < 1e-12
    True
    """
    _m, k, p = check_network(net).U.shape
    if net.W.shape[1] != p or p < 2:
        raise InputError(
            f"net must have input and output blocks on the same Z_p, p >= 2; got U {net.U.shape}, W {net.W.shape}",
            param="net",
        )
    Uh = np.fft.fft(net.U, axis=-1)
    Wh = np.fft.fft(net.W, axis=-1)
    j = np.arange(1, p)
    terms = Wh[:, (-j) % p] * np.prod(Uh[:, :, j], axis=1)
    try:
        scale = math.factorial(k) / ((p - 1) * float(p) ** k)
    except OverflowError:  # p^k or k! beyond the float range: the same factor in log space
        scale = math.exp(math.lgamma(k + 1) - math.log(p - 1) - k * math.log(p))
    return scale * terms.sum(axis=1).real
