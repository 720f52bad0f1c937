"""Statistical claims on Fourier gaps (Edelman thesis App. B.2.2, B.3.1): one-step recovery of S from a batch
gradient (Prop. B.7) and the gaps of random LTFs (Fig. B.7) and sinusoidal neurons (Fig. B.8 left).

Predicted values (gamma_grad, the Majority references, the gaps that parity forces to 0) come from
:mod:`theory.boolean`; observations from :mod:`numerics.fourier_gaps` (batched transforms, sampled batch
gradients, stated trials and seeds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from numerics import fourier_gaps as fg
from theory import boolean as tb

from ..base import Claim, Observation, RunContext, register
from ..judges import Check, Judge, Verdict, as_float

SRC = "Edelman thesis (2024)"


# --- Proposition B.7 (Edelman thesis, App. B.2.2): one-step recovery from a batch gradient


@dataclass(frozen=True)
class PerCase(Judge):
    """Every row of ``obs.details[rows]`` (one per case of a statistical claim) satisfies every :class:`Check`."""

    checks: tuple[Check, ...]
    rows: str = "per_case"

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        rows = obs.details[self.rows]
        problems = [f"{r['case']}: {msg}" for r in rows for c in self.checks if (msg := c.problem(r))]
        summary = "; ".join(
            f"{r['case']}: " + ", ".join(f"{c.label} {r[c.field]:.4g}" for c in self.checks) for r in rows
        )
        return ("fail" if problems else "pass"), summary + (
            "; out of tolerance: " + "; ".join(problems) if problems else ""
        )

    def describe(self) -> str:
        return "per case: " + ", ".join(c.describe() for c in self.checks)


@dataclass(frozen=True)
class RecoveryConfig:
    """Cases (n, k, trials); batch sizes B = ceil(m / gamma_grad^2) for m in ``multipliers`` (must hold lo and hi)."""

    cases: tuple[tuple[int, int, int], ...]
    multipliers: tuple[float, ...]
    seed: int
    lo: float = 1.0
    hi: float = 20.0


#: Prop. B.7 success-rate thresholds: at most this at B = ceil(1/gamma^2), at least that at B = ceil(20/gamma^2).
MAX_RATE_LO, MIN_RATE_HI = 0.5, 0.95


def _batch(m: float, gamma: float) -> int:
    return math.ceil(m / gamma**2)


def _wilson(s: int, t: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson 95% interval of a binomial proportion s/t (for the plot band only)."""
    p = s / t
    d = 1 + z * z / t
    c = (p + z * z / (2 * t)) / d
    h = z * math.sqrt(p * (1 - p) / t + z * z / (4 * t * t)) / d
    return max(0.0, c - h), min(1.0, c + h)


def _predict_recovery(cfg: RecoveryConfig) -> dict[str, Any]:
    """gamma_grad = (|Maj_n(k-1)| - |Maj_n(k+1)|)/2 and the batch sizes at which the rates are judged."""
    out = {}
    for n, k, _ in cfg.cases:
        g = tb.gradient_gap(n, k)
        out[f"n={n},k={k}"] = {"gamma_grad": g, "B_lo": _batch(cfg.lo, float(g)), "B_hi": _batch(cfg.hi, float(g))}
    return out


