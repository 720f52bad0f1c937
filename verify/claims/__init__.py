"""The claim registry: one module per task, named as in ``theory/`` and ``numerics/``.

Importing this package imports the task modules in :data:`TASKS` order (the order of ``tvk list`` and of the
report); each registers its claims with :func:`register`. A task module imports only the shared machinery
(:mod:`.base`, :mod:`.judges`, :mod:`.training`), never another task module.
"""

from importlib import import_module

from .base import (
    KINDS,
    Claim,
    ClaimRecord,
    Deviation,
    Erratum,
    Observation,
    PostHoc,
    RunContext,
    register,
    registry,
    run_claim,
    select,
    to_jsonable,
)

#: The task modules, in registration order.
TASKS: tuple[str, ...] = (
    "modular",
    "parity",
    "groups",
    "boolean",
    "polynet",
    "polynet_gaussian",
    "interpolation",
    "sparse_init",
    "sparse_init_theorems",
    "sparse_init_convex_phase",
    "sparse_init_end_to_end",
    "sparse_parity",
    "lsa",
    "attention_parity",
    "looped",
    "markov",
    "decision_lists",
    "modular_transformer",
    "local_signal",
    "sparse_variable",
)

for _name in TASKS:
    import_module(f"{__name__}.{_name}")

__all__ = [
    "KINDS",
    "TASKS",
    "Claim",
    "ClaimRecord",
    "Deviation",
    "Erratum",
    "Observation",
    "PostHoc",
    "RunContext",
    "register",
    "registry",
    "run_claim",
    "select",
    "to_jsonable",
]
