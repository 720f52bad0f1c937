"""theory.sparse_init: exact correlations n <= 13286 (integers over 2^(n+1), at most MAX_DIGITS digits), epsilon with
C(n-s, k) of at most MAX_DIGITS digits, the bias grid k <= MAX_EXACT_ENTRIES; the good-neuron probabilities and means
(C(n, s), (s/2n)^k) of at most MAX_DIGITS digits, the Lemma C.9 step target <= MAX_STEPS_TARGET, and the
floating-point sample sizes and widths refused (ValueError) when they leave the float range."""

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
    "thm_c16_schedule": {"n": 7, "k": 4, "s": 2},
    "thm_c16_good_probability": {"n": 7, "k": 4, "s": 2},
    "thm_c16_width": {"n": 7, "k": 4, "s": 2, "delta": "0.01"},
    "thm_c16_sample_size": {"n": 7, "k": 4, "s": 2, "width": 182, "delta": "0.01"},
    "thm_c16_correlation_threshold": {"eps": "0.1"},
    "hoeffding_sample_size": {"coordinates": 1, "tau": "0.1", "delta": "0.05", "span": 2},
    "lemma_c5_sample_size": {"n": 8, "width": 8, "tau": "0.25", "delta": "0.1"},
    "lemma_c6_constants": {"k": 2},
    "lemma_c7_bound": {"w": [3, 4], "differences": [[1, 0], [0, "1/2"]]},
    "lemma_c8_gap": {"B": 1.0, "psi_norm": 1.0, "m": 100, "delta": "0.5", "distance": 0.0},
    "lemma_c9_sample_size": {"psi_norm": 1.0, "B": 1.0, "eps": 0.25, "delta": "0.5"},
    "lemma_c9_steps": {"psi_norm": 1.0, "B": 10.0, "eps": 0.25},
    "lemma_c9_steps_corrected": {"psi_norm": 1.0, "B": 1.0, "eps": 0.25},
    "lemma_c9_conclusion": {"B": 1.0, "eps": 0.25},
    "lemma_c9_objective_bound": {"psi_norm": 1.0, "B": 1.0, "eps": 0.25, "delta": "0.5", "m": 983, "T": 24_000},
    "lemma_c10_chernoff_bound": {"mu": 10},
    "lemma_c10_mean": {"width": 1640, "n": 15, "k": 2, "s": 9},
    "lemma_c10_true_mean": {"width": 1640, "n": 15, "k": 2, "s": 9},
    "lemma_c10_width": {"n": 15, "k": 2, "s": 9, "delta": "0.1"},
    "thm_c11_setting": {"n": 15, "k": 2, "s": 9, "eps": "1/4", "delta": "1/10"},
}

REFUSED = [
    ("bias_grid", {"k": 200_002, "eps": "1/10"}, "k"),
    ("perturbation_epsilon", {"n": 30_001, "k": 10_000, "s": 0}, "n"),
    ("good_neuron_correlation", {"n": 13_287, "k": 4, "s": 0, "case": "out"}, "n"),
    ("good_neuron_correlations", {"n": 13_287, "k": 4, "s": 0}, "n"),
    ("neuron_correlation", {"n": 13_287, "k": 2, "s": 0, "S": [0, 1], "S_prime": [], "i": 0}, "n"),
    ("thm_c16_good_probability", {"n": 20_001, "k": 10_002, "s": 10_000}, "n"),
    ("lemma_c10_true_mean", {"width": 2, "n": 20_000, "k": 2, "s": 10_000}, "n"),
    ("lemma_c10_mean", {"width": 2, "n": 10**6, "k": 1000, "s": 10**6}, "k"),
    ("thm_c11_setting", {"n": 20_002, "k": 2, "s": 10_001, "eps": "1/4", "delta": "1/10"}, "n"),
]

NO_SIZE: dict[str, str] = {}
