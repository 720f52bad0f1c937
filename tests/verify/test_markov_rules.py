"""The Markov trainers' data and cost bookkeeping (verify/train/markov.py), without training: the training batches
against numerics.markov's sampler seed by seed, next-token targets, and the evaluation memory by hand count."""

from __future__ import annotations

import numpy as np
import torch

import numerics.markov as nm
import verify.train.markov as vm
from verify.train.attention import AttentionConfig


def test_training_batches_are_the_reference_sampler_seed_by_seed() -> None:
    """Each seed's chains are numerics.markov's (transition matrices, then the walk) from that seed's own stream,
    whatever the other seeds of the ensemble; the targets are the next tokens."""
    k, t, B, seeds = 3, 6, 5, (0, 7)
    draw = vm._batches(k, t, B, "dirichlet", 2, vm._seed_streams(seeds), torch.device("cpu"))
    x, y = draw(0)
    assert x.shape == y.shape == (2, B, t)
    for i, seed in enumerate(seeds):
        rng = vm._seed_streams((seed,))[0]
        P = nm.sample_transition_matrices(k, B, "dirichlet", rng)
        chains = nm.sample_sequences(P, t + 1, rng)
        np.testing.assert_array_equal(x[i].numpy(), chains[:, :t])
        np.testing.assert_array_equal(y[i].numpy(), chains[:, 1:])
    assert not torch.equal(x[0], x[1])


def test_evaluation_memory_is_the_stated_count() -> None:
    """Hand count of the docstring for two seeds, one head, t = 10, 20 test chains, two layers, k = 2 (bigram
    strategies), k = 3 trigram chains (one more strategy), and one layer on 300 chains."""
    cfg = vm.TransformerConfig(k=2, t=10, model=AttentionConfig(vocab=2, max_len=10, layers=2), seeds=(0, 1), eval_n=20)
    per_chain = 8 * 2 * 1 * 10 * 10  # float64 scores of one chain, all seeds
    assert vm.EVAL_SCORE_BYTES // per_chain >= 20 and vm.MASS_CHAINS >= 20  # one chunk holds every chain
    kls = 6 * 20 * per_chain
    masses = (2 + 5) * 20 * per_chain  # above 4 * 20 score buffers
    test_set = 8 * 20 * 11 * 2 * (3 + 1) + 8 * 20 * 11  # chains' laws and three strategies' predictions, the chains
    assert vm.evaluation_memory(cfg) == max(kls, masses) + test_set
    tri = vm.TransformerConfig(
        k=3, t=10, model=AttentionConfig(vocab=3, max_len=10, layers=2), seeds=(0, 1), eval_n=20, order=3
    )
    assert vm.evaluation_memory(tri) == max(kls, masses) + 8 * 20 * 11 * 3 * (4 + 1) + 8 * 20 * 11
    # one layer and more test chains than the attention part reads: the KLs' six buffers dominate
    many = vm.TransformerConfig(
        k=2, t=10, model=AttentionConfig(vocab=2, max_len=10, layers=1), seeds=(0, 1), eval_n=300
    )
    probe = vm.MASS_CHAINS  # the attention part's chains
    assert probe < 300
    masses_many = max(6 * probe, 4 * probe) * per_chain
    assert 6 * 300 * per_chain > masses_many
    assert vm.evaluation_memory(many) == 6 * 300 * per_chain + 8 * 300 * 11 * 2 * 4 + 8 * 300 * 11


def test_the_architecture_follows_the_chains() -> None:
    """A TransformerConfig's model reads k tokens and context t, whatever the AttentionConfig passed in."""
    cfg = vm.TransformerConfig(k=3, t=7, model=AttentionConfig(vocab=2, max_len=100))
    assert (cfg.model.vocab, cfg.model.max_len) == (3, 7)
