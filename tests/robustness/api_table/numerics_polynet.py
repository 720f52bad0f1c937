"""numerics.polynet (docs/boolean.md): brute force over {+-1}^n with n = k n' <= MAX_N = 20; the plateau scan
and the Walsh transforms of the perturbed neuron bounded by n' and n (numerics.walsh, n <= 26)."""

from fractions import Fraction

import numpy as np

MODULE = "numerics.polynet"

_W = np.array([[1.0, 0.5], [2.0, -0.5], [1.5, 1.0]])

BASELINE = {
    "relevant_mask": {"k": 3, "n_prime": 2},
    "polynet_output": {"W": _W},
    "population_gradient_bruteforce": {"W": _W},
    "error_bruteforce": {"W": np.ones((3, 3))},
    "integrate_flow": {"v0": [1.0, 1.0, 1.0], "t_eval": [0.0, 0.25, 0.4], "rtol": 1e-10, "atol": 1e-12},
    "squared_growth_spread": {"V": np.array([[1.0, 2.0, 0.5], [1.1, 2.05, 0.7]]), "v0": [1.0, 2.0, 0.5]},
    "equal_init_error_float": {"v": np.array([1.0, 2.0, 3.0]), "k": 3, "n_prime": 5},
    "hitting_time": {"k": 3, "v_target": 2.0, "v0": 1.0, "rtol": 1e-10, "atol": 1e-12},
    "flow_time_quad": {"k": 3, "v_from": 1.0, "v_to": 4.0},
    "plateau_numeric": {"k": 3, "n_prime": 11, "eps": 0.49},
    "perturbed_neuron_weights": {"n": 5, "s": 2, "eps": 0.1},
    "perturbed_neuron_correlation": {"n": 7, "k": 4, "s": 2, "eps": 0.01, "b": 0.0},
    "perturbed_neuron_correlation_exact": {"n": 7, "k": 4, "s": 2, "eps": Fraction(1, 10), "b": Fraction(0)},
    "polynet_sgd_interval_ends": {"steps": 10, "intervals": 4},
    "polynet_sgd_init": {"k": 2, "n_prime": 3, "seed": 0},
    "block_error": {"W": _W},
    "flow_error_crossings": {"W0": np.ones((3, 5)), "levels": [0.49, 0.0]},
    "gaussian_init": {"k": 3, "n_prime": 5, "seed": 0},
    "polynet_sgd": {
        "W0": np.array([[[1.0, -1.0, 1.0], [1.0, 1.0, -1.0]]]),
        "steps": 20,
        "rate_scale": 0.01,
        "seeds": (0,),
        "batch_size": 2,
        "intervals": 4,
    },
}

REFUSED = [
    ("polynet_output", {"W": np.ones((3, 7))}, "W"),
    ("population_gradient_bruteforce", {"W": np.ones((3, 7))}, "W"),
    ("error_bruteforce", {"W": np.ones((3, 7))}, "W"),
    ("relevant_mask", {"k": 10**6, "n_prime": 2}, "k"),
    ("plateau_numeric", {"k": 3, "n_prime": 10**8 + 1}, "n_prime"),
    ("equal_init_error_float", {"v": np.ones(3), "k": 3, "n_prime": 10**8 + 1}, "n_prime"),
    ("perturbed_neuron_weights", {"n": 10**12, "s": 2, "eps": 0.1}, "n"),
    ("perturbed_neuron_correlation", {"n": 27, "k": 4, "s": 2, "eps": 0.01}, "n"),
    ("perturbed_neuron_correlation_exact", {"n": 27, "k": 4, "s": 2, "eps": Fraction(1, 10)}, "n"),
    ("integrate_flow", {"v0": np.ones(10**5), "t_eval": [0.0, 0.1]}, "v0"),
    ("hitting_time", {"k": 10**5, "v_target": 2.0}, "k"),
    ("polynet_sgd", {"W0": np.ones((1, 2, 3)), "steps": 10**9, "rate_scale": 0.01, "seeds": (0,)}, "steps"),
    ("polynet_sgd_interval_ends", {"steps": 10**11, "intervals": 4}, "steps"),
    ("polynet_sgd_init", {"k": 10**12, "n_prime": 3, "seed": 0}, "k"),
    ("polynet_sgd_init", {"k": 2, "n_prime": 10**12, "seed": 0}, "n_prime"),
    ("block_error", {"W": np.ones((3, 22))}, "W"),
    ("flow_error_crossings", {"W0": np.ones((1001, 3)), "levels": [0.49]}, "W0"),
    ("gaussian_init", {"k": 1001, "n_prime": 3, "seed": 0}, "k"),
    ("gaussian_init", {"k": 3, "n_prime": 10**12, "seed": 0}, "n_prime"),
]

NO_SIZE: dict[str, str] = {}
