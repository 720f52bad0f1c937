"""numerics.groups (docs/limits.md): the groups of theory.finite_groups (|G| <= 720, checked from the name before
building); float64 arrays (networks width x 3|G|, class weights |G|^3, projectors K |G|^2) checked against the
available memory before they are allocated."""

import numpy as np

from numerics.groups import optimal_neuron_network

MODULE = "numerics.groups"

_NET = optimal_neuron_network("S3", 2)

BASELINE = {
    "CharacterLPResult": {
        "value": 0.02,
        "dual_value": 0.02,
        "budgets": np.array([0.0, 0.15, 0.85]),
        "class_tau": np.array([0.0, 0.1, 0.2]),
        "used_irreps": (1, 2),
        "margin_classes": (1, 2),
        "irrep_payoff": np.array([0.0, 0.02, 0.02]),
    },
    "GroupTask": {"group": "Z2^2"},
    "IrrepDiagnostics": {
        "power": np.ones((1, 3, 3)),
        "purity": np.ones((1, 3)),
        "dominant": np.zeros((1, 3), dtype=np.int64),
        "neuron_purity": np.ones(1),
        "neuron_dominant": np.zeros(1, dtype=np.int64),
        "norms": np.ones(1),
    },
    "character_lp": {"G": "S3"},
    "character_matrix": {"G": "S3"},
    "class_weights": {"G": "S3", "class_tau": [0, 1 / 3, 0]},
    "construction_network": {"G": "S3", "width": 20, "budgets": [0, 0, 1]},
    "irrep_method": {"G": "S3", "r": 2},
    "irrep_power": {"vectors": np.arange(6.0), "G": "S3"},
    "isotypic_projectors": {"G": "S3"},
    "neuron_irrep_diagnostics": {"net": _NET, "G": "S3"},
    "optimal_neuron_network": {
        "G": "S3",
        "r": 2,
        "x": np.array([1.0, 0.0]),
        "y": np.array([0.0, 1.0]),
        "z": np.array([1.0, 1.0]),
    },
    "random_network": {"G": "S3", "width": 4, "rng": np.random.default_rng(0), "scale": 0.5},
    "real_irreps": {"G": "S3"},
}

REFUSED = [
    ("GroupTask", {"group": "D361"}, "group"),
    ("character_lp", {"G": "Z2^10"}, "group"),
    ("real_irreps", {"G": "S7"}, "group"),
    ("random_network", {"G": "S3", "width": 10**15, "rng": np.random.default_rng(0)}, "width"),
    ("construction_network", {"G": "S3", "width": 10**15}, "width"),
]

NO_SIZE: dict[str, str] = {}
