"""Statistical Fourier-gap claims of Edelman thesis Ch. 5 / App. B (spec §1.5, §1.6, §2.4; checks B1-B3).

* ``edelman-ch5-propB.7-one-step-recovery`` (B1): one large-batch gradient of a ReLU neuron at a random sign
  w recovers S once B is a constant multiple of 1/γ_grad² (Prop. B.7).
* ``edelman-ch5-figB.7-random-ltf-gaps`` (B2): exact Fourier gaps of random LTFs (uniform / Gaussian w)
  are comparable to the Majority reference (Fig. B.7).
* ``edelman-ch5-figB.8-sinusoid-gaps`` (B3): exact gaps of sinusoidal neurons (Fig. B.8 left), closed form.

Predicted values (γ_grad, the Majority reference) come from ``theory.boolean``; the observations from
``numerics.fourier_gaps`` (numpy; exact population gradients by the Walsh-Hadamard transform).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics import fourier_gaps as fg

from .base import Claim, Observation, RunContext, Verdict, register

SRC = "Edelman thesis (2024)"


def _wilson(s: int, t: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson 95% interval of a binomial proportion s/t (for the plot band only)."""
    p = s / t
    d = 1 + z * z / t
    c = (p + z * z / (2 * t)) / d
    h = z * math.sqrt(p * (1 - p) / t + z * z / (4 * t * t)) / d
    return max(0.0, c - h), min(1.0, c + h)


# ----------------------------------------------------------------------------------------- B1


@dataclass(frozen=True)
class RecoveryConfig:
    """Cases (n, k, trials); batch sizes B = ceil(m / γ_grad²) for m in ``multipliers`` (must hold lo and hi)."""

    cases: tuple[tuple[int, int, int], ...]
    multipliers: tuple[float, ...]
    seed: int
    lo: float = 1.0
    hi: float = 20.0
    max_rate_lo: float = 0.5
    min_rate_hi: float = 0.95


def _batch(m: float, gamma: float) -> int:
    return int(math.ceil(m / gamma**2))


def _predict_recovery(cfg: RecoveryConfig) -> dict[str, Any]:
    out = {}
    for n, k, _ in cfg.cases:
        g = fg.gradient_gap_reference(n, k)
        out[f"n={n},k={k}"] = {
            "gamma_grad": g,
            "B_lo": _batch(cfg.lo, float(g)),
            "B_hi": _batch(cfg.hi, float(g)),
            "rate_lo_at_most": cfg.max_rate_lo,
            "rate_hi_at_least": cfg.min_rate_hi,
        }
    return out


