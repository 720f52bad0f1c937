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

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from sympy.discrete.transforms import fwht as _sympy_fwht

from theory._checks import MAX_EXACT_ENTRIES, InputError, LimitError, as_number, check_cost, format_count
from theory._docstrings import fill_doc
from theory.boolean import BRUTE_FORCE_MAX_N, as_mask

from .limits import array_bytes, check_allocation, check_bool, check_count, check_rational, check_real, check_real_array

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
"""Largest dimension n of a dense transform over {±1}^n (2^26 points)."""

_CLOSED_FORMS = "use the closed forms in theory.boolean (majority_coefficient, ltf_coefficient, sinusoid_coefficient)"

#: The Returns section of the two float transforms, shared by their docstrings (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "returns_transform": """Returns
-------
float64 array (..., 2^n)
    :math:`Hf` along the last axis.""",
}


def _check_n(n: int, param: str = "n") -> int:
    """The dimension n, 0 <= n <= MAX_N; ``param`` names the argument it comes from (``"w"``: the length of w)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise InputError(f"n must be an integer, got {n!r:.80}", param=param)
    n = int(n)
    if n < 0:
        raise InputError(f"n must be >= 0 (dimension of {{±1}}^n), got n = {n}", param=param)
    if n > MAX_N:
        shown = f"n = {format_count(n)}" if param == "n" else f"{param} = a vector of n = {format_count(n)} entries"
        raise LimitError(
            f"{shown} is too large for a dense transform over {{±1}}^n (limit {MAX_N}); {_CLOSED_FORMS}",
            param=param,
            value=n,
            limit=MAX_N,
            hint=_CLOSED_FORMS,
        )
    return n


def _log2_length(N: int, param: str = "values") -> int:
    if N == 0 or N & (N - 1):
        raise InputError(f"the Walsh-Hadamard transform needs a length that is a power of 2, got {N}", param=param)
    return N.bit_length() - 1


def _float_array(values: object, name: str) -> np.ndarray:
    """``values`` as a finite float64 array with a non-empty last axis; InputError naming ``name``."""
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be an array of finite numbers, got {values!r:.80}", param=name) from None
    if values is None or a.ndim < 1:
        raise InputError(f"{name} must be an array (..., N) of finite numbers, got {values!r:.80}", param=name)
    if not np.isfinite(a).all():
        raise InputError(f"{name} must be finite (it holds NaN or infinite entries)", param=name)
    return a


def _check_cube_memory(n: int, param: str, what: str, itemsize: int = 8, rows: int = 1) -> None:
    check_allocation(
        array_bytes(rows, 2**n, itemsize=itemsize),
        param=param,
        value=n if param == "n" else f"n = {n}",
        what=what,
        hint=_CLOSED_FORMS,
    )


def cube(n: int, dtype=np.int8) -> np.ndarray:
    """(2^n, n) array of the points of {±1}^n, row a has x_i = (-1)^{bit i of a}.

    Parameters
    ----------
    n : int
        Dimension, ``0 <= n <= 26``.
    dtype : numpy dtype
        Entry type (int8 by default).

    Returns
    -------
    array (2^n, n)
        The points in the integer-encoding order of :mod:`theory.boolean`.

    Examples
    --------
    >>> cube(2).tolist()
    [[1, 1], [-1, 1], [1, -1], [-1, -1]]
    >>> cube(27)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 27 is too large for a dense transform over {±1}^n (limit 26); use the closed forms ...
    """
    n = _check_n(n)
    dtype = np.dtype(dtype)
    _check_cube_memory(n, "n", "the cube (2^n, n) with its int64 bits", itemsize=(8 + dtype.itemsize) * max(n, 1))
    a = np.arange(1 << n, dtype=np.int64)
    bits = (a[:, None] >> np.arange(n, dtype=np.int64)) & 1
    return (1 - 2 * bits).astype(dtype)


