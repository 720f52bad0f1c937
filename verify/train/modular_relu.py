r"""A one-hidden-layer ReLU network on modular addition, the comparison network of Edelman Fig. 7.1a / 7.4b
(docs/modular.md, "Negative control: ReLU networks").

The thesis trains "a 1-hidden layer ReLU network with L2 regularization" on mod-p addition and shows that its
neurons are close to, but not exactly, single-frequency (largest Fourier power share about 0.9); the max-margin
theory (Thm 7.7) covers only the quadratic network. The thesis does not give the network's exact form; we read it
as

.. math:: f(a, b) = W\,\mathrm{ReLU}(U e_a + V e_b) \in \mathbb{R}^p,

U, V of shape (m, p), W of shape (p, m), trained full-batch on all p^2 pairs with cross-entropy and AdamW weight
decay (the L2 regularisation), seeds batched along a leading axis (one initialisation and run per seed, through
:func:`verify.runtime.loop.run_loop`). Parameters are float32 on every device; purities are computed in float64 by
:func:`numerics.spectra.purity`. Before the first update :func:`memory_estimate` is compared with the device's free
memory (:func:`verify.runtime.memory.preflight`: ``InsufficientMemoryError`` unless ``tvk --ignore-memory-check``), and a
run whose first updates predict more than a minute prints its memory and time estimate on stderr.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from numerics.spectra import purity
from verify.runtime.checkpoint import Checkpoint, Evaluations, TrainerState, resume
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.loop import Bar, run_loop, stack_seeds, torch_threads
from verify.runtime.memory import preflight
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions

__all__ = [
    "ReluModularConfig",
    "ReluModularResult",
    "memory_estimate",
    "probe_relu_step",
    "step_multiply_adds",
    "train_relu_modular",
]

ITEMSIZE = 4  # parameters and activations are float32


@dataclass(frozen=True)
class ReluModularConfig:
    """The ReLU comparison run: modulus ``p``, width ``width``, AdamW (``lr``, ``weight_decay``) for ``steps``
    full-batch steps, one run per seed. ``init_scale`` multiplies N(0, 1/fan_in) initial weights. ``num_threads``:
    torch's intra-op threads during the run (1 by default: these matmuls are small; None leaves torch's setting)."""

    p: int
    width: int
    seeds: tuple[int, ...] = (0, 1, 2)
    steps: int = 3000
    lr: float = 3e-3
    weight_decay: float = 1e-2
    init_scale: float = 1.0
    eval_every: int = 500
    num_threads: int | None = 1

    def __post_init__(self) -> None:
        if self.p < 3:
            raise ValueError(f"p must be >= 3, got {self.p}")
        if self.width < 1 or self.steps < 1 or not self.seeds:
            raise ValueError(f"width and steps must be >= 1 and seeds non-empty, got {self.width}, {self.steps}")
        if not (self.lr > 0 and self.weight_decay >= 0 and self.init_scale > 0):
            raise ValueError("lr and init_scale must be > 0 and weight_decay >= 0")


@dataclass
class ReluModularResult:
    """Per seed: final training loss and accuracy, and per neuron the weight mass ||u|| ||v|| ||w|| and the
    purity min(purity(u), purity(v), purity(w)) (largest one-sided Fourier power share; 1 = single frequency)."""

    seeds: tuple[int, ...]
    loss: np.ndarray  # (S,)
    accuracy: np.ndarray  # (S,)
    mass: np.ndarray  # (S, m)
    purity: np.ndarray  # (S, m)
    history: list[dict[str, Any]]

    def significant(self, rel_mass: float = 1e-3) -> np.ndarray:
        """Neurons whose mass is at least ``rel_mass`` of the seed's largest, (S, m) boolean."""
        return self.mass >= rel_mass * self.mass.max(axis=1, keepdims=True)


