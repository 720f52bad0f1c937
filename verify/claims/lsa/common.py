"""What the Ch. 5 LSA claims share: the source, the test cases, the configurations and the task-specific judges
(docs/lsa.md)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from numerics import lsa as nl

from ..judges import (
    DEFAULT_POPULATION,
    ExactlyEqual,
    Judge,
    MaxAbs,
    MaxRel,
    Population,
    Verdict,
    as_float,
    as_floats,
    flatten,
    perturb_value,
    relative_step,
)
from ..judges import MC_Z as MC_Z  # the project's Monte Carlo z (re-exported for the lsa modules)

SRC = "Shi thesis (2024), Ch. 5"
CASE_A = ((4, 0, 0, 0), (0, 3, 0, 0), (0, 0, 2, 0), (0, 0, 0, 1))
CASE_B = ((2, 1), (1, 2))
#: N of Case B.
CASE_B_N = 10
#: Relative deviation allowed in the float checks of exact identities (Eq. 5.2, symmetries, Case B): the observed
#: values are float64 deviations already divided by the largest |output|, judged by ``MaxAbs(IDENTITY_RTOL)``.
IDENTITY_RTOL = 1e-12


@dataclass(frozen=True)
class LSAConfig:
    """A non-training LSA setting: the token covariance ``Lam`` (Case A by default), the pretraining prompt length
    ``N``, the evaluation prompt length ``M``, the ranks checked, the Monte Carlo size and seed, whether Lambda is
    rotated by a seeded Haar orthogonal matrix, the label-noise levels ``sigmas``, the task ``w`` and the number of
    L-BFGS starts."""

    Lam: tuple = CASE_A
    N: int = 20
    M: int = 16
    ranks: tuple[int, ...] = (0, 1, 2, 3, 4)
    n_prompts: int = 100_000
    seed: int = 0
    rotate: bool = True
    sigmas: tuple[float, ...] = (0.0, 1.0)
    w: tuple = (1, 1, 1, 1)
    n_starts: int = 10


@dataclass(frozen=True)
class SymbolicConfig:
    """The dimension d of a fully symbolic check (the expansion grows as d^4)."""

    d: int = 2


@dataclass(frozen=True)
class LSATrainingConfig:
    """A training run of :mod:`verify.train.lsa` for every rank in ``ranks`` and seed in ``seeds``: ``model`` is
    ``population`` (Adam then L-BFGS polish on the exact population loss, :func:`verify.train.lsa.train_population`) or
    ``reduced`` / ``full`` (Adam on sampled prompts of batch ``batch``, :func:`verify.train.lsa.train_sgd`).

    ``rotate``: Lambda is rotated by a seeded Haar orthogonal matrix (``seed``), so the optimum is not diagonal.
    ``train_Lam``: when set, the prompts are drawn with this covariance as given (not rotated) instead of Lambda,
    while the learned M_eff is still compared with the optimum for (rotated) Lambda: a negative control.
    """

    Lam: tuple = CASE_A
    N: int = 20
    ranks: tuple[int, ...] = (1, 2, 3, 4)
    seeds: tuple[int, ...] = (0, 1)
    model: str = "population"
    steps: int = 1000
    polish_steps: int = 200
    batch: int = 1024
    rotate: bool = False
    seed: int = 0
    train_Lam: tuple | None = None


def lam(cfg: LSAConfig | LSATrainingConfig) -> np.ndarray:
    return np.array(cfg.Lam, dtype=np.float64)


def rotated(cfg: LSAConfig | LSATrainingConfig) -> tuple[np.ndarray, np.ndarray]:
    """Lambda rotated by a Haar orthogonal matrix (seeded by ``cfg.seed``) when ``cfg.rotate``; returns (Lambda_rot, R)."""
    L = lam(cfg)
    if not cfg.rotate:
        return L, np.eye(L.shape[0])
    R = nl.random_orthogonal(L.shape[0], np.random.default_rng(cfg.seed + 12345))
    return R @ L @ R.T, R


def seeded_prompts(cfg: LSAConfig, n: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray, np.ndarray]:
    """``n`` random prompts of the Sec. 5.3 model, for the float64 checks of an identity.

    Parameters
    ----------
    cfg : LSAConfig
        Lambda (rotated when ``cfg.rotate``: :func:`rotated`), the context length ``cfg.N`` and the seed.
    n : int
        How many prompts.

    Returns
    -------
    rng : numpy.random.Generator
        The generator seeded by ``cfg.seed``, after the prompts were drawn from it (the caller draws weights next).
    L : numpy.ndarray
        The (rotated) Lambda, shape (d, d).
    E, yq : numpy.ndarray
        :func:`numerics.lsa.sample_prompts`'s prompts (n, d + 1, N + 1) and query labels (n,).
    """
    rng = np.random.default_rng(cfg.seed)
    L, _ = rotated(cfg)
    E, yq = nl.sample_prompts(rng, n, L, cfg.N)
    return rng, L, E, yq


def largest_residual(residuals: list[sympy.Expr]) -> sympy.Expr:
    """``max |residual|`` of exact residuals (0 when the identity holds symbolically)."""
    return sympy.Max(*[sympy.Abs(r) for r in residuals])


# --- Judges specific to this task


@dataclass(frozen=True)
class LbfgsOptimum(Judge):
    """Theorem 5.4.1 by optimisation. ``predicted = [L_r by rank, U* by rank]`` (both from :mod:`theory.lsa`); the
    observation's value holds the L-BFGS minima and ``details["minimiser"]`` the minimisers ``A B^T``. Passes iff
    every minimum equals L_r within ``loss_atol`` (a minimum below L_r by more than that would contradict the
    theorem) and every minimiser equals the predicted U* within ``matrix_rtol`` (relative Frobenius error)."""

    loss_atol: float
    matrix_rtol: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        losses, mats = predicted
        pred, got = as_floats(losses), as_floats(obs.value)
        found = list(obs.details["minimiser"])
        if pred.shape != got.shape or len(mats) != len(found) or len(found) != pred.size:
            return (
                "fail",
                f"length mismatch: {pred.size} predicted losses, {got.size} observed, {len(found)} minimisers",
            )
        errs = []
        for want, have in zip(mats, found):
            P, G = as_floats(want), as_floats(have)
            if P.shape != G.shape:
                return "fail", f"minimiser shape mismatch: {P.size} vs {G.size} entries"
            errs.append(float(np.linalg.norm(G - P) / max(float(np.linalg.norm(P)), np.finfo(float).tiny)))
        gap = got - pred
        if not (np.all(np.isfinite(gap)) and np.all(np.isfinite(errs))):
            return "fail", "non-finite loss or minimiser"
        if gap.min() < -self.loss_atol:
            return "fail", f"L-BFGS found a loss {-gap.min():.3e} below L_r: the closed form is not optimal"
        worst = max(errs)
        ok = bool(np.abs(gap).max() <= self.loss_atol and worst <= self.matrix_rtol)
        return ("pass" if ok else "fail"), (
            f"max |loss gap| {np.abs(gap).max():.2e} (tol {self.loss_atol:g}), "
            f"max rel. error of A B^T vs U* {worst:.2e} (tol {self.matrix_rtol:g})"
        )

    def describe(self) -> str:
        return f"loss absolute {self.loss_atol:g}; minimiser relative (Frobenius) {self.matrix_rtol:g}"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        # moves L_r by max(1 %, 10 x loss_atol) and every entry of U* by 1 % (zeros by 10 x loss_atol)
        return MaxAbs(self.loss_atol).perturb(predicted, obs)


@dataclass(frozen=True)
class MonotoneOptimum(Judge):
    """Theorem 5.4.1's dependence on r and N: ``details["L_r_strictly_decreasing"]`` and
    ``details["v_increasing_in_N"]`` hold (exact comparisons), the observed ``|v_i* lambda_i - 1|`` equal the
    predicted rate within ``rtol`` and all stay below ``bound``."""

    rtol: float
    bound: float

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = MaxRel(self.rtol)(predicted, obs, config)
        dec = all(obs.details["L_r_strictly_decreasing"])
        inc = bool(obs.details["v_increasing_in_N"])
        worst = float(as_floats(obs.value).max())
        ok = verdict == "pass" and dec and inc and worst < self.bound
        return ("pass" if ok else "fail"), (
            f"L_r strictly decreasing: {dec}; v* increasing in N: {inc}; rate {reason}; largest {worst:.3e}"
        )

    def describe(self) -> str:
        return f"exact comparisons; rate relative {self.rtol:g} and < {self.bound:g}"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return MaxRel(self.rtol).perturb(predicted, obs)


@dataclass(frozen=True)
class EqualAndNonNegative(Judge):
    """Theorem 5.4.3: every observed difference equals its predicted value exactly and is >= 0."""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = ExactlyEqual()(predicted, obs, config)
        lowest = float(as_floats(obs.value).min())
        ok = verdict == "pass" and lowest >= 0
        return ("pass" if ok else "fail"), f"{reason}; smallest difference {lowest:.6g}"

    def describe(self) -> str:
        return "exact, and every difference >= 0"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return ExactlyEqual().perturb(predicted, obs)


@dataclass(frozen=True)
class DecreasingArgmin(Judge):
    """Sec. 5.4.2: the observed best rank for each noise level equals the predicted one, and it is non-increasing in
    the noise with a strict drop from the first to the last level."""

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, _ = ExactlyEqual()(predicted, obs, config)
        got = list(obs.value)
        monotone = all(a >= b for a, b in itertools.pairwise(got)) and got[0] > got[-1]
        ok = verdict == "pass" and monotone
        return ("pass" if ok else "fail"), (
            f"best rank by noise level: predicted {list(predicted)}, observed {got}; decreasing in sigma: {monotone}"
        )

    def describe(self) -> str:
        return "exact ranks; non-increasing in sigma, first > last"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        """The predicted ranks with the first one moved by one (down, or up from 0): still integer ranks, so the
        judge must reject it for the rank itself (a 1 % move would give a non-integer rank)."""
        ranks = [int(as_float(r)) for r in flatten(predicted)]
        ranks[0] += -1 if ranks[0] > 0 else 1
        return ranks


@dataclass(frozen=True)
class ReachesOptimum(Judge):
    """Theorem 5.4.1 by training, judged on a population of seeds (docs/lsa.md, docs/verdicts.md).

    ``obs.details["per_run"]`` holds one row per (rank, seed): the learned ``M_eff`` written in the descending
    eigenbasis Q of the covariance it is compared with (``M_eigen`` = Q^T M_eff Q) and its analytic loss
    l~(M_eff, 1) + 1/2 tr Lambda (``loss``). The judge reads the prediction: at every rank the relative Frobenius error
    ||Q^T M_eff Q - diag(v*)||_F / ||v*|| and |loss - L_r|, with v* and L_r of :mod:`theory.lsa`. A seed succeeds when
    at every rank the error is at most ``rel_tol`` and the loss gap at most ``gap_tol``; the verdict is ``rule`` on the
    number of successful seeds.

    ``control=True`` (the negative control): ``predicted = {"target": ..., "trained_on": ...}`` and each row also
    holds ``M_eigen_trained_on``, ``loss_trained_on`` (M_eff in the eigenbasis of the covariance the prompts were drawn
    from, and its loss there). A seed succeeds when it *learned* (within ``learned_tol`` (default ``rel_tol``) and
    ``gap_tol`` of the optimum of the covariance it was trained on) and its M_eff is *different* from the target's
    optimum (relative error above ``rel_tol``): an untrained network (relative error 1) fails the first condition.

    The perturbation moves every predicted value by max(1 %, 10 ``rel_tol``) (relative)."""

    rel_tol: float
    gap_tol: float
    rule: Population = DEFAULT_POPULATION
    control: bool = False
    learned_tol: float | None = None

    @property
    def _learned_tol(self) -> float:
        return self.rel_tol if self.learned_tol is None else self.learned_tol

    def planned_runs(self, config: Any) -> int:
        return len(config.seeds)

    @staticmethod
    def _errors(pred: Any, row: dict[str, Any], suffix: str = "") -> tuple[float, float]:
        v = as_floats(pred["v_star"])
        M = np.asarray(row["M_eigen" + suffix], dtype=np.float64)
        if M.shape != (v.size, v.size):
            return float("nan"), float("nan")
        rel = float(np.linalg.norm(M - np.diag(v)) / max(float(np.linalg.norm(v)), np.finfo(float).tiny))
        return rel, abs(float(row["loss" + suffix]) - as_float(pred["L_r"]))

    def seeds(self, predicted: Any, obs: Any) -> list[dict[str, Any]]:
        """Per seed (in the order of the rows): its worst errors over the ranks and the failed conditions."""
        rows = obs.details["per_run"]
        out: dict[Any, dict[str, Any]] = {}
        for row in rows:
            key = f"r={row['rank']}"
            seed = out.setdefault(row["seed"], {"seed": row["seed"], "rel_err": 0.0, "gap": 0.0, "problems": []})
            if self.control:
                rel, gap = self._errors(predicted["trained_on"][key], row, "_trained_on")
                rel_target, _ = self._errors(predicted["target"][key], row)
                seed["rel_err_target"] = min(seed.get("rel_err_target", np.inf), rel_target)
                if not rel_target > self.rel_tol:
                    seed["problems"].append(f"r = {row['rank']}: relative error vs the target's U* {rel_target:.4g}")
            else:
                rel, gap = self._errors(predicted[key], row)
            seed["rel_err"] = max(seed["rel_err"], rel) if np.isfinite(rel) else float("nan")
            seed["gap"] = max(seed["gap"], gap) if np.isfinite(gap) else float("nan")
            what = "the trained-on Lambda's" if self.control else "the"
            if not rel <= (self._learned_tol if self.control else self.rel_tol):
                seed["problems"].append(f"r = {row['rank']}: relative error vs {what} U* {rel:.4g}")
            if not gap <= self.gap_tol:
                seed["problems"].append(f"r = {row['rank']}: |loss - L_r| {gap:.4g}")
        return list(out.values())

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        seeds = self.seeds(predicted, obs)
        if not seeds:
            return "inconclusive", "no seed finished"
        n, k = len(seeds), sum(not s["problems"] for s in seeds)
        stats = self.rule.record(k, n)
        shown = ", ".join(f"{s['rel_err']:.4f}" for s in seeds[:8]) + (f", ... ({n} seeds)" if n > 8 else "")
        text = f"worst relative errors vs {'the trained-on optimum' if self.control else 'U*'} {shown}"
        if self.control:
            text += "; smallest vs the target's U* " + ", ".join(f"{s['rel_err_target']:.3f}" for s in seeds[:8])
        text += (
            f"; {k} of {n} seeds meet every check: rate in [{stats['lower']:.3f}, {stats['upper']:.3f}] at "
            f"{self.rule.confidence:.0%}, target {self.rule.p0:g}"
        )
        failing = [f"seed {s['seed']}: {'; '.join(s['problems'])}" for s in seeds if s["problems"]][:6]
        return stats["verdict"], text + (f"; failing: {'; '.join(failing)}" if failing else "")

    def population(self, predicted: Any, obs: Any, config: Any = None) -> dict[str, Any] | None:
        seeds = self.seeds(predicted, obs)
        return self.rule.record(sum(not s["problems"] for s in seeds), len(seeds)) if seeds else None

    def describe(self) -> str:
        reach = f"relative Frobenius error of M_eff vs U* = Q diag(v*) Q^T <= {self.rel_tol:g} and |loss - L_r| <= {self.gap_tol:g}"
        if self.control:
            reach = (
                f"relative Frobenius error of M_eff vs U* = Q diag(v*) Q^T <= {self._learned_tol:g} and |loss - L_r| "
                f"<= {self.gap_tol:g}"
            )
            text = (
                f"per seed, at every rank: learned ({reach}, v* and L_r of the Lambda it was trained on) and different "
                f"(relative error vs the target Lambda's U* > {self.rel_tol:g})"
            )
        else:
            text = f"per seed, at every rank: {reach}"
        return f"{text}; {self.rule.describe()}"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, relative_step(self.rel_tol))
