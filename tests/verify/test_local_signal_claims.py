"""The local-signal claims' details, counterexamples and plot specs (Karp Ch. 3); the verdicts themselves are
checked for every claim by ``test_claims.py``. Only the cheap claims are run here; the Fig. 3.3 plots are checked on
a short training run."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from theory import local_signal as tl
from verify.claims import registry
from verify.report.figures import plot_spec_figure
from verify.runtime.options import RunOptions
from verify.train import local_signal as vs

from .claim_checks import evaluation

importlib.import_module("verify.claims.local_signal")

from verify.claims.base import Observation  # noqa: E402
from verify.claims.local_signal import kernel, optimum  # noqa: E402
from verify.claims.local_signal.trained import FigureConfig, figure_plots  # noqa: E402

IDS = [cid for cid in registry() if cid.startswith("karp-ch3-")]


def _run(cid: str):
    """The claim's quick evaluation, cached for the session (shared with test_claims.py)."""
    return evaluation(cid)


def test_every_claim_has_quick_and_an_id_naming_the_source():
    assert len(IDS) >= 23
    for cid in IDS:
        claim = registry()[cid]
        assert "quick" in claim.configs and "Karp thesis" in claim.source
        if claim.refuting:
            assert claim.corrected_by in registry() and claim.corrected_by.startswith("karp-ch3-")


@pytest.mark.parametrize(
    "cid",
    [
        "karp-ch3-cntk-indicator-printed",
        "karp-ch3-thm3.1-t2-printed",
    ],
)
def test_refuted_claims_carry_counterexamples(cid):
    ev = _run(cid)
    assert ev.verdict == "refuted" and ev.obs.counterexample


def test_049_remark_is_read_for_large_k():
    """Ch. 3 treats k as large, so "fails with at least probability 0.49" is checked beyond the crossover
    (theory.local_signal.crossovers), not refuted at a practical k; below the crossover, the error is under 0.49."""
    claim = registry()["karp-ch3-linear-classifier-049-printed"]
    assert not claim.refuting
    ev = _run("karp-ch3-linear-classifier-049-printed")
    crossover = tl.crossovers()["linear_error_049"]
    assert ev.verdict == "pass" and ev.obs.details["increasing_in_k"]
    assert ev.obs.details["log10_k_first_049"] == pytest.approx(crossover, rel=1e-8)
    assert all(math.log10(k) > crossover for k in ev.obs.details["ks"])
    assert all(e < 0.49 for e in ev.obs.details["practical_error"])
    assert ev.obs.details["practical_error"][:2] == pytest.approx(
        [float(tl.linear_classifier_error_exact(k)) for k in (100, 1000)], rel=1e-12
    )


def test_clt_claim_records_where_it_holds():
    ev = _run("karp-ch3-err-clt")
    assert 0.6 <= ev.obs.details["clt_within_0.005_up_to_tau"] < 0.7
    tail = ev.obs.details["tail"]
    assert all(row["clt"] < row["exact"] / 5 for row in tail.values())


def test_plot_specs_render():
    for spec in (
        _run("karp-ch3-err-curve").obs.artifacts["plots"][0],
        _run("karp-ch3-thm3.2-kernel-lower-bound").obs.artifacts["plots"][0],
    ):
        plot_spec_figure("test", spec)
        assert spec["kind"] == "lines" and spec["hlines"]


def test_figure_plots_have_the_three_panels_and_reference_lines():
    run = vs.train_signal(
        vs.SignalTrainConfig(k=100, d=4, batch=50, steps=20, eval_every=10, n_test=200, seeds=(0, 1)), RunOptions()
    )
    plots = figure_plots(run, 0.65, 0.37, 0.4)
    assert [p["name"] for p in plots] == ["fig3.3-b-and-c", "fig3.3-ratio", "fig3.3-accuracy"]
    assert plots[1]["hlines"][0]["y"] == 0.65
    assert {h["y"] for h in plots[2]["hlines"]} >= {1 - 0.37, 1 - 0.4}
    for spec in plots:
        plot_spec_figure("test", spec)
        assert len(spec["series"]) >= 2 and len(spec["series"][0]["x"]) == 3
    assert np.isfinite(plots[1]["series"][0]["y"]).all()


# --- audit fixes: what each verdict checks can fail


