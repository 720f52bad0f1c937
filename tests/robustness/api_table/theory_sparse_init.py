"""theory.sparse_init: exact correlations n <= 13286 (integers over 2^(n+1), at most MAX_DIGITS digits), epsilon with
C(n-s, k) of at most MAX_DIGITS digits, the bias grid k <= MAX_EXACT_ENTRIES."""

MODULE = "theory.sparse_init"

BASELINE = {
    "bias_grid": {"k": 4, "eps": "1/10"},
    "check_under_sparse": {"n": 7, "k": 4, "s": 2},
    "good_neuron_correlation": {"n": 7, "k": 4, "s": 2, "case": "S-S'"},
    "good_neuron_correlations": {"n": 7, "k": 4, "s": 2},
    "neuron_correlation": {"n": 7, "k": 4, "s": 2, "S": [0, 1, 2, 3], "S_prime": [0, 1], "i": 2},
    "perturbation_epsilon": {"n": 7, "k": 4, "s": 2},
    "thm_c16_ratio": {"n": 9, "k": 4, "s": 2},
    "thm_c16_ratio_as_printed": {"n": 9, "k": 4, "s": 2},
}

REFUSED = [
    ("bias_grid", {"k": 200_002, "eps": "1/10"}, "k"),
    ("perturbation_epsilon", {"n": 30_001, "k": 10_000, "s": 0}, "n"),
    ("good_neuron_correlation", {"n": 13_287, "k": 4, "s": 0, "case": "out"}, "n"),
    ("good_neuron_correlations", {"n": 13_287, "k": 4, "s": 0}, "n"),
    ("neuron_correlation", {"n": 13_287, "k": 2, "s": 0, "S": [0, 1], "S_prime": [], "i": 0}, "n"),
]

NO_SIZE: dict[str, str] = {}
