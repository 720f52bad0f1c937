r"""Float64 evaluation of the attention-parity theory (Shi Ch. 5, Sec. 5.5): margins of a parity model with its
real head matrices ``V = C / (4 gamma)``, the Monte Carlo of the projected noise of Thm 5.5.2, and a finite-M
simulation of in-context evaluation (``docs/attention_parity.md``).

Every Monte Carlo function takes a ``seed`` and returns means with their standard errors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from numerics.limits import STEP_COST, array_bytes, check_allocation, check_count, check_real, check_seed, check_work
from theory import attention_parity as tp
from theory._checks import MAX_EXACT_ENTRIES, InputError, check_cost, format_count
from theory._docstrings import fill_doc

__all__ = ["MAX_FLOAT_MARGINS", "ZERO_RTOL", "float_margins", "parity_behaviour_sim", "projection_mc"]

MAX_FLOAT_MARGINS = 10**6
"""Largest number of margins (4 per task) :func:`float_margins` computes, one Python step each (about 10 s)."""

ZERO_RTOL = 1e-9
"""A sum within ``ZERO_RTOL`` times the sum of its terms' magnitudes is 0 in :func:`parity_behaviour_sim` (a head's
pre-activation ``sum_t zeta_t V_tt phi_t``, and ``g = sum_h a_h ReLU_h``): far above float64 round-off (~1e-16
relative), far below the non-zero values of these sums at the sizes used (their terms are multiples of 1/M times a
few head weights: a sum that is not 0 is of the order of its terms)."""

#: The (heads, gamma) Parameters shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "model": """heads : theory.attention_parity.ParityHeads
    The model, by its exact codes.
gamma : float
    The skew of the pattern law, in (0, 1/4).""",
}


def _check_heads(heads: object) -> tp.ParityHeads:
    if not isinstance(heads, tp.ParityHeads):
        raise InputError(
            f"heads must be a theory.attention_parity.ParityHeads (parity_construction, parity_g1, parity_heads), "
            f"got {heads!r:.80}",
            param="heads",
        )
    return heads


def _check_tasks(tasks: object, d: int) -> list[tuple[int, int]]:
    """Ordered pairs (i, j) of distinct 0-based features in range(d)."""
    if isinstance(tasks, (str, bytes)) or not isinstance(tasks, Sequence):
        raise InputError(f"tasks must be a sequence of pairs (i, j) of features, got {tasks!r:.80}", param="tasks")
    check_cost(
        4 * len(tasks),
        MAX_FLOAT_MARGINS,
        param="tasks",
        value=len(tasks),
        what="the number of margins (4 per task)",
        hint="pass fewer tasks",
    )
    out = []
    for pair in tasks:
        ok = isinstance(pair, Sequence) and not isinstance(pair, (str, bytes)) and len(pair) == 2
        ok = ok and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in pair)
        if not ok or not (0 <= pair[0] < d and 0 <= pair[1] < d and pair[0] != pair[1]):
            raise InputError(
                f"tasks must be pairs (i, j) of distinct features in 0..{d - 1}, got {pair!r:.80}", param="tasks"
            )
        out.append((int(pair[0]), int(pair[1])))
    return out


def _check_nus(nu1: object, nu2: object) -> tuple[int, int]:
    """nu1 <= nu2, and the exact codes of g_2* (2 (nu2 + 1) heads x 2^nu2 features) within MAX_EXACT_ENTRIES."""
    for name, nu in (("nu1", nu1), ("nu2", nu2)):
        if isinstance(nu, bool) or not isinstance(nu, (int, np.integer)) or nu < 1:
            raise InputError(f"{name} must be an integer >= 1 (d = 2^nu2, k = 2^nu1), got {nu!r:.80}", param=name)
    n1, n2 = int(nu1), int(nu2)  # type: ignore[call-overload]
    # log space: never form 2^nu2 for a huge nu2
    log_entries = math.log10(2 * (n2 + 1)) + n2 * math.log10(2) if n2 < 10**6 else math.inf
    check_cost(
        log_entries,
        math.log10(MAX_EXACT_ENTRIES),
        param="nu2",
        value=n2,
        what="the exact codes of g_2* (2 (nu2 + 1) heads x d = 2^nu2 features)",
        hint="theory.attention_parity.projection_ratio gives the exact ratio rank(D_j)/M for any nu2",
        log10=True,
    )
    if n1 > n2:
        raise InputError(f"need nu1 <= nu2 (k = 2^nu1 <= d = 2^nu2), got nu1 = {n1}, nu2 = {n2}", param="nu1")
    return n1, n2


def _head_arrays(heads: tp.ParityHeads, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Output weights ``a`` (m,) and diagonals of ``V = C / (4 gamma)`` (m, d) as float64."""
    heads = _check_heads(heads)
    if not 0 < check_real(gamma, "gamma") < 0.25:
        raise InputError(f"gamma must lie in (0, 1/4), got {gamma}", param="gamma")
    a = np.array([float(x) for x in heads.a])
    V = np.array([[float(c) for c in row] for row in heads.codes]) / (4 * gamma)
    return a, V