def fwht_exact(values: Sequence) -> list:
    """Exact unnormalised transform (sympy ``fwht``; integers / Rationals stay exact).

    Parameters
    ----------
    values : sequence of int, Fraction or sympy Rational
        Values on the cube, length a power of 2.

    Returns
    -------
    list of sympy numbers
        :math:`(Hf)[S]` for every mask S.

    Examples
    --------
    >>> from fractions import Fraction
    >>> fwht_exact([1, 2, 3, 4]), fwht_exact([Fraction(1, 2), 0])
    ([10, -2, -4, 0], [1/2, 1/2])
    >>> fwht_exact([1, 2, 3])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the Walsh-Hadamard transform needs a length that is a power of 2, got 3
    """
    if isinstance(values, np.ndarray) and values.ndim == 1:  # a numpy vector: its entries as Python numbers
        values = values.tolist()
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise InputError(f"values must be a sequence of numbers, got {values!r:.80}", param="values")
    check_cost(
        len(values),
        MAX_EXACT_ENTRIES,
        param="values",
        value=len(values),
        what="the number of exact values of the sympy transform",
        hint="use fwht_int for integers or fwht in float64",
    )
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


@fill_doc(_DOC)
def fwht(values, *, inplace: bool = False) -> np.ndarray:
    """Unnormalised float64 Walsh-Hadamard transform along the last axis (O(N log N) butterfly).

    With ``inplace=True`` and a contiguous float64 array the input buffer is overwritten and returned.

    Parameters
    ----------
    values : array_like (..., 2^n)
        Values on the cube along the last axis.
    inplace : bool
        Overwrite ``values`` (a C-contiguous float64 array) instead of copying it.

    {{returns_transform}}

    Examples
    --------
    >>> import numpy as np
    >>> fwht([1, 2, 3, 4]).tolist()
    [10.0, -2.0, -4.0, 0.0]
    >>> a = np.array([1.0, 2, 3, 4])
    >>> fwht(a, inplace=True) is a, a.tolist()
    (True, [10.0, -2.0, -4.0, 0.0])
    """
    if check_bool(inplace, "inplace"):
        a = np.asarray(values)
        if a.dtype != np.float64 or not a.flags.c_contiguous or a.ndim < 1:
            raise InputError("inplace=True needs a C-contiguous float64 array", param="values")
        if not np.isfinite(a).all():
            raise InputError("values must be finite (it holds NaN or infinite entries)", param="values")
    else:
        a = np.array(_float_array(values, "values"), dtype=np.float64, order="C", copy=True)
    _log2_length(a.shape[-1])
    return _butterfly(a)


def hadamard_block(m: int) -> np.ndarray:
    """Dense Sylvester Hadamard matrix H_{2^m}[j, i] = (-1)^{popcount(j & i)} (float64).

    Parameters
    ----------
    m : int
        Number of bits, >= 0.

    Returns
    -------
    float64 array (2^m, 2^m)
        The symmetric matrix H with :math:`H^2 = 2^m I`.

    Examples
    --------
    >>> import numpy as np
    >>> hadamard_block(2).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0], [1.0, -1.0, -1.0, 1.0]]
    >>> H = hadamard_block(3)
    >>> bool(np.array_equal(H @ H, 8 * np.eye(8)))
    True
    """
    m = check_count(m, "m", minimum=0, why="number of bits")
    if m > 62:
        raise LimitError(
            f"m = {format_count(m)} is too large: the dense Hadamard matrix has 4^m entries, beyond any memory "
            "(numpy indexes with int64); use fwht or fwht_batched",
            param="m",
            value=m,
            limit=62,
        )
    check_allocation(
        3 * array_bytes(2**m, 2**m),
        param="m",
        value=m,
        what="the dense Hadamard matrix (2^m, 2^m) and its int64 temporaries",
        hint="use fwht or fwht_batched",
    )
    a = np.arange(1 << m)
    x = a[:, None] & a[None, :]
    pc = np.zeros_like(x)
    for i in range(m):
        pc += (x >> i) & 1
    return (1.0 - 2.0 * (pc & 1)).astype(np.float64)


