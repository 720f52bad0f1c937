"""Input validation shared by the exact-theory modules.

Every check raises :class:`ValueError` whose message names the hypothesis of the
source theorem that the input violates, so a researcher sees *why* a value is
refused, not only that it is.
"""

from __future__ import annotations

import numbers

import sympy

__all__ = ["is_symbolic", "check_odd_modulus", "check_positive_int"]


def is_symbolic(*values: object) -> bool:
    """Return True when any value is a non-numeric sympy expression (e.g. a Symbol)."""
    return any(isinstance(v, sympy.Basic) and not v.is_number for v in values)


def _as_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, sympy.Integer)):
        if isinstance(value, (float, sympy.Float)) and float(value).is_integer():
            raise ValueError(f"{name} must be an integer, got the float {value!r}; pass int({value!r})")
        raise ValueError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    return int(value)


def check_odd_modulus(p: object, *, source: str = "Shi Thm 4.9") -> int:
    """Validate the modulus of Z_p.

    The sources assume p > 2 prime; the proofs only use that p is odd (j and -j are distinct
    frequencies for j != 0), and the formulas were verified for odd composite p. Even p is outside
    the theory: frequency p/2 is self-conjugate and the single-neuron optimum is larger.
    """
    p_int = _as_int(p, "p")
    if p_int < 3 or p_int % 2 == 0:
        raise ValueError(
            f"p must be an odd integer >= 3 ({source} assumes p > 2 prime; the proof needs only p odd), "
            f"got p = {p_int}"
            + (
                "; for even p the frequency p/2 is its own conjugate and the closed form does not hold"
                if p_int % 2 == 0 and p_int >= 2
                else ""
            )
        )
    return p_int


def check_positive_int(value: object, name: str, *, minimum: int = 1, hypothesis: str = "") -> int:
    """Validate an integer parameter ``value >= minimum``."""
    v = _as_int(value, name)
    if v < minimum:
        extra = f" ({hypothesis})" if hypothesis else ""
        raise ValueError(f"{name} must be an integer >= {minimum}{extra}, got {name} = {v}")
    return v
