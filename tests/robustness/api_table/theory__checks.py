"""theory._checks: the shared validation helpers (numbers from callers, integer checks, size checks)."""

MODULE = "theory._checks"

BASELINE = {
    "InputError": {"message": "p must be odd", "param": "p"},
    "LimitError": {"message": "n = 5 is too large", "param": "n", "value": 5, "limit": 3, "hint": "use n <= 3"},
    "as_fraction": {"value": "-1/2", "name": "b", "floats": "decimal"},
    "as_list": {"value": (1, 2), "name": "freqs", "items": "frequencies"},
    "as_number": {"value": "-1/2", "name": "b", "symbolic": True},
    "check_bool": {"value": True, "name": "sdp"},
    "check_cost": {
        "cost": 10,
        "limit": 100,
        "param": "n",
        "value": 10,
        "what": "the matrix",
        "hint": "",
        "log10": False,
    },
    "check_entries": {
        "log10_count": 2.0,
        "count": lambda: 100,
        "param": "k",
        "value": 3,
        "what": "the construction",
        "hint": "",
        "limit": 200,
    },
    "check_odd_modulus": {"p": 7, "source": "Shi Thm 4.9"},
    "check_positive_int": {"value": 3, "name": "k", "minimum": 1, "hypothesis": "the network has k inputs"},
    "check_sequence": {"value": [1, 2], "name": "w", "limit": 3, "what": "the number of weights", "hint": ""},
    "format_count": {"n": 1234567},
    "is_symbolic": {},
    "log10_binomial": {"n": 10, "k": 3},
    "log10_factorial": {"n": 10},
}

REFUSED = [
    ("as_number", {"value": "1e5000", "name": "b"}, "b"),
    ("as_number", {"value": "1e-5000", "name": "b"}, "b"),
    ("as_fraction", {"value": "1e5000", "name": "b"}, "b"),
    ("log10_factorial", {"n": 10**301}, "n"),
    ("check_sequence", {"value": [0] * 4, "name": "w", "limit": 3, "what": "the number of weights", "hint": ""}, "w"),
    ("check_cost", {"cost": 101, "limit": 100, "param": "n", "value": 101, "what": "the matrix", "hint": ""}, "n"),
]

NO_SIZE: dict[str, str] = {}
