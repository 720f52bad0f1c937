"""numerics.certificates (docs/limits.md): the dictionary LP at most MAX_LP_ENTRIES; a certificate's forward pass at
most MAX_CERTIFY_FORWARD, its multi-start search at most MAX_SEARCH_WORK, the modular construction at most
MAX_CONSTRUCTION_ENTRIES, all estimated from p, k, n or the group's order before anything is built; the SOS
relaxation only up to MAX_SOS_MONOMIALS monomials (beyond, noted and skipped)."""

import numpy as np

from numerics.modular import ModularTask, construction_network, random_network

MODULE = "numerics.certificates"

BASELINE = {
    "unit_neurons": {"dictionary": construction_network(3, 2), "normalize": True, "atol": 1e-9},
    "feature_columns": {"task": ModularTask(3, 1)},
    "columns_to_class_weights": {"values": np.arange(6.0), "task": ModularTask(3, 1)},
    "margin_features": {
        "dictionary": construction_network(3, 2),
        "task": ModularTask(3, 2),
        "normalize": True,
        "memory_budget": 2**20,
    },
    "solve_dictionary_lp": {
        "dictionary": construction_network(3, 1),
        "task": ModularTask(3, 1),
        "solver": None,
        "solver_options": None,
        "normalize": True,
    },
    "bracket_verdict": {
        "lower": 0.25,
        "upper_rigorous": 0.2500001,
        "gamma": 0.25,
        "rtol": 1e-6,
        "attained": True,
        "upper_heuristic": None,
    },
    "Certificate": {
        "lower": 0.25,
        "upper_heuristic": 0.25,
        "upper_rigorous": 0.2500001,
        "tol": 1e-6,
        "lower_source": "a network",
        "weighting": "uniform q and tau",
        "heuristic": {},
        "sdp": None,
        "sdp_note": "",
    },
    "check_certify_settings": {"tol": 1e-6, "n_starts": 8, "seed": 0, "maxiter": 100},
    "certify": {
        "task": ModularTask(3, 1),
        "degree": 1,
        "lower_network": construction_network(3, 1),
        "Q": None,
        "grading": None,
        "weighting": "uniform q and tau",
        "sdp": False,
        "n_starts": 1,
        "seed": 0,
        "tol": 1e-6,
        "solver": None,
        "max_block": 160,
        "maxiter": 50,
    },
    "Certifier": {"n_starts": 1, "seed": 0, "tol": 1e-6, "progress": None},
    "certify_modular": {"p": 3, "k": 1, "lower_network": None, "n_starts": 1, "seed": 0, "tol": 1e-6},
    "certify_parity": {"n": 3, "k": 2, "lower_network": None, "n_starts": 1, "seed": 0, "tol": 1e-6},
    "certify_group": {"name": "Z2", "lower_network": None, "n_starts": 1, "seed": 0, "tol": 1e-6},
}

REFUSED = [
    ("certify_modular", {"p": 5, "k": 7}, "k"),
    ("certify_modular", {"p": 101, "k": 3}, "k"),
    ("certify_modular", {"p": 30_003, "k": 1}, "p"),
    ("certify_modular", {"p": 3, "k": 10**9}, "k"),
    ("certify_parity", {"n": 20, "k": 3}, "n"),
    ("certify_group", {"name": "S6"}, "name"),
    ("certify_group", {"name": "S5"}, "name"),
    (
        "certify",
        {
            "task": ModularTask(101, 3),
            "degree": 3,
            "lower_network": random_network(101, 3, 2, np.random.default_rng(0)),
            "n_starts": 1,
        },
        "task",
    ),
    (
        "certify",
        {
            "task": ModularTask(31, 3),
            "degree": 3,
            "lower_network": random_network(31, 3, 2, np.random.default_rng(0)),
            "n_starts": 100,
        },
        "n_starts",
    ),
    (
        "solve_dictionary_lp",
        {"dictionary": random_network(5, 2, 20_000, np.random.default_rng(0)), "task": ModularTask(5, 2)},
        "dictionary",
    ),
    (
        "solve_dictionary_lp",
        {"dictionary": random_network(31, 3, 2, np.random.default_rng(0)), "task": ModularTask(31, 3)},
        "task",
    ),
    ("check_certify_settings", {"n_starts": 10**4 + 1}, "n_starts"),
]

NO_SIZE = {
    "CertificateError": "an exception class, raised only",
    "LPResult": "a record built by solve_dictionary_lp",
}
