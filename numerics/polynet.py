r"""Independent numerical oracles for the disjoint-PolyNet (App. B.2.3) and the epsilon-perturbed sparse neuron
(App. C.2.4): brute force over the whole cube {±1}^n and ODE integration.

Source: Edelman thesis Sec. 5.4.2, App. B.2.3, Lemmas C.13-C.15 (docs/boolean.md).
The exact predictions live in :mod:`theory.polynet` and :mod:`theory.sparse_init`.

Layout: block i of the disjoint-PolyNet holds coordinates ``i*n' .. (i+1)*n' - 1``; its first coordinate is the
relevant one, so S = {0, n', 2n', ...} and :math:`y = \chi_S(x)`; ``W`` has shape (k, n') with ``W[i, 0] = v_i``.

* :func:`population_gradient_bruteforce` - :math:`-\mathbb{E}_x[y\,\nabla_W f(x;W)]` by summing over all 2^n inputs.
* :func:`error_bruteforce` - :math:`P_x[\mathrm{sign} f(x;W) \ne y]`, sign(0) = 0 (an output 0 is an error).
* :func:`integrate_flow` - scipy ``solve_ivp`` (DOP853) of :math:`\dot v_i = \prod_{j\ne i}v_j`.
* :func:`plateau_numeric` - T(eps) and 1 - T(eps)/T(0) along the all-ones flow in floating point: the error from
  ``scipy.stats.binom`` (U = n'-1-2J, J ~ Bin(n'-1, 1/2)) scanned over integer v, and the hitting times by
  quadrature of dt = dv / v^(k-1) (no closed form used; :func:`hitting_time` steps the ODE with a terminal event,
  which is accurate for moderate v but fails close to the blow-up).
* :func:`perturbed_neuron_correlation` - :math:`\mathbb{E}[1\{w\cdot x+b>0\}x_i\chi_S(x)]` for
  :math:`w\in\{\varepsilon,1\}^n` through :func:`numerics.walsh.population_gradient` (float64) or
  :func:`numerics.walsh.population_gradient_exact` (exact, after scaling w to integers).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
from scipy.integrate import solve_ivp
from scipy.stats import binom

from numerics import walsh as nw
from numerics._quadrature import converged_quad
from numerics.limits import (
    STEP_COST,
    array_bytes,
    check_allocation,
    check_count,
    check_rational,
    check_real,
    check_seed,
    check_work,
)
from theory._checks import MAX_DIGITS, InputError, LimitError, check_cost
from theory._docstrings import fill_doc

__all__ = [
    "MAX_BLOCK_INPUTS",
    "MAX_BLOCK_WIDTH",
    "MAX_DIMENSION",
    "MAX_FLOW_K",
    "MAX_N",
    "block_error",
    "equal_init_error_float",
    "error_bruteforce",
    "flow_error_crossings",
    "flow_time_quad",
    "gaussian_init",
    "hitting_time",
    "integrate_flow",
    "perturbed_neuron_correlation",
    "perturbed_neuron_correlation_exact",
    "perturbed_neuron_weights",
    "plateau_numeric",
    "polynet_output",
    "polynet_sgd",
    "polynet_sgd_init",
    "polynet_sgd_interval_ends",
    "population_gradient_bruteforce",
    "relevant_mask",
    "squared_growth_spread",
]

MAX_N = 20
"""Largest n = k n' of the brute force over {±1}^n (2^20 points)."""

MAX_FLOW_K = 1000
"""Largest number of blocks k of the flow (each right-hand side costs k products of k - 1 factors)."""

MAX_DIMENSION = 10**8
"""Largest n of :func:`perturbed_neuron_weights` (800 MB of float64; the transforms need n <= 26)."""

MAX_BLOCK_WIDTH = 10**7
"""Largest block width n' of :func:`equal_init_error_float` and :func:`plateau_numeric` (the Bin(n'-1, 1/2) law,
n' floats; about 10 s of scan at the limit)."""

#: Parameters sections shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "blocks": """W : float array (k, n')
    Block weights, ``k n' <= MAX_N``.""",
    "perturbed": """n : int
    Dimension, ``<= 26``.
k : int
    Parity order, S = {0..k-1}.
s : int
    Number of unit weights, S' = {0..s-1}.""",
}


