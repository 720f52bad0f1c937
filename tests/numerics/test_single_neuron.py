"""Tests of numerics.single_neuron: the class-weighted single-neuron objective and its maximisation.

Expected values come from ``theory.modular`` (Shi Lemma C.15: max Psi = gamma*), from
``numerics.margins.evaluate`` (an independent evaluation of the class-weighted margin), from the
Fourier form ``numerics.modular.psi_fourier`` (Shi Lemma C.14), or from an independent brute force
(finite differences; the SVD closed form of the degree-1 problem).

Tolerances: objective identities 1e-10 relative (float64 sums over <= 2401 points); gradients 1e-6
relative (central differences with step 1e-6); maxima 1e-6 relative (the acceptance criterion).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.margins import HomogeneousNetwork, check_class_weights, evaluate
from numerics.modular import ModularTask, psi_fourier, random_network
from numerics.parity import SparseParityTask
from numerics.single_neuron import SingleNeuronResult, class_weighted_objective, maximize_single_neuron
from tests.tasks import DenseOneHotTask
from theory._checks import InputError
from theory.modular import max_margin

# ------------------------------------------------------------------------------------------ helpers


def random_class_weights(task, rng: np.random.Generator) -> np.ndarray:
    """A random valid Q(x, c) = q(x) tau(x)[c]: positive off the correct label, total mass 1."""
    _, labels = task.batch(0, task.n_points)
    Q = rng.random((task.n_points, task.n_classes)) * (rng.random((task.n_points, 1)) + 0.1)
    Q[np.arange(task.n_points), labels] = 0.0
    return Q / Q.sum()


def rel_err(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


# --------------------------------------------------------------------------- objective and gradient


@settings(max_examples=25, deadline=None)
@given(
    p=st.sampled_from([3, 5, 7]),
    k=st.integers(1, 3),
    degree=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    uniform=st.booleans(),
    chunk=st.sampled_from([None, 1, 4, 50]),
)
def test_objective_equals_evaluate_class_weighted(p, k, degree, seed, uniform, chunk):
    """Psi_Q(U, w) == E_Q[g'] of the width-1 network, computed by numerics.margins.evaluate."""
    task = ModularTask(p, k)
    rng = np.random.default_rng(seed)
    U, w = rng.standard_normal((k, p)), rng.standard_normal(p)
    Q = None if uniform else random_class_weights(task, rng)
    value, _, _ = class_weighted_objective(U, w, task, degree, Q=Q, chunk_size=chunk)
    expected = evaluate(HomogeneousNetwork(U[None], w[None], degree), task, Q).class_weighted
    assert abs(value - expected) <= 1e-10 * max(1.0, abs(expected))


@pytest.mark.parametrize("p,k", [(5, 2), (7, 3), (5, 4)])
def test_objective_equals_fourier_form(p, k):
    """Uniform Q: Psi equals Shi Lemma C.14's Fourier form (numerics.modular.psi_fourier)."""
    net = random_network(p, k, 3, np.random.default_rng(p + k))
    for i in range(net.width):
        value, _, _ = class_weighted_objective(net.U[i], net.W[i], ModularTask(p, k), k)
        assert rel_err(value, psi_fourier(net.subset([i]))[0]) <= 1e-10


def test_dense_inputs_equal_index_inputs():
    """The einsum (dense) path gives the same value and gradient as the bincount (index) path."""
    rng = np.random.default_rng(3)
    task = ModularTask(5, 3)
    U, w = rng.standard_normal((3, 5)), rng.standard_normal(5)
    Q = random_class_weights(task, rng)
    a = class_weighted_objective(U, w, task, 3, Q, chunk_size=17)
    b = class_weighted_objective(U, w, DenseOneHotTask(task), 3, Q, chunk_size=40)
    assert rel_err(a[0], b[0]) <= 1e-12
    np.testing.assert_allclose(a[1], b[1], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(a[2], b[2], rtol=1e-10, atol=1e-14)


def _finite_difference(task, degree, Q, U, w, h=1e-6):
    theta = np.concatenate([U.ravel(), w])

    def f(th):
        return class_weighted_objective(th[: U.size].reshape(U.shape), th[U.size :], task, degree, Q)[0]

    grad = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        grad[i] = (f(theta + e) - f(theta - e)) / (2 * h)
    return grad[: U.size].reshape(U.shape), grad[U.size :]


@pytest.mark.parametrize(
    "task,degree,uniform",
    [
        (ModularTask(5, 2), 2, True),
        (ModularTask(5, 3), 3, False),
        (ModularTask(3, 2), 4, False),
        (SparseParityTask(5, (0, 2, 3)), 3, True),
        (SparseParityTask(4, (1, 2)), 2, False),
    ],
)
def test_gradient_matches_finite_differences(task, degree, uniform):
    rng = np.random.default_rng(degree)
    U, w = rng.standard_normal((task.n_blocks, task.block_size)), rng.standard_normal(task.n_classes)
    Q = None if uniform else random_class_weights(task, rng)
    _, gU, gw = class_weighted_objective(U, w, task, degree, Q)
    fU, fw = _finite_difference(task, degree, Q, U, w)
    scale = max(np.abs(gU).max(), np.abs(gw).max())
    np.testing.assert_allclose(gU, fU, rtol=1e-6, atol=1e-6 * scale)
    np.testing.assert_allclose(gw, fw, rtol=1e-6, atol=1e-6 * scale)


def test_homogeneity_and_sign_flip():
    """Psi(a theta) = a^(deg+1) Psi(theta); Psi(U, -w) = -Psi (Shi Lemma C.15; docs/modular.md)."""
    rng = np.random.default_rng(11)
    task = ModularTask(5, 3)
    U, w = rng.standard_normal((3, 5)), rng.standard_normal(5)
    v = class_weighted_objective(U, w, task, 3)[0]
    assert rel_err(class_weighted_objective(1.7 * U, 1.7 * w, task, 3)[0], 1.7**4 * v) <= 1e-12
    assert rel_err(class_weighted_objective(U, -w, task, 3)[0], -v) <= 1e-12


def test_objective_input_validation():
    task = ModularTask(5, 2)
    with pytest.raises(ValueError, match="shape"):
        class_weighted_objective(np.zeros((3, 5)), np.zeros(5), task, 2)
    with pytest.raises(ValueError, match="degree"):
        class_weighted_objective(np.zeros((2, 5)), np.zeros(5), task, 0)
    with pytest.raises(ValueError, match="shape"):
        class_weighted_objective(np.zeros((2, 5)), np.zeros(5), task, 2, Q=np.full((5, 5), 1 / 25))


# --------------------------------------------------------------------------------- maximisation


@pytest.mark.parametrize("p,k,n_starts", [(5, 2, 8), (7, 2, 8), (5, 3, 6), (7, 3, 3), (5, 4, 3)])
def test_maximum_is_gamma_star(p, k, n_starts):
    """Shi Lemma C.15: max over unit neurons of Psi (uniform q, tau) = gamma*(p, k), reached by every start."""
    gamma = float(max_margin(p, k))
    res = maximize_single_neuron(ModularTask(p, k), k, n_starts=n_starts, seed=0)
    assert isinstance(res, SingleNeuronResult)
    assert rel_err(res.value, gamma) <= 1e-6
    assert res.success
    assert res.n_starts == n_starts and res.start_values.shape == (n_starts,) and res.iterations.shape == (n_starts,)
    assert res.n_at_best == n_starts  # the landscape is benign: every start reaches gamma* (docs/modular.md)
    assert np.all(res.start_values <= gamma * (1 + 1e-9))  # nothing beats the proven maximum
    # the returned maximizer: unit norm, value re-evaluated by the independent Fourier form
    net = res.network
    assert net.width == 1 and net.degree == k
    assert abs(net.neuron_norms()[0] - 1) <= 1e-12
    assert rel_err(psi_fourier(net)[0], gamma) <= 1e-6
    # shape of an optimal neuron (Lemma C.15): k+1 blocks of squared norm 1/(k+1), zero-mean output
    block_sq = np.concatenate([np.sum(net.U[0] ** 2, axis=1), [np.sum(net.W[0] ** 2)]])
    np.testing.assert_allclose(block_sq, 1 / (k + 1), atol=1e-5)
    assert abs(net.W[0].mean()) <= 1e-5


def _degree_one_maximum(task, Q) -> float:
    r"""Independent closed form for degree 1: Psi = vec(U)^T M w, and max over ||U||^2+||w||^2 <= 1 is sigma_max(M)/2."""
    inputs, labels = task.batch(0, task.n_points)
    N, C = task.n_points, task.n_classes
    if Q is None:
        Q = np.full((N, C), 1 / (N * (C - 1)))
        Q[np.arange(N), labels] = 0
    R = -Q.copy()
    R[np.arange(N), labels] += Q.sum(axis=1)
    X = (
        np.eye(task.block_size)[inputs].reshape(N, -1)
        if np.issubdtype(inputs.dtype, np.integer)
        else inputs.reshape(N, -1)
    )
    return float(np.linalg.svd(X.T @ R, compute_uv=False)[0] / 2)


@pytest.mark.parametrize(
    "task,uniform",
    [
        (ModularTask(5, 2), False),
        (ModularTask(3, 3), False),
        (SparseParityTask(4, (0,)), True),
        (SparseParityTask(4, (1, 3)), False),
    ],
)
def test_degree_one_maximum_matches_svd(task, uniform):
    """Brute-force check with any Q: for degree 1 the problem is a bilinear form, solved by an SVD."""
    Q = None if uniform else random_class_weights(task, np.random.default_rng(7))
    res = maximize_single_neuron(task, 1, Q=Q, n_starts=4, seed=1)
    assert rel_err(res.value, _degree_one_maximum(task, Q)) <= 1e-6


def test_maximum_under_random_weights_dominates_random_neurons():
    """With a random Q the returned value is attained by the returned unit neuron and beats random unit neurons."""
    rng = np.random.default_rng(5)
    task = ModularTask(5, 2)
    Q = random_class_weights(task, rng)
    res = maximize_single_neuron(task, 2, Q=Q, n_starts=4, seed=2)
    net = res.network
    attained = class_weighted_objective(net.U[0], net.W[0], task, 2, Q)[0]
    assert rel_err(attained, res.value) <= 1e-10
    assert rel_err(attained, evaluate(net, task, check_class_weights(Q, task)).class_weighted) <= 1e-10
    for _ in range(20):
        U, w = rng.standard_normal((2, 5)), rng.standard_normal(5)
        norm = math.sqrt(np.sum(U**2) + np.sum(w**2))
        assert class_weighted_objective(U / norm, w / norm, task, 2, Q)[0] <= res.value * (1 + 1e-9)


def test_seed_reproducible():
    a = maximize_single_neuron(ModularTask(5, 2), 2, n_starts=2, seed=4)
    b = maximize_single_neuron(ModularTask(5, 2), 2, n_starts=2, seed=4)
    np.testing.assert_array_equal(a.start_values, b.start_values)


@pytest.mark.parametrize("n_starts", [0, -3, 2.5, True])
def test_rejects_bad_n_starts(n_starts):
    with pytest.raises(ValueError, match="n_starts"):
        maximize_single_neuron(ModularTask(5, 2), 2, n_starts=n_starts)


def test_rejects_bad_class_weights():
    task = ModularTask(5, 2)
    with pytest.raises(ValueError, match="shape"):
        maximize_single_neuron(task, 2, Q=np.full((25, 4), 1 / 100), n_starts=1)
    Q = random_class_weights(task, np.random.default_rng(0))
    with pytest.raises(ValueError, match="sum to 1"):
        maximize_single_neuron(task, 2, Q=2 * Q, n_starts=1)
    _, labels = task.batch(0, 25)
    Q_bad = Q.copy()
    Q_bad[0, labels[0]] = 0.1
    with pytest.raises(ValueError):
        maximize_single_neuron(task, 2, Q=Q_bad / Q_bad.sum(), n_starts=1)


def test_degree_and_starts_are_capped():
    from numerics.modular import ModularTask
    from theory._checks import LimitError

    task = ModularTask(3, 2)
    with pytest.raises(LimitError) as info:
        class_weighted_objective(np.ones((2, 3)), np.ones(3), task, 10**9)
    assert info.value.param == "degree"
    with pytest.raises(LimitError) as info:
        maximize_single_neuron(task, 2, n_starts=10**5)
    assert info.value.param == "n_starts"
    with pytest.raises(ValueError, match="task"):
        maximize_single_neuron("abc", 2)


class _OneClassTask:
    """Two points, two blocks of size 2, every label 0: a valid Task with a single class."""

    n_points, n_classes, n_blocks, block_size = 2, 1, 2, 2

    def batch(self, start, stop):
        return np.array([[0, 1], [1, 0]])[start:stop], np.zeros(stop - start, dtype=np.int64)


def test_one_class_task_is_refused():
    """The class-weighted margin compares the label's weight with the wrong labels' (tau = 1/(C-1)): C = 1 has none."""
    with pytest.raises(InputError) as info:
        class_weighted_objective(np.ones((2, 2)), np.ones(1), _OneClassTask(), 2)
    assert info.value.param == "task"
