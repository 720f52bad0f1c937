"""The LSA trainers' pieces (verify/train/lsa.py), without training: the population loss against numerics.lsa's
Lemma 5.1, the prompts' layout and covariance, and the model check of SGDConfig."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import numerics.lsa as nl
from verify.train import lsa as vl

LAM = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, 0.3], [0.0, 0.3, 0.5]])  # not diagonal


def test_population_reduced_loss_is_lemma_5_1() -> None:
    """The batched torch loss equals numerics.lsa.ell_tilde(U, 1) seed by seed, for a full covariance."""
    U = torch.randn(3, 3, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    loss = vl.population_reduced_loss(U, torch.as_tensor(LAM), 7)
    for s in range(3):
        assert float(loss[s]) == pytest.approx(nl.ell_tilde(U[s].numpy(), 1.0, LAM, 7), rel=1e-12)


def test_prompts_layout_labels_and_covariance() -> None:
    """E holds x_1..x_n, x_q in its top rows, the labels <w, x_i> under x_1..x_n and 0 under the query; y_q is the
    query's label; the inputs' covariance is Lambda."""
    gen = torch.Generator().manual_seed(0)
    w = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    E, yq = vl.sample_prompts(gen, 2, 4000, LAM, 5, w=w)
    assert E.shape == (2, 4000, 4, 6)
    X = E[:, :, :3, :]  # (S, B, d, n + 1)
    torch.testing.assert_close(E[:, :, 3, :5], torch.einsum("sbdn,d->sbn", X[..., :5], w))
    assert float(E[:, :, 3, 5].abs().max()) == 0.0
    torch.testing.assert_close(yq, torch.einsum("sbd,d->sb", X[..., 5], w))
    x = X.permute(0, 1, 3, 2).reshape(-1, 3).numpy()
    np.testing.assert_allclose(x.T @ x / len(x), LAM, atol=0.05)


def test_sgd_config_refuses_an_unknown_model() -> None:
    """The model is 'reduced' or 'full'."""
    with pytest.raises(ValueError, match="model must be"):
        vl.SGDConfig(LAM, 6, 2, model="linear")
