"""numerics.embeddings (Edelman Thm 5.6): embeddings and hinge programs of at most MAX_PROGRAM_ENTRIES = 2^n x D
entries, refused (D, width or n named) before anything is built or solved."""

import itertools

import numpy as np

from numerics.embeddings import HingeBracket, walsh_embedding

MODULE = "numerics.embeddings"

_B = (HingeBracket((0,), 0.2, 0.2, 0.0, 0.0, "CLARABEL"), HingeBracket((1,), 0.4, 0.4, 0.0, 0.0, "CLARABEL"))

BASELINE = {
    "normalize_rows": {"psi": np.array([[3.0, 4.0], [0.0, 1.0]])},
    "walsh_embedding": {"n": 2, "sets": [(0,), (1,)]},
    "random_relu_embedding": {"n": 3, "D": 4, "seed": 0},
    "ntk_embedding": {"n": 3, "width": 2, "seed": 0},
    "zero_one_error": {"psi": np.eye(2), "y": np.array([1, -1]), "w": np.array([1.0, 0.0])},
    "HingeBracket": {
        "support": (0, 1),
        "lower": 0.5,
        "upper": 0.5,
        "ball_residual": 0.0,
        "box_residual": 0.0,
        "solver": "CLARABEL",
    },
    "ParitySweep": {"n": 2, "k": 1, "R": 1.0, "D": 2, "brackets": _B, "seconds": 0.0},
    "hinge_over_parities": {
        "psi": walsh_embedding(3, list(itertools.combinations(range(3), 2))),
        "n": 3,
        "k": 2,
        "R": 1.0,
        "solvers": ("CLARABEL", "SCS"),
        "gap_tol": 1e-6,
    },
}

REFUSED = [
    ("random_relu_embedding", {"n": 10, "D": 4_000_000 // 1024 + 1, "seed": 0}, "D"),
    ("random_relu_embedding", {"n": 23, "D": 1, "seed": 0}, "n"),
    ("ntk_embedding", {"n": 9, "width": 4_000_000 // (512 * 10) + 1, "seed": 0}, "width"),
    ("ntk_embedding", {"n": 10**6, "width": 1, "seed": 0}, "n"),
    ("hinge_over_parities", {"psi": np.zeros((2**12, 977)), "n": 12, "k": 1, "R": 1.0}, "psi"),
]

NO_SIZE: dict[str, str] = {}
