"""verify/train/markov.py (minimal model, transformer runs, attention masses) and the artifacts and details of the
Edelman Ch. 8 training claims (cached quick runs); the verdicts are checked by ``test_claims.py``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics import markov as nm
from verify.claims.base import registry
from verify.claims.markov.trained import _positional_over_training
from verify.report.figures import PLOT_KINDS, plot_spec_figure
from verify.runtime.options import RunOptions
from verify.train import markov as vm
from verify.train.attention import AttentionConfig

from .claim_checks import record, slow_unless_light


def test_minimal_model_bigram_construction_gives_counts() -> None:
    """Fact 8.3 through the torch model: W_k = I, v = e_2 give the raw bigram counts as logits."""
    x = nm.sample_sequences(
        nm.sample_transition_matrices(3, 4, rng=np.random.default_rng(0)), 15, np.random.default_rng(1)
    )
    W, v = nm.bigram_construction(3, 15)
    m = vm.MinimalEnsemble(torch.as_tensor(W)[None], torch.as_tensor(v)[None])
    f = m(torch.as_tensor(x)[None])[0].detach().numpy()
    C = nm.transition_counts(x, 3)
    counts = C[np.arange(4)[:, None], np.arange(15)[None, :], x]  # c_{x_p, i} up to p
    np.testing.assert_array_equal(f, counts)


def test_toeplitz() -> None:
    M = vm.toeplitz(torch.tensor([[1.0, 2.0, 3.0]]), 3)[0]
    assert M.tolist() == [[1, 0, 0], [2, 1, 0], [3, 2, 1]]


@pytest.mark.parametrize("budget", [1, 3 * 8 * 2 * 12 * 12, 1 << 40])  # 1 chain, 3, all
def test_evaluation_in_chunks_equals_one_pass(monkeypatch, budget: int) -> None:
    """The test KLs' log-probabilities, in chunks of chains (1 chain, 3 chains, all 50 at once), equal one forward
    pass over every chain bit for bit, for the transformer and the minimal model (float64 forward)."""
    test = vm.make_test_set(3, 12, 50)
    models = [
        vm.AttentionEnsemble.init(AttentionConfig(vocab=3, max_len=12, d=8, layers=2), (0, 1), dtype=torch.float32),
        vm.MinimalEnsemble(torch.randn(2, 3, 3, generator=torch.Generator().manual_seed(0)), torch.full((2, 12), 0.1)),
    ]
    monkeypatch.setattr(vm, "EVAL_SCORE_BYTES", budget)
    for model in models:
        with torch.no_grad():
            whole = torch.log_softmax(vm._as_float64(model)(torch.as_tensor(test.inputs)), dim=-1)[:, :, -1].numpy()
        chunked = vm._last_log_probs(model, test.inputs, torch.device("cpu"))
        per_chain = 8 * 2 * 12 * 12 if model is models[0] else 8 * 2 * 12  # float64 scores (or weights) of 2 seeds
        assert vm._eval_chunk(model, 12) == max(1, budget // per_chain)
        np.testing.assert_array_equal(chunked, whole)


@pytest.mark.parametrize("budget", [1 << 27, 100 * 8 * 3 * 3 * 40 * 40])  # all 600 chains at once, 100 a chunk
def test_evaluation_memory_bounds_what_an_evaluation_allocates(monkeypatch, budget: int) -> None:
    """The estimate is at least the peak of the tensors (PeakBytes) plus the numpy arrays (tracemalloc) of each
    pass of an evaluation, the KLs and the attention masses, and at most twice the larger (a trigram model: 3 seeds,
    3 heads, t = 40, 600 test chains)."""
    import tracemalloc

    from .peak_memory import PeakBytes

    monkeypatch.setattr(vm, "EVAL_SCORE_BYTES", budget)
    model_cfg = AttentionConfig(vocab=2, max_len=40, d=16, layers=2, heads=3, positions="relative", head_width=16)
    cfg = vm.TransformerConfig(k=2, t=40, model=model_cfg, steps=1, eval_n=600, seeds=(0, 1, 2), order=3)
    model = vm.AttentionEnsemble.init(model_cfg, cfg.seeds)
    test = vm.make_test_set(cfg.k, cfg.t, cfg.eval_n, "dirichlet", cfg.order)
    cpu = torch.device("cpu")
    passes = (
        lambda: vm.evaluate_kls(model, test, cpu),
        lambda: vm._masses(model, test.inputs[: vm.MASS_CHAINS], cfg.t, cpu),
    )
    peaks = []
    for run in passes:
        tracemalloc.start()
        with PeakBytes() as tensors:
            run()
        peaks.append(tensors.peak + tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert max(peaks) <= vm.evaluation_memory(cfg) <= 2 * max(peaks), (peaks, vm.evaluation_memory(cfg))


def test_train_transformer_refuses_evaluations_that_do_not_fit(monkeypatch) -> None:
    """Before its first update the trainer checks an evaluation's estimate against the free memory: refused with
    the remedy and the override (where the out-of-memory killer would have ended the run without a word)."""
    import verify.runtime.memory
    from verify.runtime.memory import InsufficientMemoryError

    model = AttentionConfig(vocab=2, max_len=12, d=8, layers=1)
    cfg = vm.TransformerConfig(k=2, t=12, model=model, steps=2, batch=4, eval_n=300, seeds=(0,))
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: vm.evaluation_memory(cfg) // 2)
    with pytest.raises(
        InsufficientMemoryError, match=r"the evaluations of 1 seeds .*lower eval_n.*ignore-memory-check"
    ):
        vm.train_transformer(cfg, RunOptions(device="cpu"))
    run = vm.train_transformer(cfg, RunOptions(device="cpu", ignore_memory_check=True))
    assert [h["step"] for h in run.history] == [0, 2]


@pytest.mark.parametrize("budget", [1, 7 * 8 * 2 * 12 * 12, 1 << 40])  # 1 chain a chunk, 7, all 50
def test_attention_masses_in_chunks_equal_one_pass(monkeypatch, budget: int) -> None:
    """The evaluation's attention part, its maps made a chunk of chains at a time, equals attention_masses on the
    maps of one pass over every chain (and the positional encoding), bit for bit."""
    model_cfg = AttentionConfig(vocab=3, max_len=12, d=8, layers=2, positions="relative")
    model = vm.AttentionEnsemble.init(model_cfg, (0, 1), dtype=torch.float32)
    with torch.no_grad():  # away from the initialisation, where every row is nearly uniform
        for name in model.names():
            model.p(name).add_(0.5 * torch.randn(model.p(name).shape, generator=torch.Generator().manual_seed(1)))
    probe = vm.make_test_set(3, 12, 50).inputs
    monkeypatch.setattr(vm, "EVAL_SCORE_BYTES", budget)
    chunked = vm._masses(model, probe, 12, torch.device("cpu"))
    with torch.no_grad():
        _, maps = vm._as_float64(model)(torch.as_tensor(probe), return_attention=True)
    whole = vm.attention_masses(maps, probe, from_position=6)
    assert chunked.keys() == {*whole, "positional"}
    for key, value in whole.items():
        np.testing.assert_array_equal(np.asarray(chunked[key]), value)
    positional = vm.effective_positional(model, probe, torch.device("cpu"))[:, : vm.POSITIONAL_LAGS]
    np.testing.assert_array_equal(np.asarray(chunked["positional"]), positional)


def test_attention_masses_of_ideal_maps() -> None:
    """Maps that follow Prop. 8.2 exactly (layer 1 on i - 1, layer 2 uniform on the targets) score 1."""
    x = nm.sample_sequences(
        nm.sample_transition_matrices(2, 3, rng=np.random.default_rng(2)), 20, np.random.default_rng(3)
    )
    a1 = np.zeros((1, 3, 1, 20, 20))
    a1[..., 0, 0] = 1.0
    for i in range(1, 20):
        a1[..., i, i - 1] = 1.0
    tg = nm.induction_targets(x).astype(float)
    rows = tg.sum(-1, keepdims=True)
    a2 = np.where(rows > 0, tg / np.maximum(rows, 1), np.eye(20))[None, :, None]
    out = vm.attention_masses([torch.as_tensor(a1), torch.as_tensor(a2)], x)
    assert out["prev"][0] == pytest.approx(1.0) and out["prev_excl_self"][0] == pytest.approx(1.0)
    assert out["induction"][0] == pytest.approx(1.0)
    assert 0 < out["induction_chance"][0] < 1


def _plots_are_valid(rec) -> None:
    for spec in rec.artifacts["plots"]:
        assert spec["kind"] in PLOT_KINDS and spec["name"]


def test_minimal_structure_rows() -> None:
    rec = record("edelman-ch8-minimal-sgd-structure")
    cfg = registry()["edelman-ch8-minimal-sgd-structure"].configs["quick"]
    rows = rec.details["per_seed"]
    assert len(rows) == len(cfg.train.seeds) and "device" not in rec.details
    for row in rows:
        v = row["v_first"]  # the first 8 lags; the argmax runs over all t lags
        if row["v_argmax_lag"] <= len(v):
            assert v[row["v_argmax_lag"] - 1] == max(v)
    assert rec.predicted["v_argmax_lag"] == 2
    _plots_are_valid(rec)
    assert {p["name"] for p in rec.artifacts["plots"]} == {"v-profile", "W"}


def test_minimal_converged_against_strategies() -> None:
    rec = record("edelman-ch8-minimal-kl-bigram")
    pred = rec.predicted
    assert pred["bigram"]["kl"] < pred["unigram"]["kl"] < pred["uniform"]["kl"]
    hist = rec.artifacts["training"]
    assert (
        hist[0]["step"] == 0
        and hist[-1]["step"] == registry()["edelman-ch8-minimal-kl-bigram"].configs["quick"].train.steps
    )
    # at initialisation the logits are (almost) equal: the model is the uniform strategy
    np.testing.assert_allclose(hist[0]["kl_to_uniform"], 0.0, atol=1e-2)
    for row in rec.details["per_seed"]:  # the judged plateau KL averages the last quarter of the evaluations
        assert row["plateau_evaluations"] >= 2 and row["plateau_kl"] > 0
    assert rec.observed == [row["plateau_kl"] for row in rec.details["per_seed"]]
    _plots_are_valid(rec)


@slow_unless_light("edelman-ch8-transformer-phases")
def test_transformer_phase_rows_and_figures() -> None:
    rec = record("edelman-ch8-transformer-phases")
    hist = rec.details["history"]  # raw evaluations only: the judge derives the phases from them and the prediction
    assert set(hist[0]) == {"step", "kl", "kl_to_uniform", "kl_to_unigram", "kl_to_bigram"}
    assert rec.observed == hist[-1]["kl"]
    rows = registry()["edelman-ch8-transformer-phases"].judge.phase_rows(rec.predicted, hist)
    for row in rows:
        assert row["plateau_steps"] and row["final_nearest"] == "bigram"
    names = {p["name"] for p in rec.artifacts["plots"]}
    assert {"kl", "kl-to-strategies", "attention", "positional", "positional-over-training"} <= names
    heat = next(p for p in rec.artifacts["plots"] if p["name"] == "attention")
    for panel in heat["panels"]:
        z = np.array(panel["z"])
        assert np.all(np.triu(z, 1) == 0)


@slow_unless_light("edelman-ch8-transformer-induction-head")
def test_induction_head_rows() -> None:
    rec = record("edelman-ch8-transformer-induction-head")
    for row in rec.details["per_seed"]:
        assert row["induction"] > row["induction_chance"]
        assert row["induction_excess"] == pytest.approx(
            (row["induction"] - row["induction_chance"]) / (1 - row["induction_chance"])
        )


@slow_unless_light("edelman-ch8-one-layer-control")
def test_one_layer_control_rows() -> None:
    rec = record("edelman-ch8-one-layer-control")
    floor = rec.predicted["counts_bayes"]
    assert rec.predicted["bigram"]["kl"] < floor["kl"] < rec.predicted["unigram"]["kl"]
    for row in rec.details["per_seed"]:
        assert row["min_kl"] <= row["final_kl"] and row["stderr_at_min"] > 0
        assert row["min_over_unigram_strategy"] == pytest.approx(row["min_kl"] / rec.predicted["unigram"]["kl"])


def test_positional_encoding_recorded_over_training_and_plotted() -> None:
    """A tiny run records layer 1's score by lag at every evaluation; the heat map has one row per kept evaluation,
    one column per lag, one panel per seed, and every axis labelled when rendered."""
    cfg = vm.TransformerConfig(
        k=2, t=8, model=AttentionConfig(vocab=2, max_len=8), steps=4, lr=1e-2, seeds=(0, 1), eval_every=1, eval_n=16
    )
    run = vm.train_transformer(cfg, RunOptions(device="cpu"))
    assert all(np.array(h["positional"]).shape == (2, 8) for h in run.history)
    np.testing.assert_allclose(run.history[-1]["positional"], run.extra["positional"][:, :8])
    spec = _positional_over_training(run, lags=5, rows=3)
    assert spec["kind"] == "heatmap" and len(spec["panels"]) == 2 and spec["x"] == list(range(5))
    assert spec["y"] == [0, 2, 4] and all(np.array(p["z"]).shape == (3, 5) for p in spec["panels"])
    fig = plot_spec_figure("edelman-ch8-test", spec)
    axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert axes[0].get_xlabel() == "lag i - j" and axes[0].get_ylabel() == "training step"
    assert fig.axes[-1].get_ylabel() == "mean relative score (layer 1)"
