"""The linear looped transformer of Shi thesis Ch. 8 in torch, batched over prompts, CPU or GPU.

Z^(t) = Z^(t-1) - eta^(t-1) (M o Z Q Z^T) Z P with the query-only mask M (Def. 8.6, 8.7) and the
construction's weights Q = I, P = diag(I_d, 0) taken from :func:`theory.looped.construction`.
Runs in float64 by default on every device (the equivalence claim is checked to 1e-10).
"""

from __future__ import annotations

import numpy as np
import torch

from theory import looped as tl
from verify.runtime.device import resolve_device

__all__ = ["attention", "construction_weights", "embed", "looped_forward", "tf_outputs"]


def construction_weights(
    d: int, *, dtype: torch.dtype = torch.float64, device: torch.device | str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """(Q, P) of Thm 8.14 as tensors, from the exact construction in ``theory/looped.py``."""
    Q, P = tl.construction(d)

    def to(A):
        return torch.tensor([[float(v) for v in row] for row in A.tolist()], dtype=dtype, device=device)

    return to(Q), to(P)


def embed(
    X: torch.Tensor, y: torch.Tensor, alpha: torch.Tensor | float, q0: torch.Tensor | None = None
) -> torch.Tensor:
    """Z^(0) = [[X, y], [q0^T, alpha]] batched: X (B, n, d), y (B, n), alpha scalar or (B,), q0 (B, d) -> (B, n+1, d+1)."""
    if X.ndim != 3 or y.shape != X.shape[:2]:
        raise ValueError(f"X must be (B, n, d) and y (B, n); got X {tuple(X.shape)}, y {tuple(y.shape)}")
    B, _n, d = X.shape
    a = (
        torch.as_tensor(alpha, dtype=X.dtype, device=X.device).expand(B)
        if not torch.is_tensor(alpha) or alpha.ndim == 0
        else alpha
    )
    if a.shape != (B,):
        raise ValueError(f"alpha must be a scalar or (B,) = ({B},), got {tuple(a.shape)}")
    if torch.any(a == 0):
        raise ValueError("alpha must be non-zero (Thm 8.14)")
    q = torch.zeros(B, d, dtype=X.dtype, device=X.device) if q0 is None else q0
    if q.shape != (B, d):
        raise ValueError(f"q0 must be (B, d) = ({B}, {d}), got {tuple(q.shape)}")
    top = torch.cat([X, y[..., None]], dim=2)
    bottom = torch.cat([q, a[:, None]], dim=1)[:, None, :]
    return torch.cat([top, bottom], dim=1)


def attention(Z: torch.Tensor, Q: torch.Tensor, P: torch.Tensor) -> torch.Tensor:
    """(M o Z Q Z^T) Z P for a batch Z (B, n+1, d+1), with the dense query-only mask (Def. 8.6)."""
    n1 = Z.shape[1]
    M = torch.zeros(n1, n1, dtype=Z.dtype, device=Z.device)
    M[-1, :-1] = 1
    return (M * (Z @ Q @ Z.transpose(1, 2))) @ Z @ P


def looped_forward(
    Z0: torch.Tensor, etas: torch.Tensor, Q: torch.Tensor, P: torch.Tensor, *, keep: bool = False
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Run T loops; ``etas`` is (T,) or (B, T). Returns Z^(T) (B, n+1, d+1); with ``keep`` also the query row of
    every layer, (B, T+1, d+1) (the only row that changes, Thm 8.14)."""
    if Z0.ndim != 3:
        raise ValueError(f"Z0 must be (B, n+1, d+1), got {tuple(Z0.shape)}")
    d1 = Z0.shape[2]
    if Q.shape != (d1, d1) or P.shape != (d1, d1):
        raise ValueError(f"Q and P must be ({d1}, {d1}) to match Z0, got {tuple(Q.shape)} and {tuple(P.shape)}")
    B = Z0.shape[0]
    e = etas if etas.ndim == 2 else etas.expand(B, -1)
    if e.shape[0] != B:
        raise ValueError(f"etas must be (T,) or (B, T) with B = {B}, got {tuple(etas.shape)}")
    if torch.any(e <= 0):
        raise ValueError("step sizes must be > 0 (Def. 8.7)")
    Z, rows = Z0, [Z0[:, -1]]
    for t in range(e.shape[1]):
        Z = Z - e[:, t, None, None] * attention(Z, Q, P)
        if keep:
            rows.append(Z[:, -1])
    return (Z, torch.stack(rows, dim=1)) if keep else Z


def tf_outputs(
    X: np.ndarray,
    y: np.ndarray,
    alpha: float | np.ndarray,
    etas: np.ndarray,
    q0: np.ndarray | None = None,
    *,
    device: str = "auto",
    dtype: torch.dtype = torch.float64,
    keep: bool = False,
) -> dict[str, np.ndarray | str]:
    """Numpy in, numpy out: TF(Z^(0)) = -(Z^(T)_{n+1,1:d}) per prompt (or per layer if ``keep``: (B, T+1, d)),
    plus Z^(0), Z^(T) and the device name."""
    dev = resolve_device(device)
    tX = torch.as_tensor(np.asarray(X), dtype=dtype, device=dev)
    ty = torch.as_tensor(np.asarray(y), dtype=dtype, device=dev)
    ta = torch.as_tensor(np.asarray(alpha), dtype=dtype, device=dev)
    tq = None if q0 is None else torch.as_tensor(np.asarray(q0), dtype=dtype, device=dev)
    te = torch.as_tensor(np.asarray(etas), dtype=dtype, device=dev)
    Q, P = construction_weights(tX.shape[2], dtype=dtype, device=dev)
    Z0 = embed(tX, ty, ta, tq)
    if keep:
        ZT, rows = looped_forward(Z0, te, Q, P, keep=True)
        tf = -rows[:, :, :-1]
    else:
        ZT = looped_forward(Z0, te, Q, P)
        tf = -ZT[:, -1, :-1]
    return {"tf": tf.cpu().numpy(), "Z0": Z0.cpu().numpy(), "ZT": ZT.cpu().numpy(), "device": str(dev)}
