"""Never execute input (issue 11): an injection string passed to any public function of theory/ or numerics/.

``sympy.sympify`` (and everything that calls it: ``sympy.cos``, ``sympy.Matrix``, ``sympy.N``, ...) evaluates a
string as Python code. Every public function (``__all__`` of every module, found with :mod:`inspect`, so a new
function is covered automatically) is called with a string that sets an environment variable when executed,
in every parameter in turn, as a scalar and inside a list and a nested list; the other parameters get small
valid values where the name is known (p = 5, k = 2, G = "S3", ...) so the call gets past their checks. The
test fails if the string ever ran, whatever the call returned or raised.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import signal
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import numerics
import theory
from theory._checks import InputError, as_number

SENTINEL = "TVK_INJECTED"
INJECTION = f"(__import__('os').environ.__setitem__('{SENTINEL}', '1') or 1)"

FILLERS = {
    "p": 5,
    "k": 2,
    "n": 4,
    "N": 3,
    "M": 3,
    "d": 2,
    "r": 1,
    "r2": 2,
    "m": 4,
    "j": 1,
    "i": 0,
    "s": 2,
    "G": "S3",
    "group": "S3",
    "name": "S3",
    "Lam": [[2, 0], [0, 1]],
    "width": 4,
    "seed": 0,
    "support": (0, 1),
    "zeta": 1,
    "n_prime": 2,
    "sigma": 0,
    "kind": "cos",
}
SMALL_DEFAULTS = {"n_starts": 1, "maxiter": 5, "trials": 10, "draws": 10, "n_draws": 10}
"""Parameters with defaults that are still overridden, to keep every call cheap (e.g. the multi-start searches)."""
VARIANTS = (INJECTION, [INJECTION] * 3, [[INJECTION] * 2] * 2)
CALL_SECONDS = 2.0


def _modules() -> list[str]:
    out = []
    for pkg in (theory, numerics):
        for info in pkgutil.iter_modules(pkg.__path__):
            if not info.name.startswith("_"):
                out.append(f"{pkg.__name__}.{info.name}")
    return sorted(out)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def _public_callables(module: object) -> list[tuple[str, object]]:
    out = []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name, None)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            try:
                inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            out.append((name, obj))
    return out


def _executed(fn: object, kwargs: dict) -> bool:
    os.environ.pop(SENTINEL, None)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        fn(**kwargs)  # type: ignore[operator]
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return os.environ.pop(SENTINEL, None) is not None


def test_the_injection_string_executes_under_sympify():
    """The probe is real: sympify runs it (so a function that sympifies caller strings is caught)."""
    os.environ.pop(SENTINEL, None)
    sympy.sympify(INJECTION)
    assert os.environ.pop(SENTINEL, None) == "1"


def test_the_harness_catches_a_function_that_sympifies():
    def unsafe(p, s):
        return sympy.cos(s)

    assert _executed(unsafe, {"p": 5, "s": INJECTION})
    assert not _executed(lambda p, s: as_number(s, "s"), {"p": 5, "s": INJECTION})


def test_the_issue_example_is_refused_without_running():
    from theory import modular as tm

    os.environ.pop(SENTINEL, None)
    with pytest.raises(ValueError, match="s must be a number"):
        tm.psi_two_frequencies(7, 2, INJECTION)
    assert SENTINEL not in os.environ
    assert tm.psi_two_frequencies(7, 2, "1/3") == tm.psi_two_frequencies(7, 2, Fraction(1, 3))


@pytest.mark.parametrize("module_name", _modules())
def test_no_public_function_executes_a_string(module_name):
    module = importlib.import_module(module_name)
    executed = []
    for fname, fn in _public_callables(module):
        params = [
            q
            for q in inspect.signature(fn).parameters.values()
            if q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD) and q.name != "self"
        ]
        for target in params:
            for variant in VARIANTS:
                kwargs = {
                    q.name: variant if q is target else SMALL_DEFAULTS.get(q.name, FILLERS.get(q.name, 1))
                    for q in params
                    if q is target or q.default is q.empty or q.name in SMALL_DEFAULTS
                }
                if "rng" in kwargs and kwargs["rng"] is not variant:
                    kwargs["rng"] = np.random.default_rng(0)
                if _executed(fn, kwargs):
                    executed.append(f"{fname}({target.name}=...)")
                    break
    assert not executed, f"{module_name}: a caller's string was executed as code by " + ", ".join(executed)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_as_number_parses_only_plain_numbers(text):
    """Any string: a plain decimal or fraction gives exactly Fraction(text); anything else is an InputError."""
    os.environ.pop(SENTINEL, None)
    try:
        value = as_number(text, "x")
    except InputError as exc:
        assert exc.param == "x"
    else:
        assert value == sympy.Rational(Fraction(text.replace(" ", "")))
    assert SENTINEL not in os.environ


@given(st.fractions(), st.integers())
def test_as_number_keeps_exact_numbers_exact(q, i):
    assert as_number(q, "q") == sympy.Rational(q.numerator, q.denominator)
    assert as_number(str(q), "q") == sympy.Rational(q.numerator, q.denominator)
    assert as_number(i, "i") == i and as_number(np.int64(i % 2**62), "i") == i % 2**62


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), sympy.nan, sympy.zoo, -sympy.oo, "1/0", True, [1], None])
def test_as_number_refuses_non_finite_and_non_numbers(bad):
    with pytest.raises(InputError):
        as_number(bad, "x")
