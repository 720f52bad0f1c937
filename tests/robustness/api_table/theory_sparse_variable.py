"""theory.sparse_variable (docs/limits.md): exact constructions for T <= MAX_CONTEXT = 10^5 positions, the Lemma A.25
network at most MAX_MLP_ENTRIES = 10^6 exact entries (the general representation s <= 7), vector targets at most
2^16 patterns, fixed-score errors at most 4000 digits and scores |R kappa| <= 10^50, log2 C(T, s) of at most 4000
digits."""

import random
from dataclasses import fields
from fractions import Fraction

from theory.sparse_variable import lemma_a19, relu_interpolation_net, symmetric_representation

MODULE = "theory.sparse_variable"

_C = lemma_a19(4, [1, 3])
_NET = relu_interpolation_net([[Fraction(0)], [Fraction(1)]], [Fraction(3), Fraction(-2)], Fraction(1, 4))
_REP = symmetric_representation(3, [0, 2], [Fraction(5), Fraction(0), Fraction(7)])
_TERM = (Fraction(1), ("tok", 0), ("k", 0))


def _record(obj: object) -> dict:
    return {f.name: getattr(obj, f.name) for f in fields(obj) if f.init and not f.name.startswith("_")}  # type: ignore[arg-type]


BASELINE = {
    "Construction": _record(_C),
    "Head": _record(_C.heads[0]),
    "RankOneSum": {"terms": (_TERM,)},
    "ReluNet": _record(_NET),
    "SparseRepresentation": _record(_REP),
    "and_information_bound": {"T": 10, "s": 3},
    "and_threshold_log_law": {"T": 32},
    "chance_cross_entropy": {},
    "check_bits": {"b": [0, 1, 1], "T": 3},
    "check_sparsity": {"T": 5, "s": 2},
    "check_support": {"T": 5, "support": [3, 1]},
    "chi": {"bit": 1},
    "exact_head_norms": {"c": _C},
    "fixed_score_worst_case_error": {"kappa": [1, 1, 0], "support": [0, 1], "R": _C.R, "digits": 20},
    "general_representation": {
        "T": 3,
        "support": [0, 2],
        "table": [1, 2, 3, 4],
        "mapping": "deterministic",
        "delta_rule": "corrected",
    },
    "head_norm_closed_forms": {"lemma": "A.19", "output": "scalar", "T": 4, "s": 2, "gamma": Fraction(1)},
    "lemma47_sharp_ratios": {},
    "lemma_a19": {
        "T": 4,
        "support": [1, 3],
        "gamma": Fraction(1),
        "output": "vector",
        "coherence": Fraction(0),
        "thesis_wv": False,
    },
    "lemma_a19_coherent": {
        "T": 3,
        "support": [0, 1],
        "gamma": Fraction(1),
        "gram": [[1, Fraction(1, 10)], [Fraction(1, 10), 1]],
        "coherence": Fraction(1, 10),
    },
    "lemma_a20": {"T": 4, "support": [1, 3], "gamma": Fraction(1), "output": "scalar"},
    "lemma_a21": {"T": 4, "support": [1, 3], "gamma": Fraction(1, 3), "output": "scalar", "coherence": Fraction(0)},
    "mlp_max_entries": {"net": _NET},
    "mlp_norms": {"net": _NET},
    "prop48_target_weight_bound": {},
    "r_a19": {"T": 4, "s": 2, "gamma": Fraction(1), "coherence": Fraction(1, 4)},
    "r_a19_coherent": {"T": 4, "s": 2, "gamma": Fraction(1), "coherence": Fraction(1, 4)},
    "r_a20": {"T": 4, "gamma": Fraction(1, 2)},
    "r_a21": {"T": 4, "s": 2, "gamma": Fraction(1, 3), "coherence": Fraction(0)},
    "random_support": {"T": 10, "s": 3, "rng": random.Random(0)},
    "relu_interpolation_net": {"points": [[0], [1]], "values": [3, -2], "delta": Fraction(1, 4), "bump": "corrected"},
    "score_coefficients": {"c": lemma_a19(3, [0, 1]), "cross_gram": [[1, Fraction(1, 10), 0], [Fraction(1, 10), 1, 0]]},
    "shattering_size": {"T": 1000},
    "softmax_jacobian_l11": {"p": [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]},
    "softmax_l11_sup": {"T": 4},
    "head_input_lipschitz": {"value_norm": 2, "qk_norm": "1/2", "softmax_constant": 2},
    "block_perturbation_bound": {
        "out_term": 1,
        "input_gap": "1/2",
        "score_term": "1/4",
        "value_term": 0.5,
        "value_norm": 1,
        "qk_norm": 2,
        "out_norm": 1,
        "sigma_lipschitz": 1,
    },
    "scalar_output_bound": {"readout_norm": 2, "cls_gap": "1/4", "readout_term": "1/8"},
    "perturbation_bound_sharp_ratio": {},
    "softmax_truncation_bound": {"T": 8, "s": 2, "R": 3},
    "softmax_truncation_sup": {"T": 8, "s": 2, "R": 3},
    "softmax_linf_to_l1_constant": {},
    "stated_head_bounds": {"c": _C},
    "stated_mlp_bounds": {"net": _NET, "lemma": "A.22", "gamma": Fraction(1, 2)},
    "symmetric_representation": {
        "T": 3,
        "support": [0, 2],
        "levels": [5, 0, 7],
        "mapping": "bag",
        "delta_rule": "corrected",
    },
    "worst_case_error": {"c": _C},
    "worst_case_input": {"c": _C},
}

REFUSED = [
    ("lemma_a19", {"T": 100_001, "support": [0]}, "T"),
    ("lemma_a19_coherent", {"T": 100_001, "support": [0], "gamma": 1, "gram": [[1]], "coherence": 0}, "T"),
    ("lemma_a20", {"T": 100_001, "support": [0]}, "T"),
    ("lemma_a21", {"T": 100_001, "support": [0]}, "T"),
    ("symmetric_representation", {"T": 100_001, "support": [0], "levels": [0, 1]}, "T"),
    ("symmetric_representation", {"T": 400, "support": list(range(400)), "levels": [0] * 401}, "support"),
    ("general_representation", {"T": 100_001, "support": [0], "table": [0, 1]}, "T"),
    ("general_representation", {"T": 8, "support": list(range(8)), "table": [0] * 256}, "support"),
    ("general_representation", {"T": 100, "support": list(range(100)), "table": []}, "support"),
    (
        "relu_interpolation_net",
        {"points": [[k] for k in range(400)], "values": [0] * 400, "delta": Fraction(1, 4)},
        "points",
    ),
    ("random_support", {"T": 10**6, "s": 100_001, "rng": random.Random(0)}, "s"),
    ("random_support", {"T": 2**63, "s": 3, "rng": random.Random(0)}, "T"),
    ("fixed_score_worst_case_error", {"kappa": [1, 0], "support": [0], "R": 1, "digits": 4001}, "digits"),
    ("fixed_score_worst_case_error", {"kappa": [0] * 100_001, "support": [0], "R": 1}, "kappa"),
    ("fixed_score_worst_case_error", {"kappa": [1, 0], "support": [0], "R": 10**51}, "R"),
    ("and_information_bound", {"T": 20_000, "s": 10_000}, "s"),
    ("and_information_bound", {"T": 10**4001, "s": 1}, "T"),
    ("and_threshold_log_law", {"T": 10**4001}, "T"),
]

NO_SIZE: dict[str, str] = {}
