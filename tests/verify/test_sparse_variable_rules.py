"""The Sec. 4.6 trainers' bookkeeping (verify/train/sparse_variable.py), without training: the chunked [CLS]
accuracy against a brute-force count, the per-trial success rule, the trial-major seed layout, the optimisation
both tasks share, and the configuration's boundaries."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from verify.runtime.options import RunOptions
from verify.train import sparse_variable as vs

TINY = vs.ModelConfig(d=8, heads=2, dropout=0.0)


class _TableModel:
    """Logits at every position read from a fixed table by the first token (the point's index)."""

    def __init__(self, table: torch.Tensor) -> None:
        self.table = table  # (S, n, 2)

    def eval(self) -> None:
        pass

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        rows = torch.stack([self.table[s, x[s, :, 0]] for s in range(x.shape[0])])  # (S, B, 2)
        return rows[:, :, None].expand(-1, -1, x.shape[2], -1)


@pytest.mark.parametrize("chunk", [1, 2, 3, 100])
def test_chunked_cls_accuracy_equals_the_whole_set_count(chunk) -> None:
    """Per-seed accuracy of the [CLS] prediction over all 7 points, whatever the chunk."""
    S, n = 2, 7
    g = torch.Generator().manual_seed(5)
    table = torch.randn(S, n, 2, generator=g)
    y = torch.randint(0, 2, (S, n), generator=g)
    x = torch.arange(n).repeat(S, 1)[:, :, None].expand(S, n, 4).contiguous()
    want = [sum(int(table[s, i].argmax()) == int(y[s, i]) for i in range(n)) / n for s in range(S)]
    np.testing.assert_allclose(vs._accuracy(_TableModel(table), x, y, chunk=chunk), want)


def test_a_trial_succeeds_when_one_of_its_restarts_exceeds_the_bar() -> None:
    """Members are trial-major; a trial succeeds when any of its restarts' best accuracy is strictly above
    success_acc (reaching it exactly is not enough)."""
    cfg = vs.AndRunConfig(T=6, m=10, trials=(0, 1, 2), restarts=2, model=TINY, success_acc=0.99)
    best = np.array([0.99, 0.5, 0.2, 1.0, 0.995, 0.0])
    run = vs.AndRun(cfg, history=[], supports=[], rejections=[], best_val=best)
    assert run.trial_success() == [False, True, True]


def test_ensemble_members_are_trial_major() -> None:
    """Member i * restarts + r is restart r of trial i."""
    cfg = vs.AndRunConfig(T=6, m=10, trials=(4, 7), restarts=3, model=TINY)
    assert cfg.seeds == tuple(vs._init_seed(t, r) for t in (4, 7) for r in range(3))
    assert len(set(cfg.seeds)) == 6


def test_both_tasks_train_with_their_configured_adamw() -> None:
    """The schedule is AdamW at the configured lr and weight decay, steps, evaluation period and threads."""
    cfg = vs.ParityRunConfig(T=5, steps=7, lr=3e-3, weight_decay=0.25, eval_every=3, num_threads=2)
    schedule = vs._adamw(cfg, "parity")
    assert (schedule.optimizer, schedule.steps, schedule.lr, schedule.weight_decay) == ("adamw", 7, 3e-3, 0.25)
    assert (schedule.eval_every, schedule.num_threads, schedule.desc) == (3, 2, "parity")


@pytest.mark.parametrize(
    "kw, match",
    [(dict(m=0), "m >= 1"), (dict(restarts=0), "restarts >= 1"), (dict(support=(0, 2)), "support has 2 positions")],
)
def test_and_config_refuses_values_just_outside_the_range(kw, match) -> None:
    """No samples, no restarts, or a support of another size than s are refused."""
    with pytest.raises(ValueError, match=match):
        vs.AndRunConfig(**{"T": 6, "m": 10, "model": TINY, **kw})


def test_parity_run_labels_are_the_parity_of_the_support(monkeypatch) -> None:
    """The training batches and the test set are labelled by the parity of the bits at the support."""
    drawn: list[np.ndarray] = []
    labels: list[torch.Tensor] = []
    draw, loss = vs.ns.random_inputs, vs.cls_cross_entropy

    def spy_draw(*args, **kwargs):
        drawn.append(draw(*args, **kwargs))
        return drawn[-1]

    def spy_loss(logits, y):
        labels.append(y.clone())
        return loss(logits, y)

    monkeypatch.setattr(vs.ns, "random_inputs", spy_draw)
    monkeypatch.setattr(vs, "cls_cross_entropy", spy_loss)
    cfg = vs.ParityRunConfig(T=5, support=(0, 2, 4), seeds=(0,), model=TINY, steps=1, batch=16, n_test=32, eval_every=1)
    vs.train_parity(cfg, RunOptions(device="cpu"))
    test, batch = drawn[0], drawn[1]
    assert test.shape == (32, 5) and batch.shape == (16, 5)
    parity = {32: test[:, [0, 2, 4]].sum(1) % 2, 16: batch[:, [0, 2, 4]].sum(1) % 2}
    assert {y.shape[1] for y in labels} == {16, 32}
    for y in labels:
        np.testing.assert_array_equal(y[0].numpy(), parity[y.shape[1]])
