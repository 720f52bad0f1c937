"""Claims written outside the package: load them from a module, a ``.py`` file or an installed entry point.

A claim module is ordinary Python that calls :func:`verify.claims.register` at import time (see
docs/adding-a-claim.md). :func:`load_claim_modules` imports such modules by dotted name (``my_pkg.claims``) or
by file path (``path/to/my_claims.py``); :func:`load_entry_points` imports every module an installed
distribution declares in the ``tvk.claims`` entry-point group::

    [project.entry-points."tvk.claims"]
    my_claims = "my_pkg.claims"

Loading is all or nothing per module: when a module fails to import, registers a claim id that already exists,
or registers no claim at all, the registry is left as it was before the module was imported and a
:class:`ClaimLoadError` (a ``ValueError``, so ``tvk`` prints it as one ``tvk: error:`` line) names the module and
the cause. Loading the same module twice is harmless: the second call returns the ids of the first.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from . import base
from .base import claim_module

__all__ = [
    "ENTRY_POINT_GROUP",
    "ClaimLoadError",
    "claim_module",
    "claims_argument",
    "load_claim_modules",
    "load_entry_points",
]

#: The entry-point group whose modules ``tvk`` loads at start-up.
ENTRY_POINT_GROUP = "tvk.claims"

# What this loader imported: module key (dotted name, or resolved file path) -> ids its import registered.
_LOADED: dict[str, tuple[str, ...]] = {}


class ClaimLoadError(ValueError):
    """A claim module could not be loaded: not found, import failed, an id collision, or no claims."""


def claims_argument(claim_id: str) -> str | None:
    """What ``--claims`` was given to load the claim ``claim_id`` in this process: the resolved path of its
    ``.py`` file or its dotted module name; None when no ``--claims`` loaded it (a built-in or entry-point claim).
    A rerun command quotes it, since the module's own name finds a file only from the file's directory."""
    for key, ids in _LOADED.items():
        if claim_id in ids:
            return key
    return None


def _registered_by(before: dict[str, base.Claim]) -> tuple[str, ...]:
    return tuple(cid for cid in base._REGISTRY if cid not in before)


def _restore(before: dict[str, base.Claim]) -> None:
    base._REGISTRY.clear()
    base._REGISTRY.update(before)


def _collision_message(label: str, exc: ValueError, before: dict[str, base.Claim]) -> str | None:
    """The error text for a ``register`` call that hit an existing id, or None for any other ValueError."""
    text = str(exc)
    if not text.startswith("duplicate claim id "):
        return None
    cid = text.removeprefix("duplicate claim id ").strip("'\"")
    owner = claim_module(before[cid]) if cid in before else None
    where = f" (defined in {owner})" if owner else ""
    return f"{label}: claim id {cid!r} is already registered{where}; give the claim a different id"


def _import_guarded(label: str, key: str, do_import: Callable[[], ModuleType], drop: str | None) -> tuple[str, ...]:
    """Run ``do_import`` and return the ids it registered; on any failure restore the registry, forget the
    module ``drop`` (so a corrected file can be loaded again) and raise :class:`ClaimLoadError`."""
    if key in _LOADED:
        return _LOADED[key]
    before = dict(base._REGISTRY)
    try:
        module = do_import()
    except ClaimLoadError:
        _restore(before)
        raise
    except ValueError as exc:
        _restore(before)
        if drop:
            sys.modules.pop(drop, None)
        msg = _collision_message(label, exc, before)
        raise ClaimLoadError(msg or f"{label}: importing it raised ValueError: {exc}") from exc
    except BaseException as exc:  # SyntaxError, ImportError, a NameError in the module, SystemExit, ...
        _restore(before)
        if drop:
            sys.modules.pop(drop, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise ClaimLoadError(f"{label}: importing it raised {type(exc).__name__}: {exc}") from exc
    ids = _registered_by(before)
    if not ids:
        # Imported earlier by someone else (e.g. a built-in task module): report the claims it defines.
        ids = tuple(cid for cid, c in base._REGISTRY.items() if claim_module(c) == module.__name__)
    if not ids:
        if drop:
            sys.modules.pop(drop, None)
        raise ClaimLoadError(
            f"{label}: the module registered no claims (a claim module calls "
            "verify.claims.register(Claim(...)) when it is imported)"
        )
    _LOADED[key] = ids
    return ids


def _load_file(spec_text: str) -> tuple[str, ...]:
    path = Path(spec_text).expanduser()
    label = f"claim module {spec_text}"
    if not path.is_file():
        raise ClaimLoadError(f"{label}: no such file (a path to a .py file, or a dotted module name)")
    path = path.resolve()
    key = str(path)
    if key in _LOADED:
        return _LOADED[key]
    name = path.stem
    if not name.isidentifier():
        raise ClaimLoadError(f"{label}: the file name must be a Python identifier plus .py, got {path.name!r}")
    taken = sys.modules.get(name)
    if taken is not None:
        origin = getattr(taken, "__file__", None)
        raise ClaimLoadError(
            f"{label}: a module named {name!r} is already imported"
            + (f" from {origin}" if origin else "")
            + "; rename the file"
        )

    def do_import() -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ClaimLoadError(f"{label}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses and pickling look the module up by name
        spec.loader.exec_module(module)
        return module

    return _import_guarded(label, key, do_import, drop=name)


def _top_level_missing(exc: ModuleNotFoundError, name: str) -> bool:
    """True when ``exc`` says ``name`` itself (or a parent package of it) does not exist, rather than that the
    module exists and one of its own imports failed."""
    parts = name.split(".")
    return exc.name in {".".join(parts[: i + 1]) for i in range(len(parts))}


def _load_dotted(name: str) -> tuple[str, ...]:
    label = f"claim module {name}"
    if not all(part.isidentifier() for part in name.split(".")):
        raise ClaimLoadError(f"{label}: not a dotted module name or a path to an existing .py file")
    if name in _LOADED:
        return _LOADED[name]

    def do_import() -> ModuleType:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if not _top_level_missing(exc, name):
                raise
        # Like `python -m`, look in the current directory too (a console script's sys.path does not have it).
        cwd = os.getcwd()
        if cwd not in sys.path:
            sys.path.append(cwd)
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if not _top_level_missing(exc, name):
                raise
            raise ClaimLoadError(
                f"{label}: no module named {exc.name!r} on the Python path or in the current directory "
                "(give a dotted module name or a path to a .py file)"
            ) from None

    return _import_guarded(label, name, do_import, drop=None)


def load_claim_modules(names: Sequence[str]) -> list[str]:
    """Import claim modules and return the ids of the claims they registered, in registration order.

    Parameters
    ----------
    names : sequence of str
        Each a dotted module name (``my_pkg.claims``; looked up on ``sys.path``, then in the current directory)
        or a path to a ``.py`` file (imported as a module named after the file's stem).

    Raises
    ------
    ClaimLoadError
        A module is not found, raises while it is imported (the message carries the exception), registers an
        id that is already registered, or registers no claim. Modules before the failing one stay loaded.
    """
    import verify.claims  # noqa: F401  (the built-in claims first, so an id collision with them is caught)

    if isinstance(names, str):
        raise TypeError("load_claim_modules takes a sequence of module names, not one string")
    ids: list[str] = []
    for raw in names:
        spec_text = str(raw).strip()
        if not spec_text:
            raise ClaimLoadError("claim module: empty name")
        is_file = spec_text.endswith(".py") or os.sep in spec_text or (os.altsep and os.altsep in spec_text)
        new = _load_file(spec_text) if is_file else _load_dotted(spec_text)
        ids.extend(cid for cid in new if cid not in ids)
    return ids


def load_entry_points(group: str = ENTRY_POINT_GROUP) -> list[str]:
    """Load every installed entry point of ``group`` and return the ids of the claims they registered.

    An entry point names a module (``my_claims = "my_pkg.claims"``), whose import registers its claims, or a
    callable in it (``my_claims = "my_pkg.claims:register_all"``), which is called once with no arguments.
    Entry points are loaded in name order; errors are :class:`ClaimLoadError` naming the entry point and the
    distribution that declares it.
    """
    import verify.claims  # noqa: F401

    ids: list[str] = []
    eps = sorted(md.entry_points(group=group), key=lambda ep: (ep.name, ep.value))
    for ep in eps:
        dist = getattr(ep, "dist", None)
        owner = f" (from {dist.name} {dist.version})" if dist is not None else ""
        label = f"entry point {ep.name} = {ep.value!r} in group {group!r}{owner}"

        def do_import(ep: md.EntryPoint = ep) -> ModuleType:
            obj = ep.load()
            if ep.attr:
                if not callable(obj):
                    raise ClaimLoadError(f"entry point {ep.name}: {ep.value} is not callable")
                obj()
            module = obj if inspect.ismodule(obj) else sys.modules[ep.module]
            return module

        new = _import_guarded(label, f"entry-point:{group}:{ep.value}", do_import, drop=None)
        ids.extend(cid for cid in new if cid not in ids)
    return ids
