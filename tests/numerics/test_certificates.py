"""Tests of numerics.certificates: margin features, the dictionary LP and its dual, and the certificates that bracket
gamma* without its closed form (forward pass below, sum-of-squares bound above; docs/certificates.md).

Expected values come from ``theory`` (gamma*, Shi Thm 4.9, Edelman Thms 7.8-7.9), from ``numerics.margins`` (logits
and margins evaluated independently of the feature matrix) and from ``numerics.modular.psi_fourier``
(Shi Lemma C.14). Tolerances: LP values 1e-6 relative to gamma* (the acceptance criterion; the
solvers' own tolerances are 1e-9 on features scaled to max |D| = 1); feature identities 1e-12; certified upper
bounds 1e-8 relative (SOS solver tolerances 1e-10). The negative controls feed gamma* moved by 1e-4 or 1e-2 and a
construction perturbed by 1e-3, and expect ``fail``.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import certificates as cert
from numerics.certificates import (
    Certificate,
    CertificateError,
    LPResult,
    bracket_verdict,
    certify,
    certify_group,
    certify_modular,
    certify_parity,
    columns_to_class_weights,
    feature_columns,
    margin_features,
    solve_dictionary_lp,
    unit_neurons,
)
from numerics.margins import HomogeneousNetwork, check_class_weights, evaluate
from numerics.modular import ModularTask, construction_network, psi_fourier, random_network
from numerics.single_neuron import maximize_single_neuron
from numerics.sos import modular_grading
from theory._checks import InputError, LimitError
from theory.groups import max_margin as group_max_margin
from theory.modular import max_margin
from theory.parity import max_margin as parity_max_margin

RTOL = 1e-6


def gamma(p: int, k: int) -> float:
    return float(max_margin(p, k))


def random_units(p: int, k: int, width: int, seed: int) -> HomogeneousNetwork:
    return unit_neurons(random_network(p, k, width, np.random.default_rng(seed)))


def construction_units(p: int, k: int) -> HomogeneousNetwork:
    return unit_neurons(construction_network(p, k))


def uniform_Q(task) -> np.ndarray:
    _, labels = task.batch(0, task.n_points)
    Q = np.full((task.n_points, task.n_classes), 1 / (task.n_points * (task.n_classes - 1)))
    Q[np.arange(task.n_points), labels] = 0
    return Q


# ------------------------------------------------------------------------------------- features


@pytest.mark.parametrize("p,k", [(3, 2), (5, 3)])
def test_margin_features_match_logits(p, k):
    """D[j, (x, c')] = f_j(x)[y] - f_j(x)[c'] with f_j the logits of neuron j alone (HomogeneousNetwork.logits)."""
    task = ModularTask(p, k)
    net = random_units(p, k, 4, seed=p * k)
    D = margin_features(net, task, memory_budget=2000)  # tiny budget: many chunks
    points, wrong = feature_columns(task)
    inputs, labels = task.batch(0, task.n_points)
    assert D.shape == (4, task.n_points * (p - 1))
    assert np.all(wrong != labels[points])
    for x in range(task.n_points):  # each point lists its p-1 wrong labels once
        assert sorted(wrong[points == x]) == sorted(set(range(p)) - {labels[x]})
    for j in range(net.width):
        F = net.subset([j]).logits(inputs)
        np.testing.assert_allclose(D[j], F[points, labels[points]] - F[points, wrong], rtol=1e-12, atol=1e-15)


def test_uniform_dual_gives_psi_of_each_neuron():
    """sum_r Q_unif(r) D_j(r) = Psi(theta_j) (Shi Lemma C.14 via psi_fourier)."""
    task = ModularTask(5, 3)
    net = random_units(5, 3, 6, seed=1)
    D = margin_features(net, task)
    points, wrong = feature_columns(task)
    q = uniform_Q(task)[points, wrong]
    np.testing.assert_allclose(D @ q, psi_fourier(net), rtol=1e-10, atol=1e-15)
    np.testing.assert_array_equal(columns_to_class_weights(q, task), uniform_Q(task))


def test_features_normalize_or_refuse():
    task = ModularTask(5, 2)
    net = random_network(5, 2, 3, np.random.default_rng(0))
    np.testing.assert_allclose(margin_features(net, task), margin_features(unit_neurons(net), task, normalize=False))
    with pytest.raises(ValueError, match="unit norm"):
        margin_features(net, task, normalize=False)
    zero = HomogeneousNetwork(np.zeros((1, 2, 5)), np.zeros((1, 5)), 2)
    with pytest.raises(ValueError, match="zero"):
        margin_features(HomogeneousNetwork.concatenate([net, zero]), task)
    with pytest.raises(ValueError, match="do not fit"):
        margin_features(random_units(7, 2, 2, 0), task)
    with pytest.raises(ValueError, match="N \\(C-1\\)"):
        columns_to_class_weights(np.zeros(3), task)


# ---------------------------------------------------------------------------------- the LP


def assert_certified(res: LPResult) -> None:
    assert res.status == cp.OPTIMAL
    assert res.relative_gap <= RTOL and res.max_residual <= 1e-6
    assert res.is_certified(RTOL)
    assert res.primal_value == res.value and res.gap == res.dual_value - res.value
    assert set(res.residuals) == {"primal_margin", "primal_budget", "primal_sign", "dual_mass", "dual_sign"}
    assert res.max_residual == max(res.residuals.values())


@pytest.mark.parametrize("p,k,extra", [(5, 2, 0), (7, 2, 0), (5, 3, 0), (5, 2, 30), (7, 2, 30), (5, 3, 30)])
def test_lp_with_construction_reaches_gamma_star(p, k, extra):
    """Dictionary containing the max-margin construction (Shi Lemma C.18): LP value = gamma* (docs/modular.md)."""
    g = gamma(p, k)
    dictionary = construction_units(p, k)
    if extra:
        dictionary = HomogeneousNetwork.concatenate([dictionary, random_units(p, k, extra, seed=p + k)])
    task = ModularTask(p, k)
    res = solve_dictionary_lp(dictionary, task)
    assert res.solver == "CLARABEL" and res.attempts == ()
    assert abs(res.value - g) <= RTOL * g
    assert abs(res.dual_value - g) <= RTOL * g
    assert_certified(res)
    # primal/dual shapes and feasibility of the reported (cleaned) solution
    assert res.mu.shape == (dictionary.width,) and np.all(res.mu >= 0) and res.mu.sum() <= 1 + 1e-12
    check_class_weights(res.Q, task)
    # the recovered network theta = {mu_j^(1/nu) theta_j} has norm power sum(mu) and margin achieved_margin
    report = evaluate(res.network, task)
    assert abs(report.norm_power - res.mu.sum()) <= 1e-12
    assert abs(report.min_margin - res.achieved_margin) <= 1e-12
    assert abs(report.normalized_margin - g) <= RTOL * g


@pytest.mark.parametrize("p,k", [(5, 2), (7, 2), (5, 3)])
def test_uniform_Q_is_dual_optimal_for_construction(p, k):
    """Duals are not unique: whatever vertex the solver returns, the uniform Q also attains max_j (DQ)_j = gamma*."""
    task = ModularTask(p, k)
    dictionary = construction_units(p, k)
    D = margin_features(dictionary, task)
    points, wrong = feature_columns(task)
    assert abs(np.max(D @ uniform_Q(task)[points, wrong]) - gamma(p, k)) <= 1e-10 * gamma(p, k)


@pytest.mark.parametrize("p,k,width", [(3, 2, 200), (5, 2, 200), (7, 2, 60), (5, 3, 60)])
def test_random_dictionary_is_strictly_below(p, k, width):
    """Random unit neurons only: the LP value is strictly below gamma* (about 0.45 and 0.17
    gamma* for (3,2) and (5,2) with 200 neurons, 0 for small dictionaries; docs/modular.md)."""
    g = gamma(p, k)
    res = solve_dictionary_lp(random_units(p, k, width, seed=3), ModularTask(p, k))
    assert -1e-9 <= res.value < g * (1 - 1e-3)
    assert res.is_certified(RTOL)


@settings(max_examples=8, deadline=None)
@given(
    pk=st.sampled_from([(3, 2), (5, 2), (3, 3)]),
    width=st.integers(1, 40),
    seed=st.integers(0, 2**31 - 1),
    with_construction=st.booleans(),
)
def test_lp_never_exceeds_gamma_star(pk, width, seed, with_construction):
    """For every dictionary: 0 <= LP <= gamma* (Shi Thm 4.9 upper bound), LP <= its dual bound, and the
    recovered network's normalized margin is <= gamma*."""
    p, k = pk
    g = gamma(p, k)
    dictionary = random_units(p, k, width, seed)
    if with_construction:
        dictionary = HomogeneousNetwork.concatenate([dictionary, construction_units(p, k)])
    task = ModularTask(p, k)
    res = solve_dictionary_lp(dictionary, task)
    assert -1e-9 <= res.value <= g * (1 + RTOL)
    assert res.dual_value >= res.value - RTOL * g
    assert res.achieved_margin <= g * (1 + 1e-9)
    if with_construction:
        assert abs(res.value - g) <= RTOL * g


def test_lp_dual_is_an_upper_bound_on_gamma_star():
    """Any class weights bound gamma* from above (Edelman Lemma 7.5): max Psi under the LP's dual Q >= gamma*."""
    p, k = 5, 2
    task = ModularTask(p, k)
    res = solve_dictionary_lp(construction_units(p, k), task)
    best = maximize_single_neuron(task, k, Q=res.Q, n_starts=4, seed=0)
    assert best.value >= gamma(p, k) * (1 - RTOL)


# ------------------------------------------------------------------------------- solver fallback


def _patched_solve(fail: set[str], mode: str):
    original = cp.Problem.solve

    def solve(self, *args, solver=None, **kwargs):
        if solver in fail:
            if mode == "raise":
                raise cp.error.SolverError(f"forced failure of {solver}")
            kwargs = {"max_iter": 1} if solver == "CLARABEL" else {"max_iters": 1}
            return original(self, *args, solver=solver, **kwargs)  # stops early: status is not 'optimal'
        return original(self, *args, solver=solver, **kwargs)

    return solve


@pytest.mark.parametrize("mode", ["raise", "status"])
def test_falls_back_to_scs_when_clarabel_fails(monkeypatch, mode):
    monkeypatch.setattr(cp.Problem, "solve", _patched_solve({"CLARABEL"}, mode))
    p, k = 5, 2
    res = solve_dictionary_lp(construction_units(p, k), ModularTask(p, k))
    assert res.solver == "SCS" and res.status == cp.OPTIMAL
    assert len(res.attempts) == 1 and res.attempts[0].startswith("CLARABEL")
    assert ("forced failure" in res.attempts[0]) if mode == "raise" else ("status" in res.attempts[0])
    assert abs(res.value - gamma(p, k)) <= RTOL * gamma(p, k)
    assert_certified(res)


@pytest.mark.parametrize("mode", ["raise", "status"])
def test_raises_when_every_solver_fails(monkeypatch, mode):
    monkeypatch.setattr(cp.Problem, "solve", _patched_solve({"CLARABEL", "SCS"}, mode))
    with pytest.raises(CertificateError, match="failed with every solver") as info:
        solve_dictionary_lp(construction_units(5, 2), ModularTask(5, 2))
    assert "CLARABEL" in str(info.value) and "SCS" in str(info.value)


def test_explicit_solver_choice():
    res = solve_dictionary_lp(construction_units(5, 2), ModularTask(5, 2), solver="SCS")
    assert res.solver == "SCS" and abs(res.value - gamma(5, 2)) <= RTOL * gamma(5, 2)
    with pytest.raises(CertificateError):
        solve_dictionary_lp(construction_units(5, 2), ModularTask(5, 2), solver="NO_SUCH_SOLVER")


# ---------------------------------------------------------------------------------- certificates


@pytest.mark.parametrize("p,k", [(5, 2), (7, 2), (5, 3)])
def test_modular_certificate_brackets_gamma_star(p, k):
    """Construction (forward pass) below, the SOS bound above; neither is the closed form, both equal it."""
    c = certify_modular(p, k, n_starts=3)
    g = gamma(p, k)
    assert c.rigorous and c.certified and c.consistent and c.sdp is not None
    assert abs(c.lower - g) <= 1e-12 * g
    assert g * (1 - 1e-12) <= c.upper_rigorous <= g * (1 + 1e-8)
    assert c.upper_heuristic <= c.upper_rigorous * (1 + 1e-12) and 0 <= c.relaxation_gap <= 1e-8
    assert c.verdict(max_margin(p, k)) == ("pass", c.verdict(g)[1])


def test_parity_and_group_certificates_bracket_gamma_star():
    c = certify_parity(6, 3, n_starts=3)
    g = float(parity_max_margin(3))
    assert c.certified and c.verdict(g)[0] == "pass" and g * (1 - 1e-12) <= c.upper_rigorous <= g * (1 + 1e-8)
    c = certify_group("S3", n_starts=3)
    g = float(sympy.N(group_max_margin("S3"), 30))
    assert c.certified and c.verdict(g)[0] == "pass" and g * (1 - 1e-12) <= c.upper_rigorous <= g * (1 + 1e-8)
    assert "LP" in c.weighting


@pytest.mark.parametrize(
    "task,args", [("modular", (3, 2)), ("parity", (3, 2)), ("group", ("Z2",))], ids=["modular", "parity", "group"]
)
def test_certifier_passes_its_progress_hook_to_each_tasks_search(task, args, monkeypatch):
    """`tvk certify`'s bar: each task's certificate calls the hook after every start, and equals the function's
    certificate (the same settings, silent); a bad hook is refused when the settings are made, before any work."""
    seen: list[int] = []
    c = getattr(cert.Certifier(n_starts=3, seed=1, progress=seen.append), task)(*args)
    assert seen == [1, 2, 3] and c.heuristic["n_starts"] == 3 and c.certified
    f = getattr(cert, f"certify_{task}")(*args, n_starts=3, seed=1)
    assert (c.lower, c.upper_heuristic, c.lower_source, c.weighting) == (
        f.lower,
        f.upper_heuristic,
        f.lower_source,
        f.weighting,
    )
    monkeypatch.setattr(cert, "certify", lambda *a, **k: pytest.fail("certified with a bad hook"))
    with pytest.raises(InputError) as info:
        cert.Certifier(progress="not callable")
    assert info.value.param == "progress"


@pytest.mark.parametrize("delta", [-1e-4, 1e-4, -1e-2, 1e-2])
def test_wrong_gamma_is_rejected(delta):
    """A gamma* moved by delta is excluded: from above by the rigorous SOS bound, from below by the forward pass."""
    c = certify_modular(5, 2, n_starts=2)
    verdict, reason = c.verdict(gamma(5, 2) * (1 + delta))
    assert verdict == "fail"
    assert ("rigorous upper bound is below" if delta > 0 else "forward-pass margin exceeds") in reason


def test_lp_network_against_a_wrong_gamma():
    """The LP's recovered network as the lower end: fed a gamma* 1e-4 too small, the bracket rejects it."""
    p, k = 5, 2
    task = ModularTask(p, k)
    lp = solve_dictionary_lp(
        HomogeneousNetwork.concatenate([construction_units(p, k), random_units(p, k, 20, 0)]), task
    )
    c = certify(task, k, lp.network, None, modular_grading(p, k), n_starts=2)
    assert c.verdict(gamma(p, k))[0] == "pass"
    assert c.verdict(gamma(p, k) * (1 - 1e-4))[0] == "fail"


def test_suboptimal_construction_fails():
    """A construction perturbed by 1e-3 loses margin: the bracket still contains gamma*, but the network claimed to
    attain it falls short, so the verdict is fail (and inconclusive when attainment is not claimed)."""
    p, k = 5, 2
    net = construction_network(p, k)
    rng = np.random.default_rng(0)
    bad = HomogeneousNetwork(net.U + 1e-3 * rng.standard_normal(net.U.shape), net.W, k)
    c = certify_modular(p, k, lower_network=bad, n_starts=2)
    assert c.lower < gamma(p, k) * (1 - 1e-5) and c.consistent
    verdict, reason = c.verdict(gamma(p, k))
    assert verdict == "fail" and "falls short" in reason
    assert c.verdict(gamma(p, k), attained=False)[0] == "inconclusive"


def test_without_a_rigorous_bound_the_verdict_is_inconclusive():
    p, k = 5, 2
    task = ModularTask(p, k)
    c = certify(task, k, construction_network(p, k), sdp=False, n_starts=2)
    assert not c.rigorous and not c.certified and c.upper == c.upper_heuristic
    assert c.verdict(gamma(p, k))[0] == "inconclusive" and "no rigorous upper bound" in c.verdict(gamma(p, k))[1]
    c = certify(task, k, construction_network(p, k), None, modular_grading(p, k), n_starts=2, max_block=2)
    assert c.upper_rigorous is None and "max_block" in c.sdp_note
    assert c.verdict(gamma(p, k))[0] == "inconclusive"
    with pytest.raises(ValueError, match="degree"):
        certify(task, 3, construction_network(p, k))


@pytest.mark.parametrize(
    "lower,upper,verdict,words",
    [
        (1.0, 1.0, "pass", "both bounds"),
        (1.0 + 1e-3, 1.0 + 1e-3, "fail", "exceeds"),
        (1.0 - 1e-3, 1.0 - 1e-3, "fail", "below gamma"),
        (1.0 - 1e-3, 1.0, "fail", "falls short"),
        (1.0, 1.0 + 1e-3, "inconclusive", "loose"),
        (1.0, None, "inconclusive", "no rigorous"),
    ],
)
def test_bracket_verdict_branches(lower, upper, verdict, words):
    v, reason = bracket_verdict(lower, upper, 1.0, 1e-6)
    assert v == verdict and words in reason


@pytest.mark.parametrize(
    "lower,upper,verdict,words",
    [
        (1.005, 1.005, "pass", "both bounds"),  # both within gamma (1 +- rtol)
        (0.995, 1.005, "pass", "both bounds"),
        (1.015, 1.015, "fail", "exceeds"),  # lower above gamma (1 + rtol): excluded
        (1.0, 0.985, "fail", "below gamma"),  # rigorous upper below gamma (1 - rtol)
        (0.985, 1.0, "fail", "falls short"),  # attained lower below gamma (1 - rtol)
        (1.0, 1.015, "inconclusive", "loose"),  # upper above gamma (1 + rtol)
    ],
)
def test_bracket_verdict_thresholds_are_gamma_times_one_plus_minus_rtol(lower, upper, verdict, words):
    """Each of the four comparisons of docs/certificates.md sits at gamma (1 +- rtol): a bound half a tolerance
    inside passes, one and a half outside decides its branch (rtol = 1e-2, far above float round-off)."""
    v, reason = bracket_verdict(lower, upper, 1.0, 1e-2)
    assert v == verdict and words in reason


def test_inconsistent_bounds_are_flagged():
    c = Certificate(
        lower=2.0, upper_heuristic=1.0, upper_rigorous=1.0, tol=1e-6, lower_source="", weighting="", heuristic={}
    )
    assert not c.consistent and not c.certified and c.verdict(1.5)[0] == "fail"


def test_summary_and_text_name_the_rigorous_end():
    c = certify_modular(5, 2, n_starts=2)
    s = c.summary()
    assert s["rigorous"] and s["upper_rigorous"] == c.upper_rigorous and s["sdp"]["sos"]["solver"] == "CLARABEL"
    text = c.text()
    assert "RIGOROUS" in text and "heuristic" in text and "CERTIFIED" in text and "duality gap" in text


def test_public_api_is_exported():
    for name in cert.__all__:
        assert hasattr(cert, name)


# ---------------------------------------------------------------------------------- issue 32: hostile input

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    "kwargs,param",
    [
        ({"gamma": NAN}, "gamma"),
        ({"gamma": INF}, "gamma"),
        ({"gamma": 0.0}, "gamma"),  # the tolerance is relative to gamma: ZeroDivisionError before
        ({"lower": NAN}, "lower"),
        ({"upper_rigorous": NAN}, "upper_rigorous"),
        ({"upper_rigorous": INF}, "upper_rigorous"),
        ({"rtol": NAN}, "rtol"),
        ({"rtol": INF}, "rtol"),
        ({"rtol": -1e-6}, "rtol"),
        ({"upper_heuristic": NAN}, "upper_heuristic"),
    ],
)
def test_bracket_verdict_refuses_non_finite_input(kwargs, param):
    # Before the fix, a NaN gamma, NaN bounds or a NaN tolerance made every comparison False: the verdict was "pass".
    args = {"lower": 0.25, "upper_rigorous": 0.25, "gamma": 0.25, "rtol": 1e-6, **kwargs}
    with pytest.raises(InputError) as info:
        bracket_verdict(**args)
    assert info.value.param == param


