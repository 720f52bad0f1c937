"""Karp Ch. 3 Sec. 3.3 and App. B.1.1-B.1.2: the linear classifier's error (and the printed "at least 0.49"), the
Gaussian facts (B.1)-(B.6), the soft-threshold moments, the maxima of Lemmas B.1/B.2, and the structure of the
population gradient (docs/local_signal.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from numerics import local_signal as nl
from theory import local_signal as tl

from ..base import Claim, Observation, PostHoc, Resolution, RunContext, register
from ..judges import AtLeast, MaxRel, Requiring, WithinBounds, ZScore
from .common import DOC, MC_Z, SRC, se_list

# --- Sec. 3.3: the linear convolutional classifier


@dataclass(frozen=True)
class LinearConfig:
    """Noise-row counts ``ks``; the Monte Carlo uses full samples of dimension ``d`` (``n`` of them, seed ``seed``)."""

    ks: tuple[int, ...] = (100, 1000)
    d: int = 2
    n: int = 30_000
    seed: int = 0


def _observe_linear(cfg: LinearConfig, ctx: RunContext) -> Observation:
    est, se = zip(*(nl.linear_classifier_mc(k, cfg.d, cfg.n, cfg.seed + i) for i, k in enumerate(cfg.ks)))
    return Observation(
        list(est),
        details={"stderr": se_list(se), "ks": list(cfg.ks), "sigma": [tl.noise_sigma(k) for k in cfg.ks]},
        seeds=tuple(cfg.seed + i for i in range(len(cfg.ks))),
    )


register(
    Claim(
        id="karp-ch3-linear-classifier-error",
        resolution=Resolution(
            rel=0.036, why="Monte Carlo over 30,000 samples: 4 standard errors are 2.6-2.8 % of the prediction"
        ),
        source=f"{SRC}, Sec. 3.3 ('How to learn this concept class'; corrected in {DOC})",
        statement="The convolutional linear classifier l(X) = sum_i <w_*, X_i> errs with probability exactly "
        "Phi(-1/(sigma sqrt k)) = Phi(-1/log k) (sigma = log k/sqrt k): 0.41405 at k = 100, 0.44245 at k = 1000; "
        "checked by Monte Carlo on full d-dimensional samples.",
        kind="numeric",
        configs={"quick": LinearConfig(), "full": LinearConfig(ks=(100, 1000, 10_000), n=400_000)},
        predict=lambda cfg: [tl.linear_classifier_error_exact(k) for k in cfg.ks],
        observe=_observe_linear,
        judge=ZScore(MC_Z),
    )
)


@dataclass(frozen=True)
class PrintedLinearConfig:
    """The large k at which the remark is checked (``ks``: just beyond the crossover 10^17.32, where the bound is
    tight, so that a bound 1 % higher fails at each of them; the grid's monotonicity carries the check to 1e300) and
    the practical k whose exact errors are reported beside it (``practical``)."""

    ks: tuple[float, ...] = (1e18, 1e19, 1e20, 1e21)
    practical: tuple[int, ...] = (100, 1000, 10**4, 10**6, 10**9)


def _linear_error(k: float) -> float:
    """Phi(-1/log k), the linear classifier's exact error (Sec. 3.3), in floats with scipy (independently of
    theory/)."""
    return float(stats.norm.cdf(-1 / np.log(k)))


def _observe_printed_linear(cfg: PrintedLinearConfig, ctx: RunContext) -> Observation:
    grid = np.logspace(1, 300, 600)
    errs = [_linear_error(k) for k in grid]
    # the k where Phi(-1/log k) first reaches 0.49, solved in log10 k with scipy (independently of theory/)
    root = optimize.brentq(lambda u: stats.norm.cdf(-1 / (u * np.log(10))) - 0.49, 5, 30, xtol=1e-12)
    return Observation(
        [_linear_error(k) for k in cfg.ks],
        details={
            "ks": list(cfg.ks),
            "increasing_in_k": bool(np.all(np.diff(errs) > 0)),
            "log10_k_first_049": root,
            "practical_k": list(cfg.practical),
            "practical_error": [_linear_error(k) for k in cfg.practical],
        },
    )


register(
    Claim(
        id="karp-ch3-linear-classifier-049-printed",
        source=f"{SRC}, Sec. 3.3 ('How to learn this concept class'; the large-k reading in {DOC})",
        statement="Printed: 'the linear classifier fails to classify the labels correctly with at least probability "
        "0.49' (sigma = log k/sqrt k). Read as the chapter reads every result ('We treat k as large ... expressing "
        "them entirely in terms of k', Sec. 3.3): the exact error Phi(-1/log k) increases in k towards 1/2 (checked "
        "on a grid of k = 10 ... 1e300) and is at least 0.49 from k = 10^17.32 on (karp-ch3-regime-crossovers); "
        "observed at k = 1e18 ... 1e21, just beyond the crossover. No bound at practical k: 0.414 at k = 100 and 0.442 at "
        "k = 1000 (details), where the thesis does not apply it.",
        kind="numeric",
        configs={"quick": PrintedLinearConfig(), "full": PrintedLinearConfig()},
        predict=lambda cfg: [float(tl.linear_error_as_printed())] * len(cfg.ks),
        observe=_observe_printed_linear,
        judge=Requiring(AtLeast(), ("increasing_in_k",)),
        post_hoc=(
            PostHoc(
                "ks",
                "1e18, 1e19, 1e20, 1e21",
                "after the first version (k = 1e18, 1e30, 1e100, 1e300, also a pass) failed the perturbation test of "
                "tests/verify/test_claims.py (2026-12-01)",
                "at 1e100 and 1e300 the error exceeds 0.49 by 1.7-1.9 %, so a bound 1 % higher passed there too; "
                "just beyond the crossover every entry detects it",
            ),
        ),
    )
)


# --- Soft-threshold moments and App. B.1.2 (B.1)-(B.6)


@dataclass(frozen=True)
class MomentConfig:
    """Noise scales ``sigmas`` and normalised thresholds ``a = tau/sigma``."""

    sigmas: tuple[float, ...] = (0.2, 1.0, 2.5)
    a: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0, 4.0, 7.0)


def _moment_cases(cfg: MomentConfig) -> list[tuple[float, float]]:
    return [(a * s, s) for s in cfg.sigmas for a in cfg.a]


register(
    Claim(
        id="karp-ch3-soft-threshold-moments",
        source=f"{SRC}, soft threshold phi_b of Sec. 3.3 with b = -tau (moments derived in {DOC})",
        statement="For S = S_tau(A) = sign(A)(|A| - tau)_+, A ~ N(0, sigma^2), a = tau/sigma: P[S != 0] = 2 Phi^c(a), "
        "E|S| = 2 sigma (phi(a) - a Phi^c(a)), E S^2 = 2 sigma^2 ((1 + a^2) Phi^c(a) - a phi(a)); checked against "
        "scipy.integrate.quad of the defining integrals.",
        kind="numeric",
        configs={"quick": MomentConfig(), "full": MomentConfig(sigmas=(0.05, 0.2, 1.0, 2.5, 10.0))},
        predict=lambda cfg: [list(tl.soft_threshold_moments(t, s)) for t, s in _moment_cases(cfg)],
        observe=lambda cfg, ctx: Observation(
            [list(nl.soft_threshold_moments_quad(t, s)) for t, s in _moment_cases(cfg)],
            details={"cases_tau_sigma": _moment_cases(cfg)},
        ),
        judge=MaxRel(1e-9),
    )
)


@dataclass(frozen=True)
class TruncatedConfig:
    """Normalised thresholds ``alphas`` and scales ``s`` of (B.1)-(B.3)."""

    alphas: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0)
    scales: tuple[float, ...] = (0.3, 1.7)


def _truncated_cases(cfg: TruncatedConfig) -> list[tuple[float, float]]:
    return [(a, s) for s in cfg.scales for a in cfg.alphas]


register(
    Claim(
        id="karp-ch3-eqB1-B3-truncated-normal",
        source=f"{SRC}, App. B.1.2, Eqs. (B.1)-(B.3)",
        statement="For Z ~ N(0, s^2) and alpha >= 0, with r = phi(alpha)/Phi^c(alpha): E[Z | Z >= alpha s] = s r (B.1), "
        "Var[Z | Z >= alpha s] = s^2 (1 + alpha r - r^2) (B.2), E[Z^2 | Z >= alpha s] = s^2 (1 + alpha r) (B.3); "
        "checked against scipy.stats.truncnorm.",
        kind="numeric",
        configs={"quick": TruncatedConfig(), "full": TruncatedConfig(alphas=tuple(0.25 * i for i in range(21)))},
        predict=lambda cfg: [list(tl.truncated_moments(a, s)) for a, s in _truncated_cases(cfg)],
        observe=lambda cfg, ctx: Observation(
            [list(nl.truncated_moments_scipy(a, s)) for a, s in _truncated_cases(cfg)],
            details={"cases_alpha_s": _truncated_cases(cfg)},
        ),
        judge=MaxRel(1e-9),
    )
)


@dataclass(frozen=True)
class RegressionConfig:
    """Pairs ``(c, v)``, the noise scale, the Monte Carlo size and seed of (B.4)-(B.5)."""

    cv: tuple[tuple[float, float], ...] = ((0.4, 0.15), (1.0, 1.0), (0.2, 2.0))
    sigma: float = 0.3
    n: int = 200_000
    seed: int = 0


def _observe_regression(cfg: RegressionConfig, ctx: RunContext) -> Observation:
    est, se = [], []
    for i, (c, v) in enumerate(cfg.cv):
        b, s = nl.regression_mc(c, v, cfg.sigma, cfg.n, cfg.seed + i)
        est += b.tolist()
        se += s.tolist()
    return Observation(est, details={"stderr": se_list(se), "cv": [list(p) for p in cfg.cv]}, seeds=(cfg.seed,))


register(
    Claim(
        id="karp-ch3-eqB4-B5-regression",
        resolution=Resolution(
            rel=0.14,
            why="Monte Carlo over 200,000 samples: 4 standard errors are 0.1-9 % of the prediction, the largest for the smallest coefficient",
        ),
        source=f"{SRC}, App. B.1.2, Eqs. (B.4)-(B.5)",
        statement="With Z = cA + vB, A, B iid N(0, sigma^2): E[cA | Z] = Z c^2/(c^2 + v^2) and E[vB | Z] = Z v^2/(c^2 + v^2); "
        "the least-squares slopes of cA and vB on Z (Monte Carlo) equal these coefficients.",
        kind="numeric",
        configs={"quick": RegressionConfig(), "full": RegressionConfig(n=4_000_000)},
        predict=lambda cfg: [x for c, v in cfg.cv for x in tl.regression_coefficients(str(c), str(v))],
        observe=_observe_regression,
        judge=ZScore(MC_Z),
    )
)


@dataclass(frozen=True)
class MillsConfig:
    """The points x in [0, 40] where (B.6) is checked."""

    xs: tuple[float, ...] = tuple(0.5 * i for i in range(81))


register(
    Claim(
        id="karp-ch3-eqB6-mills-bounds",
        resolution=Resolution(
            rel=0.3,
            why="the Mills-ratio bounds (eq. B.6) are inequalities checked on a grid; they are tight only asymptotically, with up to 26 % slack at the smallest arguments",
        ),
        source=f"{SRC}, App. B.1.2, Eq. (B.6)",
        statement="For x >= 0: 2/(sqrt(x^2 + 4) + x) <= Phi^c(x)/phi(x) <= 2/(sqrt(x^2 + 2) + x); checked at x = 0, 0.5, "
        "..., 40 with scipy's erfcx (the bounds are within 1e-6 relative of the ratio at x = 40, so a 1 % "
        "perturbation of either bound is caught).",
        kind="numeric",
        configs={"quick": MillsConfig(), "full": MillsConfig(xs=tuple(0.05 * i for i in range(801)))},
        predict=lambda cfg: [tl.mills_bounds(str(x)) for x in cfg.xs],
        observe=lambda cfg, ctx: Observation(nl.mills_ratio(np.array(cfg.xs)).tolist(), details={"xs": list(cfg.xs)}),
        judge=WithinBounds(0.0),
    )
)


@dataclass(frozen=True)
class MaximaConfig:
    """Numbers of variables ``ns``, Monte Carlo size and seed of Lemmas B.1 and B.2."""

    ns: tuple[int, ...] = (10, 100, 1000)
    n_samples: int = 20_000
    seed: int = 0


def _predict_maxima(cfg: MaximaConfig) -> list[float]:
    return [tl.max_exceedance(n, absolute) for n in cfg.ns for absolute in (False, True)]


def _observe_maxima(cfg: MaximaConfig, ctx: RunContext) -> Observation:
    est, se = [], []
    for i, n in enumerate(cfg.ns):
        p, s = nl.max_exceedance_mc(n, cfg.n_samples, cfg.seed + i, sigma=0.7)
        est += p.tolist()
        se += s.tolist()
    bounds = [float(tl.union_bound(n, absolute)) for n in cfg.ns for absolute in (False, True)]
    return Observation(
        est,
        details={
            "stderr": se_list(se),
            "union_bounds": bounds,
            "below_union_bounds": bool(all(e <= b for e, b in zip(est, bounds))),
            "ns": list(cfg.ns),
        },
        seeds=tuple(cfg.seed + i for i in range(len(cfg.ns))),
    )


register(
    Claim(
        id="karp-ch3-lemB1-B2-maxima",
        resolution=Resolution(
            rel=1.0,
            why="Monte Carlo frequencies of rare events over 20,000 samples: 4 standard errors are 19 % to more than 100 % of the exact probabilities",
            undetected="entries 4 and 5 (probabilities 7e-5 and 1.5e-4 at the largest n): with 20,000 samples 4 standard errors exceed the value itself",
        ),
        source=f"{SRC}, App. B.1.2, Lemmas B.1 and B.2",
        statement="For X_1..X_n iid N(0, sigma^2) and t = 2 sigma sqrt(log n): P[max_j X_j >= t] = 1 - (1 - Phi^c(2 sqrt log n))^n "
        "<= 1/n (Lemma B.1) and P[max_j |X_j| >= t] = 1 - (1 - 2 Phi^c(2 sqrt log n))^n <= 2/n (Lemma B.2); the Monte "
        "Carlo frequencies (sigma = 0.7) match the exact values and lie below the union bounds.",
        kind="numeric",
        configs={"quick": MaximaConfig(), "full": MaximaConfig(n_samples=400_000)},
        predict=_predict_maxima,
        observe=_observe_maxima,
        judge=Requiring(ZScore(MC_Z), ("below_union_bounds",)),
    )
)


# --- App. B.1.1 and the proofs of Lemmas 3.1, 3.2: grad_w E l = gamma w + kappa w_*


@dataclass(frozen=True)
class GradientConfig:
    """Points ``(w, b)`` (``w_* = e_1``) at which the population gradient is estimated with ``n`` samples of k noise
    rows; sigma = log k / sqrt k."""

    k: int = 50
    points: tuple[tuple[tuple[float, ...], float], ...] = (
        ((0.4, 0.15, -0.1, 0.05, 0.0, 0.0, 0.0, 0.0), -0.12),
        ((0.3, -0.2, 0.1, 0.0, 0.1, 0.0, 0.0, 0.0), 0.05),
    )
    n: int = 100_000
    seed: int = 0


def _predict_gradient(cfg: GradientConfig) -> list[int]:
    """Per point: the d - 2 components off span{w, w_*}, then gamma_direct - gamma_sym and kappa_direct - kappa_sym,
    all 0 by the structure theorem."""
    return [tl.gradient_structure_residual()] * sum(len(w) for w, _ in cfg.points)


def _observe_gradient(cfg: GradientConfig, ctx: RunContext) -> Observation:
    sigma = tl.noise_sigma(cfg.k)
    value, se, rows = [], [], []
    gamma_ok, kappa_ok, term_ok = True, True, True
    for j, (w, b) in enumerate(cfg.points):
        g = nl.gradient_structure_mc(cfg.k, np.array(w), b, sigma, cfg.n, cfg.seed + j)
        value += [*g.residual.tolist(), g.gamma_direct - g.gamma_sym, g.kappa_direct - g.kappa_sym]
        se += [
            *g.se_residual.tolist(),
            float(np.hypot(g.se_gamma_direct, g.se_gamma_sym)),
            float(np.hypot(g.se_kappa_direct, g.se_kappa_sym)),
        ]
        gamma_ok &= g.gamma_sym >= 0
        kappa_ok &= -2 <= g.kappa_sym <= 0
        term_ok &= g.min_sym_term >= 0
        rows.append(
            {
                "w": list(w),
                "b": b,
                "gamma_direct": g.gamma_direct,
                "gamma_sym": g.gamma_sym,
                "kappa_direct": g.kappa_direct,
                "kappa_sym": g.kappa_sym,
                "se_gamma_sym": g.se_gamma_sym,
                "se_kappa_sym": g.se_kappa_sym,
                "max_abs_residual": float(np.abs(g.residual).max()),
            }
        )
    return Observation(
        value,
        details={
            "stderr": se_list(se),
            "points": rows,
            "gamma_nonnegative": bool(gamma_ok),
            "kappa_in_minus_2_0": bool(kappa_ok),
            "symmetrised_integrand_nonnegative": bool(term_ok),
        },
        seeds=tuple(cfg.seed + j for j in range(len(cfg.points))),
    )


register(
    Claim(
        id="karp-ch3-gradient-structure",
        resolution=Resolution(
            rel=0.18,
            why="the prediction is the residual 0 of the gradient decomposition (a zero moves by an absolute r); Monte Carlo over 100,000 samples puts 4 standard errors at up to 0.11, so a residual of 0.16 is the first detected",
        ),
        source=f"{SRC}, App. B.1.1 and the proofs of Lemmas 3.1 and 3.2 (the structure is made explicit in {DOC})",
        statement="At any (w, b) the population gradient is grad_w E l = gamma w + kappa w_* with gamma = (c^2+v^2)^-1 "
        "sum_i E[(sigma(a_2) - sigma(a_1)) Z_i 1{Z_i >= -b}] >= 0 (an adaptive weight decay; its integrand is >= 0 "
        "pointwise) and kappa = E[-sigma(-Y f)(1{cY >= -b} + 1{cY <= b})] in [-2, 0]: the Monte Carlo gradient on "
        "full samples (k = 50, d = 8, b < 0 and b > 0) has no component off span{w, w_*}, and its gamma, kappa "
        "equal the symmetrised formulas'. What is checked: each off-span component and each direct - symmetrised "
        "difference is 0 within 4 standard errors, and gamma >= 0, kappa in [-2, 0], the integrand >= 0 at every "
        "sample. The predicted values are the structural zeros of the symmetry argument (theory/ states the "
        "identity; it computes no number), not predicted values of gamma or kappa (which have no closed form).",
        kind="numeric",
        configs={"quick": GradientConfig(), "full": GradientConfig(n=1_000_000)},
        predict=_predict_gradient,
        observe=_observe_gradient,
        judge=Requiring(ZScore(MC_Z), ("gamma_nonnegative", "kappa_in_minus_2_0", "symmetrised_integrand_nonnegative")),
        note="the prediction is a literal 0 per component (the structure theorem's exact zeros), so the claim tests "
        "the structure (a gradient component off span{w, w_*}, or a gamma or kappa formula that disagrees with the "
        "direct gradient, larger than 4 standard errors fails), not a computed value of gamma or kappa",
    )
)
