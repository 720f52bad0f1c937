"""numerics.local_signal (docs/limits.md): Monte Carlo at most MAX_MC_SAMPLES samples and MAX_MC_WORK float entries;
hinge SVMs at most MAX_SVM_ENTRIES features per solve and MAX_SVM_WORK in all; allocations checked against memory."""

import numpy as np

from numerics.local_signal import LemmaB12Event, tail_sample
from theory.local_signal import lemma_b12_reduction

MODULE = "numerics.local_signal"

_X = np.array([[[1.0, 0.0], [0.0, -2.0], [0.1, 0.0]]])
_F = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
_SAMPLE = tail_sample(4, 0.2, 0.5, 200, seed=0, importance=False)
_W0 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
_WSTAR = np.array([0.6, 0.8, 0.0])
_EVENT = LemmaB12Event(
    np.array([[0.6, 0.8], [0.8, -0.6]]), np.array([[1.0, 0.0], [0.5, 0.5]]), [1.0, 0.0], [-0.3, -0.2], 1.0, 0.5
)

BASELINE = {
    "sample_inputs": {"rng": np.random.default_rng(0), "n": 4, "k": 3, "d": 2, "sigma": 0.5, "w_star": None},
    "cnn_output": {"X": _X, "w": np.array([1.0, 1.0]), "b": -0.5},
    "cnn_gradient_fd": {"X": _X[0], "w": np.array([1.0, 1.0]), "b": -0.5, "h": 1e-7},
    "soft_threshold_moments_quad": {"tau": 0.5, "sigma": 1.0},
    "truncated_moments_scipy": {"alpha": 0.5, "s": 2.0},
    "regression_mc": {"c": 1.0, "v": 2.0, "sigma": 1.0, "n": 200, "seed": 0},
    "mills_ratio": {"x": 1.0},
    "max_exceedance_mc": {"n_vars": 10, "n_samples": 200, "seed": 0, "sigma": 1.0, "chunk": 20_000},
    "linear_classifier_mc": {"k": 16, "d": 3, "n": 200, "seed": 0, "chunk": 2000},
    "error_curve_fourier": {"k": 16, "tau": 0.5, "sigma": 0.5},
    "tail_sample": {
        "k": 16,
        "sigma": 0.5,
        "tau_min": 0.3,
        "n": 200,
        "seed": 0,
        "importance": True,
        "shift": 1.0,
        "defensive": 0.2,
    },
    "margins": {"sample": _SAMPLE, "tau": 0.6},
    "error_curve_mc": {"sample": _SAMPLE, "taus": [0.5, 0.8]},
    "logistic_optimum": {"k": 16, "sigma": 0.5, "taus": [0.3, 0.5, 0.7], "n": 100, "batches": 2, "seed": 0},
    "gradient_structure_mc": {
        "k": 4,
        "w": np.array([1.0, 0.5, 0.0]),
        "b": -0.3,
        "sigma": 0.5,
        "n": 200,
        "seed": 0,
        "chunk": 10_000,
    },
    "cntk_features": {"X": _X, "w0": np.array([[1.0, 0.0]]), "biases": [0.0, -2.0]},
    "LemmaB12Event": {
        "w0": np.array([[0.6, 0.8], [0.8, -0.6]]),
        "w": np.array([[1.0, 0.0], [0.5, 0.5]]),
        "w_star": np.array([1.0, 0.0]),
        "b": [-0.3, -0.2],
        "C": 1.0,
        "sigma": 0.5,
    },
    "lemma_b12_event_mc": {"event": _EVENT, "n": 200, "seed": 0, "chunk": 50},
    "lemma_b12_event_probability": {"event": _EVENT, "nodes": 6},
    "lemma_b12_probabilities": {
        "reduction": lemma_b12_reduction(
            ((0.6, 0.8), (0.8, -0.6)), ((1.0, 0.0), (0.5, 0.5)), (1.0, 0.0), -0.3, 1.0, 0.5
        ),
        "nodes": 6,
    },
    "hinge_svm": {"F": _F, "y": np.array([1.0, 1.0, -1.0, -1.0]), "lam": 0.1},
    "cntk_gaussian_infimum": {
        "w0": _W0,
        "w_star": _WSTAR,
        "taus": [0.5, 0.0],
        "k": 100,
        "sigma": None,
        "n_theta": 16,
    },
    "cntk_infimum_search": {
        "w0": _W0,
        "w_star": _WSTAR,
        "k": 100,
        "grid": (1.0,),
        "sigma": None,
        "n_theta": 16,
        "exhaustive": False,
    },
    "cntk_error_mc": {
        "w0": _W0,
        "weights": _W0,
        "taus": [0.5, 0.0],
        "w_star": _WSTAR,
        "k": 8,
        "n": 50,
        "seed": 0,
        "sigma": None,
        "chunk": 25,
    },
    "kernel_best_error": {
        "k": 4,
        "d": 2,
        "biases": [0.0],
        "inits": 1,
        "n_train": 20,
        "n_test": 20,
        "seed": 0,
        "lam": 1e-3,
        "m": 1,
        "chunk": 500,
        "w0": None,
    },
}