def test_lemma_b9_printed_probability_is_checked_not_refuted():
    """The printed 'probability of misclassification is P[S > c_t + b_t]' holds (S ~ -S): the claim is an ordinary
    check, both frequencies agree with err(tau), the events themselves disagree about err(tau) of the time, and
    the judge rejects a P[S > c + b] that differs from the misclassification probability."""
    assert "karp-ch3-lemB9-error-event-printed" not in registry()
    claim = registry()["karp-ch3-lemB9-error-event"]
    assert not claim.refuting and "P[S > c_t + b_t]" in claim.statement
    ev = _run("karp-ch3-lemB9-error-event")
    assert ev.verdict == "pass"
    miss, upper = ev.obs.value
    se = ev.obs.details["stderr"]
    assert abs(miss - upper) <= 4 * np.hypot(*se)
    # the events coincide for y = -1 and are disjoint for y = +1: they disagree about err(tau) of the time
    # (tolerance 0.01, about 4 SE of a frequency near 0.15 at n = 20,000)
    assert ev.obs.details["events_disagree_frequency"] == pytest.approx((miss + upper) / 2, abs=0.01)
    wrong = Observation([miss, 2 * upper], details=ev.obs.details)
    assert claim.judge(ev.predicted, wrong, claim.configs["quick"])[0] == "fail"


def test_kernel_claim_needs_its_positive_control():
    """A kernel pipeline at chance level (error 0.5) passes the lower bound 0.1 but fails the positive control."""
    claim = registry()["karp-ch3-thm3.2-kernel-lower-bound"]
    ev = _run("karp-ch3-thm3.2-kernel-lower-bound")
    control = ev.obs.details["positive_control_aligned_filter"]
    assert ev.verdict == "pass" and control["passes"] and control["error"] <= control["max_error"]
    chance = Observation([0.5] * 3, details={**ev.obs.details, kernel._CONTROL_KEY: False})
    assert claim.judge(ev.predicted, chance, claim.configs["quick"])[0] == "fail"
    assert "not judged" in claim.statement and "alignment" in " ".join(ev.obs.details["reported_not_judged"])


def test_positive_control_detects_a_broken_svm(monkeypatch):
    """The control runs the real pipeline: it passes with the SVM, and fails when the SVM returns w = 0."""
    cfg = kernel.KernelConfig(n_train=300, n_test=500)
    assert kernel.positive_control(cfg)["passes"]
    real = kernel.nl.hinge_svm

    def broken(F, y, lam):
        res = real(F, y, lam)
        return type(res)(np.zeros_like(res.w), res.primal, res.dual, res.gap, res.status)

    monkeypatch.setattr(kernel.nl, "hinge_svm", broken)
    out = kernel.positive_control(cfg)
    assert out["error"] == 1.0 and not out["passes"]


def test_clt_tail_failure_is_judged():
    claim = registry()["karp-ch3-err-clt"]
    ev = _run("karp-ch3-err-clt")
    assert ev.obs.details[optimum._CLT_TAIL_KEY] is True
    strict = optimum.CLTConfig(taus=(0.0, 0.3), tail=(0.7,), tail_ratio=0.05)  # CLT/exact is 0.11 at tau = 0.7
    obs = optimum._observe_clt(strict, None)
    assert obs.details[optimum._CLT_TAIL_KEY] is False
    assert claim.judge(claim.predict(strict), obs, strict)[0] == "fail"


def test_flat_minimum_is_judged_on_the_stated_interval():
    """On [0.9, 0.999] the exact error varies by < 1e-5; on [0.85, 0.999] (the old statement) it does not."""
    claim = registry()["karp-ch3-optimal-threshold"]
    assert "[0.9, 0.999]" in claim.statement and "0.85" not in claim.statement
    ev = _run("karp-ch3-optimal-threshold")
    assert ev.obs.details[optimum._FLAT_KEY] is True and ev.obs.details["flat_minimum"]["spread"] < 1e-5
    wide = optimum.OptimumConfig(ks=(1000,), taus=(0.9, 0.95, 0.9999), n=5000, flat_interval=(0.85, 0.999))
    obs = optimum._observe_optimum(wide, None)
    assert not obs.details[optimum._FLAT_KEY] and obs.details["flat_minimum"]["spread"] > 5e-5
    assert claim.judge(claim.predict(wide), obs, wide)[0] == "fail"


def test_post_hoc_settings_are_stated_in_the_config_docstrings():
    assert "after seeing" in optimum.CLTConfig.__doc__ and "post hoc" in FigureConfig.__doc__
    assert "before" in kernel.KernelConfig.__doc__ and "read off" in optimum.OptimumConfig.__doc__


