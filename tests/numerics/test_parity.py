"""Float checks of numerics.parity (Edelman Thm 7.8).

Expected values come from theory.parity or brute force over {+-1}^n.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.margins import HomogeneousNetwork, evaluate
from numerics.parity import (
    SparseParityTask,
    construction_network,
    optimal_neuron_network,
    random_network,
)
from numerics.single_neuron import class_weighted_objective
from theory import parity as tp

CASES = [(5, 2), (6, 3), (10, 4), (8, 5)]


def test_task_enumerates_cube_with_parity_labels():
    task = SparseParityTask(4, (3, 1))
    assert task.support == (1, 3) and task.n_points == 16 and task.block_size == 4
    x, y = task.batch(0, 16)
    assert x.shape == (16, 1, 4) and x.dtype == np.float64
    assert [tuple(int(v) for v in row) for row in x[:, 0]] == tp.cube(4)
    for row, label in zip(x[:, 0], y):
        assert label == (0 if row[1] * row[3] == 1 else 1)
    xs, ys = task.batch(5, 9)
    assert np.array_equal(xs, x[5:9]) and np.array_equal(ys, y[5:9])


@pytest.mark.parametrize(
    "args,msg",
    [
        ((4, (0, 4)), "out of range"),
        ((4, (1, 1)), "repeated"),
        ((0, (0,)), "n >= 1"),
        ((3, ()), "non-empty"),
        ((27, (0,)), "at most n = 26"),
    ],
)
def test_task_rejects_bad_inputs(args, msg):
    with pytest.raises(ValueError, match=msg):
        SparseParityTask(*args)


@pytest.mark.parametrize("n,k", CASES)
def test_construction_exact_equal_margin_everywhere(n, k):
    S = tuple(range(k))
    task = SparseParityTask(n, S)
    net = construction_network(n, S)
    gamma = float(tp.max_margin(k))
    assert net.width == tp.min_width(k)
    rep = evaluate(net, task)
    assert rep.norm_power == pytest.approx(1.0, rel=1e-12)
    assert rep.min_margin / rep.norm_power == pytest.approx(gamma, rel=1e-10)
    assert rep.max_margin / rep.norm_power == pytest.approx(gamma, rel=1e-10)
    assert rep.accuracy == 1.0
    x, _ = task.batch(0, task.n_points)
    F = net.logits(x)
    c = float(tp.output_coefficient(k))
    np.testing.assert_allclose(F, c * task.chi(x[:, 0])[:, None] * np.array([1.0, -1.0]), rtol=0, atol=1e-12 * c)


def test_construction_padding_and_nonfirst_support():
    net = construction_network(7, (6, 2, 4), width=9)
    rep = evaluate(net, SparseParityTask(7, (2, 4, 6)))
    assert net.width == 9
    assert rep.min_margin / rep.norm_power == pytest.approx(float(tp.max_margin(3)), rel=1e-10)


@pytest.mark.parametrize("n,k", CASES)
def test_optimal_neuron_single_neuron_objective(n, k):
    S = tuple(range(k))
    task = SparseParityTask(n, S)
    for sigma in [(1,) * k, (-1,) + (1,) * (k - 1)]:
        net = optimal_neuron_network(n, S, sigma)
        assert net.neuron_norms()[0] == pytest.approx(1.0, rel=1e-14)
        value, _, _ = class_weighted_objective(net.U[0], net.W[0], task, k)
        assert value == pytest.approx(float(tp.max_margin(k)), rel=1e-12)


def _brute_normalized_margin(net: HomogeneousNetwork, S) -> float:
    """h(theta)/||theta||^{k+1} by a plain loop over {+-1}^n (independent of numerics.margins)."""
    n, k = net.U.shape[2], net.degree
    h = math.inf
    for x in itertools.product([1.0, -1.0], repeat=n):
        f = ((net.U[:, 0, :] @ np.array(x)) ** k) @ net.W
        y = 0 if math.prod(x[j] for j in S) == 1 else 1
        h = min(h, f[y] - f[1 - y])
    return h / net.norm_power()


@settings(max_examples=40, deadline=None)
@given(
    nk=st.sampled_from([(3, 1), (4, 2), (5, 3), (6, 4), (6, 5)]),
    width=st.integers(1, 50),
    seed=st.integers(0, 2**31 - 1),
    scale=st.floats(0.01, 100.0),
)
def test_random_networks_never_beat_gamma_star(nk, width, seed, scale):
    n, k = nk
    S = tuple(range(k))
    net = random_network(n, k, width, seed=seed, scale=scale)
    rep = evaluate(net, SparseParityTask(n, S))
    gamma = float(tp.max_margin(k))
    assert rep.normalized_margin <= gamma * (1 + 1e-9)
    assert rep.normalized_margin == pytest.approx(_brute_normalized_margin(net, S), rel=1e-9, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(nk=st.sampled_from([(5, 2), (6, 3), (6, 4)]), seed=st.integers(0, 2**31 - 1), eps=st.floats(1e-7, 1e-1))
def test_perturbed_constructions_stay_below_gamma_star(nk, seed, eps):
    n, k = nk
    rng = np.random.default_rng(seed)
    base = construction_network(n, tuple(range(k)))
    net = HomogeneousNetwork(
        base.U + eps * rng.standard_normal(base.U.shape), base.W + eps * rng.standard_normal(base.W.shape), k
    )
    assert evaluate(net, SparseParityTask(n, tuple(range(k)))).normalized_margin <= float(tp.max_margin(k)) * (1 + 1e-9)


@settings(max_examples=20, deadline=None)
@given(nk=st.sampled_from([(4, 2), (5, 3), (6, 4)]), seed=st.integers(0, 10_000), alpha=st.floats(0.1, 10.0))
def test_homogeneity(nk, seed, alpha):
    """f(alpha theta) = alpha^{k+1} f(theta); the normalized margin is scale-free."""
    n, k = nk
    task = SparseParityTask(n, tuple(range(k)))
    net = random_network(n, k, 7, seed=seed)
    x, _ = task.batch(0, task.n_points)
    np.testing.assert_allclose(net.scaled(alpha).logits(x), alpha ** (k + 1) * net.logits(x), rtol=1e-9, atol=1e-9)
    assert evaluate(net.scaled(alpha), task).normalized_margin == pytest.approx(
        evaluate(net, task).normalized_margin, rel=1e-9, abs=1e-12
    )


def test_random_network_rejects_bad_inputs():
    with pytest.raises(ValueError, match="k = 5 > n = 4"):
        random_network(4, 5, 3)
    with pytest.raises(ValueError, match="width"):
        random_network(4, 2, 0)
    with pytest.raises(ValueError, match="2\\^\\(k-1\\) = 8"):
        construction_network(10, range(4), width=7)


def test_parity_construction_at_k_30_is_refused_at_once():
    """k = 30 means 2^29 exact neurons: refused before anything is built (issue 32)."""
    import time

    from numerics import parity as npar
    from theory._checks import LimitError

    for call in (
        lambda: npar.construction_network(30, range(30)),
        lambda: npar.construction_network(40, list(range(30))),
    ):
        t0 = time.perf_counter()
        with pytest.raises(LimitError) as info:
            call()
        assert time.perf_counter() - t0 < 1.0 and info.value.param == "k"
    with pytest.raises(LimitError) as info:
        npar.random_network(10**12, 3, 1)
    assert info.value.param == "n"
