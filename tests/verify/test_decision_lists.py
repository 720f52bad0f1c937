"""The torch decision-list model (Karp thesis Ch. 4, Eq. 4.1): the dense and indexed forms agree, autograd equals
the closed-form gradient identities and finite differences (hypothesis over random W, V and sequences), tokens
outside a sequence get exactly zero gradient, one GD step of V, batched population GD, the Hessian."""

from __future__ import annotations

import random
import warnings
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import decision_lists as nd
from theory import decision_lists as td
from verify.runtime.loop import torch_threads
from verify.runtime.options import RunOptions
from verify.train import decision_lists as vd

CPU = RunOptions(device="cpu")  # the trainers' old default device (RunOptions defaults to "auto")


@pytest.fixture(autouse=True)
def _one_thread():
    """The tensors here are tiny: one torch thread (as the module uses on the CPU) keeps the tests fast on a busy
    machine."""
    with torch_threads(1):
        yield


instances = st.tuples(st.integers(3, 9), st.integers(0, 10**6)).flatmap(
    lambda t: st.tuples(st.just(t[0]), st.integers(1, t[0]), st.just(t[1]))
)


def _draw(L: int, n: int, seed: int, scale: float = 2.0):
    rng = np.random.default_rng(seed)
    task = td.random_task(L, min(L, 4), seed, min_length=1)
    W = rng.normal(size=(L, L)) * scale
    V = rng.normal(size=(L, L)) * scale
    seq = tuple(int(t) for t in rng.permutation(L)[:n])
    return task, W, V, seq


@settings(max_examples=30, deadline=None)
@given(instances)
def test_dense_model_equals_indexed_logits(inst):
    L, n, seed = inst
    _task, W, V, _ = _draw(L, n, seed)
    S = nd.sample_sequences(L, n, 4, np.random.default_rng(seed))
    Wt, Vt, tok = torch.tensor(W), torch.tensor(V), torch.tensor(S)
    dense = vd.model_dense(Wt, Vt, vd.one_hot(tok, L))
    indexed = torch.softmax(vd.position_logits(Wt, Vt, tok), -1).transpose(-1, -2)
    assert torch.allclose(dense, indexed, atol=1e-14, rtol=0)
    assert torch.allclose(dense.sum(-2), torch.ones(4, n, dtype=torch.float64))


@settings(max_examples=40, deadline=None)
@given(instances)
def test_autograd_equals_the_closed_form_identities(inst):
    L, n, seed = inst
    task, W, V, seq = _draw(L, n, seed)
    aW, aV = vd.autograd_gradients(task, W, V, seq)
    S = np.array([seq])
    cW, cV = nd.closed_form_gradients(W, V, S, nd.labels_array(task, S))
    assert np.max(np.abs(aW - cW)) < 1e-12 and np.max(np.abs(aV - cV)) < 1e-12
    outside = sorted(set(range(L)) - set(seq))
    assert np.all(aW[outside, :] == 0.0) and np.all(aW[:, outside] == 0.0)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_autograd_equals_the_40_digit_identities_and_finite_differences(seed):
    rng = random.Random(seed)
    L, n = 5, 3
    task = td.random_task(L, 3, seed, min_length=1)
    W = [[Fraction(rng.randint(-32, 32), 16) for _ in range(L)] for _ in range(L)]
    V = [[Fraction(rng.randint(-32, 32), 16) for _ in range(L)] for _ in range(L)]
    seq = tuple(rng.sample(range(L), n))
    gW, gV = td.sequence_gradients(task, W, V, seq)
    Wf, Vf = np.array(W, dtype=float), np.array(V, dtype=float)
    aW, aV = vd.autograd_gradients(task, Wf, Vf, seq)
    fW, fV = vd.finite_difference_gradients(task, Wf, Vf, seq)
    for exact, auto, fd in ((gW, aW, fW), (gV, aV, fV)):
        ex = np.array([[float(x) for x in row] for row in exact])
        assert np.max(np.abs(ex - auto)) < 1e-14
        assert np.max(np.abs(ex - fd)) < 1e-8


def test_attention_jacobian_autograd_is_the_softmax_jacobian():
    _task, W, _V, seq = _draw(6, 4, 7)
    a = seq[1]
    J = vd.attention_jacobian_autograd(W, seq, a)
    p = np.zeros(6)
    e = np.exp(W[list(seq), a])
    p[list(seq)] = e / e.sum()
    inside = np.zeros(6, dtype=bool)
    inside[list(seq)] = True
    expected = (np.diag(p) - np.outer(p, p)) * np.outer(inside, inside)
    assert np.max(np.abs(J - expected)) < 1e-15


