"""The gradient identities of Karp thesis Sec. 4.3.3 (proofs of Theorems 4.3 and 4.4) against torch autograd of
the model ``sigma(V X sigma(X^T W X))`` and central finite differences (docs/decision_lists.md).

Predictions: the identities evaluated in 40-digit arithmetic by :mod:`theory.decision_lists` at random dyadic
``W``, ``V`` (exact in float64). Observations: autograd through the literal one-hot model
(:func:`verify.train.decision_lists.model_dense`), with finite differences as a second, independent measurement.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from theory import decision_lists as td
from verify.train import decision_lists as vd

from ..base import Claim, Observation, RunContext, register
from ..judges import MaxAbs, Requiring
from .common import DOC, SRC, dyadic_matrix, to_float


@dataclass(frozen=True)
class GradientConfig:
    """``draws`` random instances: a task on ``L`` tokens with lists of length 1..``m``, dyadic ``W``, ``V`` with
    entries in ``[-scale, scale]``, one sequence of ``n`` distinct tokens; ``c`` for the ``V = cP`` form; the
    finite-difference step ``fd_h`` and the agreement required of it, ``fd_tol`` (set before any run: the central
    difference error is ``O(h^2) = 1e-10`` times the third derivative, plus rounding ``1e-16 / h``)."""

    L: int = 8
    n: int = 4
    m: int = 3
    draws: int = 3
    scale: int = 2
    c: int = 3
    seed: int = 0
    fd_h: float = 1e-5
    fd_tol: float = 1e-7


QUICK = GradientConfig()
FULL = GradientConfig(L=12, n=5, m=4, draws=20)


@dataclass(frozen=True)
class Instance:
    task: td.DecisionListTask
    W: tuple[tuple[Fraction, ...], ...]
    V: tuple[tuple[Fraction, ...], ...]
    seq: tuple[int, ...]

    def floats(self) -> tuple[np.ndarray, np.ndarray]:
        return to_float(self.W), to_float(self.V)


@lru_cache(maxsize=8)
def _instances(cfg: GradientConfig, cp: bool = False) -> tuple[Instance, ...]:
    """The random instances of ``cfg`` (Python's ``random``, seed ``cfg.seed``); with ``cp``, ``V = cP``."""
    rng = random.Random(cfg.seed)
    out = []
    for i in range(cfg.draws):
        task = td.random_task(cfg.L, cfg.m, cfg.seed * 1000 + i, min_length=1)
        W = dyadic_matrix(cfg.L, cfg.scale, rng)
        V = dyadic_matrix(cfg.L, cfg.scale, rng)
        if cp:
            V = [[Fraction(cfg.c) if task.perm[k] == r else Fraction(0) for k in range(cfg.L)] for r in range(cfg.L)]
        seq = tuple(rng.sample(range(cfg.L), cfg.n))
        out.append(Instance(task, tuple(map(tuple, W)), tuple(map(tuple, V)), seq))
    return tuple(out)


@lru_cache(maxsize=8)
def _measured(cfg: GradientConfig, cp: bool = False) -> tuple[tuple[np.ndarray, ...], ...]:
    """Per instance: autograd ``(gW, gV)`` and finite-difference ``(fW, fV)`` of the sequence loss (4.2)."""
    out = []
    for inst in _instances(cfg, cp):
        W, V = inst.floats()
        aW, aV = vd.autograd_gradients(inst.task, W, V, inst.seq)
        fW, fV = vd.finite_difference_gradients(inst.task, W, V, inst.seq, h=cfg.fd_h)
        out.append((aW, aV, fW, fV))
    return tuple(out)


def _outside(L: int, seq: tuple[int, ...]) -> np.ndarray:
    """Mask of the ``(L, L)`` entries whose row or column is a token outside the sequence."""
    inside = np.zeros(L, dtype=bool)
    inside[list(seq)] = True
    return ~(inside[:, None] & inside[None, :])


# --- dp_i / dw_k = p_i (1{i=k} - p_k) on s, 0 outside


def _predict_jacobian(cfg: GradientConfig) -> list[float]:
    """The attention Jacobian of every query of every instance (40 digits, then float)."""
    out = []
    for inst in _instances(cfg):
        for a in inst.seq:
            p = td.attention_column(inst.W, inst.seq, a)
            out += [float(x) for row in td.attention_jacobian(p, inst.seq) for x in row]
    return out


def _observe_jacobian(cfg: GradientConfig, ctx: RunContext) -> Observation:
    values, outside_zero = [], True
    for inst in _instances(cfg):
        W, _ = inst.floats()
        for a in inst.seq:
            J = vd.attention_jacobian_autograd(W, inst.seq, a)
            outside_zero &= bool(np.all(J[_outside(cfg.L, inst.seq)] == 0.0))
            values += J.ravel().tolist()
    return Observation(values, details={"outside_exactly_zero": outside_zero, "queries": cfg.draws * cfg.n})


register(
    Claim(
        id="karp-ch4-grad-attention-jacobian",
        source=f"{SRC}, Sec. 4.3.3 (proofs of Theorems 4.3 and 4.4, first display; {DOC})",
        statement="For the attention column p of a query a (p_i propto exp W[i, a] on the tokens of s): dp_i/dw_k = "
        "p_i(1 - p_i) for k = i, -p_i p_k for k in s, k != i, and exactly 0 for k outside s; equal to torch "
        "autograd at random W, the entries of tokens outside s being exactly 0.",
        kind="numeric",
        configs={"quick": QUICK, "full": FULL},
        predict=_predict_jacobian,
        observe=_observe_jacobian,
        judge=Requiring(MaxAbs(1e-12), ("outside_exactly_zero",)),
    )
)


# --- the chain rule for a column of W, the rows of V and the V = cP form


def _observe_grad(cfg: GradientConfig, which: int, cp: bool = False) -> Observation:
    """Autograd gradient ``which`` (0: W, 1: V) of every instance; finite differences must agree within
    ``fd_tol``; for W (``which`` 0) every entry of a token outside the sequence must also be exactly 0 in both the
    autograd and the finite-difference gradient (V's rows of such tokens are not zero in general, and are not
    checked)."""
    values, fd_err, outside_zero = [], 0.0, True
    for inst, (aW, aV, fW, fV) in zip(_instances(cfg, cp), _measured(cfg, cp)):
        auto, fd = (aW, fW) if which == 0 else (aV, fV)
        values += auto.ravel().tolist()
        fd_err = max(fd_err, float(np.abs(auto - fd).max()))
        if which == 0:
            out = _outside(cfg.L, inst.seq)
            outside_zero &= bool(np.all(auto[out] == 0.0) and np.all(fd[out] == 0.0))
    ok = fd_err <= cfg.fd_tol and outside_zero
    return Observation(
        values,
        details={
            "max_abs_autograd_minus_finite_difference": fd_err,
            "outside_exactly_zero": outside_zero,
            "finite_differences_agree": ok,
            "fd_h": cfg.fd_h,
        },
    )


def _predict_grad(cfg: GradientConfig, which: int, cp: bool = False) -> list[float]:
    """Exact gradient ``which`` (0: grad_W from the per-query chain rule, 1: grad_V from the row identities) of
    every instance, to 40 digits; ``cp``: at V = cP, grad_W from the specialised form."""
    return [
        float(x)
        for inst in _instances(cfg, cp)
        for row in td.sequence_gradients(inst.task, inst.W, inst.V, inst.seq, cp=cfg.c if cp else None)[which]
        for x in row
    ]


register(
    Claim(
        id="karp-ch4-grad-w-column",
        source=f"{SRC}, Sec. 4.3.3 (chain rule in the proofs of Theorems 4.3 and 4.4; {DOC})",
        statement="Column a of grad_W of the sequence loss (4.2) is (1/n) p_k[(Vp)_y - V_{y,k} + sum_l sigma_l "
        "(V_{l,k} - (Vp)_l)] at a's position (y its label), and every entry in a row or column of a token outside "
        "the sequence is exactly 0; equal to autograd of sigma(V X sigma(X^T W X)) and to central finite "
        "differences at random W, V.",
        kind="numeric",
        configs={"quick": QUICK, "full": FULL},
        predict=lambda cfg: _predict_grad(cfg, 0),
        observe=lambda cfg, ctx: _observe_grad(cfg, 0),
        judge=Requiring(MaxAbs(1e-12), ("finite_differences_agree",)),
    )
)


register(
    Claim(
        id="karp-ch4-grad-v-rows",
        source=f"{SRC}, Sec. 4.3.3 (proof of Theorem 4.4: grad_{{v_y}} = (sigma_y - 1)p, grad_{{v_l}} = sigma_l p)",
        statement="The rows of grad_V of the sequence loss are (1/n) sum_j (sigma_y - 1) p for the label row y and "
        "(1/n) sum_j sigma_l p for every other row l; equal to autograd and to central finite differences at "
        "random W, V.",
        kind="numeric",
        configs={"quick": QUICK, "full": FULL},
        predict=lambda cfg: _predict_grad(cfg, 1),
        observe=lambda cfg, ctx: _observe_grad(cfg, 1),
        judge=Requiring(MaxAbs(1e-12), ("finite_differences_agree",)),
    )
)


register(
    Claim(
        id="karp-ch4-grad-w-cP",
        source=f"{SRC}, Sec. 4.3.2-4.3.3 (V = cP in the proof of Theorem 4.3; {DOC})",
        statement="With V = cP: dL/dw_k = (c/n) p_k [p_u - 1{k = u} + sigma_{pi(k)} - sum_{i in s} sigma_{pi(i)} p_i] "
        "for the query's column w (u its label-determining token); equal to autograd and to finite differences.",
        kind="numeric",
        configs={"quick": QUICK, "full": FULL},
        predict=lambda cfg: _predict_grad(cfg, 0, cp=True),
        observe=lambda cfg, ctx: _observe_grad(cfg, 0, cp=True),
        judge=Requiring(MaxAbs(1e-12), ("finite_differences_agree",)),
    )
)