@fill_doc(_DOC)
def float_margins(heads: tp.ParityHeads, gamma: float, tasks: Sequence[tuple[int, int]] | None = None) -> np.ndarray:
    """``y g`` in float64 with the real ``V = C / (4 gamma)`` and head input ``z^T V phi``, ``z = 2 gamma (e_i + e_j)``
    (the population limit of Sec. 5.5), for every task (default: all ordered pairs) and sign pattern, in the order
    of :func:`theory.attention_parity.parity_margins`.

    Parameters
    ----------
    {{model}}
    tasks : sequence of (i, j), optional
        Ordered pairs of 0-based features (default all pairs).

    Returns
    -------
    float64 array (4 len(tasks),)
        The margins, task by task over the patterns ``PARITY_PATTERNS``.

    Examples
    --------
    The margins do not depend on gamma and equal the exact ones; for g_2* they are Hamming distances:

    >>> import numpy as np
    >>> from theory import attention_parity as tap
    >>> heads = tap.parity_construction(2)
    >>> exact = [float(m) for *_, m in tap.parity_margins(heads)]
    >>> bool(np.allclose(float_margins(heads, 0.1), exact)), bool(np.allclose(float_margins(heads, 0.2), exact))
    (True, True)
    >>> float_margins(heads, 0.1, tasks=[(0, 3)]).tolist(), [int(m) for m in tap.hamming_margins(2, [(0, 3)])]
    ([2.0, 2.0, 2.0, 2.0], [2, 2, 2, 2])
    >>> float_margins(heads, 0.25)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: gamma must lie in (0, 1/4), got 0.25
    """
    a, V = _head_arrays(heads, gamma)
    d = heads.d
    if tasks is None:
        check_cost(
            4 * d * (d - 1),
            MAX_FLOAT_MARGINS,
            param="heads",
            value=f"{len(heads.a)} heads on d = {d} features",
            what="the number of margins of all d (d - 1) ordered pairs (4 per task)",
            hint="pass the tasks of interest",
        )
        tasks = [(i, j) for i in range(d) for j in range(d) if i != j]
    else:
        tasks = _check_tasks(tasks, d)
    out = []
    for i, j in tasks:
        for pi, pj in tp.PARITY_PATTERNS:
            pre = 2 * gamma * (V[:, i] * pi + V[:, j] * pj)
            out.append(pi * pj * float(a @ np.maximum(pre, 0)))
    return np.array(out)


