"""Audit of two proof-step observations of verify/claims/local_signal: Lemma 3.3's windows (lemmas.py) and Lemma
B.12's constant C' (lemB12.py).

Oracles: a hand-made trajectory where b rises while c is below the lemma's edge 1/log^4 k and falls after it (the
lemma says nothing below the edge, so the claim must pass), and the defining equation of C' in the proof,
P_{x ~ N(0, 1)}[|x| < C' |<v_hat, w_*>|] = q/2, checked with scipy's normal CDF.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from verify.claims import RunContext, registry
from verify.claims.local_signal import lemB12, lemmas


def test_lemma33_judges_only_windows_that_start_above_the_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemma 3.3 holds once c >= 1/log^4 k: windows that start below the edge (where b rises here) are not part of
    the statement, so the claim passes on this trajectory; judging them would fail a true lemma."""
    claim = registry()["karp-ch3-lem3.3-b-decreases"]
    cfg = claim.configs["quick"]
    edge, every = 1.0 / math.log(cfg.train.k) ** 4, cfg.train.eval_every
    states = [(0, 0.1 * edge, 0.0, 0.0), (every, 0.5 * edge, 0.0, 0.2), (2 * every, 2 * edge, 0.0, 0.4)]
    states += [(3 * every, 3 * edge, 0.0, 0.3), (4 * every, 4 * edge, 0.0, 0.1)]
    monkeypatch.setattr(lemmas, "_trajectory", lambda cfg_: tuple(states))
    obs = lemmas._observe_b_rate(cfg, RunContext())
    assert [w["from"] for w in obs.details["windows"]] == [2 * every, 3 * every]
    assert claim.judge(claim.predict(cfg), obs, cfg)[0] == "pass"


@pytest.mark.parametrize("q", [0.05, 0.3, 0.9])
def test_lemma_b12_proof_constant_solves_its_defining_equation(q: float) -> None:
    """C' is defined by P[|x| < C' a] = q/2 with a = |<v_hat, w_*>| (v_hat along the sum of the filters open on the
    signal): 2 Phi(C' a) - 1 must equal q/2."""
    w_star = np.array([1.0, 0.0, 0.0])
    w = np.array([[0.6, 0.8, 0.0], [0.3, 0.0, 0.4], [5.0, 5.0, 5.0]])
    res = SimpleNamespace(g_star=1.0, e1_e2=q, open_on_signal=(0, 1))
    c = lemB12.proof_constant(res, w, w_star)
    v = w[0] + w[1]
    a = abs(v @ w_star) / np.linalg.norm(v)
    assert 2 * stats.norm.cdf(c * a) - 1 == pytest.approx(q / 2, rel=1e-9)
    assert math.isnan(lemB12.proof_constant(SimpleNamespace(g_star=1.0, e1_e2=0.0, open_on_signal=(0,)), w, w_star))
