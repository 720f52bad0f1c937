"""numerics.limits (docs/limits.md): memory estimates of any size, compared in integers."""

MODULE = "numerics.limits"

BASELINE = {
    "available_memory": {},
    "format_bytes": {"n": 1536},
    "array_bytes": {"itemsize": 8},
    "check_allocation": {"nbytes": 800, "param": "n", "value": 10, "what": "the Gram matrix"},
    "check_count": {"value": 5, "name": "n", "minimum": 1, "why": "draws"},
    "check_work": {"cost": 10**6, "param": "n", "value": 1000, "what": "the draws", "hint": "use fewer draws"},
    "check_rational": {"value": "-1/2", "name": "b"},
}

REFUSED = [
    ("check_allocation", {"nbytes": 2**63, "param": "n", "value": 2**30, "what": "the Gram matrix"}, "n"),
    ("check_allocation", {"nbytes": 10**400, "param": "width", "value": 10**400, "what": "the weights"}, "width"),
    ("check_work", {"cost": 10**10 + 1, "param": "n", "value": 10**7, "what": "the draws"}, "n"),
]

NO_SIZE: dict[str, str] = {}
