"""Mutation audit of the observations of :mod:`verify.claims.boolean.spectra` and :mod:`verify.claims.boolean.sq`:
the exact comparisons and the entries they read, checked against hand-built gaps, brute-force Fourier coefficients
(:func:`theory.boolean.fourier_coefficient`, straight from the definition) and the lemmas' hypotheses."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from theory import boolean as tb
from verify.claims.base import RunContext
from verify.claims.boolean import spectra, sq


def _gap_bound_flag(monkeypatch: pytest.MonkeyPatch, cases, scale: dict) -> bool:
    """``bound_holds_exactly`` of the gap-bound observation when the exact gap at (n, k) is ``scale[(n, k)]`` times
    Lemma B.2's bound 3/100 (n-1)^(-(k-1)/2) (n - 1 a perfect square, so the bound is rational)."""

    def gap(n: int, k: int) -> Fraction:
        root = math.isqrt(n - 1)
        assert root * root == n - 1 and k == 2
        return scale[(n, k)] * Fraction(3, 100) / root

    monkeypatch.setattr(spectra.tb, "majority_gap", gap)
    obs = spectra._observe_gap_exact(spectra.CasesConfig(tuple(cases)), RunContext())
    return obs.details["bound_holds_exactly"]


def test_gap_bound_exact_check_is_the_lemma_inequality(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemma B.2: gap >= 0.03 (n-1)^(-(k-1)/2). The exact flag must be True at equality and just above, False just
    below, and False when any one case is below (a flag read with the wrong power of n - 1, a looser constant or
    ``any`` over the cases would let a violated bound pass)."""
    tiny = Fraction(1, 10**6)
    assert _gap_bound_flag(monkeypatch, [(37, 2)], {(37, 2): Fraction(1)}) is True
    assert _gap_bound_flag(monkeypatch, [(37, 2)], {(37, 2): 1 + tiny}) is True
    assert _gap_bound_flag(monkeypatch, [(37, 2)], {(37, 2): 1 - tiny}) is False
    assert _gap_bound_flag(monkeypatch, [(65, 2)], {(65, 2): Fraction(9, 10)}) is False
    both = {(37, 2): Fraction(2), (65, 2): 1 - tiny}
    assert _gap_bound_flag(monkeypatch, [(37, 2), (65, 2)], both) is False


@pytest.mark.parametrize(("m", "k"), [(4, 0), (8, 2), (6, 2)])
def test_half_as_printed_observes_the_coefficient_at_the_stated_level(m: int, k: int) -> None:
    """The refutation of Lemma C.12 as printed must compare the printed value with Half_m at |T| = k (T = the first
    k bits), computed here from the definition 2^-m sum_x Half(x) chi_T(x); reading another level would refute the
    lemma with a value it does not state."""
    obs = spectra._observe_half_printed(spectra.CasesConfig(((m, k),)), RunContext())
    assert obs.value == tb.fourier_coefficient(tb.half, m, tuple(range(k)))


def test_printed_support_bound_is_judged_only_under_its_hypothesis() -> None:
    """Lemma C.2's printed bound (s/2n)^k is stated for 4k < s: the judged points must be every grid point (the
    corrected bound) plus exactly the points with 4k < s, not the boundary 4k = s (where the lemma says nothing)."""
    cases = ((8, 1, 4), (8, 1, 5), (12, 2, 8), (12, 2, 9), (5, 0, 0), (5, 0, 1))
    pairs = spectra._c2_bounds(spectra.CasesConfig(cases))
    assert [c for c, _ in pairs[: len(cases)]] == list(cases)
    assert [c for c, _ in pairs[len(cases) :]] == [(8, 1, 5), (12, 2, 9), (5, 0, 1)]
    assert [b for _, b in pairs[len(cases) :]] == [
        tb.lemma_c2_bound_as_printed(*c) for c in [(8, 1, 5), (12, 2, 9), (5, 0, 1)]
    ]


def test_support_probability_counts_supersets_of_the_prefix() -> None:
    """P([k] in supp(w)) for a uniform s-subset of [n] is C(n-k, s-k)/C(n, s); at k = s it is 1/C(n, s), which a
    strict-superset count would make 0."""
    from math import comb

    for n, k, s in [(5, 2, 2), (6, 3, 3), (6, 1, 4), (4, 0, 2)]:
        assert spectra._support_probability(n, k, s) == Fraction(comb(n - k, s - k), comb(n, s))


def test_sq_spread_reports_the_largest_partial_derivative() -> None:
    """Lemma C.1 assumes every partial derivative is in [-1, 1]; the observation's ``largest_partial_derivative`` is
    max_i max_x |d_i h(x)|. A model h = 2 x_1 (derivative 2 at every x) and a parameter with derivative 1/2 must
    report 2, and the lemma's assumption must then read as violated."""
    n, k = 3, 1
    X = np.array([[1 if (a >> j) & 1 == 0 else -1 for j in range(n)] for a in range(2**n)], dtype=np.int64)
    h = 2 * X[:, 0]
    grads = np.stack([X[:, 0] * 2, X[:, 1]])  # d/dtheta_0 = 2 x_1, d/dtheta_1 = x_2 / 2
    dens = np.array([1, 2])
    _, largest = sq._spread(h, 1, grads, dens, n, k)
    assert largest == 2


