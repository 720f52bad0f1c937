"""Explicit ReLU networks that interpolate a sparse parity (Edelman thesis Lemma B.4 / Claim 5, App. B.2.1, and
Lemma C.6 / Thm C.11, App. C.2.2): on {±1}^n, chi_S(x) depends on x only through s = sum_{j in S} x_j, as
chi(s) = (-1)^((k-s)/2), so a one-hidden-layer network of ReLU(±s/(2k) + b) features interpolates it once its
features span the k+1 lattice values s = -k, -k+2, ..., k.

Predicted values (chi on the lattice) come from :mod:`theory.interpolation`; observations evaluate the
constructed networks on every point of the cube {±1}^(k + extra) (float64 for Claim 5, exact rationals for
Lemma C.6, whose weights are too ill-conditioned for float64) and solve float64 least squares on the lattice.
The errata are explained in ``docs/boolean.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from numerics import walsh as nw
from theory import interpolation as ti

from .base import Claim, Erratum, Observation, RunContext, register
from .judges import ExactlyEqual, MaxAbs, RefutedIfDiffers

SRC = "Edelman thesis (2024)"


@dataclass(frozen=True)
class InterpolationConfig:
    """Parity degrees k; ``extra`` irrelevant coordinates in the cube the networks are evaluated on."""

    ks: tuple[int, ...] = (2, 4, 6, 8)
    extra: int = 2


def _parity_twice(k: int, scale: int = 1) -> list[int]:
    """scale chi(s) for every lattice point s, twice (the prediction for the min and the max of the network over
    the cube points with that s)."""
    return [scale * c for c in ti.parity_on_lattice(k) for _ in range(2)]


def _relu(z: np.ndarray) -> np.ndarray:
    return np.maximum(z, 0.0)


def _lattice_lstsq(Phi: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The float64 least-squares fit Phi c of y on the lattice (independent of the exact solve in theory)."""
    coef, *_ = np.linalg.lstsq(Phi, y, rcond=None)
    return Phi @ coef


def _min_max_by_sum(k: int, sums: np.ndarray, f: list) -> list:
    """[min, max] of the network values f over the cube points with s = sum_{j in S} x_j, for every lattice s."""
    out = []
    for s in ti.lattice(k):
        vals = [v for v, t in zip(f, sums.tolist()) if t == s]
        out += [min(vals), max(vals)]
    return out


def _relu_network_on_cube(k: int, extra: int, biases: list[float], weights: list[float]) -> tuple[list, np.ndarray]:
    """sum_i u_i ReLU(s/(2k) + b_i), s = sum_{j in S} x_j, at every cube point (float64): [min, max] per lattice s,
    and the lattice least-squares residual over the same features."""
    X = nw.cube(k + extra).astype(np.float64)
    s = X[:, :k].sum(axis=1)
    f = _relu(s[:, None] / (2 * k) + np.asarray(biases)[None, :]) @ np.asarray(weights, dtype=np.float64)
    return _min_max_by_sum(k, s.astype(int), f.tolist()), s


# --- Lemma B.4 / Claim 5 (Edelman thesis, App. B.2.1): k+1 ReLUs interpolate the parity


def _observe_claim5(cfg: InterpolationConfig, ctx: RunContext) -> Observation:
    """The corrected Claim 5 network (theory's biases and weights) on every cube point, float64."""
    out, rows = [], []
    for k in cfg.ks:
        biases = [float(b) for b in ti.claim5_corrected_biases(k)]
        weights = ti.claim5_corrected_weights(k)
        values, _ = _relu_network_on_cube(k, cfg.extra, biases, [float(u) for u in weights])
        out += values
        lat = np.asarray(ti.lattice(k), dtype=np.float64)
        Phi = _relu(lat[:, None] / (2 * k) + np.asarray(biases)[None, :])
        y = np.asarray(ti.parity_on_lattice(k), dtype=np.float64)
        rows.append(
            {
                "k": k,
                "weights": weights,
                "max_abs_weight": max(abs(u) for u in weights),
                "lstsq_residual_float64": float(np.linalg.norm(_lattice_lstsq(Phi, y) - y)),
            }
        )
    return Observation(
        out, details={"per_k": rows, "order": "per k, per lattice s: min and max over the cube points with that s"}
    )