def test_no_certificate_carries_nan_into_a_verdict():
    with pytest.raises(InputError) as info:
        Certificate(
            lower=NAN, upper_heuristic=1.0, upper_rigorous=1.0, tol=1e-6, lower_source="", weighting="", heuristic={}
        )
    assert info.value.param == "lower"
    with pytest.raises(InputError) as info:
        Certificate(
            lower=1.0, upper_heuristic=1.0, upper_rigorous=INF, tol=1e-6, lower_source="", weighting="", heuristic={}
        )
    assert info.value.param == "upper_rigorous"
    c = Certificate(
        lower=1.0, upper_heuristic=1.0, upper_rigorous=None, tol=1e-6, lower_source="", weighting="", heuristic={}
    )
    for gamma in (NAN, INF, sympy.nan, sympy.zoo):
        with pytest.raises(InputError):
            c.verdict(gamma)
    with pytest.raises(InputError):
        c.verdict(1.0, rtol=NAN)
    assert c.summary()["relaxation_gap"] is None  # not NaN in the JSON record
    assert c.verdict(sympy.Rational(1))[0] == "inconclusive"


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: certify_modular(5, 7), "k"),
        (lambda: certify_modular(101, 3), "k"),
        (lambda: certify_modular(30_003, 1), "p"),
        (lambda: certify_modular(3, 10**400), "k"),
        (lambda: certify_parity(20, 3), "n"),
        (lambda: certify_group("S6"), "name"),
        (lambda: certify_group("S5"), "name"),
    ],
)
def test_certificates_too_large_are_refused_before_anything_is_built(call, param):
    # Before the fix, certify_modular(5, 7) and (101, 3) neither answered nor refused within 20 s.
    import time

    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert info.value.param == param and str(info.value).startswith(f"{param} = ")
    assert time.perf_counter() - t0 < 5  # a refusal from the sizes, not after the work (S6 is built by the theory)


