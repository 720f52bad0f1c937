"""theory.scaling (Edelman Ch. 5, Fig. 5.1 / 5.4): closed-form local slopes and speedups; the exact C(n, k) only up
to MAX_DIGITS digits (n_hi, n_lo or n named), a width ratio r_hi / r_lo only inside the float range."""

MODULE = "theory.scaling"

BASELINE = {
    "fourier_gap_law_slope": {"n_lo": 10, "n_hi": 20, "k": 2},
    "random_search_law_slope": {"n_lo": 10, "n_hi": 20, "k": 3},
    "slope_law_boundary": {"n_lo": 10, "n_hi": 20, "k": 3},
    "random_search_width_speedup": {"n": 20, "k": 3, "r_lo": 30, "r_hi": 300},
    "width_plateau_boundary": {"n": 20, "k": 3, "r_lo": 30, "r_hi": 300},
    "noisy_parity_correlation": {"p": "0.45"},
    "init_dominance_rate": {"theta": 1},
}

REFUSED = [
    ("random_search_law_slope", {"n_lo": 10**5, "n_hi": 2 * 10**5, "k": 5 * 10**4}, "n_hi"),
    ("random_search_law_slope", {"n_lo": 10, "n_hi": 10**4000, "k": 2}, "n_hi"),
    ("slope_law_boundary", {"n_lo": 10, "n_hi": 10**4000, "k": 2}, "n_hi"),
    ("random_search_width_speedup", {"n": 10**5, "k": 5 * 10**4, "r_lo": 1, "r_hi": 2}, "n"),
    ("random_search_width_speedup", {"n": 10**400, "k": 3, "r_lo": 1, "r_hi": 10**400}, "r_hi"),
    ("width_plateau_boundary", {"n": 10**5, "k": 5 * 10**4, "r_lo": 1, "r_hi": 2}, "n"),
]

NO_SIZE: dict[str, str] = {}
