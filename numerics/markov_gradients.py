r"""The minimal model of Edelman thesis Sec. 8.2.3 and its population gradients, numerically (float64 numpy/scipy).

Independent observations for the exact results of ``theory/markov.py`` (``docs/markov.md``):

* :func:`minimal_model_logits`: the forward pass ``f(E) = mask(E W_k (M E)^T) E`` of Eq. (8.8) / (E.2), for Fact 8.3;
* :func:`construction_outputs`: the two-layer attention-only transformer of Prop. 8.2 (softmax attention, relative
  position vectors ``v_{i-j+1}``), for its output;
* :func:`lemma84_quadrature`, :func:`K_quadrature`: the integrals of Lemma 8.4 / E.1 by ``scipy.integrate.dblquad``
  of their *definitions* (``pi`` from the balance equation, matrix powers), not of the printed integrands;
* :func:`finite_t_gradients`: the exact finite-t population gradients of the first step (Eqs. (E.13), (E.26)-(E.28))
  and the diagonal-bias profile of the second step (Eqs. (E.30)-(E.38)), by Gauss-Legendre quadrature over (a, b)
  and matrix powers; :func:`two_step_v` combines them into ``v^(2)``;
* :func:`sample_v_gradients`: the per-sequence v-gradient whose mean is the population one (Monte Carlo, Cor. E.2);
* :func:`last_token_kl`: a strategy's KL at the last token on sampled chains (App. E.2's metric);
* :func:`derive_markov`: the summary printed by ``tvk derive markov`` (strategy KLs, step-1 / step-2 coefficients);
* :func:`two_state_strategy_kl_quadrature`: the k = 2 strategies' KLs at the last token at finite t, by a sum over
  transition-count classes (counted by runs, :func:`two_state_classes_by_runs`) of Gauss-Legendre integrals over
  (a, b), and ``dblquad`` for the entropy term (:func:`expected_row_entropy_quadrature`).

Setting of the gradients (Lemma E.1): k = 2, margin loss (8.7) with every hinge active (``Delta`` large), so
``-dL/dtheta = (1/t) sum_{p=1}^{t} E[grad f_{p, x_{p+1}} - (1/k) sum_i grad f_{p,i}]``; the chain is stationary
(``x_1 ~ pi``). At ``W_k = c 11^T, v = c 1`` the first-step gradients are ``c G^W`` and ``c G^V``; the second-step
v-gradient at ``W_k = c' 11^T + (rho - c') I`` is ``c' G^V + (rho - c') G^I``.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np
import sympy
from scipy import integrate

from theory import markov as tm
from theory._checks import InputError, LimitError, check_cost, format_count
from theory._docstrings import fill_doc

from .limits import STEP_COST, array_bytes, check_allocation, check_count, check_real, check_real_array, check_work
from .markov import _DOC as _MARKOV_DOC
from .markov import kl, mc_strategy_kl, stationary, strategy_probs, true_next

__all__ = [
    "MAX_DERIVE_K",
    "MAX_DERIVE_T",
    "MAX_GRADIENT_WORK",
    "MAX_K_LAG",
    "MAX_NODES",
    "MAX_QUADRATURE_COUNT",
    "MAX_QUADRATURE_T",
    "CurriculumRun",
    "FiniteTGradients",
    "K_quadrature",
    "bilinear_gradient_tensor",
    "construction_outputs",
    "curriculum_nodes",
    "curriculum_two_steps",
    "derive_markov",
    "duffy_nodes",
    "expected_kl_quadrature",
    "expected_row_entropy_quadrature",
    "finite_t_gradients",
    "hinge_margin_needed",
    "last_token_kl",
    "lemma84_quadrature",
    "minimal_model_logits",
    "population_step",
    "posterior_mean_quadrature",
    "richardson_limit",
    "sample_v_gradients",
    "symmetric_nodes",
    "two_state_classes_by_runs",
    "two_state_strategy_kl_quadrature",
    "two_step_v",
]


MAX_K_LAG = 64
"""Largest lag j of :func:`K_quadrature` (a matrix power P^(j-1) at every node of ``dblquad``: about 8 s at j = 64)."""
MAX_NODES = 2000
"""Largest number of Gauss-Legendre nodes per axis of :func:`duffy_nodes` / :func:`symmetric_nodes` (``leggauss``
solves an eigenproblem of this size)."""
MAX_GRADIENT_WORK = 10**8
"""Largest (number of nodes) x (t + 1) matrix powers of :func:`finite_t_gradients` (about 2 minutes; the uniform prior
reaches it near t = 560, ``verify`` uses t <= 400)."""
MAX_QUADRATURE_COUNT = 10**6
"""Largest transition count of :func:`posterior_mean_quadrature` / :func:`expected_kl_quadrature` (the integrand
p^c is resolved by ``quad`` only for moderate c; the closed forms of theory.markov hold for any count)."""

#: The (P, seqs) Parameters of :mod:`numerics.markov`, shared with its docstrings (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {"chains": _MARKOV_DOC["chains"]}


def _check_nodes(t: object, extra: object) -> tuple[int, int]:
    t_int = check_count(t, "t", minimum=0, why="context length")
    extra_int = check_count(extra, "extra", minimum=0, why="nodes per axis beyond t // 2")
    check_cost(
        t_int // 2,
        MAX_NODES,
        param="t",
        value=t_int,
        what="the number of Gauss-Legendre nodes per axis t // 2",
        hint="use a shorter context",
    )
    check_cost(
        t_int // 2 + extra_int,
        MAX_NODES,
        param="extra",
        value=extra_int,
        what="the number of Gauss-Legendre nodes per axis t // 2 + extra",
        hint="use fewer extra nodes",
    )
    return t_int, extra_int


# --- Eq. (8.8) / (E.2): the minimal model; Fact 8.3


def _one_hot(seqs: np.ndarray, k: int) -> np.ndarray:
    x = np.asarray(seqs)
    if x.ndim != 2 or x.size == 0 or not np.issubdtype(x.dtype, np.integer) or x.min() < 0 or x.max() >= k:
        raise InputError(f"seqs must be an (n, t) array of tokens in range({k})", param="seqs")
    check_allocation(array_bytes(k, k), param="k", value=k, what="the one-hot table (k, k)")
    check_allocation(3 * array_bytes(*x.shape, k), param="seqs", value=x.shape, what="the one-hot tokens (n, t, k)")
    return np.eye(k)[x]


def minimal_model_logits(seqs: np.ndarray, W: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``f(E) = mask(E W_k (M E)^T) E`` for every sequence, ``(n, t, k)`` (Eq. (8.8)).

    ``M`` is lower-triangular Toeplitz, ``M[t', s] = v_{t'-s+1}``; the causal mask keeps ``t' <= p``.

    Parameters
    ----------
    seqs : int array (n, t)
        Sequences of tokens in ``range(k)``.
    W : float array (k, k)
        :math:`W_k`.
    v : float array (t,)
        The relative-position weights :math:`v_1..v_t`.

    Returns
    -------
    float64 array (n, t, k)
        The logits :math:`f_{p,i}` at every position.

    Examples
    --------
    Fact 8.3: with :math:`W_k = I`, :math:`v = e_2` the logits are the exact bigram counts of
    ``theory.markov.bigram_logits``:

    >>> import numpy as np
    >>> from theory import markov as tmk
    >>> seq = [0, 0, 1, 0, 2, 0, 0, 1, 2, 0]
    >>> f = minimal_model_logits(np.array([seq]), np.eye(3), np.eye(10)[1])
    >>> f[0, -1].tolist(), f[0].astype(int).tolist() == tmk.bigram_logits(seq, 3)
    ([2.0, 2.0, 1.0], True)
    >>> minimal_model_logits(np.array([[0, 1, 0]]), np.eye(2), np.zeros(2))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: need W (k, k) and v (t,), got (2, 2) and (2,) for t = 3
    """
    W = check_real_array(W, "W")
    v = check_real_array(v, "v")
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 1:
        raise InputError(f"need W (k, k) and v (t,), got {W.shape} and {v.shape}", param="W")
    k = W.shape[0]
    x = np.asarray(seqs)
    t = x.shape[1] if x.ndim == 2 else 0
    if v.shape != (t,):
        raise InputError(f"need W (k, k) and v (t,), got {W.shape} and {v.shape} for t = {t}", param="v")
    check_allocation(
        4 * array_bytes(max(x.shape[0], 1), t, t), param="seqs", value=x.shape, what="the scores (n, t, t)"
    )
    E = _one_hot(seqs, k)
    lag = np.arange(t)[:, None] - np.arange(t)[None, :]
    M = np.where(lag >= 0, v[np.clip(lag, 0, t - 1)], 0.0)
    ME = np.einsum("ts,nsk->ntk", M, E)
    scores = np.einsum("npk,kl,nql->npq", E, W, ME)  # [p, t'] = e_{x_p}^T W (M E)_{t'}
    scores = np.where(lag[None] >= 0, scores, 0.0)
    return np.einsum("npq,nqi->npi", scores, E)


# --- Prop. 8.2: the two-layer construction


