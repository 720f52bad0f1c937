"""theory.parity (Edelman Thm 7.8, App. D.7): closed forms up to k = 1400, the exact construction up to 2^(k-1) (n+2)
<= 200000 entries, the exact cube up to n = 16, the symbolic expansion up to C(n+k-1, k) <= 20000 monomials."""

from sympy import Integer, sqrt

MODULE = "theory.parity"

BASELINE = {
    "ParityNeuron": {"u": (Integer(1), Integer(0)), "w": (Integer(1), Integer(-1))},
    "StructuralPrediction": {
        "n": 3,
        "support": (0, 2),
        "abs_u": 1 / sqrt(3),
        "w_norm": 1 / sqrt(3),
        "w_entry": 1 / sqrt(6),
    },
    "check_nk": {"n": 5, "k": 3},
    "check_support": {"n": 5, "support": [3, 0, 2], "k": 3},
    "construction": {"n": 3, "support": [0, 2], "width": 3},
    "cube": {"n": 2},
    "expectation_identity_residual": {"n": 3, "k": 2},
    "max_margin": {"k": 3},
    "max_margin_spec_form": {"k": 3},
    "min_width": {"k": 4},
    "neuron_margin": {"u": [1, 2, 3], "w": [1, -1], "support": [0, 2]},
    "optimal_neuron": {"n": 3, "support": [0, 2], "sigma": [1, -1]},
    "output_coefficient": {"k": 3},
    "parity_expectation": {"u": [1, 2, 3], "support": [0, 2], "k": 2},
    "structural_prediction": {"n": 3, "support": [2, 0]},
    "thm55_batch": {"n": 5, "k": 2, "r": 30, "eps": "0.45"},
    "thm55_bias_grid": {"k": 2},
    "thm55_first_step_rate": {"n": 5, "k": 2},
    "thm55_second_layer_rate": {"n": 5, "k": 2, "r": 30, "steps": 15_170_371},
    "thm55_steps": {"n": 5, "k": 2, "r": 30, "eps": "0.45"},
    "thm55_width": {"k": 2, "eps": "0.45"},
}

REFUSED = [
    ("max_margin", {"k": 1464}, "k"),
    ("max_margin_spec_form", {"k": 1464}, "k"),
    ("min_width", {"k": 1464}, "k"),
    ("output_coefficient", {"k": 1464}, "k"),
    ("cube", {"n": 17}, "n"),
    ("construction", {"n": 30, "support": range(30)}, "k"),
    ("construction", {"n": 200_000, "support": [0, 1]}, "k"),
    ("optimal_neuron", {"n": 200_001, "support": [0]}, "n"),
    ("check_support", {"n": 10**9, "support": range(10**9)}, "support"),
    ("expectation_identity_residual", {"n": 60, "k": 8}, "n"),
    ("parity_expectation", {"u": [1] * 60, "support": range(8)}, "n"),
    ("parity_expectation", {"u": [1] * 200_001, "support": [0]}, "u"),
    ("neuron_margin", {"u": [1] * 200_001, "w": [1, -1], "support": [0]}, "u"),
    ("neuron_margin", {"u": [1, 2], "w": [1] * 200_001, "support": [0]}, "w"),
    ("structural_prediction", {"n": 10**9, "support": range(10**9)}, "support"),
    ("thm55_bias_grid", {"k": 200_001}, "k"),
    ("thm55_width", {"k": 61, "eps": "0.45"}, "k"),
    ("thm55_steps", {"n": 2001, "k": 2, "r": 30, "eps": "0.45"}, "n"),
    ("thm55_batch", {"n": 2001, "k": 2, "r": 30, "eps": "0.45"}, "n"),
    ("thm55_first_step_rate", {"n": 2001, "k": 2}, "n"),
    ("thm55_second_layer_rate", {"n": 2001, "k": 2, "r": 30, "steps": 10}, "n"),
]

NO_SIZE = {
    "ParityConstruction": "built by construction() from its own neurons",
}
