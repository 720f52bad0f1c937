r"""Float64 diagnostics for the transformer and 50/50-split experiments of Shi thesis Sec. 4.5
(``docs/modular_transformer.md``): the thesis's even train/test split, the token sequences, the attention
matrix :math:`W^{KQ}` mapped through the embedding, its 2-D power spectrum over :math:`\mathbb Z_p \times \mathbb Z_p`,
and the grokking delay.

Conventions follow ``theory.modular_transformer``: the analysed matrix is
:math:`M[a, b] = e_a W^K (e_b W^Q)^\top` over the p number tokens (key token a, query token b), doubly centred
(:func:`double_center`); bin :math:`(\zeta_1, \zeta_2)` collects the DFT points :math:`(\pm\zeta_1, \pm\zeta_2)`
(:func:`binned_power`), and the concentration of a head is the share of its doubly centred power in its top r bins
(:func:`top_fraction`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theory._checks import InputError, check_odd_modulus, check_positive_int, format_count
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation, check_real, check_real_array, check_seed, check_work
from .margins import HomogeneousNetwork, check_network
from .modular import _DOC as _MODULAR_DOC
from .modular import ModularTask, _ModularLayout
from .spectra import purity

__all__ = [
    "GrokkingDelay",
    "HeadSpectra",
    "SplitModularTask",
    "attention_score_matrix",
    "binned_power",
    "dominant_bin",
    "double_center",
    "embedding_purity",
    "even_split",
    "first_reach",
    "grokking_delay",
    "head_spectra",
    "isotropic_top_fraction",
    "power_2d",
    "sum_sequences",
    "tied_share",
    "top_fraction",
]

#: Parameters sections shared by several docstrings of this module, with the (p, k) of :mod:`numerics.modular`
#: (filled in by :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "task": _MODULAR_DOC["task"],
    "parameters_matrices": """Parameters
