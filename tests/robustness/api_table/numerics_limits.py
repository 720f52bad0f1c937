"""numerics.limits (docs/limits.md): memory estimates of any size, compared in integers."""

import numpy as np

MODULE = "numerics.limits"

BASELINE = {
    "available_memory": {},
    "format_bytes": {"n": 1536},
    "array_bytes": {"itemsize": 8},
    "check_allocation": {"nbytes": 800, "param": "n", "value": 10, "what": "the Gram matrix"},
    "check_bool": {"value": True, "name": "sdp"},
    "check_callback": {"value": print, "name": "progress"},
    "check_count": {"value": 5, "name": "n", "minimum": 1, "why": "draws"},
    "check_work": {"cost": 10**6, "param": "n", "value": 1000, "what": "the draws", "hint": "use fewer draws"},
    "check_rational": {"value": "-1/2", "name": "b"},
    "check_rng": {"rng": np.random.default_rng(0)},
    "check_seed": {"value": 3, "name": "seed", "why": "the draws"},
    "check_real": {"value": 0.5, "name": "x", "positive": True, "nonnegative": False, "what": "a finite real number"},
    "check_real_array": {"value": [1.0, 2.0], "name": "x"},
    "check_real_vector": {"value": [1.0, 2.0], "name": "x", "length": 2, "what": "x must be two weights"},
    "check_mc": {"samples": 1000, "name": "n", "per_sample": 10, "what": "n x 10", "minimum": 2, "sizes": None},
    "max_work": {},
    "rounding_atol": {"raw": [0.5, 0.5], "atol": 1e-8, "terms": 2},
    "max_mc_work": {},
    "work_limits_scaled": {"factor": 10},
}

REFUSED = [
    ("check_allocation", {"nbytes": 2**63, "param": "n", "value": 2**30, "what": "the Gram matrix"}, "n"),
    ("check_allocation", {"nbytes": 10**400, "param": "width", "value": 10**400, "what": "the weights"}, "width"),
    ("check_work", {"cost": 10**10 + 1, "param": "n", "value": 10**7, "what": "the draws"}, "n"),
    ("check_mc", {"samples": 10**8 + 1, "name": "n", "per_sample": 1, "what": "n draws"}, "n"),
    ("check_mc", {"samples": 10**6, "name": "n", "per_sample": 10**5, "what": "n x d", "sizes": {"d": 10**5}}, "n"),
    ("check_mc", {"samples": 10, "name": "n", "per_sample": 2 * 10**9, "what": "n x d", "sizes": {"d": 10**9}}, "d"),
]

NO_SIZE: dict[str, str] = {}
