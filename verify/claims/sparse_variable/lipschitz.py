r"""Lemmas A.14-A.16 (the Lipschitz steps of the multi-layer covering bound, Thm A.17) and Lemma A.24 (softmax
truncation) of the Edelman thesis, App. A.1.7 and A.2.3.

The network is the thesis's (App. A.1.7): ``f(Z) = RowSoftmax(Z W_Q (Z W_K)^T) Z W_V``, a block
``g^(i+1) = Pi(sigma(Pi(f(g^(i)))) W_C)`` with ``Pi`` the row-wise projection onto the unit ball (Lemma A.9),
``g^(1) = X`` with rows in the unit ball, and the scalar output ``w^T g^(L+1)[CLS]`` (row 0 is [CLS]). Distances are
``||A^T||_{2,inf}``, the largest row norm. The bounds' constants come from :mod:`theory.sparse_variable`; the left
sides are measured here in float64 on random and adversarial instances.

A Lipschitz bound checked on sampled pairs is checked from below only: a pass says that no pair found (random, then
refined by local maximisation) exceeds it, not that none exists. The claims therefore also record how tight the bound
is on what was found, and include instances where the bound is attained, so that a bound that is too small by 1 %
fails there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics import sparse_variable as ns
from theory import sparse_variable as ts

from ..base import Claim, Observation, Resolution, RunContext, register
from ..judges import AtMost, MaxAbs, MaxRel, Requiring
from .common import SRC_A1, SRC_A2

# --------------------------------------------------------------------------------------------- the network (float64)


def _ball(Y: np.ndarray) -> np.ndarray:
    """``Pi_norm`` row by row: the projection onto the unit ball (Lemma A.9)."""
    return Y / np.maximum(1.0, np.linalg.norm(Y, axis=-1, keepdims=True))


def _rows(A: np.ndarray) -> float:
    """``||A^T||_{2,inf}``: the largest row norm."""
    return float(np.linalg.norm(A, axis=-1).max())


def _head(Z: np.ndarray, W: dict[str, np.ndarray]) -> np.ndarray:
    """``f(Z) = RowSoftmax(Z W_Q (Z W_K)^T) Z W_V`` (App. A.1.7; row tau attends with scores z_t^T W_K W_Q^T z_tau)."""
    return ns.softmax(Z @ W["Q"] @ np.swapaxes(Z @ W["K"], -1, -2)) @ Z @ W["V"]


def _block(Z: np.ndarray, W: dict[str, np.ndarray], sigma: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    return _ball(sigma(_ball(_head(Z, W))) @ W["C"])


def _spec(A: np.ndarray) -> float:
    return float(np.linalg.norm(A, 2))


def _random_rows(rng: np.random.Generator, T: int, d: int) -> np.ndarray:
    """T rows in the unit ball: random directions, radii uniform in [0, 1]."""
    Y = rng.normal(size=(T, d))
    return Y / np.linalg.norm(Y, axis=1, keepdims=True) * rng.uniform(0, 1, size=(T, 1))


# --------------------------------------------------------------------------------------------- Lemma A.14


@dataclass(frozen=True)
class HeadConfig:
    """``heads_per_norm`` random heads (T tokens of width d, head width k) for each target ``||W_K W_Q^T||_2`` in
    ``qk_norms`` (0: uniform attention, where the bound is attained); per head ``n_random`` random pairs (perturbation
    sizes log-uniform in [1e-4, 1]), the equal-shift pair, then ``restarts`` local maximisations (gradient ascent on
    the ratio, from the best pairs found: forward-difference gradient and line search, at most ``steps`` iterations)."""

    qk_norms: tuple[float, ...] = (0.0, 0.25, 1.0, 4.0)
    heads_per_norm: int = 2
    T: int = 4
    d: int = 3
    k: int = 2
    n_random: int = 200
    restarts: int = 4
    steps: int = 30
    seed: int = 0


def _heads(cfg: HeadConfig) -> list[dict[str, np.ndarray]]:
    """The config's heads (the same for predict and observe): W_Q rescaled so that ||W_K W_Q^T||_2 is the target."""
    rng = np.random.default_rng(cfg.seed)
    heads = []
    for q in cfg.qk_norms:
        for _ in range(cfg.heads_per_norm):
            WQ, WK, WV = (rng.normal(size=(cfg.d, cfg.k)) for _ in range(3))
            WQ *= q / _spec(WK @ WQ.T)
            heads.append({"Q": WQ, "K": WK, "V": WV})
    return heads


