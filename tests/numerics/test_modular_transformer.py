"""numerics.modular_transformer: the split, the sequences, the W^KQ score matrix and its 2-D spectrum, the grokking
delay, against loops, exact theory and brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import modular_transformer as nm
from numerics.modular import ModularTask, construction_network
from theory import modular_transformer as tmt
from theory._checks import InputError


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 500), seed=st.integers(0, 10**6))
def test_even_split_partitions(n, seed):
    tr, te = nm.even_split(n, seed)
    assert tr.size == n // 2 and te.size == n - n // 2
    assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))
    tr2, _ = nm.even_split(n, seed)
    assert np.array_equal(tr, tr2)  # deterministic in the seed


def test_split_task_matches_the_full_task():
    p, k = 5, 3
    tr, _ = nm.even_split(p**k, 3)
    task = nm.SplitModularTask(p, k, tuple(tr))
    X, y = task.batch(0, task.n_points)
    Xf, yf = ModularTask(p, k).batch(0, p**k)
    assert np.array_equal(X, Xf[tr]) and np.array_equal(y, yf[tr])
    assert (task.n_classes, task.n_blocks, task.block_size) == (p, k, p)


def test_sum_sequences():
    tokens, labels = nm.sum_sequences(5, 3)
    assert tokens.shape == (125, 4) and (tokens[:, -1] == 5).all()
    assert np.array_equal(labels, tokens[:, :3].sum(1) % 5)


def test_score_matrix_is_the_thesis_bilinear_form():
    rng = np.random.default_rng(0)
    S, V, d, H, dh, p = 2, 8, 6, 3, 4, 7
    E, Wq, Wk = rng.standard_normal((S, V, d)), rng.standard_normal((S, H, d, dh)), rng.standard_normal((S, H, d, dh))
    M = nm.attention_score_matrix(E, Wq, Wk, p)
    s, h, a, b = 1, 2, 3, 5
    assert M.shape == (S, H, p, p)
    assert M[s, h, a, b] == pytest.approx(E[s, a] @ Wk[s, h] @ Wq[s, h].T @ E[s, b])  # e_a W^K W^Q^T e_b^T


def test_double_center_removes_row_and_column_parts():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((9, 9)) + rng.standard_normal(9)[:, None] + rng.standard_normal(9)[None, :]
    C = nm.double_center(M)
    assert np.allclose(C.sum(0), 0) and np.allclose(C.sum(1), 0)
    assert np.allclose(nm.double_center(C), C)


def test_binned_power_matches_theory_and_parseval():
    p = 13
    a = np.arange(p)
    M = np.outer(np.cos(2 * np.pi * 3 * a / p + 0.4), np.cos(2 * np.pi * 5 * a / p))
    P = nm.binned_power(M)
    assert P[3, 5] == pytest.approx(float(tmt.product_cosine_bin_power(p, 3, 5)[(3, 5)]))
    assert P.sum() == pytest.approx(p**2 * (M**2).sum())


def test_top_fraction_tied_share_and_dominant_bin():
    p = 11
    a = np.arange(p)
    prod = np.outer(np.cos(2 * np.pi * 2 * a / p), np.cos(2 * np.pi * 4 * a / p)) + 5.0  # constant is ignored
    assert nm.top_fraction(prod, 1) == pytest.approx(1.0)
    assert nm.tied_share(prod) == pytest.approx(0.0, abs=1e-12)
    assert nm.dominant_bin(prod).tolist() == [2, 4]
    sum_wave = np.cos(2 * np.pi * 3 * (a[:, None] + a[None, :]) / p)  # a function of a + b: tied bin (3, 3)
    assert nm.tied_share(sum_wave) == pytest.approx(1.0)
    two = prod + np.outer(np.cos(2 * np.pi * 1 * a / p), np.cos(2 * np.pi * 1 * a / p))
    assert nm.top_fraction(two, 1) == pytest.approx(0.5) and nm.top_fraction(two, 2) == pytest.approx(1.0)


def test_random_matrices_are_not_concentrated():
    mean, se = nm.isotropic_top_fraction(23, 9, n_samples=300)
    assert float(tmt.isotropic_bin_share(23, 9)) < mean < float(tmt.concentration_threshold(23, 9))
    assert se < 0.01


def test_head_spectra_shapes():
    rng = np.random.default_rng(2)
    spec = nm.head_spectra(rng.standard_normal((2, 3, 7, 7)), 2)
    assert spec.top_fraction.shape == (2, 3) and spec.dominant_bin.shape == (2, 3, 2)
    assert ((spec.centred_share > 0) & (spec.centred_share <= 1)).all()


def test_embedding_purity_of_the_construction_is_one():
    net = construction_network(7, 2)
    assert np.allclose(nm.embedding_purity(net), 1.0)


def test_grokking_delay():
    steps = np.array([0, 10, 20, 30, 40])
    tr = np.array([0.1, 0.995, 1.0, 1.0, 1.0])
    va = np.array([0.0, 0.1, 0.2, 0.95, 0.99])
    d = nm.grokking_delay(steps, tr, va, 0.99, 0.9)
    assert (d.train_step, d.val_step, d.delay, d.reached) == (10, 30, 20, True)
    early = nm.grokking_delay(steps, np.array([0, 0.5, 0.9, 0.99, 1]), np.array([0, 0.95, 1, 1, 1]), 0.99, 0.9)
    assert early.delay == -20  # validation first
    never = nm.grokking_delay(steps, tr, np.zeros(5), 0.99, 0.9)
    assert never.delay is None and not never.reached


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: nm.even_split(10, 0, 1.0), "train_fraction"),
        (lambda: nm.even_split(1, 0), "n_points"),
        (lambda: nm.SplitModularTask(5, 2, (0, 0)), "indices"),
        (lambda: nm.SplitModularTask(5, 2, (25,)), "indices"),
        (lambda: nm.binned_power(np.zeros((4, 4))), "p must be an odd integer"),
        (lambda: nm.top_fraction(np.zeros((5, 5)), 5), "n_bins"),
        (lambda: nm.grokking_delay(np.arange(3), np.ones(3), np.ones(3), 0.0, 0.9), "train_threshold"),
        (lambda: nm.first_reach(np.arange(3), np.ones(2), 0.5), "same shape"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_sizes_are_refused_before_allocating():
    """isotropic_top_fraction(n_samples=10**12) and even_split(10**13) died in numpy's bare MemoryError (issue 32)."""
    from theory._checks import LimitError

    for call, param in [
        (lambda: nm.isotropic_top_fraction(7, 1, n_samples=10**12), "n_samples"),
        (lambda: nm.isotropic_top_fraction(10**6 + 1, 1, n_samples=2), "p"),
        (lambda: nm.even_split(10**13, 0), "n_points"),
        (lambda: nm.sum_sequences(3, 23), "k"),
    ]:
        with pytest.raises(LimitError) as info:
            call()
        assert info.value.param == param
    with pytest.raises(ValueError, match="finite"):
        nm.top_fraction(np.full((7, 7), np.nan), 1)


