"""The public API of ``theory/`` and ``numerics/``, module by module, as data for the API walk
(``tests/robustness/test_api_walk.py``; issue 32, docs/limits.md).

One file per module, named after it with the dot replaced (``theory_modular.py`` for ``theory.modular``), defines:

``MODULE``
    The dotted module name.
``BASELINE``
    ``{name: {param: value}}``: a small valid call of every public function and class (keyword arguments, fast:
    well under 0.1 s). The fuzz replaces one argument at a time with hostile values.
``REFUSED``
    ``[(name, {param: value}, param_named)]``: calls just above a size limit (the limit + 1, or the smallest
    size the limit refuses), each refused at once with :class:`theory._checks.LimitError` whose ``param`` is
    ``param_named``.
``NO_SIZE``
    ``{name: reason}``: public functions and classes the fuzz leaves out, with the reason (no argument; an argument
    that is an object only the module itself builds; ...). Every public name is in ``BASELINE`` or ``NO_SIZE``.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["tables"]


def tables() -> dict[str, ModuleType]:
    """Every table module, by the dotted name of the module it describes."""
    out = {}
    for info in pkgutil.iter_modules(__path__):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        out[mod.MODULE] = mod
    return out
