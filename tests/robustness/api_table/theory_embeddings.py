"""theory.embeddings (Edelman Thm 5.6): exact closed forms, C(n, k) formed only up to MAX_DIGITS digits (n named)."""

from sympy import Rational

MODULE = "theory.embeddings"

BASELINE = {
    "thm56_hinge_bound": {"D": 4, "R": Rational(1, 2), "n": 6, "k": 3},
    "thm56_correlation_bound": {"R": 2, "n": 6, "k": 3},
    "thm56_walsh_dimension": {"n": 6, "k": 3},
    "thm56_bound_as_printed": {"D": 20, "R": "0.25", "eps": "0.5", "n": 6, "k": 3},
}

REFUSED = [
    ("thm56_hinge_bound", {"D": 4, "R": 1, "n": 10**5, "k": 5 * 10**4}, "n"),
    ("thm56_correlation_bound", {"R": 1, "n": 10**5, "k": 5 * 10**4}, "n"),
    ("thm56_walsh_dimension", {"n": 10**5, "k": 5 * 10**4}, "n"),
    ("thm56_bound_as_printed", {"D": 1, "R": 1, "eps": "0.5", "n": 10**5, "k": 5 * 10**4}, "n"),
]

NO_SIZE: dict[str, str] = {}
