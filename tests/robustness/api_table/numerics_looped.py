"""numerics.looped (docs/limits.md): allocations checked against the available memory; kappa_moments at most
MAX_MC_SAMPLES draws and MAX_MC_WORK float entries."""

import numpy as np

MODULE = "numerics.looped"

_X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
_Y = _X @ np.array([1.0, -1.0])

BASELINE = {
    "sample_prompts": {"rng": np.random.default_rng(0), "batch": 2, "n": 5, "d": 2},
    "gram_extremes": {"X": _X},
    "gd_trajectory": {"X": _X, "y": _Y, "etas": [0.1, 0.1, 0.1], "theta0": None},
    "gd_constant_step": {"X": _X, "y": _Y, "T": 5, "theta0": None},
    "smoothness_violations": {"X": _X, "y": _Y, "rng": np.random.default_rng(0), "pairs": 8},
    "kappa_moments": {"rng": np.random.default_rng(0), "n": 16, "d": 4, "draws": 20, "trials": 10, "chunk": 20000},
    "fig_8_1_errors": {"rng": np.random.default_rng(0), "n": 16, "d": 4, "T": 10, "trials": 3},
    "thm_8_17_condition_holds": {"T": 1, "d": 1, "n": 1024},
    "thm_8_17_smallest_admissible_n": {"T": 2, "d": 3},
    "thm_8_17_printed_growth": {"T": 3, "d": 2},
}

REFUSED = [
    ("kappa_moments", {"rng": np.random.default_rng(0), "n": 16, "d": 4, "draws": 10**8 + 1}, "draws"),
    ("kappa_moments", {"rng": np.random.default_rng(0), "n": 100, "d": 50, "draws": 40_000}, "draws"),
    ("sample_prompts", {"rng": np.random.default_rng(0), "batch": 10**12, "n": 5, "d": 2}, "batch"),
    ("gd_constant_step", {"X": _X, "y": _Y, "T": 10**12}, "T"),
    ("smoothness_violations", {"X": _X, "y": _Y, "rng": np.random.default_rng(0), "pairs": 10**12}, "pairs"),
    ("fig_8_1_errors", {"rng": np.random.default_rng(0), "n": 16, "d": 4, "T": 10**12, "trials": 3}, "T"),
    ("thm_8_17_smallest_admissible_n", {"T": 3001, "d": 1}, "T"),
]

NO_SIZE = {
    "Prompts": "a record built by sample_prompts",
    "KappaMoments": "a record built by kappa_moments",
    "ErrorDecay": "a record built by fig_8_1_errors",
}
