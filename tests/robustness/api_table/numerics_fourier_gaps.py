"""numerics.fourier_gaps (docs/limits.md): n <= MAX_BITS bits; Monte Carlo at most MAX_MC_SAMPLES samples and
MAX_MC_WORK ±1 entries; exact transforms at most MAX_TRANSFORM_WORK; allocations checked against memory."""

import numpy as np

MODULE = "numerics.fourier_gaps"

_W = np.array([[-1.0, -1.0, -1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, -1.0]])
_G = np.array([[0.3, -0.2, 0.1, 0.05], [0.3, 0.1, 0.1, 0.0]])

BASELINE = {
    "gradient_gap_reference": {"n": 5, "k": 2},
    "random_weights": {"dist": "sign", "draws": 2, "n": 5, "rng": np.random.default_rng(0)},
    "prefix_mask": {"n": 5, "k": 2},
    "gaps": {"g": _G, "k": 2},
    "recovered": {"ghat": _G, "k": 2},
    "batch_gradients_streamed": {
        "w": _W,
        "k": 2,
        "B": 256,
        "rng": np.random.default_rng(1),
        "b": 0.0,
        "chunk_elems": 4096,
    },
    "batch_gradients_counts": {"w": _W, "k": 2, "B": 256, "rng": np.random.default_rng(1), "b": 0.0},
    "sign_population_gradient": {"W": _W, "k": 2},
    "one_step_recovery": {
        "n": 5,
        "k": 2,
        "batch_sizes": [8, 64],
        "trials": 10,
        "seed": 0,
        "method": "auto",
        "chunk_trials": 50,
        "chunk_elems": 4096,
    },
    "ltf_gradients": {"W": np.ones((1, 5)), "ks": [2], "b": 0.0, "chunk": 64},
    "random_ltf_gaps": {"n": 5, "ks": [2], "dist": "sign", "draws": 10, "seed": 0, "chunk": 64},
    "sinusoid_gradients": {"W": _W, "k": 1, "c": 0.5, "b": 0.0, "kind": "cos"},
    "sinusoid_gradients_bruteforce": {"W": _W, "k": 1, "c": 0.5, "b": 0.0, "kind": "cos"},
    "sinusoid_gaps": {"n": 5, "ks": [1, 3], "dist": "uniform", "draws": 10, "seed": 0, "c": None, "kind": "cos"},
}

REFUSED = [
    ("batch_gradients_streamed", {"w": _W, "k": 2, "B": 10**8 + 1, "rng": np.random.default_rng(0)}, "B"),
    ("batch_gradients_streamed", {"w": np.ones((1000, 5)), "k": 2, "B": 10**7, "rng": np.random.default_rng(0)}, "B"),
    ("batch_gradients_counts", {"w": _W, "k": 2, "B": 2**62 + 1, "rng": np.random.default_rng(0)}, "B"),
    ("one_step_recovery", {"n": 5, "k": 2, "batch_sizes": [8], "trials": 10**8 + 1, "seed": 0}, "trials"),
    ("one_step_recovery", {"n": 21, "k": 2, "batch_sizes": [10**7], "trials": 1000, "seed": 0}, "trials"),
    ("one_step_recovery", {"n": 21, "k": 2, "batch_sizes": [10**8 + 1], "trials": 1, "seed": 0}, "batch_sizes"),
    ("one_step_recovery", {"n": 1001, "k": 2, "batch_sizes": [10**8], "trials": 1, "seed": 0}, "batch_sizes"),
    ("random_ltf_gaps", {"n": 20, "ks": [2], "dist": "sign", "draws": 10**4, "seed": 0}, "draws"),
    ("random_ltf_gaps", {"n": 27, "ks": [2], "dist": "sign", "draws": 1, "seed": 0}, "n"),
    ("ltf_gradients", {"W": np.ones((1, 27)), "ks": [2]}, "W"),
    ("prefix_mask", {"n": 10**5 + 1, "k": 2}, "n"),
]

NO_SIZE = {"RecoveryResult": "a record built by one_step_recovery"}
