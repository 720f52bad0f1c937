"""Float tests of ``numerics.groups`` against ``theory.finite_groups`` and ``theory.groups`` (Edelman Thm 7.9,
Lemmas D.11-D.16, App. D.9.2).

Expected values come from ``theory`` (exact closed forms, exact game solutions) or from an
independent float computation (the network-level dictionary LP of ``numerics.certificates``, the
streamed margins of ``numerics.margins``, multi-start L-BFGS). Tolerances are relative to gamma*.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import groups as ng
from numerics.certificates import solve_dictionary_lp
from numerics.margins import check_class_weights, evaluate
from numerics.single_neuron import maximize_single_neuron
from theory import finite_groups as fg
from theory import groups as tg

IRREP_GROUPS = ["S3", "S4", "S5", "D4", "D5", "Z2^3", "S3xZ2", "A5"]
CONSTRUCTION_GROUPS = ["S3", "S4", "D4", "D5", "Z2^3"]


def gamma(name: str) -> float:
    return float(sympy.N(tg.max_margin(name), 30))


def test_group_task_enumerates_all_pairs():
    task = ng.GroupTask("S3")
    inputs, labels = task.batch(0, task.n_points)
    G = task.group
    assert task.n_points == 36 and task.n_classes == 6 and task.n_blocks == 2 and task.block_size == 6
    assert all(labels[i] == G.table[a][b] for i, (a, b) in enumerate(inputs))
    assert sorted(map(tuple, inputs)) == [(a, b) for a in range(6) for b in range(6)]


# ------------------------------------------------------------------------------------------
# Real irreps
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", IRREP_GROUPS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_irreps_are_orthogonal_homomorphisms(name, data):
    G = fg.group(name)
    irreps = ng.real_irreps(G)
    a = data.draw(st.integers(0, G.order - 1))
    b = data.draw(st.integers(0, G.order - 1))
    for R in irreps:
        d = R.shape[1]
        np.testing.assert_allclose(R[a] @ R[b], R[G.table[a][b]], atol=1e-12)
        np.testing.assert_allclose(R[a] @ R[a].T, np.eye(d), atol=1e-12)


@pytest.mark.parametrize("name", IRREP_GROUPS)
def test_irrep_traces_are_the_characters(name):
    X = ng.character_matrix(name)
    irreps = ng.real_irreps(name)
    for r, R in enumerate(irreps):
        np.testing.assert_allclose(np.trace(R, axis1=1, axis2=2), X[r], atol=1e-12)
        # Schur orthogonality of matrix coefficients: sum_g R_ij R_kl = |G|/d delta delta (Lemma D.10)
        d = R.shape[1]
        coeff = R.reshape(len(R), d * d)
        np.testing.assert_allclose(coeff.T @ coeff, (len(R) / d) * np.eye(d * d), atol=1e-10)


def test_irrep_methods():
    assert ng.irrep_method("S5", 6) == "young" and ng.irrep_method("D5", 3) == "closed"
    assert ng.irrep_method("A5", 1) == "commutant" and ng.irrep_method("S3xZ2", 5) == "kron"


@pytest.mark.parametrize("name", ["Z5", "A4", "Q8"])
def test_non_real_groups_are_refused(name):
    with pytest.raises(ValueError, match="real"):
        ng.real_irreps(name)
    with pytest.raises(ValueError, match="real"):
        ng.character_lp(name)


@pytest.mark.parametrize("name", ["S5", "A5"])
def test_projector_identities_float(name):
    P = ng.isotypic_projectors(name)
    N = P.shape[1]
    np.testing.assert_allclose(P.sum(0), np.eye(N), atol=1e-12)
    for r in range(len(P)):
        np.testing.assert_allclose(P[r] @ P[r], P[r], atol=1e-12)
        if r + 1 < len(P):
            np.testing.assert_allclose(P[r] @ P[r + 1], 0, atol=1e-12)


@pytest.mark.parametrize("name", ["S4", "A5"])
def test_irrep_power_of_matrix_coefficients_is_pure(name):
    irreps = ng.real_irreps(name)
    rng = np.random.default_rng(0)
    for r, R in enumerate(irreps):
        A = rng.standard_normal(R.shape[1:])
        v = np.einsum("gij,ij->g", R, A)
        p = ng.irrep_power(v, name)
        assert p.argmax() == r and p[r] / p.sum() > 1 - 1e-12
        assert abs(p.sum() - v @ v) < 1e-10 * (v @ v)


# ------------------------------------------------------------------------------------------
# Class weights and construction
# ------------------------------------------------------------------------------------------


def test_class_weights_are_valid_and_class_constant():
    task = ng.GroupTask("S4")
    Q = ng.class_weights("S4")
    check_class_weights(Q, task)
    G = task.group
    t = [float(x) for x in tg.tau("S4")]
    a, b, c = 5, 17, 9
    y = G.table[a][b]
    assert Q[a * G.order + b, G.table[y][c]] == pytest.approx(t[G.class_of[c]] / G.order**2, rel=1e-14)
    with pytest.raises(ValueError, match="negative"):
        ng.class_weights("A5")


@pytest.mark.parametrize("name", CONSTRUCTION_GROUPS)
def test_construction_reaches_gamma_star(name):
    task = ng.GroupTask(name)
    net = ng.construction_network(name)
    assert net.width == tg.min_width(name)
    rep = evaluate(net, task, Q=ng.class_weights(name))
    g = gamma(name)
    assert rep.norm_power == pytest.approx(1.0, rel=1e-12)
    assert rep.normalized_margin == pytest.approx(g, rel=1e-10)
    assert rep.max_margin == pytest.approx(g, rel=1e-10)  # every point on the margin
    assert rep.wrong_logit_spread <= 1e-10 * g  # all incorrect logits equal
    assert rep.class_weighted == pytest.approx(g, rel=1e-10)  # C.1 holds
    diag = ng.neuron_irrep_diagnostics(net, name)
    assert diag.purity.min() > 1 - 1e-12 and (diag.neuron_dominant > 0).all()
    assert set(diag.neuron_dominant) == set(range(1, fg.character_table(name).n_irreps))


def test_construction_width_errors():
    with pytest.raises(ValueError, match="below the construction"):
        ng.construction_network("S4", width=100)
    assert ng.construction_network("S3", width=25).width == 25


@pytest.mark.parametrize("name", ["S3", "D4"])
@settings(max_examples=25, deadline=None)
@given(width=st.integers(1, 40), seed=st.integers(0, 2**31 - 1), scale=st.sampled_from([0.1, 1.0, 3.0]))
def test_random_networks_do_not_beat_gamma_star(name, width, seed, scale):
    task = ng.GroupTask(name)
    net = ng.random_network(name, width, np.random.default_rng(seed), scale)
    rep = evaluate(net, task, Q=ng.class_weights(name))
    g = gamma(name)
    assert rep.normalized_margin <= g * (1 + 1e-9)
    assert rep.normalized_class_weighted <= g * (1 + 1e-9)  # Lemma D.13 bound, any network


@pytest.mark.parametrize("name", ["S3", "S4"])
def test_rank_one_optimal_neurons_attain_gamma_star(name):
    task = ng.GroupTask(name)
    Q = ng.class_weights(name)
    g = gamma(name)
    rng = np.random.default_rng(1)
    ct = fg.character_table(name)
    for r in range(1, ct.n_irreps):
        d = ct.dims[r]
        net = ng.optimal_neuron_network(name, r, *rng.standard_normal((3, d)))
        rep = evaluate(net, task, Q=Q)
        assert rep.norm_power == pytest.approx(1.0, rel=1e-12)
        assert rep.class_weighted == pytest.approx(g, rel=1e-10)


@pytest.mark.parametrize("name", ["S3", "S4"])
def test_single_neuron_maximum_under_thesis_tau(name):
    task = ng.GroupTask(name)
    res = maximize_single_neuron(task, 2, Q=ng.class_weights(name), n_starts=8 if name == "S3" else 4, seed=0)
    g = gamma(name)
    assert res.value == pytest.approx(g, rel=1e-8)
    diag = ng.neuron_irrep_diagnostics(res.network, name)
    assert diag.purity.min() > 1 - 1e-6 and len(set(diag.dominant[0])) == 1 and diag.dominant[0, 0] > 0
    blocks = np.concatenate([res.network.U[0], res.network.W])
    np.testing.assert_allclose((blocks**2).sum(1), 1 / 3, atol=1e-6)
    # rank-1 coefficient matrices alpha = (d/|G|) sum_g u(g) R(g) with singular value sqrt(d/(3|G|)),
    # and gamma parallel to alpha beta (equality case of Lemma D.13, docs/groups.md)
    r = int(diag.dominant[0, 0])
    R = ng.real_irreps(name)[r]
    N, d = R.shape[0], R.shape[1]
    alpha, beta, gam = ((d / N) * np.einsum("g,gij->ij", x, R) for x in blocks)
    t = np.sqrt(d / (3 * N))
    for M in (alpha, beta, gam):
        sv = np.linalg.svd(M, compute_uv=False)
        assert sv[0] == pytest.approx(t, rel=1e-5) and (sv[1:] < 1e-5 * t).all()
    ab = alpha @ beta
    assert np.sum(ab * gam) / (np.linalg.norm(ab) * np.linalg.norm(gam)) > 1 - 1e-8


# ------------------------------------------------------------------------------------------
# LPs
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["S3", "S4", "S5", "D4", "D5", "Z2^3", "S3xZ2"])
def test_character_lp_equals_closed_form(name):
    lp = ng.character_lp(name)
    g = gamma(name)
    assert lp.value == pytest.approx(g, rel=1e-9) and lp.dual_value == pytest.approx(g, rel=1e-9)
    ct = fg.character_table(name)
    S = float(tg.s_sum(name))
    np.testing.assert_allclose(lp.budgets[1:], [d**2.5 / S for d in ct.dims[1:]], rtol=1e-7)
    np.testing.assert_allclose(lp.class_tau[1:], [float(x) for x in tg.tau(name)[1:]], rtol=1e-7)


@pytest.mark.parametrize("name", ["S3", "D4"])
def test_network_level_lp_equals_closed_form(name):
    task = ng.GroupTask(name)
    rng = np.random.default_rng(2)
    dictionary = ng.construction_network(name)
    extra = ng.random_network(name, 10, rng)
    res = solve_dictionary_lp(type(dictionary).concatenate([dictionary, extra]), task)
    assert res.is_certified(rtol=1e-7)
    assert res.value == pytest.approx(gamma(name), rel=1e-7)


def test_a5_lp_certified_by_construction_and_dual_bound():
    lp = ng.character_lp("A5")
    assert lp.gap <= 1e-12 * lp.value
    ct = fg.character_table("A5")
    assert [ct.dims[r] for r in lp.used_irreps] == [3, 3, 4]
    # exact value on the LP's support (theory), and the Lemma D.13 upper bound under the LP dual tau
    g, _, taus = tg.game_value_on_support("A5", lp.used_irreps, lp.margin_classes)
    assert lp.value == pytest.approx(float(g), rel=1e-12)
    assert float(tg.single_neuron_max("A5", [sympy.nsimplify(x) for x in taus])) == pytest.approx(lp.value, rel=1e-12)
    # lower bound: an explicit network with the LP budgets, evaluated on all 3600 points
    task = ng.GroupTask("A5")
    net = ng.construction_network("A5", budgets=list(lp.budgets))
    rep = evaluate(net, task, Q=ng.class_weights("A5", lp.class_tau))
    assert rep.norm_power == pytest.approx(1.0, rel=1e-12)
    assert rep.normalized_margin == pytest.approx(lp.value, rel=1e-9)
    assert rep.class_weighted == pytest.approx(lp.value, rel=1e-9)
    assert net.width == 2 * (27 + 27 + 64)


def test_s6_lp_matches_exact_support_solution():
    lp = ng.character_lp("S6")
    g, _, _ = tg.game_value_on_support("S6", lp.used_irreps, lp.margin_classes)
    assert lp.value == pytest.approx(float(g), rel=1e-10) and lp.gap <= 1e-10 * lp.value
    invalid = float(2 / (3 * sympy.sqrt(3 * 720) * tg.s_sum("S6")))
    assert lp.value > invalid


@pytest.mark.slow
def test_a5_single_neuron_bound_numeric():
    lp = ng.character_lp("A5")
    task = ng.GroupTask("A5")
    res = maximize_single_neuron(task, 2, Q=ng.class_weights("A5", lp.class_tau), n_starts=6, seed=0)
    assert res.value <= lp.value * (1 + 1e-8)
    assert res.value == pytest.approx(lp.value, rel=1e-6)


@pytest.mark.slow
def test_construction_reaches_gamma_star_s5():
    task = ng.GroupTask("S5")
    rep = evaluate(ng.construction_network("S5"), task)
    assert rep.normalized_margin == pytest.approx(gamma("S5"), rel=1e-10)
    assert rep.wrong_logit_spread <= 1e-10 * gamma("S5")
