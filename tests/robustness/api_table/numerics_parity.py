"""numerics.parity (docs/limits.md): SparseParityTask n <= 26 (MAX_BITS); the construction through theory.parity
(2^(k-1) (n + 2) exact entries); network weights checked against the available memory."""

from theory import parity as tp

MODULE = "numerics.parity"

BASELINE = {
    "check_bits": {"n": 10},
    "SparseParityTask": {"n": 3, "support": (2, 0)},
    "network_from_neurons": {"neurons": [tp.optimal_neuron(4, [0, 1])], "k": 2, "width": 3},
    "construction_network": {"n": 6, "support": [0, 1, 2], "width": 5},
    "optimal_neuron_network": {"n": 6, "support": [0, 1, 2], "sigma": [1, -1, 1]},
    "random_network": {"n": 6, "k": 3, "width": 10, "seed": 0, "scale": 1.0},
}

REFUSED = [
    ("check_bits", {"n": 27}, "n"),
    ("SparseParityTask", {"n": 27, "support": (0,)}, "n"),
    ("construction_network", {"n": 30, "support": range(30)}, "k"),
    ("construction_network", {"n": 6, "support": [0, 1, 2], "width": 10**12}, "width"),
    ("network_from_neurons", {"neurons": [tp.optimal_neuron(4, [0, 1])], "k": 2, "width": 10**12}, "width"),
    ("optimal_neuron_network", {"n": 10**9, "support": [0, 1]}, "n"),
    ("random_network", {"n": 6, "k": 3, "width": 10**12}, "width"),
    ("random_network", {"n": 10**12, "k": 3, "width": 1}, "n"),
]

NO_SIZE: dict[str, str] = {}
