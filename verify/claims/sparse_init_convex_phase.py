"""Edelman thesis Ch. 6 / App. C.2.2, Lemma C.9 (the convex phase of Thm C.11): its step count as printed (refuted)
and the bound its proof derives (Edelman et al. 2023, "Pareto frontiers in deep feature learning").

The proof bounds the regularised objective after T steps of GD with weight decay lambda = eps/B^2 and step
1/(lambda t) by L(w_T) <= 2 eps + B||psi|| sqrt(2 log(2/delta))/sqrt(m) + lambda B^2/2 + 100(||psi|| + eps/B)^2
(1 + log T)/(lambda T), whose last term is 100 B^2(||psi|| + eps/B)^2 (1 + log T)/(eps T) at that lambda: at most eps
only when T/(1 + log T) >= 100(B||psi|| + eps)^2/eps^2 (:func:`theory.sparse_init.lemma_c9_steps_corrected`). The
lemma and the proof's "So, if ..." print T/log T >= 100(||psi|| + 1/B)^2/eps^2 (:func:`theory.sparse_init.
lemma_c9_steps`), about B^2 times fewer steps; on the ideal features of Lemma C.6 (B = B_4 = 11,953) GD stops far
from the lemma's conclusion there. Predictions from :mod:`theory.sparse_init`; the runs from
:func:`numerics.sparse_init.lemma_c9_convex_phase`. Explained in ``docs/sparse_parity.md`` (Lemma C.9).

A new module beside :mod:`verify.claims.sparse_init_theorems` (whose archived full-scale records stay valid).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics import sparse_init as nsi
from numerics.walsh import characters
from theory import sparse_init as tsi

from .base import Claim, Deviation, Erratum, Observation, PostHoc, RunContext, register
from .judges import Population, PredictedBoundsPerSeed, Verdict

SRC = "Edelman thesis (2024) Ch. 6 / App. C.2.2 (Edelman et al. 2023, Pareto frontiers)"
WHERE = (
    "Edelman thesis (2024), App. C.2.2, Lemma C.9 (statement) and its proof (the line after 'Now, choosing "
    "lambda = eps/B^2'); the proof of Thm C.11 applies the same condition"
)

#: Lemma C.9's "with probability at least 1 - 2 delta" (delta = 0.05): p0 = 0.9, power against 0.99 at 60 seeds
#: (the rule of `edelman-ch6-lemC.9-convex-phase`).
RULE = Population(p0=0.9, p_alt=0.99)

FEATURES = ("lemma-c6", "bias-parity")
STEPS = ("printed", "corrected")


@dataclass(frozen=True)
class StepCountConfig:
    """Lemma C.9 on an instance of its hypotheses, at the printed or the corrected step count.

    ``features``: ``lemma-c6``, the ideal features psi* of Lemma C.6 for the (n, k)-parity (B = B_k = ||w*||, the
    instance Thm C.11 applies the lemma to), or ``bias-parity``, psi(x) = (1, chi_S(x)) (w* = (0, 1), B = 1,
    ||psi||_{inf,2} = sqrt 2: the smallest B||psi|| of a readout with margin 1). ``steps``: T from the printed
    T/log T condition or from the corrected T/(1 + log T) condition. Weight decay lambda = eps/B^2, step
    1/(lambda t), m from the lemma; per seed one perturbation (||phi^(1) - psi||_{inf,2} <= eps/B) and one sample.
    """

    n: int = 4
    k: int = 4
    eps: float = 0.3
    delta: str = "0.05"
    features: str = "lemma-c6"
    steps: str = "printed"
    seeds: tuple[int, ...] = tuple(range(60))

    def __post_init__(self) -> None:
        if self.features not in FEATURES or self.steps not in STEPS:
            raise ValueError(f"features in {FEATURES} and steps in {STEPS}, got {self.features!r}, {self.steps!r}")


def _offset(ctx: RunContext) -> int:
    return int(getattr(ctx.options, "seed_offset", 0) or 0)


def _instance_norms(cfg: StepCountConfig) -> tuple[float, float]:
    """(B, ||psi||_{inf,2}) of the instance: exact from Lemma C.6 (:func:`theory.sparse_init.lemma_c6_constants`), or
    those of psi = (1, chi_S) with w* = (0, 1)."""
    if cfg.features == "lemma-c6":
        c = tsi.lemma_c6_constants(cfg.k)
        return float(c["B"]), float(c["psi_norm"])
    return 1.0, math.sqrt(2)


def _steps(cfg: StepCountConfig) -> Any:
    """The step-count function of the configuration: printed (Lemma C.9) or corrected (its proof's bound)."""
    return tsi.lemma_c9_steps if cfg.steps == "printed" else tsi.lemma_c9_steps_corrected


def _setting(cfg: StepCountConfig) -> dict[str, Any]:
    B, psi_norm = _instance_norms(cfg)
    return {
        "B": B,
        "psi_norm": psi_norm,
        "lam": cfg.eps / B**2,
        "T": _steps(cfg)(psi_norm, B, cfg.eps),
        "m": tsi.lemma_c9_sample_size(psi_norm, B, cfg.eps, cfg.delta),
        "T_printed": tsi.lemma_c9_steps(psi_norm, B, cfg.eps),
        "T_corrected": tsi.lemma_c9_steps_corrected(psi_norm, B, cfg.eps),
    }


def _predict(cfg: StepCountConfig) -> dict[str, Any]:
    """Lemma C.9's conclusion (L_D(h) <= 7 eps), its proof's ||w_T|| <= sqrt(8) B, and the proof's bound on the
    regularised objective at this T (:func:`theory.sparse_init.lemma_c9_objective_bound`, with 4 eps, what the proof
    needs it to be at most)."""
    st = _setting(cfg)
    return {
        **tsi.lemma_c9_conclusion(st["B"], cfg.eps),
        "objective_bound": tsi.lemma_c9_objective_bound(st["psi_norm"], st["B"], cfg.eps, cfg.delta, st["m"], st["T"]),
        "four_eps": 4 * cfg.eps,
        "T": st["T"],
        "m": st["m"],
    }


def _features(cfg: StepCountConfig) -> tuple[np.ndarray, np.ndarray]:
    if cfg.features == "lemma-c6":
        return nsi.lemma_c6_features(cfg.n, cfg.k)
    chi = characters(cfg.n, list(range(cfg.k))).astype(np.float64)
    return np.column_stack([np.ones(len(chi)), chi]), chi


def _hypotheses(cfg: StepCountConfig, st: dict[str, Any], psi: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Every hypothesis of Lemma C.9, measured on the instance: eps, delta in (0, 1/2); the interpolating readout w*
    (least squares on the features) has ||w*|| <= B and L_D(h_{psi,w*}) <= eps; the measured ||psi||_{inf,2} is the one
    the step count and m were computed with (T and m meet the lemma's conditions at the measured norms). The
    perturbation bound ||phi^(1) - psi||_{inf,2} <= eps/B is checked per seed."""
    w_star = np.linalg.lstsq(psi, y, rcond=None)[0]
    B_meas, psi_meas = float(np.linalg.norm(w_star)), float(np.linalg.norm(psi, axis=1).max())
    T_needed = _steps(cfg)(psi_meas, B_meas, cfg.eps)
    m_needed = tsi.lemma_c9_sample_size(psi_meas, B_meas, cfg.eps, cfg.delta)
    readout_risk = nsi.hinge_risk(psi @ w_star, y)
    checks = {
        "eps_delta_in_range": 0 < cfg.eps < 0.5 and 0 < float(cfg.delta) < 0.5,
        "readout_norm_at_most_B": B_meas <= st["B"] * (1 + 1e-9),
        "readout_risk_at_most_eps": readout_risk <= cfg.eps,
        "psi_norm_as_used": abs(psi_meas - st["psi_norm"]) <= 1e-9 * st["psi_norm"],
        "T_meets_condition": st["T"] >= T_needed,
        "m_meets_condition": st["m"] >= m_needed,
    }
    return {
        "checks": checks,
        "readout_norm": B_meas,
        "readout_risk": readout_risk,
        "psi_norm": psi_meas,
        "T_needed": T_needed,
        "m_needed": m_needed,
    }


_CACHE: dict[tuple[StepCountConfig, int], Observation] = {}


def _observe(cfg: StepCountConfig, ctx: RunContext) -> Observation:
    key = (cfg, _offset(ctx))
    if key not in _CACHE:
        st = _setting(cfg)
        psi, y = _features(cfg)
        hyp = _hypotheses(cfg, st, psi, y)
        seeds = tuple(s + _offset(ctx) for s in cfg.seeds)
        out = nsi.lemma_c9_convex_phase(psi, y, cfg.eps / st["B"], st["lam"], st["T"], st["m"], seeds)
        radius = cfg.eps / st["B"]
        rows = []
        for i, s in enumerate(seeds):
            row = {"seed": s, **{name: float(v[i]) for name, v in out.items()}}
            row["objective"] = row["risk_S"] + st["lam"] / 2 * row["norm"] ** 2
            row["perturbation_within_eps_over_B"] = row["distance"] <= radius * (1 + 1e-12)
            rows.append(row)
        hyp["checks"]["perturbation_within_eps_over_B"] = all(r["perturbation_within_eps_over_B"] for r in rows)
        met = all(hyp["checks"].values())
        setting = {name: st[name] for name in ("B", "psi_norm", "lam", "T", "m", "T_printed", "T_corrected")}
        counterexample = None
        if cfg.steps == "printed":
            counterexample = {
                "instance": f"{cfg.features} features, n = {cfg.n}, k = {cfg.k}, eps = {cfg.eps}, delta = {cfg.delta}",
                **setting,
                "hypotheses": hyp,
                "risk_D": [r["risk_D"] for r in rows],
                "norm": [r["norm"] for r in rows],
                "objective": [r["objective"] for r in rows],
                "error_D": [r["error_D"] for r in rows],
                "seeds": list(seeds),
            }
        _CACHE[key] = Observation(
            [r["risk_D"] for r in rows],
            details={"per_seed": rows, "setting": setting, "hypotheses": hyp, "hypotheses_met": met},
            counterexample=counterexample,
            seeds=seeds,
        )
    return _CACHE[key]


@dataclass(frozen=True)
class StepCountJudge(PredictedBoundsPerSeed):
    """Lemma C.9 per seed: L_D(h) <= 7 eps, ||w_T|| <= sqrt(8) B and the regularised objective L(w_T) <= the proof's
    bound at this T (all predicted); the population rule on the seeds. ``inconclusive`` when the instance misses a
    hypothesis of the lemma (then it says nothing); with ``refute``, a ``fail`` reads ``refuted`` (the statement as
    printed, the observation carrying the counterexample)."""

    bounds: tuple[tuple[str, str, str], ...] = (
        ("risk_D", "risk_bound", "L_D(h) = {:.4g} > 7 eps"),
        ("norm", "norm_bound", "||w_T|| = {:.4g} > sqrt(8) B"),
        ("objective", "objective_bound", "L(w_T) = {:.4g} > the proof's bound"),
    )
    refute: bool = False

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        if not obs.details.get("hypotheses_met", False):
            unmet = [name for name, ok in obs.details["hypotheses"]["checks"].items() if not ok]
            return "inconclusive", f"the instance misses hypotheses of Lemma C.9 ({', '.join(unmet)}): it says nothing"
        verdict, reason = super().__call__(predicted, obs, config)
        return ("refuted" if self.refute and verdict == "fail" else verdict), reason

    def describe(self) -> str:
        return self.describe_adding(
            "per seed, every hypothesis of the lemma met (else inconclusive)",
            "L_D(h) <= 7 eps, ||w_T|| <= sqrt(8) B and L(w_T) <= the proof's bound at T (predicted)"
            + ("; fail read as refuted" if self.refute else ""),
        )


_DEVIATION_FEATURES = Deviation(
    "features",
    "the ideal features psi* of Lemma C.6 with B = B_k (proof of Thm C.11), where the corrected count is "
    "theory.sparse_init.lemma_c9_steps_corrected: 7.8e9 steps at k = 2, 5.0e13 at k = 4 (eps = 0.1)",
    "psi(x) = (1, chi_S(x)), B = 1, ||psi||_{inf,2} = sqrt 2",
    "Lemma C.9 holds for every psi with such a w*; the thesis's instance needs more steps than can run",
)

register(
    Claim(
        id="edelman-ch6-lemC.9-step-count-as-printed",
        source=f"{SRC}, proof of Lemma C.9 as printed (its choice lambda = eps/B^2 with the step count T/log T >= "
        "100(||psi|| + 1/B)^2/eps^2), on the features of Lemma C.6",
        statement="The proof's instantiation, as printed (Lemma C.9 itself is existential in the learning rate, weight "
        "decay and truncation, and is not refuted: only the proof's choice, which Thm C.11's step count takes over). "
        "With lambda = eps/B^2 and T/log T >= 100(||psi||_{inf,2} + B^{-1})^2/eps^2 steps (and "
        "the other hypotheses: some ||w*|| <= B with L_D(h_{psi,w*}) <= eps, ||phi^(1) - psi||_{inf,2} <= eps/B, m >= "
        "(4 sqrt2 B||psi|| + 1)^2 log(2/delta)/eps^2), GD (step 1/(lambda t), the proof's schedule) returns with "
        "probability at least 1 - 2 delta an h with L_D(h) <= 7 eps, through the proof's L(w_T) <= 4 eps and "
        "||w_T||^2 <= 8B^2. The proof's own bound needs T/(1 + log T) >= 100(B||psi|| + eps)^2/eps^2, about B^2 "
        "times more (B_4 = 11,953): on psi* of Lemma C.6 at k = 4 (n = 4, eps = 0.3, printed T = 11,033, m = 2.0e11) "
        "every seed ends with L_D in the hundreds to thousands and ||w_T|| about 3 sqrt(8) B.",
        kind="training",
        configs={
            "quick": StepCountConfig(),
            "full": StepCountConfig(n=6, k=4, eps=0.1, seeds=tuple(range(200))),
        },
        predict=_predict,
        observe=_observe,
        judge=StepCountJudge(checks=(), headline="risk_D", rule=RULE, refute=True),
        on_device=False,
        refutes="proof of Lemma C.9: 'Now, choosing lambda = eps/B^2 [...] So, if T/log(T) >= (100/eps^2)"
        "(||psi||_{inf,2} + B^{-1})^2 and m >= [...] we have L(w_T) <= 4 eps and therefore ||w_T||^2 <= 8B^2' (the step "
        "count the lemma states and Thm C.11's proof uses)",
        corrected_by="edelman-ch6-lemC.9-proof-bound",
        erratum=Erratum(
            "substantive",
            "[Lemma C.9:] ... if ||phi^(1) - psi||_{inf,2} <= eps/B and T/log(T) >= (100/eps^2)(||psi||_{inf,2} + "
            "B^{-1})^2 and m >= ... GD returns a function h s.t. L_D(h) <= 7 eps. [Proof:] Now, choosing lambda = "
            "eps/B^2 we get: L(w_T) <= 2 eps + B||psi||_{inf,2} sqrt(2 log(2/delta))/sqrt(m) + 100 B^2 (||psi||_{inf,2} "
            "+ eps/B)^2 (1 + log(T))/(eps T). So, if T/log(T) >= (100/eps^2)(||psi||_{inf,2} + B^{-1})^2 and m >= ... "
            "we have L(w_T) <= 4 eps and therefore ||w_T||^2 <= (2/lambda) L(w_T) <= 8B^2.",
            WHERE,
        ),
        post_hoc=(
            PostHoc(
                "quick configuration",
                "psi* of Lemma C.6 at n = k = 4, eps = 0.3",
                "after the first full-scale run (k = 4, eps = 0.1: 0 of 200 seeds) and an 8-seed run at k = 4, "
                "eps = 0.3 (docs/sparse_parity.md)",
                "the smallest cube and the largest eps < 1/2 at which the printed count already fails",
            ),
        ),
        note="The lemma is existential in the learning rate and weight decay; this checks the proof's choice "
        "(lambda = eps/B^2, step 1/(lambda t)), the one Thm C.11 runs. That choice is unchanged by psi -> c psi, "
        "B -> B/c (the same h), which leaves B||psi|| and the corrected count unchanged but multiplies the printed "
        "right-hand side by c^2, so no count of the printed form can be right for every instance. Thm C.11's "
        "statement survives (its alpha_4^(k) may absorb B_k^2); the step count in its proof does not.",
    )
)

register(
    Claim(
        id="edelman-ch6-lemC.9-proof-bound",
        source=f"{SRC}, proof of Lemma C.9 with the step count its own bound needs (docs/sparse_parity.md)",
        statement="With lambda = eps/B^2, step 1/(lambda t) and T/(1 + log T) >= 100(B||psi||_{inf,2} + eps)^2/eps^2 "
        "steps (the proof's last term 100B^2(||psi|| + eps/B)^2 (1 + log T)/(eps T) <= eps), on m >= (4 sqrt2 "
        "B||psi|| + 1)^2 log(2/delta)/eps^2 samples and ||phi^(1) - psi||_{inf,2} <= eps/B: per seed, the "
        "regularised objective L(w_T) = L_S(h_{phi^(1),w_T}) + (lambda/2)||w_T||^2 is at most the proof's bound 2 eps "
        "+ B||psi|| sqrt(2 log(2/delta))/sqrt(m) + lambda B^2/2 + 100(||psi|| + eps/B)^2 (1 + log T)/(lambda T) "
        "(<= 4 eps), ||w_T|| <= sqrt(8) B and L_D(h) <= 7 eps, with probability at least 1 - 2 delta. Run on "
        "psi(x) = (1, chi_S(x)) (B = 1, ||psi|| = sqrt 2; quick n = 4, k = 2, eps = 0.14: T = 160,008, m = 15,245), "
        "where that count can run.",
        kind="training",
        configs={
            "quick": StepCountConfig(n=4, k=2, eps=0.14, features="bias-parity", steps="corrected"),
            "full": StepCountConfig(
                n=6, k=4, eps=0.1, features="bias-parity", steps="corrected", seeds=tuple(range(200))
            ),
        },
        predict=_predict,
        observe=_observe,
        judge=StepCountJudge(checks=(), headline="objective", rule=RULE, note="the 0-1 error is reported"),
        on_device=False,
        deviations={"quick": (_DEVIATION_FEATURES,), "full": (_DEVIATION_FEATURES,)},
        post_hoc=(
            PostHoc(
                "instance and eps",
                "psi = (1, chi_S), eps = 0.14 (quick), 0.1 (full)",
                "chosen for run time (the corrected count at B||psi|| = sqrt 2); one 60-seed run of the quick "
                "configuration was seen before this claim was written",
                "eps < 1/7 keeps 7 eps below the risk 1 of h = 0, and 3.75 eps below L(0) = 1",
            ),
        ),
        insensitive="the judged bounds hold with slack on every seed (quick: L(w_T) at most 0.094 against the proof's "
        "0.52, ||w_T|| about 1.15 against sqrt(8) = 2.83, L_D at most 0.015 against 0.98): the proof's bounds are "
        "worst-case, so a 1 % error cannot move a seed",
    )
)