register(
    Claim(
        id="edelman-ch5-lemB.4-construction",
        source=f"{SRC}, Lemma B.4 / Claim 5 corrected (docs/boolean.md, errata)",
        statement="k+1 ReLUs ReLU(s/(2k) + 1/2 - (2i-1)/(2k)), i = 0..k, s = sum_{j in S} x_j, with u_0 = (-1)^k 2k, "
        "u_i = (-1)^(i+k) 8k i, give sum_i u_i ReLU(.) = chi_S(x) for every x in {±1}^n "
        "(k = 4: u = (8, -32, 64, -96, 128); ||u||_inf = 8k^2, above the 8k of Lemma B.4). Checked in float64 on every "
        "point of the cube.",
        kind="symbolic",
        configs={"quick": InterpolationConfig(), "full": InterpolationConfig(ks=(1, 2, 3, 4, 5, 6, 7, 8, 10, 12))},
        predict=lambda cfg: [c for k in cfg.ks for c in _parity_twice(k)],
        observe=_observe_claim5,
        judge=MaxAbs(1e-9),
    )
)


_SCHEDULES = ("i+1", "i")


def _observe_claim5_printed(cfg: InterpolationConfig, ctx: RunContext) -> Observation:
    """The printed Claim 5 network (both bias schedules) on every cube point; the exact least-squares residual of
    2 chi over the printed features (positive: no output weights work)."""
    out, ce = [], {}
    for k in cfg.ks:
        for sched in _SCHEDULES:
            th = ti.claim5_as_printed(k, sched)
            biases = [float(b) for b in ti.claim5_printed_biases(k, sched)]
            values, _ = _relu_network_on_cube(k, cfg.extra, biases, [float(u) for u in th["weights"]])
            out += values
            lat = np.asarray(ti.lattice(k), dtype=np.float64)
            Phi = _relu(lat[:, None] / (2 * k) + np.asarray(biases)[None, :])
            y = 2.0 * np.asarray(ti.parity_on_lattice(k), dtype=np.float64)
            ce[f"k={k}, b_i = -1/2 + ({sched})/k"] = {
                "s": ti.lattice(k),
                "f*(s) printed weights": [str(v) for v in th["values"]],
                "claimed 2 chi(s)": th["target"],
                "printed weights": [int(u) for u in th["weights"]],
                "least-squares residual squared (exact)": str(th["lsq"].residual_sq),
                "least-squares residual": th["lsq"].residual_norm,
                "numeric lattice residual": float(np.linalg.norm(_lattice_lstsq(Phi, y) - y)),
            }
    return Observation(
        out,
        details={"order": "per k and bias schedule (i+1, then i), per lattice s: min and max over the cube"},
        counterexample=ce,
    )


