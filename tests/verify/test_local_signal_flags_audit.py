"""Audit of flags that the ``Requiring`` judges of verify/claims/local_signal (gaussian.py, optimum.py, kernel.py)
read: each must hold at every point / tail value / bias the statement quantifies over, and fail when one of them
breaks it.

The numerical back ends are replaced by small stand-ins (a Monte Carlo result with kappa outside [-2, 0]; an
error curve that the CLT form misses at all but one tail point; a printed CNTK feature wrong at the bias 0 only),
so the expected flag follows from the statement alone.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from numerics import local_signal as nl
from theory import local_signal as tl
from verify.claims import RunContext
from verify.claims.local_signal import gaussian, kernel, lemB4, optimum, thm32_infimum
from verify.runtime.options import RunOptions


def test_gradient_structure_flag_requires_kappa_at_most_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proof's structure has kappa in [-2, 0]: a symmetrised kappa of +0.5 at one point must make
    ``kappa_in_minus_2_0`` False (an upper end that is not checked lets a wrong sign pass)."""
    original = nl.gradient_structure_mc

    def positive_kappa(k, w, b, sigma, n, seed):
        g = original(k, w, b, sigma, n, seed)
        return dataclasses.replace(g, kappa_sym=0.5) if seed == 1 else g

    monkeypatch.setattr(nl, "gradient_structure_mc", positive_kappa)
    obs = gaussian._observe_gradient(gaussian.GradientConfig(k=8, n=2000), RunContext())
    assert obs.details["kappa_in_minus_2_0"] is False