def _head_constant(W: dict[str, np.ndarray], softmax_constant: object = ts.C_SOFTMAX) -> float:
    return float(ts.head_input_lipschitz(_spec(W["V"]), _spec(W["K"] @ W["Q"].T), softmax_constant))


def _predict_a14(cfg: HeadConfig) -> list[float]:
    """Lemma A.14's constant ``||W_V||_2 (1 + 4 ||W_K W_Q^T||_2)`` of each head."""
    return [_head_constant(W) for W in _heads(cfg)]


def _head_ratios(W: dict[str, np.ndarray], Z: np.ndarray, Zh: np.ndarray) -> np.ndarray:
    """``||(f(Z) - f(Z'))^T||_{2,inf} / ||(Z - Z')^T||_{2,inf}`` for a batch of pairs ``(B, T, d)``."""
    gap = np.linalg.norm(Z - Zh, axis=-1).max(axis=-1)
    moved = np.linalg.norm(_head(Z, W) - _head(Zh, W), axis=-1).max(axis=-1)
    return np.where(gap > 0, moved / np.where(gap > 0, gap, 1.0), 0.0)


def _ascend(ratio: Callable[[np.ndarray], np.ndarray], y: np.ndarray, gap: float, steps: int) -> float:
    """Local maximisation of ``ratio`` (a batched function of flat parameter vectors) from ``y``: a forward-difference
    gradient (step ``1e-6 gap``, ``gap`` the pair's distance) and a line search over the step sizes 4^-j, j < 12."""
    best = float(ratio(y[None])[0])
    for _ in range(steps):
        h = 1e-6 * gap
        probe = y[None] + h * np.eye(y.size)
        grad = (ratio(probe) - best) / h
        norm = float(np.linalg.norm(grad))
        if not norm > 0:
            break
        trial = y[None] + (2.0 ** -np.arange(0, 24, 2))[:, None] * (grad / norm)[None]
        values = ratio(trial)
        i = int(np.argmax(values))
        if not values[i] > best:
            break
        y, best = trial[i], float(values[i])
    return best


def _worst_head_ratio(W: dict[str, np.ndarray], cfg: HeadConfig, rng: np.random.Generator) -> tuple[float, int]:
    """The largest ratio found for one head, and how many local maximisations improved on the pairs they started
    from."""
    T, d = cfg.T, cfg.d
    Z = _random_rows(rng, cfg.n_random * T, d).reshape(cfg.n_random, T, d)
    Zh = _ball(Z + 10 ** rng.uniform(-4, 0, size=(cfg.n_random, 1, 1)) * rng.normal(size=Z.shape))
    # every row shifted by the same small vector along W_V's top left singular vector (attained when W_K W_Q^T = 0)
    u = np.linalg.svd(W["V"])[0][:, 0]
    Z0 = 0.5 * _random_rows(rng, T, d)
    Z, Zh = np.concatenate([Z, Z0[None]]), np.concatenate([Zh, (Z0 + 1e-3 * u)[None]])
    ratios = _head_ratios(W, Z, Zh)
    best, improved = float(ratios.max()), 0

    def ratio(y: np.ndarray) -> np.ndarray:
        Y = _ball(y.reshape(-1, 2, T, d))
        return _head_ratios(W, Y[:, 0], Y[:, 1])

    for i in np.argsort(-ratios)[: cfg.restarts]:
        found = _ascend(ratio, np.stack([Z[i], Zh[i]]).ravel(), float(np.abs(Z[i] - Zh[i]).max()), cfg.steps)
        improved += int(found > ratios[i] * (1 + 1e-9))
        best = max(best, found)
    return best, improved


def _observe_a14(cfg: HeadConfig, ctx: RunContext) -> Observation:
    rng = np.random.default_rng(cfg.seed + 1)
    heads = _heads(cfg)
    found = [_worst_head_ratio(W, cfg, rng) for W in heads]
    worst = [r for r, _ in found]
    printed = [_head_constant(W) for W in heads]
    sharp = [_head_constant(W, ts.softmax_linf_to_l1_constant()) for W in heads]
    return Observation(
        worst,
        details={
            "qk_norm": [round(_spec(W["K"] @ W["Q"].T), 6) for W in heads],
            "tightness_printed": [round(r / c, 4) for r, c in zip(worst, printed)],
            "sharpened_constant": sharp,
            "tightness_sharpened": [round(r / c, 4) for r, c in zip(worst, sharp)],
            "within_sharpened_constant": bool(all(r <= c * (1 + 1e-9) for r, c in zip(worst, sharp))),
            "improved_by_local_maximisation": sum(i for _, i in found),
            "pairs_per_head": cfg.n_random + 1,
        },
    )