def _observe_recovery(cfg: RecoveryConfig, ctx: RunContext) -> Observation:
    if cfg.lo not in cfg.multipliers or cfg.hi not in cfg.multipliers:
        raise ValueError(f"multipliers {cfg.multipliers} must contain lo = {cfg.lo} and hi = {cfg.hi}")
    value, details, series = {}, {}, []
    for j, (n, k, trials) in enumerate(cfg.cases):
        gamma = float(fg.gradient_gap_reference(n, k))
        Bs = [_batch(m, gamma) for m in cfg.multipliers]
        r = fg.one_step_recovery(n, k, Bs, trials, cfg.seed + j)
        rates = dict(zip(cfg.multipliers, r.rates))
        key = f"n={n},k={k}"
        value[key] = {"rate_lo": rates[cfg.lo], "rate_hi": rates[cfg.hi], "violations": sum(r.violations)}
        details[key] = {
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
    details["w"] = "random sign w ~ Unif{±1}^n, no bias (spec B1, Thm 5.5 init); success = top-k of |ĝ| is S strictly"
    plot = {
        "name": "success-vs-batch",
        "kind": "lines",
        "series": series,
        "xscale": "log",
        "hlines": [
            {"y": cfg.min_rate_hi, "label": f"{cfg.min_rate_hi} (required at Bγ²={cfg.hi:g})"},
            {"y": cfg.max_rate_lo, "label": f"{cfg.max_rate_lo} (limit at Bγ²={cfg.lo:g})", "color": "grey"},
        ],
        "xlabel": r"$B\,\gamma_{grad}^2$",
        "ylabel": "P(top-k of |ĝ| = S)",
        "title": "Prop. B.7: one-step recovery from a batch gradient (95% Wilson band)",
    }
    return Observation(
        value, details=details, artifacts={"plots": [plot]}, seeds=tuple(cfg.seed + j for j in range(len(cfg.cases)))
    )


def _judge_recovery(predicted: Any, obs: Observation, cfg: RecoveryConfig) -> tuple[Verdict, str]:
    bad, parts = [], []
    for key, v in obs.value.items():
        parts.append(
            f"{key}: P={v['rate_lo']:.3f} at Bγ²={cfg.lo:g}, P={v['rate_hi']:.3f} at Bγ²={cfg.hi:g}, "
            f"{v['violations']} trials with ||ĝ-ḡ||∞ < γ/2 but not recovered"
        )
        if v["rate_hi"] < cfg.min_rate_hi or v["rate_lo"] > cfg.max_rate_lo or v["violations"]:
            bad.append(key)
    verdict: Verdict = "fail" if bad else "pass"
    return verdict, "; ".join(parts) + (f"; out of tolerance: {bad}" if bad else "")


register(
    Claim(
        id="edelman-ch5-propB.7-one-step-recovery",
        source=f"{SRC}, Proposition B.7 (App. B.2.2), Lemma B.3; spec §2.4 and check B1",
        statement="If sigma'(w.x) has a gamma-Fourier gap at S, the top-k coordinates of any estimate g of the "
        "correlation-loss gradient with ||g - E grad||_inf < gamma/2 are exactly S; O(log n/gamma^2) samples "
        "suffice. For a ReLU neuron at a random sign w, gamma = gamma_grad = (|Maj_n(k-1)| - |Maj_n(k+1)|)/2.",
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
        judge=_judge_recovery,
        tolerance="per case: no trial with ||g_hat - g_bar||_inf < gamma_grad/2 fails (Prop. B.7, deterministic); success rate >= 0.95 at B = ceil(20/gamma_grad^2) and <= 0.5 at B = ceil(1/gamma_grad^2) "
        "(spec B1 thresholds; stated trials and seeds)",
    )
)

# ----------------------------------------------------------------------------------------- B2


@dataclass(frozen=True)
class LtfConfig:
    """Random-LTF gaps at n (odd), ``draws`` weights per distribution, S = [k] for k in ks."""

    n: int
    draws: int
    seed: int
    dists: tuple[str, ...] = ("uniform", "gaussian", "sign")
    k_even: int = 2
    k_odd: int = 3
    k_hard: int = 4
    median_band: tuple[float, float] = (0.5, 2.0)
    min_positive_hard: float = 0.6
    atol: float = 1e-12


def _predict_ltf(cfg: LtfConfig) -> dict[str, Any]:
    return {f"majority_reference_k{k}": fg.gradient_gap_reference(cfg.n, k) for k in (cfg.k_even, cfg.k_hard)} | {
        f"gap_k{cfg.k_odd}": 0
    }


def _observe_ltf(cfg: LtfConfig, ctx: RunContext) -> Observation:
    ks = (cfg.k_even, cfg.k_odd, cfg.k_hard)
    refs = {k: float(fg.gradient_gap_reference(cfg.n, k)) for k in (cfg.k_even, cfg.k_hard)}
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
            "median_ratio_k_even": float(np.median(res[cfg.k_even][0])) / refs[cfg.k_even],
            "max_abs_gap_k_odd": float(np.abs(res[cfg.k_odd][0]).max()),
            "P_positive_k_hard": float((res[cfg.k_hard][0] > 0).mean()),
        }
        if dist == "sign":
            value[dist]["max_dev_from_reference"] = max(
                float(np.abs(res[k][i] - refs[k]).max()) for k in refs for i in (0, 1)
            )
        details[dist] = d
    plots = [
        {
            "name": "gaps" if k == cfg.k_even else f"gaps-k{k}",
            "kind": "hist",
            "series": hists[k],
            "bins": 40,
            "xlabel": rf"$\Gamma_{{ReLU,{k}}}(w)$ (relaxed gap, gradient units)",
            "vlines": [{"x": refs[k], "label": f"Majority reference {refs[k]:.4g}"}],
            "title": f"Fig. B.7: random-LTF Fourier gaps, n={cfg.n}, k={k}, {cfg.draws} draws",
        }
        for k in (cfg.k_even, cfg.k_hard)
    ]
    return Observation(
        value, details=details, artifacts={"plots": plots}, seeds=tuple(cfg.seed + j for j in range(len(cfg.dists)))
    )


def _judge_ltf(predicted: Any, obs: Observation, cfg: LtfConfig) -> tuple[Verdict, str]:
    lo, hi = cfg.median_band
    bad, parts = [], []
    for dist, v in obs.value.items():
        parts.append(
            f"{dist}: median Γ(k={cfg.k_even})/ref = {v['median_ratio_k_even']:.3f}, "
            f"max|Γ(k={cfg.k_odd})| = {v['max_abs_gap_k_odd']:.1e}, "
            f"P(Γ(k={cfg.k_hard})>0) = {v['P_positive_k_hard']:.3f}"
        )
        if not lo <= v["median_ratio_k_even"] <= hi:
            bad.append(f"{dist} median ratio")
        if v["max_abs_gap_k_odd"] > cfg.atol:
            bad.append(f"{dist} odd-k gap nonzero")
        if dist == "uniform" and v["P_positive_k_hard"] < cfg.min_positive_hard:
            bad.append("uniform P(Γ>0) at k_hard")
        if dist == "sign" and v["max_dev_from_reference"] > cfg.atol:
            bad.append("sign w gap differs from the Majority reference")
    return ("fail" if bad else "pass"), "; ".join(parts) + (f"; out of tolerance: {bad}" if bad else "")


