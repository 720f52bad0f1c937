"""Mutation audit of the observations of :mod:`verify.claims.lsa.loss`, :mod:`verify.claims.lsa.optimum` and
:mod:`verify.claims.lsa.noisy`: each identity check must see a model that breaks the identity. The LSA forward
pass (or the closed form) is replaced by a deliberately wrong stand-in; the claim must then fail, because the
statement (Eq. 5.1-5.2, the dead blocks, Theorem 5.4.1) says the correct model behaves otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import lsa as nl
from verify.claims import registry
from verify.claims.base import RunContext
from verify.claims.lsa import loss as lo
from verify.claims.lsa import optimum as op

ORIGINAL_FORWARD = nl.lsa_forward


def _verdict(cid: str, obs) -> str:
    claim = registry()[cid]
    cfg = claim.configs["quick"]
    return claim.judge(claim.predict(cfg), obs, cfg)[0]


def test_prediction_error_is_relative_to_the_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """Eq. 5.2 is checked by max |full - other| / max |full|: a forward pass off by a relative 1e-6 must show an
    error of about 1e-6 (far above the 1e-12 tolerance), so that the claim fails."""
    monkeypatch.setattr(lo.nl, "lsa_forward", lambda E, P, K, N: ORIGINAL_FORWARD(E, P, K, N) * (1 + 1e-6))
    cfg = registry()["shi-eq5.2-prediction"].configs["quick"]
    obs = lo._observe_prediction(cfg, RunContext())
    assert max(obs.value) == pytest.approx(1e-6, rel=1e-3)
    assert _verdict("shi-eq5.2-prediction", obs) == "fail"


@pytest.mark.parametrize(
    ("matrix", "entry"),
    [("PV", ("d-1", 0)), ("PV", (0, "d")), ("KQ", (0, "d")), ("KQ", ("d", "d"))],
    ids=["W11^PV last row", "w12^PV", "w12^KQ", "w22^KQ"],
)
def test_a_model_reading_any_dead_block_entry_fails(monkeypatch: pytest.MonkeyPatch, matrix: str, entry) -> None:
    """The claim says W11^PV, w12^PV, w12^KQ and w22^KQ do not affect the prediction. A (wrong) model whose output
    depends on one entry of one of these blocks must show a prediction change, whichever entry it is (the
    perturbation must cover every dead block in full)."""
    cfg = registry()["shi-eq5.1-dead-blocks"].configs["quick"]
    d = len(cfg.Lam)
    i, j = (d - 1 if x == "d-1" else d if x == "d" else x for x in entry)

    def leaky(E, P, K, N):
        M = P if matrix == "PV" else K
        return ORIGINAL_FORWARD(E, P, K, N) + 1e-3 * M[i, j]

    monkeypatch.setattr(lo.nl, "lsa_forward", leaky)
    obs = lo._observe_dead_blocks(cfg, RunContext())
    assert obs.details["prediction_change"] > 0
    assert _verdict("shi-eq5.1-dead-blocks", obs) == "fail"


def test_dead_block_positive_control_needs_both_the_forward_and_the_gradient(monkeypatch: pytest.MonkeyPatch) -> None:
    """The zeros are meaningful only if the same perturbation does move the prediction through a live block: a
    forward pass that ignores every weight (so no change is ever seen) must fail the positive control, whatever
    the autograd gradient says."""
    monkeypatch.setattr(lo.nl, "lsa_forward", lambda E, P, K, N: np.zeros(E.shape[0]))
    cfg = registry()["shi-eq5.1-dead-blocks"].configs["quick"]
    obs = lo._observe_dead_blocks(cfg, RunContext())
    assert obs.details["live_block_grad"] > 0 and obs.details["live_block_change"] == 0
    assert obs.details["live_blocks_respond"] is False
    assert _verdict("shi-eq5.1-dead-blocks", obs) != "pass"


def test_lemma51_symbolic_observes_the_derived_side(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemma 5.1 is checked by comparing the Isserlis derivation (observed) with the stated formula (predicted): the
    observation must be the derived side, so that a wrong statement fails."""
    import sympy

    a = sympy.Symbol("a")
    monkeypatch.setattr(lo, "_lemma51", lambda d: ([3 * a], [2 * a]))
    claim = registry()["shi-lem5.1-symbolic"]
    cfg = claim.configs["quick"]
    obs = lo._observe_lemma51_symbolic(cfg, RunContext())
    assert obs.value == [3 * a]
    assert claim.judge(claim.predict(cfg), obs, cfg)[0] == "fail"