def _observe_recovery(cfg: RecoveryConfig, ctx: RunContext) -> Observation:
    """Per case and batch size: the fraction of trials whose top-k of |g_hat| is exactly S, and the trials with
    ||g_hat - g_bar||_inf < gamma/2 that are not recovered (Prop. B.7 says none)."""
    if cfg.lo not in cfg.multipliers or cfg.hi not in cfg.multipliers:
        raise ValueError(f"multipliers {cfg.multipliers} must contain lo = {cfg.lo} and hi = {cfg.hi}")
    value, rows, series = {}, [], []
    for j, (n, k, trials) in enumerate(cfg.cases):
        gamma = float(fg.gradient_gap_reference(n, k))
        Bs = [_batch(m, gamma) for m in cfg.multipliers]
        r = fg.one_step_recovery(n, k, Bs, trials, cfg.seed + j)
        rates = dict(zip(cfg.multipliers, r.rates))
        key = f"n={n},k={k}"
        value[key] = {"rate_lo": rates[cfg.lo], "rate_hi": rates[cfg.hi], "violations": sum(r.violations)}
        rows.append(
            {
                "case": key,
                **value[key],
                "batch_sizes": Bs,
                "B_gamma2": list(cfg.multipliers),
                "successes": list(r.successes),
                "within_half_gap": list(r.within),
                "violations_of_propB7": list(r.violations),
                "trials": trials,
                "gamma_grad": gamma,
                "method": r.method,
                "seed": cfg.seed + j,
            }
        )
        band = [_wilson(s, trials) for s in r.successes]
        series.append(
            {
                "label": f"n={n}, k={k} ({trials} trials)",
                "x": list(cfg.multipliers),
                "y": list(r.rates),
                "lo": [b[0] for b in band],
                "hi": [b[1] for b in band],
                "marker": "o",
            }
        )
        series.append(
            {
                "label": f"n={n}, k={k}: P(||ĝ-ḡ||∞ < γ/2) (Prop. B.7 hypothesis)",
                "x": list(cfg.multipliers),
                "y": [c / trials for c in r.within],
                "marker": "x",
                "ls": ":",
            }
        )
    plot = {
        "name": "success-vs-batch",
        "kind": "lines",
        "series": series,
        "xscale": "log",
        "hlines": [
            {"y": MIN_RATE_HI, "label": f"{MIN_RATE_HI} (required at Bγ²={cfg.hi:g})"},
            {"y": MAX_RATE_LO, "label": f"{MAX_RATE_LO} (limit at Bγ²={cfg.lo:g})", "color": "grey"},
        ],
        "xlabel": r"$B\,\gamma_{grad}^2$",
        "ylabel": "P(top-k of |ĝ| = S)",
        "title": "Prop. B.7: one-step recovery from a batch gradient (95% Wilson band)",
    }
    return Observation(
        value,
        details={
            "per_case": rows,
            "w": "random sign w ~ Unif{±1}^n, no bias (Thm 5.5 init); success = top-k of |ĝ| is S strictly",
        },
        artifacts={"plots": [plot]},
        seeds=tuple(cfg.seed + j for j in range(len(cfg.cases))),
    )


register(
    Claim(
        id="edelman-ch5-propB.7-one-step-recovery",
        source=f"{SRC}, Proposition B.7 (App. B.2.2) and Lemma B.3",
        statement="If sigma'(w.x) has a gamma-Fourier gap at S, the top-k coordinates of any estimate g of the "
        "correlation-loss gradient with ||g - E grad||_inf < gamma/2 are exactly S; O(log n/gamma^2) samples "
        "suffice. For a ReLU neuron at a random sign w, gamma = gamma_grad = (|Maj_n(k-1)| - |Maj_n(k+1)|)/2: checked "
        "as no trial with ||g - E grad||_inf < gamma/2 failing, success rates at B = ceil(20/gamma^2) and at most a "
        "coin flip at B = ceil(1/gamma^2) (stated trials and seeds).",
        kind="numeric",
        configs={
            "quick": RecoveryConfig(
                cases=((21, 2, 200), (15, 4, 200)), multipliers=(0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0), seed=0
            ),
            "full": RecoveryConfig(
                cases=((21, 2, 2000), (15, 4, 1000), (21, 4, 200), (13, 6, 1000)),
                multipliers=(0.125, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0),
                seed=0,
            ),
        },
        predict=_predict_recovery,
        observe=_observe_recovery,
        judge=PerCase(
            (
                Check("violations", "trials with ||g_hat - g_bar||_inf < gamma_grad/2 not recovered", hi=0),
                Check("rate_hi", "success rate at B = ceil(20/gamma_grad^2)", lo=MIN_RATE_HI),
                Check("rate_lo", "success rate at B = ceil(1/gamma_grad^2)", hi=MAX_RATE_LO),
            )
        ),
        insensitive="Prop. B.7 gives no number to compare with: gamma_grad only sets the batch sizes, and the verdict "
        "is on the measured success rates",
    )
)


# --- Figure B.7 (Edelman thesis, App. B.3.1): Fourier gaps of random LTFs


@dataclass(frozen=True)
class LtfConfig:
    """Random-LTF gaps at n (odd), ``draws`` weights per distribution, S = [k] for three k."""

    n: int
    draws: int
    seed: int
    dists: tuple[str, ...] = ("uniform", "gaussian", "sign")
    k_even: int = 2
    k_odd: int = 3
    k_hard: int = 4


