"""numerics.scaling (Edelman Sec. 5.3.2): random-search success times, at most MAX_MC_SAMPLES draws per case
(blocks x block) and MAX_MC_WORK in all, each case's C(n, k) at most MAX_SEARCH_SETS."""

import numpy as np

MODULE = "numerics.scaling"

BASELINE = {
    "local_slopes": {"ns": [10, 20, 40], "medians": [100.0, 400.0, 800.0]},
    "block_count": {"n": 12, "block": 4, "what": "seeds"},
    "block_medians": {"values": np.array([1.0, 3.0, 5.0, 7.0]), "block": 2},
    "random_search_block_medians": {"cases": [(10, 2), (12, 3)], "blocks": 5, "block": 3, "seed": 0, "copies": 2},
}

REFUSED = [
    ("random_search_block_medians", {"cases": [(10, 2)], "blocks": 10**8 + 1, "block": 1}, "blocks"),
    ("random_search_block_medians", {"cases": [(10, 2)], "blocks": 1, "block": 10**8 + 1}, "block"),
    ("random_search_block_medians", {"cases": [(10, 2)] * 101, "blocks": 10**6, "block": 100}, "cases"),
    ("random_search_block_medians", {"cases": [(100, 50)], "blocks": 1, "block": 1}, "cases"),
    ("random_search_block_medians", {"cases": [(10**9, 10**8)], "blocks": 1, "block": 1}, "cases"),
]

NO_SIZE: dict[str, str] = {}
