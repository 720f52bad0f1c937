"""The optimal solution of the one-filter CNN (Karp Ch. 3; made explicit in docs/local_signal.md): the error curve
err(tau) of the aligned filter w = c w_*, b = -tau c, its CLT approximation, the 0-1 optimal threshold tau* and the
floor, the logistic population optimum, Lemma B.5's numbers and the k at which the asymptotic statements start to
hold."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from numerics import local_signal as nl
from theory import local_signal as tl

from ..base import Claim, Observation, Resolution, RunContext, register
from ..judges import MaxAbs, MaxRel, Requiring, ZScore
from .common import DOC, MC_Z, SRC, se_list

SRC_APP = "Karp thesis (2024), App. B.1"


# --- err(tau): Fourier inversion (theory) against importance-sampled Monte Carlo (numerics)


@dataclass(frozen=True)
class CurveConfig:
    """The error curve at k noise rows (sigma = log k/sqrt k): ``low`` thresholds by plain Monte Carlo (``n_plain``
    draws, sparse sampler from tau = min(low)), ``high`` ones (the tail) by importance sampling (``n_is`` draws, shift
    mu = 1, defensive share alpha = 0.2)."""

    k: int = 1000
    low: tuple[float, ...] = (0.3, 0.5, 0.6)
    high: tuple[float, ...] = (0.7, 0.8, 0.9, 0.95, 0.97)
    n_plain: int = 20_000
    n_is: int = 100_000
    seed: int = 0


def _mc_curve(cfg: CurveConfig) -> tuple[list[float], list[float]]:
    sigma = tl.noise_sigma(cfg.k)
    plain = nl.tail_sample(cfg.k, sigma, min(cfg.low), cfg.n_plain, cfg.seed, importance=False)
    e1, s1 = nl.error_curve_mc(plain, cfg.low)
    tail = nl.tail_sample(cfg.k, sigma, min(cfg.high), cfg.n_is, cfg.seed + 1, importance=True)
    e2, s2 = nl.error_curve_mc(tail, cfg.high)
    return [*e1.tolist(), *e2.tolist()], [*s1.tolist(), *s2.tolist()]


def _curve_plot(cfg: CurveConfig, est: list[float], se: list[float]) -> dict:
    """err(tau) exact (theory) and its CLT approximation on a fine grid, the Monte Carlo points with +-2 SE, and the
    floor and err(tau*) as reference lines."""
    fine = [round(0.02 * i, 2) for i in range(50)] + [0.99]
    sigma = tl.noise_sigma(cfg.k)
    opt = tl.optimal_threshold(cfg.k)
    taus = [*cfg.low, *cfg.high]
    return {
        "name": "err-tau",
        "kind": "lines",
        "series": [
            {
                "label": "err(tau), Fourier inversion",
                "x": fine,
                "y": [nl.error_curve_fourier(cfg.k, t, sigma) for t in fine],
                "marker": "",
            },
            {
                "label": "CLT approximation (clipped at 1e-5)",
                "x": fine,
                "y": [max(tl.clt_error(cfg.k, t), 1e-5) for t in fine],
                "marker": "",
                "ls": "--",
            },
            {
                "label": "Monte Carlo (+-2 SE)",
                "x": taus,
                "y": est,
                "lo": [max(e - 2 * s, 1e-5) for e, s in zip(est, se)],
                "hi": [e + 2 * s for e, s in zip(est, se)],
                "ls": "",
            },
        ],
        "hlines": [
            {"y": opt.error, "label": f"err(tau*) = {opt.error:.5f} at tau* = {opt.tau:.3f}"},
            {"y": opt.floor, "label": f"floor (tau -> 1) = {opt.floor:.5f}", "color": "gray"},
        ],
        "xlabel": "tau = |b| / (w . w_*)",
        "ylabel": "0-1 error of the aligned CNN",
        "yscale": "log",
        "title": f"err(tau) at k = {cfg.k}, sigma = log k / sqrt k",
    }


def _observe_curve(cfg: CurveConfig, ctx: RunContext) -> Observation:
    est, se = _mc_curve(cfg)
    return Observation(
        est,
        details={"stderr": se_list(se), "taus": [*cfg.low, *cfg.high], "sigma": tl.noise_sigma(cfg.k)},
        artifacts={"plots": [_curve_plot(cfg, est, se)]},
        seeds=(cfg.seed, cfg.seed + 1),
    )


register(
    Claim(
        id="karp-ch3-err-curve",
        resolution=Resolution(
            rel=0.23,
            why="Monte Carlo error rates (20,000 plain and 100,000 importance-sampled draws): 4 standard errors are 3-15 % of the prediction, the largest in the tail",
        ),
        source=f"{SRC}, Sec. 3.3-3.4 (the aligned filter; the error curve is derived in {DOC})",
        statement="For w = c w_* and b = -tau c (c > 0, 0 <= tau < 1) the CNN errs iff sum_{i<=k} S_tau(A_i) <= -(1 - tau), "
        "A_i ~ N(0, sigma^2), whatever c and d: err(tau) computed by Fourier inversion equals the Monte Carlo "
        "frequency (plain for tau <= 0.6, importance-sampled in the tail); k = 1000: 0.3427, 0.1435, 0.0374, "
        "0.00648, 0.00269, 0.00235, 0.00234, 0.00234.",
        kind="numeric",
        configs={"quick": CurveConfig(), "full": CurveConfig(n_plain=400_000, n_is=4_000_000)},
        predict=lambda cfg: [tl.error_curve(cfg.k, t) for t in (*cfg.low, *cfg.high)],
        observe=_observe_curve,
        judge=ZScore(MC_Z),
    )
)


# --- the CLT approximation and where it holds


@dataclass(frozen=True)
class CLTConfig:
    """Thresholds where the CLT approximation is judged to hold (``taus``, within 0.005 of the exact error) and the
    tail points where its failure is judged (``tail``: the CLT value is below ``tail_ratio`` times the exact error),
    at k noise rows.

    Chosen after seeing the comparison (docs/local_signal.md): 0.005 is the accuracy that defines "holds", but the
    judged range tau <= 0.6 (it holds up to 0.62 at k = 1000) and the tail points were picked after comparing the CLT
    form with the exact curve, and the tail factor 1/2 was set after the tail values were known (the CLT value is
    0.11 times the exact error at tau = 0.7 and below 1e-5 times it from tau = 0.8)."""

    k: int = 1000
    taus: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    tail: tuple[float, ...] = (0.7, 0.8, 0.9)
    tail_ratio: float = 0.5


def _observe_clt(cfg: CLTConfig, ctx: RunContext) -> Observation:
    sigma = tl.noise_sigma(cfg.k)
    exact = [nl.error_curve_fourier(cfg.k, t, sigma) for t in cfg.taus]
    fine = [round(0.01 * i, 2) for i in range(100)]
    diff = [abs(nl.error_curve_fourier(cfg.k, t, sigma) - tl.clt_error(cfg.k, t)) for t in fine]
    holds = max((t for t, e in zip(fine, diff) if all(x <= 0.005 for x in diff[: fine.index(t) + 1])), default=0.0)
    tail = {str(t): {"exact": nl.error_curve_fourier(cfg.k, t, sigma), "clt": tl.clt_error(cfg.k, t)} for t in cfg.tail}
    misses = all(row["clt"] < cfg.tail_ratio * row["exact"] for row in tail.values())
    return Observation(
        exact,
        details={
            "taus": list(cfg.taus),
            "clt_within_0.005_up_to_tau": holds,
            "reported_not_judged": ["clt_within_0.005_up_to_tau"],
            "tail": tail,
            "tail_ratio": cfg.tail_ratio,
            _CLT_TAIL_KEY: misses,
        },
    )


_CLT_TAIL_KEY = "clt_below_tail_ratio_times_the_exact_error_at_every_tail_tau"


register(
    Claim(
        id="karp-ch3-err-clt",
        resolution=Resolution(
            rel=0.24,
            why="the CLT approximation is judged to an absolute 0.005 (its error at k = 1000); on the smallest error rates that is up to 21 % relative",
        ),
        source=f"{SRC}, Sec. 3.4 ('the classification accuracy is controlled by the ratio |b|/|w . w_*|'; CLT form in {DOC})",
        statement="err(tau) ~ Phi(-(1 - tau)/sqrt(k E S_tau^2)) (the sum of k soft-thresholded noise terms treated as "
        "Gaussian) is within 0.005 of the exact err (scipy Fourier inversion) at tau = 0, 0.1, ..., 0.6 at k = 1000; "
        "it misses the tail floor: at tau = 0.7, 0.8, 0.9 the CLT value is below half the exact error (0.0007 vs "
        "0.0065 at tau = 0.7, 2e-8 vs 0.0027 at tau = 0.8). Reported, not judged: the largest tau up to which the "
        "CLT form stays within 0.005 (0.62).",
        kind="numeric",
        configs={"quick": CLTConfig(), "full": CLTConfig()},
        predict=lambda cfg: [tl.clt_error(cfg.k, t) for t in cfg.taus],
        observe=_observe_clt,
        judge=Requiring(MaxAbs(0.005), (_CLT_TAIL_KEY,)),
    )
)


# --- tau*, err(tau*) and the floor


@dataclass(frozen=True)
class OptimumConfig:
    """Noise-row counts ``ks`` and the tau grid of the importance-sampled Monte Carlo (``n`` draws per k); the last
    grid point approximates the floor (tau -> 1).

    The flat minimum: at ``flat_k`` the exact error (scipy Fourier inversion, independent of theory/) on a grid of
    ``flat_interval`` (step 0.01, plus its end) must vary by less than ``flat_tol``. The interval [0.9, 0.999] and
    1e-5 were read off the exact curve before this check was written (err(0.9) - err(tau*) = 9.9e-6; at 0.85 the
    excess is 7.7e-5), i.e. after seeing it: the check pins the statement "tau* is defined only to about +-0.03"
    to numbers rather than testing a prediction (docs/local_signal.md)."""

    ks: tuple[int, ...] = (100, 1000)
    taus: tuple[float, ...] = (0.55, 0.6, 0.65, 0.68, 0.7, 0.72, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99, 0.9999)
    n: int = 100_000
    seed: int = 10
    flat_k: int = 1000
    flat_interval: tuple[float, float] = (0.9, 0.999)
    flat_tol: float = 1e-5


def _predict_optimum(cfg: OptimumConfig) -> list[float]:
    """Per k: err(tau*) and the floor lim_{tau -> 1} err = (1 - (1 - 2 Phi^c(1/sigma))^k)/2."""
    out = []
    for k in cfg.ks:
        opt = tl.optimal_threshold(k)
        out += [opt.error, opt.floor]
    return out


def _observe_optimum(cfg: OptimumConfig, ctx: RunContext) -> Observation:
    est, se, rows = [], [], []
    for j, k in enumerate(cfg.ks):
        sample = nl.tail_sample(k, tl.noise_sigma(k), min(cfg.taus), cfg.n, cfg.seed + j)
        e, s = nl.error_curve_mc(sample, cfg.taus)
        i = int(np.argmin(e[:-1]))
        est += [float(e[i]), float(e[-1])]
        se += [float(s[i]), float(s[-1])]
        opt = tl.optimal_threshold(k)
        rows.append(
            {
                "k": k,
                "sigma": tl.noise_sigma(k),
                "mc_argmin_tau": cfg.taus[i],
                "tau_star": opt.tau,
                "err_tau_star": opt.error,
                "floor": opt.floor,
                "floor_first_order": tl.floor_approximation(k),
                "err_mc": e.tolist(),
            }
        )
    lo, hi = cfg.flat_interval
    grid = [*np.arange(lo, hi, 0.01).round(4).tolist(), hi]
    sigma = tl.noise_sigma(cfg.flat_k)
    flat = [nl.error_curve_fourier(cfg.flat_k, t, sigma) for t in grid]
    spread = max(flat) - min(flat)
    return Observation(
        est,
        details={
            "stderr": se_list(se),
            "per_k": rows,
            "taus": list(cfg.taus),
            "flat_minimum": {"k": cfg.flat_k, "taus": grid, "err_exact_scipy": flat, "spread": spread},
            _FLAT_KEY: bool(spread < cfg.flat_tol),
        },
        seeds=tuple(cfg.seed + j for j in range(len(cfg.ks))),
    )


_FLAT_KEY = "exact_err_varies_by_less_than_flat_tol_on_flat_interval"


register(
    Claim(
        id="karp-ch3-optimal-threshold",
        resolution=Resolution(
            rel=0.038, why="Monte Carlo over 100,000 samples: 4 standard errors are 1.3-3.2 % of the prediction"
        ),
        source=f"{SRC}, Sec. 3.4 (the 0-1 optimum of the aligned filter, derived in {DOC})",
        statement="The 0-1 optimal threshold: err(tau) has its minimum err(tau*) at tau* ~ 0.95 for k = 1000 "
        "(err = 0.0023411) just below the floor lim_{tau->1} err = (1 - (1 - 2 Phi^c(1/sigma))^k)/2 "
        "= 0.0023432 (~ k Phi(-1/sigma) = 0.0023487); at k = 100 (outside the asymptotic regime) tau* ~ 0.65, "
        "err ~ 0.372. The smallest importance-sampled Monte Carlo error over a tau grid matches err(tau*) and "
        "the error at tau = 0.9999 matches the floor; the minimum is flat: at k = 1000 the exact err (scipy "
        "inversion) varies by less than 1e-5 on [0.9, 0.999] (interval and 1e-5 read off the curve).",
        kind="numeric",
        configs={"quick": OptimumConfig(), "full": OptimumConfig(n=2_000_000)},
        predict=_predict_optimum,
        observe=_observe_optimum,
        judge=Requiring(ZScore(MC_Z), (_FLAT_KEY,)),
    )
)


# --- the logistic population optimum


@dataclass(frozen=True)
class LogisticConfig:
    """The logistic optimum at k noise rows over the tau grid (``n`` importance-sampled draws per batch, ``batches``
    independent batches for the error bars). ``max_rel_excess`` bounds err(tau_log)/err(tau*) - 1: 0.1 was chosen
    after seeing the value (about 0.05 at k = 1000), see docs/local_signal.md."""

    k: int = 1000
    taus: tuple[float, ...] = tuple(round(0.70 + 0.02 * i, 2) for i in range(15))
    n: int = 40_000
    batches: int = 4
    seed: int = 20
    max_rel_excess: float = 0.1


def _observe_logistic(cfg: LogisticConfig, ctx: RunContext) -> Observation:
    opt = nl.logistic_optimum(cfg.k, tl.noise_sigma(cfg.k), cfg.taus, cfg.n, cfg.batches, cfg.seed)
    return Observation(
        opt.error,
        details={
            "c_star": opt.c,
            "tau_log": opt.tau,
            "b_star": opt.b,
            "loss": opt.loss,
            "error": opt.error,
            "standard_errors": opt.se,
            "per_batch": opt.per_batch,
        },
        seeds=tuple(cfg.seed + j for j in range(cfg.batches)),
    )


register(
    Claim(
        id="karp-ch3-logistic-optimum",
        resolution=Resolution(
            rel=0.19,
            why="the error of the logistic-loss optimum found by SGD on 40,000 samples is judged to a relative 10 % (max_rel_excess) of the theory's optimum: the fitted optimum is not the population one",
        ),
        source=f"{SRC}, Sec. 3.3 (logistic loss; the population optimum is computed in {DOC})",
        statement="The logistic population optimum over aligned filters, (c*, b*) = argmin E log(1 + exp(-y f)), is finite "
        "(the loss grows linearly in c at fixed tau because err(tau) > 0): at k = 1000 c* ~ 48, tau_log = |b*|/c* ~ "
        "0.83 < tau*, loss ~ 0.0079; its 0-1 error is within 10 % of the 0-1 optimum err(tau*) (about 5 % above).",
        kind="numeric",
        configs={"quick": LogisticConfig(), "full": LogisticConfig(n=400_000, batches=8)},
        predict=lambda cfg: tl.optimal_threshold(cfg.k).error,
        observe=_observe_logistic,
        judge=MaxRel(0.1),
    )
)


# --- Lemma B.5 and the regimes of the asymptotic statements


@dataclass(frozen=True)
class LemmaB5Config:
    """The k at which Lemma B.5's numbers are evaluated."""

    ks: tuple[int, ...] = (1000, 1611, 10_000)


