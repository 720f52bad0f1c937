"""theory.lsa (Shi Ch. 5, App. D.1-D.2): Lambda of dimension d <= 64 when diagonal, d <= 24 otherwise; the symbolic
checks (Lemma 5.1, Eq. 5.1-5.2) in dimension d <= 3 with n <= 3 examples."""

from sympy import Matrix

MODULE = "theory.lsa"

_LAM = [[2, 0], [0, 1]]
_E = Matrix([[1, 2, 3], [1, 2, 0]])
_WPV = Matrix([[5, 7], [2, 3]])
_WKQ = Matrix([[1, 4], [2, 6]])

BASELINE = {
    "as_covariance": {"Lam": [[2, 1], [1, 2]], "source": "Shi Sec. 5.4"},
    "best_rank": {"Lam": _LAM, "N": 10, "M": 10, "sigma": 0, "w": [1, 1], "w_in_eigenbasis": False},
    "check_count": {"N": 3, "name": "N"},
    "corrected_prediction": {"E": _E, "WPV": _WPV, "WKQ": _WKQ, "rho": 2},
    "dead_block_derivatives": {"d": 1, "n": 1},
    "eigen_descending": {"Lam": [[2, 1], [1, 2]]},
    "eq52_residuals": {"d": 1, "n": 1},
    "excess_loss": {"U": [[1, 0], [0, 1]], "u": 1, "Lam": _LAM, "N": 2},
    "excess_loss_frobenius": {"U": [[1, 0], [0, 1]], "u": 1, "Lam": _LAM, "N": 2},
    "excess_loss_identity": {"U": [[1, 2], [2, 0]], "u": 3, "Lam": _LAM, "N": 4},
    "expanded_prediction": {"E": _E, "WPV": _WPV, "WKQ": _WKQ, "rho": 2},
    "expected_noisy_eval_loss": {"Lam": _LAM, "N": 2, "r": 1, "M": 2, "sigma": 0},
    "full_rank_optimum": {"Lam": _LAM, "N": 2},
    "gamma_matrix": {"Lam": _LAM, "N": 2},
    "is_exact": {"m": Matrix([[1, 2]])},
    "lemma51_moments": {"d": 1},
    "lemma51_residuals": {"d": 1},
    "limit_relative_error": {"Lam": _LAM, "N": 2},
    "loss_constant": {"Lam": _LAM},
    "lsa_output": {"E": _E, "WPV": _WPV, "WKQ": _WKQ, "rho": 2},
    "noisy_eval_loss": {"Lam": _LAM, "N": 2, "r": 1, "M": 2, "sigma": 1, "w": [1, 0], "w_in_eigenbasis": False},
    "noisy_eval_loss_approx": {"Lam": _LAM, "r": 1, "M": 2, "sigma": 0, "w": [1, 0], "w_in_eigenbasis": False},
    "optimal_losses": {"Lam": _LAM, "N": 2},
    "optimal_rank_r": {"Lam": _LAM, "N": 2, "r": 1},
    "population_loss": {"U": [[1, 0], [0, 1]], "u": 1, "Lam": _LAM, "N": 2},
    "rank_difference": {
        "Lam": _LAM,
        "N": 2,
        "r": 1,
        "r2": 2,
        "M": 2,
        "sigma": 1,
        "w": [1, 0],
        "w_in_eigenbasis": False,
    },
    "rank_difference_approx": {"Lam": _LAM, "r": 1, "r2": 2, "M": 2, "sigma": 1, "w": [1, 0], "w_in_eigenbasis": False},
    "reduced_loss": {"U": [[1, 0], [0, 1]], "u": 1, "Lam": _LAM, "N": 2},
    "scale_symmetry_residuals": {"d": 1, "n": 1},
    "t_values": {"lam": [2, 1], "N": 2},
}

_BIG_DIAG = [[1 if i == j else 0 for j in range(65)] for i in range(65)]
_BIG_DENSE = [[2 if i == j else 1 for j in range(25)] for i in range(25)]

REFUSED = [
    ("as_covariance", {"Lam": _BIG_DIAG}, "Lambda"),
    ("as_covariance", {"Lam": _BIG_DENSE}, "Lambda"),
    ("optimal_rank_r", {"Lam": _BIG_DIAG, "N": 2, "r": 1}, "Lambda"),
    ("gamma_matrix", {"Lam": _BIG_DENSE, "N": 2}, "Lambda"),
    ("eigen_descending", {"Lam": Matrix(_BIG_DENSE)}, "Lambda"),
    ("t_values", {"lam": [1] * 65, "N": 2}, "lam"),
    ("lemma51_moments", {"d": 4}, "d"),
    ("lemma51_residuals", {"d": 4}, "d"),
    ("eq52_residuals", {"d": 4, "n": 1}, "d"),
    ("eq52_residuals", {"d": 1, "n": 4}, "n"),
    ("dead_block_derivatives", {"d": 4, "n": 1}, "d"),
    ("excess_loss_frobenius", {"U": [[1, 0], [0, 1]], "u": 1, "Lam": _LAM, "N": 10**1001}, "N"),
    ("scale_symmetry_residuals", {"d": 1, "n": 4}, "n"),
    (
        "lsa_output",
        {"E": Matrix.zeros(100, 30), "WPV": Matrix.zeros(100, 100), "WKQ": Matrix.zeros(100, 100), "rho": 1},
        "E",
    ),
]

NO_SIZE = {
    "RankOptimum": "built by optimal_rank_r() from its own eigen-decomposition",
}
