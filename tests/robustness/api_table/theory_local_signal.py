"""theory.local_signal (Karp Ch. 3, docs/local_signal.md): float formulas for k <= MAX_FLOAT_K = 10^300, one
error_curve integral of at most MAX_INVERSION_PANELS panels (16 sqrt(k) at tau = 0: k <= 1,562,187), an optimal_threshold
search of at most MAX_SEARCH_PANELS, derive_signal k <= MAX_DERIVE_K = 10^6, exact numbers of at most MAX_DIGITS
digits."""

from theory.local_signal import (
    error_floor,
    floor_approximation,
    lemma_b5,
    linear_classifier_error,
    noise_sigma,
)

X = ((1.0, 0.0), (0.2, 0.5), (-0.3, 0.1))
_B5 = lemma_b5(10**4)
SUMMARY = {
    "k": 10**4,
    "sigma": noise_sigma(10**4),
    "linear_classifier_error": linear_classifier_error(10**4),
    "tau_star": None,
    "err_tau_star_below": 1e-7,
    "floor": error_floor(10**4),
    "floor_first_order": floor_approximation(10**4),
    "lemma_b5_alpha": _B5.alpha,
    "lemma_b5_tau_sufficient": _B5.tau_sufficient,
}

MODULE = "theory.local_signal"

BASELINE = {
    "LemmaB5": {"k": 1000, "alpha": 5.2, "union_bound": 0.002, "exact_union_bound": 1.5e-4, "tau_sufficient": 1.15},
    "OptimalThreshold": {"tau": 0.95, "error": 0.0023, "floor": 0.0023, "bracket": (0.9, 0.999), "resolved": True},
    "check_batch": {"batch": 64, "name": "batch"},
    "check_d": {"d": 3},
    "check_k": {"k": 10, "minimum": 2},
    "check_sigma": {"sigma": 0.5},
    "check_tau": {"tau": 0.5},
    "clt_error": {"k": 1000, "tau": 0.5, "sigma": 0.2},
    "cnn_gradient": {"X": X, "w": (1.0, 0.0), "b": -0.25},
    "cntk_feature_as_printed": {"X": X, "w0": (1.0, 0.0), "b": 0.25},
    "derive_signal": {"k": 10**4},  # the fastest summary (~1 s: its threshold search is 11 integrals)
    "error_curve": {"k": 100, "tau": 0.5, "sigma": 0.4, "tol": 1e-6},
    "error_floor": {"k": 1000, "sigma": 0.2},
    "exact_number": {"x": 0.4},
    "faddeeva": {"z": 1j},
    "floor_approximation": {"k": 1000, "sigma": 0.2},
    "format_signal": {"summary": SUMMARY},
    "lemma_b5": {"k": 1000},
    "lemma_b4_batch_size": {"k": 4, "d": 2},
    "lemma_b4_failure_probability": {"k": 4},
    "lemma_b4_hoeffding_bound": {"k": 4, "d": 2, "n": 1000},
    "lemma_b4_tolerance": {"k": 4},
    "lemma_b4_truncation_probability": {"k": 1000},
    "linear_classifier_error": {"k": 100},
    "linear_classifier_error_exact": {"k": 100},
    "max_exceedance": {"n": 100, "absolute": True},
    "mills_bounds": {"x": 1},
    "mills_ratio": {"x": 1.0},
    "noise_sigma": {"k": 100},
    "noise_sigma_exact": {"k": 100},
    "normal_cdf": {"x": 0.5},
    "normal_pdf": {"x": 0.5},
    "normal_quantile": {"p": 0.975},
    "normal_sf": {"x": 0.5},
    "regression_coefficients": {"c": 3, "v": 4},
    "shrink": {"a": 2.0, "tau": 0.5},
    "soft_threshold": {"x": 0.25, "b": -0.5},
    "soft_threshold_cf": {"t": 2.0, "tau": 0.5, "sigma": 0.5},
    "soft_threshold_db": {"x": 0.25, "b": -0.5},
    "soft_threshold_dx": {"x": 0.25, "b": 0.5},
    "soft_threshold_moments": {"tau": 1.0, "sigma": 1.0},
    "t2_as_printed": {"C": 1, "C2": 2, "C3": 1, "eta_b": 1, "k": 100},
    "t2_corrected": {"C": 1, "C2": 2, "C3": 1, "eta_b": 1, "k": 100},
    "truncated_moments": {"alpha": 0.5, "s": 1.0},
    "union_bound": {"n": 100, "absolute": True},
    "noise_term_bound": {"k": 100, "sigma": 0.5, "c": 1.0, "v": 0.3, "b": -0.2},
    "lemma31_small_c": {"k": 1000},
    "theorem31_step_budget": {"k": 100},
    "init_failure_probability": {"k": 3, "d": 3},
    "init_failure_bound": {"k": 4, "d": 3},
    "bernstein_tail_bound": {"k": 50, "sigma": 0.4, "c": 1.0, "v": 0.0, "b": -0.5},
    "bivariate_abs_tail": {"alpha": 1.0, "beta": 0.5, "rho": 0.6, "tol": 1e-20},
    "gated_noise_moments": {"tau": 1.0},
    "cntk_single_filter_infimum": {"D": 1.0, "k": 1000},
    "cntk_critical_alignment": {"k": 1000, "level": 0.1},
    "init_alignment_tail": {"x": 1.0, "k": 1000, "d": 21},
    "thm32_aligned_filter_probability": {"k": 1000, "m": 2, "d": None, "level": 0.1},
    "thm32_needed_log10_k": {"m": 1, "confidence": 0.999, "level": 0.1},  # ~1 s: 60 grid points and a bisection
    "lemma_b11_event_probability": {
        "w0": (0.6, 0.8),
        "w": (1.0, 0.0),
        "w_star": (1.0, 0.0),
        "b": -0.3,
        "C": 1.0,
        "sigma": 0.5,
    },
}

