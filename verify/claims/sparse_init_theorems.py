"""Edelman thesis Ch. 6 / App. C.2: the sparse-initialization theorems run end to end, and the lemmas of their
proofs (Edelman et al. 2023, "Pareto frontiers in deep feature learning").

* Thm 6.5 / C.16 (under-sparse init): one truncated batch gradient step from the eps-perturbed s-sparse init leaves
  a subnetwork of good neurons whose best output weights correlate with chi_S at least 1/2 - eps.
* Lemma C.5: the sample gradient of the hinge loss with respect to (W, b) is within tau of the population gradient
  in sup norm with probability >= 1 - delta once m >= 4 ln(4nr/delta)/tau^2.
* Lemma C.7: the hinge risk of a linear readout moves by at most ||w|| sup_x ||psi(x) - psi'(x)|| when the features
  move from psi to psi'.
* Lemma C.10: the Chernoff inequalities of its proof as printed (refuted: they bound the wrong tails) and corrected.

Predictions come from :mod:`theory.sparse_init` (exact or closed-form); observations from :mod:`numerics.sparse_init`
(numpy on the whole cube, samples as multinomial counts) and :mod:`scipy.stats` (binomial tails). The errata and the
choices that differ from the thesis are explained in ``docs/sparse_parity.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import stats as sstats

from numerics import sparse_init as nsi
from numerics.walsh import characters
from theory import sparse_init as tsi

from .base import Claim, Deviation, Erratum, Observation, Resolution, RunContext, register
from .judges import AtLeast, AtMost, Check, PerSeed, Population, RefutedIfViolated, Verdict, as_float

SRC = "Edelman thesis (2024) Ch. 6 / App. C.2 (Edelman et al. 2023, Pareto frontiers)"
DOC = "docs/sparse_parity.md"


def _offset(ctx: RunContext) -> int:
    return int(getattr(ctx.options, "seed_offset", 0) or 0)


# ------------------------------------------------------------------------------ Lemma C.10: the Chernoff step


@dataclass(frozen=True)
class ChernoffConfig:
    """Lemma C.10 cases (n, k, s, delta): the width r of the lemma (:func:`theory.sparse_init.lemma_c10_width`), the
    count of good neurons with one bias ~ Binomial(r/2, (s/2n)^k/k), mean mu = (r/2k)(s/2n)^k (the proof's model)."""

    cases: tuple[tuple[int, int, int, str], ...] = ((15, 2, 9, "0.1"), (15, 2, 13, "0.1"), (40, 4, 17, "0.1"))


def _chernoff_cases(cfg: ChernoffConfig) -> list[dict[str, Any]]:
    """Per case the width, the binomial's size and success probability (floats, from n, k, s: not from theory's mean),
    and the exact tails at mu/2 and 3 mu/2 by scipy."""
    out = []
    for n, k, s, delta in cfg.cases:
        r = tsi.lemma_c10_width(n, k, s, delta)
        N, q = r // 2, (s / (2 * n)) ** k / k
        mu = N * q
        X = sstats.binom(N, q)
        out.append(
            {
                "n": n,
                "k": k,
                "s": s,
                "delta": delta,
                "width": r,
                "N": N,
                "q": q,
                "mu": mu,
                "P(X > mu/2)": float(X.sf(np.floor(mu / 2))),
                "P(X < 3mu/2)": float(X.cdf(np.ceil(1.5 * mu) - 1)),
                "P(X < mu/2)": float(X.cdf(np.ceil(mu / 2) - 1)),
                "P(X > 3mu/2)": float(X.sf(np.floor(1.5 * mu))),
            }
        )
    return out


def _predict_chernoff(cfg: ChernoffConfig) -> list[float]:
    """exp(-mu/10) twice per case (the right-hand side of both inequalities), mu from theory."""
    out = []
    for n, k, s, delta in cfg.cases:
        bound = float(tsi.lemma_c10_chernoff_bound(tsi.lemma_c10_mean(tsi.lemma_c10_width(n, k, s, delta), n, k, s)))
        out += [bound, bound]
    return out


def _observe_chernoff(keys: tuple[str, str]) -> Any:
    def observe(cfg: ChernoffConfig, ctx: RunContext) -> Observation:
        rows = _chernoff_cases(cfg)
        value = [row[key] for row in rows for key in keys]
        return Observation(
            value,
            details={"per_case": rows, "order": f"per case: {keys[0]}, {keys[1]}"},
            counterexample={"cases": [{**row, "bound exp(-mu/10)": float(np.exp(-row["mu"] / 10))} for row in rows]},
        )

    return observe


_CHERNOFF = {
    "quick": ChernoffConfig(),
    "full": ChernoffConfig(cases=((15, 2, 9, "0.1"), (15, 2, 13, "0.1"), (40, 4, 17, "0.1"), (200, 2, 9, "0.01"))),
}

register(
    Claim(
        id="edelman-ch6-lemC.10-chernoff",
        source=f"{SRC}, proof of Lemma C.10 with the tails corrected ({DOC}, errata)",
        statement="For the count r'_i ~ Binomial(r/2, (s/2n)^k/k) of good neurons with bias beta_i, mean mu = "
        "(r/2k)(s/2n)^k, at the lemma's width r = 20k(2n/s)^k ln(2k/delta): P(r'_i < mu/2) <= exp(-mu/10) and "
        "P(r'_i > 3mu/2) <= exp(-mu/10) (multiplicative Chernoff with deviation 1/2); with the union bound over the "
        "biases this gives mu/2 <= r'_i <= 3mu/2, the r'-good event the lemma concludes. Exact binomial tails (scipy).",
        kind="numeric",
        configs=_CHERNOFF,
        predict=_predict_chernoff,
        observe=_observe_chernoff(("P(X < mu/2)", "P(X > 3mu/2)")),
        judge=AtMost(),
        insensitive="Chernoff bounds have slack: the exact tails are 12 to 125 times below exp(-mu/10) at these "
        "cases, so only a bound tightened by more than 90 % is violated; the check is the direction of the tails "
        "(the printed directions exceed the bound 40- to 80-fold: edelman-ch6-lemC.10-chernoff-as-printed)",
    )
)

register(
    Claim(
        id="edelman-ch6-lemC.10-chernoff-as-printed",
        source=f"{SRC}, proof of Lemma C.10 as printed ({DOC}, errata)",
        statement="As printed: P(r'_i > (r/4k)(s/2n)^k) <= exp(-(r/20k)(s/2n)^k) <= delta/(2k) and 'similarly' "
        "P(r'_i < (3r/4k)(s/2n)^k) <= delta/(2k), i.e. P(r'_i > mu/2) <= exp(-mu/10) and P(r'_i < 3mu/2) <= "
        "exp(-mu/10), for the mean mu = (r/2k)(s/2n)^k of the count; observed: the exact binomial tails.",
        kind="numeric",
        configs=_CHERNOFF,
        predict=_predict_chernoff,
        observe=_observe_chernoff(("P(X > mu/2)", "P(X < 3mu/2)")),
        judge=RefutedIfViolated(AtMost()),
        refutes="Pr[r'_i > r/(4k) (s/2n)^k] <= exp(-r/(20k) (s/2n)^k) <= delta/(2k), and similarly "
        "Pr[r'_i < 3r/(4k) (s/2n)^k] <= delta/(2k)",
        corrected_by="edelman-ch6-lemC.10-chernoff",
        erratum=Erratum(
            "typo",
            "Using Chernoff's bound, we have: Pr[r'_i > (r/4k)(s/2n)^k] <= exp(-(r/20k)(s/2n)^k) <= delta/2k and "
            "similarly Pr[r'_i < (3r/4k)(s/2n)^k] <= delta/2k. So, using the union bound we get the required.",
            "Edelman thesis (2024), App. C.2.2, proof of Lemma C.10 (the next step, the union bound giving "
            "r'/2 <= |I_j| <= 2r', needs the lower tail below mu/2 and the upper tail above 3mu/2)",
        ),
    )
)


# ------------------------------------------------------------------------------ Lemma C.7: moving the features


@dataclass(frozen=True)
class LipschitzConfig:
    """Lemma C.7 instances on the cube {±1}^n with labels chi_{0..k-1}: ``random`` pairs (psi, psi') of d features
    with a random readout w, and ``tight`` ones where psi'(x) = psi(x) - t y(x) w/||w|| keeps every margin below 1
    (the hinge is linear there and the bound is attained), each for the distribution (uniform cube) and a sample of
    ``sample`` points."""

    n: int = 6
    k: int = 2
    d: int = 8
    random: int = 6
    tight: int = 3
    sample: int = 40
    seed: int = 7


def _lipschitz_instances(cfg: LipschitzConfig) -> list[dict[str, Any]]:
    """The instances (features on every cube point, the readout, the sample's counts), floats rounded to 2^-20 so
    that theory reads them exactly."""
    rng = np.random.default_rng(cfg.seed)
    y = characters(cfg.n, list(range(cfg.k))).astype(np.float64)
    N = len(y)

    def q(a: np.ndarray) -> np.ndarray:
        return np.round(a * 2**20) / 2**20

    out = []
    for i in range(cfg.random + cfg.tight):
        w = q(rng.normal(size=cfg.d))
        if i < cfg.random:
            psi = q(rng.normal(size=(N, cfg.d)))
            psi2 = q(psi + rng.normal(scale=0.3, size=(N, cfg.d)))
            kind = "random"
        else:
            psi = q(rng.uniform(-1, 1, size=(N, cfg.d)) * 0.2 / np.abs(w).sum())
            t = 0.1 / float(np.linalg.norm(w))
            psi2 = q(psi - t * y[:, None] * w[None, :] / float(np.linalg.norm(w)))
            kind = "tight"
        counts = np.bincount(rng.integers(N, size=cfg.sample), minlength=N).astype(np.float64)
        out.append({"kind": kind, "w": w, "psi": psi, "psi2": psi2, "counts": counts, "y": y})
    return out


def _predict_lipschitz(cfg: LipschitzConfig) -> list[float]:
    """||w|| sup_x ||psi(x) - psi'(x)|| (theory, exact), once for the distribution and once for the sample (the sup
    over the sample's points)."""
    out = []
    for inst in _lipschitz_instances(cfg):
        rows = [[Fraction(float(a)) for a in row] for row in inst["psi"] - inst["psi2"]]
        w = [Fraction(float(a)) for a in inst["w"]]
        on_sample = [row for row, c in zip(rows, inst["counts"]) if c > 0]
        out += [float(tsi.lemma_c7_bound(w, rows)), float(tsi.lemma_c7_bound(w, on_sample))]
    return out


def _observe_lipschitz(cfg: LipschitzConfig, ctx: RunContext) -> Observation:
    """|L(h_{psi,w}) - L(h_{psi',w})| for the hinge loss, on the distribution and on the sample."""
    value, rows = [], []
    for inst in _lipschitz_instances(cfg):
        a, b = inst["psi"] @ inst["w"], inst["psi2"] @ inst["w"]
        dist = abs(nsi.hinge_risk(a, inst["y"]) - nsi.hinge_risk(b, inst["y"]))
        samp = abs(nsi.hinge_risk(a, inst["y"], inst["counts"]) - nsi.hinge_risk(b, inst["y"], inst["counts"]))
        value += [dist, samp]
        rows.append({"kind": inst["kind"], "distribution": dist, "sample": samp})
    return Observation(value, details={"per_instance": rows, "order": "per instance: distribution, sample"})


register(
    Claim(
        id="edelman-ch6-lemC.7-feature-lipschitz",
        source=f"{SRC}, Lemma C.7 (App. C.2.2)",
        statement="For feature maps psi, psi' and a readout w, with the 1-Lipschitz hinge loss: "
        "|L_D(h_{psi,w}) - L_D(h_{psi',w})| <= ||w|| ||psi - psi'||_{inf,2} and the same for L_S on a sample "
        "(||g||_{inf,2} = sup_x ||g(x)||_2, over the sample's points for L_S); attained when psi' = psi - t y w/||w|| "
        "keeps every margin below 1.",
        kind="numeric",
        configs={"quick": LipschitzConfig(), "full": LipschitzConfig(n=10, random=40, tight=10, sample=200)},
        predict=_predict_lipschitz,
        observe=_observe_lipschitz,
        judge=AtMost(slack=1e-9, relative=True),
        resolution=Resolution(
            rel=1.0,
            why="a bound: the tight instances attain it (a 1 % tighter bound fails them), the random ones sit "
            "up to more than 100 times below it, so only a bound tightened by nearly 100 % fails them",
        ),
    )
)


# ------------------------------------------------------------------------------ Lemma C.5: gradient concentration


@dataclass(frozen=True)
class ConcentrationConfig:
    """Lemma C.5 by Monte Carlo: one random 2-layer ReLU net (:func:`numerics.sparse_init.lemma_c5_deviations`) on the
    (n, k)-parity, ``draws`` independent samples of the lemma's size m for precision ``tau`` and failure ``delta``."""

    n: int = 8
    k: int = 2
    width: int = 8
    tau: float = 0.25
    delta: float = 0.1
    seeds: tuple[int, ...] = tuple(range(60))
    net_seed: int = 3


def _predict_concentration(cfg: ConcentrationConfig) -> dict[str, Any]:
    return {"m": tsi.lemma_c5_sample_size(cfg.n, cfg.width, str(cfg.tau), str(cfg.delta)), "tau": cfg.tau}


def _observe_concentration(cfg: ConcentrationConfig, ctx: RunContext) -> Observation:
    m = tsi.lemma_c5_sample_size(cfg.n, cfg.width, str(cfg.tau), str(cfg.delta))  # the lemma's hypothesis
    seeds = tuple(s + _offset(ctx) for s in cfg.seeds)
    dev = nsi.lemma_c5_deviations(cfg.n, cfg.k, cfg.width, m, len(seeds), cfg.net_seed + 7919 * seeds[0])
    rows = [{"seed": s, "deviation": float(d)} for s, d in zip(seeds, dev["deviation"])]
    q = float(np.quantile(dev["deviation"], 1 - cfg.delta))
    return Observation(
        [r["deviation"] for r in rows],
        details={
            "per_seed": rows,
            "m": m,
            "coordinates": dev["coordinates"],
            "active_share": dev["active_share"],
            "quantile_1-delta": q,
            "slack": f"the (1-delta)-quantile of the deviation is {q:.4g} = {q / cfg.tau:.3g} tau: the Hoeffding + union "
            "bound is loose by this factor",
        },
        seeds=seeds,
    )


#: "with probability at least 1 - delta" (p0 = 1 - delta = 0.9); power against 0.99 (the bound is loose: far fewer
#: than delta of the draws should fail).
C5_RULE = Population(p0=0.9, p_alt=0.99)

register(
    Claim(
        id="edelman-ch6-lemC.5-gradient-concentration",
        source=f"{SRC}, Lemma C.5 (App. C.2.2)",
        statement="For a fixed 2-layer ReLU net f = sum_i u_i ReLU(<w_i,x> + b_i) + beta (|u_i| <= 1) and a sample of "
        "m >= 4 ln(4nr/delta)/tau^2 i.i.d. points of the (n,k)-parity distribution, with probability at least "
        "1 - delta, ||grad_{W,b} L_D(f) - grad_{W,b} L_S(f)||_inf <= tau (hinge loss). Quick: n = 8, r = 8, tau = "
        "0.25, delta = 0.1, m = 503; each draw of the sample is a seed, the rate of draws within tau is judged "
        "against 1 - delta.",
        kind="training",
        configs={
            "quick": ConcentrationConfig(),
            "full": ConcentrationConfig(n=12, width=32, tau=0.1, delta=0.05, seeds=tuple(range(400))),
        },
        predict=_predict_concentration,
        observe=_observe_concentration,
        judge=PerSeed(
            checks=(Check("deviation", "sup-norm gradient deviation", hi="tau"),),
            headline="deviation",
            rule=C5_RULE,
            note="the (1-delta)-quantile of the deviation over tau (the bound's slack) is reported, not judged",
        ),
        insensitive="the prediction is the lemma's sample size m, the setting of the run: the judge compares each "
        "draw's deviation with tau from the config, so a 1 % change of m cannot move the recorded draws (a 4x "
        "smaller m fails: tests/verify/test_sparse_init_theorems.py)",
    )
)


# ------------------------------------------------------------------------------ Thm 6.5 / C.16 end to end


@dataclass(frozen=True)
class OneStepConfig:
    """Thm C.16 end to end per (n, k, s) case and seed: the init at width :func:`theory.sparse_init.thm_c16_width`,
    the sample of size :func:`theory.sparse_init.thm_c16_sample_size`, both for failure ``delta`` (1/2 each), one
    truncated step with the schedule of :func:`theory.sparse_init.thm_c16_schedule` (corrected truncation gamma);
    ``control_seeds`` seeds per case also run the printed gamma = |xi_out| at the same m (reported, not judged)."""

    cases: tuple[tuple[int, int, int], ...] = ((7, 4, 2), (9, 4, 2))
    seeds: tuple[int, ...] = tuple(range(150))
    delta: str = "0.01"
    control_seeds: int = 10


def _c16_setting(n: int, k: int, s: int, delta: str) -> dict[str, Any]:
    sch = tsi.thm_c16_schedule(n, k, s)
    r = tsi.thm_c16_width(n, k, s, delta)
    return {"schedule": sch, "width": r, "m": tsi.thm_c16_sample_size(n, k, s, r, delta)}


def _predict_one_step(cfg: OneStepConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, k, s in cfg.cases:
        st = _c16_setting(n, k, s, cfg.delta)
        out[f"({n},{k},{s})"] = {
            "threshold": tsi.thm_c16_correlation_threshold(st["schedule"]["eps"]),
            "width": st["width"],
            "m": st["m"],
        }
    return out


def _observe_one_step(cfg: OneStepConfig, ctx: RunContext) -> Observation:
    rows, control, settings = [], [], {}
    for n, k, s in cfg.cases:
        st = _c16_setting(n, k, s, cfg.delta)
        sch = {key: float(v) for key, v in st["schedule"].items()}
        biases = [float(b) for b in tsi.bias_grid(k, st["schedule"]["eps"])]
        settings[f"({n},{k},{s})"] = {
            "width": st["width"],
            "m": st["m"],
            **{key: str(v) for key, v in st["schedule"].items()},
        }
        for j, seed in enumerate(s0 + _offset(ctx) for s0 in cfg.seeds):
            args = (n, k, s, sch["eps"], biases, sch["eta"], sch["lam"])
            res = nsi.thm_c16_one_step(*args, sch["gamma"], st["width"], st["m"], [seed, n, k, s])
            rows.append({"case": f"({n},{k},{s})", **res, "seed": seed})
            if j < cfg.control_seeds:
                printed = nsi.thm_c16_one_step(*args, sch["gamma_printed"], st["width"], st["m"], [seed, n, k, s])
                control.append(
                    {"case": f"({n},{k},{s})", "seed": seed, "corr_after_printed_gamma": printed["corr_after"]}
                )
    return Observation(
        [r["corr_after"] for r in rows],
        details={
            "per_seed": rows,
            "settings": settings,
            "printed_gamma_control": control,
            "note": "corr_after: the best correlation with chi_S of the good neurons' copies whose step raised their "
            "S \\ S' weights, one output weight per bias; corr_init: the same neurons at init (reported)",
        },
        seeds=tuple(s + _offset(ctx) for s in cfg.seeds),
    )


@dataclass(frozen=True)
class OneStepJudge(PerSeed):
    """Thm C.16 per (case, seed): the subnetwork's best correlation with chi_S after the step is at least the
    predicted 1/2 - eps of its case."""

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        for row, found in zip(per_seed, problems):
            bound = as_float(predicted[row["case"]]["threshold"])
            if not float(row["corr_after"]) >= bound:
                found.append(
                    f"{row['case']}: subnetwork correlation {float(row['corr_after']):.4g} < 1/2 - eps = {bound:.6g}"
                )
        return problems

    def describe(self) -> str:
        return self.describe_adding("per (case, seed)", "subnetwork correlation >= 1/2 - eps (predicted)")


#: "with probability at least 0.99" (Thm 6.5 / C.16): p0 = 0.99; power against 0.9995 (the width and the sample size
#: are chosen for failure 0.01 by union bounds that are loose); 299 units give power 0.86.
C16_RULE = Population(p0=0.99, p_alt=0.9995)

_C16_CONFIGS = {
    "quick": OneStepConfig(),
    "full": OneStepConfig(cases=((13, 4, 2), (15, 4, 2), (15, 6, 2), (15, 6, 4)), seeds=tuple(range(75))),
}


def _c16_units(cfg: OneStepConfig) -> int:
    return len(cfg.cases) * len(cfg.seeds)


register(
    Claim(
        id="edelman-ch6-thm6.5-one-step-subnetwork",
        source=f"{SRC}, Thm 6.5 / Thm C.16 and its proof (App. C.2.3; {DOC})",
        statement="k, s even, s < k, n - s odd, n <= 15: from the eps-perturbed s-sparse init (weights 1 on a random "
        "s-set, eps = 1/(2C(n-s,k)) elsewhere, biases ±eps(2j-1)/(2k), mirrored output weights ±1), one batch step "
        "on m samples (hinge loss) with first-layer weight decay lambda = 1 - eps/(2k), learning rate "
        "eps/(2k|xi_in|) and gradient truncation leaves, with probability at least 0.99, a subnetwork (good "
        "neurons, S' ⊆ S) that has correlation at least 1/2 - eps with chi_S; width r and m from explicit union "
        "bounds (r = O(k (n/k)^s log k), m = O((n-s)^(k-s-1) log(nr))). Judged per (case, seed) against the "
        "target rate 0.99.",
        kind="training",
        configs=_C16_CONFIGS,
        predict=_predict_one_step,
        observe=_observe_one_step,
        judge=OneStepJudge(
            checks=(),
            headline="corr_after",
            rule=C16_RULE,
            runs=_c16_units,
            note="the correlation at init and with the printed truncation gamma are reported",
        ),
        deviations={
            scale: (
                Deviation(
                    parameter="truncation gamma",
                    source="|xi_{[n]\\S}| (proof of Thm C.16)",
                    value="(|xi_in| + |xi_out|)/2 with precision tau = (|xi_in| - |xi_out|)/2",
                    why="with sampled gradients the printed gamma, the irrelevant coordinates' own population "
                    "value, keeps about half of them (their estimates straddle it); the midpoint truncates exactly the "
                    "coordinates whose population gradient is below gamma once every estimate is within tau; "
                    "the printed gamma is run on control seeds and reported",
                ),
                Deviation(
                    parameter="width and sample size",
                    source="r = O(k^2 (n/k)^s), m = O((n/k)^(k-s-1)) with unstated constants (Thm 6.5 / C.16)",
                    value="the smallest r and m that the proof's union bounds certify for failure 0.01 "
                    "(theory.sparse_init.thm_c16_width, thm_c16_sample_size)",
                    why="the theorem states orders only; the explicit bounds are what its proof argues",
                ),
            )
            for scale in _C16_CONFIGS
        },
        insensitive="the judged threshold 1/2 - eps is far below the observed correlations (0.8 to 1), so a 1 % "
        "error in it cannot change a seed's success; a threshold of 1 fails the seeds "
        "(tests/verify/test_sparse_init_theorems.py)",
    )
)


# ------------------------------------------------------------------------------ Lemmas C.8, C.9: the convex phase


@dataclass(frozen=True)
class ConvexPhaseConfig:
    """Lemma C.9 on the ideal features psi* of Lemma C.6 for the (n, k)-parity (:func:`theory.sparse_init.
    lemma_c6_constants`, B = B_k = ||w*||): phi^(1) = psi* moved by at most eps/B at every point, m and T from the
    lemma, weight decay lambda = eps/B^2, step 1/(lambda t); one run per seed (perturbation and sample)."""

    n: int = 4
    k: int = 2
    eps: float = 0.14
    delta: str = "0.05"
    seeds: tuple[int, ...] = tuple(range(60))


def _c9_setting(cfg: ConvexPhaseConfig) -> dict[str, Any]:
    c = tsi.lemma_c6_constants(cfg.k)
    B, psi_norm = float(c["B"]), float(c["psi_norm"])
    return {
        "B": B,
        "psi_norm": psi_norm,
        "weights": [float(w) for w in c["weights"]],
        "T": tsi.lemma_c9_steps(psi_norm, B, cfg.eps),
        "m": tsi.lemma_c9_sample_size(psi_norm, B, cfg.eps, cfg.delta),
    }


_C9_CACHE: dict[tuple[ConvexPhaseConfig, int], Observation] = {}


def _observe_convex_phase(cfg: ConvexPhaseConfig, ctx: RunContext) -> Observation:
    """The runs of Lemma C.9 (shared by the C.8 and C.9 claims: one observation per config and seed offset)."""
    key = (cfg, _offset(ctx))
    if key not in _C9_CACHE:
        st = _c9_setting(cfg)
        psi, y = nsi.lemma_c6_features(cfg.n, cfg.k)
        seeds = tuple(s + _offset(ctx) for s in cfg.seeds)
        out = nsi.lemma_c9_convex_phase(psi, y, cfg.eps / st["B"], cfg.eps / st["B"] ** 2, st["T"], st["m"], seeds)
        rows = [
            {
                "seed": s,
                **{name: float(v[i]) for name, v in out.items()},
                "excess": float(out["risk_D"][i] - out["risk_S"][i]),
            }
            for i, s in enumerate(seeds)
        ]
        _C9_CACHE[key] = Observation(
            [r["risk_D"] for r in rows],
            details={
                "per_seed": rows,
                "setting": {name: st[name] for name in ("B", "psi_norm", "T", "m")},
                "ideal_readout_error": float(np.abs(psi @ np.array(st["weights"]) - y).max()),
            },
            seeds=seeds,
        )
    return _C9_CACHE[key]


def _predict_c9(cfg: ConvexPhaseConfig) -> dict[str, Any]:
    st = _c9_setting(cfg)
    return {**tsi.lemma_c9_conclusion(st["B"], cfg.eps), "T": st["T"], "m": st["m"]}


@dataclass(frozen=True)
class ConvexPhaseJudge(PerSeed):
    """Lemma C.9 per seed: L_D(h) <= 7 eps and ||w_T|| <= sqrt(8) B (predicted)."""

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        for row, found in zip(per_seed, problems):
            if not row["risk_D"] <= as_float(predicted["risk_bound"]):
                found.append(f"L_D(h) = {row['risk_D']:.4g} > 7 eps")
            if not row["norm"] <= as_float(predicted["norm_bound"]):
                found.append(f"||w_T|| = {row['norm']:.4g} > sqrt(8) B")
        return problems

    def describe(self) -> str:
        return self.describe_adding("per seed", "L_D(h) <= 7 eps and ||w_T|| <= sqrt(8) B (predicted)")


#: "with probability at least 1 - 2 delta" (Lemma C.9, delta = 0.05): p0 = 0.9, power against 0.99.
C9_RULE = Population(p0=0.9, p_alt=0.99)
_C9_CONFIGS = {"quick": ConvexPhaseConfig(), "full": ConvexPhaseConfig(n=6, k=4, eps=0.1, seeds=tuple(range(200)))}

register(
    Claim(
        id="edelman-ch6-lemC.9-convex-phase",
        source=f"{SRC}, Lemma C.9 (App. C.2.2), on the features of Lemma C.6",
        statement="If some w* with ||w*|| <= B has L_D(h_{psi,w*}) <= eps and ||phi^(1) - psi||_{inf,2} <= eps/B, then "
        "gradient descent on L_S(h_{phi^(1),w}) + (lambda/2)||w||^2 with lambda = eps/B^2, step 1/(lambda t) and "
        "T/log T >= 100(||psi||_{inf,2} + 1/B)^2/eps^2 steps, on m >= (4 sqrt2 B ||psi||_{inf,2} + 1)^2 log(2/delta)/"
        "eps^2 samples, returns with probability at least 1 - 2 delta an h with L_D(h) <= 7 eps (and, in the proof, "
        "||w_T||^2 <= 8 B^2). Run on psi = the ideal features of Lemma C.6 (w* interpolates chi_S, L_D = 0; k = 2: "
        "B = 181.0, ||psi|| = 1.0001; quick eps = 0.14: T = 56,455, m = 1.98e8), one perturbation and sample per seed.",
        kind="training",
        configs=_C9_CONFIGS,
        predict=_predict_c9,
        observe=_observe_convex_phase,
        judge=ConvexPhaseJudge(checks=(), headline="risk_D", rule=C9_RULE, note="the 0-1 error is reported"),
        insensitive="the judged bounds 7 eps and sqrt(8) B hold with slack on every seed (L_D at most 0.76 against "
        "0.98 at quick scale, 0 at eps = 0.1; ||w_T|| about 300 against 512), so a 1 % error cannot move a seed",
    )
)


#: "with probability at least 1 - delta" (Lemma C.8, delta = 0.05): p0 = 0.95, power against 0.999 (0.94 at 60 seeds).
C8_RULE = Population(p0=0.95, p_alt=0.999)


def _predict_c8(cfg: ConvexPhaseConfig) -> dict[str, Any]:
    st = _c9_setting(cfg)
    B8 = float(np.sqrt(8)) * st["B"]
    return {"gap": tsi.lemma_c8_gap(B8, st["psi_norm"], st["m"], cfg.delta, cfg.eps / st["B"]), "class_norm": B8}


@dataclass(frozen=True)
class GeneralisationJudge(PerSeed):
    """Lemma C.8 per seed, for the sample-dependent h of Lemma C.9's run: L_D(h) - L_S(h) <= the predicted excess,
    judged on the seeds whose h lies in the class H_{psi', sqrt(8) B} the lemma is applied to (||w_T|| <= sqrt(8) B);
    a seed outside it meets no hypothesis of the lemma and is left out (counted in the reason), and with none inside
    the verdict is inconclusive."""

    @staticmethod
    def _in_class(predicted: Any, per_seed: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [row for row in per_seed if row["norm"] <= as_float(predicted["class_norm"])]

    def _counts(self, predicted: Any, obs: Any, config: Any) -> tuple[list[list[str]], list[dict[str, Any]]]:
        rows = self._in_class(predicted, obs.details[self.rows])
        return self.seed_problems(predicted, rows, config), rows

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        for row, found in zip(per_seed, problems):
            if not row["excess"] <= as_float(predicted["gap"]):
                found.append(f"L_D - L_S = {row['excess']:.4g} > the excess")
        return problems

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        rows = obs.details[self.rows]
        outside = len(rows) - len(self._in_class(predicted, rows))
        if rows and outside == len(rows):
            return "inconclusive", (
                f"no seed's h is in the class: ||w_T|| > sqrt(8) B = {as_float(predicted['class_norm']):.4g} on all "
                f"{len(rows)} seeds (largest {max(r['norm'] for r in rows):.4g}), so Lemma C.8 says nothing here"
            )
        verdict, reason = super().__call__(predicted, obs, config)
        return verdict, reason + (f"; {outside} seed(s) outside the class left out" if outside else "")

    def describe(self) -> str:
        return self.describe_adding(
            "per seed with ||w_T|| <= sqrt(8) B (h in the class; the others left out)",
            "L_D(h) - L_S(h) <= the predicted excess",
        )


register(
    Claim(
        id="edelman-ch6-lemC.8-generalisation",
        source=f"{SRC}, Lemma C.8 (App. C.2.2)",
        statement="For a fixed psi and a sample of size m, with probability at least 1 - delta, every h in "
        "H_{psi',B} over any psi' satisfies L_D(h) <= L_S(h) + (2B||psi||_{inf,2} + 1) sqrt(2 log(2/delta))/sqrt(m) + "
        "2B||psi - psi'||_{inf,2}. Checked on the hypothesis most tied to the sample, Lemma C.9's GD output over "
        "psi' = phi^(1) (B = sqrt(8) B_k, the class the proof of C.9 places it in), per seed; target rate 1 - delta.",
        kind="training",
        configs=_C9_CONFIGS,
        predict=_predict_c8,
        observe=_observe_convex_phase,
        judge=GeneralisationJudge(checks=(), headline="excess", rule=C8_RULE),
        insensitive="the excess is loose by four orders (about 6e-5 against 0.99 at quick scale, mostly the 2B "
        "||psi - phi|| term), so a 1 % error cannot move a seed: only a necessary consequence of the uniform bound is "
        "checked (one sample-dependent h per sample)",
    )
)


# ------------------------------------------------------------------------------ Lemma C.10: the r'-good conclusion


def _r_good_probability(N: int, q: float, lo: float, hi: float, biases: int, upper: bool) -> float:
    """P(lo <= |I_j| <= hi for every bias j), |I_j| ~ Binomial(N, q) for each of ``biases`` biases: exactly for one
    bias; for several, ``upper`` gives the smallest marginal (an upper bound) and otherwise the union bound
    1 - sum_j P(|I_j| outside) (a lower bound)."""
    X = sstats.binom(N, q)
    inside = float(X.cdf(np.floor(hi)) - X.cdf(np.ceil(lo) - 1))
    if biases == 1:
        return inside
    return inside if upper else max(0.0, 1 - biases * (1 - inside))


def _observe_r_good(printed: bool) -> Any:
    def observe(cfg: ChernoffConfig, ctx: RunContext) -> Observation:
        value, rows = [], []
        for n, k, s, delta in cfg.cases:
            r = tsi.lemma_c10_width(n, k, s, delta)
            p_good = float(sstats.hypergeom(n, k, s).pmf(k))  # P(S ⊆ supp w), supp w a uniform s-subset
            N, q = r // 2, p_good / (k // 2)
            r_prime = N * (s / (2 * n)) ** k / k if printed else N * q
            prob = _r_good_probability(N, q, r_prime / 2, 2 * r_prime, k // 2, upper=printed)
            value.append(prob)
            rows.append(
                {
                    "n": n,
                    "k": k,
                    "s": s,
                    "delta": delta,
                    "width": r,
                    "P(good)": p_good,
                    "(s/2n)^k": (s / (2 * n)) ** k,
                    "r'": r_prime,
                    "mean count per bias": N * q,
                    "P(r'-good)": prob,
                }
            )
        return Observation(value, details={"per_case": rows}, counterexample={"cases": rows} if printed else None)

    return observe


register(
    Claim(
        id="edelman-ch6-lemC.10-r-good",
        source=f"{SRC}, Lemma C.10 with r' the true mean ({DOC}, errata)",
        statement="At the Thm C.11 init (biases from the corrected grid j = 0..k/2-1) with r >= 20k(2n/s)^k "
        "ln(2k/delta), with probability at least 1 - delta every bias j has r'/2 <= |I_j| <= 2r' good neurons, for r' "
        "= E|I_j| = (r/2) C(n-k,s-k)/C(n,s)/(k/2) (the exact probability of a good neuron); observed: the exact "
        "binomial probability (a union-bound lower bound for several biases).",
        kind="numeric",
        configs=_CHERNOFF,
        predict=lambda cfg: [1 - float(Fraction(d)) for *_, d in cfg.cases],
        observe=_observe_r_good(printed=False),
        judge=AtLeast(),
        insensitive="the probability is 1 to double precision at these widths (mean counts in the hundreds), far above "
        "1 - delta, so a 1 % error cannot move it; with the lemma's r' the same check fails "
        "(edelman-ch6-lemC.10-r-good-as-printed)",
    )
)

register(
    Claim(
        id="edelman-ch6-lemC.10-r-good-as-printed",
        source=f"{SRC}, Lemma C.10 as printed ({DOC}, errata)",
        statement="As printed: with r >= 20k(2n/s)^k log(2k/delta), w.p. at least 1 - delta, W, b is r'-good (r'/2 <= "
        "|I_j| <= 2r' for every bias j) for r' = (r/2k)(s/2n)^k; observed: the exact probability of the event (an "
        "upper bound, the smallest marginal, for several biases).",
        kind="numeric",
        configs=_CHERNOFF,
        predict=lambda cfg: [1 - float(Fraction(d)) for *_, d in cfg.cases],
        observe=_observe_r_good(printed=True),
        judge=RefutedIfViolated(AtLeast()),
        refutes="Assume we initialize a network of size r >= 20k(2n/s)^k log(2k/delta). Then, w.p. at least 1 - delta, "
        "W, b is r'-good for r' = (r/2k)(s/2n)^k",
        corrected_by="edelman-ch6-lemC.10-r-good",
        erratum=Erratum(
            "substantive",
            "Lemma C.10. Fix some delta. Assume we initialize a network of size r >= 20k(2n/s)^k log(2k/delta). Then, "
            "w.p. at least 1 - delta, W, b is r'-good for r' = (r/2k)(s/2n)^k. Proof. From Lemma C.2, the probability "
            "of drawing a good neuron is >= (s/2n)^k. ... Observe that E[r'_i] = (r/2k)(s/2n)^k.",
            "Edelman thesis (2024), App. C.2.2, Lemma C.10 and its proof (r'-good: r'/2 <= |I_j| <= 2r' for all j; "
            "Lemma C.6 and the proof of Thm C.11 use the upper side)",
        ),
    )
)
