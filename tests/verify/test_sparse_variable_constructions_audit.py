"""Audit of the verdict logic of verify/claims/sparse_variable/constructions.py: the flags its ``Requiring`` judges
read (``all_within_gamma_over_4``, ``exact_rational_pipeline``, ``within_stated_bounds``).

Each test breaks one case (a target moved by gamma, a level never seen, one exact context wrong, a bound lowered
below the norm it bounds) and checks that the flag turns False: the statements quantify over every case, every
level, every context and every norm.
"""

from __future__ import annotations

import numpy as np
import pytest

from numerics import sparse_variable as ns
from theory import sparse_variable as ts
from verify.claims import RunContext
from verify.claims.sparse_variable import constructions as sc


def test_head_flag_fails_when_one_case_misses_gamma_over_4(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemmas A.19-A.21 promise a (gamma/4)-approximation in every case: moving the target by 1 (>= gamma/4 for
    s = 1) in the T = 9 cases only must make ``all_within_gamma_over_4`` False although the T = 6 cases hold."""
    assert sc._observe_heads(sc.HeadApproxConfig(small_T=(6, 9), large_T=(), s_values=(1,)), RunContext()).details[
        "all_within_gamma_over_4"
    ]
    original = ns.target_values

    def moved(c, b):
        return original(c, b) + (1.0 if c.T == 9 else 0.0)

    monkeypatch.setattr(ns, "target_values", moved)
    obs = sc._observe_heads(sc.HeadApproxConfig(small_T=(6, 9), large_T=(), s_values=(1,)), RunContext())
    assert obs.details["all_within_gamma_over_4"] is False


_REP = sc.RepresentationConfig(symmetric=True, small_T=(5,), large_T=(), s_values=(1, 2), exact_T=5)


def test_representation_flag_needs_every_level_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """``exact_rational_pipeline`` includes ``every_level_seen``: if one level of one case had no input, the worst
    error per level is not known for it and the flag must be False (not True because other levels were seen)."""
    assert sc._observe_rep(_REP, RunContext()).details["exact_rational_pipeline"]
    original = ns.worst_errors_by_level

    def one_level_unseen(*args, **kwargs):
        worst, counts = original(*args, **kwargs)
        counts = np.array(counts)
        counts[0] = 0
        return worst, counts

    monkeypatch.setattr(ns, "worst_errors_by_level", one_level_unseen)
    obs = sc._observe_rep(_REP, RunContext())
    assert obs.details["every_level_seen"] is False
    assert obs.details["exact_rational_pipeline"] is False


def test_representation_flag_needs_every_exact_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact pipeline must equal f on every one of the 2^T contexts: one wrong context (all zeros) makes
    ``exact_rational_pipeline`` False."""
    original = ts.SparseRepresentation.__call__

    def wrong_at_zero(self, b):
        return original(self, b) + (1 if not any(b) else 0)

    monkeypatch.setattr(ts.SparseRepresentation, "__call__", wrong_at_zero)
    obs = sc._observe_rep(_REP, RunContext())
    assert obs.details["exact_contexts_checked"] > 0
    assert obs.details["exact_rational_pipeline"] is False


_NORMS = sc.NormsConfig(Ts=(10,), s_values=(1,), mlp_s=(1,))


def test_head_norms_above_a_lowered_bound_are_violations(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every stated head bound lowered to 0.9 of itself, the norms that attain their bound (||W_Q||_F = R
    among them) exceed it by 11 %, far beyond rounding: ``within_stated_bounds`` must be False."""
    assert sc._observe_norms(_NORMS, RunContext()).details["within_stated_bounds"]
    original = ts.stated_head_bounds
    monkeypatch.setattr(ts, "stated_head_bounds", lambda c: {k: 0.9 * float(v) for k, v in original(c).items()})
    obs = sc._observe_norms(_NORMS, RunContext())
    assert obs.details["within_stated_bounds"] is False
    assert any("W_Q" in v for v in obs.details["violations"])


def test_mlp_output_weight_bound_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemmas A.22/A.23 bound the largest entry of W1, W2 and w: a bound of 0 on w alone must be reported as a
    violation of w (the output layer is not exempt)."""
    original = ts.stated_mlp_bounds
    monkeypatch.setattr(ts, "stated_mlp_bounds", lambda *a, **kw: {**original(*a, **kw), "w": 0})
    obs = sc._observe_norms(_NORMS, RunContext())
    assert obs.details["within_stated_bounds"] is False
    assert obs.details["violations"] and all(v.endswith(" w") for v in obs.details["violations"])
