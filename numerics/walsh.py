r"""Fast Walsh-Hadamard transform on {±1}^n and exact population gradients of one neuron.

Encoding (same as :mod:`theory.boolean`): point ``a`` in ``0..2^n-1`` has :math:`x_i=(-1)^{a_i}` (bit i),
a subset S is a bit mask, and :math:`\hat f(S) = 2^{-n}(Hf)[S]` with H the Sylvester-ordered
Hadamard matrix :math:`H_{a,S}=(-1)^{|a\cap S|}`.

* :func:`fwht_exact` - exact transform of integers / rationals through ``sympy.discrete.transforms.fwht``.
* :func:`fwht_int` - exact transform of an integer numpy array (int64 butterfly; exact while
  ``2^n max|v| < 2^63``).
* :func:`fwht` / :func:`ifwht` - float64 numpy in-place butterfly, O(n 2^n), along the last axis.
* :func:`fwht_batched` - the same transform of a batch of vectors as radix-2^r block matmuls (BLAS; several
  times faster than the butterfly on many vectors at once).
* :func:`walsh_coefficients` - all :math:`\hat f(S)` of a value vector.
* :func:`population_gradient` - exact population gradient of the correlation loss
  :math:`\ell=-y\,\sigma(w^\top x+b)` with :math:`y=\chi_S(x)`:
  :math:`[\nabla_w]_i=-\hat h(S\triangle\{i\})`, :math:`\nabla_b=-\hat h(S)`, :math:`h=\sigma'(w^\top x+b)`
  (proof of Prop. B.7), from a single transform of h rather than a loop over inputs per coordinate.
* :func:`population_gradient_bruteforce` - the independent oracle (explicit sum over the cube).

The torch (GPU) transform is :mod:`verify.train.walsh` (``numerics`` may not import torch; docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from sympy.discrete.transforms import fwht as _sympy_fwht

from theory._checks import as_number
from theory.boolean import BRUTE_FORCE_MAX_N, as_mask

__all__ = [
    "characters",
    "cube",
    "fourier_gap_from_gradient",
    "fwht",
    "fwht_batched",
    "fwht_exact",
    "fwht_int",
    "hadamard_block",
    "ifwht",
    "linear_form",
    "linear_forms",
    "population_gradient",
    "population_gradient_bruteforce",
    "population_gradient_exact",
    "relu_prime",
    "step",
    "walsh_coefficients",
    "walsh_coefficients_exact",
]

MAX_N = 26


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be an integer, got {n!r}")
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0 (dimension of {{±1}}^n), got n = {n}")
    if n > MAX_N:
        raise ValueError(
            f"n = {n} is too large for a dense transform over {{±1}}^n (limit {MAX_N}); "
            f"use the closed forms in theory.boolean (majority_coefficient, ltf_coefficient, "
            f"sinusoid_coefficient)"
        )
    return n


def _log2_length(N: int) -> int:
    if N == 0 or N & (N - 1):
        raise ValueError(f"the Walsh-Hadamard transform needs a length that is a power of 2, got {N}")
    return N.bit_length() - 1


def cube(n: int, dtype=np.int8) -> np.ndarray:
    """(2^n, n) array of the points of {±1}^n, row a has x_i = (-1)^{bit i of a}."""
    n = _check_n(n)
    a = np.arange(1 << n, dtype=np.int64)
    bits = (a[:, None] >> np.arange(n, dtype=np.int64)) & 1
    return (1 - 2 * bits).astype(dtype)


def fwht_exact(values: Sequence) -> list:
    """Exact unnormalised transform (sympy ``fwht``; integers / Rationals stay exact)."""
    if isinstance(values, (str, bytes)):
        raise ValueError(f"values must be a sequence of numbers, got {values!r:.80}")
    _log2_length(len(values))
    return list(_sympy_fwht([as_number(v, "values") for v in values]))


def _butterfly(a: np.ndarray) -> np.ndarray:
    N = a.shape[-1]
    _log2_length(N)
    lead = a.shape[:-1]
    h = 1
    while h < N:
        v = a.reshape((*lead, N // (2 * h), 2, h))
        x = v[..., 0, :].copy()
        v[..., 0, :] += v[..., 1, :]
        v[..., 1, :] *= -1
        v[..., 1, :] += x
        h *= 2
    return a


def fwht(values, *, inplace: bool = False) -> np.ndarray:
    """Unnormalised float64 Walsh-Hadamard transform along the last axis (O(N log N) butterfly).

    With ``inplace=True`` and a contiguous float64 array the input buffer is overwritten and returned.
    """
    a = np.asarray(values)
    if inplace:
        if a.dtype != np.float64 or not a.flags.c_contiguous:
            raise ValueError("inplace=True needs a C-contiguous float64 array")
    else:
        a = np.array(a, dtype=np.float64, order="C", copy=True)
    return _butterfly(a)


def hadamard_block(m: int) -> np.ndarray:
    """Dense Sylvester Hadamard matrix H_{2^m}[j, i] = (-1)^{popcount(j & i)} (float64)."""
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    a = np.arange(1 << m)
    x = a[:, None] & a[None, :]
    pc = np.zeros_like(x)
    for i in range(m):
        pc += (x >> i) & 1
    return (1.0 - 2.0 * (pc & 1)).astype(np.float64)


def fwht_batched(values: np.ndarray, *, radix: int = 4) -> np.ndarray:
    r"""Unnormalised transform along the last axis of a batch (..., 2^n), same result as :func:`fwht`.

    :math:`H_{2^n}=\bigotimes_{\text{bits}}H_2`, applied ``radix`` bits at a time as one BLAS matmul with the dense
    :math:`H_{2^{radix}}` over the whole batch; on a batch of draws this is several times faster than the
    butterfly (whose strided passes run out of cache).  Exact for integer-valued inputs below 2^53 / 2^n.
    """
    a = np.asarray(values, dtype=np.float64)
    N = a.shape[-1]
    if N == 0 or N & (N - 1):
        raise ValueError(f"the Walsh-Hadamard transform needs a length that is a power of 2, got {N}")
    if radix < 1:
        raise ValueError(f"radix must be >= 1, got {radix}")
    n = N.bit_length() - 1
    lead = a.shape[:-1]
    done = 0
    out = a.copy() if n == 0 else a
    while done < n:
        mm = min(radix, n - done)
        out = np.matmul(hadamard_block(mm), out.reshape(-1, 1 << mm, 1 << done))  # bits done..done+mm-1
        done += mm
    return out.reshape((*lead, N))


def linear_forms(W: np.ndarray) -> np.ndarray:
    """w.x on every point of the cube for each row of W (D, n) -> (D, 2^n), by doubling as
    :func:`linear_form` (same point order, O(D 2^n) additions, no cube array)."""
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2:
        raise ValueError(f"W must be (draws, n), got shape {W.shape}")
    z = np.zeros((W.shape[0], 1))
    for i in range(W.shape[1]):  # bit i is the high bit at step i: indices < 2^i have x_i = +1
        wi = W[:, i : i + 1]
        z = np.concatenate([z + wi, z - wi], axis=1)
    return z


def ifwht(coeffs) -> np.ndarray:
    """Inverse of :func:`fwht` (H^2 = N I)."""
    a = fwht(coeffs)
    return a / a.shape[-1]


def fwht_int(values) -> np.ndarray:
    """Exact unnormalised transform of an integer array (int64 butterfly) along the last axis."""
    a = np.array(values, copy=True)
    if not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"fwht_int needs an integer array, got dtype {a.dtype}; use fwht_exact for rationals")
    a = a.astype(np.int64)
    N = a.shape[-1]
    if a.size and int(np.abs(a).max()) * N >= 2**62:
        raise ValueError("fwht_int would overflow int64; use fwht_exact")
    return _butterfly(np.ascontiguousarray(a))


def walsh_coefficients(values) -> np.ndarray:
    """All Fourier coefficients f^(S) (mask-indexed, float64) of a value vector over the cube."""
    a = fwht(values)
    return a / a.shape[-1]


def walsh_coefficients_exact(values: Sequence) -> list[Fraction]:
    """All Fourier coefficients as Fractions (exact), through sympy's fwht."""
    N = len(values)
    return [Fraction(int(c.p), int(c.q)) / N for c in fwht_exact(values)]


