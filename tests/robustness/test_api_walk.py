"""The public API walked function by function (issue 32, docs/limits.md): every public function and class of
``theory/`` and ``numerics/`` is described in ``tests/robustness/api_table/``; a call just above each size limit is
refused at once with a ``LimitError`` naming the parameter; and hostile values in any one argument (negative,
huge, non-finite, numeric strings with enormous exponents, wrong types) give an answer or a ``ValueError`` /
``TypeError``: never another exception, a silent NaN or a hang.

The exhaustive fuzz (every argument x every hostile value) is marked ``slow``; the default suite runs a sample of it
drawn by hypothesis. A call that does not return within :data:`HANG_S` seconds fails as a hang (a guard against a
missing size check, far above the time any refusal or small call takes; not a timing assertion)."""

from __future__ import annotations

import importlib
import inspect
import math
from typing import Any

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.robustness._watchdog import Hang, watchdog
from tests.robustness.api_table import tables
from tests.test_public_api import public_modules, public_objects
from theory._checks import LimitError

TABLES = tables()
#: Hostile values put into one argument at a time.
HOSTILE: tuple[Any, ...] = (
    -1,
    0,
    10**9,
    10**400,
    float("nan"),
    float("inf"),
    -1e308,
    "1e999999999",
    "nan",
    "abc",
    None,
    [],
)
#: What a refusal of a bad value may raise (LimitError and InputError are ValueErrors).
REFUSALS = (ValueError, TypeError)


def _nonfinite(value: Any, depth: int = 0) -> bool:
    """Whether a result carries a NaN, an infinity or sympy's zoo / nan (looked into a few levels deep)."""
    if depth > 3:
        return False
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return bool(value.size) and not bool(np.isfinite(value).all())
    if isinstance(value, sympy.Basic):
        return value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo)
    if isinstance(value, (list, tuple)):
        return any(_nonfinite(v, depth + 1) for v in value[:64])
    if isinstance(value, dict):
        return any(_nonfinite(v, depth + 1) for v in list(value.values())[:64])
    return False


def _call(module: str, name: str, kwargs: dict[str, Any]) -> Any:
    fn = getattr(importlib.import_module(module), name)
    with watchdog(f"{module}.{name}({_show(kwargs)})"):
        return fn(**kwargs)


def _show(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}"[:60] for k, v in kwargs.items())


@pytest.mark.parametrize("module", public_modules())
def test_every_public_name_is_described(module: str) -> None:
    assert module in TABLES, f"no table for {module}: add tests/robustness/api_table/{module.replace('.', '_')}.py"
    table = TABLES[module]
    names = {name for name, _ in public_objects(module)}
    described = set(table.BASELINE) | set(table.NO_SIZE)
    assert not names - described, f"{module}: public names in neither BASELINE nor NO_SIZE: {sorted(names - described)}"
    assert not described - names, (
        f"{module}: the table names what the module does not export: {sorted(described - names)}"
    )
    assert all(len(str(why).split()) >= 3 for why in table.NO_SIZE.values()), "NO_SIZE needs a reason for each name"
    for name, kwargs in table.BASELINE.items():
        obj = getattr(importlib.import_module(module), name)
        params = inspect.signature(obj).parameters
        assert set(kwargs) <= set(params), f"{module}.{name}: unknown arguments {sorted(set(kwargs) - set(params))}"


@pytest.mark.parametrize("module", public_modules())
def test_baseline_calls_answer(module: str) -> None:
    for name, kwargs in TABLES[module].BASELINE.items():
        result = _call(module, name, dict(kwargs))
        assert not _nonfinite(result), f"{module}.{name}({_show(kwargs)}) returned a non-finite value"


def _refused_cases() -> list[tuple[str, str, dict[str, Any], str]]:
    return [(m, name, kwargs, param) for m, t in TABLES.items() for name, kwargs, param in t.REFUSED]


@pytest.mark.parametrize(("module", "name", "kwargs", "param"), _refused_cases(), ids=lambda v: str(v)[:40])
def test_a_call_above_a_limit_is_refused_naming_the_parameter(
    module: str, name: str, kwargs: dict[str, Any], param: str
) -> None:
    with pytest.raises(LimitError) as info:
        _call(module, name, dict(kwargs))
    assert info.value.param == param, f"{module}.{name}: the refusal names {info.value.param!r}, not {param!r}"
    assert param in str(info.value), f"{module}.{name}: the message does not name {param!r}: {info.value}"


def _fuzz_one(module: str, name: str, param: str, value: Any) -> None:
    kwargs = dict(TABLES[module].BASELINE[name])
    kwargs[param] = value
    try:
        result = _call(module, name, kwargs)
    except REFUSALS:
        return
    except Hang:
        raise
    except Exception as exc:
        pytest.fail(f"{module}.{name}({_show(kwargs)}) raised {type(exc).__name__}: {exc}"[:400])
    bad_input = (isinstance(value, float) and not math.isfinite(value)) or value in ("nan",)
    if bad_input or not _nonfinite(
        TABLES[module].BASELINE and _call(module, name, dict(TABLES[module].BASELINE[name]))
    ):
        assert not _nonfinite(result), f"{module}.{name}({_show(kwargs)}) answered with a non-finite value"


def _fuzz_cases(module: str) -> list[tuple[str, str, Any]]:
    out = []
    for name, kwargs in TABLES[module].BASELINE.items():
        params = inspect.signature(getattr(importlib.import_module(module), name)).parameters
        for param in params:
            if params[param].kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                continue
            if param in kwargs or params[param].default is inspect.Parameter.empty:
                out += [(name, param, v) for v in HOSTILE]
    return out


@pytest.mark.parametrize("module", public_modules())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hostile_arguments_sampled(module: str, data: st.DataObject) -> None:
    cases = _fuzz_cases(module)
    if not cases:
        return
    name, param, value = data.draw(st.sampled_from(cases))
    _fuzz_one(module, name, param, value)


@pytest.mark.slow
@pytest.mark.parametrize("module", public_modules())
def test_hostile_arguments_exhaustive(module: str) -> None:
    for name, param, value in _fuzz_cases(module):
        _fuzz_one(module, name, param, value)


def test_hostile_values_are_hostile() -> None:
    """The pool covers each class of the issue: sizes, non-finite floats, exponent strings, wrong types."""
    assert any(isinstance(v, int) and v > 10**300 for v in HOSTILE)
    assert any(isinstance(v, float) and math.isnan(v) for v in HOSTILE)
    assert "1e999999999" in HOSTILE and None in HOSTILE
