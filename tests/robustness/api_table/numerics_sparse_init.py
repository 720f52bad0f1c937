"""numerics.sparse_init (docs/sparse_parity.md): the whole cube {±1}^n with n <= MAX_CUBE_N = 16, sample sizes
m <= MAX_SAMPLE_SIZE (multinomial counts: the cost does not grow with m), the work of the draws, the one step and the
gradient descent bounded by numerics.limits.MAX_WORK and the memory available."""

import numpy as np

MODULE = "numerics.sparse_init"

_PSI = np.array([[1.0, 1.0], [1.0, -1.0]])
_Y = np.array([1.0, -1.0])

BASELINE = {
    "sample_counts": {"n": 3, "m": 100, "rng": np.random.default_rng(0), "size": 2},
    "hinge_risk": {"scores": np.array([0.0, 2.0, -0.5]), "y": np.array([1, 1, -1]), "weights": np.array([1, 2, 1])},
    "thm_c16_one_step": {
        "n": 7,
        "k": 4,
        "s": 2,
        "eps": 0.1,
        "biases": [-0.0375, -0.0125, 0.0125, 0.0375],
        "eta": 2 / 15,
        "lam": 79 / 80,
        "gamma": 1 / 16,
        "width": 40,
        "m": 2000,
        "seed": 0,
    },
    "lemma_c5_deviations": {"n": 6, "k": 2, "width": 4, "m": 400, "draws": 10, "seed": 0},
    "lemma_c6_features": {"n": 4, "k": 2},
    "lemma_c9_convex_phase": {"psi": _PSI, "y": _Y, "radius": 0.1, "lam": 0.01, "steps": 50, "m": 100, "seeds": [0, 1]},
    "hinge_ridge_minimiser": {"features": _PSI, "y": _Y, "weights": np.array([0.5, 0.5]), "lam": 0.5},
    "thm_c11_end_to_end": {
        "n": 10,
        "k": 2,
        "s": 9,
        "biases": [-0.484375],
        "eta": 1.8,
        "lam": 7.6e-6,
        "width": 40,
        "m": 10**6,
        "seed": 0,
    },
}

REFUSED = [
    ("sample_counts", {"n": 17, "m": 10, "rng": np.random.default_rng(0)}, "n"),
    ("sample_counts", {"n": 3, "m": 10**18 + 1, "rng": np.random.default_rng(0)}, "m"),
    ("sample_counts", {"n": 16, "m": 10, "rng": np.random.default_rng(0), "size": 10**10 // 2**16 + 1}, "size"),
    (
        "thm_c16_one_step",
        {
            "n": 17,
            "k": 4,
            "s": 2,
            "eps": 0.1,
            "biases": [0.0],
            "eta": 0.1,
            "lam": 0.5,
            "gamma": 0.1,
            "width": 4,
            "m": 10,
            "seed": 0,
        },
        "n",
    ),
    (
        "thm_c16_one_step",
        {
            "n": 16,
            "k": 4,
            "s": 2,
            "eps": 0.1,
            "biases": [0.0],
            "eta": 0.1,
            "lam": 0.5,
            "gamma": 0.1,
            "width": 10**8,
            "m": 10,
            "seed": 0,
        },
        "width",
    ),
    ("lemma_c6_features", {"n": 17, "k": 2}, "n"),
    ("lemma_c5_deviations", {"n": 17, "k": 2, "width": 4, "m": 10, "draws": 2, "seed": 0}, "n"),
    ("lemma_c5_deviations", {"n": 16, "k": 2, "width": 100, "m": 10, "draws": 10**5, "seed": 0}, "draws"),
    (
        "lemma_c9_convex_phase",
        {"psi": _PSI, "y": _Y, "radius": 0.0, "lam": 0.01, "steps": 10**8, "m": 10, "seeds": [0]},
        "steps",
    ),
    (
        "thm_c11_end_to_end",
        {"n": 17, "k": 2, "s": 9, "biases": [0.0], "eta": 1.0, "lam": 0.1, "width": 4, "m": 10, "seed": 0},
        "n",
    ),
    (
        "thm_c11_end_to_end",
        {"n": 16, "k": 2, "s": 9, "biases": [0.0], "eta": 1.0, "lam": 0.1, "width": 10**8, "m": 10, "seed": 0},
        "width",
    ),
]

NO_SIZE: dict[str, str] = {}