def characters(n: int, S) -> np.ndarray:
    """chi_S on every point of the cube (length 2^n, int8)."""
    X = cube(n)
    mask = as_mask(S, n)
    cols = [i for i in range(n) if mask >> i & 1]
    return np.prod(X[:, cols], axis=1, dtype=np.int64).astype(np.int8) if cols else np.ones(1 << n, np.int8)


def relu_prime(z: np.ndarray) -> np.ndarray:
    """d/dz ReLU(z) = 1[z > 0]."""
    return (z > 0).astype(np.float64)


def step(z: np.ndarray) -> np.ndarray:
    return (z > 0).astype(np.int64)


def _h_values(sigma_prime: Callable, w, b, n: int) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"w must have shape ({n},), got {w.shape}")
    return np.asarray(sigma_prime(linear_form(w) + float(b)))


def linear_form(w) -> np.ndarray:
    """w.x on every point of the cube (length 2^n), built by doubling in O(2^n) without the cube."""
    w = np.asarray(w)
    z = np.zeros(1, dtype=np.result_type(w.dtype, np.int64) if np.issubdtype(w.dtype, np.integer) else np.float64)
    for wi in w:  # bit i is the high bit at step i: indices < 2^i have x_i = +1
        z = np.concatenate([z + wi, z - wi])
    return z