def _observe_b5(cfg: LemmaB5Config, ctx: RunContext) -> Observation:
    out, rows = [], []
    for k in cfg.ks:
        alpha = 2 * np.sqrt(np.log(k))
        sigma = np.log(k) / np.sqrt(k)
        vals = [alpha, 2 * k * np.exp(-(alpha**2) / 2), 2 * k * stats.norm.sf(alpha), sigma * alpha]
        out += [float(v) for v in vals]
        rows.append({"k": k, "tau_sufficient": float(vals[3]), "usable (tau < 1)": bool(vals[3] < 1)})
    return Observation(out, details={"per_k": rows})


register(
    Claim(
        id="karp-ch3-lemB5-numbers",
        source=f"{SRC_APP}, Lemma B.5 (regimes in {DOC})",
        statement="Lemma B.5: alpha* = 2 sqrt(log k); the proof's union bound 2k exp(-alpha*^2/2) = 2/k; the exact union "
        "bound 2k Phi^c(alpha*) (1.47e-4 at k = 1000); in tau units for an aligned filter alpha > alpha* means "
        "tau > 2 log^{3/2} k / sqrt k = 1.148 at k = 1000 (> 1: the signal is thresholded away too, so the proof's "
        "sufficient condition cannot hold at Fig. 3.3's k), = 1 at k = 1611, 0.559 at k = 10^4.",
        kind="numeric",
        configs={"quick": LemmaB5Config(), "full": LemmaB5Config()},
        predict=lambda cfg: [
            x
            for k in cfg.ks
            for b5 in [tl.lemma_b5(k)]
            for x in (b5.alpha, b5.union_bound, b5.exact_union_bound, b5.tau_sufficient)
        ],
        observe=_observe_b5,
        judge=MaxRel(1e-9),
    )
)

