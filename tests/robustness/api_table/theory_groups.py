"""theory.groups (docs/limits.md): the groups of theory.finite_groups (|G| <= 720, checked from the name before
building; exact character tables of at most 64 classes); the D.9.2 support at most one index per irrep and class."""

from sympy import Integer

from theory.finite_groups import symmetric_group

MODULE = "theory.groups"

_S3 = symmetric_group(3)

BASELINE = {
    "GroupConstruction": {
        "group": _S3,
        "budgets": (Integer(0), Integer(0), Integer(1)),
        "coefficients": (Integer(0),) * 3,
        "width": 16,
    },
    "character_game_matrix": {"G": "S3"},
    "check_condition": {"G": "S3"},
    "condition_holds": {"G": "S3"},
    "condition_values": {"G": "S3"},
    "construction": {"G": "S3", "width": 20, "budgets": [0, 0, 1]},
    "game_value_on_support": {"G": "S3", "irreps": [1, 2], "classes": [1, 2]},
    "kappa": {"G": "S3", "class_weights": [0, "1/3", 0]},
    "lemma_d15_neuron_norm_as_printed": {"G": "S3", "r": 2},
    "max_margin": {"G": "S3"},
    "min_width": {"G": "Z2^2"},
    "optimal_neuron_scale": {"G": "S3", "r": 2},
    "plancherel_norm": {"G": "S3", "coefficients": [[[1]], [[0]], [[1, 0], [0, 2]]]},
    "s_sum": {"G": "S3"},
    "single_neuron_max": {"G": "S3", "class_weights": [0, "1/3", 0]},
    "single_neuron_max_as_printed": {"G": "S3", "class_weights": [0, "1/3", 0]},
    "table_d1_corrected": {},
    "tau": {"G": "S3"},
}

REFUSED = [
    ("max_margin", {"G": "D500"}, "group"),
    ("max_margin", {"G": "S7"}, "group"),
    ("tau", {"G": "Z2^10"}, "group"),
    ("construction", {"G": "Z1000000"}, "group"),
    ("character_game_matrix", {"G": "D361"}, "group"),
    ("min_width", {"G": "Z2^7"}, "group"),
]

NO_SIZE: dict[str, str] = {}
