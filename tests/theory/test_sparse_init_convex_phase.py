"""Lemma C.9's step count (Edelman thesis App. C.2.2): the corrected count against a brute-force scan of its
condition and the proof's bound, the printed count against the same, and the symmetry psi -> c psi, B -> B/c."""

from __future__ import annotations

import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import sparse_init as tsi


def _proof_last_term(psi_norm: float, B: float, eps: float, T: int) -> float:
    """The proof's last term with lambda = eps/B^2, 100 B^2 (||psi|| + eps/B)^2 (1 + ln T)/(eps T), written out."""
    return 100 * B**2 * (psi_norm + eps / B) ** 2 * (1 + math.log(T)) / (eps * T)


@pytest.mark.parametrize(("psi_norm", "B", "eps"), [(0.1, 1.0, 0.4), (1.0, 1.0, 0.45), (0.5, 0.5, 0.3)])
def test_corrected_steps_equal_a_brute_force_scan_of_the_proofs_last_term(psi_norm, B, eps):
    T = tsi.lemma_c9_steps_corrected(psi_norm, B, eps)
    first = next(t for t in range(1, 10**6) if _proof_last_term(psi_norm, B, eps, t) <= eps)
    assert first == T


@settings(max_examples=40, deadline=None)
@given(
    st.floats(0.05, 20.0),
    st.floats(0.05, 200.0),
    st.floats(0.01, 0.49),
)
def test_corrected_steps_are_minimal(psi_norm, B, eps):
    T = tsi.lemma_c9_steps_corrected(psi_norm, B, eps)
    target = 100 * (B * psi_norm + eps) ** 2 / eps**2
    assert T / (1 + math.log(T)) >= target
    assert T == 1 or (T - 1) / (1 + math.log(T - 1)) < target


@pytest.mark.parametrize("c", [2.0**-6, 2.0**-3, 2.0**3, 2.0**6])
def test_corrected_count_is_invariant_under_rescaling_and_the_printed_count_is_not(c):
    """psi -> c psi, B -> B/c leaves the proof's GD (and B||psi||) unchanged: so does the corrected count (exact in
    binary floating point for powers of 2); the printed right-hand side scales by c^2."""
    psi_norm, B, eps = 1.0, 181.0, 0.3
    assert tsi.lemma_c9_steps_corrected(c * psi_norm, B / c, eps) == tsi.lemma_c9_steps_corrected(psi_norm, B, eps)
    assert tsi.lemma_c9_sample_size(c * psi_norm, B / c, eps, "0.05") == tsi.lemma_c9_sample_size(
        psi_norm, B, eps, "0.05"
    )
    assert tsi.lemma_c9_steps(c * psi_norm, B / c, eps) != tsi.lemma_c9_steps(psi_norm, B, eps)


def test_printed_count_is_about_B_squared_too_few_on_the_lemma_c6_features():
    """k = 4, eps = 0.3 (the counterexample): the printed T = 11,033 (as the docs cite); the corrected right-hand side
    is about B_4^2 = 1.4e8 times the printed one (the count itself more, with its log), and the proof's bound at the
    printed T is far above the 4 eps the proof needs."""
    c = tsi.lemma_c6_constants(4)
    B, p = float(c["B"]), float(c["psi_norm"])
    printed, corrected = tsi.lemma_c9_steps(p, B, 0.3), tsi.lemma_c9_steps_corrected(p, B, 0.3)
    assert printed == 11_033
    ratio = ((B * p + 0.3) / 0.3) ** 2 / ((p + 1 / B) / 0.3) ** 2
    assert 0.99 * B**2 < ratio < 1.01 * B**2
    assert B**2 < corrected / printed < 4 * B**2
    m = tsi.lemma_c9_sample_size(p, B, 0.3, "0.05")
    assert tsi.lemma_c9_objective_bound(p, B, 0.3, "0.05", m, printed) > 10**6 * 4 * 0.3
    assert tsi.lemma_c9_objective_bound(p, B, 0.3, "0.05", m, corrected) <= 4 * 0.3


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 20.0), st.floats(0.05, 200.0), st.floats(0.01, 0.49), st.sampled_from(["0.01", "0.05", "0.2"]))
def test_at_the_corrected_count_and_the_lemmas_m_the_bound_is_at_most_4_eps(psi_norm, B, eps, delta):
    """The proof's "we have L(w_T) <= 4 eps": 2 eps + eps/4 (m) + eps/2 (lambda B^2/2) + eps (T) = 3.75 eps."""
    T = tsi.lemma_c9_steps_corrected(psi_norm, B, eps)
    m = tsi.lemma_c9_sample_size(psi_norm, B, eps, delta)
    assert tsi.lemma_c9_objective_bound(psi_norm, B, eps, delta, m, T) <= 3.75 * eps * (1 + 1e-12)


