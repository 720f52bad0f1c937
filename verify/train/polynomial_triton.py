r"""A fused Triton kernel for one chunk of the polynomial network's gradient (issue 33): the same quantities as
:func:`verify.train.polynomial_step._eager_chunk`, with the (points x width) tensors formed tile by tile in
registers and never written to memory.

The network is the homogeneous polynomial network of Shi thesis Sec. 4 (Eq. 4.2, Thm 4.9: k-input modular addition,
one-hot blocks, activation :math:`z^{\mathrm{deg}}`), in the notation of :mod:`verify.train.polynomial_step`: for a
chunk of one-hot inputs :math:`x = (x_1, \dots, x_k)` (row indices into the (k d)-row embedding table T, block
offsets included),

.. math:: P = \sum_{j=1}^k T[x_j], \qquad A = P^{\mathrm{deg}}, \qquad F = A W, \qquad
          G = \mathrm{softmax}(F) - e_y,

and one chunk contributes (unscaled; :func:`verify.train.polynomial_step.ensemble_gradient` divides by n and
multiplies the table gradient by deg)

.. math:: \mathrm{ce} \mathrel{+}= -\sum_x \log \mathrm{softmax}(F_x)_{y_x}, \qquad
          \mathrm{dW} \mathrel{+}= A^\top G, \qquad
          \mathrm{dtab}[x_j] \mathrel{+}= P^{\mathrm{deg}-1} \odot (G W^\top) \quad (j = 1..k).

Each Triton program takes a block of points of one seed, walks the width in tiles twice (logits, then gradients;
P and its powers are recomputed from the table in the second pass instead of being stored), keeps the (points x
classes) logits in registers for the softmax, and adds its dW tile, its CE sum and its table rows with atomic
additions. All arithmetic is float32 (``precision='ieee'``: no TF32 rounding of the products). Summation orders
differ from the eager kernel's, so the two agree to float32 round-off, not bit for bit; the atomics make the
order, and so the round-off, vary from run to run on a GPU.

Triton is optional (the ``gpu`` extra). Its kernel module is imported on the first call; set
``TRITON_INTERPRET=1`` before that to run the kernel in Triton's interpreter (numpy, CPU tensors), which is how the
tests check it without a GPU.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import torch

__all__ = ["MAX_CLASSES", "PRECISIONS", "available", "interpreted", "triton_chunk"]

PRECISIONS = ("ieee", "tf32")
MAX_CLASSES = 1024  # the logits of a block of points are held in registers: (block_points, next power of 2 of C)
INSTALL_HINT = "pip install -c constraints.txt -e '.[gpu]' (triton==3.9.0)"


def available() -> bool:
    """Whether ``triton`` can be found (without importing it).

    Returns
    -------
    bool
    """
    return importlib.util.find_spec("triton") is not None


def _kernels() -> ModuleType:
    """The kernel module (imports ``triton``); a clear ``ImportError`` when Triton is not installed.

    Returns
    -------
    module
        :mod:`verify.train._polynomial_triton_kernels`.

    Raises
    ------
    ImportError
        When ``triton`` cannot be imported.
    """
    try:
        return importlib.import_module("verify.train._polynomial_triton_kernels")
    except ImportError as exc:
        raise ImportError(
            f"triton_chunk needs Triton, which is not installed or fails to import ({exc}); {INSTALL_HINT}"
        ) from exc


def interpreted() -> bool:
    """Whether the kernel runs in Triton's interpreter (``TRITON_INTERPRET=1`` when it was first imported).

    Returns
    -------
    bool

    Raises
    ------
    ImportError
        When ``triton`` cannot be imported.
    """
    return bool(_kernels().INTERPRETED)


def _next_pow2(x: int) -> int:
    """The smallest power of two >= ``x`` (x >= 1)."""
    return 1 << (max(int(x), 1) - 1).bit_length()


def _check(
    table: torch.Tensor,
    W: torch.Tensor,
    xc: torch.Tensor,
    yc: torch.Tensor,
    dtab: torch.Tensor,
    dW: torch.Tensor,
    ce: torch.Tensor,
    precision: str,
) -> None:
    """Refuse inputs the kernel does not handle (it reads and writes raw contiguous float32 memory).

    Raises
    ------
    ValueError
        On wrong shapes, dtypes, layouts or devices, or an unknown ``precision``.
    """
    g, m, C = W.shape
    rows, k = table.shape[0], xc.shape[1]
    if table.shape != (rows, g * m) or dtab.shape != table.shape:
        raise ValueError(
            f"table and dtab must be (k d, g m) = (*, {g * m}), got {tuple(table.shape)}, {tuple(dtab.shape)}"
        )
    if dW.shape != W.shape or ce.shape != (g,):
        raise ValueError(f"dW must be {tuple(W.shape)} and ce ({g},), got {tuple(dW.shape)}, {tuple(ce.shape)}")
    if xc.dim() != 2 or yc.shape != (xc.shape[0],) or k < 1:
        raise ValueError(f"xc must be (c, k) and yc (c,), got {tuple(xc.shape)}, {tuple(yc.shape)}")
    floats = (table, W, dtab, dW, ce)
    if any(t.dtype != torch.float32 for t in floats):
        raise ValueError(f"the Triton chunk kernel is float32 only, got {sorted({str(t.dtype) for t in floats})}")
    if xc.dtype.is_floating_point or yc.dtype.is_floating_point:
        raise ValueError("the Triton chunk kernel takes one-hot index inputs (integer xc and yc)")
    if any(not t.is_contiguous() for t in (*floats, xc, yc)):
        raise ValueError("the Triton chunk kernel needs contiguous tensors")
    if len({t.device for t in (*floats, xc, yc)}) != 1:
        raise ValueError("the Triton chunk kernel needs all tensors on one device")
    if C > MAX_CLASSES:
        raise ValueError(
            f"the Triton chunk kernel holds a block's logits in registers: at most {MAX_CLASSES} classes, got {C}"
        )
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")


def triton_chunk(
    table: torch.Tensor,
    W: torch.Tensor,
    degree: int,
    xc: torch.Tensor,
    yc: torch.Tensor,
    dtab: torch.Tensor,
    dW: torch.Tensor,
    ce: torch.Tensor,
    *,
    block_points: int = 32,
    block_width: int = 32,
    precision: str = "ieee",
    num_warps: int = 4,
) -> None:
    r"""Accumulate one chunk's unscaled gradients into ``dtab``, ``dW`` and its CE sums into ``ce`` with the fused
    Triton kernel: the semantics of :func:`verify.train.polynomial_step._eager_chunk` for one-hot inputs, whose
    arguments it takes without ``dense`` and ``scatter`` (the kernel takes one-hot inputs only and adds table rows
    atomically). Its twelve parameters are that function's eight arrays, so that the two are called alike at the
    same call sites, and the kernel's four launch settings. Module doc: :math:`\mathrm{ce} \mathrel{+}= \sum_x \mathrm{CE}(F_x, y_x)`,
    :math:`\mathrm{dW} \mathrel{+}= A^\top G`, :math:`\mathrm{dtab}[x_j] \mathrel{+}= P^{\mathrm{deg}-1} \odot
    (G W^\top)`, the network of Shi thesis Sec. 4 / Thm 4.9).

    Parameters
    ----------
    table : torch.Tensor
        The (k d, g m) float32 embedding table of g seeds (row j d + a holds :math:`U_{s,:,j,a}` of every seed s).
    W : torch.Tensor
        (g, m, C) float32 output weights.
    degree : int
        The activation exponent (>= 1).
    xc : torch.Tensor
        (c, k) integer row indices into ``table`` (block offsets included, :func:`_chunk_inputs`).
    yc : torch.Tensor
        (c,) integer labels in [0, C).
    dtab, dW, ce : torch.Tensor
        Accumulators shaped like ``table``, ``W`` and (g,), float32, contiguous; added to in place.
    block_points, block_width : int
        Points and hidden units per tile (powers of two >= 16, the smallest ``tl.dot`` operand).
    precision : {'ieee', 'tf32'}
        ``tl.dot``'s input precision on a GPU ('ieee': float32 products; the interpreter always uses float32).
    num_warps : int
        Warps per program on a GPU (Triton's launch option; ignored by the interpreter). At the default tiles (32
        points x 32 units) and 4 warps the sm_90 build of the k = 4 kernel uses 255 registers without spilling;
        64 x 64 tiles spill (ptxas, C = 64).

    Raises
    ------
    ImportError
        When Triton is not installed.
    ValueError
        For a degree below 1, tensors the kernel does not take (:func:`_check`), block sizes that
        are not powers of two >= 16, or CPU tensors when the kernel is compiled (not interpreted).
    """
    if degree < 1:
        raise ValueError(f"degree must be >= 1, got {degree}")
    for name, b in (("block_points", block_points), ("block_width", block_width)):
        if b < 16 or b & (b - 1):
            raise ValueError(f"{name} must be a power of two >= 16, got {b}")
    _check(table, W, xc, yc, dtab, dW, ce, precision)
    kernels = _kernels()
    if not kernels.INTERPRETED and table.device.type != "cuda":
        raise ValueError(
            "the compiled Triton kernel needs CUDA tensors; on the CPU it runs only in the interpreter "
            "(TRITON_INTERPRET=1 before its first import)"
        )
    g, m, C = W.shape
    c, k = xc.shape
    if c == 0:
        return
    grid = (triton_cdiv(c, block_points), g)
    kernels.chunk_kernel[grid](
        table,
        W,
        xc,
        yc,
        dtab,
        dW,
        ce,
        c,
        m,
        C,
        g * m,
        K=k,
        DEGREE=degree,
        BLOCK_N=block_points,
        BLOCK_M=block_width,
        BLOCK_C=max(16, _next_pow2(C)),
        PRECISION=precision,
        num_warps=num_warps,
    )


def triton_cdiv(a: int, b: int) -> int:
    """ceil(a / b) for positive integers (``triton.cdiv`` without importing Triton)."""
    return -(-a // b)
