"""numerics.sos (docs/limits.md, docs/certificates.md): gradings of at most 1440 variables (2 |G| for S_6), monomial
tables of at most 2 * 10^7 entries, margin polynomials of at most 10^9 products, Gram blocks up to MAX_BLOCK = 160 and
Clarabel's dense scaling entries up to MAX_SCALING = 2 * 10^7 (both checked against the memory available)."""

from typing import Any

import numpy as np

from numerics.groups import GroupTask
from numerics.modular import ModularTask
from numerics.sos import Form, SDPSize, SOSResult, group_grading, modular_grading, monomials, trivial_grading
from theory.finite_groups import group

MODULE = "numerics.sos"

_FORM_EXPS = np.array([[2, 2]])
_FORM_COEF = np.array([1.0 + 0j])
_FORM = Form(_FORM_EXPS, _FORM_COEF)
_BIG_FORM = Form(monomials(4, 6)[1], np.ones(84, dtype=complex))  # one Gram block of C(6, 3) = 20 monomials
_SIZE = SDPSize(4, 4, 2, 10, (10,), 56, 35)
_RESULT: dict[str, Any] = dict(
    bound=0.25,
    value=0.25,
    dual_value=0.25,
    gap=0.0,
    residual_l1=0.0,
    gram_min_eig=0.0,
    moment_min_eig=0.0,
    normalization_residual=0.0,
    rounding_pad=0.0,
    invariance_defect=0.0,
    solver="CLARABEL",
    status="optimal",
    feasibility_tolerance=1e-10,
    attempts=(),
    size=_SIZE,
    scale=1.0,
    build_seconds=0.0,
    solve_seconds=0.0,
    grading="none",
)

BASELINE = {
    "Form": {"exponents": _FORM_EXPS, "coefficients": _FORM_COEF},
    "Grading": {"V": np.eye(2), "weights": np.zeros((2, 1)), "moduli": (1,), "name": "none"},
    "SDPSize": {
        "n_vars": 4,
        "n_used": 4,
        "degree": 2,
        "n_monomials": 10,
        "block_sides": (10,),
        "n_scalars": 56,
        "n_equalities": 35,
    },
    "SOSResult": _RESULT,
    "SingleNeuronBound": {
        "bound": 0.27,
        "solver_value": 0.27,
        "moment_value": 0.27,
        "dropped": 0.0,
        "sos": SOSResult(**_RESULT),
        "degree": 2,
    },
    "group_grading": {"G": "S3"},
    "margin_polynomials": {
        "task": ModularTask(3, 2),
        "degree": 2,
        "grading": modular_grading(3, 2),
        "Q": None,
        "memory_budget": 2**20,
    },
    "modular_grading": {"p": 3, "k": 2},
    "monomials": {"n": 2, "degree": 2},
    "orbit_grading": {"n": 3, "orbits": [(np.arange(3), 0)], "moduli": (3,), "name": "Z3"},
    "output_layer_factor": {"degree": 2},
    "sdp_size": {"form": _FORM, "grading": None},
    "sign_grading": {"n": 3},
    "single_neuron_sdp_bound": {
        "task": GroupTask(group("Z2")),
        "degree": 2,
        "grading": group_grading("Z2"),
        "drop_tol": 1e-13,
        "max_block": 160,
    },
    "sos_sphere_bound": {
        "form": _FORM,
        "grading": trivial_grading(2),
        "solver": "CLARABEL",
        "max_block": 160,
        "max_scaling": 2 * 10**7,
    },
    "squared_norm_form": {"exps": np.array([[1, 0], [0, 1]]), "P": np.array([[1.0, 0.0], [0.0, 2.0]])},
    "trivial_grading": {"n": 3},
}

REFUSED = [
    ("trivial_grading", {"n": 1441}, "n"),
    ("sign_grading", {"n": 1441}, "n"),
    ("modular_grading", {"p": 1441, "k": 1}, "p"),
    ("modular_grading", {"p": 721, "k": 2}, "k"),
    ("orbit_grading", {"n": 1441, "orbits": [], "moduli": (), "name": "big"}, "n"),
    ("Grading", {"V": np.eye(1441), "weights": np.zeros((1441, 1)), "moduli": (1,), "name": "big"}, "V"),
    ("monomials", {"n": 100, "degree": 5}, "degree"),
    ("monomials", {"n": 10**4, "degree": 1}, "n"),
    ("margin_polynomials", {"task": GroupTask(group("S5")), "degree": 3, "grading": group_grading("S5")}, "degree"),
    ("margin_polynomials", {"task": ModularTask(101, 4), "degree": 1, "grading": modular_grading(101, 4)}, "task"),
    ("sos_sphere_bound", {"form": _BIG_FORM, "max_block": 19}, "form"),
    ("single_neuron_sdp_bound", {"task": ModularTask(5, 2), "degree": 2, "max_block": 10}, "task"),
    ("group_grading", {"G": "D361"}, "group"),
]

NO_SIZE = {"SOSError": "an exception class (RuntimeError) of failed solves"}
