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
* :func:`last_token_kl`: a strategy's KL at the last token on sampled chains (App. E.2's metric).

Setting of the gradients (Lemma E.1): k = 2, margin loss (8.7) with every hinge active (``Delta`` large), so
``-dL/dtheta = (1/t) sum_{p=1}^{t} E[grad f_{p, x_{p+1}} - (1/k) sum_i grad f_{p,i}]``; the chain is stationary
(``x_1 ~ pi``). At ``W_k = c 11^T, v = c 1`` the first-step gradients are ``c G^W`` and ``c G^V``; the second-step
v-gradient at ``W_k = c' 11^T + (rho - c') I`` is ``c' G^V + (rho - c') G^I``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate

from numerics.markov import kl, stationary, strategy_probs, true_next

__all__ = [
    "minimal_model_logits",
    "construction_outputs",
    "lemma84_quadrature",
    "K_quadrature",
    "duffy_nodes",
    "symmetric_nodes",
    "FiniteTGradients",
    "finite_t_gradients",
    "two_step_v",
    "sample_v_gradients",
    "last_token_kl",
    "posterior_mean_quadrature",
    "expected_kl_quadrature",
]


# --- Eq. (8.8) / (E.2): the minimal model; Fact 8.3


def _one_hot(seqs: np.ndarray, k: int) -> np.ndarray:
    x = np.asarray(seqs)
    if x.ndim != 2 or x.size == 0 or x.min() < 0 or x.max() >= k:
        raise ValueError(f"seqs must be an (n, t) array of tokens in range({k})")
    return np.eye(k)[x]


