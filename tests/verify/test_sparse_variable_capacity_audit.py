"""Audit of the Ch. 4 capacity claims' observations (verify/claims/sparse_variable/capacity.py), whose verdicts are
generic judges requiring the flags computed here: Lemma 4.7's ratios never above the bound, Cor. A.7's ||J||_{1,1}
within C_softmax at every T, Prop. 4.8's distinct sign patterns and the smallest weight on the target. Oracles:
numerics' own functions with one value replaced (monkeypatched), so the flag's correct value is known."""

from __future__ import annotations

import numpy as np

from numerics import sparse_variable as ns
from verify.claims import RunContext
from verify.claims.sparse_variable import capacity
from verify.runtime.options import RunOptions

CTX = RunContext(options=RunOptions(progress=False))


def test_lemma47_flags_a_ratio_above_one_and_reports_the_tight_draws(monkeypatch) -> None:
    """A largest ratio of 1.5 breaks the lemma's bound (ratio <= 1): never_exceeds_bound is False; the observed
    values are the eps-tight draws' score and value ratios."""
    real = ns.lemma47_ratios

    def fake(n, rng, T, d, k, eps):
        out = dict(real(n, rng, T, d, k, eps))
        if eps != 1.0:
            out["in"] = 1.5
        return out

    monkeypatch.setattr(ns, "lemma47_ratios", fake)
    obs = capacity._observe_l47(capacity.Lemma47Config(n_random=20), CTX)
    assert obs.details["never_exceeds_bound"] is False and obs.value[1] == 1.5


def test_softmax_flag_reads_every_t(monkeypatch) -> None:
    """||J||_{1,1} above C_softmax = 2 at one T only is outside the corollary's bound."""
    real, calls = ns.softmax_l11, []

    def fake(theta):
        calls.append(1)
        out = np.asarray(real(theta), dtype=float)
        return out + 1.0 if len(calls) == 3 else out  # the second T's random draws

    monkeypatch.setattr(ns, "softmax_l11", fake)
    obs = capacity._observe_softmax(capacity.SoftmaxConfig(Ts=(2, 8), n_random=50), CTX)
    assert obs.details["within_C_softmax"] is False


def test_shattering_counts_distinct_patterns_and_the_smallest_target_weight(monkeypatch) -> None:
    """Duplicate sign patterns count once; one head below the proof's bound breaks target_weight_above_bound."""
    real = ns.shattering_patterns

    def fake(T):
        patterns, w = real(T)
        w = np.array(w, dtype=float)
        if T == 8:  # only the first T has a head below the bound
            w[0] = 0.0
        return np.concatenate([patterns, patterns[:1]]), w

    monkeypatch.setattr(ns, "shattering_patterns", fake)
    cfg = capacity.ShatterConfig(Ts=(8, 50))
    obs = capacity._observe_shatter(cfg, CTX)
    distinct = [len({tuple(r) for r in real(T)[0].astype(int)}) for T in cfg.Ts]
    assert obs.value == distinct == capacity._predict_shatter(cfg)
    weights = obs.details["min_weight_on_target"]
    assert weights[0] == 0.0 and weights[1] >= obs.details["proof_lower_bound"]
    assert obs.details["target_weight_above_bound"] is False