def projection_mc(nu1: int, nu2: int, M: int, n_draws: int, seed: int) -> dict[str, float]:
    r"""Thm 5.5.2 by Monte Carlo: ``Xi = (1/M) sum_l xi_l``, ``xi_l`` uniform on ``{+-1}^d``; ``E||P_{D_j} Xi||^2`` with the
    orthogonal projector onto ``col(D_j)`` (pseudo-inverse). Returns means, SEs, the ratio and its SE by the delta
    method (the two means come from the same draws: Var(a/b) ~ [Var a - 2 (a/b) Cov(a, b) + (a/b)^2 Var b] / b^2).

    Parameters
    ----------
    nu1, nu2 : int
        The constructions g_1* (``parity_g1(nu1, nu2)``) and g_2* (``parity_construction(nu2)``), nu1 <= nu2.
    M : int
        Number of examples averaged in Xi, >= 1.
    n_draws : int
        Number of draws of Xi, >= 2.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    dict of str to float
        ``D1``, ``D2`` (the two means), ``D1_se``, ``D2_se``, ``ratio`` = D1/D2 and ``ratio_se``.

    Examples
    --------
    Against the exact values :math:`\mathrm{rank}(D_j)/M` of ``theory.attention_parity.projection_ratio``:

    >>> from theory import attention_parity as tap
    >>> out = projection_mc(1, 3, M=16, n_draws=2000, seed=0)
    >>> e1, e2, ratio = tap.projection_ratio(1, 3, 16)
    >>> e1, e2, ratio
    (1/8, 1/4, 1/2)
    >>> all(abs(out[k] - float(e)) < 4 * out[k + "_se"] for k, e in (("D1", e1), ("D2", e2), ("ratio", ratio)))
    True
    """
    seed = check_seed(seed)
    M = check_count(M, "M")
    n_draws = check_count(n_draws, "n_draws", minimum=2, why="a mean and its standard error")
    nu1, nu2 = _check_nus(nu1, nu2)
    d = 2**nu2
    check_work(
        n_draws * d,
        param="n_draws",
        value=n_draws,
        what=f"one draw of Xi (n_draws x d = 2^nu2 = {d} entries)",
        hint="use fewer draws",
    )
    check_allocation(
        4 * array_bytes(n_draws, d) + array_bytes(d, d),
        param="n_draws",
        value=n_draws,
        what=f"the draws of Xi (n_draws, d = {d}) with their projections, in float64",
        hint="use fewer draws",
    )
    check_work(
        M * (n_draws * d + STEP_COST),
        param="M",
        value=M,
        what=f"the Monte Carlo (M examples x n_draws x d = {format_count(n_draws * d)} signs)",
        hint="use a smaller M (the exact ratio is theory.attention_parity.projection_ratio)",
    )
    g1 = tp.parity_g1(nu1, nu2)
    g2 = tp.parity_construction(nu2)
    rng = np.random.default_rng(seed)
    out = {}
    Xi = np.zeros((n_draws, d))
    for _ in range(M):
        Xi += rng.choice([-1.0, 1.0], size=(n_draws, d))
    Xi /= M
    draws = {}
    for name, h in (("D1", g1), ("D2", g2)):
        D = np.array([[float(c) for c in row] for row in h.codes]).T  # d x m
        P = D @ np.linalg.pinv(D)
        draws[name] = vals = np.sum((Xi @ P.T) ** 2, axis=1)
        out[name] = float(vals.mean())
        out[name + "_se"] = float(vals.std(ddof=1) / np.sqrt(n_draws))
    a, b = out["D1"], out["D2"]
    r = a / b
    cov = np.cov(draws["D1"], draws["D2"], ddof=1) / n_draws
    out["ratio"] = r
    out["ratio_se"] = float(np.sqrt(max(0.0, cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1])) / b)
    return out


def _sample_phi(rng: np.random.Generator, shape: tuple[int, ...], d: int, i: int, j: int, gamma: float) -> np.ndarray:
    """phi uniform on {+-1}^d except (phi_i, phi_j) ~ P(1,1) = 1/4 + gamma, P(+-) = P(-+) = 1/4, P(--) = 1/4 - gamma."""
    phi = rng.choice([-1.0, 1.0], size=(*shape, d))
    u = rng.random(shape)
    p11, p10, p01 = 0.25 + gamma, 0.25, 0.25
    a = np.where(u < p11, 1.0, np.where(u < p11 + p10, 1.0, np.where(u < p11 + p10 + p01, -1.0, -1.0)))
    b = np.where(u < p11, 1.0, np.where(u < p11 + p10, -1.0, np.where(u < p11 + p10 + p01, 1.0, -1.0)))
    phi[..., i] = a
    phi[..., j] = b
    return phi


