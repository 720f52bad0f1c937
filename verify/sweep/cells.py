"""The cells of a grid and their results as stored (docs/running_at_scale.md).

A cell is one independent unit of work: a frozen configuration and the seeds it trains (the run function may
batch them, as the seed-ensemble trainers do). A cell is identified in the results store by the claim id, the
hash of its configuration (:func:`cell_hash`, seeds left out), its seeds and the code revision; its result is
plain data that :func:`encode` writes as JSON text and :func:`decode` reads back bit for bit (numpy arrays keep
their dtype and shape), so a result computed in another process or on another machine is the same value the
in-process run would have aggregated.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from verify.runtime.jsonable import config_hash, to_jsonable

__all__ = [
    "Cell",
    "CellResult",
    "IncompleteGrid",
    "cell_hash",
    "decode",
    "encode",
    "function_name",
]


class IncompleteGrid(RuntimeError):
    """Some cells of a grid are neither in the store nor run by this job (``--shard``): no verdict yet."""


@dataclass(frozen=True)
class Cell:
    """One unit of a grid: a label for people, a picklable configuration and the seeds it covers."""

    label: str
    config: Any
    seeds: tuple[int, ...]

    def __post_init__(self) -> None:
        seeds = tuple(int(s) for s in self.seeds)
        if not seeds or len(set(seeds)) != len(seeds):
            raise ValueError(f"cell {self.label!r}: seeds must be a non-empty tuple of distinct integers, got {seeds}")
        object.__setattr__(self, "seeds", seeds)


@dataclass(frozen=True)
class CellResult:
    """A finished cell as the store holds it: the cell, its decoded result and the seconds its run took."""

    cell: Cell
    value: Any
    runtime_s: float


def function_name(fn: Callable[..., Any]) -> str:
    """``module.qualname`` of a module-level function (how a cell's run function enters its hash)."""
    return f"{fn.__module__}.{fn.__qualname__}"


def cell_hash(config: Any, run: Callable[..., Any] | str) -> str:
    """:func:`verify.runtime.jsonable.config_hash` of the cell configuration without its ``seeds`` entry (the seeds
    are a key of their own) and of the run function's name.

    Parameters
    ----------
    config : frozen dataclass, dict or other data :func:`verify.runtime.jsonable.to_jsonable` converts
    run : the cell's run function (or its name): the same configuration run by another function is another cell
    """
    data = to_jsonable(config)
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "seeds"}
    name = run if isinstance(run, str) else function_name(run)
    return config_hash({"config": data, "run": name})


def _enc(x: Any) -> Any:
    np = sys.modules.get("numpy")  # not imported: x cannot be a numpy value
    if np is not None and isinstance(x, np.ndarray):
        if x.dtype == object:
            raise TypeError("cannot store an object array in a cell result; convert it to lists")
        return {"__ndarray__": {"dtype": x.dtype.str, "shape": list(x.shape), "data": x.ravel().tolist()}}
    if np is not None and isinstance(x, np.generic):
        return {"__npscalar__": {"dtype": x.dtype.str, "value": x.item()}}
    if isinstance(x, tuple):
        return {"__tuple__": [_enc(v) for v in x]}
    if isinstance(x, list):
        return [_enc(v) for v in x]
    if isinstance(x, dict):
        if not all(isinstance(k, str) for k in x):
            raise TypeError(f"cell result dict keys must be strings, got {[type(k).__name__ for k in x]}")
        if any(k.startswith("__") and k.endswith("__") for k in x):
            raise TypeError("cell result dict keys of the form __name__ are reserved for the encoding")
        return {k: _enc(v) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    raise TypeError(f"cannot store a {type(x).__name__} in a cell result (plain data and numpy arrays only)")


def _dec(x: Any) -> Any:
    if isinstance(x, list):
        return [_dec(v) for v in x]
    if isinstance(x, dict):
        if len(x) == 1:
            ((key, val),) = x.items()
            if key == "__ndarray__":
                import numpy as np

                return np.array(val["data"], dtype=np.dtype(val["dtype"])).reshape(val["shape"])
            if key == "__npscalar__":
                import numpy as np

                return np.dtype(val["dtype"]).type(val["value"])
            if key == "__tuple__":
                return tuple(_dec(v) for v in val)
        return {k: _dec(v) for k, v in x.items()}
    return x


def encode(value: Any) -> str:
    """A cell result as JSON text: plain data (None, bool, int, float incl. inf/nan, str, lists, tuples, dicts with
    string keys) and numpy arrays and scalars, which keep dtype and shape (float32 values are exact in JSON)."""
    return json.dumps(_enc(value), allow_nan=True, separators=(",", ":"))


def decode(text: str) -> Any:
    """Inverse of :func:`encode`: ``decode(encode(v))`` equals ``v`` exactly, arrays with their dtype."""
    return _dec(json.loads(text))