@fill_doc(_DOC)
def fwht_batched(values: np.ndarray, *, radix: int = 4) -> np.ndarray:
    r"""Unnormalised transform along the last axis of a batch (..., 2^n), same result as :func:`fwht`.

    :math:`H_{2^n}=\bigotimes_{\text{bits}}H_2`, applied ``radix`` bits at a time as one BLAS matmul with the dense
    :math:`H_{2^{radix}}` over the whole batch; on a batch of draws this is several times faster than the
    butterfly (whose strided passes run out of cache).  Exact for integer-valued inputs below 2^53 / 2^n.

    Parameters
    ----------
    values : array_like (..., 2^n)
        A batch of value vectors along the last axis.
    radix : int
        Bits per matmul, >= 1.

    {{returns_transform}}

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(3, 64))
    >>> bool(np.allclose(fwht_batched(x, radix=4), fwht(x)))
    True
    >>> fwht_batched(np.arange(4), radix=1).tolist()
    [6.0, -2.0, -4.0, 0.0]
    """
    a = _float_array(values, "values")
    N = a.shape[-1]
    n = _log2_length(N)
    radix = check_count(radix, "radix")
    mm = min(radix, n)
    check_allocation(
        3 * array_bytes(2**mm, 2**mm),
        param="radix",
        value=radix,
        what=f"the dense Hadamard block (2^r, 2^r), r = min(radix, n) = {mm}",
        hint="use a radix of 4 to 8",
    )
    lead = a.shape[:-1]
    done = 0
    out = a.copy() if n == 0 else a
    while done < n:
        mm = min(radix, n - done)
        out = np.matmul(hadamard_block(mm), out.reshape(-1, 1 << mm, 1 << done))  # bits done..done+mm-1
        done += mm
    return out.reshape((*lead, N))


def linear_forms(W: np.ndarray) -> np.ndarray:
    r"""w.x on every point of the cube for each row of W (D, n) -> (D, 2^n), by doubling as
    :func:`linear_form` (same point order, O(D 2^n) additions, no cube array).

    Parameters
    ----------
    W : float array (D, n)
        One weight vector per row.

    Returns
    -------
    float64 array (D, 2^n)
        Row d holds :math:`W_d\cdot x` at every point x of :func:`cube`.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1.0, 2.0], [0.0, 1.0]])
    >>> linear_forms(W).tolist()
    [[3.0, 1.0, -1.0, -3.0], [1.0, 1.0, -1.0, -1.0]]
    >>> bool(np.array_equal(linear_forms(W), W @ cube(2).T))
    True
    """
    W = _float_array(W, "W")
    if W.ndim != 2:
        raise InputError(f"W must be (draws, n), got shape {W.shape}", param="W")
    n = _check_n(W.shape[1], "W")
    _check_cube_memory(n, "W", "the linear forms (draws, 2^n) and their doubling", rows=3 * W.shape[0])
    z = np.zeros((W.shape[0], 1))
    for i in range(W.shape[1]):  # bit i is the high bit at step i: indices < 2^i have x_i = +1
        wi = W[:, i : i + 1]
        z = np.concatenate([z + wi, z - wi], axis=1)
    return z


