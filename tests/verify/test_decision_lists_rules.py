"""The decision-list trainers' pieces (verify/train/decision_lists.py), without training: the indexed loss against
the literal model sigma(V X sigma(X^T W X)), and the configurations' checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from theory import decision_lists as td
from verify.train import decision_lists as vd


def test_per_sequence_loss_is_the_mean_log_loss_of_the_literal_model() -> None:
    """Loss (4.2) of each sequence, (1/n) sum_j -log f_{y_j, j}, with f the dense model of the definition."""
    L, n, B = 4, 3, 5
    g = torch.Generator().manual_seed(4)
    W = torch.randn(L, L, generator=g, dtype=torch.float64)
    V = torch.randn(L, L, generator=g, dtype=torch.float64)
    tokens = torch.stack([torch.randperm(L, generator=g)[:n] for _ in range(B)])
    labels = torch.randint(0, L, (B, n), generator=g)
    f = vd.model_dense(W, V, vd.one_hot(tokens, L))  # (B, L, n), columns are distributions over the labels
    want = [-sum(torch.log(f[b, labels[b, j], j]) for j in range(n)) / n for b in range(B)]
    torch.testing.assert_close(vd.per_sequence_loss(W, V, tokens, labels), torch.stack(want))
    torch.testing.assert_close(vd.sequence_loss(W, V, tokens, labels), torch.stack(want).mean())


def test_configurations_refuse_mixed_vocabularies_and_negative_steps() -> None:
    """Every member of a batch has the same vocabulary size; the step count is an int >= 0."""
    three = td.DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    four = td.DecisionListTask(perm=(1, 2, 3, 0), lists=((0,), (1,), (2,), (3,)))
    with pytest.raises(ValueError, match="same vocabulary size"):
        vd.PopulationGDConfig([three, four], 3, [1.0, 1.0], [0.1, 0.1], 2, (0, 1))
    V0 = np.zeros((3, 3))
    with pytest.raises(ValueError, match="steps"):
        vd.PopulationGDWVConfig([three], 3, [V0], [1.0], [0.1], -1, (0,))
    assert vd.PopulationGDWVConfig([three], 3, [V0], [1.0], [0.1], 0, (0,)).steps == 0
