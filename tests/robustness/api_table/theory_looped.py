"""theory.looped (Shi Ch. 8, docs/looped.md): sympy matrices of at most MAX_EXACT_ENTRIES entries (mask n <= 446,
construction d <= 315), exact GD / looped-transformer runs of at most MAX_EXACT_GD_WORK (their Fractions grow with
the number of steps; the limit of the step budget depends on the denominators), float runs of at most
MAX_FLOAT_GD_OPS operations, exact powers (1 - eta mu)^T and (1 - 1/kappa)^T of at most MAX_DIGITS digits (T <= 8383
at 2/3), the exact spectrum of X^T X for d <= MAX_SPECTRUM_D = 20."""

from fractions import Fraction

X = [[1, 0], [0, 1], [1, 1]]
Y = [1, 2, 3]
X_TALL = [[i / 100, 1] for i in range(100)]

MODULE = "theory.looped"

BASELINE = {
    "attention": {"Z": [[1, 0, 1], [0, 1, 2], [1, 1, 3], [0, 0, 1]], "Q": None, "P": None, "exact": True},
    "check_step_size": {"eta": Fraction(1, 2), "L": 3, "upper": "2/L"},
    "condition_number": {"X": X},
    "construction": {"d": 2},
    "embed": {"X": X, "y": Y, "alpha": 2, "q0": [1, -1], "exact": True},
    "gd_contraction_factor": {"eta": Fraction(1, 3), "L": 3, "mu": 1},
    "gd_iterates": {"X": X, "y": Y, "etas": [Fraction(1, 3)] * 3, "theta0": [0, 0], "exact": True},
    "gram": {"X": X, "exact": False},
    "gram_spectrum": {"X": [[1, 0], [0, 2], [1, 1]]},
    "lemma_8_13_attention": {"X": X, "y": Y, "alpha": 2, "q0": [1, -1], "exact": True},
    "lemma_8_23_bound": {"T": 3, "eta": Fraction(1, 3), "L": 3, "mu": 1, "R": 2},
    "looped_forward": {"X": X, "y": Y, "alpha": 1, "etas": [Fraction(1, 3)] * 3, "q0": [1, 1], "exact": True},
    "mask": {"n": 2},
    "prompt_step_size": {"L": 3},
    "tf_output_predicted": {
        "X": X,
        "y": Y,
        "alpha": 2,
        "etas": [Fraction(1, 3), Fraction(1, 4)],
        "q0": [1, 1],
        "exact": True,
    },
    "tf_readout": {"Z": [[1, 0, 1], [0, 1, 2], [1, 1, 3], [Fraction(-31, 27), Fraction(-50, 27), 1]]},
    "thm_8_16_bound": {"T": 3, "kappa": 3, "alpha": 2},
    "thm_8_16_sharp_bound": {"T": 3, "kappa": 3, "alpha": 2},
    "thm_8_25_bound": {"T": 3, "kappa": 3, "R": 2},
    "thm_8_25_exp_bound": {"T": 3, "kappa": 3, "R": 2},
    "thm_8_17_min_examples": {"T": 2, "d": 4},
    "thm_8_17_bound": {"T": 2, "d": 4, "n": 10**6},
    "thm_8_17_growth_factor": {"T": 3},
}

REFUSED = [
    ("mask", {"n": 447}, "n"),
    ("construction", {"d": 316}, "d"),
    ("lemma_8_23_bound", {"T": 8384, "eta": Fraction(1, 3), "L": 3, "mu": 1}, "T"),
    ("thm_8_25_bound", {"T": 8384, "kappa": 3}, "T"),
    ("thm_8_16_sharp_bound", {"T": 8384, "kappa": 3, "alpha": 1}, "T"),
    ("gd_iterates", {"X": X, "y": Y, "etas": [Fraction(1, 10**50)] * 247}, "etas"),
    ("tf_output_predicted", {"X": X, "y": Y, "alpha": 1, "etas": [Fraction(1, 10**50)] * 247}, "etas"),
    ("looped_forward", {"X": X, "y": Y, "alpha": 1, "etas": [Fraction(1, 10**50)] * 130}, "etas"),
    ("looped_forward", {"X": X_TALL, "y": [1] * 100, "alpha": 1, "etas": [0.001] * 2439, "exact": False}, "etas"),
    ("gram_spectrum", {"X": [[int(i == j) for j in range(21)] for i in range(22)]}, "X"),
    ("condition_number", {"X": [[int(i == j) for j in range(21)] for i in range(22)]}, "X"),
    ("thm_8_17_min_examples", {"T": 3001, "d": 4}, "T"),
    ("thm_8_17_bound", {"T": 3001, "d": 4, "n": 1}, "T"),
]

NO_SIZE: dict[str, str] = {}
