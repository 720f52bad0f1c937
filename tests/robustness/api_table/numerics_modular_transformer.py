"""numerics.modular_transformer (docs/modular_transformer.md): datasets through numerics.modular.ModularTask
(p^(k+1) <= 2^36); splits, score matrices and Gaussian samples checked against the available memory and the
Monte Carlo work limit numerics.limits.MAX_WORK."""

import numpy as np

from numerics.modular import construction_network

MODULE = "numerics.modular_transformer"

_A = np.arange(7)
_M = np.outer(np.cos(2 * np.pi * 2 * _A / 7 + 0.4), np.cos(2 * np.pi * 3 * _A / 7 + 1.0))
_RNG = np.random.default_rng(0)

BASELINE = {
    "even_split": {"n_points": 25, "seed": 1, "train_fraction": 0.5},
    "SplitModularTask": {"p": 5, "k": 2, "indices": (1, 2, 7)},
    "sum_sequences": {"p": 3, "k": 2},
    "attention_score_matrix": {
        "embed": _RNG.normal(size=(8, 4)),
        "w_q": _RNG.normal(size=(2, 4, 3)),
        "w_k": _RNG.normal(size=(2, 4, 3)),
        "p": 7,
    },
    "double_center": {"M": _M + 1.0},
    "power_2d": {"M": np.ones((3, 3))},
    "binned_power": {"M": _M},
    "top_fraction": {"M": _M, "n_bins": 1},
    "tied_share": {"M": _M},
    "dominant_bin": {"M": _M},
    "HeadSpectra": {
        "top_fraction": np.ones(2),
        "tied_share": np.zeros(2),
        "dominant_bin": np.array([[2, 3], [2, 3]]),
        "centred_share": np.ones(2),
        "n_bins": 1,
    },
    "head_spectra": {"M": np.stack([_M, _M + 5.0]), "n_bins": 2},
    "isotropic_top_fraction": {"p": 7, "n_bins": 1, "n_samples": 200, "seed": 0},
    "embedding_purity": {"net": construction_network(5, 2)},
    "GrokkingDelay": {"train_step": 200, "val_step": 400, "delay": 200},
    "first_reach": {"steps": [0, 100, 200], "values": [0.1, 0.6, 1.0], "threshold": 0.5},
    "grokking_delay": {
        "steps": [0, 100, 200, 300, 400],
        "train_acc": [0.1, 0.6, 1.0, 1.0, 1.0],
        "val_acc": [0.0, 0.1, 0.2, 0.5, 0.99],
        "train_threshold": 0.99,
        "val_threshold": 0.95,
    },
}

REFUSED = [
    ("even_split", {"n_points": 10**13, "seed": 0}, "n_points"),
    ("SplitModularTask", {"p": 10**9 + 7, "k": 1, "indices": (0,)}, "p"),
    ("sum_sequences", {"p": 3, "k": 23}, "k"),
    ("isotropic_top_fraction", {"p": 7, "n_bins": 1, "n_samples": 10**12}, "n_samples"),
    ("isotropic_top_fraction", {"p": 10**6 + 1, "n_bins": 1, "n_samples": 2}, "p"),
]

NO_SIZE: dict[str, str] = {}