@dataclass(frozen=True)
class LtfGaps(Judge):
    """Fig. B.7, judged against the Majority references gamma_grad (predicted): per weight distribution, the
    median gap at k_even within ``median_band`` x reference; the gap at k_odd equal to its prediction (0)
    within ``atol``; for sign w every gap equal to the reference within ``atol``; for uniform w the gap at
    k_hard positive with probability at least ``min_positive_hard``."""

    median_band: tuple[float, float]
    min_positive_hard: float
    atol: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        ref_even, ref_hard, zero = (as_float(v) for v in predicted.values())
        lo, hi = self.median_band
        bad, parts = [], []
        for dist, v in obs.value.items():
            ratio = v["median_gap_k_even"] / ref_even
            odd_err = abs(v["max_abs_gap_k_odd"] - zero)
            parts.append(
                f"{dist}: median gap(k_even)/reference = {ratio:.3f}, |gap(k_odd) - {zero:g}| <= {odd_err:.1e}, "
                f"P(gap(k_hard) > 0) = {v['P_positive_k_hard']:.3f}"
            )
            if not lo <= ratio <= hi:
                bad.append(f"{dist} median ratio")
            if odd_err > self.atol:
                bad.append(f"{dist} odd-k gap")
            if dist == "uniform" and v["P_positive_k_hard"] < self.min_positive_hard:
                bad.append("uniform P(gap > 0) at k_hard")
            if dist == "sign":
                dev = max(
                    max(abs(x - ref_even) for x in v["gap_range_k_even"]),
                    *(abs(x - ref_hard) for x in v["gap_range_k_hard"]),
                )
                if dev > self.atol:
                    bad.append(f"sign w gaps differ from the Majority reference by {dev:.1e}")
        return ("fail" if bad else "pass"), "; ".join(parts) + (f"; out of tolerance: {bad}" if bad else "")

    def describe(self) -> str:
        lo, hi = self.median_band
        return (
            f"median gap(k=2) within [{lo:g}, {hi:g}] x Majority reference; |gap(k=3) - 0| <= {self.atol:g}; "
            f"P(gap(k=4) > 0 | uniform w) >= {self.min_positive_hard:g}; sign w: |gap - reference| <= {self.atol:g}"
        )


def _predict_ltf(cfg: LtfConfig) -> dict[str, Fraction]:
    """gamma_grad at k_even and k_hard (the Majority references) and 0 at odd k (no bias)."""
    return {
        f"majority_reference_k{cfg.k_even}": tb.gradient_gap(cfg.n, cfg.k_even),
        f"majority_reference_k{cfg.k_hard}": tb.gradient_gap(cfg.n, cfg.k_hard),
        f"gap_k{cfg.k_odd}": tb.vanishing_gradient_gap(cfg.k_odd, "ltf"),
    }


def _observe_ltf(cfg: LtfConfig, ctx: RunContext) -> Observation:
    """Exact relaxed gaps max_{i in [k]}|g_i| - max_{i notin [k]}|g_i| (and the min-form) of g = E[y x 1{w.x > 0}]
    for ``draws`` random w per distribution, one batched transform each."""
    ks = (cfg.k_even, cfg.k_odd, cfg.k_hard)
    refs = {k: float(tb.gradient_gap(cfg.n, k)) for k in (cfg.k_even, cfg.k_hard)}  # plot lines only
    value, details, hists = {}, {}, {k: [] for k in (cfg.k_even, cfg.k_hard)}
    for j, dist in enumerate(cfg.dists):
        res = fg.random_ltf_gaps(cfg.n, ks, dist, cfg.draws, cfg.seed + j)
        d: dict[str, Any] = {"seed": cfg.seed + j}
        for k, (gmax, gmin) in res.items():
            d[f"k={k}"] = {
                "quantiles_10_50_90": np.quantile(gmax, [0.1, 0.5, 0.9]).tolist(),
                "P(Gamma>0)": float((gmax > 0).mean()),
                "P(Gamma_min>0)": float((gmin > 0).mean()),
                "max|Gamma|": float(np.abs(gmax).max()),
            }
            if k in hists and dist != "sign":
                hists[k].append({"label": dist, "values": gmax.tolist()})
        value[dist] = {
            "median_gap_k_even": float(np.median(res[cfg.k_even][0])),
            "max_abs_gap_k_odd": float(np.abs(res[cfg.k_odd][0]).max()),
            "P_positive_k_hard": float((res[cfg.k_hard][0] > 0).mean()),
        }
        if dist == "sign":
            for name, k in (("k_even", cfg.k_even), ("k_hard", cfg.k_hard)):
                both = np.concatenate(res[k])
                value[dist][f"gap_range_{name}"] = [float(both.min()), float(both.max())]
        details[dist] = d
    plots = [
        {
            "name": "gaps" if k == cfg.k_even else f"gaps-k{k}",
            "kind": "hist",
            "series": hists[k],
            "bins": 40,
            "xlabel": rf"$\Gamma_{{ReLU,{k}}}(w)$ (relaxed gap, gradient units)",
            "ylabel": "random LTFs",
            "vlines": [{"x": refs[k], "label": f"Majority reference {refs[k]:.4g}"}],
            "title": f"Fig. B.7: random-LTF Fourier gaps, n={cfg.n}, k={k}, {cfg.draws} draws",
        }
        for k in (cfg.k_even, cfg.k_hard)
    ]
    return Observation(
        value, details=details, artifacts={"plots": plots}, seeds=tuple(cfg.seed + j for j in range(len(cfg.dists)))
    )