def _array(value: object, name: str, ndim: int) -> np.ndarray:
    """A finite float64 array with ``ndim`` axes (``ndim = -1``: any); InputError naming ``name``."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be an array of finite numbers, got {value!r:.80}", param=name) from None
    if value is None or (ndim >= 0 and a.ndim != ndim):
        raise InputError(f"{name} must be a {ndim}-d array of finite numbers, got {value!r:.80}", param=name)
    if not np.isfinite(a).all():
        raise InputError(f"{name} must be finite (it holds NaN or infinite entries)", param=name)
    return a


def _tolerances(rtol: object, atol: object) -> tuple[float, float]:
    r = check_real(rtol, "rtol", what="a positive finite tolerance")
    a = check_real(atol, "atol", what="a finite tolerance >= 0")
    if not r > 0:
        raise InputError(f"rtol must be a positive finite tolerance, got {rtol!r}", param="rtol")
    if not a >= 0:
        raise InputError(f"atol must be a finite tolerance >= 0, got {atol!r}", param="atol")
    return r, a


def _check_flow_k(k: object, name: str = "k") -> int:
    k_int = check_count(k, name, why="number of blocks")
    check_cost(
        k_int,
        MAX_FLOW_K,
        param=name,
        value=k_int,
        what="the number of blocks of the flow (k^2 products per evaluation)",
        hint="theory.polynet.flow_solution and flow_time give the equal-init flow in closed form",
    )
    return k_int


def _check_block_width(n_prime: object) -> int:
    m = check_count(n_prime, "n_prime", message=f"n' (block width) must be an integer >= 1, got {n_prime!r:.80}")
    check_cost(
        m,
        MAX_BLOCK_WIDTH,
        param="n_prime",
        value=m,
        what="the block width (the law of U has n' atoms)",
        hint="theory.polynet gives the exact error and plateau ratio",
    )
    return m


def _check_W(W) -> np.ndarray:
    W = _array(W, "W", 2)
    if W.shape[0] < 1 or W.shape[1] < 1:
        raise InputError(f"W must have shape (k, n') with k, n' >= 1, got {W.shape}", param="W")
    n = W.size
    if n > MAX_N:
        raise LimitError(
            f"W = a (k, n') = {W.shape} weight matrix is too large: brute force over {{±1}}^n with n = k n' = {n} > "
            f"{MAX_N} is too large; use theory.polynet.error / population_gradient_formula",
            param="W",
            value=W.shape,
            limit=MAX_N,
        )
    return W


def relevant_mask(k: int, n_prime: int) -> int:
    r"""Bit mask of S = {0, n', 2n', ...} (first coordinate of each block).

    Parameters
    ----------
    k : int
        Number of blocks.
    n_prime : int
        Block width n'.

    Returns
    -------
    int
        :math:`\sum_i 2^{i n'}`.

    Examples
    --------
    >>> bin(relevant_mask(3, 2))
    '0b10101'
    """
    k = check_count(k, "k", why="number of blocks")
    n_prime = check_count(n_prime, "n_prime", why="block width")
    max_bits = int(MAX_DIGITS / math.log10(2))  # a mask of at most MAX_DIGITS decimal digits
    check_cost(
        n_prime,
        max_bits,
        param="n_prime",
        value=n_prime,
        what="the block width (bits per block of the mask)",
        hint="brute force needs k n' <= 20 bits anyway",
    )
    check_cost(
        k * n_prime,
        max_bits,
        param="k",
        value=k,
        what=f"the number of bits k n' of the mask ({MAX_DIGITS} decimal digits at most)",
        hint="brute force needs k n' <= 20 bits anyway",
    )
    return sum(1 << (i * n_prime) for i in range(k))


def _blocks(W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k, m = W.shape
    X = nw.cube(k * m).astype(np.float64).reshape(-1, k, m)  # (2^n, k, n')
    Z = np.einsum("akj,kj->ak", X, W)  # block outputs <w_i, x_{P_i}>
    y = np.prod(X[:, :, 0], axis=1)
    return X, Z, y


def polynet_output(W) -> np.ndarray:
    """f(x; W) = prod_i <w_i, x_{P_i}> on every point of the cube (length 2^(k n')).

    Parameters
    ----------
    W : float array (k, n')
        Block weights, ``W[i, 0] = v_i``; ``k n' <= MAX_N``.

    Returns
    -------
    float64 array (2^(k n'),)
        The outputs in the point order of :func:`numerics.walsh.cube`.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1.0, 0.5], [2.0, -0.5], [1.5, 1.0]])
    >>> polynet_output(W)[:4].tolist()  # (1 + 0.5)(2 - 0.5)(1.5 + 1) at x = 1, then x_0 = -1, ...
    [5.625, -1.875, 1.875, -5.625]
    >>> polynet_output(np.ones((3, 7)))
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: W = a (k, n') = (3, 7) weight matrix is too large: brute force over {±1}^n with n = k n' = 21 ...
    """
    W = _check_W(W)
    _, Z, _ = _blocks(W)
    return np.prod(Z, axis=1)


@fill_doc(_DOC)
def population_gradient_bruteforce(W) -> np.ndarray:
    r"""E_x[grad_W (-y f(x; W))] (shape (k, n')): per input, d f/d w_i = prod_{j != i} <w_j, x_{P_j}> x_{P_i}.

    Parameters
    ----------
    {{blocks}}

    Returns
    -------
    float64 array (k, n')
        The population gradient.

    Examples
    --------
    Sec. 5.4.2: :math:`g_i = -(\prod_{j\ne i} v_j)\,e_1` (``theory.polynet.population_gradient_formula``):

    >>> import numpy as np
    >>> from theory import polynet as tpn
    >>> W = np.array([[1.0, 0.5], [2.0, -0.5], [1.5, 1.0]])
    >>> population_gradient_bruteforce(W).round(12).tolist()
    [[-3.0, -0.0], [-1.5, -0.0], [-2.0, -0.0]]
    >>> tpn.population_gradient_formula(3, 2)
    [[-w_1_0*w_2_0, 0], [-w_0_0*w_2_0, 0], [-w_0_0*w_1_0, 0]]
    """
    W = _check_W(W)
    X, Z, y = _blocks(W)
    k = W.shape[0]
    G = np.zeros_like(W)
    for i in range(k):
        others = np.prod(np.delete(Z, i, axis=1), axis=1) if k > 1 else np.ones(Z.shape[0])
        G[i] = -np.mean((y * others)[:, None] * X[:, i, :], axis=0)
    return G


@fill_doc(_DOC)
def error_bruteforce(W) -> float:
    """P_x[sign f(x; W) != chi_S(x)] with sign(0) = 0 (Lemma B.9: an output exactly 0 is an error).

    Parameters
    ----------
    {{blocks}}

    Returns
    -------
    float
        The 0-1 error over the cube.

    Examples
    --------
    Against the exact ``theory.polynet.equal_init_error`` at v = 1, k = 3, n' = 3:

    >>> import numpy as np
    >>> from theory import polynet as tpn
    >>> error_bruteforce(np.ones((3, 3))), tpn.equal_init_error(1, 3, 3)
    (0.4375, Fraction(7, 16))
    """
    W = _check_W(W)
    _, Z, y = _blocks(W)
    f = np.prod(Z, axis=1)
    return float(np.mean(np.sign(f) != y))


def integrate_flow(
    v0: Sequence[float], t_eval: Sequence[float], *, rtol: float = 1e-10, atol: float = 1e-12
) -> np.ndarray:
    """Integrate dv_i/dt = prod_{j != i} v_j from v(0) = v0 (scipy DOP853); returns V of shape (len(t_eval), k).

    Parameters
    ----------
    v0 : sequence of float (k,)
        Initial relevant weights.
    t_eval : sequence of float
        Non-decreasing times >= 0 (before the blow-up).
    rtol, atol : float
        Tolerances of ``solve_ivp``.

    Returns
    -------
    float64 array (len(t_eval), k)
        :math:`v(t)` at the requested times.

    Examples
    --------
    Equal init: :math:`v(t) = (v_0^{2-k} - (k-2)t)^{-1/(k-2)}` (``theory.polynet.flow_solution``):

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from theory import polynet as tpn
    >>> V = integrate_flow([1.0, 1.0, 1.0], [0.0, 0.25, 0.4])
    >>> V[:, 0].round(9).tolist(), [float(tpn.flow_solution(Fraction(t), 3)) for t in ("0", "1/4", "2/5")]
    ([1.0, 1.333333333, 1.666666667], [1.0, 1.3333333333333333, 1.6666666666666667])
    """
    v_init = _array(v0, "v0", -1)
    t = _array(t_eval, "t_eval", -1)
    if v_init.ndim != 1 or v_init.size < 1:
        raise InputError(f"v0 must be a non-empty vector, got shape {v_init.shape}", param="v0")
    _check_flow_k(v_init.size, "v0")
    if t.ndim != 1 or t.size < 1 or np.any(np.diff(t) < 0) or t[0] < 0:
        raise InputError("t_eval must be a non-empty, non-decreasing vector of times >= 0", param="t_eval")
    check_allocation(
        array_bytes(t.size, v_init.size), param="t_eval", value=t.size, what="the trajectory (len(t_eval), k)"
    )
    rtol, atol = _tolerances(rtol, atol)

    def rhs(_t, v):
        return np.array([np.prod(np.delete(v, i)) for i in range(v.size)])

    if t[-1] == 0:
        return np.tile(v_init, (t.size, 1))
    times, rows = np.unique(t, return_inverse=True)  # solve_ivp needs strictly increasing times; repeats share a row
    sol = solve_ivp(rhs, (0.0, float(t[-1])), v_init, method="DOP853", t_eval=times, rtol=rtol, atol=atol)
    if not sol.success:
        raise ValueError(f"solve_ivp failed: {sol.message} (t_end = {t[-1]} beyond the blow-up time?)")
    return sol.y.T[rows]


def squared_growth_spread(V: np.ndarray, v0: Sequence[float]) -> tuple[float, np.ndarray]:
    r"""B.7: q_i(t) = v_i(t)^2 - v_i(0)^2 is the same for all i. Returns (max relative spread across i, q mean).

    Parameters
    ----------
    V : float array (T, k)
        A trajectory (:func:`integrate_flow`).
    v0 : sequence of float (k,)
        Its initial value.

    Returns
    -------
    spread : float
        :math:`\max_t (\max_i q_i - \min_i q_i)/\max(1, \max_i |q_i|)`.
    q_mean : float64 array (T,)
        The mean of :math:`q_i(t)` over i.

    Examples
    --------
    >>> V = integrate_flow([1.0, 2.0, 0.5], [0.0, 0.1, 0.2])
    >>> spread, q = squared_growth_spread(V, [1.0, 2.0, 0.5])
    >>> spread < 1e-8, q.round(4).tolist()
    (True, [0.0, 0.2608, 0.6899])
    """
    V = _array(V, "V", 2)
    v_init = _array(v0, "v0", 1)
    if v_init.shape != (V.shape[1],):
        raise InputError(f"v0 must have k = {V.shape[1]} entries (the columns of V), got {v_init.shape}", param="v0")
    q = V**2 - v_init**2
    if not np.isfinite(q).all():
        raise InputError("V and v0 overflow float64 when squared", param="V")
    scale = np.maximum(1.0, np.abs(q).max(axis=1))
    return float(((q.max(axis=1) - q.min(axis=1)) / scale).max()), q.mean(axis=1)


def _log_block_probs(v: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(log b, log c) with b = P(U > v), c = P(U = v) for U = m - 2J, J ~ Bin(m, 1/2) (log scale: no underflow)."""
    x = np.clip((m - v) / 2, -1, m + 1)  # U > v <=> J < x ; U = v <=> J = x (a clipped x gives the same b and c)
    log_pmf = binom.logpmf(np.arange(m + 1), m, 0.5)
    log_cdf = np.logaddexp.accumulate(log_pmf)  # log P(J <= j), accurate deep in the tail (scipy's logcdf is not)
    idx = np.ceil(x).astype(np.int64) - 1
    log_b = np.where(idx >= 0, log_cdf[np.clip(idx, 0, m)], -np.inf)
    integer = (np.floor(x) == x) & (x >= 0) & (x <= m)
    log_c = np.where(integer, log_pmf[np.clip(np.floor(x).astype(np.int64), 0, m)], -np.inf)
    return log_b, log_c


def equal_init_error_float(v: np.ndarray, k: int, n_prime: int) -> np.ndarray:
    """err(v, ..., v) = 1 - [(a+b)^k + (a-b)^k]/2 with a = P(U < v), b = P(U > v), U = n'-1-2J, J ~ Bin(n'-1, 1/2)
    (float64, scipy.stats.binom), written with c = P(U = v) as -[expm1(k log1p(-c)) + expm1(k log1p(-c-2b))]/2
    so that tiny errors keep their relative precision; v > 0 (array), k >= 1, n' >= 1.

    Parameters
    ----------
    v : float array
        Relevant weights v > 0.
    k : int
        Number of blocks, >= 1.
    n_prime : int
        Block width n', >= 1.

    Returns
    -------
    float64 array
        The error at every v.

    Examples
    --------
    Against the exact ``theory.polynet.equal_init_error``, also deep in the tail:

    >>> import numpy as np
    >>> from theory import polynet as tpn
    >>> equal_init_error_float(np.array([1.0, 2.0, 3.0]), 3, 5).tolist()
    [0.4736328125, 0.6669921875, 0.1650390625]
    >>> [str(tpn.equal_init_error(v, 3, 5)) for v in (1, 2, 3)]
    ['485/1024', '683/1024', '169/1024']
    >>> e = float(equal_init_error_float(np.array([38.0]), 3, 41)[0])
    >>> abs(e / float(tpn.equal_init_error(38, 3, 41)) - 1) < 1e-12
    True
    """
    k = check_count(k, "k", message=f"k (relevant blocks) must be an integer >= 1, got {k!r:.80}")
    check_cost(
        k, 2**53, param="k", value=k, what="the number of blocks (an exponent in float64)", hint="use a smaller k"
    )
    n_prime = _check_block_width(n_prime)
    v = _array(v, "v", -1)
    if not (v > 0).all():
        bad = v[~(v > 0)].ravel()[0]
        raise InputError(
            f"equal_init_error_float needs v > 0 (positive product along the flow), got {float(bad)!r}", param="v"
        )
    log_b, log_c = _log_block_probs(v, n_prime - 1)
    b, c = np.exp(log_b), np.exp(log_c)
    x = np.clip(c + 2 * b, 0.0, 1.0)  # 1 - (a - b); a - b >= 0 for v > 0
    with np.errstate(divide="ignore"):
        second = np.where(x < 0.5, np.expm1(k * np.log1p(-np.minimum(x, 0.5))), (1 - x) ** k - 1)
    return -(np.expm1(k * np.log1p(-c)) + second) / 2


@dataclass(frozen=True)
class _Reaches:
    """The ``solve_ivp`` event ``v_0 - level``: scipy reads ``terminal`` (stop at the first crossing) and
    ``direction`` (crossings upwards only) off the event callable."""

    level: float
    terminal: bool = True
    direction: int = 1

    def __call__(self, _t: float, v: np.ndarray) -> float:
        return v[0] - self.level


def hitting_time(k: int, v_target: float, v0: float = 1.0, *, rtol: float = 1e-12, atol: float = 1e-14) -> float:
    """First t with v(t) = v_target for dv_i/dt = prod_{j != i} v_j, v_i(0) = v0 (solve_ivp terminal event).

    Parameters
    ----------
    k : int
        Number of blocks.
    v_target : float
        The level to reach, >= v0.
    v0 : float
        The equal initial value, > 0 as in ``theory.polynet.flow_time`` (from v0 <= 0 the flow never reaches a
        positive level).
    rtol, atol : float
        Tolerances of ``solve_ivp``.

    Returns
    -------
    float
        The hitting time.

    Examples
    --------
    Against :math:`t(v) = (v_0^{2-k} - v^{2-k})/(k-2)` (``theory.polynet.flow_time``):

    >>> from theory import polynet as tpn
    >>> abs(hitting_time(3, 2.0) - float(tpn.flow_time(2, 3))) < 1e-9, tpn.flow_time(2, 3)
    (True, Fraction(1, 2))
    >>> hitting_time(3, 0.5)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: v_target must be >= v0 = 1.0, got 0.5
    """
    k = _check_flow_k(k)
    v_target, v0 = (
        check_real(v_target, "v_target", what="a finite number"),
        check_real(v0, "v0", positive=True, what="a finite number"),
    )
    rtol, atol = _tolerances(rtol, atol)
    if v_target < v0:
        raise InputError(f"v_target must be >= v0 = {v0}, got {v_target}", param="v_target")
    if v_target == v0:
        return 0.0

    def rhs(_t, v):
        return np.array([np.prod(np.delete(v, i)) for i in range(v.size)])

    event = _Reaches(v_target)
    t_end = 1.0
    while True:
        sol = solve_ivp(rhs, (0.0, t_end), np.full(k, float(v0)), method="DOP853", events=event, rtol=rtol, atol=atol)
        if sol.t_events[0].size:
            return float(sol.t_events[0][0])
        if not sol.success or t_end > 1e6:
            raise ValueError(f"v did not reach {v_target} (solver: {sol.message})")
        t_end *= 4


def flow_time_quad(k: int, v_from: float, v_to: float) -> float:
    """Time for the equal-init flow to go from v_from to v_to: int_{v_from}^{v_to} dv / v^(k-1) (dv/dt = v^(k-1)),
    by adaptive quadrature (scipy quad, relative 1e-13) in u = ln v, int e^{(2-k) u} du, a smooth integrand over levels
    of any range (over v itself quad returned 0 for k = 5 from 1 to 1e300, whose value is 1/3: its nodes missed the
    mass near v = 1); stable up to the blow-up, unlike stepping the ODE. A quadrature that does not converge, or a time
    beyond the float range, is refused (:func:`numerics._quadrature.converged_quad`).

    Parameters
    ----------
    k : int
        Number of blocks.
    v_from, v_to : float
        The levels, ``0 < v_from <= v_to``.

    Returns
    -------
    float
        The time between the two levels.

    Examples
    --------
    >>> from theory import polynet as tpn
    >>> round(flow_time_quad(3, 1.0, 4.0), 13), tpn.flow_time(4, 3)
    (0.75, Fraction(3, 4))
    """
    k = _check_flow_k(k)
    v_from, v_to = (
        check_real(v_from, "v_from", what="a finite number"),
        check_real(v_to, "v_to", what="a finite number"),
    )
    if not 0 < v_from <= v_to:
        raise InputError(f"need 0 < v_from <= v_to, got {v_from}, {v_to}", param="v_from")
    with np.errstate(over="ignore"):  # e^{(2-k) u} beyond the float range is inf: refused as an overflow
        return converged_quad(
            lambda u: float(np.exp((2.0 - k) * u)),
            math.log(v_from),
            math.log(v_to),
            epsrel=1e-13,
            param="v_from",
            what=f"the flow time from v_from = {v_from} to v_to = {v_to} for k = {k}",
            hint="theory.polynet.flow_time gives it exactly",
        )


def plateau_numeric(k: int, n_prime: int, eps: float = 0.49) -> dict:
    """Float oracle for Thm 5.7 at v0 = 1, odd n': scan v = 1, 2, ..., n' (even v: atoms of U, odd v: the open
    interval around it), v* = inf{v: err <= eps}, then T(eps), T(0) by quadrature of dt = dv/v^(k-1).

    Returns ``{"v_star", "T_eps", "T_0", "ratio"}`` with ratio = 1 - T_eps/T_0.

    Parameters
    ----------
    k : int
        Number of blocks, >= 3.
    n_prime : int
        Odd block width n' >= 3.
    eps : float
        Error level in [0, 1/2).

    Returns
    -------
    dict of str to float
        ``v_star`` (first v with error <= eps), ``v_zero`` (first v with error 0), ``T_eps``, ``T_0`` and ``ratio``.

    Examples
    --------
    Against the exact ``theory.polynet.plateau_ratio``:

    >>> from theory import polynet as tpn
    >>> r = plateau_numeric(3, 11)
    >>> float(r["v_star"]), float(r["v_zero"]), round(r["ratio"], 12), tpn.plateau_ratio(3, 11)
    (2.0, 10.0, 0.444444444444, Fraction(4, 9))
    >>> plateau_numeric(3, 10)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: plateau_numeric needs odd n' >= 3, got 10
    """
    n_prime = check_count(n_prime, "n_prime", message=f"plateau_numeric needs odd n' >= 3, got {n_prime!r:.80}")
    if n_prime % 2 == 0 or n_prime < 3:
        raise InputError(f"plateau_numeric needs odd n' >= 3, got {n_prime}", param="n_prime")
    _check_block_width(n_prime)
    k = check_count(k, "k", message=f"Thm 5.7 assumes k >= 3 (for k = 2 the flow is exponential), got k = {k!r:.80}")
    if k < 3:
        raise InputError(f"Thm 5.7 assumes k >= 3 (for k = 2 the flow is exponential), got k = {k!r}", param="k")
    _check_flow_k(k)
    eps = check_real(eps, "eps", what="an error level in [0, 1/2)")
    if not 0 <= eps < 0.5:
        raise InputError(f"eps must lie in [0, 1/2) (an error level below chance), got eps = {eps!r}", param="eps")
    vs = np.arange(1, n_prime + 1, dtype=np.float64)
    err = equal_init_error_float(vs, k, n_prime)
    log_b, log_c = _log_block_probs(vs, n_prime - 1)
    zero = np.isneginf(log_b) & np.isneginf(log_c)  # err = 0 exactly (no wrong block, no zero output)

    def v_star(e: float) -> float:
        ok = zero if e == 0 else err <= e
        j = int(np.argmax(ok))
        if not ok[j]:
            raise ValueError("error never reaches eps")  # pragma: no cover - the last point has err 0
        v = vs[j]
        return v if v % 2 == 0 else max(1.0, v - 1)  # interval (v-1, v+1): infimum v-1 (or v0 = 1)

    v_eps, v_0 = float(v_star(eps)), float(v_star(0.0))  # plain floats (vs holds np.float64)
    t_eps, t_0 = flow_time_quad(k, 1.0, v_eps), flow_time_quad(k, 1.0, v_0)
    # 1 - T_eps/T_0 = (T_0 - T_eps)/T_0, the difference integrated directly (no cancellation)
    return {"v_star": v_eps, "v_zero": v_0, "T_eps": t_eps, "T_0": t_0, "ratio": flow_time_quad(k, v_eps, v_0) / t_0}


def perturbed_neuron_weights(n: int, s: int, eps: float) -> np.ndarray:
    """w in {eps, 1}^n with ones on S' = {0..s-1} (App. C.2.4 init, first s coordinates).

    Parameters
    ----------
    n : int
        Dimension.
    s : int
        Number of ones, ``0 <= s <= n``.
    eps : float
        The other weights.

    Returns
    -------
    float64 array (n,)
        The weights.

    Examples
    --------
    >>> perturbed_neuron_weights(5, 2, 0.1).tolist()
    [1.0, 1.0, 0.1, 0.1, 0.1]
    """
    n = check_count(n, "n", minimum=0, why="dimension")
    s = check_count(s, "s", minimum=0, why="number of ones")
    if not s <= n:
        raise InputError(f"need 0 <= s <= n, got s = {s}, n = {n}", param="s")
    eps = check_real(eps, "eps", what="a finite number")
    check_cost(n, MAX_DIMENSION, param="n", value=n, what="the dimension", hint="the transforms need n <= 26")
    check_allocation(array_bytes(n), param="n", value=n, what="the weights (n,)")
    w = np.full(n, float(eps))
    w[:s] = 1.0
    return w


def _check_nks(n: object, k: object, s: object) -> tuple[int, int, int]:
    """0 <= s <= k <= n (S' inside S inside [n]) and n <= numerics.walsh.MAX_N (a dense transform over {±1}^n)."""
    n_int = check_count(n, "n", minimum=0, why="dimension")
    k_int = check_count(k, "k", minimum=0, why="parity order")
    s_int = check_count(s, "s", minimum=0, why="number of unit weights")
    if not s_int <= k_int <= n_int:
        raise InputError(
            f"need 0 <= s <= k <= n (S' inside S inside [n]), got s = {s}, k = {k}, n = {n}",
            param="s" if s_int > k_int else "k",
        )
    nw._check_n(n_int)
    return n_int, k_int, s_int


@fill_doc(_DOC)
def perturbed_neuron_correlation(n: int, k: int, s: int, eps: float, b: float = 0.0) -> np.ndarray:
    r"""E[ReLU'(w.x + b) x_i chi_S(x)] for S = {0..k-1}, w = perturbed_neuron_weights (float64 transform).

    This is the quantity of Lemmas C.13-C.15 (= minus the correlation-loss gradient of numerics.walsh).
    Needs 0 <= s <= k <= n and a finite eps >= 0 (App. C.2.4's perturbation).

    Parameters
    ----------
    {{perturbed}}
    eps : float
        The other weights.
    b : float
        Bias.

    Returns
    -------
    float64 array (n,)
        The correlation :math:`\xi_i` of every coordinate.

    Examples
    --------
    Lemma C.15's good neuron (``theory.sparse_init.good_neuron_correlations``): 0 on S', then two values on
    S \ S' and outside S:

    >>> from theory import sparse_init as tsi
    >>> xi = perturbed_neuron_correlation(7, 4, 2, 0.01)
    >>> (xi * 32).round(12).tolist()
    [0.0, 0.0, -3.0, -3.0, 1.0, 1.0, 1.0]
    >>> [str(v) for v in tsi.good_neuron_correlations(7, 4, 2)]
    ['0', '0', '-3/32', '-3/32', '1/32', '1/32', '1/32']
    """
    n, k, s = _check_nks(n, k, s)
    eps = check_real(eps, "eps", what="finite and >= 0 (the perturbation of the irrelevant weights)")
    if not eps >= 0:
        raise InputError(
            f"eps (the perturbation of the irrelevant weights) must be finite and >= 0, got {eps!r}", param="eps"
        )
    b = check_real(b, "b", what="a finite number")
    w = perturbed_neuron_weights(n, s, eps)
    grad_w, _ = nw.population_gradient(nw.relu_prime, w, b, range(k))
    return -grad_w


@fill_doc(_DOC)
def perturbed_neuron_correlation_exact(
    n: int, k: int, s: int, eps: Fraction, b: Fraction = Fraction(0)
) -> list[Fraction]:
    r"""The same correlation exactly: w and b are scaled by the denominator of eps (the sign of w.x + b is
    unchanged) and fed to the integer transform of numerics.walsh.population_gradient_exact.

    Parameters
    ----------
    {{perturbed}}
    eps : Fraction
        The other weights.
    b : Fraction
        Bias.

    Returns
    -------
    list of Fraction (n,)
        The correlation :math:`\xi_i` of every coordinate.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory import sparse_init as tsi
    >>> eps = tsi.perturbation_epsilon(7, 4, 2)
    >>> eps, perturbed_neuron_correlation_exact(7, 4, 2, eps) == tsi.good_neuron_correlations(7, 4, 2)
    (Fraction(1, 10), True)
    """
    n, k, s = _check_nks(n, k, s)
    eps, b = check_rational(eps, "eps"), check_rational(b, "b")
    if eps < 0:
        raise InputError(f"eps (the perturbation of the irrelevant weights) must be >= 0, got {eps}", param="eps")
    q = eps.denominator
    w_int = [q] * s + [eps.numerator] * (n - s)
    grad_w, _ = nw.population_gradient_exact(w_int, b * q, range(k))
    return [-g for g in grad_w]


# --------------------------------------------------------------------------------------------------
# Thm 5.8 (App. B.2.4): online SGD with the adaptive rate, seeds batched
# --------------------------------------------------------------------------------------------------
SGD_CHUNK = 2048
"""Steps whose samples are drawn at once (per seed, from its own generator: a seed's run does not depend on the
other seeds of the batch)."""


def _others_product(A: np.ndarray) -> np.ndarray:
    """prod_{j != i} A[..., j] along the last axis, without division (block outputs can be exactly 0)."""
    k = A.shape[-1]
    if k == 2:
        return A[..., ::-1]
    out = np.ones_like(A)
    for i in range(k):
        for j in range(k):
            if j != i:
                out[..., i] *= A[..., j]
    return out


def polynet_sgd_interval_ends(steps: int, intervals: int) -> np.ndarray:
    """The update counts closing the ``min(intervals, steps)`` intervals of :func:`polynet_sgd` (about equal lengths,
    the last one ``steps``).

    Parameters
    ----------
    steps : int
        The updates of the run.
    intervals : int
        The intervals asked for.

    Returns
    -------
    int array
        The closing update counts, increasing.

    Examples
    --------
    >>> polynet_sgd_interval_ends(10, 4).tolist()
    [2, 5, 8, 10]
    """
    steps = check_count(steps, "steps", why="SGD updates")
    check_work(steps, param="steps", value=steps, what="the updates T", hint="fewer steps")
    intervals = min(check_count(intervals, "intervals", why="intervals"), steps)
    check_allocation(array_bytes(intervals + 1), "intervals", intervals, "the interval ends")
    return np.linspace(0, steps, intervals + 1).round().astype(int)[1:]


def polynet_sgd_init(k: int, n_prime: int, seed: int) -> np.ndarray:
    """Thm 5.8's initialisation, conditioned on its event: i.i.d. uniform ±1 weights (k, n') from
    ``numpy.random.default_rng(seed)``, then, if prod_i w_{i,1} < 0, w_{1,1} negated. Flipping one sign is a bijection
    from the negative-product draws to the positive ones, so the result is uniform on {prod_i w_{i,1} > 0}: the
    initialisations the theorem's probability-1/2 event keeps.

    Parameters
    ----------
    k, n_prime : int
        Blocks and block width.
    seed : int
        The seed.

    Returns
    -------
    float64 array (k, n')
        The ±1 weights, ``prod(W[:, 0]) > 0``.

    Examples
    --------
    >>> W = polynet_sgd_init(3, 4, 0)
    >>> W.shape, bool(np.prod(W[:, 0]) > 0), sorted(set(W.ravel().tolist()))
    ((3, 4), True, [-1.0, 1.0])
    """
    seed = check_seed(seed)
    k = check_count(k, "k", why="number of blocks")
    n_prime = check_count(n_prime, "n_prime", why="block width")
    check_allocation(
        array_bytes(k, n_prime), "k" if k >= n_prime else "n_prime", max(k, n_prime), "the weights (k x n' float64)"
    )
    W = np.random.default_rng([seed, 0]).choice([-1.0, 1.0], size=(k, n_prime))
    if np.prod(W[:, 0]) < 0:
        W[0, 0] = -W[0, 0]
    return W


def polynet_sgd(
    W0: np.ndarray, steps: int, rate_scale: float, seeds: Sequence[int], *, batch_size: int = 1, intervals: int = 64
) -> dict:
    r"""Online SGD on the disjoint-PolyNet with the correlation loss and Thm 5.8's adaptive rate, seeds batched.

    Step t (Edelman thesis, proof of Thm 5.8, App. B.2.4): a fresh batch of B uniform x with y = prod_i x_{P_i,1};
    :math:`\hat g_i = -\frac1B\sum_b y_b(\prod_{j\ne i}\langle w_j, x_{b,P_j}\rangle)x_{b,P_i}`,
    :math:`\eta_i = s/\prod_{l\ne i}\|w_l\|_1`, :math:`w_i \leftarrow w_i - \eta_i\hat g_i` (every block with the
    weights before the step).

    Parameters
    ----------
    W0 : float array (E, k, n')
        Initial weights per seed.
    steps : int
        T, the updates run.
    rate_scale : float
        s > 0.
    seeds : sequence of int
        One sample stream per seed (``numpy.random.default_rng([seed, 1])``), E of them.
    batch_size : int
        B >= 1.
    intervals : int
        The run is cut into this many intervals of about equal length; the extremes of the invariants are kept per
        interval and the weights at each interval's end.

    Returns
    -------
    dict
        ``ends`` (intervals,) the update count at each interval's end; ``weights`` (intervals, E, k, n') the weights
        after those updates; ``irrelevant_max`` (intervals, E) the largest |w_{i,j}|, j > 1, seen in the interval;
        ``relevant_min`` (intervals, E) the smallest sign(w_{i,1}^(1)) w_{i,1} seen in the interval (over blocks).

    Examples
    --------
    >>> W0 = np.stack([polynet_sgd_init(2, 3, s) for s in (0, 1)])
    >>> out = polynet_sgd(W0, 100, 0.01, (0, 1), intervals=4)
    >>> out["ends"].tolist(), out["weights"].shape, bool((out["relevant_min"] > 0.9).all())
    ([25, 50, 75, 100], (4, 2, 2, 3), True)
    """
    W = _array(W0, "W0", 3).copy()
    E, k, m = W.shape
    seeds = list(seeds)
    if len(seeds) != E:
        raise InputError(f"need one seed per initial weight matrix: {len(seeds)} seeds for E = {E}", param="seeds")
    steps = check_count(steps, "steps", why="SGD updates")
    batch_size = check_count(batch_size, "batch_size", why="batch size")
    ends = polynet_sgd_interval_ends(steps, intervals)
    intervals = len(ends)
    s = check_real(rate_scale, "rate_scale", positive=True)
    check_allocation(
        array_bytes(SGD_CHUNK, batch_size, E, k, m), "batch_size", batch_size, "one chunk of SGD samples (float64)"
    )
    check_work(
        steps * (batch_size * E * k * m + STEP_COST),
        param="steps",
        value=steps,
        what="the SGD run T (B E k n' + STEP_COST)",
        hint="fewer steps, seeds or a smaller batch",
    )
    gens = [np.random.default_rng([seed, 1]) for seed in seeds]
    xi = np.sign(W[:, :, 0])
    out_w = np.empty((intervals, E, k, m))
    irr_max = np.zeros((intervals, E))
    rel_min = np.full((intervals, E), np.inf)
    buf = np.empty((SGD_CHUNK, E, k, m))
    t = 0
    while t < steps:
        c = min(SGD_CHUNK, steps - t)
        X = np.stack([2.0 * g.integers(0, 2, size=(c, batch_size, k, m)) - 1.0 for g in gens], axis=2)  # c,B,E,k,m
        Y = np.prod(X[..., 0], axis=-1)[..., None]  # c,B,E,1
        for a in range(c):
            x = X[a]
            coef = Y[a] * _others_product((x * W).sum(axis=-1))  # B,E,k: y prod_{j != i} <w_j, x_j>
            step = (s / batch_size) / _others_product(np.abs(W).sum(axis=-1))  # E,k: eta_i / B
            W += ((step * coef)[..., None] * x).sum(axis=0)  # w_i - eta_i g_i, g_i = -mean_b coef x
            buf[a] = W
        done = np.arange(t + 1, t + c + 1)  # update counts of the chunk's rows
        which = np.searchsorted(ends, done)  # the interval of each row
        for j in np.unique(which):
            rows = buf[:c][which == j]
            if m > 1:
                irr_max[j] = np.maximum(irr_max[j], np.abs(rows[:, :, :, 1:]).max(axis=(0, 2, 3)))
            rel_min[j] = np.minimum(rel_min[j], (xi * rows[:, :, :, 0]).min(axis=(0, 2)))
            if ends[j] <= t + c:
                out_w[j] = buf[ends[j] - t - 1]
        t += c
    return {"ends": ends, "weights": out_w, "irrelevant_max": irr_max, "relevant_min": rel_min}


# --------------------------------------------------------------------------------------------------
# Thm 5.7 (full statement): gradient flow from any initialisation (N(0, 1) draws)
# --------------------------------------------------------------------------------------------------
MAX_BLOCK_INPUTS = 2**21
"""Largest 2^n' of :func:`block_error` (the inputs of one block enumerated; 2^21 x n' floats per block)."""


@functools.lru_cache(maxsize=4)
def _cube(n_prime: int) -> np.ndarray:
    """All 2^n' points of {±1}^n' as rows (float64; cached, read-only)."""
    idx = np.arange(2**n_prime)[:, None]
    X = 1.0 - 2.0 * ((idx >> np.arange(n_prime)) & 1)
    X.setflags(write=False)
    return X


def block_error(W) -> float:
    r"""The exact 0-1 error :math:`P_x[\mathrm{sign} f(x; W) \ne \chi_S(x)]` over all 2^(k n') inputs, computed block
    by block: each block's output :math:`o_i = \langle w_i, x_{P_i}\rangle` is evaluated on all 2^n' points of its
    block, and since the blocks' inputs are independent,
    :math:`P[f \ne 0] = \prod_i P[o_i \ne 0]` and :math:`E[\mathrm{sign}(f)\chi_S] = \prod_i E[\mathrm{sign}(o_i)
    x_{P_i,1}]`, so :math:`\mathrm{err} = P[f = 0] + (P[f \ne 0] - E[\mathrm{sign}(f)\chi_S])/2` (an output 0 is an
    error, Lemma B.9). Equal to :func:`error_bruteforce`, at cost k 2^n' instead of 2^(k n').

    Parameters
    ----------
    W : float array (k, n')
        Block weights, ``2^n' <= MAX_BLOCK_INPUTS``; column 0 holds the relevant weights.

    Returns
    -------
    float
        The 0-1 error.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.random.default_rng(0).normal(size=(3, 4))
    >>> bool(abs(block_error(W) - error_bruteforce(W)) < 1e-12)
    True
    >>> block_error(np.ones((3, 3)))
    0.4375
    """
    W = _array(W, "W", 2)
    if W.shape[0] < 1 or W.shape[1] < 1:
        raise InputError(f"W must have shape (k, n') with k, n' >= 1, got {W.shape}", param="W")
    _check_flow_k(W.shape[0], "W")
    check_cost(
        W.shape[1],
        math.log2(MAX_BLOCK_INPUTS),
        param="W",
        value=W.shape[1],
        what="the block width n' (2^n' inputs per block)",
        hint="smaller blocks",
    )
    X = _cube(W.shape[1])
    O = W @ X.T  # (k, 2^n')
    nonzero = np.mean(O != 0, axis=1)
    corr = np.mean(np.sign(O) * X[:, 0], axis=1)
    p_nonzero, p_corr = float(np.prod(nonzero)), float(np.prod(corr))
    return (1.0 - p_nonzero) + (p_nonzero - p_corr) / 2


def _sorted_block_sums(W: np.ndarray) -> list[np.ndarray]:
    """Per block, the sorted values of U_i = <u_i, z> over all 2^(n'-1) points z of the block's irrelevant
    coordinates (u_i = W[i, 1:]), by one product with the cube."""
    X = _cube(W.shape[1] - 1) if W.shape[1] > 1 else np.zeros((1, 0))
    return [np.sort(X @ W[i, 1:]) for i in range(W.shape[0])]


def _error_from_sums(v: np.ndarray, sums: list[np.ndarray]) -> float:
    """:func:`block_error` of the weights with relevant weights ``v`` and block sums ``sums`` (:func:`_sorted_block_sums`):
    block i's output on (x_1, z) is x_1 v_i + U_i(z), so over its 2^n' inputs P[o_i != 0] = 1 - (#{U = -v} + #{U = v})
    / 2^n' and E[sign(o_i) x_1] = (E sign(v + U) - E sign(-v + U))/2, counted in the sorted sums."""

    def count(U: np.ndarray, a: float, side: Literal["left", "right"]) -> int:
        return int(np.searchsorted(U, a, side=side))

    def esign(U: np.ndarray, a: float) -> float:  # E_z sign(a + U(z))
        return (U.size - count(U, -a, "right") - count(U, -a, "left")) / U.size

    p_nonzero, p_corr = 1.0, 1.0
    for vi, U in zip(v, sums):
        zeros = count(U, -vi, "right") - count(U, -vi, "left") + count(U, vi, "right") - count(U, vi, "left")
        p_nonzero *= 1.0 - zeros / (2 * U.size)
        p_corr *= (esign(U, vi) - esign(U, -vi)) / 2
    return (1.0 - p_nonzero) + (p_nonzero - p_corr) / 2


def _flow_rhs_full(W_shape: tuple[int, int]):
    """dW/dt = -E[grad_W (-chi_S f)] for the flattened W: the population gradient of Sec. 5.4.2 is
    -(prod_{j != i} v_j) e_1 (checked by brute force: population_gradient_bruteforce), so only column 0 moves."""

    k, m = W_shape

    def rhs(_t: float, w: np.ndarray) -> np.ndarray:
        v = w[::m].tolist()  # column 0 of the (k, n') matrix
        G = np.zeros(k * m)
        G[::m] = [math.prod(v[:i] + v[i + 1 :]) for i in range(k)]  # no division: a v_j may be exactly 0
        return G

    return rhs


def flow_error_crossings(
    W0, levels: Sequence[float], *, rtol: float = 1e-12, atol: float = 1e-14, grid: int = 64, tol: float = 1e-13
) -> dict:
    r"""Gradient flow :math:`\dot W = -\nabla_W E[-\chi_S f]` (population correlation loss) of a disjoint-PolyNet from
    ``W0``, and the first times its exact 0-1 error is at most each level.

    The flow of all k n' weights (the population gradient of Sec. 5.4.2, :math:`-(\prod_{j\ne i} v_j) e_1`, which
    :func:`population_gradient_bruteforce` checks) is integrated by ``solve_ivp`` (DOP853, dense output) until every
    block has :math:`|v_i| > \|u_i\|_1` by a margin of 1e-9 (1 + max_i ||u_i||_1) (then no block output can be 0 or
    have the wrong sign: the error is 0; a terminal event). The irrelevant weights get no gradient: the run checks on
    its grid that they did not move, and the error (:func:`block_error`'s, over all 2^(k n') inputs) is counted in
    each block's sorted sums :math:`U_i(z) = \langle u_i, z\rangle` over its 2^(n'-1) irrelevant patterns. It is
    read on ``grid`` + 1 equally spaced times of that span (recorded, with whether it never increased there; refused
    before the integration, LimitError naming ``grid``, when ``(grid + 1) (6 + 5 k) STEP_COST`` exceeds
    :func:`numerics.limits.max_work`: a grid time is two dense-output evaluations and 8 searches per block, 0.1-0.2 ms
    on a loaded 2-core machine), and the
    first time it is <= a level is then bisected to ``tol`` relative inside the first grid interval where the grid's
    error is <= the level (the error is non-increasing along the flow away from the isolated instants where a
    relevant weight equals an atom of :math:`U_i`).

    Parameters
    ----------
    W0 : float array (k, n')
        The initial weights, ``prod_i W0[i, 0] > 0`` and k >= 3 (finite blow-up time).
    levels : sequence of float
        Error levels in [0, 1/2).
    rtol, atol : float, optional
        Tolerances of ``solve_ivp``.
    grid : int, optional
        Grid intervals of the monotonicity read (default 64).
    tol : float, optional
        Relative precision of the bisected times, in [2^-52, 1) (float64's; default 1e-13).

    Returns
    -------
    dict
        ``times`` (first time the error is <= each level), ``t_zero_event`` (the event time), ``grid_t``,
        ``grid_err``, ``monotone`` (the grid's error never increased), ``irrelevant_moved`` (max change of the
        irrelevant weights on the grid: 0, a move raises ValueError).

    Examples
    --------
    All-ones init, k = 3, n' = 5: v(t) = 1/(1 - t); the error is 0 once v > 4 (t = 3/4):

    >>> import numpy as np
    >>> out = flow_error_crossings(np.ones((3, 5)), [0.0])
    >>> round(out["times"][0], 9), out["monotone"]
    (0.75, True)
    """
    W0 = _array(W0, "W0", 2)
    k, m = W0.shape
    if k < 3:
        raise InputError(f"the flow blows up in finite time only for k >= 3, got k = {k}", param="W0")
    _check_flow_k(k, "W0")
    v0 = W0[:, 0]
    if np.any(v0 == 0) or np.sum(v0 < 0) % 2:
        raise InputError("the flow needs prod_i v_i(0) > 0 (Thm 5.7 conditions on it)", param="W0")
    lv = [check_real(x, "levels") for x in levels]
    if not lv or any(not 0 <= x < 0.5 for x in lv):
        raise InputError(f"levels must be a non-empty list of errors in [0, 1/2), got {levels!r:.80}", param="levels")
    rtol, atol = _tolerances(rtol, atol)
    tol = check_real(tol, "tol", what="a relative precision in [2^-52, 1)")
    if not float(np.finfo(np.float64).eps) <= tol < 1:  # below float64's precision the bisection could not get there
        raise InputError(f"tol must be a relative precision in [2^-52, 1), got {tol!r}", param="tol")
    grid = check_count(grid, "grid", why="grid intervals")
    check_work(
        (grid + 1) * (6 + 5 * k) * STEP_COST,
        param="grid",
        value=grid,
        what=f"the error read on the grid ((grid + 1) (6 + 5 k) STEP_COST, k = {k} blocks)",
        hint="use a smaller grid (the crossings are bisected to tol between grid times)",
    )
    l1 = np.abs(W0[:, 1:]).sum(axis=1)
    margin = 1e-9 * (1.0 + float(l1.max()))  # just past |v_i| = ||u_i||_1, where an output can still be 0

    def done(_t: float, w: np.ndarray) -> float:
        return float(np.min(np.abs(w.reshape(k, m)[:, 0]) - l1)) - margin

    done.terminal = True  # type: ignore[attr-defined]
    done.direction = 1  # type: ignore[attr-defined]
    if done(0.0, W0.ravel()) > 0:
        raise InputError("every block already has |v_i| > ||u_i||_1: the error is 0 at t = 0", param="W0")
    t_cap = 1.0
    while True:  # the blow-up time is finite (k >= 3); widen the span until the event fires
        sol = solve_ivp(
            _flow_rhs_full((k, m)),
            (0.0, t_cap),
            W0.ravel(),
            method="DOP853",
            dense_output=True,
            events=done,
            rtol=rtol,
            atol=atol,
        )
        if sol.status == 1:
            break
        if not sol.success and sol.status != 0:
            raise ValueError(f"solve_ivp failed: {sol.message}")
        t_cap *= 4
        if t_cap > 1e12:
            raise ValueError("the flow did not reach zero error by t = 1e12")
    t_end = float(sol.t_events[0][0])

    def W_at(t: float) -> np.ndarray:
        return sol.sol(t).reshape(k, m) if t < t_end else sol.y_events[0][0].reshape(k, m)

    grid_t = np.linspace(0.0, t_end, grid + 1)
    moved = float(max(np.max(np.abs(W_at(float(t))[:, 1:] - W0[:, 1:]), initial=0.0) for t in grid_t))
    if moved > 0:  # the population gradient of an irrelevant weight is 0: they cannot move
        raise ValueError(f"an irrelevant weight moved by {moved:g} along the flow")
    sums = _sorted_block_sums(W0)

    def error(t: float) -> float:
        return _error_from_sums(W_at(t)[:, 0], sums)

    grid_err = np.array([error(float(t)) for t in grid_t])
    times = []
    for level in lv:
        if grid_err[0] <= level:
            times.append(0.0)
            continue
        j = int(np.argmax(grid_err <= level))  # grid_err[-1] = 0 <= level
        lo, hi = float(grid_t[j - 1]), float(grid_t[j])
        while hi - lo > tol * max(hi, 1e-300):
            mid = 0.5 * (lo + hi)
            if error(mid) <= level:
                hi = mid
            else:
                lo = mid
        times.append(hi)
    return {
        "times": times,
        "t_zero_event": t_end,
        "grid_t": grid_t.tolist(),
        "grid_err": grid_err.tolist(),
        "monotone": bool(np.all(np.diff(grid_err) <= 1e-12)),
        "irrelevant_moved": moved,
    }


def gaussian_init(k: int, n_prime: int, seed: int) -> np.ndarray:
    """Thm 5.7's initialisation conditioned on its event: i.i.d. N(0, 1) weights (k, n') from
    ``numpy.random.default_rng(seed)``, with w_11 negated when prod_i w_i1 < 0 (a bijection onto the event
    prod_i v_i(0) > 0 that keeps the law: the exact conditional law). Block sizes are nested: the (k, n') draw is the
    first n' columns of the (k, N) draw for any N >= n' (paired seeds across n').

    Parameters
    ----------
    k : int
        Blocks.
    n_prime : int
        Block size.
    seed : int
        Seed.

    Returns
    -------
    float64 array (k, n')
        The weights.

    Examples
    --------
    >>> W = gaussian_init(3, 5, 0)
    >>> bool(np.prod(W[:, 0]) > 0), bool(np.all(gaussian_init(3, 9, 0)[:, :5] == W))
    (True, True)
    """
    k = _check_flow_k(k)
    n_prime = check_count(n_prime, "n_prime", why="block size")
    check_allocation(array_bytes(k, n_prime), "n_prime", n_prime, "the weights (k, n')")
    rng = np.random.default_rng(check_seed(seed))
    v = rng.normal(size=k)
    U = np.column_stack([rng.normal(size=k) for _ in range(n_prime - 1)]) if n_prime > 1 else np.zeros((k, 0))
    if np.prod(v) < 0:
        v[0] = -v[0]
    return np.column_stack([v, U])
