"""numerics.margins (docs/limits.md): one forward pass over a dataset at most MAX_FORWARD_WORK multiply-adds."""

import numpy as np

from numerics.margins import HomogeneousNetwork
from numerics.modular import ModularTask, construction_network, random_network

MODULE = "numerics.margins"

_F = np.array([[3.0, 1.0, 2.0], [0.0, 4.0, 4.0]])

BASELINE = {
    "HomogeneousNetwork": {"U": [[[1.0, 0.0, -1.0]]], "W": [[1.0, -1.0, 0.0]], "degree": 1},
    "check_class_weights": {"Q": (1 - np.eye(3)) / 6, "task": ModularTask(3, 1), "atol": 1e-9},
    "check_forward": {"net": construction_network(3, 2), "task": ModularTask(3, 2)},
    "check_network": {"net": HomogeneousNetwork(np.ones((1, 1, 2)), np.ones((1, 2)), 1), "name": "net"},
    "check_task": {"task": ModularTask(3, 1), "name": "task"},
    "chunk_size_for": {"width": 16, "n_classes": 5, "n_blocks": 2, "memory_budget": 1000},
    "class_weighted_point_margins": {"F": _F, "labels": np.array([0, 1]), "tau": None},
    "evaluate": {
        "net": construction_network(3, 1),
        "task": ModularTask(3, 1),
        "Q": None,
        "chunk_size": None,
        "memory_budget": 2**20,
    },
    "int_power": {"S": np.array([2.0, -3.0, 0.5]), "degree": 3},
    "iter_logits": {
        "net": construction_network(3, 1),
        "task": ModularTask(3, 1),
        "chunk_size": 2,
        "memory_budget": 2**20,
    },
    "normalized_margin": {"net": construction_network(3, 2), "task": ModularTask(3, 2)},
    "point_margins": {"F": _F, "labels": np.array([0, 1])},
}

REFUSED = [
    ("check_forward", {"net": random_network(3, 20, 2, np.random.default_rng(0)), "task": ModularTask(3, 20)}, "task"),
    ("evaluate", {"net": random_network(3, 20, 2, np.random.default_rng(0)), "task": ModularTask(3, 20)}, "task"),
    ("iter_logits", {"net": random_network(3, 20, 2, np.random.default_rng(0)), "task": ModularTask(3, 20)}, "task"),
    (
        "normalized_margin",
        {"net": random_network(3, 20, 2, np.random.default_rng(0)), "task": ModularTask(3, 20)},
        "task",
    ),
]

NO_SIZE = {
    "MarginReport": "a record built by evaluate",
    "Task": "a Protocol, never called",
}