REFUSED = [
    ("derive_signal", {"k": 10**6 + 1}, "k"),
    ("error_curve", {"k": 1_562_188, "tau": 0.0}, "k"),
    ("error_curve", {"k": 2, "tau": 0.0, "sigma": 1e-5}, "sigma"),
    ("error_curve", {"k": 2, "tau": 1 - 1e-12, "sigma": 1.0}, "tau"),
    ("error_curve", {"k": 2, "tau": 0.5, "sigma": 1.0, "tol": 1e-30}, "tol"),
    ("noise_sigma", {"k": 10**300 + 1}, "k"),
    ("linear_classifier_error", {"k": 10**300 + 1}, "k"),
    ("lemma_b5", {"k": 10**300 + 1}, "k"),
    ("lemma_b4_batch_size", {"k": 10**6 + 1, "d": 2}, "k"),
    ("lemma_b4_batch_size", {"k": 4, "d": 10**9 + 1}, "d"),
    ("lemma_b4_hoeffding_bound", {"k": 10**6 + 1, "d": 2, "n": 10}, "k"),
    ("lemma_b4_truncation_probability", {"k": 10**300 + 1}, "k"),
    ("error_floor", {"k": 10**300 + 1}, "k"),
    ("floor_approximation", {"k": 10**300 + 1}, "k"),
    ("clt_error", {"k": 10**300 + 1, "tau": 0.5}, "k"),
    ("max_exceedance", {"n": 10**300 + 1}, "n"),
    ("noise_term_bound", {"k": 10**300 + 1, "sigma": 0.5, "c": 1.0, "v": 0.3, "b": -0.2}, "k"),
    ("bernstein_tail_bound", {"k": 10**300 + 1, "sigma": 0.4, "c": 1.0, "v": 0.0, "b": -0.5}, "k"),
    ("init_failure_probability", {"k": 3, "d": 10**6 + 1}, "d"),
    ("init_failure_probability", {"k": 10**300 + 1, "d": 3}, "k"),
    ("bivariate_abs_tail", {"alpha": 0.0, "beta": 0.0, "rho": 1 - 1e-6, "tol": 1e-20}, "rho"),
    ("cntk_single_filter_infimum", {"D": 1.0, "k": 10**300 + 1}, "k"),
    ("init_alignment_tail", {"x": 1.0, "k": 1000, "d": 10**30 + 1}, "d"),
]

NO_SIZE = {
    "crossovers": "no arguments (constants)",
    "gradient_structure_residual": "no arguments (returns 0)",
    "kernel_error_bound": "no arguments (returns 1/10)",
    "linear_error_as_printed": "no arguments (returns 49/100)",
    "reduction_difference": "no arguments (returns 0)",
    "theorem31_error_level": "no arguments (returns 1/100)",
    "lemma_b7_loss_level": "no arguments (returns 1)",
    "lemma_b8_probability": "no arguments (returns 4/5)",
}