REFUSED = [
    ("regression_mc", {"c": 1.0, "v": 2.0, "sigma": 1.0, "n": 10**8 + 1, "seed": 0}, "n"),
    ("max_exceedance_mc", {"n_vars": 10, "n_samples": 10**8 + 1, "seed": 0}, "n_samples"),
    ("max_exceedance_mc", {"n_vars": 10**6, "n_samples": 10**5, "seed": 0}, "n_samples"),
    ("linear_classifier_mc", {"k": 16, "d": 3, "n": 10**8 + 1, "seed": 0}, "n"),
    ("linear_classifier_mc", {"k": 10**4, "d": 10, "n": 10**6, "seed": 0}, "n"),
    ("tail_sample", {"k": 16, "sigma": 0.5, "tau_min": 0.3, "n": 10**8 + 1, "seed": 0}, "n"),
    (
        "logistic_optimum",
        {"k": 16, "sigma": 0.5, "taus": [0.3, 0.5, 0.7], "n": 10**8 + 1, "batches": 2, "seed": 0},
        "n",
    ),
    (
        "logistic_optimum",
        {"k": 16, "sigma": 0.5, "taus": [0.3, 0.5, 0.7], "n": 10**6, "batches": 10**4, "seed": 0},
        "batches",
    ),
    (
        "gradient_structure_mc",
        {"k": 4, "w": np.array([1.0, 0.5, 0.0]), "b": -0.3, "sigma": 0.5, "n": 10**8 + 1, "seed": 0},
        "n",
    ),
    ("sample_inputs", {"rng": np.random.default_rng(0), "n": 10**8 + 1, "k": 3, "d": 2, "sigma": 0.5}, "n"),
    (
        "kernel_best_error",
        {"k": 4, "d": 2, "biases": [0.0], "inits": 1, "n_train": 10**8 + 1, "n_test": 20, "seed": 0},
        "n_train",
    ),
    (
        "kernel_best_error",
        {"k": 4, "d": 2000, "biases": [0.0], "inits": 1, "n_train": 10**4, "n_test": 20, "seed": 0},
        "n_train",
    ),
    ("hinge_svm", {"F": np.zeros((1, 10**7 + 1)), "y": np.ones(1), "lam": 0.1}, "F"),
    (
        "cntk_gaussian_infimum",
        {"w0": _W0, "w_star": _WSTAR, "taus": [0.5, 0.0], "k": 100, "n_theta": 1025},
        "n_theta",
    ),
    (
        "cntk_error_mc",
        {"w0": _W0, "weights": _W0, "taus": [0.5, 0.0], "w_star": _WSTAR, "k": 8, "n": 10**8 + 1, "seed": 0},
        "n",
    ),
    (
        "lemma_b12_event_mc",
        {"event": LemmaB12Event([[0.6, 0.8]], [[1.0, 0.0]], [1.0, 0.0], [-0.3], 1.0, 0.5), "n": 10**8 + 1, "seed": 0},
        "n",
    ),
    ("lemma_b12_event_probability", {"event": _EVENT, "nodes": 10**4}, "nodes"),
    (
        "lemma_b12_event_probability",
        {"event": LemmaB12Event(np.ones((12, 2)), np.ones((12, 2)), [1.0, 0.0], 0.0, 1.0, 0.5)},
        "w0",
    ),
]

NO_SIZE = {
    "CNTKInfimum": "a record built by cntk_gaussian_infimum",
    "CNTKSearch": "a record built by cntk_infimum_search",
    "GradientStructure": "a record built by gradient_structure_mc",
    "KernelResult": "a record built by kernel_best_error",
    "LemmaB12Probabilities": "a record built by lemma_b12_event_probability",
    "LogisticOptimum": "a record built by logistic_optimum",
    "SVMResult": "a record built by hinge_svm",
    "TailSample": "a record built by tail_sample",
}