def _attention(z: np.ndarray, WQ: np.ndarray, WK: np.ndarray, WV: np.ndarray, vpos: np.ndarray) -> np.ndarray:
    """Causal softmax attention with relative position vectors (Eq. (8.5)): ``A_ij = (z_i W_Q)(z_j W_K + v_{i-j+1})^T
    / sqrt(d)`` for ``j <= i``; returns ``softmax(A) z W_V``."""
    _n, t, d = z.shape
    q, key = z @ WQ, z @ WK
    lag = np.arange(t)[:, None] - np.arange(t)[None, :]
    rel = vpos[np.clip(lag, 0, t - 1)]  # (t, t, d): v_{i-j+1} at [i, j]
    scores = (np.einsum("nid,njd->nij", q, key) + np.einsum("nid,ijd->nij", q, rel)) / np.sqrt(d)
    scores = np.where(lag[None] >= 0, scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    att = np.exp(scores)
    att /= att.sum(axis=-1, keepdims=True)
    return att @ (z @ WV)


def construction_outputs(seqs: np.ndarray, k: int, c: float = 40.0) -> np.ndarray:
    """The output (block 3) of the two-layer attention-only transformer of Prop. 8.2, ``(n, t, k)``.

    ``d = 3k``, one-hot embeddings in block 1. Layer 1: ``W_Q = c I`` on block 1, ``W_K = 0``,
    ``v_r = 1{r = 2} (1_k, 0, 0)``, ``W_V`` copies block 1 to block 2 (attend to the previous token). Layer 2:
    ``W_Q = c I`` on block 1, ``W_K`` maps block 2 to block 1 with ``c I``, ``v = 0``, ``W_V`` copies block 1 to
    block 3 (attend to the successors of earlier copies of the current token). Residual connections as in (8.4).

    Parameters
    ----------
    seqs : int array (n, t)
        Sequences of tokens in ``range(k)``.
    k : int
        Number of states.
    c : float
        Scale of the query and key maps (the softmax approaches hard attention as c grows).

    Returns
    -------
    float64 array (n, t, k)
        Block 3 of the last residual stream at every position.

    Examples
    --------
    Where a transition leaves the current token, the output is the normalised bigram frequency of Prop. 8.2
    (``theory.markov.normalised_bigram_frequencies``), up to the softmax's leakage at c = 40:

    >>> import numpy as np
    >>> from theory import markov as tmk
    >>> seq = [0, 0, 1, 0, 2, 0, 0, 1, 2, 0]
    >>> out = construction_outputs(np.array([seq]), 3)
    >>> exact = tmk.normalised_bigram_frequencies(seq, 3)
    >>> [str(v) for v in exact[-1]], out[0, -1].round(3).tolist()
    (['1/2', '1/3', '1/6'], [0.5, 0.333, 0.167])
    >>> all(np.allclose(out[0, p], [float(v) for v in e], atol=1e-3) for p, e in enumerate(exact) if e is not None)
    True
    """
    k = check_count(k, "k", minimum=1, why="number of states")
    c = check_real(c, "c")
    # k alone first: its weights are refused whatever the sequences (the message then names k on any machine)
    check_allocation(8 * array_bytes(3 * k, 3 * k), param="k", value=k, what="the weights (3k, 3k)")
    x = np.asarray(seqs)
    if x.ndim == 2:
        check_allocation(
            4 * array_bytes(max(x.shape[0], 1), x.shape[1], x.shape[1])
            + 2 * array_bytes(x.shape[1], x.shape[1], 3 * k),
            param="seqs",
            value=x.shape,
            what="the attention scores (n, t, t) and relative positions (t, t, 3k)",
        )
    E = _one_hot(seqs, k)
    n, t, _ = E.shape
    d = 3 * k
    b1, b2, b3 = slice(0, k), slice(k, 2 * k), slice(2 * k, 3 * k)
    z = np.zeros((n, t, d))
    z[:, :, b1] = E
    WQ = np.zeros((d, d))
    WQ[b1, b1] = c * np.eye(k)
    WV1 = np.zeros((d, d))
    WV1[b1, b2] = np.eye(k)
    v1 = np.zeros((t, d))
    if t > 1:
        v1[1, b1] = 1.0  # v_2 (the relative position one back)
    z = z + _attention(z, WQ, np.zeros((d, d)), WV1, v1)
    WK2 = np.zeros((d, d))
    WK2[b2, b1] = c * np.eye(k)
    WV2 = np.zeros((d, d))
    WV2[b1, b3] = np.eye(k)
    z = z + _attention(z, WQ, WK2, WV2, np.zeros((t, d)))
    out = z[:, :, b3]
    if not np.isfinite(out).all():
        raise InputError(f"the attention scores overflow float64 at c = {c:.3g}; use a moderate scale", param="c")
    return out


# --- Lemma 8.4 / E.1: the integrals from their definitions


def _chain(a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """P of Eq. (E.1) and its stationary law from the balance equation ``pi_1 P_12 = pi_2 P_21``."""
    P = np.array([[a, 1.0 - a], [1.0 - b, b]])
    pi = np.array([P[1, 0], P[0, 1]]) / (P[1, 0] + P[0, 1])
    return P, pi


def _w_coefficient(m: int, l: int):
    """``E[pi_m pi_l sum_i (P_mi - 1/2) pi_i]``: the coefficient of ``(t+1)(t+2)/6`` in W^(1)_{ml} (from (E.13))."""

    def f(b: float, a: float) -> float:
        P, pi = _chain(a, b)
        return float(pi[m] * pi[l] * np.dot(P[m] - 0.5, pi))

    return f


def _k_integrand(j: int):
    """``sum_{l,i} pi_l^2 (P^{j-1})_{li} (P_li - 1/2)``: the coefficient of ``(t-j+1)(t-j+2)/(2t)`` in G^I_j."""

    def f(b: float, a: float) -> float:
        P, pi = _chain(a, b)
        Pj = np.linalg.matrix_power(P, j - 1)
        return float(np.sum(pi[:, None] ** 2 * Pj * (P - 0.5)))

    return f


def _collision(b: float, a: float) -> float:
    _, pi = _chain(a, b)
    return float(np.sum(pi**2))


_QUAD = {"epsabs": 1e-13, "epsrel": 1e-12}


def _dblquad(f) -> float:
    return float(integrate.dblquad(f, 0.0, 1.0, 0.0, 1.0, **_QUAD)[0])


def lemma84_quadrature(name: str) -> float:
    r"""A Lemma 8.4 integral by ``scipy.integrate.dblquad`` of its definition (not of the printed integrand):
    ``"E.24"``: ``E[pi_1^2 sum_i (P_1i - 1/2) pi_i]``; ``"E.25"``: ``E[pi_1 pi_2 sum_i (P_1i - 1/2) pi_i]``;
    ``"E.29-collision"``: ``E[pi_1^2 + pi_2^2]``; ``"D"``: collision minus 1/2; ``"E.42"``: ``K_1``.

    Parameters
    ----------
    name : str
        ``"E.24"``, ``"E.25"``, ``"E.29-collision"``, ``"D"`` or ``"E.42"``.

    Returns
    -------
    float
        The integral over :math:`(a, b) \in [0, 1]^2` (absolute tolerance 1e-13).

    Examples
    --------
    Each integral takes 0.5-2 s of ``dblquad``, so the comparison with the closed form is not run here
    (``tests/numerics/test_markov_gradients.py`` runs it):

    >>> from theory import markov as tmk
    >>> tmk.lemma84_closed_form("D")
    3/2 - 2*log(2)
    >>> abs(lemma84_quadrature("D") - float(tmk.lemma84_closed_form("D"))) < 1e-12  # doctest: +SKIP
    True
    >>> lemma84_quadrature("E.99")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: unknown Lemma 8.4 integral 'E.99'
    """
    if not isinstance(name, str) or name not in ("E.24", "E.25", "E.29-collision", "D", "E.42"):
        raise InputError(f"unknown Lemma 8.4 integral {name!r:.80}", param="name")
    if name == "E.24":
        return _dblquad(_w_coefficient(0, 0))
    if name == "E.25":
        return _dblquad(_w_coefficient(0, 1))
    if name == "E.29-collision":
        return _dblquad(_collision)
    if name == "D":
        return lemma84_quadrature("E.29-collision") - 0.5
    if name == "E.42":
        return K_quadrature(1)
    raise AssertionError(name)  # pragma: no cover - checked above


def K_quadrature(j: int) -> float:
    """``K_j = E[sum_{l,i} pi_l^2 (P^{j-1})_{li} (P_li - 1/2)]`` by ``dblquad`` (the definition behind (E.39)-(E.40)).

    Parameters
    ----------
    j : int
        The lag, >= 1.

    Returns
    -------
    float
        :math:`K_j` (absolute tolerance 1e-13).

    Examples
    --------
    Each integral takes 1-2 s of ``dblquad``, so the comparison with the exact ``theory.markov.K`` is not run here:

    >>> import sympy
    >>> K2 = sympy.Rational(8, 3) - sympy.Rational(11, 3) * sympy.log(2)  # theory.markov.K(2)
    >>> abs(K_quadrature(2) - float(K2)) < 1e-12  # doctest: +SKIP
    True
    >>> K_quadrature(0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: j must be >= 1, got 0
    """
    j = check_count(j, "j", message=f"j must be >= 1, got {j!r:.80}")
    check_cost(
        j,
        MAX_K_LAG,
        param="j",
        value=j,
        what="the lag (a matrix power P^(j-1) at every quadrature node)",
        hint="theory.markov.K(j) gives K_j exactly",
    )
    return _dblquad(_k_integrand(j))


# --- Eqs. (E.13), (E.26)-(E.28), (E.30)-(E.38): exact finite-t population gradients


def duffy_nodes(t: int, extra: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Gauss-Legendre nodes ``(a, b)`` and weights on ``[0, 1]^2`` for the finite-t integrands.

    With ``u = 1 - a``, ``w = 1 - b`` each triangle ``u >= w`` / ``w >= u`` is mapped to the unit square by the Duffy
    transform ``(u, w) = (x, x y)`` (Jacobian x). There ``pi = (y, 1)/(1 + y)`` and P is polynomial in (x, x y), so the
    integrand is a polynomial of degree <= t + 2 in x and y times a power of ``1/(1 + y)``: ``t/2 + extra`` nodes per
    axis integrate it exactly up to rounding (the rational factor converges geometrically).

    Parameters
    ----------
    t : int
        Context length (sets the polynomial degree).
    extra : int
        Nodes per axis beyond ``t // 2``.

    Returns
    -------
    a, b, weights : float64 arrays (2 n^2,)
        The nodes and weights, n = ``t // 2 + extra``; the weights sum to 1.

    Examples
    --------
    The collision probability :math:`E[\pi_1^2 + \pi_2^2] = 2 - \ln 4` (Eq. (E.29)), a rational integrand:

    >>> import numpy as np
    >>> a, b, w = duffy_nodes(4)
    >>> a.shape, round(float(w.sum()), 12), round(float(w @ (a * b)), 12)
    ((648,), 1.0, 0.25)
    >>> pi1, pi2 = (1 - b) / (2 - a - b), (1 - a) / (2 - a - b)
    >>> abs(float(w @ (pi1**2 + pi2**2)) - (2 - float(np.log(4)))) < 1e-12
    True
    """
    t, extra = _check_nodes(t, extra)
    n = t // 2 + extra
    if n < 1:
        raise InputError("need at least one node per axis (t // 2 + extra >= 1)", param="extra")
    g, wg = np.polynomial.legendre.leggauss(n)
    g, wg = (g + 1) / 2, wg / 2
    x, y = np.meshgrid(g, g, indexing="ij")
    wxy = np.outer(wg, wg) * x
    u, w = x.ravel(), (x * y).ravel()
    a = np.concatenate([1 - u, 1 - w])
    b = np.concatenate([1 - w, 1 - u])
    return a, b, np.concatenate([wxy.ravel(), wxy.ravel()])


def symmetric_nodes(t: int, extra: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes for ``a = b ~ U(0, 1)`` (Cor. E.2): the integrand is a polynomial of degree <= t + 2.

    Parameters
    ----------
    t : int
        Context length (sets the polynomial degree).
    extra : int
        Nodes beyond ``t // 2``.

    Returns
    -------
    a, b, weights : float64 arrays (n,)
        Nodes on (0, 1) (``b`` a copy of ``a``) and weights summing to 1, n = ``t // 2 + extra``.

    Examples
    --------
    >>> a, b, w = symmetric_nodes(4)
    >>> a.shape, bool((a == b).all()), round(float(w.sum()), 12), round(float(w @ a**3), 12)
    ((18,), True, 1.0, 0.25)
    """
    t, extra = _check_nodes(t, extra)
    if t // 2 + extra < 1:
        raise InputError("need at least one node (t // 2 + extra >= 1)", param="extra")
    g, wg = np.polynomial.legendre.leggauss(t // 2 + extra)
    a = (g + 1) / 2
    return a, a.copy(), wg / 2


@dataclass(frozen=True)
class FiniteTGradients:
    """Population gradients at context length t (k = 2), integrated over the prior of (a, b).

    ``GW``: ``-dL/dW_k`` at ``W_k = c 11^T, v = c 1`` divided by c, ``(2, 2)``; ``GV``: ``-dL/dv_j`` at
    ``W_k = 11^T``, ``(t,)`` (so ``(v^(1) - c)/(c eta) = GV``); ``GI``: ``-dL/dv_j`` at ``W_k = I``, ``(t,)`` (the
    diagonal-bias profile of the second step). Units: ``(W^(1) - c 11^T)/(c eta) = GW``.

    Attributes
    ----------
    t : int
        Context length.
    GW : float64 array (2, 2)
        First-step W gradient over c.
    GV : float64 array (t,)
        First-step v gradient, j = 1..t.
    GI : float64 array (t,)
        Second-step diagonal-bias v gradient, j = 1..t.

    Examples
    --------
    >>> import numpy as np
    >>> g = finite_t_gradients(8)
    >>> g.t, g.GW.shape, g.GV.shape, g.GI.shape
    (8, (2, 2), (8,), (8,))
    >>> g.GW.round(6).tolist()  # symmetric with equal diagonal (App. E.1)
    [[0.862954, 0.076372], [0.076372, 0.862954]]
    """

    t: int
    GW: np.ndarray
    GV: np.ndarray
    GI: np.ndarray


def _ramp(X: np.ndarray) -> np.ndarray:
    """``R_r = sum_{w=0}^{r-1} (r - w) X_w`` for r = 1..T along axis 1 (two cumulative sums)."""
    return np.cumsum(np.cumsum(X, axis=1), axis=1)


def _matrix_powers(P: np.ndarray, t: int) -> np.ndarray:
    """The powers ``P^0 = I, P^1, ..., P^t`` of every matrix of a batch, shape (N, t + 1, k, k).

    By repeated right products, ``P^n = P^(n-1) P``: the n-step transition probabilities
    ``(P^n)_li = Pr[x_(s+n) = i | x_s = l]`` of the chains, the terms of the stationary-chain sums of App. E.

    Parameters
    ----------
    P : np.ndarray, shape (N, k, k)
        A batch of transition matrices.
    t : int
        The highest power, >= 0.

    Returns
    -------
    np.ndarray, shape (N, t + 1, k, k)
        ``[:, n]`` is ``P^n``.
    """
    N, k, _ = P.shape
    pw = np.empty((N, t + 1, k, k))
    pw[:, 0] = np.eye(k)
    for n in range(1, t + 1):
        pw[:, n] = pw[:, n - 1] @ P
    return pw


def _gradients_at(P: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-matrix ``GW (N, 2, 2)``, ``GV (N, t)``, ``GI (N, t)`` by matrix powers (stationary chain, k = 2).

    ``GW_ml = (1/t) sum_i (P_mi - 1/k) pi_l sum_{u+w <= t-1} (t-u-w) (P^u)_li (P^w)_im`` (Eq. (E.13));
    ``GV_j = (1/t) sum_{w=0}^{t-j} (t-j+1-w) [sum_i pi_i (P^{w+1})_ii - 1/k]`` (Eqs. (E.26)-(E.28));
    ``GI_j = (1/t) sum_{l,i} pi_l (P^{j-1})_li (P_li - 1/k) sum_{w=0}^{t-j} (t-j+1-w) (P^w)_il`` (Eqs. (E.30)-(E.35)).
    """
    k = P.shape[1]
    pi = stationary(P)
    pw = _matrix_powers(P, t)
    R = _ramp(pw[:, :t])  # R[:, r-1] = R_r, r = 1..t
    dev = P - 1.0 / k
    # GW: sum_u (P^u)_li (R_{t-u})_im, u = 0..t-1
    conv = np.einsum("nuli,nuim->nlim", pw[:, :t], R[:, ::-1])
    GW = np.einsum("nmi,nl,nlim->nml", dev, pi, conv) / t
    h = np.einsum("ni,nwii->nw", pi, pw[:, 1 : t + 1]) - 1.0 / k  # h_{w+1}, w = 0..t-1
    Rh = _ramp(h)  # Rh[:, r-1] = sum_{w<r} (r-w) h_{w+1}
    GV = Rh[:, ::-1] / t  # j = 1..t uses r = t-j+1
    GI = np.einsum("nl,njli,nli,njil->nj", pi, pw[:, :t], dev, R[:, ::-1]) / t
    return GW, GV, GI


def _node_batches(t: int, prior: str, chunk: int, half_width: float = 0.0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The quadrature nodes of ``prior`` ('uniform': :func:`duffy_nodes`, 'symmetric': :func:`symmetric_nodes`,
    'curriculum': :func:`curriculum_nodes` of half-width ``half_width``) in batches of ``chunk``: pairs ``(P, w)`` of
    the transition matrices ``P = [[a, 1 - a], [1 - b, b]]``, shape (batch, 2, 2), and their weights."""
    if prior == "uniform":
        a, b, wts = duffy_nodes(t)
    elif prior == "symmetric":
        a, b, wts = symmetric_nodes(t)
    else:
        a, b, wts = curriculum_nodes(t, half_width)
    for s in range(0, a.size, chunk):
        aa, bb = a[s : s + chunk], b[s : s + chunk]
        yield np.stack([np.stack([aa, 1 - aa], -1), np.stack([1 - bb, bb], -1)], axis=1), wts[s : s + chunk]


def _check_node_work(t: int, prior: str, chunk: int, what: str, hint: str, *, arrays: int, held: str) -> None:
    """Check, before any node is formed, the work and the memory of the matrix powers at the quadrature nodes
    :func:`_node_batches` yields for ``prior`` at context length ``t``: their ``t + 1`` matrix powers each stay
    within :data:`MAX_GRADIENT_WORK` (LimitError naming ``t``), and ``arrays`` float64 arrays of the shape
    ``(batch, t + 1, 2, 2)`` of one batch of ``min(chunk, nodes)`` nodes fit in memory (LimitError naming ``chunk``).

    The node rules take ``per_axis = t // 2 + 16`` Gauss-Legendre nodes per axis (their default ``extra``; ``t // 2``
    capped at :data:`MAX_NODES`, beyond which the rules refuse ``t`` themselves): :func:`duffy_nodes` maps the square
    to each of the two triangles of ``[0, 1]^2``, ``2 per_axis^2`` nodes ('uniform'); the one-dimensional priors
    ('symmetric', 'curriculum') use ``per_axis`` nodes.

    Parameters
    ----------
    t : int
        Context length, >= 2.
    prior : str
        'uniform', 'symmetric' or 'curriculum'.
    chunk : int
        Nodes per batch.
    what : str
        The computation, for the message of the work limit.
    hint : str
        What to do instead of the computation.
    arrays : int
        How many arrays of the batch's shape the computation holds at once.
    held : str
        What it holds besides the matrix powers, for the message of the memory limit (``" and their sums"``).
    """
    per_axis = min(t // 2, MAX_NODES) + 16
    nodes = 2 * per_axis**2 if prior == "uniform" else per_axis
    check_cost(
        nodes * (t + 1),
        MAX_GRADIENT_WORK,
        param="t",
        value=t,
        what=f"{what} ({format_count(nodes)} nodes x t + 1 matrix powers)",
        hint=hint,
    )
    check_allocation(
        arrays * array_bytes(min(chunk, nodes), t + 1, 2, 2),
        param="chunk",
        value=chunk,
        what=f"the matrix powers of a batch of nodes (chunk, t + 1, 2, 2){held}",
        hint="use a smaller chunk",
    )


def finite_t_gradients(t: int, prior: str = "uniform", chunk: int = 2048) -> FiniteTGradients:
    """The exact finite-t gradients integrated over ``a, b ~ U(0, 1)`` (``prior="uniform"``, Lemma E.1) or over
    ``a = b ~ U(0, 1)`` (``prior="symmetric"``, Cor. E.2), by :func:`duffy_nodes` / :func:`symmetric_nodes` and
    matrix powers (:class:`FiniteTGradients`). Cost: O(t^3) for the uniform prior (O(t^2) nodes x O(t) powers).

    Parameters
    ----------
    t : int
        Context length, >= 2.
    prior : str
        ``"uniform"`` or ``"symmetric"``.
    chunk : int
        Nodes per batch.

    Returns
    -------
    FiniteTGradients
        ``GW``, ``GV``, ``GI`` at this t.

    Examples
    --------
    Under the symmetric prior the first-step v update equals the exact Cor. E.2 sums
    (``theory.markov.cor_e2_v_update``):

    >>> import numpy as np
    >>> from theory import markov as tmk
    >>> g = finite_t_gradients(8, prior="symmetric")
    >>> tmk.cor_e2_v_update(8, 1), round(float(g.GV[0]), 9), round(61 / 252, 9)
    (61/252, 0.242063492, 0.242063492)
    >>> bool(np.allclose(g.GV, [float(tmk.cor_e2_v_update(8, j)) for j in range(1, 9)], rtol=0, atol=1e-12))
    True
    >>> finite_t_gradients(8, prior="dirichlet")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: prior must be 'uniform' or 'symmetric', got 'dirichlet'
    """
    t = check_count(t, "t", minimum=2, message=f"t must be >= 2, got {t!r:.80}")
    chunk = check_count(chunk, "chunk", why="nodes per batch")
    if not isinstance(prior, str) or prior not in ("uniform", "symmetric"):
        raise InputError(f"prior must be 'uniform' or 'symmetric', got {prior!r:.80}", param="prior")
    _check_node_work(
        t,
        prior,
        chunk,
        "the finite-t gradients",
        "theory.markov gives the leading orders in t (step1_W_leading, step1_v_leading, step2_diag_leading)",
        arrays=12,
        held=" and their sums",
    )
    GW, GV, GI = np.zeros((2, 2)), np.zeros(t), np.zeros(t)
    for P, ww in _node_batches(t, prior, chunk):
        gw, gv, gi = _gradients_at(P, t)
        GW += np.einsum("n,nml->ml", ww, gw)
        GV += ww @ gv
        GI += ww @ gi
    return FiniteTGradients(t, GW, GV, GI)


def two_step_v(grads: FiniteTGradients, c: float, eta: float) -> np.ndarray:
    """``v^(2)`` after two population GD steps from ``W_k = c 11^T, v = c 1`` (all hinges active):
    ``W^(1) = c 11^T + c eta GW = c' 11^T + (rho - c') I`` (GW symmetric with equal diagonal, App. E.1), then
    ``v^(2) = v^(1) + eta (c' GV + (rho - c') GI)`` with ``v^(1) = c + c eta GV``.

    Parameters
    ----------
    grads : FiniteTGradients
        The gradients at context length t (:func:`finite_t_gradients`).
    c : float
        The initial value of every entry of :math:`W_k` and v.
    eta : float
        The step size.

    Returns
    -------
    float64 array (t,)
        :math:`v^{(2)}_j`, j = 1..t.

    Examples
    --------
    >>> import numpy as np
    >>> g = finite_t_gradients(8)
    >>> bool(np.allclose(two_step_v(g, 2.0, 0.0), 2.0))  # no step, no change
    True
    >>> two_step_v(g, 1.0, 0.1)[:3].round(4).tolist()
    [1.117, 1.0921, 1.0686]
    """
    if not isinstance(grads, FiniteTGradients):
        raise InputError(f"grads must be a FiniteTGradients (finite_t_gradients), got {grads!r:.80}", param="grads")
    c, eta = check_real(c, "c"), check_real(eta, "eta")
    GW = grads.GW
    c_prime = c + c * eta * 0.5 * (GW[0, 1] + GW[1, 0])
    gap = c * eta * (0.5 * (GW[0, 0] + GW[1, 1]) - 0.5 * (GW[0, 1] + GW[1, 0]))
    v1 = c + c * eta * grads.GV
    v2 = v1 + eta * (c_prime * grads.GV + gap * grads.GI)
    if not np.isfinite(v2).all():
        raise InputError(f"v^(2) overflows float64 at c = {c:.3g}, eta = {eta:.3g}", param="eta")
    return v2


# --- Monte Carlo: the per-sequence v-gradient


def sample_v_gradients(seqs: np.ndarray, k: int) -> np.ndarray:
    """``-dL/dv_j`` at ``W_k = 11^T`` for each sequence (its mean over chains is ``GV``), ``(n, t)``.

    ``seqs`` holds ``t + 1`` tokens (the targets run to ``x_{t+1}``); per sequence
    ``g_j = (1/t) sum_{p=j}^{t} [#{t' in [j, p]: x_t' = x_{p+1}} - (p - j + 1)/k]`` (Eqs. (E.8), (E.26)), computed with
    running counts in O(t k).

    Parameters
    ----------
    seqs : int array (n, t+1)
        Sequences of tokens in ``range(k)``, the last token the final target.
    k : int
        Number of states.

    Returns
    -------
    float64 array (n, t)
        The per-sequence gradient, j = 1..t.

    Examples
    --------
    Its mean over stationary chains is the population gradient ``GV`` of :func:`finite_t_gradients`:

    >>> import numpy as np
    >>> from numerics.markov import sample_sequences, sample_transition_matrices
    >>> rng = np.random.default_rng(0)
    >>> x = sample_sequences(sample_transition_matrices(2, 20000, rng=rng), 9, rng)
    >>> g = sample_v_gradients(x, 2)
    >>> se = g.std(axis=0, ddof=1) / np.sqrt(len(g))
    >>> g.shape, bool(np.all(np.abs(g.mean(axis=0) - finite_t_gradients(8).GV) < 4 * se))
    ((20000, 8), True)
    """
    k = check_count(k, "k", minimum=2, why="number of states")
    x = np.asarray(seqs)
    if x.ndim != 2 or x.shape[1] < 2:
        raise InputError(f"seqs must be an (n, t + 1) array of tokens with t >= 1, got shape {x.shape}", param="seqs")
    E = _one_hot(seqs, k)
    n, t1, _ = E.shape
    t = t1 - 1
    cnt = np.concatenate([np.zeros((n, 1, k)), np.cumsum(E[:, :t], axis=1)], axis=1)  # cnt[:, q] = counts in x_1..x_q
    Y = E[:, 1:]  # one-hot of y_p = x_{p+1}, p = 1..t
    a = np.einsum("npi,npi->np", Y, cnt[:, 1:])  # cnt_{y_p}(p)
    suffix_a = np.cumsum(a[:, ::-1], axis=1)[:, ::-1]  # sum_{p >= j}
    suffix_y = np.cumsum(Y[:, ::-1], axis=1)[:, ::-1]  # #{p >= j: y_p = i}
    minus = np.einsum("nji,nji->nj", cnt[:, :t], suffix_y)  # sum_i cnt_i(j-1) #{p >= j: y_p = i}
    j = np.arange(1, t + 1)
    return (suffix_a - minus - (t - j + 1) * (t - j + 2) / (2 * k)) / t


@fill_doc(_DOC)
def last_token_kl(P: np.ndarray, seqs: np.ndarray, strategy: str) -> np.ndarray:
    """``KL(P_{x_t,:} || q_t)`` per sequence, where ``q_t`` is ``strategy``'s prediction after ``x_1..x_t`` (App. E.2:
    the test loss is the KL from the true next-token law at the last token).

    Parameters
    ----------
    {{chains}}
    strategy : str
        One of ``numerics.markov.STRATEGIES``.

    Returns
    -------
    float64 array (n,)
        The KL (nats) of each sequence.

    Examples
    --------
    The mean over chains against the exact ``theory.markov.two_state_strategy_kl``:

    >>> import numpy as np
    >>> from numerics.markov import sample_sequences, sample_transition_matrices
    >>> from theory import markov as tmk
    >>> rng = np.random.default_rng(0)
    >>> P = sample_transition_matrices(2, 20000, rng=rng)
    >>> v = last_token_kl(P, sample_sequences(P, 8, rng), "bigram")
    >>> bool(abs(v.mean() - float(tmk.two_state_strategy_kl(8, "bigram"))) < 4 * v.std(ddof=1) / np.sqrt(len(v)))
    True
    """
    try:
        P_arr = np.asarray(P, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"P must be an (n, k, k) array of transition matrices, got {P!r:.80}", param="P") from None
    if P_arr.ndim != 3 or P_arr.shape[1] != P_arr.shape[2]:
        raise InputError(f"transition matrices must have shape (n, k, k), got {P_arr.shape}", param="P")
    truth = true_next(P_arr, seqs)[:, -1]
    q = strategy_probs(seqs, P_arr.shape[1], strategy)[:, -1]
    return kl(truth, q)


# --- Eqs. (8.1)-(8.3): the posterior of one row by quadrature over the simplex (k = 2 or 3)


def _simplex_expectation(weights: np.ndarray, fn) -> float:
    """``int fn(p) prod_j p_j^{w_j - 1} dp / int prod_j p_j^{w_j - 1} dp`` over the simplex (k = 2 or 3), by
    ``scipy.integrate.quad`` / ``dblquad``: the posterior expectation under prior x likelihood, with no Dirichlet
    algebra."""
    w = np.asarray(weights, dtype=np.float64)

    def density(p: np.ndarray) -> float:
        return float(np.prod(p ** (w - 1.0)))

    if w.size == 2:

        def one(x: float, g) -> float:
            p = np.array([x, 1.0 - x])
            return g(p) * density(p)

        num = integrate.quad(one, 0.0, 1.0, args=(fn,), epsabs=1e-14, epsrel=1e-12, limit=200)[0]
        den = integrate.quad(one, 0.0, 1.0, args=(lambda p: 1.0,), epsabs=1e-14, epsrel=1e-12, limit=200)[0]
        return num / den
    if w.size == 3:

        def two(y: float, x: float, g) -> float:
            p = np.array([x, y, max(1.0 - x - y, 0.0)])
            return g(p) * density(p)

        opts = {"epsabs": 1e-14, "epsrel": 1e-11}
        num = integrate.dblquad(two, 0.0, 1.0, 0.0, lambda x: 1.0 - x, args=(fn,), **opts)[0]
        den = integrate.dblquad(two, 0.0, 1.0, 0.0, lambda x: 1.0 - x, args=(lambda p: 1.0,), **opts)[0]
        return num / den
    raise ValueError(f"quadrature over the simplex is implemented for k = 2 and 3, got k = {w.size}")


def _check_counts_row(counts_row: Any) -> np.ndarray:
    """One row of transition counts ``c_{i,:}``: 2 or 3 non-negative integers (the quadrature is over the simplex of
    k = 2 or 3 states), as float64."""
    c = np.asarray(counts_row, dtype=object).ravel()
    if c.size not in (2, 3):
        raise InputError(
            f"counts_row must hold k = 2 or 3 counts (quadrature over the simplex), got {c.size}", param="counts_row"
        )
    for v in c:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
            raise InputError(
                f"counts_row must hold non-negative integer transition counts, got {list(c)}", param="counts_row"
            )
    check_cost(
        int(max(c)),
        MAX_QUADRATURE_COUNT,
        param="counts_row",
        value=int(max(c)),
        what="the largest transition count (the integrand p^c)",
        hint="theory.markov.posterior_mean and expected_kl_given_counts are exact for any count",
    )
    return c.astype(np.float64)


def posterior_mean_quadrature(counts_row: Any, alpha: Any) -> np.ndarray:
    r"""``E[P_ij | x]`` for one row: prior ``Dir(alpha)`` times the likelihood ``prod_j P_ij^{c_ij}``, integrated.

    ``counts_row``: 2 or 3 non-negative integers; ``alpha``: as many finite positive Dirichlet parameters.

    Parameters
    ----------
    counts_row : sequence of int
        Transition counts :math:`c_{i,:}` (k = 2 or 3).
    alpha : sequence of float
        Dirichlet parameters, one per count.

    Returns
    -------
    float64 array (k,)
        The posterior mean of row i.

    Examples
    --------
    Equal to (8.3) as corrected, :math:`(c_{ij} + \alpha_j)/(N_i + \sum_l \alpha_l)` (``theory.markov.posterior_mean``):

    >>> posterior_mean_quadrature([3, 1, 0], [1, 1, 1]).round(12).tolist()
    [0.571428571429, 0.285714285714, 0.142857142857]
    >>> from theory import markov as tmk
    >>> [str(v) for v in tmk.posterior_mean([[3, 1, 0], [0, 0, 0], [0, 0, 0]], [1, 1, 1])[0]]
    ['4/7', '2/7', '1/7']
    >>> posterior_mean_quadrature([1, 1, 1, 1], [1, 1, 1, 1])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: counts_row must hold k = 2 or 3 counts (quadrature over the simplex), got 4
    """
    c = _check_counts_row(counts_row)
    try:
        al = np.asarray(alpha, dtype=np.float64).ravel()
    except (TypeError, ValueError, OverflowError):
        al = np.full(1, np.nan)
    if al.shape != c.shape or not np.all(np.isfinite(al) & (al > 0)):
        raise InputError(
            f"alpha must hold {c.size} finite positive Dirichlet parameters, got {alpha!r:.80}", param="alpha"
        )
    check_cost(
        float(al.max()),
        MAX_QUADRATURE_COUNT,
        param="alpha",
        value=float(al.max()),
        what="the largest Dirichlet parameter (the integrand p^(alpha - 1))",
        hint="theory.markov.posterior_mean is exact",
    )
    out = np.array([_simplex_expectation(c + al, lambda p, j=j: p[j]) for j in range(c.size)])
    _check_quadrature(out, "the posterior mean")
    return out


def _check_quadrature(value: float | np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(value)):
        raise InputError(
            f"{what} underflows in the quadrature (large counts); theory.markov gives it exactly", param="counts_row"
        )


def expected_kl_quadrature(counts_row: Any) -> float:
    """``E[KL(P_{i,:} || q) | c]`` under the flat prior, ``q_j = (c_ij + 1)/(N_i + k)``, by quadrature
    (``counts_row``: 2 or 3 non-negative integers).

    Parameters
    ----------
    counts_row : sequence of int
        Transition counts :math:`c_{i,:}` (k = 2 or 3).

    Returns
    -------
    float
        The expected KL in nats.

    Examples
    --------
    Against the digamma closed form ``theory.markov.expected_kl_given_counts``:

    >>> from theory import markov as tmk
    >>> abs(expected_kl_quadrature([3, 1]) - float(tmk.expected_kl_given_counts([3, 1]))) < 1e-12
    True
    """
    c = _check_counts_row(counts_row)
    q = (c + 1.0) / (c.sum() + c.size)

    def kl_to_q(p: np.ndarray) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.sum(np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)))

    value = _simplex_expectation(c + 1.0, kl_to_q)
    _check_quadrature(value, "the expected KL")
    return value


# --- App. E.2: the k = 2 strategies' KLs at the last token by quadrature (an observation for theory's exact sums)

#: Largest t of :func:`two_state_strategy_kl_quadrature` (O(t^4) work: about 5 s at t = 100, 25 s at t = 150).
MAX_QUADRATURE_T = 150


def two_state_classes_by_runs(t: int) -> np.ndarray:
    """Every class ``(x_1, x_t, c_00, c_01, c_10, c_11, count)`` of k = 2 sequences of length t (0-based tokens,
    ``c_ij`` the transitions i -> j), ``(n_classes, 7)`` object array of Python ints (the counts overflow int64 for t > 60).

    Counted by runs, not by dynamic programming: a sequence is ``S = c_01 + c_10`` switches between runs that alternate
    from ``x_1``; the ``n_0 = c_00 + r_0`` zeros fill the ``r_0`` runs of zeros in ``C(n_0 - 1, r_0 - 1)`` ways, the ones
    likewise.

    Parameters
    ----------
    t : int
        Sequence length, >= 2.

    Returns
    -------
    object array (n_classes, 7)
        One row per class; the counts sum to :math:`2^t`.

    Examples
    --------
    The same classes as the dynamic programme ``theory.markov.transition_count_classes``:

    >>> from theory import markov as tmk
    >>> rows = two_state_classes_by_runs(3)
    >>> rows[:2].tolist()
    [[0, 0, 2, 0, 0, 0, 1], [0, 1, 0, 1, 0, 1, 1]]
    >>> {tuple(int(v) for v in r[:6]): int(r[6]) for r in rows} == tmk.transition_count_classes(3)
    True
    >>> sum(two_state_classes_by_runs(70)[:, 6]) == 2**70  # Python ints: no int64 overflow
    True
    """
    t = check_count(t, "t", minimum=2, message=f"t must be >= 2, got {t!r:.80}")
    check_work(
        2 * t * t * STEP_COST,
        param="t",
        value=t,
        what="the classes by runs (about 2 t^2 Python steps)",
        hint="theory.markov.two_state_strategy_kl has the exact sums for t <= theory.markov.MAX_EXACT_T",
    )
    rows = []
    for x1 in (0, 1):
        for S in range(t):
            xt = x1 if S % 2 == 0 else 1 - x1
            runs_first, runs_other = S // 2 + 1, (S + 1) // 2
            r0, r1 = (runs_first, runs_other) if x1 == 0 else (runs_other, runs_first)
            # switches 0 -> 1 and 1 -> 0: they alternate starting with x_1's
            c01, c10 = ((S + 1) // 2, S // 2) if x1 == 0 else (S // 2, (S + 1) // 2)
            for n0 in range(r0, t - r1 + 1):
                n1 = t - n0
                if (r1 == 0 and n1 != 0) or (r0 == 0 and n0 != 0):
                    continue
                count = (comb(n0 - 1, r0 - 1) if r0 else 1) * (comb(n1 - 1, r1 - 1) if r1 else 1)
                rows.append((x1, xt, n0 - r0, c01, c10, n1 - r1, count))
    return np.array(rows, dtype=object)


@functools.lru_cache(maxsize=1)
def expected_row_entropy_quadrature() -> float:
    """``E_pi[H(P_{x,:})]`` for k = 2 by ``dblquad`` of ``pi_1 H(a) + pi_2 H(b)`` (pi from the balance equation).

    Returns
    -------
    float
        The expected entropy in nats (cached after the first call).

    Examples
    --------
    The first call takes seconds of ``dblquad``, so the comparison with the closed form of
    ``theory.markov.expected_row_entropy_two_state`` is not run here:

    >>> from theory import markov as tmk
    >>> round(float(tmk.expected_row_entropy_two_state()), 12)
    0.480889248247
    >>> abs(expected_row_entropy_quadrature() - 0.480889248247) < 1e-12  # doctest: +SKIP
    True
    """

    def h(p: float) -> float:
        return float(-sum(x * np.log(x) for x in (p, 1.0 - p) if x > 0))

    def f(b: float, a: float) -> float:
        _, pi = _chain(a, b)
        return float(pi[0] * h(a) + pi[1] * h(b))

    return _dblquad(f)


def _strategy_q(cls: np.ndarray, t: int, strategy: str) -> np.ndarray:
    """The strategy's law ``(n_classes, 2)`` after a sequence of each class (Sec. 8.2.2, flat prior)."""
    _x1, xt, c00, c01, c10, c11 = (cls[:, i].astype(float) for i in range(6))
    if strategy == "uniform":
        return np.full((cls.shape[0], 2), 0.5)
    if strategy == "unigram":
        n0 = c00 + c01 + (xt == 0)
        return np.stack([n0 + 1, t - n0 + 1], axis=1) / (t + 2)
    if strategy == "bigram":
        row = np.where((xt == 0)[:, None], np.stack([c00, c01], 1), np.stack([c10, c11], 1))
        return (row + 1) / (row.sum(axis=1, keepdims=True) + 2)
    raise ValueError(f"unknown strategy {strategy!r}; expected uniform, unigram or bigram")


def two_state_strategy_kl_quadrature(
    t: int, strategies: tuple[str, ...] = ("uniform", "unigram", "bigram"), chunk: int = 512
) -> dict[str, float]:
    """The k = 2 strategies' KLs at the last token (flat prior, ``x_1 ~ pi``) at context length t, by quadrature:

    ``KL = -E_pi[H(row)] + sum_{cls, j} P[cls, x_{t+1} = j] (-ln q_j(cls))``, where
    ``P[cls, j] = count(cls) E_{a,b}[pi_{x_1} a^c00 (1-a)^c01 (1-b)^c10 b^c11 P_{x_t j}]`` is integrated on
    :func:`duffy_nodes` (a polynomial of degree <= t + 1 over ``2 - a - b``: exact up to rounding). Also returns
    ``"total_probability"`` (1 up to rounding). Cost O(t^4) (about 3 s at t = 100); ``t <= MAX_QUADRATURE_T``.

    Parameters
    ----------
    t : int
        Context length, ``2 <= t <= MAX_QUADRATURE_T``.
    strategies : tuple of str
        Among ``"uniform"``, ``"unigram"``, ``"bigram"``.
    chunk : int
        Classes per batch.

    Returns
    -------
    dict of str to float
        ``total_probability``, ``expected_row_entropy`` and one KL (nats) per strategy.

    Examples
    --------
    The entropy term takes seconds of ``dblquad`` on the first call, so the comparison with the exact sums of
    ``theory.markov.two_state_strategy_kl`` is not run here:

    >>> from theory import markov as tmk
    >>> q = two_state_strategy_kl_quadrature(6)  # doctest: +SKIP
    >>> abs(q["bigram"] - float(tmk.two_state_strategy_kl(6, "bigram"))) < 1e-12  # doctest: +SKIP
    True
    >>> two_state_strategy_kl_quadrature(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: t must be an integer in [2, 150], got 1
    """
    t = check_count(t, "t", minimum=2, message=f"t must be an integer in [2, {MAX_QUADRATURE_T}], got {t!r:.80}")
    check_cost(
        t,
        MAX_QUADRATURE_T,
        param="t",
        value=t,
        what="the context length (O(t^4) quadrature work)",
        hint="theory.markov.two_state_strategy_kl gives the exact sums",
    )
    if isinstance(strategies, str) or not isinstance(strategies, (tuple, list)):
        raise InputError(f"strategies must be a tuple of strategy names, got {strategies!r:.80}", param="strategies")
    for name in strategies:
        if name not in ("uniform", "unigram", "bigram"):
            raise InputError(f"unknown strategy {name!r:.80}; expected uniform, unigram or bigram", param="strategies")
    chunk = check_count(chunk, "chunk", why="classes per batch")
    cls = two_state_classes_by_runs(t)
    a, b, wts = duffy_nodes(t + 2)
    la, l1a, lb, l1b = np.log(a), np.log1p(-a), np.log(b), np.log1p(-b)
    pi = np.stack([1 - b, 1 - a]) / (2 - a - b)  # (2, nodes)
    P = np.array([[a, 1 - a], [1 - b, b]])  # (2, 2, nodes)
    expo = cls[:, 2:6].astype(float)
    log_count = np.array([float(np.log(float(c))) if c < 2**1000 else _log_big(c) for c in cls[:, 6]])
    x1, xt = cls[:, 0].astype(int), cls[:, 1].astype(int)
    probs = np.zeros((cls.shape[0], 2))
    for s in range(0, cls.shape[0], chunk):
        sl = slice(s, s + chunk)
        logw = expo[sl] @ np.stack([la, l1a, l1b, lb]) + log_count[sl, None]  # (chunk, nodes)
        base = np.exp(logw) * pi[x1[sl]] * wts[None, :]
        for j in (0, 1):
            probs[sl, j] = (base * P[xt[sl], j]).sum(axis=1)
    entropy = expected_row_entropy_quadrature()
    out = {"total_probability": float(probs.sum()), "expected_row_entropy": entropy}
    for name in strategies:
        q = _strategy_q(cls, t, name)
        out[name] = float(-entropy - (probs * np.log(q)).sum())
    return out


def _log_big(n: int) -> float:
    """``ln n`` of an integer too large for a float."""
    shift = max(n.bit_length() - 900, 0)
    return float(np.log(float(n >> shift))) + shift * float(np.log(2.0))


# --- `tvk derive markov`: strategy KLs and the step-1 / step-2 coefficients

#: Largest number of states k of :func:`derive_markov` (``tvk derive markov``; the Monte-Carlo work grows with k).
MAX_DERIVE_K = 10
#: Largest context length t of :func:`derive_markov` (the Monte-Carlo and quadrature work grow with t).
MAX_DERIVE_T = 2000
#: Largest t at which :func:`derive_markov` integrates the finite-t gradients exactly (O(t^3): about 2 s at t = 200).
MAX_DERIVE_GRADIENT_T = 200
#: Monte-Carlo work of :func:`derive_markov` per strategy: chains x t x k (chains clipped to [2000, 100000]).
DERIVE_MC_WORK = 6_000_000
DERIVE_MC_SEED = 0
#: K_j printed for j = 1..DERIVE_K_MAX (each is a sympy integration of about 1-2 s; K_1 < K_2 > K_3 < K_4 shows the
#: even/odd pattern; ``tvk report --only 'edelman-ch8-E.40-*'`` checks j up to 8).
DERIVE_K_MAX = 4


def _check_derive(k: object, t: object) -> tuple[int, int]:
    checked: list[int] = []
    for name, v, lo, hi, hint in (
        ("k", k, 2, MAX_DERIVE_K, "the Monte-Carlo strategy KLs cost chains x t x k^2"),
        ("t", t, 2, MAX_DERIVE_T, "use the asymptotic k(k-1)/(2t) for longer contexts"),
    ):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InputError(f"{name} must be an integer in [{lo}, {hi}], got {v!r}", param=name)
        if v < lo:
            why = "a Markov chain needs k >= 2 states" if name == "k" else "a bigram needs a context of t >= 2 tokens"
            raise InputError(f"{name} must be an integer >= {lo} ({why}), got {name} = {v}", param=name)
        if v > hi:
            raise LimitError(
                f"{name} = {format_count(v)} is too large for `tvk derive markov`, above the limit {name} <= {hi}; {hint}",
                param=name,
                value=int(v),
                limit=hi,
                hint=hint,
            )
        checked.append(int(v))
    return checked[0], checked[1]


def _exact(value: sympy.Expr) -> dict[str, Any]:
    return {"exact": str(value), "float": float(value)}


def _strategy_kls(k: int, t: int) -> dict[str, dict[str, Any]]:
    """Per strategy: the value, how it was obtained and, for Monte Carlo, its standard error."""
    out: dict[str, dict[str, Any]] = {}
    chains = int(np.clip(DERIVE_MC_WORK // (t * k), 2_000, 100_000))
    for i, name in enumerate(("uniform", "unigram", "bigram")):
        if k == 2 and (name == "uniform" or t <= tm.MAX_EXACT_T):
            value = tm.two_state_strategy_kl(t, name)
            entry = {"value": float(value), "method": "exact", "stderr": None}
            if name == "uniform":
                entry["closed_form"] = str(value)
            else:
                entry["closed_form"] = "finite sum over transition-count classes (theory.markov.two_state_strategy_kl)"
            out[name] = entry
        else:
            mean, se = mc_strategy_kl(k, t, name, chains, np.random.default_rng([DERIVE_MC_SEED, i]))
            out[name] = {"value": mean, "method": f"Monte Carlo, {chains} chains (seed {DERIVE_MC_SEED})", "stderr": se}
    asym = tm.ngram_kl_asymptotic(k, t)
    out["bigram_asymptotic"] = {"value": float(asym), "method": "k(k-1)/(2t)", "stderr": None, "closed_form": str(asym)}
    return out


def _gradients(t: int, js: tuple[int, ...] = (1, 2, 3)) -> dict[str, Any]:
    """Lemma 8.4 / E.1 and Cor. E.2 at context length t (k = 2): exact constants, leading orders, finite-t values,
    at the lags ``js`` that a context of length t has (``j <= t``)."""
    js = tuple(j for j in js if j <= t)
    W = tm.step1_W_leading(t)
    out: dict[str, Any] = {
        "units": "step 1: (W^(1) - c 11^T)/(c eta), (v_j^(1) - c)/(c eta); step 2: G^I_j in units of (rho - c') eta",
        "B_E24": _exact(tm.lemma84_constant("E.24")),
        "A_E25": _exact(tm.lemma84_constant("E.25")),
        "B_over_A": float(tm.lemma84_constant("E.24") / tm.lemma84_constant("E.25")),
        "D": _exact(tm.lemma84_constant("D")),
        "K": {str(j): _exact(tm.K(j)) for j in range(1, DERIVE_K_MAX + 1)},
        "argmax_K": 1 + int(np.argmax([float(tm.K(j)) for j in range(1, DERIVE_K_MAX + 1)])),
        "E43_as_printed": _exact(tm.e43_as_printed()),
        "step1_leading": {
            "W_diag": float(W[0][0]),
            "W_off": float(W[0][1]),
            "v": {str(j): float(tm.step1_v_leading(t, j)) for j in js},
        },
        "step2_leading": {"G_I": {str(j): float(tm.step2_diag_leading(t, j)) for j in js}},
        "cor_E2_v": {str(j): _exact(tm.cor_e2_v_update(t, j)) for j in js},
        "E49_as_printed": {str(j): _exact(tm.e49_as_printed(t, j)) for j in js},
    }
    if t <= MAX_DERIVE_GRADIENT_T:
        g = finite_t_gradients(t)
        out["step1_finite_t"] = {
            "W_diag": float(g.GW[0, 0]),
            "W_off": float(g.GW[0, 1]),
            "v": {str(j): float(g.GV[j - 1]) for j in js},
        }
        out["step2_finite_t"] = {"G_I": {str(j): float(g.GI[j - 1]) for j in js}}
    else:
        out["step1_finite_t"] = out["step2_finite_t"] = None
        out["finite_t_note"] = f"finite-t quadrature skipped above t = {MAX_DERIVE_GRADIENT_T} (O(t^3) work)"
    return out


def derive_markov(k: int, t: int) -> tuple[dict[str, Any], str]:
    """``tvk derive markov --k K --t T``: the strategies' KLs at the last token and the step-1 / step-2 coefficients.

    Strategy KLs (App. E.2; flat Dirichlet rows, ``x_1 ~ pi``): exact for k = 2 (uniform for every t; unigram and
    bigram for ``t <= theory.markov.MAX_EXACT_T``), else Monte Carlo with its standard error; and the asymptotic
    ``k(k-1)/(2t)``. Gradient coefficients (Lemma 8.4 / E.1, Cor. E.2 as corrected; k = 2 only, None otherwise):
    B (E.24), A (E.25), D, K_1..K_4, the leading-order and exact finite-t step-1 W, v and step-2 ``G^I_j``, and the
    corrected Cor. E.2 v update beside (E.49) as printed. Returns ``(JSON-able dict, text)``; bad k or t raise
    ValueError naming the parameter (sizes above ``MAX_DERIVE_K`` / ``MAX_DERIVE_T`` a :class:`LimitError`).

    Parameters
    ----------
    k : int
        Number of states, ``2 <= k <= MAX_DERIVE_K``.
    t : int
        Context length, ``2 <= t <= MAX_DERIVE_T``.

    Returns
    -------
    obj : dict
        The values, JSON-able.
    text : str
        The printed summary.

    Examples
    --------
    A summary takes about 10 s (sympy integrals and quadrature), so it is not run here:

    >>> obj, text = derive_markov(2, 10)  # doctest: +SKIP
    >>> print(text.splitlines()[4])  # doctest: +SKIP
        bigram             = 0.0653995  [exact]
    >>> derive_markov(2, 5000)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: t = 5,000 is too large for `tvk derive markov`, above the limit t <= 2000; ...
    >>> derive_markov(1, 10)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: k must be an integer >= 2 (a Markov chain needs k >= 2 states), got k = 1
    """
    k, t = _check_derive(k, t)
    kls = _strategy_kls(k, t)
    obj: dict[str, Any] = {
        "task": "markov",
        "k": k,
        "t": t,
        "source": "Edelman thesis Ch. 8, App. E.1-E.2: Lemma 8.4 / E.1, Cor. E.2 (corrected; docs/markov.md)",
        "metric": "KL(P_{x_t,:} || q) at the last of t tokens (soft-target cross-entropy = KL + E_pi[H(row)])",
        "strategy_kl": kls,
        "expected_row_entropy": _exact(tm.expected_row_entropy_two_state()) if k == 2 else None,
        "gradients": _gradients(t) if k == 2 else None,
    }
    lines = [f"in-context Markov chains, k = {k}, t = {t} (Edelman Ch. 8; flat Dirichlet rows, x_1 ~ pi)"]
    lines.append("  strategy KL at the last token:")
    for name in ("uniform", "unigram", "bigram", "bigram_asymptotic"):
        e = kls[name]
        se = f" ± {e['stderr']:.2g} (1 SE)" if e["stderr"] is not None else ""
        lines.append(f"    {name:<18} = {e['value']:.6g}{se}  [{e['method']}]")
    if k != 2:
        lines.append("  gradient coefficients: Lemma 8.4 / Cor. E.2 are stated for k = 2 only")
        return obj, "\n".join(lines)
    g = obj["gradients"]
    K = g["K"]
    lines += [
        f"  E_pi[H(row)] = {obj['expected_row_entropy']['float']:.6g}",
        f"  Lemma 8.4 / E.1 ({g['units']}):",
        f"    B (E.24) = {g['B_E24']['exact']} = {g['B_E24']['float']:.6g}, A (E.25) = {g['A_E25']['exact']} = "
        f"{g['A_E25']['float']:.6g}, B/A = {g['B_over_A']:.4f}",
        f"    D = {g['D']['exact']} = {g['D']['float']:.6g}",
        f"    K_j, j = 1..{DERIVE_K_MAX}: "
        + ", ".join(f"{K[str(j)]['float']:.5f}" for j in range(1, DERIVE_K_MAX + 1))
        + f" (argmax j = "
        f"{g['argmax_K']}); K_1 = {K['1']['exact']}, K_2 = {K['2']['exact']} ((E.43) as printed: "
        f"{g['E43_as_printed']['float']:.4f})",
    ]
    s1, s2 = g["step1_leading"], g["step2_leading"]
    f1, f2 = g["step1_finite_t"], g["step2_finite_t"]
    lags = f"1..{len(s1['v'])}"  # 1..3, fewer when t < 3
    exact1 = (
        f"; exact finite t: W diag {f1['W_diag']:.6g}, off {f1['W_off']:.6g}, v "
        + ", ".join(f"{v:.6g}" for v in f1["v"].values())
        if f1
        else f"; {g['finite_t_note']}"
    )
    lines.append(
        f"    step 1 leading order: W diag {s1['W_diag']:.6g}, off {s1['W_off']:.6g}, v_{lags} "
        + ", ".join(f"{v:.6g}" for v in s1["v"].values())
        + exact1
    )
    lines.append(
        f"    step 2 leading order G^I_{lags}: "
        + ", ".join(f"{v:.6g}" for v in s2["G_I"].values())
        + ("; exact finite t: " + ", ".join(f"{v:.6g}" for v in f2["G_I"].values()) if f2 else "")
    )
    lines.append(
        f"  Cor. E.2 (a = b), v_{lags} update (corrected): "
        + ", ".join(f"{v['float']:.6g}" for v in g["cor_E2_v"].values())
        + "; (E.49) as printed: "
        + ", ".join(f"{v['float']:.6g}" for v in g["E49_as_printed"].values())
    )
    return obj, "\n".join(lines)


# --- Prop. 8.5 / E.3: the two-step curriculum by exact population gradients


def curriculum_nodes(t: int, eps: float, extra: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes for ``a = b ~ U[1/2 - eps, 1/2 + eps]`` (the second step of Prop. E.3): the integrand is
    a polynomial of degree <= t + 2 in a, integrated exactly up to rounding by ``t // 2 + extra`` nodes.

    Parameters
    ----------
    t : int
        Context length (sets the polynomial degree).
    eps : float
        The half-width, in (0, 1/2).
    extra : int
        Nodes beyond ``t // 2``.

    Returns
    -------
    a, b, weights : float64 arrays (n,)
        Nodes in the interval (``b`` a copy of ``a``) and weights summing to 1.

    Examples
    --------
    >>> a, b, w = curriculum_nodes(4, 0.25)
    >>> bool(((a > 0.25) & (a < 0.75)).all()), round(float(w.sum()), 12), round(float(w @ (2 * a - 1) ** 2), 12)
    (True, 1.0, 0.083333333333)
    >>> curriculum_nodes(4, 0.5)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: eps must lie in (0, 1/2), got 0.5
    """
    t, extra = _check_nodes(t, extra)
    eps = check_real(eps, "eps")
    if not 0 < eps < 0.5:
        raise InputError(f"eps must lie in (0, 1/2), got {eps:g}", param="eps")
    if t // 2 + extra < 1:
        raise InputError("need at least one node (t // 2 + extra >= 1)", param="extra")
    g, wg = np.polynomial.legendre.leggauss(t // 2 + extra)
    a = 0.5 + eps * g
    return a, a.copy(), wg / 2


def _tensor_at(P: np.ndarray, t: int) -> np.ndarray:
    """Per-matrix ``T[n, j-1, m, l] = (1/t) sum_i (P_mi - 1/k) pi_l (P^{j-1})_li sum_{w=0}^{t-j} (t-j+1-w) (P^w)_im``:
    the coefficient of ``v_j (W_k)_ml`` in ``-L`` for a stationary chain (Eqs. (E.8), (E.13), (E.30)-(E.35))."""
    k = P.shape[1]
    pi = stationary(P)
    pw = _matrix_powers(P, t)
    R = _ramp(pw[:, :t])  # R[:, r-1] = sum_{w<r} (r-w) P^w
    return np.einsum("nmi,nl,njli,njim->njml", P - 1.0 / k, pi, pw[:, :t], R[:, ::-1]) / t


def bilinear_gradient_tensor(t: int, prior: str = "uniform", eps: float | None = None, chunk: int = 1024) -> np.ndarray:
    r"""The population margin loss with every hinge active as a bilinear form in ``(v, W_k)``, k = 2:
    ``L(W_k, v) = const - sum_{j,m,l} v_j (W_k)_{ml} T[j-1, m, l]``, so ``-dL/dW_k = sum_j v_j T[j-1]`` and
    ``-dL/dv_j = sum_{ml} (W_k)_{ml} T[j-1, m, l]``, at any ``(W_k, v)`` (Eqs. (E.2), (E.8)).

    Computed by matrix powers at Gauss-Legendre nodes over the prior of ``(a, b)``: ``"uniform"`` (a, b ~ U(0, 1),
    :func:`duffy_nodes`, Lemma E.1), ``"symmetric"`` (a = b ~ U(0, 1), :func:`symmetric_nodes`, Cor. E.2) or
    ``"curriculum"`` (a = b ~ U[1/2 - eps, 1/2 + eps], :func:`curriculum_nodes`, Prop. E.3). Contracting it gives the
    gradients of :func:`finite_t_gradients`: ``GW = sum_j T[j]``, ``GV_j = sum_ml T[j, m, l]``, ``GI_j = sum_m T[j, m, m]``.

    Parameters
    ----------
    t : int
        Context length, >= 2.
    prior : str
        ``"uniform"``, ``"symmetric"`` or ``"curriculum"``.
    eps : float, optional
        The half-width of the curriculum prior (required for it, refused otherwise).
    chunk : int
        Nodes per batch.

    Returns
    -------
    float64 array (t, 2, 2)
        ``T[j-1, m-1, l-1]``.

    Examples
    --------
    >>> import numpy as np
    >>> T, g = bilinear_gradient_tensor(8), finite_t_gradients(8)
    >>> bool(np.allclose(T.sum(0), g.GW) and np.allclose(T.sum((1, 2)), g.GV) and np.allclose(np.einsum("jmm->j", T), g.GI))
    True
    >>> bilinear_gradient_tensor(3, "curriculum", 0.25)[1].round(6).tolist()
    [[0.013889, -0.006944], [-0.006944, 0.013889]]
    >>> bilinear_gradient_tensor(3, "curriculum")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: the curriculum prior needs eps (a = b ~ U[1/2 - eps, 1/2 + eps])
    """
    t = check_count(t, "t", minimum=2, message=f"t must be >= 2, got {t!r:.80}")
    chunk = check_count(chunk, "chunk", why="nodes per batch")
    if not isinstance(prior, str) or prior not in ("uniform", "symmetric", "curriculum"):
        raise InputError(f"prior must be 'uniform', 'symmetric' or 'curriculum', got {prior!r:.80}", param="prior")
    if (prior == "curriculum") != (eps is not None):
        why = "needs eps (a = b ~ U[1/2 - eps, 1/2 + eps])" if eps is None else "takes no eps"
        raise InputError(f"the {prior} prior {why}", param="eps")
    half_width = check_real(eps, "eps") if eps is not None else 0.0
    _check_node_work(
        t,
        prior,
        chunk,
        "the bilinear gradient tensor",
        "theory.markov.curriculum_tensor gives the curriculum prior's tensor exactly",
        arrays=16,
        held=", their ramp sums and the tensor",
    )
    T = np.zeros((t, 2, 2))
    for P, ww in _node_batches(t, prior, chunk, half_width):
        T += np.einsum("n,njml->jml", ww, _tensor_at(P, t))
    return T


def population_step(
    T: np.ndarray, W: np.ndarray, v: np.ndarray, eta: float, weight_decay: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """One population gradient step on the bilinear loss of :func:`bilinear_gradient_tensor`, with decoupled weight
    decay as in (E.53), (E.54): ``W <- (1 - wd) W + eta sum_j v_j T[j]``, ``v_j <- (1 - wd) v_j + eta sum_ml W_ml T[j]``
    (both gradients taken at the old ``(W, v)``).

    Parameters
    ----------
    T : float64 array (t, 2, 2)
        The tensor of the step's data law.
    W : float64 array (2, 2)
        The second layer ``W_k``.
    v : float64 array (t,)
        The positional vector.
    eta : float
        The step size.
    weight_decay : float
        ``lambda_wd`` (1 replaces the weights by the step, Prop. E.3's second step).

    Returns
    -------
    W, v : float64 arrays
        The updated parameters.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.zeros((3, 2, 2)); T[1] = np.eye(2)
    >>> W, v = population_step(T, np.ones((2, 2)), np.ones(3), 0.5, weight_decay=1.0)
    >>> W.tolist(), v.tolist()
    ([[0.5, 0.0], [0.0, 0.5]], [0.0, 1.0, 0.0])
    """
    T, W, v = check_real_array(T, "T"), check_real_array(W, "W"), check_real_array(v, "v")
    if T.ndim != 3 or T.shape[1:] != (2, 2) or W.shape != (2, 2) or v.shape != (T.shape[0],):
        raise InputError(f"need T (t, 2, 2), W (2, 2) and v (t,), got {T.shape}, {W.shape}, {v.shape}", param="T")
    eta, wd = check_real(eta, "eta"), check_real(weight_decay, "weight_decay")
    with np.errstate(over="ignore", invalid="ignore"):
        W_new = (1 - wd) * W + eta * np.einsum("j,jml->ml", v, T)
        v_new = (1 - wd) * v + eta * np.einsum("ml,jml->j", W, T)
    if not (np.isfinite(W_new).all() and np.isfinite(v_new).all()):
        raise InputError(f"the step overflows float64 at eta = {eta:.3g}, weight_decay = {wd:.3g}", param="eta")
    return W_new, v_new


def hinge_margin_needed(W: np.ndarray, v: np.ndarray) -> float:
    """A margin ``Delta`` that keeps every hinge of the margin loss (8.7) active at ``(W_k, v)`` for every sequence:
    ``|f_{p,i}| <= max|W| sum_j |v_j| (p - j + 1)`` by (E.2), so ``Delta = 2 max|W| sum_j |v_j| (t - j + 1)`` bounds
    ``f_{p,x_{p+1}} - f_{p,i}`` (the thesis chooses Delta this way, after (E.6) and in the second step).

    Parameters
    ----------
    W : float64 array (2, 2)
    v : float64 array (t,)

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> hinge_margin_needed(np.ones((2, 2)), np.ones(3))  # 2 (3 + 2 + 1)
    12.0
    """
    W, v = check_real_array(W, "W"), check_real_array(v, "v")
    if W.size == 0 or v.ndim != 1:
        raise InputError(f"need a non-empty W and a vector v, got shapes {W.shape}, {v.shape}", param="W")
    t = v.size
    with np.errstate(over="ignore", invalid="ignore"):
        margin = float(2 * np.abs(W).max() * np.abs(v) @ (t - np.arange(t)))
    if not np.isfinite(margin):
        raise InputError("the margin overflows float64 (W or v too large)", param="W")
    return margin


@dataclass(frozen=True)
class CurriculumRun:
    """The parameters along the two steps of Prop. E.3 (:func:`curriculum_two_steps`).

    Attributes
    ----------
    t : int
        Context length.
    W1, v1, W2, v2 : float64 arrays
        ``W_k`` (2, 2) and v (t,) after the first and the second step.
    margin : float
        A margin Delta that keeps every hinge active at both points where a gradient is taken
        (:func:`hinge_margin_needed`).

    Examples
    --------
    >>> r = curriculum_two_steps(4, 0.25, 0.0, 1.0, 1.0, 1.0)
    >>> r.t, r.W1.shape, r.v2.shape, r.margin > 0
    (4, (2, 2), (4,), True)
    """

    t: int
    W1: np.ndarray
    v1: np.ndarray
    W2: np.ndarray
    v2: np.ndarray
    margin: float


def curriculum_two_steps(
    t: int,
    eps: float,
    w_init: float,
    v_init: float,
    c1: float,
    c2: float,
    weight_decay: float = 1.0,
    first: np.ndarray | None = None,
) -> CurriculumRun:
    """The two-step curriculum of Prop. E.3 by exact population gradients (Gauss-Legendre and matrix powers): init
    ``W_k = w_init 11^T``, ``v = v_init 1``; step 1 on ``a, b ~ U(0, 1)`` with ``eta_1 = c1/t^2``; step 2 on
    ``a = b ~ U[1/2 - eps, 1/2 + eps]`` with ``eta_2 = c2/t`` and weight decay ``weight_decay`` (1 in the thesis).

    Parameters
    ----------
    t : int
        Context length.
    eps : float
        The half-width of the second step's law, in (0, 1/2).
    w_init, v_init : float
        The initial values.
    c1, c2 : float
        The step-size constants.
    weight_decay : float
        The second step's ``lambda_wd``.
    first : float64 array (t, 2, 2), optional
        The uniform prior's :func:`bilinear_gradient_tensor` at this t, when already computed (it does not depend on
        eps).

    Returns
    -------
    CurriculumRun

    Examples
    --------
    >>> r = curriculum_two_steps(6, 0.25, 1.0, 1.0, 6.0, 8.0)
    >>> round(float(r.W2[0, 0]), 4), round(abs(float(r.W2[0, 1])), 4), r.v2[:3].round(5).tolist()
    (0.0774, 0.0, [0.05318, 0.04765, 0.03058])
    """
    t = check_count(t, "t", minimum=2, message=f"t must be >= 2, got {t!r:.80}")
    w0, u = check_real(w_init, "w_init"), check_real(v_init, "v_init")
    c1, c2 = check_real(c1, "c1"), check_real(c2, "c2")
    T1 = bilinear_gradient_tensor(t) if first is None else check_real_array(first, "first")
    if T1.shape != (t, 2, 2):
        raise InputError(f"first must be the (t, 2, 2) tensor of the uniform prior, got {T1.shape}", param="first")
    T2 = bilinear_gradient_tensor(t, "curriculum", eps)
    W0, v0 = np.full((2, 2), w0), np.full(t, u)
    W1, v1 = population_step(T1, W0, v0, c1 / t**2)
    W2, v2 = population_step(T2, W1, v1, c2 / t, weight_decay)
    margin = max(hinge_margin_needed(W0, v0), hinge_margin_needed(W1, v1))
    return CurriculumRun(t, W1, v1, W2, v2, margin)


def richardson_limit(values: Any, ts: Any) -> np.ndarray:
    """The ``t -> infinity`` limit of values with an expansion ``f(t) = f_inf + a/t + b/t^2 + ...``, from their values
    at ``t, 2t`` (``2 f(2t) - f(t)``, error ``O(1/t^2)``) or ``t, 2t, 4t`` (``(8 f(4t) - 6 f(2t) + f(t))/3``, error
    ``O(1/t^3)``).

    Parameters
    ----------
    values : array-like (2 or 3, ...)
        The values at the context lengths ``ts``, along the first axis.
    ts : sequence of 2 or 3 ints
        Doubling context lengths.

    Returns
    -------
    float64 array
        The extrapolated limit (the shape of one entry of ``values``).

    Examples
    --------
    >>> round(float(richardson_limit([1 + 3/10 + 5/100, 1 + 3/20 + 5/400, 1 + 3/40 + 5/1600], [10, 20, 40])), 12)
    1.0
    >>> round(float(richardson_limit([1 + 3/10, 1 + 3/20], [10, 20])), 12)
    1.0
    >>> richardson_limit([1, 2], [10, 30])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: ts must double (t, 2t[, 4t]), got [10, 30]
    """
    vals = check_real_array(values, "values")
    ts = [check_count(t, "ts", minimum=1) for t in ts]
    if (
        len(ts) not in (2, 3)
        or any(b != 2 * a for a, b in itertools.pairwise(ts))
        or vals.ndim == 0
        or vals.shape[0] != len(ts)
    ):
        raise InputError(f"ts must double (t, 2t[, 4t]), got {ts}", param="ts")
    if len(ts) == 2:
        return 2 * vals[1] - vals[0]
    return (8 * vals[2] - 6 * vals[1] + vals[0]) / 3