def minimal_model_logits(seqs: np.ndarray, W: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``f(E) = mask(E W_k (M E)^T) E`` for every sequence, ``(n, t, k)`` (Eq. (8.8)).

    ``M`` is lower-triangular Toeplitz, ``M[t', s] = v_{t'-s+1}``; the causal mask keeps ``t' <= p``.
    """
    W = np.asarray(W, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    k = W.shape[0]
    E = _one_hot(seqs, k)
    t = E.shape[1]
    if W.shape != (k, k) or v.shape != (t,):
        raise ValueError(f"need W (k, k) and v (t,), got {W.shape} and {v.shape} for t = {t}")
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
    n, t, d = z.shape
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
    """
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
    return z[:, :, b3]


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
    """A Lemma 8.4 integral by ``scipy.integrate.dblquad`` of its definition (not of the printed integrand):
    ``"E.24"``: ``E[pi_1^2 sum_i (P_1i - 1/2) pi_i]``; ``"E.25"``: ``E[pi_1 pi_2 sum_i (P_1i - 1/2) pi_i]``;
    ``"E.29-collision"``: ``E[pi_1^2 + pi_2^2]``; ``"D"``: collision minus 1/2; ``"E.42"``: ``K_1``."""
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
    raise ValueError(f"unknown Lemma 8.4 integral {name!r}")


def K_quadrature(j: int) -> float:
    """``K_j = E[sum_{l,i} pi_l^2 (P^{j-1})_{li} (P_li - 1/2)]`` by ``dblquad`` (the definition behind (E.39)-(E.40))."""
    if j < 1:
        raise ValueError(f"j must be >= 1, got {j}")
    return _dblquad(_k_integrand(j))


# --- Eqs. (E.13), (E.26)-(E.28), (E.30)-(E.38): exact finite-t population gradients


def duffy_nodes(t: int, extra: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes ``(a, b)`` and weights on ``[0, 1]^2`` for the finite-t integrands.

    With ``u = 1 - a``, ``w = 1 - b`` each triangle ``u >= w`` / ``w >= u`` is mapped to the unit square by the Duffy
    transform ``(u, w) = (x, x y)`` (Jacobian x). There ``pi = (y, 1)/(1 + y)`` and P is polynomial in (x, x y), so the
    integrand is a polynomial of degree <= t + 2 in x and y times a power of ``1/(1 + y)``: ``t/2 + extra`` nodes per
    axis integrate it exactly up to rounding (the rational factor converges geometrically).
    """
    n = t // 2 + extra
    g, wg = np.polynomial.legendre.leggauss(n)
    g, wg = (g + 1) / 2, wg / 2
    x, y = np.meshgrid(g, g, indexing="ij")
    wxy = np.outer(wg, wg) * x
    u, w = x.ravel(), (x * y).ravel()
    a = np.concatenate([1 - u, 1 - w])
    b = np.concatenate([1 - w, 1 - u])
    return a, b, np.concatenate([wxy.ravel(), wxy.ravel()])


def symmetric_nodes(t: int, extra: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes for ``a = b ~ U(0, 1)`` (Cor. E.2): the integrand is a polynomial of degree <= t + 2."""
    g, wg = np.polynomial.legendre.leggauss(t // 2 + extra)
    a = (g + 1) / 2
    return a, a.copy(), wg / 2


@dataclass(frozen=True)
class FiniteTGradients:
    """Population gradients at context length t (k = 2), integrated over the prior of (a, b).

    ``GW``: ``-dL/dW_k`` at ``W_k = c 11^T, v = c 1`` divided by c, ``(2, 2)``; ``GV``: ``-dL/dv_j`` at
    ``W_k = 11^T``, ``(t,)`` (so ``(v^(1) - c)/(c eta) = GV``); ``GI``: ``-dL/dv_j`` at ``W_k = I``, ``(t,)`` (the
    diagonal-bias profile of the second step). Units: ``(W^(1) - c 11^T)/(c eta) = GW``.
    """

    t: int
    GW: np.ndarray
    GV: np.ndarray
    GI: np.ndarray


def _ramp(X: np.ndarray) -> np.ndarray:
    """``R_r = sum_{w=0}^{r-1} (r - w) X_w`` for r = 1..T along axis 1 (two cumulative sums)."""
    return np.cumsum(np.cumsum(X, axis=1), axis=1)


def _gradients_at(P: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-matrix ``GW (N, 2, 2)``, ``GV (N, t)``, ``GI (N, t)`` by matrix powers (stationary chain, k = 2).

    ``GW_ml = (1/t) sum_i (P_mi - 1/k) pi_l sum_{u+w <= t-1} (t-u-w) (P^u)_li (P^w)_im`` (Eq. (E.13));
    ``GV_j = (1/t) sum_{w=0}^{t-j} (t-j+1-w) [sum_i pi_i (P^{w+1})_ii - 1/k]`` (Eqs. (E.26)-(E.28));
    ``GI_j = (1/t) sum_{l,i} pi_l (P^{j-1})_li (P_li - 1/k) sum_{w=0}^{t-j} (t-j+1-w) (P^w)_il`` (Eqs. (E.30)-(E.35)).
    """
    N, k, _ = P.shape
    pi = stationary(P)
    pw = np.empty((N, t + 1, k, k))
    pw[:, 0] = np.eye(k)
    for n in range(1, t + 1):
        pw[:, n] = pw[:, n - 1] @ P
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


def finite_t_gradients(t: int, prior: str = "uniform", chunk: int = 2048) -> FiniteTGradients:
    """The exact finite-t gradients integrated over ``a, b ~ U(0, 1)`` (``prior="uniform"``, Lemma E.1) or over
    ``a = b ~ U(0, 1)`` (``prior="symmetric"``, Cor. E.2), by :func:`duffy_nodes` / :func:`symmetric_nodes` and
    matrix powers (:class:`FiniteTGradients`). Cost: O(t^3) for the uniform prior (O(t^2) nodes x O(t) powers)."""
    if t < 2:
        raise ValueError(f"t must be >= 2, got {t}")
    if prior == "uniform":
        a, b, wts = duffy_nodes(t)
    elif prior == "symmetric":
        a, b, wts = symmetric_nodes(t)
    else:
        raise ValueError(f"prior must be 'uniform' or 'symmetric', got {prior!r}")
    GW, GV, GI = np.zeros((2, 2)), np.zeros(t), np.zeros(t)
    for s in range(0, a.size, chunk):
        aa, bb, ww = a[s : s + chunk], b[s : s + chunk], wts[s : s + chunk]
        P = np.stack([np.stack([aa, 1 - aa], -1), np.stack([1 - bb, bb], -1)], axis=1)
        gw, gv, gi = _gradients_at(P, t)
        GW += np.einsum("n,nml->ml", ww, gw)
        GV += ww @ gv
        GI += ww @ gi
    return FiniteTGradients(t, GW, GV, GI)


def two_step_v(grads: FiniteTGradients, c: float, eta: float) -> np.ndarray:
    """``v^(2)`` after two population GD steps from ``W_k = c 11^T, v = c 1`` (all hinges active):
    ``W^(1) = c 11^T + c eta GW = c' 11^T + (rho - c') I`` (GW symmetric with equal diagonal, App. E.1), then
    ``v^(2) = v^(1) + eta (c' GV + (rho - c') GI)`` with ``v^(1) = c + c eta GV``."""
    GW = grads.GW
    c_prime = c + c * eta * 0.5 * (GW[0, 1] + GW[1, 0])
    gap = c * eta * (0.5 * (GW[0, 0] + GW[1, 1]) - 0.5 * (GW[0, 1] + GW[1, 0]))
    v1 = c + c * eta * grads.GV
    return v1 + eta * (c_prime * grads.GV + gap * grads.GI)


# --- Monte Carlo: the per-sequence v-gradient


def sample_v_gradients(seqs: np.ndarray, k: int) -> np.ndarray:
    """``-dL/dv_j`` at ``W_k = 11^T`` for each sequence (its mean over chains is ``GV``), ``(n, t)``.

    ``seqs`` holds ``t + 1`` tokens (the targets run to ``x_{t+1}``); per sequence
    ``g_j = (1/t) sum_{p=j}^{t} [#{t' in [j, p]: x_t' = x_{p+1}} - (p - j + 1)/k]`` (Eqs. (E.8), (E.26)), computed with
    running counts in O(t k).
    """
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


def last_token_kl(P: np.ndarray, seqs: np.ndarray, strategy: str) -> np.ndarray:
    """``KL(P_{x_t,:} || q_t)`` per sequence, where ``q_t`` is ``strategy``'s prediction after ``x_1..x_t`` (App. E.2:
    the test loss is the KL from the true next-token law at the last token)."""
    k = P.shape[1]
    q = strategy_probs(seqs, k, strategy)[:, -1]
    return kl(true_next(P, seqs)[:, -1], q)


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


def posterior_mean_quadrature(counts_row, alpha) -> np.ndarray:
    """``E[P_ij | x]`` for one row: prior ``Dir(alpha)`` times the likelihood ``prod_j P_ij^{c_ij}``, integrated."""
    c, al = np.asarray(counts_row, dtype=np.float64), np.asarray(alpha, dtype=np.float64)
    return np.array([_simplex_expectation(c + al, lambda p, j=j: p[j]) for j in range(c.size)])


def expected_kl_quadrature(counts_row) -> float:
    """``E[KL(P_{i,:} || q) | c]`` under the flat prior, ``q_j = (c_ij + 1)/(N_i + k)``, by quadrature."""
    c = np.asarray(counts_row, dtype=np.float64)
    q = (c + 1.0) / (c.sum() + c.size)

    def kl_to_q(p: np.ndarray) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.sum(np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)))

    return _simplex_expectation(c + 1.0, kl_to_q)
