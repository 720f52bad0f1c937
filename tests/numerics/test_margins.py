"""Float tests of ``numerics.margins`` (streaming margin evaluation of homogeneous polynomial networks).

The oracle is a naive full materialization written here: all pre-activations and logits of the
whole dataset at once, then margins by direct formulas. Tolerances are stated
per test; float comparisons are relative to the scale of the logits involved.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.margins import (
    DEFAULT_MEMORY_BUDGET,
    HomogeneousNetwork,
    MarginReport,
    Task,
    check_class_weights,
    chunk_size_for,
    class_weighted_point_margins,
    evaluate,
    int_power,
    iter_logits,
    normalized_margin,
    point_margins,
)
from numerics.modular import ModularTask, construction_network, random_network
from tests.tasks import DenseOneHotTask
from theory._checks import InputError, LimitError

RTOL = 1e-12  # relative to the largest |logit| for float rearrangements of the same sums


# ------------------------------------------------------------------------------------------
# Naive oracle
# ------------------------------------------------------------------------------------------


def naive_logits(net: HomogeneousNetwork, p: int, k: int) -> np.ndarray:
    """F[a, c] over all p^k inputs (lexicographic, a_1 most significant) by broadcasting."""
    m = net.width
    S = np.zeros((m,) + (p,) * k)
    for j in range(k):
        shape = [m] + [1] * k
        shape[1 + j] = p
        S = S + net.U[:, j, :].reshape(shape)
    F = np.tensordot(S**k, net.W, axes=([0], [0]))
    return F.reshape(p**k, p)


def naive_labels(p: int, k: int) -> np.ndarray:
    return (np.indices((p,) * k).sum(0) % p).reshape(-1)


def naive_report(F: np.ndarray, y: np.ndarray, Q: np.ndarray | None = None) -> dict:
    n, C = F.shape
    correct = F[np.arange(n), y]
    wrong = np.array([[F[i, c] for c in range(C) if c != y[i]] for i in range(n)])
    g = correct - wrong.max(1)
    if Q is None:
        cw = float(np.mean(correct - wrong.mean(1)))
    else:
        cw = float(sum(Q[i, c] * (F[i, y[i]] - F[i, c]) for i in range(n) for c in range(C)))
    return dict(
        min_margin=g.min(),
        max_margin=g.max(),
        mean_margin=g.mean(),
        class_weighted=cw,
        accuracy=float(np.mean(g > 0)),
        spread=float((wrong.max(1) - wrong.min(1)).max()),
        g=g,
    )


def uniform_Q(p: int, k: int) -> np.ndarray:
    y = naive_labels(p, k)
    Q = np.full((p**k, p), 1.0 / (p**k * (p - 1)))
    Q[np.arange(p**k), y] = 0.0
    return Q


net_params = st.tuples(
    st.sampled_from([3, 5, 7]),  # p
    st.integers(1, 3),  # k
    st.integers(1, 40),  # width
    st.integers(0, 2**32 - 1),  # seed
)


def make_net(params) -> tuple[HomogeneousNetwork, ModularTask, int, int]:
    p, k, m, seed = params
    rng = np.random.default_rng(seed)
    return random_network(p, k, m, rng), ModularTask(p, k), p, k


# ------------------------------------------------------------------------------------------
# evaluate against the naive oracle
# ------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(net_params)
def test_evaluate_matches_naive_full_materialization(params):
    net, task, p, k = make_net(params)
    F = naive_logits(net, p, k)
    y = naive_labels(p, k)
    ref = naive_report(F, y)
    rep = evaluate(net, task)
    scale = np.abs(F).max()
    tol = RTOL * scale
    assert abs(rep.min_margin - ref["min_margin"]) <= tol
    assert abs(rep.max_margin - ref["max_margin"]) <= tol
    assert abs(rep.mean_margin - ref["mean_margin"]) <= tol
    assert abs(rep.class_weighted - ref["class_weighted"]) <= tol
    assert abs(rep.wrong_logit_spread - ref["spread"]) <= tol
    assert rep.accuracy == pytest.approx(ref["accuracy"], abs=1.0 / p**k + 1e-15)  # ties at 0 only
    assert abs(ref["g"][rep.argmin] - ref["min_margin"]) <= tol
    assert rep.n_points == p**k
    norms = np.sqrt((net.U**2).sum((1, 2)) + (net.W**2).sum(1))
    assert rep.norm_power == pytest.approx(float((norms ** (k + 1)).sum()), rel=1e-13)
    assert rep.normalized_margin == pytest.approx(rep.min_margin / rep.norm_power, rel=1e-15)


@settings(max_examples=25, deadline=None)
@given(net_params, st.integers(0, 2**32 - 1))
def test_evaluate_with_random_class_weights_matches_naive(params, qseed):
    net, task, p, k = make_net(params)
    F = naive_logits(net, p, k)
    y = naive_labels(p, k)
    Q = np.random.default_rng(qseed).random((p**k, p))
    Q[np.arange(p**k), y] = 0.0
    Q /= Q.sum()
    rep = evaluate(net, task, Q=Q)
    ref = naive_report(F, y, Q)
    assert abs(rep.class_weighted - ref["class_weighted"]) <= RTOL * np.abs(F).max()
    assert rep.class_weighted <= max(F[i, y[i]] - np.delete(F[i], y[i]).min() for i in range(p**k)) + 1e-12


@settings(max_examples=40, deadline=None)
@given(net_params)
def test_uniform_Q_none_equals_explicit_uniform_Q(params):
    net, task, p, k = make_net(params)
    a = evaluate(net, task)
    b = evaluate(net, task, Q=uniform_Q(p, k))
    scale = np.abs(naive_logits(net, p, k)).max()
    assert abs(a.class_weighted - b.class_weighted) <= RTOL * scale
    # Q only changes the class-weighted field
    assert (a.min_margin, a.max_margin, a.accuracy, a.argmin) == (b.min_margin, b.max_margin, b.accuracy, b.argmin)


# ------------------------------------------------------------------------------------------
# Invariants: chunking, homogeneity, g <= g'
# ------------------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(net_params, st.data())
def test_chunked_equals_single_chunk(params, data):
    net, task, p, k = make_net(params)
    n = p**k
    chunk = data.draw(st.integers(1, n + 5), label="chunk_size")
    whole = evaluate(net, task, chunk_size=n)
    part = evaluate(net, task, chunk_size=chunk)
    scale = np.abs(naive_logits(net, p, k)).max()
    tol = RTOL * scale
    for field in ("min_margin", "max_margin", "mean_margin", "class_weighted", "wrong_logit_spread"):
        assert abs(getattr(whole, field) - getattr(part, field)) <= tol, field
    assert whole.norm_power == part.norm_power
    assert whole.accuracy == part.accuracy
    # argmin may differ only between (numerically) tied points
    g = naive_report(naive_logits(net, p, k), naive_labels(p, k))["g"]
    assert abs(g[part.argmin] - g[whole.argmin]) <= tol


@settings(max_examples=20, deadline=None)
@given(net_params, st.integers(1, 4096))
def test_memory_budget_controls_chunks_not_results(params, budget):
    net, task, p, k = make_net(params)
    n = chunk_size_for(net.width, task.n_classes, task.n_blocks, budget)
    assert n >= 1
    if n > 1:
        assert 8 * n * (2 * net.width + 2 * task.n_classes + task.n_blocks) <= budget
    starts = [s for s, *_ in iter_logits(net, task, memory_budget=budget)]
    assert starts == list(range(0, task.n_points, n))
    a = evaluate(net, task)
    b = evaluate(net, task, memory_budget=budget)
    scale = np.abs(naive_logits(net, p, k)).max()
    assert abs(a.min_margin - b.min_margin) <= RTOL * scale
    assert abs(a.class_weighted - b.class_weighted) <= RTOL * scale


def test_default_chunk_respects_budget():
    for m, C, k in [(1, 3, 1), (100, 97, 3), (5632, 23, 5), (10**7, 2, 2)]:
        n = chunk_size_for(m, C, k)
        assert n >= 1
        if n > 1:
            assert 8 * n * (2 * m + 2 * C + k) <= DEFAULT_MEMORY_BUDGET


@settings(max_examples=40, deadline=None)
@given(net_params, st.floats(0.05, 20.0))
def test_homogeneity(params, alpha):
    net, task, p, k = make_net(params)
    F1 = naive_logits(net, p, k)
    F2 = np.concatenate([F for *_, F in iter_logits(net.scaled(alpha), task)])
    scale = np.abs(F1).max() * alpha ** (k + 1)
    assert np.abs(F2 - alpha ** (k + 1) * F1).max() <= 1e-12 * scale
    a, b = evaluate(net, task), evaluate(net.scaled(alpha), task)
    assert b.norm_power == pytest.approx(alpha ** (k + 1) * a.norm_power, rel=1e-12)
    # normalized margin is scale free; error measured against the normalized logit scale
    nscale = np.abs(F1).max() / a.norm_power
    assert abs(a.normalized_margin - b.normalized_margin) <= 1e-11 * nscale
    assert abs(a.normalized_class_weighted - b.normalized_class_weighted) <= 1e-11 * nscale


@settings(max_examples=30, deadline=None)
@given(net_params)
def test_margin_below_class_weighted_margin_pointwise(params):
    """g <= g' for every point and any class weights (Def 4.6), hence h <= E_Q[g']."""
    net, task, p, k = make_net(params)
    for _, _, y, F in iter_logits(net, task):
        g = point_margins(F, y)
        gp = class_weighted_point_margins(F, y)
        assert np.all(g <= gp + 1e-12 * np.abs(F).max())
        tau = np.random.default_rng(0).random(F.shape)
        tau[np.arange(len(y)), y] = 5.0  # the entry at the correct label must be ignored
        wrong_mass = tau.sum(1) - tau[np.arange(len(y)), y]
        tau /= wrong_mass[:, None]
        gt = class_weighted_point_margins(F, y, tau)
        assert np.all(g <= gt + 1e-12 * np.abs(F).max())
    rep = evaluate(net, task)
    tol = 1e-12 * np.abs(naive_logits(net, p, k)).max()
    assert rep.min_margin <= rep.mean_margin <= rep.class_weighted + tol


def test_point_margins_small_example():
    F = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0], [1.0, 1.0, 4.0]])
    y = np.array([0, 1, 0])
    assert point_margins(F, y).tolist() == [1.0, 0.0, -3.0]
    assert class_weighted_point_margins(F, y).tolist() == [1.5, 2.5, -1.5]
    uniform = np.full(F.shape, 0.5)
    assert class_weighted_point_margins(F, y, uniform).tolist() == [1.5, 2.5, -1.5]


# ------------------------------------------------------------------------------------------
# Dense inputs and the Task protocol
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p,k,m", [(3, 2, 5), (5, 3, 7), (7, 1, 3)])
def test_dense_inputs_equal_index_inputs(p, k, m):
    net = random_network(p, k, m, np.random.default_rng(p * 100 + k))
    dense = DenseOneHotTask(ModularTask(p, k))
    assert isinstance(dense, Task) and isinstance(ModularTask(p, k), Task)
    a = evaluate(net, ModularTask(p, k), chunk_size=4)
    b = evaluate(net, dense, chunk_size=11)
    scale = np.abs(naive_logits(net, p, k)).max()
    for field in ("min_margin", "max_margin", "mean_margin", "class_weighted", "wrong_logit_spread"):
        assert abs(getattr(a, field) - getattr(b, field)) <= RTOL * scale


# ------------------------------------------------------------------------------------------
# HomogeneousNetwork helpers
# ------------------------------------------------------------------------------------------


def test_subset_and_concatenate_are_additive():
    p, k = 5, 2
    rng = np.random.default_rng(1)
    a, b = random_network(p, k, 4, rng), random_network(p, k, 3, rng)
    both = HomogeneousNetwork.concatenate([a, b])
    assert both.width == 7 and both.degree == k
    F = naive_logits(both, p, k)
    assert np.allclose(F, naive_logits(a, p, k) + naive_logits(b, p, k), rtol=0, atol=1e-13 * np.abs(F).max())
    sub = both.subset(np.arange(4))
    assert np.array_equal(sub.U, a.U) and np.array_equal(sub.W, a.W)
    assert both.norm_power() == pytest.approx(a.norm_power() + b.norm_power(), rel=1e-14)
    assert both.homogeneity == k + 1


def test_weights_are_copied_to_float64():
    U = np.ones((2, 1, 3), dtype=np.int32)
    W = np.ones((2, 3), dtype=np.float32)
    net = HomogeneousNetwork(U, W, degree=2)
    assert net.U.dtype == np.float64 and net.W.dtype == np.float64
    assert net.neuron_norms() == pytest.approx([math.sqrt(6.0)] * 2)


# ------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["U", "W"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_weights_refused(where, bad):
    U, W = np.zeros((2, 2, 3)), np.zeros((2, 3))
    (U if where == "U" else W)[1, 0] = bad
    with pytest.raises(ValueError, match=r"network weights contain NaN or inf"):
        HomogeneousNetwork(U, W, degree=2)


@pytest.mark.parametrize(
    "U_shape,W_shape", [((2, 3), (2, 3)), ((2, 2, 3), (3, 3)), ((2, 2, 3), (2,)), ((2, 2, 3, 1), (2, 3))]
)
def test_mismatched_shapes_refused(U_shape, W_shape):
    with pytest.raises(ValueError, match=r"expected U of shape \(m, k, d\) and W of shape \(m, C\)"):
        HomogeneousNetwork(np.zeros(U_shape), np.zeros(W_shape), degree=2)


@pytest.mark.parametrize("degree", [0, -1, 1.5])
def test_bad_degree_refused(degree):
    with pytest.raises(ValueError, match=r"degree must be a positive integer"):
        HomogeneousNetwork(np.zeros((1, 1, 3)), np.zeros((1, 3)), degree=degree)


def test_concatenate_different_degrees_refused():
    a = HomogeneousNetwork(np.zeros((1, 1, 3)), np.zeros((1, 3)), degree=1)
    b = HomogeneousNetwork(np.zeros((1, 1, 3)), np.zeros((1, 3)), degree=2)
    with pytest.raises(ValueError, match=r"different degrees"):
        HomogeneousNetwork.concatenate([a, b])


@pytest.mark.parametrize("U_shape,W_shape", [((2, 2, 5), (2, 5)), ((2, 3, 3), (2, 3)), ((2, 2, 3), (2, 5))])
def test_network_not_fitting_task_refused(U_shape, W_shape):
    net = HomogeneousNetwork(np.ones(U_shape), np.ones(W_shape), degree=2)
    with pytest.raises(ValueError, match=r"do not fit the task \(k = 2 blocks of size 3, 3 classes\)"):
        evaluate(net, ModularTask(3, 2))


def test_zero_network_has_no_normalized_margin():
    net = HomogeneousNetwork(np.zeros((2, 2, 3)), np.zeros((2, 3)), degree=2)
    rep = evaluate(net, ModularTask(3, 2))
    assert rep.min_margin == 0.0 and rep.norm_power == 0.0
    with pytest.raises(ValueError, match=r"zero network"):
        _ = rep.normalized_margin
    with pytest.raises(ValueError, match=r"zero network"):
        normalized_margin(net, ModularTask(3, 2))
    with pytest.raises(ValueError, match=r"zero network"):
        _ = rep.normalized_class_weighted


@pytest.mark.parametrize("norm_power", [0.0, -1.0])
def test_normalized_values_divide_by_the_norm_power(norm_power):
    # min_margin 1.5, class_weighted 2.25 over ||theta||^nu = 3: 1.5 / 3 = 0.5 and 2.25 / 3 = 0.75 (exact in binary)
    rep = MarginReport(1.5, 2.0, 1.75, 2.25, 1.0, 3.0, 0.0, 0, n_points=4)
    assert rep.normalized_margin == 0.5 and rep.normalized_class_weighted == 0.75
    off = dataclasses.replace(rep, norm_power=norm_power)  # the zero network, or a norm that is not one
    for name in ("normalized_margin", "normalized_class_weighted"):
        with pytest.raises(ValueError, match=r"^the zero network has no normalized margin$"):
            getattr(off, name)


class TestClassWeights:
    task = ModularTask(3, 2)

    def test_not_summing_to_one(self):
        Q = uniform_Q(3, 2) * 2
        with pytest.raises(ValueError, match=r"class weights must sum to 1"):
            check_class_weights(Q, self.task)
        net = random_network(3, 2, 2, np.random.default_rng(0))
        with pytest.raises(ValueError, match=r"class weights must sum to 1"):
            evaluate(net, self.task, Q=Q)

    def test_nonzero_at_correct_label(self):
        Q = np.full((9, 3), 1.0 / 27)
        with pytest.raises(ValueError, match=r"must vanish at the correct label"):
            check_class_weights(Q, self.task)

    def test_negative(self):
        Q = uniform_Q(3, 2)
        y = naive_labels(3, 2)
        Q[0, (y[0] + 1) % 3] += 0.5
        Q[1, (y[1] + 1) % 3] -= 0.5
        with pytest.raises(ValueError, match=r"finite and non-negative"):
            check_class_weights(Q, self.task)

    def test_nan(self):
        Q = uniform_Q(3, 2)
        Q[0, 1] = np.nan
        with pytest.raises(ValueError, match=r"finite and non-negative"):
            check_class_weights(Q, self.task)

    def test_wrong_shape(self):
        with pytest.raises(ValueError, match=r"must have shape \(N, C\) = \(9, 3\)"):
            check_class_weights(np.full((3, 9), 1 / 27), self.task)

    def test_valid_is_returned_as_float64(self):
        Q = check_class_weights(uniform_Q(3, 2).astype(np.float32), self.task)
        assert Q.dtype == np.float64 and Q.sum() == pytest.approx(1.0)


def test_margin_report_is_frozen():
    rep = MarginReport(0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rep.min_margin = 1.0  # type: ignore[misc]


@pytest.mark.parametrize("chunk", [0, -1, -100])
def test_non_positive_chunk_size_refused(chunk):
    # Before the fix, a negative chunk size silently skipped every point (min_margin = inf,
    # accuracy = 0) and 0 silently meant "default".
    net = random_network(3, 2, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"chunk_size must be >= 1"):
        evaluate(net, ModularTask(3, 2), chunk_size=chunk)
    with pytest.raises(ValueError, match=r"chunk_size must be >= 1"):
        list(iter_logits(net, ModularTask(3, 2), chunk_size=chunk))


# ------------------------------------------------------------------------------------------
# Hostile input (issue 32): refusals before any work
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("degree", [-2, -1, 0])
def test_int_power_refuses_non_positive_degrees(degree):
    # Before the fix, int_power(S, -2) looped forever (-2 >> 1 == -1, and -1 >> 1 == -1), and 0 hit an assert.
    with pytest.raises(InputError, match="degree must be an integer >= 1") as info:
        int_power(np.array([2.0, 3.0]), degree)
    assert info.value.param == "degree"


def test_int_power_refuses_overflow_and_non_finite_input():
    with pytest.raises(InputError, match="overflows float64") as info:
        int_power(np.array([2.0, -3.0]), 10**9)
    assert info.value.param == "degree"
    assert int_power(np.array([0.5, -1.0]), 10**9).tolist() == [0.0, 1.0]  # |S| <= 1: no overflow, answered
    with pytest.raises(InputError, match="finite") as info:
        int_power(np.array([np.nan]), 2)
    assert info.value.param == "S"


def test_forward_pass_above_the_limit_is_refused_before_any_work():
    # 3^30 points: the stream would never end
    net, task = random_network(3, 20, 2, np.random.default_rng(0)), ModularTask(3, 20)  # ModularTask refuses k > 21
    for call in (lambda: evaluate(net, task), lambda: iter_logits(net, task), lambda: normalized_margin(net, task)):
        with pytest.raises(LimitError, match="task = ") as info:
            call()
        assert info.value.param == "task"


@pytest.mark.parametrize("bad", [None, -1, "abc", [], float("nan")])
def test_objects_of_the_wrong_type_are_refused(bad):
    net, task = construction_network(3, 1), ModularTask(3, 1)
    with pytest.raises(InputError) as info:
        evaluate(bad, task)
    assert info.value.param == "net"
    with pytest.raises(InputError) as info:
        evaluate(net, bad)
    assert info.value.param == "task"
    with pytest.raises(InputError) as info:
        point_margins(bad, np.array([0]))
    assert info.value.param == "F"


def test_overflowing_logits_are_refused_not_returned_as_nan():
    net = construction_network(3, 1)
    with pytest.raises(InputError, match="overflow") as info:
        evaluate(net.scaled(1e200), ModularTask(3, 1))
    assert info.value.param == "net"


@pytest.mark.parametrize("budget", [float("nan"), float("inf"), "abc", None])
def test_memory_budget_must_be_a_finite_number(budget):
    with pytest.raises(InputError) as info:
        chunk_size_for(16, 5, 2, memory_budget=budget)
    assert info.value.param == "memory_budget"


def test_a_network_too_small_for_float64_is_told_to_rescale_not_called_zero():
    """Weights of 1e-100 at degree 3 underflow the norm to 0, and the report said "the zero network"; like an
    overflow it now says to rescale (the normalized margin does not depend on the scale); the zero network is
    still the zero network."""
    from numerics.margins import HomogeneousNetwork, normalized_margin
    from numerics.modular import ModularTask

    rng = np.random.default_rng(1)
    U, W = rng.standard_normal((4, 2, 5)), rng.standard_normal((4, 5))
    with pytest.raises(ValueError, match=r"underflows float64.*rescale") as info:
        normalized_margin(HomogeneousNetwork(U * 1e-100, W * 1e-100, 3), ModularTask(5, 2))
    assert info.value.param == "net"
    with pytest.raises(ValueError, match="the zero network"):
        normalized_margin(HomogeneousNetwork(U * 0, W * 0, 3), ModularTask(5, 2))