@pytest.mark.parametrize("only_last", [False, True], ids=["every rank", "rank d-1 only"])
def test_projection_invariance_fails_a_full_rank_solution(monkeypatch: pytest.MonkeyPatch, only_last: bool) -> None:
    """At the rank-r optimum the prediction ignores x_q's part orthogonal to the top-r eigenvectors. If the weights
    were the full-rank optimum instead (at every rank 1..d-1, or only at the last one, r = d-1), moving x_q along
    the other eigenvectors changes the prediction by O(1): the observed change must be far above the tolerance there
    and the claim must fail (every rank r = 1..d-1 is checked)."""
    original = nl.closed_form
    cfg = registry()["shi-sec5.4-projection-invariance"].configs["quick"]
    d = len(cfg.Lam)

    def full_rank(L, N, r):
        U, *rest, Q = original(L, N, r)
        wrong = not only_last or r == d - 1
        return (original(L, N, L.shape[0])[0] if wrong else U, *rest, Q)

    monkeypatch.setattr(op.nl, "closed_form", full_rank)
    obs = op._observe_projection_invariance(cfg, RunContext())
    assert len(obs.value) == d - 1
    assert obs.value[-1] > 1e-3
    assert _verdict("shi-sec5.4-projection-invariance", obs) == "fail"


def _monotone_verdict(monkeypatch: pytest.MonkeyPatch, losses=None, stall_at: int | None = None) -> tuple[str, dict]:
    """The monotonicity claim's verdict when L_r is replaced by ``losses`` and/or v*(N) at N = ``stall_at`` by v*
    at the previous N of the sweep (v* not increasing there)."""
    from types import SimpleNamespace

    from theory import lsa as tl

    original_rank_r = tl.optimal_rank_r
    if losses is not None:
        monkeypatch.setattr(op.tl, "optimal_losses", lambda L, N: list(losses))
    if stall_at is not None:
        before = op.N_SWEEP[op.N_SWEEP.index(stall_at) - 1]

        def stalled(L, N, r):
            opt = original_rank_r(L, before if stall_at == N else N, r)
            return SimpleNamespace(v=opt.v, lam=opt.lam)

        monkeypatch.setattr(op.tl, "optimal_rank_r", stalled)
    claim = registry()["shi-thm5.4.1-monotonicity"]
    cfg = claim.configs["quick"]
    obs = op._observe_monotone(cfg, RunContext())
    return claim.judge(claim.predict(cfg), obs, cfg)[0], obs.details


def test_monotonicity_passes_the_exact_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    """Case A's exact L_r and v*(N) satisfy Theorem 5.4.1's monotonicity."""
    assert _monotone_verdict(monkeypatch)[0] == "pass"


def test_monotonicity_needs_strictly_decreasing_losses(monkeypatch: pytest.MonkeyPatch) -> None:
    """L_r is strictly decreasing in r: two equal neighbouring losses must be reported as not strictly decreasing
    and fail the claim."""
    import sympy

    verdict, details = _monotone_verdict(monkeypatch, losses=[sympy.Integer(x) for x in (5, 4, 4, 3, 2)])
    assert details["L_r_strictly_decreasing"] == [True, False, True, True]
    assert verdict == "fail"


def test_monotonicity_needs_v_strictly_increasing_at_every_step_of_n(monkeypatch: pytest.MonkeyPatch) -> None:
    """v_i* increases with N: v* that stays the same from N = 1 to N = 5 (and increases elsewhere) must make
    ``v_increasing_in_N`` False and fail the claim."""
    verdict, details = _monotone_verdict(monkeypatch, stall_at=5)
    assert details["v_increasing_in_N"] is False
    assert verdict == "fail"


def test_noise_tradeoff_losses_are_theorem_542_in_lambdas_own_coordinates() -> None:
    """The tradeoff's loss table is Thm 5.4.2 with s = Q^T w: for a non-diagonal Lambda it must equal the exact
    :func:`theory.lsa.noisy_eval_loss` (which takes w in Lambda's coordinates) at every rank and noise level, and
    the observed best rank must be its argmin (using w itself as s would be right only for a diagonal Lambda)."""
    import sympy

    from theory import lsa as tl
    from verify.claims.lsa import noisy as no
    from verify.claims.lsa.common import LSAConfig

    cfg = LSAConfig(Lam=((3, 1), (1, 2)), N=10, M=4, w=(1, 0), sigmas=(0.0, 1.0, 3.0))
    obs = no._observe_tradeoff(cfg, RunContext())
    L = sympy.Matrix(cfg.Lam)
    for s in cfg.sigmas:
        exact = [float(tl.noisy_eval_loss(L, cfg.N, r, cfg.M, sympy.Rational(str(s)), list(cfg.w))) for r in range(3)]
        assert obs.details["losses"][f"sigma={s}"] == pytest.approx(exact, rel=1e-9)
    assert obs.value == [tl.best_rank(L, cfg.N, cfg.M, sympy.Rational(str(s)), list(cfg.w))[0] for s in cfg.sigmas]