----------
M : float array (..., p, p)
    Matrices over the last two axes.""",
    "scores": """M : float array (..., p, p)
    Score matrices, p odd.""",
}


# ------------------------------------------------------------------------------------------------ checks


def _as_array(value: object, name: str, *, min_ndim: int, square: bool = False) -> np.ndarray:
    """``value`` as a finite float64 array with at least ``min_ndim`` axes (the last two equal when ``square``)."""
    a = check_real_array(value, name)
    if a.ndim < min_ndim or 0 in a.shape[-min_ndim:]:
        raise InputError(f"{name} must have at least {min_ndim} non-empty axes, got shape {a.shape}", param=name)
    if square and a.shape[-1] != a.shape[-2]:
        raise InputError(f"{name} must be square over its last two axes, got shape {a.shape[-2:]}", param=name)
    return a


# ------------------------------------------------------------------------------------------------ data


def even_split(n_points: int, seed: int, train_fraction: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """A random train/test split of ``range(n_points)``: the first ``floor(train_fraction * n)`` points of a
    permutation drawn from ``numpy.random.default_rng(seed)`` train, the rest test (both returned sorted).

    ``train_fraction = 0.5`` is the thesis's "even split" (Figs. 4.1-4.4).

    Parameters
    ----------
    n_points : int
        Number of points, >= 2.
    seed : int
        Seed of the permutation.
    train_fraction : float
        Share of the points that train, in (0, 1).

    Returns
    -------
    train, test : int arrays
        Sorted disjoint indices covering ``range(n_points)``.

    Examples
    --------
    >>> from theory import modular_transformer as tmt
    >>> train, test = even_split(25, seed=1)
    >>> len(train) == tmt.train_size(5, 2), sorted(train.tolist() + test.tolist()) == list(range(25))
    (True, True)
    >>> even_split(10, 0, train_fraction=1.0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: train_fraction must lie strictly between 0 and 1, got 1.0
    """
    n = check_positive_int(n_points, "n_points", minimum=2)
    seed = check_seed(seed)
    check_work(n, param="n_points", value=n, what="the permutation of n_points", hint="use fewer points")
    check_allocation(
        array_bytes(4 * n, itemsize=8),
        param="n_points",
        value=n,
        what="the permutation and the two halves (int64)",
        hint="use fewer points",
    )
    train_fraction = check_real(train_fraction, "train_fraction")
    if not 0 < train_fraction < 1:
        raise InputError(
            f"train_fraction must lie strictly between 0 and 1, got {train_fraction!r}", param="train_fraction"
        )
    n_train = int(np.floor(train_fraction * n))
    if not 1 <= n_train < n:
        raise InputError(
            f"train_fraction = {train_fraction} leaves an empty half of {n} points", param="train_fraction"
        )
    perm = np.random.default_rng(seed).permutation(n)
    return np.sort(perm[:n_train]), np.sort(perm[n_train:])


@fill_doc(_DOC)
@dataclass(frozen=True)
class SplitModularTask(_ModularLayout):
    """The points ``indices`` of :class:`numerics.modular.ModularTask` (p, k), as a task of its own (the training
    or the test half of a split). Implements the :class:`numerics.margins.Task` protocol.

    Parameters
    ----------
    {{task}}
    indices : sequence of int
        Distinct point indices in ``0..p^k-1`` (point order of :class:`numerics.modular.ModularTask`).

    Examples
    --------
    >>> task = SplitModularTask(5, 2, (1, 2, 7))
    >>> task.n_points, task.n_classes
    (3, 5)
    >>> x, y = task.batch(0, 3)
    >>> x.tolist(), y.tolist()
    ([[0, 1], [0, 2], [1, 2]], [1, 2, 3])
    >>> SplitModularTask(5, 2, (1, 1))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: indices must be distinct and lie in 0..24
    """

    p: int
    k: int
    indices: tuple[int, ...]

    def __post_init__(self) -> None:
        base = ModularTask(self.p, self.k)
        try:
            idx = np.asarray(self.indices, dtype=np.int64)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"indices must be point indices in 0..{base.n_points - 1}", param="indices") from None
        if idx.ndim != 1 or idx.size == 0:
            raise InputError("indices must be a non-empty sequence of point indices", param="indices")
        if idx.min() < 0 or idx.max() >= base.n_points or np.unique(idx).size != idx.size:
            raise InputError(f"indices must be distinct and lie in 0..{base.n_points - 1}", param="indices")
        object.__setattr__(self, "indices", tuple(int(i) for i in idx))

    @property
    def n_points(self) -> int:
        return len(self.indices)

    def batch(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Index inputs (n, k) and labels (n,) of the points ``indices[start:stop]``."""
        return ModularTask(self.p, self.k).points(np.asarray(self.indices[start:stop], dtype=np.int64))


@fill_doc(_DOC)
def sum_sequences(p: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every point of the k-sum mod p dataset as a token sequence ``a_1, ..., a_k, =`` (tokens 0..p-1 are the
    numbers, token p is "="), shape (p^k, k+1), and its label (a_1 + ... + a_k) mod p, in the point order of
    :class:`numerics.modular.ModularTask`.

    Parameters
    ----------
    {{task}}

    Returns
    -------
    sequences : int array (p^k, k+1)
        The token sequences.
    labels : int array (p^k,)
        Their sums mod p.

    Examples
    --------
    >>> seqs, labels = sum_sequences(3, 2)
    >>> seqs.shape, seqs[:4].tolist(), labels[:4].tolist()
    ((9, 3), [[0, 0, 3], [0, 1, 3], [0, 2, 3], [1, 0, 3]], [0, 1, 2, 1])
    """
    task = ModularTask(p, k)
    check_allocation(
        array_bytes(task.n_points, 2 * task.k + 3),
        param="k",
        value=task.k,
        what=f"the p^k = {format_count(task.n_points)} sequences of k + 1 tokens and their labels (int64)",
        hint="use a smaller p or k",
    )
    inputs, labels = task.batch(0, task.n_points)
    return np.concatenate([inputs, np.full((inputs.shape[0], 1), p, dtype=np.int64)], axis=1), labels


# ------------------------------------------------------------------------------------------------ W^KQ


def attention_score_matrix(embed: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, p: int) -> np.ndarray:
    r"""The thesis's attention matrix :math:`E^\top W^K W^{Q\top} E` on the number tokens, one per head.

    Parameters
    ----------
    embed : array (..., V, d)
        Token embeddings (rows 0..p-1 are the numbers).
    w_q, w_k : arrays (..., H, d, d_h)
        Query and key maps of the heads (score of query i and key j: :math:`(z_i W_Q)(z_j W_K)^\top`).
    p : int
        Number of number tokens (the rows of ``embed`` used).

    Returns
    -------
    array (..., H, p, p)
        :math:`M[h, a, b] = (e_a W_K^h)(e_b W_Q^h)^\top` (row: key token a, column: query token b).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> E, w_q, w_k = rng.normal(size=(8, 4)), rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 3))
    >>> M = attention_score_matrix(E, w_q, w_k, 7)
    >>> M.shape, bool(np.allclose(M[1], (E[:7] @ w_k[1]) @ (E[:7] @ w_q[1]).T))
    ((2, 7, 7), True)
    """
    E = _as_array(embed, "embed", min_ndim=2)
    wq, wk = _as_array(w_q, "w_q", min_ndim=3), _as_array(w_k, "w_k", min_ndim=3)
    p = check_positive_int(p, "p")
    if p > E.shape[-2]:
        raise InputError(f"p = {p} is above the {E.shape[-2]} rows of embed", param="p")
    E = E[..., :p, :]
    keys = np.einsum("...ad,...hde->...hae", E, wk)
    queries = np.einsum("...bd,...hde->...hbe", E, wq)
    return np.einsum("...hae,...hbe->...hab", keys, queries)


@fill_doc(_DOC)
def double_center(M: np.ndarray) -> np.ndarray:
    """:math:`(I - J/p) M (I - J/p)` over the last two axes: removes every row-constant and column-constant part.

    {{parameters_matrices}}

    Returns
    -------
    float64 array (..., p, p)
        The doubly centred matrices (every row and column sums to 0).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(5)
    >>> M = np.outer(np.cos(2 * np.pi * a / 5), np.sin(4 * np.pi * a / 5))  # already centred
    >>> bool(np.allclose(double_center(M + 1 + a[:, None] + a[None, :] ** 2), M))
    True
    """
    M = _as_array(M, "M", min_ndim=2)
    return M - M.mean(axis=-1, keepdims=True) - M.mean(axis=-2, keepdims=True) + M.mean(axis=(-2, -1), keepdims=True)


@fill_doc(_DOC)
def power_2d(M: np.ndarray) -> np.ndarray:
    r""":math:`|\hat M(j_1, j_2)|^2` over the last two axes (``numpy.fft.fft2``), j in 0..p-1.

    {{parameters_matrices}}

    Returns
    -------
    float64 array (..., p, p)
        The 2-D power at every point :math:`(j_1, j_2)`.

    Examples
    --------
    >>> import numpy as np
    >>> power_2d(np.ones((3, 3))).round(9).tolist()
    [[81.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    return np.abs(np.fft.fft2(_as_array(M, "M", min_ndim=2))) ** 2


def binned_power(M: np.ndarray) -> np.ndarray:
    r"""2-D power of M collected into bins :math:`(\zeta_1, \zeta_2)` = points :math:`(\pm\zeta_1, \pm\zeta_2)`,
    shape (..., h+1, h+1) with h = (p-1)/2. Sums to :math:`p^2 \|M\|_F^2` (Parseval).

    Parameters
    ----------
    M : float array (..., p, p)
        Square matrices over the last two axes, p odd.

    Returns
    -------
    float64 array (..., h+1, h+1)
        Power per bin :math:`(\zeta_1, \zeta_2)`, :math:`\zeta` in 0..h.

    Examples
    --------
    A product of cosines at frequencies (2, 3) puts all its power :math:`p^4/4` in bin (2, 3)
    (``theory.modular_transformer.product_cosine_bin_power``):

    >>> import numpy as np
    >>> from theory import modular_transformer as tmt
    >>> a = np.arange(7)
    >>> M = np.outer(np.cos(2 * np.pi * 2 * a / 7 + 0.4), np.cos(2 * np.pi * 3 * a / 7 + 1.0))
    >>> B = binned_power(M)
    >>> B.shape, round(float(B[2, 3]), 9), float(tmt.product_cosine_bin_power(7, 2, 3, 0.4, 1.0)[(2, 3)])
    ((4, 4), 600.25, 600.25)
    >>> bool(np.isclose(B.sum(), 7**2 * (M**2).sum()))
    True
    """
    P = power_2d(_as_array(M, "M", min_ndim=2, square=True))
    p = P.shape[-1]
    check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p x Z_p)")
    h = (p - 1) // 2
    fold = np.zeros((h + 1, p))
    fold[np.minimum(np.arange(p), p - np.arange(p)), np.arange(p)] = 1.0  # (bin, point)
    return fold @ P @ fold.T


def _centred_bins(M: np.ndarray) -> np.ndarray:
    """Binned power of the doubly centred M without the bins of a zero coordinate, shape (..., h, h)."""
    return binned_power(double_center(M))[..., 1:, 1:]


def _share(part: np.ndarray, total: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, part / np.where(total > 0, total, 1), np.nan)


def _top_fraction(P: np.ndarray, n_bins: int) -> np.ndarray:
    flat = P.reshape(*P.shape[:-2], -1)
    if n_bins > flat.shape[-1]:
        raise InputError(
            f"n_bins must be at most the {flat.shape[-1]} doubly centred bins, got {n_bins}", param="n_bins"
        )
    return _share(-np.sort(-flat, axis=-1)[..., :n_bins].sum(axis=-1), flat.sum(axis=-1))


def _tied_share(P: np.ndarray) -> np.ndarray:
    return _share(np.trace(P, axis1=-2, axis2=-1), P.sum(axis=(-2, -1)))


def _dominant_bin(P: np.ndarray) -> np.ndarray:
    h = P.shape[-1]
    arg = P.reshape(*P.shape[:-2], -1).argmax(axis=-1)
    return np.stack([arg // h + 1, arg % h + 1], axis=-1)


@fill_doc(_DOC)
def top_fraction(M: np.ndarray, n_bins: int) -> np.ndarray:
    """Share of the doubly centred power of M in its ``n_bins`` largest bins (NaN for a matrix with no such power).

    Parameters
    ----------
    {{scores}}
    n_bins : int
        Number of bins, 1..((p-1)/2)^2.

    Returns
    -------
    float64 array (...)
        The share in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(7)
    >>> M = np.outer(np.cos(2 * np.pi * 2 * a / 7 + 0.4), np.cos(2 * np.pi * 3 * a / 7 + 1.0))
    >>> round(float(top_fraction(M, 1)), 9), float(top_fraction(np.ones((7, 7)), 1))
    (1.0, nan)
    """
    return _top_fraction(_centred_bins(M), check_positive_int(n_bins, "n_bins"))


@fill_doc(_DOC)
def tied_share(M: np.ndarray) -> np.ndarray:
    r"""Share of the doubly centred power in the tied bins :math:`\zeta_1 = \zeta_2` (one frequency in both axes,
    as inside one max-margin neuron).

    Parameters
    ----------
    {{scores}}

    Returns
    -------
    float64 array (...)
        The share in [0, 1] (NaN without doubly centred power).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(7)
    >>> f, g = np.cos(2 * np.pi * 2 * a / 7), np.cos(2 * np.pi * 3 * a / 7)
    >>> round(float(tied_share(np.outer(f, f))), 9), round(float(tied_share(np.outer(f, g))), 9)
    (1.0, 0.0)
    """
    return _tied_share(_centred_bins(M))


@fill_doc(_DOC)
def dominant_bin(M: np.ndarray) -> np.ndarray:
    r"""The bin :math:`(\zeta_1, \zeta_2)`, both >= 1, with the most doubly centred power, shape (..., 2).

    Parameters
    ----------
    {{scores}}

    Returns
    -------
    int array (..., 2)
        The heaviest bin of each matrix.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(7)
    >>> dominant_bin(np.outer(np.cos(2 * np.pi * 2 * a / 7 + 0.4), np.cos(2 * np.pi * 3 * a / 7 + 1.0))).tolist()
    [2, 3]
    """
    return _dominant_bin(_centred_bins(M))


@dataclass(frozen=True)
class HeadSpectra:
    """Per-head Fourier diagnostics of a stack of score matrices (arrays over the leading axes).

    Attributes
    ----------
    top_fraction : array
        Share of the doubly centred power in the top ``n_bins`` bins (:func:`top_fraction`).
    tied_share : array
        Share in the tied bins (:func:`tied_share`).
    dominant_bin : int array (..., 2)
        The heaviest bin.
    centred_share : array
        Share of :math:`\\|M\\|_F^2` in the doubly centred part.
    n_bins : int

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(7)
    >>> M = np.outer(np.cos(2 * np.pi * 2 * a / 7 + 0.4), np.cos(2 * np.pi * 3 * a / 7 + 1.0))
    >>> hs = head_spectra(np.stack([M, M + 5.0]), n_bins=1)
    >>> hs.top_fraction.round(9).tolist(), hs.dominant_bin.tolist()
    ([1.0, 1.0], [[2, 3], [2, 3]])
    >>> bool(hs.centred_share[0] > 1 - 1e-12), bool(hs.centred_share[1] < 0.1)  # the constant is not centred
    (True, True)
    """

    top_fraction: np.ndarray
    tied_share: np.ndarray
    dominant_bin: np.ndarray
    centred_share: np.ndarray
    n_bins: int


@fill_doc(_DOC)
def head_spectra(M: np.ndarray, n_bins: int) -> HeadSpectra:
    """All the per-head diagnostics of score matrices ``M`` (..., p, p), from one 2-D FFT per head.

    Parameters
    ----------
    {{scores}}
    n_bins : int
        Number of top bins for :func:`top_fraction`.

    Returns
    -------
    HeadSpectra
        Arrays over the leading axes of ``M``.

    Examples
    --------
    >>> import numpy as np
    >>> M = np.random.default_rng(0).normal(size=(3, 7, 7))
    >>> hs = head_spectra(M, n_bins=2)
    >>> bool(np.allclose(hs.top_fraction, top_fraction(M, 2))), bool(np.allclose(hs.tied_share, tied_share(M)))
    (True, True)
    """
    n_bins = check_positive_int(n_bins, "n_bins")
    M = _as_array(M, "M", min_ndim=2, square=True)
    C = double_center(M)
    P = binned_power(C)[..., 1:, 1:]
    centred = _share((C**2).sum(axis=(-2, -1)), (M**2).sum(axis=(-2, -1)))
    return HeadSpectra(_top_fraction(P, n_bins), _tied_share(P), _dominant_bin(P), centred, n_bins)


def isotropic_top_fraction(p: int, n_bins: int, n_samples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Monte Carlo mean and standard error of :func:`top_fraction` for p x p matrices with i.i.d. N(0, 1) entries
    (the *largest* bins, so above ``theory.modular_transformer.isotropic_bin_share``, which is for fixed bins).

    Parameters
    ----------
    p : int
        Odd modulus >= 3.
    n_bins : int
        Number of top bins.
    n_samples : int
        Number of Gaussian matrices, >= 2.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    mean, stderr : float
        Monte Carlo mean of the top fraction and its standard error.

    Examples
    --------
    >>> from theory import modular_transformer as tmt
    >>> mean, se = isotropic_top_fraction(7, 1, n_samples=2000, seed=0)
    >>> round(mean, 2), se < 0.005, mean > float(tmt.isotropic_bin_share(7, 1))  # 1/9 for a fixed bin
    (0.25, True, True)
    """
    seed = check_seed(seed)
    p = check_odd_modulus(p, source="Shi Sec. 4.5 (Z_p x Z_p)")
    n_samples = check_positive_int(n_samples, "n_samples", minimum=2)
    check_allocation(
        6 * array_bytes(p, p),
        param="p",
        value=p,
        what="one p x p Gaussian matrix and its spectrum",
        hint="use a smaller p",
    )
    check_work(
        n_samples * p * p,
        param="n_samples",
        value=n_samples,
        what=f"the Monte Carlo (n_samples x p^2 = {format_count(p * p)} Gaussian entries)",
        hint="use fewer samples",
    )
    check_allocation(
        6 * array_bytes(n_samples, p, p),
        param="n_samples",
        value=n_samples,
        what="the Gaussian matrices (n_samples, p, p) and their spectra",
        hint="use fewer samples",
    )
    vals = top_fraction(np.random.default_rng(seed).standard_normal((n_samples, p, p)), n_bins)
    return float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(n_samples))


def embedding_purity(net: HomogeneousNetwork) -> np.ndarray:
    """Per neuron of a k-input network, the smallest one-sided purity (maximum normalized power, Fig. 4.2) of its k
    input blocks u_1..u_k, the "embeddings" of Figs. 4.1-4.2; shape (m,), NaN for a neuron with a zero block.

    Parameters
    ----------
    net : HomogeneousNetwork
        A k-input network with blocks on Z_p.

    Returns
    -------
    float64 array (m,)
        The smallest input-block purity of each neuron.

    Examples
    --------
    >>> from numerics.modular import construction_network
    >>> embedding_purity(construction_network(5, 2)).round(9).tolist() == [1.0] * 16
    True
    """
    return purity(check_network(net).U).min(axis=1)


# ------------------------------------------------------------------------------------------------ grokking


@dataclass(frozen=True)
class GrokkingDelay:
    """When one run reached its thresholds (``docs/modular_transformer.md``).

    Attributes
    ----------
    train_step, val_step : int or None
        First evaluated step with train accuracy >= the train threshold, and with validation accuracy >= the
        validation threshold (None: not reached within the run).
    delay : int or None
        ``val_step - train_step`` (negative when validation got there first); None when either is None.

    Examples
    --------
    >>> GrokkingDelay(200, 400, 200).reached, GrokkingDelay(200, None, None).reached
    (True, False)
    """

    train_step: int | None
    val_step: int | None
    delay: int | None

    @property
    def reached(self) -> bool:
        """True iff both thresholds were reached."""
        return self.delay is not None


def first_reach(steps: np.ndarray, values: np.ndarray, threshold: float) -> int | None:
    """The first ``steps[i]`` with ``values[i] >= threshold``, or None.

    Parameters
    ----------
    steps : int array (n,)
        Evaluated steps, in order.
    values : float array (n,)
        The metric at those steps.
    threshold : float
        The level to reach.

    Returns
    -------
    int or None
        The first step at or above ``threshold``; None if never reached.

    Examples
    --------
    >>> first_reach([0, 100, 200], [0.1, 0.6, 1.0], 0.5), first_reach([0, 100, 200], [0.1, 0.6, 1.0], 1.5)
    (100, None)
    """
    threshold = check_real(threshold, "threshold")
    steps = np.asarray(steps)
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"values must be an array of numbers, got {values!r:.80}", param="values") from None
    if steps.shape != values.shape:
        raise InputError(
            f"steps and values must have the same shape, got {steps.shape} and {values.shape}", param="values"
        )
    hit = np.flatnonzero(values >= threshold)
    return int(steps[hit[0]]) if hit.size else None


def grokking_delay(
    steps: np.ndarray, train_acc: np.ndarray, val_acc: np.ndarray, train_threshold: float, val_threshold: float
) -> GrokkingDelay:
    """The grokking delay of one run: steps from first reaching ``train_threshold`` train accuracy to first reaching
    ``val_threshold`` validation accuracy (evaluated steps only, so its resolution is the evaluation interval).

    Parameters
    ----------
    steps : int array (n,)
        Evaluated steps, in order.
    train_acc, val_acc : float arrays (n,)
        Train and validation accuracy at those steps.
    train_threshold, val_threshold : float
        The accuracies to reach, in (0, 1].

    Returns
    -------
    GrokkingDelay
        The first steps reaching each threshold and their difference.

    Examples
    --------
    >>> steps = [0, 100, 200, 300, 400]
    >>> grokking_delay(steps, [0.1, 0.6, 1.0, 1.0, 1.0], [0.0, 0.1, 0.2, 0.5, 0.99], 0.99, 0.95)
    GrokkingDelay(train_step=200, val_step=400, delay=200)
    >>> grokking_delay(steps, [1.0] * 5, [1.0] * 5, 0.99, 0.0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: val_threshold must lie in (0, 1], got 0.0
    """
    for name, v in (("train_threshold", train_threshold), ("val_threshold", val_threshold)):
        if not 0 < check_real(v, name) <= 1:
            raise InputError(f"{name} must lie in (0, 1], got {v!r}", param=name)
    t_train = first_reach(steps, train_acc, train_threshold)
    t_val = first_reach(steps, val_acc, val_threshold)
    return GrokkingDelay(t_train, t_val, None if t_train is None or t_val is None else t_val - t_train)
