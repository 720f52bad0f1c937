"""numerics.walsh (docs/limits.md): dense transforms over {+-1}^n with n <= MAX_N = 26 and the arrays they build
(cube, Hadamard blocks, linear forms) checked against the available memory; the exact sympy transform of at most
theory._checks.MAX_EXACT_ENTRIES values; the brute force n <= theory.boolean.BRUTE_FORCE_MAX_N."""

from fractions import Fraction

import numpy as np

from numerics.walsh import relu_prime

MODULE = "numerics.walsh"

BASELINE = {
    "cube": {"n": 2, "dtype": np.int8},
    "fwht_exact": {"values": [1, 2, 3, 4]},
    "fwht": {"values": [1.0, 2.0, 3.0, 4.0], "inplace": False},
    "hadamard_block": {"m": 2},
    "fwht_batched": {"values": np.arange(16.0).reshape(2, 8), "radix": 2},
    "linear_forms": {"W": np.array([[1.0, 2.0], [0.0, 1.0]])},
    "ifwht": {"coeffs": [10.0, -2.0, -4.0, 0.0]},
    "fwht_int": {"values": [1, 2, 3, 4]},
    "walsh_coefficients": {"values": [1.0, -1.0, 1.0, 1.0]},
    "walsh_coefficients_exact": {"values": [1, -1, 1, 1]},
    "characters": {"n": 3, "S": [0, 2]},
    "relu_prime": {"z": np.array([-1.0, 0.0, 2.0])},
    "step": {"z": np.array([-1.0, 0.0, 2.0])},
    "linear_form": {"w": [1, 2]},
    "population_gradient": {
        "sigma_prime": relu_prime,
        "w": np.ones(5),
        "b": 0.0,
        "S": [0, 1],
        "labels": np.ones(32),
    },
    "population_gradient_exact": {"w": [1, 1, 1, 1, 1], "b": Fraction(0), "S": [0, 1]},
    "population_gradient_bruteforce": {"sigma_prime": relu_prime, "w": np.ones(3), "b": 0.0, "S": [0]},
    "fourier_gap_from_gradient": {"grad_w": np.array([-3.0, -3.0, 1.0, 1.0, 1.0]) / 16, "S": [0, 1], "relaxed": False},
}

REFUSED = [
    ("cube", {"n": 27}, "n"),
    ("characters", {"n": 27, "S": [0]}, "n"),
    ("hadamard_block", {"m": 30}, "m"),
    ("fwht_batched", {"values": np.zeros((1, 2**20)), "radix": 10**9}, "radix"),
    ("linear_forms", {"W": np.ones((1, 27))}, "W"),
    ("linear_form", {"w": np.ones(27)}, "w"),
    ("fwht_exact", {"values": [0] * 2**18}, "values"),
    ("walsh_coefficients_exact", {"values": [0] * 2**18}, "values"),
    ("population_gradient", {"sigma_prime": relu_prime, "w": np.ones(27), "b": 0.0, "S": [0]}, "w"),
    ("population_gradient_exact", {"w": [1] * 27, "b": Fraction(0), "S": [0]}, "w"),
    ("population_gradient_bruteforce", {"sigma_prime": relu_prime, "w": np.ones(21), "b": 0.0, "S": [0]}, "w"),
]

NO_SIZE: dict[str, str] = {}
