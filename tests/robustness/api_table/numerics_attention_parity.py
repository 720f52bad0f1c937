"""numerics.attention_parity (docs/attention_parity.md): d = 2^nu2 <= 2^20 features; Monte Carlo work (draws x
examples x features) at most numerics.limits.MAX_WORK."""

from theory import attention_parity as tap

MODULE = "numerics.attention_parity"

BASELINE = {
    "float_margins": {"heads": tap.parity_construction(2), "gamma": 0.1, "tasks": [(0, 3)]},
    "projection_mc": {"nu1": 1, "nu2": 3, "M": 16, "n_draws": 200, "seed": 0},
    "parity_behaviour_sim": {
        "heads": tap.parity_g1(1, 3),
        "gamma": 0.2,
        "M": 16,
        "n_prompts": 200,
        "seed": 0,
        "tasks": ((0, 1), (1, 0)),
        "chunk": 100,
    },
}

REFUSED = [
    ("projection_mc", {"nu1": 1, "nu2": 21, "M": 16, "n_draws": 200, "seed": 0}, "nu2"),
    ("projection_mc", {"nu1": 1, "nu2": 3, "M": 16, "n_draws": 10**12, "seed": 0}, "n_draws"),
    ("projection_mc", {"nu1": 1, "nu2": 3, "M": 10**12, "n_draws": 200, "seed": 0}, "M"),
    (
        "parity_behaviour_sim",
        {"heads": tap.parity_g1(1, 3), "gamma": 0.2, "M": 10**12, "n_prompts": 200, "seed": 0},
        "M",
    ),
    (
        "parity_behaviour_sim",
        {"heads": tap.parity_g1(1, 3), "gamma": 0.2, "M": 16, "n_prompts": 10**12, "seed": 0},
        "n_prompts",
    ),
]

NO_SIZE: dict[str, str] = {}
