"""numerics.parity_sgd (Edelman Thm 5.5 end to end): all 2^n points with n <= MAX_N = 12; the run's work
(steps x seeds x 2^n x r) and its allocations bounded (numerics.limits)."""

import numpy as np

MODULE = "numerics.parity_sgd"

_INIT = (
    np.array([[1.0, -1.0, 1.0, 1.0, -1.0], [-1.0, 1.0, 1.0, -1.0, 1.0]] * 2),
    np.array([-0.5, 0.0, -0.5, 0.0]),
    np.array([1.0, -1.0, -1.0, 1.0]),
)

BASELINE = {
    "thm55_init": {"n": 5, "width": 4, "bias_grid": [-0.5, 0.0, 0.5], "seed": 0},
    "thm55_run": {
        "n": 5,
        "k": 2,
        "inits": [_INIT],
        "seeds": (0,),
        "first_rate": 4 / 3,
        "rate": 0.01,
        "batch_size": 1000,
        "steps": 5,
    },
}

REFUSED = [
    ("thm55_run", {**BASELINE["thm55_run"], "n": 13}, "n"),
    ("thm55_run", {**BASELINE["thm55_run"], "steps": 10**9}, "steps"),
    ("thm55_run", {**BASELINE["thm55_run"], "batch_size": 10**18 + 1}, "batch_size"),
    ("thm55_init", {"n": 10**12, "width": 4, "bias_grid": [0.0], "seed": 0}, "n"),
    ("thm55_init", {"n": 5, "width": 10**12, "bias_grid": [0.0], "seed": 0}, "width"),
]

NO_SIZE: dict[str, str] = {}