register(
    Claim(
        id="edelman-ch5-figB.7-random-ltf-gaps",
        source=f"{SRC}, App. B.3.1, Figure B.7 (random LTFs); spec §1.4, §1.5 and check B2",
        statement="For ReLU neurons with i.i.d. uniform or Gaussian w (no bias) at n = 15, the relaxed Fourier gap "
        "Gamma = max_{i in [k]}|g_i| - max_{i notin [k]}|g_i| of g = E[y x 1{w.x>0}] is comparable to Majority's "
        "with non-negligible probability; Gamma = 0 for odd k (no bias); sign w gives exactly the Majority gap.",
        kind="numeric",
        configs={"quick": LtfConfig(n=15, draws=300, seed=0), "full": LtfConfig(n=15, draws=5000, seed=0)},
        predict=_predict_ltf,
        observe=_observe_ltf,
        judge=_judge_ltf,
        tolerance="median Gamma(k=2) within [0.5, 2] x Majority reference (uniform, Gaussian); |Gamma(k=3)| <= 1e-12; "
        "P(Gamma(k=4) > 0 | uniform) >= 0.6; sign w: |Gamma - reference| <= 1e-12 (spec B2)",
    )
)

# ----------------------------------------------------------------------------------------- B3


@dataclass(frozen=True)
class SinusoidConfig:
    """Sinusoid neuron sin(c w.x), c = 1/sqrt(n), gradients via cos; Gaussian w; ``check`` draws vs brute force."""

    n: int
    draws: int
    seed: int
    check: int
    k_odd: int = 3
    k_even: int = 2
    min_positive: float = 0.95
    atol: float = 1e-12


def _predict_sinusoid(cfg: SinusoidConfig) -> dict[str, Any]:
    # spec §1.6: cos(c w.x) has only even levels, so the gradient is 0 at S△{i} for even k
    return {
        f"gap_k{cfg.k_even}": 0,
        "closed_form_minus_bruteforce": 0,
        f"P(Gamma(k={cfg.k_odd})>0) at least": cfg.min_positive,
    }


def _observe_sinusoid(cfg: SinusoidConfig, ctx: RunContext) -> Observation:
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
    ref = float(fg.gradient_gap_reference(cfg.n, cfg.k_even))
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
        "xlabel": r"$\Gamma_{k}(w)$ (relaxed gap, n=%d, Gaussian w)" % cfg.n,
        "title": f"Fig. B.8 left: sinusoid-neuron Fourier gaps, n={cfg.n}, {cfg.draws} draws "
        f"(Γ ≡ 0 at k={cfg.k_even} via cos)",
    }
    return Observation(value, details=details, artifacts={"plots": [plot]}, seeds=(cfg.seed,))


def _judge_sinusoid(predicted: Any, obs: Observation, cfg: SinusoidConfig) -> tuple[Verdict, str]:
    v = obs.value
    bad = []
    if v["P_positive_k_odd"] < cfg.min_positive:
        bad.append("P(Γ>0) at odd k")
    if v["max_abs_gap_k_even"] > cfg.atol:
        bad.append("even-k gap nonzero")
    if v["max_closed_form_error"] > cfg.atol:
        bad.append("closed form differs from brute force")
    msg = (
        f"P(Γ(k={cfg.k_odd})>0) = {v['P_positive_k_odd']:.3f}, median {v['median_gap_k_odd']:.4f}; "
        f"max|Γ(k={cfg.k_even})| = {v['max_abs_gap_k_even']:.1e}; closed form vs brute force "
        f"{v['max_closed_form_error']:.1e}"
    )
    return ("fail" if bad else "pass"), msg + (f"; out of tolerance: {bad}" if bad else "")


register(
    Claim(
        id="edelman-ch5-figB.8-sinusoid-gaps",
        source=f"{SRC}, App. B.3.1, Figure B.8 (left); spec §1.6 and check B3",
        statement="Population gradients of sinusoidal neurons sin(w.x/sqrt(n)) with random w have positive Fourier "
        "gaps (Fig. B.8 left). Through cos (spec §1.6 closed form) the gap is positive for odd k and exactly "
        "0 for even k without a bias.",
        kind="numeric",
        configs={
            "quick": SinusoidConfig(n=15, draws=300, seed=0, check=20),
            "full": SinusoidConfig(n=15, draws=20000, seed=0, check=200),
        },
        predict=_predict_sinusoid,
        observe=_observe_sinusoid,
        judge=_judge_sinusoid,
        tolerance="P(Gamma(k=3) > 0) >= 0.95; |Gamma(k=2)| <= 1e-12; closed form vs brute-force transform <= 1e-12 (spec B3)",
    )
)
