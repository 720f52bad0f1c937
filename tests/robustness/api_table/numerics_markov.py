"""numerics.markov (docs/markov.md): sampling and Monte Carlo work (chains x tokens x states, matrix draws,
Python steps) within numerics.limits.MAX_WORK; arrays checked against the available memory; the n-gram's
k^(order-1) contexts below 2^62; the group keys of mc_counts_bayes_kl within int64."""

import numpy as np

MODULE = "numerics.markov"

_P = np.array([[0.9, 0.1], [0.5, 0.5]])
_SEQ = np.array([[0, 0, 1, 0, 2, 0, 0, 1, 2, 0]])
_T = np.array([[[0.4, 0.6], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]])

BASELINE = {
    "sample_transition_matrices": {"k": 3, "n": 4, "prior": "dirichlet", "rng": np.random.default_rng(0)},
    "stationary": {"P": _P},
    "sample_sequences": {"P": np.array([[0.0, 1.0], [1.0, 0.0]]), "t": 6, "rng": np.random.default_rng(0)},
    "transition_counts": {"seqs": np.array([[0, 1, 0, 0, 1, 1]]), "k": 2},
    "strategy_probs": {"seqs": _SEQ, "k": 3, "strategy": "bigram", "alpha": 1.0},
    "true_next": {"P": _P, "seqs": np.array([[0, 1, 0]])},
    "kl": {"p": np.array([[0.5, 0.5], [0.2, 0.8]]), "q": np.array([[0.4, 0.6], [0.3, 0.7]])},
    "sample_ngram_tables": {"k": 2, "order": 3, "n": 5, "rng": np.random.default_rng(0)},
    "lift_ngram": {"T": _T, "k": 2},
    "sample_ngram_sequences": {"T": _T, "t": 12, "rng": np.random.default_rng(0)},
    "true_next_ngram": {"T": _T, "seqs": np.array([[0, 1, 1, 0]])},
    "mc_strategy_kl": {
        "k": 2,
        "t": 8,
        "strategy": "bigram",
        "n": 200,
        "rng": np.random.default_rng(0),
        "prior": "dirichlet",
        "chunk": 100,
        "order": 2,
    },
    "mc_counts_bayes_kl": {
        "k": 2,
        "t": 8,
        "n": 200,
        "rng": np.random.default_rng(0),
        "prior": "dirichlet",
        "chunk": 100,
    },
    "induction_targets": {"seqs": _SEQ},
    "bigram_construction": {"k": 3, "t": 10},
    "unigram_construction": {"k": 3, "t": 10},
}

REFUSED = [
    ("sample_transition_matrices", {"k": 3, "n": 10**12, "rng": np.random.default_rng(0)}, "n"),
    ("sample_transition_matrices", {"k": 10**6, "n": 1, "rng": np.random.default_rng(0)}, "k"),
    (
        "sample_transition_matrices",
        {"k": 5, "n": 1000, "prior": "doubly_stochastic", "rng": np.random.default_rng(0)},
        "n",
    ),
    ("sample_sequences", {"P": _P, "t": 10**9, "rng": np.random.default_rng(0)}, "t"),
    ("transition_counts", {"seqs": np.zeros((1, 4), dtype=np.int64), "k": 10**6}, "k"),
    ("strategy_probs", {"seqs": np.zeros((1, 4), dtype=np.int64), "k": 10**9, "strategy": "bigram"}, "k"),
    ("sample_ngram_tables", {"k": 2, "order": 100, "n": 1, "rng": np.random.default_rng(0)}, "order"),
    ("sample_ngram_tables", {"k": 2, "order": 3, "n": 10**12, "rng": np.random.default_rng(0)}, "n"),
    ("sample_ngram_sequences", {"T": _T, "t": 10**9, "rng": np.random.default_rng(0)}, "t"),
    ("mc_strategy_kl", {"k": 2, "t": 8, "strategy": "bigram", "n": 10**12, "rng": np.random.default_rng(0)}, "n"),
    ("mc_strategy_kl", {"k": 2, "t": 10**9, "strategy": "bigram", "n": 10, "rng": np.random.default_rng(0)}, "t"),
    (
        "mc_strategy_kl",
        {"k": 2, "t": 10**5, "strategy": "bigram", "n": 10**5, "rng": np.random.default_rng(0)},
        "chunk",
    ),
    ("mc_counts_bayes_kl", {"k": 2, "t": 8, "n": 10**12, "rng": np.random.default_rng(0)}, "n"),
    ("mc_counts_bayes_kl", {"k": 10, "t": 10**6, "n": 10, "rng": np.random.default_rng(0)}, "k"),
    ("bigram_construction", {"k": 3, "t": 10**12}, "t"),
    ("unigram_construction", {"k": 10**7, "t": 10}, "k"),
]

NO_SIZE: dict[str, str] = {}
