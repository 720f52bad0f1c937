"""Docstring sections written once (issue 27: no verbatim repeats in ``theory/``, ``numerics/``, ``verify/``).

Several functions of one task take the same arguments (a prompt ``E`` and the matrices ``WPV``, ``WKQ``; a modulus
``p`` and a frequency ``k``), and their numpy ``Parameters`` sections said the same thing word for word. A module
keeps such a section once, in a dictionary, and each docstring names it on a line of its own, ``{{name}}``;
:func:`fill_doc` puts the section in at import time, indented like the placeholder, so ``help()``, the doctests and
the API documentation see the whole text. The idea is scipy's ``doccer`` and MNE's ``fill_doc``, kept to whole lines
so that braces inside a docstring (sets, formulas) are never touched.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["fill_doc", "sections"]

T = TypeVar("T")

#: A placeholder: a line that holds nothing but ``{{name}}`` (leading white space is the indentation to use).
_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}\}[ \t]*$", re.MULTILINE)


def fill_doc(sections: Mapping[str, str]) -> Callable[[T], T]:
    """A decorator that replaces each placeholder line ``{{name}}`` of a docstring by ``sections[name]``.

    The section's text is dedented, then every line of it is indented like the placeholder. A placeholder whose
    name is not in ``sections`` raises at import time, so a typo never reaches a reader; an object without a
    docstring (``python -OO``) is returned as it is.

    Parameters
    ----------
    sections : Mapping[str, str]
        The shared sections by name, e.g. ``{"prompt": "E : sympy.Matrix\\n    The prompt."}``.

    Returns
    -------
    Callable
        The decorator; it sets the object's ``__doc__`` and returns the object itself.

    Examples
    --------
    >>> shared = {"modulus": "p : int\\n    An odd modulus."}
    >>> @fill_doc(shared)
    ... def order(p):
    ...     '''The order of Z_p.
    ...
    ...     Parameters
    ...     ----------
    ...     {{modulus}}
    ...     '''
    ...     return p
    >>> print(order.__doc__.splitlines()[4:6])
    ['    p : int', '        An odd modulus.']
    """

    def fill(section: re.Match[str]) -> str:
        name = section["name"]
        if name not in sections:
            raise KeyError(f"docstring placeholder {{{{{name}}}}} names no shared section (known: {sorted(sections)})")
        return textwrap.indent(textwrap.dedent(sections[name]).strip("\n"), section["indent"])

    def decorate(obj: T) -> T:
        doc = getattr(obj, "__doc__", None)
        if doc:
            obj.__doc__ = _PLACEHOLDER.sub(fill, doc)
        return obj

    return decorate


def sections(*parameters: str, returns: str | None = None, raises: str | None = None) -> str:
    """Numpy ``Parameters``, ``Returns`` and ``Raises`` sections made of shared entries, for a :func:`fill_doc` mapping.

    Several functions of a module take overlapping sets of arguments, or return and raise alike; each entry is
    written once and the sections are put together from them. Each entry is whole lines at indentation 0 (leading
    and trailing blank lines are dropped); a section with no entry is left out.

    Parameters
    ----------
    *parameters : str
        The ``Parameters`` entries, in the order of the signature, e.g. ``"p : int\\n    An odd modulus."``.
    returns, raises : str, optional
        The body of the ``Returns`` and of the ``Raises`` section (a type, or an exception, and its description).

    Returns
    -------
    str
        The sections, a blank line between two.

    Examples
    --------
    >>> print(sections("p : int\\n    An odd modulus.", "\\nk : int\\n    A frequency.\\n", returns="int"))
    Parameters
    ----------
    p : int
        An odd modulus.
    k : int
        A frequency.
    <BLANKLINE>
    Returns
    -------
    int
    >>> print(sections(returns="float", raises="ValueError"))
    Returns
    -------
    float
    <BLANKLINE>
    Raises
    ------
    ValueError
    """
    parts = [("Parameters", parameters), ("Returns", (returns or "",)), ("Raises", (raises or "",))]
    return "\n\n".join(
        f"{title}\n{'-' * len(title)}\n" + "\n".join(entry.strip("\n") for entry in entries)
        for title, entries in parts
        if any(entry.strip() for entry in entries)
    )
