"""Seeds are validated (numerics.limits.check_seed): every public function of ``theory/`` and ``numerics/`` with a
parameter named ``seed`` (or ending in ``_seed``) refuses a negative, fractional, boolean, string or NaN seed, and
``None`` unless its default is ``None``, with an :class:`theory._checks.InputError` naming that parameter, before any
work. The functions are found from their signatures; the valid call each one starts from is its ``BASELINE`` entry in
``tests/robustness/api_table/`` (see ``test_api_walk.py``)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import numpy as np
import pytest

from tests.robustness._watchdog import watchdog
from tests.robustness.api_table import tables
from tests.test_public_api import public_modules, public_objects
from theory._checks import InputError

TABLES = tables()
#: Seeds every seeded function refuses (``None`` is added unless the parameter's default is ``None``).
BAD_SEEDS: tuple[Any, ...] = (-1, 2.5, True, "3", float("nan"))


def _is_seed(param: str) -> bool:
    return param == "seed" or param.endswith("_seed")


def seeded_functions() -> list[tuple[str, str, str, bool]]:
    """``(module, function, parameter, default is None)`` for every public function with a seed parameter."""
    out = []
    for module in public_modules():
        for name, obj in public_objects(module):
            if not inspect.isfunction(obj):
                continue
            for param in inspect.signature(obj).parameters.values():
                if _is_seed(param.name):
                    out.append((module, name, param.name, param.default is None))
    return out


CASES = seeded_functions()


def _call(module: str, name: str, kwargs: dict[str, Any]) -> Any:
    fn = getattr(importlib.import_module(module), name)
    with watchdog(f"{module}.{name}({', '.join(f'{k}={v!r}'[:60] for k, v in kwargs.items())})"):
        return fn(**kwargs)


def test_the_seeded_functions_are_found() -> None:
    found = {f"{module}.{name}" for module, name, _, _ in CASES}
    assert {"numerics.certificates.certify", "numerics.fourier_gaps.one_step_recovery"} <= found
    assert {"numerics.lsa.lbfgs_rank_r", "theory.decision_lists.random_task"} <= found
    assert len(found) >= 30


@pytest.mark.parametrize(("module", "name", "param", "none_ok"), CASES, ids=lambda v: str(v))
def test_a_bad_seed_is_refused_naming_it(module: str, name: str, param: str, none_ok: bool) -> None:
    baseline = TABLES[module].BASELINE.get(name)
    assert baseline is not None, f"{module}.{name} takes {param} but has no BASELINE call in the api_table"
    bad = BAD_SEEDS if none_ok else (*BAD_SEEDS, None)
    for value in bad:
        kwargs = {**baseline, param: value}
        with pytest.raises(InputError) as info:
            _call(module, name, kwargs)
        assert info.value.param == param, f"{module}.{name}({param}={value!r}) names {info.value.param!r}"
        assert param in str(info.value), f"{module}.{name}({param}={value!r}): the message does not name {param}"


@pytest.mark.parametrize(("module", "name", "param", "none_ok"), CASES, ids=lambda v: str(v))
def test_a_numpy_integer_seed_is_accepted(module: str, name: str, param: str, none_ok: bool) -> None:
    baseline = TABLES[module].BASELINE[name]
    seed = baseline.get(
        param, inspect.signature(getattr(importlib.import_module(module), name)).parameters[param].default
    )
    if isinstance(seed, int):
        _call(module, name, {**baseline, param: np.int64(seed)})


@pytest.mark.parametrize("name", ["thm_c16_one_step", "thm_c11_end_to_end"])
def test_a_seed_sequence_is_checked_entry_by_entry(name: str) -> None:
    """The one-step runs of numerics.sparse_init also take a sequence of seeds (``[seed, n, k, s]``): each entry
    is a seed, the sequence is not empty, and a valid sequence gives the numbers it gave before the check."""
    baseline = TABLES["numerics.sparse_init"].BASELINE[name]
    for bad in ([0, -1], [0, 2.5], [True], ["3"], [], [None]):
        with pytest.raises(InputError) as info:
            _call("numerics.sparse_init", name, {**baseline, "seed": bad})
        assert info.value.param == "seed"
    as_list = _call("numerics.sparse_init", name, {**baseline, "seed": [0, 7]})
    as_tuple = _call("numerics.sparse_init", name, {**baseline, "seed": (np.int64(0), np.uint8(7))})
    assert as_list.keys() == as_tuple.keys()
    for key in as_list:
        np.testing.assert_array_equal(as_list[key], as_tuple[key])