register(
    Claim(
        id="edelman-ch5-lemB.4-construction-as-printed",
        source=f"{SRC}, Lemma B.4 / Claim 5 as printed (docs/boolean.md, errata)",
        statement="As printed: with b_i = -1/2 + (i+1)/k (Lemma B.4) or -1/2 + i/k (Lemma B.5), i = 1..k, and "
        "u*_i = 8k(-1)^(i+1) (i <= k-2), u*_(k-1) = 6k, u*_k = -2k, f*(x) = sum_i u*_i ReLU(sum_{j<=k} x_j/(2k) + b_i) "
        "equals 2 chi_[k](x) for all x; the counterexample also shows that no output weights fix it.",
        kind="symbolic",
        configs={"quick": InterpolationConfig(), "full": InterpolationConfig(ks=(2, 4, 6, 8, 10, 12))},
        predict=lambda cfg: [c for k in cfg.ks for _ in _SCHEDULES for c in _parity_twice(k, 2)],
        observe=_observe_claim5_printed,
        judge=RefutedIfDiffers(1e-9),
        refutes="f*(x) = sum_{i=1}^k u*_i sigma(x_[k]/(2k) + b_i) = 2 chi_[k](x) with u*_i = 8k(-1)^(i+1), "
        "u*_(k-1) = 6k, u*_k = -2k",
        corrected_by="edelman-ch5-lemB.4-construction",
        erratum=Erratum(
            "substantive",
            "Claim 5: Let b_1, ..., b_k be the functions defined in the previous claim. Then, there exists "
            "weights u^* with ||u^*||_inf <= 8k s.t. for f^*(x) = sum_{i=1}^k u_i^* b_i(x) it holds that f^*(x) "
            "= 2 chi_{[k]}(x) for all x in {+-1}^n. Proof: For i <= k-2 define u_i^* = 8k(-1)^{i+1} and "
            "u_{k-1}^* = 6k, u_k^* = -2k. [Lemma B.4:] b_i = -1/2 + (i+1)/k [proof of Lemma B.5:] the "
            "probability that b_i = -1/2 + i'/k is 1/(2k)",
            "Edelman thesis (2024), App. B.2.1 (App. B.2, pp. 196-223 in the table of contents), Lemma B.4 and "
            "Claim 5 of its proof; the bias schedule of the proof of Lemma B.5",
        ),
    )
)


# --- Lemma C.6 / Thm C.11 (Edelman thesis, App. C.2.2): the bias grid of the sparse initialisation


def _features(k: int, printed: bool) -> tuple[dict, np.ndarray]:
    """Theory's Lemma C.6 features and the float64 feature matrix {1, ReLU(±s/(2k) + beta_j)} on the lattice."""
    th = ti.c6_features(k, printed)
    bf = np.array([float(b) for b in th["betas"]])
    lat = np.asarray(ti.lattice(k), dtype=np.float64)
    Phi = np.column_stack(
        [np.ones_like(lat)] + [_relu(lat / (2 * k) + b) for b in bf] + [_relu(-lat / (2 * k) + b) for b in bf]
    )
    return th, Phi


def _observe_c6(cfg: InterpolationConfig, ctx: RunContext) -> Observation:
    """The Lemma C.6 network with theory's exact least-squares output weights, evaluated on every cube point in
    exact rational arithmetic (the weights grow like 32k per step: too ill-conditioned for float64)."""
    out, rows = [], []
    for k in cfg.ks:
        th, Phi = _features(k, printed=False)
        betas = [Fraction(str(b)) for b in th["betas"]]
        w = [Fraction(str(c)) for c in th["lsq"].weights]
        X = nw.cube(k + cfg.extra).tolist()
        f = []
        for x in X:
            sx = sum(x[:k])
            feats = (
                [Fraction(1)]
                + [max(Fraction(sx, 2 * k) + b, Fraction(0)) for b in betas]
                + [max(Fraction(-sx, 2 * k) + b, Fraction(0)) for b in betas]
            )
            f.append(sum((a * c for a, c in zip(feats, w)), Fraction(0)))
        out += _min_max_by_sum(k, np.array([sum(x[:k]) for x in X]), f)
        y = np.asarray(th["target"], dtype=np.float64)
        rows.append(
            {
                "k": k,
                "index_set": th["index_set"],
                "n_features": 1 + 2 * len(betas),
                "n_points": k + 1,
                "weights": [str(c) for c in w],
                "exact_residual_sq": str(th["lsq"].residual_sq),
                "lstsq_residual_float64": float(np.linalg.norm(_lattice_lstsq(Phi, y) - y)),
            }
        )
    return Observation(
        out, details={"per_k": rows, "order": "per k, per lattice s: min and max over the cube points with that s"}
    )


_C6_CONFIGS = {"quick": InterpolationConfig(ks=(2, 4, 6, 8)), "full": InterpolationConfig(ks=(2, 4, 6, 8, 10, 12))}

