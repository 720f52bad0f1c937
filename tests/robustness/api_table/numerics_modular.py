"""numerics.modular (docs/limits.md): ModularTask p^(k+1) <= 2^36 (p^k points with p logits each) and p^k <= 2^62;
network weights checked against the available memory."""

import numpy as np

from numerics.modular import random_network

MODULE = "numerics.modular"

BASELINE = {
    "ModularTask": {"p": 5, "k": 2, "allow_even": False},
    "neuron_blocks": {"p": 5, "k": 2, "zeta": 1, "phases": np.zeros(2), "theta_w": 0.0, "amplitude": 1.0},
    "construction_network": {"p": 3, "k": 2, "width": 10},
    "memorising_network": {"p": 5, "alpha": 1.0, "beta": 0.25, "table": None},
    "optimal_neuron_network": {"p": 5, "k": 2, "zeta": 1, "phases": np.zeros(2)},
    "random_network": {"p": 5, "k": 2, "width": 3, "rng": np.random.default_rng(0), "scale": 0.5},
    "deformed_neuron": {
        "p": 7,
        "k": 2,
        "zeta": 1,
        "phases": np.zeros(2),
        "mismatch": 0.5,
        "block_fractions": np.array([0.4, 0.3, 0.3]),
        "second_zeta": 3,
        "split": 0.25,
        "dc_fraction": 0.1,
    },
    "psi_fourier": {"net": random_network(5, 2, 3, np.random.default_rng(0))},
}

REFUSED = [
    ("ModularTask", {"p": 10**9 + 7, "k": 1}, "p"),
    ("ModularTask", {"p": 5, "k": 16}, "k"),
    ("ModularTask", {"p": 3, "k": 100}, "k"),
    ("neuron_blocks", {"p": 10**12, "k": 2, "zeta": 1, "phases": np.zeros(2), "theta_w": 0.0, "amplitude": 1.0}, "p"),
    ("construction_network", {"p": 5, "k": 2, "width": 10**12}, "width"),
    ("construction_network", {"p": 3, "k": 12}, "k"),
    ("memorising_network", {"p": 10**6 + 1, "alpha": 1.0, "beta": 0.25}, "p"),
    ("optimal_neuron_network", {"p": 5, "k": 10**9}, "k"),
    ("random_network", {"p": 5, "k": 2, "width": 10**12, "rng": np.random.default_rng(0)}, "width"),
    ("random_network", {"p": 10**12, "k": 2, "width": 1, "rng": np.random.default_rng(0)}, "p"),
    ("random_network", {"p": 5, "k": 10**12, "width": 1, "rng": np.random.default_rng(0)}, "k"),
    ("deformed_neuron", {"p": 10**12 + 1, "k": 2}, "p"),
    ("deformed_neuron", {"p": 7, "k": 10**12}, "k"),
]

NO_SIZE: dict[str, str] = {}
