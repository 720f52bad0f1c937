"""Audit of the verdict logic of verify/claims/sparse_variable/lipschitz.py (Lemmas A.14, A.15, A.16, A.24).

The oracles are hand-built ratios, instances where Lemma A.15's bound is attained (derived by hand from the lemma's
statement, :func:`theory.sparse_variable.block_perturbation_bound`'s docstring) and the closed-form truncation
distance of Lemma A.24's extreme score vector.
"""

from __future__ import annotations

import numpy as np
import pytest

from theory import sparse_variable as ts
from verify.claims import RunContext
from verify.claims.sparse_variable import lipschitz as lip


def _identity(a: np.ndarray) -> np.ndarray:
    return a


def test_ratio_observation_observes_the_largest_ratio_and_flags_any_family_above_one() -> None:
    """The observation of a tight family is its largest ratio, and ``never_exceeds_bound`` is False as soon as one
    family (tight or not) has a ratio above 1 + rounding; otherwise a violated bound would pass."""
    obs = lip._ratio_observation({"tight": [0.25, 1.0], "other": [0.5, 1.5]}, ("tight",))
    assert obs.value == [1.0]
    assert obs.details["never_exceeds_bound"] is False
    ok = lip._ratio_observation({"tight": [0.25, 1.0], "other": [0.5, 0.75]}, ("tight",))
    assert ok.details["never_exceeds_bound"] is True


def _shift_instance(V_hat_scale: float = 1.0):
    """One block with W_Q = W_K = 0 (uniform attention), W_V = diag(.5, .2, .2), W_C = diag(.6, .3, .3), sigma the
    identity, small inputs (every projection inactive) and every row of the second input moved by 0.01 e_1."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(4, 3))
    X *= 0.2 / np.linalg.norm(X, axis=1, keepdims=True)
    Xh = X + 0.01 * np.array([1.0, 0.0, 0.0])
    W = {"Q": np.zeros((3, 3)), "K": np.zeros((3, 3)), "V": np.diag([0.5, 0.2, 0.2]), "C": np.diag([0.6, 0.3, 0.3])}
    Wh = {**W, "V": V_hat_scale * W["V"]}
    return X, Xh, W, Wh


def test_a15_bound_is_attained_by_an_equal_shift_of_the_input() -> None:
    """Lemma A.15 with equal weights and B_QK = 0: the block is mean(X) W_V W_C, so a shift of every row by
    0.01 e_1 moves the output by 0.01 * 0.5 * 0.6, which is exactly the bound's L B_C B_V (1 + 4 B_QK) delta. A
    ratio other than 1 means the sides are computed wrongly (e.g. a scaled input gap, which hides violations)."""
    X, Xh, W, Wh = _shift_instance()
    lhs, rhs = lip._a15_sides(X, Xh, W, Wh, _identity)
    assert lhs == pytest.approx(0.01 * 0.5 * 0.6, rel=1e-9)
    assert rhs == pytest.approx(0.01 * 0.5 * 0.6, rel=1e-9)


def test_a15_constants_are_the_norms_of_the_unhatted_weights() -> None:
    """The docstring (and the proof) take B_V, B_QK, B_C from the unhatted weights. With W_V' = 3 W_V and the shifted
    input, Lemma A.15's right side is B_C B_V delta + B_C t_V with B_V = ||W_V||_2 = 0.5, B_C = 0.6,
    t_V = ||(W_V - W_V') ^T g'^T||_{2,inf}; using ||W_V'||_2 = 1.5 instead would loosen the bound."""
    X, Xh, W, Wh = _shift_instance(3.0)
    _, rhs = lip._a15_sides(X, Xh, W, Wh, _identity)
    t_v = float(np.linalg.norm(Xh @ (W["V"] - Wh["V"]), axis=1).max())
    assert rhs == pytest.approx(0.6 * 0.5 * 0.01 + 0.6 * t_v, rel=1e-9)


def test_a14_flag_fails_when_one_head_exceeds_the_sharpened_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """``within_sharpened_constant`` must hold for every head: one head whose worst ratio is far above its constant
    (here 1e6) makes it False, whatever the other heads do."""
    cfg = lip.HeadConfig(qk_norms=(0.0, 1.0), heads_per_norm=1, n_random=2, restarts=0, steps=0)
    found = iter([(1e6, 0), (0.0, 0)])
    monkeypatch.setattr(lip, "_worst_head_ratio", lambda W, cfg, rng: next(found))
    obs = lip._observe_a14(cfg, RunContext())
    assert obs.details["within_sharpened_constant"] is False


def test_a24_flags_a_distance_above_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemma A.24's extreme vector (R on the s kept positions, 0 on the others) has truncation distance
    2 (T - s) / (s e^R + T - s) (kept probabilities e^R/(s e^R + T - s) against 1/s, plus the dropped mass). With the
    printed bound replaced by 3/4 of that distance, the check must report the bound violated (a distance 4/3 of
    the bound is not rounding) and observe at least that distance."""
    T, s, R = 8, 4, 1
    extreme = 2 * (T - s) / (s * np.e**R + T - s)
    assert lip._truncation_distance(np.array([[R] * s + [0] * (T - s)], dtype=float), s)[0] == pytest.approx(extreme)
    monkeypatch.setattr(ts, "softmax_truncation_bound", lambda T_, s_, R_: 0.75 * extreme)
    obs = lip._observe_a24(lip.TruncationConfig(cases=((T, s, R),), n_random=5), RunContext())
    assert obs.value[0] >= extreme * (1 - 1e-12)
    assert obs.details["within_printed_bound"] is False