def test_modular_refusal_says_what_to_use_instead():
    with pytest.raises(LimitError, match=r"max_margin\(p, k\).*answers up to k = 2 for p = 101"):
        certify_modular(101, 3)


def test_sos_relaxation_above_the_monomial_limit_is_skipped_with_a_note():
    task = ModularTask(3, 5)  # C(15 + 4, 5) = 11628 monomials: the SDP took 5 minutes
    c = certify(task, 5, construction_network(3, 5), None, modular_grading(3, 5), n_starts=1)
    assert c.upper_rigorous is None and "MAX_SOS_MONOMIALS" in c.sdp_note
    assert c.verdict(max_margin(3, 5))[0] == "inconclusive"


def test_dictionary_lp_and_unknown_solvers_are_refused():
    with pytest.raises(LimitError) as info:
        solve_dictionary_lp(random_network(5, 2, 20_000, np.random.default_rng(0)), ModularTask(5, 2))
    assert info.value.param == "dictionary"
    with pytest.raises(InputError) as info:  # still a CertificateError, as before
        solve_dictionary_lp(construction_network(3, 1), ModularTask(3, 1), solver="NO_SUCH_SOLVER")
    assert info.value.param == "solver" and isinstance(info.value, CertificateError)
    with pytest.raises(InputError) as info:
        certify(None, 1, construction_network(3, 1))
    assert info.value.param == "task"


