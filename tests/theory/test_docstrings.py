"""theory._docstrings.fill_doc: a shared section goes in whole lines, indented like its placeholder; a placeholder
naming no section fails at import time; anything else in the docstring is left as written."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory._docstrings import fill_doc

SHARED = {"prompt": "E : sympy.Matrix\n    The prompt.\nrho : number\n    The normalisation."}


def _documented(doc: str):
    def f() -> None: ...

    f.__doc__ = doc
    return f


def test_the_section_replaces_the_placeholder_line_with_its_indentation() -> None:
    f = fill_doc(SHARED)(_documented("Title.\n\n    Parameters\n    ----------\n    {{prompt}}\n    "))
    assert f.__doc__ == (
        "Title.\n\n    Parameters\n    ----------\n    E : sympy.Matrix\n        The prompt.\n"
        "    rho : number\n        The normalisation.\n    "
    )


def test_a_placeholder_that_names_no_section_is_refused() -> None:
    with pytest.raises(KeyError, match="promtp"):
        fill_doc(SHARED)(_documented("Title.\n    {{promtp}}\n"))


def test_no_docstring_is_left_alone() -> None:
    f = _documented("")
    f.__doc__ = None
    assert fill_doc(SHARED)(f).__doc__ is None


@given(st.text(alphabet="ab{}() \n:=", max_size=60))
def test_text_that_is_not_a_whole_placeholder_line_is_unchanged(text: str) -> None:
    """Braces inside a line (a set, a formula, ``{{prompt}}`` quoted in prose) are never touched."""
    doc = "Title with {{prompt}} inline and {a, b}.\n" + text.replace("\n", " ")
    assert fill_doc(SHARED)(_documented(doc)).__doc__ == doc