def test_one_step_of_v_at_zero_is_the_label_count_formula_on_a_batch():
    L, n, eta = 64, 5, 64.0**2
    task = td.cyclic_task(L)
    S = nd.sample_sequences(L, n, 300, np.random.default_rng(0))
    Y = nd.labels_array(task, S)
    V = torch.zeros((L, L), dtype=torch.float64, requires_grad=True)
    loss = vd.sequence_loss(torch.zeros((L, L), dtype=torch.float64), V, torch.tensor(S), torch.tensor(Y))
    (g,) = torch.autograd.grad(loss, V)
    N, freq = np.zeros((L, L)), np.zeros(L)
    for s, ys in zip(S, Y):
        freq[s] += 1.0 / len(S)
        for y in ys:
            N[y, s] += 1.0 / len(S)
    # on a batch the uniform-prediction term is (eta / (n L)) freq(t); its expectation is eta / L^2
    assert np.max(np.abs(-eta * g.numpy() - (eta / n**2 * N - eta / (n * L) * freq[None, :]))) < 1e-9


def test_one_gd_step_v_class_means_match_the_closed_form():
    task = td.cyclic_task(64)
    res = vd.one_gd_step_v(task, 5, 64.0**2, v0_std=1e-4, samples=2000, chunks=4, seed=1, options=CPU)
    exact = td.one_step_v_classes(64, 5, 64**2)
    for k in td.ENTRY_CLASSES:
        assert abs(res.classes[k]["mean"] - float(exact[k])) <= 5 * res.classes[k]["se"] + 1e-3
    assert np.all(np.argmax(res.V1, axis=0) == np.asarray(task.perm))


def test_one_gd_step_v_leaves_out_a_class_without_entries():
    """At L = 8 Fig. 4.1's shifts (10, 20, 30) are also antishifts, so that class has no entry: it used to get the
    mean of nothing (NaN, with numpy's "Mean of empty slice" warning); now it is left out, the others are finite."""
    task = td.cyclic_task(8)
    assert {k: len(r) for k, (r, _) in nd.class_indices(task).items()}["antishift"] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = vd.one_gd_step_v(task, 3, 1.0, v0_std=0.1, samples=40, chunks=2, seed=0, options=CPU)
    assert set(res.classes) == set(td.ENTRY_CLASSES) - {"antishift"}
    assert all(np.isfinite([c["mean"], c["se"]]).all() for c in res.classes.values())


def test_population_gd_matches_numpy_and_seeds_do_not_interact():
    tasks = [td.random_task(7, 3, s, min_length=1) for s in (0, 1)]
    both = vd.population_gd_w(vd.PopulationGDConfig(tasks, 3, [5.0, 20.0], [0.4, 0.1], 15, seeds=(0, 1)), CPU)
    alone = vd.population_gd_w(vd.PopulationGDConfig(tasks[1:], 3, [20.0], [0.1], 15, seeds=(1,)), CPU)
    ref = nd.population_gd_w(tasks[0], 3, 5.0, 0.4, 15)
    assert np.max(np.abs(both.W[1] - alone.W[0])) < 1e-14
    assert np.max(np.abs(both.W[0] - ref.W)) < 1e-12
    assert np.allclose(both.loss[:, 0], ref.loss, atol=1e-12) and np.allclose(both.ordered[:, 0], ref.ordered)


def test_hessian_matches_finite_differences_of_the_closed_form_gradient():
    L, n, c = 5, 2, 3.0
    task = td.random_task(L, 2, 0, min_length=1)
    S = nd.subsets_array(L, n)
    Y = nd.labels_array(task, S)
    V = c * nd.permutation_matrix(task)
    h = 1e-5
    H = np.zeros((L * L, L * L))
    for i in range(L * L):
        E = np.zeros(L * L)
        E[i] = h
        E = E.reshape(L, L)
        H[:, i] = (
            (nd.closed_form_gradients(E, V, S, Y)[0] - nd.closed_form_gradients(-E, V, S, Y)[0]) / (2 * h)
        ).ravel()
    assert vd.hessian_lambda_max(task, n, c, device="cpu") == pytest.approx(
        np.linalg.eigvalsh((H + H.T) / 2).max(), rel=1e-7
    )


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda: vd.population_gd_w(vd.PopulationGDConfig([td.cyclic_task(70)], 3, [1.0, 2.0], [0.1], 2, (0,)), CPU),
            "one task",
        ),
        (
            lambda: vd.one_gd_step_v(td.cyclic_task(70), 3, 1.0, v0_std=0.0, samples=10, chunks=3, seed=0, options=CPU),
            "chunks",
        ),
        (lambda: vd.attention_jacobian_autograd(np.zeros((4, 4)), (0, 1), 3), "not in the sequence"),
        (lambda: vd.autograd_gradients(td.cyclic_task(70), np.zeros((70, 70)), np.zeros((70, 70)), (1, 1)), "4.1"),
        (
            lambda: vd.directional_derivatives(
                td.cyclic_task(70),
                np.zeros((70, 70)),
                np.zeros((70, 70)),
                np.zeros((1, 71), dtype=int),
                0,
                np.zeros(70),
            ),
            "exceeds",
        ),
    ],
)
def test_bad_input_raises_a_clear_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()
