"""Mutation audit of the looped-transformer judges (verify/claims/looped): floors, per-prompt conditions and
boundaries that the claim tests leave open, on hand-built observations whose verdict follows from the judges'
docstrings (Theorems 8.16 and 8.25, Fact 8.24, Lemmas 8.13, 8.20 and 8.22, Figure 8.1)."""

from __future__ import annotations

import numpy as np

from verify.claims.base import Observation
from verify.claims.looped import common as lc
from verify.claims.looped import construction as lcon
from verify.claims.looped import convergence as lconv
from verify.claims.looped import figure8_1 as lfig


def test_error_bound_admits_the_float64_floor_and_no_more() -> None:
    """Error <= |alpha| f^T + |alpha| 64 kappa eps: at kappa = 2, alpha = 1, T = 60 the sharp bound is 0.5^60 =
    8.7e-19 and the floor 64 x 2 x 2.2e-16 = 2.8e-14; an error of 1e-15 there (a converged float64 iterate) passes,
    1e-13 fails."""
    kappa, T = 2.0, 60
    pred = {"stated_factor": [float(np.exp(-1 / (2 * kappa)))], "sharp_factor": [1 - 1 / kappa]}
    details = {"kappa": [kappa], "alpha": [1.0]}
    judge = lconv.ErrorBelowBounds()
    for last, verdict in ((1e-15, "pass"), (1e-13, "fail")):
        err = [1.0] + [0.0] * (T - 1) + [last]
        assert judge(pred, Observation([err], details=details))[0] == verdict


def test_error_bound_checks_the_sharp_factor_too() -> None:
    """Both predicted factors are checked: errors exactly at (1 - 1/kappa)^T fail against a sharp factor 2 % below
    it, although the looser stated factor exp(-1/(2 kappa)) holds."""
    kappa, T = 4.0, 5
    f = 1 - 1 / kappa
    err = [[1.0] + [f**t for t in range(1, T + 1)]]
    obs = Observation(err, details={"kappa": [kappa], "alpha": [1.0]})
    pred = {"stated_factor": [float(np.exp(-1 / (2 * kappa)))], "sharp_factor": [0.98 * f]}
    assert lconv.ErrorBelowBounds()(pred, obs)[0] == "fail"


def _rate_obs(ratio: list[float], kappa: list[float]) -> Observation:
    return Observation({"thm8.25": [ratio], "lem8.23": [ratio]}, details={"kappa": kappa})


def test_rate_floor_is_squared() -> None:
    """The allowance is (64 kappa eps)^2 = 8e-28 at kappa = 2 (the ratio is a squared norm): a ratio 1e-20 above
    0.5^80 fails, 1e-29 above passes."""
    t = np.arange(81)
    pred = {"thm8.25_factor": [0.5], "lem8.23_factor": [0.5]}
    for extra, verdict in ((1e-20, "fail"), (1e-29, "pass")):
        ratio = (0.5**t).tolist()
        ratio[-1] += extra
        assert lconv.RateBelowBounds()(pred, _rate_obs(ratio, [2.0]))[0] == verdict


def test_rate_fact_8_24_holds_for_every_prompt() -> None:
    """Fact 8.24 for *every* prompt: a predicted 1 - 1/kappa above exp(-1/kappa) for one prompt (0.99 at kappa = 50,
    exp(-1/50) = 0.980) fails, even when the other prompt's factor is right."""
    pred = {"thm8.25_factor": [0.5, 0.99], "lem8.23_factor": [0.5, 0.99]}
    obs = Observation(
        {"thm8.25": [[1.0, 0.0], [1.0, 0.0]], "lem8.23": [[1.0, 0.0], [1.0, 0.0]]}, details={"kappa": [2.0, 50.0]}
    )
    assert lconv.RateBelowBounds()(pred, obs)[0] == "fail"
    ok = {"thm8.25_factor": [0.5, 0.98], "lem8.23_factor": [0.5, 0.98]}
    assert lconv.RateBelowBounds()(ok, obs)[0] == "pass"


def test_spectrum_checks_l_as_well_as_mu() -> None:
    """Both observed L and mu must match the exact roots: L off by 1e-5 relative fails even when mu matches."""
    pred = {"L": [10.0], "mu": [1.0]}
    details = {"smoothness_max_violation": 0.0, "strong_convexity_max_violation": 0.0}
    judge = lconv.SpectrumAndInequalities()
    assert judge(pred, Observation({"L": [10.0], "mu": [1.0]}, details=details))[0] == "pass"
    assert judge(pred, Observation({"L": [10.0001], "mu": [1.0]}, details=details))[0] == "fail"


def test_attention_last_column_entry_must_be_zero() -> None:
    """Lemma 8.13: the last-column entry of the last row (removed by P) is exactly 0; a tiny nonzero value there
    fails even though the last row is within rtol of the closed form."""
    pred = [[[0.0, 0.0, 0.0], [1.0, 2.0, 0.0]]]
    details = {"exact_residual_max": 0.0, "exact_cases": 1}
    obs = Observation([[[0.0, 0.0, 0.0], [1.0, 2.0, 1e-300]]], details=details)
    assert lcon.AttentionMatches()(pred, obs)[0] == "fail"


def test_decay_line_starts_at_t_zero_and_slopes_must_drop_strictly() -> None:
    """log r_i(t) <= t log f_i from t = 0: trials at 0.999 of the line (n = 16) and half of it (n = 32) pass; two n
    with the same mean log error at slope_t are not "strictly decreasing" and fail."""
    kappa = np.array([2.0, 4.0])
    f = np.exp(-1 / kappa)
    t = np.arange(12)
    line = f[:, None] ** t[None]
    pred = {16: f.tolist(), 32: f.tolist()}
    cfg = lc.DecayCfg(d=4, ns=(16, 32), T=11, trials=2)
    judge = lfig.DecayBelowLine()
    assert judge(pred, Observation({16: (0.999 * line).tolist(), 32: (0.5 * line).tolist()}), cfg)[0] == "pass"
    same = (0.5 * line).tolist()
    assert judge(pred, Observation({16: same, 32: same}), cfg)[0] == "fail"
