"""theory.modular_transformer (Shi Sec. 4.5): the lists of 2-D bins and of frequencies up to 200000 entries, the
exact ideal head up to 4 n_freq^2 <= 200000 DFT products, p^k of at most 4000 digits."""

from sympy import pi

MODULE = "theory.modular_transformer"

BASELINE = {
    "bin_size": {"p": 5, "z1": 1, "z2": 2},
    "concentration_threshold": {"p": 7, "n_bins": 4},
    "cosine_dft": {"p": 5, "z": 2, "phi": pi / 2},
    "covered_frequencies": {"p": 7},
    "dataset_size": {"p": 5, "k": 3},
    "frequency_bins": {"p": 5},
    "head_power_support": {"p": 7, "key_freqs": [1, 2], "query_freqs": [3, 0]},
    "ideal_top_fraction": {"p": 7, "n_freq": 2},
    "isotropic_bin_share": {"p": 7, "n_bins": 4},
    "predicted_delay_order": {"cases": [(5, 5), (11, 4), (31, 3), (97, 2)]},
    "product_cosine_bin_power": {"p": 5, "z1": 1, "z2": 2, "phi1": pi / 3, "phi2": 1},
    "required_width": {"p": 97, "k": 2},
    "single_frequency_purity": {"p": 7, "z": 2, "phi": pi / 5},
    "train_size": {"p": 5, "k": 3},
}

REFUSED = [
    ("frequency_bins", {"p": 1001}, "p"),
    ("covered_frequencies", {"p": 400_003}, "p"),
    ("dataset_size", {"p": 5, "k": 10**4}, "k"),
    ("train_size", {"p": 5, "k": 10**4}, "k"),
    ("required_width", {"p": 5, "k": 10**6}, "k"),
    ("ideal_top_fraction", {"p": 1001, "n_freq": 300}, "n_freq"),
    ("dataset_size", {"p": 10**4001 + 1, "k": 1}, "p"),
    ("head_power_support", {"p": 10**9 + 1, "key_freqs": range(1, 1001), "query_freqs": range(1, 1001)}, "key_freqs"),
]

NO_SIZE: dict[str, str] = {}