def memory_estimate(cfg: ReluModularConfig, itemsize: int = ITEMSIZE) -> int:
    """Estimated peak bytes of :func:`train_relu_modular` (an upper estimate), floats of ``itemsize`` bytes.

    Floats: the parameters ``U, V, W`` (``3 m p`` per seed) six times (weights, gradients, AdamW's two slots and
    two temporaries of its update); per seed four ``(m, p^2)`` hidden-layer buffers (the broadcast sum of the
    two inputs, the ReLU output, its gradient and the gradient of the pre-activation) and five ``(p^2, p)`` logit
    buffers (the product, its reshaped copy, the log-probabilities and two gradients). Int64: the pairs ``a, b``
    and labels (``3 p^2``) and the labels and predictions repeated per seed (``2 S p^2``). Measured peaks (tests)
    are 1.4-2.3 times smaller.
    """
    S, p, m = len(cfg.seeds), cfg.p, cfg.width
    floats = S * (6 * 3 * m * p + 4 * m * p * p + 5 * p**3)
    return floats * itemsize + (3 + 2 * S) * p * p * 8


def step_multiply_adds(cfg: ReluModularConfig) -> float:
    """Multiply-adds of one update of :func:`train_relu_modular`, counted from the shapes (the plan's trainer cost
    model, :mod:`verify.report.plan`): the readout ``W h`` on all ``p^2`` pairs, ``m p^3`` per seed, three times
    (forward and the two products of its backward). The broadcast sum, the ReLU and AdamW's update are entry-wise
    (``O(m p^2)`` per seed, a ``p``-th of the product) and not counted.
    """
    return 3.0 * len(cfg.seeds) * cfg.width * cfg.p**3


def _init(cfg: ReluModularConfig, seed: int) -> dict[str, torch.Tensor]:
    """Seed ``seed``'s initial U, V (m, p) and W (p, m): N(0, c^2 / p) and N(0, c^2 / m) entries, c = ``init_scale``.
    Drawn in float32 on the CPU for every dtype and device (the trainer's default dtype), so that a float64 or a CUDA
    run starts from the same weights as the default run; a float64 run's start is float32-representable."""
    g = torch.Generator().manual_seed(int(seed))
    p, m, c = cfg.p, cfg.width, cfg.init_scale
    return {
        "U": c * torch.randn(m, p, generator=g) / p**0.5,
        "V": c * torch.randn(m, p, generator=g) / p**0.5,
        "W": c * torch.randn(p, m, generator=g) / m**0.5,
    }


def probe_relu_step(cfg: ReluModularConfig, device: str = "cpu", steps: int = 2) -> float:
    """Seconds per update of :func:`train_relu_modular` at ``cfg``'s shapes on ``device``, as the machine is loaded
    now (the plan's probe, :mod:`verify.report.plan`): :func:`verify.runtime.memory.update_seconds` of the real
    trainer, each run evaluated only at its first and last step."""
    from verify.runtime.memory import update_seconds

    options = RunOptions(device=device)
    return update_seconds(lambda n: train_relu_modular(replace(cfg, steps=n, eval_every=10 * n), options), steps)


