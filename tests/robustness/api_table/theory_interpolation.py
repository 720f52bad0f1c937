"""theory.interpolation: exact least squares rows x cols x min(rows, cols) <= 200000 (the constructions k <= 57);
lists of k + 1 entries k + 1 <= MAX_EXACT_ENTRIES."""

import sympy

MODULE = "theory.interpolation"

_PHI = sympy.Matrix([[1, -2], [1, 0], [1, 2]])

BASELINE = {
    "LeastSquares": {
        "weights": (sympy.Integer(0), sympy.Integer(1)),
        "residual": (sympy.Integer(0),) * 3,
        "residual_sq": sympy.Integer(0),
        "rank": 2,
    },
    "c6_bias": {"k": 4, "j": 1},
    "c6_features": {"k": 4, "printed": True},
    "c6_index_set": {"k": 4, "printed": True},
    "claim5_as_printed": {"k": 3, "schedule": "i"},
    "claim5_corrected": {"k": 3},
    "claim5_corrected_biases": {"k": 2},
    "claim5_corrected_weights": {"k": 4},
    "claim5_printed_biases": {"k": 3, "schedule": "i+1"},
    "claim5_printed_weights": {"k": 3},
    "feature_matrix": {"k": 2, "features": [lambda s: sympy.Integer(1), lambda s: sympy.Integer(s)]},
    "lattice": {"k": 3},
    "least_squares": {"Phi": _PHI, "y": [1, -1, 1]},
    "parity_on_lattice": {"k": 3},
    "relu": {"z": "3/2"},
}

REFUSED = [
    ("lattice", {"k": 200_000}, "k"),
    ("parity_on_lattice", {"k": 200_000}, "k"),
    ("claim5_corrected_biases", {"k": 200_000}, "k"),
    ("claim5_corrected_weights", {"k": 200_000}, "k"),
    ("claim5_printed_biases", {"k": 200_000, "schedule": "i"}, "k"),
    ("claim5_printed_weights", {"k": 200_000}, "k"),
    ("c6_index_set", {"k": 400_002}, "k"),
    ("claim5_corrected", {"k": 58}, "k"),
    ("claim5_as_printed", {"k": 58, "schedule": "i"}, "k"),
    ("c6_features", {"k": 58}, "k"),
    ("feature_matrix", {"k": 200_000, "features": [lambda s: sympy.Integer(1)]}, "k"),
    ("least_squares", {"Phi": sympy.zeros(59, 59), "y": [0] * 59}, "Phi"),
]

NO_SIZE: dict[str, str] = {}
