"""theory.decision_lists (Karp Ch. 4, docs/decision_lists.md): tasks of at most MAX_TASK_TOKENS tokens (cyclic_task
L <= 125,000 with Fig. 4.1's shifts, random_task L <= 2236, printed_fig41_values L <= 500,000), enumerations of at
most MAX_LOOP_STEPS steps, exact values of at most MAX_DIGITS digits (1/C(L, n), n^4 (L - 1), ...), 40-digit gradient
identities of at most MAX_EXACT_ENTRIES entries; Theorem 4.4's constants (thm44_horizon, lemma41_bounds, ...) of at
most MAX_DIGITS digits."""

from fractions import Fraction

from theory.decision_lists import DecisionListTask

TASK = DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
W3 = [[0, 0, 0], [Fraction(1, 2), 1, 0], [Fraction(1, 2), 0, 1]]
V3 = [[0, 0, 3], [3, 0, 0], [0, 3, 0]]  # 3P for pi = (1, 2, 0)
P3 = [0.25, 0.5, 0.25]
SIGMA3 = [0.25, 0.25, 0.5]
LAW = {frozenset({0, 1}): Fraction(1, 3), frozenset({1, 2}): Fraction(1, 3), frozenset({0, 2}): Fraction(1, 3)}


def _misclassified(a: int, s: frozenset) -> bool:
    return a == 0


MODULE = "theory.decision_lists"

BASELINE = {
    "DecisionListTask": {"perm": (1, 2, 0), "lists": ((1, 0), (1,), (2,))},
    "antishift_class_value": {"L": 61, "n": 3, "eta": 61**2},
    "attention_column": {"W": W3, "s": (0, 1, 2), "a": 0},
    "attention_jacobian": {"p": P3, "s": (0, 1, 2)},
    "check_sequence": {"L": 5, "seq": [4, 0, 2]},
    "check_sequence_length": {"L": 5, "n": 3},
    "cyclic_summary": {"L": 7, "n": 3},
    "cyclic_task": {"L": 7, "shifts": (1, 2), "perm_shift": 3},
    "delta_a42": {"task": TASK, "law": LAW, "misclassified": _misclassified},
    "delta_a43": {"task": TASK, "n": 2, "law": None},
    "delta_a44": {"L": 5, "n": 2, "law": None},
    "directional_derivative_cp": {
        "c": 3,
        "n": 3,
        "perm": (1, 2, 0),
        "p": P3,
        "sigma": SIGMA3,
        "k_star": 1,
        "s": (0, 1, 2),
    },
    "entry_class": {"task": TASK, "r": 0, "t": 2},
    "event_probability": {"L": 6, "n": 3, "inside": [0, 1], "outside": [2]},
    "grad_v_rows": {"p": P3, "sigma": SIGMA3, "y": 2},
    "grad_w_column": {"V": V3, "p": P3, "sigma": SIGMA3, "y": 2},
    "grad_w_column_cp": {"c": 3, "perm": (1, 2, 0), "p": P3, "sigma": SIGMA3, "u": 1, "s": (0, 1, 2)},
    "initial_loss": {"L": 6, "n": 3, "c": 2},
    "label_determining_token": {"task": TASK, "s": (0, 1, 2), "a": 0},
    "labels": {"task": TASK, "seq": (0, 1, 2)},
    "lambda_max_leading": {"L": 8, "n": 3},
    "ldt_count_matrix": {"task": TASK, "n": 2},
    "ldt_event": {"task": TASK, "a": 0, "b": 1},
    "misclassified_cp": {"task": TASK, "W": W3, "s": (0, 1), "a": 0},
    "one_step_v": {"task": TASK, "n": 2, "eta": 9},
    "one_step_v_classes": {"L": 61, "n": 3, "eta": 61**2},
    "output_probs": {"V": V3, "p": P3},
    "printed_fig41_claimed_in_vocabulary": {"L": 200},
    "printed_fig41_values": {"L": 200, "one_indexed": True},
    "random_task": {"L": 4, "m": 2, "seed": 0, "min_length": 1},
    "sequence_gradients": {"task": TASK, "W": W3, "V": V3, "seq": (0, 2), "cp": 3},
    "shift_class_value": {"L": 61, "n": 3, "eta": 61**2},
    "thm43_c": {"n": 3, "L": 8, "delta": Fraction(1, 2)},
    "thm43_in_S_bound": {"n": 3, "c": 10, "p": Fraction(1, 2)},
    "thm43_in_S_bound_printed": {"c": 10, "p": Fraction(1, 2)},
    "thm43_sets": {"task": TASK, "W": W3, "n": 3},
    "thm43_step_budget": {"L": 8, "n": 3, "M": 3, "delta": Fraction(1, 2)},
    "thm44_algebra": {"s_notin_S_bound": "printed"},
    "thm44_c": {"n": 3, "delta": 1, "eps": 1, "M": 2, "Lbar": 1},
    "thm44_in_S_bound": {"n": 3, "c": 10, "eps": 1, "p": Fraction(1, 2)},
    "thm44_notin_S_bound": {"n": 3, "eps": Fraction(1, 2)},
    "uniform_subsets": {"L": 4, "n": 2},
    "thm44_initial_loss_bound": {"L": 6, "n": 3, "c": 2, "eps": Fraction(1, 2)},
    "thm44_sufficient_c": {"L": 3, "n": 2, "delta": Fraction(1, 3), "eps": 1, "M": 2},
    "thm44_horizon": {"lam": 1000, "eps": 1, "Lbar": 2},
    "thm44_horizon_leading": {"L": 3, "n": 2, "c": 100, "eps": 1, "Lbar": 1},
    "lemma41_bounds": {"eps": 1, "Lbar": 2},
}

