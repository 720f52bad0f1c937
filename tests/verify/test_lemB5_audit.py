"""Audit of the Lemma B.5 claims' observations (verify/claims/sparse_parity/lemB5.py), whose verdicts are generic
judges on what these functions measure: the concentration draw runs at the lemma's batch and reports the deviation
over the lemma's tau, the Hoeffding-step claim reports the Clopper-Pearson lower bound over Hoeffding's, and the width
claim the Clopper-Pearson upper bound over delta and the sign symmetry as measured. Oracles: theory.parity's tau, B
and width, numerics.stats' Clopper-Pearson bounds, spies on numerics' own runs."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from numerics import parity_sgd as nps
from numerics.stats import clopper_pearson
from theory import parity as tpar
from verify.claims import RunContext, registry
from verify.claims.sparse_parity import lemB5
from verify.runtime.options import RunOptions

CTX = RunContext(options=RunOptions(progress=False))


def _spy(monkeypatch, name: str) -> list:
    calls, real = [], getattr(nps, name)

    def wrapped(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append((args, kwargs, out))
        return out

    monkeypatch.setattr(nps, name, wrapped)
    return calls


def test_a_concentration_draw_runs_at_the_lemmas_batch_and_divides_by_its_tau(monkeypatch) -> None:
    """Eq. (B.6) at the lemma's tau and B: each draw's batch is theory's B (width r = theory's), and the reported
    ratio is the largest deviation over tau."""
    calls = _spy(monkeypatch, "lemB5_gradient_deviations")
    obs = lemB5._observe_concentration(lemB5.ConcentrationConfig(((5, 2),), draws=2), CTX)
    r = tpar.lemB5_width(2, lemB5.DELTA)
    B, tau = tpar.lemB5_batch(5, 2, r, lemB5.EPS, lemB5.DELTA), tpar.lemB5_tau(5, 2, lemB5.EPS)
    assert len(calls) == 2
    for (args, _, out), row in zip(calls, obs.details["per_draw"]):
        n, k, init, batch = args[:4]
        assert (n, k, batch, init[0].shape[0]) == (5, 2, B, r)
        assert row["max_dev_over_tau"] == pytest.approx(float(out["max_deviation"][0]) / float(tau), rel=1e-12)


def test_the_hoeffding_step_reports_the_lower_clopper_pearson_bound(monkeypatch) -> None:
    """mc_lower_over_hoeffding is the Monte Carlo tail's Clopper-Pearson lower bound over 2 exp(-B tau^2/2), one
    per coordinate (in [k], outside [k], the bias), read from the run's tail counts at columns 0, k and n."""
    calls = _spy(monkeypatch, "lemB5_gradient_deviations")
    cfg = lemB5.TailConfig(((7, 2, 16, Fraction(1, 8)),), draws=400)  # B = 16: tails large enough to differ
    obs = lemB5._observe_tails(cfg, CTX)
    (_, _, out), bound = calls[0], tpar.lemB5_hoeffding_bound(16, Fraction(1, 8))
    counts = [int(out["tail_count"][0, j]) for j in (0, 2, 7)]
    assert len(set(counts)) == 3  # the three coordinates' counts differ, so each is read from its own column
    assert obs.value == [c / 400 for c in counts]
    expected = [clopper_pearson(c, 400)[0] / bound for c in counts]
    assert obs.details["mc_lower_over_hoeffding"] == pytest.approx(expected, rel=1e-12)


def test_the_width_claim_reports_the_upper_bound_and_the_measured_sign_symmetry(monkeypatch) -> None:
    """mc_upper_over_delta is the Clopper-Pearson upper bound of the missed share over delta; sign_free is what the
    Monte Carlo shows (a run where the two signs disagree once is not sign-free)."""
    calls = _spy(monkeypatch, "lemB5_slot_cover")
    cfg = lemB5.WidthConfig(((2, Fraction(1, 10)),), draws=300)
    obs = lemB5._observe_width(cfg, corrected=True)
    out = calls[0][2]
    missed = int(out["missed"].sum())
    assert obs.details["mc_upper_over_delta"] == [pytest.approx(clopper_pearson(missed, 300)[1] / 0.1, rel=1e-12)]
    assert obs.details["sign_free"] is bool((out["missed"] == out["missed_minus"]).all())

    real = nps.lemB5_slot_cover

    def lopsided(*args, **kwargs):
        res = dict(real(*args, **kwargs))
        res["missed_minus"] = ~np.asarray(res["missed"])
        return res

    monkeypatch.setattr(nps, "lemB5_slot_cover", lopsided)
    assert lemB5._observe_width(cfg, corrected=True).details["sign_free"] is False


def test_the_mean_claim_reports_the_largest_network_output_at_init(monkeypatch) -> None:
    """The first-step claim requires f(x; theta_0) = 0 (mirrored pairs); the observation carries the largest |f|
    the run saw, so an initialisation with f != 0 is caught by the judge rather than passing silently."""
    real = nps.lemB5_gradient_deviations

    def off(*args, **kwargs):
        return {**real(*args, **kwargs), "max_abs_f": 0.5}

    monkeypatch.setattr(nps, "lemB5_gradient_deviations", off)
    cfg = lemB5.MeanConfig(((5, 2),), width=2, inits=1)
    obs = lemB5._observe_mean(cfg, CTX)
    assert obs.details["max_abs_f_at_init"] == 0.5
    claim = registry()["edelman-ch5-lemB.5-first-step-mean"]
    assert claim.judge(claim.predict(cfg), obs, cfg)[0] != "pass"
