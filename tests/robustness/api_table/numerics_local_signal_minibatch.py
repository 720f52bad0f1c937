"""numerics.local_signal_minibatch (Karp App. B.1.3, Lemma B.4; docs/local_signal.md): the lattice of the population
gradient within MAX_LATTICE points, its Gauss-Legendre nodes within MAX_NODES, and the minibatch Monte Carlo within
numerics.limits' MAX_MC_SAMPLES and MAX_MC_WORK."""

import numpy as np

from numerics.local_signal_minibatch import PopulationGradient

MODULE = "numerics.local_signal_minibatch"

_POP = PopulationGradient(star=-0.2, perp=0.05, bias=0.01, loss_weight=0.3)

BASELINE = {
    "population_gradient": {"k": 3, "sigma": 0.5, "c": 0.8, "v": 0.3, "b": -0.1, "h": 0.02, "nodes": 20},
    "sample_gradients": {
        "X": np.array([[[1.0, 0.0], [0.3, -0.2]], [[-1.0, 0.0], [0.1, 0.4]]]),
        "y": np.array([1.0, -1.0]),
        "w": np.array([0.5, 0.2]),
        "b": 0.1,
    },
    "minibatch_deviations": {
        "k": 3,
        "d": 2,
        "sigma": 0.5,
        "c": 0.8,
        "v": 0.3,
        "b": -0.1,
        "n": 20,
        "batches": 2,
        "seed": 0,
        "population": _POP,
        "chunk": 10,
    },
    "PopulationGradient": {"star": -0.2, "perp": 0.05, "bias": 0.01, "loss_weight": 0.3},
}

REFUSED = [
    ("population_gradient", {"k": 10**6, "sigma": 0.5, "c": 0.8, "v": 0.3, "b": -0.1}, "h"),
    ("population_gradient", {"k": 3, "sigma": 0.5, "c": 0.8, "v": 0.3, "b": -0.1, "nodes": 10_001}, "nodes"),
    (
        "minibatch_deviations",
        {
            "k": 3,
            "d": 2,
            "sigma": 0.5,
            "c": 0.8,
            "v": 0.3,
            "b": -0.1,
            "n": 10**9,
            "batches": 10**6,
            "seed": 0,
            "population": _POP,
        },
        "n",
    ),
]

NO_SIZE: dict[str, str] = {}
