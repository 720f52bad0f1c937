"""numerics.sparse_variable (docs/sparse_variable.md): embeddings, contexts and heads checked against the available
memory; all_inputs T <= 20; exact Gram matrices at most theory._checks.MAX_EXACT_ENTRIES entries; exact head errors
within MAX_EXACT_ERROR_WORK; Monte Carlo and rejection sampling within numerics.limits.MAX_WORK; subsets searched
by consistent_supports at most MAX_SUPPORTS."""

from fractions import Fraction

import numpy as np

from numerics.sparse_variable import NumericConstruction, all_inputs, mlp_arrays, orthonormal_embedding
from theory import sparse_variable as ts

MODULE = "numerics.sparse_variable"

_C = ts.lemma_a19(6, (1, 3), Fraction(1, 2))
_NC = NumericConstruction.build(_C)
_EMB = orthonormal_embedding(6)
_REP = ts.symmetric_representation(5, (0, 2), [Fraction(0), Fraction(1), Fraction(0)])
_B = all_inputs(6)[:8]
_X = np.array([[1, 1, 0, 1], [1, 1, 1, 0], [0, 1, 1, 1]])
_W_V = np.array([[1.0], [0.0]])

BASELINE = {
    "Embedding": {"pos": _EMB.pos, "tok": _EMB.tok, "cls": _EMB.cls, "coherence": Fraction(0)},
    "cross_gram": {"emb": _EMB, "rows": [0, 1], "cols": [1, 2]},
    "gram_of": {"emb": _EMB, "positions": [0, 1]},
    "orthonormal_embedding": {"n_pos": 4},
    "coherent_embedding": {"n_pos": 5, "d_pos": 16, "rng": np.random.default_rng(0)},
    "materialize": {"weight": _C.heads[0].W_K, "emb": _EMB, "shape_right": 1, "left_k": None},
    "NumericConstruction": {
        "construction": _C,
        "emb": _NC.emb,
        "R": _NC.R,
        "W_Q": _NC.W_Q,
        "W_K": _NC.W_K,
        "W_V": _NC.W_V,
        "W_C": _NC.W_C,
        "P": _NC.P,
    },
    "exact_head_errors": {"c": _C, "emb": _EMB, "b": _B[:2], "digits": 30},
    "mlp_arrays": {"net": _REP.net},
    "mlp_forward": {"arrays": mlp_arrays(_REP.net), "y": np.array([[1.2], [0.1], [-0.05]])},
    "NumericRepresentation": {
        "heads": NumericConstruction.build(_REP.construction),
        "mlp": mlp_arrays(_REP.net),
        "rep": _REP,
    },
    "all_inputs": {"T": 3},
    "random_inputs": {"T": 5, "n": 10, "rng": np.random.default_rng(0), "p": 0.25},
    "target_values": {"c": _C, "b": _B},
    "relevant_keys": {"c": _C, "b": _B, "symmetric": True},
    "worst_errors_by_level": {
        "outputs": np.array([0.9, 0.1, -0.9, 0.05]),
        "truth": np.array([1.0, 0.0, -1.0, 0.0]),
        "keys": np.array([0, 1, 2, 1]),
        "n_keys": 3,
    },
    "softmax": {"z": np.array([0.0, np.log(3.0)])},
    "softmax_l11": {"theta": np.zeros(4)},
    "softmax_linf_to_l1_ratio": {"theta1": np.zeros(2), "theta2": np.array([1e-6, -1e-6])},
    "lemma47_sides": {
        "X": np.array([[1.0, 0.0], [-1.0, 0.0]]),
        "z": np.array([1.0, 0.0]),
        "params": (np.zeros((2, 2)), _W_V),
        "params_hat": (0.1 * np.eye(2), _W_V),
        "sigma": "tanh",
    },
    "lemma47_ratios": {"n_random": 2, "rng": np.random.default_rng(0), "T": 4, "d": 3, "k": 2, "eps": 1e-4},
    "shattering_inputs": {"T": 4},
    "shattering_patterns": {"T": 8},
    "and_labels": {"x": _X, "support": [0, 1]},
    "consistent_supports": {"x": _X, "y": np.array([1, 1, 0]), "s": 2, "limit": 5},
    "UnidentifiableSample": {"message": "no identifiable sample"},
    "sample_identifiable_and": {
        "T": 6,
        "m": 12,
        "support": (0, 1, 2),
        "p": 0.7,
        "rng": np.random.default_rng(0),
        "max_tries": 100,
    },
    "sample_threshold": {"ms": [10, 20, 40, 80], "success_rates": [0.1, 0.5, 0.85, 1.0], "level": 0.8},
    "log_trend": {"Ts": [16, 32, 64], "thresholds": [20.0, 30.0, 45.0], "info_bits": [9.13, 12.3, 15.3]},
}

REFUSED = [
    ("all_inputs", {"T": 21}, "T"),
    ("orthonormal_embedding", {"n_pos": 10**12}, "n_pos"),
    ("coherent_embedding", {"n_pos": 10**7, "d_pos": 16, "rng": np.random.default_rng(0)}, "n_pos"),
    ("coherent_embedding", {"n_pos": 5, "d_pos": 10**12, "rng": np.random.default_rng(0)}, "d_pos"),
    ("random_inputs", {"T": 5, "n": 10**12, "rng": np.random.default_rng(0)}, "n"),
    ("random_inputs", {"T": 10**12, "n": 1, "rng": np.random.default_rng(0)}, "T"),
    ("materialize", {"weight": _C.heads[0].W_K, "emb": _EMB, "shape_right": 10**12}, "shape_right"),
    ("exact_head_errors", {"c": _C, "emb": _EMB, "b": _B[:2], "digits": 10**6}, "digits"),
    (
        "worst_errors_by_level",
        {"outputs": np.zeros(4), "truth": np.zeros(4), "keys": np.zeros(4, int), "n_keys": 10**9},
        "n_keys",
    ),
    ("softmax_l11", {"theta": np.zeros(10**5)}, "theta"),
    ("lemma47_ratios", {"n_random": 10**12, "rng": np.random.default_rng(0)}, "n_random"),
    ("lemma47_ratios", {"n_random": 2, "rng": np.random.default_rng(0), "d": 10**6}, "d"),
    ("shattering_inputs", {"T": 10**12}, "T"),
    ("shattering_patterns", {"T": 10**6}, "T"),
    ("consistent_supports", {"x": np.ones((1, 200), dtype=int), "y": np.ones(1, dtype=int), "s": 10}, "s"),
    (
        "sample_identifiable_and",
        {"T": 6, "m": 12, "support": (0, 1, 2), "p": 0.7, "rng": np.random.default_rng(0), "max_tries": 10**12},
        "max_tries",
    ),
    (
        "sample_identifiable_and",
        {"T": 6, "m": 10**12, "support": (0, 1, 2), "p": 0.7, "rng": np.random.default_rng(0)},
        "m",
    ),
]

NO_SIZE: dict[str, str] = {}