_BIG = DecisionListTask(tuple(range(1001)), tuple((a,) for a in range(1001)))  # 1001^2 enumeration steps

REFUSED = [
    ("cyclic_task", {"L": 125_001}, "L"),
    ("cyclic_summary", {"L": 125_001, "n": 3}, "L"),
    ("cyclic_summary", {"L": 20_000, "n": 10_000}, "n"),
    ("random_task", {"L": 2237, "m": 2, "seed": 0}, "L"),
    ("printed_fig41_values", {"L": 500_001, "one_indexed": True}, "L"),
    ("delta_a44", {"L": 20_000, "n": 10_000}, "n"),
    ("lambda_max_leading", {"L": 10**1001, "n": 10**1000}, "n"),
    ("thm43_c", {"n": 10**2000, "L": 8, "delta": 1}, "n"),
    ("ldt_count_matrix", {"task": _BIG, "n": 2}, "task"),
    ("one_step_v", {"task": _BIG, "n": 2, "eta": 1}, "task"),
    ("thm43_sets", {"task": _BIG, "W": [[0] * 1001] * 1001, "n": 3}, "n"),
    ("attention_column", {"W": [[0] * 448] * 448, "s": (0, 1), "a": 0}, "W"),
    ("output_probs", {"V": [[0] * 448] * 448, "p": [1 / 448] * 448}, "V"),
    ("attention_jacobian", {"p": [1 / 448] * 448, "s": (0, 1)}, "p"),
    ("uniform_subsets", {"L": 500_001, "n": 2}, "L"),
    ("thm44_horizon_leading", {"L": 10**1001, "n": 10**1000, "c": 1, "eps": 1, "Lbar": 1}, "n"),
    ("thm44_horizon_leading", {"L": 3, "n": 2, "c": 10**2001, "eps": 1, "Lbar": 1}, "c"),
    ("thm44_horizon", {"lam": 10**4001, "eps": 1, "Lbar": 1}, "lam"),
    ("thm44_initial_loss_bound", {"L": 6, "n": 3, "c": 1, "eps": 10**4001}, "eps"),
    ("thm44_sufficient_c", {"L": 3, "n": 2, "delta": 1, "eps": 1, "M": 10**4001}, "M"),
    ("lemma41_bounds", {"eps": 1, "Lbar": 10**4001}, "Lbar"),
]

NO_SIZE = {
    "lemma41_drift_bound_printed": "no arguments (returns 1/2)",
    "thm43_algebra": "no arguments (symbolic algebra)",
}