register(
    Claim(
        id="edelman-ch5-figB.7-random-ltf-gaps",
        source=f"{SRC}, App. B.3.1, Figure B.7 (random LTFs)",
        statement="For ReLU neurons with i.i.d. uniform or Gaussian w (no bias) at n = 15, the relaxed Fourier gap "
        "Gamma = max_{i in [k]}|g_i| - max_{i notin [k]}|g_i| of g = E[y x 1{w.x>0}] is comparable to Majority's "
        "with non-negligible probability; Gamma = 0 for odd k (no bias); sign w gives exactly the Majority gap.",
        kind="numeric",
        configs={"quick": LtfConfig(n=15, draws=300, seed=0), "full": LtfConfig(n=15, draws=5000, seed=0)},
        predict=_predict_ltf,
        observe=_observe_ltf,
        judge=LtfGaps(median_band=(0.5, 2.0), min_positive_hard=0.6, atol=1e-12),
    )
)


# --- Figure B.8 left (Edelman thesis, App. B.3.1): Fourier gaps of sinusoidal neurons


@dataclass(frozen=True)
class SinusoidConfig:
    """Sinusoid neuron sin(c w.x), c = 1/sqrt(n), gradients via cos; Gaussian w; ``check`` draws vs brute force."""

    n: int
    draws: int
    seed: int
    check: int
    k_odd: int = 3
    k_even: int = 2


@dataclass(frozen=True)
class SinusoidGaps(Judge):
    """Fig. B.8 left: the gap at even k equals its prediction (0) within ``atol``; the closed form of the gradient
    agrees with the brute-force transform within ``atol``; the gap at odd k is positive with probability at
    least ``min_positive``."""

    min_positive: float
    atol: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        v = obs.value
        even_err = abs(v["max_abs_gap_k_even"] - as_float(next(iter(predicted.values()))))
        bad = []
        if v["P_positive_k_odd"] < self.min_positive:
            bad.append("P(gap > 0) at odd k")
        if even_err > self.atol:
            bad.append("even-k gap differs from its prediction")
        if v["max_closed_form_error"] > self.atol:
            bad.append("closed form differs from brute force")
        msg = (
            f"P(gap(k_odd) > 0) = {v['P_positive_k_odd']:.3f}, median {v['median_gap_k_odd']:.4f}; "
            f"|gap(k_even) - predicted| <= {even_err:.1e}; closed form vs brute force {v['max_closed_form_error']:.1e}"
        )
        return ("fail" if bad else "pass"), msg + (f"; out of tolerance: {bad}" if bad else "")

    def describe(self) -> str:
        return (
            f"P(gap(k=3) > 0) >= {self.min_positive:g}; |gap(k=2) - 0| <= {self.atol:g}; closed form vs brute-force "
            f"transform <= {self.atol:g}"
        )


