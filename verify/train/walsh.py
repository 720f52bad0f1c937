r"""Torch (CPU or GPU) Walsh-Hadamard transform and exact population gradients of one neuron.

Same conventions and signs as :mod:`numerics.walsh` (which may not import torch): point ``a`` in
``0..2^n-1`` has :math:`x_i=(-1)^{a_i}` (bit i), a subset S is a bit mask, the unnormalised transform is
:math:`(Hf)[S]=\sum_a (-1)^{|a\cap S|} f(a)` and :math:`\hat f(S)=2^{-n}(Hf)[S]`.

* :func:`fwht` - O(N log N) butterfly along the last axis, batched over leading dims, any device, float32/float64.
* :func:`linear_form` - :math:`w^\top x` on the whole cube for a batch of w (..., n) -> (..., 2^n).
* :func:`population_gradient` - :math:`[\nabla_w]_i=-\hat h(S\triangle\{i\})`, :math:`\nabla_b=-\hat h(S)` for
  :math:`h=\sigma'(w^\top x+b)` (proof of Prop. B.7), batched over w.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from theory.boolean import as_mask
from verify.runtime.device import resolve_device

__all__ = [
    "MAX_N",
    "cube",
    "default_radix",
    "fwht",
    "hadamard",
    "linear_form",
    "population_gradient",
    "relu_prime",
    "walsh_coefficients",
]

MAX_N = 30


def _log2_length(N: int) -> int:
    if N == 0 or N & (N - 1):
        raise ValueError(f"the Walsh-Hadamard transform needs a length that is a power of 2, got {N}")
    return N.bit_length() - 1


def hadamard(m: int, *, device: torch.device | str = "cpu", dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Dense Sylvester Hadamard matrix H_{2^m}[j, i] = (-1)^{popcount(j & i)}."""
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    a = torch.arange(1 << m, device=device)
    x = a[:, None] & a[None, :]
    pc = torch.zeros_like(x)
    for i in range(m):
        pc += (x >> i) & 1
    return (1 - 2 * (pc & 1)).to(dtype)


def default_radix(device: torch.device) -> int:
    """Bits per dense block: 4 on the CPU (measured fastest for n = 16..22), 7 on CUDA (matmul-bound)."""
    return 7 if torch.device(device).type == "cuda" else 4


def fwht(values: torch.Tensor, *, radix: int | None = None) -> torch.Tensor:
    r"""Unnormalised Walsh-Hadamard transform along the last axis (new tensor, same device and dtype).

    Sylvester order, identical to :func:`numerics.walsh.fwht`; floating dtypes only.  Since
    :math:`H_{2^n}=igotimes_{	ext{bits}}H_2`, the transform is applied ``radix`` bits at a time as a batched
    matmul with the dense :math:`H_{2^{radix}}` (O(N 2^radix n/radix) flops, matmul-friendly on CPU and GPU).
    """
    if not isinstance(values, torch.Tensor):
        raise ValueError(f"fwht needs a torch.Tensor, got {type(values).__name__}; use numerics.walsh.fwht for numpy")
    if not values.is_floating_point():
        raise ValueError(f"fwht needs a floating tensor (float32/float64), got {values.dtype}")
    N = values.shape[-1]
    n = _log2_length(N)
    m = default_radix(values.device) if radix is None else int(radix)
    if m < 1:
        raise ValueError(f"radix must be >= 1, got {radix}")
    a = values.reshape(-1, N)
    if n == 0:
        return values.clone()
    done = 0
    while done < n:
        mm = min(m, n - done)
        H = hadamard(mm, device=values.device, dtype=values.dtype)
        a = torch.matmul(H, a.reshape(-1, 1 << mm, 1 << done))  # bits done..done+mm-1 of the index
        done += mm
    return a.reshape(values.shape)


def walsh_coefficients(values: torch.Tensor) -> torch.Tensor:
    """All Fourier coefficients f^(S) (mask-indexed) of value vectors over the cube, along the last axis."""
    return fwht(values) / values.shape[-1]


def _check_n(n: int) -> int:
    if n < 1 or n > MAX_N:
        raise ValueError(f"n must be in 1..{MAX_N} for a dense transform over {{±1}}^n, got n = {n}")
    return n


def cube(n: int, *, device: torch.device | str = "cpu", dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """(2^n, n) points of {±1}^n, row a has x_i = (-1)^{bit i of a}."""
    _check_n(n)
    a = torch.arange(1 << n, device=device)
    bits = (a[:, None] >> torch.arange(n, device=device)) & 1
    return (1 - 2 * bits).to(dtype)


def linear_form(w: torch.Tensor) -> torch.Tensor:
    """w.x on every point of the cube for each w (..., n) -> (..., 2^n), built by doubling (O(2^n) per w)."""
    n = _check_n(w.shape[-1])
    z = torch.zeros(*w.shape[:-1], 1, device=w.device, dtype=w.dtype)
    for i in range(n):  # bit i is the high bit at step i: indices < 2^i have x_i = +1
        wi = w[..., i : i + 1]
        z = torch.cat((z + wi, z - wi), dim=-1)
    return z


def relu_prime(z: torch.Tensor) -> torch.Tensor:
    """d/dz ReLU(z) = 1[z > 0] (same dtype as z)."""
    return (z > 0).to(z.dtype)


def population_gradient(
    sigma_prime: Callable[[torch.Tensor], torch.Tensor],
    w,
    b,
    S,
    *,
    device: str | torch.device = "auto",
    dtype: torch.dtype | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""(grad_w, grad_b) of :math:`E[-\chi_S(x)\,\sigma(w^\top x+b)]`, batched over w (..., n).

    :math:`[\nabla_w]_i=-\hat h(S\triangle\{i\})`, :math:`\nabla_b=-\hat h(S)` with :math:`h=\sigma'(w^\top x+b)`
    (proof of Prop. B.7), one transform of h per w.  ``b`` is a scalar or a tensor of shape (...).
    ``device``: a name for :func:`verify.runtime.device.resolve_device` or a device; a tensor ``w`` keeps its device
    when ``device='auto'``. ``dtype`` defaults to w's floating dtype, else float64.
    """
    if isinstance(w, torch.Tensor):
        dev = (
            w.device
            if device == "auto"
            else torch.device(device)
            if isinstance(device, torch.device)
            else resolve_device(device)
        )
        dt = dtype or (w.dtype if w.is_floating_point() else torch.float64)
    else:
        dev = device if isinstance(device, torch.device) else resolve_device(device)
        dt = dtype or torch.float64
    w = torch.as_tensor(w, device=dev, dtype=dt)
    if w.ndim < 1:
        raise ValueError("w must have shape (..., n), got a scalar")
    n = _check_n(w.shape[-1])
    b = torch.as_tensor(b, device=dev, dtype=dt)
    if b.ndim and b.shape != w.shape[:-1]:
        raise ValueError(f"b must be a scalar or have shape {tuple(w.shape[:-1])}, got {tuple(b.shape)}")
    z = linear_form(w) + (b[..., None] if b.ndim else b)
    hh = walsh_coefficients(sigma_prime(z).to(dt))
    mask = as_mask(S, n)
    idx = torch.tensor([mask ^ (1 << i) for i in range(n)], device=dev)
    return -hh[..., idx], -hh[..., mask]