def ifwht(coeffs) -> np.ndarray:
    r"""Inverse of :func:`fwht` (H^2 = N I).

    Parameters
    ----------
    coeffs : array_like (..., N)
        Unnormalised transform along the last axis.

    Returns
    -------
    float64 array (..., N)
        :math:`H\,\mathrm{coeffs}/N`.

    Examples
    --------
    >>> ifwht(fwht([1.0, 2.0, 3.0, 4.0])).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    a = fwht(_float_array(coeffs, "coeffs"))
    return a / a.shape[-1]


def fwht_int(values) -> np.ndarray:
    r"""Exact unnormalised transform of an integer array (int64 butterfly) along the last axis.

    Parameters
    ----------
    values : integer array_like (..., 2^n)
        Values with :math:`2^n \max|v| < 2^{62}`.

    Returns
    -------
    int64 array (..., 2^n)
        :math:`Hf` along the last axis.

    Examples
    --------
    >>> fwht_int([1, 2, 3, 4]).tolist()
    [10, -2, -4, 0]
    >>> fwht_int([0.5, 1.0])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: fwht_int needs an integer array, got dtype float64; use fwht_exact for rationals
    """
    a = np.array(values, copy=True)
    if not np.issubdtype(a.dtype, np.integer):
        raise InputError(
            f"fwht_int needs an integer array, got dtype {a.dtype}; use fwht_exact for rationals", param="values"
        )
    if a.ndim < 1:
        raise InputError(f"values must be an integer array (..., 2^n), got {values!r:.80}", param="values")
    a = a.astype(np.int64)
    N = a.shape[-1]
    _log2_length(N)
    if a.size and int(np.abs(a).max()) * N >= 2**62:
        raise ValueError("fwht_int would overflow int64; use fwht_exact")
    return _butterfly(np.ascontiguousarray(a))


def walsh_coefficients(values) -> np.ndarray:
    r"""All Fourier coefficients f^(S) (mask-indexed, float64) of a value vector over the cube.

    Parameters
    ----------
    values : array_like (..., 2^n)
        :math:`f` on the points of :func:`cube`, along the last axis.

    Returns
    -------
    float64 array (..., 2^n)
        :math:`\hat f(S) = 2^{-n}(Hf)[S]`, indexed by the mask of S.

    Examples
    --------
    :math:`\mathrm{Maj}_5` at S = {}, {0}, {0,1}, {0,1,2}: 0, 3/8, 0, -1/8 (Lemma B.1):

    >>> import numpy as np
    >>> from theory import boolean as tb
    >>> maj = [tb.majority(x) for x in tb.cube(5)]
    >>> np.round(walsh_coefficients(maj)[[0, 1, 3, 7]], 12).tolist()
    [0.0, 0.375, 0.0, -0.125]
    """
    a = fwht(_float_array(values, "values"))
    return a / a.shape[-1]


def walsh_coefficients_exact(values: Sequence) -> list[Fraction]:
    r"""All Fourier coefficients as Fractions (exact), through sympy's fwht.

    Parameters
    ----------
    values : sequence of int or Fraction
        :math:`f` on the points of :func:`cube`, length a power of 2.

    Returns
    -------
    list of Fraction
        :math:`\hat f(S)`, indexed by the mask of S.

    Examples
    --------
    The coefficients of :math:`\mathrm{Maj}_5` equal the closed form of Lemma B.1:

    >>> from theory import boolean as tb
    >>> c = walsh_coefficients_exact([tb.majority(x) for x in tb.cube(5)])
    >>> c[0b1], c[0b111]
    (Fraction(3, 8), Fraction(-1, 8))
    >>> all(c[(1 << k) - 1] == tb.majority_coefficient(5, k) for k in range(6))
    True
    """
    if isinstance(values, np.ndarray) and values.ndim == 1:
        values = values.tolist()
    coefficients = fwht_exact(values)
    if not all(c.is_Rational for c in coefficients):  # a float among the values: the transform is not exact
        raise InputError(
            "values must be ints or Fractions for the exact coefficients (use walsh_coefficients for floats), got "
            f"{next(v for v in values if not as_number(v, 'values').is_Rational)!r:.80}",
            param="values",
        )
    N = len(values)
    return [Fraction(int(c.p), int(c.q)) / N for c in coefficients]


def characters(n: int, S) -> np.ndarray:
    r"""chi_S on every point of the cube (length 2^n, int8).

    Parameters
    ----------
    n : int
        Dimension.
    S : int mask or iterable of int
        The subset of ``{0..n-1}``.

    Returns
    -------
    int8 array (2^n,)
        :math:`\chi_S(x) = \prod_{i\in S}x_i` at the points of :func:`cube`.

    Examples
    --------
    >>> characters(2, [0, 1]).tolist(), characters(3, 0b101).tolist()
    ([1, -1, -1, 1], [1, -1, 1, -1, -1, 1, -1, 1])
    >>> walsh_coefficients(characters(3, [0, 2])).tolist()  # a character's spectrum is one point
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    """
    n = _check_n(n)
    mask = as_mask(S, n)
    X = cube(n)
    cols = [i for i in range(n) if mask >> i & 1]
    return np.prod(X[:, cols], axis=1, dtype=np.int64).astype(np.int8) if cols else np.ones(1 << n, np.int8)


def relu_prime(z: np.ndarray) -> np.ndarray:
    """d/dz ReLU(z) = 1[z > 0].

    Parameters
    ----------
    z : float array
        Pre-activations.

    Returns
    -------
    float64 array
        1.0 where ``z > 0``, else 0.0 (the derivative at 0 taken as 0).

    Examples
    --------
    >>> import numpy as np
    >>> relu_prime(np.array([-1.0, 0.0, 2.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    return (_activations(z) > 0).astype(np.float64)


def _activations(z: object) -> np.ndarray:
    a = np.asarray(z)
    if a.dtype.kind not in "biuf":  # strings, objects: refused unless they are real numbers
        a = check_real_array(z, "z", finite=False)
    if a.dtype.kind == "f" and np.isnan(a).any():
        raise InputError("z must not hold NaN", param="z")
    return a


def step(z: np.ndarray) -> np.ndarray:
    """The step 1[z > 0] as integers (the exact form of :func:`relu_prime`).

    Parameters
    ----------
    z : array
        Pre-activations.

    Returns
    -------
    int64 array
        1 where ``z > 0``, else 0.

    Examples
    --------
    >>> import numpy as np
    >>> step(np.array([-1.0, 0.0, 2.0])).tolist()
    [0, 0, 1]
    """
    return (_activations(z) > 0).astype(np.int64)


def _h_values(sigma_prime: Callable, w, b, n: int) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (n,):
        raise InputError(f"w must have shape ({n},), got {w.shape}", param="w")
    if not callable(sigma_prime):
        raise InputError(
            f"sigma_prime must be a callable on arrays (e.g. relu_prime), got {sigma_prime!r:.80}", param="sigma_prime"
        )
    h = np.asarray(sigma_prime(linear_form(w) + check_real(b, "b", what="a finite number")))
    if h.shape != (2**n,) or h.dtype.kind not in "biuf" or not np.isfinite(h).all():
        raise InputError(
            f"sigma_prime must map the 2^n = {2**n} pre-activations to as many finite numbers, got {h.dtype} {h.shape}",
            param="sigma_prime",
        )
    return h


def linear_form(w) -> np.ndarray:
    r"""w.x on every point of the cube (length 2^n), built by doubling in O(2^n) without the cube.

    Parameters
    ----------
    w : array_like (n,)
        Weights; integer weights give an exact integer result.

    Returns
    -------
    array (2^n,)
        :math:`w\cdot x` at the points of :func:`cube` (int64 for integer ``w``, else float64).

    Examples
    --------
    >>> import numpy as np
    >>> linear_form([1, 2]).tolist()
    [3, 1, -1, -3]
    >>> bool(np.array_equal(linear_form([1, 2, 4]), cube(3) @ np.array([1, 2, 4])))
    True
    """
    w = np.asarray(w)
    if w.ndim != 1:
        raise InputError(f"w must be a vector of weights, got {w!r:.80}", param="w")
    if not np.issubdtype(w.dtype, np.integer):
        w = _float_array(w, "w")
    n = _check_n(w.shape[0], "w")
    _check_cube_memory(n, "w", "the linear form (2^n,) and its doubling", rows=3)
    z = np.zeros(1, dtype=np.result_type(w.dtype, np.int64) if np.issubdtype(w.dtype, np.integer) else np.float64)
    for wi in w:  # bit i is the high bit at step i: indices < 2^i have x_i = +1
        z = np.concatenate([z + wi, z - wi])
    return z


def population_gradient(
    sigma_prime: Callable[[np.ndarray], np.ndarray], w, b, S, *, labels: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    r"""(grad_w, grad_b) of E[-y sigma(w.x + b)] with y = chi_S(x) (or ``labels`` on the cube), float64.

    One transform of h = sigma'(w.x+b): grad_w[i] = -h^(S xor {i}), grad_b = -h^(S).  For arbitrary
    labels y the same holds with the transform of y·h read at {i} and ∅.

    Parameters
    ----------
    sigma_prime : callable
        The activation's derivative, applied to an array of pre-activations (e.g. :func:`relu_prime`).
    w : array_like (n,)
        Weights, ``n <= 26``.
    b : float
        Bias.
    S : int mask or iterable of int
        Support of the parity label :math:`\chi_S` (ignored when ``labels`` is given).
    labels : float array (2^n,), optional
        Arbitrary labels on the points of :func:`cube`.

    Returns
    -------
    grad_w : float64 array (n,)
        :math:`-\hat h(S\triangle\{i\})` for i = 0..n-1.
    grad_b : float
        :math:`-\hat h(S)`.

    Examples
    --------
    A ReLU neuron with w = (1, ..., 1), b = 0 on n = 5 has :math:`h = (1 + \mathrm{Maj}_5)/2`, so
    :math:`[\nabla_w]_i = -\mathrm{Maj}_5(1)/2 = -3/16` inside S = {0, 1} and :math:`-\mathrm{Maj}_5(3)/2 = 1/16`
    outside:

    >>> import numpy as np
    >>> gw, gb = population_gradient(relu_prime, np.ones(5), 0.0, [0, 1])
    >>> (gw * 16).round(12).tolist()
    [-3.0, -3.0, 1.0, 1.0, 1.0]
    >>> gw2, gb2 = population_gradient_bruteforce(relu_prime, np.ones(5), 0.0, [0, 1])
    >>> bool(np.allclose(gw, gw2)), abs(gb - gb2) < 1e-15
    (True, True)
    """
    w = _float_array(w, "w")
    if w.ndim != 1:
        raise InputError(f"w must be a vector of weights, got shape {w.shape}", param="w")
    n = _check_n(w.shape[0], "w")
    h = _h_values(sigma_prime, w, b, n)
    if labels is None:
        mask = as_mask(S, n)
        hh = walsh_coefficients(h)
    else:
        y = _float_array(labels, "labels")
        if y.shape != (2**n,):
            raise InputError(f"labels must have shape (2^n,) = ({2**n},), got {y.shape}", param="labels")
        mask = 0
        hh = walsh_coefficients(y * h)
    idx = mask ^ (1 << np.arange(n))
    return -hh[idx], float(-hh[mask])


def population_gradient_exact(w: Sequence[int], b: Fraction, S) -> tuple[list[Fraction], Fraction]:
    r"""Exact gradient for the step derivative h = 1[w.x + b > 0] (ReLU neuron), w integer, b rational.

    Uses the integer butterfly; returns Fractions.

    Parameters
    ----------
    w : sequence of int (n,)
        Integer weights, ``n <= 26``.
    b : Fraction
        Rational bias.
    S : int mask or iterable of int
        Support of the parity label :math:`\chi_S`.

    Returns
    -------
    grad_w : list of Fraction (n,)
        :math:`-\hat h(S\triangle\{i\})` for i = 0..n-1.
    grad_b : Fraction
        :math:`-\hat h(S)`.

    Examples
    --------
    >>> from fractions import Fraction
    >>> gw, gb = population_gradient_exact([1, 1, 1, 1, 1], Fraction(0), [0, 1])
    >>> [str(g) for g in gw], gb
    (['-3/16', '-3/16', '1/16', '1/16', '1/16'], Fraction(0, 1))
    >>> population_gradient_exact([0.5, 1.0], Fraction(0), [0])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: population_gradient_exact needs integer weights w
    """
    w_arr = np.asarray(w)
    if not np.issubdtype(w_arr.dtype, np.integer):
        raise InputError("population_gradient_exact needs integer weights w", param="w")
    if w_arr.ndim != 1:
        raise InputError(f"w must be a vector of integer weights, got {w!r:.80}", param="w")
    n = _check_n(w_arr.shape[0], "w")
    if sum(abs(int(v)) for v in w_arr) >= 2**62:
        raise InputError("population_gradient_exact needs sum |w_i| < 2^62 (exact int64 linear forms)", param="w")
    b = check_rational(b, "b")
    lf = linear_form(w_arr.astype(np.int64))
    # w.x + b > 0  <=>  w.x > floor(-b) for integer w.x (exact; the threshold clipped to the range of w.x)
    threshold = min(max(math.floor(-b), int(lf.min()) - 1), int(lf.max()))
    h = (lf > threshold).astype(np.int64)
    H = fwht_int(h)
    N = 1 << n
    mask = as_mask(S, n)
    return ([-Fraction(int(H[mask ^ (1 << i)]), N) for i in range(n)], -Fraction(int(H[mask]), N))


def population_gradient_bruteforce(
    sigma_prime: Callable[[np.ndarray], np.ndarray], w, b, S
) -> tuple[np.ndarray, float]:
    r"""The same gradient by an explicit loop over the 2^n inputs (independent oracle; slow).

    Parameters
    ----------
    sigma_prime : callable
        The activation's derivative, applied to an array of pre-activations.
    w : array_like (n,)
        Weights, ``n <= theory.boolean.BRUTE_FORCE_MAX_N``.
    b : float
        Bias.
    S : int mask or iterable of int
        Support of the parity label :math:`\chi_S`.

    Returns
    -------
    grad_w : float64 array (n,)
        :math:`-\mathbb E_x[\chi_S(x)\,x_i\,\sigma'(w\cdot x + b)]`.
    grad_b : float
        :math:`-\mathbb E_x[\chi_S(x)\,\sigma'(w\cdot x + b)]`.

    Examples
    --------
    With :math:`h = (1 + \mathrm{Maj}_3)/2` and S = {0}: :math:`[\nabla_w]_0 = -\hat h(\emptyset) = -1/2`,
    :math:`[\nabla_w]_i = -\mathrm{Maj}_3(2)/2 = 0` for i = 1, 2 and :math:`\nabla_b = -\mathrm{Maj}_3(1)/2 = -1/4`:

    >>> import numpy as np
    >>> gw, gb = population_gradient_bruteforce(relu_prime, np.ones(3), 0.0, [0])
    >>> gw.round(12).tolist(), gb
    ([-0.5, 0.0, 0.0], -0.25)
    """
    w = _float_array(w, "w")
    if w.ndim != 1:
        raise InputError(f"w must be a vector of weights, got shape {w.shape}", param="w")
    n = _check_n(w.shape[0], "w")
    if n > BRUTE_FORCE_MAX_N:
        raise LimitError(
            f"w = a vector of n = {n} weights is too large for the brute-force loop (limit n <= {BRUTE_FORCE_MAX_N}); "
            f"use population_gradient (transform)",
            param="w",
            value=n,
            limit=BRUTE_FORCE_MAX_N,
            hint="use population_gradient (transform)",
        )
    b = check_real(b, "b", what="a finite number")
    if not callable(sigma_prime):
        raise InputError(
            f"sigma_prime must be a callable on arrays (e.g. relu_prime), got {sigma_prime!r:.80}", param="sigma_prime"
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
    r"""Gap of |grad| at S: min_{i in S}|g_i| - max_{i notin S}|g_i| (Def. 5.4); ``relaxed`` uses max (App. B.3.1).

    Parameters
    ----------
    grad_w : float array (n,)
        A weight gradient (e.g. from :func:`population_gradient`).
    S : int mask or iterable of int
        The subset, ``1 <= |S| <= n-1``.
    relaxed : bool
        Use :math:`\max_{i\in S}|g_i|` in place of the minimum.

    Returns
    -------
    float
        The gap; positive when every coordinate of S stands out.

    Examples
    --------
    The gradient gap of the all-ones ReLU neuron is half the Fourier gap of :math:`\mathrm{Maj}_5` at a 2-set:

    >>> import numpy as np
    >>> from theory import boolean as tb
    >>> gw, _ = population_gradient(relu_prime, np.ones(5), 0.0, [0, 1])
    >>> abs(fourier_gap_from_gradient(gw, [0, 1]) - float(tb.majority_gap(5, 2)) / 2) < 1e-12
    True
    >>> fourier_gap_from_gradient(gw, [0, 1, 2, 3, 4])
    Traceback (most recent call last):
    ...
    ValueError: the gap needs 1 <= |S| <= n-1
    """
    g = np.abs(_float_array(grad_w, "grad_w"))
    if g.ndim != 1:
        raise InputError(f"grad_w must be a vector, got shape {g.shape}", param="grad_w")
    relaxed = check_bool(relaxed, "relaxed")
    n = g.shape[0]
    mask = as_mask(S, n)
    inside = np.array([(mask >> i) & 1 for i in range(n)], dtype=bool)
    if not inside.any() or inside.all():
        raise ValueError("the gap needs 1 <= |S| <= n-1")
    top = g[inside].max() if relaxed else g[inside].min()
    return float(top - g[~inside].max())