def test_objective_bound_equals_the_formula_evaluated_exactly():
    psi_norm, B, eps, delta, m, T = sympy.Rational(3, 2), sympy.Integer(7), sympy.Rational(1, 5), 0.05, 1234, 5678
    lam = eps / B**2
    exact = (
        2 * eps
        + B * psi_norm * sympy.sqrt(2 * sympy.log(2 / sympy.Rational(1, 20))) / sympy.sqrt(m)
        + lam * B**2 / 2
        + 100 * (psi_norm + eps / B) ** 2 * (1 + sympy.log(T)) / (lam * T)
    )
    got = tsi.lemma_c9_objective_bound(1.5, 7.0, 0.2, delta, m, T)
    assert got == pytest.approx(float(exact), rel=1e-12)
    assert tsi.lemma_c9_objective_bound(1.5, 7.0, 0.2, delta, m, T, lam=1e-3) == pytest.approx(
        float(exact - lam * B**2 / 2 - 100 * (psi_norm + eps / B) ** 2 * (1 + sympy.log(T)) / (lam * T))
        + 1e-3 * 49 / 2
        + 100 * (1.5 + 0.2 / 7) ** 2 * (1 + math.log(T)) / (1e-3 * T),
        rel=1e-12,
    )


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0.0, 1.0, 0.1), "psi_norm > 0"),
        ((1.0, -1.0, 0.1), "B > 0"),
        ((1.0, 1.0, 0.5), "eps in"),
        ((1.0, 1.0, float("nan")), "eps"),
        ((1.0, 1e149, 0.1), "above"),
        ((1.0, 1e200, 0.1), "floating-point range"),
    ],
)
def test_corrected_steps_reject_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        tsi.lemma_c9_steps_corrected(*args)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"m": 0},
        {"T": 0},
        {"T": 2.5},
        {"delta": "1.5"},
        {"lam": 0.0},
        {"eps": 0.7},
    ],
)
def test_objective_bound_rejects_bad_input(kwargs):
    args = {"psi_norm": 1.0, "B": 1.0, "eps": 0.1, "delta": "0.05", "m": 100, "T": 100} | kwargs
    with pytest.raises(ValueError):
        tsi.lemma_c9_objective_bound(**args)


@pytest.mark.parametrize(("n", "k"), [(2, 2), (4, 2), (4, 4), (6, 4), (7, 6)])
def test_numerics_lemma_c6_features_match_the_exact_features(n, k):
    """numerics.sparse_init.lemma_c6_features (built from the lemma's formula) equals the exact feature matrix of
    theory.interpolation.c6_features at every point (row s_x = sum_{i in S} x_i), and its labels are chi_S."""
    import numpy as np

    from numerics.sparse_init import lemma_c6_features
    from numerics.walsh import cube
    from theory.interpolation import c6_features

    psi, chi = lemma_c6_features(n, k)
    exact = c6_features(k)
    X = cube(n)
    for x, row, label in zip(X, psi, chi):
        s = int(x[:k].sum())
        assert row.tolist() == pytest.approx([float(v) for v in exact["Phi"].row((s + k) // 2)], abs=1e-15)
        assert label == float(exact["target"][(s + k) // 2]) == float(np.prod(x[:k]))


@pytest.mark.parametrize(("n", "k"), [(4, 3), (4, 0), (3, 4), (17, 2)])
def test_numerics_lemma_c6_features_reject_bad_input(n, k):
    from numerics.sparse_init import lemma_c6_features

    with pytest.raises(ValueError):
        lemma_c6_features(n, k)


@pytest.mark.parametrize(("B", "eps"), [(1.0, 0.1), (181.0, 0.25), (3.5, 0.3)])
def test_lemma_c9_conclusion_is_the_statement_and_the_proofs_norm(B, eps):
    """L_D <= 7 eps (statement) and ||w_T||^2 <= 8 B^2 (proof), against exact sympy values."""
    import sympy

    got = tsi.lemma_c9_conclusion(B, eps)
    assert got["risk_bound"] == pytest.approx(float(7 * sympy.Rational(str(eps))), rel=1e-15)
    assert got["norm_bound"] == pytest.approx(float(sympy.sqrt(8) * sympy.Rational(str(B))), rel=1e-15)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), True])
def test_lemma_c9_conclusion_refuses_bad_input(bad):
    with pytest.raises(ValueError):
        tsi.lemma_c9_conclusion(bad, 0.1)
    with pytest.raises(ValueError):
        tsi.lemma_c9_conclusion(1.0, bad)
