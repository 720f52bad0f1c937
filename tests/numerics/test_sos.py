"""Tests of numerics.sos: gradings, the margin polynomials, the SOS relaxation and its rigorous bound.

Oracles: the analytic gradient of the single-neuron objective (``numerics.single_neuron``: dPsi/dw = P(u)), brute-force
group actions from Cayley tables, random sampling and multi-start L-BFGS on the unit sphere (the true maximum is at
least every sampled value, so a certified bound below a sample is wrong), forms with a known maximum, the Motzkin
form (non-negative but not a sum of squares: the first level is provably loose there), and gamma* from
``theory`` (the relaxation is tight for the max-margin tasks; docs/certificates.md). Tolerances: identities of
polynomials 1e-12 relative; certified bounds 1e-8 relative to gamma* (solver tolerances are 1e-10).
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from numerics import sos
from numerics.groups import GroupTask, character_lp, class_weights
from numerics.modular import ModularTask
from numerics.parity import SparseParityTask
from numerics.single_neuron import class_weighted_objective, maximize_single_neuron
from theory import finite_groups as fg
from theory import groups as tg
from theory._checks import InputError
from theory.modular import max_margin
from theory.parity import max_margin as parity_max_margin

RTOL = 1e-8


def evaluate_form(form: sos.Form, z: np.ndarray) -> complex:
    return complex(np.sum(form.coefficients * np.prod(z[None, :] ** form.exponents, axis=1)))


def evaluate_P(exps: np.ndarray, P: np.ndarray, z: np.ndarray) -> np.ndarray:
    return (np.prod(z[None, :] ** exps, axis=1)[:, None] * P).sum(axis=0)


def real_form(exps: list[tuple[int, ...]], coefs: list[float]) -> sos.Form:
    return sos.Form(np.array(exps, dtype=np.int16), np.array(coefs, dtype=np.complex128))


def sphere_max(form: sos.Form, n: int, starts: int = 20, seed: int = 0) -> float:
    """Multi-start local maximum of a real form on the unit sphere (a lower estimate of the true maximum)."""
    rng = np.random.default_rng(seed)

    def neg(x: np.ndarray) -> float:
        u = x / np.linalg.norm(x)
        return -evaluate_form(form, u).real

    return max(-minimize(neg, rng.standard_normal(n), method="BFGS").fun for _ in range(starts))


# ------------------------------------------------------------------------------------------- gradings


@pytest.mark.parametrize("grading", [sos.modular_grading(5, 2), sos.modular_grading(3, 3), sos.group_grading("S3")])
def test_grading_basis_is_unitary_and_closed_under_conjugation(grading):
    n = grading.n
    np.testing.assert_allclose(grading.V.conj().T @ grading.V, np.eye(n), atol=1e-12)
    np.testing.assert_allclose(grading.V.conj(), grading.V[:, grading.conj], atol=1e-12)
    assert np.all((grading.weights + grading.weights[grading.conj]) % np.array(grading.moduli) == 0)


def _translation_matrices(name: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Brute force from the Cayley table: for every (g, h) in A x A, the permutation of (u, v) given by
    u(a) -> u(g^-1 a), v(b) -> v(b h^-1), and the element's exponent vector."""
    G = fg.group(name)
    T = np.asarray(G.table)
    inv = np.asarray(G.inverse)
    gens, ords = sos._abelian_subgroup(G)
    e = int(np.flatnonzero((np.arange(G.order) == T).all(axis=1))[0])
    out = []
    for s in np.ndindex(*(tuple(ords) * 2)):
        g = h = e
        for gen, t in zip(gens, s[: len(gens)]):
            for _ in range(t):
                g = T[g, gen]
        for gen, t in zip(gens, s[len(gens) :]):
            for _ in range(t):
                h = T[h, gen]
        N = G.order
        Pm = np.zeros((2 * N, 2 * N))
        for a in range(N):
            Pm[a, T[inv[g], a]] = 1  # (Pm u)(a) = u(g^-1 a)
            Pm[N + a, N + T[a, inv[h]]] = 1  # v(a h^-1)
        out.append((Pm, np.array(s)))
    return out