def test_cntk_indicator_is_refuted_only_where_claimed_and_failing():
    """Re-judged: the printed indicator agrees with the gradient at the initialisation b = 0 and for b < 0; it is
    refuted because the kernel's bias is free (Theorem B.1: every b in R), and it fails for b > 0."""
    claim = registry()["karp-ch3-cntk-indicator-printed"]
    assert claim.refuting and claim.erratum.kind == "substantive" and "b > 0" in claim.statement
    ev = _run("karp-ch3-cntk-indicator-printed")
    biases, gaps = ev.obs.details["biases"], ev.obs.details["max_abs_gap_per_bias"]
    assert 0.0 in biases and ev.obs.details["agrees_for_b_at_most_0"]
    assert all((gap > 1e-3) == (b > 0) for b, gap in zip(biases, gaps))
    assert ev.obs.counterexample["b"] > 0
    fixed = _run("karp-ch3-cnn-gradient")
    assert fixed.verdict == "pass" and fixed.obs.details["printed_feature_agrees_for_b_at_most_0"]


def test_errata_kinds():
    kinds = {
        "karp-ch3-cntk-indicator-printed": "substantive",
        "karp-ch3-thm3.1-t2-printed": "typo",
        "karp-ch3-fig3.3-sigma-printed": "notation",
    }
    assert {cid for cid in IDS if registry()[cid].refuting} == set(kinds)
    for cid, kind in kinds.items():
        e = registry()[cid].erratum
        assert e.kind == kind and e.where.startswith("Karp thesis (2024), ") and len(e.quote) > 40, cid


# --- issue 28: seed populations


def _figure_row(tau_frac: float, tau_star: float) -> dict:
    return {
        "seed": 0,
        "cos_final": 0.99,
        "v_over_c": 0.1,
        "b": -0.1,
        "tau_final": tau_frac * tau_star,
        "tau_rise": 0.05,
        "acc_final": 0.7,
        "acc_gain": 0.2,
    }


def test_figure_judge_uses_tau_star_two_sided():
    """The final |b|/c must lie in [min_tau_frac tau*, tau*]: a run that barely moves fails as well as one that
    overshoots; five good seeds pass, two cannot decide (p0 = 0.5)."""
    claim = registry()["karp-ch3-fig3.3-training"]
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    ts = float(pred["tau_star"])

    def verdict(fracs):
        rows = [{**_figure_row(f, ts), "seed": i} for i, f in enumerate(fracs)]
        return claim.judge(pred, Observation([r["acc_final"] for r in rows], details={"per_seed": rows}), cfg)

    assert verdict([0.3] * 5)[0] == "pass"
    assert verdict([0.3] * 2)[0] == "inconclusive"
    assert verdict([0.02] * 5)[0] == "fail"  # barely moved toward tau*
    assert verdict([1.05] * 5)[0] == "fail"  # overshoots tau*
    assert "window" in verdict([0.02] * 5)[1]
    assert claim.expected_verdict("quick") == "inconclusive" and claim.insensitive


def _welch_obs(shift: float, replicates: int = 10, shifted: int | None = None) -> Observation:
    """``replicates`` replicates whose four differences are ``shift`` (only the first ``shifted`` of them; the others
    0), each with standard error 0.01."""
    shifted = replicates if shifted is None else shifted

    def rows(d: float) -> list[dict]:
        return [
            {"step": 100, "quantity": q, "difference": d, "se": 0.01, "dof": 6.0} for q in ("c", "v", "b", "accuracy")
        ]

    reps = [{"comparisons": rows(shift if j < shifted else 0.0)} for j in range(replicates)]
    return Observation([[r["difference"] for r in rep["comparisons"]] for rep in reps], details={"replicates": reps})


def test_reduced_simulator_judge_counts_replicates():
    """Replicates with no difference pass; a shift of 10 standard errors in every replicate fails; the prediction
    (0) matters: the judge's perturbation of it is rejected."""
    claim = registry()["karp-ch3-reduced-simulator"]
    cfg = claim.configs["quick"]
    pred = [0] * 4
    assert claim.judge.planned_runs(cfg) == cfg.replicates == 10
    assert claim.judge(pred, _welch_obs(0.0), cfg)[0] == "pass"
    # a replicate of agreeing simulators fails by chance with probability up to alpha: one of ten does not flip it
    assert claim.judge(pred, _welch_obs(0.1, shifted=1), cfg)[0] == "pass"
    assert claim.judge(pred, _welch_obs(0.1), cfg)[0] == "fail"
    assert claim.judge(pred, _welch_obs(0.0, 2), cfg)[0] == "inconclusive"
    assert claim.judge(claim.judge.perturb(pred, _welch_obs(0.0)), _welch_obs(0.0), cfg)[0] == "fail"
