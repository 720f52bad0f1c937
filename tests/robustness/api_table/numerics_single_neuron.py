"""numerics.single_neuron (docs/limits.md): n_starts <= MAX_STARTS, degree <= MAX_DEGREE, the multi-start search
(starts x iterations x points) within numerics.limits.MAX_WORK, start points and cached chunks checked against the
available memory."""

import numpy as np

from numerics.modular import ModularTask, optimal_neuron_network

MODULE = "numerics.single_neuron"

_TASK = ModularTask(3, 2)
_NET = optimal_neuron_network(3, 2)

BASELINE = {
    "objective_chunk_size": {"task": _TASK, "memory_budget": 8 * 29 * 100},
    "class_weighted_objective": {
        "U": _NET.U[0],
        "w": _NET.W[0],
        "task": _TASK,
        "degree": 2,
        "Q": (1 - np.eye(3))[_TASK.batch(0, 9)[1]] / 18,
        "chunk_size": 4,
    },
    "SingleNeuronResult": {
        "value": 0.5,
        "network": _NET,
        "start_values": np.array([0.5, 0.5]),
        "n_at_best": 2,
        "iterations": np.array([3, 4]),
        "success": True,
        "grad_norm": 0.0,
        "message": "ok",
    },
    "maximize_single_neuron": {
        "task": _TASK,
        "degree": 2,
        "Q": None,
        "n_starts": 1,
        "seed": 0,
        "tol": 1e-8,
        "maxiter": 5,
        "chunk_size": 9,
        "memory_budget": 2**20,
    },
}

REFUSED = [
    ("maximize_single_neuron", {"task": _TASK, "degree": 2, "n_starts": 10_001}, "n_starts"),
    ("maximize_single_neuron", {"task": _TASK, "degree": 65, "n_starts": 2}, "degree"),
    ("class_weighted_objective", {"U": _NET.U[0], "w": _NET.W[0], "task": _TASK, "degree": 65}, "degree"),
]

NO_SIZE: dict[str, str] = {}
