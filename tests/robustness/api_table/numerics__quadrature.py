"""numerics._quadrature: adaptive quadrature that refuses where QUADPACK only warns."""

MODULE = "numerics._quadrature"

BASELINE = {
    "converged_quad": {
        "f": lambda v: v**-2.0,
        "a": 1.0,
        "b": 4.0,
        "epsrel": 1e-13,
        "param": "v_to",
        "what": "the integral of v^-2",
        "hint": "",
        "limit": 200,
    },
}

REFUSED: list = []

NO_SIZE: dict[str, str] = {}
