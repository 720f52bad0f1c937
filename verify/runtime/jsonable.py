"""One JSON conversion and one configuration hash for the whole of ``verify/`` (torch-free, so that ``tvk list``,
``tvk derive`` and the claim index stay light).

* :func:`to_jsonable`: sympy numbers as ``{"exact": str, "float": float}`` (both forms reach the report), Fractions
  likewise, dataclasses by field, numpy (and torch) arrays and scalars as lists and Python numbers, non-finite floats
  as strings (JSON has no NaN), an exact integer too long for Python to print as a placeholder naming its size.
* :func:`config_hash`: SHA-256 of a value's canonical JSON (:func:`to_jsonable`, sorted keys), 16 hex digits: what
  checkpoints, cached training runs and sweep cells are keyed by.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sys
from fractions import Fraction
from typing import Any

__all__ = [
    "HASH_DIGITS",
    "JSON_OPTION_HELP",
    "approx_text",
    "beyond_float",
    "canonical_json",
    "config_hash",
    "exact_text",
    "is_exact_finite",
    "to_float",
    "to_jsonable",
]

HASH_DIGITS = 16

#: The help of every ``--json`` option of ``tvk`` (docs/cli.md, "What is guaranteed about the output").
JSON_OPTION_HELP = "print exactly one JSON object on stdout instead of text (errors too)"
"""Hex digits of :func:`config_hash` (64 bits: collisions among a store's configurations are out of reach)."""


def exact_text(x: Any) -> str:
    """``str(x)`` of an exact value, or a placeholder naming its size when Python refuses to print an integer of more
    than ``sys.get_int_max_str_digits()`` digits (e.g. Majority_50000's coefficients)."""
    try:
        return str(x)
    except ValueError:
        num, den = (int(v) for v in (getattr(x, "numerator", x), getattr(x, "denominator", 1)))
        digits = round((num.bit_length() + den.bit_length()) * math.log10(2))
        return f"<exact value of ~{digits} digits, above Python's limit of {sys.get_int_max_str_digits()} for printing>"


def to_float(x: Any) -> float:
    """``float(x)``, with +-inf where the value is outside the float range (instead of an OverflowError)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def is_exact_finite(x: Any) -> bool:
    """Whether ``x`` is an exact finite number (an int, a Fraction, a finite sympy number), not a float."""
    return hasattr(x, "numerator") or getattr(x, "is_finite", None) is True


def beyond_float(x: Any) -> bool:
    """Whether ``x`` is an exact finite number that a float does not carry: its float overflows (inf), or it is not
    zero and its float underflows to zero or to a subnormal (fewer significant bits than a float has).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from verify.runtime.jsonable import beyond_float
    >>> beyond_float(Fraction(1, 3)), beyond_float(10**400), beyond_float(Fraction(1, 10**400)), beyond_float(0)
    (False, True, True, False)
    """
    if not is_exact_finite(x):
        return False
    f = to_float(x)
    return not math.isfinite(f) or (abs(f) < sys.float_info.min and x != 0)


def approx_text(x: Any, spec: str = ".12g") -> str:
    """``format(float(x), spec)`` (``spec`` like ``".12g"`` or ``".12e"``); for an exact value beyond the float range
    (:func:`beyond_float`), where ``float`` gives inf or 0, the same significant digits in scientific notation from
    the exact value (``tvk derive parity --k 400``'s gamma* is about ``8.2e+433``, not inf; 1/10^400 is ``1e-400``,
    not 0).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from verify.runtime.jsonable import approx_text
    >>> approx_text(Fraction(1, 3)), approx_text(-(10**400) * 3 // 7, ".3e"), approx_text(Fraction(-2, 3 * 10**400))
    ('0.333333333333', '-4.286e+399', '-6.66666666667e-401')
    """
    if not beyond_float(x):
        return format(to_float(x), spec)
    significant = int(spec.strip(".eg") or 6) + (1 if spec.endswith("e") else 0)
    if hasattr(x, "numerator"):
        num, den = int(x.numerator), int(x.denominator)
    else:  # an irrational sympy number: enough of its digits, exactly as a rational
        import sympy

        q = sympy.Rational(sympy.N(x, significant + 10))
        num, den = int(q.p), int(q.q)
    sign, value = ("-" if num < 0 else ""), abs(Fraction(num, den))
    e = math.floor((value.numerator.bit_length() - value.denominator.bit_length()) * math.log10(2))  # then adjusted:
    while Fraction(10) ** e > value:  # 10^e <= value < 10^(e+1)
        e -= 1
    while Fraction(10) ** (e + 1) <= value:
        e += 1
    mantissa = math.floor(value / Fraction(10) ** (e - (significant - 1)) + Fraction(1, 2))  # rounded half up
    if mantissa == 10**significant:
        mantissa, e = mantissa // 10, e + 1
    digits = str(mantissa)
    return f"{sign}{digits[0]}.{digits[1:]}e{'+' if e >= 0 else '-'}{abs(e)}"


def to_jsonable(x: Any) -> Any:
    """Convert sympy values, Fractions, numpy (or torch) arrays and scalars, dataclasses and tuples into JSON data.

    A sympy number or a Fraction becomes ``{"exact": str, "float": float}``; a symbolic sympy expression
    ``{"exact": str}``; a non-finite float the string ``"nan"``, ``"inf"`` or ``"-inf"``.
    """
    kind = type(x)
    if kind is int or kind is str or kind is bool or x is None:  # the common leaves first (a claim's configuration
        return x  # can hold 10^6 of them: Edelman Lemma C.2's cases); the same values as the general path below
    if kind is float:
        return x if math.isfinite(x) else str(x)
    sympy = sys.modules.get("sympy")  # not imported: x cannot be a sympy value (and `tvk list` stays light)
    if sympy is not None and isinstance(x, sympy.Basic):
        if not x.is_number:
            return {"exact": exact_text(x)}
        try:
            return {"exact": exact_text(x), "float": to_jsonable(to_float(x))}
        except TypeError:
            return {"exact": exact_text(x)}
    if isinstance(x, Fraction):
        return {"exact": exact_text(x), "float": to_jsonable(to_float(x))}
    if dataclasses.is_dataclass(x) and not isinstance(x, type):  # by field, without asdict's deep copy of every leaf
        return {f.name: to_jsonable(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, dict):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v) for v in x]
    if hasattr(x, "tolist") and hasattr(x, "dtype"):  # numpy (and torch) arrays and scalars
        return to_jsonable(x.tolist())
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def canonical_json(x: Any) -> str:
    """The canonical JSON text of ``x``: :func:`to_jsonable`, keys sorted, no spaces (what :func:`config_hash`
    hashes)."""
    return json.dumps(to_jsonable(x), sort_keys=True, separators=(",", ":"), default=str)


def config_hash(x: Any) -> str:
    """SHA-256 of :func:`canonical_json` of ``x``, its first :data:`HASH_DIGITS` hex digits.

    Equal configurations (as data: a frozen dataclass and the dict of its fields are equal) hash equally, whatever
    the order of their keys."""
    return hashlib.sha256(canonical_json(x).encode()).hexdigest()[:HASH_DIGITS]