def _observe_sinusoid(cfg: SinusoidConfig, ctx: RunContext) -> Observation:
    """Relaxed gaps of g = E[y x cos(c w.x)] (the gradient of sin(c w.x) up to c) in closed form for ``draws``
    Gaussian w, the closed form against the brute-force transform on ``check`` draws, and the printed sin form."""
    c = 1.0 / math.sqrt(cfg.n)
    W, res = fg.sinusoid_gaps(cfg.n, (cfg.k_even, cfg.k_odd), "gaussian", cfg.draws, cfg.seed, c=c)
    diff = max(
        float(
            np.abs(
                fg.sinusoid_gradients(W[: cfg.check], k, c) - fg.sinusoid_gradients_bruteforce(W[: cfg.check], k, c)
            ).max()
        )
        for k in (cfg.k_even, cfg.k_odd)
    )
    _, printed = fg.sinusoid_gaps(cfg.n, (cfg.k_even, cfg.k_odd), "gaussian", cfg.draws, cfg.seed, c=c, kind="sin")
    godd = res[cfg.k_odd][0]
    value = {
        "P_positive_k_odd": float((godd > 0).mean()),
        "median_gap_k_odd": float(np.median(godd)),
        "max_abs_gap_k_even": float(np.abs(res[cfg.k_even][0]).max()),
        "max_closed_form_error": diff,
    }
    details = {
        "c": c,
        "seed": cfg.seed,
        "note": "g = E[y x cos(c w.x)] (gradient of sin(c w.x) up to the factor c); Fig. B.8 prints sin, "
        "which has only odd levels and hence the opposite parity of k",
        **{
            f"cos k={k}": {
                "quantiles_10_50_90": np.quantile(g[0], [0.1, 0.5, 0.9]).tolist(),
                "P(Gamma>0)": float((g[0] > 0).mean()),
                "P(Gamma_min>0)": float((g[1] > 0).mean()),
            }
            for k, g in res.items()
        },
        **{
            f"as printed (sin) k={k}": {
                "quantiles_10_50_90": np.quantile(g[0], [0.1, 0.5, 0.9]).tolist(),
                "P(Gamma>0)": float((g[0] > 0).mean()),
            }
            for k, g in printed.items()
        },
    }
    ref = float(tb.gradient_gap(cfg.n, cfg.k_even))  # plot line only
    plot = {
        "name": "gaps",
        "kind": "hist",
        "bins": 50,
        "series": [
            {"label": f"k={cfg.k_odd}, E[y x cos(w.x/√n)] (gradient of the sin neuron)", "values": godd.tolist()},
            {
                "label": f"k={cfg.k_even}, E[y x sin(w.x/√n)] (formula as printed)",
                "values": printed[cfg.k_even][0].tolist(),
            },
        ],
        "vlines": [
            {"x": 0.0, "label": "Γ = 0"},
            {"x": ref, "label": f"Majority reference k={cfg.k_even}: {ref:.4g}", "color": "red"},
        ],
        "xlabel": rf"$\Gamma_{{k}}(w)$ (relaxed gap, n={cfg.n}, Gaussian w)",
        "ylabel": "directions w",
        "title": f"Fig. B.8 left: sinusoid-neuron Fourier gaps, n={cfg.n}, {cfg.draws} draws "
        f"(Γ ≡ 0 at k={cfg.k_even} via cos)",
    }
    return Observation(value, details=details, artifacts={"plots": [plot]}, seeds=(cfg.seed,))


register(
    Claim(
        id="edelman-ch5-figB.8-sinusoid-gaps",
        source=f"{SRC}, App. B.3.1, Figure B.8 (left)",
        statement="Population gradients of sinusoidal neurons sin(w.x/sqrt(n)) with random w have positive Fourier "
        "gaps (Fig. B.8 left). Through cos (whose Fourier expansion has only even levels without a bias) the gap is "
        "positive for odd k and exactly 0 for even k.",
        kind="numeric",
        configs={
            "quick": SinusoidConfig(n=15, draws=300, seed=0, check=20),
            "full": SinusoidConfig(n=15, draws=20000, seed=0, check=200),
        },
        predict=lambda cfg: {f"gap_k{cfg.k_even}": tb.vanishing_gradient_gap(cfg.k_even, "cos")},
        observe=_observe_sinusoid,
        judge=SinusoidGaps(min_positive=0.95, atol=1e-12),
    )
)
