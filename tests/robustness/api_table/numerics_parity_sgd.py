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
    "lemB5_gradient_deviations": {"n": 5, "k": 2, "init": _INIT, "batch_size": 1000, "draws": 3, "seed": 0},
    "lemB5_miss_exact": {"k": 2, "pairs": 3, "bias_grid": [-0.5, 0.0, 0.5], "slots": [0.0, 0.5]},
    "lemB5_slot_cover": {"k": 2, "width": 8, "bias_grid": [-0.5, 0.0, 0.5], "slots": [0.0, 0.5], "draws": 5, "seed": 0},
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
    ("lemB5_gradient_deviations", {**BASELINE["lemB5_gradient_deviations"], "n": 13}, "n"),
    ("lemB5_gradient_deviations", {**BASELINE["lemB5_gradient_deviations"], "batch_size": 10**18 + 1}, "batch_size"),
    ("lemB5_gradient_deviations", {**BASELINE["lemB5_gradient_deviations"], "draws": 10**8 + 1}, "draws"),
    ("lemB5_miss_exact", {**BASELINE["lemB5_miss_exact"], "k": 17}, "k"),
    ("lemB5_miss_exact", {**BASELINE["lemB5_miss_exact"], "pairs": 10**4 + 1}, "pairs"),
    ("lemB5_slot_cover", {**BASELINE["lemB5_slot_cover"], "draws": 10**8 + 1}, "draws"),
    ("thm55_run", {**BASELINE["thm55_run"], "n": 13}, "n"),
    ("thm55_run", {**BASELINE["thm55_run"], "steps": 10**9}, "steps"),
    ("thm55_run", {**BASELINE["thm55_run"], "batch_size": 10**18 + 1}, "batch_size"),
    ("thm55_init", {"n": 10**12, "width": 4, "bias_grid": [0.0], "seed": 0}, "n"),
    ("thm55_init", {"n": 5, "width": 10**12, "bias_grid": [0.0], "seed": 0}, "width"),
]

NO_SIZE: dict[str, str] = {}
