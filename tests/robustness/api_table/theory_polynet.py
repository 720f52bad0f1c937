"""theory.polynet: exact errors with denominators 2^(k(n'-1)+1) of at most MAX_DIGITS digits; exact scans n' <= 15001
and s (k n')^1.585 <= 10^10 (s steps up to the Hoeffding point of eps); the symbolic gradient k^3 n'^(k+1) <= 66000
and k n' <= 100; k <= 1000 blocks for the O(k^2) flow right-hand side; the general-init crossings enumerate at most
MAX_BLOCK_PATTERNS = 2^22 sign patterns (sum over blocks of 2^(m_i - 1))."""

from fractions import Fraction

MODULE = "theory.polynet"

BASELINE = {
    "ErrorPiece": {"lo": Fraction(1), "hi": Fraction(3), "point": False, "err": Fraction(37, 128)},
    "block_probabilities": {"v": 2, "dist": {Fraction(-1): Fraction(1, 2), Fraction(1): Fraction(1, 2)}},
    "blowup_time": {"k": 4, "v0": 2},
    "equal_init_error": {"v": 2, "k": 3, "n_prime": 4},
    "error": {"v": [2, 2, 2], "u": [[1, -1, 1]] * 3},
    "error_pieces": {"k": 3, "n_prime": 4, "v0": 1},
    "first_time_error_at_most": {"eps": "0.49", "k": 3, "n_prime": 11, "v0": 1},
    "flow_rhs": {"v": [1, 2, 3]},
    "flow_solution": {"t": "1/2", "k": 3, "v0": 1},
    "flow_time": {"v": 2, "k": 3, "v0": 1},
    "last_time_error_at_least": {"alpha": "0.01", "k": 3, "n_prime": 5, "v0": 1},
    "lemma_b8_bounds": {"v0": [1, 1, 1], "b": 2, "i": 0},
    "lemma_b9_lower_bound": {"v": [2.01] * 3, "u": [[1] * 10] * 3, "as_printed": False, "c": 0.56},
    "lemma_b9_lower_bound_exact": {"v": [2, 2, 2], "u": [[1, 1, 1]] * 3},
    "lemma_b9_upper_bound": {"v": [6.51] * 3, "u": [[1] * 7] * 3, "as_printed": False},
    "plateau_ratio": {"k": 3, "n_prime": 11, "eps": "0.49"},
    "plateau_ratio_scaled": {"k": 3, "n_prime": 11, "eps": "0.49"},
    "population_gradient_formula": {"k": 3, "n_prime": 2},
    "population_gradient_symbolic": {"k": 2, "n_prime": 2},
    "sum_distribution": {"u": [1, 1, 1]},
    "velocity_at_plateau_end_approx": {"k": 3, "n_prime": 101, "gamma": 0.01},
    "thm58_steps": {"k": 2, "n_prime": 2, "eps": "0.1", "delta": "0.2"},
    "flow_time_general": {"q": 3, "v0": [1, 1, 1]},
    "first_time_error_at_most_general": {"eps": "0.49", "v0": [0.5, -0.75, -0.25], "u": [[0.5, -1.25, 0.75]] * 3},
    "plateau_fraction_general": {"v0": [0.5, -0.75, -0.25], "u": [[0.5, -1.25, 0.75]] * 3, "eps": "0.49"},
    "thm57_rate": {"k": 4, "n_prime": 17, "gamma": "0.01"},
    "thm58_rate_scale": {"k": 2, "n_prime": 2, "steps": 19_196, "delta": "0.2"},
    "thm58_relevant_lower_bound": {"k": 2, "n_prime": 2, "steps": 19_196, "delta": "0.2", "t": 100},
}

REFUSED = [
    ("population_gradient_formula", {"k": 3, "n_prime": 66_667}, "n_prime"),
    ("population_gradient_formula", {"k": 448, "n_prime": 1}, "k"),
    ("population_gradient_symbolic", {"k": 3, "n_prime": 8}, "n_prime"),
    ("population_gradient_symbolic", {"k": 1, "n_prime": 101}, "n_prime"),
    ("population_gradient_symbolic", {"k": 10**9, "n_prime": 2}, "k"),
    ("flow_rhs", {"v": [1] * 1001}, "v"),
    ("flow_solution", {"t": 0, "k": 13_290, "v0": 2}, "k"),
    ("flow_time", {"v": 3, "k": 13_290, "v0": 2}, "k"),
    ("blowup_time", {"k": 13_290, "v0": 2}, "k"),
    ("sum_distribution", {"u": [1] * 13_288}, "u"),
    ("sum_distribution", {"u": [2**j for j in range(18)]}, "u"),
    ("equal_init_error", {"v": 2, "k": 1, "n_prime": 13_289}, "n_prime"),
    ("equal_init_error", {"v": 2, "k": 3, "n_prime": 4430}, "k"),
    ("error", {"v": [2], "n_prime": 13_289}, "n_prime"),
    ("error", {"v": [2] * 3, "n_prime": 4430}, "v"),
    ("error_pieces", {"k": 3, "n_prime": 4430}, "k"),
    ("error_pieces", {"k": 1, "n_prime": 4642}, "n_prime"),
    ("first_time_error_at_most", {"eps": 0, "k": 3, "n_prime": 15_002}, "n_prime"),
    ("first_time_error_at_most", {"eps": "1e-30", "k": 3, "n_prime": 8270}, "n_prime"),
    ("first_time_error_at_most", {"eps": "1e-30", "k": 10**9, "n_prime": 3}, "k"),
    ("last_time_error_at_least", {"alpha": "1e-30", "k": 3, "n_prime": 8270}, "n_prime"),
    ("plateau_ratio", {"k": 3, "n_prime": 15_003}, "n_prime"),
    ("plateau_ratio_scaled", {"k": 10**9, "n_prime": 11}, "k"),
    ("lemma_b9_lower_bound_exact", {"v": [2], "u": [[1] * 13_288]}, "u"),
    ("velocity_at_plateau_end_approx", {"k": 3, "n_prime": 10**301}, "n_prime"),
    ("thm58_steps", {"k": 10, "n_prime": 2, "eps": "0.1", "delta": "0.2"}, "k"),
    ("flow_time_general", {"q": 1, "v0": [1] * 1001}, "v0"),
    ("first_time_error_at_most_general", {"eps": "0.49", "v0": [1, 1, 1], "u": [[1] * 23] * 3}, "u"),
    ("plateau_fraction_general", {"v0": [1, 1, 1], "u": [[1] * 23] * 3}, "u"),
    ("thm57_rate", {"k": 1001, "n_prime": 5}, "k"),
]

NO_SIZE: dict[str, str] = {}