def test_sq_observation_flags_an_unbounded_derivative(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a model whose derivative reaches 3/2 (outside the lemma's hypothesis) the observation must say the
    gradients are not bounded by 1, and a model whose derivative reaches exactly 1 (the parity-feature model) must
    say they are (the bound is inclusive)."""
    cfg = sq.SQVarianceConfig(cases=((3, 1),), width=2)
    assert sq._observe(cfg, RunContext()).details["gradients_bounded_by_1"] is True

    original = sq._parity_feature_model

    def steep(n: int, k: int):
        h, den, grads, dens = original(n, k)
        return h, den, grads * 3, dens * 2  # derivatives 3/2 chi_T and 3/2 x_1

    monkeypatch.setattr(sq, "_parity_feature_model", steep)
    details = sq._observe(cfg, RunContext()).details
    assert details["gradients_bounded_by_1"] is False
    assert Fraction(details["largest_partial_derivative"]) == Fraction(3, 2)


def test_majority_cases_cover_every_level_up_to_n() -> None:
    """Lemma B.1 gives Maj_n(k) for every 0 <= k <= n: the grid must include the top level k = n (the full set)."""
    assert set(spectra._majority_cases(range(1, 4))) == {(n, k) for n in range(1, 4) for k in range(n + 1)}


def test_first_step_gradient_draws_both_signs() -> None:
    """Lemma B.3 is stated for every w in {+-1}^n: the draws must be sign vectors with both signs present (an
    all-ones w checks one point only) and biases in (-1, 1)."""
    draws = list(spectra._b3_draws(spectra.NeuronDrawsConfig(((9, 2), (11, 4)), draws=3)))
    assert all(set(w) <= {-1, 1} and len(w) == n for n, _, w, _ in draws)
    assert any(-1 in w for *_, w, _ in draws) and any(1 in w for *_, w, _ in draws)
    assert all(-1 < b < 1 for *_, b in draws)


def test_first_step_gradient_observes_the_measured_bias_gradient(monkeypatch: pytest.MonkeyPatch) -> None:
    """The observation's bias entry must be the measured E[grad_b] (Lemma B.3 predicts 0): a measured 1/3 must
    appear after the weight gradient of its draw, so that a nonzero bias gradient fails the claim."""

    def fake(w, b, S):
        return [Fraction(0)] * len(w), Fraction(1, 3)

    monkeypatch.setattr(spectra.nw, "population_gradient_exact", fake)
    cfg = spectra.NeuronDrawsConfig(((9, 2),), draws=1)
    assert spectra._observe_b3(cfg, RunContext()).value == [Fraction(0)] * 9 + [Fraction(1, 3)]


def test_thm817_smallest_admissible_n_is_where_the_condition_starts_to_hold() -> None:
    """Theorem 8.17's condition 8 T d^2/sqrt(n) <= 2^{-2T} holds iff n >= 64 T^2 d^4 16^T: at the observed smallest
    admissible n it holds, one below it fails (the recorded ``condition_fails_below`` must be True), and the
    bound there is at most 1."""
    from sympy import sympify

    from numerics import looped as nl
    from theory import looped as tl
    from verify.claims.looped import comparison as lcmp

    cfg = lcmp.Thm817Config(Ts=(1, 2, 3), ds=(1, 4))
    obs = lcmp._observe(cfg, RunContext())
    assert obs.details["condition_fails_below"] is True
    n_min = obs.value[: len(cfg.Ts) * len(cfg.ds)]
    assert n_min == [64 * T**2 * d**4 * 16**T for T in cfg.Ts for d in cfg.ds]
    assert all(
        nl.thm_8_17_condition_holds(T, d, n) for (T, d), n in zip([(T, d) for T in cfg.Ts for d in cfg.ds], n_min)
    )
    assert all(sympify(b) <= 1 for b in obs.details["bound_at_smallest_admissible_n"])
    assert tl.thm_8_17_min_examples(1, 4) == 262144