def test_grokking_delay_accepts_full_accuracy_thresholds():
    """Thresholds lie in (0, 1]: 1.0 (every point right) is the usual one; the first step at or above it counts."""
    steps = np.array([0, 100, 200, 300])
    train, val = np.array([0.5, 1.0, 1.0, 1.0]), np.array([0.1, 0.5, 0.99, 1.0])
    out = nm.grokking_delay(steps, train, val, 1.0, 1.0)
    assert (out.train_step, out.val_step, out.delay) == (100, 300, 200)
    assert nm.grokking_delay(steps, train, val, 1.0, 0.99).val_step == 200  # reaching the threshold counts


@pytest.mark.parametrize(("n", "fraction"), [(3, 0.2), (10, 0.05), (2, 0.49)])
def test_even_split_refuses_an_empty_half(n, fraction):
    """floor(fraction n) = 0 train points leaves the train half empty (fraction < 1 keeps a test point)."""
    with pytest.raises(InputError) as info:
        nm.even_split(n, 0, fraction)
    assert info.value.param == "train_fraction"


def test_even_split_is_a_partition_of_the_stated_sizes():
    for n, fraction in ((7, 0.5), (10, 0.3), (2, 0.5)):
        train, test = nm.even_split(n, 1, fraction)
        assert len(train) == int(np.floor(fraction * n)) and sorted([*train, *test]) == list(range(n))