register(
    Claim(
        id="edelman-ch4-lemA14-head-lipschitz",
        source=f"{SRC_A1}.7, Lemma A.14",
        statement="For inputs Z, Z' in R^{T x d} with rows in the unit ball, an attention head f(Z) = "
        "RowSoftmax(Z W_Q (Z W_K)^T) Z W_V satisfies ||(f(Z) - f(Z'))^T||_{2,inf} <= ||W_V||_2 (1 + 4 ||W_K W_Q^T||_2) "
        "||(Z - Z')^T||_{2,inf}. Checked from below only: the largest ratio found over random pairs refined by local "
        "maximisation (gradient ascent) must not exceed the constant; no pair exceeds even the sharpened constant ||W_V||_2 "
        "(1 + 2 ||W_K W_Q^T||_2) (the proof with the softmax's sharp l_inf -> l_1 constant 1 instead of Cor. A.7's 2). At "
        "W_K W_Q^T = 0 the bound is attained (ratio 1); for ||W_K W_Q^T||_2 = 1/4, 1, 4 the largest ratios found are "
        "about 1/2, 1/5 and 1/10 of the printed constant (record: tightness_printed): whether the constant is that "
        "loose or the search misses the worst pairs, the check cannot tell.",
        kind="numeric",
        configs={
            "quick": HeadConfig(),
            "full": HeadConfig(
                qk_norms=(0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
                heads_per_norm=5,
                T=8,
                d=6,
                k=4,
                n_random=2000,
                restarts=16,
                steps=100,
            ),
        },
        predict=_predict_a14,
        observe=_observe_a14,
        judge=Requiring(AtMost(slack=1e-9, relative=True), ("within_sharpened_constant",)),
        note="True as printed but looser than its proof needs: with the softmax's sharp l_inf -> l_1 constant 1 "
        "(edelman-ch4-corA7-softmax) in place of Cor. A.7's C_softmax = 2 the same chain gives ||W_V||_2 (1 + 2 "
        "||W_K W_Q^T||_2), which the search does not exceed either (within_sharpened_constant).",
        resolution=Resolution(
            rel=0.95,
            why="a Lipschitz constant checked from below by search: the printed constant is attained at W_K W_Q^T = 0 "
            "(1 % detected there) but the ratios found stay well below it for ||W_K W_Q^T||_2 > 0",
        ),
    )
)


# --------------------------------------------------------------------------------------------- Lemmas A.15, A.16


@dataclass(frozen=True)
class BlockConfig:
    """``n_random`` random networks of ``L`` blocks (T tokens of width d, head width k = d; weight scales log-uniform
    in [0.1, 3], every weight moved by a size log-uniform in [1e-4, 1], sigma = tanh), and ``n_tight`` instances of
    each family where the bound is attained (docstring of :func:`theory.sparse_variable.perturbation_bound_sharp_ratio`)."""

    n_random: int = 150
    n_tight: int = 20
    L: int = 2
    T: int = 4
    d: int = 3
    seed: int = 0


Weights = dict[str, np.ndarray]
#: Float64 rounding allowed in a ratio of the two sides (a difference of outputs 1e-4 apart loses up to ~1e-10 of it).
_ROUNDING = 1e-6


def _identity(a: np.ndarray) -> np.ndarray:
    return a


def _random_weights(rng: np.random.Generator, d: int, scale: float) -> Weights:
    return {name: scale * rng.normal(size=(d, d)) / np.sqrt(d) for name in "QKVC"}


def _moved(rng: np.random.Generator, W: Weights, size: float, names: str = "QKVC") -> Weights:
    return {name: A + (size * rng.normal(size=A.shape) if name in names else 0.0) for name, A in W.items()}


def _forward(X: np.ndarray, blocks: list[Weights], sigma: Callable[[np.ndarray], np.ndarray]) -> list[np.ndarray]:
    """``g^(1) = X, ..., g^(L+1)``."""
    gs = [X]
    for W in blocks:
        gs.append(_block(gs[-1], W, sigma))
    return gs


def _a15_sides(
    g: np.ndarray, gh: np.ndarray, W: Weights, Wh: Weights, sigma: Callable[[np.ndarray], np.ndarray]
) -> tuple[float, float]:
    """Both sides of Lemma A.15 for one block: the distance of the outputs and the bound (its constants B_V, B_QK,
    B_C are the spectral norms of the unhatted weights, the ones the proof uses; L_sigma = 1)."""
    lhs = _rows(_block(g, W, sigma) - _block(gh, Wh, sigma))
    a_hat = sigma(_ball(_head(gh, Wh)))
    rhs = ts.block_perturbation_bound(
        out_term=_rows(a_hat @ (W["C"] - Wh["C"])),
        input_gap=_rows(g - gh),
        score_term=_rows(gh @ (W["Q"] @ W["K"].T - Wh["Q"] @ Wh["K"].T).T),
        value_term=_rows(gh @ (W["V"] - Wh["V"])),
        value_norm=_spec(W["V"]),
        qk_norm=_spec(W["K"] @ W["Q"].T),
        out_norm=_spec(W["C"]),
    )
    return lhs, float(rhs)


def _scaled(rng: np.random.Generator, d: int, top: float) -> Weights:
    """Random weights with every spectral norm ``top`` (< 1 keeps every projection inactive)."""
    W = _random_weights(rng, d, 1.0)
    return {name: top * A / _spec(A) for name, A in W.items()}


def _network_cases(cfg: BlockConfig, rng: np.random.Generator) -> dict[str, list[tuple]]:
    """The instances: ``(X, blocks, blocks_hat, sigma)`` per family."""
    T, d = cfg.T, cfg.d
    cases: dict[str, list[tuple]] = {"only_W_C": [], "only_W_V": [], "random": []}
    for _ in range(cfg.n_tight):
        W = _scaled(rng, d, 0.9)
        cases["only_W_C"].append((_random_rows(rng, T, d), [W], [_moved(rng, W, 1e-2, "C")], np.tanh))
        W = _scaled(rng, d, 0.9)
        q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        W["C"] = 0.9 * q  # B_C times an isometry
        z = _random_rows(rng, 1, d)
        X = np.repeat(z, T, axis=0)  # equal tokens
        cases["only_W_V"].append((X, [W], [_moved(rng, W, 1e-2, "V")], _identity))
    for _ in range(cfg.n_random):
        blocks = [_random_weights(rng, d, float(10 ** rng.uniform(-1, np.log10(3)))) for _ in range(cfg.L)]
        hats = [_moved(rng, W, float(10 ** rng.uniform(-4, 0))) for W in blocks]
        cases["random"].append((_random_rows(rng, T, d), blocks, hats, np.tanh))
    return cases


def _ratio_observation(ratios: dict[str, list[float]], tight: tuple[str, ...], **details: Any) -> Observation:
    """The largest ratio (left side)/(right side) of each family in ``ratios``: observed for the families ``tight``
    (where the bound is attained, predicted 1), and in the details with whether no family exceeds 1 beyond
    :data:`_ROUNDING`; ``details`` adds the counts."""
    worst = {key: float(max(v)) for key, v in ratios.items()}
    return Observation(
        [worst[key] for key in tight],
        details={
            "largest_ratio": {key: round(v, 6) for key, v in worst.items()},
            "never_exceeds_bound": bool(max(worst.values()) <= 1 + _ROUNDING),
            **details,
        },
    )


def _observe_a15(cfg: BlockConfig, ctx: RunContext) -> Observation:
    cases = _network_cases(cfg, np.random.default_rng(cfg.seed))
    ratios: dict[str, list[float]] = {"only_W_C": [], "only_W_V": [], "random_block_1": [], "random_later_blocks": []}
    for family, items in cases.items():
        for X, blocks, hats, sigma in items:
            gs, ghs = _forward(X, blocks, sigma), _forward(X, hats, sigma)
            for i, (W, Wh) in enumerate(zip(blocks, hats)):
                lhs, rhs = _a15_sides(gs[i], ghs[i], W, Wh, sigma)
                key = family if family != "random" else ("random_block_1" if i == 0 else "random_later_blocks")
                ratios[key].append(lhs / rhs if rhs > 0 else 0.0)
    return _ratio_observation(ratios, ("only_W_C", "only_W_V"), instances={key: len(v) for key, v in ratios.items()})


def _predict_sharp(cfg: BlockConfig) -> list[float]:
    """The sharp supremum 1 of (left side)/(right side), attained by each of the two families."""
    return [float(ts.perturbation_bound_sharp_ratio())] * 2


_BLOCK_FULL = BlockConfig(n_random=5000, n_tight=200, L=4, T=8, d=6)

register(
    Claim(
        id="edelman-ch4-lemA15-block-recursion",
        source=f"{SRC_A1}.7, Lemma A.15",
        statement="For a Transformer block g^(i+1) = Pi(sigma(Pi(f(g^(i); W_Q, W_K, W_V))) W_C) (Pi the row-wise "
        "projection onto the unit ball, sigma L_sigma-Lipschitz), ||(g^(i+1)(X; W) - g^(i+1)(X; W'))^T||_{2,inf} <= "
        "||(W_C - W_C')^T sigma(Pi(f(g'; W')))^T||_{2,inf} + L_sigma B_C B_V (1 + 4 B_QK) ||(g^(i) - g'^(i))^T||_{2,inf} "
        "+ 2 L_sigma B_C B_V ||(W_Q W_K^T - W_Q' W_K'^T) g'^T||_{2,inf} + L_sigma B_C ||(W_V - W_V')^T g'^T||_{2,inf} "
        "(B = spectral norms of W). Checked on random multi-block networks (all weights moved; the ratio of the two "
        "sides must not exceed 1 in any block) and on two families where the bound is attained (ratio 1): only W_C "
        "moves with inactive projections, and only W_V moves on equal tokens with W_C a multiple of an isometry.",
        kind="numeric",
        configs={"quick": BlockConfig(), "full": _BLOCK_FULL},
        predict=_predict_sharp,
        observe=_observe_a15,
        judge=Requiring(MaxAbs(_ROUNDING), ("never_exceeds_bound",)),
    )
)


def _observe_a16(cfg: BlockConfig, ctx: RunContext) -> Observation:
    rng = np.random.default_rng(cfg.seed + 1)
    cases = _network_cases(cfg, rng)
    ratios: dict[str, list[float]] = {"only_w": [], "w_along_cls_gap": [], "random": []}
    for X, blocks, hats, sigma in cases["random"]:
        g, gh = _forward(X, blocks, sigma)[-1][0], _forward(X, hats, sigma)[-1][0]  # the [CLS] row
        w = rng.normal(size=cfg.d)
        moved = w + 10 ** rng.uniform(-4, 0) * rng.normal(size=cfg.d)
        along = (g - gh) / max(float(np.linalg.norm(g - gh)), 1e-300)
        # (w, w', [CLS] row of g(X; W), [CLS] row of g(X; W')) per family
        for family, (w1, w2, out1, out2) in {
            "only_w": (w, moved, g, g),
            "w_along_cls_gap": (along, along, g, gh),
            "random": (w, moved, g, gh),
        }.items():
            lhs = abs(float(w1 @ out1 - w2 @ out2))
            rhs = float(
                ts.scalar_output_bound(
                    float(np.linalg.norm(w1)), float(np.linalg.norm(out1 - out2)), abs(float((w1 - w2) @ out2))
                )
            )
            ratios[family].append(lhs / rhs if rhs > 0 else 0.0)
    return _ratio_observation(ratios, ("only_w", "w_along_cls_gap"), networks=len(cases["random"]))


register(
    Claim(
        id="edelman-ch4-lemA16-scalar-output",
        source=f"{SRC_A1}.7, Lemma A.16",
        statement="For the scalar output g_scalar(X; W, w) = w^T g^(L+1)(X; W)[CLS], |g_scalar(X; W, w) - "
        "g_scalar(X; W', w')| <= ||w|| ||g^(L+1)(X; W)[CLS] - g^(L+1)(X; W')[CLS]|| + |(w - w')^T g^(L+1)(X; W')[CLS]|. "
        "Checked on random multi-block networks with every weight and w moved (ratio of the two sides <= 1) and on the "
        "two families where it is attained (ratio 1): only w moves; only the blocks move with w along the [CLS] gap.",
        kind="numeric",
        configs={"quick": BlockConfig(), "full": _BLOCK_FULL},
        predict=_predict_sharp,
        observe=_observe_a16,
        judge=Requiring(MaxAbs(_ROUNDING), ("never_exceeds_bound",)),
    )
)


# --------------------------------------------------------------------------------------------- Lemma A.24


@dataclass(frozen=True)
class TruncationConfig:
    """Cases ``(T, s, R)`` and ``n_random`` random score vectors per case (kept scores ``R + Exp``, the others
    ``-Exp`` or ``-inf``, exponential scales log-uniform in [0.01, 10]), plus the extreme vector (R on the kept
    positions, 0 elsewhere)."""

    cases: tuple[tuple[int, int, int], ...] = tuple(
        (T, s, R) for T in (2, 8, 64) for s in sorted({1, T // 2, T - 1}) for R in (-1, 0, 1, 5, 10)
    )
    n_random: int = 200
    seed: int = 0


def _truncation_distance(z: np.ndarray, s: int) -> np.ndarray:
    """``||softmax(z') - softmax(z)||_1`` row by row, z' = z on the first s positions and -inf after (e^-inf = 0).

    In extended precision (``np.longdouble``): at R = 12 the distance is ~1e-8 and is a sum of differences of
    probabilities of order 1, where float64 loses ~1e-8 of it (numerics.sparse_variable.softmax is float64)."""
    zl = z.astype(np.longdouble)
    e = np.exp(zl - zl.max(axis=-1, keepdims=True))  # exp(-inf) = 0
    p = e / e.sum(axis=-1, keepdims=True)
    kept = e[..., :s] / e[..., :s].sum(axis=-1, keepdims=True)
    return (np.abs(kept - p[..., :s]).sum(axis=-1) + p[..., s:].sum(axis=-1)).astype(np.float64)


def _observe_a24(cfg: TruncationConfig, ctx: RunContext) -> Observation:
    rng = np.random.default_rng(cfg.seed)
    found, exceed = [], 0
    for T, s, R in cfg.cases:
        n = cfg.n_random
        scale = 10 ** rng.uniform(-2, 1, size=(n, 1))
        z = np.concatenate(
            [R + rng.exponential(size=(n, s)) * scale, -rng.exponential(size=(n, T - s)) * scale], axis=1
        )
        z[:, s:][rng.uniform(size=(n, T - s)) < 0.2] = -np.inf
        extreme = np.concatenate([np.full(s, float(R)), np.zeros(T - s)])
        dist = _truncation_distance(np.vstack([z, extreme]), s)
        exceed += int(np.sum(dist > float(ts.softmax_truncation_bound(T, s, R)) * (1 + 1e-12)))
        found.append(float(dist.max()))
    bounds = [float(ts.softmax_truncation_bound(T, s, R)) for T, s, R in cfg.cases]
    return Observation(
        found,
        details={
            "cases": [list(c) for c in cfg.cases],
            "printed_bound": bounds,
            "largest_over_printed_bound": round(max(f / b for f, b in zip(found, bounds)), 9),
            "within_printed_bound": exceed == 0,
            "score_vectors": len(cfg.cases) * (cfg.n_random + 1),
        },
    )


register(
    Claim(
        id="edelman-ch4-lemA24-softmax-truncation",
        source=f"{SRC_A2}.3, Lemma A.24",
        statement="For z with z_t >= R (t <= s) and z_t <= 0 (t > s), and z' = z on the first s positions and -inf "
        "after: ||softmax(z') - softmax(z)||_1 <= 2(T - s)/(s e^R) < 2T/e^R. Checked on random score vectors (none may "
        "exceed the printed bound) and against the exact supremum 2(T - s)/(s e^R + T - s), attained at z = (R, ..., "
        "R, 0, ..., 0): below the printed bound by the factor s e^R/(s e^R + T - s), which tends to 1 as R grows.",
        kind="numeric",
        configs={
            "quick": TruncationConfig(),
            "full": TruncationConfig(
                cases=tuple(
                    (T, s, R)
                    for T in (2, 8, 64, 1024)
                    for s in sorted({1, 2, T // 2, T - 1} - {T})
                    for R in (-2, -1, 0, 1, 2, 5, 10, 12)
                ),
                n_random=2000,
            ),
        },
        predict=lambda cfg: [float(ts.softmax_truncation_sup(T, s, R)) for T, s, R in cfg.cases],
        observe=_observe_a24,
        judge=Requiring(MaxRel(1e-9), ("within_printed_bound",)),
        note="The prediction is the exact supremum (theory.sparse_variable.softmax_truncation_sup); the printed bound "
        "2(T - s)/(s e^R) is checked as the requirement within_printed_bound. The proof's two sums are each m/(a + m) "
        "with a = sum_{t <= s} e^{z_t} >= s e^R and m = sum_{t > s} e^{z_t} <= T - s; the printed bound drops m from "
        "the denominator.",
    )
)
