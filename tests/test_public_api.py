"""The public API of ``theory/`` and ``numerics/`` is documented sympy-style (issue 27): every public function and
class (a name in its module's ``__all__``) has a numpy-style docstring with a ``Parameters`` section (when it takes
arguments), a ``Returns`` section (functions) and an ``Examples`` section whose ``>>>`` lines run as doctests here,
in the default test suite.

The sections are found by their numpy underlines (``Parameters`` over ``----------``); a class documents the
arguments of its constructor (``Parameters`` or ``Attributes``)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator

import pytest

PACKAGES = ("theory", "numerics")


def public_modules() -> list[str]:
    """Every module of ``theory/`` and ``numerics/`` (private helper modules such as ``theory._checks`` included:
    their public names are re-used by every other module)."""
    names = []
    for pkg in PACKAGES:
        mod = importlib.import_module(pkg)
        names += [f"{pkg}.{info.name}" for info in pkgutil.iter_modules(mod.__path__)]
    return sorted(names)


def public_objects(module_name: str) -> Iterator[tuple[str, object]]:
    """The functions and classes named in ``__all__`` of ``module_name`` (constants are left out)."""
    mod = importlib.import_module(module_name)
    for name in getattr(mod, "__all__", ()):
        obj = getattr(mod, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield name, obj


def _section(doc: str, title: str) -> bool:
    return re.search(rf"^\s*{title}\n\s*-{{{len(title)}}}\s*$", doc, flags=re.MULTILINE) is not None


def _takes_arguments(obj: object) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
    return any(name not in ("self", "cls") for name in params)


def missing_sections(obj: object) -> list[str]:
    """The numpy sections ``obj``'s docstring lacks (empty when it is complete)."""
    doc = inspect.getdoc(obj) or ""
    missing = []
    if _takes_arguments(obj) and not (
        _section(doc, "Parameters") or (inspect.isclass(obj) and _section(doc, "Attributes"))
    ):
        missing.append("Parameters")
    if inspect.isfunction(obj) and not (_section(doc, "Returns") or _section(doc, "Yields")):
        missing.append("Returns")
    if not _section(doc, "Examples") or ">>>" not in doc.split("Examples", 1)[-1]:
        missing.append("Examples (with >>> lines)")
    return missing


@pytest.mark.parametrize("module_name", public_modules())
def test_public_functions_have_numpy_sections(module_name: str) -> None:
    gaps = {name: missing_sections(obj) for name, obj in public_objects(module_name)}
    gaps = {name: m for name, m in gaps.items() if m}
    assert not gaps, f"{module_name}: docstrings without numpy sections: {gaps}"


def docstring_tests(module_name: str) -> list[doctest.DocTest]:
    """The docstrings of the module (and its classes and functions) that hold ``>>>`` examples."""
    mod = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(mod, module_name) if t.examples]


def example_runner() -> doctest.DocTestRunner:
    """A runner with the flags of pyproject's ``doctest_optionflags``; not verbose whatever ``sys.argv`` holds
    (doctest reads ``-v`` from it, and under ``pytest -v`` every passing example's trace came out as a failure)."""
    return doctest.DocTestRunner(verbose=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)


@pytest.mark.parametrize("module_name", public_modules())
def test_docstring_examples_run(module_name: str) -> None:
    """Every ``>>>`` example of the module gives the output printed under it."""
    runner = example_runner()
    failures = []
    for test in docstring_tests(module_name):
        result = runner.run(test, out=failures.append)
        assert result.attempted > 0
    assert not failures, "".join(failures)