@fill_doc(_DOC)
def parity_behaviour_sim(
    heads: tp.ParityHeads,
    gamma: float,
    M: int,
    n_prompts: int,
    seed: int,
    tasks: tuple[tuple[int, int], ...] = ((0, 1), (1, 0)),
    chunk: int = 20_000,
) -> dict[str, float]:
    """Finite-M evaluation of a parity model (Sec. 5.5 with G = I, ``docs/attention_parity.md``): prompts of M examples with labels
    ``y = phi_i phi_j``, ``zeta = y^T Phi / M``, ``g = sum_h a_h ReLU(sum_t zeta_t V^(h)_tt phi_{q,t})`` with
    ``V = C / (4 gamma)``. Returns the mean hinge loss (and SE) and the 0-1 error (g = 0 counts as wrong; a head's
    pre-activation, or g, within :data:`ZERO_RTOL` of the sum of its terms' magnitudes is 0: exact cancellations
    would otherwise count as right or wrong as round-off falls).

    Parameters
    ----------
    {{model}}
    M : int
        Examples per prompt, >= 1.
    n_prompts : int
        Number of prompts, >= 2.
    seed : int
        Seed of ``numpy.random.default_rng``.
    tasks : tuple of (i, j)
        The tasks, drawn uniformly per prompt.
    chunk : int
        Prompts per batch (capped so that one array stays near 32 MB).

    Returns
    -------
    dict of str to float
        ``hinge``, ``hinge_se``, ``err01``, ``err01_se``.

    Examples
    --------
    g_1* projects less noise than g_2* (Thm 5.5.2), so its finite-M hinge loss is lower:

    >>> import numpy as np
    >>> from theory import attention_parity as tap
    >>> a = parity_behaviour_sim(tap.parity_g1(1, 3), 0.2, M=64, n_prompts=2000, seed=0)
    >>> b = parity_behaviour_sim(tap.parity_construction(3), 0.2, M=64, n_prompts=2000, seed=1)
    >>> bool(b["hinge"] - a["hinge"] > 4 * np.hypot(a["hinge_se"], b["hinge_se"]))
    True
    >>> parity_behaviour_sim(tap.parity_g1(1, 3), 0.2, M=64, n_prompts=1, seed=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n_prompts must be an integer >= 2 (a mean and its standard error), got 1
    """
    seed = check_seed(seed)
    n_prompts = check_count(n_prompts, "n_prompts", minimum=2, why="a mean and its standard error")
    M = check_count(M, "M")
    chunk = check_count(chunk, "chunk")
    a, V = _head_arrays(heads, gamma)  # (m,), (m, d)
    d = V.shape[1]
    tasks = tuple(_check_tasks(tasks, d))
    if not tasks:
        raise InputError("tasks must hold at least one pair (i, j)", param="tasks")
    check_work(
        M * d,
        param="M",
        value=M,
        what=f"one prompt (M examples x d = {d} features)",
        hint="use a smaller M",
    )
    chunk = max(100, min(chunk, 4_000_000 // (M * d)))  # bound memory at ~32 MB per array
    check_allocation(
        6 * array_bytes(min(chunk, n_prompts), M, d),
        param="M",
        value=M,
        what=f"a batch of {min(chunk, n_prompts)} prompts (M, d = {d}) and its temporaries, in float64",
        hint="use a smaller M",
    )
    check_work(
        n_prompts * (M * d + len(V)),
        param="n_prompts",
        value=n_prompts,
        what=f"the simulation (n_prompts x M x d = {format_count(M * d)} entries per prompt)",
        hint="use fewer prompts",
    )
    rng = np.random.default_rng(seed)
    hinge, err = [], []
    done = 0
    while done < n_prompts:
        b = min(chunk, n_prompts - done)
        t = rng.integers(0, len(tasks), size=b)
        H = np.empty(b)
        Z = np.empty(b)
        for k, (i, j) in enumerate(tasks):
            sel = t == k
            nb = int(sel.sum())
            if nb == 0:
                continue
            Phi = _sample_phi(rng, (nb, M), d, i, j, gamma)
            y = Phi[..., i] * Phi[..., j]
            zeta = np.einsum("bm,bmd->bd", y, Phi) / M
            q = _sample_phi(rng, (nb,), d, i, j, gamma)
            yq = q[:, i] * q[:, j]
            # a sum that is 0 up to round-off (exact cancellations, left at +-1e-17 or at 0 as round-off fell) is 0,
            # in each head's pre-activation and in g, so the 0-1 error does not jump with a 1e-10 change of gamma
            pre = np.einsum("bd,hd,bd->bh", zeta, V, q)
            pre[np.abs(pre) <= ZERO_RTOL * np.einsum("bd,hd,bd->bh", np.abs(zeta), np.abs(V), np.abs(q))] = 0.0
            relu = np.maximum(pre, 0)
            g = relu @ a
            H[sel] = np.maximum(0, 1 - yq * g)
            zero = np.abs(g) <= ZERO_RTOL * (relu @ np.abs(a))  # g = 0 counts as wrong
            Z[sel] = ((yq * g <= 0) | zero).astype(float)
        hinge.append(H)
        err.append(Z)
        done += b
    H = np.concatenate(hinge)
    Z = np.concatenate(err)
    return {
        "hinge": float(H.mean()),
        "hinge_se": float(H.std(ddof=1) / np.sqrt(len(H))),
        "err01": float(Z.mean()),
        "err01_se": float(Z.std(ddof=1) / np.sqrt(len(Z))),
    }
