"""Fig. 4.1 of Karp thesis Ch. 4: one GD step of V under uniform attention (W = 0) already puts the structure of P
into V. The exact closed form (four classes of entries), Monte Carlo with standard errors, one GD step of the
torch model, the figure, and the vocabulary erratum of the figure's rule (docs/decision_lists.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from numerics import decision_lists as nd
from theory import decision_lists as td
from verify.train import decision_lists as vd

from ..base import Claim, Erratum, Observation, Resolution, RunContext, register
from ..judges import (
    PERTURB_REL,
    PERTURB_TOLS,
    ExactOrFloat,
    Judge,
    RefutedIfDiffers,
    Requiring,
    Verdict,
    as_floats,
    perturb_value,
)
from .common import DOC, SRC


@dataclass(frozen=True)
class OneStepConfig:
    """Fig. 4.1: ``L`` tokens on ``Z_L``, sequences of ``n``, step ``eta`` (None: ``L^2``), ``V_0`` entries of std
    ``v0_std`` (variance 1e-8), Monte Carlo / model sample size, chunks (the model's standard errors) and seed.

    The exact-step claim (``karp-ch4-fig4.1-v-step-exact``) compares the float64 enumeration with the closed forms
    to 1e-9 relative. That tolerance was raised from 1e-12 AFTER the first run, in which the generic class (-0.035)
    missed 1e-12 at 2e-11; it was then re-derived from an error analysis (log-gamma binomials ~1e-13 relative each,
    amplified up to ~30x by the subtraction of eta/L^2 = 1), see docs/decision_lists.md."""

    L: int = 200
    n: int = 25
    eta: int | None = None
    v0_std: float = 1e-4
    samples: int = 8_000
    chunks: int = 8
    seed: int = 0

    @property
    def step(self) -> int:
        return self.L**2 if self.eta is None else self.eta


def _predict_classes(cfg: OneStepConfig) -> list[Fraction]:
    """The closed forms of the four classes (P, shift, antishift, generic) of V_1 - V_0."""
    values = td.one_step_v_classes(cfg.L, cfg.n, cfg.step)
    return [values[k] for k in td.ENTRY_CLASSES]


# --- the exact step


def _observe_exact(cfg: OneStepConfig, ctx: RunContext) -> Observation:
    task = td.cyclic_task(cfg.L)
    step = nd.one_step_v_exact_float(task, cfg.n, cfg.step)
    idx = nd.class_indices(task)
    generic = np.ones_like(step, dtype=bool)
    per_class = {}
    for k, (r, t) in idx.items():
        per_class[k] = step[r, t]
        generic[r, t] = False
    per_class["generic"] = step[generic]
    argmax_ok = bool(np.all(np.argmax(step, axis=0) == np.asarray(task.perm)))
    off = step.copy()
    off[np.asarray(task.perm), np.arange(cfg.L)] = -np.inf
    return Observation(
        [float(x) for k in td.ENTRY_CLASSES for x in (per_class[k].min(), per_class[k].max())],
        details={
            "entries_per_class": {k: int(v.size) for k, v in per_class.items()},
            "every_column_argmax_at_pi": argmax_ok,
            "P_entry_over_largest_other": float(step[task.perm[0], 0] / off.max()),
        },
    )


register(
    Claim(
        id="karp-ch4-fig4.1-v-step-exact",
        source=f"{SRC}, Sec. 4.3.4 and Fig. 4.1 (closed form derived in {DOC}; lists on Z_L)",
        statement="One population GD step from W = 0, V_0 = 0 with eta = L^2 (L = 200, n = 25, L_t = (t+10, t+20, t+30, t), "
        "pi(t) = t+20 on Z_L) gives V_1 = (eta/n^2) N - 11^T, N(r,t) = E[#{j: y_j = r} 1{t in s}], with four values: "
        "P entries L/n - 1 = 7, shifts V_1[pi(t+d), t] = 0.62963, anti-shifts V_1[pi(t-d), t] = -0.69998 (d = 10, 20, "
        "30), every other entry -(L-n)/(n(L-1)) = -0.035176; every column's argmax is at pi(t).",
        kind="symbolic",
        configs={"quick": OneStepConfig(), "full": OneStepConfig()},
        predict=lambda cfg: [v for v in _predict_classes(cfg) for _ in (0, 1)],
        observe=_observe_exact,
        judge=Requiring(ExactOrFloat(1e-9, relative=True), ("every_column_argmax_at_pi",)),
    )
)


# --- Monte Carlo of N


def _mc_observation(classes: dict[str, dict[str, float]], extra: dict[str, Any]) -> Observation:
    """Class means with their standard errors (``stderr``); the P class of the population step is the same for every
    sequence (each sequence has n labels, each from a present LDT), so its standard error can be 0."""
    return Observation(
        [classes[k]["mean"] for k in td.ENTRY_CLASSES],
        details={"stderr": [classes[k]["se"] for k in td.ENTRY_CLASSES], **extra},
    )


@dataclass(frozen=True)
class ZScoreOrExact(Judge):
    """``pass`` iff every estimate lies within ``z`` standard errors plus ``allowance`` of its prediction, where
    ``obs.details[allowance_key]`` (default 0) bounds a known systematic difference and an estimate with standard
    error 0 (a class whose per-sample value is constant) must match to ``exact_tol`` relative."""

    z: float
    exact_tol: float = 1e-12
    allowance_key: str | None = None

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pred, got = as_floats(predicted), as_floats(obs.value)
        se = as_floats(obs.details["stderr"])
        if not (pred.shape == got.shape == se.shape):
            return "fail", f"shape mismatch: {pred.size} predicted, {got.size} observed, {se.size} standard errors"
        allow = float(obs.details.get(self.allowance_key, 0.0)) if self.allowance_key else 0.0
        limit = np.where(se > 0, self.z * se + allow, self.exact_tol * np.abs(pred) + allow)
        err = np.abs(got - pred)
        zs = np.where(se > 0, np.maximum(err - allow, 0) / np.where(se > 0, se, 1), 0.0)
        ok = bool(np.all(err <= limit))
        return ("pass" if ok else "fail"), (
            f"max |z| = {float(zs.max()):.2f} beyond the allowance {allow:.2g} over {got.size} estimate(s) "
            f"({int(np.sum(se == 0))} with zero standard error, within {self.exact_tol:g} relative: "
            f"{bool(np.all(err[se == 0] <= limit[se == 0]))})"
        )

    def describe(self) -> str:
        extra = f" + the bound on the systematic part ({self.allowance_key})" if self.allowance_key else ""
        return (
            f"|estimate - predicted| <= {self.z:g} standard errors{extra}; an estimate with standard error 0 within "
            f"{self.exact_tol:g} relative"
        )

    def perturb(self, predicted: Any, obs: Any) -> Any:
        se = float(np.max(as_floats(obs.details["stderr"])))
        allow = float(obs.details.get(self.allowance_key, 0.0)) if self.allowance_key else 0.0
        return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * (self.z * se + allow))


register(
    Claim(
        id="karp-ch4-fig4.1-v-step-mc",
        resolution=Resolution(
            rel=0.031,
            why="Monte Carlo over 20,000 samples: 4 standard errors are up to 1.8 % of the prediction (entries with standard error 0 are judged to 1e-12)",
        ),
        source=f"{SRC}, Fig. 4.1 (Monte Carlo of the closed form in {DOC})",
        statement="Monte Carlo over uniform 25-permutations of Z_200 of (eta/n^2) #{j: y_j = r} 1{t in s} - eta/L^2, "
        "averaged class by class, agrees with the closed forms 7, 0.62963, -0.69998, -0.035176 (the P class is the same "
        "for every sequence: each of the n positions has its LDT in s).",
        kind="numeric",
        configs={"quick": OneStepConfig(samples=20_000), "full": OneStepConfig(samples=400_000)},
        predict=_predict_classes,
        observe=lambda cfg, ctx: _mc_observation(
            nd.one_step_v_mc(td.cyclic_task(cfg.L), cfg.n, cfg.step, cfg.samples, cfg.seed), {"samples": cfg.samples}
        ),
        judge=ZScoreOrExact(4),
    )
)


# --- one GD step of the model, and the figure


def _figure(task: td.DecisionListTask, step: np.ndarray, exact: np.ndarray, P: np.ndarray) -> list[dict[str, Any]]:
    """Fig. 4.1 in miniature: a 12 x 12 window of V_1 - V_0 (rows ordered by pi^{-1}, so P is the diagonal; shifts and
    anti-shifts 10 off it) next to P on the same colour scale, and column 40 of V_1 - V_0 around its P entry against
    the exact step."""
    window = list(range(34, 46))
    rows = [task.perm[u] for u in window]
    heat = {
        "name": "fig4.1-window",
        "kind": "heatmap",
        "x": window,
        "y": rows,
        "panels": [
            {"title": "V_1 - V_0 after one GD step (model)", "z": step[np.ix_(rows, window)].round(1).tolist()},
            {"title": "P", "z": P[np.ix_(rows, window)].tolist()},
        ],
        "xlabel": "column t (token)",
        "ylabel": "row pi(u), u = 34..45",
        "zlabel": "entry",
        "cmap": "magma",
        "vmin": -1.0,
        "vmax": 7.0,
    }
    col = 40
    order = [task.perm[(col + d) % task.L] for d in range(-45, 46)]
    lines = {
        "name": "fig4.1-column",
        "kind": "lines",
        "series": [
            {"label": "model, one GD step", "x": list(range(-45, 46)), "y": step[order, col].tolist(), "marker": "."},
            {"label": "exact (closed form)", "x": list(range(-45, 46)), "y": exact[order, col].tolist(), "ls": "--"},
        ],
        "xlabel": f"u - t (row pi(u), column t = {col})",
        "ylabel": "V_1 - V_0",
    }
    return [heat, lines]


def _observe_model(cfg: OneStepConfig, ctx: RunContext) -> Observation:
    task = td.cyclic_task(cfg.L)
    res = vd.one_gd_step_v(
        task,
        cfg.n,
        float(cfg.step),
        v0_std=cfg.v0_std,
        samples=cfg.samples,
        chunks=cfg.chunks,
        seed=cfg.seed,
        options=ctx.run_options(),
    )
    step = res.V1 - res.V0
    m = float(np.abs(res.V0).max())
    # V_0 moves sigma away from 1/L by at most (e^{2m} - 1)/L (|(V_0 p)_l| <= m), hence every entry of the step by at
    # most eta (e^{2m} - 1)/L^2 (docs/decision_lists.md)
    allowance = cfg.step * np.expm1(2 * m) / cfg.L**2
    argmax_ok = float(np.mean(np.argmax(res.V1, axis=0) == np.asarray(task.perm)))
    exact = nd.one_step_v_exact_float(task, cfg.n, cfg.step)
    return Observation(
        [res.classes[k]["mean"] for k in td.ENTRY_CLASSES],
        details={
            "stderr": [res.classes[k]["se"] for k in td.ENTRY_CLASSES],
            "v0_allowance": allowance,
            "max_abs_V0": m,
            "fraction_of_columns_with_argmax_at_pi": argmax_ok,
            "max_abs_model_minus_exact_entry": float(np.abs(step - exact).max()),
            "chunks": res.chunks,
        },
        artifacts={"plots": _figure(task, step, exact, nd.permutation_matrix(task))},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="karp-ch4-fig4.1-v-step-model",
        resolution=Resolution(
            rel=0.048,
            why="Monte Carlo over 8,000 samples plus the allowance for the systematic part (v0_allowance): the window is up to 4 % of the prediction",
        ),
        source=f"{SRC}, Sec. 4.3.4 and Fig. 4.1 (L = 200, n = 25, eta = L^2, V_0 ~ N(0, 1e-8), W_0 = 0)",
        statement="One GD step of sigma(V X sigma(X^T W X)) on V from W_0 = 0, V_0 ~ N(0, 1e-8) with eta = L^2, on fresh "
        "uniform 25-permutations of Z_200, puts P into V: the class means of V_1 - V_0 match the closed forms 7, "
        "0.62963, -0.69998, -0.035176 within 4 standard errors (over chunks) plus the bound on V_0's effect; the "
        "figure shows V_1 next to P.",
        kind="numeric",
        configs={"quick": OneStepConfig(), "full": OneStepConfig(samples=100_000, chunks=20)},
        predict=_predict_classes,
        observe=_observe_model,
        judge=ZScoreOrExact(4, allowance_key="v0_allowance"),
        on_device=True,
    )
)


# --- the vocabulary erratum of the printed rule


@dataclass(frozen=True)
class VocabularyConfig:
    """Vocabulary size of Fig. 4.1."""

    L: int = 200


def _observe_vocabulary(cfg: VocabularyConfig, ctx: RunContext) -> Observation:
    one, zero = td.printed_fig41_values(cfg.L, True), td.printed_fig41_values(cfg.L, False)
    return Observation(
        [cfg.L - len(one["pi"]), cfg.L - len(zero["pi"])],
        counterexample={
            "vocabulary_1_to_L": {"pi_outside": one["pi"][:3], "list_entries_outside": len(one["list"])},
            "vocabulary_0_to_L-1": {"pi_outside": zero["pi"][:3], "list_entries_outside": len(zero["list"])},
        },
    )


register(
    Claim(
        id="karp-ch4-fig4.1-vocabulary-printed",
        source=f"{SRC}, Sec. 4.3.4 and the caption of Fig. 4.1 (erratum in {DOC})",
        statement="As printed: with f(i) = i mod (L + 1), pi(i) = f(i + 20) is a permutation of the vocabulary [L] and the "
        "lists L_i = (f(i+10), f(i+20), f(i+30), i) are lists of tokens (every token's pi lies in [L]).",
        kind="symbolic",
        configs={"quick": VocabularyConfig(), "full": VocabularyConfig()},
        predict=lambda cfg: [td.printed_fig41_claimed_in_vocabulary(cfg.L)] * 2,
        observe=_observe_vocabulary,
        judge=RefutedIfDiffers(0),
        refutes="Fig. 4.1: 'f(i) := i mod (L + 1), the mapping pi is f(i + 20), each decision list is L_i = (f(i + 10), "
        "f(i + 20), f(i + 30), i)' on the vocabulary [L]",
        corrected_by="karp-ch4-fig4.1-v-step-exact",
        erratum=Erratum(
            "notation",
            "Using the notation f(i) := i mod (L + 1), the mapping pi is f(i + 20), and each decision list is L_i = "
            "(f(i + 10), f(i + 20), f(i + 30), i). [Sec. 4.2.2:] We consider an arbitrary permutation function "
            "pi : [L] -> [L] [...] [Sec. 4.3.4:] s_in ~ U({n-permutations of [L]})",
            "Karp thesis (2024), Ch. 4, caption of Fig. 4.1 (p. 46 by the list of figures) and the text of Sec. 4.3.4",
        ),
    )
)
