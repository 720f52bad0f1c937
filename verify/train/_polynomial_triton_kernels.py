r"""The Triton kernel behind :func:`verify.train.polynomial_triton.triton_chunk` (imports ``triton``; the wrapper
imports this module only when it is called, so the package works without Triton).

Whether the kernel is compiled for the GPU or run by Triton's interpreter (numpy on the CPU) is decided by
``triton.jit`` when this module is imported: set ``TRITON_INTERPRET=1`` before the first import to interpret it.

The kernels take long flat argument lists (``chunk_kernel`` 17) because a Triton kernel takes only pointers, scalars
and compile-time constants: an option object cannot cross into it (the limit of about 10 parameters that
docs/architecture.md sets for public functions of verify/ does not apply to them).
"""

from __future__ import annotations

import triton
import triton.language as tl

__all__ = ["INTERPRETED", "chunk_kernel"]


@triton.jit
def _gather_tile(
    tab_ptr,
    x_ptr,
    rows,
    row_ok,
    cols,
    tile_ok,
    row_stride,
    col0,
    K: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_M: tl.constexpr,
):
    r"""One (``BLOCK_N`` points x ``BLOCK_M`` units) tile of the one-hot sum :math:`P = \sum_j T[x_j]`, gathered from
    the table's rows ``x_j`` (row stride ``row_stride``) at columns ``col0 + cols``; masked entries are 0."""
    P = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for j in tl.static_range(K):
        xj = tl.load(x_ptr + rows * K + j, mask=row_ok, other=0)
        P += tl.load(tab_ptr + xj[:, None] * row_stride + col0 + cols[None, :], mask=tile_ok, other=0.0)
    return P


@triton.jit
def chunk_kernel(
    tab_ptr,
    w_ptr,
    x_ptr,
    y_ptr,
    dtab_ptr,
    dw_ptr,
    ce_ptr,
    n_points,
    width,
    n_classes,
    row_stride,
    K: tl.constexpr,
    DEGREE: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_C: tl.constexpr,
    PRECISION: tl.constexpr,
):
    r"""One program: ``BLOCK_N`` points of one seed (program ids (point block, seed)).

    Pass 1 walks the width in tiles of ``BLOCK_M`` units: :math:`P = \sum_j T[x_j]` (the one-hot sum, gathered
    from the (k d, g m) table, row stride ``row_stride`` = g m), :math:`A = P^{\mathrm{deg}}`, :math:`F \mathrel{+}=
    A W` (``tl.dot``, float32 accumulation). Then the (``BLOCK_N``, ``BLOCK_C``) logits give the log-softmax, the
    CE sum of the block (added atomically into ``ce[seed]``) and :math:`G = \mathrm{softmax}(F) - e_y`. Pass 2
    walks the tiles again, recomputing P and :math:`Q = P^{\mathrm{deg}-1}`, and adds :math:`A^\top G` into dW and
    :math:`Q \odot (G W^\top)` into the k table rows :math:`x_j` of each point of dtab (atomic additions). No
    (points x width) tensor is written to memory. Padded points and classes are masked out.
    """
    pid_n = tl.program_id(0)
    seed = tl.program_id(1)
    rows = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < n_points
    cls = tl.arange(0, BLOCK_C)
    cls_ok = cls < n_classes
    units = tl.arange(0, BLOCK_M)
    col0 = seed * width  # this seed's first column of the table
    w_base = w_ptr + seed * width * n_classes
    dw_base = dw_ptr + seed * width * n_classes
    y = tl.load(y_ptr + rows, mask=row_ok, other=0)

    F = tl.zeros((BLOCK_N, BLOCK_C), dtype=tl.float32)
    for m0 in range(0, width, BLOCK_M):
        cols = m0 + units
        col_ok = cols < width
        tile_ok = row_ok[:, None] & col_ok[None, :]
        P = _gather_tile(tab_ptr, x_ptr, rows, row_ok, cols, tile_ok, row_stride, col0, K, BLOCK_N, BLOCK_M)
        A = P
        for _ in tl.static_range(DEGREE - 1):
            A = A * P
        w_ok = col_ok[:, None] & cls_ok[None, :]
        Wt = tl.load(w_base + cols[:, None] * n_classes + cls[None, :], mask=w_ok, other=0.0)
        F = tl.dot(A, Wt, F, input_precision=PRECISION)

    F = tl.where(cls_ok[None, :], F, float("-inf"))
    top = tl.max(F, axis=1)
    E = tl.exp(F - top[:, None])
    total = tl.sum(E, axis=1)
    is_y = cls[None, :] == y[:, None]
    f_y = tl.sum(tl.where(is_y, F, 0.0), axis=1)
    loss = tl.where(row_ok, top + tl.log(total) - f_y, 0.0)
    tl.atomic_add(ce_ptr + seed, tl.sum(loss, axis=0))
    G = E / total[:, None] - tl.where(is_y, 1.0, 0.0)
    G = tl.where(row_ok[:, None] & cls_ok[None, :], G, 0.0)

    for m0 in range(0, width, BLOCK_M):
        cols = m0 + units
        col_ok = cols < width
        tile_ok = row_ok[:, None] & col_ok[None, :]
        P = _gather_tile(tab_ptr, x_ptr, rows, row_ok, cols, tile_ok, row_stride, col0, K, BLOCK_N, BLOCK_M)
        Q = tl.full((BLOCK_N, BLOCK_M), 1.0, dtype=tl.float32)
        for _ in tl.static_range(DEGREE - 1):
            Q = Q * P
        A = Q * P
        w_ok = col_ok[:, None] & cls_ok[None, :]
        Wt = tl.load(w_base + cols[:, None] * n_classes + cls[None, :], mask=w_ok, other=0.0)
        dW = tl.dot(tl.trans(A), G, input_precision=PRECISION)
        tl.atomic_add(dw_base + cols[:, None] * n_classes + cls[None, :], dW, mask=w_ok)
        dP = tl.dot(G, tl.trans(Wt), input_precision=PRECISION) * Q
        for j in tl.static_range(K):
            xj = tl.load(x_ptr + rows * K + j, mask=row_ok, other=0)
            tl.atomic_add(dtab_ptr + xj[:, None] * row_stride + col0 + cols[None, :], dP, mask=tile_ok)


#: Whether ``chunk_kernel`` runs in Triton's interpreter (``TRITON_INTERPRET=1`` at import) rather than compiled.
INTERPRETED: bool = type(chunk_kernel).__name__ == "InterpretedFunction"
