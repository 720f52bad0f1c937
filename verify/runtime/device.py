"""The one place a device name becomes a :class:`torch.device` (docs/architecture.md).

``auto`` means CUDA when ``torch.cuda.is_available()``, else CPU. The training dtype policy is
:meth:`verify.runtime.options.RunOptions.dtype_name`; margins and comparisons are always evaluated in float64
whatever the training dtype.
"""

from __future__ import annotations

import torch

__all__ = ["DeviceUnavailableError", "resolve_device"]


class DeviceUnavailableError(RuntimeError):
    """The device asked for does not exist here (CUDA without CUDA, or a CUDA index above the device count)."""


def resolve_device(name: str = "auto") -> torch.device:
    """Turn a device name into a :class:`torch.device`.

    Parameters
    ----------
    name : str
        ``"auto"`` (CUDA if available, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:<index>"``.

    Raises
    ------
    DeviceUnavailableError
        A RuntimeError: if CUDA is requested but this torch build or machine has none (the message says which).
    ValueError
        For any other name.
    """
    if not isinstance(name, str):
        raise ValueError(f"device must be a string ('auto', 'cpu', 'cuda', 'cuda:N'), got {name!r}")
    key = name.strip().lower()
    if key == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if key == "cpu":
        return torch.device("cpu")
    if key == "cuda" or key.startswith("cuda:"):
        if not torch.cuda.is_available():
            build = (
                "a CPU-only torch build" if torch.version.cuda is None else f"torch built for CUDA {torch.version.cuda}"
            )
            raise DeviceUnavailableError(
                f"device {name!r} requested but CUDA is not available ({build}, torch {torch.__version__}); "
                "use the device 'auto' or 'cpu' (tvk: --device auto or --device cpu)"
            )
        dev = torch.device(key)
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise DeviceUnavailableError(
                f"device {name!r} requested but only {torch.cuda.device_count()} CUDA device(s) exist"
            )
        return dev
    raise ValueError(f"unknown device {name!r}; expected 'auto', 'cpu', 'cuda' or 'cuda:N'")
