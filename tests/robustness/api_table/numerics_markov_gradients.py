"""numerics.markov_gradients (docs/markov.md): quadrature and gradient work bounded (MAX_K_LAG, MAX_NODES,
MAX_GRADIENT_WORK, MAX_QUADRATURE_T, MAX_QUADRATURE_COUNT; derive_markov MAX_DERIVE_K / MAX_DERIVE_T), one-hot
and attention arrays checked against the available memory. The quadratures take about a second each (dblquad)."""

import numpy as np

from numerics.markov_gradients import FiniteTGradients

MODULE = "numerics.markov_gradients"

_SEQ = np.array([[0, 0, 1, 0, 2, 0, 0, 1, 2, 0]])
_G = FiniteTGradients(4, np.eye(2), np.ones(4), np.ones(4))

BASELINE = {
    "minimal_model_logits": {"seqs": _SEQ, "W": np.eye(3), "v": np.eye(10)[1]},
    "construction_outputs": {"seqs": _SEQ, "k": 3, "c": 40.0},
    "lemma84_quadrature": {"name": "D"},
    "K_quadrature": {"j": 1},
    "duffy_nodes": {"t": 4, "extra": 4},
    "symmetric_nodes": {"t": 4, "extra": 16},
    "FiniteTGradients": {"t": 4, "GW": np.eye(2), "GV": np.ones(4), "GI": np.ones(4)},
    "finite_t_gradients": {"t": 4, "prior": "symmetric", "chunk": 64},
    "two_step_v": {"grads": _G, "c": 1.0, "eta": 0.1},
    "sample_v_gradients": {"seqs": np.array([[0, 1, 1, 0, 1], [1, 1, 0, 0, 1]]), "k": 2},
    "last_token_kl": {"P": np.full((1, 2, 2), 0.5), "seqs": np.array([[0, 1, 1]]), "strategy": "bigram"},
    "posterior_mean_quadrature": {"counts_row": [3, 1], "alpha": [1, 1]},
    "expected_kl_quadrature": {"counts_row": [3, 1]},
    "two_state_classes_by_runs": {"t": 3},
    "two_state_strategy_kl_quadrature": {"t": 2, "strategies": ("uniform", "bigram"), "chunk": 8},
    "derive_markov": {"k": 3, "t": 2},
    "curriculum_nodes": {"t": 4, "eps": 0.25, "extra": 4},
    "bilinear_gradient_tensor": {"t": 4, "prior": "curriculum", "eps": 0.25, "chunk": 64},
    "population_step": {"T": np.ones((3, 2, 2)), "W": np.eye(2), "v": np.ones(3), "eta": 0.1, "weight_decay": 1.0},
    "hinge_margin_needed": {"W": np.eye(2), "v": np.ones(3)},
    "CurriculumRun": {"t": 2, "W1": np.eye(2), "v1": np.ones(2), "W2": np.eye(2), "v2": np.ones(2), "margin": 1.0},
    "curriculum_two_steps": {"t": 4, "eps": 0.25, "w_init": 0.0, "v_init": 1.0, "c1": 1.0, "c2": 1.0},
    "richardson_limit": {"values": [1.3, 1.15, 1.075], "ts": [10, 20, 40]},
}

REFUSED = [
    ("K_quadrature", {"j": 65}, "j"),
    ("duffy_nodes", {"t": 4002}, "t"),
    ("duffy_nodes", {"t": 4, "extra": 2000}, "extra"),
    ("symmetric_nodes", {"t": 10**12}, "t"),
    ("finite_t_gradients", {"t": 10**9}, "t"),
    ("finite_t_gradients", {"t": 600}, "t"),
    ("construction_outputs", {"seqs": _SEQ, "k": 10**6}, "k"),
    ("sample_v_gradients", {"seqs": np.zeros((1, 4), dtype=np.int64), "k": 10**6}, "k"),
    (
        "minimal_model_logits",
        {"seqs": np.zeros((10**4, 10**3), dtype=np.int8), "W": np.eye(2), "v": np.ones(10**3)},
        "seqs",
    ),
    ("posterior_mean_quadrature", {"counts_row": [10**6 + 1, 1], "alpha": [1, 1]}, "counts_row"),
    ("expected_kl_quadrature", {"counts_row": [10**6 + 1, 1]}, "counts_row"),
    ("two_state_classes_by_runs", {"t": 10**5}, "t"),
    ("two_state_strategy_kl_quadrature", {"t": 151}, "t"),
    ("derive_markov", {"k": 11, "t": 10}, "k"),
    ("derive_markov", {"k": 2, "t": 2001}, "t"),
    ("bilinear_gradient_tensor", {"t": 600}, "t"),
    ("curriculum_nodes", {"t": 4, "eps": 0.25, "extra": 2000}, "extra"),
]

NO_SIZE: dict[str, str] = {}