def population_gradient(
    sigma_prime: Callable[[np.ndarray], np.ndarray], w, b, S, *, labels: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """(grad_w, grad_b) of E[-y sigma(w.x + b)] with y = chi_S(x) (or ``labels`` on the cube), float64.

    One transform of h = sigma'(w.x+b): grad_w[i] = -h^(S xor {i}), grad_b = -h^(S).  For arbitrary
    labels y the same holds with the transform of y·h read at {i} and ∅.
    """
    w = np.asarray(w, dtype=np.float64)
    n = _check_n(w.shape[0])
    h = _h_values(sigma_prime, w, b, n)
    if labels is None:
        mask = as_mask(S, n)
        hh = walsh_coefficients(h)
    else:
        mask = 0
        hh = walsh_coefficients(np.asarray(labels, dtype=np.float64) * h)
    idx = mask ^ (1 << np.arange(n))
    return -hh[idx], float(-hh[mask])


def population_gradient_exact(w: Sequence[int], b: Fraction, S) -> tuple[list[Fraction], Fraction]:
    """Exact gradient for the step derivative h = 1[w.x + b > 0] (ReLU neuron), w integer, b rational.

    Uses the integer butterfly; returns Fractions.
    """
    w_arr = np.asarray(w)
    if not np.issubdtype(w_arr.dtype, np.integer):
        raise ValueError("population_gradient_exact needs integer weights w")
    n = _check_n(w_arr.shape[0])
    b = Fraction(b)
    z_num = linear_form(w_arr.astype(np.int64)) * b.denominator + b.numerator
    h = (z_num > 0).astype(np.int64)
    H = fwht_int(h)
    N = 1 << n
    mask = as_mask(S, n)
    return ([-Fraction(int(H[mask ^ (1 << i)]), N) for i in range(n)], -Fraction(int(H[mask]), N))


def population_gradient_bruteforce(
    sigma_prime: Callable[[np.ndarray], np.ndarray], w, b, S
) -> tuple[np.ndarray, float]:
    """The same gradient by an explicit loop over the 2^n inputs (independent oracle; slow)."""
    w = np.asarray(w, dtype=np.float64)
    n = _check_n(w.shape[0])
    if n > BRUTE_FORCE_MAX_N:
        raise ValueError(
            f"n = {n} is too large for the brute-force loop (limit {BRUTE_FORCE_MAX_N}); "
            f"use population_gradient (transform)"
        )
    mask = as_mask(S, n)
    gw = np.zeros(n)
    gb = 0.0
    for a in range(1 << n):
        x = np.array([1 - 2 * (a >> i & 1) for i in range(n)], dtype=np.float64)
        y = -1.0 if bin(a & mask).count("1") & 1 else 1.0
        hp = float(sigma_prime(np.array([x @ w + b]))[0])
        gw -= y * x * hp
        gb -= y * hp
    N = float(1 << n)
    return gw / N, gb / N


def fourier_gap_from_gradient(grad_w: np.ndarray, S, *, relaxed: bool = False) -> float:
    """Gap of |grad| at S: min_{i in S}|g_i| - max_{i notin S}|g_i| (Def. 5.4); ``relaxed`` uses max (App. B.3.1)."""
    g = np.abs(np.asarray(grad_w, dtype=np.float64))
    n = g.shape[0]
    mask = as_mask(S, n)
    inside = np.array([(mask >> i) & 1 for i in range(n)], dtype=bool)
    if not inside.any() or inside.all():
        raise ValueError("the gap needs 1 <= |S| <= n-1")
    top = g[inside].max() if relaxed else g[inside].min()
    return float(top - g[~inside].max())