@pytest.mark.parametrize("name", ["S3", "D4", "Z2^3"])
def test_group_grading_diagonalises_the_translations(name):
    """z(Pm u) = exp(-2 pi i wt . s / n) z(u) for every translation (the defining property of a grading)."""
    grading = sos.group_grading(name)
    mod = np.array(grading.moduli)
    u = np.random.default_rng(0).standard_normal(grading.n)
    z = grading.V.conj().T @ u
    for Pm, s in _translation_matrices(name):
        z2 = grading.V.conj().T @ (Pm @ u)
        np.testing.assert_allclose(z2, np.exp(-2j * np.pi * (grading.weights * s / mod).sum(axis=1)) * z, atol=1e-12)


def test_abelian_subgroups():
    orders = {name: sorted(sos._abelian_subgroup(fg.group(name))[1]) for name in ("S3", "D4", "D5", "Z2^3")}
    assert orders == {"S3": [3], "D4": [4], "D5": [5], "Z2^3": [2, 2, 2]}


def test_bad_gradings_are_refused():
    with pytest.raises(ValueError, match="unitary"):
        sos.Grading(2 * np.eye(2), np.zeros((2, 1)), (1,), "x")
    with pytest.raises(ValueError, match="opposite weight"):
        sos.Grading(np.eye(2), np.array([[1], [1]]), (3,), "x")
    with pytest.raises(ValueError, match="cover every coordinate"):
        sos.orbit_grading(4, [(np.arange(3), 0)], (3,), "x")


# ------------------------------------------------------------------------------------------- polynomials