register(
    Claim(
        id="edelman-ch6-lemC.6-bias-grid",
        source=f"{SRC}, Lemma C.6 / Thm C.11 init with the corrected index set (docs/boolean.md, errata)",
        statement="With beta_j = (-k + 2j + 1/16)/(2k) for j = 0..k/2-1 (k even), the k+1 features {1, ReLU(±s/(2k) + "
        "beta_j)} interpolate chi(s) = (-1)^((k-s)/2) exactly on s in {-k, ..., k}, hence some output weights give "
        "chi_S(x) for all x (the network evaluated on every cube point in rationals).",
        kind="symbolic",
        configs=_C6_CONFIGS,
        predict=lambda cfg: [c for k in cfg.ks for c in _parity_twice(k)],
        observe=_observe_c6,
        judge=ExactlyEqual(),
    )
)


def _observe_c6_printed(cfg: InterpolationConfig, ctx: RunContext) -> Observation:
    """The best any output weights can do over the printed features: the float64 least-squares fit on the lattice."""
    out, ce = [], {}
    for k in cfg.ks:
        th, Phi = _features(k, printed=True)
        y = np.asarray(th["target"], dtype=np.float64)
        fit = _lattice_lstsq(Phi, y)
        out += fit.tolist()
        ce[f"k={k}"] = {
            "index_set": th["index_set"],
            "n_features": Phi.shape[1],
            "n_points": k + 1,
            "target": th["target"],
            "best_fit": fit.tolist(),
            "exact_residual_sq": str(th["lsq"].residual_sq),
            "residual": th["lsq"].residual_norm,
            "lstsq_residual_float64": float(np.linalg.norm(fit - y)),
        }
    return Observation(out, details={"order": "per k, per lattice s: the best least-squares fit"}, counterexample=ce)


register(
    Claim(
        id="edelman-ch6-thmC.11-bias-grid-as-printed",
        source=f"{SRC}, Thm C.11 init / Lemma C.6 proof as printed (docs/boolean.md, errata)",
        statement="As printed: with biases {beta_1, ..., beta_(k/2-1)}, beta_j = (-k + 2j + 1/16)/(2k), the features "
        "v(s) = (1, v_1^+(s), ..., v_(k/2-1)^+(s), v_1^-(s), ..., v_(k/2-1)^-(s)) have linearly independent rows and "
        "some v gives v(s)^T v = chi(s) for every s in {-k, ..., k}; observed: the best least-squares fit (only k-1 "
        "features for k+1 lattice points, none but the constant for k = 2).",
        kind="symbolic",
        configs=_C6_CONFIGS,
        predict=lambda cfg: [c for k in cfg.ks for c in ti.parity_on_lattice(k)],
        observe=_observe_c6_printed,
        judge=RefutedIfDiffers(1e-9),
        refutes="b_i ~ Unif{beta_1, ..., beta_(k/2-1)}: V = {v(s)} in R^(k x k) has linearly independent rows, so "
        "v(s)^T v = chi(s)",
        corrected_by="edelman-ch6-lemC.6-bias-grid",
        erratum=Erratum(
            "notation",
            "Randomly initialize b_1, ..., b_{r/2} ~ {beta_1, ..., beta_{k/2-1}} where beta_i = (1/(2k))(-k + 2i "
            "+ 1/16). ... [Proof of Lemma C.6:] Then, for every s in S denote v(s) = (1, v_1^+(s), ..., "
            "v_{k/2-1}^+(s), v_1^-(s), ..., v_{k/2-1}^-(s)) in R^k. Observe that V = {v(s)}_{s in S} in R^{k x "
            "k} has linearly independent rows, and therefore there exists v = (v_0, v_1^+, ..., v_{k/2-1}^+, "
            "v_1^-, ..., v_{k/2-1}^-) in R^k s.t. v(s)^T v = s mod 2.",
            "Edelman thesis (2024), App. C.2.2 (App. C.2, pp. 257-283 in the table of contents), the "
            "initialization used by Theorem C.11 and the proof of Lemma C.6",
        ),
    )
)
