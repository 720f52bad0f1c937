"""Exact (training-free) claims of Edelman Ch. 5/6: disjoint-PolyNet dynamics and plateau, explicit ReLU parity
interpolations (Lemma B.4 / Claim 5, Lemma C.6), and the epsilon-perturbed sparse neuron (Lemmas C.13-C.15,
Thm C.16).

Spec: ``shared/spec/majority_parity.md`` §2.5, §3, §5A A17-A19, A22-A24, §5B B4, errata E13, E15, E19, E22.
Predictions come from ``theory.polynet``, ``theory.interpolation`` and ``theory.sparse_init`` (exact); observations
from ``numerics.polynet`` (brute force over {±1}^n, scipy ODE integration, scipy.stats.binom) and numpy
evaluations of the constructed networks on the cube.

Registered by ``verify/claims/__init__.py``; tests import this module directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from numerics import polynet as npn
from numerics import walsh as nw
from theory import interpolation as ti
from theory import polynet as tp
from theory import sparse_init as tsi

from .base import Claim, Observation, RunContext, Verdict, judge_absolute, register

SRC = "Edelman thesis (2024)"


def _max_abs(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)))) if len(a) else 0.0


# ================================================================================= A17 population gradient
@dataclass(frozen=True)
class PolyCfg:
    k: int
    n_prime: int
    draws: int = 3
    seed: int = 0


def _poly_draws(cfg: PolyCfg) -> list[np.ndarray]:
    rng = np.random.default_rng(cfg.seed)
    return [rng.normal(size=(cfg.k, cfg.n_prime)) for _ in range(cfg.draws)]


def _predict_gradient(cfg: PolyCfg) -> list[float]:
    G = tp.population_gradient_formula(cfg.k, cfg.n_prime)
    out = []
    for W in _poly_draws(cfg):
        subs = {sympy.Symbol(f"w_{i}_{j}", real=True): float(W[i, j]) for i in range(cfg.k) for j in range(cfg.n_prime)}
        out += [float(g.subs(subs)) for row in G for g in row]
    return out


def _observe_gradient(cfg: PolyCfg, ctx: RunContext) -> Observation:
    out = []
    for W in _poly_draws(cfg):
        out += npn.population_gradient_bruteforce(W).ravel().tolist()
    sym = tp.population_gradient_symbolic(cfg.k, cfg.n_prime)
    formula = tp.population_gradient_formula(cfg.k, cfg.n_prime)
    same = all(sympy.expand(a - b) == 0 for ra, rb in zip(sym, formula) for a, b in zip(ra, rb))
    return Observation(
        out,
        seeds=(cfg.seed,),
        details={
            "n": cfg.k * cfg.n_prime,
            "draws": cfg.draws,
            "weights": "i.i.d. N(0,1)",
            "symbolic_derivation_equals_formula": same,
        },
    )


register(
    Claim(
        id="edelman-ch5-lemB.9-polynet-gradient",
        source=f"{SRC}, Sec. 5.4.2 / App. B.2.3 (disjoint-PolyNet population gradient; spec A17)",
        statement="For the disjoint-PolyNet f = prod_i <w_i, x_{P_i}> and the correlation loss -chi_S f (S = first coordinate of "
        "each block), E[grad_{w_i}] = -(prod_{j != i} v_j) e_1: the irrelevant weights get zero gradient.",
        kind="symbolic",
        configs={"quick": PolyCfg(3, 4), "full": PolyCfg(4, 4, draws=5)},
        predict=_predict_gradient,
        observe=_observe_gradient,
        judge=judge_absolute(1e-12, require="symbolic_derivation_equals_formula"),
        tolerance="absolute 1e-12 (float64 brute force over {±1}^(k n')); symbolic derivation == formula exactly",
    )
)


# ================================================================================= A18 exact error
@dataclass(frozen=True)
class ErrCfg:
    k: int = 3
    n_prime: int = 4
    spec_v: tuple[str, ...] = ("0.5", "1", "2", "2.5", "3", "3.5")
    random_draws: int = 20
    seed: int = 0


def _err_cases(cfg: ErrCfg) -> list[tuple[list[Fraction], list[list[int]]]]:
    """(v, u) cases: the spec's equal-v list with all-ones u, then random half-integer v (ties, zeros, signs) with
    random ±1 or integer irrelevant weights (non-binomial law of U)."""
    cases = [([Fraction(v)] * cfg.k, [[1] * (cfg.n_prime - 1)] * cfg.k) for v in cfg.spec_v]
    rng = np.random.default_rng(cfg.seed)
    for d in range(cfg.random_draws):
        v = [Fraction(int(x), 2) for x in rng.integers(-8, 9, cfg.k)]
        if d % 2:
            u = rng.choice([-1, 1], (cfg.k, cfg.n_prime - 1)).tolist()
        else:
            u = rng.integers(-3, 4, (cfg.k, cfg.n_prime - 1)).tolist()
        cases.append((v, u))
    return cases


def _predict_error(cfg: ErrCfg) -> list[Fraction]:
    return [tp.error(v, u) for v, u in _err_cases(cfg)]


def _observe_error(cfg: ErrCfg, ctx: RunContext) -> Observation:
    out = []
    for v, u in _err_cases(cfg):
        W = np.column_stack([np.array([float(x) for x in v]), np.array(u, dtype=np.float64)])
        out.append(npn.error_bruteforce(W))
    spec = {v: out[i] for i, v in enumerate(cfg.spec_v)}
    return Observation(
        out,
        seeds=(cfg.seed,),
        details={
            "spec_values_bruteforce": spec,
            "n": cfg.k * cfg.n_prime,
            "cases": len(out),
            "convention": "sign(0) = 0: an output exactly 0 counts as an error (Lemma B.9)",
        },
    )


register(
    Claim(
        id="edelman-ch5-lemB.9-exact-error",
        source=f"{SRC}, Lemma B.9 proof (eqs. B.9-B.12, with E13); spec §2.5, A18",
        statement="err(w) = 1 - [prod_i(a_i+b_i) + prod_i sign(v_i) prod_i(a_i-b_i)]/2 with a_i = P(U_i < |v_i|), "
        "b_i = P(U_i > |v_i|), U_i = u_i . z (output 0 counts as an error); spec values at k=3, n'=4, all-ones u: "
        "err(0.5, 1, 2, 2.5, 3, 3.5) = 0.5, 0.851562, 0.289062, 0.289062, 0.330078, 0 (not monotone in v).",
        kind="symbolic",
        configs={"quick": ErrCfg(), "full": ErrCfg(k=3, n_prime=5, random_draws=60)},
        predict=_predict_error,
        observe=_observe_error,
        judge=judge_absolute(1e-12),
        tolerance="absolute 1e-12 (exact Fractions vs float64 brute force over {±1}^(k n'))",
    )
)


# ================================================================================= A19 gradient flow
@dataclass(frozen=True)
class FlowCfg:
    ks: tuple[int, ...] = (2, 3, 4, 5)
    points: int = 25
    random_inits: int = 5
    seed: int = 0


def _flow_times(k: int, points: int) -> np.ndarray:
    t_max = 2.0 if k == 2 else 0.9 / (k - 2)
    return np.linspace(0.0, t_max, points)


def _predict_flow(cfg: FlowCfg) -> list[float]:
    return [float(tp.flow_solution(sympy.Float(t, 30), k)) for k in cfg.ks for t in _flow_times(k, cfg.points)]


def _observe_flow(cfg: FlowCfg, ctx: RunContext) -> Observation:
    out, worst_spread = [], 0.0
    for k in cfg.ks:
        V = npn.integrate_flow(np.ones(k), _flow_times(k, cfg.points), rtol=1e-10, atol=1e-12)
        out += V[:, 0].tolist()
    rng = np.random.default_rng(cfg.seed)
    spreads = []
    for _ in range(cfg.random_inits):
        k = int(rng.choice([3, 4, 5]))
        v0 = rng.uniform(0.3, 1.5, k) * rng.choice([-1, 1], k)
        if np.prod(v0) < 0:
            v0[0] = -v0[0]
        t_inf = float(np.prod(v0**2) ** (1 / k - 0.5) / (k - 2))  # Lemma B.8 blow-up bound (vg based)
        V = npn.integrate_flow(v0, np.linspace(0, 0.5 * t_inf, 20), rtol=1e-10, atol=1e-12)
        spread, _ = npn.squared_growth_spread(V, v0)
        spreads.append(spread)
        worst_spread = max(worst_spread, spread)
    return Observation(
        out,
        seeds=(cfg.seed,),
        details={
            "b7_max_relative_spread_of_v_i^2 - v_i(0)^2": worst_spread,
            "b7_spreads": spreads,
            "integrator": "scipy solve_ivp DOP853, rtol 1e-10, atol 1e-12",
            "t_max": "0.9 T_inf (k >= 3), 2 (k = 2)",
        },
    )


def _judge_flow(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    p = np.asarray(predicted, dtype=np.float64)
    rel = float(np.max(np.abs(np.asarray(obs.value) - p) / np.abs(p)))
    spread = obs.details["b7_max_relative_spread_of_v_i^2 - v_i(0)^2"]
    ok = rel <= 1e-6 and spread <= 1e-7
    return ("pass" if ok else "fail"), (
        f"max relative error of the closed form {rel:.2e} (tol 1e-6); B.7 spread of "
        f"v_i^2 - v_i(0)^2 across i {spread:.2e} (tol 1e-7)"
    )


register(
    Claim(
        id="edelman-ch5-thm5.7-gradient-flow",
        source=f"{SRC}, App. B.2.3 (gradient flow, eq. B.7, Lemma B.8); spec §2.5, A19",
        statement="Gradient flow dv_i/dt = prod_{j != i} v_j (i in [k]) from v_i(0) = 1 is v(t) = (1 - (k-2)t)^(-1/(k-2)) "
        "(k >= 3; blow-up at 1/(k-2)), e^t for k = 2; for any init with prod v_i(0) > 0, d(v_i^2)/dt = 2 prod_j v_j "
        "is the same for all i (B.7), so v_i^2 - v_i(0)^2 is common to all blocks.",
        kind="numeric",
        configs={"quick": FlowCfg(), "full": FlowCfg(ks=(2, 3, 4, 5, 6, 8), points=100, random_inits=30)},
        predict=_predict_flow,
        observe=_observe_flow,
        judge=_judge_flow,
        tolerance="relative 1e-6 (closed form vs solve_ivp rtol 1e-10) for t <= 0.9 T_inf; B.7 spread <= 1e-7",
    )
)


# ================================================================================= B4 plateau
@dataclass(frozen=True)
class PlateauCfg:
    ks: tuple[int, ...] = (3, 4, 5)
    n_primes: tuple[int, ...] = (11, 21, 51, 101, 201, 501, 1001)
    eps: str = "0.49"
    bound: float = 15.0
    plot_k: int = 3
    plot_n_prime: int = 101


def _predict_plateau(cfg: PlateauCfg) -> list[Fraction]:
    return [tp.plateau_ratio(k, m, Fraction(cfg.eps)) for k in cfg.ks for m in cfg.n_primes]


def _observe_plateau(cfg: PlateauCfg, ctx: RunContext) -> Observation:
    eps = float(Fraction(cfg.eps))
    ratios, scaled, v_rows, plot_series = [], [], [], []
    for k in cfg.ks:
        xs, ys = [], []
        for m in cfg.n_primes:
            d = npn.plateau_numeric(k, m, eps)
            ratios.append(d["ratio"])
            scaled.append(d["ratio"] / m ** (1 - k / 2))
            approx = tp.velocity_at_plateau_end_approx(k, m, gamma=0.5 - eps)
            v_rows.append({"k": k, "n_prime": m, "v_star": d["v_star"], "approx": approx})
            xs.append(m)
            ys.append(d["ratio"])
        plot_series.append({"label": f"k={k}", "x": xs, "y": ys})
        ref = [ys[-1] * (m / xs[-1]) ** (1 - k / 2) for m in xs]
        plot_series.append({"label": f"n'^(1-k/2) (k={k})", "x": xs, "y": ref, "ls": "--", "marker": ""})
    pieces = tp.error_pieces(cfg.plot_k, cfg.plot_n_prime)
    t_inf = float(tp.blowup_time(cfg.plot_k))
    tx, ty = [], []
    for p in pieces:
        if p.point:
            continue
        lo = float(tp.flow_time(p.lo, cfg.plot_k))
        hi = float(tp.flow_time(p.hi, cfg.plot_k)) if p.hi is not None else t_inf
        tx += [lo, hi]
        ty += [float(p.err), float(p.err)]
    t_eps = float(tp.first_time_error_at_most(Fraction(cfg.eps), cfg.plot_k, cfg.plot_n_prime)[1])
    t_0 = float(tp.first_time_error_at_most(0, cfg.plot_k, cfg.plot_n_prime)[1])
    plots = [
        {
            "name": "plateau",
            "kind": "lines",
            "series": plot_series,
            "xscale": "log",
            "yscale": "log",
            "xlabel": "n' (block size)",
            "ylabel": f"1 - T({cfg.eps})/T(0)",
            "title": "Thm 5.7: fraction of the flow spent after the error first drops to 0.49",
        },
        {
            "name": "error-vs-time",
            "kind": "lines",
            "series": [
                {"label": f"err(t), k={cfg.plot_k}, n'={cfg.plot_n_prime}", "x": tx, "y": ty, "marker": ""},
                {"label": f"T({cfg.eps}) = {t_eps:.4f}", "x": [t_eps, t_eps], "y": [0, 0.5], "ls": ":", "marker": ""},
                {"label": f"T(0) = {t_0:.4f}", "x": [t_0, t_0], "y": [0, 0.5], "ls": ":", "marker": ""},
            ],
            "hlines": [{"y": float(Fraction(cfg.eps)), "label": f"error {cfg.eps}"}],
            "xlabel": "gradient-flow time t (all-ones init)",
            "ylabel": "0-1 error (exact)",
            "title": "Disjoint-PolyNet: exact error along the flow (plateau then drop)",
        },
    ]
    return Observation(
        ratios,
        details={
            "grid": [[k, m] for k in cfg.ks for m in cfg.n_primes],
            "scaled_ratio": scaled,
            "max_scaled_ratio": max(scaled),
            "bound": cfg.bound,
            "velocity": v_rows,
            "velocity_rule": "|v*(0.49) - sqrt(pi n'/2) 0.02^(1/k)| <= 2 + 0.1 sqrt(pi n'/2) 0.02^(1/k)",
            "oracle": "scipy.stats.binom error scan over integer v + solve_ivp hitting times (no closed form)",
        },
        artifacts={"plots": plots},
    )


def _judge_plateau(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    p = np.array([float(x) for x in predicted])
    rel = float(np.max(np.abs(np.asarray(obs.value) - p) / p))
    mx = obs.details["max_scaled_ratio"]
    bound = obs.details["bound"]
    vel_bad = [r for r in obs.details["velocity"] if abs(r["v_star"] - r["approx"]) > 2 + 0.1 * r["approx"]]
    ok = rel <= 1e-8 and mx <= bound and not vel_bad
    return ("pass" if ok else "fail"), (
        f"exact vs numeric ratio: max relative difference {rel:.1e} (tol 1e-8); "
        f"max (1 - T(0.49)/T(0))/n'^(1-k/2) = {mx:.2f} (bound {bound:g}); "
        f"velocity rule violated at {len(vel_bad)} grid points"
    )


register(
    Claim(
        id="edelman-ch5-thm5.7-plateau",
        source=f"{SRC}, Thm 5.7 (main text) / Corollary B.10 (all-ones init); spec §2.5, B4",
        statement="Gradient flow on a disjoint-PolyNet (k >= 3, all-ones init, odd n') spends all but a O(n'^(1-k/2)) fraction of "
        "the time before zero error with error >= 0.49: 1 - T(0.49)/T(0) = O(n'^(1-k/2)); checked as "
        "(1 - T(0.49)/T(0))/n'^(1-k/2) <= 15 for odd n' >= 11, and the weight at T(0.49) is "
        "~ sqrt(pi n'/2) 0.02^(1/k).",
        kind="numeric",
        configs={
            "quick": PlateauCfg(),
            "full": PlateauCfg(ks=(3, 4, 5, 6), n_primes=(11, 21, 51, 101, 201, 501, 1001, 2001, 5001, 10001)),
        },
        predict=_predict_plateau,
        observe=_observe_plateau,
        judge=_judge_plateau,
        tolerance="exact T(eps) (theory) vs float oracle: relative 1e-8; scaled ratio <= 15; |v* - approx| <= 2 + 10%",
    )
)


# ================================================================================= A24 Lemma B.4 / Claim 5
@dataclass(frozen=True)
class InterpCfg:
    ks: tuple[int, ...] = (2, 4, 6, 8)
    extra: int = 2  # irrelevant coordinates in the cube


def _cube_sums(k: int, extra: int) -> tuple[np.ndarray, np.ndarray]:
    X = nw.cube(k + extra).astype(np.float64)
    s = X[:, :k].sum(axis=1)
    return s, np.prod(X[:, :k], axis=1)


def _relu(z: np.ndarray) -> np.ndarray:
    return np.maximum(z, 0.0)


def _lattice_lstsq(Phi: np.ndarray, y: np.ndarray) -> float:
    coef, *_ = np.linalg.lstsq(Phi, y, rcond=None)
    return float(np.linalg.norm(Phi @ coef - y))


def _claim5_numeric(k: int, extra: int, biases: list[float], weights: list[float], target_scale: int) -> dict:
    """Evaluate sum_i u_i ReLU(w.x + b_i) with w = 1/(2k) on S on every cube point, and the lattice least squares."""
    s, chi = _cube_sums(k, extra)
    H = _relu(s[:, None] / (2 * k) + np.asarray(biases)[None, :])
    f = H @ np.asarray(weights, dtype=np.float64)
    lat = np.arange(-k, k + 1, 2, dtype=np.float64)
    Phi = _relu(lat[:, None] / (2 * k) + np.asarray(biases)[None, :])
    y = target_scale * (-1.0) ** ((k - lat) / 2)
    return {
        "max_dev": float(np.max(np.abs(f - target_scale * chi))),
        "lstsq_residual": _lattice_lstsq(Phi, y),
        "values_on_lattice": (Phi @ np.asarray(weights, dtype=np.float64)).tolist(),
        "target": y.tolist(),
    }


def _observe_claim5(cfg: InterpCfg, ctx: RunContext) -> Observation:
    out, rows = [], []
    for k in cfg.ks:
        r = _claim5_numeric(
            k,
            cfg.extra,
            [float(b) for b in ti.claim5_corrected_biases(k)],
            [float(u) for u in ti.claim5_corrected_weights(k)],
            1,
        )
        out.append(max(r["max_dev"], r["lstsq_residual"]))
        rows.append(
            {
                "k": k,
                **r,
                "weights": ti.claim5_corrected_weights(k),
                "max_abs_weight": max(abs(u) for u in ti.claim5_corrected_weights(k)),
            }
        )
    return Observation(out, details={"per_k": rows, "note": "||u||_inf = 8k^2 here, above the 8k of Lemma B.4"})


def _judge_zero(tol: float):
    def judge(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
        exact_ok = all(Fraction(str(p)) == 0 for p in predicted)
        err = max(float(v) for v in obs.value)
        ok = exact_ok and err <= tol
        return ("pass" if ok else "fail"), (
            f"exact least-squares residuals all 0: {exact_ok}; numeric max deviation on "
            f"the cube / lattice residual {err:.2e} (tol {tol:g})"
        )

    return judge


register(
    Claim(
        id="edelman-ch5-lemB.4-construction",
        source=f"{SRC}, Lemma B.4 / Claim 5 corrected (spec A24, erratum E15)",
        statement="k+1 ReLUs ReLU(s/(2k) + 1/2 - (2i-1)/(2k)), i = 0..k, s = sum_{j in S} x_j, with u_0 = (-1)^k 2k, "
        "u_i = (-1)^(i+k) 8k i, give sum_i u_i ReLU(.) = chi_S(x) for every x in {±1}^n "
        "(k = 4: u = (8, -32, 64, -96, 128)).",
        kind="symbolic",
        configs={"quick": InterpCfg(), "full": InterpCfg(ks=(1, 2, 3, 4, 5, 6, 7, 8, 10, 12))},
        predict=lambda cfg: [ti.claim5_corrected(k)["lsq"].residual_sq for k in cfg.ks],
        observe=_observe_claim5,
        judge=_judge_zero(1e-9),
        tolerance="exact (sympy least-squares residual == 0); float64 evaluation on the cube within 1e-9",
    )
)


def _observe_claim5_printed(cfg: InterpCfg, ctx: RunContext) -> Observation:
    out, ce = [], {}
    for k in cfg.ks:
        for sched in ("i+1", "i"):
            th = ti.claim5_as_printed(k, sched)
            r = _claim5_numeric(
                k,
                cfg.extra,
                [float(b) for b in ti.claim5_printed_biases(k, sched)],
                [float(u) for u in th["weights"]],
                2,
            )
            out.append(r["max_dev"])
            ce[f"k={k}, b_i = -1/2 + ({sched})/k"] = {
                "s": ti.lattice(k),
                "f*(s) printed weights": [str(v) for v in th["values"]],
                "claimed 2 chi(s)": th["target"],
                "printed weights": [int(u) for u in th["weights"]],
                "least-squares residual squared (exact)": str(th["lsq"].residual_sq),
                "least-squares residual": th["lsq"].residual_norm,
                "numeric lattice residual": r["lstsq_residual"],
            }
    return Observation(max(out), details={"max_dev_per_case": out}, counterexample=ce)


def _judge_printed(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    if float(obs.value) <= 1e-9:
        return "pass", "the printed construction interpolates"
    return "refuted", (
        f"the printed network misses the claimed values by up to {float(obs.value):g} on the cube, and no "
        f"output weights fix it (positive least-squares residual; see counterexample)"
    )


register(
    Claim(
        id="edelman-ch5-lemB.4-construction-as-printed",
        source=f"{SRC}, Lemma B.4 / Claim 5 as printed (erratum E15)",
        statement="As printed: with b_i = -1/2 + (i+1)/k (Lemma B.4) or -1/2 + i/k (Lemma B.5), i = 1..k, and "
        "u*_i = 8k(-1)^(i+1) (i <= k-2), u*_(k-1) = 6k, u*_k = -2k, f*(x) = sum_i u*_i ReLU(sum_{j<=k} x_j/(2k) + b_i) "
        "equals 2 chi_[k](x) for all x.",
        kind="symbolic",
        configs={"quick": InterpCfg(), "full": InterpCfg(ks=(2, 4, 6, 8, 10, 12))},
        predict=lambda cfg: 0.0,
        observe=_observe_claim5_printed,
        judge=_judge_printed,
        tolerance="refuted when max_x |f*(x) - 2 chi(x)| > 1e-9; the exact least-squares residual shows no weights work",
        refutes="f*(x) = sum_{i=1}^k u*_i sigma(x_[k]/(2k) + b_i) = 2 chi_[k](x) with u*_i = 8k(-1)^(i+1), u*_(k-1) = 6k, u*_k = -2k",
        corrected_by="edelman-ch5-lemB.4-construction",
    )
)


# ================================================================================= A23 Lemma C.6 / Thm C.11
def _c6_numeric(k: int, extra: int, printed: bool) -> dict:
    """Evaluate the Lemma C.6 network with the theory's exact least-squares weights on every cube point in exact
    rational arithmetic (the weights are ill-conditioned for float64: entries grow like 32k per step), plus a float64
    numpy least-squares residual on the lattice (independent of the exact solve)."""
    th = ti.c6_features(k, printed)
    betas = [Fraction(str(b)) for b in th["betas"]]
    w = [Fraction(str(c)) for c in th["lsq"].weights]
    X = nw.cube(k + extra)
    dev = Fraction(0)
    for x in X.tolist():
        sx = sum(x[:k])
        chi = int(np.prod(x[:k]))
        feats = (
            [Fraction(1)]
            + [max(Fraction(sx, 2 * k) + b, Fraction(0)) for b in betas]
            + [max(Fraction(-sx, 2 * k) + b, Fraction(0)) for b in betas]
        )
        dev = max(dev, abs(sum((f * c for f, c in zip(feats, w)), Fraction(0)) - chi))
    lat = np.arange(-k, k + 1, 2, dtype=np.float64)
    bf = np.array([float(b) for b in betas])
    Phi = np.column_stack(
        [np.ones_like(lat)] + [_relu(lat / (2 * k) + b) for b in bf] + [_relu(-lat / (2 * k) + b) for b in bf]
    )
    y = (-1.0) ** ((k - lat) / 2)
    return {
        "max_dev_exact": str(dev),
        "max_dev": float(dev),
        "lstsq_residual_float64": _lattice_lstsq(Phi, y),
        "exact_residual_sq": str(th["lsq"].residual_sq),
        "residual": th["lsq"].residual_norm,
        "index_set": th["index_set"],
        "n_features": 1 + 2 * len(betas),
        "n_points": k + 1,
        "weights": [str(c) for c in w],
        "target": th["target"],
    }


def _observe_c6(cfg: InterpCfg, ctx: RunContext) -> Observation:
    rows = [_c6_numeric(k, cfg.extra, False) for k in cfg.ks]
    return Observation([r["max_dev"] for r in rows], details={"per_k": [{"k": k, **r} for k, r in zip(cfg.ks, rows)]})


register(
    Claim(
        id="edelman-ch6-lemC.6-bias-grid",
        source=f"{SRC}, Lemma C.6 / Thm C.11 init with the corrected index set (spec A23, erratum E19)",
        statement="With beta_j = (-k + 2j + 1/16)/(2k) for j = 0..k/2-1 (k even), the k+1 features {1, ReLU(±s/(2k) + beta_j)} "
        "interpolate chi(s) = (-1)^((k-s)/2) exactly on s in {-k, ..., k}, hence some output weights give chi_S(x) "
        "for all x.",
        kind="symbolic",
        configs={"quick": InterpCfg(ks=(2, 4, 6, 8)), "full": InterpCfg(ks=(2, 4, 6, 8, 10, 12))},
        predict=lambda cfg: [ti.c6_features(k)["lsq"].residual_sq for k in cfg.ks],
        observe=_observe_c6,
        judge=_judge_zero(0.0),
        tolerance="exact (sympy least-squares residual == 0, and the network evaluated on every cube point in rationals "
        "equals chi_S(x) exactly)",
    )
)


def _observe_c6_printed(cfg: InterpCfg, ctx: RunContext) -> Observation:
    rows = [_c6_numeric(k, cfg.extra, True) for k in cfg.ks]
    return Observation(
        min(r["lstsq_residual_float64"] for r in rows),
        details={"numeric_lattice_residuals": [r["lstsq_residual_float64"] for r in rows]},
        counterexample={f"k={k}": r for k, r in zip(cfg.ks, rows)},
    )


register(
    Claim(
        id="edelman-ch6-thmC.11-bias-grid-as-printed",
        source=f"{SRC}, Thm C.11 init / Lemma C.6 proof as printed (erratum E19)",
        statement="As printed: with biases {beta_1, ..., beta_(k/2-1)}, beta_j = (-k + 2j + 1/16)/(2k), the features "
        "v(s) = (1, v_1^+(s), ..., v_(k/2-1)^+(s), v_1^-(s), ..., v_(k/2-1)^-(s)) have linearly independent rows and "
        "some v gives v(s)^T v = chi(s) for every s in {-k, ..., k}.",
        kind="symbolic",
        configs={"quick": InterpCfg(ks=(2, 4, 6, 8)), "full": InterpCfg(ks=(2, 4, 6, 8, 10, 12))},
        predict=lambda cfg: 0.0,
        observe=_observe_c6_printed,
        judge=lambda p, obs, cfg=None: (
            ("pass", "the printed features interpolate")
            if float(obs.value) <= 1e-9
            else (
                "refuted",
                f"smallest least-squares residual over k = {float(obs.value):.4f} > 0: only "
                f"k-1 features for k+1 lattice points (none but the constant for k = 2)",
            )
        ),
        tolerance="refuted when the least-squares residual exceeds 1e-9 for every k in the grid",
        refutes="b_i ~ Unif{beta_1, ..., beta_(k/2-1)}: V = {v(s)} in R^(k x k) has linearly independent rows, so v(s)^T v = chi(s)",
        corrected_by="edelman-ch6-lemC.6-bias-grid",
    )
)


# ================================================================================= A22 Lemmas C.13-C.15, Thm C.16
@dataclass(frozen=True)
class SparseCfg:
    cases: tuple[tuple[int, int, int], ...] = ((13, 4, 2), (15, 4, 2), (15, 6, 2), (15, 6, 4))
    with_biases: bool = True


def _sparse_observe(cfg: SparseCfg) -> tuple[list[float], dict]:
    out, per_case = [], []
    for n, k, s in cfg.cases:
        eps = tsi.perturbation_epsilon(n, k, s)
        g = npn.perturbed_neuron_correlation(n, k, s, float(eps))
        exact = npn.perturbed_neuron_correlation_exact(n, k, s, eps)
        bias_dev = 0.0
        if cfg.with_biases:
            for b in tsi.bias_grid(k, eps):
                bias_dev = max(bias_dev, _max_abs(npn.perturbed_neuron_correlation(n, k, s, float(eps), float(b)), g))
        out += g.tolist()
        per_case.append(
            {
                "n": n,
                "k": k,
                "s": s,
                "eps": str(eps),
                "i_in_S'": float(g[0]) if s else None,
                "i_in_S-S'": float(g[s]),
                "i_notin_S": float(g[k]),
                "exact_equals_lemma_C15": exact == tsi.good_neuron_correlations(n, k, s),
                "max_change_over_thm_C16_biases": bias_dev,
            }
        )
    return out, {
        "per_case": per_case,
        "neuron": "ReLU(<w,x> + b), w = 1 on S' = {0..s-1}, eps elsewhere; "
        "S = {0..k-1}; value = E[ReLU'(w.x+b) x_i chi_S(x)] (= -loss gradient)",
    }


def _observe_sparse(cfg: SparseCfg, ctx: RunContext) -> Observation:
    out, details = _sparse_observe(cfg)
    return Observation(out, details=details)


def _judge_sparse(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    err = _max_abs(predicted, obs.value)
    exact = all(c["exact_equals_lemma_C15"] for c in obs.details["per_case"])
    bias = max(c["max_change_over_thm_C16_biases"] for c in obs.details["per_case"])
    ok = err <= 1e-9 and exact and bias <= 1e-9
    return ("pass" if ok else "fail"), (
        f"max |brute force - Lemma C.15| = {err:.1e} (tol 1e-9); exact integer transform "
        f"equals the lemma: {exact}; max change over the Thm C.16 biases {bias:.1e}"
    )


register(
    Claim(
        id="edelman-ch6-lemC.13-perturbed-neuron-gradient",
        source=f"{SRC}, Lemmas C.13-C.15 (App. C.2.4; spec A22, erratum E22: odd n-s)",
        statement="For h(x) = ReLU(<w,x>) with w = 1 on an s-set S' subset of S and eps < 1/C(n-s,k) elsewhere (k, s even, s < k, "
        "n-s odd): E[d h/d w_i chi_S] = 0 for i in S', 1/2 Half_s([s]) Maj_{n-s}(k-s-1) for i in S\\S', "
        "1/2 Half_s([s]) Maj_{n-s}(k-s+1) for i not in S; (13,4,2): -0.0615234, +0.00683594, 0. The Thm C.16 biases "
        "(|b| < eps/2) do not change it.",
        kind="symbolic",
        configs={
            "quick": SparseCfg(),
            "full": SparseCfg(
                cases=(
                    (13, 4, 2),
                    (15, 4, 2),
                    (15, 6, 2),
                    (15, 6, 4),
                    (17, 4, 2),
                    (17, 6, 4),
                    (19, 8, 2),
                    (19, 8, 6),
                    (13, 4, 0),
                )
            ),
        },
        predict=lambda cfg: [float(x) for n, k, s in cfg.cases for x in tsi.good_neuron_correlations(n, k, s)],
        observe=_observe_sparse,
        judge=_judge_sparse,
        tolerance="absolute 1e-9 (float64 transform); exact integer transform == lemma; bias grid changes nothing (1e-9)",
    )
)


def _observe_ratio(cfg: SparseCfg, ctx: RunContext) -> Observation:
    out, per = [], []
    for n, k, s in cfg.cases:
        g = npn.perturbed_neuron_correlation(n, k, s, float(tsi.perturbation_epsilon(n, k, s)))
        r = abs(g[s]) / abs(g[k])
        out.append(r)
        per.append(
            {
                "n": n,
                "k": k,
                "s": s,
                "bruteforce_ratio": r,
                "corrected (n-k)/(k-s-1)": str(tsi.thm_c16_ratio(n, k, s)),
                "printed (n-s)/(k-s-1)": str(tsi.thm_c16_ratio_as_printed(n, k, s)),
            }
        )
    return Observation(out, details={"per_case": per}, counterexample={"cases": per})


def _judge_ratio(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    p = np.array([float(x) for x in predicted])
    rel = float(np.max(np.abs(np.asarray(obs.value) - p) / p))
    return ("pass" if rel <= 1e-9 else "fail"), f"max relative error {rel:.1e} (tol 1e-9)"


def _judge_ratio_printed(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    p = np.array([float(x) for x in predicted])
    rel = np.abs(np.asarray(obs.value) - p) / p
    if np.all(rel <= 1e-9):
        return "pass", "the printed ratio holds on every case"
    i = int(np.argmax(rel))
    n, k, s = config.cases[i]
    return "refuted", (
        f"at (n,k,s) = ({n},{k},{s}) the brute-force ratio is {obs.value[i]:.6g}, printed (n-s)/(k-s-1) = {p[i]:.6g}"
    )


register(
    Claim(
        id="edelman-ch6-thmC.16-ratio",
        source=f"{SRC}, proof of Thm C.16 corrected (erratum E22)",
        statement="|xi_{S\\S'}| / |xi_{[n]\\S}| = (n-k)/(k-s-1) for a good eps-perturbed s-sparse neuron (odd n-s); "
        "(13,4,2): 9, (15,4,2): 11, (15,6,2): 3, (15,6,4): 9.",
        kind="symbolic",
        configs={
            "quick": SparseCfg(with_biases=False),
            "full": SparseCfg(
                cases=((13, 4, 2), (15, 4, 2), (15, 6, 2), (15, 6, 4), (17, 4, 2), (19, 8, 2)), with_biases=False
            ),
        },
        predict=lambda cfg: [tsi.thm_c16_ratio(n, k, s) for n, k, s in cfg.cases],
        observe=_observe_ratio,
        judge=_judge_ratio,
        tolerance="relative 1e-9 (float64 brute force)",
    )
)

register(
    Claim(
        id="edelman-ch6-thmC.16-ratio-as-printed",
        source=f"{SRC}, proof of Thm C.16 as printed (erratum E22)",
        statement="As printed: |xi_{S\\S'}| / |xi_{[n]\\S}| = (n-s)/(k-s-1).",
        kind="symbolic",
        configs={"quick": SparseCfg(with_biases=False), "full": SparseCfg(with_biases=False)},
        predict=lambda cfg: [tsi.thm_c16_ratio_as_printed(n, k, s) for n, k, s in cfg.cases],
        observe=_observe_ratio,
        judge=_judge_ratio_printed,
        tolerance="refuted when the brute-force ratio differs from (n-s)/(k-s-1) by more than relative 1e-9 on some case",
        refutes="|xi_{S\\S'}| / |xi_{[n]\\S}| = (n-s)/(k-s-1) > 1",
        corrected_by="edelman-ch6-thmC.16-ratio",
    )
)


# ================================================================================= Lemma B.9 bounds (not in the spec)
@dataclass(frozen=True)
class B9Cfg:
    ks: tuple[int, ...] = (2, 3, 4)
    n_primes: tuple[int, ...] = (5, 8, 11, 21, 101)
    offsets: tuple[str, ...] = ("0", "0.01", "0.5")  # v = integer + offset (atoms or not, just above, mid-way)


def _b9_grid(cfg: B9Cfg) -> list[tuple[int, int, float]]:
    out = []
    for k in cfg.ks:
        for m in cfg.n_primes:
            for base in range(1, m + 1):
                for off in cfg.offsets:
                    out.append((k, m, float(base + float(Fraction(off)))))
    return out


def _predict_b9(cfg: B9Cfg, as_printed: bool) -> list[tuple[float, float]]:
    out = []
    for k, m, v in _b9_grid(cfg):
        u = [[1] * (m - 1)] * k
        out.append(
            (
                tp.lemma_b9_lower_bound([v] * k, u, as_printed=as_printed),
                tp.lemma_b9_upper_bound([v] * k, u, as_printed=as_printed),
            )
        )
    return out


def _observe_b9(cfg: B9Cfg, bounds: list[tuple[float, float]]) -> Observation:
    grid = _b9_grid(cfg)
    bad_lo, bad_hi = [], []
    for (k, m, v), (lo, hi) in zip(grid, bounds):
        err = float(npn.equal_init_error_float(np.array([v]), k, m)[0])
        if lo > err + 1e-12:
            bad_lo.append({"k": k, "n_prime": m, "v": v, "err": err, "lower_bound": lo})
        if err > hi + 1e-12:
            bad_hi.append({"k": k, "n_prime": m, "v": v, "err": err, "upper_bound": hi})
    ce = None
    if bad_lo or bad_hi:
        ce = {
            "lower_bound_violations": len(bad_lo),
            "upper_bound_violations": len(bad_hi),
            "lower_examples": bad_lo[:3],
            "upper_examples": bad_hi[:3],
        }
    return Observation(
        len(bad_lo) + len(bad_hi),
        details={
            "grid_points": len(grid),
            "irrelevant_weights": "all ones",
            "error_oracle": "scipy.stats.binom (numerics.polynet)",
        },
        counterexample=ce,
    )


register(
    Claim(
        id="edelman-ch5-lemB.9-error-bounds",
        source=f"{SRC}, Lemma B.9 corrected (Hoeffding exponent v^2/(2||u||^2); two-sided Berry-Esseen; E13)",
        statement="For prod v_i > 0: 1/2 - 1/2 prod_i min(1, erf(|v_i|/(sqrt2 ||u_i||_2)) + 2C sum_j |u_ij|^3/||u_i||_2^3) <= err "
        "<= 2 sum_i exp(-v_i^2/(2 ||u_i||_2^2)), C = 0.56 (Shevtsova's Berry-Esseen constant).",
        kind="numeric",
        configs={"quick": B9Cfg(), "full": B9Cfg(ks=(2, 3, 4, 5), n_primes=(5, 8, 11, 21, 51, 101, 301))},
        predict=lambda cfg: _predict_b9(cfg, False),
        observe=lambda cfg, ctx: _observe_b9(cfg, _predict_b9(cfg, False)),
        judge=lambda p, obs, cfg=None: (
            ("pass", f"both bounds hold at all {obs.details['grid_points']} grid points")
            if obs.value == 0
            else ("fail", f"{obs.value} violations: {obs.counterexample}")
        ),
        tolerance="exact error (float oracle) within the bounds up to 1e-12 at every grid point",
    )
)

register(
    Claim(
        id="edelman-ch5-lemB.9-error-bounds-as-printed",
        source=f"{SRC}, Lemma B.9 as printed (not in the spec's errata)",
        statement="As printed: 1/2 - 1/2 prod_i (erf(|v_i|/(||u_i||_2 sqrt2)) + c ||u_i||_inf/||u_i||_2^3) <= err(w) <= "
        "2 sum_i exp(-|v_i|^2/||u_i||_2^2), c = 0.56.",
        kind="numeric",
        configs={"quick": B9Cfg(), "full": B9Cfg(ks=(2, 3, 4, 5), n_primes=(5, 8, 11, 21, 51, 101, 301))},
        predict=lambda cfg: _predict_b9(cfg, True),
        observe=lambda cfg, ctx: _observe_b9(cfg, _predict_b9(cfg, True)),
        judge=lambda p, obs, cfg=None: (
            ("pass", "the printed bounds hold on the grid")
            if obs.value == 0
            else (
                "refuted",
                f"{obs.counterexample['lower_bound_violations']} lower- and "
                f"{obs.counterexample['upper_bound_violations']} upper-bound violations "
                f"(see counterexample)",
            )
        ),
        tolerance="refuted when the exact error leaves the printed bounds by more than 1e-12 at some grid point",
        refutes="1/2 - 1/2 prod_i (erf(|v_i|/(||u_i|| sqrt2)) + c||u_i||_inf/||u_i||^3) <= err(w) <= 2 sum_i exp(-|v_i|^2/||u_i||^2)",
        corrected_by="edelman-ch5-lemB.9-error-bounds",
    )
)