_CROSSOVER_KEYS = ("tau_suff_below_1", "lemma33_sketch", "lemmaB9", "linear_error_049")


def _observe_crossovers(cfg: LemmaB5Config, ctx: RunContext) -> Observation:
    ln10 = np.log(10)
    z = stats.norm.ppf(0.51)
    fns = {
        "tau_suff_below_1": (lambda u: 2 * (u * ln10) ** 1.5 / np.sqrt(10**u) - 1, 2.5, 4.0),
        "lemma33_sketch": (lambda u: 4 * np.log(u * ln10) - u * ln10 / 8, 60.0, 80.0),
        "lemmaB9": (lambda u: u * ln10 / 4 - np.log(4) - 1.5 * np.log(u * ln10), 8.0, 14.0),
        "linear_error_049": (lambda u: 1 / (u * ln10) - z, 15.0, 20.0),
    }
    roots = [optimize.brentq(f, lo, hi, xtol=1e-13) for f, lo, hi in (fns[key] for key in _CROSSOVER_KEYS)]
    return Observation(roots, details={"log10_k": dict(zip(_CROSSOVER_KEYS, roots))})


register(
    Claim(
        id="karp-ch3-regime-crossovers",
        source=f"{SRC}, Lemma 3.3 (sketch), Sec. 3.3; {SRC_APP}, Lemmas B.5 and B.9 (regimes in {DOC})",
        statement="The asymptotic statements hold only from these k on (log10 k): Lemma B.5's sufficient tau "
        "2 log^{3/2} k/sqrt k < 1 from 3.207 (k = 1611); 'Omega(1/log^4 k) implies omega(k^{-1/8})' (Lemma 3.3 "
        "sketch) from 70.79; Lemma B.9's k^{1/4} > 4 log^{3/2} k from 10.78; the linear classifier's 'at least "
        "0.49' from 17.32 (k = 2.1e17). Tests at practical k must check the mechanism, not these constants.",
        kind="numeric",
        configs={"quick": LemmaB5Config(), "full": LemmaB5Config()},
        predict=lambda cfg: [tl.crossovers()[key] for key in _CROSSOVER_KEYS],
        observe=_observe_crossovers,
        judge=MaxAbs(1e-6),
    )
)