def test_clt_tail_flag_needs_every_tail_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLT form must be below ``tail_ratio`` times the exact error at every tail tau: with the exact error 1
    everywhere and the CLT value 0.1 except 0.9 at tau = 0.9, the flag is False."""
    monkeypatch.setattr(nl, "error_curve_fourier", lambda k, t, sigma: 1.0)
    monkeypatch.setattr(tl, "clt_error", lambda k, t: 0.9 if t == 0.9 else 0.1)
    obs = optimum._observe_clt(optimum.CLTConfig(k=50), RunContext())
    assert obs.details[optimum._CLT_TAIL_KEY] is False
    monkeypatch.setattr(tl, "clt_error", lambda k, t: 0.1)
    assert optimum._observe_clt(optimum.CLTConfig(k=50), RunContext()).details[optimum._CLT_TAIL_KEY] is True


def test_cnn_gradient_agreement_includes_the_bias_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """karp-ch3-cnn-gradient: the printed feature agrees with the gradient for every b <= 0, b = 0 (Algorithm
    3.1's initialisation) included: a printed feature wrong at b = 0 alone must make the flag False."""
    cfg = kernel.IndicatorConfig()
    assert 0.0 in cfg.biases and any(b < 0 for b in cfg.biases)
    assert kernel._observe_gradient_fd(cfg, RunContext()).details["printed_feature_agrees_for_b_at_most_0"]
    original = tl.cntk_feature_as_printed
    monkeypatch.setattr(
        tl, "cntk_feature_as_printed", lambda X, w, b: np.add(original(X, w, b), 1.0 if b == 0 else 0.0).tolist()
    )
    obs = kernel._observe_gradient_fd(cfg, RunContext())
    assert obs.details["printed_feature_agrees_for_b_at_most_0"] is False


def test_flat_minimum_flag_reads_the_spread_over_the_whole_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "The exact error varies by less than flat_tol on the flat interval": an error curve equal (0.2) at both ends
    of [0.9, 0.999] but 1e-3 at 0.95 varies by about 0.2 > 1e-5, so the flag must be False (the ends alone say 0)."""
    monkeypatch.setattr(nl, "error_curve_fourier", lambda k, t, sigma: 1e-3 if 0.945 < t < 0.955 else 0.2)
    cfg = optimum.OptimumConfig(ks=(20,), n=2000, flat_k=20)
    obs = optimum._observe_optimum(cfg, RunContext())
    assert obs.details["flat_minimum"]["spread"] == pytest.approx(0.2 - 1e-3)
    assert obs.details[optimum._FLAT_KEY] is False


def test_edge_flag_requires_the_edge_init_inside_the_init_event() -> None:
    """The edge case judges an init inside the proof's init event, D <= D_0.999 (2.99 at d = 21): an edge_D of 3.5
    lies outside it, so the flag must be False whatever the Monte Carlo error there."""
    cfg = thm32_infimum.OneFilterConfig(alignments=(1.0,), edge_alignments=(), n=300, edge_D=3.5, n_theta=16)
    obs = thm32_infimum._observe_one_filter(cfg, RunContext())
    assert obs.details["init_event_D_0.999"] < 3.5
    assert obs.details[thm32_infimum._EDGE_KEY] is False


def test_lemb4_batches_use_the_run_seed_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    """RunOptions.seed_offset N runs the disjoint seed set i + N: Lemma B.4's batches must be drawn from the shifted
    seeds (batch seed 16 (i + N) + state) and the observation must record them; otherwise a report with an offset
    repeats the same batches."""
    drawn = []

    def stub(k, d, sigma, c, v, b, n, reps, seed, pop):
        drawn.append(seed)
        return {"dev_w": [0.0], "dev_b": [0.0], "mean": [np.array([pop.star, pop.perp, pop.bias]) + 1e-3 * seed]}

    monkeypatch.setattr(lemB4.nmb, "minibatch_deviations", stub)
    cfg = lemB4.B4Config(states=((0.5, 0.2, 0.05),), seeds=(0, 1, 2))
    obs = lemB4._observe(cfg, RunContext(options=RunOptions(seed_offset=100)))
    assert tuple(obs.seeds) == (100, 101, 102)
    assert drawn == [16 * 100, 16 * 101, 16 * 102]


@pytest.mark.parametrize(
    ("field", "value", "flag"),
    [
        ("gamma_sym", -0.5, "gamma_nonnegative"),
        ("min_sym_term", -0.5, "symmetrised_integrand_nonnegative"),
    ],
)
def test_gradient_structure_flags_hold_at_every_point(
    monkeypatch: pytest.MonkeyPatch, field: str, value: float, flag: str
) -> None:
    """gamma >= 0 and the symmetrised integrand >= 0 (pointwise) are claimed at every point (w, b): a violation at
    the first of the two points alone must make the flag False (and not be overwritten by the second point)."""
    original = nl.gradient_structure_mc

    def broken_first(k, w, b, sigma, n, seed):
        g = original(k, w, b, sigma, n, seed)
        return dataclasses.replace(g, **{field: value}) if seed == 0 else g

    monkeypatch.setattr(nl, "gradient_structure_mc", broken_first)
    obs = gaussian._observe_gradient(gaussian.GradientConfig(k=8, n=2000), RunContext())
    assert obs.details[flag] is False


def test_linear_error_flag_needs_monotonicity_on_the_whole_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    """``increasing_in_k`` carries the check to k = 1e300 only if the error increases at every grid step: an error
    curve with one dip (at k in (1e100, 1e101)) must make it False."""
    original = gaussian._linear_error
    monkeypatch.setattr(gaussian, "_linear_error", lambda k: original(k) - (0.1 if 1e100 < k < 1e101 else 0.0))
    obs = gaussian._observe_printed_linear(gaussian.PrintedLinearConfig(), RunContext())
    assert obs.details["increasing_in_k"] is False


def test_maxima_flag_needs_every_estimate_below_its_union_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemmas B.1/B.2: every exceedance frequency is below its union bound. With the bound of the absolute maximum
    set to 0 (a frequency of about 0.1 lies above it) the flag must be False although the one-sided bound holds."""
    original = tl.union_bound
    monkeypatch.setattr(tl, "union_bound", lambda n, absolute: 0.0 if absolute else original(n, absolute))
    obs = gaussian._observe_maxima(gaussian.MaximaConfig(ns=(10,), n_samples=2000), RunContext())
    assert obs.value[1] > 0
    assert obs.details["below_union_bounds"] is False
