"""The claim registry. Each source chapter registers its claims in one module:

* ``shi_ch4``: Shi thesis Ch. 4 + App. C (k-input modular addition, Theorem 4.9);
* ``edelman_ch7``: Edelman thesis Ch. 7 + App. D (modular addition with k = 2, Theorem 7.7).
"""

from .base import (
    KINDS,
    Claim,
    ClaimRecord,
    Observation,
    RunContext,
    register,
    registry,
    run_claim,
    select,
    to_jsonable,
)
from . import shi_ch4, edelman_ch7, edelman_ch7_parity, edelman_ch7_groups, edelman_ch5_6, edelman_ch5_6_constructions, edelman_ch5_gaps, edelman_ch5_sgd, edelman_ch6_pareto, shi_ch5, shi_ch8  # noqa: E402,F401  (registers the claims)

__all__ = ["KINDS", "Claim", "ClaimRecord", "Observation", "RunContext", "register", "registry", "run_claim", "select", "to_jsonable"]
