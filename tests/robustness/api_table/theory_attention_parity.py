"""theory.attention_parity: constructions of 2(nu2 + 1) 2^nu2 exact codes (nu2 <= 12), exact ranks nu2 <= 9, task
sets d(d-1) <= MAX_EXACT_ENTRIES pairs, closed forms of at most MAX_DIGITS digits."""

from fractions import Fraction

from theory.attention_parity import parity_construction

MODULE = "theory.attention_parity"

_G = parity_construction(2)
_TASKS = [(0, 3), (1, 2), (2, 3)]

BASELINE = {
    "ParityHeads": {
        "a": (Fraction(1), Fraction(-1)),
        "codes": ((Fraction(1), Fraction(2)), (Fraction(-1), Fraction(0))),
    },
    "check_dim": {"d": 8},
    "check_gamma": {"gamma": "1/8"},
    "hamming_hinge_loss": {"bits": 1, "tasks": _TASKS},
    "hamming_margins": {"bits": 2, "tasks": _TASKS},
    "parity_construction": {"nu2": 2, "nu_pos": 2},
    "parity_g1": {"nu1": 1, "nu2": 2, "pos_scale": 2},
    "parity_heads": {"a": [1, -1], "codes": [["-3.3", "0.5"], [1, 2]]},
    "parity_hinge_loss": {"heads": _G, "tasks": _TASKS, "gamma": "0.1"},
    "parity_margins": {"heads": _G, "tasks": _TASKS},
    "parity_norm_formula": {"nu2": 2, "gamma": "1/8"},
    "parity_pt_bound": {"d": 4, "gamma": "1/8"},
    "parity_task_sets": {"d": 4, "k": 2},
    "pattern_weights": {"gamma": "1/8"},
    "projection_ratio": {"nu1": 1, "nu2": 2, "M": 10},
}

REFUSED = [
    ("parity_construction", {"nu2": 13}, "nu2"),
    ("parity_g1", {"nu1": 1, "nu2": 13}, "nu2"),
    ("projection_ratio", {"nu1": 1, "nu2": 10}, "nu2"),
    ("parity_margins", {"heads": parity_construction(6)}, "heads"),
    ("parity_margins", {"heads": parity_construction(2), "tasks": [(0, 1)] * 4167}, "tasks"),
    ("parity_task_sets", {"d": 448, "k": 2}, "d"),
    ("parity_norm_formula", {"nu2": 13_288, "gamma": "1/8"}, "nu2"),
    ("parity_pt_bound", {"d": 10**2000, "gamma": "1/8"}, "d"),
]

NO_SIZE: dict[str, str] = {}