def test_progress_hook_sees_every_start_and_a_bad_hook_is_refused_before_any_work(monkeypatch):
    """A progress bar's hook: called after each start of the multi-start search with the number finished."""
    from numerics.parity import SparseParityTask, construction_network

    task, net, seen = SparseParityTask(3, (0, 1)), construction_network(3, (0, 1)), []
    c = cert.certify(task, 2, net, sdp=False, n_starts=5, progress=seen.append)
    assert seen == [1, 2, 3, 4, 5] and c.heuristic["n_starts"] == 5
    monkeypatch.setattr(cert, "maximize_single_neuron", lambda *a, **k: pytest.fail("searched with a bad hook"))
    monkeypatch.setattr(cert, "evaluate", lambda *a, **k: pytest.fail("evaluated with a bad hook"))
    with pytest.raises(ValueError, match="progress must be None or a callable"):
        cert.certify(task, 2, net, sdp=False, n_starts=5, progress=3)


def test_the_lp_certificate_does_not_depend_on_the_scale_of_the_inputs():
    """The same LP with every input x1000 (values x10^9 at degree 3) has a margin residual x10^9 in the features'
    units; measured in the units the solver saw (feature_scale), it is the same, and so is the verdict."""
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((2, 1, 2)), rng.integers(0, 2, 2)
    net = HomogeneousNetwork(rng.standard_normal((5, 1, 2)), rng.standard_normal((5, 2)), 3)

    class Scaled:
        n_points, n_classes, n_blocks, block_size = 2, 2, 1, 2

        def __init__(self, c: float) -> None:
            self.X = c * X

        def batch(self, a: int, b: int):
            return self.X[a:b], y[a:b]

    small, large = solve_dictionary_lp(net, Scaled(1.0)), solve_dictionary_lp(net, Scaled(1e3))
    assert large.value / 1e9 == pytest.approx(small.value, rel=1e-9)
    assert large.primal_margin_residual > 1e-6  # the absolute residual test alone would refuse it
    assert small.is_certified() and large.is_certified()
