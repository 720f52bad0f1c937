"""Peak bytes of the tensors a block of torch code allocates (CPU), for the tests of the trainers' memory estimates.

:class:`PeakBytes` is a dispatch mode: every tensor an operator returns inside the block (autograd's backward
included) is attributed to its storage, counted once per storage while any tensor on it is alive, and released when
the last one is garbage. The peak of that sum is what the block's tensors needed at once; tensors made before the
block (and Python/allocator overheads) are not counted.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


class PeakBytes(TorchDispatchMode):
    """``with PeakBytes() as pb: ...``; then ``pb.peak`` (bytes alive at once, at most) and ``pb.now`` (still alive)."""

    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, list[int]] = {}  # storage address -> [bytes, live tensors on it]
        self.now = 0
        self.peak = 0

    def _release(self, key: int) -> None:
        entry = self.live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self.now -= entry[0]
            del self.live[key]

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            key = storage.data_ptr()
            if key == 0:  # empty tensors own no memory
                continue
            if key not in self.live:
                self.live[key] = [storage.nbytes(), 0]
                self.now += storage.nbytes()
                self.peak = max(self.peak, self.now)
            self.live[key][1] += 1
            weakref.finalize(t, self._release, key)
        return out