@pytest.mark.parametrize(
    "task,degree,grading",
    [
        (ModularTask(5, 2), 2, sos.modular_grading(5, 2)),
        (ModularTask(3, 3), 3, sos.modular_grading(3, 3)),
        (SparseParityTask(5, (0, 1)), 2, sos.sign_grading(5)),
        (GroupTask("S3"), 2, sos.group_grading("S3")),
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_margin_polynomials_are_the_w_gradient(task, degree, grading, weighted):
    """P(u) = dPsi/dw (class_weighted_objective) at random u, in the grading's variables z = V^H u, and F = ||P||^2."""
    rng = np.random.default_rng(1)
    Q = None
    if weighted:
        _, labels = task.batch(0, task.n_points)
        Q = rng.random((task.n_points, task.n_classes))
        Q[np.arange(task.n_points), labels] = 0
        Q /= Q.sum()
    _, exps, P = sos.margin_polynomials(task, degree, grading, Q)
    F = sos.squared_norm_form(exps, P)
    for _ in range(3):
        U = rng.standard_normal((task.n_blocks, task.block_size))
        _, _, grad_w = class_weighted_objective(U, np.zeros(task.n_classes), task, degree, Q)
        z = grading.V.conj().T @ U.ravel()
        np.testing.assert_allclose(evaluate_P(exps, P, z), grad_w, rtol=1e-10, atol=1e-13 * np.abs(grad_w).max())
        assert abs(evaluate_form(F, z) - grad_w @ grad_w) <= 1e-10 * (grad_w @ grad_w)


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_output_layer_factor_is_the_maximum_over_the_split(degree):
    s = np.linspace(0, 1, 200_001)
    brute = float(np.max(s * (1 - s**2) ** (degree / 2)))
    assert abs(sos.output_layer_factor(degree) - brute) <= 1e-9


def test_monomials_count():
    idx, exps = sos.monomials(6, 3)
    assert len(idx) == math.comb(8, 3) and np.all(exps.sum(axis=1) == 3)


# ------------------------------------------------------------------------------------------- the SDP


def test_known_maxima_are_certified():
    """u1^2 u2^2 has maximum 1/4 on the circle; 3 ||u||^4 has maximum 3; a negative definite form has maximum < 0."""
    r = sos.sos_sphere_bound(real_form([(2, 2)], [1.0]))
    assert 0.25 <= r.bound <= 0.25 + 1e-8 and r.relative_gap <= 1e-7
    r = sos.sos_sphere_bound(real_form([(4, 0), (2, 2), (0, 4)], [3.0, 6.0, 3.0]))
    assert 3 <= r.bound <= 3 + 1e-8
    r = sos.sos_sphere_bound(real_form([(2, 0), (0, 2)], [-1.0, -2.0]))
    assert -1 <= r.bound <= -1 + 1e-8


def test_motzkin_form_shows_a_loose_relaxation():
    """-M, M = x^4 y^2 + x^2 y^4 + z^6 - 3 x^2 y^2 z^2 >= 0 (Motzkin), has maximum 0 on the sphere, but M is not a sum
    of squares, so the first level must return a bound strictly above 0: the relaxation is not always tight."""
    form = real_form([(4, 2, 0), (2, 4, 0), (0, 0, 6), (2, 2, 2)], [-1.0, -1.0, -1.0, 3.0])
    r = sos.sos_sphere_bound(form)
    assert sphere_max(form, 3) <= 1e-12
    assert r.bound >= 1e-4  # loose (the exact first-level value is about 1.1e-3)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 4))
def test_bound_is_never_below_a_sampled_value(seed, n):
    """Rigor: for random quartic forms the certified bound is at least the best local maximum found."""
    rng = np.random.default_rng(seed)
    _, exps = sos.monomials(n, 4)
    form = sos.Form(exps, rng.standard_normal(len(exps)).astype(np.complex128))
    r = sos.sos_sphere_bound(form)
    assert r.bound >= sphere_max(form, n, starts=8, seed=seed) - 1e-12 * np.abs(form.coefficients).sum()


def test_crude_solve_is_still_a_bound():
    """A solver stopped far from optimal (SCS, eps 1e-2, 50 iterations) gives a looser but still valid bound: the
    correction lambda_min / ||R||_1 of step 4 covers the inaccuracy."""
    form = real_form([(2, 2, 0), (0, 2, 2), (1, 1, 2)], [1.0, 1.0, 0.5])
    exact = sphere_max(form, 3)
    crude = sos.sos_sphere_bound(
        form, solver="SCS", solver_options={"SCS": {"eps_abs": 1e-2, "eps_rel": 1e-2, "max_iters": 50}}
    )
    assert crude.bound >= exact - 1e-12


@pytest.mark.parametrize(
    "task,degree,grading,gamma",
    [
        (ModularTask(5, 2), 2, sos.modular_grading(5, 2), float(max_margin(5, 2))),
        (ModularTask(7, 2), 2, sos.modular_grading(7, 2), float(max_margin(7, 2))),
        (SparseParityTask(6, (0, 1, 2)), 3, sos.sign_grading(6), float(parity_max_margin(3))),
    ],
)
def test_single_neuron_bound_is_tight_for_the_max_margin_tasks(task, degree, grading, gamma):
    """Uniform q and tau: the certified bound equals gamma* (Shi Lemma C.15, Edelman Thm 7.8) from above."""
    b = sos.single_neuron_sdp_bound(task, degree, grading)
    assert gamma * (1 - 1e-12) <= b.bound <= gamma * (1 + RTOL)
    assert abs(b.moment_value - gamma) <= RTOL * gamma and b.sos.relative_gap <= 1e-7
    assert b.sos.normalization_residual <= 1e-7 and b.sos.moment_min_eig >= -1e-6
    assert b.sos.solver == "CLARABEL" and b.sos.attempts == ()


def test_group_bound_under_the_lp_dual_tau():
    """S3 with the character LP's dual tau (Edelman App. D.9.2): bound = gamma*(S3) (Thm 7.9)."""
    Q = class_weights("S3", character_lp("S3").class_tau.tolist())
    b = sos.single_neuron_sdp_bound(GroupTask("S3"), 2, sos.group_grading("S3"), Q)
    g = float(sympy.N(tg.max_margin("S3"), 30))
    assert g * (1 - 1e-12) <= b.bound <= g * (1 + RTOL)


def test_blocks_shrink_the_program_and_agree_with_one_block():
    """Same relaxation with and without the Fourier blocks (Z_3, k = 2): equal bounds, a much smaller program."""
    task = ModularTask(3, 2)
    blocked = sos.single_neuron_sdp_bound(task, 2, sos.modular_grading(3, 2))
    plain = sos.single_neuron_sdp_bound(task, 2)
    assert abs(blocked.bound - plain.bound) <= RTOL * plain.bound
    assert plain.sos.size.largest_block == plain.sos.size.n_monomials == math.comb(7, 2)
    assert blocked.sos.size.largest_block < plain.sos.size.largest_block / 5
    assert blocked.sos.size.n_scalars < plain.sos.size.n_scalars / 20


def test_a_grading_that_is_no_symmetry_gives_a_valid_loose_bound():
    """A random weighting breaks the translation symmetry: the non-invariant part of F stays in the residual, so the
    bound is still at least the multi-start maximum of Psi_Q (never silently wrong)."""
    task = ModularTask(3, 2)
    rng = np.random.default_rng(2)
    _, labels = task.batch(0, task.n_points)
    Q = rng.random((task.n_points, 3))
    Q[np.arange(task.n_points), labels] = 0
    Q /= Q.sum()
    b = sos.single_neuron_sdp_bound(task, 2, sos.modular_grading(3, 2), Q)
    heuristic = maximize_single_neuron(task, 2, Q=Q, n_starts=3, maxiter=300).value
    assert b.sos.invariance_defect > 1e-6
    assert b.bound >= heuristic * (1 - 1e-12)
    assert sos.single_neuron_sdp_bound(task, 2, None, Q).bound >= heuristic * (1 - 1e-12)


# ------------------------------------------------------------------------------------------- failures, bad input


def _failing(fail: set[str]):
    original = cp.Problem.solve

    def solve(self, *args, solver=None, **kwargs):
        if solver in fail:
            raise cp.error.SolverError(f"forced failure of {solver}")
        return original(self, *args, solver=solver, **kwargs)

    return solve


def test_falls_back_to_scs(monkeypatch):
    monkeypatch.setattr(cp.Problem, "solve", _failing({"CLARABEL"}))
    r = sos.sos_sphere_bound(real_form([(2, 2)], [1.0]))
    assert r.solver == "SCS" and r.attempts[0].startswith("CLARABEL") and 0.25 <= r.bound <= 0.25 + 1e-6


def test_raises_when_every_solver_fails(monkeypatch):
    monkeypatch.setattr(cp.Problem, "solve", _failing({"CLARABEL", "SCS"}))
    with pytest.raises(sos.SOSError, match="every solver"):
        sos.sos_sphere_bound(real_form([(2, 2)], [1.0]))


def test_bad_input():
    with pytest.raises(ValueError, match="even degree"):
        sos.sos_sphere_bound(real_form([(2, 1)], [1.0]))
    with pytest.raises(ValueError, match="grading"):
        sos.sos_sphere_bound(real_form([(2, 2)], [1.0]), sos.trivial_grading(3))
    with pytest.raises(ValueError, match="max_block"):
        sos.single_neuron_sdp_bound(ModularTask(5, 2), 2, max_block=10)
    with pytest.raises(ValueError, match="degree"):
        sos.margin_polynomials(ModularTask(5, 2), 0, sos.modular_grading(5, 2))
    with pytest.raises(ValueError, match="k d"):
        sos.margin_polynomials(ModularTask(5, 2), 2, sos.modular_grading(7, 2))
    with pytest.raises(ValueError, match="MAX_PRODUCTS"):
        sos.margin_polynomials(ModularTask(31, 3), 3, sos.modular_grading(31, 3))


def test_sizes_without_solving():
    task = ModularTask(5, 3)
    _, exps, P = sos.margin_polynomials(task, 3, sos.modular_grading(5, 3))
    F = sos.squared_norm_form(exps, P)
    blocked, plain = sos.sdp_size(F, sos.modular_grading(5, 3)), sos.sdp_size(F)
    assert blocked.n_vars == plain.n_vars == 15
    assert blocked.n_used == 12 and blocked.largest_block == 16  # the DC coordinates do not enter F
    assert plain.n_used == 12 and plain.largest_block == math.comb(14, 3)  # one block of all cubic monomials
    assert plain.dense_scaling_entries > 1000 * blocked.dense_scaling_entries


def test_result_fields_are_plain_floats():
    """SOSResult.bound, rounding_pad and correction came back as numpy.float64 although typed float."""
    r = sos.sos_sphere_bound(real_form([(2, 2)], [1.0]))
    for name in (
        "bound",
        "value",
        "dual_value",
        "gap",
        "residual_l1",
        "gram_min_eig",
        "moment_min_eig",
        "rounding_pad",
    ):
        assert type(getattr(r, name)) is float, name
    assert type(r.correction) is float and type(r.relative_gap) is float
    assert r.correction == r.bound - r.value


def test_sizes_are_refused_before_the_work():
    from theory._checks import LimitError

    for call, param in [
        (lambda: sos.trivial_grading(10**9), "n"),
        (lambda: sos.sign_grading(10**400), "n"),
        (lambda: sos.modular_grading(10**6, 3), "p"),
        (lambda: sos.monomials(2, 10**9), "degree"),
        (lambda: sos.monomials(10**9, 2), "n"),
        (lambda: sos.margin_polynomials(ModularTask(31, 3), 10**400, sos.modular_grading(31, 3)), "degree"),
    ]:
        with pytest.raises(LimitError) as info:
            call()
        assert info.value.param == param and str(info.value).startswith(f"{param} = ")


@pytest.mark.parametrize("degree", [1, 2, 2.5, 7, 10**6, 10**12, 10**15, 10**15 + 1, 3 * 10**17, 10**40, 10**400])
def test_output_layer_factor_at_huge_degrees_matches_arbitrary_precision(degree):
    """Both branches of output_layer_factor (up to deg = 10^15, and the limit e^(-1/2) above) against the formula
    nu^(-1/2) (deg/nu)^(deg/2) evaluated in 60-digit mpmath: the float value agrees to 1e-12 relative (the direct
    float power (deg/nu)^(deg/2) was off by 4e-4 at deg = 10^15)."""
    import mpmath

    with mpmath.workdps(60):
        d = mpmath.mpf(degree)
        exact = (d + 1) ** mpmath.mpf(-0.5) * mpmath.exp(-d / 2 * mpmath.log1p(1 / d))
        assert abs(sos.output_layer_factor(degree) / exact - 1) <= 1e-12


def test_large_degrees_and_bad_solvers():
    assert sos.output_layer_factor(10**400) > 0  # log space: (d/nu)^(d/2) -> e^(-1/2)
    assert sos.output_layer_factor(2) == sos.output_layer_factor(2.0)  # integral floats are accepted, as before
    for kwargs, param in [
        ({"solver": "NOSUCH"}, "solver"),
        ({"solver": []}, "solver"),
        ({"solver_options": 3}, "solver_options"),
    ]:
        with pytest.raises(ValueError) as info:
            sos.sos_sphere_bound(real_form([(2, 2)], [1.0]), **kwargs)
        assert info.value.param == param
    with pytest.raises(ValueError) as info:
        sos.single_neuron_sdp_bound(ModularTask(3, 1), 2, drop_tol=float("nan"))
    assert info.value.param == "drop_tol"


class _ContradictoryTask:
    """One input listed twice with two labels: every margin polynomial, hence Psi_Q, is identically 0."""

    n_points, n_classes, n_blocks, block_size = 2, 2, 1, 1

    def batch(self, a: int, b: int):
        return np.ones((2, 1, 1))[a:b], np.array([0, 1])[a:b]


def test_a_vanishing_psi_is_refused_with_its_reason():
    """It used to fail deep in the SOS set-up with 'the form must have even degree >= 2, got 0'."""
    with pytest.raises(InputError, match="identically 0"):
        sos.single_neuron_sdp_bound(_ContradictoryTask(), 1)
