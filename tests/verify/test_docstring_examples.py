"""The ``>>>`` examples in ``verify/``'s docstrings run here, with the flags of the theory/numerics doctests
(tests/test_public_api.py, and ``doctest_optionflags`` in pyproject.toml): until 2026-12-01 only a
``pytest --doctest-modules verify`` run read them, which the default suite does not do."""

from __future__ import annotations

import pkgutil

import pytest

import verify
from tests.test_public_api import docstring_tests, example_runner

#: Modules that import an optional dependency at import time: the Triton kernels (the ``gpu`` extra).
OPTIONAL = {"verify.train._polynomial_triton_kernels"}


def _modules_with_examples() -> list[str]:
    """Every module of ``verify`` whose docstrings hold at least one ``>>>`` example, by name."""
    names = (info.name for info in pkgutil.walk_packages(verify.__path__, "verify."))
    return sorted(name for name in names if name not in OPTIONAL and docstring_tests(name))


MODULES = _modules_with_examples()


def test_verify_has_docstring_examples() -> None:
    """The parametrisation below is not empty (the judges, the archive's code text and the report carry examples)."""
    assert {"verify.claims.judges", "verify.report.archive"} <= set(MODULES)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name: str) -> None:
    """Every ``>>>`` example of the module gives the output printed under it."""
    runner = example_runner()
    failures: list[str] = []
    for test in docstring_tests(module_name):
        runner.run(test, out=failures.append)
    assert not failures, "".join(failures)