def train_relu_modular(cfg: ReluModularConfig, options: RunOptions = DEFAULT_OPTIONS) -> ReluModularResult:
    """Train ``cfg``'s seed ensemble on all p^2 pairs; see the module docstring for the model.

    ``options`` (:class:`verify.runtime.options.RunOptions`): device, dtype (default float32 on every device), the
    seed offset (shifts ``cfg.seeds``), progress, the memory-check override. With a checkpoint file the run saves
    U, V, W, AdamW's state and the history every ``options.checkpoint_every`` steps, every ``CHECKPOINT_SECONDS``,
    at the end and on Ctrl-C, and resumes from a trusted checkpoint of the same configuration
    (:func:`verify.runtime.checkpoint.resume`; ``num_threads`` may differ) with the result of an uninterrupted run.

    Before the first update :func:`memory_estimate` is checked against the device's free memory
    (:class:`verify.runtime.memory.InsufficientMemoryError` unless ``options.ignore_memory_check``); a run whose
    first updates predict more than ``PRINT_ESTIMATE_S`` seconds prints its memory and time estimate on stderr."""
    cfg, setting = options.configure(cfg, "relu-modular", default_dtype="float32")
    dev, dtype = setting.device, setting.dtype
    at = preflight(
        memory_estimate(cfg, dtype.itemsize),
        dev,
        f"ReLU modular training of {len(cfg.seeds)} seeds (p = {cfg.p}: {cfg.p**2} pairs, width {cfg.width})",
        "lower width or train fewer seeds per call",
        steps=cfg.steps,
        n_seeds=len(cfg.seeds),
        desc=f"ReLU mod-{cfg.p}",
        eval_every=cfg.eval_every,
        ignore=options.ignore_memory_check,
    )
    params = stack_seeds(cfg.seeds, lambda s: _init(cfg, s), device=dev, dtype=dtype)
    U, V, W = (params[k].requires_grad_() for k in ("U", "V", "W"))
    p, S, m = cfg.p, len(cfg.seeds), cfg.width
    a = torch.arange(p, device=dev).repeat_interleave(p)
    b = torch.arange(p, device=dev).repeat(p)
    y = (a + b) % p
    opt = torch.optim.AdamW([U, V, W], lr=cfg.lr, weight_decay=cfg.weight_decay)

    def forward() -> torch.Tensor:
        # pair a * p + b is column a * p + b: U[:, :, a] + V[:, :, b] as a broadcast sum, whose backward is a sum
        # over one axis rather than the scatter-add of an index gather (3-4 times faster per step on a CPU)
        hidden = torch.relu((U.unsqueeze(-1) + V.unsqueeze(-2)).reshape(S, m, p * p))  # (S, m, p^2)
        return torch.bmm(W, hidden).transpose(1, 2)  # (S, p^2, p)

    def per_seed_loss(logits: torch.Tensor) -> torch.Tensor:
        ce = torch.nn.functional.cross_entropy(logits.reshape(-1, p), y.repeat(S), reduction="none")
        return ce.reshape(S, -1).mean(dim=1)

    def step_fn(step: int) -> torch.Tensor:
        at(step)  # the time estimate of a long run, after a few updates
        loss = per_seed_loss(forward())
        opt.zero_grad(set_to_none=True)
        loss.sum().backward()
        opt.step()
        return loss.detach()

    history: list[dict[str, Any]] = []

    def evaluate(step: int) -> dict[str, Any]:
        with torch.no_grad():
            logits = forward()
            rec = {
                "step": step,
                "loss": per_seed_loss(logits).tolist(),
                "accuracy": (logits.argmax(-1) == y).double().mean(dim=1).tolist(),
            }
        history.append(rec)
        return rec

    evaluations = Evaluations(evaluate)
    trainer = TrainerState({"U": U, "V": V, "W": W}, opt, records={"history": history}, evaluations=evaluations)
    ckpt = Checkpoint.for_run(options, setting, "relu_modular", cfg, cfg.steps, resumable=frozenset({"num_threads"}))
    with torch_threads(cfg.num_threads), setting.precision():
        start = resume(ckpt, trainer, options.checkpoint_every)
        run_loop(
            step_fn,
            cfg.steps,
            evaluate=evaluations,
            eval_every=cfg.eval_every,
            guard=NonFiniteGuard(cfg.seeds, "relu-modular", "lower lr", every=100, weights={"W": W}),
            resumption=start,
            bar=Bar(enabled=options.progress, desc=f"ReLU mod-{p}"),
        )
    return _result(U, V, W, history, cfg.seeds)


def _result(
    U: torch.Tensor, V: torch.Tensor, W: torch.Tensor, history: list[dict[str, Any]], seeds: tuple[int, ...]
) -> ReluModularResult:
    """Per-neuron mass and purity (float64) and the last evaluation's loss and accuracy."""
    u, v, w = (t.detach().cpu().double().numpy() for t in (U, V, W.transpose(1, 2)))
    mass = np.linalg.norm(u, axis=2) * np.linalg.norm(v, axis=2) * np.linalg.norm(w, axis=2)
    pur = np.minimum(np.minimum(purity(u), purity(v)), purity(w))
    last = history[-1]
    return ReluModularResult(seeds, np.array(last["loss"]), np.array(last["accuracy"]), mass, pur, history)
