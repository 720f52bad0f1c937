"""numerics.lsa (docs/limits.md): Monte Carlo at most MAX_MC_SAMPLES prompts and MAX_MC_WORK float entries; L-BFGS
at most MAX_LBFGS_STARTS starts; d x d matrices of d <= MAX_D; prompt batches checked against memory."""

import numpy as np

MODULE = "numerics.lsa"

_LAM = np.diag([2.0, 1.0])
_U = np.array([[4 / 13, 0.0], [0.0, 0.0]])
_WPV = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
_WKQ = np.array([[4 / 13, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
_E = np.array([[[1.0, 0.5, -1.0, 0.2], [0.3, -0.4, 2.0, 1.0], [1.1, 0.0, -0.5, 0.0]]])

BASELINE = {
    "as_covariance": {"Lam": [[2, 0], [0, 1]]},
    "check_count": {"N": 5, "name": "N"},
    "closed_form": {"Lam": _LAM, "N": 4, "r": 1},
    "ell_tilde": {"U": _U, "u": 1.0, "Lam": _LAM, "N": 4},
    "expanded_prediction": {"E": _E, "WPV": _WPV, "WKQ": _WKQ, "rho": 3},
    "gamma": {"Lam": _LAM, "N": 4},
    "lbfgs_rank_r": {"Lam": _LAM, "N": 4, "r": 1, "n_starts": 1, "seed": 0},
    "lsa_forward": {"E": _E, "WPV": _WPV, "WKQ": _WKQ, "rho": 3},
    "lsa_weights": {"U": np.eye(2), "u": 0.5, "p": np.array([1.0, 2.0]), "q": None},
    "mc_eval_loss": {
        "WPV": _WPV,
        "WKQ": _WKQ,
        "Lam": _LAM,
        "M": 3,
        "w": np.array([1.0, 0.5]),
        "sigma": 0.5,
        "n_prompts": 200,
        "seed": 0,
        "chunk": 50_000,
    },
    "mc_pretrain_loss": {"WPV": _WPV, "WKQ": _WKQ, "Lam": _LAM, "N": 4, "n_prompts": 200, "seed": 0, "chunk": 50_000},
    "random_orthogonal": {"d": 3, "rng": np.random.default_rng(0)},
    "sample_prompts": {
        "rng": np.random.default_rng(0),
        "B": 2,
        "Lam": np.eye(2),
        "n": 3,
        "w": np.array([1.0, -1.0]),
        "sigma": 0.0,
    },
    "thm542": {"lam": np.array([2.0, 1.0]), "N": 4, "r": 1, "M": 3, "sigma": 0.5, "c": np.array([1.0, 0.5])},
}

REFUSED = [
    (
        "mc_pretrain_loss",
        {"WPV": _WPV, "WKQ": _WKQ, "Lam": _LAM, "N": 4, "n_prompts": 10**8 + 1, "seed": 0},
        "n_prompts",
    ),
    ("mc_pretrain_loss", {"WPV": _WPV, "WKQ": _WKQ, "Lam": _LAM, "N": 10**8, "n_prompts": 100, "seed": 0}, "N"),
    (
        "mc_eval_loss",
        {
            "WPV": _WPV,
            "WKQ": _WKQ,
            "Lam": _LAM,
            "M": 3,
            "w": np.ones(2),
            "sigma": 0.0,
            "n_prompts": 10**8 + 1,
            "seed": 0,
        },
        "n_prompts",
    ),
    ("lbfgs_rank_r", {"Lam": _LAM, "N": 4, "r": 1, "n_starts": 10**4 + 1}, "n_starts"),
    ("random_orthogonal", {"d": 10**5, "rng": np.random.default_rng(0)}, "d"),
    ("sample_prompts", {"rng": np.random.default_rng(0), "B": 10**12, "Lam": np.eye(2), "n": 3}, "B"),
]

NO_SIZE = {"LbfgsResult": "a record built by lbfgs_rank_r"}
