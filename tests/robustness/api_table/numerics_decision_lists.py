"""numerics.decision_lists (docs/limits.md): C(L, n) <= MAX_SUBSETS subsets; Monte Carlo at most MAX_MC_SAMPLES
samples and MAX_MC_WORK entries; GD and the adversarial search at most numerics.limits.MAX_WORK (array work plus their Python steps); per-entry loops L^2 M <=
MAX_TASK_WORK; allocations checked against memory."""

from fractions import Fraction

import numpy as np

from theory import decision_lists as td

MODULE = "numerics.decision_lists"

_TASK = td.random_task(5, 3, seed=0)
_S = np.array([[0, 1, 2], [0, 1, 3]])
_Y = np.array([[0, 1, 1], [2, 4, 2]])
_RNG = np.random.default_rng(0)
_W = _RNG.standard_normal((5, 5))
_V = _RNG.standard_normal((5, 5))
_P = np.zeros((5, 5))
_P[np.asarray(_TASK.perm), np.arange(5)] = 1.0
_ALL = np.array([list(s) for s in td.uniform_subsets(5, 3)])
_LAW = {frozenset({0, 1}): Fraction(1, 2), frozenset({0, 2}): Fraction(1, 3), frozenset({1, 2}): Fraction(1, 6)}
_LAW3 = {frozenset(s): Fraction(1, 10) for s in td.uniform_subsets(5, 3)}
_VEC = np.full(5, 0.2)

BASELINE = {
    "subsets_array": {"L": 5, "n": 3},
    "sample_sequences": {"L": 5, "n": 3, "B": 2, "rng": np.random.default_rng(0)},
    "check_sequences": {"L": 5, "S": [[0, 4, 2]]},
    "ldt_array": {"task": _TASK, "S": _S},
    "labels_array": {"task": _TASK, "S": _S},
    "permutation_matrix": {"task": _TASK},
    "forward": {"W": _W, "V": _V, "S": _S},
    "sequence_losses": {"W": _W, "V": _V, "S": _S, "Y": _Y},
    "closed_form_gradients": {"W": _W, "V": _V, "S": _S, "Y": _Y},
    "correct_mask": {"W": _W, "V": _V, "S": _S, "Y": _Y, "tol": 0.0},
    "column_order_ok": {"W": _W, "task": _TASK},
    "population_gd_w": {
        "task": _TASK,
        "n": 3,
        "c": 4.0,
        "eta": 50.0,
        "steps": 2,
        "W0": None,
        "keep_iterates": True,
    },
    "class_indices": {"task": td.cyclic_task(11)},
    "one_step_v_mc": {"task": td.cyclic_task(11), "n": 4, "eta": 121.0, "samples": 200, "seed": 0, "chunk": 10_000},
    "one_step_v_exact_float": {"task": td.cyclic_task(11), "n": 4, "eta": 121.0},
    "event_probability_mc": {"L": 7, "n": 3, "inside": [0, 1], "outside": [2], "samples": 200, "seed": 0},
    "a43_min_event_float": {"task": _TASK, "n": 3},
    "notin_S_directional": {"task": _TASK, "W": np.zeros((5, 5)), "V": 4.0 * _P, "S": _ALL, "a": 0, "tol": 0.0},
    "token_directional": {"task": _TASK, "W": np.zeros((5, 5)), "V": 4.0 * _P, "S": _ALL, "a": 0},
    "directional_grad_v": {"V": 4.0 * _P, "p": _VEC, "sigma": _VEC, "q": _VEC - 0.1, "y": 2, "n": 3},
    "adversarial_e": {"task": _TASK, "W": _W, "c": 4.0, "eps": 0.1, "S": _ALL, "iters": 2, "E0": np.zeros((5, 5))},
    "brute_force_delta_a43": {"task": _TASK, "law": _LAW3},
    "brute_force_delta_a44": {"law": _LAW},
    "population_gd_wv": {"task": _TASK, "n": 3, "V0": 2.0 * _P, "eta": 1.0, "steps": 2},
}

REFUSED = [
    ("subsets_array", {"L": 30, "n": 15}, "n"),
    ("subsets_array", {"L": 5_000_001, "n": 1}, "L"),
    ("subsets_array", {"L": 10**9, "n": 5 * 10**8}, "n"),
    ("sample_sequences", {"L": 5, "n": 3, "B": 10**8 + 1, "rng": np.random.default_rng(0)}, "B"),
    ("one_step_v_mc", {"task": td.cyclic_task(11), "n": 4, "eta": 1.0, "samples": 10**8 + 1, "seed": 0}, "samples"),
    ("one_step_v_mc", {"task": td.cyclic_task(200), "n": 25, "eta": 1.0, "samples": 10**7, "seed": 0}, "samples"),
    (
        "event_probability_mc",
        {"L": 7, "n": 3, "inside": [0], "outside": [], "samples": 10**8 + 1, "seed": 0},
        "samples",
    ),
    ("population_gd_w", {"task": _TASK, "n": 3, "c": 4.0, "eta": 1.0, "steps": 10**9}, "steps"),
    ("population_gd_wv", {"task": _TASK, "n": 3, "V0": 2.0 * _P, "eta": 1.0, "steps": 10**9}, "steps"),
    ("adversarial_e", {"task": _TASK, "W": _W, "c": 4.0, "eps": 0.1, "S": _ALL, "iters": 10**9, "E0": _W}, "iters"),
    ("class_indices", {"task": td.cyclic_task(20_000)}, "task"),
]

NO_SIZE = {"PopulationGD": "a record built by population_gd_w"}
